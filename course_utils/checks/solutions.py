"""The worked solutions ``qN.solution()`` shows: read from the master notebooks, never written twice.

The master of an exercise (``exercises/solutions/NN_..._exercise.ipynb``) is
the one source of its solutions, as in otter-grader and nbgrader.
``scripts/make_student_copies.py`` writes the student copies *and*, from the
same masters, one package-data file per exercise,
``course_utils/checks/master_solutions/exNN.json``; ``--check`` reports either
one stale. A learner's installation has no masters, so ``qN.solution()``
reads that file (:func:`solution`).

**Which lines are a question's solution.** In a master, the code cells with
solution markers (``# BEGIN SOLUTION`` ... ``# END SOLUTION``, a line ending
in ``# SOLUTION``, or a cell tagged ``solution``) that come after the check
of question N-1 and before the ``qN.check(...)`` cell, and that set a name
the check is called with (or, when none does, all of them). Each such cell
is shown whole, as the master has it, with the markers taken out
(:func:`solution_lines`): the ``def`` line around a solution block, and the
comments inside it, are part of what a learner needs to read.

**Editions.** The Persian masters (``exercises/fa/solutions/``, built by
``scripts/make_persian_edition.py``) have the same code, except that their
written answers ("why") may be Persian; their solution lines go to
``master_solutions/fa/exNN.json``. When the course speaks Persian
(``COURSE_LANG=fa`` or ``i18n.set_language("fa")``) :func:`solution` reads
that file, and the English one for an exercise not yet in Persian.

Hints and titles stay in the check modules: they belong to the check (the
grader's gradebook shows the first hint beside a wrong answer, and a hint
names what the check looks for), they are not answers, and the student
copies must not carry them as text to edit.

>>> solution_lines("x = 5  # SOLUTION\\n# PROMPT: y = ...\\n# BEGIN SOLUTION\\ny = x + 1\\n# END SOLUTION")
'x = 5\\ny = x + 1'
"""

from __future__ import annotations

import ast
import functools
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from course_utils.checks.cells import names_set

#: Where the generated files live (package data of course_utils.checks).
DATA_DIR = Path(__file__).resolve().with_name("master_solutions")

_BEGIN = re.compile(r"^\s*# BEGIN SOLUTION\s*$")
_END = re.compile(r"^\s*# END SOLUTION\s*$")
_PROMPT = re.compile(r"^\s*# PROMPT:")
_LINE = re.compile(r"\s*# SOLUTION\s*$")
_CHECK = re.compile(r"\bq(\d+)\.check\(")
_EXERCISE = re.compile(r"(\d\d)_.*_exercise\.ipynb")


def solution_lines(source: str) -> str:
    """A master cell's source as a learner reads the solution: markers and ``# PROMPT:`` lines taken out."""
    lines = []
    for line in source.split("\n"):
        if _BEGIN.match(line) or _END.match(line) or _PROMPT.match(line):
            continue
        lines.append(_LINE.sub("", line) if _LINE.search(line) else line)
    return "\n".join(lines).strip("\n")


def _source(cell: Mapping[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def has_solution(cell: Mapping[str, Any]) -> bool:
    """True for a code cell with a solution marker (or tagged ``solution``)."""
    if cell.get("cell_type") != "code":
        return False
    source = _source(cell)
    return ("solution" in cell.get("metadata", {}).get("tags", []) or "# BEGIN SOLUTION" in source
            or any(_LINE.search(line) for line in source.split("\n")))


def _check_names(source: str) -> set[str]:
    """The plain names a ``qN.check(...)`` call passes: "q3.check(report, fig, first_over)" -> {report, fig, ...}."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {arg.id for node in ast.walk(tree) if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute) and node.func.attr == "check"
            for arg in [*node.args, *(k.value for k in node.keywords)] if isinstance(arg, ast.Name)}


def master_solutions(cells: list[Mapping[str, Any]]) -> dict[int, str]:
    """{question number: its solution lines} for the cells of one master notebook (see the module's docstring)."""
    found: dict[int, str] = {}
    pending: list[str] = []
    for cell in cells:
        source = _source(cell)
        if has_solution(cell):
            pending.append(source)
        match = _CHECK.search(source) if cell.get("cell_type") == "code" else None
        if match is None:
            continue
        names = _check_names(source)
        chosen = [s for s in pending if names & names_set(solution_lines(s))] or pending
        if chosen:
            found[int(match.group(1))] = "\n\n".join(solution_lines(s) for s in chosen)
        pending = []
    return found


def exercise_of(master: Path) -> str:
    """The two digits of a master's file name: ``03_trimming_walkthrough_exercise.ipynb`` -> "03"."""
    match = _EXERCISE.fullmatch(Path(master).name)
    if not match:
        raise ValueError(f"master must be named NN_..._exercise.ipynb, got {Path(master).name!r}")
    return match.group(1)


def data_path(exercise: str, lang: str = "en") -> Path:
    """The solutions data of ``exercise`` in the edition ``lang`` ("en": ``exNN.json``, "fa": ``fa/exNN.json``)."""
    return (DATA_DIR if lang == "en" else DATA_DIR / lang) / f"ex{exercise}.json"


def render(master: Path, root: Path) -> str:
    """The text of the data file for ``master`` (a path under ``root``, the course folder)."""
    notebook = json.loads(Path(master).read_text(encoding="utf-8"))
    solutions = master_solutions(notebook.get("cells", []))
    data = {"exercise": exercise_of(master), "master": Path(master).resolve().relative_to(root.resolve()).as_posix(),
            "generated_by": "scripts/make_student_copies.py (do not edit: change the master and run it)",
            "solutions": {str(n): solutions[n] for n in sorted(solutions)}}
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


@functools.lru_cache(maxsize=None)
def load(exercise: str, lang: str = "en") -> dict[int, str]:
    """{question number: solution lines} of an exercise, from its generated file ({} when there is none)."""
    try:
        data = json.loads(data_path(exercise, lang).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {int(n): text for n, text in data.get("solutions", {}).items()}


def solution(exercise: str, number: int) -> str | None:
    """The master's solution lines of question ``number`` of ``exercise`` ("03"), or None if it has none.

    In the language the course speaks now: the Persian master's lines when it
    speaks Persian and that exercise has a Persian master, else the English.
    """
    from course_utils.core.i18n import get_language

    lang = get_language()
    if lang != "en" and number in load(exercise, lang):
        return load(exercise, lang)[number]
    return load(exercise).get(number)
