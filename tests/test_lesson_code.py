"""A lesson's code is what a learner carries away: plain Python, built in its own cells (issue 32).

Over the English lessons (``notebooks/*.ipynb``):

- no ``_()`` call, no ``.conclusion`` and no import of ``course_utils.core.i18n``
  in a code cell: a learner copying a cell copies plain Python, and a
  conclusion is computed in the cell, not read from the package
  (the Persian edition translates the strings the code shows from its
  catalogue, ``scripts/code_catalogue.py``);
- at most :data:`MAX_IMPORTS` names imported from ``course_utils`` outside
  ``course_utils.pictures`` (widgets and figures are not what a lesson
  teaches; graphs, middleware and trims are, and they are written in the
  cells);
- at most :data:`MAX_WORDS` words of prose, about an hour's reading beside the code;
- lesson 00's course map and the README's list every lesson, and every
  lesson a lesson cites by number exists.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest

from code_catalogue import parse

ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted((ROOT / "notebooks").glob("*.ipynb"))
MAX_IMPORTS = 10
MAX_WORDS = 2400
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
#: A lesson cited by number: "lesson 04b", "lessons 05 and 05b", "[06 · ...]", "A1".
CITED = re.compile(r"\b[Ll]essons? ((?:\d\d[a-z]?|A\d)(?:(?:, | and | or | to )(?:\d\d[a-z]?|A\d))*)")


def code_trees(path: Path) -> list[tuple[str, ast.Module]]:
    nb = nbformat.read(path, as_version=4)
    return [(cell.get("id", "?"), parse(cell.source)) for cell in nb.cells if cell.cell_type == "code"]


def gettext_uses(tree: ast.AST) -> list[str]:
    """What makes a cell more than plain Python: ``_()`` calls, ``.conclusion``, the i18n import."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("_", "translate"):
            found.append(f"line {node.lineno}: {node.func.id}()")
        elif isinstance(node, ast.Attribute) and node.attr == "conclusion":
            found.append(f"line {node.lineno}: .conclusion")
        elif isinstance(node, ast.ImportFrom) and node.module == "course_utils.core.i18n":
            found.append(f"line {node.lineno}: import from course_utils.core.i18n")
    return found


def package_imports(trees) -> list[str]:
    """Names a lesson imports from course_utils, outside course_utils.pictures."""
    names = []
    for _, tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("course_utils"):
                if not node.module.startswith("course_utils.pictures"):
                    names += [alias.asname or alias.name for alias in node.names]
            elif isinstance(node, ast.Import):
                names += [a.name for a in node.names if a.name.startswith("course_utils") and
                          not a.name.startswith("course_utils.pictures")]
    return sorted(set(names))


def prose_words(path: Path) -> int:
    nb = nbformat.read(path, as_version=4)
    text = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
    return len(FENCE.sub("", text).split())


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_lesson_code_is_plain_python(path):
    found = [f"cell {cell_id}, {use}" for cell_id, tree in code_trees(path) for use in gettext_uses(tree)]
    assert found == [], f"{path.name}: print plain strings (the Persian comes from notebooks/fa/po/): {found}"


def test_the_plain_python_rule_sees_each_kind():
    tree = ast.parse('from course_utils.core.i18n import _\nprint(_("x"))\nprint(report.conclusion)')
    assert sorted(gettext_uses(tree)) == [
        "line 1: import from course_utils.core.i18n", "line 2: _()", "line 3: .conclusion"]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_lesson_imports_few_helpers(path):
    names = package_imports(code_trees(path))
    assert len(names) <= MAX_IMPORTS, (
        f"{path.name} imports {len(names)} names from course_utils outside pictures (at most {MAX_IMPORTS}): "
        f"{names}; write what the lesson teaches in its cells")


def test_the_import_count_leaves_pictures_out():
    tree = ast.parse("from course_utils.pictures.widgets import A, B\nfrom course_utils.window.tokens import c\n"
                     "import course_utils.model.chat")
    assert package_imports([("x", tree)]) == ["c", "course_utils.model.chat"]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_lesson_prose_fits_one_sitting(path):
    assert prose_words(path) <= MAX_WORDS, f"{path.name}: {prose_words(path)} words of prose (at most {MAX_WORDS})"


def lesson_numbers() -> set[str]:
    return {path.stem.split("_")[0] for path in LESSONS}


def test_every_lesson_is_on_lesson_00s_map_and_the_readme():
    start = nbformat.read(ROOT / "notebooks" / "00_start_here.ipynb", as_version=4)
    text = "\n".join(cell.source for cell in start.cells if cell.cell_type == "markdown")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for path in LESSONS:
        assert f"({path.name})" in text, f"lesson 00's course map does not link {path.name}"
        assert f"(notebooks/{path.name})" in readme, f"README's course map does not link {path.name}"


def cited_lessons(text: str) -> set[str]:
    """Lesson numbers a text cites in words ("lesson 05b", "lessons 06 and 06b").

    >>> sorted(cited_lessons("see lesson 05b, then lessons 06 and 06b; lesson 2 is not a number of ours"))
    ['05b', '06', '06b']
    """
    found = set()
    for match in CITED.finditer(text):
        found |= set(re.findall(r"\d\d[a-z]?|A\d", match.group(1)))
    return found


@pytest.mark.parametrize("path", [*LESSONS, ROOT / "README.md", ROOT / "TEACHING.md"], ids=lambda p: p.name)
def test_every_lesson_cited_by_number_exists(path):
    if path.suffix == ".ipynb":
        nb = nbformat.read(path, as_version=4)
        text = "\n".join(cell.source for cell in nb.cells)
    else:
        text = path.read_text(encoding="utf-8")
    missing = sorted(cited_lessons(text) - lesson_numbers())
    assert missing == [], f"{path.name} cites lessons that do not exist: {missing}"
