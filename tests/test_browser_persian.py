"""The Persian lessons (notebooks/fa/) in JupyterLab + Chromium: right to left, and accessible.

Each Persian lesson is opened in JupyterLab with the course's folder layout
(notebooks/fa/ beside notebooks/, so its links resolve), Run All, and then:

- every rendered Markdown cell holds its text in a ``lang="fa" dir="rtl"``
  block, and that block is laid out right to left (computed ``direction``),
  while code cells stay left to right;
- axe-core's WCAG 2.0/2.1 A and AA rules over the Markdown cells *and* the
  outputs find no serious or critical violation;
- a full-page screenshot goes to test-artifacts/persian/ for a person to look at.

Skipped, with the reason, when Chromium or Playwright is missing (a failure
under COURSE_REQUIRE_BROWSER=1, as in CI).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from browser_support import open_lab
from browser_support import no_kernel_outlives_the_module, no_kernel_outlives_the_test  # noqa: F401 (autouse checks)
from test_browser_a11y import NOTEBOOK_SETTINGS, describe, failing_violations, run_axe

ROOT = Path(__file__).resolve().parents[1]
LESSONS = [p.relative_to(ROOT).as_posix() for p in sorted((ROOT / "notebooks" / "fa").glob("*.ipynb"))]
#: And one Persian exercise master (the English exercises' axe test takes one too): its check boxes are Persian.
LESSONS += [p.relative_to(ROOT).as_posix() for p in sorted((ROOT / "exercises" / "fa" / "solutions").glob("03_*.ipynb"))]
ARTIFACTS = ROOT / "test-artifacts" / "persian"
PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"
#: What axe checks: the lesson's own content (its Markdown and its outputs), not JupyterLab's chrome.
CONTENT = f"{PANEL} .jp-MarkdownOutput, {PANEL} .jp-OutputArea-output"


@pytest.fixture(scope="module")
def persian_server(lab_server):
    for relative in LESSONS:
        target = lab_server.root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / relative, target)
    settings = lab_server.scratch / "settings" / NOTEBOOK_SETTINGS
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"windowingMode": "none"}))
    try:
        yield lab_server
    finally:
        settings.unlink(missing_ok=True)


@pytest.fixture
def lab(chromium_browser, persian_server):
    with open_lab(chromium_browser, persian_server, viewport={"width": 1280, "height": 900}) as lab:
        yield lab


DIRECTIONS_JS = """(PANEL) => {
    const markdown = [...document.querySelectorAll(PANEL + ' .jp-MarkdownCell .jp-MarkdownOutput')];
    return {
        markdown: markdown.map(m => {
            const block = m.querySelector('div[lang="fa"][dir="rtl"]');
            return {rtl: !!block, direction: block ? getComputedStyle(block).direction : null,
                    text: m.textContent.trim().slice(0, 60)};
        }),
        code: [...document.querySelectorAll(PANEL + ' .jp-CodeCell .jp-InputArea-editor')]
            .map(e => getComputedStyle(e).direction),
    };
}"""


@pytest.mark.parametrize("notebook", LESSONS)
def test_persian_lesson_reads_right_to_left_and_passes_axe(lab, notebook):
    lab.open_notebook(notebook)
    lab.run_every_cell()
    directions = lab.page.evaluate(DIRECTIONS_JS, PANEL)
    results = run_axe(lab.page, CONTENT)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    name = Path(notebook).stem
    lab.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    (ARTIFACTS / f"{name}.json").write_text(json.dumps(results, indent=1))
    print(f"{notebook}: axe {results.get('version')} over {results['found']} elements\n{describe(results['violations'])}")

    in_file = sum(c["cell_type"] == "markdown" for c in json.loads((ROOT / notebook).read_text(encoding="utf-8"))["cells"])
    assert len(directions["markdown"]) >= min(10, in_file), "too few Markdown cells rendered"
    not_rtl = [m["text"] for m in directions["markdown"] if not m["rtl"] or m["direction"] != "rtl"]
    assert not not_rtl, f"Markdown cells not laid out right to left: {not_rtl}"
    assert directions["code"] and set(directions["code"]) == {"ltr"}, directions["code"]
    failing = failing_violations(results["violations"])
    assert not failing, f"{notebook}: serious or critical accessibility violations:\n{describe(failing)}"


ALIGNMENT_JS = """([PANEL, text]) => {
    const paragraph = [...document.querySelectorAll(PANEL + ' .jp-MarkdownCell .jp-MarkdownOutput p')]
        .find(p => p.textContent.trim() === text);
    if (!paragraph) return null;
    // The text's own extent, not the block it sits in: from its first text node to its last.
    const walker = document.createTreeWalker(paragraph, NodeFilter.SHOW_TEXT);
    const texts = [];
    while (walker.nextNode()) if (walker.currentNode.textContent.trim()) texts.push(walker.currentNode);
    const range = document.createRange();
    range.setStart(texts[0], 0);
    range.setEnd(texts[texts.length - 1], texts[texts.length - 1].length);
    const line = range.getBoundingClientRect(), box = paragraph.getBoundingClientRect();
    return {textLeft: line.left, textRight: line.right, boxLeft: box.left, boxRight: box.right,
            html: paragraph.innerHTML.slice(0, 120)};
}"""


def test_a_one_line_persian_paragraph_is_right_aligned(lab):
    """JupyterLab's stylesheet sets ``text-align: left`` on ``<p>``: the edition's paragraphs must still start right.

    «در پایان این درس می‌توانید:» (lesson 02's objectives) is one short line:
    its text must end at the paragraph's right edge, far from its left edge.
    """
    lab.open_notebook("notebooks/fa/02_token_budgets.ipynb")
    found = lab.page.evaluate(ALIGNMENT_JS, [PANEL, "در پایان این درس می‌توانید:"])
    assert found is not None, "the objectives' first paragraph was not rendered as a <p>"
    assert abs(found["boxRight"] - found["textRight"]) < 3, found
    assert found["textLeft"] - found["boxLeft"] > 200, found


ORDER_JS = """(numbers) => {
    // Where each number of the message is drawn: the x of its first character.
    const block = document.querySelector('.course-check div');
    const walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
    const node = walker.nextNode();
    const text = node.textContent;
    return numbers.map(n => {
        const at = text.indexOf(n);
        if (at < 0) return null;
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + n.length);
        return range.getBoundingClientRect().left;
    });
}"""


def test_exercise_02_q1_correct_message_reads_its_subtraction_left_to_right(chromium_browser):
    """«8192 - 1200 - 450 - 1024 = 5518» in the Persian "correct" message of exercise 02 q1 is drawn in that order.

    Without its LTR isolate, the bidi algorithm draws it "5518 = 1024 - 450 - 1200 - 8192".
    The message is made by the package as the learner's check makes it.
    """
    from course_utils.checks import ex02
    from course_utils.core import i18n

    before = i18n.get_language()
    i18n.set_language("fa")
    try:
        result = ex02.questions[0].check(lambda limit, system, user, reserve: limit - system - user - reserve)
        html = result._repr_html_()
    finally:
        i18n.set_language(before)
    assert result.correct and "5518" in html, html
    page = chromium_browser.new_page(viewport={"width": 900, "height": 300})
    try:
        page.set_content(f'<!doctype html><html lang="fa"><body>{html}</body></html>')
        x_8192, x_1200, x_5518 = page.evaluate(ORDER_JS, ["8192", "1200", "5518"])
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "ex02_q1_correct.png"))
    finally:
        page.close()
    assert x_8192 < x_1200 < x_5518, (x_8192, x_1200, x_5518)


FONT_PROBE_JS = """(PANEL) => {
    // The first printed output (a <pre>) with Persian letters in the visible notebook: mark it for CDP.
    const pre = [...document.querySelectorAll(PANEL + ' .jp-OutputArea-output.jp-RenderedText pre')]
        .find(p => /[\\u0600-\\u06FF]/.test(p.textContent));
    if (!pre) return null;
    pre.setAttribute('data-font-probe', '1');
    pre.scrollIntoView({block: 'center'});
    return {family: getComputedStyle(pre).fontFamily, text: pre.textContent.slice(0, 120)};
}"""


def drawn_with(page, selector: str) -> dict[str, int]:
    """The fonts Chromium drew the element's text with, and how many glyphs each (DevTools' CSS domain)."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    finally:
        cdp.detach()
    return {f["familyName"]: f["glyphCount"] for f in fonts}


