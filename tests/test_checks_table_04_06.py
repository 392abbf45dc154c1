"""The table for exercises 04, 05 and 06: right, wrong and hostile answers, with the status each must get.

Each row is checked as a learner's notebook checks it (cases made at check time, random seeds). A hostile
answer is built to pass without being right (a function that remembers the check's fixed cases, a node that
first sends the whole history, a hook with the wrong threshold); none may be "Correct", and no right answer
may be "Not quite". Reasons are picked from statement lists, graded exactly; own words, in English or in
Persian (the glossary's terms), never change the status.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage, RemoveMessage, ToolMessage

from course_utils import checks
from course_utils.agentic.graphs import CREATE_SUMMARY_PROMPT, EXTEND_SUMMARY_PROMPT
from course_utils.checks import ex04, ex05, ex06
from course_utils.checks.questions import Kind, statements_of
from course_utils.checks.status import Status
from course_utils.window.sequences import valid_tail

sys.path.insert(0, str(Path(__file__).parent))
import exercise04_06_answers as A  # noqa: E402

OK, NO, NOT, ERR = Status.CORRECT, Status.WRONG, Status.NOT_ATTEMPTED, Status.ERROR
BAD = (NO, NOT, ERR)


@pytest.fixture(autouse=True)
def _lenient(monkeypatch):
    monkeypatch.setattr(checks.settings, "strict", False)


@pytest.fixture(params=["en", "fa"])
def edition(request):
    """A row in both editions: the checks speak English, then Persian (the package catalogue)."""
    from course_utils.core.i18n import set_language

    set_language(request.param)
    yield request.param
    set_language("en")


def _name(value):
    return getattr(value, "__name__", None) or getattr(value, "name", None) or repr(value)[:24]


def check_row(question, answers, status):
    result = question.check(*answers)
    if status is OK:
        assert result.status == OK, result.message
    else:
        assert result.status in (BAD if status is None else (status,)), result.message
    return result


# --- exercise 04 ----------------------------------------------------------------------------------------

RIGHT_IDS = ["sys", "h6", "a6", "h7", "a7", "h8", "a8", "h9", "a9", "h10", "a10", "h11"]
EX04_Q1 = [
    (RIGHT_IDS, OK), (tuple(RIGHT_IDS), OK),
    (RIGHT_IDS[1:], NO), (list(reversed(RIGHT_IDS)), NO), (["sys", "a5", *RIGHT_IDS[1:]], NO),
    # hostile: duplicates, the ids as one string, an extra id inside the cap, the whole state, a set
    (RIGHT_IDS + ["h11"], None), (",".join(RIGHT_IDS), None), (["sys", "h6", *RIGHT_IDS[1:]], None),
    ([m.id for m in checks.ex04_state_messages()], None), (set(RIGHT_IDS), None), (True, None),
]


def _stable_id(value):
    """A test id that is the same in every process: a set's repr follows hash randomisation, so sort it
    (pytest-xdist refuses to run when workers collect different ids)."""
    if isinstance(value, (set, frozenset)):
        return "set:" + ",".join(sorted(map(str, value)))[:26]
    return repr(value)[:30]


@pytest.mark.usefixtures("edition")
@pytest.mark.parametrize("answer, status", EX04_Q1, ids=_stable_id)
def test_ex04_q1(answer, status):
    check_row(ex04.q1, (answer,), status)


EX04_Q2 = [
    (A.node_right, OK),
    (A.node_first, NO), (A.node_no_system, NO), (A.node_no_start_on, NO), (A.node_in_place, NO),
    (A.node_removes, NO),
    # hostile: the whole history first (only the last call looks right), the whole history through batch, caps
    # typed in, the trimmed list twice, the system prompt and the last question only, not a factory
    (A.node_whole_first, None), (A.node_whole_via_batch, None), (A.node_fixed_caps, None),
    (A.node_constant_cap(80), None), (A.node_constant_cap(40), None), (A.node_twice, None),
    (A.node_system_and_last, None), ("make_chatbot_node", None),
    (lambda model, max_tokens=128: None, None), (lambda model, max_tokens=128: (lambda state: {}), None),
]


@pytest.mark.usefixtures("edition")
@pytest.mark.parametrize("answer, status", EX04_Q2, ids=_name)
def test_ex04_q2(answer, status):
    check_row(ex04.q2, (answer,), status)


def test_ex04_every_model_call_is_checked_not_only_the_last():
    """A node that first sends the whole history and then the trimmed list makes a right last call: it must fail,
    named for the call that was sent the whole history (issue 33)."""
    for result in (ex04.q2.check(A.node_whole_first), ex04.q4.check(A.forgetful_whole_first, A.erase_right)):
        assert result.status == NO and "was sent the whole history" in result.message, result.message


EX04_Q4 = [
    ((A.forgetful_right, A.erase_right), OK),
    ((A.forgetful_merge, A.erase_right), NO), ((A.forgetful_right, A.erase_nothing), NO),
    ((A.forgetful_right, A.erase_delete_only), NO), ((A.node_right, A.erase_right), NO),
    # hostile
    ((A.forgetful_everything, A.erase_right), None), ((A.forgetful_right, A.erase_typed_thread), None),
    ((A.forgetful_right, A.erase_not_written_back), None), ((A.forgetful_right, "erase_history"), None),
    ((A.node_in_place, A.erase_right), None), ((A.forgetful_merge, A.erase_not_written_back), None),
    ((A.forgetful_whole_first, A.erase_right), None), ((A.forgetful_constant_cap(40), A.erase_right), None),
    ((A.forgetful_constant_cap(60), A.erase_right), None), ((A.forgetful_keeps_last, A.erase_right), None),
    ((A.forgetful_right, A.erase_every_thread), None),
]


@pytest.mark.usefixtures("edition")
@pytest.mark.parametrize("answers, status", EX04_Q4, ids=lambda v: "-".join(_name(a) for a in v)
                         if isinstance(v, tuple) else str(v))
def test_ex04_q4(answers, status):
    check_row(ex04.q4, answers, status)


def _summary_parts(state, keep_last):
    """What the how-to's node works with: (messages, prompt, kept tail, older messages)."""
    summary = state.get("summary", "")
    prompt = EXTEND_SUMMARY_PROMPT.format(summary=summary) if summary else CREATE_SUMMARY_PROMPT
    messages = state["messages"]
    kept = valid_tail(messages, keep_last)
    return messages, prompt, kept, messages[: len(messages) - len(kept)]


