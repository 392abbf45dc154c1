"""Models' limits, tokenizers and prices, from the data file ``course_utils/data/models.json`` (lessons 05 and 05b).

One row per model: its context window, its cap on output tokens, the family
of its tokenizer, its prices (input, output, cached input, cache write) in
dollars per million tokens, and for every row the date the course read its
source and the source's address. Numbers in a lesson come from here, never
typed into the lesson, so one edit of the data file updates every lesson.

Limits and prices change: each row is a dated snapshot, and the loader
refuses a row without a date or a source.

>>> info = model_info("GPT-4 (original)")
>>> info.context_window, info.tokenizer, info.exact_tokenizer
(8192, 'cl100k_base', True)

The tokenizer family decides how the course counts for a model:
:func:`counter_for_tokenizer` gives the exact counter where the course has
one, and otherwise the approximate counter with a safety margin to add.
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

from course_utils.window.calibration import safety_margin, sample_errors
from course_utils.window.costs import Prices
from course_utils.core.i18n import _
from course_utils.window.tokens import ENCODING_NAMES, TokenCounter, get_token_counter

#: Keys every row of models.json has.
ROW_KEYS = (
    "model", "provider", "kind", "context_window", "max_output_tokens", "tokenizer",
    "price_input", "price_output", "price_cached_input", "price_cache_write", "checked", "source", "note", "caching",
)
#: Keys of a row's "caching" object, and the ways a provider sets a cache breakpoint.
CACHING_KEYS = ("min_prefix_tokens", "lifetime_minutes", "breakpoint", "checked", "source", "unstated", "note")
BREAKPOINTS = ("automatic prefix", "cache_control")
KINDS = ("hosted", "open weights")
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

#: Tokenizer families the course counts exactly offline (verified vocabularies), and the counter for each.
EXACT_COUNTERS = {name: name for name in ENCODING_NAMES}

#: The margin (share of L) the course uses when it counts exactly (lesson 05's procedure): room for
#: the formatting tokens a provider adds around messages, not for counting error.
EXACT_MARGIN_SHARE = 0.05


@dataclass(frozen=True)
class CachingRules:
    """A provider's prompt-caching rules for one model, as its page stated them (the row's "caching").

    ``min_prefix_tokens``: the shortest prefix cached (below it nothing is
    read or written); ``lifetime_minutes``: how long an unused entry lives;
    ``breakpoint``: "automatic prefix" (the provider caches by itself) or
    "cache_control" (only where the request marks it). None means the page
    read did not state it; ``unstated`` says why, field by field.
    """

    min_prefix_tokens: int | None
    lifetime_minutes: float | None
    breakpoint: str | None
    checked: str
    source: str
    unstated: dict
    note: str

    @property
    def offered(self) -> bool:
        """Whether the provider caches prompts for this model at all (it names a way to set a breakpoint)."""
        return self.breakpoint is not None


@dataclass(frozen=True)
class ModelInfo:
    """One row of models.json."""

    model: str
    provider: str
    kind: str  #: "hosted" (an API) or "open weights" (you can run it yourself)
    context_window: int
    max_output_tokens: int | None
    tokenizer: str
    price_input: float | None
    price_output: float | None
    price_cached_input: float | None
    price_cache_write: float | None
    checked: str  #: the date the course read the source (YYYY-MM-DD)
    source: str
    note: str
    caching: CachingRules  #: the provider's prompt-caching rules, dated and sourced on their own

    @property
    def exact_tokenizer(self) -> bool:
        """Whether the course can count this model's tokens exactly."""
        return self.tokenizer in EXACT_COUNTERS

    @property
    def has_prices(self) -> bool:
        return self.price_input is not None and self.price_output is not None

    @property
    def prices(self) -> Prices:
        """The row's prices (ValueError when the source gave none)."""
        if not self.has_prices:
            raise ValueError(f"model {self.model!r} has no prices in models.json (its source did not state them)")
        cached = self.price_cached_input if self.caching.offered else None
        return Prices(self.price_input, self.price_output, cached, self.price_cache_write,
                      min_cached_tokens=self.caching.min_prefix_tokens or 0)

    @property
    def cache_write_premium(self) -> float | None:
        """How many times the input price a cache write costs (1.0: no premium; None: no caching or no prices)."""
        if not self.has_prices or not self.caching.offered or self.price_cached_input is None:
            return None
        return (self.price_cache_write if self.price_cache_write is not None else self.price_input) / self.price_input


