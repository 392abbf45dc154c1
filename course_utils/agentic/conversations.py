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

import json
import os
import sqlite3
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.messages.utils import convert_to_messages, messages_from_dict

from course_utils.core.args import check_text
from course_utils.core.columns import LRI
from course_utils.core.i18n import PDI, _, direction

#: The formats :func:`load_messages` reads (``fmt="auto"`` decides from the content).
FORMATS = ("openai", "anthropic", "langchain", "chatgpt", "claude-ai", "request-log", "fine-tuning", "responses",
           "gemini", "sharegpt", "checkpoint")
#: The message-list formats :func:`messages_from_records` reads.
RECORD_FORMATS = ("openai", "anthropic", "langchain")
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
        from course_utils.agentic.checkpoints import redact

        source, problem, fix = redact(str(source)), redact(str(problem)), redact(str(fix))  # never a password
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
    tools: list = field(default_factory=list)  #: tool schemas sent with every call (a request log's "tools")
    note: str | None = None  #: which conversation, line or call was read, and what else there is
    pending: list = field(default_factory=list)  #: tool calls of a paused thread, still waiting for their results


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


def messages_from_records(records: Sequence[Any], fmt: str = "auto", *, source: str = "records",
                          pending_ok: bool = True) -> list[BaseMessage]:
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
    check_tool_pairs(messages, source=source, positions=positions, pending_ok=pending_ok)
    return _name_tool_results(messages) if kind == "anthropic" else messages


def pending_calls(messages: Sequence[BaseMessage]) -> list[dict]:
    """The tool calls of the last AIMessage that no later ToolMessage answers: a thread paused before its tools.

    >>> from langchain_core.messages import AIMessage, HumanMessage
    >>> [c["name"] for c in pending_calls([HumanMessage("hi"), AIMessage("", tool_calls=[
    ...     {"name": "weather", "args": {}, "id": "c1"}])])]
    ['weather']
    """
    last = next((i for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], AIMessage)), None)
    if last is None:
        return []
    after = messages[last + 1:]
    if any(not isinstance(m, ToolMessage) for m in after):
        return []
    answered = {m.tool_call_id for m in after}
    return [c for c in messages[last].tool_calls if c.get("id") not in answered]


