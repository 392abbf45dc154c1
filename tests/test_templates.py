"""The HTML views render from templates (course_utils/templates), escape what they are given, and ship as data.

Three guards: every case of ``html_cases.py`` renders, and a view given text with markup in it (``SPECIAL``)
shows that text escaped, never as tags; no module of the package writes HTML tags in Python strings (an AST
scan, with an explicit list of what is left, which may only shrink); and the templates are package data, so
an installed copy has them. The exact bytes each view gives are pinned where they matter, in the lessons'
stored outputs, which strict nbval compares.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from html_cases import SPECIAL, SPECIAL_CASES, cases

#: ``SPECIAL``'s tag as a browser would read it (``<b>``), and escaped (``&lt;b&gt;``).
RAW, ESCAPED = SPECIAL[: SPECIAL.index("&") + 1], "&lt;b&gt;"


@pytest.fixture(scope="module")
def rendered() -> dict[str, str]:
    return cases()


def test_the_cases_cover_every_view_given_markup(rendered):
    assert set(SPECIAL_CASES) <= set(rendered), sorted(set(SPECIAL_CASES) - set(rendered))


@pytest.mark.parametrize("name", SPECIAL_CASES)
def test_text_with_markup_is_shown_escaped(rendered, name):
    assert ESCAPED in rendered[name], rendered[name][:300]


def test_no_view_lets_markup_through(rendered):
    leaked = sorted(name for name, html in rendered.items() if RAW in html)
    assert not leaked, leaked


# --- no HTML built by string concatenation outside templates ---------------------------------------------

PACKAGE = Path(__file__).resolve().parent.parent / "course_utils"
#: An HTML tag in a Python string: "<div", "</td>", "<br>", "<span class=...".
HTML_TAG = re.compile(
    r"</?(?:a|b|br|caption|code|details|div|em|h[1-6]|i|img|label|li|main|meta|ol|p|pre|script|section|span|strong"
    r"|style|summary|svg|table|tbody|td|th|thead|tr|u|ul)(?:\s[^<>]*)?/?>|<(?:div|span|table|td|tr|img|p|a)\s",
    re.IGNORECASE,
)


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def html_in_python(path: Path, root: Path = PACKAGE) -> list[str]:
    """Every string constant of a module (docstrings aside: they show examples) that holds an HTML tag."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    return [
        f"{path.relative_to(root)}:{node.lineno}: {node.value[:60]!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
        and HTML_TAG.search(node.value)
    ]


def test_the_scan_finds_html_in_an_f_string_and_in_a_concatenation(tmp_path):
    module = tmp_path / "m.py"
    module.write_text('def f(x):\n    """<div>an example in a docstring</div>"""\n'
                      '    a = f\'<td style="x">{x}</td>\'\n    return "<br>" + a\n', encoding="utf-8")
    found = html_in_python(module, root=tmp_path)
    assert len(found) == 3, found  # '<td style="x">', '</td>' (the f-string's two constants) and "<br>"
    assert not any("docstring" in hit for hit in found)
    assert not html_in_python(PACKAGE / "window" / "trimming.py")  # a computing module: no HTML


def test_no_module_builds_html_outside_templates():
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        hits = html_in_python(path)
        if hits:
            found[path.relative_to(PACKAGE).as_posix()] = hits
    assert not found, "HTML built in Python; put the markup in a template (course_utils/templates):\n" + "\n".join(
        hit for hits in found.values() for hit in hits)


def test_every_template_is_package_data():
    import tomllib

    config = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["course_utils"]
    templates = sorted((PACKAGE / "templates").iterdir())
    assert templates
    for template in templates:
        assert any(template.relative_to(PACKAGE).match(p) for p in patterns), template.name


def test_the_environment_escapes_what_it_is_given_and_keeps_what_is_markup():
    from course_utils.pictures.templates import Markup, render_template

    shown = render_template("trim_region.html.j2", label="<script>\"'&", inner=Markup("<p>kept</p>"))
    assert 'aria-label="&lt;script&gt;&quot;&#x27;&amp;"' in shown and "<p>kept</p>" in shown
