"""What the hardening of issue 13 costs: forgetting for good, and checking every vector.

* **forget** — ``MemoryStore.forget`` (the public path: ``DELETE`` with ``secure_delete``,
  an FTS5 ``optimize``, a WAL checkpoint) against the baseline it replaced, a plain
  ``DELETE`` whose trigger only adds an FTS5 tombstone, run on two copies of one store in the
  same run. After each, the store's files (``memory.db``, ``-wal``) are searched for the
  forgotten memories' unique words: the baseline leaves them, forget must not.
* **vector check** — the unit-norm check (``kenning.vectors.bad_rows``) a cold process runs
  over the whole cached matrix, against reading that matrix from SQLite (the load it is part
  of), and against the numpy cosine scan of one query over it.

Stores are filled through ``Backend.upsert`` in batches of 1000 (random unit vectors, notes
of ~30 words from the recall benchmark's vocabulary, 10 projects), as ``bench/scale.py``
does; only the operations measured go through the public API.

    python -m bench.hardening [--smoke] [--sizes 1000,10000,100000] [--forgets 5]

Results: a table on stdout and ``bench/results/hardening[-smoke].json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"

from bench.recall import WORDS, machine  # noqa: E402 - shared with the speed benchmarks

DIM = 384


def _fill(db: Path, size: int, forget: int, rng: np.random.Generator) -> list[str]:
    """A store of ``size`` memories; returns the ids of ``forget`` of them, each holding a
    unique word (``zqxforgetN``) that appears nowhere else."""
    from kenning.backends.base import MemoryRecord
    from kenning.backends.sqlite import SQLiteBackend
    from kenning.model import Memory, content_hash, new_memory_id, resolve_type

    words = random.Random(7)
    backend = SQLiteBackend(db, dimension=DIM)
    mtype, collection = resolve_type("context")
    chosen = set(rng.choice(size, size=forget, replace=False).tolist())
    ids: list[str] = []
    now = datetime.now(UTC)
    batch: list[MemoryRecord] = []
    for i in range(size):
        text = " ".join(words.choices(WORDS, k=30)) + f" note {i}"
        if i in chosen:
            text += f" zqxforget{len(ids)}"
        vector = rng.normal(size=DIM).astype(np.float32)
        vector /= np.linalg.norm(vector)
        memory = Memory(
            new_memory_id(), text, collection, mtype, f"org/p{i % 10}", now, content_hash(text)
        )
        if i in chosen:
            ids.append(memory.id)
        batch.append(MemoryRecord(memory, vector))
        if len(batch) == 1000:
            backend.upsert(batch)
            batch = []
    backend.upsert(batch)
    backend.close()
    return ids


def _leftovers(db: Path, count: int) -> int:
    """How many of the forgotten memories' unique words are still in the files."""
    data = b"".join(p.read_bytes() for p in (db, db.with_name(db.name + "-wal")) if p.exists())
    return sum(f"zqxforget{i}".encode() in data for i in range(count))


def _forget_kenning(root: Path, ids: list[str]) -> tuple[list[float], int]:
    from kenning import open_store

    times = []
    with open_store(cwd=root, group_id="bench/forget", create=False, embedder="hashing") as store:
        for memory_id in ids:
            start = time.perf_counter()
            assert store.forget(memory_id, group_id="all")
            times.append(time.perf_counter() - start)
        left = _leftovers(root / ".kenning" / "memory.db", len(ids))
    return times, left


def _forget_baseline(db: Path, ids: list[str]) -> tuple[list[float], int]:
    """What forget did before: a durable DELETE; its trigger adds an FTS5 tombstone."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA synchronous = FULL")
    times = []
    for memory_id in ids:
        start = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,))
        conn.execute("COMMIT")
        times.append(time.perf_counter() - start)
    left = _leftovers(db, len(ids))
    conn.close()
    return times, left


def _vector_check(db: Path) -> dict[str, float]:
    from kenning.vectors import bad_rows

    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    start = time.perf_counter()
    blobs = [r[0] for r in conn.execute("SELECT embedding FROM memories ORDER BY rowid")]
    matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), DIM)
    load = time.perf_counter() - start
    conn.close()
    checks = []
    for _ in range(5):
        start = time.perf_counter()
        assert not bad_rows(matrix).any()
        checks.append(time.perf_counter() - start)
    query = matrix[0].copy()
    scans = []
    for _ in range(5):
        start = time.perf_counter()
        matrix @ query
        scans.append(time.perf_counter() - start)
    return {
        "rows": float(len(blobs)),
        "load_ms": load * 1000,
        "check_ms": statistics.median(checks) * 1000,
        "scan_ms": statistics.median(scans) * 1000,
    }


def run_size(size: int, forgets: int) -> dict[str, Any]:
    rng = np.random.default_rng(size)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "proj"
        root.mkdir()
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        db = root / ".kenning" / "memory.db"
        start = time.perf_counter()
        ids = _fill(db, size, forgets, rng)
        fill_s = time.perf_counter() - start
        baseline_db = Path(tmp) / "baseline" / "memory.db"
        baseline_db.parent.mkdir()
        shutil.copyfile(db, baseline_db)
        vectors = _vector_check(db)
        kenning_times, kenning_left = _forget_kenning(root, ids)
        base_times, base_left = _forget_baseline(baseline_db, ids)
    k50, b50 = statistics.median(kenning_times), statistics.median(base_times)
    return {
        "size": size,
        "fill_s": round(fill_s, 2),
        "forget_ms_p50": round(k50 * 1000, 2),
        "forget_ms_max": round(max(kenning_times) * 1000, 2),
        "baseline_delete_ms_p50": round(b50 * 1000, 2),
        "ratio_forget_to_baseline": round(k50 / b50, 1) if b50 else None,
        "words_left_after_forget": kenning_left,
        "words_left_after_baseline": base_left,
        "forgotten": len(ids),
        "vector_check": {k: round(v, 2) for k, v in vectors.items()},
        "vector_check_share_of_load": round(vectors["check_ms"] / vectors["load_ms"], 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="one tiny store")
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--forgets", type=int, default=5)
    args = parser.parse_args()
    sizes = [300] if args.smoke else [int(s) for s in args.sizes.split(",")]
    rows = [run_size(size, args.forgets) for size in sizes]
    header = (
        f"{'memories':>9} {'forget p50':>11} {'DELETE p50':>11} {'ratio':>6} "
        f"{'words left (forget/DELETE)':>27} {'check ms':>9} {'load ms':>8} {'scan ms':>8}"
    )
    print(header)
    for r in rows:
        v = r["vector_check"]
        left = (
            f"{r['words_left_after_forget']}/{r['words_left_after_baseline']} of {r['forgotten']}"
        )
        print(
            f"{r['size']:>9} {r['forget_ms_p50']:>9.1f}ms {r['baseline_delete_ms_p50']:>9.1f}ms "
            f"{r['ratio_forget_to_baseline']:>6} {left:>27} {v['check_ms']:>9.2f} "
            f"{v['load_ms']:>8.1f} {v['scan_ms']:>8.2f}"
        )
    out = {"machine": machine(), "smoke": args.smoke, "sizes": rows}
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / ("hardening-smoke.json" if args.smoke else "hardening.json")
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
