"""Token counters behind one interface (lesson 01: measuring growth).

Every counter here is a function over a *list* of messages that returns an
int, which is exactly what ``trim_messages(token_counter=...)`` accepts:

- :func:`approximate_counter`: langchain_core's ``count_tokens_approximately``
  (about 4 characters a token, plus 3 a message). Fast, needs nothing.
- :class:`ExactTokenCounter`: a real BPE tokenizer that works offline, with a
  per-message cache so counting the same message twice costs one encoding:
  OpenAI's ``cl100k_base`` (GPT-4, GPT-3.5; the course's ``"exact"``),
  ``o200k_base`` (GPT-4o and later) or Meta's ``llama3`` (Llama 3.x), each
  verified against its owner's published SHA-256 before use (see ``vocab``).
- :func:`dummy_token_counter`: the reference page's counter, 3 + 4 per content
  block + 3, so a plain string message costs 10.

Pick one by name with :func:`get_token_counter` (``"approximate"``,
``"exact"``, ``"dummy"``, or an encoding: ``"cl100k_base"``, ``"o200k_base"``,
``"llama3"``), or let :func:`resolve_token_counter` accept a
name, your own function or a chat model.

>>> from langchain_core.messages import HumanMessage
>>> dummy_token_counter([HumanMessage("hello")])
10
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ChatMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.messages.utils import count_tokens_approximately

try:  # the role name count_tokens_approximately counts (private: if it moves, the fast path is off)
    from langchain_core.messages.utils import _get_message_openai_role as _openai_role
except ImportError:  # pragma: no cover
    _openai_role = None

from course_utils.core.args import check_bool, check_choice, check_text
from course_utils.window.vocab import (  # loading the tokenizers, verified; "X as X": re-exported for the course
    CL100K_SHA256 as CL100K_SHA256,
    ENCODING_NAMES,
    TokenizerStatus,
    load_encoding,
    bundled_cl100k_path as bundled_cl100k_path,
    check_encoding,
    tokenizer_status as tokenizer_status,
)

TokenCounter = Callable[[list[BaseMessage]], int]

#: Tokens the OpenAI chat format adds around every message, for a ``name``
#: field, and once to prime the reply (OpenAI's token-counting cookbook,
#: gpt-3.5-turbo / gpt-4 figures).
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
TOKENS_PER_REPLY = 3

COUNTER_NAMES = ("approximate", "exact", "dummy")


#: Which models each encoding counts for (checked 2026-11-30: tiktoken's
#: ``model.py`` for OpenAI, Meta's llama-models for Llama).
ENCODING_MODELS = {
    "cl100k_base": "GPT-4, GPT-3.5-turbo",
    "o200k_base": "GPT-4o, GPT-4.1, GPT-5, o1, o3, o4-mini",
    "llama3": "Llama 3, 3.1, 3.2, 3.3",
}

#: The role each message type has in the OpenAI chat format (the role's
#: name is part of what the model reads, so it is counted too).
OPENAI_ROLES = {
    "human": "user",
    "ai": "assistant",
    "system": "system",
    "tool": "tool",
    "function": "function",
    "HumanMessageChunk": "user",
    "AIMessageChunk": "assistant",
    "SystemMessageChunk": "system",
    "ToolMessageChunk": "tool",
}


# --- checking arguments -----------------------------------------------------


def check_messages(messages: Any, parameter: str = "messages") -> list[BaseMessage]:
    """Return ``messages`` as a list, or raise TypeError naming the parameter and the bad item.

    Every public function of the course that takes a conversation checks it here.
    """
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise TypeError(
            f"{parameter} must be a list of BaseMessage objects, got {type(messages).__name__}: {messages!r:.80}"
        )
    for i, message in enumerate(messages):
        if not isinstance(message, BaseMessage):
            raise TypeError(
                f"{parameter}[{i}] must be a BaseMessage, got {type(message).__name__}: {message!r:.80}"
            )
    return list(messages)


# --- what a tokenizer reads ---------------------------------------------------


def message_text(message: BaseMessage) -> str:
    """The text a tokenizer sees for one message: its content and any tool calls.

    String content is used as is; a list of content blocks contributes the text
    of each text block (other blocks as JSON); tool calls are added as JSON,
    as providers serialise them.

    >>> from langchain_core.messages import AIMessage
    >>> message_text(AIMessage([{"type": "text", "text": "a"}, "b"]))
    'a\\nb'
    """
    if not isinstance(message, BaseMessage):
        raise TypeError(f"message must be a BaseMessage, got {type(message).__name__}: {message!r:.80}")
    content = message.content
    if isinstance(content, str):
        parts = [content]
    else:
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            else:
                parts.append(json.dumps(block, ensure_ascii=False, sort_keys=True, default=str))
    for call in message.tool_calls if isinstance(message, AIMessage) else []:
        parts.append(json.dumps({"name": call["name"], "args": call["args"]}, ensure_ascii=False, sort_keys=True, default=str))
    return "\n".join(parts)


def openai_role(message: BaseMessage) -> str:
    """The role name a chat API would send for this message ("user", "assistant", ...)."""
    role = OPENAI_ROLES.get(message.type)
    return role if role is not None else getattr(message, "role", message.type)


# --- the three counters -----------------------------------------------------


def approximate_counter(messages: Sequence[BaseMessage]) -> int:
    """langchain_core's approximate count: about 4 characters a token plus 3 per message.

    >>> from langchain_core.messages import HumanMessage
    >>> approximate_counter([HumanMessage("hello world")])  # ceil((11 + 4 for "user") / 4) + 3
    7
    """
    return count_tokens_approximately(check_messages(messages))


def dummy_token_counter(messages: Sequence[BaseMessage]) -> int:
    """The trim_messages reference page's counter: 3 + 4 per content block + 3.

    A string content counts as one block, so every plain message costs 10 and
    an AIMessage with two text blocks costs 14. It makes the page's examples
    easy to follow by hand.

    >>> from langchain_core.messages import AIMessage
    >>> dummy_token_counter([AIMessage([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}])])
    14
    """
    count = 0
    for message in check_messages(messages):
        blocks = 1 if isinstance(message.content, str) else len(message.content)
        count += 3 + 4 * blocks + 3
    return count


def count_text_tokens(text: str, method: str = "exact") -> int:
    """Tokens in a bare string: ``"exact"`` (= ``"cl100k_base"``), ``"o200k_base"``, ``"llama3"`` or ``"approximate"``.

    ``"approximate"`` is 4 characters a token, rounded up. Without the exact
    tokenizer, an exact method falls back to the approximate count;
    :func:`tokenizer_status` says which one you get.

    >>> count_text_tokens("hello world", "approximate")
    3
    """
    text = check_text(text, "text")
    if method == "approximate":
        # About four characters a token, rounded up, as count_tokens_approximately assumes.
        return -(-len(text) // 4)
    if method == "exact" or method in ENCODING_NAMES:
        encoding, _ = load_encoding(encoding="cl100k_base" if method == "exact" else method)
        if encoding is None:
            return count_text_tokens(text, "approximate")
        # Text that looks like a special token ("<|endoftext|>") is counted as plain text.
        return len(encoding.encode_ordinary(text))
    raise ValueError(f"method must be 'exact', 'approximate' or one of {ENCODING_NAMES}, got {method!r}")


@dataclass(frozen=True)
class ChatFraming:
    """Tokens a chat format adds around messages, besides their text.

    OpenAI (cl100k_base, o200k_base), from OpenAI's token-counting cookbook:
    3 a message, +1 for a ``name``, 3 to prime the reply. Llama 3, from Meta's
    ``llama_models/llama3/chat_format.py``: ``<|start_header_id|>`` role
    ``<|end_header_id|>`` ``"\\n\\n"`` text ``<|eot_id|>`` (4 + the role), no name
    field, and ``<|begin_of_text|>`` plus the assistant header (5) for the reply;
    a tool result's role is ``ipython``.
    """

    per_message: int
    per_name: int
    per_reply: int
    tool_role: str = "tool"


OPENAI_FRAMING = ChatFraming(TOKENS_PER_MESSAGE, TOKENS_PER_NAME, TOKENS_PER_REPLY)
FRAMINGS = {"cl100k_base": OPENAI_FRAMING, "o200k_base": OPENAI_FRAMING, "llama3": ChatFraming(4, 0, 5, "ipython")}


def _message_pieces(message: BaseMessage, framing: ChatFraming = OPENAI_FRAMING) -> tuple[str, str, str, str]:
    """The strings a chat API sends for one message: role, text, name, tool call id."""
    role = openai_role(message)
    return (
        framing.tool_role if role == "tool" else role,
        message_text(message),
        message.name or "",
        message.tool_call_id if isinstance(message, ToolMessage) else "",
    )


def _cache_key(message: BaseMessage) -> tuple:
    """Everything a message's count depends on, cheap to build.

    A cache hit must cost far less than an encoding, so string content is
    used as it is (Python remembers a string's hash): a hit is a few
    attribute reads and one dict lookup. Tool calls and content blocks,
    which are lists, are turned into JSON text first.
    """
    content = message.content
    cls = message.__class__
    if content.__class__ is str and (cls is HumanMessage or cls is SystemMessage or (cls is AIMessage and not message.tool_calls)):
        return (cls, content, message.name)  # the common case: nothing but a role, a text and maybe a name
    if not isinstance(content, str):  # a list of blocks is not hashable
        content = json.dumps(content, ensure_ascii=False, sort_keys=True, default=str)
    extra = None
    if isinstance(message, AIMessage):
        if message.tool_calls:
            extra = json.dumps(
                [(c["name"], c["args"]) for c in message.tool_calls], ensure_ascii=False, sort_keys=True, default=str
            )
    elif isinstance(message, ToolMessage):
        extra = message.tool_call_id
    elif isinstance(message, ChatMessage):  # a message with a custom role
        extra = message.role
    return (message.type, content, message.name, extra)


class ExactTokenCounter:
    """Counts messages with a real BPE tokenizer, caching each message's count.

    ``encoding`` is ``"cl100k_base"`` (the default, the course's ``"exact"``),
    ``"o200k_base"`` or ``"llama3"``. A message costs what its chat format
    adds (:class:`ChatFraming`; for OpenAI's cookbook: 3 tokens of framing,
    +1 for a name), plus its role, its text (content and tool calls), its
    name and a tool message's call id; a list costs the sum plus the reply
    priming (3 for OpenAI). The counts add up message by message, which
    ``explain_trim`` relies on (``additive`` is True).

    ``trim_messages`` binary-searches over prefixes, so it counts the same
    messages many times; a replayed conversation counts its history again at
    every turn. The cache makes each distinct message cost one encoding
    (``.encodings`` says how many were really encoded). It is keyed by what
    the message says, not by the object, so an edited message is counted again.

    When the encoding cannot be loaded (see ``.status``), it counts like
    :func:`approximate_counter` instead and ``.exact`` is False.

    >>> from langchain_core.messages import HumanMessage
    >>> counter = ExactTokenCounter()
    >>> counter([HumanMessage("hello world")])  # 3 + "user" 1 + "hello world" 2 + 3 for the reply
    9
    """

    #: Counts add up per message: count(list) == sum(count_message(m)) + reply priming.
    additive = True

    def __init__(self, cache: bool = True, *, path: str | os.PathLike | None = None, encoding: str = "cl100k_base"):
        check_bool(cache, "cache")
        encoding = check_encoding(encoding)
        if path is not None and not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a str or a path, got {type(path).__name__}: {path!r:.80}")
        if path is not None and encoding != "cl100k_base":
            raise ValueError(f"path can only be given for cl100k_base, got path={path!r} for encoding={encoding!r}")
        self.cache = cache
        self.path = path
        self.encoding = encoding
        self.framing = FRAMINGS[encoding]
        self._counts: dict[tuple, int] = {}
        self._tokenizer: tuple[Any, TokenizerStatus] | None = None  # loaded on first use
        self.encodings = 0  #: how many messages were actually run through the tokenizer

    def _encoding(self) -> Any:
        if self._tokenizer is None:
            self._tokenizer = load_encoding(self.path, self.encoding)
        return self._tokenizer[0]

    @property
    def status(self) -> TokenizerStatus:
        """Whether this counter is exact, with a note to show the learner."""
        self._encoding()
        return self._tokenizer[1]

    @property
    def exact(self) -> bool:
        return self._encoding() is not None

    def _encode(self, message: BaseMessage, encoding: Any) -> int:
        """Run one message through the tokenizer (the expensive part the cache saves)."""
        self.encodings += 1
        framing = self.framing
        pieces = _message_pieces(message, framing)
        tokens = framing.per_message + sum(len(encoding.encode_ordinary(p)) for p in pieces if p)
        return tokens + framing.per_name if message.name else tokens

    def _cached(self, message: BaseMessage, encoding: Any) -> int:
        key = _cache_key(message)
        tokens = self._counts.get(key)
        if tokens is None:
            tokens = self._counts[key] = self._encode(message, encoding)
        return tokens

    def count_message(self, message: BaseMessage) -> int:
        """Tokens for one message on its own (without the reply priming, ``.reply_tokens``)."""
        if not isinstance(message, BaseMessage):
            raise TypeError(f"message must be a BaseMessage, got {type(message).__name__}: {message!r:.80}")
        encoding = self._encoding()
        if encoding is None:  # no tokenizer: the approximate count, as the status says
            return count_tokens_approximately([message])
        return self._cached(message, encoding) if self.cache else self._encode(message, encoding)

    def __call__(self, messages: Sequence[BaseMessage]) -> int:
        if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
            check_messages(messages)  # raises, naming what was given
        if not messages:
            return 0
        encoding = self._encoding()
        if encoding is None:
            return count_tokens_approximately(check_messages(messages))
        if not self.cache:
            messages = check_messages(messages)
            return sum(self._encode(message, encoding) for message in messages) + self.framing.per_reply
        # The cached path, inlined: a replay counts the same messages hundreds of times.
        counts, total = self._counts, self.framing.per_reply
        for message in messages:
            try:
                key = _cache_key(message)
            except AttributeError:  # not a message: the same TypeError as every other counter
                check_messages(messages)
                raise
            tokens = counts.get(key)
            if tokens is None:
                tokens = counts[key] = self._encode(message, encoding)
            total += tokens
        return total

    @property
    def reply_tokens(self) -> int:
        """What a non-empty list costs beyond its messages' own counts (0 when counting approximately)."""
        return self.framing.per_reply if self.exact else 0

    def clear_cache(self) -> None:
        """Forget every cached count (``.encodings`` keeps counting)."""
        self._counts.clear()

    def __repr__(self) -> str:
        return (
            f"ExactTokenCounter(encoding={self.encoding!r}, cache={self.cache}, cached={len(self._counts)}, "
            f"encodings={self.encodings})"
        )


_SHARED_EXACT = ExactTokenCounter()
#: One cached counter per encoding for the whole course ("exact" and "cl100k_base" share one).
_SHARED_COUNTERS = {"cl100k_base": _SHARED_EXACT}


def shared_counter(encoding: str) -> ExactTokenCounter:
    """The course-wide cached counter for ``encoding`` (created on first use, loaded on first count)."""
    encoding = check_encoding(encoding)
    if encoding not in _SHARED_COUNTERS:
        _SHARED_COUNTERS[encoding] = ExactTokenCounter(encoding=encoding)
    return _SHARED_COUNTERS[encoding]


def exact_counter(messages: Sequence[BaseMessage]) -> int:
    """Exact count with a cache shared by the whole course; approximate (with a note) if unavailable."""
    return _SHARED_EXACT(messages)


def get_token_counter(name: str = "approximate") -> TokenCounter:
    """Return a counter by name: ``"approximate"``, ``"exact"``, ``"dummy"``, or an encoding.

    ``"cl100k_base"`` is the same counter as ``"exact"``; ``"o200k_base"`` and
    ``"llama3"`` give the course-wide cached :class:`ExactTokenCounter` for
    that encoding (nothing is loaded until it first counts).

    >>> get_token_counter("dummy") is dummy_token_counter
    True
    """
    check_text(name, "name")
    counters = {"approximate": approximate_counter, "exact": exact_counter, "dummy": dummy_token_counter}
    name = check_choice(name, "name", COUNTER_NAMES + ENCODING_NAMES)
    if name == "cl100k_base":
        return exact_counter
    return counters[name] if name in counters else shared_counter(name)


def approximate_message_tokens(message: BaseMessage) -> int:
    """``count_tokens_approximately([message])``, without its per-call overhead for a plain message.

    For string content it adds up what langchain_core's loop adds for one
    message with the default arguments (characters of the content, of the
    tool calls' repr, of a tool call id, of the role and of the name; a token
    per 4 characters rounded up; 3 per message); anything else (content
    blocks, images) is passed to the real function. Tests check it equals
    the real function; ``explain_trim`` also checks the sum over a whole
    list against one real call before it relies on it.

    >>> from langchain_core.messages import HumanMessage
    >>> approximate_message_tokens(HumanMessage("hello world")) == count_tokens_approximately([HumanMessage("hello world")])
    True
    """
    content = message.content
    if not isinstance(content, str) or _openai_role is None:
        return count_tokens_approximately([message])
    chars = len(content) + len(_openai_role(message))
    if isinstance(message, AIMessage) and message.tool_calls:
        chars += len(repr(message.tool_calls))
    elif isinstance(message, ToolMessage):
        chars += len(message.tool_call_id)
    if message.name:
        chars += len(message.name)
    return -(-chars // 4) + 3


def additive_parts(token_counter: Any) -> tuple[Callable[[BaseMessage], int], int] | None:
    """How a counter adds up per message: (count of one message, what a non-empty list adds), or None.

    For the course's own counters (and langchain_core's approximate count),
    ``counter(messages) == sum(one(m) for m in messages) + extra`` for every
    non-empty list, and 0 for an empty one. ``explain_trim`` uses this to
    count each message once. Any other counter (your own function, a chat
    model) gives None: nothing is assumed about it.

    >>> one, extra = additive_parts("dummy")
    >>> from langchain_core.messages import HumanMessage
    >>> one(HumanMessage("hi")), extra
    (10, 0)
    """
    if isinstance(token_counter, str):
        if token_counter not in COUNTER_NAMES + ENCODING_NAMES:
            return None
        token_counter = get_token_counter(token_counter)
    declared = getattr(token_counter, "additive_parts", None)  # a counter that says how it adds up (inspect's media counter)
    if callable(declared):
        return declared()
    if token_counter is exact_counter:
        token_counter = _SHARED_EXACT
    if isinstance(token_counter, ExactTokenCounter):
        return token_counter.count_message, token_counter.reply_tokens
    if token_counter in (approximate_counter, count_tokens_approximately):
        # langchain_core rounds each message up on its own so that the counts add up (its comment says so).
        return approximate_message_tokens, 0
    if token_counter is dummy_token_counter:
        return (lambda message: dummy_token_counter([message])), 0
    return None


def resolve_token_counter(token_counter: Any, parameter: str = "token_counter") -> TokenCounter:
    """Accept a counter's name, a function over a list of messages, or a chat model; return a function.

    The one place the course turns a ``token_counter`` argument into a
    counter: a name (``"approximate"``, ``"exact"``, ``"dummy"``) gives the
    course's counter, a function is used as it is, and a chat model gives its
    ``get_num_tokens_from_messages`` (what ``trim_messages`` itself calls
    for a model). Errors name ``parameter``.

    >>> resolve_token_counter("dummy") is dummy_token_counter
    True
    """
    if isinstance(token_counter, str):
        if token_counter not in COUNTER_NAMES + ENCODING_NAMES:
            raise ValueError(
                f"{parameter} must be one of {COUNTER_NAMES + ENCODING_NAMES}, a function or a chat model, "
                f"got {token_counter!r}"
            )
        return get_token_counter(token_counter)
    if callable(token_counter):
        return token_counter
    model_counter = getattr(token_counter, "get_num_tokens_from_messages", None)
    if callable(model_counter):
        return model_counter
    raise TypeError(
        f"{parameter} must be a counter name {COUNTER_NAMES}, a function over a list of messages or a chat model, "
        f"got {type(token_counter).__name__}: {token_counter!r:.80}"
    )


def counter_name(token_counter: str | TokenCounter) -> str:
    """A short label for a counter, for tables and plot legends."""
    if isinstance(token_counter, str):
        return token_counter
    for name in COUNTER_NAMES:
        if token_counter is get_token_counter(name):
            return name
    if isinstance(token_counter, ExactTokenCounter):
        return "exact" if token_counter.encoding == "cl100k_base" else token_counter.encoding
    return getattr(token_counter, "__name__", type(token_counter).__name__)


def count_each(messages: Sequence[BaseMessage], token_counter: str | TokenCounter = "approximate") -> list[int]:
    """Tokens of each message counted on its own, in order.

    >>> from langchain_core.messages import HumanMessage
    >>> count_each([HumanMessage("a"), HumanMessage("b")], "dummy")
    [10, 10]
    """
    messages = check_messages(messages)
    counter = resolve_token_counter(token_counter)
    return [counter([m]) for m in messages]


# --- a text cut into its tokens (lesson 01's visualiser) ------------------------


@dataclass(frozen=True)
class TokenPiece:
    """One token of a text: its id, its bytes, and the characters those bytes help to spell.

    A byte-level BPE tokenizer works on UTF-8 bytes, not characters. A
    Persian letter is 2 bytes and a Chinese character 3, and when the
    vocabulary has no token for the whole character, one token can hold
    part of one: then ``text`` is None and ``label`` shows the bytes.
    """

    token_id: int
    data: bytes
    chars: str  #: the character(s) this token's bytes belong to, whole

    @property
    def text(self) -> str | None:
        """The token's text, or None when its bytes are only part of a character."""
        try:
            return self.data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    @property
    def whole(self) -> bool:
        """True when the token is whole characters (False: part of a character)."""
        return self.text is not None

    @property
    def label(self) -> str:
        """What to print for the token: its text, or its bytes in hex ("d8 b3") when partial."""
        text = self.text
        return text if text is not None else " ".join(f"{b:02x}" for b in self.data)


@dataclass(frozen=True)
class TokenSplit:
    """A text cut into tokens by one tokenizer, or, when it is unavailable, why not."""

    encoding: str
    text: str
    pieces: tuple[TokenPiece, ...]
    exact: bool
    note: str  #: empty when the tokenizer is available

    @property
    def count(self) -> int:
        """The number of tokens (the approximate count when the tokenizer is unavailable)."""
        return len(self.pieces) if self.exact else count_text_tokens(self.text, "approximate")

    @property
    def partial(self) -> int:
        """How many tokens are only part of a character."""
        return sum(not piece.whole for piece in self.pieces)

    @property
    def ids(self) -> list[int]:
        return [piece.token_id for piece in self.pieces]


def split_tokens(text: str, encoding: str = "o200k_base") -> TokenSplit:
    """Cut ``text`` into the tokens of ``encoding`` (``"cl100k_base"``, ``"o200k_base"``, ``"llama3"``).

    Each piece keeps its id, its bytes and the whole characters its bytes
    touch (found by walking the UTF-8 bytes, so a token that ends inside a
    character names that character). When the tokenizer cannot be loaded
    the split has no pieces, ``exact`` is False and ``note`` says why.

    >>> [p.label for p in split_tokens("hello world", "o200k_base").pieces]
    ['hello', ' world']
    """
    text = check_text(text, "text")
    encoding = check_encoding(encoding)
    loaded, status = load_encoding(encoding=encoding)
    if loaded is None:
        return TokenSplit(encoding, text, (), False, status.note)
    ids = loaded.encode_ordinary(text)
    # byte offset -> index of the character it belongs to
    owner: list[int] = []
    for index, char in enumerate(text):
        owner.extend([index] * len(char.encode("utf-8")))
    pieces, start = [], 0
    for token_id in ids:
        data = loaded.decode_single_token_bytes(token_id)
        end = start + len(data)
        chars = text[owner[start] : owner[end - 1] + 1] if data else ""
        pieces.append(TokenPiece(token_id, data, chars))
        start = end
    return TokenSplit(encoding, text, tuple(pieces), True, "")
