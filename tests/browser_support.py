"""Helpers for the browser test: a JupyterLab server on loopback, and a page that drives it.

Kept apart from the test so each piece reads on its own:

- :func:`why_no_browser` says why the browser test cannot run here (or None);
- :class:`LabServer` starts ``jupyter lab`` on 127.0.0.1 with a random token and an
  isolated configuration, and always stops it (and any kernel it leaves);
- :class:`LabPage` opens a notebook, waits for the kernel, runs every cell
  and reads the widgets back out of the page; :func:`open_lab` makes one in
  its own browser context and, on exit, closes the context and shuts down
  every kernel the page started;
- :func:`no_kernel_outlives_the_test` / :func:`no_kernel_outlives_the_module`
  (autouse, imported by every ``test_browser*.py``) fail a test, or a module,
  that leaves a kernel, a kernel process or a browser context behind.

Facts this relies on, each checked on Debian 12 with Chromium 156 and JupyterLab 4.6: Debian's ``chromium`` works
with Playwright's ``executable_path`` and the flags in ``CHROMIUM_ARGS``;
``--LabApp.expose_app_in_browser=True`` exposes ``window.jupyterapp``; an
ipywidgets slider's ``.noUi-handle`` takes the keyboard (Home, End, arrows).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from collections.abc import Iterator
from typing import ClassVar

import nbformat

from socket_support import free_loopback_port

#: Outputs of the notebook on screen (another notebook may be open in a hidden tab).
OUTPUT = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output"

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def scratch_notebook(title: str | None, *code: str) -> nbformat.NotebookNode:
    """A notebook a browser test writes into the Lab's folder: the python3 kernel, a markdown title, one cell a string.

    >>> [cell.cell_type for cell in scratch_notebook("# Demo", "1 + 1", "2 + 2").cells]
    ['markdown', 'code', 'code']
    """
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nb.cells = ([nbformat.v4.new_markdown_cell(title)] if title else []) + [nbformat.v4.new_code_cell(c) for c in code]
    return nb


def chromium_path() -> str | None:
    """Debian's chromium, if installed."""
    for candidate in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def why_no_browser() -> str | None:
    """The reason the browser test must be skipped on this machine, or None if it can run."""
    if importlib.util.find_spec("playwright") is None:
        return "the playwright Python package is not installed (pip install playwright)"
    if chromium_path() is None:
        return "no Chromium found at /usr/bin/chromium or on PATH (apt-get install chromium)"
    if importlib.util.find_spec("jupyterlab") is None:
        return "jupyterlab is not installed"
    return None


def skip_or_fail_without_browser() -> None:
    """Skip the calling test, saying why, when no browser can run; fail instead under COURSE_REQUIRE_BROWSER=1 (CI)."""
    import pytest

    reason = why_no_browser()
    if reason is None:
        return
    if os.environ.get("COURSE_REQUIRE_BROWSER") == "1":
        pytest.fail(f"COURSE_REQUIRE_BROWSER=1 but the browser test cannot run: {reason}")
    pytest.skip(f"browser test skipped: {reason}")


