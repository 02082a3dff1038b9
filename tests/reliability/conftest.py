"""Reliability suite: shared switches, helpers and the figures file.

Quick mode runs inside the normal ``pytest`` run. Full mode (the big sizes) is
``pytest tests/reliability --reliability-full`` or ``KENNING_RELIABILITY_FULL=1 pytest``.
Every test records its figures in ``bench/results/reliability.json`` under the mode it ran
in (``quick`` or ``full``); see docs/reliability.md.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from ..cli_runner import run_cli

REPO_ROOT = Path(__file__).resolve().parents[2]
RESULTS = REPO_ROOT / "bench" / "results" / "reliability.json"
_RESULTS_LOCK = threading.Lock()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--reliability-full",
        action="store_true",
        default=False,
        help="run the reliability tests at full size (also KENNING_RELIABILITY_FULL=1)",
    )


def is_full(config: pytest.Config) -> bool:
    try:
        flag = bool(config.getoption("--reliability-full"))
    except ValueError:  # the option is registered only when this folder is a test root
        flag = False
    return flag or os.environ.get("KENNING_RELIABILITY_FULL", "") not in ("", "0")


@pytest.fixture(scope="session")
def full(request: pytest.FixtureRequest) -> bool:
    return is_full(request.config)


def _merge_results(mode: str, section: str, data: dict[str, Any]) -> None:
    try:
        current = json.loads(RESULTS.read_text(encoding="utf-8"))
        if not isinstance(current, dict):
            current = {}
    except (OSError, ValueError):
        current = {}
    current.setdefault(mode, {})[section] = data
    tmp = RESULTS.with_name(RESULTS.name + f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(current, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(RESULTS)


def record(section: str, data: dict[str, Any], *, full: bool) -> None:
    """Merge ``data`` into bench/results/reliability.json under ``[mode][section]``.

    Never fails a test: a read-only checkout or a missing folder only loses the figures.
    """
    mode = "full" if full else "quick"
    with _RESULTS_LOCK:
        try:
            RESULTS.parent.mkdir(parents=True, exist_ok=True)
            # pytest-xdist workers are processes: a flock on the folder serialises them
            folder = os.open(RESULTS.parent, os.O_RDONLY)
            try:
                fcntl.flock(folder, fcntl.LOCK_EX)
                _merge_results(mode, section, data)
            finally:
                os.close(folder)  # releases the lock
        except OSError as exc:  # pragma: no cover - figures are a side effect
            print(f"reliability: could not write {RESULTS}: {exc}", file=sys.stderr)
    print(f"\nreliability[{mode}] {section}: {json.dumps(data, sort_keys=True)}")


@pytest.fixture(scope="session")
def recorder(full: bool) -> Callable[[str, dict[str, Any]], None]:
    return lambda section, data: record(section, data, full=full)


# -- content ---------------------------------------------------------------------------------


@cache
def vocabulary() -> tuple[str, ...]:
    """~20k lowercase English words from the model's own tokenizer vocabulary (offline)."""
    from kenning.embedders.minilm import locate_model

    vocab = json.loads(locate_model().tokenizer.read_text(encoding="utf-8"))["model"]["vocab"]
    return tuple(sorted(t for t in vocab if re.fullmatch(r"[a-z]{4,12}", t)))


def random_note(rng: random.Random, words: int = 14) -> str:
    """A sentence of random words: two of these are far below the 0.82 dedup cosine."""
    return " ".join(rng.sample(vocabulary(), words)).capitalize() + "."


# -- processes -------------------------------------------------------------------------------


def kenning_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "kenning", *args]


def run_kenning(
    cwd: Path,
    *args: str,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """``kenning *args`` in-process (click's runner, see tests/cli_runner.py): an escaped
    exception is exit 1 with a traceback on stderr, as in a process. ``kenning hook`` ends
    its process with ``os._exit`` (a hook must not wait for its worker), so it runs in one."""
    if args and args[0] == "hook":
        return run_kenning_process(cwd, *args, stdin=stdin, env=env)
    run = run_cli(cwd, *args, stdin=stdin if stdin is not None else b"", env=env)
    return subprocess.CompletedProcess(
        kenning_cmd(*run.args), run.returncode, run.stdout_bytes, run.stderr_bytes
    )


def run_kenning_process(
    cwd: Path,
    *args: str,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[bytes]:
    """``kenning *args`` in a real process, for the tests where the boundary is the point."""
    return subprocess.run(
        kenning_cmd(*args),
        cwd=cwd,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )


def assert_clean_outcome(proc: subprocess.CompletedProcess[bytes], what: str) -> None:
    """A correct result (exit 0) or a clear error: exit 1 with one ``error:`` line on
    stderr, or exit 2 (click's usage error) — never a traceback."""
    err = proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, f"{what}: traceback\n{err}"
    assert proc.returncode in (0, 1, 2), f"{what}: exit {proc.returncode}\n{err}"
    if proc.returncode == 1:
        errors = [line for line in err.splitlines() if line.startswith("error:")]
        assert len(errors) == 1, f"{what}: expected one error line, got\n{err}"
        assert len(errors[0]) > len("error: ") + 10, f"{what}: uninformative error {errors[0]!r}"
    if proc.returncode == 2:
        assert "Error:" in err or "error:" in err, f"{what}: usage error without a message\n{err}"


# -- store fingerprints ----------------------------------------------------------------------


def store_checksum(path: Path, ignore: tuple[str, ...] = ()) -> str:
    """sha256 over every memory row (vector included) and the meta table, read through a
    separate read-only connection: equal before and after ⇔ the store's content is equal.
    ``ignore`` leaves columns out (a near-duplicate refreshes ``seen_count`` and
    ``last_seen_at`` of the memory it repeats, and nothing else)."""
    if not path.exists():
        return "absent"
    digest = hashlib.sha256()
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
    try:
        cursor = conn.execute("SELECT * FROM memories ORDER BY id")
        keep = [i for i, d in enumerate(cursor.description) if d[0] not in ignore]
        for row in cursor:
            digest.update(repr(tuple(row[i] for i in keep)).encode("utf-8", "surrogatepass"))
        for row in conn.execute("SELECT key, value FROM meta ORDER BY key"):
            digest.update(repr(row).encode("utf-8", "surrogatepass"))
    finally:
        conn.close()
    return digest.hexdigest()


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "absent"


def rows_by_id(path: Path) -> dict[str, dict[str, Any]]:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
    conn.row_factory = sqlite3.Row
    try:
        return {r["id"]: dict(r) for r in conn.execute("SELECT * FROM memories")}
    finally:
        conn.close()


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
