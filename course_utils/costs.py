"""What a provider bills for a conversation (lesson 05): input, output and prompt caching.

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

What the offline course simplifies: real providers cache only prefixes above a
minimum length (``min_cached_tokens``), keep them for minutes, not forever,
and match on their own token boundaries; some cache automatically, others only
where you mark a breakpoint.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from course_utils._args import check_bool, check_choice, check_instance, check_int

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

    def __post_init__(self):
        for name in ("input", "output"):
            _check_price(getattr(self, name), f"prices.{name}")
        for name in ("cached_input", "cache_write"):
            _check_price(getattr(self, name), f"prices.{name}", none_ok=True)

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
class Bill:
    """What a sequence of calls costs, and why."""

    calls: int
    input_tokens: int  #: every input token, cached or not
    cached_tokens: int  #: the part of input_tokens read from the cache
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
    the input price. With caching, each call's prefix shared with an earlier
    call costs the cached-input price and the rest the cache-write price
    (the input price when the provider charges nothing extra for writing).
    Output tokens, summaries' included, always cost the output price.
    """
    calls = _check_calls(calls)
    check_instance(prices, "prices", Prices)
    caching = check_bool(caching, "caching") and prices.offers_caching
    min_cached_tokens = check_int(min_cached_tokens, "min_cached_tokens")
    unit = TOKENS_PER_PRICE_UNIT
    input_tokens = cached_tokens = 0
    input_cost = cached_cost = 0.0
    for i, call in enumerate(calls):
        cached = cached_prefix_tokens(call, calls[:i], min_cached_tokens=min_cached_tokens) if caching else 0
        fresh = call.input_tokens - cached
        fresh_price = prices.cache_write if caching and prices.cache_write is not None else prices.input
        input_tokens += call.input_tokens
        cached_tokens += cached
        input_cost += fresh * fresh_price / unit
        cached_cost += cached * (prices.cached_input or 0.0) / unit
    output_tokens = sum(call.output_tokens for call in calls)
    summary_output = sum(call.output_tokens for call in calls if call.kind == "summary")
    return Bill(
        calls=len(calls),
        input_tokens=input_tokens,
        cached_tokens=cached_tokens,
        output_tokens=output_tokens,
        summary_output_tokens=summary_output,
        input_cost=input_cost,
        cached_cost=cached_cost,
        output_cost=output_tokens * prices.output / unit,
        caching=caching,
    )


__all__ = [
    "CALL_KINDS",
    "Bill",
    "Call",
    "Prices",
    "bill",
    "cached_prefix_tokens",
    "common_prefix_length",
]
