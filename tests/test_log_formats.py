"""kenning.log_formats: what loggers put around a line's message, read per line."""

from __future__ import annotations

import json

from kenning.log_formats import (
    AT_ERROR,
    QUIET,
    WARNING,
    api_error_said,
    json_log_line,
    json_said,
    read_log_line,
    without_container_prefix,
    without_run_log_prefixes,
)

from .case_table import each_case


def _json(**fields: object) -> str:
    return json.dumps(fields)


@each_case(
    ("line", "said", "level"),
    [
        # zap's and logrus' level names, pino's and bunyan's numbers
        (
            _json(level="warn", msg="retry", error="dial tcp: i/o timeout"),
            "dial tcp: i/o timeout",
            WARNING,
        ),
        (_json(level=50, err={"type": "Error", "message": "boom"}), "Error: boom", AT_ERROR),
        (_json(level=60, err={"name": "TypeError", "message": "x"}), "TypeError: x", AT_ERROR),
        (_json(level=30, msg="listening"), "listening", QUIET),
        # winston's http level; a null level beside Google Cloud's severity
        (_json(level="http", message="GET /api 500"), "GET /api 500", QUIET),
        (_json(level=None, severity="ERROR", message="boom: x"), "boom: x", AT_ERROR),
        # Serilog's compact format (Information leaves @l out), ECS' nested level and error
        (_json(**{"@t": "2024-05-02T09:14:00Z", "@mt": "Now listening"}), "Now listening", QUIET),
        (
            _json(
                **{
                    "@t": "x",
                    "@l": "Fatal",
                    "@m": "failed",
                    "@x": "System.Exception: down\n   at A.B()",
                }
            ),
            "System.Exception: down",
            AT_ERROR,
        ),
        (
            _json(
                log={"level": "error"},
                message="run failed",
                error={"type": "ValueError", "message": "bad"},
            ),
            "ValueError: bad",
            AT_ERROR,
        ),
        # a traceback held in one value: its last line (Python's), structlog's event
        (
            _json(
                level="error",
                event="payment failed",
                exception="Traceback (most recent call last):\n  File \"a.py\", line 1\nKeyError: 'id'",
            ),
            "KeyError: 'id'",
            AT_ERROR,
        ),
        (_json(level="info", event="signup"), "signup", QUIET),
        # a trace held in a field: its error's line, not a note after it or an outer
        # exception (qa-s63d Q1); ECS' flattened error and log15's level names (Q6)
        (
            _json(
                level="error",
                exception='Traceback (most recent call last):\n  File "a.py"'
                ", line 1\nsqlalchemy.exc.ProgrammingError: relation does not exist\n(Background "
                "on this error at: https://sqlalche.me/e/20/f405)",
            ),
            "sqlalchemy.exc.ProgrammingError: relation does not exist",
            AT_ERROR,
        ),
        (
            _json(
                level="error",
                stack_trace="java.lang.IllegalStateException: boot failed\n\tat "
                "A.b(A.java:1)\nCaused by: java.net.ConnectException: Connection refused\n\tat C.d",
            ),
            "java.net.ConnectException: Connection refused",
            AT_ERROR,
        ),
        (
            _json(
                **{
                    "@l": "Error",
                    "@x": "System.Exception: outer ---> Npgsql.NpgsqlException "
                    "(0x80004005): Failed to connect\n   at A.B()",
                }
            ),
            "Npgsql.NpgsqlException (0x80004005): Failed to connect",
            AT_ERROR,
        ),
        (
            _json(
                **{
                    "log.level": "error",
                    "error.type": "BeanCreationException",
                    "error.message": "x",
                }
            ),
            "BeanCreationException: x",
            AT_ERROR,
        ),
        (_json(lvl="eror", msg="db not ready"), "db not ready", AT_ERROR),
        # ... a bare exception ending a Python trace, not psycopg2's DETAIL after it; .NET's
        # first line, not a later inner one (as the plain trace is read, qa-s63e R2, R3)
        (
            _json(
                level="error",
                exception='Traceback (most recent call last):\n  File "a.py"'
                ", line 1\n    assert ok\nAssertionError",
            ),
            "AssertionError",
            AT_ERROR,
        ),
        (
            _json(
                level="error",
                exception='Traceback (most recent call last):\n  File "a.py"'
                ", line 1\npsycopg2.errors.UniqueViolation: duplicate key\nDETAIL:  Key (id)=(1) "
                "already exists.",
            ),
            "psycopg2.errors.UniqueViolation: duplicate key",
            AT_ERROR,
        ),
        (
            _json(
                **{
                    "@l": "Fatal",
                    "@x": "Npgsql.NpgsqlException (0x80004005): Failed to connect"
                    "\n ---> System.Net.Sockets.SocketException (111): Connection refused\n   at A.B()",
                }
            ),
            "Npgsql.NpgsqlException (0x80004005): Failed to connect",
            AT_ERROR,
        ),
    ],
)
def test_a_json_log_line_is_read_with_its_level(line: str, said: str, level: str) -> None:
    """qa-s63c P3, P4, P9: each JSON logger's keys; behind a container's prefix and a time
    (docker logs -t, kubectl logs --timestamps) as well."""
    assert json_log_line(line) == (said, level)
    assert read_log_line(line) == (said, level)
    stamped = f"api-1  | 2024-05-02T09:14:02.123Z {line}"
    assert json_log_line(stamped) == (said, level)
    assert read_log_line(stamped) == (said, level)


