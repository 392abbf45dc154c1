"""Grading: one submission (:func:`grade_one`) and a whole folder (:func:`grade_folder`), with a progress bar."""

from __future__ import annotations

import os
import stat
import sys
import time
from concurrent.futures import as_completed, ThreadPoolExecutor
from pathlib import Path

from tqdm import tqdm

from course_utils.checks.record import valid_record
from course_utils.grade.masters import master_calls
from course_utils.grade.results import (
    clean_text,
    find_exercise,
    NOTEBOOK_STATUSES,
    NotebookResult,
    question_results,
    Settings,
    Submission,
)
from course_utils.grade.sandbox import Isolation, run_sandboxed, stop_all_runners
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
    extra = {"exercise": exercise, "calls": master_calls(exercise)} if find_exercise(exercise) else {}
    outcome = run_sandboxed(data, settings, isolation, extra=extra)
    if isinstance(outcome, dict) and outcome.get("no_result"):
        # The runner itself died before reporting anything. That is the grader's
        # failure, not the student's (seen once under load, cause not reproduced),
        # so it gets one more try; a second failure is recorded as a crash.
        outcome = run_sandboxed(data, settings, isolation, extra=extra)
    if not (isinstance(outcome, dict) and isinstance(outcome.get("records"), list)):
        outcome = {"status": "crashed", "detail": "the grader's runner returned a malformed result", "records": []}
    status = outcome.get("status") if outcome.get("status") in NOTEBOOK_STATUSES else "crashed"
    # Only the grading cells' records are in "records" (each carried this run's secret); records written
    # any other way come back as "ignored" lines, shown in the detail so that a teacher sees the attempt.
    records = [r for r in outcome["records"] if valid_record(r)]
    ignored = [i for i in outcome.get("ignored", []) if isinstance(i, str)]
    detail = outcome.get("detail", "")
    detail = "; ".join(filter(None, [detail if isinstance(detail, str) else "", *ignored]))
    return NotebookResult(submission, exercise, status, clean_text(detail),
                          question_results(exercise, records, status), time.monotonic() - started)


# --- grading a folder ---------------------------------------------------------------------------------


class Progress:
    """Progress on stderr: one line per graded notebook, ``[4/10] alice/03_...ipynb: ok (5.2 s)``, and,
    on a terminal, tqdm's bar below them (with the time left). In a log (not a terminal) only the lines."""

    def __init__(self, total: int, stream=None):
        self.total, self.done = total, 0
        self.stream = stream or sys.stderr
        tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.bar = tqdm(total=total, file=self.stream, unit="notebook", disable=not tty, dynamic_ncols=True)

    def advance(self, label: str) -> None:
        self.done += 1
        tqdm.write(f"[{self.done}/{self.total}] {clean_text(label, 100)}", file=self.stream)
        self.bar.update(1)
        if self.done == self.total:
            self.bar.close()


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
            stop_all_runners()
            raise
    results.sort(key=lambda r: (r.submission.student, r.exercise, r.submission.relpath))
    return results, verify_and_restore(root, taken, submissions)
