"""The HTML tables and widgets in the Persian edition (issue 23): Persian words, the same numbers, lang and dir.

Every picture is drawn twice, in English and in Persian, from the same
result: the Persian one must carry ``lang="fa" dir="rtl"`` on its outer
element, hold no English sentence of the English one, and show exactly the
same numbers (the numbers are computed once; only the words change).
Formulas and code names stay Latin, in a left-to-right span or isolate.
English output is checked byte for byte elsewhere (tests/test_templates.py
and strict nbval over the English lessons).
"""

from __future__ import annotations

import re

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage

from course_utils.core import i18n
from course_utils.core.samples import load_conversation
from course_utils.pictures import a11y, render
from course_utils.pictures.agent_views import COMPARISON_CAPTION, call_html, call_status_line, comparison_html
from course_utils.pictures.render import COUNTER_LABELS, budget_bar_html, budget_working_html, growth_table_html
from course_utils.pictures.widgets import BudgetCalculator, GrowthExplorer, TrimExplorer
from course_utils.window.budget import BUDGET_PARTS, budget_working
from course_utils.window.growth import GROWTH_STRATEGIES, replay_growth

PERSIAN_LETTER = re.compile(r"[\u0600-\u06ff]")


def in_language(language, draw):
    """``draw()`` with the package speaking ``language``; English again afterwards, whatever happens."""
    i18n.set_language(language)
    try:
        return draw()
    finally:
        i18n.set_language("en")


def both(draw):
    return in_language("en", draw), in_language("fa", draw)


def numbers(html: str) -> list[str]:
    """Every number in the text of an HTML fragment (tags and attributes left out), in order."""
    text = re.sub(r"<[^>]*>", " ", html)
    return re.findall(r"\d+(?:,\d{3})*", text)


def outer_tag(html: str) -> str:
    return re.match(r"<[^>]*>", html).group(0)


def test_budget_working_and_bar_in_persian_keep_their_arithmetic_left_to_right():
    working = budget_working(4096, 350, 180, 700)
    en, fa = both(lambda: budget_working_html(working) + budget_bar_html(working))
    assert ' lang="fa" dir="rtl"' in outer_tag(fa) and "lang=" not in outer_tag(en)
    for line in ("4096 - 350 = 3746", "3746 - 180 = 3566", "3566 - 700 = 2866", "B = 2866", "B = L - S - U - R"):
        assert f'<span dir="ltr">{line}</span>' in fa
        assert f'<span dir="ltr">{line}</span>' not in en and line in en
    assert "token برای تاریخچه می‌ماند" in fa and "tokens left for history" not in fa
    for english in ("context limit", "system prompt", "user input", "reply reserve"):
        assert english in en and english not in fa
    assert numbers(fa) == numbers(en)


def test_every_budget_part_label_has_persian():
    labels = ["context limit", "history", *(label for _, label, _ in BUDGET_PARTS)]
    persian = in_language("fa", lambda: [i18n.translate(label, "budget part") for label in labels])
    assert all(PERSIAN_LETTER.search(word) for word in persian), dict(zip(labels, persian))


@pytest.fixture(scope="module")
def long_chat_growth():
    return replay_growth(load_conversation("long_chat"), "approximate", limit=400)


def test_growth_table_in_persian_has_persian_headers_and_the_same_numbers(long_chat_growth):
    assert any(row.over_limit for row in long_chat_growth.rows)  # so the "over" word is drawn
    en, fa = both(lambda: growth_table_html(long_chat_growth, upto=20))
    assert ' lang="fa" dir="rtl"' in outer_tag(fa)
    en_headers = re.findall(r"<th[^>]*>([^<]*)</th>", en)
    fa_headers = re.findall(r"<th[^>]*>([^<]*)</th>", fa)
    assert len(fa_headers) == len(en_headers) == 7
    assert all(PERSIAN_LETTER.search(h) for h in fa_headers), fa_headers
    assert "فراتر</span>" in fa and ">over</span>" in en and ">over</span>" not in fa
    assert 'class="growth-over"' in fa  # the class stays English: a test or stylesheet finds it in both editions
    assert "شمارندهٔ تقریبی" in fa and "(خط سیاه)" in fa
    assert numbers(fa) == numbers(en)


