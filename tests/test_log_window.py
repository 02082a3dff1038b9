"""A pasted log of any size is read in bounded time: of a huge one, its start, its first
error and its end (qa-s67b F7: a 20 MB line cost 40–80 s in `recall --error`, a jest report
whose failure holds a 40k-line snapshot diff 3.75 s, go test -json of 200k events 22.7 s).

What is read is asserted (the part :func:`~kenning.log_window.log_window` returns, what a
line left out of it would have added, the CLI's notice), not the time it takes: speed is
measured by benchmarks (docs/benchmarks.md), not by timed tests."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from kenning import MemoryStore
from kenning.log_window import (
    BOUNDS,
    HEAD_LINES,
    LINE_MAX_CHARS,
    RAW_MAX_CHARS,
    TAIL_LINES,
    WHOLE_MAX_CHARS,
    WHOLE_MAX_LINES,
    Bounds,
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


def test_smaller_bounds_read_a_log_by_the_same_rules_in_smaller_parts() -> None:
    """:class:`Bounds` parametrises the reading (the prompt hook passes smaller ones): the
    commands' are the module's limits; smaller ones read the same head, error and tail, each
    within its smaller share."""
    assert (BOUNDS.whole_max_chars, BOUNDS.whole_max_lines) == (WHOLE_MAX_CHARS, WHOLE_MAX_LINES)
    log = "\n".join([*info_lines(20_000), TRACEBACK, *info_lines(20_000, 20_000)])
    small = Bounds(head_lines=10, head_chars=2_000, tail_lines=30, tail_chars=3_000)
    window = log_window(log, small)
    assert len(window.text) <= small.whole_max_chars
    assert window.parts[0] == (1, 10) and window.parts[-1] == (40_004 - 29, 40_004)
    assert window.errors == (20_001, 20_004) and "KeyError: 'user'" in window.text
    assert error_recall_queries(window.text)[0] == [("KeyError: 'user'", True)]
    assert log_window(log).parts[0] == (1, HEAD_LINES)


def test_a_20_mb_line_is_read_to_its_line_limit() -> None:
    line = "Error: Cannot find module 'semver' " + "x" * 20_000_000
    window = log_window(line)
    assert window.text == line[:LINE_MAX_CHARS]
    assert window.cut_lines == 1 and "only to their 4,000th character" in window.notice()
    queries, _ = error_recall_queries(line)
    assert queries[0][0].startswith("Error: Cannot find module 'semver' xxx")
    assert looks_like_error(line) and reports_error(line)
    assert query_from_error(line) == queries[0][0]
    assert extract_error_signature(line) == queries[0][0]


def test_a_long_line_of_a_log_read_in_part_is_read_to_its_line_limit() -> None:
    """A line longer than LINE_MAX_CHARS in a part read of a log under RAW_MAX_CHARS (not
    cut before its reports are read) is read to its LINE_MAX_CHARS-th character, in the
    head and in the tail, and counted as cut; the lines around it are read as they are."""
    long_head = "WARNING setup: " + "y" * 9_000
    long_tail = "Error: Cannot find module 'semver' " + "x" * 50_000
    lines = [long_head, *info_lines(4_000), long_tail, *info_lines(10, 4_000)]
    window = log_window("\n".join(lines))
    read = window.text.split("\n")
    assert read[0] == long_head[:LINE_MAX_CHARS] and long_tail[:LINE_MAX_CHARS] in read
    assert read[1:200] == info_lines(199) and read[-10:] == info_lines(10, 4_000)
    assert window.cut_lines == 2 and "only to their 4,000th character" in window.notice()
    bounded(window.text)


def test_a_5_mb_log_whose_error_is_at_its_end_is_read_by_its_end() -> None:
    """Its head, its errors and its tail are read; a line between them is not (read, a
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
    assert TOLD in window.text and later in window.text  # (its first and its last error)
    assert window.errors == (30_001, 55_002)
    assert info_lines(1, 40_000)[0] not in window.text
    queries, _ = error_recall_queries(log)
    asked = [query for query, _ in queries]
    assert asked[0] == "KeyError: 'user'"
    assert "ValueError: bad value for the queue name" in asked
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
    # (from 20 lines above the crash's first line, its traceback's)
    assert "4,981–5,200 around an error" in window.notice()
    queries, _ = error_recall_queries(window.text)
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
    queries, _ = error_recall_queries(window.text)
    assert queries[0][0].startswith("● cart › renders: expect(received).toMatchSnapshot()")


def go_output_events(n: int) -> list[str]:
    """``n`` events of go test -json (test2json's) whose output is a passing row's line, each
    the text ``json.dumps`` gives it: one event dumped with a mark where its row's number
    goes, the number written in its place (digits, which JSON writes as they are; a dump of
    each event was ~3 µs, 0.3 CPU-s of 100,000)."""
    at = {"Time": "2024-05-01T12:00:00.1Z", "Package": "example.com/cart", "Test": "TestLoad"}
    event = {**at, "Action": "output", "Output": "    load_test.go:9: row \x00 ok\n"}
    before, after = json.dumps(event).split("\\u0000")
    return [f"{before}{i}{after}" for i in range(n)]


def test_a_huge_go_test_json_report_is_read_by_its_failure() -> None:
    """go test -json of 100k events whose failure is at its end (test2json's output read)."""
    events = go_output_events(100_000)
    report = "\n".join(events) + "\n" + go_test_json()
    window = log_window(report)
    bounded(window.text)
    assert window.lines > 100_000
    queries, _ = error_recall_queries(window.text)
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
    assert "read in part" in query.stderr and "| kenning query error -`)" in query.stderr


def test_recall_error_finds_the_fix_of_a_maven_failure_in_the_middle(
    store: MemoryStore, project: Path
) -> None:
    """qa-s68a F1 through the CLI: a Maven build whose OutOfMemoryError is after 1,300
    passing test classes and before 2,500 downloads; the notice names the error's part."""
    fix = store.remember(
        "ERROR-FIX: java.lang.OutOfMemoryError: Java heap space in surefire fork | FIX: set "
        "argLine -Xmx2g in the surefire plugin configuration",
        "error_fix",
    )
    lines = ["[INFO] Scanning for projects...", *maven_tests(1_300), *OOM, *downloads(2_500)]
    log = ("\n".join(lines) + "\n").encode()
    r = run_cli(project, "recall", "--error", "-", "--json", stdin=log)
    assert r.returncode == 0, r.stderr
    answer = json.loads(r.stdout)
    assert answer["query"] == "java.lang.OutOfMemoryError: Java heap space"
    assert answer["results"][0]["id"] == fix.id
    assert "(1–200, 1,285–1,504 around an error, 1,808–3,807)" in r.stderr


def test_recall_error_json_says_which_lines_it_read(store: MemoryStore, project: Path) -> None:
    """`kenning recall --error - --json` of a log read in part: ``log_read`` says what the
    notice on stderr says (the log's lines, each part read, the one around an error, the
    notice itself); ``null`` for a log read whole and for a recall of a query."""
    lines = ["[INFO] Scanning for projects...", *maven_tests(1_300), *OOM, *downloads(2_500)]
    log = ("\n".join(lines) + "\n").encode()
    r = run_cli(project, "recall", "--error", "-", "--json", stdin=log)
    assert r.returncode == 0, r.stderr
    read = json.loads(r.stdout)["log_read"]
    assert read["lines"] == 3_807 and read["as_printed"] is False
    assert read["parts"] == [
        {"first": 1, "last": 200, "around_error": False},
        {"first": 1_285, "last": 1_504, "around_error": True},
        {"first": 1_808, "last": 3_807, "around_error": False},
    ]
    assert (read["cut_lines"], read["redrawn_lines"], read["left_out_lines"]) == (0, 0, 0)
    assert read["search_stopped_at"] is None
    assert read["notice"] == r.stderr.strip()
    quiet = run_cli(project, "recall", "--error", "-", "--json", "--quiet", stdin=log)
    assert json.loads(quiet.stdout)["log_read"] == read and "read in part" not in quiet.stderr
    whole = run_cli(project, "recall", "--error", "-", "--json", stdin=TRACEBACK.encode())
    assert json.loads(whole.stdout)["log_read"] is None
    asked = run_cli(project, "recall", "KeyError: 'user'", "--json")
    assert json.loads(asked.stdout)["log_read"] is None


def maven_tests(n: int) -> list[str]:
    """Maven's line for each test class that passed: it holds "Errors" and "Failures"."""
    return [
        f"[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.{i % 9} s "
        f"- in com.acme.T{i}"
        for i in range(n)
    ]


OOM = [
    "[INFO] Running com.acme.BigTest",
    "[ERROR] Tests run: 4, Failures: 0, Errors: 1, Skipped: 0, Time elapsed: 12.3 s <<< "
    "FAILURE! - in com.acme.BigTest",
    "[ERROR] testLoad(com.acme.BigTest)  Time elapsed: 12.1 s  <<< ERROR!",
    "java.lang.OutOfMemoryError: Java heap space",
    "\tat java.util.Arrays.copyOf(Arrays.java:3236)",
    "\tat com.acme.Loader.load(Loader.java:88)",
]


def downloads(n: int) -> list[str]:
    return [
        f"[INFO] Downloaded from central: https://repo.maven.apache.org/maven2/org/lib{i}/"
        f"lib{i}/1.{i}/lib{i}-1.{i}.jar ({i % 900} kB)"
        for i in range(n)
    ]


def test_an_error_after_thousands_of_lines_that_only_name_an_error_word_is_read() -> None:
    """qa-s68a F1: Maven's per-class "Tests run: 3, Failures: 0, Errors: 0" (and test names
    with "error" in them) are not errors; the search for the error between the head and
    the tail is not used up by them: the OutOfMemoryError in the middle is read."""
    lines = ["[INFO] Scanning for projects...", *maven_tests(5_000), *OOM, *downloads(2_500)]
    lines[1_000:1_000] = [f"tests/test_auth.py::test_login_error_{i} PASSED" for i in range(900)]
    log = "\n".join(lines) + "\n"
    queries, _ = error_recall_queries(log)
    assert queries[0] == ("java.lang.OutOfMemoryError: Java heap space", True)
    window = log_window(log)
    bounded(window.text)
    oom = lines.index("java.lang.OutOfMemoryError: Java heap space") + 1
    assert "java.lang.OutOfMemoryError: Java heap space" in window.text
    assert window.search_stopped is None and window.errors[0] == oom - 2


def test_an_error_a_passing_test_logs_does_not_hide_the_failure_after_it() -> None:
    """qa-s68a F2: an ERROR logged on purpose by a passing test is the first error of the
    middle; the run's failure later in the middle is read too, and is the query."""
    passes = [f"tests/test_api.py::test_case_{i} PASSED" for i in range(3_500)]
    benign = [
        "tests/test_client.py::test_retry_on_outage ",
        "-------------------------------- live log call --------------------------------",
        "ERROR    app.client:client.py:88 request failed: requests.exceptions.ConnectionError:"
        " simulated outage",
        "PASSED",
    ]
    failure = [
        "tests/test_store.py::test_concurrent_write FAILED",
        "    def test_concurrent_write(db):",
        ">       db.execute('INSERT INTO t VALUES (1)')",
        "E       sqlite3.OperationalError: database is locked",
    ]
    lines = [*passes[:300], *benign, *passes[300:700], *failure, *passes[700:]]
    log = "\n".join(lines)
    window = log_window(log)
    bounded(window.text)
    assert "simulated outage" in window.text
    assert "E       sqlite3.OperationalError: database is locked" in window.text
    assert len(window.errors) == 2
    queries, _ = error_recall_queries(window.text)
    assert queries[0] == ("sqlite3.OperationalError: database is locked", True)


def test_errors_a_service_logged_with_ids_do_not_hide_its_crash() -> None:
    """qa-s68c L1: a service's benign ERROR lines each carry a request id and an order's
    hex, so each was a kind of its own (digits aside), and three of them took the regions
    read around errors after the first and the last; the traceback between them was never
    read. What varies in a line is not its kind now, and a crash's kinds are read first."""
    rng = iter(range(10_000))

    def hx() -> str:
        return f"{(next(rng) * 2654435761) % 16**12:012x}"

    def info(n: int) -> list[str]:
        return [f"2026-12-06T01:00:00Z INFO  [req={hx()}] GET /api/items/{i} 200" for i in range(n)]

    benign = [
        "payment declined for order {} (card_declined)",
        "upstream returned 404 for sku {}",
        "validation failed for user {}: email taken",
        "cache refresh failed for key {}",
    ]
    lines = info(450)
    for message in benign:
        lines += [f"2026-12-06T01:10:00Z ERROR [req={hx()}] " + message.format(hx()), *info(150)]
    lines += [
        f"2026-12-06T01:20:00Z ERROR [req={hx()}] unhandled exception in worker",
        "Traceback (most recent call last):",
        '  File "/app/worker/db.py", line 41, in connect',
        "    return psycopg2.connect(DSN)",
        "psycopg2.OperationalError: FATAL:  sorry, too many clients already",
        *info(250),
        f"2026-12-06T01:30:00Z ERROR [req={hx()}] upstream returned 404 for sku {hx()}",
        *info(2_400),
    ]
    log = "\n".join(lines)
    window = log_window(log)
    bounded(window.text)
    assert "sorry, too many clients already" in window.text
    queries, _ = error_recall_queries(window.text)
    assert ("psycopg2.OperationalError: FATAL: sorry, too many clients already", True) in queries


def test_a_long_trace_handled_early_leaves_the_last_error_its_lines() -> None:
    """qa-s68c L2: an error handled early in the log, logged with a trace of 900 frames,
    was read on to the middle's whole character budget, and the run's real error after it
    had no lines read. Each error's own lines come first now, traces with what is left."""
    handled = [
        "2024-05-02 09:14:40,500 ERROR o.a.c.c.C.[dispatcherServlet] : Servlet.service() "
        "threw exception",
        "org.springframework.security.access.AccessDeniedException: Access is denied",
        *[
            f"\tat org.springframework.security.web.FilterChainProxy$VirtualFilterChain"
            f".doFilter(FilterChainProxy.java:{i})"
            for i in range(900)
        ],
    ]
    failure = [
        "2024-05-02 09:15:00,001 WARN  c.z.h.p.PoolBase : HikariPool-1 - Connection is not "
        "available, request timed out after 30000ms.",
        "2024-05-02 09:15:00,002 ERROR o.h.e.j.s.SqlExceptionHelper : HikariPool-1 - "
        "Connection is not available, request timed out after 30000ms.",
        "org.hibernate.exception.JDBCConnectionException: Unable to acquire JDBC Connection",
        "\tat org.hibernate.exception.internal.SQLStateConversionDelegate.convert(X.java:48)",
    ]
    lines = [*info_lines(400), *handled, *info_lines(300, 400), *failure, *info_lines(2_300, 700)]
    log = "\n".join(lines)
    window = log_window(log)
    bounded(window.text)
    assert "JDBCConnectionException: Unable to acquire JDBC Connection" in window.text
    assert "AccessDeniedException: Access is denied" in window.text
    # the trace read on below its first 200 lines with what was left, not to its end
    assert "FilterChainProxy.java:400)" in window.text
    assert "FilterChainProxy.java:899)" not in window.text


def test_a_long_java_trace_in_the_middle_is_read_to_its_root_cause() -> None:
    """qa-s68a F11: a Spring trace of ~290 lines (more than the 200 read from an error):
    its frames and ``Caused by`` lines are read on, down to the root cause."""

    def frames(n: int, where: str) -> list[str]:
        return [f"\tat org.{where}.Frame{i}.call(Frame{i}.java:{i + 10})" for i in range(n)]

    trace = [
        "2024-05-02 09:15:00.001 ERROR 1 --- [main] o.s.boot.SpringApplication : "
        "Application run failed",
        "org.springframework.beans.factory.BeanCreationException: Error creating bean with "
        "name 'entityManagerFactory'",
        *frames(120, "springframework"),
        "Caused by: org.hibernate.service.spi.ServiceException: Unable to create requested "
        "service [org.hibernate.engine.jdbc.env.spi.JdbcEnvironment]",
        *frames(120, "hibernate"),
        "Caused by: org.postgresql.util.PSQLException: Connection to db:5432 refused.",
        *frames(30, "postgresql"),
        "Caused by: java.net.ConnectException: Connection refused",
        *frames(10, "java.net"),
        "\t... 42 common frames omitted",
    ]
    lines = [*info_lines(600), *trace, *info_lines(2_500, 600)]
    log = "\n".join(lines)
    window = log_window(log)
    bounded(window.text)
    assert "Caused by: java.net.ConnectException: Connection refused" in window.text
    assert "\t... 42 common frames omitted" in window.text
    assert info_lines(1, 700)[0] not in window.text  # (the trace's part ends with it)
    queries, _ = error_recall_queries(window.text)
    assert queries[0][0] == "Caused by: java.net.ConnectException: Connection refused"


def test_a_progress_bar_redrawn_with_cr_is_read_as_a_terminal_shows_it() -> None:
    """qa-s68a F3: cargo's progress bar, redrawn 900 times with \\r on one line, then the
    error after its last \\r: the line is read as it shows (its last redraw), not cut at its
    4,000th character inside the redraws."""
    bar = "".join(
        f"\r   Building [{'=' * (i * 40 // 900):<40}] {i}/900: crate_{i}(build)" for i in range(900)
    )
    error = (
        "error[E0308]: mismatched types\n --> src/parse.rs:42:17\n   |\n42 |     let n: u32 = "
        "value;\n   |            ---   ^^^^^ expected `u32`, found `i64`\n\n"
        "error: could not compile `parser` (lib) due to 1 previous error\n"
    )
    log = "   Compiling parser v0.1.0\n" + bar + "\r\x1b[K" + error
    window = log_window(log)
    assert window.text.split("\n")[1] == "\x1b[Kerror[E0308]: mismatched types"
    assert window.redrawn == 1 and "redrawn with \\r" in window.notice()
    assert error_recall_queries(log)[0][0] == ("error[E0308]: mismatched types", True)
    # a CRLF log is not redrawn: its \r ends its lines
    crlf = "\r\n".join([*info_lines(4_000), TRACEBACK.replace("\n", "\r\n")])
    assert log_window(crlf).redrawn == 0
    assert error_recall_queries(crlf)[0][0][0] == "KeyError: 'user'"


def test_the_lines_read_are_the_lines_the_readers_split(tmp_path: Path) -> None:
    """qa-s68a F5: the lines bounded are the readers' (``str.splitlines``: also at \\r,
    \\f, …): 1.2 MB of ``x\\r`` or ``a\\f`` segments is not read as 600,000 lines."""
    for segment in ("x\r", "a\f"):
        log = "\n".join(segment * 2_000 for _ in range(300)) + "\n" + TRACEBACK + "\n"
        window = log_window(log)
        bounded(window.text)
        assert len(window.text.splitlines()) <= WHOLE_MAX_LINES
        assert error_recall_queries(log)[0][0] == ("KeyError: 'user'", True)


def test_a_log_just_over_the_raw_limit_is_read_to_its_end() -> None:
    """qa-s69b F2: a log longer than RAW_MAX_CHARS by less than its head's characters (the
    last RAW_MAX_CHARS then start right after the head) was read as its head alone: its
    error and its end were left out, and the notice said "kenning read :"."""
    panic = "panic: runtime error: invalid memory address or nil pointer dereference"
    lines = [f"{i:07d} " + "y" * 191 for i in range(100_005)]  # (200 characters a line)
    lines[60_000] = panic.ljust(199)
    log = "\n".join(lines) + "\n"
    assert len(log) == RAW_MAX_CHARS + 1_000  # (less than the head's 200 lines over)
    window = log_window(log)
    assert 60_001 in window.errors, window.notice()
    assert window.parts and window.parts[-1][1] == len(lines), window.notice()
    assert window.lines == len(lines) and "kenning read :" not in window.notice()


def test_the_notice_s_line_numbers_are_the_input_s(tmp_path: Path) -> None:
    """qa-s68a F4: the parts the notice names are the input's lines (as ``sed -n`` and
    ``wc -l`` count them), also of an input over 20,000,000 characters (cut first); a JSON
    report's are said to be the lines it prints as, with no ``sed`` hint."""
    panic = "panic: runtime error: invalid memory address or nil pointer dereference"
    lines = [f"{i:07d} " + "y" * 192 for i in range(108_000)]
    lines[60_000] = panic
    log = "\n".join(lines) + "\n"
    assert len(log) > 20_000_000
    window = log_window(log)
    bounded(window.text)
    assert window.lines == len(lines) and window.left_out_raw
    assert 60_001 in window.errors
    read = window.text.split("\n")
    for first, last in window.parts:  # (what sed -n 'FIRST,LASTp' prints is what was read)
        part = [line[:LINE_MAX_CHARS] for line in lines[first - 1 : last]]
        start = read.index(part[0])
        assert read[start : start + len(part)] == part
    assert window.parts[-1][1] == len(lines)
    small = "\n".join(info_lines(30_000)) + "\n"  # (wc -l: 30,000)
    assert log_window(small).lines == 30_000 and log_window(small).parts[-1][1] == 30_000
    events = go_output_events(30_000)
    report = log_window("\n".join(events) + "\n" + go_test_json())
    assert report.as_printed and "lines of its JSON report as printed" in report.notice()
    assert "sed -n" not in report.notice()


def spring_frames(n: int, package: str) -> list[str]:
    """``n`` frames of a Spring trace as the JVM prints them (~110–140 characters each)."""
    classes = ("AbstractAutowireCapableBeanFactory", "ConstructorResolver", "AbstractBeanFactory")
    methods = ("createBean", "doCreateBean", "resolveDependency", "getSingleton")
    return [
        f"\tat {package}.{classes[i % 3]}.{methods[i % 4]}({classes[i % 3]}.java:{120 + i})"
        for i in range(n)
    ]


#: A Spring Boot startup failure (``Application run failed``): the exception and a
#: three-level ``Caused by`` chain, whose last is the root cause.
SPRING_STARTUP_FAILURE = [
    "2024-05-02T09:15:00.001Z ERROR 1 --- [           main] o.s.boot.SpringApplication       "
    "        : Application run failed",
    "",
    "org.springframework.beans.factory.UnsatisfiedDependencyException: Error creating bean with "
    "name 'orderController' defined in file [/app/BOOT-INF/classes/com/acme/orders/"
    "OrderController.class]: Unsatisfied dependency expressed through constructor parameter 0",
    *spring_frames(60, "org.springframework.beans.factory.support"),
    "\tat com.acme.orders.OrdersApplication.main(OrdersApplication.java:12)",
    "Caused by: org.springframework.beans.factory.BeanCreationException: Error creating bean "
    "with name 'entityManagerFactory' defined in class path resource [org/springframework/boot/"
    "autoconfigure/orm/jpa/HibernateJpaConfiguration.class]",
    *spring_frames(70, "org.springframework.beans.factory.support"),
    "\t... 21 common frames omitted",
    "Caused by: org.hibernate.service.spi.ServiceException: Unable to create requested service "
    "[org.hibernate.engine.jdbc.env.spi.JdbcEnvironment] due to: Unable to determine Dialect "
    "without JDBC metadata",
    *spring_frames(60, "org.hibernate.service.internal"),
    "\t... 36 common frames omitted",
    "Caused by: org.postgresql.util.PSQLException: Connection to orders-db:5432 refused. Check "
    "that the hostname and port are correct and that the postmaster is accepting TCP/IP "
    "connections.",
    "\tat org.postgresql.core.v3.ConnectionFactoryImpl.openConnectionImpl(ConnectionFactoryImpl"
    ".java:342)",
    *spring_frames(24, "org.postgresql.core.v3"),
    "\t... 52 common frames omitted",
]


def other_services(n: int, start: int = 0) -> list[str]:
    """``n`` lines of the other services of a compose project: their own ERROR lines (a
    declined payment, a sync that will be retried, a mail server's 421) among INFO ones."""
    return list(_other_services(n, start))  # (a list of its own: a caller may change it)


@functools.cache
def _other_services(n: int, start: int) -> tuple[str, ...]:
    """:func:`other_services`' lines, made once a process for each ``n`` and ``start``: the
    logs around a trace are made of the same few runs (``other_services(4_000)`` and
    ``(3_000, 4_000)``, ~5 ms each, asked ~90 times by this module's loops)."""
    said = (
        "ERROR 7 --- [   scheduling-1] c.a.inventory.StockSyncJob               : Stock sync "
        "failed for warehouse WH-{i}: upstream returned 503",
        "ERROR 9 --- [nio-8081-exec-{i}] c.a.payments.CardController              : Payment "
        "declined for order {i:08x} (card_declined)",
        "ERROR 11 --- [kafka-consumer-1] c.a.notify.EmailListener                 : Failed to "
        "send email to user {i}: SMTP 421 try again later",
        " INFO 9 --- [nio-8081-exec-{i}] c.a.payments.CardController              : GET "
        "/api/payments/{i} 200 in {i} ms",
        " WARN 7 --- [   scheduling-1] c.a.inventory.StockSyncJob               : retrying in 30s",
    )
    return tuple(
        f"2024-05-02T09:{10 + i // 3600 % 50:02d}:{i // 60 % 60:02d}.{i % 1000:03d}Z "
        + said[i % len(said)].format(i=i)
        for i in range(start, start + n)
    )


def test_a_spring_trace_among_other_services_errors_is_read_to_its_root_cause(
    store: MemoryStore, project: Path
) -> None:
    """A Spring Boot startup failure in a compose log, among thousands of other services'
    ERROR lines: its frames (~130 characters) filled the error's own part by its characters
    before its 200 lines, and a part cut so was not read on as a trace, so the reading
    stopped at the middle ``Caused by`` (Hibernate's ServiceException). Read on to the root
    cause, Java's last ``Caused by``, whose fix `kenning recall --error -` finds first."""
    lines = [*other_services(4_000), *SPRING_STARTUP_FAILURE, *other_services(3_000, 4_000)]
    log = "\n".join(lines) + "\n"
    window = log_window(log)
    bounded(window.text)
    root = next(line for line in SPRING_STARTUP_FAILURE if "PSQLException" in line)
    assert root in window.text and "\t... 52 common frames omitted" in window.text
    assert other_services(1, 4_060)[0] not in window.text  # (the trace's part ends with it)
    root_id = remember_root_and_middle_fixes(store)
    r = run_cli(project, "recall", "--error", "-", "--json", stdin=log.encode())
    assert r.returncode == 0, r.stderr
    answer = json.loads(r.stdout)
    assert answer["query"].startswith("Caused by: org.postgresql.util.PSQLException: Connection")
    assert answer["results"][0]["id"] == root_id


def spring_failure_with_causes(levels: int, frames: int) -> list[str]:
    """:data:`SPRING_STARTUP_FAILURE` with ``levels`` more ``Caused by`` levels of ``frames``
    frames each between its second and its third (each bean of a dependency chain that could
    not be created adds one): its root cause, Java's last ``Caused by``, still at its end."""
    after = SPRING_STARTUP_FAILURE.index("\t... 21 common frames omitted") + 1
    more: list[str] = []
    for j in range(levels):
        more += [
            "Caused by: org.springframework.beans.factory.BeanCreationException: Error creating "
            f"bean with name 'dataSource{j}' defined in class path resource [com/acme/orders/"
            "DataConfig.class]",
            *spring_frames(frames, "org.springframework.beans.factory.support"),
            f"\t... {30 + j} common frames omitted",
        ]
    return [*SPRING_STARTUP_FAILURE[:after], *more, *SPRING_STARTUP_FAILURE[after:]]


def remember_root_and_middle_fixes(store: MemoryStore) -> str:
    """The fixes of the Spring failure's root cause and of its middle ``Caused by``
    (Hibernate's): the root's id."""
    root_fix = store.remember(
        "ERROR-FIX: org.postgresql.util.PSQLException: Connection to orders-db:5432 refused | "
        "FIX: the orders service started before its database; add depends_on orders-db with "
        "condition: service_healthy in compose.yaml",
        "error_fix",
    )
    store.remember(
        "ERROR-FIX: org.hibernate.service.spi.ServiceException: Unable to create requested "
        "service [JdbcEnvironment] | FIX: set spring.jpa.database-platform to the dialect "
        "when the database is not reachable at startup",
        "error_fix",
    )
    store.remember(
        "ERROR-FIX: org.springframework.beans.factory.UnsatisfiedDependencyException: Error "
        "creating bean with name 'orderController' | FIX: add @Service to OrderRepositoryImpl",
        "error_fix",
    )
    store.remember(
        "ERROR-FIX: Stock sync failed for warehouse: upstream returned 503 | FIX: the "
        "inventory upstream is rate limited; raise sync interval",
        "error_fix",
    )
    return root_fix.id


def recalled_first(project: Path, log: str) -> tuple[str, str]:
    """What `kenning recall --error -` asks of ``log``, and the id of what it finds first."""
    r = run_cli(project, "recall", "--error", "-", "--json", stdin=log.encode())
    assert r.returncode == 0, r.stderr
    answer = json.loads(r.stdout)
    return answer["query"], answer["results"][0]["id"]


def test_a_spring_trace_of_any_length_is_read_to_its_root_cause(
    store: MemoryStore, project: Path
) -> None:
    """A Spring trace of 6 ``Caused by`` levels (440 lines, 51 KB) was read on only to its
    characters' end, ~390 lines in, and asked about a middle cause; one of 584 lines about
    its top exception (qa-s70b F7). Past what its part holds, a trace's ``Caused by`` lines,
    the last (its root cause) first, are read with a few lines after each: however long the
    trace, not all of it."""
    root = next(line for line in SPRING_STARTUP_FAILURE if "PSQLException" in line)
    root_id = remember_root_and_middle_fixes(store)
    wide = []  # (~300 frames a cause, no "common frames omitted": qa-s70b F7)
    for line in SPRING_STARTUP_FAILURE:
        more = 240 * line.startswith(("org.", "Caused by"))
        wide += [line, *spring_frames(more, "org.springframework.beans.factory.support")]
    for trace in (*(spring_failure_with_causes(*c) for c in ((3, 70), (5, 70), (12, 120))), wide):
        log = "\n".join([*other_services(4_000), *trace, *other_services(3_000, 4_000)]) + "\n"
        window = log_window(log)
        bounded(window.text)
        assert root in window.text, window.parts
        query, first = recalled_first(project, log)
        assert query.startswith("Caused by: org.postgresql.util.PSQLException: Connection")
        assert first == root_id
    # (smaller bounds read it so too, within them, with what the errors' own parts leave)
    small = Bounds(trace_lines=300, middle_chars=40_000, error_chars=10_000)
    trace = spring_failure_with_causes(5, 70)
    log = "\n".join([*other_services(4_000), *trace, *other_services(3_000, 4_000)]) + "\n"
    window = log_window(log, small)
    assert root in window.text
    assert len(window.text) <= small.whole_max_chars
    assert window.text.count("\n") + 1 <= small.whole_max_lines


def test_a_spring_trace_in_docker_compose_logs_is_read_to_its_root_cause(
    store: MemoryStore, project: Path
) -> None:
    """``docker compose logs``: each line behind its service's prefix (``orders-1   | ``),
    the other services' ERROR lines around the crash. Behind the prefix the crash was not
    a crash's kind of line, so the first other services' errors took its place, and its
    trace, unread, was not read on: with 2,000 lines after it, `recall --error` asked the
    inventory service's ``Stock sync failed`` and gave its fix (qa-s70b F8)."""
    root_id = remember_root_and_middle_fixes(store)
    root = next(line for line in SPRING_STARTUP_FAILURE if "PSQLException" in line)
    for trace in (SPRING_STARTUP_FAILURE, spring_failure_with_causes(5, 70)):
        lines = [
            *(f"inventory-1 | {line}" for line in other_services(4_000)),
            *(f"orders-1    | {line}" for line in trace),
            *(f"payments-1  | {line}" for line in other_services(3_000, 4_000)),
        ]
        log = "\n".join(lines) + "\n"
        window = log_window(log)
        bounded(window.text)
        assert f"orders-1    | {root}" in window.text
        query, first = recalled_first(project, log)
        assert query.startswith("Caused by: org.postgresql.util.PSQLException: Connection")
        assert first == root_id


def kubectl_prefixed(pod: str, lines: list[str], *, timestamps: bool, start: int = 0) -> list[str]:
    """``lines`` as ``kubectl logs --prefix`` prints them (``[pod/api-7d9f/api] ``), with
    ``--timestamps`` the kubelet's time (RFC 3339, nanoseconds) after the prefix."""
    container = pod.split("-")[0]
    return [
        f"[pod/{pod}/{container}] "
        + (f"2024-05-02T09:15:{i % 60:02d}.{i * 7_919 % 10**9:09d}Z " if timestamps else "")
        + line
        for i, line in enumerate(lines, start)
    ]


def test_a_spring_trace_in_kubectl_logs_is_read_to_its_root_cause(
    store: MemoryStore, project: Path
) -> None:
    """``kubectl logs -l app=shop --prefix`` (and ``--timestamps``): each line behind its
    pod's prefix (``[pod/api-7d9f/api] ``) and the kubelet's time. Behind them the crash was
    no crash's kind of line and its frames did not go on with its trace: with 3,000 other
    pods' lines after it, `recall --error` asked the inventory's ``Stock sync failed``."""
    root_id = remember_root_and_middle_fixes(store)
    root = next(line for line in SPRING_STARTUP_FAILURE if "PSQLException" in line)
    for trace in (SPRING_STARTUP_FAILURE, spring_failure_with_causes(5, 70)):
        for timestamps in (False, True):
            lines = [
                *kubectl_prefixed("inventory-5c8b", other_services(4_000), timestamps=timestamps),
                *kubectl_prefixed("api-7d9f", trace, timestamps=timestamps),
                *kubectl_prefixed(
                    "payments-66f1", other_services(3_000, 4_000), timestamps=timestamps
                ),
            ]
            log = "\n".join(lines) + "\n"
            window = log_window(log)
            bounded(window.text)
            assert root in window.text, (timestamps, window.parts)
            asked = error_recall_queries(window.text)[0][0][0]
            assert asked.startswith("Caused by: org.postgresql.util.PSQLException: Connection")
    # (``kubectl logs --timestamps`` of one pod, no prefix: the time alone before each line)
    lines = [*other_services(4_000), *spring_failure_with_causes(5, 70), *other_services(3_000)]
    timed = "\n".join(
        line.split("] ", 1)[1] for line in kubectl_prefixed("api-7d9f", lines, timestamps=True)
    )
    assert root in log_window(timed).text
    query, first = recalled_first(project, log)
    assert query.startswith("Caused by: org.postgresql.util.PSQLException: Connection")
    assert first == root_id


def postgres_lines(n: int, start: int = 0) -> list[str]:
    """``n`` lines of a PostgreSQL container's log (connections it received and refused)."""
    return [
        f"2024-05-02 09:15:{i % 60:02d}.{i % 1000:03d} UTC [{60 + i}] LOG:  connection received: "
        f"host=10.0.3.{i % 200} port={40_000 + i}"
        for i in range(start, start + n)
    ]


def test_a_trace_is_read_on_past_other_services_lines_between_its_frames(
    store: MemoryStore, project: Path
) -> None:
    """``docker compose logs`` (and ``kubectl logs -l … --prefix``) interleave the services'
    lines: the database's lines between the api's frames (``api-1  | \\tat …``) ended the
    api's trace at the first of them, so a long trace was not read on to its root cause
    (recall --error asked its top exception or a middle ``Caused by``). A trace's frames
    under one prefix are read on past other prefixes' lines, and its part ends with its own
    last line."""
    root_id = remember_root_and_middle_fixes(store)
    root = next(line for line in SPRING_STARTUP_FAILURE if "PSQLException" in line)
    for trace in (SPRING_STARTUP_FAILURE, spring_failure_with_causes(5, 70)):
        db = iter(postgres_lines(1_000))
        lines = [f"inventory-1 | {line}" for line in other_services(4_000)]
        for i, line in enumerate(trace):
            lines.append(f"orders-1    | {line}")
            if i % 7 == 3:
                lines.append(f"db-1        | {next(db)}")
        lines += [f"payments-1  | {line}" for line in other_services(3_000, 4_000)]
        log = "\n".join(lines) + "\n"
        window = log_window(log)
        bounded(window.text)
        assert f"orders-1    | {root}" in window.text, window.parts
        assert error_recall_queries(window.text)[0][0][0].startswith(
            "Caused by: org.postgresql.util.PSQLException: Connection"
        )
        if trace is SPRING_STARTUP_FAILURE:  # (read whole: its part ends with its last line)
            last = "orders-1    | \t... 52 common frames omitted"
            assert any(part.endswith(last) for part in window.text.split("\n\n")), window.parts
    kube = [
        *kubectl_prefixed("inventory-5c8b", other_services(4_000), timestamps=True),
        *kubectl_prefixed("api-7d9f", spring_failure_with_causes(5, 70), timestamps=True),
        *kubectl_prefixed("payments-66f1", other_services(3_000, 4_000), timestamps=True),
    ]
    for i in range(4_003, 4_000 + 585, 5):  # (another pod's lines among the api's)
        kube.insert(i, kubectl_prefixed("db-0", postgres_lines(1, i), timestamps=True)[0])
    query, first = recalled_first(project, "\n".join(kube) + "\n")
    assert query.startswith("Caused by: org.postgresql.util.PSQLException: Connection")
    assert first == root_id


def test_the_hooks_bounds_read_a_long_trace_s_root_cause_before_other_errors_context() -> None:
    """The hooks read a log in smaller parts (:data:`~kenning.hooks.claude_code.
    PROMPT_LOG_BOUNDS`, ``TOOL_LOG_BOUNDS``): the errors' own lines took all the middle's
    characters before a long trace was read on, so a Spring crash among other services'
    ERROR lines had its root cause read by neither hook's bounds in some logs (the tool-failure
    hook's in most: asked the top UnsatisfiedDependencyException). A crash's lines are read
    first, and the room its root cause's part takes is kept from the other errors' lines."""
    from kenning.hooks.claude_code import PROMPT_LOG_BOUNDS, TOOL_LOG_BOUNDS

    root = next(line for line in SPRING_STARTUP_FAILURE if "PSQLException" in line)
    wide = []  # (~240 frames a cause, none omitted)
    for line in SPRING_STARTUP_FAILURE:
        more = 240 * line.startswith(("org.", "Caused by"))
        wide += [line, *spring_frames(more, "org.springframework.beans.factory.support")]
    traces = (SPRING_STARTUP_FAILURE, spring_failure_with_causes(5, 70), wide)
    for trace in (*traces, spring_failure_with_causes(12, 120)):
        for before, after in ((4_000, 3_000), (300, 300), (0, 3_000)):
            log = "\n".join([*other_services(before), *trace, *other_services(after, 4_000)])
            for bounds in (PROMPT_LOG_BOUNDS, TOOL_LOG_BOUNDS):
                window = log_window(log, bounds)
                assert root in window.text, (len(trace), before, after, bounds, window.parts)
                assert len(window.text) <= bounds.whole_max_chars
                asked = error_recall_queries(window.text)[0][0][0]
                assert asked.startswith("Caused by: org.postgresql.util.PSQLException: Conn")


def test_a_caused_by_further_below_its_error_than_a_trace_is_read_is_still_read() -> None:
    """A reactive stack's trace (Reactor, WebFlux) has 1,000-2,000 frames a cause: its
    ``Caused by`` lines are further below its first error than a trace is read on
    (``trace_lines``: 1,000 for the commands, 300-400 for the hooks). Such a ``Caused by``
    is read as an error of its own (its frames above and below it), and the root cause, the
    last, is read and asked by every reader's bounds, before the other services' errors."""
    from kenning.hooks.claude_code import PROMPT_LOG_BOUNDS, TOOL_LOG_BOUNDS

    root = next(line for line in SPRING_STARTUP_FAILURE if "PSQLException" in line)
    middle = [line for line in SPRING_STARTUP_FAILURE if line.startswith("Caused by")][:-1]
    for frames in (400, 2_000):
        trace = [*SPRING_STARTUP_FAILURE[:3], *spring_frames(frames, "reactor.core.publisher")]
        for cause in middle:
            trace += [cause, *spring_frames(frames, "reactor.core.publisher")]
        trace += [root, *spring_frames(24, "org.postgresql.core.v3"), "\t... 52 common frames"]
        for before, after in ((4_000, 3_000), (0, 3_000)):
            log = "\n".join([*other_services(before), *trace, *other_services(after, 4_000)])
            for bounds in (BOUNDS, PROMPT_LOG_BOUNDS, TOOL_LOG_BOUNDS):
                window = log_window(log, bounds)
                assert root in window.text, (frames, before, bounds, window.parts)
                asked = error_recall_queries(window.text)[0][0][0]
                assert asked.startswith("Caused by: org.postgresql.util.PSQLException: Conn")


def test_an_error_just_above_a_crash_does_not_read_its_trace_again() -> None:
    """A crash's lines are read before the other errors' (so that its root cause is read):
    an error logged a hundred lines above it then read its 200 lines on into the crash's
    trace, read on again from there with the room counted twice, and looked for its
    ``Caused by`` lines a second time (a crash followed by 100,000 indented lines: 0.09 s ->
    0.16-0.31 s). An error's lines stop where another part's start."""
    lines = [*other_services(300), "java.lang.IllegalStateException: boom"]
    log = "\n".join([*lines, *(f"  k{i}: v" for i in range(100_000)), *other_services(300)])
    window = log_window(log)
    # (its trace read on to its 1,000 lines less the other errors' own lines, as before the
    # crash's were read first: 1,039 with the room counted twice)
    assert window.parts[0] == (1, 1_134)


def test_a_python_traceback_in_a_long_log_is_read_from_its_first_line() -> None:
    """A line's kind is its shape with what varies aside; a run of six hex letters inside a
    word was taken for what varies, so "Traceback (most recent call last):" was
    "Tr#k (…)", not a crash's line: a long log's Python crash was read only by its last
    lines, never from the program's first frame (with any bounds, behind other services'
    errors). A hex run is set aside when it is a word of its own."""
    from kenning.hooks.claude_code import PROMPT_LOG_BOUNDS, TOOL_LOG_BOUNDS

    root = "RecursionError: maximum recursion depth exceeded while calling a Python object"
    for depth in (20, 400):
        frames = ['  File "/app/worker/main.py", line 12, in <module>', "    run_jobs()"]
        for i in range(depth):
            frames += [
                f'  File "/app/worker/jobs.py", line {40 + i % 7}, in step_{i % 5}',
                f"    return step_{(i + 1) % 5}(job)",
            ]
        header = "Traceback (most recent call last):"
        crash = ["2026-12-06T01:20:00Z ERROR worker crashed", header, *frames, root]
        for before, after in ((4_000, 3_000), (300, 300)):
            log = "\n".join([*other_services(before), *crash, *other_services(after, 4_000)])
            for bounds in (BOUNDS, PROMPT_LOG_BOUNDS, TOOL_LOG_BOUNDS):
                window = log_window(log, bounds)
                assert header in window.text, (depth, before, bounds, window.parts)
                assert "/app/worker/main.py" in window.text, (depth, before, bounds)
                assert root in window.text
                assert error_recall_queries(window.text)[0][0] == (root, True)


def python_chain(frames: list[int], during: bool) -> tuple[list[str], str, str]:
    """A Python chain as a service logs it: a traceback of ``frames[k]`` frames for each
    error, the root cause's first (psycopg2's refused connection) and the crash's last,
    Python's line between each two (``raise … from``'s or ``During handling …``'s); with
    the root cause's error and the crash's."""
    root = (
        'psycopg2.OperationalError: connection to server at "db" (10.0.0.5), port 5432 '
        "failed: Connection refused"
    )
    crash = "RuntimeError: could not start the app"
    errors = [root, "app.db.DatabaseUnavailable: the database did not answer", crash]
    errors = [root, *errors[-(len(frames) - 1) :]]
    between = (
        "During handling of the above exception, another exception occurred:"
        if during
        else "The above exception was the direct cause of the following exception:"
    )
    lines = ["2026-12-06T01:20:00Z ERROR app crashed"]
    for k, (n, error) in enumerate(zip(frames, errors, strict=True)):
        if k:
            lines += ["", between, ""]
        lines.append("Traceback (most recent call last):")
        for i in range(n):
            lines += [
                f'  File "/app/level{k}/mod{i % 9}.py", line {10 + i % 50}, in f{i % 13}',
                f"    return f{(i + 1) % 13}(x)",
            ]
        lines.append(error)
        if k == 0:  # (psycopg2's message goes on, under a tab)
            lines.append("\tIs the server running on that host and accepting TCP/IP connections?")
    return lines, root, crash


def test_a_long_python_chain_is_read_to_its_crash_and_its_root_cause() -> None:
    """A Python chain among other services' errors: its traceback was read on while its
    lines were indented, so its part ended at the last frame above an exception's line. Of
    a chain whose later tracebacks are long (300 frames, or 150 each), the crash's own line
    (``RuntimeError: could not start the app``, the last) was not read: its root cause was
    asked as the signature and the crash was not asked at all. An exception's line after
    its frames and the chain's lines go on with the trace (and past its part, the chain's
    errors are read, the crash's first, as Java's ``Caused by`` lines are): the crash is
    asked, and its root cause is a fallback, with every reader's bounds."""
    from kenning.hooks.claude_code import PROMPT_LOG_BOUNDS, TOOL_LOG_BOUNDS

    shapes = ([5, 300], [30, 30, 30], [400, 100, 10], [150, 150, 150])
    for k, frames in enumerate(shapes):
        chain, root, crash = python_chain(frames, during=k % 2 == 1)
        for before, after in ((4_000, 3_000), (300, 300)):
            log = "\n".join([*other_services(before), *chain, *other_services(after, 4_000)])
            for bounds in (BOUNDS, PROMPT_LOG_BOUNDS, TOOL_LOG_BOUNDS):
                window = log_window(log, bounds)
                assert root in window.text and crash in window.text, (frames, before, bounds)
                assert len(window.text) <= bounds.whole_max_chars
                queries, fallbacks = error_recall_queries(window.text)
                assert queries[0] == (crash, True), (frames, before, bounds, window.parts)
                assert (root, True) in fallbacks, (frames, before, bounds, window.parts)
