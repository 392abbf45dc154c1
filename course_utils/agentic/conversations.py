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
  ``SqliteSaver`` / ``PostgresSaver``: the messages of the thread's latest checkpoint.

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

import json
import os
import sqlite3
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.messages.utils import convert_to_messages, messages_from_dict

from course_utils.core.args import check_text
from course_utils.core.columns import LRI
from course_utils.core.i18n import PDI, _, direction

#: The formats :func:`load_messages` reads (``fmt="auto"`` decides from the content).
FORMATS = ("openai", "anthropic", "langchain", "checkpoint")
#: The roles an OpenAI- or Anthropic-style record may have, and the course's own names.
ROLES = ("system", "developer", "user", "human", "assistant", "ai", "tool", "function")
#: The first 16 bytes of every SQLite database file.
SQLITE_HEADER = b"SQLite format 3\x00"
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


class ConversationError(ValueError):
    """A source that cannot be read as a conversation: where (source, message index), what, and the fix.

    ``index`` is the message's position in the source (0-based; for JSONL the
    line is named too), or None when the problem is the whole source.

    ``problem`` and ``fix`` are the texts a learner reads, looked up with
    ``_()`` when the error is raised: in the language the course spoke then
    (Persian comes in its right-to-left isolate, a library's own words inside
    it in a left-to-right one), and they stay so after ``set_language``.
    ``source``, ``index`` and ``line`` are never translated. The message
    (``str(error)``) is "SOURCE[, message INDEX][ (line LINE)]: PROBLEM. Fix: FIX",
    its frame in the same language.

    >>> str(ConversationError("chat.json", "the file is empty", "export it again"))
    'chat.json: the file is empty. Fix: export it again'
    """

    def __init__(self, source: str, problem: str, fix: str, index: int | None = None, line: int | None = None):
        self.source, self.problem, self.fix, self.index, self.line = source, problem, fix, index, line
        if index is None and line is None:
            text = _("{source}: {problem}. Fix: {fix}")
        elif line is None:
            text = _("{source}, message {index}: {problem}. Fix: {fix}")
        elif index is None:
            text = _("{source} (line {line}): {problem}. Fix: {fix}")
        else:
            text = _("{source}, message {index} (line {line}): {problem}. Fix: {fix}")
        super().__init__(text.format(source=source, index=index, line=line, problem=problem, fix=fix))


def _library(text: str) -> str:
    """A library's own words (json's, SQLite's, psycopg's, langchain_core's) as it wrote them.

    In a right-to-left language they come inside a left-to-right isolate
    (U+2066 ... U+2069), so the English reads in its own order within the
    Persian sentence; unchanged in English.

    >>> _library("Expecting ',' delimiter")
    "Expecting ',' delimiter"
    """
    return f"{LRI}{text}{PDI}" if direction() == "rtl" else text


@dataclass(frozen=True)
class LoadedConversation:
    """Messages read from a source, and how they were read."""

    messages: list[BaseMessage]
    source: str  #: the file or database it came from (a PostgreSQL URL without its password)
    format: str  #: one of :data:`FORMATS`
    thread_id: str | None = None


# --- records (decoded JSON) to messages --------------------------------------------------


def _record_kind(record: Any) -> str:
    """'langchain' (messages_to_dict or dumpd), 'anthropic', 'openai' or 'other' for one decoded record."""
    if isinstance(record, dict):
        if record.get("lc") == 1 and record.get("type") == "constructor":
            return "langchain"
        if set(record) == {"type", "data"} and isinstance(record["data"], dict):
            return "langchain"
        content = record.get("content")
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result") for b in content
        ):
            return "anthropic"
        if "role" in record:
            return "openai"
    return "other"


def detect_format(records: Sequence[Any]) -> str:
    """Which format a list of decoded records is in: 'langchain', 'anthropic' or 'openai'.

    Anthropic and OpenAI records look alike until a message uses a tool: a
    ``tool_use`` or ``tool_result`` block means Anthropic; OpenAI otherwise.

    >>> detect_format([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}])
    'anthropic'
    """
    kinds = {_record_kind(r) for r in records}
    if "langchain" in kinds:
        return "langchain"
    if "anthropic" in kinds:
        return "anthropic"
    return "openai"


