"""The grader's sandbox on bubblewrap: what the command hides, and the grader run by a user who is not root.

A teacher on a JupyterHub is not root. ``runuser -u nobody`` plays that
teacher here: the grader runs as ``nobody``, with a home folder holding a
secret, while this test listens on 127.0.0.1. A submission tries to connect
to that port and to read the secret; both must fail, and the listener must
hear nothing.

The Python installation, the virtual environment or the clone itself may lie
under a folder ``nobody`` cannot pass through (this machine's Python is under
/root, mode 0700; a fresh clone may be under one too). So the grader runs
inside an outer bubblewrap (started as root) where each such folder is an
empty one with only what the grader needs put back, read-only (see
:func:`reachable_for_nobody`), and /home holds only the teacher's home. The
grader's own sandbox is nested in that one, as bwrap runs on a hub. Inside
it, the submission also checks which folders it may write to: with a user
namespace it owns the sandbox's empty folders, so they must be read-only, and
its own folder must be the tmpfs of --disk MB.
"""

import csv
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from course_utils import grade
from course_utils.grade import isolation

from socket_support import Listener

ROOT = Path(__file__).resolve().parents[1]
BWRAP = shutil.which("bwrap")
RUNUSER = shutil.which("runuser")

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or BWRAP is None,
                                reason="bubblewrap (Linux) is what this file tests")


def test_bubblewrap_is_chosen_and_described():
    chosen = grade.detect_isolation("auto")
    assert chosen.namespaces and "bubblewrap" in chosen.description
    if os.geteuid() == 0:
        assert chosen.user == "nobody" and chosen.protected


def test_the_command_hides_shared_and_home_folders_and_keeps_only_work_writable(tmp_path):
    work = (tmp_path / "work").resolve()
    work.mkdir()
    (work / "submission.ipynb").write_text("{}", encoding="utf-8")
    python = str(Path(sys.base_prefix).resolve())
    command = grade.isolation.bwrap_command(["true"], grade.Isolation(True), work, [python, "/usr"], disk_mb=20,
                                  files=[work / "submission.ipynb"])
    joined = " ".join(command)
    for folder in ("/tmp", "/var/tmp", "/run", "/root", "/home"):
        if os.path.isdir(folder) and not os.path.islink(folder):
            real = os.path.realpath(folder)
            assert f"--tmpfs {real} " in joined and f"--remount-ro {real} " in joined, folder  # empty, read-only
    assert "--unshare-net" in command and "--unshare-pid" in command and "--die-with-parent" in command
    # nothing of the host is writable: work/ is a new tmpfs of 20 MB, the notebook's copy bound into it read-only
    assert "--bind" not in command and "--dev-bind" not in command
    assert f"--perms 0777 --size {20 * 1024 * 1024} --tmpfs {work} " in joined
    assert f"--ro-bind {work}/submission.ipynb {work}/submission.ipynb" in joined
    assert f"--size {isolation.SHM_MB * 1024 * 1024} --tmpfs /dev/shm" in joined and "--remount-ro /dev " in joined
    assert command[command.index("--") + 1:] == ["true"]
    if any(Path(h) in Path(python).parents for h in isolation.hidden_folders()):
        assert f"--ro-bind {python} {python}" in joined  # put back, read-only


