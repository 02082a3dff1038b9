"""Recall queries from a PR, a plan and an error; raw diffs refused."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from kenning.errors import UserInputError
from kenning.querybuild import (
    ERROR_QUERY_MAX_CHARS,
    PLAN_QUERY_MAX_CHARS,
    PR_QUERY_MAX_CHARS,
    errors_in_sentence,
    errors_on_line,
    file_categories,
    is_diff,
    queries_from_error,
    query_from_error,
    query_from_plan,
    query_from_pr,
    reject_diff,
)
from tests import chained_errors
from tests.case_table import each_case

# --------------------------------------------------------------------------------------------
# PR
# --------------------------------------------------------------------------------------------


def test_pr_body_first_300_chars_at_word_boundary() -> None:
    body = "This PR fixes the flaky login test. " * 20
    query = query_from_pr("Fix login", body, ["src/login.py"])
    assert len(query) <= PR_QUERY_MAX_CHARS
    flat = " ".join(body.split())
    assert flat.startswith(query)
    assert flat[len(query)] == " "
    assert "Fix login" not in query  # the body wins; the title is only the fallback


def test_pr_short_body_is_used_whole_and_flattened() -> None:
    assert (
        query_from_pr("t", "Adds\n\nWAL   mode\tto the store.", []) == "Adds WAL mode to the store."
    )


def test_pr_body_that_is_only_a_template_comment_falls_back() -> None:
    body = "<!-- Describe your change here -->\n\n"
    assert query_from_pr("Bump deps", body, ["package.json"]) == (
        "Bump deps — config — package.json"
    )


def test_pr_fallback_title_categories_top3_basenames() -> None:
    files = [
        "src/auth/login.py",
        "tests/test_login.py",
        "src/auth/session.py",
        "src/auth/login.py",
        ".github/workflows/ci.yml",
        "README.md",
    ]
    query = query_from_pr("Fix session expiry", "", files)
    assert query == (
        "Fix session expiry — python, tests, ci, docs — login.py, test_login.py, session.py"
    )


def test_pr_file_names_reach_the_query_without_what_a_terminal_obeys() -> None:
    """A PR's changed files are named by whoever wrote the PR: a file named with an OSC
    title sequence, a bidi override or variation selectors was printed as it was by
    ``kenning query pr`` (and sent to recall), while the title and body had them left out.
    The names are flattened as the title is; the diff's own file names too."""
    files = ["src/a\x1b]0;pwned\x07.py", "src/b\u202egnp.py", "src/c\ufe0f\U000e0101.py"]
    query = query_from_pr("Fix it", "", files)
    assert query == "Fix it — python — a.py, bgnp.py, c.py", query
    diff = "diff --git a/x\x1b[2J.py b/x\x1b[2J.py\n--- a/x\x1b[2J.py\n+++ b/x\x1b[2J.py\n@@ -1 +1 @@\n-a\n+b\n"
    assert "\x1b" not in query_from_pr("Fix it", diff, [])


def test_pr_fallback_without_files_is_the_title() -> None:
    assert query_from_pr("  Refactor   the cache ", "   ", []) == "Refactor the cache"


def test_pr_fallback_is_capped() -> None:
    query = query_from_pr("word " * 100, "", ["a.py"])
    assert len(query) <= PR_QUERY_MAX_CHARS


def test_pr_with_nothing_is_a_user_error() -> None:
    with pytest.raises(UserInputError):
        query_from_pr("", "", [])


@each_case(
    ("path", "expected"),
    [
        ("tests/test_store.py", ["tests", "python"]),
        ("src/kenning/store.py", ["python"]),
        ("web/src/App.test.tsx", ["tests", "typescript"]),
        ("pkg/server/handler_test.go", ["tests", "go"]),
        ("docs/guide.md", ["docs"]),
        ("README.rst", ["docs"]),
        ("pyproject.toml", ["config"]),
        ("config/settings.yaml", ["config"]),
        ("Dockerfile", ["config"]),
        (".github/workflows/ci.yml", ["ci"]),
        ("./.gitlab-ci.yml", ["ci"]),
        ("scripts/deploy.sh", ["shell"]),
        ("src/lib.rs", ["rust"]),
        ("assets/logo.png", []),
    ],
)
def test_file_categories(path: str, expected: list[str]) -> None:
    assert file_categories([path]) == expected


def test_file_categories_most_frequent_first() -> None:
    files = ["docs/a.md", "src/a.py", "src/b.py", "src/c.py", "docs/b.md"]
    assert file_categories(files) == ["python", "docs"]


# --------------------------------------------------------------------------------------------
# Plan
# --------------------------------------------------------------------------------------------

PLAN = textwrap.dedent(
    """\
    ---
    title: Cache plan
    status: draft
    ---

    # Plan: response cache

    Some preamble that is not the overview.

    ## Overview

    Add a read-through cache in front of the pricing API so that
    repeated quotes do not hit the upstream service.

    ```markdown
    ## Not a heading (inside a code block)
    ```

    ## Steps

    1. Add the cache.
    """
)


def test_plan_uses_overview_section() -> None:
    query = query_from_plan(PLAN)
    assert query.startswith("Add a read-through cache in front of the pricing API")
    assert "preamble" not in query
    assert "Steps" not in query and "Add the cache." not in query
    assert "Not a heading" in query  # code-block text stays, fence markers do not
    assert "```" not in query


@each_case("heading", ["# Overview", "### Overview", "## overview", "## Overview:"])
def test_plan_overview_heading_variants(heading: str) -> None:
    text = f"# Plan\n\nintro\n\n{heading}\n\nThe real overview.\n\n## Next\n\nx"
    assert query_from_plan(text) == "The real overview."


def test_plan_fallback_first_500_chars_without_frontmatter() -> None:
    body = " ".join(f"token{i}" for i in range(300))
    query = query_from_plan(f"---\ntitle: x\n---\n{body}")
    assert len(query) <= PLAN_QUERY_MAX_CHARS
    assert query.startswith("token0 token1")
    assert body.startswith(query) and body[len(query)] == " "
    assert "title" not in query


def test_plan_empty_overview_falls_back_to_body() -> None:
    text = "# Plan\n\n## Overview\n\n## Steps\n\nDo x."
    assert query_from_plan(text) == "# Plan ## Overview ## Steps Do x."


def test_plan_long_overview_is_capped() -> None:
    text = "## Overview\n\n" + "word " * 300
    assert len(query_from_plan(text)) <= PLAN_QUERY_MAX_CHARS


def test_empty_plan_is_a_user_error() -> None:
    with pytest.raises(UserInputError):
        query_from_plan("   \n")


# --------------------------------------------------------------------------------------------
# Error
# --------------------------------------------------------------------------------------------

TRACEBACK = textwrap.dedent(
    """\
    Traceback (most recent call last):
      File "/srv/app/jobs.py", line 88, in run
        self.db.execute(sql)
      File "/srv/app/db.py", line 12, in execute
        return self.conn.execute(sql)
    sqlite3.OperationalError: database is locked
    """
)


def test_error_query_is_the_signature_not_the_trace() -> None:
    query = query_from_error(TRACEBACK)
    assert query == "sqlite3.OperationalError: database is locked"
    assert "Traceback" not in query and "File" not in query


def test_error_query_from_huge_log_is_capped_and_one_line() -> None:
    raw = "\n".join(f"2026-01-01T10:00:{i % 60:02d}Z INFO step {i}" for i in range(500))
    raw += "\nERROR: " + "disk full " * 100
    query = query_from_error(raw)
    assert len(query) <= ERROR_QUERY_MAX_CHARS
    assert "\n" not in query
    assert query.startswith("ERROR: disk full")


def test_error_query_of_nothing_is_a_user_error() -> None:
    with pytest.raises(UserInputError):
        query_from_error("  ")


# --------------------------------------------------------------------------------------------
# Diffs
# --------------------------------------------------------------------------------------------

GIT_DIFF = textwrap.dedent(
    """\
    diff --git a/src/app.py b/src/app.py
    index 3b18e51..a9c2f0d 100644
    --- a/src/app.py
    +++ b/src/app.py
    @@ -1,3 +1,4 @@
     import os
    +import sys
    """
)


@each_case(
    "text",
    [
        pytest.param(GIT_DIFF, id="git"),
        pytest.param("--- a/x.py\n+++ b/x.py\n-old\n+new\n", id="headers"),
        pytest.param("--- old.txt\t2026-01-01\n+++ new.txt\t2026-01-02\n", id="diff-u"),
        pytest.param("some context\n@@ -10,2 +10,3 @@ def f():\n-    a\n+    b\n", id="hunk"),
        pytest.param("@@ -1 +1 @@\n-a\n+b", id="hunk-no-counts"),
    ],
)
def test_diffs_are_detected_and_refused(text: str) -> None:
    assert is_diff(text)
    with pytest.raises(UserInputError, match="diff") as info:
        reject_diff(text)
    message = str(info.value)
    assert "instead" in message and "error message" in message


@each_case(
    "text",
    [
        "",
        "why does the login test flake",
        "---\ntitle: plan\n---\n# Plan",
        "Use --- as a separator and +++ for emphasis",
        "TypeError: a - b is not a function",
        "bullet list:\n- one\n- two\n+ three",
    ],
)
def test_non_diffs_pass(text: str) -> None:
    assert not is_diff(text)
    reject_diff(text)  # does not raise


