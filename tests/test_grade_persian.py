"""The grader grades the Persian edition's exercises (issue 23): a Persian master, handed in, is fully correct.

One notebook only (grading starts a kernel: the slow part): the Persian master
of exercise 02 with its outputs cleared, as a Persian learner would hand in
a filled-in ``exercises/fa/02_token_budgets_exercise.ipynb``. The gradebook
names exercise 02 and its title, every question is correct, and the messages
are the Persian ones (the Persian notebook's language cell sets the language,
which the grader's fresh check modules keep). A wrong Persian answer's Persian
feedback is in tests/test_persian_exercises.py, without a kernel.

A teacher of the Persian edition grades with ``--lang fa``: one more kernel,
through the command line, writes a Persian gradebook page (its CSV keeps the
English keys). The rest of the Persian gradebook is in tests/test_gradebook.py.
"""

import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from course_utils import grade
from course_utils.grade.masters import master_calls

from test_grade import cleared

ROOT = Path(__file__).resolve().parents[1]
EXERCISE = "02_token_budgets_exercise.ipynb"
PERSIAN_MASTER = ROOT / "exercises" / "fa" / "solutions" / EXERCISE

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the grader's sandbox is tested on Linux")


def handed_in() -> nbformat.NotebookNode:
    """The Persian master with its outputs cleared: what a student would hand in."""
    return cleared(PERSIAN_MASTER)


def test_the_teachers_calls_are_the_persian_masters_calls():
    """The grader's calls come from the English master; the Persian master calls the checks the same way."""
    persian = [c.source.strip() for c in handed_in().cells if c.cell_type == "code" and ".check(" in c.source]
    assert sorted(master_calls("02").values()) == sorted(persian)


@pytest.mark.full
def test_a_persian_master_grades_fully_correct(tmp_path):
    folder = tmp_path / "subs"
    (folder / "dara").mkdir(parents=True)
    nbformat.write(handed_in(), folder / "dara" / EXERCISE)
    settings, isolation = grade.Settings(timeout=90, memory_mb=1024), grade.detect_isolation("process")
    results, changed = grade.grade_folder(folder, settings, isolation)
    [result] = results
    assert result.submission.student == "dara" and result.exercise == "02" and changed == []
    assert result.status == "ok", result.detail
    assert [q.status for q in result.questions] == ["correct"] * 4
    assert all("\u2067" in q.message and "\u06cc" in q.message for q in result.questions), [
        q.message for q in result.questions]  # Persian, inside its right-to-left isolate

    rows = list(csv.DictReader(io.StringIO(grade.gradebook.gradebook_csv(results))))
    assert [(r["student"], r["exercise"], r["question"], r["status"]) for r in rows] == [
        ("dara", "02", f"q{n}", "correct") for n in range(1, 5)]
    html = grade.gradebook.gradebook_html(results, settings, isolation, changed)
    assert "Token budgets" in html and "dara" in html
    # The same results in a Persian gradebook: its title, statuses and question titles are the Persian edition's.
    persian = grade.gradebook.gradebook_html(results, settings, isolation, changed, lang="fa")
    assert '<html lang="fa" dir="rtl">' in persian and "02 \u00b7 بودجهٔ token" in persian
    assert persian.count("\u2713 درست</td>") == 4 and ">محاسبهٔ B</td>" in persian


@pytest.mark.full
def test_grading_with_lang_fa_from_the_command_line_writes_a_persian_page(tmp_path):
    folder, out = tmp_path / "subs", tmp_path / "out"
    (folder / "dara").mkdir(parents=True)
    nbformat.write(handed_in(), folder / "dara" / EXERCISE)
    (folder / "sina.ipynb").write_text("not a notebook", encoding="utf-8")  # no kernel: an invalid notebook
    env = {name: value for name, value in os.environ.items() if name != "COURSE_LANG"}  # --lang alone decides
    command = [sys.executable, "-m", "course_utils.grade", str(folder), "--out", str(out), "--lang", "fa",
               "--timeout", "90", "--memory", "1024", "--isolation", "process"]
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "each in a separate process" in proc.stderr  # the grader's own lines stay English
    page = (out / "gradebook.html").read_text(encoding="utf-8")
    assert page.startswith('<!DOCTYPE html>\n<html lang="fa" dir="rtl">') and "<h1>دفتر نمره</h1>" in page
    assert "notebook نامعتبر" in page and "به هیچ پرسشی نمره داده نشد" in page and "02 \u00b7 بودجهٔ token" in page
    with open(out / "gradebook.csv", encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    assert [(r["student"], r["question"], r["status"], r["notebook_status"]) for r in rows] == [
        ("dara", f"q{n}", "correct", "ok") for n in range(1, 5)] + [("sina", "", "not run", "invalid notebook")]
