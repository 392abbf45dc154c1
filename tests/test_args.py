"""course_utils.core.args: the one set of argument checks (TypeError for a wrong type, ValueError for a wrong value)."""

import doctest

import numpy as np
import pytest

from course_utils.core import args
from course_utils.core.args import check_bool, check_choice, check_instance, check_int, check_text


def test_check_int():
    assert check_int(0, "n") == 0 and check_int(5, "n", minimum=5) == 5
    assert check_int(-3, "n", minimum=None) == -3
    assert check_int(None, "n", none_ok=True) is None
    value = check_int(np.int64(7), "n")
    assert value == 7 and type(value) is int
    for bad, words in ((True, "n must be an int, got bool: True"), (2.0, "n must be an int, got float: 2.0"),
                       ("3", "n must be an int, got str: '3'"), (None, "n must be an int, got NoneType: None")):
        with pytest.raises(TypeError, match=f"^{words}$"):
            check_int(bad, "n")
    with pytest.raises(ValueError, match=r"^limit must be >= 1, got 0$"):
        check_int(0, "limit", minimum=1)


def test_check_bool():
    assert check_bool(False, "flag") is False
    for bad in (0, 1, "yes", None):
        with pytest.raises(TypeError, match="^flag must be True or False, got "):
            check_bool(bad, "flag")


def test_check_text():
    assert check_text("", "title") == "" and check_text(None, "title", none_ok=True) is None
    with pytest.raises(TypeError, match=r"^title must be a str, got int: 3$"):
        check_text(3, "title")
    with pytest.raises(TypeError, match=r"^title must be a str or None, got int: 3$"):
        check_text(3, "title", none_ok=True)
    with pytest.raises(ValueError, match=r"^title must not be empty, got ' '$"):
        check_text(" ", "title", empty_ok=False)


def test_check_choice():
    assert check_choice("last", "strategy", ["first", "last"]) == "last"
    with pytest.raises(ValueError, match=r"^strategy must be one of \('first', 'last'\), got 'middle'$"):
        check_choice("middle", "strategy", ["first", "last"])
    with pytest.raises(ValueError, match=r"^n must be one of \(0, 1\), got True$"):
        check_choice(True, "n", (0, 1))  # True == 1, but a bool is not a number here
    with pytest.raises(ValueError, match="strategy must be one of"):
        check_choice(["last"], "strategy", ("first", "last"))


def test_check_instance():
    assert check_instance(3, "n", int) == 3
    with pytest.raises(TypeError, match=r"^report must be a dict \(from f\), got list: \[\]$"):
        check_instance([], "report", dict, "f")
    with pytest.raises(TypeError, match=r"^row must be an int, got str: 'x'$"):
        check_instance("x", "row", int)


def test_the_docstring_examples_run():
    assert doctest.testmod(args).failed == 0
