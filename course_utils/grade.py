"""Grade a folder of submitted exercise notebooks and write a gradebook.

    python -m course_utils.grade SUBMISSIONS_DIR [--out DIR] [--timeout S] [--memory MB] [--jobs N]

Every ``.ipynb`` under SUBMISSIONS_DIR is one submission. The student is the
first folder below SUBMISSIONS_DIR (``alice/03_trimming_walkthrough_exercise.ipynb``),
or the file's name when it lies directly in it (``alice.ipynb``, as a hand-in
folder for one exercise collects them). The exercise is read from the file
name (``03_..._exercise``) or else from the notebook's own
``from course_utils.checks import ex03``.

Each notebook runs top to bottom in a fresh kernel, in a temporary folder of
its own, with an environment stripped of your variables, no network, a time
limit and a memory limit (see :func:`detect_isolation` for what is used
where). Every ``qN.check(...)`` it calls is recorded (the checks append one
JSON line each to the file named by ``COURSE_CHECKS_RECORD``), and the
gradebook lists, per student and question: correct, wrong, not attempted,
error, or not run, with the check's message and the question's first hint.

A notebook that raises, crashes its kernel, loops, runs out of memory or is
not a notebook at all is recorded as such and never stops the run. The
gradebook has no timestamps: grading the same folder again writes the same
bytes. Student code is untrusted; TEACHING.md says what this isolation
guarantees and what it does not.
"""

from __future__ import annotations

import argparse
import csv
import ctypes
import html
import io
import json
import math
import os
import re
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "Isolation",
    "NotebookResult",
    "QuestionResult",
    "Settings",
    "Submission",
    "detect_isolation",
    "find_submissions",
    "grade_folder",
    "main",
]

NOTEBOOK_STATUSES = ("ok", "error", "crashed", "timeout", "memory limit", "invalid notebook")
QUESTION_STATUSES = ("correct", "wrong", "not attempted", "error", "not run")

RECORD_FILE = ".course-checks.jsonl"  #: in the submission's folder; see checks.RECORD_ENV
NOTEBOOK_NAME = "submission.ipynb"  #: the copy's name inside its temporary folder
KERNEL_NAME = "course-grade"
MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024
MAX_TEXT = 400  #: characters of a message kept in the gradebook
GRACE_SECONDS = 30  #: after the time limit, before the grader kills what is left
UNPRIVILEGED_USER = "nobody"

#: The only variables a submission's kernel inherits from you (plus the ones the grader sets).
KEPT_VARIABLES = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ")
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|_URL$", re.IGNORECASE)

EXERCISE_IN_NAME = re.compile(r"(?:^|[^0-9])(\d\d)_[A-Za-z_]+_exercise")
EXERCISE_IN_SOURCE = re.compile(r"from\s+course_utils\.checks\s+import\s+ex(\d\d)\b")


# --- what is graded and what comes out ------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """The limits each notebook runs under."""

    timeout: float = 120.0  #: seconds of wall-clock time per notebook, kernel start included
    memory_mb: int = 2048  #: data memory (heap and anonymous mappings) per process, in MB
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


@dataclass(frozen=True)
class Isolation:
    """How each submission is separated from you and from the others."""

    namespaces: bool  #: own mount, network and process namespaces (Linux ``unshare``)
    uid: int | None = None  #: run as this user (only when the grader runs as root)
    gid: int | None = None
    user: str = ""
    protected: bool = False  #: the probe found the submissions folder read-only from inside

    @property
    def description(self) -> str:
        who = f"as user {self.user}" if self.uid is not None else (
            "as root without capabilities" if os.geteuid() == 0 else "under your user")
        if self.namespaces:
            return (f"own namespaces (no network at all; every file read-only except its own temporary folder; "
                    f"its own process list) {who}")
        return f"a separate process {who} (network blocked by a Python-level guard only)"


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


def _read_submission(path: Path) -> bytes:
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


# --- the questions each exercise has ----------------------------------------------------------------


def _exercise(ex) -> "Exercise | None":
    """The ``checks.Exercise`` named by two digits ("03" -> checks.ex03), or None for anything else.

    ``ex`` may come from a record a submission wrote, so it is checked before
    it names an attribute: "03_conversation" would otherwise find a function.
    """
    from course_utils import checks

    if not isinstance(ex, str) or not re.fullmatch(r"\d\d", ex):
        return None
    found = getattr(checks, f"ex{ex}", None)
    return found if isinstance(found, checks.Exercise) else None


def known_questions(exercise: str) -> dict[int, tuple[str, str, str]]:
    """{number: (title, usage, first hint)} from course_utils.checks, or {} for an unknown exercise."""
    ex = _exercise(exercise)
    if ex is None:
        return {}
    return {q.number: (q.title, q.usage, q.hints[0] if q.hints else "") for q in ex.questions}


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
        if number in last:
            status, message = last[number]["status"], last[number]["message"]
        elif notebook_status in ("ok", "error"):
            status, message = "not run", f"`{usage}` never ran: its cell is missing or was changed."
        else:
            status, message = "not run", f"`{usage}` never ran: the notebook stopped first ({notebook_status})."
        results.append(QuestionResult(number, clean_text(title), status, clean_text(message),
                                      "" if status == "correct" else clean_text(hint)))
    return tuple(results)


