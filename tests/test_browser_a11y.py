"""Accessibility in a real browser: axe-core over every lesson's outputs, and a keyboard-only walk.

What a learner with a screen reader or a keyboard meets, checked where it
happens: each lesson (every ``notebooks/*.ipynb``, so a lesson added later is
checked too) and one exercise master are opened in JupyterLab, Run All, and
axe-core runs its WCAG 2.0 / 2.1 A and AA rules over ``.jp-OutputArea-output``
(the course's outputs, not JupyterLab's own chrome). Any serious or critical
violation fails the test; every violation, of any impact, is printed with the
selectors of its nodes.

axe-core comes from the pinned ``axe-playwright-python`` package, which ships
``axe.min.js`` in the wheel: nothing is fetched at test time. Only the script
is used; this file calls ``axe.run`` itself, with its own context and options.

The keyboard walk opens the lesson holding a ``TrimExplorer`` (found by its
source, whatever the lesson is called): Tab reaches the ``max_tokens`` slider,
arrow keys move it and the rows change, focus stays on the slider and stays
visible while the output redraws, and Tab goes on through the other controls
to the table's scroll region, which the keyboard then scrolls.

Skipped, with the reason, when Chromium or Playwright is missing (a failure
under COURSE_REQUIRE_BROWSER=1, as in CI).
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import nbformat
import pytest

from course_utils.pictures.a11y import TRIM_HELP

from axe_support import AXE_TAGS, axe_script, describe, failing_violations
from browser_support import OUTPUT, open_lab
from browser_support import no_kernel_outlives_the_module, no_kernel_outlives_the_test  # noqa: F401 (autouse checks)

ROOT = Path(__file__).resolve().parents[1]
LESSONS = sorted((ROOT / "notebooks").glob("*.ipynb"))
#: One exercise master: the first, which draws figures as the lessons do.
EXERCISES = sorted((ROOT / "exercises" / "solutions").glob("*.ipynb"))[:1]
NOTEBOOKS = [p.relative_to(ROOT).as_posix() for p in LESSONS + EXERCISES]
ARTIFACTS = ROOT / "test-artifacts" / "a11y"

#: Notebook windowing off: every cell's outputs stay in the page (not only those on screen) for axe to see.
NOTEBOOK_SETTINGS = Path("@jupyterlab") / "notebook-extension" / "tracker.jupyterlab-settings"


def run_axe(page, selector: str = OUTPUT) -> dict:
    """Run axe-core's WCAG A/AA rules over the elements matching ``selector``; return its results."""
    page.evaluate(axe_script())
    return page.evaluate(
        """async ([selector, tags]) => {
            const found = document.querySelectorAll(selector).length;
            if (!found) return {found, violations: []};
            const results = await axe.run({include: [[selector]]},
                {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
            return {found, version: axe.version, violations: results.violations.map(v => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map(n => ({target: n.target.join(' '), summary: n.failureSummary}))}))};
        }""",
        [selector, AXE_TAGS],
    )


@pytest.fixture(scope="module")
def course_server(lab_server):
    """The lessons and the exercise master in the server's folder, laid out as in the repository."""
    for relative in NOTEBOOKS:
        target = lab_server.root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / relative, target)
    shutil.copy(ROOT / "requirements.txt", lab_server.root / "requirements.txt")  # lesson 00 reads the pins
    settings = lab_server.scratch / "settings" / NOTEBOOK_SETTINGS
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"windowingMode": "none"}))
    try:
        yield lab_server
    finally:
        settings.unlink(missing_ok=True)  # other browser tests keep JupyterLab's default


