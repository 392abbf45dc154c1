"""Exercise 04: LangGraph integration (``exercises/04_..._exercise.ipynb``, after ``notebooks/04_langgraph_integration.ipynb``).

The notebook binds its questions with ``from course_utils.checks import ex04``. Questions 1-3
trim inside a node; 4 and 5 change what the state stores: a node that returns the list to
keep (``add_messages`` merges it, so nothing is removed) and a privacy rule that the SQLite
file, read back, must obey (RemoveMessage leaves earlier checkpoints; erasing deletes the
thread), and the how-to's summary node, which must keep a valid tail.

Questions 1, 2, 4 and 5 are data (:mod:`course_utils.checks.questions`): cases drawn at check time (states,
thread ids, caps whose trims differ, keep_last values where a plain slice orphans a tool result), rules checked on
every model call of every turn (:mod:`course_utils.checks.node_runs`; q5's on every run of the summary node), and
known mistakes, each with its hint.
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    trim_messages,
)

from course_utils.checks.questions import Case, ChoiceQuestion, CodeQuestion, Mistake, Rule
from course_utils.checks.reason_lists import EX04_Q3
from course_utils.checks.ex03 import ids_answer
from course_utils.checks.kinds import (
    counts_of,
    same_messages,
    snapshot,
    random_conversation,
)
from course_utils.checks.machinery import message_ids, describe, Exercise
from course_utils.checks.node_runs import (
    DIALOGUE as EX04_DIALOGUE,
    SENT_MISTAKES,
    bad_call,
    bad_call_details,
    distinct_caps,
    empty_call,
    ex04_trim,
    file_leftover,
    first_turn,
    labels,
    make_node,
    named,
    node_messages,
    one_node_graph,
    pairs,
    turn_rule,
)
from course_utils.agentic.checkpoints import close_checkpointer, sqlite_checkpointer
from course_utils.checks import summary_runs as sr
from course_utils.checks.summary_runs import BOB_DIALOGUE
from course_utils.core.i18n import _
from course_utils.window.sequences import orphaned_tool_messages

ex04 = Exercise("04", "LangGraph integration", "04_langgraph_integration")
EX04_CAP = 128


def ex04_state_messages() -> list[BaseMessage]:
    """The state of exercise 04, question 1: a system prompt and 21 messages, 220 tokens with the dummy counter."""
    messages: list[BaseMessage] = [SystemMessage("You are a helpful assistant.", id="sys")]
    for i in range(1, 12):
        messages.append(HumanMessage(f"question {i}", id=f"h{i}"))
        if i < 11:
            messages.append(AIMessage(f"answer {i}", id=f"a{i}"))
    return messages


def _q1_trim(**options) -> list[str]:
    """The ids trim_messages keeps of question 1's state at the cap of 128 (dummy counter), with ``options``."""
    from course_utils.window.tokens import dummy_token_counter

    return message_ids(trim_messages(ex04_state_messages(), max_tokens=EX04_CAP, token_counter=dummy_token_counter,
                                     strategy="last", **options))


def _q1_sent() -> list[str]:
    """The reference: what the lesson's node sends (start_on="human", include_system=True)."""
    return _q1_trim(start_on="human", include_system=True)


def _q1_prepare(q, answers):
    (sent_ids,) = answers
    ids = ids_answer(q, sent_ids, "sent_ids")
    known = set(message_ids(ex04_state_messages()))
    unknown = [i for i in ids if i not in known]
    if unknown:
        q.stop(q.wrong(_("{unknown} are not ids of the state; use the ids of its messages ({first} ... {last}).")
                       .format(unknown=unknown, first=message_ids(ex04_state_messages())[0], last="h11")))
    return (ids,)


def _q1_is(variant: Callable[[], list[str]]) -> Callable[[list[str], Any], bool]:
    """A mistake's test: the learner's ids are what ``variant`` keeps, and that is not the right answer."""
    return lambda ids, case: ids == variant() != _q1_sent()


