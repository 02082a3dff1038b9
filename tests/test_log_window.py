"""A pasted log of any size is read in bounded time: of a huge one, its start, its first
error and its end (qa-s67b F7: a 20 MB line cost 40–80 s in `recall --error`, a jest report
whose failure holds a 40k-line snapshot diff 3.75 s, go test -json of 200k events 22.7 s).

What is read is asserted (the part :func:`~kenning.log_window.log_window` returns, what a
line left out of it would have added, the CLI's notice), not the time it takes: speed is
measured by benchmarks (docs/benchmarks.md), not by timed tests."""

from __future__ import annotations

import json
from pathlib import Path

from kenning import MemoryStore
from kenning.log_window import (
    HEAD_LINES,
    LINE_MAX_CHARS,
    TAIL_LINES,
    WHOLE_MAX_CHARS,
    WHOLE_MAX_LINES,
    log_window,
)
from kenning.querybuild import error_recall_queries, query_from_error, reports_error
from kenning.signatures import extract_error_signature, looks_like_error

from .cli_runner import run_cli
from .test_json_reports import go_test_json, jest_json

TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/app/worker.py", line 42, in handle\n'
    "    user = session['user']\n"
    "KeyError: 'user'"
)
#: A line that tells an error in a sentence: read, it is asked as a query of its own.
TOLD = "and the api fails with ValueError: bad value for the queue name"


def info_lines(n: int, start: int = 0) -> list[str]:
    """``n`` lines of a busy service's log, none of them an error (~90 characters each)."""
    return [
        f"2024-05-02 09:14:{i % 60:02d},123 INFO app.worker: handled GET /api/v1/orders/{i} "
        f"200 in {i % 97} ms"
        for i in range(start, start + n)
    ]


def bounded(window_text: str) -> None:
    assert len(window_text) <= WHOLE_MAX_CHARS
    assert window_text.count("\n") + 1 <= WHOLE_MAX_LINES
    assert max(map(len, window_text.split("\n"))) <= LINE_MAX_CHARS


def test_a_normal_log_is_read_whole_as_it_was() -> None:
    """What recall takes as a query, and a log of some thousand short lines, are read whole:
    the same object, no notice."""
    for text in ("KeyError: 'user'", "\n".join([*info_lines(2_000), TRACEBACK])):
        window = log_window(text)
        assert window.text is text
        assert window.whole and window.notice() == ""
    one_line = "x" * 19_000  # (any query recall takes, whatever its lines)
    assert log_window(one_line).text is one_line


def test_a_20_mb_line_is_read_to_its_line_limit() -> None:
    line = "Error: Cannot find module 'semver' " + "x" * 20_000_000
    window = log_window(line)
    assert window.text == line[:LINE_MAX_CHARS]
    assert window.cut_lines == 1 and "over 4,000 characters" in window.notice()
    queries, _ = error_recall_queries(line)
    assert queries[0][0].startswith("Error: Cannot find module 'semver' xxx")
    assert looks_like_error(line) and reports_error(line)
    assert query_from_error(line) == queries[0][0]
    assert extract_error_signature(line) == queries[0][0]


def test_a_5_mb_log_whose_error_is_at_its_end_is_read_by_its_end() -> None:
    """Its head, its first error and its tail are read; a line between them is not (read, a
    line that tells an error in a sentence is a query of its own)."""
    later = "and the cache fails with RuntimeError: the pool is closed for the night"
    lines = [
        *info_lines(30_000),
        TOLD,
        *info_lines(25_000, 30_000),
        later,
        *info_lines(5_000, 55_000),
        TRACEBACK,
    ]
    log = "\n".join(lines)
    assert len(log) > 5_000_000
    window = log_window(log)
    bounded(window.text)
    total = len(lines) + TRACEBACK.count("\n")
    assert window.parts[0] == (1, HEAD_LINES)
    assert window.first_error == 30_001
    assert window.parts[-1] == (total - TAIL_LINES + 1, total)
    assert window.text.endswith(TRACEBACK)
    assert TOLD in window.text and later not in window.text
    queries, _ = error_recall_queries(log)
    asked = [query for query, _ in queries]
    assert asked[0] == "KeyError: 'user'"
    assert "ValueError: bad value for the queue name" in asked
    assert not any("RuntimeError" in query for query in asked)
    # read again, what was read is read whole (the CLI reads a log, then asks its queries)
    assert log_window(window.text).text is window.text


