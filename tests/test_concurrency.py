"""Several processes writing one embedded store at once: nothing lost, nothing doubled."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path

from kenning import open_store
from kenning.backends.base import Filters
from tests.racing import start_together, writer_script

WRITER = writer_script(
    """
    import json, sys
    from kenning import open_store
    worker, n = int(sys.argv[1]), int(sys.argv[2])
    store = open_store()
    AWAIT_GO
    out = []
    for i in range(n):
        # half the notes are shared by every worker, half are the worker's own
        if i % 2 == 0:
            text = f"shared note {i}: the build cache lives in .cache/build-{i}"
        else:
            text = f"worker {worker} private note {i}: service-{worker}-{i} restarts nightly"
        r = store.remember(text, "context")
        out.append([text, r.status, r.id])
    print(json.dumps(out))
    """
)


def test_parallel_writers_lose_nothing(project: Path) -> None:
    """Whole ``remember`` calls from processes writing at once. The hashing embedder: the
    model is not what races (each writer loading MiniLM cost ~0.8 CPU-s more to start), and
    a note shared by the writers is the same text."""
    workers, per_worker = 3, 12
    procs = start_together(
        [[sys.executable, "-c", WRITER, str(w), str(per_worker)] for w in range(workers)],
        cwd=project,
        env={**os.environ, "KENNING_EMBEDDER": "hashing"},
    )
    outcomes = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, stderr
        assert "database is locked" not in stderr
        outcomes.extend(json.loads(stdout))
    assert {status for _, status, _ in outcomes} <= {"stored", "near-duplicate"}
    store = open_store(cwd=project, create=False, embedder="hashing")
    rows = list(store.backend.iterate(Filters()))
    contents = [r.memory.content for r in rows]
    ids = {r.memory.id for r in rows}
    # every acknowledged id is present, and no content is stored twice
    acknowledged = {i for _, status, i in outcomes if status == "stored"}
    assert acknowledged == ids
    assert len(contents) == len(set(contents))
    # every note is either stored or points at a stored (near-)duplicate
    assert all(i in ids for _, _, i in outcomes)
    shared = {text for text, _, _ in outcomes if text.startswith("shared")}
    assert sum(1 for c in contents if c in shared) <= len(shared)
    assert store.backend.integrity_check() == ["ok"]
    store.close()


def test_a_new_store_waits_for_another_first_writer(tmp_path: Path) -> None:
    """Two processes creating one new store: while the other holds its write lock, SQLite
    refuses the switch to WAL at once ("database is locked", no busy wait), which failed
    about one open in 250 of six first writers. The open waits for the lock instead."""
    import sqlite3
    import threading

    from kenning.backends.sqlite import SQLiteBackend

    path = tmp_path / "memory.db"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # the other first writer, mid-creation
    release = threading.Timer(0.3, lambda: other.execute("COMMIT"))
    release.start()
    try:
        backend = SQLiteBackend(path, create=True)
        assert backend.integrity_check() == ["ok"]
        backend.close()
    finally:
        release.join()
        other.close()


def _two_notes() -> list:
    from kenning.store import NewMemory

    return [
        NewMemory("Releases are cut on Mondays after the freeze."),
        NewMemory("The staging database is reset every night at 02:00 UTC."),
    ]


def test_a_reembed_that_starts_meanwhile_refuses_the_rest_of_a_write(project: Path) -> None:
    """A writer checked the store's model before embedding; a reembed began before its next
    batch was written. That batch is refused under the write lock (it was written with the
    old model's vectors, which the reembed's stamp then passed off as the new model's)."""
    import pytest

    from kenning.errors import ProvenanceMismatch
    from kenning.reembed import REEMBED_STATE_KEY

    with open_store(cwd=project) as store:
        assert store.remember("Hotfixes need two reviews.").ok
        other = open_store(cwd=project)  # the reembed's process, as far as the store sees

        def reembed_starts(_: int) -> None:
            other.backend.set_meta(REEMBED_STATE_KEY, json.dumps({"last_id": None}))

        with pytest.raises(ProvenanceMismatch, match="half re-embedded"):
            store.remember_many(_two_notes(), batch_size=1, progress=reembed_starts)
        other.close()
        assert store.count() == 2  # the first note, written before; not the second


def test_another_models_first_write_refuses_the_rest_of_a_write(project: Path) -> None:
    """Two models' first writes to a new store at once: each read "not stamped" before
    embedding; the second to take the write lock finds the other's stamp and is refused,
    instead of stamping over it and mixing the two models' vectors."""
    import pytest

    from kenning.errors import ProvenanceMismatch
    from kenning.model import Provenance

    with open_store(cwd=project) as store:
        other = Provenance("another-model", "org/another-model", 384, True)

        def other_model_writes_first(_: int) -> None:
            store.backend.write_provenance(other)

        with pytest.raises(ProvenanceMismatch, match="another-model"):
            store.remember_many(_two_notes(), batch_size=1, progress=other_model_writes_first)
        assert store.count() == 1
        assert store.backend.read_provenance() == other


def test_an_id_stored_meanwhile_is_kept_not_replaced(project: Path) -> None:
    """Two imports of one backup's versions at once: each checked the ids before writing,
    and the later write replaced the other's memory while both reported it imported. An id
    taken meanwhile is now seen under the write lock: the memory there is kept."""
    from kenning.model import NEAR_DUPLICATE, STORED
    from kenning.store import NewMemory
    from kenning.store_write import SAME_ID

    first, second = "0199a3c2-7d1e-7c3a-9b1f-2f0c4d5e6a01", "0199a3c2-7d1e-7c3a-9b1f-2f0c4d5e6a02"
    # both versions of the memory carry its stored_at, as every export of it does
    stored_at = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
    with open_store(cwd=project) as store, open_store(cwd=project) as other:

        def other_import_writes(_: int) -> None:
            if other.get(second) is None:
                other.remember_many(
                    [NewMemory("Deploys need a green build.", id=second, stored_at=stored_at)]
                )

        results = store.remember_many(
            [
                NewMemory("Releases are cut on Mondays.", id=first),
                NewMemory("Deploys need a green build (edited).", id=second, stored_at=stored_at),
            ],
            near_duplicates=False,
            batch_size=1,
            progress=other_import_writes,
        )
        assert [r.status for r in results] == [STORED, NEAR_DUPLICATE]
        assert results[1].id == second and results[1].reason == SAME_ID
        kept = store.get(second)
        assert kept is not None and kept.content == "Deploys need a green build."


#: Another process's transaction on the store (argv: the file, seconds, how it begins):
#: ``BEGIN IMMEDIATE`` holds the write lock, ``BEGIN`` and a read hold a read snapshot. It
#: ends when its standard input does (:func:`_end`), once the test has seen what happens
#: meanwhile, instead of the test waiting out its seconds; or after them, so a broken
#: product that makes the test's reads wait for it fails the test that long after.
OTHER_TRANSACTION = textwrap.dedent(
    """
    import select, sqlite3, sys
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute(sys.argv[3])
    conn.execute("SELECT count(*) FROM memories").fetchone()
    print("ready", flush=True)
    select.select([sys.stdin], [], [], float(sys.argv[2]))
    conn.execute("ROLLBACK")
    """
)


def _other_transaction(location: str, seconds: float, begin: str) -> subprocess.Popen[str]:
    """:data:`OTHER_TRANSACTION` on ``location``, begun and holding what it took."""
    other = subprocess.Popen(
        [sys.executable, "-c", OTHER_TRANSACTION, location, str(seconds), begin],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert other.stdout is not None and other.stdout.readline().strip() == "ready"
    return other


def _end(other: subprocess.Popen[str]) -> None:
    """End :data:`OTHER_TRANSACTION`'s transaction and process."""
    assert other.stdin is not None
    if not other.stdin.closed:
        other.stdin.close()
    other.wait(timeout=60)


def _reads_beside_a_waiting_forget(project: Path, begin: str) -> tuple[float, int, str]:
    """Two notes stored, another process's transaction begun with ``begin`` for up to 5 s,
    and the second note forgotten in a thread meanwhile: how long a recall and a count took
    while the forget waited, the count they saw, and the store's file. The transaction then
    ends, and the forget is done when this returns."""
    import threading
    import time

    with open_store(cwd=project) as store:
        kept = store.remember("Releases are cut on Mondays after the freeze.")
        gone = store.remember("The staging database is reset every night at 02:00 UTC.")
        assert kept.ok and gone.ok
        store.recall("when are releases cut")  # the model loaded before the clock starts
        other = _other_transaction(store.location, 5, begin)
        try:
            forgotten: list[bool] = []
            forget = threading.Thread(target=lambda: forgotten.append(store.forget(gone.id)))
            forget.start()
            time.sleep(0.5)  # the forget is waiting
            assert forget.is_alive()
            started = time.monotonic()
            found = store.recall("when are releases cut")
            counted = store.count()
            waited = time.monotonic() - started
            assert found.hits and found.hits[0].memory.id == kept.id
            assert forget.is_alive()  # the reads came while the forget still waited
        finally:
            _end(other)
        forget.join(timeout=60)
        assert forgotten == [True]
        assert store.get(gone.id) is None and store.count() == 1
        return waited, counted, store.location


def test_reads_answer_while_a_write_waits_for_another_process(project: Path) -> None:
    """Another process holds the store's write lock; a forget in one thread waits for it.
    Reads in other threads (an MCP server's recall, the web page) answered only once the
    forget got the lock — 28 s behind it — though WAL readers never need that lock: the
    write waited holding the lock every read of the connection takes."""
    waited, counted, _ = _reads_beside_a_waiting_forget(project, "BEGIN IMMEDIATE")
    assert waited < 2.0, f"reads waited {waited:.1f} s behind a waiting write"
    assert counted == 2  # the forget had not happened yet


def test_reads_answer_while_a_forget_waits_to_empty_the_wal(project: Path) -> None:
    """A forget empties the WAL after its commit (the deleted text leaves it), which waits
    for another process's read transaction (an export, a backup, a sqlite3 shell) to end.
    Every read of the process waited with it — 7.6 s of an 8 s read elsewhere, up to the
    30 s busy timeout — though the delete was committed and the reads need nothing of it."""
    waited, counted, location = _reads_beside_a_waiting_forget(project, "BEGIN")
    assert waited < 2.0, f"reads waited {waited:.1f} s behind a forget's checkpoint"
    assert counted == 1  # the delete was committed
    # the reader ended within the wait: the WAL was emptied, the deleted text gone
    wal = Path(location + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0


def test_a_write_that_waited_while_the_store_was_deleted_is_refused_not_lost(
    project: Path,
) -> None:
    """A write waiting for another process's write lock while the store was deleted (``rm -r
    .kenning``) or replaced (a file moved into its place) was then made into the deleted
    file, through the connection still open on it, and acknowledged as stored: a note
    nobody could ever read. It is refused, nothing written, with what to do."""
    import shutil
    import threading
    import time

    from kenning.errors import StoreWriteFailed

    with open_store(cwd=project) as store:
        assert store.remember("Releases are cut on Mondays after the freeze.").ok
        outcome: list[object] = []

        def remember() -> None:
            try:
                outcome.append(store.remember("Hotfixes need two reviews from the platform team."))
            except StoreWriteFailed as exc:
                outcome.append(exc)

        holder = _other_transaction(store.location, 2, "BEGIN IMMEDIATE")
        try:
            writer = threading.Thread(target=remember)
            writer.start()
            time.sleep(0.5)  # the write is waiting for the lock
            assert writer.is_alive()
            shutil.rmtree(project / ".kenning")
        finally:
            _end(holder)
        writer.join(timeout=60)
        assert len(outcome) == 1
        refused = outcome[0]
        assert isinstance(refused, StoreWriteFailed), f"acknowledged, and lost: {refused}"
        assert "deleted or replaced" in str(refused) and "nothing was written" in str(refused)
