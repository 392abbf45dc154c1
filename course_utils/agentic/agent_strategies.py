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
from collections.abc import Callable, Mapping, Sequence
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

from course_utils.core.args import check_instance, check_int
from course_utils.agentic.agent_tools import TRIP_TOOLS
from course_utils.agentic.agents import (
    AGENT_SUMMARY_PROMPT,
    TRIP_SYSTEM_PROMPT,
    StrategyRow,
    TaskRun,
    calls_without_their_request,
    findings_summary,
    message_counter,
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


# --- lesson 06b's findings in sentences (Persian in the Persian edition, through course_utils.core.i18n) ---------


def facts_text(runs: Mapping[str, TaskRun]) -> str:
    """One line per run: how many of the probe facts were still answerable at the end.

    >>> facts_text({})
    ''
    """
    if not isinstance(runs, Mapping):
        raise TypeError(f"runs must be a dict of runs by name (as run_strategies returns), got {type(runs).__name__}")
    return "\n".join(
        _("{name}: {answered}/{asked} facts").format(
            name=run_label(name), answered=check_instance(run, "runs", TaskRun, "run_task").facts_answered, asked=len(run.probes))
        for name, run in runs.items()
    )


def tool_results_text(results: Sequence[Any]) -> str:
    """How many tokens some tool results take by themselves (each counted as one message of a call adds).

    >>> from langchain_core.messages import ToolMessage
    >>> tool_results_text([ToolMessage("sunny", tool_call_id="a"), ToolMessage("rain", tool_call_id="b")])
    'the two tool results alone: 13 tokens'
    """
    if isinstance(results, str) or not isinstance(results, Sequence):
        raise TypeError(f"results must be a list of tool messages, got {type(results).__name__}: {results!r:.80}")
    tokens = sum(map(message_counter(), results))
    if len(results) == 2:
        return _("the two tool results alone: {tokens} tokens").format(tokens=tokens)
    return _("the {count} tool results alone: {tokens} tokens").format(count=len(results), tokens=tokens)


def missing_requests_text(run: TaskRun) -> str:
    """Which agent calls were not sent the request of their own turn (a summary took it), in a sentence."""
    missing = calls_without_their_request(check_instance(run, "run", TaskRun, "run_task"))
    return _("calls not sent the request of their own turn: {calls}").format(calls=missing)


#: The comparison's rows that :func:`comparison_text` speaks about, by the names of :data:`STRATEGIES`.
TRIMS = ("@before_model trim (1000)", "@wrap_model_call trim (1000)", "prebuilt agent, pre_model_hook (1000)")


def comparison_text(rows: Sequence[StrategyRow], everything: TaskRun, window: int = WINDOW) -> str:
    """Lesson 06b's conclusions from the comparison table, with its numbers.

    ``rows`` is :func:`course_utils.agentic.agents.compare_runs` over (at least) every
    strategy of :data:`STRATEGIES`; ``everything`` is the "send everything"
    run, whose last call the model refused when it did not fit ``window``.
    """
    table = {check_instance(row, "rows", StrategyRow, "compare_runs").strategy: row for row in rows}
    missing = [name for name in STRATEGIES if name not in table]
    if missing:
        raise ValueError(f"rows must hold a row for every strategy of run_strategies; missing {missing}")
    check_instance(everything, "everything", TaskRun, "run_task")
    window = check_int(window, "window", minimum=1)
    roomy, clearing = table["send everything (window 100,000)"], table["clear tool uses (trigger 1200, keep 1)"]
    summary, findings = table["summarise (1200 tokens, keep 4 messages)"], table["summarise, keeping tool findings"]
    trims = [table[name] for name in TRIMS]
    last = everything.agent_calls[-1].input_tokens if everything.agent_calls else None
    if everything.failed_turns and last is not None:
        first = _("Sending everything fails on the last call ({tokens} input tokens, as the model counted them, "
                  "against a window of {window}); with room for it, it sends {roomy}.")
    else:
        first = _("Sending everything does not fail here (its last call: {tokens} input tokens, as the model "
                  "counted them, against a window of {window}); with room for it, it sends {roomy}.")
    lines = [
        first.format(tokens=f"{last:,}" if last is not None else "?", window=f"{window:,}", roomy=f"{roomy.tokens_sent:,}"),
        _("The three trims send the fewest tokens ({sent}) and keep {answered} facts of {asked}. "
          "Clearing sends {cleared} and keeps {cleared_facts}.").format(
            sent=", ".join(f"{t.tokens_sent:,}" for t in trims), answered=trims[0].facts_answered,
            asked=trims[0].facts_asked, cleared=f"{clearing.tokens_sent:,}", cleared_facts=clearing.facts_answered),
        _("Summarising with the model's own summary sends {sent} plus {summary_tokens} for the summary call and "
          "keeps {answered}; told to keep the findings it sends {findings_sent} and keeps {findings_answered}.").format(
            sent=f"{summary.tokens_sent:,}", summary_tokens=f"{summary.summary_tokens:,}", answered=summary.facts_answered,
            findings_sent=f"{findings.tokens_sent:,}", findings_answered=findings.facts_answered),
    ]
    return "\n".join(lines)
