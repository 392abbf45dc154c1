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

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from course_utils.core.args import check_int
from course_utils.core.samples import Conversation, load_sample  # noqa: F401  (load_sample: for the example)
from course_utils.window.costs import Call, call_record, pair_overhead
from course_utils.window.tokens import exact_counter

#: How many earlier messages the store variant still sends (the last two exchanges).
RECENT_MESSAGES = 4


@dataclass(frozen=True)
class MemoryCosts:
    """Every model call each way, as :class:`~course_utils.window.costs.Call` records a bill prices.

    ``history`` is one call per turn; ``store`` one per turn plus, after each
    turn that stated a fact, the extra call that follows the ``save_memory``
    tool result. The store's calls carry the memory tools' schemas
    (``schema_tokens``) as their first part, as providers send them.
    """

    history: list[Call]
    store: list[Call]
    saves: list[int]  #: the indices in ``store`` of the extra calls the saves cost
    facts: list[str]
    schema_tokens: int = 0

    @property
    def turns(self) -> int:
        return len(self.history)

    @property
    def history_calls(self) -> list[int]:
        """Input tokens of each call with the memory in the history."""
        return [call.input_tokens for call in self.history]

    @property
    def store_calls(self) -> list[int]:
        """Input tokens of each turn's call with the memory in the store (the saves' extra calls left out)."""
        return [call.input_tokens for i, call in enumerate(self.store) if i not in self.saves]

    @property
    def store_saves(self) -> list[int]:
        """Input tokens of the extra calls the saves cost."""
        return [self.store[i].input_tokens for i in self.saves]

    @property
    def history_total(self) -> int:
        return sum(self.history_calls)

    @property
    def store_total(self) -> int:
        return sum(call.input_tokens for call in self.store)

    @property
    def calls(self) -> tuple[int, int]:
        """(model calls with memory in the history, with memory in the store)."""
        return len(self.history), len(self.store)


def memory_note(facts: list[str]) -> SystemMessage:
    """The saved facts as they are sent: one short system message."""
    return SystemMessage("What you remember about the user:\n" + "\n".join(f"- {fact}" for fact in facts))


def fact_sentence(fact: dict) -> str:
    """A conversation's fact record as the memory text saved for it: "The user's city is Valencia." """
    return f"The user's {fact['fact']} is {fact['value']}."


def compare_memory_costs(conversation: Conversation, recent_messages: int = RECENT_MESSAGES, *,
                         schema_tokens: int = 0) -> MemoryCosts:
    """Count every call of the conversation both ways (the conversation must list its facts).

    ``schema_tokens``: what the memory tools' schemas add to each of the
    store's calls (the history way binds no memory tools). A call's output is
    the message the model wrote: the next reply, or the ``save_memory`` call.
    """
    if not isinstance(conversation, Conversation):
        raise TypeError(f"conversation must be a samples.Conversation (load_sample(...)), got "
                        f"{type(conversation).__name__}")
    if not conversation.facts:
        raise ValueError(f"conversation {conversation.name!r} lists no facts to remember")
    if not isinstance(recent_messages, int) or isinstance(recent_messages, bool) or recent_messages < 0:
        raise ValueError(f"recent_messages must be a non-negative integer, got {recent_messages!r}")
    schema_tokens = check_int(schema_tokens, "schema_tokens")
    messages = conversation.messages
    system = [m for m in messages if isinstance(m, SystemMessage)]
    stated_at = {conversation.index_of(f["id"]): fact_sentence(f) for f in conversation.facts}
    overhead = pair_overhead(exact_counter)
    written = lambda message: exact_counter([message]) - overhead  # noqa: E731  (what a reply costs as output)
    history, store, saves, known = [], [], [], []
    for i, message in enumerate(messages):
        if not isinstance(message, HumanMessage):
            continue
        reply = next((m for m in messages[i + 1:] if isinstance(m, AIMessage)), None)
        reply_tokens = written(reply) if reply is not None else 0
        history.append(call_record("turn", messages[: i + 1], reply_tokens, exact_counter))
        earlier = [m for m in messages[:i] if not isinstance(m, SystemMessage)]
        recent = earlier[-recent_messages:] if recent_messages else []
        note = [memory_note(known)] if known else []
        sent = [*system, *note, *recent, message]
        if i not in stated_at:
            store.append(call_record("turn", sent, reply_tokens, exact_counter, extra_input=schema_tokens))
            continue
        # the model calls save_memory, then is called again with the tool result, and replies
        text = stated_at[i]
        call = AIMessage("", tool_calls=[{"name": "save_memory", "args": {"text": text}, "id": f"save-{i}"}])
        store.append(call_record("turn", sent, written(call), exact_counter, extra_input=schema_tokens))
        result = ToolMessage(f"Saved to memory: {text}", tool_call_id=f"save-{i}")
        saves.append(len(store))
        store.append(call_record("turn", [*sent, call, result], reply_tokens, exact_counter, extra_input=schema_tokens))
        known.append(text)
    return MemoryCosts(history, store, saves, known, schema_tokens)
