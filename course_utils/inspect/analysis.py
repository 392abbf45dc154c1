"""What the course shows about its samples, computed for any conversation: counts, growth, trim, cost.

:func:`inspect_messages` takes messages (from :mod:`course_utils.agentic.conversations`),
a model from ``models.json`` and a budget, and returns an :class:`Inspection`:

- tokens by role and in all, with the model's counter
  (``models.counter_for_tokenizer``: exact where the course can count the
  model's tokenizer, else approximate, with the margin that goes with it);
- the growth per model call (``growth.replay_growth``, one call per AIMessage,
  each sent the whole history before it) and the call at which that history
  crosses the model's context window;
- what ``trim_messages`` keeps at the budget, with the course's recommended
  arguments (``sequences.safe_trim_kwargs``), explained row by row
  (``trimming.explain_trim``: its result *is* ``trim_messages``' result);
- what each call would cost at the model's prices, with and without prompt
  caching, billed by ``costs.bill`` (the model's caching rules come with its prices).

Every figure is the course's own functions' figure; nothing is estimated
twice. For speed on long threads (10,000 messages) each message is counted
once: the course's counters add up message by message
(``tokens.additive_parts``), so a history's count is a prefix sum, and the
replay gets a counter that serves prefixes from those sums (equal counts,
checked in tests against the plain counter).

>>> from langchain_core.messages import AIMessage, HumanMessage
>>> chat = [HumanMessage("hi"), AIMessage("hello"), HumanMessage("more?"), AIMessage("yes")]
>>> result = inspect_messages(chat, "GPT-4 (original)", 20)     # exact counter (cl100k_base)
>>> result.calls, result.crossing, result.kept_indexes, result.total_tokens
(2, None, [2, 3], 24)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from course_utils.core.args import check_int
from course_utils.window.costs import Call, bill
from course_utils.window.growth import GrowthReport, GrowthRow, replay_growth
from course_utils.window.models import CounterChoice, ModelInfo, counter_for_tokenizer, model_info
from course_utils.window.sequences import safe_trim_kwargs
from course_utils.window.tokens import additive_parts, check_messages, counter_name
from course_utils.window.trimming import TrimReport, explain_trim

#: The order roles are listed in.
ROLES = ("system", "human", "ai", "tool")

Progress = Callable[[str, int, int], None]


def _no_progress(stage: str, done: int, total: int) -> None:
    return None


@dataclass(frozen=True)
class CallCost:
    """One model call's bill: as recorded (the whole history sent), with and without caching."""

    call: int
    input_tokens: int
    output_tokens: int
    cached_tokens: int  #: the part of input_tokens read from the cache
    cost: float  #: with caching, US dollars
    cost_without_caching: float


@dataclass(frozen=True)
class CostTotals:
    """Every call's bill added up (the sum of ``costs.bill``'s figures, call by call)."""

    caching: bool  #: whether prompt caching was applied (False when the model offers none)
    input_tokens: int
    cached_tokens: int
    output_tokens: int
    cost: float  #: US dollars

    @property
    def cached_share(self) -> float:
        return self.cached_tokens / self.input_tokens if self.input_tokens else 0.0


@dataclass(frozen=True)
class Inspection:
    """Everything the command and the report show about one conversation."""

    messages: list[BaseMessage] = field(repr=False)
    model: ModelInfo
    counter: CounterChoice = field(repr=False)
    budget: int
    message_tokens: list[int] = field(repr=False)  #: each message counted on its own (counter([m]))
    tokens_by_role: dict[str, int]  #: the counter over each role's messages, as one list
    total_tokens: int  #: the counter over every message, as one list
    growth: GrowthReport | None = field(repr=False)  #: None when there is no AIMessage (no model call)
    trim: TrimReport = field(repr=False)
    trim_kwargs: dict[str, Any] = field(repr=False)
    costs: list[CallCost] = field(repr=False)  #: [] when the model has no prices
    with_caching: CostTotals | None = None  #: None when the model has no prices
    without_caching: CostTotals | None = None

    @property
    def calls(self) -> int:
        return 0 if self.growth is None else self.growth.calls

    @property
    def crossing(self) -> GrowthRow | None:
        """The first call whose history is over the model's context window (None: never)."""
        return None if self.growth is None else self.growth.first_over_limit

    @property
    def kept_indexes(self) -> list[int]:
        return [row.index for row in self.trim.rows if row.status != "dropped"]


# --- counting each message once ------------------------------------------------------------


