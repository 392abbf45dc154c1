"""Questions as data (learntools' style): answers, reference, generated cases, rules and known mistakes.

A code question is a :class:`CodeQuestion`: it *declares*

- ``answers``: the names the notebook passes to ``qN.check(...)``;
- ``cases(rng)``: the inputs, made at check time from a fresh random source
  (random users and thread ids, sizes just under, just over and far over each
  threshold the question states), for each of ``seeds`` seeds, so a constant
  that fits one run does not fit the next;
- ``run(q, answers, case)``: runs the learner's answer on one case and returns
  an observation (what came back, every model call, what the store holds...);
- ``rules``: each a :class:`Rule` the question states, checked on every
  observation, with its own message;
- ``mistakes``: each a :class:`Mistake`, a small testable unit: a test on the
  observation that recognises a known wrong answer, and the hint it gets.
  When a rule fails, the first mistake that recognises the observation gives
  the feedback; otherwise the rule's own message does.

A reason question is a choice (or a computed answer) plus a
:class:`Statements` list: the learner picks *every* statement that justifies
the choice (:func:`grade_statements`, exact: all must be right), and may add
a reason in their own words (:func:`own_words`), which the package never
grades: it is recorded "for the teacher" and, after an attempt, the learner
sees the model reasoning to compare with.

>>> rule = Rule("returns text", lambda obs, case: isinstance(obs, str), "return a confirmation")
>>> rule.holds("Saved.", None), rule.holds(None, None)
(True, False)
>>> Mistake("returns None", "return a short confirmation", lambda obs, case: obs is None).spots(None, None)
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from course_utils.checks.machinery import CheckResult, Exercise, Question, describe
from course_utils.core.i18n import _


# --- code questions ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One generated input: a short ``label`` for feedback ("user 'u-4821', a 1,012-token result") and ``data``."""

    label: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return self.data[key]


@dataclass(frozen=True)
class Rule:
    """A rule the question states, checked on every case: ``holds(observation, case)``; ``message`` when it fails.

    ``message`` may hold ``{case}`` (the case's label) and the names of ``details(observation, case)``.
    """

    name: str
    test: Callable[[Any, Case], bool]
    message: str
    details: Callable[[Any, Case], Mapping[str, Any]] | None = None

    def holds(self, observation: Any, case: Case | None) -> bool:
        return bool(self.test(observation, case))

    def says(self, observation: Any, case: Case) -> str:
        values = dict(self.details(observation, case)) if self.details else {}
        return _(self.message).format(case=case.label, **values)


@dataclass(frozen=True)
class Mistake:
    """A known wrong answer: ``spots(observation, case)`` recognises it, ``hint`` says what to change."""

    name: str
    hint: str
    test: Callable[[Any, Case], bool]

    def spots(self, observation: Any, case: Case | None) -> bool:
        try:
            return bool(self.test(observation, case))
        except Exception:  # noqa: BLE001 - a mistake that cannot read this observation is not this one
            return False


#: How many seeds a code question runs by default: more than one, so one lucky run is not enough.
SEEDS = 2


@dataclass(frozen=True)
class CodeQuestion:
    """A code question as data; :meth:`register` makes it the next question of an exercise."""

    title: str
    answers: tuple[str, ...]
    hints: tuple[str, ...]
    prepare: Callable[[Question, tuple], tuple]  #: checks the answers' shape (a tool? a function?); returns them
    cases: Callable[[random.Random], Sequence[Case]]
    run: Callable[[Question, tuple, Case], Any]
    rules: tuple[Rule, ...]
    mistakes: tuple[Mistake, ...] = ()
    praise: str = "Right."
    seeds: int = SEEDS

    @property
    def usage(self) -> str:
        return f"check({', '.join(self.answers)})"

    def judge(self, q: Question, *answers: Any, rng: random.Random | None = None) -> CheckResult:
        """Run every rule on every generated case; the first failure is explained by a known mistake or its rule."""
        answers = self.prepare(q, answers)
        source = rng or random.Random(random.SystemRandom().randrange(2 ** 32))
        for _seed in range(self.seeds):
            for case in self.cases(random.Random(source.randrange(2 ** 32))):
                observation = self.run(q, answers, case)
                for rule in self.rules:
                    if rule.holds(observation, case):
                        continue
                    for mistake in self.mistakes:
                        if mistake.spots(observation, case):
                            return q.wrong(_("{case}: {hint}").format(case=case.label, hint=_(mistake.hint)))
                    return q.wrong(rule.says(observation, case))
        return q.correct(_(self.praise))

    def register(self, exercise: Exercise, number_hint: int | None = None) -> Question:
        usage = f"q{len(exercise.questions) + 1}.{self.usage}" if number_hint is None else f"q{number_hint}.{self.usage}"
        args = ", ".join(self.answers)
        namespace: dict[str, Any] = {"spec": self}
        exec(f"def checker(q, {args}):\n    return spec.judge(q, {args})", namespace)  # noqa: S102 - names only
        question = exercise.question(self.title, usage, hints=self.hints)(namespace["checker"])
        question.spec = self
        return question


