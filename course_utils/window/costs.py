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

A cache lives minutes (``Prices.cache_lifetime_minutes``, from
``lifetime_minutes`` in models.json: 5 for Anthropic's default, 30 for the
OpenAI model's write price) from its last use. A replay has no clock of its
own, so :func:`bill` takes ``pauses``: the seconds between one call and the
next (one number for every gap, or one per call). An entry not used for
longer than the lifetime is gone, and the next call writes it again. With
no pauses every call is taken to come within the lifetime of the one before
(an agent loop); a human who reads and types between turns is not:

>>> short = Prices(1.0, 5.0, cached_input=0.1, cache_write=1.25, cache_lifetime_minutes=5)
>>> bill([first, second], short).cached_tokens            # no pause: the second call reads 15
15
>>> bill([first, second], short, pauses=400).cached_tokens  # 6 min 40 s later: expired, written again
0

Two more things a bill applies. **Price bands**: some providers charge a
higher price for *every* token of a request whose input passes a length
(``Prices.bands``; Claude Haiku 5.5 above 100,000 input tokens, GPT-6.2 Sol
above 272,000). **Reasoning**: a model that reasons bills its hidden
reasoning tokens as output; ``Prices.reasoning_share`` (reasoning tokens as
a share of all output) adds them to each call's visible output:

>>> thinking = Prices(2.0, 10.0, reasoning_share=0.5)
>>> bill([first], thinking).output_tokens   # 7 visible + 7 reasoning
14

Providers also match on their own boundaries (Anthropic at cache
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
from course_utils.core.i18n import _

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
class PriceBand:
    """A higher price band: a request whose input is above ``above_input_tokens`` pays these prices on every token."""

    above_input_tokens: int
    input: float
    output: float
    cached_input: float | None = None
    cache_write: float | None = None

    def __post_init__(self):
        check_int(self.above_input_tokens, "band.above_input_tokens", minimum=1)
        for name in ("input", "output"):
            _check_price(getattr(self, name), f"band.{name}")
        for name in ("cached_input", "cache_write"):
            _check_price(getattr(self, name), f"band.{name}", none_ok=True)


@dataclass(frozen=True)
class Prices:
    """A model's prices in US dollars per million tokens.

    ``cached_input`` is None when the model offers no prompt caching;
    ``cache_write`` is None when writing to the cache costs the normal input price.
    ``bands`` are higher prices for long requests (see :meth:`for_input`);
    ``cache_lifetime_minutes`` how long an unused cache entry lives (None: as
    long as the replay); ``reasoning_share`` the share of output that is
    hidden reasoning (0: none).
    """

    input: float
    output: float
    cached_input: float | None = None
    cache_write: float | None = None
    #: The shortest prefix the provider caches for this model (its documented minimum); 0: any length.
    min_cached_tokens: int = 0
    bands: tuple[PriceBand, ...] = ()
    cache_lifetime_minutes: float | None = None
    reasoning_share: float = 0.0

    def __post_init__(self):
        for name in ("input", "output"):
            _check_price(getattr(self, name), f"prices.{name}")
        for name in ("cached_input", "cache_write"):
            _check_price(getattr(self, name), f"prices.{name}", none_ok=True)
        check_int(self.min_cached_tokens, "prices.min_cached_tokens")
        if not isinstance(self.bands, tuple) or not all(isinstance(b, PriceBand) for b in self.bands):
            raise TypeError(f"prices.bands must be a tuple of PriceBand, got {self.bands!r:.80}")
        edges = [b.above_input_tokens for b in self.bands]
        if edges != sorted(set(edges)):
            raise ValueError(f"prices.bands must be in increasing above_input_tokens, got {edges}")
        if self.cache_lifetime_minutes is not None:
            _check_price(self.cache_lifetime_minutes, "prices.cache_lifetime_minutes")
            if self.cache_lifetime_minutes <= 0:
                raise ValueError(f"prices.cache_lifetime_minutes must be > 0 or None, got {self.cache_lifetime_minutes!r}")
        share = self.reasoning_share
        if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 <= share < 1:
            raise ValueError(f"prices.reasoning_share must be a number from 0 up to (not including) 1, got {share!r}")

    @property
    def offers_caching(self) -> bool:
        return self.cached_input is not None

    def for_input(self, input_tokens: int) -> "Prices":
        """The prices one request of ``input_tokens`` pays: the highest band it passes, or these.

        >>> haiku = Prices(0.10, 0.50, 0.01, 0.125, bands=(PriceBand(100_000, 0.50, 2.50, 0.05, 0.625),))
        >>> haiku.for_input(100_000).input, haiku.for_input(100_001).input
        (0.1, 0.5)
        """
        passed = [b for b in self.bands if input_tokens > b.above_input_tokens]
        if not passed:
            return self
        band = passed[-1]
        cached = band.cached_input if band.cached_input is not None else self.cached_input
        return Prices(band.input, band.output, cached if self.offers_caching else None, band.cache_write,
                      self.min_cached_tokens, (), self.cache_lifetime_minutes, self.reasoning_share)

    def reasoning_tokens(self, visible_output: int) -> int:
        """Hidden reasoning tokens billed with ``visible_output`` visible ones, at this share (rounded).

        >>> Prices(1.0, 1.0, reasoning_share=0.75).reasoning_tokens(100)   # 75% of 400 is reasoning
        300
        """
        if not self.reasoning_share:
            return 0
        return round(visible_output * self.reasoning_share / (1 - self.reasoning_share))


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
    output_tokens: int  #: every output token billed, summaries and reasoning included
    summary_output_tokens: int  #: the part of output_tokens that wrote summaries
    input_cost: float  #: dollars for input not read from the cache
    cached_cost: float  #: dollars for input read from the cache
    output_cost: float  #: dollars for output
    caching: bool  #: whether the bill applied prompt caching
    reasoning_tokens: int = 0  #: the part of output_tokens that was hidden reasoning (``Prices.reasoning_share``)
    banded_calls: int = 0  #: calls whose input passed a price band and paid its higher prices
    expired_reads: int = 0  #: calls that found their prefix expired (a pause longer than the cache lifetime)

    @property
    def cost(self) -> float:
        """The total in US dollars."""
        return self.input_cost + self.cached_cost + self.output_cost

    @property
    def cached_share(self) -> float:
        """The share of input tokens read from the cache (0 to 1)."""
        return self.cached_tokens / self.input_tokens if self.input_tokens else 0.0


def _pauses(pauses: Any, n: int) -> list[float]:
    """Seconds before each call (the first is ignored): None -> no pauses; a number -> the same before every call."""
    if pauses is None:
        return [0.0] * n
    if isinstance(pauses, (int, float)) and not isinstance(pauses, bool):
        values = [float(pauses)] * n
    elif isinstance(pauses, Sequence) and not isinstance(pauses, (str, bytes)):
        values = list(pauses)
        if len(values) != n:
            raise ValueError(f"pauses must give one number of seconds per call ({n}), got {len(values)}; "
                             f"or pass one number for every gap")
    else:
        raise TypeError(f"pauses must be seconds between calls (a number, or one per call), got {pauses!r:.80}")
    for i, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise ValueError(f"pauses[{i}] must be a number of seconds >= 0, got {value!r}")
    return [float(v) for v in values]


def bill(calls: Sequence[Call], prices: Prices, *, caching: bool = True, min_cached_tokens: int = 0,
         pauses: float | Sequence[float] | None = None) -> Bill:
    """What a provider bills for ``calls``, in order, at ``prices``.

    Without caching (or when the model offers none) every input token costs
    the input price. With caching (:func:`cache_tokens`), each call's prefix
    shared with an earlier call still alive in the cache costs the
    cached-input price, and the rest, written to the cache, the cache-write
    price (the input price when the provider charges nothing extra for
    writing). The minimum prefix is the larger of ``prices.min_cached_tokens``
    (the model's documented one) and ``min_cached_tokens``: a call below it
    is neither read nor written, so it pays the plain input price, never the
    write premium.

    ``pauses`` are the seconds between calls (one number for every gap, or
    one per call; the first call's is ignored): an entry unused for longer
    than ``prices.cache_lifetime_minutes`` has expired, and reading it
    refreshes it. A call whose input passes one of ``prices.bands`` pays
    that band's prices on every token, output included. Output tokens,
    summaries' included, cost the output price, plus the hidden reasoning
    ``prices.reasoning_share`` implies.
    """
    calls = _check_calls(calls)
    check_instance(prices, "prices", Prices)
    caching = check_bool(caching, "caching") and prices.offers_caching
    minimum = max(check_int(min_cached_tokens, "min_cached_tokens"), prices.min_cached_tokens)
    gaps = _pauses(pauses, len(calls))
    lifetime = None if prices.cache_lifetime_minutes is None else prices.cache_lifetime_minutes * 60
    unit = TOKENS_PER_PRICE_UNIT
    input_tokens = cached_tokens = written_tokens = output_tokens = reasoning = banded = expired = 0
    input_cost = cached_cost = output_cost = 0.0
    alive: list[list] = []  # [call, last used (seconds)] for every call in the cache
    now = 0.0
    for i, call in enumerate(calls):
        now += gaps[i] if i else 0.0
        if lifetime is not None:
            fresh = [entry for entry in alive if now - entry[1] <= lifetime]
            if caching and len(fresh) < len(alive):
                before = cache_tokens(call, [e[0] for e in alive], minimum).read
                after = cache_tokens(call, [e[0] for e in fresh], minimum).read
                expired += before > after
            alive = fresh
        cache = cache_tokens(call, [e[0] for e in alive], minimum) if caching else CacheTokens(0, 0)
        if cache.read:
            shared = cache.read
            for entry in alive:  # a read refreshes the entries it matched
                if sum(call.message_tokens[:common_prefix_length(call.message_keys, entry[0].message_keys)]) >= shared:
                    entry[1] = now
        if caching and (cache.written or cache.read):
            alive.append([call, now])
        price = prices.for_input(call.input_tokens)
        banded += price is not prices
        write_price = price.cache_write if price.cache_write is not None else price.input
        plain = call.input_tokens - cache.read - cache.written
        hidden = prices.reasoning_tokens(call.output_tokens)
        input_tokens += call.input_tokens
        cached_tokens += cache.read
        written_tokens += cache.written
        reasoning += hidden
        output_tokens += call.output_tokens + hidden
        input_cost += (plain * price.input + cache.written * write_price) / unit
        cached_cost += cache.read * (price.cached_input or 0.0) / unit
        output_cost += (call.output_tokens + hidden) * price.output / unit
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
        output_cost=output_cost,
        caching=caching,
        reasoning_tokens=reasoning,
        banded_calls=banded,
        expired_reads=expired,
    )


def relative_change(new: float, old: float, *, digits: int = 0) -> str:
    """How ``new`` compares with ``old``, in words a reader cannot misread: a fall is "less", a rise is
    "more", and a change that rounds to zero is "about the same". Never "-0%" or "-15% less".

    >>> relative_change(0.85, 1.0), relative_change(1.15, 1.0), relative_change(0.999, 1.0)
    ('15% less', '15% more', 'about the same')
    >>> relative_change(1.0, 0.0)
    'more (from nothing)'
    """
    for value, name in ((new, "new"), (old, "old")):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise TypeError(f"{name} must be a finite number, got {value!r:.40}")
    digits = check_int(digits, "digits")
    if old == 0:
        return _("about the same") if new == 0 else _("more (from nothing)") if new > 0 else _("less (from nothing)")
    change = (new - old) / abs(old)
    share = f"{abs(change):.{digits}%}"
    if float(share.rstrip("%")) == 0:
        return _("about the same")
    return _("{share} more").format(share=share) if change > 0 else _("{share} less").format(share=share)


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
    "PriceBand",
    "Prices",
    "bill",
    "relative_change",
    "cache_tokens",
    "cached_prefix_tokens",
    "common_prefix_length",
]
