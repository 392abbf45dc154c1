"""Where a LangGraph chatbot keeps its threads: a SQLite file, or a PostgreSQL server.

Lesson 04's chatbots keep each ``thread_id``'s conversation in a checkpointer.
On your own machine that is a SQLite file (:func:`sqlite_checkpointer`, the
builders' default: ``course_checkpoints.sqlite``, or the lesson's own file).
On a hub, a class can share one PostgreSQL server instead, so a thread
survives a restarted kernel, a new server pod, or a different machine:

- :func:`postgres_checkpointer` opens a connection to a PostgreSQL server,
  creates LangGraph's checkpoint tables if they are missing (``setup()``) and
  returns a ``langgraph.checkpoint.postgres.PostgresSaver``. Its errors name
  the package to install or the server it could not reach (never the password).
- :func:`get_checkpointer` picks one from a single setting: a file path or
  ``sqlite:///path`` gives SQLite, ``postgresql://...`` gives PostgreSQL. With
  no argument it reads the environment variable ``COURSE_CHECKPOINT_URL``
  (and falls back to the SQLite file ``course_checkpoints.sqlite``). The
  builders of :mod:`course_utils.agentic.graphs` use it when given no checkpointer,
  so a hub's ``COURSE_CHECKPOINT_URL`` reaches every chatbot of the course.

Erasing, as stored. A ``RemoveMessage`` removes a message from a thread's
*current* state; every earlier checkpoint of the thread still holds it.
:func:`checkpoints_holding` reads a saver's checkpoints back (through its own
``list``, as LangGraph does) and counts those that still hold a text, and
:func:`erase_thread` really deletes a thread: ``delete_thread``, and on SQLite
also the copies the file keeps after a delete (freed pages, the write-ahead
log). :func:`course_utils.agentic.graphs.restart_from_summary` uses it to start a
thread again from its summary alone.

>>> saver = get_checkpointer("sqlite:///:memory:")
>>> type(saver).__name__
'SqliteSaver'
>>> checkpoint_backend("postgresql://teacher:secret@db.example.edu/course")
('postgres', 'postgresql://teacher:secret@db.example.edu/course')
>>> redact("postgresql://teacher:secret@db.example.edu/course")
'postgresql://teacher:***@db.example.edu/course'

The PostgreSQL saver needs two extra packages (pinned in requirements.txt):
``pip install langgraph-checkpoint-postgres "psycopg[binary]"``.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite import SqliteSaver

from course_utils.core.args import check_bool, check_text

#: The SQLite file threads are kept in when nothing else is chosen (in the current folder).
DEFAULT_DB_PATH = "course_checkpoints.sqlite"

#: The environment variable that chooses where threads are kept.
CHECKPOINT_URL_ENV = "COURSE_CHECKPOINT_URL"

#: What to install when the PostgreSQL saver's packages are missing.
POSTGRES_INSTALL = 'pip install langgraph-checkpoint-postgres "psycopg[binary]"'

#: Seconds to wait for a server before giving up (unless the URL sets connect_timeout).
CONNECT_TIMEOUT = 10

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
SQLITE_SCHEME = "sqlite://"


class CheckpointerConnectionError(ConnectionError):
    """The PostgreSQL server could not be reached, or refused the login."""


# --- keeping passwords out of messages -----------------------------------------------

_URL_PASSWORD = re.compile(r"(://[^:/@\s]*:)\S*@")  # up to the last "@": a password may hold one
_KEYWORD_PASSWORD = re.compile(r"(\b(?:password|passwd|pwd)\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&;]+)", re.I)


def redact(text: str) -> str:
    """``text`` with any password in a connection URL or ``password=`` pair replaced by ``***``."""
    text = _URL_PASSWORD.sub(r"\1***@", str(text))
    return _KEYWORD_PASSWORD.sub(r"\1***", text)


def _server_description(params: dict[str, str]) -> str:
    """'user@host:port/dbname' from parsed connection parameters, with libpq's defaults named."""
    host = params.get("host") or params.get("hostaddr") or "the local socket"
    port = params.get("port") or "5432"
    user = params.get("user") or "(your login name)"
    dbname = params.get("dbname") or "(the user's name)"
    return f"{user}@{host}:{port}/{dbname}"


