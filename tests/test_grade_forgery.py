"""Marks a student cannot forge: every attack of issue 14.

The attacks target the record protocol (answer cells, grading cells, the
secret), which is the same in both isolation modes: the matrix runs once, in
the strongest mode this machine has, and one test proves the process mode
runs the same protocol (its grading cells' records count, written and printed
forgeries are ignored).

Each attack starts from the untouched student copy of exercise 01 (every
answer still ``...``), which earns no "correct". None of the attacks may
change that; the solved master must still earn full marks. The attacks:
records appended to the grader's record file (at the start, the middle and
the end: the five-line forgery of the issue), every check class
monkeypatched to report correct, a check cell whose arguments are edited to
the right answer, check cells deleted (with a forged record), lines printed to
look like the grader's records, and a fake ``course_utils`` package written
into the notebook's working folder.
"""

import csv
import json
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from course_utils import grade
from course_utils.checks import ex01
from course_utils.checks.record import GRADING_MARK
from course_utils.grade.grading_cells import answer_source, with_answer_cells
from course_utils.grade.masters import master_calls
from grade_support import cleared

ROOT = Path(__file__).resolve().parents[1]
EXERCISE = "01_measuring_growth_exercise.ipynb"
QUESTIONS = len(ex01.questions)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the grader is tested on Linux")

FORGERY = """import json, os
for q in (1, 2, 3, 4):
    line = json.dumps({"exercise": "01", "question": q, "title": "t", "status": "correct", "message": "ok"})
    with open(os.environ["COURSE_CHECKS_RECORD"], "a") as f:
        f.write(line + "\\n")"""

MONKEYPATCH = """from course_utils import checks
from course_utils.checks import machinery, record

def _always_correct(self, *args, **kwargs):
    result = machinery.CheckResult(self.label, "correct", "patched")
    record.write_record(self, result)
    return result

machinery.Question.check = _always_correct
machinery.Question.wrong = machinery.Question.correct
machinery.Question.not_attempted = lambda self, message=None: self.correct("patched")
machinery.Question.error = machinery.Question.correct
machinery.CheckResult.correct = property(lambda self: True)
for name in [n for n in dir(checks) if n.startswith("ex") and n[2:].isdigit()]:
    for q in getattr(checks, name).questions:
        q._checker = lambda q, *a, **k: q.correct("patched")"""

IMITATION = """import json
for q in (1, 2, 3, 4):
    record = {"exercise": "01", "question": q, "title": "t", "status": "correct", "message": "ok"}
    print("%s 0123456789abcdef0123456789abcdef %s" % ("__MARK__", json.dumps(record)))
    print("%s  %s" % ("__MARK__", json.dumps(record)))""".replace("__MARK__", GRADING_MARK)

SHADOW = '''import os, textwrap
os.makedirs("course_utils/checks", exist_ok=True)
open("course_utils/__init__.py", "w").write("")
open("course_utils/checks/__init__.py", "w").write("")
open("course_utils/checks/record.py", "w").write(textwrap.dedent("""
    def grading_line(secret, question, result):
        return "course-grade-record %s {\\\\"exercise\\\\": \\\\"01\\\\", \\\\"question\\\\": %d, \\\\"title\\\\": \\\\"t\\\\", \\\\"status\\\\": \\\\"correct\\\\", \\\\"message\\\\": \\\\"shadow\\\\"}" % (secret, question.number)
"""))
import sys
for name in [m for m in sys.modules if m.startswith("course_utils.checks")]:
    del sys.modules[name]'''


def student_copy() -> nbformat.NotebookNode:
    return nbformat.read(ROOT / "exercises" / EXERCISE, as_version=4)


def master() -> nbformat.NotebookNode:
    return cleared(ROOT / "exercises" / "solutions" / EXERCISE)


def index_of(nb, startswith: str) -> int:
    return next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.startswith(startswith))


def inserted(nb, index: int, source: str) -> nbformat.NotebookNode:
    nb.cells.insert(index, new_code_cell(source))
    return nb


def attacks() -> dict[str, nbformat.NotebookNode]:
    edited = student_copy()
    edited.cells[index_of(edited, "q1.check")].source = "q1.check(4900)"  # the right number, not the function
    edited.cells[index_of(edited, "q4.check")].source = 'q4.check("d", "c", "because it grows like a sum")'
    deleted = student_copy()
    deleted.cells = [c for c in deleted.cells if not (c.cell_type == "code" and ".check(" in c.source)]
    deleted.cells.append(new_code_cell(FORGERY))
    return {
        "forged-start": inserted(student_copy(), 2, FORGERY),
        "forged-middle": inserted(student_copy(), index_of(student_copy(), "q2.check") + 1, FORGERY),
        "forged-end": inserted(student_copy(), len(student_copy().cells), FORGERY),
        "monkeypatched": inserted(student_copy(), 2, MONKEYPATCH),
        "edited-arguments": edited,
        "deleted-checks": deleted,
        "printed-records": inserted(student_copy(), len(student_copy().cells), IMITATION),
        "shadow-package": inserted(student_copy(), 2, SHADOW),
    }


