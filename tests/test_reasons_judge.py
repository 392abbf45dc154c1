"""The "why" judge (course_utils.checks.reasons) on right and wrong reasons for every reason question.

Each reason question has at least ten right and ten wrong reasons in
English here, and several questions have Persian and Chinese ones. A wrong
reason must never be "correct": it is "wrong" (not quite) or, where the judge
cannot be confident, "needs review". The wrong ones include every answer
issue 20 reports as graded correct by the old keyword rule.
"""

from __future__ import annotations

import pytest

from course_utils import checks
from course_utils.checks import claims, ex01, ex02, ex03, ex04, ex05, ex06
from course_utils.checks.reasons import Claim, Relation, Term, bag_of_words, clauses, judge, language_of


pytestmark = pytest.mark.usefixtures("lenient")  # tests/conftest.py: wrong answers are returned, not raised


RIGHT = {
    "01 q4": [
        "Without trimming each call re-sends the whole, growing history, so the total is a sum of growing terms; "
        "with a cap each call costs at most the cap, so the total grows by about the cap per call.",
        "Without a cap every call sends the entire history again, so the total grows with the square of the "
        "number of calls; with a cap each call is bounded, so the total grows linearly.",
        "Untrimmed, call k re-sends all previous turns, which adds up to about n^2 / 2; trimmed, each call "
        "sends at most the cap, so the total rises by about the cap per call.",
        "If nothing is trimmed the history grows every turn and is sent again each time, giving quadratic "
        "growth; with trimming the cost of a call stops growing once the cap is reached.",
        "Each call re-sends the whole history, so the total is quadratic; with a limit each call costs a "
        "fixed amount, so the total is linear.",
        "Without trimming the sum is 1 + 2 + ... + n turns, which is quadratic; with a cap the cost per "
        "call is constant after the history reaches it.",
        "With no cap, the full history is re-sent on every call and the total grows like n squared, while "
        "with a cap every call costs no more than the cap.",
        "Nothing trimmed means every earlier message is sent again each call (a triangular sum); a budget "
        "caps each call at about the same size, so the total grows by the cap per call.",
        "Without trimming, calls get bigger each time because they resend the whole history, so the total is "
        "quadratic; with trim_messages each call is capped at max_tokens and the total grows linearly.",
        "Without a limit the total is quadratic since every call re-sends all earlier turns; with a limit "
        "each call's cost plateaus at the limit.",
    ],
    "02 q4": [
        "The fixed parts S + U + R already exceed L, so no amount of history trimming helps; shrinking U "
        "(the pasted document) to 300 tokens leaves room for the history.",
        "S + U + R is over the limit before any history, so trimming the history cannot help; cutting the "
        "pasted document makes room.",
        "The pasted document is too big: the fixed parts exceed the window, and only shortening the document "
        "frees room for the history.",
        "Trimming the history is useless because the fixed parts are already over the limit; summarising the "
        "document makes U smaller.",
        "The user input is too large, so the fixed parts do not fit; cut the document down to the part that "
        "matters.",
        "Even with an empty history the fixed parts exceed L, so the fix is to shrink the document.",
        "U is what pushes S + U + R over the limit, so reducing the document to 300 tokens leaves 336 tokens "
        "for the history.",
        "The document takes too much of the window; making it smaller leaves room for the conversation.",
        "Because S+U+R exceeds 2048, trimming harder does not help, but shortening the pasted document does.",
        "The fixed parts are over the limit, and the document is the part we can shrink without hurting the "
        "answer.",
    ],
    "03 q4": [
        "strategy='first' keeps the start of the conversation, so once the history is over the budget the "
        "newest messages, including the user's latest question, are dropped.",
        "It keeps the oldest messages and drops the newest ones, so the model never sees the latest question.",
        "With strategy='first' the latest question is cut, because it keeps the beginning of the conversation.",
        "It drops the newest messages of the conversation.",
        "The user's latest question is lost because trimming from the start keeps only the oldest messages.",
        "The chatbot would answer without the current question, since strategy='first' discards the most "
        "recent messages.",
        "strategy='first' retains the earliest messages; the newest ones are removed when the history is too "
        "long.",
        "Once the history is over the budget the most recent turns are left out, the latest question among them.",
        "It keeps the first messages, so the new question is never sent to the model.",
        "The model does not see the latest question because it is dropped by strategy='first'.",
        "Unlike strategy='last', which keeps the newest, strategy='first' keeps the oldest messages.",
    ],
    "04 q3": [
        "The state keeps every message (the stored thread still starts with hi! I'm bob), but the node sends "
        "the model only the trimmed list, and the name is no longer in it.",
        "The stored state still holds the name, but only the trimmed list is sent to the model.",
        "The checkpoint keeps the whole conversation; the model only sees the trimmed messages.",
        "The name is still in the state, but the trimmed copy passed to the model does not include it.",
        "trim_messages only shortens what is sent: the thread keeps hi! I'm bob, the model gets the trimmed list.",
        "The saved thread still has the first message, but the model receives only the last few messages.",
        "The state retains everything while the call to the model is given a trimmed list without the name.",
        "What is stored keeps the name; what was sent to the model was trimmed.",
        "The thread keeps all messages, but the node trims before sending, so the model never saw the name.",
        "The graph's state keeps the message; only the model's input was trimmed.",
    ],
    "05 q4": [
        "R covers the longest answer, M covers the 5% counting error, the cap is L - R - M because the list I "
        "trim also holds the system prompt and the new message, and start_on='human' keeps tool results with "
        "their tool calls.",
        "The cap is L - R - M because the list also holds the system prompt; start_on keeps tool results with "
        "their calls.",
        "I trim the history alone, so the cap is H_max; start_on='human' avoids orphaned tool results.",
        "The trimmed list contains the system prompt and the user input, so its cap is L - R - M, and "
        "starting on a human turn never separates a tool result from its call.",
        "The list includes the system message and the new message; start_on human keeps each tool result "
        "together with its AIMessage.",
        "Only the history is trimmed, so max_tokens is H_max; start_on='human' prevents an orphaned tool message.",
        "Because the kept list holds S and U as well, max_tokens is L - R - M; tool results stay with their "
        "calls when the trim starts on a human message.",
        "The cap covers the whole list including the system prompt and the new input; starting on human never "
        "orphans a ToolMessage.",
        "The list I trim contains the system prompt, so the cap is L - R - M; start_on='human' keeps tool results "
        "paired with their tool calls.",
        "max_tokens is for the history alone; a trim that starts on a human turn never leaves a tool result "
        "without its call.",
    ],
    "06 q3": [
        "Old file reads are most of the tokens and can be read again, so clearing them in what is sent saves the "
        "most; exclude_tools keeps the test results, and the stored history stays whole for the review.",
        "The old file reads are the biggest part and can be read again; run_tests is excluded.",
        "File reads are huge and the agent can re-read a file, so clear them; the test results are kept because "
        "run_tests is excluded.",
        "The files are large and easy to fetch again, while the test output is kept, and the stored history "
        "stays intact.",
        "Clearing old file contents saves the most tokens since they are big, and the tests are left alone by "
        "exclude_tools.",
        "The file reads can be reread whenever needed; clearing only changes what is sent, so the history stays "
        "complete for review.",
        "Most of the context is old file reads, so clearing them helps most; exclude_tools keeps run_tests results.",
        "Old files take up most of the input and can be opened again; the test results survive because they "
        "are excluded.",
        "The big file reads are cleared from what is sent, but the stored history keeps everything for the "
        "review.",
        "Files can be read again, so dropping them loses nothing, and the test results stay in every call.",
    ],
}

