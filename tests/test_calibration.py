"""Calibrating the approximate counter and deriving the safety margin M (lessons 01, 05)."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.messages.utils import count_tokens_approximately

from course_utils.window.calibration import (
    CALIBRATION_MESSAGES,
    calibrate_chars_per_token,
    histories,
    measure_error,
    safety_margin,
    sample_errors,
    sample_margin,
    with_usage_metadata,
)
from course_utils.core.samples import load_conversation
from course_utils.window.tokens import count_text_tokens, get_token_counter, message_text


@given(st.integers(1, 100_000), st.floats(0.1, 20))
def test_the_margin_keeps_the_true_count_inside_the_budget(budget, ratio):
    margin = safety_margin(budget, ratio)
    assert 0 <= margin <= budget
    if ratio > 1:
        # an estimate of budget - margin may be ratio times too low: the truth still fits
        assert (budget - margin) * ratio <= budget + 1e-6
        assert (budget - margin + 1) * ratio > budget - 1e-6 or margin == 0  # and M is no larger than needed
    else:
        assert margin == 0


def test_margin_examples_and_arguments():
    assert safety_margin(1848, 2.0) == 924
    assert safety_margin(1000, 1.25) == 200
    with pytest.raises(TypeError, match="budget must be an int"):
        safety_margin(10.5, 2)
    with pytest.raises(ValueError, match="budget must be >= 1"):
        safety_margin(0, 2)
    with pytest.raises(ValueError, match="worst_ratio must be a finite number > 0"):
        safety_margin(10, 0)
    with pytest.raises(TypeError, match="worst_ratio must be a number"):
        safety_margin(10, "2")


def test_measure_error_counts_every_call_input_and_the_whole():
    dialogue = load_conversation("dialogue_zh")
    calls = histories(dialogue)
    assert len(calls) == sum(isinstance(m, AIMessage) for m in dialogue) + 1 and calls[-1] == dialogue
    error = measure_error(dialogue, "o200k_base", label="zh")
    assert error.exact == tuple(get_token_counter("o200k_base")(h) for h in calls)
    assert error.approximate == tuple(count_tokens_approximately(h) for h in calls)
    assert error.worst == max(e / a for e, a in zip(error.exact, error.approximate))
    with pytest.raises(ValueError, match="chars_per_token must be a finite number > 0"):
        measure_error(dialogue, chars_per_token=0)
    with pytest.raises(ValueError, match="messages must hold at least one message"):
        measure_error([])


def test_calibration_is_characters_per_exact_token_rounded_down():
    dialogue = load_conversation("dialogue_fa")
    value = calibrate_chars_per_token(dialogue, "cl100k_base")
    texts = [message_text(m) for m in dialogue]
    exact = sum(len(t) for t in texts) / sum(count_text_tokens(t, "cl100k_base") for t in texts)
    assert value <= exact < value + 0.01
    with pytest.raises(ValueError, match="some text"):
        calibrate_chars_per_token([HumanMessage("")])


@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base", "llama3"])
def test_calibrating_per_language_shrinks_the_worst_error_and_the_margin(encoding):
    default, calibrated = sample_errors(encoding), sample_errors(encoding, calibrated=True)
    for language in ("fa", "zh"):
        assert default[language].worst > 1.3  # 4 characters a token is far too few tokens here
        assert abs(calibrated[language].worst - 1) < abs(default[language].worst - 1)
        assert calibrated[language].chars_per_token == calibrate_chars_per_token(
            load_conversation(f"dialogue_{language}")[:CALIBRATION_MESSAGES], encoding
        )
    worst = max(e.worst for e in calibrated.values())
    assert sample_margin(1848, encoding) == safety_margin(1848, worst)
    assert sample_margin(1848, encoding) < sample_margin(1848, encoding, calibrated=False)


def test_usage_metadata_scaling_corrects_at_most_a_quarter():
    for language in ("en", "fa", "zh"):
        dialogue = with_usage_metadata(load_conversation(f"dialogue_{language}"), "cl100k_base")
        last_ai = max(i for i, m in enumerate(dialogue) if isinstance(m, AIMessage))
        assert dialogue[last_ai].usage_metadata["total_tokens"] == get_token_counter("cl100k_base")(dialogue[: last_ai + 1])
        plain = count_tokens_approximately(dialogue)
        scaled = count_tokens_approximately(dialogue, use_usage_metadata_scaling=True)
        assert plain <= scaled <= math.ceil(plain * 1.25)
    # without a provider name (the offline model sets none) nothing is scaled
    bare = load_conversation("dialogue_zh")
    assert count_tokens_approximately(bare, use_usage_metadata_scaling=True) == count_tokens_approximately(bare)


def test_docstring_examples_of_the_tokenizer_modules():
    import doctest

    from course_utils.window import calibration
    from course_utils.pictures import token_view
    from course_utils.window import tokens
    from course_utils.window import vocab

    for module in (tokens, vocab, calibration, token_view):
        assert doctest.testmod(module).failed == 0, module.__name__
