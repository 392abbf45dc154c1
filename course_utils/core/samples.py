"""The course's sample conversations, stored as JSON data in the package.

Each file in ``course_utils/data/`` holds::

    {"title": "...", "description": "...", "language": "fa",          (optional, default "en")
     "facts": [{"fact": "name", "value": "Sara", "id": "lc-002"}],    (optional)
     "messages": [{"role": "human", "content": "hi! I'm bob", "id": "bob-01"}, ...]}

A message has ``role`` ("system", "human", "ai" or "tool") and ``content``
(a string, or a list of content blocks), and where needed ``id``, ``name``,
``tool_calls`` (AI messages only: ``[{"name", "args", "id"}]``) and
``tool_call_id`` (tool messages only: the id of an earlier AI tool call).
``facts`` lists facts stated in the conversation and the id of the message
that states each one (lesson 05 checks what trimming forgets).

Loading checks the format and turns the entries into real langchain_core
messages; a malformed file raises ValueError naming the file and the entry.

>>> [m.type for m in load_conversation("dialogue_en")[:3]]
['system', 'human', 'ai']
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

#: The message class for each role a sample file may use.
ROLES = {"system": SystemMessage, "human": HumanMessage, "ai": AIMessage, "tool": ToolMessage}
MESSAGE_KEYS = {"role", "content", "id", "name", "tool_calls", "tool_call_id"}
TOOL_CALL_KEYS = {"name", "args", "id", "type"}


@dataclass(frozen=True)
class Conversation:
    """A named sample conversation and what it is for."""

    name: str
    title: str
    description: str
    messages: list[BaseMessage]
    facts: tuple[dict, ...] = field(default=())  #: {"fact", "value", "id"} for each fact stated
    #: BCP 47 tag of the language the messages are in ("en", "fa", "zh"), for ``lang`` attributes
    language: str = "en"

    def index_of(self, message_id: str) -> int:
        """Position of the message with this id (for "is fact X still in what was sent?")."""
        for i, message in enumerate(self.messages):
            if message.id == message_id:
                return i
        raise ValueError(f"message_id {message_id!r} is not in the {self.name!r} conversation")


def _data_dir():
    return resources.files("course_utils").joinpath("data")


#: Data files in ``course_utils/data/`` that are not conversations (``models.json``: see ``models.py``).
NOT_CONVERSATIONS = frozenset({"models"})


def list_conversations() -> list[str]:
    """Names of the sample conversations shipped with the course.

    >>> "agent_tools" in list_conversations()
    True
    """
    names = (f.name[: -len(".json")] for f in _data_dir().iterdir() if f.name.endswith(".json"))
    return sorted(name for name in names if name not in NOT_CONVERSATIONS)


def load_sample(name: str) -> Conversation:
    """Load one sample conversation with its title, description and facts."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}: {name!r:.80}")
    names = list_conversations()
    if name not in names:
        raise ValueError(f"name must be one of {names}, got {name!r}")
    where = f"{name}.json"
    try:
        raw = json.loads(_data_dir().joinpath(where).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where} is not valid JSON: {exc}") from None
    return conversation_from_dict(raw, name=name, where=where)


def load_conversation(name: str) -> list[BaseMessage]:
    """The messages of a sample conversation (fresh objects on every call).

    >>> len(load_conversation("dialogue_fa")) == len(load_conversation("dialogue_zh"))
    True
    """
    return load_sample(name).messages


# --- reading the format -------------------------------------------------------


