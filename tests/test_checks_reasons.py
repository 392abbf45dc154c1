"""Written reasons that must name the idea, the teacher's copy of them, and answer cells that failed.

- A "why" answer passes only when it asserts what its question's claim asks
  (course_utils.checks.reasons), in English, Persian or Chinese; otherwise the
  check says what to address (tests/test_reasons_judge.py has the judge's own tests).
- The learner's words reach the grader's record (``answer_text``) and the gradebook.
- Exercise 03 q2: a token counter called with one message gets feedback that
  names the mistake, not an AttributeError from inside the package.
- A check never grades the value an answer cell failed to replace: in a real
  IPython shell, a cell that stops with an error leaves its names marked, and
  the check says the cell did not run.
"""

from __future__ import annotations

import json

import pytest

from course_utils.checks import cells, ex01, ex02, ex03, ex04, ex05, ex06
from course_utils.checks.record import RECORD_ENV, read_records, valid_record
from course_utils.grade.gradebook import CSV_COLUMNS, gradebook_rows
from course_utils.grade.results import question_results


pytestmark = pytest.mark.usefixtures("lenient")  # tests/conftest.py: wrong answers are returned, not raised


# --- reasons must name the idea ----------------------------------------------------------------------

VAGUE = ["because that is the right answer", "I think this one is best", "it is obviously the correct option"]


@pytest.mark.parametrize("question, letter", [(ex02.q4, "c"), (ex03.q4, "a"), (ex04.q3, "d"), (ex06.q3, "c")])
@pytest.mark.parametrize("why", VAGUE)
def test_a_right_letter_with_a_reason_that_names_nothing_is_not_correct(question, letter, why):
    result = question.check(letter, why)
    assert result.status == "wrong"
    assert "right choice" in result.message and "does not say why yet" in result.message
    assert result.answer_text == why


@pytest.mark.parametrize(
    "question, letter, why",
    [
        (ex03.q4, "a", "It drops the newest messages, so the latest question never reaches the model."),
        (ex03.q4, "a", "با این کار آخرین پیام‌های گفتگو حذف می‌شوند"),
        (ex03.q4, "a", "它只保留最早的消息，丢掉了最新的问题"),
        (ex02.q4, "c", "The pasted document is too big: S + U + R is over the limit, so shorten the document."),
        (ex02.q4, "c", "سند چسبانده‌شده بیش از حد بزرگ است و باید کوتاه شود"),
        (ex02.q4, "c", "粘贴的文档太长了，应该缩短它"),
    ],
)
def test_a_reason_that_names_the_idea_passes_in_each_language(question, letter, why):
    result = question.check(letter, why)
    assert result.status == "correct", result.message
    assert result.answer_text == why


@pytest.mark.parametrize(
    "question, letter, why",
    [
        (ex04.q3, "d", "The stored state still holds the name, but only the trimmed list is sent to the model."),
        (ex04.q3, "d", "حالت هنوز نام را نگه می‌دارد ولی فقط فهرست برش‌خورده به مدل ارسال می‌شود"),
        (ex04.q3, "d", "状态里还保存着名字，但发送给模型的是裁剪后的列表"),
        (ex06.q3, "c", "The old file reads are the biggest part and can be read again; run_tests is excluded."),
        (ex06.q3, "c", "خواندن‌های قدیمی فایل بزرگ‌اند و می‌شود دوباره خواند، و نتیجه تست می‌ماند"),
        (ex06.q3, "c", "旧的文件读取占大部分，可以重新读取，测试结果被保留"),
    ],
)
def test_exercises_04_and_06_pass_a_reason_that_names_the_ideas(question, letter, why):
    result = question.check(letter, why)
    assert result.status == "correct", result.message
    assert result.answer_text == why


@pytest.mark.parametrize(
    "why, passes",
    [
        ("Without trimming each call re-sends the whole history; with a cap each call costs at most the cap.", True),
        ("بدون برش هر بار کل تاریخچه دوباره فرستاده می‌شود و با سقف هزینه هر فراخوانی ثابت می‌ماند", True),
        ("不裁剪时每次调用都重新发送整个历史，有上限时每次最多花费上限", True),
        ("because that is the right answer for both of them", False),
        ("each call re-sends the whole history so the total keeps rising", False),  # says nothing of the cap
        ("with a cap every call costs at most the cap, which is what I expected", False),  # nothing of re-sending
    ],
)
def test_exercise_01_q4_needs_both_ideas_once_the_letters_are_right(why, passes):
    result = ex01.q4.check("d", "c", why)
    assert (result.status == "correct") is passes, result.message
    if not passes:
        assert "does not say why yet" in result.message
    assert result.answer_text == why


#: A plan exercise 05 q4 accepts, so that only the reason decides.
EX05_PLAN = {"reserve": 800, "margin": 500, "include_system": True, "max_tokens": 6892, "start_on": "human"}


