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
in total.

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
from course_utils.agentic.call_accounting import AccountedRun, AgentTally, run_requests
from course_utils.core.i18n import _

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


def ask_after(agent: Any, run: AccountedRun, question: str) -> str:
    """Ask ``agent`` one more question from the end of ``run`` (its history), and return the answer."""
    from course_utils.agentic.call_accounting import final_text

    state = agent.invoke({"messages": [*run.messages, HumanMessage(question, id="after")]})
    return final_text(state["messages"][len(run.messages):])


# What lesson 07b prints, one sentence per function, in the package's language (course_utils.core.i18n).

def run_name(run: AccountedRun) -> str:
    """A run's name in the package's language: the course's own names are in the catalogue, others stay."""
    check_instance(run, "run", AccountedRun, "run_requests")
    return _(run.name) if run.name else run.name


def run_line(run: AccountedRun) -> str:
    """A run's calls and tokens in one line.

    >>> run_line(AccountedRun("one agent", [], [], [], []))
    'one agent: 0 calls, 0 tokens'
    """
    return _("{name}: {calls} calls, {tokens} tokens").format(
        name=run_name(run), calls=run.total_calls, tokens=run.total_tokens)


def window_line(row: AgentTally) -> str:
    """One agent's calls, largest window and tokens, in one line (indented under :func:`run_line`).

    >>> window_line(AgentTally("planner", 8, 3000, 585, 656))
    '      planner: 8 calls, largest window 656 tokens, 3585 tokens in all'
    """
    check_instance(row, "row", AgentTally, "tally")
    # The indent stays outside the message: inside a right-to-left one it would land at the line's far end.
    return "   " + _("{agent:>10}: {calls} calls, largest window {largest} tokens, {total} tokens in all").format(
        agent=row.agent, calls=row.calls, largest=row.largest_input, total=row.total_tokens)


def total_after_line(turn: int, single: int, isolated: int) -> str:
    """Both runs' total tokens after request ``turn``, in one line.

    >>> total_after_line(1, 796, 1220)
    'after request 1: one agent   796 tokens, parent + sub-agent  1220'
    """
    return _("after request {turn}: one agent {single:>5} tokens, parent + sub-agent {isolated:>5}").format(
        turn=turn, single=single, isolated=isolated)


def break_even_line(single: AccountedRun, isolated: AccountedRun) -> str:
    """When isolation starts to pay (:func:`break_even`), in one sentence.

    >>> break_even_line(AccountedRun("a", ["x"], [], [], []), AccountedRun("b", ["x"], [], [], []))
    'isolation never cost less within these requests'
    """
    turns = break_even(single, isolated)
    if turns is None:
        return _("isolation never cost less within these requests")
    return _("isolation pays from request {turns}").format(turns=turns)


def first_answer_line(answer: str) -> str:
    """The isolated run's first answer (the model's own words), labelled.

    >>> first_answer_line("Open 08:00-20:00.")
    'first answer, isolated: Open 08:00-20:00.'
    """
    return _("first answer, isolated: {answer}").format(answer=answer)


def detail_lines(question: str, single: str, isolated: str) -> str:
    """The detail question and both agents' answers to it (:func:`ask_after`), one per line.

    >>> print(detail_lines("Which hall?", "Bom Sucesso.", "I don't know."))
    question: Which hall?
    one agent:           Bom Sucesso.
    parent + sub-agent:  I don't know.
    """
    return "\n".join([_("question: {question}").format(question=question),
                      _("one agent:           {answer}").format(answer=single),
                      _("parent + sub-agent:  {answer}").format(answer=isolated)])