def _caching(raw: Any, where: str) -> CachingRules:
    where = f"{where}: 'caching'"
    if not isinstance(raw, dict):
        raise ValueError(f"{where} must be an object, got {type(raw).__name__}")
    missing = [k for k in CACHING_KEYS if k not in raw]
    unknown = sorted(set(raw) - set(CACHING_KEYS))
    if missing or unknown:
        raise ValueError(f"{where}: missing keys {missing}, unknown keys {unknown}")
    value = raw["min_prefix_tokens"]
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise ValueError(f"{where}: 'min_prefix_tokens' must be an int >= 0 or null, got {value!r}")
    value = raw["lifetime_minutes"]
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0):
        raise ValueError(f"{where}: 'lifetime_minutes' must be a number > 0 or null, got {value!r}")
    if raw["breakpoint"] is not None and raw["breakpoint"] not in BREAKPOINTS:
        raise ValueError(f"{where}: 'breakpoint' must be one of {BREAKPOINTS} or null, got {raw['breakpoint']!r}")
    if not isinstance(raw["checked"], str) or not DATE.match(raw["checked"]):
        raise ValueError(f"{where}: 'checked' must be a date YYYY-MM-DD, got {raw['checked']!r}")
    if not isinstance(raw["source"], str) or not raw["source"].startswith("https://"):
        raise ValueError(f"{where}: 'source' must be an https:// address, got {raw['source']!r:.80}")
    if not isinstance(raw["note"], str) or not raw["note"].strip():
        raise ValueError(f"{where}: 'note' must be a non-empty string, got {raw['note']!r:.80}")
    unstated = raw["unstated"]
    if not isinstance(unstated, dict) or not all(isinstance(v, str) and v.strip() for v in unstated.values()):
        raise ValueError(f"{where}: 'unstated' must map field names to reasons (non-empty strings), got {unstated!r:.80}")
    for key in ("min_prefix_tokens", "lifetime_minutes", "breakpoint"):
        if (raw[key] is None) != (key in unstated):
            raise ValueError(f"{where}: {key!r} is null exactly when 'unstated' gives a reason for it; got "
                             f"{raw[key]!r} with reason {unstated.get(key)!r:.60}")
    return CachingRules(raw["min_prefix_tokens"], raw["lifetime_minutes"], raw["breakpoint"], raw["checked"],
                        raw["source"], dict(unstated), raw["note"])


def _row(raw: Any, where: str) -> ModelInfo:
    if not isinstance(raw, dict):
        raise ValueError(f"{where} must be an object, got {type(raw).__name__}")
    missing = [k for k in ROW_KEYS if k not in raw]
    unknown = sorted(set(raw) - set(ROW_KEYS))
    if missing or unknown:
        raise ValueError(f"{where}: missing keys {missing}, unknown keys {unknown}")
    for key in ("model", "provider", "tokenizer", "note"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise ValueError(f"{where}: {key!r} must be a non-empty string, got {raw[key]!r:.80}")
    if raw["kind"] not in KINDS:
        raise ValueError(f"{where}: 'kind' must be one of {KINDS}, got {raw['kind']!r}")
    for key, none_ok in (("context_window", False), ("max_output_tokens", True)):
        value = raw[key]
        if value is None and none_ok:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"{where}: {key!r} must be a positive int{' or null' if none_ok else ''}, got {value!r}")
    for key in ("price_input", "price_output", "price_cached_input", "price_cache_write"):
        value = raw[key]
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0):
            raise ValueError(f"{where}: {key!r} must be a price >= 0 or null, got {value!r}")
    if (raw["price_input"] is None) != (raw["price_output"] is None):
        raise ValueError(f"{where}: give both 'price_input' and 'price_output', or neither")
    if raw["price_cached_input"] is not None and raw["price_input"] is not None and raw["price_cached_input"] > raw["price_input"]:
        raise ValueError(f"{where}: 'price_cached_input' ({raw['price_cached_input']}) is above 'price_input'")
    if not isinstance(raw["checked"], str) or not DATE.match(raw["checked"]):
        raise ValueError(f"{where}: 'checked' must be a date YYYY-MM-DD, got {raw['checked']!r}")
    if not isinstance(raw["source"], str) or not raw["source"].startswith("https://"):
        raise ValueError(f"{where}: 'source' must be an https:// address, got {raw['source']!r:.80}")
    return ModelInfo(**{k: raw[k] for k in ROW_KEYS if k != "caching"}, caching=_caching(raw["caching"], where))


def models_from_dict(raw: Any, where: str = "models.json") -> tuple[ModelInfo, ...]:
    """Check a decoded models file and return its rows (ValueError naming the row and key)."""
    if not isinstance(raw, dict) or not isinstance(raw.get("models"), list) or not raw["models"]:
        raise ValueError(f"{where}: the top level must be an object with a non-empty 'models' list")
    rows = tuple(_row(entry, f"{where}: models[{i}]") for i, entry in enumerate(raw["models"]))
    names = [row.model.lower() for row in rows]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"{where}: models repeated: {repeated}")
    return rows


