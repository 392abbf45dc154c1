"""Rules for the test suite itself: every test asserts something.

A test that only runs code passes whatever the code does. So every
``def test_*`` in ``tests/test_*.py`` (at module level or in a class) must
contain, somewhere in its body:

- an ``assert`` statement, or
- ``pytest.raises(...)``, or
- a call to ``<something>.assert...(...)`` (a mock's ``assert_called_once``, ...), or
- a call to a helper defined in ``tests/`` whose name is or starts with ``assert_``,
  ``check_`` or ``expect_`` and which itself obeys this rule (or raises or calls
  ``pytest.fail``), or Playwright's ``expect(...)``.

Helpers are looked up by name among the functions defined in ``tests/*.py``,
so a ``check_`` function from the package under test (``check_int``...) does
not count: calling it proves nothing unless the test asserts on the result.

>>> asserts_something(ast.parse("def test_x():\\n    assert f() == 1").body[0], {})
True
>>> asserts_something(ast.parse("def test_x():\\n    f()").body[0], {})
False
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
HELPER_PREFIXES = ("assert", "check", "expect")
EXTERNAL_ASSERTIONS = {"expect"}  # playwright.sync_api.expect: fails the test when its condition does not hold


def is_helper_name(name: str) -> bool:
    """``assert_x``, ``check``, ``expect_y``...: the prefix is a whole word (``expected_rows`` is data, not a check)."""
    return any(name == prefix or name.startswith(prefix + "_") for prefix in HELPER_PREFIXES)


def _is_pytest_call(call: ast.Call, name: str) -> bool:
    func = call.func
    return isinstance(func, ast.Attribute) and func.attr == name and isinstance(func.value, ast.Name) \
        and func.value.id == "pytest"


def asserts_something(function: ast.FunctionDef | ast.AsyncFunctionDef, helpers: dict[str, bool],
                      *, raising_counts: bool = False) -> bool:
    """Whether ``function``'s body asserts, by the rule in this module's docstring.

    ``helpers`` maps the names of the assert/check/expect helpers defined in
    tests/ to whether each asserts. A helper (``raising_counts``) may also
    ``raise`` or call ``pytest.fail``.
    """
    for node in ast.walk(function):
        if isinstance(node, ast.Assert):
            return True
        if raising_counts and isinstance(node, ast.Raise):
            return True
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if _is_pytest_call(node, "raises") or (raising_counts and _is_pytest_call(node, "fail")):
            return True
        if isinstance(func, ast.Attribute) and func.attr.startswith("assert"):
            return True
        if isinstance(func, ast.Name) and (helpers.get(func.id) or func.id in EXTERNAL_ASSERTIONS):
            return True
    return False


def _modules() -> dict[Path, ast.Module]:
    return {path: ast.parse(path.read_text(encoding="utf-8"), str(path)) for path in sorted(TESTS.glob("*.py"))}


def _helpers(modules: dict[Path, ast.Module]) -> dict[str, bool]:
    """Every module-level assert*/check*/expect* function in tests/, and whether it asserts (helpers may chain)."""
    found = {
        node.name: node
        for tree in modules.values()
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and is_helper_name(node.name)
    }
    verdicts = dict.fromkeys(found, False)
    changed = True
    while changed:  # a helper that calls an asserting helper asserts too
        changed = False
        for name, node in found.items():
            if not verdicts[name] and asserts_something(node, verdicts, raising_counts=True):
                verdicts[name] = changed = True
    return verdicts


def _tests(tree: ast.Module):
    bodies = [tree.body] + [node.body for node in tree.body if isinstance(node, ast.ClassDef)]
    for body in bodies:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
                yield node


def test_every_test_asserts_something():
    modules = _modules()
    helpers = _helpers(modules)
    silent = [
        f"{path.relative_to(TESTS.parent)}:{test.lineno} {test.name}"
        for path, tree in modules.items()
        if path.name.startswith("test_")
        for test in _tests(tree)
        if not asserts_something(test, helpers)
    ]
    counted = sum(1 for path, tree in modules.items() if path.name.startswith("test_") for _ in _tests(tree))
    assert counted > 500, f"only {counted} tests found: is TESTS ({TESTS}) the tests folder?"
    assert not silent, "these tests assert nothing (see tests/test_suite_rules.py):\n" + "\n".join(silent)


def test_every_assert_helper_asserts():
    """A helper named assert_*/check_*/expect_* that asserts nothing would let a silent test through."""
    helpers = _helpers(_modules())
    assert helpers, "no helpers found"
    assert [name for name, asserts in helpers.items() if not asserts] == []


@pytest.mark.parametrize(
    "source, helpers, expected",
    [
        ("def test_x():\n    assert f()", {}, True),
        ("def test_x():\n    with pytest.raises(ValueError):\n        f()", {}, True),
        ("def test_x(m):\n    m.assert_called_once()", {}, True),
        ("def test_x(page):\n    expect(page.locator('a')).to_be_visible()", {}, True),
        ("def test_x():\n    check_result(f())", {"check_result": True}, True),
        ("def test_x():\n    f()", {}, False),
        ("def test_x():\n    check_int(5, 'n')", {}, False),  # not a helper of tests/: proves nothing
        ("def test_x():\n    check_result(f())", {"check_result": False}, False),  # a helper that asserts nothing
        ("def test_x():\n    raise ValueError", {}, False),  # only helpers may assert by raising
        ("def test_x():\n    pytest.fail('no')", {}, False),
        ("def test_x():\n    pytest.skip('later')", {}, False),
    ],
)
def test_the_rule_accepts_assertions_and_refuses_the_rest(source, helpers, expected):
    function = ast.parse(source).body[0]
    assert asserts_something(function, helpers) is expected
