"""axe-core for the browser tests: its script from the pinned package, the rules run, and a readable report.

Shared by ``test_browser_a11y.py`` (a lesson's outputs in JupyterLab) and
``test_browser_site.py`` (the website's pages); each calls ``axe.run`` itself,
with its own context and options.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

#: The rules run: WCAG 2.0 and 2.1, levels A and AA.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
FAILING_IMPACTS = ("serious", "critical")


def failing_violations(violations: list[dict]) -> list[dict]:
    """The violations that fail a test: those of a serious or critical impact."""
    return [v for v in violations if v["impact"] in FAILING_IMPACTS]


def axe_script() -> str:
    """axe-core's browser script, from the pinned package (no network)."""
    try:
        import axe_playwright_python
    except ImportError:
        reason = "axe-playwright-python is not installed (pip install -r requirements-dev.txt)"
        if os.environ.get("COURSE_REQUIRE_BROWSER") == "1":
            pytest.fail(f"COURSE_REQUIRE_BROWSER=1 but the accessibility test cannot run: {reason}")
        pytest.skip(reason)
    return (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text(encoding="utf-8")


def describe(violations: list[dict]) -> str:
    """Every violation, one line per node, for the test's output."""
    lines = []
    for v in violations:
        lines.append(f"{v['impact']:>8} {v['id']} ({len(v['nodes'])} nodes): {v['help']}")
        lines += [f"           {node['target']}" for node in v["nodes"]]
    return "\n".join(lines) or "no violation"