DIFF = (
    "diff --git a/src/db.py b/src/db.py\nindex 83db48f..bf269f4 100644\n--- a/src/db.py\n"
    "+++ b/src/db.py\n@@ -1,3 +1,3 @@\n-conn = connect(timeout=5)\n+conn = connect(timeout=30)\n"
)


def test_a_diff_never_becomes_a_query() -> None:
    """A built query is passed to recall, which refuses a raw diff: the builders leave a
    pasted diff out (a PR body keeps its description, and the files the diff changes stand
    in for --file), and a plan or an error that is only a diff is refused, saying so."""
    assert query_from_pr("Raise timeout", DIFF) == "Raise timeout — python — db.py"
    described = "Raise the DB timeout so that nightly jobs stop failing.\n\n" + DIFF
    assert query_from_pr("Raise timeout", described) == (
        "Raise the DB timeout so that nightly jobs stop failing."
    )
    for build in (query_from_plan, query_from_error):
        with pytest.raises(UserInputError, match="raw diff"):
            build(DIFF)
    assert query_from_plan("## Overview\nMove the cache to Redis.\n\n" + DIFF) == (
        "Move the cache to Redis."
    )


def test_pr_and_plan_queries_carry_no_terminal_sequences_or_invisible_text() -> None:
    """A PR body and a plan are untrusted text: the query printed for the shell (and sent to
    the model) keeps their words, not their colours, window titles or bidi overrides."""
    body = "Fixes the cache \033]0;owned\007\033[2J\033[31mwarning\033[0m and \u202egnirts\u200b\n"
    for query in (
        query_from_pr("Cache fix", body),
        query_from_plan(body),
        query_from_plan(f"## Overview\n\n{body}"),
    ):
        assert query == "Fixes the cache warning and gnirts"
    assert query_from_pr("Cache \033[31mfix\x9b2J", "") == "Cache fix2J"


@each_case(
    ("query", "asked"),
    [
        # a pasted trace is recalled by its one signature
        (
            'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n'
            "    main()\nKeyError: 'user'",
            ["KeyError: 'user'"],
        ),
        (
            "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\nnpm "
            "ERR! Found: react@18.2.0",
            ["npm ERR! code ERESOLVE"],
        ),
        # (a line a tool printed with words before its error is the paste's: Rust's panic
        # message, Java's thread, vite's prefix)
        (
            "thread 'main' panicked at src/main.rs:9:38:\ncalled `Result::unwrap()` on an "
            '`Err` value: Custom { kind: UnexpectedEof, error: "failed to fill whole buffer" }',
            [
                "thread 'main' panicked at src/main.rs:9:38: called `Result::unwrap()` on an "
                '`Err` value: Custom { kind: UnexpectedEof, error: "failed to fill whole '
                'buffer" }'
            ],
        ),
        (
            'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space\n\tat '
            "java.util.Arrays.copyOf(Arrays.java:3332)\n\tat com.acme.Main.main(Main.java:5)",
            ['Exception in thread "main" java.lang.OutOfMemoryError: Java heap space'],
        ),
        # ... and a line whose words before its error are a tool's: go test's file and line,
        # a log's stamp and level, a report's words (qa-s60 F4, F5)
        (
            "=== RUN   TestLogin\n--- FAIL: TestLogin (0.00s)\n    login_test.go:25: unexpected "
            "error: open testdata/users.json: no such file or directory\nFAIL\nFAIL\texample.com/"
            "app\t0.004s",
            ["unexpected error: open testdata/users.json: no such file or directory"],
        ),
        (
            'Traceback (most recent call last):\n  File "w.py", line 3, in <module>\nKeyError: '
            "'user'\n2024-01-15 10:00:01,456 ERROR worker: job 43 failed: ValueError: bad value\n"
            "WARNING:root:retrying after error: ConnectionError: timed out",
            ["KeyError: 'user'"],
        ),
        # ... and each error its lines tell in a sentence, the signature's too (qa-s59c F3)
        (
            "run 1: Error: Process completed with exit code 137.\nrun 2: Error: Process "
            "completed with exit code 143.",
            [
                "Error: Process completed with exit code 137",
                "Error: Process completed with exit code 143",
            ],
        ),
        (
            'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n'
            "    main()\nKeyError: 'user'\nthen the api says ValueError: bad value",
            ["KeyError: 'user'", "ValueError: bad value"],
        ),
        # (a person's words may name an error, a file or a version: qa-s60b N2, qa-s60c M2)
        (
            "the worker fails with KeyError: 'user'\nand the second error, in views.py:42 on "
            "Django 5.0: ValueError: bad value",
            ["KeyError: 'user'", "ValueError: bad value"],
        ),
        # (Next.js' "- error …" lines tell an error each: qa-s60d, both fixes were lost when
        # they were read as a tool's report)
        (
            "ready - started server on 0.0.0.0:3000, url: http://localhost:3000\n- error "
            "TypeError: Cannot read properties of undefined (reading 'id')\n- error Error: "
            "connect ECONNREFUSED 127.0.0.1:5432",
            [
                "error Error: connect ECONNREFUSED 127.0.0.1:5432",
                "TypeError: Cannot read properties of undefined (reading 'id')",
                "Error: connect ECONNREFUSED 127.0.0.1:5432",
            ],
        ),
        # (code in backticks, quotes or parentheses is a person's too)
        (
            "the worker fails with KeyError: 'user'\nand `make test` fails with "
            "ModuleNotFoundError: No module named 'yaml'",
            ["ModuleNotFoundError: No module named 'yaml'", "KeyError: 'user'"],
        ),
        # a query of one line is not a paste
        ("the worker fails with KeyError: 'user'", ["the worker fails with KeyError: 'user'"]),
    ],
)
def test_a_pasted_error_is_asked_by_its_signature_and_the_errors_its_lines_tell(
    query: str, asked: list[str]
) -> None:
    from kenning.querybuild import queries_of_pasted_error

    assert [q for q, _ in queries_of_pasted_error(query, None)] == asked


@each_case(
    ("line", "told"),
    [
        (
            "2024-05-02 09:14:02,100 WARNING importer.http: retrying after error: "
            "ConnectionError: timed out",
            ["ConnectionError: timed out"],
        ),
        ("WARNING:app:retrying: ConnectionError: x", ["retrying: ConnectionError: x"]),
        ("[2024-05-02 09:14:02] INFO worker: job 4 failed: KeyError: 'user'", ["KeyError: 'user'"]),
        # read after its log prefix: Ruby's "W, [… #4242]  WARN -- :" was a sentence's words,
        # its "W" an error, and the class lost its namespace
        (
            "W, [2024-05-02T09:14:01.000000 #4242]  WARN -- : Redis::CannotConnectError: Error "
            "connecting to Redis on localhost:6379 (Errno::ECONNREFUSED)",
            [
                "Redis::CannotConnectError: Error connecting to Redis on localhost:6379 "
                "(Errno::ECONNREFUSED)"
            ],
        ),
    ],
)
def test_a_log_s_line_below_an_error_s_level_is_read_whole(line: str, told: list[str]) -> None:
    # for the paste's signature to read its level (a crash logged after it is the error);
    # the errors it tells are asked after it
    assert errors_on_line(line) == ("", [line, *told])


@each_case(
    "line",
    [
        "2024-05-02 09:14:06 ERROR importer.db: giving up: KeyError: 'user'",
        "our logs: 10:00:01 ERROR c.a.Foo - Exception: boom 10:00:02 ERROR c.a.Bar - "
        "IllegalArgumentException: bad arg",
        "the build fails with KeyError: 'user' when I log in",
    ],
)
def test_other_lines_tell_their_errors_as_a_sentence_does(line: str) -> None:
    words, errors = errors_on_line(line)
    assert (words, errors) == errors_in_sentence(line)
    assert words and errors[0].startswith(("KeyError: 'user'", "Exception: boom")), errors


