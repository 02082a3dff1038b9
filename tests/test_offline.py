"""Nothing kenning runs writes or sends anything beyond its store and its model cache.

onnxruntime from PyPI (1.29 on) records a device id and queues telemetry events for Microsoft
under ``$XDG_CACHE_HOME/Microsoft/DeveloperTools`` from its import on, unless
``ORT_DISABLE_TELEMETRY`` is set; importing kenning sets it when it is unset.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from kenning.config import cache_dir

from .conftest import make_repo


def _fresh_home(tmp_path: Path) -> dict[str, str]:
    """An environment whose home and cache are empty folders of ``tmp_path``, the model's
    cache kept where this run built it (no second build)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("ORT_DISABLE_TELEMETRY", "XDG_CACHE_HOME", "HOME")
    }
    (tmp_path / "home").mkdir()
    (tmp_path / "xdg").mkdir()
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_CACHE_HOME=str(tmp_path / "xdg"),
        KENNING_CACHE_DIR=str(cache_dir()),
    )
    return env


def _written(tmp_path: Path) -> list[str]:
    return sorted(
        str(p.relative_to(tmp_path))
        for folder in ("home", "xdg")
        for p in (tmp_path / folder).rglob("*")
    )


#: A remember, a recall (the CLI's commands, as click runs them) and the prompt's hook, in one
#: process: what each wrote or said, as JSON on the last line.
THREE_COMMANDS = """
import io, json, sys
from click.testing import CliRunner
from kenning.cli import main
from kenning.hooks import claude_code
said = []
for args in json.loads(sys.argv[1]):
    result = CliRunner().invoke(main, args)
    failed = result.exception is not None and not isinstance(result.exception, SystemExit)
    said.append([result.exit_code, result.stdout, result.stderr + (repr(result.exception) if failed else "")])
out, err = io.StringIO(), io.StringIO()
finished = claude_code.run("prompt-submit", io.BytesIO(sys.argv[2].encode()), out, err, budget=120)
said.append([0 if finished else "out of budget", out.getvalue(), err.getvalue()])
print(json.dumps(said))
"""


def test_a_remember_a_recall_and_a_hook_write_nothing_outside_the_store(tmp_path: Path) -> None:
    """A real process (the variable is read when onnxruntime is first imported), which runs
    the three (a process each cost ~0.4 CPU-s more a command: Python's start, the imports
    and the model's load): the model and the int8 scan both run, and the home and cache
    folders stay empty."""
    env = _fresh_home(tmp_path)
    root = make_repo(tmp_path / "proj")
    prompt = {"hook_event_name": "UserPromptSubmit", "cwd": str(root), "session_id": "s"}
    prompt["prompt"] = "which time zone are timestamps stored in"
    commands = [
        ["remember", "--type", "rule", "All timestamps are stored in UTC"],
        ["recall", "which time zone are timestamps stored in"],
    ]
    proc = subprocess.run(
        [sys.executable, "-c", THREE_COMMANDS, json.dumps(commands), json.dumps(prompt)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0 and not proc.stderr, proc.stderr
    said = json.loads(proc.stdout.splitlines()[-1])
    for code, _, stderr in said:
        assert code == 0 and not stderr, stderr
    outputs = [stdout for _, stdout, _ in said]
    assert "UTC" in outputs[1] and "UTC" in outputs[2]
    assert _written(tmp_path) == []


def test_a_choice_made_before_the_import_is_kept(tmp_path: Path) -> None:
    """``ORT_DISABLE_TELEMETRY`` set before kenning is imported is left as it was."""
    env = {**_fresh_home(tmp_path), "ORT_DISABLE_TELEMETRY": "0"}
    code = "import os, kenning; print(os.environ['ORT_DISABLE_TELEMETRY'])"
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.stdout == "0\n", proc.stderr