WRONG = {
    "01 q4": [
        "It is a sum with a limit.",  # issue 20: a platitude, graded correct before
        "because that is the right answer for both of them",
        "each call re-sends the whole history so the total keeps rising",  # nothing about the cap
        "with a cap every call costs at most the cap, which is what I expected",  # nothing about re-sending
        "Without trimming each call costs at most the cap, and with a cap the total grows with the square.",
        "It grows exponentially without trimming and linearly with it.",
        "sum square cap linear history resend",  # a bag of words
        "cap cap cap square square",
        "The numbers get bigger and then smaller.",
        "With a cap the total still grows quadratically because every call re-sends the whole history.",
        "Tokens are counted by the tokenizer, so the totals are different.",
    ],
    "02 q4": [
        "because that is the right answer",
        "The pasted document is the part that is too big: S + U + R is over the limit.",  # says nothing to do
        "Trimming the history harder fixes it, so the document can stay.",
        "document shrink over limit fixed parts",
        "It is a good option that works well.",
        "The reserve is too small, so raising R would help.",
        "The history is long and should be trimmed with trim_messages to fix it.",
        "I think this one is best because it is cheaper.",
        "pasted pasted pasted document document",
        "The model is too small for this task and needs a bigger window.",
    ],
    "03 q4": [
        "banana newest oldest dropped latest question purple",  # issue 20: a bag of words
        "first first first latest latest",  # issue 20
        "It keeps the newest messages and drops the oldest ones, so the latest question is never dropped",  # reversed
        "It keeps the latest question and drops the old messages.",
        "strategy='first' keeps the most recent messages.",
        "The oldest messages are removed, which is fine.",
        "because that is the right answer",
        "It costs more tokens than the other strategy.",
        "The newest messages are never lost with strategy='first'.",
        "It is obviously the correct option here.",
        "The model gets confused by the orphaned tool message.",
    ],
    "04 q3": [
        "because that is the right answer",
        "trim_messages deleted the name from the state, so the model forgot it.",
        "The model's context window was exceeded, so it ignored the history.",
        "state sent trimmed stored model",
        "The model forgot because models forget things.",
        "The stored state lost the first message when the node trimmed it.",
        "It is the best option because it explains what happens.",
        "The thread was reset by the checkpointer.",
        "The node sends the model only the trimmed list.",  # nothing about where the name still is
        "The state keeps every message.",  # nothing about what was sent
    ],
    "05 q4": [
        "because that is the right answer",
        "R covers the longest reply and M covers the counting error of the counter",
        "the list also holds the system prompt and the new message, so the cap is smaller",  # no tools
        "start_on='human' keeps every tool result with the call that asked for it",  # no list
        "system prompt tool orphan history alone",
        "The cap is L - R - M and start_on is human.",
        "start_on='human' orphans tool results, and the list holds the system prompt.",
        "It is a safe plan with enough room for everything.",
        "The numbers add up to the limit so it fits.",
        "I picked these values because they look reasonable for an agent.",
    ],
    "06 q3": [
        "files tests review whole banana tokens read again cleared",  # issue 20: a bag of words
        "because that is the right answer",
        "It clears the test results, which are big, and keeps the files.",
        "The file reads are big, but the test results are cleared too.",
        "It is the cheapest option for the agent.",
        "ContextEditingMiddleware is the newest middleware so it is best.",
        "clear clear clear file file",
        "The summary keeps everything the review needs.",
        "The stored history is trimmed so the file reads are gone for good.",
        "I think this one is best because it uses a middleware.",
    ],
}

