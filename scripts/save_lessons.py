"""Copy the code cells a lesson marks ``#@save`` into ``course_utils/lessons/`` (d2l's ``#@save``).

A lesson writes what it teaches in its own cells: the graph, the node, the
middleware, the memory tool. When a later lesson, an exercise check or a
widget needs the same code, the lesson marks the cell with ``#@save`` on its
first line, and this script copies every marked cell of
``notebooks/NN_name.ipynb``, in order, into the module
``course_utils/lessons/lessonNN.py``. The lesson stays the one source: the
module says so in its first line, and ``tests/test_saved_lessons.py`` fails
when the module differs from what this script would write.

A marked cell holds only what a module may hold at import time: imports,
``def`` and ``class`` statements, and assignments of names (constants, a
prompt). It must not print, draw or call a model; the script refuses a cell
with any other statement and names it.

    python scripts/save_lessons.py           # write the modules
    python scripts/save_lessons.py --check   # exit 1 if a module is stale (what the test does)
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
LESSONS = ROOT / "notebooks"
PACKAGE = ROOT / "course_utils" / "lessons"
MARKER = "#@save"
ALLOWED = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign, ast.AnnAssign)


class SaveError(ValueError):
    """A marked cell that cannot be saved: the message names the notebook and the cell."""


def module_name(notebook: Path) -> str:
    """``04_langgraph_integration.ipynb`` -> ``lesson04``; ``04b_summarising_history.ipynb`` -> ``lesson04b``.

    >>> module_name(Path("notebooks/04b_summarising_history.ipynb"))
    'lesson04b'
    """
    number = re.match(r"([0-9]+[a-z]?|A[0-9]+)_", notebook.name)
    if not number:
        raise SaveError(f"{notebook.name}: a lesson's file name starts with its number, e.g. 04_name.ipynb")
    return "lesson" + number.group(1).lower()


def marked_cells(notebook: Path) -> list[tuple[str, str]]:
    """The ``(cell id, code without the marker line)`` of every marked cell, in order."""
    nb = nbformat.read(notebook, as_version=4)
    found = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        first, _, rest = cell.source.partition("\n")
        if first.strip() != MARKER:
            continue
        check_savable(rest, f"{notebook.name}, cell {cell.get('id', '?')}")
        found.append((cell.get("id", "?"), rest.strip("\n")))
    return found


def check_savable(code: str, where: str) -> None:
    """Refuse a marked cell whose top-level statements are not imports, definitions or assignments.

    >>> check_savable("import os\\nX = 1\\ndef f():\\n    print('runs later')", "here")
    >>> try:
    ...     check_savable("print('now')", "cell 3")
    ... except SaveError as error:
    ...     print(error)
    cell 3, line 1: a #@save cell holds imports, def, class and assignments only, not Expr; move it to a cell of its own
    """
    for node in ast.parse(code).body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            continue  # a docstring-like string is harmless
        if not isinstance(node, ALLOWED):
            raise SaveError(
                f"{where}, line {node.lineno}: a {MARKER} cell holds imports, def, class and assignments only, "
                f"not {type(node).__name__}; move it to a cell of its own"
            )


def module_text(notebook: Path, cells: list[tuple[str, str]]) -> str:
    """The module written for a notebook's marked cells."""
    rel = notebook.relative_to(ROOT).as_posix()
    parts = [
        f'"""Saved from {rel} by scripts/save_lessons.py: edit the lesson, not this file.\n\n'
        f"Each block below is one code cell of the lesson marked ``{MARKER}``, in the lesson's order.\n"
        '"""\n'
    ]
    for cell_id, code in cells:
        parts.append(f"\n# --- {rel}, cell {cell_id} ---\n{code}\n")
    return "".join(parts)


def expected_modules() -> dict[Path, str]:
    """Every module this script would write, by path."""
    modules = {}
    for notebook in sorted(LESSONS.glob("*.ipynb")):
        cells = marked_cells(notebook)
        if cells:
            modules[PACKAGE / f"{module_name(notebook)}.py"] = module_text(notebook, cells)
    return modules


def stale(modules: dict[Path, str]) -> list[str]:
    """Modules that differ from what the lessons say, and saved modules no lesson writes any more."""
    problems = [p.name for p, text in modules.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
    problems += [p.name + " (no lesson saves it)" for p in PACKAGE.glob("lesson*.py") if p not in modules]
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a saved module is stale")
    args = parser.parse_args(argv)
    try:
        modules = expected_modules()
    except SaveError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    problems = stale(modules)
    if args.check:
        for problem in problems:
            print(f"stale: course_utils/lessons/{problem}; run python scripts/save_lessons.py", file=sys.stderr)
        return 1 if problems else 0
    for path, text in modules.items():
        path.write_text(text, encoding="utf-8")
    for path in PACKAGE.glob("lesson*.py"):
        if path not in modules:
            path.unlink()
    print(f"{len(modules)} saved module(s) in course_utils/lessons/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
