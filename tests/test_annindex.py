"""The approximate index of large embedded stores (``memory.db.ann``): used above the
threshold, exact below it, in step with SQLite, never trusted when it cannot be.

Real SQLite files in temp folders; the threshold is lowered with ``KENNING_ANN_MIN_ROWS`` (to
500) so a store of 2,000 rows crosses it, and a filter to one of its four groups is at it;
the graph is built by the real background builder process (waited for), by its code in a
thread of the test's process where the process is not what a test checks
(:func:`builds_in_this_process`), or by ``build_ann_index``. Every answer is compared with brute-force float32 search over SQLite's
BLOBs.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import shutil
import sqlite3
import struct
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kenning.backends import annindex
from kenning.backends.annindex import HEADER_BYTES, AnnHeader
from kenning.backends.base import Filters
from kenning.backends.sqlite import SQLiteBackend
from kenning.errors import UserInputError
from tests.ann_builds import builds_in_threads
from tests.case_table import each_case
from tests.forking import run_python
from tests.test_vectorfile import (
    DIM,
    assert_same_ranking,
    brute_force,
    records,
    sqlite_rows,
    store_template,
    vectors,
)

ROWS = 2000
THRESHOLD = 500


@pytest.fixture(scope="module")
def db_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # (the threshold is read when a store searches, not when it is written)
    return store_template(tmp_path_factory.mktemp("annindex"), ROWS)


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, db_template: Path) -> Path:
    """A copy of the template: each test changes a store of its own."""
    monkeypatch.setenv("KENNING_ANN_MIN_ROWS", str(THRESHOLD))
    path = tmp_path / "memory.db"
    shutil.copy(db_template, path)
    return path


@pytest.fixture(scope="module")
def built_template(tmp_path_factory: pytest.TempPathFactory, db_template: Path) -> Path:
    """The template with its vector file and graph in place, built once for the module:
    most tests start from a graph, and building it again in each (~0.3 CPU-s) told them
    nothing more. A copied store keeps its database token, so the copy's graph is its own."""
    path = tmp_path_factory.mktemp("annindex-built") / "memory.db"
    shutil.copy(db_template, path)
    backend = SQLiteBackend(path, create=False)
    assert backend.build_ann_index()
    backend.close()
    built = header(path)
    assert built is not None and built.rows == ROWS
    return path


@pytest.fixture
def built_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, built_template: Path) -> Path:
    """A copy of the store and its derived files (vector file, graph) for a test of its own."""
    monkeypatch.setenv("KENNING_ANN_MIN_ROWS", str(THRESHOLD))
    path = tmp_path / "memory.db"
    for suffix in ("", ".vectors", ".ann"):
        shutil.copy(f"{built_template}{suffix}", f"{path}{suffix}")
    return path


@functools.cache
def stored_vectors() -> np.ndarray:
    """The template's vectors, made once (~15 ms each time, and most tests asked for them
    again), read-only: no test changes what the others read."""
    made = vectors(ROWS, 1)
    made.flags.writeable = False
    return made


@pytest.fixture(scope="module")
def queries() -> np.ndarray:
    """Queries near stored rows: read-only, made once for the module."""
    rng = np.random.default_rng(5)
    base = stored_vectors()[rng.integers(0, ROWS, 30)]
    out = base + rng.normal(0, 0.03, base.shape)
    made = (out / np.linalg.norm(out, axis=1, keepdims=True)).astype(np.float32)
    made.flags.writeable = False
    return made


