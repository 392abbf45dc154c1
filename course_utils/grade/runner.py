"""The child side: ``python -m course_utils.grade --run-one SPEC`` runs one notebook inside its sandbox.

Everything here runs in the runner process, never in the grader itself.
"""

from __future__ import annotations

import json
import math
import os
import secrets
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from course_utils.checks.record import marked_lines, parse_grading_line, read_records, valid_record
from course_utils.grade.diskguard import DiskWatch
from course_utils.grade.grading_cells import check_cell_source, record_cell_source, with_answer_cells
from course_utils.grade.runspec import RunSpec, RunOutcome
from course_utils.grade.sandbox import KERNEL_NAME, NOTEBOOK_NAME, RECORD_FILE

#: Seconds the grading cells get at least after the student's cells have finished (or hit the time limit);
#: a notebook that finished early also leaves them what is left of its own limit.
GRADING_SECONDS = 20
#: Seconds a kernel interrupted at the time limit gets to stop the cell it was running.
INTERRUPT_SECONDS = 5
#: Seconds nbclient waits for a cell's last outputs after its reply (or after interrupting it).
IOPUB_SECONDS = 4


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


def _runner_probe(spec: RunSpec) -> RunOutcome:
    """Can a kernel's Python start here, and which protected folders could it still write?"""
    check = subprocess.run([sys.executable, "-s", "-c", "import course_utils.checks, ipykernel.kernelapp"],
                           stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    if check.returncode != 0:
        lines = check.stderr.decode("utf-8", "replace").strip().splitlines()
        return RunOutcome("probe failed", lines[-1] if lines else f"exit code {check.returncode}")
    return RunOutcome("probe ok", writable=[p for p in spec.protect if os.access(p, os.W_OK)])


@dataclass
class Events:
    """What happened during a run, noted where it happened; only :func:`decide` turns it into a status.

    Each ``*_at`` field says where ("while running cell 3"), or is None when it did not happen.
    """

    timeout_at: str | None = None  #: the student's cells reached the time limit
    not_interruptible: bool = False  #: ... and the kernel did not stop when interrupted
    disk_at: str | None = None  #: the disk watch stopped the notebook
    grading_timeout_at: str | None = None  #: a grading cell reached its own time limit
    died_at: str | None = None  #: the kernel died (not killed by the disk watch)
    failed: str | None = None  #: an exception ended the run: "ExceptionName while ..."
    failed_late: bool = False  #: ... after the deadline had passed (e.g. the kernel did not start in time)
    errors: list[tuple[str, str, str]] = field(default_factory=list)  #: (where, ename, evalue) of student cells


def decide(events: Events, timeout: float, memory_mb: int, disk_reason: str | None = None,
           killed: bool = False) -> tuple[str, str]:
    """The notebook's status and detail, by precedence: disk limit, timeout, crashed, memory limit, error, ok.

    >>> decide(Events(), 60, 1024)
    ('ok', '')
    >>> decide(Events(timeout_at="while running cell 2", disk_at="while running cell 2"), 60, 1024, "stopped")
    ('disk limit', 'stopped while running cell 2')
    >>> decide(Events(errors=[("cell 4", "ValueError", "no")]), 60, 1024)
    ('error', 'cell 4 raised ValueError: no')
    """
    notes = []
    if events.not_interruptible:
        notes.append("the kernel did not stop when interrupted, so nothing was graded")
    if events.grading_timeout_at:
        notes.append(f"the grader's cells stopped at their time limit {events.grading_timeout_at}")
    if events.disk_at and disk_reason:
        if killed:
            notes.append("the kernel went on writing after it was stopped, so it was killed and nothing more "
                         "was graded")
        return "disk limit", "; ".join([f"{disk_reason} {events.disk_at}", *notes])
    if events.timeout_at:
        return "timeout", "; ".join([f"stopped at the time limit ({timeout:g} s) {events.timeout_at}", *notes])
    if events.grading_timeout_at:
        return "timeout", "; ".join(notes)
    if events.died_at:
        return "crashed", f"the kernel died {events.died_at}"
    if events.failed:
        if events.failed_late:
            return "timeout", f"stopped at the time limit ({timeout:g} s) {events.failed.split(' ', 1)[1]}"
        name, where = events.failed.split(" ", 1)
        return "crashed", f"the kernel could not run it ({name}) {where}"
    return _error_status(events.errors, memory_mb)


def _error_status(errors: list[tuple[str, str, str]], memory_mb: int) -> tuple[str, str]:
    """ok, or the first MemoryError (memory limit) or else the first error of the student's cells."""
    if not errors:
        return "ok", ""
    memory = [e for e in errors if e[1] == "MemoryError"]
    place, name, value = (memory or errors)[0]
    detail = f"{place} raised {name}: {value}" if value else f"{place} raised {name}"
    if memory:
        detail += f" (limit {memory_mb} MB)"
    if len(errors) > 1:
        detail += f"; {len(errors) - 1} more cell(s) raised errors"
    return ("memory limit" if memory else "error"), detail


#: The error nbclient reports for a cell it interrupted at the time limit (``interrupt_on_timeout``).
TIMED_OUT = "CourseGraderTimeout"


class _Run:
    """One notebook in its kernel: the student's cells, then the grading cells; :attr:`events` says what happened.

    The student's cells (with the answer cells in place of the check calls)
    run until the time limit or the disk limit (:mod:`.diskguard`); a notebook
    stopped by a limit is interrupted (nbclient's ``interrupt_on_timeout``),
    not killed, so the answers it kept before can still be graded. Then, with
    a secret made up only now, the grading cells run, with
    :data:`GRADING_SECONDS` of their own.
    """

    def __init__(self, spec: RunSpec, started: float):
        import nbformat
        from nbclient import NotebookClient

        self.spec, self.work = spec, Path(spec.work)
        self.watch = DiskWatch(self.work, spec.disk_mb, tmpfs=spec.namespaces)
        self.deadline = started + spec.timeout
        self.started = started
        self.events = Events()
        self.calls = dict(spec.calls) if spec.exercise else {}
        self.nb = nbformat.read(self.work / NOTEBOOK_NAME, as_version=4)
        cells = (with_answer_cells(self.nb.cells, self.calls, _code_cell) if self.calls
                 else [(c, i) for i, c in enumerate(self.nb.cells)])
        self.nb.cells = [cell for cell, _origin in cells]
        self.origin = [o for _cell, o in cells]
        self.replies: list[dict] = []  #: the content of each execute reply, latest last
        self.graded: dict[int, list] = {}
        self.secret = ""
        self.running: int | str | None = None
        self.client = NotebookClient(
            self.nb, kernel_name=KERNEL_NAME, timeout=int(spec.timeout), on_cell_executed=self._executed,
            timeout_func=lambda cell: max(1, math.ceil(self.deadline - time.monotonic())),
            startup_timeout=max(1, int(self.deadline - time.monotonic())), allow_errors=True,
            interrupt_on_timeout=True, iopub_timeout=IOPUB_SECONDS, error_on_timeout={"ename": TIMED_OUT, "evalue": "", "traceback": []},
            record_timing=False, shutdown_kernel="immediate", resources={"metadata": {"path": str(self.work)}},
        )

    def _executed(self, execute_reply=None, **_):
        self.replies.append((execute_reply or {}).get("content") or {})

    def _timed_out(self) -> bool:
        return bool(self.replies) and self.replies[-1].get("ename") == TIMED_OUT

    def where(self, index: int | str | None = None) -> str:
        index = self.running if index is None else index
        if index is None:
            return "while starting the kernel"
        if isinstance(index, str):
            return f"while {index}"
        return (f"while running cell {self.origin[index] + 1}" if self.origin[index] is not None
                else "while keeping the answers (a cell the grader added)")

    def run(self) -> None:
        from nbclient.exceptions import CellTimeoutError, DeadKernelError

        try:
            with self.client.setup_kernel():
                self.watch.start()
                self._student_cells()
                self._grading_cells()
        except CellTimeoutError:  # e.g. no output after an interrupt: the questions not graded yet stay "not run"
            self.events.grading_timeout_at = self.where()
        except DeadKernelError:
            if not self.watch.killed:
                self.events.died_at = self.where()
        except Exception as exc:  # noqa: BLE001 - e.g. the kernel did not start in time
            self.events.failed = f"{type(exc).__name__} {self.where()}"
            self.events.failed_late = time.monotonic() >= self.deadline
        finally:
            self.watch.close()
        if self.watch.reason and not self.events.disk_at:  # reached later, e.g. while the grader's cells ran
            self.events.disk_at = self.where()
        self.events.errors = self._student_errors()

    def _student_cells(self) -> None:
        for index, cell in enumerate(list(self.nb.cells)):
            self.running = index
            self.client.execute_cell(cell, index)
            if self.watch.over():
                self.events.disk_at = self.where(index)
                return
            if self._timed_out():
                self.events.timeout_at = self.where(index)
                # fresh channels to the same kernel (its variables kept): after a cell that timed out,
                # nbclient's old IOPub channel may no longer deliver outputs
                if not _fresh_channels(self.client, _code_cell("None"), self.replies):
                    self.calls = {}  # the kernel does not answer: nothing can be graded in it
                    self.events.not_interruptible = True
                return

    def _grading_cells(self) -> None:
        self.running = "grading"
        self.secret = secrets.token_hex(16)  # made up now: no cell of the student's could know it
        # what is left of the notebook's own time limit, and at least GRADING_SECONDS
        self.deadline = max(self.started + self.spec.timeout, time.monotonic() + GRADING_SECONDS)
        for number in sorted(self.calls):
            self.running = f"grading q{number}"
            pair = [_code_cell(check_cell_source(self.spec.exercise, number, self.spec.package)),
                    _code_cell(record_cell_source(self.secret))]
            for cell in pair:
                self.nb.cells.append(cell)
                self.client.execute_cell(cell, len(self.nb.cells) - 1)
                if self._timed_out():  # the questions not graded yet stay "not run"
                    self.events.grading_timeout_at = self.where()
                    return
            self.graded[number] = pair

    def _student_code(self) -> list[tuple[int, dict]]:
        return [(i, cell) for i, cell in enumerate(self.nb.cells[:len(self.origin)]) if cell.cell_type == "code"]

    def _student_errors(self) -> list[tuple[str, str, str]]:
        out = []
        for index, cell in self._student_code():
            place = (f"cell {self.origin[index] + 1}" if self.origin[index] is not None
                     else "an answer cell the grader added")
            out += [(place, o.get("ename", ""), o.get("evalue", "")) for o in cell.get("outputs", [])
                    if o.get("output_type") == "error"]
        return out

    def records(self) -> tuple[list[dict], int]:
        """The grading cells' records (one line with the secret each), and how many lines imitated one."""
        records, imitations = [], sum(len(marked_lines(_stdout(cell))) for _i, cell in self._student_code())
        for number, (check_cell, record_cell) in self.graded.items():
            imitations += len(marked_lines(_stdout(check_cell)))
            lines = marked_lines(_stdout(record_cell))
            found = [r for r in (parse_grading_line(line, self.secret) for line in lines) if r is not None]
            if len(lines) == 1 and len(found) == 1 and found[0]["exercise"] == self.spec.exercise \
                    and found[0]["question"] == number:
                records.append(found[0])
            else:
                imitations += len(lines)
        return records, imitations


def _code_cell(source: str):
    from nbformat.v4 import new_code_cell

    return new_code_cell(source)


def _execute(spec: RunSpec, started: float) -> RunOutcome:
    """Run the notebook, then the grader's own cells (see :mod:`.grading_cells`); say how it ended.

    Only lines carrying the secret in the output of a grading cell count;
    every other record is listed in ``ignored``.
    """
    run = _Run(spec, started)
    run.run()
    status, detail = decide(run.events, spec.timeout, spec.memory_mb, run.watch.reason, run.watch.killed)
    records, imitations = run.records()
    ignored = _ignored(_read_records(run.work / RECORD_FILE), imitations)
    for path in (str(run.work), str(Path(spec.root))):  # temporary paths would differ on every run
        detail = detail.replace(path, ".")
        for record in records:
            record["message"] = record["message"].replace(path, ".")
    return RunOutcome(status, detail, records, ignored)


def _fresh_channels(client, probe, replies: list[dict]) -> bool:
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


def _wait_until_ready(client, probe, replies: list[dict], deadline: float) -> bool:
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
        if len(replies) > before and replies[-1].get("status") == "ok":
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
    """Run what SPEC (a :class:`.RunSpec` as JSON, written by :func:`course_utils.grade.sandbox.run_sandboxed`) says; return 0.

    The entry point of the runner, ``python -m course_utils.grade --run-one SPEC``:
    become the unprivileged user, set the limits, then run the probe or the
    notebook. The outcome (a JSON object) goes to the pipe named in SPEC.
    """
    started = time.monotonic()
    spec = RunSpec.from_json(spec_text)
    fd = spec.result_fd
    os.set_inheritable(fd, False)
    try:
        _become(spec.uid, spec.gid)
        _set_limits(spec.timeout, spec.memory_mb, spec.disk_mb, spec.uid is not None)
        (Path(spec.work) / "tmp").mkdir(exist_ok=True)  # TMPDIR; in namespaces mode work/ starts empty
        outcome = _runner_probe(spec) if spec.probe else _execute(spec, started)
    except Exception as exc:  # noqa: BLE001 - reported to the grader, which records it
        outcome = RunOutcome("crashed", f"the grader's runner failed: {type(exc).__name__}: {exc}")
    data = json.dumps(outcome.to_dict()).encode()
    while data:
        data = data[os.write(fd, data):]
    os.close(fd)
    return 0
