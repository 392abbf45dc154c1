"""render.py and plots.py: the pictures say what the computed results say.

Every expected value here comes from the computing modules (explain_trim,
budget_working, replay_growth) or from the course brief's worked examples;
the tests read the HTML back with a parser rather than trusting substrings.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from course_utils.pictures import plots
from course_utils.pictures import render
from course_utils.window.budget import budget_working, overflow_working
from course_utils.window.growth import replay_growth
from course_utils.core.samples import load_conversation
from course_utils.window.tokens import dummy_token_counter, message_text
from course_utils.window.trimming import explain_trim


class Parsed(HTMLParser):
    """Collects elements: (tag, attrs, text inside), and every table row's cells."""

    def __init__(self, source: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[dict] = []
        self._open: list[dict] = []
        self.feed(source)

    def handle_starttag(self, tag, attrs):
        element = {"tag": tag, "attrs": dict(attrs), "text": "", "children": []}
        if self._open:
            self._open[-1]["children"].append(element)
        self.elements.append(element)
        if tag not in ("img", "br", "hr", "meta"):
            self._open.append(element)

    def handle_endtag(self, tag):
        while self._open:
            element = self._open.pop()
            if element["tag"] == tag:
                break

    def handle_data(self, data):
        for element in self._open:
            element["text"] += data

    def find(self, tag=None, **attrs):
        return [
            e
            for e in self.elements
            if (tag is None or e["tag"] == tag) and all(e["attrs"].get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]

    def rows(self, css_class: str) -> list[dict]:
        return [e for e in self.find("tr") if css_class in e["attrs"].get("class", "").split()]


def cells(row: dict) -> list[dict]:
    return [child for child in row["children"] if child["tag"] == "td"]


# reference_messages: the shared fixture in conftest.py (the page's five messages, from course_utils)


# --- trim report ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        dict(max_tokens=30, strategy="last"),
        dict(max_tokens=40, strategy="last", allow_partial=True, include_system=True),
        dict(max_tokens=35, strategy="first", allow_partial=True),
        dict(max_tokens=45, strategy="last", start_on="human", include_system=True),
    ],
)
def test_one_row_per_message_with_the_reports_status_tokens_and_reason(reference_messages, options):
    report = explain_trim(reference_messages, token_counter=dummy_token_counter, **options)
    page = Parsed(render.trim_report_html(report))
    rows = page.rows("trim-row")
    assert len(rows) == len(reference_messages)
    for row, html_row in zip(report.rows, rows):
        assert html_row["attrs"]["data-status"] == row.status
        assert int(html_row["attrs"]["data-index"]) == row.index
        ref, role, text, tokens, status, reason = (c["text"] for c in cells(html_row))
        assert ref == render.message_ref(row.index, row.message) and role == row.role and status == row.status and reason == row.reason
        expected_tokens = f"{row.kept_tokens} of {row.tokens}" if row.status == "partial" else str(row.tokens)
        assert tokens == expected_tokens
        assert text == render.preview(message_text(row.message), 80)


def test_partial_row_and_returned_list_show_the_kept_block(reference_messages):
    report = explain_trim(
        reference_messages, max_tokens=40, strategy="last", allow_partial=True, include_system=True,
        token_counter=dummy_token_counter,
    )
    statuses = [row.status for row in report.rows]
    assert "partial" in statuses  # the case the lesson discusses
    page = Parsed(render.trim_report_html(report))
    result = page.find("div", **{"class": "trim-result"})[0]
    items = [e for e in page.elements if e["tag"] == "li"]
    assert len(items) == len(report.result)
    for item, message in zip(items, report.result):
        assert type(message).__name__ in item["text"]
        assert render.preview(message_text(message), 200) in item["text"]
    kept_block = report.rows[statuses.index("partial")].kept
    assert message_text(kept_block) in result["text"]


def test_token_bar_is_the_kept_total_against_max_tokens(reference_messages):
    report = explain_trim(reference_messages, max_tokens=30, token_counter=dummy_token_counter)
    bar = Parsed(render.trim_report_html(report)).find("div", **{"class": "token-bar"})[0]
    assert int(bar["attrs"]["data-used"]) == report.result_tokens
    assert int(bar["attrs"]["data-budget"]) == 30
    assert f"kept {report.result_tokens} of 30 tokens (all messages: {report.total_tokens})" in bar["text"]


