"""The parent side of the sandbox: choosing the isolation, preparing a folder, starting and stopping a runner.

The runner (:mod:`course_utils.grade.runner`) runs inside what is set up here.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

from course_utils.core import netguard
from course_utils.grade.isolation import Isolation, bwrap_command, candidates
from course_utils.grade.results import Settings, clean_text
from course_utils.grade.runspec import RunSpec


RECORD_FILE = ".course-checks.jsonl"  #: in the submission's folder; see checks.RECORD_ENV
NOTEBOOK_NAME = "submission.ipynb"  #: the copy's name inside its temporary folder
KERNEL_NAME = "course-grade"
#: After the time limit, before the grader kills what is left: more than the runner's own
#: IOPUB_SECONDS + INTERRUPT_SECONDS + GRADING_SECONDS (a test checks it), and time to report.
GRACE_SECONDS = 40
LOG_TAIL = 2000  #: bytes of the runner's stderr kept, to explain a runner that stopped without a result

#: The only variables a submission's kernel inherits from you (plus the ones the grader sets).
KEPT_VARIABLES = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ")
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|_URL$", re.IGNORECASE)


# --- isolation ---------------------------------------------------------------------------------------

_libc = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 4, 36, 38


def prctl(option: int, value: int) -> bool:
    """Linux ``prctl(option, value)``; True if it worked (always False elsewhere).

    >>> prctl(PR_SET_DUMPABLE, 1) == sys.platform.startswith("linux")
    True
    """
    if _libc is None:
        return False
    return _libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0) == 0


def prepare_grader_process() -> None:
    """Make this process fit to grade (the command line calls it once, before anything runs).

    Other processes of your user may not read its memory or environment (not
    "dumpable"), and it becomes a child subreaper: a process a submission
    detaches (a new session, a double fork) is re-parented here instead of to
    init, so that it can be killed when its runner ends.
    """
    global _subreaper
    prctl(PR_SET_DUMPABLE, 0)
    _subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1)


def _die_with_parent() -> None:  # pragma: no cover - runs in the child, between fork and exec
    """preexec_fn: the child is killed if the grader's thread that started it goes away."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _die_with_parent_no_new_privileges() -> None:  # pragma: no cover - runs in the child
    """preexec_fn in process mode: as above, and nothing it runs can gain privileges (set-uid programs)."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    prctl(PR_SET_NO_NEW_PRIVS, 1)


def detect_isolation(requested: str = "auto", protect: tuple[Path, ...] = ()) -> Isolation:
    """The strongest isolation that works here, found by running a probe in each mode in turn.

    The modes are described in :mod:`course_utils.grade.isolation`: ``namespaces``
    (bubblewrap), then ``process``, each as ``nobody`` first when the grader is root.
    ``protect``: folders the probe checks are read-only from inside.
    """
    tried = []
    for candidate in candidates(requested):
        ok, writable, why = _probe(candidate, protect)
        if ok:
            return Isolation(candidate.namespaces, candidate.uid, candidate.gid, candidate.user, protected=not writable)
        tried.append(f"{'namespaces' if candidate.namespaces else 'process'}"
                     f"{' as ' + candidate.user if candidate.user else ''}: {why}")
    raise RuntimeError(f"no isolation mode '{requested}' works here:\n  " + "\n  ".join(tried or ["none available"]))


def _probe(isolation: Isolation, protect: tuple[Path, ...]) -> tuple[bool, list[str], str]:
    outcome = run_sandboxed(b"", Settings(timeout=60), isolation,
                             extra={"probe": True, "protect": [str(p) for p in protect]})
    if outcome.get("status") == "probe ok":
        return True, outcome.get("writable", []), ""
    return False, [], outcome.get("detail", "failed")


# --- running one submission --------------------------------------------------------------------------

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


def package_parent() -> Path:
    """The folder that holds ``course_utils``: put on the kernel's PYTHONPATH, and protected from it."""
    return Path(__file__).resolve().parents[2]


