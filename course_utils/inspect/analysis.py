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
>>> model = custom_model("a model of 8,192 tokens", 8192, tokenizer="cl100k_base")
>>> result = inspect_messages(chat, model, 20)     # exact counter (cl100k_base)
>>> result.calls, result.crossing, result.kept_indexes, result.total_tokens
(2, None, [2, 3], 24)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage

from course_utils.core.args import check_int
from course_utils.window.costs import Call, bill
from course_utils.window.growth import GrowthReport, GrowthRow, replay_growth
from course_utils.inspect.media import MediaAwareCounter, has_media
from course_utils.window.models import CachingRules, CounterChoice, ModelInfo, counter_for_tokenizer, model_info
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
    tool_tokens: int = 0  #: tool schemas sent with every call (a request log's "tools"), counted as input
    media: list = field(default_factory=list, repr=False)  #: every image or file, counted by its rule or not (media.MediaCount)

    @property
    def impossible_calls(self) -> list[GrowthRow]:
        """The calls whose input is over the model's window: they could never have been sent as recorded."""
        return [] if self.growth is None else [r for r in self.growth.rows if r.over_limit]

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


def growth_from_sums(messages: list[BaseMessage], sums: list[int], extra: int, fixed: int, window: int, name: str,
                     progress: Progress = _no_progress) -> GrowthReport:
    """The replay of ``growth.replay_growth`` (one call per AIMessage, each sent the whole history before it),
    from cumulative counts: linear in the messages, no history is ever copied.

    ``fixed`` is what every call sends besides the messages (a request log's
    tool schemas). Equal to ``replay_growth`` when ``fixed`` is 0 (tested).
    """
    ai_indexes = [i for i, m in enumerate(messages) if isinstance(m, AIMessage)]
    rows, cumulative = [], 0
    step = max(len(ai_indexes) // 20, 1)
    for call, index in enumerate(ai_indexes, start=1):
        tokens = (sums[index] + extra if index else 0) + fixed
        cumulative += tokens
        rows.append(GrowthRow(call=call, ai_index=index, history_messages=index, history_tokens=tokens,
                              sent_messages=index, sent_tokens=tokens, cumulative_sent_tokens=cumulative,
                              over_limit=tokens > window))
        if call % step == 0:
            progress("replaying calls", call, len(ai_indexes))
    progress("replaying calls", len(ai_indexes), len(ai_indexes))
    return GrowthReport(rows, name, window, None)


# --- cost ---------------------------------------------------------------------------------------


def call_costs(growth: GrowthReport, messages: list[BaseMessage], counts: list[int], extra: int, model: ModelInfo,
               progress: Progress = _no_progress, fixed: int = 0) -> tuple[list[CallCost], CostTotals, CostTotals]:
    """Each possible call's bill as recorded, with and without caching, from ``costs.bill``.

    Call ``i`` sends the history before its reply and writes the reply
    (its tokens: the reply counted as a message). With an append-only
    history, the longest prefix an earlier call shares with call ``i`` is
    everything call ``i - 1`` sent, so each call is billed after the one
    before it: ``bill([previous, call]) - bill([previous])``, whose parts are
    "what the previous call sent" and "what is new". Totals are ``costs.bill``
    over every call (summed from the pairs: the same number, tested).

    A call whose input is over the model's window could never have been
    sent: it is not priced (the history only grows, so these are the last calls).
    """
    prices = model.prices
    shares = [c - extra for c in counts]
    sums = [0, *accumulate(shares)]
    framing = extra + fixed
    rows: list[CallCost] = []
    totals = {True: [0, 0, 0, 0.0], False: [0, 0, 0, 0.0]}
    previous: Call | None = None
    possible = [row for row in growth.rows if not row.over_limit]
    step = max(len(possible) // 20, 1)
    for row in possible:
        end = row.ai_index
        reply = counts[end]
        before = 0 if previous is None else sums[growth.rows[row.call - 2].ai_index]
        if previous is None:
            call = Call("turn", ("history", "framing"), (sums[end], framing), output_tokens=reply)
            pair = [call]
        else:
            call = Call("turn", ("earlier", "new", "framing"), (before, sums[end] - before, framing), output_tokens=reply)
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
        rows.append(CallCost(row.call, call.input_tokens, reply, cached, cost, plain))
        # the previous call, as the next one sees it: everything it sent is "earlier" for the next
        previous = Call("turn", ("earlier", "framing"), (sums[end], framing), output_tokens=reply)
        if row.call % step == 0:
            progress("pricing calls", row.call, len(possible))
    progress("pricing calls", len(possible), len(possible))

    def total(caching: bool) -> CostTotals:
        t = totals[caching]
        return CostTotals(caching and prices.offers_caching, t[0], t[1], t[2], t[3])

    return rows, total(True), total(False)


# --- the whole inspection ----------------------------------------------------------------------


def _tool_tokens(tools: Sequence[Any], counter: Any, extra: int) -> int:
    """Tokens of the tool schemas sent with every call: their JSON text, counted as one message's share."""
    if not tools:
        return 0
    return counter([SystemMessage(json.dumps(list(tools), ensure_ascii=False))]) - extra


def inspect_messages(
    messages: Sequence[BaseMessage], model: str | ModelInfo, budget: int, *, progress: Progress | None = None,
    tools: Sequence[Any] = (),
) -> Inspection:
    """Counts, growth, the trim at ``budget`` and the cost per call of ``messages`` for ``model``.

    ``model`` is a name of models.json or a :class:`ModelInfo` (``custom_model``
    for one the file lacks); ``tools`` are schemas sent with every call
    (counted as input). Linear in the messages; ``progress(stage, done, total)``
    hears about every stage.
    """
    messages = check_messages(messages)
    if not messages:
        raise ValueError("messages must hold at least one message, got an empty list")
    info = model if isinstance(model, ModelInfo) else model_info(model)
    budget = check_int(budget, "budget", minimum=1)
    progress = progress or _no_progress
    choice = counter_for_tokenizer(info.tokenizer)
    counter = choice.counter
    if has_media(messages):  # images by the provider's rule, never their base64 as text
        counter = MediaAwareCounter(counter, info.provider)
        choice = CounterChoice(choice.tokenizer, counter, choice.exact, choice.language)

    counts, extra = _counts(messages, counter, progress)
    if extra is None:  # not a counter that adds up (the course's always do): count the plain way
        total = counter(messages)
        by_role = {role: counter([m for m in messages if m.type == role]) for role in _roles(messages)}
        growth = replay_growth(messages, counter, limit=info.context_window) if _has_ai(messages) else None
        fixed = 0
    else:
        sums = [0, *accumulate(c - extra for c in counts)]
        total = sums[-1] + extra
        shares: dict[str, int] = {}
        for message, count in zip(messages, counts):
            shares[message.type] = shares.get(message.type, 0) + count - extra
        by_role = {role: shares[role] + extra for role in _roles(messages)}
        fixed = _tool_tokens(tools, counter, extra)
        growth = (growth_from_sums(messages, sums, extra, fixed, info.context_window, counter_name(counter), progress)
                  if _has_ai(messages) else None)

    costs: list[CallCost] = []
    with_caching = without = None
    if growth is not None and info.has_prices and extra is not None:
        costs, with_caching, without = call_costs(growth, messages, counts, extra, info, progress, fixed)

    progress("trimming", 0, 1)
    kwargs = safe_trim_kwargs(budget, counter)
    trim = explain_trim(messages, **kwargs)
    progress("trimming", 1, 1)
    media = counter.media() if isinstance(counter, MediaAwareCounter) else []
    return Inspection(
        messages=messages, model=info, counter=choice, budget=budget, message_tokens=counts,
        tokens_by_role=by_role, total_tokens=total, growth=growth, trim=trim, trim_kwargs=kwargs,
        costs=costs, with_caching=with_caching, without_caching=without, tool_tokens=fixed, media=media,
    )


def _roles(messages: list[BaseMessage]) -> tuple[str, ...]:
    present = {m.type for m in messages}
    return tuple(r for r in ROLES if r in present) + tuple(sorted(present - set(ROLES)))


def _has_ai(messages: list[BaseMessage]) -> bool:
    return any(isinstance(m, AIMessage) for m in messages)


def custom_model(name: str, window: int, *, input_price: float | None = None, output_price: float | None = None,
                 cached_input_price: float | None = None, cache_write_price: float | None = None,
                 tokenizer: str = "approximate", provider: str = "(given on the command line)",
                 base: ModelInfo | None = None) -> ModelInfo:
    """A model the data file lacks (or a row of it with your own figures): its window and prices, as you give them.

    >>> m = custom_model("my-model", 32_000, input_price=1.0, output_price=2.0)
    >>> m.context_window, m.has_prices, m.caching.offered
    (32000, True, False)
    """
    window = check_int(window, "window", minimum=1)
    if (input_price is None) != (output_price is None):
        raise ValueError("give both --input-price and --output-price, or neither")
    offered = cached_input_price is not None
    unstated = {"lifetime_minutes": "not given on the command line"}
    if not offered:
        unstated.update(min_prefix_tokens="no cached-input price was given", breakpoint="no cached-input price was given")
    rules = CachingRules(0 if offered else None, None, "automatic prefix" if offered else None, "given",
                         "the command line", unstated, "as given on the command line")
    return ModelInfo(
        model=name, provider=base.provider if base else provider, kind="hosted", context_window=window,
        max_output_tokens=None, tokenizer=base.tokenizer if base else tokenizer,
        price_input=input_price, price_output=output_price, price_cached_input=cached_input_price,
        price_cache_write=cache_write_price, checked="given", source="the command line",
        note="limits and prices given on the command line", caching=rules,
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


__all__ = ["CallCost", "CostTotals", "Inspection", "call_costs", "custom_model", "growth_from_sums", "index_ranges",
           "inspect_messages", "prefix_counter"]
