"""Run the ``kenning`` command in-process with click's ``CliRunner``, as sqlite-utils and llm
test theirs: no Python start, no imports and no model load per command (the model stays
loaded for the session), so a CLI test costs what the command costs.

A test that needs the process boundary itself (a kill, a crash, a hook as Claude Code runs
it, the MCP stdio server, a cold start, the bytes the OS hands over) keeps a real process.

What a process would give a test is kept: the folder the command runs in (``cwd``, restored
afterwards), the environment (the suite's autouse ``_clean_env`` fixture has already removed
every ``KENNING_*`` variable; ``env`` adds some for this run only, as CliRunner restores
``os.environ`` afterwards), standard input, and exit code, stdout and stderr apart. An
exception that escapes the command is what an uncaught exception in a process would be:
exit 1 and a ``Traceback`` on stderr, so the tests that assert "no traceback" still catch it.
Log records reach stderr as in a process, where the root logger has no handler and
:data:`logging.lastResort` prints warnings (pytest's capture handlers are set aside meanwhile);
a warning a process gives once is given by each run. A priority a command lowers for itself
(``kenning build-cache`` runs at nice 10) ends with it, as it would with its process.
"""

from __future__ import annotations

import logging
import os
import sys
import traceback
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from kenning.cli import main


@dataclass(frozen=True)
class CliRun:
    """The outcome of one command, shaped like :class:`subprocess.CompletedProcess`."""

    args: tuple[str, ...]
    returncode: int
    stdout_bytes: bytes
    stderr_bytes: bytes

    @property
    def stdout(self) -> str:
        return self.stdout_bytes.decode("utf-8", "replace")

    @property
    def stderr(self) -> str:
        return self.stderr_bytes.decode("utf-8", "replace")


@contextmanager
def _logging_as_in_a_process() -> Iterator[None]:
    # what a process warns of once (a server store's missing vector index), said again by
    # this one, as by every new process
    postgres = sys.modules.get("kenning.backends.postgres")
    if postgres is not None:
        postgres._INDEX_MISSING_SAID.clear()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    for handler in handlers:
        root.removeHandler(handler)
    root.setLevel(logging.WARNING)
    try:
        yield
    finally:
        root.setLevel(level)
        for handler in handlers:
            root.addHandler(handler)


@contextmanager
def _priority_as_in_a_process() -> Iterator[None]:
    # Left lowered, the worker (and every test it runs after) would yield the CPU to the
    # others' for the rest of the session; taking it back needs root (as CI runs), so
    # elsewhere it stays where the command left it.
    niceness = os.getpriority(os.PRIO_PROCESS, 0)
    try:
        yield
    finally:
        if os.getpriority(os.PRIO_PROCESS, 0) != niceness:
            with suppress(PermissionError):
                os.setpriority(os.PRIO_PROCESS, 0, niceness)


def run_cli(
    cwd: Path | str,
    *args: str | bytes,
    stdin: bytes | str | None = None,
    env: Mapping[str, str | None] | None = None,
) -> CliRun:
    """``kenning *args`` run in ``cwd``. Bytes arguments are decoded as Python decodes the
    argv a process receives (``os.fsdecode``: undecodable bytes become lone surrogates)."""
    argv = tuple(os.fsdecode(a) if isinstance(a, bytes) else a for a in args)
    before = os.getcwd()
    os.chdir(cwd)
    try:
        with _logging_as_in_a_process(), _priority_as_in_a_process():
            result = CliRunner().invoke(main, list(argv), input=stdin, env=env)
    finally:
        os.chdir(before)
    stderr = result.stderr_bytes or b""
    code = result.exit_code
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        trace = "".join(traceback.format_exception(result.exception))
        stderr += trace.encode("utf-8", "backslashreplace")
        code = 1
    return CliRun(argv, code, result.stdout_bytes, stderr)


__all__ = ["CliRun", "run_cli"]
