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
- ``q1.solution()`` shows a worked solution (a teacher can switch this off
  with the environment variable ``COURSE_HIDE_SOLUTIONS=1``).

Where the answer is a function, the check calls it on several inputs, among
them conversations generated inside the check (seeded, so the feedback is
the same on every run), and compares with the real library (``trim_messages``,
``replay_growth``, ``history_budget``): a hard-coded constant cannot pass.
Known wrong answers (off by one, newest-first order, the other strategy,
a mutated state, ...) are recognised and named.

**Strict mode** is for the tests: with ``COURSE_CHECKS_STRICT=1`` in the
environment (or after :func:`set_strict`), a result that is not correct raises
``AssertionError`` with the same message, so ``pytest --nbval`` fails on a
master whose solution is wrong. A correct answer displays the same either way.

>>> from course_utils.checks import ex02
>>> q1 = ex02.questions[0]
>>> q1.check(...).status
'not attempted'
>>> q1.check(5518).status
'correct'
"""

from __future__ import annotations

import ast
import html
import inspect
import json
import numbers
import os
import random
import re
import textwrap
import traceback
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
    trim_messages,
)
from langchain_core.messages.utils import count_tokens_approximately

from course_utils.sequences import orphaned_tool_messages, safe_trim_kwargs
from course_utils.style import FONT, MONO
from course_utils.trimming import table_token_counter

__all__ = [
    "STATUSES",
    "STRICT",
    "CheckResult",
    "Exercise",
    "Note",
    "Question",
    "ex01",
    "ex02",
    "ex03",
    "ex04",
    "ex05",
    "is_strict",
    "set_strict",
]

STATUSES = ("correct", "not attempted", "wrong", "error")

#: Strict mode: a result that is not correct raises AssertionError. Read from
#: COURSE_CHECKS_STRICT when the module is imported; change with set_strict().
STRICT = os.environ.get("COURSE_CHECKS_STRICT", "").strip().lower() not in ("", "0", "false", "no")


def set_strict(on: bool = True) -> None:
    """Switch strict mode on (the tests) or off (a learner's notebook)."""
    global STRICT
    if not isinstance(on, bool):
        raise TypeError(f"on must be True or False, got {type(on).__name__}: {on!r}")
    STRICT = on


def is_strict() -> bool:
    return STRICT


def solutions_hidden() -> bool:
    """True when a teacher has set COURSE_HIDE_SOLUTIONS=1 (solution() then shows nothing)."""
    return os.environ.get("COURSE_HIDE_SOLUTIONS", "").strip().lower() not in ("", "0", "false", "no")


# --- what a check shows ---------------------------------------------------------------

#: status -> (label shown, accent colour, background)
STYLES = {
    "correct": ("Correct", "#2e7d32", "#e7f5ea"),
    "not attempted": ("Not attempted yet", "#455a64", "#eceff1"),
    "wrong": ("Not quite", "#a15c00", "#fff4de"),
    "error": ("Your code raised an error", "#c62828", "#fdecea"),
    "hint": ("Hint", "#1565c0", "#e3f2fd"),
    "solution": ("Solution", "#6a1b9a", "#f3e5f5"),
}


def _message_html(text: str) -> str:
    """Escape, then show `code` as code and keep line breaks."""
    escaped = html.escape(text)
    escaped = re.sub(r"`([^`]+)`", rf'<code style="{MONO};background:rgba(0,0,0,.06);padding:0 3px">\1</code>', escaped)
    return escaped.replace("\n", "<br>")


def _box(kind: str, label: str, text: str, code: str | None = None) -> str:
    title, accent, background = STYLES[kind]
    code_html = (
        f'<pre style="{MONO};margin:6px 0 0;padding:6px;background:#fff;border:1px solid #ddd;'
        f'white-space:pre-wrap">{html.escape(code)}</pre>'
        if code
        else ""
    )
    return (
        f'<div class="course-check" data-status="{html.escape(kind)}" style="{FONT};border:1px solid {accent};'
        f"border-left:6px solid {accent};background:{background};padding:6px 10px;border-radius:3px;"
        f'margin:2px 0;color:#212121">'
        f'<strong style="color:{accent}">{title}</strong> '
        f'<span style="color:#616161">{html.escape(label)}</span>'
        f'<div style="margin-top:3px">{_message_html(text)}</div>{code_html}</div>'
    )


@dataclass(frozen=True)
class CheckResult:
    """What ``check()`` found: a status in :data:`STATUSES` and a message for the learner."""

    question: str  #: e.g. "q2 (keep the last N tokens)"
    status: str
    message: str

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")

    @property
    def correct(self) -> bool:
        return self.status == "correct"

    def __bool__(self) -> bool:
        return self.correct

    @property
    def text(self) -> str:
        return f"[{STYLES[self.status][0].lower()}] {self.question}: {self.message}"

    def __repr__(self) -> str:  # the text/plain that nbval compares: deterministic
        return self.text

    __str__ = __repr__

    def _repr_html_(self) -> str:
        return _box(self.status, self.question, self.message)


@dataclass(frozen=True)
class Note:
    """A hint or a solution, shown like a check result."""

    kind: str  #: "hint" or "solution"
    question: str
    message: str
    code: str | None = None

    @property
    def text(self) -> str:
        text = f"[{self.kind}] {self.question}: {self.message}"
        return f"{text}\n\n{self.code}" if self.code else text

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__

    def _repr_html_(self) -> str:
        return _box(self.kind, self.question, self.message, self.code)


# --- questions --------------------------------------------------------------------------


class _Stop(Exception):
    """Raised inside a checker to finish with a result (not attempted, error, wrong)."""

    def __init__(self, result: CheckResult):
        super().__init__(result.message)
        self.result = result


def _is_blank(value: Any) -> bool:
    return value is Ellipsis or value is None


def _is_stub(fn: Any) -> bool:
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


def _learner_line(exc: BaseException) -> str:
    """The last line of the learner's own code in a traceback (not the library's), if any."""
    skip = (os.sep + "site-packages" + os.sep, os.sep + "course_utils" + os.sep, os.sep + "lib" + os.sep + "python")
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not any(s in f.filename for s in skip)]
    if not frames or not frames[-1].line:
        return ""
    return f" (at `{frames[-1].line.strip()}` in {frames[-1].name})"


def describe(value: Any, limit: int = 70) -> str:
    """A short, deterministic description of a learner's value for a message."""
    if isinstance(value, BaseMessage):
        return f"{type(value).__name__}(id={value.id!r})"
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, BaseMessage) for v in value):
        return "[" + ", ".join(_label(v) for v in value) + "]"
    if callable(value) and hasattr(value, "__name__"):
        return f"function {value.__name__}"
    text = repr(value)
    if re.search(r"0x[0-9a-fA-F]{6,}", text):
        text = f"a {type(value).__name__} object"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _label(message: BaseMessage) -> str:
    return message.id if message.id else message.type


def _ids(messages: Sequence[BaseMessage]) -> list[str]:
    return [_label(m) for m in messages]


def _short_list(items: Sequence[Any], limit: int = 8) -> str:
    items = list(items)
    shown = ", ".join(str(i) for i in items[:limit])
    return f"[{shown}, ... ({len(items)} in all)]" if len(items) > limit else f"[{shown}]"


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
        solution: str,
        explanation: str = "",
    ):
        self.exercise = exercise
        self.number = number
        self.title = title
        self.usage = usage  #: how the notebook calls it, e.g. "q1.check(total_sent)"
        self._checker = checker
        self.hints = tuple(hints)
        self.solution_code = textwrap.dedent(solution).strip("\n")
        self.explanation = explanation
        self._signature = inspect.signature(checker)

    @property
    def label(self) -> str:
        return f"q{self.number} ({self.title})"

    def __repr__(self) -> str:
        return f"<exercise {self.exercise}, {self.label}: {self.usage}, .hint(), .solution()>"

    # -- results a checker builds ------------------------------------------------------

    def correct(self, message: str) -> CheckResult:
        return CheckResult(self.label, "correct", message)

    def wrong(self, message: str) -> CheckResult:
        return CheckResult(self.label, "wrong", message)

    def not_attempted(self, message: str | None = None) -> CheckResult:
        return CheckResult(
            self.label,
            "not attempted",
            message or f"replace each `...` with your answer, then run `{self.usage}` again.",
        )

    def error(self, message: str) -> CheckResult:
        return CheckResult(self.label, "error", message)

    # -- helpers that stop the check early ----------------------------------------------

    def stop(self, result: CheckResult):
        raise _Stop(result)

    def need(self, value: Any, name: str) -> Any:
        """Stop with 'not attempted' when ``value`` is still ``...`` (or None)."""
        if _is_blank(value):
            self.stop(self.not_attempted(f"`{name}` is still `{'...' if value is Ellipsis else value}`: "
                                         f"fill it in, then run `{self.usage}` again."))
        return value

    def need_function(self, fn: Any, name: str) -> Callable:
        """Stop unless ``fn`` is a function the learner has written."""
        self.need(fn, name)
        if not callable(fn):
            self.stop(self.wrong(f"`{name}` should be a function, but it is {describe(fn)}."))
        if _is_stub(fn):
            self.stop(self.not_attempted(f"the body of `{getattr(fn, '__name__', name)}` is still `...`: "
                                         f"write it, then run `{self.usage}` again."))
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
            self.stop(self.not_attempted(f"`{name}` still raises NotImplementedError: write its body."))
        except _Stop:
            raise
        except Exception as exc:  # noqa: BLE001 - the learner's code may raise anything
            where = f" when called with {about}" if about else ""
            specific = explain(exc, about) if explain else None
            if specific:
                self.stop(self.error(specific))
            self.stop(self.error(f"`{name}` raised {type(exc).__name__}: {exc}{where}{_learner_line(exc)}."))
        if value is Ellipsis:
            self.stop(self.not_attempted(f"`{name}` returned `...`: write its body."))
        return value

    def as_int(self, value: Any, name: str) -> int:
        """A whole number, or stop with 'wrong' saying what was given instead."""
        self.need(value, name)
        if isinstance(value, bool):
            self.stop(self.wrong(f"`{name}` should be a number of tokens, not {value!r}."))
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, numbers.Integral):  # int, numpy integers, ...
            return int(value)
        self.stop(self.wrong(f"`{name}` should be a whole number of tokens, got {describe(value)}."))

    # -- what the learner calls -----------------------------------------------------------

    def check(self, *args: Any, **kwargs: Any) -> CheckResult:
        """Check the answer; never raises unless strict mode is on."""
        try:
            self._signature.bind(None, *args, **kwargs)
        except TypeError as exc:
            result = self.error(f"call it as `{self.usage}` ({exc}).")
        else:
            try:
                result = self._checker(self, *args, **kwargs)
            except _Stop as stop:
                result = stop.result
            except Exception as exc:  # noqa: BLE001 - a check must not crash the notebook
                result = self.error(
                    f"the check could not use your answer: {type(exc).__name__}: {exc}{_learner_line(exc)}."
                )
            if not isinstance(result, CheckResult):  # pragma: no cover - a checker bug
                result = self.error(f"the check returned {describe(result)} instead of a result.")
        _record(self, result)
        if STRICT and not result.correct:
            raise AssertionError(result.text)
        return result

    def hint(self, level: int = 1) -> Note:
        """A hint; ``hint(2)``, ``hint(3)`` ... give bigger ones."""
        if isinstance(level, bool) or not isinstance(level, int) or level < 1:
            return Note("hint", self.label, f"level must be 1, 2, ... (there are {len(self.hints)} hints).")
        level = min(level, len(self.hints))
        more = f" (hint {level} of {len(self.hints)}; `hint({level + 1})` for more)" if level < len(self.hints) else ""
        return Note("hint", self.label, self.hints[level - 1] + more)

    def solution(self) -> Note:
        """A worked solution (or a note that the teacher has hidden the solutions)."""
        if solutions_hidden():
            return Note("solution", self.label, "Solutions are switched off for this class (COURSE_HIDE_SOLUTIONS).")
        return Note("solution", self.label, self.explanation or "One way to do it:", self.solution_code)


