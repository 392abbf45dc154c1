"""How the offline model answers a request to *choose from a list* (lesson 07b).

``with_structured_output(schema)`` on a chat model binds the schema as a tool
and forces a call to it (``tool_choice="any"``). When that schema asks for a
list of options spelled out one by one, as LangChain's
``LLMToolSelectorMiddleware`` asks for the relevant tools (an array property
whose items are ``anyOf`` ``const`` values, each with a description, or an
``enum``), the offline model answers with the options the last user message
asks for, by the same rule it uses to choose tools to call
(:func:`course_utils.model.tool_calling.match_score`: a word of the option's name,
two words of its description, or a word of the same family, such as "rain"
for a *weather* option). The best-matching options come first (ties keep the
order listed); an option the request does not mention is not chosen, so a
request that words its need differently gets an empty or wrong list, as a
weak selector model would.

A real model decides for itself; the request it receives is the same.

>>> choose = {"type": "function", "function": {"name": "Pick", "description": "Select.", "parameters": {
...     "type": "object", "required": ["tools"], "properties": {"tools": {"type": "array", "items": {"anyOf": [
...         {"const": "get_weather", "description": "Weather for a city.", "type": "string"},
...         {"const": "add", "description": "Add two numbers.", "type": "string"}]}}}}}}
>>> from langchain_core.messages import HumanMessage
>>> choice_call([HumanMessage("Will it rain in Porto?")], [choose], "any")
{'name': 'Pick', 'args': {'tools': ['get_weather']}}
>>> choice_call([HumanMessage("What is 2 plus 3?")], [choose], None) is None  # not forced: not a choice request
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage

from course_utils.model.tool_calling import last_question, match_score

#: The ``tool_choice`` values that force a call, as ``with_structured_output`` does.
FORCING = ("any", "required")


def options_of(schema: dict) -> list[tuple[str, str]] | None:
    """The (option, description) pairs of a list-of-choices property, or None if it is not one.

    An array whose items are ``anyOf``/``oneOf`` of ``const`` strings, or a string ``enum``.
    """
    if not isinstance(schema, dict) or schema.get("type") != "array":
        return None
    items = schema.get("items") or {}
    if isinstance(items.get("enum"), list) and all(isinstance(v, str) for v in items["enum"]):
        return [(value, "") for value in items["enum"]]
    choices = items.get("anyOf") or items.get("oneOf")
    if not isinstance(choices, list) or not choices:
        return None
    if not all(isinstance(c, dict) and isinstance(c.get("const"), str) for c in choices):
        return None
    return [(c["const"], c.get("description") or "") for c in choices]


def choice_field(tool: dict) -> tuple[str, list[tuple[str, str]]] | None:
    """(property name, options) when a bound tool asks for one list of choices, else None."""
    parameters = (tool.get("function") or {}).get("parameters") or {}
    properties = parameters.get("properties") or {}
    fields = [(name, options_of(schema)) for name, schema in properties.items()]
    fields = [(name, options) for name, options in fields if options]
    return fields[0] if len(fields) == 1 else None


def choose(text: str, options: Sequence[tuple[str, str]]) -> list[str]:
    """The options ``text`` asks for, best match first (ties in the order listed).

    >>> choose("Is it sunny in Porto?", [("add", "Add numbers."), ("get_weather", "Weather for a city.")])
    ['get_weather']
    """
    scored = []
    for order, (name, description) in enumerate(options):
        score = match_score(text, {"function": {"name": name, "description": description}})
        if score:
            scored.append((-score, order, name))
    return [name for _, _, name in sorted(scored)]


def choice_call(messages: Sequence[BaseMessage], tools: Sequence[dict], tool_choice: Any) -> dict[str, Any] | None:
    """The forced call answering a list-of-choices request, or None when this is not one.

    It is one when exactly one tool is bound, the call is forced (``tool_choice``
    "any", "required" or that tool's name) and the tool's schema has exactly one
    list-of-choices property. The options chosen come from the last user message.
    """
    if len(tools) != 1 or not isinstance(tools[0], dict):
        return None
    name = (tools[0].get("function") or {}).get("name")
    if tool_choice not in (*FORCING, name):
        return None
    field = choice_field(tools[0])
    if field is None:
        return None
    prop, options = field
    return {"name": name, "args": {prop: choose(last_question(messages), options)}}
