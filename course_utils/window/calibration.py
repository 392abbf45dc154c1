"""How wrong the approximate counter is, per language and tokenizer, and the safety margin that covers it (lessons 01, 05).

langchain_core's ``count_tokens_approximately`` assumes ``chars_per_token``
characters a token (4 by default, an English figure). This module measures
the error of that assumption against an exact tokenizer, calibrates
``chars_per_token`` for a language, and turns the worst error left into a
safety margin M for the history budget:

- :func:`measure_error`: exact / approximate for every history of a
  conversation (each prefix that ends with a model call's input), so the
  worst ratio is the worst a real call would meet.
- :func:`calibrate_chars_per_token`: characters per exact token of a text,
  the number to pass as ``chars_per_token``.
- :func:`safety_margin`: the M that keeps the true count inside a budget
  when the estimate may be ``worst_ratio`` times too low.
- :func:`with_usage_metadata`: a conversation whose AI messages carry the
  ``usage_metadata`` a provider would have reported, to see what
  ``use_usage_metadata_scaling`` can correct.

>>> safety_margin(1000, 1.25)
200
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.messages.utils import count_tokens_approximately

from course_utils.core.args import check_text
from course_utils.window.tokens import check_encoding, check_messages, get_token_counter, message_text


def _check_positive(value: object, parameter: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{parameter} must be a number, got {type(value).__name__}: {value!r:.80}")
    if not value > 0 or math.isinf(value):
        raise ValueError(f"{parameter} must be a finite number > 0, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class CounterError:
    """Exact / approximate token counts over every history of one conversation."""

    label: str  #: e.g. the language
    encoding: str  #: the exact tokenizer compared against
    chars_per_token: float  #: what the approximate counter assumed
    exact: tuple[int, ...]  #: exact count of each history (prefix ending before a reply, and the whole)
    approximate: tuple[int, ...]

    @property
    def ratios(self) -> tuple[float, ...]:
        """exact / approximate for each history: above 1 the estimate is too low."""
        return tuple(e / a for e, a in zip(self.exact, self.approximate))

    @property
    def worst(self) -> float:
        """The largest exact / approximate ratio: how many times too low the estimate can be."""
        return max(self.ratios)

    @property
    def whole(self) -> float:
        """exact / approximate for the whole conversation."""
        return self.exact[-1] / self.approximate[-1]


def histories(messages: Sequence[BaseMessage]) -> list[list[BaseMessage]]:
    """What each model call of a replay sends (the messages before each AI message), and the whole list."""
    messages = check_messages(messages)
    found = [messages[:i] for i, m in enumerate(messages) if isinstance(m, AIMessage) and i > 0]
    return [*found, messages]


def measure_error(
    messages: Sequence[BaseMessage], encoding: str = "cl100k_base", *, chars_per_token: float = 4.0, label: str = ""
) -> CounterError:
    """Compare ``count_tokens_approximately(..., chars_per_token=...)`` with an exact count, history by history.

    >>> from course_utils.core.samples import load_conversation
    >>> error = measure_error(load_conversation("dialogue_en"), "cl100k_base")
    >>> 0.8 < error.whole < 1.2
    True
    """
    messages = check_messages(messages)
    if not messages:
        raise ValueError("messages must hold at least one message, got an empty list")
    encoding = check_encoding(encoding)
    chars_per_token = _check_positive(chars_per_token, "chars_per_token")
    check_text(label, "label")
    exact = get_token_counter(encoding)
    calls = histories(messages)
    return CounterError(
        label,
        encoding,
        chars_per_token,
        tuple(exact(h) for h in calls),
        tuple(count_tokens_approximately(h, chars_per_token=chars_per_token) for h in calls),
    )


def calibrate_chars_per_token(messages: Sequence[BaseMessage], encoding: str = "cl100k_base") -> float:
    """Characters per exact token in the messages' text, rounded down to 2 decimals (rounding down overcounts: safe).

    Pass the result as ``count_tokens_approximately(..., chars_per_token=...)``
    for text like this, in this language, for this tokenizer.

    >>> from course_utils.core.samples import load_conversation
    >>> calibrate_chars_per_token(load_conversation("dialogue_zh"), "cl100k_base") < 1
    True
    """
    messages = check_messages(messages)
    encoding = check_encoding(encoding)
    from course_utils.window.tokens import count_text_tokens

    texts = [message_text(m) for m in messages]
    chars = sum(len(t) for t in texts)
    tokens = sum(count_text_tokens(t, encoding) for t in texts)
    if chars == 0 or tokens == 0:
        raise ValueError("messages must contain some text to calibrate on, got none")
    return math.floor(100 * chars / tokens) / 100


def safety_margin(budget: int, worst_ratio: float) -> int:
    """The margin M that keeps a history inside ``budget`` when its estimate may be ``worst_ratio`` times too low.

    Trimming to an estimated H_max = budget - M keeps the true count at most
    worst_ratio x H_max, which is within budget when
    M = ceil(budget x (1 - 1 / worst_ratio)). A ratio of 1 or less (the
    estimate is never too low) needs no margin.

    >>> safety_margin(2000, 2.0), safety_margin(2000, 0.9)
    (1000, 0)
    """
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise TypeError(f"budget must be an int, got {type(budget).__name__}: {budget!r:.80}")
    if budget < 1:
        raise ValueError(f"budget must be >= 1, got {budget}")
    worst_ratio = _check_positive(worst_ratio, "worst_ratio")
    if worst_ratio <= 1:
        return 0
    return math.ceil(round(budget * (1 - 1 / worst_ratio), 9))


def with_usage_metadata(
    messages: Sequence[BaseMessage], encoding: str = "cl100k_base", provider: str = "openai"
) -> list[BaseMessage]:
    """Copies of ``messages`` whose AI messages report the usage a provider would have returned.

    Each AI message gets ``usage_metadata`` whose ``total_tokens`` is the
    exact count of the conversation up to and including it (its input plus
    its own tokens), and ``response_metadata["model_provider"]`` (which
    LangChain's provider integrations set), so that
    ``count_tokens_approximately(..., use_usage_metadata_scaling=True)`` has
    real numbers to scale by. The offline model reports usage but no
    provider, so without this its history is not scaled at all.
    """
    messages = check_messages(messages)
    encoding = check_encoding(encoding)
    check_text(provider, "provider")
    exact = get_token_counter(encoding)
    copied: list[BaseMessage] = []
    for i, message in enumerate(messages):
        if isinstance(message, AIMessage):
            total = exact(messages[: i + 1])
            output = exact([message])
            message = message.model_copy(
                update={
                    "usage_metadata": {"input_tokens": total - output, "output_tokens": output, "total_tokens": total},
                    "response_metadata": {**message.response_metadata, "model_provider": provider},
                }
            )
        copied.append(message)
    return copied


#: The course's translated samples: language code -> the travel dialogue in it.
LANGUAGES = ("en", "fa", "zh")
#: How many of a dialogue's first messages :func:`sample_errors` calibrates on; the error is then
#: measured on every history of the whole dialogue, most of which the calibration never saw.
CALIBRATION_MESSAGES = 5


def sample_errors(encoding: str = "cl100k_base", *, calibrated: bool = False) -> dict[str, CounterError]:
    """The approximate counter's error on the course's en / fa / zh dialogues, for one tokenizer.

    With ``calibrated=True`` each language gets its own ``chars_per_token``,
    calibrated on the dialogue's first :data:`CALIBRATION_MESSAGES` messages
    only (its ``CounterError.chars_per_token`` says which); otherwise the
    default 4 characters a token.
    """
    from course_utils.core.samples import load_conversation

    encoding = check_encoding(encoding)
    if not isinstance(calibrated, bool):
        raise TypeError(f"calibrated must be True or False, got {type(calibrated).__name__}: {calibrated!r:.80}")
    errors = {}
    for language in LANGUAGES:
        dialogue = load_conversation(f"dialogue_{language}")
        chars_per_token = calibrate_chars_per_token(dialogue[:CALIBRATION_MESSAGES], encoding) if calibrated else 4.0
        errors[language] = measure_error(dialogue, encoding, chars_per_token=chars_per_token, label=language)
    return errors


def sample_margin(budget: int, encoding: str = "cl100k_base", *, calibrated: bool = True) -> int:
    """Lesson 05's safety margin M for ``budget``, derived from the error measured in lesson 01.

    The worst exact / approximate ratio over every history of the en / fa / zh
    dialogues (counted with ``encoding``; the approximate counter calibrated
    per language when ``calibrated``), turned into a margin by
    :func:`safety_margin`. Use it when you trim with the approximate counter;
    with the model's exact tokenizer the error is zero and so is this part
    of M.

    >>> sample_margin(1000, "cl100k_base", calibrated=True) < sample_margin(1000, "cl100k_base", calibrated=False)
    True
    """
    worst = max(error.worst for error in sample_errors(encoding, calibrated=calibrated).values())
    return safety_margin(budget, worst)