@pytest.fixture
def lab(chromium_browser, course_server):
    with open_lab(chromium_browser, course_server, viewport={"width": 1280, "height": 900}) as lab:
        yield lab


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_no_serious_or_critical_axe_violation_in_outputs(lab, notebook):
    lab.open_notebook(notebook)
    lab.run_every_cell()
    errors = lab.page.evaluate(
        "(OUTPUT) => [...document.querySelectorAll(OUTPUT + '[data-mime-type=\"application/vnd.jupyter.stderr\"]')]"
        ".map(e => e.textContent.slice(0, 300))",
        OUTPUT,
    )
    results = run_axe(lab.page)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    name = Path(notebook).stem
    lab.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    (ARTIFACTS / f"{name}.json").write_text(json.dumps(results, indent=1))
    print(f"{notebook}: axe {results.get('version')} over {results['found']} outputs\n{describe(results['violations'])}")
    assert results["found"] > 0, f"{notebook} showed no output after Run All"
    assert not errors, f"{notebook} wrote to stderr while running: {errors}"
    failing = failing_violations(results["violations"])
    assert not failing, f"{notebook}: serious or critical accessibility violations:\n{describe(failing)}"


def test_axe_finds_a_planted_violation(lab):
    """The check can fail: an image without alt text, put into a lesson's output, is reported."""
    lab.open_notebook(NOTEBOOKS[0])
    lab.run_every_cell()
    lab.page.evaluate(
        """(OUTPUT) => { const img = document.createElement('img');
            img.src = 'data:image/gif;base64,R0lGODlhAQABAAAAACw='; img.className = 'planted';
            document.querySelector(OUTPUT).appendChild(img); }""",
        OUTPUT,
    )
    ids = [v["id"] for v in failing_violations(run_axe(lab.page)["violations"])]
    assert "image-alt" in ids


# --- the keyboard-only walk ---------------------------------------------------------------------------


