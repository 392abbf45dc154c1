"""Saved from notebooks/04_langgraph_integration.ipynb by scripts/save_lessons.py: edit the lesson, not this file.

Each block below is one code cell of the lesson marked ``#@save``, in the lesson's order.
"""

# --- notebooks/04_langgraph_integration.ipynb, cell 4c5d25d4 ---
from langchain_core.messages import HumanMessage, trim_messages
from langgraph.graph import END, START, MessagesState, StateGraph


def build_trimming_chatbot(model, checkpointer, max_tokens=128, token_counter="approximate"):
    """A one-node chatbot: the state keeps every message, the model gets what fits in max_tokens."""

    def chatbot(state: MessagesState):
        trimmed = trim_messages(
            state["messages"],             # the full state: read, never changed
            max_tokens=max_tokens,
            token_counter=token_counter,
            strategy="last",               # keep the newest messages
            start_on="human",              # never start on a reply or a tool result (lesson 03b)
            include_system=True,           # the system prompt always goes along
        )
        return {"messages": [model.invoke(trimmed)]}  # only the reply is appended to the state

    builder = StateGraph(MessagesState)
    builder.add_node("chatbot", chatbot)
    builder.add_edge(START, "chatbot")
    builder.add_edge("chatbot", END)
    return builder.compile(checkpointer=checkpointer)


def chat(graph, thread_id, text):
    """Send one human message on a thread and return the reply's text."""
    config = {"configurable": {"thread_id": thread_id}}
    result = graph.invoke({"messages": [HumanMessage(text)]}, config)
    return result["messages"][-1].text
