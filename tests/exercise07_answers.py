"""Right, wrong and hostile answers to exercise 07, as a learner would write them (used by tests/test_checks_table.py)."""

from __future__ import annotations

from langchain.agents.middleware import wrap_tool_call
from langchain.tools import ToolRuntime, tool

from course_utils.agentic.memory import UserContext
from course_utils.agentic.offload import pointer_text, thread_id_of
from course_utils.checks.subagent_decision import billed_calls
from course_utils.window.costs import bill
from course_utils.window.tokens import count_text_tokens


# --- q1 -------------------------------------------------------------------------------------------

@tool
def save_fact(text: str, runtime: ToolRuntime[UserContext]) -> str:
    """Save a fact about the user to long-term memory."""
    namespace = ("memories", runtime.context.user_id)
    key = f"fact-{len(runtime.store.search(namespace, limit=1000)) + 1}"
    runtime.store.put(namespace, key, {"text": text})
    return f"Saved: {text}"


@tool("save_fact")
def save_fact_uuid(text: str, runtime: ToolRuntime[UserContext]) -> str:
    """Remember a fact the user tells you, in long-term memory."""
    import uuid

    runtime.store.put(("memories", runtime.context.user_id), uuid.uuid4().hex, {"text": text})
    return "Noted."


@tool("save_fact")
def hard_coded_user(text: str, runtime: ToolRuntime[UserContext]) -> str:
    """Save a fact about the user to long-term memory."""
    namespace = ("memories", "sara")
    runtime.store.put(namespace, f"fact-{len(runtime.store.search(namespace, limit=1000)) + 1}", {"text": text})
    return f"Saved: {text}"


@tool("save_fact")
def returns_none(text: str, runtime: ToolRuntime[UserContext]) -> None:
    """Save a fact about the user to long-term memory."""
    namespace = ("memories", runtime.context.user_id)
    runtime.store.put(namespace, f"fact-{len(runtime.store.search(namespace, limit=1000)) + 1}", {"text": text})


@tool("save_fact")
def one_key(text: str, runtime: ToolRuntime[UserContext]) -> str:
    """Save a fact about the user to long-term memory."""
    runtime.store.put(("memories", runtime.context.user_id), "fact", {"text": text})
    return "Saved."


@tool("save_fact")
def empty_confirmation(text: str, runtime: ToolRuntime[UserContext]) -> str:
    """Save a fact about the user to long-term memory."""
    namespace = ("memories", runtime.context.user_id)
    runtime.store.put(namespace, f"fact-{len(runtime.store.search(namespace, limit=1000)) + 1}", {"text": text})
    return ""


@tool("save_fact")
def saves_nothing(text: str, runtime: ToolRuntime[UserContext]) -> str:
    """Save a fact about the user to long-term memory."""
    return f"Saved: {text}"


@tool("save_fact")
def shared_namespace(text: str, runtime: ToolRuntime[UserContext]) -> str:
    """Save a fact about the user to long-term memory."""
    namespace = ("memories",)
    runtime.store.put(namespace, f"fact-{len(runtime.store.search(namespace, limit=1000)) + 1}", {"text": text})
    return f"Saved: {text}"


@tool
def note(text: str) -> str:
    """Write down a note."""
    return "ok"


# --- q2 -------------------------------------------------------------------------------------------

def _offloader(threshold, *, count=count_text_tokens, thread=None, with_count=True, skip_read=True, keep_small=True):
    @wrap_tool_call
    def offload_big(request, handler):
        result = handler(request)
        tokens = count(result.text)
        if (skip_read and request.tool_call["name"] == "read_result") or tokens <= threshold:
            return result
        namespace = ("offloaded", thread or thread_id_of(request.runtime))
        result_id = f"res-{len(request.runtime.store.search(namespace, limit=1000)) + 1}"
        request.runtime.store.put(namespace, result_id, {"content": result.text})
        pointer = (pointer_text(result_id, tokens, result.text) if with_count
                   else f"[offloaded: stored as id {result_id}; call read_result to read it]")
        return result.model_copy(update={"content": pointer})

    return offload_big


offload_right = _offloader(1000)
offload_15000 = _offloader(15_000)
offload_characters = _offloader(1000, count=len)
offload_hard_thread = _offloader(1000, thread="ex07")
offload_no_count = _offloader(1000, with_count=False)
offload_read_back_too = _offloader(1000, skip_read=False)
offload_1200 = _offloader(1200)


@wrap_tool_call
def offload_forgot_return(request, handler):
    result = handler(request)
    if count_text_tokens(result.text) <= 1000:
        return result
    request.runtime.store.put(("offloaded", thread_id_of(request.runtime)), "res-1", {"content": result.text})
    result.model_copy(update={"content": "stored as id res-1"})


@wrap_tool_call
def offload_everything(request, handler):
    result = handler(request)
    if request.tool_call["name"] == "read_result":
        return result
    request.runtime.store.put(("offloaded", thread_id_of(request.runtime)), "res-1", {"content": result.text})
    return result.model_copy(update={"content": pointer_text("res-1", count_text_tokens(result.text), result.text)})


# --- q4 -------------------------------------------------------------------------------------------

def pays_from(comparison, prices, caching):
    single, isolated = billed_calls(comparison.single), billed_calls(comparison.isolated)
    for k in range(1, len(comparison.single.requests) + 1):
        alone = bill([c for turn, c in single if turn <= k], prices, caching=caching).cost
        split = bill([c for turn, c in isolated if turn <= k], prices, caching=caching).cost
        if split < alone:
            return k
    return 0


def pays_from_tokens(comparison, prices, caching):
    from course_utils.agentic.subagents import cumulative_tokens

    pairs = zip(cumulative_tokens(comparison.single), cumulative_tokens(comparison.isolated))
    return next((k for k, (alone, split) in enumerate(pairs, start=1) if split < alone), 0)


def pays_from_no_caching(comparison, prices, caching):
    return pays_from(comparison, prices, False)


def typed_four(comparison, prices, caching):
    return 4


def typed_by_caching(comparison, prices, caching):
    return 0 if caching else 4


def pays_from_last_request_only(comparison, prices, caching):
    single, isolated = billed_calls(comparison.single), billed_calls(comparison.isolated)
    for k in range(1, len(comparison.single.requests) + 1):
        alone = bill([c for turn, c in single if turn == k], prices, caching=caching).cost
        split = bill([c for turn, c in isolated if turn == k], prices, caching=caching).cost
        if split < alone:
            return k
    return 0


Q4_REASONS = {1, 2, 3}
WORD_SALAD = "It is the save of facts and the small call, the pages and the sub-agent and the cache."