@pytest.mark.parametrize(
    "why, passes",
    [
        ("The cap is L - R - M because the list also holds the system prompt; start_on keeps tool results "
         "with their calls.", True),
        ("سقف L - R - M است چون فهرست پرامپت سیستم و پیام جدید را هم دارد و نتیجه ابزار از فراخوانی‌اش جدا نمی‌شود", True),
        ("上限是 L - R - M，因为列表里还有系统提示和新消息；工具结果不会和它的调用分开", True),
        *((why, False) for why in VAGUE),
        ("R covers the longest reply and M covers the counting error of the counter", False),  # neither idea
        ("the list also holds the system prompt and the new message, so the cap is smaller", False),  # no tools
        ("start_on='human' keeps every tool result with the call that asked for it", False),  # no list
    ],
)
def test_exercise_05_q4_needs_the_list_and_the_tools_once_the_plan_is_right(why, passes):
    result = ex05.q4.check(dict(EX05_PLAN), why)
    assert (result.status == "correct") is passes, result.message
    if not passes:
        assert "does not say why yet" in result.message
    assert result.answer_text == why


def test_exercise_01_q4_wrong_letters_are_named_before_the_reason():
    result = ex01.q4.check("c", "c", "because that is the right answer for both of them")
    assert result.status == "wrong" and "without trimming, not (c)" in result.message


def test_a_wrong_letter_still_says_why_it_is_wrong_whatever_the_reason():
    result = ex03.q4.check("b", "the newest messages are kept so it is fine")
    assert result.status == "wrong" and result.message.startswith("(b) is not it")


# --- the teacher sees the words ------------------------------------------------------------------------


def test_the_written_reason_reaches_the_record_and_the_gradebook(tmp_path, monkeypatch):
    record_file = tmp_path / "records.jsonl"
    monkeypatch.setenv(RECORD_ENV, str(record_file))
    why = "它只保留最早的消息，丢掉了最新的问题"
    ex03.q4.check("a", why)
    ex03.q1.check(["h2", "a2", "h3", "a3"])  # not a written answer: no answer_text
    records = read_records(record_file)
    assert [r.get("answer_text") for r in records] == [why, None]
    assert all(valid_record(r) for r in records)
    assert not valid_record({**records[0], "answer_text": 42})
    assert json.loads(record_file.read_text().splitlines()[0])["answer_text"] == why

    results = question_results("03", records, "ok")
    by_number = {q.number: q for q in results}
    assert by_number[4].answer_text == why and by_number[1].answer_text == ""

    from course_utils.grade.results import NotebookResult, Submission

    submission = Submission(path=tmp_path / "03_x_exercise.ipynb", relpath="amy/03_x_exercise.ipynb",
                            student="amy", exercise="03")
    rows = gradebook_rows([NotebookResult(submission, "03", "ok", "", results)])
    assert "answer_text" in CSV_COLUMNS
    assert [row["answer_text"] for row in rows if row["question"] == "q4"] == [why]


# --- exercise 03 q2: a counter called with one message -------------------------------------------------


def test_a_counter_called_with_one_message_gets_feedback_that_names_the_mistake():
    def keep_last_tokens(messages, max_tokens, token_counter):
        kept, total = [], 0
        for message in reversed(messages):
            cost = token_counter(message)  # the mistake: one message, not [message]
            if total + cost > max_tokens:
                break
            kept.append(message)
            total += cost
        return kept[::-1]

    result = ex03.q2.check(keep_last_tokens)
    assert result.status == "error"
    assert "takes a *list* of messages" in result.message and "token_counter([message])" in result.message
    assert "tuple" not in result.message and "AttributeError" not in result.message


# --- answer cells that failed ---------------------------------------------------------------------------


def test_names_a_failed_cell_left_unset():
    assert cells.names_left_unset("a = 1\nb = f()\nc = 3", 2) == {"b", "c"}
    assert cells.names_left_unset("def keep(messages):\n    return messages[\n", None) == {"keep"}
    assert cells.names_left_unset("x, (y, z) = 1, (2, 3)\nimport os.path as p", None) == {"x", "y", "z", "p"}


@pytest.fixture
def shell():
    """A real IPython shell in this process, with the checks' post_run_cell hook registered."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    assert cells.install()
    shell.run_cell("from course_utils.checks import ex03\nq1, q2, q3, q4 = ex03.questions")
    yield shell
    shell.events.unregister("post_run_cell", cells.after_cell)
    InteractiveShell.clear_instance()


def test_a_check_after_a_failed_answer_cell_says_the_cell_did_not_run(shell):
    shell.run_cell('kept_ids = ["h2", "a2", "h3", "a3"]')  # a right answer, from an earlier run
    assert shell.run_cell("q1.check(kept_ids)").result.status == "correct"

    failed = shell.run_cell('kept_ids = ["h2", "a2", "h3", "a3"')  # edited, and now a SyntaxError
    assert failed.error_before_exec is not None
    result = shell.run_cell("q1.check(kept_ids)").result
    assert result.status == "error" and "did not run" in result.message and "SyntaxError" in result.message

    shell.run_cell('kept_ids = ["h2", "a2", "h3", "a3"]')  # fixed and run again: graded again
    assert shell.run_cell("q1.check(kept_ids)").result.status == "correct"


def test_only_the_names_after_a_runtime_error_are_marked(shell):
    shell.run_cell('choice = "a"\nwhy = "It drops the newest messages of the conversation."')
    failed = shell.run_cell('choice = "a"\nwhy = 1 / 0')
    assert failed.error_in_exec is not None
    result = shell.run_cell("q4.check(choice, why)").result
    assert result.status == "error" and "`why`" in result.message and "ZeroDivisionError" in result.message
    assert cells.failed_answer(["choice"]) is None  # set before the error: it did run