RIGHT_FA_ZH = {
    "01 q4": [
        "بدون برش هر بار کل تاریخچه دوباره فرستاده می‌شود و با سقف هزینه هر فراخوانی ثابت می‌ماند",
        "بدون سقف هر فراخوانی همه پیام‌های قبلی را دوباره می‌فرستد، پس مجموع با مربع تعداد رشد می‌کند؛ با سقف رشد خطی است",
        "不裁剪时每次调用都重新发送整个历史，有上限时每次最多花费上限",
        "没有上限时每次都要重新发送全部历史，所以总量按平方增长；有上限后每次调用的开销固定，总量线性增长",
    ],
    "03 q4": [
        "با این کار آخرین پیام‌های گفتگو حذف می‌شوند",
        "strategy='first' پیام‌های قدیمی را نگه می‌دارد و جدیدترین پرسش کاربر حذف می‌شود",
        "它只保留最早的消息，丢掉了最新的问题",
        "strategy='first' 保留开头的消息，所以用户最新的问题被丢掉了",
    ],
    "04 q3": [
        "حالت هنوز نام را نگه می‌دارد ولی فقط فهرست برش‌خورده به مدل ارسال می‌شود",
        "状态里还保存着名字，但发送给模型的是裁剪后的列表",
    ],
    "05 q4": [
        "سقف L - R - M است چون فهرست پرامپت سیستم و پیام جدید را هم دارد و نتیجه ابزار از فراخوانی‌اش جدا نمی‌شود",
        "上限是 L - R - M，因为列表里还有系统提示和新消息；工具结果不会和它的调用分开",
    ],
    "06 q3": [
        "فایل‌ها بزرگ‌اند و تست می‌ماند",
        "خواندن‌های قدیمی فایل بزرگ‌اند و می‌شود دوباره خواند، و نتیجه تست می‌ماند",
        "فایل‌های قدیمی را پاک کردن چون بزرگ هستند و تست‌ها می‌مانند",  # issue 20: فایل and پاک کردن
        "旧的文件读取占大部分，可以重新读取，测试结果被保留",
    ],
    "02 q4": [
        "سند چسبانده‌شده بیش از حد بزرگ است و باید کوتاه شود",
        "粘贴的文档太长了，应该缩短它",
    ],
}

