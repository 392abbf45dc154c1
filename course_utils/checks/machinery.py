"""The question machinery: ``check``, ``hint`` and ``solution``, results, and strict mode.

A :class:`Question` wraps a checker ``checker(q, *answers)`` with the three
methods a learner calls; an :class:`Exercise` holds the questions of one
notebook. ``check`` never raises in a learner's notebook; in strict mode (the
tests) a result that is not correct raises AssertionError. Every result is
also written for the grader (see :mod:`course_utils.checks.record`).

What a learner reads speaks the course's language (:mod:`course_utils.core.i18n`):
messages are translated when a check builds them; labels, titles, hints and
the exercise modules' fixed texts, defined when the module is imported, are
looked up when they are shown (``_(self.hints[0])``), so switching to
Persian after the import still shows them in Persian.
"""

from __future__ import annotations

import ast
import inspect
import numbers
import os
import re
import textwrap
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from langchain_core.messages import BaseMessage

from course_utils.checks.cells import FailedCell, failed_answer, install as _install_cell_hook
from course_utils.checks.record import STATUSES, write_record
from course_utils.checks.status import Status
from course_utils.core.i18n import _, direction, get_language, pgettext
from course_utils.core.style import STATUS_COLOURS
from course_utils.pictures.templates import Markup, render_template

_install_cell_hook()  # in a kernel: note which answer cells stopped with an error (see cells.py)


@dataclass
class CheckSettings:
    """The checks' one switch: ``strict``, a result that is not correct raises AssertionError (the tests).

    Read from COURSE_CHECKS_STRICT when the module is imported; change it with :func:`set_strict`, or in a
    test with ``monkeypatch.setattr(checks.settings, "strict", False)``.

    >>> CheckSettings(strict=False).strict
    False
    """

    strict: bool = False


settings = CheckSettings(
    strict=os.environ.get("COURSE_CHECKS_STRICT", "").strip().lower() not in ("", "0", "false", "no"))


def set_strict(on: bool = True) -> None:
    """Switch strict mode on (the tests) or off (a learner's notebook)."""
    if not isinstance(on, bool):
        raise TypeError(f"on must be True or False, got {type(on).__name__}: {on!r}")
    settings.strict = on


def is_strict() -> bool:
    return settings.strict


def solutions_hidden() -> bool:
    """True when a teacher has set COURSE_HIDE_SOLUTIONS=1 (solution() then shows nothing)."""
    return os.environ.get("COURSE_HIDE_SOLUTIONS", "").strip().lower() not in ("", "0", "false", "no")


# --- what a check shows ---------------------------------------------------------------

#: The label a learner sees for each kind of feedback box (translated with the context "check feedback").
LABELS = {
    "correct": "Correct",
    "not attempted": "Not attempted yet",
    "wrong": "Not quite",
    "error": "Your code raised an error",
    "for the teacher": "For the teacher",
    "hint": "Hint",
    "solution": "Solution",
}
#: status -> (label shown, accent colour, background); the colours are the course's one palette.
STYLES = {status: (label, *STATUS_COLOURS[status]) for status, label in LABELS.items()}


def _message_parts(text: str) -> list[tuple[bool, str]]:
    """The message cut at its `code` spans: (is code, text) pieces, which the feedback box shows as code or as text."""
    pieces = re.split(r"`([^`]+)`", text)
    return [(i % 2 == 1, piece) for i, piece in enumerate(pieces) if piece]


#: The HTML attributes of a message in each language the course writes feedback in.
LANGUAGE_ATTRIBUTES = {"en": "", "fa": ' lang="fa" dir="rtl"', "zh": ' lang="zh"'}
_ARABIC_SCRIPT = re.compile("[\u0600-\u06ff]")


def shown_language(text: str) -> str:
    """The language a message is shown in: "fa" when the course speaks Persian and the text is Persian, else "en".

    A message with no Persian translation yet stays English (and left to right) in the Persian edition.
    """
    return "fa" if get_language() == "fa" and _ARABIC_SCRIPT.search(text) else "en"


