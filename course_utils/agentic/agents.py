"""Measuring what a tool-using agent sends its model, call by call (lesson 06).

An agent built with LangChain's ``create_agent`` calls its model in a loop:
once to decide on tool calls, once more after the tool results come back.
Each call is sent the system prompt and the whole conversation so far,
tool results included, unless a middleware manages it. This module runs a
task through any such agent and records, with a LangChain callback, exactly
what every model call received, so a lesson can measure it:

- :class:`CallRecorder`: a callback handler that records each chat-model
  call's input messages, reply or error (agent calls and the summary calls
  of ``SummarizationMiddleware`` alike). It works with any chat model and
  any LangGraph agent, offline or with a real provider.
- :func:`run_task`: the user's requests, one turn after another, then the
  probe questions, each from the final state; a turn that fails is recorded,
  not raised.
- :func:`tokens_by_role`, :func:`call_rows`, :func:`message_statuses`: tokens
  per call split by role (the parts add up to the call's input count, the
  number the model itself reports), and which message of the transcript
  each call was sent as is, cleared, summarised or not at all.
- :func:`compare_runs`: one row per strategy: tokens per task, turns failed,
  facts still answerable, orphaned tool results received.
- :func:`prefix_reuse`: how much of each call's input a prompt cache could
  read (the prefix it shares with an earlier call), and how often the
  history was rewritten: tokens sent are not money when a provider caches.
- :func:`findings_summary` and :func:`fit_turn`: a summariser that keeps the
  figures of tool results, and a trim that never drops the current turn.

Computing only: :mod:`course_utils.pictures.agent_views` draws and renders.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage, trim_messages
from langchain_core.utils.function_calling import convert_to_openai_tool

from course_utils.core.args import check_int, check_text
from course_utils.window.costs import Call, cached_prefix_tokens
from course_utils.window.tokens import additive_parts, check_messages, resolve_token_counter
from course_utils.model.tool_calling import is_cleared, is_summary
from course_utils.window.sequences import orphaned_tool_messages

#: The order (and names) of the roles a call's tokens are split into. "reply priming" is
#: what the chat format adds once per call, not per message (OpenAI's format: 3 tokens
#: that prime the assistant's reply), so that the parts add up to the call's input count.
ROLES = ("system", "tool schemas", "human", "summary", "ai text", "ai tool calls", "tool results",
         "cleared tool results", "reply priming")

#: Lesson 06's travel agent: its instructions, its task (one request per turn) and the
#: questions that probe, after the task, which facts from tool results it can still answer.
TRIP_SYSTEM_PROMPT = (
    "You are a travel research assistant. Look things up with your tools before you answer, "
    "and answer from what the tools returned."
)
TRIP_TASK = (
    "What is the weather in Porto and Lisbon on Saturday?",
    "Search the web for food markets in Porto.",
    "Read the file trip_notes.md.",
    "Search the web for trains from Lisbon to Porto.",
)
#: The most graph steps one turn may take (LangGraph's ``recursion_limit``). The trip task's
#: turns take under 20; an agent whose middleware hides the tool results from the model
#: calls its tools again and again, and LangGraph's default (10,000 steps) would let that
#: run for most of a minute before the turn is recorded as failed.
TURN_STEP_LIMIT = 60

#: A short summary prompt (LangChain's default is a long checklist; either works with a real
#: model). ``{messages}`` is where SummarizationMiddleware puts the messages to summarise.
AGENT_SUMMARY_PROMPT = (
    "Write a summary of the conversation below, so the assistant can carry on with the task.\n\n{messages}"
)
#: (question, the text a correct answer contains, which turn's tool result holds it)
TRIP_PROBES = (
    ("How strong will the wind be in Porto on Saturday?", "24 km/h", 1),
    ("What are the opening hours of the Bolhão market?", "08:00", 2),
    ("What is the hotel booking reference?", "PX-4471", 3),
    ("How long does the fastest train from Lisbon take?", "2 h 49 min", 4),
)


# --- recording what each model call was sent --------------------------------------


@dataclass
class ModelCall:
    """One chat-model call: what it was sent and what came back."""

    number: int  #: 1 for the first call of the run
    kind: str  #: "agent" (the agent's model node) or "summary" (SummarizationMiddleware's summary call)
    messages: list[BaseMessage]  #: exactly what the model received, system prompt included
    turn: int | None = None  #: the task turn (1, 2, ...) or None for a probe
    tools: list[dict] = field(default_factory=list)  #: the tool schemas bound for the call
    reply: AIMessage | None = None
    error: str | None = None  #: the exception's class and message, when the call failed
    #: the input tokens the model itself reported: its reply's ``usage_metadata``, or the
    #: count its context-window refusal states; None when it reported none
    input_tokens: int | None = None


#: OpenAI's wording of a context-window refusal (the offline model words it the same way).
_REFUSED_TOKENS = re.compile(r"your messages resulted in (\d+) tokens")


def refused_input_tokens(error: BaseException) -> int | None:
    """The input count a context-window refusal states (``requested``, or OpenAI's wording), else None."""
    requested = getattr(error, "requested", None)
    if isinstance(requested, int):
        return requested
    found = _REFUSED_TOKENS.search(str(error))
    return int(found.group(1)) if found else None


class CallRecorder(BaseCallbackHandler):
    """A LangChain callback that records every chat-model call of a run.

    Pass it in the run's config: ``agent.invoke(inputs, {"callbacks": [recorder]})``.
    Summary calls are the ones ``SummarizationMiddleware`` marks with the
    metadata ``lc_source="summarization"``.
    """

    run_inline = True  # record in call order, in the caller's thread

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[ModelCall] = []
        self.turn: int | None = None
        self._by_run: dict[Any, ModelCall] = {}

    def on_chat_model_start(self, serialized, messages, *, run_id, metadata=None, **kwargs) -> None:
        kind = "summary" if (metadata or {}).get("lc_source") == "summarization" else "agent"
        tools = list((kwargs.get("invocation_params") or {}).get("tools") or [])
        call = ModelCall(len(self.calls) + 1, kind, list(messages[0]), self.turn, tools)
        self.calls.append(call)
        self._by_run[run_id] = call

    def on_llm_end(self, response, *, run_id, **kwargs) -> None:
        call = self._by_run.pop(run_id, None)
        if call is not None and response.generations and response.generations[0]:
            message = getattr(response.generations[0][0], "message", None)
            call.reply = message if isinstance(message, AIMessage) else None
            if call.reply is not None and call.reply.usage_metadata:
                call.input_tokens = call.reply.usage_metadata.get("input_tokens")

    def on_llm_error(self, error, *, run_id, **kwargs) -> None:
        call = self._by_run.pop(run_id, None)
        if call is not None:
            call.error = f"{type(error).__name__}: {error}"
            call.input_tokens = refused_input_tokens(error)


# --- running a task ---------------------------------------------------------------------


@dataclass
class Turn:
    """One request of the task and what the agent did with it."""

    number: int
    request: str
    answer: str | None  #: the final AI text, None when the turn failed
    error: str | None  #: why it failed ("ContextWindowExceededError: ...")
    tool_calls: int  #: tool calls the agent made this turn


@dataclass
class Probe:
    """A question asked after the task, from its final state."""

    question: str
    expected: str
    answer: str | None
    error: str | None = None

    @property
    def answered(self) -> bool:
        return self.answer is not None and self.expected.lower() in self.answer.lower()


@dataclass
class TaskRun:
    """Everything :func:`run_task` saw: turns, model calls, probes and the final state."""

    name: str
    turns: list[Turn]
    calls: list[ModelCall]
    probes: list[Probe]
    messages: list[BaseMessage]  #: the agent's stored history at the end of the task

    @property
    def agent_calls(self) -> list[ModelCall]:
        """The agent's model calls during the task (no summary calls, no probes)."""
        return [c for c in self.calls if c.kind == "agent" and c.turn is not None]

    @property
    def summary_calls(self) -> list[ModelCall]:
        return [c for c in self.calls if c.kind == "summary" and c.turn is not None]

    @property
    def failed_turns(self) -> list[Turn]:
        return [t for t in self.turns if t.error is not None]

    @property
    def facts_answered(self) -> int:
        return sum(p.answered for p in self.probes)


def _final_answer(new_messages: Sequence[BaseMessage]) -> str:
    texts = [m.text for m in new_messages if isinstance(m, AIMessage) and not m.tool_calls]
    return texts[-1] if texts else ""


def _invoke(agent: Any, history: list[BaseMessage], request: HumanMessage, recorder: CallRecorder):
    """One turn: returns (new history, new messages, error)."""
    try:
        state = agent.invoke({"messages": [*history, request]},
                             {"callbacks": [recorder], "recursion_limit": TURN_STEP_LIMIT})
    except Exception as error:  # a provider's refusal ends the turn, not the lesson
        return history, [], f"{type(error).__name__}: {error}"
    messages = list(state["messages"])
    # What this turn added: a middleware may have rewritten the history (a summary,
    # a trim), so "new" means not in the history the turn started from.
    before = {m.id for m in history} | {request.id}
    return messages, [m for m in messages if m.id not in before], None


def check_task(requests: Sequence[str], name: str) -> None:
    """Raise ValueError/TypeError unless ``requests`` is a non-empty list of texts and ``name`` a text.

    Shared by every function that replays a task through an agent (``run_task``,
    ``call_accounting.run_requests``).

    >>> check_task(["What's the weather in Porto?"], "weather")
    >>> check_task("one request", "weather")
    Traceback (most recent call last):
    ...
    ValueError: requests must be a non-empty list of str, got 'one request'
    """
    if isinstance(requests, str) or not requests:
        raise ValueError(f"requests must be a non-empty list of str, got {requests!r:.80}")
    for i, request in enumerate(requests):
        check_text(request, f"requests[{i}]", empty_ok=False)
    check_text(name, "name", empty_ok=False)


def run_task(
    agent: Any,
    requests: Sequence[str] = TRIP_TASK,
    probes: Sequence[tuple[str, str, int]] = TRIP_PROBES,
    *,
    name: str = "agent",
) -> TaskRun:
    """Run ``requests`` through ``agent`` one turn at a time, then ask each probe from the final state.

    ``agent`` is anything with ``invoke({"messages": [...]}, config)`` that
    returns the state, such as ``create_agent(...)`` or LangGraph's prebuilt
    agent. Each request is a HumanMessage with a fixed id ("turn-1", ...), so
    runs are reproducible. A turn that raises (a provider refusing an over-long
    input, say) is recorded with its error and the history stays as it was.
    Probes do not change the history and are not part of the task's cost.
    """
    check_task(requests, name)
    recorder = CallRecorder()
    history: list[BaseMessage] = []
    turns = []
    for number, text in enumerate(requests, start=1):
        recorder.turn = number
        request = HumanMessage(text, id=f"turn-{number}")
        history, new, error = _invoke(agent, history, request, recorder)
        # Counted from the recorded replies: a middleware may have removed them from the history.
        calls = sum(len(c.reply.tool_calls) for c in recorder.calls if c.turn == number and c.kind == "agent" and c.reply)
        turns.append(Turn(number, text, None if error else _final_answer(new), error, calls))
    asked = []
    for number, (question, expected, *_rest) in enumerate(probes, start=1):
        recorder.turn = None
        _, new, error = _invoke(agent, history, HumanMessage(question, id=f"probe-{number}"), recorder)
        asked.append(Probe(question, expected, None if error else _final_answer(new), error))
    return TaskRun(name, turns, recorder.calls, asked, history)


# --- measuring ------------------------------------------------------------------------


def role_of(message: BaseMessage) -> str:
    """The role a message's tokens count under (one of :data:`ROLES`)."""
    if isinstance(message, SystemMessage):
        return "system"
    if is_summary(message):
        return "summary"
    if isinstance(message, HumanMessage):
        return "human"
    if isinstance(message, ToolMessage):
        return "cleared tool results" if is_cleared(message) else "tool results"
    if isinstance(message, AIMessage) and message.tool_calls:
        return "ai tool calls"
    return "ai text"


def tool_schemas_message(tools: Sequence[Any]) -> SystemMessage:
    """The bound tools' JSON schemas as one system message: what they cost as input.

    Providers send tool schemas with every call and bill them as input
    tokens; the offline model counts them this way too.
    """
    if isinstance(tools, (str, bytes, dict)) or not isinstance(tools, Sequence):
        raise TypeError(f"tools must be a list of tools or tool schemas, got {type(tools).__name__}: {tools!r:.80}")
    schemas = [tool if isinstance(tool, dict) else convert_to_openai_tool(tool) for tool in tools]
    return SystemMessage(json.dumps(schemas, sort_keys=True))


def message_counter(token_counter: Any = "exact"):
    """A function giving the tokens one message adds to a call's input.

    For the course's counters that is the message's count *without* what a
    list costs once (for the exact counter, the 3 tokens of reply priming:
    counting a message on its own, ``counter([m])``, would add them again
    for every message). For any other counter nothing is known about how it
    adds up, so a message costs ``counter([m])``.

    >>> from langchain_core.messages import HumanMessage
    >>> message_counter("exact")(HumanMessage("hello world"))  # 3 framing + "user" 1 + 2; no reply priming
    6
    """
    counter = resolve_token_counter(token_counter)
    parts = additive_parts(counter)
    return parts[0] if parts is not None else (lambda message: counter([message]))


def tokens_by_role(
    messages: Sequence[BaseMessage], token_counter: Any = "exact", tools: Sequence[Any] = ()
) -> dict[str, int]:
    """Tokens of one call's input per role, every role of :data:`ROLES` present.

    The input is ``messages`` plus, when ``tools`` are bound, their schemas as
    one system message after them, which is how the offline model counts
    a call (``OfflineChatModel.get_num_tokens_from_messages``). Each message
    counts what it adds to the list (:func:`message_counter`), and what the
    list adds once (the reply priming) is its own role, so the parts add up
    to exactly ``counter(input)``: the ``input_tokens`` the model reports
    when it counts with the same counter.
    """
    messages = check_messages(messages)
    counter = resolve_token_counter(token_counter)
    one = message_counter(counter)
    totals = dict.fromkeys(ROLES, 0)
    for message in messages:
        totals[role_of(message)] += one(message)
    sent = list(messages)
    if tools:
        schemas = tool_schemas_message(tools)
        totals["tool schemas"] = one(schemas)
        sent.append(schemas)
    # Whatever the whole input costs beyond its messages: the reply priming for the course's counters.
    totals["reply priming"] = counter(sent) - sum(totals.values()) if sent else 0
    return totals


def call_tokens(call: ModelCall, token_counter: Any = "exact") -> int:
    """The input tokens of one call, its messages and its tools' schemas, as the model counts them."""
    return sum(tokens_by_role(call.messages, token_counter, call.tools).values())


@dataclass(frozen=True)
class CallRow:
    """One agent model call of a run, for a table or a stacked bar."""

    call: int  #: 1, 2, ... counting the agent's calls only
    turn: int
    messages: int
    tokens: int  #: the sum of the parts: the call's input tokens
    parts: dict[str, int] = field(compare=False)  #: tokens per role
    error: str | None = None


def call_rows(run: TaskRun, token_counter: Any = "exact") -> list[CallRow]:
    """Tokens per agent model call of the task, split by role."""
    rows = []
    for number, call in enumerate(run.agent_calls, start=1):
        parts = tokens_by_role(call.messages, token_counter, call.tools)
        rows.append(CallRow(number, call.turn or 0, len(call.messages), sum(parts.values()), parts, call.error))
    return rows


def _key(message: BaseMessage) -> Any:
    """How a message is recognised across calls: its id, or its type and text when it has none."""
    return message.id or (message.type, message.text)


def transcript(run: TaskRun) -> list[BaseMessage]:
    """Every message the task's agent calls were sent or produced, in order of first appearance."""
    seen: dict[Any, BaseMessage] = {}
    for call in run.agent_calls:
        # A new summary goes after the messages that existed when it was written.
        ordered = [m for m in call.messages if not is_summary(m)] + [m for m in call.messages if is_summary(m)]
        for message in [*ordered, *([call.reply] if call.reply is not None else [])]:
            if _key(message) not in seen:
                seen[_key(message)] = message
    return list(seen.values())


STATUSES = ("sent", "cleared", "summary", "summarised", "not sent", "later")


def message_statuses(run: TaskRun) -> tuple[list[BaseMessage], list[list[str]]]:
    """For each agent call, the status of each transcript message.

    - "sent": the call received it as it was;
    - "cleared": it received the tool call's placeholder instead of the result;
    - "summary": it is the summary, and the call received it;
    - "summarised": not sent, and the call received a summary written after it;
    - "not sent": not sent, and no summary covers it (trimmed away);
    - "later": the message did not exist yet.
    """
    messages = transcript(run)
    order = {_key(m): i for i, m in enumerate(messages)}
    grid = []
    for call in run.agent_calls:
        received = {_key(m): m for m in call.messages}
        # Messages after the last one this call received were produced later.
        last = max((order[k] for k in received if k in order), default=-1)
        summaries = [order[_key(m)] for m in call.messages if is_summary(m) and _key(m) in order]
        statuses = []
        for i, message in enumerate(messages):
            key = _key(message)
            if key in received:
                sent = received[key]
                statuses.append("summary" if is_summary(sent) else "cleared" if is_cleared(sent) else "sent")
            elif i > last:
                statuses.append("later")
            elif any(i < s for s in summaries):
                statuses.append("summarised")
            else:
                statuses.append("not sent")
        grid.append(statuses)
    return messages, grid


def orphans_received(run: TaskRun) -> int:
    """Tool results, over every model call of the run, sent without the tool call they answer."""
    return sum(len(orphaned_tool_messages(call.messages)) for call in run.calls)


@dataclass(frozen=True)
class StrategyRow:
    """One row of the comparison table."""

    strategy: str
    agent_calls: int
    tokens_sent: int  #: input tokens (messages and tool schemas) of the agent's calls over the task
    largest_call: int  #: the most input tokens one agent call received
    summary_tokens: int  #: input tokens of the summary calls (0 without summarisation)
    turns_failed: int
    facts_answered: int
    facts_asked: int
    orphaned_tool_results: int


def compare_runs(runs: Sequence[TaskRun], token_counter: Any = "exact") -> list[StrategyRow]:
    """The comparison table: one row per run, all counted with the same counter."""
    counter = resolve_token_counter(token_counter)
    rows = []
    for run in runs:
        sizes = [call_tokens(call, counter) for call in run.agent_calls]
        summary = sum(call_tokens(call, counter) for call in run.summary_calls)
        rows.append(
            StrategyRow(
                run.name,
                len(sizes),
                sum(sizes),
                max(sizes, default=0),
                summary,
                len(run.failed_turns),
                run.facts_answered,
                len(run.probes),
                orphans_received(run),
            )
        )
    return rows


@dataclass(frozen=True)
class PrefixReuse:
    """What a prompt cache could do for one run: how much of its input repeats an earlier call's start."""

    strategy: str
    calls: int  #: the agent's model calls
    tokens_sent: int  #: their input tokens (as in :class:`StrategyRow`)
    cacheable_tokens: int  #: of those, each call's longest prefix (whole parts) an earlier call also started with
    rewrites: int  #: calls whose input does not start with all of the previous call's input: the history changed

    @property
    def uncached_tokens(self) -> int:
        """Input tokens no cache could serve: what is billed at the full input price."""
        return self.tokens_sent - self.cacheable_tokens

    @property
    def cacheable_share(self) -> float:
        return self.cacheable_tokens / self.tokens_sent if self.tokens_sent else 0.0


def _cache_key(message: BaseMessage) -> str:
    """Two parts with the same key are the same text to a provider's cache: type, text and tool calls."""
    calls = [(c.get("name"), c.get("args"), c.get("id")) for c in getattr(message, "tool_calls", None) or []]
    return json.dumps([message.type, message.text, calls], sort_keys=True, default=str)


def _as_cache_call(call: ModelCall, number: int, counter: Any) -> Call:
    """A call as the cache sees it: the tool schemas first (providers put tools before the messages), then each
    message, then what the list costs once (the reply priming, never part of a reusable prefix)."""
    one = message_counter(counter)
    parts: list[tuple[str, int]] = []
    if call.tools:
        schemas = tool_schemas_message(call.tools)
        parts.append(("tools:" + schemas.text, one(schemas)))
    parts += [(_cache_key(m), one(m)) for m in call.messages]
    rest = call_tokens(call, counter) - sum(tokens for _, tokens in parts)
    parts.append((f"reply priming of call {number}", rest))
    return Call("turn", tuple(k for k, _ in parts), tuple(t for _, t in parts), 0)


def prefix_reuse(run: TaskRun, token_counter: Any = "exact", *, min_cached_tokens: int = 0) -> PrefixReuse:
    """How much of a run's input a provider's prompt cache could serve, and how often the prefix was rewritten.

    A cache serves the longest start of a call's input (tool schemas, system
    prompt, messages, in order) that an earlier call also sent, at a fraction
    of the input price; anything after the first changed part is billed in
    full. An append-only history repeats the whole previous call; clearing,
    trimming or summarising rewrites it, from the first changed message on.
    Below ``min_cached_tokens`` (a provider's minimum cacheable prefix) no
    call is served. Cache lifetimes (minutes) are not modelled: the calls are
    taken to follow each other closely.

    Uses :func:`course_utils.window.costs.cached_prefix_tokens`, the rule the
    course's bills apply.
    """
    if not isinstance(run, TaskRun):
        raise TypeError(f"run must be a TaskRun from run_task, got {type(run).__name__}: {run!r:.80}")
    counter = resolve_token_counter(token_counter)
    min_cached_tokens = check_int(min_cached_tokens, "min_cached_tokens")
    calls = [_as_cache_call(call, i, counter) for i, call in enumerate(run.agent_calls, start=1)]
    cacheable = rewrites = 0
    for i, call in enumerate(calls):
        cacheable += cached_prefix_tokens(call, calls[:i], min_cached_tokens=min_cached_tokens)
        if i:
            previous = calls[i - 1].message_keys[:-1]  # without its reply priming
            rewrites += call.message_keys[: len(previous)] != previous
    return PrefixReuse(run.name, len(calls), sum(c.input_tokens for c in calls), cacheable, rewrites)


# --- helpers a strategy can use ------------------------------------------------------------

FIGURE = re.compile(r"\d")


def findings_summary(messages: Sequence[BaseMessage], *, max_lines_per_result: int = 6) -> str:
    """A summary that keeps what tool results found: each result's lines that state a figure.

    For ``SummarizationMiddleware(..., summarizer=findings_summary)``: the
    requests the user made, then, for each tool result, the tool's name and
    up to ``max_lines_per_result`` of its lines that contain a digit (times,
    temperatures, prices, references). Deterministic, and much shorter than
    the results; what it leaves out (prose without figures) is lost.
    """
    messages = check_messages(messages)
    check_int(max_lines_per_result, "max_lines_per_result", minimum=1)
    lines = []
    for message in messages:
        if isinstance(message, HumanMessage) and not is_summary(message):
            lines.append(f"The user asked: {message.text.strip()}")
        elif is_summary(message):
            kept = message.text.split("\n\n", 1)[-1]
            lines.append(kept.strip())
        elif isinstance(message, ToolMessage) and not is_cleared(message):
            facts = [line.strip() for line in message.text.splitlines() if FIGURE.search(line)]
            if facts:
                lines.append(f"{message.name or 'A tool'} found:")
                lines += facts[:max_lines_per_result]
    return "\n".join(lines) or "Nothing to summarise yet."


def current_turn_start(messages: Sequence[BaseMessage]) -> int | None:
    """Index of the last (non-summary) human message: where the current turn starts."""
    for i in range(len(messages) - 1, -1, -1):
        if isinstance(messages[i], HumanMessage) and not is_summary(messages[i]):
            return i
    return None


def shorten_tool_result(message: ToolMessage, max_lines: int) -> ToolMessage:
    """The same tool result cut to its first ``max_lines`` lines, marked as cut."""
    lines = message.text.splitlines()
    if len(lines) <= max_lines:
        return message
    text = "\n".join(lines[:max_lines]) + f"\n[... {len(lines) - max_lines} more lines cut to fit the budget]"
    return message.model_copy(update={"content": text})


def fit_turn(messages: Sequence[BaseMessage], max_tokens: int, token_counter: Any = "exact") -> list[BaseMessage]:
    """Trim like lesson 03b (valid boundaries), but never lose the current turn.

    First ``trim_messages`` with the safe arguments (``strategy="last"``,
    ``start_on="human"``, ``end_on=("human", "tool")``, ``include_system=True``).
    When that keeps nothing of the current turn (its tool results alone are
    over the budget), keep the system message and the whole current turn
    instead, with its tool results cut line by line until the turn fits
    (down to one line each). The result never starts with a tool result
    and never separates a result from its call.
    """
    messages = check_messages(messages)
    max_tokens = check_int(max_tokens, "max_tokens", minimum=1)
    counter = resolve_token_counter(token_counter)
    kept = trim_messages(
        messages,
        max_tokens=max_tokens,
        token_counter=counter,
        strategy="last",
        start_on="human",
        end_on=("human", "tool"),
        include_system=True,
    )
    start = current_turn_start(messages)
    if start is None or any(m is messages[start] or _key(m) == _key(messages[start]) for m in kept):
        return kept
    system = [m for m in messages[:1] if isinstance(m, SystemMessage)]
    turn = list(messages[start:])
    longest = max((len(m.text.splitlines()) for m in turn if isinstance(m, ToolMessage)), default=1)
    for lines in range(longest, 0, -1):
        shortened = [shorten_tool_result(m, lines) if isinstance(m, ToolMessage) else m for m in turn]
        if counter([*system, *shortened]) <= max_tokens:
            return [*system, *shortened]
    return [*system, *shortened]