# --- the SQLite checkpointer ---------------------------------------------------------------


def check_sqlite_path(path: Any, parameter: str = "path") -> str:
    """``path`` as a str if it can name a SQLite file: a non-empty path in an existing folder, or ``":memory:"``.

    Raises TypeError (not a str or path) or ValueError naming ``parameter``.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{parameter} must be a str or a path, got {type(path).__name__}: {path!r:.80}")
    path = os.fspath(path)
    if not isinstance(path, str) or not path.strip():
        raise ValueError(f"{parameter} must be a non-empty file path, got {path!r}")
    if path != ":memory:" and not Path(path).parent.is_dir():
        raise ValueError(f"{parameter} must be in an existing folder, got {path!r}")
    return path


def _sqlite_checkpointer(path: Any, parameter: str) -> SqliteSaver:
    path = check_sqlite_path(path, parameter)
    return SqliteSaver(sqlite3.connect(path, check_same_thread=False))


def sqlite_checkpointer(path: str | os.PathLike = DEFAULT_DB_PATH) -> SqliteSaver:
    """A SqliteSaver on a file: threads outlive the kernel, and any process can read them.

    >>> saver = sqlite_checkpointer(":memory:")
    """
    return _sqlite_checkpointer(path, "path")


# --- the PostgreSQL checkpointer ---------------------------------------------------------


def import_postgres() -> tuple[Any, Any, Any]:
    """psycopg's Connection and dict_row, and PostgresSaver; a missing package is named."""
    try:
        import psycopg
        from psycopg.rows import dict_row
    except ModuleNotFoundError as exc:
        raise ImportError(
            f"The PostgreSQL checkpointer needs the psycopg package, which is not installed: {POSTGRES_INSTALL}"
        ) from exc
    except ImportError as exc:  # psycopg is there, but neither its binary build nor libpq is
        raise ImportError(
            f"psycopg is installed but cannot load libpq ({exc}): "
            f'pip install "psycopg[binary]", or install your system\'s libpq'
        ) from exc
    try:
        from langgraph.checkpoint.postgres import PostgresSaver
    except ModuleNotFoundError as exc:
        raise ImportError(
            "The PostgreSQL checkpointer needs the langgraph-checkpoint-postgres package, "
            f"which is not installed: {POSTGRES_INSTALL}"
        ) from exc
    return psycopg, dict_row, PostgresSaver


def _parse_conninfo(conninfo: Any, psycopg: Any) -> dict[str, str]:
    if not isinstance(conninfo, str):
        raise TypeError(
            f"conninfo must be a str like 'postgresql://user:password@host:5432/dbname', "
            f"got {type(conninfo).__name__}: {redact(repr(conninfo)):.80}"
        )
    if not conninfo.strip():
        raise ValueError("conninfo must not be empty: give a URL like 'postgresql://user:password@host:5432/dbname'")
    try:
        from psycopg.conninfo import conninfo_to_dict

        return {key: str(value) for key, value in conninfo_to_dict(conninfo).items()}
    except psycopg.ProgrammingError as exc:
        raise ValueError(
            f"conninfo is not a PostgreSQL connection string: {redact(str(exc))} "
            f"(expected 'postgresql://user:password@host:5432/dbname' or 'host=... dbname=...')"
        ) from None