def load_models() -> tuple[ModelInfo, ...]:
    """The rows of ``course_utils/data/models.json``, checked."""
    text = resources.files("course_utils").joinpath("data", "models.json").read_text(encoding="utf-8")
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"models.json is not valid JSON: {exc}") from None
    return models_from_dict(raw)


#: Every model of the data file, in its order.
MODELS = load_models()
#: The caveat that goes with every use of the table.
MODELS_NOTE = (
    "Limits and prices as each source stated them on the date in 'checked' (models.json). They change, "
    "differ between versions and platforms, and some providers charge more above a prompt length: "
    "check your provider's page before relying on them."
)


def model_info(model: str) -> ModelInfo:
    """The row of a model, by name (case-insensitive)."""
    if not isinstance(model, str):
        raise TypeError(f"model must be a str, got {type(model).__name__}: {model!r:.80}")
    for row in MODELS:
        if row.model.lower() == model.strip().lower():
            return row
    raise ValueError(f"model must be one of {[row.model for row in MODELS]}, got {model!r}")


def priced_models(*, caching: bool = False) -> tuple[ModelInfo, ...]:
    """The models with prices (and, with ``caching=True``, a cached-input price), cheapest input first."""
    rows = [m for m in MODELS if m.has_prices and (not caching or m.price_cached_input is not None)]
    return tuple(sorted(rows, key=lambda m: (m.price_input, m.price_output, m.model)))


@functools.lru_cache(maxsize=None)
def approximate_worst_ratio(language: str = "en") -> float:
    """How many times too low the approximate counter can be for ``language``: the worst exact /
    approximate ratio measured on the course's dialogue in it (``calibration.sample_errors``, lesson
    01), over every tokenizer the course counts exactly. An unknown tokenizer may differ more."""
    return max(sample_errors(encoding, calibrated=False)[language].worst for encoding in ENCODING_NAMES)


@dataclass(frozen=True)
class CounterChoice:
    """How the course counts tokens for one tokenizer family, and the margin M that goes with it."""

    tokenizer: str
    counter: TokenCounter
    exact: bool
    language: str = "en"  #: the language the margin is sized for (en, fa or zh)

    def margin(self, limit: int) -> int:
        """M for a window of ``limit`` tokens: 5% of L when counting exactly; when counting
        approximately, the margin that covers the counter's measured error (``calibration.safety_margin``),
        and never less than 5%."""
        base = math.ceil(EXACT_MARGIN_SHARE * limit)
        return base if self.exact else max(base, safety_margin(limit, approximate_worst_ratio(self.language)))

    @property
    def margin_share(self) -> float:
        """M as a share of L (on a million-token window, so rounding does not show)."""
        return self.margin(1_000_000) / 1_000_000

    @property
    def label(self) -> str:
        """"exact (cl100k_base)" or "approximate, margin 9% (en)"."""
        if self.exact:
            return _("exact ({tokenizer})").format(tokenizer=self.tokenizer)
        return _("approximate, margin {share:.0%} ({language})").format(share=self.margin_share, language=self.language)


def counter_for_tokenizer(tokenizer: str, language: str = "en") -> CounterChoice:
    """The counter for a tokenizer family: its exact counter where the course has one (and its
    vocabulary verified), otherwise the approximate counter with a margin sized from the measured
    error for ``language``."""
    if not isinstance(tokenizer, str) or not tokenizer.strip():
        raise TypeError(f"tokenizer must be a non-empty str, got {tokenizer!r:.80}")
    if language not in ("en", "fa", "zh"):
        raise ValueError(f"language must be one of ('en', 'fa', 'zh'), got {language!r}")
    if tokenizer in EXACT_COUNTERS:
        counter = get_token_counter(EXACT_COUNTERS[tokenizer])
        # A vocabulary that failed verification falls back to approximate counting (tokens.py says so).
        if getattr(counter, "exact", True):
            return CounterChoice(tokenizer, counter, True, language)
    return CounterChoice(tokenizer, get_token_counter("approximate"), False, language)


__all__ = [
    "BREAKPOINTS",
    "CACHING_KEYS",
    "CachingRules",
    "approximate_worst_ratio",
    "EXACT_COUNTERS",
    "EXACT_MARGIN_SHARE",
    "MODELS",
    "MODELS_NOTE",
    "CounterChoice",
    "ModelInfo",
    "counter_for_tokenizer",
    "load_models",
    "model_info",
    "models_from_dict",
    "priced_models",
]