# --- reasons: statements to pick, and the learner's own words --------------------------------------


class Kind(Enum):
    """What a statement in a reason list is."""

    JUSTIFIES = "justifies"  #: a true relation that justifies the choice
    REVERSED = "reversed"  #: a true relation turned round (false)
    SWAPPED = "swapped"  #: the right relation said of the wrong subject (false)
    IRRELEVANT = "irrelevant"  #: true, but it does not bear on the choice


@dataclass(frozen=True)
class Statement:
    text: str
    kind: Kind


@dataclass(frozen=True)
class Statements:
    """The numbered statements of a reason question (1, 2, ...), the model reasoning and the teacher's rubric."""

    items: tuple[Statement, ...]
    model_answer: str  #: shown to the learner after an attempt in their own words, and to the teacher
    rubric: str  #: what the teacher looks for in the learner's own words

    def __post_init__(self):
        kinds = {s.kind for s in self.items}
        if Kind.JUSTIFIES not in kinds or not kinds & {Kind.REVERSED, Kind.SWAPPED}:
            raise ValueError("a reason list needs statements that justify and statements that reverse or swap")

    @property
    def right(self) -> frozenset[int]:
        return frozenset(i for i, s in enumerate(self.items, start=1) if s.kind is Kind.JUSTIFIES)

    def holder(self) -> Any:
        """An object whose ``statements`` is this list: a hand-written question's ``spec``."""
        from types import SimpleNamespace

        return SimpleNamespace(statements=self)

    def listing(self) -> str:
        """The statements as the notebook lists them (English)."""
        return "\n".join(f"{i}. {s.text}" for i, s in enumerate(self.items, start=1))


def picked_numbers(q: Question, reasons: Any, count: int, name: str = "reasons") -> frozenset[int]:
    """``reasons`` as a set of statement numbers 1..count, or stop with what is wrong about its shape."""
    q.need(reasons, name)
    if isinstance(reasons, int) and not isinstance(reasons, bool):
        reasons = [reasons]
    if isinstance(reasons, (str, bytes)) or not isinstance(reasons, (set, frozenset, list, tuple)):
        q.stop(q.wrong(_("`{name}` should be the numbers of the statements you pick, e.g. `{{1, 4}}`, got {value}.")
                       .format(name=name, value=describe(reasons))))
    numbers = set()
    for item in reasons:
        if isinstance(item, bool) or not isinstance(item, int) or not 1 <= item <= count:
            q.stop(q.wrong(_("`{name}` holds {value}: each item must be a statement number from 1 to {count}.")
                           .format(name=name, value=describe(item), count=count)))
        numbers.add(item)
    if not numbers:
        q.stop(q.wrong(_("`{name}` is empty: pick every statement that justifies your answer.").format(name=name)))
    return frozenset(numbers)


def grade_statements(q: Question, reasons: Any, statements: Statements) -> CheckResult | None:
    """None when ``reasons`` is exactly the statements that justify; else "not quite", saying how many are off.

    It does not say which: the learner reads the statements again (a hint names the kinds of wrong statement).
    """
    picked = picked_numbers(q, reasons, len(statements.items))
    wrong = picked - statements.right
    missing = statements.right - picked
    if not wrong and not missing:
        return None
    parts = []
    if wrong:
        parts.append(_("{count} of the statements you picked do not justify it (one reverses a relation, says it "
                       "of the wrong thing, or is true but beside the point)").format(count=len(wrong)))
    if missing:
        parts.append(_("{count} statement(s) that justify it are missing").format(count=len(missing)))
    return q.wrong(_("your reasons are not quite right: {parts}. Pick every statement that justifies the answer, "
                     "and only those.").format(parts="; ".join(parts)))