def postgres_checkpointer(conninfo: str, *, setup: bool = True) -> BaseCheckpointSaver:
    """A LangGraph ``PostgresSaver`` on a new connection to ``conninfo``, tables created.

    ``conninfo`` is a URL (``"postgresql://user:password@host:5432/dbname"``) or
    libpq's ``"host=... dbname=..."`` form. The connection is opened the way
    ``PostgresSaver.from_conn_string`` opens it (autocommit, no prepared
    statements, rows as dicts) but is returned open, so a notebook can keep
    using the saver; close it with :func:`close_checkpointer` (or
    ``saver.conn.close()``). With ``setup=True`` (the default) LangGraph's
    tables are created (or migrated) if they are missing; when they are
    already complete nothing is run, so a user who may only read and write
    rows can use tables a teacher created.

    Raises ``ImportError`` naming the package to install,
    :class:`CheckpointerConnectionError` naming the server it could not reach
    (user, host, port, database; never the password), and ``RuntimeError``
    when the tables cannot be created (the user lacks the right to).
    """
    psycopg, dict_row, PostgresSaver = import_postgres()
    params = _parse_conninfo(conninfo, psycopg)
    check_bool(setup, "setup")
    where = _server_description(params)
    options: dict[str, Any] = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
    if "connect_timeout" not in params:
        options["connect_timeout"] = CONNECT_TIMEOUT
    try:
        conn = psycopg.Connection.connect(conninfo, **options)
    except psycopg.OperationalError as exc:
        reason = redact(" ".join(str(exc).split())).rstrip(".")
        raise CheckpointerConnectionError(
            f"could not connect to the PostgreSQL server {where}: {reason}{'' if reason.endswith('?') else '.'} "
            f"Check that the server is running, that the host, port, user, password and database are right, "
            f"and (if it came from there) the environment variable {CHECKPOINT_URL_ENV}."
        ) from None
    saver = PostgresSaver(conn)
    if setup and not _tables_ready(conn, len(saver.MIGRATIONS)):
        try:
            saver.setup()
        except psycopg.Error as exc:
            conn.close()
            raise RuntimeError(
                f"connected to the PostgreSQL server {where}, but could not create LangGraph's checkpoint "
                f"tables: {redact(str(exc).strip())}. Either give this user the right to create tables "
                f"(GRANT CREATE ON SCHEMA public TO ...), or create them once as a user who has it and grant "
                f"this one SELECT, INSERT, UPDATE, DELETE on them."
            ) from None
    return saver


def _tables_ready(conn: Any, migrations: int) -> bool:
    """True when LangGraph's tables exist and every migration has run, so setup() has nothing to do.

    Checking first lets a user without the right to create tables use tables a
    teacher created, and keeps a class's first connections from racing to create them.
    """
    try:
        if conn.execute("SELECT to_regclass('checkpoint_migrations') AS t").fetchone()["t"] is None:
            return False
        latest = conn.execute("SELECT max(v) AS v FROM checkpoint_migrations").fetchone()["v"]
    except Exception:  # no right to read it, or an unexpected layout: let setup() decide and explain
        return False
    return latest is not None and latest >= migrations - 1


def close_checkpointer(saver: BaseCheckpointSaver) -> None:
    """Close the connection a SQLite or PostgreSQL saver holds (closing twice is harmless)."""
    if not isinstance(saver, BaseCheckpointSaver):
        raise TypeError(f"saver must be a LangGraph checkpointer, got {type(saver).__name__}: {saver!r:.80}")
    conn = getattr(saver, "conn", None)
    if conn is not None and hasattr(conn, "close"):
        conn.close()


# --- choosing one from a setting ------------------------------------------------------------


def checkpoint_backend(url_or_path: str | os.PathLike) -> tuple[str, str]:
    """Which saver a setting asks for: ``("sqlite", path)`` or ``("postgres", conninfo)``.

    - ``postgresql://...`` or ``postgres://...``: PostgreSQL, the URL unchanged.
    - ``sqlite:///relative/file.sqlite``, ``sqlite:////absolute/file.sqlite``,
      ``sqlite:///:memory:`` (SQLAlchemy's spelling): SQLite on that path.
    - anything else without a ``scheme://``, or a ``pathlib.Path``: a SQLite file path.

    >>> checkpoint_backend("sqlite:////srv/course/threads.sqlite")
    ('sqlite', '/srv/course/threads.sqlite')
    >>> checkpoint_backend("threads.sqlite")
    ('sqlite', 'threads.sqlite')
    """
    return _checkpoint_backend(url_or_path, "url_or_path")


