"""Why each message is kept or dropped by ``trim_messages`` (lesson 03).

:func:`explain_trim` calls the real ``langchain_core.messages.trim_messages``
and then explains its answer, one row per input message: kept, partly kept
or dropped, how many tokens it costs, and the reason in plain words. It never
decides anything itself, so ``report.result`` is exactly what
``trim_messages`` returns for the same arguments, and its errors are
``trim_messages``' own.

>>> from langchain_core.messages import HumanMessage, AIMessage
>>> from course_utils.window.tokens import dummy_token_counter
>>> msgs = [HumanMessage("a"), AIMessage("b"), HumanMessage("c")]
>>> report = explain_trim(msgs, max_tokens=20, token_counter=dummy_token_counter)
>>> [row.status for row in report.rows]
['dropped', 'kept', 'kept']
>>> report.rows[0].reason
'over budget'

:func:`trim_walkthrough` is the slide's hand calculation ("from the end:
70 <= 150; 70 + 30 = 100; ...") for counters that add up message by message.

:func:`untrimmed_report` is the same kind of report for a call that sends
everything (nothing trimmed).

:func:`orphaned_tool_messages`, :func:`valid_tail` and :func:`safe_trim_kwargs`
(which message sequences a chat API accepts) live in
:mod:`course_utils.window.sequences`; the reference page's seven examples in
:mod:`course_utils.window.reference_page`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from langchain_core.messages import BaseMessage, SystemMessage, trim_messages
from langchain_core.messages.utils import convert_to_messages, count_tokens_approximately

from course_utils.core.args import check_int
from course_utils.core.i18n import _, translate
from course_utils.window.tokens import additive_parts, check_messages

STATUSES = ("kept", "partial", "dropped")

#: The ``strategy`` of a report that stands for "send everything" (see :func:`untrimmed_report`).
NO_TRIM = "none"

# Reasons, in the words a row shows (English; a row holds them in the language chosen with
# course_utils.core.i18n when the report is made: compare ``status``, not ``reason``).
FITS = "fits the budget"
SYSTEM_KEPT = "system kept by include_system"
OVER_BUDGET = "over budget"
BEFORE_START_ON = "before start_on"
AFTER_END_ON = "after end_on"
NOT_TRIMMED = "sent: no trimming"


@dataclass
class TrimRow:
    """One input message and what trimming did with it.

    Token counts are computed when first read and then remembered, so a
    report over a long history costs little until its rows are shown.
    """

    index: int
    message: BaseMessage
    status: str  #: "kept", "partial" or "dropped"
    reason: str
    kept: BaseMessage | None = None  #: the message as it appears in the result
    counter: Callable[[list[BaseMessage]], int] | None = field(default=None, repr=False, compare=False)

    @property
    def role(self) -> str:
        return self.message.type

    @cached_property
    def tokens(self) -> int:
        """The whole message, counted on its own."""
        return self.counter([self.message])

    @cached_property
    def kept_tokens(self) -> int:
        """Tokens of the part that was kept (0 when dropped)."""
        if self.kept is None:
            return 0
        return self.tokens if self.status == "kept" else self.counter([self.kept])


@dataclass(frozen=True)
class TrimReport:
    """The result of ``trim_messages`` and one explained row per input message."""

    rows: list[TrimRow]
    result: list[BaseMessage]
    max_tokens: int
    strategy: str
    result_tokens: int  #: the kept list, counted as one list
    arguments: dict[str, Any]
    counter: Callable[[list[BaseMessage]], int] = field(repr=False, compare=False)

    @cached_property
    def total_tokens(self) -> int:
        """Every input message, counted as one list (what sending it all would cost)."""
        messages = [row.message for row in self.rows]
        return self.counter(messages) if messages else 0

    @property
    def kept(self) -> list[TrimRow]:
        return [row for row in self.rows if row.status != "dropped"]

    @property
    def dropped(self) -> list[TrimRow]:
        return [row for row in self.rows if row.status == "dropped"]

    @property
    def over_budget(self) -> bool:
        """True when even the result is over max_tokens (a large system message kept by include_system)."""
        return self.result_tokens > self.max_tokens

    @property
    def conclusion(self) -> str:
        """What trimming did, as one sentence in the course's language (messages and tokens, kept of all).

        >>> from langchain_core.messages import HumanMessage
        >>> explain_trim([HumanMessage("a"), HumanMessage("b")], max_tokens=1, token_counter=len).conclusion
        'trim_messages kept 1 of 2 messages: 1 of 2 tokens, max_tokens=1'
        """
        if self.over_budget:
            text = _("trim_messages kept {kept} of {count} messages: {sent} of {total} tokens, "
                     "over max_tokens={max_tokens} (the system message alone is bigger)")
        else:
            text = _("trim_messages kept {kept} of {count} messages: {sent} of {total} tokens, max_tokens={max_tokens}")
        return text.format(kept=len(self.kept), count=len(self.rows), sent=self.result_tokens,
                           total=self.total_tokens, max_tokens=self.max_tokens)

    def to_rows(self) -> list[dict[str, Any]]:
        """Plain dicts, one per message, for a table."""
        return [
            {
                "index": row.index,
                "role": row.role,
                "id": row.message.id,
                "status": row.status,
                "tokens": row.tokens,
                "kept_tokens": row.kept_tokens,
                "reason": row.reason,
            }
            for row in self.rows
        ]


def list_token_counter(token_counter: Any) -> Callable[[list[BaseMessage]], int]:
    """The counter ``trim_messages`` would use, as a function over a list of messages.

    ``trim_messages`` accepts a list function, a per-message function, a chat
    model, or ``"approximate"``; rows are counted with the same counter. The
    choice follows ``trim_messages`` to the letter, so a row never disagrees
    with the decision: a function counts one message at a time only when the
    annotation of its first parameter *is* the class ``BaseMessage``. Under
    ``from __future__ import annotations`` that annotation is the string
    ``"BaseMessage"``, and ``trim_messages`` (so this too) calls the function
    with a list.
    """
    if isinstance(token_counter, str):
        if token_counter == "approximate":
            return count_tokens_approximately
        raise ValueError(f"token_counter must be a function, a chat model or 'approximate', got {token_counter!r:.80}")
    if hasattr(token_counter, "get_num_tokens_from_messages"):
        return token_counter.get_num_tokens_from_messages
    if callable(token_counter):
        parameters = list(inspect.signature(token_counter).parameters.values())
        if parameters and parameters[0].annotation is BaseMessage:  # exactly trim_messages' test
            return lambda messages: sum(token_counter(m) for m in messages)
        return token_counter
    raise TypeError(
        "token_counter must be a function, a chat model or 'approximate', "
        f"got {type(token_counter).__name__}: {token_counter!r:.80}"
    )


def _is_type(message: BaseMessage, types: Any) -> bool:
    """Whether a message is of one of the types start_on/end_on name (strings or classes)."""
    types = [types] if isinstance(types, (str, type)) else list(types)
    return any(message.type == t if isinstance(t, str) else isinstance(message, t) for t in types)


def _same_message_but_content(a: BaseMessage, b: BaseMessage) -> bool:
    """A partial copy: the same message with part of its content."""
    return type(a) is type(b) and a.model_dump(exclude={"content"}) == b.model_dump(exclude={"content"})


def _part_reason(original: BaseMessage, part: BaseMessage, strategy: str) -> str:
    """Which part of a message fit: its first blocks or lines under "first", its last under "last"."""
    if isinstance(original.content, list) and isinstance(part.content, list):
        kept, whole = len(part.content), len(original.content)
        if strategy == "first":
            return _("partly kept: the first {kept} of {whole} content blocks fit").format(kept=kept, whole=whole)
        return _("partly kept: the last {kept} of {whole} content blocks fit").format(kept=kept, whole=whole)
    kept, whole = len(part.text), len(original.text)
    if strategy == "first":
        return _("partly kept: the first {kept} of {whole} characters fit (split by text_splitter)").format(
            kept=kept, whole=whole)
    return _("partly kept: the last {kept} of {whole} characters fit (split by text_splitter)").format(
        kept=kept, whole=whole)


def explain_trim(messages: Sequence[Any], **trim_kwargs: Any) -> TrimReport:
    """Run ``trim_messages(messages, **trim_kwargs)`` and explain every message's fate.

    Rows come in input order; ``status`` is "kept", "partial" or "dropped";
    ``reason`` says why: "fits the budget", "system kept by include_system",
    "over budget", "before start_on", "after end_on", or which part of a
    partly kept message fit. Raises exactly what ``trim_messages`` raises,
    with one check of its own first: ``max_tokens`` must be an int >= 0
    (``trim_messages`` silently accepts -1, 10.5 or True, and a report over
    such a budget means nothing), else TypeError / ValueError naming max_tokens.
    """
    if "max_tokens" in trim_kwargs:
        check_int(trim_kwargs["max_tokens"], "max_tokens")
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise TypeError(f"messages must be a list of messages, got {type(messages).__name__}: {messages!r:.80}")
    if not all(isinstance(m, BaseMessage) for m in messages):
        messages = convert_to_messages(messages)  # dicts, tuples, strings: as trim_messages reads them
    messages = list(messages)
    arguments = dict(trim_kwargs)
    counter = _counted_once(messages, trim_kwargs["token_counter"]) if "token_counter" in trim_kwargs else None
    counted_once = counter is not None
    if counted_once:  # same counts, each message counted once (see _counted_once)
        trim_kwargs = {**trim_kwargs, "token_counter": counter}
    result = trim_messages(messages, **trim_kwargs)  # the real decision, and its errors

    strategy = trim_kwargs.get("strategy", "last")
    start_on, end_on = trim_kwargs.get("start_on"), trim_kwargs.get("end_on")
    if counter is None:
        counter = list_token_counter(trim_kwargs["token_counter"])

    if strategy == "last":
        kept_at, system_kept, end = _align_last(messages, result, trim_kwargs.get("include_system", False), end_on)
        first_kept = min((i for i in kept_at if not (system_kept and i == 0)), default=end)
        cut_by_boundary = _cut_by_start_on(messages, trim_kwargs, system_kept, first_kept, end) if start_on else set()
    else:
        kept_at, system_kept, end = _align_first(messages, result), False, len(messages)
        cut_by_boundary = _cut_by_end_on(messages, trim_kwargs, len(kept_at)) if end_on else set()

    rows = []
    for i, message in enumerate(messages):
        part = kept_at.get(i)
        if part is None:
            if i >= end:
                reason = AFTER_END_ON
            elif i in cut_by_boundary:
                reason = BEFORE_START_ON if strategy == "last" else AFTER_END_ON
            else:
                reason = OVER_BUDGET
            rows.append(TrimRow(i, message, "dropped", _(reason), None, counter))
        elif part is message or part == message:
            reason = SYSTEM_KEPT if system_kept and i == 0 else FITS
            rows.append(TrimRow(i, message, "kept", _(reason), part, counter))
        else:
            rows.append(TrimRow(i, message, "partial", _part_reason(message, part, strategy), part, counter))

    if counted_once:  # fill each row's count in now: what its cached_property would compute
        by_id, extra = counter.counts_by_id, counter.extra
        for row in rows:
            row.__dict__["tokens"] = by_id[id(row.message)] + extra
    return TrimReport(
        rows=rows,
        result=result,
        max_tokens=trim_kwargs["max_tokens"],
        strategy=strategy,
        result_tokens=counter(result) if result else 0,
        arguments=arguments,
        counter=counter,
    )


def _counted_once(messages: list[BaseMessage], token_counter: Any) -> Callable[[list[BaseMessage]], int] | None:
    """A list counter that counts each of ``messages`` once, or None for a counter that may not add up.

    ``trim_messages`` counts ever shorter prefixes in its binary search, and a
    report reads every row's count, so the same message is counted many times.
    The course's counters add up message by message
    (:func:`~course_utils.window.tokens.additive_parts`; a per-message function does
    too, by construction), so every list count is the sum of per-message
    counts plus a fixed amount: count each message once, then serve each list
    by adding up (tests check that every such counter adds up). Messages ``trim_messages`` makes itself (the
    part of a split message) are counted when seen. Counts, and so results,
    are identical.
    """
    parts = additive_parts(token_counter)
    if parts is None and callable(token_counter) and not hasattr(token_counter, "get_num_tokens_from_messages"):
        parameters = list(inspect.signature(token_counter).parameters.values())
        if parameters and parameters[0].annotation is BaseMessage:  # what trim_messages treats as per-message
            parts = token_counter, 0
    if parts is None:
        return None
    one, extra = parts
    by_id = {id(message): one(message) for message in messages}

    def count(batch: list[BaseMessage]) -> int:
        if len(batch) == 1 and id(batch[0]) in by_id:  # a row's own count: the common case
            return by_id[id(batch[0])] + extra
        if not batch:
            return 0
        try:
            return sum(map(by_id.__getitem__, map(id, batch))) + extra
        except KeyError:  # a message made by trim_messages (a split part)
            return sum(by_id[id(m)] if id(m) in by_id else one(m) for m in batch) + extra

    count.__name__ = count.__qualname__ = getattr(token_counter, "__name__", str(token_counter))
    count.counts_by_id = by_id  # what explain_trim fills the rows' counts from
    count.extra = extra
    return count


def untrimmed_report(messages: Sequence[BaseMessage], max_tokens: int, token_counter: Any) -> TrimReport:
    """A report for a call that sends every message, untrimmed (strategy :data:`NO_TRIM`).

    Every row is kept with the reason "sent: no trimming"; ``max_tokens`` is
    the limit the call is measured against (``report.over_budget`` says
    whether a provider would refuse it). Rendered like any other report.

    >>> from langchain_core.messages import HumanMessage
    >>> from course_utils.window.tokens import dummy_token_counter
    >>> r = untrimmed_report([HumanMessage("a"), HumanMessage("b")], 15, dummy_token_counter)
    >>> [row.reason for row in r.rows], r.result_tokens, r.over_budget
    (['sent: no trimming', 'sent: no trimming'], 20, True)
    """
    messages = check_messages(messages)
    max_tokens = check_int(max_tokens, "max_tokens")
    counter = list_token_counter(token_counter)
    rows = [TrimRow(i, m, "kept", _(NOT_TRIMMED), m, counter) for i, m in enumerate(messages)]
    return TrimReport(
        rows=rows,
        result=list(messages),
        max_tokens=max_tokens,
        strategy=NO_TRIM,
        result_tokens=counter(messages) if messages else 0,
        arguments={"max_tokens": max_tokens, "token_counter": token_counter},
        counter=counter,
    )


def _matched_pair(original: BaseMessage, kept: BaseMessage) -> BaseMessage:
    """``kept``, once it is known to be ``original`` or a partly kept copy of it (else RuntimeError)."""
    if kept is original or kept == original or _same_message_but_content(original, kept):
        return kept
    raise RuntimeError(  # would mean trim_messages changed how it builds its result
        f"explain_trim could not match {kept!r:.60} to input message {original!r:.60}"
    )


def _align_first(messages: list[BaseMessage], result: list[BaseMessage]) -> dict[int, BaseMessage]:
    """strategy="first" keeps a prefix (its last message possibly partial)."""
    return {i: _matched_pair(messages[i], kept) for i, kept in enumerate(result)}


def _align_last(messages, result, include_system, end_on) -> tuple[dict[int, BaseMessage], bool, int]:
    """strategy="last" keeps [system] + a block ending where end_on stopped popping.

    Returns the map input index -> kept message, whether the system message
    was kept by include_system, and the end of the block (messages from
    there on were removed by end_on before counting).
    """
    end = len(messages)
    if end_on:
        while end > 0 and not _is_type(messages[end - 1], end_on):
            end -= 1
    system_kept = bool(include_system and end and isinstance(messages[0], SystemMessage))
    kept_at: dict[int, BaseMessage] = {}
    block = list(result)
    if system_kept:
        kept_at[0] = _matched_pair(messages[0], block.pop(0))
    for offset, kept in enumerate(block):
        i = end - len(block) + offset
        kept_at[i] = _matched_pair(messages[i], kept)
    return kept_at, system_kept, end


def _cut_by_start_on(messages, trim_kwargs, system_kept, first_kept, end) -> set[int]:
    """Messages the budget allowed but start_on removed (strategy="last").

    start_on drops, after counting, the messages at the front of the kept
    block until one has a start_on type; so they all lie after the last
    start_on-type message before the block. Trimming just that stretch
    again without start_on shows which of them the budget had allowed:
    cheap, because it re-counts only messages next to the boundary.
    """
    lo = 1 if system_kept else 0
    previous = first_kept - 1
    while previous >= lo and not _is_type(messages[previous], trim_kwargs["start_on"]):
        previous -= 1
    head = messages[:1] if system_kept else []
    stretch = messages[previous + 1 : end]
    budget_only = trim_messages(head + stretch, **{**trim_kwargs, "start_on": None})
    allowed = len(budget_only) - len(head)
    return set(range(end - allowed, first_kept))


def _cut_by_end_on(messages, trim_kwargs, kept_count) -> set[int]:
    """Messages the budget allowed but end_on removed (strategy="first").

    end_on drops, after counting, messages at the end of the kept prefix
    until one has an end_on type; they all lie before the next end_on-type
    message, so only the prefix up to it needs trimming again without end_on.
    """
    following = kept_count
    while following < len(messages) and not _is_type(messages[following], trim_kwargs["end_on"]):
        following += 1
    budget_only = trim_messages(messages[: following + 1], **{**trim_kwargs, "end_on": None})
    return set(range(kept_count, len(budget_only)))


# --- the slide's hand calculation ----------------------------------------


@dataclass(frozen=True)
class WalkStep:
    """One step of counting from the end: running total before, message cost, total after."""

    index: int
    message: BaseMessage
    before: int
    cost: int
    after: int
    fits: bool

    @property
    def line(self) -> str:
        sign = "<=" if self.fits else ">"
        if self.before == 0:
            return f"{self.cost} {sign} {{budget}}"
        return f"{self.before} + {self.cost} = {self.after} {sign} {{budget}}"


@dataclass(frozen=True)
class Walkthrough:
    """Counting from the newest message back, until the next one would not fit."""

    max_tokens: int
    steps: list[WalkStep]
    kept: list[BaseMessage]  #: in chronological order

    @property
    def lines(self) -> list[str]:
        lines = [step.line.format(budget=self.max_tokens) for step in self.steps]
        if self.steps and not self.steps[-1].fits:
            lines[-1] += ": " + _("stop")  # the colon stays outside a right-to-left word
        return lines

    @property
    def conclusion(self) -> str:
        """What was kept, by id, in chronological order, as a sentence in the course's language.

        >>> trim_walkthrough(slide_conversation(), 150, table_token_counter(SLIDE_COSTS)).conclusion
        "kept, in chronological order: ['human2', 'tool2', 'ai2']"
        """
        ids = [message.id or message.type for message in self.kept]
        return _("kept, in chronological order: {ids}").format(ids=ids)


def trim_walkthrough(messages: Sequence[BaseMessage], max_tokens: int, token_counter: Any) -> Walkthrough:
    """Count from the end, adding each message's own cost, and stop at the first that does not fit.

    This is the hand calculation of the slides. It equals ``trim_messages``
    with ``strategy="last"`` when the counter adds up message by message
    (no per-list overhead), which the lesson checks with ``explain_trim``.
    """
    max_tokens = check_int(max_tokens, "max_tokens")
    counter = list_token_counter(token_counter)
    messages = convert_to_messages(messages)
    steps, total = [], 0
    for index in range(len(messages) - 1, -1, -1):
        cost = counter([messages[index]])
        fits = total + cost <= max_tokens
        steps.append(WalkStep(index, messages[index], total, cost, total + cost, fits))
        if not fits:
            break
        total += cost
    kept = [messages[s.index] for s in reversed(steps) if s.fits]
    return Walkthrough(max_tokens, steps, kept)


def table_token_counter(costs: Mapping[str, int]) -> Callable[[list[BaseMessage]], int]:
    """A counter that looks each message's cost up by id, like the slides' numbers.

    >>> from langchain_core.messages import HumanMessage
    >>> table_token_counter({"h1": 70})([HumanMessage("hi", id="h1")])
    70
    """
    if not isinstance(costs, Mapping):
        raise TypeError(f"costs must be a mapping of message id to tokens, got {type(costs).__name__}")
    for key, value in costs.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"costs[{key!r}] must be a non-negative int, got {value!r}")

    def count(messages: list[BaseMessage]) -> int:
        missing = [m.id for m in messages if m.id not in costs]
        if missing:
            raise ValueError(f"no cost in the table for message id(s) {missing}")
        return sum(costs[m.id] for m in messages)

    count.__name__ = count.__qualname__ = "table_token_counter(costs)"  # how a rendered call names it
    return count


# --- the slides' worked example -------------------------------------------------

#: Token costs of the slides' trimming example (budget 150): counting from the
#: end, 70 <= 150; 70 + 30 = 100; 100 + 50 = 150; 150 + 60 = 210 > 150.
SLIDE_COSTS = {"human1": 40, "ai1": 60, "human2": 50, "tool2": 30, "ai2": 70}
SLIDE_BUDGET = 150


def slide_conversation() -> list[BaseMessage]:
    """The slides' five messages, named as the slides name them.

    As on the slide, ``tool2`` follows ``human2`` directly; in a real agent an
    AIMessage with the tool call would sit between them (lesson 03 asks why
    that matters).
    """
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    return [
        HumanMessage("Find me a flight to Paris for next week.", id="human1"),
        AIMessage("I found three flights; the cheapest leaves Tuesday at 9:40.", id="ai1"),
        HumanMessage("What will the weather be like there?", id="human2"),
        ToolMessage("Paris, next week: sunny, 24 C", tool_call_id="call_weather", id="tool2"),
        AIMessage("It will be sunny and warm, about 24 C.", id="ai2"),
    ]


def trim_option_conflicts(strategy: str, *, start_on: Any = None, include_system: bool = False) -> list[str]:
    """Every option that ``trim_messages`` refuses with this ``strategy``, each with the change that fixes it.

    ``trim_messages`` raises on the first incompatible option it checks, so a
    learner who fixes that one meets the next; the explorer lists them all
    at once, each naming the control to change.

    >>> trim_option_conflicts("first", start_on="human", include_system=True)[1]
    "include_system=True works only with strategy='last': untick include_system, or set strategy to 'last'."
    >>> trim_option_conflicts("last", start_on="human", include_system=True)
    []
    """
    if strategy == "last":
        return []
    conflicts = []
    if start_on is not None:
        shown = " or ".join(start_on) if isinstance(start_on, tuple) else start_on
        conflicts.append(translate("start_on={shown} works only with strategy='last': set start_on to None, "
                                   "or strategy to 'last'.").format(shown=repr(shown)))
    if include_system:
        conflicts.append(translate(
            "include_system=True works only with strategy='last': untick include_system, or set strategy to 'last'."))
    return conflicts