def grade_cases(cases: dict, mode: str, folder: Path, out: Path):
    """Grade ``cases`` ({student: notebook}) under ``mode``; write the gradebook to ``out``."""
    for name, nb in cases.items():
        (folder / name).mkdir()
        nbformat.write(nb, folder / name / EXERCISE)
    isolation = grade.detect_isolation(mode)
    # 90 s: an exercise-01 notebook takes about 5 s on an idle machine, but over 40 s was seen on a loaded one
    # (two workers, the other running Chromium); the looping answer uses all that is left for grading
    settings = grade.Settings(timeout=90, memory_mb=1024, jobs=grade.cli.default_jobs(isolation))
    results, changed = grade.grade_folder(folder, settings, isolation)
    grade.gradebook.write_gradebook(out, results, settings, isolation, changed)
    return isolation, {r.submission.student: r for r in results}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The whole matrix, graded once in the strongest isolation this machine has."""
    folder = tmp_path_factory.mktemp("forgery")
    looping = master()
    looping.cells[index_of(looping, "def cumulative_sent")].source = (
        "def cumulative_sent(messages, token_counter):\n    while True:\n        pass")
    stale = master()  # the right value set early, then the answer cell stops before setting it again
    answer = index_of(stale, "def total_sent")
    right = stale.cells[answer].source
    stale.cells[answer].source = "total_sent = undefined_name + 1"
    stale.cells.insert(answer, new_code_cell(right))
    cases = {"untouched": student_copy(), "solved": master(), "looping-answer": looping, "stale-answer": stale,
             **attacks()}
    out = tmp_path_factory.mktemp("forgery-out")
    isolation, results = grade_cases(cases, "auto", folder, out)
    return ("namespaces" if isolation.namespaces else "process"), results, out


def correct(result) -> list[int]:
    return [q.number for q in result.questions if q.status == "correct"]


@pytest.mark.full
def test_an_honest_solution_gets_full_marks_and_the_untouched_copy_none(graded):
    _mode, results, _out = graded
    assert [q.status for q in results["solved"].questions] == ["correct"] * QUESTIONS, results["solved"]
    assert results["solved"].detail == ""
    assert correct(results["untouched"]) == [] and results["untouched"].status == "ok"
    assert [q.status for q in results["untouched"].questions] == ["not attempted"] * QUESTIONS


@pytest.mark.parametrize("attack", sorted(attacks()))
@pytest.mark.full
def test_no_attack_earns_a_correct(graded, attack):
    _mode, results, _out = graded
    result = results[attack]
    assert correct(result) == [], (attack, result)
    assert all(q.status in ("not attempted", "not run", "wrong", "error") for q in result.questions)


@pytest.mark.full
def test_forged_records_are_reported_as_ignored(graded):
    _mode, results, out = graded
    for attack in ("forged-start", "forged-middle", "forged-end", "deleted-checks"):
        assert "ignored: not from a grading cell: 4 record(s) written to the record file (q1 correct, q2 correct, " \
               "q3 correct, q4 correct)" in results[attack].detail, attack
    assert "ignored: not from a grading cell: 8 printed line(s) imitating a grader record" in \
        results["printed-records"].detail
    with open(out / "gradebook.csv", encoding="utf-8", newline="") as file:
        rows = [r for r in csv.DictReader(file) if r["student"] == "forged-end"]
    assert rows and all("ignored: not from a grading cell" in r["notebook_detail"] for r in rows)


@pytest.mark.full
def test_an_answer_that_loops_inside_the_grading_cells_stops_at_their_limit(graded):
    _mode, results, _out = graded
    result = results["looping-answer"]
    assert result.status == "timeout" and "time limit" in result.detail and "while grading q2" in result.detail
    assert [q.status for q in result.questions] == ["correct"] + ["not run"] * (QUESTIONS - 1)


@pytest.mark.full
def test_a_value_its_answer_cell_failed_to_set_is_not_graded(graded):
    """As in a learner's notebook (checks/cells.py): the stale total_sent left by an earlier cell is not graded."""
    _mode, results, _out = graded
    q1 = results["stale-answer"].questions[0]
    assert q1.status == "error" and "did not run to the end" in q1.message and "NameError" in q1.message, q1
    assert [q.status for q in results["stale-answer"].questions[1:]] == ["correct"] * (QUESTIONS - 1)


@pytest.mark.full
def test_deleted_and_edited_checks_are_graded_from_the_teachers_calls(graded):
    _mode, results, _out = graded
    assert [q.status for q in results["deleted-checks"].questions] == ["not attempted"] * QUESTIONS
    edited = results["edited-arguments"]
    assert [q.status for q in edited.questions] == ["not attempted"] * QUESTIONS
    assert "`total_sent` is still `...`" in edited.questions[0].message