def _summary_node(body):
    """A make_summarize_node whose node is ``body(model, keep_last, state)``."""
    def make_summarize_node(model, keep_last=2):
        def summarize_conversation(state):
            return body(model, keep_last, state)
        return summarize_conversation
    return make_summarize_node


def _removals(older):
    return [RemoveMessage(id=m.id) for m in older]


def _right_written_otherwise(model, keep_last, state):
    """Right: the prompt as a keyword, the older messages found by id, the keys the other way round."""
    messages, prompt, kept, _older = _summary_parts(state, keep_last)
    reply = model.invoke([*messages, HumanMessage(content=prompt)])
    keep = {m.id for m in kept}
    return {"messages": _removals([m for m in messages if m.id not in keep]), "summary": reply.content}


def _removals_as_a_tuple(model, keep_last, state):
    """Hostile: right, but the removals in a tuple, which add_messages reads as one ("role", "text") message."""
    messages, prompt, kept, older = _summary_parts(state, keep_last)
    reply = model.invoke([*messages, HumanMessage(prompt)])
    return {"summary": reply.content, "messages": tuple(_removals(older))}


def _history_first(model, keep_last, state):
    """Hostile: the state's messages without the prompt first (a 'look' at the history), then the right call."""
    messages, prompt, kept, older = _summary_parts(state, keep_last)
    model.invoke(messages)
    return {"summary": model.invoke(messages + [HumanMessage(prompt)]).content, "messages": _removals(older)}


