"""The Persian lessons run the English program with Persian strings, from one catalogue per lesson (issue 32).

``scripts/code_catalogue.py`` writes a Persian code cell by replacing the
strings of the English one that the lesson's catalogue translates;
``test_persian_edition.test_code_cells_are_the_english_program`` compares
every stored Persian cell's syntax tree with the English one's, strings
blanked. These tests hold the mechanism itself: what counts as the same
program, what a translation may and may not change, and that the catalogue
says when the Persian edition is stale.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

import code_catalogue as cc
import make_persian_edition as edition

LESSONS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_every_lesson_has_a_catalogue_of_its_code_strings(path):
    catalogue = edition.CATALOGUES / f"{path.stem}.po"
    assert catalogue.exists(), f"run: python scripts/make_persian_edition.py {path.stem} --extract, then translate"


def test_a_translation_keeps_the_program():
    code = 'for n in sizes:\n    print(f"{n:>4} tokens, {n / total:.0%} of the window")\n'
    persian = cc.translate_code(code, {"{n:>4} tokens, {n / total:.0%} of the window":
                                       "{n / total:.0%} از پنجره، {n} token"})
    assert persian == 'for n in sizes:\n    print(f"{n / total:.0%} از پنجره، {n} token")\n'
    assert cc.shape(persian) == cc.shape(code)


def test_a_translation_that_changes_code_is_refused():
    with pytest.raises(cc.CatalogueError, match=r"must keep its fields \['\{n\}'\], has \['\{n \+ 1\}'\]"):
        cc.translate_code('print(f"{n} calls")', {"{n} calls": "{n + 1} فراخوانی"})


@pytest.mark.parametrize("changed", ['print(f"{n + 1} calls")', 'print(f"{m} calls")', 'print("calls", n, 1)',
                                     'print(f"{n} calls", end="")'])
def test_the_shape_sees_a_changed_program(changed):
    assert cc.shape(changed) != cc.shape('print(f"{n} calls")')


def test_every_string_with_the_same_text_gets_the_same_translation():
    code = 'names = {"en": "English"}\nrows = [names["en"]]\nprint("English", rows)'
    persian = cc.translate_code(code, {"English": "انگلیسی"})
    assert persian.count("انگلیسی") == 2 and "English" not in persian
    assert cc.shape(persian) == cc.shape(code)


def test_quotes_isolates_and_persian_letters_are_written_as_python_reads_them():
    text = '\u2067«سلام» "quoted" و می\u200cگوید\u2069'
    literal = cc.python_literal(text, f_string=False)
    assert eval(literal) == text  # noqa: S307 - our own literal
    assert "\\u2067" in literal and "\u200c" in literal  # the isolate shows as an escape; the ZWNJ stays in the word


def test_magics_keep_their_lines():
    code = "%matplotlib inline\nprint('one word here')"
    assert cc.translate_code(code, {"one word here": "یک واژه"}) == '%matplotlib inline\nprint("یک واژه")'


def test_extract_adds_new_strings_and_marks_changed_ones_fuzzy():
    catalogue = cc.update_catalogue(cc.read_catalogue(Path("/nonexistent.po")),
                                    [("a", 'print("history budget of the call")')])
    catalogue["history budget of the call"].string = "بودجهٔ تاریخچهٔ فراخوانی"
    cells = [("a", 'print("history budget of this call")\nprint("a brand new line")')]
    catalogue = cc.update_catalogue(catalogue, cells)
    changed = catalogue["history budget of this call"]
    assert changed.fuzzy and changed.string == "بودجهٔ تاریخچهٔ فراخوانی"
    assert "history budget of the call" not in catalogue
    assert cc.missing(catalogue, cells) == ["history budget of this call", "a brand new line"]


def test_a_stale_catalogue_is_drift(tmp_path, monkeypatch):
    """An English print added alone (in a copy) makes the Persian lesson stale, and the check says which string."""
    source = next(p for p in sorted(edition.SOURCES.glob("*.md")) if (edition.CATALOGUES / f"{p.stem}.po").exists())
    nb = nbformat.read(edition.english_for(source), as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code")
    cell.source += '\nprint("a sentence nobody translated")'
    monkeypatch.setattr(edition, "ENGLISH", tmp_path)
    nbformat.write(nb, tmp_path / f"{source.stem}.ipynb")
    problems = [p for p in edition.drift(source) if "a sentence nobody translated" in p]
    assert len(problems) == 1 and "--extract" in problems[0]
