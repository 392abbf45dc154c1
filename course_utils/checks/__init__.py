"""Exercise feedback (the exercises in ``exercises/``): check, hint, solution.

Every exercise notebook binds its questions at the top::

    from course_utils.checks import ex03
    q1, q2, q3, q4 = ex03.questions

and every question has three methods:

- ``q1.check(answer)`` says **correct**, **not attempted yet** (the answer is
  still ``...``, or a function's body is still ``...``) or **wrong** with a
  hint about the mistake it found. When the learner's own code raises, the
  result is **error**, naming the exception and the line it came from. In a
  learner's notebook ``check()`` never raises: it returns a
  :class:`CheckResult`, shown as a coloured box (HTML) with a plain-text twin.
- ``q1.hint()`` gives a nudge; ``q1.hint(2)`` a bigger one.
- ``q1.solution()`` shows the master notebook's solution (a teacher can switch
  this off with the environment variable ``COURSE_HIDE_SOLUTIONS=1``).

A reason is graded exactly where it can be: the learner picks every statement
that justifies the answer from a list (true relations, their reversals,
swapped subjects, true statements beside the point). A reason in the
learner's own words is never marked by the package: it is kept **for the
teacher** (the gradebook's review queue), and the learner sees the model
reasoning to compare with.

Where the answer is a function, the check calls it on several inputs, among
them conversations generated inside the check (seeded, so the feedback is
the same on every run), and compares with the real library (``trim_messages``,
``replay_growth``, ``history_budget``): a hard-coded constant cannot pass.
Known wrong answers (off by one, newest-first order, the other strategy,
a mutated state, ...) are recognised and named.

**Strict mode** is for the tests: with ``COURSE_CHECKS_STRICT=1`` in the
environment (or after :func:`set_strict`; ``settings.strict`` is the switch), a result that is not correct raises
``AssertionError`` with the same message, so ``pytest --nbval`` fails on a
master whose solution is wrong. A correct answer displays the same either way.

Inside, one job per module: ``machinery`` (check, hint, solution, results,
strict mode), ``status`` (the :class:`Status` enum), ``questions`` (questions as
data: generated cases, rules, known mistakes, reason statements),
``reason_lists`` (exercises 01-06's statements), ``kinds`` (numbers, letters,
generated conversations), ``cells`` (which answer cells failed),
``spies`` (which library functions a learner's code calls), ``record`` (what
a check leaves for the grader), ``solutions`` (the master's solution lines),
``subagent_decision`` (exercise 07's money question), ``state_costs`` (exercise 08's money
question), ``node_runs`` (a learner's LangGraph node run inside a check: every model call it
made, exercise 04), ``summary_runs`` (exercise 04 q5's summary node run on a state and in the
how-to's graph, with the reference for each run) and one module per exercise: ``ex01``, ``ex02``, ``ex03``, ``ex04``,
``ex05``, ``ex06``, ``ex07``, ``ex08``.

>>> from course_utils.checks import ex02
>>> q1 = ex02.questions[0]
>>> q1.check(...).status
'not attempted'
>>> q1.check(5518).status  # the question asks for a function, run on other models too
'wrong'
>>> q1.check(lambda limit, system, user, reserve: limit - system - user - reserve).status
'correct'

The package, one job per module:

- :mod:`~course_utils.checks.machinery`: ``Question`` (check / hint / solution),
  ``Exercise``, ``CheckResult``, ``Note`` and strict mode;
- :mod:`~course_utils.checks.record`: the record the grader reads, written and
  parsed in one place;
- :mod:`~course_utils.checks.questions`: questions as data (``CodeQuestion``,
  ``ChoiceQuestion``, ``Statements``); :mod:`~course_utils.checks.status`: ``Status``;
- :mod:`~course_utils.checks.kinds`: numbers, letters, and the conversations generated inside checks;
- :mod:`~course_utils.checks.spies`: which library functions a learner's
  function calls, for rules a question states ("without calling trim_messages");
- :mod:`~course_utils.checks.solutions`: the worked solutions, generated from the
  master notebooks by ``scripts/make_student_copies.py``;
- ``ex01`` ... : one module per exercise, imported on demand (``import course_utils.checks``
  imports none of them). ``from course_utils.checks import ex03`` gives the *exercise* (its
  ``questions``, ``q1`` ...); the module ``course_utils.checks.ex03`` holds it as its
  attribute ``ex03`` and answers the exercise's names too (``ex03.q1``), so either works.
  :func:`exercise` ("03") and :func:`exercises` find them by number.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

from course_utils.checks import machinery
from course_utils.checks.machinery import (
    STYLES,
    CheckResult,
    CheckSettings,
    Exercise,
    Note,
    Question,
    describe,
    is_strict,
    set_strict,
    settings,
    solutions_hidden,
)
from course_utils.checks.questions import ChoiceQuestion, CodeQuestion, Kind, Mistake, Rule, Statement, Statements
from course_utils.checks.record import RECORD_ENV, STATUSES, read_records, valid_record, write_record
from course_utils.checks.status import Status

#: Names the package gives from a module it imports only when asked (the exercises and their data).
_LAZY = {
    "EX03_BUDGET": "ex03", "EX03_COSTS": "ex03", "ex03_conversation": "ex03",
    "EX04_CAP": "ex04", "ex04_state_messages": "ex04",
    "random_conversation": "kinds", "random_costs": "kinds",
}

__all__ = [
    "STATUSES",
    "STYLES",
    "ChoiceQuestion",
    "CheckResult",
    "CheckSettings",
    "CodeQuestion",
    "Exercise",
    "Kind",
    "Mistake",
    "Note",
    "Question",
    "RECORD_ENV",
    "Rule",
    "Statement",
    "Statements",
    "Status",
    "describe",
    "exercise",
    "exercises",
    "is_strict",
    "machinery",
    "read_records",
    "set_strict",
    "settings",
    "solutions_hidden",
    "valid_record",
    "write_record",
]


def exercise(number: str) -> Exercise | None:
    """The exercise numbered by two digits ("03" -> ex03), imported now; None when there is none.

    >>> exercise("02").number, exercise("99"), exercise("../x")
    ('02', None, None)
    """
    if not isinstance(number, str) or not re.fullmatch(r"\d\d", number):
        return None
    try:
        module = importlib.import_module(f"{__name__}.ex{number}")
    except ModuleNotFoundError:
        return None
    _exercises_not_modules()
    found = getattr(module, f"ex{number}", None)
    return found if isinstance(found, Exercise) else None


def _exercises_not_modules() -> None:
    """Make each imported exercise module's package attribute its exercise.

    Importing ``course_utils.checks.ex03`` (ex04 does) sets the package's ``ex03`` to the module; the module
    answers the exercise's names too, but ``from course_utils.checks import ex03`` should give the exercise.
    """
    import sys

    for name, module in list(sys.modules.items()):
        short = name.rpartition(".")[2]
        if name.startswith(f"{__name__}.ex") and re.fullmatch(r"ex\d\d", short):
            found = getattr(module, short, None)
            if isinstance(found, Exercise):
                globals()[short] = found


def exercises() -> dict[str, Exercise]:
    """Every exercise module the package has (ex01, ex02, ... whatever is added later), by its two digits."""
    numbers = sorted(info.name[2:] for info in pkgutil.iter_modules(__path__) if re.fullmatch(r"ex\d\d", info.name))
    return {number: found for number in numbers if (found := exercise(number)) is not None}


def __getattr__(name: str):
    """``checks.ex03`` and the exercises' data, imported on first use (PEP 562)."""
    if re.fullmatch(r"ex\d\d", name):
        found = exercise(name[2:])
        if found is not None:
            return found
    elif name in _LAZY:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
