"""LangGraph chatbots of lessons 04 and 04b, in a checked variant for the exercise, A1 and the tests.

The lessons write these graphs in their own cells and save them with
``#@save`` (``course_utils.lessons.lesson04.build_trimming_chatbot`` and
``chat``; ``course_utils.lessons.lesson04b.build_summarizing_chatbot``,
``erase_thread`` and ``restart_from_summary``): that is the code a learner
reads and copies. This module keeps a variant of each for exercise 04, its
check, appendix A1 and the PostgreSQL tests, which need what a lesson leaves
out: arguments checked by name, a checkpointer chosen from
``COURSE_CHECKPOINT_URL`` (a class hub's database), the ``max_messages`` /
``max_tokens`` triggers, ``as_node``. It is a lower layer than the saved
lessons, so it cannot import them; ``tests/test_saved_graphs.py`` proves the
two send the same calls and keep the same state.

Two builders, both compiled with a real checkpointer, so each ``thread_id``
keeps its own conversation. Given none, they take
``course_utils.agentic.checkpoints.get_checkpointer(default=db_path)``: the SQLite
file ``db_path`` (a file you can open), unless the environment variable
``COURSE_CHECKPOINT_URL`` names another file or a PostgreSQL server.

- :func:`build_trimming_chatbot`: the state keeps every message; the node
  sends ``model.invoke`` only what ``trim_messages`` keeps.
- :func:`build_summarizing_chatbot`: the LangGraph how-to "add a summary of
  the conversation history": past six messages (or, optionally, past a
  number of tokens), summarise and delete all but the last two (or from the
  human message that starts their turn, so no tool result loses its call).

Small helpers keep a lesson short: :func:`chat` runs one turn, :func:`replay`
a whole dialogue, :func:`stored_messages` reads a thread back, and
:func:`graph_mermaid` draws the graph as Mermaid text.

:func:`restart_from_summary` erases a thread for real: ``RemoveMessage``
removes messages from the current state only, and the thread's earlier
checkpoints still hold them. It deletes the whole thread
(:func:`course_utils.agentic.checkpoints.erase_thread`) and starts it again from
what its current state holds (the summary and the kept messages).

>>> from langgraph.checkpoint.memory import InMemorySaver
>>> graph = build_summarizing_chatbot(checkpointer=InMemorySaver())
>>> chat(graph, "bob", "hi! I'm bob")
'Hi Bob! Nice to meet you. How can I help you today?'
"""

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, RemoveMessage, SystemMessage, trim_messages
from langchain_core.runnables import Runnable
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.pregel import Pregel

from course_utils.core.args import check_bool, check_choice, check_int, check_text
from course_utils.model.chat import get_chat_model
from course_utils.agentic.checkpoints import DEFAULT_DB_PATH, check_sqlite_path, erase_thread, get_checkpointer
from course_utils.window.sequences import valid_tail
from course_utils.window.tokens import resolve_token_counter

#: The how-to's prompts, word for word.
SUMMARY_PREFIX = "Summary of conversation earlier: "
CREATE_SUMMARY_PROMPT = "Create a summary of the conversation above:"
EXTEND_SUMMARY_PROMPT = (
    "This is summary of the conversation to date: {summary}\n\n"
    "Extend the summary by taking into account the new messages above:"
)

#: Message type names trim_messages' ``start_on`` understands (the builder's
#: check; widgets.BOUNDARY_TYPES is the narrower list its dropdowns offer).
START_ON_TYPES = ("human", "ai", "system", "tool", "function", "chat")


# --- checking arguments -------------------------------------------------------


def _check_text(value: Any, parameter: str) -> str:
    return check_text(value, parameter, empty_ok=False)


def _check_graph(graph: Any, needs_checkpointer: bool = False) -> Pregel:
    if not isinstance(graph, Pregel):
        raise TypeError(f"graph must be a compiled LangGraph graph, got {type(graph).__name__}: {graph!r:.80}")
    if needs_checkpointer and not isinstance(graph.checkpointer, BaseCheckpointSaver):
        raise ValueError("graph has no checkpointer, so it keeps no threads: compile it with checkpointer=...")
    return graph


def _resolve_model(model: Any) -> Runnable:
    if model is None:
        return get_chat_model()
    if not isinstance(model, Runnable):
        raise TypeError(f"model must be a chat model (a Runnable) or None, got {type(model).__name__}: {model!r:.80}")
    return model


def _resolve_checkpointer(checkpointer: Any, db_path: Any) -> BaseCheckpointSaver:
    db_path = check_sqlite_path(db_path, "db_path")
    if checkpointer is None:
        # COURSE_CHECKPOINT_URL (a hub's shared database) wins over the lesson's file.
        return get_checkpointer(default=db_path)
    if not isinstance(checkpointer, BaseCheckpointSaver):
        raise TypeError(
            f"checkpointer must be a LangGraph checkpointer (e.g. InMemorySaver()) or None, "
            f"got {type(checkpointer).__name__}: {checkpointer!r:.80}"
        )
    return checkpointer


