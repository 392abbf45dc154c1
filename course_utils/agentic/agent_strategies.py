"""Lesson 06's context strategies for a tool-using agent, rebuilt and run in one call, for any chat model.

Lesson 06 builds each strategy in its own cell; lesson 06b compares them and
needs them all again. :func:`run_strategies` builds the same agents
(``create_agent`` with the same middleware, and the prebuilt LangGraph agent
with its ``pre_model_hook``), runs lesson 06's task through each with
:func:`course_utils.agentic.agents.run_task`, and returns the runs by name, ready for
:func:`course_utils.agentic.agents.compare_runs`.

The model comes from ``make_model(window)``, a function from a context window
to a chat model; by default :func:`course_utils.model.chat.get_chat_model`, which is
offline unless the environment variable ``COURSE_CHAT_MODEL`` names a real
provider (``"anthropic:claude-haiku-5-5"``). A real model ignores ``window``: its
window is its own, so "send everything" may not fail there.

>>> runs = run_strategies(names=["send everything"])  # doctest: +SKIP
>>> runs["send everything"].failed_turns  # doctest: +SKIP
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import (
    ClearToolUsesEdit,
    ContextEditingMiddleware,
    SummarizationMiddleware,
    before_model,
    wrap_model_call,
)
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import RemoveMessage, trim_messages
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from course_utils.core.args import check_int
from course_utils.agentic.agent_tools import TRIP_TOOLS
from course_utils.agentic.agents import (
    AGENT_SUMMARY_PROMPT,
    TRIP_SYSTEM_PROMPT,
    TaskRun,
    findings_summary,
    run_task,
)
from course_utils.model.chat import get_chat_model
from course_utils.core.i18n import PDI, RLI, _, direction
from course_utils.window.tokens import exact_counter

#: Lesson 06's context window, in tokens (cl100k_base, the "exact" counter).
WINDOW = 2048
#: The window of the run that has room for everything.
ROOMY_WINDOW = 100_000
#: The budget of lesson 06's trims.
TRIM_TOKENS = 1000

#: The strategies, in the order lesson 06 builds them; the names are the runs' names.
STRATEGIES = (
    "send everything",
    "send everything (window 100,000)",
    "summarise (1200 tokens, keep 4 messages)",
    "summarise (fraction 0.6, keep 4 messages)",
    "summarise, keeping tool findings",
    "clear tool uses (trigger 1200, keep 1)",
    "@before_model trim (1000)",
    "@wrap_model_call trim (1000)",
    "prebuilt agent, pre_model_hook (1000)",
)


#: Unicode's left-to-right isolate (U+2066); ``PDI`` ends it.
LRI = "\u2066"


def run_label(name: str) -> str:
    """A run's name as a learner reads it: its translation where the catalogue has one, else the name itself.

    The name stays the run's key (``run_strategies()["send everything"]``);
    only what is shown changes. Lesson 06's strategy names have Persian in
    the catalogue. In a right-to-left language a name without a translation
    (English data) comes isolated left to right and a translation right to
    left (as ``_()`` gives it), so brackets and digits stay in place inside a
    sentence of either direction; a name looked up already with ``_()`` is
    shown as it is.

    >>> run_label("send everything")
    'send everything'
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a run's name (a string), got {type(name).__name__}: {name!r:.80}")
    if RLI in name:
        return name
    label = _(name)  # a translation comes in its right-to-left isolate
    if label != name or direction() != "rtl":
        return label
    return f"{LRI}{name}{PDI}"


def _trim(messages: Sequence[Any]) -> list[Any]:
    """Lesson 06's safe trim: the newest TRIM_TOKENS tokens, starting on a request, ending on a request or results."""
    return trim_messages(messages, max_tokens=TRIM_TOKENS, token_counter=exact_counter, strategy="last",
                         start_on="human", end_on=("human", "tool"))


@before_model
def trim_history(state, runtime):
    """Trim the stored history (it rewrites the state: what it drops is gone)."""
    kept = _trim(state["messages"])
    if len(kept) == len(state["messages"]):
        return None
    return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *kept]}


