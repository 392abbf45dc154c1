"""Exercise 01: measuring growth (``exercises/01_..._exercise.ipynb``, after ``notebooks/01_measuring_growth.ipynb``).

The notebook binds its questions with ``from course_utils.checks import ex01``.

The code questions are data (:mod:`course_utils.checks.questions`). Question 1 asks for the total as a
function, ``total_sent(calls, question, answer)``, run on the question's chat (10 calls of 40 + 60 tokens:
4900) and on chats drawn when the check runs; question 2 runs ``cumulative_sent`` on the lesson's
conversations and on conversations generated now; question 3 checks the report and figure of long_chat and
runs ``first_over(conversation, limit)`` on long_chat at 2000 tokens (call 20), at limits drawn around its
calls, and on generated conversations.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate

from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.messages.utils import count_tokens_approximately

from course_utils.checks.kinds import (
    counts_of,
    letter_of,
    snapshot,
    random_conversation,
    random_costs,
)
from course_utils.checks.questions import (
    Case,
    CodeQuestion,
    Mistake,
    Rule,
    Statements,
    grade_statements,
    own_words,
    with_own_words,
)
from course_utils.checks.reason_lists import EX01_Q4
from course_utils.core.i18n import _, pgettext, translate
from course_utils.checks.machinery import ltr, short_list, describe, Exercise
from course_utils.window.trimming import table_token_counter

ex01 = Exercise("01", "Measuring growth", "01_measuring_growth")

EX01_TURNS, EX01_QUESTION, EX01_ANSWER = 10, 40, 60


# --- question 1: the total sent, as a function ----------------------------------------------------------


def ex01_total(calls: int, question: int, answer: int) -> int:
    """Tokens sent over ``calls`` calls when every turn is a ``question``-token question and an ``answer``-token reply.

    Call k is sent the k - 1 earlier turns and its new question.

    >>> ex01_total(10, 40, 60)
    4900
    """
    return sum((k - 1) * (question + answer) + question for k in range(1, calls + 1))


def _q1_cases(rng: random.Random) -> list[Case]:
    """The question's chat first, then chats drawn now (one of a single call)."""
    chats = [(EX01_TURNS, EX01_QUESTION, EX01_ANSWER), (1, rng.randint(5, 300), rng.randint(5, 900))]
    chats += [(rng.randint(3, 60), rng.randint(5, 300), rng.randint(5, 900)) for _n in range(3)]
    return [Case(ltr(f"total_sent({c}, {q}, {a})"), {"calls": c, "question": q, "answer": a}) for c, q, a in chats]


def _q1_prepare(q, answers):
    (fn,) = answers
    q.need(fn, "total_sent")
    if not callable(fn):
        q.stop(q.wrong(_("`total_sent` should be a function `total_sent(calls, question, answer)`: the check runs it "
                         "on other chats too, so a number typed by hand cannot pass; got {value}.").format(
                             value=describe(fn))))
    return (q.need_function(fn, "total_sent"),)


def _q1_run(q, answers, case):
    (fn,) = answers
    got = q.call(fn, case["calls"], case["question"], case["answer"], about=case.label)
    if isinstance(got, bool) or not isinstance(got, (int, float)) or (isinstance(got, float) and not got.is_integer()):
        q.stop(q.wrong(_("`{about}` returned {value}; `total_sent` should return a whole number of tokens.").format(
            about=case.label, value=describe(got))))
    return int(got)


def _q1_total(case, **change) -> int:
    """The total for the case's chat, with ``calls`` shifted or a part left out (a known mistake's number)."""
    chat = {"calls": case["calls"], "question": case["question"], "answer": case["answer"], **change}
    return ex01_total(chat["calls"], chat["question"], chat["answer"])


def _right_total(obs, case) -> bool:
    return obs == _q1_total(case)


