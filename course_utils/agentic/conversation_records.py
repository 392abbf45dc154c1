"""Decoded message records as LangChain messages, checked: the base of the loader (see :mod:`course_utils.agentic.conversations`).

OpenAI-style records (read by langchain_core's ``convert_to_messages``),
Anthropic-style content blocks, LangChain's own dumps; the error every
reader raises (:class:`ConversationError`: where, what and the fix, in the
course's language); tool calls paired with their results, and the calls of
a paused thread (:func:`pending_calls`).

>>> [m.type for m in messages_from_records([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])]
['human', 'ai']
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.messages.utils import convert_to_messages, messages_from_dict

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


def library_words(text: str) -> str:
    """A library's own words (json's, SQLite's, psycopg's, langchain_core's) as it wrote them.

    In a right-to-left language they come inside a left-to-right isolate
    (U+2066 ... U+2069), so the English reads in its own order within the
    Persian sentence; unchanged in English.

    >>> library_words("Expecting ',' delimiter")
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
            source, _("langchain_core could not read it: {error}").format(error=library_words(" ".join(str(exc).split())[:300])),
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
                source, _("not a LangChain message dump: {error}").format(error=library_words(" ".join(str(exc).split())[:300])),
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


__all__ = ["FORMATS", "POSTGRES_SCHEMES", "RECORD_FORMATS", "ROLES", "SQLITE_HEADER", "ConversationError",
           "LoadedConversation", "check_tool_pairs", "detect_format", "messages_from_records", "messages_to_anthropic",
           "library_words", "pending_calls"]
