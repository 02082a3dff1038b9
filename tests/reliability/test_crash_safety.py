"""``kill -9`` in the middle of a write, then check nothing acknowledged was lost.

* Batch import: ``kenning import`` of a JSONL export is killed at a random moment — every
  fourth round anywhere (quick mode: every second; its export has no vectors, so the real
  model embeds every batch), in the others once its commit is seen, as it ends (their
  export carries the model's vectors: the same write without a model load and embedding,
  half the CPU). The
  store must open, pass ``PRAGMA integrity_check`` and ``kenning doctor``, keep its
  provenance stamp, and hold nothing of the source or all of it (the import embeds first,
  then writes in one transaction), each row exactly as exported with its vector.
  Re-running the import then completes with no duplicate and every memory of the source
  present exactly once.
* Single notes: a process calls ``remember`` in a loop and prints each acknowledged id;
  it is killed at a random moment. Every id printed before the kill must be present with
  its content.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kenning import open_store
from kenning.doctor import run_doctor
from kenning.embedders.base import Embedder
from kenning.model import content_hash, new_memory_id
from kenning.transfer import EMBED_BATCH, import_memories

from ..forking import Forker
from .conftest import kenning_cmd, random_note, rows_by_id

BATCH = 64  # MemoryStore.remember_many's default batch: one transaction each
TYPES = ("context", "rule", "decision", "implementation", "naming", "session")


def _source(path: Path, n: int, group_id: str, rng: random.Random) -> list[dict[str, Any]]:
    """A JSONL export without vectors (import must embed it with the real model)."""
    start = datetime(2024, 1, 1, tzinfo=UTC)
    memories = []
    for i in range(n):
        content = random_note(rng, 16)
        memory_type = TYPES[i % len(TYPES)]
        collection = {
            "context": "discussions",
            "decision": "discussions",
            "session": "discussions",
            "rule": "conventions",
            "naming": "conventions",
            "implementation": "code-patterns",
        }[memory_type]
        memories.append(
            {
                "id": new_memory_id(),
                "content": content,
                "collection": collection,
                "type": memory_type,
                "group_id": group_id,
                "stored_at": (start + timedelta(hours=i)).isoformat(),
                "content_hash": content_hash(content),
                "source": f"docs/notes/{i}.md",
                "tags": [f"t{i % 7}"],
                "metadata": {"n": i},
            }
        )
    with path.open("w", encoding="utf-8") as fh:
        fh.write(json.dumps({"kenning_export": 1, "provenance": None}) + "\n")
        for m in memories:
            fh.write(json.dumps(m, ensure_ascii=False) + "\n")
    return memories


def _with_vectors(path: Path, lines: list[str], model: Any) -> Path:
    """The export of ``lines`` with each memory's vector from ``model`` and its provenance:
    an import of it embeds nothing, then writes as one without vectors does."""
    header, *rows = (json.loads(line) for line in lines)
    vectors = model.embed([row["content"] for row in rows])
    with path.open("w", encoding="utf-8") as fh:
        fh.write(json.dumps({**header, "provenance": model.provenance.to_dict()}) + "\n")
        for row, vector in zip(rows, vectors, strict=True):
            embedding = base64.b64encode(np.asarray(vector, dtype=np.float32).tobytes()).decode()
            fh.write(json.dumps({**row, "embedding": embedding}, ensure_ascii=False) + "\n")
    return path


def _count(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=1)
        try:
            return int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0  # not migrated yet, or locked for a moment


def _run_import(project: Path, source: Path, db: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        kenning_cmd("import", str(source), "--json", "--store", str(db)),
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _verify_after_crash(
    db: Path, memories: list[dict[str, Any]], minilm: Embedder
) -> dict[str, Any]:
    """The checks every crashed store must pass; returns what was found."""
    if not db.exists():
        return {"rows": 0, "state": "no store"}
    report = run_doctor(store_path=db)
    assert report.healthy, report.to_dict()
    conn = sqlite3.connect(str(db))
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        # killed after SQLite created the file, before the schema's one transaction
        # committed: an empty database, which the next write gives its schema (doctor says so)
        if not tables:
            assert "empty store file" in json.dumps(report.to_dict()), report.to_dict()
            return {"rows": 0, "state": "no store"}
        stamp = conn.execute("SELECT value FROM meta WHERE key = 'provenance'").fetchone()
    finally:
        conn.close()
    rows = rows_by_id(db)
    if rows:  # provenance intact: stamped before the first row, with the real model's
        assert stamp is not None
        assert json.loads(stamp[0]) == minilm.provenance.to_dict()
    # nothing of the source or all of it, every row exactly as exported
    ids = [m["id"] for m in memories]
    present = sorted(rows, key=ids.index)
    assert present == ids[: len(present)], "rows are not a prefix of the import order"
    assert len(present) in (0, len(ids)), len(present)  # one transaction: all or nothing
    by_id = {m["id"]: m for m in memories}
    for memory_id, row in rows.items():
        m = by_id[memory_id]
        for key in ("content", "type", "collection", "group_id", "source", "content_hash"):
            assert row[key] == m[key], (key, row[key], m[key])
        assert datetime.fromisoformat(row["stored_at"]) == datetime.fromisoformat(m["stored_at"])
        assert json.loads(row["tags"]) == m["tags"]
        assert json.loads(row["metadata"]) == m["metadata"]
        assert len(row["embedding"]) == minilm.provenance.dimension * 4
    if present:  # the vectors are the model's, not torn or zeroed
        sample = present[:: max(1, len(present) // 3)][:3]
        fresh = minilm.embed([rows[i]["content"] for i in sample])
        for i, memory_id in enumerate(sample):
            stored = np.frombuffer(rows[memory_id]["embedding"], dtype=np.float32)
            assert float(np.dot(stored, fresh[i])) > 0.999
    state = "complete" if len(present) == len(ids) else ("partial" if present else "empty")
    return {"rows": len(present), "state": state}


class _EmbedOnce:
    """The real model, each text embedded once per test. Every round re-imports the texts its
    killed import did not commit, the same texts as the rounds before: the re-import's
    vectors are the model's own (``_verify_after_crash`` checks them against ``minilm``),
    computed once instead of once a round, or given: ``known``, a text's vector the model
    made elsewhere (the uninterrupted import's)."""

    def __init__(self, model: Embedder, known: dict[str, np.ndarray]) -> None:
        self._model = model
        self._vectors = dict(known)

    @property
    def provenance(self) -> Any:
        return self._model.provenance

    def embed(self, texts: Any) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, self._model.embed(missing), strict=True))
        if not texts:
            return self._model.embed([])
        return np.stack([self._vectors[t] for t in texts])


