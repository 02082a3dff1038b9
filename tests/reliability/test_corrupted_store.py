"""Damaged stores, and ``kenning doctor``.

Each case copies a healthy store (60 memories, made with the real model) into a fresh
project and damages it: truncated at several offsets, overwritten with garbage, a corrupt
page in the middle, a future schema version, a missing FTS table or one of its shadow
tables, a missing vector column, a vector of the wrong size, a WAL file of garbage. Then
every surface that opens it must either work with every memory intact, or fail with a
clear message that says what happened and how to recover (``kenning import`` from a
backup, ``kenning doctor``, ``kenning reembed``, upgrading) — never a traceback, never
silent data loss, and the damaged file is not modified by opening it.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kenning import open_store
from kenning.backends import sqlite as sqlite_backend
from kenning.backends.base import Filters
from kenning.doctor import expected_provenance, run_doctor
from kenning.embedders.base import Embedder
from kenning.errors import KenningError, StoreCorrupted

from ..conftest import make_repo
from .conftest import assert_clean_outcome, file_digest, random_note, run_kenning

N = 60
RECOVERY_WORDS = ("kenning import", "kenning doctor", "kenning reembed", "upgrade kenning")


@pytest.fixture(scope="module")
def golden(tmp_path_factory: pytest.TempPathFactory, minilm: Embedder) -> dict[str, Any]:
    """A healthy, checkpointed store and its contents."""
    root = make_repo(tmp_path_factory.mktemp("golden") / "proj", "git@github.com:Acme/Gold.git")
    rng = random.Random(5)
    with open_store(cwd=root, embedder=minilm) as store:
        from kenning.store import NewMemory

        results = store.remember_many([NewMemory(random_note(rng), "context") for _ in range(N)])
        assert all(r.status == "stored" for r in results)
        contents = {r.memory.id: r.memory.content for r in store.backend.iterate(Filters())}
    db = root / ".kenning" / "memory.db"
    assert not (root / ".kenning" / "memory.db-wal").exists()  # closed: checkpointed
    page_size = sqlite3.connect(db).execute("PRAGMA page_size").fetchone()[0]
    return {"db": db, "contents": contents, "size": db.stat().st_size, "page": page_size}


def _project(tmp_path: Path, golden: dict[str, Any]) -> tuple[Path, Path]:
    root = make_repo(tmp_path / "proj", "git@github.com:Acme/Gold.git")
    (root / ".kenning").mkdir()
    # the store's folder as kenning makes it, its .gitignore too (doctor warns of a store
    # git does not ignore)
    from kenning.project import STORE_GITIGNORE

    (root / ".kenning" / ".gitignore").write_text(STORE_GITIGNORE)
    db = root / ".kenning" / "memory.db"
    shutil.copyfile(golden["db"], db)
    return root, db


def _truncate(offset: int) -> Callable[[Path, dict[str, Any]], None]:
    def damage(db: Path, golden: dict[str, Any]) -> None:
        with db.open("r+b") as fh:
            fh.truncate(offset if offset >= 0 else golden["size"] + offset)

    return damage


def _garbage(db: Path, golden: dict[str, Any]) -> None:
    db.write_bytes(random.Random(1).randbytes(golden["size"]))


def _corrupt_page(db: Path, golden: dict[str, Any]) -> None:
    """Bit rot in the middle of the file: the header (and so the open) is fine."""
    rng = random.Random(2)
    with db.open("r+b") as fh:
        for page in range(3, golden["size"] // golden["page"], 3):
            fh.seek(page * golden["page"] + 64)
            fh.write(rng.randbytes(golden["page"] // 2))


def _sql(*statements: str) -> Callable[[Path, dict[str, Any]], None]:
    def damage(db: Path, golden: dict[str, Any]) -> None:
        conn = sqlite3.connect(db, isolation_level=None)
        for statement in statements:
            conn.execute(statement)
        conn.close()

    return damage


def _garbage_wal(db: Path, golden: dict[str, Any]) -> None:
    db.with_name(db.name + "-wal").write_bytes(random.Random(3).randbytes(64 * 1024))


CASES: dict[str, Callable[[Path, dict[str, Any]], None]] = {
    "truncated-100": _truncate(100),
    "truncated-4096": _truncate(4096),
    "truncated-half": lambda db, g: _truncate(g["size"] // 2)(db, g),
    "truncated-last-page": lambda db, g: _truncate(g["size"] - g["page"] - 100)(db, g),
    "truncated-tail": _truncate(-100),
    "garbage-file": _garbage,
    "corrupt-pages": _corrupt_page,
    "future-schema": _sql("PRAGMA user_version = 99"),
    "missing-fts": _sql(
        "DROP TRIGGER memories_ai",
        "DROP TRIGGER memories_ad",
        "DROP TRIGGER memories_au",
        "DROP TABLE memories_terms",
        "DROP TABLE memories_fts",
    ),
    # a shadow table of the FTS5 index dropped: the open's schema check sees memories_fts
    # itself, and SQLite answers a query with its generic error ("SQL logic error", "no such
    # fts5 table"), which must still be reported as damage
    **{
        f"missing-fts_{name}": _sql(f"DROP TABLE memories_fts_{name}")
        for name in ("data", "idx", "docsize", "config")
    },
    "missing-vectors": _sql("ALTER TABLE memories DROP COLUMN embedding"),
    "missing-seen-count": _sql("ALTER TABLE memories DROP COLUMN seen_count"),
    "wrong-size-vector": _sql("UPDATE memories SET embedding = x'00112233' WHERE rowid = 7"),
    "garbage-wal": _garbage_wal,
}
#: Damage that destroys nothing (SQLite ignores a WAL whose header is not valid; a cut
#: that only removes unused space): every memory must still be there.
HARMLESS = {"garbage-wal"}
#: Damage to one row: every read still works (the row's vector is left out of vector
#: search with a warning, its memory is whole), and doctor reports it with the fix. A cut
#: of 100 bytes at the end of the file lands in the last row's vector (read back with
#: zeros: its length is 0.976), which went unnoticed before vectors were checked.
DEGRADED = {"wrong-size-vector", "truncated-tail"}
#: The full-text index or one of its shadow tables dropped: the rows are intact, so
#: `kenning export` still reads them out (the rebuild that the error and doctor name).
FTS_LOST = {"missing-fts", *(f"missing-fts_{n}" for n in ("data", "idx", "docsize", "config"))}


def _api_outcomes(root: Path, minilm: Embedder, contents: dict[str, str]) -> dict[str, str]:
    """Every store operation: 'ok', or the KenningError message — any other exception fails."""
    outcomes: dict[str, str] = {}

    def attempt(name: str, func: Callable[[], Any]) -> Any:
        try:
            value = func()
        except KenningError as exc:
            outcomes[name] = f"error: {exc}"
            return None
        outcomes[name] = "ok"
        return value

    store = attempt("open", lambda: open_store(cwd=root, create=False, embedder=minilm))
    if store is None:
        return outcomes
    with store:
        attempt("stats", store.stats)
        attempt("recall", lambda: store.recall("the note about the random words", group_id="all"))
        attempt("search", lambda: store.search("random words", group_id="all", threshold=0.0))
        exported = attempt("export", lambda: list(store.backend.iterate(Filters())))
        if exported is not None:
            outcomes["export_rows"] = str(len(exported))
            outcomes["export_intact"] = str(
                {r.memory.id: r.memory.content for r in exported} == contents
            )
    return outcomes


@pytest.mark.parametrize("case", list(CASES))
def test_damaged_store(
    case: str, tmp_path: Path, golden: dict[str, Any], minilm: Embedder, full: bool, recorder: Any
) -> None:
    root, db = _project(tmp_path, golden)
    CASES[case](db, golden)
    damaged = file_digest(db)

    # the Python API: intact data, or KenningError with a recovery hint
    api = _api_outcomes(root, minilm, golden["contents"])
    errors = {k: v for k, v in api.items() if v.startswith("error:")}
    for name, message in errors.items():
        assert any(w in message for w in RECOVERY_WORDS), (name, message)
    if "export_intact" in api:  # readable: then nothing may be silently missing
        assert api["export_intact"] == "True", (case, api)
    intact = not errors and api.get("export_intact") == "True"
    if case in HARMLESS:
        assert intact, api
    assert errors or intact, (case, api)

    # the CLI: one clear line, exit 1, or a correct answer; doctor agrees with the API. The
    # query holds a word of the notes, so that its full-text lookup runs
    stored_word = min(golden["contents"].values()).split()[1]
    commands = [
        ["recall", "--project", "all", f"random words note {stored_word}"],
        ["doctor", "--json"],
    ]
    if case in FTS_LOST:  # the rows are intact: the rebuild the message names can start
        commands.append(["export", "--group-id", "all"])
    if full:
        commands += [["stats"], ["search", "--group-id", "all", "words"], ["export"]]
    cli: dict[str, int] = {}
    for argv in commands:
        proc = run_kenning(root, *argv)
        cli[argv[0]] = proc.returncode
        if argv[0] == "doctor":  # its report is the message
            assert b"Traceback" not in proc.stderr and proc.returncode in (0, 1)
            report = json.loads(proc.stdout)
            healthy = intact and case not in DEGRADED
            assert report["healthy"] is (proc.returncode == 0) is healthy, report
            failed = [c for c in report["checks"] if c["status"] == "failed"]
            assert all(c["fix"] for c in failed), report
            continue
        assert_clean_outcome(proc, f"{case}: kenning {' '.join(argv)}")
        if argv[0] in ("recall", "search") or intact:  # these need every vector and the FTS
            assert (proc.returncode == 0) is intact, proc.stderr
        elif case in FTS_LOST and argv[0] == "export":
            assert proc.returncode == 0, proc.stderr
            assert len(proc.stdout.splitlines()) == N + 1, proc.stderr
        elif proc.returncode == 0 and argv[0] == "export":  # then it is complete
            assert len(proc.stdout.splitlines()) == N + 1, proc.stderr
        elif proc.returncode == 0:  # stats: counts from the indexes, which are intact
            assert f"{N} in the store".encode() in proc.stdout, proc.stdout
        if proc.returncode == 1:
            message = proc.stderr.decode()
            assert any(w in message for w in RECOVERY_WORDS), message
    if not intact:
        # opening (and doctor) did not touch the damaged file
        assert file_digest(db) == damaged, "opening a damaged store modified it"
        # a write is refused, and still leaves the file as it was
        proc = run_kenning(root, "remember", "a brand new note about lighthouses and fog")
        assert_clean_outcome(proc, f"{case}: remember")
        assert proc.returncode == 1
        assert any(w in proc.stderr.decode() for w in RECOVERY_WORDS), proc.stderr
        assert file_digest(db) == damaged, "a refused write modified the damaged store"
    recorder(
        f"corrupted_{case}",
        {
            "intact": intact,
            "api": {k: v.replace(str(db), "<store>")[:200] for k, v in api.items()},
            "cli": cli,
        },
    )


#: The SQLite backend's public methods that are not guarded, and why: none of them meets a
#: damaged file on its own (fork hooks, closing, file checks, the damaged rows already met,
#: kept in memory, and the vector file's row sources, which guarded searches call inside
#: their own guard).
UNGUARDED = {
    "after_fork",
    "after_fork_in_parent",
    "before_fork",
    "check_writable",
    "close",
    "damaged_rows",
    "replaced",
    "rowids",
    "rows",
}


def test_every_public_method_of_the_sqlite_backend_is_guarded() -> None:
    """A method left out of the guard list lets ``sqlite3.DatabaseError`` escape as a
    traceback (a hook's "unexpected OperationalError") where the others name the damage: SQLite's
    own ``lexical_search_with_statistics`` was added unguarded once, and a dropped full-text
    table then broke every recall instead of naming the table."""
    import inspect

    public = {
        name
        for name, value in vars(sqlite_backend.SQLiteBackend).items()
        if not name.startswith("_") and inspect.isfunction(value)
    }
    unguarded = {
        name
        for name in public
        if not hasattr(getattr(sqlite_backend.SQLiteBackend, name), "__wrapped__")
    }
    assert unguarded == UNGUARDED


@pytest.mark.parametrize("table", ["memories_fts_idx", "memories_fts_config"])
def test_fts_table_dropped_while_the_store_is_open(
    table: str, tmp_path: Path, golden: dict[str, Any], minilm: Embedder
) -> None:
    """A store already open (the MCP server's) whose full-text index loses a table: its
    queries meet SQLite's generic error, reported as damage with the recovery hint, never
    as a bare sqlite3.OperationalError."""
    root, db = _project(tmp_path, golden)
    with open_store(cwd=root, create=False, embedder=minilm) as store:
        assert store.search("random words", group_id="all", threshold=0.0)
        _sql(f"DROP TABLE {table}")(db, golden)
        for query in (
            lambda: store.recall("the note about the random words", group_id="all"),
            lambda: store.search("random words", group_id="all", threshold=0.0),
        ):
            with pytest.raises(StoreCorrupted) as info:
                query()
            assert table in str(info.value) and "kenning export" in str(info.value)


def test_locked_store_is_not_called_corrupted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store another process holds locked is busy, not damaged: the message must not tell
    the user to move a healthy store aside."""
    monkeypatch.setattr(sqlite_backend, "BUSY_TIMEOUT_S", 0.2)
    db = tmp_path / "memory.db"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("CREATE TABLE t (x)")
    try:
        with pytest.raises(KenningError) as info:
            sqlite_backend.SQLiteBackend(db)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert not isinstance(info.value, StoreCorrupted), info.value
    assert "locked" in str(info.value) and "aside" not in str(info.value)


# -- kenning doctor ---------------------------------------------------------------------------


def test_doctor_healthy_store(tmp_path: Path, golden: dict[str, Any]) -> None:
    root, db = _project(tmp_path, golden)
    before = file_digest(db)
    proc = run_kenning(root, "doctor", "--json")
    assert proc.returncode == 0, proc.stdout
    report = json.loads(proc.stdout)
    assert report["healthy"] is True
    assert [c["name"] for c in report["checks"]] == [
        "location",
        "store",
        "schema",
        "integrity",
        "provenance",
        "index",
        "rows",
        "project",
        "settings",
    ]
    assert all(c["status"] == "ok" for c in report["checks"]), report
    assert "matching the current embedder" in report["checks"][4]["message"]
    assert f"{N} memories, {N} full-text rows" in report["checks"][5]["message"]
    assert f"all {N} rows decode" in report["checks"][6]["message"]
    text = run_kenning(root, "doctor")
    assert text.returncode == 0 and b"ok      integrity" in text.stdout
    assert file_digest(db) == before


def test_doctor_expected_provenance_is_the_model(minilm: Embedder) -> None:
    """The cheap provenance (no model load) is exactly what the loaded model stamps."""
    assert expected_provenance() == minilm.provenance


def test_doctor_without_a_store(project: Path) -> None:
    proc = run_kenning(project, "doctor", "--json")
    assert proc.returncode == 0
    report = json.loads(proc.stdout)
    assert report["healthy"] and report["checks"][1]["message"].startswith("no store yet")
    assert not (project / ".kenning").exists()


def test_doctor_fails_an_emptied_store_whose_vector_file_indexes_rows(
    tmp_path: Path, golden: dict[str, Any]
) -> None:
    """A store file emptied (a truncating copy, a sync tool) read as a new, empty store by
    every command; its vector file still says how many notes it held, and doctor says so.
    A store file created and never initialised, with no vector file, stays ok."""
    root, db = _project(tmp_path, golden)
    with open_store(cwd=root) as store:
        assert not store.recall("anything at all about the store").is_error  # vector file made
    vectors = db.with_name("memory.db.vectors")
    assert vectors.exists()
    for sidecar in ("memory.db-wal", "memory.db-shm"):
        db.with_name(sidecar).unlink(missing_ok=True)
    db.write_bytes(b"")
    proc = run_kenning(root, "doctor", "--json")
    assert proc.returncode == 1, proc.stdout
    schema = {c["name"]: c for c in json.loads(proc.stdout)["checks"]}["schema"]
    assert schema["status"] == "failed"
    assert f"memory.db.vectors beside it indexes {N} memories" in schema["message"]
    assert "restore memory.db from a backup" in schema["fix"]
    vectors.unlink()
    assert _checks(root)["schema"].status == "ok"


def test_doctor_outside_a_project(tmp_path: Path) -> None:
    outside = tmp_path / "nowhere"
    outside.mkdir()
    proc = run_kenning(outside, "doctor")
    assert proc.returncode == 1
    assert b"failed  location" in proc.stdout and b"not inside a git repository" in proc.stdout


def test_doctor_store_outside_the_project(tmp_path: Path, golden: dict[str, Any]) -> None:
    root, _ = _project(tmp_path, golden)
    elsewhere = tmp_path / "elsewhere"
    shutil.move(root / ".kenning", elsewhere)
    os.symlink(elsewhere, root / ".kenning")
    report = run_doctor(cwd=root)
    assert not report.healthy
    assert report.check("location").status == "failed"
    assert "outside the project" in report.check("location").message


def _checks(root: Path) -> dict[str, Any]:
    return {c.name: c for c in run_doctor(cwd=root).checks}


def test_doctor_finds_index_problems(tmp_path: Path, golden: dict[str, Any]) -> None:
    root, db = _project(tmp_path, golden)
    conn = sqlite3.connect(db, isolation_level=None)
    # a memory whose full-text row is gone (the trigger bypassed), and a short vector
    conn.execute(
        "INSERT INTO memories_fts (memories_fts, rowid, content) "
        "SELECT 'delete', rowid, content FROM memories WHERE rowid = 3"
    )
    conn.execute("UPDATE memories SET embedding = x'0000803f' WHERE rowid = 5")
    conn.close()
    checks = _checks(root)
    index = checks["index"]
    assert index.status == "failed"
    assert f"{N} memories but {N - 1} full-text rows" in index.message
    assert "kenning import" in (index.fix or "")
    rows = checks["rows"]
    assert rows.status == "failed" and "vector has 1 dimensions, not 384" in rows.message
    assert "kenning reembed" in (rows.fix or "")


def test_doctor_finds_fts_content_mismatch(tmp_path: Path, golden: dict[str, Any]) -> None:
    """Same row count, different words: only FTS5's own integrity-check sees it."""
    root, db = _project(tmp_path, golden)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("DROP TRIGGER memories_au")
    conn.execute("UPDATE memories SET content = 'entirely different words now' WHERE rowid = 4")
    conn.execute(
        "CREATE TRIGGER memories_au AFTER UPDATE ON memories BEGIN "
        "INSERT INTO memories_fts (memories_fts, rowid, content) "
        "VALUES ('delete', old.rowid, old.content); "
        "INSERT INTO memories_fts (rowid, content) VALUES (new.rowid, new.content); END"
    )
    conn.close()
    index = _checks(root)["index"]
    assert index.status == "failed" and "full-text index does not match" in index.message


@pytest.mark.parametrize(
    ("meta", "expect"),
    [
        ({"provenance": None}, "no provenance stamp"),
        ({"provenance": "{broken"}, "unreadable"),
        (
            {
                "provenance": json.dumps(
                    {
                        "embedder": "minilm",
                        "model_id": "other/model",
                        "dimension": 384,
                        "normalised": True,
                        "prefix_policy": "none",
                    }
                )
            },
            "but this kenning uses",
        ),
        ({"reembed_state": '{"target": {}, "last_id": null}'}, "half re-embedded"),
    ],
)
def test_doctor_provenance_problems(
    tmp_path: Path, golden: dict[str, Any], meta: dict[str, str | None], expect: str
) -> None:
    root, db = _project(tmp_path, golden)
    conn = sqlite3.connect(db, isolation_level=None)
    for key, value in meta.items():
        if value is None:
            conn.execute("DELETE FROM meta WHERE key = ?", (key,))
        else:
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
    conn.close()
    check = _checks(root)["provenance"]
    assert check.status == "failed" and expect in check.message, check
    assert "kenning reembed" in (check.fix or "")


def test_doctor_older_schema_is_fine(tmp_path: Path, golden: dict[str, Any]) -> None:
    root, db = _project(tmp_path, golden)
    _sql("DROP TABLE memories_terms", "PRAGMA user_version = 2")(db, golden)
    checks = _checks(root)
    assert (
        checks["schema"].status == "ok"
        and f"migrates it to {sqlite_backend.SCHEMA_VERSION}" in checks["schema"].message
    )


def test_doctors_recovery_never_moves_a_store_over_one_moved_aside_before(
    tmp_path: Path, golden: dict[str, Any]
) -> None:
    """doctor's fix for a damaged file says `mv …/memory.db …/damaged.db` (and the -wal,
    -shm likewise). Followed a second time — the store damaged again after a restore, the
    first damaged copy kept because its notes were not all read out — `mv` replaced the
    earlier damaged.db, and its WAL, without a word. The fix names a place nothing is in."""
    root, db = _project(tmp_path, golden)
    earlier = db.with_name("damaged.db")
    shutil.copyfile(golden["db"], earlier)  # the store moved aside the first time
    earlier.with_name("damaged-2.db-wal").write_bytes(b"")  # a WAL moved aside on its own
    _corrupt_page(db, golden)
    fix = _checks(root)["integrity"].fix or ""
    moved = re.search(r"`mv (\S+) (\S+)`", fix)
    assert moved is not None and moved.group(1) == str(db), fix
    aside = Path(moved.group(2))
    for side in ("", "-wal", "-shm"):
        assert not Path(f"{aside}{side}").exists(), (aside, side, fix)
    assert f"`kenning export --store {aside} " in fix and f"{aside.name}-wal" in fix, fix
