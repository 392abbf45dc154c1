"""Every docstring example in course_utils runs, as part of the suite.

The examples are the package's smallest documentation ("a tiny example" in
each docstring); this file makes them tests, so an example that stops being
true fails here instead of misleading a reader. One test per module, found
by walking the package (no hand-kept list: a new module's examples run too).

``python -m course_utils.grade`` (``__main__``) is left out: importing it
runs the grader's command line.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import course_utils

MODULES = sorted(
    info.name for info in pkgutil.walk_packages(course_utils.__path__, "course_utils.")
    if not info.name.endswith(".__main__")
)


def test_the_walk_finds_the_package():
    assert {"course_utils.pictures.render", "course_utils.pictures.widgets", "course_utils.grade.gradebook"} <= set(MODULES)


@pytest.fixture
def as_a_learner():
    """The examples show a learner's notebook: the checks' strict mode (the suite's, which raises) off."""
    from course_utils import checks

    was = checks.is_strict()
    checks.set_strict(False)
    yield
    checks.set_strict(was)


@pytest.mark.parametrize("name", ["course_utils", *MODULES])
def test_docstring_examples_run(name, as_a_learner):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in finder.find(module, name):
        if test.examples:
            runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples in {name} failed (see above)"
