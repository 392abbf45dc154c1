"""The README's commands: the learner's open command, the full test command CI runs, the quick one.

The full command follows ``<!-- test-command -->`` (``.ci/run`` reads it from
README.md), the quick one ``<!-- quick-test-command -->``. The quick command
must be the full one with ``-m "not full"`` added and nothing else, so the
two cannot drift; the Persian README carries the same text. The learner's
command installs requirements.txt only, the test commands requirements-dev.txt.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
READMES = [ROOT / "README.md", ROOT / "README.fa.md"]
QUICK_SELECTION = ["-m", "not full"]


def command_after(text: str, marker: str) -> str:
    """The first fenced block after ``marker``, as .ci/run's awk reads it (one marker, exactly once)."""
    assert text.count(marker) == 1, f"{marker} appears {text.count(marker)} times"
    block = re.search(r"^```[^\n]*\n(.*?)^```", text.split(marker, 1)[1], re.S | re.M)
    assert block, f"no fenced block after {marker}"
    return block.group(1).strip()


@pytest.mark.parametrize("readme", READMES, ids=lambda p: p.name)
def test_the_quick_command_is_the_full_one_with_the_quick_selection(readme):
    text = readme.read_text(encoding="utf-8")
    full = shlex.split(command_after(text, "<!-- test-command -->"))
    quick = shlex.split(command_after(text, "<!-- quick-test-command -->"))
    at = next(i for i in range(len(quick)) if quick[i:i + 2] == QUICK_SELECTION)
    assert quick[:at] + quick[at + 2:] == full
    assert "-m" not in full[full.index("pytest"):], "the full command selects everything"
    assert quick.index("pytest") < at, "the selection is pytest's option"


def test_the_persian_readme_has_the_same_commands():
    english, persian = (readme.read_text(encoding="utf-8") for readme in READMES)
    for marker in ("<!-- test-command -->", "<!-- quick-test-command -->"):
        assert command_after(persian, marker) == command_after(english, marker), marker


@pytest.mark.parametrize("readme", READMES, ids=lambda p: p.name)
def test_tests_install_the_dev_set_and_learners_the_course_only(readme):
    text = readme.read_text(encoding="utf-8")
    for marker in ("<!-- test-command -->", "<!-- quick-test-command -->"):
        assert "pip install -r requirements-dev.txt &&" in command_after(text, marker), marker
    opens = re.findall(r"^python3 -m venv \.venv && (.*jupyter lab .*)$", text, re.M)
    assert opens, "no open command"
    assert all(line.startswith(".venv/bin/pip install -r requirements.txt && ") for line in opens), opens


def test_ci_reads_the_full_command():
    """.ci/run's own awk program, run on README.md, picks the full command, not the quick one."""
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    program = re.search(r"test_command=\$\(awk '([^']+)' README\.md\)", script).group(1)
    done = subprocess.run(["awk", program, str(ROOT / "README.md")], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == command_after((ROOT / "README.md").read_text(encoding="utf-8"),
                                                "<!-- test-command -->")


@pytest.mark.parametrize("readme", READMES, ids=lambda p: p.name)
def test_both_commands_say_how_long_they_took_and_when(readme):
    """Around the two test commands the README gives two measured times, each with its date, no placeholder."""
    text = readme.read_text(encoding="utf-8")
    heading = text.split("<!-- test-command -->", 1)[0].rsplit("\n#", 1)[0]
    around = text[len(heading):text.index("<!-- quick-test-command -->")]
    assert not re.search(r"[A-Z]+_MINUTES", around), f"{readme.name}: a placeholder instead of a time"
    times = re.findall(r"\b\d+ (?:minutes|دقیقه)", around)
    assert len(times) >= 2, f"{readme.name}: the full and the quick run should each say how long they take"
    assert len(re.findall(r"\b20\d\d-\d\d-\d\d\b", around)) >= 2, f"{readme.name}: each time needs its date"