@pytest.mark.slow
def test_kill_during_import(
    project: Path, tmp_path: Path, minilm: Embedder, full: bool, recorder: Any
) -> None:
    # kills land while it embeds, writes or after; quick mode's two embedding batches (and
    # two write batches, one transaction) are the fewest that a kill can land between, at
    # half the embedding a round of four took (the model's CPU is most of a round). Quick
    # mode: two rounds killed anywhere and two after the commit (~0.6 CPU-s each; the four
    # it had all ended 'complete', the same outcome each time)
    rounds, n = (50, 640) if full else (4, 2 * EMBED_BATCH)
    anywhere_every = 4 if full else 2
    rng = random.Random(7)
    source = project / "export.jsonl"
    memories = _source(source, n, "acme/widgets", rng)
    lines = source.read_text(encoding="utf-8").splitlines()

    # calibration: one uninterrupted import through the CLI, timing its first commit
    db = project / ".kenning" / "calibration.db"
    started = time.monotonic()
    proc = _run_import(project, source, db)
    first_commit = None
    while proc.poll() is None:
        if first_commit is None and _count(db) > 0:
            first_commit = time.monotonic() - started
        time.sleep(0.02)
    total = time.monotonic() - started
    out, err = proc.communicate()
    assert proc.returncode == 0, err.decode()
    assert json.loads(out)["imported"] == n
    first_commit = first_commit or total / 2
    assert _verify_after_crash(db, memories, minilm)["state"] == "complete"

    outcomes: list[dict[str, Any]] = []
    # The rounds killed after the first commit wait for it, so they land after the embedding
    # whatever it costs: they import the export with the model's vectors, which writes as
    # this one does without a process's model load and embedding (half its CPU). The vectors
    # are the ones this import stored (the model's, checked above: embedding the texts here
    # again cost ~1 CPU-s), the vectors the re-imports use too.
    stored = {row["content"]: row["embedding"] for row in rows_by_id(db).values()}
    embed_once = _EmbedOnce(
        minilm, {text: np.frombuffer(blob, dtype=np.float32) for text, blob in stored.items()}
    )
    embedded = _with_vectors(project / "embedded.jsonl", lines, embed_once)
    for round_no in range(rounds):
        db = project / ".kenning" / f"round-{round_no}.db"
        started = time.monotonic()
        anywhere = round_no % anywhere_every == 0
        proc = _run_import(project, source if anywhere else embedded, db)
        if anywhere:  # start-up, migration, model load, embedding, writing
            deadline = started + rng.uniform(0.0, total)
        else:  # somewhere in the write phase, after the first commit
            while proc.poll() is None and _count(db) == 0:
                if time.monotonic() - started > total * 3:
                    break
                time.sleep(0.01)
            deadline = time.monotonic() + rng.uniform(0.0, max(0.1, total - first_commit))
        while proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        killed = proc.poll() is None
        if killed:
            os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=120)
        after = _verify_after_crash(db, memories, minilm)

        # re-running the import finishes the job: no duplicates, every memory exactly once
        with open_store(db, create=True, embedder=embed_once) as store:
            counts = import_memories(store, lines)
        assert counts["rejected"] == 0, counts
        assert counts["imported"] == n - after["rows"], (counts, after)
        assert counts["duplicates"] == after["rows"]
        final = _verify_after_crash(db, memories, minilm)
        assert final["state"] == "complete"
        assert len({r["content"] for r in rows_by_id(db).values()}) == n
        outcomes.append(
            {
                "killed": killed,
                "at_seconds": round(time.monotonic() - started, 2),
                **after,
            }
        )

    # the kills landed: an import still running when its moment came (a round whose import
    # ended first checks only the store it left)
    assert any(o["killed"] for o in outcomes), outcomes
    states = [o["state"] for o in outcomes]
    recorder(
        "crash_import",
        {
            "rounds": rounds,
            "memories_per_import": n,
            "batch": BATCH,
            "uninterrupted_import_seconds": round(total, 2),
            "first_commit_seconds": round(first_commit, 2),
            "killed": sum(o["killed"] for o in outcomes),
            "killed_with_no_store": states.count("no store"),
            "killed_before_first_commit": states.count("empty"),
            "killed_mid_import": states.count("partial"),
            "all_rows_committed_at_kill": states.count("complete"),
            "rows_present_after_kill": [o["rows"] for o in outcomes],
            "integrity_ok": rounds,
            "reimport_complete_without_duplicates": rounds,
        },
    )


