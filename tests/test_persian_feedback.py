"""A Persian learner's wrong answer gets Persian feedback, with no English sentence left in it (issue 23).

Every question of every exercise (01-07) is checked in Persian with the
wrong answers of tests/test_exercises.py (a written reason among them made
Persian), with a missing answer, answers of the wrong type, a call with
too few or too many answers, and short or vague Persian reasons; its
hints, solution and title are read too. :func:`english_phrases` finds what
is still English in the message: a run of three or more English words.

What may stay Latin, and why (removed before looking):

- code: a `code span`, and the names a message writes bare (``max_tokens=80``,
  ``AIMessage``, ``trim_messages``: a token with ``_``, ``=``, ``(``, a digit or
  an inner capital is a name, not a word; single letters are the course's
  variables L, S, U, R, M and the options' letters);
- data: a quoted value (``'...'`` or ``"..."``: the learner's answer, a
  sample conversation's text, a tool's result), as ``repr`` shows it;
- what a check puts in a left-to-right isolate (U+2066 ... U+2069,
  ``machinery.ltr``) because it is Latin by design: the text of an exception
  the learner's code (or the model it called) raised, as Python words it; a
  list of ids or numbers; LangChain's message types (``human``, ``ai``,
  ``tool``, ``system``, also allowed bare);
- the glossary's terms that the Persian edition keeps in Latin script
  (notebooks/fa/GLOSSARY.md: token, trim, summary, state, node, ...) and two
  more the catalogue keeps Latin (cache, hook): never three in a row in Persian;
- two names of published findings, "lost in the middle" (Liu et al., 2023)
  and "context rot" (Hong et al., 2025), which lesson 06b names in Latin too.
"""

from __future__ import annotations

import re

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

import test_exercises as english_cases
from test_persian_edition import glossary
from course_utils.checks import kinds, machinery
from course_utils.core import i18n
from course_utils.pictures import trim_view

pytestmark = pytest.mark.usefixtures("lenient")  # tests/conftest.py: wrong answers are returned, not raised

EXERCISES = list(english_cases.EXERCISES.values())
QUESTIONS = [q for exercise in EXERCISES for q in exercise.questions]
ARABIC_SCRIPT = re.compile("[\u0600-\u06ff]")
ISOLATES = re.compile("[\u2066-\u2069]")
#: A left-to-right isolate (no isolate inside it): Latin by design (see the module's docstring).
LTR_ISOLATE = re.compile("\u2066[^\u2066-\u2069]*\u2069")

#: A Persian reason, put in place of the English one in test_exercises' wrong answers.
PERSIAN_WHY = "تاریخچه با هر فراخوانی دوباره فرستاده می‌شود"
#: Reasons a Persian learner may write that the judge does not accept: too short, vague, a bag of words.
PERSIAN_WRONG_WHYS = ("چون", "نمی‌دانم ولی فکر می‌کنم این درست است", "token پنجره trim تاریخچه summary")

#: LangChain's message types (``message.type``): API names, kept Latin in a Persian line.
MESSAGE_TYPES = {"human", "ai", "tool", "system"}
#: Terms the Persian edition writes in Latin script: the glossary's (its Persian form is the English term) and two more.
LATIN_TERMS = {term for term, form, _ in glossary() if form == term and " " not in term} | {"cache", "hook"}
#: Names of published findings, written in Latin where the lessons name them.
NAMED_FINDINGS = ("lost in the middle", "context rot")
_QUOTED = re.compile(r"""(?<![A-Za-z])'[^'\n]*'(?![A-Za-z])|"[^"\n]*\"""")


def _is_english_word(token: str) -> bool | None:
    """True: an English word; None: a number or punctuation (neither word nor break); False: anything else."""
    if token in ("a", "an", "I"):
        return True
    word = token.strip(".,;:!?()[]\u2026")
    if not word or re.fullmatch(r"[\d.,:%+\-*/=<>^…]+", word):
        return None
    if len(word) == 1 or word.lower() in MESSAGE_TYPES or word.lower() in LATIN_TERMS:
        return False  # a variable or an option's letter; a message type; a term Persian keeps in Latin
    return re.fullmatch(r"[A-Za-z][a-z]*(?:'[a-z]+)?", word) is not None