def _q1_mistake(name, hint, wrong):
    """A known mistake whose number ``wrong(case)`` differs from the right total on that case."""
    return Mistake(name, hint, lambda obs, case: obs == wrong(case) != _q1_total(case))


Q1 = CodeQuestion(
    "cumulative tokens sent",
    ("total_sent",),
    hints=(
        "Call k is sent everything before its reply: the k - 1 earlier turns (question + answer) and the new "
        "question.",
        "For the question's chat, call 1 sends 40, call 2 sends 40 + 60 (turn 1) + 40 (the new question) = 140, "
        "call 3 sends 240. Add up `(k - 1) * (question + answer) + question` for k from 1 to `calls`.",
    ),
    prepare=_q1_prepare,
    cases=_q1_cases,
    run=_q1_run,
    rules=(
        Rule("the total over every call", _right_total, "`{case}` returned {got}; the calls send {per_call}, "
             "{right} tokens in all.",
             lambda obs, case: {"got": obs, "right": _q1_total(case), "per_call": short_list(
                 [(k - 1) * (case["question"] + case["answer"]) + case["question"]
                  for k in range(1, case["calls"] + 1)], 4)}),
    ),
    mistakes=(
        _q1_mistake("own answer", "you counted each call's own answer as sent. A call is sent what comes *before* "
                    "its reply; the reply is what comes back.",
                    lambda case: sum(k * (case["question"] + case["answer"]) for k in range(1, case["calls"] + 1))),
        _q1_mistake("the last call alone", "that is what the last call alone sends. The question asks for the total "
                    "over all the calls.",
                    lambda case: (case["calls"] - 1) * (case["question"] + case["answer"]) + case["question"]),
        _q1_mistake("the history once", "that is the size of the history after the last turn, sent once. Every call "
                    "sends the history again, so the total is much larger.",
                    lambda case: case["calls"] * (case["question"] + case["answer"])),
        _q1_mistake("no new question", "you left out the new question that every call sends along with the history.",
                    lambda case: _q1_total(case) - case["calls"] * case["question"]),
        _q1_mistake("questions only", "you counted only the new questions; each call also re-sends the history.",
                    lambda case: case["calls"] * case["question"]),
        _q1_mistake("one call short", "off by one: that is the total one call short. Count calls 1 to `calls`.",
                    lambda case: _q1_total(case, calls=case["calls"] - 1)),
        _q1_mistake("one call over", "off by one: that is the total after one call more. Count calls 1 to `calls`.",
                    lambda case: _q1_total(case, calls=case["calls"] + 1)),
        _q1_mistake("negative", "a number of tokens cannot be negative.", lambda case: -_q1_total(case)),
    ),
    praise="4900 tokens for the question's chat: the calls send 40, 140, 240, ... 940, the history paid for again on "
           "every call, so the total grows with the square of the number of calls. Right on chats drawn when the "
           "check ran too.",
    seeds=1,  # four chats drawn now, after the question's
)
Q1.register(ex01)


# --- question 2: cumulative_sent(messages, token_counter) -------------------------------------------------


def _check_time_seeds(count: int, rng: random.Random | None = None) -> list[int]:
    """``count`` fresh seeds, drawn when the check runs (never the same list twice in a row)."""
    source = rng or random.SystemRandom()
    return [source.randrange(2 ** 31) for _ in range(count)]


def _ex01_reference(messages, counter):
    from course_utils.window.growth import replay_growth

    return replay_growth(messages, counter).column("cumulative_sent_tokens")


def _ex01_cases(rng: random.Random | None = None):
    from course_utils.core.samples import load_conversation
    from course_utils.window.tokens import dummy_token_counter

    cases = [
        (_("the Bob dialogue with the dummy counter"), load_conversation("bob"), dummy_token_counter),
        (_("the agent_tools conversation with the approximate counter"), load_conversation("agent_tools"),
         count_tokens_approximately),
    ]
    for seed in _check_time_seeds(3, rng):  # made at check time: a constant that fits one run does not fit the next
        messages = random_conversation(seed, turns=5 + seed % 3, system=seed % 2 == 1)
        counter = table_token_counter(random_costs(messages, seed))
        cases.append((_("a generated conversation of {counts} with random costs").format(counts=counts_of(messages)),
                      messages, counter))
    return cases


