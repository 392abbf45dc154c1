"""Grading: one submission (:func:`grade_one`) and a whole folder (:func:`grade_folder`), with a progress bar."""

from __future__ import annotations

import os
import stat
import sys
import time
from concurrent.futures import as_completed, ThreadPoolExecutor
from pathlib import Path

from course_utils.grade.results import (
    clean_text,
    _exercise,
    NOTEBOOK_STATUSES,
    NotebookResult,
    question_results,
    Settings,
    Submission,
)
from course_utils.grade.sandbox import Isolation, _kill_all, _run_sandboxed, _running
from course_utils.grade.submissions import (
    exercise_from_source,
    find_submissions,
    InvalidNotebook,
    read_notebook,
    snapshot,
    verify_and_restore,
)


def grade_one(submission: Submission, data: bytes | None, settings: Settings, isolation: Isolation) -> NotebookResult:
    """Grade one submission from its bytes (read once, before anything ran; None if they could not be read)."""
    started = time.monotonic()
    exercise = submission.exercise
    try:
        if submission.path.is_symlink():
            raise InvalidNotebook("a symbolic link (not followed)")
        try:
            regular = stat.S_ISREG(os.lstat(submission.path).st_mode)
        except OSError:
            regular = True  # gone: reported below from the bytes read before
        if not regular:
            raise InvalidNotebook("not a regular file")
        if data is None:
            raise InvalidNotebook("not readable by the grader")
        nb = read_notebook(data)
    except InvalidNotebook as exc:
        return NotebookResult(submission, exercise, "invalid notebook", f"the file is {exc}.",
                              question_results(exercise, [], "invalid notebook"))
    exercise = exercise or exercise_from_source(nb)
    outcome = _run_sandboxed(data, settings, isolation)
    if isinstance(outcome, dict) and outcome.get("no_result"):
        # The runner itself died before reporting anything. That is the grader's
        # failure, not the student's (seen once under load, cause not reproduced),
        # so it gets one more try; a second failure is recorded as a crash.
        outcome = _run_sandboxed(data, settings, isolation)
    if not (isinstance(outcome, dict) and isinstance(outcome.get("records"), list)):
        outcome = {"status": "crashed", "detail": "the grader's runner returned a malformed result", "records": []}
    status = outcome.get("status") if outcome.get("status") in NOTEBOOK_STATUSES else "crashed"
    records = [r for r in outcome["records"] if _valid_record(r)]
    if not exercise:
        exercise = next((r["exercise"] for r in records if _exercise(r["exercise"])), "")
    detail = outcome.get("detail", "")
    return NotebookResult(submission, exercise, status, clean_text(detail if isinstance(detail, str) else ""),
                          question_results(exercise, records, status), time.monotonic() - started)


def _valid_record(record) -> bool:
    from course_utils.checks.record import valid_record

    return valid_record(record)


# --- grading a folder ---------------------------------------------------------------------------------


class Progress:
    """A text progress bar on stderr: ``[########............] 4/10 alice/03_...ipynb: ok (5.2 s)``."""

    def __init__(self, total: int, stream=None, width: int = 20):
        self.total, self.done, self.width = total, 0, width
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def advance(self, label: str) -> None:
        self.done += 1
        filled = self.width * self.done // max(1, self.total)
        line = f"[{'#' * filled}{'.' * (self.width - filled)}] {self.done}/{self.total} {clean_text(label, 100)}"
        if self.tty:
            end = "\n" if self.done == self.total else ""
            self.stream.write("\r\x1b[2K" + line + end)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def _crashed(submission: Submission, detail: str) -> NotebookResult:
    try:
        questions = question_results(submission.exercise, [], "crashed")
    except Exception:  # noqa: BLE001
        questions = ()
    return NotebookResult(submission, submission.exercise, "crashed", clean_text(detail), questions)


def grade_folder(root: Path, settings: Settings, isolation: Isolation,
                 progress: Progress | None = None) -> tuple[list[NotebookResult], list[str]]:
    """Grade every submission under ``root``; return the results (sorted) and the files changed meanwhile."""
    submissions = find_submissions(root)
    taken = snapshot(submissions)
    results = []
    with ThreadPoolExecutor(max_workers=settings.jobs) as pool:
        futures = {pool.submit(grade_one, sub, taken[sub.relpath], settings, isolation): sub for sub in submissions}
        try:
            for future in as_completed(futures):
                try:
                    result = future.result()
                except Exception as exc:  # noqa: BLE001 - one notebook never ends the run for the others
                    result = _crashed(futures[future], f"the grader failed: {type(exc).__name__}: {exc}")
                results.append(result)
                if progress:
                    progress.advance(f"{result.submission.relpath}: {result.status} ({result.seconds:.1f} s)")
        except BaseException:  # Ctrl-C: no new notebooks, and stop the running ones now
            for future in futures:
                future.cancel()
            for proc in list(_running):
                _kill_all(proc)
            raise
    results.sort(key=lambda r: (r.submission.student, r.exercise, r.submission.relpath))
    return results, verify_and_restore(root, taken, submissions)
