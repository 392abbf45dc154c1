"""Long-term memory on PostgreSQL: a fact saved in thread A is recalled in thread B through PostgresStore.

Lesson 07's own agent (its cells, saved to ``course_utils/lessons/lesson07.py``)
runs on the real server of the shared ``postgres_url`` fixture (tests/conftest.py,
tests/postgres_support.py): skipped with the reason where none can start; CI
sets COURSE_REQUIRE_POSTGRES=1 to fail instead.
"""

from langchain_core.messages import HumanMessage, ToolMessage
from langgraph.store.postgres import PostgresStore

from course_utils.agentic.memory import recall
from course_utils.lessons.lesson07 import UserContext, memory_agent


def ask(agent, text, thread, user):
    return agent.invoke({"messages": [HumanMessage(text)]}, {"configurable": {"thread_id": thread}},
                        context=UserContext(user))["messages"]


def test_a_fact_saved_in_thread_a_is_recalled_in_thread_b_on_postgres(postgres_url):
    with PostgresStore.from_conn_string(postgres_url) as store:
        store.setup()
        agent = memory_agent(store)
        told = ask(agent, "Remember that my favourite colour is green.", "A", "sara")
        assert [c for m in told for c in getattr(m, "tool_calls", [])][0]["args"] == {
            "text": "my favourite colour is green."}
        fresh = ask(agent, "What's my favourite colour?", "B", "sara")
        assert [m.name for m in fresh if isinstance(m, ToolMessage)] == ["recall_memory"]
        assert "green" in fresh[-1].text
    with PostgresStore.from_conn_string(postgres_url) as again:  # a new connection: the row is on the server
        assert [i.value["text"] for i in recall(again, "sara", "colour")] == ["my favourite colour is green."]
