"""Exercise 07 through the grader: a hostile submission scores 0 automatic marks, an honest one every mark,
with its own words queued for the teacher and a teacher's mark reaching gradebook.csv."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COPY = ROOT / "exercises" / "07_beyond_one_window_exercise.ipynb"

HOSTILE = {
    3: '''@tool
def save_fact(text: str, runtime: ToolRuntime[UserContext]) -> str:
    """Save a fact about the user to long-term memory."""
    runtime.store.put(("memories", "sara"), f"fact-{len(runtime.store.search(('memories', 'sara')))}", {"text": text})
    return "Saved."
''',
    6: '''@wrap_tool_call
def offload_big(request, handler):
    result = handler(request)
    tokens = count_text_tokens(result.text)
    if tokens <= 15000 or request.tool_call["name"] == "read_result":
        return result
    namespace = ("offloaded", thread_id_of(request.runtime))
    request.runtime.store.put(namespace, "res-1", {"content": result.text})
    return result.model_copy(update={"content": pointer_text("res-1", tokens, result.text)})
''',
    9: 'choice = "b"\nreasons = {1, 2, 3, 4, 5, 6, 7}\nown_words = "It is the save of facts and the small call."\n',
    12: 'pays_from = 3\nreasons = {5, 6, 7, 8}\nown_words = "It is the save of the sub-agent and the pages of the call."\n',
}


def _honest() -> dict[int, str]:
    master = json.loads((ROOT / "exercises" / "solutions" / COPY.name).read_text(encoding="utf-8"))
    return {i: re.sub(r"(?m)^\s*# (BEGIN|END) SOLUTION\n?", "", "".join(master["cells"][i]["source"]))
            for i in HOSTILE}


def _submission(folder: Path, student: str, answers: dict[int, str]) -> None:
    nb = json.loads(COPY.read_text(encoding="utf-8"))
    for index, source in answers.items():
        nb["cells"][index]["source"] = source
    (folder / student).mkdir(parents=True)
    (folder / student / COPY.name).write_text(json.dumps(nb), encoding="utf-8")


def test_hostile_scores_zero_and_honest_every_mark(tmp_path):
    subs, out = tmp_path / "subs", tmp_path / "out"
    _submission(subs, "hostile", HOSTILE)
    _submission(subs, "honest", _honest())
    run = subprocess.run([sys.executable, "-m", "course_utils.grade", str(subs), "--out", str(out), "--jobs", "1"],
                         capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    rows = list(csv.DictReader((out / "gradebook.csv").open(encoding="utf-8")))
    by = {(r["student"], r["question"]): r for r in rows}
    assert [by[("hostile", f"q{n}")]["status"] for n in range(1, 5)] == ["wrong"] * 4
    assert [by[("honest", f"q{n}")]["status"] for n in range(1, 5)] == ["correct"] * 4, [
        (by[("honest", f"q{n}")]["message"], by[("honest", f"q{n}")]["notebook_detail"]) for n in range(1, 5)]
    assert by[("honest", "q3")]["review"] == by[("honest", "q4")]["review"] == "for the teacher"
    assert by[("hostile", "q3")]["answer_text"].startswith("It is the save")
    page = (out / "gradebook.html").read_text(encoding="utf-8")
    assert 'id="review"' in page and "Model answer" in page and "Download marks.csv" in page
    marks = tmp_path / "marks.csv"
    marks.write_text("student,exercise,question,mark,comment\nhonest,07,q3,1,clear\nhostile,07,q3,0,word salad\n",
                     encoding="utf-8")
    again = subprocess.run([sys.executable, "-m", "course_utils.grade", str(subs), "--out", str(out), "--jobs", "1",
                            "--marks", str(marks)], capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert again.returncode == 0, again.stderr[-2000:]
    rows = {(r["student"], r["question"]): r for r in csv.DictReader((out / "gradebook.csv").open(encoding="utf-8"))}
    assert (rows[("honest", "q3")]["teacher_mark"], rows[("honest", "q3")]["review"]) == ("1", "marked")
    assert rows[("hostile", "q3")]["teacher_comment"] == "word salad"
    assert rows[("honest", "q4")]["review"] == "for the teacher"