@pytest.mark.full
def test_the_other_isolation_mode_runs_the_same_record_protocol(graded, tmp_path):
    """The matrix ran in one mode; in the other, an honest solution's grading-cell records count and a
    written and a printed forgery are ignored, exactly as there."""
    mode, matrix, _out = graded
    other = "process" if mode == "namespaces" else "namespaces"  # namespaces: fails where bubblewrap does not work
    (tmp_path / "subs").mkdir()
    cases = {"solved": master(), "forged-end": attacks()["forged-end"], "printed-records": attacks()["printed-records"]}
    isolation, results = grade_cases(cases, other, tmp_path / "subs", tmp_path / "out")
    assert isolation.namespaces == (other == "namespaces")
    for name in cases:
        assert [(q.status, q.message) for q in results[name].questions] == \
            [(q.status, q.message) for q in matrix[name].questions], name
        assert results[name].status == matrix[name].status and results[name].detail == matrix[name].detail, name
    assert correct(results["solved"]) == list(range(1, QUESTIONS + 1))
    assert "4 record(s) written to the record file" in results["forged-end"].detail
    assert "8 printed line(s) imitating a grader record" in results["printed-records"].detail


# --- the pieces, without a kernel ----------------------------------------------------------------------


def test_the_masters_check_cells_are_the_questions_documented_calls():
    """Where a master is missing, the grader uses each question's usage: they must agree."""
    from course_utils import checks

    exercises = sorted(p.name[:2] for p in (ROOT / "exercises" / "solutions").glob("*_exercise.ipynb"))
    assert "01" in exercises
    for exercise in exercises:
        found = getattr(checks, f"ex{exercise}")
        assert master_calls(exercise) == {q.number: q.usage for q in found.questions}
        assert master_calls(exercise, folder=ROOT / "no-such-folder") == {q.number: q.usage for q in found.questions}


def test_answer_cells_replace_check_cells_in_place_and_fill_in_deleted_ones():
    calls = {1: "q1.check(total_sent)", 2: "q2.check(cumulative_sent)", 3: "q3.check(x, y=z)"}
    cells = [new_code_cell("total_sent = 5"), new_code_cell("q1.check(999)"),
             new_code_cell("cumulative_sent = f\nq2.check(cumulative_sent)")]
    out = with_answer_cells(cells, calls, new_code_cell)
    assert [origin for _cell, origin in out] == [0, 1, 2, None, None]
    sources = [cell.source for cell, _origin in out]
    assert sources[1] == answer_source(1, calls[1]) and "(total_sent)" in sources[1] and "999" not in sources[1]
    assert sources[2] == cells[2].source and sources[3] == answer_source(2, calls[2])
    assert "(lambda *a, **k: (a, k))(x, y=z)" in sources[4]
    namespace = {"x": 1, "z": 2}
    exec(sources[4], namespace)
    assert namespace["__course_answers__"][3] == ((1,), {"y": 2}, None)
    with pytest.raises(ValueError):
        answer_source(1, "print(total_sent)")


def test_a_grading_line_counts_only_with_this_runs_secret(monkeypatch):
    from course_utils.checks import ex01

    monkeypatch.setattr("course_utils.checks.settings.strict", False)
    from course_utils.checks.record import grading_line, marked_lines, parse_grading_line

    result = ex01.q1.check(...)
    line = grading_line("s3cret", ex01.q1, result)
    assert parse_grading_line(line, "s3cret") == {"exercise": "01", "question": 1, "title": ex01.q1.title,
                                                  "status": "not attempted", "message": result.message}
    assert parse_grading_line(line, "other") is None and parse_grading_line(line, "") is None
    assert parse_grading_line(line.replace('"question": 1', '"question": "1"'), "s3cret") is None
    assert marked_lines(f"noise\n{line}\n  {line}\n") == [line, f"  {line}"]
    assert json.loads(line.split(" ", 2)[2])["status"] == "not attempted"


@pytest.mark.full
def test_a_kernel_that_ignores_the_interrupt_gets_nothing_graded(tmp_path):
    """At the time limit the kernel is interrupted; one that ignores SIGINT cannot run the grading cells."""
    nb = master()
    nb.cells.insert(index_of(nb, "q1.check") + 1, new_code_cell(
        "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass"))
    (tmp_path / "subs").mkdir()
    nbformat.write(nb, tmp_path / "subs" / EXERCISE)
    isolation = grade.detect_isolation("auto")
    [result], _changed = grade.grade_folder(tmp_path / "subs", grade.Settings(timeout=20), isolation)
    assert result.status == "timeout" and "did not stop when interrupted" in result.detail, result
    assert [q.status for q in result.questions] == ["not run"] * QUESTIONS