def _extra_call_after(model, keep_last, state):
    """Hostile: the right call first, then a second one that asks the model to shorten its summary (its first call
    right is not enough: every call is sent and billed)."""
    messages, prompt, kept, older = _summary_parts(state, keep_last)
    first = model.invoke(messages + [HumanMessage(prompt)])
    reply = model.invoke(messages + [HumanMessage(prompt), first, HumanMessage("Shorten it.")])
    return {"summary": reply.content, "messages": _removals(older)}


def _tail_sent(model, keep_last, state):
    """Hostile: sends only the kept tail and the prompt (a 'trimmed' call)."""
    messages, prompt, kept, older = _summary_parts(state, keep_last)
    return {"summary": model.invoke(kept + [HumanMessage(prompt)]).content, "messages": _removals(older)}


def _slice_without_leading_tools(model, keep_last, state):
    """Hostile: the plain slice, with the tool results it starts with dropped too (no orphan kept, the turn cut)."""
    messages, prompt, _kept, _older = _summary_parts(state, keep_last)
    reply = model.invoke(messages + [HumanMessage(prompt)])
    kept = messages[-keep_last:]
    while kept and isinstance(kept[0], ToolMessage):
        kept = kept[1:]
    return {"summary": reply.content, "messages": _removals(messages[: len(messages) - len(kept)])}


def _keep_two(model, keep_last, state):
    """Hostile: keep_last typed in as the how-to's 2."""
    return A.summary_right(model, keep_last=2)(state)


def _old_summary_kept(model, keep_last, state):
    """Hostile: keeps the summary it had, when it had one (the model's reply is thrown away)."""
    messages, prompt, kept, older = _summary_parts(state, keep_last)
    reply = model.invoke(messages + [HumanMessage(prompt)])
    return {"summary": state.get("summary") or reply.content, "messages": _removals(older)}


def _reply_message(model, keep_last, state):
    """Hostile: the reply itself (an AIMessage) as the summary, not its text."""
    messages, prompt, kept, older = _summary_parts(state, keep_last)
    return {"summary": model.invoke(messages + [HumanMessage(prompt)]), "messages": _removals(older)}


def _removes_and_keeps(model, keep_last, state):
    """Hostile: the RemoveMessages, then the kept tail sent back too. add_messages merges the tail into itself, but
    the question's update holds only RemoveMessages (the how-to's contract): it gets that rule's words, not the
    "nothing is removed" hint."""
    messages, prompt, kept, older = _summary_parts(state, keep_last)
    reply = model.invoke(messages + [HumanMessage(prompt)])
    return {"summary": reply.content, "messages": _removals(older) + list(kept)}


def _mutates(model, keep_last, state):
    """Hostile: deletes the older messages from the state's own list, and returns the removals too."""
    messages, prompt, kept, older = _summary_parts(state, keep_last)
    reply = model.invoke(messages + [HumanMessage(prompt)])
    removals = _removals(older)
    del state["messages"][: len(older)]
    return {"summary": reply.content, "messages": removals}


def _unformatted_extend(model, keep_last, state):
    """Hostile: the extend prompt with its {summary} left unfilled."""
    messages, prompt, kept, older = _summary_parts(state, keep_last)
    if state.get("summary"):
        prompt = EXTEND_SUMMARY_PROMPT
    return {"summary": model.invoke(messages + [HumanMessage(prompt)]).content, "messages": _removals(older)}


def _one_more_kept(model, keep_last, state):
    """Hostile: the valid tail of keep_last + 1 (one message too many kept)."""
    return A.summary_right(model, keep_last=keep_last + 1)(state)


