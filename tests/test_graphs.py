"""Tests for course_utils.agentic.graphs: real LangGraph graphs, real checkpointers, offline."""

import json
import subprocess
import sys
import textwrap

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, trim_messages
from langchain_core.runnables import RunnableLambda
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, MessagesState, StateGraph

from course_utils.model.chat import ContextWindowExceededError, OfflineChatModel
from course_utils.agentic.checkpoints import Holding, checkpoints_holding, erase_thread, file_copies, sqlite_checkpointer
from course_utils.model.facts import TEAMS
from course_utils.agentic.graphs import (
    CREATE_SUMMARY_PROMPT,
    EXTEND_SUMMARY_PROMPT,
    SUMMARY_PREFIX,
    build_summarizing_chatbot,
    build_trimming_chatbot,
    chat,
    graph_mermaid,
    replay,
    restart_from_summary,
    stored_messages,
    thread_config,
)
from course_utils.core.samples import load_conversation
from course_utils.window.sequences import orphaned_tool_messages, valid_tail
from course_utils.window.tokens import exact_counter, get_token_counter

BOB = [m.content for m in load_conversation("bob") if m.type == "human"]
NFL_TEAMS = [t for t in TEAMS.values() if t.league == "NFL"]


def test_the_sample_holds_the_how_to_dialogue():
    assert BOB == [
        "hi! I'm bob",
        "what's my name?",
        "i like the celtics!",
        "i like how much they win",
        "what's my name?",
        "what NFL team do you think I like?",
        "i like the patriots!",
    ]


# --- the trimming chatbot ---------------------------------------------------------------


@pytest.mark.parametrize("counter_name, max_tokens", [("approximate", 40), ("exact", 60), ("dummy", 30)])
def test_trimming_chatbot_trims_what_it_sends_and_keeps_everything(tmp_path, counter_name, max_tokens):
    model = OfflineChatModel()
    db_path = tmp_path / "t.sqlite"
    graph = build_trimming_chatbot(model, max_tokens=max_tokens, token_counter=counter_name, db_path=db_path)
    counter = get_token_counter(counter_name)
    first_ids = None
    for turn, text in enumerate(BOB, start=1):
        before = stored_messages(graph, "t")
        chat(graph, "t", text)
        after = stored_messages(graph, "t")
        # The state keeps every message, unchanged, and appends the turn's two.
        assert len(after) == 2 * turn
        assert [(m.id, m.content) for m in after[: len(before)]] == [(m.id, m.content) for m in before]
        sent = model.calls[-1]
        history = after[:-1]  # everything up to this turn's human message
        # Only the trimmed list reached the model: a valid, recent, in-budget slice.
        assert sent == trim_messages(history, max_tokens=max_tokens, token_counter=counter, start_on="human")
        assert sent == history[len(history) - len(sent):]
        assert counter(sent) <= max_tokens
        assert sent[0].type == "human" and sent[-1].content == text
        first_ids = first_ids or [m.id for m in after[:2]]
    assert [m.content for m in after if m.type == "human"] == BOB
    assert [m.id for m in after[:2]] == first_ids
    assert len(model.calls[-1]) < len(after) - 1  # it really trimmed


def test_trimming_lets_a_small_model_keep_talking(tmp_path):
    """Same small context window: without trimming the conversation overflows it, with trimming it never does."""
    window = 120
    small = OfflineChatModel(context_window=window)
    untrimmed = build_trimming_chatbot(small, max_tokens=10_000, checkpointer=InMemorySaver())
    with pytest.raises(ContextWindowExceededError) as info:
        replay(untrimmed, "u", BOB)
    assert info.value.limit == window and info.value.requested > window

    model = OfflineChatModel(context_window=window)
    trimmed = build_trimming_chatbot(model, max_tokens=window, token_counter=model, checkpointer=InMemorySaver())
    turns = replay(trimmed, "t", BOB)
    assert [t.messages for t in turns] == [2 * n for n in range(1, len(BOB) + 1)]
    assert max(u.usage_metadata["input_tokens"] for u in stored_messages(trimmed, "t") if u.type == "ai") <= window