WRONG_FA_ZH = {
    "01 q4": [
        "این یک مجموع با یک سقف است",  # the platitude, in Persian
        "بدون برش هزینه هر فراخوانی ثابت می‌ماند",  # reversed, nothing else
        "这是一个有上限的和",
        "不裁剪时每次调用的开销固定",
    ],
    "03 q4": [
        "strategy='first' جدیدترین پیام‌ها را نگه می‌دارد و قدیمی‌ها را حذف می‌کند",  # reversed
        "این گزینه درست است چون بهتر است",
        "它保留最新的消息，丢掉最早的消息",  # reversed
        "因为这是正确答案所以选它",
    ],
    "06 q3": [
        "نتیجه تست‌ها پاک می‌شود و فایل‌ها نگه داشته می‌شوند",  # reversed
        "这个选项最好因为它很便宜",
    ],
}


def _claim(key: str) -> Claim:
    return getattr(claims, "EX" + key.replace(" q", "_Q"))


def _cases(table):
    return [(key, text) for key, texts in table.items() for text in texts]


def test_at_least_ten_right_and_ten_wrong_english_reasons_per_question():
    keys = {"01 q4", "02 q4", "03 q4", "04 q3", "05 q4", "06 q3"}
    assert set(RIGHT) == set(WRONG) == keys
    assert all(len(RIGHT[k]) >= 10 and len(WRONG[k]) >= 10 for k in keys)
    assert all(language_of(t) == "en" for k in keys for t in RIGHT[k])
    assert sum(len(v) >= 2 for v in RIGHT_FA_ZH.values()) >= 2 and len(WRONG_FA_ZH) >= 2
    for texts in (*RIGHT_FA_ZH.values(), *WRONG_FA_ZH.values()):
        assert {language_of(t) for t in texts} == {"fa", "zh"}


@pytest.mark.parametrize("key, text", _cases(RIGHT) + _cases(RIGHT_FA_ZH))
def test_a_right_reason_is_correct(key, text):
    verdict = judge(_claim(key), text)
    assert verdict.status == "correct", verdict


@pytest.mark.parametrize("key, text", _cases(WRONG) + _cases(WRONG_FA_ZH))
def test_a_wrong_reason_is_never_correct(key, text):
    verdict = judge(_claim(key), text)
    assert verdict.status in ("wrong", "needs review"), verdict
    assert verdict.message


@pytest.mark.parametrize("key, text", _cases(WRONG_FA_ZH))
def test_feedback_is_in_the_language_of_the_reason(key, text):
    verdict = judge(_claim(key), text)
    assert verdict.lang == language_of(text)
    letters = "\u0600-\u06ff" if verdict.lang == "fa" else "\u4e00-\u9fff"
    import re

    assert re.search(f"[{letters}]", verdict.message) and not re.search(r"\b(your|reason|the)\b", verdict.message)


def test_the_reversed_claim_of_issue_20_is_named():
    verdict = judge(claims.EX03_Q4, "It keeps the newest messages and drops the oldest ones, so the latest "
                                     "question is never dropped")
    assert verdict.status == "wrong" and verdict.reversed and "other way round" in verdict.message
    assert "keeps the newest" in verdict.message


def test_a_reason_in_another_language_needs_review():
    verdict = judge(claims.EX03_Q4, "Il garde les messages les plus anciens et perd la dernière question")
    assert verdict.status == "needs review" and "teacher will read" in verdict.message


def test_a_reason_that_says_both_the_claim_and_its_reverse_needs_review():
    verdict = judge(claims.EX03_Q4, "It drops the newest messages; it keeps the newest messages.")
    assert verdict.status == "needs review", verdict


def test_bags_clauses_and_languages():
    assert bag_of_words("banana newest oldest dropped latest question purple", "en")
    assert not bag_of_words("it keeps the oldest messages", "en")
    assert bag_of_words("最新 最早 丢掉", "zh") and not bag_of_words("它丢掉了最新的问题", "zh")
    assert clauses("it keeps the oldest, so the newest are dropped", "en") == ["it keeps the oldest",
                                                                              "the newest are dropped"]
    assert language_of("Der Zustand ist nicht gleich") is None


