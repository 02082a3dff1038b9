"""The SQLite store's vector file (``memory.db.vectors``): exact answers, in step with SQLite.

Every test compares vector search with a brute-force float32 search over the BLOBs that
SQLite holds (the source of truth), on real files, after the file was appended to,
compacted, rebuilt, damaged, replaced or left behind by a rolled-back transaction.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import resource
import shutil
import sqlite3
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kenning.backends.base import Filters
from kenning.backends.sqlite import SQLiteBackend
from kenning.backends.vectorfile import HEADER_BYTES, Header, nth_largest, record_dtype
from tests.forking import run_python
from tests.vector_rows import DIM, records, vectors

FILTERS = [
    Filters(),
    Filters(group_id="acme/a"),
    Filters(group_id="acme/b", collections=("conventions",)),
    Filters(group_id="other/d", types=("error_fix", "rule")),
    Filters(types=("decision",)),
    Filters(group_id="nobody"),
]


Row = tuple[int, str, str, str, str, bytes]


class Rows(list[Row]):
    """:func:`sqlite_rows`' answer, never changed once read: its columns are made once for
    every :func:`brute_force` of it (a test takes a hundred top-ks of one read, queries ×
    :data:`FILTERS`, and making the matrix from the rows each time was most of this
    module's CPU)."""

    @functools.cached_property
    def columns(self) -> Columns:
        return Columns.of(self)


@dataclass(frozen=True)
class Columns:
    rowids: np.ndarray
    ids: list[str]
    groups: np.ndarray
    collections: np.ndarray
    types: np.ndarray
    matrix: np.ndarray

    @staticmethod
    def of(rows: Sequence[Row]) -> Columns:
        return Columns(
            np.array([r[0] for r in rows], dtype=np.int64),
            [r[1] for r in rows],
            np.array([r[2] for r in rows], dtype=str),
            np.array([r[3] for r in rows], dtype=str),
            np.array([r[4] for r in rows], dtype=str),
            np.frombuffer(b"".join(r[5] for r in rows), dtype=np.float32).reshape(len(rows), -1),
        )


def sqlite_rows(db: Path) -> Rows:
    conn = sqlite3.connect(db)
    try:
        return Rows(
            conn.execute(
                "SELECT rowid, id, group_id, collection, type, embedding FROM memories "
                "ORDER BY rowid"
            ).fetchall()
        )
    finally:
        conn.close()


def brute_force(
    rows: Sequence[Row], query: np.ndarray, k: int, f: Filters
) -> list[tuple[str, float]]:
    """Top-k by float32 cosine straight from SQLite's BLOBs, ties by rowid."""
    if not rows:
        return []
    c = rows.columns if isinstance(rows, Rows) else Columns.of(rows)
    keep = np.ones(len(rows), dtype=bool)
    if f.group_id is not None:
        keep &= c.groups == f.group_id
    if f.collections:
        keep &= np.isin(c.collections, list(f.collections))
    if f.types:
        keep &= np.isin(c.types, list(f.types))
    chosen = np.flatnonzero(keep)
    if not len(chosen):
        return []
    scores = (c.matrix if len(chosen) == len(rows) else c.matrix[chosen]) @ query
    # ordered by (-score, rowid): lexsort's last key is the primary one, and it is stable
    order = np.lexsort((c.rowids[chosen], -scores))[:k]
    return [(c.ids[chosen[i]], float(scores[i])) for i in order]


#: Two float32 dot products of the same numbers may differ in the last bit when one is part
#: of a bigger matrix product (another kernel path): scores this close count as a tie.
TIE = 1e-6


def assert_same_ranking(got: list[tuple[str, float]], want: list[tuple[str, float]]) -> None:
    """The exact answer, up to the order of (near-)equal scores: the same scores position by
    position, and every id that differs from brute force's has the score of a tie."""
    assert len(got) == len(want)
    np.testing.assert_allclose([s for _, s in got], [s for _, s in want], atol=TIE)
    exact = dict(want)
    for position, (memory_id, score) in enumerate(got):
        if memory_id != want[position][0]:
            assert abs(score - want[position][1]) <= TIE, (position, got, want)
            assert memory_id not in exact or abs(exact[memory_id] - score) <= TIE
    boundary = want[-1][1] if want else 0.0
    for memory_id, score in got:
        assert memory_id in exact or abs(score - boundary) <= TIE, (memory_id, got, want)


def assert_exact(backend: SQLiteBackend, db: Path, queries: np.ndarray, k: int = 10) -> None:
    rows = sqlite_rows(db)
    for q in queries:
        for f in FILTERS:
            got = [(h.memory.id, h.score) for h in backend.vector_search(q, k, f)]
            assert_same_ranking(got, brute_force(rows, q, k, f))


def file_header(db: Path) -> Header | None:
    raw = (db.parent / (db.name + ".vectors")).read_bytes()[:HEADER_BYTES]
    return Header.unpack(raw)


def inode(db: Path) -> int:
    return os.stat(db.parent / (db.name + ".vectors")).st_ino


def count_rows(db: Path) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])
    finally:
        conn.close()


