"""Lessons 05 and 05b in real JupyterLab in Chromium: Run All shows lesson 05's models table and budget
calculator (which answers the keyboard), and lesson 05b's recall-against-cost figure, its text
alternative and the strategy tables, with no code line running past the notebook's edge."""

import shutil
import time
from pathlib import Path

import pytest
from browser_support import (  # noqa: F401 (autouse checks)
    OUTPUT,
    LabPage,
    no_kernel_outlives_the_module,
    no_kernel_outlives_the_test,
    open_lab,
)

ROOT = Path(__file__).resolve().parents[1]
LESSON = ROOT / "notebooks" / "05b_cost_and_caching.ipynb"
THRESHOLDS = ROOT / "notebooks" / "05_threshold_selection.ipynb"
ARTIFACTS = ROOT / "test-artifacts" / "browser_thresholds"

IDLE_AND_DONE_JS = """() => {
    const app = window.jupyterapp;
    const widget = app && app.shell.currentWidget;
    const kernel = widget && widget.sessionContext && widget.sessionContext.session
        && widget.sessionContext.session.kernel;
    const running = [...document.querySelectorAll('.jp-InputPrompt')].some(p => p.textContent.includes('*'));
    return Boolean(kernel && kernel.status === 'idle' && !running);
}"""


def _run_all(page: LabPage, path: Path, done_text: str) -> None:
    shutil.copy(path, page.server.root / path.name)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.open_notebook(path.name)
    # Run All, as a learner does, and wait until no cell is queued, twice in a row.
    page.page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.page.wait_for_function(
        "([output, text]) => [...document.querySelectorAll(output)].some(o => o.textContent.includes(text))",
        arg=[OUTPUT, done_text],
        timeout=120_000,
    )
    settled, deadline = 0, time.monotonic() + 60
    while settled < 2 and time.monotonic() < deadline:
        settled = settled + 1 if page.page.evaluate(IDLE_AND_DONE_JS) else 0
        time.sleep(0.3)


@pytest.fixture(scope="module")
def lesson(lab_server, chromium_browser):
    with open_lab(chromium_browser, lab_server, viewport={"width": 1400, "height": 1400}) as page:
        _run_all(page, LESSON, "a rerun of section 2")
        yield page


@pytest.fixture(scope="module")
def thresholds(lab_server, chromium_browser):
    with open_lab(chromium_browser, lab_server, viewport={"width": 1280, "height": 1400}) as page:
        _run_all(page, THRESHOLDS, "Sara's whole conversation fills")
        yield page


def output_text(page: LabPage) -> str:
    return page.page.evaluate("(output) => [...document.querySelectorAll(output)].map(o => o.textContent).join('\\n')", OUTPUT)


def test_run_all_shows_the_figure_with_its_text_alternative_and_the_tables(lesson):
    text = output_text(lesson)
    assert "with caching: trim_chunked at 3072" in text  # the conclusion, computed in the lesson's own lines
    figures = lesson.page.locator(f"{OUTPUT} img")
    assert figures.count() >= 1  # the recall-against-cost figure
    alts = [figures.nth(i).get_attribute("alt") or "" for i in range(figures.count())]
    assert any("Recall against cost, one point per strategy and threshold" in alt for alt in alts)  # its text alternative
    # The recall-against-cost figure is the widest image: two panels, drawn at full size.
    widths = [figures.nth(i).evaluate("img => img.naturalWidth") for i in range(figures.count())]
    assert max(widths) >= 900
    table = lesson.page.locator(f"{OUTPUT}", has_text="trim in chunks (water marks)").first
    table.evaluate("el => el.scrollIntoView({block: 'start'})")
    table.screenshot(path=str(ARTIFACTS / "strategy_table.png"))
    figure = figures.nth(widths.index(max(widths)))
    figure.evaluate("el => el.scrollIntoView({block: 'center'})")
    figure.screenshot(path=str(ARTIFACTS / "cost_recall_figure.png"))
    strategies = lesson.page.locator(".jp-MarkdownOutput table", has_text="water marks").first
    strategies.evaluate("el => el.scrollIntoView({block: 'start'})")
    strategies.screenshot(path=str(ARTIFACTS / "strategies_markdown_table.png"))
    # All five strategies are rows of the rendered table, none left over as stray "| ... |" text.
    rows = strategies.locator("tbody tr")
    assert rows.count() == 5, [rows.nth(i).inner_text() for i in range(rows.count())]
    assert "facts in the system prompt" in rows.nth(4).inner_text()
    prose = lesson.page.locator(".jp-MarkdownOutput p", has_text="facts in the system prompt")
    assert not any(t.lstrip().startswith("|") for t in prose.all_inner_texts())
    # A table line is never wrapped: the widest text table fits the output area.
    overflow = table.evaluate("el => el.scrollWidth - el.clientWidth")
    assert overflow <= 0, f"the strategies table is {overflow}px wider than its output area"


