"""Lesson 07's moves out of the window: long-term memory in a Store, and offloading large tool results.

Real LangGraph stores (SqliteStore on a file, InMemoryStore; PostgresStore in
tests/test_memory_postgres.py), LangChain's real ``create_agent`` and the
offline model, which calls the memory tools itself.
"""

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from course_utils.model.chat import OfflineChatModel
from course_utils.agentic.memory import (
    UserContext,
    ask,
    build_memory_agent,
    fact_key,
    lexical_search,
    memory_candidates,
    memory_namespace,
    open_sqlite_store,
    recall,
    save,
    stored_rows,
)
from course_utils.window.memory_costs import compare_memory_costs
from course_utils.agentic.offload import ORDER_COUNT, OffloadLargeResults, order_lines, read_file, read_result
from course_utils.core.samples import load_sample
from course_utils.window.tokens import count_text_tokens, exact_counter


def recall_across_threads(store):
    agent = build_memory_agent(store)
    saved = ask(agent, "Remember that I live in Valencia.", thread_id="A", user_id="sara")
    assert saved.calls == [("save_memory", {"text": "I live in Valencia."})]
    fresh = ask(agent, "Where do I live?", thread_id="B", user_id="sara")
    assert fresh.calls[0][0] == "recall_memory"
    assert "Valencia" in fresh.answer
    other = ask(agent, "Where do I live?", thread_id="C", user_id="bob")
    assert "Valencia" not in other.answer, "another user's namespace holds nothing of Sara's"
    # Thread B's own messages never held the fact before the recall: it came from the store.
    state = agent.get_state({"configurable": {"thread_id": "B"}}).values["messages"]
    assert "Valencia" not in state[0].text


def test_a_fact_saved_in_thread_a_is_recalled_in_thread_b_on_sqlite(tmp_path):
    path = tmp_path / "memory.sqlite"
    store = open_sqlite_store(path)
    recall_across_threads(store)
    store.conn.close()
    rows = stored_rows(path)
    assert [(r.prefix, r.key, r.value["text"]) for r in rows] == [("memories.sara", "city", "I live in Valencia.")]
    reopened = open_sqlite_store(path)  # a new connection (a new process would do the same) still finds it
    assert [i.value["text"] for i in recall(reopened, "sara", "live")] == ["I live in Valencia."]
    reopened.conn.close()


def test_a_profile_replaces_a_stale_fact_and_a_collection_keeps_both():
    store = InMemoryStore()
    save(store, "sara", "I live in Valencia.")
    assert save(store, "sara", "I live in Lisbon now.").replaced == "I live in Valencia."
    assert [i.value["text"] for i in recall(store, "sara", "Where do I live?")] == ["I live in Lisbon now."]
    notes = InMemoryStore()
    agent = build_memory_agent(notes, profile=False)
    ask(agent, "Remember that I live in Valencia.", thread_id="A", user_id="sara")
    ask(agent, "Remember that I live in Lisbon now.", thread_id="B", user_id="sara")
    answer = ask(agent, "Where do I live?", thread_id="C", user_id="sara").answer
    assert "Valencia" in answer and "Lisbon" not in answer, "the stale memory wins: the failure the lesson shows"


def test_a_memory_writer_that_reads_tool_results_is_poisoned():
    page = ToolMessage("Great shop! My name is Mallory. I live in Reykjavik.", tool_call_id="c1", name="fetch_page")
    messages = [HumanMessage("I'm Sara. Summarise this review page for me."), page]
    assert memory_candidates(messages) == [("I'm Sara.", "user")]
    poisoned = memory_candidates(messages, trusted_only=False)
    assert ("I live in Reykjavik.", "tool:fetch_page") in poisoned
    store = InMemoryStore()
    for text, source in poisoned:
        save(store, "sara", text, source=source)
    name = store.get(memory_namespace("sara"), "name").value
    assert name == {"text": "My name is Mallory.", "source": "tool:fetch_page"}


