"""Your own conversation, from what you really have: a chat export, an agent's run, a checkpointer thread.

:func:`load_messages` reads one source into a list of LangChain messages, so
the course's tools (``explain_trim``, ``replay_growth``, ``TrimExplorer``,
``GrowthExplorer``, ``python -m course_utils.inspect``) work on it exactly as
on the course's samples. It understands:

- **OpenAI-style chat messages**: a JSON list of ``{"role", "content"}``
  objects (``tool_calls`` on assistant messages, ``tool_call_id`` on tool
  messages), or the same one object a line (JSONL), or a request body
  ``{"messages": [...]}``. Converted by langchain_core's own
  ``convert_to_messages``.
- **Anthropic-style content blocks**: ``{"role": "assistant", "content":
  [{"type": "text"...}, {"type": "tool_use", "id", "name", "input"}]}`` and
  ``{"role": "user", "content": [{"type": "tool_result", "tool_use_id",
  "content"}]}``, as a list or a request body ``{"system": ..., "messages": [...]}``.
  A ``tool_use`` block becomes a tool call of the AIMessage (its text blocks
  its content); each ``tool_result`` block becomes a ToolMessage.
- **LangChain's own message dumps**: ``messages_to_dict`` (``{"type",
  "data"}``, read by ``messages_from_dict``) or ``dumpd`` (``{"lc": 1, ...}``,
  read by ``langchain_core.load.load`` with only message classes allowed).
- **A LangGraph checkpointer thread**: a SQLite file (or ``sqlite:///path``)
  or a ``postgresql://`` URL, plus a thread id, read through LangGraph's own
  ``SqliteSaver`` / ``PostgresSaver``: the messages of the thread's latest
  checkpoint (``key`` names another state key). A thread paused before its
  tool node (``interrupt_before``) is a thread: its unanswered calls are
  reported as pending, never as something to repair.
- **Chat apps' exports** (:mod:`course_utils.agentic.chat_exports`): ChatGPT's
  (``conversations.json``, the zip as delivered, or the unzipped folder) and
  Claude.ai's.
- **Request logs**: JSONL with one whole request body a line (``model``,
  ``messages``, ``tools``): each line is one call; the thread is the longest
  request (or the one chosen), and its tool schemas are kept to be counted as
  input. **Fine-tuning JSONL**: one conversation a line (no ``model``).
- **The APIs' own payloads** (:mod:`course_utils.agentic.api_shapes`): Responses
  API items and requests, Gemini ``contents``, ShareGPT.

Each shape is recognised from its content when that is certain, and
otherwise the loader asks for ``fmt=`` (``--format``) and says which it could be.

Reading never writes to the source: files are only read, a SQLite file is
opened read-only (``file:...?mode=ro``), and a PostgreSQL session is set
read-only (``default_transaction_read_only``), so even a bug could not change
a row. Nothing is sent anywhere.

Bad input raises :class:`ConversationError` (a ValueError) that names the
source and the message index, says what is wrong and how to fix it::

    >>> import json, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "chat.json")
    >>> _ = open(path, "w").write(json.dumps([{"role": "user", "content": "hi"}, {"role": "wizard", "content": "x"}]))
    >>> try:
    ...     load_messages(path)
    ... except ConversationError as e:
    ...     print(e.index, e.problem.split(":")[0])
    1 unknown role 'wizard'

>>> [m.type for m in messages_from_records([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])]
['human', 'ai']
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage

from course_utils.agentic.conversation_files import detect_shape, load_file
from course_utils.agentic.conversation_records import (  # re-exported: the loader's one public face
    FORMATS,
    POSTGRES_SCHEMES,
    RECORD_FORMATS,
    ROLES,
    SQLITE_HEADER,
    ConversationError,
    LoadedConversation,
    library_words,
    check_tool_pairs,
    detect_format,
    messages_from_records,
    messages_to_anthropic,
    pending_calls,
)
from course_utils.core.args import check_text
from course_utils.core.i18n import _

# --- checkpointer threads -------------------------------------------------------------------

#: How many thread ids an error lists by name (the count says how many there are in all).
THREADS_LISTED = 20
_THREADS_SQL = ("SELECT thread_id, COUNT(*) AS checkpoints, MAX(checkpoint_id) AS latest FROM checkpoints "
                "WHERE checkpoint_ns = '' GROUP BY thread_id ORDER BY latest DESC")


@dataclass(frozen=True)
class ThreadInfo:
    """One thread of a checkpointer database: its id and how many checkpoints it has."""

    thread_id: str
    checkpoints: int


def _threads(saver: Any, progress: Any = None) -> list[ThreadInfo]:
    """Every thread of the saver's database, newest first, read in pages (every checkpoint is counted)."""
    cursor = saver.conn.cursor()
    cursor.execute(_THREADS_SQL)
    threads: list[ThreadInfo] = []
    while True:
        page = cursor.fetchmany(1000)
        if not page:
            break
        for row in page:
            thread, count = (row["thread_id"], row["checkpoints"]) if isinstance(row, dict) else (row[0], row[1])
            threads.append(ThreadInfo(str(thread), int(count)))
        if progress:
            progress("listing threads", len(threads), len(threads))
    cursor.close()
    return threads