#: A bracketed Latin list in a message ("['h2', 'a2']", "[at-01, ...]"): no Persian, no isolate, no code span inside.
_LATIN_LIST = re.compile("(?<!\u2066)\\[[^\\[\\]`\n\u0600-\u06ff\u2066-\u2069]*\\]")


def isolate_lists(text: str) -> str:
    """A Persian message with each bracketed Latin list in a left-to-right isolate (outside `code` spans).

    In a right-to-left line the brackets of "['h2', 'a2']" pair with the
    Persian around them and show reversed; isolated, the list reads as
    Python prints it. English messages are never passed here.

    >>> isolate_lists("شما ['h2', 'a2'] را نگه داشتید") == "شما \u2066['h2', 'a2']\u2069 را نگه داشتید"
    True
    """
    return "".join(part if i % 2 else _LATIN_LIST.sub(lambda m: ltr_always(m.group(0)), part)
                   for i, part in enumerate(re.split(r"(`[^`]+`)", text)))


#: Unicode's left-to-right isolate (U+2066); :data:`course_utils.core.i18n.PDI` (U+2069) ends it.
LRI = "\u2066"


def ltr_always(text: str) -> str:
    """``text`` in a left-to-right isolate (U+2066 ... U+2069), whatever the course's language."""
    return f"{LRI}{text}\u2069"


def label_of(kind: str) -> str:
    """The label of a kind of feedback in the course's language: "Correct", "Not quite", ... (see :data:`LABELS`)."""
    return pgettext("check feedback", LABELS[kind])


def _box(kind: str, label: str, text: str, code: str | None = None, lang: str = "en",
         details: str | None = None) -> str:
    _title, accent, background = STYLES[kind]
    title = label_of(kind)
    # The box speaks the course's language (its label); the message its own, marked when it differs.
    box = shown_language(title)
    message = "" if lang == box else LANGUAGE_ATTRIBUTES.get(lang, "") or ' lang="en" dir="ltr"'
    return render_template(
        "feedback_box.html.j2", kind=kind, title=title, accent=accent, background=background, label=label,
        parts=_message_parts(text), lang=Markup(message), details=details, code=code,
        box_lang=Markup(LANGUAGE_ATTRIBUTES[box]), code_dir=Markup(' dir="ltr"' if box == "fa" else ""),
        whole=_("The whole message"),
    )


@dataclass(frozen=True)
class CheckResult:
    """What ``check()`` found: a status in :data:`STATUSES` and a message for the learner."""

    question: str  #: e.g. "q2 (keep the last N tokens)"
    status: str
    message: str
    #: The learner's own words for a "why" answer, kept for the teacher's gradebook (None for other answers).
    answer_text: str | None = field(default=None, compare=False)
    #: The language of ``message``: "en", or "fa" / "zh" for feedback on a reason written in Persian or Chinese.
    #: None: "fa" when the course speaks Persian and the message is Persian (see :func:`shown_language`).
    lang: str | None = field(default=None, compare=False)
    #: The whole of a long text the message quotes shortened (see :func:`quote`), or None.
    details: str | None = field(default=None, compare=False)

    def __post_init__(self):
        if self.lang is None:
            object.__setattr__(self, "lang", shown_language(self.message))
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")
        object.__setattr__(self, "status", Status(self.status))
        if self.lang not in LANGUAGE_ATTRIBUTES:
            raise ValueError(f"lang must be one of {sorted(LANGUAGE_ATTRIBUTES)}, got {self.lang!r}")
        if self.lang == "fa":
            object.__setattr__(self, "message", isolate_lists(self.message))

    @property
    def correct(self) -> bool:
        return self.status == "correct"

    def __bool__(self) -> bool:
        return self.correct

    @property
    def text(self) -> str:
        text = f"[{label_of(self.status).lower()}] {self.question}: {self.message}"
        return f"{text}\n\n{_('The whole message:')}\n{self.details}" if self.details else text

    def __repr__(self) -> str:  # the text/plain that nbval compares: deterministic
        return self.text

    __str__ = __repr__

    def _repr_html_(self) -> str:
        return _box(self.status, self.question, self.message, lang=self.lang, details=self.details)


