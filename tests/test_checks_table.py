"""The table: right, wrong and hostile answers to the questions, with the status each must get.

Code questions run on cases made at check time (random users, threads and sizes, two seeds), so each row is
checked as a learner's notebook would check it. Reason questions are graded exactly on the statements picked;
the learner's own words, in English or Persian, never change the status (they are for the teacher).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from course_utils import checks
from course_utils.checks import ex01, ex02, ex03, ex04, ex05, ex06, ex07
from course_utils.checks.questions import Kind, statements_of
from course_utils.checks.status import Status

sys.path.insert(0, str(Path(__file__).parent))
import exercise07_answers as A  # noqa: E402


@pytest.fixture(autouse=True)
def _lenient(monkeypatch):
    monkeypatch.setattr(checks.settings, "strict", False)


OK, NO, NOT = Status.CORRECT, Status.WRONG, Status.NOT_ATTEMPTED

Q1_TABLE = [  # (answer, status): the first is right, the rest wrong or hostile
    (A.save_fact, OK), (A.save_fact_uuid, OK),
    (A.hard_coded_user, NO), (A.returns_none, NO), (A.one_key, NO), (A.empty_confirmation, NO),
    (A.saves_nothing, NO), (A.shared_namespace, NO), (A.note, NO), ("save_fact", NO),
]
Q2_TABLE = [
    (A.offload_right, OK),
    (A.offload_15000, NO), (A.offload_characters, NO), (A.offload_hard_thread, NO), (A.offload_no_count, NO),
    (A.offload_read_back_too, NO), (A.offload_1200, NO), (A.offload_forgot_return, NO), (A.offload_everything, NO),
]
Q4_TABLE = [
    (A.pays_from, OK),
    (4, NO), (0, NO), (A.typed_four, NO), (A.typed_by_caching, NO), (A.pays_from_tokens, NO),
    (A.pays_from_no_caching, NO), (A.pays_from_last_request_only, NO),
]


@pytest.mark.parametrize("answer, status", Q1_TABLE, ids=lambda v: getattr(v, "name", None) or repr(v)[:20])
def test_ex07_q1(answer, status):
    assert ex07.q1.check(answer).status == status


@pytest.mark.parametrize("answer, status", Q2_TABLE, ids=lambda v: getattr(v, "__name__", None) or repr(v)[:20])
def test_ex07_q2(answer, status):
    result = ex07.q2.check(answer)
    assert result.status == status, result.message
    assert "_offload_run" not in result.message and "invoke" not in result.message


@pytest.mark.parametrize("answer, status", Q4_TABLE, ids=lambda v: getattr(v, "__name__", None) or repr(v)[:20])
def test_ex07_q4(answer, status):
    assert ex07.q4.check(answer, A.Q4_REASONS, A.WORD_SALAD).status == status


# --- reason questions: statements picked exactly; own words never marked --------------------------------

REASON_QUESTIONS = {  # question -> the answer before the reasons
    ex01.q4: ("d", "c"), ex02.q4: ("c",), ex03.q4: ("a",), ex04.q3: ("d",), ex06.q3: ("c",), ex07.q3: ("b",),
}
OWN_WORDS = [
    ..., "It is the save of facts and the small call.", "because", "",
    "The trim keeps the state small, so the model remembers everything.",
    "حالت کامل نگه داشته می‌شود، ولی فقط فهرست trim‌شده به مدل فرستاده می‌شود.",  # Persian, the glossary's terms
    "برش پیام‌ها را حذف می‌کند.",
    "Die Antwort ist richtig.",
]


def _hostile_picks(statements):
    n = len(statements.items)
    right = statements.right
    wrong_kinds = [i for i, s in enumerate(statements.items, start=1) if s.kind is not Kind.JUSTIFIES]
    picks = [set(range(1, n + 1)), {min(right)}, set(right) | {wrong_kinds[0]}, set(wrong_kinds),
             {i for i, s in enumerate(statements.items, start=1) if s.kind is Kind.REVERSED} or {wrong_kinds[-1]},
             {i for i, s in enumerate(statements.items, start=1) if s.kind is Kind.SWAPPED} | set(right),
             {i for i, s in enumerate(statements.items, start=1) if s.kind is Kind.IRRELEVANT} | set(right),
             set(right) - {max(right)} | {wrong_kinds[-1]}]
    return [p for p in picks if p != set(right)]


@pytest.mark.parametrize("question", list(REASON_QUESTIONS), ids=lambda q: f"ex{q.exercise}-q{q.number}")
def test_reason_table(question):
    statements = statements_of(question)
    first = REASON_QUESTIONS[question]
    hostile = _hostile_picks(statements)
    assert len(hostile) >= 8 - 2  # with the two shapes below: at least 8 hostile per reason question
    hostile += [["1", "2"], "1, 2", True]
    for own in OWN_WORDS:
        result = question.check(*first, set(statements.right), own)
        assert result.status == OK, (own, result.message)
        for picks in hostile:
            assert question.check(*first, picks, own).status in (NO, NOT), (picks, own)
    result = question.check(*first, set(statements.right), OWN_WORDS[5])
    assert result.answer_text == OWN_WORDS[5] and _model(statements) in result.message


def _model(statements):
    return statements.model_answer[:40]


def test_a_wrong_choice_with_the_right_statements_is_wrong():
    assert ex07.q3.check("a", ex07.q3.spec.statements.right, "x y z").status == NO
    assert ex04.q3.check("b", statements_of(ex04.q3).right, ...).status == NO


def test_ex05_q4_cap_must_subtract_the_tool_schemas():
    from course_utils.checks.ex05 import ex05_tool_tokens

    tools = ex05_tool_tokens()
    assert tools > 0
    plan = {"reserve": 800, "margin": 500, "include_system": True, "start_on": "human"}
    right = set(statements_of(ex05.q4).right)
    assert ex05.q4.check({**plan, "max_tokens": 8192 - 800 - 500 - tools}, right, ...).status == OK
    left_out = ex05.q4.check({**plan, "max_tokens": 8192 - 800 - 500}, right, ...)
    assert left_out.status == NO and "tool schemas" in left_out.message
    history = history_cap = 8192 - 1100 - 300 - 800 - 500
    assert ex05.q4.check({**plan, "include_system": False, "max_tokens": history_cap - tools}, right, ...).status == OK
    assert ex05.q4.check({**plan, "include_system": False, "max_tokens": history}, right, ...).status == NO


def test_statuses_are_an_enum_and_for_the_teacher_is_one():
    assert Status("for the teacher") is Status.FOR_TEACHER
    assert ex07.q3.check(..., ..., ...).status is Status.NOT_ATTEMPTED


# --- exercise 04 q2: every model call is inspected ------------------------------------------------------

def _trimmed(state, max_tokens):
    from langchain_core.messages import trim_messages

    return trim_messages(state["messages"], max_tokens=max_tokens, token_counter="approximate", strategy="last",
                         start_on="human", include_system=True)


def node_right(model, max_tokens):
    def chatbot(state):
        return {"messages": [model.invoke(_trimmed(state, max_tokens))]}
    return chatbot


def node_whole_first(model, max_tokens):
    def chatbot(state):
        model.invoke(state["messages"])
        return {"messages": [model.invoke(_trimmed(state, max_tokens))]}
    return chatbot


def node_whole_after(model, max_tokens):
    def chatbot(state):
        reply = model.invoke(_trimmed(state, max_tokens))
        model.invoke(state["messages"])
        return {"messages": [reply]}
    return chatbot


def node_twice(model, max_tokens):
    def chatbot(state):
        model.invoke(_trimmed(state, max_tokens))
        return {"messages": [model.invoke(_trimmed(state, max_tokens))]}
    return chatbot


def node_no_model(model, max_tokens):
    from langchain_core.messages import AIMessage

    def chatbot(state):
        _trimmed(state, max_tokens)
        return {"messages": [AIMessage("Hello!")]}
    return chatbot


def node_fixed_cap(model, max_tokens):
    def chatbot(state):
        return {"messages": [model.invoke(_trimmed(state, 40))]}
    return chatbot


EX04_Q2_TABLE = [(node_right, OK), (node_whole_first, NO), (node_whole_after, NO), (node_twice, NO),
                 (node_no_model, NO),
                 (node_fixed_cap, NO)]


@pytest.mark.parametrize("answer, status", EX04_Q2_TABLE, ids=lambda v: getattr(v, "__name__", None) or str(v))
def test_ex04_q2(answer, status):
    assert ex04.q2.check(answer).status == status


# --- exercise 06 q1: facts must come from the run ------------------------------------------------------

def _cheat(kind):
    from langchain.agents.middleware import before_model
    from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage
    from langgraph.graph.message import REMOVE_ALL_MESSAGES

    from course_utils.window.tokens import exact_counter

    facts = "wind in Porto on Saturday 24 km/h; Bolhão opens 08:00; booking PX-4471; fastest train 2 h 49 min"

    @before_model
    def trim_and_note(state, runtime):
        from langchain_core.messages import trim_messages

        kept = trim_messages(state["messages"], max_tokens=250, token_counter=exact_counter, strategy="last",
                             start_on="human", end_on=("human", "tool"))
        note = {"human": HumanMessage(f"Notes: {facts}."), "system": SystemMessage(f"Known facts: {facts}."),
                "ai": AIMessage(f"I noted: {facts}."),
                "tool": AIMessage("", tool_calls=[{"name": "read_file", "args": {"path": "notes"}, "id": "fake-1",
                                                   "type": "tool_call"}])}[kind]
        extra = [note, ToolMessage(facts, tool_call_id="fake-1")] if kind == "tool" else [note]
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *extra, *kept]}

    return [trim_and_note]


@pytest.mark.parametrize("kind", ["human", "system", "ai", "tool"])
def test_ex06_q1_refuses_facts_the_run_never_produced(kind):
    result = ex06.q1.check(_cheat(kind))
    assert result.status == NO, result.message


def test_ex06_q1_hostile_and_right():
    from langchain.agents.middleware import SummarizationMiddleware

    from course_utils.model.chat import OfflineChatModel
    from course_utils.window.tokens import exact_counter

    right = [SummarizationMiddleware(OfflineChatModel(context_window=2048), trigger=("tokens", 1000),
                                     keep=("messages", 4), token_counter=exact_counter)]
    assert ex06.q1.check(right).status == OK
    assert ex06.q1.check([]).status == NO
    assert ex06.q1.check("summarise").status == NO