def test_the_errors_a_log_s_warnings_name_are_its_fallbacks() -> None:
    """qa-s61c F2: the cause a crash gives up on is often logged at WARNING, retried; each
    error the warnings above the crash name is one fallback query, nearest the crash first
    (qa-s62 F2: three harmless startup warnings took every place), from its exception on and
    without the retry's words (qa-s62 F3: found by words at 0.87, not exactly), one for a
    retry warned of three times or against three hosts, none for the crash's own error, one
    that names none (``app: ERROR``), nor a warning after the crash (qa-s62 F8)."""
    from kenning.querybuild import (
        MOST_WARNED_ASKED,
        WARNED_LINES_READ,
        error_recall_queries,
        fallbacks_of_pasted_error,
        warned_errors,
    )

    cause = 'psycopg.OperationalError: connection to server at "127.0.0.1", port 5432 failed'
    log = "\n".join(
        [
            "2024-05-02 09:14:01,220 INFO importer: starting",
            "2024-05-02 09:14:01,250 WARNING importer: plugins: ImportError: cannot import "
            "name 'x' from 'y'",
            "2024-05-02 09:14:01,300 WARNING importer: cache dir missing, using /tmp",
            "2024-05-02 09:14:01,400 WARNING app: ERROR",
            *(
                f"2024-05-02 09:14:0{i},100 WARNING importer.db: connect failed: {cause}; "
                f"retrying ({i}/3)"
                for i in (2, 4, 6)
            ),
            *(
                f"2024-05-02 09:14:07,{i}00 WARNING app.cache: redis.exceptions.ConnectionError:"
                f" Error 111 connecting to 10.0.0.{i}:6379."
                for i in (1, 2, 3)
            ),
            "ValueError: a traceback's line has no level",
            "2024-05-02 09:14:08,220 ERROR importer: RuntimeError: database not ready",
            "2024-05-02 09:14:09,000 WARNING importer: shutdown: BrokenPipeError: [Errno 32] "
            "Broken pipe",
        ]
    )
    redis = "redis.exceptions.ConnectionError: Error 111 connecting to 10.0.0.3:6379."
    plugins = "ImportError: cannot import name 'x' from 'y'"
    assert warned_errors(log) == [redis, cause, plugins]
    # the crash's own error, warned of before (of another host): not asked again
    own = "redis.exceptions.ConnectionError: Error 111 connecting to 10.0.0.9:6379."
    assert warned_errors(log, {own}) == [
        cause,
        plugins,
    ]
    assert fallbacks_of_pasted_error(log, None)[:1] == [(redis, True)]
    assert fallbacks_of_pasted_error(log, False) == []  # not an error: no paste
    assert fallbacks_of_pasted_error(log.splitlines()[4], None) == []  # one line: no paste
    # what `kenning recall --error` asks of it: the log's error, and these as its fallbacks;
    # of one line, that line's error (an error given as one, not a paste)
    assert error_recall_queries(log) == (
        [("RuntimeError: database not ready", True)],
        [(redis, True), (cause, True), (plugins, True)],
    )
    assert error_recall_queries("2024-05-02 09:14:08,220 ERROR app: KeyError: 'user'") == (
        [("KeyError: 'user'", True)],
        [],
    )
    # two messages of one class are two errors, one refused connection to three hosts one
    # (qa-s62b G2); a handled error logged at DEBUG or INFO is none (G3); Hibernate's "SQL
    # Error: 0, SQLState: 08001" is no error of its own (G4)
    assorted = "\n".join(
        [
            "2024-05-02 09:14:01,000 DEBUG app.cache: stale entry ignored: "
            "json.decoder.JSONDecodeError: Expecting value",
            "2024-05-02 09:14:01,100 INFO app.tls: falling back after ssl.SSLError: [SSL] bad",
            "09:14:01.200 [main] WARN  o.h.e.j.s.SqlExceptionHelper - SQL Error: 0, SQLState: "
            "08001",
            *(
                f"2024-05-02 09:14:0{i},000 WARNING app.cache: ConnectionRefusedError: [Errno "
                f"111] Connect call failed ('10.0.0.{i}', 637{i})"
                for i in (2, 3, 4)
            ),
            "2024-05-02 09:14:05,000 WARNING app.orders: java.lang.IllegalStateException: "
            "order 7 is closed",
            "2024-05-02 09:14:06,000 ERROR app: java.lang.IllegalStateException: Failed to load "
            "ApplicationContext",
        ]
    )
    assert warned_errors(
        assorted, {"java.lang.IllegalStateException: Failed to load ApplicationContext"}
    ) == [
        "java.lang.IllegalStateException: order 7 is closed",
        "ConnectionRefusedError: [Errno 111] Connect call failed ('10.0.0.4', 6374)",
    ]
    # a Go error told in words, logfmt's (qa-s62c H1)
    go = (
        'time="2024-05-02T09:14:02Z" level=warning msg="connect failed" error="dial tcp '
        '127.0.0.1:5432: connect: connection refused" attempt=1\n'
        'time="2024-05-02T09:14:05Z" level=fatal msg="giving up after 3 attempts"'
    )
    assert warned_errors(go) == [
        "connect failed: dial tcp 127.0.0.1:5432: connect: connection refused"
    ]
    # the nearest WARNED_LINES_READ warnings above the crash are read (qa-s62c H8), INFO
    # lines between them not counted (qa-s62d J4)
    far = "\n".join(
        [
            "2024-05-02 09:14:01,000 WARNING app: cache: ValueError: far away",
            *(  # (each another message, its numbers aside)
                "2024-05-02 09:14:02,000 WARNING app: slow call "
                + "".join("abcdefghij"[int(digit)] for digit in f"{i:04d}")
                for i in range(WARNED_LINES_READ)
            ),
            *["2024-05-02 09:14:02,500 INFO app: GET /health 200"] * 1000,
            "2024-05-02 09:14:03,000 ERROR app: RuntimeError: gave up",
        ]
    )
    assert warned_errors(far) == []
    assert warned_errors(far.replace("WARNING app: slow call aaaa\n", "", 1)) == [
        "ValueError: far away"
    ]
    # a warning that names the ERROR level or uncaught exceptions in a sentence is none
    # (qa-s62d J5)
    chatty = (
        "2024-05-02 09:14:01,000 WARNING app.config: ERROR level logging is disabled for "
        "module payments, using WARNING\n"
        "2024-05-02 09:14:01,500 WARNING app: Uncaught exceptions in handlers will terminate "
        "the process in the next major version\n"
        "2024-05-02 09:14:03,000 ERROR app: RuntimeError: gave up"
    )
    assert warned_errors(chatty) == []
    # ... but one that tells a system call's error first is (qa-s62e K3), without its
    # logger's name (a fix stored for the error is its exact match)
    refused = chatty.replace("ERROR level logging is disabled for", "Connection refused by")
    assert warned_errors(refused) == ["Connection refused by module payments, using WARNING"]
    # ... not a client's going away, nor an error the warning says was handled (qa-s62f L6)
    for handled in (
        "WARNING gunicorn: Broken pipe while sending response to 10.0.0.9",
        "WARNING app.ws: Connection reset by peer while reading the request",
        "WARN metrics: No route to host for statsd collector, metrics disabled",
        "WARNING app.cache: Permission denied reading optional cache, continuing without it",
        "WARNING app: cache unavailable: redis.exceptions.ConnectionError: Error 111, falling "
        "back to the database",
        "WARNING app.plugins: skipping plugin x: ImportError: cannot import name 'y'",
        # ... said after it in other ways, or first, or in a structured line's message
        # beside its error field (qa-s63c P2)
        "WARNING app.plugins: ModuleNotFoundError: No module named 'foo', skipping",
        "WARNING app.plugins: ModuleNotFoundError: No module named 'foo'; ignoring",
        "WARNING app.cache: ConnectionError: Error 111. Falling back to in-memory cache",
        "WARNING app.cache: ConnectionError: Error 111 - falling back to in-memory cache",
        "WARNING app.cache: falling back to in-memory cache: ConnectionError: Error 111",
        "WARNING app.cache: ConnectionError: Error 111 (continuing without cache)",
        'level=warn msg="redis ping failed, cache disabled" err="dial tcp 10.0.0.7:6379: '
        'connect: connection refused"',
        '{"level": "warn", "msg": "redis unavailable, falling back to memory", "error": "dial '
        'tcp 10.0.0.7:6379: connect: connection refused"}',
        # ... or a state the clause after it ends on, with no copula, or first with a colon
        # (qa-s63e R6)
        "WARNING app.plugins: ImportError: No module named 'ujson'. Plugin disabled.",
        "WARNING app.sync: FileNotFoundError: [Errno 2] No such file or directory: 'a.csv' - "
        "skipped",
        "WARNING app.sync: OSError: [Errno 28] No space left on device - upload skipped",
        "WARNING app: Ignored: ConnectionResetError: [Errno 104] Connection reset by peer",
        # ... nor a client gone whatever the server's logger is called, nor nginx's (qa-s66b F9)
        "WARNING gunicorn.error: Broken pipe while sending response to 10.0.0.9",
        "[warn] 1234#0: *5 writev() failed (32: Broken pipe) while sending to client, client: "
        '10.0.0.9, server: _, request: "GET / HTTP/1.1"',
    ):
        crash = "2024-05-02 09:14:05,000 ERROR app: RuntimeError: boom"
        assert warned_errors(f"2024-05-02 09:14:01,000 {handled}\n{crash}") == [], handled
    # ... but words of the error's own message are no handling of it, nor is a retry
    # (qa-s63b N1: redis' "… are disabled, because …", a count of items skipped)
    misconf = "redis.exceptions.ResponseError: MISCONF Redis is unable to persist to disk"
    skipped = "requests.exceptions.ConnectionError: Max retries exceeded (3 items skipped)"
    for warning, cause in (
        (
            f"WARNING app.cache: write failed: {misconf}. Commands that may modify the data set"
            " are disabled, because of it; retrying (1/3)",
            misconf,
        ),
        (f"WARNING app.sync: fetch failed: {skipped}", skipped),
        # ... nor its own last sentence's or a dash's state, nor a first word's (qa-s63d Q2)
        (
            "WARNING app.auth: token refresh failed: AuthError: Invalid credentials. User "
            "account is disabled",
            "AuthError: Invalid credentials",
        ),
        (
            "WARNING app.gcp: google.api_core.exceptions.Forbidden: 403 Billing account is "
            "disabled. Billing is disabled",
            "app.gcp: google.api_core.exceptions.Forbidden: 403 Billing account is disabled. "
            "Billing is disabled",
        ),
        (
            "WARNING app.sync: requests.exceptions.HTTPError: 409 Client Error - request "
            "ignored by upstream",
            "requests.exceptions.HTTPError: 409 Client Error - request ignored by upstream",
        ),
        # ... and a retry's reset or broken pipe is its peer's going away (the database, an
        # upstream), told first as a system call's error is (qa-s63b N7)
        (
            "WARNING app.db: Connection reset by peer while reading from postgres at "
            "10.0.0.5:5432; retrying (1/3)",
            "Connection reset by peer while reading from postgres at 10.0.0.5:5432",
        ),
        (
            "WARNING worker: Broken pipe writing to upstream cache; will retry in 2s",
            "Broken pipe writing to upstream cache",
        ),
        # ... and an app's own client reset by its server is no client gone (qa-s66b F9)
        (
            "WARNING app.cache: redis client: Connection reset by peer",
            "app.cache: redis client: Connection reset by peer",
        ),
        # urllib3's retry warning, by the error it quotes (its words read as a retry's
        # tail whole, and nothing was asked: qa-s66b F9), an OS error's repr as a
        # traceback ends with it, a connection object's address left out
        (
            "WARNING urllib3.connectionpool: Retrying (Retry(total=2, connect=None, read=None,"
            " redirect=None, status=None)) after connection broken by 'ConnectionResetError("
            "104, 'Connection reset by peer')': /api/v1/items",
            "ConnectionResetError: [Errno 104] Connection reset by peer",
        ),
        (
            "WARNING urllib3.connectionpool: Retrying (Retry(total=4, connect=None, read=None,"
            " redirect=None, status=None)) after connection broken by 'ProtocolError('"
            "Connection aborted.', BrokenPipeError(32, 'Broken pipe'))': /upload",
            "BrokenPipeError: [Errno 32] Broken pipe",
        ),
        (
            "WARNING urllib3.connectionpool: Retrying (Retry(total=2, connect=None, read=None,"
            " redirect=None, status=None)) after connection broken by 'NewConnectionError('<"
            "urllib3.connection.HTTPConnection object at 0x7f3a2b1c>: Failed to establish a "
            "new connection: [Errno 111] Connection refused')': /api",
            "NewConnectionError('Failed to establish a new connection: [Errno 111] Connection "
            "refused')",
        ),
    ):
        log = f"2024-05-02 09:14:01,000 {warning}\n{crash}"
        assert warned_errors(log) == [cause], log
    # uvicorn's padded level, Django's day/month/year stamp (qa-s62 F5)
    uvicorn = (
        "WARNING:  connect failed: psycopg.OperationalError: connection refused\n"
        "ERROR:    Exception in ASGI application\nRuntimeError: database not ready"
    )
    assert warned_errors(uvicorn) == ["psycopg.OperationalError: connection refused"]
    django = (
        "[02/May/2024 09:14:03] WARNING [app.cache:12] redis.exceptions.ConnectionError: "
        "Error 111 connecting to localhost:6379.\n"
        "[02/May/2024 09:14:04] ERROR [app.views:88] RuntimeError: cache warmup failed"
    )
    assert warned_errors(django) == [
        "redis.exceptions.ConnectionError: Error 111 connecting to localhost:6379."
    ]
    # a Ruby exception in its namespace, after words or Sidekiq's context
    ruby = (
        "W, [2024-05-02T09:14:01.000000 #4242]  WARN -- : giving up: PG::ConnectionBad: "
        "connection refused\n"
        "2024-05-02T09:14:02.123Z pid=42 tid=2ab class=SyncJob jid=9f1 WARN: "
        "Redis::CannotConnectError: Error connecting to Redis on localhost:6379\n"
        "E, [2024-05-02T09:14:03.000000 #4242] ERROR -- : RuntimeError: boot failed"
    )
    assert warned_errors(ruby) == [
        "Redis::CannotConnectError: Error connecting to Redis on localhost:6379",
        "PG::ConnectionBad: connection refused",
    ]
    many = "\n".join(
        f"2024-05-02 09:14:02,100 WARNING app: call {i} failed: {'ABCDEFGH'[i]}Error: down"
        for i in range(MOST_WARNED_ASKED + 2)
    )
    assert len(warned_errors(many)) == MOST_WARNED_ASKED