@dataclass(frozen=True)
class Note:
    """A hint or a solution, shown like a check result."""

    kind: str  #: "hint" or "solution"
    question: str
    message: str
    code: str | None = None

    @property
    def text(self) -> str:
        text = f"[{label_of(self.kind).lower()}] {self.question}: {self.message}"
        return f"{text}\n\n{self.code}" if self.code else text

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__

    def _repr_html_(self) -> str:
        return _box(self.kind, self.question, self.message, self.code, lang=shown_language(self.message))


# --- questions --------------------------------------------------------------------------


class _Stop(Exception):
    """Raised inside a checker to finish with a result (not attempted, error, wrong)."""

    def __init__(self, result: CheckResult):
        super().__init__(result.message)
        self.result = result


def _is_blank(value: Any) -> bool:
    return value is Ellipsis or value is None


def is_stub(fn: Any) -> bool:
    """True when a function's body is only ``...``, ``pass``, a docstring or ``raise NotImplementedError``."""
    try:
        source = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError, IndentationError):
        return False
    if not tree.body or not isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    for statement in tree.body[0].body:
        if isinstance(statement, ast.Pass):
            continue
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            if statement.value.value is Ellipsis or isinstance(statement.value.value, str):
                continue
        if isinstance(statement, ast.Raise) and statement.exc is not None:
            exc = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
            if isinstance(exc, ast.Name) and exc.id == "NotImplementedError":
                continue
        return False
    return True


def learner_line(exc: BaseException) -> str:
    """The last line of the learner's own code in a traceback (not the library's), if any."""
    skip = (os.sep + "site-packages" + os.sep, os.sep + "course_utils" + os.sep, os.sep + "lib" + os.sep + "python")
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not any(s in f.filename for s in skip)]
    if not frames or not frames[-1].line:
        return ""
    return _(" (at `{line}` in {name})").format(line=frames[-1].line.strip(), name=frames[-1].name)


def describe(value: Any, limit: int = 70) -> str:
    """A short, deterministic description of a learner's value for a message."""
    if isinstance(value, BaseMessage):
        return f"{type(value).__name__}(id={value.id!r})"
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, BaseMessage) for v in value):
        return "[" + ", ".join(message_label(v) for v in value) + "]"
    if callable(value) and hasattr(value, "__name__"):
        return _("function {name}").format(name=value.__name__)
    text = repr(value)
    if re.search(r"0x[0-9a-fA-F]{6,}", text):
        text = _("a {type} object").format(type=type(value).__name__)
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: Quoted text longer than this is shortened at a word, with the whole kept in the result's ``details``.
QUOTE_LIMIT = 600


def quote(text: str, limit: int = QUOTE_LIMIT) -> tuple[str, str | None]:
    """``(shown, full)``: ``text`` whole (``full`` None), or cut at a word with "…" and the whole in ``full``.

    Never cuts in the middle of a word or sentence without saying so.

    >>> quote("Please reduce the length of the messages.")
    ('Please reduce the length of the messages.', None)
    >>> quote("one two three four", limit=10)
    ('one two …', 'one two three four')
    """
    text = str(text)
    if len(text) <= limit:
        return text, None
    cut = text[:limit].rsplit(None, 1)[0] if " " in text[:limit] else text[:limit]
    return cut.rstrip(" ,;:") + " …", text


def message_label(message: BaseMessage) -> str:
    """How a message is named in feedback: its id, or its type when it has none."""
    return message.id if message.id else message.type


def message_ids(messages: Sequence[BaseMessage]) -> list[str]:
    """The labels (:func:`message_label`) of a list of messages, in order."""
    return [message_label(m) for m in messages]


def ltr(text: str) -> str:
    """``text`` inside a left-to-right isolate when the course speaks a right-to-left language, else unchanged.

    For Latin pieces of a Persian message that must keep their own order: a
    list of numbers ("0, 1, 2" would read "2 ,1 ,0" in a right-to-left line),
    LangChain's message types.

    >>> ltr("0, 1, 2")
    '0, 1, 2'
    """
    return ltr_always(text) if direction() == "rtl" else text


