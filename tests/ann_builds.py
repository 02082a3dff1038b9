"""The ANN graph's background build run in a thread of this process, not in a builder
process of its own (an interpreter's start and kenning's and usearch's imports: ~0.2 CPU-s a
build): the same code (``annindex.main``), lock and files, for a test, or a test's child
process, that waits for a rebuild and does not check the builder's process. No pytest here:
a child process imports it too."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import traceback
import types
from typing import Any

from kenning.backends import annindex

#: Every build started in this process: one that must not end before its builds have (a
#: child process) joins them.
STARTED: list[threading.Thread] = []


class BuilderThread:
    """The builder a search starts (``python -m kenning.backends.annindex <memory.db>``), run
    as :func:`annindex.main` in a thread of this process: what Popen gives the store (poll,
    wait, returncode), its output and an exception's traceback written to the log the store
    opened for it, as the interpreter would, and its exit status as the interpreter's."""

    def __init__(self, args: list[str], *, stdout: Any, **_: Any) -> None:
        assert list(args[:3]) == [sys.executable, "-m", "kenning.backends.annindex"], args
        self.args = args
        self.returncode: int | None = None
        self._log = os.dup(stdout.fileno())  # the store closes its own once this returns
        self._thread = threading.Thread(target=self._run, args=(list(args[3:]),), daemon=True)
        STARTED.append(self._thread)
        self._thread.start()

    def _run(self, argv: list[str]) -> None:
        code = 1
        try:
            code = annindex.main(argv)
        except BaseException:  # as the interpreter's exit reads an uncaught exception
            os.write(self._log, traceback.format_exc().encode())
        finally:
            os.close(self._log)
            self.returncode = code

    def poll(self) -> int | None:
        return None if self._thread.is_alive() else self.returncode

    def wait(self, timeout: float | None = None) -> int | None:
        self._thread.join(timeout)
        return self.poll()


def builds_in_threads() -> types.SimpleNamespace:
    """What annindex's name ``subprocess`` is to stand for, for its builds to run as
    :class:`BuilderThread` (annindex's name, not the module: git still runs as it did)."""
    return types.SimpleNamespace(Popen=BuilderThread, DEVNULL=subprocess.DEVNULL)