@each_case(
    ("log", "cause"),
    [
        # logcat's level is its letter: an I line's handled timeout is no cause, a W line's is
        (
            "05-02 09:14:01.100  4242  4242 I OkHttp  : cache miss after "
            "java.net.SocketTimeoutException: timeout\n"
            "05-02 09:14:01.200  4242  4242 W System.err: java.net.UnknownHostException: "
            'Unable to resolve host "api.example.com"\n'
            "05-02 09:14:02.100  4242  4242 E AndroidRuntime: java.lang.IllegalStateException: "
            "no session",
            'java.net.UnknownHostException: Unable to resolve host "api.example.com"',
        ),
        # logrus' notice is below a warning's, as its debug and info are
        (
            'time="2024-05-02T09:14:01Z" level=notice msg="cache refresh skipped" '
            'error="dial tcp 10.0.0.5:6379: connect: connection refused"\n'
            'time="2024-05-02T09:14:01Z" level=warning msg="db ping failed" '
            'error="dial tcp 10.0.0.7:5432: i/o timeout"\n'
            'time="2024-05-02T09:14:02Z" level=fatal msg="startup failed" '
            'error="pq: database \\"app\\" does not exist"',
            "db ping failed: dial tcp 10.0.0.7:5432: i/o timeout",
        ),
        # a logfmt line under journald's short-iso prefix: its level read (it was not,
        # found with qa-s62e K4)
        (
            '2024-05-02T09:14:00+0000 web1 api[42]: level=info msg=cached error="open /tmp/c:'
            ' no such file or directory"\n2024-05-02T09:14:01+0000 web1 api[42]: level=warning'
            ' msg=retrying error="dial tcp 10.0.0.5:5432: connect: connection refused"\n'
            '2024-05-02T09:14:02+0000 web1 api[42]: level=error msg="gave up" error="database '
            'not ready"',
            "retrying: dial tcp 10.0.0.5:5432: connect: connection refused",
        ),
        # a JSON log's lines: zap's level names, pino's numbers (30 info, 40 warn, 50 error)
        (
            '{"level":"info","ts":1714641240.1,"msg":"cache miss","error":"redis: nil"}\n'
            '{"level":"warn","ts":1714641241.1,"msg":"retrying","error":"dial tcp '
            '127.0.0.1:5432: connect: connection refused"}\n'
            '{"level":"fatal","ts":1714641242.1,"msg":"startup failed","error":"database not '
            'ready"}',
            "dial tcp 127.0.0.1:5432: connect: connection refused",
        ),
        (
            '{"level":30,"time":1,"msg":"cache miss","err":{"type":"Error","message":"read '
            'ECONNRESET"}}\n{"level":40,"time":2,"msg":"retry","err":{"type":"Error",'
            '"message":"connect ECONNREFUSED 10.0.0.5:6379"}}\n{"level":50,"time":3,"msg":"boot'
            ' failed","err":{"type":"TypeError","message":"x is undefined"}}',
            "Error: connect ECONNREFUSED 10.0.0.5:6379",
        ),
    ],
    ids=["logcat", "logfmt-notice", "journald-logfmt", "zap-json", "pino"],
)
def test_a_warning_is_told_from_a_quieter_level_by_its_log_s_format(log: str, cause: str) -> None:
    """A line logged below a warning's level (its handled error is no crash's cause) is told
    by the level its format gives it (:func:`kenning.log_formats.read_log_line`), not by a
    level word somewhere in its prefix (logcat's ``I`` and logrus' ``notice`` were asked)."""
    from kenning.querybuild import warned_errors

    assert warned_errors(log) == [cause]


def test_a_java_exception_printed_under_a_warning_is_the_warning_s() -> None:
    """log4j and logback print a record's exception on the lines after its message, at the
    line's start: the exception under a WARN (a retry's) was read as a line of no level and
    never asked; it is the warning's, asked as a fallback after the crash's error, and an
    INFO record's exception (a handled one) is not."""
    from kenning.querybuild import error_recall_queries, warned_errors

    crash = "java.lang.IllegalStateException: database not ready after 3 attempts"
    log = "\n".join(
        [
            "2024-05-02 09:14:01.123 [main] WARN  c.e.db.Pool - connect failed, retrying",
            "java.net.ConnectException: Connection refused",
            "\tat java.base/sun.nio.ch.Net.connect0(Native Method)",
            "\tat com.example.db.Pool.open(Pool.java:42)",
            "Caused by: java.io.IOException: socket closed",
            "\t... 3 more",
            "2024-05-02 09:14:05.456 [main] ERROR c.e.App - Application run failed",
            crash,
            "\tat com.example.App.main(App.java:12)",
        ]
    )
    # (its cause first, nearest the crash, as a crash's root cause is its signature)
    assert error_recall_queries(log) == (
        [(crash, True)],
        [
            ("java.io.IOException: socket closed", True),
            ("java.net.ConnectException: Connection refused", True),
        ],
    )
    assert warned_errors(log.replace("WARN  c.e.db", "INFO  c.e.db")) == []
    # a Python traceback after a warning is no Java record's: its frames are not Java's
    python = (
        "WARNING:app.db:connect failed, retrying\nTraceback (most recent call last):\n"
        '  File "app/db.py", line 3, in open\nsocket.error: [Errno 111] Connection refused\n'
        "ERROR:app:database not ready\nRuntimeError: database not ready after 3 attempts"
    )
    assert "socket.error: [Errno 111] Connection refused" not in warned_errors(python)