EX04_Q5 = [
    ("summary_right", A.summary_right, OK), ("right_written_otherwise", _summary_node(_right_written_otherwise), OK),
    ("summary_slice", A.summary_slice, NO), ("summary_keeps", A.summary_keeps, NO),
    ("summary_always_create", A.summary_always_create, NO),
    # hostile
    ("summary_typed", A.summary_typed, None), ("summary_twice", A.summary_twice, None),
    ("factory_returns_none", lambda model, keep_last=2: None, None),
    ("no_model_call", lambda model, keep_last=2: (lambda state: {"summary": "Bob", "messages": []}), None),
    ("a_string", "node", None),
    # hostile, issue 'Correct means correct, by design': each must be "Not quite"
    ("history_then_prompt", _summary_node(_history_first), NO),
    ("a_second_call_after", _summary_node(_extra_call_after), NO),
    ("only_the_tail_sent", _summary_node(_tail_sent), NO),
    ("slice_minus_leading_tools", _summary_node(_slice_without_leading_tools), NO),
    ("keep_last_typed_as_2", _summary_node(_keep_two), NO),
    ("old_summary_kept", _summary_node(_old_summary_kept), NO),
    ("reply_message_as_summary", _summary_node(_reply_message), NO),
    ("removes_and_keeps", _summary_node(_removes_and_keeps), NO),
    ("mutates_the_state", _summary_node(_mutates), NO),
    ("extend_prompt_unformatted", _summary_node(_unformatted_extend), NO),
    ("one_message_more_kept", _summary_node(_one_more_kept), NO),
    ("removals_as_a_tuple", _summary_node(_removals_as_a_tuple), NO),
]


@pytest.mark.usefixtures("edition")
@pytest.mark.parametrize("answer, status", [pytest.param(answer, status, id=name) for name, answer, status in EX04_Q5])
def test_ex04_q5(answer, status):
    check_row(ex04.q5, (answer,), status)


@pytest.mark.parametrize("answer, words", [
    (_summary_node(_history_first), "model call 1: the last message sent to the model should be a HumanMessage"),
    (_summary_node(_extra_call_after), "model call 2: the last message sent to the model should be a HumanMessage"),
    (A.summary_twice, "your node called the model 2 times"),
    (_summary_node(_keep_two), "should keep `valid_tail(messages, "),
    (_summary_node(_mutates), "your node changed the state it was given"),
    (_summary_node(_removes_and_keeps), "the update's \"messages\" should hold only RemoveMessages"),
    (_summary_node(_removals_as_a_tuple), "`add_messages` reads a tuple as one message"),
], ids=["history_then_prompt", "a_second_call_after", "summary_twice", "keep_last_typed_as_2", "mutates_the_state",
        "removes_and_keeps", "removals_as_a_tuple"])
def test_ex04_q5_names_the_mistake(answer, words):
    """Every model call is checked, not only the last, and each known mistake gets its own words."""
    result = ex04.q5.check(answer)
    assert result.status == NO and words in result.message, result.message


def test_ex04_q5_cases_are_drawn_and_one_orphans_a_tool_result():
    """The states are drawn from the check's random source; in each draw a plain slice orphans a tool result, and
    keep_last is not always the how-to's 2 where it changes what valid_tail keeps."""
    from course_utils.checks.ex04 import Q5
    from course_utils.window.sequences import orphaned_tool_messages, valid_tail

    labels = set()
    for seed in range(5):
        cases = Q5.cases(random.Random(seed))
        direct = [c for c in cases if not c["graph"]]
        assert len(direct) == 5 and sum(c["graph"] for c in cases) == 1
        assert any(orphaned_tool_messages(c["history"][-c["keep_last"]:]) for c in direct)
        assert any(valid_tail(c["history"], c["keep_last"]) != valid_tail(c["history"], 2) for c in direct)
        labels.add(tuple(c.label for c in cases))
    assert len(labels) > 1, "the cases are not drawn: every seed gave the same states"


# --- exercise 05 ----------------------------------------------------------------------------------------

