"""Shared test set-up: no network, ever, in this process or any kernel it starts."""

import os
from fnmatch import fnmatch
from pathlib import Path

from course_utils.core import netguard

# Kernels and subprocesses inherit PYTHONPATH, so they start with the same guard
# (course_utils/netguard_site/sitecustomize.py installs course_utils.core.netguard).
os.environ["PYTHONPATH"] = netguard.pythonpath(os.environ.get("PYTHONPATH"))
# No provider model may be picked up from the developer's environment.
os.environ.pop("COURSE_CHAT_MODEL", None)
os.environ.pop("COURSE_CHECKPOINT_URL", None)
# Exercise checks raise on a wrong answer, so a wrong master solution fails nbval.
os.environ["COURSE_CHECKS_STRICT"] = "1"
if netguard.wanted():
    netguard.install()  # this process

ROOT = Path(__file__).resolve().parents[1]


import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# Property tests judge what the code returns, never how fast: on a loaded machine (two xdist workers,
# Chromium, a kernel) an example can take longer than hypothesis' default 200 ms deadline, which says
# nothing about the code. Speed is measured side by side in benchmarks/ instead.
settings.register_profile("course", deadline=None)
settings.load_profile("course")


# --- running in parallel (pytest-xdist: `-n 2 --dist loadfile` in the README's test command) ---
# loadfile runs each file whole on one worker, so a notebook's cells run in order in one
# kernel (nbval). No scheduler hook: the session fixtures below (JupyterLab, Chromium, the
# PostgreSQL server) are built at most once per worker, on the first test that asks.


# --- two tiers: `-m "not full"` is the quick run (README: <!-- quick-test-command -->), no -m the full one ---
# The `full` marker (registered in pyproject.toml) goes on what is slow and is covered in kind by a quick
# test: whole files and notebooks by path here (nbval collects the notebooks, so they cannot carry a
# decorator), single tests by `@pytest.mark.full` in their file (tests/test_grade.py, test_grade_forgery.py,
# test_grade_persian.py: the grader's runs; tests/test_grade_quick.py is the quick tier's one grader run).
FULL = {  # path pattern (from the repository's root) -> why it waits for the full run
    "tests/test_browser_*.py": "every browser file but tests/test_browser.py (the TrimExplorer driven by keyboard), "
                               "including test_browser_a11y.py's axe-core sweep of every lesson",
    "tests/test_grade_isolation.py": "the grader's bubblewrap sandbox run as nobody inside an outer one",
    "tests/test_checks_grade*.py": "exercises 04 to 08 through the grader (a kernel per notebook); their checks "
                                   "stay quick through nbval on the masters and the unit tests",
    "tests/test_ci.py": ".ci/run on stub READMEs",
    "notebooks/fa/*.ipynb": "the Persian lessons run the English lessons' code, which nbval runs quick",
    "exercises/fa/solutions/*.ipynb": "likewise the Persian masters",
}
QUICK_AFTER_ALL = {  # matched above, kept quick: one Persian lesson and one Persian master, the shortest
    "notebooks/fa/00_start_here.ipynb",
    "exercises/fa/solutions/02_token_budgets_exercise.ipynb",
}


def is_full(relpath: str) -> bool:
    """Whether a file (a path from the repository's root, with /) is in the full tier only."""
    return relpath not in QUICK_AFTER_ALL and any(fnmatch(relpath, pattern) for pattern in FULL)


def pytest_collection_modifyitems(config, items):
    for item in items:
        try:
            relpath = item.path.resolve().relative_to(ROOT).as_posix()
        except ValueError:  # a file outside the repository (a test's own tmp_path run)
            continue
        if is_full(relpath):
            item.add_marker(pytest.mark.full)


@pytest.fixture
def lenient(monkeypatch):
    """Learner mode: a wrong answer comes back as a result, not an AssertionError.

    The test run sets COURSE_CHECKS_STRICT=1 (above) so that a wrong master
    solution fails nbval; tests of the checks themselves turn it off with
    ``pytestmark = pytest.mark.usefixtures("lenient")``. The marks left by
    answer cells that failed are cleared before and after, so no test sees
    another's.
    """
    from course_utils import checks
    from course_utils.checks import cells

    monkeypatch.setattr(checks.settings, "strict", False)
    cells.forget()
    yield
    cells.forget()


@pytest.fixture
def reference_messages():
    """The trim_messages reference page's five messages, as course_utils stores them (a fresh list each test).

    Dummy counter: 10 tokens a string message, 14 for the two-block AIMessage.
    test_trimming.py keeps its own transcription, to cross-check this one.
    """
    from course_utils.window.reference_page import reference_messages as stored

    return stored()


# --- the browser tests: one JupyterLab and one Chromium per xdist worker, for its test_browser*.py files ---


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory):
    """JupyterLab on loopback, serving a scratch folder; a browser test copies in the notebooks it opens.

    Pages are opened with browser_support.open_lab, which shuts down the kernels a page started when
    the test (or fixture) that opened it ends; the autouse checks every test_browser*.py imports fail
    a test or module that leaves a kernel running.
    """
    from browser_support import LabServer, skip_or_fail_without_browser

    skip_or_fail_without_browser()
    with LabServer(tmp_path_factory.mktemp("lab-root"), tmp_path_factory.mktemp("lab-scratch")) as lab:
        yield lab


@pytest.fixture(scope="session")
def chromium_browser():
    """Debian's Chromium driven by Playwright, shared by the browser tests of one worker.

    Each test's pages live in browser contexts of their own, closed when the test (or its
    fixture) ends: browser_support's autouse checks fail a test that leaves one open.
    """
    from browser_support import launched_chromium, skip_or_fail_without_browser

    skip_or_fail_without_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright, launched_chromium(playwright) as chromium:
        yield chromium


# --- a real PostgreSQL server (tests/postgres_support.py): one per worker, for every file that needs it ---


@pytest.fixture(scope="session")
def postgres_server():
    """A PostgreSQL server on loopback; skips with the reason if none can start (fails if COURSE_REQUIRE_POSTGRES=1)."""
    from postgres_support import running_server

    with running_server() as server:
        yield server


@pytest.fixture
def postgres_url(postgres_server):
    """The server's URL for its superuser and the ``postgres`` database, password included."""
    return postgres_server.url()


# --- the course website, built once per session (tests/site_support.py): test_site.py, test_browser_site.py ---


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """The course's own website, built from the repository's notebooks (shared between workers through a lock)."""
    from site_support import build_once

    return build_once(tmp_path_factory, "course-site")


@pytest.fixture(scope="session")
def bilingual(tmp_path_factory) -> Path:
    """The website of a tiny English/Persian fixture course (site_support.make_bilingual_course)."""
    from site_support import build_once, make_bilingual_course

    return build_once(tmp_path_factory, "bilingual-site", make_bilingual_course)