def test_a_java_trace_s_causes_are_asked_under_an_error_s_record_not_a_handled_one() -> None:
    """A Java trace a logger prints under its record (logback: the exception on the lines
    after the message) is read as printed alone: under an ERROR record, its outer exception
    and middle cause are asked after its root; under INFO (a handled error) none is, and
    under WARN the warning's errors are asked as a warning's (the test above)."""
    from kenning.querybuild import chained_causes

    trace = chained_errors.JAVA_CAUSES.replace('Exception in thread "main" ', "")
    root = (
        "Caused by: java.io.FileNotFoundException: /etc/app/config.properties (No such file "
        "or directory)"
    )
    outer = "java.lang.IllegalStateException: could not start the app"
    middle = "Caused by: app.Main$ConfigException: could not load the config"
    error = f"2024-05-02 09:14:05.456 [main] ERROR c.e.App - Application run failed\n{trace}"
    assert chained_causes(error) == [root, outer, middle]
    assert chained_causes(error, {root}) == [outer, middle]
    assert chained_causes(error.replace("] ERROR c.e.App", "] INFO  c.e.App")) == []


def test_a_warning_s_error_indented_under_its_level_is_asked() -> None:
    """.NET's console log writes a record's message and exception indented under its
    ``warn:`` or ``fail:`` line: the exception under ``warn:`` is a warning's (asked as a
    fallback, it was not: its line has no level of its own), and Kestrel's harmless reset
    under a later ``warn:`` is not the crash (the ``fail:`` record's exception is)."""
    from kenning.querybuild import warned_errors
    from kenning.signatures import extract_error_signature

    redis = (
        "StackExchange.Redis.RedisConnectionException: It was not possible to connect to the "
        "redis server(s). UnableToConnect on localhost:6379/Interactive"
    )
    log = "\n".join(
        [
            "info: Microsoft.Hosting.Lifetime[0]",
            "      Now listening on: http://localhost:5000",
            "warn: App.Services.CacheService[0]",
            "      Redis unavailable, retrying",
            f"      {redis}",
            "         at StackExchange.Redis.ConnectionMultiplexer.ConnectImpl()",
            "fail: Microsoft.AspNetCore.Diagnostics.ExceptionHandlerMiddleware[1]",
            "      An unhandled exception has occurred while executing the request.",
            "      System.InvalidOperationException: Cache warmup failed",
            "         at App.Startup.Warmup()",
            "warn: Microsoft.AspNetCore.Server.Kestrel[0]",
            "      Connection reset: System.IO.IOException: Connection reset by peer",
        ]
    )
    assert warned_errors(log) == [redis]
    # ... pasted in a chat as a markdown code block, every line indented (qa-s63b N4)
    chat = "the app dies on start:\n\n" + "\n".join(f"    {line}" for line in log.splitlines())
    assert warned_errors(chat) == [redis]
    assert extract_error_signature(chat) == "System.InvalidOperationException: Cache warmup failed"
    # ... and a later warn: record's inner exception (" ---> …", under its outer one, which
    # has no level of its own) is that record's, not the crash (qa-s63c P1)
    inner = log + (
        "\n      System.IO.IOException: Unable to read data from the transport connection."
        "\n       ---> System.Net.Sockets.SocketException (104): Connection reset by peer"
    )
    assert warned_errors(inner) == [redis]
    # an info record's exception is a handled one
    assert warned_errors(log.replace("warn: App.Services", "info: App.Services")) == []


@each_case(
    ("line", "words", "error"),
    [
        ("pytest fails: No module named 'yaml'", "pytest fails", "No module named 'yaml'"),
        (
            "the app crashes on start with No module named 'yaml', can you fix it?",
            "the app crashes on start with",
            "No module named 'yaml'",
        ),
        ("No module named 'yaml' when I run it", "when I run it", "No module named 'yaml'"),
        (
            "the build says `undefined reference to `dlopen'`",
            "the build says",
            "undefined reference to `dlopen'",
        ),
        (
            "cargo build: unresolved import `tokio`. Help?",
            "cargo build",
            "unresolved import `tokio`",
        ),
        # a tool's line is read whole (ld's location before its message)
        (
            "/usr/bin/ld: main.o: in function `main': main.c:(.text+0x1a): undefined reference "
            "to `dlopen'",
            "",
            "/usr/bin/ld: main.o: in function `main': main.c:(.text+0x1a): undefined reference "
            "to `dlopen'",
        ),
    ],
)
def test_an_error_typed_without_its_class_is_told_in_a_sentence(
    line: str, words: str, error: str
) -> None:
    """qa-s69a F1: "pytest fails: No module named 'yaml'" was read as one error, the
    sentence's words and all, so its fingerprint was no missing module's: the fix stored for
    ``'requests'`` was not held as another name's, as it is when the message has its class."""
    assert errors_in_sentence(line) == (words, [error])


_PSYCOPG2_REFUSED = (
    'psycopg2.OperationalError: connection to server at "db" (10.0.0.5), port 5432 failed: '
    "Connection refused"
)
_JSON_ERROR = (
    "json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 "
    "column 2 (char 1)"
)


@each_case(
    ("printed", "crash", "causes"),
    [
        (chained_errors.DIRECT_CAUSE, "RuntimeError: could not start the app", [_PSYCOPG2_REFUSED]),
        (
            chained_errors.BARE_KEY_ERROR_CAUSE,
            "views.Unauthorized: log in to see your profile",
            ["KeyError: 'user'"],
        ),
        (
            chained_errors.DURING_HANDLING,
            "NameError: name 'log' is not defined",
            ["KeyError: 'user'"],
        ),
        # the root cause first, then the middle one
        (
            chained_errors.CHAIN_OF_THREE,
            "RuntimeError: could not start the app",
            [_JSON_ERROR, "ConfigError: config.json is not valid JSON"],
        ),
        (chained_errors.FROM_NONE, "LookupError: no user in the session", []),
        (
            chained_errors.PYTEST_CHAIN,
            "RuntimeError: could not load the user",
            ["KeyError: 'user'"],
        ),
        (
            chained_errors.PYTEST_SHORT_CHAIN,
            "RuntimeError: could not load the user",
            ["KeyError: 'user'"],
        ),
    ],
    ids=[
        "from",
        "bare-keyerror",
        "during-handling",
        "three",
        "from-none",
        "pytest",
        "pytest-short",
    ],
)
def test_a_python_chain_s_causes_are_asked_after_its_crash(
    printed: str, crash: str, causes: list[str]
) -> None:
    """Python prints a chain's cause first (``raise … from exc``'s, or the error being
    handled when another was raised), and ``The above exception was the direct cause of the
    following exception:`` or ``During handling of the above exception, another exception
    occurred:`` before the error the program ends with: only that last one was asked, and a
    stored fix of the cause (psycopg2's refused connection under ``RuntimeError: could not
    start the app``) was found by luck. Each cause is a fallback of the recall, the root
    first: its fix after the crash's, never in its place. ``raise … from None`` prints no
    chain, and asks none."""
    from kenning.hooks.claude_code import prompt_recall_queries
    from kenning.querybuild import error_recall_queries, fallbacks_of_pasted_error

    asked = [(cause, True) for cause in causes]
    assert error_recall_queries(printed) == ([(crash, True)], asked)
    assert fallbacks_of_pasted_error(printed, None, {crash}) == asked
    # the prompt hook asks them so too, under the prompt's words
    queries, fallbacks = prompt_recall_queries(f"The app will not start, why?\n{printed}")
    assert (crash, True) in queries and fallbacks == asked


def test_a_chain_s_cause_is_asked_beside_a_warning_s_error_and_once() -> None:
    """A chained traceback logged after a retry's warning: the chain's cause and the
    warning's error are both fallbacks (the chain's first), and one error is asked once
    (the cause the warning named before)."""
    from kenning.querybuild import error_recall_queries

    logged = [f"2024-05-02 09:14:06,220 ERROR app: startup failed\n{chained_errors.DIRECT_CAUSE}"]
    timeout = (
        "2024-05-02 09:14:01,100 WARNING app.cache: redis ping failed: TimeoutError: timed out"
    )
    refused = f"2024-05-02 09:14:02,100 WARNING app.db: connect failed: {_PSYCOPG2_REFUSED}"
    assert error_recall_queries("\n".join([timeout, *logged]))[1] == [
        (_PSYCOPG2_REFUSED, True),
        ("TimeoutError: timed out", True),
    ]
    assert error_recall_queries("\n".join([refused, *logged]))[1] == [(_PSYCOPG2_REFUSED, True)]
    # the same chain logged twice (a retry's) is asked once
    twice = "\n".join([*logged, *logged])
    assert error_recall_queries(twice)[1] == [(_PSYCOPG2_REFUSED, True)]


_SPRING_OUTER = (
    'Exception in thread "main" org.springframework.beans.factory.BeanCreationException: '
    "Error creating bean with name 'database' defined in demo.App: Bean instantiation via "
    "factory method failed; nested exception is org.springframework.beans."
    "BeanInstantiationException: Failed to instantiate"
)
_SPRING_MIDDLE = (
    "Caused by: org.springframework.beans.BeanInstantiationException: Failed to instantiate "
    "[demo.App$Database]: Factory method 'database' threw exception; nested exception is "
    "java.net.ConnectException: Connection refused"
)


