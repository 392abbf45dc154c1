"""Exercise 08 through the grader: each master (English and Persian), handed in as a learner's notebook, gets every
automatic mark with its own words queued for the teacher; a hostile submission scores 0 automatic marks."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAME = "08_provider_side_context_exercise.ipynb"
COPY = ROOT / "exercises" / NAME
MASTERS = {"en": ROOT / "exercises" / "solutions" / NAME, "fa": ROOT / "exercises" / "fa" / "solutions" / NAME}

#: Answers built to get "Correct" without being right: a constant trigger at the provider's minimum (that never
#: refuses), every statement picked with word salad, the stated pattern's dollars typed in.
HOSTILE = {
    3: '''def compacting_model(budget, step):
    return ChatAnthropic(model="claude-sonnet-5-5", api_key="offline", betas=["compact-2026-01-12"],
                         context_management={"edits": [{"type": "compact_20260112",
                                                        "trigger": {"type": "input_tokens", "value": 50_000}}]})
''',
    6: 'choice = "b"\nreasons = {1, 2, 3, 4, 5, 6, 7, 8}\nown_words = "It is the server and the client of the call."\n',
    9: '''def state_costs(pattern, prices):
    return {"server_held": 0.1127, "resent": 0.1127}


reasons = {4, 5, 6}
own_words = "The server holds it, so it is cheaper."
''',
}


def _grade(tmp_path, submissions: dict[str, Path | dict]) -> dict:
    subs, out = tmp_path / "subs", tmp_path / "out"
    for student, what in submissions.items():
        (subs / student).mkdir(parents=True)
        if isinstance(what, Path):
            (subs / student / NAME).write_bytes(what.read_bytes())
        else:
            nb = json.loads(COPY.read_text(encoding="utf-8"))
            for index, source in what.items():
                nb["cells"][index]["source"] = source
            (subs / student / NAME).write_text(json.dumps(nb), encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "course_utils.grade", str(subs), "--out", str(out), "--jobs", "1"],
                         capture_output=True, text=True, timeout=1500, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    rows = list(csv.DictReader((out / "gradebook.csv").open(encoding="utf-8")))
    return {(r["student"], r["question"]): r for r in rows}


def test_masters_get_every_automatic_mark_and_a_hostile_submission_none(tmp_path):
    assert COPY.exists() and all(path.exists() for path in MASTERS.values())
    by = _grade(tmp_path, {"master-en": MASTERS["en"], "master-fa": MASTERS["fa"], "hostile": HOSTILE})
    for student in ("master-en", "master-fa"):
        statuses = [by[(student, f"q{n}")]["status"] for n in range(1, 4)]
        assert statuses == ["correct"] * 3, [(by[(student, f"q{n}")]["message"], by[(student, f"q{n}")]
                                              ["notebook_detail"]) for n in range(1, 4)]
        assert [by[(student, f"q{n}")]["review"] for n in range(1, 4)] == ["", "for the teacher", "for the teacher"]
    assert [by[("hostile", f"q{n}")]["status"] for n in range(1, 4)] == ["wrong"] * 3
    assert by[("hostile", "q2")]["answer_text"].startswith("It is the server")
