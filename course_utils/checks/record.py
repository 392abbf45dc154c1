"""The record a check leaves for the grader: written here by every check, read here by the grader.

``python -m course_utils.grade`` names a file in the environment variable
``COURSE_CHECKS_RECORD``; every ``qN.check(...)`` then appends one JSON line
to it::

    {"exercise": "02", "question": 1, "title": "compute B", "status": "correct", "message": "..."}

A question answered in the learner's own words ("why") adds
``"answer_text": "..."`` (at most :data:`MAX_ANSWER_TEXT` characters), so the
teacher can read the reason itself, not only the verdict.

In a learner's notebook the variable is unset and nothing is written. A
student's code can write to that file too, so the grader does not take its
marks from it: it reads the file back (:func:`read_records`) only to report
every record in it as ignored. The marks come from the grader's own cells,
which print one line each with a secret made up after the student's code has
run (:func:`grading_line`, read back with :func:`parse_grading_line`); any
record is checked with :func:`valid_record` before it is used.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from course_utils.checks.status import STATUSES as STATUSES  # re-exported: the grader reads it here

#: What a check can say about an answer: ``STATUSES``, the values of :class:`course_utils.checks.status.Status`,
#: imported above and re-exported for the grader ("for the teacher": an answer in the learner's own words, never
#: marked by the check; the teacher marks it).

#: The grader (``python -m course_utils.grade``) names a file here; every check then appends one
#: JSON line to it. Unset in a learner's notebook, where nothing is written.
RECORD_ENV = "COURSE_CHECKS_RECORD"

#: At most this many bytes of a record file are read.
MAX_RECORD_BYTES = 10 * 1024 * 1024
#: At most this many characters of a written answer are recorded.
MAX_ANSWER_TEXT = 2000


def record_of(question: Any, result: Any) -> dict:
    """The record of one check's result, as the record file and the grader's own cells both write it."""
    record = {"exercise": question.exercise, "question": question.number, "title": question.title,
              "status": str(result.status), "message": result.message}
    answer_text = getattr(result, "answer_text", None)
    if isinstance(answer_text, str):
        record["answer_text"] = answer_text[:MAX_ANSWER_TEXT]
    return record


def write_record(question: Any, result: Any) -> None:
    """Append a machine-readable copy of ``result`` to the file named by COURSE_CHECKS_RECORD, if set.

    ``question`` is a :class:`~course_utils.checks.machinery.Question` (its
    ``exercise``, ``number`` and ``title`` are written), ``result`` a
    :class:`~course_utils.checks.machinery.CheckResult`. Only the grader sets
    the variable. The displayed result is unchanged, and a record that cannot
    be written is skipped: a check never fails because of it.
    """
    path = os.environ.get(RECORD_ENV)
    if not path:
        return
    try:  # ASCII with escapes: a message holding a lone surrogate ("\udcff") is still written
        line = json.dumps(record_of(question, result), ensure_ascii=True)
        with open(path, "a", encoding="utf-8") as file:
            file.write(line + "\n")
    except (OSError, ValueError, TypeError):
        pass


def read_records(path: Path) -> list:
    """Every line of a record file that parses as JSON (anything at all: see :func:`valid_record`)."""
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_RECORD_BYTES)
    except OSError:
        return []
    records = []
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    return records


def valid_record(record: Any) -> bool:
    """True for a record shaped as :func:`write_record` writes it: two-digit exercise, question number, status
    (and, when present, ``answer_text`` a string)."""
    return (isinstance(record, dict) and isinstance(record.get("exercise"), str)
            and re.fullmatch(r"\d\d", record["exercise"]) is not None
            and type(record.get("question")) is int and 0 < record["question"] < 1000 and record.get("status") in STATUSES
            and isinstance(record.get("message"), str) and isinstance(record.get("title", ""), str)
            and isinstance(record.get("answer_text", ""), str))


# --- the grader's own record: printed by its grading cells, with a secret -------------------------------

#: The start of every line a grading cell prints. Lines that start with it anywhere else are imitations.
GRADING_MARK = "course-grade-record"


def grading_line(secret: str, question: Any, result: Any) -> str:
    """The line a grading cell prints: the mark, the secret of this run, then the record as JSON."""
    return f"{GRADING_MARK} {secret} {json.dumps(record_of(question, result), ensure_ascii=True)}"


def marked_lines(text: str) -> list[str]:
    """Every line of ``text`` that starts with :data:`GRADING_MARK` (whatever follows it)."""
    return [line for line in text.splitlines() if line.lstrip().startswith(GRADING_MARK)]


def parse_grading_line(line: str, secret: str) -> dict | None:
    """The record on a line printed with ``secret``, or None (another secret, no secret, not a record)."""
    prefix = f"{GRADING_MARK} {secret} "
    if not secret or not line.startswith(prefix):
        return None
    try:
        record = json.loads(line[len(prefix):])
    except ValueError:
        return None
    return record if valid_record(record) else None