def _not_found(path: str, quote: str) -> str:
    """DirectoryNotFoundException's message, its path quoted as .NET Core (') or Mono (")
    quotes it."""
    return f"System.IO.DirectoryNotFoundException: Could not find a part of the path {quote}{path}{quote}."


_DOTNET_OUTER = "System.ApplicationException: the app could not start"
_DOTNET_MIDDLE = "ConfigException: could not read the configuration /etc/app/config.json"
_DOTNET_3_1_REFUSED = (
    "System.Net.Internals.SocketExceptionFactory+ExtendedSocketException (111): "
    "Connection refused [::ffff:127.0.0.1]:1"
)


@each_case(
    ("printed", "crash", "causes"),
    [
        # the root cause first
        (
            chained_errors.ANYHOW_TWO_CAUSES,
            "Error: failed to start the server",
            ["No such file or directory (os error 2)", "could not read /etc/app/config.toml"],
        ),
        (
            chained_errors.ANYHOW_ONE_CAUSE,
            "Error: failed to load the config",
            ["No such file or directory (os error 2)"],
        ),
        # a cause of no words of its own ("timed out": ErrorKind::TimedOut's) is not asked;
        # an OS error with its code is
        (chained_errors.ANYHOW_TIMED_OUT, "Error: the health check of the worker failed", []),
        (
            chained_errors.ANYHOW_REFUSED,
            "Error: failed to start the worker",
            [
                "Connection refused (os error 111)",
                "could not connect to redis at 127.0.0.1:39996",
            ],
        ),
        # cargo's root cause is its signature already (an OS error scores above its own)
        (
            chained_errors.CARGO_CAUSES,
            "No such file or directory (os error 2)",
            ["failed to read `/work/ws/missing/Cargo.toml`"],
        ),
        # the group's other errors; its own ("ExceptionGroup: startup failed …") is none
        (
            chained_errors.EXCEPTION_GROUP,
            "KeyError: 'user'",
            ["ValueError: invalid literal for int() with base 10: 'x'"],
        ),
        # a chain inside a sub-exception, read behind the box's gutters
        (
            chained_errors.TASK_GROUP_WITH_CHAIN,
            "ConnectionRefusedError: [Errno 111] Connect call failed ('127.0.0.1', 6379)",
            [_PSYCOPG2_REFUSED, "RuntimeError: the database is not ready"],
        ),
        # Node's innermost [cause] is the signature; the outer error, then the middle one
        (
            chained_errors.NODE_CAUSES,
            "Error: connect ECONNREFUSED 127.0.0.1:39999",
            ["Error: could not load the config", "TypeError: fetch failed"],
        ),
        (
            chained_errors.NODE_OWN_CAUSES,
            "Error: ENOENT: no such file or directory, open '/etc/app/config.json'",
            ["Error: could not start the app", "Error: could not read the config"],
        ),
        # fetch's `TypeError: fetch failed` over its cause, which leads (Node 20's real output)
        (
            chained_errors.NODE_FETCH_REFUSED,
            "Error: connect ECONNREFUSED 127.0.0.1:3000",
            ["TypeError: fetch failed"],
        ),
        (
            chained_errors.NODE_FETCH_NOT_FOUND,
            "Error: getaddrinfo ENOTFOUND api.example.invalid",
            ["TypeError: fetch failed"],
        ),
        (
            chained_errors.NODE_FETCH_CERT,
            "Error: self-signed certificate",
            ["TypeError: fetch failed"],
        ),
        # an AggregateError's other errors; its own ("AggregateError: startup failed") is none
        (
            chained_errors.NODE_AGGREGATE,
            "TypeError: Cannot read properties of undefined (reading 'url')",
            ["Error: redis: connect ECONNREFUSED 127.0.0.1:6379"],
        ),
        # (one refused connection to two addresses is one error)
        (chained_errors.NODE_AGGREGATE_CONNECT, "Error: connect ECONNREFUSED ::1:39998", []),
        # Java's last Caused by is the signature; the outer exception, then the middle one
        (
            chained_errors.JAVA_CAUSES,
            "Caused by: java.io.FileNotFoundException: /etc/app/config.properties (No such "
            "file or directory)",
            [
                'Exception in thread "main" java.lang.IllegalStateException: could not start the app',
                "Caused by: app.Main$ConfigException: could not load the config",
            ],
        ),
        (
            chained_errors.SPRING_CAUSES,
            "Caused by: java.net.ConnectException: Connection refused",
            [_SPRING_OUTER, _SPRING_MIDDLE],
        ),
        # an exception suppressed (a close's in a try-with-resources) and its cause, printed
        # deeper, are no part of the trace's chain: asked after it
        (
            chained_errors.JAVA_SUPPRESSED,
            "Caused by: java.net.SocketTimeoutException: Read timed out",
            [
                'Exception in thread "main" java.lang.RuntimeException: job failed',
                "Caused by: java.io.IOException: disk full",
                "Suppressed: java.lang.IllegalStateException: close failed",
            ],
        ),
        # .NET's innermost ---> is the signature; the outer exception, then the middle one
        # (on lines of their own, or on the outer's line as Mono prints them, twice)
        (
            chained_errors.DOTNET_CAUSES,
            _not_found("/etc/app/config.json", "'"),
            [_DOTNET_OUTER, _DOTNET_MIDDLE],
        ),
        (
            chained_errors.MONO_CAUSES,
            _not_found("/etc/app/config.json", '"'),
            [_DOTNET_OUTER, _DOTNET_MIDDLE],
        ),
        # (3.1's nested class, "SocketExceptionFactory+ExtendedSocketException", too)
        (
            chained_errors.DOTNET_REFUSED,
            _DOTNET_3_1_REFUSED,
            ["System.InvalidOperationException: could not start the server"],
        ),
        # an AggregateException's other inner exceptions; its own ("One or more errors
        # occurred.") is none
        (
            chained_errors.DOTNET_AGGREGATE,
            _not_found("/var/cache/app/index.bin", "'"),
            [_DOTNET_3_1_REFUSED],
        ),
        (
            chained_errors.MONO_AGGREGATE,
            _not_found("/var/cache/app/index.bin", '"'),
            ["System.Net.Sockets.SocketException (0x80004005): Connection refused"],
        ),
    ],
    ids=[
        "anyhow",
        "anyhow-one",
        "anyhow-timed-out",
        "anyhow-refused",
        "cargo",
        "exception-group",
        "task-group-chain",
        "node",
        "node-own",
        "node-fetch-refused",
        "node-fetch-not-found",
        "node-fetch-cert",
        "node-aggregate",
        "node-aggregate-connect",
        "java",
        "spring",
        "java-suppressed",
        "dotnet",
        "mono",
        "dotnet-refused",
        "dotnet-aggregate",
        "mono-aggregate",
    ],
)
def test_causes_other_programs_print_are_asked_after_the_crash(
    printed: str, crash: str, causes: list[str]
) -> None:
    """Rust's anyhow lists an error's causes under ``Caused by:`` (numbered when there are
    several), under the error the program ends with: only that was asked (``Error: failed
    to start the server``), not the ``No such file or directory`` it comes from. Python's
    exception group asked its last sub-exception alone. Java's last ``Caused by:``, .NET's
    innermost `` ---> `` and Node's innermost ``[cause]:`` are the signature, and their outer
    error (Spring's ``BeanCreationException``, the app's own) and the causes between were
    never asked; nor the other errors of Node's ``AggregateError`` and .NET's
    ``AggregateException``. Each cause, and each other sub-exception,
    is a fallback now, as a Python chain's cause is: the root first, then the outermost
    error, then those between."""
    from kenning.fingerprints import error_fingerprint
    from kenning.hooks.claude_code import prompt_recall_queries
    from kenning.querybuild import error_recall_queries

    assert error_recall_queries(printed) == ([(crash, True)], [(c, True) for c in causes])
    # the prompt hook asks them so too (Java's outer error without its thread's words)
    queries, fallbacks = prompt_recall_queries(f"The app will not start, why?\n{printed}")
    assert (crash, True) in queries
    assert [error_fingerprint(q) for q, _ in fallbacks] == [error_fingerprint(c) for c in causes]


def test_fetch_failed_told_on_a_line_is_asked_after_its_cause() -> None:
    """``console.error("request failed:", e)`` of a failed fetch (Node 20's real output)
    prints ``request failed: TypeError: fetch failed`` over its ``[cause]``: the cause leads,
    but the wrapper, told on a line, was asked as a lead too, and found the browser's
    ``TypeError: Failed to fetch`` (a CORS fix) at 0.90. It is the chain's fallback, as the
    wrapper is of fetch's other outputs; alone (``String(e)``, no cause) it is asked, and
    another error told so over its cause is a lead still."""
    from kenning.querybuild import error_recall_queries

    assert error_recall_queries(chained_errors.NODE_FETCH_LOGGED) == (
        [("Error: connect ECONNREFUSED 127.0.0.1:39997", True)],
        [("request failed: TypeError: fetch failed", True)],
    )
    assert error_recall_queries("TypeError: fetch failed") == (
        [("TypeError: fetch failed", True)],
        [],
    )
    own = chained_errors.NODE_FETCH_LOGGED.replace(
        "TypeError: fetch failed", "Error: could not load the config", 1
    )
    assert ("Error: could not load the config", True) in error_recall_queries(own)[0]


