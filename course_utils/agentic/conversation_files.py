"""Files to conversations: which shape a file is, and the reader for each (see :mod:`course_utils.agentic.conversations`).

A JSON or JSONL file, a chat app's export ``.zip`` or its unzipped folder:
decoded (UTF-8; a binary file or a cut-short JSON said so), its shape
recognised when that is certain (:func:`detect_shape`) or named with
``fmt=``, then read by :mod:`~course_utils.agentic.conversation_records`,
:mod:`~course_utils.agentic.chat_exports` or :mod:`~course_utils.agentic.api_shapes`.

>>> detect_shape([{"from": "human", "value": "hi"}], False, "s.json")
'sharegpt'
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage, SystemMessage

from course_utils.agentic.conversation_records import (
    FORMATS,
    RECORD_FORMATS,
    ConversationError,
    LoadedConversation,
    library_words,
    check_tool_pairs,
    detect_format,
    messages_from_records,
    pending_calls,
)
from course_utils.core.i18n import _

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
                line=exc.lineno, column=exc.colno, msg=library_words(exc.msg)),
            _("the file was cut short: download or copy it again, whole"))
    return ConversationError(
        source, _("malformed JSON at line {line}, column {column}: {msg}").format(
            line=exc.lineno, column=exc.colno, msg=library_words(exc.msg)),
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
                    column=exc.colno, msg=library_words(exc.msg)),
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


def _jsonl_shape(value: list, source: str) -> str:
    """The shape of a JSONL file's lines: a request log, fine-tuning data, ShareGPT, Responses items or records."""
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


def _object_shape(value: dict) -> str:
    """The shape of a JSON object: by its telling key, else the records of its ``messages`` or itself."""
    for key, shape in (("mapping", "chatgpt"), ("chat_messages", "claude-ai"), ("contents", "gemini"),
                       ("conversations", "sharegpt")):
        if key in value:
            return shape
    if "input" in value and "messages" not in value:
        return "responses"
    if isinstance(value.get("messages"), list):
        return detect_format(value["messages"])
    return detect_format([value])


def _list_shape(value: list, source: str) -> str:
    """The shape of a non-empty JSON list: a chat app's export, ShareGPT, Gemini, Responses items or records."""
    from course_utils.agentic.chat_exports import is_chatgpt, is_claude_export

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


def detect_shape(value: Any, jsonl: bool, source: str) -> str:
    """Which of :data:`FORMATS` a file's decoded JSON is, when that is certain; else a ConversationError asking.

    >>> detect_shape({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}, False, "g.json")
    'gemini'
    """
    if jsonl:
        return _jsonl_shape(value, source)
    if isinstance(value, dict):
        return _object_shape(value)
    if isinstance(value, list) and value:
        return _list_shape(value, source)
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
        raise ConversationError(str(path), _("the zip cannot be opened: {error}").format(error=library_words(str(exc))),
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


__all__ = ["ZIP_HEADER", "detect_shape", "load_file"]
