"""Helpers for the browser test: a JupyterLab server on loopback, and a page that drives it.

Kept apart from the test so each piece reads on its own:

- :func:`why_no_browser` says why the browser test cannot run here (or None);
- :class:`LabServer` starts ``jupyter lab`` on 127.0.0.1 with no token and an
  isolated configuration, and always stops it;
- :class:`LabPage` opens a notebook, waits for the kernel, runs every cell
  and reads the widgets back out of the page.

Facts this relies on, each checked on Debian 12 with Chromium 156 and JupyterLab 4.6: Debian's ``chromium`` works
with Playwright's ``executable_path`` and the flags in ``CHROMIUM_ARGS``;
``--LabApp.expose_app_in_browser=True`` exposes ``window.jupyterapp``; an
ipywidgets slider's ``.noUi-handle`` takes the keyboard (Home, End, arrows).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

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
    """

    def __init__(self, root: Path, scratch: Path, *, timeout: float = 30.0):
        self.root, self.scratch, self.timeout = Path(root), Path(scratch), timeout
        self.port = free_loopback_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None
        self.log_path = self.scratch / "jupyterlab.log"

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
            "--IdentityProvider.token=", "--ServerApp.password=",
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
        return self

    def _wait_until_up(self) -> None:
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"jupyter lab exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/status", timeout=2) as response:
                    json.load(response)
                    return
            except OSError:
                time.sleep(0.25)
        raise TimeoutError(f"jupyter lab did not answer on {self.url} within {self.timeout} s:\n{self.log_tail()}")

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        """Stop the server and everything it started (its kernels): politely, then firmly."""
        if self.process is None:
            return
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=5)
            except ProcessLookupError:
                pass
        try:  # kernels left behind in the group (the server normally shuts them down)
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
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
    """A Playwright page on a JupyterLab server, with the steps a learner takes."""

    def __init__(self, page, server: LabServer):
        self.page, self.server = page, server

    def open_notebook(self, path: str, timeout_ms: int = 30_000) -> None:
        self.page.goto(f"{self.server.url}/lab/tree/{path}?reset")  # ?reset: no tabs restored from earlier pages
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