#: The grader (``python -m course_utils.grade``) names a file here; every check then appends one
#: JSON line to it. Unset in a learner's notebook, where nothing is written.
RECORD_ENV = "COURSE_CHECKS_RECORD"


def _record(question: Question, result: CheckResult) -> None:
    """Append a machine-readable copy of ``result`` to the file named by COURSE_CHECKS_RECORD, if set.

    Only the grader sets the variable. The displayed result is unchanged, and
    a record that cannot be written is skipped: a check never fails because of it.
    """
    path = os.environ.get(RECORD_ENV)
    if not path:
        return
    try:  # ASCII with escapes: a message holding a lone surrogate ("\udcff") is still written
        line = json.dumps({"exercise": question.exercise, "question": question.number, "title": question.title,
                           "status": result.status, "message": result.message}, ensure_ascii=True)
        with open(path, "a", encoding="utf-8") as file:
            file.write(line + "\n")
    except (OSError, ValueError, TypeError):
        pass


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

    def question(self, title: str, usage: str, hints: Sequence[str], solution: str, explanation: str = ""):
        """Decorator: register ``checker(q, *answers)`` as the next question."""

        def register(checker: Callable[..., CheckResult]) -> Question:
            q = Question(self.number, len(self._questions) + 1, title, usage, checker, hints, solution, explanation)
            self._questions.append(q)
            return q

        return register

    def __repr__(self) -> str:
        return f"<exercise {self.number}: {self.title}, {len(self._questions)} questions>"


# --- shared question kinds -----------------------------------------------------------------


def _check_number(q: Question, value: Any, name: str, expected: int, known: Mapping[int, str], general: str,
                  praise: str) -> CheckResult:
    """A number answer: correct, a known mistake with its hint, or a general nudge."""
    value = q.as_int(value, name)
    if value == expected:
        return q.correct(praise)
    if value in known:
        return q.wrong(f"{value} is not it: {known[value]}")
    return q.wrong(f"{value} is not it. {general}")


def _letter(value: Any) -> str | None:
    if isinstance(value, str):
        match = re.fullmatch(r"\s*\(?([A-Za-z])[).]?\s*", value)
        if match:
            return match.group(1).lower()
    return None


#: A written reason ("why") needs at least this many words ...
REASON_WORDS = 3
#: ... or, in a script written without spaces between words (Chinese, Japanese, Thai, ...), this many characters.
REASON_UNSPACED_CHARS = 6
_UNSPACED = re.compile("[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def is_reason(why: Any) -> bool:
    """True when ``why`` is a sentence, not a word: the one rule for every "say why" answer.

    >>> is_reason("because"), is_reason("because it grows"), is_reason("截断保留最新的消息")
    (False, True, True)
    """
    if not isinstance(why, str):
        return False
    return len(why.split()) >= REASON_WORDS or len(_UNSPACED.findall(why)) >= REASON_UNSPACED_CHARS


def _need_reason(q: Question, why: Any, name: str = "why") -> str:
    """Stop unless ``why`` is a written reason (see :func:`is_reason`)."""
    q.need(why, name)
    if not isinstance(why, str):
        q.stop(q.wrong(f"`{name}` should be your reason as a string (a sentence in quotes), got {describe(why)}."))
    if not is_reason(why):
        short = f"{describe(why.strip())} is too short: " if why.strip() else ""
        q.stop(q.not_attempted(f"{short}write your reason in `{name}` as a sentence of at least {REASON_WORDS} "
                               f"words, then check again."))
    return why


def _check_choice(q: Question, choice: Any, why: Any, options: Mapping[str, str], answer: str,
                  feedback: Mapping[str, str], keywords: Sequence[str], praise: str) -> CheckResult:
    """Multiple choice with a one-sentence justification (in any language)."""
    q.need(choice, "choice")
    letter = _letter(choice)
    if letter not in options:
        return q.wrong(f"`choice` should be one of the letters {', '.join(repr(k) for k in options)}, "
                       f"got {describe(choice)}.")
    _need_reason(q, why)
    if letter != answer:
        return q.wrong(f"({letter}) is not it: {feedback[letter]}")
    lowered = why.lower()
    if keywords and not any(k in lowered for k in keywords):
        praise += (" Your reason does not use the words this lesson would (" + ", ".join(keywords[:3])
                   + "): compare it with `solution()`.")
    return q.correct(praise)


# --- conversations generated inside the checks ------------------------------------------------

WORDS = (
    "trip plan weather budget museum train ticket hotel river market lunch dinner garden book music "
    "bike run swim coffee morning evening city map photo friend family recipe rice tea bread walk "
    "question answer note detail price time route station beach park kitchen window cat dog song"
).split()
TOOL_NAMES = ("get_weather", "web_search", "currency_convert")


def _text(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high))).capitalize() + "."


def random_conversation(seed: int, turns: int = 6, *, system: bool = True, tools: bool = True,
                        end_with_ai: bool = True) -> list[BaseMessage]:
    """A seeded conversation with unique ids: system, human, AI (some calling tools), tool answers.

    With ``end_with_ai=False`` the last message is a human question, as the
    state is when a chatbot node runs.
    """
    rng = random.Random(seed)
    messages: list[BaseMessage] = []
    n = 0

    def next_id(kind: str) -> str:
        nonlocal n
        n += 1
        return f"r{seed}-{n:02d}-{kind}"

    if system:
        messages.append(SystemMessage(_text(rng, 6, 25), id=next_id("system")))
    for turn in range(turns):
        messages.append(HumanMessage(_text(rng, 3, 30), id=next_id("human")))
        if not end_with_ai and turn == turns - 1:
            break
        if tools and rng.random() < 0.45:
            calls = [
                {"name": rng.choice(TOOL_NAMES), "args": {"query": rng.choice(WORDS)}, "id": f"call-{seed}-{n}-{k}",
                 "type": "tool_call"}
                for k in range(rng.choice((1, 1, 2)))
            ]
            messages.append(AIMessage(rng.choice(("", "Let me look that up.")), tool_calls=calls, id=next_id("ai")))
            for call in calls:
                messages.append(ToolMessage(_text(rng, 10, 60), tool_call_id=call["id"], id=next_id("tool")))
        messages.append(AIMessage(_text(rng, 4, 50), id=next_id("ai")))
    return messages


def random_costs(messages: Sequence[BaseMessage], seed: int, low: int = 5, high: int = 90) -> dict[str, int]:
    rng = random.Random(seed)
    return {m.id: rng.randint(low, high) for m in messages}


def _snapshot(messages: Sequence[BaseMessage]) -> list[tuple]:
    return [(m.id, m.type, repr(m.content), getattr(m, "tool_calls", None)) for m in messages]


def _same_messages(got: Sequence[BaseMessage], expected: Sequence[BaseMessage]) -> bool:
    return len(got) == len(expected) and all(
        isinstance(g, BaseMessage) and g.id == e.id and g.type == e.type and g.content == e.content
        for g, e in zip(got, expected)
    )


def _check_message_list(q: Question, value: Any, name: str) -> list[BaseMessage]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        q.stop(q.wrong(f"`{name}` should return a list of messages, but it returned {describe(value)}."))
    for i, item in enumerate(value):
        if not isinstance(item, BaseMessage):
            q.stop(q.wrong(f"`{name}` should return a list of messages, but item [{i}] is {describe(item)}."))
    return list(value)


def _counts_of(messages: Sequence[BaseMessage]) -> str:
    kinds = Counter(m.type for m in messages)  # in order of first appearance
    return f"{len(messages)} messages (" + ", ".join(f"{v} {k}" for k, v in kinds.items()) + ")"


# ==========================================================================================
# Exercise 01: measuring growth
# ==========================================================================================

ex01 = Exercise("01", "Measuring growth", "01_measuring_growth")

EX01_TURNS, EX01_QUESTION, EX01_ANSWER = 10, 40, 60


