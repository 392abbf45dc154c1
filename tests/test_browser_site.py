"""The course website in Chromium: self-contained, accessible, diagrams drawn, search working.

Every page of the built site (tests/site_support.py builds it once per
session) is opened from its folder (``file://``) with every request that
would leave the machine aborted and counted: zero are allowed, and no
request may fail. Pages with Mermaid diagrams must draw them (an SVG per
diagram, from the local mermaid.min.js). axe-core runs its WCAG 2.0/2.1 A and
AA rules over the whole page, English and Persian (the bilingual fixture
course): no serious or critical violation. Screenshots go to
``test-artifacts/site/``.

Skipped, with the reason, when Chromium or Playwright is missing (a failure
under COURSE_REQUIRE_BROWSER=1, as in CI). Named ``test_browser_*`` so it
shares the session's Chromium with the other browser tests.
"""

from __future__ import annotations

import functools
import http.server
import json
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

from axe_support import AXE_TAGS, axe_script, describe, failing_violations
from browser_support import no_kernel_outlives_the_module, no_kernel_outlives_the_test  # noqa: F401 (autouse checks)
from site_support import ROOT, external_request, html_pages

ARTIFACTS = ROOT / "test-artifacts" / "site"


class Visit:
    """One browser context whose requests are watched: outside ones aborted and recorded, failures recorded."""

    def __init__(self, browser):
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.outside: list[str] = []
        self.failed: list[str] = []
        # Only requests that would leave the machine are intercepted (and aborted); the site's own
        # file:// and loopback requests go straight through, and any that fails is recorded below.
        self.context.route(external_request, self._route)
        self.page = self.context.new_page()
        self.page.on("requestfailed", lambda request: self.failed.append(f"{request.url} ({request.failure})"))

    def _route(self, route):
        self.outside.append(route.request.url)
        route.abort()

    def open(self, path: Path):
        self.page.goto(path.as_uri())
        self.page.wait_for_load_state("load")
        if self.page.locator("pre.mermaid").count():
            self.page.wait_for_function("document.documentElement.hasAttribute('data-mermaid')", timeout=20_000)
        return self.page


@pytest.fixture
def visit(chromium_browser):
    watched = Visit(chromium_browser)
    try:
        yield watched
    finally:
        watched.context.close()


@dataclass
class PageReport:
    """What one visit to a page saw: requests to other hosts, failed requests, diagrams, overflow, axe."""

    outside: list[str]
    failed: list[str]
    diagrams: int
    mermaid: str | None
    labelled_svgs: int
    overflow: int
    axe: dict


def run_axe(page) -> dict:
    """axe-core's WCAG A/AA rules over the whole page (the site's chrome and the lesson alike).

    ``preload: false``: axe would otherwise fetch every stylesheet again to read its rules,
    which a browser refuses on pages opened from a folder (file://); that would show up as
    failed requests that the page itself never made.
    """
    page.evaluate(axe_script())
    return page.evaluate(
        """async (tags) => {
            const results = await axe.run(document, {runOnly: {type: 'tag', values: tags},
                resultTypes: ['violations'], preload: false});
            return {version: axe.version, violations: results.violations.map(v => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map(n => ({target: n.target.join(' '), summary: n.failureSummary}))}))};
        }""",
        AXE_TAGS,
    )


def survey(browser, site: Path, label: str) -> dict[Path, PageReport]:
    """Open every page once (a fresh watched context each), record what it did, run axe, screenshot it."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    reports = {}
    for path in html_pages(site):
        visit = Visit(browser)
        try:
            page = visit.open(path)
            diagrams = page.locator("figure.course-mermaid").count()
            outside, failed = list(visit.outside), list(visit.failed)  # what loading the page did
            axe = run_axe(page)
            name = f"{label}-{path.relative_to(site).as_posix().replace('/', '_')}"
            page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
            (ARTIFACTS / f"{name}.json").write_text(json.dumps(axe, indent=1))
            reports[path] = PageReport(
                outside=outside,
                failed=failed,
                diagrams=diagrams,
                mermaid=page.evaluate("document.documentElement.getAttribute('data-mermaid')"),
                labelled_svgs=page.locator("figure.course-mermaid svg[role='img'][aria-label]").count(),
                overflow=page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth"),
                axe=axe,
            )
        finally:
            visit.context.close()
    return reports


@pytest.fixture(scope="module")
def site_report(site, chromium_browser) -> dict[Path, PageReport]:
    return survey(chromium_browser, site, "en")


@pytest.fixture(scope="module")
def bilingual_report(bilingual, chromium_browser) -> dict[Path, PageReport]:
    return survey(chromium_browser, bilingual, "fixture")


def test_every_page_loads_with_outside_requests_blocked(site_report):
    assert len(site_report) > 10
    for path, report in site_report.items():
        assert report.outside == [], f"{path.name} asked other hosts for {report.outside}"
        assert report.failed == [], f"{path.name}: failed requests {report.failed}"


def test_every_mermaid_diagram_is_drawn(site_report):
    drawn = {p.name: r.diagrams for p, r in site_report.items() if r.diagrams}
    assert drawn, "no page has a Mermaid diagram"
    for path, report in site_report.items():
        if report.diagrams:
            assert report.mermaid == "done", f"{path.name}: mermaid said {report.mermaid}"
            assert report.labelled_svgs == report.diagrams, f"{path.name}: {report.labelled_svgs} of {report.diagrams} drawn"


def test_blocked_requests_are_counted(site, visit):
    """The watch can fail: a page that asks another host for a script is caught."""
    planted = site.parent / "planted-outside.html"
    planted.write_text('<!doctype html><title>x</title><script src="https://cdn.example.org/x.js"></script>')
    visit.open(planted)
    assert visit.outside == ["https://cdn.example.org/x.js"]


def assert_no_serious_violation(reports: dict[Path, PageReport]) -> None:
    failures = []
    for path, report in reports.items():
        print(f"{path.name}: axe {report.axe.get('version')}\n{describe(report.axe['violations'])}")
        failing = failing_violations(report.axe["violations"])
        if failing:
            failures.append(f"{path}:\n{describe(failing)}")
    assert not failures, "serious or critical accessibility violations:\n" + "\n".join(failures)


def test_no_serious_or_critical_axe_violation_on_any_page(site_report):
    assert_no_serious_violation(site_report)


def test_persian_pages_load_offline_and_pass_axe(bilingual, bilingual_report, visit):
    assert any("fa" in p.relative_to(bilingual).parts for p in bilingual_report)
    for path, report in bilingual_report.items():
        assert report.outside == [] and report.failed == [], (path, report.outside, report.failed)
        assert report.mermaid == "done" or not report.diagrams, (path, report.mermaid)
    assert_no_serious_violation(bilingual_report)
    page = visit.open(bilingual / "fa" / "notebooks" / "00_intro.html")
    assert page.evaluate("getComputedStyle(document.querySelector('article')).direction") == "rtl"
    assert page.evaluate("getComputedStyle(document.querySelector('article pre')).direction") == "ltr"


@pytest.fixture(scope="module")
def served_site(site):
    """The site over HTTP on loopback, as a school's intranet server would serve the folder."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def search(visit, url: str) -> list[str]:
    page = visit.page
    page.goto(url + "?q=trim_messages")
    page.wait_for_selector("#search-results li a", timeout=20_000)
    return page.eval_on_selector_all("#search-results li a", "links => links.map(a => a.getAttribute('href'))")