EX05_Q1 = [
    (A.h_max, OK), (A.h_max_budget, OK),
    (A.h_max_no_margin, NO), (A.h_max_margin_added, NO), (A.h_max_no_reserve, NO),
    # hostile: the question's number typed in (as a function and as a number), the worked examples remembered,
    # half a token off, a string, no return, not a function at all
    (A.h_max_typed, None), (12084, None), (A.h_max_remembered, None), (A.h_max_float, None), (A.h_max_text, None),
    (A.h_max_no_return, None), ("h_max", None), (True, None),
]
EX05_Q2 = [
    (A.h_max_change, OK), (A.h_max_change_short, OK),
    (A.h_max_change_sign, NO), (A.h_max_change_new, NO),
    # hostile: the question's change typed in (as a function and as a number), always down, the worked examples
    # remembered, a ratio, not a function
    (A.h_max_change_typed, None), (-1000, None), (A.h_max_change_always_down, None),
    (A.h_max_change_remembered, None), (A.h_max_change_ratio, None), ("h_max_change", None),
]


@pytest.mark.usefixtures("edition")
@pytest.mark.parametrize("answer, status", EX05_Q1, ids=_name)
def test_ex05_q1(answer, status):
    check_row(ex05.q1, (answer,), status)


@pytest.mark.usefixtures("edition")
@pytest.mark.parametrize("answer, status", EX05_Q2, ids=_name)
def test_ex05_q2(answer, status):
    check_row(ex05.q2, (answer,), status)


def test_ex05_q1_q2_reproduce_the_lessons_worked_example_first():
    """The first case of each is the lesson's worked example (COURSE_BRIEF: H_max = 5892; R 1200 -> 1800: -600)."""
    from course_utils.checks.ex05 import Q1, Q2

    first = Q1.cases(random.Random(0))[0]
    assert first["parts"] == (8192, 500, 300, 1200, 300) and A.h_max(*first["parts"]) == 5892
    first = Q2.cases(random.Random(0))[0]
    assert first["parts"] == (8192, 500, 300, 1200, 300, 1800) and A.h_max_change(*first["parts"]) == -600
    result = ex05.q1.check(A.h_max_typed)
    assert "8192, 500, 300, 1200, 300" in result.message


def _fixed_q3_cases():
    from course_utils.checks.ex05 import _ex05_q3_cases

    return _ex05_q3_cases(random.Random(0))


def _fixed_q5_cases():
    from course_utils.checks.ex05 import _ex05_q5_cases

    return _ex05_q5_cases(random.Random(0))


EX05_Q3 = [
    (A.cost_and_forgetting, OK),
    (A.cost_everything, NO), (A.cost_off_by_one, NO), (A.cost_stored_history, NO),
    # hostile: the answers of one run remembered, a constant, a string, a stub that returns None
    ("remembered", None), (A.cost_constant, None), ("cost_and_forgetting", None),
    (lambda messages, fact_id, max_tokens: None, None), (lambda messages, fact_id, max_tokens: (0,), None),
]


@pytest.mark.parametrize("answer, status", EX05_Q3, ids=_name)
def test_ex05_q3(answer, status):
    if answer == "remembered":
        answer = A._remembered(_fixed_q3_cases())
    check_row(ex05.q3, (answer,), status)


EX05_Q5 = [
    (A.cached_right, OK),
    (A.cached_no_minimum, NO), (A.cached_whole_call_minimum, NO), (A.cached_previous_only, NO),
    # hostile
    ("remembered", None), (A.cached_float, None), (lambda calls, minimum: 0, None),
    (lambda calls, minimum: None, None), ("cached_tokens", None),
]


@pytest.mark.parametrize("answer, status", EX05_Q5, ids=_name)
def test_ex05_q5(answer, status):
    if answer == "remembered":
        answer = A._cached_remembered(_fixed_q5_cases())
    check_row(ex05.q5, (answer,), status)


def _ex05_q4_plans():
    tools = A.plan()["max_tokens"]
    right = A.plan()
    return [
        (right, OK), (A.plan(include_system=False, max_tokens=right["max_tokens"] - 1400), OK),
        (A.plan(max_tokens=8192 - 800 - 500), NO), (A.plan(reserve=500), NO), (A.plan(margin=100), NO),
        (A.plan(start_on=None), NO), (A.plan(include_system=False), NO),
        # hostile
        (A.plan(include_system="True"), None), (A.plan(max_tokens=tools + 0.5), None),
        (A.plan(start_on="ai"), None), (A.plan(max_tokens=tools - 1), None), (A.plan(reserve=5000), None),
        ({k: v for k, v in right.items() if k != "start_on"}, None), ("plan", None),
    ]