def _check_start_on(start_on: Any) -> Any:
    names = start_on if isinstance(start_on, (list, tuple)) else [start_on]
    for name in names:
        if start_on is None or isinstance(name, type):
            continue
        if not isinstance(name, str):
            raise TypeError(
                f"start_on must be a message type name, a message class, a list of them or None, got {start_on!r}"
            )
        check_choice(name, "start_on", START_ON_TYPES)
    return start_on


# --- the trimming chatbot -----------------------------------------------------------


def build_trimming_chatbot(
    model: Any = None,
    *,
    max_tokens: int = 128,
    token_counter: Any = "approximate",
    strategy: str = "last",
    start_on: Any = "human",
    include_system: bool = True,
    db_path: str | os.PathLike = DEFAULT_DB_PATH,
    checkpointer: BaseCheckpointSaver | None = None,
):
    """A one-node chatbot that trims what it sends, not what it keeps.

    The node calls ``trim_messages(state["messages"], max_tokens=..., ...)`` and
    passes only the result to ``model.invoke``; it returns only the reply, so the
    stored state keeps every message. ``trim_messages`` rejects ``start_on`` and
    ``include_system`` with ``strategy="first"``: pass ``start_on=None,
    include_system=False`` there. ``token_counter`` is a name of
    ``course_utils.window.tokens`` ("approximate", "exact", "dummy"), a function or a
    chat model.
    """
    model = _resolve_model(model)
    trim_options = {
        "max_tokens": check_int(max_tokens, "max_tokens", minimum=1),
        "token_counter": resolve_token_counter(token_counter),
        "strategy": check_choice(strategy, "strategy", ("first", "last")),
        "start_on": _check_start_on(start_on),
        "include_system": check_bool(include_system, "include_system"),
    }
    trim_messages([HumanMessage("check the options now, not at the first turn")], **trim_options)
    saver = _resolve_checkpointer(checkpointer, db_path)

    def chatbot(state: MessagesState) -> dict:
        sent = trim_messages(state["messages"], **trim_options)
        if not sent:
            raise ValueError(
                f"trimming left no messages to send: max_tokens={max_tokens} is too small "
                f"for the last valid sequence of this conversation"
            )
        return {"messages": [model.invoke(sent)]}

    builder = StateGraph(MessagesState)
    builder.add_node("chatbot", chatbot)
    builder.add_edge(START, "chatbot")
    builder.add_edge("chatbot", END)
    return builder.compile(checkpointer=saver)


# --- the summarising chatbot (the LangGraph how-to) -------------------------------


class SummaryState(MessagesState):
    """The how-to's ``State``: the messages, plus a running summary."""

    summary: str


def build_summarizing_chatbot(
    model: Any = None,
    *,
    max_messages: int = 6,
    keep_last: int = 2,
    max_tokens: int | None = None,
    token_counter: Any = "approximate",
    db_path: str | os.PathLike = DEFAULT_DB_PATH,
    checkpointer: BaseCheckpointSaver | None = None,
):
    """The how-to's chatbot: answer, and past ``max_messages`` summarise and keep the last ``keep_last``.

    The how-to checks length "by the number of messages or their length":
    given ``max_tokens``, the graph also summarises when the stored messages
    cost more than ``max_tokens`` tokens (counted with ``token_counter``, as
    for :func:`build_trimming_chatbot`), whichever trigger comes first. Pass a
    large ``max_messages`` to trigger by tokens only.

    Nodes ``conversation`` (prepends "Summary of conversation earlier: ..." as a
    SystemMessage when a summary exists) and ``summarize_conversation`` (asks
    the model to create or extend the summary, then removes the older messages
    with ``RemoveMessage``). The kept tail is
    ``course_utils.window.sequences.valid_tail(messages, keep_last)``: the last
    ``keep_last`` messages, with the cut moved back to the human message that
    starts their turn, so it never keeps a tool result without the AIMessage
    that called the tool (which a provider refuses). It keeps more, never fewer.
    """
    model = _resolve_model(model)
    max_messages = check_int(max_messages, "max_messages", minimum=1)
    keep_last = check_int(keep_last, "keep_last", minimum=0)
    if keep_last >= max_messages:
        raise ValueError(f"keep_last must be smaller than max_messages={max_messages}, got {keep_last!r}")
    max_tokens = check_int(max_tokens, "max_tokens", minimum=1, none_ok=True)
    counter = resolve_token_counter(token_counter)
    saver = _resolve_checkpointer(checkpointer, db_path)

    def call_model(state: SummaryState) -> dict:
        summary = state.get("summary", "")
        messages = state["messages"]
        if summary:
            messages = [SystemMessage(content=SUMMARY_PREFIX + summary), *messages]
        return {"messages": [model.invoke(messages)]}

    def should_continue(state: SummaryState) -> Literal["summarize_conversation", "__end__"]:
        messages = state["messages"]
        too_long = len(messages) > max_messages or (max_tokens is not None and counter(messages) > max_tokens)
        return "summarize_conversation" if too_long else END

    def summarize_conversation(state: SummaryState) -> dict:
        summary = state.get("summary", "")
        prompt = EXTEND_SUMMARY_PROMPT.format(summary=summary) if summary else CREATE_SUMMARY_PROMPT
        messages = state["messages"]
        response = model.invoke([*messages, HumanMessage(content=prompt)])
        kept = valid_tail(messages, keep_last)  # never orphans a tool result, unlike messages[-keep_last:]
        older = messages[: len(messages) - len(kept)]
        # .text, not .content: a provider's content may be a list of blocks.
        return {"summary": response.text, "messages": [RemoveMessage(id=m.id) for m in older]}

    workflow = StateGraph(SummaryState)
    workflow.add_node("conversation", call_model)
    workflow.add_node(summarize_conversation)
    workflow.add_edge(START, "conversation")
    workflow.add_conditional_edges("conversation", should_continue)
    workflow.add_edge("summarize_conversation", END)
    return workflow.compile(checkpointer=saver)


