"""Models' limits, tokenizers, prices and reasoning, from the data file ``course_utils/data/models.json`` (lessons 05 and 05b).

One row per model: its context window (and its cap on input where the
provider sets one below the window), its cap on output tokens, the family of
its tokenizer and how exact the course's count is for it, its prices (input,
output, cached input, cache write) in dollars per million tokens with any
higher band for long prompts, its caching rules, whether every reply carries
reasoning tokens, and for every row the date the course read its source and
the source's address. Numbers in a lesson come from here, never typed into
the lesson, so one edit of the data file updates every lesson.

The file is checked by a pydantic schema (:class:`ModelRow`): a missing or
misspelt key, a price below zero or a row without a date or a source is
refused with an error naming the row and the field.

Models a provider has shut down stay in the file as history (``status``
"retired", with the shutdown date and its source); :data:`CURRENT_MODELS`
leaves them out.

>>> info = model_info("Llama 3 8B Instruct")
>>> info.context_window, info.tokenizer, info.exact_tokenizer
(8192, 'llama3', True)
>>> model_info("GPT-4 (original)").retired.shutdown
'2026-10-23'

The tokenizer family decides how the course counts for a model:
:func:`counter_for_tokenizer` gives the exact counter where the course has
one, and otherwise the approximate counter with a safety margin to add.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from importlib import resources
import re
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from course_utils.window.calibration import safety_margin, sample_errors
from course_utils.window.costs import PriceBand, Prices
from course_utils.core.i18n import _
from course_utils.window.tokens import ENCODING_NAMES, TokenCounter, get_token_counter

#: The ways a provider sets a cache breakpoint, the kinds of model, and a row's statuses.
BREAKPOINTS = ("automatic prefix", "cache_control")
KINDS = ("hosted", "open weights")
STATUSES = ("current", "legacy", "retired")
#: The context_management.edits types Anthropic documents (lesson 08 reads ``context_management_edits``).
CONTEXT_EDITS = ("compact_20260112", "clear_tool_uses_20250919", "clear_thinking_20251015")
DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"
URL_PATTERN = r"^https://\S+$"

#: Tokenizer families the course counts exactly offline (verified vocabularies), and the counter for each.
EXACT_COUNTERS = {name: name for name in ENCODING_NAMES}

#: The margin (share of L) the course uses when it counts exactly (lesson 05's procedure): room for
#: the formatting tokens a provider adds around messages, not for counting error.
EXACT_MARGIN_SHARE = 0.05



def _date(value: str) -> str:
    if not re.match(DATE_PATTERN, value):
        raise ValueError(f"must be a date YYYY-MM-DD (the day the course read the source), got {value!r:.40}")
    return value


def _url(value: str) -> str:
    if not re.match(URL_PATTERN, value):
        raise ValueError(f"must be an https:// address of the source, got {value!r:.80}")
    return value


def _text(value: str) -> str:
    if not value.strip():
        raise ValueError("must be a non-empty string")
    return value


DateStr = Annotated[str, AfterValidator(_date)]
UrlStr = Annotated[str, AfterValidator(_url)]
TextStr = Annotated[str, AfterValidator(_text)]
Price = Optional[float]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=False)


class LongerLifetime(_Strict):
    """A longer cache lifetime a provider sells (Anthropic's 1 hour, OpenAI's 12 hours) and its write price."""

    minutes: Union[int, float] = Field(gt=0)
    price_cache_write: float = Field(ge=0)


class CachingRules(_Strict):
    """A provider's prompt-caching rules for one model, as its page stated them (the row's "caching").

    ``min_prefix_tokens``: the shortest prefix cached (below it nothing is
    read or written); ``lifetime_minutes``: how long an unused entry lives by
    default; ``breakpoint``: "automatic prefix" (the provider caches by
    itself) or "cache_control" (only where the request marks it). None means
    the page read did not state it; ``unstated`` says why, field by field.
    """

    min_prefix_tokens: Optional[int] = Field(ge=0)
    lifetime_minutes: Optional[Union[int, float]] = Field(gt=0)  # an int stays an int (printed as 30, not 30.0)
    breakpoint: Optional[Literal["automatic prefix", "cache_control"]]
    checked: DateStr
    source: UrlStr
    unstated: dict[str, str]
    note: TextStr
    longer_lifetime: Optional[LongerLifetime] = None

    @model_validator(mode="after")
    def _reasons_for_nulls(self):
        for key in ("min_prefix_tokens", "lifetime_minutes", "breakpoint"):
            if (getattr(self, key) is None) != (key in self.unstated):
                raise ValueError(f"{key!r} is null exactly when 'unstated' gives a reason for it; got "
                                 f"{getattr(self, key)!r} with reason {self.unstated.get(key)!r:.60}")
        if any(not reason.strip() for reason in self.unstated.values()):
            raise ValueError("'unstated' must map field names to reasons (non-empty strings)")
        return self

    @property
    def offered(self) -> bool:
        """Whether the provider caches prompts for this model at all (it names a way to set a breakpoint)."""
        return self.breakpoint is not None


class Band(_Strict):
    """A higher price band: a request whose input is above ``above_input_tokens`` pays these on every token."""

    above_input_tokens: int = Field(gt=0)
    price_input: float = Field(ge=0)
    price_output: float = Field(ge=0)
    price_cached_input: Price = Field(default=None, ge=0)
    price_cache_write: Price = Field(default=None, ge=0)


class Reasoning(_Strict):
    """Whether every reply carries reasoning (thinking) tokens, billed as output, and how much."""

    always: Optional[bool]  #: True: the model always reasons; False: only when asked or when it decides; None: unknown
    control: TextStr  #: how a request controls it (effort, budget, none)
    share: Optional[float] = Field(ge=0, lt=1)  #: reasoning tokens as a share of all output tokens
    share_basis: Literal["assumed", "measured", "published", "not applicable", "unknown"]
    checked: DateStr
    source: UrlStr
    note: TextStr

    @model_validator(mode="after")
    def _share_has_basis(self):
        if (self.share is None) != (self.share_basis in ("not applicable", "unknown")):
            raise ValueError(f"a share needs a basis ('assumed', 'measured' or 'published'), and only a share has one; "
                             f"got share={self.share!r}, share_basis={self.share_basis!r}")
        if self.always and self.share is None:
            raise ValueError("a model that always reasons needs a 'share' (and its basis) so bills can include it")
        return self


class Retirement(_Strict):
    """When a provider shut a model down, and where it said so."""

    shutdown: DateStr
    announced: DateStr
    checked: DateStr
    source: UrlStr


class ContextManagementSource(_Strict):
    """Where a row's context-management edits come from, and whether a page lists the model for them."""

    checked: DateStr
    source: UrlStr
    #: "listed": the source page names this model for every edit in the row; "assumed": no page the course
    #: read names it (the note says what the pages list), so the row is the course's assumption.
    basis: Literal["listed", "assumed"]
    note: TextStr