@pytest.mark.parametrize("index", range(14))
def test_ex05_q4_plans(index):
    plan, status = _ex05_q4_plans()[index]
    right = set(statements_of(ex05.q4).right)
    check_row(ex05.q4, (plan, right, ...), status)


# --- exercise 06 ----------------------------------------------------------------------------------------

def _ex06_q1_rows():
    from langchain.agents.middleware import ClearToolUsesEdit, ContextEditingMiddleware, SummarizationMiddleware

    from course_utils.model.chat import OfflineChatModel
    from course_utils.window.tokens import exact_counter

    def summary(trigger, counter=exact_counter):
        options = {"token_counter": counter} if counter else {}
        return SummarizationMiddleware(OfflineChatModel(context_window=2048), trigger=("tokens", trigger),
                                       keep=("messages", 4), **options)

    return [
        ([summary(1000)], OK),
        ([], NO), ([summary(1800)], NO), ([summary(1000, counter=None)], None),
        ([ContextEditingMiddleware(edits=[ClearToolUsesEdit(trigger=300, keep=0)])], None),
        ([A.hook_last_human()], None), ([A.hook_only_turn()], None), ("summarise", None), ([...], None),
    ]


@pytest.mark.parametrize("index", range(9))
def test_ex06_q1(index):
    middleware, status = _ex06_q1_rows()[index]
    check_row(ex06.q1, (middleware,), status)


EX06_Q2 = [
    (lambda: A.hook(), OK), (A.hook_fit_turn, OK),
    # no end_on is right too: a before_model hook sees a history that ends on a request or on tool results
    (lambda: A.hook(end_on=None), OK),
    (lambda: A.hook(start_on=None), NO), (lambda: A.hook(remove_all=False), NO),
    (lambda: A.hook(counter="approximate"), NO), (lambda: A.hook(fit=False), NO),
    # hostile: fit_turn only far over the budget, a bigger budget, only the current turn, only the request,
    # a tail that ends on an AI message, not a hook at all
    (lambda: A.hook(fit=False, max_tokens=301), None), (lambda: A.hook(max_tokens=320), None),
    (A.hook_only_turn, None), (A.hook_last_human, None), (A.hook_ends_on_ai, None), (lambda: "hook", None),
]


@pytest.mark.parametrize("index", range(len(EX06_Q2)))
def test_ex06_q2(index):
    make, status = EX06_Q2[index]
    check_row(ex06.q2, (make(),), status)


# --- reason questions ---------------------------------------------------------------------------------

REASONS = {ex04.q3: ("d",), ex06.q3: ("c",), ex05.q4: (A.plan(),)}
OWN_WORDS = {
    ex04.q3: ["The state keeps every message, but only the trimmed list is sent to the model.",
              "حالت کامل نگه داشته می‌شود، ولی فقط فهرست trim‌شده به مدل فرستاده می‌شود.",
              "It is the state and the trim."],
    ex06.q3: ["Old file reads can be read again, run_tests is excluded, and the stored history stays whole.",
              "خواندن‌های قدیمی فایل دوباره خواندنی‌اند؛ run_tests مستثناست و تاریخچه‌ی ذخیره‌شده کامل می‌ماند.",
              "summary summary summary"],
    ex05.q4: ["R covers the longest reply, M the counting error, T comes off the cap, start_on human.",
              "R بلندترین پاسخ را می‌پوشاند، M خطای شمارش را، و schemaهای ابزار از سقف کم می‌شوند.",
              "tokens tokens"],
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


def test_a_wrong_choice_with_the_right_statements_is_wrong():
    assert ex06.q3.check("b", statements_of(ex06.q3).right, "x").status == NO
    assert ex04.q3.check("a", statements_of(ex04.q3).right, "x").status == NO