def check_tool_pairs(messages: Sequence[BaseMessage], *, source: str = "messages", positions: Sequence[int] | None = None,
                     pending_ok: bool = True) -> None:
    """Every tool result answers an earlier call, and every call gets a result (else ConversationError).

    ``positions`` maps each message to its index in the source (one Anthropic
    record can become several messages); by default the message's own index.
    With ``pending_ok`` the calls of the last AIMessage may still wait for
    their results (a thread paused before its tool node, :func:`pending_calls`).
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
    if open_calls and pending_ok:
        waiting = {c.get("id") for c in pending_calls(messages)}
        open_calls = {k: v for k, v in open_calls.items() if k not in waiting}
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

#: How the zip and the folder of a chat app's export are recognised.
ZIP_HEADER = b"PK\x03\x04"


def _decode(data: bytes, source: str) -> str:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if b"\x00" in data[:4096]:
            raise ConversationError(
                source, _("this is a binary file, not JSON text"),
                _("give the .json or .jsonl file itself (unzip an export first, or pass the .zip as it was delivered)"),
            ) from None
        line = data[: exc.start].count(b"\n") + 1
        raise ConversationError(
            source, _("the file is not UTF-8: byte {byte} (line {line}) is {value}").format(
                byte=exc.start, line=line, value=repr(data[exc.start:exc.start + 1])),
            _("save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8 in.json > out.json)"),
        ) from None
    if not text.strip():
        raise ConversationError(source, _("the file is empty"), _("export the conversation again; the file holds nothing"))
    return text


def _json_error(exc: json.JSONDecodeError, text: str, source: str) -> ConversationError:
    """Malformed JSON: where, and whether the file was simply cut short."""
    if not text[exc.pos:].strip() or exc.msg.startswith("Unterminated string"):
        return ConversationError(
            source, _("the JSON ends before it is complete (line {line}, column {column}): {msg}").format(
                line=exc.lineno, column=exc.colno, msg=_library(exc.msg)),
            _("the file was cut short: download or copy it again, whole"))
    return ConversationError(
        source, _("malformed JSON at line {line}, column {column}: {msg}").format(
            line=exc.lineno, column=exc.colno, msg=_library(exc.msg)),
        _("fix the JSON there, e.g. check it with python -m json.tool"))


def _parse(text: str, source: str, progress: Any = None) -> tuple[Any, bool]:
    """The file's JSON value, and whether it was JSONL (then the value is the list of its lines' values)."""
    stripped = text.lstrip()
    try:
        return json.loads(text), False
    except json.JSONDecodeError as whole:
        lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
        if stripped.startswith("[") or len(lines) < 2:
            raise _json_error(whole, text, source) from None
    records = []
    step = max(len(lines) // 20, 1)
    for index, (number, line) in enumerate(lines):
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ConversationError(
                source, _("malformed JSON in this JSONL line, column {column}: {msg}").format(
                    column=exc.colno, msg=_library(exc.msg)),
                _("fix that line: each line of a .jsonl file is one whole JSON object"), index, number) from None
        if progress and index % step == 0:
            progress("parsing lines", index, len(lines))
    return records, True


def _is_request(record: Any) -> bool:
    return isinstance(record, dict) and (isinstance(record.get("messages"), list) or "input" in record)


def _is_responses_items(items: list) -> bool:
    from course_utils.agentic.api_shapes import RESPONSES_ITEM_TYPES

    typed = [r for r in items if isinstance(r, dict) and r.get("type") in RESPONSES_ITEM_TYPES]
    return bool(typed) and any(r.get("type") != "message" or isinstance(r.get("content"), list) and any(
        isinstance(b, dict) and str(b.get("type", "")).startswith(("input_", "output_")) for b in r["content"])
        for r in typed)


def _is_gemini_contents(items: Any) -> bool:
    return isinstance(items, list) and bool(items) and all(
        isinstance(t, dict) and isinstance(t.get("parts"), list) and "content" not in t for t in items)


def _is_sharegpt(items: Any) -> bool:
    return isinstance(items, list) and bool(items) and all(isinstance(t, dict) and "from" in t and "value" in t
                                                           for t in items)


def detect_shape(value: Any, jsonl: bool, source: str) -> str:
    """Which of :data:`FORMATS` a file's decoded JSON is, when that is certain; else a ConversationError asking.

    >>> detect_shape({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}, False, "g.json")
    'gemini'
    """
    from course_utils.agentic.chat_exports import is_chatgpt, is_claude_export

    if jsonl:
        if value and all(_is_request(r) for r in value):
            with_model = sum(1 for r in value if "model" in r)
            if with_model == len(value):
                return "request-log"
            if with_model == 0 and all(isinstance(r.get("messages"), list) for r in value):
                return "fine-tuning"
            raise ConversationError(
                source, _("{with_model} of its {lines} lines name a model and the others do not: a request log or "
                          "fine-tuning data?").format(with_model=with_model, lines=len(value)),
                _("say which with --format request-log (each line a call) or --format fine-tuning (each line a "
                  "conversation)"))
        if value and all(isinstance(r, dict) and isinstance(r.get("conversations"), list) for r in value):
            return "sharegpt"
        if _is_responses_items(value):
            return "responses"
        return detect_format(value)
    if isinstance(value, dict):
        for key, shape in (("mapping", "chatgpt"), ("chat_messages", "claude-ai"), ("contents", "gemini"),
                           ("conversations", "sharegpt")):
            if key in value:
                return shape
        if "input" in value and "messages" not in value:
            return "responses"
        if isinstance(value.get("messages"), list):
            return detect_format(value["messages"])
        return detect_format([value])
    if isinstance(value, list) and value:
        if is_chatgpt(value):
            return "chatgpt"
        if is_claude_export(value):
            return "claude-ai"
        if all(isinstance(c, dict) and isinstance(c.get("conversations"), list) for c in value) or _is_sharegpt(value):
            return "sharegpt"
        if _is_gemini_contents(value):
            return "gemini"
        if _is_responses_items(value):
            return "responses"
        if not any(isinstance(r, dict) and ({"role", "type", "lc"} & set(r)) for r in value):
            raise ConversationError(
                source, _("this JSON is none of the shapes the loader knows (its first item's keys: {keys})").format(
                    keys=sorted(value[0])[:12] if isinstance(value[0], dict) else type(value[0]).__name__),
                _("name the shape with --format ({formats}); the appendix A1 shows each").format(
                    formats=", ".join(FORMATS[:-1])))
        return detect_format(value)
    if isinstance(value, list):
        raise ConversationError(source, _("there are no messages"), _("give at least one message"))
    raise ConversationError(source, _("the file holds a JSON {type}, not messages").format(type=type(value).__name__),
                            _("write a JSON list of messages, an object with 'messages', or one message a line (JSONL)"))


def _message_records(value: Any) -> list[Any]:
    """A message list, a request body ``{"messages": [...]}`` (Anthropic's ``system`` beside it) or one message."""
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        records = list(value["messages"])
        system = value.get("system")
        if system:  # Anthropic's request body keeps the system prompt beside the messages
            records.insert(0, {"role": "system", "content": system})
        return records
    return [value] if isinstance(value, dict) else list(value)


def _request_messages(request: dict, source: str, line: int) -> list[BaseMessage]:
    """One request body of a log or one line of fine-tuning data, as messages."""
    from course_utils.agentic.api_shapes import responses_messages

    if "input" in request and "messages" not in request:
        messages, _positions = responses_messages(request["input"], f"{source} (line {line})")
        if request.get("instructions"):
            messages.insert(0, SystemMessage(str(request["instructions"])))
        return messages
    records = _message_records(request)
    return messages_from_records(records, "auto", source=f"{source} (line {line})", pending_ok=True)


def _lines_conversation(value: list, shape: str, source: str, wanted: str | None,
                        progress: Any = None) -> tuple[list[BaseMessage], list, str]:
    """The chosen line of a request log or fine-tuning file: its messages, tool schemas and the note."""
    from course_utils.agentic.chat_exports import choose

    sizes = [len(r.get("messages") or r.get("input") or []) if isinstance(r, dict) else 0 for r in value]
    labels = [(f"line {i + 1}", i + 1) for i in range(len(value))]
    choice = choose(labels, sizes, wanted, source, _("request") if shape == "request-log" else _("conversation"))
    request = value[choice.index]
    messages = _request_messages(request, source, choice.index + 1)
    tools = list(request.get("tools") or [])
    if shape == "request-log":
        note = _("a request log of {count} calls (one request body a line); the thread is {choice}").format(
            count=f"{len(value):,}", choice=choice.note)
    else:
        note = _("fine-tuning data of {count} conversations (one a line); read: {choice}").format(
            count=f"{len(value):,}", choice=choice.note)
    return messages, tools, note


def _read_shape(value: Any, jsonl: bool, shape: str, source: str, wanted: str | None,
                progress: Any = None) -> LoadedConversation:
    """Decoded JSON of a known shape as a conversation."""
    from course_utils.agentic import api_shapes, chat_exports

    tools: list = []
    note = None
    if shape in ("chatgpt", "claude-ai"):
        messages, note = chat_exports.export_conversation(value, shape, source, wanted)
    elif shape in ("request-log", "fine-tuning"):
        messages, tools, note = _lines_conversation(value if jsonl else [value], shape, source, wanted, progress)
    elif shape == "responses":
        request = value if isinstance(value, dict) else {"input": value}
        messages, _positions = api_shapes.responses_messages(request.get("input", []), source)
        if request.get("instructions"):
            messages.insert(0, SystemMessage(str(request["instructions"])))
        tools = list(request.get("tools") or [])
    elif shape == "gemini":
        messages = api_shapes.gemini_messages(value, source)
        tools = list(value.get("tools") or []) if isinstance(value, dict) else []
    elif shape == "sharegpt":
        many = value if isinstance(value, list) and value and isinstance(value[0], dict) and "conversations" in value[0] else None
        if many is not None:
            choice = chat_exports.choose([(c.get("id"), c.get("id") or i + 1) for i, c in enumerate(many)],
                                         [len(c["conversations"]) for c in many], wanted, source, _("conversation"))
            value, note = many[choice.index], choice.note
        messages = api_shapes.sharegpt_messages(value, source)
    else:
        if isinstance(value, dict):
            tools = list(value.get("tools") or [])
        messages = messages_from_records(_message_records(value), shape, source=source)
    if not messages:
        raise ConversationError(source, _("there are no messages"), _("give at least one message"))
    if shape not in RECORD_FORMATS:
        check_tool_pairs(messages, source=source, pending_ok=True)
    return LoadedConversation(messages, source, shape, tools=tools, note=note,
                              pending=pending_calls(messages))


def _export_in_folder(path: Path) -> Path:
    """A chat app's export unzipped into a folder: its conversations.json (else an error listing the files)."""
    from course_utils.agentic.chat_exports import EXPORT_FILE

    found = sorted(path.rglob(EXPORT_FILE), key=lambda p: len(p.parts))
    if found:
        return found[0]
    files = sorted(p.name for p in path.iterdir() if p.suffix in (".json", ".jsonl", ".zip"))[:20]
    raise ConversationError(
        str(path), _("this is a folder, and it holds no {name}").format(name=EXPORT_FILE),
        _("give one of its files: {files}").format(files=", ".join(files)) if files
        else _("give the conversation's file itself, not its folder"))


def _export_in_zip(path: Path) -> tuple[bytes, str]:
    """The conversations.json inside a chat app's export zip, as bytes, and its name for messages."""
    import zipfile

    from course_utils.agentic.chat_exports import EXPORT_FILE

    try:
        with zipfile.ZipFile(path) as archive:
            names = sorted((n for n in archive.namelist() if n.rsplit("/", 1)[-1] == EXPORT_FILE), key=len)
            if not names:
                listed = ", ".join(n for n in archive.namelist() if n.endswith((".json", ".jsonl")))[:300]
                raise ConversationError(
                    str(path), _("this zip holds no {name}").format(name=EXPORT_FILE),
                    _("unzip it and give the conversation's file itself: {files}").format(files=listed or "-"))
            return archive.read(names[0]), f"{path}!{names[0]}"
    except zipfile.BadZipFile as exc:
        raise ConversationError(str(path), _("the zip cannot be opened: {error}").format(error=_library(str(exc))),
                                _("download the export again: the file is damaged or incomplete")) from None


def load_file(path: str | os.PathLike, fmt: str = "auto", *, conversation: str | None = None,
              progress: Any = None) -> LoadedConversation:
    """A conversation from a file, a chat app's export zip or folder (any of :data:`FORMATS` but "checkpoint").

    ``conversation`` chooses one of several (an export's title or id, a
    log's line number); by default the longest, and the result's ``note``
    says which and lists the others.
    """
    path = Path(path)
    source = str(path)
    if path.is_dir():
        path = _export_in_folder(path)
        source = str(path)
    if not path.exists():
        raise ConversationError(source, _("there is no such file"), _("check the path"))
    with open(path, "rb") as f:
        head = f.read(4)
    if head == ZIP_HEADER:
        data, source = _export_in_zip(path)
    else:
        data = path.read_bytes()
    if progress:
        progress("parsing JSON", 0, 1)
    value, jsonl = _parse(_decode(data, source), source, progress)
    if fmt == "auto":
        fmt = detect_shape(value, jsonl, source)
    loaded = _read_shape(value, jsonl, fmt, source, conversation, progress)
    if progress:
        progress("parsing JSON", 1, 1)
    return loaded


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
        raise ConversationError(source, _("SQLite could not read LangGraph's tables: {error}").format(error=_library(str(exc))),
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
