"""Offloading: a tool result too large for the window goes to the store; the window keeps a pointer (lesson 07).

:class:`OffloadLargeResults` is agent middleware (LangChain's
``wrap_tool_call`` hook): after a tool runs, a result over ``max_tokens``
(exact counter) is written to the agent's store under
``("offloaded", thread_id)`` and the model is sent a short pointer in its
place: the id, the size, a few lines of summary and the tool that reads it
back. :func:`read_result` is that tool. The full result never enters the
history unless the agent asks for it.

Lesson 07 writes the same middleware with ``@wrap_tool_call`` in its cells
(saved to ``course_utils.lessons.lesson07``: ``offload_large_results``,
``read_result``, ``pointer_text``); :class:`OffloadLargeResults` and
:func:`offload_agent` stay for the exercise 07 check and the tests, which
import them (``agentic`` sits below ``lessons``). The lesson takes
:func:`read_file` (the order export) from here.

>>> pointer_text("res-1", 20_012, "order 1001 | ...\\norder 1002 | ...", lines=2)
'[offloaded: 20,012 tokens stored as id res-1; call read_result to read it] 2 lines, beginning:\\norder 1001 | ...\\norder 1002 | ...'
"""

from __future__ import annotations

from dataclasses import dataclass

from langchain.agents.middleware import AgentMiddleware
from langchain.tools import ToolRuntime, tool
from langchain_core.messages import ToolMessage

from course_utils.window.tokens import count_text_tokens

#: The first label of the namespace offloaded results are kept under: ``("offloaded", thread_id)``.
OFFLOAD_LABEL = "offloaded"
#: A result over this many tokens (exact counter) is offloaded.
OFFLOAD_TOKENS = 1000
#: How many of the result's first lines the pointer quotes.
SUMMARY_LINES = 3

STATUSES = ("shipped", "delivered", "processing", "delivered", "shipped", "delivered")
CUSTOMERS = ("Ana", "Bruno", "Carla", "Diogo", "Elena", "Filipe", "Gabriela", "Hugo", "Ines", "Joao")


def order_lines(count: int = 500, *, start: int = 1001, refunded: int = 1427) -> list[str]:
    """A deterministic order export, one line per order; order ``refunded`` is the one line that says so.

    >>> order_lines(2)
    ['order 1001 | customer Ana | items 2 | total 23.17 EUR | status shipped', 'order 1002 | customer Bruno | items 3 | total 46.34 EUR | status delivered']
    """
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise ValueError(f"count must be a positive integer, got {count!r}")
    lines = []
    for n in range(start, start + count):
        i = n - start
        status = "refunded" if n == refunded else STATUSES[i % len(STATUSES)]
        lines.append(f"order {n} | customer {CUSTOMERS[i % len(CUSTOMERS)]} | items {i % 5 + 2} | "
                     f"total {(i * 23.17) % 200 + 23.17:.2f} EUR | status {status}")
    return lines


@tool
def read_file(path: str) -> str:
    """Read a file of the shop's records and return its text."""
    if not path.endswith(".csv"):
        return f"No such file: {path}. The shop's files are orders/march.csv and orders/april.csv."
    return "\n".join(order_lines(ORDER_COUNT))


#: The export's size: about 20,000 tokens.
ORDER_COUNT = 800


def pointer_text(result_id: str, tokens: int, content: str, lines: int = SUMMARY_LINES) -> str:
    """What the model is sent instead of an offloaded result."""
    all_lines = content.splitlines()
    head = "\n".join(all_lines[:lines])
    return (f"[offloaded: {tokens:,} tokens stored as id {result_id}; call read_result to read it] "
            f"{len(all_lines)} lines, beginning:\n{head}")


@dataclass(frozen=True)
class Offloaded:
    """One result the middleware moved out of the window."""

    result_id: str
    tool: str
    tokens: int
    pointer_tokens: int



class OffloadLargeResults(AgentMiddleware):
    """Middleware: tool results over ``max_tokens`` go to the store; the model gets a pointer.

    Needs the agent to have a store (``create_agent(..., store=...)``) and a
    thread id. ``offloaded`` records each move, for measuring.
    """

    def __init__(self, max_tokens: int = OFFLOAD_TOKENS, *, summary_lines: int = SUMMARY_LINES):
        super().__init__()
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
            raise ValueError(f"max_tokens must be a positive integer, got {max_tokens!r}")
        if not isinstance(summary_lines, int) or isinstance(summary_lines, bool) or summary_lines < 0:
            raise ValueError(f"summary_lines must be a non-negative integer, got {summary_lines!r}")
        self.max_tokens = max_tokens
        self.summary_lines = summary_lines
        self.offloaded: list[Offloaded] = []

    def wrap_tool_call(self, request, handler):
        result = handler(request)
        if not isinstance(result, ToolMessage) or result.name == "read_result":
            return result
        content = result.text
        tokens = count_text_tokens(content)
        if tokens <= self.max_tokens:
            return result
        store = request.runtime.store
        if store is None:
            raise ValueError("OffloadLargeResults needs a store: create_agent(..., store=InMemoryStore())")
        namespace = (OFFLOAD_LABEL, thread_id_of(request.runtime))
        result_id = f"res-{len(store.search(namespace, limit=10_000)) + 1}"
        store.put(namespace, result_id, {"tool": result.name, "content": content, "tokens": tokens})
        pointer = pointer_text(result_id, tokens, content, self.summary_lines)
        self.offloaded.append(Offloaded(result_id, result.name or "", tokens, count_text_tokens(pointer)))
        return result.model_copy(update={"content": pointer})


def thread_id_of(runtime) -> str:
    """The thread id of the run a tool or middleware is in (``"default"`` when none was given)."""
    config = getattr(runtime, "config", None) or {}
    return str(config.get("configurable", {}).get("thread_id", "default"))


@tool
def read_result(result_id: str, runtime: ToolRuntime) -> str:
    """Read back a tool result that was offloaded (stored as id res-N), in full."""
    item = runtime.store.get((OFFLOAD_LABEL, thread_id_of(runtime)), result_id) if runtime.store else None
    if item is None:
        return f"No offloaded result with id {result_id!r}."
    return item.value["content"]


def offload_agent(model=None, *, offload: bool = True, max_tokens: int = OFFLOAD_TOKENS, middleware=None):
    """``create_agent`` with :func:`read_file` and :func:`read_result`, a store, and (optionally) the middleware.

    Returns ``(agent, middleware or None)``; ``middleware`` replaces
    :class:`OffloadLargeResults` (an exercise passes the learner's). The default model is the course's
    with a 128,000-token window, like today's real models.
    """
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore

    from course_utils.model.chat import get_chat_model

    if middleware is None and offload:
        middleware = OffloadLargeResults(max_tokens)
    agent = create_agent(model or get_chat_model(context_window=128_000), tools=[read_file, read_result],
                         middleware=[middleware] if middleware else [], store=InMemoryStore(),
                         checkpointer=InMemorySaver())
    return agent, middleware