def test_every_counter_label_and_growth_strategy_has_persian():
    def words():
        return ([i18n.translate(label, "counter") for label in COUNTER_LABELS.values()]
                + [i18n.translate(label, "growth strategy") for label, _ in GROWTH_STRATEGIES])
    persian = in_language("fa", words)
    assert all(PERSIAN_LETTER.search(word) for word in persian), persian


def test_every_control_description_has_persian():
    helps = {**a11y.TRIM_HELP, **a11y.BUDGET_HELP, **a11y.GROWTH_HELP}
    persian = in_language("fa", lambda: {k: i18n.translate(v, "control help") for k, v in helps.items()})
    assert all(PERSIAN_LETTER.search(text) for text in persian.values()), persian


def test_budget_calculator_in_persian_names_its_sliders_in_persian_and_keeps_the_numbers():
    en, fa = both(lambda: BudgetCalculator(4096, 350, 180, 700, show_plot=False))
    en_html, fa_html = en.static_html(), in_language("fa", fa.static_html)
    assert fa.limit.description_allow_html and 'lang="fa" dir="rtl"' in fa.limit.description
    assert "limit زمینه" in fa.limit.description and en.limit.description == "L: context limit"
    assert PERSIAN_LETTER.search(fa.reserve.tooltip) and en.reserve.tooltip == a11y.BUDGET_HELP["reserve"]
    assert fa.budget == en.budget == 2866
    assert ' lang="fa" dir="rtl"' in outer_tag(fa_html) and "lang=" not in outer_tag(en_html)
    assert numbers(fa_html) == numbers(en_html)
    # No room: the hint under the error is Persian too.
    def no_room():
        calc = BudgetCalculator(4096, 350, 180, 700, show_plot=False)
        calc.reserve.value = 4000
        return calc.output.value
    hint = in_language("fa", no_room)
    assert "Lower S, U, R or M" not in hint and "تاریخچه دست‌کم یک token لازم دارد" in hint


def test_growth_explorer_in_persian_labels_its_controls_and_its_turn_in_persian():
    chat = load_conversation("long_chat")
    en, fa = both(lambda: GrowthExplorer(chat, token_counter="approximate", limit=400, strategy="last", turn=12,
                                         show_plot=False))
    assert [value for _, value in fa.strategy.options] == [value for _, value in en.strategy.options]
    assert all(PERSIAN_LETTER.search(label) for label, _ in fa.strategy.options)
    assert "فراخوانی مدل" in fa.turn.description
    en_html, fa_html = en.static_html(), in_language("fa", fa.static_html)
    assert ' lang="fa" dir="rtl"' in outer_tag(fa_html)
    assert "Tokens sent so far" in en_html and "Tokens sent so far" not in fa_html and "فراخوانی 12 از" in fa_html
    assert all(label.startswith(i18n.RLI) for label, _ in fa.strategy.options)  # reads RTL in the LTR select
    assert 'aria-label="پیام‌هایی که فراخوانی 12 می‌فرستد"' in fa_html
    assert numbers(fa_html) == numbers(en_html)


def test_trim_explorer_in_persian_translates_a_lessons_title_and_names_its_region():
    chat = [HumanMessage("hi"), AIMessage("hello"), HumanMessage("bye")]
    en, fa = both(lambda: TrimExplorer(chat, max_tokens=20, token_counter="dummy",
                                       title="The tool-using agent: move max_tokens"))
    assert en.title == "The tool-using agent: move max_tokens"
    assert fa.title == "عامل ابزاردار: max_tokens را جابه‌جا کنید"
    assert 'aria-label="نتیجهٔ trim: 3 پیام، max_tokens 20"' in fa.output.value
    assert fa.statuses == en.statuses
    # An unknown title (a learner's own) is shown as it is.
    own = in_language("fa", lambda: TrimExplorer(chat, max_tokens=20, token_counter="dummy", title="my chat"))
    assert own.title == "my chat"


