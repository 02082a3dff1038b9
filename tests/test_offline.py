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


def test_a_remember_a_recall_and_a_hook_write_nothing_outside_the_store(tmp_path: Path) -> None:
    """A real process each (the variable is read when onnxruntime is first imported): the
    model and the int8 scan both run, and the home and cache folders stay empty."""
    env = _fresh_home(tmp_path)
    root = make_repo(tmp_path / "proj")
    prompt = {"hook_event_name": "UserPromptSubmit", "cwd": str(root), "session_id": "s"}
    prompt["prompt"] = "which time zone are timestamps stored in"
    outputs = []
    for args, stdin in (
        (["remember", "--type", "rule", "All timestamps are stored in UTC"], None),
        (["recall", "which time zone are timestamps stored in"], None),
        (["hook", "prompt-submit"], json.dumps(prompt)),
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "kenning", *args],
            cwd=root,
            env=env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0 and not proc.stderr, proc.stderr
        outputs.append(proc.stdout)
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
