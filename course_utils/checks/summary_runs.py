"""Exercise 04 q5's summary node run inside a check: on a state, and in the how-to's graph, every run recorded.

:func:`run` calls a learner's ``make_summarize_node(model, keep_last)`` node on one case of
:data:`course_utils.checks.ex04.Q5` and returns an observation ``{"runs": [...], "graph": ...}``. Each run
holds what the node was given (the state's messages, its summary, keep_last), every model call it made, what it
returned and :func:`reference`, what the how-to's node does with that state (its prompt, what it sends, the reply's
text, what ``valid_tail`` keeps and the removals). In the how-to's graph (:data:`BOB_DIALOGUE`) each run of the
node is recorded the same way, and ``"graph"`` holds the thread read after each turn. :func:`run_rule` and
:func:`graph_rule` make the question's rules of them; :func:`bad_call`, :func:`new_orphans` and the others are what
they read, and what its known mistakes test.

>>> from langchain_core.messages import AIMessage, HumanMessage
>>> sorted(reference([HumanMessage("hi", id="h1"), AIMessage("hello", id="a1"), HumanMessage("bye", id="h2"),
...                   AIMessage("ciao", id="a2")], "", 2)["removed"])
['a1', 'h1']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, RemoveMessage, SystemMessage

from course_utils.checks.kinds import same_messages, snapshot
from course_utils.checks.machinery import describe, is_stub, short_list
from course_utils.checks.node_runs import every_rule, named, text_label
from course_utils.checks.questions import Case, Rule
from course_utils.core.i18n import _
from course_utils.window.sequences import orphaned_tool_messages

#: The how-to's dialogue: turn 4 makes 8 messages (more than 6), so the graph summarises; turn 5 asks the name,
#: which only the summary still holds.
BOB_DIALOGUE = ("hi! I'm bob", "what's my name?", "i like the celtics!", "i like how much they win", "what's my name?")


def reference(history: Sequence[BaseMessage], summary: str, keep_last: int) -> dict:
    """What the how-to's node does with this state: the prompt, what it sends, the reply's text, what it removes."""
    from course_utils.agentic.graphs import CREATE_SUMMARY_PROMPT, EXTEND_SUMMARY_PROMPT
    from course_utils.model.chat import OfflineChatModel
    from course_utils.window.sequences import valid_tail

    prompt = EXTEND_SUMMARY_PROMPT.format(summary=summary) if summary else CREATE_SUMMARY_PROMPT
    sent = [*history, HumanMessage(prompt)]
    kept = valid_tail(history, keep_last)
    return {"prompt": prompt, "sent": sent, "kept": kept,
            "removed": [m.id for m in history[: len(history) - len(kept)]],
            "reply": OfflineChatModel(token_counter="approximate").invoke(sent).content}


def summary_node(q, factory, model, keep_last: int):
    """The learner's ``factory(model, keep_last=...)``: a node function, or stop saying what it returned."""
    node = q.call(factory, model, keep_last=keep_last, about=f"(model, keep_last={keep_last})")
    if not callable(node):
        q.stop(q.wrong(_("`{name}` should return the node function, but it returned {value}.").format(
            name="make_summarize_node", value=describe(node))))
    if is_stub(node):
        q.stop(q.not_attempted(_("the body of `{name}` is still `...`: write it.").format(
            name=getattr(node, '__name__', 'node'))))
    return node


def record(node, model, state: dict, keep_last: int, where: str, call: Callable) -> dict:
    """One run of the node on ``state``: what it was given, every model call it made, what it returned, and the
    reference for that state."""
    history = list(state.get("messages", []))
    summary = state.get("summary", "") or ""
    before = snapshot(history)
    made = len(model.calls)
    out = call(node, state)
    changed = snapshot(state.get("messages", [])) != before or (state.get("summary", "") or "") != summary
    return {"where": where, "history": history, "summary": summary, "keep_last": keep_last, "out": out,
            "calls": list(model.calls[made:]), "changed": changed,
            "reference": reference(history, summary, keep_last)}


