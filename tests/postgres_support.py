"""A real PostgreSQL server for the tests: found, started on loopback, always stopped.

The fixtures ``postgres_server`` and ``postgres_url`` in ``tests/conftest.py``
use :func:`running_server`, so every test file that needs PostgreSQL
(``test_postgres.py``, ``test_conversations.py``, ...) shares one server per
pytest process and none keeps a copy of this code.

:func:`running_server` runs Debian's ``postgresql`` binaries (``initdb``,
``pg_ctl`` in ``/usr/lib/postgresql/*/bin``, or on PATH) on a temporary data
folder and a free loopback port, with a password. As root it runs them as
the ``postgres`` user (``runuser -u postgres -- ...``), since PostgreSQL
refuses to run as root. ``COURSE_TEST_PG_BIN`` names a folder holding
``initdb`` and ``pg_ctl`` to use instead of searching.

Where no server can start (no binaries, root without a ``postgres`` user, not
POSIX...) the tests that need one are skipped and the reason is printed in
pytest's summary (``-ra``). CI sets ``COURSE_REQUIRE_POSTGRES=1`` so that
there a server that cannot start fails the run instead (:func:`unavailable`).

Why not pytest-postgresql? Its ``postgresql_proc`` fixture (tried with
version 10.0.0 and PostgreSQL 15, as root, in December 2026) runs ``pg_ctl``
itself, and ``pg_ctl`` refuses to run as root. Handing it a ``pg_ctl`` wrapper
that drops to the ``postgres`` user (its ``executable`` argument or
``--postgresql-exec``) gets one step further and then fails twice:

- it puts the data folder and the server log under pytest's own temporary
  root (``/tmp/pytest-of-root/...``), which pytest makes 0700 and sets back
  to 0700 on every run, so the ``postgres`` user cannot create the data
  folder (``pg_ctl: could not access directory ...: Permission denied``);
- with a password (the refused-login tests need one) it writes initdb's
  ``--pwfile`` with ``tempfile.NamedTemporaryFile``, mode 0600 and owned by
  root, which initdb running as ``postgres`` cannot read (``initdb: error:
  could not open file "/tmp/tmp..." for reading: Permission denied``).

Getting past both means opening pytest's private temporary root to other
users or having the wrapper chown the plugin's temporary files: a larger
hack than the ``runuser`` prefix below, so this module stays.
"""

import glob
import os
import pwd
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from socket_support import free_loopback_port

PG_BIN_ENV = "COURSE_TEST_PG_BIN"
REQUIRE_ENV = "COURSE_REQUIRE_POSTGRES"
DEBIAN_BIN_GLOB = "/usr/lib/postgresql/*/bin"
SERVER_USER = "postgres"  # the OS user the server runs as when we are root
DB_USER = "course"  # the database superuser initdb creates


@dataclass
class ServerPlan:
    """How to start a server here: which binaries, and as whom."""

    bindir: Path
    run_as: list[str] = field(default_factory=list)  #: a command prefix, e.g. runuser -u postgres --
    owner: tuple[int, int] | None = None  #: (uid, gid) that must own the data folder


def _has_server_binaries(folder: Path) -> bool:
    return all((folder / name).is_file() and os.access(folder / name, os.X_OK) for name in ("initdb", "pg_ctl"))


def _version_key(folder: Path) -> tuple:
    return tuple(int(part) if part.isdigit() else 0 for part in re.split(r"[.]", folder.parent.name))


def find_bindir(env=os.environ, which=shutil.which) -> Path | str:
    """The folder with initdb and pg_ctl, or the reason there is none."""
    override = env.get(PG_BIN_ENV)
    if override:
        folder = Path(override)
        if _has_server_binaries(folder):
            return folder
        return f"{PG_BIN_ENV}={override} has no initdb and pg_ctl"
    candidates = sorted((Path(p) for p in glob.glob(DEBIAN_BIN_GLOB)), key=_version_key, reverse=True)
    on_path = which("initdb")
    if on_path:
        candidates.append(Path(on_path).resolve().parent)
    for folder in candidates:
        if _has_server_binaries(folder):
            return folder
    return (
        f"no PostgreSQL server binaries (initdb, pg_ctl) in {DEBIAN_BIN_GLOB} or on PATH: "
        f"install them with `apt-get install postgresql` (Debian/Ubuntu)"
    )