def trim_explorer_lesson() -> str:
    """The first lesson that shows a TrimExplorer, found by its code (lessons get split and renamed)."""
    for path in LESSONS:
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code" and "TrimExplorer(" in cell.source:
                return path.relative_to(ROOT).as_posix()
    pytest.fail("no lesson in notebooks/ shows a TrimExplorer")


ACTIVE_JS = """() => { const e = document.activeElement;
    const explorer = e && e.closest('.trim-explorer');
    const style = e ? getComputedStyle(e) : null;
    return e && {
        role: e.getAttribute('role'), tag: e.tagName.toLowerCase(), className: String(e.className),
        label: e.getAttribute('aria-label'), labelledby: e.getAttribute('aria-labelledby'),
        description: e.getAttribute('aria-description'),
        valuenow: e.getAttribute('aria-valuenow'), inExplorer: Boolean(explorer),
        inFirstExplorer: explorer === document.querySelector('""" + OUTPUT + """ .trim-explorer'),
        focusVisible: e.matches(':focus-visible'),
        outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0,
        shadow: style.boxShadow !== 'none',
        scrollTop: e.scrollTop, scrollable: e.scrollHeight > e.clientHeight,
    }; }"""


def test_keyboard_only_walk_through_the_trim_explorer(lab):
    lab.open_notebook(trim_explorer_lesson())
    lab.run_every_cell()
    lab.reveal(".trim-explorer")
    # Start just before the explorer, as if the learner had tabbed to it.
    lab.page.evaluate(
        """(OUTPUT) => { const root = document.querySelector(OUTPUT + ' .trim-explorer');
            root.setAttribute('tabindex', '-1'); root.focus(); }""",
        OUTPUT,
    )
    lab.page.keyboard.press("Tab")
    handle = lab.page.evaluate(ACTIVE_JS)
    assert handle["role"] == "slider" and handle["inFirstExplorer"], handle
    name = lab.page.evaluate(
        "() => { const e = document.activeElement, id = e.getAttribute('aria-labelledby');"
        " return e.getAttribute('aria-label') || (id && document.getElementById(id).textContent.trim()); }"
    )
    assert name and "max_tokens" in name, f"the slider's accessible name is {name!r}"
    assert handle["focusVisible"] and (handle["outline"] or handle["shadow"]), f"no visible focus: {handle}"
    assert handle["description"] == TRIM_HELP["max_tokens"], handle  # the tooltip, read out as its description

    before = lab.statuses()
    start = int(float(handle["valuenow"]))
    for _ in range(5):
        lab.page.keyboard.press("ArrowLeft")
    moved = lab.page.evaluate(ACTIVE_JS)
    assert moved["role"] == "slider" and int(float(moved["valuenow"])) == start - 5, moved
    # On until a row changes status (how far depends on the lesson's messages); the output redraws
    # on every step, and focus stays on the handle and stays visible.
    after = before
    for _ in range(60):
        for _ in range(10):
            lab.page.keyboard.press("ArrowLeft")
        time.sleep(0.3)
        after = lab.statuses()
        if after and after != before:
            break
    assert after != before, "moving max_tokens down by arrow keys changed no row"
    # Every key press redraws the output; wait for the last redraw (the table shows the slider's value).
    lab.page.wait_for_function(
        """(OUTPUT) => { const explorer = document.querySelector(OUTPUT + ' .trim-explorer');
            const report = explorer.querySelector('.trim-report');
            return report && Number(report.dataset.maxTokens) ===
                Number(explorer.querySelector('.noUi-handle').getAttribute('aria-valuenow')); }""",
        arg=OUTPUT, timeout=15_000,
    )
    still = lab.page.evaluate(ACTIVE_JS)
    assert still["role"] == "slider" and still["inFirstExplorer"] and still["focusVisible"], still

    # On through the explorer's other controls to the table's scroll region.
    visited = []
    for _ in range(20):
        lab.page.keyboard.press("Tab")
        active = lab.page.evaluate(ACTIVE_JS)
        assert active and active["inFirstExplorer"], f"Tab left the explorer before the table, after {visited}"
        if active["role"] == "region":
            break
        visited.append(active["role"] or active["tag"])
        if "widget-readout" in active["className"]:  # the slider's typed value, named after the slider
            assert active["role"] == "textbox" and active["labelledby"] == handle["labelledby"], active
        if active["tag"] == "select":
            assert active["description"] in TRIM_HELP.values(), f"a dropdown without a description: {active}"
    else:
        pytest.fail(f"Tab never reached the table's scroll region; it visited {visited}")
    assert active["label"], "the scroll region has no accessible name"
    assert active["focusVisible"] and active["outline"], f"no visible focus on the scroll region: {active}"
    assert "select" in visited and "input" in visited, f"Tab skipped the dropdowns or checkboxes: {visited}"
    lab.page.screenshot(path=str(ARTIFACTS / "keyboard_walk.png"))
    if not active["scrollable"]:  # a short table: make its box short, so there is something to scroll
        lab.page.evaluate("() => { document.activeElement.style.maxHeight = '6em'; }")
    for key in ("ArrowDown", "PageDown"):  # the keyboard scrolls the box; focus stays in it
        before = lab.page.evaluate(ACTIVE_JS)["scrollTop"]
        lab.page.keyboard.press(key)
        lab.page.wait_for_function(
            "(before) => document.activeElement.getAttribute('role') === 'region'"
            " && document.activeElement.scrollTop > before",
            arg=before, timeout=5_000,
        )

    # The kernel redraws the output while the region has focus: focus moves to the new region, still visible.
    old = lab.page.evaluate_handle("() => document.activeElement")
    lab.page.evaluate(
        """(code) => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.requestExecute({code})""",
        "import gc\nfrom course_utils.pictures.widgets import TrimExplorer\n"
        "explorers = [o for o in gc.get_objects() if isinstance(o, TrimExplorer)]\n"
        "for e in explorers: e.max_tokens.value -= 1",  # a new value: a different table, drawn anew
    )
    lab.page.wait_for_function("(old) => !old.isConnected", arg=old, timeout=15_000)
    redrawn = lab.page.evaluate(ACTIVE_JS)
    assert redrawn and redrawn["role"] == "region" and redrawn["inFirstExplorer"], redrawn
    assert redrawn["focusVisible"] and redrawn["outline"], redrawn
