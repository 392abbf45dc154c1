"""Which message sequences a chat API accepts: a tool result needs its call.

Chat APIs accept a ``ToolMessage`` only right after the assistant message
that requested it (langchain issue #33245). Trimming, a summarising graph's
"keep the last few", and the offline model's own check all need that rule,
so it lives here, apart from any one lesson:

- :func:`orphaned_tool_messages` finds tool results kept without the
  AIMessage that requested them;
- :func:`valid_tail` keeps the last few messages without cutting a tool
  result from its call (what a summarising graph keeps after a summary);
- :func:`safe_trim_kwargs` are the ``trim_messages`` arguments that avoid
  orphans (the how-to's recommendation for a chatbot's history).

This module computes only; it depends on ``langchain_core`` and the
argument checks, never on a lesson module or a presentation module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from course_utils.core.args import check_int
from course_utils.window.tokens import check_messages

__all__ = ["orphaned_tool_messages", "safe_trim_kwargs", "valid_tail"]


def orphaned_tool_messages(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """ToolMessages that do not answer a tool call of the AIMessage just before them.

    Chat APIs accept a tool result only right after the assistant message that
    requested it (other results of the same turn may sit in between); a
    trimmed list that starts with a ToolMessage, or has one whose AIMessage
    was cut, is refused (langchain issue #33245). An empty answer means every
    tool result in ``messages`` is in a valid place.

    >>> from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    >>> call = AIMessage("", tool_calls=[{"name": "weather", "args": {}, "id": "c1"}])
    >>> answer = ToolMessage("sunny", tool_call_id="c1", id="t1")
    >>> orphaned_tool_messages([HumanMessage("hi"), call, answer])
    []
    >>> [m.id for m in orphaned_tool_messages([answer, AIMessage("It is sunny.")])]
    ['t1']
    """
    orphans, open_calls = [], set()
    for message in check_messages(messages):
        if isinstance(message, ToolMessage):
            if message.tool_call_id not in open_calls:
                orphans.append(message)
        elif isinstance(message, AIMessage):
            open_calls = {call["id"] for call in message.tool_calls}
        else:
            open_calls = set()
    return orphans


def valid_tail(messages: Sequence[BaseMessage], keep_last: int) -> list[BaseMessage]:
    """The last ``keep_last`` messages, with the cut moved earlier until the tail is valid to send.

    A plain slice ``messages[-keep_last:]`` can start with a ToolMessage whose
    AIMessage (the tool call) was cut, which chat APIs refuse. So the cut moves
    EARLIER (more is kept, never less) to the nearest HumanMessage at or
    before it: a tail that starts on a human turn has no cut-off tool result.

    When no HumanMessage lies at or before the cut (an agent run with no human
    turn left), the cut moves back only as far as needed: to the nearest
    message from which the tail has no tool result cut off from its call,
    that is, no orphan (see :func:`orphaned_tool_messages`) that
    ``messages`` itself did not already have. That keeps as few extra
    messages as possible; it never removes orphans already in ``messages``.

    Returns a new list (``keep_last=0`` gives ``[]``); the input is not changed.

    >>> from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    >>> call = AIMessage("", tool_calls=[{"name": "weather", "args": {}, "id": "c1"}], id="call")
    >>> msgs = [HumanMessage("hi", id="h1"), AIMessage("hello", id="a1"),
    ...         HumanMessage("weather?", id="h2"), call,
    ...         ToolMessage("sunny", tool_call_id="c1", id="tool"), AIMessage("Sunny.", id="a2")]
    >>> [m.id for m in msgs[-2:]]  # a plain slice orphans the tool result
    ['tool', 'a2']
    >>> [m.id for m in valid_tail(msgs, 2)]
    ['h2', 'call', 'tool', 'a2']
    >>> [m.id for m in valid_tail(msgs, 4)]
    ['h2', 'call', 'tool', 'a2']
    >>> [m.id for m in valid_tail(msgs[3:], 2)]  # no human turn: back to the call only
    ['call', 'tool', 'a2']
    """
    messages = check_messages(messages)
    keep_last = check_int(keep_last, "keep_last")
    if keep_last == 0 or not messages:
        return []
    cut = max(len(messages) - keep_last, 0)
    for start in range(cut, -1, -1):
        if isinstance(messages[start], HumanMessage):
            return messages[start:]
    already = {id(m) for m in orphaned_tool_messages(messages)}
    for start in range(cut, -1, -1):
        if all(id(m) in already for m in orphaned_tool_messages(messages[start:])):
            return messages[start:]
    return messages  # not reached: the whole list adds no orphan


def safe_trim_kwargs(max_tokens: int, token_counter: Any = "approximate") -> dict[str, Any]:
    """The ``trim_messages`` arguments the how-to recommends for a chatbot's history.

    - ``strategy="last"``: keep the newest messages, where the current question is;
    - ``start_on="human"``: the kept history starts on a human turn, so it
      never starts with an AI reply to a cut question or a tool result whose
      call was cut (which chat APIs refuse);
    - ``include_system=True``: the system message (the bot's instructions)
      is always kept, even when the budget is tight.

    >>> safe_trim_kwargs(100)
    {'max_tokens': 100, 'token_counter': 'approximate', 'strategy': 'last', 'start_on': 'human', 'include_system': True}
    """
    return {
        "max_tokens": check_int(max_tokens, "max_tokens"),
        "token_counter": token_counter,
        "strategy": "last",
        "start_on": "human",
        "include_system": True,
    }