def _q2_cases(rng: random.Random) -> list[Case]:
    return [Case(what, {"messages": messages, "counter": counter}) for what, messages, counter in _ex01_cases(rng)]


def _q2_prepare(q, answers):
    (fn,) = answers
    return (q.need_function(fn, "cumulative_sent"),)


def _q2_run(q, answers, case):
    (fn,) = answers
    messages, counter = case["messages"], case["counter"]
    given = list(messages)
    got = q.call(fn, given, counter, about=case.label)
    if snapshot(given) != snapshot(messages):
        q.stop(q.wrong(_("for {what} your function changed the list it was given. Measure without changing the "
                         "conversation.").format(what=case.label)))
    if isinstance(got, (str, bytes)) or not isinstance(got, Sequence):
        q.stop(q.wrong(_("return a list with one running total per model call; for {what} you returned "
                         "{describe}.").format(what=case.label, describe=describe(got))))
    return {"got": list(got), "right": _ex01_reference(messages, counter)}


def _calls_at(case, kind=AIMessage) -> list[int]:
    return [i for i, m in enumerate(case["messages"]) if isinstance(m, kind)]


def _q2_mistake(name, hint, wrong):
    """A known mistake: the learner's list is ``wrong(case)``, which is not the right one."""
    return Mistake(name, hint, lambda obs, case: obs["got"] == wrong(case) != obs["right"])


Q2 = CodeQuestion(
    "cumulative_sent(messages, token_counter)",
    ("cumulative_sent",),
    hints=(
        "A model call happens at every AIMessage (an agent makes several in a row). Find their positions with "
        "`[i for i, m in enumerate(messages) if isinstance(m, AIMessage)]`.",
        "Call i is sent `messages[:i]`, everything before that AIMessage. Count it with "
        "`token_counter(messages[:i])` and keep a running total.",
    ),
    prepare=_q2_prepare,
    cases=_q2_cases,
    run=_q2_run,
    rules=(
        Rule("one total per model call", lambda obs, case: len(obs["got"]) == len(obs["right"]),
             "for {case} there are {count} model calls (one per AIMessage), but you returned {got} numbers.",
             lambda obs, case: {"count": len(obs["right"]), "got": len(obs["got"])}),
        Rule("the running totals", lambda obs, case: obs["got"] == obs["right"],
             "for {case} the running totals should be {right}, you returned {got}.",
             lambda obs, case: {"right": short_list(obs["right"]), "got": short_list(obs["got"])}),
    ),
    mistakes=(
        _q2_mistake("the reply included", "you included each reply in what its call was sent. A call is sent "
                    "`messages[:i]`, what comes before the AIMessage at position i.",
                    lambda case: list(accumulate(case["counter"](case["messages"][: i + 1]) for i in _calls_at(case)))),
        _q2_mistake("per call", "these are the tokens of each call on its own; the question asks for the running "
                    "total.", lambda case: [case["counter"](case["messages"][:i]) for i in _calls_at(case)]),
        _q2_mistake("per human message", "you counted one call per human message. A model call happens at every "
                    "AIMessage: an agent that calls a tool makes two calls for one question.",
                    lambda case: list(accumulate(case["counter"](case["messages"][: i + 1])
                                                 for i in _calls_at(case, HumanMessage)))),
        _q2_mistake("messages, not tokens", "you added up numbers of messages, not tokens: use "
                    "`token_counter(...)`.", lambda case: list(accumulate(len(case["messages"][:i])
                                                                         for i in _calls_at(case)))),
        _q2_mistake("reversed", "your totals are in reverse order: the first number is after call 1.",
                    lambda case: list(reversed(_ex01_reference(case["messages"], case["counter"])))),
    ),
    praise="your running totals match a replay of every model call on the Bob dialogue, the agent with tool calls "
           "and three conversations generated when the check ran.",
    seeds=1,  # three conversations drawn now, after the lesson's two
)
Q2.register(ex01)