class LabServer:
    """``jupyter lab`` on a free loopback port, serving ``root``; use it as a context manager.

    Configuration, data, runtime, settings and workspaces all live in a
    scratch folder, so the developer's own JupyterLab set-up neither
    changes the test nor is changed by it. Kernel specs and lab extensions
    are still found in the Python environment's ``share/jupyter``.

    A random token guards the server (the page gets it in the first URL it
    opens, the REST calls here in an ``Authorization`` header), so that the
    test can shut kernels down through the REST API.
    """

    #: The servers running in this process, for the kernel checks (a worker starts at most one).
    running: ClassVar[list[LabServer]] = []

    def __init__(self, root: Path, scratch: Path, *, timeout: float = 30.0):
        self.root, self.scratch, self.timeout = Path(root), Path(scratch), timeout
        self.port = free_loopback_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.token = secrets.token_hex(24)
        self.process: subprocess.Popen | None = None
        self.log_path = self.scratch / "jupyterlab.log"
        self.pages: list[LabPage] = []  # pages open on this server that have not been closed

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)  # keeps PYTHONPATH (the offline guard) for the server and its kernels
        for variable, folder in {
            "JUPYTER_CONFIG_DIR": "config",
            "JUPYTER_DATA_DIR": "data",
            "JUPYTER_RUNTIME_DIR": "runtime",
            "JUPYTERLAB_SETTINGS_DIR": "settings",
            "JUPYTERLAB_WORKSPACES_DIR": "workspaces",
            "IPYTHONDIR": "ipython",
        }.items():
            path = self.scratch / folder
            path.mkdir(parents=True, exist_ok=True)
            env[variable] = str(path)
        env.pop("JUPYTER_PATH", None)
        # No "get notified about Jupyter news?" toast over the widgets in the screenshots.
        notification = self.scratch / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
        notification.parent.mkdir(parents=True, exist_ok=True)
        notification.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
        env["MPLBACKEND"] = "agg"
        return env

    def __enter__(self) -> "LabServer":
        command = [
            sys.executable, "-m", "jupyterlab",
            "--no-browser", "--allow-root",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={self.port}", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}", "--ServerApp.password=",
            f"--ServerApp.root_dir={self.root}",
            "--LabApp.expose_app_in_browser=True",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            "--LabApp.news_url=None",
        ]
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            command, cwd=self.root, env=self.environment(), stdout=self.log, stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so stopping it stops its kernels too
        )
        try:
            self._wait_until_up()
        except BaseException:
            self.stop()
            raise
        LabServer.running.append(self)
        return self

    def _wait_until_up(self) -> None:
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"jupyter lab exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                self.api("GET", "/api/status", timeout=2)
                return
            except OSError:
                time.sleep(0.25)
        raise TimeoutError(f"jupyter lab did not answer on {self.url} within {self.timeout} s:\n{self.log_tail()}")

    # --- the REST API: kernels and sessions -----------------------------------------------------------

    def api(self, method: str, path: str, timeout: float = 10.0):
        """Call the server's REST API (``/api/...``) with the token; the decoded JSON, or None (204, 404)."""
        request = urllib.request.Request(
            f"{self.url}{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                body = response.read()
        except urllib.error.HTTPError as error:
            if error.code == 404:  # already gone
                return None
            raise
        return json.loads(body) if body else None

    def kernels(self) -> list[dict]:
        """The kernels the server lists (``GET /api/kernels``)."""
        return self.api("GET", "/api/kernels")

    def sessions(self) -> list[dict]:
        """The sessions the server lists (``GET /api/sessions``): a notebook path and its kernel."""
        return self.api("GET", "/api/sessions")

    def kernel_processes(self) -> list:
        """The ipykernel processes started by the server (psutil ``Process`` objects), alive now.

        jupyter_client starts each kernel in a session of its own, so they
        are found as the server's descendants, not in its process group.
        """
        import psutil

        if self.process is None:
            return []
        try:
            descendants = psutil.Process(self.process.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []
        found = []
        for process in descendants:
            try:
                if process.status() != psutil.STATUS_ZOMBIE and any("ipykernel" in a for a in process.cmdline()):
                    found.append(process)
            except psutil.Error:
                pass
        return found

    def shut_down(self, session_ids=(), kernel_ids=(), timeout: float = 10.0) -> None:
        """Shut down these sessions (and their kernels) and these kernels; wait until the server lists none of them.

        ``DELETE /api/sessions/{id}`` asks the kernel to shut down; the
        server may list it a little longer, so this polls ``GET /api/kernels``
        until a deadline rather than sleeping, and raises if it is still there.
        """
        session_ids, kernel_ids = set(session_ids), set(kernel_ids)
        kernel_ids |= {s["kernel"]["id"] for s in self.sessions() if s["id"] in session_ids and s.get("kernel")}
        for session_id in session_ids:
            self.api("DELETE", f"/api/sessions/{session_id}", timeout=timeout)
        for kernel_id in kernel_ids:
            if any(k["id"] == kernel_id for k in self.kernels()):
                self.api("DELETE", f"/api/kernels/{kernel_id}", timeout=timeout)
        deadline = time.monotonic() + timeout
        while True:
            left = sorted(kernel_ids & {k["id"] for k in self.kernels()})
            if not left:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"kernels {left} still listed {timeout} s after they were shut down")
            time.sleep(0.1)

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        """Stop the server and everything it started (its kernels): politely, then firmly."""
        if self in LabServer.running:
            LabServer.running.remove(self)
        if self.process is None:
            return
        kernels = self.kernel_processes()  # in sessions of their own: killing the server's group misses them
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=5)
            except ProcessLookupError:
                pass
        try:  # anything left behind in the group
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        for kernel in kernels:  # the server normally shuts its kernels down on SIGTERM; not on SIGKILL
            with contextlib.suppress(Exception):
                kernel.kill()
        self.log.close()
        self.process = None

    def __exit__(self, *exc_info) -> None:
        self.stop()


