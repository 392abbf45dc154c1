"""The grader's own cells: the verdict comes from code the grader adds, not from the student's notebook.

A student's notebook cannot be trusted to report its own marks: its code could
append "correct" to the record file, rewrite the checks in its kernel, change
what a check is called with, or delete the call. So, as nbgrader and
otter-grader do, the grader owns the check calls:

1. **Answer cells.** Each ``qN.check(...)`` cell of the student's notebook is
   replaced by the teacher's call (from the master, :mod:`.masters`), turned
   into a cell that only *keeps* the answers it names, at that point of the
   notebook: ``__course_answers__[N] = ((total_sent,), {})``. A check cell the
   student deleted gets its answer cell after the last cell that called that
   check, or else at the end of the notebook.
2. The student's cells and the answer cells run, top to bottom, as usual.
3. **Grading cells**, added after the student's code has finished: for each
   question, one cell loads :mod:`.in_kernel` (a real module: the code that
   runs in the kernel), which imports the check modules afresh from the installed
   package (so a monkeypatched ``course_utils.checks`` does not carry over)
   and runs the check on the kept answers; the next prints the result on
   one line with a secret made up only now (:func:`course_utils.checks.record.grading_line`).

The runner counts only lines that carry the secret, read from the output of
the grader's own cells; every other record (in the record file, or printed
to look like one) is reported as ignored. See TEACHING.md for what this
does not stop.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from course_utils.grade.in_kernel import ANSWERS

#: A cell that is one check call, as the masters write them: ``q3.check(report, fig, first_over)``.
CHECK_CELL = re.compile(r"\s*q(\d+)\.check\(.*\)\s*", re.DOTALL)
#: A check call anywhere in a cell.
CHECK_CALL = re.compile(r"\bq(\d+)\.check\(")



def call_arguments(call: str) -> str:
    """The argument text of one ``qN.check(...)`` call, checked to be a call: ``"total_sent"``."""
    tree = ast.parse(call.strip(), mode="eval")
    if not (isinstance(tree.body, ast.Call) and isinstance(tree.body.func, ast.Attribute)
            and tree.body.func.attr == "check"):
        raise ValueError(f"not a check call: {call!r}")
    text = call.strip()
    return text[text.index("(") + 1: text.rindex(")")]


def answer_names(call: str) -> list[str]:
    """The plain names a check call passes: ``"q3.check(report, fig, first_over)"`` -> report, fig, first_over."""
    tree = ast.parse(call.strip(), mode="eval")
    return [a.id for a in getattr(tree.body, "args", []) if isinstance(a, ast.Name)]


def answer_source(number: int, call: str) -> str:
    """The answer cell for question ``number``: keeps what the teacher's ``call`` passes to the check.

    It also keeps whether the cell that should have set one of those names
    stopped with an error (:func:`course_utils.checks.cells.failed_answer`), so
    that the grading cell says so instead of grading an older value, as the
    check itself does in a learner's notebook.
    """
    return (f"# answers for q{number}, kept by the grader (the teacher's `{call.strip()}`)\n"
            f"import sys as _ca_sys\n"
            f"_ca_failed = getattr(_ca_sys.modules.get('course_utils.checks.cells'), 'failed_answer', "
            f"lambda names: None)({answer_names(call)!r})\n"
            f"globals().setdefault({ANSWERS!r}, {{}})[{number}] = (lambda *a, **k: (a, k))({call_arguments(call)}) + (\n"
            f"    (_ca_failed.name, _ca_failed.execution_count, _ca_failed.error) if _ca_failed else None,)")


def check_number(source: str) -> int | None:
    """N when a cell is one ``qN.check(...)`` call, else None."""
    match = CHECK_CELL.fullmatch(source)
    return int(match.group(1)) if match and "\n" not in source.strip() else None


def with_answer_cells(cells: list, calls: dict[int, str], new_cell) -> list[tuple]:
    """The student's cells with an answer cell for every question in ``calls`` ({number: teacher's call}).

    Returns ``(cell, origin)`` pairs, ``origin`` being the cell's index in the
    student's notebook or None for an answer cell the grader added. A cell
    that is one check call is replaced in place (so the cell numbers the
    gradebook quotes stay the student's); a cell that calls a check among other
    code is kept and followed by the answer cell; a question whose call is
    nowhere gets its answer cell at the end. ``new_cell(source)`` makes a code cell.
    """
    out, placed = [], set()
    for index, cell in enumerate(cells):
        source = str(cell.get("source", "")) if cell.get("cell_type") == "code" else ""
        number = check_number(source) if source else None
        if number in calls:
            out.append((new_cell(answer_source(number, calls[number])), index))
            placed.add(number)
            continue
        out.append((cell, index))
        for found in dict.fromkeys(int(n) for n in CHECK_CALL.findall(source)):
            if found in calls:
                out.append((new_cell(answer_source(found, calls[found])), None))
                placed.add(found)
    out += [(new_cell(answer_source(n, calls[n])), None) for n in sorted(calls) if n not in placed]
    return out


def check_cell_source(exercise: str, number: int, package_parent: str) -> str:
    """The grading cell that runs question ``number``'s check on the kept answers, with fresh check modules.

    It loads :mod:`.in_kernel` from the installed package by its path (the
    student's code may have replaced ``course_utils`` in ``sys.modules``) and
    calls its :func:`~.in_kernel.grade`; the next cell prints the result.
    """
    path = str(Path(package_parent) / "course_utils" / "grade" / "in_kernel.py")
    return (f"# grading: q{number}, checked by the grader with check modules imported afresh\n"
            f"import importlib.util as _cg_util\n"
            f"_cg_spec = _cg_util.spec_from_file_location('_course_grading', {path!r})\n"
            f"_cg_module = _cg_util.module_from_spec(_cg_spec)\n"
            f"_cg_spec.loader.exec_module(_cg_module)\n"
            f"_cg_record, _cg_question, _cg_result = _cg_module.grade(globals(), {exercise!r}, {number}, "
            f"{package_parent!r})\n")


def record_cell_source(secret: str) -> str:
    """The grading cell that prints the result of the cell before it, with this run's secret."""
    return (f"# grading: the result, printed for the grader\n"
            f"if _cg_result is not None:\n"
            f"    print(_cg_record.grading_line({secret!r}, _cg_question, _cg_result))")
