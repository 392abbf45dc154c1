"""Token budgets (lessons 01, 02 and 05): how much room is left for history.

One context window is shared by everything sent to the model and its reply.
Each fixed part takes its share, and the history gets what is left:

    B     = L - S - U - R          (lesson 02: the history budget)
    H_max = L - S - U - R - M      (lesson 05: the ceiling, with a safety margin M)

where L is the model's context limit, S the system prompt, U the user's new
input, R the tokens reserved for the reply and M a safety margin.

>>> history_budget(4096, system=350, user=180, reserve=700)
2866
>>> print(budget_working(4096, 350, 180, 700))
B = L - S - U - R
4096 - 350 = 3746
3746 - 180 = 3566
3566 - 700 = 2866
B = 2866
>>> input_overflow(1000, 700, 200, 180)  # history + prompt + tools
80

Computing is kept apart from showing: the ``*_working`` functions return
dataclasses whose ``lines`` a lesson prints and whose ``steps`` a plot draws
(a waterfall: one bar per labelled step).
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral
from typing import Any

from course_utils.core.i18n import _, pgettext

#: The fixed parts of a budget, in the order they are subtracted:
#: (parameter name, label for tables and plots, symbol in the formula).
BUDGET_PARTS = (
    ("system", "system prompt", "S"),
    ("user", "user input", "U"),
    ("reserve", "reply reserve", "R"),
    ("margin", "safety margin", "M"),
)


# --- checking arguments -----------------------------------------------------


def _check_tokens(value: Any, parameter: str, *, positive: bool = False) -> int:
    """Return ``value`` as an int token count, or raise naming ``parameter``.

    A token count is a whole number: bools, floats, strings and None are
    TypeErrors; negative numbers (and zero, when ``positive``) are ValueErrors.
    It follows ``course_utils.core.args.check_int`` but keeps its own wording
    ("must be zero or more tokens, got -350"), which lessons 02 and 05 show.
    """
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{parameter} must be an int (a number of tokens), got {type(value).__name__}: {value!r:.80}")
    value = int(value)
    if positive and value <= 0:
        raise ValueError(_("{parameter} must be a positive number of tokens, got {value}").format(
            parameter=parameter, value=value))
    if value < 0:
        raise ValueError(_("{parameter} must be zero or more tokens, got {value}").format(
            parameter=parameter, value=value))
    return value


def _check_budget_args(limit: Any, system: Any, user: Any, reserve: Any, margin: Any) -> tuple[int, dict[str, int]]:
    """Check every argument; return the limit and the fixed parts by parameter name."""
    limit = _check_tokens(limit, "limit", positive=True)
    values = {"system": system, "user": user, "reserve": reserve, "margin": margin}
    parts = {name: _check_tokens(value, name) for name, value in values.items()}
    used = sum(parts.values())
    if used >= limit:
        terms = " + ".join(f"{name} ({tokens})" for name, tokens in parts.items())
        raise ValueError(_("no room left for history: {terms} = {used} >= limit ({limit})").format(
            terms=terms, used=used, limit=limit))
    return limit, parts


# --- the two contract functions ----------------------------------------------


def history_budget(limit: int, system: int, user: int, reserve: int, margin: int = 0) -> int:
    """Tokens left for the history: B = L - S - U - R, or H_max = B - M with a margin.

    >>> history_budget(4096, 350, 180, 700)
    2866
    >>> history_budget(8192, 500, 300, 1200, margin=300)
    5892

    Raises ValueError when the fixed parts leave no room (the result would be
    zero or less): a model call with no history budget is a design error, not
    a budget.
    """
    limit, parts = _check_budget_args(limit, system, user, reserve, margin)
    return limit - sum(parts.values())


def input_overflow(limit: int, *parts: int) -> int:
    """Tokens over the limit: ``sum(parts) - limit``. Zero or less means the input fits.

    >>> input_overflow(1000, 700, 200, 180)
    80
    >>> input_overflow(1000, 600, 200, 180)  # fits, with 20 to spare
    -20
    """
    limit = _check_tokens(limit, "limit", positive=True)
    if not parts:
        raise ValueError("parts must hold at least one token count, e.g. input_overflow(1000, 700, 200, 180); got none")
    tokens = [_check_tokens(part, f"parts[{i}]") for i, part in enumerate(parts)]
    return sum(tokens) - limit


# --- the working a lesson prints ---------------------------------------------


@dataclass(frozen=True)
class BudgetStep:
    """One subtraction: ``before - tokens = after``, labelled for a waterfall plot."""

    label: str  #: "system prompt", "user input", "reply reserve", "safety margin"
    symbol: str  #: "S", "U", "R", "M"
    tokens: int
    before: int
    after: int

    @property
    def line(self) -> str:
        return f"{self.before} - {self.tokens} = {self.after}"


@dataclass(frozen=True)
class BudgetWorking:
    """The budget worked out step by step, as a lesson shows it.

    ``lines`` is the arithmetic, one subtraction a line; ``budget`` the
    result; ``steps`` carry labels for a plot.
    """

    limit: int
    steps: tuple[BudgetStep, ...]

    @property
    def budget(self) -> int:
        return self.steps[-1].after

    @property
    def has_margin(self) -> bool:
        return any(step.symbol == "M" for step in self.steps)

    @property
    def name(self) -> str:
        """``"B"`` for the history budget, ``"H_max"`` when a safety margin is taken off."""
        return "H_max" if self.has_margin else "B"

    @property
    def formula(self) -> str:
        return " - ".join([f"{self.name} = L", *(step.symbol for step in self.steps)])

    @property
    def lines(self) -> list[str]:
        return [step.line for step in self.steps]

    def to_rows(self) -> list[dict]:
        """One dict per bar of a waterfall: the limit, each part taken off, what is left."""
        rows = [{"label": "context limit", "symbol": "L", "tokens": self.limit, "before": 0, "after": self.limit}]
        rows += [
            {"label": s.label, "symbol": s.symbol, "tokens": s.tokens, "before": s.before, "after": s.after}
            for s in self.steps
        ]
        rows.append({"label": "history", "symbol": self.name, "tokens": self.budget, "before": 0, "after": self.budget})
        return rows

    def __str__(self) -> str:
        if self.has_margin:
            last = pgettext("history ceiling", "{name} = {budget}")
        else:
            last = pgettext("history budget", "{name} = {budget}")
        return "\n".join([self.formula, *self.lines, last.format(name=self.name, budget=self.budget)])


def budget_working(limit: int, system: int, user: int, reserve: int, margin: int = 0) -> BudgetWorking:
    """Work out :func:`history_budget` one subtraction at a time.

    The margin step appears only when ``margin`` is not zero, so the lesson 02
    example has three lines and the lesson 05 example four.

    >>> budget_working(4096, 350, 180, 700).lines
    ['4096 - 350 = 3746', '3746 - 180 = 3566', '3566 - 700 = 2866']
    >>> budget_working(8192, 500, 300, 1200, margin=300).budget
    5892
    """
    limit, parts = _check_budget_args(limit, system, user, reserve, margin)
    steps = []
    left = limit
    for parameter, label, symbol in BUDGET_PARTS:
        tokens = parts[parameter]
        if parameter == "margin" and tokens == 0:
            continue
        steps.append(BudgetStep(label, symbol, tokens, left, left - tokens))
        left -= tokens
    return BudgetWorking(limit, tuple(steps))


@dataclass(frozen=True)
class OverflowWorking:
    """Whether an input fits the window, as a lesson shows it.

    >>> print(overflow_working(1000, history=700, prompt=200, tools=180))
    700 + 200 + 180 = 1080 > 1000: 80 tokens over
    """

    limit: int
    parts: tuple[tuple[str, int], ...]  #: (label, tokens), in the order given

    @property
    def total(self) -> int:
        return sum(tokens for _, tokens in self.parts)

    @property
    def over(self) -> int:
        """Tokens over the limit; zero or less means it fits (same as :func:`input_overflow`)."""
        return self.total - self.limit

    @property
    def fits(self) -> bool:
        return self.over <= 0

    @property
    def line(self) -> str:
        """The sum against the limit, then its verdict (the arithmetic stays outside a right-to-left verdict)."""
        terms = " + ".join(str(tokens) for _, tokens in self.parts)
        if self.fits:
            verdict = _("fits, {spare} tokens to spare").format(spare=-self.over)
            return f"{terms} = {self.total} <= {self.limit}: {verdict}"
        return f"{terms} = {self.total} > {self.limit}: " + _("{over} tokens over").format(over=self.over)

    @property
    def conclusion(self) -> str:
        """What the working means for the call, in one sentence.

        >>> print(overflow_working(1000, history=700, prompt=200, tools=180).conclusion)
        So the call is 80 tokens over the limit: it cannot be sent as it is.
        >>> print(overflow_working(1000, history=620, prompt=200, tools=180).conclusion)
        So the call fits, with 0 tokens to spare.
        """
        if self.fits:
            return _("So the call fits, with {spare} tokens to spare.").format(spare=-self.over)
        return _("So the call is {over} tokens over the limit: it cannot be sent as it is.").format(over=self.over)

    @property
    def lines(self) -> list[str]:
        return [self.line]

    def to_rows(self) -> list[dict]:
        """One dict per part, for a stacked bar against the limit."""
        return [{"label": label, "tokens": tokens} for label, tokens in self.parts]

    def __str__(self) -> str:
        return self.line


def overflow_working(limit: int, **parts: int) -> OverflowWorking:
    """Add up the named parts of an input and compare with the limit.

    >>> overflow_working(1000, history=700, prompt=200, tools=180).over
    80
    """
    limit = _check_tokens(limit, "limit", positive=True)
    if not parts:
        raise ValueError(
            "parts must hold at least one named token count, e.g. overflow_working(1000, history=700, prompt=200); "
            "got none"
        )
    checked = tuple((label, _check_tokens(tokens, label)) for label, tokens in parts.items())
    return OverflowWorking(limit, checked)