_JS = Path(__file__).parent / "data" / "js_test_reports"
_PY = Path(__file__).parent / "data" / "py_test_reports"
_VITEST_RUN = [
    "FAIL {root}src/cart.test.js > cart > parses an empty cart: TypeError: Cannot read "
    "properties of undefined (reading 'map')",
    "FAIL {root}src/auth.test.js > login returns 200: AssertionError: expected 401 to be 200 "
    "// Object.is equality",
    "FAIL {root}src/cart.test.js > cart > sums the prices: AssertionError: expected 6 to be 5 "
    "// Object.is equality",
]
_JEST_RUN = [
    "● cart › parses an empty cart: TypeError: Cannot read properties of undefined (reading 'map')",
    "● cart › sums the prices: expect(received).toBe(expected) // Object.is equality "
    "Expected: 5 Received: 6",
    "● login returns 200: expect(received).toBe(expected) // Object.is equality Expected: "
    "200 Received: 401",
]
_RS = Path(__file__).parent / "data" / "rs_test_reports"
_GO = Path(__file__).parent / "data" / "go_test_reports"
#: cargo test 1.95's, go test 1.19's and mocha 12's three failures, each as its test's
#: output alone is known, in the run's order
_CARGO_RUN = [
    "thread 'tests::login_returns_200' panicked at src/lib.rs:20:9: assertion `left == right` "
    "failed left: 401 right: 200",
    "thread 'tests::parses_an_empty_cart' panicked at src/lib.rs:7:11: called "
    "`Option::unwrap()` on a `None` value",
    "thread 'tests::sums_the_prices' panicked at src/lib.rs:25:9: assertion `left == right` "
    "failed: the total of the cart left: 6 right: 5",
]
_GO_RUN = [
    "--- FAIL: TestLoginReturns200 (0.00s): got 401, want 200",
    "--- FAIL: TestSumsThePrices (0.00s): Total([2 3]) = 6; want 5",
    '--- FAIL: TestParsesAnEmptyCart (0.00s): Parse("{}") = nil; want an empty cart',
]
#: go test's run of four parallel tests (``t.Parallel()``: par_test.go.txt), its failures
#: in the order each run printed them (plain, -v, -json: three runs)
_GO_PAR = {
    "login": _GO_RUN[0],
    "skus": "--- FAIL: TestParsesTheSkus (0.00s): Parse = []",
    "empty": _GO_RUN[2],
    "sums": _GO_RUN[1],
}
_GO_PAR_RUNS = {
    "go-par.txt": ["login", "skus", "sums", "empty"],
    "go-par-v.txt": ["login", "skus", "empty", "sums"],
    "go-par.json": ["empty", "skus", "sums", "login"],
}
#: go test's run of a parallel test and a parallel test's two parallel subtests
#: (sub_test.go.txt): each failed subtest is asked under its parent's heading, as go test
#: prints it run alone (go-sub-Total-empty.txt, go-sub-Total-two_prices.txt)
_GO_SUB = "--- FAIL: TestTotal (0.00s): Total({}) = {}; want {}"
_GO_SUB_EMPTY, _GO_SUB_TWO = _GO_SUB.format("[]", 1, 0), _GO_SUB.format("[2 3]", 6, 5)
#: ... and of a parallel test that panicked (panic_test.go.txt): the panic, then the other
_GO_PANIC = [
    "panic: runtime error: index out of range [0] with length 0 [recovered]",
    _GO_RUN[0],
]
_MOCHA_RUN = [  # (its signature, what it printed last, first)
    "TypeError: Cannot read properties of undefined (reading 'map')",
    "AssertionError [ERR_ASSERTION]: 401 == 200",
    "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: 6 !== 5",
]
#: python 3.11's unittest (and Django 5.2's manage.py test, the same blocks): its last
#: exception first, then the others in the run's order; test_more.py's run, a ConfigError
#: raised from a FileNotFoundError (its crash asked) and a subTest's two failures
_UNITTEST_RUN = ["AssertionError: 6 != 5", "KeyError: 'items'", "AssertionError: 401 != 200"]
_UNITTEST_MORE = [
    "AssertionError: 4 != 5",
    "test_more.ConfigError: could not load the config /etc/shop/missing.toml",
    "AssertionError: 401 != 200",
    "AssertionError: 3 != 4",
]


@each_case(
    ("report", "asked"),
    [
        (_JS / "vitest-all.txt", [q.format(root="") for q in _VITEST_RUN]),
        (_JS / "vitest-all.json", [q.format(root="/home/dev/shop/") for q in _VITEST_RUN]),
        (_JS / "jest-all.txt", _JEST_RUN),
        (_JS / "jest-all.json", _JEST_RUN),
        # pytest's tracebacks (long and --tb=short) and, printed without them (--tb=line,
        # --tb=no -rf), its summary's FAILED lines
        *(
            (
                _PY / f"pytest-all{tb}.txt",
                ["KeyError: 'items'", f"{head}assert 401 == 200", "AssertionError: assert 6 == 5"],
            )
            for tb, head in (
                ("", "AssertionError: "),
                ("-short", ""),
                ("-line", ""),
                ("-no", ""),
            )
        ),
        # cargo test's `---- test stdout ----` over each panic (-q: its progress above them;
        # with RUST_BACKTRACE=1 the first panic read is another test's), go test's `--- FAIL:`
        # (-v: what a test logged above its heading), mocha's `1) test:` under `3 failing`
        (_RS / "cargo-all.txt", _CARGO_RUN),
        (_RS / "cargo-all-q.txt", _CARGO_RUN),
        (_RS / "cargo-all-backtrace.txt", [_CARGO_RUN[1], _CARGO_RUN[0], _CARGO_RUN[2]]),
        (_GO / "go-all.txt", _GO_RUN),
        (_GO / "go-all-v.txt", _GO_RUN),
        (_GO / "go-all.json", _GO_RUN),
        # parallel tests: -v's and -json's lines of each test between others' (=== PAUSE,
        # === CONT), asked as the plain run's, each with its message, in the run's order
        *((_GO / run, [_GO_PAR[t] for t in order]) for run, order in _GO_PAR_RUNS.items()),
        (_GO / "go-sub.txt", [_GO_RUN[0], _GO_SUB_EMPTY, _GO_SUB_TWO]),
        (_GO / "go-sub-v.txt", [_GO_RUN[0], _GO_SUB_EMPTY, _GO_SUB_TWO]),
        (_GO / "go-sub.json", [_GO_RUN[0], _GO_SUB_TWO, _GO_SUB_EMPTY]),
        (_GO / "go-sub-Total.txt", [_GO_SUB_EMPTY, _GO_SUB_TWO]),  # (one test, two subtests)
        (_GO / "go-sub-Total-v.txt", [_GO_SUB_EMPTY, _GO_SUB_TWO]),
        *((_GO / f"go-panic{kind}", _GO_PANIC) for kind in (".txt", "-v.txt", ".json")),
        # a parallel test's lines printed after another's (-v: the one that finished first
        # was asked with what the other logged first)
        *(
            (
                _GO / f"go-slow{kind}",
                [
                    "--- FAIL: TestLoginReturns200 (0.02s): got 401, want 200",
                    f"--- FAIL: TestSumsThePrices ({time}s): Total([2 3]) = 6; want 5",
                ],
            )
            for kind, time in ((".txt", "0.10"), ("-v.txt", "0.10"), (".json", "0.11"))
        ),
        (_JS / "mocha-all.txt", _MOCHA_RUN),
        (_JS / "mocha-all.json", _MOCHA_RUN),  # (mocha --reporter json: indented)
        # unittest's `FAIL: test_x (module.Class.test_x)` blocks between rules of = and -
        # (-v: its `... FAIL` lines above them; Django's manage.py test prints them so too),
        # a subTest's `(i=2)` after the heading, a chained traceback in a block
        (_PY / "unittest-all.txt", _UNITTEST_RUN),
        (_PY / "unittest-all-v.txt", _UNITTEST_RUN),
        (_PY / "django-all.txt", _UNITTEST_RUN),
        (_PY / "django-all-v2.txt", _UNITTEST_RUN),
        # (Django with a TestCase that migrates its test database: a fourth failure)
        *(
            (
                _PY / f"django-db{v}.txt",
                [*_UNITTEST_RUN[:2], "AssertionError: 1 != 2", _UNITTEST_RUN[2]],
            )
            for v in ("", "-v2")
        ),
        (_PY / "unittest-more.txt", _UNITTEST_MORE),
        (_PY / "unittest-more-v.txt", _UNITTEST_MORE),
        (_PY / "unittest-more-prices.txt", [_UNITTEST_MORE[0], _UNITTEST_MORE[3]]),
        # jest's `● Console` over what a test logged is none (it was the run's signature,
        # "● Console: console.log"); a suite that failed to run is one
        (
            _JS / "jest-console.txt",
            [_JEST_RUN[1], _JEST_RUN[2], "Cannot find module './slug' from 'jt/broken.test.js'"],
        ),
    ],
    ids=lambda v: v.name if isinstance(v, Path) else "",
)
def test_each_failed_test_of_a_run_is_asked(report: Path, asked: list[str]) -> None:
    """A test run that printed several failures (real output: vitest 4.1.12, jest 30.5.2,
    pytest 9.2, plain and JSON) was asked by one of them, its signature (vitest's last
    exception, jest's one test that threw): the exact fixes of the others were not found.
    Each failed test is asked as it is known alone, the signature first, the others in the
    run's order; through ``recall --error`` (the tool-failure hook's), a pasted log's recall
    and the prompt hook."""
    from kenning.fingerprints import error_fingerprint
    from kenning.hooks.claude_code import prompt_recall_queries
    from kenning.querybuild import error_recall_queries, queries_of_pasted_error

    text = report.read_text()
    assert queries_from_error(text) == asked
    assert error_recall_queries(text)[0] == [(error, True) for error in asked]
    assert queries_of_pasted_error(text, None) == [(error, True) for error in asked]
    # (the prompt hook reads each error again: pytest's assert without its class, one
    # fingerprint)
    queries, _ = prompt_recall_queries(f"The tests fail, why?\n{text}")
    told = [query for query, error in queries if error]
    assert [error_fingerprint(q) for q in told] == [error_fingerprint(q) for q in asked]