#: The :class:`~tests.forking.Forker` of the writers, in the project: kenning imported once,
#: each writer (``child(notes.json)``) calls ``remember`` for each note in a loop and prints
#: each acknowledgement (a JSON line). The writers are processes of their own, killed as
#: before; what they no longer pay is an interpreter's start and kenning's imports each
#: (~0.3 CPU-s).
REMEMBERERS = """
    import json
    from kenning import open_store
    import kenning.embedders, kenning.store  # what a writer imports, once

    def child(notes_path):
        notes = json.load(open(notes_path))
        with open_store() as store:
            for text in notes:
                r = store.remember(text, "context")
                print(json.dumps({"status": r.status, "id": r.id, "content": text}), flush=True)
    """


def test_kill_during_remember(
    project: Path, tmp_path: Path, full: bool, recorder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the hashing embedder, for the writers and for doctor's check of their stamp: what a
    # kill must not lose is an acknowledged write, whatever embedded it (a writer loading
    # MiniLM spent ~0.35 CPU-s on it before its first write)
    monkeypatch.setenv("KENNING_EMBEDDER", "hashing")
    rounds = 20 if full else 3
    rng = random.Random(11)
    acknowledged: dict[str, str] = {}
    killed = 0
    with Forker(REMEMBERERS, cwd=project) as forker:
        for round_no in range(rounds):
            notes = tmp_path / f"notes-{round_no}.json"
            notes.write_text(json.dumps([random_note(rng) for _ in range(400)]))
            fifo = tmp_path / f"acks-{round_no}"
            os.mkfifo(fifo)
            pid = forker.fork(str(notes), fifo=fifo)
            acks: list[dict[str, Any]] = []
            first = threading.Event()

            def read(
                path: Path = fifo,
                sink: list[dict[str, Any]] = acks,
                event: threading.Event = first,
            ) -> None:
                with path.open() as stream:  # (waits for the writer to open it)
                    for line in stream:
                        sink.append(json.loads(line))
                        event.set()
                event.set()  # a writer that ended at once: its status says why

            reader = threading.Thread(target=read, daemon=True)
            reader.start()
            assert first.wait(180) and acks, "no ack"
            # 400 notes take seconds: a kill within 0.5 s of the first acknowledgement lands
            # in the loop of writes as surely as one within 1.5 s (full mode), at a third of
            # its CPU
            time.sleep(rng.uniform(0.05, 1.5 if full else 0.5))
            with contextlib.suppress(ProcessLookupError):  # (ended and reaped: not killed)
                os.kill(pid, signal.SIGKILL)
            killed += forker.status() == -signal.SIGKILL
            reader.join(timeout=30)
            for ack in acks:
                assert ack["status"] in ("stored", "near-duplicate"), ack
                if ack["status"] == "stored":
                    acknowledged[ack["id"]] = ack["content"]

            db = project / ".kenning" / "memory.db"
            report = run_doctor(store_path=db)
            assert report.healthy, report.to_dict()
            rows = rows_by_id(db)
            lost = [i for i in acknowledged if i not in rows]
            assert not lost, f"acknowledged writes lost after kill -9: {lost[:3]}"
            assert all(rows[i]["content"] == text for i, text in acknowledged.items())
    assert killed == rounds  # every kill landed while the process was still writing
    recorder(
        "crash_remember",
        {
            "rounds": rounds,
            "killed": killed,
            "acknowledged_writes": len(acknowledged),
            "acknowledged_found_after_kill": len(acknowledged),
        },
    )
