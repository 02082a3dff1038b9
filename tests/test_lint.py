"""The code stays clean: ruff and mypy, as configured in pyproject.toml."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_ruff() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "src", "tests", "bench"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.slow  # ~13 s from a fresh clone (no .mypy_cache): started early, never the tail
def test_mypy() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert r.returncode == 0, r.stdout + r.stderr
