"""The token visualiser (lesson 01) in a real browser: JupyterLab on loopback, driven through Chromium.

A generated notebook with two ``TokenView`` widgets (Persian: cl100k_base vs
o200k_base; Chinese: cl100k_base vs llama3) is run in JupyterLab. The test
reads what the page shows and checks it against the counts computed here:
the count in each pane's heading and the number of tokens drawn; Persian is
laid out right to left; Tab from the text box reaches the first token, whose
id then shows on screen; picking another sample redraws. Screenshots go to
``test-artifacts/browser/tokens_*.png``.
"""

from __future__ import annotations

import time

import nbformat
import pytest

from course_utils.pictures.token_view import sample_text
from course_utils.window.tokens import count_text_tokens

from browser_support import OUTPUT, LabPage, open_lab, scratch_notebook
from browser_support import no_kernel_outlives_the_module, no_kernel_outlives_the_test  # noqa: F401 (autouse checks)

from test_browser import ARTIFACTS, screenshot

NOTEBOOK = "token_view_demo.ipynb"

PANES_JS = """([OUTPUT, selector]) => {
    const view = document.querySelector(OUTPUT + ' ' + selector);
    if (!view) return null;
    return [...view.querySelectorAll('.cu-token-split')].map(pane => ({
        encoding: pane.dataset.encoding,
        shown: Number(pane.dataset.count),
        heading: pane.firstElementChild.textContent,
        tokens: pane.querySelectorAll('.cu-token').length,
        dir: (pane.querySelector('[role=list]') || {}).dir || null,
        lang: (pane.querySelector('[role=list]') || {}).lang || null,
        direction: pane.querySelector('[role=list]') ? getComputedStyle(pane.querySelector('[role=list]')).direction : null,
    }));
}"""


def demo_notebook() -> nbformat.NotebookNode:
    return scratch_notebook(
        None,
        "from course_utils.pictures.token_view import TokenView",
        'persian = TokenView(sample="fa")\npersian.add_class("demo-fa")\npersian',
        'chinese = TokenView(sample="zh", right="llama3")\nchinese.add_class("demo-zh")\nchinese',
    )


@pytest.fixture(scope="module")
def page(lab_server, chromium_browser):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    nbformat.write(demo_notebook(), lab_server.root / NOTEBOOK)
    with open_lab(chromium_browser, lab_server, viewport={"width": 1280, "height": 1200}) as lab:
        started = time.monotonic()
        lab.open_notebook(NOTEBOOK)
        lab.page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        lab.page.wait_for_function(
            "(OUTPUT) => document.querySelectorAll(OUTPUT + ' .token-view .cu-token-split').length === 4",
            arg=OUTPUT,
            timeout=60_000,
        )
        print(f"\nbrowser: token view notebook open and run in {time.monotonic() - started:.1f} s")
        yield lab


def panes(lab: LabPage, selector: str) -> list[dict]:
    return lab.page.evaluate(PANES_JS, [OUTPUT, selector])


def test_counts_shown_are_the_real_counts_and_persian_is_right_to_left(page):
    text = sample_text("fa")
    shown = panes(page, ".demo-fa")
    assert [p["encoding"] for p in shown] == ["cl100k_base", "o200k_base"]
    for pane in shown:
        real = count_text_tokens(text, pane["encoding"])
        assert pane["shown"] == pane["tokens"] == real, pane
        assert pane["heading"].startswith(f"{pane['encoding']}: {real} tokens")
        assert (pane["lang"], pane["dir"], pane["direction"]) == ("fa", "rtl", "rtl")
    assert shown[1]["tokens"] < shown[0]["tokens"]  # o200k_base is kinder to Persian
    page.reveal(".demo-fa")
    screenshot(page, "tokens_01_persian", ".demo-fa")


def test_chinese_shows_real_characters_and_llama3(page):
    text = sample_text("zh")
    shown = panes(page, ".demo-zh")
    assert [p["encoding"] for p in shown] == ["cl100k_base", "llama3"]
    for pane in shown:
        assert pane["tokens"] == count_text_tokens(text, pane["encoding"])
        assert pane["lang"] == "zh"
    first_char = page.page.locator(f"{OUTPUT} .demo-zh .cu-token").first.inner_text()
    assert first_char and first_char in text
    page.reveal(".demo-zh")
    screenshot(page, "tokens_02_chinese", ".demo-zh")


def test_tab_reaches_a_token_and_its_id_shows(page):
    page.reveal(".demo-fa")
    box = page.page.locator(f"{OUTPUT} .demo-fa .token-text textarea").first
    box.focus()
    page.page.keyboard.press("Tab")
    focused = page.page.evaluate(
        """() => {
            const el = document.activeElement;
            return {
                token: el.classList.contains('cu-token'),
                id: el.dataset.id,
                label: el.getAttribute('aria-label'),
                after: getComputedStyle(el, '::after').content,
                outline: getComputedStyle(el).outlineStyle,
            };
        }"""
    )
    assert focused["token"], focused
    assert f"id {focused['id']}" in focused["label"] and focused["label"].startswith("token 1 of ")
    assert focused["id"] in focused["after"]  # the id is drawn after the focused token
    assert focused["outline"] == "solid"
    screenshot(page, "tokens_03_focus", ".demo-fa")


def test_picking_another_sample_redraws(page):
    page.reveal(".demo-fa")
    page.page.locator(f"{OUTPUT} .demo-fa .token-sample select").first.select_option(label="English")
    text = sample_text("en")
    page.page.wait_for_function(
        """([OUTPUT, n]) => {
            const pane = document.querySelector(OUTPUT + ' .demo-fa .cu-token-split');
            return pane && Number(pane.dataset.count) === n;
        }""",
        arg=[OUTPUT, count_text_tokens(text, "cl100k_base")],
        timeout=15_000,
    )
    shown = panes(page, ".demo-fa")
    assert all(p["lang"] == "en" and p["direction"] == "ltr" for p in shown)
    assert [p["tokens"] for p in shown] == [count_text_tokens(text, p["encoding"]) for p in shown]
    screenshot(page, "tokens_04_english", ".demo-fa")
