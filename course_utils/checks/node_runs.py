"""Running a learner's LangGraph node inside a check, and reading every model call it made (exercise 04).

A check calls the learner's node factory (:func:`make_node`), runs the node on a state or through
:func:`one_node_graph` turn by turn, and keeps each turn's history and model calls. :func:`bad_call` finds the
first call that was not the lesson's safe trim (:func:`ex04_trim`): every call counts, not only the last, so a
node that first sends the whole history and then the trimmed list is caught. :data:`SENT_MISTAKES` names the
usual ways it was not. :func:`distinct_caps` draws caps whose trims differ, so a node that ignores its
``max_tokens`` cannot pass, and :func:`file_leftover` reads a SQLite file back for a text the thread dropped.

>>> from langchain_core.messages import AIMessage, HumanMessage
>>> pairs([HumanMessage("hi"), AIMessage("hello")])
[('human', 'hi'), ('ai', 'hello')]
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage, trim_messages

from course_utils.agentic.checkpoints import checkpoints_holding, close_checkpointer, file_copies, sqlite_checkpointer
from course_utils.checks.kinds import same_messages
from course_utils.checks.machinery import describe, is_stub, ltr, message_ids, short_list
from course_utils.checks.questions import Case, Mistake, Rule
from course_utils.core.i18n import _
from course_utils.window.sequences import safe_trim_kwargs


def ex04_trim(messages: Sequence[BaseMessage], max_tokens: int) -> list[BaseMessage]:
    """The safe trim of lesson 04 (approximate counter): the reference exercise 05 compares with too."""
    return trim_messages(messages, **safe_trim_kwargs(max_tokens, "approximate"))


DIALOGUE = (
    "hi! I'm bob",
    "i like the celtics!",
    "i like how much they win",
    "what's my name?",
    "what NFL team do you think I like?",
    "i like the patriots!",
)


def empty_call(exc: BaseException, about: str) -> str | None:
    """The message for a node whose trim kept nothing: OfflineChatModel refuses an empty list with ValueError."""
    if not (isinstance(exc, ValueError) and str(exc).startswith("messages must not be empty")):
        return None
    return _("for {about}, your node sent the model an empty list, and the model refused it ({exc}). Your trim kept "
             "nothing: is the max_tokens you pass smaller than the one given, or did start_on (or end_on) drop "
             "every message? Trim with `max_tokens=max_tokens`, `strategy=\"last\"`, `start_on=\"human\"` and "
             "`include_system=True`.").format(about=about, exc=ltr(str(exc)))


def text_label(message: BaseMessage) -> str:
    """A message as a learner can recognise it: its type and the start of its text (ids in a graph are random)."""
    text = message.content if isinstance(message.content, str) else str(message.content)
    return f"{message.type}: {text[:24]!r}"


def node_messages(out: Any) -> list[Any] | None:
    """The messages of a node's update (``{"messages": ...}``), as a list, or None when it is not one."""
    if not isinstance(out, Mapping) or "messages" not in out:
        return None
    new = out["messages"]
    return [new] if isinstance(new, BaseMessage) else list(new) if isinstance(new, (list, tuple)) else None


def named(fn: Callable, like: Any, default: str) -> Callable:
    """``fn`` under the learner's function's name, so an error it raises names what the learner wrote."""
    fn.__name__ = getattr(like, "__name__", default)
    return fn


def distinct_caps(history: Sequence[BaseMessage], rng: random.Random, count: int, low: int = 30,
                  high: int = 200) -> list[int]:
    """``count`` caps drawn between ``low`` and ``high`` whose trims of ``history`` all differ (fewer if there are
    not that many), so a node that ignores its ``max_tokens`` cannot send the right list for more than one."""
    caps, seen = [], set()
    candidates = list(range(low, high + 1))
    rng.shuffle(candidates)
    for cap in candidates:
        kept = tuple(message_ids(ex04_trim(history, cap)))
        if kept not in seen:
            seen.add(kept)
            caps.append(cap)
        if len(caps) == count:
            break
    return caps


def make_node(q, factory, model, cap):
    """The learner's ``factory(model, max_tokens=cap)``: a node function, or stop saying what it returned."""
    node = q.call(factory, model, max_tokens=cap, about=f"(model, max_tokens={cap})")
    if not callable(node):
        q.stop(q.wrong(_("`{name}` should return the node function, but it returned {value}.").format(
            name=getattr(factory, "__name__", "the factory"), value=describe(node))))
    if is_stub(node):
        q.stop(q.not_attempted(_("the body of `{name}` is still `...`: write it.").format(
            name=getattr(node, '__name__', 'chatbot'))))
    return node


def bad_call(obs, case):
    """(turn, call number, what was sent, what should have been) for the first model call that was not the trimmed
    list, or None."""
    for turn in obs.get("sent_turns", obs["turns"]):
        expected = ex04_trim(turn["history"], case["cap"])
        for number, sent in enumerate(turn["calls"], start=1):
            if not same_messages(sent, expected):
                return turn, number, sent, expected
    return None


