"""The graphs lessons 04 and 04b write in their cells (saved to course_utils.lessons) and the package's variants agree.

``course_utils.agentic.graphs`` keeps a checked variant of each builder for
exercise 04, appendix A1 and the PostgreSQL tests (arguments checked by name,
a checkpointer chosen from ``COURSE_CHECKPOINT_URL``, ``max_messages`` /
``max_tokens`` triggers). It sits in a lower layer than the saved lessons,
so it cannot import them; these tests keep the two from drifting apart: the
same dialogue sends the model the same calls and leaves the same state.
"""

import sqlite3

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver

from course_utils.agentic import graphs
from course_utils.agentic.checkpoints import checkpoints_holding, file_copies
from course_utils.core.samples import load_conversation
from course_utils.lessons import lesson04, lesson04b
from course_utils.model.chat import OfflineChatModel
from course_utils.window.tokens import exact_counter

BOB = [m.text for m in load_conversation("bob") if m.type == "human"]


def texts(calls):
    return [[(m.type, m.text) for m in call] for call in calls]


def run(graph, thread="bob"):
    return [lesson04.chat(graph, thread, text) for text in BOB]


@pytest.mark.parametrize("max_tokens", [40, 100, 128])
def test_the_lessons_trimming_chatbot_sends_what_the_packages_sends(max_tokens):
    saved_model, package_model = OfflineChatModel(token_counter="exact"), OfflineChatModel(token_counter="exact")
    saved = lesson04.build_trimming_chatbot(saved_model, InMemorySaver(), max_tokens=max_tokens, token_counter=exact_counter)
    package = graphs.build_trimming_chatbot(package_model, max_tokens=max_tokens, token_counter="exact",
                                            checkpointer=InMemorySaver())
    assert run(saved) == run(package)
    assert texts(saved_model.calls) == texts(package_model.calls)
    assert all(exact_counter(call) <= max_tokens for call in saved_model.calls)
    assert len(graphs.stored_messages(saved, "bob")) == 2 * len(BOB)  # the state keeps every message


def test_the_lessons_trimming_chatbot_keeps_the_system_prompt_and_starts_on_a_human_message():
    model = OfflineChatModel(token_counter="exact")
    graph = lesson04.build_trimming_chatbot(model, InMemorySaver(), max_tokens=60, token_counter=exact_counter)
    graph.invoke({"messages": [SystemMessage("Be brief.", id="s"), *load_conversation("bob")[:9]]},
                 {"configurable": {"thread_id": "t"}})
    [sent] = model.calls
    assert sent[0].type == "system" and sent[1].type == "human"


@pytest.mark.parametrize("trigger", ["count", "tokens"])
def test_the_lessons_summarising_chatbot_behaves_as_the_packages(trigger):
    saved_model, package_model = OfflineChatModel(token_counter="exact"), OfflineChatModel(token_counter="exact")
    if trigger == "count":
        saved = lesson04b.build_summarizing_chatbot(saved_model, InMemorySaver())
        package = graphs.build_summarizing_chatbot(package_model, checkpointer=InMemorySaver())
    else:
        saved = lesson04b.build_summarizing_chatbot(saved_model, InMemorySaver(),
                                                    should_summarise=lambda messages: exact_counter(messages) > 120)
        package = graphs.build_summarizing_chatbot(package_model, max_messages=100, max_tokens=120,
                                                   token_counter="exact", checkpointer=InMemorySaver())
    assert run(saved) == run(package)
    assert texts(saved_model.calls) == texts(package_model.calls)
    config = {"configurable": {"thread_id": "bob"}}
    saved_state, package_state = saved.get_state(config).values, package.get_state(config).values
    assert saved_state["summary"] == package_state["summary"] and "Bob" in saved_state["summary"]
    assert [m.text for m in saved_state["messages"]] == [m.text for m in package_state["messages"]]


def test_the_lessons_summary_node_keeps_a_valid_tail():
    agent = load_conversation("agent_tools")[1:16]
    model = OfflineChatModel()
    graph = lesson04b.build_summarizing_chatbot(model, InMemorySaver(), should_summarise=lambda messages: True)
    config = {"configurable": {"thread_id": "agent"}}
    graph.update_state(config, {"messages": agent})
    graph.invoke({"messages": [HumanMessage("and the weather?")]}, config)
    kept = graph.get_state(config).values["messages"]
    assert kept[0].type == "human"
    assert not [m for m in kept if m.type == "tool" and not any(
        call["id"] == m.tool_call_id for a in kept if a.type == "ai" for call in a.tool_calls)]


def test_the_lessons_restart_from_summary_erases_the_removed_messages(tmp_path):
    db = tmp_path / "erase.sqlite"
    saver = SqliteSaver(sqlite3.connect(db, check_same_thread=False))
    graph = lesson04b.build_summarizing_chatbot(OfflineChatModel(), saver)
    run(graph)
    assert checkpoints_holding(saver, "hi! I'm bob", "bob").holding > 0  # RemoveMessage did not erase
    values = lesson04b.restart_from_summary(graph, "bob")
    assert "Bob" in values["summary"]
    reader = SqliteSaver(sqlite3.connect(db, check_same_thread=False))
    assert checkpoints_holding(reader, "hi! I'm bob").holding == 0
    assert file_copies(db, "hi! I'm bob") == 0
    assert lesson04.chat(graph, "bob", "what's my name?") == "Your name is Bob."
