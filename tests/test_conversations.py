"""Loading a learner's own conversation: every format round-trips, every bad input says where, what and the fix.

Built with the real libraries: files written by langchain_core's own
converters (``convert_to_openai_messages``, ``messages_to_dict``, ``dumpd``),
and checkpointer threads written by a real LangGraph graph into a real
SQLite file and a real PostgreSQL server (the ``postgres_url`` fixture of
``tests/conftest.py``), read back through SqliteSaver / PostgresSaver.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from typing import Annotated, TypedDict

import pytest
from langchain_core.load import dumpd
from langchain_core.messages import (
    AIMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    convert_to_openai_messages,
    messages_to_dict,
)

from langgraph.graph.message import add_messages

from course_utils.agentic.checkpoints import close_checkpointer, postgres_checkpointer, sqlite_checkpointer
from course_utils.agentic.conversations import (
    ConversationError,
    detect_format,
    load_conversation_source,
    load_messages,
    messages_to_anthropic,
    sample_file,
)
from course_utils.agentic.graphs import build_trimming_chatbot, chat, stored_messages
from course_utils.core.samples import load_conversation

AGENT = load_conversation("agent_tools")  # system, human, AI tool calls, tool results, replies


def without_ids(messages):
    """OpenAI and Anthropic records carry no message ids: compare everything else."""
    return [m.model_copy(update={"id": None}) for m in messages]


def fingerprint(path) -> tuple[str, int, list[str]]:
    """The file's bytes, its modification time and the folder's listing: what reading must not change."""
    return (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns, sorted(os.listdir(path.parent)))


def write_json(path, value):
    path.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
    return path


# --- files: every format round-trips ---------------------------------------------------------------


def test_openai_json_list_round_trips(tmp_path):
    path = write_json(tmp_path / "chat.json", convert_to_openai_messages(AGENT))
    loaded = load_conversation_source(path)
    assert loaded.format == "openai"
    assert loaded.messages == without_ids(AGENT)
    assert any(isinstance(m, AIMessage) and m.tool_calls for m in loaded.messages)
    assert any(isinstance(m, ToolMessage) for m in loaded.messages)


def test_openai_jsonl_and_a_request_body_round_trip(tmp_path):
    records = convert_to_openai_messages(AGENT)
    jsonl = tmp_path / "chat.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    body = write_json(tmp_path / "request.json", {"model": "gpt-x", "messages": records})
    assert load_messages(jsonl) == without_ids(AGENT)
    assert load_messages(body) == without_ids(AGENT)


def test_anthropic_content_blocks_round_trip(tmp_path):
    body = messages_to_anthropic(AGENT)
    assert any(b["type"] == "tool_use" for m in body["messages"] if isinstance(m["content"], list) for b in m["content"])
    loaded = load_conversation_source(write_json(tmp_path / "claude.json", body))
    assert loaded.format == "anthropic"
    assert loaded.messages == without_ids(AGENT)


def test_anthropic_blocks_as_written_by_hand():
    records = [
        {"role": "user", "content": "weather in Oslo?"},
        {"role": "assistant", "content": [{"type": "text", "text": "Let me look."},
                                          {"type": "tool_use", "id": "tu_1", "name": "get_weather", "input": {"city": "Oslo"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": [{"type": "text", "text": "rain"}]},
                                     {"type": "text", "text": "and tomorrow?"}]},
        {"role": "assistant", "content": "Rain today; I will check tomorrow next."},
    ]
    from course_utils.agentic.conversations import messages_from_records

    assert detect_format(records) == "anthropic"
    assert messages_from_records(records) == [
        HumanMessage("weather in Oslo?"),
        AIMessage("Let me look.", tool_calls=[{"name": "get_weather", "args": {"city": "Oslo"}, "id": "tu_1"}]),
        ToolMessage("rain", tool_call_id="tu_1", name="get_weather"),
        HumanMessage("and tomorrow?"),
        AIMessage("Rain today; I will check tomorrow next."),
    ]


@pytest.mark.parametrize("dump", [messages_to_dict, lambda ms: [dumpd(m) for m in ms]], ids=["messages_to_dict", "dumpd"])
def test_langchain_dumps_round_trip_with_their_ids(tmp_path, dump):
    loaded = load_conversation_source(write_json(tmp_path / "dump.json", dump(AGENT)))
    assert loaded.format == "langchain"
    assert loaded.messages == AGENT and [m.id for m in loaded.messages] == [m.id for m in AGENT]


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "langchain"])
def test_the_course_ships_its_agent_conversation_in_each_format(fmt):
    from make_conversation_samples import sample_files  # (scripts/ is on pytest's path) the files are what it writes today

    path = sample_file(fmt)
    assert path.read_bytes() == sample_files()[path.name]
    loaded = load_conversation_source(path)
    assert loaded.format == fmt
    assert without_ids(loaded.messages) == without_ids(AGENT)


def test_reading_a_file_never_changes_it(tmp_path):
    path = write_json(tmp_path / "chat.json", convert_to_openai_messages(AGENT))
    before = fingerprint(path)
    load_messages(path)
    assert fingerprint(path) == before


# --- bad input: where, what, and the fix --------------------------------------------------------------


def error_for(tmp_path, name, data: bytes | str) -> ConversationError:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    with pytest.raises(ConversationError) as info:
        load_messages(path)
    message = str(info.value)
    assert str(path) in message and "Fix: " in message, message
    return info.value


def test_malformed_json_names_line_and_column(tmp_path):
    error = error_for(tmp_path, "bad.json", '[{"role": "user", "content": "hi"},\n {"role": "assistant" "content": "x"}]')
    assert "malformed JSON at line 2" in error.problem and "json.tool" in error.fix


def test_a_malformed_jsonl_line_names_the_message_and_the_line(tmp_path):
    error = error_for(tmp_path, "bad.jsonl", '{"role": "user", "content": "hi"}\n\n{"role": "assistant", "content": \n')
    assert (error.index, error.line) == (1, 3) and "message 1 (line 3)" in str(error)


def test_an_unknown_role_names_the_message(tmp_path):
    records = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}, {"role": "bot", "content": "?"}]
    error = error_for(tmp_path, "roles.json", json.dumps(records))
    assert error.index == 2 and "unknown role 'bot'" in error.problem and "'assistant'" in error.fix


def test_a_tool_result_with_no_call_names_the_message(tmp_path):
    records = [{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "call_9", "content": "42"}]
    error = error_for(tmp_path, "orphan.json", json.dumps(records))
    assert error.index == 1 and "'call_9'" in error.problem and "no earlier assistant message" in error.problem


def test_an_anthropic_tool_result_with_no_call_names_its_record(tmp_path):
    body = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
                         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_x", "content": "1"}]}]}
    error = error_for(tmp_path, "orphan_claude.json", json.dumps(body))
    assert error.index == 2 and "'tu_x'" in error.problem


def test_a_call_with_no_result_names_the_calling_message(tmp_path):
    records = convert_to_openai_messages(AGENT)
    index = next(i for i, r in enumerate(records) if r.get("tool_calls"))
    dropped = [r for i, r in enumerate(records) if not (r["role"] == "tool" and i == index + 1)]
    error = error_for(tmp_path, "unanswered.json", json.dumps(dropped))
    assert error.index == index and "gets no result" in error.problem and "add the tool message" in error.fix


def test_a_file_that_is_not_utf8_names_the_byte(tmp_path):
    error = error_for(tmp_path, "latin1.json", '[{"role": "user", "content": "café"}]'.encode("latin-1"))
    assert "not UTF-8" in error.problem and "line 1" in error.problem and "UTF-8" in error.fix


@pytest.mark.parametrize("data", [b"", b"  \n\n "], ids=["empty", "blank"])
def test_an_empty_file_says_so(tmp_path, data):
    error = error_for(tmp_path, "empty.json", data)
    assert error.problem == "the file is empty" and error.index is None


def test_an_empty_list_and_a_missing_file_say_so(tmp_path):
    assert "no messages" in error_for(tmp_path, "none.json", "[]").problem
    with pytest.raises(ConversationError, match="no such file"):
        load_messages(tmp_path / "missing.json")


# --- checkpointer threads, written by a real LangGraph graph -------------------------------------------------

TURNS = ["hi! I'm bob", "what's my name?", "and what do I like? (I like tea)"]


def write_sqlite_thread(path) -> list:
    saver = sqlite_checkpointer(str(path))
    graph = build_trimming_chatbot(checkpointer=saver)
    for text in TURNS:
        chat(graph, "bob", text)
    chat(graph, "alice", "hello, I'm alice")
    messages = stored_messages(graph, "bob")
    close_checkpointer(saver)
    return messages


def test_a_sqlite_thread_loads_the_graphs_own_messages_and_the_file_is_untouched(tmp_path):
    path = tmp_path / "threads.sqlite"
    stored = write_sqlite_thread(path)
    before = fingerprint(path)
    loaded = load_conversation_source(path, "bob")
    assert (loaded.format, loaded.thread_id) == ("checkpoint", "bob")
    assert loaded.messages == stored and len(stored) == 2 * len(TURNS)
    assert load_messages(f"sqlite:///{path}", "bob") == stored
    assert fingerprint(path) == before  # same bytes, same mtime, no -wal / -shm left beside it


def test_a_sqlite_thread_still_open_in_its_app_is_read_without_writing(tmp_path):
    path = tmp_path / "live.sqlite"
    saver = sqlite_checkpointer(str(path))
    graph = build_trimming_chatbot(checkpointer=saver)
    for text in TURNS:
        chat(graph, "bob", text)
    assert (tmp_path / "live.sqlite-wal").exists()  # the app holds it open in WAL mode
    before = hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns
    try:
        assert load_messages(path, "bob") == stored_messages(graph, "bob")
        assert (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns) == before
        with pytest.raises(sqlite3.OperationalError, match="readonly"):  # how the loader opens it: read-only
            sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True).execute("CREATE TABLE x (y)")
    finally:
        close_checkpointer(saver)


def test_a_missing_thread_lists_the_ones_there_are(tmp_path):
    path = tmp_path / "threads.sqlite"
    write_sqlite_thread(path)
    with pytest.raises(ConversationError) as info:
        load_messages(path, "carol")
    assert "no thread 'carol'" in info.value.problem and "'alice', 'bob'" in info.value.fix


def test_a_database_without_a_thread_id_asks_for_one(tmp_path):
    path = tmp_path / "threads.sqlite"
    write_sqlite_thread(path)
    with pytest.raises(ConversationError, match="--thread"):
        load_messages(path)


def test_a_postgres_thread_loads_the_graphs_own_messages_read_only(postgres_url):
    saver = postgres_checkpointer(postgres_url)
    graph = build_trimming_chatbot(checkpointer=saver)
    for text in TURNS:
        chat(graph, "pg-bob", text)
    stored = stored_messages(graph, "pg-bob")
    rows = saver.conn.execute("SELECT count(*) AS n FROM checkpoints").fetchone()["n"]
    close_checkpointer(saver)

    loaded = load_conversation_source(postgres_url, "pg-bob")
    assert loaded.messages == stored and loaded.format == "checkpoint"
    assert "secret" not in loaded.source and "***" in loaded.source  # the password never appears
    from course_utils.agentic.conversations import list_threads

    assert "pg-bob" in [t.thread_id for t in list_threads(postgres_url)]  # the same SQL, on PostgreSQL
    with pytest.raises(ConversationError) as info:
        load_messages(postgres_url)  # no thread: its threads are listed, the password is not
    assert "'pg-bob'" in info.value.fix and "secret" not in str(info.value)

    from course_utils.agentic.conversations import read_only_postgres

    reader = read_only_postgres(postgres_url, "pg")
    try:
        assert reader.conn.execute("SHOW default_transaction_read_only").fetchone()["default_transaction_read_only"] == "on"
        assert reader.conn.execute("SELECT count(*) AS n FROM checkpoints").fetchone()["n"] == rows
        import psycopg

        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            reader.conn.execute("DELETE FROM checkpoints")
    finally:
        reader.conn.close()


def test_sqlite_and_the_files_give_the_same_messages(tmp_path):
    """One conversation, four sources: a checkpointer thread and its export in each file format."""
    stored = write_sqlite_thread(tmp_path / "t.sqlite")
    write_json(tmp_path / "o.json", convert_to_openai_messages(stored))
    write_json(tmp_path / "a.json", messages_to_anthropic(stored))
    write_json(tmp_path / "l.json", messages_to_dict(stored))
    assert load_messages(tmp_path / "l.json") == stored
    def said(messages):  # what an export keeps: who said what, and the tool calls (not ids or usage metadata)
        return [(m.type, m.content, getattr(m, "tool_calls", None)) for m in messages]

    assert said(load_messages(tmp_path / "o.json")) == said(stored) == said(load_messages(tmp_path / "a.json"))
    assert all(isinstance(m, (HumanMessage, AIMessage, SystemMessage)) for m in stored)


# --- the shapes people have: chat exports, request logs, the APIs' own payloads ---------------------------

SHAPES = sample_file("openai").parent
#: Each sample (scripts/make_conversation_samples.py), its shape, and its message count worked out by hand from
#: what the script writes (not from the loader):
EXPECTED = {
    # the shown branch n1, n4 (python call), n5 (its output), n6, n7 (image + question), n8: the hidden system
    # message n0 and the regenerated branch n2, n3 are not shown
    "chatgpt_export/conversations.json": ("chatgpt", 6),
    "chatgpt_export.zip": ("chatgpt", 6),
    "chatgpt_export": ("chatgpt", 6),
    "claude_ai_export.json": ("claude-ai", 4),  # 'Itinerary check', the longer of two: four turns
    # the longest request: everything before the agent's last reply (18 messages less that reply)
    "request_log.openai.jsonl": ("request-log", len(AGENT) - 1),
    "fine_tuning.openai.jsonl": ("fine-tuning", 5),  # line 3: system + two questions + two answers
    # no system item; each AI message with its reasoning and calls is one AIMessage
    "responses_items.json": ("responses", len(AGENT) - 1),
    "responses_request.json": ("responses", len(AGENT)),  # with "instructions" as the system message
    "gemini_contents.json": ("gemini", len(AGENT)),
    "sharegpt.json": ("sharegpt", 5),  # 'travel-1': system, human, call, observation, reply
    "image_message.openai.json": ("openai", 2),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_shape_is_recognised_and_reads_its_messages(name):
    shape, count = EXPECTED[name]
    loaded = load_conversation_source(SHAPES / name)
    assert (loaded.format, len(loaded.messages)) == (shape, count)


def test_the_samples_are_what_the_script_writes_today():
    from make_conversation_samples import sample_files

    for name, data in sample_files().items():
        assert (SHAPES / name).read_bytes() == data, name


def test_a_chatgpt_export_follows_the_shown_branch_and_its_tool_call():
    loaded = load_conversation_source(SHAPES / "chatgpt_export.zip")
    texts = [m.content if isinstance(m.content, str) else "" for m in loaded.messages]
    assert "About 430 dollars." not in texts  # the regenerated reply's branch
    assert loaded.messages[1].tool_calls[0]["name"] == "python"
    assert loaded.messages[2].type == "tool" and loaded.messages[2].tool_call_id == loaded.messages[1].tool_calls[0]["id"]
    image = next(b for b in loaded.messages[4].content if b["type"] == "image")
    assert (image["width"], image["height"]) == (1024, 768)
    assert "2 conversations" not in loaded.note and "of 2, the longest" in loaded.note and "'Packing list'" in loaded.note


@pytest.mark.parametrize("wanted", ["Packing list", "packing list", "6750a1b2-0000-4000-8000-000000000002", "2"])
def test_a_conversation_is_chosen_by_title_id_or_number(wanted):
    messages = load_messages(SHAPES / "chatgpt_export", conversation=wanted)
    assert [m.content for m in messages] == ["What should I pack for Lisbon in April?",
                                             "Layers, a light rain jacket and comfortable shoes for the hills."]


def test_an_unknown_conversation_lists_the_ones_there_are():
    with pytest.raises(ConversationError) as info:
        load_messages(SHAPES / "claude_ai_export.json", conversation="Holiday")
    assert "'Holiday'" in info.value.problem and "'Itinerary check'" in info.value.fix and "'Photo spots'" in info.value.fix


def test_claude_ai_attachments_are_read_as_the_text_the_app_sent():
    messages = load_messages(SHAPES / "claude_ai_export.json")
    assert "Belém tower" in messages[0].content and messages[1].type == "ai"


def test_a_request_log_keeps_its_tool_schemas_and_says_which_call_it_read():
    loaded = load_conversation_source(SHAPES / "request_log.openai.jsonl")
    lines = (SHAPES / "request_log.openai.jsonl").read_text(encoding="utf-8").splitlines()
    assert loaded.tools == json.loads(lines[-1])["tools"] and len(loaded.tools) == 3
    assert f"{len(lines)} calls" in loaded.note and "the longest" in loaded.note
    assert len(load_messages(SHAPES / "request_log.openai.jsonl", conversation="1")) == len(json.loads(lines[0])["messages"])


def test_responses_text_blocks_are_text_not_json():
    messages = load_messages(SHAPES / "responses_items.json")
    assert messages[0].content == AGENT[1].content  # input_text becomes the plain string
    calls = [c["id"] for m in messages if m.type == "ai" for c in m.tool_calls]
    assert calls == [c["id"] for m in AGENT if m.type == "ai" for c in m.tool_calls]


def test_gemini_calls_and_responses_pair_up():
    messages = load_messages(SHAPES / "gemini_contents.json")
    assert [m.type for m in messages] == [m.type for m in AGENT]
    assert [m.name for m in messages if m.type == "tool"] == [m.name for m in AGENT if m.type == "tool"]


def test_a_mixed_jsonl_asks_for_the_format(tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_text(json.dumps({"model": "m", "messages": [{"role": "user", "content": "a"}]}) + "\n"
                    + json.dumps({"messages": [{"role": "user", "content": "b"}]}) + "\n", encoding="utf-8")
    with pytest.raises(ConversationError) as info:
        load_messages(path)
    assert "--format request-log" in info.value.fix and "--format fine-tuning" in info.value.fix
    assert len(load_messages(path, fmt="fine-tuning")) == 1


def test_an_unknown_shape_names_its_keys_and_the_format_option(tmp_path):
    error = error_for(tmp_path, "odd.json", json.dumps([{"speaker": "me", "said": "hi"}]))
    assert "none of the shapes" in error.problem and "'said'" in error.problem and "--format" in error.fix


def test_a_folder_without_an_export_lists_its_files(tmp_path):
    (tmp_path / "chat.jsonl").write_text("{}", encoding="utf-8")
    with pytest.raises(ConversationError) as info:
        load_messages(tmp_path)
    assert "folder" in info.value.problem and "chat.jsonl" in info.value.fix


def test_a_truncated_file_is_called_cut_short_not_a_missing_comma(tmp_path):
    whole = json.dumps(convert_to_openai_messages(AGENT))
    error = error_for(tmp_path, "cut.json", whole[: len(whole) // 2])
    assert "ends before it is complete" in error.problem and "cut short" in error.fix and "comma" not in error.fix


def test_a_zip_without_an_export_is_not_called_latin1(tmp_path):
    import zipfile

    path = tmp_path / "photos.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.png", b"\x89PNG")
    with pytest.raises(ConversationError) as info:
        load_messages(path)
    assert "no conversations.json" in info.value.problem and "iconv" not in str(info.value)


# --- paused threads, other state keys, every thread listed ------------------------------------------------


def write_paused_thread(path, thread="paused"):
    """A real LangGraph agent paused before its tool node (interrupt_before), in a SQLite file."""
    from langchain_core.tools import tool
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition

    from course_utils.model.chat import OfflineChatModel

    @tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        return f"Sunny in {city}"

    model = OfflineChatModel().bind_tools([get_weather])
    graph = StateGraph(MessagesState)
    graph.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
    graph.add_node("tools", ToolNode([get_weather]))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    conn = sqlite3.connect(path, check_same_thread=False)
    app = graph.compile(checkpointer=SqliteSaver(conn), interrupt_before=["tools"])
    config = {"configurable": {"thread_id": thread}}
    app.invoke({"messages": [("user", "What is the weather in Porto today?")]}, config)
    state = app.get_state(config)
    conn.close()
    return state


class HistoryState(TypedDict):
    """A graph state whose messages are under "history", not "messages"."""

    history: Annotated[list, add_messages]


def write_keyed_thread(path, thread="notes", key="history"):
    """A real LangGraph graph whose messages live under another state key."""
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import START, StateGraph

    from course_utils.model.chat import OfflineChatModel

    model = OfflineChatModel()
    graph = StateGraph(HistoryState)
    graph.add_node("reply", lambda state: {key: [model.invoke(state[key])]})
    graph.add_edge(START, "reply")
    conn = sqlite3.connect(path, check_same_thread=False)
    app = graph.compile(checkpointer=SqliteSaver(conn))
    for text in ["hi! I'm bob", "I like green tea"]:
        app.invoke({key: [("user", text)]}, {"configurable": {"thread_id": thread}})
    conn.close()


def test_a_thread_paused_before_its_tool_node_is_a_thread_with_a_pending_call(tmp_path):
    path = tmp_path / "paused.sqlite"
    state = write_paused_thread(path)
    assert state.next == ("tools",)
    before = fingerprint(path)
    loaded = load_conversation_source(path, "paused")
    assert loaded.messages == state.values["messages"]
    assert [c["id"] for c in loaded.pending] == [c["id"] for c in state.values["messages"][-1].tool_calls]
    assert "waiting for their results" in loaded.note and "get_weather" in loaded.note
    assert fingerprint(path) == before


def test_a_thread_under_another_key_is_read_with_key_and_the_error_names_the_keys(tmp_path):
    path = tmp_path / "keyed.sqlite"
    write_keyed_thread(path)
    assert [m.type for m in load_messages(path, "notes", key="history")] == ["human", "ai", "human", "ai"]
    with pytest.raises(ConversationError) as info:
        load_messages(path, "notes")
    assert "--key" in info.value.fix and "history" in info.value.fix


def test_every_thread_is_listed_not_only_the_newest_checkpoints(tmp_path):
    from course_utils.agentic.conversations import list_threads

    path = tmp_path / "many.sqlite"
    saver = sqlite_checkpointer(str(path))
    graph = build_trimming_chatbot(checkpointer=saver)
    for n in range(32):
        chat(graph, f"user-{n:02d}", "hi")
    for _ in range(80):  # 240 newer checkpoints on one thread: the 200 newest hold only it
        chat(graph, "user-31", "more")
    close_checkpointer(saver)
    threads = list_threads(path)
    assert sorted(t.thread_id for t in threads) == [f"user-{n:02d}" for n in range(32)]
    with pytest.raises(ConversationError) as info:
        load_messages(path)
    assert "32 threads" in info.value.fix and "'user-31'" in info.value.fix and "12 more" in info.value.fix