# JavaScript run in the page ------------------------------------------------------------------

KERNEL_IDLE_JS = """() => {
    const app = window.jupyterapp;
    const widget = app && app.shell.currentWidget;
    const kernel = widget && widget.sessionContext && widget.sessionContext.session
        && widget.sessionContext.session.kernel;
    return Boolean(kernel && kernel.status === 'idle' && widget.content && widget.content.widgets.length);
}"""

ROW_STATUSES_JS = """([OUTPUT, selector]) => {
    const explorer = document.querySelector(OUTPUT + ' ' + selector);
    if (!explorer) return null;
    return [...explorer.querySelectorAll('tr.trim-row')].map(row => row.dataset.status);
}"""


class LabPage:
    """A Playwright page on a JupyterLab server, with the steps a learner takes.

    It notes every session and kernel the page starts (from the ``Location``
    of each ``201`` answer to ``POST /api/sessions`` or ``/api/kernels``), so
    that :meth:`close` shuts down those, and only those: JupyterLab keeps a
    notebook's kernel running after its page or tab goes away. Made by
    :func:`open_lab`, which closes it whatever the test did.
    """

    def __init__(self, page, server: LabServer):
        self.page, self.server = page, server
        self.started_sessions: set[str] = set()
        self.started_kernels: set[str] = set()
        self.kernels_before = {k["id"] for k in server.kernels()}
        self.closed = False
        server.pages.append(self)
        page.on("response", self._note_started)

    def _note_started(self, response) -> None:
        if response.status != 201 or response.request.method != "POST":
            return
        path = urllib.parse.urlsplit(response.url).path
        location = response.headers.get("location", "")
        if path == "/api/sessions" and location.startswith("/api/sessions/"):
            self.started_sessions.add(location.rsplit("/", 1)[-1])
        elif path == "/api/kernels" and location.startswith("/api/kernels/"):
            self.started_kernels.add(location.rsplit("/", 1)[-1])

    def close(self, timeout: float = 10.0) -> None:
        """Close the page's browser context, then shut down every kernel the page started.

        The context goes first, so no page is left to start the kernel again.
        Besides the kernels noted from the page's requests, any kernel that
        appeared while the page was open, is not another open page's and
        was not there before counts as this page's (a request whose answer the
        closing page never saw).
        """
        if self.closed:
            return
        self.closed = True
        try:
            self.page.context.close()
        finally:
            self.server.pages.remove(self)
            others = set().union(*(p.started_kernels | p.kernels_from_sessions() for p in self.server.pages))
            appeared = {k["id"] for k in self.server.kernels()} - self.kernels_before - others
            self.server.shut_down(self.started_sessions, self.started_kernels | appeared, timeout=timeout)

    def kernels_from_sessions(self) -> set[str]:
        """The kernels of the sessions this page started (a session's kernel can change: restart, change kernel)."""
        return {s["kernel"]["id"] for s in self.server.sessions() if s["id"] in self.started_sessions and s.get("kernel")}

    def open_notebook(self, path: str, timeout_ms: int = 30_000) -> None:
        # ?reset: no tabs restored from earlier pages; the token logs the page in (a cookie, for the API calls)
        self.page.goto(f"{self.server.url}/lab/tree/{path}?reset&token={self.server.token}")
        self.page.wait_for_function("() => Boolean(window.jupyterapp && window.jupyterapp.shell)", timeout=timeout_ms)
        self.page.wait_for_function(KERNEL_IDLE_JS, timeout=timeout_ms)

    def run_all_cells(self, explorer_selector: str, rows: int | None = None, timeout_ms: int = 45_000) -> None:
        """Run every cell; wait until they have all run and the first matching widget shows its rows.

        While cells run, JupyterLab keeps scrolling to the running one, so
        nothing is touched until the kernel is idle with no cell queued
        ("[*]"), seen twice in a row.
        """
        self.page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        self.page.wait_for_function(
            """([OUTPUT, selector, rows]) => {
                const explorer = document.querySelector(OUTPUT + ' ' + selector);
                const n = explorer ? explorer.querySelectorAll('tr.trim-row').length : 0;
                return rows === null ? n > 0 : n === rows;
            }""",
            arg=[OUTPUT, explorer_selector, rows],
            timeout=timeout_ms,
        )
        deadline = time.monotonic() + timeout_ms / 1000
        settled = 0
        while settled < 2:
            if time.monotonic() > deadline:
                raise TimeoutError("the notebook's cells did not finish running")
            busy = self.page.evaluate(
                """() => [...document.querySelectorAll('.jp-InputPrompt')].some(p => p.textContent.includes('*'))"""
            )
            settled = 0 if busy or not self.page.evaluate(KERNEL_IDLE_JS) else settled + 1
            time.sleep(0.3)

    def run_every_cell(self, timeout_ms: int = 180_000) -> None:
        """Run All, and wait until every cell has run and the outputs have stopped changing.

        The general form of :meth:`run_all_cells` (which also waits for a trim
        explorer's rows): done when the kernel is idle, no cell shows "[*]"
        and the number of elements in the outputs is the same on three looks
        in a row, half a second apart (widget views draw after the kernel is idle).
        """
        self.page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        time.sleep(0.5)
        deadline = time.monotonic() + timeout_ms / 1000
        settled, last_count = 0, -1
        while settled < 3:
            if time.monotonic() > deadline:
                raise TimeoutError("the notebook's cells did not finish running")
            busy = self.page.evaluate(
                """() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-InputPrompt')]
                       .some(p => p.textContent.includes('*'))"""
            ) or not self.page.evaluate(KERNEL_IDLE_JS)
            count = self.page.evaluate("(OUTPUT) => document.querySelectorAll(OUTPUT + ' *').length", OUTPUT)
            settled = 0 if busy or count != last_count else settled + 1
            last_count = count
            time.sleep(0.5)

    def statuses(self, selector: str = ".trim-explorer") -> list[str] | None:
        return self.page.evaluate(ROW_STATUSES_JS, [OUTPUT, selector])

    def wait_for_statuses_to_change(self, selector: str, before: list[str], timeout_ms: int = 15_000) -> list[str]:
        self.page.wait_for_function(
            """([OUTPUT, selector, before]) => {
                const explorer = document.querySelector(OUTPUT + ' ' + selector);
                if (!explorer) return false;
                const now = [...explorer.querySelectorAll('tr.trim-row')].map(row => row.dataset.status);
                return now.length > 0 && JSON.stringify(now) !== JSON.stringify(before);
            }""",
            arg=[OUTPUT, selector, before],
            timeout=timeout_ms,
        )
        return self.statuses(selector)

    def reveal(self, selector: str, block: str = "start") -> None:
        """Scroll the first output matching ``selector`` into view.

        JupyterLab gives off-screen cells ``content-visibility: auto``, which
        Playwright reports as "not visible", so its own scrolling waits
        forever; the DOM's ``scrollIntoView`` does not care.
        """
        self.page.evaluate(
            """([OUTPUT, selector, block]) => document.querySelector(OUTPUT + ' ' + selector)
                   .scrollIntoView({block: block})""",
            [OUTPUT, selector, block],
        )
        self.page.locator(f"{OUTPUT} {selector}").first.wait_for(state="visible", timeout=10_000)

    def press_on_slider(self, selector: str, key: str) -> None:
        """Focus the slider's handle and press a key (Home, End, ArrowLeft, ...), as a keyboard user would."""
        self.reveal(f"{selector} .noUi-handle", block="center")
        handle = self.page.locator(f"{OUTPUT} {selector} .noUi-handle").first
        handle.focus()
        handle.press(key)

    def slider_readout(self, selector: str) -> int:
        text = self.page.locator(f"{OUTPUT} {selector} .widget-readout").first.inner_text()
        return int(text.strip().replace(",", ""))


