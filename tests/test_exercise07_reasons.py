"""Exercise 07 q3's written reason is judged by what it claims, in English, Persian and Chinese."""

import pytest

from course_utils import checks
from course_utils.checks import cells, ex07


@pytest.fixture(autouse=True)
def lenient(monkeypatch):
    monkeypatch.setattr(checks, "STRICT", False)
    cells.forget()
    yield
    cells.forget()


@pytest.mark.parametrize("why", [
    "The plan and language are saved once in the user's store namespace, so any new thread can recall them, "
    "and each call is sent only a few short facts instead of the whole history.",
    "اطلاعات طرح و زبان کاربر یک بار در حافظه ذخیره می‌شود و هر فراخوان فقط چند واقعیت کوتاه دریافت می‌کند.",
    "用户的套餐和语言信息保存到存储里，新的线程可以找回，每次调用只发送几条短信息。",
])
def test_a_reason_that_says_what_is_saved_and_what_each_call_is_sent_passes(why):
    assert ex07.q3.check("b", why).status == "correct"


@pytest.mark.parametrize("why, words", [
    ("The facts are saved in the store.", "what each call is sent"),
    ("Each call grows with the whole history, but the facts are saved.", "other way round"),
])
def test_a_reason_missing_or_reversing_an_idea_is_not_correct(why, words):
    result = ex07.q3.check("b", why)
    assert result.status == "wrong" and words in result.message