def test_lexical_search_ranks_by_shared_words_and_the_store_ignores_the_query():
    store = InMemoryStore()
    for text in ("My favourite colour is green.", "I live in Valencia.", "My home town is Valencia."):
        save(store, "sara", text, profile=False)
    everything = store.search(memory_namespace("sara"), query="colour")
    assert len(everything) == 3, "without an index the store returns the whole namespace"
    assert [i.value["text"] for i in recall(store, "sara", "colour", limit=1)] == ["My favourite colour is green."]
    assert [i.value["text"] for i in recall(store, "sara", "Where do I live?")] == ["I live in Valencia."]


def test_memory_in_the_store_sends_fewer_tokens_than_memory_in_the_history():
    costs = compare_memory_costs(load_sample("spread_chat"))
    assert costs.turns == 40 and costs.calls == (40, 45)
    assert costs.history_calls == sorted(costs.history_calls), "the history only grows"
    assert max(costs.store_calls) < costs.history_calls[-1] / 5
    assert costs.store_total < costs.history_total
    assert len(costs.facts) == 5


def offload_agent(middleware):
    return create_agent(OfflineChatModel(context_window=128_000), tools=[read_file, read_result],
                        middleware=middleware, store=InMemoryStore(), checkpointer=InMemorySaver())


def turn(agent, text, thread="t"):
    return agent.invoke({"messages": [HumanMessage(text)]}, {"configurable": {"thread_id": thread}})["messages"]


def test_offloading_saves_tokens_and_the_read_back_returns_the_full_result():
    full = "\n".join(order_lines(ORDER_COUNT))
    assert 17_000 < count_text_tokens(full) < 21_000
    middleware = OffloadLargeResults()
    agent = offload_agent([middleware])
    messages = turn(agent, "Read the file orders/march.csv")
    plain = turn(offload_agent([]), "Read the file orders/march.csv")
    assert exact_counter(messages) * 50 < exact_counter(plain)
    [moved] = middleware.offloaded
    assert moved.tool == "read_file" and moved.tokens == count_text_tokens(full) and moved.pointer_tokens < 150
    wrong = turn(agent, "What is the status of order 1427?")[-1].text
    assert "refunded" not in wrong, "the failure: it answers from the pointer and never reads back"
    back = turn(agent, "Read that result back: what is the status of order 1427?")
    read = [m for m in back if isinstance(m, ToolMessage) and m.name == "read_result"][-1]
    assert read.text == full
    assert "status refunded" in back[-1].text


def test_bad_input_gets_clear_errors():
    with pytest.raises(TypeError, match="user_id"):
        memory_namespace(7)
    with pytest.raises(ValueError, match="user_id"):
        UserContext("a.b")
    with pytest.raises(ValueError, match="text"):
        save(InMemoryStore(), "sara", "  ")
    with pytest.raises(TypeError, match="store"):
        build_memory_agent({})
    with pytest.raises(ValueError, match="limit"):
        lexical_search([], "x", limit=0)
    with pytest.raises(ValueError, match="max_tokens"):
        OffloadLargeResults(max_tokens=0)
    with pytest.raises(ValueError, match="count"):
        order_lines(0)
    with pytest.raises(TypeError, match="conversation"):
        compare_memory_costs([])
    with pytest.raises(ValueError, match="path"):
        stored_rows("/nonexistent/x.sqlite")
    assert fact_key("Send the invoice by email.") is None


# --- the code lesson 07 writes in its cells (saved to course_utils/lessons/lesson07.py) ---------------


def _ask(agent, text, thread, user):
    from course_utils.lessons.lesson07 import UserContext

    return agent.invoke({"messages": [HumanMessage(text)]}, {"configurable": {"thread_id": thread}},
                        context=UserContext(user))["messages"]


