"""The sub-agent decision question (course_utils.checks.subagent_decision), for exercise 07.

At least ten right and ten wrong reasons in English, and some in Persian and
Chinese; the number is checked against a fresh run, and the checker is
exercised through a real Exercise registration, as exercise 07 will use it.
"""

import pytest

from course_utils import checks
from course_utils.checks.machinery import Exercise
from course_utils.checks.reasons import judge, language_of
from course_utils.checks.subagent_decision import (
    HINTS, SUBAGENT_DECISION, TITLE, USAGE, check_subagent_decision, decision_pays_from, decision_task,
)


@pytest.fixture(autouse=True)
def lenient(monkeypatch):
    monkeypatch.setattr(checks, "STRICT", False)


RIGHT = [
    "The sub-agent adds extra calls to every request, but the single agent re-sends all the earlier pages on "
    "each later call, so after a few requests it costs more.",
    "Isolation has an overhead on each request (a parent call and the child's own system prompt), while the one "
    "agent keeps every page in its window and sends it again on every call.",
    "Each request costs the sub-agent twice as many calls, but the single agent's window grows with every page it "
    "reads, so its later calls become expensive.",
    "With a sub-agent there are more model calls, yet the earlier pages pile up in the single agent's history and "
    "are sent again each time.",
    "The child's calls are paid for too, which is a fixed cost per request; the single agent resends the old "
    "pages on every later call.",
    "At first the extra parent call makes isolation dearer, but the single agent carries all the pages on every "
    "call after that.",
    "Because the old results accumulate in the single agent's window, its calls grow, while the sub-agent only "
    "adds its own calls per request.",
    "Isolation doubles the calls, but the single agent's history grows with every search result and is re-sent, "
    "so the total crosses over at the third request.",
    "The sub-agent has an overhead of extra tokens per request; the single agent sends the earlier results again "
    "on every model call.",
    "The child's own calls cost tokens on each request, but the one agent repeats the pages on every later call, "
    "which is worse once there are enough of them.",
    "More calls with the sub-agent, but the previous pages keep growing in the single agent's window and get "
    "sent again and again.",
]
WRONG = [
    "The parent's window is smaller, so it is cheaper.",
    "The sub-agent's calls are free because they are not in the parent's window, so it always pays.",
    "Isolation makes more calls, so it can never pay.",
    "The single agent sends each page once, and the sub-agent adds extra calls, so it never pays.",
    "The sub-agent is faster and uses a smaller window, so it saves tokens from the start.",
    "Because the child starts with an empty window, the task costs less.",
    "The single agent re-sends all the pages, and the child's calls do not count, so isolation always wins.",
    "extra calls resend pages overhead",
    "It pays because the answer is shorter than the pages.",
    "The sub-agent adds overhead.",
    "The single agent re-sends the earlier pages on every call.",
    "Tokens tokens tokens tokens pages pages pages.",
]
RIGHT_FA_ZH = [
    "زیرعامل برای هر درخواست فراخوانی بیشتر دارد، ولی عامل تنها صفحه‌های قبلی را در هر فراخوانی دوباره می‌فرستد.",
    "子代理每个请求都有额外的调用，但是单个代理在之后的每次调用中都会重新发送之前的页面。",
]
WRONG_FA_ZH = [
    "فراخوانی‌های زیرعامل رایگان هستند، پس همیشه ارزان‌تر است.",
    "子代理的调用是免费的，所以总是更便宜。",
]


def test_enough_reasons_in_each_language():
    assert len(RIGHT) >= 10 and len(WRONG) >= 10
    assert all(language_of(t) == "en" for t in RIGHT)
    assert {language_of(t) for t in RIGHT_FA_ZH} == {language_of(t) for t in WRONG_FA_ZH} == {"fa", "zh"}


@pytest.mark.parametrize("text", RIGHT + RIGHT_FA_ZH)
def test_a_right_reason_is_correct(text):
    verdict = judge(SUBAGENT_DECISION, text)
    assert verdict.status == "correct", verdict


@pytest.mark.parametrize("text", WRONG + WRONG_FA_ZH)
def test_a_wrong_reason_is_never_correct(text):
    verdict = judge(SUBAGENT_DECISION, text)
    assert verdict.status in ("wrong", "needs review"), verdict
    assert verdict.message


def test_a_persian_wrong_reason_gets_persian_feedback():
    verdict = judge(SUBAGENT_DECISION, WRONG_FA_ZH[0])
    assert verdict.lang == "fa" and language_of(verdict.message) == "fa"


@pytest.fixture(scope="module")
def question():
    exercise = Exercise("99", "test", "07_beyond_one_window")
    return exercise.question(TITLE, USAGE, hints=HINTS)(check_subagent_decision)


@pytest.fixture(scope="module")
def expected():
    return decision_pays_from()


def test_the_expected_number_is_computed_from_the_runs(expected):
    from course_utils.model.chat import OfflineChatModel
    from course_utils.agentic.subagents import compare_isolation, cumulative_tokens

    comparison = compare_isolation(OfflineChatModel(context_window=100_000), decision_task())
    single, isolated = cumulative_tokens(comparison.single), cumulative_tokens(comparison.isolated)
    assert 1 < expected <= len(decision_task())
    assert isolated[expected - 1] < single[expected - 1]
    assert all(isolated[k] >= single[k] for k in range(expected - 1))


def test_the_check_accepts_the_number_and_a_right_reason(question, expected):
    assert question.check(expected, RIGHT[0]).status == "correct"
    assert question.check(float(expected), RIGHT[1]).status == "correct"


def test_the_check_refuses_wrong_numbers_and_wrong_reasons(question, expected):
    assert question.check(1, RIGHT[0]).status == "wrong"
    assert "child" in question.check(1, RIGHT[0]).message
    assert question.check(expected + 1, RIGHT[0]).status == "wrong"
    assert question.check(0, RIGHT[0]).status == "wrong"
    assert question.check(expected, WRONG[0]).status != "correct"
    assert question.check(expected, WRONG[1]).status != "correct"
    assert question.check(True, RIGHT[0]).status == "wrong"
    assert question.check(str(expected), RIGHT[0]).status == "wrong"


def test_the_check_waits_for_an_answer(question, expected):
    assert question.check(..., RIGHT[0]).status == "not attempted"
    assert question.check(expected, ...).status == "not attempted"
    assert question.check(expected, "yes").status == "not attempted"
