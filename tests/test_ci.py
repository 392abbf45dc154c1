""".ci/run: it runs the README's test command, and a run that collects no tests fails.

Each test runs the real script on a copy of it next to a stub README whose
test command is a small pytest run, with system packages left alone
(``COURSE_CI_SKIP_SYSTEM_PACKAGES=1``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_ci(tmp_path: Path, test_command: str) -> subprocess.CompletedProcess:
    (tmp_path / ".ci").mkdir()
    shutil.copy(ROOT / ".ci" / "run", tmp_path / ".ci" / "run")
    (tmp_path / "README.md").write_text(
        f"# stub\n\n<!-- test-command -->\n```bash\n{test_command}\n```\n", encoding="utf-8"
    )
    env = {**os.environ, "COURSE_CI_SKIP_SYSTEM_PACKAGES": "1"}
    return subprocess.run(["bash", str(tmp_path / ".ci" / "run")], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)


def pytest_in(folder: str) -> str:
    # -p no:nbval and no addopts: the stub folder has none of the project's configuration.
    return f"{sys.executable} -m pytest -q -p no:cacheprovider -o addopts= --rootdir=. {folder}"


def test_a_run_that_collects_no_tests_fails(tmp_path):
    (tmp_path / "empty").mkdir()
    done = run_ci(tmp_path, pytest_in("empty"))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "pytest collected no tests (exit code 5)" in done.stderr


def test_the_commands_own_exit_code_is_kept(tmp_path):
    (tmp_path / "ok").mkdir()
    done = run_ci(tmp_path / "ok", "exit 0")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "with exit code 0" in done.stdout
    (tmp_path / "broken").mkdir()
    done = run_ci(tmp_path / "broken", "exit 1")
    assert done.returncode == 1 and "collected no tests" not in done.stderr