# --- question 3: long_chat's report and figure, and first_over(conversation, limit) ------------------------

EX01_LIMIT = 2000


def ex01_first_over(messages, limit: int) -> int | None:
    """The number of the first call whose input is over ``limit`` (approximate counter), or None.

    >>> from course_utils.core.samples import load_conversation
    >>> ex01_first_over(load_conversation("long_chat"), 2000)
    20
    """
    from course_utils.window.growth import replay_growth

    first = replay_growth(messages, "approximate", limit=limit).first_over_limit
    return None if first is None else first.call


def _q3_cases(rng: random.Random) -> list[Case]:
    """long_chat at 2000 (the question's), at limits just under, at and over a call's input, and generated chats."""
    from course_utils.core.samples import load_conversation
    from course_utils.window.growth import replay_growth

    chat = load_conversation("long_chat")
    sent = [row.sent_tokens for row in replay_growth(chat, "approximate").rows]
    k = rng.randrange(2, len(sent) - 1)
    limits = (sent[k] - 1, sent[k], sent[0] - 1, max(sent) + rng.randint(0, 500))
    cases = [Case(_("long_chat with limit={limit}").format(limit=EX01_LIMIT),
                  {"messages": chat, "limit": EX01_LIMIT, "lesson": True})]
    cases += [Case(_("long_chat with limit={limit}").format(limit=limit), {"messages": chat, "limit": limit})
              for limit in limits]
    for seed in _check_time_seeds(2, rng):
        messages = random_conversation(seed, turns=8, system=True)
        limit = _limit_long_chat_disagrees_on(messages, chat, rng)
        cases.append(Case(_("a generated conversation of {counts} with limit={limit}").format(
            counts=counts_of(messages), limit=limit), {"messages": messages, "limit": limit}))
    return cases


def _limit_long_chat_disagrees_on(messages, chat, rng: random.Random) -> int:
    """A limit near the middle of ``messages`` at which ``chat`` has another first call over it.

    So a ``first_over`` that measures long_chat whatever it is given cannot
    match the generated conversation by chance.
    """
    from course_utils.window.growth import replay_growth

    rows = replay_growth(messages, "approximate").rows
    middle = len(rows) // 2
    for index in sorted(range(1, len(rows)), key=lambda i: abs(i - middle)):
        limit = rows[index].sent_tokens - rng.randint(0, 3)
        if ex01_first_over(messages, limit) != ex01_first_over(chat, limit):
            return limit
    return rows[middle].sent_tokens


def _q3_prepare(q, answers):
    from course_utils.window.growth import GrowthReport
    from matplotlib.figure import Figure

    report, fig, fn = answers
    q.need(report, "report")
    if not isinstance(report, GrowthReport):
        q.stop(q.wrong(_("`report` should be what `replay_growth` returns, got {describe}.").format(
            describe=describe(report))))
    q.need(fig, "fig")
    if not isinstance(fig, Figure):
        q.stop(q.wrong(_("`fig` should be the Figure `growth_figure(report)` returns, got {describe}.").format(
            describe=describe(fig))))
    q.need(fn, "first_over")
    if not callable(fn):
        q.stop(q.wrong(_("`first_over` should be a function `first_over(conversation, limit)`: the check runs it on "
                         "other limits and conversations too, so a number typed by hand cannot pass; got "
                         "{value}.").format(value=describe(fn))))
    return report, fig, q.need_function(fn, "first_over")


def _figure_labels(fig) -> set[str]:
    # The figure's labels are in the course's language (an RTL one wraps each in an isolate): read them bare.
    return {re.sub("[\u2066-\u2069]", "", line.get_label()) for ax in fig.axes for line in ax.get_lines()}


