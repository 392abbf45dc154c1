"""The gradebook's rendering: the checks' Markdown rendered in the HTML page, plain words in the CSV.

The page's layout (it fits a 1,400 px window) is measured in Chromium by
tests/test_browser_views.py; these tests need no grading run.

The gradebook in Persian (issue 23, ``--lang fa``): the English gradebook is
byte for byte the golden files written before it spoke Persian
(``tests/gradebook_cases.py``); the Persian one is ``<html lang="fa"
dir="rtl">`` with Persian words, statuses, titles and tooltips, its CSV keeps
the English keys, and the caller's language is what it was. The last test
opens the Persian page in Chromium: right to left, code left to right, axe.
"""

import csv
import io
import re
from pathlib import Path

import nbformat
import pytest

from course_utils import checks
from course_utils.core import i18n
from course_utils.grade.gradebook import exercise_title, gradebook_csv, gradebook_html, message_html, message_plain
from course_utils.grade.gradebook import speaking, status_word
from course_utils.grade.results import NOTEBOOK_STATUSES, QUESTION_STATUSES

import gradebook_cases
from test_browser_views import (
    ARTIFACTS, LONG_ANSWER, PERSIAN_ANSWER, fabricated_results, failing_axe_violations, gradebook_page,
    render_gradebook,
)

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("text, plain, rendered", [
    ("`B` should be a whole number", "B should be a whole number", "<code>B</code> should be a whole number"),
    ("takes a *list* of messages", "takes a list of messages", "takes a <em>list</em> of messages"),
    ("**first** keeps the oldest", "first keeps the oldest", "<strong>first</strong> keeps the oldest"),
    ("`a*b*c` and 2 * 3 * 4", "a*b*c and 2 * 3 * 4", "<code>a*b*c</code> and 2 * 3 * 4"),
    ("`<img src=x>` & <b>", "<img src=x> & <b>", "<code>&lt;img src=x&gt;</code> &amp; &lt;b&gt;"),
    ("a lone ` stays", "a lone ` stays", "a lone ` stays"),
    ("line one\nline two", "line one\nline two", "line one<br>line two"),
    ("**two *levels***", "two levels", "<strong>two </strong><strong><em>levels</em></strong>"),
    ("__init__ and max_tokens", "__init__ and max_tokens", "__init__ and max_tokens"),
    ("[a link](javascript:x) ![](y) <script>z</script> &amp;", "[a link](javascript:x) ![](y) <script>z</script> &amp;",
     "[a link](javascript:x) ![](y) &lt;script&gt;z&lt;/script&gt; &amp;amp;"),
])
def test_a_checks_markdown_is_rendered_in_html_and_plain_in_csv(text, plain, rendered):
    assert message_plain(text) == plain
    assert str(message_html(text)) == rendered


def test_csv_messages_have_no_markdown_and_answers_are_kept_as_written():
    rows = list(csv.DictReader(io.StringIO(gradebook_csv(fabricated_results()))))
    assert rows and not any("`" in row[c] for row in rows for c in ("message", "hint", "notebook_detail"))
    bob_q2 = next(r for r in rows if r["student"] == "bob" and r["question"] == "q2")
    assert "the counter takes a list of messages" in bob_q2["message"]
    assert bob_q2["hint"].startswith("Walk reversed(messages), adding token_counter([message]);")
    assert {r["answer_text"] for r in rows} >= {LONG_ANSWER, PERSIAN_ANSWER}


def test_html_renders_code_spans_and_escapes_everything_else():
    page = render_gradebook(fabricated_results())
    assert "<code>keep_last_tokens</code>" in page and "<em>list</em>" in page
    assert "`" not in page.split("<details", 1)[1].split("</details>", 1)[0]
    # The hover titles of the summary table are plain text too.
    assert 'title="q2 (keep_last_tokens by hand): wrong. keep_last_tokens kept' in page
    # One group per notebook, naming the student, the exercise, the file and how the notebook ran.
    assert page.count('<tr class="notebook">') == 4
    assert "cell 7 raised NameError: name <code>middleware</code> is not defined" in page


def test_gradebook_html_is_the_same_bytes_for_the_same_results():
    assert render_gradebook(fabricated_results()) == render_gradebook(fabricated_results())


# --- the gradebook in Persian (issue 23) ------------------------------------------------------------


@pytest.fixture
def persian_caller():
    """A caller (a notebook, a teacher's script) whose language is Persian; English again afterwards."""
    i18n.set_language("fa")
    yield
    i18n.set_language("en")


def golden(name: str) -> str:
    return (gradebook_cases.GOLDEN / name).read_bytes().decode("utf-8")


