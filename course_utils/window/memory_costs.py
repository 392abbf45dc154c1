"""What remembering costs per call: memory kept in the history against memory kept in a store (lesson 07).

Two ways to still know, at turn 40, what the user said at turn 1:

- **in the history**: every call is sent the whole conversation so far;
- **in the store**: the facts were saved (one ``save_memory`` tool call each,
  which costs one more model call) and every call is sent the system prompt,
  the saved facts as a short note, and only the last few messages.

:func:`compare_memory_costs` counts both, call by call, with the course's
exact counter (cl100k_base with OpenAI's chat framing).

>>> costs = compare_memory_costs(load_sample("spread_chat"))
>>> costs.turns, costs.history_total > costs.store_total
(40, True)
"""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from course_utils.core.i18n import _
from course_utils.core.samples import Conversation, load_sample  # noqa: F401  (load_sample: for the example)
from course_utils.window.tokens import exact_counter

#: How many earlier messages the store variant still sends (the last two exchanges).
RECENT_MESSAGES = 4


@dataclass(frozen=True)
class MemoryCosts:
    """Tokens sent per call, each way; ``store_saves`` lists the extra calls the saving tool calls cost."""

    history_calls: list[int]
    store_calls: list[int]
    store_saves: list[int]
    facts: list[str]

    @property
    def turns(self) -> int:
        return len(self.history_calls)

    @property
    def history_total(self) -> int:
        return sum(self.history_calls)

    @property
    def store_total(self) -> int:
        return sum(self.store_calls) + sum(self.store_saves)

    @property
    def calls(self) -> tuple[int, int]:
        """(model calls with memory in the history, with memory in the store)."""
        return len(self.history_calls), len(self.store_calls) + len(self.store_saves)

    @property
    def conclusion(self) -> str:
        """Both ways in three lines, in the course's language: calls, tokens sent, the largest call, the ratio.

        The last line introduces the note sent at the last turn (``facts``), which a lesson prints after it.

        >>> print(MemoryCosts([10, 30], [10, 12], [15], ["The user's name is Sara."]).conclusion)
        memory in the history: 2 calls, 40 tokens sent, last call 30 tokens
        memory in the store:   3 calls, 37 tokens sent, largest call 12 tokens
        the store sends 1.1x fewer tokens; the note it sends at turn 2:
        """
        history_calls, store_calls = self.calls
        return "\n".join([
            _("memory in the history: {calls} calls, {sent:,} tokens sent, last call {last:,} tokens").format(
                calls=history_calls, sent=self.history_total, last=self.history_calls[-1]),
            _("memory in the store:   {calls} calls, {sent:,} tokens sent, largest call {largest:,} tokens").format(
                calls=store_calls, sent=self.store_total, largest=max(self.store_calls)),
            _("the store sends {ratio:.1f}x fewer tokens; the note it sends at turn {turn}:").format(
                ratio=self.history_total / self.store_total, turn=self.turns),
        ])


def memory_note(facts: list[str]) -> SystemMessage:
    """The saved facts as they are sent: one short system message."""
    return SystemMessage("What you remember about the user:\n" + "\n".join(f"- {fact}" for fact in facts))


def fact_sentence(fact: dict) -> str:
    """A conversation's fact record as the memory text saved for it: "The user's city is Valencia." """
    return f"The user's {fact['fact']} is {fact['value']}."


def compare_memory_costs(conversation: Conversation, recent_messages: int = RECENT_MESSAGES) -> MemoryCosts:
    """Count every call of the conversation both ways (the conversation must list its facts)."""
    if not isinstance(conversation, Conversation):
        raise TypeError(f"conversation must be a samples.Conversation (load_sample(...)), got "
                        f"{type(conversation).__name__}")
    if not conversation.facts:
        raise ValueError(f"conversation {conversation.name!r} lists no facts to remember")
    if not isinstance(recent_messages, int) or isinstance(recent_messages, bool) or recent_messages < 0:
        raise ValueError(f"recent_messages must be a non-negative integer, got {recent_messages!r}")
    messages = conversation.messages
    system = [m for m in messages if isinstance(m, SystemMessage)]
    stated_at = {conversation.index_of(f["id"]): fact_sentence(f) for f in conversation.facts}
    history, store, saves, known = [], [], [], []
    for i, message in enumerate(messages):
        if not isinstance(message, HumanMessage):
            continue
        history.append(exact_counter(messages[: i + 1]))
        earlier = [m for m in messages[:i] if not isinstance(m, SystemMessage)]
        recent = earlier[-recent_messages:] if recent_messages else []
        note = [memory_note(known)] if known else []
        sent = [*system, *note, *recent, message]
        store.append(exact_counter(sent))
        if i in stated_at:  # the model calls save_memory, then is called again with the tool result
            text = stated_at[i]
            call = AIMessage("", tool_calls=[{"name": "save_memory", "args": {"text": text}, "id": f"save-{i}"}])
            saves.append(exact_counter([*sent, call, ToolMessage(f"Saved to memory: {text}", tool_call_id=f"save-{i}")]))
            known.append(text)
    return MemoryCosts(history, store, saves, known)