def _q3_run(q, answers, case):
    from course_utils.window.growth import replay_growth

    report, fig, fn = answers
    messages, limit = case["messages"], case["limit"]
    got = q.call(fn, list(messages), limit, about=case.label)
    if got is not None and (isinstance(got, bool) or not isinstance(got, int)):
        q.stop(q.wrong(_("`first_over` should return a call number (an int), or None when no call is over; for "
                         "{about} it returned {value}.").format(about=case.label, value=describe(got))))
    right = replay_growth(messages, "approximate", limit=limit)
    obs = {"got": got, "right": right.first_over_limit, "rows": right.rows, "report": report, "fig": fig}
    if case.data.get("lesson"):
        obs["expected_report"] = right
    return obs


def _lesson_only(test):
    """A rule about the report or the figure: checked on the question's case (long_chat at 2000) only."""
    return lambda obs, case: "expected_report" not in obs or test(obs)


def _right_call(obs) -> int | None:
    return None if obs["right"] is None else obs["right"].call


def _draws_sent_and_limit(obs) -> bool:
    labels = _figure_labels(obs["fig"])
    sent = {"tokens sent", translate("tokens sent")}
    limit = {f"limit {EX01_LIMIT}", translate("limit {limit}").format(limit=EX01_LIMIT)}
    return bool(labels & sent and labels & limit)


Q3 = CodeQuestion(
    "measure and plot long_chat",
    ("report", "fig", "first_over"),
    hints=(
        "`report = replay_growth(conversation, \"approximate\", limit=2000)` and `fig = growth_figure(report)`.",
        "In `first_over`, replay the conversation with the limit it is given: `.first_over_limit` is the first row "
        "whose `sent_tokens` is over it (None if none is), and its `.call` is the call number (1 for the first "
        "call).",
    ),
    prepare=_q3_prepare,
    cases=_q3_cases,
    run=_q3_run,
    rules=(
        Rule("the approximate counter", _lesson_only(lambda obs: obs["report"].token_counter == "approximate"),
             "`report` was measured with the {counter!r} counter; use \"approximate\".",
             lambda obs, case: {"counter": obs["report"].token_counter}),
        Rule("the limit", _lesson_only(lambda obs: obs["report"].limit == EX01_LIMIT),
             "`report` has limit={limit}; pass `limit={right}` so each row says whether its call is over.",
             lambda obs, case: {"limit": obs["report"].limit, "right": EX01_LIMIT}),
        Rule("every call", _lesson_only(lambda obs: obs["report"].calls == obs["expected_report"].calls),
             "`report` has {calls} calls; long_chat has {right} AIMessages, so {right} calls. Replay the whole "
             "`conversation`.", lambda obs, case: {"calls": obs["report"].calls,
                                                   "right": obs["expected_report"].calls}),
        Rule("nothing trimmed", _lesson_only(lambda obs: obs["report"].policy is None
                                             and obs["report"].rows == obs["expected_report"].rows),
             "`report` does not match replaying long_chat with nothing trimmed: leave out `policy`."),
        Rule("the figure", _lesson_only(_draws_sent_and_limit),
             "`fig` should show the tokens sent per call against the limit: draw it with `growth_figure(report)`."),
        Rule("the first call over", lambda obs, case: obs["got"] == _right_call(obs),
             "for {case} the first call over the limit is {right}, you returned {got}.",
             lambda obs, case: {"right": describe(_right_call(obs)), "got": describe(obs["got"])}),
    ),
    mistakes=(
        Mistake("a position", "that is the position of that call's AIMessage in the conversation, not the call "
                "number. Calls are numbered 1, 2, 3, ...",
                lambda obs, case: obs["right"] is not None and obs["got"] == obs["right"].ai_index != obs["right"].call),
        Mistake("at the limit", "that call sends exactly the limit, which still fits: a call is over when it sends "
                "*more* than the limit.",
                lambda obs, case: any(r.sent_tokens == case["limit"] and r.call == obs["got"] for r in obs["rows"])),
        Mistake("the last call that fits", "that call still fits; the question asks for the first call that is "
                "over.", lambda obs, case: obs["right"] is not None and obs["got"] == obs["right"].call - 1),
        Mistake("one too many", "off by one: look at the row before that one.",
                lambda obs, case: obs["right"] is not None and obs["got"] == obs["right"].call + 1),
        Mistake("never over", "a call is over this limit, but you returned None.",
                lambda obs, case: obs["got"] is None and obs["right"] is not None),
        Mistake("the running total", "you compared the running total with the limit; the limit is on what *one* "
                "call is sent: compare each call's `sent_tokens`.",
                lambda obs, case: obs["got"] == next((r.call for r in obs["rows"]
                                                      if r.cumulative_sent_tokens > case["limit"]), None)
                != _right_call(obs)),
    ),
    praise="call 20 is the first to send more than 2000 tokens of long_chat (2086); with nothing trimmed every later "
           "call is over too, and the cumulative curve bends upward. Your `first_over` finds the first call over "
           "other limits and on generated conversations too.",
    seeds=1,  # limits and conversations drawn now, after the question's
)
Q3.register(ex01)


