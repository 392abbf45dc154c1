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
environment (or after :func:`set_strict`; ``machinery.STRICT`` is the switch), a result that is not correct raises
``AssertionError`` with the same message, so ``pytest --nbval`` fails on a
master whose solution is wrong. A correct answer displays the same either way.

Inside, one job per module: ``machinery`` (check, hint, solution, results,
strict mode), ``status`` (the :class:`Status` enum), ``questions`` (questions as
data: generated cases, rules, known mistakes, reason statements),
``reason_lists`` (exercises 01-06's statements), ``kinds`` (numbers, letters,
generated conversations), ``cells`` (which answer cells failed),
``spies`` (which library functions a learner's code calls), ``record`` (what
a check leaves for the grader), ``solutions`` (the master's solution lines),
``subagent_decision`` (exercise 07's money question) and one module per
exercise: ``ex01``, ``ex02``, ``ex03``, ``ex04``, ``ex05``, ``ex06``, ``ex07``.

>>> from course_utils.checks import ex02
>>> q1 = ex02.questions[0]
>>> q1.check(...).status
'not attempted'
>>> q1.check(5518).status
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
- ``ex01`` ... : one module per exercise. ``from course_utils.checks import ex03``
  gives the *exercise* (its ``questions``, ``q1`` ...), not the module; the module
  is ``course_utils.checks.ex03`` in ``sys.modules``, and its exercise is also
  its attribute ``ex03``.
"""

from __future__ import annotations

import sys
import types

from course_utils.checks import machinery
from course_utils.checks.ex01 import ex01
from course_utils.checks.ex02 import ex02
from course_utils.checks.ex03 import EX03_BUDGET, EX03_COSTS, ex03, ex03_conversation
from course_utils.checks.ex04 import EX04_CAP, ex04, ex04_state_messages
from course_utils.checks.ex05 import ex05
from course_utils.checks.ex06 import ex06
from course_utils.checks.ex07 import ex07
from course_utils.checks.kinds import random_conversation, random_costs
from course_utils.checks.questions import ChoiceQuestion, CodeQuestion, Kind, Mistake, Rule, Statement, Statements
from course_utils.checks.status import Status
from course_utils.checks.machinery import (
    STYLES,
    CheckResult,
    Exercise,
    Note,
    Question,
    describe,
    is_strict,
    set_strict,
    solutions_hidden,
)
from course_utils.checks.record import RECORD_ENV, STATUSES, read_records, valid_record, write_record

__all__ = [
    "STATUSES",
    "ChoiceQuestion",
    "CodeQuestion",
    "Mistake",
    "Rule",
    "Statement",
    "Statements",
    "STRICT",
    "Status",
    "CheckResult",
    "Exercise",
    "Note",
    "Question",
    "ex01",
    "ex02",
    "ex03",
    "ex04",
    "ex05",
    "ex06",
    "ex07",
    "is_strict",
    "set_strict",
]


class _ChecksPackage(types.ModuleType):
    """``course_utils.checks.STRICT`` reads and sets the one switch in :mod:`.machinery`.

    Tests write ``monkeypatch.setattr(checks, "STRICT", False)`` (tests/conftest.py and the grader's tests);
    without this the assignment would land on the package and the checks would not see it.
    """

    @property
    def STRICT(self) -> bool:  # noqa: N802 - the public name of the switch
        return machinery.STRICT

    @STRICT.setter
    def STRICT(self, on: bool) -> None:  # noqa: N802
        machinery.STRICT = on


sys.modules[__name__].__class__ = _ChecksPackage