def _checkpoint_backend(url_or_path: Any, parameter: str) -> tuple[str, str]:
    """:func:`checkpoint_backend`, with errors naming ``parameter`` (the argument or setting it came from)."""
    if isinstance(url_or_path, os.PathLike):
        return "sqlite", os.fspath(url_or_path)
    if not isinstance(url_or_path, str):
        raise TypeError(
            f"{parameter} must be a file path, 'sqlite:///path' or 'postgresql://...', "
            f"got {type(url_or_path).__name__}: {redact(repr(url_or_path)):.80}"
        )
    text = url_or_path.strip()
    if not text:
        raise ValueError(f"{parameter} must not be empty: give a file path, 'sqlite:///path' or 'postgresql://...'")
    lowered = text.lower()
    if lowered.startswith(POSTGRES_SCHEMES):
        return "postgres", text
    if lowered.startswith(SQLITE_SCHEME):
        rest = text[len(SQLITE_SCHEME) :]
        if rest in ("", "/"):
            return "sqlite", ":memory:"
        if not rest.startswith("/"):
            raise ValueError(
                f"{parameter}: a SQLite URL has three slashes before a path: 'sqlite:///{rest}', got {text!r}"
            )
        return "sqlite", rest[1:]
    if re.match(r"^[a-z][a-z0-9+.-]*://", lowered):
        raise ValueError(
            f"{parameter}: unsupported checkpoint URL {redact(text)!r}: use a file path, 'sqlite:///path' or "
            f"'postgresql://user:password@host:5432/dbname'"
        )
    return "sqlite", text


def get_checkpointer(
    url_or_path: str | os.PathLike | None = None, *, default: str | os.PathLike = DEFAULT_DB_PATH
) -> BaseCheckpointSaver:
    """A checkpointer from one setting: SQLite for a path or ``sqlite:///...``, PostgreSQL for ``postgresql://...``.

    With ``url_or_path=None`` the setting is the environment variable
    ``COURSE_CHECKPOINT_URL``; when that is unset or empty, ``default`` (the
    SQLite file ``course_checkpoints.sqlite`` in the current folder unless a
    lesson names its own). Pass the result to a builder:
    ``build_summarizing_chatbot(checkpointer=get_checkpointer())``; a lesson
    that keeps its own file uses ``get_checkpointer(default="04_langgraph_integration.sqlite")``,
    and a hub's ``COURSE_CHECKPOINT_URL`` still wins.

    Errors name where the bad setting came from: ``url_or_path``, ``default``
    or ``COURSE_CHECKPOINT_URL``.
    """
    fallback = _checkpoint_backend(default, "default")  # checked even when the environment wins
    if url_or_path is not None:
        parameter, (backend, target) = "url_or_path", _checkpoint_backend(url_or_path, "url_or_path")
    elif os.environ.get(CHECKPOINT_URL_ENV, "").strip():
        parameter = CHECKPOINT_URL_ENV
        backend, target = _checkpoint_backend(os.environ[CHECKPOINT_URL_ENV], parameter)
    else:
        parameter, (backend, target) = "default", fallback
    if backend == "postgres":
        return postgres_checkpointer(target)
    return _sqlite_checkpointer(target, parameter)


def user_thread_id(thread_id: str, user: str | None = None) -> str:
    """``"user/thread_id"``, so students sharing one database do not share threads by accident.

    ``user`` defaults to ``JUPYTERHUB_USER``, which JupyterHub sets in every
    student's server; without it (on your own machine) ``thread_id`` is
    returned unchanged. This separates threads by convention only: anyone who can
    connect to the database can read every thread.

    >>> user_thread_id("bob", user="student07")
    'student07/bob'
    """
    thread_id = check_text(thread_id, "thread_id", empty_ok=False)
    if user is None:
        user = os.environ.get("JUPYTERHUB_USER", "")
    user = check_text(user, "user", none_ok=True)
    return f"{user.strip()}/{thread_id}" if user.strip() else thread_id


# --- erasing, as stored ----------------------------------------------------------------


@dataclass(frozen=True)
class Holding:
    """How many of a saver's checkpoints hold a text: ``holding`` of ``total``."""

    text: str
    holding: int  #: checkpoints whose state or pending writes contain ``text``
    total: int  #: checkpoints read (of the thread, or of every thread)