class ModelRow(_Strict):
    """One row of models.json, as the schema checks it."""

    model: TextStr
    model_id: TextStr
    provider: TextStr
    kind: Literal["hosted", "open weights"]
    status: Literal["current", "legacy", "retired"]
    retired: Optional[Retirement]
    context_window: int = Field(gt=0)
    max_input_tokens: Optional[int] = Field(gt=0)
    max_output_tokens: Optional[int] = Field(gt=0)
    tokenizer: TextStr
    tokenizer_note: TextStr
    price_input: Price = Field(ge=0)
    price_output: Price = Field(ge=0)
    price_cached_input: Price = Field(ge=0)
    price_cache_write: Price = Field(ge=0)
    price_bands: list[Band]
    checked: DateStr
    source: UrlStr
    note: TextStr
    caching: CachingRules
    reasoning: Reasoning
    context_management_edits: Optional[list[Literal["compact_20260112", "clear_tool_uses_20250919",
                                                    "clear_thinking_20251015"]]]
    context_management: Optional[ContextManagementSource]

    @field_validator("context_window", "max_input_tokens", "max_output_tokens", mode="before")
    @classmethod
    def _no_bool(cls, value):
        if isinstance(value, bool):
            raise ValueError("must be an int, not a bool")
        return value

    @model_validator(mode="after")
    def _consistent(self):
        if (self.price_input is None) != (self.price_output is None):
            raise ValueError("give both 'price_input' and 'price_output', or neither")
        if self.price_cached_input is not None and self.price_input is not None and self.price_cached_input > self.price_input:
            raise ValueError(f"'price_cached_input' ({self.price_cached_input}) is above 'price_input'")
        if self.max_input_tokens is not None and self.max_input_tokens >= self.context_window:
            raise ValueError(f"'max_input_tokens' ({self.max_input_tokens}) is given only when it is below the window "
                             f"({self.context_window}); leave it null otherwise")
        if (self.status == "retired") != (self.retired is not None):
            raise ValueError("'retired' (shutdown date and source) is given exactly when 'status' is 'retired'")
        if self.price_bands and self.price_input is None:
            raise ValueError("'price_bands' need the row's own prices")
        edges = [band.above_input_tokens for band in self.price_bands]
        if edges != sorted(set(edges)):
            raise ValueError(f"'price_bands' must be in increasing 'above_input_tokens', got {edges}")
        if (self.context_management_edits is None) != (self.context_management is None):
            raise ValueError("'context_management_edits' needs its 'context_management' source, and only it has one")
        if self.provider == "Anthropic" and self.status != "retired" and self.context_management_edits is None:
            raise ValueError("an Anthropic model lists its 'context_management_edits' (an empty list if none)")
        return self


