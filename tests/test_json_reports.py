"""Test runners' and compilers' JSON reports read as the text they stand for
(:mod:`kenning.json_reports`), and signed as that text is."""

from __future__ import annotations

import json
from pathlib import Path

from kenning.fingerprints import error_fingerprint
from kenning.json_reports import as_printed
from kenning.querybuild import error_recall_queries, queries_of_pasted_error
from kenning.signatures import extract_error_signature, looks_like_error

from .case_table import each_case

GO_OUTPUT = [
    "=== RUN   TestAdd\n",
    "    cart_test.go:12: Add(1, 1) = 3, want 2\n",
    "--- FAIL: TestAdd (0.00s)\n",
    "FAIL\n",
    "FAIL\texample.com/cart\t0.012s\n",
]


def go_test_json(output: list[str] = GO_OUTPUT) -> str:
    """``go test -json``'s events for ``output`` (test2json: start, run, each piece of
    output, the verdicts)."""
    at = {"Time": "2024-05-01T12:00:00.1Z", "Package": "example.com/cart"}
    events = [{**at, "Action": "start"}, {**at, "Action": "run", "Test": "TestAdd"}]
    events += [{**at, "Action": "output", "Test": "TestAdd", "Output": o} for o in output]
    events += [{**at, "Action": "fail", "Test": "TestAdd", "Elapsed": 0}]
    events += [{**at, "Action": "fail", "Elapsed": 0.012}]
    return "\n".join(json.dumps(e) for e in events) + "\n"


JEST_MESSAGE = (
    "  \x1b[1m\x1b[31m● \x1b[22m\x1b[1mcart › adds items\x1b[39m\x1b[22m\n\n"
    "    expect(received).toBe(expected) // Object.is equality\n\n"
    "    Expected: 3\n    Received: 2\n"
)
JEST_PRINTED = (
    "FAIL src/cart.test.js\n"
    "  ● cart › adds items\n\n"
    "    expect(received).toBe(expected) // Object.is equality\n\n"
    "    Expected: 3\n    Received: 2\n\n"
    "      at Object.<anonymous> (src/cart.test.js:10:23)\n\n"
    "Test Suites: 1 failed, 3 passed, 4 total\n"
    "Tests:       1 failed, 20 passed, 21 total\n"
)


def jest_json(message: str = JEST_MESSAGE, failure: str = "Error: expect(received)…") -> str:
    """``jest --json``'s one line: the counts, each suite's result (a passing one too)."""
    failed = {
        "assertionResults": [
            {"fullName": "cart adds items", "status": "failed", "failureMessages": [failure]},
            {"fullName": "cart empties", "status": "passed", "failureMessages": []},
        ],
        "message": message,
        "name": "src/cart.test.js",
        "status": "failed",
    }
    passed = {"assertionResults": [], "message": "", "name": "src/ok.test.js", "status": "passed"}
    counts = {"numFailedTestSuites": 1, "numPassedTestSuites": 3, "numTotalTestSuites": 4}
    counts |= {"numFailedTests": 1, "numPassedTests": 20, "numTotalTests": 21}
    return json.dumps({**counts, "success": False, "testResults": [passed, failed]})


def test_go_test_json_is_read_as_the_output_the_test_printed() -> None:
    """test2json's events hold the output in ``Output``, a piece at a time: their signature
    was the first event (``{"Time": …, "Action": "start", …}``) and the run did not look
    like an error; the output joined is read, as `go test` prints it."""
    report = go_test_json()
    assert as_printed(report) == "".join(GO_OUTPUT)
    plain = extract_error_signature("".join(GO_OUTPUT))
    assert plain == "--- FAIL: TestAdd (0.00s): Add(1, 1) = 3, want 2"
    assert extract_error_signature(report) == plain
    assert looks_like_error(report)
    assert error_recall_queries(report)[0] == [(plain, True)]
    # a line of output split over two events is one line again
    split = go_test_json([*GO_OUTPUT[:1], "    cart_test.go:12: Add(1, 1) = 3, ", "want 2\n"])
    assert "    cart_test.go:12: Add(1, 1) = 3, want 2" in as_printed(split).splitlines()


