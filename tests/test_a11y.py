"""Accessibility of the package's outputs, without a browser: text alternatives, languages, names.

The browser test (``test_browser_a11y.py``) runs axe-core on the real page;
this file checks the parts a browser cannot judge: that each figure's words
say what its lines and bars show, that text is tagged with the language it is
in, and that every control is given a description.
"""

from __future__ import annotations

import base64
import configparser
import html
import re
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.display import display
from IPython.utils.capture import capture_output

from course_utils.pictures import plots
from course_utils.pictures import render
from course_utils.pictures.a11y import PAGE_SCRIPT, TextLanguage, lang_attrs, text_language
from course_utils.window.budget import budget_working, overflow_working
from course_utils.window.growth import replay_growth, trim_policy
from course_utils.core.samples import list_conversations, load_sample
from course_utils.window.tokens import message_text
from course_utils.pictures.widgets import BudgetCalculator, GrowthExplorer, TrimExplorer

ROOT = Path(__file__).resolve().parents[1]


# --- languages -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("برای سه روز در کیوتو برنامه بریز", TextLanguage("fa", "rtl")),
        ("帮我安排京都三天的行程", TextLanguage("zh", "auto")),
        ("Plan three days in Kyoto", TextLanguage(None, "auto")),
        ("پرواز من به Tokyo فردا است", TextLanguage("fa", "rtl")),  # mostly Persian letters
        ("Say 谢谢 to the host", TextLanguage(None, "auto")),  # mostly Latin letters
        ("1234 ... !!", TextLanguage(None, "auto")),  # no letters at all
        ("", TextLanguage(None, "auto")),
    ],
)
def test_text_language_follows_the_script_of_most_letters(text, expected):
    assert text_language(text) == expected


def test_language_attributes_and_bad_input():
    assert lang_attrs("سلام") == ' lang="fa" dir="rtl"'
    assert lang_attrs("你好") == ' lang="zh" dir="auto"'
    assert lang_attrs("hello") == ' dir="auto"'
    assert lang_attrs("anything", lang="zh") == ' lang="zh" dir="auto"'
    with pytest.raises(TypeError, match="text"):
        text_language(b"bytes")
    with pytest.raises(TypeError, match="lang"):
        lang_attrs("hi", lang=3)


@pytest.mark.parametrize("name", list_conversations())
def test_each_sample_declares_the_language_its_text_is_in(name):
    sample = load_sample(name)
    words = " ".join(message_text(m) for m in sample.messages)
    assert (text_language(words).lang or "en") == sample.language


def test_a_bad_language_tag_in_a_sample_is_refused():
    from course_utils.core.samples import conversation_from_dict

    raw = {"title": "t", "description": "d", "language": "Persian", "messages": [{"role": "human", "content": "hi"}]}
    with pytest.raises(ValueError, match="'language' must be a language tag"):
        conversation_from_dict(raw)


# --- figures: words that state what is drawn ----------------------------------------------------------


def long_chat_growth(limit=2048, policy=None):
    return replay_growth(load_sample("long_chat").messages, "approximate", limit=limit, policy=policy)


def plotted(fig, label):
    line = next(line for line in fig.axes[0].get_lines() if line.get_label() == label)
    return list(line.get_xdata()), list(line.get_ydata())


def test_growth_figure_words_say_where_the_plotted_history_crosses_the_limit():
    report = long_chat_growth()
    fig = plots.growth_figure(report)
    calls, history = plotted(fig, "history tokens")
    crossing = next(call for call, tokens in zip(calls, history) if tokens > 2048)
    alt = fig.alt_text
    assert f"cross the 2,048 limit at call {crossing}" in alt
    assert f"from {history[0]:,} at call 1 to {history[-1]:,} at call {calls[-1]}" in alt
    assert "Every call sends the whole history" in alt
    step = int(re.search(r"about ([\d,]+) a call", alt).group(1).replace(",", ""))
    slope = (history[-1] - history[0]) / (calls[-1] - calls[0])
    assert abs(step - slope) <= 0.05 * slope  # two significant figures
    total = fig.axes[1].get_lines()[0].get_ydata()[-1]
    assert f"reach {total:,} by call {calls[-1]}" in alt


def test_growth_figure_words_say_trimming_keeps_what_is_sent_under_the_limit():
    report = long_chat_growth(policy=trim_policy({"max_tokens": 2048, "token_counter": "approximate", "strategy": "last"}))
    fig = plots.growth_figure(report, upto=25)
    _, sent = plotted(fig, "tokens sent")
    assert max(sent) <= 2048
    assert f"tokens sent stay under it: at most {max(sent):,}" in fig.alt_text
    assert "calls 1 to 25" in fig.alt_text