def conversation_from_dict(raw: Any, name: str = "sample", where: str = "conversation") -> Conversation:
    """Check a decoded sample file and build its messages (``where`` names it in errors)."""
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: the top level must be an object, got {type(raw).__name__}")
    for key in ("title", "description"):
        if not isinstance(raw.get(key), str):
            raise ValueError(f"{where}: {key!r} must be a string, got {raw.get(key)!r:.80}")
    entries = raw.get("messages")
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{where}: 'messages' must be a non-empty list")
    unknown = set(raw) - {"title", "description", "messages", "facts", "language"}
    if unknown:
        raise ValueError(f"{where}: unknown top-level keys {sorted(unknown)}")

    messages: list[BaseMessage] = []
    ids: set[str] = set()
    open_calls: set[str] = set()  # tool call ids made so far
    for i, entry in enumerate(entries):
        message = _message_from_entry(entry, f"{where}: messages[{i}]", open_calls)
        if message.id is not None:
            if message.id in ids:
                raise ValueError(f"{where}: messages[{i}] repeats id {message.id!r}")
            ids.add(message.id)
        messages.append(message)

    facts = raw.get("facts", [])
    if not isinstance(facts, list):
        raise ValueError(f"{where}: 'facts' must be a list")
    for i, fact in enumerate(facts):
        if not isinstance(fact, dict) or set(fact) != {"fact", "value", "id"}:
            raise ValueError(f"{where}: facts[{i}] must have exactly 'fact', 'value' and 'id', got {fact!r:.80}")
        if fact["id"] not in ids:
            raise ValueError(f"{where}: facts[{i}] names message id {fact['id']!r}, which is not in the messages")
    language = raw.get("language", "en")
    if not isinstance(language, str) or not re.fullmatch(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})*", language):
        raise ValueError(f"{where}: 'language' must be a language tag such as 'en', 'fa' or 'zh', got {language!r:.80}")
    return Conversation(name, raw["title"], raw["description"], messages, tuple(dict(f) for f in facts), language)


def _message_from_entry(entry: Any, where: str, open_calls: set[str]) -> BaseMessage:
    if not isinstance(entry, dict):
        raise ValueError(f"{where} must be an object, got {type(entry).__name__}")
    unknown = set(entry) - MESSAGE_KEYS
    if unknown:
        raise ValueError(f"{where} has unknown keys {sorted(unknown)}; allowed: {sorted(MESSAGE_KEYS)}")
    role = entry.get("role")
    if role not in ROLES:
        raise ValueError(f"{where}.role must be one of {list(ROLES)}, got {role!r}")
    content = entry.get("content")
    if not isinstance(content, (str, list)):
        raise ValueError(f"{where}.content must be a string or a list of blocks, got {content!r:.80}")
    kwargs: dict[str, Any] = {"content": content}
    for key in ("id", "name"):
        if key in entry:
            if not isinstance(entry[key], str) or not entry[key]:
                raise ValueError(f"{where}.{key} must be a non-empty string, got {entry[key]!r}")
            kwargs[key] = entry[key]

    if "tool_calls" in entry:
        if role != "ai":
            raise ValueError(f"{where}: only 'ai' messages may have tool_calls, this one is {role!r}")
        kwargs["tool_calls"] = [_tool_call(call, f"{where}.tool_calls[{j}]") for j, call in enumerate(entry["tool_calls"])]
        open_calls.update(call["id"] for call in kwargs["tool_calls"])
    if role == "tool":
        call_id = entry.get("tool_call_id")
        if call_id not in open_calls:
            raise ValueError(f"{where}.tool_call_id {call_id!r} does not answer any earlier AI tool call")
        kwargs["tool_call_id"] = call_id
    elif "tool_call_id" in entry:
        raise ValueError(f"{where}: only 'tool' messages may have a tool_call_id, this one is {role!r}")
    return ROLES[role](**kwargs)


def _tool_call(call: Any, where: str) -> dict:
    if not isinstance(call, dict) or not {"name", "args", "id"} <= set(call) or set(call) - TOOL_CALL_KEYS:
        raise ValueError(f"{where} must be {{'name', 'args', 'id'}}, got {call!r:.80}")
    if not isinstance(call["name"], str) or not isinstance(call["args"], dict) or not isinstance(call["id"], str):
        raise ValueError(f"{where}: name and id must be strings and args an object, got {call!r:.80}")
    return {"name": call["name"], "args": call["args"], "id": call["id"], "type": "tool_call"}