# --- running a dialogue ---------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    """One turn of a replayed dialogue, and the thread's state after it."""

    number: int
    human: str
    reply: str
    messages: int  #: messages stored in the thread after the turn
    summary: str  #: the thread's summary after the turn ("" when there is none)


def thread_config(thread_id: str) -> dict:
    """The config that selects a conversation thread: ``{"configurable": {"thread_id": ...}}``."""
    return {"configurable": {"thread_id": _check_text(thread_id, "thread_id")}}


def chat(graph: Any, thread_id: str, text: str) -> str:
    """Send one human message on a thread and return the reply's text."""
    graph = _check_graph(graph, needs_checkpointer=True)
    config = thread_config(thread_id)
    text = _check_text(text, "text")
    reply = None
    for update in graph.stream({"messages": [HumanMessage(text)]}, config, stream_mode="updates"):
        for node_output in update.values():
            new = node_output.get("messages", []) if isinstance(node_output, dict) else []
            reply = next((m for m in reversed(new) if isinstance(m, AIMessage)), reply)
    if reply is None:
        raise RuntimeError(f"the graph gave no AI reply on thread {thread_id!r}")
    return reply.text


def stored_messages(graph: Any, thread_id: str) -> list[BaseMessage]:
    """The messages a thread's checkpoint holds now (empty for a new thread)."""
    graph = _check_graph(graph, needs_checkpointer=True)
    return list(graph.get_state(thread_config(thread_id)).values.get("messages", []))


def replay(graph: Any, thread_id: str, texts: Sequence[str]) -> list[Turn]:
    """Run a dialogue turn by turn on one thread; one :class:`Turn` per text."""
    graph = _check_graph(graph, needs_checkpointer=True)
    if isinstance(texts, str) or not isinstance(texts, Sequence):
        raise TypeError(f"texts must be a list of str, got {type(texts).__name__}: {texts!r:.80}")
    for i, text in enumerate(texts):
        _check_text(text, f"texts[{i}]")
    turns = []
    for number, text in enumerate(texts, start=1):
        reply = chat(graph, thread_id, text)
        values = graph.get_state(thread_config(thread_id)).values
        turns.append(Turn(number, text, reply, len(values.get("messages", [])), values.get("summary", "")))
    return turns


def restart_from_summary(graph: Any, thread_id: str, *, as_node: str = "summarize_conversation") -> dict:
    """Erase a thread's stored history and start it again from its current state alone.

    After the summarising chatbot has summarised, the thread's current state
    holds the summary and the kept messages, but its earlier checkpoints still
    hold every removed message (a ``RemoveMessage`` changes the current state,
    not the past ones). This reads the current state, deletes the whole thread
    (:func:`course_utils.agentic.checkpoints.erase_thread`), and writes that state back
    as the thread's only checkpoint, as if node ``as_node`` had written it (the
    summary node, so the turn is over and the next message starts a new one).
    The same ``thread_id`` carries on; nothing older than the current state is
    left to read. Returns the values carried over.
    """
    graph = _check_graph(graph, needs_checkpointer=True)
    config = thread_config(thread_id)
    as_node = check_choice(as_node, "as_node", [n for n in graph.nodes if n != START])
    values = dict(graph.get_state(config).values)
    if not values:
        raise ValueError(f"thread {thread_id!r} stores nothing: there is nothing to restart from")
    erase_thread(graph.checkpointer, thread_id)
    graph.update_state(config, values, as_node=as_node)
    return values


def graph_mermaid(graph: Any) -> str:
    """The graph as Mermaid text (offline; ``draw_mermaid_png`` would call a web service)."""
    return _check_graph(graph).get_graph().draw_mermaid()