def test_the_english_gradebook_is_byte_identical_to_the_one_before_it_spoke_persian():
    for lang in (None, "en"):
        csv_text, html_text = gradebook_cases.render(lang)
        assert csv_text == golden("class_en.csv"), lang
        assert html_text == golden("class_en.html"), lang


def test_english_asked_by_a_persian_caller_is_the_same_bytes_and_the_caller_stays_persian(persian_caller):
    assert gradebook_cases.render("en") == (golden("class_en.csv"), golden("class_en.html"))
    assert i18n.get_language() == "fa"
    # and without lang, the gradebook speaks the caller's language
    assert '<html lang="fa" dir="rtl">' in gradebook_cases.render()[1] and i18n.get_language() == "fa"


def test_writing_a_persian_gradebook_leaves_the_callers_language_english():
    gradebook_cases.render("fa")
    assert i18n.get_language() == "en"
    with pytest.raises(RuntimeError):  # an error inside gives the language back too
        with speaking("fa"):
            raise RuntimeError("boom")
    assert i18n.get_language() == "en"


@pytest.mark.parametrize("lang, error", [("de", ValueError), ("FA ", ValueError), (3, TypeError)])
def test_a_bad_lang_is_refused_naming_it(lang, error):
    with pytest.raises(error, match="lang"):
        gradebook_csv([], lang=lang)
    assert i18n.get_language() == "en"


def visible_text(html: str) -> str:
    """The page's text a reader sees (tags, the style sheet and attribute values left out)."""
    body = html.split("<body>", 1)[1]
    return re.sub(r"<[^>]*>", " ", body)


def test_a_persian_page_is_right_to_left_with_persian_words_statuses_and_titles():
    html = gradebook_cases.render("fa")[1]
    english = golden("class_en.html")
    assert html.startswith('<!DOCTYPE html>\n<html lang="fa" dir="rtl"><head><meta charset="utf-8"><title>دفتر نمره</title>')
    text = visible_text(html)
    for words in ("دفتر نمره", "تحویل نداده", "نمره‌های هر دانشجو", "همهٔ پرسش‌ها", "هر notebook در یک kernel تازه"):
        assert words in html, words
    # None of the page's own English words is left (the checks' English messages in this class are theirs).
    for words in ("Gradebook", "no submission", "Hover over", "Every question", "Each notebook ran", "student<",
                  "marks per student", "exercise ?", "own namespaces", "as user nobody"):
        assert words not in html.split("<body>", 1)[1], words
    # Every status the page shows is in Persian, from the "grade status" context of the catalogue.
    with speaking("fa"):
        words = {status: status_word(status) for status in QUESTION_STATUSES + NOTEBOOK_STATUSES}
    assert all(re.search("[\u0600-\u06ff]", word) for word in words.values()), words
    for status in ("correct", "wrong", "for the teacher", "not attempted", "error", "not run", "ok", "crashed",
                   "timeout", "memory limit", "disk limit", "invalid notebook"):
        assert status in english and words[status] in text, status
        assert f">{status}<" not in html and f"\u00b7 {status}<" not in html, status
    # Question titles and exercise titles are the Persian edition's; code and numbers stay left to right.
    assert ">trim با دست<" in html and "03 \u00b7 گام به گام با trim" in html
    assert '<td class="score" dir="ltr">1/4</td>' in html and '<th dir="ltr">q1</th>' in html
    assert "code{direction:ltr;unicode-bidi:isolate}" in html and "code{direction" not in english
    # A student's own words are exactly as written, finding their own direction.
    assert f'<td dir="auto">{gradebook_cases.PERSIAN_WHY}</td>' in html
    assert '<td dir="auto">Because the tool result lost its AIMessage &amp; &lt;the call&gt;.</td>' in html
    # An English message or hint (an English notebook's) is laid out left to right in the Persian page.
    assert '<td dir="ltr">Correct.</td>' in html


def test_persian_tooltips_name_the_persian_title_status_and_hint():
    html = render_gradebook_fa(fabricated_results())
    tips = re.findall(r'title="([^"]*)"', html)
    bob_q2 = next(t for t in tips if t.startswith("q2 (keep_last_tokens با دست): نادرست. keep_last_tokens kept"))
    with speaking("fa"):
        hint = message_plain(i18n.translate(checks.ex03.q2.hints[0]))
    assert hint != message_plain(checks.ex03.q2.hints[0])  # the hint has its Persian
    assert bob_q2.endswith("\nراهنمایی: " + __import__("html").escape(hint)), bob_q2
    assert not any("Hint:" in t for t in tips)
    notebook_tip = next(t for t in tips if t.startswith("carol/06_agent_context_exercise.ipynb: "))
    assert notebook_tip.startswith("carol/06_agent_context_exercise.ipynb: خطا. cell 7 raised NameError")


