"""Finding the submitted notebooks under a folder and reading them safely (no links, FIFOs or huge files).

The bytes are read once, before anything runs (:func:`snapshot`), and the
folder is checked afterwards (:func:`verify_and_restore`).
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

from course_utils.grade.results import Submission


MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024

EXERCISE_IN_NAME = re.compile(r"(?:^|[^0-9])(\d\d)_[A-Za-z_]+_exercise")
EXERCISE_IN_SOURCE = re.compile(r"from\s+course_utils\.checks\s+import\s+ex(\d\d)\b")


# --- finding the submissions ------------------------------------------------------------------------


def exercise_from_name(name: str) -> str:
    """'03' for '03_trimming_walkthrough_exercise.ipynb' (or 'alice_03_..._exercise (1).ipynb'); '' if none."""
    match = EXERCISE_IN_NAME.search(name)
    return match.group(1) if match else ""


def exercise_from_source(nb) -> str:
    """'03' when a code cell says ``from course_utils.checks import ex03``; '' if none does."""
    for cell in nb.cells:
        if cell.get("cell_type") == "code":
            match = EXERCISE_IN_SOURCE.search(str(cell.get("source", "")))
            if match:
                return match.group(1)
    return ""


def _name(text: str) -> str:
    """A file name as text that can always be written: bytes that are not UTF-8 shown as ``\\xff``."""
    return os.fsencode(text).decode("utf-8", "backslashreplace")


def find_submissions(root: Path) -> list[Submission]:
    """Every ``.ipynb`` under ``root`` (hidden files and folders left out), sorted by student then path.

    A name that is not UTF-8 is shown with ``\\xNN`` escapes. Anything that is
    not a regular file (a link, a FIFO, a device) is listed too, and graded as
    an invalid notebook without being opened.
    """
    found = []
    for dirpath, dirnames, filenames in os.walk(root):  # does not follow linked folders
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.startswith(".") or not name.endswith(".ipynb"):
                continue
            path = Path(dirpath) / name
            rel = path.relative_to(root)
            student = rel.parts[0] if len(rel.parts) > 1 else path.stem
            found.append(Submission(path, _name(rel.as_posix()), _name(student), exercise_from_name(_name(name))))
    return sorted(found, key=lambda s: (s.student, s.relpath))


class InvalidNotebook(ValueError):
    """The bytes submitted are not a Jupyter notebook we can run."""


def read_submission(path: Path) -> bytes:
    """At most MAX_NOTEBOOK_BYTES + 1 bytes of a regular file; OSError for a link, a FIFO, a device or worse.

    Opened without following a link and without blocking (a FIFO would wait for
    a writer forever), and checked to be a regular file before it is read.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{_name(str(path))}: not a regular file")
        chunks, left = [], MAX_NOTEBOOK_BYTES + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_notebook(data: bytes):
    """Parse and validate a submission; raise InvalidNotebook with a short reason."""
    import nbformat

    if len(data) > MAX_NOTEBOOK_BYTES:
        raise InvalidNotebook(f"larger than {MAX_NOTEBOOK_BYTES // (1024 * 1024)} MB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidNotebook("not UTF-8 text") from None
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        raise InvalidNotebook("not valid JSON") from None
    try:
        nb = nbformat.reads(text, as_version=4)
        nbformat.validate(nb)
    except Exception:  # noqa: BLE001 - any failure means "not a notebook we can run"
        raise InvalidNotebook("valid JSON, but not a Jupyter notebook (nbformat 4)") from None
    return nb


def snapshot(submissions: list[Submission]) -> dict[str, bytes | None]:
    """Every submission's bytes, read once before anything runs (None for a link or an unreadable file)."""
    taken: dict[str, bytes | None] = {}
    for sub in submissions:
        try:
            taken[sub.relpath] = read_submission(sub.path)
        except OSError:
            taken[sub.relpath] = None
    return taken


def verify_and_restore(root: Path, taken: dict[str, bytes], submissions: list[Submission]) -> list[str]:
    """Submissions changed while grading: listed, and put back as they were where possible."""
    changed = []
    for sub in submissions:
        original = taken[sub.relpath]
        if original is None:
            continue
        try:
            now = read_submission(sub.path)
        except OSError:
            now = None
        if now == original:
            continue
        changed.append(sub.relpath)
        try:
            if len(original) > MAX_NOTEBOOK_BYTES:
                continue  # only its beginning was read: cannot put it back
            temporary = sub.path.with_name(f".{sub.path.name}.restoring")
            temporary.write_bytes(original)
            os.replace(temporary, sub.path)
        except OSError:
            pass
    known = {sub.relpath for sub in submissions}
    changed += [f"{s.relpath} (new)" for s in find_submissions(root) if s.relpath not in known]
    return changed
