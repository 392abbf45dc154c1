"""The table for exercise 08: right, wrong and hostile answers, with the status each must get, in both editions.

Question 1 runs on budgets and turn sizes made at check time (the latest safe trigger just under the provider's
minimum, at it, just over and far over, two seeds): the check reads the request ``langchain-anthropic`` builds and
runs an agent against the emulated server. Question 3 runs on the stated pattern and on patterns and prices the
learner never saw. Reasons are picked from statement lists, graded exactly; own words, in English or in Persian
(the glossary's terms), never change the status. A hostile answer is built to get "Correct" without being right:
none may, and no right answer may be "Not quite".
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from course_utils import checks
from course_utils.checks import ex08
from course_utils.checks.questions import Kind, statements_of
from course_utils.checks.status import Status
from course_utils.core.i18n import set_language

sys.path.insert(0, str(Path(__file__).parent))
import exercise08_answers as A  # noqa: E402

OK, NO, NOT, ERR = Status.CORRECT, Status.WRONG, Status.NOT_ATTEMPTED, Status.ERROR
BAD = (NO, NOT, ERR)


@pytest.fixture(autouse=True, params=["en", "fa"])
def language(monkeypatch, request):
    """Every row in both editions: the checks speak English, then Persian (the package catalogue)."""
    monkeypatch.setattr(checks.settings, "strict", False)
    set_language(request.param)
    yield request.param
    set_language("en")


def _name(value):
    return getattr(value, "__name__", None) or repr(value)[:24]


def check_row(question, answers, status):
    result = question.check(*answers)
    if status is OK:
        assert result.status == OK, result.message
    else:
        assert result.status in (BAD if status is None else (status,)), result.message
    return result


# --- question 1: server-side compaction under a budget ----------------------------------------------------

Q1 = [
    (A.compacting_model, OK), (A.compacting_model_checked_first, OK),
    # wrong: the mistakes the check names
    (A.no_beta, NO), (A.too_late, NO), (A.one_too_early, NO), (A.no_trigger, NO), (A.clears_instead, NO),
    (A.never_refuses, NO), (A.refuses_without_the_name, NO), (A.refuses_the_minimum, NO),
    # hostile: a constant, a hard-coded budget, one token too late, a margin, the wrong beta or unit,
    # the minimum as a floor, a bound runnable, not a model
    (A.constant_minimum, None), (A.hard_coded, None), (A.one_too_late, None), (A.safety_margin, None),
    (A.wrong_beta, None), (A.counts_tokens_type, None), (A.floors_at_the_minimum, None), (A.binds_instead, None),
    (A.returns_text, None), (A.other_model, None), (A.drifting, None), ("compacting_model", None),
]


@pytest.mark.parametrize("answer, status", Q1, ids=_name)
def test_ex08_q1(answer, status, language):
    result = check_row(ex08.q1, (answer,), status)
    if language == "fa" and status is not OK:
        assert result.lang == "fa", result.message


def _mistake(name):
    """A known mistake's hint, as the learner reads it in the course's language."""
    from course_utils.core.i18n import _

    spec = sys.modules["course_utils.checks.ex08"].Q1
    return _(next(m for m in spec.mistakes if m.name == name).hint)


def test_ex08_q1_names_the_mistake(language):
    assert _mistake("no beta header") in ex08.q1.check(A.no_beta).message
    assert _mistake("too late") in ex08.q1.check(A.too_late).message
    assert _mistake("too early") in ex08.q1.check(A.one_too_early).message
    assert _mistake("no trigger") in ex08.q1.check(A.no_trigger).message
    assert _mistake("refuses the minimum") in ex08.q1.check(A.refuses_the_minimum).message
    words = {"en": ("ValueError naming `budget`", "should return a `ChatAnthropic`"),
             "fa": ("ValueError بدهید که نام `budget` را ببرد", "باید یک `ChatAnthropic` برگرداند")}[language]
    assert words[0] in ex08.q1.check(A.never_refuses).message
    assert words[1] in ex08.q1.check(A.binds_instead).message


def test_ex08_q1_cases_straddle_the_minimum_and_keep_their_promise():
    """The cases put the latest safe trigger on both sides of 50,000; a run's turns never grow by more than step."""
    import course_utils.checks.ex08 as module  # noqa: F401 - the module, for its question data

    spec = sys.modules["course_utils.checks.ex08"].Q1
    for seed in range(3):
        cases = spec.cases(random.Random(seed))
        triggers = [case["trigger"] for case in cases]
        assert triggers[0] < 50_000 == triggers[1] < triggers[2] < triggers[3]
        assert [case["valid"] for case in cases] == [False, True, True, True]
    case = spec.cases(random.Random(7))[2]
    obs = spec.run(ex08.q1, (A.compacting_model,), case)
    kinds = [kind for kind, _tokens in obs["passes"]]
    assert "summary" in kinds and obs["sent_back"]
    assert 0 < obs["growth"] <= case["step"]
    assert max(tokens for _kind, tokens in obs["passes"]) < case["budget"]
    # the compaction pass read more than the trigger: it is the pass the budget has to hold
    assert max(tokens for kind, tokens in obs["passes"] if kind == "summary") >= case["trigger"]


# --- question 3: server-held state or a resent history, in money ------------------------------------------