@pytest.fixture
def graph_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many searches the graph answered (the real function, counted)."""
    calls: list[int] = []
    real = annindex.search

    def counted(*args: object, **kwargs: object) -> object:
        found = real(*args, **kwargs)  # type: ignore[arg-type]
        if found is not None:
            calls.append(1)
        return found

    monkeypatch.setattr(annindex, "search", counted)
    yield calls


@pytest.fixture
def builds_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """A background build runs in a thread of this process (:class:`tests.ann_builds.BuilderThread`), not in
    a process of its own: the same code (annindex.main), the same lock and files, without an
    interpreter's start and kenning's and usearch's imports (~0.2 CPU-s a build). Where a
    test waits for a rebuild and the build's process is not what it checks: the process
    itself (started detached, niced, reaped, its failure's log and exit status) is
    test_above_the_threshold_a_background_build_then_the_graph_answers's and
    test_a_failed_build_says_where_its_error_is_and_waits_before_retrying's, and a killed
    builder's the tests of those."""
    monkeypatch.setattr(annindex, "subprocess", builds_in_threads())


def ann_path(db: Path) -> Path:
    return db.with_name(db.name + ".ann")


def lock_path(db: Path) -> Path:
    return db.with_name(db.name + ".ann.lock")


@contextlib.contextmanager
def no_builds(db: Path) -> Iterator[None]:
    """Hold the builder's lock: no graph can be built while the searches inside run, so
    they must be exact however fast a background build would be on an idle machine (a
    graph rebuilt for the current store within the loop is a correct but approximate
    answer). A search after the block starts the build."""
    fd = os.open(lock_path(db), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def header(db: Path) -> AnnHeader | None:
    return AnnHeader.unpack(ann_path(db).read_bytes()[:HEADER_BYTES])


def wait_for_graph(
    db: Path, rows: int, also: Callable[[AnnHeader], bool] = lambda h: True, timeout: float = 60.0
) -> AnnHeader:
    """Until the background builder has put a graph of ``rows`` rows in place (and ``also``
    holds for its header)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ann_path(db).exists():
            found = header(db)
            if found is not None and found.rows == rows and also(found):
                return found
        time.sleep(0.02)  # (a look is a stat and a header's read: the build is the wait)
    raise AssertionError(f"no graph of {rows} rows after {timeout} s")


NO_FILTER = Filters()


def hits(
    backend: SQLiteBackend, q: np.ndarray, k: int = 10, f: Filters = NO_FILTER
) -> list[tuple[str, float]]:
    return [(h.memory.id, h.score) for h in backend.vector_search(q, k, f)]


def recall_at_k(backend: SQLiteBackend, db: Path, queries: np.ndarray, f: Filters) -> float:
    rows = sqlite_rows(db)
    blobs = {r[1]: r[5] for r in rows}
    found = 0.0
    for q in queries:
        want = brute_force(rows, q, 10, f)
        got = hits(backend, q, 10, f)
        exact = dict(want)
        # every returned score is the exact float32 cosine of that row (computed for the
        # rows returned only: every row's, for each query, was a third of a test's CPU)
        for memory_id, score in got:
            assert abs(score - float(np.frombuffer(blobs[memory_id], np.float32) @ q)) <= 1e-6
        found += len({i for i, _ in got} & set(exact)) / max(1, len(want))
    return found / len(queries)


def test_usearch_and_onnxruntime_load_in_either_order() -> None:
    """usearch 2.26.2–2.26.6 crash the process when onnxruntime is imported after them."""
    for first, second in (("usearch.index", "onnxruntime"), ("onnxruntime", "usearch.index")):
        code = f"import {first}; import {second}"
        assert subprocess.run([sys.executable, "-c", code]).returncode == 0, code


def test_below_the_threshold_search_is_exact_and_builds_nothing(
    db: Path, queries: np.ndarray, monkeypatch: pytest.MonkeyPatch, graph_calls: list[int]
) -> None:
    monkeypatch.setenv("KENNING_ANN_MIN_ROWS", str(ROWS + 1))
    backend = SQLiteBackend(db, create=False)
    rows = sqlite_rows(db)
    for q in queries[:5]:
        assert_same_ranking(hits(backend, q), brute_force(rows, q, 10, Filters()))
    # no builder was even looked for (its lock file is made by the first look)
    assert not lock_path(db).exists() and not ann_path(db).exists()
    assert backend.build_ann_index()  # a graph, but the store is below the threshold
    for q in queries[:5]:
        assert_same_ranking(hits(backend, q), brute_force(rows, q, 10, Filters()))
    assert not graph_calls
    backend.close()


def test_off_never_builds(
    db: Path, queries: np.ndarray, monkeypatch: pytest.MonkeyPatch, graph_calls: list[int]
) -> None:
    monkeypatch.setenv("KENNING_ANN_MIN_ROWS", "off")
    backend = SQLiteBackend(db, create=False)
    backend.vector_search(queries[0], 10, Filters())
    assert not lock_path(db).exists() and not ann_path(db).exists() and not graph_calls
    backend.close()


@each_case("value", ["many", "0", "-5", "1.5"])
def test_a_bad_threshold_is_refused_by_name(
    db: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    # (the rows share the store: each open is refused before it reads or writes anything)
    monkeypatch.setenv("KENNING_ANN_MIN_ROWS", value)
    with pytest.raises(UserInputError, match="KENNING_ANN_MIN_ROWS"):
        SQLiteBackend(db, create=False)


def test_above_the_threshold_a_background_build_then_the_graph_answers(
    db: Path, queries: np.ndarray, graph_calls: list[int]
) -> None:
    backend = SQLiteBackend(db, create=False)
    rows = sqlite_rows(db)
    # no graph yet: this search is exact, and starts the builder process
    assert_same_ranking(hits(backend, queries[0]), brute_force(rows, queries[0], 10, Filters()))
    assert not graph_calls
    builder = backend._ann._builder
    assert builder is not None
    built = wait_for_graph(db, ROWS)
    assert built.keys == ROWS and built.connectivity == annindex.CONNECTIVITY
    assert recall_at_k(backend, db, queries, Filters()) >= 0.95
    assert len(graph_calls) == len(queries)
    # the builder, done, is collected by the searches: no zombie in a long-lived process
    deadline = time.monotonic() + 30
    while Path(f"/proc/{builder.pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
        hits(backend, queries[1])
    assert not Path(f"/proc/{builder.pid}").exists()
    backend.close()
    # a new process: its first search scans (a one-shot recall never maps the graph), the
    # next ones map the file and use it
    fresh = SQLiteBackend(db, create=False)
    graph_calls.clear()
    hits(fresh, queries[0])
    assert not graph_calls and fresh._ann._view is None
    assert recall_at_k(fresh, db, queries, Filters()) >= 0.95
    assert len(graph_calls) == len(queries)
    fresh.close()


def test_filters_broad_use_the_graph_selective_scan_their_rows(
    built_db: Path, queries: np.ndarray, graph_calls: list[int]
) -> None:
    backend = SQLiteBackend(built_db, create=False)
    hits(backend, queries[0])  # the backend's first search scans
    broad = Filters(group_id="acme/a")  # 500 rows of 2,000: at the threshold
    assert recall_at_k(backend, built_db, queries, broad) >= 0.95
    assert len(graph_calls) == len(queries)
    graph_calls.clear()
    rows = sqlite_rows(built_db)
    for f in (Filters(group_id="acme/b", collections=("conventions",)), Filters(group_id="x")):
        for q in queries[:5]:  # fewer rows than the threshold: exact
            assert_same_ranking(hits(backend, q, 10, f), brute_force(rows, q, 10, f))
    assert not graph_calls
    backend.close()


@pytest.mark.usefixtures("builds_in_this_process")
def test_added_rows_are_found_and_deleted_rows_never_returned(
    built_db: Path, queries: np.ndarray, graph_calls: list[int]
) -> None:
    backend = SQLiteBackend(built_db, create=False)
    added = vectors(50, 9)
    backend.upsert(records(ROWS, added))  # not in the graph: searched exactly beside it
    for i in range(0, 50, 10):
        top = hits(backend, added[i], 1)
        assert top[0][0] == f"m{ROWS + i:07d}" and abs(top[0][1] - 1.0) < 1e-5
    assert graph_calls  # the graph answered, the added rows beside it
    gone = [f"m{i:07d}" for i in range(0, ROWS, 7)]
    backend.delete(gone)
    # forgetting means gone from the derived files too: the graph held their vectors
    assert not ann_path(built_db).exists()
    deleted_vectors = stored_vectors()[0:ROWS:7]
    for q in [*deleted_vectors[:20], *queries]:
        assert not {i for i, _ in hits(backend, q)} & set(gone)
    assert recall_at_k(backend, built_db, queries, Filters()) >= 0.95
    wait_for_graph(built_db, ROWS + 50 - len(gone))  # rebuilt in the background without them
    backend.close()


def test_a_delete_during_a_build_never_leaves_a_graph_holding_the_deleted_rows(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The builder read the store, then a forget committed (another process) before the
    graph was renamed into place: the graph of the earlier state is not left there."""
    gone = [f"m{i:07d}" for i in range(0, 40)]
    real_write = annindex.AnnFile.write

    def write_after_a_delete(self: annindex.AnnFile, index: object, **kw):  # type: ignore[no-untyped-def]
        other = SQLiteBackend(db, create=False)  # the forgetting process
        assert other.delete(gone) == len(gone)
        other.close()
        return real_write(self, index, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(annindex.AnnFile, "write", write_after_a_delete)
    builder = SQLiteBackend(db, create=False)
    assert builder.build_ann_index() is False  # what it built was out of date
    builder.close()
    assert not ann_path(db).exists()
    monkeypatch.setattr(annindex.AnnFile, "write", real_write)
    again = SQLiteBackend(db, create=False)  # the next build covers the store as it is
    assert again.build_ann_index()
    built = header(db)
    assert built is not None and built.rows == ROWS - len(gone)
    again.close()


@pytest.mark.usefixtures("builds_in_this_process")
def test_many_changes_start_a_rebuild_and_the_old_graph_serves_meanwhile(
    built_db: Path, queries: np.ndarray, graph_calls: list[int]
) -> None:
    backend = SQLiteBackend(built_db, create=False)
    backend.upsert(records(ROWS, vectors(300, 9)))  # 15 % more rows than the graph holds
    assert recall_at_k(backend, built_db, queries, Filters()) >= 0.95
    assert graph_calls
    assert wait_for_graph(built_db, ROWS + 300).keys == ROWS + 300
    backend.close()


@pytest.mark.usefixtures("builds_in_this_process")
def test_updated_vectors_are_never_served_from_the_graph(
    built_db: Path, queries: np.ndarray, graph_calls: list[int]
) -> None:
    backend = SQLiteBackend(built_db, create=False)
    moved = [(f"m{i:07d}", queries[i % len(queries)]) for i in range(0, 300)]
    backend.update_vectors(moved)
    rows = sqlite_rows(built_db)
    with no_builds(built_db):
        for q in queries[:10]:  # the graph holds the old vectors: exact until it is rebuilt
            assert_same_ranking(hits(backend, q), brute_force(rows, q, 10, Filters()))
    assert not graph_calls
    hits(backend, queries[0])  # starts the rebuild
    wait_for_graph(built_db, ROWS, lambda h: h.updates > 0)  # rebuilt for the new vectors
    assert recall_at_k(backend, built_db, queries, Filters()) >= 0.95
    assert graph_calls
    backend.close()


def test_a_store_builds_the_same_graph_however_its_threads_are_scheduled(built_db: Path) -> None:
    """The graph was built on every core, and what it held depended on how the threads
    interleaved: on a busy machine (the builder runs niced, its threads starved) rows with
    identical vectors lost their links and the ten nearest of a query went missing
    (test_updated_vectors_are_never_served_from_the_graph's recall@10 0.897 in a full test
    run, 0.97 with two busy loops beside it, 0.99-1.0 alone). A store builds one graph,
    whatever the machine's load: the same bytes each time (the first built for the module's
    template, the others here)."""
    backend = SQLiteBackend(built_db, create=False)
    built = [ann_path(built_db).read_bytes()]
    for _ in range(2):
        assert backend.build_ann_index()
        built.append(ann_path(built_db).read_bytes())
    assert built[0] == built[1] == built[2]
    backend.close()


@pytest.mark.usefixtures("builds_in_this_process")
@pytest.mark.parametrize("same_last_row", [False, True])
def test_a_replaced_database_never_uses_the_old_graph(
    same_last_row: bool, built_db: Path, queries: np.ndarray, tmp_path: Path, graph_calls: list[int]
) -> None:
    old = header(built_db)
    assert old is not None
    other = tmp_path / "other" / "memory.db"
    b = SQLiteBackend(other, dimension=DIM)
    theirs = vectors(ROWS, 7)  # same ids and rowids, other vectors
    if same_last_row:  # the last-key check passes: only the database token tells them apart
        theirs[-1] = stored_vectors()[-1]
    b.upsert(records(0, theirs))
    b.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{built_db}{suffix}").unlink(missing_ok=True)
    shutil.copy(other, built_db)
    fresh = SQLiteBackend(built_db, create=False)
    rows = sqlite_rows(built_db)
    with no_builds(built_db):
        for q in queries[:10]:
            assert_same_ranking(hits(fresh, q), brute_force(rows, q, 10, Filters()))
    assert not graph_calls
    hits(fresh, queries[0])  # starts the rebuild
    wait_for_graph(built_db, ROWS, lambda h: h.token != old.token)  # rebuilt for the new database
    fresh.close()


def test_appends_do_not_make_the_graph_read_every_row_again(
    built_db: Path, queries: np.ndarray, monkeypatch: pytest.MonkeyPatch, graph_calls: list[int]
) -> None:
    """Whether every covered row is one of the graph's keys is read from the whole vector
    file (~20 ms at 1M rows): once, then again only when what it covers changed."""
    reads: list[int] = []
    real = annindex._covered_rows

    def counted(*args: object) -> np.ndarray:
        reads.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(annindex, "_covered_rows", counted)
    backend = SQLiteBackend(built_db, create=False)
    for q in queries[:2]:
        hits(backend, q)
    assert len(reads) == 1 and graph_calls
    added = vectors(30, 9)
    for i in range(3):  # three writes, each a new state of the vector file
        backend.upsert(records(ROWS + 10 * i, added[10 * i : 10 * i + 10]))
        top = hits(backend, added[10 * i], 1)
        assert top[0][0] == f"m{ROWS + 10 * i:07d}"
    assert len(reads) == 1
    backend.close()


def test_an_edited_text_keeps_the_graph_serving(
    built_db: Path, queries: np.ndarray, graph_calls: list[int]
) -> None:
    """An edit erases the old text from the files (as a forget does), but it removes no row:
    the graph stays in place and serves, the edited row (a new rowid) beside it."""
    from dataclasses import replace

    from kenning.model import content_hash

    backend = SQLiteBackend(built_db, create=False)
    (record,) = records(10, stored_vectors()[10:11])
    text = "note 10, edited"
    edited = replace(
        record, memory=replace(record.memory, content=text, content_hash=content_hash(text))
    )
    backend.upsert([edited])
    assert ann_path(built_db).exists()
    top = hits(backend, stored_vectors()[10], 1)
    assert top[0][0] == "m0000010" and abs(top[0][1] - 1.0) < 1e-5
    assert recall_at_k(backend, built_db, queries, Filters()) >= 0.95
    assert graph_calls
    backend.close()


@pytest.mark.parametrize("process", ["long-lived", "new"])
def test_a_restored_database_that_forgot_another_note_finds_every_note(
    process: str, db: Path, tmp_path: Path, graph_calls: list[int]
) -> None:
    """The graph was built after note X was forgotten; the database is then restored from a
    copy in which note Y was forgotten instead: same database, same counters, same last
    row. X is in the store again, and the graph lacks it: X must still be found."""
    backup = tmp_path / "backup" / "memory.db"
    backup.parent.mkdir()
    shutil.copy(db, backup)
    everything = stored_vectors()
    x, y = 1234, 1345
    backend = SQLiteBackend(db, create=False)
    assert backend.delete([f"m{x:07d}"]) == 1
    assert backend.build_ann_index()
    built = header(db)
    assert built is not None and built.rows == ROWS - 1
    hits(backend, everything[0])  # a long-lived process has mapped and checked the graph
    hits(backend, everything[1])
    assert graph_calls
    elsewhere = SQLiteBackend(backup, create=False)  # the copy forgets another note
    assert elsewhere.delete([f"m{y:07d}"]) == 1
    elsewhere.close()
    if process == "new":
        backend.close()
        for suffix in ("-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        shutil.copy(backup, db)  # restored: the graph of the other branch is still beside it
    else:  # restored under the running process, through SQLite (which it then sees)
        with (
            contextlib.closing(sqlite3.connect(backup)) as src,
            contextlib.closing(sqlite3.connect(db)) as dst,
        ):
            src.backup(dst)
    searcher = backend if process == "long-lived" else SQLiteBackend(db, create=False)
    graph_calls.clear()
    with no_builds(db):
        for _ in range(2):  # a new process's first search scans: the second asks the graph
            top = hits(searcher, everything[x], 1)
            assert top[0][0] == f"m{x:07d}" and abs(top[0][1] - 1.0) < 1e-5
            assert not {i for i, _ in hits(searcher, everything[y])} & {f"m{y:07d}"}
    searcher.close()


@pytest.mark.usefixtures("builds_in_this_process")
@pytest.mark.parametrize("damage", ["truncated", "torn header", "garbage blob", "empty"])
def test_a_damaged_graph_is_not_used_and_is_rebuilt(
    damage: str,
    built_db: Path,
    queries: np.ndarray,
    graph_calls: list[int],
    caplog: pytest.LogCaptureFixture,
) -> None:
    path = ann_path(built_db)
    raw = path.read_bytes()
    if damage == "truncated":  # a crash mid-write of a file renamed without fsync
        path.write_bytes(raw[: len(raw) // 2])
    elif damage == "torn header":
        path.write_bytes(raw[:10] + b"\xff" * 8 + raw[18:])
    elif damage == "garbage blob":
        path.write_bytes(raw[:HEADER_BYTES] + bytes(len(raw) - HEADER_BYTES))
    elif damage == "empty":
        path.write_bytes(b"")
    damaged = path.stat().st_ino
    fresh = SQLiteBackend(built_db, create=False)
    rows = sqlite_rows(built_db)
    with no_builds(built_db), caplog.at_level("WARNING", logger="kenning.backends.annindex"):
        for q in queries[:5]:
            assert_same_ranking(hits(fresh, q), brute_force(rows, q, 10, Filters()))
    assert not graph_calls
    # A damaged file is examined once, not on every search until it is replaced.
    assert caplog.text.count("is damaged") <= 1
    hits(fresh, queries[0])  # starts the rebuild
    # A truncated file or a zeroed blob keeps its header: wait for the file that replaces it.
    wait_for_graph(built_db, ROWS, lambda h: ann_path(built_db).stat().st_ino != damaged)
    assert recall_at_k(fresh, built_db, queries, Filters()) >= 0.95
    assert graph_calls
    fresh.close()


_SEARCH_IN_A_CHILD = """
import json, os, sys
import numpy as np
from kenning.backends import annindex
from kenning.backends.base import Filters
from kenning.backends.sqlite import SQLiteBackend
from tests.ann_builds import STARTED, builds_in_threads
annindex.subprocess = builds_in_threads()  # the builds its searches start, in threads here
queries = np.array(json.loads(sys.argv[1]), dtype=np.float32)
real = annindex.search
answers = {}
for db, then in json.loads(sys.argv[2]):  # one store after the other
    print("searching", db, file=sys.stderr, flush=True)  # a crash names the store
    backend = SQLiteBackend(db, create=False)
    answered = []
    annindex.search = lambda *a, **k: answered.append(real(*a, **k)) or answered[-1]
    if then == "truncate":
        for q in queries[:2]:  # a process's first search scans; the second maps the graph
            backend.vector_search(q, 10, Filters())
        assert answered and answered[-1] is not None, "the graph did not answer"
        os.truncate(db + ".ann", 8192)  # another program cuts the mapped file short, in place
        answered.clear()
    found = [[h.memory.id for h in backend.vector_search(q, 10, Filters())] for q in queries]
    answers[db] = {"found": found, "graph": sum(a is not None for a in answered)}
for build in STARTED:
    build.join()
print(json.dumps(answers))
"""


def graph_start(db: Path) -> int:
    """Where usearch's graph starts in the file: after the header, then its copy of the
    vectors (row and column counts as two u32, then one int8 code per value)."""
    built = header(db)
    assert built is not None
    return HEADER_BYTES + 8 + built.keys * built.dimension


@dataclass(frozen=True)
class ChildSearch:
    """What one child process found in the stores it searched (:data:`_SEARCH_IN_A_CHILD`)."""

    damaged: dict[Path, int]  # each store with a damaged graph body, and that file's inode
    truncated: Path  # the store whose graph was cut short while the child had it mapped
    answers: dict[str, dict[str, Any]]
    said: str


@pytest.fixture(scope="module")
def searched_in_a_child(
    built_template: Path, queries: np.ndarray, tmp_path_factory: pytest.TempPathFactory
) -> ChildSearch:
    """Copies of the built template that a process of its own searches past the graph's
    threshold, one after the other: a crash (SIGSEGV, SIGBUS) fails the tests that read
    this, not the test run. Each damage of a graph's body in a store of its own, and one
    store whose graph another program cuts short while the child has it mapped. One child
    for the four (a process each was ~0.25 CPU-s more)."""
    import json

    folder = tmp_path_factory.mktemp("searched-in-a-child")
    damaged: dict[Path, int] = {}
    stores: list[tuple[str, str]] = []
    for case in ("graph header", "one byte of a vector", "one graph byte", "truncated"):
        db = folder / case.replace(" ", "-") / "memory.db"
        db.parent.mkdir()
        for suffix in ("", ".vectors", ".ann"):
            shutil.copy(f"{built_template}{suffix}", f"{db}{suffix}")
        stores.append((str(db), "truncate" if case == "truncated" else "search"))
        if case == "truncated":
            continue
        path = ann_path(db)
        raw = bytearray(path.read_bytes())
        start = graph_start(db)
        if case == "graph header":  # its deepest level and entry point: SIGSEGV before
            raw[start + 88 : start + 104] = bytes(b ^ 0x5A for b in raw[start + 88 : start + 104])
        elif case == "one byte of a vector":  # silently a wrong graph before
            raw[HEADER_BYTES + 8 + 1000] ^= 0x01
        else:
            raw[(start + len(raw)) // 2] ^= 0x10
        path.write_bytes(bytes(raw))
        damaged[db] = path.stat().st_ino
    # (the checkout first: the child imports tests.ann_builds)
    checkout = str(Path(__file__).resolve().parents[1])
    pythonpath = os.pathsep.join(filter(None, [checkout, os.environ.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", _SEARCH_IN_A_CHILD, json.dumps(queries[:4].tolist()),
         json.dumps(stores)],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "KENNING_ANN_MIN_ROWS": str(THRESHOLD), "PYTHONPATH": pythonpath},
    )  # fmt: skip
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    return ChildSearch(damaged, Path(stores[-1][0]), json.loads(done.stdout), done.stderr)


def test_a_damaged_graph_body_never_reaches_usearch(
    searched_in_a_child: ChildSearch, queries: np.ndarray
) -> None:
    """QA C1: a few damaged bytes of the body (the header's checksum passes) were mapped
    unchecked; usearch followed the damaged entry point and the process died of SIGSEGV at
    its second search (the MCP server, at every restart). Searched in a child process, so
    that a crash fails this test: every search exact, no crash, and the file rebuilt (by the
    builds its searches started, run in the child: a builder process each was ~0.2 CPU-s)."""
    for db, inode in searched_in_a_child.damaged.items():
        answer = searched_in_a_child.answers[str(db)]
        assert answer["graph"] == 0, db
        rows = sqlite_rows(db)
        for got, q in zip(answer["found"], queries[:4], strict=True):
            assert got == [i for i, _ in brute_force(rows, q, 10, Filters())], db
        assert f"{ann_path(db)} is damaged" in searched_in_a_child.said
        # the child's second search started the build
        wait_for_graph(db, ROWS, lambda h, db=db, inode=inode: ann_path(db).stat().st_ino != inode)


@pytest.mark.parametrize("damage", [None, "one graph byte", "cut short", "an older format"])
def test_doctor_names_a_damaged_graph_and_the_fix(damage: str | None, built_db: Path) -> None:
    """QA C1: doctor said all was well of a graph that crashed every long-lived process.
    It now checks the file as a process does before using it, and names the file and the
    fix (a warning: kenning does not use a damaged graph, its searches scan instead). A
    file of an older format is no damage: kenning rebuilds it by itself."""
    from kenning.doctor import run_doctor

    path = ann_path(built_db)
    raw = bytearray(path.read_bytes())
    if damage == "one graph byte":
        raw[(graph_start(built_db) + len(raw)) // 2] ^= 0x10
    elif damage == "cut short":
        del raw[-4096:]
    elif damage == "an older format":  # version 1, its header sealed as it was
        from kenning.backends.vectorfile import seal

        old = struct.Struct("<8sIIIIqqqqqq16s")
        fields = list(old.unpack(raw[: old.size]))
        fields[1] = 1
        raw[:HEADER_BYTES] = seal(old.pack(*fields)).ljust(HEADER_BYTES, b"\0")
    path.write_bytes(bytes(raw))
    index = run_doctor(store_path=built_db, cwd=built_db.parent).check("index")
    if damage in (None, "an older format"):
        assert index.status == "ok", index
        return
    assert index.status == "warning", index
    assert f"{path} is damaged" in index.message
    assert index.fix is not None and f"rm {path}" in index.fix


@pytest.mark.usefixtures("builds_in_this_process")
@pytest.mark.parametrize("intact", [True, False])
def test_a_large_graph_is_examined_in_the_background_while_searches_stay_exact(
    intact: bool,
    built_db: Path,
    queries: np.ndarray,
    graph_calls: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Checking a graph of 1M rows reads ~530 MB (~0.3-0.5 s): past INLINE_CHECK_BYTES a
    thread does it, no search waits for it, and none uses the file before it passed."""
    monkeypatch.setattr(annindex, "INLINE_CHECK_BYTES", 0)
    path = ann_path(built_db)
    if not intact:
        raw = bytearray(path.read_bytes())
        raw[graph_start(built_db) + 88] ^= 0x5A
        path.write_bytes(bytes(raw))
    damaged = path.stat().st_ino
    backend = SQLiteBackend(built_db, create=False)
    rows = sqlite_rows(built_db)
    with no_builds(built_db):
        hits(backend, queries[0])  # a process's first search scans, and examines nothing
        assert not backend._ann.examining
        # the second starts the examination, and is exact: it does not wait for it
        assert_same_ranking(hits(backend, queries[1]), brute_force(rows, queries[1], 10, NO_FILTER))
        examination = backend._ann._examination
        assert examination is not None and not graph_calls
        examination._thread.join(60)
        for q in queries[2:5]:
            found = hits(backend, q)
            if not intact:
                assert_same_ranking(found, brute_force(rows, q, 10, NO_FILTER))
    if intact:
        assert len(graph_calls) == 3
        assert path.stat().st_ino == damaged
    else:
        assert not graph_calls
        hits(backend, queries[0])  # starts the rebuild
        wait_for_graph(built_db, ROWS, lambda h: ann_path(built_db).stat().st_ino != damaged)
    backend.close()


@pytest.mark.usefixtures("builds_in_this_process")
def test_a_graph_removed_while_it_is_examined_is_built_again(
    built_db: Path,
    queries: np.ndarray,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The graph removed while a long-lived process examines it in the background (doctor's
    fix, `rm memory.db.ann`, or a forget in another process): that process's next search
    starts the build, not waits on an examination of a file no longer there (qa-s66a A1)."""
    monkeypatch.setattr(annindex, "INLINE_CHECK_BYTES", 0)
    path = ann_path(built_db)
    backend = SQLiteBackend(built_db, create=False)
    with no_builds(built_db):
        hits(backend, queries[0])
        hits(backend, queries[1])  # starts the examination
        assert backend._ann.examining
        path.unlink()
        hits(backend, queries[2])
        assert not backend._ann.examining
    hits(backend, queries[3])  # asks for the build
    wait_for_graph(built_db, ROWS, lambda h: ann_path(built_db).exists())
    backend.close()


@pytest.mark.usefixtures("builds_in_this_process")
def test_a_graph_usearch_fails_on_is_dropped_and_rebuilt(
    built_db: Path,
    queries: np.ndarray,
    graph_calls: list[int],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A graph whose checksum passes (a checksum is not a signature) on which usearch's
    search raises (QA C1 saw "RuntimeError: Out of memory!" end the process): that search
    is answered exactly, and the file is not used again until it is rebuilt."""
    from usearch.index import Index

    def out_of_memory(*args: object, **kwargs: object) -> object:
        raise RuntimeError("Out of memory!")

    backend = SQLiteBackend(built_db, create=False)
    rows = sqlite_rows(built_db)
    hits(backend, queries[0])
    built = ann_path(built_db).stat().st_ino
    with no_builds(built_db), caplog.at_level("WARNING", logger="kenning.backends.annindex"):
        with monkeypatch.context() as patched:
            patched.setattr(Index, "search", out_of_memory)
            for q in queries[1:4]:
                assert_same_ranking(hits(backend, q), brute_force(rows, q, 10, NO_FILTER))
        hits(backend, queries[4])  # usearch would answer now: the file is not used again
    assert not graph_calls
    assert caplog.text.count("is damaged (Out of memory!)") == 1
    hits(backend, queries[0])  # starts the rebuild
    wait_for_graph(built_db, ROWS, lambda h: ann_path(built_db).stat().st_ino != built)
    assert recall_at_k(backend, built_db, queries[:5], NO_FILTER) >= 0.95
    assert len(graph_calls) == 5
    backend.close()


def test_a_failed_build_says_where_its_error_is_and_waits_before_retrying(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A builder that fails: its error is kept in ``memory.db.ann.log``, the next search is
    told where, and no build starts again at once. That log was a symlink here (a checkout's
    .kenning can carry one), which had the builder truncate the file it names and write its
    output there: the link is replaced by the log itself, the file it named untouched (one
    failed build for both: a builder process is ~0.14 CPU-s)."""
    profile = tmp_path / "profile.sh"
    profile.write_text("precious\n")
    ann = annindex.AnnFile(tmp_path / "memory.db")  # no database there: the builder fails
    ann.log_path.symlink_to(profile)
    assert ann.start_build()
    deadline = time.monotonic() + 60
    while ann.builder_running() and time.monotonic() < deadline:
        time.sleep(0.05)
    with caplog.at_level("WARNING", logger="kenning.backends.annindex"):
        assert not ann.start_build()  # not at once again
    assert str(ann.log_path) in caplog.text and "failed (exit 1" in caplog.text
    assert profile.read_text() == "precious\n"
    assert not ann.log_path.is_symlink()
    assert "memory.db" in ann.log_path.read_text()  # the builder's own error, kept
    assert not ann.path.exists()


def test_a_graph_truncated_under_a_running_process_is_not_read(
    searched_in_a_child: ChildSearch, queries: np.ndarray
) -> None:
    """The graph's file cut short in place while a long-lived process has it mapped: the
    next search read past the file's end and the process died of SIGBUS."""
    db = searched_in_a_child.truncated
    rows = sqlite_rows(db)
    found = searched_in_a_child.answers[str(db)]["found"]
    for got, q in zip(found, queries[:4], strict=True):
        assert got == [i for i, _ in brute_force(rows, q, 10, Filters())]


_BUILDER_KILLED_BEFORE_ITS_RENAME = """
import os, signal, sys
from kenning.backends import annindex
real = os.replace
def killed(src, dst):  # the machine goes down (or the OOM killer) just before the rename
    if str(dst).endswith(".ann"):
        os.kill(os.getpid(), signal.SIGKILL)
    real(src, dst)
os.replace = killed
annindex.main([sys.argv[1]])
"""


@pytest.fixture(scope="module")
def left_by_a_killed_builder(tmp_path_factory: pytest.TempPathFactory, db_template: Path) -> Path:
    """A copy of the template in a folder of its own, and what a builder killed just before
    its rename left beside it: killed once for the module, its aftermath copied for each
    test (a builder process is ~0.25 CPU-s)."""
    db = tmp_path_factory.mktemp("killed-builder") / "memory.db"
    shutil.copy(db_template, db)
    builder = run_python(
        _BUILDER_KILLED_BEFORE_ITS_RENAME,
        str(db),
        env={**os.environ, "KENNING_ANN_MIN_ROWS": str(THRESHOLD)},
    )
    assert builder.returncode == -9, builder.stderr[-2000:]
    return db.parent


@pytest.mark.parametrize("then", ["the next build", "a forget"])
def test_a_builder_killed_mid_build_leaves_no_temp_file_behind(
    db: Path, then: str, left_by_a_killed_builder: Path
) -> None:
    """A builder killed after writing its temp file (memory.db.ann.<pid>.tmp, a graph's
    size: ~530 bytes a row) left it there for good: each killed build added one, and it
    held the int8 vectors of every row it covered, including rows forgotten since."""
    shutil.copytree(left_by_a_killed_builder, db.parent, dirs_exist_ok=True)
    left = list(db.parent.glob("memory.db.ann.*.tmp"))
    assert len(left) == 1 and not ann_path(db).exists()
    backend = SQLiteBackend(db, create=False)
    if then == "the next build":
        assert backend.build_ann_index()
        assert header(db) is not None
    else:
        assert backend.delete(["m0000000"]) == 1
    assert not list(db.parent.glob("memory.db.ann.*.tmp"))
    backend.close()


_FORGET_KILLED_AFTER_ITS_COMMIT = """
import os, signal, sqlite3, sys
from kenning.backends.sqlite import SQLiteBackend
real = sqlite3.connect
def connect(*args, **kwargs):  # dies once the delete is committed: at the WAL's truncation
    conn = real(*args, **kwargs)
    conn.set_trace_callback(
        lambda sql: os.kill(os.getpid(), signal.SIGKILL) if "wal_checkpoint" in sql else None
    )
    return conn
sqlite3.connect = connect
SQLiteBackend(sys.argv[1], create=False).delete(sys.argv[2:])
"""


def test_a_forget_killed_after_its_commit_leaves_no_graph_of_the_forgotten_rows(
    built_db: Path,
) -> None:
    """The graph holds the int8 vectors of the rows it covers: a forget removes it, but did
    so after its commit, so a forget killed in between (the CLI's ^C, a hook at its
    budget) left the forgotten rows' vectors in memory.db.ann, served and kept until a
    rebuild that 10 % of the store changing starts."""
    gone = [f"m{i:07d}" for i in range(0, 40)]
    forget = run_python(_FORGET_KILLED_AFTER_ITS_COMMIT, str(built_db), *gone)
    assert forget.returncode == -9, forget.stderr[-2000:]
    assert len(sqlite_rows(built_db)) == ROWS - len(gone)  # the forget is committed
    assert not ann_path(built_db).exists()


_BUILDER_KILLED_AFTER_ITS_RENAME = """
import os, signal, sys
from usearch.index import Index
from kenning.backends import annindex
from kenning.backends.sqlite import SQLiteBackend
db, gone = sys.argv[1], sys.argv[2:]
real_save, real_replace = Index.save, os.replace
def save(self, *args, **kwargs):  # another process forgets notes while the graph is built
    other = SQLiteBackend(db, create=False)
    assert other.delete(gone) == len(gone)
    other.close()
    return real_save(self, *args, **kwargs)
def replace(src, dst):  # and the builder dies right after its rename
    real_replace(src, dst)
    if str(dst).endswith(".ann"):
        os.kill(os.getpid(), signal.SIGKILL)
Index.save, os.replace = save, replace
annindex.main([db])
"""


def test_a_builder_killed_after_its_rename_leaves_no_graph_of_rows_forgotten_meanwhile(
    db: Path,
) -> None:
    """A forget committed while the graph was built: the builder looked again after its
    rename and withdrew the graph, but one killed between the rename and that look left a
    graph holding the forgotten rows' vectors in place, used and kept."""
    gone = [f"m{i:07d}" for i in range(0, 40)]
    builder = run_python(
        _BUILDER_KILLED_AFTER_ITS_RENAME,
        str(db),
        *gone,
        env={**os.environ, "KENNING_ANN_MIN_ROWS": str(THRESHOLD)},
    )
    assert builder.returncode in (0, -9), builder.stderr[-2000:]
    assert len(sqlite_rows(db)) == ROWS - len(gone)
    built = header(db) if ann_path(db).exists() else None
    assert built is None or built.rows == ROWS - len(gone)
