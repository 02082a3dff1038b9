"""``kill -9`` while the vector file (``memory.db.vectors``) is being appended to, compacted or
rebuilt: afterwards it must never disagree with SQLite.

A child process writes rows, searches (which appends them to the file), deletes rows (the
next search compacts the file) and re-embeds rows (the next search rebuilds it), in a loop,
and is killed at a random moment of that loop, again and again, on the same store. After
every kill a new process's search must equal brute force over SQLite's float32 BLOBs (the
source of truth) for every filter, and the file must then count exactly SQLite's rows.
"""

from __future__ import annotations

import contextlib
import os
import queue
import random
import signal
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kenning.backends.sqlite import SQLiteBackend

from ..forking import Forker
from ..test_vectorfile import (
    DIM,
    FILTERS,
    assert_same_ranking,
    brute_force,
    count_rows,
    file_header,
    records,
    sqlite_rows,
    vectors,
)

#: The :class:`~tests.forking.Forker` of the workers: kenning's SQLite backend and the tests'
#: rows imported once, each worker (``child(memory.db, seed)``) writes, searches, deletes and
#: re-embeds rows in a loop, printing ``open`` and then each step's number. Each worker is a
#: process of its own, killed as before, without an interpreter's start and the imports of
#: kenning and numpy (~0.25 CPU-s a round).
WORKERS = """
    import numpy as np
    from kenning.backends.base import Filters
    from kenning.backends.sqlite import SQLiteBackend
    from tests.vector_rows import records, vectors

    def child(db, seed):
        seed = int(seed)
        rng = np.random.default_rng(seed)
        backend = SQLiteBackend(db, create=False)
        print("open", flush=True)
        step = 0
        while True:
            step += 1
            start = 1_000_000 * seed + 1000 * step
            backend.upsert(records(start, vectors(300, seed * 1000 + step)))
            backend.vector_search(vectors(1, step)[0], 10, Filters())  # appends
            ids = [r[0] for r in backend._conn.execute(
                "SELECT id FROM memories ORDER BY random() LIMIT 60")]
            if step % 3 == 0:
                backend.delete(ids[:40])  # the next search compacts the file
            if step % 4 == 0:
                moved = vectors(20, step)
                backend.update_vectors([(i, moved[n]) for n, i in enumerate(ids[40:])])
            backend.vector_search(vectors(1, step + 7)[0], 10, Filters(group_id="acme/a"))
            print(step, flush=True)
    """


def _lines(fifo: Path) -> queue.Queue[tuple[float, str]]:
    """The lines a worker prints to ``fifo``, each with the time it was read, then ``""`` at
    its end."""
    lines: queue.Queue[tuple[float, str]] = queue.Queue()

    def read() -> None:
        with fifo.open() as stream:  # (waits for the worker to open it)
            for line in stream:
                lines.put((time.monotonic(), line))
        lines.put((time.monotonic(), ""))

    threading.Thread(target=read, daemon=True).start()
    return lines


def _check(db: Path, queries: np.ndarray) -> None:
    backend = SQLiteBackend(db, create=False)
    try:
        rows = sqlite_rows(db)
        for q in queries:
            for f in FILTERS:
                got = [(h.memory.id, h.score) for h in backend.vector_search(q, 10, f)]
                assert_same_ranking(got, brute_force(rows, q, 10, f))
    finally:
        backend.close()
    header = file_header(db)
    assert header is not None and header.count == count_rows(db)


@pytest.mark.slow
def test_kill_while_the_vector_file_is_written(tmp_path: Path, full: bool, recorder: Any) -> None:
    rounds = 25 if full else 4
    rng = random.Random(5)
    db = tmp_path / "memory.db"
    seed_backend = SQLiteBackend(db, dimension=DIM)
    # rebuilds take a while: kills land. Quick mode seeds 10,000 rows, not 20,000 (~2.8
    # CPU-s to write in this process): a worker's 12 steps measured in-process spent about
    # the same share of their CPU in the rebuilds (25% against 23%) and compactions, and
    # the kills are timed in steps, not seconds
    seed_backend.upsert(records(0, vectors(20_000 if full else 10_000, 1)))
    seed_backend.close()
    queries = vectors(4, 77)
    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": f"{repo}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    killed = steps = 0
    forker = Forker(WORKERS, env=env)
    running = None  # the worker of the round, until its end is seen
    try:
        for round_no in range(rounds):
            fifo = tmp_path / f"steps-{round_no}"
            os.mkfifo(fifo)
            pid = running = forker.fork(str(db), str(round_no + 1), fifo=fifo)
            lines = _lines(fifo)
            # Kills land in the worker's loop, whatever the machine's load (a time from its
            # start landed in its start-up on a busy one): a round waits for the store to be
            # open and round_no % 12 steps done (12: every mix of a delete, whose next search
            # compacts the file, and an update, whose next search rebuilds it), then kills
            # within two times the last step (the first round: the time to open the store):
            # each round of quick mode from another of steps 1-4 on.
            started = time.monotonic()
            for _ in range(round_no % 12 + 1):
                seen, line = lines.get(timeout=120)
                assert line, "the worker ended (its traceback is on the forker's stderr)"
                interval, started = seen - started, seen
            time.sleep(rng.uniform(0.0, interval if round_no % 12 == 0 else 2 * interval))
            with contextlib.suppress(ProcessLookupError):  # (ended and reaped: not killed)
                os.kill(pid, signal.SIGKILL)
            status = forker.status()
            running = None
            assert status == -signal.SIGKILL, status
            killed += 1
            while (line := lines.get(timeout=60)[1]) != "":
                steps += line.strip() != "open"
            steps += round_no % 12
            _check(db, queries)
    finally:
        if running is not None:  # a failed round: its worker loops for ever otherwise
            with contextlib.suppress(ProcessLookupError):
                os.kill(running, signal.SIGKILL)
        forker.close()
    assert killed == rounds
    recorder(
        "crash_vector_file",
        {"rounds": rounds, "killed": killed, "worker_steps": steps, "rows": count_rows(db)},
    )