def _text_of_blocks(content: Any) -> str | list:
    """An Anthropic content value as LangChain content: a string stays, text blocks join, others stay blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(b, dict) and b.get("type") == "text" for b in content):
        return "\n\n".join(str(b.get("text", "")) for b in content)
    return content


def _anthropic_messages(record: dict, source: str, index: int) -> list[BaseMessage]:
    """One Anthropic-style record as LangChain messages (a user turn of tool results gives one ToolMessage each)."""
    role, content = record.get("role"), record.get("content")
    if role not in ("user", "assistant", "system"):
        raise _unknown_role(role, source, index, ("user", "assistant", "system"))
    if isinstance(content, str) or content is None:
        return [{"user": HumanMessage, "assistant": AIMessage, "system": SystemMessage}[role](content or "")]
    if not isinstance(content, list):
        raise ConversationError(
            source, _("content must be a string or a list of blocks, got {type}").format(type=type(content).__name__),
            _("write the content as text or as Anthropic content blocks"), index)
    for j, block in enumerate(content):
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            raise ConversationError(source, _("content block {block} has no 'type'").format(block=j),
                                    _("give every content block a type ('text', 'tool_use', 'tool_result', ...)"), index)
    if role == "assistant":
        calls = []
        for block in content:
            if block["type"] == "tool_use":
                if not isinstance(block.get("id"), str) or not isinstance(block.get("name"), str):
                    raise ConversationError(source, _("a tool_use block needs a string 'id' and 'name'"),
                                            _("copy the tool_use block whole from the API response"), index)
                calls.append({"name": block["name"], "args": block.get("input") or {}, "id": block["id"],
                              "type": "tool_call"})
        rest = [b for b in content if b["type"] != "tool_use"]
        return [AIMessage(content=_text_of_blocks(rest) if rest else "", tool_calls=calls)]
    messages: list[BaseMessage] = []
    rest = []
    for block in content:
        if block["type"] == "tool_result":
            if not isinstance(block.get("tool_use_id"), str):
                raise ConversationError(source, _("a tool_result block needs a string 'tool_use_id'"),
                                        _("copy the tool_result block whole from the request you sent"), index)
            status = "error" if block.get("is_error") else "success"
            messages.append(ToolMessage(content=_text_of_blocks(block.get("content", "")),
                                        tool_call_id=block["tool_use_id"], status=status))
        else:
            rest.append(block)
    if rest:
        cls = HumanMessage if role == "user" else SystemMessage
        messages.append(cls(content=_text_of_blocks(rest)))
    return messages


def _unknown_role(role: Any, source: str, index: int, allowed: Sequence[str]) -> ConversationError:
    return ConversationError(
        source, _("unknown role {role}: a message's role must be one of {allowed}").format(
            role=repr(role), allowed=", ".join(allowed)),
        _("rename the role (e.g. 'bot' -> 'assistant', 'customer' -> 'user') or remove the message"), index,
    )


def _openai_message(record: Any, source: str, index: int) -> BaseMessage:
    if not isinstance(record, dict):
        raise ConversationError(
            source, _("a message must be an object with 'role' and 'content', got {type}").format(type=type(record).__name__),
            _("write each message as {\"role\": ..., \"content\": ...}"), index)
    if "role" not in record:
        raise ConversationError(source, _("the message has no 'role'"), _("add a role: system, user, assistant or tool"),
                                index)
    role = record["role"]
    if not isinstance(role, str) or role not in ROLES:
        raise _unknown_role(role, source, index, ("system", "user", "assistant", "tool"))
    if role == "tool" and not isinstance(record.get("tool_call_id"), str):
        raise ConversationError(source, _("a tool message has no 'tool_call_id'"),
                                _("add the id of the assistant tool call this message answers"), index)
    record = dict(record)
    if record.get("content") is None:
        record["content"] = ""  # an assistant message that only calls tools has content null
    try:
        return convert_to_messages([record])[0]
    except Exception as exc:  # langchain_core's own words, with where it happened
        raise ConversationError(
            source, _("langchain_core could not read it: {error}").format(error=_library(" ".join(str(exc).split())[:300])),
            _("compare it with OpenAI's chat message format"), index) from None


def _langchain_messages(records: Sequence[Any], source: str) -> list[BaseMessage]:
    from langchain_core._api.beta_decorator import LangChainBetaWarning
    from langchain_core.load import load

    messages = []
    for index, record in enumerate(records):
        try:
            if isinstance(record, dict) and record.get("lc") == 1:
                with warnings.catch_warnings():  # load() is marked beta; only message classes are allowed
                    warnings.simplefilter("ignore", LangChainBetaWarning)
                    message = load(record, allowed_objects="messages")
            else:
                message = messages_from_dict([record])[0]
        except Exception as exc:
            raise ConversationError(
                source, _("not a LangChain message dump: {error}").format(error=_library(" ".join(str(exc).split())[:300])),
                _("write the messages with messages_to_dict(...) or dumpd(...)"), index) from None
        if not isinstance(message, BaseMessage):
            raise ConversationError(source, _("this dump is a {type}, not a message").format(type=type(message).__name__),
                                    _("dump only the messages, e.g. messages_to_dict(state['messages'])"), index)
        messages.append(message)
    return messages


def messages_from_records(records: Sequence[Any], fmt: str = "auto", *, source: str = "records") -> list[BaseMessage]:
    """Decoded records (dicts) in one of the file formats as LangChain messages, checked.

    ``fmt`` is "auto", "openai", "anthropic" or "langchain". Raises
    :class:`ConversationError` naming ``source`` and the message index.
    """
    if isinstance(records, (str, bytes)) or not isinstance(records, Sequence):
        raise TypeError(f"records must be a list of decoded messages, got {type(records).__name__}: {records!r:.80}")
    if fmt not in ("auto", "openai", "anthropic", "langchain"):
        raise ValueError(f"fmt must be 'auto', 'openai', 'anthropic' or 'langchain', got {fmt!r}")
    if not records:
        raise ConversationError(source, _("there are no messages"), _("give at least one message"))
    kind = detect_format(records) if fmt == "auto" else fmt
    if kind == "langchain":
        messages = _langchain_messages(records, source)
        positions = list(range(len(messages)))
    else:
        messages, positions = [], []
        for index, record in enumerate(records):
            if kind == "anthropic":
                if not isinstance(record, dict):
                    raise ConversationError(
                        source, _("a message must be an object, got {type}").format(type=type(record).__name__),
                        _("write each message as {\"role\": ..., \"content\": [...]}"), index)
                new = _anthropic_messages(record, source, index)
            else:
                new = [_openai_message(record, source, index)]
            messages.extend(new)
            positions.extend([index] * len(new))
    check_tool_pairs(messages, source=source, positions=positions)
    return _name_tool_results(messages) if kind == "anthropic" else messages


def check_tool_pairs(messages: Sequence[BaseMessage], *, source: str = "messages", positions: Sequence[int] | None = None) -> None:
    """Every tool result answers an earlier call, and every call gets a result (else ConversationError).

    ``positions`` maps each message to its index in the source (one Anthropic
    record can become several messages); by default the message's own index.
    """
    positions = list(range(len(messages))) if positions is None else list(positions)
    open_calls: dict[str, int] = {}
    for i, message in enumerate(messages):
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                open_calls[call["id"]] = i
        elif isinstance(message, ToolMessage):
            if message.tool_call_id not in open_calls:
                raise ConversationError(
                    source, _("a tool result answers call {call_id}, which no earlier assistant message makes").format(
                        call_id=repr(message.tool_call_id)),
                    _("add the assistant message with that tool call before it, or remove the orphan result"),
                    positions[i],
                )
            del open_calls[message.tool_call_id]
    if open_calls:
        call_id, i = min(open_calls.items(), key=lambda item: item[1])
        raise ConversationError(
            source, _("the tool call {call_id} gets no result ({count} call(s) unanswered)").format(
                call_id=repr(call_id), count=len(open_calls)),
            _("add the tool message that answers it (tool_call_id / tool_use_id), or remove the call"), positions[i],
        )


def messages_to_anthropic(messages: Sequence[BaseMessage]) -> dict:
    """LangChain messages as an Anthropic-style request body ``{"system": ..., "messages": [...]}``.

    The inverse of the Anthropic reader, for tests and the course's sample
    files: tool calls become ``tool_use`` blocks, and each run of tool
    messages one user turn of ``tool_result`` blocks (as Anthropic's API wants).

    >>> from langchain_core.messages import HumanMessage
    >>> messages_to_anthropic([HumanMessage("hi")])
    {'messages': [{'role': 'user', 'content': 'hi'}]}
    """
    body: dict = {}
    out: list[dict] = []
    for message in messages:
        if isinstance(message, SystemMessage):
            body["system"] = message.content
        elif isinstance(message, AIMessage):
            blocks = [{"type": "text", "text": message.content}] if isinstance(message.content, str) and message.content else []
            if isinstance(message.content, list):
                blocks = list(message.content)
            blocks += [{"type": "tool_use", "id": c["id"], "name": c["name"], "input": c["args"]} for c in message.tool_calls]
            out.append({"role": "assistant", "content": blocks if message.tool_calls or isinstance(message.content, list)
                        else message.content})
        elif isinstance(message, ToolMessage):
            block = {"type": "tool_result", "tool_use_id": message.tool_call_id, "content": message.content}
            if message.status == "error":
                block["is_error"] = True
            if out and out[-1]["role"] == "user" and isinstance(out[-1]["content"], list) and all(
                b.get("type") == "tool_result" for b in out[-1]["content"]
            ):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
        else:
            out.append({"role": "user", "content": message.content})
    body["messages"] = out
    return body


def _name_tool_results(messages: list[BaseMessage]) -> list[BaseMessage]:
    """Anthropic's tool_result blocks do not repeat the tool's name: take it from the call they answer."""
    names: dict[str, str] = {}
    named = []
    for message in messages:
        if isinstance(message, AIMessage):
            names.update({c["id"]: c["name"] for c in message.tool_calls})
        if isinstance(message, ToolMessage) and message.name is None and message.tool_call_id in names:
            message = message.model_copy(update={"name": names[message.tool_call_id]})
        named.append(message)
    return named


# --- files ----------------------------------------------------------------------------------


def _decode(path: Path) -> str:
    data = path.read_bytes()
    source = str(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConversationError(
            source, _("the file is not UTF-8: byte {byte} (line {line}) is {value}").format(
                byte=exc.start, line=line, value=repr(data[exc.start:exc.start + 1])),
            _("save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8 in.json > out.json)"),
        ) from None
    if not text.strip():
        raise ConversationError(source, _("the file is empty"), _("export the conversation again; the file holds nothing"))
    return text


def _parse(text: str, source: str) -> list[Any]:
    """The file's records: a JSON list, a JSON object with 'messages', or JSONL (one record a line)."""
    stripped = text.lstrip()
    try:
        value = json.loads(text)
    except json.JSONDecodeError as whole:
        lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
        if stripped.startswith("[") or len(lines) < 2:
            raise ConversationError(
                source, _("malformed JSON at line {line}, column {column}: {msg}").format(
                    line=whole.lineno, column=whole.colno, msg=_library(whole.msg)),
                _("fix the JSON there (a missing comma or quote?), e.g. check it with python -m json.tool")) from None
        records = []
        for index, (number, line) in enumerate(lines):
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ConversationError(
                    source, _("malformed JSON in this JSONL line, column {column}: {msg}").format(
                        column=exc.colno, msg=_library(exc.msg)),
                    _("fix that line: each line of a .jsonl file is one whole JSON object"), index, number) from None
        return records
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        records = list(value["messages"])
        system = value.get("system")
        if system:  # Anthropic's request body keeps the system prompt beside the messages
            records.insert(0, {"role": "system", "content": system})
        return records
    if isinstance(value, dict):
        return [value]
    if isinstance(value, list):
        return value
    raise ConversationError(source, _("the file holds a JSON {type}, not messages").format(type=type(value).__name__),
                            _("write a JSON list of messages, an object with 'messages', or one message a line (JSONL)"))


def load_file(path: str | os.PathLike, fmt: str = "auto") -> LoadedConversation:
    """A conversation from a JSON or JSONL file (OpenAI, Anthropic or LangChain format; see the module)."""
    path = Path(path)
    if not path.is_file():
        raise ConversationError(str(path), _("there is no such file"), _("check the path"))
    records = _parse(_decode(path), str(path))
    if fmt == "auto":
        fmt = detect_format(records)
    messages = messages_from_records(records, fmt, source=str(path))
    return LoadedConversation(messages, str(path), fmt)


# --- checkpointer threads -------------------------------------------------------------------


def _thread_messages(saver: Any, thread_id: str, source: str, key: str) -> list[BaseMessage]:
    config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
    found = saver.get_tuple(config)
    if found is None:
        threads = sorted({c.config["configurable"]["thread_id"] for c in saver.list(None, limit=200)})
        shown = ", ".join(repr(t) for t in threads[:20]) + (" …" if len(threads) > 20 else "")
        fix = (_("pass one of its threads with --thread: {threads}").format(threads=shown) if shown
               else _("pass one of its threads with --thread: (the database holds none)"))
        raise ConversationError(source, _("there is no thread {thread}").format(thread=repr(thread_id)), fix)
    values = found.checkpoint.get("channel_values", {})
    messages = values.get(key)
    if not isinstance(messages, list):
        raise ConversationError(
            source, _("thread {thread} has no {key} list in its state (keys: {keys})").format(
                thread=repr(thread_id), key=repr(key), keys=sorted(values)),
            _("name the state key that holds the messages (key=...)"))
    bad = next((i for i, m in enumerate(messages) if not isinstance(m, BaseMessage)), None)
    if bad is not None:
        raise ConversationError(
            source, _("state[{key}] holds a {type}, not a message").format(key=repr(key), type=type(messages[bad]).__name__),
            _("name the state key that holds the messages (key=...)"), bad)
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


def load_checkpoint(url_or_path: str | os.PathLike, thread_id: str, *, key: str = "messages") -> LoadedConversation:
    """The messages of a LangGraph thread's latest checkpoint, read through SqliteSaver or PostgresSaver.

    ``url_or_path`` is a SQLite file, ``sqlite:///path`` or ``postgresql://...``;
    ``key`` is the state key that holds the messages (``MessagesState``'s "messages").
    """
    from course_utils.agentic.checkpoints import checkpoint_backend, redact

    thread_id = check_text(thread_id, "thread_id", empty_ok=False)
    key = check_text(key, "key", empty_ok=False)
    backend, target = checkpoint_backend(url_or_path)
    if backend == "postgres":
        source = redact(target)
        saver = read_only_postgres(target, source)
        try:
            messages = _thread_messages(saver, thread_id, source, key)
        finally:
            saver.conn.close()
    else:
        path = Path(target)
        source = str(path)
        if not path.is_file():
            raise ConversationError(source, _("there is no such SQLite file"), _("check the path to the checkpoint database"))
        with open(path, "rb") as f:
            if f.read(16) != SQLITE_HEADER:
                raise ConversationError(source, _("this is not a SQLite database"), _("give the checkpointer's .sqlite file"))
        saver = _read_only_sqlite(path)
        try:
            messages = _thread_messages(saver, thread_id, source, key)
        except sqlite3.Error as exc:
            raise ConversationError(source, _("SQLite could not read LangGraph's tables: {error}").format(error=_library(str(exc))),
                                    _("give the database a LangGraph SqliteSaver wrote")) from None
        finally:
            saver.conn.close()
    if not messages:
        raise ConversationError(source, _("thread {thread} holds no messages").format(thread=repr(thread_id)),
                                _("choose a thread with messages"))
    check_tool_pairs(messages, source=f"{source} thread {thread_id!r}")
    return LoadedConversation(messages, source, "checkpoint", thread_id)


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
            source, _("could not connect: {error}").format(error=_library(" ".join(str(exc).split())[:200])),
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


def load_messages(source: str | os.PathLike, thread_id: str | None = None, *, fmt: str = "auto") -> list[BaseMessage]:
    """The messages of a file or a checkpointer thread (see :func:`load_conversation_source`)."""
    return load_conversation_source(source, thread_id, fmt=fmt).messages


def load_conversation_source(source: str | os.PathLike, thread_id: str | None = None, *, fmt: str = "auto") -> LoadedConversation:
    """Read ``source``: a database (with ``thread_id``) or a JSON / JSONL file in any of :data:`FORMATS`."""
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"source must be a file path or a database URL, got {type(source).__name__}: {source!r:.80}")
    if fmt not in ("auto", *FORMATS):
        raise ValueError(f"fmt must be 'auto' or one of {FORMATS}, got {fmt!r}")
    if fmt == "checkpoint" or (fmt == "auto" and is_database(source)):
        if thread_id is None:
            raise ConversationError(os.fspath(source), _("a checkpointer database holds threads: no thread id was given"),
                                    _("name the thread with --thread ID (thread_id=...)"))
        return load_checkpoint(source, thread_id)
    return load_file(source, fmt)


__all__ = [
    "FORMATS",
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
