"""The trim table at any length: short reports whole, long ones folded around the cut, every message accounted for.

Issue 20: the explorer's table must show every row it counts (no inner box
hiding rows). Issue 22: a 10,000-message thread must stay readable and small
enough to redraw on every slider move. The browser side (rows visible
against the summary) is in test_browser_inspect.py.
"""

from __future__ import annotations

import re

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from course_utils.core.samples import load_conversation
from course_utils.window.tokens import get_token_counter
from course_utils.pictures.trim_view import (
    FULL_ROWS,
    NO_TEXT,
    RUN_ROWS,
    table_segments,
    trim_region_html,
    trim_report_html,
    trim_table_html,
)
from course_utils.window.trimming import explain_trim
from course_utils.pictures.widgets import TrimExplorer

LONG = load_conversation("long_chat")


def long_thread(n: int) -> list:
    """n messages from the long chat, each a distinct message with its own id."""
    messages = [LONG[0]]
    body = LONG[1:]
    while len(messages) < n:
        m = body[(len(messages) - 1) % len(body)]
        messages.append(m.model_copy(update={"id": f"m-{len(messages)}"}))
    return messages


def drawn_counts(page: str) -> dict[str, int]:
    """Per status: rows drawn at the top level of the table plus the messages counted in folded runs."""
    counts = {"kept": 0, "partial": 0, "dropped": 0}
    for status in re.findall(r'<tr class="trim-row" data-status="(\w+)"', page):
        counts[status] += 1
    for status, n in re.findall(r'<tr class="trim-run" data-status="(\w+)" data-count="(\d+)"', page):
        counts[status] += int(n)
    return counts


def statuses(report) -> dict[str, int]:
    return {s: sum(r.status == s for r in report.rows) for s in ("kept", "partial", "dropped")}


def test_a_short_report_is_drawn_whole():
    report = explain_trim(LONG, max_tokens=800, token_counter=get_token_counter("approximate"))
    assert len(LONG) <= FULL_ROWS
    page = trim_table_html(report)
    assert page.count('class="trim-row"') == len(LONG) and "trim-run" not in page


@pytest.mark.parametrize("budget", [0, 500, 5_000, 60_000, 10**9])
def test_a_long_report_accounts_for_every_message(budget):
    messages = long_thread(3_000)
    report = explain_trim(messages, max_tokens=budget, token_counter="approximate", strategy="last", start_on="human",
                          include_system=True)
    page = trim_report_html(report, run_rows=RUN_ROWS)
    assert drawn_counts(page) == statuses(report)
    summary = re.search(r"(\d+) messages: (\d+) kept, (\d+) partial, (\d+) dropped", page)
    assert summary and [int(x) for x in summary.groups()] == [len(messages), *statuses(report).values()]
    folds = re.findall(r'data-first="(\d+)" data-last="(\d+)"', page)
    drawn = [int(i) for i in re.findall(r'<tr class="trim-row" data-status="\w+" data-index="(\d+)"', page)]
    covered = sorted(drawn + [i for a, b in folds for i in range(int(a), int(b) + 1)])
    assert covered == list(range(len(messages)))  # each message exactly once: a row, or inside one fold


def test_the_cut_is_drawn_with_its_neighbours():
    messages = long_thread(2_000)
    report = explain_trim(messages, max_tokens=3_000, token_counter="approximate")
    first_kept = next(r.index for r in report.rows if r.status == "kept")
    segments = table_segments(report.rows)
    drawn = {i for s in segments if not s.collapsed for i in range(s.start, s.stop)}
    assert set(range(first_kept - 6, first_kept + 6)) <= drawn
    assert {0, len(messages) - 1} <= drawn
    for s in segments:
        if s.collapsed:
            assert s.count >= 3 and len({(r.status, r.reason) for r in report.rows[s.start:s.stop]}) == 1


def test_a_fold_opens_onto_at_most_run_rows_and_says_how_many_it_leaves_out():
    report = explain_trim(long_thread(3_000), max_tokens=2_000, token_counter="approximate")
    page = trim_table_html(report, run_rows=40)
    gaps = re.findall(r"… ([\d,]+) more rows not drawn, all dropped \(over budget\)", page)
    assert gaps and page.count('class="trim-run-row"') <= 40 * page.count('class="trim-run"')
    whole = trim_table_html(report)  # the report's version: every row of every fold
    assert whole.count('class="trim-run-row"') + whole.count('class="trim-row"') == len(report.rows)


def test_text_can_be_left_out():
    report = explain_trim(LONG, max_tokens=800, token_counter="approximate")
    page = trim_report_html(report, text=False)
    assert page.count(NO_TEXT) >= len(LONG)
    assert "Pistachio" not in page and "Valencia" not in page


def test_the_row_cache_gives_the_same_html():
    messages = long_thread(500)
    cache: dict = {}
    for budget in (100, 3_000, 9_000, 3_000):
        report = explain_trim(messages, max_tokens=budget, token_counter="approximate")
        assert trim_report_html(report, cache=cache, run_rows=RUN_ROWS) == trim_report_html(report, run_rows=RUN_ROWS)
    assert cache


def test_the_explorer_on_10000_messages_sends_less_than_300_kib_per_move():
    explorer = TrimExplorer(long_thread(10_000), max_tokens=50_000)
    sizes = []
    for value in (1_000, 50_000, 200_000, explorer.max_tokens.max):
        explorer.max_tokens.value = value
        sizes.append(len(explorer.output.value.encode("utf-8")))
        assert drawn_counts(explorer.output.value) == statuses(explorer.report)
    assert max(sizes) < 300 * 1024, sizes


def test_the_region_is_named_reachable_and_never_a_fixed_height_box():
    page = trim_region_html("<table></table>", label="trim result")
    assert 'role="region"' in page and 'tabindex="0"' in page and 'aria-label="trim result"' in page
    assert "max-height" not in page and "overflow-y" not in page


def test_bad_arguments_name_the_parameter():
    report = explain_trim([HumanMessage("a"), AIMessage("b")], max_tokens=5, token_counter="approximate")
    with pytest.raises(TypeError, match="text"):
        trim_table_html(report, text="no")
    with pytest.raises(ValueError, match="run_rows"):
        trim_table_html(report, run_rows=1)
