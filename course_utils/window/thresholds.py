"""Choosing trimming thresholds (lesson 05): the ceiling, and suggestions by task.

Two tools, from your model's limit to a starting threshold:

1. The history ceiling, **H_max = L - S - U - R - M** (``budget.history_budget``
   with a margin), and :func:`suggest_thresholds`, which fills S, U, R and M
   with typical values for a task ("chat", "agent", "retrieval") so you can
   start from your model's limit L:

   >>> suggestion = suggest_thresholds(8192, "chat")
   >>> suggestion.h_max, suggestion.trim_max_tokens
   (5782, 6582)

2. :data:`MODEL_LIMITS`, the context windows of a few models from the data
   file ``models.json`` (``models.py``: each row dated and sourced; limits change).

Measuring a threshold (replaying a conversation through retention strategies,
counting the facts the model still knows and what a provider bills) is
``retention.compare_strategies`` and ``costs.bill``.

Computing only: :func:`limits_rows` returns rows; their picture is
``render.limits_table``. This module never imports a presentation module.
"""

from __future__ import annotations

import math
import textwrap
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from course_utils.core.args import check_int
from course_utils.window.budget import BudgetWorking, budget_working
from course_utils.core.i18n import PDI, RLI, _
from course_utils.window.models import CURRENT_MODELS, MODELS_NOTE, approximate_worst_ratio, counter_for_tokenizer
from course_utils.window.sequences import safe_trim_kwargs

# --- model limits -------------------------------------------------------------------


@dataclass(frozen=True)
class ModelLimit:
    """A model's context window (input and output together), as its provider documents it."""

    model: str
    provider: str
    context_window: int
    kind: str  #: "hosted" (an API) or "open weights" (you can run it yourself)
    max_input_tokens: int | None = None  #: the provider's cap on input, where it is below the window


#: Context windows of the models a learner can call, from the data file ``models.json`` (see
#: ``models.py``: every row dated and sourced; limits change; retired models are left out).
MODEL_LIMITS = tuple(ModelLimit(m.model, m.provider, m.context_window, m.kind, m.max_input_tokens)
                     for m in CURRENT_MODELS)
LIMITS_NOTE = MODELS_NOTE


def model_limit(model: str) -> int:
    """The context window of a model in :data:`MODEL_LIMITS`, by name (case-insensitive).

    >>> model_limit("llama 3 8b instruct")
    8192
    """
    if not isinstance(model, str):
        raise TypeError(f"model must be a str, got {type(model).__name__}: {model!r:.80}")
    for entry in MODEL_LIMITS:
        if entry.model.lower() == model.strip().lower():
            return entry.context_window
    raise ValueError(f"model must be one of {[m.model for m in MODEL_LIMITS]}, got {model!r}")


# --- suggestions by task -------------------------------------------------------------


@dataclass(frozen=True)
class TaskProfile:
    """Typical sizes of the fixed parts of a call for one kind of task (starting points, not laws)."""

    task: str
    description: str
    system: int  #: S: system prompt (and, for agents, the tools' JSON schemas)
    user: int  #: U: the new input (and, for retrieval, the retrieved documents)
    reserve: int  #: R: room kept for the reply
    margin_share: float  #: M as a share of L: room for counting error
    advice: str


TASK_PROFILES = {
    "chat": TaskProfile(
        "chat",
        "a friendly assistant with a long conversation",
        system=500,
        user=300,
        reserve=1200,
        margin_share=0.05,
        advice=(
            "Facts said early (a name, preferences) matter later: summarise rather than only trim, "
            "or keep them in the system prompt."
        ),
    ),
    "agent": TaskProfile(
        "agent",
        "a tool-using agent",
        system=2000,
        user=300,
        reserve=1000,
        margin_share=0.05,
        advice=(
            "Tool schemas are sent on every call, so they are part of S. Tool results come back as "
            "ToolMessages and live in the history: leave room for several, and trim with "
            "start_on='human' so a ToolMessage never loses the AIMessage that called it."
        ),
    ),
    "retrieval": TaskProfile(
        "retrieval",
        "question answering over retrieved documents",
        system=500,
        user=4000,
        reserve=1000,
        margin_share=0.05,
        advice=(
            "The retrieved passages are new input on every call, so they are part of U. The documents "
            "carry the facts, so the history can be short."
        ),
    ),
}
TASKS = tuple(TASK_PROFILES)