def test_a_build_s_first_error_is_read_with_megabytes_after_it() -> None:
    """The first error of a build may be the cause of what fails at its end: the lines
    around it are read, between the log's head and its tail."""
    missing = "ModuleNotFoundError: No module named 'yaml'"
    lines = [
        *info_lines(5_000),
        "Traceback (most recent call last):",
        '  File "/app/setup_env.py", line 3, in <module>',
        "    import yaml",
        missing,
        *info_lines(40_000, 5_000),
        "Error: Process completed with exit code 1.",
    ]
    log = "\n".join(lines)
    assert len(log) > 3_000_000
    window = log_window(log)
    bounded(window.text)
    assert window.first_error == 5_001  # (its traceback's first line)
    assert missing in window.text
    assert "around its first error" in window.notice()
    queries, _ = error_recall_queries(log)
    assert queries[0] == (f"{missing} (exit code 1)", True)
    # an early error, within the head, is read as the head
    early = "\n".join([*lines[5_000:5_004], *info_lines(40_000), lines[-1]])
    assert error_recall_queries(early)[0][0] == (f"{missing} (exit code 1)", True)


def test_a_huge_jest_report_is_read_as_printed_then_bounded() -> None:
    """A jest report of one line whose failure holds a 40k-line snapshot diff: read as jest
    prints it, then bounded; its failure is the query."""
    diff = "\n".join(
        f'-   "field{i}": "value {i}",\n+   "field{i}": "VALUE {i}",' for i in range(20_000)
    )
    message = (
        "  ● cart › renders\n\n    expect(received).toMatchSnapshot()\n\n"
        f"    Snapshot name: `cart 1`\n\n{diff}\n"
    )
    report = jest_json(message=message, failure=message)
    assert "\n" not in report and len(report) > 1_000_000
    window = log_window(report)
    bounded(window.text)
    assert window.lines > 40_000 and window.parts
    assert window.text.startswith("FAIL src/cart.test.js\n  ● cart › renders")
    queries, _ = error_recall_queries(report)
    assert queries[0][0].startswith("● cart › renders: expect(received).toMatchSnapshot()")


def test_a_huge_go_test_json_report_is_read_by_its_failure() -> None:
    """go test -json of 100k events whose failure is at its end (test2json's output read)."""
    at = {"Time": "2024-05-01T12:00:00.1Z", "Package": "example.com/cart", "Test": "TestLoad"}
    events = [
        json.dumps({**at, "Action": "output", "Output": f"    load_test.go:9: row {i} ok\n"})
        for i in range(100_000)
    ]
    report = "\n".join(events) + "\n" + go_test_json()
    window = log_window(report)
    bounded(window.text)
    assert window.lines > 100_000
    queries, _ = error_recall_queries(report)
    assert queries[0] == ("--- FAIL: TestAdd (0.00s): Add(1, 1) = 3, want 2", True)


def test_recall_error_says_on_stderr_what_it_read_of_a_huge_log(
    store: MemoryStore, project: Path
) -> None:
    """`kenning recall --error -` of a 5 MB log: the fix of the error at its end, exit 0,
    and one line on stderr that says which lines were read (none with --quiet, none for a
    log read whole); `kenning query error -` says it too."""
    fix = store.remember(
        "ERROR-FIX: KeyError: 'user' | FIX: the session expired; check it before reading it",
        "error_fix",
    )
    log = "\n".join([*info_lines(60_000), TRACEBACK]).encode()
    r = run_cli(project, "recall", "--error", "-", "--json", stdin=log)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["results"][0]["id"] == fix.id
    assert "read in part: kenning read 2,200 of the log's 60,004 lines (1–200, " in r.stderr
    quiet = run_cli(project, "recall", "--error", "-", "--quiet", stdin=log)
    assert quiet.returncode == 0 and "read in part" not in quiet.stderr
    small = run_cli(project, "recall", "--error", "-", stdin=TRACEBACK.encode())
    assert small.returncode == 0 and "read in part" not in small.stderr
    query = run_cli(project, "query", "error", "-", stdin=log)
    assert query.returncode == 0 and query.stdout.strip() == "KeyError: 'user'"
    assert "read in part" in query.stderr
