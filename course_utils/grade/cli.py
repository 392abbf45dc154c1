"""The command line: ``python -m course_utils.grade SUBMISSIONS_DIR [--out DIR] ...``."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from course_utils.core import i18n
from course_utils.grade.gradebook import speaking, write_gradebook
from course_utils.grade.grading import grade_folder, Progress
from course_utils.grade.results import clean_text, NOTEBOOK_STATUSES, Settings
from course_utils.grade.runner import GRADING_SECONDS, runner_main
from course_utils.grade.sandbox import GRACE_SECONDS, detect_isolation, Isolation, package_parent, prepare_grader_process
from course_utils.grade.submissions import find_submissions


# --- command line ---------------------------------------------------------------------------------


def _positive(kind, low, high, unit):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} is out of range: use {low} to {high} {unit}")
        return value

    return parse


def default_jobs(isolation: Isolation) -> int:
    """Two at a time (one per core, at most) only when notebooks cannot reach each other.

    Without namespaces, every notebook runs under the same user (yours, or
    ``nobody`` for all of them) and can see the others' processes, so one
    could find another's temporary folder and rewrite its checks' records.
    """
    return min(2, os.cpu_count() or 1) if isolation.namespaces else 1


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m course_utils.grade",
        description="Run every submitted exercise notebook in a fresh, isolated kernel and write a gradebook "
                    "(gradebook.csv and gradebook.html).",
        epilog="Layout: SUBMISSIONS_DIR/STUDENT/NN_name_exercise.ipynb (any depth below STUDENT), or "
               "SUBMISSIONS_DIR/STUDENT.ipynb for one exercise. See TEACHING.md, 'Grading a folder of submissions'.",
    )
    parser.add_argument("submissions", type=Path, metavar="SUBMISSIONS_DIR", help="the folder of submissions")
    parser.add_argument("--out", type=Path, default=Path("gradebook"),
                        help="where to write gradebook.csv and gradebook.html (default: ./gradebook)")
    parser.add_argument("--timeout", type=_positive(float, 5, 3600, "seconds"), default=Settings.timeout,
                        help="wall-clock seconds per notebook, kernel start included; the grader's own check cells "
                             f"then get at least {GRADING_SECONDS} s more (the rest of the limit, if more), and "
                             f"everything is stopped {GRACE_SECONDS} s after the limit at the latest "
                             "(default: %(default)g)")
    parser.add_argument("--memory", type=_positive(int, 256, 1024 * 1024, "MB"), default=Settings.memory_mb,
                        help="memory limit per notebook in MB (default: %(default)s)")
    parser.add_argument("--disk", type=_positive(int, 1, 1024 * 1024, "MB"), default=Settings.disk_mb,
                        help="what one notebook may write in MB, all its files together; it is stopped at the limit "
                             "(default: %(default)s; see TEACHING.md)")
    parser.add_argument("--jobs", type=_positive(int, 1, 64, "notebooks"), default=None,
                        help="notebooks graded at the same time (default: 2 with the namespaces isolation on a "
                             "machine with 2 or more cores, else 1; see TEACHING.md)")
    parser.add_argument("--isolation", choices=("auto", "namespaces", "process"), default="auto",
                        help="auto (default): the strongest that works here; see TEACHING.md")
    parser.add_argument("--lang", choices=i18n.LANGUAGES, default=i18n.get_language(),
                        help="the gradebook's language: en or fa (default: %(default)s, the course's language, "
                             "COURSE_LANG); the CSV's column names and status values stay English in both")
    parser.add_argument("--marks", type=Path, default=None, metavar="FILE",
                        help="the teacher's marks of answers in the students' own words (marks.csv, downloaded from "
                             "the gradebook page's review queue); they go into gradebook.csv as teacher_mark and "
                             "teacher_comment. See TEACHING.md, 'Reviewing answers in the students' own words'")
    args = parser.parse_args(argv)
    if args.marks is not None:
        from course_utils.grade.review import MarksError, read_marks

        try:
            args.marks = read_marks(args.marks)
        except MarksError as exc:
            parser.error(str(exc))
    submissions = args.submissions
    if not submissions.is_dir():
        parser.error(f"SUBMISSIONS_DIR {str(submissions)!r} is not a folder")
    out = args.out.resolve()
    if out == submissions.resolve() or submissions.resolve() in out.parents:
        parser.error(f"--out {str(args.out)!r} is inside SUBMISSIONS_DIR: choose a folder outside it")
    if out.exists() and not out.is_dir():
        parser.error(f"--out {str(args.out)!r} exists and is not a folder")
    try:  # found now, not after an hour of grading
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as exc:
        parser.error(f"--out {str(args.out)!r} is not writable: {exc.strerror or exc}")
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--run-one"] and len(argv) == 2:
        return runner_main(argv[1])
    args = parse_args(argv)
    root = args.submissions.resolve()
    total = len(find_submissions(root))
    if total == 0:
        print(f"No .ipynb files in {root}: nothing to grade.", file=sys.stderr)
        return 1
    prepare_grader_process()  # not readable by your other processes; a subreaper of what submissions detach
    try:
        isolation = detect_isolation(args.isolation, protect=(root, package_parent()))
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    settings = Settings(timeout=args.timeout, memory_mb=args.memory, disk_mb=args.disk,
                        jobs=args.jobs or default_jobs(isolation))
    with speaking("en"):  # the grader's own lines are English, whatever the course's language
        description = isolation.description
    print(f"Grading {total} notebook(s) in {root}\n  each in {description};\n"
          f"  limits: {settings.timeout:g} s, {settings.memory_mb} MB of memory and {settings.disk_mb} MB of disk "
          f"per notebook, {settings.jobs} at a time"
          + ("" if isolation.protected else "\n  warning: the submissions folder is writable from inside; "
                                             "changes are detected and undone afterwards"), file=sys.stderr)
    try:
        results, changed = grade_folder(root, settings, isolation, Progress(total))
    except KeyboardInterrupt:
        print("\nInterrupted: the running notebooks were stopped; no gradebook was written.", file=sys.stderr)
        return 130
    csv_path, html_path = write_gradebook(args.out, results, settings, isolation, changed, lang=args.lang,
                                          marks=args.marks)
    counts = {s: sum(r.status == s for r in results) for s in NOTEBOOK_STATUSES}
    print("Notebooks: " + ", ".join(f"{n} {s}" for s, n in counts.items() if n), file=sys.stderr)
    for relpath in changed:
        print(f"warning: {clean_text(relpath)} changed while grading (restored where possible)", file=sys.stderr)
    print(f"Wrote {csv_path} and {html_path}", file=sys.stderr)
    return 0
