"""The suite's own set-up: tests/rewrite_cache.py is loaded before the installed pytest plugins
(so that their assertion-rewritten modules are cached) and the tests run with bytecode writing
as the interpreter was started."""

from __future__ import annotations

import shlex
import sys
import tomllib
from pathlib import Path

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


def test_the_controller_rewrites_what_the_cache_lacks_as_a_worker_would(
    pytestconfig: pytest.Config, tmp_path: Path
) -> None:
    from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc, _rewrite_test

    from .rewrite_cache import rewrite_in_processes, uncached_test_modules

    (tmp_path / "sub").mkdir()
    sources = {
        "test_one.py": "def test_one():\n    x = 1\n    assert x == 2\n",
        "sub/test_two.py": "def test_two():\n    assert [1] == [1, 2], 'lists'\n",
        "conftest.py": "def helper():\n    assert 1 + 1 == 3\n",
        "sub/helper.py": "VALUE = 1\n",  # not a test module: pytest does not rewrite it
    }
    for name, text in sources.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    rewritten = ["conftest.py", "test_one.py", "sub/test_two.py"]

    missing = uncached_test_modules(pytestconfig, [tmp_path])
    assert sorted(missing) == sorted(tmp_path / name for name in rewritten)
    rewrite_in_processes(pytestconfig, missing, 2)  # one share in a forked process

    assert uncached_test_modules(pytestconfig, [tmp_path]) == []
    for name in rewritten:
        path = tmp_path / name
        cached = _read_pyc(path, path.parent / "__pycache__" / (path.name[:-3] + PYC_TAIL))
        assert cached is not None, f"{name} is not in the cache"
        assert cached == _rewrite_test(path, pytestconfig)[1], f"{name} is cached otherwise"
    assert not (tmp_path / "sub" / "__pycache__" / f"helper{PYC_TAIL}").exists()

    # a changed module is rewritten again
    (tmp_path / "test_one.py").write_text("def test_one():\n    assert 3 == 4\n", encoding="utf-8")
    assert uncached_test_modules(pytestconfig, [tmp_path]) == [tmp_path / "test_one.py"]