@each_case("line", ["{not json}", '{"level": "error"}', "{}", '["level", "error"]', "x {"])
def test_a_line_that_says_nothing_as_json_is_no_json_log_line(line: str) -> None:
    assert json_log_line(line) is None


def test_a_container_s_prefix_is_cut_and_its_line_s_indentation_kept() -> None:
    """qa-s63c P7: a .NET record's lines are indented behind compose's and kubectl's prefix."""
    for prefix in ("api-1  | ", "[pod/api-7d9f/api] ", "\x1b[36mapi-1  |\x1b[0m "):
        assert without_container_prefix(f"{prefix}      at App.Main()") == "      at App.Main()"
        assert without_container_prefix(f"{prefix}fail: A.B[1]") == "fail: A.B[1]"
    assert without_container_prefix("plain line") == "plain line"


def test_gh_s_job_and_step_are_cut_before_the_runner_s_time() -> None:
    """``gh run view --log`` puts a run's job and step before each line of its log, and a
    step's log starts with a byte order mark: the runner's lines are read as its raw log holds
    them; no other line with tabs is cut."""
    stamp = "2024-05-01T12:00:00.1234567Z"
    log = f"test (3.12, ubuntu)\tRun pytest\t\ufeff{stamp} collected 3 items\n"
    log += f"test (3.12, ubuntu)\tRun pytest\t{stamp} ##[error]Process completed with exit code 1."
    assert without_run_log_prefixes(log) == (
        f"{stamp} collected 3 items\n{stamp} ##[error]Process completed with exit code 1."
    )
    line = log.splitlines()[1]
    assert read_log_line(line) == ("Process completed with exit code 1.", AT_ERROR)
    assert read_log_line(f"build\tRun make\t{stamp} ##[warning]Node 16 is deprecated") == (
        "Node 16 is deprecated",
        WARNING,
    )
    # (a step's output's own indentation is kept behind them)
    assert (
        without_container_prefix(f"build\tRun app\t{stamp}     at Foo()") == f"{stamp}     at Foo()"
    )
    # (a step without a name is named after its command's first line: a long one, qa-s64c U4)
    step = "Run " + "cargo build --release --locked --features full " * 6
    assert without_run_log_prefixes(f"build\t{step}\t{stamp} error[E0425]: x") == (
        f"{stamp} error[E0425]: x"
    )
    # a listing's columns, a time among them (gcloud's, jq's @tsv: qa-s64c U3), are kept
    tsv = f"ERROR\tpayments\t{stamp}\tconnection refused"
    assert without_run_log_prefixes(tsv) == tsv
    assert read_log_line(tsv)[1] == AT_ERROR
    for other in ("id\tname\tcreated", "a\tb\t2024-05-01 12:00:00 x", "KeyError: 'user'"):
        assert without_run_log_prefixes(other) == other


def test_a_pasted_api_error_response_is_read_whole() -> None:
    """A text that is one JSON object with an error: a list of errors, problem details, an
    ``error`` object's message (OpenAI's, Google's) or an ``error`` string; nothing else."""
    openai = '{\n  "error": {\n    "message": "Incorrect API key",\n    "type": "x"\n  }\n}'
    assert api_error_said(openai) == "Incorrect API key"
    assert api_error_said('{"error": "invalid_grant"}') == "invalid_grant"
    assert api_error_said(' {"errors": [{"message": "Cannot query field"}]}\n') == (
        "Cannot query field"
    )
    assert api_error_said('{"title": "Not Found", "status": 404}') == "Not Found"
    for other in (
        '{"status": "ok", "data": {"id": 7}}',
        '{"error": null, "data": 1}',
        '{"error": {"code": 3}}',
        '{"error": "  "}',
        "[1, 2]",
        '{"error": "x"',  # (cut off)
        'the API said {"error": "invalid_grant"}',
        "KeyError: 'user'",
    ):
        assert api_error_said(other) is None, other


def test_an_api_s_error_body_says_its_first_error() -> None:
    """GraphQL's and JSON:API's list of errors, and RFC 9457's problem details at an error's
    status: the first error's words; a body with a title at another status says nothing."""
    assert json_said({"errors": [{"message": "Cannot query field"}, {"message": "x"}]}) == (
        "Cannot query field"
    )
    assert json_said({"errors": [{"title": "Invalid Attribute", "detail": "Too short"}]}) == (
        "Invalid Attribute: Too short"
    )
    assert json_said({"title": "Not Found", "status": 404, "detail": "No user 42."}) == (
        "Not Found: No user 42."
    )
    for said_nothing in ({"status": "ok", "title": "Deployed"}, {"status": 200, "title": "Home"}):
        assert json_said(said_nothing) is None
    assert json_said({"errors": [], "data": None}) is None
