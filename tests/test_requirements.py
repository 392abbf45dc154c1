"""Installs by role: requirements.txt is the learner's set, requirements-dev.txt adds the tools.

A learner (or Binder, or a JupyterHub) installs requirements.txt and must not
get the test, website or lint tools. Their pins moving back into it is easy to
see; a learner's package that *depends* on one is not. So the learner's pins
are followed here through the installed packages' own metadata (each
``Requires-Dist``, its marker evaluated for this Python and platform, extras
only where a pin asks for them, e.g. ``psycopg[binary]``), all the way down,
and none of the tools may be reached. Every pin that requirements-dev.txt adds
must be one of the tools named below, with its role.
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]

#: Every pin of requirements-dev.txt that is not in requirements.txt, and why it is there.
TOOLS = {
    "pytest": "tests", "pytest-xdist": "tests", "execnet": "tests (pytest-xdist's)", "nbval": "tests (notebooks)",
    "hypothesis": "tests (properties)", "playwright": "tests (browser)", "axe-playwright-python": "tests (axe-core)",
    "beautifulsoup4": "tests (test_site reads the pages)",
    "sphinx": "website", "docutils": "website", "myst-parser": "website", "myst-nb": "website",
    "sphinx-book-theme": "website", "pydata-sphinx-theme": "website",
    "babel": "Persian catalogues (scripts/compile_catalogues.py)",
    "ruff": "lint", "import-linter": "lint",
}
#: What a learner's install must never pull in. Babel is not here: JupyterLab itself needs it
#: (jupyterlab-server requires babel), so a learner gets it either way, unpinned.
NEVER_FOR_LEARNERS = {"playwright", "sphinx", "hypothesis", "pytest", "pytest-xdist", "nbval",
                      "axe-playwright-python", "myst-nb", "myst-parser", "sphinx-book-theme", "ruff",
                      "import-linter"}


def pins(path: Path) -> dict[str, Requirement]:
    """The requirements a file names itself ({name: requirement}); ``-r`` and ``-e`` lines are left out."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split(" #")[0].strip()
        if line and not line.startswith(("#", "-")):
            requirement = Requirement(line)
            found[canonicalize_name(requirement.name)] = requirement
    return found


def editable_names(path: Path) -> list[str]:
    """The projects a file installs with ``-e FOLDER`` (read from each folder's pyproject.toml)."""
    names = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("-e "):
            pyproject = (path.parent / line[3:].strip() / "pyproject.toml").read_text(encoding="utf-8")
            names.append(re.search(r'^name = "([^"]+)"', pyproject, re.M).group(1))
    return names


def reached(start: list[Requirement]) -> dict[str, str]:
    """Every distribution ``start`` installs, transitively: {name: the chain that first brings it in}.

    A distribution met again with extras not yet followed (``jsonschema[format-nongpl]``) is followed again
    for those extras."""
    seen: dict[str, str] = {}
    followed: dict[str, set[str]] = {}  # name -> the extras ("" for none) whose requirements were followed
    todo = [(requirement, "requirements.txt") for requirement in start]
    missing = []
    while todo:
        requirement, via = todo.pop()
        name = canonicalize_name(requirement.name)
        extras = {"", *requirement.extras} - followed.setdefault(name, set())
        if not extras:
            continue
        followed[name] |= extras
        seen.setdefault(name, f"{via} -> {name}")
        try:
            requires = metadata.requires(requirement.name) or []
        except metadata.PackageNotFoundError:
            missing.append(seen[name])
            continue
        for line in requires:
            dependency = Requirement(line)
            if not dependency.marker or any(
                    dependency.marker.evaluate({**default_environment(), "extra": extra}) for extra in sorted(extras)):
                todo.append((dependency, seen[name]))
    assert not missing, f"not installed here, so not followed (install requirements-dev.txt): {missing}"
    return seen


def test_the_learners_set_pulls_in_no_test_site_or_lint_tool():
    learner = ROOT / "requirements.txt"
    start = [*pins(learner).values(), *(Requirement(name) for name in editable_names(learner))]
    assert "course_utils" in editable_names(learner), "requirements.txt installs course_utils (-e .)"
    chains = reached(start)
    assert "jupyterlab" in chains and "langgraph" in chains and "nbclient" in chains  # the walk went somewhere
    assert not [chains[name] for name in sorted(NEVER_FOR_LEARNERS & chains.keys())]


def test_every_tool_pin_has_a_role_and_the_dev_set_includes_the_learners():
    dev = ROOT / "requirements-dev.txt"
    lines = dev.read_text(encoding="utf-8").splitlines()
    assert "-r requirements.txt" in lines and not any(line.startswith("-e ") for line in lines)
    learner, tools = pins(ROOT / "requirements.txt"), pins(dev)
    assert not learner.keys() & tools.keys(), "pinned in both files"
    assert tools.keys() == TOOLS.keys(), (sorted(tools.keys() - TOOLS.keys()), sorted(TOOLS.keys() - tools.keys()))
    assert not learner.keys() & TOOLS.keys(), "a tool is pinned in the learner's set"


def test_every_pin_is_exact_and_follows_a_comment():
    """Each pin is ``==`` a version, in a block of pins whose first line is a comment saying why."""
    for path in (ROOT / "requirements.txt", ROOT / "requirements-dev.txt"):
        previous = ""
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line and not line.startswith(("#", "-")):
                assert re.fullmatch(r"[A-Za-z0-9_.\-]+(\[[a-z,]+\])?==[0-9][0-9A-Za-z.]*", line), (path.name, number, line)
                assert previous.startswith("#") or (previous and not previous.startswith("-")), \
                    f"{path.name}:{number}: {line} has no comment above its block"
            previous = line
