"""Test runners' and compilers' JSON reports, read as the text they stand for.

``go test -json`` (test2json's events), ``jest --json`` and ``vitest --reporter=json``
(one object of test results), ``mocha --reporter json`` and cargo's or rustc's JSON
diagnostics (``--message-format=json``, ``--error-format=json``) hold the output a person
reads, in fields: the error of a failed test in a JSON string, escaped, one line with the
whole run's bookkeeping. Pasted or captured as they are, their signature was the report's
first characters (``{"Time":"2024-…","Action":"start",…``) and no fix was found by it.
:func:`as_printed` gives back, in their place, what the tool prints for a person (the
failures' own lines), so that an error reported as JSON is read, signed and fingerprinted
as the same error printed as text is. Pure: strings in, strings out.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from .lazyre import lazy
from .log_formats import ANSI

__all__ = ["as_printed"]

#: The longest line read as a report (a jest run of thousands of tests is one line of a few
#: MB; a longer one is left as it is rather than parsed).
REPORT_MAX_CHARS = 20_000_000

#: A line that may be one of the reports read here: a JSON object naming one of their keys,
#: from the line's start, as the tools print them (what :func:`as_printed` puts in a
#: report's place never starts so: it is not read again).
_MAYBE_REPORT = lazy(r'^\{.*"(?:Action|testResults|reason|\$message_type|failures)"[^\S\n]*:')


def as_printed(text: str) -> str:
    """``text`` with each test runner's or compiler's JSON report in it (a line of its
    own, consecutive lines of ``go test -json``, or one indented over lines from a ``{``
    line to a ``}`` line, as mocha prints it) replaced by what that tool prints for a
    person: test2json's ``Output`` (its events without output dropped), jest's and vitest's
    failed suites (``FAIL file`` and jest's message, else each failed test's
    ``● name`` and failure messages), mocha's failures (``1) title:`` and the error's stack),
    and cargo's or rustc's ``rendered`` diagnostics (build bookkeeping dropped). Any other
    line is kept as it is. A text with no report, or whose reports print nothing (a jest
    run with no failure, cargo's bookkeeping alone), comes back unchanged (the same
    object). Read once is read for good: what a report prints is not read again as a
    report (a mocha failure quoting a ``go test -json`` event stays that failure)."""
    text = _indented_reports_printed(text)
    if '{"' not in text and "{ " not in text:
        return text
    lines = text.split("\n")
    if not any(_MAYBE_REPORT.match(line) for line in lines):
        return text
    out: list[str] = []
    go_output: list[str] = []  # test2json's pieces of output, joined as the test wrote them

    def go_output_printed() -> None:
        if go_output:
            out.append(_not_read_again("".join(go_output).rstrip("\n")))
            go_output.clear()

    changed = False
    for line in lines:
        event = _report_of(line)
        if event is not None and event[0] == "go":
            go_output.append(event[1])
            changed = True
            continue
        go_output_printed()
        if event is None:
            out.append(line)
        else:
            changed = True
            if event[1]:
                out.append(_not_read_again(event[1]))
    go_output_printed()
    printed = "\n".join(out)
    return printed if changed and printed.strip() else text


def _indented_reports_printed(text: str) -> str:
    """``text`` with each report printed over several lines, from a ``{`` alone on its line
    to the next ``}`` alone on its line, replaced by what it prints (``mocha --reporter
    json`` indents its report, ``JSON.stringify(…, null, 2)``); the same object when it
    holds none. A JSON string holds no line break: the lines joined are the report's one
    line."""
    if not text.startswith("{\n") and "\n{\n" not in text:  # (most texts: no such line)
        return text
    lines = text.split("\n")
    closing: list[int | None] = [None] * len(lines)  # (each line's next "}" line: one pass)
    after: int | None = None
    for i in range(len(lines) - 1, -1, -1):
        closing[i] = after
        if lines[i].rstrip() == "}":
            after = i
    out: list[str] = []
    at = tried = 0  # (a "{" line inside a block tried is no report's first: not tried again)
    while at < len(lines):
        end = closing[at] if lines[at] == "{" and at >= tried else None
        event = (
            None if end is None else _report_of(" ".join(x.strip() for x in lines[at : end + 1]))
        )
        if end is None or event is None or event[0] != "text" or not event[1].strip():
            tried = max(tried, end or 0)
            out.append(lines[at])
            at += 1
            continue
        out.append(_not_read_again(event[1]))
        at = end + 1
    return "\n".join(out) if len(out) != len(lines) else text


def _not_read_again(printed: str) -> str:
    """``printed`` with each of its lines that opens a JSON object indented by a space, so
    that no later reading takes it for a report of its own."""
    if "{" not in printed:
        return printed
    return "\n".join(f" {line}" if line.startswith("{") else line for line in printed.split("\n"))


def _report_of(line: str) -> tuple[str, str] | None:
    """``("go", output)`` for a test2json event (its output, "" when it has none), ``("text",
    printed)`` for a whole report or diagnostic, None for a line that is neither."""
    if len(line) > REPORT_MAX_CHARS or not _MAYBE_REPORT.match(line):
        return None
    try:
        event = _json_object(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(event, dict):
        return None
    if _is_test2json(event):
        output = event.get("Output")
        if not isinstance(output, str):
            return "go", ""
        return "go", ANSI.sub("", output) if "\x1b" in output else output  # (ANSI's ESC)
    for read in (_jest_failures, _mocha_failures, _diagnostic):
        printed = read(event)
        if printed is not None:
            return "text", ANSI.sub("", printed)
    return None


#: json.loads' own decoder, asked directly (:func:`_json_object`).
_DECODER = json.JSONDecoder()


def _json_object(line: str) -> object:
    """``json.loads(line)`` of a line that starts with ``{`` (as :data:`_MAYBE_REPORT`
    matches it): without loads' checks of a text that does not (its type, a BOM, the
    whitespace before it), ~1 µs a line of go test -json's 100,000 events."""
    event, end = _DECODER.raw_decode(line)
    if end != len(line) and line[end:].strip(" \t\n\r"):  # (loads' whitespace after it)
        raise json.JSONDecodeError("Extra data", line, end)
    return event


