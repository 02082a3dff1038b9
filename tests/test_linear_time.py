"""Text that a write, a query or a hook reads is scanned in time linear in its length.

Each input below took time quadratic (or cubic) in its size inside a regular expression —
seconds to minutes at the sizes kenning accepts (a 64 KiB note, a 20,000-character query),
inside the write lock or a hook's time budget. Found by driving every text function with
runs of one character, doubling their length."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

from kenning.fingerprints import error_fingerprint
from kenning.json_reports import as_printed
from kenning.querybuild import (
    chained_causes,
    error_in_sentence,
    errors_in_sentence,
    is_runner_boilerplate,
    queries_from_error,
    query_from_plan,
    reports_error,
    warned_errors,
    without_runtime_words,
)
from kenning.render import mark_block_copies, model_json_text
from kenning.safety import normalise_content
from kenning.signatures import clean_line, extract_error_signature, line_score, looks_like_error
from kenning.solution_docs import markdown_heading, parse_solution_doc

from .case_table import each_case

NOTE = 64 * 1024
QUERY = 20_000

CASES: dict[str, tuple[Callable[[str], object], str]] = {
    # 9.9 s: trailing spaces were tried from every space of a run not at a line's end
    "normalise: a run of spaces": (normalise_content, " " * NOTE + "x"),
    "normalise: a run of no-break spaces": (normalise_content, "\u00a0" * NOTE + "x"),
    "normalise: unended terminal sequences": (normalise_content, "\x1b]" + "\x1b[0" * NOTE),
    # 10 s: ^\s* ran from every line's start over all the blank lines after it
    "looks like an error: blank lines": (looks_like_error, "a" + "\n" * QUERY + "y"),
    # 8 s: a line merged with the next ones was searched whole after each merge
    "signature: dangling lines": (
        extract_error_signature,
        "TypeError: x,\n" + "a,\n" * (QUERY // 3),
    ),
    # 9 s: a lookahead over the rest of the line from every errno-like code
    "line score: codes before an error word": (line_score, "EAAA " * (NOTE // 5) + "failed"),
    "line score: codes, no error word": (line_score, "EAAA " * (NOTE // 5)),
    # 4 s: \s*\[?\s* tried every split of a run of spaces
    "error level: a run of spaces": (clean_line, " " * QUERY + "y"),
    # 39 s: the path rules from every character of a run of path characters
    "fingerprint: a run of dots": (error_fingerprint, "." * NOTE),
    "fingerprint: an ERROR-FIX entry": (
        error_fingerprint,
        "ERROR-FIX: " + "@" * NOTE + " | FIX: x",
    ),
    # 50 s at 4,000 spaces (cubic): (.*?)\s*#*\s*$
    "heading: a run of spaces": (markdown_heading, "# x" + " " * NOTE + "y"),
    "heading: a run of hashes": (markdown_heading, "# x" + "#" * NOTE + "y"),
    "plan: a heading with a run of spaces": (query_from_plan, "# x" + " " * QUERY + "y\ntext"),
    # 0.7 s at 20,000 (6 s at 64 KiB): a progress line's spaces split between its token's
    # and the status's; a rule's ends tried by a regex were cubic
    "runner boilerplate: spaces before a bracket": (is_runner_boilerplate, "x " + " " * NOTE + "["),
    "runner boilerplate: a rule's ends": (is_runner_boilerplate, "=" * QUERY + "x"),
    # 1.2 s: the line before every exception name was searched for a word of a sentence
    "reports an error: exception names and no sentence": (reports_error, "XError " * QUERY),
    # 0.8 s at 20,000: a dotted name was tried from every dot of a run
    "reports an error: a run of dotted names": (reports_error, "fix the KeyError " + "a." * QUERY),
    "error in a sentence: labels of labels": (error_in_sentence, "x " + "XError: " * QUERY),
    # 1.7 s at 20,000: Perl's "at <path> line N." tried every split of a run of dots
    "looks like an error: a path of dots": (looks_like_error, " at " + "." * QUERY + " x"),
    # 15 s at 100 KB: a kubectl prefix's "[…/…]" tried every split of a run of slashes
    "looks like an error: a bracket of slashes": (looks_like_error, "[" + "a/" * QUERY),
    "looks like an error: labels of levels": (looks_like_error, "a: level=x " * (QUERY // 10)),
    "line score: a path of dots": (line_score, " at " + "." * NOTE + " x"),
    # 45 s at 100 KB: npm's empty line, "\s+" then "\s*$", tried every split of the spaces
    "signature: npm's line of spaces": (extract_error_signature, "npm ERR!" + " " * NOTE + "x"),
    # 11 s at 20,000: a retry's words looked for from every space of a run (qa-s63c P6)
    "warnings' errors: a run of spaces": (
        warned_errors,
        "WARNING app: ConnectionError: x" + " " * QUERY + "y\nERROR app: RuntimeError: boom",
    ),
    # 2.7 s at 100 KB: a debug log's path tried from every "_logs/" of one word (qa-s63b N3)
    "signature: npm's log path": (extract_error_signature, "npm ERR! " + "_logs/-debug" * 8000),
    # 10 s: the words that end an error's message were tried after every space of a run
    "error in a sentence: a run of spaces": (error_in_sentence, "x XError: a" + " " * QUERY + "y"),
    "error in a sentence: failed asserts told": (error_in_sentence, "x fails: assert 1 " * QUERY),
    "error in a sentence: errors fixed and now": (error_in_sentence, "XError: a, now " * QUERY),
    "error in a sentence: messages typed bare": (
        error_in_sentence,
        "x fails: " + "No module named " * (QUERY // 4),
    ),
    # 2.2 s for a 20,000-character prompt: the spaces before "now" from every space of a run
    "error in a sentence: spaces before now": (
        error_in_sentence,
        "XError: a," + " " * NOTE + "x now XError: b",
    ),
    "errors in a sentence: many told": (errors_in_sentence, "x fails: assert 1 == 2. " * QUERY),
    "errors in a sentence: many joined": (errors_in_sentence, "XError: a and " * QUERY),
    "errors in a sentence: errors after sentences": (errors_in_sentence, "XError: a. " * QUERY),
    "errors in a sentence: spaces before a join": (
        errors_in_sentence,
        "XError: a" + " " * NOTE + "; XError: b",
    ),
    "error in a sentence: a run of nows": (
        error_in_sentence,
        "XError: a" + " now" * QUERY + " XError: b",
    ),
    "error in a sentence: a told assert's spaces": (
        error_in_sentence,
        "x fails:" + " " * QUERY + "assert 1",
    ),
    # a state a warning's clause ends on (qa-s63e R6): a copula looked for from every ". "
    "warnings' errors: sentences before a state": (
        warned_errors,
        "WARNING app: KeyError: x" + ". is" * (NOTE // 4) + "\nERROR app: RuntimeError: boom",
    ),
    "warnings' errors: dashes before a state": (
        warned_errors,
        "WARNING app: KeyError: x" + " - a" * (NOTE // 4) + " skipped\nERROR app: E: boom",
    ),
    # urllib3's retry warning read by the error it quotes (qa-s66b F9)
    "warnings' errors: urllib3's retry words": (
        warned_errors,
        "WARNING urllib3.connectionpool: "
        + "Retrying (Retry(x)) after connection broken by '" * (NOTE // 50)
        + "\nERROR app: RuntimeError: boom",
    ),
    # a chain's causes: each chain's line, and the tracebacks above one
    "chain's causes: chain's lines": (
        chained_causes,
        "The above exception was the direct cause of the following exception:\n" * (NOTE // 64),
    ),
    "chain's causes: tracebacks above one": (
        chained_causes,
        "Traceback (most recent call last):\nKeyError: 'x'\n" * (NOTE // 48)
        + "During handling of the above exception, another exception occurred:\nE: x",
    ),
    "chain's causes: a list of causes": (
        chained_causes,
        "Caused by:\n" + "    0: x\n" * (NOTE // 9),
    ),
    "chain's causes: an exception group's rules": (
        chained_causes,
        "+ Exception Group Traceback\n" + "+-+---- 1 ----\n | KeyError: 'a'\n" * (NOTE // 32),
    ),
    "chain's causes: Java's causes": (
        chained_causes,
        "Caused by: a.B: x\n"
        + "\tat a.B.c(B.java:1)\n" * (NOTE // 40)
        + "Caused by: a.C: y\n" * (NOTE // 20),
    ),
    "chain's causes: Java's long message": (
        chained_causes,
        "x\n" * (NOTE // 2) + "Caused by: a.B: x\n" * (NOTE // 36),
    ),
    "chain's causes: Java's suppressed causes": (
        chained_causes,
        "a.B: x\n"
        + "\tSuppressed: a.C: y\n\t\tat a.C.f(C.java:1)\n\tCaused by: a.D: z\n" * (NOTE // 64)
        + "Caused by: a.E: w\n" * 20,
    ),
    "chain's causes: Node's causes": (
        chained_causes,
        "Error: x\n"
        + "    at f (a.js:1:1)\n" * (NOTE // 40)
        + "  [cause]: Error: y\n" * (NOTE // 40),
    ),
    "chain's causes: Node's aggregated errors": (
        chained_causes,
        "AggregateError: x\n  [errors]: [\n" + "    Error: y\n" * (NOTE // 13),
    ),
    ".NET's causes: one line": (
        chained_causes,
        "a.BException: x" + " ---> a.CException: y" * (NOTE // 20),
    ),
    ".NET's causes: a dotted name": (
        chained_causes,
        "a." * (NOTE // 2) + "BException: x\n ---> " + "a." * (NOTE // 2) + "CException: y",
    ),
    ".NET's causes: lines of a message": (
        chained_causes,
        "a.BException: x\n" + ("m\n" * 40 + " ---> a.CException: y\n") * (NOTE // 100),
    ),
    ".NET's causes: an AggregateException's": (
        chained_causes,
        "AggregateException: x\n"
        + " ---> (Inner Exception #1) a.BException: y<---\n" * (NOTE // 48),
    ),
    "a prompt's words: the JVM's thread words": (
        without_runtime_words,
        'Exception in thread "x" ' * (NOTE // 24) + "y",
    ),
    "a prompt's words: an unended thread name": (
        without_runtime_words,
        'Exception in thread "' + " " * NOTE + "y",
    ),
    # (gh's job and step before a CI log's lines: two tabs and the runner's time)
    "signature: a line of tabs": (extract_error_signature, "x\t" * NOTE + "y"),
    "signature: lines of tabs": (extract_error_signature, "x\tx\tx\t2024-05-01\n" * (NOTE // 20)),
    # (what an MCP answer marks: a copy of the block's own tags and sentences)
    "block copies: a bracket and spaces": (mark_block_copies, "<" + " " * NOTE + "/"),
    "block copies: brackets, slashes, spaces": (mark_block_copies, "< / " * (NOTE // 4)),
    "block copies: a phrase's words": (mark_block_copies, "Resume normal " * (NOTE // 14)),
    "block copies: look-alike letters": (mark_block_copies, "R\u0435sume n " * (NOTE // 10)),
    "block copies: JSON of U+FDD0": (lambda t: model_json_text({t: t}), "\ufdd0<" * (NOTE // 2)),
    # (a report indented over lines, from a "{" line to the next "}" line: each "{" line
    # before one "}" would join and read the lines after it again)
    "a JSON report over lines: opened lines": (
        as_printed,
        '{\n"failures": [\n' * (NOTE // 16) + "}",
    ),
    "a JSON report over lines: unclosed": (as_printed, "{\n" * (NOTE // 2)),
    # (0.63 s: each of 1,638 failed tests that failed with one error was read; 20 now)
    "failed tests of a run: one error": (
        queries_from_error,
        "".join(f" FAIL  src/t.test.js > case {i}\nError: same\n" for i in range(NOTE // 40)),
    ),
    "failed tests of a run: mocha's numbers": (
        queries_from_error,
        "Error: x\n" + "".join(f"  {i}) t\n" for i in range(1, NOTE // 8)),
    ),
    # go test -v's parallel tests: each test's lines put under its heading (one pass)
    "go test -v: parallel tests": (
        queries_from_error,
        "".join(f"=== RUN   T{i}\n=== PAUSE T{i}\n" for i in range(NOTE // 40))
        + "".join(
            f"=== CONT  T{i}\n    a_test.go:9: got {i}\n--- FAIL: T{i} (0.00s)\n"
            for i in range(NOTE // 40)
        ),
    ),
    "go test: a test's failed subtests": (
        queries_from_error,
        "--- FAIL: T (0.00s)\n"
        + "".join(
            f"    --- FAIL: T/c{i} (0.00s)\n        a_test.go:9: got {i}\n"
            for i in range(NOTE // 40)
        ),
    ),
    "go test -v: one test's lines, many headings": (
        queries_from_error,
        "=== RUN   T\n"
        + "    a_test.go:9: got 1\n" * (NOTE // 24)
        + "--- FAIL: T (0.00s)\n" * 2000,
    ),
    # (unittest's blocks: a rule of = over each heading, a chain in each; and its runner's
    # and Django's lines around a run)
    "failed tests of a run: unittest's blocks": (
        queries_from_error,
        "".join(
            f"{'=' * 70}\nFAIL: test_{i} (m.C.test_{i}) (i={i})\n{'-' * 70}\nTraceback (most "
            f'recent call last):\n  File "t.py", line {i}, in t\nAssertionError: {i} != 0\n\n'
            for i in range(NOTE // 200)
        ),
    ),
    "runner boilerplate: a migration's dots": (is_runner_boilerplate, "Applying " + "a." * NOTE),
    "runner boilerplate: a test database's alias": (
        is_runner_boilerplate,
        "Creating test database for alias " + "'" * NOTE + "x",
    ),
    # (vitest's, jest's, mocha's, cargo's and go test's lines; 1.9 s at 64 KiB: a first
    # version's `Running \S*target/\S+` tried every split of a path of target/s)
    "runner boilerplate: a path of cargo targets": (
        is_runner_boilerplate,
        "Running " + "target/" * (NOTE // 7) + " x",
    ),
    "runner boilerplate: a cargo test file's path": (
        is_runner_boilerplate,
        "Running " + ".rs" * (NOTE // 3) + " x",
    ),
    "runner boilerplate: jest's counts": (is_runner_boilerplate, "Tests: " + "1 a, " * (NOTE // 5)),
    "runner boilerplate: vitest's counts": (
        is_runner_boilerplate,
        "Tests  " + "1 a | " * (NOTE // 6),
    ),
    "runner boilerplate: a vitest file's project": (
        is_runner_boilerplate,
        "❯ |" + "|" * NOTE + " x",
    ),
    "runner boilerplate: a jest test's times": (is_runner_boilerplate, "✓ " + " (1" * (NOTE // 3)),
    "runner boilerplate: a go package's tabs": (
        is_runner_boilerplate,
        "ok\t" + "a\t" * (NOTE // 2),
    ),
    "runner boilerplate: a mocha count's time": (is_runner_boilerplate, "1 passing (" + "1" * NOTE),
    "fingerprint: unittest's asserts": (
        error_fingerprint,
        "AssertionError: " + "1 " * (NOTE // 2),
    ),
    # (Rust's assert_eq! panic: its values read from the lines under it, long ones; older
    # Rust's quoted form; a run of many)
    "rust assert_eq!: long left and right values": (
        queries_from_error,
        "thread 't' panicked at src/lib.rs:1:1:\nassertion `left == right` failed\n  left: "
        + "[1, " * (NOTE // 8)
        + "\n right: "
        + "`, right: `" * (NOTE // 22),
    ),
    "rust assert_eq!: older Rust's quoted values": (
        queries_from_error,
        "thread 't' panicked at 'assertion failed: `(left == right)`\n  left: `"
        + "`, right: `" * (NOTE // 22)
        + "`,\n right: `"
        + "`: " * (NOTE // 6)
        + "', src/lib.rs:1:1",
    ),
    "rust assert_eq!: a run of many panics": (
        queries_from_error,
        "".join(
            f"---- t{i} stdout ----\nthread 't{i}' panicked at src/lib.rs:{i}:1:\n"
            f"assertion `left == right` failed\n  left: {i}\n right: 0\n\n"
            for i in range(NOTE // 100)
        ),
    ),
    "fingerprint: rust assert_eq!'s values": (
        error_fingerprint,
        "thread 't' panicked at src/lib.rs:1:1: assertion `left == right` failed"
        + " left: 1 right:" * (NOTE // 15),
    ),
    "fingerprint: unittest's asserts, repeated": (
        error_fingerprint,
        "AssertionError: x y" * (NOTE // 19),
    ),
}


@each_case("name", list(CASES))
def test_text_functions_take_linear_time(name: str) -> None:
    function, text = CASES[name]
    start = time.thread_time()
    function(text)
    assert time.thread_time() - start < 1.0, name


def test_a_solution_document_with_a_long_heading_is_parsed_in_linear_time(tmp_path: Path) -> None:
    doc = (
        "---\ntrack: bug\n---\n# ModuleNotFoundError: No module named 'yaml'"
        + " " * NOTE
        + "x\n\n## Fix\n\nRun `pip install pyyaml`.\n"
    )
    path = tmp_path / "docs" / "solutions" / "yaml.md"
    start = time.thread_time()
    outcome = parse_solution_doc(path, doc, tmp_path)
    assert time.thread_time() - start < 1.0
    assert outcome.entries, outcome


def test_frontmatter_aliases_are_not_expanded_into_text(tmp_path: Path) -> None:
    # "billion laughs": YAML aliases nest a list nine times per level in a few hundred
    # bytes. Loaded, they share one list; written out as text (the problem: summary) they
    # were 9**7 items — 6 s at seven levels, and each level more takes 9 times the time and
    # memory: a 500-byte doc held seed-solutions and the session-start hook for hours.
    levels = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    levels += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 7)]
    doc = (
        "---\ntrack: bug\n" + "\n".join(levels) + "\nproblem: *l6\ntitle: *l6\n---\n"
        "# Deploy fails\n\nIt fails with `Error: ENOSPC: no space left on device`.\n\n"
        "## Fix\n\nPrune old images.\n"
    )
    start = time.thread_time()
    outcome = parse_solution_doc(tmp_path / "ops" / "lol.md", doc, tmp_path)
    assert time.thread_time() - start < 1.0
    (entry,) = outcome.entries
    assert "ENOSPC" in entry.signature and "lol" not in entry.summary


@each_case(
    ("line", "expected"),
    [
        ("## Fix", (2, "Fix")),
        ("## Fix ##", (2, "Fix")),
        ("   ### The Fix:  #  ", (3, "The Fix:")),
        ("# C# tips", (1, "C# tips")),
        ("# foo # #", (1, "foo #")),
        ("# ###", (1, "")),
        ("####### seven", None),
        ("#no space", None),
        ("    # four spaces is code", None),
    ],
)
def test_markdown_heading(line: str, expected: tuple[int, str] | None) -> None:
    assert markdown_heading(line) == expected


def test_a_lazy_pattern_once_compiled_is_called_directly() -> None:
    """Every call on a lazy pattern went through ``__getattr__`` and the ``compiled``
    property: for a log's short lines that cost more than the matches themselves (a 3.8 MB
    log of 100k lines: 4.0 s, 1.8 s once the compiled pattern's methods are kept)."""
    from kenning.lazyre import lazy

    pattern = lazy(r"err(or)?")
    assert pattern.search("an error").group(0) == "error"  # type: ignore[union-attr]
    kept = vars(pattern)["search"]  # an ordinary attribute from now on
    assert isinstance(kept.__self__, re.Pattern) and pattern.search == kept