def test_terms_and_relations_are_validated():
    with pytest.raises(ValueError):
        Term("Bad Name")
    with pytest.raises(ValueError):
        Term("x", en=("Upper",))
    thing = Term("thing", en=("thing",))
    verb = Term("verb", en=("verb",), predicate=True)
    with pytest.raises(ValueError, match="pair is"):
        Relation("r", ((thing, verb),), {"en": "", "fa": "", "zh": ""})
    with pytest.raises(ValueError, match="nudge"):
        Relation("r", ((verb, thing),), {"en": "x"})
    with pytest.raises(TypeError):
        judge(claims.EX03_Q4, 5)


# --- through the checks: the status, the language, the gradebook -----------------------------------

QUESTIONS = {
    "01 q4": (ex01.q4, ("d", "c")),
    "02 q4": (ex02.q4, ("c",)),
    "03 q4": (ex03.q4, ("a",)),
    "04 q3": (ex04.q3, ("d",)),
    "05 q4": (ex05.q4, ({"reserve": 800, "margin": 500, "include_system": True, "max_tokens": 6892,
                         "start_on": "human"},)),
    "06 q3": (ex06.q3, ("c",)),
}


@pytest.mark.parametrize("key", sorted(QUESTIONS))
def test_the_masters_reason_is_correct(key):
    """The `why` of every master (read from its generated solution lines) passes the judge."""
    from course_utils.checks import solutions

    q, _ = QUESTIONS[key]
    code = solutions.solution(q.exercise, q.number)
    names: dict = {}
    exec(code[code.index("why ="):], {}, names)  # noqa: S102 - the course's own master, not a learner's code
    assert judge(_claim(key), names["why"]).status == "correct", names["why"]


@pytest.mark.parametrize("key", sorted(QUESTIONS))
def test_every_reason_question_uses_the_judge(key):
    q, answers = QUESTIONS[key]
    assert q.check(*answers, RIGHT[key][0]).status == "correct"
    for text in WRONG[key][:4]:
        result = q.check(*answers, text)
        assert result.status in ("wrong", "needs review"), result
        assert result.answer_text == text


def test_issue_20_wrong_answers_are_not_correct_through_the_checks():
    assert ex01.q4.check("d", "c", "It is a sum with a limit.").status == "wrong"
    for why in ("banana newest oldest dropped latest question purple", "first first first latest latest",
                "It keeps the newest messages and drops the oldest ones, so the latest question is never dropped"):
        assert ex03.q4.check("a", why).status == "wrong", why
    assert ex06.q3.check("c", "files tests review whole banana tokens read again cleared").status == "wrong"


def test_a_persian_reason_gets_persian_feedback_and_no_english_note():
    ok = ex06.q3.check("c", "فایل‌های قدیمی پاک می‌شوند چون بزرگ‌اند و دوباره خوانده می‌شوند، و نتیجه تست‌ها می‌ماند")
    assert ok.status == "correct" and "does not use the words" not in ok.message
    wrong = ex06.q3.check("c", "این گزینه بهتر است چون ارزان‌تر است")
    assert wrong.status == "wrong" and wrong.lang == "fa" and "دلیل شما" in wrong.message
    html = wrong._repr_html_()
    assert 'lang="fa" dir="rtl"' in html


def test_a_reason_that_needs_review_is_recorded_and_shown_as_such(tmp_path, monkeypatch):
    from course_utils.checks.record import RECORD_ENV, read_records, valid_record
    from course_utils.grade.gradebook import gradebook_rows
    from course_utils.grade.results import NotebookResult, Submission, question_results

    monkeypatch.setenv(RECORD_ENV, str(tmp_path / "records.jsonl"))
    why = "Il garde les messages les plus anciens et perd la dernière question"
    result = ex03.q4.check("a", why)
    assert result.status == "needs review" and not result.correct
    assert result.text.startswith("[needs review]")
    records = read_records(tmp_path / "records.jsonl")
    assert valid_record(records[0]) and records[0]["status"] == "needs review"
    results = question_results("03", records, "ok")
    submission = Submission(path=tmp_path / "03_x_exercise.ipynb", relpath="amy/03_x_exercise.ipynb",
                            student="amy", exercise="03")
    notebook = NotebookResult(submission, "03", "ok", "", results)
    rows = gradebook_rows([notebook])
    assert [r["status"] for r in rows if r["question"] == "q4"] == ["needs review"]
    assert notebook.correct == 0


def test_strict_mode_raises_on_needs_review(monkeypatch):
    monkeypatch.setattr(checks, "STRICT", True)
    with pytest.raises(AssertionError, match="needs review"):
        ex03.q4.check("a", "Il garde les messages les plus anciens et perd la dernière question")