@dataclass(frozen=True)
class ThresholdSuggestion:
    """A worked-out threshold for one model limit and task."""

    task: str
    limit: int
    system: int
    user: int
    reserve: int
    margin: int
    working: BudgetWorking  #: the subtraction, step by step (``print(suggestion.working)``)
    advice: str
    max_input: int | None = None  #: the provider's cap on input tokens, where it is below the window

    @property
    def input_ceiling(self) -> int | None:
        """The history the input cap allows, I - S - U - M (None when the model has no cap below its window)."""
        if self.max_input is None:
            return None
        return self.max_input - self.system - self.user - self.margin

    @property
    def capped(self) -> bool:
        """Whether the input cap, not the window, sets H_max."""
        return self.input_ceiling is not None and self.input_ceiling < self.working.budget

    @property
    def h_max(self) -> int:
        """The history ceiling: H_max = L - S - U - R - M, and never more than the input cap allows
        (I - S - U - M, where the provider caps input at I tokens below the window)."""
        return min(self.working.budget, self.input_ceiling) if self.capped else self.working.budget

    @property
    def trim_max_tokens(self) -> int:
        """``max_tokens`` for a ``trim_messages`` call whose list also holds the system
        prompt and the new input (as in lesson 04's graph): H_max + S + U = L - R - M."""
        return self.h_max + self.system + self.user

    def trim_kwargs(self, token_counter: Any = "approximate") -> dict[str, Any]:
        """Arguments for ``trim_messages`` over [system, history..., new input] (see ``safe_trim_kwargs``)."""
        return safe_trim_kwargs(self.trim_max_tokens, token_counter)

    def cap_sentence(self) -> str:
        """H_max and the ``trim_messages`` cap worked out from it, in one printed sentence.

        >>> print(suggest_thresholds(8192, "chat", margin=300).cap_sentence())
        H_max = 5892; trim_messages max_tokens = 5892 + 500 + 300 = 6692
        """
        return _("H_max = {h_max}; trim_messages max_tokens = {h_max} + {system} + {user} = {cap}").format(
            h_max=self.h_max, system=self.system, user=self.user, cap=self.trim_max_tokens)

    def share_sentence(self, tokens: int, name: str) -> str:
        """How much of this H_max a conversation of ``tokens`` tokens, ``name``'s, fills.

        >>> print(suggest_thresholds(1_000_000, "chat").share_sentence(4479, "Sara"))
        Sara's whole conversation fills 0.47% of it
        """
        tokens = check_int(tokens, "tokens")
        if not isinstance(name, str) or not name.strip():
            raise TypeError(f"name must be a non-empty str, got {name!r:.80}")
        return _("{name}'s whole conversation fills {share:.2%} of it").format(name=name, share=tokens / self.h_max)

    def describe(self, width: int = 96) -> str:
        """The task, the subtraction ending in H_max, and the task's advice wrapped to ``width`` characters.

        >>> print(suggest_thresholds(8192, "retrieval").describe())
        retrieval: question answering over retrieved documents
           8192 - 500 = 7692
           7692 - 4000 = 3692
           3692 - 1000 = 2692
           2692 - 410 = 2282  -> H_max = 2282
           advice: The retrieved passages are new input on every call, so they are part of U. The
                   documents carry the facts, so the history can be short.
        """
        width = _check_width(width)
        lines = [f"{self.task}: {_(TASK_PROFILES[self.task].description)}"]
        lines += ["   " + line for line in self.working.lines]
        if self.capped:
            lines.append(f"   {_('input cap')}: {self.max_input} - {self.system} - {self.user} - {self.margin} "
                         f"= {self.input_ceiling}")
        lines[-1] += f"  -> H_max = {self.h_max}"
        lines.append(_fill(f"{_('advice')}: ", self.advice, width, indent="   "))
        return "\n".join(lines)

    def __str__(self) -> str:
        return f"{self.task} on a {self.limit}-token model:\n{self.working}"


def _check_width(width: object) -> int:
    if isinstance(width, bool) or not isinstance(width, int):
        raise TypeError(f"width must be an int number of characters, got {type(width).__name__}: {width!r:.40}")
    if width < 40:
        raise ValueError(f"width must be at least 40 characters, got {width}")
    return width


def _fill(label: str, text: str, width: int, indent: str) -> str:
    """``label`` and ``text`` wrapped to ``width``, later lines under the text.

    A right-to-left translation (inside RLI ... PDI) is wrapped without its
    marks and each line gets its own isolate (an isolate ends at a line
    break); the lines are padded on the left so that, in the output's
    monospaced font, they end at the same column and read as a right-aligned
    paragraph.
    """
    if not (label.startswith(RLI) or text.startswith(RLI)):
        return textwrap.fill(text, width, initial_indent=indent + label,
                             subsequent_indent=" " * len(indent + label), break_on_hyphens=False)
    plain = (label + text).replace(RLI, "").replace(PDI, "")
    lines = textwrap.wrap(plain, width - len(indent), break_on_hyphens=False)
    right = max(_columns(line) for line in lines)
    return "\n".join(f"{indent}{' ' * (right - _columns(line))}{RLI}{line}{PDI}" for line in lines)


def _columns(text: str) -> int:
    """How many columns ``text`` takes in a monospaced font: marks and joiners (ZWNJ) take none."""
    return sum(unicodedata.category(c) not in ("Mn", "Me", "Cf") for c in text)


