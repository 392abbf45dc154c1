"""What a provider bills for a conversation (lessons 01 and 05b): input, output and prompt caching.

A provider bills three things per call:

- **input tokens**: everything sent, system prompt and history included, at
  the input price;
- **output tokens**: everything the model writes, summaries included, at the
  (higher) output price;
- with **prompt caching**, the part of the input that starts exactly like an
  earlier call's input (the same messages, in the same order, from the very
  first token) is read from the cache at the much lower cached-input price.
  The rest is written to the cache, at the input price or, where the
  provider charges for writing (``cache_write``), at that price.

The cache matches a *prefix*: one changed message early in the list (a
trimmed-away turn, a rewritten summary) makes everything after it uncached.
That is why *how* you trim decides what caching saves: trimming that slides
the window on every call changes the message right after the system prompt
on every call, while trimming in chunks (a high and a low water mark, see
``retention.py``) keeps the same start between cuts.

Everything here is a pure function over :class:`Call` records, so the rules
can be tested on their own and applied to any replay:

>>> first = Call("turn", ("system", "hi"), (10, 5), output_tokens=7)
>>> second = Call("turn", ("system", "hi", "reply", "more"), (10, 5, 7, 4), output_tokens=3)
>>> cached_prefix_tokens(second, [first])
15
>>> prices = Prices(input=2.0, output=10.0, cached_input=0.2)
>>> round(bill([first, second], prices).cost, 8)
0.000155
>>> round(bill([first, second], prices, caching=False).cost, 8)
0.000182

Caching as billed: a provider caches only a prefix of at least its model's
minimum length (``Prices.min_cached_tokens``, from ``models.json``), so below
it nothing is read from the cache *and* nothing is written to it: those
calls pay the plain input price, with no cache-write premium. A call at or
above the minimum writes what it did not read (``cache_creation``) and reads
its shared prefix (``cache_read``), as providers report in ``usage``:

>>> haiku = Prices(input=1.0, output=5.0, cached_input=0.1, cache_write=1.25, min_cached_tokens=4096)
>>> cache_tokens(second, [first], haiku.min_cached_tokens)
CacheTokens(read=0, written=0)

What the course does not model: a cache lives minutes (``lifetime_minutes``
in models.json: 5 for Anthropic's default, 30 for the OpenAI model's write
price), and a replay has no clock, so every call is assumed to come within
the lifetime of the one before; a chat whose user pauses longer pays for a
new write. Providers also match on their own boundaries (Anthropic at cache
breakpoints, with a limited lookback; OpenAI in steps of 128 tokens), while
the course matches whole messages against any earlier call, which is what
an automatic breakpoint at the end of an append-only prompt comes to.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from course_utils.core.args import check_bool, check_choice, check_instance, check_int

#: The kinds of call a bill tells apart.
CALL_KINDS = ("turn", "summary")
#: Prices are per this many tokens (providers publish "$ per million tokens").
TOKENS_PER_PRICE_UNIT = 1_000_000


def _check_price(value: Any, parameter: str, *, none_ok: bool = False) -> float | None:
    if value is None and none_ok:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{parameter} must be a number of dollars per million tokens, got {type(value).__name__}: {value!r:.80}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{parameter} must be a finite price >= 0, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class Prices:
    """A model's prices in US dollars per million tokens.

    ``cached_input`` is None when the model offers no prompt caching;
    ``cache_write`` is None when writing to the cache costs the normal input price.
    """

    input: float
    output: float
    cached_input: float | None = None
    cache_write: float | None = None
    #: The shortest prefix the provider caches for this model (its documented minimum); 0: any length.
    min_cached_tokens: int = 0

    def __post_init__(self):
        for name in ("input", "output"):
            _check_price(getattr(self, name), f"prices.{name}")
        for name in ("cached_input", "cache_write"):
            _check_price(getattr(self, name), f"prices.{name}", none_ok=True)
        check_int(self.min_cached_tokens, "prices.min_cached_tokens")

    @property
    def offers_caching(self) -> bool:
        return self.cached_input is not None


@dataclass(frozen=True)
class Call:
    """One model call as a provider sees it.

    ``message_keys`` identify the input's parts in order (two parts with the
    same key are the same text), ``message_tokens`` are their token counts;
    ``output_tokens`` is what the model wrote. ``kind`` is "turn" (answering
    the user) or "summary" (writing a summary).
    """

    kind: str
    message_keys: tuple[str, ...]
    message_tokens: tuple[int, ...]
    output_tokens: int

    def __post_init__(self):
        check_choice(self.kind, "kind", CALL_KINDS)
        if not isinstance(self.message_keys, tuple) or not isinstance(self.message_tokens, tuple):
            raise TypeError("message_keys and message_tokens must be tuples")
        if len(self.message_keys) != len(self.message_tokens):
            raise ValueError(
                f"message_keys and message_tokens must have the same length, got "
                f"{len(self.message_keys)} and {len(self.message_tokens)}"
            )
        for i, tokens in enumerate(self.message_tokens):
            check_int(tokens, f"message_tokens[{i}]")
        check_int(self.output_tokens, "output_tokens")

    @property
    def input_tokens(self) -> int:
        return sum(self.message_tokens)


def _check_calls(calls: Any) -> list[Call]:
    if isinstance(calls, (str, bytes)) or not isinstance(calls, Sequence):
        raise TypeError(f"calls must be a list of Call, got {type(calls).__name__}: {calls!r:.80}")
    return [check_instance(call, f"calls[{i}]", Call) for i, call in enumerate(calls)]


def common_prefix_length(a: Sequence[str], b: Sequence[str]) -> int:
    """How many leading keys two calls share.

    >>> common_prefix_length(["s", "a", "b"], ["s", "a", "c"])
    2
    """
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def cached_prefix_tokens(call: Call, earlier: Sequence[Call], *, min_cached_tokens: int = 0) -> int:
    """Input tokens of ``call`` a prompt cache can serve: its longest prefix
    (whole messages) that an earlier call also started with.

    Below ``min_cached_tokens`` nothing is cached (providers cache only
    prefixes above a minimum length).
    """
    check_instance(call, "call", Call)
    earlier = _check_calls(earlier)
    min_cached_tokens = check_int(min_cached_tokens, "min_cached_tokens")
    shared = max((common_prefix_length(call.message_keys, e.message_keys) for e in earlier), default=0)
    tokens = sum(call.message_tokens[:shared])
    return tokens if tokens >= min_cached_tokens and tokens > 0 else 0


@dataclass(frozen=True)
class CacheTokens:
    """What one call reads from a prompt cache and writes to it (providers' ``cache_read`` / ``cache_creation``)."""

    read: int
    written: int


def cache_tokens(call: Call, earlier: Sequence[Call], min_cached_tokens: int = 0) -> CacheTokens:
    """What a prompt cache does with ``call``, given the calls before it.

    It reads the longest prefix an earlier call also started with, if that
    prefix is at least ``min_cached_tokens`` long; it writes the rest of the
    call (so a later call can read it) only if the whole call reaches the
    minimum. Below the minimum nothing is read or written.

    >>> a = Call("turn", ("s", "x"), (3000, 500), 0)
    >>> b = Call("turn", ("s", "x", "y"), (3000, 500, 700), 0)
    >>> cache_tokens(b, [a], 1024)  # the shared 3,500 are read, the new 700 written
    CacheTokens(read=3500, written=700)
    >>> cache_tokens(b, [a], 4096)  # 3,500 is below the minimum: nothing read; the call (4,200) is written
    CacheTokens(read=0, written=4200)
    >>> cache_tokens(b, [a], 8192)  # below the minimum: nothing read, nothing written
    CacheTokens(read=0, written=0)
    """
    check_instance(call, "call", Call)
    min_cached_tokens = check_int(min_cached_tokens, "min_cached_tokens")
    read = cached_prefix_tokens(call, earlier, min_cached_tokens=min_cached_tokens)
    written = call.input_tokens - read if call.input_tokens >= max(min_cached_tokens, 1) else 0
    return CacheTokens(read, written)


@dataclass(frozen=True)
class Bill:
    """What a sequence of calls costs, and why."""

    calls: int
    input_tokens: int  #: every input token, cached or not
    cached_tokens: int  #: the part of input_tokens read from the cache
    written_tokens: int  #: the part of input_tokens written to the cache (at the cache-write price)
    output_tokens: int  #: every output token, summaries included
    summary_output_tokens: int  #: the part of output_tokens that wrote summaries
    input_cost: float  #: dollars for input not read from the cache
    cached_cost: float  #: dollars for input read from the cache
    output_cost: float  #: dollars for output
    caching: bool  #: whether the bill applied prompt caching

    @property
    def cost(self) -> float:
        """The total in US dollars."""
        return self.input_cost + self.cached_cost + self.output_cost

    @property
    def cached_share(self) -> float:
        """The share of input tokens read from the cache (0 to 1)."""
        return self.cached_tokens / self.input_tokens if self.input_tokens else 0.0


def bill(calls: Sequence[Call], prices: Prices, *, caching: bool = True, min_cached_tokens: int = 0) -> Bill:
    """What a provider bills for ``calls``, in order, at ``prices``.

    Without caching (or when the model offers none) every input token costs
    the input price. With caching (:func:`cache_tokens`), each call's prefix
    shared with an earlier call costs the cached-input price, and the rest,
    written to the cache, the cache-write price (the input price when the
    provider charges nothing extra for writing). The minimum prefix is the
    larger of ``prices.min_cached_tokens`` (the model's documented one) and
    ``min_cached_tokens``: a call below it is neither read nor written, so it
    pays the plain input price, never the write premium. Output tokens,
    summaries' included, always cost the output price.
    """
    calls = _check_calls(calls)
    check_instance(prices, "prices", Prices)
    caching = check_bool(caching, "caching") and prices.offers_caching
    minimum = max(check_int(min_cached_tokens, "min_cached_tokens"), prices.min_cached_tokens)
    unit = TOKENS_PER_PRICE_UNIT
    write_price = prices.cache_write if prices.cache_write is not None else prices.input
    input_tokens = cached_tokens = written_tokens = 0
    input_cost = cached_cost = 0.0
    for i, call in enumerate(calls):
        cache = cache_tokens(call, calls[:i], minimum) if caching else CacheTokens(0, 0)
        plain = call.input_tokens - cache.read - cache.written
        input_tokens += call.input_tokens
        cached_tokens += cache.read
        written_tokens += cache.written
        input_cost += (plain * prices.input + cache.written * write_price) / unit
        cached_cost += cache.read * (prices.cached_input or 0.0) / unit
    output_tokens = sum(call.output_tokens for call in calls)
    summary_output = sum(call.output_tokens for call in calls if call.kind == "summary")
    return Bill(
        calls=len(calls),
        input_tokens=input_tokens,
        cached_tokens=cached_tokens,
        written_tokens=written_tokens,
        output_tokens=output_tokens,
        summary_output_tokens=summary_output,
        input_cost=input_cost,
        cached_cost=cached_cost,
        output_cost=output_tokens * prices.output / unit,
        caching=caching,
    )


# --- from messages to Call records, and a cache that remembers calls --------------------------


def message_key(message: Any) -> str:
    """A short fingerprint of a message's role and text: equal keys, equal messages (for the prompt cache).

    The text is taken as sent, byte for byte, as a provider's cache compares it.
    """
    digest = hashlib.sha1(f"{message.type}\x00{message.text}".encode("utf-8")).hexdigest()
    return digest[:16]


def pair_overhead(counter: Any) -> int:
    """Tokens a counter adds once per list (e.g. the reply priming of the exact counter)."""
    from langchain_core.messages import AIMessage, HumanMessage

    a, b = HumanMessage("a"), AIMessage("b")
    return max(0, counter([a]) + counter([b]) - counter([a, b]))


def call_record(kind: str, messages: Sequence[Any], output_tokens: int, counter: Any, *, extra_input: int = 0) -> Call:
    """A :class:`Call` for ``messages``: one part per message, plus the list's own overhead as a last part.

    ``extra_input`` is input sent before the messages (tool schemas, which
    providers put first): it becomes a first part, so the parts add up to
    what the provider counts as input.
    """
    overhead = pair_overhead(counter)
    parts = [max(0, counter([m]) - overhead) for m in messages]
    rest = counter(list(messages)) - sum(parts)
    keys = tuple(message_key(m) for m in messages)
    if rest > 0:
        keys, parts = (*keys, "list-overhead"), [*parts, rest]
    if extra_input > 0:
        keys, parts = ("tools", *keys), [extra_input, *parts]
    return Call(kind, keys, tuple(parts), output_tokens)


class PromptCache:
    """A provider's prompt cache for one model: it remembers every call and says what each reads and writes.

    This is what lets the offline model report ``input_token_details``
    (``cache_read``, ``cache_creation``) in its ``usage_metadata`` as
    providers do; the numbers are :func:`cache_tokens`'s, the same rule
    :func:`bill` prices.

    >>> cache = PromptCache(min_cached_tokens=0)
    >>> cache.record(Call("turn", ("s",), (10,), 0))
    {'cache_read': 0, 'cache_creation': 10}
    >>> cache.record(Call("turn", ("s", "a"), (10, 4), 0))
    {'cache_read': 10, 'cache_creation': 4}
    """

    def __init__(self, min_cached_tokens: int = 0):
        self.min_cached_tokens = check_int(min_cached_tokens, "min_cached_tokens")
        self.calls: list[Call] = []

    def record(self, call: Call) -> dict[str, int]:
        """What ``call`` reads from and writes to the cache, as ``input_token_details``; the call is remembered."""
        tokens = cache_tokens(call, self.calls, self.min_cached_tokens)
        self.calls.append(call)
        return {"cache_read": tokens.read, "cache_creation": tokens.written}


__all__ = [
    "CALL_KINDS",
    "PromptCache",
    "call_record",
    "message_key",
    "Bill",
    "CacheTokens",
    "Call",
    "Prices",
    "bill",
    "cache_tokens",
    "cached_prefix_tokens",
    "common_prefix_length",
]