_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean_text(text: str, limit: int = MAX_TEXT) -> str:
    """Text a submission influenced, made safe to store: no control characters or addresses, bounded length."""
    text = _CONTROL.sub(" ", _ADDRESS.sub("0x...", str(text)))
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- isolation ---------------------------------------------------------------------------------------

_libc = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 4, 24, 36, 38


def _prctl(option: int, value: int) -> bool:
    if _libc is None:
        return False
    return _libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0) == 0


def _die_with_parent() -> None:  # pragma: no cover - runs in the child, between fork and exec
    """preexec_fn: the child is killed if the grader's thread that started it goes away."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _unprivileged_ids() -> tuple[int, int] | None:
    import pwd

    try:
        entry = pwd.getpwnam(UNPRIVILEGED_USER)
    except KeyError:
        return None
    return entry.pw_uid, entry.pw_gid


def _candidates(requested: str) -> list[Isolation]:
    """Isolation modes to try, strongest first."""
    linux = sys.platform.startswith("linux")
    root = linux and os.geteuid() == 0
    ids = _unprivileged_ids() if root else None
    out = []
    if requested in ("auto", "namespaces") and linux and shutil.which("unshare"):
        if ids:
            out.append(Isolation(True, ids[0], ids[1], UNPRIVILEGED_USER))
        out.append(Isolation(True))
    if requested in ("auto", "process"):
        if ids:
            out.append(Isolation(False, ids[0], ids[1], UNPRIVILEGED_USER))
        out.append(Isolation(False))
    return out


def detect_isolation(requested: str = "auto", protect: tuple[Path, ...] = ()) -> Isolation:
    """The strongest isolation that works here, found by running a probe in each mode in turn.

    - ``namespaces`` (Linux, with util-linux ``unshare``): the submission gets its
      own network namespace (only a loopback interface: no network at all),
      mount namespace (every file system read-only except its own temporary
      folder) and process namespace (it sees and signals only its own
      processes). As root it also runs as user ``nobody`` when that user can
      run the course's Python; as a normal user this needs unprivileged user
      namespaces.
    - ``process``: a separate process, as ``nobody`` when the grader is root and
      that works, else under your user; the network is blocked only by a
      Python-level guard.

    ``protect``: folders the probe checks are read-only from inside.
    """
    tried = []
    for candidate in _candidates(requested):
        ok, writable, why = _probe(candidate, protect)
        if ok:
            return Isolation(candidate.namespaces, candidate.uid, candidate.gid, candidate.user, protected=not writable)
        tried.append(f"{'namespaces' if candidate.namespaces else 'process'}"
                     f"{' as ' + candidate.user if candidate.user else ''}: {why}")
    raise RuntimeError(f"no isolation mode '{requested}' works here:\n  " + "\n  ".join(tried or ["none available"]))


def _probe(isolation: Isolation, protect: tuple[Path, ...]) -> tuple[bool, list[str], str]:
    outcome = _run_sandboxed(b"", Settings(timeout=60), isolation,
                             extra={"probe": True, "protect": [str(p) for p in protect]})
    if outcome.get("status") == "probe ok":
        return True, outcome.get("writable", []), ""
    return False, [], outcome.get("detail", "failed")


# --- running one submission --------------------------------------------------------------------------

GUARD_SOURCE = '''"""Written by course_utils.grade: refuse every connection that leaves this machine."""
import ipaddress
import socket


def _local(host):
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode()
    host = str(host).strip("[]")
    if host in ("localhost", "localhost.localdomain", "ip6-localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback or host in ("0.0.0.0", "::")
    except ValueError:
        return False


def _guard(original):
    def guarded(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple) and address \\
                and not _local(address[0]):
            raise OSError(f"network access blocked while grading: {address!r}")
        return original(self, address)
    return guarded


_getaddrinfo = socket.getaddrinfo


def _guarded_getaddrinfo(host, *args, **kwargs):
    if not _local(host):
        raise OSError(f"name lookup blocked while grading: {host!r}")
    return _getaddrinfo(host, *args, **kwargs)


socket.socket.connect = _guard(socket.socket.connect)
socket.socket.connect_ex = _guard(socket.socket.connect_ex)
socket.getaddrinfo = _guarded_getaddrinfo
'''

#: The kernel dies with the process that started it, then runs ipykernel as usual.
KERNEL_LAUNCH = (
    "import ctypes, signal, sys\n"
    "try:\n"
    "    ctypes.CDLL(None).prctl(1, int(signal.SIGKILL), 0, 0, 0)\n"
    "except Exception:\n"
    "    pass\n"
    "sys.argv[0] = 'ipykernel_launcher'\n"
    "from ipykernel.kernelapp import launch_new_instance\n"
    "launch_new_instance()\n"
)


def _package_parent() -> Path:
    return Path(__file__).resolve().parents[1]


def kernel_environment(root: Path, work: Path) -> dict[str, str]:
    """The whole environment of a submission: an allow-list of yours, then what the grader sets."""
    env = {name: os.environ[name] for name in KEPT_VARIABLES if name in os.environ}
    env.setdefault("PATH", os.defpath)
    env.update(
        HOME=str(work),
        TMPDIR=str(work / "tmp"),
        PYTHONPATH=os.pathsep.join([str(root / "guard"), str(_package_parent())]),
        PYTHONHASHSEED="0",
        PYTHONDONTWRITEBYTECODE="1",
        JUPYTER_PATH=str(root / "jupyter"),
        JUPYTER_PLATFORM_DIRS="1",
        IPYTHONDIR=str(work / ".ipython"),
        MPLCONFIGDIR=str(work / ".matplotlib"),
        COURSE_CHECKS_RECORD=str(work / RECORD_FILE),
    )
    leaked = [name for name in env if SECRET_NAME.search(name)]
    if leaked:  # pragma: no cover - a guard against a future edit of KEPT_VARIABLES
        raise RuntimeError(f"secret-looking variables in a submission's environment: {leaked}")
    return env


def _prepare_folder(notebook: bytes, isolation: Isolation) -> tuple[Path, Path]:
    """A fresh temporary folder: work/ (the notebook's copy, writable by it), guard/ and jupyter/ (read-only).

    It has a random name inside a parent folder of its own that others may pass
    through but not list (mode 0711): a notebook cannot find another's folder
    by a pattern such as ``/tmp/course-grade-*/work``. Remove it with
    ``_remove_folder(root.parent)``.
    """
    parent = Path(tempfile.mkdtemp(prefix="course-grade-")).resolve()
    os.chmod(parent, 0o711)
    root = Path(tempfile.mkdtemp(dir=parent)).resolve()
    work = root / "work"
    for folder in (work, work / "tmp", root / "guard", root / "jupyter" / "kernels" / KERNEL_NAME):
        folder.mkdir(parents=True, mode=0o755)
    (work / NOTEBOOK_NAME).write_bytes(notebook)
    (root / "guard" / "sitecustomize.py").write_text(GUARD_SOURCE, encoding="utf-8")
    spec = {"argv": [sys.executable, "-s", "-c", KERNEL_LAUNCH, "-f", "{connection_file}"],
            "display_name": "Python 3 (grading)", "language": "python"}
    (root / "jupyter" / "kernels" / KERNEL_NAME / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    for path in [root, *root.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    os.chmod(root, 0o711)  # others may pass through to work/ but not list the folder
    if isolation.uid is not None:
        for path in [work, *work.rglob("*")]:
            os.chown(path, isolation.uid, isolation.gid)
    return root, work


def _remove_folder(root: Path) -> None:
    def unlock(function, path, _exc):
        try:
            os.chmod(os.path.dirname(path), 0o700)
            os.chmod(path, 0o700)
            function(path)
        except OSError:
            pass

    shutil.rmtree(root, onerror=unlock)


def _children(pid: int) -> list[int]:
    return _process_tree().get(pid, [])


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (from /proc; empty where there is no /proc)."""
    children = _process_tree()
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _process_tree() -> dict[int, list[int]]:
    """{parent pid: [child pids]} for every process this user may see in /proc."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return {}
    for entry in entries:
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    ppid = int(stat.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    return children


def _kill_all(proc: subprocess.Popen) -> None:
    """Kill the runner, its process group and every process below it. Call before proc.wait():
    until then its pid (and so its group id) cannot be reused."""
    for pid in _descendants(proc.pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass


def _read_result(fd: int, deadline: float) -> tuple[bytes, bool]:
    """Read the runner's answer until it closes the pipe (True) or the deadline passes (False)."""
    chunks = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return b"".join(chunks), False
        ready, _, _ = select.select([fd], [], [], min(left, 1.0))
        if ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                return b"".join(chunks), True
            chunks.append(chunk)


_running: set[subprocess.Popen] = set()  #: runners alive now, so that an interrupted grader can stop them
_running_lock = threading.Lock()
_subreaper = False  #: set by main() once the grader is a child subreaper


def _reap_orphans() -> None:
    """Kill and reap processes a submission left behind that became the grader's own children.

    The grader is a "child subreaper" (Linux): a process that detaches itself
    from its runner (a new session, a double fork) is re-parented to the
    grader instead of to init, and is found here. In namespace mode the process
    namespace already ends with the runner; this is for process mode.
    """
    if not _subreaper:
        return
    with _running_lock:
        runners = {proc.pid for proc in _running}
        alive = runners | {pid for runner in runners for pid in _descendants(runner)}
        for pid in _descendants(os.getpid()):
            if pid not in alive:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        for pid in _children(os.getpid()):
            if pid not in runners:
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass


def _runner_command(spec: dict, isolation: Isolation) -> list[str]:
    runner = [sys.executable, "-s", "-m", "course_utils.grade", "--run-one", json.dumps(spec)]
    if not isolation.namespaces:
        return runner
    wrap = ["unshare", "--mount", "--net", "--pid", "--fork", "--kill-child", "--mount-proc"]
    if os.geteuid() != 0:
        wrap += ["--user", "--map-root-user"]
    return [*wrap, "--", *runner]


def _run_sandboxed(notebook: bytes, settings: Settings, isolation: Isolation, extra: dict | None = None) -> dict:
    """Run one notebook (or the probe) in its own temporary folder; return the runner's outcome."""
    root, work = _prepare_folder(notebook, isolation)
    read_fd, write_fd = os.pipe()
    try:
        spec = {
            "root": str(root), "work": str(work), "timeout": settings.timeout, "memory_mb": settings.memory_mb,
            "lockdown": isolation.namespaces, "uid": isolation.uid, "gid": isolation.gid, "result_fd": write_fd,
            "needed": sorted({str(Path(p).resolve()) for p in [sys.prefix, sys.base_prefix, sys.exec_prefix,
                              Path(sys.executable).resolve().parent, _package_parent(), *sys.path]
                              if p and Path(p).is_dir()}),
            **(extra or {}),
        }
        started = time.monotonic()
        with tempfile.TemporaryFile() as log:
            with _running_lock:
                proc = subprocess.Popen(
                    _runner_command(spec, isolation), env=kernel_environment(root, work), cwd=work,
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, pass_fds=(write_fd,),
                    start_new_session=True, preexec_fn=_die_with_parent if _libc else None,
                )
                _running.add(proc)
            os.close(write_fd)
            write_fd = -1
            try:
                data, finished = _read_result(read_fd, started + settings.timeout + GRACE_SECONDS)
            finally:
                _kill_all(proc)
                code = proc.wait()
                with _running_lock:
                    _running.discard(proc)
                _reap_orphans()
            log.seek(0)
            log_tail = log.read()[-2000:].decode("utf-8", "replace")
        if not finished:
            return {"status": "timeout", "detail": f"stopped at the time limit ({settings.timeout:g} s)", "records": []}
        try:
            outcome = json.loads(data)
        except ValueError:
            last = [line for line in log_tail.splitlines() if line.strip()][-1:]
            return {"status": "crashed", "records": [], "no_result": True,
                    "detail": f"the grader's runner stopped without a result (exit code {code})"
                              + (f": {clean_text(last[0].replace(str(root.parent), '.'), 200)}" if last else "")}
        return outcome
    finally:
        if write_fd >= 0:
            os.close(write_fd)
        os.close(read_fd)
        _remove_folder(root.parent)


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


# --- the runner: one submission, inside its sandbox --------------------------------------------------
# Everything below runs in the child process ``python -m course_utils.grade --run-one SPEC``.

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC, MS_PRIVATE, MS_RELATIME = 1024, 2048, 4096, 16384, 1 << 18, 1 << 21
#: statvfs flag -> the mount flag a read-only remount must keep
KEPT_MOUNT_FLAGS = ((2, MS_NOSUID), (4, MS_NODEV), (8, MS_NOEXEC), (1024, MS_NOATIME), (2048, MS_NODIRATIME),
                    (4096, MS_RELATIME))


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    def b(text):
        return None if text is None else os.fsencode(text)

    if _libc.mount(b(source), b(target), b(fstype), ctypes.c_ulong(flags), b(data)) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"mount {target}: {os.strerror(errno)}")