def test_no_code_line_runs_past_the_right_edge_at_1400_px(lesson):
    """Issue 20: a code line of the comparison cell ran past the editor's right edge at 1,400 px."""
    lesson.page.screenshot(path=str(ARTIFACTS / "lesson05b_top.png"))
    wide = lesson.page.evaluate(
        """() => [...document.querySelectorAll('.jp-CodeCell .jp-InputArea .cm-scroller')]
            .map(el => ({over: el.scrollWidth - el.clientWidth, text: el.textContent.slice(0, 60)}))
            .filter(item => item.over > 0)"""
    )
    assert not wide, wide
    assert lesson.page.locator(".jp-CodeCell .jp-InputArea .cm-scroller").count() >= 10  # the cells were measured


def test_lesson_05_shows_the_models_table_and_the_ceiling(thresholds):
    text = output_text(thresholds)
    assert "H_max = 5892" in text
    assert "checked" in text and "max in" in text  # the models table's header
    assert "above 272,000 input tokens" in text  # the price band, from models.json
    assert "input cap 922,000 sets it" in text  # H_max under GPT-6.2 Sol's input cap
    thresholds.page.screenshot(path=str(ARTIFACTS / "lesson05_top.png"))


def budget_shown(page: LabPage) -> int:
    """H_max as the budget calculator's working shows it (its data-budget), from the one calculator on the page."""
    budgets = page.page.evaluate(
        "(output) => [...document.querySelectorAll(output + ' .budget-calculator .budget-working')]"
        ".map(el => Number(el.dataset.budget))",
        OUTPUT,
    )
    assert len(budgets) == 1, budgets
    return budgets[0]


def test_the_budget_calculator_answers_the_keyboard(thresholds):
    lesson = thresholds
    lesson.reveal(".budget-calculator", block="center")
    before = lesson.slider_readout(".budget-calculator")
    budget_before = budget_shown(lesson)
    lesson.press_on_slider(".budget-calculator", "ArrowRight")
    lesson.page.wait_for_function(
        "([output, before]) => { const r = document.querySelector(output + ' .budget-calculator .widget-readout');"
        " return r && Number(r.textContent.replace(/,/g, '')) !== before; }",
        arg=[OUTPUT, before],
        timeout=10_000,
    )
    lesson.page.screenshot(path=str(ARTIFACTS / "budget_after_key.png"))
    after = lesson.slider_readout(".budget-calculator")
    assert after > before, "ArrowRight on L must raise the context limit"
    # H_max = L - S - U - R - M: the working below the sliders (redrawn by the kernel) moves by what L moved.
    lesson.page.wait_for_function(
        "([output, before]) => { const w = document.querySelector(output + ' .budget-calculator .budget-working');"
        " return w && Number(w.dataset.budget) !== before; }",
        arg=[OUTPUT, budget_before],
        timeout=10_000,
    )
    assert budget_shown(lesson) == budget_before + (after - before)