def store_template(folder: Path, rows: int) -> Path:
    """A closed store of ``rows`` rows in ``folder`` (no vector file, no graph): written once
    for a module and copied for each test."""
    path = folder / "memory.db"
    backend = SQLiteBackend(path, dimension=DIM)
    backend.upsert(records(0, vectors(rows, 1)))
    backend.close()
    assert sorted(p.name for p in path.parent.iterdir()) == ["memory.db"]
    return path


@pytest.fixture(scope="module")
def db_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return store_template(tmp_path_factory.mktemp("vectorfile"), 3000)


@pytest.fixture
def db(tmp_path: Path, db_template: Path) -> Path:
    """A copy of the template: each test changes a store of its own."""
    path = tmp_path / "memory.db"
    shutil.copy(db_template, path)
    return path


@pytest.fixture(scope="module")
def built_template(tmp_path_factory: pytest.TempPathFactory, db_template: Path) -> Path:
    """The template with its vector file, built once for the module: for the tests whose
    store has a file before what they do to it (a build from 3,000 rows each is ~25 ms)."""
    path = tmp_path_factory.mktemp("vectorfile-built") / "memory.db"
    shutil.copy(db_template, path)
    backend = SQLiteBackend(path, create=False)
    backend.vector_search(vectors(1, 99)[0], 5, Filters())
    backend.close()
    built = file_header(path)
    assert built is not None and built.count == 3000
    return path


@pytest.fixture
def built_db(tmp_path: Path, built_template: Path) -> Path:
    """A copy of the built template (the store and its vector file) for a test of its own."""
    path = tmp_path / "memory.db"
    for suffix in ("", ".vectors"):
        shutil.copy(f"{built_template}{suffix}", f"{path}{suffix}")
    return path


@pytest.fixture
def queries() -> np.ndarray:
    return vectors(12, 99)


def test_top_k_is_the_exact_float32_answer(db: Path, queries: np.ndarray) -> None:
    backend = SQLiteBackend(db, create=False)
    assert_exact(backend, db, queries, k=10)
    assert_exact(backend, db, queries[:3], k=1)
    assert_exact(backend, db, queries[:3], k=200)
    backend.close()
    header = file_header(db)
    assert header is not None and header.count == count_rows(db)


def test_new_rows_are_appended_and_a_new_process_reuses_the_file(
    db: Path, queries: np.ndarray
) -> None:
    first = SQLiteBackend(db, create=False)
    first.vector_search(queries[0], 5, Filters())
    built = inode(db)
    writer = SQLiteBackend(db, create=False)  # another connection, as another process
    writer.upsert(records(3000, vectors(250, 2)))
    assert_exact(first, db, queries)  # sees the other writer's rows at once
    assert inode(db) == built  # appended, not rebuilt
    header = file_header(db)
    assert header is not None and header.count == 3250
    fresh = SQLiteBackend(db, create=False)
    assert_exact(fresh, db, queries)
    assert inode(db) == built
    for b in (first, writer, fresh):
        b.close()


def test_deletes_compact_and_updated_vectors_rebuild(db: Path, queries: np.ndarray) -> None:
    reader = SQLiteBackend(db, create=False)
    writer = SQLiteBackend(db, create=False)
    reader.vector_search(queries[0], 5, Filters())
    top = [h.memory.id for h in reader.vector_search(queries[1], 20, Filters())]
    assert writer.delete(top[::2] + [f"m{i:07d}" for i in range(0, 3000, 7)]) > 0
    assert_exact(reader, db, queries)
    header = file_header(db)
    assert header is not None and header.count == count_rows(db)
    moved = vectors(40, 3)
    writer.update_vectors([(f"m{i:07d}", moved[i % 40]) for i in range(1, 3000, 11)])
    assert_exact(reader, db, queries)
    assert_exact(reader, db, moved[:4])  # the moved rows are found where they are now
    reader.close()
    writer.close()


