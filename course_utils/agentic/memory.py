"""Long-term memory with the LangGraph Store: facts about a user that outlive a thread (lesson 07).

A checkpointer keeps one *thread*'s messages; a ``Store`` keeps items under a
*namespace* that any thread can read. Here the namespace is
``("memories", user_id)``: each user's memories, shared by all their threads.
The agent writes and reads them itself, with two tools it calls like any
other (:func:`memory_tools`); the tools get the store and the user from
LangChain's ``ToolRuntime`` (``create_agent(..., store=store,
context_schema=UserContext)`` and ``agent.invoke(..., context=UserContext("sara"))``),
so the same agent serves every user and the model never sees the user id.

Lesson 07 writes its own memory tools and agent in its cells (saved to
``course_utils.lessons.lesson07``: ``UserContext``, ``save_memory``,
``recall_memory``, ``memory_agent``); it uses :func:`fact_key`, :func:`recall`
and :func:`memory_candidates` from here. :func:`memory_tools`,
:func:`build_memory_agent` and :func:`ask` are their twins, kept because the
exercise 07 check and the tests import them (``agentic`` sits below
``lessons``, so it cannot import the saved copies).

Searching. Without an embedding index, ``store.search(namespace, query=...)``
in the installed langgraph (1.2.22, SqliteStore and InMemoryStore) **ignores
the query**: it returns the namespace's items, up to ``limit`` (10 by
default), whatever was asked. :func:`lexical_search` ranks them by shared words: the honest
offline search. A real semantic search plugs an embedding model in as the
store's index, e.g. ``InMemoryStore(index={"embed": OpenAIEmbeddings(...),
"dims": 1536})`` (SqliteStore needs the ``sqlite-vec`` extension for it).

>>> from langgraph.store.memory import InMemoryStore
>>> store = InMemoryStore()
>>> save(store, "sara", "I live in Valencia.").key
'city'
>>> [item.value["text"] for item in recall(store, "sara", "Where do I live?")]
['I live in Valencia.']
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain.tools import ToolRuntime, tool
from langchain_core.messages import BaseMessage, HumanMessage, ToolMessage
from langgraph.store.base import BaseStore, Item

from course_utils.model.facts import sentences, stated_name, stated_personal_facts
from course_utils.model.tool_calling import STOPWORDS, WORD_PATTERN

#: The first label of every memory namespace: ``("memories", user_id)``.
MEMORY_LABEL = "memories"
#: How many memories a search returns at most.
RECALL_LIMIT = 5


@dataclass(frozen=True)
class UserContext:
    """Who the agent is talking to: passed as ``context=`` on every invoke, read by the memory tools."""

    user_id: str

    def __post_init__(self):
        memory_namespace(self.user_id)  # validates


def memory_namespace(user_id: str) -> tuple[str, str]:
    """The namespace of a user's memories.

    >>> memory_namespace("sara")
    ('memories', 'sara')
    """
    if not isinstance(user_id, str):
        raise TypeError(f"user_id must be a string, got {type(user_id).__name__} {user_id!r}")
    if not user_id.strip() or "." in user_id:
        raise ValueError(f"user_id must be a non-empty string without '.', got {user_id!r}")
    return (MEMORY_LABEL, user_id)


def fact_key(text: str) -> str | None:
    """The kind of fact a memory states ("city", "name", "favourite colour" ...), or None.

    A memory saved under its fact's kind replaces the older one of the same
    kind (a *profile*); one with no kind is a new note (a *collection*).

    >>> fact_key("I live in Lisbon now."), fact_key("Send the invoice by email.")
    ('city', None)
    """
    for sentence in sentences(text):
        if stated_name(sentence):
            return "name"
        found = stated_personal_facts(sentence)
        if found.get("attributes"):
            return next(iter(found["attributes"]))
        found.pop("attributes", None)
        if found:
            return next(iter(found))
    return None


@dataclass(frozen=True)
class Saved:
    """What :func:`save` wrote: the key, the text, and whether it replaced an older memory."""

    key: str
    text: str
    replaced: str | None = None


def save(store: BaseStore, user_id: str, text: str, *, source: str = "user", profile: bool = True) -> Saved:
    """Save a memory. With ``profile=True`` a fact of a known kind replaces the older one of that kind.

    ``source`` records where the text came from ("user", or "tool:NAME"):
    provenance, so a memory written from a tool result can be told apart.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"text must be a non-empty string, got {text!r}")
    if not isinstance(source, str) or not source:
        raise ValueError(f"source must be a non-empty string such as 'user' or 'tool:fetch_page', got {source!r}")
    namespace = memory_namespace(user_id)
    key = fact_key(text) if profile else None
    old = store.get(namespace, key) if key else None
    if key is None:
        key = f"note-{len(store.search(namespace, limit=10_000)) + 1}"
    store.put(namespace, key, {"text": text.strip(), "source": source})
    return Saved(key, text.strip(), old.value["text"] if old else None)


def content_words(text: str) -> set[str]:
    """Lower-case words that carry meaning (stop words removed)."""
    return {w.lower() for w in WORD_PATTERN.findall(text.replace("\u2019", "'"))} - STOPWORDS


def lexical_search(items: Sequence[Item], query: str, limit: int = RECALL_LIMIT) -> list[Item]:
    """The items sharing the most content words with ``query`` (ties keep the store's order); none shared: all.

    This is what "search" is offline: word overlap, not meaning. "Where do I
    live?" finds "I live in Valencia." but not "My home town is Valencia."
    """
    if not isinstance(query, str):
        raise TypeError(f"query must be a string, got {type(query).__name__}")
    if not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit must be a positive integer, got {limit!r}")
    wanted = content_words(query)
    scored = [(len(wanted & content_words(item.value.get("text", ""))), i, item) for i, item in enumerate(items)]
    if any(score for score, _, _ in scored):
        scored = [s for s in scored if s[0]]
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [item for _, _, item in scored[:limit]]


