"""The suite's own set-up: tests/rewrite_cache.py is loaded before the installed pytest plugins
(so that their assertion-rewritten modules are cached) and the tests run with bytecode writing
as the interpreter was started."""

from __future__ import annotations

import shlex
import sys
import tomllib

import pytest

from .conftest import REPO_ROOT

FIRST = ["-p", "tests.rewrite_cache"]


def test_loaded_before_the_installed_plugins(pytestconfig: pytest.Config) -> None:
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    addopts = shlex.split(pyproject["tool"]["pytest"]["ini_options"]["addopts"])
    assert addopts[:2] == FIRST, "pyproject's addopts must start with -p tests.rewrite_cache"
    if pytestconfig.getini("addopts")[:2] != FIRST:
        return  # run with other addopts (-o addopts=…): the conftest loads it, later
    manager = pytestconfig.pluginmanager
    order = [plugin for _, plugin in manager.list_name_plugin()]
    early = manager.get_plugin("tests.rewrite_cache")
    assert early is not None, "tests/rewrite_cache.py is not loaded"
    installed = [plugin for plugin, _ in manager.list_plugin_distinfo()]
    assert installed, "no installed pytest plugin (xdist, hypothesis) is loaded"
    before = [plugin.__name__ for plugin in installed if order.index(plugin) < order.index(early)]
    assert not before, (
        f"{before} were imported before tests/rewrite_cache.py: their rewritten modules are not "
        "cached where PYTHONDONTWRITEBYTECODE is set"
    )


def test_tests_run_with_bytecode_writing_as_started() -> None:
    assert sys.dont_write_bytecode == bool(sys.flags.dont_write_bytecode)