def test_printed_persian_is_drawn_in_a_font_with_persian_letters(lab, persian_server):
    """A Persian lesson's printed text is not drawn in the code font's stretched Persian letters.

    JupyterLab prints a cell's output in a ``<pre>`` in its code font, here
    DejaVu Sans Mono, which draws each Persian letter a cell wide. After the
    edition's first cell has run, the computed font-family of a printed
    Persian line starts with Vazir Code and the course's Persian face, and
    Chromium draws its Persian letters with a font other than DejaVu Sans
    Mono; an English lesson open beside it keeps JupyterLab's code font.
    """
    english = "notebooks/02_token_budgets.ipynb"
    shutil.copy(ROOT / english, persian_server.root / english)
    lab.open_notebook("notebooks/fa/02_token_budgets.ipynb")
    lab.run_every_cell()
    probe = lab.page.evaluate(FONT_PROBE_JS, PANEL)
    assert probe is not None, "no printed output with Persian letters in lesson 02"
    families = [f.strip().strip("'\"") for f in probe["family"].split(",")]
    assert families[:3] == ["Vazir Code", "Course Persian", "Course Persian System"], probe
    assert "DejaVu Sans Mono" in families[2:], probe  # code and digits keep the code font
    fonts = drawn_with(lab.page, f"{PANEL} pre[data-font-probe]")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    lab.page.locator(f"{PANEL} pre[data-font-probe]").screenshot(path=str(ARTIFACTS / "printed_persian_font.png"))
    persian_fonts = {name: n for name, n in fonts.items() if name != "DejaVu Sans Mono"}
    assert persian_fonts, f"every glyph of {probe['text']!r} was drawn in DejaVu Sans Mono: {fonts}"

    lab.page.evaluate("(path) => { window.jupyterapp.commands.execute('docmanager:open', {path}); return true; }", english)
    lab.page.wait_for_function(
        """([PANEL, path]) => {
            const widget = window.jupyterapp.shell.currentWidget;
            return Boolean(widget && widget.context && widget.context.path === path
                && widget.node.querySelector('.jp-RenderedText pre'));
        }""", arg=[PANEL, english])
    family = lab.page.evaluate(
        "() => getComputedStyle(window.jupyterapp.shell.currentWidget.node.querySelector('.jp-RenderedText pre')).fontFamily")
    assert "Course Persian" not in family and "Vazir Code" not in family, family
    still_persian = lab.page.evaluate(
        "() => getComputedStyle(document.querySelector('pre[data-font-probe]')).fontFamily")
    assert still_persian == probe["family"], "the Persian notebook, open beside it, keeps its font"


def test_the_sites_persian_pages_draw_printed_persian_in_a_persian_font(chromium_browser):
    """The website's stylesheet gives a Persian page's printed outputs the same fonts (no JupyterLab there)."""
    css = (ROOT / "site" / "static" / "course.css").read_text(encoding="utf-8")
    page = chromium_browser.new_page(viewport={"width": 700, "height": 200})
    try:
        page.set_content(f'<!doctype html><html lang="fa" dir="rtl"><head><style>{css}</style></head><body>'
                         '<div class="cell_output"><pre id="out">بنابراین بودجهٔ تاریخچه B = 2866 token است.</pre></div>'
                         '</body></html>')
        page.wait_for_timeout(200)
        family = page.evaluate("() => getComputedStyle(document.getElementById('out')).fontFamily")
        fonts = drawn_with(page, "#out")
    finally:
        page.close()
    assert family.startswith('"Vazir Code", "Course Persian"'), family
    assert {name for name in fonts if name != "DejaVu Sans Mono"}, fonts
