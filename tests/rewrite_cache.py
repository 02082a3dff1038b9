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

Under pytest-xdist the workers start together and each collects every test module: on a fresh
checkout all of them found no rewritten module yet and each rewrote all ~78k lines of tests
(~12 CPU-s a worker, 3 workers on 2 cores). The controller, which collects nothing, now
rewrites the test modules missing from the cache before it starts the workers, in one process
per CPU; the workers read what it wrote. The cache is pytest's own (a pyc per module, keyed by
its source's hash): a module rewritten here is the one a worker would have written.
"""

from __future__ import annotations

import fnmatch
import os
import sys
from pathlib import Path

import pytest

#: ``sys.dont_write_bytecode`` as the process started, put back once the tests are collected.
_STARTED_WITH = sys.dont_write_bytecode
sys.dont_write_bytecode = False


def pytest_collection_finish(session: pytest.Session) -> None:
    sys.dont_write_bytecode = _STARTED_WITH


@pytest.hookimpl(tryfirst=True)  # before xdist's DSession starts the workers (trylast)
def pytest_sessionstart(session: pytest.Session) -> None:
    config = session.config
    if config.pluginmanager.has_plugin("dsession") and config.getoption("assertmode") == "rewrite":
        _rewrite_before_the_workers(config)


def _rewrite_before_the_workers(config: pytest.Config) -> None:
    """Rewrite the test modules (and conftest files) under ``testpaths`` that pytest's cache
    lacks, in one process per CPU, largest first."""
    folders = [config.rootpath / folder for folder in config.getini("testpaths")]
    missing = uncached_test_modules(config, folders)
    if len(missing) < 2:
        return  # nothing to share out: a worker rewrites it
    from .conftest import usable_cpus  # (imported by pytest by now: the tests' conftest)

    rewrite_in_processes(config, missing, usable_cpus())


def uncached_test_modules(config: pytest.Config, folders: list[Path]) -> list[Path]:
    """The modules under ``folders`` that pytest rewrites (its ``python_files``, and conftest
    files) and whose rewritten code its cache lacks or holds for another source, largest
    first."""
    from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc, get_cache_dir

    patterns = [*config.getini("python_files"), "conftest.py"]
    missing = [
        path
        for folder in folders
        for path in sorted(folder.rglob("*.py"))
        if any(fnmatch.fnmatch(path.name, pattern) for pattern in patterns)
        and _read_pyc(path, get_cache_dir(path) / (path.name[:-3] + PYC_TAIL)) is None
    ]
    return sorted(missing, key=lambda path: path.stat().st_size, reverse=True)


def rewrite_in_processes(config: pytest.Config, paths: list[Path], processes: int) -> None:
    """Rewrite ``paths`` into pytest's cache, shared out among ``processes`` (forks of this
    one; this one takes a share too)."""
    processes = max(1, min(processes, len(paths)))
    if not hasattr(os, "fork"):
        processes = 1
    shares = [paths[start::processes] for start in range(processes)]
    children = []
    for share in shares[1:]:
        pid = os.fork()
        if pid == 0:  # the child: its share, then out without running any of pytest's exit
            try:
                _rewrite(config, share)
            finally:
                os._exit(0)
        children.append(pid)
    _rewrite(config, shares[0])
    for pid in children:
        os.waitpid(pid, 0)


def _rewrite(config: pytest.Config, paths: list[Path]) -> None:
    """What pytest's import hook does for a module not in its cache, short of running it."""
    from _pytest.assertion import rewrite

    state = config.stash[rewrite.assertstate_key]
    for path in paths:
        cache = rewrite.get_cache_dir(path)
        if not rewrite.try_makedirs(cache):
            continue
        try:
            source_hash, code = rewrite._rewrite_test(path, config)
        except Exception:  # a syntax error is the worker's to report, as it collects
            continue
        rewrite._write_pyc(state, code, source_hash, cache / (path.name[:-3] + rewrite.PYC_TAIL))