def test_go_test_json_of_a_newer_go_is_read_whatever_fields_it_adds() -> None:
    """A newer Go's test2json marks an output event's ``OutputType`` (``frame``, ``error``)
    and has ``attr`` events: their failure stayed raw JSON, its signature a JSON line
    (qa-s67b F1)."""
    events = [json.loads(line) for line in go_test_json().splitlines()]
    for event in events:
        if event["Action"] == "output":
            event["OutputType"] = "error" if "want" in event["Output"] else "frame"
    events.insert(2, {"Action": "attr", "Package": "example.com/cart", "Key": "k", "Value": "v"})
    report = "\n".join(json.dumps(e) for e in events)
    assert as_printed(report) == "".join(GO_OUTPUT).rstrip("\n")
    assert extract_error_signature(report) == extract_error_signature("".join(GO_OUTPUT))


def test_what_a_report_prints_is_not_read_again_as_a_report() -> None:
    """A failure whose text quotes another report's line (a mocha test of a tool that runs
    ``go test -json``) is that failure: each reader of the printed text read the quoted
    line again, and the query was the inner event's output (qa-s67b F11)."""
    inner = json.dumps({"Action": "output", "Package": "p", "Output": "panic: boom\n"})
    stack = f"Error: child failed\n{inner}\n    at run (test/child.spec.js:9:3)"
    report = json.dumps(
        {"stats": {"failures": 1}, "failures": [{"title": "child", "err": {"stack": stack}}]}
    )
    printed = as_printed(report)
    assert as_printed(printed) is printed
    assert extract_error_signature(report) == "Error: child failed"


def test_a_prompt_with_go_test_json_asks_its_error() -> None:
    from kenning.hooks.claude_code import prompt_queries

    asked = prompt_queries(f"why does TestAdd fail on CI?\n{go_test_json()}")
    assert ("--- FAIL: TestAdd (0.00s): Add(1, 1) = 3, want 2", True) in asked


def test_jest_json_is_read_as_jest_prints_its_failures() -> None:
    """``jest --json`` is one line: the failed suite's message, coloured, in a JSON string
    beside the counts of every suite. It reads as jest prints it (``FAIL file``, the
    message, the summary), with the signature of jest's own output."""
    report = jest_json()
    printed = as_printed(report)
    assert printed.splitlines()[:3] == ["FAIL src/cart.test.js", "  ● cart › adds items", ""]
    assert "src/ok.test.js" not in printed  # (a passing suite prints nothing of its own)
    assert printed.endswith(
        "Test Suites: 1 failed, 3 passed, 4 total\nTests:       1 failed, 20 passed, 21 total"
    )
    signature = extract_error_signature(JEST_PRINTED)
    assert signature == (
        "● cart › adds items: expect(received).toBe(expected) // Object.is equality "
        "Expected: 3 Received: 2"
    )
    assert extract_error_signature(report) == signature
    assert queries_of_pasted_error(report, None) == [(signature, True)]


def test_a_prompt_with_a_long_jest_report_asks_its_failure() -> None:
    """jest's report is one line, of ~200 characters a passing test: the prompt hook cut a
    prompt over 20,000 characters to its head and tail before it read the report, which
    then read as no report (a 300-test report asked JSON; qa-s67b F2)."""
    from kenning.hooks.claude_code import MAX_PROMPT_CHARS, prompt_queries

    report = json.loads(jest_json())
    passing = {"fullName": "cart keeps items", "status": "passed", "failureMessages": []}
    report["testResults"][1]["assertionResults"] += [passing] * 300
    pasted = json.dumps(report)
    assert len(pasted) > MAX_PROMPT_CHARS
    signature = extract_error_signature(JEST_PRINTED)
    assert (signature, True) in prompt_queries(f"why does CI fail?\n{pasted}")


def test_vitest_json_without_messages_reads_each_failed_test() -> None:
    """vitest's JSON reporter leaves a suite's ``message`` empty: each failed test is read
    as vitest prints it, its ``FAIL file > test`` heading (of its ``fullName`` where the
    report has no ``ancestorTitles``) and failure messages."""
    report = jest_json(
        message="", failure="AssertionError: expected 2 to be 3 // Object.is equality"
    )
    printed = as_printed(report)
    assert " FAIL  src/cart.test.js > cart adds items" in printed
    assert "cart empties" not in printed
    said = "AssertionError: expected 2 to be 3 // Object.is equality"
    assert extract_error_signature(report) == f"FAIL src/cart.test.js > cart adds items: {said}"


