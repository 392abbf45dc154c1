"""Saved from notebooks/04b_summarising_history.ipynb by scripts/save_lessons.py: edit the lesson, not this file.

Each block below is one code cell of the lesson marked ``#@save``, in the lesson's order.
"""

# --- notebooks/04b_summarising_history.ipynb, cell 79d15c35 ---
from langgraph.graph import MessagesState


class State(MessagesState):
    summary: str

# --- notebooks/04b_summarising_history.ipynb, cell d0b79e46 ---
from typing import Literal

from langchain_core.messages import HumanMessage, RemoveMessage, SystemMessage
from langgraph.graph import END, START, StateGraph

from course_utils.window.sequences import valid_tail


def build_summarizing_chatbot(model, checkpointer, should_summarise=None, keep_last=2):
    """The how-to's summarising chatbot; should_summarise(messages) is the trigger (default: more than 6)."""
    if should_summarise is None:
        def should_summarise(messages):
            return len(messages) > 6

    def call_model(state: State):
        summary = state.get("summary", "")
        messages = state["messages"]
        if summary:  # the summary goes in front, as a system message
            messages = [SystemMessage(content=f"Summary of conversation earlier: {summary}")] + messages
        return {"messages": [model.invoke(messages)]}

    def should_continue(state: State) -> Literal["summarize_conversation", END]:
        return "summarize_conversation" if should_summarise(state["messages"]) else END

    def summarize_conversation(state: State):
        summary = state.get("summary", "")
        if summary:
            prompt = (
                f"This is summary of the conversation to date: {summary}\n\n"
                "Extend the summary by taking into account the new messages above:"
            )
        else:
            prompt = "Create a summary of the conversation above:"
        response = model.invoke(state["messages"] + [HumanMessage(content=prompt)])
        kept = valid_tail(state["messages"], keep_last)  # the last keep_last, never a tool result without its call
        older = state["messages"][: len(state["messages"]) - len(kept)]
        return {"summary": response.text, "messages": [RemoveMessage(id=m.id) for m in older]}

    workflow = StateGraph(State)
    workflow.add_node("conversation", call_model)
    workflow.add_node(summarize_conversation)
    workflow.add_edge(START, "conversation")
    workflow.add_conditional_edges("conversation", should_continue)
    workflow.add_edge("summarize_conversation", END)
    return workflow.compile(checkpointer=checkpointer)

# --- notebooks/04b_summarising_history.ipynb, cell 7f7a9c56 ---
from langgraph.checkpoint.sqlite import SqliteSaver


def erase_thread(saver, thread_id):
    """Delete every checkpoint of a thread; on SQLite leave no copy in the file's bytes either."""
    if isinstance(saver, SqliteSaver):
        saver.conn.execute("PRAGMA secure_delete = ON")  # deleted content is overwritten with zeros
    saver.delete_thread(thread_id)
    if isinstance(saver, SqliteSaver):
        saver.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # empty the write-ahead log, which keeps old pages


def restart_from_summary(graph, thread_id):
    """Erase a thread and start it again from its current state: the summary and the kept messages."""
    config = {"configurable": {"thread_id": thread_id}}
    values = graph.get_state(config).values
    erase_thread(graph.checkpointer, thread_id)
    graph.update_state(config, values, as_node="summarize_conversation")  # as if the summary node wrote it
    return values