@pytest.fixture(scope="module")
def trip_run():
    from course_utils.agentic.agent_tools import TRIP_TOOLS
    from course_utils.agentic.agents import TRIP_SYSTEM_PROMPT, TRIP_TASK, run_task
    from course_utils.model.chat import OfflineChatModel

    agent = create_agent(OfflineChatModel(context_window=100_000), tools=TRIP_TOOLS, system_prompt=TRIP_SYSTEM_PROMPT)
    return run_task(agent, TRIP_TASK[:2], probes=(), name="send everything")


def test_agent_call_table_in_persian(trip_run):
    en, fa = both(lambda: call_html(trip_run, 2))
    assert ' lang="fa" dir="rtl"' in outer_tag(fa) and "lang=" not in outer_tag(en)
    fa_headers = re.findall(r"<th[^>]*>([^<]*)</th>", fa)
    assert fa_headers == ["نقش", "وضعیت", "token", "متن"]
    assert "ارسال‌شده" in fa and ">sent<" in en and ">sent<" not in fa
    assert "input tokens" in en and "input tokens" not in fa and "token ورودی" in fa
    assert "\u2067فرستادن همه چیز\u2069" in fa and "send everything" not in fa  # the run's label, from the catalogue (run_label)
    assert numbers(fa) == numbers(en)
    assert "text-align:right;padding" in fa or "text-align:right" in fa


def test_agent_step_line_and_comparison_in_persian(trip_run):
    from course_utils.agentic.agents import compare_runs

    line_en, line_fa = both(lambda: call_status_line(trip_run, 2))
    assert "messages so far" in line_en and PERSIAN_LETTER.search(line_fa) and "messages so far" not in line_fa
    assert numbers(line_fa) == numbers(line_en)
    rows = compare_runs([trip_run])
    en, fa = both(lambda: comparison_html(rows))
    assert COMPARISON_CAPTION in en and COMPARISON_CAPTION not in fa
    fa_headers = re.findall(r"<th[^>]*>([^<]*)</th>", fa)
    assert len(fa_headers) == 8 and all(PERSIAN_LETTER.search(h) or h == "token" for h in fa_headers)
    assert "summary calls' input" in en  # a plain apostrophe, as before
    assert ">\u2067فرستادن همه چیز\u2069</td>" in fa and f">{trip_run.name}</td>" in en  # the run's label (run_label)
    assert numbers(fa) == numbers(en)


def test_run_labels_in_persian(trip_run):
    """Lesson 06's strategy names read in Persian where a run is shown; the keys stay English."""
    from course_utils.agentic.agent_strategies import STRATEGIES, run_label

    labels = in_language("fa", lambda: [run_label(name) for name in STRATEGIES])
    assert all(PERSIAN_LETTER.search(label) for label in labels) and len(set(labels)) == len(STRATEGIES)
    assert [run_label(name) for name in STRATEGIES] == list(STRATEGIES)  # English: the names themselves
    assert in_language("fa", lambda: run_label("my own run")) == "\u2066my own run\u2069"  # no Persian: data, LTR


def test_token_comparison_in_persian():
    from course_utils.window.tokens import split_tokens

    splits = [split_tokens("سلام دنیا", "cl100k_base"), split_tokens("سلام دنیا", "o200k_base")]
    for live in (True, False):
        en, fa = both(lambda: render.token_comparison_html(splits, lang="fa", live=live))
        assert ' lang="fa" dir="rtl"' in outer_tag(fa)
        assert "Each coloured box is one token" in en and "Each coloured box is one token" not in fa
        assert "Hover over a token" not in fa
        assert re.search(r'aria-label="token 1 از \d+', fa)
        assert numbers(fa) == numbers(en)