def english_phrases(text: str) -> list[str]:
    """The runs of three or more English words in ``text``, outside code, quoted data and the allowed phrases.

    >>> english_phrases("`q1` باید یک عدد باشد")
    []
    >>> english_phrases("یک state با 14 messages must not be empty")
    ['messages must not be empty']
    """
    text = LTR_ISOLATE.sub(" | ", text)
    text = ISOLATES.sub("", text)
    text = re.sub(r"`[^`]*`", " | ", text)
    for phrase in NAMED_FINDINGS:
        text = text.replace(phrase, " | ")
    text = _QUOTED.sub(" | ", text)
    runs, run = [], []
    for token in text.split():
        kind = _is_english_word(token)
        if kind is None:
            continue
        if kind:
            run.append(token)
            continue
        if len(run) >= 3:
            runs.append(" ".join(run))
        run = []
    if len(run) >= 3:
        runs.append(" ".join(run))
    return runs


@pytest.fixture
def persian():
    i18n.set_language("fa")
    yield
    i18n.set_language("en")


def _answers(q, args) -> list:
    """``args`` with an English written reason ("why") replaced by a Persian one: a Persian learner writes Persian."""
    args = list(args)
    names = q.answer_names
    if "why" in names and names.index("why") < len(args):
        i = names.index("why")
        if isinstance(args[i], str) and re.search("[A-Za-z]{3}", args[i]):
            args[i] = PERSIAN_WHY
    return args


def wrong_answers(q) -> list[tuple]:
    """The wrong answers a check of ``q`` is given here: test_exercises' own, then generic ones."""
    cases = [tuple(_answers(q, args)) for case_q, args, _status, _words in english_cases.WRONG if case_q is q]
    n = len(q.answer_names)
    for bad in (..., None, "many", 3.5, object(), ["x"], lambda *a: None):
        cases.append((bad,) * n)
    if "why" in q.answer_names and cases:
        i = q.answer_names.index("why")
        for why in PERSIAN_WRONG_WHYS:
            for args in cases[:3]:
                if len(args) == n:
                    cases.append(tuple(args[:i]) + (why,) + tuple(args[i + 1:]))
    return cases


def feedback_texts(q) -> list[tuple[str, object]]:
    """(what was asked, result or note) for every wrong answer, the wrong calls, every hint and the solution."""
    shown = [(f"check{args!r}"[:120], q.check(*args)) for args in wrong_answers(q)]
    shown += [("check()", q.check()), ("one answer too many", q.check(*([...] * (len(q.answer_names) + 1)))),
              ("check(x=1)", q.check(x=1))]
    shown += [(f"hint({level})", q.hint(level)) for level in range(1, len(q.hints) + 2)]
    shown.append(("solution()", q.solution()))
    return shown


@pytest.mark.parametrize("q", QUESTIONS, ids=[f"ex{q.exercise}-q{q.number}" for q in QUESTIONS])
def test_every_wrong_answer_hint_and_solution_is_persian(q, persian):
    problems = []
    for asked, shown in feedback_texts(q):
        if isinstance(shown, machinery.CheckResult):
            assert shown.status != "correct", (asked, shown)
            if shown.lang != "fa":
                problems.append(f"{asked}: not Persian: {shown.message}")
        elif not ARABIC_SCRIPT.search(shown.message):
            problems.append(f"{asked}: not Persian: {shown.message}")
        for phrase in english_phrases(shown.message) + english_phrases(shown.question):
            problems.append(f"{asked}: English {phrase!r} in {ISOLATES.sub('', shown.message)}")
    assert not problems, "\n".join(problems)


def test_the_same_answers_in_english_are_found_english():
    """The finder is not blind: the same feedback in English is caught, for every question."""
    assert i18n.get_language() == "en"
    for q in QUESTIONS:
        found = [phrase for _asked, shown in feedback_texts(q) for phrase in english_phrases(shown.message)]
        assert len(found) >= 3, (q.label, found)
    # and the words this file's fixes put into Persian, as they read in English
    assert english_phrases("`q4.check(choice, why)` را صدا بزنید (missing a required argument: 'why')")
    assert english_phrases("`budget` باید یک تابع باشد، اما a object object است.")


# --- the pieces every message is built from ----------------------------------------------------


def _conversation():
    return [SystemMessage("s", id="s"), HumanMessage("h", id="h1"), AIMessage("a", id="a1"),
            HumanMessage("h", id="h2"), AIMessage("", id="a2", tool_calls=[{"name": "t", "args": {}, "id": "c1"}]),
            ToolMessage("r", tool_call_id="c1", id="t1"), AIMessage("a", id="a3")]


