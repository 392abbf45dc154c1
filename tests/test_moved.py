"""Code written for the flat layout (``course_utils.tokens``) still imports, and is told the new place."""

from __future__ import annotations

import importlib
import sys

import pytest

from course_utils.core import moved


def test_an_old_path_is_the_same_module_and_warns():
    sys.modules.pop("course_utils.trimming", None)
    with pytest.warns(FutureWarning, match=r"course_utils\.trimming is now course_utils\.window\.trimming"):
        old = importlib.import_module("course_utils.trimming")
    assert old is importlib.import_module("course_utils.window.trimming")


def test_an_old_from_import_gives_the_real_function():
    sys.modules.pop("course_utils.budget", None)
    with pytest.warns(FutureWarning):
        from course_utils.budget import history_budget
    from course_utils.window.budget import history_budget as real

    assert history_budget is real


def test_a_name_no_layer_has_is_still_an_import_error():
    assert moved.new_path("not_a_module") is None
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("course_utils.not_a_module")