Q1 = CodeQuestion(
    "what the node sends",
    ("sent_ids",),
    hints=(
        "Every message costs 10 with the dummy counter. With include_system=True the system prompt is kept "
        "first, and the rest of the 128 is filled from the end.",
        "Then start_on=\"human\" drops messages from the front of the kept run until it begins with a human one.",
    ),
    prepare=_q1_prepare,
    cases=lambda rng: [Case(_("the state of 22 messages and max_tokens={cap}").format(cap=EX04_CAP))],
    run=lambda q, answers, case: answers[0],
    rules=(
        Rule("what the node sends", lambda ids, case: ids == _q1_sent(),
             "{case}: the node would send {count} messages; count 10 tokens a message, system first, then from "
             "the end.", lambda ids, case: {"count": len(_q1_sent())}),
    ),
    mistakes=(
        Mistake("no system prompt", "the system prompt is missing: include_system=True keeps it, and it counts "
                "against the 128.", _q1_is(lambda: _q1_trim(start_on="human"))),
        Mistake("no start_on", "that does not start with a human message. This cap happens to start on one "
                "anyway; look again.", _q1_is(lambda: _q1_trim(include_system=True))),
        Mistake("neither", "that starts with an AIMessage and drops the system prompt: apply start_on=\"human\" "
                "and include_system=True.", _q1_is(lambda: _q1_trim())),
        Mistake("the whole state", "that is the whole state (220 tokens). The node sends only what fits in 128.",
                _q1_is(lambda: message_ids(ex04_state_messages()))),
        Mistake("newest first", "right messages, but trim_messages keeps chronological order.",
                _q1_is(lambda: _q1_sent()[::-1])),
        Mistake("repeated", "each message is sent once: your list names one of them twice.",
                lambda ids, case: len(set(ids)) != len(ids)),
        Mistake("over the cap", "those messages cost more than the cap of 128 tokens (10 a message).",
                lambda ids, case: 10 * len(ids) > EX04_CAP),
        Mistake("out of order", "keep the messages in the state's order.",
                lambda ids, case: sorted(ids, key=message_ids(ex04_state_messages()).index) != ids),
    ),
    praise="the node sends 12 messages (120 tokens <= 128): the system prompt and h6 ... h11. The state keeps all "
           "22 (220 tokens).",
    seeds=1,  # a count by hand: question 2 is the node
)
Q1.register(ex04)


#: Question 2: the caps the node is made with for the fixed states it is called on directly, and in the graph.
EX04_Q2_CAPS = (80, 100)
EX04_Q2_GRAPH_CAP = 40
#: Two states where leaving out start_on or include_system changes what is sent; one more is drawn per check.
EX04_Q2_SEEDS = (51, 52)


def _q2_cases(rng: random.Random) -> list[Case]:
    """States the node is called on directly (two fixed, one drawn now at caps whose trims differ), then the
    6-turn dialogue in a graph."""
    drawn = random_conversation(rng.randrange(1000, 100_000), turns=7, system=True, tools=False, end_with_ai=False)
    states = [(random_conversation(seed, turns=7, system=True, tools=False, end_with_ai=False), cap)
              for seed, cap in zip(EX04_Q2_SEEDS, EX04_Q2_CAPS)]
    states += [(drawn, cap) for cap in distinct_caps(drawn, rng, 2, 60, 160)]
    cases = []
    for history, cap in states:
        cases.append(Case(_("a state of {counts} and max_tokens={cap}").format(counts=counts_of(history), cap=cap),
                          {"graph": False, "history": history, "cap": cap}))
    thread = f"thread-{rng.randrange(1000, 10_000)}"
    cases.append(Case(_("a graph with a checkpointer, thread {thread!r}, max_tokens={cap}").format(
        thread=thread, cap=EX04_Q2_GRAPH_CAP), {"graph": True, "thread": thread, "cap": EX04_Q2_GRAPH_CAP}))
    return cases


def _q2_direct(q, factory, case) -> dict:
    """The node called on one state, as LangGraph would: one turn, with every model call it made."""
    from course_utils.model.chat import OfflineChatModel

    # The check's own caps can leave only the system prompt when the last question is long: that is
    # the trim's result, not a mistake, so this model answers it (a provider refuses it: lesson 06).
    model = OfflineChatModel(token_counter="approximate", allow_system_only=True)
    node = make_node(q, factory, model, case["cap"])
    history = case["history"]
    state = {"messages": list(history)}
    out = q.call(node, state, about=case.label, explain=empty_call)
    new = node_messages(out)
    if new is None:
        q.stop(q.wrong(_("a node returns a dict of updates, `{{\"messages\": [reply]}}`; yours returned "
                         "{value}.").format(value=describe(out))))
    changed = snapshot(state["messages"]) != snapshot(history)
    where = _("for {about}").format(about=case.label)
    return {"turns": [{"where": where, "history": history, "calls": model.calls, "new": new,
                       "changed": len(state["messages"]) if changed else None, "stored": None, "turn": 1}]}


