"""What the APIs' own payloads look like, read as LangChain messages: Responses items, Gemini, ShareGPT.

One reader per shape, each a small function from decoded JSON to messages,
used by :mod:`course_utils.agentic.conversations` once it has recognised the
shape (or been told it with ``fmt=``):

- **OpenAI Responses API**: a list of input/output items (``message`` with
  ``input_text`` / ``output_text`` blocks, ``function_call``,
  ``function_call_output``, ``reasoning``) or a request ``{"input": [...]}``.
  Text blocks become plain text (so they are counted as text, not as JSON);
  consecutive output items (reasoning, message, function calls) make one
  AIMessage, as one model call produced them.
- **Gemini** ``contents``: ``{"role": "user" | "model", "parts": [...]}`` with
  ``text``, ``inlineData``, ``functionCall`` and ``functionResponse`` parts,
  and ``systemInstruction``.
- **ShareGPT**: ``{"conversations": [{"from": "human" | "gpt" | ..., "value": ...}]}``.

Images stay image blocks (LangChain's standard ``{"type": "image", ...}``),
so the counters apply each provider's image rule instead of reading base64
as text.

>>> [m.type for m in gemini_messages({"contents": [{"role": "user", "parts": [{"text": "hi"}]},
...                                                 {"role": "model", "parts": [{"text": "hello"}]}]}, "g.json")]
['human', 'ai']
>>> [m.type for m in sharegpt_messages({"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "yo"}]}, "s.json")]
['human', 'ai']
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from course_utils.agentic.conversation_records import ConversationError
from course_utils.core.i18n import _

#: Item types of the Responses API that a conversation holds.
RESPONSES_ITEM_TYPES = ("message", "function_call", "function_call_output", "reasoning",
                        "custom_tool_call", "custom_tool_call_output")
#: ShareGPT's speaker names, by LangChain role.
SHAREGPT_ROLES = {"human": "human", "user": "human", "gpt": "ai", "assistant": "ai", "chatgpt": "ai", "bing": "ai",
                  "bard": "ai", "model": "ai", "system": "system", "function_call": "call", "observation": "result",
                  "tool": "result", "function_response": "result"}


def _error(source: str, problem: str, fix: str, index: int | None = None) -> Exception:
    return ConversationError(source, problem, fix, index)


def _image_from_url(url: str, detail: str | None = None) -> dict:
    """A standard image block from a URL or a ``data:`` URL (base64 kept as data, never as text)."""
    block: dict[str, Any] = {"type": "image"}
    if url.startswith("data:") and ";base64," in url:
        head, data = url.split(",", 1)
        block.update(base64=data, mime_type=head[5:].split(";")[0])
    else:
        block["url"] = url
    if detail:
        block["detail"] = detail
    return block


# --- OpenAI Responses API ---------------------------------------------------------------


def _responses_blocks(content: Any, source: str, index: int) -> str | list:
    """A Responses message's content: text blocks joined as text, images as image blocks."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise _error(source, _("content must be a string or a list of blocks, got {type}").format(
            type=type(content).__name__), _("copy the item whole from the request or the response"), index)
    texts, blocks = [], []
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind in ("input_text", "output_text", "text", "summary_text", "refusal"):
            text = block.get("text", block.get("refusal", ""))
            texts.append(str(text))
            blocks.append({"type": "text", "text": str(text)})
        elif kind == "input_image":
            url = block.get("image_url") or ""
            blocks.append(_image_from_url(url, block.get("detail")) if url else
                          {"type": "image", "file_id": block.get("file_id"), "detail": block.get("detail")})
        elif kind == "input_file":
            blocks.append({"type": "file", "file_id": block.get("file_id"), "filename": block.get("filename")})
        else:
            raise _error(source, _("a content block of type {kind} is not one the Responses API defines").format(
                kind=repr(kind)), _("copy the item whole from the request or the response"), index)
    if all(b["type"] == "text" for b in blocks):
        return "\n\n".join(texts)
    return blocks


