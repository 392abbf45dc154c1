"""The gradebook's rendering: the checks' Markdown rendered in the HTML page, plain words in the CSV.

The page's layout (it fits a 1,400 px window) is measured in Chromium by
tests/test_browser_views.py; these tests need no browser and no grading run.
"""

import csv
import io

import pytest

from course_utils.grade.gradebook import gradebook_csv, message_html, message_plain

from test_browser_views import LONG_ANSWER, PERSIAN_ANSWER, fabricated_results, render_gradebook


@pytest.mark.parametrize("text, plain, rendered", [
    ("`B` should be a whole number", "B should be a whole number", "<code>B</code> should be a whole number"),
    ("takes a *list* of messages", "takes a list of messages", "takes a <em>list</em> of messages"),
    ("**first** keeps the oldest", "first keeps the oldest", "<strong>first</strong> keeps the oldest"),
    ("`a*b*c` and 2 * 3 * 4", "a*b*c and 2 * 3 * 4", "<code>a*b*c</code> and 2 * 3 * 4"),
    ("`<img src=x>` & <b>", "<img src=x> & <b>", "<code>&lt;img src=x&gt;</code> &amp; &lt;b&gt;"),
    ("a lone ` stays", "a lone ` stays", "a lone ` stays"),
    ("line one\nline two", "line one\nline two", "line one<br>line two"),
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
