"""``forget`` leaves no byte of the memory in the store files (issue 13, item 3).

The raw files (``memory.db`` and, while a connection is open, ``memory.db-wal`` and
``-shm``) are searched for the forgotten memory's distinctive words, its id, its source,
its tag and its vector's bytes. Before the fix its words survived in the FTS5 index
(``memories_fts_data``), in the free pages SQLite left unzeroed, and in the WAL.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kenning import MemoryStore, open_store
from kenning.backends.base import MemoryRecord
from kenning.backends.vectorfile import quantise
from kenning.embedders.base import Embedder
from kenning.errors import StoreWriteFailed
from kenning.model import content_hash

from .cli_runner import _logging_as_in_a_process, run_cli
from .conftest import make_repo, session_folder, written_once_per_session
from .forking import run_python
from .reliability.conftest import run_kenning

SECRET_WORDS = ("zanzibarquokka", "xylophonistic", "quibblemarsh")
SECRET = (
    f"The {SECRET_WORDS[0]} deployment key rotates weekly; ask the {SECRET_WORDS[1]} team "
    f"before touching the {SECRET_WORDS[2]} cluster."
)
OTHERS = [
    "Use snake_case for Python function names.",
    "We chose PostgreSQL over MySQL for its JSONB support.",
    "The CI pipeline caches node_modules keyed by the lockfile hash.",
    "Feature flags are evaluated server side only.",
]


def _files(db: Path) -> dict[str, bytes]:
    derived = (".vectors", ".ann")  # the int8 copy of the vectors and the ANN graph
    return {
        p.name: p.read_bytes()
        for p in (
            db,
            db.with_name(db.name + "-wal"),
            db.with_name(db.name + "-shm"),
            *(db.with_name(db.name + suffix) for suffix in derived),
        )
        if p.exists()
    }


def _leftovers(db: Path, needles: dict[str, bytes]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for name, data in _files(db).items():
        hits = [label for label, needle in needles.items() if needle in data]
        if hits:
            found[name] = hits
    return found


def _needles(store: MemoryStore, memory_id: str) -> dict[str, bytes]:
    vector = store.backend.get_vectors([memory_id])[memory_id]
    needles = {word: word.encode() for word in SECRET_WORDS}
    needles["id"] = memory_id.encode()
    needles["source"] = b"docs/quokka-runbook.md"
    needles["tag"] = b"quokkatag"
    needles["vector"] = np.ascontiguousarray(vector, dtype=np.float32).tobytes()[:64]
    # its int8 codes as the vector file holds them
    row = (1, "g", "c", "t", np.ascontiguousarray(vector, dtype=np.float32).tobytes())
    needles["int8 codes"] = quantise([row], len(vector))["codes"][0].tobytes()[:64]
    return needles


def _remember_all(store: MemoryStore) -> str:
    for text in OTHERS[:2]:
        assert store.remember(text, "context").status == "stored"
    secret = store.remember(SECRET, "context", source="docs/quokka-runbook.md", tags=["quokkatag"])
    assert secret.status == "stored" and secret.id
    for text in OTHERS[2:]:
        assert store.remember(text, "context").status == "stored"
    return secret.id


def test_forget_erases_every_byte_while_the_store_stays_open(
    store: MemoryStore, minilm: Embedder
) -> None:
    memory_id = _remember_all(store)
    db = Path(store.backend.location)
    needles = _needles(store, memory_id)
    assert set(_leftovers(db, needles).get("memory.db", [])) | set(
        _leftovers(db, needles).get("memory.db-wal", [])
    ) >= set(SECRET_WORDS), "the test must see the words before forget"
    store.recall("what do we know about quokkas")  # a search writes the vector file
    assert "int8 codes" in _leftovers(db, needles).get("memory.db.vectors", [])
    # a second process (another agent) keeps the store open throughout
    with open_store(cwd=store.project.root, embedder=minilm, create=False) as other:
        assert other.count() == 5
        assert store.forget(memory_id)
        assert _leftovers(db, needles) == {}
        assert other.count() == 4
    # the rest is intact and still found, by words and by meaning
    assert store.count() == 4
    assert store.recall("PostgreSQL or MySQL").hits
    hits = store.recall("how are python functions named").hits
    assert hits and hits[0].memory.content == OTHERS[0]


def test_forget_erases_the_terms_from_the_fts_tables(store: MemoryStore) -> None:
    memory_id = _remember_all(store)
    assert store.forget(memory_id)
    conn = sqlite3.connect(f"file:{store.backend.location}?mode=ro", uri=True)
    try:
        vocabulary = {r[0] for r in conn.execute("SELECT term FROM memories_terms")}
        blobs = b"".join(r[0] for r in conn.execute("SELECT block FROM memories_fts_data"))
        idx = b"".join(bytes(r[0]) for r in conn.execute("SELECT term FROM memories_fts_idx"))
    finally:
        conn.close()
    for word in SECRET_WORDS:
        assert word not in vocabulary
        assert word.encode() not in blobs
        assert word.encode() not in idx
    assert "postgresql" in vocabulary  # the index still holds the others


def test_cli_forget_leaves_nothing_in_the_files(project: Path, minilm: Embedder) -> None:
    with open_store(cwd=project, embedder=minilm) as store:
        memory_id = _remember_all(store)
        needles = _needles(store, memory_id)
    proc = run_kenning(project, "forget", memory_id)
    assert proc.returncode == 0, proc.stderr
    assert _leftovers(project / ".kenning" / "memory.db", needles) == {}


@pytest.mark.parametrize("memories", [1, 40])
def test_forget_of_every_memory_leaves_no_text(project: Path, memories: int) -> None:
    """(The hashing embedder: what a forget must erase is the notes' text wherever it went,
    whatever embedded it; MiniLM spent ~0.17 CPU-s on the 40 notes.)"""
    from kenning.store import NewMemory

    notes = [
        NewMemory(f"Note {i}: the {SECRET_WORDS[i % 3]} runbook step {i}") for i in range(memories)
    ]
    with open_store(cwd=project, embedder="hashing") as store:
        results = store.remember_many(notes, near_duplicates=False)
        ids = [r.id for r in results if r.id]
        assert len(ids) == memories and len(set(ids)) == memories
        for memory_id in ids:
            assert store.forget(memory_id)
        db = Path(store.backend.location)
        assert _leftovers(db, {w: w.encode() for w in SECRET_WORDS}) == {}
        assert store.count() == 0


def test_upgrading_an_older_store_wipes_text_it_deleted_before(
    store: MemoryStore, minilm: Embedder
) -> None:
    """A store written before secure_delete was on may hold a deleted row's text in its
    free pages; the migration that turns it on rewrites the file once (VACUUM)."""
    memory_id = _remember_all(store)
    db = Path(store.backend.location)
    store.close()
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA secure_delete = OFF")
    conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,))  # the old forget
    conn.execute("ALTER TABLE memories DROP COLUMN last_seen_at")  # migration 6 undone
    conn.execute("ALTER TABLE memories DROP COLUMN seen_count")
    conn.execute("PRAGMA user_version = 3")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    words = {w: w.encode() for w in SECRET_WORDS}
    assert _leftovers(db, words), "the old way of deleting must leave the text behind"
    with open_store(cwd=store.project.root, embedder=minilm) as upgraded:  # a writer
        assert upgraded.count() == 4
        assert _leftovers(db, words) == {}
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] >= 4
    conn.close()


def test_an_upgrade_beside_a_reader_does_not_wait_for_it_to_copy_its_rewrite(
    store: MemoryStore, minilm: Embedder, caplog: pytest.LogCaptureFixture
) -> None:
    """Another process holding a read (a backup, a sqlite3 shell) while the owed VACUUM
    runs: the rewrite's pages cannot be copied into the file until it is done. The write
    that ran it waited the whole busy timeout for it, silently (qa-s66a C1); it goes on at
    once, says where the text still is, and the next command copies them."""
    import time

    memory_id = _remember_all(store)
    db = Path(store.backend.location)
    store.close()
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA secure_delete = OFF")
    conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,))
    conn.execute("ALTER TABLE memories DROP COLUMN last_seen_at")
    conn.execute("ALTER TABLE memories DROP COLUMN seen_count")
    conn.execute("PRAGMA user_version = 3")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    words = {w: w.encode() for w in SECRET_WORDS}
    reader = sqlite3.connect(db, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM memories").fetchone()  # its snapshot held
    try:
        started = time.monotonic()
        with (
            caplog.at_level("WARNING", logger="kenning.backends.sqlite"),
            open_store(cwd=store.project.root, embedder=minilm) as upgraded,
        ):
            upgraded.remember("a note written while another process reads", "rule")
        assert time.monotonic() - started < 10  # (it waited the 30 s busy timeout)
        assert "another process kept reading" in caplog.text
        assert "until the next checkpoint" in caplog.text
        assert "vacuum_owed" not in _meta_keys(db)  # done: not owed again
    finally:
        reader.execute("ROLLBACK")
        reader.close()
    with open_store(cwd=store.project.root, embedder=minilm) as later:
        assert later.count() == 5
    assert _leftovers(db, words) == {}


_UPGRADE_KILLED_AT_ITS_VACUUM = """
import os, signal, sqlite3, sys
from kenning.backends.sqlite import SQLiteBackend
real = sqlite3.connect
def connect(*args, **kwargs):  # the process dies as the VACUUM after the migration starts
    conn = real(*args, **kwargs)
    conn.set_trace_callback(
        lambda sql: os.kill(os.getpid(), signal.SIGKILL) if sql.strip() == "VACUUM" else None
    )
    return conn