def test_trimming_forgets_what_it_no_longer_sends():
    model = OfflineChatModel()
    graph = build_trimming_chatbot(model, max_tokens=40, checkpointer=InMemorySaver())
    turns = replay(graph, "t", ["hi! I'm bob", "i like the celtics!", "i like how much they win", "what's my name?"])
    assert "Bob" in turns[0].reply
    assert not any("bob" in m.text.lower() for m in model.calls[-1])
    assert turns[-1].reply != "Your name is Bob."
    assert any("bob" in m.content.lower() for m in stored_messages(graph, "t"))  # still stored


def test_trimming_chatbot_keeps_the_system_message():
    model = OfflineChatModel()
    graph = build_trimming_chatbot(model, max_tokens=60, checkpointer=InMemorySaver())
    graph.invoke({"messages": [SystemMessage("The user's name is Bob."), HumanMessage("hello")]}, thread_config("s"))
    for text in BOB[2:]:
        chat(graph, "s", text)
    assert all(call[0].type == "system" for call in model.calls)
    assert chat(graph, "s", "what's my name?") == "Your name is Bob."


def test_max_tokens_too_small_for_any_message_is_a_clear_error():
    graph = build_trimming_chatbot(OfflineChatModel(), max_tokens=2, checkpointer=InMemorySaver())
    with pytest.raises(ValueError, match="max_tokens=2"):
        chat(graph, "t", "hi! I'm bob")


# --- the summarising chatbot (the how-to) ------------------------------------------------


@pytest.fixture
def bob_replay():
    model = OfflineChatModel()
    graph = build_summarizing_chatbot(model, checkpointer=InMemorySaver())
    return model, graph, replay(graph, "4", BOB)


def test_the_prompts_are_the_how_tos():
    assert SUMMARY_PREFIX == "Summary of conversation earlier: "
    assert CREATE_SUMMARY_PROMPT == "Create a summary of the conversation above:"
    assert EXTEND_SUMMARY_PROMPT.format(summary="S") == (
        "This is summary of the conversation to date: S\n\n"
        "Extend the summary by taking into account the new messages above:"
    )


def test_no_summary_before_the_fourth_turn(bob_replay):
    _, _, turns = bob_replay
    assert [t.summary for t in turns[:3]] == ["", "", ""]
    assert [t.messages for t in turns[:3]] == [2, 4, 6]


def test_summary_after_the_fourth_turn_keeps_the_last_two(bob_replay):
    model, _, turns = bob_replay
    summary = turns[3].summary
    assert summary and "Bob" in summary and "Celtics" in summary
    assert turns[3].messages == 2
    create_calls = [c for c in model.calls if c[-1].content == CREATE_SUMMARY_PROMPT]
    assert len(create_calls) == 1 and len(create_calls[0]) == 9  # the 8 messages, then the prompt


def test_name_is_answered_from_the_summary_at_turn_five(bob_replay):
    model, _, turns = bob_replay
    assert turns[4].number == 5 and turns[4].human == "what's my name?"
    assert "Bob" in turns[4].reply
    sent = next(c for c in model.calls if c[-1].content == "what's my name?" and c[0].type == "system")
    assert sent[0].content == SUMMARY_PREFIX + turns[3].summary
    assert not any("bob" in m.text.lower() for m in sent[1:])  # only the summary held the name


def test_nfl_team_is_unknown_at_turn_six(bob_replay):
    _, _, turns = bob_replay
    reply = turns[5].reply
    assert "don't know" in reply
    assert not any(team.name in reply for team in NFL_TEAMS)
    assert turns[5].summary == turns[3].summary and turns[5].messages == 6


def test_summary_is_extended_after_the_patriots(bob_replay):
    model, graph, turns = bob_replay
    extended = turns[6].summary
    assert extended != turns[3].summary
    assert "Patriots" in extended and "Bob" in extended and "Celtics" in extended
    assert turns[6].messages == 2
    extend_calls = [c for c in model.calls if c[-1].content == EXTEND_SUMMARY_PROMPT.format(summary=turns[3].summary)]
    assert len(extend_calls) == 1
    kept = stored_messages(graph, "4")
    assert [m.type for m in kept] == ["human", "ai"] and kept[0].content == "i like the patriots!"


