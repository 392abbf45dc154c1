"""Printed Persian gets a font with Persian letters, in JupyterLab and on the website.

A Persian reader found the edition's printed sentences stretched: JupyterLab
prints in its code font, and DejaVu Sans Mono draws each Persian letter a
cell wide. The edition's first code cell shows a ``<style>``
(``course_utils.pictures.fonts``) that puts the notebook's printed text in
``core.style.PERSIAN_MONO``: Vazir Code where installed, else a Persian text
font the machine has for the Persian letters only. These tests hold the
pieces together; ``tests/test_browser_persian.py`` checks the drawn result
in Chromium.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

import make_persian_edition as edition
from course_utils.core import style
from course_utils.pictures.fonts import persian_output_style

ROOT = Path(__file__).resolve().parents[1]
PERSIAN_NOTEBOOKS = sorted([*edition.PERSIAN.glob("*.ipynb"), *edition.EXERCISE_PERSIAN.glob("*.ipynb")])


def code_points(ranges: str) -> set[int]:
    """The code points a CSS ``unicode-range`` list names (``U+0600-06FF,U+200C``)."""
    points = set()
    for part in ranges.split(","):
        low, _, high = part.strip().removeprefix("U+").partition("-")
        points |= set(range(int(low, 16), int(high or low, 16) + 1))
    return points


def face_range() -> set[int]:
    ranges = {match for match in re.findall(r"unicode-range:([^;}]+)", style.PERSIAN_FACE)}
    assert len(ranges) == 1, "both Persian faces take the same letters"
    return code_points(ranges.pop())


def test_code_points_reads_a_unicode_range():
    assert code_points("U+0041-0043,U+200C") == {0x41, 0x42, 0x43, 0x200C}


def test_the_persian_face_takes_persian_letters_and_nothing_else():
    """Persian letters, their punctuation and the half-space come from the Persian face; code and digits do not."""
    persian = "ابپتثجچحخدذرزژسشصضطظعغفقکگلمنوهیآأئءةۀ،؛؟\u200c"
    assert {ord(c) for c in persian} <= face_range()
    latin = "abcXYZ0123456789 =+-*/()[]{}:,.'\"_<>%"
    assert not {ord(c) for c in latin} & face_range(), "code, digits and spaces keep the code font"


def test_nothing_is_downloaded_and_the_stack_starts_persian():
    assert "url(" not in style.PERSIAN_FACE, "the course names fonts the machine has (local()), it downloads none"
    assert "local('Noto Sans Arabic Regular')" in style.PERSIAN_FACE and "local('Vazirmatn')" in style.PERSIAN_FACE
    assert style.PERSIAN_FACE.count("@font-face{") == 2
    families = [f.strip().strip("'") for f in style.PERSIAN_MONO.split(",")]
    assert families[:3] == ["Vazir Code", "Course Persian", "Course Persian System"]
    assert families[3].startswith("var(--jp-code-font-family") and families[-1].startswith("monospace")


def test_the_style_reaches_only_its_own_notebook_and_keeps_its_quotes():
    html = persian_output_style()
    assert style.PERSIAN_FACE in html and f"font-family:{style.PERSIAN_MONO}" in html
    assert ".jp-Notebook:has(.course-persian-output-font) .jp-RenderedText pre" in html
    assert "&#x27;" not in html and "&#39;" not in html, "a <style> is raw text: an escaped quote breaks the CSS"


def test_the_site_uses_the_same_face_and_stack():
    css = (ROOT / "site" / "static" / "course.css").read_text(encoding="utf-8")
    assert style.PERSIAN_FACE in css
    assert f'html[dir="rtl"] .cell_output pre {{ font-family: {style.PERSIAN_MONO}; }}' in css


def test_the_editions_first_cell_shows_the_style():
    assert "show_persian_output_font()" in edition.LANGUAGE_CELL


@pytest.mark.parametrize("path", PERSIAN_NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_each_persian_notebook_stores_the_current_style(path):
    """The language cell's stored output is today's style (a change of font list means a re-run)."""
    nb = nbformat.read(path, as_version=4)
    language = [c for c in nb.cells if edition.LANGUAGE_TAG in c.metadata.get("tags", [])]
    assert len(language) == 1
    shown = [o.get("data", {}).get("text/html", "") for o in language[0].outputs]
    assert shown == [persian_output_style()], f"re-run: python scripts/make_persian_edition.py {path.stem} --execute"