EX01_OPTIONS = {"a": "exponentially", "b": "not at all", "c": "linearly", "d": "quadratically"}


@dataclass(frozen=True)
class GrowthChoice:
    """One letter of question 4 as data: its answer name, the right option, and the hint for each wrong option.

    ``intro`` says which option was picked (``{a}`` or ``{b}`` the letter, ``{ex01_options}`` its word);
    ``feedback`` maps each wrong option's word to what is wrong with it.
    """

    name: str
    answer: str
    intro: str
    letter_key: str
    feedback: Mapping[str, str]

    def says(self, letter: str) -> str | None:
        """None when ``letter`` is the right option; else the hint for it."""
        option = EX01_OPTIONS[letter]
        if option == self.answer:
            return None
        return _(self.intro).format(**{self.letter_key: letter}, ex01_options=pgettext("exercise 01", option),
                                    feedback=_(self.feedback[option]))


EX01_Q4_CHOICES = (
    GrowthChoice("without_trim", "quadratically", "without trimming, not ({a}) {ex01_options}: {feedback}", "a", {
        "linearly": "the tokens *per call* grow linearly, because each call adds a turn to the history; the "
                    "cumulative total adds those growing numbers up, so it grows faster than linearly.",
        "exponentially": "exponential growth would mean each call costs a multiple of the previous one. Here each "
                         "call costs the previous one plus one turn: a sum of growing terms, about n^2 / 2.",
        "not at all": "every call sends something, so the total can only grow.",
    }),
    GrowthChoice("with_trim", "linearly", "with trimming, not ({b}) {ex01_options}: {feedback}", "b", {
        "quadratically": "with a cap, every call costs at most the cap, so after the history fills the cap the "
                         "total grows by about the same amount per call.",
        "exponentially": "with a cap the cost per call stops growing.",
        "not at all": "every call still sends up to the cap, so the total keeps growing.",
    }),
)


@ex01.question(
    "how does it grow?",
    "q4.check(without_trim, with_trim, reasons, own_words)",
    hints=(
        "Without trimming, call k re-sends the whole history, which grows by a turn each call.",
        "1 + 2 + ... + n = n(n + 1)/2. With a cap, each call costs at most the cap.",
    ),
)
def _ex01_q4(q, without_trim, with_trim, reasons, own_words_text):
    written = own_words(q, own_words_text, EX01_Q4)
    return with_own_words(q, _ex01_q4_marks(q, without_trim, with_trim, reasons), written, EX01_Q4)


_ex01_q4.spec = Statements.holder(EX01_Q4)  # the statements and model answer, for the review queue