def suggest_thresholds(
    limit: int,
    task: str,
    *,
    system: int | None = None,
    user: int | None = None,
    reserve: int | None = None,
    margin: int | None = None,
    max_input: int | None = None,
) -> ThresholdSuggestion:
    """H_max for a model limit and a task, with the task's typical S, U, R and M.

    Any part you have measured yourself replaces the typical value. The margin
    defaults to the task's share of L (5%), rounded up. ``max_input`` is the
    provider's cap on input tokens where it is below the window (``ModelInfo.max_input_tokens``):
    the history then also fits I - S - U - M, and H_max is the smaller of the two.

    >>> sol = suggest_thresholds(1_050_000, "chat", max_input=922_000)
    >>> sol.working.budget, sol.h_max, sol.capped
    (995500, 868700, True)

    >>> print(suggest_thresholds(8192, "chat", margin=300).working)
    H_max = L - S - U - R - M
    8192 - 500 = 7692
    7692 - 300 = 7392
    7392 - 1200 = 6192
    6192 - 300 = 5892
    H_max = 5892

    Raises ValueError naming the task when the parts leave no room for history.
    """
    limit = check_int(limit, "limit", minimum=1)
    if not isinstance(task, str) or task not in TASK_PROFILES:
        raise ValueError(f"task must be one of {list(TASKS)}, got {task!r}")
    profile = TASK_PROFILES[task]
    parts = {
        "system": profile.system if system is None else check_int(system, "system"),
        "user": profile.user if user is None else check_int(user, "user"),
        "reserve": profile.reserve if reserve is None else check_int(reserve, "reserve"),
        "margin": math.ceil(profile.margin_share * limit) if margin is None else check_int(margin, "margin"),
    }
    if max_input is not None:
        max_input = check_int(max_input, "max_input", minimum=1)
        if max_input >= limit:
            max_input = None  # no cap below the window
    try:
        working = budget_working(limit, **parts)
    except ValueError as exc:
        raise ValueError(f"limit {limit} is too small for the {task!r} task: {exc}") from None
    suggestion = ThresholdSuggestion(task, limit, **parts, working=working, advice=_(profile.advice), max_input=max_input)
    if suggestion.h_max <= 0:
        raise ValueError(f"max_input {max_input} is too small for the {task!r} task: S + U + M leave no room for history")
    return suggestion


def undercount_sentence(tokenizer: str, language: str) -> str:
    """How many times too low the approximate count can be for ``language``, and the counter and margin
    the course then uses for ``tokenizer`` (step 4 of lesson 05's procedure: M covers the counter's error).

    >>> print(undercount_sentence("claude", "en"))
    en: the approximate count can be 1.09 times too low -> approximate, margin 8% (en)
    """
    choice = counter_for_tokenizer(tokenizer, language)  # checks both arguments
    return _("{language}: the approximate count can be {worst:.2f} times too low -> {label}").format(
        language=language, worst=approximate_worst_ratio(language), label=choice.label)


@dataclass(frozen=True)
class LimitsRow:
    """One model of :data:`MODEL_LIMITS` and its history ceiling H_max for each task."""

    model: str
    provider: str
    context_window: int
    h_max: dict[str, int | None]  #: task -> H_max, None when the task's parts leave no room
    max_input_tokens: int | None = None  #: the input cap that lowered H_max, where there is one

    def to_row(self) -> dict[str, Any]:
        """A plain dict, for a table."""
        return {"model": self.model, "provider": self.provider, "context_window": self.context_window,
                **{f"h_max {task}": value for task, value in self.h_max.items()}}


def limits_rows(tasks: Sequence[str] | None = None) -> list[LimitsRow]:
    """For every model of :data:`MODEL_LIMITS`, H_max of each task (default: every task), in that order.

    ``render.limits_table`` prints these rows.

    >>> row = limits_rows(["chat"])[0]
    >>> row.h_max["chat"] == suggest_thresholds(row.context_window, "chat", max_input=row.max_input_tokens).h_max
    True
    """
    if tasks is None:
        tasks = TASKS
    if isinstance(tasks, str) or not isinstance(tasks, Sequence) or not tasks:
        raise TypeError(f"tasks must be a non-empty list of task names, got {tasks!r:.80}")
    for task in tasks:
        if task not in TASK_PROFILES:
            raise ValueError(f"tasks must name tasks of {list(TASKS)}, got {task!r}")
    rows = []
    for entry in MODEL_LIMITS:
        h_max: dict[str, int | None] = {}
        for task in tasks:
            try:
                h_max[task] = suggest_thresholds(entry.context_window, task, max_input=entry.max_input_tokens).h_max
            except ValueError:  # the task's S + U + R + M do not fit in this window
                h_max[task] = None
        rows.append(LimitsRow(entry.model, entry.provider, entry.context_window, h_max, entry.max_input_tokens))
    return rows


__all__ = [
    "LIMITS_NOTE",
    "MODEL_LIMITS",
    "TASKS",
    "TASK_PROFILES",
    "LimitsRow",
    "ModelLimit",
    "TaskProfile",
    "ThresholdSuggestion",
    "limits_rows",
    "model_limit",
    "suggest_thresholds",
    "undercount_sentence",
]
