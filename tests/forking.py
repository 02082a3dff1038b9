"""A process that imports what its children need once, then forks a child for each request:
for tests whose children must be processes of their own (killed with SIGKILL mid-write, their
exit status read) but need not each pay an interpreter's start and kenning's imports
(~0.25-0.3 CPU-s a child)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from types import TracebackType

#: The forker's loop, run after its setup: for each line ``<arg>\t…\t<fifo>`` on its stdin it
#: forks a child that runs ``child(*args)`` with its stdout on the FIFO (exit status 0, or 1
#: with the traceback on the forker's stderr when it raised), prints the child's pid, then,
#: once the child has ended, its exit status (-9: killed).
_FORK_LOOP = """
import os as _os, sys as _sys, traceback as _traceback
for _line in _sys.stdin:
    *_args, _fifo = _line.rstrip("\\n").split("\\t")
    _pid = _os.fork()
    if _pid == 0:
        _code = 0
        try:
            _os.dup2(_os.open(_fifo, _os.O_WRONLY), 1)
            child(*_args)
        except BaseException:
            _traceback.print_exc()
            _code = 1
        _os._exit(_code)
    print(_pid, flush=True)
    print(_os.waitstatus_to_exitcode(_os.waitpid(_pid, 0)[1]), flush=True)
"""


class Forker:
    """``python -c`` of ``setup`` (indented as in the test module) and the fork loop, in
    ``cwd`` with ``env``: ``setup`` imports what the children need and defines
    ``child(*args)``, each argument a string."""

    def __init__(
        self, setup: str, *, cwd: Path | None = None, env: dict[str, str] | None = None
    ) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(setup) + _FORK_LOOP],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def fork(self, *args: str, fifo: Path) -> int:
        """A child running ``child(*args)``, its stdout on ``fifo``: its pid."""
        stdin, stdout = self._process.stdin, self._process.stdout
        assert stdin is not None and stdout is not None
        stdin.write("\t".join([*args, str(fifo)]) + "\n")
        stdin.flush()
        line = stdout.readline()
        if not line.strip().isdigit():  # (its stdout ended: so did the forker)
            stderr = self._process.stderr.read() if self._process.stderr else ""
            raise AssertionError(f"the forker ended: {stderr}")
        return int(line)

    def status(self) -> int:
        """The exit status of the child forked last, once it has ended (-9: killed)."""
        assert self._process.stdout is not None
        return int(self._process.stdout.readline())

    def close(self) -> None:
        """End the forker (its loop ends with its stdin), killed if it does not."""
        assert self._process.stdin is not None
        self._process.stdin.close()
        try:
            self._process.wait(timeout=60)
        finally:
            if self._process.poll() is None:
                self._process.kill()
                self._process.wait()

    def __enter__(self) -> Forker:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
