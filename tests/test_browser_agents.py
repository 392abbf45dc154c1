"""Lesson 06b's AgentStepExplorer in a real browser: JupyterLab on loopback, driven through Chromium.

What a learner does: open the lesson, run every cell, move the "model call"
slider with the keyboard, pick another strategy in the "strategy" list, and
read which messages that call was sent. The test checks each state the page
shows against ``call_status_line`` computed here, in the test process, from
the same runs the lesson makes. Screenshots go to ``test-artifacts/browser/``.

Skipped, with the reason, when Chromium or Playwright is missing (a failure
under COURSE_REQUIRE_BROWSER=1, as in CI); the server and browser fixtures
live in conftest.py.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import time
from pathlib import Path

from browser_support import (  # noqa: F401 (autouse checks)
    KERNEL_IDLE_JS,
    OUTPUT,
    no_kernel_outlives_the_module,
    no_kernel_outlives_the_test,
    open_lab,
)

ROOT = Path(__file__).resolve().parents[1]
LESSON = ROOT / "notebooks" / "06b_agent_failure_modes.ipynb"
ARTIFACTS = ROOT / "test-artifacts" / "browser"
EXPLORER = ".agent-explorer"

LINE_JS = """([OUTPUT, selector]) => {
    const line = document.querySelector(OUTPUT + ' ' + selector + ' .agent-step-line');
    return line ? line.textContent : null;
}"""


def lesson_runs():
    """The runs the lesson's explorer shows, rebuilt here by executing the lesson's code cells up to it."""
    import nbformat

    nb = nbformat.read(LESSON, as_version=4)
    namespace: dict = {}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if "agent_step_explorer(runs)" in cell.source:
            break
        source = "\n".join(line for line in cell.source.splitlines() if not line.startswith("%"))
        with contextlib.redirect_stdout(io.StringIO()):  # the lesson's prints and displays, not needed here
            exec(compile(source, "lesson-06b", "exec"), namespace)  # noqa: S102 - the course's own lesson
    return {run.name: run for run in namespace["runs"]}


def wait_for_all_cells(page, timeout_s: float = 90.0) -> None:
    page.wait_for_function(f"() => Boolean(document.querySelector('{OUTPUT} {EXPLORER} .agent-step-line'))",
                           timeout=timeout_s * 1000)
    deadline, settled = time.monotonic() + timeout_s, 0
    while settled < 2:
        if time.monotonic() > deadline:
            raise TimeoutError("the lesson's cells did not finish running")
        busy = page.evaluate(
            "() => [...document.querySelectorAll('.jp-InputPrompt')].some(p => p.textContent.includes('*'))")
        settled = 0 if busy or not page.evaluate(KERNEL_IDLE_JS) else settled + 1
        time.sleep(0.3)


def wait_for_line(page, expected: str, timeout_ms: int = 15_000) -> str:
    page.wait_for_function(
        """([OUTPUT, selector, expected]) => {
            const line = document.querySelector(OUTPUT + ' ' + selector + ' .agent-step-line');
            return Boolean(line) && line.textContent === expected;
        }""",
        arg=[OUTPUT, EXPLORER, expected],
        timeout=timeout_ms,
    )
    return page.evaluate(LINE_JS, [OUTPUT, EXPLORER])


def test_agent_step_explorer_in_jupyterlab(lab_server, chromium_browser):
    from course_utils.pictures.agent_views import call_status_line

    shutil.copy(LESSON, lab_server.root / LESSON.name)
    runs = lesson_runs()
    first = next(iter(runs.values()))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with open_lab(chromium_browser, lab_server, viewport={"width": 1280, "height": 900}) as lab:
        page = lab.page
        lab.open_notebook(LESSON.name)
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        wait_for_all_cells(page)
        lab.reveal(EXPLORER)
        assert wait_for_line(page, call_status_line(first, 1))

        # Both controls carry their names on the page.
        labels = page.locator(f"{OUTPUT} {EXPLORER} .widget-label").all_inner_texts()
        assert "strategy" in labels and "model call" in labels

        # The keyboard moves the slider to the last call of the first strategy.
        lab.press_on_slider(EXPLORER, "End")
        last = len(first.agent_calls)
        assert lab.slider_readout(EXPLORER) == last
        assert wait_for_line(page, call_status_line(first, last))
        assert "refused" in page.locator(f"{OUTPUT} {EXPLORER} caption").first.inner_text()
        page.screenshot(path=str(ARTIFACTS / "lesson06b-explorer-last-call.png"))

        # Another strategy: the clearing run, whose last call was sent cleared tool results.
        clearing = next(name for name in runs if name.startswith("clear tool uses"))
        page.locator(f"{OUTPUT} {EXPLORER} select").first.select_option(clearing)
        calls = len(runs[clearing].agent_calls)
        assert wait_for_line(page, call_status_line(runs[clearing], min(last, calls)))
        statuses = page.locator(f"{OUTPUT} {EXPLORER} table.agent-call tbody tr").evaluate_all(
            "rows => rows.map(r => r.dataset.role)")
        assert "cleared tool results" in statuses
        lab.reveal(EXPLORER)
        page.screenshot(path=str(ARTIFACTS / "lesson06b-explorer-cleared.png"))


LESSON_07B = ROOT / "notebooks" / "07b_isolating_and_selecting.ipynb"


def test_lesson_07b_runs_in_jupyterlab(lab_server, chromium_browser):
    """Lesson 07b, Run All in JupyterLab: the accounting check prints True, the windows figure shows with the
    alt text computed here from the same runs, the verdict in dollars prints, and the selector's failure shows."""
    from course_utils.agentic.subagents import compare_isolation
    from course_utils.model.chat import OfflineChatModel
    from course_utils.pictures.isolation_views import windows_text

    shutil.copy(LESSON_07B, lab_server.root / LESSON_07B.name)
    comparison = compare_isolation(OfflineChatModel(context_window=100_000))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with open_lab(chromium_browser, lab_server, viewport={"width": 1280, "height": 900}) as lab:
        page = lab.page
        lab.open_notebook(LESSON_07B.name)
        lab.run_every_cell()
        # textContent, not innerText: JupyterLab does not render off-screen cells' text
        joined = "\n".join(page.locator(OUTPUT).evaluate_all("outputs => outputs.map(o => o.textContent)"))
        assert "equal: True" in joined
        assert not page.locator(f"{OUTPUT}[data-mime-type='application/vnd.jupyter.stderr']").count()
        alts = page.locator(f"{OUTPUT} img").evaluate_all("imgs => imgs.map(i => i.alt)")
        assert any(windows_text(comparison) in alt for alt in alts), alts
        assert sum(bool(alt) for alt in alts) >= 2 and all(alts)
        assert "without caching, isolation" in joined and "with caching, isolation" in joined
        assert "max_tools=1: bound get_weather\n" in joined.replace("\r", "") and "120 + 45 = 165" in joined
        for _ in range(3):  # off-screen cells get their real height only once drawn: scroll until it stays
            page.locator(f"{OUTPUT} img").first.evaluate("img => img.scrollIntoView({block: 'center'})")
            time.sleep(0.5)
        page.screenshot(path=str(ARTIFACTS / "lesson07b-windows.png"))
        for _ in range(3):
            page.locator(f"{OUTPUT} img").last.evaluate("img => img.scrollIntoView({block: 'center'})")
            time.sleep(0.5)
        page.screenshot(path=str(ARTIFACTS / "lesson07b-schemas.png"))