def _is_test2json(event: dict[str, object]) -> bool:
    """test2json's event: an ``Action`` of its own words and the package it is of
    (``Package``, or a build's ``ImportPath``), whatever else a newer Go adds to it (an
    output event's ``OutputType``, an ``attr`` event's ``Key`` and ``Value``: which
    release added them is not checked here) (``go test -json``, ``gotestsum --jsonfile``)."""
    return event.get("Action") in _GO_ACTIONS and (
        isinstance(event.get("Package"), str) or isinstance(event.get("ImportPath"), str)
    )


_GO_ACTIONS = frozenset(
    {"start", "run", "pause", "cont", "pass", "bench", "fail", "output", "skip", "build-output",
     "build-fail", "attr"}
)  # fmt: skip


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, list):
        yield from (v for v in value if isinstance(v, str) and v.strip())


def _jest_failures(event: dict[str, object]) -> str | None:
    """A jest (or vitest) ``--json`` report's failures as the runner prints them: ``FAIL
    file``, then jest's message (``● suite › test`` and the failure), or, where the message
    is empty (vitest's), each failed test as vitest prints it (:func:`_vitest_failure`);
    "" for a report of no failure. None for anything else."""
    results = event.get("testResults")
    if not isinstance(results, list) or not (
        "numTotalTests" in event or "numFailedTests" in event or "success" in event
    ):
        return None
    printed: list[str] = []
    for result in results:
        if not isinstance(result, dict):
            continue
        failed = [
            a
            for a in result.get("assertionResults") or ()
            if isinstance(a, dict) and a.get("status") == "failed"
        ]
        message = result.get("message")
        if result.get("status") != "failed" and not failed:
            continue
        name = result.get("name") or result.get("testFilePath")
        name = name if isinstance(name, str) else ""
        if isinstance(message, str) and message.strip():
            printed.append(f"FAIL {name}" if name else "FAIL")
            printed.append(message.rstrip())
            continue
        if not failed and name:
            printed.append(f"FAIL {name}")
        for assertion in failed:
            printed.extend(_vitest_failure(name, assertion))
    if printed:  # and its summary, as jest ends a run with it
        printed.append("")
        printed.extend(_jest_summary(event))
    return "\n".join(printed)


