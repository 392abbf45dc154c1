"""Provider-side context management, emulated offline behind the real request shape (lesson 08).

The real ``langchain-anthropic`` and ``langchain-openai`` packages build and
send their requests as they would to the provider; an httpx transport
(:class:`RecordingTransport`) records each request and, instead of the
network, hands it to an emulated server that answers with a response in
the provider's format. What the servers emulate, and from which page:

- :class:`AnthropicServer` (Messages API, ``POST /v1/messages``):
  ``compact_20260112`` (``ANTHROPIC_PAGES["compaction"]``): once the input
  reaches the trigger (``input_tokens``, default 150,000, at least 50,000)
  the server summarises the conversation into a ``compaction`` block, puts
  it first in the reply's content and answers from it; the client sends the
  block back, and the server ignores every block before it. The summary pass
  is billed as its own iteration (``usage.iterations``).
  ``clear_tool_uses_20250919`` and ``clear_thinking_20251015``
  (``ANTHROPIC_PAGES["context_editing"]``): past the trigger (default
  100,000 input tokens) tool results older than the last ``keep`` tool uses
  (default 3) are replaced by a placeholder, and thinking blocks of all but
  the last ``keep`` assistant turns (default 1) are dropped; each applied
  edit is reported in ``context_management.applied_edits``; with thinking on
  and no ``clear_thinking_20251015`` edit, only the last turn's thinking is
  read, unreported (the page's default). Input above the
  model's window is refused with Anthropic's "prompt is too long" error.
- :class:`OpenAIServer` (Responses API, ``POST /v1/responses``)
  (``OPENAI_PAGES``): a response is stored under its id; a request with
  ``previous_response_id`` continues from the stored items, and every one of
  them is input again (billed, with the provider's automatic prefix cache);
  ``context_management`` ``[{"type": "compaction", "compact_threshold": N}]``
  replaces the items by one opaque ``compaction`` item once the input
  reaches N (an item the client sends back is read as the summary it
  stands for); ``truncation: "auto"`` drops the oldest items instead of
  refusing input above the window.
- ``POST /v1/messages/count_tokens`` (Anthropic's token counting) answers the
  input tokens of a request as sent, before any edit, and bills nothing.

What is *not* the provider's: the replies (the course's rules: a request
sharing a word with a tool's name calls it with the request's last word, a
tool result is answered from its first line), the summary text (the first words of every user turn), the
token counts (the course's exact ``cl100k_base`` counter on the blocks'
text, plus 3 tokens a message) and the placeholder's words.

>>> server = AnthropicServer()
>>> reply = server.respond("/v1/messages", {"model": "claude-sonnet-5-5", "max_tokens": 100,
...                                          "messages": [{"role": "user", "content": "Hello there"}]})
>>> reply["content"][0]["text"]
'Noted: Hello there.'
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from dataclasses import dataclass, field
from typing import Any, Callable

import httpx2 as httpx  # the HTTP client anthropic 2 and openai 3 are built on

from course_utils.core.args import check_int
from course_utils.window.costs import Call
from course_utils.window.tokens import count_text_tokens

#: The provider pages the emulation follows, and the day the course read them.
ANTHROPIC_PAGES = {
    "compaction": ("https://platform.claude.com/docs/en/build-with-claude/compaction", "2026-12-04"),
    "context_editing": ("https://platform.claude.com/docs/en/build-with-claude/context-editing", "2026-12-04"),
}
OPENAI_PAGES = {
    "compaction": ("https://platform.openai.com/docs/guides/compaction", "2026-12-04"),
    "conversation_state": ("https://platform.openai.com/docs/guides/conversation-state", "2026-12-04"),
}
#: Defaults and limits the Anthropic pages state.
COMPACT_DEFAULT_TRIGGER = 150_000
COMPACT_MIN_TRIGGER = 50_000
CLEAR_DEFAULT_TRIGGER = 100_000
CLEAR_DEFAULT_KEEP = 3
THINKING_DEFAULT_KEEP = 1
#: The emulation's own choices (not the providers').
PLACEHOLDER = "[tool result cleared by context management]"
MESSAGE_OVERHEAD = 3
SUMMARY_WORDS = 12


@lru_cache(maxsize=4096)
def tokens(text: str) -> int:
    """Tokens of a piece of text by the course's exact counter (``cl100k_base``); remembered, as a history is re-sent.

    >>> tokens("hello world")
    2
    """
    return count_text_tokens(text) if text else 0


def _key(value: Any) -> str:
    return hashlib.sha1(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]


def _words(text: str, n: int) -> str:
    words = text.split()
    return " ".join(words[:n]) + (" …" if len(words) > n else "")


@dataclass
class Recorded:
    """One request as it left the client: path, the beta header, and the JSON body."""

    method: str
    path: str
    beta: str | None
    body: dict[str, Any]


class RecordingTransport(httpx.BaseTransport):
    """An httpx transport that records every request and answers from ``server`` instead of the network.

    >>> transport = RecordingTransport(AnthropicServer())
    >>> client = httpx.Client(transport=transport)
    >>> client.post("https://api.anthropic.com/v1/messages", json={"model": "m", "max_tokens": 5,
    ...             "messages": [{"role": "user", "content": "Hi"}]}).json()["content"][0]["text"]
    'Noted: Hi.'
    >>> transport.requests[0].path
    '/v1/messages'
    """

    def __init__(self, server: "EmulatedServer"):
        self.server, self.requests = server, []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content or b"{}")
        self.requests.append(Recorded(request.method, request.url.path, request.headers.get("anthropic-beta"), body))
        try:
            return httpx.Response(200, json=self.server.respond(request.url.path, body), request=request)
        except ProviderError as error:
            return httpx.Response(error.status, json=error.body, request=request)


class ProviderError(Exception):
    """An error the emulated server answers with (an HTTP status and the provider's error body)."""

    def __init__(self, status: int, body: dict[str, Any]):
        super().__init__(json.dumps(body))
        self.status, self.body = status, body


@dataclass
class Pass:
    """One billed model pass on the server: what it read (parts with keys) and what it wrote."""

    kind: str  # "turn" or "summary" (a compaction pass)
    keys: tuple[str, ...]
    parts: tuple[int, ...]
    output_tokens: int

    @property
    def input_tokens(self) -> int:
        return sum(self.parts)

    def call(self) -> Call:
        """The pass as a :class:`course_utils.window.costs.Call`, for ``bill()``."""
        return Call(self.kind, self.keys, self.parts, self.output_tokens)


@dataclass
class EmulatedServer:
    """What both emulated servers share: the passes they billed, and the rules of the offline replies."""

    context_window: int = 1_000_000
    passes: list[Pass] = field(default_factory=list)
    counter: int = 0

    def __post_init__(self):
        check_int(self.context_window, "context_window", minimum=1)

    def calls(self) -> list[Call]:
        """Every billed pass as a ``Call`` (compaction passes are kind "summary")."""
        return [p.call() for p in self.passes]

    def next_id(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}_{self.counter:04d}"

    def respond(self, path: str, body: dict[str, Any]) -> dict[str, Any]:  # pragma: no cover - abstract
        raise NotImplementedError


def _reply_rule(last_user_text: str, tool_result: str | None, tool_names: list[str]) -> tuple[str, str | None]:
    """The offline reply: ("text", words) or ("tool", tool name).

    A tool result is answered from its first line; a request that shares a
    word with a tool's name (``read_log``: "read" or "log") calls that tool.

    >>> _reply_rule("Read the log of Monday.", None, ["read_log"])
    ('tool', 'read_log')
    >>> _reply_rule("Thanks!", None, ["read_log"])
    ('text', 'Noted: Thanks.')
    """
    if tool_result is not None:
        first = next((line for line in tool_result.splitlines() if line.strip()), "nothing")
        return "text", f"From the results: {_words(first, 20)}"
    words = set(re.findall(r"[a-z]+", last_user_text.lower()))
    for name in tool_names:
        if words & set(name.lower().split("_")):
            return "tool", name
    return "text", f"Noted: {_words(last_user_text, 8).rstrip('.?!')}."


def _argument(last_user_text: str) -> str:
    """The tool call's one argument: the request's last word ("Read the log of Monday." gives "Monday")."""
    found = re.findall(r"[\w-]+", last_user_text)
    return found[-1] if found else last_user_text


# --------------------------------------------------------------------------------------- Anthropic


def _block_text(block: Any) -> str:
    if isinstance(block, str):
        return block
    kind = block.get("type")
    if kind == "text":
        return block.get("text", "")
    if kind == "thinking":
        return block.get("thinking", "")
    if kind == "redacted_thinking":
        return block.get("data", "")
    if kind == "compaction":
        return block.get("content") or ""
    if kind == "tool_use":
        return block.get("name", "") + json.dumps(block.get("input", {}), sort_keys=True)
    if kind == "tool_result":
        content = block.get("content", "")
        return content if isinstance(content, str) else "".join(_block_text(b) for b in content)
    return json.dumps(block, sort_keys=True)


def _blocks(message: dict[str, Any]) -> list[Any]:
    content = message.get("content", "")
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def _message_tokens(message: dict[str, Any]) -> int:
    return MESSAGE_OVERHEAD + sum(tokens(_block_text(b)) for b in _blocks(message))


def _trigger(edit: dict[str, Any], default: int) -> int:
    trigger = edit.get("trigger") or {"type": "input_tokens", "value": default}
    if trigger.get("type") != "input_tokens":
        raise ProviderError(400, _anthropic_error(f"{edit['type']}: trigger type must be input_tokens"))
    return int(trigger["value"])


def _anthropic_error(message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}


@dataclass
class AnthropicServer(EmulatedServer):
    """The Messages API with ``context_management`` edits, emulated (see the module's docstring)."""

    def _window(self, body: dict[str, Any]) -> tuple[list[tuple[str, int]], list[dict[str, Any]]]:
        """The parts the model reads: tool schemas, system prompt, then the messages."""
        parts = []
        for schema in body.get("tools", []):
            if not schema.get("defer_loading"):  # a deferred tool's schema is loaded only when searched for
                parts.append((_key(schema), tokens(json.dumps(schema, sort_keys=True))))
        system = body.get("system")
        if system:
            text = system if isinstance(system, str) else "".join(_block_text(b) for b in system)
            parts.append((_key(text), tokens(text)))
        return parts, list(body["messages"])

    def respond(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        if path.endswith("/v1/messages/count_tokens"):
            return self.count_tokens(body)
        if not path.endswith("/v1/messages"):
            raise ProviderError(404, _anthropic_error(f"no such endpoint in the emulation: {path}"))
        edits = (body.get("context_management") or {}).get("edits", [])
        kinds = [edit.get("type") for edit in edits]
        if "clear_thinking_20251015" in kinds and kinds[0] != "clear_thinking_20251015":
            raise ProviderError(400, _anthropic_error("clear_thinking_20251015 must be the first edit"))
        prefix, messages = self._window(body)
        # The client sends the compaction block back: everything before the last one is ignored.
        messages = _after_last_compaction(messages)
        applied = []
        thinking_on = (body.get("thinking") or {}).get("type") in ("enabled", "adaptive")
        if thinking_on and "clear_thinking_20251015" not in kinds:
            # The context-editing page: with thinking on and no clear_thinking edit, the API keeps only the
            # thinking of the last assistant turn (as keep: 1), silently.
            messages, _ = _clear_thinking(messages, {"keep": {"type": "thinking_turns", "value": THINKING_DEFAULT_KEEP}})
        for edit in edits:
            if edit["type"] == "clear_thinking_20251015":
                messages, report = _clear_thinking(messages, edit)
                applied += [report] if report else []
            elif edit["type"] == "clear_tool_uses_20250919":
                total = sum(t for _, t in prefix) + sum(map(_message_tokens, messages))
                if total >= _trigger(edit, CLEAR_DEFAULT_TRIGGER):
                    messages, report = _clear_tool_uses(messages, edit)
                    applied += [report] if report else []
        content, iterations = [], []
        compact = next((e for e in edits if e["type"] == "compact_20260112"), None)
        total = sum(t for _, t in prefix) + sum(map(_message_tokens, messages))
        if compact is not None:
            trigger = _trigger(compact, COMPACT_DEFAULT_TRIGGER)
            if trigger < COMPACT_MIN_TRIGGER:
                raise ProviderError(400, _anthropic_error(
                    f"compact_20260112: trigger value must be at least {COMPACT_MIN_TRIGGER}, got {trigger}"))
            if total >= trigger:
                summary = _summary(messages)
                block = {"type": "compaction", "content": summary}
                self._bill("summary", prefix, messages, tokens(summary))
                iterations.append({"type": "compaction", "input_tokens": total, "output_tokens": tokens(summary)})
                content.append(block)
                messages = [{"role": "assistant", "content": [block]}, messages[-1]]
        read = sum(t for _, t in prefix) + sum(map(_message_tokens, messages))
        if read > self.context_window:
            raise ProviderError(400, _anthropic_error(f"prompt is too long: {read} tokens > {self.context_window} maximum"))
        reply = self._reply(body, messages)
        out = sum(tokens(_block_text(b)) for b in reply)
        self._bill("turn", prefix, messages, out)
        content += reply
        iterations.append({"type": "message", "input_tokens": read, "output_tokens": out})
        usage = {"input_tokens": read, "output_tokens": out, "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0}
        if compact is not None:
            usage["iterations"] = iterations
        response = {"id": self.next_id("msg"), "type": "message", "role": "assistant", "model": body["model"],
                    "content": content, "stop_reason": "tool_use" if reply[-1]["type"] == "tool_use" else "end_turn",
                    "stop_sequence": None, "usage": usage}
        if edits:
            response["context_management"] = {"applied_edits": applied}
        return response

    def count_tokens(self, body: dict[str, Any]) -> dict[str, Any]:
        """``POST /v1/messages/count_tokens``: the input tokens of a request as sent, before any edit; not billed.

        >>> AnthropicServer().count_tokens({"messages": [{"role": "user", "content": "hello world"}]})
        {'input_tokens': 5}
        """
        prefix, messages = self._window(body)
        return {"input_tokens": sum(t for _, t in prefix) + sum(map(_message_tokens, messages))}

    def _bill(self, kind: str, prefix: list[tuple[str, int]], messages: list[dict[str, Any]], out: int) -> None:
        parts = [*prefix, *((_key(m), _message_tokens(m)) for m in messages)]
        self.passes.append(Pass(kind, tuple(k for k, _ in parts), tuple(t for _, t in parts), out))

    def _reply(self, body: dict[str, Any], messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        last = messages[-1]
        results = [b for b in _blocks(last) if isinstance(b, dict) and b.get("type") == "tool_result"]
        user_text = " ".join(_block_text(b) for b in _blocks(last) if b.get("type") == "text")
        names = [t["name"] for t in body.get("tools", []) if "input_schema" in t and not t.get("defer_loading")]
        kind, value = _reply_rule(user_text, _block_text(results[-1]) if results else None, names)
        reply = []
        if (body.get("thinking") or {}).get("type") in ("enabled", "adaptive"):
            reply.append({"type": "thinking", "thinking": f"The user asked: {_words(user_text or 'for results', 30)} "
                          "I should answer briefly and check what I already know.", "signature": self.next_id("sig")})
        if kind == "tool":
            schema = next(t for t in body["tools"] if t.get("name") == value)
            argument = (schema["input_schema"].get("required") or list(schema["input_schema"]["properties"]))[0]
            reply.append({"type": "tool_use", "id": self.next_id("toolu"), "name": value,
                          "input": {argument: _argument(user_text)}})
        else:
            reply.append({"type": "text", "text": value})
        return reply


def _after_last_compaction(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for i in range(len(messages) - 1, -1, -1):
        blocks = _blocks(messages[i])
        where = [j for j, b in enumerate(blocks) if isinstance(b, dict) and b.get("type") == "compaction"]
        if where:
            return [{"role": messages[i]["role"], "content": blocks[where[-1]:]}, *messages[i + 1:]]
    return messages


def _summary(messages: list[dict[str, Any]]) -> str:
    """The emulation's summary: the first words of every user turn (a real provider writes its own)."""
    asks = [_words(_block_text(b), SUMMARY_WORDS) for m in messages if m["role"] == "user"
            for b in _blocks(m) if isinstance(b, dict) and b.get("type") == "text"]
    earlier = [_words(_block_text(b), SUMMARY_WORDS) for m in messages if m["role"] == "assistant"
               for b in _blocks(m) if isinstance(b, dict) and b.get("type") == "compaction"]
    return "Summary of the conversation so far. " + " ".join(earlier) + " The user asked: " + "; ".join(asks)


def _clear_tool_uses(messages: list[dict[str, Any]], edit: dict[str, Any]) -> tuple[list, dict | None]:
    keep = int((edit.get("keep") or {}).get("value", CLEAR_DEFAULT_KEEP))
    excluded = set(edit.get("exclude_tools") or [])
    names = {b["id"]: b["name"] for m in messages for b in _blocks(m)
             if isinstance(b, dict) and b.get("type") == "tool_use"}
    results = [(i, j) for i, m in enumerate(messages) for j, b in enumerate(_blocks(m))
               if isinstance(b, dict) and b.get("type") == "tool_result" and _block_text(b) != PLACEHOLDER
               and names.get(b.get("tool_use_id")) not in excluded]
    targets = results[:max(0, len(results) - keep)]
    if not targets:
        return messages, None
    cleared, out = 0, [dict(m, content=_blocks(m)) for m in messages]
    for i, j in targets:
        block = out[i]["content"][j]
        cleared += tokens(_block_text(block)) - tokens(PLACEHOLDER)
        out[i]["content"][j] = {**block, "content": PLACEHOLDER}
    return out, {"type": "clear_tool_uses_20250919", "cleared_tool_uses": len(targets), "cleared_input_tokens": cleared}


def _clear_thinking(messages: list[dict[str, Any]], edit: dict[str, Any]) -> tuple[list, dict | None]:
    keep = (edit.get("keep") or {"type": "thinking_turns", "value": THINKING_DEFAULT_KEEP})
    if keep == "all":
        return messages, None
    turns = [i for i, m in enumerate(messages) if m["role"] == "assistant"
             and any(isinstance(b, dict) and b.get("type") == "thinking" for b in _blocks(m))]
    targets = turns[:max(0, len(turns) - int(keep["value"]))]
    if not targets:
        return messages, None
    cleared, out = 0, list(messages)
    for i in targets:
        blocks = _blocks(messages[i])
        cleared += sum(tokens(_block_text(b)) for b in blocks if b.get("type") == "thinking")
        out[i] = dict(messages[i], content=[b for b in blocks if b.get("type") != "thinking"])
    return out, {"type": "clear_thinking_20251015", "cleared_thinking_turns": len(targets),
                 "cleared_input_tokens": cleared}


# --------------------------------------------------------------------------------------- OpenAI


def _item_text(item: Any) -> str:
    if isinstance(item, str):
        return item
    kind = item.get("type", "message")
    if kind == "message":
        content = item.get("content", "")
        return content if isinstance(content, str) else "".join(c.get("text", "") for c in content)
    if kind == "function_call":
        return item.get("name", "") + item.get("arguments", "")
    if kind == "function_call_output":
        output = item.get("output", "")
        return output if isinstance(output, str) else json.dumps(output)
    if kind == "compaction":
        return item.get("summary_text", "")
    if kind == "reasoning":
        return " ".join(s.get("text", "") for s in item.get("summary", [])) + item.get("content_text", "")
    return json.dumps(item, sort_keys=True)


def _item_tokens(item: Any) -> int:
    return MESSAGE_OVERHEAD + tokens(_item_text(item))


def _openai_error(message: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": code}}


@dataclass
class OpenAIServer(EmulatedServer):
    """The Responses API with stored responses, compaction and truncation, emulated (see the module's docstring)."""

    cache_minimum: int = 1024
    stored: dict[str, list[Any]] = field(default_factory=dict)
    #: What each compaction item it returned stands for (the provider decrypts its own items; a client cannot).
    compactions: dict[str, str] = field(default_factory=dict)

    def _expanded(self, item: Any) -> Any:
        """A compaction item the client sent back, with the summary it stands for (known only to this server)."""
        if isinstance(item, dict) and item.get("type") == "compaction" and "summary_text" not in item:
            return {**item, "summary_text": self.compactions.get(item.get("encrypted_content", ""), "")}
        return item

    def respond(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        if not path.endswith("/responses"):
            raise ProviderError(404, _openai_error(f"no such endpoint in the emulation: {path}"))
        new = body["input"] if isinstance(body["input"], list) else [{"role": "user", "content": body["input"]}]
        new = [self._expanded(item) for item in new]
        earlier: list[Any] = []
        if body.get("previous_response_id"):
            if body["previous_response_id"] not in self.stored:
                raise ProviderError(400, _openai_error(
                    f"Previous response with id '{body['previous_response_id']}' not found.", "previous_response_not_found"))
            earlier = self.stored[body["previous_response_id"]]
        items = [*earlier, *new]
        prefix = []
        for schema in body.get("tools", []):
            if not schema.get("defer_loading"):
                prefix.append((_key(schema), tokens(json.dumps(schema, sort_keys=True))))
        if body.get("instructions"):
            prefix.append((_key(body["instructions"]), tokens(body["instructions"])))
        output = []
        total = sum(t for _, t in prefix) + sum(map(_item_tokens, items))
        compaction = next((c for c in body.get("context_management") or [] if c.get("type") == "compaction"), None)
        if compaction is not None and total >= int(compaction["compact_threshold"]):
            summary = _summary([{"role": i.get("role", "tool"), "content": _item_text(i)} for i in items
                                if isinstance(i, dict) and i.get("type", "message") in ("message", "compaction")])
            self._bill("summary", prefix, items, tokens(summary))
            # Opaque to the client: encrypted_content; the emulation keeps the summary's text to count it.
            item = {"type": "compaction", "id": self.next_id("cmp"),
                    "encrypted_content": "gAAAA" + hashlib.sha256(summary.encode()).hexdigest(),
                    "summary_text": summary}
            self.compactions[item["encrypted_content"]] = summary
            output.append({k: v for k, v in item.items() if k != "summary_text"})
            items = [item, new[-1]]
        read = sum(t for _, t in prefix) + sum(map(_item_tokens, items))
        if read > self.context_window:
            if body.get("truncation") != "auto":
                raise ProviderError(400, _openai_error(
                    f"Your input exceeds the context window of this model ({read} > {self.context_window} tokens).",
                    "context_length_exceeded"))
            while read > self.context_window and len(items) > 1:
                items = items[1:]
                read = sum(t for _, t in prefix) + sum(map(_item_tokens, items))
        cached = self._cached(prefix, items)
        reply = self._reply(body, items)
        out = sum(_item_tokens(i) - MESSAGE_OVERHEAD for i in reply)
        self._bill("turn", prefix, items, out)
        output += reply
        response_id = self.next_id("resp")
        if body.get("store", True):
            self.stored[response_id] = [*items, *reply]
        return {"id": response_id, "object": "response", "created_at": 0, "status": "completed",
                "model": body["model"], "output": output, "parallel_tool_calls": True, "tool_choice": "auto",
                "tools": [], "previous_response_id": body.get("previous_response_id"),
                "usage": {"input_tokens": read, "input_tokens_details": {"cached_tokens": cached},
                          "output_tokens": out, "output_tokens_details": {"reasoning_tokens": 0},
                          "total_tokens": read + out}}

    def _cached(self, prefix: list[tuple[str, int]], items: list[Any]) -> int:
        parts = [*prefix, *((_key(i), _item_tokens(i)) for i in items)]
        best = 0
        for earlier in self.passes:
            n = 0
            for (key, size), old in zip(parts, earlier.keys):
                if key != old:
                    break
                n += size
            best = max(best, n)
        return best if best >= self.cache_minimum else 0

    def _bill(self, kind: str, prefix: list[tuple[str, int]], items: list[Any], out: int) -> None:
        parts = [*prefix, *((_key(i), _item_tokens(i)) for i in items)]
        self.passes.append(Pass(kind, tuple(k for k, _ in parts), tuple(t for _, t in parts), out))

    def _reply(self, body: dict[str, Any], items: list[Any]) -> list[dict[str, Any]]:
        last = items[-1]
        result = _item_text(last) if isinstance(last, dict) and last.get("type") == "function_call_output" else None
        user = next((_item_text(i) for i in reversed(items) if isinstance(i, dict) and i.get("role") == "user"), "")
        names = [t["name"] for t in body.get("tools", []) if t.get("type") == "function" and not t.get("defer_loading")]
        kind, value = _reply_rule(user, result, names)
        if kind == "tool":
            schema = next(t for t in body["tools"] if t.get("name") == value)
            argument = (schema["parameters"].get("required") or list(schema["parameters"]["properties"]))[0]
            call = self.next_id("call")
            return [{"type": "function_call", "id": "fc_" + call, "call_id": call, "name": value,
                     "arguments": json.dumps({argument: _argument(user)}), "status": "completed"}]
        return [{"type": "message", "id": self.next_id("msg"), "role": "assistant", "status": "completed",
                 "content": [{"type": "output_text", "text": value, "annotations": []}]}]


# --------------------------------------------------------------------------------------- wiring


def offline_anthropic(chat: Any, transport: RecordingTransport) -> Any:
    """Point a ``ChatAnthropic`` at ``transport`` (its requests are recorded and answered offline); returns it.

    ``ChatAnthropic`` takes no ``http_client`` parameter, so this sets the
    Anthropic SDK client it builds on first use to one with the recording
    transport; everything else (the payload, the beta headers, parsing the
    response) is the real package's.
    """
    import anthropic

    params = dict(chat._client_params)
    params.pop("base_url", None)
    client = anthropic.Anthropic(**params, base_url="https://api.anthropic.com",
                                 http_client=httpx.Client(transport=transport))
    chat.__dict__["_client"] = client
    return chat


def openai_http_client(transport: RecordingTransport) -> httpx.Client:
    """An httpx client for ``ChatOpenAI(http_client=...)`` whose requests go to ``transport``."""
    return httpx.Client(transport=transport, base_url="https://api.openai.com/v1")


def last_body(transport: RecordingTransport, keys: Callable[[str], bool] = lambda key: True) -> dict[str, Any]:
    """The JSON body of the last recorded request, with only the keys ``keys`` accepts."""
    if not transport.requests:
        raise ValueError("transport: no request recorded yet; invoke the model first")
    return {k: v for k, v in transport.requests[-1].body.items() if keys(k)}
