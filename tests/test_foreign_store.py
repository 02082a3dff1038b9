"""A read never changes a file (issue 13, item 7).

``kenning recall --store app.db`` used to add kenning's tables to an application's
database and switch it to WAL. A SQLite file that is not a kenning store is now refused,
by reads and writes alike, and left byte for byte as it was; a read never creates or
migrates schema (an older kenning store is read as it is and upgraded by the next write).
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from kenning import open_store
from kenning.backends.sqlite import SCHEMA_VERSION, SQLiteBackend
from kenning.embedders.base import Embedder
from kenning.errors import KenningError

from .reliability.conftest import assert_clean_outcome, run_kenning


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _app_db(path: Path, *, user_version: int = 0) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    conn.executemany("INSERT INTO customers (name) VALUES (?)", [("ada",), ("grace",)])
    conn.execute(f"PRAGMA user_version = {user_version}")
    conn.commit()
    conn.close()
    return path


@pytest.mark.parametrize("user_version", [0, 7])
@pytest.mark.parametrize(
    "argv",
    [
        ["recall", "customer names"],
        ["search", "customer names"],
        ["stats"],
        ["export"],
        ["remember", "a note that must not land in the application database"],
        ["forget", "00000000-0000-7000-8000-000000000000"],
        ["reembed"],
    ],
    ids=lambda a: a[0],
)
def test_a_foreign_database_is_refused_and_untouched(
    project: Path, argv: list[str], user_version: int
) -> None:
    db = _app_db(project / "app.db", user_version=user_version)
    before = _digest(db)
    proc = run_kenning(project, *argv, "--store", str(db))
    assert_clean_outcome(proc, " ".join(argv))
    assert proc.returncode == 1, proc.stdout
    err = proc.stderr.decode()
    assert "not a kenning store" in err, err
    assert _digest(db) == before
    assert not db.with_name("app.db-wal").exists()
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["customers"]
    conn.close()


@pytest.mark.parametrize("user_version", [0, 7])
def test_doctor_names_a_foreign_database_without_telling_to_move_it(
    project: Path, user_version: int
) -> None:
    """`kenning doctor --store app.db` told the user to move another application's database
    aside and restore a kenning backup in its place (or, at user_version 7, to upgrade
    kenning), where every command says it is not a kenning store and leaves it alone."""
    from kenning.doctor import run_doctor

    db = _app_db(project / "app.db", user_version=user_version)
    before = _digest(db)
    schema = run_doctor(db, project).check("schema")
    assert schema.status == "failed" and "not a kenning store" in schema.message, schema
    assert "customers" in schema.message
    fix = schema.fix or ""
    assert "KENNING_STORE" in fix and "move" not in fix and "upgrade" not in fix, fix
    assert _digest(db) == before


def test_doctor_names_a_file_that_is_no_database_as_the_wrong_file(project: Path) -> None:
    """`kenning doctor --store notes.txt` said "SQLite cannot read notes.txt" and told the
    user to move it aside and restore a backup, where every command says it is not a
    kenning store at all and leaves it alone."""
    from kenning.doctor import run_doctor

    notes = project / "notes.txt"
    notes.write_text("hello, these are my notes\n")
    check = run_doctor(notes, project).check("store")
    assert check.status == "failed" and "not a kenning store" in check.message, check
    assert (check.fix or "").startswith("point --store or KENNING_STORE"), check.fix
    assert notes.read_text() == "hello, these are my notes\n"


def test_the_backend_refuses_a_foreign_database_for_writes_too(tmp_path: Path) -> None:
    db = _app_db(tmp_path / "app.db")
    before = _digest(db)
    for create in (True, False):
        with pytest.raises(KenningError, match="not a kenning store"):
            SQLiteBackend(db, create=create)
    assert _digest(db) == before


def _older_store(project: Path, minilm: Embedder) -> Path:
    with open_store(cwd=project, embedder=minilm) as store:
        for text in (
            "Use snake_case for Python function names.",
            "We chose PostgreSQL over MySQL for its JSONB support.",
        ):
            assert store.remember(text, "context").status == "stored"
    db = project / ".kenning" / "memory.db"
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("DROP TABLE memories_terms")  # migration 3 undone
    conn.execute("DROP INDEX memories_fingerprint")  # migration 2 undone
    conn.execute("ALTER TABLE memories DROP COLUMN last_seen_at")  # migration 6 undone
    conn.execute("ALTER TABLE memories DROP COLUMN seen_count")
    conn.execute("PRAGMA user_version = 1")
    conn.close()
    return db


def test_a_read_of_an_older_store_does_not_migrate_it(project: Path, minilm: Embedder) -> None:
    db = _older_store(project, minilm)
    before = _digest(db)
    with open_store(cwd=project, embedder=minilm, create=False) as store:
        hits = store.recall("PostgreSQL or MySQL").hits
        assert hits and "PostgreSQL" in hits[0].memory.content
        lexical = store.retrieve("PostgreSQL JSONB", 5, filters_all(), mode="lexical")
        assert lexical and "PostgreSQL" in lexical[0].memory.content
        assert store.search("python naming", threshold=0.2).results
        assert store.count() == 2
    assert _digest(db) == before
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    conn.close()
    # the next write upgrades it
    with open_store(cwd=project, embedder=minilm) as store:
        assert store.remember("Feature flags are evaluated server side.", "context").ok
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


def test_a_write_through_a_read_handle_upgrades_first(project: Path, minilm: Embedder) -> None:
    """forget and reembed open the store without creating it; their write upgrades it."""
    db = _older_store(project, minilm)
    with open_store(cwd=project, embedder=minilm, create=False) as store:
        memory = store.newest(1)[0]
        assert store.forget(memory.id)
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


def filters_all():  # type: ignore[no-untyped-def]
    from kenning.backends.base import Filters

    return Filters()


def test_an_upgrade_waiting_past_the_busy_timeout_changes_nothing_and_says_so(
    project: Path, minilm: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The migration before a reader's first write takes the write lock too: another process
    holding it past SQLite's wait is the same clear refusal as for any write (it escaped as
    ``sqlite3.OperationalError: database is locked``)."""
    from kenning.backends import sqlite as sqlite_backend
    from kenning.errors import StoreWriteFailed

    db = _older_store(project, minilm)
    monkeypatch.setattr(sqlite_backend, "BUSY_TIMEOUT_S", 0.3)  # SQLite's wait, shortened
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with open_store(cwd=project, embedder=minilm, create=False) as store:
            memory = store.newest(1)[0]
            with pytest.raises(StoreWriteFailed, match="another process has held its write lock"):
                store.forget(memory.id)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 2
    conn.close()