def short_list(items: Sequence[Any], limit: int = 8) -> str:
    """A list for a message: the first ``limit`` items, then how many there are in all.

    In a right-to-left language the bracketed list keeps left to right
    (:func:`ltr`: brackets and all, or they would pair wrongly) and the count
    is said in the language, after it: a translation writes ``{listed}``, the
    list already in its brackets, where English writes ``[{shown}, ...``.

    >>> short_list(range(10), 3)
    '[0, 1, 2, ... (10 in all)]'
    """
    items = list(items)
    shown = ", ".join(str(i) for i in items[:limit])
    if len(items) > limit:
        return _("[{shown}, ... ({count} in all)]").format(shown=shown, listed=ltr(f"[{shown}, ...]"),
                                                           count=len(items))
    return ltr(f"[{shown}]")


#: What ``inspect.Signature.bind`` says when a learner calls ``check`` with the wrong answers, in the course's
#: language (the English is Python's own words).
_BINDING_PROBLEMS = (
    (r"missing a required argument: (.+)", "missing a required argument: {name}"),
    (r"too many positional arguments", "too many positional arguments"),
    (r"multiple values for argument (.+)", "multiple values for argument {name}"),
    (r"got an unexpected keyword argument (.+)", "got an unexpected keyword argument {name}"),
)


def binding_problem(exc: TypeError) -> str:
    """Python's reason a call did not fit ``check``'s answers, in the course's language (else as Python says it).

    >>> binding_problem(TypeError("missing a required argument: 'why'"))
    "missing a required argument: 'why'"
    """
    text = str(exc)
    for pattern, message in _BINDING_PROBLEMS:
        match = re.fullmatch(pattern, text)
        if match:
            return _(message).format(name=match.group(1) if match.groups() else "")
    return text


