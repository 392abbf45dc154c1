"""The grading cells' code: runs inside the student's kernel, after the student's cells have finished.

Each grading cell (:func:`course_utils.grade.grading_cells.check_cell_source`)
loads this file by its path in the installed package, as a module of its own
(not through ``course_utils``, which the student's code may have replaced),
and calls :func:`grade`. It imports nothing from the course at its top: what
it needs it imports afresh, from the installed package, at grading time.

>>> namespace = {ANSWERS: {2: ((4900,), {}, None)}}
>>> kept_answers(namespace, 2), kept_answers(namespace, 3)
(((4900,), {}, None), None)
"""

from __future__ import annotations

import importlib
import os
import sys

ANSWERS = "__course_answers__"  #: the dictionary, in the kernel, of the answers each answer cell kept
#: What the student's environment may set to change how checks record or raise; dropped before grading.
CHECK_VARIABLES = ("COURSE_CHECKS_RECORD", "COURSE_CHECKS_STRICT")


def fresh_modules(package_parent: str, names: tuple[str, ...]) -> list:
    """Import ``names`` afresh from the installed package under ``package_parent``.

    Every ``course_utils.checks`` module (and the ``course_utils`` package
    object) is dropped from ``sys.modules`` first, and the package's folder
    goes first on the path (the notebook's own folder, "" and ".", is left
    out), so whatever the student's code did to those modules, or wrote into
    its folder as a ``course_utils`` of its own, is not what is imported.
    """
    for name in CHECK_VARIABLES:
        os.environ.pop(name, None)
    for name in [m for m in list(sys.modules) if m == "course_utils" or m.startswith("course_utils.checks")]:
        del sys.modules[name]
    saved = list(sys.path)
    sys.path[:] = [package_parent] + [p for p in saved if p not in ("", ".")]
    try:
        return [importlib.import_module(name) for name in names]
    finally:
        sys.path[:] = saved


def kept_answers(namespace: dict, number: int) -> tuple | None:
    """``(args, kwargs, failed)`` the answer cell of question ``number`` kept, or None if it never ran."""
    answers = namespace.get(ANSWERS)
    return answers.get(number) if isinstance(answers, dict) else None


def grade(namespace: dict, exercise: str, number: int, package_parent: str) -> tuple:
    """Run question ``number``'s check on the answers kept in ``namespace`` (the kernel's globals).

    Returns ``(record module, question, result)``; the result is None when no
    answer cell ran. An answer cell whose answer stopped with an error is not
    graded (as in a learner's notebook, :func:`course_utils.checks.cells.failed_answer`).
    Nothing secret is here: the student's functions the check calls run here.
    """
    package, record, cells = fresh_modules(
        package_parent, (f"course_utils.checks.ex{exercise}", "course_utils.checks.record", "course_utils.checks.cells"))
    question = getattr(package, f"ex{exercise}").questions[number - 1]
    kept = kept_answers(namespace, number)
    if kept is None:
        return record, question, None
    args, kwargs, failed = kept
    if failed:  # the cell that sets the answer stopped with an error: not graded, as in the notebook
        return record, question, question.did_not_run(cells.FailedCell(*failed))
    return record, question, question.check(*args, **kwargs)
