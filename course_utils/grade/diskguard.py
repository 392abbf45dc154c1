"""The disk limit: how much one submission may write, and the watchdog that stops it there.

Each isolation mode has its own firm part:

- ``namespaces``: the work folder is a tmpfs of exactly the limit (bubblewrap's
  ``--size``), so the kernel refuses the byte past it (``OSError: [Errno 28]
  No space left on device``), and nothing else the notebook sees is writable
  (see :func:`course_utils.grade.isolation.bwrap_command`). A tmpfs is held
  in memory, not on your disk. bubblewrap 0.8 cannot limit the *number* of
  files of a tmpfs (it has no ``nr_inodes``): empty files and folders take no
  size there, only kernel memory (about 1 KB each), so the watchdog counts them
  (one ``statvfs`` call) and stops the notebook past :data:`MAX_FILES`.
- ``process``: the folder is on your disk. ``RLIMIT_FSIZE`` keeps every file at
  or under the limit (``[Errno 27] File too large``), and the watchdog adds up
  the folder (every file's allocated blocks) and stops the notebook as soon as
  the total reaches the limit, measuring every few milliseconds near it. What the
  notebook writes *outside* its folder (``/tmp``, or your home when it runs
  under your user) is bounded only per file: one more reason to prefer
  ``namespaces``.

Stopping a notebook, as at the time limit: every process its kernel started is
killed and the kernel is interrupted, so the answers it kept before can still be
graded. A kernel that still writes after that (a thread of its own) is killed.

>>> DiskWatch(Path("."), limit_mb=20, tmpfs=False).reason is None
True
"""

from __future__ import annotations

import os
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

#: Files and folders one submission may create (bubblewrap cannot limit a tmpfs's number of files).
MAX_FILES = 10_000
#: After a stop, what the kernel may still write (the grader's own cells: IPython's history, the record
#: file) before it is killed as still writing.
AFTER_STOP_BYTES = 4 * 1024 * 1024
AFTER_STOP_FILES = 100
#: Seconds between two measurements: the longest (far from the limit) and the shortest (about to reach it).
SLOW, FAST = 0.05, 0.0005


@dataclass(frozen=True)
class Usage:
    """What a folder holds: bytes allocated, and files and folders."""

    bytes: int
    files: int


def tmpfs_usage(path: Path) -> Usage:
    """What the file system at ``path`` (a tmpfs of its own) holds, from one ``statvfs`` call."""
    st = os.statvfs(path)
    return Usage((st.f_blocks - st.f_bfree) * st.f_frsize, st.f_files - st.f_ffree)


def folder_usage(path: Path, max_files: int = MAX_FILES) -> Usage:
    """Bytes allocated to every file below ``path`` and how many there are (links not followed).

    Counting stops a little past ``max_files`` entries: enough to know the limit is passed.
    """
    total, files, todo = 0, 0, [str(path)]
    while todo and files <= max_files + 1:
        try:
            entries = list(os.scandir(todo.pop()))
        except OSError:
            continue
        for entry in entries:
            files += 1
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            total += st.st_blocks * 512
            if entry.is_dir(follow_symlinks=False):
                todo.append(entry.path)
    return Usage(total, files)


