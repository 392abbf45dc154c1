"""Exercise 01: measuring growth (``exercises/01_..._exercise.ipynb``, after ``notebooks/01_measuring_growth.ipynb``).

The notebook binds its questions with ``from course_utils.checks import ex01``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from itertools import accumulate

from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.messages.utils import count_tokens_approximately

from course_utils.checks.kinds import (
    grade_number,
    counts_of,
    letter_of,
    snapshot,
    random_conversation,
    random_costs,
)
from course_utils.checks.questions import Statements, grade_statements, own_words, with_own_words
from course_utils.checks.reason_lists import EX01_Q4
from course_utils.core.i18n import _, pgettext, translate
from course_utils.checks.machinery import short_list, describe, Exercise
from course_utils.window.trimming import table_token_counter

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
    explanation="Call k sends (k - 1) full turns of 100 tokens plus the new 40-token question:",
)
def _ex01_q1(q, total_sent):
    turn = EX01_QUESTION + EX01_ANSWER
    per_call = [(k - 1) * turn + EX01_QUESTION for k in range(1, EX01_TURNS + 1)]
    expected = sum(per_call)  # 4900
    known = {
        sum(k * turn for k in range(1, EX01_TURNS + 1)): _("you counted each call's own answer as sent. A call is "
        "sent what comes *before* its reply; the reply is what comes back."),
        per_call[-1]: _("that is what the 10th call alone sends. The question asks for the total over all 10 calls."),
        EX01_TURNS * turn: _("that is the size of the history after 10 turns, sent once. Every call sends the "
        "history again, so the total is much larger."),
        sum((k - 1) * turn for k in range(1, EX01_TURNS + 1)): _("you left out the new 40-token question that "
        "every call sends along with the history."),
        EX01_TURNS * EX01_QUESTION: _("you counted only the new questions; each call also re-sends the history."),
        sum((k - 1) * turn + EX01_QUESTION for k in range(1, EX01_TURNS)): _("off by one: that is the total after "
        "9 calls. Count calls 1 to 10."),
        sum((k - 1) * turn + EX01_QUESTION for k in range(1, EX01_TURNS + 2)): _("off by one: that is the total "
        "after 11 calls. Count calls 1 to 10."),
        -expected: _("a number of tokens cannot be negative."),
    }
    return grade_number(
        q, total_sent, "total_sent", expected, known,
        _("Work out calls 1, 2 and 3 by hand (40, 140, 240) and look for the pattern."),
        _("{expected} tokens. The calls send 40, 140, 240, ... 940: the history is paid for again on every "
          "call, so the total grows with the square of the number of calls.").format(expected=expected),
    )


def _check_time_seeds(count: int) -> list[int]:
    """``count`` fresh seeds, drawn when the check runs (never the same list twice in a row)."""
    source = random.SystemRandom()
    return [source.randrange(2 ** 31) for _ in range(count)]


def _ex01_reference(messages, counter):
    from course_utils.window.growth import replay_growth

    return replay_growth(messages, counter).column("cumulative_sent_tokens")


def _ex01_cases():
    from course_utils.core.samples import load_conversation
    from course_utils.window.tokens import dummy_token_counter

    cases = [
        (_("the Bob dialogue with the dummy counter"), load_conversation("bob"), dummy_token_counter),
        (_("the agent_tools conversation with the approximate counter"), load_conversation("agent_tools"),
         count_tokens_approximately),
    ]
    for seed in _check_time_seeds(3):  # made at check time: a constant that fits one run does not fit the next
        messages = random_conversation(seed, turns=5 + seed % 3, system=seed % 2 == 1)
        counter = table_token_counter(random_costs(messages, seed))
        cases.append((_("a generated conversation of {counts} with random costs").format(counts=counts_of(messages)),
                      messages, counter))
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
)
def _ex01_q2(q, cumulative_sent):
    fn = q.need_function(cumulative_sent, "cumulative_sent")
    for what, messages, counter in _ex01_cases():
        given = list(messages)
        got = q.call(fn, given, counter, about=what)
        if snapshot(given) != snapshot(messages):
            return q.wrong(_("for {what} your function changed the list it was given. Measure "
                             "without changing the conversation.").format(what=what))
        expected = _ex01_reference(messages, counter)
        if isinstance(got, (str, bytes)) or not isinstance(got, Sequence):
            return q.wrong(_("return a list with one running total per model call; for {what} you "
                             "returned {describe}.").format(what=what, describe=describe(got)))
        got = list(got)
        if got == expected:
            continue
        ai = [i for i, m in enumerate(messages) if isinstance(m, AIMessage)]
        humans = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
        per_call = [counter(messages[:i]) for i in ai]
        diagnoses = [
            (list(accumulate(counter(messages[: i + 1]) for i in ai)),
             _("you included each reply in what its call was sent. A call is sent `messages[:i]`, what comes "
               "before the AIMessage at position i.")),
            (per_call, _("these are the tokens of each call on its own; the question asks for the running total.")),
            (list(accumulate(counter(messages[: i + 1]) for i in humans)),
             _("you counted one call per human message. A model call happens at every AIMessage: an agent that "
               "calls a tool makes two calls for one question.")),
            (list(accumulate(len(messages[:i]) for i in ai)), _("you added up numbers of messages, not tokens: use "
             "`token_counter(...)`.")),
            (list(reversed(expected)), _("your totals are in reverse order: the first number is after call 1.")),
        ]
        for wrong, why in diagnoses:
            if got == wrong and wrong != expected:
                return q.wrong(_("for {what}: {why}").format(what=what, why=why))
        if len(got) != len(expected):
            return q.wrong(_("for {what} there are {len} model calls (one per AIMessage), but you "
                             "returned {len2} numbers.").format(what=what, len=len(expected), len2=len(got)))
        return q.wrong(_("for {what} the running totals should be {short_list}, you returned "
                         "{short_list2}.").format(what=what, short_list=short_list(expected), short_list2=short_list(got)))
    return q.correct(_("your running totals match `replay_growth` on the Bob dialogue, the agent "
                       "with tool calls and three generated conversations."))


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
)
def _ex01_q3(q, report, fig, first_over):
    from course_utils.window.growth import GrowthReport, replay_growth
    from course_utils.core.samples import load_conversation

    q.need(report, "report")
    if not isinstance(report, GrowthReport):
        return q.wrong(_("`report` should be what `replay_growth` returns, got {describe}.").format(describe=describe(report)))
    expected = replay_growth(load_conversation("long_chat"), "approximate", limit=EX01_LIMIT)
    if report.token_counter != "approximate":
        return q.wrong(_("`report` was measured with the {token_counter!r} counter; use "
                         "\"approximate\".").format(token_counter=report.token_counter))
    if report.limit != EX01_LIMIT:
        return q.wrong(_("`report` has limit={limit}; pass `limit={ex01_limit}` so each row says "
                         "whether its call is over.").format(limit=report.limit, ex01_limit=EX01_LIMIT))
    if report.calls != expected.calls:
        return q.wrong(_("`report` has {calls} calls; long_chat has {calls2} AIMessages, so "
                         "{calls2} calls. Replay the whole `conversation`.").format(calls=report.calls, calls2=expected.calls))
    if report.policy is not None or report.rows != expected.rows:
        return q.wrong(_("`report` does not match replaying long_chat with nothing trimmed: leave "
                         "out `policy`."))
    q.need(fig, "fig")
    from matplotlib.figure import Figure

    if not isinstance(fig, Figure):
        return q.wrong(_("`fig` should be the Figure `growth_figure(report)` returns, got "
                         "{describe}.").format(describe=describe(fig)))
    # The figure's labels are in the course's language (an RTL one wraps each in an isolate): accept English or it.
    labels = {re.sub("[\u2066-\u2069]", "", line.get_label()) for ax in fig.axes for line in ax.get_lines()}
    sent = {"tokens sent", translate("tokens sent")}
    limit = {f"limit {EX01_LIMIT}", translate("limit {limit}").format(limit=EX01_LIMIT)}
    if not labels & sent or not labels & limit:
        return q.wrong(_("`fig` should show the tokens sent per call against the limit: draw it "
                         "with `growth_figure(report)`."))
    first = expected.first_over_limit
    value = q.as_int(first_over, "first_over")
    known = {
        first.ai_index: _("{index} is the position of that call's AIMessage in the conversation, not the "
                          "call number. Calls are numbered 1, 2, 3, ...").format(index=first.ai_index),
        first.call - 1: _("call {call} still fits ({tokens} tokens); the question asks for the first call that "
                          "is over.").format(call=first.call - 1, tokens=expected.rows[first.call - 2].sent_tokens),
        first.call + 1: _("off by one: look at the row before that one."),
    }
    if value == first.call:
        return q.correct(_("call {call} is the first to send more than {ex01_limit} tokens "
                           "({sent_tokens}). With nothing trimmed, every later call is over too, "
                           "and the cumulative curve bends upward.").format(call=first.call, ex01_limit=EX01_LIMIT, sent_tokens=first.sent_tokens))
    if value in known:
        return q.wrong(known[value])
    return q.wrong(_("call {value} is not the first over the limit. Look at "
                     "`report.first_over_limit`, or the first row whose `over_limit` is True.").format(value=value))


EX01_OPTIONS = {"a": "exponentially", "b": "not at all", "c": "linearly", "d": "quadratically"}

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
    q.need(without_trim, "without_trim")
    q.need(with_trim, "with_trim")
    a, b = letter_of(without_trim), letter_of(with_trim)
    for name, letter, value in (("without_trim", a, without_trim), ("with_trim", b, with_trim)):
        if letter not in EX01_OPTIONS:
            return q.wrong(_("`{name}` should be one of the letters 'a', 'b', 'c', 'd', got "
                             "{describe}.").format(name=name, describe=describe(value)))
    q.need(reasons, "reasons")
    if EX01_OPTIONS[a] != "quadratically":
        feedback = {
            "linearly": _("the tokens *per call* grow linearly, because each call adds a turn to the history; the "
                          "cumulative total adds those growing numbers up, so it grows faster than linearly."),
            "exponentially": _("exponential growth would mean each call costs a multiple of the previous one. "
                               "Here each call costs the previous one plus one turn: a sum of growing terms, "
                               "about n^2 / 2."),
            "not at all": _("every call sends something, so the total can only grow."),
        }[EX01_OPTIONS[a]]
        return q.wrong(_("without trimming, not ({a}) {ex01_options}: {feedback}").format(a=a, ex01_options=pgettext("exercise 01", EX01_OPTIONS[a]), feedback=feedback))
    if EX01_OPTIONS[b] != "linearly":
        feedback = {
            "quadratically": _("with a cap, every call costs at most the cap, so after the history fills the cap "
                               "the total grows by about the same amount per call."),
            "exponentially": _("with a cap the cost per call stops growing."),
            "not at all": _("every call still sends up to the cap, so the total keeps growing."),
        }[EX01_OPTIONS[b]]
        return q.wrong(_("with trimming, not ({b}) {ex01_options}: {feedback}").format(b=b, ex01_options=pgettext("exercise 01", EX01_OPTIONS[b]), feedback=feedback))
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


@ex01.question(
    "predict: which tokenizer, which language, how many tokens",
    "q5.check(fewer, costliest, o200k_tokens)",
    hints=(
        "A tokenizer with a larger vocabulary has whole tokens for more words of more languages. o200k_base "
        "has about 200,000 tokens, cl100k_base about 100,000.",
        "In UTF-8 a Chinese character is 3 bytes and carries a whole syllable; cl100k_base often needs one or "
        "more tokens per Chinese character, while an English token covers about 4 letters.",
    ),
)
def _ex01_q5(q, fewer, costliest, o200k_tokens):
    from course_utils.pictures.token_view import sample_text
    from course_utils.window.tokens import count_text_tokens, tokenizer_status

    for encoding in EX01_TOKENIZERS:
        status = tokenizer_status(encoding=encoding)
        if not status.exact_available:  # the check needs the real counts: say so, do not guess
            return q.wrong(_("this check needs the exact {encoding} tokenizer, which is "
                             "unavailable here: {note}").format(encoding=encoding, note=status.note))
    text = sample_text("zh")
    counts = {encoding: count_text_tokens(text, encoding) for encoding in EX01_TOKENIZERS}
    per_char = {code: count_text_tokens(sample_text(code), "cl100k_base") / len(sample_text(code)) for code in EX01_LANGUAGES}

    fewer = _ex01_choice(q, fewer, "fewer", EX01_TOKENIZERS)
    costliest = _ex01_choice(q, costliest, "costliest", tuple(EX01_LANGUAGES))
    predicted = q.as_int(o200k_tokens, "o200k_tokens")

    best = min(counts, key=counts.get)
    if fewer != best:
        return q.wrong(_("the Chinese sentence is {counts} {fewer} tokens but {counts2} {best} "
                         "tokens. {best}'s vocabulary is twice as large and holds many Chinese "
                         "words whole.").format(counts=counts[fewer], fewer=fewer, counts2=counts[best], best=best))
    top = max(per_char, key=per_char.get)
    if costliest != top:
        return q.wrong(_("per character, cl100k_base spends {per_char:.2f} tokens on the "
                         "{ex01_languages} sentence but {per_char2:.2f} on the {ex01_languages2} "
                         "one. Count characters, not words: a Chinese character is a whole "
                         "syllable, 3 bytes in UTF-8.").format(per_char=per_char[costliest], ex01_languages=pgettext("exercise 01", EX01_LANGUAGES[costliest]), per_char2=per_char[top], ex01_languages2=pgettext("exercise 01", EX01_LANGUAGES[top])))
    real = counts["o200k_base"]
    if predicted <= 0:
        return q.wrong(_("`o200k_tokens` should be a positive number of tokens, got {predicted}.").format(predicted=predicted))
    if abs(predicted - real) > EX01_TOLERANCE * real:
        direction = pgettext("exercise 01", "too high") if predicted > real else pgettext("exercise 01", "too low")
        return q.wrong(_("{predicted} is {direction}: the sentence has {len} characters and {real} "
                         "o200k_base tokens ({value:.2f} a character). Run the visualiser below to "
                         "see where it cuts, then set `o200k_tokens` to the count it shows.").format(predicted=predicted, direction=direction, len=len(text), real=real, value=real / len(text)))
    return q.correct(_("o200k_base cuts the Chinese sentence into {real} tokens, cl100k_base into "
                       "{counts} ({per_char:.2f} a character, the most of the three sentences). "
                       "Your prediction {predicted} was within {ex01_tolerance:.0%}.").format(real=real, counts=counts['cl100k_base'], per_char=per_char['zh'], predicted=predicted, ex01_tolerance=EX01_TOLERANCE))


def __getattr__(name: str):
    """The module answers its exercise's names (``ex01.q1``, ``ex01.questions``), as the package's ``ex01`` does."""
    return getattr(ex01, name)