class ModelsFile(_Strict):
    title: str = ""
    description: str = ""
    checked_note: str = ""
    models: list[ModelRow] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self):
        names = [row.model.lower() for row in self.models]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"models repeated: {repeated}")
        return self


@dataclass(frozen=True, eq=False)
class ModelInfo:
    """One row of models.json, checked (:class:`ModelRow`), with what the course computes from it.

    The row's fields read as attributes (``info.context_window``, ``info.caching``, ``info.reasoning``).
    Rows are loaded once, so two infos are equal when they are the same row.
    """

    row: ModelRow

    def __getattr__(self, name: str) -> Any:
        if name == "row" or name.startswith("__"):  # never hand the row's own protocol methods (copy, pickle) out
            raise AttributeError(name)
        return getattr(self.row, name)

    @property
    def callable(self) -> bool:
        """Whether a learner can still call this model (not retired)."""
        return self.row.status != "retired"

    @property
    def input_cap(self) -> int:
        """The most input tokens one request may carry: ``max_input_tokens`` where set, else the window."""
        return self.row.max_input_tokens or self.row.context_window

    @property
    def exact_tokenizer(self) -> bool:
        """Whether the course can count this model's tokens exactly."""
        return self.row.tokenizer in EXACT_COUNTERS

    @property
    def has_prices(self) -> bool:
        return self.row.price_input is not None and self.row.price_output is not None

    @property
    def prices(self) -> Prices:
        """The row's prices, price bands and default cache lifetime (ValueError when the source gave no prices)."""
        return self.prices_with()

    def prices_with(self, *, lifetime: str = "default", reasoning: bool = False) -> Prices:
        """The row's prices with a choice of cache lifetime and of reasoning.

        ``lifetime``: "default" (the provider's default lifetime and write
        price) or "longer" (the longer lifetime it sells, e.g. Anthropic's 1
        hour, at its higher write price). ``reasoning=True`` adds the row's
        reasoning share to every reply's output (a model that always reasons
        bills it; see ``reasoning.share`` and its basis).
        """
        if not self.has_prices:
            raise ValueError(f"model {self.model!r} has no prices in models.json (its source did not state them)")
        if lifetime not in ("default", "longer"):
            raise ValueError(f"lifetime must be 'default' or 'longer', got {lifetime!r}")
        rules = self.row.caching
        cached = self.row.price_cached_input if rules.offered else None
        write, minutes = self.row.price_cache_write, rules.lifetime_minutes
        if lifetime == "longer":
            if rules.longer_lifetime is None:
                raise ValueError(f"model {self.model!r}: its provider sells no longer cache lifetime in models.json")
            write, minutes = rules.longer_lifetime.price_cache_write, rules.longer_lifetime.minutes
        share = self.row.reasoning.share if reasoning and self.row.reasoning.share is not None else 0.0
        bands = tuple(PriceBand(b.above_input_tokens, b.price_input, b.price_output, b.price_cached_input,
                                b.price_cache_write) for b in self.row.price_bands)
        return Prices(self.row.price_input, self.row.price_output, cached, write,
                      min_cached_tokens=rules.min_prefix_tokens or 0, bands=bands,
                      cache_lifetime_minutes=minutes, reasoning_share=share)

    @property
    def cache_write_premium(self) -> float | None:
        """How many times the input price a cache write costs (1.0: no premium; None: no caching or no prices)."""
        if not self.has_prices or not self.caching.offered or self.price_cached_input is None:
            return None
        return (self.price_cache_write if self.price_cache_write is not None else self.price_input) / self.price_input


