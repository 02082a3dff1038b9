"""A pytest plugin loaded before every other (``-p tests.rewrite_cache`` in pyproject's
addopts): lets pytest's assertion rewriting keep what it rewrites where
PYTHONDONTWRITEBYTECODE is set (as on the shared machines and in CI).

pytest rewrites the asserts of the test modules, the conftest files and every module of an
installed plugin (hypothesis, anyio, xdist, platformdirs: each distribution with a ``pytest11``
entry point), and keeps the rewritten code in ``__pycache__`` only where bytecode may be written.
With PYTHONDONTWRITEBYTECODE every pytest process (the main one and each xdist worker) rewrote
them all again on every run: the plugins ~1.3 CPU-s a process on a fresh venv, before the
conftest could lift the flag, the test modules ~8 s a worker. This module is imported as the
command line's plugins are, before the installed ones, and lets bytecode be written until the
tests are collected (a changed module is rewritten: the cache records its source's mtime and
size); the tests, and the processes they start, run as configured.
"""

from __future__ import annotations

import sys

import pytest

#: ``sys.dont_write_bytecode`` as the process started, put back once the tests are collected.
_STARTED_WITH = sys.dont_write_bytecode
sys.dont_write_bytecode = False


def pytest_collection_finish(session: pytest.Session) -> None:
    sys.dont_write_bytecode = _STARTED_WITH