@pytest.mark.parametrize(
    "damage",
    [
        "missing",
        "empty",
        "garbage",
        "torn header",
        "short tail",
        "count beyond the end",
        "zeroed records",
        "another store's file",
        "another store's file, same last row",
        "stale copy",
        "restored backup",
    ],
)
def test_a_damaged_or_foreign_file_is_rebuilt(
    damage: str, built_db: Path, queries: np.ndarray, tmp_path: Path
) -> None:
    db = built_db
    vectors_path = db.parent / (db.name + ".vectors")
    backend = SQLiteBackend(db, create=False)
    backend.vector_search(queries[0], 5, Filters())
    if damage == "stale copy":  # an old file of this store (e.g. restored with a backup)
        old = vectors_path.read_bytes()
        backend.delete([f"m{i:07d}" for i in range(0, 3000, 3)])
        backend.upsert(records(5000, vectors(1500, 4)))
    if damage == "restored backup":  # the database goes back; its next rows reuse rowids
        backend.close()
        shutil.copy(db, tmp_path / "backup.db")
        backend = SQLiteBackend(db, create=False)
        backend.upsert(records(5000, vectors(100, 4)))
        backend.vector_search(queries[0], 5, Filters())  # the file now has rowids up to 3100
        backend.close()
        for suffix in ("-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        shutil.copy(tmp_path / "backup.db", db)
        backend = SQLiteBackend(db, create=False)
        backend.upsert(records(6000, vectors(150, 5)))  # rowids 3001-3150, other vectors
    backend.close()
    raw = vectors_path.read_bytes()
    header = Header.unpack(raw[:HEADER_BYTES])
    assert header is not None
    size = record_dtype(DIM).itemsize
    if damage == "missing":
        vectors_path.unlink()
    elif damage == "empty":
        vectors_path.write_bytes(b"")
    elif damage == "garbage":
        vectors_path.write_bytes(os.urandom(len(raw)))
    elif damage == "torn header":
        vectors_path.write_bytes(raw[:20] + b"\xff" * 8 + raw[28:])
    elif damage == "short tail":
        vectors_path.write_bytes(raw[: HEADER_BYTES + size * 1000 + 17])
    elif damage == "count beyond the end":
        bigger = Header(**{**header.__dict__, "count": header.count + 10})
        vectors_path.write_bytes(bigger.pack() + raw[len(bigger.pack()) :])
    elif damage == "zeroed records":  # the header reached the disk, the records did not
        tail = HEADER_BYTES + size * (header.count - 50)
        vectors_path.write_bytes(raw[:tail] + b"\0" * (len(raw) - tail))
    elif damage.startswith("another store's file"):
        other = tmp_path / "other" / "memory.db"
        b = SQLiteBackend(other, dimension=DIM)
        theirs = vectors(3000, 7)  # same ids, other vectors, another database
        if damage.endswith("same last row"):  # only the database's token tells them apart
            theirs[-1] = vectors(3000, 1)[-1]
        b.upsert(records(0, theirs))
        b.vector_search(queries[0], 5, Filters())
        b.close()
        shutil.copy(other.parent / "memory.db.vectors", vectors_path)
    elif damage == "stale copy":
        vectors_path.write_bytes(old)
    fresh = SQLiteBackend(db, create=False)
    assert_exact(fresh, db, queries)
    rebuilt = file_header(db)
    assert rebuilt is not None and rebuilt.count == count_rows(db)
    fresh.close()


def test_rows_of_a_rolled_back_transaction_never_reach_the_file(
    db: Path, queries: np.ndarray
) -> None:
    backend = SQLiteBackend(db, create=False)
    backend.vector_search(queries[0], 5, Filters())
    doomed = records(9000, queries[:3] * 1.0)
    with pytest.raises(RuntimeError), backend.exclusive():
        backend.upsert(doomed)
        # inside the transaction the new rows are found (dedup depends on it)...
        assert backend.vector_search(queries[0], 1, Filters())[0].memory.id == "m0009000"
        raise RuntimeError("roll back")
    header = file_header(db)
    assert header is not None and header.count == 3000
    # ...and after it, they are gone; AUTOINCREMENT hands their rowids to the next rows,
    # whose vectors are different: the file must not answer with the doomed ones.
    backend.upsert(records(9500, vectors(3, 5)))
    assert_exact(backend, db, queries)
    assert_exact(SQLiteBackend(db, create=False), db, queries)
    backend.close()


def test_a_busy_file_lock_keeps_new_rows_in_memory(db: Path, queries: np.ndarray) -> None:
    backend = SQLiteBackend(db, create=False)
    backend.vector_search(queries[0], 5, Filters())
    vectors_path = db.parent / (db.name + ".vectors")
    before = vectors_path.read_bytes()
    holder = os.open(vectors_path, os.O_RDWR)
    fcntl.flock(holder, fcntl.LOCK_EX)  # another process is updating the file
    try:
        backend.upsert(records(7000, vectors(100, 6)))
        backend.delete(["m0000003"])
        assert_exact(backend, db, queries)
        assert vectors_path.read_bytes() == before  # nothing written without the lock
    finally:
        os.close(holder)
    assert_exact(backend, db, queries)
    header = file_header(db)
    assert header is not None and header.count == count_rows(db)
    backend.close()


def test_the_embedded_int8_scan_model_is_what_onnx_builds() -> None:
    from onnx import TensorProto, helper, numpy_helper

    from kenning.backends.vectorfile import (
        INT8_SCAN_MODEL,
        SCAN_CHUNK_ROWS,
        int8_dots,
        query_code_limit,
    )

    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["codes", "query", "zero"], ["dots"])],
        "kenning_int8_scan",
        [
            helper.make_tensor_value_info("codes", TensorProto.UINT8, ["rows", "width"]),
            helper.make_tensor_value_info("query", TensorProto.INT8, ["width", 2]),
        ],
        [helper.make_tensor_value_info("dots", TensorProto.INT32, ["rows", 2])],
        initializer=[numpy_helper.from_array(np.array(128, dtype=np.uint8), "zero")],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="kenning"
    )
    model.ir_version = 8
    assert model.SerializeToString() == INT8_SCAN_MODEL
    # and it computes (codes - 128) · query exactly for both levels of a query, trailer
    # included, for every query code a search makes on this machine: the extremes too, where
    # onnxruntime's int16 pair sums saturate on x86 without VNNI for query codes of ±127 (every
    # one of these rows was wrong)
    rng = np.random.default_rng(0)
    records = np.zeros(54, dtype=record_dtype(DIM))
    records["codes"] = rng.integers(0, 256, size=records["codes"].shape, dtype=np.uint8)
    records["codes"][50:, :DIM] = [[255], [0], [1], [128]]
    records["rowid"] = rng.integers(0, 2**62, 54)
    limit = query_code_limit()
    for query in (
        rng.integers(-limit, limit + 1, (2, DIM)).astype(np.int8),
        np.full((2, DIM), limit, dtype=np.int8),
        np.array([[-limit] * DIM, [limit] * DIM], dtype=np.int8),
    ):
        expected = (records["codes"][:, :DIM].astype(np.int64) - 128) @ query.T.astype(np.int64)
        dots = int8_dots(records, query)
        np.testing.assert_array_equal(dots, expected)
    # as the product gives it: a conversion would be one more pass over every row a search
    assert dots.dtype == np.int32
    # a scan in runs of the product (where it is compute-bound) or in one run is the same
    many = np.zeros(2 * SCAN_CHUNK_ROWS + 5, dtype=record_dtype(DIM))
    many["codes"] = rng.integers(0, 256, size=many["codes"].shape, dtype=np.uint8)
    query = rng.integers(-limit, limit + 1, (2, DIM)).astype(np.int8)
    expected = (many["codes"][:, :DIM].astype(np.int32) - 128) @ query.T.astype(np.int32)
    for rows in (None, SCAN_CHUNK_ROWS, len(many)):
        np.testing.assert_array_equal(int8_dots(many, query, rows), expected)


