"""Isolation: a research sub-agent called as a tool, in its own window (lesson 07b).

The parent agent has one tool, ``research``. Calling it runs a *child* agent
with its own, fresh list of messages and its own tools (lesson 06's
``web_search``, whose results are whole pages); only the child's final
answer comes back to the parent as the tool result. The pages never enter
the parent's window. The price: the child's model calls, each with its own
system prompt and tool schemas, and one more parent call per request.

:func:`compare_isolation` runs the same requests through a single agent that
searches itself and through the parent with its sub-agent, and accounts for
every model call of both (:mod:`course_utils.agentic.call_accounting`);
:func:`break_even` says after how many requests isolation costs fewer tokens
in total, and :func:`billable_calls` turns recorded calls into the
:class:`~course_utils.window.costs.Call` records ``bill()`` prices.

Lesson 07b builds the same agents in its cells (saved to
``course_utils.lessons.lesson07b``: ``research_agents``, ``single_agent``;
``tests/test_subagents.py`` checks they run as these do); :func:`build_isolated`
and :func:`build_single` stay for the exercise 07 check and the tests.

>>> [tool.name for tool in [research_tool(object())]]
['research']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import StructuredTool

from course_utils.core.args import check_instance
from course_utils.agentic.agent_tools import web_search
from course_utils.agentic.call_accounting import AccountedRun, LabelledCall, run_requests
from course_utils.model.tool_calling import tool_name
from course_utils.window.costs import Call, call_record

PARENT_NAME = "planner"
CHILD_NAME = "researcher"
SINGLE_NAME = "single"
PARENT_PROMPT = "You are a travel assistant. Hand research to your research tool and answer from what it returns."
CHILD_PROMPT = "You are a research assistant. Search the web, then answer the question in one line."
SINGLE_PROMPT = "You are a travel assistant. Search the web yourself and answer from what you find."
#: The task: research requests, one per turn, each a search whose result is three whole pages.
RESEARCH_TASK = (
    "Search the web for the opening hours of the Bolhão market.",
    "Search the web for the fastest train from Lisbon to Porto.",
    "Search the web for the coach from Porto to Lisbon.",
    "Search the web for the Dom Luís I bridge in Ribeira.",
)
#: Asked after the task: a detail the pages held but no answer quoted.
DETAIL_QUESTION = "Which food hall is in Boavista?"
DETAIL_EXPECTED = "Bom Sucesso"
#: The names of :func:`compare_isolation`'s two runs (the Persian catalogue translates them).
SINGLE_RUN = "one agent"
ISOLATED_RUN = "parent + sub-agent"


def child_request(question: str) -> str:
    """What the research tool sends its child: the question, worded as a search request."""
    return f"Search the web for {question}"


def research_tool(child: Any) -> StructuredTool:
    """A ``research(question)`` tool that runs ``child`` (an agent) on a fresh list of messages
    and returns only its final answer."""

    def research(question: str) -> str:
        state = child.invoke({"messages": [HumanMessage(child_request(question))]})
        answers = [m.text for m in state["messages"] if isinstance(m, AIMessage) and not m.tool_calls]
        return answers[-1] if answers else "The research assistant found no answer."

    return StructuredTool.from_function(
        research,
        name="research",
        description="Search the web with a research sub-agent; returns only its short answer, not the pages.",
    )


def build_single(model: BaseChatModel) -> Any:
    """One agent that searches the web itself: every page it reads stays in its window."""
    from langchain.agents import create_agent

    check_instance(model, "model", BaseChatModel)
    return create_agent(model, [web_search], system_prompt=SINGLE_PROMPT, name=SINGLE_NAME)


def build_isolated(parent_model: BaseChatModel, child_model: BaseChatModel | None = None) -> Any:
    """A parent agent whose only tool runs a research child agent (``child_model``, default the parent's)."""
    from langchain.agents import create_agent

    check_instance(parent_model, "parent_model", BaseChatModel)
    child_model = parent_model if child_model is None else check_instance(child_model, "child_model", BaseChatModel)
    child = create_agent(child_model, [web_search], system_prompt=CHILD_PROMPT, name=CHILD_NAME)
    return create_agent(parent_model, [research_tool(child)], system_prompt=PARENT_PROMPT, name=PARENT_NAME)


@dataclass
class IsolationComparison:
    """The same requests with and without a sub-agent, every call accounted for."""

    single: AccountedRun
    isolated: AccountedRun

    def parent_window(self) -> tuple[int, int]:
        """The largest input one call of the top agent was sent: (single agent, parent)."""
        return (_largest(self.single, SINGLE_NAME), _largest(self.isolated, PARENT_NAME))

    def totals(self) -> tuple[int, int]:
        """Tokens of every call, (single agent, parent + child)."""
        return self.single.total_tokens, self.isolated.total_tokens


def _largest(run: AccountedRun, agent: str) -> int:
    return max((c.input_tokens for c in run.calls if c.agent == agent), default=0)


def compare_isolation(model: BaseChatModel, requests: Sequence[str] = RESEARCH_TASK,
                      child_model: BaseChatModel | None = None) -> IsolationComparison:
    """Run ``requests`` through :func:`build_single` and :func:`build_isolated` with the same model."""
    single = run_requests(build_single(model), requests, name=SINGLE_RUN)
    isolated = run_requests(build_isolated(model, child_model), requests, name=ISOLATED_RUN)
    return IsolationComparison(single, isolated)


def cumulative_tokens(run: AccountedRun) -> list[int]:
    """Total tokens after each request: 1, 2, ... of the run's requests."""
    return [run.tokens_after(k) for k in range(1, len(run.requests) + 1)]


def break_even(single: AccountedRun, isolated: AccountedRun) -> int | None:
    """The first number of requests after which the isolated run has cost fewer tokens in total
    than the single agent, or None if it never has within the runs.

    >>> from course_utils.agentic.call_accounting import AccountedRun
    >>> break_even(AccountedRun("a", ["x", "y"], [], [], []), AccountedRun("b", ["x", "y"], [], [], []))
    """
    for turns, (alone, split) in enumerate(zip(cumulative_tokens(single), cumulative_tokens(isolated)), start=1):
        if split < alone:
            return turns
    return None


def billable_calls(calls: Sequence[LabelledCall]) -> list[Call]:
    """The recorded calls as :func:`course_utils.window.costs.bill` prices them, in order.

    Each call's parts are its messages (the course's exact counter) with the
    tool schemas first, as providers send them: the schemas' tokens are what
    the model reported as input beyond its messages. The schemas' part is
    keyed by the tool names, so a prompt cache only matches calls that bound
    the same tools.

    >>> billable_calls([])
    []
    """
    from course_utils.window.tokens import exact_counter

    if isinstance(calls, (str, bytes)) or not isinstance(calls, Sequence):
        raise TypeError(f"calls must be a list of LabelledCall (run.calls or recorder.labelled), got {calls!r:.80}")
    billed = []
    for i, labelled in enumerate(calls):
        check_instance(labelled, f"calls[{i}]", LabelledCall, "run_requests")
        messages = labelled.call.messages
        schemas = max(0, labelled.input_tokens - exact_counter(messages)) if labelled.call.tools else 0
        record = call_record("turn", messages, labelled.output_tokens, exact_counter, extra_input=schemas)
        if schemas:
            tools = "tools:" + ",".join(tool_name(t) for t in labelled.call.tools)
            record = Call(record.kind, (tools, *record.message_keys[1:]), record.message_tokens, record.output_tokens)
        billed.append(record)
    return billed


def ask_after(agent: Any, run: AccountedRun, question: str) -> str:
    """Ask ``agent`` one more question from the end of ``run`` (its history), and return the answer."""
    from course_utils.agentic.call_accounting import final_text

    state = agent.invoke({"messages": [*run.messages, HumanMessage(question, id="after")]})
    return final_text(state["messages"][len(run.messages):])
