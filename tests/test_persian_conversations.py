"""A Persian learner's own conversation: every ConversationError says its problem and its fix in Persian (issue 23).

Each case provokes one error of ``course_utils.agentic.conversations`` with a
real bad source in ``tmp_path`` (a file of each kind, a SQLite database
written by a real LangGraph graph, a PostgreSQL server that is not there) and
reads it twice: in English, where it must be what it always was (the frame
"SOURCE[, message N][ (line L)]: PROBLEM. Fix: FIX" and no Persian), and in
Persian, where the problem, the fix and the whole message are Persian with
no run of three English words left (:func:`test_persian_feedback.english_phrases`:
code names, quoted data and left-to-right isolates are allowed). A library's
own words (json's, SQLite's, psycopg's, langchain_core's) stay as the library
wrote them, inside a left-to-right isolate.
"""

from __future__ import annotations

import io
import json
import sqlite3

import pytest

from course_utils.agentic.conversations import (
    ConversationError,
    load_checkpoint,
    load_file,
    load_messages,
    messages_from_records,
    read_only_postgres,
)
from course_utils.core import i18n
from course_utils.inspect.cli import EXIT_SOURCE, main as inspect_command
from test_conversations import write_sqlite_thread
from test_persian_feedback import LTR_ISOLATE, english_phrases

ARABIC_SCRIPT = "[\u0600-\u06ff]"
LRI, PDI = "\u2066", "\u2069"


@pytest.fixture
def persian():
    i18n.set_language("fa")
    yield
    i18n.set_language("en")