@ex01.question(
    "cumulative tokens sent",
    "q1.check(total_sent)",
    hints=(
        "Call k is sent everything before its reply: the k - 1 earlier turns (question + answer) "
        "and the new question.",
        "Call 1 sends 40. Call 2 sends 40 + 60 (turn 1) + 40 (the new question) = 140. "
        "Call 3 sends 240. Add up calls 1 to 10.",
    ),
    solution="""
    total_sent = sum((k - 1) * (40 + 60) + 40 for k in range(1, 11))   # 4900
    """,
    explanation="Call k sends (k - 1) full turns of 100 tokens plus the new 40-token question:",
)
def _ex01_q1(q, total_sent):
    turn = EX01_QUESTION + EX01_ANSWER
    per_call = [(k - 1) * turn + EX01_QUESTION for k in range(1, EX01_TURNS + 1)]
    expected = sum(per_call)  # 4900
    known = {
        sum(k * turn for k in range(1, EX01_TURNS + 1)): "you counted each call's own answer as sent. A call is "
        "sent what comes *before* its reply; the reply is what comes back.",
        per_call[-1]: "that is what the 10th call alone sends. The question asks for the total over all 10 calls.",
        EX01_TURNS * turn: "that is the size of the history after 10 turns, sent once. Every call sends the "
        "history again, so the total is much larger.",
        sum((k - 1) * turn for k in range(1, EX01_TURNS + 1)): "you left out the new 40-token question that "
        "every call sends along with the history.",
        EX01_TURNS * EX01_QUESTION: "you counted only the new questions; each call also re-sends the history.",
        sum((k - 1) * turn + EX01_QUESTION for k in range(1, EX01_TURNS)): "off by one: that is the total after "
        "9 calls. Count calls 1 to 10.",
        sum((k - 1) * turn + EX01_QUESTION for k in range(1, EX01_TURNS + 2)): "off by one: that is the total "
        "after 11 calls. Count calls 1 to 10.",
        -expected: "a number of tokens cannot be negative.",
    }
    return _check_number(
        q, total_sent, "total_sent", expected, known,
        "Work out calls 1, 2 and 3 by hand (40, 140, 240) and look for the pattern.",
        f"{expected} tokens. The calls send 40, 140, 240, ... 940: the history is paid for again on every "
        f"call, so the total grows with the square of the number of calls.",
    )


def _ex01_reference(messages, counter):
    from course_utils.growth import replay_growth

    return replay_growth(messages, counter).column("cumulative_sent_tokens")


def _ex01_cases():
    from course_utils.samples import load_conversation
    from course_utils.tokens import dummy_token_counter

    cases = [
        ("the Bob dialogue with the dummy counter", load_conversation("bob"), dummy_token_counter),
        ("the agent_tools conversation with the approximate counter", load_conversation("agent_tools"),
         count_tokens_approximately),
    ]
    for seed in (11, 12, 13):
        messages = random_conversation(seed, turns=5 + seed % 3, system=seed % 2 == 1)
        counter = table_token_counter(random_costs(messages, seed))
        cases.append((f"a generated conversation of {_counts_of(messages)} with random costs", messages, counter))
    return cases


@ex01.question(
    "cumulative_sent(messages, token_counter)",
    "q2.check(cumulative_sent)",
    hints=(
        "A model call happens at every AIMessage (an agent makes several in a row). Find their positions with "
        "`[i for i, m in enumerate(messages) if isinstance(m, AIMessage)]`.",
        "Call i is sent `messages[:i]`, everything before that AIMessage. Count it with "
        "`token_counter(messages[:i])` and keep a running total.",
    ),
    solution="""
    def cumulative_sent(messages, token_counter):
        totals, total = [], 0
        for i, message in enumerate(messages):
            if isinstance(message, AIMessage):        # one model call per AIMessage
                total += token_counter(messages[:i])  # it was sent everything before it
                totals.append(total)
        return totals
    """,
)
def _ex01_q2(q, cumulative_sent):
    fn = q.need_function(cumulative_sent, "cumulative_sent")
    for what, messages, counter in _ex01_cases():
        given = list(messages)
        got = q.call(fn, given, counter, about=what)
        if _snapshot(given) != _snapshot(messages):
            return q.wrong(f"for {what} your function changed the list it was given. Measure without "
                           f"changing the conversation.")
        expected = _ex01_reference(messages, counter)
        if isinstance(got, (str, bytes)) or not isinstance(got, Sequence):
            return q.wrong(f"return a list with one running total per model call; for {what} you returned "
                           f"{describe(got)}.")
        got = list(got)
        if got == expected:
            continue
        ai = [i for i, m in enumerate(messages) if isinstance(m, AIMessage)]
        humans = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
        per_call = [counter(messages[:i]) for i in ai]
        diagnoses = [
            (list(accumulate(counter(messages[: i + 1]) for i in ai)),
             "you included each reply in what its call was sent. A call is sent `messages[:i]`, what comes "
             "before the AIMessage at position i."),
            (per_call, "these are the tokens of each call on its own; the question asks for the running total."),
            (list(accumulate(counter(messages[: i + 1]) for i in humans)),
             "you counted one call per human message. A model call happens at every AIMessage: an agent that "
             "calls a tool makes two calls for one question."),
            (list(accumulate(len(messages[:i]) for i in ai)), "you added up numbers of messages, not tokens: use "
             "`token_counter(...)`."),
            (list(reversed(expected)), "your totals are in reverse order: the first number is after call 1."),
        ]
        for wrong, why in diagnoses:
            if got == wrong and wrong != expected:
                return q.wrong(f"for {what}: {why}")
        if len(got) != len(expected):
            return q.wrong(f"for {what} there are {len(expected)} model calls (one per AIMessage), but you "
                           f"returned {len(got)} numbers.")
        return q.wrong(f"for {what} the running totals should be {_short_list(expected)}, you returned "
                       f"{_short_list(got)}.")
    return q.correct("your running totals match `replay_growth` on the Bob dialogue, the agent with tool "
                     "calls and three generated conversations.")


EX01_LIMIT = 2000


@ex01.question(
    "measure and plot long_chat",
    "q3.check(report, fig, first_over)",
    hints=(
        "`report = replay_growth(conversation, \"approximate\", limit=2000)` and "
        "`fig = growth_figure(report)`.",
        "`report.first_over_limit` is the first row whose `sent_tokens` is over the limit; "
        "its `.call` is the call number (1 for the first call).",
    ),
    solution="""
    report = replay_growth(conversation, "approximate", limit=2000)
    fig = growth_figure(report, title="long_chat, nothing trimmed")
    first_over = report.first_over_limit.call      # 20
    """,
)
def _ex01_q3(q, report, fig, first_over):
    from course_utils.growth import GrowthReport, replay_growth
    from course_utils.samples import load_conversation

    q.need(report, "report")
    if not isinstance(report, GrowthReport):
        return q.wrong(f"`report` should be what `replay_growth` returns, got {describe(report)}.")
    expected = replay_growth(load_conversation("long_chat"), "approximate", limit=EX01_LIMIT)
    if report.token_counter != "approximate":
        return q.wrong(f"`report` was measured with the {report.token_counter!r} counter; use \"approximate\".")
    if report.limit != EX01_LIMIT:
        return q.wrong(f"`report` has limit={report.limit}; pass `limit={EX01_LIMIT}` so each row says "
                       f"whether its call is over.")
    if report.calls != expected.calls:
        return q.wrong(f"`report` has {report.calls} calls; long_chat has {expected.calls} AIMessages, so "
                       f"{expected.calls} calls. Replay the whole `conversation`.")
    if report.policy is not None or report.rows != expected.rows:
        return q.wrong("`report` does not match replaying long_chat with nothing trimmed: leave out `policy`.")
    q.need(fig, "fig")
    from matplotlib.figure import Figure

    if not isinstance(fig, Figure):
        return q.wrong(f"`fig` should be the Figure `growth_figure(report)` returns, got {describe(fig)}.")
    labels = [line.get_label() for ax in fig.axes for line in ax.get_lines()]
    if "tokens sent" not in labels or f"limit {EX01_LIMIT}" not in labels:
        return q.wrong("`fig` should show the tokens sent per call against the limit: draw it with "
                       "`growth_figure(report)`.")
    first = expected.first_over_limit
    value = q.as_int(first_over, "first_over")
    known = {
        first.ai_index: f"{first.ai_index} is the position of that call's AIMessage in the conversation, not the "
        f"call number. Calls are numbered 1, 2, 3, ...",
        first.call - 1: f"call {first.call - 1} still fits ({expected.rows[first.call - 2].sent_tokens} tokens); "
        f"the question asks for the first call that is over.",
        first.call + 1: "off by one: look at the row before that one.",
    }
    if value == first.call:
        return q.correct(f"call {first.call} is the first to send more than {EX01_LIMIT} tokens "
                         f"({first.sent_tokens}). With nothing trimmed, every later call is over too, and "
                         f"the cumulative curve bends upward.")
    if value in known:
        return q.wrong(known[value])
    return q.wrong(f"call {value} is not the first over the limit. Look at `report.first_over_limit`, or the "
                   f"first row whose `over_limit` is True.")


EX01_OPTIONS = {"a": "exponentially", "b": "not at all", "c": "linearly", "d": "quadratically"}


@ex01.question(
    "how does it grow?",
    "q4.check(without_trim, with_trim, why)",
    hints=(
        "Without trimming, call k re-sends the whole history, which grows by a turn each call.",
        "1 + 2 + ... + n = n(n + 1)/2. With a cap, each call costs at most the cap.",
    ),
    solution="""
    without_trim = "d"   # quadratically: call k re-sends k - 1 turns, and 1 + 2 + ... + n ~ n^2 / 2
    with_trim = "c"      # linearly: once the history is over the cap, every call costs about the cap
    why = "Without trimming each call re-sends the whole history, so the total is a sum of growing terms; " \\
          "with a cap each call costs at most the cap, so the total grows by about the cap per call."
    """,
)
def _ex01_q4(q, without_trim, with_trim, why):
    q.need(without_trim, "without_trim")
    q.need(with_trim, "with_trim")
    a, b = _letter(without_trim), _letter(with_trim)
    for name, letter, value in (("without_trim", a, without_trim), ("with_trim", b, with_trim)):
        if letter not in EX01_OPTIONS:
            return q.wrong(f"`{name}` should be one of the letters 'a', 'b', 'c', 'd', got {describe(value)}.")
    _need_reason(q, why)
    if EX01_OPTIONS[a] != "quadratically":
        feedback = {
            "linearly": "the tokens *per call* grow linearly, because each call adds a turn to the history; the "
            "cumulative total adds those growing numbers up, so it grows faster than linearly.",
            "exponentially": "exponential growth would mean each call costs a multiple of the previous one. Here "
            "each call costs the previous one plus one turn: a sum of growing terms, about n^2 / 2.",
            "not at all": "every call sends something, so the total can only grow.",
        }[EX01_OPTIONS[a]]
        return q.wrong(f"without trimming, not ({a}) {EX01_OPTIONS[a]}: {feedback}")
    if EX01_OPTIONS[b] != "linearly":
        feedback = {
            "quadratically": "with a cap, every call costs at most the cap, so after the history fills the cap "
            "the total grows by about the same amount per call.",
            "exponentially": "with a cap the cost per call stops growing.",
            "not at all": "every call still sends up to the cap, so the total keeps growing.",
        }[EX01_OPTIONS[b]]
        return q.wrong(f"with trimming, not ({b}) {EX01_OPTIONS[b]}: {feedback}")
    return q.correct("quadratically without trimming (each call re-sends a longer history), linearly with a "
                     "cap (each call costs at most the cap).")