RIGHT_REASONS = set(statements_of(ex08.q3).right)
Q3 = [
    (A.state_costs, OK), (A.state_costs_two_ways, OK),
    (A.new_only, NO), (A.server_not_cached, NO), (A.resent_not_cached, NO), (A.no_pauses, NO),
    (A.no_replies, NO), (A.in_tokens, NO),
    # hostile
    (A.typed, None), (A.remembered, None), (A.as_tuple, None), (A.half_server, None),
    (0.1127, None), (lambda pattern, prices: None, None), ("state_costs", None),
]


@pytest.mark.parametrize("answer, status", Q3, ids=_name)
def test_ex08_q3(answer, status):
    check_row(ex08.q3, (answer, RIGHT_REASONS, "The server bills every stored item again."), status)


Q3_WORDS = {  # (answer, what the feedback says) in each edition
    "en": [(A.new_only, "bills only the instructions and the new message"), (A.server_not_cached, "full price"),
           (A.no_pauses, "leaves out the pauses"), (A.in_tokens, "number of tokens")],
    "fa": [(A.new_only, "فقط دستورالعمل‌ها و پیام تازه را حساب می‌کند"), (A.server_not_cached, "با قیمت کامل"),
           (A.no_pauses, "مکث‌ها را کنار می‌گذارد"), (A.in_tokens, "تعدادی token است")],
}


def test_ex08_q3_names_the_mistake(language):
    for answer, words in Q3_WORDS[language]:
        result = ex08.q3.check(answer, RIGHT_REASONS, "x")
        assert result.status == NO and words in result.message, result.message


def test_ex08_q3_reference_agrees_with_the_emulated_provider():
    """What the reference prices equals what lesson 08's emulated server bills through the real ChatOpenAI:
    with previous_response_id and resending the history alike (the same tokens, the same cached prefix)."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
    from langchain_openai import ChatOpenAI

    from course_utils.model.provider_emulation import OpenAIServer, RecordingTransport, openai_http_client
    from course_utils.window.costs import Prices, bill

    prices = Prices(2.0, 10.0, cached_input=0.1, min_cached_tokens=1024)
    words = ["alpha beta gamma delta. "] * 400
    instructions = "".join(words)

    def run(previous_id: bool):
        server = OpenAIServer(cache_minimum=1024)
        chat = ChatOpenAI(model="gpt-6.2-sol", api_key="offline", use_responses_api=True,
                          use_previous_response_id=previous_id, http_client=openai_http_client(RecordingTransport(server)))
        history = [SystemMessage(instructions)]
        for k in range(5):
            history.append(HumanMessage(f"Note number {k}: " + "the order shipped on time. " * (20 + 7 * k)))
            reply = chat.invoke(history)
            history.append(AIMessage(reply.text, id=reply.id))
        return server

    held, resent = run(True), run(False)
    assert [p.input_tokens for p in held.passes] == [p.input_tokens for p in resent.passes]
    assert bill(held.calls(), prices).cost == pytest.approx(bill(resent.calls(), prices).cost)
    assert bill(held.calls(), prices).cached_tokens > 0


# --- reason questions (q2, q3) ------------------------------------------------------------------------------

REASONS = {ex08.q2: ("b",), ex08.q3: (A.state_costs,)}
OWN_WORDS = {
    ex08.q2: ["The clinic writes the summaries and keeps the thread, so it can audit and erase; input stays bounded.",
              "کلینیک خودش summary را می‌نویسد و thread را در checkpointer خودش نگه می‌دارد، پس می‌تواند نشان دهد به "
              "هر فراخوانی چه فرستاده شده و thread را پاک کند.",
              "server server client"],
    ex08.q3: ["Every stored item is billed again on each call, cached the same way, so the cost is the same.",
              "سرور هر item ذخیره‌شده را در هر فراخوانی دوباره می‌خواند و به‌عنوان ورودی حساب می‌کند؛ cache هم همان است.",
              "It is the id of the response and the cache of the call."],
}


def _hostile_picks(statements):
    n = len(statements.items)
    right = set(statements.right)
    wrong = [i for i, s in enumerate(statements.items, start=1) if s.kind is not Kind.JUSTIFIES]
    of = lambda kind: {i for i, s in enumerate(statements.items, start=1) if s.kind is kind}  # noqa: E731
    picks = [set(range(1, n + 1)), {min(right)}, right | {wrong[0]}, set(wrong), of(Kind.REVERSED) or {wrong[-1]},
             of(Kind.SWAPPED) | right, of(Kind.IRRELEVANT) | right, (right - {max(right)}) | {wrong[-1]},
             ["1", "2"], "1, 2", True, {0}, {n + 1}]
    return [p for p in picks if p != right]


@pytest.mark.parametrize("question", list(REASONS), ids=lambda q: f"ex{q.exercise}-q{q.number}")
def test_reason_table(question):
    statements = statements_of(question)
    hostile = _hostile_picks(statements)
    assert len(hostile) >= 8
    for own in [..., "", *OWN_WORDS[question]]:
        result = question.check(*REASONS[question], set(statements.right), own)
        assert result.status == OK, (own, result.message)
        for picks in hostile:
            assert question.check(*REASONS[question], picks, own).status in (NO, NOT), (picks, own)
    persian = OWN_WORDS[question][1]
    result = question.check(*REASONS[question], set(statements.right), persian)
    assert result.answer_text == persian


@pytest.mark.parametrize("letter", ["a", "c", "d"])
def test_ex08_q2_a_wrong_choice_with_the_right_statements_is_wrong(letter):
    result = ex08.q2.check(letter, statements_of(ex08.q2).right, "x")
    assert result.status == NO and len(result.message) > 60
