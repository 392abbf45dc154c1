"""course_utils.core.columns: text tables that line up in English (byte for byte as f-strings) and in Persian."""

from __future__ import annotations

import pytest

from course_utils.core import i18n
from course_utils.core.columns import LRI, text_table, visible_width


@pytest.fixture
def persian():
    i18n.set_language("fa")
    yield
    i18n.set_language("en")


def test_english_is_what_the_f_strings_printed():
    # lesson 04b's comparison table, as it was printed before text_table
    rows = [(1, True, True, True), (7, True, False, True)]
    before = ["turn  same reply  same number stored  same summary"] + [
        f"{a:>4}  {b!s:>10}  {c!s:>18}  {d!s:>12}" for a, b, c, d in rows]
    assert text_table(rows, header=["turn", "same reply", "same number stored", "same summary"]) == "\n".join(before)
    # left-aligned columns with least widths; the last one is not padded
    rows = [("name", "Sara", "stated at turn 1 and 24"), ("favourite food", "mushroom risotto", "stated at turn 28")]
    before = [f"{a:<15} {b:<17} {c}" for a, b, c in rows]
    assert text_table(rows, align="<<<", widths=(15, 17, 0), sep=" ") == "\n".join(before)


def test_persian_runs_right_to_left_with_every_line_as_wide(persian):
    table = text_table([(1, "Sara"), (24, "Valencia")], header=[i18n._("turn"), "value"])
    lines = table.splitlines()
    assert all(line.startswith(LRI) and line.endswith(i18n.PDI) for line in lines)
    assert lines[0].endswith(f"{i18n.RLI}نوبت{i18n.PDI}{i18n.PDI}")  # the first column at the right
    assert lines[2] == f"{LRI}Valencia  {24:>4}{i18n.PDI}"  # cells flush right, the last column at the left
    assert len({visible_width(line) for line in lines}) == 1


def test_visible_width_skips_isolates_joiners_and_marks():
    assert visible_width("\u2067پیام‌ها\u2069") == 6
    assert visible_width("نسخهٔ") == 4  # the hamza above is a combining mark


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(rows="ab"), TypeError, "rows must be a list of rows"),
    (dict(rows=[1]), TypeError, r"rows\[0\] must be a list of cells"),
    (dict(rows=[]), ValueError, "needs a header or at least one row"),
    (dict(rows=[(1, 2), (3,)]), ValueError, "every row must have 2 cells"),
    (dict(rows=[(1, 2)], align="<"), ValueError, "align must be a string of 2"),
    (dict(rows=[(1, 2)], widths=(1, -1)), ValueError, "widths must be 2 whole numbers"),
    (dict(rows=[(1, 2)], sep=1), TypeError, "sep must be a string"),
])
def test_bad_input_is_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        text_table(**kwargs)
