"""Exercise 04: LangGraph integration (``exercises/04_..._exercise.ipynb``, after ``notebooks/04_langgraph_integration.ipynb``).

The notebook binds its questions with ``from course_utils.checks import ex04``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    trim_messages,
)

from course_utils.checks.ex03 import _ids_of
from course_utils.checks.kinds import (
    choice_question,
    _counts_of,
    _same_messages,
    _snapshot,
    random_conversation,
)
from course_utils.checks.machinery import _ids, _is_stub, _short_list, describe, Exercise
from course_utils.sequences import safe_trim_kwargs

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


@ex04.question(
    "what the node sends",
    "q1.check(sent_ids)",
    hints=(
        "Every message costs 10 with the dummy counter. With include_system=True the system prompt is kept "
        "first, and the rest of the 128 is filled from the end.",
        "Then start_on=\"human\" drops messages from the front of the kept run until it begins with a human one.",
    ),
    solution="""
    sent = trim_messages(state_messages, max_tokens=128, token_counter=dummy_token_counter,
                         strategy="last", start_on="human", include_system=True)
    sent_ids = [m.id for m in sent]   # ['sys', 'h6', 'a6', ..., 'a10', 'h11']: 12 messages, 120 tokens
    """,
)
def _ex04_q1(q, sent_ids):
    from course_utils.tokens import dummy_token_counter

    ids = _ids_of(q, sent_ids, "sent_ids")
    messages = ex04_state_messages()
    options = dict(max_tokens=EX04_CAP, token_counter=dummy_token_counter, strategy="last")
    expected = _ids(trim_messages(messages, start_on="human", include_system=True, **options))
    if ids == expected:
        return q.correct(f"the node sends {len(expected)} messages ({10 * len(expected)} tokens <= 128): the "
                         f"system prompt and h6 ... h11. The state keeps all 22 (220 tokens).")
    variants = [
        (_ids(trim_messages(messages, start_on="human", **options)),
         "the system prompt is missing: include_system=True keeps it, and it counts against the 128."),
        (_ids(trim_messages(messages, include_system=True, **options)),
         "that does not start with a human message. This cap happens to start on one anyway; look again."),
        (_ids(trim_messages(messages, **options)),
         "that starts with an AIMessage and drops the system prompt: apply start_on=\"human\" and "
         "include_system=True."),
        (_ids(messages), "that is the whole state (220 tokens). The node sends only what fits in 128."),
        (list(reversed(expected)), "right messages, but trim_messages keeps chronological order."),
    ]
    for wrong, why in variants:
        if ids == wrong and wrong != expected:
            return q.wrong(why)
    if 10 * len(ids) > EX04_CAP:
        return q.wrong(f"{len(ids)} messages cost {10 * len(ids)} tokens, over the cap of {EX04_CAP}.")
    return q.wrong(f"the node would send {len(expected)} messages; count 10 tokens a message, system first, then "
                   f"from the end.")


def _ex04_trim(messages: Sequence[BaseMessage], max_tokens: int) -> list[BaseMessage]:
    return trim_messages(messages, **safe_trim_kwargs(max_tokens, "approximate"))


EX04_DIALOGUE = (
    "hi! I'm bob",
    "i like the celtics!",
    "i like how much they win",
    "what's my name?",
    "what NFL team do you think I like?",
    "i like the patriots!",
)


def _ex04_sent_problem(sent: list[BaseMessage], history: list[BaseMessage], cap: int, where: str) -> str | None:
    """What is wrong with what the model was sent for this history, or None if it is the trimmed list."""
    expected = _ex04_trim(history, cap)
    if _same_messages(sent, expected):
        return None
    detail = f"{where} the model was sent {_short_list([_text_label(m) for m in sent], 5)}"
    if _same_messages(sent, history):
        return f"{detail}: the whole history. Trim before `model.invoke`."
    if not sent or sent[-1].id != history[-1].id:
        return f"{detail}: the user's latest question is missing. Did you use strategy='first'? Keep the newest messages."
    if not any(isinstance(m, SystemMessage) for m in sent):
        return f"{detail}: the system prompt is missing; use include_system=True."
    body = [m for m in sent if not isinstance(m, SystemMessage)]
    if body and not isinstance(body[0], HumanMessage):
        return f"{detail}: after the system prompt it starts with an {type(body[0]).__name__}; use start_on=\"human\"."
    return (f"{detail}; trimming to {cap} tokens (approximate counter, strategy 'last', start_on 'human', "
            f"include_system) gives {_short_list([_text_label(m) for m in expected], 5)}.")


def _ex04_empty_call(exc: BaseException, about: str) -> str | None:
    """The message for a node whose trim kept nothing: OfflineChatModel refuses an empty list with ValueError."""
    if not (isinstance(exc, ValueError) and str(exc).startswith("messages must not be empty")):
        return None
    return (f"for {about}, your node sent the model an empty list, and the model refused it ({exc}). Your trim kept "
            f"nothing: is the max_tokens you pass smaller than the one given, or did start_on (or end_on) drop "
            f"every message? Trim with `max_tokens=max_tokens`, `strategy=\"last\"`, `start_on=\"human\"` and "
            f"`include_system=True`.")


def _text_label(message: BaseMessage) -> str:
    """A message as a learner can recognise it: its type and the start of its text (ids in a graph are random)."""
    text = message.content if isinstance(message.content, str) else str(message.content)
    return f"{message.type}: {text[:24]!r}"


def _ex04_node_messages(out: Any) -> list[Any]:
    if not isinstance(out, Mapping) or "messages" not in out:
        return None
    new = out["messages"]
    return [new] if isinstance(new, BaseMessage) else list(new) if isinstance(new, (list, tuple)) else None


@ex04.question(
    "trim inside the node",
    "q2.check(make_chatbot_node)",
    hints=(
        "Never write to `state[\"messages\"]` (no `[:] =`, `del`, `.clear()`, `.append`): the checkpointer "
        "stores that very list. Build a new one with `trim_messages(state[\"messages\"], ...)`.",
        "Send only the trimmed list to `model.invoke`, and return only the reply: `{\"messages\": [reply]}`; "
        "add_messages appends it to the full history.",
    ),
    solution="""
    def make_chatbot_node(model, max_tokens=128):
        def chatbot(state: MessagesState) -> dict:
            sent = trim_messages(                     # a new list: the state is not touched
                state["messages"],
                max_tokens=max_tokens,
                token_counter="approximate",
                strategy="last",
                start_on="human",
                include_system=True,
            )
            return {"messages": [model.invoke(sent)]}  # only the reply goes back into the state
        return chatbot
    """,
)
def _ex04_q2(q, make_chatbot_node):
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, MessagesState, StateGraph

    from course_utils.chat import OfflineChatModel

    factory = q.need_function(make_chatbot_node, "make_chatbot_node")

    # 1. Call the node directly on a state, as LangGraph would.
    # States and caps where leaving out start_on or include_system changes what is sent.
    for seed, cap in ((51, 80), (52, 100)):
        model = OfflineChatModel(token_counter="approximate")
        node = q.call(factory, model, max_tokens=cap, about=f"(model, max_tokens={cap})")
        if not callable(node):
            return q.wrong(f"`make_chatbot_node` should return the node function, but it returned {describe(node)}.")
        if _is_stub(node):
            return q.not_attempted(f"the body of `{getattr(node, '__name__', 'chatbot')}` is still `...`: write it.")
        history = random_conversation(seed, turns=7, system=True, tools=False, end_with_ai=False)
        state = {"messages": list(history)}
        about = f"a state of {_counts_of(history)} and max_tokens={cap}"
        out = q.call(node, state, about=about, explain=_ex04_empty_call)
        if _snapshot(state["messages"]) != _snapshot(history):
            return q.wrong(f"for {about} your node changed `state[\"messages\"]` in place (it now holds "
                           f"{len(state['messages'])} messages instead of {len(history)}). The checkpointer "
                           f"stores that list, so the history is lost. Trim into a new list instead.")
        new = _ex04_node_messages(out)
        if new is None:
            return q.wrong(f"a node returns a dict of updates, `{{\"messages\": [reply]}}`; yours returned "
                           f"{describe(out)}.")
        if any(isinstance(m, RemoveMessage) for m in new):
            return q.wrong("your node returns RemoveMessage updates: they delete messages from the stored state. "
                           "Trimming is for the model call only; return just the reply.")
        if not model.calls:
            return q.wrong("your node did not call `model.invoke`.")
        problem = _ex04_sent_problem(model.calls[-1], history, cap, f"for {about}")
        if problem:
            return q.wrong(problem)
        if not new or not isinstance(new[-1], AIMessage):
            return q.wrong("return the model's reply in the update: `{\"messages\": [reply]}`.")

    # 2. Run it in a graph with a checkpointer, as in the lesson.
    model = OfflineChatModel(token_counter="approximate")
    node = q.call(factory, model, max_tokens=40, about="(model, max_tokens=40)")
    builder = StateGraph(MessagesState)
    builder.add_node("chatbot", node)
    builder.add_edge(START, "chatbot")
    builder.add_edge("chatbot", END)
    graph = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "check"}}
    for turn, text in enumerate(EX04_DIALOGUE, start=1):
        before = list(graph.get_state(config).values.get("messages", []))
        q.call(graph.invoke, {"messages": [HumanMessage(text)]}, config, about=f"turn {turn} ({text!r}) of a graph",
               explain=_ex04_empty_call)
        stored = list(graph.get_state(config).values.get("messages", []))
        if len(stored) != 2 * turn:
            return q.wrong(f"in a graph with a checkpointer, after turn {turn} the thread stores {len(stored)} "
                           f"messages instead of {2 * turn}: your node loses history. The state must keep "
                           f"every message; only the model call is trimmed.")
        problem = _ex04_sent_problem(model.calls[-1], [*before, stored[len(before)]], 40, f"in a graph, on turn {turn}")
        if problem:
            return q.wrong(problem)
    return q.correct("the node leaves `state[\"messages\"]` alone, sends the model only the trimmed list, and in "
                     "a graph with a checkpointer the thread keeps all 12 messages of a 6-turn dialogue.")


EX04_Q3_OPTIONS = {
    "a": "The checkpointer lost the early messages of the thread.",
    "b": "trim_messages deleted \"hi! I'm bob\" from the state.",
    "c": "The model's context window was exceeded, so it ignored the history.",
    "d": "The thread's stored state still holds \"hi! I'm bob\", but the trimmed list sent to the model does not.",
}


_ex04_q3 = choice_question(
    ex04,
    "why does it forget?",
    "q3.check(choice, why)",
    hints=(
        "Compare `stored_messages(...)` (what the thread keeps) with `model.calls[-1]` (what the model was sent).",
        "There are two spaces: the state, for keeping; the trimmed list, for this one call.",
    ),
    solution="""
    choice = "d"
    why = "The state keeps every message (the stored thread still starts with hi! I'm bob), " \\
          "but the node sends the model only the trimmed list, and the name is no longer in it."
    """,
    options=EX04_Q3_OPTIONS,
    answer="d",
    feedback={
        "a": "look at `stored_messages(graph, thread)`: the first message is still \"hi! I'm bob\".",
        "b": "trim_messages returns a new list; it never changes the list it is given, let alone the state.",
        "c": "the trimmed list is far below the window; the model answered normally, from what it was sent.",
    },
    keywords=("state", "sent", "trim", "stored", "keep"),
    praise="two spaces: the state keeps everything, the model sees only the trimmed list. To remember the name "
    "past the cap, summarise (the how-to's summary node) or raise the cap.",
)