def _strings(value: Any) -> Iterator[str]:
    """Every str inside a stored value: message contents and tool-call arguments, dicts, lists."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, BaseMessage):
        yield from _strings(value.content)
        yield from _strings(getattr(value, "tool_calls", None) or [])
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _check_saver(saver: Any) -> BaseCheckpointSaver:
    if not isinstance(saver, BaseCheckpointSaver):
        raise TypeError(f"saver must be a LangGraph checkpointer, got {type(saver).__name__}: {saver!r:.80}")
    return saver


def checkpoints_holding(saver: BaseCheckpointSaver, text: str, thread_id: str | None = None) -> Holding:
    """Count the checkpoints of ``thread_id`` (or of every thread) that still hold ``text``.

    Reads the checkpoints back with the saver's own ``list`` (what LangGraph
    uses to load a thread, or to go back in time with ``get_state_history``),
    and looks for ``text`` in each one's stored state and pending writes: in
    message contents, tool-call arguments and plain strings, case-sensitive.

    >>> from langgraph.checkpoint.memory import InMemorySaver
    >>> checkpoints_holding(InMemorySaver(), "hi! I'm bob", "bob")
    Holding(text="hi! I'm bob", holding=0, total=0)
    """
    saver = _check_saver(saver)
    text = check_text(text, "text", empty_ok=False)
    thread_id = check_text(thread_id, "thread_id", none_ok=True, empty_ok=False)
    config = None if thread_id is None else {"configurable": {"thread_id": thread_id}}
    holding = total = 0
    for item in saver.list(config):
        total += 1
        stored = [item.checkpoint.get("channel_values", {}), [value for *_, value in item.pending_writes or []]]
        holding += any(text in s for s in _strings(stored))
    return Holding(text, holding, total)


def file_copies(path: str | os.PathLike, text: str) -> int:
    """How often ``text`` (UTF-8) occurs in the bytes of a SQLite file and its ``-wal`` and ``-shm`` companions.

    The checkpointers store messages as msgpack, where a str is its UTF-8
    bytes, so this finds what a person reading the file with any tool would
    find, whether or not a row still points at it.
    """
    path = Path(check_sqlite_path(path, "path"))
    text = check_text(text, "text", empty_ok=False)
    needle = text.encode("utf-8")
    companions = [path, *(path.with_name(path.name + suffix) for suffix in ("-wal", "-shm", "-journal"))]
    return sum(p.read_bytes().count(needle) for p in companions if p.is_file())


def erase_thread(saver: BaseCheckpointSaver, thread_id: str) -> None:
    """Delete every checkpoint and write of ``thread_id``, so no copy of it is left in the saver.

    ``saver.delete_thread(thread_id)`` deletes the rows. On a ``SqliteSaver``
    that is not yet erasure: SQLite keeps deleted content in freed pages
    unless ``secure_delete`` is on, and the saver's write-ahead log (the
    ``-wal`` file next to the database) keeps the old pages until a checkpoint
    copies them back. So on SQLite this also turns ``secure_delete`` on for
    the delete, then empties the log (``PRAGMA wal_checkpoint(TRUNCATE)``);
    if another connection is still reading, the log cannot be emptied and a
    ``RuntimeError`` says so. On PostgreSQL deleted rows stay in the table's
    files until ``VACUUM`` reuses the space: that, and backups, is the
    database administrator's part of erasure.
    """
    saver = _check_saver(saver)
    thread_id = check_text(thread_id, "thread_id", empty_ok=False)
    if isinstance(saver, SqliteSaver):
        with saver.lock:
            saver.conn.execute("PRAGMA secure_delete = ON")
    saver.delete_thread(thread_id)
    if isinstance(saver, SqliteSaver):
        with saver.lock:
            busy, _, _ = saver.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy:
            raise RuntimeError(
                f"thread {thread_id!r} was deleted, but SQLite could not empty its write-ahead log "
                f"(another connection is reading the file): close it and call erase_thread again"
            )
