"""A small class's graded results, written out in full, for the gradebook's golden files.

Every title, message and hint is a literal here (not read from the check
modules, whose wording may change): the English gradebook rendered from these
results must stay byte-identical to ``tests/data/gradebook/class_en.{csv,html}``,
which were written by the gradebook before it spoke Persian (issue 23) and rewritten when it gained the
review columns and the review queue (issue 33). Only
the exercise titles come from the checks (``find_exercise``), as in a real run.

    PYTHONPATH=$PWD python tests/gradebook_cases.py   # rewrite the goldens (only for a wanted English change)
"""

from __future__ import annotations

from pathlib import Path

from course_utils.grade.isolation import Isolation
from course_utils.grade.results import NotebookResult, QuestionResult, Settings, Submission

GOLDEN = Path(__file__).resolve().parent / "data" / "gradebook"
PERSIAN_WHY = "چون trim پیام‌های قدیمی را حذف می‌کند، مدل اسم را دیگر نمی‌بیند."
#: The settings and isolation the golden page names (a user named, so the page does not depend on who runs it).
SETTINGS = Settings(timeout=90, memory_mb=1024, disk_mb=64)
ISOLATION = Isolation(namespaces=True, uid=65534, gid=65534, user="nobody")
CHANGED = ["mallory/03_trimming_walkthrough_exercise.ipynb"]


def _notebook(student, ex, file, status="ok", detail="", questions=()):
    sub = Submission(path=Path("/submissions") / student / file, relpath=f"{student}/{file}", student=student,
                     exercise=ex)
    return NotebookResult(sub, ex, status, detail, tuple(QuestionResult(*q) for q in questions))


def class_results() -> list[NotebookResult]:
    """Every status, a message in Markdown, a hint, answers in English and Persian, two unknown notebooks,
    a student with two copies of one exercise and one without a submission, and a notebook that stopped."""
    ex03 = "03_trimming_walkthrough_exercise.ipynb"
    ex04 = "04_langgraph_integration_exercise.ipynb"
    hint1 = "Count back from the newest message: 40 <= 175; 40 + 60 = 100 <= 175; ..."
    return [
        _notebook("alice", "03", ex03, questions=[
            (1, "trim by hand", "correct", "Correct: `trim_messages` agrees.", ""),
            (2, "keep_last_tokens by hand", "wrong",
             "`keep_last_tokens` kept ['a9'] but `trim_messages(..., strategy=\"last\")` keeps ['h9', 'a9']: "
             "the counter takes a *list* of messages.", "Walk `reversed(messages)`, adding token_counter([message])."),
            (3, "repair the orphaned ToolMessage", "for the teacher", "A teacher will read your reason.", "",
             "Because the tool result lost its AIMessage & <the call>."),
            (4, "a teammate's fix", "not attempted", "`answer` is still `...`: fill it in.", hint1),
        ]),
        _notebook("alice", "04", ex04, questions=[
            (1, "what the node sends", "error", "`q1.check` raised ValueError: **bad** input", ""),
            (2, "trim inside the node", "correct", "Correct.", ""),
            (3, "why does it forget?", "correct", "Correct.", "", PERSIAN_WHY),
        ]),
        _notebook("bob", "03", ex03, status="timeout", detail="stopped at the time limit (90 s) while running cell 9",
                  questions=[(1, "trim by hand", "correct", "Correct.", ""),
                             (2, "keep_last_tokens by hand", "not run",
                              "`q2.check(kept)` never ran: the notebook stopped first (timeout).", "Walk back.")]),
        _notebook("bob", "03", "03_trimming_walkthrough_exercise (1).ipynb", status="crashed",
                  detail="the kernel died while running cell 6",
                  questions=[(1, "trim by hand", "not run", "`q1.check(kept)` never ran: the notebook stopped first "
                                                            "(crashed).", hint1)]),
        _notebook("carol", "", "notes.ipynb", status="invalid notebook", detail="the file is not valid JSON."),
        _notebook("gus", "", "scratch.ipynb"),
        _notebook("dara", "04", ex04, status="memory limit", detail="cell 6 raised MemoryError (limit 1024 MB)"),
        _notebook("erin", "04", ex04, status="disk limit",
                  detail="stopped: wrote more than 64 MB (the disk limit) while running cell 6",
                  questions=[(1, "what the node sends", "correct", "Correct.", "")]),
        _notebook("frank", "04", ex04, status="error", detail="cell 7 raised NameError: name `middleware` is not defined",
                  questions=[(1, "what the node sends", "wrong", "=SUM(A1) is not it", "Count ten per message.")]),
    ]


def render(lang: str | None = None) -> tuple[str, str]:
    """(gradebook.csv, gradebook.html) of :func:`class_results`, in ``lang`` (None: the gradebook's default)."""
    from course_utils.grade.gradebook import gradebook_csv, gradebook_html

    kwargs = {} if lang is None else {"lang": lang}
    results = class_results()
    return gradebook_csv(results, **kwargs), gradebook_html(results, SETTINGS, ISOLATION, CHANGED, **kwargs)


if __name__ == "__main__":
    GOLDEN.mkdir(parents=True, exist_ok=True)
    csv_text, html_text = render()
    (GOLDEN / "class_en.csv").write_bytes(csv_text.encode("utf-8"))
    (GOLDEN / "class_en.html").write_bytes(html_text.encode("utf-8"))
    print("wrote", *sorted(p.name for p in GOLDEN.iterdir()))
