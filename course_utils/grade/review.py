"""The teacher's review: answers in the students' own words, and the marks a teacher gives them.

The checks never mark an answer written in the learner's own words (``own_words``):
its status is "for the teacher". The gradebook page lists every such answer in a
review queue, grouped by question, beside the model answer and the rubric
(:func:`review_queue`). The teacher types a mark (0 to 1) and a comment next to
each and presses "Download marks.csv"; then

    python -m course_utils.grade SUBMISSIONS_DIR --marks marks.csv

writes the marks into ``gradebook.csv`` (columns ``teacher_mark`` and
``teacher_comment``), apart from the automatic marks. The marks file is plain
CSV a teacher may also write by hand (:data:`MARK_COLUMNS`):

    student,exercise,question,mark,comment
    alice,07,q3,1,names both the store and the call size

>>> marks = read_marks_text("student,exercise,question,mark,comment\\nalice,07,q3,0.5,half\\n")
>>> marks[("alice", "07", "q3")]
Mark(mark=0.5, comment='half')
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

#: The columns of a marks file, in order.
MARK_COLUMNS = ("student", "exercise", "question", "mark", "comment")
#: The status of an answer in the student's own words until a teacher marks it.
FOR_TEACHER = "for the teacher"


@dataclass(frozen=True)
class Mark:
    mark: float
    comment: str = ""


class MarksError(ValueError):
    """A marks file that cannot be read; the message names the line and the fix."""


def read_marks_text(text: str, where: str = "marks file") -> dict[tuple[str, str, str], Mark]:
    """{(student, exercise, question): Mark} from a marks file's text (see :data:`MARK_COLUMNS`)."""
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in MARK_COLUMNS[:4] if c not in (reader.fieldnames or [])]
    if missing:
        raise MarksError(f"{where}: the first line must name the columns {', '.join(MARK_COLUMNS)}; missing "
                         f"{', '.join(missing)}")
    marks = {}
    for line, row in enumerate(reader, start=2):
        key = (row["student"].strip(), row["exercise"].strip().zfill(2), row["question"].strip())
        raw = (row.get("mark") or "").strip()
        if not raw:
            continue  # not marked yet
        try:
            value = float(raw)
        except ValueError:
            raise MarksError(f"{where}, line {line}: mark {raw!r} is not a number; write a mark from 0 to 1") from None
        if not 0 <= value <= 1:
            raise MarksError(f"{where}, line {line}: mark {value:g} is outside 0 to 1; write a mark from 0 to 1")
        marks[key] = Mark(value, (row.get("comment") or "").strip())
    return marks


def read_marks(path: Path) -> dict[tuple[str, str, str], Mark]:
    """The marks in a marks file (UTF-8 CSV); a clear error naming the file when it cannot be read."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise MarksError(f"--marks {str(path)!r} cannot be read: {exc.strerror or exc}") from None
    return read_marks_text(text, f"--marks {str(path)!r}")


def model_answer(exercise: str, number: int) -> tuple[str, str]:
    """(model answer, rubric) of a question that takes the learner's own words, or ("", "")."""
    from course_utils.checks.questions import statements_of
    from course_utils.grade.results import find_exercise

    ex = find_exercise(exercise)
    if ex is None or not 1 <= number <= len(ex.questions):
        return "", ""
    statements = statements_of(ex.questions[number - 1])
    return (statements.model_answer, statements.rubric) if statements else ("", "")


def review_queue(results, marks: dict | None = None) -> list[dict]:
    """Every answer in a student's own words, grouped by exercise and question, with the model answer and rubric."""
    from course_utils.core.i18n import translate

    marks = marks or {}
    groups: dict[tuple[str, int], dict] = {}
    for r in results:
        for q in r.questions:
            if not q.answer_text:
                continue
            key = (r.exercise or "?", q.number)
            if key not in groups:
                answer, rubric = model_answer(*key)
                groups[key] = {"exercise": key[0], "question": f"q{q.number}", "title": translate(q.title),
                               "model_answer": translate(answer) if answer else "",
                               "rubric": translate(rubric) if rubric else "", "answers": []}
            mark = marks.get((r.submission.student, key[0], f"q{q.number}"))
            groups[key]["answers"].append({"student": r.submission.student, "text": q.answer_text,
                                           "mark": "" if mark is None else f"{mark.mark:g}",
                                           "comment": mark.comment if mark else ""})
    return [groups[k] for k in sorted(groups)]
