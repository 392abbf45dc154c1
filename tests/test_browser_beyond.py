"""Lesson 07 in a real browser: JupyterLab on loopback, Run All in Chromium, then read what a learner sees.

Checks that every cell ran without an error, that the memory thread B
recalled the fact thread A saved, that the SQLite rows read back from the
lesson's file are shown, and that both figures are images whose ``alt`` text
states their point. Screenshots go to ``test-artifacts/browser/``.

Skipped, with the reason, when Chromium or Playwright is missing (a failure
under COURSE_REQUIRE_BROWSER=1, as in CI); the server and browser fixtures
live in conftest.py.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from browser_support import (  # noqa: F401 (autouse checks)
    OUTPUT,
    no_kernel_outlives_the_module,
    no_kernel_outlives_the_test,
    open_lab,
)

ROOT = Path(__file__).resolve().parents[1]
LESSON = ROOT / "notebooks" / "07_beyond_one_window.ipynb"
ARTIFACTS = ROOT / "test-artifacts" / "browser"


def test_lesson_07_runs_in_jupyterlab(lab_server, chromium_browser):
    shutil.copy(LESSON, lab_server.root / LESSON.name)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with open_lab(chromium_browser, lab_server, viewport={"width": 1280, "height": 900}) as lab:
        page = lab.page
        lab.open_notebook(LESSON.name)
        lab.run_every_cell()
        errors = page.locator(f"{OUTPUT} .jp-RenderedText[data-mime-type='application/vnd.jupyter.stderr']").count()
        assert errors == 0, "a cell wrote to stderr (an error or a warning)"
        text = page.evaluate("(OUTPUT) => [...document.querySelectorAll(OUTPUT)].map(o => o.textContent).join('\\n')",
                             OUTPUT)
        assert "recall_memory says: my favourite colour is green." in text, "thread B recalled thread A's fact"
        assert "memories.sara" in text and "'source': 'user'" in text, "the rows read back from the SQLite file"
        assert (lab_server.root / "course_data" / "07_beyond_one_window.sqlite").is_file(), \
            "the store is a file in course_data/, beside the lesson"
        diagram = page.locator(".jp-RenderedMermaid, .jp-RenderedHTMLCommon svg[id^='mermaid']")
        if diagram.count():
            diagram.first.evaluate("d => d.scrollIntoView({block: 'center'})")
            page.screenshot(path=str(ARTIFACTS / "lesson07-frame.png"))
        alts = page.locator(f"{OUTPUT} img").evaluate_all("imgs => imgs.map(i => i.alt)")
        assert len(alts) == 2 and all(alt.startswith("Tokens") for alt in alts), alts
        for n, image in enumerate(page.locator(f"{OUTPUT} img").all(), start=1):
            image.evaluate("i => i.scrollIntoView({block: 'center'})")
            page.screenshot(path=str(ARTIFACTS / f"lesson07-figure-{n}.png"))