#: Real output of one failing run each of vitest 4.1.12 and jest 30.5.2 (Node 20.20.2,
#: ``NO_COLOR=1``), printed by its default reporter (``.txt``: vitest's stdout, jest's
#: stderr) and by its JSON one (``.json``: ``vitest run --reporter=json``, ``jest --json``):
#: ``all`` runs src/auth.test.js (an ``expect`` that failed) and src/cart.test.js (one
#: too, a passing test, and a TypeError the code threw), ``auth`` and ``empty_cart`` one
#: failing test each, ``load`` a test file whose import is missing, vitest's ``project``
#: auth.test.js in a project named ``unit`` (vitest.config.js's ``test.projects``: its
#: heading is ``FAIL  |unit| src/auth.test.js > …``, its report names no project). Only the
#: project's folder was changed (to /home/dev/shop).
JS_REPORTS = Path(__file__).parent / "data" / "js_test_reports"


@each_case(
    ("runner", "run"),
    [
        *((runner, run) for runner in ("vitest", "jest") for run in ("all", "auth")),
        *((runner, run) for runner in ("vitest", "jest") for run in ("empty_cart", "load")),
        ("vitest", "project"),
    ],
)
def test_a_js_test_failure_reported_as_json_is_the_error_its_printed_output_is(
    runner: str, run: str
) -> None:
    """One failure printed by vitest's or jest's default reporter and by its JSON reporter
    has one fingerprint: the fix stored from one is found exactly from the other."""
    printed = (JS_REPORTS / f"{runner}-{run}.txt").read_text()
    report = (JS_REPORTS / f"{runner}-{run}.json").read_text()
    assert report.startswith('{"num') and "\n" not in report.strip()  # (one line)
    signature = extract_error_signature(printed)
    assert error_fingerprint(extract_error_signature(report)) == error_fingerprint(signature)
    assert looks_like_error(report)


@each_case(
    ("run", "test", "thrown"),
    [
        ("all", "cart > parses an empty cart", "TypeError: Cannot read properties of undefined"),
        ("auth", "login returns 200", "AssertionError: expected 401 to be 200"),
        ("empty_cart", "cart > parses an empty cart", "TypeError: Cannot read properties of"),
    ],
)
def test_a_vitest_failure_reported_as_json_is_known_by_its_test(
    run: str, test: str, thrown: str
) -> None:
    """vitest's JSON report names each failed test by its file (absolute), its suites and
    its title, and holds what it threw: it reads as vitest prints it, ``FAIL file > suite >
    test`` over the error, so it is known by its test as vitest's own output is (its
    signature was what the test threw alone, every test's that threw it)."""
    report = (JS_REPORTS / f"vitest-{run}.json").read_text()
    signature = extract_error_signature(report)
    assert signature.startswith("FAIL /home/dev/shop/src/") and f" > {test}: {thrown}" in (
        signature
    )
    printed = extract_error_signature((JS_REPORTS / f"vitest-{run}.txt").read_text())
    assert printed == signature.replace("/home/dev/shop/", "")
    # another test that threw it is another error
    other = report.replace('"title":"', '"title":"not ')
    assert error_fingerprint(extract_error_signature(other)) != error_fingerprint(signature)


@each_case("path", ["src/cart.test.js", "/home/dev/shop/src/cart.test.js", "test/e2e/cart.spec.ts"])
def test_a_test_file_s_path_is_masked_whole_relative_or_absolute(path: str) -> None:
    """A relative path of one folder whose file's name has a dot before its extension
    (``src/cart.test.js``) was masked to ``<path>.js``, the absolute path of the same file to
    ``<path>``: vitest's plain output names a test's file relative to its root, its JSON
    report absolute."""
    fingerprint = error_fingerprint(f"FAIL {path} > cart > sums: TypeError: x is undefined")
    assert fingerprint == "fail <path> > cart > sums: typeerror: x is undefined"


def test_cargo_json_messages_are_read_as_rustc_renders_them() -> None:
    rendered = (
        "error[E0308]: mismatched types\n --> src/main.rs:2:18\n  |\n"
        '2 |     let x: i32 = "a";\n  |            ---   ^^^ expected `i32`, found `&str`\n'
    )
    lines = [
        {"reason": "compiler-artifact", "package_id": "dep 0.1.0", "target": {}},
        {
            "reason": "compiler-message",
            "package_id": "app 0.1.0",
            "message": {"rendered": rendered, "level": "error", "message": "mismatched types"},
        },
        {"reason": "build-finished", "success": False},
    ]
    report = "\n".join(json.dumps(line) for line in lines)
    assert as_printed(report) == rendered.rstrip()
    assert extract_error_signature(report) == extract_error_signature(rendered)
    assert extract_error_signature(report).startswith("error[E0308]: mismatched types")
    rustc = json.dumps({"$message_type": "diagnostic", "rendered": rendered, "level": "error"})
    assert as_printed(rustc) == rendered.rstrip()


