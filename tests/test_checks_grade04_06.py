"""Exercises 04, 05 and 06 through the grader: each master, submitted as a learner's notebook, gets every
automatic mark, and its own words (04 q3, 05 q4, 06 q3) are queued for the teacher."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MASTERS = [ROOT / "exercises" / "solutions" / name for name in (
    "04_langgraph_integration_exercise.ipynb", "05_threshold_selection_exercise.ipynb",
    "06_agent_context_exercise.ipynb")]
QUESTIONS = {"04": 5, "05": 5, "06": 3}
OWN_WORDS = {("04", "q3"), ("05", "q4"), ("06", "q3")}


def test_each_master_gets_every_automatic_mark(tmp_path):
    subs, out = tmp_path / "subs", tmp_path / "out"
    (subs / "master").mkdir(parents=True)
    for master in MASTERS:
        (subs / "master" / master.name).write_bytes(master.read_bytes())
    run = subprocess.run([sys.executable, "-m", "course_utils.grade", str(subs), "--out", str(out), "--jobs", "1"],
                         capture_output=True, text=True, timeout=1200, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    rows = list(csv.DictReader((out / "gradebook.csv").open(encoding="utf-8")))
    for exercise, count in QUESTIONS.items():
        mine = {r["question"]: r for r in rows if r["exercise"] == exercise}
        assert sorted(mine) == [f"q{n}" for n in range(1, count + 1)], (exercise, sorted(mine))
        for question, row in mine.items():
            assert row["status"] == "correct", (exercise, question, row["message"], row["notebook_detail"])
            expected = "for the teacher" if (exercise, question) in OWN_WORDS else ""
            assert row["review"] == expected, (exercise, question, row["review"])
