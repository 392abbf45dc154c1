"""Tool selection: sending each call only the tools it needs, measured (lesson 07b).

Every bound tool's JSON schema is part of every model call's input. With
many tools that is a large, fixed share of each call. LangChain's
``LLMToolSelectorMiddleware`` asks a model first (the *selector*) which tools
the last user message needs, and binds only those for the agent's call. This
module measures both sides of that trade:

- :func:`schema_tokens`: what a list of tools costs as input, counted as the
  offline model counts it (and as lesson 05 folded into S);
- :func:`schema_rows`: per model call of a run, which tools were bound, their
  schema tokens and the call's whole input, selector calls included;
- :func:`selection_summary`: per run, the schema tokens an agent call carried
  on average and the tokens of every call, selection's own included.

>>> from course_utils.agentic.tool_catalogue import CATALOGUE
>>> schema_tokens(CATALOGUE) > 10 * schema_tokens(CATALOGUE[:1])
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel

from course_utils.core.args import check_instance, check_int
from course_utils.agentic.agents import message_counter, tool_schemas_message
from course_utils.agentic.call_accounting import AccountedRun
from course_utils.agentic.tool_catalogue import CATALOGUE
from course_utils.model.tool_calling import tool_name

SELECTION_PROMPT = "You are a travel assistant. Use your tools to answer."
#: Requests that each need one or two of the catalogue's fourteen tools.
SELECTION_TASK = (
    "What is the weather in Porto on Saturday?",
    "Which trains go from Lisbon to Porto tomorrow?",
    "What is 95 times 3?",
)
#: A request that needs two tools: with max_tools=1 the selector keeps only the first.
TWO_TOOL_REQUEST = "What is the weather in Porto on Saturday, and what is 120 plus 45?"


def schema_tokens(tools: Sequence[Any], token_counter: Any = "exact") -> int:
    """Input tokens the tools' JSON schemas add to a call (0 for no tools)."""
    if isinstance(tools, (str, bytes, dict)) or not isinstance(tools, Sequence):
        raise TypeError(f"tools must be a list of tools or tool schemas, got {type(tools).__name__}: {tools!r:.80}")
    return message_counter(token_counter)(tool_schemas_message(tools)) if tools else 0


@dataclass(frozen=True)
class SchemaRow:
    """One model call: who made it, which tools were bound and what they cost."""

    call: int
    turn: int | None
    purpose: str  #: "agent" or "selection"
    tools: tuple[str, ...]
    schema_tokens: int
    input_tokens: int  #: the whole input, as the model reported it


def schema_rows(run: AccountedRun, token_counter: Any = "exact") -> list[SchemaRow]:
    """Per call of ``run``: the tools bound and their schema tokens, next to the call's whole input."""
    check_instance(run, "run", AccountedRun)
    return [
        SchemaRow(number, c.turn, c.purpose, tuple(tool_name(t) for t in c.call.tools),
                  schema_tokens(c.call.tools, token_counter), c.input_tokens)
        for number, c in enumerate(run.calls, start=1)
    ]


@dataclass(frozen=True)
class SelectionSummary:
    """A run's tool costs: what the agent's calls carried, and what everything cost."""

    name: str
    agent_calls: int
    selection_calls: int
    schema_tokens_per_agent_call: float
    total_tokens: int  #: input and output of every call, selector calls included


def selection_summary(run: AccountedRun, token_counter: Any = "exact") -> SelectionSummary:
    rows = schema_rows(run, token_counter)
    agent = [r for r in rows if r.purpose == "agent"]
    mean = sum(r.schema_tokens for r in agent) / len(agent) if agent else 0.0
    return SelectionSummary(run.name, len(agent), len(rows) - len(agent), mean, run.total_tokens)


def build_tool_agent(model: BaseChatModel, tools: Sequence[Any] = CATALOGUE, *, select: bool = False,
                     max_tools: int | None = 3, selector: BaseChatModel | None = None) -> Any:
    """An agent with ``tools``; with ``select=True``, ``LLMToolSelectorMiddleware`` chooses at most
    ``max_tools`` of them before every model call (``selector`` answers, default ``model``)."""
    from langchain.agents import create_agent
    from langchain.agents.middleware import LLMToolSelectorMiddleware

    check_instance(model, "model", BaseChatModel)
    if selector is not None:
        check_instance(selector, "selector", BaseChatModel)
    middleware = []
    if select:
        max_tools = check_int(max_tools, "max_tools", minimum=1, none_ok=True)
        middleware = [LLMToolSelectorMiddleware(model=selector, max_tools=max_tools)]
    return create_agent(model, list(tools), system_prompt=SELECTION_PROMPT, middleware=middleware,
                        name="selecting" if select else "all tools")