# ==========================================================================================
# Exercise 02: token budgets
# ==========================================================================================

ex02 = Exercise("02", "Token budgets", "02_token_budgets")

EX02_Q1 = {"limit": 8192, "system": 1200, "user": 450, "reserve": 1024}


@ex02.question(
    "compute B",
    "q1.check(B)",
    hints=(
        "B = L - S - U - R: start from the limit and take off each fixed part.",
        "8192 - 1200 = 6992; then take off U and R.",
    ),
    solution="""
    B = 8192 - 1200 - 450 - 1024      # 5518
    # or: B = history_budget(8192, system=1200, user=450, reserve=1024)
    """,
)
def _ex02_q1(q, B):
    L, S, U, R = EX02_Q1.values()
    expected = L - S - U - R
    known = {
        L - U - R: "you forgot to take off the system prompt S (1200).",
        L - S - R: "you forgot to take off the user's new input U (450).",
        L - S - U: "you forgot to take off the reply reserve R (1024): the reply shares the same window.",
        S + U + R: "that is what the fixed parts use (S + U + R). B is what is left of L for the history.",
        L + S + U + R: "the parts are taken *off* the limit, not added to it.",
        -expected: "you subtracted the other way round: B = L - S - U - R.",
    }
    return _check_number(q, B, "B", expected, known, "Take S, U and R off L one at a time.",
                         f"8192 - 1200 = 6992; 6992 - 450 = 6542; 6542 - 1024 = {expected}. "
                         f"B = {expected} tokens for the history.")


