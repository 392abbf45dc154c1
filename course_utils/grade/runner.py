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

from course_utils.checks.record import marked_lines, parse_grading_line, read_records, valid_record
from course_utils.grade.diskguard import DiskWatch
from course_utils.grade.grading_cells import check_cell_source, record_cell_source, with_answer_cells
from course_utils.grade.sandbox import KERNEL_NAME, NOTEBOOK_NAME, RECORD_FILE

#: Seconds the grading cells get at least after the student's cells have finished (or hit the time limit);
#: a notebook that finished early also leaves them what is left of its own limit.
GRADING_SECONDS = 20
#: Seconds a kernel interrupted at the time limit gets to stop the cell it was running.
INTERRUPT_SECONDS = 5


def _become(uid: int | None, gid: int | None) -> None:
    """Become the unprivileged user, if one is given (the grader started the runner as root)."""
    if uid is None or os.getuid() == uid:
        return
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)


def _set_limits(timeout: float, memory_mb: int, disk_mb: int, own_user: bool) -> None:
    """Limits the kernel inherits: data memory, file size (no file larger than the disk limit), CPU time,
    no core files (and processes, as nobody)."""
    import resource

    def lower(which, value):
        _soft, hard = resource.getrlimit(which)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(which, (value, value))

    lower(resource.RLIMIT_DATA, memory_mb * 1024 * 1024)
    lower(resource.RLIMIT_FSIZE, disk_mb * 1024 * 1024)
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
    """Run the notebook, then the grader's own cells (see :mod:`.grading_cells`); say how it ended.

    The student's cells (with the answer cells in place of the check calls)
    run until the time limit or the disk limit (:mod:`.diskguard`); a notebook
    stopped by a limit is interrupted, not killed, so the answers it kept
    before can still be graded. Then, with
    a secret made up only now, the grading cells run, with
    :data:`GRADING_SECONDS` of their own. Only lines carrying the secret in the
    output of a grading cell count; every other record is listed in ``ignored``.
    """
    import secrets

    import nbformat
    from jupyter_core.utils import run_sync
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError
    from nbformat.v4 import new_code_cell

    work = Path(spec["work"])
    timeout = float(spec["timeout"])
    watch = DiskWatch(work, int(spec["disk_mb"]), tmpfs=bool(spec.get("namespaces")))
    phase = {"deadline": started + timeout}
    exercise, calls = spec.get("exercise") or "", {int(n): c for n, c in (spec.get("calls") or {}).items()}
    nb = nbformat.read(work / NOTEBOOK_NAME, as_version=4)
    cells = with_answer_cells(nb.cells, calls, new_code_cell) if exercise and calls else [(c, i) for i, c in
                                                                                        enumerate(nb.cells)]
    nb.cells = [cell for cell, _origin in cells]
    origin = [o for _cell, o in cells]
    replies: list[str] = []  #: the status of each execute reply, latest last

    def on_cell_executed(execute_reply=None, **_):
        replies.append(((execute_reply or {}).get("content") or {}).get("status", ""))

    client = NotebookClient(
        nb, kernel_name=KERNEL_NAME, timeout=int(timeout), on_cell_executed=on_cell_executed,
        timeout_func=lambda cell: max(1, math.ceil(phase["deadline"] - time.monotonic())),
        startup_timeout=max(1, int(phase["deadline"] - time.monotonic())), allow_errors=True, record_timing=False,
        shutdown_kernel="immediate", resources={"metadata": {"path": str(work)}},
    )

    def where(index: int | str | None) -> str:
        if index is None:
            return "while starting the kernel"
        if isinstance(index, str):
            return f"while {index}"
        return f"while running cell {origin[index] + 1}" if origin[index] is not None else \
            "while keeping the answers (a cell the grader added)"

    status, detail, running, graded = "ok", "", None, {}
    secret = ""
    try:
        with client.setup_kernel():
            watch.start()
            for index, cell in enumerate(list(nb.cells)):
                running = index
                try:
                    client.execute_cell(cell, index)
                    if watch.over():
                        status, detail = "disk limit", f"{watch.reason} {where(index)}"
                        break
                except CellTimeoutError:
                    status, detail = "timeout", f"stopped at the time limit ({timeout:g} s) {where(index)}"
                    run_sync(client.km.interrupt_kernel)()
                    # fresh channels to the same kernel (its variables kept): after a cell that timed out,
                    # nbclient's old IOPub channel may no longer deliver outputs
                    if not _fresh_channels(client, new_code_cell("None"), replies):
                        calls = {}  # the kernel does not answer: nothing can be graded in it
                        detail += "; the kernel did not stop when interrupted, so nothing was graded"
                    break
            running = "grading"
            secret = secrets.token_hex(16)  # made up now: no cell of the student's could know it
            # what is left of the notebook's own time limit, and at least GRADING_SECONDS
            phase["deadline"] = max(started + timeout, time.monotonic() + GRADING_SECONDS)
            for number in sorted(calls) if exercise else []:
                running = f"grading q{number}"
                pair = [new_code_cell(check_cell_source(exercise, number, spec["package"])),
                        new_code_cell(record_cell_source(secret))]
                for cell in pair:
                    nb.cells.append(cell)
                    client.execute_cell(cell, len(nb.cells) - 1)
                graded[number] = pair
    except CellTimeoutError:  # a grading cell ran out of time: the questions not graded yet stay "not run"
        status = "timeout"
        detail = "; ".join(filter(None, [detail, f"the grader's cells stopped at their time limit {where(running)}"]))
    except DeadKernelError:
        if watch.killed and status != "disk limit":
            status, detail = "disk limit", f"{watch.reason} {where(running)}"
        elif status == "ok":
            status, detail = "crashed", f"the kernel died {where(running)}"
    except Exception as exc:  # noqa: BLE001 - e.g. the kernel did not start in time
        if status == "ok":
            status = "timeout" if time.monotonic() >= phase["deadline"] else "crashed"
            detail = (f"stopped at the time limit ({timeout:g} s) {where(running)}" if status == "timeout"
                      else f"the kernel could not run it ({type(exc).__name__}) {where(running)}")
    finally:
        watch.close()
    if watch.reason and status in ("ok", "error"):  # the limit was reached while the grader's cells ran
        status, detail = "disk limit", f"{watch.reason} {where(running)}"
    if status == "disk limit" and watch.killed:
        detail += "; the kernel went on writing after it was stopped, so it was killed and nothing more was graded"
    student = [(i, cell) for i, cell in enumerate(nb.cells[:len(origin)]) if cell.cell_type == "code"]
    errors = [(i, output.get("ename", ""), output.get("evalue", "")) for i, cell in student
              for output in cell.get("outputs", []) if output.get("output_type") == "error"]
    if status == "ok" and errors:
        memory = [e for e in errors if e[1] == "MemoryError"]
        index, name, value = (memory or errors)[0]
        status = "memory limit" if memory else "error"
        place = f"cell {origin[index] + 1}" if origin[index] is not None else "an answer cell the grader added"
        detail = f"{place} raised {name}: {value}" if value else f"{place} raised {name}"
        if memory:
            detail += f" (limit {spec['memory_mb']} MB)"
        if len(errors) > 1:
            detail += f"; {len(errors) - 1} more cell(s) raised errors"
    records, imitations = [], sum(len(marked_lines(_stdout(cell))) for _i, cell in student)
    for number, (check_cell, record_cell) in graded.items():
        imitations += len(marked_lines(_stdout(check_cell)))
        lines = marked_lines(_stdout(record_cell))
        found = [r for r in (parse_grading_line(line, secret) for line in lines) if r is not None]
        if len(lines) == 1 and len(found) == 1 and found[0]["exercise"] == exercise \
                and found[0]["question"] == number:
            records.append(found[0])
        else:
            imitations += len(lines)
    ignored = _ignored(_read_records(work / RECORD_FILE), imitations)
    for path in (str(work), str(Path(spec["root"]))):  # temporary paths would differ on every run
        detail = detail.replace(path, ".")
        for record in records:
            record["message"] = record["message"].replace(path, ".")
    return {"status": status, "detail": detail, "records": records, "ignored": ignored}


