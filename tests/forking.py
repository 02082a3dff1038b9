"""A process that imports what its children need once, then forks a child for each request:
for tests whose children must be processes of their own (killed with SIGKILL mid-write, their
exit status read) but need not each pay an interpreter's start and kenning's imports
(~0.25-0.3 CPU-s a child)."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
from collections.abc import Mapping
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


#: The setup of :func:`run_python`'s forker: kenning's store, its SQLite backend and the
#: hashing embedder imported once. ``child(request, err)`` runs the request's script as
#: ``python -c script args…`` runs it in the request's folder and environment: its stdout
#: the forker's file, its stderr ``err``; an uncaught exception's traceback and exit 1,
#: ``SystemExit`` read as the interpreter reads it, its threads joined before it exits, and
#: SIGALRM (the default action: killed, -14) at the request's timeout.
_SCRIPT_RUNNER = """
    import json, os, signal, sys, threading, traceback
    import numpy, kenning, kenning.store, kenning.backends.sqlite, kenning.embedders.hashing

    def child(request, err):
        with open(request, encoding="utf-8") as f:
            asked = json.load(f)
        os.dup2(os.open(err, os.O_WRONLY), 2)
        os.chdir(asked["cwd"])
        os.environ.clear()
        os.environ.update(asked["env"])
        sys.argv = ["-c", *asked["args"]]
        signal.alarm(asked["timeout"])
        code = 0
        try:
            exec(compile(asked["script"], "<string>", "exec"), {"__name__": "__main__"})
        except SystemExit as exit:
            if exit.code is None or isinstance(exit.code, int):
                code = exit.code or 0
            else:
                print(exit.code, file=sys.stderr)
                code = 1
        except BaseException:
            traceback.print_exc()
            code = 1
        threading._shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    """

_RUNNER: list[Forker] = []
_RUNNER_LOCK = threading.Lock()


def run_python(
    script: str,
    *args: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: int = 120,
) -> subprocess.CompletedProcess[str]:
    """``python -c script args…`` as :func:`subprocess.run` with ``capture_output`` gives
    it (exit status, stdout, stderr; -9 when it was killed), run in a process of its own
    that this process's one forker forks: a process new to every store and every lock (its
    kills, crashes and forks are its own), which need not pay an interpreter's start and
    kenning's imports (~0.2-0.3 CPU-s). Not for what a new interpreter is the point of:
    its start, its imports and their order, its signal handlers."""
    with _RUNNER_LOCK:
        if not _RUNNER:
            _RUNNER.append(Forker(_SCRIPT_RUNNER, cwd=Path(tempfile.gettempdir())))
            atexit.register(_RUNNER[0].close)
        folder = Path(tempfile.mkdtemp(prefix="kenning-test-run-python-"))
        try:
            request, out, err = folder / "request.json", folder / "out", folder / "err"
            asked = {
                "script": script,
                "args": list(args),
                "cwd": str(cwd if cwd is not None else Path.cwd()),
                "env": dict(os.environ if env is None else env),
                "timeout": timeout,
            }
            request.write_text(json.dumps(asked), encoding="utf-8")
            out.touch()
            err.touch()
            _RUNNER[0].fork(str(request), str(err), fifo=out)  # (a file: read once it ends)
            code = _RUNNER[0].status()
            return subprocess.CompletedProcess(
                [sys.executable, "-c", script, *args],
                code,
                out.read_text(encoding="utf-8", errors="replace"),
                err.read_text(encoding="utf-8", errors="replace"),
            )
        finally:
            shutil.rmtree(folder, ignore_errors=True)
