"""tests/cpu_budget.py, run as a developer runs it: a pytest with two xdist workers over two
tests, one that spends CPU itself and one whose child process does. The installed plugins
other than xdist are not loaded (PYTEST_DISABLE_PLUGIN_AUTOLOAD): hypothesis's and anyio's
imports in each of its three processes were half of the test's CPU, and the plugin under
test needs xdist alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from .conftest import REPO_ROOT

#: CPU time spent in a loop, 0.3 s of it.
BURN = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end:\n    pass\n"

TESTS = (
    "import subprocess, sys\n\n"
    "def test_itself():\n" + textwrap.indent(BURN, "    ") + "\n"
    "def test_its_child():\n"
    f"    subprocess.run([sys.executable, '-c', {BURN!r}], check=True)\n"
)


def test_each_tests_own_and_childrens_cpu_reach_the_summary(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (tmp_path / "test_spend.py").write_text(TESTS, encoding="utf-8")
    out = tmp_path / "budget.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-c",
            str(tmp_path / "pytest.ini"),
            "--rootdir",
            str(tmp_path),
            # its own temp folder: a numbered one would make pytest clear the oldest of
            # /tmp/pytest-of-<user>, a whole suite's files (~13 s of system time)
            "--basetemp",
            str(tmp_path / "temp"),
            "-p",
            "tests.cpu_budget",
            "-p",
            "no:cacheprovider",
            "-p",
            "xdist.plugin",
            "-n",
            "2",
            f"--cpu-budget={out}",
            str(tmp_path / "test_spend.py"),
        ],
        cwd=REPO_ROOT,  # where tests.cpu_budget is imported from
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    figures = json.loads(out.read_text(encoding="utf-8"))
    itself, child = figures["test_spend.py::test_itself"], figures["test_spend.py::test_its_child"]
    assert itself["self"] >= 0.25 and itself["children"] < 0.1, itself
    assert child["children"] >= 0.25 and child["self"] < 0.2, child
    assert child["wall"] >= 0.25, child
    assert "CPU by test file (tests.cpu_budget)" in proc.stdout
    assert "test_spend.py" in proc.stdout and "all 2 tests: own CPU" in proc.stdout
