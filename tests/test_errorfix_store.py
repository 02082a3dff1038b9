"""Error→fix knowledge on a real store: seeding, fingerprints, hybrid retrieval, calibration."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from kenning import MemoryStore, open_store, protocol
from kenning.backends.base import Filters
from kenning.calibration import calibrate, read_queries
from kenning.embedders.base import Embedder
from kenning.errors import StoreLocationError, UserInputError
from kenning.search import ANOTHER_CODE_SCORE, FINGERPRINT_SCORE
from kenning.seeding import seed_solutions
from kenning.signatures import looks_like_error
from kenning.store import NewMemory

from .cli_runner import CliRun, run_cli
from .conftest import EVAL_DIR, PROJECT_REMOTE, made_once, make_repo
from .conftest import needs_eval as eval_mark

YELLOW_DOCS = EVAL_DIR / "yellow-solutions" / "docs"
needs_eval = eval_mark(YELLOW_DOCS)


@pytest.fixture
def store(project: Path, minilm: Embedder) -> Iterator[MemoryStore]:
    """conftest's ``store``, a new store of the ``project``, whose files (its ``.kenning``
    folder: the schema, no row) are copied from a store open_store made once in this
    process, in a project of the same remote, not made again by open_store for each of the
    module's ~140 tests (the schema and the switch to WAL: ~6 ms CPU of the ~9 a new store's
    open cost; opening a copy ~3.5). Each copy is files of its own, fresh; what differs from
    a store made for the test is its random token, the same in every copy of this process
    (the test's store is the only one it is compared with: its own vector file's)."""
    made = made_once("errorfix-store", PROJECT_REMOTE, lambda base: _new_store(base, minilm))
    shutil.copytree(made / ".kenning", project / ".kenning", copy_function=shutil.copyfile)
    s = open_store(cwd=project, embedder=minilm)
    yield s
    s.close()


def _new_store(base: Path, embedder: Embedder) -> None:
    """The files of a new store of a project of :data:`PROJECT_REMOTE`, in ``base``."""
    project = make_repo(base / "proj", remote=PROJECT_REMOTE)
    open_store(cwd=project, embedder=embedder).close()
    shutil.copytree(project / ".kenning", base / ".kenning")


BUG_DOC = """---
title: Widget import fails
track: bug
problem: importing the widget module crashes at startup
---
# Widget import fails

Running the app prints:

```
Traceback (most recent call last):
  File "app/main.py", line 3, in <module>
ModuleNotFoundError: No module named 'widgetlib'
```

## Fix