def kernel_environment(root: Path, work: Path) -> dict[str, str]:
    """The whole environment of a submission: an allow-list of yours, then what the grader sets."""
    env = {name: os.environ[name] for name in KEPT_VARIABLES if name in os.environ}
    env.setdefault("PATH", os.defpath)
    env.update(
        HOME=str(work),
        TMPDIR=str(work / "tmp"),
        PYTHONPATH=netguard.pythonpath(str(package_parent())),  # the course's network guard, then the package
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


def prepare_folder(notebook: bytes, isolation: Isolation) -> tuple[Path, Path]:
    """A fresh temporary folder: work/ (the notebook's copy, writable by it) and jupyter/ (read-only).

    In namespaces mode the sandbox puts a tmpfs of the disk limit over work/
    and binds only the notebook's copy back, read-only: nothing the notebook
    writes reaches your disk.

    It has a random name inside a parent folder of its own that others may pass
    through but not list (mode 0711): a notebook cannot find another's folder
    by a pattern such as ``/tmp/course-grade-*/work``. Remove it with
    ``remove_folder(root.parent)``.
    """
    parent = Path(tempfile.mkdtemp(prefix="course-grade-")).resolve()
    os.chmod(parent, 0o711)
    root = Path(tempfile.mkdtemp(dir=parent)).resolve()
    work = root / "work"
    for folder in (work, work / "tmp", root / "jupyter" / "kernels" / KERNEL_NAME):
        folder.mkdir(parents=True, mode=0o755)
    (work / NOTEBOOK_NAME).write_bytes(notebook)
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


def remove_folder(root: Path) -> None:
    """Remove a folder made by :func:`prepare_folder` (pass ``root.parent``), whatever its modes."""
    def unlock(function, path, _exc):
        try:
            os.chmod(os.path.dirname(path), 0o700)
            os.chmod(path, 0o700)
            function(path)
        except OSError:
            pass

    shutil.rmtree(root, onerror=unlock)


def descendants(pid: int) -> list[psutil.Process]:
    """Every process below ``pid`` (none when it is gone)."""
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def _kill(processes: list[psutil.Process]) -> None:
    for process in processes:
        try:
            process.kill()  # psutil checks the pid was not reused meanwhile
        except psutil.Error:
            pass


def kill_all(proc: subprocess.Popen) -> None:
    """Kill a runner, its process group and every process below it.

    Call it before ``proc.wait()``: until then the runner's pid (and so its group id) cannot be reused.
    """
    _kill(descendants(proc.pid))
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass


def stop_all_runners() -> None:
    """Kill every runner alive now and what is below it (the grader was interrupted)."""
    with _running_lock:
        running = list(_running)
    for proc in running:
        kill_all(proc)


def _read_result(fd: int, log_fd: int, deadline: float) -> tuple[bytes, bool, bytes]:
    """Read the runner's answer until it closes the pipe (True) or the deadline passes (False).

    Meanwhile the runner's (and its kernel's) stderr is read from ``log_fd``
    and only its last :data:`LOG_TAIL` bytes are kept: a submission that
    floods stderr fills no file.
    """
    chunks, tail, fds = [], b"", [fd, log_fd]
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return b"".join(chunks), False, tail
        ready, _, _ = select.select(fds, [], [], min(left, 1.0))
        if log_fd in ready:
            chunk = os.read(log_fd, 65536)
            if chunk:
                tail = (tail + chunk)[-LOG_TAIL:]
            else:
                fds.remove(log_fd)
        if fd in ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                return b"".join(chunks), True, tail
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
        alive = runners | {p.pid for runner in runners for p in descendants(runner)}
        _kill([p for p in descendants(os.getpid()) if p.pid not in alive])
        for child in psutil.Process().children():
            if child.pid not in runners:
                try:
                    os.waitpid(child.pid, os.WNOHANG)
                except ChildProcessError:
                    pass


def _runner_command(spec: RunSpec, isolation: Isolation, root: Path, work: Path) -> list[str]:
    """The runner's command line: inside bubblewrap (namespaces), or as it is (process mode).

    In process mode as root with no user to become, util-linux ``setpriv`` (where
    present) empties the capability bounding set, so the kernel it starts has none.
    """
    runner = [sys.executable, "-s", "-m", "course_utils.grade", "--run-one", spec.to_json()]
    if isolation.namespaces:
        return bwrap_command(runner, isolation, work, [*spec.needed, str(root / "jupyter")],
                             disk_mb=spec.disk_mb, files=[work / NOTEBOOK_NAME])
    if os.geteuid() == 0 and isolation.uid is None and shutil.which("setpriv"):
        return ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--", *runner]
    return runner


def run_sandboxed(notebook: bytes, settings: Settings, isolation: Isolation, extra: dict | None = None) -> dict:
    """Run one notebook (or the probe) in its own temporary folder; return the runner's outcome.

    The outcome is the JSON object :func:`course_utils.grade.runner.runner_main`
    sends back (a :class:`.runspec.RunOutcome`: ``status``, ``detail``, ``records``,
    ``ignored``), or the
    grader's own account of a runner that timed out or stopped without one.
    ``extra`` holds more fields of the runner's :class:`.runspec.RunSpec` (the
    exercise and its check calls, or ``probe``).
    """
    root, work = prepare_folder(notebook, isolation)
    read_fd, write_fd = os.pipe()
    log_read, log_write = os.pipe()
    try:
        spec = RunSpec(
            root=str(root), work=str(work), timeout=float(settings.timeout), memory_mb=settings.memory_mb,
            disk_mb=settings.disk_mb, namespaces=isolation.namespaces, uid=isolation.uid, gid=isolation.gid,
            result_fd=write_fd, package=str(package_parent()),
            needed=tuple(sorted({str(Path(p).resolve()) for p in [sys.prefix, sys.base_prefix, sys.exec_prefix,
                                 Path(sys.executable).resolve().parent, package_parent(), *sys.path]
                                 if p and Path(p).is_dir()})),
            **(extra or {}),
        )
        started = time.monotonic()
        with _running_lock:
            try:
                proc = subprocess.Popen(
                    _runner_command(spec, isolation, root, work), env=kernel_environment(root, work), cwd=work,
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log_write, pass_fds=(write_fd,),
                    start_new_session=True,
                    preexec_fn=None if _libc is None else _die_with_parent if isolation.namespaces
                    else _die_with_parent_no_new_privileges,
                )
            except OSError as exc:  # e.g. bwrap removed since it was found
                return {"status": "crashed", "records": [],
                        "detail": f"the grader's runner could not start: {exc.strerror or exc}"}
            _running.add(proc)
        for fd in (write_fd, log_write):
            os.close(fd)
        write_fd = log_write = -1
        try:
            data, finished, log = _read_result(read_fd, log_read, started + settings.timeout + GRACE_SECONDS)
        finally:
            kill_all(proc)
            code = proc.wait()
            with _running_lock:
                _running.discard(proc)
            _reap_orphans()
        log_tail = log.decode("utf-8", "replace")
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
        for fd in (write_fd, log_write, read_fd, log_read):
            if fd >= 0:
                os.close(fd)
        remove_folder(root.parent)