class Question:
    """One question: ``check``, ``hint`` and ``solution``.

    ``checker(q, *answers)`` inspects the learner's answers and returns a
    :class:`CheckResult` made with ``q.correct`` / ``q.wrong`` (or stops early
    through ``q.call`` / ``q.need``). Whatever it does, ``check`` turns it into
    a result; only strict mode turns a result that is not correct into an
    AssertionError.
    """

    def __init__(
        self,
        exercise: str,
        number: int,
        title: str,
        usage: str,
        checker: Callable[..., CheckResult],
        hints: Sequence[str],
        explanation: str = "",
    ):
        self.exercise = exercise
        self.number = number
        self.title = title
        self.usage = usage  #: how the notebook calls it, e.g. "q1.check(total_sent)"
        self._checker = checker
        self.hints = tuple(hints)
        self.explanation = explanation
        self._signature = inspect.signature(checker)
        self._answer_text: str | None = None

    @property
    def answer_names(self) -> list[str]:
        """The names the notebook passes to ``check``, read from ``usage``: "q4.check(choice, why)" -> choice, why."""
        match = re.search(r"\((.*)\)", self.usage)
        if not match:
            return []
        return [part.strip() for part in match.group(1).split(",") if part.strip().isidentifier()]

    @property
    def solution_code(self) -> str | None:
        """The master's solution lines for this question (see :mod:`course_utils.checks.solutions`), or None."""
        from course_utils.checks.solutions import solution

        return solution(self.exercise, self.number)

    @property
    def label(self) -> str:
        return f"q{self.number} ({_(self.title)})"

    def __repr__(self) -> str:
        return f"<exercise {self.exercise}, {self.label}: {self.usage}, .hint(), .solution()>"

    # -- results a checker builds ------------------------------------------------------

    def correct(self, message: str) -> CheckResult:
        return CheckResult(self.label, "correct", message)

    def wrong(self, message: str, lang: str | None = None, details: str | None = None) -> CheckResult:
        return CheckResult(self.label, "wrong", message, lang=lang, details=details)

    def not_attempted(self, message: str | None = None) -> CheckResult:
        return CheckResult(
            self.label,
            "not attempted",
            message or _("replace each `...` with your answer, then run `{usage}` again.").format(usage=self.usage),
        )

    def error(self, message: str) -> CheckResult:
        return CheckResult(self.label, "error", message)

    def for_teacher(self, message: str, lang: str | None = None) -> CheckResult:
        """An answer in the learner's own words: the package never marks it; the teacher does (never "correct")."""
        return CheckResult(self.label, Status.FOR_TEACHER, message, lang=lang)

    # -- helpers that stop the check early ----------------------------------------------

    def stop(self, result: CheckResult):
        raise _Stop(result)

    def note_answer_text(self, text: str) -> None:
        """Keep a written answer ("why") with this check's result, for the teacher's gradebook."""
        self._answer_text = text

    def need(self, value: Any, name: str) -> Any:
        """Stop with 'not attempted' when ``value`` is still ``...`` (or None)."""
        if _is_blank(value):
            self.stop(self.not_attempted(_("`{name}` is still `{value}`: fill it in, then run `{usage}` again.").format(
                name=name, value="..." if value is Ellipsis else value, usage=self.usage)))
        return value

    def need_function(self, fn: Any, name: str) -> Callable:
        """Stop unless ``fn`` is a function the learner has written."""
        self.need(fn, name)
        if not callable(fn):
            self.stop(self.wrong(_("`{name}` should be a function, but it is {value}.").format(
                name=name, value=describe(fn))))
        if is_stub(fn):
            self.stop(self.not_attempted(_("the body of `{name}` is still `...`: write it, then run `{usage}` again.")
                                         .format(name=getattr(fn, "__name__", name), usage=self.usage)))
        return fn

    def call(self, fn: Callable, *args: Any, about: str = "",
             explain: Callable[[BaseException, str], str | None] | None = None, **kwargs: Any) -> Any:
        """Call the learner's function; an exception becomes an 'error' result that explains it.

        ``explain(exc, about)`` may return a message naming the mistake behind a
        known exception (it replaces the generic "raised ..." text), or None.
        """
        name = getattr(fn, "__name__", "your function")
        try:
            value = fn(*args, **kwargs)
        except NotImplementedError:
            self.stop(self.not_attempted(_("`{name}` still raises NotImplementedError: write its body.").format(
                name=name)))
        except _Stop:
            raise
        except Exception as exc:  # noqa: BLE001 - the learner's code may raise anything
            where = _(" when called with {about}").format(about=about) if about else ""
            specific = explain(exc, about) if explain else None
            if specific:
                self.stop(self.error(specific))
            self.stop(self.error(_("`{name}` raised {error}: {exc}{where}{line}.").format(
                name=name, error=type(exc).__name__, exc=ltr(str(exc)), where=where, line=learner_line(exc))))
        if value is Ellipsis:
            self.stop(self.not_attempted(_("`{name}` returned `...`: write its body.").format(name=name)))
        return value

    def as_int(self, value: Any, name: str) -> int:
        """A whole number, or stop with 'wrong' saying what was given instead."""
        self.need(value, name)
        if isinstance(value, bool):
            self.stop(self.wrong(_("`{name}` should be a number of tokens, not {value}.").format(name=name, value=repr(value))))
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, numbers.Integral):  # int, numpy integers, ...
            return int(value)
        self.stop(self.wrong(_("`{name}` should be a whole number of tokens, got {value}.").format(
            name=name, value=describe(value))))

    # -- what the learner calls -----------------------------------------------------------

    def check(self, *args: Any, **kwargs: Any) -> CheckResult:
        """Check the answer; never raises unless strict mode is on.

        When the cell that sets one of the answer's names stopped with an
        error, the name still holds an older value: the check says the cell
        did not run instead of grading that value (see :mod:`course_utils.checks.cells`).
        """
        self._answer_text = None
        failed = failed_answer(self.answer_names)
        try:
            self._signature.bind(None, *args, **kwargs)
        except TypeError as exc:
            result = self.error(_("call it as `{usage}` ({exc}).").format(usage=self.usage, exc=binding_problem(exc)))
        else:
            result = self.did_not_run(failed) if failed is not None else self._run_checker(args, kwargs)
        write_record(self, result)
        if settings.strict and not result.correct:
            raise AssertionError(result.text)
        return result

    def did_not_run(self, failed: FailedCell) -> CheckResult:
        """The result when the cell that sets the answer stopped with an error (shared with the grader's cells)."""
        run = f" [{failed.execution_count}]" if failed.execution_count is not None else ""
        return self.error(_(
            "the cell{run} that sets `{name}` did not run to the end: it stopped with {error}. "
            "Fix that cell and run it again, then run `{usage}`. Until then `{name}` still holds "
            "an older value, and the check will not grade it."
        ).format(run=run, name=failed.name, error=failed.error, usage=self.usage))

    def _run_checker(self, args: tuple, kwargs: dict) -> CheckResult:
        try:
            result = self._checker(self, *args, **kwargs)
        except _Stop as stop:
            result = stop.result
        except Exception as exc:  # noqa: BLE001 - a check must not crash the notebook
            result = self.error(_("the check could not use your answer: {error}: {exc}{line}.").format(
                error=type(exc).__name__, exc=ltr(str(exc)), line=learner_line(exc)))
        if not isinstance(result, CheckResult):  # pragma: no cover - a checker bug
            result = self.error(_("the check returned {value} instead of a result.").format(value=describe(result)))
        if self._answer_text is not None and result.answer_text is None:
            result = replace(result, answer_text=self._answer_text)
        return result

    def hint(self, level: int = 1) -> Note:
        """A hint; ``hint(2)``, ``hint(3)`` ... give bigger ones."""
        if isinstance(level, bool) or not isinstance(level, int) or level < 1:
            return Note("hint", self.label, _("level must be 1, 2, ... (there are {count} hints).").format(
                count=len(self.hints)))
        level = min(level, len(self.hints))
        more = _(" (hint {level} of {count}; `hint({next})` for more)").format(
            level=level, count=len(self.hints), next=level + 1) if level < len(self.hints) else ""
        return Note("hint", self.label, _(self.hints[level - 1]) + more)

    def solution(self) -> Note:
        """A worked solution (or a note that the teacher has hidden the solutions)."""
        if solutions_hidden():
            return Note("solution", self.label, _("Solutions are switched off for this class (COURSE_HIDE_SOLUTIONS)."))
        code = self.solution_code
        if code is None:
            return Note("solution", self.label, _("No worked solution is recorded for this question: its master has "
                                                  "none, or scripts/make_student_copies.py has not been run."))
        return Note("solution", self.label, _(self.explanation) if self.explanation else _("The master's solution:"),
                    code)


