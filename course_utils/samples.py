"""The course's sample conversations, stored as JSON data in the package.

Each file in ``course_utils/data/`` holds ``{"title", "description",
"messages"}``; a message is a dict with ``role`` ("system", "human", "ai",
"tool"), ``content`` and, where needed, ``id``, ``name``, ``tool_calls`` and
``tool_call_id``. Loading turns them into real langchain_core messages.

>>> [m.type for m in load_conversation("bob")[:2]]
['human', 'ai']
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

from langchain_core.messages import BaseMessage
from langchain_core.messages.utils import convert_to_messages


@dataclass(frozen=True)
class Conversation:
    """A named sample conversation and what it is for."""

    name: str
    title: str
    description: str
    messages: list[BaseMessage]


def list_conversations() -> list[str]:
    """Names of the sample conversations shipped with the course."""
    files = resources.files("course_utils").joinpath("data").iterdir()
    return sorted(f.name[: -len(".json")] for f in files if f.name.endswith(".json"))


def load_sample(name: str) -> Conversation:
    """Load one sample conversation with its title and description."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}: {name!r}")
    names = list_conversations()
    if name not in names:
        raise ValueError(f"name must be one of {names}, got {name!r}")
    raw = json.loads(resources.files("course_utils").joinpath("data", f"{name}.json").read_text(encoding="utf-8"))
    messages = convert_to_messages([_to_message_dict(m) for m in raw["messages"]])
    return Conversation(name, raw["title"], raw["description"], messages)


def load_conversation(name: str) -> list[BaseMessage]:
    """The messages of a sample conversation (a fresh list each call)."""
    return load_sample(name).messages


def _to_message_dict(entry: dict) -> dict:
    message = dict(entry)
    message["role"] = message.pop("role")
    return message
