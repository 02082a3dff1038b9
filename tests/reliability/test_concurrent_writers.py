"""Many processes writing and reading one embedded store at once.

Writers call ``remember`` with a mix of unique notes (random sentences from a ~20k-word
vocabulary, far below the 0.82 dedup cosine of one another), notes shared by every writer
(identical content racing for one row) and repeats of their own earlier notes. Readers run
``recall`` in a loop meanwhile. Afterwards: every acknowledged ``stored`` id is present
with exactly the content written, each distinct content is stored once, nobody met
``database is locked`` or any exception, and every memory a reader was shown is a whole,
committed row.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ..racing import start_together, writer_script
from .conftest import random_note, rows_by_id

WRITER = writer_script(
    """
    import json, sys, time, traceback
    from kenning import open_store
    from kenning.embedders import load_embedder
    plan = json.load(open(sys.argv[1]))
    out = sys.argv[2]
    load_embedder().embed(["the model loaded"])  # the one open_store() takes
    AWAIT_GO
    store = open_store()
    results = []
    started = time.monotonic()
    for text in plan:
        try:
            r = store.remember(text, "context")
            results.append({"content": text, "status": r.status, "id": r.id,
                            "score": r.score, "reason": r.reason})
        except Exception as exc:
            results.append({"content": text, "status": "exception",
                            "error": "".join(traceback.format_exception(exc))})
    store.close()
    json.dump({"results": results, "seconds": time.monotonic() - started}, open(out, "w"))
    """
)

READER = writer_script(
    """
    import json, os, random, sys, time, traceback
    from kenning import open_store
    from kenning.embedders import load_embedder
    queries = json.load(open(sys.argv[1]))
    out, stop, seed = sys.argv[2], sys.argv[3], int(sys.argv[4])
    rng = random.Random(seed)
    load_embedder().embed(["the model loaded"])
    AWAIT_GO
    store = open_store(create=True)
    seen, errors, calls, hits, latencies = {}, [], 0, 0, []
    while not os.path.exists(stop) or calls < 3:
        query = rng.choice(queries)
        t = time.monotonic()
        try:
            result = store.recall(query)
            calls += 1
            for hit in result.hits:
                hits += 1
                seen.setdefault(hit.memory.id, set()).add(hit.memory.content)
        except Exception as exc:
            errors.append("".join(traceback.format_exception(exc)))
            if len(errors) > 20:
                break
        latencies.append(time.monotonic() - t)
    store.close()
    json.dump({"seen": {k: sorted(v) for k, v in seen.items()}, "errors": errors,
               "calls": calls, "hits": hits, "latencies": latencies}, open(out, "w"))
    """
)


def _plans(rng: random.Random, writers: int, per_writer: int) -> list[list[str]]:
    """Per writer: 1/3 shared notes (every writer writes each one, in its own order),
    repeats of its own notes every 10th call, the rest unique."""
    shared = [random_note(rng) for _ in range(max(1, per_writer // 3))]
    plans = []
    for _ in range(writers):
        order = shared[:]
        rng.shuffle(order)
        plan: list[str] = []
        for k in range(per_writer):
            if k % 3 == 0 and order:
                plan.append(order.pop())
            elif k % 10 == 9 and plan:
                plan.append(plan[k - 5])
            else:
                plan.append(random_note(rng))
        plans.append(plan)
    return plans


@pytest.mark.slow
def test_concurrent_writers_and_readers(
    project: Path, tmp_path: Path, full: bool, recorder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the hashing embedder, in every writer and reader: what races is the store's writes and
    # reads, whatever embedded the notes (each process loaded MiniLM before the start, ~0.35
    # CPU-s, and embedded a note in ~5 ms, which only spaced its writes further apart)
    monkeypatch.setenv("KENNING_EMBEDDER", "hashing")
    writers, per_writer, readers = (8, 250, 4) if full else (3, 30, 1)
    rng = random.Random(20240611)
    plans = _plans(rng, writers, per_writer)
    everything = sorted({text for plan in plans for text in plan})
    queries_file = tmp_path / "queries.json"
    queries_file.write_text(json.dumps(everything))
    stop = tmp_path / "stop"
    commands: list[tuple[str, list[str], Path]] = []
    for w, plan in enumerate(plans):
        plan_file = tmp_path / f"plan-{w}.json"
        plan_file.write_text(json.dumps(plan))
        out = tmp_path / f"writer-{w}.json"
        commands.append(("writer", [sys.executable, "-c", WRITER, str(plan_file), str(out)], out))
    for r in range(readers):
        out = tmp_path / f"reader-{r}.json"
        cmd = [sys.executable, "-c", READER, str(queries_file), str(out), str(stop), str(r)]
        commands.append(("reader", cmd, out))
    # every process loads the model first, then all open the store (which none has made
    # yet) and write or read at once: the readers read for as long as the writes take
    started_together = start_together([cmd for _, cmd, _ in commands], cwd=project)
    started = time.monotonic()
    procs = [
        (kind, proc, out) for (kind, _, out), proc in zip(commands, started_together, strict=True)
    ]

    stderrs: list[str] = []
    timeout = 1800 if full else 600
    try:
        for kind, proc, _ in procs:
            if kind == "writer":
                _, err = proc.communicate(timeout=timeout)
                stderrs.append(err)
                assert proc.returncode == 0, err
        write_seconds = time.monotonic() - started
        stop.write_text("stop")
        for kind, proc, _ in procs:
            if kind == "reader":
                _, err = proc.communicate(timeout=timeout)
                stderrs.append(err)
                assert proc.returncode == 0, err
    finally:
        # A writer that failed ended the test before the stop file: its readers recalled
        # in a loop for good (two spun for 43 minutes, a core each, after red runs)
        for _, proc, _ in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    for err in stderrs:
        assert "database is locked" not in err, err
        assert "Traceback" not in err, err

    outcomes = [o for kind, _, out in procs if kind == "writer" for o in _load(out)["results"]]
    failures = [o for o in outcomes if o["status"] not in ("stored", "near-duplicate")]
    assert not failures, failures[:3]

    rows = rows_by_id(project / ".kenning" / "memory.db")
    stored = {o["id"]: o["content"] for o in outcomes if o["status"] == "stored"}
    # every acknowledged write is present, with exactly the content written
    missing = [i for i in stored if i not in rows]
    assert not missing, f"{len(missing)} acknowledged ids are missing: {missing[:3]}"
    assert all(rows[i]["content"] == text for i, text in stored.items())
    assert set(rows) == set(stored), "a row exists that no writer was told it stored"
    # each distinct content at most once; every near-duplicate points at a stored row
    copies = Counter(r["content"] for r in rows.values())
    assert max(copies.values()) == 1, copies.most_common(3)
    for o in outcomes:
        assert o["id"] in rows, o
    # a distinct content is missing only if it was a genuine near-duplicate (score < 1) of
    # another, different note: that is dedup doing its job, not a lost write
    skipped = set(everything) - set(copies)
    for text in skipped:
        acks = [o for o in outcomes if o["content"] == text]
        assert all(o["status"] == "near-duplicate" and o["score"] < 1.0 for o in acks), acks
        assert all(rows[o["id"]]["content"] != text for o in acks)
    assert len(skipped) <= max(1, len(everything) // 100), f"{len(skipped)} near-duplicates"
    shared = {t for t in everything if sum(t in plan for plan in plans) == writers}
    assert all(copies[t] == 1 for t in shared - skipped)

    # readers never saw a half-written memory: each id they were shown is a committed row
    # whose full content is what they saw and what its writer wrote
    reads = [_load(out) for kind, _, out in procs if kind == "reader"]
    reader_errors = [e for r in reads for e in r["errors"]]
    assert not reader_errors, reader_errors[:2]
    seen: dict[str, set[str]] = {}
    for r in reads:
        for memory_id, contents in r["seen"].items():
            seen.setdefault(memory_id, set()).update(contents)
    for memory_id, contents in seen.items():
        assert memory_id in rows, memory_id
        assert contents == {rows[memory_id]["content"]} == {stored[memory_id]}
    calls = sum(r["calls"] for r in reads)
    hits = sum(r["hits"] for r in reads)
    assert calls > 0 and hits > 0
    latencies = sorted(x for r in reads for x in r["latencies"])

    recorder(
        "concurrent_writers",
        {
            "writers": writers,
            "writes_per_writer": per_writer,
            "readers": readers,
            "writes_attempted": len(outcomes),
            "distinct_contents": len(everything),
            "acknowledged_stored": len(stored),
            "acknowledged_near_duplicate": sum(o["status"] == "near-duplicate" for o in outcomes),
            "found_rows": len(rows),
            "acknowledged_and_found": sum(i in rows for i in stored),
            "legit_near_duplicate_skips": len(skipped),
            "database_locked_errors": 0,
            "exceptions": 0,
            "reader_recall_calls": calls,
            "reader_hits_checked": hits,
            "reader_recall_p50_ms": round(latencies[len(latencies) // 2] * 1000, 1),
            "reader_recall_max_ms": round(latencies[-1] * 1000, 1),
            "writers_wall_seconds": round(write_seconds, 1),
            "writes_per_second": round(len(outcomes) / write_seconds, 1),
        },
    )


def _load(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text())
    assert isinstance(data, dict)
    return data