def test_summarizing_thresholds_are_parameters():
    graph = build_summarizing_chatbot(OfflineChatModel(), max_messages=2, keep_last=0, checkpointer=InMemorySaver())
    turns = replay(graph, "p", BOB[:3])
    assert turns[0].summary == "" and turns[0].messages == 2
    assert turns[1].summary and turns[1].messages == 0
    # keep_last=1 would keep a lone AI reply: the kept tail moves back to its question (valid_tail).
    graph = build_summarizing_chatbot(OfflineChatModel(), max_messages=2, keep_last=1, checkpointer=InMemorySaver())
    turns = replay(graph, "p", BOB[:3])
    assert turns[0].summary == "" and turns[0].messages == 2
    assert turns[1].summary and turns[1].messages == 2 and turns[2].messages == 2
    assert [(m.type, m.content) for m in stored_messages(graph, "p")] == [("human", BOB[2]), ("ai", turns[2].reply)]


def test_summarizing_can_trigger_by_tokens():
    counter = exact_counter
    graph = build_summarizing_chatbot(OfflineChatModel(), max_messages=100, max_tokens=60, token_counter=counter,
                                      checkpointer=InMemorySaver())
    turns = replay(graph, "t", BOB)
    first = next(t for t in turns if t.summary)
    # It summarised at the first turn whose stored messages passed 60 tokens, not at a message count.
    graph_by_count = build_summarizing_chatbot(OfflineChatModel(), checkpointer=InMemorySaver())
    assert first.number != next(t for t in replay(graph_by_count, "c", BOB) if t.summary).number
    unsummarised = build_summarizing_chatbot(OfflineChatModel(), max_messages=100, checkpointer=InMemorySaver())
    replay(unsummarised, "u", BOB[: first.number])
    grown = stored_messages(unsummarised, "u")
    assert counter(grown) > 60 and counter(grown[:-2]) <= 60
    with pytest.raises(ValueError, match="max_tokens must be >= 1, got 0"):
        build_summarizing_chatbot(OfflineChatModel(), max_tokens=0, checkpointer=InMemorySaver())


def agent_history_and_question():
    """lesson 03's tool-using agent run, without its system prompt, up to its last question."""
    messages = load_conversation("agent_tools")
    return messages[1:16], messages[16]


def test_summarizing_never_orphans_a_tool_result():
    history, question = agent_history_and_question()
    model = OfflineChatModel(token_counter="approximate", context_window=100_000)
    graph = build_summarizing_chatbot(model, max_messages=6, keep_last=4, checkpointer=InMemorySaver())
    config = thread_config("agent")
    graph.invoke({"messages": [*history, question]}, config)
    naive = [*history, question][-3:]  # what messages[-keep_last:] kept, with the node's reply as 4th
    assert naive[0].type == "tool" and orphaned_tool_messages(naive)  # the old slice would orphan it
    kept = stored_messages(graph, "agent")
    assert graph.get_state(config).values["summary"]
    assert kept[0].type == "human" and orphaned_tool_messages(kept) == []
    assert len(kept) > 4 and kept[-4].id == naive[0].id  # a longer tail, never a shorter one
    assert kept == valid_tail([*history, question, kept[-1]], 4)
    # The next turn is accepted: no InvalidToolSequenceError from the model.
    reply = chat(graph, "agent", "And what should I pack?")
    assert reply and not any(orphaned_tool_messages(call) for call in model.calls)
    assert stored_messages(graph, "agent")[0].type == "human"


def test_the_summary_is_the_replys_text_even_when_content_is_a_list():
    def blocks_model(messages):
        text = "The user's name is Bob." if "summary" in messages[-1].text else "Hello!"
        return AIMessage([{"type": "text", "text": text}], id=f"reply-{len(messages)}")

    graph = build_summarizing_chatbot(RunnableLambda(blocks_model), max_messages=2, keep_last=1, checkpointer=InMemorySaver())
    turns = replay(graph, "b", ["hi! I'm bob", "how are you?"])
    assert turns[1].summary == "The user's name is Bob."
    assert isinstance(graph.get_state(thread_config("b")).values["summary"], str)


# --- checkpointers and threads ------------------------------------------------------------