def test_budget_and_overflow_figure_words_hold_the_worked_numbers():
    working = budget_working(4096, 350, 180, 700)
    fig = plots.budget_figure(working)
    heights = [bar.get_height() for bar in fig.axes[0].patches]
    assert f"leaves B = {heights[-1]:,} tokens" in fig.alt_text and heights[-1] == working.budget
    for step in working.steps:
        assert f"{step.label} {step.tokens:,}" in fig.alt_text
    over = plots.overflow_figure(overflow_working(1000, history=700, prompt=200, tools=180))
    assert over.alt_text.endswith("= 1,080 tokens, 80 over the 1,000-token limit.")
    fits = plots.overflow_alt_text(overflow_working(1000, history=500, prompt=200))
    assert "fits the 1,000-token limit with 300 to spare" in fits


def test_cumulative_and_languages_figure_words():
    everything = long_chat_growth()
    trimmed = long_chat_growth(policy=trim_policy({"max_tokens": 1024, "token_counter": "approximate"}))
    fig = plots.cumulative_figure({"send everything": everything, "trim to 1024": trimmed})
    alt = fig.alt_text
    assert alt.index("send everything") < alt.index("trim to 1024")  # largest total first
    assert f"send everything: {everything.total_sent_tokens:,} tokens after {everything.calls} calls, bending upward" in alt
    trimmed_words = alt[alt.index("trim to 1024"):]
    assert trimmed_words.startswith(f"trim to 1024: {trimmed.total_sent_tokens:,} tokens after {trimmed.calls} calls")
    assert "straight" in trimmed_words and "each call sends more" not in trimmed_words
    counts = {"English": {"exact": 271, "approximate": 291}, "Persian": {"exact": 640, "approximate": 280}}
    words = plots.languages_figure(counts).alt_text
    assert "English 271 exact, 291 approximate; Persian 640 exact, 280 approximate" in words
    assert "Persian takes 2.4 times the tokens of English" in words


def test_a_figure_shows_in_a_notebook_as_an_image_with_its_words():
    fig = plots.budget_figure(budget_working(4096, 350, 180, 700))
    bundle = fig._repr_mimebundle_()
    assert bundle["text/plain"] == fig.alt_text
    assert bundle["text/html"].startswith(f'<img alt="{fig.alt_text}" src="data:image/png;base64,')
    png = base64.b64decode(bundle["image/png"])
    assert png == plots.figure_png(fig) and png.startswith(b"\x89PNG")
    assert fig._repr_mimebundle_() == bundle  # the same bytes on every call: stored outputs stay stable
    assert isinstance(fig, plots.Figure)  # still a real matplotlib figure


def test_the_sanitiser_hides_the_png_bytes_but_keeps_the_words():
    config = configparser.ConfigParser()
    config.read(ROOT / "tests" / "nbval_sanitize.cfg")
    section = config["inline figures"]
    page = render.image_html(b"\x89PNG fake", alt="History tokens grow")
    cleaned = re.sub(section["regex"], section["replace"], page)
    assert cleaned == '<img alt="History tokens grow" src="data:image/png;base64,PNG">'


# --- widgets: figures, names, descriptions, scroll regions ----------------------------------------------


def test_widget_figures_carry_their_words():
    calc = BudgetCalculator(4096, 350, 180, 700)
    assert calc.figure.alt == plots.budget_alt_text(calc.working)
    assert f'alt="{calc.figure.alt}"' in calc.figure.value and calc.figure.png.startswith(b"\x89PNG")
    calc.reserve.value = 1000
    assert "reply reserve 1,000" in calc.figure.alt and f'alt="{calc.figure.alt}"' in calc.figure.value

    growth = GrowthExplorer(load_sample("long_chat").messages, limit=2048, turn=10)
    assert growth.figure.alt == plots.growth_alt_text(growth.growth, upto=10)
    growth.turn.value = 30
    assert "calls 1 to 30" in growth.figure.alt and f'alt="{growth.figure.alt}"' in growth.figure.value


def controls_of(widget):
    """The sliders, dropdowns and checkboxes a widget keeps as attributes."""
    import ipywidgets

    kinds = (ipywidgets.IntSlider, ipywidgets.Dropdown, ipywidgets.Checkbox)
    return [w for w in vars(widget).values() if isinstance(w, kinds)]