@wrap_model_call
def trim_request(request, handler):
    """Trim only what this model call is sent (the stored history stays whole)."""
    return handler(request.override(messages=_trim(request.messages)))


def _summarising(model: BaseChatModel, **options: Any) -> SummarizationMiddleware:
    return SummarizationMiddleware(model, keep=("messages", 4), token_counter=exact_counter, **options)


def _agent(model: BaseChatModel, middleware: Sequence[Any] = ()) -> Any:
    return create_agent(model, tools=TRIP_TOOLS, system_prompt=TRIP_SYSTEM_PROMPT, middleware=list(middleware))


def _prebuilt(model: BaseChatModel) -> Any:
    # create_react_agent is deprecated in favour of create_agent; lesson 06 prints the warning, here it is
    # expected and silenced so a comparison cell's output stays the table.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from langgraph.prebuilt import create_react_agent

        return create_react_agent(model, TRIP_TOOLS, prompt=TRIP_SYSTEM_PROMPT,
                                  pre_model_hook=lambda state: {"llm_input_messages": _trim(state["messages"])})


def build_strategy(name: str, make_model: Callable[[int], BaseChatModel], window: int = WINDOW) -> Any:
    """The agent lesson 06 built for strategy ``name``, on a model from ``make_model``."""
    if name not in STRATEGIES:
        raise ValueError(f"name must be one of {STRATEGIES}, got {name!r:.80}")
    model = make_model(ROOMY_WINDOW if name == "send everything (window 100,000)" else window)
    if not isinstance(model, BaseChatModel):
        raise TypeError(f"make_model must return a chat model, got {type(model).__name__}: {model!r:.80}")
    middleware: list[Any] = []
    if name == "summarise (1200 tokens, keep 4 messages)":
        middleware = [_summarising(model, trigger=("tokens", 1200), summary_prompt=AGENT_SUMMARY_PROMPT)]
    elif name == "summarise (fraction 0.6, keep 4 messages)":
        middleware = [_summarising(model, trigger=("fraction", 0.6), summary_prompt=AGENT_SUMMARY_PROMPT)]
    elif name == "summarise, keeping tool findings":
        middleware = [_summarising(model, trigger=("tokens", 1200), summarizer=findings_summary)]
    elif name == "clear tool uses (trigger 1200, keep 1)":
        middleware = [ContextEditingMiddleware(edits=[ClearToolUsesEdit(trigger=1200, keep=1)],
                                               token_counter=exact_counter)]
    elif name == "@before_model trim (1000)":
        middleware = [trim_history]
    elif name == "@wrap_model_call trim (1000)":
        middleware = [trim_request]
    elif name == "prebuilt agent, pre_model_hook (1000)":
        return _prebuilt(model)
    return _agent(model, middleware)


def _default_model(window: int) -> BaseChatModel:
    return get_chat_model(context_window=window)


def run_strategies(
    make_model: Callable[[int], BaseChatModel] | None = None,
    *,
    names: Sequence[str] = STRATEGIES,
    window: int = WINDOW,
) -> dict[str, TaskRun]:
    """Run lesson 06's task through each strategy in ``names``; the runs by name, in order.

    ``make_model(window)`` gives a fresh chat model per run (default: the
    course's, offline unless ``COURSE_CHAT_MODEL`` says otherwise), so the
    same comparison reruns on a real provider:
    ``run_strategies(lambda window: init_chat_model("anthropic:claude-haiku-5-5"))``.
    """
    if make_model is None:
        make_model = _default_model
    if not callable(make_model):
        raise TypeError(f"make_model must be a function from a window to a chat model, got {make_model!r:.80}")
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise TypeError(f"names must be a list of strategy names, got {type(names).__name__}: {names!r:.80}")
    window = check_int(window, "window", minimum=1)
    return {name: run_task(build_strategy(name, make_model, window), name=name) for name in names}
