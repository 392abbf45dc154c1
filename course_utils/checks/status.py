"""What a check can say about an answer: one enum, :class:`Status`.

A ``Status`` is a ``str`` too, so a record written as JSON holds its plain
value ("correct") and older code comparing with strings keeps working.

- ``CORRECT``, ``WRONG``: what the check verified exactly (an automatic mark);
- ``NOT_ATTEMPTED``: an answer still ``...``;
- ``ERROR``: the learner's code raised, or a cell that sets an answer did not run;
- ``FOR_TEACHER``: an answer in the learner's own words. The package never
  grades it right or wrong: the teacher reads it in the gradebook's review
  queue, and it is counted apart from the automatic marks.

>>> Status.CORRECT == "correct", Status("for the teacher").name
(True, 'FOR_TEACHER')
"""

from __future__ import annotations

from enum import Enum


class Status(str, Enum):
    """The status of one check result (its value is what records and the gradebook's CSV hold)."""

    CORRECT = "correct"
    NOT_ATTEMPTED = "not attempted"
    WRONG = "wrong"
    ERROR = "error"
    FOR_TEACHER = "for the teacher"

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:  # what a learner sees printed: the plain value, as before statuses were an enum
        return repr(self.value)


#: Every status's value, in order.
STATUSES = tuple(status.value for status in Status)
#: The statuses that are automatic marks (a check decided them); FOR_TEACHER is counted apart.
AUTOMATIC = (Status.CORRECT, Status.WRONG)