class _ResponsesReader:
    """Responses items read one at a time into messages; output items in a row gather into one AIMessage."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.messages: list[BaseMessage] = []
        self.positions: list[int] = []
        self.open_ai: AIMessage | None = None  # the AIMessage that output items are being gathered into

    def flush(self) -> None:
        """The next output item starts a new AIMessage."""
        self.open_ai = None

    def ai_message(self, index: int) -> AIMessage:
        """The AIMessage being gathered, started (at item ``index``) if there is none."""
        if self.open_ai is None:
            self.open_ai = AIMessage(content=[], tool_calls=[])
            self.messages.append(self.open_ai)
            self.positions.append(index)
        return self.open_ai

    def add(self, index: int, item: Any) -> None:
        """One item, by its type."""
        if not isinstance(item, dict):
            raise _error(self.source, _("an item must be an object, got {type}").format(type=type(item).__name__),
                         _("copy the items whole from the request's input or the response's output"), index)
        kind = item.get("type", "message" if "role" in item else None)
        if kind == "message":
            self.message(index, item)
        elif kind == "reasoning":
            summary = " ".join(str(s.get("text", "")) for s in item.get("summary") or [] if isinstance(s, dict))
            ai = self.ai_message(index)
            ai.content = list(ai.content) + [{"type": "reasoning", "reasoning": summary}]
        elif kind in ("function_call", "custom_tool_call"):
            self.call(index, item, kind)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self.output(index, item)
        else:
            raise _error(self.source, _("an item of type {kind} is not one this reader knows").format(kind=repr(kind)),
                         _("the items it reads: {kinds}").format(kinds=", ".join(RESPONSES_ITEM_TYPES)), index)

    def message(self, index: int, item: dict) -> None:
        """A ``message`` item: the assistant's joins the AIMessage being gathered, any other role is its own."""
        role = item.get("role")
        content = _responses_blocks(item.get("content", ""), self.source, index)
        if role == "assistant":
            ai = self.ai_message(index)
            ai.content = list(ai.content) + ([{"type": "text", "text": content}] if isinstance(content, str) else content)
            return
        self.flush()
        cls = {"user": HumanMessage, "system": SystemMessage, "developer": SystemMessage}.get(role)
        if cls is None:
            raise _error(self.source, _("unknown role {role}: a message's role must be one of {allowed}").format(
                role=repr(role), allowed="user, assistant, system, developer"),
                _("copy the item whole from the request or the response"), index)
        self.messages.append(cls(content))
        self.positions.append(index)

    def call(self, index: int, item: dict, kind: str) -> None:
        """A ``function_call`` (JSON arguments) or ``custom_tool_call`` (free input): a tool call of the AIMessage."""
        raw = item.get("arguments", item.get("input", "{}"))
        try:
            args = json.loads(raw) if isinstance(raw, str) and kind == "function_call" else {"input": raw}
        except json.JSONDecodeError:
            args = {"arguments": raw}
        call_id = item.get("call_id") or item.get("id")
        if not isinstance(call_id, str) or not isinstance(item.get("name"), str):
            raise _error(self.source, _("a function_call item needs a string 'call_id' and 'name'"),
                         _("copy the item whole from the response's output"), index)
        ai = self.ai_message(index)
        ai.tool_calls = [*ai.tool_calls, {"name": item["name"], "args": args if isinstance(args, dict) else {"value": args},
                                          "id": call_id, "type": "tool_call"}]

    def output(self, index: int, item: dict) -> None:
        """A ``function_call_output`` or ``custom_tool_call_output`` item: a ToolMessage."""
        self.flush()
        if not isinstance(item.get("call_id"), str):
            raise _error(self.source, _("a function_call_output item needs a string 'call_id'"),
                         _("copy the item whole from the request's input"), index)
        output = item.get("output", "")
        self.messages.append(ToolMessage(content=output if isinstance(output, str) else json.dumps(output),
                                         tool_call_id=item["call_id"]))
        self.positions.append(index)


def responses_messages(items: Any, source: str) -> tuple[list[BaseMessage], list[int]]:
    """Responses API items (or a request's ``input``) as messages, with each message's item index."""
    if isinstance(items, str):
        return [HumanMessage(items)], [0]
    reader = _ResponsesReader(source)
    for index, item in enumerate(items):
        reader.add(index, item)
    for message in reader.messages:  # an AIMessage of text blocks only reads as plain text
        if isinstance(message, AIMessage) and isinstance(message.content, list) and all(
                b.get("type") == "text" for b in message.content):
            message.content = "\n\n".join(b["text"] for b in message.content)
    return reader.messages, reader.positions


# --- Gemini ---------------------------------------------------------------------------------


def _gemini_parts(parts: Any, source: str, index: int) -> tuple[list[dict], list[dict], list[dict]]:
    """(content blocks, function calls, function responses) of one Gemini turn."""
    if not isinstance(parts, list):
        raise _error(source, _("'parts' must be a list, got {type}").format(type=type(parts).__name__),
                     _("copy the contents whole from the request"), index)
    blocks, calls, results = [], [], []
    for part in parts:
        if not isinstance(part, dict):
            raise _error(source, _("a part must be an object, got {type}").format(type=type(part).__name__),
                         _("copy the contents whole from the request"), index)
        inline = part.get("inlineData") or part.get("inline_data")
        linked = part.get("fileData") or part.get("file_data")
        call = part.get("functionCall") or part.get("function_call")
        result = part.get("functionResponse") or part.get("function_response")
        if "text" in part:
            if not part.get("thought"):
                blocks.append({"type": "text", "text": str(part["text"])})
        elif inline:
            mime = inline.get("mimeType") or inline.get("mime_type") or ""
            kind = "image" if mime.startswith("image/") else "file"
            blocks.append({"type": kind, "base64": inline.get("data", ""), "mime_type": mime})
        elif linked:
            mime = linked.get("mimeType") or linked.get("mime_type") or ""
            blocks.append({"type": "image" if mime.startswith("image/") else "file",
                           "url": linked.get("fileUri") or linked.get("file_uri"), "mime_type": mime})
        elif call:
            calls.append(call)
        elif result:
            results.append(result)
    return blocks, calls, results


