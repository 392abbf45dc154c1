"""Argument checks shared by the course's public functions (private).

These are the package's *argument checks* (the package docstring lists the
other meanings of "check"); a module's own ``check_*`` / ``_check_*``
functions follow the same contract. Each check returns the value when it is acceptable and otherwise raises
TypeError (wrong type; a bool is never accepted as an int) or ValueError
(right type, wrong value), with a message that names the parameter and the
value it got, so a learner sees which argument to fix.

>>> check_int(3, "max_tokens")
3
>>> check_int(True, "max_tokens")
Traceback (most recent call last):
...
TypeError: max_tokens must be an int, got bool: True
>>> check_int(-1, "max_tokens")
Traceback (most recent call last):
...
ValueError: max_tokens must be >= 0, got -1
>>> check_choice("last", "strategy", ("first", "last"))
'last'
"""

from __future__ import annotations

from collections.abc import Iterable
from numbers import Integral
from typing import Any

__all__ = ["check_int", "check_bool", "check_text", "check_choice", "check_instance"]


def check_int(value: Any, parameter: str, minimum: int | None = 0, *, none_ok: bool = False) -> int | None:
    """``value`` as an int if it is an integer (not a bool) and at least ``minimum``.

    ``minimum=None`` sets no lower bound; ``none_ok=True`` lets ``None`` through
    (returned as is). Any integral number (a numpy integer too) is accepted and
    returned as a plain ``int``.
    """
    if value is None and none_ok:
        return None
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{parameter} must be an int, got {type(value).__name__}: {value!r:.80}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{parameter} must be >= {minimum}, got {value}")
    return int(value)


def check_bool(value: Any, parameter: str) -> bool:
    """``value`` if it is True or False (not 0, 1 or a string)."""
    if not isinstance(value, bool):
        raise TypeError(f"{parameter} must be True or False, got {type(value).__name__}: {value!r:.80}")
    return value


def check_text(value: Any, parameter: str, *, none_ok: bool = False, empty_ok: bool = True) -> str | None:
    """``value`` if it is a str (or None when ``none_ok``); ValueError for "" unless ``empty_ok``."""
    if value is None and none_ok:
        return None
    if not isinstance(value, str):
        expected = "a str or None" if none_ok else "a str"
        raise TypeError(f"{parameter} must be {expected}, got {type(value).__name__}: {value!r:.80}")
    if not empty_ok and not value.strip():
        raise ValueError(f"{parameter} must not be empty, got {value!r}")
    return value


def check_choice(value: Any, parameter: str, choices: Iterable[Any]) -> Any:
    """``value`` if it is one of ``choices`` (compared with ==; a bool never matches an int choice)."""
    choices = tuple(choices)
    if isinstance(value, bool) and not any(isinstance(c, bool) for c in choices):
        raise ValueError(f"{parameter} must be one of {choices}, got {value!r:.80}")
    try:
        found = value in choices
    except TypeError:  # an unhashable or oddly comparing value is simply not a choice
        found = False
    if not found:
        raise ValueError(f"{parameter} must be one of {choices}, got {value!r:.80}")
    return value


def check_instance(value: Any, parameter: str, cls: type, made_by: str | None = None) -> Any:
    """``value`` if it is an instance of ``cls``; the TypeError says which function makes one.

    >>> check_instance({}, "report", dict)
    {}
    """
    if not isinstance(value, cls):
        source = f" (from {made_by})" if made_by else ""
        article = "an" if cls.__name__[:1].upper() in "AEIOU" else "a"
        raise TypeError(f"{parameter} must be {article} {cls.__name__}{source}, got {type(value).__name__}: {value!r:.80}")
    return value