@contextlib.contextmanager
def files_limited_to(size: int) -> Iterator[None]:
    """No file of this process grows past ``size`` bytes within the block (a write past it
    fails with EFBIG, as on a disk that refuses it: Python ignores SIGXFSZ); the limit it
    had is back after."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


def test_a_disk_that_refuses_the_file_costs_speed_not_answers(
    db: Path, queries: np.ndarray, caplog: pytest.LogCaptureFixture
) -> None:
    """The vector file is derived data: when it cannot be written (a full disk, a file size
    limit), the search answers from an index built in memory, says so once, and leaves no
    half-written copy behind — whether the file was to be built or appended to. Searched in
    this process under a file size limit for the block (a process of its own for each was
    ~0.26 CPU-s)."""

    def search_limited() -> list[list[tuple[str, float]]]:
        backend = SQLiteBackend(db, create=False)  # a new process's: it has said nothing yet
        try:
            with files_limited_to(200_000):
                return [
                    [(h.memory.id, h.score) for h in backend.vector_search(q, 10, Filters())]
                    for q in queries[:4]
                ]
        finally:
            backend.close()

    for step in ("build", "append"):
        if step == "append":
            backend = SQLiteBackend(db, create=False)
            backend.vector_search(queries[0], 5, Filters())  # the file, built without a limit
            backend.upsert(records(3000, vectors(250, 2)))
            backend.close()
        caplog.clear()
        with caplog.at_level("WARNING", logger="kenning.backends.vectorfile"):
            answers = search_limited()
        rows = sqlite_rows(db)
        for got, q in zip(answers, queries[:4], strict=True):
            assert_same_ranking(got, brute_force(rows, q, 10, Filters()))
        assert caplog.text.count("cannot write") == 1, caplog.text
        assert not (db.parent / (db.name + ".vectors.tmp")).exists()


_SEARCH_WHILE_THE_FILES_ARE_CHANGED_IN_PLACE = """
import json, os, shutil, sys
import numpy as np
from kenning.backends.base import Filters
from kenning.backends.sqlite import SQLiteBackend
queries = np.array(json.loads(sys.argv[1]), dtype=np.float32)
answers = {}
for db, how, older in json.loads(sys.argv[2]):  # one store after the other
    print("searching", db, file=sys.stderr, flush=True)  # a crash names the store
    backend = SQLiteBackend(db, create=False)
    backend.vector_search(queries[0], 10, Filters())  # the file is mapped
    if how == "truncate":
        os.truncate(db + ".vectors", 4096)
    else:  # an older, smaller copy written over it in place (cp keeps the inode)
        with open(older, "rb") as src, open(db + ".vectors", "r+b") as dst:
            dst.truncate(0)
            shutil.copyfileobj(src, dst)
    answers[db] = [[[h.memory.id, h.score] for h in backend.vector_search(q, 10, Filters())]
                   for q in queries]