def render_gradebook_fa(results) -> str:
    from course_utils.grade.isolation import Isolation
    from course_utils.grade.results import Settings

    return gradebook_html(results, Settings(), Isolation(namespaces=True), changed=[], lang="fa")


#: The CSV columns a spreadsheet or script reads as keys: the same English values in every language.
CSV_KEYS = ("student", "exercise", "file", "question", "status", "notebook_status", "notebook_detail", "answer_text")


def test_the_persian_csv_keeps_the_english_keys_and_translates_only_titles_hints_and_the_graders_message():
    english = list(csv.reader(io.StringIO(golden("class_en.csv"))))
    persian = list(csv.reader(io.StringIO(gradebook_cases.render("fa")[0])))
    assert persian[0] == english[0] and len(persian) == len(english)
    header = english[0]
    changed = set()
    for en_row, fa_row in zip(english[1:], persian[1:]):
        en, fa = dict(zip(header, en_row)), dict(zip(header, fa_row))
        assert [fa[c] for c in CSV_KEYS] == [en[c] for c in CSV_KEYS]
        changed |= {c for c in header if fa[c] != en[c]}
        if en["message"].startswith("no question could be graded: "):
            assert fa["message"].startswith("به هیچ پرسشی نمره داده نشد: ")
            assert en["notebook_detail"] == "" or f"\u2068{en['notebook_detail']}\u2069" in fa["message"]
        elif "never ran: " in en["message"]:  # the grader's own (results.grader_message)
            assert "never ran" not in fa["message"] and "اجرا نشد" in fa["message"]
        else:
            assert fa["message"] == en["message"]  # a check's message is in the language its notebook ran in
    assert changed == {"title", "message"}  # this class's hints are not the checks' own, so they stay
    # The checks' own hints are translated in the CSV too.
    rows = list(csv.DictReader(io.StringIO(gradebook_csv(fabricated_results(), lang="fa"))))
    bob_q2 = next(r for r in rows if r["student"] == "bob" and r["question"] == "q2")
    with speaking("fa"):
        assert bob_q2["hint"] == message_plain(i18n.translate(checks.ex03.q2.hints[0])) != ""
    assert bob_q2["status"] == "wrong" and bob_q2["title"] == "keep_last_tokens با دست"


def test_every_exercise_title_is_the_persian_editions_heading():
    """The catalogue's "exercise title" entries are the titles of exercises/fa/NN_..._exercise.ipynb."""
    for path in sorted((ROOT / "exercises" / "fa").glob("*_exercise.ipynb")):
        number = path.name[:2]
        heading = next(line for line in nbformat.read(path, as_version=4).cells[0].source.splitlines()
                       if line.startswith("# "))
        with speaking("fa"):
            persian = exercise_title(number)
        assert heading == f"# تمرین {number}: " + persian.split(" \u00b7 ", 1)[1], (heading, persian)
        assert exercise_title(number) == f"{number} \u00b7 " + getattr(checks, f"ex{number}").title  # English


def test_the_persian_gradebook_in_chromium_reads_right_to_left_and_passes_axe(chromium_browser, tmp_path):
    from test_browser_a11y import describe

    with gradebook_page(chromium_browser, tmp_path, render_gradebook_fa(fabricated_results())) as page:
        seen = page.evaluate("""() => {
            const style = e => getComputedStyle(e).direction;
            const table = document.querySelector('details table');
            const first = table.querySelector('thead th'), last = table.querySelector('thead th:last-child');
            return {page: style(document.body), code: [...document.querySelectorAll('code')].map(style),
                    scores: [...document.querySelectorAll('td.score')].map(style),
                    questionRight: first.getBoundingClientRect().right, answerLeft: last.getBoundingClientRect().left,
                    tableRight: table.getBoundingClientRect().right,
                    scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth};
        }""")
        page.screenshot(path=str(ARTIFACTS / "gradebook_fa_1400.png"), full_page=True)
        assert seen["page"] == "rtl" and set(seen["code"]) == {"ltr"} and set(seen["scores"]) == {"ltr"}, seen
        # The first column (question) is the rightmost, the student's words the leftmost.
        assert seen["questionRight"] == pytest.approx(seen["tableRight"], abs=2) and seen["answerLeft"] < 200, seen
        assert seen["scrollWidth"] <= seen["clientWidth"], f"the page scrolls sideways: {seen}"
        serious = failing_axe_violations(page)
        assert not serious, describe(serious)