def _counts(messages: list[BaseMessage], counter: Any, progress: Progress) -> tuple[list[int], int | None]:
    """Each message's own count (counter([m])) and, for an additive counter, what a list adds (else None)."""
    parts = additive_parts(counter)
    counts = []
    step = max(len(messages) // 20, 1)
    for i, message in enumerate(messages):
        counts.append(parts[0](message) + parts[1] if parts else counter([message]))
        if i % step == 0:
            progress("counting tokens", i, len(messages))
    progress("counting tokens", len(messages), len(messages))
    return counts, (parts[1] if parts else None)


def prefix_counter(messages: list[BaseMessage], counts: list[int], extra: int, counter: Any) -> Callable[[list[BaseMessage]], int]:
    """A list counter equal to ``counter`` that answers prefixes of ``messages`` from prefix sums.

    ``counts[i] - extra`` is message i's share; a prefix of ``n`` messages
    counts ``sum of shares + extra``, as the additive counter would. Any other
    list goes to ``counter`` itself.
    """
    sums = [0, *accumulate(c - extra for c in counts)]

    def count(batch: Sequence[BaseMessage]) -> int:
        n = len(batch)
        if n == 0:
            return 0
        if n <= len(messages) and batch[0] is messages[0] and batch[-1] is messages[n - 1]:
            return sums[n] + extra
        return counter(list(batch))

    count.__name__ = counter_name(counter)
    return count


# --- cost ---------------------------------------------------------------------------------------


def call_costs(growth: GrowthReport, messages: list[BaseMessage], counts: list[int], extra: int, model: ModelInfo,
               progress: Progress = _no_progress) -> tuple[list[CallCost], CostTotals, CostTotals]:
    """Each call's bill as recorded, with and without caching, from ``costs.bill``.

    Call ``i`` sends the history before its reply and writes the reply
    (its tokens: the reply counted as a message). With an append-only
    history, the longest prefix an earlier call shares with call ``i`` is
    everything call ``i - 1`` sent, so each call is billed after the one
    before it: ``bill([previous, call]) - bill([previous])``, whose parts are
    "what the previous call sent" and "what is new". Totals are ``costs.bill``
    over every call (summed from the pairs: the same number, tested).
    """
    prices = model.prices
    shares = [c - extra for c in counts]
    sums = [0, *accumulate(shares)]
    rows: list[CallCost] = []
    totals = {True: [0, 0, 0, 0.0], False: [0, 0, 0, 0.0]}
    previous: Call | None = None
    step = max(growth.calls // 20, 1)
    for row in growth.rows:
        end = row.ai_index
        reply = counts[end]
        before = 0 if previous is None else sums[growth.rows[row.call - 2].ai_index]
        if previous is None:
            call = Call("turn", ("history", "framing"), (sums[end], extra), output_tokens=reply)
            pair = [call]
        else:
            call = Call("turn", ("earlier", "new", "framing"), (before, sums[end] - before, extra), output_tokens=reply)
            pair = [previous, call]
        # with caching: the pair's bill less the previous call's own (bill is additive over calls in order)
        both = bill(pair, prices, caching=True)
        alone = bill(pair[:1], prices, caching=True) if len(pair) == 2 else None
        cost = both.cost - (alone.cost if alone else 0.0)
        cached = both.cached_tokens - (alone.cached_tokens if alone else 0)
        plain = bill([call], prices, caching=False).cost  # without caching a call's bill is its own
        for caching, figure in ((True, cost), (False, plain)):
            t = totals[caching]
            t[0] += call.input_tokens
            t[1] += cached if caching else 0
            t[2] += reply
            t[3] += figure
        figures = {True: (cost, cached), False: (plain, 0)}
        rows.append(CallCost(row.call, call.input_tokens, reply, figures[True][1], figures[True][0], figures[False][0]))
        # the previous call, as the next one sees it: everything it sent is "earlier" for the next
        previous = Call("turn", ("earlier", "framing"), (sums[end], extra), output_tokens=reply)
        if row.call % step == 0:
            progress("pricing calls", row.call, growth.calls)
    progress("pricing calls", growth.calls, growth.calls)

    def total(caching: bool) -> CostTotals:
        t = totals[caching]
        return CostTotals(caching and prices.offers_caching, t[0], t[1], t[2], t[3])

    return rows, total(True), total(False)


# --- the whole inspection ----------------------------------------------------------------------


def inspect_messages(
    messages: Sequence[BaseMessage], model: str, budget: int, *, progress: Progress | None = None
) -> Inspection:
    """Counts, growth, the trim at ``budget`` and the cost per call of ``messages`` for ``model``."""
    messages = check_messages(messages)
    if not messages:
        raise ValueError("messages must hold at least one message, got an empty list")
    info = model_info(model)
    budget = check_int(budget, "budget", minimum=1)
    progress = progress or _no_progress
    choice = counter_for_tokenizer(info.tokenizer)
    counter = choice.counter

    counts, extra = _counts(messages, counter, progress)
    total = counter(messages)
    by_role = {}
    for role in ROLES + tuple(sorted({m.type for m in messages} - set(ROLES))):
        chosen = [m for m in messages if m.type == role]
        if chosen:
            by_role[role] = counter(chosen)

    growth = None
    costs: list[CallCost] = []
    with_caching = without = None
    if any(isinstance(m, AIMessage) for m in messages):
        progress("replaying calls", 0, 1)
        fast = prefix_counter(messages, counts, extra, counter) if extra is not None else counter
        growth = replay_growth(messages, fast, limit=info.context_window)
        progress("replaying calls", 1, 1)
        if info.has_prices and extra is not None:
            costs, with_caching, without = call_costs(growth, messages, counts, extra, info, progress)

    progress("trimming", 0, 1)
    kwargs = safe_trim_kwargs(budget, counter)
    trim = explain_trim(messages, **kwargs)
    progress("trimming", 1, 1)
    return Inspection(
        messages=messages, model=info, counter=choice, budget=budget, message_tokens=counts,
        tokens_by_role=by_role, total_tokens=total, growth=growth, trim=trim, trim_kwargs=kwargs,
        costs=costs, with_caching=with_caching, without_caching=without,
    )


def index_ranges(indexes: Sequence[int]) -> str:
    """Sorted indexes as ranges: ``[0, 5, 6, 7, 9]`` -> ``"0, 5–7, 9"``.

    >>> index_ranges([0, 5, 6, 7, 9]), index_ranges([])
    ('0, 5–7, 9', 'none')
    """
    if not indexes:
        return "none"
    parts, start, prev = [], indexes[0], indexes[0]
    for i in list(indexes[1:]) + [None]:
        if i is not None and i == prev + 1:
            prev = i
            continue
        parts.append(f"{start:,}" if start == prev else f"{start:,}–{prev:,}")
        if i is not None:
            start = prev = i
    return ", ".join(parts)


__all__ = ["CallCost", "CostTotals", "Inspection", "call_costs", "index_ranges", "inspect_messages", "prefix_counter"]