def test_token_bar_marks_a_result_over_budget_in_red():
    big_system = SystemMessage("x " * 400)
    report = explain_trim(
        [big_system, HumanMessage("hi")], max_tokens=20, include_system=True, token_counter="approximate"
    )
    assert report.over_budget  # include_system kept a system message bigger than the budget
    html = render.trim_report_html(report)
    assert f"{report.result_tokens - 20} over" in html
    assert "#c62828" in html
    assert "include_system keeps the system message" in html


def test_message_text_is_escaped_everywhere():
    nasty = '<script>alert("x")</script> & <b>bold</b>'
    report = explain_trim([HumanMessage(nasty), AIMessage("ok")], max_tokens=1000, token_counter="approximate")
    html = render.trim_report_html(report, preview_chars=500)
    assert "<script>" not in html and "<b>bold</b>" not in html
    assert html.count("&lt;script&gt;") == 2  # the row and the returned list
    parsed = Parsed(html)
    assert not parsed.find("script")
    assert nasty in parsed.rows("trim-row")[0]["text"]


@pytest.mark.parametrize("sample, lang, direction", [("dialogue_fa", "fa", "rtl"), ("dialogue_zh", "zh", "auto"),
                                                    ("dialogue_en", None, "auto")])
def test_every_message_text_sits_in_an_element_with_its_language_and_direction(sample, lang, direction):
    messages = load_conversation(sample)
    report = explain_trim(messages, max_tokens=10_000, token_counter="approximate")
    parsed = Parsed(render.trim_report_html(report, preview_chars=10_000, result_chars=None))
    holders_of_text = [e for e in parsed.elements if "dir" in e["attrs"]]
    for message in messages:
        text = " ".join(message_text(message).split())
        holders = [e for e in holders_of_text if e["text"].strip() == text]
        assert len(holders) == 2, text  # its table cell and its line in the returned list
        assert {e["tag"] for e in holders} == {"td", "span"}
        assert {(e["attrs"].get("lang"), e["attrs"]["dir"]) for e in holders} == {(lang, direction)}, text


def test_roles_name_the_tool_call_a_message_makes_or_answers():
    messages = load_conversation("agent_tools")
    report = explain_trim(messages, max_tokens=10_000, token_counter="approximate")
    roles = [cells(r)[1]["text"] for r in Parsed(render.trim_report_html(report)).rows("trim-row")]
    for message, role in zip(messages, roles):
        if isinstance(message, ToolMessage):
            assert role == f"tool ← {message.tool_call_id}"
        elif isinstance(message, AIMessage) and message.tool_calls:
            assert all(call["id"] in role and call["name"] in role for call in message.tool_calls)
        else:
            assert role == message.type


def test_the_options_line_is_the_call_that_was_made(reference_messages):
    report = explain_trim(reference_messages, max_tokens=40, strategy="last", start_on="human",
                          token_counter=dummy_token_counter)
    html = render.trim_report_html(report)
    assert "trim_messages(messages, max_tokens=40, strategy=&#x27;last&#x27;, start_on=&#x27;human&#x27;, " \
           "token_counter=dummy_token_counter)" in html


def test_empty_result_is_said_in_words():
    assert "returned []" in render.messages_list_html([])


def test_error_box_has_the_errors_words_and_no_traceback():
    html = render.error_html(ValueError("start_on parameter is only valid with strategy='last'"), hint="fix <it>")
    assert "ValueError: start_on parameter is only valid with strategy=&#x27;last&#x27;" in html
    assert "fix &lt;it&gt;" in html and "Traceback" not in html
    assert Parsed(html).find("div", role="alert")


def test_preview_collapses_whitespace_and_cuts_with_an_ellipsis():
    assert render.preview("a\n\n b\tc", 10) == "a b c"
    cut = render.preview("x" * 50, 10)
    assert len(cut) == 10 and cut.endswith("…")


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: render.preview(3), TypeError, "text"),
        (lambda: render.preview("a", 0), ValueError, "width"),
        (lambda: render.trim_report_html("report"), TypeError, "report"),
        (lambda: render.trim_table_html(None), TypeError, "report"),
        (lambda: render.token_bar_html(-1, 10), ValueError, "used"),
        (lambda: render.token_bar_html(1, True), TypeError, "budget"),
        (lambda: render.messages_list_html("hi"), TypeError, "messages"),
        (lambda: render.messages_list_html([HumanMessage("a"), "b"]), TypeError, "messages[1]"),
        (lambda: render.error_html(42), TypeError, "error"),
        (lambda: render.budget_working_html({}), TypeError, "working"),
        (lambda: render.growth_table_html([]), TypeError, "report"),
        (lambda: render.role_label("human"), TypeError, "message"),
        (lambda: render.image_html("png"), TypeError, "png"),
    ],
)
def test_bad_arguments_name_the_parameter(call, error, words):
    with pytest.raises(error, match=re.escape(words)):
        call()


