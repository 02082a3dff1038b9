"""Where the suite's CPU goes: an opt-in pytest plugin (``-p tests.cpu_budget``).

The suite's time on 2 cores is set by its CPU, not by its waits: three workers keep both
cores busy to the end, and a fourth gave nothing (226.8 s against 222.5 s, a run each). So
the figure to cut is CPU time, and half of it is spent in the processes the tests start (the
MCP server, hooks, the Claude Code and Codex CLIs, Chromium, PostgreSQL, the benchmarks),
which a per-test duration does not show. For each test this records, in the process that runs it
(an xdist worker, or the one process with ``-n 0``), from its setup to its teardown:

- ``wall``: seconds;
- ``self``: the process's own CPU seconds (its threads, onnxruntime's included);
- ``children``: the CPU seconds of the processes it started and waited for, with theirs
  (``RUSAGE_CHILDREN``: a server a fixture keeps for the session is counted by the test that
  stops it, one killed and never waited for not at all).

The terminal summary adds a table of the costliest files; ``--cpu-budget=FILE`` also writes
every test's figures there as JSON. With xdist each worker's figures reach the main process
on the test's teardown report (``user_properties``), so no files are shared."""

from __future__ import annotations

import json
import resource
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

#: The name the figures travel under in a report's ``user_properties``.
PROPERTY = "cpu_budget"
#: Files shown in the terminal summary, costliest first.
SHOWN_FILES = 25

_started: dict[str, tuple[float, float, float]] = {}
_figures: dict[str, dict[str, float]] = {}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--cpu-budget",
        metavar="FILE",
        default=None,
        help="tests.cpu_budget: also write each test's wall, own and children's CPU seconds "
        "to FILE (JSON)",
    )


def _now() -> tuple[float, float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (
        time.perf_counter(),
        own.ru_utime + own.ru_stime,
        children.ru_utime + children.ru_stime,
    )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> None:
    # (called where the test runs; xdist's main process also gets each logstart, and would
    # keep a start that no teardown there ever takes)
    _started[item.nodeid] = _now()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    if call.when != "teardown" or item.nodeid not in _started:
        return
    ended, started = _now(), _started.pop(item.nodeid)
    wall, own, children = (end - start for end, start in zip(ended, started, strict=True))
    figures = {"wall": round(wall, 4), "self": round(own, 4), "children": round(children, 4)}
    outcome.get_result().user_properties.append((PROPERTY, figures))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when != "teardown":
        return
    for name, value in report.user_properties:
        if name == PROPERTY:
            _figures[report.nodeid] = dict(value)


def by_file(figures: dict[str, dict[str, float]]) -> list[tuple[str, dict[str, float]]]:
    """The figures summed by test file, the costliest (own + children's CPU) first."""
    files: dict[str, dict[str, float]] = {}
    for nodeid, one in figures.items():
        total = files.setdefault(
            nodeid.split("::")[0], {"tests": 0, "wall": 0.0, "self": 0.0, "children": 0.0}
        )
        total["tests"] += 1
        for key in ("wall", "self", "children"):
            total[key] += one[key]
    return sorted(files.items(), key=lambda item: -(item[1]["self"] + item[1]["children"]))


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or not _figures:
        return  # an xdist worker: its figures went to the main process
    path = config.getoption("--cpu-budget")
    if path:
        Path(path).write_text(json.dumps(_figures, indent=1, sort_keys=True), encoding="utf-8")
    write = terminalreporter.write_line
    terminalreporter.section("CPU by test file (tests.cpu_budget)")
    write(f"{'file':<48} {'tests':>5} {'wall s':>8} {'own CPU s':>10} {'children s':>10}")
    files = by_file(_figures)
    for name, total in files[:SHOWN_FILES]:
        write(
            f"{name:<48} {total['tests']:>5.0f} {total['wall']:>8.1f} "
            f"{total['self']:>10.1f} {total['children']:>10.1f}"
        )
    own = sum(t["self"] for _, t in files)
    children = sum(t["children"] for _, t in files)
    write(f"all {len(_figures)} tests: own CPU {own:.1f} s, children's {children:.1f} s")