def write(tmp_path, name: str, data: bytes | str | list | dict):
    path = tmp_path / name
    if isinstance(data, (list, dict)):
        data = json.dumps(data)
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def anthropic(*records):
    """Anthropic records after one that makes the file Anthropic (a user turn with a tool_result block)."""
    return [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_0", "content": "x"}]}, *records]


#: id -> (how to provoke it, a piece of its English problem, a piece of its English fix)
CASES = {
    "empty file": (lambda t: load_messages(write(t, "empty.json", "")), "the file is empty", "export the conversation"),
    "blank file": (lambda t: load_messages(write(t, "blank.json", " \n\n ")), "the file is empty", "holds nothing"),
    "malformed JSON": (lambda t: load_messages(write(t, "bad.json", '[{"role": "user", "content": "hi"},\n {"role": "ai" "x"}]')),
                       "malformed JSON at line 2, column", "python -m json.tool"),
    "malformed JSONL": (lambda t: load_messages(write(t, "bad.jsonl", '{"role": "user", "content": "hi"}\n{"role": \n')),
                        "malformed JSON in this JSONL line", "each line of a .jsonl file"),
    "a number, not messages": (lambda t: load_messages(write(t, "n.json", "42")), "the file holds a JSON int", "JSONL"),
    "a string, not messages": (lambda t: load_messages(write(t, "s.json", '"hi"')), "the file holds a JSON str", "JSONL"),
    "not UTF-8": (lambda t: load_messages(write(t, "l1.json", '[{"role": "user", "content": "café"}]'.encode("latin-1"))),
                  "the file is not UTF-8: byte", "iconv"),
    "no messages": (lambda t: load_messages(write(t, "none.json", [])), "there are no messages", "at least one message"),
    "unknown role": (lambda t: load_messages(write(t, "r.json", [{"role": "bot", "content": "?"}])),
                     "unknown role 'bot'", "'bot' -> 'assistant'"),
    "missing role": (lambda t: load_messages(write(t, "nr.json", [{"role": "user", "content": "hi"}, {"content": "x"}])),
                     "the message has no 'role'", "add a role"),
    "a message that is not an object": (lambda t: load_messages(write(t, "str.json", [{"role": "user", "content": "hi"}, "hello"])),
                                        "a message must be an object with 'role' and 'content', got str", "write each message"),
    "missing tool_call_id": (lambda t: load_messages(write(t, "tc.json", [{"role": "tool", "content": "42"}])),
                             "a tool message has no 'tool_call_id'", "add the id"),
    "langchain_core refuses it": (lambda t: load_messages(write(t, "lc.json", [{"role": "user", "content": 5}])),
                                  "langchain_core could not read it: ", "OpenAI's chat message format"),
    "orphan tool result": (lambda t: load_messages(write(t, "o.json", [{"role": "tool", "tool_call_id": "c9", "content": "1"}])),
                           "a tool result answers call 'c9'", "remove the orphan result"),
    "unanswered tool call": (lambda t: load_messages(write(t, "u.json", [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "user", "content": "and?"}])),  # (a call at the very end is pending, not an error)
        "the tool call 'c1' gets no result", "add the tool message"),
    "Anthropic content of the wrong type": (lambda t: load_messages(write(t, "a1.json", anthropic({"role": "assistant", "content": 7}))),
                                            "content must be a string or a list of blocks, got int", "content blocks"),
    "Anthropic block without a type": (lambda t: load_messages(write(t, "a2.json", anthropic({"role": "assistant", "content": [{"text": "x"}]}))),
                                       "content block 0 has no 'type'", "give every content block a type"),
    "Anthropic tool_use without an id": (lambda t: load_messages(write(t, "a3.json", anthropic(
        {"role": "assistant", "content": [{"type": "tool_use", "name": "f", "input": {}}]}))),
        "a tool_use block needs a string 'id' and 'name'", "from the API response"),
    "Anthropic tool_result without its id": (lambda t: load_messages(write(t, "a4.json", [
        {"role": "user", "content": [{"type": "tool_result", "content": "x"}]}])),
        "a tool_result block needs a string 'tool_use_id'", "from the request you sent"),
    "Anthropic unknown role": (lambda t: load_messages(write(t, "a5.json", anthropic({"role": "bot", "content": "x"}))),
                               "unknown role 'bot'", "rename the role"),
    "Anthropic record that is not an object": (lambda t: load_file(write(t, "a6.json", ["hi"]), "anthropic"),
                                               "a message must be an object, got str", "write each message"),
    "not a LangChain dump": (lambda t: load_messages(write(t, "d.json", [{"type": "wizard", "data": {"content": "x"}}])),
                             "not a LangChain message dump: ", "messages_to_dict(...)"),
    "no such file": (lambda t: load_messages(t / "missing.json"), "there is no such file", "check the path"),
    "no such SQLite file": (lambda t: load_messages(f"sqlite:///{t / 'missing.sqlite'}", "bob"),
                            "there is no such SQLite file", "checkpoint database"),
    "not a SQLite file": (lambda t: load_messages(f"sqlite:///{write(t, 'chat.sqlite', 'hello')}", "bob"),
                          "this is not a SQLite database", ".sqlite file"),
    "a database without a thread id": (lambda t: load_messages(_thread_database(t)),
                                       "no thread id was given", "--thread ID"),
    "no such thread": (lambda t: load_messages(_thread_database(t), "carol"),
                       "there is no thread 'carol'", "'alice', 'bob'"),
    "no such state key": (lambda t: load_checkpoint(_thread_database(t), "bob", key="chat"),
                          "thread 'bob' has no 'chat' list in its state", "key=..."),
    "a SQLite file without LangGraph's tables": (lambda t: load_messages(_plain_sqlite(t / "other.sqlite"), "bob"),
                                                 "SQLite could not read LangGraph's tables: no such table", "SqliteSaver"),
    "no PostgreSQL server": (lambda t: read_only_postgres("postgresql://me:pw@127.0.0.1:1/app", "postgresql://me:***@127.0.0.1:1/app"),
                             "could not connect: ", "password and database in the URL"),
}


def _thread_database(folder):
    """A SQLite checkpointer file with the threads 'bob' and 'alice', written by a real LangGraph graph."""
    write_sqlite_thread(folder / "t.sqlite")
    return folder / "t.sqlite"


def _plain_sqlite(path):
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes (text TEXT)")
    conn.close()
    return path


def error_of(provoke, tmp_path) -> ConversationError:
    with pytest.raises(ConversationError) as info:
        provoke(tmp_path)
    return info.value


@pytest.mark.parametrize("case", CASES)
def test_every_error_in_english_is_as_it_was(case, tmp_path):
    provoke, problem, fix = CASES[case]
    error = error_of(provoke, tmp_path)
    assert problem in error.problem and fix in error.fix, (error.problem, error.fix)
    assert str(error).startswith(error.source) and str(error).endswith(f": {error.problem}. Fix: {error.fix}")
    assert not any("\u0600" <= c <= "\u06ff" or "\u2066" <= c <= "\u2069" for c in str(error)), str(error)