print(json.dumps(answers))
"""


def test_a_vector_file_changed_in_place_under_a_running_process(
    db: Path, queries: np.ndarray, tmp_path: Path
) -> None:
    """Another program truncates memory.db.vectors, or copies an older backup over it in
    place (same inode), while a long-lived process (an MCP server) has it mapped: the next
    search read the mapping past the file's end and the process died of SIGBUS. One child
    searches both stores, one after the other (a process each was ~0.22 CPU-s more)."""
    import json

    other = tmp_path / "older-copy" / "memory.db"
    other.parent.mkdir()
    shutil.copy(db, other)  # (the template's copy, as db is)
    changes = []
    for store, how in ((db, "truncate"), (other, "older copy")):
        backend = SQLiteBackend(store, create=False)
        backend.vector_search(queries[0], 5, Filters())
        backend.close()
        older = store.parent / "older.vectors"
        shutil.copy(store.parent / (store.name + ".vectors"), older)
        backend = SQLiteBackend(store, create=False)
        backend.upsert(records(3000, vectors(400, 3)))
        backend.vector_search(queries[0], 5, Filters())  # the file grows past the older copy
        backend.close()
        changes.append((str(store), how, str(older)))
    done = run_python(
        _SEARCH_WHILE_THE_FILES_ARE_CHANGED_IN_PLACE,
        json.dumps(queries[:4].tolist()),
        json.dumps(changes),
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    answers = json.loads(done.stdout)
    for store, _how, _older in changes:
        rows = sqlite_rows(Path(store))
        for got, q in zip(answers[store], queries[:4], strict=True):
            assert_same_ranking([tuple(x) for x in got], brute_force(rows, q, 10, Filters()))


def test_a_restored_database_changed_as_the_file_was_is_rebuilt(db: Path) -> None:
    """memory.db restored from a backup (the vector file left as it was), then one forget:
    the file had lost another row to another forget, so every counter agreed with it while
    the rows differed, and the restored memory was never found by vector search again."""
    rows = sqlite_rows(db)
    backend = SQLiteBackend(db, create=False)
    backend.vector_search(vectors(1, 7)[0], 5, Filters())  # the file is built
    backend.close()
    backup = db.parent / "backup.db"
    shutil.copy(db, backup)
    first, second = rows[10][1], rows[20][1]
    backend = SQLiteBackend(db, create=False)
    assert backend.delete([first]) == 1
    backend.vector_search(vectors(1, 7)[0], 5, Filters())  # the file follows the forget
    backend.close()
    for suffix in ("-wal", "-shm"):
        (db.parent / (db.name + suffix)).unlink(missing_ok=True)
    shutil.copy(backup, db)  # the forgotten note is back in the table, not in the file
    backend = SQLiteBackend(db, create=False)
    assert backend.delete([second]) == 1
    restored = np.frombuffer(rows[10][5], dtype=np.float32)
    assert backend.vector_search(restored, 1, Filters())[0].memory.id == first
    assert_exact(backend, db, vectors(4, 8))
    backend.close()


def test_a_file_another_process_appends_to_as_it_is_put_in_place_is_not_read_empty(
    db: Path, queries: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rebuild's lock is on the file it replaces: between putting the new file in place
    and reading it back, another process may lock the new one and append to it. The
    search that rebuilt it answered from an empty index then (no vector hits)."""
    from kenning.backends import vectorfile

    other = SQLiteBackend(db, create=False)  # another process, as another connection
    real_replace = os.replace
    raced: list[int] = []

    def replace_then_the_other_appends(src: object, dst: object) -> None:
        real_replace(src, dst)  # type: ignore[arg-type]
        if not raced and str(dst).endswith(".vectors"):
            raced.append(1)
            other.upsert(records(3000, vectors(3, 5)))
            other.vector_search(queries[0], 5, Filters())  # locks the new file, appends

    monkeypatch.setattr(vectorfile.os, "replace", replace_then_the_other_appends)
    first = SQLiteBackend(db, create=False)
    rows = sqlite_rows(db)  # what the first search's snapshot holds
    got = [(h.memory.id, h.score) for h in first.vector_search(queries[1], 10, Filters())]
    assert raced
    assert_same_ranking(got, brute_force(rows, queries[1], 10, Filters()))
    monkeypatch.setattr(vectorfile.os, "replace", real_replace)
    assert_exact(first, db, queries)  # and the next searches see the other's rows
    header = file_header(db)
    assert header is not None and header.count == 3003
    for b in (first, other):
        b.close()


