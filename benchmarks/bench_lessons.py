"""How long each lesson takes to run top to bottom, against the 20 s target.

Each lesson is executed in a fresh kernel, offline, from a temporary copy
(the committed notebook is not touched), one after another so they do not
compete for the machine's cores. Exit code 1 if a lesson misses the target.

    python benchmarks/bench_lessons.py
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from execute_notebooks import execute  # noqa: E402  (the same runner that stores outputs)

TARGET_SECONDS = 20.0


def main() -> int:
    failed = False
    lessons = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
    with tempfile.TemporaryDirectory() as tmp:
        for lesson in lessons:
            # Same layout as the repository: lesson 00 reads ../requirements.txt.
            copy = Path(tmp) / "notebooks" / lesson.name
            copy.parent.mkdir(exist_ok=True)
            shutil.copy(lesson, copy)
            shutil.copy(ROOT / "requirements.txt", Path(tmp) / "requirements.txt")
            seconds = execute(copy)
            ok = seconds < TARGET_SECONDS
            failed |= not ok
            print(f"{lesson.name:40s} {seconds:6.1f} s  (target < {TARGET_SECONDS:.0f} s)  {'PASS' if ok else 'FAIL'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