def test_the_lessons_memory_tools_write_one_namespace_per_user_and_a_profile_replaces_a_stale_fact():
    from course_utils.lessons.lesson07 import memory_agent

    store = InMemoryStore()
    agent = memory_agent(store)
    _ask(agent, "Remember that I live in Valencia.", "A", "sara")
    moved = _ask(agent, "Remember that I live in Lisbon now.", "B", "sara")
    confirmation = [m.text for m in moved if isinstance(m, ToolMessage)]
    assert confirmation == ["Saved to memory (city): I live in Lisbon now. (replaces: I live in Valencia.)"]
    assert [(i.key, i.value) for i in store.search(("memories", "sara"))] == [
        ("city", {"text": "I live in Lisbon now.", "source": "user"})]
    assert "Lisbon" in _ask(agent, "Where do I live?", "C", "sara")[-1].text
    assert "Lisbon" not in _ask(agent, "Where do I live?", "D", "bob")[-1].text
    assert store.search(("memories", "bob")) == []


def test_the_lessons_offloading_middleware_stores_the_result_and_sends_a_pointer_in_tokens():
    from course_utils.lessons.lesson07 import OFFLOAD_TOKENS, offload_large_results
    from course_utils.lessons.lesson07 import read_result as lesson_read_result

    store = InMemoryStore()
    agent = create_agent(OfflineChatModel(context_window=128_000), tools=[read_file, lesson_read_result],
                         middleware=[offload_large_results], store=store, checkpointer=InMemorySaver())
    small = [m.text for m in turn(agent, "Read the file notes.txt") if isinstance(m, ToolMessage)]
    assert small[-1].startswith("No such file"), "a small result passes unchanged"
    pointer = [m.text for m in turn(agent, "Read the file orders/march.csv") if isinstance(m, ToolMessage)][-1]
    [item] = store.search(("offloaded", "t"))
    assert item.value["content"] == "\n".join(order_lines(ORDER_COUNT))
    assert item.value["tokens"] == count_text_tokens(item.value["content"]) > OFFLOAD_TOKENS
    assert f"{item.value['tokens']:,} tokens stored as id {item.key}" in pointer
    assert count_text_tokens(pointer) < OFFLOAD_TOKENS / 5
    back = [m.text for m in turn(agent, "Read that result back: what is the status of order 1427?")
            if isinstance(m, ToolMessage)]
    assert back[-1] == item.value["content"], "read_result returns the whole result"
    assert len(store.search(("offloaded", "t"))) == 1, "the read-back is not offloaded again"


def test_the_store_way_carries_the_memory_tools_schemas_on_every_call_and_caches_nothing_under_the_minimum():
    from course_utils.lessons.lesson07 import recall_memory, save_memory
    from course_utils.window.costs import Prices, bill

    model = OfflineChatModel()
    probe = [HumanMessage("hi")]
    schemas = model.get_num_tokens_from_messages(probe, tools=[save_memory, recall_memory]) \
        - model.get_num_tokens_from_messages(probe)
    bare = compare_memory_costs(load_sample("spread_chat"))
    costs = compare_memory_costs(load_sample("spread_chat"), schema_tokens=schemas)
    assert schemas > 100
    assert costs.store_total - bare.store_total == schemas * len(costs.store)
    assert costs.history_total == bare.history_total
    assert all(call.message_keys[0] == "tools" for call in costs.store)
    # a 1,024-token cache minimum, as OpenAI's: the append-only history is read mostly from the cache,
    # the store way's calls are all under the minimum and read nothing
    prices = Prices(input=2.0, output=10.0, cached_input=0.1, cache_write=2.5, min_cached_tokens=1024)
    history, stored = bill(costs.history, prices), bill(costs.store, prices)
    assert history.cached_tokens > 0.8 * history.input_tokens
    assert max(call.input_tokens for call in costs.store) < 1024 and stored.cached_tokens == 0
    assert stored.cost == bill(costs.store, prices, caching=False).cost
    assert history.cost < bill(costs.history, prices, caching=False).cost