# --- budgets ------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [(4096, 350, 180, 700, 0), (8192, 500, 300, 1200, 300)])
def test_budget_working_html_shows_each_step_in_order(args):
    working = budget_working(*args[:4], margin=args[4])
    parsed = Parsed(render.budget_working_html(working))
    steps = parsed.find("div", **{"class": "budget-step"})
    assert [s["text"].split("   ")[0] for s in steps] == working.lines
    block = parsed.find("div", **{"class": "budget-working"})[0]
    assert int(block["attrs"]["data-budget"]) == working.budget
    assert f"{working.name} = {working.budget}" in block["text"]


def test_brief_examples_appear_in_the_working():
    assert "3566 - 700 = 2866" in render.budget_working_html(budget_working(4096, 350, 180, 700))
    assert "6192 - 300 = 5892" in render.budget_working_html(budget_working(8192, 500, 300, 1200, margin=300))


def test_budget_bar_segments_are_the_parts_and_fill_the_limit():
    working = budget_working(8192, 500, 300, 1200, margin=300)
    segments = [e for e in Parsed(render.budget_bar_html(working)).elements if "data-symbol" in e["attrs"]]
    assert [s["attrs"]["data-symbol"] for s in segments] == ["S", "U", "R", "M", "H_max"]
    widths = [float(re.search(r"width:([\d.]+)%", s["attrs"]["style"]).group(1)) for s in segments]
    expected = [100 * t / 8192 for t in (500, 300, 1200, 300, working.budget)]
    assert widths == pytest.approx(expected, abs=0.01)
    assert sum(widths) == pytest.approx(100, abs=0.05)


# --- growth -------------------------------------------------------------------------------


def test_growth_table_rows_follow_the_report_up_to_a_call():
    report = replay_growth(load_conversation("long_chat"), "approximate", limit=1500)
    parsed = Parsed(render.growth_table_html(report, upto=20))
    rows = parsed.rows("growth-row")
    assert len(rows) == 20
    for html_row, row in zip(rows, report.rows):
        numbers = [int(c["text"]) for c in cells(html_row)[:6]]
        assert numbers == [row.call, row.history_messages, row.history_tokens, row.sent_messages,
                           row.sent_tokens, row.cumulative_sent_tokens]
        assert html_row["attrs"]["data-over"] == str(row.over_limit).lower()
    assert any(r["attrs"]["data-over"] == "true" for r in rows)  # long_chat passes 1500 before call 20


def test_growth_table_rejects_a_call_past_the_end():
    report = replay_growth(load_conversation("bob"), "dummy")
    with pytest.raises(ValueError, match="upto"):
        render.growth_table_html(report, upto=report.calls + 1)


# --- plots ----------------------------------------------------------------------------------


def test_growth_figure_draws_the_report_up_to_a_call_on_fixed_axes():
    report = replay_growth(load_conversation("long_chat"), "approximate", limit=1500)
    fig = plots.growth_figure(report, upto=12)
    per_call, cumulative = fig.axes
    history, sent, limit = per_call.get_lines()
    assert list(history.get_xdata()) == list(range(1, 13))
    assert list(history.get_ydata()) == report.column("history_tokens")[:12]
    assert list(sent.get_ydata()) == report.column("sent_tokens")[:12]
    assert set(limit.get_ydata()) == {1500}
    assert per_call.get_xlim() == (0.5, report.calls + 0.5)  # the whole replay, so the scale does not jump
    assert list(cumulative.get_lines()[0].get_ydata()) == report.column("cumulative_sent_tokens")[:12]
    assert cumulative.get_ylim()[1] >= report.total_sent_tokens


