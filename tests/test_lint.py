"""ruff passes over the package, the scripts and the tests (its rules: ``[tool.ruff]`` in pyproject.toml).

Not skipped when ruff is missing: a suite that lints nothing must not pass.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    if importlib.util.find_spec("ruff") is None:
        pytest.fail("ruff is not installed in this environment: pip install -r requirements-dev.txt")
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "course_utils", "scripts", "tests"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"ruff check found problems:\n{result.stdout}{result.stderr}"
