"""The child side: ``python -m course_utils.grade --run-one SPEC`` runs one notebook inside its sandbox.

Everything here runs in the runner process, never in the grader itself.
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from course_utils.grade.sandbox import (
    KERNEL_NAME,
    _libc,
    NOTEBOOK_NAME,
    PR_CAPBSET_DROP,
    PR_SET_NO_NEW_PRIVS,
    _prctl,
    RECORD_FILE,
)


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