Add `widgetlib` to requirements.txt and reinstall the virtualenv.
"""


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


@needs_eval
def test_seed_yellow_solutions_is_idempotent(project: Path) -> None:
    """Seeding the real docs twice stores their entries once. What this checks is the
    seed's own bookkeeping (each doc parsed, an unchanged entry known by its hash), not
    what the vectors find, so the store embeds with the hashing embedder: MiniLM spent
    4 of the test's 5.9 CPU-s on the 36 entries, and finds no near-duplicate among them
    either (36 seeded, 0 duplicates with both)."""
    with open_store(cwd=project, embedder="hashing") as store:
        first = seed_solutions(store, YELLOW_DOCS, source_prefix="docs/solutions")
        assert first.scanned == 131  # 132 docs, one of them under archived/
        assert first.failed == 1  # the doc with broken YAML
        assert 30 <= first.seeded + first.duplicates <= 45
        assert first.seeded >= 30
        reasons = {f.reason for f in first.files if f.status == "failed"}
        assert any("YAML" in (r or "") for r in reasons)
        count = store.backend.count(Filters())
        second = seed_solutions(store, YELLOW_DOCS, source_prefix="docs/solutions")
        assert second.seeded == 0 and second.duplicates == first.seeded + first.duplicates
        assert store.backend.count(Filters()) == count
        sample = next(store.backend.iterate(Filters())).memory
        assert (
            sample.content.startswith("ERROR-FIX: ")
            and "| SOURCE: docs/solutions/" in sample.content
        )
        assert (
            sample.type == "error_fix"
            and sample.source
            and sample.source.startswith("docs/solutions/")
        )


def test_seed_reports_bad_files_per_file(store: MemoryStore, project: Path, tmp_path: Path) -> None:
    docs = project / "docs" / "solutions"
    write(docs / "runtime" / "widget.md", BUG_DOC)
    write(docs / "runtime" / "broken.md", "---\ntrack: bug\nproblem: [unclosed\n---\n## Fix\nx\n")
    write(docs / "runtime" / "binary.md", b"\x00\x01\x02 binary")
    write(docs / "runtime" / "huge.md", "x" * (1024 * 1024 + 1))
    write(docs / "archived" / "old.md", BUG_DOC.replace("widgetlib", "oldlib"))
    write(docs / "notes" / "knowledge.md", BUG_DOC.replace("track: bug", "track: knowledge"))
    outside = write(tmp_path / "outside.md", BUG_DOC.replace("widgetlib", "evil"))
    (docs / "runtime" / "link.md").symlink_to(outside)
    report = seed_solutions(store, docs)
    status = {f.path: (f.status, f.reason) for f in report.files}
    assert status["runtime/widget.md"][0] == "seeded"
    assert status["runtime/broken.md"][0] == "failed" and "YAML" in (
        status["runtime/broken.md"][1] or ""
    )
    assert status["runtime/binary.md"] == ("failed", "binary file (contains NUL bytes)")
    assert "limit" in (status["runtime/huge.md"][1] or "")
    assert "symlink leaves the project" in (status["runtime/link.md"][1] or "")
    assert status["notes/knowledge.md"][0] == "skipped"
    assert not any("archived" in p for p in status)
    assert report.seeded == 1 and report.failed == 4 and not report.ok
    (memory,) = [r.memory for r in store.backend.iterate(Filters())]
    assert memory.content.startswith("ERROR-FIX: ModuleNotFoundError: No module named")
    assert "SOURCE: docs/solutions/runtime/widget.md" in memory.content


def test_a_utf16_doc_is_named_as_text_to_save_as_utf8(store: MemoryStore, project: Path) -> None:
    """Windows PowerShell 5 writes UTF-16 with a byte-order mark (`Out-File`, `>`): every
    other byte of ASCII text is NUL, and the doc was reported as a binary file."""
    docs = project / "docs" / "solutions"
    for name, encoding in (("le.md", "utf-16"), ("be.md", "utf-16-be")):
        data = BUG_DOC.encode(encoding)
        write(docs / "runtime" / name, data if encoding == "utf-16" else b"\xfe\xff" + data)
    report = seed_solutions(store, docs)
    assert report.failed == 2 and report.scanned == 2
    for f in report.files:
        assert f.status == "failed" and f.reason == "UTF-16 text, not UTF-8: save it as UTF-8"


def test_seed_missing_and_empty_folders(store: MemoryStore, project: Path) -> None:
    with pytest.raises(UserInputError, match="does not exist"):
        seed_solutions(store, project / "nope")
    (project / "empty").mkdir()
    report = seed_solutions(store, project / "empty")
    assert (report.scanned, report.seeded, report.failed) == (0, 0, 0)


def test_seed_runs_the_store_location_guard_first(
    store: MemoryStore, project: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "foreign-store"
    elsewhere.mkdir()
    store.close()
    import shutil

    shutil.rmtree(project / ".kenning")
    (project / ".kenning").symlink_to(elsewhere)
    write(project / "docs" / "solutions" / "a" / "b.md", BUG_DOC)
    with pytest.raises(StoreLocationError):
        seed_solutions(store, project / "docs" / "solutions")
    assert list(elsewhere.iterdir()) == []


def test_seed_cli_json_and_exit_codes(project: Path) -> None:
    write(project / "docs" / "solutions" / "runtime" / "widget.md", BUG_DOC)

    def run(*a: str) -> CliRun:
        return run_cli(project, *a)

    r = run("seed-solutions", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert (data["scanned"], data["seeded"], data["skipped"], data["failed"]) == (1, 1, 0, 0)
    r = run("seed-solutions")
    assert r.returncode == 0 and "seeded 0, duplicates 1" in r.stdout
    write(project / "docs" / "solutions" / "runtime" / "bad.md", "---\ntrack: [bug\n---\n")
    r = run("seed-solutions")
    assert r.returncode == 1 and "failed: runtime/bad.md" in r.stderr
    # exit 1's error line, last, in text and in --json (whose stdout stays the JSON)
    assert r.stderr.splitlines()[-1].startswith("error: 1 document could not be read"), r.stderr
    r = run("seed-solutions", "--json")
    assert r.returncode == 1 and json.loads(r.stdout)["failed"] == 1
    assert r.stderr.splitlines()[-1].startswith("error: 1 document could not be read"), r.stderr
    r = run("seed-solutions", "does/not/exist")
    assert r.returncode == 1 and "does not exist" in r.stderr


def test_seed_cli_finds_the_checkouts_solutions_from_a_subfolder(project: Path) -> None:
    """`kenning seed-solutions` (no folder) looked for docs/solutions under the current
    folder: run from src/ it failed ('does not exist'), though every other command finds
    the project from any folder of it. The default is the checkout's docs/solutions, and
    the SOURCE: paths are the same as from the top."""
    write(project / "docs" / "solutions" / "runtime" / "widget.md", BUG_DOC)
    (project / "src").mkdir()
    r = run_cli(project / "src", "seed-solutions", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["seeded"] == 1
    exported = run_cli(project, "export", "--no-vectors").stdout.splitlines()[1:]
    (entry,) = [json.loads(line) for line in exported]
    assert "SOURCE: docs/solutions/runtime/widget.md" in entry["content"], entry


def test_a_solutions_folder_a_symlink_leads_out_of_the_project_is_refused(
    project: Path, tmp_path: Path
) -> None:
    """A cloned repository's committed ``docs/solutions -> ../../elsewhere`` made
    `kenning seed-solutions` store whatever solution docs lay there on this machine, recalled
    into prompts and exported from then on (a doc's own symlink out was already refused).
    It is refused, nothing stored; the folder named as itself is seeded, and a link that
    stays inside the project is followed as before."""
    outside = tmp_path / "elsewhere"
    write(outside / "sol" / "leak.md", BUG_DOC)
    (project / "docs").mkdir()
    (project / "docs" / "solutions").symlink_to(outside)
    (project / "docs" / "outlink").symlink_to(outside)
    for args in ((), ("docs/outlink",)):
        r = run_cli(project, "seed-solutions", *args)
        assert r.returncode == 1, (args, r.stdout, r.stderr)
        (line,) = [x for x in r.stderr.splitlines() if x.startswith("error:")]
        assert "a symlink leads it out" in line and str(outside.resolve()) in line, line
    listed = run_cli(project, "export", "--no-vectors")
    assert listed.stdout.splitlines()[1:] == [], listed.stdout
    named = run_cli(project, "seed-solutions", "--json", str(outside))
    assert named.returncode == 0 and json.loads(named.stdout)["seeded"] == 1, named.stderr
    write(project / "kb" / "runtime" / "widget.md", BUG_DOC.replace("widgetlib", "gadgetlib"))
    (project / "docs" / "inlink").symlink_to(project / "kb")
    inside = run_cli(project, "seed-solutions", "--json", "docs/inlink")
    assert inside.returncode == 0 and json.loads(inside.stdout)["seeded"] == 1, inside.stderr


def test_fingerprint_finds_the_same_error_from_another_run(store: MemoryStore) -> None:
    entry = (
        "ERROR-FIX: TypeError: Cannot read properties of undefined (reading 'items') | FIX: guard the "
        "response with optional chaining before mapping | SOURCE: docs/solutions/ui/cart.md — cart crash"
    )
    stored = store.remember(entry, "context")
    assert stored.type == "error_fix"
    (memory,) = store.backend.get([stored.id or ""])
    assert memory.metadata["error_fingerprint"]
    raw = """
    /srv/app/node_modules/react-dom/cjs/react-dom.development.js:4012
    TypeError: Cannot read properties of undefined (reading 'lineItems')
        at CheckoutPage (/home/ci/build/src/pages/Checkout.tsx:88:17)
        at renderWithHooks (/home/ci/build/node_modules/react-dom.js:1:2)
    """
    result = store.recall(raw)
    assert result.floor == protocol.ERROR_RECALL_FLOOR
    assert result.hits[0].memory.id == stored.id
    assert result.hits[0].match == "fingerprint" and result.hits[0].score >= 0.95


def _gh_run_log(job: str, step: str, lines: list[str]) -> str:
    """``lines`` as ``gh run view --log`` prints a GitHub Actions step's: its job and step
    before each, the runner's time, and the byte order mark its log file starts with."""
    marks = ["\ufeff", *[""] * len(lines)]
    return "\n".join(
        f"{job}\t{step}\t{mark}2024-05-01T12:00:0{i}.1234567Z {line}"
        for i, (mark, line) in enumerate(zip(marks, lines, strict=False))
    )


def test_a_ci_log_from_gh_run_view_finds_the_fix_stored_for_its_error_exactly(
    store: MemoryStore,
) -> None:
    """``gh run view --log-failed`` puts the job's and step's names before each line of a
    run's log: they were read as the error's words (its signature ``build Run npm run build
    2024-…Z src/index.ts(3,7): error TS2322: …``, a loose 0.87 match of the fix stored for
    the error; a one-line ruff error with them did not look like an error). The runner's
    lines are read as its raw log holds them."""
    from kenning.hooks.claude_code import prompt_queries
    from kenning.querybuild import error_recall_queries

    error = "error TS2322: Type 'string' is not assignable to type 'number'."
    fix = store.remember(f"ERROR-FIX: {error} | FIX: parse the param with Number()", "error_fix")
    store.remember(
        "ERROR-FIX: error TS2345: Argument of type 'string' is not assignable to parameter of "
        "type 'number'. | FIX: convert at the call site",
        "error_fix",
    )
    lines = ["> web@1.0.0 build", "> tsc -p .", f"src/index.ts(3,7): {error}"]
    log = _gh_run_log(
        "build (20.x)",
        "Run npm run build",
        [*lines, "##[error]Process completed with exit code 2."],
    )
    for result in (store.recall(log), store.recall_many(*error_recall_queries(log)[:1])):
        assert result.hits[0].memory.id == fix.id
        assert result.hits[0].match == "fingerprint" and result.hits[0].score >= 0.95
    assert prompt_queries(f"why does the build fail?\n{log}") == [
        ("why does the build fail?", False),
        (f"{error} (exit code 2)", True),
    ]
    ruff = _gh_run_log("lint", "Run ruff check", ["src/app.py:3:8: F401 `os` imported but unused"])
    assert looks_like_error(ruff)
    # (the job's and step's words were the prompt's own: a sentence before pytest's E line)
    tests = _gh_run_log(
        "test (3.12, ubuntu-latest)",
        "Run pytest",
        ["tests/test_api.py F", "E   AssertionError: assert 401 == 200"],
    )
    assert prompt_queries(f"why does CI fail?\n{tests}") == [
        ("AssertionError: assert 401 == 200", True)
    ]
    unused = store.remember("ERROR-FIX: F401 `os` imported but unused | FIX: drop it", "error_fix")
    assert store.recall(ruff).hits[0].memory.id == unused.id
    assert store.recall(ruff).hits[0].match == "fingerprint"
    assert prompt_queries(ruff) == [("F401 `os` imported but unused", True)]


def test_a_test_runner_s_json_report_finds_the_fix_stored_for_its_failure_exactly(
    store: MemoryStore, project: Path
) -> None:
    """``go test -json`` and ``jest --json`` hold the failure in JSON strings: their
    signature was the report's first characters and the fix stored for the failure, as the
    runner prints it, was not found by it. They are read as the runner prints them: the
    same fingerprint, through recall, ``recall --error`` and the prompt hook."""
    from kenning.hooks.claude_code import prompt_queries

    from .test_json_reports import go_test_json, jest_json

    go_fix = store.remember(
        "ERROR-FIX: --- FAIL: TestAdd (0.00s): Add(1, 1) = 3, want 2 | FIX: Add counted the "
        "carry twice; drop the second increment",
        "error_fix",
    )
    jest_fix = store.remember(
        "ERROR-FIX: ● cart › adds items: expect(received).toBe(expected) // Object.is "
        "equality Expected: 3 Received: 2 | FIX: cart.add() skipped items already in the cart",
        "error_fix",
    )
    for report, fix in ((go_test_json(), go_fix), (jest_json(), jest_fix)):
        hit = store.recall(report).hits[0]
        assert (hit.memory.id, hit.match) == (fix.id, "fingerprint")
        r = run_cli(project, "recall", "--error", "-", "--json", stdin=report)
        assert r.returncode == 0, r.stderr
        found = json.loads(r.stdout)
        assert found["results"][0]["id"] == fix.id, found
        assert (prompt_queries(f"CI fails, why?\n{report}")[-1])[1] is True


@pytest.mark.parametrize("runner", ["vitest", "jest"])
def test_a_js_test_failure_finds_the_fix_stored_from_its_other_reporter_exactly(
    store: MemoryStore, project: Path, runner: str
) -> None:
    """A fix stored for a vitest (or jest) failure as its default reporter prints it is the
    exact match of the same failure reported by ``vitest run --reporter=json`` (``jest
    --json``), and the other way round (real output, tests/data/js_test_reports): vitest's
    report's signature was what the test threw alone and its file's path absolute, the
    printed one's the test and a relative path. Through recall and ``recall --error -``."""
    from kenning.signatures import extract_error_signature

    from .test_json_reports import JS_REPORTS

    for run in ("auth", "empty_cart"):
        printed = (JS_REPORTS / f"{runner}-{run}.txt").read_text()
        report = (JS_REPORTS / f"{runner}-{run}.json").read_text()
        for stored_from, asked in ((printed, report), (report, printed)):
            signature = extract_error_signature(stored_from)
            fix = store.remember(f"ERROR-FIX: {signature} | FIX: the fix of {run}", "error_fix")
            hit = store.recall(asked).hits[0]
            assert (hit.memory.id, hit.match) == (fix.id, "fingerprint"), (run, hit)
            r = run_cli(project, "recall", "--error", "-", "--json", stdin=asked)
            assert r.returncode == 0, r.stderr
            assert json.loads(r.stdout)["results"][0]["id"] == fix.id
            store.forget(fix.id)


def test_a_logfmt_line_finds_the_fix_stored_for_its_error_field_exactly(
    store: MemoryStore,
) -> None:
    """qa-s62c H7a: a logfmt line's signature is its message and its error (``connect
    failed: dial tcp …``); a fix stored for Go's bare error, as ``log.Fatal(err)`` prints it,
    was found by words at 0.82. Its error field is asked too: that fix is the exact match of
    the line alone, of a pasted log and of the prompt hook's queries."""
    from kenning.hooks.claude_code import prompt_queries
    from kenning.querybuild import queries_from_error

    bare = "dial tcp 127.0.0.1:5432: connect: connection refused"
    fix = store.remember(f"ERROR-FIX: {bare} | FIX: start postgres before the api", "error_fix")
    store.remember(
        'ERROR-FIX: migrate failed: pq: relation "users" does not exist | FIX: run migrations',
        "error_fix",
    )
    line = f'time="2024-05-02T09:14:02Z" level=error msg="connect failed" error="{bare}" attempt=3'
    log = "\n".join(
        [
            'time="2024-05-02T09:14:01Z" level=info msg="starting api" version=1.4.2',
            line,
            'time="2024-05-02T09:14:02Z" level=info msg="shutting down"',
        ]
    )
    for asked in (line, log):
        result = store.recall(asked)
        assert result.hits[0].memory.id == fix.id, asked
        assert result.hits[0].match == "fingerprint" and result.hits[0].score >= 0.95
    assert (bare, True) in prompt_queries(f"the api dies on start:\n{log}")
    # a logfmt line whose message is its error alone asks it once
    assert queries_from_error(f'level=error error="{bare}" attempt=3') == [bare]
    # ... and of zap's console line, its fields' error
    zap = f'2024-05-02T09:14:02.123Z\tERROR\tapp/main.go:42\tconnect failed\t{{"error": "{bare}"}}'
    assert queries_from_error(zap) == [f"connect failed: {bare}", bare]
    # and an error that many errors end in is not asked alone, nor no error at all (qa-s63 M7)
    assert queries_from_error('level=error msg="read failed" error=EOF') == ["read failed: EOF"]
    assert queries_from_error('level=error msg=failed err=": foo"') == ["failed: : foo"]
    # ... a terminal's colours around the keys are no matter (qa-s63 M3), and the error is
    # asked alone when its line's message and error pass the signature's 300 characters (M5)
    coloured = f'\x1b[31mERRO\x1b[0m[0005] connect failed       \x1b[31merror\x1b[0m="{bare}"'
    assert queries_from_error(coloured) == [f"connect failed: {bare}", bare]
    long = f'level=error msg="{"the charge could not be authorised " * 8}" error="{bare}"'
    assert queries_from_error(long)[1:] == [bare]
    # ... not from another line whose message only starts as the signature does (qa-s63b N2)
    other = f'level=info msg="connection pool warmed" err="{bare}"\nlevel=fatal msg="connect"'
    assert queries_from_error(other) == ["connect"]


def test_a_fix_remembered_from_coloured_output_is_the_exact_match_of_its_error(
    store: MemoryStore,
) -> None:
    # cargo, pytest --color=yes, a CI job's raw log: the error line as the terminal got it,
    # colours and all. The note keeps its words, not the escape sequences' leftovers
    # ("[1m[31merror[0m"), and its fingerprint is the error's own.
    coloured = (
        "ERROR-FIX: \x1b[1m\x1b[31merror[E0382]\x1b[0m\x1b[1m: borrow of moved value: `v`"
        "\x1b[0m | FIX: clone the vector before moving it into the thread"
    )
    stored = store.remember(coloured, "error_fix")
    (memory,) = store.backend.get([stored.id or ""])
    assert memory.content == (
        "ERROR-FIX: error[E0382]: borrow of moved value: `v` | FIX: clone the vector before "
        "moving it into the thread"
    ), memory.content
    (first, *_) = store.recall("error[E0382]: borrow of moved value: `items`").hits
    assert (first.memory.id, first.match) == (stored.id, "fingerprint"), first


def test_a_fingerprint_that_masks_every_word_is_no_exact_match(store: MemoryStore) -> None:
    # an entry whose signature is a quoted message ('"unknown tool"', from a solution doc)
    # had the fingerprint "<q>": every error query that is a quoted message, whatever it
    # says, was its exact match (0.95, first)
    tool = store.remember('ERROR-FIX: "unknown tool" | FIX: register the tool', "error_fix")
    stored = store.get(tool.id or "")
    assert stored is not None and "error_fingerprint" not in stored.metadata, stored
    store.remember(
        "ERROR-FIX: ECONNRESET: socket hang up | FIX: retry the upload with keep-alive off",
        "error_fix",
    )
    for query in ('"connection reset by peer"', "'invalid api key'", "`x`"):
        hits = store.recall(query, errors=True).hits
        assert all(h.match != "fingerprint" for h in hits), (query, hits)
    # its own error is found by its words, as any note
    (first, *_) = store.recall('"unknown tool"', errors=True).hits
    assert first.memory.id == tool.id


def test_a_query_said_to_be_an_error_finds_its_fix_by_fingerprint(store: MemoryStore) -> None:
    # rustc's and ruff's warnings do not look like errors to the detector; --errors (and
    # --error RAW, whose signature is such a line) says they are, and the same warning about
    # another name must then find its fix by fingerprint, not lose to a look-alike note
    unused = store.remember(
        "ERROR-FIX: warning: unused variable: `request_handler_factory` | FIX: prefix the "
        "binding with an underscore or remove it | SOURCE: docs/solutions/rust/unused.md — "
        "a binding that is never read",
        "error_fix",
    )
    store.remember(
        "ERROR-FIX: warning: variable does not need to be mutable | FIX: drop the mut keyword "
        "| SOURCE: docs/solutions/rust/unused-mut.md — mut not needed",
        "error_fix",
    )
    result = store.recall("warning: unused variable: `mut_buffer`", errors=True)
    assert result.hits[0].memory.id == unused.id
    assert result.hits[0].match == "fingerprint" and result.hits[0].score >= 0.95


def test_unrelated_queries_score_below_the_floor(store: MemoryStore) -> None:
    for text in (
        "ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: enable WAL and busy_timeout",
        "ERROR-FIX: ModuleNotFoundError: No module named 'yaml' | FIX: pip install pyyaml in the venv",
        "Use snake_case for all Python function names.",
        "We chose PostgreSQL for the team backend because of pgvector.",
    ):
        store.remember(text, "context")
    for query in (
        "chocolate cake recipe with strawberries",
        "how do I tune a guitar to drop D",
        "best hiking trails near the alps in summer",
    ):
        for hit in store.retrieve(query, 5, Filters(group_id=store.group_id)):
            assert hit[1] < protocol.RECALL_FLOOR, (query, hit)
        assert store.recall(query).hits == ()


def test_calibrate_reports_accuracy_and_floor(store: MemoryStore) -> None:
    a = store.remember(
        "ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: enable WAL", "context"
    )
    b = store.remember(
        "ERROR-FIX: npm ERR! code ERESOLVE | FIX: align the peer dependency versions", "context"
    )
    lines = [
        json.dumps({"query": "sqlite says the database is locked", "gold": [a.id]}),
        json.dumps({"query": "npm ERESOLVE unable to resolve dependency tree", "gold": [b.id]}),
        json.dumps({"query": "sourdough starter feeding schedule", "gold": []}),
    ]
    report = calibrate(store, read_queries(lines))
    s = report.summary()
    assert s["labelled_queries"] == 2 and s["unrelated_queries"] == 1
    assert s["top1_accuracy"] == 1.0
    assert s["highest_unrelated_score"] < s["correct_score_min"]
    assert s["highest_unrelated_score"] < s["suggested_floor"] < s["correct_score_min"]
    with pytest.raises(UserInputError, match="line 1"):
        read_queries(['{"gold": []}'])


def test_query_builders_read_a_log_with_a_byte_that_is_not_utf8(project: Path) -> None:
    """A test run's log or a diff holds another encoding's bytes (a Latin-1 file, a stray
    byte): `query error -`, `query plan -`, `query pr --body-file -` and `recall --error -`
    refused the whole input ("not UTF-8", exit 1), so `kenning recall --errors "$(npm test
    2>&1 | kenning query error -)"` recalled with no query. The byte is replaced."""
    log = b"build log caf\xe9\nTraceback (most recent call last):\n  File \"a.py\"\nKeyError: 'user'\n"
    r = run_cli(project, "query", "error", "-", stdin=log)
    assert r.returncode == 0 and r.stdout.strip() == "KeyError: 'user'", r.stderr
    plan = b"# Plan\n\n## Overview\n\nMove auth to middleware (caf\xe9).\n"
    r = run_cli(project, "query", "plan", "-", stdin=plan)
    assert r.returncode == 0 and "Move auth to middleware" in r.stdout, r.stderr
    body = b"Retry uploads on flaky networks \xff and log each retry."
    r = run_cli(project, "query", "pr", "--title", "Retry", "--body-file", "-", stdin=body)
    assert r.returncode == 0 and "Retry uploads on flaky networks" in r.stdout, r.stderr
    r = run_cli(project, "recall", "--error", "-", stdin=b"KeyError: \xff 'user'\n")
    assert r.returncode == 0 and "not UTF-8" not in r.stderr, r.stderr
    # a note is stored data: its bytes are still refused, not replaced
    r = run_cli(project, "remember", "-", stdin=b"caf\xe9 is where we meet")
    assert r.returncode == 1 and "not valid UTF-8" in r.stderr, r.stderr


def test_query_builders_cli(project: Path) -> None:

    def run(*a: str, stdin: str | None = None) -> CliRun:
        return run_cli(project, *a, stdin=stdin)

    r = run(
        "query",
        "error",
        "-",
        stdin="Traceback (most recent call last):\n  File \"a.py\", line 1\nKeyError: 'user'\n",
    )
    assert r.returncode == 0 and r.stdout.strip() == "KeyError: 'user'"
    r = run(
        "query",
        "plan",
        "-",
        stdin="# Plan\n\n## Overview\n\nMove auth to middleware.\n\n## Steps\n\n1. x\n",
    )
    assert r.stdout.strip() == "Move auth to middleware."
    r = run(
        "query",
        "pr",
        "--title",
        "Fix login",
        "--file",
        "src/auth/login.py",
        "--file",
        "tests/test_login.py",
    )
    assert r.returncode == 0 and "Fix login" in r.stdout and "login.py" in r.stdout
    r = run("recall", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")
    assert r.returncode == 1 and "diff" in r.stderr


def test_a_missing_module_does_not_get_the_fix_of_another_missing_module(
    store: MemoryStore,
) -> None:
    # the fingerprint masked the quoted module name: every ModuleNotFoundError was the
    # exact match (0.95, first) of the one fix stored, 'pip install pyyaml' for 'requests'
    yaml_fix = store.remember(
        "ERROR-FIX: ModuleNotFoundError: No module named 'yaml' | FIX: pip install pyyaml",
        "error_fix",
    )
    raw = (
        "Traceback (most recent call last):\n"
        '  File "/srv/app/worker.py", line 3, in <module>\n'
        "    import requests\n"
        "ModuleNotFoundError: No module named 'requests'\n"
    )
    hits = store.recall(raw).hits
    assert all(h.match != "fingerprint" for h in hits), hits
    same = store.recall(raw.replace("requests", "yaml").replace("/srv/app", "/home/b/x")).hits
    assert same[0].memory.id == yaml_fix.id and same[0].match == "fingerprint"


def test_an_entry_stored_with_the_compilers_location_is_the_exact_match_of_its_error(
    store: MemoryStore,
) -> None:
    # the stored signature kept "src/app.ts(3,5): ", the query's did not: no exact match,
    # and a note about the same words ranked above the fix
    fix = store.remember(
        "ERROR-FIX: src/app.ts(3,5): error TS2322: Type 'string' is not assignable to type "
        "'number'. | FIX: parse the input with Number() before assigning",
        "error_fix",
    )
    raw = "src/cart.ts(41,7): error TS2322: Type 'string' is not assignable to type 'number'.\n"
    hit = store.recall(raw, errors=True).hits[0]
    assert hit.memory.id == fix.id and hit.match == "fingerprint"


def test_entries_stored_under_older_fingerprint_rules_are_matched_by_the_rules_now(
    project: Path, minilm: Embedder
) -> None:
    """A fingerprint is stored with its entry when it is written; when the rules change (a
    missing module's name now kept) an entry written before keeps the old one: the same
    error no longer found it as its exact match (0.996 by the hybrid score, not the
    fingerprint), and a stored fingerprint that the query's now equals could name another
    error. A match is decided by the rules now, for what the lookup finds and for the
    query's candidates."""
    import sqlite3

    from kenning import open_store

    with open_store(cwd=project, embedder=minilm) as store:
        yaml_fix = store.remember(
            "ERROR-FIX: ModuleNotFoundError: No module named 'yaml' | FIX: pip install pyyaml",
            "error_fix",
        ).id
        toml_fix = store.remember(
            "ERROR-FIX: ModuleNotFoundError: No module named 'tomli' | FIX: pip install tomli",
            "error_fix",
        ).id
        path = Path(store.location)
    with sqlite3.connect(path) as db:  # as an older kenning wrote them
        for memory_id, old in (
            (yaml_fix, "modulenotfounderror: no module named <q>"),
            # what the query below's fingerprint is now: an older rule's coincidence
            (toml_fix, "modulenotfounderror: no module named 'numpy'"),
        ):
            db.execute(
                "UPDATE memories SET metadata = json_set(metadata, '$.error_fingerprint', ?) "
                "WHERE id = ?",
                (old, memory_id),
            )
    raw = (
        "Traceback (most recent call last):\n"
        '  File "/home/b/app/main.py", line 1, in <module>\n'
        "ModuleNotFoundError: No module named '{}'\n"
    )
    with open_store(cwd=project, embedder=minilm) as store:
        (first, *_) = store.recall(raw.format("yaml")).hits
        assert (first.memory.id, first.match) == (yaml_fix, "fingerprint"), first
        assert first.score >= 0.95
        numpy = store.recall(raw.format("numpy")).hits
        assert all(h.match != "fingerprint" for h in numpy), numpy


def test_a_fix_restated_is_a_near_duplicate_of_one_stored_under_older_fingerprint_rules(
    project: Path, minilm: Embedder
) -> None:
    """The dedup rule compares the error signatures of a new note and its neighbour: it
    read the neighbour's fingerprint as stored, under the rules it was written with, and
    the new note's under the rules now. Once the rules changed, the same fix restated (a
    word such as 'the' left out) was "a different error signature" and stored twice."""
    import sqlite3

    from kenning import open_store

    fix = "ERROR-FIX: ModuleNotFoundError: No module named 'yaml' | FIX: add pyyaml to {}"
    with open_store(cwd=project, embedder=minilm) as store:
        first = store.remember(fix.format("the requirements file and reinstall"), "error_fix")
        path = Path(store.location)
    with sqlite3.connect(path) as db:  # as an older kenning wrote it
        db.execute(
            "UPDATE memories SET metadata = json_set(metadata, '$.error_fingerprint', ?) "
            "WHERE id = ?",
            ("modulenotfounderror: no module named <q>", first.id),
        )
    with open_store(cwd=project, embedder=minilm) as store:
        again = store.remember(fix.format("requirements file and reinstall"), "error_fix")
        assert (again.status, again.id) == ("near-duplicate", first.id), again
        # another error's fix is still another note
        other = store.remember(
            fix.format("the requirements file and reinstall").replace("'yaml'", "'tomli'"),
            "error_fix",
        )
        assert other.status == "stored", other


UNUSED_IMPORT_FIX = (
    "ERROR-FIX: src/app/cli.py:3:8: F401 `json` imported but unused | FIX: remove the import, "
    "or list the name in __all__ when the module re-exports it"
)
#: Its fingerprint as kenning wrote it on 2026-12-01 (the linter's path prefix kept).
UNUSED_IMPORT_FINGERPRINT_THEN = "<path>: f401 <q> imported but unused"


def _as_an_older_kenning_wrote_it(path: Path, memory_id: str, fingerprint: str) -> None:
    """The entry's fingerprint as older rules computed it, in a store no kenning recorded
    its fingerprint rules in (none did before them)."""
    import sqlite3

    with sqlite3.connect(path) as db:
        db.execute(
            "UPDATE memories SET metadata = json_set(metadata, '$.error_fingerprint', ?) "
            "WHERE id = ?",
            (fingerprint, memory_id),
        )
        db.execute("DELETE FROM meta WHERE key = 'kenning:fingerprint_rules'")
    db.close()


def test_an_entry_fingerprinted_by_an_older_kenning_is_the_exact_match_after_an_upgrade(
    project: Path, minilm: Embedder
) -> None:
    """A stored fingerprint is the one of the rules it was written under; the exact lookup
    finds an entry by it. After an upgrade an older entry (ruff's F401 under the rules of
    2026-12-01, which kept the file's path) was found only when it also came up among the
    query's 20 dense or lexical candidates: among notes about unused imports it did not,
    and the same error recalled those notes, not its fix. The first write of the newer
    kenning brings the stored fingerprints up to its rules, changing nothing else."""
    from kenning import open_store

    with open_store(cwd=project, embedder=minilm) as store:
        fix = store.remember(UNUSED_IMPORT_FIX, "error_fix").id
        path = Path(store.location)
        (before,) = store.backend.get([fix])
        vector = store.backend.get_vectors([fix])[fix]
    _as_an_older_kenning_wrote_it(path, fix, UNUSED_IMPORT_FINGERPRINT_THEN)
    with open_store(cwd=project, embedder=minilm) as store:  # the newer kenning writes
        results = store.remember_many(
            [
                NewMemory(
                    f"F401 `os` imported but unused in src/app/module_{i}.py is kept on "
                    f"purpose: module_{i} imports `os` but unused for plugin {i} on Windows",
                    "context",
                )
                for i in range(30)
            ],
            near_duplicates=False,
        )
        assert all(r.status == "stored" for r in results), results
    query = "src/pkg/worker.py:10:1: F401 `os` imported but unused"
    with open_store(cwd=project, embedder=minilm) as store:
        (first, *_) = store.recall(query, errors=True).hits
        assert (first.memory.id, first.match) == (fix, "fingerprint"), first
        (after,) = store.backend.get([fix])
        assert after.metadata["error_fingerprint"] == "f401 <q> imported but unused"
        # nothing but the fingerprint changed
        assert replace(after, metadata=before.metadata) == before
        assert np.array_equal(store.backend.get_vectors([fix])[fix], vector)


def test_a_new_store_records_its_rules_with_its_first_write_and_reads_no_row_back(
    project: Path, minilm: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store that holds nothing yet has no older fingerprint to renew: its first write
    records the rules in its own transaction. The renewal after the write had read every row
    just written (an import of 100,000 memories into a new store read them all back, for
    nothing). Seen in SQLite's own trace of the statements: no walk of the table."""
    import sqlite3

    statements: list[str] = []
    real = sqlite3.connect

    def traced(*args: object, **kwargs: object) -> sqlite3.Connection:
        conn = real(*args, **kwargs)  # type: ignore[arg-type]
        conn.set_trace_callback(statements.append)
        return conn

    monkeypatch.setattr(sqlite3, "connect", traced)
    with open_store(cwd=project, embedder=minilm) as store:
        results = store.remember_many(
            [
                NewMemory(f"note {i} about the build cache of service {i}", "context")
                for i in range(3)
            ]
        )
        assert [r.status for r in results] == ["stored"] * 3
        assert store.backend.get_meta("kenning:fingerprint_rules") is not None
        assert store.renew_fingerprints() == 0
        path = Path(store.location)
    walks = [s for s in statements if "FROM memories WHERE rowid > " in s]
    assert statements and not walks, walks
    # the same trace sees the walk where one is due: a store with rows and no rules recorded
    # (as an older kenning left it) is read through by the next write's renewal
    with real(path) as db:
        db.execute("DELETE FROM meta WHERE key = 'kenning:fingerprint_rules'")
    db.close()
    statements.clear()
    with open_store(cwd=project, embedder=minilm) as store:
        assert store.remember("the changelog lives in CHANGES.md", "context").status == "stored"
    assert [s for s in statements if "FROM memories WHERE rowid > " in s]


def test_fingerprints_a_newer_kenning_wrote_are_left_to_it(project: Path, minilm: Embedder) -> None:
    """Two kennings sharing a store (a team server, two installs): the older one's writes
    leave the fingerprints the newer one's rules computed (its exact matches), and a
    store already brought up to the rules is not scanned again."""
    from kenning import open_store

    with open_store(cwd=project, embedder=minilm) as store:
        fix = store.remember(UNUSED_IMPORT_FIX, "error_fix").id
        path = Path(store.location)
        assert store.renew_fingerprints() == 0  # recorded by the first write
    _as_an_older_kenning_wrote_it(path, fix, "what newer rules compute")
    with open_store(cwd=project, embedder=minilm) as store:
        store.backend.set_meta("kenning:fingerprint_rules", "99")
        store.remember("the changelog lives in CHANGES.md", "context")
        (kept,) = store.backend.get([fix])
        assert kept.metadata["error_fingerprint"] == "what newer rules compute"
        assert store.backend.get_meta("kenning:fingerprint_rules") == "99"


def test_entries_migrated_from_an_older_store_are_renewed_in_the_target(
    project: Path, minilm: Embedder
) -> None:
    """`kenning migrate` copies rows as they are, fingerprints included: from a store an
    older kenning wrote into one whose rules are recorded (a team store this kenning writes
    to), the copied entries kept their old fingerprints for good, the target saying they
    were current. The target records the older rules of the two, and its next write brings
    the copied entries up."""
    from kenning import open_store
    from kenning.migrate import migrate_store

    target = project / "team" / "memory.db"
    with open_store(target, cwd=project, embedder=minilm) as team:
        team.remember("the team store holds every project's notes", "context")
    with open_store(cwd=project, embedder=minilm) as store:
        fix = store.remember(UNUSED_IMPORT_FIX, "error_fix").id
        path = Path(store.location)
    _as_an_older_kenning_wrote_it(path, fix, UNUSED_IMPORT_FINGERPRINT_THEN)
    with open_store(cwd=project, embedder=minilm) as store:
        assert migrate_store(store, str(target)).verified
    with open_store(target, cwd=project, embedder=minilm) as team:
        team.remember("the release checklist lives in docs/release.md", "context")
        (copied,) = team.backend.get([fix])
        assert copied.metadata["error_fingerprint"] == "f401 <q> imported but unused"


def test_a_failed_renewal_of_fingerprints_leaves_the_store_as_it_was(
    project: Path, minilm: Embedder, caplog: pytest.LogCaptureFixture
) -> None:
    """The renewal is one transaction: when the store refuses one of its changes, none is
    made, the rules are not recorded (the next write tries again), and the note being
    written is stored all the same."""
    import sqlite3

    from kenning import open_store

    with open_store(cwd=project, embedder=minilm) as store:
        first = store.remember(UNUSED_IMPORT_FIX, "error_fix").id
        second = store.remember(
            "ERROR-FIX: lib/io.py:1:1: F401 `sys` imported but unused | FIX: drop it", "error_fix"
        ).id
        path = Path(store.location)
    _as_an_older_kenning_wrote_it(path, first, UNUSED_IMPORT_FINGERPRINT_THEN)
    _as_an_older_kenning_wrote_it(path, second, UNUSED_IMPORT_FINGERPRINT_THEN)
    with sqlite3.connect(path) as db:  # a failure on the second entry's change
        db.execute(
            "CREATE TRIGGER refuse BEFORE UPDATE OF metadata ON memories "
            f"WHEN old.id = '{second}' BEGIN SELECT RAISE(ABORT, 'refused here'); END"
        )
    db.close()
    with open_store(cwd=project, embedder=minilm) as store:
        note = store.remember("the release checklist lives in docs/release.md", "context")
        assert note.status == "stored"
        stored = {m.id: m.metadata["error_fingerprint"] for m in store.backend.get([first, second])}
        assert stored == dict.fromkeys((first, second), UNUSED_IMPORT_FINGERPRINT_THEN)
        assert store.backend.get_meta("kenning:fingerprint_rules") is None
    assert "could not be brought up to this kenning's rules (refused here)" in caplog.text
    with sqlite3.connect(path) as db:
        db.execute("DROP TRIGGER refuse")
    db.close()
    with open_store(cwd=project, embedder=minilm) as store:  # the next write does it
        store.remember("the changelog lives in CHANGES.md", "context")
        stored = {m.id: m.metadata["error_fingerprint"] for m in store.backend.get([first, second])}
        assert set(stored.values()) == {"f401 <q> imported but unused"}


#: The digest of the probe's fingerprints (:func:`_fingerprint_probe`) under each version of
#: the rules (:data:`kenning.fingerprints.RULES_VERSION`).
# (3: the rules of a series of commits of 2026-12-05, never released, which changed them
# under one number: 4 renews the stores those builds wrote)
FINGERPRINT_RULES_PROBES = {
    1: "1dd15853ec1a1632",
    2: "6971d14f963f2a06",
    3: "37bb9a4c3917a992",
    4: "c6dc39cfad837da0",
    5: "052b17db8a206e8f",
    6: "edf7d05c73ff0a05",
    7: "408cf3149aa06f4d",
    8: "848f9c5bdbd29cb4",
    9: "291001306af0afba",
    10: "9c801f45ddf01b2d",
    11: "39d3752b1db42c49",
    12: "3ba2a4b73ddb0262",
    13: "34889e3dd8a72229",
    14: "25a98b8643c90267",
    15: "58d5ea9a5e9e5cd1",
    16: "73bee68de6c7eaa6",
    # (17: npm 7+'s close of a failed script is a wrapper, kubectl's --prefix and logrus'
    # terminal lines are read: the probe's errors have neither)
    17: "73bee68de6c7eaa6",
    # (18: a port a server could not listen on, Docker's and Go's, is its service's)
    18: "c64023429e02942c",
    # (19: rustc's `name` is kept in quotes at both ends, as 'name')
    19: "95eb77da3ac93328",
    # (20: Python 2's module named without quotes is kept: the probe's errors quote theirs)
    20: "95eb77da3ac93328",
    # (21: the command a shell could not find is kept, each shell's wording read as one)
    21: "6ff91f9b9e104725",
    # (22: a failed vitest test is known by its FAIL heading, the test named)
    22: "04254f9f13aa46ee",
    # (23: Node's and asyncio's bind errors keep their port, as Docker's and Go's)
    23: "4c3a6091a68ea1ce",
    # (24: the crate, npm package, Go package or Ruby file a tool cannot find is named)
    24: "6d5214ef68d7e923",
    # (25: a crate of Rust's own library rustc cannot find is one error, std's or core's)
    25: "d25acd3b4c98def7",
    # (26: the import vite's import analysis could not resolve is kept, as Rollup's)
    26: "ae170dbf281ff0e2",
    # (27: npm 6's, npm 11's and yarn classic's 404 name the package)
    27: "ccace81d91876f0a",
    # (28: a Verdaccio registry's 404, "- no such package available", names the package)
    28: "880e2337f6cb334b",
    # (29: a path rustc could not resolve is kept whole, E0433's item and its module)
    29: "1361f195d60f41c5",
    # (30: a .NET class nested in another, "+", is read; a Win32Exception's code left out)
    30: "6025ede07d49b9c6",
    # (31: a relative path whose file's name has a dot before its extension, "src/cart.test.js",
    # is masked whole, as its absolute path is: vitest's JSON report names a test's file so;
    # what a jest test threw is named by the test; vitest's project, "|unit|", is left out.
    # Three commits, one unreleased version)
    31: "1fc3c688b4d4f19b",
    # (32: recent Rust's thread id in a panic, "thread 'main' (1193) panicked", is left out)
    32: "da3e76e8b0f89ea8",
    # (33: node:assert's failure, "AssertionError [ERR_ASSERTION]: …", keeps its values: those
    # of "401 == 200", and those strictEqual's and deepStrictEqual's message says under its
    # first line, "6 !== 5", read into the signature)
    33: "eb2e026fd71ee795",
    # (34: go test's file line before what a test logged, "shop_test.go:13:", is left out)
    34: "b04d76a95c486757",
    # (35: a parallel go test's message in a -v or -json run is what it logged, after its own
    # "=== CONT" line, not the first line logged after its "=== RUN")
    35: "b571a5ac2c257206",
    # (36: unittest's failed assert keeps its values, "AssertionError: 6 != 5", "'admin' not
    # found in ['user']", as pytest's)
    36: "47a277e6bda4748d",
    # (37: Rust's assert_eq!/assert_ne! panic keeps its values, "left: 401 right: 200", read
    # into the signature from the lines under its message; older Rust's said as recent Rust's)
    37: "badb9f86c3e6202e",
    # (38: a KeyError's key is kept when it reads as a name: 'items' is not 'user'; a number,
    # uuid, hash or id masked as before)
    38: "ccc283a663ba5a0c",
    # (39: kotlinc's older location, "e: FILE: (L, C): ", and Lua's interpreter and chunk,
    # "lua: (command line):1: ", are left out: the error is the message after them)
    39: "0ed95d55fe1a28fa",
    # (40: Lua's nil global keeps its name, "(global 'foo')", as a NameError's does, and so
    # does the function a table lacks, called: "attempt to call a nil value (method 'run')")
    40: "149ac3b9198fcf15",
}


def _fingerprint_probe() -> str:
    """The fingerprints of real error messages (the evaluation sets' rustc and ruff
    diagnostics, as raw output and as entries, the yellow entries, and the pairs
    tests/test_errorfix.py holds the rules to), as one digest."""
    import hashlib

    from kenning.errorfix import parse_error_fix
    from kenning.fingerprints import error_fingerprint
    from kenning.signatures import extract_error_signature

    from .test_errorfix import DIFFERENT_ERROR, DOTNET_NESTED, SAME_ERROR, VITEST
    from .test_json_reports import JS_REPORTS
    from .test_querybuild import _PY

    def rows(name: str) -> list[dict[str, str]]:
        return [json.loads(line) for line in (EVAL_DIR / name).read_text().splitlines()]

    raw = [
        text
        for pair in (*SAME_ERROR, *DIFFERENT_ERROR)
        for text in getattr(pair, "values", pair)  # a pytest.param's, or the pair
    ]
    raw += [r["error_signature"] for r in rows("yellow-solutions/error_fix_entries.jsonl")]
    raw.append(VITEST)  # (rules 22: vitest's FAIL heading names the test)
    raw += [  # (rules 23: Node's and asyncio's bind errors keep their port)
        "Error: listen EADDRINUSE: address already in use :::3000",
        "OSError: [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): "
        "address already in use",
    ]
    raw += [  # (rules 24: the crate, npm package, Go package or Ruby file missing is named)
        "error[E0463]: can't find crate for `serde`",
        "error[E0433]: failed to resolve: use of unresolved module or unlinked crate `foo`",
        "error[E0433]: cannot find module or crate `foo` in this scope",
        "npm error 404 Not Found - GET https://registry.npmjs.org/@acme%2fui - Not found",
        " ERR_PNPM_FETCH_404  GET https://registry.npmjs.org/yaml: Not Found - 404",
        "main.go:3:8: cannot find module providing package github.com/acme/ledger: import "
        "lookup disabled by -mod=vendor",
        "/app/config/boot.rb:3:in `require': cannot load such file -- nokogiri (LoadError)",
    ]
    raw.append("error[E0463]: can't find crate for `core`")  # (rules 25: Rust's own crates)
    raw.append(  # (rules 26: vite's import analysis keeps the import)
        '[plugin:vite:import-analysis] Failed to resolve import "dayjs" from "src/utils/date.ts".'
        " Does the file exist?"
    )
    raw += [  # (rules 27: npm 6's, npm 11's and yarn classic's 404 name the package)
        "npm ERR! code E404\nnpm ERR! 404 Not Found: react-render-html@latest",
        "npm error 404 The requested resource '@acme/ui@*' could not be found or you do not "
        "have permission to access it.",
        'error An unexpected error occurred: "https://registry.yarnpkg.com/@types%2fflimflam: '
        'Not found".',
    ]
    raw.append(  # (rules 28: a Verdaccio registry's 404 names the package)
        "npm ERR! 404 Not Found - GET http://localhost:4873/@acme%2fwidgets - no such package "
        "available"
    )
    raw += [  # (rules 29: a path rustc could not resolve is kept whole)
        RUSTC_WRONG_USE,
        RUSTC_WRONG_PATH,
        "error[E0433]: failed to resolve: could not find `sync` in `tokio`",
        "error[E0432]: unresolved imports `mylib::Foo`, `mylib::Bar`",
        "error[E0425]: cannot find value `Settings2` in module `crate::config`",
    ]
    raw += [  # (rules 30: a .NET nested class is read, a native error code left out)
        DOTNET_NESTED,
        f"Unhandled exception. {DOTNET_NESTED}",
        "System.Net.Sockets.SocketException (111): Connection refused",
    ]
    raw += [  # (rules 31: a relative path whose file's name has dots is masked whole)
        (JS_REPORTS / "vitest-auth.json").read_text(),
        "FAIL src/cart.test.js > cart > sums the prices: AssertionError: expected 6 to be 5",
        (JS_REPORTS / "jest-empty_cart.txt").read_text(),  # (what a jest test threw, named)
        (JS_REPORTS / "vitest-project.txt").read_text(),  # (vitest's project left out)
    ]
    raw += [  # (rules 32: recent Rust's thread id in a panic is left out)
        "thread 'tests::login_returns_200' (1193) panicked at src/lib.rs:20:9:\n"
        "assertion `left == right` failed",
        "thread 'main' (4071) panicked at src/main.rs:4:5: index out of bounds",
    ]
    raw += [  # (rules 33: node:assert's values are its failure's, read under its first line)
        (JS_REPORTS / "mocha-sums_the_prices.txt").read_text(),
        (JS_REPORTS / "node-deepStrictEqual.txt").read_text(),
        "AssertionError [ERR_ASSERTION]: 401 == 200",
    ]
    raw += [  # (rules 34: go test's file line before what a test logged is left out)
        "--- FAIL: TestSumsThePrices (0.00s): shop_test.go:13: Total([2 3]) = 6; want 5",
    ]
    # (rules 35: a go test -v run's parallel test is known by what it logged, not another's)
    raw.append((Path(__file__).parent / "data/go_test_reports/go-slow-v.txt").read_text())
    raw += [  # (rules 36: unittest's failed assert keeps its values, as pytest's)
        (_PY / "unittest-sums_the_prices.txt").read_text(),
        "AssertionError: 'admin' not found in ['user', 'staff']",
        "AssertionError: 0 is not true",
    ]
    raw += [  # (rules 37: Rust's assert_eq! panic keeps its values, read under its message)
        (Path(__file__).parent / "data/rs_test_reports/cargo-sums_the_prices.txt").read_text(),
        _RUST_OLD_ASSERT,
    ]
    raw += [  # (rules 38: a KeyError's key is kept when it reads as a name, masked as data)
        'Traceback (most recent call last):\n  File "app.py", line 9, in total\n'
        "KeyError: 'items'",
        "django.utils.datastructures.MultiValueDictKeyError: 'email'",
        "KeyError: \"['cart_total'] not in index\"",
        "KeyError: 'a3f9c2e1-4b5d-4c6e-8f70-123456789abc'",
        "KeyError: 'order_12345'",
    ]
    raw += [  # (rules 39: kotlinc's older location and Lua's chunk are left out)
        "e: /src/Main.kt: (3, 5): Unresolved reference: foo",
        "lua: (command line):1: attempt to call a nil value (global 'foo')",
        "lua: [string \"foo()\"]:1: attempt to call a nil value (global 'foo')",
        "lua: app.lua:3: attempt to call a nil value (global 'foo')",
    ]
    raw += [  # (rules 40: Lua's nil global, and a function a table lacks, keep their names)
        "lua: app.lua:7: attempt to index a nil value (global 'config')",
        "app.lua:9: attempt to call a nil value (method 'run')",
        "app.lua:9: attempt to call a nil value (field 'render')",
        "app.lua:5: attempt to index a nil value (field 'user')",
    ]
    entries = [r["content"] for r in rows("yellow-solutions/error_fix_entries.jsonl")]
    for split in ("queries_dev", "queries_masked_dev"):
        for r in rows(f"rust-errors/{split}.jsonl"):
            message = f"error[{r['expected_code']}]: {r['text']}"
            raw.append(f"{message}\n  --> src/lib.rs:41:17\n   |")
            entries.append(f"ERROR-FIX: {message} | FIX: see the explanation")
        for r in rows(f"ruff-rules/{split}.jsonl"):
            message = f"src/app/cli.py:3:8: {r['expected_code']} {r['text']}"
            raw.append(f"{message}\nFound 1 error.")
            entries.append(f"ERROR-FIX: {message} | FIX: see the rule")
    fingerprints = [error_fingerprint(extract_error_signature(text)) for text in raw]
    for text in entries:
        entry = parse_error_fix(text)
        fingerprints.append(error_fingerprint(entry.signature) if entry else "")
    return hashlib.sha256(json.dumps(fingerprints).encode("utf-8")).hexdigest()[:16]


@eval_mark(EVAL_DIR)
def test_the_fingerprint_rules_version_names_the_rules() -> None:
    """A store records the version of the rules its fingerprints were brought up to, and a
    newer version brings them up again (MemoryStore.renew_fingerprints): a change to the
    rules that kept the version would leave every entry written before it stale."""
    from kenning.fingerprints import RULES_VERSION

    probe = _fingerprint_probe()
    assert FINGERPRINT_RULES_PROBES.get(RULES_VERSION) == probe, (
        "the fingerprint rules changed: raise kenning.fingerprints.RULES_VERSION to "
        f"{RULES_VERSION + 1} and add {RULES_VERSION + 1}: {probe!r} to "
        "FINGERPRINT_RULES_PROBES"
        if probe not in FINGERPRINT_RULES_PROBES.values()
        else f"RULES_VERSION {RULES_VERSION} is not the version of these rules"
    )


@pytest.mark.parametrize("prefix", ["error-fix:", "Error-Fix:", "  ERROR-FIX:"])
def test_an_entry_whose_prefix_is_written_in_another_case_is_an_error_fix(
    store: MemoryStore, prefix: str
) -> None:
    """The entry parser reads ``error-fix: … | FIX: …`` (its fingerprint was stored), but the
    type rule did not: stored as ``context`` in ``discussions``, it was missed by
    ``--type error_fix``, held to the notes' floor and not shown as an error fix."""
    stored = store.remember(
        f"{prefix} sqlite3.OperationalError: database is locked | FIX: enable WAL and set "
        "busy_timeout",
        "context",
    )
    assert (stored.type, stored.collection) == ("error_fix", "code-patterns"), stored
    hits = store.recall("sqlite3.OperationalError: database is locked").hits
    assert hits[0].memory.id == stored.id and hits[0].memory.type == "error_fix"
    # and an entry given as a query is one (the error floor), whatever the prefix's case
    assert looks_like_error(f"{prefix} the nightly build broke | FIX: pin the runner image")


def test_an_errno_error_on_macos_finds_the_fix_stored_on_linux(store: MemoryStore) -> None:
    """Python prints the platform's errno: a port in use is ``[Errno 98] Address already in
    use`` on Linux and ``[Errno 48] Address already in use`` on macOS (ETIMEDOUT is ``[Errno
    110] Connection timed out`` and ``[Errno 60] Operation timed out``). The fingerprint
    kept the number, so the fix stored on one was no exact match of the same error on the
    other; another errno is still another error."""
    in_use = store.remember(
        "ERROR-FIX: OSError: [Errno 98] Address already in use | FIX: stop the old dev "
        "server (lsof -i :8000) or start on another port",
        "error_fix",
    )
    timed_out = store.remember(
        "ERROR-FIX: TimeoutError: [Errno 110] Connection timed out | FIX: open the port in "
        "the security group of the database",
        "error_fix",
    )
    missing = store.remember(
        "ERROR-FIX: FileNotFoundError: [Errno 2] No such file or directory: 'config.yaml' | "
        "FIX: copy config.example.yaml to config.yaml",
        "error_fix",
    )
    for query, fix in (
        ("OSError: [Errno 48] Address already in use", in_use),
        ("TimeoutError: [Errno 60] Operation timed out", timed_out),
    ):
        (first, *_) = store.recall(query).hits
        assert (first.memory.id, first.match) == (fix.id, "fingerprint"), (query, first)
    denied = store.recall("PermissionError: [Errno 13] Permission denied: 'config.yaml'")
    assert all(h.match != "fingerprint" or h.memory.id != missing.id for h in denied.hits), (
        denied.hits
    )


def test_a_warning_made_an_error_by_werror_finds_the_fix_of_the_warning(
    store: MemoryStore,
) -> None:
    """gcc's and clang's ``-Werror`` make a warning an error and say so in its option:
    gcc's ``error: unused variable 'x' [-Werror=unused-variable]``, clang's
    ``[-Werror,-Wunused-variable]``, for ``warning: unused variable 'x'
    [-Wunused-variable]`` (a CI build with -Werror, a local one without). One diagnostic,
    one fix; the fingerprint kept the level and the option as printed: no exact match."""
    fix = store.remember(
        "ERROR-FIX: src/main.c:3:9: error: unused variable 'x' [-Werror=unused-variable] | "
        "FIX: remove the variable or mark it [[maybe_unused]]",
        "error_fix",
    )
    other = store.remember(
        "ERROR-FIX: src/main.c:9:5: warning: comparison of integer expressions of different "
        "signedness: 'int' and 'size_t' [-Wsign-compare] | FIX: make the loop index a size_t",
        "error_fix",
    )
    for query, expected in (
        ("src/util.c:14:7: warning: unused variable 'count' [-Wunused-variable]", fix),
        ("src/util.c:14:7: error: unused variable 'count' [-Werror,-Wunused-variable]", fix),
        (
            "src/a.c:9:5: error: comparison of integer expressions of different signedness: "
            "'int' and 'size_t' [-Werror=sign-compare]",
            other,
        ),
    ):
        (first, *_) = store.recall(query, errors=True).hits
        assert (first.memory.id, first.match) == (expected.id, "fingerprint"), (query, first)
    # another warning is another error
    unused_parameter = "src/util.c:2:14: error: unused parameter 'argc' [-Werror=unused-parameter]"
    hits = store.recall(unused_parameter, errors=True).hits
    assert all(h.match != "fingerprint" for h in hits), hits


NEXT_BUILD = """\
   Linting and checking validity of types  ..Failed to compile.

./app/cart/page.tsx:12:9
Type error: {message}

  10 |   const total: number = useTotal();
  11 |   const label: number = formatLabel(total);
> 12 |   const count: number = params.count;
     |         ^
Next.js build worker exited with code: 1 and signal: null
"""


def test_a_nextjs_type_error_finds_the_fix_stored_from_tsc(store: MemoryStore) -> None:
    """``next build`` prints tsc's diagnostic without its code (``Type error: Type 'string'
    is not assignable to type 'number'.``), tsc with it (``error TS2322: …``): one error,
    but two fingerprints, so the fix stored from one was no exact match of the other."""
    assignable = store.remember(
        "ERROR-FIX: src/cart.ts(41,7): error TS2322: Type 'string' is not assignable to type "
        "'number'. | FIX: parse the search param with Number() before assigning it",
        "error_fix",
    )
    possibly = store.remember(
        "ERROR-FIX: error TS18048: 'params.count' is possibly 'undefined'. | FIX: give the "
        "param a default or guard it before use",
        "error_fix",
    )
    for message, fix in (
        ("Type 'string' is not assignable to type 'number'.", assignable),
        ("'cart.items' is possibly 'undefined'.", possibly),
    ):
        (first, *_) = store.recall(NEXT_BUILD.format(message=message)).hits
        assert (first.memory.id, first.match) == (fix.id, "fingerprint"), (message, first)
    # and the other way round: a fix stored from next build, the error from tsc
    missing = store.remember(
        "ERROR-FIX: Type error: Property 'price' does not exist on type 'CartItem'. | FIX: "
        "add price to the CartItem type in types/cart.ts",
        "error_fix",
    )
    (first, *_) = store.recall(
        "app/cart/page.tsx:20:15 - error TS2339: Property 'total' does not exist on type 'Order'.",
        errors=True,
    ).hits
    assert (first.memory.id, first.match) == (missing.id, "fingerprint"), first
    # another diagnostic is another error: 'null' is not 'undefined' (TS18047, TS18048)
    hits = store.recall(NEXT_BUILD.format(message="'cart.items' is possibly 'null'.")).hits
    assert all(h.match != "fingerprint" for h in hits), hits


@pytest.mark.parametrize(
    ("stored", "asked"),
    [
        (
            'ERROR: failed to solve: process "/bin/sh -c npm ci" did not complete successfully: '
            "exit code: 137",
            '#9 ERROR: process "/bin/sh -c npm ci" did not complete successfully: exit code: 139',
        ),
        ("assert 401 == 200", "FAILED tests/test_admin.py::test_delete_user - assert 403 == 200"),
        ("Process completed with exit code 137", "Process completed with exit code 1."),
        # words around one of them: a prompt's, or the context a note adds after its error
        (
            "Process completed with exit code 137",
            "CI job 'tests' failed: Error: Process completed with exit code 139.",
        ),
        ("assert 401 == 200 in tests/test_api.py", "AssertionError: assert 403 == 200"),
        # another name the fingerprint keeps: the module, variable or types that are the error
        (
            "ModuleNotFoundError: No module named 'yaml'",
            "ModuleNotFoundError: No module named 'requests'",
        ),
        (
            'src/app.py:3: error: Library stubs not installed for "yaml"  [import-untyped]',
            'src/cli.py:9: error: Library stubs not installed for "requests"  [import-untyped]',
        ),
        ("KeyError: 'DATABASE_URL'", "KeyError: 'REDIS_URL'"),
        (
            'src/app.py:12: error: Argument 1 to "connect" has incompatible type "str | None"; '
            'expected "str"  [arg-type]',
            'src/db.py:40: error: Argument 1 to "open_pool" has incompatible type "int"; '
            'expected "str"  [arg-type]',
        ),
        (
            '/src/app.py:3:8 - error: Import "yaml" could not be resolved (reportMissingImports)',
            '/src/api.py:1:8 - error: Import "jwt" could not be resolved (reportMissingImports)',
        ),
        ("ImportError: No module named requests", "ImportError: No module named yaml"),
        # rustc's crate in backticks (kept as '`serde', no name, it held nothing)
        (
            "error[E0432]: unresolved import `serde`\n --> src/main.rs:1:5",
            "error[E0432]: unresolved import `tokio`\n --> src/lib.rs:3:5",
        ),
        # another bean Spring cannot inject, another permission gcloud was denied
        (
            "Parameter 0 of constructor in com.acme.shop.orders.OrderService required a bean of "
            "type 'com.acme.shop.mail.MailSender' that could not be found.",
            "Parameter 0 of constructor in com.acme.shop.orders.OrderService required a bean of "
            "type 'com.acme.shop.payments.PaymentGateway' that could not be found.",
        ),
        (
            "ERROR: (gcloud.run.deploy) PERMISSION_DENIED: Permission 'iam.serviceaccounts.actAs'"
            " denied on resource 'namespaces/shop/services/api' (or resource may not exist).",
            "ERROR: (gcloud.run.deploy) PERMISSION_DENIED: Permission 'run.services.get' denied "
            "on resource 'namespaces/shop/services/api' (or resource may not exist).",
        ),
        # another error code (pnpm's, Prisma's), chai's (vitest's) other value, another
        # package Node could not require()
        (
            "ERR_PNPM_FETCH_401  GET https://npm.pkg.github.com/@acme%2fui: Unauthorized - 401",
            "ERR_PNPM_FETCH_404  GET https://registry.npmjs.org/@acme%2Fshared: Not Found - 404",
        ),
        (
            "PrismaClientKnownRequestError P2002: Unique constraint failed on the fields: "
            "(`email`)",
            "PrismaClientKnownRequestError:\nInvalid `prisma.user.update()` invocation in\n"
            "/repo/src/users.ts:14:30\n\nRecord to update not found.\n  code: 'P2025',\n",
        ),
        (
            "AssertionError: expected 500 to be 201 // Object.is equality",
            "AssertionError: expected 404 to be 201 // Object.is equality",
        ),
        (
            "Error [ERR_REQUIRE_ESM]: require() of ES Module /repo/node_modules/node-fetch/src/"
            "index.js from /repo/server.js not supported.",
            "Error [ERR_REQUIRE_ESM]: require() of ES Module /repo/node_modules/.pnpm/chalk@5.3.0/"
            "node_modules/chalk/source/index.js from /repo/cli.cjs not supported.",
        ),
        # another AWS error code on the same call (0.98), another lateinit property (0.99),
        # Erlang function (0.98), kind of memory (0.83), PHP function and types (0.98)
        (
            "upload failed: build/index.html to s3://shop-assets-prod/index.html An error "
            "occurred (AccessDenied) when calling the PutObject operation: Access Denied",
            "upload failed: build/index.html to s3://shop-assets-prod/index.html An error "
            "occurred (NoSuchBucket) when calling the PutObject operation: The specified bucket "
            "does not exist",
        ),
        (
            'Exception in thread "main" kotlin.UninitializedPropertyAccessException: lateinit '
            "property repository has not been initialized",
            'Exception in thread "main" kotlin.UninitializedPropertyAccessException: lateinit '
            "property mailer has not been initialized\n\tat com.acme.OrderController.list("
            "OrderController.kt:22)",
        ),
        (
            "** exception error: undefined function shop_server:start/0",
            "1> shop_server:stop().\n** exception error: undefined function shop_server:stop/0",
        ),
        (
            'Exception in thread "http-nio-8080-exec-7" java.lang.OutOfMemoryError: Java heap '
            "space",
            'Exception in thread "main" java.lang.OutOfMemoryError: Metaspace\n\tat '
            "java.base/java.lang.ClassLoader.defineClass1(Native Method)",
        ),
        (
            "PHP Fatal error: Uncaught TypeError: App\\Cart::add(): Argument #1 ($item) must be "
            "of type App\\Item, null given, called in /var/www/html/src/Controller/"
            "CartController.php on line 33 and defined in /var/www/html/src/Cart.php:21",
            "PHP Fatal error:  Uncaught TypeError: App\\Mailer::send(): Argument #1 ($to) must "
            "be of type string, null given, called in /var/www/html/src/Controller/"
            "CartController.php on line 33 and defined in /var/www/html/src/Cart.php:21\n"
            "Stack trace:\n#0 /var/www/html/src/Controller/CartController.php(33): "
            "App\\Cart->add(NULL)\n#1 {main}\n  thrown in /var/www/html/src/Cart.php on line 21",
        ),
        # the IAM action AWS denied (0.98), the terraform resource not declared, a note
        # joining summary and detail with "." (0.94)
        (
            "An error occurred (AccessDeniedException) when calling the GetSecretValue operation: "
            "User: arn:aws:sts::123456789012:assumed-role/app/i-0abc is not authorized to "
            "perform: secretsmanager:GetSecretValue on resource: prod/db because no "
            "identity-based policy allows the secretsmanager:GetSecretValue action",
            "An error occurred (AccessDeniedException) when calling the GetSecretValue operation: "
            "User: arn:aws:sts::123456789012:assumed-role/app/i-0abc is not authorized to "
            "perform: kms:Decrypt on resource: arn:aws:kms:us-east-1:123456789012:key/"
            "1234abcd-12ab-34cd-56ef-1234567890ab because no identity-based policy allows the "
            "kms:Decrypt action",
        ),
        (
            'Error: Reference to undeclared resource. A managed resource "aws_s3_bucket" "logs" '
            "has not been declared in the root module.",
            "╷\n│ Error: Reference to undeclared resource\n│ \n│   on outputs.tf line 2, in "
            'output "queue_url":\n│    2:   value = aws_sqs_queue.jobs.url\n│ \n│ A managed '
            'resource "aws_sqs_queue" "jobs" has not been declared in the root module.\n╵',
        ),
    ],
)
def test_the_fix_of_the_same_error_with_another_code_is_not_recalled(
    store: MemoryStore, stored: str, asked: str
) -> None:
    """The out-of-memory fix stored for docker's ``exit code: 137`` came back at 0.98 for
    ``exit code: 139`` (a segfault) and ``1``, and the fix of ``assert 401 == 200`` for
    ``assert 403 == 200``: their words are almost the same, their errors are not. So did
    ``No module named 'yaml'``'s for ``'requests'`` (0.94: types-PyYAML is not the fix) and
    mypy's ``"str | None"; expected "str"`` for ``"int"``. An entry whose fingerprint is the
    query's but for the code or name it keeps is held below the floors; the same error with
    its own code still finds it."""
    entry = store.remember(f"ERROR-FIX: {stored} | FIX: the fix of this error alone", "error_fix")
    assert entry.status == "stored", entry
    assert [h.memory.id for h in store.recall(asked, errors=True).hits] == []
    found = store.search(asked, threshold=0.0, limit=5)
    assert all(r.semantic <= ANOTHER_CODE_SCORE for r in found.results), found
    assert [h.memory.id for h in store.recall(stored, errors=True).hits] == [entry.id]


@pytest.mark.parametrize(
    ("stored", "other", "own"),
    [
        (
            "ModuleNotFoundError: No module named 'requests'",
            "No module named 'yaml'",
            "No module named 'requests'",
        ),
        (
            "Error: Cannot find module 'express'",
            "Cannot find module 'lodash'",
            "Cannot find module 'express'",
        ),
        (
            "ImportError: cannot import name 'soft_unicode' from 'markupsafe'",
            "cannot import name 'escape' from 'jinja2'",
            "cannot import name 'soft_unicode' from 'markupsafe'",
        ),
        (
            "undefined reference to `pthread_create'",
            "undefined reference to `dlopen'",
            "undefined reference to `pthread_create'",
        ),
        (
            "error[E0432]: unresolved import `serde`",
            "unresolved import `tokio`",
            "unresolved import `serde`",
        ),
        # the module without quotes, as Python 2 printed it and people type it
        (
            "ModuleNotFoundError: No module named 'requests'",
            "no module named yaml",
            "no module named requests",
        ),
    ],
)
def test_an_error_typed_without_its_class_is_recalled_as_an_error(
    store: MemoryStore, stored: str, other: str, own: str
) -> None:
    """qa-s69a F1: ``kenning recall "No module named 'yaml'"`` (the error as people type it,
    without ``ModuleNotFoundError:``) answered the fix stored for ``'requests'`` at 0.58: the
    query was read as words (the generic floor, no fingerprint), so the entry of another name
    was not held below the floors as it is for the whole error. So with ``--error`` when a
    sentence tells it ("pytest fails: …"), the prompt hook, and search; the bare message of
    the entry's own error still finds it."""
    from kenning.hooks.claude_code import prompt_queries

    entry = store.remember(f"ERROR-FIX: {stored} | FIX: the fix of this error alone", "error_fix")
    assert entry.status == "stored", entry
    root = store.project.root
    for args in (
        ("recall", "--json", other),
        ("recall", "--json", f"pytest fails: {other}"),
        ("recall", "--json", "--error", other),
        ("recall", "--json", "--error", f"pytest fails: {other}"),
    ):
        r = run_cli(root, *args)
        assert r.returncode == 0, r.stderr
        answer = json.loads(r.stdout)
        assert (answer["floor"], answer["results"]) == (protocol.ERROR_RECALL_FLOOR, []), args
    r = run_cli(root, "search", "--json", other)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["best_semantic"] <= ANOTHER_CODE_SCORE, r.stdout
    prompt = f"the app crashes on start with {other}, can you fix it?"
    assert not store.recall_many(prompt_queries(prompt)).hits
    r = run_cli(root, "recall", "--json", own)
    assert [h["id"] for h in json.loads(r.stdout)["results"]] == [entry.id], r.stdout


@pytest.mark.parametrize(
    ("stored", "asked"),
    [
        # words a note adds after the JVM's kind of memory are not the kind (0.3 for a day)
        (
            "java.lang.OutOfMemoryError: Java heap space when running the Gradle build",
            'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space\n\tat '
            "java.base/java.util.Arrays.copyOf(Arrays.java:3512)",
        ),
        # JDK 8's and JDK 11's words for a thread the JVM could not start
        (
            "java.lang.OutOfMemoryError: unable to create new native thread",
            'Exception in thread "pool-3-thread-1" java.lang.OutOfMemoryError: unable to create '
            "native thread: possibly out of memory or process/resource limits reached\n\tat "
            "java.base/java.lang.Thread.start0(Native Method)",
        ),
        # AWS's one condition under each service's code, said for another call
        (
            "An error occurred (ExpiredTokenException) when calling the ListFunctions operation: "
            "The security token included in the request is expired",
            "An error occurred (ExpiredToken) when calling the GetCallerIdentity operation: The "
            "security token included in the request is expired",
        ),
        (
            "An error occurred (ThrottlingException) when calling the GetParameter operation "
            "(reached max retries: 4): Rate exceeded",
            "botocore.exceptions.ClientError: An error occurred (Throttling) when calling the "
            "DescribeStacks operation (reached max retries: 4): Rate exceeded",
        ),
        # PHP's names as the source writes them
        (
            "TypeError: \\App\\Cart::add(): Argument #1 ($item) must be of type \\App\\Item, "
            "null given",
            "PHP Fatal error:  Uncaught TypeError: App\\Cart::add(): Argument #1 ($item) must be "
            "of type App\\Item, null given, called in /var/www/app/Http/Controllers/"
            "CartController.php on line 42 and defined in /var/www/app/Cart.php:15",
        ),
        # Rails' log says the exception's message in parentheses
        (
            "ActiveRecord::RecordNotFound: Couldn't find Order with 'id'=5",
            "ActiveRecord::RecordNotFound (Couldn't find Order with 'id'=42):\n\n"
            "app/controllers/orders_controller.rb:8:in `show'",
        ),
        # go test's close of a package that did not build is not the error
        (
            "./server.go:22:9: undefined: db",
            "# example.com/app\n./server.go:22:9: undefined: db\nFAIL\texample.com/app [build "
            "failed]",
        ),
    ],
)
def test_the_same_error_said_another_way_finds_its_fix(
    store: MemoryStore, stored: str, asked: str
) -> None:
    """The names the fingerprint keeps are the error's, not the words around them: a note
    that said more after the JVM's kind of memory, another JDK's wording, another AWS
    service's code for one condition, PHP's leading backslash were each held at 0.3 as
    another error's fix by the first cut of these rules (qa-bare F1–F4); go test's closing
    line was read as the error (S1)."""
    entry = store.remember(f"ERROR-FIX: {stored} | FIX: the fix of this error", "error_fix")
    assert entry.status == "stored", entry
    hits = store.recall(asked, errors=True).hits
    assert [h.memory.id for h in hits][:1] == [entry.id], hits


@pytest.mark.parametrize(
    ("stored", "asked"),
    [
        # a CI job's failure said in a prompt (qa-week P08: the fix scored 0.39, below the
        # floor, and a note that was no fix came first at 0.41)
        (
            "Process completed with exit code 139",
            "CI job 'tests' failed: Error: Process completed with exit code 139.",
        ),
        ("KeyError: 'user'", "KeyError: 'user' when I log out"),
        (
            "OSError: [Errno 98] Address already in use",
            "uvicorn won't start locally: OSError: [Errno 98] Address already in use",
        ),
    ],
)
def test_an_error_told_in_a_sentence_finds_its_fix_by_its_fingerprint(
    store: MemoryStore, stored: str, asked: str
) -> None:
    """A query that tells its error in a sentence is matched by the error's own fingerprint
    too, as the prompt hook's error query is: the words around it are not the error's."""
    entry = store.remember(f"ERROR-FIX: {stored} | FIX: the fix of this error", "error_fix")
    other = store.remember("ERROR-FIX: TypeError: x is not a function | FIX: call y", "error_fix")
    assert entry.status == other.status == "stored", (entry, other)
    hits = store.recall(asked).hits
    assert [(h.memory.id, h.match) for h in hits][:1] == [(entry.id, "fingerprint")], hits
    assert hits[0].semantic >= FINGERPRINT_SCORE


@pytest.mark.parametrize(
    ("stored", "asked"),
    [
        # every CI job that fails exits 1 (qa-s59 F4: 0.977, an exact match, for a job
        # that failed installing)
        (
            "Process completed with exit code 1",
            "CI job 'install' failed: Error: Process completed with exit code 1.",
        ),
        (
            "Error: Command failed with exit code 1.",
            "yarn build on vercel fails with Error: Command failed with exit code 1.",
        ),
        ("ERROR: Job failed: exit code 1", "the deploy job broke: ERROR: Job failed: exit code 1"),
        # a command not found, which one unsaid (qa-s60 F11: "jq is missing" was every
        # missing command's exact fix, 0.998)
        (
            "Error: Process completed with exit code 127.",
            "the lint job fails: Error: Process completed with exit code 127.",
        ),
        (
            "subprocess.CalledProcessError: Command '['npm', 'ci']' returned non-zero exit "
            "status 1.",
            "subprocess.CalledProcessError: Command '['git', 'push']' returned non-zero exit "
            "status 1.",
        ),
        # the port said which service: PostgreSQL's fix was redis' exact match (0.974)
        (
            "Error: connect ECONNREFUSED 127.0.0.1:5432",
            "the redis client fails: Error: connect ECONNREFUSED 127.0.0.1:6379 when I start "
            "the worker",
        ),
    ],
)
def test_an_error_that_says_only_that_something_failed_matches_no_entry_exactly(
    store: MemoryStore, stored: str, asked: str
) -> None:
    """A fingerprint that is only a runner's report of a failed command (its status that of
    any failure) or a refused connection to another port is not the error of the entry
    stored with it: the entry may still be found by its words, not as an exact match."""
    entry = store.remember(f"ERROR-FIX: {stored} | FIX: the fix of this error", "error_fix")
    assert entry.status == "stored", entry
    hits = store.recall(asked, top_k=10, errors=True).hits
    assert all(h.match != "fingerprint" for h in hits), hits
    assert all(h.semantic < FINGERPRINT_SCORE for h in hits), hits


@pytest.mark.parametrize(
    ("stored", "asked"),
    [
        (
            "Process completed with exit code 137",
            "CI job 'tests' failed: Error: Process completed with exit code 137.",
        ),
        ("make: *** [test] Error 2", "make: *** [test] Error 2"),
        ("bash: line 1: jq: command not found", "bash: line 1: jq: command not found"),
        ("Error: connect ECONNREFUSED 127.0.0.1:5432", "Error: connect ECONNREFUSED ::1:5432"),
        (
            "Error: connect ECONNREFUSED 127.0.0.1:41873",
            "Error: connect ECONNREFUSED 127.0.0.1:52110",
        ),
    ],
)
def test_an_error_that_names_what_failed_still_matches_its_entry_exactly(
    store: MemoryStore, stored: str, asked: str
) -> None:
    """The same rules leave an exact match where the status says why (137: killed), where
    the target that failed is named, and a connection to the same port from another address
    (or to a test server's port, a new one every run)."""
    entry = store.remember(f"ERROR-FIX: {stored} | FIX: the fix of this error", "error_fix")
    assert entry.status == "stored", entry
    hits = store.recall(asked, errors=True).hits
    assert [(h.memory.id, h.match) for h in hits][:1] == [(entry.id, "fingerprint")], hits


def test_a_service_on_another_port_is_no_other_services_error(store: MemoryStore) -> None:
    """The port of a known service is its error's (redis' 6379 is not PostgreSQL's 5432), but
    another port is not another code: PostgreSQL moved to 5433 (a local one holds 5432) lost
    its fix, held as another error's (qa-s60 F3), and redis' came first."""
    from kenning.hooks.claude_code import prompt_queries

    postgres = store.remember(
        "ERROR-FIX: Error: connect ECONNREFUSED 127.0.0.1:5432 | FIX: PostgreSQL is not up; "
        "docker compose up -d db",
        "error_fix",
    )
    redis = store.remember(
        "ERROR-FIX: Error: connect ECONNREFUSED 127.0.0.1:6379 | FIX: redis is not up; docker "
        "compose up -d redis",
        "error_fix",
    )
    assert postgres.status == redis.status == "stored", (postgres, redis)
    moved = "the api won't start: Error: connect ECONNREFUSED 127.0.0.1:5433"
    hits = store.recall_many(prompt_queries(moved)).hits
    assert [h.memory.id for h in hits][:1] == [postgres.id], hits
    assert hits[0].semantic > ANOTHER_CODE_SCORE
    hits = store.recall_many(prompt_queries(moved.replace("5433", "6379"))).hits
    assert [(h.memory.id, h.match) for h in hits] == [(redis.id, "fingerprint")], hits
    # two ports of no known service are two services: LocalStack's fix is not MinIO's (it
    # was its exact match, qa-s60b N1)
    localstack = store.remember(
        "ERROR-FIX: Error: connect ECONNREFUSED 127.0.0.1:4566 | FIX: LocalStack is not up; "
        "localstack start -d",
        "error_fix",
    )
    assert localstack.status == "stored", localstack
    minio = "uploads fail: Error: connect ECONNREFUSED 127.0.0.1:9000"
    assert localstack.id not in [h.memory.id for h in store.recall_many(prompt_queries(minio)).hits]
    hits = store.recall_many(prompt_queries(minio.replace("9000", "4566"))).hits
    assert [(h.memory.id, h.match) for h in hits][:1] == [(localstack.id, "fingerprint")], hits


def test_a_request_holds_another_errors_fix_whichever_of_its_queries_found_it(
    store: MemoryStore,
) -> None:
    """The prompt hook recalls a prompt's words and its error as one request: the words
    "CI job 'tests' failed" found the out-of-memory fix of exit code 137 at 0.63 for a job
    that failed with 139 (qa-week F1), though the error query held it below the floors."""
    from kenning.hooks.claude_code import prompt_queries

    segfault = store.remember(
        "ERROR-FIX: Process completed with exit code 139 | FIX: segfault in the psycopg binary "
        "wheel on the alpine runner; use the debian-based runner image",
        "error_fix",
    )
    memory = store.remember(
        "ERROR-FIX: Process completed with exit code 137 | FIX: the CI runner ran out of memory "
        "in the test job; run pytest with -n 2 instead of -n auto",
        "error_fix",
    )
    assert segfault.status == memory.status == "stored", (segfault, memory)
    prompt = "CI job 'tests' failed: Error: Process completed with exit code 139."
    queries = prompt_queries(prompt)
    assert [e for _, e in queries] == [False, True], queries
    words_alone = store.recall_many(queries[:1]).hits
    assert memory.id in [h.memory.id for h in words_alone], "the words alone find it"
    assert [h.memory.id for h in store.recall_many(queries).hits] == [segfault.id]
    # the same exit code's fix is still recalled for its own error
    exit_137 = prompt.replace("139", "137")
    assert [h.memory.id for h in store.recall_many(prompt_queries(exit_137)).hits] == [memory.id]
    # and without its own fix, the words hold another code's all the same
    store.forget(segfault.id)
    assert memory.id not in [h.memory.id for h in store.recall_many(queries).hits]
    # ... also words that look like an error themselves: they tell no error of their own
    # (qa-s59c F4: "…dies with exit code 139…" let the fix of 137 through at 0.44)
    said = (
        "the tests job dies with exit code 139 on the arm runner since the merge: Error: "
        "Process completed with exit code 139."
    )
    assert looks_like_error(prompt_queries(said)[0][0]), prompt_queries(said)
    assert memory.id not in [h.memory.id for h in store.recall_many(prompt_queries(said)).hits]


def test_a_prompts_words_may_find_the_fix_of_a_family_of_names(store: MemoryStore) -> None:
    """numpy 1.24 removed ``np.float``, ``np.int`` and ``np.bool`` together: the error query
    holds the fix stored for ``'float'`` as another name's, and the prompt's words found it
    (0.54, qa-s59 F1). They still do, also beside the error's own fix (qa-s59b F2: the fix
    the words described was hidden by the exact one)."""
    from kenning.hooks.claude_code import prompt_queries

    family = store.remember(
        "ERROR-FIX: AttributeError: module 'numpy' has no attribute 'float' | FIX: numpy 1.24 "
        "removed the deprecated aliases np.float, np.int and np.bool; use the builtins or "
        "np.float64",
        "error_fix",
    )
    assert family.status == "stored", family
    prompt = (
        "after upgrading numpy to 1.24 the feature pipeline breaks: AttributeError: module "
        "'numpy' has no attribute 'int'"
    )
    assert family.id in [h.memory.id for h in store.recall_many(prompt_queries(prompt)).hits]
    own = store.remember(
        "ERROR-FIX: AttributeError: module 'numpy' has no attribute 'int' | FIX: replace np.int "
        "with int in features.py",
        "error_fix",
    )
    assert own.status == "stored", own
    hits = [h.memory.id for h in store.recall_many(prompt_queries(prompt)).hits]
    assert hits[:1] == [own.id], hits
    assert family.id in hits, "the words still find the family's fix beside the exact one"


def test_the_fix_of_another_exception_is_held_to_the_generic_floor(store: MemoryStore) -> None:
    """An error query's lower floor is for the entries about its error: the fix of a
    ``psycopg.OperationalError`` came back at 0.41-0.45 for ``KeyError: 'customer_id'``
    (qa-week F4). An entry that names another exception than the query's is held to the
    generic floor; one of the query's exception is still held to the error floor."""
    other = store.remember(
        'ERROR-FIX: psycopg.OperationalError: password authentication failed for user "orders_app" '
        "| FIX: the DATABASE_URL in staging had an old password; take it from the secrets manager",
        "error_fix",
    )
    more = store.remember(
        "ERROR-FIX: sqlalchemy.exc.TimeoutError: QueuePool limit of size 5 overflow 10 reached "
        "| FIX: sessions were leaked by a background task; use a context manager",
        "error_fix",
    )
    assert other.status == more.status == "stored", (other, more)
    asked = "KeyError: 'customer_id'"
    found = store.retrieve(asked, 5, Filters(group_id=store.group_id), error=True)
    assert found[0].memory.id == other.id, found
    assert protocol.ERROR_RECALL_FLOOR <= found[0].semantic < protocol.RECALL_FLOOR, found
    assert store.recall(asked).hits == ()
    # the same score for an entry of the query's exception passes the error floor
    own = store.remember(
        "ERROR-FIX: KeyError: 'customer_id' in the nightly export | FIX: old rows have no "
        "customer_id; read it with .get()",
        "error_fix",
    )
    hits = store.recall(asked).hits
    assert own.id in [h.memory.id for h in hits], hits
    assert other.id not in [h.memory.id for h in hits], hits


def fixes_recalled(project: Path, error: str) -> list[tuple[str, str]]:
    """``kenning recall --json --error ERROR``'s results: each entry's fix and its match."""
    r = run_cli(project, "recall", "--json", "--error", error)
    assert r.returncode == 0, r.stderr
    return [(h["content"].split("| FIX: ")[1], h["match"]) for h in json.loads(r.stdout)["results"]]


def test_a_lua_nil_global_is_known_by_its_name(project: Path) -> None:
    """Lua's fingerprint masked the nil global's name (``attempt to call a nil value (global
    <q>)``), so a fix stored for ``foo`` (require the module that defines it) was the exact
    match of ``bar``'s error. The name is kept, as a NameError's: each fix comes for its own
    name, exact; the other's is no exact match (nor a nil local's, whose name stays masked)."""

    for note in (
        "ERROR-FIX: attempt to call a nil value (global 'foo') | FIX: require('util') defines "
        "foo: require it before main.lua calls it",
        "ERROR-FIX: app.lua:9: attempt to call a nil value (method 'render') | FIX: the widget "
        "API renamed render to draw in 2.0",
    ):
        r = run_cli(project, "remember", "--type", "error_fix", note)
        assert r.returncode == 0 and "stored" in r.stdout, (r.stdout, r.stderr)
    found = fixes_recalled(
        project, "lua: app.lua:3: attempt to call a nil value (global 'foo')\nstack traceback:"
    )
    assert found[0] == (
        "require('util') defines foo: require it before main.lua calls it",
        "fingerprint",
    ), found
    for other in (
        "lua: app.lua:3: attempt to call a nil value (global 'bar')",
        "lua: src/ui.lua:12: attempt to call a nil value (method 'paint')",
    ):
        assert "fingerprint" not in [match for _, match in fixes_recalled(project, other)], (
            other,
            fixes_recalled(project, other),
        )
    found = fixes_recalled(
        project, "lua: src/ui.lua:12: attempt to call a nil value (method 'render')"
    )
    assert found[0] == ("the widget API renamed render to draw in 2.0", "fingerprint"), found


def test_a_keyerror_is_known_by_its_key_when_the_key_is_a_name(project: Path) -> None:
    """qa79 F3: a KeyError's fingerprint masked its key (``keyerror: <q>``), so every KeyError
    was one error: with fixes stored for ``'items'`` and ``'user'``, ``recall --error
    "KeyError: 'cart_total'"`` gave both as exact matches (0.99, 0.97). A key that reads as
    a name in the code is kept: each fix comes for its own key alone, exact; a key that is
    data (a number, a uuid) is masked still, so one such fix is every such KeyError's."""

    for note in (
        "ERROR-FIX: KeyError: 'items' | FIX: parse the cart before totalling",
        "ERROR-FIX: KeyError: 'user' | FIX: add the session middleware",
        "ERROR-FIX: KeyError: 42 | FIX: the cache is keyed by str ids; convert the id first",
        "ERROR-FIX: KeyError: 'a3f9c2e1-4b5d-4c6e-8f70-123456789abc' | FIX: the job's row was "
        "deleted; skip the jobs whose row is gone",
    ):
        r = run_cli(project, "remember", "--type", "error_fix", note)
        assert r.returncode == 0 and "stored" in r.stdout, (r.stdout, r.stderr)
    # (the fix of a number's KeyError may still come by its words, not as the exact match)
    other = fixes_recalled(project, "KeyError: 'cart_total'")
    assert not {"parse the cart before totalling", "add the session middleware"} & {
        fix for fix, _ in other
    }, other
    assert "fingerprint" not in [match for _, match in other], other
    for asked, own, other in (
        ("KeyError: 'items'", "parse the cart before totalling", "add the session middleware"),
        (
            'Traceback (most recent call last):\n  File "app.py", line 9, in login\n'
            "KeyError: 'user'\n",
            "add the session middleware",
            "parse the cart before totalling",
        ),
    ):
        found = fixes_recalled(project, asked)
        assert found[0] == (own, "fingerprint"), found
        assert other not in [fix for fix, _ in found], found
        assert [match for _, match in found].count("fingerprint") == 1, found
    # (a fix of a named key may still come for a number's by its words, not as exact)
    for data, own in (
        ("KeyError: 7", "the cache is keyed by str ids; convert the id first"),
        (
            "KeyError: '0b7e21d4-9c3a-4f12-a6e5-fedcba987654'",
            "the job's row was deleted; skip the jobs whose row is gone",
        ),
    ):
        found = fixes_recalled(project, data)
        assert found[0] == (own, "fingerprint"), found
        assert [match for _, match in found].count("fingerprint") == 1, found


def test_the_fix_of_a_failed_assert_is_another_exceptions_for_an_exception(
    store: MemoryStore,
) -> None:
    """qa-s69a F5: pytest's failed assert is an AssertionError whose fingerprint leaves the
    class out (``assert 401 == 200``), so the fix of one was held to the error floor and came
    back at 0.42 for ``KeyError: 'tenant_id'``; it is held to the generic floor as another
    class's fix is, and an assert query still finds it."""
    entry = store.remember(
        "ERROR-FIX: FAILED tests/test_db.py::test_engine - assert 401 == 200 | FIX: the test "
        "client needs the auth fixture; use client_logged_in",
        "error_fix",
    )
    assert entry.status == "stored", entry
    asked = "KeyError: 'tenant_id'"
    found = store.retrieve(asked, 5, Filters(group_id=store.group_id), error=True)
    assert found[0].memory.id == entry.id, found
    assert protocol.ERROR_RECALL_FLOOR <= found[0].semantic < protocol.RECALL_FLOOR, found
    assert store.recall(asked).hits == ()
    for same in ("AssertionError: assert 401 == 200", "E       assert 401 == 200"):
        assert [h.memory.id for h in store.recall(same).hits][:1] == [entry.id], same


def test_a_failed_assert_told_in_a_prompt_is_not_given_another_asserts_fix(
    store: MemoryStore,
) -> None:
    """qa-week P29: "test_admin_forbidden fails: assert 403 == 200" was no error query, and
    the fix of ``assert 401 == 200`` came back at 0.68, the only finding, through the hook
    and ``kenning recall`` alike."""
    from kenning.hooks.claude_code import prompt_queries

    entry = store.remember(
        "ERROR-FIX: assert 401 == 200 in tests/test_api.py | FIX: the test client has no "
        "Authorization header; use the authed_client fixture",
        "error_fix",
    )
    assert entry.status == "stored", entry
    prompt = "test_admin_forbidden fails: assert 403 == 200"
    assert entry.id not in [h.memory.id for h in store.recall(prompt).hits]
    assert entry.id not in [h.memory.id for h in store.recall_many(prompt_queries(prompt)).hits]
    own = "test_create_order_requires_auth fails: assert 401 == 200"
    assert [h.memory.id for h in store.recall(own).hits][:1] == [entry.id]
    assert [h.memory.id for h in store.recall_many(prompt_queries(own)).hits][:1] == [entry.id]


def test_the_error_a_prompt_gives_now_finds_its_fix_before_the_one_it_fixed(
    store: MemoryStore,
) -> None:
    from kenning.hooks.claude_code import prompt_queries

    fixed = store.remember(
        "ERROR-FIX: KeyError: 'user' | FIX: the session has no user before login; read it "
        "with session.get('user')",
        "error_fix",
    )
    now = store.remember(
        "ERROR-FIX: TypeError: 'NoneType' object is not subscriptable | FIX: load_profile "
        "returns None for guests; check it before indexing",
        "error_fix",
    )
    assert fixed.status == now.status == "stored", (fixed, now)
    prompt = (
        "I fixed the KeyError: 'user' but now I get TypeError: 'NoneType' object is not "
        "subscriptable"
    )
    for result in (store.recall_many(prompt_queries(prompt)), store.recall(prompt)):
        assert [(h.memory.id, h.match) for h in result.hits][:1] == [(now.id, "fingerprint")]
    # the prompt hook leaves the error fixed out of its words: its fix is the one just applied
    assert [h.memory.id for h in store.recall_many(prompt_queries(prompt)).hits] == [now.id]


def test_each_error_a_prompt_tells_finds_its_fix(store: MemoryStore) -> None:
    """qa-s59b F1: of two failed asserts told in one prompt, the second's fix (an exact match)
    was held as another code's than the first, through the hook and recall alike."""
    from kenning.hooks.claude_code import prompt_queries

    fixes = [
        store.remember(f"ERROR-FIX: AssertionError: assert {code} == 200 | FIX: {fix}", "error_fix")
        for code, fix in ((401, "use the logged_in_client fixture"), (404, "add the slash"))
    ]
    assert all(f.status == "stored" for f in fixes), fixes
    prompt = "test_admin fails: assert 401 == 200. test_detail fails: assert 404 == 200."
    for result in (store.recall_many(prompt_queries(prompt)), store.recall(prompt)):
        found = {h.memory.id: h.match for h in result.hits}
        assert found == {f.id: "fingerprint" for f in fixes}, result.hits
    # ... and each on a line of its own (qa-s59c F3: the second's fix was held as another
    # code's than the one signature of the two lines, the hook's one and recall's the other)
    prompt = (
        "run 1: test_admin fails: assert 401 == 200\nrun 2: test_detail fails: assert 404 == 200"
    )
    for result in (store.recall_many(prompt_queries(prompt)), store.recall(prompt)):
        found = {h.memory.id: h.match for h in result.hits}
        assert found == {f.id: "fingerprint" for f in fixes}, result.hits
    # and `kenning recall --error` of it (qa-s60 F8: it asked the log's one signature)
    r = run_cli(store.project.root, "recall", "--json", "--error", prompt)
    assert r.returncode == 0, r.stderr
    found = {h["id"]: h["match"] for h in json.loads(r.stdout)["results"]}
    assert found == {f.id: "fingerprint" for f in fixes}, r.stdout


def test_an_entry_of_any_error_a_prompt_tells_is_not_held_as_another_codes(
    store: MemoryStore,
) -> None:
    """An entry that is no exact match of the second error a prompt tells (it names its test
    file) was held as another code's than the first's: held only when it is another code
    than each told error."""
    from kenning.hooks.claude_code import prompt_queries

    entry = store.remember(
        "ERROR-FIX: assert 404 == 200 in tests/test_detail.py | FIX: the detail route needs its "
        "trailing slash",
        "error_fix",
    )
    other = store.remember(
        "ERROR-FIX: assert 500 == 200 in tests/test_detail.py | FIX: seed the database first",
        "error_fix",
    )
    assert entry.status == other.status == "stored", (entry, other)
    prompt = "test_admin fails: assert 401 == 200. test_detail fails: assert 404 == 200."
    for result in (store.recall(prompt), store.recall_many(prompt_queries(prompt))):
        found = [h.memory.id for h in result.hits]
        assert entry.id in found, result.hits
        assert other.id not in found, result.hits


def test_a_rails_log_finds_its_exception_s_fix_and_not_another_requests(store: MemoryStore) -> None:
    """qa-s60c H3: a Rails log's signature was its "Completed 500 Internal Server Error in
    …ms" line, and the fix an agent had stored under another page's such line was its exact
    match (0.997), the users page's own fix at 0.41."""
    own = store.remember(
        "ERROR-FIX: ActionView::Template::Error (undefined method `name' for nil:NilClass) | "
        "FIX: users without a team: use user.team&.name in users/index",
        "error_fix",
    )
    other = store.remember(
        "ERROR-FIX: Completed 500 Internal Server Error in 31ms (ActiveRecord: 2.0ms | "
        "Allocations: 4410) | FIX: the orders controller needs Order.includes(:customer)",
        "error_fix",
    )
    assert own.status == other.status == "stored", (own, other)
    log = (
        'the users page is broken\nStarted GET "/users" for ::1 at 2024-01-15 10:00:01 +0100\n'
        "Processing by UsersController#index as HTML\n"
        "Completed 500 Internal Server Error in 23ms (ActiveRecord: 0.0ms | Allocations: 1234)\n"
        "\nActionView::Template::Error (undefined method `name' for nil:NilClass):\n"
        "    3: <% @users.each do |user| %>\n\napp/views/users/index.html.erb:4"
    )
    hits = store.recall(log).hits
    assert [(h.memory.id, h.match) for h in hits][:1] == [(own.id, "fingerprint")], hits
    assert all(h.match != "fingerprint" for h in hits if h.memory.id == other.id), hits


def test_node_20_s_refused_connection_finds_its_service_s_fix(store: MemoryStore) -> None:
    """qa-s60c M1: Node 20's `AggregateError [ECONNREFUSED]:` was the signature of any
    refused connection: redis' paste got PostgreSQL's fix (0.895), not as an exact match."""
    from .test_errorfix import node20_aggregate_error

    redis, postgres = (
        store.remember(f"ERROR-FIX: Error: connect ECONNREFUSED 127.0.0.1:{port} | FIX: {fix}")
        for port, fix in ((6379, "docker compose up -d redis"), (5432, "docker compose up -d db"))
    )
    assert redis.status == postgres.status == "stored", (redis, postgres)
    hits = store.recall(f"the seed script fails:\n{node20_aggregate_error(6379)}").hits
    assert [(h.memory.id, h.match) for h in hits][:1] == [(redis.id, "fingerprint")], hits
    assert postgres.id not in [h.memory.id for h in hits], hits


def test_a_port_docker_cannot_publish_finds_its_service_s_fix(store: MemoryStore) -> None:
    """qa-s69a F6: Docker's "Bind for 0.0.0.0:5432 failed: port is already allocated" found
    the fix stored for it at 0.79 (the daemon's answer names the compose endpoint, the note
    did not) and redis' 6379 fix second at 0.67: the port says which service's is taken."""
    postgres, redis = (
        store.remember(
            "ERROR-FIX: docker: Error response from daemon: driver failed programming external "
            f"connectivity: Bind for 0.0.0.0:{port} failed: port is already allocated | FIX: {fix}"
        )
        for port, fix in (
            (5432, "stop the local postgres (brew services stop postgresql) or map 5433:5432"),
            (6379, "stop the local redis (brew services stop redis)"),
        )
    )
    assert postgres.status == redis.status == "stored", (postgres, redis)
    hits = store.recall(
        "Error response from daemon: driver failed programming external connectivity on "
        "endpoint invoicer-db-1 (3f2a9c0d8e7b): Bind for 0.0.0.0:5432 failed: port is already "
        "allocated",
    ).hits
    assert [(h.memory.id, h.match) for h in hits][:1] == [(postgres.id, "fingerprint")], hits
    assert redis.id not in [h.memory.id for h in hits], hits


def test_a_port_a_server_cannot_listen_on_is_not_another_port_s_error(store: MemoryStore) -> None:
    """qa-s69b F4: Docker's "Error starting userland proxy: listen tcp4 0.0.0.0:5432: bind:
    address already in use" got the Go dev proxy's `:8080` fix first (0.53), the fix stored
    for 5432 second (0.48): another port is another error, a known service's or not."""
    from kenning.querybuild import error_recall_queries

    postgres, proxy = (
        store.remember(f"ERROR-FIX: {text}", "error_fix")
        for text in (
            "Bind for 0.0.0.0:5432 failed: port is already allocated | FIX: a local postgres is "
            "running; stop it with brew services stop postgresql or change POSTGRES_PORT in .env",
            "listen tcp :8080: bind: address already in use | FIX: the dev proxy from make proxy "
            "is still running; kill it with make proxy-stop",
        )
    )
    assert postgres.status == proxy.status == "stored", (postgres, proxy)
    docker = (
        "Error response from daemon: driver failed programming external connectivity on "
        "endpoint widgets_db_1 (5b1e0c2d9a7f): Error starting userland proxy: listen tcp4 "
        "0.0.0.0:5432: bind: address already in use"
    )
    for result in (store.recall(docker), store.recall_many(error_recall_queries(docker)[0])):
        assert [h.memory.id for h in result.hits] == [postgres.id], result.hits
    moved = "Bind for 0.0.0.0:5433 failed: port is already allocated"
    held = store.recall_many(error_recall_queries(moved)[0]).hits
    assert postgres.id not in [h.memory.id for h in held], held
    # ... and typed alone, read as the error it is (it was a sentence's words: 5432's fix
    # came back at 0.92-0.99)
    held = store.recall(moved).hits
    assert postgres.id not in [h.memory.id for h in held], held
    assert [h.memory.id for h in store.recall(moved.replace("5433", "5432")).hits][:1] == [
        postgres.id
    ]
    go = "2026/12/05 10:01:02 listen tcp :8080: bind: address already in use"
    assert [h.memory.id for h in store.recall(go).hits] == [proxy.id]
    # Node's and asyncio's wordings keep their port too (it was masked: Node's :::3000 fix
    # was the exact match for :::3001, and came first for Docker's 5432; qa-s70b F4)
    node = store.remember(
        "ERROR-FIX: Error: listen EADDRINUSE: address already in use :::3000 | FIX: another "
        "next dev is running; stop it or start this one with PORT=3001",
        "error_fix",
    )
    assert node.status == "stored", node
    for other in (
        "Error: listen EADDRINUSE: address already in use :::3001",
        "Error: listen EADDRINUSE: address already in use 127.0.0.1:3002",
        "OSError: [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): "
        "address already in use",
        docker,
    ):
        for result in (store.recall(other), store.recall_many(error_recall_queries(other)[0])):
            assert node.id not in [h.memory.id for h in result.hits], (other, result.hits)
    same = "Error: listen EADDRINUSE: address already in use 0.0.0.0:3000"
    hits = store.recall(same).hits
    assert [(h.memory.id, h.match) for h in hits][:1] == [(node.id, "fingerprint")], hits


def test_a_command_a_shell_cannot_find_finds_its_own_fix(store: MemoryStore) -> None:
    """`bash: fd: command not found` got the fix stored for `rg` at 0.67 (the command's name
    was no value the fingerprint kept), and zsh's wording of the same error was no exact
    match of bash's."""
    rg = store.remember(
        "ERROR-FIX: bash: rg: command not found | FIX: apt install ripgrep (the binary is rg)"
    )
    assert rg.status == "stored", rg
    assert rg.id not in [h.memory.id for h in store.recall("bash: fd: command not found").hits]
    hits = store.recall("zsh: command not found: rg").hits
    assert [(h.memory.id, h.match) for h in hits][:1] == [(rg.id, "fingerprint")], hits


def test_a_missing_module_or_command_of_another_name_is_another_error_in_any_wording(
    store: MemoryStore,
) -> None:
    """qa-s69c F2, F3: Node's `Cannot find module 'lodash'` got Python's `No module named
    'yaml'` fix first (0.46-0.50) and Python's `requests` Node's `express` fix (the other-name
    hold read one wording at a time), and `kubectl: command not found` typed without its
    shell got rg's fix (0.54). What is missing, named otherwise, is another error."""
    yaml, express, rg = (
        store.remember(text, "error_fix")
        for text in (
            "ERROR-FIX: ModuleNotFoundError: No module named 'yaml' | FIX: pip install pyyaml",
            "ERROR-FIX: Error: Cannot find module 'express' | FIX: npm install express",
            "ERROR-FIX: bash: rg: command not found | FIX: apt install ripgrep",
        )
    )
    assert yaml.status == express.status == rg.status == "stored", (yaml, express, rg)

    def recalled(query: str) -> list[str]:
        return [h.memory.id for h in store.recall(query).hits]

    assert not {yaml.id, express.id} & set(recalled("Cannot find module 'lodash'"))
    assert express.id not in recalled("No module named 'requests'")
    assert rg.id not in recalled("kubectl: command not found")
    assert recalled("rg: command not found")[:1] == [rg.id]
    assert recalled("No module named 'yaml.cyaml'")[:1] == [yaml.id]  # (a part of it)
    # Go's package path is kept bare, and Bundler's gem typed alone is an error (qa-s69d F3)
    cobra, rails = (
        store.remember(text, "error_fix")
        for text in (
            "ERROR-FIX: main.go:5:2: no required module provides package "
            "github.com/spf13/cobra; to add it: | FIX: go get github.com/spf13/cobra@v1.8.0",
            "ERROR-FIX: Could not find gem 'rails (= 7.1.3)' in locally installed gems. | FIX: "
            "bundle install (the lockfile pins 7.1.3)",
        )
    )
    logrus = "no required module provides package github.com/sirupsen/logrus; to add it:"
    assert cobra.id not in recalled(logrus)
    assert rails.id not in recalled(
        "Could not find gem 'sidekiq (~> 7.0)' in locally installed gems."
    )
    assert recalled(logrus.replace("sirupsen/logrus", "spf13/cobra"))[:1] == [cobra.id]
    # pip's requirement and npm's 404 name theirs too (qa-s69d F4)
    pip = "ERROR: Could not find a version that satisfies the requirement {} (from versions: none)"
    npm = "npm error 404 '{}@*' is not in this registry."
    tomli, ui = (
        store.remember(f"ERROR-FIX: {text} | FIX: {fix}", "error_fix")
        for text, fix in (
            (pip.format("tomli"), "the private index lacks it: add --extra-index-url"),
            (npm.format("@acme/ui"), "log in to the GitHub registry: npm login --scope=@acme"),
        )
    )
    assert tomli.id not in recalled(pip.format("toml"))
    assert ui.id not in recalled(npm.format("@acme/uix"))
    assert recalled(npm.format("@acme/ui/button"))[:1] == [ui.id]  # (a part of it)


def test_a_missing_thing_of_another_name_or_another_kind_is_another_error(
    store: MemoryStore,
) -> None:
    """qa-s69d F4: Bundler's `GemNotFound: Could not find sidekiq-7.2.0` (the gem named with
    its version) got rails' fix at 0.83, as typed and with --error; pip's `No matching
    distribution found for` and Go's GOPATH `cannot find package "x"` stay held too. F6:
    one name of another kind is another thing: Python's `No module named 'express'` got
    Node's npm ci fix at 0.83, Node's `Cannot find module 'rg'` the ripgrep command's at 0.67.
    The same kind in another wording is still found (TS2307 and webpack's `Can't resolve`)."""
    from kenning.querybuild import error_recall_queries

    rails, express, ui, rg, tomli, cobra = (
        store.remember(f"ERROR-FIX: {text}", "error_fix")
        for text in (
            "Could not find gem 'rails (~> 7.1)' in locally installed gems. | FIX: bundle install",
            "Error: Cannot find module 'express' | FIX: npm ci in services/api",
            "Module not found: Error: Can't resolve '@acme/ui' in '/app/src' | FIX: build the ui "
            "workspace first: pnpm -F @acme/ui build",
            "bash: rg: command not found | FIX: apt-get install ripgrep",
            "ERROR: No matching distribution found for tomli | FIX: add --extra-index-url",
            'main.go:3:8: cannot find package "github.com/spf13/cobra" in any of: | FIX: go mod '
            "init, then go get github.com/spf13/cobra",
        )
    )
    assert {m.status for m in (rails, express, ui, rg, tomli, cobra)} == {"stored"}

    def recalled(query: str) -> list[list[str]]:
        """The ids recalled as typed, and with --error."""
        return [
            [h.memory.id for h in result.hits]
            for result in (store.recall(query), store.recall_many(error_recall_queries(query)[0]))
        ]

    for query, other in (
        ("Bundler::GemNotFound: Could not find sidekiq-7.2.0 in locally installed gems", rails),
        ("ERROR: No matching distribution found for toml", tomli),
        ('main.go:3:8: cannot find package "github.com/sirupsen/logrus" in any of:', cobra),
        ("No module named 'express'", express),
        ("Error: Cannot find module 'rg'", rg),
        ("Error: Cannot find module 'rg'", cobra),  # (Go's GOPATH package: 0.43)
        ("ModuleNotFoundError: No module named 'rails'", rails),
    ):
        for ids in recalled(query):
            assert other.id not in ids, (query, store.get(other.id))
    for query, own in (
        ("Bundler::GemNotFound: Could not find rails-7.1.3 in locally installed gems", rails),
        ("ERROR: No matching distribution found for tomli", tomli),
        ('cmd/root.go:4:2: cannot find package "github.com/spf13/cobra" in any of:', cobra),
        (
            "error TS2307: Cannot find module '@acme/ui/button' or its corresponding type "
            "declarations.",
            ui,
        ),
        ("Module not found: Error: Can't resolve '@acme/ui/button' in '/app/src/pages'", ui),
        ("zsh: command not found: rg", rg),
    ):
        for ids in recalled(query):
            assert ids[:1] == [own.id], (query, own.content)


def test_a_missing_module_is_not_another_exception_that_names_nothing_missing(
    store: MemoryStore,
) -> None:
    """`No module named 'yaml'` got the fix of FileNotFoundError's `config.yaml` at 0.81 (its
    fix says yaml three times): a missing file of another exception, whose message shares no
    word with the query's (the other-exception rule), is another error; so is the module's
    fix for the missing file. The module's own family still finds it."""
    from kenning.querybuild import error_recall_queries

    yaml, config = (
        store.remember(f"ERROR-FIX: {text}", "error_fix")
        for text in (
            "ModuleNotFoundError: No module named 'yaml' | FIX: the package is pyyaml: pip "
            "install pyyaml",
            "FileNotFoundError: [Errno 2] No such file or directory: 'config.yaml' | FIX: copy "
            "config.example.yaml to config.yaml",
        )
    )
    assert yaml.status == config.status == "stored", (yaml, config)
    for query, own in (
        ("No module named 'yaml'", yaml),
        ("ModuleNotFoundError: No module named 'yaml.cyaml'", yaml),
        ("FileNotFoundError: [Errno 2] No such file or directory: 'settings.yaml'", config),
    ):
        for result in (store.recall(query), store.recall_many(error_recall_queries(query)[0])):
            assert [h.memory.id for h in result.hits] == [own.id], (query, result.hits)
    # nor in another language's wording, whose missing thing is of another kind than
    # Python's module, so that the file's fix was its only answer (qa-s70b F5)
    for query in (
        "Error: Cannot find module 'yaml'",
        "error[E0432]: unresolved import `yaml`",
        "bash: yaml: command not found",
    ):
        for result in (store.recall(query), store.recall_many(error_recall_queries(query)[0])):
            assert config.id not in [h.memory.id for h in result.hits], (query, result.hits)


def test_a_missing_crate_package_or_gem_is_named_in_each_tool_s_wording(
    store: MemoryStore,
) -> None:
    """qa-s70b F6: rustc's `can't find crate for `serde`` masked the crate (tokio's E0463 got
    serde's fix as its exact match, 0.99), rustc's E0433 and npm's 404 (its package in the
    registry's URL) got Node's `Cannot find module 'express'` fix (npm ci) at 0.42-0.55; Go's
    `cannot find module providing package` and Ruby's `cannot load such file -- x` named no
    missing thing either (pg's LoadError got nokogiri's fix at 0.93), nor esbuild's `Could not
    resolve "x"` in double quotes. Each names its missing thing now: another name or another
    kind is another error, and the same one is still found."""
    from kenning.querybuild import error_recall_queries

    serde, express, cobra, nokogiri, lodash = (
        store.remember(f"ERROR-FIX: {text}", "error_fix")
        for text in (
            'error[E0463]: can\'t find crate for `serde` | FIX: add serde = "1" to '
            "[dependencies] in Cargo.toml",
            "Error: Cannot find module 'express' | FIX: npm ci",
            "main.go:5:2: no required module provides package github.com/spf13/cobra; to add it: "
            "| FIX: go get github.com/spf13/cobra@v1.8.0",
            "/app/config/boot.rb:3:in `require': cannot load such file -- nokogiri (LoadError) | "
            "FIX: apt-get install libxml2-dev, then bundle install",
            '✘ [ERROR] Could not resolve "lodash" | FIX: pnpm add lodash in packages/web',
        )
    )
    assert {m.status for m in (serde, express, cobra, nokogiri, lodash)} == {"stored"}

    def recalled(query: str) -> list[list[str]]:
        """The ids recalled as typed, and with --error."""
        return [
            [h.memory.id for h in result.hits]
            for result in (store.recall(query), store.recall_many(error_recall_queries(query)[0]))
        ]

    for query, other in (
        ("error[E0463]: can't find crate for `tokio`", serde),
        # (rustc's E0433 as 1.84, 1.85 and 1.95 word it)
        ("error[E0433]: failed to resolve: use of undeclared crate or module `foo`", express),
        (
            "error[E0433]: failed to resolve: use of unresolved module or unlinked crate `foo`",
            express,
        ),
        ("error[E0433]: cannot find module or crate `foo` in this scope", express),
        ("npm ERR! 404 Not Found - GET https://registry.npmjs.org/yaml - Not found", express),
        (
            "npm error 404 Not Found - GET https://registry.npmjs.org/@acme%2fui - Not found",
            express,
        ),
        (" ERR_PNPM_FETCH_404  GET https://registry.npmjs.org/yaml: Not Found - 404", express),
        ('✘ [ERROR] Could not resolve "react-dom"', lodash),
        ('✘ [ERROR] Could not resolve "react-dom"', express),
        (
            "main.go:3:8: cannot find module providing package github.com/acme/ledger: import "
            "lookup disabled by -mod=vendor",
            cobra,
        ),
        ("cannot find module providing package github.com/acme/ledger", express),
        ("/app/config/boot.rb:3:in `require': cannot load such file -- pg (LoadError)", nokogiri),
        ("cannot load such file -- rails (LoadError)", nokogiri),
    ):
        for ids in recalled(query):
            assert other.id not in ids, (query, ids)
    for query, own in (
        ("error[E0463]: can't find crate for `serde`", serde),
        ("error[E0463]: can't find crate for `serde`\n --> src/main.rs:1:1\n  |", serde),
        ("npm ERR! 404 Not Found - GET https://registry.npmjs.org/express - Not found", express),
        ('✘ [ERROR] Could not resolve "express"', express),
        ("Error: Cannot find module 'lodash'", lodash),
        (
            "cmd/main.go:3:8: cannot find module providing package github.com/spf13/cobra: "
            "import lookup disabled by -mod=vendor",
            cobra,
        ),
        ("cannot load such file -- nokogiri/nokogiri (LoadError)", nokogiri),
    ):
        for ids in recalled(query):
            assert ids[:1] == [own.id], (query, ids)
    # a crate of Rust's own library is the target's (not installed): std's and core's are one
    # error, whose fix is rustup target add (it was core's exact match before the crate was
    # named; named, std was held as another crate)
    target = store.remember(
        "ERROR-FIX: error[E0463]: can't find crate for `core` | FIX: the target is not "
        "installed: rustup target add thumbv7em-none-eabihf",
        "error_fix",
    )
    assert target.status == "stored", target
    std = (
        "error[E0463]: can't find crate for `std`\n  |\n  = note: the `wasm32-unknown-unknown` "
        "target may not be installed"
    )
    for ids in recalled(std):
        assert ids[:1] == [target.id], ids
    for ids in recalled("error[E0463]: can't find crate for `tokio`"):
        assert target.id not in ids, ids
    # vite's import analysis masked the import it could not resolve (every one's fix was the
    # exact match of every other), and Rollup's named it but was not read as missing: express'
    # npm ci fix came back at 0.42-0.46 for react-dom's
    dayjs = store.remember(
        'ERROR-FIX: [plugin:vite:import-analysis] Failed to resolve import "dayjs" from '
        '"src/utils/date.ts". Does the file exist? | FIX: pnpm add dayjs in apps/web',
        "error_fix",
    )
    assert dayjs.status == "stored", dayjs
    react = (
        '[plugin:vite:import-analysis] Failed to resolve import "react-dom/client" from '
        '"src/main.tsx". Does the file exist?'
    )
    rollup = '[vite]: Rollup failed to resolve import "react-dom/client" from "/repo/src/main.tsx".'
    for query in (react, rollup):
        for ids in recalled(query):
            assert not {dayjs.id, express.id} & set(ids), (query, ids)
    for query, own in (
        (react.replace("react-dom/client", "dayjs"), dayjs),
        (rollup.replace("react-dom/client", "lodash"), lodash),
    ):
        for ids in recalled(query):
            assert ids[:1] == [own.id], (query, ids)
    # one crate missing from Cargo.toml is one error whichever code rustc gives it (E0432 for a
    # use, E0433 for a path in code, E0463 for an extern crate; rustc 1.95's wordings): the
    # codes held E0463's fix back from E0432's and E0433's, nothing recalled; a path inside a
    # crate (serde::Foo: serde was found) and the crate's own module are no missing crate
    chrono = store.remember(
        "ERROR-FIX: error[E0432]: unresolved import `chrono` | FIX: cargo add chrono",
        "error_fix",
    )
    assert chrono.status == "stored", chrono
    for query, own in (
        (
            "error[E0432]: unresolved import `serde`\n --> src/main.rs:1:5\n  |\n1 | use "
            "serde::Deserialize;\n  |     ^^^^^ use of unresolved module or unlinked crate `serde`"
            "\n  |\n  = help: you might be missing a crate named `serde`",
            serde,
        ),
        ("error[E0432]: unresolved import `serde`", serde),
        ("error[E0433]: cannot find module or crate `serde` in this scope", serde),
        ("error[E0433]: failed to resolve: use of undeclared crate or module `serde`", serde),
        ("error[E0463]: can't find crate for `chrono`", chrono),
        (
            "error[E0433]: cannot find module or crate `chrono` in this scope\n --> src/db.rs:1:19"
            "\n  |\n1 | fn main(){ let v: chrono::NaiveDate; }",
            chrono,
        ),
    ):
        for ids in recalled(query):
            assert ids[:1] == [own.id], (query, ids)
    for query, other in (
        ("error[E0432]: unresolved import `serde::Foo`", serde),
        ("error[E0432]: unresolved import `crate::serde`", serde),
        ("error[E0432]: unresolved import `tokio`", serde),
        ("error[E0432]: unresolved import `chrono::NaiveDateTimee`", chrono),
        ("error[E0463]: can't find crate for `serde`", chrono),
    ):
        for ids in recalled(query):
            assert other.id not in ids, (query, ids)
    # a package Go reads as the standard library's is not read as a missing name: every std
    # package is "not in GOROOT" when GOROOT is broken, one fix for all of them
    goroot = store.remember(
        "ERROR-FIX: attr_ver.go:4:2: package bytes is not in GOROOT (/home/dev/sdk/go/src/bytes) "
        "| FIX: GOROOT points at an old SDK; unset GOROOT in ~/.profile",
        "error_fix",
    )
    assert goroot.status == "stored", goroot
    for query in (
        "endian.go:4:2: package encoding/binary is not in GOROOT (/home/dev/sdk/go/src/"
        "encoding/binary)",
        "main.go:3:2: package fmt is not in std (/home/dev/sdk/go/src/fmt)",
    ):
        for ids in recalled(query):
            assert ids[:1] == [goroot.id], (query, ids)


#: rustc 1.95's output for a wrong path in a ``use`` (E0432) and in code (E0433), as it printed
#: them for a small crate (its module config holds Config, not Settings).
RUSTC_WRONG_USE = (
    "error[E0432]: unresolved import `crate::config::Settings`\n --> src/main.rs:2:5\n  |\n2 | "
    "use crate::config::Settings;\n  |     ^^^^^^^^^^^^^^^^^^^^^^^ no `Settings` in `config`"
)
RUSTC_WRONG_PATH = (
    "error[E0433]: cannot find `sync` in `tokio`\n --> src/lib.rs:7:19\n  |\n7 |   let _x = "
    "tokio::sync::Mutex::new(0);\n  |                   ^^^^ could not find `sync` in `tokio`"
)


def test_a_wrong_rust_path_is_known_by_its_path(store: MemoryStore) -> None:
    """rustc's wrong paths were one error: ``unresolved import `chrono::NaiveDateTimee``` and
    ``unresolved import `crate::config::Settings``` both ``unresolved import <q>`` (E0433's
    ``cannot find <q> in <q>`` likewise), so the fix of any was every other's exact match
    (1.0), and an npm 404's fix came back for ``serde::Foo`` at 0.40-0.54. The path is the
    error now: another item, module or crate is another error (held), the same one typed in
    other quotes or spacing, or said by an older rustc, is its exact match, and one path in a
    ``use`` (E0432) and in code (E0433) is one error."""
    from kenning.querybuild import error_recall_queries

    chrono, config, sync, npm = (
        store.remember(f"ERROR-FIX: {text}", "error_fix")
        for text in (
            "error[E0432]: unresolved import `chrono::NaiveDateTimee` | FIX: a typo: the type "
            "is chrono::NaiveDateTime | SOURCE: src/db.rs",
            "error[E0432]: unresolved import `crate::config::Settings` | FIX: Settings was "
            "renamed Config in src/config.rs: import crate::config::Config | SOURCE: src/main.rs",
            "error[E0433]: failed to resolve: could not find `sync` in `tokio` | FIX: tokio's "
            'sync module is a feature: tokio = { version = "1", features = ["sync"] }',
            "npm ERR! 404 Not Found: yaml-foo@latest | FIX: typo in package.json, the package "
            "is yaml",
        )
    )
    assert {m.status for m in (chrono, config, sync, npm)} == {"stored"}

    def recalled(query: str) -> list[list[tuple[str, str]]]:
        """The ids recalled (and how each matched) as typed, and with --error."""
        return [
            [(h.memory.id, h.match) for h in result.hits]
            for result in (store.recall(query), store.recall_many(error_recall_queries(query)[0]))
        ]

    for query, own in (
        (RUSTC_WRONG_USE, config),
        ('error[E0432]:  unresolved import  "crate::config::Settings"', config),
        ("error[E0432]: unresolved import 'chrono::NaiveDateTimee'", chrono),
        # (rustc 1.95's E0433, the entry in an older rustc's words)
        (RUSTC_WRONG_PATH, sync),
        ("error[E0433]: cannot find `sync` in `tokio`", sync),
    ):
        for hits in recalled(query):
            assert hits[:1] == [(own.id, "fingerprint")], (query, hits)
    # ... one path in a use and in code: not its exact match, not held
    for query, own in (
        ("error[E0432]: unresolved import `tokio::sync`", sync),
        ("error[E0433]: cannot find `NaiveDateTimee` in `chrono`", chrono),
    ):
        for hits in recalled(query):
            assert [i for i, _ in hits[:1]] == [own.id], (query, hits)
    for query, others in (
        ("error[E0432]: unresolved import `chrono::NaiveDateTimee`", (config, sync, npm)),
        ("error[E0432]: unresolved import `crate::config::Settings`", (chrono, sync, npm)),
        ("error[E0432]: unresolved import `crate::config::Setings`", (config, chrono)),
        ("error[E0432]: unresolved import `crate::db::Pool`", (config, chrono)),
        ("error[E0432]: unresolved import `chrono::Utc2`", (chrono, config)),
        ("error[E0432]: unresolved import `serde::Foo`", (chrono, config, sync, npm)),
        ("error[E0433]: failed to resolve: could not find `net` in `tokio`", (sync,)),
        ("error[E0433]: cannot find `NaiveDateTimee` in `serde`", (chrono,)),
    ):
        for hits in recalled(query):
            assert not {i for i, _ in hits} & {m.id for m in others}, (query, hits)


def test_a_wrong_rust_path_of_older_rules_is_no_missing_crate(
    project: Path, minilm: Embedder
) -> None:
    """An entry of a wrong path as rules 28 fingerprinted it (``unresolved import <q>``),
    read before a write brings it up to these rules, is still held from a missing crate's
    query (its fix, of another crate, is not the crate's): the path is masked, not kept."""
    from kenning import open_store

    with open_store(cwd=project, embedder=minilm) as store:
        fix = store.remember(
            "ERROR-FIX: error[E0432]: unresolved import `chrono::NaiveDateTimee` | FIX: a typo: "
            "the type is chrono::NaiveDateTime",
            "error_fix",
        ).id
        path = Path(store.location)
    _as_an_older_kenning_wrote_it(path, fix, "error[e0432]: unresolved import <q>")
    with open_store(cwd=project, embedder=minilm) as store:
        for query in (
            "error[E0432]: unresolved import `chrono`",
            "error[E0433]: cannot find module or crate `chrono` in this scope",
        ):
            assert fix not in [h.memory.id for h in store.recall(query).hits], query
        (entry,) = store.backend.get([fix])
        assert entry.metadata["error_fingerprint"] == "error[e0432]: unresolved import <q>"


def test_a_registry_404_names_its_package_in_each_npm_and_yarn_wording(
    store: MemoryStore,
) -> None:
    """npm 5's and 6's `404 Not Found: yaml-foo@latest` left the package bare (its range's
    numbers masked), read as no missing name: another package's 404 fix came first for it
    (0.92), and for every npm 404 that names its package (0.63-0.81, an entry of no missing
    name is not compared by it); yarn classic's `An unexpected error occurred:
    "https://registry.yarnpkg.com/yaml-foo: Not found".` masked the URL whole, so every
    package's 404 fix was every other's exact match (1.0), and npm 11's `The requested
    resource 'x@*' could not be found or you do not have permission to access it.` masked
    the package as a quoted message. Each names its package now, so another package's is
    another error and the same one is found in any wording."""
    from kenning.querybuild import error_recall_queries

    npm6, yarn, npm11 = (
        store.remember(f"ERROR-FIX: {text}", "error_fix")
        for text in (
            "npm ERR! 404 Not Found: yaml-foo@latest | FIX: the package is yaml, not yaml-foo",
            'error An unexpected error occurred: "https://registry.yarnpkg.com/left-padd: Not '
            'found". | FIX: the package is left-pad, not left-padd',
            "npm error 404 The requested resource '@acme/ui@^2.0.0' could not be found or you do "
            "not have permission to access it. | FIX: @acme/ui is published as @acme/design",
        )
    )
    assert {m.status for m in (npm6, yarn, npm11)} == {"stored"}

    def recalled(query: str) -> list[list[str]]:
        """The ids recalled as typed, and with --error."""
        return [
            [h.memory.id for h in result.hits]
            for result in (store.recall(query), store.recall_many(error_recall_queries(query)[0]))
        ]

    others = {npm6.id, yarn.id, npm11.id}
    for query in (
        "npm ERR! 404 Not Found: lodash-x@latest",
        "npm ERR! code E404\nnpm ERR! 404 Not Found: error-inject@^1.0.0\n\nnpm ERR! A complete "
        "log of this run can be found in:\nnpm ERR!     /root/.npm/_logs/2020-02-12T19_11_25_146Z-"
        "debug.log",
        "npm ERR! 404  'lodash-x@latest' is not in the npm registry.",
        "npm ERR! 404 Not Found - GET https://registry.npmjs.org/@other%2flib - Not found",
        'error An unexpected error occurred: "https://registry.yarnpkg.com/lodash-x: Not found".',
        'error An unexpected error occurred: "https://registry.yarnpkg.com/@types%2fflimflam: Not '
        'found".',
        # (a Verdaccio registry's or a mirror's: the URL was masked whole)
        "npm error 404 Not Found - GET http://localhost:4873/@acme%2fcli - no such package "
        "available",
        "npm error 404 Not Found - GET https://mirrors.cloud.tencent.com/npm/left-pad - no such "
        "package available",
        "npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/@acme%2fcli - "
        "Not found\nnpm error 404\nnpm error 404 The requested resource '@acme/cli@*' could not be "
        "found or you do not have permission to access it.",
    ):
        for ids in recalled(query):
            assert not others & set(ids), (query, ids)
    for query, own in (
        ("npm ERR! code E404\nnpm ERR! 404 Not Found: yaml-foo@^1.2.0", npm6),
        ("npm ERR! 404  'yaml-foo@latest' is not in the npm registry.", npm6),
        (
            'error An unexpected error occurred: "https://registry.yarnpkg.com/yaml-foo: Not found".',
            npm6,
        ),
        (
            'error An unexpected error occurred: "https://registry.yarnpkg.com/left-padd: Not found".',
            yarn,
        ),
        ("npm ERR! 404 Not Found: left-padd@latest", yarn),
        (
            "npm error 404 The requested resource '@acme/ui@*' could not be found or you do not "
            "have permission to access it.",
            npm11,
        ),
        ("npm ERR! 404 Not Found - GET https://registry.npmjs.org/@acme%2fui - Not found", npm11),
        (
            "npm ERR! 404 Not Found - GET http://localhost:4873/@acme%2fui - no such package "
            "available",
            npm11,
        ),
    ):
        for ids in recalled(query):
            assert ids[:1] == [own.id], (query, ids)


def test_an_exception_whose_message_names_another_error_is_asked_whole(store: MemoryStore) -> None:
    """qa-s61 F3: a traceback's last line, "app.errors.SyncFailed: the sync failed with
    KeyError: 'user'", was read as a person's sentence telling a KeyError: `recall` and
    `recall --error` asked only `KeyError: 'user'`, whose unrelated fix came first (0.999
    exact), the sync's own fix at 0.805."""
    own = store.remember(
        "ERROR-FIX: app.errors.SyncFailed: the sync failed with KeyError: 'user' | FIX: the "
        "CRM export has no user column; map contact_id instead",
        "error_fix",
    )
    other = store.remember(
        "ERROR-FIX: KeyError: 'user' | FIX: use session.get('user') in the login view", "error_fix"
    )
    assert own.status == other.status == "stored", (own, other)
    log = (
        "Traceback (most recent call last):\n"
        '  File "/app/main.py", line 9, in <module>\n'
        "    sync()\n"
        "app.errors.SyncFailed: the sync failed with KeyError: 'user'"
    )
    hits = store.recall(log).hits
    assert [(h.memory.id, h.match) for h in hits][:1] == [(own.id, "fingerprint")], hits
    r = run_cli(store.project.root, "recall", "--json", "--error", log)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["results"][0]["id"] == own.id, r.stdout


@pytest.mark.parametrize("runner", ["vitest", "jest", "pytest", "cargo", "go", "mocha", "unittest"])
def test_each_failed_test_of_a_run_finds_its_exact_fix(
    store: MemoryStore, project: Path, runner: str
) -> None:
    """A run that printed three failures (real output: vitest 4.1.12, jest 30.5.2, pytest
    9.2; plain and JSON), each failure's fix stored as ``ERROR-FIX: <its signature>``: the
    recall gave the exact fix of one (its signature's) and a generic fix of the same error
    (0.99), not the others' though there was room (qa, Medium). Each is its exact match now,
    the three in the recall's three; through ``recall --error -``, a pasted log's recall,
    ``recall --errors "$(kenning query error -)"`` and the prompt hook's queries."""
    from kenning.hooks.claude_code import prompt_recall_queries

    from .test_querybuild import _GO, _JEST_RUN, _JS, _PY, _RS, _VITEST_RUN

    # (cargo 1.95's, go 1.19's and mocha 12's, each test's own output alone: stored as its
    # signature, in the order the run asks them, its signature's first)
    tests = ("login_returns_200", "parses_an_empty_cart", "sums_the_prices")
    alone = {
        "cargo": (
            [_RS / "cargo-all.txt", _RS / "cargo-all-q.txt"],
            [_RS / f"cargo-{t}.txt" for t in tests],
        ),
        "go": (
            [_GO / "go-all.txt", _GO / "go-all-v.txt"],
            [
                _GO / f"go-{t}.txt"
                for t in ("LoginReturns200", "SumsThePrices", "ParsesAnEmptyCart")
            ],
        ),
        "mocha": (
            [_JS / "mocha-all.txt"],
            [
                _JS / f"mocha-{t}.txt"
                for t in ("parses_an_empty_cart", "login_returns_200", "sums_the_prices")
            ],
        ),
        # (python 3.11's unittest, plain and -v, and Django 5.2's manage.py test, -v 2 too)
        "unittest": (
            [
                _PY / f"{run}.txt"
                for run in ("unittest-all", "unittest-all-v", "django-all", "django-all-v2")
            ],
            [
                _PY / f"unittest-{t}.txt"
                for t in ("sums_the_prices", "parses_an_empty_cart", "login_returns_200")
            ],
        ),
    }
    if runner in alone:
        from kenning.signatures import extract_error_signature

        runs = alone[runner][0]
        signatures = [extract_error_signature(path.read_text()) for path in alone[runner][1]]
    elif runner == "pytest":
        runs = [_PY / f"pytest-all{tb}.txt" for tb in ("", "-short", "-line", "-no")]
        errors = [
            (_PY / f"pytest-{t}.txt").read_text()
            for t in ("parses_an_empty_cart", "login_returns_200", "sums_the_prices")
        ]
        from kenning.signatures import extract_error_signature

        signatures = [extract_error_signature(text) for text in errors]
    else:
        runs = [_JS / f"{runner}-all.{kind}" for kind in ("txt", "json")]
        signatures = [q.format(root="") for q in _VITEST_RUN] if runner == "vitest" else _JEST_RUN
    # (stored last first: equal scores rank by id, the order stored)
    fixes = [
        store.remember(f"ERROR-FIX: {signature} | FIX: the fix of test {i}", "error_fix").id
        for i, signature in reversed(list(enumerate(signatures)))
    ][::-1]
    if runner != "mocha":  # (mocha's failure is known by its error alone: this is its fix)
        store.remember(
            "ERROR-FIX: TypeError: Cannot read properties of undefined (reading 'map') | FIX: "
            "guard the array with ?? [] before calling map",
            "error_fix",
        )
    for run in runs:
        text = run.read_text()
        # each exact fix before the generic one (0.99), the signature's first, then the run's
        hits = store.recall(text).hits
        assert [(h.memory.id, h.match) for h in hits] == [(f, "fingerprint") for f in fixes], run
        r = run_cli(project, "recall", "--error", "-", "--json", stdin=text)
        assert r.returncode == 0, r.stderr
        assert [hit["id"] for hit in json.loads(r.stdout)["results"]] == fixes, run
        asked = run_cli(project, "query", "error", "-", stdin=text).stdout.strip()
        r = run_cli(project, "recall", "--json", "--errors", "--", asked)
        found = [hit["id"] for hit in json.loads(r.stdout)["results"]]
        if runner in ("vitest", "jest", "go"):  # (others' lines are no failed tests' headings:
            assert found == fixes, (run, asked)  # one is asked)
        queries, fallbacks = prompt_recall_queries(f"The tests fail, why?\n{text}")
        hits = store.recall_many(queries, fallbacks=fallbacks).hits
        assert [h.memory.id for h in hits] == fixes, run


@pytest.mark.parametrize("run", ["go-par.txt", "go-par-v.txt", "go-par.json"])
def test_each_failed_parallel_go_test_finds_its_exact_fix(
    store: MemoryStore, project: Path, run: str
) -> None:
    """go test -v and -json of parallel tests (``t.Parallel()``: ``=== PAUSE``, then each
    test's lines after its ``=== CONT``, between others'; real go 1.19 output) were asked
    by their first failure, then ``=== RUN TestLoginReturns200`` and the others' headings
    alone, without their messages, so the exact fixes stored for two of the failures, as
    each is known alone, were not found (QA s76). Each is found, exact (1.00), in the run's
    order, and nothing else, through recall, ``recall --error -``, ``recall --errors
    "$(kenning query error -)"`` and the prompt hook, as of the plain run."""
    from kenning.hooks.claude_code import prompt_recall_queries

    from .test_querybuild import _GO, _GO_PAR, _GO_PAR_RUNS

    fixed = [t for t in _GO_PAR_RUNS[run] if t in ("sums", "empty")]  # (in the run's order)
    ids = {
        t: store.remember(f"ERROR-FIX: {_GO_PAR[t]} | FIX: the fix of {t}", "error_fix").id
        for t in ("empty", "sums")
    }
    for unrelated in (  # (another go test's failure, a go panic, a JS error)
        "--- FAIL: TestLock (0.00s): lock held by another process | FIX: unlock in a defer",
        "panic: runtime error: invalid memory address or nil pointer dereference | FIX: build "
        "the client before the handler uses it",
        "TypeError: Cannot read properties of undefined (reading 'map') | FIX: guard the array",
    ):
        assert store.remember(f"ERROR-FIX: {unrelated}", "error_fix").status == "stored"
    fixes = [ids[t] for t in fixed]
    text = (_GO / run).read_text()
    hits = store.recall(text).hits
    assert [(h.memory.id, h.match) for h in hits] == [(f, "fingerprint") for f in fixes], hits
    r = run_cli(project, "recall", "--error", "-", "--json", stdin=text)
    assert r.returncode == 0, r.stderr
    found = [(hit["id"], round(hit["score"], 2)) for hit in json.loads(r.stdout)["results"]]
    assert found == [(f, 1.0) for f in fixes], found
    asked = run_cli(project, "query", "error", "-", stdin=text).stdout.splitlines()
    assert asked == [_GO_PAR[t] for t in _GO_PAR_RUNS[run]], asked
    r = run_cli(project, "recall", "--json", "--errors", "--", "\n".join(asked))
    assert [hit["id"] for hit in json.loads(r.stdout)["results"]] == fixes, r.stdout
    queries, fallbacks = prompt_recall_queries(f"The tests fail, why?\n{text}")
    hits = store.recall_many(queries, fallbacks=fallbacks).hits
    assert [(h.memory.id, h.match) for h in hits] == [(f, "fingerprint") for f in fixes], hits


@pytest.mark.parametrize(
    "run",
    ["go-sub.txt", "go-sub-v.txt", "go-sub.json", "go-sub-Total.txt", "go-sub-Total-v.txt"],
)
def test_each_failed_go_subtest_finds_its_exact_fix(
    store: MemoryStore, project: Path, run: str
) -> None:
    """A go test whose two subtests failed (``t.Run``; real go 1.19 output, parallel) was
    asked by its first subtest's message alone (``--- FAIL: TestTotal (0.00s): Total([]) =
    1; want 0``), so the fix stored for the other, as go test prints it run alone (``go
    test -run TestTotal/two_prices``: its parent's heading over it), was not found. Each is
    its exact match, in the run's order, through recall, ``recall --error -`` and the
    prompt hook's queries; plain, -v and -json, with another test's failure or alone."""
    from kenning.hooks.claude_code import prompt_recall_queries
    from kenning.json_reports import as_printed
    from kenning.signatures import extract_error_signature

    from .test_querybuild import _GO, _GO_SUB_EMPTY, _GO_SUB_TWO

    alone = [(_GO / f"go-sub-Total-{t}.txt").read_text() for t in ("empty", "two_prices")]
    assert [extract_error_signature(text) for text in alone] == [_GO_SUB_EMPTY, _GO_SUB_TWO]
    ids = {
        signature: store.remember(f"ERROR-FIX: {signature} | FIX: fix {n}", "error_fix").id
        for n, signature in enumerate((_GO_SUB_EMPTY, _GO_SUB_TWO))
    }
    text = (_GO / run).read_text()
    printed = as_printed(text)  # (-json's in its run's order)
    order = sorted(ids, key=lambda signature: printed.index(signature.split("(0.00s): ")[1]))
    fixes = [ids[signature] for signature in order]
    hits = store.recall(text).hits
    assert [(h.memory.id, h.match) for h in hits] == [(f, "fingerprint") for f in fixes], hits
    r = run_cli(project, "recall", "--error", "-", "--json", stdin=text)
    assert r.returncode == 0, r.stderr
    assert [hit["id"] for hit in json.loads(r.stdout)["results"]] == fixes, r.stdout
    queries, fallbacks = prompt_recall_queries(f"The tests fail, why?\n{text}")
    hits = store.recall_many(queries, fallbacks=fallbacks).hits
    assert [h.memory.id for h in hits] == fixes, hits


@pytest.mark.parametrize(
    ("run", "stored"),
    [
        # (the fixes of two of its three failures, the run's order: its signature, its last
        # failure "AssertionError: 6 != 5", has none)
        *(
            (run, ["KeyError: 'items'", "AssertionError: 401 != 200"])
            for run in ("unittest-all", "unittest-all-v", "django-all", "django-all-v2")
        ),
        # (a ConfigError raised from a FileNotFoundError, a subTest's (i=1) of two)
        *(
            (
                run,
                [
                    "test_more.ConfigError: could not load the config /etc/shop/missing.toml",
                    "AssertionError: 3 != 4",
                ],
            )
            for run in ("unittest-more", "unittest-more-v")
        ),
    ],
)
def test_each_failed_test_of_a_unittest_run_finds_its_exact_fix(
    store: MemoryStore, project: Path, run: str, stored: list[str]
) -> None:
    """A `python -m unittest` run (and Django's `manage.py test`, which prints the same
    ``FAIL: test_x (module.Class.test_x)`` blocks) that printed three failures was asked by
    its last one alone (``AssertionError: 6 != 5``), and unittest's assertEqual failures had
    one fingerprint whatever their values (``assertionerror: <n> != <n>``): the fixes of the
    other failures were not found, and the fix of another test's ``3 != 2`` was an exact
    match. Each failed test is asked as it is known alone, in the run's order, its values
    kept: through store.recall, `recall --error -`, `query error -` and the prompt hook."""
    from kenning.hooks import claude_code

    from .test_hooks import findings
    from .test_querybuild import _PY

    fixes = [
        store.remember(f"ERROR-FIX: {error} | FIX: the fix of test {i}", "error_fix").id
        for i, error in enumerate(stored)
    ]
    unrelated = [  # (another test's values, another error, another status)
        "AssertionError: 3 != 2 | FIX: count only the active users",
        "sqlite3.OperationalError: database is locked | FIX: enable WAL and set busy_timeout",
        "AssertionError: 403 != 200 | FIX: give the admin role to the test user",
    ]
    for text in unrelated:
        assert store.remember(f"ERROR-FIX: {text}", "error_fix").status == "stored"
    text = (_PY / f"{run}.txt").read_text()
    hits = store.recall(text).hits
    assert [(h.memory.id, h.match, round(h.score, 2)) for h in hits] == [
        (f, "fingerprint", 1.0) for f in fixes
    ], hits
    r = run_cli(project, "recall", "--error", "-", "--json", stdin=text)
    assert r.returncode == 0, r.stderr
    found = [(hit["id"], round(hit["score"], 2)) for hit in json.loads(r.stdout)["results"]]
    assert found == [(f, 1.0) for f in fixes], found
    asked = run_cli(project, "query", "error", "-", stdin=text).stdout.splitlines()
    assert [error for error in stored if error in asked] == stored, asked
    assert asked[0] == ("AssertionError: 4 != 5" if "more" in run else "AssertionError: 6 != 5")
    prompt = f"The tests fail, why?\n{text}"
    context = claude_code.context_for("prompt-submit", {"cwd": str(project), "prompt": prompt})
    said = [
        (content.split(" | FIX: ")[-1], round(score, 2)) for content, score in findings(context)
    ]
    assert said == [(f"the fix of test {i}", 1.0) for i in range(len(stored))], context


@pytest.mark.parametrize("run", ["go-all.txt", "go-all-v.txt"])
def test_go_fixes_written_as_go_prints_them_are_exact_and_in_the_order_asked(
    store: MemoryStore, run: str
) -> None:
    """qa77 F5: a note written as go prints a failure (``--- FAIL: TestSumsThePrices (0.00s):
    shop_test.go:13: Total([2 3]) = 6; want 5``) kept the test file's line in its
    fingerprint, which the run's signature leaves out: matched by its words (0.996), it came
    after a later test's exact fix, where the exact fixes come in the order asked."""
    from .test_querybuild import _GO

    sums = store.remember(
        "ERROR-FIX: --- FAIL: TestSumsThePrices (0.00s): shop_test.go:13: Total([2 3]) = 6; "
        "want 5 | FIX: start the sum at 0",
        "error_fix",
    ).id
    parses = store.remember(
        'ERROR-FIX: --- FAIL: TestParsesAnEmptyCart (0.00s): Parse("{}") = nil; want an empty '
        "cart | FIX: return an empty cart for {}",
        "error_fix",
    ).id
    hits = store.recall((_GO / run).read_text()).hits
    assert [(h.memory.id, h.match) for h in hits[:2]] == [
        (sums, "fingerprint"),
        (parses, "fingerprint"),
    ], hits


#: node:assert's failures whose message says the values under its first line, as node
#: 20.20 and mocha 12.0.3 print them, and what their signature is
_NODE_ASSERT_RUNS = [
    ("mocha-sums_the_prices.txt", "Expected values to be strictly equal: 6 !== 5"),
    ("node-strictEqual.txt", "Expected values to be strictly equal: 6 !== 5"),
    (
        "node-deepStrictEqual.txt",
        "Expected values to be strictly deep-equal: + actual - expected ... Lines skipped { "
        "+ a: 1, - a: 2, b: [ ... 2 ] }",
    ),
]


@pytest.mark.parametrize(("run", "said"), _NODE_ASSERT_RUNS)
def test_a_node_assert_failure_is_known_by_its_values(
    store: MemoryStore, project: Path, run: str, said: str
) -> None:
    """qa77 F2: node:assert's ``AssertionError [ERR_ASSERTION]: Expected values to be
    strictly equal:`` says its values on the line under it (``6 !== 5``; deepStrictEqual its
    diff): the signature stopped at the colon, so every strictEqual failure had one
    fingerprint and another test's fix came as an exact 1.00. Its values are its signature's
    and its fingerprint's, as pytest's, jest's and chai's are."""
    from kenning.fingerprints import error_fingerprint
    from kenning.signatures import extract_error_signature

    from .test_json_reports import JS_REPORTS

    text = (JS_REPORTS / run).read_text()
    signature = extract_error_signature(text)
    assert signature == f"AssertionError [ERR_ASSERTION]: {said}"
    fix = store.remember(f"ERROR-FIX: {signature} | FIX: start the sum at 0", "error_fix").id
    hits = store.recall(text).hits
    assert hits[0].memory.id == fix and hits[0].match == "fingerprint", hits
    # another test's failure of the same assert, its values others (the user's run, the
    # title and values changed as qa77's): no exact match of this fix
    other = text.replace("6 !== 5", "3 !== 2").replace("a: 1", "a: 3").replace("sums", "counts")
    assert error_fingerprint(extract_error_signature(other)) != error_fingerprint(signature)
    assert all(h.match != "fingerprint" for h in store.recall(other).hits if h.memory.id == fix)
    r = run_cli(project, "recall", "--error", "-", "--json", stdin=other)
    assert r.returncode == 0, r.stderr
    found = [(hit["id"], hit["score"]) for hit in json.loads(r.stdout)["results"]]
    assert all(score < 1.0 for memory_id, score in found if memory_id == fix), found


#: Older Rust's assert_eq! panic (1.22-1.72: its message quoted on the header's line, its
#: values under it, as the Rust book's first edition and the embedded book print it), said
#: as Rust >= 1.73 says it.
_RUST_OLD_ASSERT = (
    "---- tests::sums_the_prices stdout ----\n"
    "thread 'tests::sums_the_prices' panicked at 'assertion failed: `(left == right)`\n"
    "  left: `6`,\n"
    " right: `5`: the total of the cart', src/lib.rs:25:9\n"
    "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"
)


def test_a_rust_assert_panic_is_known_by_its_values(store: MemoryStore, project: Path) -> None:
    """cargo test's assert_eq! panic says its values on the lines under its message
    (``assertion `left == right` failed`` over ``  left: 401`` / `` right: 200``): the
    signature stopped at the message, so every assert_eq! panic differed only by its test's
    name, and the fix stored for one test's came at 0.81-0.87 for another's (real cargo 1.95
    output). Its values are its signature's and fingerprint's, as node:assert's and
    unittest's are: its own fix exact, another test's panic with other values none."""
    from kenning.fingerprints import error_fingerprint
    from kenning.hooks.claude_code import prompt_recall_queries
    from kenning.signatures import extract_error_signature

    from .test_querybuild import _RS

    login = (_RS / "cargo-login_returns_200.txt").read_text()
    sums = (_RS / "cargo-sums_the_prices.txt").read_text()
    assert extract_error_signature(login) == (
        "thread 'tests::login_returns_200' panicked at src/lib.rs:20:9: assertion `left == "
        "right` failed left: 401 right: 200"
    )
    said = (
        "thread 'tests::sums_the_prices' panicked at src/lib.rs:25:9: assertion `left == right`"
        " failed: the total of the cart left: 6 right: 5"
    )
    assert extract_error_signature(sums) == said
    # older Rust's, printed and joined on one line, and the signature read again: one error
    for text in (_RUST_OLD_ASSERT, " ".join(_RUST_OLD_ASSERT.splitlines()[1:4]), said):
        assert extract_error_signature(text) == said, text
    assert error_fingerprint(said) == (
        "thread tests::sums_the_prices panicked at <path>: assertion `left == right` failed: "
        "the total of the cart left: 6 right: 5"
    )
    # assert_ne!'s is another assert than assert_eq!'s
    ne = login.replace("left == right", "left != right")
    assert error_fingerprint(extract_error_signature(ne)) != error_fingerprint(
        extract_error_signature(login)
    )
    fix = store.remember(
        f"ERROR-FIX: {extract_error_signature(login)} | FIX: return 200 from login", "error_fix"
    ).id
    # its own panic: the exact match
    hits = store.recall(login).hits
    assert [(h.memory.id, h.match) for h in hits][:1] == [(fix, "fingerprint")], hits
    assert round(hits[0].score, 2) == 1.0, hits
    # another test's panic with other values (the user's run): not found at all
    for text in (sums, login.replace("left: 401", "left: 403").replace("login", "logout")):
        assert fix not in [h.memory.id for h in store.recall(text).hits], text
        r = run_cli(project, "recall", "--error", "-", "--json", stdin=text)
        assert r.returncode == 0, r.stderr
        assert fix not in [hit["id"] for hit in json.loads(r.stdout)["results"]], text
        queries, fallbacks = prompt_recall_queries(f"The tests fail, why?\n{text}")
        hits = store.recall_many(queries, fallbacks=fallbacks).hits
        assert fix not in [h.memory.id for h in hits], text


def test_a_cargo_run_gives_each_stored_assert_fix_and_no_other_tests(
    store: MemoryStore, project: Path
) -> None:
    """The user's path (cargo 1.95's real run of three failed tests, two of them assert_eq!
    panics): with the fixes of its two assert_eq! failures stored, and that of another test's
    assert_eq! panic with other values, ``recall --error -`` and the prompt hook with the run
    pasted give the two, each exact (1.00), in the run's order, and no other; a single panic
    its own fix and not the other test's (which came at 0.81-0.87 when a panic's values were
    not its signature's)."""
    from kenning.signatures import extract_error_signature

    from .test_hooks import hook_here
    from .test_querybuild import _RS

    ids = [
        store.remember(
            f"ERROR-FIX: {extract_error_signature((_RS / f'cargo-{t}.txt').read_text())} | FIX: "
            f"the fix of {t}",
            "error_fix",
        ).id
        for t in ("login_returns_200", "sums_the_prices")
    ]
    other = store.remember(
        "ERROR-FIX: thread 'tests::counts_the_users' panicked at src/lib.rs:31:9: assertion "
        "`left == right` failed left: 3 right: 2 | FIX: count only the active users",
        "error_fix",
    ).id
    for run in ("cargo-all.txt", "cargo-all-q.txt", "cargo-all-backtrace.txt"):
        text = (_RS / run).read_text()
        r = run_cli(project, "recall", "--error", "-", "--json", stdin=text)
        assert r.returncode == 0, r.stderr
        found = [(hit["id"], round(hit["score"], 2)) for hit in json.loads(r.stdout)["results"]]
        assert found == [(ids[0], 1.0), (ids[1], 1.0)], (run, found)
        prompt = {
            "prompt": f"cargo test fails:\n{text}",
            "cwd": str(project),
            "session_id": "s",
            "hook_event_name": "UserPromptSubmit",
        }
        done = hook_here("prompt-submit", json.dumps(prompt).encode(), project)
        assert done.returncode == 0, done.stderr
        context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
        said = [context.find(f"the fix of {t}") for t in ("login_returns_200", "sums_the_prices")]
        assert 0 < said[0] < said[1], context
        assert context.count('score="1.00"') == 2 and "active users" not in context, context
    for alone, fix in (("login_returns_200", ids[0]), ("sums_the_prices", ids[1])):
        r = run_cli(
            project,
            "recall",
            "--error",
            "-",
            "--json",
            stdin=(_RS / f"cargo-{alone}.txt").read_text(),
        )
        found = [(hit["id"], round(hit["score"], 2)) for hit in json.loads(r.stdout)["results"]]
        assert found[0] == (fix, 1.0) and other not in dict(found), (alone, found)


def _recalled(project: Path, text: str) -> list[tuple[str, float]]:
    """``kenning recall --error - --json`` of ``text``: each hit's id and score."""
    r = run_cli(project, "recall", "--error", "-", "--json", stdin=text)
    assert r.returncode == 0, r.stderr
    return [(hit["id"], round(hit["score"], 2)) for hit in json.loads(r.stdout)["results"]]


def _hook_context(project: Path, prompt: str) -> str:
    """What the prompt-submit hook adds for ``prompt``."""
    from .test_hooks import hook_here

    asked = {
        "prompt": prompt,
        "cwd": str(project),
        "session_id": "s",
        "hook_event_name": "UserPromptSubmit",
    }
    done = hook_here("prompt-submit", json.dumps(asked).encode(), project)
    assert done.returncode == 0, done.stderr
    out = done.stdout.strip()
    return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""


def test_another_go_tests_fix_is_not_found_for_a_failed_test_with_a_message(
    store: MemoryStore, project: Path
) -> None:
    """qa79 F3: with fixes stored for TestSumsThePrices' and TestDiscounts' failures (as
    ``kenning query error -`` prints them), TestLoginReturns200's failure (``got 401, want
    200``, no fix of its own) recalled both at 0.57/0.55, a TestDiscounts subtest's failure
    TestSumsThePrices' fix at 0.86 after its own: by meaning and by the numbers go's
    fingerprint masks alike (``Total([<n>]) = <n>; want <n>`` ~ ``Discount(<n>) = <n>; want
    <n>``). Another test's failure with another message is no longer found, by recall,
    ``recall --error -`` (go 1.19's real runs, plain and -json) or the prompt hook with the
    run pasted under a question; the same message under another test is one cause, kept."""
    from kenning.querybuild import error_recall_queries

    from .test_querybuild import _GO

    def asked(name: str) -> str:
        return (_GO / name).read_text()

    sums_error = error_recall_queries(asked("go-SumsThePrices.txt"))[0][0][0]
    sums = store.remember(f"ERROR-FIX: {sums_error} | FIX: start the sum at 0", "error_fix").id
    discounts = store.remember(
        "ERROR-FIX: --- FAIL: TestDiscounts (0.00s): Discount(100) = 100; want 90 | FIX: "
        "Discount clamps negatives to 0 and takes 10% off",
        "error_fix",
    ).id
    refused = store.remember(
        "ERROR-FIX: --- FAIL: TestOrders (0.00s): dial tcp 127.0.0.1:5432: connect: connection "
        "refused | FIX: start the test database with docker compose up -d db",
        "error_fix",
    ).id
    login = asked("go-LoginReturns200.txt")
    assert _recalled(project, login) == []
    assert not {sums, discounts} & {h.memory.id for h in store.recall(login).hits}
    context = _hook_context(project, f"The tests fail, why?\n{login}")
    assert "start the sum" not in context and "clamps negatives" not in context, context
    for run in ("go-Discounts-negative.txt", "go-Discounts.json"):
        assert _recalled(project, asked(run)) == [(discounts, 1.0)], run
        context = _hook_context(project, f"The tests fail, why?\n{asked(run)}")
        assert "clamps negatives" in context and "start the sum" not in context, context
    for run in ("go-all.txt", "go-all.json"):
        assert _recalled(project, asked(run)) == [(sums, 1.0)], run
    # the same message in another test: one cause
    other = (
        "--- FAIL: TestInvoices (0.00s)\n    invoice_test.go:12: dial tcp 127.0.0.1:5432: "
        "connect: connection refused\nFAIL\nFAIL\texample.com/shop\t0.004s\n"
    )
    found = _recalled(project, other)
    assert [i for i, _ in found] == [refused] and found[0][1] > 0.9, found


def test_another_js_or_rust_tests_fix_is_not_found_for_a_failed_test(
    store: MemoryStore, project: Path
) -> None:
    """qa79 F3 for jest, vitest and cargo (real runs): another test's fix came for a failed
    test by the words their runner prints around every failure (jest's ``cart › sums the
    prices`` fix at 0.60 for ``login returns 200``, vitest's at 0.61 for ``parses an empty
    cart``, cargo's at 0.66 for tests::parses_an_empty_cart, and vitest's ``parses an empty
    cart`` fix at 0.56 for that Rust panic, the test's name alike). The same test's failure
    under another runner (a project moved from jest to vitest) is that test's."""
    from kenning.querybuild import error_recall_queries

    from .test_querybuild import _JS, _RS

    def first(path: Path, asked: int) -> str:
        return error_recall_queries(path.read_text())[0][asked][0]

    jest_sums = store.remember(
        f"ERROR-FIX: {first(_JS / 'jest-all.txt', 1)} | FIX: jest: round the total", "error_fix"
    ).id
    vitest_sums = store.remember(
        f"ERROR-FIX: {first(_JS / 'vitest-all.txt', 2)} | FIX: vitest: round the total",
        "error_fix",
    ).id
    vitest_empty = store.remember(
        f"ERROR-FIX: {first(_JS / 'vitest-all.txt', 0)} | FIX: default the items to []",
        "error_fix",
    ).id
    cargo_sums = store.remember(
        f"ERROR-FIX: {first(_RS / 'cargo-all.txt', 2)} | FIX: cargo: start the sum at 0",
        "error_fix",
    ).id
    jest_auth = (_JS / "jest-auth.txt").read_text()
    assert _recalled(project, jest_auth) == []
    context = _hook_context(project, f"The tests fail, why?\n{jest_auth}")
    assert "round the total" not in context, context
    found = _recalled(project, (_JS / "vitest-empty_cart.txt").read_text())
    assert found == [(vitest_empty, 1.0)], found
    found = _recalled(project, (_JS / "vitest-all.txt").read_text())
    assert found[:2] == [(vitest_empty, 1.0), (vitest_sums, 1.0)], found
    assert jest_sums in dict(found), found  # the same test, jest's
    cargo = (_RS / "cargo-parses_an_empty_cart.txt").read_text()
    assert _recalled(project, cargo) == []
    context = _hook_context(project, f"cargo test fails:\n{cargo}")
    assert "start the sum" not in context and "default the items" not in context, context
    assert _recalled(project, (_RS / "cargo-all.txt").read_text()) == [(cargo_sums, 1.0)]


@pytest.mark.parametrize(
    "asked",
    [
        "--- FAIL: TestLock (0.00s)",
        "--- FAIL: TestLock/with_a_timeout (0.01s)",
        "go-Lock.txt",
        "go-Lock-v.txt",
    ],
)
def test_a_failed_test_named_alone_finds_no_fix_by_the_meaning_of_its_name(
    store: MemoryStore, project: Path, asked: str
) -> None:
    """QA: `recall --errors -- "--- FAIL: TestLock (0.00s)"` (go test's heading of a test that
    failed without a message; real go 1.19 output pasted whole too) gave sqlite's "database
    is locked" fix at 0.43, over the error floor, by the meaning of the word "Lock". A
    test's name is no error: what names that test is given (the fix of its failure with a
    message, a note about it), an exact fix of the heading itself, and no other fix."""
    from .test_querybuild import _GO

    text = (_GO / asked).read_text() if asked.endswith(".txt") else asked
    sqlite = store.remember(
        "ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: enable WAL and set "
        "busy_timeout",
        "error_fix",
    ).id
    named = store.remember(
        "ERROR-FIX: --- FAIL: TestLock (0.00s): lock held by another process | FIX: release "
        "the flock in TestMain",
        "error_fix",
    ).id
    note = store.remember("TestLock is flaky on CI: it needs the tmpfs mounted", "context").id
    hits = [h.memory.id for h in store.recall(text).hits]
    assert sqlite not in hits and named in hits and note in hits, hits
    r = run_cli(project, "recall", "--json", "--errors", "--", text)
    assert r.returncode == 0, r.stderr
    found = [hit["id"] for hit in json.loads(r.stdout)["results"]]
    assert sqlite not in found and named in found, found
    r = run_cli(project, "recall", "--error", "-", "--json", stdin=text)
    assert [hit["id"] for hit in json.loads(r.stdout)["results"]] == found
    # its exact fix is found; a test that fails with its message is asked as before
    exact = store.remember(
        f"ERROR-FIX: {text.splitlines()[0] if 'RUN' not in text else '--- FAIL: TestLock (0.00s)'}"
        " | FIX: the lock file is left by the last run: remove it in TestMain",
        "error_fix",
    ).id
    assert store.recall(text).hits[0].memory.id == exact
    told = store.recall("--- FAIL: TestLock (0.00s): database is locked").hits
    assert sqlite in [h.memory.id for h in told]


def test_a_failed_test_named_alone_told_in_a_sentence_finds_no_other_tests_fix(
    store: MemoryStore, project: Path
) -> None:
    """qa77 F1: "go test fails: --- FAIL: TestLock (0.00s) what now?" was read as words, no
    error (its heading starts no line), and gave another test's fix at 0.59 through recall
    and the prompt hook. Go's heading told in a sentence is the error told; with its
    message, the message is asked with it."""
    from kenning.hooks.claude_code import prompt_recall_queries

    other = store.remember(
        "ERROR-FIX: --- FAIL: TestSumsThePrices (0.00s): Total([2 3]) = 6; want 5 | FIX: "
        "start the sum at 0",
        "error_fix",
    ).id
    note = store.remember("TestLock is flaky on CI: it needs the tmpfs mounted", "context").id
    asked = "go test fails: --- FAIL: TestLock (0.00s) what now?"
    hits = [h.memory.id for h in store.recall(asked).hits]
    assert other not in hits and note in hits, hits
    queries, fallbacks = prompt_recall_queries(asked)
    assert ("--- FAIL: TestLock (0.00s)", True) in queries, queries
    hits = [h.memory.id for h in store.recall_many(queries, fallbacks=fallbacks).hits]
    assert other not in hits and note in hits, hits
    r = run_cli(project, "recall", "--json", "--", asked)
    assert r.returncode == 0, r.stderr
    assert other not in [hit["id"] for hit in json.loads(r.stdout)["results"]]
    told = "my test fails with --- FAIL: TestLock (0.00s): lock held by another process, why?"
    assert prompt_recall_queries(told)[0] == [
        ("--- FAIL: TestLock (0.00s): lock held by another process", True)
    ]


@pytest.mark.parametrize("run", ["go-Lock.txt", "go-Lock-v.txt"])
def test_a_failed_test_named_alone_under_a_question_finds_no_other_tests_fix(
    store: MemoryStore, run: str
) -> None:
    """qa77 F1: the prompt hook, given "The tests fail, why?" above a go run whose one
    failure is ``--- FAIL: TestLock (0.00s)`` (real go 1.19 output), gave another test's fix
    at 0.44: the words' query found it by their meaning, where the run's own query keeps
    only its exact fix and what names the test. Any query of such a request is held so; a
    note is still found by the words, and the fix that names the test is given."""
    from kenning.hooks.claude_code import prompt_recall_queries

    from .test_querybuild import _GO

    other = store.remember(
        "ERROR-FIX: --- FAIL: TestSumsThePrices (0.00s): Total([2 3]) = 6; want 5 | FIX: "
        "start the sum at 0",
        "error_fix",
    ).id
    note = store.remember("TestLock is flaky on CI: it needs the tmpfs mounted", "context").id
    prompt = "The tests fail, why?\n\n" + (_GO / run).read_text()
    queries, fallbacks = prompt_recall_queries(prompt)
    assert ("The tests fail, why?", False) in queries, queries
    hits = [h.memory.id for h in store.recall_many(queries, fallbacks=fallbacks).hits]
    assert other not in hits and note in hits, hits
    named = store.remember(
        "ERROR-FIX: --- FAIL: TestLock (0.00s): lock held by another process | FIX: release "
        "the flock in TestMain",
        "error_fix",
    ).id
    hits = [h.memory.id for h in store.recall_many(queries, fallbacks=fallbacks).hits]
    assert other not in hits and named in hits, hits
    # the words alone, or with an error told, still find a fix by their meaning
    assert other in [h.memory.id for h in store.recall_many([("The tests fail, why?", False)]).hits]


def test_a_failed_rust_test_named_alone_finds_no_fix_by_the_meaning_of_its_name(
    store: MemoryStore,
) -> None:
    """libtest's line of a failed test without its panic (``test tests::x ... FAILED``, ``-q``'s
    ``tests::x --- FAILED``) names a test, no error, as go's heading does."""
    sqlite = store.remember(
        "ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: enable WAL",
        "error_fix",
    ).id
    note = store.remember("tests::acquires_the_lock needs the tmpfs mounted", "context").id
    for line in ("test tests::acquires_the_lock ... FAILED", "tests::acquires_the_lock --- FAILED"):
        hits = [h.memory.id for h in store.recall(line, errors=True).hits]
        assert sqlite not in hits and note in hits, (line, hits)


@pytest.mark.parametrize(
    ("stored", "other_runs", "naming"),
    [
        (
            "--- FAIL: TestLock (0.00s)",
            ["go-LoginReturns200.txt", "go-all.txt", "go-sub-Total.txt"],
            [
                "--- FAIL: TestLock (0.00s)",
                "TestLock fails, why?",
                "--- FAIL: TestLock/timeout (0.00s): lock held by another process",
            ],
        ),
        (
            "test tests::acquires_the_lock ... FAILED",
            ["cargo-login_returns_200.txt", "cargo-all.txt", "cargo-all-q.txt"],
            [
                "test tests::acquires_the_lock ... FAILED",
                "tests::acquires_the_lock fails, why?",
                "thread 'tests::acquires_the_lock' panicked at src/lib.rs:9:5:\nlock poisoned",
            ],
        ),
    ],
)
def test_a_fix_stored_for_a_failed_test_named_alone_is_found_only_by_naming_the_test(
    store: MemoryStore, project: Path, stored: str, other_runs: list[str], naming: list[str]
) -> None:
    """The converse of qa77 F1: a fix stored for go's ``--- FAIL: TestLock (0.00s)`` (a test
    that failed without a message, as go prints it) was found by any other test's failure,
    ``--- FAIL: TestLoginReturns200 (0.00s): got 401, want 200`` at 0.46 (over the error
    floor), by the meaning of a test's failure, through recall --error, a pasted run and the
    prompt hook; libtest's line of a failed test likewise. Such an entry's error is a test's
    name: the queries that name the test find it, no other."""
    from kenning.hooks.claude_code import prompt_recall_queries

    from .test_querybuild import _GO, _RS

    fix = store.remember(f"ERROR-FIX: {stored} | FIX: unlock in a defer", "error_fix").id
    asked = [
        "--- FAIL: TestLoginReturns200 (0.00s): got 401, want 200",
        *(((_GO if stored.startswith("---") else _RS) / run).read_text() for run in other_runs),
    ]
    for text in asked:
        assert fix not in [h.memory.id for h in store.recall(text).hits], text
        queries, fallbacks = prompt_recall_queries("The tests fail, why?\n\n" + text)
        hits = store.recall_many(queries, fallbacks=fallbacks).hits
        assert fix not in [h.memory.id for h in hits], text
        r = run_cli(project, "recall", "--error", "-", "--json", stdin=text)
        assert r.returncode == 0, r.stderr
        assert fix not in [hit["id"] for hit in json.loads(r.stdout)["results"]], text
    for text in naming:
        assert store.recall(text).hits[0].memory.id == fix, text
        queries, fallbacks = prompt_recall_queries("The tests fail, why?\n\n" + text)
        assert store.recall_many(queries, fallbacks=fallbacks).hits[0].memory.id == fix, text
    r = run_cli(project, "recall", "--error", "-", "--json", stdin=naming[0])
    assert [hit["id"] for hit in json.loads(r.stdout)["results"]] == [fix]
    # words that describe the fix, no error: found by their meaning, as any note is
    assert store.recall("how do I unlock the mutex in a defer").hits[0].memory.id == fix
