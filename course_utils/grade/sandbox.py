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
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from course_utils.grade.results import clean_text, Settings


RECORD_FILE = ".course-checks.jsonl"  #: in the submission's folder; see checks.RECORD_ENV
NOTEBOOK_NAME = "submission.ipynb"  #: the copy's name inside its temporary folder
KERNEL_NAME = "course-grade"
GRACE_SECONDS = 30  #: after the time limit, before the grader kills what is left
UNPRIVILEGED_USER = "nobody"

#: The only variables a submission's kernel inherits from you (plus the ones the grader sets).
KEPT_VARIABLES = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ")
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|_URL$", re.IGNORECASE)


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
    """The folder that holds ``course_utils``: put on the kernel's PYTHONPATH."""
    return Path(__file__).resolve().parents[2]


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
