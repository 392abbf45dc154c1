"""The quick tier's one grader run: five submissions, graded once, in the strongest isolation here.

The full tier grades every case of the issues (tests/test_grade.py: memory,
disk and key-hunting submissions, twice; tests/test_grade_forgery.py: every
forgery; tests/test_grade_isolation.py: the sandbox run as ``nobody``). This
file keeps the grader's main path in the quick run, on exercise 02 (the
quickest): an honest solution, a wrong one, the untouched student copy,
records forged into the record file, and an answer that loops only when the
grader's own cells call it (sleeping, so it leaves the cores to the others).
"""

import csv
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from course_utils import grade
from grade_support import cleared

ROOT = Path(__file__).resolve().parents[1]
EXERCISE = "02_token_budgets_exercise.ipynb"
QUESTIONS = 4
#: seconds per notebook, as tests/test_grade.py: about 4 s on an idle machine, the margin is for a loaded one
TIMEOUT = 30

FORGERY = """import json, os
for q in (1, 2, 3, 4):
    line = json.dumps({"exercise": "02", "question": q, "title": "t", "status": "correct", "message": "ok"})
    with open(os.environ["COURSE_CHECKS_RECORD"], "a") as f:
        f.write(line + "\\n")"""

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the grader is tested on Linux")


def master() -> nbformat.NotebookNode:
    return cleared(ROOT / "exercises" / "solutions" / EXERCISE)


def student_copy() -> nbformat.NotebookNode:
    return cleared(ROOT / "exercises" / EXERCISE)


def index_of(nb, startswith: str) -> int:
    return next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.startswith(startswith))


def cases() -> dict[str, nbformat.NotebookNode]:
    wrong = master()
    wrong.cells[index_of(wrong, "def room")].source = (  # off by one
        "def room(limit, system, user, reserve):\n    return limit - system - user - reserve + 1")
    looping = master()  # never called by the student's cells: only q2's grading cell runs it
    looping.cells[index_of(looping, "def budget")].source = (
        "import time\n\ndef budget(limit, system, user, reserve):\n    while True:\n        time.sleep(0.1)")
    forged = student_copy()
    forged.cells.append(new_code_cell(FORGERY))
    return {"honest": master(), "wrong": wrong, "untouched": student_copy(), "forged": forged, "looping": looping}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder, out = tmp_path_factory.mktemp("quick-subs"), tmp_path_factory.mktemp("quick-out")
    for name, nb in cases().items():
        (folder / name).mkdir()
        nbformat.write(nb, folder / name / EXERCISE)
    isolation = grade.detect_isolation("auto")
    print(f"isolation: {isolation.description}")
    settings = grade.Settings(timeout=TIMEOUT, memory_mb=1024, jobs=grade.cli.default_jobs(isolation))
    results, changed = grade.grade_folder(folder, settings, isolation)
    grade.gradebook.write_gradebook(out, results, settings, isolation, changed)
    assert changed == []
    return {r.submission.student: r for r in results}, out


def statuses(result) -> list[str]:
    return [q.status for q in result.questions]


def test_honest_wrong_and_untouched_are_graded_as_what_they_are(graded):
    results, _out = graded
    assert statuses(results["honest"]) == ["correct"] * QUESTIONS and results["honest"].status == "ok"
    assert statuses(results["wrong"]) == ["wrong"] + ["correct"] * (QUESTIONS - 1)
    assert statuses(results["untouched"]) == ["not attempted"] * QUESTIONS


def test_forged_records_earn_nothing_and_are_reported(graded):
    results, _out = graded
    assert statuses(results["forged"]) == ["not attempted"] * QUESTIONS
    assert "ignored: not from a grading cell: 4 record(s) written to the record file" in results["forged"].detail


def test_an_answer_that_loops_inside_the_grading_cells_stops_at_their_limit(graded):
    results, _out = graded
    looping = results["looping"]
    assert looping.status == "timeout" and "while grading q2" in looping.detail, looping
    assert statuses(looping) == ["correct"] + ["not run"] * (QUESTIONS - 1)


def test_the_gradebook_has_a_row_per_question(graded):
    results, out = graded
    with open(out / "gradebook.csv", encoding="utf-8", newline="") as file:
        rows = {(r["student"], r["question"]): r["status"] for r in csv.DictReader(file)}
    assert rows == {(student, f"q{q.number}"): q.status for student, r in results.items() for q in r.questions}
    assert (out / "gradebook.html").is_file()
