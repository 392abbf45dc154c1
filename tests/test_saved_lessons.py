"""Code saved from a lesson (``#@save``) and its copy in ``course_utils/lessons/`` never differ.

The lesson is the one source (scripts/save_lessons.py); this test fails when
a marked cell changed and the module was not regenerated, when a module is
edited by hand, or when a marked cell holds code that runs at import time.
"""

from __future__ import annotations

import importlib

import pytest

import save_lessons


def test_saved_modules_match_their_lessons():
    stale = save_lessons.stale(save_lessons.expected_modules())
    assert not stale, f"stale saved modules {stale}: run python scripts/save_lessons.py"


@pytest.mark.parametrize("path", sorted(save_lessons.expected_modules()), ids=lambda p: p.stem)
def test_saved_module_imports(path):
    module = importlib.import_module(f"course_utils.lessons.{path.stem}")
    assert module.__doc__.startswith("Saved from notebooks/")


def test_a_cell_that_runs_code_is_refused():
    with pytest.raises(save_lessons.SaveError, match="cell 7, line 2: .*not Expr"):
        save_lessons.check_savable("import os\nprint(os.sep)", "cell 7")


def test_a_stale_module_is_named(tmp_path, monkeypatch):
    monkeypatch.setattr(save_lessons, "PACKAGE", tmp_path)
    path = tmp_path / "lesson04.py"
    path.write_text("edited by hand\n", encoding="utf-8")
    (tmp_path / "lesson99.py").write_text("", encoding="utf-8")
    assert save_lessons.stale({path: "saved text\n"}) == ["lesson04.py", "lesson99.py (no lesson saves it)"]