def _ex01_q4_marks(q, without_trim, with_trim, reasons):
    """The two letters against :data:`EX01_Q4_CHOICES`, then the statements: all must be right."""
    given = (without_trim, with_trim)
    letters = []
    for choice, value in zip(EX01_Q4_CHOICES, given):
        q.need(value, choice.name)
    for choice, value in zip(EX01_Q4_CHOICES, given):
        letter = letter_of(value)
        if letter not in EX01_OPTIONS:
            return q.wrong(_("`{name}` should be one of the letters 'a', 'b', 'c', 'd', got "
                             "{describe}.").format(name=choice.name, describe=describe(value)))
        letters.append(letter)
    q.need(reasons, "reasons")
    for choice, letter in zip(EX01_Q4_CHOICES, letters):
        hint = choice.says(letter)
        if hint is not None:
            return q.wrong(hint)
    wrong = grade_statements(q, reasons, EX01_Q4)
    if wrong is not None:
        return wrong
    return q.correct(_("quadratically without trimming (each call re-sends a longer history), "
                       "linearly with a cap (each call costs at most the cap)."))


#: Question 5: the languages of the sample sentences, and how close a prediction must be.
EX01_LANGUAGES = {"en": "English", "fa": "Persian", "zh": "Chinese"}
EX01_TOKENIZERS = ("cl100k_base", "o200k_base")
EX01_TOLERANCE = 0.25


def _ex01_choice(q, value, name, allowed):
    """``value`` stripped, if it is one of ``allowed``; else stop with 'wrong' listing them."""
    q.need(value, name)
    if not isinstance(value, str) or value.strip() not in allowed:
        q.stop(q.wrong(_("`{name}` should be one of {value}, got {describe}.").format(name=name, value=', '.join(repr(a) for a in allowed), describe=describe(value))))
    return value.strip()


def _q5_prepare(q, answers):
    """The tokenizers this check needs, and the three predictions' shapes (or stop saying what is wrong)."""
    from course_utils.window.tokens import tokenizer_status

    fewer, costliest, o200k_tokens = answers
    for encoding in EX01_TOKENIZERS:
        status = tokenizer_status(encoding=encoding)
        if not status.exact_available:  # the check needs the real counts: say so, do not guess
            q.stop(q.wrong(_("this check needs the exact {encoding} tokenizer, which is "
                             "unavailable here: {note}").format(encoding=encoding, note=status.note)))
    return (_ex01_choice(q, fewer, "fewer", EX01_TOKENIZERS),
            _ex01_choice(q, costliest, "costliest", tuple(EX01_LANGUAGES)),
            q.as_int(o200k_tokens, "o200k_tokens"))


def _q5_run(q, answers, case):
    """The predictions beside the real counts of the sample sentences."""
    from course_utils.pictures.token_view import sample_text
    from course_utils.window.tokens import count_text_tokens

    fewer, costliest, predicted = answers
    text = sample_text("zh")
    counts = {encoding: count_text_tokens(text, encoding) for encoding in EX01_TOKENIZERS}
    per_char = {code: count_text_tokens(sample_text(code), "cl100k_base") / len(sample_text(code))
                for code in EX01_LANGUAGES}
    return {"fewer": fewer, "costliest": costliest, "predicted": predicted, "counts": counts, "per_char": per_char,
            "best": min(counts, key=counts.get), "top": max(per_char, key=per_char.get), "chars": len(text)}


def _q5_direction(obs) -> str:
    real = obs["counts"]["o200k_base"]
    return pgettext("exercise 01", "too high") if obs["predicted"] > real else pgettext("exercise 01", "too low")


