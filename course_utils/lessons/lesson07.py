"""Saved from notebooks/07_beyond_one_window.ipynb by scripts/save_lessons.py: edit the lesson, not this file.

Each block below is one code cell of the lesson marked ``#@save``, in the lesson's order.
"""

# --- notebooks/07_beyond_one_window.ipynb, cell 886d0dce ---
from dataclasses import dataclass

from langchain.agents import create_agent
from langchain.tools import ToolRuntime, tool
from langgraph.checkpoint.memory import InMemorySaver

from course_utils.agentic.memory import fact_key, recall
from course_utils.model.chat import get_chat_model


@dataclass
class UserContext:
    """Who the agent is talking to: passed as context= on every invoke."""
    user_id: str


@tool
def save_memory(text: str, runtime: ToolRuntime[UserContext]) -> str:
    """Save a fact about the user to long-term memory, for later conversations."""
    namespace = ("memories", runtime.context.user_id)
    key = fact_key(text) or f"note-{len(runtime.store.search(namespace, limit=1000)) + 1}"
    old = runtime.store.get(namespace, key)
    runtime.store.put(namespace, key, {"text": text, "source": "user"})
    replaced = f" (replaces: {old.value['text']})" if old else ""
    return f"Saved to memory ({key}): {text}{replaced}"


@tool
def recall_memory(query: str, runtime: ToolRuntime[UserContext]) -> str:
    """Search long-term memory for saved facts about the user."""
    found = recall(runtime.store, runtime.context.user_id, query)
    return "\n".join(item.value["text"] for item in found) or "No memories saved yet."


MEMORY_PROMPT = "You are a helpful assistant. Save facts about the user with save_memory; search them with recall_memory."


def memory_agent(store, tools=(save_memory, recall_memory)):
    """create_agent with the memory tools, a store, the user context and a checkpointer."""
    return create_agent(get_chat_model(), tools=list(tools), system_prompt=MEMORY_PROMPT,
                        store=store, context_schema=UserContext, checkpointer=InMemorySaver())

# --- notebooks/07_beyond_one_window.ipynb, cell 959a102a ---
from langchain.agents.middleware import wrap_tool_call
from langchain.tools import ToolRuntime, tool

from course_utils.window.tokens import count_text_tokens

OFFLOAD_TOKENS = 1000  # a result over this many tokens leaves the window


def pointer_text(result_id, tokens, content, lines=3):
    """What the model is sent instead of an offloaded result."""
    all_lines = content.splitlines()
    return (f"[offloaded: {tokens:,} tokens stored as id {result_id}; call read_result to read it] "
            f"{len(all_lines)} lines, beginning:\n" + "\n".join(all_lines[:lines]))


@wrap_tool_call
def offload_large_results(request, handler):
    """Put a tool result over OFFLOAD_TOKENS in the store; send the model a pointer to it."""
    result = handler(request)  # run the tool
    tokens = count_text_tokens(result.text)
    if result.name == "read_result" or tokens <= OFFLOAD_TOKENS:
        return result
    store = request.runtime.store
    namespace = ("offloaded", request.runtime.config["configurable"]["thread_id"])
    result_id = f"res-{len(store.search(namespace, limit=1000)) + 1}"
    store.put(namespace, result_id, {"tool": result.name, "content": result.text, "tokens": tokens})
    return result.model_copy(update={"content": pointer_text(result_id, tokens, result.text)})


@tool
def read_result(result_id: str, runtime: ToolRuntime) -> str:
    """Read back a tool result that was offloaded (stored as id res-N), in full."""
    item = runtime.store.get(("offloaded", runtime.config["configurable"]["thread_id"]), result_id)
    return item.value["content"] if item else f"No offloaded result with id {result_id!r}."