sqlite3.connect = connect
SQLiteBackend(sys.argv[1])  # a writer: migrates
"""


def test_an_upgrade_killed_before_its_vacuum_is_finished_by_the_next_writer(
    tmp_path: Path,
) -> None:
    """The migration commits, then VACUUMs (seconds on a large store); a process killed in
    between (a hook at its time budget: a reader's first write migrates) left the store
    migrated and never VACUUMed: the text of notes deleted before the upgrade stayed in its
    free space for good."""
    from kenning.backends.sqlite import SQLiteBackend

    from .test_vectorfile import DIM, records, vectors

    db = tmp_path / "memory.db"
    rows = records(0, vectors(300, 1))
    secret = rows[150].memory
    rows[150] = MemoryRecord(
        replace(secret, id="secret1", content=SECRET, content_hash=content_hash(SECRET)),
        rows[150].vector,
    )
    backend = SQLiteBackend(db, dimension=DIM)
    backend.upsert(rows)
    backend.close()
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA secure_delete = OFF")
    conn.execute("DELETE FROM memories WHERE id = 'secret1'")  # the old forget
    conn.execute("ALTER TABLE memories DROP COLUMN last_seen_at")  # migration 6 undone
    conn.execute("ALTER TABLE memories DROP COLUMN seen_count")
    conn.execute("PRAGMA user_version = 5")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    words = {w: w.encode() for w in SECRET_WORDS}
    killed = run_python(_UPGRADE_KILLED_AT_ITS_VACUUM, str(db))
    assert killed.returncode == -9, killed.stderr[-2000:]
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 6  # the migration committed
    conn.close()
    assert _leftovers(db, words), "killed before its VACUUM: the text is still there"
    SQLiteBackend(db).close()  # the next writer
    assert _leftovers(db, words) == {}


def test_forget_erases_on_a_sqlite_built_without_secure_delete(
    project: Path, minilm: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """This Python's SQLite is compiled with SECURE_DELETE on; many are not. Every
    connection here starts with it off, as on such a build: kenning must turn it on."""
    from kenning.backends import sqlite as sqlite_backend

    real_connect = sqlite3.connect

    def connect_as_default_build(*args: object, **kwargs: object) -> sqlite3.Connection:
        conn = real_connect(*args, **kwargs)  # type: ignore[arg-type]
        conn.execute("PRAGMA secure_delete = OFF")
        return conn

    monkeypatch.setattr(sqlite_backend.sqlite3, "connect", connect_as_default_build)
    with open_store(cwd=project, embedder=minilm) as store:
        memory_id = _remember_all(store)
        needles = _needles(store, memory_id)
        assert store.forget(memory_id)
        assert _leftovers(Path(store.backend.location), needles) == {}


def test_an_edit_that_removes_words_leaves_none_of_them_in_the_files(store: MemoryStore) -> None:
    """Editing a note to take text out of it (a name, a host, a wrong instruction) leaves
    that text nowhere, as forgetting the note would: the full-text index's segments kept
    the old terms until they happened to merge."""
    memory_id = _remember_all(store)
    db = Path(store.backend.location)
    result = store.update(memory_id, content="The deployment key rotates weekly; ask the team.")
    assert result.status == "stored" and result.id == memory_id
    words = {w: w.encode() for w in SECRET_WORDS}
    assert _leftovers(db, words) == {}
    assert store.get(memory_id).content.startswith("The deployment key")
    hits = store.recall("how often does the deployment key rotate").hits
    assert hits and hits[0].memory.id == memory_id
    # an edit that keeps the text (a type change) leaves the index as it was
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    before = conn.execute("SELECT count(*) FROM memories_fts_data").fetchone()[0]
    conn.close()
    assert store.update(memory_id, type="decision").status == "stored"
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    vocabulary = {r[0] for r in conn.execute("SELECT term FROM memories_terms")}
    conn.close()
    assert "deployment" in vocabulary and before > 0


# -- the owed VACUUM on a disk without room for it (qa-s65c C4) -----------------------------
#
# VACUUM in WAL mode writes every page of the rewritten store into the WAL before it commits
# (measured: the WAL of a 7.0 MB store grew to 7.2 MB), and builds that copy first in SQLite's
# temporary folder. These tests put an older store (7.5 MB of 4 KB pages, the text of notes
# deleted the old way still in its free pages) on a real tmpfs with 3 MiB free: room for a
# note, not for the rewrite.

_TIGHT_FREE = 3 * 2**20
NOTES = 3000


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of the whole run (every pytest-xdist worker's) that the builders below
    write their stores in: each is built once per run, not once per worker (~2.5 CPU-s a
    store of thousands of notes), and each test copies the real store files into its own
    project, so no test sees another's writes."""
    return session_folder(tmp_path_factory)


def _built(root: Path, key: tuple[str, bool], build: Callable[[Path], None]) -> Path:
    """The ``.kenning`` folder ``build(project)`` makes in a project of its own, built once
    per ``key`` in the run (in ``root``, by the first worker that asks; the others wait for
    it and read it)."""

    def write(partial: Path) -> None:
        shutil.rmtree(partial, ignore_errors=True)  # a worker killed while building it
        build(make_repo(partial / "p"))

    name = "forget-erases-built-" + "-".join(map(str, key))
    return written_once_per_session(root, name, write) / "p" / ".kenning"


def _project_with_built_store(
    mount: Path, built: Path, key: tuple[str, bool], build: Callable[[Path], None]
) -> Path:
    """A project at ``mount / "p"`` whose ``.kenning`` is a copy of :func:`_built`'s."""
    project = make_repo(mount / "p")
    shutil.copytree(_built(built, key, build), project / ".kenning")
    return project


def _build_notes_in_4k_pages(project: Path) -> None:
    """:data:`NOTES` notes and 200 holding :data:`SECRET`, in the 4 KB pages of a kenning
    before 16 KB (what both kinds of older store start from)."""
    from kenning.store import NewMemory

    notes = [
        NewMemory(f"Note {i}: service {i % 97} logs to the {i % 13} bucket, rotated daily")
        for i in range(NOTES)
    ]
    secrets = [NewMemory(f"{SECRET} (runbook step {i})") for i in range(200)]
    notes[NOTES // 2 : NOTES // 2] = secrets  # on pages the later writes leave alone
    with open_store(cwd=project, embedder="hashing") as store:
        store.remember_many(notes, near_duplicates=False)
    conn = sqlite3.connect(project / ".kenning" / "memory.db", isolation_level=None)
    conn.execute("PRAGMA journal_mode = DELETE")  # the 4 KB pages of a kenning before 16 KB
    conn.execute("PRAGMA page_size = 4096")
    conn.execute("VACUUM")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.close()


def _build_older_store(project: Path, built: Path, old_forget: bool) -> None:
    # (the notes written once for both kinds, and copied)
    notes = _built(built, ("notes", False), _build_notes_in_4k_pages)
    shutil.copytree(notes, project / ".kenning")
    conn = sqlite3.connect(project / ".kenning" / "memory.db", isolation_level=None)
    if old_forget:
        conn.execute("PRAGMA secure_delete = OFF")
        conn.execute("DELETE FROM memories WHERE content LIKE ?", (f"{SECRET}%",))
        # the index's pages that held their words freed, not zeroed
        conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')")
    conn.execute("ALTER TABLE memories DROP COLUMN last_seen_at")  # migration 6 undone
    conn.execute("ALTER TABLE memories DROP COLUMN seen_count")
    conn.execute("PRAGMA user_version = 5")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _older_store_on_a_small_disk(
    mount: Path, built: Path, old_forget: bool = True, leave: int | None = _TIGHT_FREE
) -> Path:
    """A project on ``mount`` holding a schema-5 store whose free pages hold :data:`SECRET`
    (deleted the way a kenning before secure_delete did), and a filler file leaving
    ``leave`` bytes of the disk free. Returns the project. Without ``old_forget``
    the notes holding it stay, and the full-text index keeps the segments its writes made,
    which the migration's optimise rewrites into pages past the end of the file. The store
    is built once per ``old_forget`` in the run (in ``built``), from one writing of the
    notes, and its files copied (byte for byte: the free pages with them)."""
    project = _project_with_built_store(
        mount,
        built,
        ("older_store", old_forget),
        lambda p: _build_older_store(p, built, old_forget),
    )
    db = project / ".kenning" / "memory.db"
    assert db.stat().st_size > 2 * _TIGHT_FREE, "a store the tight disk cannot hold twice"
    assert _leftovers(db, {w: w.encode() for w in SECRET_WORDS})
    if leave is not None:
        _fill(mount, leave=leave)
    return project


def _free(mount: Path) -> int:
    found = os.statvfs(mount)
    return found.f_bfree * found.f_frsize


def _fill(mount: Path, leave: int) -> None:
    """Fill the disk at ``mount`` until ``leave`` bytes of it are free (another file)."""
    with (mount / "filler").open("ab") as f:
        while (short := _free(mount) - leave) > 0:
            f.write(b"\0" * min(short, 2**20))
            f.flush()


def _meta_keys(db: Path) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 6
        return sorted(k for (k,) in conn.execute("SELECT key FROM meta"))
    finally:
        conn.close()


def test_an_upgrade_on_a_disk_without_room_for_its_vacuum_stores_the_note(
    tmp_path: Path, built: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """On a disk with room for a note but not for a copy of the store, the first write after
    an upgrade committed the migration, then failed in the VACUUM it owes (SQLITE_FULL), and
    so did every later write until the disk had the store's size free, blaming the -shm
    file. The note is stored; one warning line says what is owed, why, and the room it
    needs; the VACUUM stays owed, and runs at the first write that finds the room."""
    from .test_store_folder import _tmpfs

    env = {"KENNING_EMBEDDER": "hashing"}
    with _tmpfs(tmp_path / "mnt", "24m") as mount:
        project = _older_store_on_a_small_disk(mount, built)
        db = project / ".kenning" / "memory.db"
        size_mib = -(-db.stat().st_size // 2**20)
        words = {w: w.encode() for w in SECRET_WORDS}
        for note in ("Payments retry five times", "Deploys happen on Tuesdays only"):
            stored = run_cli(project, "remember", note, env=env)
            assert stored.returncode == 0, stored.stderr
            (warning,) = stored.stderr.splitlines()
            assert f"{db}" in warning and "VACUUM" in warning, warning
            assert "deleted before" in warning, warning  # why it is owed
            need_mib = int(warning.split("needs about ")[1].split(" MiB")[0])
            assert size_mib <= need_mib <= size_mib + 2, warning
            assert "-shm" not in warning and "failed" not in warning, warning  # not tried
            assert _meta_keys(db).count("vacuum_owed") == 1  # still owed
            assert _leftovers(db, words)
        assert _free(mount) > 2 * 2**20  # the disk was not filled by a failed rewrite
        # doctor says it is owed, why, and the room it needs
        from kenning.doctor import run_doctor

        schema = run_doctor(store_path=db, cwd=project).check("schema")
        assert schema.status == "warning" and "VACUUM" in schema.message, schema
        assert "free some space" in (schema.fix or "") and "MiB" in (schema.fix or ""), schema
        # a process that goes on (an MCP server) runs it at its first write that finds room
        with open_store(cwd=project, embedder="hashing") as store:
            assert len([r for r in caplog.records if "VACUUM" in r.getMessage()]) == 1
            assert store.remember("Releases are tagged from main", "rule").status == "stored"
            assert len([r for r in caplog.records if "VACUUM" in r.getMessage()]) == 1  # once
            assert "vacuum_owed" in _meta_keys(db)
            (mount / "filler").unlink()
            assert store.remember("Hotfixes branch from the tag", "rule").status == "stored"
            assert "vacuum_owed" not in _meta_keys(db)
            assert _leftovers(db, words) == {}
            assert store.count() == NOTES + 4
        assert run_doctor(store_path=db, cwd=project).check("schema").status == "ok"


@contextlib.contextmanager
def _disk_filled_at(mount: Path, leave: int, fills: Callable[[str], bool]) -> Iterator[list[str]]:
    """Another process fills the disk at ``mount`` (to ``leave`` bytes left) as a statement
    ``fills`` picks starts in a connection the block opens, after kenning looked for room
    (SQLite's trace of the statements). Yields the statements it filled at."""
    tried: list[str] = []
    real = sqlite3.connect

    def fill(sql: str) -> None:
        if fills(sql):
            tried.append(sql)
            _fill(mount, leave)

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = real(*args, **kwargs)
        conn.set_trace_callback(fill)
        return conn

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sqlite3, "connect", connect)
        yield tried


@contextlib.contextmanager
def _stderr_as_a_process_writes_it() -> Iterator[io.StringIO]:
    """What a process would write on stderr in the block: kenning's log records as its
    logging's last resort writes them (nothing set up), and anything printed there."""
    err = io.StringIO()
    with _logging_as_in_a_process(), contextlib.redirect_stderr(err):
        yield err


def test_a_vacuum_that_fails_for_lack_of_room_leaves_no_grown_wal(
    tmp_path: Path, built: Path
) -> None:
    """A VACUUM that fails with SQLITE_FULL (the disk filled by another process after
    kenning looked) left the WAL it had grown, a copy of the store's size, filling the disk
    to its last byte. It is truncated: the store is as it was (migrated, the VACUUM still
    owed), the warning says the rewrite needs about the store's size free, and the write
    goes on."""
    from .test_store_folder import _tmpfs

    with _tmpfs(tmp_path / "mnt", "24m") as mount:
        project = _older_store_on_a_small_disk(mount, built, old_forget=False)
        db = project / ".kenning" / "memory.db"
        size_mib = -(-db.stat().st_size // 2**20)
        (mount / "filler").unlink()  # room enough: kenning runs the VACUUM
        # (in this process: a process of its own cost a Python start and kenning's imports)
        with (
            _stderr_as_a_process_writes_it() as stderr,
            _disk_filled_at(mount, _TIGHT_FREE, lambda sql: sql.strip() == "VACUUM"),
            open_store(cwd=project, embedder="hashing") as store,  # a writer: migrates
        ):
            wal = Path(store.backend.location + "-wal")
            wal_bytes = wal.stat().st_size if wal.exists() else 0
            status = store.remember("Payments retry five times", "rule").status
        assert wal_bytes == 0, "the WAL the failed VACUUM grew is truncated"
        assert status == "stored"
        (warning,) = stderr.getvalue().splitlines()
        assert "VACUUM" in warning and "-shm" not in warning, warning
        need_mib = int(warning.split("needs about ")[1].split(" MiB")[0])
        assert size_mib <= need_mib <= size_mib + 2, warning
        assert _meta_keys(db).count("vacuum_owed") == 1
        conn = sqlite3.connect(db)
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == NOTES + 200 + 1
        conn.close()


def test_the_vacuum_waits_for_room_in_sqlites_temporary_folder_too(
    tmp_path: Path, built: Path
) -> None:
    """VACUUM builds its copy of the store in SQLite's temporary folder first
    ($SQLITE_TMPDIR, $TMPDIR, /var/tmp, /tmp): a small one there (a tmpfs /tmp) fails it as
    a full disk beside the store does. That folder's room is looked at too, and named."""
    from .reliability.conftest import run_kenning_process
    from .test_store_folder import _tmpfs

    project = _older_store_on_a_small_disk(tmp_path, built, leave=None)
    db = project / ".kenning" / "memory.db"
    with _tmpfs(tmp_path / "tmp", "1m") as temp:
        env = {"KENNING_EMBEDDER": "hashing", "SQLITE_TMPDIR": str(temp)}
        stored = run_kenning_process(project, "remember", "Payments retry five times", env=env)
        assert stored.returncode == 0, stored.stderr
        (warning,) = stored.stderr.decode().splitlines()
        assert f"on the disk holding {temp}, which has 1 MiB" in warning, warning
        assert "failed" not in warning, warning
        assert "vacuum_owed" in _meta_keys(db)
    env.pop("SQLITE_TMPDIR")
    # (in this process: SQLite read its temporary folder at this process's start, from the
    # environment the process above was given without SQLITE_TMPDIR, as this one was)
    again = run_kenning(project, "remember", "Deploys happen on Tuesdays", env=env)
    assert again.returncode == 0 and again.stderr == b"", again.stderr
    assert "vacuum_owed" not in _meta_keys(db)
    assert _leftovers(db, {w: w.encode() for w in SECRET_WORDS}) == {}


def test_an_upgrade_on_a_full_disk_says_so_and_changes_nothing(tmp_path: Path, built: Path) -> None:
    """The migration itself (it rewrites the full-text index) failing for lack of room was
    "cannot open the store …: cannot rollback - no transaction is active" (SQLite had rolled
    it back already, and the ROLLBACK after it hid the error). It says the disk is full and
    to free space; the store is as the older kenning left it, still readable, and the WAL
    the migration grew is truncated."""
    from .test_store_folder import _tmpfs

    env = {"KENNING_EMBEDDER": "hashing"}
    with _tmpfs(tmp_path / "mnt", "24m") as mount:
        project = _older_store_on_a_small_disk(mount, built, old_forget=False, leave=256 * 1024)
        db = project / ".kenning" / "memory.db"
        refused = run_cli(project, "remember", "Payments retry five times", env=env)
        assert refused.returncode == 1, refused.stderr
        (line,) = refused.stderr.splitlines()
        assert f"cannot upgrade the store {db}" in line, line
        assert "the disk holding it is full" in line and "free some space" in line, line
        assert "-shm" not in line and "rollback" not in line, line
        conn = sqlite3.connect(db)
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 5
        conn.close()
        wal = db.with_name(db.name + "-wal")
        assert not wal.exists() or wal.stat().st_size == 0
        recalled = run_cli(project, "recall", "--json", "bucket rotated daily", env=env)
        assert recalled.returncode == 0, recalled.stderr  # read as it is
        # a process that reads first (an MCP server) migrates at its first write, and keeps
        # its connection open after the failure: the WAL is emptied all the same
        with open_store(cwd=project, create=False, embedder="hashing") as reader:
            assert reader.count() == NOTES + 200
            with pytest.raises(StoreWriteFailed, match="cannot upgrade the store"):
                reader.remember("Payments retry five times", "rule")
            assert not wal.exists() or wal.stat().st_size == 0
        (mount / "filler").unlink()
        stored = run_cli(project, "remember", "Payments retry five times", env=env)
        assert stored.returncode == 0, stored.stderr
        assert "vacuum_owed" not in _meta_keys(db)


# -- the renewal of the error fingerprints on a disk without room for it (qaup F1) ---------
#
# A kenning's first write to a store an older kenning wrote brings the error fingerprints up
# to its rules, in one transaction: every page it changes goes into the WAL before it
# commits (measured: 2,500 of 5,000 entries, a 10.5 MB WAL beside a 12.3 MB store).

_FIXES = 250
#: A fix's steps (~7.8 KB). What the renewal needs room for is the pages of the entries it
#: rewrites; what each process that reckons it reads is every entry's fingerprint (~0.15
#: ms each, reckoned 8 times by these tests' processes, and worked out at the build: read
#: from the error, before the fix, so a longer fix costs none). 250 long entries are a store
#: of 5.1 MB, the renewal reckoned 6 MiB (1,000 of ~1.3 KB: 4.2 MB, 5.6 MiB; 3,000 short
#: ones: 7.3 MB, 9.3 MiB), each well past the tight disk's 3 MiB, for a quarter of the
#: fingerprints of 1,000.
_FIX_STEPS = " ".join(f"then step {j} of the image build" for j in range(240))


def _build_older_fingerprints(project: Path) -> None:
    from kenning.store import NewMemory

    fixes = [
        NewMemory(
            f"ERROR-FIX: ModuleNotFoundError: No module named 'pkg{i}' | FIX: pip install "
            f"pkg{i} in the service {i % 97} image, {_FIX_STEPS}",
            "error_fix",
        )
        for i in range(_FIXES)
    ]
    with open_store(cwd=project, embedder="hashing") as store:
        store.remember_many(fixes, near_duplicates=False)
    db = project / ".kenning" / "memory.db"
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute(
        "UPDATE memories SET metadata = json_set(metadata, '$.error_fingerprint', "
        "'error: ' || json_extract(metadata, '$.error_fingerprint'))"
    )
    conn.execute("DELETE FROM meta WHERE key = 'kenning:fingerprint_rules'")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _older_fingerprints_on_a_small_disk(
    mount: Path, built: Path, leave: int | None = _TIGHT_FREE
) -> Path:
    """A project on ``mount`` whose store holds :data:`_FIXES` error fixes with the
    fingerprints of older rules (and no rules recorded, as an older kenning left it), and a
    filler file leaving ``leave`` bytes of the disk free. The store is built once in the
    run (in ``built``) and its files copied."""
    project = _project_with_built_store(
        mount, built, ("older_fingerprints", False), _build_older_fingerprints
    )
    assert _old_fingerprints(project / ".kenning" / "memory.db") == (_FIXES, None)
    if leave is not None:
        _fill(mount, leave=leave)
    return project


def _old_fingerprints(db: Path) -> tuple[int, str | None]:
    """How many fingerprints are the older rules', and the rules the store records."""
    conn = sqlite3.connect(db)
    try:
        old = conn.execute(
            "SELECT count(*) FROM memories WHERE json_extract(metadata, "
            "'$.error_fingerprint') LIKE 'error: %'"
        ).fetchone()[0]
        row = conn.execute("SELECT value FROM meta WHERE key = 'kenning:fingerprint_rules'")
        recorded = row.fetchone()
        return int(old), None if recorded is None else str(recorded[0])
    finally:
        conn.close()


def test_a_renewal_of_fingerprints_waits_for_room_on_a_small_disk(
    tmp_path: Path, built: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """On a disk with room for a note but not for the renewal, the renewal failed (said),
    and left the WAL it had grown filling the disk to its last byte after the process
    exited; every later write tried again and failed again; doctor said nothing. The note
    is stored; one warning line says the renewal waits and the room it needs; the disk keeps
    its room; doctor warns with the room; a process that goes on (an MCP server) looks at
    the room again at each write, and renews once the disk has it."""
    from kenning.doctor import run_doctor

    from .test_store_folder import _tmpfs

    env = {"KENNING_EMBEDDER": "hashing"}
    with _tmpfs(tmp_path / "mnt", "24m") as mount:
        project = _older_fingerprints_on_a_small_disk(mount, built)
        db = project / ".kenning" / "memory.db"
        for note in ("Payments retry five times", "Deploys happen on Tuesdays only"):
            stored = run_cli(project, "remember", note, env=env)
            assert stored.returncode == 0, stored.stderr
            (warning,) = stored.stderr.splitlines()
            assert f"{_FIXES} entries in {db}" in warning and "wait" in warning, warning
            need_mib = int(warning.split("needs about ")[1].split(" MiB")[0])
            assert need_mib > _TIGHT_FREE // 2**20, warning
            assert "failed" not in warning and "could not" not in warning, warning  # not tried
            assert _free(mount) > 2 * 2**20  # the disk was not filled by a failed renewal
            assert _old_fingerprints(db) == (_FIXES, None)
        schema = run_doctor(store_path=db, cwd=project).check("schema")
        assert schema.status == "warning" and "fingerprints" in schema.message, schema
        assert f"needs about {need_mib} MiB" in schema.message, schema
        assert "free some space" in (schema.fix or ""), schema
        with open_store(cwd=project, embedder="hashing") as store:
            for note in ("Releases are tagged from main", "Tags are signed"):
                assert store.remember(note, "rule").status == "stored"
            said = [r for r in caplog.records if "fingerprints" in r.getMessage()]
            assert len(said) == 1, said  # once
            assert _old_fingerprints(db) == (_FIXES, None)
            (mount / "filler").unlink()
            assert store.remember("Hotfixes branch from the tag", "rule").status == "stored"
            assert _old_fingerprints(db)[0] == 0 and _old_fingerprints(db)[1] is not None
        assert run_doctor(store_path=db, cwd=project).check("schema").status == "ok"


def test_a_renewal_of_fingerprints_leaves_the_rows_of_a_kind_kenning_does_not_know(
    tmp_path: Path,
    built: Path,
) -> None:
    """A row another writer gave a type kenning does not know is held, not served and
    never written (kenning.model.known_kind): measured (qa74 F3), the renewal rewrote its
    fingerprint too, counted it in its waiting line ("the error fingerprints of 3000
    entries" with 300 such rows) and reckoned room for its pages, and doctor counted it.
    The renewal leaves such rows as they are, and neither counts them nor their room."""
    from kenning.doctor import run_doctor

    from .test_store_folder import _tmpfs

    env = {"KENNING_EMBEDDER": "hashing"}
    foreign = 75  # (30 %, as 300 of 3,000 were in qa74 F3)
    with _tmpfs(tmp_path / "mnt", "24m") as mount:
        project = _older_fingerprints_on_a_small_disk(mount, built)
        db = project / ".kenning" / "memory.db"
        conn = sqlite3.connect(db, isolation_level=None)
        conn.execute(
            "UPDATE memories SET type = 'bogus', collection = 'nowhere' WHERE rowid IN "
            "(SELECT rowid FROM memories ORDER BY rowid LIMIT ?)",
            (foreign,),
        )
        conn.close()
        stored = run_cli(project, "remember", "Payments retry five times", env=env)
        assert stored.returncode == 0, stored.stderr
        (warning,) = stored.stderr.splitlines()
        assert f" {_FIXES - foreign} entries in {db}" in warning, warning
        schema = run_doctor(store_path=db, cwd=project).check("schema")
        assert f" {_FIXES - foreign} entries in {db}" in schema.message, schema
        (mount / "filler").unlink()
        stored = run_cli(project, "remember", "Hotfixes branch from the tag", env=env)
        assert stored.returncode == 0 and not stored.stderr, stored.stderr
        # every fingerprint of a kenning row renewed; another writer's rows as they were
        assert _old_fingerprints(db)[0] == foreign and _old_fingerprints(db)[1] is not None
        conn = sqlite3.connect(db)
        kinds = conn.execute(
            "SELECT DISTINCT type FROM memories WHERE json_extract(metadata, "
            "'$.error_fingerprint') LIKE 'error: %'"
        ).fetchall()
        conn.close()
        assert kinds == [("bogus",)], kinds


def test_a_renewal_that_fails_for_lack_of_room_leaves_no_grown_wal(
    tmp_path: Path, built: Path
) -> None:
    """A renewal that fails with SQLITE_FULL (the disk filled by another process after
    kenning looked) left the WAL it had grown, filling the disk, and said "nothing was
    changed". It is truncated: the store is as it was (the older fingerprints, no rules
    recorded), the warning says the room the renewal needs, the write goes on, and the same
    process does not try the doomed renewal again at its next write. The write's own pages
    (a long note's, past the end of the file) leave the WAL before the renewal: on the full
    disk a checkpoint could not write them, nor truncate the WAL."""
    from .test_store_folder import _tmpfs

    with _tmpfs(tmp_path / "mnt", "24m") as mount:
        project = _older_fingerprints_on_a_small_disk(mount, built, leave=None)
        db = project / ".kenning" / "memory.db"

        # (in this process, which is new to the store: a process of its own cost a Python
        # start and kenning's imports; the new process below keeps its own)
        def renewal_starts(sql: str) -> bool:
            return sql.startswith("UPDATE memories SET metadata")

        with (
            _stderr_as_a_process_writes_it() as stderr,
            _disk_filled_at(mount, _TIGHT_FREE, renewal_starts) as tried,
            open_store(cwd=project, embedder="hashing") as store,
        ):
            wal = Path(store.backend.location + "-wal")
            # a long note: its pages go past the end of the file, which a checkpoint on the
            # full disk could not write (the renewal then leaves its WAL unless the note left
            # it first)
            long = " ".join(f"Payments step {i} retries {i % 5} times" for i in range(1500))
            first = store.remember(long, "rule").status
            wal_bytes, tried_then = (wal.stat().st_size if wal.exists() else 0), len(tried)
            second = store.remember("Deploys happen on Tuesdays only", "rule").status
        assert (first, second) == ("stored", "stored")
        assert wal_bytes == 0, "the WAL the failed renewal grew is truncated"
        assert tried_then > 0 and len(tried) == tried_then, "not tried again by the next write"
        (warning,) = stderr.getvalue().splitlines()
        assert "could not be brought up" in warning and "the disk is full" in warning, warning
        assert "it needs about " in warning and "nothing was changed" in warning, warning
        assert _free(mount) > 2 * 2**20
        assert _old_fingerprints(db) == (_FIXES, None)
        conn = sqlite3.connect(db)
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == _FIXES + 2
        conn.close()
        # nor by a new process: it waits for the room recorded, reading no row to reckon it
        ran = run_python(_WRITES_ON_A_SHORT_DISK, str(project), "Tags are signed")
        assert ran.returncode == 0 and ran.stdout.split() == ["stored", "0"], ran.stderr
        assert f"{_FIXES} entries in {db}" in ran.stderr and "wait" in ran.stderr, ran.stderr
        assert _old_fingerprints(db) == (_FIXES, None)


#: ``reads_the_rows(sql)``: whether a statement SQLite traced is the scan of every row's text
#: for the stale fingerprints, or the reckoning of the room to renew them.
_READS_THE_ROWS = """
def reads_the_rows(sql):
    if sql.startswith("SELECT rowid, ") and "FROM memories WHERE rowid > " in sql:
        return "content" in sql.split("FROM")[0]  # (the vector index reads no text)
    return "length(CAST(content AS BLOB)) + length(embedding)" in sql
"""

_WRITES_ON_A_SHORT_DISK = (
    _READS_THE_ROWS
    + """
import sqlite3, sys
from pathlib import Path
from kenning import open_store
real = sqlite3.connect
walks = []
def connect(*args, **kwargs):
    conn = real(*args, **kwargs)
    conn.set_trace_callback(lambda sql: walks.append(sql) if reads_the_rows(sql) else None)
    return conn
sqlite3.connect = connect
with open_store(cwd=Path(sys.argv[1]), embedder="hashing") as store:
    print(store.remember(sys.argv[2], "rule").status, len(walks), flush=True)
"""
)


@contextlib.contextmanager
def _rows_read_here() -> Iterator[list[str]]:
    """The statements of :data:`_READS_THE_ROWS` that the block's connections (opened in
    it) run in this process, as :data:`_WRITES_ON_A_SHORT_DISK` counts them in its own."""
    found: dict[str, Callable[[str], bool]] = {}
    exec(_READS_THE_ROWS, found)  # the test's own source, as the script runs it
    reads_the_rows = found["reads_the_rows"]
    walks: list[str] = []
    real = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = real(*args, **kwargs)
        conn.set_trace_callback(lambda sql: walks.append(sql) if reads_the_rows(sql) else None)
        return conn

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sqlite3, "connect", connect)
        yield walks


def test_a_renewal_that_waits_for_room_costs_a_new_process_no_read_of_the_rows(
    tmp_path: Path, built: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """While the renewal waited for room, each new process (every `kenning remember`, each
    hook that writes) read every row again to find the stale ones and reckon the room (~2 s
    for 5,000 notes), then waited. The first process that finds the disk short records the
    count and the room in the store; a later one compares the disk's room with it (a statvfs)
    and reads no row of the scan (counted by SQLite's trace of the statements), still saying
    that the renewal waits. It reckons again once something that lessens the room changed
    (a row deleted) or the disk has the room, and renews then. (Those last two writes run
    in this process, each a store of its own opened for it: what they check is that they
    read the rows, which nothing a process keeps could spare them.)"""
    from .test_store_folder import _tmpfs

    def write(project: Path, note: str) -> tuple[int, str]:
        ran = run_python(_WRITES_ON_A_SHORT_DISK, str(project), note)
        assert ran.returncode == 0, ran.stderr[-2000:]
        status, walks = ran.stdout.split()
        assert status == "stored", ran.stdout
        return int(walks), ran.stderr

    def write_here(project: Path, note: str) -> tuple[int, str]:
        caplog.clear()
        with _rows_read_here() as walks, open_store(cwd=project, embedder="hashing") as store:
            assert store.remember(note, "rule").status == "stored"
        # what a process without logging set up writes on stderr (logging's last resort)
        said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        return len(walks), "".join(f"{line}\n" for line in said)

    with _tmpfs(tmp_path / "mnt", "24m") as mount:
        project = _older_fingerprints_on_a_small_disk(mount, built)
        db = project / ".kenning" / "memory.db"
        walks, said = write(project, "Payments retry five times")
        assert walks > 0, "the first process reckons"
        (first,) = said.splitlines()
        assert f"{_FIXES} entries in {db}" in first and "needs about " in first, first
        for note in ("Deploys happen on Tuesdays only", "Releases are tagged from main"):
            walks, said = write(project, note)
            assert walks == 0, f"a later process read the rows again ({walks} statements)"
            assert said.splitlines() == [first], said  # the same line, from the record
            assert _free(mount) > 2 * 2**20
        assert _old_fingerprints(db) == (_FIXES, None)
        conn = sqlite3.connect(db, isolation_level=None)
        conn.execute("DELETE FROM memories WHERE rowid = (SELECT max(rowid) FROM memories)")
        conn.close()
        walks, said = write_here(project, "Tags are signed")
        assert walks > 0, "a delete lessens the room: reckoned again"
        assert f"{_FIXES} entries in {db}" in said, said
        (mount / "filler").unlink()
        walks, said = write_here(project, "Hotfixes branch from the tag")
        assert walks > 0 and not said, said
        assert _old_fingerprints(db)[0] == 0 and _old_fingerprints(db)[1] is not None
        conn = sqlite3.connect(db)
        left = conn.execute("SELECT key FROM meta WHERE key LIKE '%wait%'").fetchall()
        conn.close()
        assert left == [], "the record of the wait goes with the renewal"