def test_a_vector_repaired_by_another_process_is_found_by_a_long_lived_one(db: Path) -> None:
    """A long-lived process (the MCP server) met a damaged vector and left its row out of
    vector search; `kenning reembed` repaired it, and another process's search (a recall, a
    hook) rebuilt the file. The long-lived one then mapped that file without reading the
    row again, and went on leaving the repaired memory out until it was restarted."""
    rows = sqlite_rows(db)
    target = np.frombuffer(rows[7][5], dtype=np.float32)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE memories SET embedding = zeroblob(100) WHERE id = 'm0000007'")
    conn.commit()
    conn.close()
    server = SQLiteBackend(db, create=False)
    assert "m0000007" not in [h.memory.id for h in server.vector_search(target, 5, Filters())]
    repair = SQLiteBackend(db, create=False)  # kenning reembed
    repair.update_vectors([("m0000007", target)])
    repair.close()
    recall = SQLiteBackend(db, create=False)  # a recall: its search rebuilds the file
    assert recall.vector_search(target, 1, Filters())[0].memory.id == "m0000007"
    recall.close()
    assert server.vector_search(target, 1, Filters())[0].memory.id == "m0000007"
    assert_exact(server, db, vectors(4, 8))
    server.close()


def test_the_file_is_never_written_through_a_symlink(
    db: Path, tmp_path: Path, queries: np.ndarray
) -> None:
    """A checkout can carry symlinks in its .kenning folder: ``memory.db.vectors.tmp`` and
    ``memory.db.vectors`` leading out of the project had the rebuild write the vector file
    into the file they name (a shell profile, another project's file: overwritten), and the
    appends after it too. kenning's own files there are its own: a link in their place is
    replaced, never followed, and the answers are the exact ones."""
    outside = tmp_path / "outside"
    outside.mkdir()
    profile, other = outside / "profile.sh", outside / "other.txt"
    for victim in (profile, other):
        victim.write_text("precious\n")
    vector_file = db.parent / (db.name + ".vectors")
    (db.parent / (db.name + ".vectors.tmp")).symlink_to(profile)
    vector_file.symlink_to(other)
    backend = SQLiteBackend(db, create=False)
    assert_exact(backend, db, queries[:2])
    backend.upsert(records(3000, vectors(20, 2)))
    assert_exact(backend, db, queries[:2])
    backend.close()
    assert profile.read_text() == "precious\n" and other.read_text() == "precious\n"
    assert not vector_file.is_symlink()
    header = file_header(db)
    assert header is not None and header.count == count_rows(db)


@pytest.mark.parametrize("kind", ["pipe", "folder"])
def test_a_pipe_or_a_folder_where_the_file_goes_costs_speed_not_answers(
    db: Path, queries: np.ndarray, kind: str
) -> None:
    """qa-s65c C3: a named pipe where the vector file goes (a checkout's .kenning can carry
    one) made a write wait forever for the pipe's other end, inside the store's write
    transaction (every other writer then failed after 30 s), and a search fail with
    "Illegal seek"; a folder there failed both with "Is a directory". The search scans the
    database instead, with the exact answers; a pipe is replaced by the file, a folder is
    left (and `kenning doctor` names it)."""
    import threading

    from kenning.doctor import _derived_in_the_way

    vector_file = db.parent / (db.name + ".vectors")
    vector_file.unlink(missing_ok=True)
    if kind == "pipe":
        os.mkfifo(vector_file)
    else:
        vector_file.mkdir()
        assert _derived_in_the_way(db) is not None
    outcome: list[object] = []

    def work() -> None:
        backend = SQLiteBackend(db, create=False)
        try:
            assert_exact(backend, db, queries[:2])
            backend.upsert(records(3000, vectors(20, 2)))
            assert_exact(backend, db, queries[:2])
            outcome.append("done")
        except BaseException as exc:  # (said by the assert below)
            outcome.append(exc)
        finally:
            backend.close()

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(60)
    assert outcome == ["done"], outcome or "still waiting on the pipe"
    if kind == "pipe":
        header = file_header(db)
        assert header is not None and header.count == count_rows(db)
        assert _derived_in_the_way(db) is None
    else:
        assert vector_file.is_dir()