def test_every_title_and_first_hint_reaches_the_gradebook_whole_so_its_persian_is_found():
    """The grader keeps a question's title and first hint through clean_text (400 characters at most); the
    Persian gradebook looks them up in the catalogue, which needs them whole."""
    from course_utils.grade.results import clean_text

    for number in range(1, 8):
        for q in getattr(checks, f"ex{number:02d}").questions:
            for text in (q.title, *q.hints[:1]):
                assert clean_text(text) == text, (number, q.number, text[:60])


def test_the_graders_never_ran_messages_are_said_in_the_gradebooks_language():
    """The grader stores its own "never ran" message in English; a Persian gradebook says it in Persian."""
    from course_utils.grade.results import NEVER_RAN_KEPT, NEVER_RAN_STOPPED, grader_message

    stopped = NEVER_RAN_STOPPED.format(usage="q2.check(kept)", status="timeout")
    kept = NEVER_RAN_KEPT.format(usage="q1.check(x)")
    assert grader_message(stopped) == stopped and grader_message(kept) == kept  # English: as stored
    with speaking("fa"):
        said = grader_message(stopped), grader_message(kept)
        assert "`q2.check(kept)`" in said[0] and status_word("timeout") in said[0] and "never ran" not in said[0]
        assert "`q1.check(x)`" in said[1] and "never ran" not in said[1]
        assert grader_message("Correct: `kept` agrees.") == "Correct: `kept` agrees."  # a check's message: as it is


# --- the review queue and the teacher's marks (issue 33) ------------------------------------------------


def _own_words_results():
    from course_utils.grade.results import NotebookResult, QuestionResult, Submission

    def notebook(student, text):
        sub = Submission(Path("/s") / student / "07_beyond_one_window_exercise.ipynb",
                         f"{student}/07_beyond_one_window_exercise.ipynb", student, "07")
        return NotebookResult(sub, "07", "ok", "", (
            QuestionResult(3, "choose a move for a returning user", "correct", "Correct.", "", text),))

    return [notebook("ana", "The store keeps the plan & <language>."), notebook("ben", "Because it is small.")]


def test_the_review_queue_lists_own_words_under_the_model_answer_and_rubric():
    from course_utils.checks import ex07

    html = gradebook_html(_own_words_results(), gradebook_cases.SETTINGS, gradebook_cases.ISOLATION, [], lang="en")
    queue = html.split('id="review"', 1)[1]
    statements = ex07.q3.spec.statements
    import html as html_lib

    assert html_lib.escape(statements.model_answer[:60]) in queue and html_lib.escape(statements.rubric[:60]) in queue
    assert "The store keeps the plan &amp; &lt;language&gt;." in queue and "Because it is small." in queue
    assert queue.count('class="mark-row"') == 2 and 'data-question="q3"' in queue
    assert 'aria-label="mark for ana, q3"' in queue and "Download marks.csv" in queue


def test_a_teachers_marks_reach_the_csv_apart_from_the_automatic_status(tmp_path):
    from course_utils.grade.review import read_marks

    marks_file = tmp_path / "marks.csv"
    marks_file.write_text("student,exercise,question,mark,comment\nana,7,q3,1,clear\nben,07,q3,,\n", encoding="utf-8")
    marks = read_marks(marks_file)
    rows = {r["student"]: r for r in csv.DictReader(io.StringIO(gradebook_csv(_own_words_results(), "en", marks)))}
    assert (rows["ana"]["status"], rows["ana"]["review"], rows["ana"]["teacher_mark"]) == ("correct", "marked", "1")
    assert rows["ana"]["teacher_comment"] == "clear"
    assert (rows["ben"]["review"], rows["ben"]["teacher_mark"]) == ("for the teacher", "")
    html = gradebook_html(_own_words_results(), gradebook_cases.SETTINGS, gradebook_cases.ISOLATION, [], "en", marks)
    assert 'value="1"' in html and 'value="clear"' in html


@pytest.mark.parametrize("text, words", [
    ("name,mark\n", "first line must name the columns"),
    ("student,exercise,question,mark,comment\nana,07,q3,high,\n", "line 2: mark 'high' is not a number"),
    ("student,exercise,question,mark,comment\nana,07,q3,3,\n", "line 2: mark 3 is outside 0 to 1"),
])
def test_a_bad_marks_file_gets_an_error_naming_the_line_and_the_fix(tmp_path, text, words):
    from course_utils.grade.review import MarksError, read_marks

    path = tmp_path / "marks.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(MarksError, match=re.escape(words)):
        read_marks(path)