def run_direct(q, factory, case) -> dict:
    from course_utils.model.chat import OfflineChatModel

    model = OfflineChatModel(token_counter="approximate")
    node = summary_node(q, factory, model, case["keep_last"])
    state = {"messages": list(case["history"]), "summary": case["summary"]}
    run = record(node, model, state, case["keep_last"], _("for {about}").format(about=case.label),
                     lambda node, state: q.call(node, state, about=case.label))
    return {"runs": [run], "graph": None}


def run_graph(q, factory, case) -> dict:
    """The how-to's graph on the Bob dialogue: each run of the summary node recorded, the thread read after each
    turn."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, StateGraph

    from course_utils.agentic.graphs import SUMMARY_PREFIX, SummaryState
    from course_utils.model.chat import OfflineChatModel

    model = OfflineChatModel(token_counter="approximate")
    node = summary_node(q, factory, model, case["keep_last"])
    runs: list[dict] = []
    turn = 0

    def call_model(state):
        summary = state.get("summary", "")
        messages = state["messages"]
        if summary:
            messages = [SystemMessage(SUMMARY_PREFIX + summary), *messages]
        return {"messages": [model.invoke(messages)]}

    def should_continue(state):
        return "summarize_conversation" if len(state["messages"]) > 6 else END

    def summarize_conversation(state):
        run = record(node, model, state, case["keep_last"], _("in a graph, on turn {turn}").format(turn=turn),
                         lambda node, state: node(state))
        runs.append(run)
        return run["out"]

    builder = StateGraph(SummaryState)
    builder.add_node("conversation", call_model)
    builder.add_node("summarize_conversation", summarize_conversation)
    builder.add_edge(START, "conversation")
    builder.add_conditional_edges("conversation", should_continue, ["summarize_conversation", END])
    builder.add_edge("summarize_conversation", END)
    graph = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": case["thread"]}}
    seen = {}
    for turn, text in enumerate(BOB_DIALOGUE, start=1):
        run_turn = named(lambda: graph.invoke({"messages": [HumanMessage(text)]}, config), node,
                         "summarize_conversation")
        reply = q.call(run_turn, about=_("turn {turn} ({text!r}) of the how-to's graph").format(
            turn=turn, text=text))["messages"][-1]
        values = graph.get_state(config).values
        seen[turn] = {"stored": len(values.get("messages", [])), "summary": values.get("summary", ""),
                      "reply": reply.content}
    return {"runs": runs, "graph": seen}


def run(q, answers, case):
    (factory,) = answers
    return (run_graph if case["graph"] else run_direct)(q, factory, case)


# --- what the rules and mistakes read in one run of the node ------------------------------------

def first_run(obs, test):
    """The first run of the node for which ``test(run)`` is true, or None."""
    return next((run for run in obs["runs"] if test(run)), None)


def update(run) -> tuple[Any, list] | None:
    """(summary, messages) of the node's update, or None when it is not `{"summary": ..., "messages": [...]}`."""
    out = run["out"]
    if not isinstance(out, Mapping) or "summary" not in out or "messages" not in out:
        return None
    new = out["messages"]
    if isinstance(new, BaseMessage):
        return out["summary"], [new]
    # a tuple is not a list of messages to add_messages: it reads it as one ("role", "text") message
    return (out["summary"], list(new)) if isinstance(new, list) else None


def removed(run) -> list:
    return [m.id for m in update(run)[1]]