def test_mocha_json_is_read_as_its_failures() -> None:
    stack = (
        "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n2 !== 3\n"
        "    at Context.<anonymous> (test/cart.spec.js:5:12)"
    )
    report = json.dumps(
        {
            "stats": {"failures": 1},
            "failures": [{"fullTitle": "cart adds items", "err": {"stack": stack}}],
            "passes": [],
        },
        indent=None,
    )
    assert as_printed(report).startswith("  1) cart adds items:\nAssertionError")
    assert extract_error_signature(report).startswith(
        "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal"
    )


def test_mocha_json_as_mocha_prints_it_is_read_as_its_failures() -> None:
    """``mocha --reporter json`` prints its report indented over many lines (real output,
    mocha 12.0.3): only a report on one line was read, so the run's signature was its first
    ``"stack": …`` line, a quoted string (fingerprint ``<q>: <q>``). It reads as mocha's
    failures, as the one-line report does."""
    text = (JS_REPORTS / "mocha-all.json").read_text()
    assert "\n" in text.strip()
    printed = as_printed(text)
    assert printed.startswith("  1) login returns 200:\nAssertionError [ERR_ASSERTION]: 401")
    one_line = json.dumps(json.loads(text))
    assert as_printed(one_line) == printed
    assert extract_error_signature(text) == extract_error_signature(
        (JS_REPORTS / "mocha-all.txt").read_text()
    )


@each_case(
    "text",
    [
        "KeyError: 'user'",
        '{\n  "error": {\n    "message": "rate limited"\n  }\n}',  # (indented, as jq prints)
        '{\n  "stats": {"took": 3},\n  "failures": [{"index": "logs"}]\n}',  # no mocha report
        '{"error": {"message": "rate limited"}}',  # an API's error body: read elsewhere
        '{"level": "error", "msg": "db down"}',  # a JSON log line: read elsewhere
        '{"Action": "output"',  # cut short: no JSON
        '{"Action": "deploy", "Package": "x"}',  # not test2json's action
        '{"Action": "output", "Output": "hi\\n"}',  # no package: not test2json's
        # a search API's reply with "stats" and "failures" is no mocha report (qa-s67b F10)
        '{"stats": {"took": 3}, "failures": [{"index": "logs", "reason": {"type": "x"}}]}',
        '{"stats": {"tests": 1}, "failures": [{"title": "x"}]}',  # a failure without its err
        '{"testResults": [1, 2]}',  # no jest report (no counts)
    ],
)
def test_text_that_is_no_report_comes_back_unchanged(text: str) -> None:
    assert as_printed(text) is text
    assert as_printed(f"words before\n{text}\nafter") == f"words before\n{text}\nafter"


@each_case(
    "report",
    [
        json.dumps({"testResults": [], "numTotalTests": 0, "success": True}),  # no failure
        json.dumps({"reason": "build-finished", "success": True}),  # bookkeeping alone
    ],
)
def test_a_report_that_prints_nothing_is_left_alone_or_dropped_among_lines(report: str) -> None:
    """Alone, it is left as it is (nothing else to read); among other lines, it is what the
    tool printed of it: nothing."""
    assert as_printed(report) is report
    assert as_printed(f"words before\n{report}\nafter") == "words before\nafter"


def test_a_report_among_other_lines_is_replaced_where_it_stands() -> None:
    text = f"I ran the tests:\n{jest_json()}\nany idea?"
    lines = as_printed(text).splitlines()
    assert lines[0] == "I ran the tests:" and lines[-1] == "any idea?"
    assert "FAIL src/cart.test.js" in lines


def test_a_report_s_line_is_read_as_json_loads_reads_it() -> None:
    """Each line that may be a report is decoded as ``json.loads`` decodes it (asked of its
    decoder directly: go test -json's 100,000 events): whitespace after the object is
    allowed, anything else after it makes the line no report, as does a broken object; an
    event's output keeps its colours' escapes out, and is the same string without them."""
    event = {"Action": "output", "Package": "example.com/cart", "Output": "    ok\n"}
    line = json.dumps(event)
    for after, read in (("", True), ("  \t\r", True), (" {}", False), (" x", False)):
        assert (as_printed(line + after) != line + after) is read, repr(after)
    assert as_printed(line[:-1]) == line[:-1]  # (not closed: no report)
    coloured = json.dumps({**event, "Output": "\x1b[31m--- FAIL: TestAdd\x1b[0m\n"})
    assert as_printed(coloured) == "--- FAIL: TestAdd"
    assert as_printed(line) == "    ok"