def test_query_codes_stay_where_the_int8_product_is_exact() -> None:
    """A search's query codes are int8's full ±127 only where this machine's product is exact
    for them (VNNI); elsewhere a byte product's pair sum, (code + 128) ≤ 255 times the query's
    code, twice, must fit in int16 (the AVX2 kernel's ``vpmaddubsw``): ±63. And the two levels'
    ``codes × scales`` are within ``error`` of the query, a small fraction of one level's."""
    from kenning.backends.vectorfile import (
        FULL_QUERY_CODE_LIMIT,
        SAFE_QUERY_CODE_LIMIT,
        int8_dots,
        quantise_query,
        query_code_limit,
    )

    assert 2 * 255 * SAFE_QUERY_CODE_LIMIT <= 2**15 - 1 < 2 * 255 * FULL_QUERY_CODE_LIMIT
    # what this machine does with the full range, found here by itself
    records = np.zeros(2, dtype=record_dtype(DIM))
    records["codes"][0], records["codes"][1] = 255, 1
    extreme = np.full((2, DIM), FULL_QUERY_CODE_LIMIT, dtype=np.int8)
    exact = all(
        int8_dots(records, sign * extreme).tolist()
        == [[sign * 127 * 127 * DIM] * 2, [-sign * 127 * 127 * DIM] * 2]
        for sign in (1, -1)
    )
    assert query_code_limit() == (FULL_QUERY_CODE_LIMIT if exact else SAFE_QUERY_CODE_LIMIT)
    rng = np.random.default_rng(3)
    for limit in (SAFE_QUERY_CODE_LIMIT, FULL_QUERY_CODE_LIMIT):
        for query in (*vectors(20, 9), np.full(DIM, -0.05, dtype=np.float32), rng.normal(size=DIM)):
            coded = quantise_query(query, limit)
            assert coded.codes.dtype == np.int8 and coded.codes.shape == (2, DIM)
            assert int(np.abs(coded.codes[0].astype(np.int16)).max()) == limit  # the peak's code
            assert int(np.abs(coded.codes[1].astype(np.int16)).max()) <= limit
            q = np.asarray(query, dtype=np.float64)
            first = coded.codes[0] * np.float64(coded.scales[0])
            restored = first + coded.codes[1] * np.float64(coded.scales[1])
            assert np.linalg.norm(q - restored) <= coded.error
            # the second level is what makes the query's share of a row's bound small
            assert coded.error <= np.linalg.norm(q - first) / 30
            assert coded.norm == pytest.approx(float(np.linalg.norm(q)))
    # What the first level leaves can be below what a float32 scale reaches: no second level
    # then (a scale of 0 divided into NaN codes), and the error still bounds it.
    query = np.zeros(DIM)
    query[0], query[1] = 63 * float(np.float32(1 / 63)), 1e-44
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        coded = quantise_query(query, SAFE_QUERY_CODE_LIMIT)
    assert coded.codes[0][0] == 63 and not coded.codes[1].any()
    assert 1e-44 <= coded.error < 1e-40


def test_every_rows_cosine_lies_within_its_int8_score_and_bound() -> None:
    """What makes the re-scored top-k exact: each row's cosine with the query lies within
    ``bound`` of its int8 score, for the query code limits this machine's product is exact for.
    The rows include, per query, the worst aligned ones for its first level of codes: the
    direction of what that level's rounding leaves out (a score that forgot the second level is
    wrong by about that much there). And the bound stays narrow: the query's share is small."""
    from kenning.backends.vectorfile import (
        SAFE_QUERY_CODE_LIMIT,
        int8_scores,
        quantise,
        quantise_query,
        query_code_limit,
        row_terms,
    )

    queries = vectors(12, 21)
    for limit in sorted({SAFE_QUERY_CODE_LIMIT, query_code_limit()}):
        worst = []
        for q in queries.astype(np.float64):
            coded = quantise_query(q, limit)
            first_left = q - coded.codes[0] * np.float64(coded.scales[0])
            worst += [first_left, -first_left, first_left + 0.1 * q]
        rows = np.vstack([vectors(300, 5), np.array(worst)])
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        rows = rows.astype(np.float32)
        blobs = [(i + 1, "g", "c", "t", row.tobytes()) for i, row in enumerate(rows)]
        table = quantise(blobs, DIM)
        for q in queries:
            coded = quantise_query(q, limit)
            approx, bound = int8_scores(table, row_terms(table), coded)
            cosine = rows.astype(np.float64) @ q.astype(np.float64)
            assert np.all(np.abs(cosine - approx) <= bound), limit
            assert float(np.median(bound)) < 0.03
            assert coded.error * float(np.max(table["norm"])) < 0.1 * float(np.median(bound))