def recall(store: BaseStore, user_id: str, query: str, limit: int = RECALL_LIMIT) -> list[Item]:
    """A user's memories that best match ``query`` (:func:`lexical_search` over the namespace, oldest first).

    Nothing here knows which of two contradicting memories is current: both
    come back, the older first.
    """
    items = sorted(store.search(memory_namespace(user_id), limit=10_000), key=lambda item: item.created_at)
    return lexical_search(items, query, limit)


def memory_tools(*, profile: bool = True) -> list:
    """The two tools an agent remembers with: ``save_memory(text)`` and ``recall_memory(query)``.

    They read the store and the user from the ``ToolRuntime`` LangChain
    injects (hidden from the model's schema). ``profile=False`` makes every
    save a new note, never replacing an older fact.
    """
    @tool
    def save_memory(text: str, runtime: ToolRuntime[UserContext]) -> str:
        """Save a fact about the user to long-term memory, for later conversations."""
        saved = save(runtime.store, _user(runtime), text, profile=profile)
        return f"Saved to memory ({saved.key}): {saved.text}" + (f" (replaces: {saved.replaced})" if saved.replaced else "")

    @tool
    def recall_memory(query: str, runtime: ToolRuntime[UserContext]) -> str:
        """Search long-term memory for saved facts about the user."""
        found = recall(runtime.store, _user(runtime), query)
        return "\n".join(item.value["text"] for item in found) or "No memories saved yet."

    return [save_memory, recall_memory]


def _user(runtime) -> str:
    context = getattr(runtime, "context", None)
    user_id = context.get("user_id") if isinstance(context, dict) else getattr(context, "user_id", None)
    if user_id is None:
        raise ValueError("the memory tools need the user: invoke the agent with context=UserContext(user_id)")
    return user_id


def build_memory_agent(store: BaseStore, *, model=None, checkpointer=None, tools: Sequence = (), profile: bool = True,
                       system_prompt: str = "You are a helpful assistant. Save facts about the user with "
                                            "save_memory; search them with recall_memory."):
    """``create_agent`` with the memory tools, the store and :class:`UserContext`.

    The model is the course's (offline unless ``COURSE_CHAT_MODEL`` names a real one).
    """
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver

    from course_utils.model.chat import get_chat_model

    if not isinstance(store, BaseStore):
        raise TypeError(f"store must be a LangGraph BaseStore (InMemoryStore, SqliteStore, PostgresStore), "
                        f"got {type(store).__name__}")
    return create_agent(model or get_chat_model(), tools=[*memory_tools(profile=profile), *tools],
                        system_prompt=system_prompt, store=store, context_schema=UserContext,
                        checkpointer=checkpointer if checkpointer is not None else InMemorySaver())


@dataclass(frozen=True)
class Turn:
    """One request to a memory agent: the thread, the tools it called (name and args), and the answer."""

    thread_id: str
    request: str
    calls: list[tuple[str, dict]]
    answer: str


def ask(agent, text: str, *, thread_id: str, user_id: str) -> Turn:
    """Send one request on a thread for a user; return what was called and answered."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"text must be a non-empty string, got {text!r}")
    config = {"configurable": {"thread_id": thread_id}}
    before = len(agent.get_state(config).values.get("messages", [])) if agent.checkpointer else 0
    result = agent.invoke({"messages": [HumanMessage(text)]}, config, context=UserContext(user_id))
    new = result["messages"][before + 1:]
    calls = [(c["name"], c["args"]) for m in new for c in getattr(m, "tool_calls", []) or []]
    return Turn(thread_id, text, calls, new[-1].text if new else "")


def open_sqlite_store(path: str | Path):
    """A ``SqliteStore`` on a file (tables created), shareable across the agent's tool threads.

    Close it with ``store.conn.close()``.
    """
    from langgraph.store.sqlite import SqliteStore

    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or Path, got {type(path).__name__}")
    conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
    store = SqliteStore(conn)
    store.setup()
    return store


@dataclass(frozen=True)
class StoredRow:
    """One row of the store's ``store`` table, as sqlite3 reads it from the file."""

    prefix: str
    key: str
    value: dict[str, Any]


def stored_rows(path: str | Path) -> list[StoredRow]:
    """The rows of a SqliteStore file, read with plain sqlite3 (what is really on disk), by namespace and key."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"path must be an existing SQLite file, got {str(path)!r}")
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT prefix, key, value FROM store ORDER BY prefix, key").fetchall()
    conn.close()
    return [StoredRow(prefix, key, json.loads(value)) for prefix, key, value in rows]


# --- a memory written from what the agent read: poisoning -------------------------------------


def memory_candidates(messages: Sequence[BaseMessage], *, trusted_only: bool = True) -> list[tuple[str, str]]:
    """Sentences a background memory writer would save, with their source: ``[(text, source), ...]``.

    It reads every sentence that states a fact about the speaker. With
    ``trusted_only=False`` it also reads tool results, where "my name is ..."
    is the *page author* speaking, not the user: memory poisoning.
    """
    found = []
    for message in messages:
        if isinstance(message, HumanMessage):
            source = "user"
        elif isinstance(message, ToolMessage) and not trusted_only:
            source = f"tool:{message.name or 'tool'}"
        else:
            continue
        for sentence in sentences(message.text):
            if fact_key(sentence):
                found.append((sentence, source))
    return found