def _thread_listing(threads: list[ThreadInfo]) -> str:
    shown = ", ".join(repr(t) for t in sorted(t.thread_id for t in threads[:THREADS_LISTED]))
    more = len(threads) - THREADS_LISTED
    return shown + (_(" … and {count} more (list them all with --list-threads)").format(count=f"{more:,}") if more > 0 else "")


def _missing_thread(saver: Any, source: str, problem: str) -> ConversationError:
    threads = _threads(saver)
    fix = (_("pass one of its {count} threads with --thread: {threads}").format(
        count=f"{len(threads):,}", threads=_thread_listing(threads)) if threads
        else _("pass one of its threads with --thread: (the database holds none)"))
    return ConversationError(source, problem, fix)


def _thread_messages(saver: Any, thread_id: str, source: str, key: str) -> list[BaseMessage]:
    config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
    found = saver.get_tuple(config)
    if found is None:
        raise _missing_thread(saver, source, _("there is no thread {thread}").format(thread=repr(thread_id)))
    values = found.checkpoint.get("channel_values", {})
    messages = values.get(key)
    lists = sorted(k for k, v in values.items() if isinstance(v, list) and v and isinstance(v[0], BaseMessage))
    if not isinstance(messages, list):
        raise ConversationError(
            source, _("thread {thread} has no {key} list in its state (keys: {keys})").format(
                thread=repr(thread_id), key=repr(key), keys=sorted(values)),
            _("name the state key that holds the messages with --key (key=...): {keys}").format(
                keys=", ".join(lists) or "-"))
    bad = next((i for i, m in enumerate(messages) if not isinstance(m, BaseMessage)), None)
    if bad is not None:
        raise ConversationError(
            source, _("state[{key}] holds a {type}, not a message").format(key=repr(key), type=type(messages[bad]).__name__),
            _("name the state key that holds the messages with --key (key=...): {keys}").format(
                keys=", ".join(lists) or "-"), bad)
    return list(messages)


def _read_only_sqlite(path: Path) -> Any:
    from langgraph.checkpoint.sqlite import SqliteSaver

    # Read-only. A database in WAL mode that no one has open (no "-wal" file beside it) is also opened
    # "immutable", else SQLite would create "-wal" and "-shm" files next to it just to read it.
    # With a "-wal" file (a program has it open, or did not close it), the log must be read too.
    wal = path.with_name(path.name + "-wal")
    uri = f"{path.resolve().as_uri()}?mode=ro" + ("" if wal.exists() else "&immutable=1")
    conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
    saver = SqliteSaver(conn)
    saver.is_setup = True  # the tables exist; setup() would try to create them (and switch journal modes)
    return saver


def _open_saver(url_or_path: str | os.PathLike) -> tuple[Any, str]:
    """A read-only saver on the database, and the source's name (a URL without its password)."""
    from course_utils.agentic.checkpoints import checkpoint_backend, redact

    backend, target = checkpoint_backend(url_or_path)
    if backend == "postgres":
        source = redact(target)
        return read_only_postgres(target, source), source
    path = Path(target)
    source = str(path)
    if not path.is_file():
        raise ConversationError(source, _("there is no such SQLite file"), _("check the path to the checkpoint database"))
    with open(path, "rb") as f:
        if f.read(16) != SQLITE_HEADER:
            raise ConversationError(source, _("this is not a SQLite database"), _("give the checkpointer's .sqlite file"))
    return _read_only_sqlite(path), source


def _with_saver(url_or_path: str | os.PathLike, read: Any) -> tuple[Any, str]:
    saver, source = _open_saver(url_or_path)
    try:
        return read(saver, source), source
    except sqlite3.Error as exc:
        raise ConversationError(source, _("SQLite could not read LangGraph's tables: {error}").format(error=library_words(str(exc))),
                                _("give the database a LangGraph SqliteSaver wrote")) from None
    finally:
        saver.conn.close()


def list_threads(url_or_path: str | os.PathLike, progress: Any = None) -> list[ThreadInfo]:
    """Every thread of a checkpointer database (SQLite file or URL, PostgreSQL URL), newest first, read-only."""
    return _with_saver(url_or_path, lambda saver, source: _threads(saver, progress))[0]


def load_checkpoint(url_or_path: str | os.PathLike, thread_id: str, *, key: str = "messages") -> LoadedConversation:
    """The messages of a LangGraph thread's latest checkpoint, read through SqliteSaver or PostgresSaver.

    ``url_or_path`` is a SQLite file, ``sqlite:///path`` or ``postgresql://...``;
    ``key`` is the state key that holds the messages (``MessagesState``'s "messages").
    A thread paused before its tool node is read as it is: the result's
    ``pending`` holds the calls still waiting for their results.
    """
    thread_id = check_text(thread_id, "thread_id", empty_ok=False)
    key = check_text(key, "key", empty_ok=False)
    messages, source = _with_saver(url_or_path, lambda saver, source: _thread_messages(saver, thread_id, source, key))
    if not messages:
        raise ConversationError(source, _("thread {thread} holds no messages").format(thread=repr(thread_id)),
                                _("choose a thread with messages"))
    check_tool_pairs(messages, source=f"{source} thread {thread_id!r}", pending_ok=True)
    pending = pending_calls(messages)
    note = (_("paused: {count} tool call(s) waiting for their results: {calls}").format(
        count=len(pending), calls=", ".join(f"{c['name']} ({c['id']})" for c in pending)) if pending else None)
    return LoadedConversation(messages, source, "checkpoint", thread_id, note=note, pending=pending)


