"""What grading produces: the settings, a submission, and the result of each notebook and question.

Also the one place that turns the check records a notebook left into one
result per question, and cleans text a submission influenced.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from course_utils.core.i18n import translate

if TYPE_CHECKING:
    from course_utils.checks import Exercise


NOTEBOOK_STATUSES = ("ok", "error", "crashed", "timeout", "memory limit", "disk limit", "invalid notebook")
QUESTION_STATUSES = ("correct", "wrong", "for the teacher", "not attempted", "error", "not run")
MAX_TEXT = 400  #: characters of a message kept in the gradebook


# --- what is graded and what comes out ------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """The limits each notebook runs under."""

    timeout: float = 120.0  #: seconds of wall-clock time per notebook, kernel start included
    memory_mb: int = 2048  #: data memory (heap and anonymous mappings) per process, in MB
    disk_mb: int = 256  #: what one notebook may write, in MB, all its files together (see :mod:`.diskguard`)
    jobs: int = 1  #: notebooks graded at the same time


@dataclass(frozen=True)
class Submission:
    """One submitted notebook."""

    path: Path  #: where it is
    relpath: str  #: its path under SUBMISSIONS_DIR, with "/" separators
    student: str
    exercise: str  #: "03", or "" while unknown


@dataclass(frozen=True)
class QuestionResult:
    """What the check of one question said (or why it never ran)."""

    number: int
    title: str
    status: str  #: one of QUESTION_STATUSES
    message: str
    hint: str  #: the question's first hint, unless the answer is correct
    answer_text: str = ""  #: the student's own words, for a question answered in writing ("why")


@dataclass(frozen=True)
class NotebookResult:
    """One submission, graded."""

    submission: Submission
    exercise: str
    status: str  #: one of NOTEBOOK_STATUSES
    detail: str
    questions: tuple[QuestionResult, ...]
    seconds: float = field(default=0.0, compare=False)  #: shown while grading, not in the gradebook

    @property
    def correct(self) -> int:
        return sum(q.status == "correct" for q in self.questions)


# --- the questions each exercise has ----------------------------------------------------------------


def find_exercise(ex) -> Exercise | None:
    """The ``checks.Exercise`` named by two digits ("03" -> checks.ex03), or None for anything else.

    ``ex`` may come from a record a submission wrote, so it is checked before
    it names an attribute: "03_conversation" would otherwise find a function.
    """
    from course_utils import checks

    if not isinstance(ex, str) or not re.fullmatch(r"\d\d", ex):
        return None
    return checks.exercise(ex)


def known_questions(exercise: str) -> dict[int, tuple[str, str, str]]:
    """{number: (title, usage, first hint)} from course_utils.checks, or {} for an unknown exercise."""
    ex = find_exercise(exercise)
    if ex is None:
        return {}
    return {q.number: (q.title, q.usage, q.hints[0] if q.hints else "") for q in ex.questions}


#: The grader's own messages for a question whose check never ran. They are stored in English (the
#: grading runs in English) and said in the gradebook's language by :func:`grader_message`.
NEVER_RAN_KEPT = ("`{usage}` never ran: the grader could not keep its answers (the cell where it is called "
                  "raised an error) or check them; see the notebook's detail.")
NEVER_RAN_STOPPED = "`{usage}` never ran: the notebook stopped first ({status})."


def _pattern(template: str) -> re.Pattern:
    parts = re.split(r"\{(\w+)\}", template)
    return re.compile("".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts)) + "$")


def grader_message(message: str) -> str:
    """``message`` in the current language when it is one of the grader's own; any other message as it is.

    >>> grader_message("`q2.check(...)` never ran: the notebook stopped first (timeout).")
    '`q2.check(...)` never ran: the notebook stopped first (timeout).'
    >>> grader_message("Correct.")
    'Correct.'
    """
    for template in (NEVER_RAN_KEPT, NEVER_RAN_STOPPED):
        found = _pattern(template).match(message)
        if found:
            values = found.groupdict()
            if "status" in values:
                values["status"] = translate(values["status"], "grade status")
            return translate(template).format(**values)
    return message


def question_results(exercise: str, records: list[dict], notebook_status: str) -> tuple[QuestionResult, ...]:
    """One result per question: the last check recorded for it, or 'not run' and why."""
    known = known_questions(exercise)
    last: dict[int, dict] = {}
    for record in records:
        if record["exercise"] == exercise and (not known or record["question"] in known):
            last[record["question"]] = record
    results = []
    for number in sorted(set(known) | set(last)):
        title, usage, hint = known.get(number, (last.get(number, {}).get("title", ""), f"q{number}.check(...)", ""))
        answer_text = ""
        if number in last:
            status, message = last[number]["status"], last[number]["message"]
            answer_text = last[number].get("answer_text", "")
        elif notebook_status in ("ok", "error"):
            status, message = "not run", NEVER_RAN_KEPT.format(usage=usage)
        else:
            status, message = "not run", NEVER_RAN_STOPPED.format(usage=usage, status=notebook_status)
        results.append(QuestionResult(number, clean_text(title), status, clean_text(message),
                                      "" if status == "correct" else clean_text(hint), clean_text(answer_text)))
    return tuple(results)


_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean_text(text: str, limit: int = MAX_TEXT) -> str:
    """Text a submission influenced, made safe to store: no control characters or addresses, bounded length."""
    text = _CONTROL.sub(" ", _ADDRESS.sub("0x...", str(text)))
    return text if len(text) <= limit else text[: limit - 3] + "..."