def gemini_messages(value: Any, source: str) -> list[BaseMessage]:
    """A Gemini request (``{"contents": [...], "systemInstruction": ...}``) or its ``contents`` list."""
    contents = value.get("contents") if isinstance(value, dict) else value
    messages: list[BaseMessage] = []
    system = value.get("systemInstruction") or value.get("system_instruction") if isinstance(value, dict) else None
    if system:
        blocks, _calls, _results = _gemini_parts(system.get("parts", []) if isinstance(system, dict) else [], source, 0)
        messages.append(SystemMessage("\n".join(b.get("text", "") for b in blocks)))
    open_calls: list[tuple[str, str]] = []  # (name, id) of calls not yet answered, oldest first
    for index, turn in enumerate(contents):
        if not isinstance(turn, dict):
            raise _error(source, _("a turn must be an object with 'role' and 'parts', got {type}").format(
                type=type(turn).__name__), _("copy the contents whole from the request"), index)
        role = turn.get("role", "user")
        blocks, calls, results = _gemini_parts(turn.get("parts", []), source, index)
        content: str | list = "\n".join(b["text"] for b in blocks) if all(b["type"] == "text" for b in blocks) else blocks
        if role == "model":
            tool_calls = []
            for j, call in enumerate(calls):
                call_id = str(call.get("id") or f"gemini-{index}-{j}")
                tool_calls.append({"name": str(call.get("name")), "args": call.get("args") or {}, "id": call_id,
                                   "type": "tool_call"})
                open_calls.append((str(call.get("name")), call_id))
            messages.append(AIMessage(content=content, tool_calls=tool_calls))
        elif role in ("user", "function", "tool"):
            for result in results:
                name = str(result.get("name"))
                match = next((c for c in open_calls if (result.get("id") and c[1] == result.get("id")) or c[0] == name), None)
                if match is None:
                    raise _error(source, _("a functionResponse for {name} answers no earlier functionCall").format(
                        name=repr(name)), _("add the model turn with that functionCall before it, or remove the response"),
                        index)
                open_calls.remove(match)
                messages.append(ToolMessage(content=json.dumps(result.get("response", {}), ensure_ascii=False),
                                            tool_call_id=match[1], name=name))
            if blocks:
                messages.append(HumanMessage(content=content))
        else:
            raise _error(source, _("unknown role {role}: a message's role must be one of {allowed}").format(
                role=repr(role), allowed="user, model"), _("Gemini's roles are 'user' and 'model'"), index)
    return messages


# --- ShareGPT ---------------------------------------------------------------------------------


def sharegpt_messages(value: Any, source: str) -> list[BaseMessage]:
    """One ShareGPT conversation (``{"conversations": [...]}`` or the list itself)."""
    turns = value.get("conversations") if isinstance(value, dict) else value
    messages: list[BaseMessage] = []
    if isinstance(value, dict) and isinstance(value.get("system"), str) and value["system"]:
        messages.append(SystemMessage(value["system"]))
    open_calls: list[str] = []
    for index, turn in enumerate(turns):
        if not isinstance(turn, dict) or "from" not in turn or "value" not in turn:
            raise _error(source, _("a ShareGPT turn needs 'from' and 'value'"),
                         _("write each turn as {\"from\": \"human\", \"value\": \"...\"}"), index)
        role = SHAREGPT_ROLES.get(str(turn["from"]).lower())
        text = turn["value"] if isinstance(turn["value"], str) else json.dumps(turn["value"], ensure_ascii=False)
        if role is None:
            raise _error(source, _("unknown speaker {name}: ShareGPT's speakers are {allowed}").format(
                name=repr(turn["from"]), allowed=", ".join(SHAREGPT_ROLES)),
                _("rename the speaker (e.g. 'bot' -> 'gpt') or remove the turn"), index)
        if role == "call":
            try:
                call = json.loads(text)
            except json.JSONDecodeError:
                call = {"name": "function", "arguments": text}
            call_id = f"sharegpt-{index}"
            args = call.get("arguments", {}) if isinstance(call, dict) else {}
            messages.append(AIMessage(content="", tool_calls=[{
                "name": str(call.get("name", "function")) if isinstance(call, dict) else "function",
                "args": args if isinstance(args, dict) else {"arguments": args}, "id": call_id, "type": "tool_call"}]))
            open_calls.append(call_id)
        elif role == "result":
            if not open_calls:
                raise _error(source, _("a tool result answers no earlier function_call turn"),
                             _("add the function_call turn before it, or remove the result"), index)
            messages.append(ToolMessage(content=text, tool_call_id=open_calls.pop(0)))
        else:
            messages.append({"human": HumanMessage, "ai": AIMessage, "system": SystemMessage}[role](text))
    return messages


__all__ = ["RESPONSES_ITEM_TYPES", "SHAREGPT_ROLES", "gemini_messages", "responses_messages", "sharegpt_messages"]