def test_budget_figure_is_a_waterfall_of_the_working():
    working = budget_working(8192, 500, 300, 1200, margin=300)
    ax = plots.budget_figure(working).axes[0]
    bars = ax.patches
    assert [round(b.get_height()) for b in bars] == [8192, 500, 300, 1200, 300, working.budget]
    assert [round(b.get_y()) for b in bars] == [0] + [s.after for s in working.steps] + [0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["L", "S", "U", "R", "M", "H_max"]


def test_overflow_figure_stacks_the_parts_against_the_limit():
    working = overflow_working(1000, history=700, prompt=200, tools=180)
    ax = plots.overflow_figure(working).axes[0]
    assert [round(b.get_height()) for b in ax.patches] == [700, 200, 180]
    assert "80 over" in ax.get_title()


def test_figures_do_not_touch_pyplot_and_png_is_deterministic():
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    working = budget_working(4096, 350, 180, 700)
    first = plots.figure_png(plots.budget_figure(working))
    second = plots.figure_png(plots.budget_figure(working))
    assert plt.get_fignums() == before
    assert first.startswith(b"\x89PNG") and first == second
    assert b"matplotlib" not in first  # no software version in the file


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: plots.growth_figure("report"), TypeError, "report"),
        (lambda: plots.growth_figure(replay_growth(load_conversation("bob"), "dummy"), upto=0), ValueError, "upto"),
        (lambda: plots.budget_figure(None), TypeError, "working"),
        (lambda: plots.figure_png("fig"), TypeError, "fig"),
    ],
)
def test_plot_arguments_are_checked(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_send_everything_report_is_not_called_a_trim():
    """GrowthExplorer's "none" strategy: no trim_messages call is claimed, the overflow is named."""
    from course_utils.core.samples import load_conversation
    from course_utils.pictures.widgets import GrowthExplorer

    explorer = GrowthExplorer(load_conversation("long_chat"), strategy="none", limit=1000, turn=30)
    page = explorer.static_html()
    over = explorer.report.result_tokens - 1000
    assert over > 0
    assert "trim_messages(" not in page and "trim_messages returned" not in page
    assert f"Over the limit by {over} tokens" in page
    assert "include_system keeps" not in page


# --- the options line names every counter the same way on every run ----------------------------


def _options_line(report):
    return Parsed(render.trim_report_html(report)).elements[0]["children"][0]["text"]


def test_the_options_line_names_counters_without_reprs(reference_messages):
    import functools

    from langchain_core.messages.utils import count_tokens_approximately

    from course_utils.model.chat import OfflineChatModel
    from course_utils.window.tokens import ExactTokenCounter

    exact = ExactTokenCounter()
    before = repr(exact)
    first = _options_line(explain_trim(reference_messages, max_tokens=40, token_counter=exact))
    assert repr(exact) != before  # counting changed its repr (a cache count) ...
    again = _options_line(explain_trim(reference_messages, max_tokens=40, token_counter=exact))
    assert first == again == "trim_messages(messages, max_tokens=40, token_counter=exact)"  # ... not the line

    lines = {
        _options_line(explain_trim(reference_messages, max_tokens=40,
                                   token_counter=functools.partial(count_tokens_approximately, chars_per_token=3)))
        for _ in range(2)
    }
    assert lines == {"trim_messages(messages, max_tokens=40, token_counter=partial)"}  # no memory address

    model = _options_line(explain_trim(reference_messages, max_tokens=40, token_counter=OfflineChatModel()))
    assert model == "trim_messages(messages, max_tokens=40, token_counter=OfflineChatModel)"
    assert _options_line(explain_trim(reference_messages, max_tokens=40, token_counter="approximate")) == (
        "trim_messages(messages, max_tokens=40, token_counter='approximate')"
    )


def test_a_bad_budget_is_named_where_it_comes_from(reference_messages):
    import dataclasses

    with pytest.raises(ValueError, match=re.escape("max_tokens must be >= 0, got -1")):
        explain_trim(reference_messages, max_tokens=-1, token_counter=dummy_token_counter)
    report = explain_trim(reference_messages, max_tokens=30, token_counter=dummy_token_counter)
    for bad, error in ((-1, ValueError), (10.5, TypeError), (True, TypeError)):
        with pytest.raises(error, match=re.escape("report.max_tokens must be")):
            render.trim_report_html(dataclasses.replace(report, max_tokens=bad))


def test_results_are_checked_by_their_class_not_their_attributes(reference_messages):
    import dataclasses
    from types import SimpleNamespace

    report = explain_trim(reference_messages, max_tokens=30, token_counter=dummy_token_counter)
    look_alike = SimpleNamespace(**{f.name: getattr(report, f.name) for f in dataclasses.fields(report)})
    with pytest.raises(TypeError, match=re.escape("report must be a TrimReport (from explain_trim), got SimpleNamespace")):
        render.trim_report_html(look_alike)
    growth = replay_growth(load_conversation("bob"), "dummy")
    with pytest.raises(TypeError, match=re.escape("working must be a BudgetWorking (from budget_working)")):
        plots.budget_figure(growth)
    with pytest.raises(TypeError, match=re.escape("working must be an OverflowWorking (from overflow_working)")):
        plots.overflow_figure(budget_working(4096, 350, 180, 700))
    with pytest.raises(TypeError, match=re.escape("report must be a GrowthReport (from replay_growth)")):
        render.growth_table_html(report)


# --- a policy that sends more than the history holds stays on the scale -----------------------


def test_bars_and_axes_are_sized_for_what_is_sent_too():
    extra = SystemMessage("a summary of everything said so far " * 20)
    report = replay_growth(load_conversation("bob"), "dummy", limit=60, policy=lambda history: [extra, *history])
    assert any(r.sent_tokens > max(x.history_tokens for x in report.rows) for r in report.rows)
    largest = max(max(r.history_tokens, r.sent_tokens) for r in report.rows)
    widths = [float(w) for w in re.findall(r"width:([\d.]+)%;\s*background:#(?:c62828|42a5f5)",
                                            render.growth_table_html(report))]
    assert len(widths) == report.calls and max(widths) == pytest.approx(100) and all(w <= 100 for w in widths)
    assert plots.growth_figure(report).axes[0].get_ylim()[1] >= largest


# --- one model call of a replay -------------------------------------------------------------------


def test_growth_turn_html_says_what_the_call_sends_then_shows_its_report():
    from course_utils.window.trimming import untrimmed_report

    messages = load_conversation("bob")
    growth = replay_growth(messages, "dummy", limit=50)
    history = messages[: [i for i, m in enumerate(messages) if isinstance(m, AIMessage)][3]]
    report = untrimmed_report(history, 50, dummy_token_counter)
    page = Parsed(render.growth_turn_html(growth, 4, report))
    [summary] = page.find("div", **{"class": "growth-turn-summary"})
    assert summary["attrs"]["data-call"] == "4" and int(summary["attrs"]["data-sent-tokens"]) == growth.rows[3].sent_tokens
    assert "over the limit" in summary["text"] and f"Call 4 of {growth.calls}" in summary["text"]
    assert len(page.rows("trim-row")) == len(history)
    with pytest.raises(ValueError, match="turn must be between 1 and"):
        render.growth_turn_html(growth, growth.calls + 1, report)
    with pytest.raises(TypeError, match="turn must be an int"):
        render.growth_turn_html(growth, True, report)


def test_growth_table_caption_names_the_counter_plainly():
    from course_utils.window.growth import replay_growth
    from course_utils.pictures.render import COUNTER_LABELS, growth_table_html
    from course_utils.core.samples import load_conversation

    page = growth_table_html(replay_growth(load_conversation("bob"), "exact", limit=300))
    assert COUNTER_LABELS["exact"] in page and "limit 300" in page


def test_a_turns_long_table_scrolls_in_its_own_box():
    from course_utils.pictures.render import growth_turn_html
    from course_utils.core.samples import load_conversation
    from course_utils.pictures.widgets import GrowthExplorer

    explorer = GrowthExplorer(load_conversation("long_chat"), strategy="none", limit=1000, turn=30)
    page = growth_turn_html(explorer.growth, 30, explorer.report)
    box = page.index('class="growth-turn-report"')
    assert "overflow-y:auto" in page[box:box + 120]
    assert page.index("growth-turn-summary") < box < page.index("trim-row")  # the summary stays outside


def test_the_trim_table_keeps_its_layout_where_style_attributes_are_stripped(reference_messages):
    """GitHub's sanitizer (html-pipeline's allowlist) drops ``style`` and ``class`` but keeps ``width``,
    ``align``, ``valign`` and ``dir``: the message column's width and the cells' alignment survive in those."""
    report = explain_trim(reference_messages, max_tokens=30, token_counter=dummy_token_counter)
    page = Parsed(render.trim_table_html(report))
    headers = {e["text"]: e["attrs"] for e in page.elements if e["tag"] == "th"}
    assert headers["message"].get("width") == "50%"
    assert page.find("table")[0]["attrs"].get("width") == "100%"
    for row in page.rows("trim-row"):
        ref, role, text, tokens, status, reason = cells(row)
        assert text["attrs"].get("dir") == "auto" and tokens["attrs"].get("align") == "right"
        assert all(c["attrs"].get("valign") == "top" for c in (ref, role, tokens, status, reason))