def _where(loc: tuple) -> str:
    parts = []
    for item in loc:
        parts.append(f"[{item}]" if isinstance(item, int) else (("." if parts else "") + str(item)))
    return "".join(parts)


def models_from_dict(raw: Any, where: str = "models.json") -> tuple[ModelInfo, ...]:
    """Check a decoded models file with the schema and return its rows.

    An error names the file, the row (by index and model name) and the field,
    and says what was expected:

    >>> models_from_dict({"title": "t", "description": "d", "checked_note": "c", "models": []})
    Traceback (most recent call last):
    ...
    ValueError: models.json: models: List should have at least 1 item after validation, not 0
    """
    try:
        checked = ModelsFile.model_validate(raw)
    except ValidationError as exc:
        lines = []
        for error in exc.errors():
            loc = error["loc"]
            name = ""
            if len(loc) >= 2 and loc[0] == "models" and isinstance(loc[1], int):
                try:
                    name = f" ({raw['models'][loc[1]].get('model')!r})"
                except (AttributeError, IndexError, KeyError, TypeError):
                    name = ""
            lines.append(f"{where}: {_where(loc)}{name}: {error['msg']}")
        raise ValueError("\n".join(lines) + ("\n(fix the row in course_utils/data/models.json; the schema is "
                                              "course_utils.window.models.ModelRow)" if len(lines) > 1 else "")) from None
    return tuple(ModelInfo(row) for row in checked.models)


def load_models() -> tuple[ModelInfo, ...]:
    """The rows of ``course_utils/data/models.json``, checked."""
    text = resources.files("course_utils").joinpath("data", "models.json").read_text(encoding="utf-8")
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"models.json is not valid JSON: {exc}") from None
    return models_from_dict(raw)


#: Every model of the data file, in its order, retired ones (history) included.
MODELS = load_models()
#: The models a learner can call today (current and legacy), in the file's order.
CURRENT_MODELS = tuple(m for m in MODELS if m.callable)
#: Models shut down by their provider, kept as history.
RETIRED_MODELS = tuple(m for m in MODELS if not m.callable)
#: The caveat that goes with every use of the table.
MODELS_NOTE = (
    "Limits and prices as each source stated them on the date in 'checked' (models.json). They change, "
    "differ between versions and platforms, and some providers charge more above a prompt length: "
    "check your provider's page before relying on them."
)


def model_info(model: str) -> ModelInfo:
    """The row of a model, by name or API id (case-insensitive); retired rows too (check ``.callable``)."""
    if not isinstance(model, str):
        raise TypeError(f"model must be a str, got {type(model).__name__}: {model!r:.80}")
    wanted = model.strip().lower()
    for row in MODELS:
        if wanted in (row.model.lower(), row.model_id.lower()):
            return row
    raise ValueError(f"model must be one of {[row.model for row in MODELS]}, got {model!r}")


def priced_models(*, caching: bool = False) -> tuple[ModelInfo, ...]:
    """The callable models with prices (and, with ``caching=True``, a cached-input price), cheapest input first."""
    rows = [m for m in CURRENT_MODELS if m.has_prices and (not caching or m.price_cached_input is not None)]
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
    "CONTEXT_EDITS",
    "CURRENT_MODELS",
    "CachingRules",
    "ModelRow",
    "RETIRED_MODELS",
    "Reasoning",
    "STATUSES",
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