def plan_server(env=os.environ, euid=None, which=shutil.which, lookup_user=pwd.getpwnam) -> ServerPlan | str:
    """How a test server can start on this machine, or the reason it cannot (the skip reason)."""
    if os.name != "posix":
        return f"the PostgreSQL test server is started with initdb/pg_ctl on POSIX systems only (this is {os.name!r})"
    bindir = find_bindir(env, which)
    if isinstance(bindir, str):
        return bindir
    euid = os.geteuid() if euid is None else euid
    if euid != 0:
        return ServerPlan(bindir)
    try:
        user = lookup_user(SERVER_USER)
    except KeyError:
        return (
            f"running as root, which PostgreSQL refuses, and there is no {SERVER_USER!r} user to run it as "
            f"(`apt-get install postgresql` creates one)"
        )
    runuser = which("runuser")
    if not runuser:
        return (
            f"running as root, which PostgreSQL refuses, and there is no runuser command "
            f"to start it as {SERVER_USER!r}"
        )
    return ServerPlan(bindir, [runuser, "-u", SERVER_USER, "--"], (user.pw_uid, user.pw_gid))


class ServerStartError(RuntimeError):
    pass


@dataclass
class PostgresServer:
    plan: ServerPlan
    folder: Path
    port: int = 0
    password: str = ""

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def log(self) -> Path:
        return self.folder / "server.log"

    def url(self, password: str | None = None, dbname: str = "postgres") -> str:
        password = self.password if password is None else password
        return f"postgresql://{DB_USER}:{password}@127.0.0.1:{self.port}/{dbname}"

    def _run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        command = [*self.plan.run_as, str(self.plan.bindir / args[0]), *args[1:]]
        env = {**os.environ, "LC_ALL": "C", "LANG": "C"}
        return subprocess.run(command, cwd=self.folder, env=env, capture_output=True, text=True, timeout=timeout)

    def _own(self, path: Path) -> None:
        if self.plan.owner:
            os.chown(path, *self.plan.owner)

    def start(self) -> None:
        self._own(self.folder)
        self.password = secrets.token_hex(12)
        pwfile = self.folder / "pwfile"
        pwfile.write_text(self.password + "\n")
        self._own(pwfile)
        init = self._run(
            "initdb", "-D", str(self.data), "-U", DB_USER, f"--pwfile={pwfile}", "--auth=scram-sha-256",
            "--encoding=UTF8", "--no-locale", "--no-sync",
        )  # fmt: skip
        pwfile.unlink()
        if init.returncode != 0:
            raise ServerStartError(f"initdb failed (exit {init.returncode}): {init.stderr.strip()[-600:]}")
        for _attempt in range(3):  # another process may take the free port between bind and start
            self.port = free_loopback_port()
            options = f"-h 127.0.0.1 -p {self.port} -k {self.folder} -c fsync=off -c full_page_writes=off"
            started = self._run(
                "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "-t", "30", "start"
            )  # fmt: skip
            if started.returncode == 0:
                return
        log = self.log.read_text(errors="replace")[-600:] if self.log.exists() else started.stderr
        raise ServerStartError(f"pg_ctl could not start the server (exit {started.returncode}): {log.strip()}")

    def stop(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                stopped = self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", "30", "stop")
                if stopped.returncode != 0:
                    self._kill()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def _kill(self) -> None:
        """The server's own pid, from the pid file it wrote: stop that process and nothing else."""
        try:
            pid = int((self.data / "postmaster.pid").read_text().split()[0])
            os.kill(pid, signal.SIGQUIT)
        except (OSError, ValueError, IndexError):
            pass


def unavailable(reason: str):
    """Skip the test that needs a server, giving the reason; with COURSE_REQUIRE_POSTGRES=1 (CI), fail it."""
    message = f"no PostgreSQL test server: {reason}"
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{message} ({REQUIRE_ENV}=1: a server must start here)", pytrace=False)
    pytest.skip(message)


@contextmanager
def running_server() -> Iterator[PostgresServer]:
    """A started server, stopped and deleted on exit; skips (or, in CI, fails) the caller where none can start."""
    plan = plan_server()
    if isinstance(plan, str):
        unavailable(plan)
    # As root, the postgres user must reach the folder: /tmp is open to all, a TMPDIR may not be.
    parent = "/tmp" if plan.owner and os.path.isdir("/tmp") else None
    server = PostgresServer(plan, Path(tempfile.mkdtemp(prefix="course-pg-", dir=parent)))
    try:
        try:
            server.start()
        except (ServerStartError, OSError, subprocess.TimeoutExpired) as exc:
            unavailable(str(exc))
        yield server
    finally:
        server.stop()