def test_search_finds_the_lessons_when_served(served_site, visit):
    hrefs = search(visit, f"{served_site}/search.html")
    assert any(h.startswith("notebooks/") for h in hrefs), hrefs
    visit.page.wait_for_load_state("networkidle")
    assert visit.outside == [] and visit.failed == [], (visit.outside, visit.failed)


def test_search_works_from_the_folder(site, visit):
    """From file:// the results are listed too; only their text snippets (fetched pages) are refused by the browser."""
    hrefs = search(visit, (site / "search.html").as_uri())
    assert any(h.startswith("notebooks/") for h in hrefs), hrefs
    assert visit.outside == []


def test_wide_outputs_scroll_inside_the_page(site_report):
    """Trim tables fit the page width: the page itself never scrolls sideways (a wider output scrolls in its box)."""
    for path, report in site_report.items():
        assert report.overflow <= 1, f"{path.name} is {report.overflow}px wider than the window"


def caption_gaps(page) -> dict:
    """Where the sidebar's first caption sits: its text's distance from the sidebar's left and right edges."""
    return page.evaluate("""() => {
        const caption = document.querySelector('nav.bd-links p.caption .caption-text');
        const sidebar = document.querySelector('.bd-sidebar-primary');
        const c = caption.getBoundingClientRect(), s = sidebar.getBoundingClientRect();
        const bar = getComputedStyle(document.querySelector('nav.bd-links .current > a')).boxShadow;
        return {left: c.left - s.left, right: s.right - c.right, text: caption.textContent,
                bar: bar, direction: getComputedStyle(caption).direction};
    }""")


@pytest.mark.parametrize("which", ["site", "bilingual"])
def test_persian_sidebar_is_mirrored(which, request, visit):
    """A Persian page's sidebar caption has the sidebar's full padding on its right, as an English one has on its
    left, and the current page's bar is on the right (an inset shadow with a negative x offset)."""
    built = request.getfixturevalue(which)
    lesson = "00_intro.html" if which == "bilingual" else "00_start_here.html"
    english = caption_gaps(visit.open(built / "notebooks" / lesson))
    persian = caption_gaps(visit.open(built / "fa" / "notebooks" / lesson))
    assert persian["direction"] == "rtl" and persian["text"] in ("درس‌ها", "تمرین‌ها"), persian
    assert english["left"] >= 12, english  # the theme's padding, the reference
    assert abs(persian["right"] - english["left"]) <= 2, (persian, english)
    assert persian["left"] > persian["right"], persian
    assert english["bar"].split("px")[0].split()[-1] == "3", english["bar"]
    assert persian["bar"].split("px")[0].split()[-1] == "-3", persian["bar"]
    assert visit.outside == [] and visit.failed == [], (visit.outside, visit.failed)


def test_searching_tavakon_on_the_persian_site_finds_lessons(site, visit):
    """The Persian edition writes "token"; a reader types توکن, and the index files one under the other."""
    page = visit.page
    page.goto((site / "fa" / "search.html").as_uri() + "?q=توکن")
    page.wait_for_selector("#search-results li a", timeout=20_000)
    hrefs = page.eval_on_selector_all("#search-results li a", "links => links.map(a => a.getAttribute('href'))")
    assert len([h for h in hrefs if h.startswith("notebooks/")]) >= 3, hrefs
    assert visit.outside == []