# Opening a page, and the checks that nothing outlives a test ------------------------------------------

#: The Chromium browsers this process launched (conftest.py's ``chromium_browser``), for the context check.
BROWSERS: list = []


@contextlib.contextmanager
def launched_chromium(playwright) -> Iterator:
    """Launch Debian's Chromium with :data:`CHROMIUM_ARGS`; closed, and forgotten by the checks, on exit."""
    chromium = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
    BROWSERS.append(chromium)
    try:
        yield chromium
    finally:
        BROWSERS.remove(chromium)
        chromium.close()


@contextlib.contextmanager
def open_lab(browser, server: LabServer, **context_options) -> Iterator[LabPage]:
    """A :class:`LabPage` in a browser context of its own; on exit, pass or fail, :meth:`LabPage.close`.

    ``context_options`` go to Playwright's ``browser.new_context`` (``viewport=...``).
    """
    context = browser.new_context(**context_options)
    try:
        lab = LabPage(context.new_page(), server)
    except BaseException:
        context.close()
        raise
    try:
        yield lab
    finally:
        lab.close()


def _snapshot() -> dict:
    """What is alive now: each running server's kernel ids and kernel processes, each browser's contexts."""
    return {
        "kernels": {(id(s), k["id"]) for s in LabServer.running for k in s.kernels()},
        "processes": {(id(s), p.pid, p.create_time()) for s in LabServer.running for p in s.kernel_processes()},
        "contexts": {(id(b), id(c)) for b in BROWSERS for c in b.contexts},
    }


