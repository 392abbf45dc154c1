"""Budgets: the course's three worked numbers, the working lines, properties, bad input."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from course_utils.window.budget import (
    BudgetWorking,
    OverflowWorking,
    budget_working,
    history_budget,
    input_overflow,
    overflow_working,
)

# --- the worked examples of lessons 01, 02 and 05 -----------------------------------


def test_lesson_01_input_is_80_tokens_over():
    assert input_overflow(1000, 700, 200, 180) == 80
    working = overflow_working(1000, history=700, prompt=200, tools=180)
    assert isinstance(working, OverflowWorking)
    assert working.over == 80 and not working.fits and working.total == 1080
    assert working.lines == ["700 + 200 + 180 = 1080 > 1000: 80 tokens over"]
    assert str(working) == "700 + 200 + 180 = 1080 > 1000: 80 tokens over"
    assert working.to_rows() == [
        {"label": "history", "tokens": 700},
        {"label": "prompt", "tokens": 200},
        {"label": "tools", "tokens": 180},
    ]


def test_fitting_input():
    assert input_overflow(1000, 600, 200, 180) == -20
    assert input_overflow(1000, 1000) == 0
    working = overflow_working(1000, history=600, prompt=200, tools=180)
    assert working.fits and working.over == -20
    assert working.line == "600 + 200 + 180 = 980 <= 1000: fits, 20 tokens to spare"
    assert overflow_working(1000, history=1000).line == "1000 = 1000 <= 1000: fits, 0 tokens to spare"


def test_lesson_02_history_budget_is_2866():
    assert history_budget(4096, 350, 180, 700) == 2866
    assert history_budget(limit=4096, system=350, user=180, reserve=700, margin=0) == 2866
    working = budget_working(4096, 350, 180, 700)
    assert isinstance(working, BudgetWorking)
    assert working.lines == ["4096 - 350 = 3746", "3746 - 180 = 3566", "3566 - 700 = 2866"]
    assert working.budget == 2866
    assert working.formula == "B = L - S - U - R"
    assert [step.label for step in working.steps] == ["system prompt", "user input", "reply reserve"]
    assert str(working).splitlines() == ["B = L - S - U - R", *working.lines, "B = 2866"]


def test_lesson_05_history_ceiling_is_5892():
    assert history_budget(8192, 500, 300, 1200, margin=300) == 5892
    working = budget_working(8192, 500, 300, 1200, margin=300)
    assert working.lines == ["8192 - 500 = 7692", "7692 - 300 = 7392", "7392 - 1200 = 6192", "6192 - 300 = 5892"]
    assert working.budget == 5892
    assert working.name == "H_max"
    assert working.formula == "H_max = L - S - U - R - M"
    assert [step.symbol for step in working.steps] == ["S", "U", "R", "M"]
    assert working.steps[-1].label == "safety margin"


def test_waterfall_rows_start_at_the_limit_and_end_at_the_budget():
    rows = budget_working(8192, 500, 300, 1200, margin=300).to_rows()
    assert rows[0] == {"label": "context limit", "symbol": "L", "tokens": 8192, "before": 0, "after": 8192}
    assert rows[-1]["label"] == "history" and rows[-1]["tokens"] == 5892
    for earlier, later in zip(rows[:-2], rows[1:-1]):
        assert later["before"] == earlier["after"]
        assert later["after"] == later["before"] - later["tokens"]


# --- properties ----------------------------------------------------------------------

parts = st.integers(min_value=0, max_value=50_000)


@given(limit=st.integers(1, 200_000), system=parts, user=parts, reserve=parts, margin=parts)
def test_budget_and_parts_add_up_to_the_limit(limit, system, user, reserve, margin):
    if system + user + reserve + margin >= limit:
        with pytest.raises(ValueError, match="no room left for history"):
            history_budget(limit, system, user, reserve, margin)
        return
    budget = history_budget(limit, system, user, reserve, margin)
    assert budget > 0
    assert budget + system + user + reserve + margin == limit
    working = budget_working(limit, system, user, reserve, margin)
    assert working.budget == budget
    assert len(working.lines) == (4 if margin else 3)


@given(
    limit=st.integers(10_000, 200_000),
    system=st.integers(0, 2000),
    user=st.integers(0, 2000),
    reserve=st.integers(0, 2000),
    margin=st.integers(0, 2000),
    more=st.integers(1, 2000),
)
def test_raising_the_reserve_or_the_margin_lowers_the_ceiling(limit, system, user, reserve, margin, more):
    ceiling = history_budget(limit, system, user, reserve, margin)
    assert history_budget(limit, system, user, reserve + more, margin) == ceiling - more
    assert history_budget(limit, system, user, reserve, margin + more) == ceiling - more


@given(limit=st.integers(1, 100_000), values=st.lists(st.integers(0, 100_000), min_size=1, max_size=8))
def test_overflow_is_sum_minus_limit(limit, values):
    over = input_overflow(limit, *values)
    assert over == sum(values) - limit
    working = overflow_working(limit, **{f"part{i}": v for i, v in enumerate(values)})
    assert working.over == over and working.fits == (over <= 0)


# --- bad input -----------------------------------------------------------------------------

GOOD = dict(limit=4096, system=350, user=180, reserve=700, margin=0)


@pytest.mark.parametrize("parameter", list(GOOD))
@pytest.mark.parametrize("bad", [True, 350.0, "350", None, [350]])
def test_wrong_types_raise_type_error_naming_the_parameter(parameter, bad):
    with pytest.raises(TypeError, match=rf"^{parameter} must be an int .*got {type(bad).__name__}"):
        history_budget(**{**GOOD, parameter: bad})
    with pytest.raises(TypeError, match=rf"^{parameter} must be an int"):
        budget_working(**{**GOOD, parameter: bad})


@pytest.mark.parametrize("parameter", ["system", "user", "reserve", "margin"])
def test_negative_parts_raise_value_error_naming_the_parameter_and_value(parameter):
    with pytest.raises(ValueError, match=rf"^{parameter} must be zero or more tokens, got -5$"):
        history_budget(**{**GOOD, parameter: -5})


@pytest.mark.parametrize("limit", [0, -4096])
def test_limit_must_be_positive(limit):
    with pytest.raises(ValueError, match=rf"^limit must be a positive number of tokens, got {limit}$"):
        history_budget(**{**GOOD, "limit": limit})
    with pytest.raises(ValueError, match="^limit must be a positive"):
        input_overflow(limit, 10)


def test_no_room_left_names_every_part_and_the_sum():
    message = "no room left for history: system (3000) + user (800) + reserve (700) + margin (0) = 4500 >= limit (4096)"
    with pytest.raises(ValueError) as error:
        history_budget(4096, 3000, 800, 700)
    assert str(error.value) == message
    with pytest.raises(ValueError, match="= 4096 >= limit \\(4096\\)"):  # a budget of exactly 0 is no room
        budget_working(4096, 3000, 396, 700)
    assert history_budget(4096, 3000, 395, 700) == 1


def test_input_overflow_bad_parts():
    with pytest.raises(ValueError, match="parts must hold at least one token count"):
        input_overflow(1000)
    with pytest.raises(TypeError, match=r"^parts\[1\] must be an int .*got float: 200.5"):
        input_overflow(1000, 700, 200.5, 180)
    with pytest.raises(ValueError, match=r"^parts\[2\] must be zero or more tokens, got -1"):
        input_overflow(1000, 700, 200, -1)
    with pytest.raises(TypeError, match=r"^parts\[0\] must be an int .*got bool"):
        input_overflow(1000, True)
    with pytest.raises(TypeError, match="^limit must be an int"):
        input_overflow("1000", 700)


def test_overflow_working_bad_parts():
    with pytest.raises(ValueError, match="parts must hold at least one named token count"):
        overflow_working(1000)
    with pytest.raises(TypeError, match="^tools must be an int .*got NoneType"):
        overflow_working(1000, history=700, tools=None)
    with pytest.raises(ValueError, match="^prompt must be zero or more tokens, got -200"):
        overflow_working(1000, history=700, prompt=-200)