def own_words(q: Question, text: Any, statements: Statements, name: str = "own_words") -> str | None:
    """Note the learner's own words for the teacher (never graded); the text, or None when not written."""
    if text is Ellipsis or text is None or (isinstance(text, str) and not text.strip()):
        return None
    if not isinstance(text, str):
        q.stop(q.wrong(_("`{name}` should be your reason in your own words, as a string, got {value}.").format(
            name=name, value=describe(text))))
    q.note_answer_text(text)
    return text


def with_own_words(q: Question, result: CheckResult, written: str | None, statements: Statements) -> CheckResult:
    """``result`` with what happens to the learner's own words added: for the teacher, and the model reasoning."""
    from dataclasses import replace

    if written is None:
        extra = _("Write your reason in your own words in `own_words` too: your teacher reads it (it is never "
                  "marked by the check), and you will then see the model reasoning to compare with.")
    else:
        extra = _("Your own words are kept for your teacher (the check never marks them). Compare them with the "
                  "model reasoning: {model}").format(model=_(statements.model_answer))
    return replace(result, message=f"{result.message}\n\n{extra}")


@dataclass(frozen=True)
class ChoiceQuestion:
    """A multiple-choice question whose reasons are picked from :class:`Statements`, plus the learner's own words.

    The learner calls ``qN.check(choice, reasons, own_words)``. ``choice`` and
    ``reasons`` are graded exactly (both must be right); ``own_words`` is for the teacher.
    """

    title: str
    hints: tuple[str, ...]
    options: Mapping[str, str]
    answer: str
    feedback: Mapping[str, str]
    praise: str
    statements: Statements

    def __post_init__(self):
        missing = sorted(set(self.options) - {self.answer} - set(self.feedback))
        if self.answer not in self.options or missing:
            raise ValueError(f"answer {self.answer!r} must be one of the options {sorted(self.options)}, and every "
                             f"other option needs feedback (missing: {missing})")

    def judge(self, q: Question, choice: Any, reasons: Any, own: Any) -> CheckResult:
        from course_utils.checks.kinds import letter_of

        q.need(choice, "choice")
        letter = letter_of(choice)
        if letter not in self.options:
            return q.wrong(_("`choice` should be one of the letters {letters}, got {value}.").format(
                letters=", ".join(repr(k) for k in self.options), value=describe(choice)))
        written = own_words(q, own, self.statements)
        q.need(reasons, "reasons")
        if letter != self.answer:
            result = q.wrong(_("({letter}) is not it: {feedback}").format(letter=letter,
                                                                        feedback=_(self.feedback[letter])))
        else:
            result = grade_statements(q, reasons, self.statements)
            if result is None:
                result = q.correct(_(self.praise))
        return with_own_words(q, result, written, self.statements)

    def register(self, exercise: Exercise) -> Question:
        number = len(exercise.questions) + 1
        question = exercise.question(self.title, f"q{number}.check(choice, reasons, own_words)", hints=self.hints)(
            lambda q, choice, reasons, own_words: self.judge(q, choice, reasons, own_words))
        question.spec = self
        return question


def judge_function_and_reasons(q: Question, check: Callable[[Question, Any], CheckResult | None], function: Any,
                               reasons: Any, own: Any, statements: Statements, praise: str) -> CheckResult:
    """A function checked on its scenarios, then its reasons picked from ``statements``; own words go to the teacher.

    ``check(q, function)`` returns None when the function passes every
    scenario, else the result that says where it does not. ``praise`` is the
    message for a right function with the right reasons (already translated).
    """
    written = own_words(q, own, statements)
    result = check(q, function)
    if result is None:
        q.need(reasons, "reasons")
        result = grade_statements(q, reasons, statements)
    if result is None:
        result = q.correct(praise)
    return with_own_words(q, result, written, statements)


def register_function_question(exercise: Exercise, spec: Any, title: str, name: str, hints: tuple[str, ...],
                               judge: Callable[[Question, Any, Any, Any], CheckResult]) -> Question:
    """Add ``qN.check(<name>, reasons, own_words)`` to ``exercise``, judged by ``judge``; ``spec`` declares it."""
    number = len(exercise.questions) + 1
    question = exercise.question(title, f"q{number}.check({name}, reasons, own_words)", hints=hints)(
        lambda q, function, reasons, own_words: judge(q, function, reasons, own_words))
    question.spec = spec
    return question


def statements_of(question: Question) -> Statements | None:
    """The reason statements a registered question declares, or None."""
    spec = getattr(question, "spec", None)
    return getattr(spec, "statements", None)