@pytest.mark.parametrize("damage", ["codes read as zeros", "a zeroed disk block", "one scale byte"])
def test_doctor_names_a_damaged_record_and_its_fix_mends_search(db: Path, damage: str) -> None:
    """QA C2: damaged bytes in one record (its codes read as zeros) hid that memory from
    every search, its int8 bound being ~0 so it was never re-scored, and `kenning doctor`
    said all was well (searches check only the header and the last record). Doctor now
    compares every record with what its memory's vector quantises to, names the memory
    and says to delete the file; once deleted, the next search rebuilds it and finds the
    memory again."""
    from kenning.doctor import run_doctor

    dtype = record_dtype(DIM)
    spot = 1234
    if damage == "a zeroed disk block":  # one whose 4 KiB block ends inside its codes
        spot = next(
            i for i in range(1234, 2000) if (HEADER_BYTES + i * dtype.itemsize) % 4096 > 4096 - DIM
        )
    backend = SQLiteBackend(db, create=False)
    backend.upsert(records(3000, vectors(20, 2)))  # appended records are compared too
    rows = sqlite_rows(db)
    victim = rows[spot]
    query = np.frombuffer(victim[5], dtype=np.float32)
    assert backend.vector_search(query, 1, Filters())[0].memory.id == victim[1]
    backend.close()
    vector_file = db.parent / (db.name + ".vectors")
    where = HEADER_BYTES + spot * dtype.itemsize
    raw = bytearray(vector_file.read_bytes())
    if damage == "codes read as zeros":  # QA C2's repro
        raw[where : where + DIM] = bytes([128]) * DIM
    elif damage == "a zeroed disk block":  # and the records before it, rowids and all
        block = where // 4096 * 4096
        raw[block : block + 4096] = bytes(4096)
    else:
        raw[where + dtype.fields["scale"][1] + 3] ^= 0x01
    vector_file.write_bytes(bytes(raw))
    if damage == "codes read as zeros":  # what the user met: the memory is not found
        searcher = SQLiteBackend(db, create=False)
        found = [h.memory.id for h in searcher.vector_search(query, 10, Filters())]
        searcher.close()
        assert victim[1] not in found
    index = run_doctor(store_path=db, cwd=db.parent).check("index")
    assert index.status == "failed", index
    assert str(vector_file) in index.message and repr(victim[1]) in index.message
    if damage == "a zeroed disk block":
        assert "whose rowid is damaged" in index.message
    assert index.fix is not None and f"rm {vector_file}" in index.fix
    vector_file.unlink()  # the fix
    searcher = SQLiteBackend(db, create=False)
    assert searcher.vector_search(query, 1, Filters())[0].memory.id == victim[1]
    searcher.close()
    assert run_doctor(store_path=db, cwd=db.parent).check("index").status == "ok"


def test_doctor_takes_no_record_appended_after_its_snapshot_for_damage(
    built_db: Path, queries: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process's search appends a new row's record to the file after doctor took
    its read snapshot, before it reads the file: no row of the snapshot has that rowid, and
    it is no damage (qa-s66a D1: "1 whose rowid is damaged", and the advice to delete)."""
    from kenning.backends import vectorfile
    from kenning.doctor import run_doctor

    db = built_db
    backend = SQLiteBackend(db, create=False)
    backend.vector_search(queries[0], 5, Filters())
    real = vectorfile.damaged_records

    def appended_meanwhile(*args: Any, **kwargs: Any) -> Any:
        backend.upsert(records(5000, vectors(1, 5000)))
        backend.vector_search(queries[0], 5, Filters())  # appends its record
        return real(*args, **kwargs)

    monkeypatch.setattr(vectorfile, "damaged_records", appended_meanwhile)
    index = run_doctor(store_path=db, cwd=db.parent).check("index")
    backend.close()
    assert index.status == "ok", index


def test_doctor_finds_no_damage_in_a_file_kept_in_step_by_appends_and_deletes(
    db: Path, queries: np.ndarray
) -> None:
    """Records written in batches of any size (a rebuild, appends of one row, a compaction)
    compare equal to their rows quantised again: no false alarm; nor one for records of
    rows deleted since the file was last written (compacted by the next search)."""
    from kenning.doctor import run_doctor

    backend = SQLiteBackend(db, create=False)
    backend.vector_search(queries[0], 5, Filters())
    for start in (3000, 3001, 3005):
        backend.upsert(records(start, vectors(1 if start < 3005 else 40, start)))
        backend.vector_search(queries[0], 5, Filters())
    assert run_doctor(store_path=db, cwd=db.parent).check("index").status == "ok"
    ids = [r[1] for r in sqlite_rows(db)[100:110]]
    assert backend.delete(ids) == len(ids)  # the file still holds their records
    backend.close()
    index = run_doctor(store_path=db, cwd=db.parent).check("index")
    assert index.status == "ok", index


def _bounds(kind: str, size: int, rng: np.random.Generator) -> np.ndarray:
    values = rng.standard_normal(size).astype(np.float32)
    if kind == "ties":
        values = np.round(values, 1)
    elif kind == "nan":
        values[rng.integers(0, size, size // 50)] = np.nan
    elif kind == "sorted":  # a sample of the smallest
        values.sort()
    elif kind == "sample-low":  # every sampled value below every other
        values[::16] = -5
    elif kind == "sample-high":  # above every other: too few values are not below its cut
        values[::16] += 10
    return values


@pytest.mark.parametrize("kind", ["plain", "ties", "nan", "sorted", "sample-low", "sample-high"])
def test_the_nth_largest_bound_is_the_one_a_partition_of_all_gives(kind: str) -> None:
    """A search's k-th best lower bound, found among the values a sample does not put below
    it, is the value partitioning every bound gives (NaN ordered above every number), for a
    sample like the rest and one unlike it (where all are partitioned)."""
    rng = np.random.default_rng(7)
    for size in (100, 4096, 10_000, 30_000):
        values = _bounds(kind, size, rng)
        for n in [n for n in (1, 5, 20, 64, 320, size) if n <= size]:
            expected = np.partition(values, size - n)[size - n]
            assert np.asarray(nth_largest(values, n)).tobytes() == expected.tobytes()
