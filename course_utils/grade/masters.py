"""The teacher's check calls: from the master notebooks in ``exercises/solutions/``.

When grading, the ``qN.check(...)`` calls come from the teacher, not from the
student's notebook (see :mod:`.grading_cells`). They are read from the
master of the exercise in the course folder (``exercises/solutions/NN_..._exercise.ipynb``
beside the ``course_utils`` package); a question the master has no check
cell for (or an installation without the masters) uses the call the question
itself documents, :attr:`course_utils.checks.machinery.Question.usage`, which
the tests keep equal to the masters' cells.

A Persian submission (a filled-in ``exercises/fa/NN_..._exercise.ipynb``) is
graded with the same calls: the Persian masters (``exercises/fa/solutions/``)
are built from the English ones with the same code cells, so their check
calls are the English master's (tests/test_grade_persian.py). The check
speaks the submission's language: the Persian notebook's first code cell
sets it, and the grader's fresh check modules keep it.
"""

from __future__ import annotations

import json
from pathlib import Path

from course_utils.grade.grading_cells import call_arguments, check_number
from course_utils.grade.results import find_exercise


def masters_folder() -> Path:
    """``exercises/solutions`` in the course folder that holds this ``course_utils``."""
    return Path(__file__).resolve().parents[2] / "exercises" / "solutions"


def master_calls(exercise: str, folder: Path | None = None) -> dict[int, str]:
    """{question number: the teacher's ``qN.check(...)`` call} for an exercise; {} for an unknown one."""
    ex = find_exercise(exercise)
    if ex is None:
        return {}
    calls = {q.number: q.usage for q in ex.questions}
    folder = masters_folder() if folder is None else folder
    for path in sorted(folder.glob(f"{exercise}_*_exercise.ipynb")) if folder.is_dir() else []:
        try:
            cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        except (OSError, ValueError):
            continue
        for cell in cells:
            source = cell.get("source", "")
            source = "".join(source) if isinstance(source, list) else str(source)
            number = check_number(source) if cell.get("cell_type") == "code" else None
            if number in calls:
                try:
                    call_arguments(source)
                except (SyntaxError, ValueError):
                    continue
                calls[number] = source.strip()
        break
    return calls
