"""How a submission is kept apart from you and from the others: the modes, and the bubblewrap command.

Two modes, strongest first (:func:`candidates`); the grader runs a probe in
each until one works (:func:`course_utils.grade.sandbox.detect_isolation`):

- ``namespaces``: the runner starts inside `bubblewrap <https://github.com/containers/bubblewrap>`_
  (``bwrap``, the sandbox Flatpak uses): its own network namespace (a loopback
  interface only: no network at all), process namespace (it sees and signals
  only its own processes), IPC and UTS namespaces; every file read-only; its
  work folder a tmpfs of the disk limit (``--size``) and ``/dev/shm`` one of
  :data:`SHM_MB`, the only places it can write; ``/tmp``, ``/var/tmp``,
  ``/run`` and the home folders (``/root``, ``/home``, yours) replaced by
  empty, read-only ones, with only the Python installation and the course
  package put back, read-only. As a
  normal user bwrap needs unprivileged user namespaces (see TEACHING.md); as
  root it needs nothing more, and the notebook then runs as ``nobody``.
- ``process``: a separate process, as ``nobody`` when the grader is root,
  else under your user. The network is blocked only by a Python-level guard
  and every file you can read is readable: the last resort, stated as such in
  the gradebook.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from course_utils.core.i18n import translate

UNPRIVILEGED_USER = "nobody"

#: Folders where other programs leave files and Unix-domain sockets: empty inside the sandbox
#: (a read-only mount does not stop ``connect()`` to a socket).
SHARED_FOLDERS = ("/tmp", "/var/tmp", "/run")
#: Home folders: empty inside the sandbox (your own ``$HOME`` is added to these).
HOME_FOLDERS = ("/root", "/home")
#: Size of the sandbox's own ``/dev/shm`` (POSIX shared memory and semaphores), in MB.
SHM_MB = 16


@dataclass(frozen=True)
class Isolation:
    """How each submission is separated from you and from the others."""

    namespaces: bool  #: bubblewrap: own mount, network, process, IPC and UTS namespaces
    uid: int | None = None  #: run as this user (only when the grader runs as root)
    gid: int | None = None
    user: str = ""
    protected: bool = False  #: the probe found the submissions folder read-only from inside

    @property
    def description(self) -> str:
        """How a notebook runs, in the course's language (the gradebook's footer names it in the page's)."""
        who = translate("as user {user}").format(user=self.user) if self.uid is not None else (
            translate("as root without capabilities") if os.geteuid() == 0 else translate("under your user"))
        if self.namespaces:
            return translate("own namespaces with bubblewrap (no network at all; every file read-only except its "
                             "own temporary folder, a tmpfs of the disk limit; /tmp, /run and home folders hidden; "
                             "its own process list) {who}").format(who=who)
        return translate("a separate process {who} (network blocked by a Python-level guard only)").format(who=who)


def bwrap_path() -> str | None:
    """The bubblewrap program, or None where it is not installed (or not Linux)."""
    return shutil.which("bwrap") if sys.platform.startswith("linux") else None


def _unprivileged_ids() -> tuple[int, int] | None:
    import pwd

    try:
        entry = pwd.getpwnam(UNPRIVILEGED_USER)
    except KeyError:
        return None
    return entry.pw_uid, entry.pw_gid


def candidates(requested: str) -> list[Isolation]:
    """Isolation modes to try, strongest first."""
    linux = sys.platform.startswith("linux")
    root = linux and os.geteuid() == 0
    ids = _unprivileged_ids() if root else None
    out = []
    if requested in ("auto", "namespaces") and bwrap_path():
        if ids:
            out.append(Isolation(True, ids[0], ids[1], UNPRIVILEGED_USER))
        out.append(Isolation(True))
    if requested in ("auto", "process"):
        if ids:
            out.append(Isolation(False, ids[0], ids[1], UNPRIVILEGED_USER))
        out.append(Isolation(False))
    return out


def hidden_folders() -> list[str]:
    """The folders replaced by empty ones inside the sandbox: shared temporary folders and home folders."""
    found: list[str] = []
    home = os.path.expanduser("~")
    for folder in (*SHARED_FOLDERS, *HOME_FOLDERS, home):
        if not folder or not os.path.isabs(folder) or not os.path.isdir(folder):
            continue
        real = os.path.realpath(folder)
        if real == "/" or real in found or any(Path(f) in Path(real).parents for f in found):
            continue
        found = [f for f in found if Path(real) not in Path(f).parents] + [real]
    return sorted(found)


def _parents(real: str, hidden: list[str]) -> list[str] | None:
    """Arguments that make the parents of ``real`` passable (0755) inside the hidden folder holding it;
    None when no hidden folder holds it."""
    top = next((h for h in hidden if Path(h) in Path(real).parents or h == real), None)
    if top is None:
        return None
    args = []
    for parent in reversed(Path(real).parents):  # "/" ... the folder just above
        if Path(top) in Path(parent).parents:
            args += ["--perms", "0755", "--dir", str(parent)]
    return args


def _bind_back(path: str, hidden: list[str]) -> list[str]:
    """Arguments that put ``path`` back, read-only, inside a hidden folder (nothing when it is not hidden)."""
    real = os.path.realpath(path)
    parents = _parents(real, hidden)
    return [] if parents is None else [*parents, "--ro-bind", real, real]


def bwrap_command(command: list[str], isolation: Isolation, work: Path, readable: list[str],
                  disk_mb: int = 256, files: list[Path] = ()) -> list[str]:
    """``command`` wrapped in bubblewrap: read-only everything, ``work`` a tmpfs of ``disk_mb`` MB.

    ``readable``: folders the runner and its kernel need (the Python installation,
    the course package, the grader's own files); those inside a hidden folder are
    bound back read-only. ``work`` is a new, empty tmpfs of ``disk_mb`` MB (its
    host folder is not seen, and nothing written there reaches your disk);
    ``files`` (the notebook's copy, in the host's ``work``) are bound into it
    read-only. The hidden folders and ``/dev`` are made read-only once set up,
    so the tmpfs and ``/dev/shm`` (:data:`SHM_MB`) are the only places it can
    write, also when the user namespace makes it the owner of those folders.
    As root, bwrap itself makes the namespaces (no user namespace), drops
    every capability but the two the runner needs to become ``nobody`` (and
    none at all without a user to become); as a normal user it makes a user
    namespace first.
    """
    hidden = hidden_folders()
    args = [bwrap_path() or "bwrap", "--die-with-parent", "--new-session",
            "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
    if os.geteuid() != 0:
        args.append("--unshare-user")
    args += ["--ro-bind", "/", "/", "--dev", "/dev",
             "--perms", "1777", "--size", str(SHM_MB * 1024 * 1024), "--tmpfs", "/dev/shm", "--proc", "/proc"]
    for folder in hidden:
        args += ["--tmpfs", folder]
    for path in sorted(set(readable)):
        if os.path.isdir(path):
            args += _bind_back(path, hidden)
    real = os.path.realpath(work)
    args += _parents(real, hidden) or []
    args += ["--perms", "0777", "--size", str(disk_mb * 1024 * 1024), "--tmpfs", real]
    for file in files:
        args += ["--ro-bind", os.path.realpath(file), os.path.join(real, os.path.basename(file))]
    for folder in [*hidden, "/dev"]:
        args += ["--remount-ro", folder]
    args += ["--chdir", real]
    if os.geteuid() == 0:
        args += ["--cap-drop", "ALL"]
        if isolation.uid is not None:
            args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    return [*args, "--", *command]
