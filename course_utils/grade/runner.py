"""The child side: ``python -m course_utils.grade --run-one SPEC`` runs one notebook inside its sandbox.

Everything here runs in the runner process, never in the grader itself.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

from course_utils.grade.sandbox import KERNEL_NAME, NOTEBOOK_NAME, RECORD_FILE


def _become(uid: int | None, gid: int | None) -> None:
    """Become the unprivileged user, if one is given (the grader started the runner as root)."""
    if uid is None or os.getuid() == uid:
        return
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)


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
        _become(spec.get("uid"), spec.get("gid"))
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
