"""Long-term memory on PostgreSQL: a fact saved in thread A is recalled in thread B through PostgresStore.

Uses the real server of the shared ``postgres_url`` fixture (tests/conftest.py,
tests/postgres_support.py): skipped with the reason where none can start; CI
sets COURSE_REQUIRE_POSTGRES=1 to fail instead.
"""

from langgraph.store.postgres import PostgresStore

from course_utils.agentic.memory import ask, build_memory_agent, recall


def test_a_fact_saved_in_thread_a_is_recalled_in_thread_b_on_postgres(postgres_url):
    with PostgresStore.from_conn_string(postgres_url) as store:
        store.setup()
        agent = build_memory_agent(store)
        assert ask(agent, "Remember that my favourite colour is green.", thread_id="A", user_id="sara").calls == [
            ("save_memory", {"text": "my favourite colour is green."})]
        fresh = ask(agent, "What's my favourite colour?", thread_id="B", user_id="sara")
        assert fresh.calls[0][0] == "recall_memory" and "green" in fresh.answer
    with PostgresStore.from_conn_string(postgres_url) as again:  # a new connection: the row is on the server
        assert [i.value["text"] for i in recall(again, "sara", "colour")] == ["my favourite colour is green."]