def _fresh_channels(client, probe, replies: list[str]) -> bool:
    """After an interrupt: new channels to the same kernel, and True once it runs cells again.

    False when the kernel does not answer within :data:`INTERRUPT_SECONDS`
    (the cell it was running ignores the interrupt).
    """
    deadline = time.monotonic() + INTERRUPT_SECONDS
    client.kc.stop_channels()
    client.kc = None
    client.startup_timeout = INTERRUPT_SECONDS
    try:
        client.start_new_kernel_client()
    except Exception:  # noqa: BLE001 - e.g. no reply to kernel_info: the kernel is still busy
        return False
    return _wait_until_ready(client, probe, replies, deadline)


def _wait_until_ready(client, probe, replies: list[str], deadline: float) -> bool:
    """After an interrupt, wait until the kernel runs cells again.

    While it is still handling the interrupt, ipykernel answers a new request
    with "aborted" without running it; so a tiny cell is sent until one runs
    (or the deadline passes).
    """
    from nbclient.exceptions import CellTimeoutError

    while time.monotonic() < deadline:
        before = len(replies)
        try:
            client.execute_cell(probe, 0)
        except CellTimeoutError:
            continue
        if len(replies) > before and replies[-1] == "ok":
            return True
        time.sleep(0.2)
    return False