@each_case(
    "report",
    [
        *(
            _JS / f"{runner}-{run}.{kind}"
            for runner in ("vitest", "jest")
            for run in ("auth", "empty_cart")
            for kind in ("txt", "json")
        ),
        *(
            _PY / f"pytest-{test}.txt"
            for test in ("login_returns_200", "sums_the_prices", "parses_an_empty_cart")
        ),
        *(
            path
            for test in ("login_returns_200", "sums_the_prices", "parses_an_empty_cart")
            for path in (
                _RS / f"cargo-{test}.txt",
                _JS / f"mocha-{test}.txt",
                _PY / f"unittest-{test}.txt",
            )
        ),
        _PY / "unittest-more-loads_the_config.txt",
        *(_GO / f"go-{test}.txt" for test in ("LoginReturns200", "SumsThePrices", "Lock")),
        _GO / "go-ParsesAnEmptyCart.txt",
        _GO / "go-Lock-v.txt",
        _GO / "go-sub-Total-empty.txt",  # (one subtest of two run alone)
        _GO / "go-sub-Total-two_prices.txt",
        _JS / "jest-console-sums_the_prices.txt",
        _JS / "jest-console-broken.txt",
    ],
    ids=lambda p: p.name,
)
def test_a_run_of_one_failure_asks_it_alone(report: Path) -> None:
    """A run that printed one failure is asked by its signature alone (guard); each of the
    runs of several above asks each failure as its test's output alone is known."""
    text = report.read_text()
    assert queries_from_error(text) == [query_from_error(text)]
    go = [*_GO_RUN, _GO_SUB_EMPTY, _GO_SUB_TWO]
    run = {"cargo": _CARGO_RUN, "go": go, "mocha": _MOCHA_RUN, "unittest": _UNITTEST_RUN}
    run = run.get(report.name.split("-")[0])
    if run is not None and "Lock" not in report.name and "more" not in report.name:
        assert query_from_error(text) in run


def test_a_list_of_numbered_steps_is_no_run_of_failed_tests() -> None:
    """mocha numbers its failures (``  1) cart`` over ``       sums the prices:``); a text's
    numbered steps are no failures (rustc's E0616 explanation, found by the corpus check:
    "1) Set the field public:" and "2) Add a getter function:" were asked as errors)."""
    text = (
        'println!("{}", f.x); // error: field `x` of struct `some_module::Foo` is private\n\n'
        "If you want to access this field, you have two options:\n\n1) Set the field public:\n\n"
        "```\npub x: u32,\n```\n\n2) Add a getter function:\n\n```\npub fn get_x(&self) -> "
        "&u32 { &self.x }\n```\n"
    )
    assert queries_from_error(text) == [query_from_error(text)]


def test_a_run_asks_at_most_its_signature_and_four_other_failures() -> None:
    """40 failed tests ask 5 queries: the signature and the first 4 others (each costs an
    embedding); two tests that failed with one error are asked once."""
    names = [f"case {a}{b}" for a in "abcd" for b in "abcdefghij"]
    tests = [f" FAIL  src/t.test.js > {name}\nError: {name} failed\n" for name in names]
    tests.insert(1, tests[0])
    asked = queries_from_error("\n".join(tests))
    assert asked == [f"FAIL src/t.test.js > {name}: Error: {name} failed" for name in names[:5]]


def test_query_error_prints_each_failed_test_asked(project: Path) -> None:
    """`kenning query error` shows what `recall --error` asks: of a run of several failed
    tests, each, one a line (it printed the signature alone); of one error, its signature."""
    from .cli_runner import run_cli

    r = run_cli(project, "query", "error", "-", stdin=(_JS / "vitest-all.txt").read_bytes())
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [q.format(root="") for q in _VITEST_RUN]
    r = run_cli(project, "query", "error", "-", stdin=(_JS / "vitest-auth.txt").read_bytes())
    assert r.stdout.splitlines() == [_VITEST_RUN[1].format(root="")]


#: Each runner's own lines in its real output (tests/data/*_test_reports), and lines of a
#: prompt's own words like them, which stay words.
_RUNNER_LINES = {
    _JS / "vitest-all.txt": [
        "RUN  v4.1.12 /home/dev/shop",
        "⎯⎯⎯⎯⎯⎯⎯ Failed Tests 3 ⎯⎯⎯⎯⎯⎯⎯",
        "⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/3]⎯",
        "Test Files  2 failed (2)",
        "Tests  3 failed | 1 passed (4)",
        "Start at  16:21:11",
        "Duration  1.33s (transform 24ms, setup 0ms, import 53ms, tests 53ms, environment 0ms)",
    ],
    _JS / "vitest-load.txt": ["❯ load/broken.test.js (0 test)", "Tests  no tests"],
    _JS / "vitest-project.txt": [
        "Tests  1 failed (1)",
        "Duration  360ms (transform 15ms, setup 0ms, import 23ms, tests 15ms, environment 0ms)",
    ],
    _JS / "jest-all.txt": [
        "FAIL src/cart.test.js",
        "Test Suites: 2 failed, 2 total",
        "Tests:       3 failed, 1 passed, 4 total",
        "Snapshots:   0 total",
        "Time:        2.471 s",
        "Ran all test suites.",
    ],
    _JS / "jest-auth.txt": [
        "✕ login returns 200 (4 ms)",
        "Time:        0.27 s, estimated 1 s",
        "Ran all test suites matching src/auth.test.js.",
    ],
    _JS / "jest-empty_cart.txt": ["○ skipped sums the prices"],
    _JS / "jest-console.txt": ["● Console", "console.log"],
    _JS / "mocha-all.txt": ["✔ parses the skus", "1 passing (12ms)", "3 failing"],
    _RS / "cargo-all.txt": [
        "Finished `test` profile [unoptimized + debuginfo] target(s) in 0.04s",
        "Running unittests src/lib.rs (target/debug/deps/shop-507999230d6984fa)",
        "running 4 tests",
        "test tests::login_returns_200 ... FAILED",
        "test tests::parses_the_skus ... ok",
        "failures:",
        "---- tests::login_returns_200 stdout ----",
        "test result: FAILED. 1 passed; 3 failed; 0 ignored; 0 measured; 0 filtered out; "
        "finished in 0.03s",
    ],
    _RS / "cargo-all-q.txt": ["tests::login_returns_200 --- FAILED", ". 3/4"],
    _RS / "cargo-login_returns_200.txt": ["running 1 test"],
    _GO / "go-all-v.txt": [
        "=== RUN   TestLoginReturns200",
        "--- PASS: TestParsesTheSkus (0.00s)",
        "FAIL",
        "FAIL\texample.com/shop\t0.018s",
    ],
    _GO / "go-par-v.txt": ["=== PAUSE TestLoginReturns200", "=== CONT  TestLoginReturns200"],
    # (and pytest's rules, go test's `=== RUN` like them)
    _PY / "pytest-all.txt": [
        "============================= test session starts ==============================",
        "_____________________________ test_sums_the_prices _____________________________",
    ],
}


@each_case("report", sorted(_RUNNER_LINES), ids=lambda path: path.name)
def test_a_test_runner_s_own_lines_are_its_boilerplate(report: Path) -> None:
    """vitest's, jest's, mocha's, cargo's and go test's lines around their results are the
    runner's (left out of a prompt's words query, as pytest's, unittest's and Django's are);
    its failures' lines and a prompt's words like them are not (real output: vitest 4.1.12,
    jest 30.5.2, mocha, cargo, go 1.19)."""
    from kenning.querybuild import is_runner_boilerplate

    lines = [line.strip() for line in report.read_text().splitlines()]
    for line in _RUNNER_LINES[report]:
        assert line in lines, line
        assert is_runner_boilerplate(f"  {line}"), line
    for words in (
        "can you fix the CSV export? it fails like this",
        "1) login returns 200",
        "Running the tests twice makes it pass",
        "Finished the export, but the tests fail",
        "Tests: the export ones fail",
        "FAIL: the export",
        "ok, so the export fails",
        "running tests is slow",
        "=== the export ===x",
        "__init__.py",
        "⎯ the export",
        "AssertionError: expected 401 to be 200 // Object.is equality",
        "TypeError: Cannot read properties of undefined (reading 'map')",
        "thread 'tests::parses_an_empty_cart' (1194) panicked at src/lib.rs:7:11:",
        "shop_test.go:7: got 401, want 200",
    ):
        assert not is_runner_boilerplate(words), words