class DiskWatch:
    """Watch a submission's work folder; stop its kernel once it holds ``limit_mb`` MB or :data:`MAX_FILES` files.

    ``tmpfs``: the folder is a tmpfs of its own (namespaces mode), measured
    with ``statvfs``; else it is walked, and what it held when the watch was
    made (the notebook's copy) is not counted. :meth:`start` starts the
    background thread, :meth:`over` measures now (the runner calls it after
    every cell), :attr:`reason` says why the notebook was stopped (None while it
    was not).
    """

    def __init__(self, work: Path, limit_mb: int, tmpfs: bool, max_files: int = MAX_FILES):
        self.work, self.limit, self.tmpfs, self.max_files = work, limit_mb * 1024 * 1024, tmpfs, max_files
        self.limit_mb = limit_mb
        self.baseline = Usage(0, 0) if tmpfs else folder_usage(work, max_files)
        self.reason: str | None = None
        self.killed = False
        self.last = self.baseline
        self._at_stop: Usage | None = None
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def usage(self) -> Usage:
        """What the submission wrote so far."""
        if self.tmpfs:
            return tmpfs_usage(self.work)
        now = folder_usage(self.work, 4 * self.max_files + self.baseline.files)  # past the limit, growth shows
        return Usage(max(0, now.bytes - self.baseline.bytes), max(0, now.files - self.baseline.files))

    def over(self, interrupt: bool = False) -> bool:
        """Measure now: True once the limit is reached (then the kernel's children are killed).

        ``interrupt``: also interrupt the kernel's running cell (the background
        thread does; after a cell has ended there is nothing to interrupt).
        """
        usage = self.last = self.usage()
        with self._lock:
            if self.reason is None:
                if usage.bytes >= self.limit:
                    self.reason = f"stopped: wrote more than {self.limit_mb} MB (the disk limit)"
                elif usage.files > self.max_files:
                    self.reason = f"stopped: created more than {self.max_files} files (the disk limit)"
                else:
                    return False
                _stop_kernels(interrupt)
                self._at_stop = self.usage()  # measured while the kernel is frozen: what it holds at the stop
                if interrupt:
                    _resume_interrupted()
            elif not self.killed and (usage.bytes > self._at_stop.bytes + AFTER_STOP_BYTES
                                      or usage.files > self._at_stop.files + AFTER_STOP_FILES):
                self.killed = True  # it goes on writing after the stop: nothing more can be graded in it
                _kill_kernels()
            return True

    def start(self) -> "DiskWatch":
        self._thread = threading.Thread(target=self._watch, name="disk-watch", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()

    def _watch(self) -> None:
        interval, before, then = SLOW, self.last, time.monotonic()
        while not self._done.wait(interval):
            began = time.monotonic()
            try:
                self.over(interrupt=True)
            except OSError:
                continue
            now, usage = time.monotonic(), self.last
            interval = self._next_interval(before, usage, now - then, now - began)
            before, then = usage, now

    def _next_interval(self, before: Usage, usage: Usage, elapsed: float, cost: float) -> float:
        """Seconds until the next measurement: sooner the nearer the limit is at the pace of the last one.

        At most :data:`SLOW`; at least :data:`FAST`, and four times what a
        measurement costs (a walk through thousands of files takes a while).
        """
        if self.reason is not None:
            return SLOW
        bytes_rate = max(0, usage.bytes - before.bytes) / max(elapsed, 1e-6)
        files_rate = max(0, usage.files - before.files) / max(elapsed, 1e-6)
        until = min((self.limit - usage.bytes) / bytes_rate if bytes_rate else float("inf"),
                    (self.max_files - usage.files) / files_rate if files_rate else float("inf"))
        return max(FAST, 4 * cost, min(SLOW, until / 4))

def _kernels() -> list[psutil.Process]:
    """The runner's children: its kernel (nbclient starts nothing else)."""
    try:
        return psutil.Process().children()
    except psutil.Error:
        return []


def _stop_kernels(interrupt: bool) -> None:
    """Kill every process below the kernel; with ``interrupt``, freeze the kernel first (SIGSTOP).

    Frozen, it writes nothing more while what it holds is measured; then
    :func:`_resume_interrupted` interrupts its running cell (a SIGINT, as
    Jupyter does), already pending when it resumes.
    """
    for kernel in _kernels():
        if interrupt:
            try:
                kernel.suspend()
                _wait_stopped(kernel)
            except psutil.Error:
                pass
        for process in _children(kernel):
            try:
                process.kill()
            except psutil.Error:
                pass


def _wait_stopped(process: psutil.Process, seconds: float = 0.2) -> None:
    """Wait until a process that was sent SIGSTOP is stopped (it finishes the system call it is in first)."""
    deadline = time.monotonic() + seconds
    while process.status() != psutil.STATUS_STOPPED and time.monotonic() < deadline:
        time.sleep(0.001)


def _resume_interrupted() -> None:
    for kernel in _kernels():
        try:
            kernel.send_signal(signal.SIGINT)
            kernel.resume()
        except psutil.Error:
            pass


def _kill_kernels() -> None:
    for kernel in _kernels():
        for process in [*_children(kernel), kernel]:
            try:
                process.kill()
            except psutil.Error:
                pass


def _children(process: psutil.Process) -> list[psutil.Process]:
    try:
        return process.children(recursive=True)
    except psutil.Error:
        return []