def call_problem(run, sent) -> str | None:
    """What is wrong with one model call of a run (the how-to sends the state's messages, then its prompt)."""
    expected = run["reference"]["prompt"]
    last = sent[-1] if sent else None
    if not isinstance(last, HumanMessage) or last.content != expected:
        return _("the last message sent to the model should be a HumanMessage with the how-to's prompt "
                 "({prompt}); it was {got}.").format(
            prompt='EXTEND_SUMMARY_PROMPT.format(summary=...)' if run["summary"] else 'CREATE_SUMMARY_PROMPT',
            got=describe(last.content if isinstance(last, BaseMessage) else last))
    if not same_messages(sent[:-1], run["history"]):
        return _("send the model the state's messages, then the prompt: `state[\"messages\"] + "
                 "[HumanMessage(prompt)]`. It was sent {count} messages before the prompt instead of "
                 "{expected}.").format(count=len(sent) - 1, expected=len(run["history"]))
    return None


def bad_call(run) -> tuple[int, str] | None:
    """(number, problem) of the run's first model call that was not the how-to's, or None: every call counts."""
    for number, sent in enumerate(run["calls"], start=1):
        problem = call_problem(run, sent)
        if problem:
            return number, problem
    return None


def bad_call_details(run) -> dict:
    number, problem = bad_call(run)
    where = run["where"] if len(run["calls"]) == 1 else _("{where}, model call {number}").format(
        where=run["where"], number=number)
    return {"where": where, "problem": problem}


def kept_after(run) -> list[BaseMessage]:
    """The state's messages that the update leaves."""
    gone = set(removed(run))
    return [m for m in run["history"] if m.id not in gone]


def new_orphans(run) -> list[BaseMessage]:
    """Tool results the update leaves without their tool call (the state's own orphans aside)."""
    already = {id(m) for m in orphaned_tool_messages(run["history"])}
    return [m for m in orphaned_tool_messages(kept_after(run)) if id(m) not in already]


def orphan_details(run) -> dict:
    kept = kept_after(run)
    return {"keep_last": len(kept), "tail": short_list([text_label(m) for m in kept], 4),
            "orphans": len(new_orphans(run)), "kept": len(run["reference"]["kept"])}


def removal_details(run) -> dict:
    ids, reference = removed(run), run["reference"]
    return {"removed": len(ids), "count": len(run["history"]) - len(set(ids)),
            "keep_last": run["keep_last"], "kept": len(reference["kept"]), "expected": len(reference["removed"])}


def returns_kept(run) -> bool:
    """The update's "messages" are the messages to keep (the plain slice or the valid tail), and no RemoveMessage."""
    new = update(run)[1]
    return (bool(new) and not any(isinstance(m, RemoveMessage) for m in new)
            and (same_messages(new, run["history"][-run["keep_last"]:])
                 or same_messages(new, run["reference"]["kept"])))


def any_call(obs, test) -> bool:
    """True when ``test(run, sent)`` holds for a model call of any run."""
    return any(test(run, sent) for run in obs["runs"] for sent in run["calls"])


def last_text(sent) -> str:
    return sent[-1].content if sent and isinstance(sent[-1], BaseMessage) and isinstance(sent[-1].content, str) else ""


def run_rule(name: str, test, message: str, details=None) -> Rule:
    """A rule on every run of the node: it fails on the first run where ``test(run)`` is false; its message gets
    that run's ``{where}`` and ``details(run)`` (which may name a ``where`` of its own)."""
    return every_rule(name, "runs", "where", test, message, details)


def graph_rule(name: str, test, message: str, details) -> Rule:
    """A rule on the how-to's graph (the states called directly have none): ``test(turns)`` on the thread read
    after each turn."""
    return Rule(name, lambda obs, case: obs["graph"] is None or test(obs["graph"]), message,
                lambda obs, case: details(obs["graph"]))


def prompts() -> tuple[str, str]:
    """The how-to's two prompts: (create, extend)."""
    from course_utils.agentic.graphs import CREATE_SUMMARY_PROMPT, EXTEND_SUMMARY_PROMPT

    return CREATE_SUMMARY_PROMPT, EXTEND_SUMMARY_PROMPT


def prompt_is(prompt_test) -> Callable[[Any, Case], bool]:
    return lambda obs, case: any_call(obs, lambda run, sent: prompt_test(run, last_text(sent)))