def _mount_points() -> list[str]:
    points = set()
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as info:
        for line in info:
            target = line.split()[4]
            points.add(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), target))
    return sorted(points)


def _loopback_up() -> None:
    """Bring up ``lo`` in the new network namespace: the runner talks to its kernel over it."""
    import fcntl
    import socket
    import struct

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        flags = struct.unpack("16sh", fcntl.ioctl(sock, 0x8913, struct.pack("16sh", b"lo", 0)))[1]  # SIOCGIFFLAGS
        fcntl.ioctl(sock, 0x8914, struct.pack("16sh", b"lo", flags | 1))  # SIOCSIFFLAGS, IFF_UP


def _can_pass(path: str, uid: int, gid: int) -> bool:
    st = os.stat(path)
    bit = 0o100 if st.st_uid == uid else 0o010 if st.st_gid == gid else 0o001
    return bool(st.st_mode & bit)


def _expose_paths(needed: list[str], hidden: Path, uid: int, gid: int) -> None:
    """Make the folders the kernel needs reachable for ``uid`` in this mount namespace only.

    A folder on the way that ``uid`` may not pass through (say ``/root``, mode
    0700, holding the Python installation) is covered by an empty tmpfs, and
    only the needed subfolders are mounted back into it: the rest of that
    folder stays invisible. Nothing changes outside the namespace.
    """
    hidden.mkdir(mode=0o700)
    for round_number in range(32):
        blocked = None
        for path in needed:
            parts = Path(path).parts
            for depth in range(1, len(parts)):  # ancestors only: "/" ... parent
                folder = str(Path(*parts[:depth]))
                if not _can_pass(folder, uid, gid):
                    blocked = folder
                    break
            if blocked:
                break
        if blocked is None:
            return
        stash = hidden / str(round_number)
        stash.mkdir(mode=0o700)
        _mount(blocked, str(stash), None, MS_BIND | MS_REC)
        _mount("tmpfs", blocked, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")
        below = sorted({Path(p).relative_to(blocked).parts[0] for p in needed
                        if Path(p) != Path(blocked) and Path(blocked) in Path(p).parents})
        for name in below:
            (Path(blocked) / name).mkdir()
            _mount(str(stash / name), str(Path(blocked) / name), None, MS_BIND | MS_REC)
    raise RuntimeError("could not expose the Python installation to the unprivileged user")


#: Folders where other programs leave Unix-domain sockets (and files): each is covered by an empty tmpfs.
SHARED_FOLDERS = ("/tmp", "/var/tmp", "/run", "/var/run", "/dev/shm")


def _mask_shared_folders(keep: list[str]) -> None:
    """Cover /tmp, /run and the like with empty file systems, then put back the folders in ``keep`` inside them.

    A read-only mount does not stop ``connect()`` to a Unix-domain socket, so a
    socket another program left in one of these folders (a database's, a
    desktop session's) would be reachable from a notebook. Each kept folder
    (the grading folder, a Python installation under /tmp) is opened before
    its parent is covered and bind-mounted back from that handle.
    """
    done = set()
    for folder in SHARED_FOLDERS:
        if not os.path.isdir(folder) or os.path.islink(folder):
            continue  # /var/run is usually a link to /run
        real = os.path.realpath(folder)
        if real in done:
            continue
        done.add(real)
        inside = sorted({p for p in keep if Path(real) in Path(p).parents})
        inside = [p for p in inside if not any(Path(q) in Path(p).parents for q in inside)]
        handles = [(p, os.open(p, os.O_PATH | os.O_DIRECTORY)) for p in inside if os.path.isdir(p)]
        try:
            _mount("tmpfs", real, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")
            for path, fd in handles:
                os.makedirs(path, mode=0o755, exist_ok=True)
                _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
        finally:
            for _path, fd in handles:
                os.close(fd)


def _lock_down(spec: dict) -> None:
    """Inside fresh namespaces: loopback only, and every mount read-only except the work folder."""
    work = spec["work"]
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _loopback_up()
    if spec.get("uid") is not None:
        _expose_paths(spec["needed"], Path(spec["root"]) / "hidden", spec["uid"], spec["gid"])
    _mask_shared_folders([spec["root"], *spec["needed"]])
    _mount(work, work, None, MS_BIND)
    for target in _mount_points():
        if target == work:
            continue
        try:
            flags = MS_BIND | MS_REMOUNT | MS_RDONLY
            st_flags = os.statvfs(target).f_flag
            for st_flag, ms_flag in KEPT_MOUNT_FLAGS:
                if st_flags & st_flag:
                    flags |= ms_flag
            _mount(None, target, None, flags)
        except OSError:
            pass  # a mount we may not change stays as it was (checked by the probe for what matters)
    if os.path.isdir("/dev/shm"):
        try:
            _mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=64m")
        except OSError:
            pass


def _drop_privileges(uid: int | None, gid: int | None) -> None:
    """No capabilities for anything started from here, no set-uid gains, and the unprivileged user if given."""
    for cap in range(64):
        if not _prctl(PR_CAPBSET_DROP, cap) and ctypes.get_errno() == 22:  # EINVAL: past the last capability
            break
    if uid is not None:
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    _prctl(PR_SET_NO_NEW_PRIVS, 1)


def _set_limits(timeout: float, memory_mb: int, own_user: bool) -> None:
    """Limits the kernel inherits: data memory, file size, CPU time, no core files (and processes, as nobody)."""
    import resource

    def lower(which, value):
        _soft, hard = resource.getrlimit(which)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(which, (value, value))

    lower(resource.RLIMIT_DATA, memory_mb * 1024 * 1024)
    lower(resource.RLIMIT_FSIZE, 256 * 1024 * 1024)
    lower(resource.RLIMIT_CPU, int(2 * timeout) + 60)
    lower(resource.RLIMIT_CORE, 0)
    if own_user:
        lower(resource.RLIMIT_NPROC, 512)


def _runner_probe(spec: dict) -> dict:
    """Can a kernel's Python start here, and which protected folders could it still write?"""
    check = subprocess.run([sys.executable, "-s", "-c", "import course_utils.checks, ipykernel.kernelapp"],
                           stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    if check.returncode != 0:
        lines = check.stderr.decode("utf-8", "replace").strip().splitlines()
        return {"status": "probe failed", "detail": lines[-1] if lines else f"exit code {check.returncode}"}
    return {"status": "probe ok", "writable": [p for p in spec.get("protect", []) if os.access(p, os.W_OK)]}


def _execute(spec: dict, started: float) -> dict:
    """Run the notebook with nbclient; say how it ended and what the checks recorded."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    work = Path(spec["work"])
    timeout = float(spec["timeout"])
    deadline = started + timeout
    nb = nbformat.read(work / NOTEBOOK_NAME, as_version=4)
    running: dict[str, int | None] = {"cell": None}

    def on_cell_execute(cell=None, cell_index=None, **_):
        running["cell"] = cell_index

    client = NotebookClient(
        nb, kernel_name=KERNEL_NAME, timeout=int(timeout),
        timeout_func=lambda cell: max(1, math.ceil(deadline - time.monotonic())),
        startup_timeout=max(1, int(deadline - time.monotonic())), allow_errors=True, record_timing=False,
        shutdown_kernel="immediate", on_cell_execute=on_cell_execute,
        resources={"metadata": {"path": str(work)}},
    )
    status, detail = "ok", ""
    try:
        client.execute()
    except CellTimeoutError:
        status = "timeout"
    except DeadKernelError:
        status, detail = "crashed", "the kernel died"
    except Exception as exc:  # noqa: BLE001 - e.g. the kernel did not start in time
        status = "timeout" if time.monotonic() >= deadline else "crashed"
        detail = f"the kernel could not run it ({type(exc).__name__})"
    where = "while starting the kernel" if running["cell"] is None else f"while running cell {running['cell'] + 1}"
    if status == "timeout":
        detail = f"stopped at the time limit ({timeout:g} s) {where}"
    elif status == "crashed":
        detail = f"{detail} {where}".strip()
    errors = [(index, output.get("ename", ""), output.get("evalue", ""))
              for index, cell in enumerate(nb.cells) if cell.cell_type == "code"
              for output in cell.get("outputs", []) if output.get("output_type") == "error"]
    if status == "ok" and errors:
        memory = [e for e in errors if e[1] == "MemoryError"]
        index, name, value = (memory or errors)[0]
        status = "memory limit" if memory else "error"
        detail = f"cell {index + 1} raised {name}: {value}" if value else f"cell {index + 1} raised {name}"
        if memory:
            detail += f" (limit {spec['memory_mb']} MB)"
        if len(errors) > 1:
            detail += f"; {len(errors) - 1} more cell(s) raised errors"
    records = _read_records(work / RECORD_FILE)
    for path in (str(work), str(Path(spec["root"]))):  # temporary paths would differ on every run
        detail = detail.replace(path, ".")
        for record in records:
            if isinstance(record, dict) and isinstance(record.get("message"), str):
                record["message"] = record["message"].replace(path, ".")
    return {"status": status, "detail": detail, "records": records}


def _read_records(path: Path) -> list[dict]:
    from course_utils.checks.record import read_records

    return read_records(path)


def _runner_main(spec_text: str) -> int:
    """Entry point of the runner (``--run-one SPEC``); the outcome goes to the pipe named in SPEC."""
    started = time.monotonic()
    spec = json.loads(spec_text)
    fd = int(spec["result_fd"])
    os.set_inheritable(fd, False)
    try:
        if spec.get("lockdown"):
            _lock_down(spec)
        _drop_privileges(spec.get("uid"), spec.get("gid"))
        _set_limits(float(spec["timeout"]), int(spec["memory_mb"]), spec.get("uid") is not None)
        outcome = _runner_probe(spec) if spec.get("probe") else _execute(spec, started)
    except Exception as exc:  # noqa: BLE001 - reported to the grader, which records it
        outcome = {"status": "crashed", "detail": f"the grader's runner failed: {type(exc).__name__}: {exc}",
                   "records": []}
    data = json.dumps(outcome).encode()
    while data:
        data = data[os.write(fd, data):]
    os.close(fd)
    return 0


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


def snapshot(submissions: list[Submission]) -> dict[str, bytes | None]:
    """Every submission's bytes, read once before anything runs (None for a link or an unreadable file)."""
    taken: dict[str, bytes | None] = {}
    for sub in submissions:
        try:
            taken[sub.relpath] = _read_submission(sub.path)
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
            now = _read_submission(sub.path)
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


# --- the gradebook ---------------------------------------------------------------------------------

CSV_COLUMNS = ("student", "exercise", "file", "question", "title", "status", "message", "hint",
               "notebook_status", "notebook_detail")

#: status -> (symbol, colour, background)
COLOURS = {
    "correct": ("\u2713", "#2e7d32", "#e7f5ea"),
    "wrong": ("\u2717", "#a15c00", "#fff4de"),
    "not attempted": ("\u2013", "#455a64", "#eceff1"),
    "error": ("!", "#c62828", "#fdecea"),
    "not run": ("\u00b7", "#616161", "#f5f5f5"),
    "ok": ("ok", "#2e7d32", "#e7f5ea"),
    "crashed": ("crashed", "#c62828", "#fdecea"),
    "timeout": ("timeout", "#c62828", "#fdecea"),
    "memory limit": ("memory", "#c62828", "#fdecea"),
    "invalid notebook": ("invalid", "#c62828", "#fdecea"),
}


def gradebook_rows(results: list[NotebookResult]) -> list[dict[str, str]]:
    """One row per student, exercise and question (one row for a notebook with no known questions)."""
    rows = []
    for r in results:
        base = {"student": r.submission.student, "exercise": r.exercise or "?", "file": r.submission.relpath,
                "notebook_status": r.status, "notebook_detail": r.detail}
        if not r.questions:
            why = r.detail or ("no checks of a known exercise ran in it (name the file NN_..._exercise.ipynb, "
                               "or keep its `from course_utils.checks import exNN` line)")
            rows.append({**base, "question": "", "title": "", "status": "not run", "hint": "",
                         "message": f"no question could be graded: {why}"})
        for q in r.questions:
            rows.append({**base, "question": f"q{q.number}", "title": q.title, "status": q.status,
                         "message": q.message, "hint": q.hint})
    return rows


def _csv_safe(value: str) -> str:
    """A spreadsheet must not read a student's text as a formula."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def gradebook_csv(results: list[NotebookResult]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in gradebook_rows(results):
        writer.writerow([_csv_safe(row[c]) for c in CSV_COLUMNS])
    return buffer.getvalue()


def _exercise_titles(exercises: list[str]) -> dict[str, str]:
    titles = {}
    for ex in exercises:
        found = _exercise(ex)
        titles[ex] = f"{ex} \u00b7 {found.title}" if found else f"exercise {ex}"
    return titles


def _cell(status: str, text: str, title: str = "") -> str:
    _symbol, colour, background = COLOURS.get(status, ("?", "#212121", "#fff"))
    tip = f' title="{html.escape(title, quote=True)}"' if title else ""
    return (f'<td class="s" style="color:{colour};background:{background}"{tip}>'
            f"{html.escape(text)}</td>")


def gradebook_html(results: list[NotebookResult], settings: Settings, isolation: Isolation,
                   changed: list[str]) -> str:
    """A per-student table (each question coloured, its message and hint on hover), then every row in full."""
    e = html.escape
    exercises = sorted({r.exercise or "?" for r in results})
    titles = _exercise_titles(exercises)
    columns = {ex: sorted({q.number for r in results if (r.exercise or "?") == ex for q in r.questions})
               for ex in exercises}
    students: dict[tuple[str, int], dict[str, NotebookResult]] = {}
    for r in results:
        k = 0
        while (r.exercise or "?") in students.setdefault((r.submission.student, k), {}):
            k += 1
        students[(r.submission.student, k)][r.exercise or "?"] = r
    head1 = "".join(f'<th colspan="{len(columns[ex]) + 2}">{e(titles[ex])}</th>' for ex in exercises)
    head2 = "".join("<th>notebook</th>" + "".join(f"<th>q{n}</th>" for n in columns[ex]) + "<th>score</th>"
                    for ex in exercises)
    body = []
    for (student, k), by_exercise in sorted(students.items()):
        label = student if k == 0 else f"{student} ({', '.join(r.submission.relpath for r in by_exercise.values())})"
        cells = [f"<th class=\"who\">{e(label)}</th>"]
        for ex in exercises:
            r = by_exercise.get(ex)
            if r is None:
                cells.append(f'<td colspan="{len(columns[ex]) + 2}" class="none">no submission</td>')
                continue
            cells.append(_cell(r.status, r.status, f"{r.submission.relpath}: {r.status}. {r.detail}"))
            by_number = {q.number: q for q in r.questions}
            for n in columns[ex]:
                q = by_number.get(n)
                if q is None:
                    cells.append('<td class="none"></td>')
                    continue
                tip = f"q{n} ({q.title}): {q.status}. {q.message}" + (f"\nHint: {q.hint}" if q.hint else "")
                cells.append(_cell(q.status, f"{COLOURS[q.status][0]} {q.status}", tip))
            cells.append(f'<td class="score">{r.correct}/{len(r.questions)}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    detail_rows = "".join(
        "<tr>" + "".join(f"<td>{e(row[c])}</td>" for c in ("student", "exercise", "file", "question", "title"))
        + _cell(row["status"], row["status"]) + f"<td>{e(row['message'])}</td><td>{e(row['hint'])}</td>"
        + _cell(row["notebook_status"], row["notebook_status"]) + f"<td>{e(row['notebook_detail'])}</td></tr>"
        for row in gradebook_rows(results))
    warning = ""
    if changed:
        items = "".join(f"<li>{e(c)}</li>" for c in changed)
        warning = (f'<div class="warn"><strong>Submissions changed while grading</strong> (put back as they were '
                   f"where possible; each was graded from the copy read before anything ran):<ul>{items}</ul></div>")
    legend = " ".join(_cell(s, f"{COLOURS[s][0]} {s}").replace("<td", "<span").replace("</td>", "</span>")
                      for s in QUESTION_STATUSES)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Gradebook</title>
<style>
body{{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:1.5em;color:#212121}}
table{{border-collapse:collapse;margin:1em 0}} th,td{{border:1px solid #ccc;padding:3px 7px;vertical-align:top}}
th{{background:#fafafa}} th.who{{text-align:left}} td.s{{white-space:nowrap}} td.none{{color:#9e9e9e}}
td.score{{font-weight:bold;text-align:right}} span.s{{padding:1px 6px;border-radius:3px}}
.warn{{border:1px solid #c62828;background:#fdecea;padding:6px 10px}} details td{{font-size:90%}}
details td:nth-child(7),details td:nth-child(8){{min-width:24em}}
</style></head><body>
<h1>Gradebook</h1>
<p>{len(results)} notebooks. Hover over a cell for the check's message and the hint. {legend}</p>
{warning}
<table><thead><tr><th rowspan="2">student</th>{head1}</tr><tr>{head2}</tr></thead>
<tbody>{''.join(body)}</tbody></table>
<details open><summary>Every question, with the check's message and the hint</summary>
<table><thead><tr>{''.join(f'<th>{c}</th>' for c in CSV_COLUMNS)}</tr></thead><tbody>{detail_rows}</tbody></table>
</details>
<p><small>Each notebook ran in a fresh kernel in {e(isolation.description)}, with a time limit of
{settings.timeout:g} s and a memory limit of {settings.memory_mb} MB. The checks run inside the student's own
kernel: a student who rewrites them can fake a result, so read the code behind a surprising one.</small></p>
</body></html>
"""


def _write(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8", errors="backslashreplace", newline="")
    os.replace(temporary, path)


def write_gradebook(out: Path, results: list[NotebookResult], settings: Settings, isolation: Isolation,
                    changed: list[str]) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = out / "gradebook.csv", out / "gradebook.html"
    _write(paths[0], gradebook_csv(results))
    _write(paths[1], gradebook_html(results, settings, isolation, changed))
    return paths


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
                        help="wall-clock seconds per notebook, kernel start included (default: %(default)g)")
    parser.add_argument("--memory", type=_positive(int, 256, 1024 * 1024, "MB"), default=Settings.memory_mb,
                        help="memory limit per notebook in MB (default: %(default)s)")
    parser.add_argument("--jobs", type=_positive(int, 1, 64, "notebooks"), default=None,
                        help="notebooks graded at the same time (default: 2 with the namespaces isolation on a "
                             "machine with 2 or more cores, else 1; see TEACHING.md)")
    parser.add_argument("--isolation", choices=("auto", "namespaces", "process"), default="auto",
                        help="auto (default): the strongest that works here; see TEACHING.md")
    args = parser.parse_args(argv)
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
        return _runner_main(argv[1])
    args = parse_args(argv)
    root = args.submissions.resolve()
    total = len(find_submissions(root))
    if total == 0:
        print(f"No .ipynb files in {root}: nothing to grade.", file=sys.stderr)
        return 1
    _prctl(PR_SET_DUMPABLE, 0)  # other processes of your user may not read this one's memory or environment
    global _subreaper
    _subreaper = _prctl(PR_SET_CHILD_SUBREAPER, 1)  # what a submission detaches comes back here, to be killed
    try:
        isolation = detect_isolation(args.isolation, protect=(root, _package_parent()))
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    settings = Settings(timeout=args.timeout, memory_mb=args.memory, jobs=args.jobs or default_jobs(isolation))
    print(f"Grading {total} notebook(s) in {root}\n  each in {isolation.description};\n"
          f"  limits: {settings.timeout:g} s and {settings.memory_mb} MB per notebook, {settings.jobs} at a time"
          + ("" if isolation.protected else "\n  warning: the submissions folder is writable from inside; "
                                             "changes are detected and undone afterwards"), file=sys.stderr)
    try:
        results, changed = grade_folder(root, settings, isolation, Progress(total))
    except KeyboardInterrupt:
        print("\nInterrupted: the running notebooks were stopped; no gradebook was written.", file=sys.stderr)
        return 130
    csv_path, html_path = write_gradebook(args.out, results, settings, isolation, changed)
    counts = {s: sum(r.status == s for r in results) for s in NOTEBOOK_STATUSES}
    print("Notebooks: " + ", ".join(f"{n} {s}" for s, n in counts.items() if n), file=sys.stderr)
    for relpath in changed:
        print(f"warning: {clean_text(relpath)} changed while grading (restored where possible)", file=sys.stderr)
    print(f"Wrote {csv_path} and {html_path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