def _stdout(cell) -> str:
    return "".join(str(o.get("text", "")) for o in cell.get("outputs", [])
                   if o.get("output_type") == "stream" and o.get("name") == "stdout")


def _ignored(written: list, imitations: int) -> list[str]:
    """What is reported as "ignored: not from a grading cell": written records and printed imitations."""
    out = []
    if written:
        named = [f"q{r['question']} {r['status']}" if valid_record(r) else "a malformed record" for r in written]
        shown = ", ".join(named[:8]) + (f", ... ({len(named)} in all)" if len(named) > 8 else "")
        out.append(f"ignored: not from a grading cell: {len(written)} record(s) written to the record file "
                   f"({shown})")
    if imitations:
        out.append(f"ignored: not from a grading cell: {imitations} printed line(s) imitating a grader record")
    return out


def _read_records(path: Path) -> list[dict]:
    return read_records(path)


def runner_main(spec_text: str) -> int:
    """Run what SPEC (JSON, written by :func:`course_utils.grade.sandbox.run_sandboxed`) says; return 0.

    The entry point of the runner, ``python -m course_utils.grade --run-one SPEC``:
    become the unprivileged user, set the limits, then run the probe or the
    notebook. The outcome (a JSON object) goes to the pipe named in SPEC.
    """
    started = time.monotonic()
    spec = json.loads(spec_text)
    fd = int(spec["result_fd"])
    os.set_inheritable(fd, False)
    try:
        _become(spec.get("uid"), spec.get("gid"))
        _set_limits(float(spec["timeout"]), int(spec["memory_mb"]), int(spec["disk_mb"]), spec.get("uid") is not None)
        (Path(spec["work"]) / "tmp").mkdir(exist_ok=True)  # TMPDIR; in namespaces mode work/ starts empty
        outcome = _runner_probe(spec) if spec.get("probe") else _execute(spec, started)
    except Exception as exc:  # noqa: BLE001 - reported to the grader, which records it
        outcome = {"status": "crashed", "detail": f"the grader's runner failed: {type(exc).__name__}: {exc}",
                   "records": []}
    data = json.dumps(outcome).encode()
    while data:
        data = data[os.write(fd, data):]
    os.close(fd)
    return 0