def first_turn(obs, test):
    """The first turn for which ``test(turn)`` is true, or None."""
    return next((t for t in obs["turns"] if test(t)), None)


def sent_test(kind: Callable[[list, list, list], bool]) -> Callable[[Any, Case], bool]:
    """A mistake's test on the first wrong model call: ``kind(sent, history, expected)``."""
    def test(obs, case):
        bad = bad_call(obs, case)
        return bad is not None and kind(bad[2], bad[0]["history"], bad[3])
    return test


def bad_call_details(obs, case) -> dict:
    turn, number, sent, expected = bad_call(obs, case)
    return {"where": turn["where"], "number": number, "sent": short_list([text_label(m) for m in sent], 5),
            "cap": case["cap"], "expected": short_list([text_label(m) for m in expected], 5)}


def _kept_from_the_start(sent, history, expected) -> bool:
    """strategy="first": the oldest message after the system prompt was sent, the newest was not."""
    body = [m for m in history if not isinstance(m, SystemMessage)]
    ids = {m.id for m in sent}
    return bool(body) and body[0].id in ids and body[-1].id not in ids


def _has_system(messages) -> bool:
    return any(isinstance(m, SystemMessage) for m in messages)


def _body_starts_off_human(sent, history, expected) -> bool:
    body = [m for m in sent if not isinstance(m, SystemMessage)]
    return bool(body) and not isinstance(body[0], HumanMessage)


#: What a model call was sent instead of the trimmed list: known mistakes, each with its hint (exercise 04 q2, q4).
SENT_MISTAKES = (
    Mistake("the whole history", "a model call was sent the whole history. Every call your node makes is sent "
            "(and billed): trim before `model.invoke`, and send the model only the trimmed list.",
            sent_test(lambda sent, history, expected: same_messages(sent, history))),
    Mistake("strategy first", "the user's latest question is missing from what the model was sent. Did you use "
            "strategy='first'? Keep the newest messages.",
            sent_test(_kept_from_the_start)),
    Mistake("no system prompt", "the system prompt is missing from what the model was sent; use "
            "include_system=True.",
            sent_test(lambda sent, history, expected: _has_system(history) and not _has_system(sent))),
    Mistake("no start_on", "after the system prompt, what the model was sent starts with an AI message; use "
            "start_on=\"human\".", sent_test(_body_starts_off_human)),
)


def one_node_graph(node: Callable, state_type: type, saver: Any = None) -> Any:
    """START -> chatbot -> END with a checkpointer, as in lesson 04."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, StateGraph

    builder = StateGraph(state_type)
    builder.add_node("chatbot", node)
    builder.add_edge(START, "chatbot")
    builder.add_edge("chatbot", END)
    return builder.compile(checkpointer=saver if saver is not None else InMemorySaver())


def pairs(messages: Sequence[BaseMessage]) -> list[tuple[str, Any]]:
    """(type, content) of each message: what a thread stores, whatever ids the graph gave."""
    return [(m.type, m.content) for m in messages]


def every_rule(name: str, items: str, key: str, test, message: str, details=None) -> Rule:
    """A rule that ``test(item)`` holds for every item of ``obs[items]``: it fails on the first item where it is
    false, and its message gets that item's ``key`` and ``details(item)`` (:func:`turn_rule`, and ``run_rule`` of
    :mod:`course_utils.checks.summary_runs`)."""
    def failing(obs):
        return next((item for item in obs[items] if not test(item)), None)

    def holds(obs, case):
        return failing(obs) is None

    def said(obs, case):
        item = failing(obs)
        return {key: item[key], **(details(item) if details else {})}
    return Rule(name, holds, message, said)


def turn_rule(name: str, test, message: str, details=None) -> Rule:
    """A rule on the graph's turns: it fails on the first turn where ``test(turn)`` is false, and its message gets
    that turn's number and ``details(turn)``."""
    return every_rule(name, "turns", "turn", test, message, details)


def labels(messages) -> str:
    """A short list of messages as a learner recognises them."""
    return short_list([text_label(m) for m in messages], 5)


def file_leftover(db: Path, thread: str, ever: Sequence[str], stored: Sequence[BaseMessage]) -> dict | None:
    """What the file still holds of a text the thread dropped, read back on a new connection; None if nothing.

    ``{"kind": "checkpoints", "text", "holding", "total"}`` when earlier checkpoints hold it,
    ``{"kind": "bytes", "text", "copies"}`` when only the file's bytes (or its write-ahead log) do.
    """
    kept = {m.content for m in stored}
    dropped = [text for text in dict.fromkeys(ever) if text not in kept]
    reader = sqlite_checkpointer(db)
    try:
        for text in dropped:
            held = checkpoints_holding(reader, text, thread)
            if held.holding:
                return {"kind": "checkpoints", "text": text, "holding": held.holding, "total": held.total}
    finally:
        close_checkpointer(reader)
    for text in dropped:
        copies = file_copies(db, text)
        if copies:
            return {"kind": "bytes", "text": text, "copies": copies}
    return None