def test_sqlite_thread_is_read_back_from_a_new_process(tmp_path):
    db = tmp_path / "bob.sqlite"
    graph = build_summarizing_chatbot(OfflineChatModel(), db_path=db)
    replay(graph, "bob-thread", BOB[:4])
    graph.checkpointer.conn.close()

    script = textwrap.dedent(
        f"""
        import json
        from course_utils.agentic.graphs import build_summarizing_chatbot, chat, stored_messages
        graph = build_summarizing_chatbot(db_path={str(db)!r})
        before = [m.content for m in stored_messages(graph, "bob-thread")]
        summary = graph.get_state({{"configurable": {{"thread_id": "bob-thread"}}}}).values.get("summary", "")
        reply = chat(graph, "bob-thread", "what's my name?")
        print(json.dumps({{"before": before, "summary": summary, "reply": reply}}))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["before"][0] == BOB[3] and len(seen["before"]) == 2
    assert "Bob" in seen["summary"]
    assert seen["reply"] == "Your name is Bob."

    reopened = build_summarizing_chatbot(OfflineChatModel(), db_path=db)  # the child's turn is on disk too
    messages = stored_messages(reopened, "bob-thread")
    assert [m.content for m in messages[-2:]] == ["what's my name?", "Your name is Bob."]
    assert len({m.id for m in messages}) == len(messages)
    reopened.checkpointer.conn.close()


def test_two_threads_never_see_each_other(tmp_path):
    graph = build_summarizing_chatbot(OfflineChatModel(), db_path=tmp_path / "threads.sqlite")
    assert "Bob" in chat(graph, "a", "hi! I'm bob")
    reply_b = chat(graph, "b", "what's my name?")
    assert "Bob" not in reply_b and "don't know" in reply_b
    assert [m.content for m in stored_messages(graph, "b")][0] == "what's my name?"
    assert not any("bob" in m.content.lower() for m in stored_messages(graph, "b"))
    assert chat(graph, "a", "what's my name?") == "Your name is Bob."
    graph.checkpointer.conn.close()


@pytest.mark.parametrize("build", [build_trimming_chatbot, build_summarizing_chatbot])
def test_a_checkpointer_passed_in_is_used(tmp_path, build):
    saver = InMemorySaver()
    unused = tmp_path / "unused.sqlite"
    graph = build(OfflineChatModel(), checkpointer=saver, db_path=unused)
    chat(graph, "x", "hello")
    assert graph.checkpointer is saver
    assert saver.get_tuple(thread_config("x")) is not None
    assert not unused.exists()


@pytest.mark.parametrize("build", [build_trimming_chatbot, build_summarizing_chatbot])
def test_default_checkpointer_is_sqlite_on_db_path(tmp_path, build):
    db = tmp_path / "default.sqlite"
    graph = build(db_path=db)  # model=None: get_chat_model(), offline here
    assert isinstance(graph.checkpointer, SqliteSaver)
    assert chat(graph, "x", "hi! I'm bob").startswith("Hi Bob")
    assert db.exists() and db.stat().st_size > 0
    graph.checkpointer.conn.close()


@pytest.mark.parametrize("build", [build_trimming_chatbot, build_summarizing_chatbot])
def test_default_checkpointer_follows_course_checkpoint_url(tmp_path, monkeypatch, build):
    db = tmp_path / "lesson.sqlite"
    shared = tmp_path / "hub.sqlite"
    monkeypatch.setenv("COURSE_CHECKPOINT_URL", f"sqlite:///{shared}")
    graph = build(OfflineChatModel(), db_path=db)
    assert isinstance(graph.checkpointer, SqliteSaver)
    chat(graph, "x", "hi! I'm bob")
    graph.checkpointer.conn.close()
    assert shared.exists() and not db.exists()
    monkeypatch.setenv("COURSE_CHECKPOINT_URL", "  ")  # blank means unset: the lesson's file
    graph = build(OfflineChatModel(), db_path=db)
    chat(graph, "x", "hi! I'm bob")
    graph.checkpointer.conn.close()
    assert db.exists()


def test_default_checkpointer_is_course_checkpoints_sqlite_in_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    graph = build_trimming_chatbot(OfflineChatModel())
    chat(graph, "x", "hello")
    graph.checkpointer.conn.close()
    assert [p.name for p in tmp_path.glob("*.sqlite")] == ["course_checkpoints.sqlite"]


def test_sqlite_checkpointer_accepts_str_and_path(tmp_path):
    for path in (str(tmp_path / "a.sqlite"), tmp_path / "b.sqlite", ":memory:"):
        saver = sqlite_checkpointer(path)
        assert isinstance(saver, SqliteSaver)
        saver.conn.close()


def test_streaming_messages_works_offline():
    graph = build_summarizing_chatbot(OfflineChatModel(), checkpointer=InMemorySaver())
    events = graph.stream({"messages": [HumanMessage("hi! I'm bob")]}, thread_config("s"), stream_mode="messages")
    streamed = "".join(chunk.content for chunk, meta in events if meta["langgraph_node"] == "conversation")
    assert streamed.startswith("Hi Bob")


def test_graph_mermaid_is_text_with_the_nodes():
    summarizing = graph_mermaid(build_summarizing_chatbot(OfflineChatModel(), checkpointer=InMemorySaver()))
    assert "conversation" in summarizing and "summarize_conversation" in summarizing
    assert summarizing.lstrip().startswith("---") and "graph TD" in summarizing
    assert "chatbot" in graph_mermaid(build_trimming_chatbot(OfflineChatModel(), checkpointer=InMemorySaver()))


# --- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"max_tokens": 0}, ValueError, "max_tokens"),
        ({"max_tokens": True}, TypeError, "max_tokens"),
        ({"max_tokens": "128"}, TypeError, "'128'"),
        ({"token_counter": "bogus"}, ValueError, "bogus"),
        ({"token_counter": 42}, TypeError, "token_counter"),
        ({"strategy": "middle"}, ValueError, "'middle'"),
        ({"start_on": "humans"}, ValueError, "'humans'"),
        ({"start_on": 3}, TypeError, "start_on"),
        ({"include_system": "yes"}, TypeError, "include_system"),
        ({"strategy": "first"}, ValueError, "start_on"),  # trim_messages' own rule, at build time
        ({"model": "gpt-4o"}, TypeError, "model"),
        ({"checkpointer": object()}, TypeError, "checkpointer"),
        ({"db_path": 123}, TypeError, "db_path"),
        ({"db_path": ""}, ValueError, "db_path"),
        ({"db_path": "/no/such/folder/x.sqlite"}, ValueError, "/no/such/folder"),
    ],
)
def test_trimming_chatbot_bad_arguments(kwargs, error, words):
    kwargs = {"checkpointer": InMemorySaver(), **kwargs}
    model = kwargs.pop("model", OfflineChatModel())
    with pytest.raises(error, match=words):
        build_trimming_chatbot(model, **kwargs)


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"max_messages": 0}, ValueError, "max_messages"),
        ({"max_messages": 6.0}, TypeError, "max_messages"),
        ({"keep_last": -1}, ValueError, "keep_last"),
        ({"keep_last": 6}, ValueError, "keep_last"),
        ({"checkpointer": "memory"}, TypeError, "checkpointer"),
    ],
)
def test_summarizing_chatbot_bad_arguments(kwargs, error, words):
    kwargs = {"checkpointer": InMemorySaver(), **kwargs}
    with pytest.raises(error, match=words):
        build_summarizing_chatbot(OfflineChatModel(), **kwargs)


def test_helpers_bad_arguments():
    graph = build_summarizing_chatbot(OfflineChatModel(), checkpointer=InMemorySaver())
    with pytest.raises(ValueError, match="thread_id"):
        chat(graph, "  ", "hello")
    with pytest.raises(TypeError, match="thread_id"):
        chat(graph, 4, "hello")
    with pytest.raises(TypeError, match="text"):
        chat(graph, "t", 5)
    with pytest.raises(TypeError, match="graph"):
        chat("not a graph", "t", "hello")
    with pytest.raises(TypeError, match="texts"):
        replay(graph, "t", "hello")
    with pytest.raises(ValueError, match=r"texts\[1\]"):
        replay(graph, "t", ["hello", ""])
    with pytest.raises(TypeError, match="graph"):
        stored_messages(None, "t")
    with pytest.raises(TypeError, match="graph"):
        graph_mermaid(42)
    with pytest.raises(TypeError, match="path"):
        sqlite_checkpointer(5)
    with pytest.raises(ValueError, match="path"):
        sqlite_checkpointer("")
    builder = StateGraph(MessagesState)
    builder.add_node("echo", lambda state: {"messages": []})
    builder.add_edge(START, "echo")
    with pytest.raises(ValueError, match="checkpointer"):
        chat(builder.compile(), "t", "hello")



# --- erasing, as stored ------------------------------------------------------------------------

NAME = "hi! I'm bob"


def _raw_copies(db, text=NAME):
    """How often ``text`` appears in the bytes of the SQLite file and its -wal / -shm companions (read here, not
    with file_copies, so the test does not trust the function it checks)."""
    return sum(path.read_bytes().count(text.encode()) for path in db.parent.glob(db.name + "*"))


def test_remove_message_leaves_the_removed_text_in_earlier_checkpoints(tmp_path):
    saver = sqlite_checkpointer(tmp_path / "bob.sqlite")
    graph = build_summarizing_chatbot(OfflineChatModel(), checkpointer=saver)
    replay(graph, "bob", BOB[:4])
    assert NAME not in [m.content for m in stored_messages(graph, "bob")]  # the current state: removed
    held = checkpoints_holding(saver, NAME, "bob")
    history = list(graph.get_state_history(thread_config("bob")))
    assert held.total == len(history) > 1
    expected = sum(any(getattr(m, "content", None) == NAME for m in s.values.get("messages", [])) for s in history)
    assert held.holding >= expected > 0  # the past states LangGraph can go back to still hold it
    saver.conn.close()


def test_restart_from_summary_erases_the_removed_messages_from_the_file(tmp_path):
    db = tmp_path / "bob.sqlite"
    saver = sqlite_checkpointer(db)
    graph = build_summarizing_chatbot(OfflineChatModel(), checkpointer=saver)
    replay(graph, "bob", BOB[:4])
    replay(graph, "alice", ["hi! I'm alice"])
    alice_before = checkpoints_holding(saver, "alice", "alice")
    assert checkpoints_holding(saver, NAME, "bob").holding > 0
    assert _raw_copies(db) > 0
    current = graph.get_state(thread_config("bob")).values

    carried = restart_from_summary(graph, "bob")

    assert carried == current
    # Read back through a new connection, as another process would.
    reader = sqlite_checkpointer(db)
    assert checkpoints_holding(reader, NAME, "bob") == Holding(NAME, 0, 1)
    assert checkpoints_holding(reader, "Bob", "bob").holding == 1  # the summary keeps the name
    assert checkpoints_holding(reader, "alice", "alice") == alice_before  # other threads are untouched
    reader.conn.close()
    assert _raw_copies(db) == 0  # not in the database file, nor in its write-ahead log
    assert file_copies(db, NAME) == 0 and file_copies(db, "hi! I'm alice") == _raw_copies(db, "hi! I'm alice") > 0
    # The thread carries on from the summary, and the turn after it is a new one.
    assert graph.get_state(thread_config("bob")).next == ()
    assert chat(graph, "bob", "what's my name?") == "Your name is Bob."
    assert checkpoints_holding(saver, NAME, "bob").holding == 0
    saver.conn.close()


def test_delete_thread_alone_leaves_copies_in_the_write_ahead_log(tmp_path):
    """Why erase_thread does more than delete_thread on SQLite: the -wal file keeps the old pages."""
    db = tmp_path / "bob.sqlite"
    saver = sqlite_checkpointer(db)
    replay(build_summarizing_chatbot(OfflineChatModel(), checkpointer=saver), "bob", BOB[:4])
    saver.delete_thread("bob")
    assert checkpoints_holding(saver, NAME, "bob").total == 0
    assert _raw_copies(db) > 0
    erase_thread(saver, "bob")
    assert _raw_copies(db) == 0
    saver.conn.close()


def test_sqlite_saver_has_no_prune():
    """SqliteSaver 3.1.x inherits prune from BaseCheckpointSaver, which raises: restart_from_summary it is."""
    with pytest.raises(NotImplementedError):
        sqlite_checkpointer(":memory:").prune(["bob"], strategy="keep_latest")


def test_erasing_bad_arguments():
    graph = build_summarizing_chatbot(OfflineChatModel(), checkpointer=InMemorySaver())
    with pytest.raises(TypeError, match="saver"):
        checkpoints_holding("file.sqlite", NAME)
    with pytest.raises(ValueError, match="text"):
        checkpoints_holding(InMemorySaver(), "")
    with pytest.raises(TypeError, match="thread_id"):
        erase_thread(InMemorySaver(), 7)
    with pytest.raises(ValueError, match="nothing to restart"):
        restart_from_summary(graph, "never-used")
    with pytest.raises(ValueError, match="as_node"):
        restart_from_summary(graph, "t", as_node="no-such-node")