def _describe_leftovers(new_kernels: set) -> str:
    lines = []
    for server in LabServer.running:
        paths = {s["kernel"]["id"]: s.get("path") for s in server.sessions() if s.get("kernel")}
        for kernel in server.kernels():
            if (id(server), kernel["id"]) in new_kernels:
                lines.append(f"  kernel {kernel['id']} ({kernel.get('execution_state')}), "
                             f"notebook {paths.get(kernel['id'], '(no session)')}")
    return "\n".join(lines)


def check_nothing_outlives(before: dict, what: str, timeout: float = 10.0) -> None:
    """Fail unless every kernel, kernel process and browser context alive now was alive ``before``.

    Kernels shut down asynchronously, so this polls until a deadline
    (``timeout`` seconds) before it fails; a context is closed at once.
    """
    import pytest

    deadline = time.monotonic() + timeout
    while True:
        now = _snapshot()
        kernels, processes = now["kernels"] - before["kernels"], now["processes"] - before["processes"]
        contexts = now["contexts"] - before["contexts"]
        if not (kernels or processes) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    problems = []
    if kernels:
        problems.append(f"{len(kernels)} kernel(s) still listed by the server (GET /api/kernels):\n"
                        + _describe_leftovers(kernels))
    if processes:
        problems.append(f"{len(processes)} ipykernel process(es) still running: pids {sorted(p for _, p, _ in processes)}")
    if contexts:
        problems.append(f"{len(contexts)} browser context(s) (pages) still open")
    if problems:
        pytest.fail(f"{what} left behind what it started ({timeout:g} s after it ended):\n" + "\n".join(problems),
                    pytrace=False)


def _nothing_outlives(what: str):
    import pytest

    scope = "module" if what == "module" else "function"

    @pytest.fixture(scope=scope, autouse=True, name=f"no_kernel_outlives_the_{what}")
    def check(request):
        before = _snapshot()
        yield
        check_nothing_outlives(before, f"the {what} {request.node.name}")

    return check


#: Autouse, per test: after the test and its own fixtures' clean-up, no kernel, kernel process or
#: browser context that the test started is left (wider-scoped fixtures' pages were there before it).
#: Every ``test_browser*.py`` imports both, which makes them autouse there.
no_kernel_outlives_the_test = _nothing_outlives("test")
#: Autouse, per module: once the module's own fixtures are torn down, nothing they started is left.
no_kernel_outlives_the_module = _nothing_outlives("module")
