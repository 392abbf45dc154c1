"""Counting every model call of a run, per agent: parent, sub-agent and selector alike (lesson 07b).

Lesson 06's :class:`course_utils.agentic.agents.CallRecorder` records each chat-model
call a run makes, including those made *inside* a tool (LangChain passes the
run's callbacks down). :class:`AgentCallRecorder` adds who made each call:
the name ``create_agent(..., name=...)`` puts in the run's metadata
(``lc_agent_name``), and the purpose: ``"selection"`` for the calls
``LLMToolSelectorMiddleware`` makes (metadata ``lc_source="tool_selection"``),
``"summary"`` for ``SummarizationMiddleware``'s, ``"agent"`` otherwise.
:func:`tally` then adds up, per agent, the calls and the tokens each model
*reported* in its ``usage_metadata``: the accounting a bill follows.

>>> from langchain_core.messages import AIMessage, HumanMessage
>>> from course_utils.agentic.agents import ModelCall
>>> call = ModelCall(1, "agent", [HumanMessage("hi")], reply=AIMessage("hello",
...     usage_metadata={"input_tokens": 8, "output_tokens": 5, "total_tokens": 13}))
>>> tally([LabelledCall(call, "planner")])
[AgentTally(agent='planner', calls=1, input_tokens=8, output_tokens=5, largest_input=8)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from course_utils.core.args import check_instance
from course_utils.agentic.agents import CallRecorder, ModelCall, check_task
from course_utils.core.i18n import _

#: The name a call is filed under when no agent name was set.
UNNAMED = "agent"


@dataclass(frozen=True)
class LabelledCall:
    """A recorded model call, with the agent that made it and what for."""

    call: ModelCall
    agent: str  #: the agent's name (``create_agent(name=...)``), or "agent"
    purpose: str = "agent"  #: "agent", "selection" or "summary"
    turn: int | None = None  #: the request (1, 2, ...) it served

    @property
    def input_tokens(self) -> int:
        """Input tokens as the model reported them (0 when it reported none)."""
        return _usage(self.call, "input_tokens")

    @property
    def output_tokens(self) -> int:
        return _usage(self.call, "output_tokens")


def _usage(call: ModelCall, key: str) -> int:
    usage = call.reply.usage_metadata if call.reply is not None else None
    if usage:
        return int(usage.get(key, 0))
    return int(call.input_tokens or 0) if key == "input_tokens" else 0


class AgentCallRecorder(CallRecorder):
    """A :class:`CallRecorder` that also notes which agent made each call, and what for.

    ``recorder.labelled`` lists the calls as :class:`LabelledCall`, in the order made.
    """

    def __init__(self) -> None:
        super().__init__()
        self._labels: list[tuple[str, str, int | None]] = []

    def on_chat_model_start(self, serialized, messages, *, run_id, metadata=None, **kwargs) -> None:
        super().on_chat_model_start(serialized, messages, run_id=run_id, metadata=metadata, **kwargs)
        metadata = metadata or {}
        source = metadata.get("lc_source")
        purpose = {"tool_selection": "selection", "summarization": "summary"}.get(source, "agent")
        self._labels.append((str(metadata.get("lc_agent_name") or UNNAMED), purpose, self.turn))

    @property
    def labelled(self) -> list[LabelledCall]:
        return [LabelledCall(call, *label) for call, label in zip(self.calls, self._labels)]


@dataclass(frozen=True)
class AgentTally:
    """One agent's share of a run: its calls and the tokens they reported."""

    agent: str
    calls: int
    input_tokens: int
    output_tokens: int
    largest_input: int  #: the largest input one call was sent: the most this agent's window held

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


def tally(calls: Sequence[LabelledCall], *, by: str = "agent") -> list[AgentTally]:
    """Calls and reported tokens per agent (``by="agent"``) or per purpose (``by="purpose"``),
    in order of first appearance."""
    if by not in ("agent", "purpose"):
        raise ValueError(f"by must be 'agent' or 'purpose', got {by!r}")
    groups: dict[str, list[LabelledCall]] = {}
    for call in calls:
        if not isinstance(call, LabelledCall):
            raise TypeError(f"calls must be LabelledCall items, got {type(call).__name__}: {call!r:.80}")
        groups.setdefault(getattr(call, by), []).append(call)
    return [
        AgentTally(name, len(group), sum(c.input_tokens for c in group), sum(c.output_tokens for c in group),
                   max(c.input_tokens for c in group))
        for name, group in groups.items()
    ]


def tally_line(row: AgentTally) -> str:
    """One agent's share of a run in one line, in the package's language.

    >>> tally_line(AgentTally("planner", 2, 330, 93, 200))
    '   planner: 2 calls,   330 in +  93 out'
    """
    check_instance(row, "row", AgentTally, "tally")
    return _("{agent:>10}: {calls} calls, {input_tokens:>5} in + {output_tokens:>3} out").format(
        agent=row.agent, calls=row.calls, input_tokens=row.input_tokens, output_tokens=row.output_tokens)


def usage_check(recorded: int, reported: int) -> str:
    """The accounting checked against the models' own ``usage_metadata``, in one line.

    >>> usage_check(1219, 1219)
    "recorded per agent: 1219 tokens; the models' usage_metadata: 1219; equal: True"
    """
    return _("recorded per agent: {recorded} tokens; the models' usage_metadata: {reported}; equal: {equal}").format(
        recorded=recorded, reported=reported, equal=recorded == reported)


@dataclass
class AccountedRun:
    """Requests run one turn at a time through an agent, with every model call it caused."""

    name: str
    requests: list[str]
    answers: list[str]  #: the final answer of each turn
    calls: list[LabelledCall]
    messages: list[BaseMessage]  #: the top agent's history at the end

    @property
    def tallies(self) -> list[AgentTally]:
        return tally(self.calls)

    @property
    def total_calls(self) -> int:
        return len(self.calls)

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens of every call, whichever agent made it."""
        return sum(c.input_tokens + c.output_tokens for c in self.calls)

    def tokens_after(self, turns: int) -> int:
        """Total tokens of the calls made for the first ``turns`` requests."""
        return sum(c.input_tokens + c.output_tokens for c in self.calls if c.turn is not None and c.turn <= turns)


def final_text(messages: Sequence[BaseMessage]) -> str:
    texts = [m.text for m in messages if isinstance(m, AIMessage) and not m.tool_calls]
    return texts[-1] if texts else ""


def run_requests(agent: Any, requests: Sequence[str], *, name: str = "run") -> AccountedRun:
    """Send ``requests`` to ``agent`` one turn at a time (the history kept), recording every model call.

    Calls made inside tools (a sub-agent's) and by middleware (a tool selector's)
    are recorded too, labelled with their agent and purpose. Each request gets
    a fixed id ("turn-1", ...), so runs are reproducible.
    """
    check_task(requests, name)
    recorder = AgentCallRecorder()
    history: list[BaseMessage] = []
    answers = []
    for number, text in enumerate(requests, start=1):
        recorder.turn = number
        state = agent.invoke({"messages": [*history, HumanMessage(text, id=f"turn-{number}")]}, {"callbacks": [recorder]})
        new = state["messages"][len(history):]
        history = list(state["messages"])
        answers.append(final_text(new))
    return AccountedRun(name, list(requests), answers, recorder.labelled, history)