def test_token_view_widget_labels_in_persian():
    from course_utils.pictures.token_view import TokenView

    view = in_language("fa", lambda: TokenView("fa"))
    assert PERSIAN_LETTER.search(view.left.description) and view.left.value == "cl100k_base"
    assert [code for _, code in view.sample.options][:3] == ["en", "fa", "zh"]
    assert all(PERSIAN_LETTER.search(label) for label, _ in view.sample.options)


def test_text_tables_in_persian_have_persian_headers_and_run_right_to_left():
    from collections import Counter

    from course_utils.agentic.retention import CostPoint
    from course_utils.core.columns import LRI, visible_width
    from course_utils.pictures.render import limits_table, models_table, strategy_table
    from course_utils.window.thresholds import limits_rows

    rows = limits_rows()
    points = [CostPoint("trim", 512, 0.2, 1, 5, 0.03587, 0.03587, 0.0, 0, 16746, 3825),
              CostPoint("summarise", 4096, 1.0, 5, 5, 0.07908, 0.19355, 0.81, 1, 77248, 3905)]
    cases = ((lambda: limits_table(rows), [r.model for r in rows], "context window", 0),
             (models_table, None, "max out", 1),
             (lambda: strategy_table(points), None, "summaries", 1))
    for draw, first, english_key, footnotes in cases:
        en, fa = both(draw)
        header, rule, *body = fa.splitlines()
        assert english_key in en and english_key not in header and PERSIAN_LETTER.search(header)
        assert "ستون‌ها" not in fa  # no legend naming English keys: the headers are Persian
        assert len(fa.splitlines()) == len(en.splitlines())  # header, rule, one line a row (and a footnote)
        table = [header, *body[:len(body) - footnotes]]
        assert all(line.startswith(LRI) for line in table) and set(rule) == {"-"}
        assert len({visible_width(line) for line in [*table, rule]}) == 1  # the columns line up
        # and fit the output width the English table uses (JupyterLab at 1,280 px shows about 107 characters
        # of a monospaced line before it wraps one; a wrapped row breaks the table)
        assert visible_width(rule) <= max(len(line) for line in en.splitlines()[:len(table) + 1]) + 4, (rule, en)
        if first:  # the first English column is at the right end of each Persian line
            assert all(line.rstrip(i18n.PDI).endswith(model) for line, model in zip(table[1:], first, strict=True))
        assert Counter(re.findall(r"\d+", fa)) == Counter(re.findall(r"\d+", en))  # the same numbers
    assert "prices: US$" in models_table() and "prices: US$" not in in_language("fa", models_table)
    label = in_language("fa", lambda: strategy_table(points)).splitlines()[2]
    assert "trim" in label and PERSIAN_LETTER.search(label)  # the strategy's label is translated too


def test_a_missing_h_max_reads_no_room_in_persian_in_its_column():
    from course_utils.pictures.render import _padded

    cell = in_language("fa", lambda: _padded(i18n._("no room"), 16))
    assert cell.endswith(f"{i18n.RLI}جا نیست{i18n.PDI}") and len(cell.replace(i18n.RLI, "").replace(i18n.PDI, "")) == 16


def test_the_trim_explorers_conflicts_note_and_combined_choice_are_persian():
    """strategy='first' with start_on or include_system: the note in place of the table speaks Persian."""
    from course_utils.pictures import widgets
    from course_utils.window.trimming import trim_option_conflicts

    def note():
        return widgets._conflicts_html(trim_option_conflicts("first", start_on=("human", "tool"), include_system=True))

    en, fa = both(note)
    assert "These 2 options conflict" in en and 'lang="fa" dir="rtl"' in fa
    assert "conflict with" not in fa and "keep their values" not in fa and "works only" not in fa
    assert fa.count("\u2066strategy=&#x27;last&#x27;\u2069") == 2  # code stays left to right, whole
    assert PERSIAN_LETTER.search(fa)
    label = in_language("fa", lambda: widgets._boundary_options(("human", "tool"))[-1][0])
    assert label == "human یا tool" and widgets._boundary_options(("human", "tool"))[-1][0] == "human or tool"