def _ex02_cases():
    cases = [
        (4096, 350, 180, 700),  # the lesson's 2866
        (8192, 1200, 450, 1024),
        (1000, 300, 200, 499),  # exactly one token left
        (2048, 900, 700, 512),  # 64 over: no room
        (1000, 300, 200, 500),  # exactly zero left: no room either
    ]
    rng = random.Random(2026)
    for _ in range(6):
        limit = rng.choice((2048, 4096, 8192, 16384, 32768, 128000))
        parts = [rng.randint(0, limit // 3) for _ in range(3)]
        cases.append((limit, *parts))
    cases.append((4096, 4000, 100, 50))
    return cases


@ex02.question(
    "budget(limit, system, user, reserve)",
    "q2.check(budget)",
    hints=(
        "Return `limit - system - user - reserve` when it is more than zero.",
        "When the fixed parts leave nothing (the result would be 0 or less), "
        "`raise ValueError(...)` with a message that says so: a budget of 0 is no room at all.",
    ),
    solution="""
    def budget(limit, system, user, reserve):
        used = system + user + reserve
        if used >= limit:
            raise ValueError(f"no room left for history: {system} + {user} + {reserve} = {used} >= {limit}")
        return limit - used
    """,
)
def _ex02_q2(q, budget):
    from course_utils.budget import history_budget

    fn = q.need_function(budget, "budget")
    results = {}
    for L, S, U, R in _ex02_cases():
        about = f"budget({L}, {S}, {U}, {R})"
        try:
            expected = history_budget(L, S, U, R)
        except ValueError:
            expected = None  # must raise ValueError
        try:
            got = fn(L, S, U, R)
        except ValueError as exc:
            if expected is not None:
                return q.wrong(f"`{about}` raised ValueError ({exc}), but it leaves {expected} tokens for the "
                               f"history: only raise when nothing is left.")
            if not str(exc).strip():
                return q.wrong(f"`{about}` raised ValueError with no message: say what is wrong, e.g. the "
                               f"sum of the parts and the limit.")
            results[(L, S, U, R)] = "raised"
            continue
        except NotImplementedError:
            return q.not_attempted("`budget` still raises NotImplementedError: write its body.")
        except Exception as exc:  # noqa: BLE001
            return q.error(f"`{about}` raised {type(exc).__name__}: {exc}{_learner_line(exc)}. "
                           f"Raise ValueError (only) when there is no room.")
        if got is Ellipsis:
            return q.not_attempted("`budget` returned `...`: write its body.")
        if isinstance(got, bool) or not isinstance(got, (int, float)):
            return q.wrong(f"`{about}` returned {describe(got)}; return the number of tokens left (an int).")
        if expected is None:
            left = L - S - U - R
            if got == 0 and left == 0:
                return q.wrong(f"off by one: `{about}` leaves exactly 0 tokens for the history and you returned 0. "
                               f"Zero is no room either: raise ValueError when the result would be 0 or less.")
            if got == 0:
                return q.wrong(f"`{about}` returned 0, but the fixed parts are {-left} tokens over the limit. "
                               f"Returning 0 hides the problem: raise ValueError instead.")
            return q.wrong(f"`{about}` returned {got}, but a budget of {left} means there is no room for any "
                           f"history: raise ValueError instead of returning it.")
        if got != expected:
            for part, name in ((S, "the system prompt"), (U, "the user input"), (R, "the reply reserve")):
                if got == expected + part and part:
                    return q.wrong(f"`{about}` returned {got}, which is {part} too many: you forgot to take off "
                                   f"{name}.")
            return q.wrong(f"`{about}` returned {got}; B = {L} - {S} - {U} - {R} = {expected}.")
    return q.correct("right on the lesson's example, on random models and parts, and it raises ValueError "
                     "when nothing is left (including the edge case where exactly 0 tokens are left).")


EX02_Q3 = {"limit": 2048, "system": 900, "user": 700, "reserve": 512}


@ex02.question(
    "no room left",
    "q3.check(problem, shortfall)",
    hints=(
        "Wrap the call in `try: ... except ValueError as err: problem = err`.",
        "The shortfall is how far the fixed parts go over the limit: (S + U + R) - L.",
    ),
    solution="""
    try:
        history_budget(2048, system=900, user=700, reserve=512)
    except ValueError as err:
        problem = err
    shortfall = (900 + 700 + 512) - 2048     # 64 tokens over before any history at all
    """,
)
def _ex02_q3(q, problem, shortfall):
    L, S, U, R = EX02_Q3.values()
    q.need(problem, "problem")
    if isinstance(problem, (int, float)) and not isinstance(problem, bool):
        return q.wrong(f"`problem` should be the ValueError you caught (`except ValueError as err: problem = err`), "
                       f"not the number {problem}.")
    if isinstance(problem, type) and issubclass(problem, BaseException):
        return q.wrong("`problem` is the exception *class*; store the error you caught: "
                       "`except ValueError as err: problem = err`.")
    if not isinstance(problem, ValueError):
        return q.wrong(f"`problem` should be the ValueError that `history_budget` raised, got {describe(problem)}.")
    if "no room" not in str(problem):
        return q.wrong(f"`problem` is a ValueError, but not the one `history_budget({L}, {S}, {U}, {R})` raises: "
                       f"{describe(str(problem))}.")
    expected = S + U + R - L
    known = {
        -expected: "the sign: the parts are 64 tokens *over* the limit, so the shortfall is positive.",
        S + U + R: "that is what the fixed parts add up to; the shortfall is how far that goes over L.",
        0: "there is a shortfall: the fixed parts alone are more than the limit.",
        L - S - U: "that would be the room left without the reply reserve, but the reply needs its reserve.",
    }
    return _check_number(q, shortfall, "shortfall", expected, known, "shortfall = (S + U + R) - L.",
                         f"900 + 700 + 512 = 2112 > 2048: the fixed parts are {expected} tokens over before a "
                         f"single message of history. `history_budget` refuses with: {problem}")


EX02_Q4_OPTIONS = {
    "a": "Raise the reply reserve R to 700, so the answer has room.",
    "b": "Trim the conversation history harder with trim_messages.",
    "c": "Cut the pasted document down to the part that matters (say 300 tokens), or summarise it.",
    "d": "Add a safety margin M.",
}


@ex02.question(
    "choose a fix",
    "q4.check(choice, why)",
    hints=(
        "Which term of B = L - S - U - R can you make smaller without hurting the answer?",
        "Trimming changes the history, which is not one of S, U, R.",
    ),
    solution="""
    choice = "c"
    why = "The fixed parts S + U + R already exceed L, so no amount of history trimming helps; " \\
          "shrinking U (the pasted document) to 300 tokens leaves 2048 - 900 - 300 - 512 = 336 for history."
    """,
)
def _ex02_q4(q, choice, why):
    return _check_choice(
        q, choice, why, EX02_Q4_OPTIONS, "c",
        {
            "a": "R is taken off the limit too, so a bigger R makes the shortfall bigger (128 over).",
            "b": "the history is not one of the fixed parts: with S + U + R over the limit, even an empty "
            "history does not fit. Trimming cannot fix it.",
            "d": "a margin is taken off the limit as well: it makes things worse.",
        },
        ("user", "document", " u ", "u =", "fixed"),
        "shrinking U is the only option that makes room: 2048 - 900 - 300 - 512 = 336 tokens for the history. "
        "Trimming cannot help when the fixed parts alone are over the limit.",
    )


# ==========================================================================================
# Exercise 03: trimming walkthrough
# ==========================================================================================

ex03 = Exercise("03", "Trimming walkthrough", "03_trimming_walkthrough")

EX03_COSTS = {"h1": 35, "a1": 80, "h2": 45, "a2": 25, "h3": 60, "a3": 40}
EX03_BUDGET = 175


def ex03_conversation() -> list[BaseMessage]:
    """The six messages of exercise 03, question 1 (their costs are in EX03_COSTS)."""
    return [
        HumanMessage("Can you recommend a day trip from Lisbon?", id="h1"),
        AIMessage("Sintra is the classic: palaces, gardens and a castle, 40 minutes by train.", id="a1"),
        HumanMessage("How do I get there?", id="h2"),
        AIMessage("Take the train from Rossio station.", id="a2"),
        HumanMessage("Is one day enough to see the main palaces?", id="h3"),
        AIMessage("Yes, if you pick two: Pena and Quinta da Regaleira.", id="a3"),
    ]


def _ids_of(q: Question, value: Any, name: str) -> list[str]:
    q.need(value, name)
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        q.stop(q.wrong(f"`{name}` should be a list of message ids like [\"h1\", \"a1\"], got {describe(value)}."))
    ids = []
    for item in value:
        if isinstance(item, BaseMessage):
            ids.append(item.id)
        elif isinstance(item, str):
            ids.append(item.strip())
        else:
            q.stop(q.wrong(f"`{name}` should hold message ids (strings), but it holds {describe(item)}."))
    return ids


@ex03.question(
    "trim by hand",
    "q1.check(kept_ids)",
    hints=(
        "Count from the newest message back: 40 <= 175; 40 + 60 = 100; ... and stop at the first message "
        "that does not fit.",
        "Write the kept messages in chronological order, oldest first, as trim_messages returns them.",
    ),
    solution="""
    # from the end: 40 <= 175; 40 + 60 = 100; 100 + 25 = 125; 125 + 45 = 170; 170 + 80 = 250 > 175: stop
    kept_ids = ["h2", "a2", "h3", "a3"]
    """,
)
def _ex03_q1(q, kept_ids):
    ids = _ids_of(q, kept_ids, "kept_ids")
    messages = ex03_conversation()
    counter = table_token_counter(EX03_COSTS)
    expected = _ids(trim_messages(messages, max_tokens=EX03_BUDGET, token_counter=counter, strategy="last"))
    first = _ids(trim_messages(messages, max_tokens=EX03_BUDGET, token_counter=counter, strategy="first"))
    unknown = [i for i in ids if i not in EX03_COSTS]
    if unknown:
        return q.wrong(f"{unknown} are not ids of the conversation; use {list(EX03_COSTS)}.")
    if ids == expected:
        return q.correct("from the end: 40 <= 175; 40 + 60 = 100; 100 + 25 = 125; 125 + 45 = 170; "
                         "170 + 80 = 250 > 175, stop. Kept in chronological order: h2, a2, h3, a3.")
    if ids == list(reversed(expected)):
        return q.wrong("those are the right messages, newest first. trim_messages returns the kept messages "
                       "in chronological order (oldest first).")
    if ids == first:
        return q.wrong("that is strategy='first' (keep from the start). strategy='last' keeps the newest "
                       "messages, counting from the end.")
    total = sum(EX03_COSTS[i] for i in ids)
    if total > EX03_BUDGET:
        return q.wrong(f"those cost {total} tokens, more than the budget of {EX03_BUDGET}.")
    if len(ids) < len(expected) and ids == expected[-len(ids):]:
        return q.wrong(f"you stopped too early: the next message back fits ({total} + "
                       f"{EX03_COSTS[expected[-len(ids) - 1]]} <= {EX03_BUDGET}). Stop only when a message "
                       f"does not fit.")
    if sorted(ids, key=list(EX03_COSTS).index) != ids:
        return q.wrong("keep the messages in the conversation's order.")
    return q.wrong("trim_messages keeps a run of the newest messages: count back from a3 and stop at the "
                   "first message that does not fit.")


def _greedy_last(messages, max_tokens, counter, *, strict=False, skip=False):
    kept, total = [], 0
    for message in reversed(messages):
        cost = counter([message])
        fits = total + cost < max_tokens if strict else total + cost <= max_tokens
        if fits:
            kept.append(message)
            total += cost
        elif not skip:
            break
    return list(reversed(kept))


def _ex03_q2_cases():
    from course_utils.tokens import dummy_token_counter
    from course_utils.trimming import SLIDE_BUDGET, SLIDE_COSTS, slide_conversation

    cases = [("the worked example's conversation", slide_conversation(), SLIDE_BUDGET,
              table_token_counter(SLIDE_COSTS), "")]
    cases.append(("the exercise conversation", ex03_conversation(), EX03_BUDGET, table_token_counter(EX03_COSTS), ""))
    for seed in (31, 32, 33):
        messages = random_conversation(seed, turns=5, system=seed != 32)
        costs = random_costs(messages, seed)
        counter = table_token_counter(costs)
        values = [costs[m.id] for m in messages]
        suffix = [sum(values[-k:]) for k in range(1, len(values) + 1)]
        rng = random.Random(seed)
        k = rng.randint(2, len(values) - 2)
        budgets = {suffix[k - 1], suffix[k - 1] - 1, rng.randint(0, suffix[-1]), 0, suffix[-1] + 7}
        # a big message followed by small ones: skipping it would wrongly keep the small ones
        budgets.add(suffix[k - 1] + min(values[: len(values) - k]) - 1)
        what = f"a generated conversation of {_counts_of(messages)}"
        for budget in sorted(budgets):
            if budget >= 0:
                cases.append((what, messages, budget, counter, f" (costs {_short_list(values)})"))
    bob = random_conversation(34, turns=4, system=False, tools=False)
    cases.append(("a 10-token-a-message conversation", bob, 45, dummy_token_counter, ""))
    return cases


@ex03.question(
    "keep_last_tokens by hand",
    "q2.check(keep_last_tokens)",
    hints=(
        "Walk `reversed(messages)`, adding `token_counter([message])`; stop at the first message that would "
        "take the total over `max_tokens` (equal is fine).",
        "You collected the messages newest first: return them in chronological order, without changing the "
        "list you were given.",
    ),
    solution="""
    def keep_last_tokens(messages, max_tokens, token_counter):
        kept, total = [], 0
        for message in reversed(messages):            # newest first
            cost = token_counter([message])
            if total + cost > max_tokens:              # the first message that does not fit: stop
                break
            kept.append(message)
            total += cost
        return kept[::-1]                              # back to chronological order
    """,
)
def _ex03_q2(q, keep_last_tokens):
    fn = q.need_function(keep_last_tokens, "keep_last_tokens")
    for what, messages, budget, counter, costs in _ex03_q2_cases():
        about = f"{what} and max_tokens={budget}"
        given = list(messages)
        before = _snapshot(given)
        got = _check_message_list(q, q.call(fn, given, budget, counter, about=about), "keep_last_tokens")
        if _snapshot(given) != before:
            return q.wrong(f"for {about} your function changed the list it was given (now "
                           f"{_ids(given)[:4]}...). Walk `reversed(messages)` instead of reversing it in "
                           f"place: the caller's history must stay as it was.")
        expected = trim_messages(messages, max_tokens=budget, token_counter=counter, strategy="last")
        if _same_messages(got, expected):
            continue
        detail = f"for {about}{costs}: trim_messages keeps {_ids(expected)}, you kept {_ids(got)}."
        if _same_messages(got, list(reversed(expected))):
            return q.wrong(f"{detail} Right messages, newest first: return them in chronological order.")
        if _same_messages(got, _greedy_last(messages, budget, counter, strict=True)):
            return q.wrong(f"{detail} Off by one: a message that brings the total to exactly max_tokens still "
                           f"fits (use <=, not <).")
        if _same_messages(got, _greedy_last(messages, budget, counter, skip=True)):
            return q.wrong(f"{detail} You skipped a message that did not fit and kept going. trim_messages keeps "
                           f"a run of the newest messages: it stops at the first one that does not fit, so "
                           f"nothing older sneaks in past a gap.")
        if _same_messages(got, trim_messages(messages, max_tokens=budget, token_counter=counter,
                                             strategy="first")):
            return q.wrong(f"{detail} That is strategy='first' (the oldest messages). Keep the newest.")
        if sum(counter([m]) for m in got) > budget:
            return q.wrong(f"{detail} Yours cost more than max_tokens.")
        return q.wrong(detail)
    return q.correct("your function agrees with `trim_messages(strategy=\"last\")` on the worked example, the "
                     "exercise's, and generated conversations with budgets on and around the edges.")


def _unanswered(messages: Sequence[BaseMessage]) -> list[AIMessage]:
    """AIMessages with a tool call whose ToolMessage is not in the list."""
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    return [m for m in messages if isinstance(m, AIMessage) and any(c["id"] not in answered for c in m.tool_calls)]


def _safe_reference(messages, max_tokens):
    return trim_messages(messages, **safe_trim_kwargs(max_tokens, count_tokens_approximately))


def _ex03_q3_cases():
    from course_utils.samples import load_conversation

    agent = load_conversation("agent_tools")
    # 1200: trimming without start_on keeps ToolMessage at-09 without its AIMessage (with or without
    # include_system); 600 and 550 show the trap too, 300 and 800 do not.
    cases = [("the agent_tools conversation", agent, cap) for cap in (1200, 600, 550, 300, 800, 1500)]
    for seed in (41, 42):
        messages = random_conversation(seed, turns=6, system=True)
        total = count_tokens_approximately(messages)
        for share in (3, 2):
            cases.append((f"a generated agent conversation of {_counts_of(messages)}", messages, total // share))
    return cases


@ex03.question(
    "repair the orphaned ToolMessage",
    "q3.check(safe_trim)",
    hints=(
        "Keep `strategy=\"last\"` and the budget: the fix is where the kept list may *start*.",
        "`start_on=\"human\"` drops messages from the front of the kept list until it begins with a human "
        "message; `include_system=True` keeps the system prompt in front.",
    ),
    solution="""
    def safe_trim(messages, max_tokens):
        return trim_messages(
            messages,
            max_tokens=max_tokens,
            token_counter=count_tokens_approximately,
            strategy="last",
            start_on="human",        # never start on a ToolMessage (or an AIMessage)
            include_system=True,     # keep the system prompt
        )
    """,
)
def _ex03_q3(q, safe_trim):
    fn = q.need_function(safe_trim, "safe_trim")
    for what, messages, cap in _ex03_q3_cases():
        about = f"{what} and max_tokens={cap}"
        given = list(messages)
        before = _snapshot(given)
        got = _check_message_list(q, q.call(fn, given, cap, about=about), "safe_trim")
        if _snapshot(given) != before:
            return q.wrong(f"for {about} `safe_trim` changed the list it was given; trim a copy, never the history.")
        expected = _safe_reference(messages, cap)
        if _same_messages(got, expected):
            continue
        ids = _ids(got)
        detail = f"for {about} you kept {_short_list(ids, 6)}"
        orphans = orphaned_tool_messages(got)
        body = [m for m in got if not isinstance(m, SystemMessage)]
        used = count_tokens_approximately(got) if got else 0
        if used > cap:
            return q.wrong(f"{detail}: that is {used} tokens, over max_tokens={cap}. Keep the budget as given; "
                           f"fix the start of the kept list instead.")
        if orphans:
            o = orphans[0]
            caller_kept = any(isinstance(m, AIMessage) and any(c["id"] == o.tool_call_id for c in m.tool_calls)
                              for m in got)
            if caller_kept:
                return q.wrong(f"{detail}: ToolMessage {o.id!r} answers tool call {o.tool_call_id!r}, but it does "
                               f"not come right after the AIMessage that made the call. A tool result must follow "
                               f"its call: keep a run of the newest messages, in the conversation's order.")
            return q.wrong(f"{detail}: ToolMessage {o.id!r} answers tool call {o.tool_call_id!r}, but the "
                           f"AIMessage that made the call was cut. That is the orphan trap: make the kept list "
                           f"start on a human message.")
        unanswered = _unanswered(got)
        if unanswered:
            return q.wrong(f"{detail}: AIMessage {unanswered[0].id!r} calls a tool, but its ToolMessage is not in the "
                           f"list. You removed the tool results; providers reject a tool call without its answer. "
                           f"Keep whole tool rounds and fix where the kept list starts instead.")
        if isinstance(messages[0], SystemMessage) and not any(isinstance(m, SystemMessage) for m in got):
            return q.wrong(f"{detail}: the system prompt was dropped. Keep it with `include_system=True`.")
        if body and isinstance(body[0], AIMessage):
            return q.wrong(f"{detail}: it starts with an AIMessage. Chat models expect the first message after "
                           f"the system prompt to be a human one: `start_on=\"human\"`.")
        first = trim_messages(messages, max_tokens=cap, token_counter=count_tokens_approximately, strategy="first")
        if body and _same_messages(body, [m for m in first if not isinstance(m, SystemMessage)]):
            return q.wrong(f"{detail}: that is the *start* of the conversation (strategy='first'). A chatbot must "
                           f"keep the newest messages, the user's latest question among them.")
        return q.wrong(f"{detail}; trim_messages(strategy=\"last\", start_on=\"human\", include_system=True) with "
                       f"the approximate counter keeps {_short_list(_ids(expected), 6)}.")
    return q.correct("no orphaned ToolMessage on the agent conversation at any budget, nor on generated "
                     "agent conversations: every kept list starts with the system prompt and a human message.")


EX03_Q4_OPTIONS = {
    "a": "The chatbot now keeps the oldest messages and drops the newest, including the user's latest question.",
    "b": "Nothing: strategy='first' can never start on a ToolMessage, so the trap is gone.",
    "c": "strategy='first' is not allowed together with a token counter.",
    "d": "It costs more tokens than strategy='last'.",
}


@ex03.question(
    "a teammate's fix",
    "q4.check(choice, why)",
    hints=(
        "What does strategy='first' keep when the history is over the budget?",
        "Which message must a chatbot always send, whatever else it drops?",
    ),
    solution="""
    choice = "a"
    why = "strategy='first' keeps the start of the conversation, so once the history is over the budget the " \\
          "newest messages, including the user's latest question, are dropped; start_on='human' fixes the trap."
    """,
)
def _ex03_q4(q, choice, why):
    return _check_choice(
        q, choice, why, EX03_Q4_OPTIONS, "a",
        {
            "b": "it does avoid the orphan, but look at what it keeps: the oldest messages. The model never sees "
            "the latest question.",
            "c": "both strategies take the same token_counter; the problem is what strategy='first' keeps.",
            "d": "both strategies keep at most max_tokens; the problem is *which* messages they keep.",
        },
        ("latest", "newest", "last", "recent", "question", "oldest", "start"),
        "strategy='first' keeps the oldest messages, so the model never sees the newest question. "
        "Keep strategy='last' and fix the boundary with start_on='human'.",
    )


# ==========================================================================================
# Exercise 04: LangGraph integration
# ==========================================================================================

ex04 = Exercise("04", "LangGraph integration", "04_langgraph_integration")
EX04_CAP = 128


def ex04_state_messages() -> list[BaseMessage]:
    """The state of exercise 04, question 1: a system prompt and 21 messages, 220 tokens with the dummy counter."""
    messages: list[BaseMessage] = [SystemMessage("You are a helpful assistant.", id="sys")]
    for i in range(1, 12):
        messages.append(HumanMessage(f"question {i}", id=f"h{i}"))
        if i < 11:
            messages.append(AIMessage(f"answer {i}", id=f"a{i}"))
    return messages


@ex04.question(
    "what the node sends",
    "q1.check(sent_ids)",
    hints=(
        "Every message costs 10 with the dummy counter. With include_system=True the system prompt is kept "
        "first, and the rest of the 128 is filled from the end.",
        "Then start_on=\"human\" drops messages from the front of the kept run until it begins with a human one.",
    ),
    solution="""
    sent = trim_messages(state_messages, max_tokens=128, token_counter=dummy_token_counter,
                         strategy="last", start_on="human", include_system=True)
    sent_ids = [m.id for m in sent]   # ['sys', 'h6', 'a6', ..., 'a10', 'h11']: 12 messages, 120 tokens
    """,
)
def _ex04_q1(q, sent_ids):
    from course_utils.tokens import dummy_token_counter

    ids = _ids_of(q, sent_ids, "sent_ids")
    messages = ex04_state_messages()
    options = dict(max_tokens=EX04_CAP, token_counter=dummy_token_counter, strategy="last")
    expected = _ids(trim_messages(messages, start_on="human", include_system=True, **options))
    if ids == expected:
        return q.correct(f"the node sends {len(expected)} messages ({10 * len(expected)} tokens <= 128): the "
                         f"system prompt and h6 ... h11. The state keeps all 22 (220 tokens).")
    variants = [
        (_ids(trim_messages(messages, start_on="human", **options)),
         "the system prompt is missing: include_system=True keeps it, and it counts against the 128."),
        (_ids(trim_messages(messages, include_system=True, **options)),
         "that does not start with a human message. This cap happens to start on one anyway; look again."),
        (_ids(trim_messages(messages, **options)),
         "that starts with an AIMessage and drops the system prompt: apply start_on=\"human\" and "
         "include_system=True."),
        (_ids(messages), "that is the whole state (220 tokens). The node sends only what fits in 128."),
        (list(reversed(expected)), "right messages, but trim_messages keeps chronological order."),
    ]
    for wrong, why in variants:
        if ids == wrong and wrong != expected:
            return q.wrong(why)
    if 10 * len(ids) > EX04_CAP:
        return q.wrong(f"{len(ids)} messages cost {10 * len(ids)} tokens, over the cap of {EX04_CAP}.")
    return q.wrong(f"the node would send {len(expected)} messages; count 10 tokens a message, system first, then "
                   f"from the end.")


def _ex04_trim(messages: Sequence[BaseMessage], max_tokens: int) -> list[BaseMessage]:
    return trim_messages(messages, **safe_trim_kwargs(max_tokens, "approximate"))


EX04_DIALOGUE = (
    "hi! I'm bob",
    "i like the celtics!",
    "i like how much they win",
    "what's my name?",
    "what NFL team do you think I like?",
    "i like the patriots!",
)


def _ex04_sent_problem(sent: list[BaseMessage], history: list[BaseMessage], cap: int, where: str) -> str | None:
    """What is wrong with what the model was sent for this history, or None if it is the trimmed list."""
    expected = _ex04_trim(history, cap)
    if _same_messages(sent, expected):
        return None
    detail = f"{where} the model was sent {_short_list([_text_label(m) for m in sent], 5)}"
    if _same_messages(sent, history):
        return f"{detail}: the whole history. Trim before `model.invoke`."
    if not sent or sent[-1].id != history[-1].id:
        return f"{detail}: the user's latest question is missing. Did you use strategy='first'? Keep the newest messages."
    if not any(isinstance(m, SystemMessage) for m in sent):
        return f"{detail}: the system prompt is missing; use include_system=True."
    body = [m for m in sent if not isinstance(m, SystemMessage)]
    if body and not isinstance(body[0], HumanMessage):
        return f"{detail}: after the system prompt it starts with an {type(body[0]).__name__}; use start_on=\"human\"."
    return (f"{detail}; trimming to {cap} tokens (approximate counter, strategy 'last', start_on 'human', "
            f"include_system) gives {_short_list([_text_label(m) for m in expected], 5)}.")


def _ex04_empty_call(exc: BaseException, about: str) -> str | None:
    """The message for a node whose trim kept nothing: OfflineChatModel refuses an empty list with ValueError."""
    if not (isinstance(exc, ValueError) and str(exc).startswith("messages must not be empty")):
        return None
    return (f"for {about}, your node sent the model an empty list, and the model refused it ({exc}). Your trim kept "
            f"nothing: is the max_tokens you pass smaller than the one given, or did start_on (or end_on) drop "
            f"every message? Trim with `max_tokens=max_tokens`, `strategy=\"last\"`, `start_on=\"human\"` and "
            f"`include_system=True`.")


def _text_label(message: BaseMessage) -> str:
    """A message as a learner can recognise it: its type and the start of its text (ids in a graph are random)."""
    text = message.content if isinstance(message.content, str) else str(message.content)
    return f"{message.type}: {text[:24]!r}"


def _ex04_node_messages(out: Any) -> list[Any]:
    if not isinstance(out, Mapping) or "messages" not in out:
        return None
    new = out["messages"]
    return [new] if isinstance(new, BaseMessage) else list(new) if isinstance(new, (list, tuple)) else None


@ex04.question(
    "trim inside the node",
    "q2.check(make_chatbot_node)",
    hints=(
        "Never write to `state[\"messages\"]` (no `[:] =`, `del`, `.clear()`, `.append`): the checkpointer "
        "stores that very list. Build a new one with `trim_messages(state[\"messages\"], ...)`.",
        "Send only the trimmed list to `model.invoke`, and return only the reply: `{\"messages\": [reply]}`; "
        "add_messages appends it to the full history.",
    ),
    solution="""
    def make_chatbot_node(model, max_tokens=128):
        def chatbot(state: MessagesState) -> dict:
            sent = trim_messages(                     # a new list: the state is not touched
                state["messages"],
                max_tokens=max_tokens,
                token_counter="approximate",
                strategy="last",
                start_on="human",
                include_system=True,
            )
            return {"messages": [model.invoke(sent)]}  # only the reply goes back into the state
        return chatbot
    """,
)
def _ex04_q2(q, make_chatbot_node):
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, MessagesState, StateGraph

    from course_utils.chat import OfflineChatModel

    factory = q.need_function(make_chatbot_node, "make_chatbot_node")

    # 1. Call the node directly on a state, as LangGraph would.
    # States and caps where leaving out start_on or include_system changes what is sent.
    for seed, cap in ((51, 80), (52, 100)):
        model = OfflineChatModel(token_counter="approximate")
        node = q.call(factory, model, max_tokens=cap, about=f"(model, max_tokens={cap})")
        if not callable(node):
            return q.wrong(f"`make_chatbot_node` should return the node function, but it returned {describe(node)}.")
        if _is_stub(node):
            return q.not_attempted(f"the body of `{getattr(node, '__name__', 'chatbot')}` is still `...`: write it.")
        history = random_conversation(seed, turns=7, system=True, tools=False, end_with_ai=False)
        state = {"messages": list(history)}
        about = f"a state of {_counts_of(history)} and max_tokens={cap}"
        out = q.call(node, state, about=about, explain=_ex04_empty_call)
        if _snapshot(state["messages"]) != _snapshot(history):
            return q.wrong(f"for {about} your node changed `state[\"messages\"]` in place (it now holds "
                           f"{len(state['messages'])} messages instead of {len(history)}). The checkpointer "
                           f"stores that list, so the history is lost. Trim into a new list instead.")
        new = _ex04_node_messages(out)
        if new is None:
            return q.wrong(f"a node returns a dict of updates, `{{\"messages\": [reply]}}`; yours returned "
                           f"{describe(out)}.")
        if any(isinstance(m, RemoveMessage) for m in new):
            return q.wrong("your node returns RemoveMessage updates: they delete messages from the stored state. "
                           "Trimming is for the model call only; return just the reply.")
        if not model.calls:
            return q.wrong("your node did not call `model.invoke`.")
        problem = _ex04_sent_problem(model.calls[-1], history, cap, f"for {about}")
        if problem:
            return q.wrong(problem)
        if not new or not isinstance(new[-1], AIMessage):
            return q.wrong("return the model's reply in the update: `{\"messages\": [reply]}`.")

    # 2. Run it in a graph with a checkpointer, as in the lesson.
    model = OfflineChatModel(token_counter="approximate")
    node = q.call(factory, model, max_tokens=40, about="(model, max_tokens=40)")
    builder = StateGraph(MessagesState)
    builder.add_node("chatbot", node)
    builder.add_edge(START, "chatbot")
    builder.add_edge("chatbot", END)
    graph = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "check"}}
    for turn, text in enumerate(EX04_DIALOGUE, start=1):
        before = list(graph.get_state(config).values.get("messages", []))
        q.call(graph.invoke, {"messages": [HumanMessage(text)]}, config, about=f"turn {turn} ({text!r}) of a graph",
               explain=_ex04_empty_call)
        stored = list(graph.get_state(config).values.get("messages", []))
        if len(stored) != 2 * turn:
            return q.wrong(f"in a graph with a checkpointer, after turn {turn} the thread stores {len(stored)} "
                           f"messages instead of {2 * turn}: your node loses history. The state must keep "
                           f"every message; only the model call is trimmed.")
        problem = _ex04_sent_problem(model.calls[-1], [*before, stored[len(before)]], 40, f"in a graph, on turn {turn}")
        if problem:
            return q.wrong(problem)
    return q.correct("the node leaves `state[\"messages\"]` alone, sends the model only the trimmed list, and in "
                     "a graph with a checkpointer the thread keeps all 12 messages of a 6-turn dialogue.")


EX04_Q3_OPTIONS = {
    "a": "The checkpointer lost the early messages of the thread.",
    "b": "trim_messages deleted \"hi! I'm bob\" from the state.",
    "c": "The model's context window was exceeded, so it ignored the history.",
    "d": "The thread's stored state still holds \"hi! I'm bob\", but the trimmed list sent to the model does not.",
}


@ex04.question(
    "why does it forget?",
    "q3.check(choice, why)",
    hints=(
        "Compare `stored_messages(...)` (what the thread keeps) with `model.calls[-1]` (what the model was sent).",
        "There are two spaces: the state, for keeping; the trimmed list, for this one call.",
    ),
    solution="""
    choice = "d"
    why = "The state keeps every message (the stored thread still starts with hi! I'm bob), " \\
          "but the node sends the model only the trimmed list, and the name is no longer in it."
    """,
)
def _ex04_q3(q, choice, why):
    return _check_choice(
        q, choice, why, EX04_Q3_OPTIONS, "d",
        {
            "a": "look at `stored_messages(graph, thread)`: the first message is still \"hi! I'm bob\".",
            "b": "trim_messages returns a new list; it never changes the list it is given, let alone the state.",
            "c": "the trimmed list is far below the window; the model answered normally, from what it was sent.",
        },
        ("state", "sent", "trim", "stored", "keep"),
        "two spaces: the state keeps everything, the model sees only the trimmed list. To remember the name "
        "past the cap, summarise (the how-to's summary node) or raise the cap.",
    )


# ==========================================================================================
# Exercise 05: threshold selection
# ==========================================================================================

ex05 = Exercise("05", "Threshold selection", "05_threshold_selection")

EX05_Q1 = {"limit": 16384, "system": 900, "user": 600, "reserve": 2000, "margin": 800}


@ex05.question(
    "compute H_max",
    "q1.check(H_max)",
    hints=(
        "H_max = L - S - U - R - M: one subtraction per fixed part, the margin last.",
        "16384 - 900 = 15484; continue with U, R and M.",
    ),
    solution="""
    H_max = 16384 - 900 - 600 - 2000 - 800      # 12084
    # or: H_max = history_budget(16384, system=900, user=600, reserve=2000, margin=800)
    """,
)
def _ex05_q1(q, H_max):
    L, S, U, R, M = EX05_Q1.values()
    expected = L - S - U - R - M
    known = {
        expected + M: "that is B: you forgot the safety margin M (800).",
        expected + R: "you forgot the reply reserve R (2000).",
        expected + U: "you forgot the user input U (600).",
        expected + S: "you forgot the system prompt S (900).",
        expected + 2 * M: "the margin is taken off, not added.",
        S + U + R + M: "that is what the fixed parts use; H_max is what is left of L.",
    }
    return _check_number(q, H_max, "H_max", expected, known, "Take S, U, R and M off L one at a time.",
                         f"16384 - 900 = 15484; 15484 - 600 = 14884; 14884 - 2000 = 12884; 12884 - 800 = "
                         f"{expected}. H_max = {expected} tokens.")


@ex05.question(
    "if R grows",
    "q2.check(change)",
    hints=(
        "R appears in H_max = L - S - U - R - M with a minus sign.",
        "Work out H_max with R = 2000 and with R = 3000; the change is new minus old.",
    ),
    solution="""
    change = history_budget(16384, 900, 600, 3000, margin=800) - history_budget(16384, 900, 600, 2000, margin=800)
    # -1000: every token reserved for the reply is a token the history cannot use
    """,
)
def _ex05_q2(q, change):
    L, S, U, R, M = EX05_Q1.values()
    new = L - S - U - (R + 1000) - M
    expected = new - (L - S - U - R - M)
    known = {
        1000: "the sign: more room reserved for the reply leaves *less* for the history, so H_max goes down.",
        new: f"that is the new H_max ({new}); the question asks for the change (new minus old).",
        0: "R is one of the terms taken off the limit, so changing it changes H_max.",
        -2000: "R grows by 1000, so H_max changes by 1000.",
    }
    return _check_number(q, change, "change", expected, known, "change = H_max(R=3000) - H_max(R=2000).",
                         f"{expected}: H_max shrinks from 12084 to {new}, token for token, because more room is "
                         f"reserved for the reply.")


def _ex05_reference(messages, fact_id, max_tokens):
    from course_utils.growth import replay_growth

    sent_lists = []

    def policy(history):
        sent = _ex04_trim(history, max_tokens)
        sent_lists.append(sent)
        return sent

    report = replay_growth(messages, "approximate", policy=policy)
    fact_index = next(i for i, m in enumerate(messages) if m.id == fact_id)
    forgotten = None
    for row, sent in zip(report.rows, sent_lists):
        if row.ai_index > fact_index and fact_id not in {m.id for m in sent}:
            forgotten = row.call
            break
    return report.total_sent_tokens, forgotten, report, sent_lists


def _ex05_q3_cases():
    from course_utils.samples import load_conversation

    chat = load_conversation("long_chat")
    cases = [
        ("long_chat", chat, "lc-02", 1000),
        ("long_chat", chat, "lc-10", 2000),
        ("long_chat", chat, "lc-02", 5000),
        ("the first 31 messages of long_chat", chat[:31], "lc-08", 400),
    ]
    for seed in (61, 62):
        messages = random_conversation(seed, turns=9, system=True, tools=seed == 62)
        humans = [m.id for m in messages if isinstance(m, HumanMessage)]
        cases.append((f"a generated conversation of {_counts_of(messages)}", messages, humans[1], 250))
    return cases


@ex05.question(
    "what a threshold costs and forgets",
    "q3.check(cost_and_forgetting)",
    hints=(
        "Let `replay_growth` do the replay: pass `policy=lambda h: trim_messages(h, max_tokens=max_tokens, "
        "token_counter=\"approximate\", strategy=\"last\", start_on=\"human\", include_system=True)`; "
        "`report.total_sent_tokens` is the cost.",
        "For forgetting, go through `report.rows`: for the calls whose history contains the fact "
        "(`row.ai_index` after it), trim `messages[:row.ai_index]` and look for the fact's id.",
    ),
    solution="""
    def cost_and_forgetting(messages, fact_id, max_tokens):
        def trim(history):
            return trim_messages(history, max_tokens=max_tokens, token_counter="approximate",
                                 strategy="last", start_on="human", include_system=True)

        report = replay_growth(messages, "approximate", policy=trim)
        fact_index = [m.id for m in messages].index(fact_id)
        for row in report.rows:
            if row.ai_index > fact_index and fact_id not in [m.id for m in trim(messages[:row.ai_index])]:
                return report.total_sent_tokens, row.call
        return report.total_sent_tokens, None
    """,
)
def _ex05_q3(q, cost_and_forgetting):
    fn = q.need_function(cost_and_forgetting, "cost_and_forgetting")
    for what, messages, fact_id, cap in _ex05_q3_cases():
        about = f"{what}, fact {fact_id!r}, max_tokens={cap}"
        given = list(messages)
        before = _snapshot(given)
        got = q.call(fn, given, fact_id, cap, about=about)
        if _snapshot(given) != before:
            return q.wrong(f"for {about}: your function changed the conversation it was given.")
        total, forgotten, report, sent_lists = _ex05_reference(messages, fact_id, cap)
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            return q.wrong(f"return a pair `(total_sent, forgotten_at)`; for {about} you returned {describe(got)}.")
        got_total, got_forgotten = got
        if isinstance(got_total, bool) or not isinstance(got_total, int):
            return q.wrong(f"`total_sent` should be an int, got {describe(got_total)} for {about}.")
        if got_total != total:
            from course_utils.growth import replay_growth

            everything = replay_growth(messages, "approximate").total_sent_tokens
            no_system = replay_growth(messages, "approximate", policy=lambda h: trim_messages(
                h, max_tokens=cap, token_counter="approximate", strategy="last", start_on="human"))
            if got_total == everything:
                return q.wrong(f"for {about}: your total, {got_total}, is what sending everything costs; "
                               f"with the cap each call sends only the trimmed list ({total} in all).")
            if got_total == no_system.total_sent_tokens:
                return q.wrong(f"for {about}: your total leaves out the system prompt: trim with "
                               f"include_system=True, as the question says.")
            if got_total == sum(r.history_tokens for r in report.rows[-1:]) or got_total == report.rows[-1].sent_tokens:
                return q.wrong(f"for {about}: {got_total} is one call; add up what every call sends.")
            return q.wrong(f"for {about}: the total sent should be {total}, you returned {got_total}.")
        if got_forgotten != forgotten:
            rows = report.rows
            if forgotten is not None and got_forgotten == forgotten - 1:
                return q.wrong(f"for {about}: off by one: call {forgotten} is the first without {fact_id!r} "
                               f"(calls are numbered from 1).")
            if forgotten is not None and got_forgotten == rows[forgotten - 1].ai_index:
                return q.wrong(f"for {about}: {got_forgotten} is the position of the AIMessage; return the call "
                               f"number, `row.call`.")
            if got_forgotten is None and forgotten is not None:
                return q.wrong(f"for {about}: the fact is dropped at call {forgotten}, but you say it never is. "
                               f"Look in what each call *sends* (the trimmed list), not in the stored history.")
            if forgotten is None:
                return q.wrong(f"for {about}: every call still sends {fact_id!r}: return None for "
                               f"`forgotten_at`, you returned {describe(got_forgotten)}.")
            return q.wrong(f"for {about}: {fact_id!r} is first missing from call {forgotten}, you said "
                           f"{describe(got_forgotten)}.")
    return q.correct("cost and forgetting match a replay with the trimming policy, on long_chat at three caps "
                     "and on generated conversations. A lower cap costs less and forgets sooner.")


EX05_Q4 = {"limit": 8192, "system": 1100, "user": 300, "longest_reply": 700, "counter_error": 0.05}
EX05_Q4_KEYS = ("reserve", "margin", "include_system", "max_tokens", "start_on")


@ex05.question(
    "choose thresholds for an agent",
    "q4.check(plan, why)",
    hints=(
        "R must cover the longest reply you expect; M must cover the counter's error (5% of the window). "
        "The cap depends on the list you trim: the history alone has room H_max = L - S - U - R - M; the whole "
        "list, with the system prompt and the new input in it, has H_max + S + U = L - R - M.",
        "A tool-using agent has ToolMessages in its history: which start_on avoids the orphan trap?",
    ),
    solution="""
    reserve = 800                                 # the longest reply (700) and a little room
    margin = 500                                  # >= 5% of 8192 = 410, for the approximate counter's error
    plan = {
        "reserve": reserve,
        "margin": margin,
        "include_system": True,                   # trim the whole list: system prompt, history, new input
        "max_tokens": 8192 - reserve - margin,    # L - R - M = 6892 (= H_max + S + U: S and U are in the list)
        "start_on": "human",                      # never begin on an orphaned ToolMessage
    }
    # Trimming the history alone instead: "include_system": False and
    # "max_tokens": history_budget(8192, 1100, 300, reserve, margin=margin), which is H_max = 5492.
    why = "R covers the longest answer, M covers the 5% counting error, the cap is L - R - M because the " \\
          "trimmed list also holds S and U, and start_on='human' keeps tool results with their tool calls."
    """,
)
def _ex05_q4(q, plan, why):
    from course_utils.budget import history_budget

    L, S, U, longest, error = EX05_Q4.values()
    q.need(plan, "plan")
    if not isinstance(plan, Mapping):
        return q.wrong(f"`plan` should be a dict with {', '.join(EX05_Q4_KEYS)}, got {describe(plan)}.")
    missing = [k for k in EX05_Q4_KEYS if k not in plan]
    if missing:
        which = (" (`include_system` says which list you trim: True for the whole list, False for the history "
                 "alone)" if "include_system" in missing else "")
        return q.wrong(f"`plan` is missing {missing}{which}.")
    for key in EX05_Q4_KEYS:
        if plan[key] is Ellipsis:
            return q.not_attempted(f"`plan[{key!r}]` is still `...`: fill it in.")
    R, M, cap = (q.as_int(plan[k], f"plan[{k!r}]") for k in ("reserve", "margin", "max_tokens"))
    whole_list = plan["include_system"]
    if not isinstance(whole_list, bool):
        return q.wrong(f"`plan['include_system']` should be True (you trim the whole list: system prompt, "
                       f"history and new input) or False (you trim the history alone), got {describe(whole_list)}.")
    low_margin = int(L * error + 0.999)
    if R < longest:
        return q.wrong(f"reserve={R} is less than the longest reply ({longest}): those answers would be cut off "
                       f"or the call refused.")
    if R > 2 * longest:
        return q.wrong(f"reserve={R} is more than twice the longest reply ({longest}): every token reserved and "
                       f"never used is taken from the history.")
    if M < low_margin:
        return q.wrong(f"margin={M} does not cover the counter's error: 5% of {L} is {low_margin} tokens.")
    if M > L // 5:
        return q.wrong(f"margin={M} is over 20% of the window: that much unused room costs history for no gain.")
    try:
        h_max = history_budget(L, S, U, R, margin=M)
    except ValueError as exc:  # pragma: no cover - the ranges above leave room
        return q.wrong(str(exc))
    whole = h_max + S + U  # = L - R - M: the cap of a list that also holds the system prompt and the new input
    if cap == L:
        return q.wrong(f"max_tokens={cap} is the whole window; the list you trim gets only what R and M (and, "
                       f"for the history alone, S and U) leave.")
    if whole_list:
        if cap == h_max:
            return q.wrong(f"max_tokens={cap} is H_max, the room for the history alone. With include_system=True "
                           f"the list you trim also holds the system prompt ({S}) and the new input ({U}), so its "
                           f"cap is H_max + S + U = L - R - M = {whole}; with H_max the history gets {S + U} "
                           f"tokens less than it may use.")
        if cap == L - R:
            return q.wrong(f"max_tokens={cap} is L - R, without the margin: use L - R - M = {whole}.")
        if cap > whole:
            return q.wrong(f"max_tokens={cap} is more than L - R - M = {L} - {R} - {M} = {whole}: a full list "
                           f"would push the call over the window, into the room kept for the reply.")
        if cap < whole:
            return q.wrong(f"max_tokens={cap} is below L - R - M = {whole} with your own R and M: the model "
                           f"forgets sooner than it has to. The list holds S and U too, so use L - R - M.")
    else:
        if cap == whole:
            return q.wrong(f"max_tokens={cap} is L - R - M, the cap for the whole list with the system prompt and "
                           f"the new input in it. With include_system=False you trim the history alone, so its cap "
                           f"is H_max = L - S - U - R - M = {h_max}: {cap} would let the history take the room of "
                           f"S and U and push the call over the window.")
        if cap == L - S - U - R:
            return q.wrong(f"max_tokens={cap} is B, without the margin: use H_max = L - S - U - R - M = {h_max}.")
        if cap > h_max:
            return q.wrong(f"max_tokens={cap} is more than H_max = {L} - {S} - {U} - {R} - {M} = {h_max}: a full "
                           f"history would push the call over the window.")
        if cap < h_max:
            return q.wrong(f"max_tokens={cap} is below H_max = {h_max} with your own R and M: the model forgets "
                           f"sooner than it has to. Use H_max.")
    start_on = plan["start_on"]
    if start_on not in ("human", HumanMessage, ("human",), ["human"]):
        return q.wrong(f"start_on={start_on!r}: an agent's history holds ToolMessages; trimmed on a budget it can "
                       f"start with one whose tool call was cut. start_on=\"human\" avoids that.")
    _need_reason(q, why)
    from course_utils.samples import load_conversation

    agent = load_conversation("agent_tools")
    if whole_list:
        kept = trim_messages(agent, **safe_trim_kwargs(cap, "approximate"))
        how = (f"max_tokens = L - R - M = {whole} (H_max = {h_max}, plus S and U, which are in the list), so a "
               f"full list still fits. With it the whole agent_tools conversation ({len(kept)} messages, system "
               f"prompt included)")
    else:
        kept = trim_messages(agent[1:], max_tokens=cap, token_counter="approximate", strategy="last",
                             start_on="human")
        how = (f"max_tokens = H_max = {h_max}, so a full history still fits. With it the whole agent_tools "
               f"history ({len(kept)} messages)")
    return q.correct(f"R = {R} covers replies up to {longest}, M = {M} covers the 5% counting error, and {how} "
                     f"is sent without an orphaned ToolMessage.")
