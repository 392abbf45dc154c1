"""What a learner sees of their own conversation, in Chromium: the command's report, and the trim explorer's table.

- The report of ``python -m course_utils.inspect`` (a short thread and a long
  one, with and without message text) opened from its file, with no
  network: axe-core's WCAG A/AA rules find no serious or critical
  violation; every message of the long thread is either a row on the page
  or counted in a folded run; a folded run opens by keyboard.
- The trim explorer of the lesson that shows one (issue 20): the table shows
  every row it counts. For each status, the rows a learner can see (not
  clipped by any box inside the explorer, not zero-sized) equal the summary
  line's "N kept, N partial, N dropped"; and no box inside the explorer
  hides rows behind a scrollbar. Moving the slider keeps that true.

Screenshots go to ``test-artifacts/inspect/``.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from course_utils.inspect import inspect_messages
from course_utils.inspect.analysis import custom_model
from course_utils.inspect.report import report_html
from course_utils.core.samples import load_conversation

from browser_support import OUTPUT, open_lab
from browser_support import no_kernel_outlives_the_module, no_kernel_outlives_the_test  # noqa: F401 (autouse checks)
from test_browser_a11y import describe, failing_violations, run_axe, trim_explorer_lesson

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts" / "inspect"

REPORTS = {  # name -> (messages, model, budget, text)
    "agent": (load_conversation("agent_tools"), "Claude Haiku 4.5", 600, True),
    # an 8,192-token window counted exactly (cl100k_base): the history crosses it (GPT-4's shape; GPT-4 itself was
    # shut down on 2026-10-23, so the model is given as inspect's --window would give it)
    "long": (load_conversation("long_chat") * 30,
             custom_model("an 8k model (cl100k_base)", 8192, input_price=30.0, output_price=60.0, tokenizer="cl100k_base"),
             3000, True),
    "long_no_text": (load_conversation("long_chat") * 30, "Claude Haiku 4.5", 3000, False),
}


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    folder = tmp_path_factory.mktemp("reports")
    paths = {}
    for name, (messages, model, budget, text) in REPORTS.items():
        page = report_html(inspect_messages(messages, model, budget), source=f"{name}.json", format="openai", text=text)
        paths[name] = folder / f"{name}.html"
        paths[name].write_text(page, encoding="utf-8")
    return paths


@pytest.fixture
def page(chromium_browser):
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 900})
    context.route(re.compile(r"^(?!file:|data:).*"), lambda route: route.abort())  # the report needs nothing else
    try:
        yield context.new_page()
    finally:
        context.close()


COUNT_JS = """() => {
    const counts = {kept: 0, partial: 0, dropped: 0};
    document.querySelectorAll('table.trim-table > tbody > tr.trim-row').forEach(r => counts[r.dataset.status] += 1);
    document.querySelectorAll('table.trim-table > tbody > tr.trim-run').forEach(r => counts[r.dataset.status] += Number(r.dataset.count));
    return counts; }"""


@pytest.mark.parametrize("name", list(REPORTS))
def test_the_report_has_no_serious_axe_violation(page, reports, name):
    page.goto(reports[name].as_uri())
    results = run_axe(page, "body")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"report_{name}.png"), full_page=False)
    print(f"{name}: axe {results.get('version')}\n{describe(results['violations'])}")
    failing = failing_violations(results["violations"])
    assert results["found"] == 1 and not failing, describe(failing)
    assert page.evaluate("() => document.images.length > 0 && [...document.images].every(i => i.alt && i.naturalWidth > 0)")


def test_every_message_of_a_long_report_is_a_row_or_counted_in_a_fold(page, reports):
    messages, model, budget, _ = REPORTS["long"]
    result = inspect_messages(messages, model, budget)
    expected = {s: sum(r.status == s for r in result.trim.rows) for s in ("kept", "partial", "dropped")}
    page.goto(reports["long"].as_uri())
    assert page.evaluate(COUNT_JS) == expected
    # A fold opens from the keyboard: Tab to its summary, Enter, and its rows show.
    page.evaluate("() => document.querySelector('tr.trim-run summary').scrollIntoView({block: 'center'})")
    page.focus("tr.trim-run summary")
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.querySelector('tr.trim-run details').open")
    shown = page.evaluate("() => [...document.querySelectorAll('tr.trim-run details[open] tr.trim-run-row')]"
                          ".filter(r => r.getBoundingClientRect().height > 0).length")
    assert shown > 0
    page.screenshot(path=str(ARTIFACTS / "report_long_fold_open.png"))


# --- the trim explorer in JupyterLab: the rows it counts are the rows it shows (issue 20) -------------------

VISIBLE_JS = r"""([OUTPUT]) => {
    const explorer = document.querySelector(OUTPUT + ' .trim-explorer');
    const summary = [...explorer.querySelector('.trim-report').children]
        .map(d => d.textContent).find(t => /^\d+ messages: /.test(t));
    const clipped = row => {  // hidden by a box between the row and the explorer that clips its content
        const r = row.getBoundingClientRect();
        if (r.height === 0 || r.width === 0) return true;
        for (let e = row.parentElement; e && e !== explorer; e = e.parentElement) {
            const s = getComputedStyle(e);
            if (s.overflowY === 'visible' && s.overflowX === 'visible') continue;
            const b = e.getBoundingClientRect();
            if (r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5) return true;
        }
        return false;
    };
    const visible = {kept: 0, partial: 0, dropped: 0};
    explorer.querySelectorAll('table.trim-table > tbody > tr.trim-row').forEach(row => { if (!clipped(row)) visible[row.dataset.status] += 1; });
    explorer.querySelectorAll('table.trim-table > tbody > tr.trim-run').forEach(row => { if (!clipped(row)) visible[row.dataset.status] += Number(row.dataset.count); });
    const scrollers = [...explorer.querySelectorAll('*')].filter(e => {
        const s = getComputedStyle(e);
        return ['auto', 'scroll'].includes(s.overflowY) && e.scrollHeight > e.clientHeight + 1 && e.querySelector('tr');
    }).length;
    return {summary, visible, scrollers}; }"""


def _summary_counts(summary: str) -> dict[str, int]:
    return {status: int(n) for n, status in re.findall(r"(\d+) (kept|partial|dropped)", summary)}


@pytest.fixture(scope="module")
def trim_lab(lab_server):
    lesson = trim_explorer_lesson()
    target = lab_server.root / lesson
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / lesson, target)
    return lab_server, lesson


def test_the_trim_explorer_shows_every_row_its_summary_counts(chromium_browser, trim_lab):
    server, lesson = trim_lab
    with open_lab(chromium_browser, server, viewport={"width": 1400, "height": 900}) as lab:
        lab.open_notebook(lesson)
        lab.run_all_cells(".trim-explorer")
        lab.reveal(".trim-explorer")
        seen = []
        for step in range(3):
            state = lab.page.evaluate(VISIBLE_JS, [OUTPUT])
            counts = _summary_counts(state["summary"])
            seen.append(counts)
            assert sum(counts.values()) > 0, state
            assert state["visible"] == counts, f"rows visible {state['visible']} but the summary says {state['summary']!r}"
            assert state["scrollers"] == 0, "a box inside the explorer hides rows behind a scrollbar"
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            lab.page.screenshot(path=str(ARTIFACTS / f"trim_explorer_{step}.png"))
            before = lab.statuses()
            for _ in range(40):  # move the slider down until a row changes
                lab.press_on_slider(".trim-explorer", "PageDown")
                now = lab.statuses()
                if now and now != before:
                    break
            lab.page.wait_for_function(
                """(OUTPUT) => { const e = document.querySelector(OUTPUT + ' .trim-explorer');
                    const r = e.querySelector('.trim-report');
                    return r && Number(r.dataset.maxTokens) === Number(e.querySelector('.noUi-handle').getAttribute('aria-valuenow')); }""",
                arg=OUTPUT, timeout=15_000,
            )
        assert len({tuple(sorted(c.items())) for c in seen}) > 1, f"the slider never changed the counts: {seen}"
