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

import contextlib
import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from .conftest import random_note, rows_by_id

#: The processes' parent: kenning, its store and the embedder imported and loaded once, then
#: a process forked for each role of ``sys.argv[1]`` (``[kind, [args…], stderr file]``), a
#: writer (``write(plan, out)``) or a reader (``read(queries, out, stop, seed)``), its stderr
#: the file named. Each is a process of its own with its own store (opened after the fork);
#: they wait on one pipe until the test says go, so they start writing and reading at one
#: moment. Once they are forked it prints ``ready``; after the go, a JSON line for each that
#: ends (``kind``, exit ``code``). (Each was a Python started with these imports of its own,
#: ~0.45 CPU-s a process.)
PROCESSES = """
import json, os, random, sys, time, traceback
from kenning import open_store
from kenning.embedders import load_embedder
import kenning.backends.sqlite, kenning.store
load_embedder().embed(["the model loaded"])  # the one open_store() takes


def write(plan_path, out):
    plan = json.load(open(plan_path))
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


def read(queries_path, out, stop, seed):
    queries = json.load(open(queries_path))
    rng = random.Random(int(seed))
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


go, say_go = os.pipe()
kinds = {}
for kind, args, err in json.loads(sys.argv[1]):
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(say_go)
            os.dup2(os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 2)
            os.read(go, 1)
            (write if kind == "writer" else read)(*args)
        except BaseException:
            traceback.print_exc()
            code = 1
        sys.stderr.flush()
        os._exit(code)
    kinds[pid] = kind
print("ready", flush=True)
sys.stdin.readline()
os.write(say_go, b"g" * len(kinds))
for _ in kinds:
    pid, status = os.wait()
    print(json.dumps({"kind": kinds[pid], "code": os.waitstatus_to_exitcode(status)}), flush=True)
"""


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
    roles: list[tuple[str, list[str], str]] = []
    for w, plan in enumerate(plans):
        plan_file = tmp_path / f"plan-{w}.json"
        plan_file.write_text(json.dumps(plan))
        args = [str(plan_file), str(tmp_path / f"writer-{w}.json")]
        roles.append(("writer", args, str(tmp_path / f"writer-{w}.err")))
    for r in range(readers):
        args = [str(queries_file), str(tmp_path / f"reader-{r}.json"), str(stop), str(r)]
        roles.append(("reader", args, str(tmp_path / f"reader-{r}.err")))
    # every process has the embedder loaded, then all open the store (which none has made
    # yet) and write or read at once: the readers read for as long as the writes take
    parent = subprocess.Popen(
        [sys.executable, "-c", PROCESSES, json.dumps(roles)],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its processes are killed with it, should the test fail
    )
    assert parent.stdin is not None and parent.stdout is not None
    said: queue.Queue[str] = queue.Queue()

    def hear(stream: Any = parent.stdout) -> None:
        for line in stream:
            said.put(line)
        said.put("")  # the parent has ended

    threading.Thread(target=hear, daemon=True).start()
    timeout = 1800 if full else 600
    ended: list[dict[str, Any]] = []

    def next_line() -> str:
        line = said.get(timeout=timeout)
        assert line, f"the parent ended: {parent.stderr.read() if parent.stderr else ''}"
        return line

    def wait_for_the(kind: str) -> None:
        while sum(e["kind"] == kind for e in ended) < sum(k == kind for k, _, _ in roles):
            ended.append(json.loads(next_line()))

    try:
        assert next_line() == "ready\n"
        parent.stdin.write("go\n")
        parent.stdin.flush()
        started = time.monotonic()
        wait_for_the("writer")
        write_seconds = time.monotonic() - started
        stop.write_text("stop")
        wait_for_the("reader")
        assert parent.wait(timeout=60) == 0, parent.stderr.read() if parent.stderr else ""
    finally:
        # A writer that failed ended the test before the stop file: its readers recalled
        # in a loop for good (two spun for 43 minutes, a core each, after red runs)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(parent.pid, signal.SIGKILL)
        parent.wait()
        parent.stdin.close()
        if parent.stderr is not None:
            parent.stderr.close()
    stderrs = [Path(err).read_text() for _, _, err in roles]
    assert [e["code"] for e in ended] == [0] * len(roles), (ended, stderrs)
    for err in stderrs:
        assert "database is locked" not in err, err
        assert "Traceback" not in err, err

    outputs = [(kind, Path(args[1])) for kind, args, _ in roles]
    outcomes = [o for kind, out in outputs if kind == "writer" for o in _load(out)["results"]]
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
    reads = [_load(out) for kind, out in outputs if kind == "reader"]
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