def test_counts_and_lists_in_english_are_unchanged():
    assert kinds.counts_of(_conversation()) == "7 messages (1 system, 2 human, 3 ai, 1 tool)"
    assert machinery.short_list(range(10), 3) == "[0, 1, 2, ... (10 in all)]"
    assert machinery.short_list(["h1", "a1"]) == "[h1, a1]"
    assert machinery.describe(object()) == "a object object"
    assert machinery.describe(len) == "function len"
    assert machinery.binding_problem(TypeError("too many positional arguments")) == "too many positional arguments"


def test_counts_and_lists_in_persian(persian):
    counts = kinds.counts_of(_conversation())
    # "7 پیام" in Persian, the types as LangChain names them, left to right in their own isolate
    assert counts == "7 پیام (\u20661 system, 2 human, 3 ai, 1 tool\u2069)"
    listed = ISOLATES.sub("", machinery.short_list(range(10), 3))
    assert listed == "[0, 1, 2, ...] (روی هم 10)"
    # the list keeps its order and its brackets pair in a right-to-left line: it sits in a left-to-right isolate
    assert "\u2066[0, 1, 2, ...]\u2069" in machinery.short_list(range(10), 3)
    assert machinery.short_list(["h1", "a1"]) == "\u2066[h1, a1]\u2069"
    assert ISOLATES.sub("", machinery.describe(object())) == "یک شیء object"
    assert ISOLATES.sub("", machinery.describe(len)) == "تابع len"
    for problem in ("missing a required argument: 'why'", "too many positional arguments",
                    "multiple values for argument 'choice'", "got an unexpected keyword argument 'x'"):
        said = machinery.binding_problem(TypeError(problem))
        assert ARABIC_SCRIPT.search(said) and not english_phrases(said), said
    assert machinery.binding_problem(TypeError("something else")) == "something else"  # unknown: as Python says it


def test_the_line_of_a_learners_error_is_persian(persian):
    def broken(limit, system, user, reserve):
        return {}["total"]

    from course_utils.checks import ex02

    result = ex02.q2.check(broken)
    plain = ISOLATES.sub("", result.message)
    assert result.status == "error" and "(در سطر `return {}[\"total\"]` از broken)" in plain, plain
    assert " in broken" not in plain


# --- the messages list picture ----------------------------------------------------------------


def test_messages_list_in_english_is_unchanged():
    html = trim_view.messages_list_html(_conversation()[:3])
    assert "<b>trim_messages returned 3 messages:</b>" in html and "padding-left:1.4em" in html
    assert "<b>sent 1 message:</b>" in trim_view.messages_list_html(_conversation()[:1], heading="sent")
    assert "<b>trim_messages returned []</b>" in trim_view.messages_list_html([])


def test_messages_list_reads_as_one_persian_line_indented_on_the_right(persian):
    html = trim_view.messages_list_html(_conversation()[:3])
    assert 'lang="fa" dir="rtl"' in html
    assert "<b>trim_messages برگرداند (3 پیام):</b>" in html
    assert "padding-right:1.4em" in html and "padding-left" not in html
    # a caller's heading is the caller's text, shown as given (escaped), inside the Persian line
    html = trim_view.messages_list_html(_conversation()[:3], heading="فهرست <من>")
    assert "<b>فهرست &lt;من&gt; (3 پیام):</b>" in html
    assert "<b>trim_messages برگرداند []</b>" in trim_view.messages_list_html([])


def test_a_list_of_ids_in_a_persian_message_reads_left_to_right(persian):
    """In a right-to-left line the brackets of ['h3', 'a3'] would pair with the Persian around them: it is isolated."""
    from course_utils.checks import ex03

    result = ex03.q1.check(["x9"])  # "['x9'] are not ids of this conversation; use ['h1', 'a1', ...]"
    assert result.lang == "fa" and "\u2066['x9']\u2069" in result.message, result.message
    assert "\u2066['h1', 'a1', 'h2', 'a2', 'h3', 'a3']\u2069" in result._repr_html_().replace("&#x27;", "'")
    # code spans are left as they are (the box shows them left to right already)
    assert machinery.isolate_lists("با `x[0]` و [1, 2]") == "با `x[0]` و \u2066[1, 2]\u2069"


def test_english_lists_are_not_isolated():
    from course_utils.checks import ex03

    assert ex03.q1.check(["x9"]).message.startswith("['x9'] are not")