def _vitest_failure(file: str, assertion: dict[str, object]) -> Iterator[str]:
    """A failed test of vitest's JSON report as vitest prints it: `` FAIL  file > suite >
    test`` and what it threw (its failure messages), so that it is known by its test and
    what it threw as vitest's own output is (``signatures._with_vitest_test``); its
    ``fullName`` joins the suites and the test with spaces, its ``ancestorTitles`` and
    ``title`` are the parts vitest's heading joins with ``>``."""
    ancestors, title = assertion.get("ancestorTitles"), assertion.get("title")
    if isinstance(title, str) and title and isinstance(ancestors, list):
        names = [a for a in ancestors if isinstance(a, str)] + [title]
    else:
        full = assertion.get("fullName") or title
        names = [full] if isinstance(full, str) and full else []
    heading = " > ".join(" ".join(n.split()) for n in [file, *names] if n.strip())
    yield f" FAIL  {heading}" if heading else " FAIL"
    yield from (m.rstrip() for m in _strings(assertion.get("failureMessages")))
    yield ""


def _jest_summary(event: dict[str, object]) -> Iterator[str]:
    """jest's ``Test Suites:`` and ``Tests:`` lines of a report's counts."""
    for heading, kind in (("Test Suites:", "TestSuites"), ("Tests:", "Tests")):
        counts = [
            (event.get(f"num{state}{kind}"), word)
            for state, word in (
                ("Failed", "failed"),
                ("Pending", "skipped"),
                ("Todo", "todo"),
                ("Passed", "passed"),
                ("Total", "total"),
            )
        ]
        said = [f"{n} {word}" for n, word in counts if isinstance(n, int) and n > 0]
        if said:
            yield f"{heading:<13}{', '.join(said)}"


def _mocha_failures(event: dict[str, object]) -> str | None:
    """mocha's ``--reporter json`` failures as its spec reporter lists them (``1) full
    title:`` and the error's stack, else its message); None for anything else."""
    failures, stats = event.get("failures"), event.get("stats")
    if not (
        isinstance(failures, list)
        and isinstance(stats, dict)
        and _MOCHA_STATS.intersection(stats)
        and all(_is_mocha_failure(f) for f in failures)
    ):
        return None  # (another JSON with "stats" and "failures": a search API's reply)
    printed: list[str] = []
    for number, failure in enumerate(failures, 1):
        title = failure.get("fullTitle") or failure.get("title")
        err = failure["err"]
        stack, message = err.get("stack"), err.get("message")
        said = stack if isinstance(stack, str) and stack.strip() else message
        printed.append(f"  {number}) {title}:\n{said if isinstance(said, str) else ''}".rstrip())
    return "\n".join(printed)


#: mocha's counts of a run (``stats``).
_MOCHA_STATS = frozenset({"suites", "tests", "passes", "pending", "failures", "duration"})


def _is_mocha_failure(failure: object) -> bool:
    """A failure of mocha's report: its title, and its error (an object)."""
    return (
        isinstance(failure, dict)
        and isinstance(failure.get("fullTitle") or failure.get("title"), str)
        and bool(failure.get("fullTitle") or failure.get("title"))
        and isinstance(failure.get("err"), dict)
    )


def _diagnostic(event: dict[str, object]) -> str | None:
    """cargo's ``compiler-message`` (its ``rendered`` diagnostic), "" for its other
    messages (artifacts, build scripts, ``build-finished``); rustc's own JSON diagnostic's
    ``rendered``. None for anything else."""
    reason = event.get("reason")
    if (isinstance(reason, str) and "package_id" in event) or reason == "build-finished":
        message = event.get("message")
        if reason == "compiler-message" and isinstance(message, dict):
            rendered = message.get("rendered")
            return rendered.rstrip() if isinstance(rendered, str) else ""
        return ""
    if event.get("$message_type") == "diagnostic":
        rendered = event.get("rendered")
        return rendered.rstrip() if isinstance(rendered, str) else ""
    return None