Q5 = CodeQuestion(
    "predict: which tokenizer, which language, how many tokens",
    ("fewer", "costliest", "o200k_tokens"),
    hints=(
        "A tokenizer with a larger vocabulary has whole tokens for more words of more languages. o200k_base "
        "has about 200,000 tokens, cl100k_base about 100,000.",
        "In UTF-8 a Chinese character is 3 bytes and carries a whole syllable; cl100k_base often needs one or "
        "more tokens per Chinese character, while an English token covers about 4 letters.",
    ),
    prepare=_q5_prepare,
    cases=lambda rng: [Case(_("the Chinese sample sentence"))],
    run=_q5_run,
    rules=(
        Rule("the tokenizer with fewer tokens", lambda obs, case: obs["fewer"] == obs["best"],
             "the Chinese sentence is {counts} {fewer} tokens but {counts2} {best} tokens. {best}'s vocabulary is "
             "twice as large and holds many Chinese words whole.",
             lambda obs, case: {"counts": obs["counts"][obs["fewer"]], "fewer": obs["fewer"],
                                "counts2": obs["counts"][obs["best"]], "best": obs["best"]}),
        Rule("the costliest per character", lambda obs, case: obs["costliest"] == obs["top"],
             "per character, cl100k_base spends {per_char:.2f} tokens on the {ex01_languages} sentence but "
             "{per_char2:.2f} on the {ex01_languages2} one. Count characters, not words: a Chinese character is a "
             "whole syllable, 3 bytes in UTF-8.",
             lambda obs, case: {"per_char": obs["per_char"][obs["costliest"]],
                                "ex01_languages": pgettext("exercise 01", EX01_LANGUAGES[obs["costliest"]]),
                                "per_char2": obs["per_char"][obs["top"]],
                                "ex01_languages2": pgettext("exercise 01", EX01_LANGUAGES[obs["top"]])}),
        Rule("a number of tokens", lambda obs, case: obs["predicted"] > 0,
             "`o200k_tokens` should be a positive number of tokens, got {predicted}.",
             lambda obs, case: {"predicted": obs["predicted"]}),
        Rule("within 25%", lambda obs, case: abs(obs["predicted"] - obs["counts"]["o200k_base"])
             <= EX01_TOLERANCE * obs["counts"]["o200k_base"],
             "{predicted} is {direction}: the sentence has {len} characters and {real} o200k_base tokens ({value:.2f} "
             "a character). Run the visualiser below to see where it cuts, then set `o200k_tokens` to the count it "
             "shows.",
             lambda obs, case: {"predicted": obs["predicted"], "direction": _q5_direction(obs), "len": obs["chars"],
                                "real": obs["counts"]["o200k_base"],
                                "value": obs["counts"]["o200k_base"] / obs["chars"]}),
    ),
    praise="o200k_base cuts the Chinese sentence into fewer tokens than cl100k_base, which spends more tokens a "
           "character on it than on the English or Persian sentence, and your prediction was within 25% of the "
           "real count.",
    seeds=1,  # a prediction about one fixed sentence
)


@ex01.question(Q5.title, f"q5.{Q5.usage}", hints=Q5.hints)
def _ex01_q5(q, fewer, costliest, o200k_tokens):
    """:data:`Q5` judges; a right prediction is praised with the real counts."""
    result = Q5.judge(q, fewer, costliest, o200k_tokens)
    if not result.correct:
        return result
    obs = _q5_run(q, _q5_prepare(q, (fewer, costliest, o200k_tokens)), None)
    return q.correct(_("o200k_base cuts the Chinese sentence into {real} tokens, cl100k_base into "
                       "{counts} ({per_char:.2f} a character, the most of the three sentences). "
                       "Your prediction {predicted} was within {ex01_tolerance:.0%}.").format(
                           real=obs["counts"]["o200k_base"], counts=obs["counts"]["cl100k_base"],
                           per_char=obs["per_char"]["zh"], predicted=obs["predicted"], ex01_tolerance=EX01_TOLERANCE))


_ex01_q5.spec = Q5


def __getattr__(name: str):
    """The module answers its exercise's names (``ex01.q1``, ``ex01.questions``), as the package's ``ex01`` does."""
    return getattr(ex01, name)