class Exercise:
    """The questions of one exercise notebook: ``ex01.questions`` or ``ex01.q1``."""

    def __init__(self, number: str, title: str, lesson: str):
        self.number = number
        self.title = title
        self.lesson = lesson  #: the lesson notebook's name, e.g. "01_measuring_growth"
        self._questions: list[Question] = []

    @property
    def questions(self) -> tuple[Question, ...]:
        return tuple(self._questions)

    def __getattr__(self, name: str) -> Question:
        match = re.fullmatch(r"q(\d+)", name)
        if match and 1 <= int(match.group(1)) <= len(self._questions):
            return self._questions[int(match.group(1)) - 1]
        raise AttributeError(name)

    def question(self, title: str, usage: str, hints: Sequence[str], explanation: str = "", **unknown: Any):
        """Decorator: register ``checker(q, *answers)`` as the next question.

        The worked solution is not given here: ``qN.solution()`` shows the
        master notebook's (see :mod:`course_utils.checks.solutions`).
        """
        if unknown:
            raise TypeError(f"unexpected arguments {sorted(unknown)}: a question's solution lives in its master "
                            f"notebook (exercises/solutions/), from which scripts/make_student_copies.py writes "
                            f"course_utils/checks/master_solutions/; hints and titles stay here")

        def register(checker: Callable[..., CheckResult]) -> Question:
            q = Question(self.number, len(self._questions) + 1, title, usage, checker, hints, explanation)
            self._questions.append(q)
            return q

        return register

    def __repr__(self) -> str:
        return f"<exercise {self.number}: {self.title}, {len(self._questions)} questions>"