@pytest.mark.parametrize(
    "make",
    [
        lambda: TrimExplorer(load_sample("bob").messages),
        lambda: BudgetCalculator(),
        lambda: GrowthExplorer(load_sample("bob").messages, show_plot=False),
    ],
    ids=["TrimExplorer", "BudgetCalculator", "GrowthExplorer"],
)
def test_every_control_has_a_name_and_a_description(make):
    widget = make()
    controls = controls_of(widget)
    assert len(controls) >= 4
    for control in controls:
        name = re.sub(r"<[^>]+>", "", control.description)
        assert name.strip(), control
        assert control.tooltip and control.tooltip != name, name
        if control.description_allow_html:  # the tooltip rides on the description (dropdowns, checkboxes)
            assert control.description == f'<span title="{control.tooltip}">{name}</span>'


def test_the_trim_table_is_a_named_region_the_keyboard_reaches_with_every_row_on_the_page():
    explorer = TrimExplorer(load_sample("long_chat").messages, max_tokens=4000)
    region = re.search(r'<div class="trim-report-region" style="([^"]*)" role="region" aria-label="([^"]+)" tabindex="0"'
                       ' data-lm-suppress-shortcuts="true">',
                       explorer.output.value)
    assert region and "max-height" not in region.group(1)  # no inner box hiding rows behind a scrollbar (issue 20)
    assert "max_tokens 4000" in region.group(2)


def test_displaying_a_widget_first_shows_the_page_script_that_names_slider_handles():
    InteractiveShell.instance()
    with capture_output() as captured:
        display(BudgetCalculator())
    script, widget = captured.outputs
    assert script.data["application/javascript"] == PAGE_SCRIPT and script.data["text/plain"] == ""
    assert "application/vnd.jupyter.widget-view+json" in widget.data
    assert widget.data["text/plain"].startswith("BudgetCalculator(")
    assert "aria-labelledby" in PAGE_SCRIPT and "noUi-handle" in PAGE_SCRIPT


def test_the_page_script_is_package_data_and_the_lessons_stored_script_is_the_same():
    """The script lives in course_utils/static/page_script.js, shipped as package data, and runs unchanged."""
    import fnmatch
    import json
    import tomllib

    root = Path(__file__).resolve().parents[1]
    source = root / "course_utils" / "static" / "page_script.js"
    assert PAGE_SCRIPT + "\n" == source.read_text(encoding="utf-8")
    shipped = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["course_utils"]
    assert any(fnmatch.fnmatch("static/page_script.js", pattern) for pattern in shipped), shipped
    assert "PAGE_SCRIPT = r" not in (root / "course_utils" / "pictures" / "a11y.py").read_text(encoding="utf-8")
    # What the lessons stored (lesson 02 shows a BudgetCalculator) is what the file holds.
    cells = json.loads((root / "notebooks" / "02_token_budgets.ipynb").read_text(encoding="utf-8"))["cells"]
    stored = ["".join(o["data"]["application/javascript"]) if isinstance(o["data"]["application/javascript"], list)
              else o["data"]["application/javascript"]
              for c in cells for o in c.get("outputs", []) if "application/javascript" in o.get("data", {})]
    assert stored and set(stored) == {PAGE_SCRIPT}


def test_a_call_over_the_limit_says_so_in_words_not_only_in_red():
    report = long_chat_growth(limit=1500)
    rows = re.findall(r'<tr class="growth-row" data-call="(\d+)" data-over="(true|false)".*?</tr>',
                      render.growth_table_html(report))
    table = render.growth_table_html(report)
    for call, over in rows:
        row_html = re.search(f'<tr class="growth-row" data-call="{call}" .*?</tr>', table).group(0)
        assert ('class="growth-over"' in row_html and row_html.count(">over<") == 1) == (over == "true"), call
    assert {over for _, over in rows} == {"true", "false"}


def test_lesson_06_agent_figures_carry_their_words():
    from langchain.agents import create_agent

    from course_utils.pictures import agent_views
    from course_utils.agentic.agent_tools import TRIP_TOOLS
    from course_utils.agentic.agents import TRIP_SYSTEM_PROMPT, call_rows, run_task
    from course_utils.model.chat import OfflineChatModel

    agent = create_agent(OfflineChatModel(context_window=100_000), tools=TRIP_TOOLS, system_prompt=TRIP_SYSTEM_PROMPT)
    run = run_task(agent, name="send everything")
    rows = call_rows(run)
    roles = agent_views.roles_figure(rows, limit=2048)
    assert roles.alt_text.endswith(agent_views.roles_text(rows))
    steps = agent_views.steps_figure(run)
    assert steps.alt_text.endswith(agent_views.steps_text(run)) and "send everything" in steps.alt_text
    for fig in (roles, steps):
        assert f'<img alt="{html.escape(fig.alt_text)}"' in fig._repr_mimebundle_()["text/html"]