def _listener() -> Listener:
    """A TCP listener on a free loopback port."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    return Listener(server)


@pytest.fixture
def public_tmp():
    """A temporary folder ``nobody`` may pass through (pytest's own are mode 0700)."""
    folder = Path(tempfile.mkdtemp(prefix="grade-nobody-"))
    os.chmod(folder, 0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _for_nobody(path: Path, mode: int) -> None:
    os.chown(path, 65534, 65534)
    os.chmod(path, mode)


def needed_by_the_grader() -> list[str]:
    """The folders the grader reads: the Python installation, the virtual environment, this clone, sys.path."""
    found = {os.path.realpath(p) for p in [sys.base_prefix, sys.prefix, sys.exec_prefix,
                                           os.path.dirname(os.path.realpath(sys.executable)), ROOT, *sys.path]
             if p and os.path.isdir(p)}
    return sorted(p for p in found if not any(Path(o) in Path(p).parents for o in found))


def reachable_for_nobody(paths: list[str]) -> list[str]:
    """Outer bwrap arguments that let ``nobody`` reach ``paths`` read-only, wherever the clone lies.

    The highest folder on the way to each path that others may not pass
    (mode without o+x, such as /root or a private parent of the clone) becomes
    an empty tmpfs; the folders between it and the path are made passable
    (0755) and the path itself is bound back read-only. Nothing else of it is
    visible: only what the grader needs is opened up, not the folder.
    """
    blocked = {}
    for path in paths:
        for folder in [*reversed(Path(path).parents), Path(path)]:
            if not os.stat(folder).st_mode & 0o001:
                blocked[path] = folder
                break
    args = []
    for top in sorted(set(blocked.values())):
        if any(other in top.parents for other in blocked.values()):
            continue  # inside another blocked folder, which is replaced already
        args += ["--tmpfs", str(top)]
        for path in sorted(p for p in blocked if top == Path(p) or top in Path(p).parents):
            for parent in reversed(Path(path).parents):
                if top in parent.parents:
                    args += ["--perms", "0755", "--dir", str(parent)]
            args += ["--ro-bind", path, path]
    return args


@pytest.mark.skipif(RUNUSER is None or os.geteuid() != 0, reason="runs the grader as nobody, so it starts as root")
def test_a_grader_that_is_not_root_still_isolates(public_tmp):
    tmp_path = public_tmp
    home = tmp_path / "home"  # the teacher's home, seen as /home/teacher
    home.mkdir()
    (home / "secret.txt").write_text("teacher-secret-91f2", encoding="utf-8")
    _for_nobody(home / "secret.txt", 0o600)
    _for_nobody(home, 0o700)
    subs, out = tmp_path / "subs", tmp_path / "out"
    subs.mkdir()
    out.mkdir()
    _for_nobody(out, 0o755)
    listener = _listener()
    port = listener.server.getsockname()[1]
    probe = (
        "import os, socket\n"
        "found = []\n"
        "s = socket.socket()\n"
        "s.settimeout(3)\n"
        "try:\n"
        f"    s.connect(('127.0.0.1', {port}))\n"
        "    s.sendall(b'hello')\n"
        "    found.append('net:connected')\n"
        "except OSError as exc:\n"
        "    found.append('net:' + type(exc).__name__)\n"
        "try:\n"
        "    found.append('home:read ' + open('/home/teacher/secret.txt').read())\n"
        "except OSError as exc:\n"
        "    found.append('home:' + type(exc).__name__)\n"
        "writable = []\n"
        "for folder in ['/tmp', '/var/tmp', '/run', '/root', '/home', '/home/teacher', '/dev', '/', '/dev/shm', '.']:\n"
        "    try:\n"
        "        open(os.path.join(folder, 'written'), 'w').close()\n"
        "        os.remove(os.path.join(folder, 'written'))\n"
        "        writable.append(folder)\n"
        "    except OSError:\n"
        "        pass\n"
        "st = os.statvfs('.')\n"
        "found.append('writable:' + '+'.join(writable))\n"
        "found.append(f'size:{st.f_blocks * st.f_frsize // 2 ** 20}')\n"
        "raise RuntimeError(' '.join(found))\n"
    )
    nbformat.write(new_notebook(cells=[new_code_cell(probe)]), subs / "probe.ipynb")
    os.chmod(subs / "probe.ipynb", 0o644)
    outer = [BWRAP, "--dev-bind", "/", "/", "--tmpfs", "/home", "--bind", str(home), "/home/teacher",
             *reachable_for_nobody(needed_by_the_grader())]
    # PYTHONPATH: this clone's course_utils, whatever the environment has installed
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": "/home/teacher", "LANG": "C.UTF-8",
           "PYTHONPATH": str(ROOT)}
    command = [*outer, "--", RUNUSER, "-u", "nobody", "--", "env", *[f"{k}={v}" for k, v in env.items()],
               sys.executable, "-m", "course_utils.grade", str(subs), "--out", str(out), "--timeout", "60",
               "--disk", "20"]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=str(tmp_path))
    finally:
        listener.close()
    assert proc.returncode == 0, proc.stderr
    assert "own namespaces with bubblewrap" in proc.stderr and "under your user" in proc.stderr
    with open(out / "gradebook.csv", encoding="utf-8", newline="") as file:
        [row] = list(csv.DictReader(file))
    detail = row["notebook_detail"]
    assert detail.startswith("cell 1 raised RuntimeError: net:"), detail
    assert "net:connected" not in detail and "home:read" not in detail and "teacher-secret" not in detail
    assert "home:FileNotFoundError" in detail  # the home folder is an empty one inside the sandbox
    # owner of the sandbox's folders in its user namespace, it can still write only its own tmpfs and /dev/shm
    assert "writable:/dev/shm+. size:20" in detail, detail
    assert listener.heard == []


def test_the_probe_refuses_a_sandbox_where_python_cannot_start(monkeypatch, tmp_path):
    """When the kernel's Python is out of reach inside bwrap, the probe says so and the next mode is tried."""
    monkeypatch.setattr(isolation, "bwrap_path", lambda: str(tmp_path / "no-bwrap-here"))
    with pytest.raises(RuntimeError, match="no isolation mode 'namespaces' works here"):
        grade.detect_isolation("namespaces")
    assert not grade.detect_isolation("auto").namespaces


def test_tempfile_area_is_its_own_and_the_course_guard_is_loaded(tmp_path):
    """The sandbox's /tmp is its own (a folder the grader leaves in /tmp is not there inside), and the
    kernel starts with the course's one network guard (course_utils.core.netguard) installed."""
    marker = Path(tempfile.mkdtemp(prefix="grade-marker-", dir="/tmp"))
    try:
        nbformat.write(new_notebook(cells=[new_code_cell(
            f"import os\nraise RuntimeError('seen' if os.path.exists({str(marker)!r}) else 'hidden')")]),
            tmp_path / "a.ipynb")
        nbformat.write(new_notebook(cells=[new_code_cell(
            "import socket\nsocket.create_connection(('203.0.113.7', 80), timeout=5)")]), tmp_path / "b.ipynb")
        chosen = grade.detect_isolation("namespaces")
        results, _ = grade.grade_folder(tmp_path, grade.Settings(timeout=60), chosen)
        detail = {r.submission.student: r.detail for r in results}
        assert detail["a"] == "cell 1 raised RuntimeError: hidden"
        assert detail["b"].startswith("cell 1 raised NetworkBlockedError: "), detail["b"]
        assert "course_utils.core.netguard" in detail["b"]
    finally:
        marker.rmdir()