def _q2_graph(q, factory, case) -> dict:
    """The node in a graph with a checkpointer, as in the lesson: the 6-turn dialogue, one observation a turn."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import MessagesState

    from course_utils.model.chat import OfflineChatModel

    model = OfflineChatModel(token_counter="approximate")
    node = make_node(q, factory, model, case["cap"])
    graph = one_node_graph(node, MessagesState, InMemorySaver())
    config = {"configurable": {"thread_id": case["thread"]}}
    turns = []
    for turn, text in enumerate(EX04_DIALOGUE, start=1):
        before = list(graph.get_state(config).values.get("messages", []))
        made = len(model.calls)
        run_turn = named(lambda: graph.invoke({"messages": [HumanMessage(text)]}, config), node, "chatbot")
        q.call(run_turn, about=_("turn {turn} ({text!r}) of a graph").format(turn=turn, text=text),
               explain=empty_call)
        stored = list(graph.get_state(config).values.get("messages", []))
        history = [*before, stored[len(before)]] if len(stored) > len(before) else [*before, HumanMessage(text)]
        turns.append({"where": _("in a graph, on turn {turn}").format(turn=turn), "history": history,
                      "calls": model.calls[made:], "new": None, "changed": None, "stored": len(stored),
                      "turn": turn})
        if len(stored) != 2 * turn:
            break  # the history is already lost: the rules say so
    return {"turns": turns}


def _q2_run(q, answers, case):
    (factory,) = answers
    return (_q2_graph if case["graph"] else _q2_direct)(q, factory, case)


Q2 = CodeQuestion(
    "trim inside the node",
    ("make_chatbot_node",),
    hints=(
        "Never write to `state[\"messages\"]` (no `[:] =`, `del`, `.clear()`, `.append`): the checkpointer "
        "stores that very list. Build a new one with `trim_messages(state[\"messages\"], ...)`.",
        "Send only the trimmed list to `model.invoke`, and return only the reply: `{\"messages\": [reply]}`; "
        "add_messages appends it to the full history.",
    ),
    prepare=lambda q, answers: (q.need_function(answers[0], "make_chatbot_node"),),
    cases=_q2_cases,
    run=_q2_run,
    rules=(
        Rule("the state is left alone", lambda obs, case: first_turn(obs, lambda t: t["changed"] is not None) is None,
             "{case}: your node changed `state[\"messages\"]` in place (it now holds {count} messages instead of "
             "{expected}). The checkpointer stores that list, so the history is lost. Trim into a new list instead.",
             lambda obs, case: {"count": obs["turns"][0]["changed"], "expected": len(case["history"])}),
        Rule("no RemoveMessage", lambda obs, case: first_turn(
            obs, lambda t: any(isinstance(m, RemoveMessage) for m in t["new"] or ())) is None,
             "{case}: your node returns RemoveMessage updates: they delete messages from the stored state. "
             "Trimming is for the model call only; return just the reply."),
        Rule("the model is called", lambda obs, case: first_turn(obs, lambda t: not t["calls"]) is None,
             "{case}: your node did not call `model.invoke`."),
        Rule("every call is sent the trimmed list", lambda obs, case: bad_call(obs, case) is None,
             "{where}, model call {number} was sent {sent}; trimming to {cap} tokens (approximate counter, strategy "
             "'last', start_on 'human', include_system) gives {expected}. Every call your node makes is sent (and "
             "billed): send only the trimmed list.", bad_call_details),
        Rule("one call a turn", lambda obs, case: first_turn(obs, lambda t: len(t["calls"]) > 1) is None,
             "{case}: your node called the model {count} times for one turn: every call is sent (and billed), so "
             "send it the trimmed list once.",
             lambda obs, case: {"count": len(first_turn(obs, lambda t: len(t["calls"]) > 1)["calls"])}),
        Rule("the reply is returned", lambda obs, case: first_turn(
            obs, lambda t: t["new"] is not None and (not t["new"] or not isinstance(t["new"][-1], AIMessage))) is None,
             "{case}: return the model's reply in the update: `{{\"messages\": [reply]}}`."),
        Rule("the thread keeps every message", lambda obs, case: first_turn(
            obs, lambda t: t["stored"] is not None and t["stored"] != 2 * t["turn"]) is None,
             "{case}: after turn {turn} the thread stores {count} messages instead of {expected}: your node loses "
             "history. The state must keep every message; only the model call is trimmed.",
             lambda obs, case: (lambda t: {"turn": t["turn"], "count": t["stored"], "expected": 2 * t["turn"]})(
                 first_turn(obs, lambda t: t["stored"] is not None and t["stored"] != 2 * t["turn"]))),
    ),
    mistakes=SENT_MISTAKES,
    praise="the node leaves `state[\"messages\"]` alone, sends the model only the trimmed list on every call, and "
           "in a graph with a checkpointer the thread keeps all 12 messages of a 6-turn dialogue.",
    seeds=1,  # two states and a thread id drawn now
)
Q2.register(ex04)


EX04_Q3_OPTIONS = {
    "a": "The checkpointer lost the early messages of the thread.",
    "b": "trim_messages deleted \"hi! I'm bob\" from the state.",
    "c": "The model's context window was exceeded, so it ignored the history.",
    "d": "The thread's stored state still holds \"hi! I'm bob\", but the trimmed list sent to the model does not.",
}


_ex04_q3 = ChoiceQuestion(
    "why does it forget?",
    hints=(
        "Compare `stored_messages(...)` (what the thread keeps) with `model.calls[-1]` (what the model was sent).",
        "There are two spaces: the state, for keeping; the trimmed list, for this one call.",
    ),
    options=EX04_Q3_OPTIONS,
    answer="d",
    feedback={
        "a": "look at `stored_messages(graph, thread)`: the first message is still \"hi! I'm bob\".",
        "b": "trim_messages returns a new list; it never changes the list it is given, let alone the state.",
        "c": "the trimmed list is far below the window; the model answered normally, from what it was sent.",
    },
    praise="two spaces: the state keeps everything, the model sees only the trimmed list. To remember the name "
    "past the cap, summarise (the how-to's summary node) or raise the cap.",
    statements=EX04_Q3,
).register(ex04)

# --- question 4: a node that means to store less, and removes nothing --------------------------

EX04_FORGET_CAP = 40


#: Question 4: the caps the node is made with in the SQLite graph (one drawn per check) and for a direct call.
EX04_Q4_CAPS = (40, 45, 50)


def _q4_cases(rng: random.Random) -> list[Case]:
    """A state the node is called on directly (drawn now), then the dialogue in a SQLite graph: thread and cap drawn."""
    history = random_conversation(rng.randrange(1000, 1_000_000), turns=6, system=True, tools=False,
                                  end_with_ai=False)
    thread, cap = f"thread-{rng.randrange(1000, 10_000)}", rng.choice(EX04_Q4_CAPS)
    return [
        *(Case(_("a state of {counts} and max_tokens={cap}").format(counts=counts_of(history), cap=direct),
               {"graph": False, "history": history, "cap": direct})
          for direct in distinct_caps(history, rng, 3, 55, 200)),
        Case(_("a graph with a SQLite checkpointer, thread {thread!r}, max_tokens={cap}").format(
            thread=thread, cap=cap),
             {"graph": True, "thread": thread, "cap": cap}),
    ]


def _q4_prepare(q, answers):
    factory, erase = answers
    return q.need_function(factory, "make_forgetful_node"), q.need_function(erase, "erase_history")


def _q4_direct(q, answers, case) -> dict:
    """Called directly, the node must not change the state it is given (that is question 2's bug)."""
    from course_utils.model.chat import OfflineChatModel

    # The check's own caps can leave only the system prompt when the last question is long: that is
    # the trim's result, not a mistake, so this model answers it (a provider refuses it: lesson 06).
    model = OfflineChatModel(token_counter="approximate", allow_system_only=True)
    node = make_node(q, answers[0], model, case["cap"])
    history = case["history"]
    state = {"messages": list(history)}
    out = q.call(node, state, about=case.label, explain=empty_call)
    if node_messages(out) is None:
        q.stop(q.wrong(_("a node returns a dict of updates, `{{\"messages\": [...]}}`; yours returned {value}.").format(
            value=describe(out))))
    sent = {"where": _("for {about}").format(about=case.label), "history": history, "calls": model.calls}
    return {"changed": snapshot(state["messages"]) != snapshot(history), "turns": [], "sent_turns": [sent]}


def _q4_graph(q, answers, case) -> dict:
    """The dialogue in a SQLite graph; after every turn, ``erase_history`` and the file read back."""
    factory, erase = answers
    with tempfile.TemporaryDirectory(prefix="ex04-q4-") as folder:
        db = Path(folder) / "privacy.sqlite"
        saver = sqlite_checkpointer(db)
        try:
            turns = _q4_turns(q, factory, erase, saver, db, case)
            return {"changed": False, "turns": turns, "sent_turns": turns}
        finally:
            close_checkpointer(saver)


def _q4_turns(q, factory, erase, saver, db: Path, case) -> list[dict]:
    from langgraph.graph import MessagesState

    from course_utils.model.chat import OfflineChatModel

    model = OfflineChatModel(token_counter="approximate")
    node = make_node(q, factory, model, case["cap"])
    graph = one_node_graph(node, MessagesState, saver)
    thread = case["thread"]
    config = {"configurable": {"thread_id": thread}}
    ever: list[str] = []  # every text the thread has stored
    turns = []
    for turn, text in enumerate(EX04_DIALOGUE, start=1):
        before = list(graph.get_state(config).values.get("messages", []))
        made = len(model.calls)
        human = HumanMessage(text, id=f"check-human-{turn}")
        run_turn = named(lambda: graph.invoke({"messages": [human]}, config), node, "chatbot")
        q.call(run_turn, about=_("turn {turn} ({text!r}) of a graph").format(turn=turn, text=text),
               explain=empty_call)
        seen = [*before, human]
        stored = list(graph.get_state(config).values.get("messages", []))
        if stored and isinstance(stored[-1], AIMessage):
            ever += [m.content for m in [human, stored[-1]] if isinstance(m.content, str)]
        q.call(erase, graph, thread, about=_("(graph, {thread!r}) after turn {turn}").format(thread=thread, turn=turn))
        erased = list(graph.get_state(config).values.get("messages", []))
        obs = {"turn": turn, "where": _("in a graph, on turn {turn}").format(turn=turn), "history": seen,
               "calls": model.calls[made:], "sent": ex04_trim(seen, case["cap"]), "stored": stored, "erased": erased,
               "reply": stored[-1].content if stored else None,
               "leftover": file_leftover(db, thread, ever, erased)}
        turns.append(obs)
        if not _q4_clean(obs):
            break  # the rules say what went wrong on this turn
    return turns


def _q4_stores_sent(t) -> bool:
    """The thread's state after the node: what the model was sent, then its reply."""
    return (bool(t["stored"]) and isinstance(t["stored"][-1], AIMessage)
            and pairs(t["stored"][:-1]) == pairs(t["sent"]))


def _q4_erased_right(t) -> bool:
    """After erase_history, the thread's state is still what was sent and the reply."""
    return (bool(t["erased"]) and pairs(t["erased"][:-1]) == pairs(t["sent"])
            and t["erased"][-1].content == t["reply"])


def _q4_clean(t) -> bool:
    return (len(t["calls"]) == 1 and same_messages(t["calls"][0], t["sent"]) and _q4_stores_sent(t)
            and _q4_erased_right(t) and t["leftover"] is None)


def _q4_leftover(kind: str):
    return lambda t: t["leftover"] is None or t["leftover"]["kind"] != kind


Q4 = CodeQuestion(
    "store only what you send",
    ("make_forgetful_node", "erase_history"),
    hints=(
        "The node returns `{\"messages\": trimmed + [reply]}`. `add_messages` merges that list into the state by "
        "id: every message of `trimmed` is already stored, so it replaces itself, and nothing is deleted. "
        "Return `RemoveMessage(id=m.id)` for each message of `state[\"messages\"]` that is not in `trimmed`, "
        "followed by the reply.",
        "RemoveMessage changes the thread's *current* state; every earlier checkpoint in the file still holds "
        "the message. `erase_history(graph, thread_id)` must read the current state "
        "(`graph.get_state(config).values`), delete the whole thread with `erase_thread(graph.checkpointer, "
        "thread_id)`, and write the state back with `graph.update_state(config, values, as_node=\"chatbot\")` "
        "(or call `restart_from_summary(graph, thread_id, as_node=\"chatbot\")`, which does the three).",
    ),
    prepare=_q4_prepare,
    cases=_q4_cases,
    run=lambda q, answers, case: (_q4_graph if case["graph"] else _q4_direct)(q, answers, case),
    rules=(
        Rule("the state it is given is left alone", lambda obs, case: not obs["changed"],
             "{case}: your node changed `state[\"messages\"]` in place. Leave the list alone and say what to "
             "delete in the update you return, with RemoveMessage."),
        turn_rule("the model is called", lambda t: bool(t["calls"]),
                 "{case}: on turn {turn} your node did not call `model.invoke`."),
        Rule("every call is sent the trimmed list", lambda obs, case: bad_call(obs, case) is None,
             "{where}, model call {number} was sent {sent}; trimming to {cap} tokens (approximate counter, strategy "
             "'last', start_on 'human', include_system) gives {expected}. Every call your node makes is sent (and "
             "billed): send only the trimmed list.", bad_call_details),
        turn_rule("one call a turn", lambda t: len(t["calls"]) <= 1,
                 "{case}: on turn {turn} your node called the model {count} times: every call is sent (and billed), "
                 "so send it the trimmed list once.", lambda t: {"count": len(t["calls"])}),
        turn_rule("the thread stores what was sent", _q4_stores_sent,
                 "{case}: after turn {turn} the thread stores {stored}; it should store what the model was sent, "
                 "{sent}, and the reply.",
                 lambda t: {"stored": labels(t["stored"]), "sent": labels(t["sent"])}),
        turn_rule("erasing keeps the current state", _q4_erased_right,
                 "{case}: after turn {turn} and `erase_history` the thread stores {stored}; it should store what the "
                 "model was sent, {sent}, and the reply. `erase_history` must write the current state back after "
                 "deleting the thread.",
                 lambda t: {"stored": labels(t["erased"]), "sent": labels(t["sent"])}),
        turn_rule("no earlier checkpoint holds a dropped message", _q4_leftover("checkpoints"),
                 "{case}: after turn {turn} the current state no longer holds {text!r}, but {holding} of the "
                 "thread's {total} checkpoints in the SQLite file still do: RemoveMessage removes a message from the "
                 "current state only, and every earlier checkpoint keeps it. `erase_history` must delete the thread "
                 "(`erase_thread(graph.checkpointer, thread_id)`) and write the current state back "
                 "(`graph.update_state(config, values, as_node=\"chatbot\")`).", lambda t: t["leftover"]),
        turn_rule("the file's bytes hold no dropped message", _q4_leftover("bytes"),
                 "{case}: after turn {turn} no checkpoint holds {text!r}, but the bytes of the SQLite file still do "
                 "({copies} copies, in the database or its `-wal` write-ahead log): `delete_thread` deletes rows, "
                 "and SQLite keeps the old pages until a checkpoint of the log. Use `erase_thread(graph.checkpointer, "
                 "thread_id)`, which also empties the log.", lambda t: t["leftover"]),
    ),
    mistakes=(
        *SENT_MISTAKES,
        Mistake("the merge", "nothing was removed. `add_messages` merges the list a node returns into the state by "
                "id; every message of the trimmed list is already there, so it replaces itself and nothing is "
                "deleted. Return `RemoveMessage(id=m.id)` for each stored message you want gone, then the reply.",
                lambda obs, case: first_turn(obs, lambda t: len(t["stored"]) == len(t["history"]) + 1
                                           and len(t["sent"]) < len(t["history"])) is not None),
        Mistake("everything removed", "your node removes every message, the ones it sent too: the thread should "
                "keep what the model was sent, followed by its reply. Remove only the messages that are not in the "
                "trimmed list.", lambda obs, case: first_turn(
                    obs, lambda t: len(t["stored"]) == 1 and isinstance(t["stored"][0], AIMessage)
                    and len(t["sent"]) > 0) is not None),
        Mistake("no reply", "the thread's last message is not the model's reply: return the reply in the update "
                "too, after the RemoveMessages.", lambda obs, case: first_turn(
                    obs, lambda t: not t["stored"] or not isinstance(t["stored"][-1], AIMessage)) is not None),
        Mistake("not written back", "`erase_history` deleted the thread and left it empty: it must write the current state "
                "back after deleting, the values it read, with `graph.update_state(config, values, "
                "as_node=\"chatbot\")`.", lambda obs, case: first_turn(
                    obs, lambda t: _q4_stores_sent(t) and not t["erased"]) is not None),
    ),
    praise="the thread stores only what the model was sent and its reply, and the SQLite file, read back after "
           "every turn, holds nothing else: no earlier checkpoint, no copy in its write-ahead log. RemoveMessage "
           "changes the current state; erasing takes deleting the thread.",
    seeds=1,  # the state, the thread id and the cap are drawn now
)
Q4.register(ex04)


# --- question 5: the how-to's summary node, with a valid tail -----------------------------------

#: The how-to's dialogue the graph case runs (see :mod:`course_utils.checks.summary_runs`).
EX04_Q5_BOB = BOB_DIALOGUE
#: The summary so far of the chat q5 asks to *extend*.
EX04_Q5_SUMMARY = "The user's name is Ana. The user likes jazz."
#: A fact the user states in that chat (drawn), which the extended summary must add.
EX04_Q5_FACTS = ("I live in Porto.", "I live in Valencia.", "My favourite food is rice.", "I work as a nurse.",
                 "I have a cat called Milo.")
#: The keep_last a chat generated at check time is drawn from.
EX04_Q5_KEEPS = (2, 3, 4)
#: The keep_last the how-to's graph (and the first three states) use.
EX04_Q5_GRAPH_KEEP = 2


def _q5_agent_run(rng: random.Random) -> tuple[list[BaseMessage], int]:
    """A generated agent run with a tool call at the cut, and its keep_last (3 or 4): the plain slice
    ``[-keep_last:]`` orphans a tool result, and ``valid_tail`` keeps other messages than with keep_last=2, so
    neither the how-to's slice nor a node that types 2 passes it."""
    from course_utils.window.sequences import valid_tail

    for _attempt in range(1000):  # about one conversation in four fits
        messages = random_conversation(rng.randrange(1000, 1_000_000), turns=5, system=False)
        for keep in rng.sample((3, 4), 2):
            if orphaned_tool_messages(messages[-keep:]) and message_ids(valid_tail(messages, keep)) != message_ids(
                    valid_tail(messages, EX04_Q5_GRAPH_KEEP)):
                return messages, keep
    raise RuntimeError("no generated agent run has a tool call at the cut")  # pragma: no cover - p < 1e-100


def _q5_told(rng: random.Random) -> list[BaseMessage]:
    """A chat generated now whose first turn states a new fact (drawn), so extending the summary changes it: a node
    that keeps the old summary does not pass."""
    seed = rng.randrange(1000, 1_000_000)
    return [HumanMessage(rng.choice(EX04_Q5_FACTS), id=f"r{seed}-00-human"), AIMessage("Noted.", id=f"r{seed}-00-ai"),
            *random_conversation(seed, turns=3, system=False, tools=False)]


def _q5_cases(rng: random.Random) -> list[Case]:
    """Five states the node is called on directly (drawn now, but for the travel agent), then the how-to's graph."""
    from course_utils.core.samples import load_conversation

    agent, agent_keep = _q5_agent_run(rng)
    keep = rng.choice(EX04_Q5_KEEPS)
    states = [
        (_("a chat with no summary yet"), random_conversation(rng.randrange(1000, 1_000_000), turns=5,
                                                              system=False, tools=False), "", EX04_Q5_GRAPH_KEEP),
        (_("a chat that already has a summary"), _q5_told(rng), EX04_Q5_SUMMARY, EX04_Q5_GRAPH_KEEP),
        # lesson 04b's travel agent before its last question
        (_("lesson 04b's travel agent, whose last turn called tools"), load_conversation("agent_tools")[1:16], "",
         EX04_Q5_GRAPH_KEEP),
        (_("a generated agent run, keep_last={keep}").format(keep=agent_keep), agent, "", agent_keep),
        (_("a chat generated now, keep_last={keep}").format(keep=keep), random_conversation(
            rng.randrange(1000, 1_000_000), turns=6, system=False, tools=True), "", keep),
    ]
    cases = [Case(_("{about} ({counts})").format(about=about, counts=counts_of(messages)),
                  {"graph": False, "history": messages, "summary": summary, "keep_last": keep_last})
             for about, messages, summary, keep_last in states]
    thread = f"thread-{rng.randrange(1000, 10_000)}"
    cases.append(Case(_("the how-to's graph on the Bob dialogue, thread {thread!r}").format(thread=thread),
                      {"graph": True, "thread": thread, "keep_last": EX04_Q5_GRAPH_KEEP}))
    return cases


Q5 = CodeQuestion(
    "write the summary node",
    ("make_summarize_node",),
    hints=(
        "Choose the prompt: `EXTEND_SUMMARY_PROMPT.format(summary=summary)` when `state.get(\"summary\")` is not "
        "empty, else `CREATE_SUMMARY_PROMPT`; send `state[\"messages\"] + [HumanMessage(prompt)]` to the model.",
        "Keep `valid_tail(state[\"messages\"], keep_last)`, not `state[\"messages\"][-keep_last:]`: the plain "
        "slice can keep a tool result whose AIMessage (the tool call) you delete, which providers refuse.",
        "Return `{\"summary\": response.content, \"messages\": [RemoveMessage(id=m.id) for m in older]}`, where "
        "`older` is every message before the kept tail.",
    ),
    prepare=lambda q, answers: (q.need_function(answers[0], "make_summarize_node"),),
    cases=_q5_cases,
    run=sr.run,
    rules=(
        sr.run_rule("the state it is given is left alone", lambda run: not run["changed"],
                 "{where} your node changed the state it was given. Say what changes in the update you return "
                 "instead."),
        sr.run_rule("the update holds the summary and the messages", lambda run: sr.update(run) is not None,
                 "a summary node returns `{{\"summary\": ..., \"messages\": [...]}}`; {where} yours returned "
                 "{value}.", lambda run: {"value": describe(run["out"])}),
        sr.run_rule("the model is called", lambda run: bool(run["calls"]),
                 "{where} your node did not call `model.invoke`."),
        sr.run_rule("every call is sent the state's messages, then the how-to's prompt",
                 lambda run: sr.bad_call(run) is None, "{where}: {problem}", sr.bad_call_details),
        sr.run_rule("one call writes the summary", lambda run: len(run["calls"]) == 1,
                 "{where} your node called the model {count} times: one call writes the summary; every call is "
                 "sent (and billed).", lambda run: {"count": len(run["calls"])}),
        sr.run_rule("the summary is the reply's text", lambda run: sr.update(run)[0] == run["reference"]["reply"],
                 "{where} the update's \"summary\" is {value}; it should be the text of the model's reply "
                 "(`response.content`).", lambda run: {"value": describe(sr.update(run)[0])}),
        sr.run_rule("the update's messages are RemoveMessages",
                 lambda run: all(isinstance(m, RemoveMessage) for m in sr.update(run)[1]),
                 "{where} the update's \"messages\" should hold only RemoveMessages (the messages to delete); it "
                 "holds {value}.", lambda run: {"value": describe(sr.update(run)[1])}),
        sr.run_rule("no tool result is kept without its call", lambda run: not sr.new_orphans(run),
                 "{where} you keep the last {keep_last} messages, {tail}, but {orphans} tool result(s) among them "
                 "answer a tool call you delete, and a provider refuses that. Keep `valid_tail(messages, "
                 "keep_last)` instead: it moves the cut back to the human message that starts the turn ({kept} "
                 "messages here).", sr.orphan_details),
        sr.run_rule("what comes before valid_tail is removed",
                 lambda run: sorted(sr.removed(run)) == sorted(run["reference"]["removed"]),
                 "{where} you remove {removed} messages and keep {count}; the node should keep "
                 "`valid_tail(messages, {keep_last})`, the last {kept}, and remove the {expected} before them.",
                 sr.removal_details),
        sr.graph_rule("after turn 4 the thread holds a summary", lambda turns: bool(turns[4]["summary"]),
                   "in the how-to's graph, after turn 4 (8 messages, more than 6) the thread should hold a summary "
                   "and the last 2 messages; it holds {count} messages and no summary.",
                   lambda turns: {"count": turns[4]["stored"]}),
        sr.graph_rule("after turn 4 the thread holds the last 2 messages", lambda turns: turns[4]["stored"] == 2,
                   "in the how-to's graph, after turn 4 (8 messages, more than 6) the thread should hold a summary "
                   "and the last 2 messages; it holds {count} messages and a summary.",
                   lambda turns: {"count": turns[4]["stored"]}),
        sr.graph_rule("turn 5 answers from the summary", lambda turns: "Bob" in turns[5]["reply"],
                   "in the how-to's graph, turn 5 asks \"what's my name?\" and the answer should come from the "
                   "summary, but it was {reply!r}.", lambda turns: {"reply": turns[5]["reply"]}),
    ),
    mistakes=(
        Mistake("the summary ignored", "the state already has a summary, so ask the model to *extend* it: "
                "`EXTEND_SUMMARY_PROMPT.format(summary=summary)`, not CREATE_SUMMARY_PROMPT.",
                sr.prompt_is(lambda run, text: bool(run["summary"]) and text == sr.prompts()[0])),
        Mistake("no summary to extend", "there is no summary yet, so ask the model to *create* one: "
                "CREATE_SUMMARY_PROMPT.",
                sr.prompt_is(lambda run, text: not run["summary"] and text.startswith(
                    sr.prompts()[1].split("{summary}")[0]))),
        Mistake("a tuple of removals", "the update's \"messages\" is a tuple: `add_messages` reads a tuple as one "
                "message, (\"role\", \"text\"), and raises NotImplementedError. Return a list: "
                "`[RemoveMessage(id=m.id) for m in older]`.",
                lambda obs, case: sr.first_run(obs, lambda run: isinstance(run["out"]["messages"], tuple)) is not None),
        Mistake("the kept messages", "your node returns the messages to keep under \"messages\". `add_messages` "
                "merges them into the state by id, where they already are, so nothing is removed. Return "
                "`RemoveMessage(id=m.id)` for each older message instead.",
                lambda obs, case: sr.first_run(obs, sr.returns_kept) is not None),
    ),
    praise="the node creates or extends the summary with the how-to's prompts, keeps a valid tail (no tool result "
           "without its call) and deletes the rest with RemoveMessage; in the how-to's graph, Bob's name survives "
           "the summary at turn 4.",
    seeds=1,  # five states, their keep_last and the thread id are drawn now
)
Q5.register(ex04)


def __getattr__(name: str):
    """The module answers its exercise's names (``ex04.q1``, ``ex04.questions``), as the package's ``ex04`` does."""
    return getattr(ex04, name)