def read_only_postgres(conninfo: str, source: str) -> Any:
    from course_utils.agentic.checkpoints import import_postgres

    psycopg, dict_row, PostgresSaver = import_postgres()
    try:
        conn = psycopg.Connection.connect(
            conninfo, autocommit=True, prepare_threshold=0, row_factory=dict_row, connect_timeout=10,
            options="-c default_transaction_read_only=on",
        )
    except psycopg.OperationalError as exc:
        raise ConversationError(
            source, _("could not connect: {error}").format(error=library_words(" ".join(str(exc).split())[:200])),
            _("check the server, user, password and database in the URL")) from None
    return PostgresSaver(conn)


# --- the course's sample files ------------------------------------------------------------------

#: The course's agent conversation in each file format (made by scripts/make_conversation_samples.py).
SAMPLE_FILES = {
    "openai": "agent_tools.openai.jsonl",
    "anthropic": "agent_tools.anthropic.json",
    "langchain": "agent_tools.langchain.json",
}


def sample_file(fmt: str) -> Path:
    """The path of the course's sample conversation in ``fmt`` ("openai", "anthropic" or "langchain").

    >>> sample_file("openai").name
    'agent_tools.openai.jsonl'
    """
    from importlib import resources

    if fmt not in SAMPLE_FILES:
        raise ValueError(f"fmt must be one of {tuple(SAMPLE_FILES)}, got {fmt!r}")
    return Path(str(resources.files("course_utils").joinpath("data", "conversations", SAMPLE_FILES[fmt])))


# --- one entry point ---------------------------------------------------------------------------


def is_database(source: str | os.PathLike) -> bool:
    """Whether ``source`` names a checkpointer database (a PostgreSQL URL, sqlite:// or a SQLite file)."""
    text = os.fspath(source)
    if text.lower().startswith(POSTGRES_SCHEMES + ("sqlite://",)):
        return True
    path = Path(text)
    if path.is_file():
        with open(path, "rb") as f:
            return f.read(16) == SQLITE_HEADER
    return False


def load_messages(source: str | os.PathLike, thread_id: str | None = None, *, fmt: str = "auto",
                  key: str = "messages", conversation: str | None = None) -> list[BaseMessage]:
    """The messages of a file or a checkpointer thread (see :func:`load_conversation_source`)."""
    return load_conversation_source(source, thread_id, fmt=fmt, key=key, conversation=conversation).messages


def load_conversation_source(source: str | os.PathLike, thread_id: str | None = None, *, fmt: str = "auto",
                             key: str = "messages", conversation: str | None = None,
                             progress: Any = None) -> LoadedConversation:
    """Read ``source``: a database (with ``thread_id`` and the state ``key``) or a file in any of :data:`FORMATS`.

    ``conversation`` picks one of several in an export or a log (title, id
    or number); ``progress(stage, done, total)`` hears about long stages.
    """
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"source must be a file path or a database URL, got {type(source).__name__}: {source!r:.80}")
    if fmt not in ("auto", *FORMATS):
        raise ValueError(f"fmt must be 'auto' or one of {FORMATS}, got {fmt!r}")
    if fmt == "checkpoint" or (fmt == "auto" and is_database(source)):
        if thread_id is None:
            saver_source = os.fspath(source)
            threads, saver_source = _with_saver(source, lambda saver, name: _threads(saver, progress))
            listing = _thread_listing(threads)
            raise ConversationError(
                saver_source, _("a checkpointer database holds threads: no thread id was given"),
                _("name one of its {count} threads with --thread ID (thread_id=...): {threads}").format(
                    count=f"{len(threads):,}", threads=listing) if threads
                else _("name the thread with --thread ID (thread_id=...); this database holds none yet"))
        return load_checkpoint(source, thread_id, key=key)
    return load_file(source, fmt, conversation=conversation, progress=progress)


__all__ = [
    "FORMATS",
    "POSTGRES_SCHEMES",
    "ROLES",
    "SQLITE_HEADER",
    "RECORD_FORMATS",
    "ThreadInfo",
    "detect_shape",
    "list_threads",
    "pending_calls",
    "SAMPLE_FILES",
    "sample_file",
    "ConversationError",
    "LoadedConversation",
    "check_tool_pairs",
    "detect_format",
    "is_database",
    "load_checkpoint",
    "load_conversation_source",
    "load_file",
    "load_messages",
    "messages_from_records",
    "messages_to_anthropic",
]