@pytest.mark.parametrize("case", CASES)
def test_every_error_in_persian_says_its_problem_and_fix_in_persian(case, tmp_path, persian):
    import re

    error = error_of(CASES[case][0], tmp_path)
    for part in (error.problem, error.fix):
        assert re.search(ARABIC_SCRIPT, part) and part.startswith(i18n.RLI) and part.endswith(PDI), part
        assert not english_phrases(part), (part, english_phrases(part))
    text = str(error)
    outside = LTR_ISOLATE.sub("", text)  # a library's own words may say "message"; the frame may not
    assert "Fix:" not in outside and "راه اصلاح: " in outside and " message " not in outside, text
    assert not english_phrases(text), (text, english_phrases(text))
    assert f"{LRI}{error.source}{PDI}" in text  # the file or database, left to right at the start of the line
    if error.index is not None:
        assert f"، پیام {error.index}" in text


def test_library_words_stay_as_the_library_wrote_them_left_to_right(tmp_path, persian):
    error = error_of(CASES["malformed JSON"][0], tmp_path)
    assert f"{LRI}Expecting ',' delimiter{PDI}" in error.problem and "سطر 2" in error.problem
    error = error_of(CASES["a SQLite file without LangGraph's tables"][0], tmp_path)
    assert f"{LRI}no such table: checkpoints{PDI}" in error.problem
    error = error_of(CASES["langchain_core refuses it"][0], tmp_path)
    assert error.problem.count(LRI) == 2 and "validation error" in error.problem  # the code name and pydantic's words


def test_the_index_line_and_source_keep_their_meaning_and_the_text_its_language(tmp_path):
    i18n.set_language("fa")
    try:
        error = error_of(CASES["malformed JSONL"][0], tmp_path)
    finally:
        i18n.set_language("en")
    assert (error.index, error.line, error.source) == (1, 2, str(tmp_path / "bad.jsonl"))
    assert "، پیام 1 (سطر 2): " in str(error)  # translated when raised: still Persian now the course speaks English
    assert "(line 2)" in str(error_of(CASES["malformed JSONL"][0], tmp_path))


def test_the_thread_list_of_a_missing_thread_stays_left_to_right(tmp_path, persian):
    error = error_of(CASES["no such thread"][0], tmp_path)
    assert f"{LRI}'alice', 'bob'{PDI}" in error.fix and f"{LRI}'carol'{PDI}" in error.problem


def test_records_give_the_same_errors():
    i18n.set_language("fa")
    try:
        with pytest.raises(ConversationError) as info:
            messages_from_records([{"role": "user", "content": "hi"}, {"role": "tool", "content": "x"}])
    finally:
        i18n.set_language("en")
    assert info.value.index == 1 and "tool_call_id" in info.value.problem and not english_phrases(str(info.value))


def test_the_inspect_command_says_why_a_source_cannot_be_read_in_persian(tmp_path, persian):
    path = write(tmp_path, "bad.json", '[{"role": "user", "content": "hi"},\n {"role": "ai" "x"}]')
    out, err = io.StringIO(), io.StringIO()
    code = inspect_command([str(path), "--model", "any model", "--window", "8192", "--budget", "60", "--quiet"], stdout=out, stderr=err)
    said = err.getvalue()
    assert code == EXIT_SOURCE and out.getvalue() == ""
    assert said.startswith(f"{i18n.RLI}خطا: ") and "error:" not in said and not english_phrases(said), said
    assert f"{LRI}{path}{PDI}" in said and "راه اصلاح" in said


def test_the_inspect_command_in_english_is_unchanged(tmp_path):
    path = write(tmp_path, "bad.json", "")
    err = io.StringIO()
    assert inspect_command([str(path), "--model", "any model", "--window", "8192", "--budget", "60", "--quiet"],
                           stdout=io.StringIO(), stderr=err) == EXIT_SOURCE
    assert err.getvalue() == (f"error: {path}: the file is empty. "
                              "Fix: export the conversation again; the file holds nothing\n")
