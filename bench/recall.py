"""Speed of the embedded default: ingest, warm recall, cascading search, cold CLI, disk.

Every figure is compared with a baseline measured in the same run (these machines are
shared and noisy, so ratios are what to trust):

* ingest (embed + dedup + store) vs the model's own batched onnxruntime throughput;
* warm recall (embed query + search + protocol) vs embedding the query alone, and recall's
  retrieval alone (the query's vector given: lexical side, vector search and scoring one
  after the other) vs the 0.3 × embedding that a 1.3 ratio leaves for everything else;
* warm recall with the stale check (on by default) vs the same recall with it turned off,
  a pair per query after the headline recall, its order alternating: every note names one
  of 50 files of the project, so ``remember`` records it (a fifth of those files change
  afterwards), and each recall hashes — or finds in its cache — the file of every
  candidate it ranks;
* cascading search (up to 3 collection queries) vs single-collection recall;
* warm recall on real documents (ruff's 973 rule docs from ../shared/eval, median ~800
  characters, stored through ``remember_many``; its real diagnostics as queries) vs
  embedding the query alone: the synthetic notes are short, and scoring tokenises every
  candidate a query ranks, so long documents cost what short ones do not;
* cold ``kenning recall`` process vs a bare ``python -c pass`` process;
* disk per memory vs the memory's own text.

The 10k store holds real MiniLM vectors for the ingest sample and, for the rest, those
vectors perturbed with noise and renormalised (so the search does real work on real-looking
vectors without embedding 10k texts for every run), written with the file record
``remember`` would have given them: each row is written once, as in a store grown note by
note (rewriting every row to add the records afterwards, as this benchmark once did, left
the full-text index fragmented: 0.85 ms per query instead of 0.66–0.72). Warm-up calls are
excluded.

    python -m bench.recall [--memories 10000] [--smoke]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results"
WORDS = [
    "cache",
    "database",
    "index",
    "migration",
    "retry",
    "timeout",
    "worker",
    "queue",
    "lock",
    "deploy",
    "build",
    "test",
    "lint",
    "config",
    "token",
    "session",
    "user",
    "request",
    "response",
    "handler",
    "parser",
    "schema",
    "column",
    "table",
    "vector",
    "thread",
    "process",
    "signal",
    "socket",
    "buffer",
    "stream",
    "file",
    "path",
    "module",
    "package",
    "import",
    "export",
    "error",
    "fix",
    "warning",
    "panic",
    "trace",
    "log",
    "metric",
    "alert",
    "release",
    "branch",
    "commit",
    "merge",
    "review",
    "plan",
    "api",
    "endpoint",
    "route",
    "service",
    "client",
    "server",
    "docker",
    "image",
    "volume",
    "network",
    "port",
    "proxy",
    "auth",
]
TYPES = [
    "implementation",
    "error_fix",
    "rule",
    "decision",
    "naming",
    "session",
    "refactor",
    "context",
]


def machine() -> dict[str, object]:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    # kenning first: its defaults (onnxruntime's telemetry off) apply to the import below
    import kenning  # noqa: F401

    # isort: split
    import onnxruntime

    return {
        "cores": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "onnxruntime": onnxruntime.__version__,
        "sqlite": __import__("sqlite3").sqlite_version,
    }


def _vocabulary() -> tuple[list[str], list[float]]:
    """64 real technical words plus 4,000 made-up identifiers, drawn with Zipf weights, so
    that term frequencies look like real notes (a few very common words, a long tail)."""
    syllables = ["ka", "lo", "mi", "ren", "tor", "vex", "quo", "zi", "bar", "nel", "sta", "pri"]
    rng = random.Random(11)
    made_up = {
        "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(6000)
    }
    vocab = WORDS + sorted(made_up)[:4000]
    rng.shuffle(vocab)
    weights = [1.0 / (rank + 1) for rank in range(len(vocab))]
    return vocab, weights


VOCAB, ZIPF = _vocabulary()
#: ZIPF's running sums, what random.choices(weights=ZIPF) would add up again at each call
#: (all 4,064 weights for each note's words); the same draws from the same generator
ZIPF_CUMULATIVE = list(itertools.accumulate(ZIPF))


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choices(VOCAB, cum_weights=ZIPF_CUMULATIVE, k=n))


#: Files of the benchmark's project that its notes name (freshness records them).
PROJECT_FILES = 50


def project_file(i: int) -> str:
    return f"src/mod{i % PROJECT_FILES:02d}.py"


def note(rng: random.Random, i: int) -> str:
    return f"Note {i}: when the {words(rng, 2)} in {project_file(i)} fails, {words(rng, 26)}."


def fill_with_perturbed(store, count: int, rng: random.Random, offset: int) -> None:  # type: ignore[no-untyped-def]
    """Add ``count`` memories straight through the backend, with vectors made by perturbing
    the store's real (embedded) vectors and renormalising, ages spread over 90 days, and the
    record of the project file each one names (as ``remember`` makes it, once per file)."""
    from kenning.backends.base import Filters, MemoryRecord
    from kenning.freshness import FILES_KEY, record
    from kenning.model import Memory, content_hash, new_memory_id, resolve_type

    base = np.stack([r.vector for r in store.backend.iterate(Filters())])
    files = {
        project_file(i): record([project_file(i)], store.project.files_root)
        for i in range(PROJECT_FILES)
    }
    now = datetime.now(UTC)
    batch: list[MemoryRecord] = []
    for i in range(max(0, count)):
        v = base[i % len(base)] + np.random.default_rng(i).normal(0, 0.05, base.shape[1])
        v = (v / np.linalg.norm(v)).astype(np.float32)
        text = note(rng, offset + i)
        mtype, collection = resolve_type(TYPES[i % len(TYPES)])
        recorded = files[project_file(offset + i)]
        memory = Memory(
            new_memory_id(),
            text,
            collection,
            mtype,
            store.group_id,
            now - timedelta(days=i % 90),
            content_hash(text),
            metadata={FILES_KEY: recorded} if recorded else {},
        )
        batch.append(MemoryRecord(memory, v))
        if len(batch) == 1000:
            store.backend.upsert(batch)
            batch = []
    store.backend.upsert(batch)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(values: list[float]) -> dict[str, float]:
    return {
        "p50": statistics.median(values),
        "p95": pct(values, 0.95),
        "min": min(values),
        "max": max(values),
        "n": len(values),
    }


def git_project(base: Path, files: int = 0) -> Path:
    """A git repository; with ``files``, that many source files the notes can name."""
    root = base / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for i in range(files):
        path = root / project_file(i)
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"def handler_{i}():\n    return {i}\n")
    return root


def change_some_files(root: Path, every: int = 5) -> int:
    """Rewrite every ``every``-th project file: memories naming them read as stale."""
    changed = 0
    for i in range(0, PROJECT_FILES, every):
        (root / project_file(i)).write_text(f"def handler_{i}(x):\n    return x\n")
        changed += 1
    return changed


def timed_pair(  # type: ignore[no-untyped-def]
    store,
    call: Callable[[], object],
    checked: list[float],
    unchecked: list[float],
    checked_first: bool,
) -> None:
    """Time ``call`` with the store's stale check on (into ``checked``) and off (into
    ``unchecked``), in the order given; the check is on again afterwards."""
    for check in (True, False) if checked_first else (False, True):
        store.check_freshness = check
        t = time.perf_counter()
        call()
        (checked if check else unchecked).append((time.perf_counter() - t) * 1000)
    store.check_freshness = True


def run(
    memories: int,
    sample: int,
    queries: int,
    cold_runs: int,
    settle_s: float = 2.1,
    *,
    smoke: bool = False,
) -> dict[str, object]:
    from kenning import open_store
    from kenning.backends.base import Filters
    from kenning.embedders import load_embedder
    from kenning.protocol import RECALL_TOP_K
    from kenning.store import NewMemory

    rng = random.Random(7)
    embedder = load_embedder("minilm")
    # each query timed as a new one, as a person's is: its recall runs the model, not the
    # vector of the query embedded alone just before it (kenning remembers those)
    embedder.remembered_vectors = 0
    texts = [note(rng, i) for i in range(sample)]
    out: dict[str, object] = {"machine": machine(), "memories": memories}

    with tempfile.TemporaryDirectory() as tmp:
        root = git_project(Path(tmp), PROJECT_FILES)
        store = open_store(cwd=root, embedder=embedder)

        # Baseline: the model's own batched throughput (batches of 32), warm.
        embedder.embed(texts[:32])
        t = time.perf_counter()
        for start in range(0, len(texts), 32):
            embedder.embed(texts[start : start + 32])
        raw_rate = len(texts) / (time.perf_counter() - t)

        t = time.perf_counter()
        results = store.remember_many(
            [NewMemory(text, TYPES[i % len(TYPES)]) for i, text in enumerate(texts)], batch_size=32
        )
        ingest_rate = len(texts) / (time.perf_counter() - t)
        stored = sum(r.status == "stored" for r in results)
        out["ingest"] = {
            "model_texts_per_s": raw_rate,
            "kenning_texts_per_s": ingest_rate,
            "ratio": ingest_rate / raw_rate,
            "stored": stored,
            "near_duplicates": len(texts) - stored,
            "target_ratio": 0.8,
        }

        fill_with_perturbed(store, memories - stored, rng, offset=sample)

        db = Path(store.backend.location)
        store.backend._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = sum(p.stat().st_size for p in db.parent.glob(db.name + "*"))
        text_bytes = sum(len(note(random.Random(7), 0).encode()) for _ in range(1)) * memories
        per = size / memories
        out["disk"] = {
            "bytes_per_memory": per,
            "text_bytes_per_memory": text_bytes / memories,
            "overhead_bytes_per_memory": per - text_bytes / memories,
            "target_overhead_bytes": 3072,
        }

        out["stale_files"] = change_some_files(root)
        time.sleep(settle_s)  # files changed in the last 2 s are re-hashed on every check

        qs = [words(rng, 8) for _ in range(queries)]
        for q in qs[:5]:  # warm-up, excluded
            store.recall(q)
            store.search(q, threshold=0.0)
        embed_ms, recall_ms, search_ms, cascade_count = [], [], [], 0
        retrieve_ms: list[float] = []
        filters = Filters(group_id=store.group_id)
        checked_ms: list[float] = []
        unchecked_ms: list[float] = []
        wide_ms: list[float] = []
        wide_unchecked_ms: list[float] = []
        stale_hits = hits = 0
        for q in qs:
            t = time.perf_counter()
            vector = embedder.embed([q])[0]
            embed_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            result = store.recall(q)
            recall_ms.append((time.perf_counter() - t) * 1000)
            stale_hits += sum(h.stale for h in result.hits)
            hits += len(result.hits)
            # The stale check's cost: the same recall, then the widest search (no threshold:
            # 20 candidates ranked and checked), each with the check on and off, in an order
            # that alternates query by query, so that neither side always meets the caches
            # the other one warmed.
            checked_first = len(checked_ms) % 2 == 0
            timed_pair(store, partial(store.recall, q), checked_ms, unchecked_ms, checked_first)
            timed_pair(
                store,
                partial(store.search, q, threshold=0.0, use_cascading=False),
                wide_ms,
                wide_unchecked_ms,
                not checked_first,
            )
            t = time.perf_counter()
            # threshold 0.99 makes the primary collection come up short, so it always cascades
            response = store.search(q, threshold=0.99)
            search_ms.append((time.perf_counter() - t) * 1000)
            cascade_count += response.expanded
            # What recall does besides embedding, one step after the other (the query's
            # vector given, so its lexical side runs inline): last, so that it warms nothing
            # the recalls above measure.
            t = time.perf_counter()
            store.retrieve(q, RECALL_TOP_K, filters, vector=vector)
            retrieve_ms.append((time.perf_counter() - t) * 1000)
        out["warm_recall_ms"] = summary(recall_ms)
        out["warm_recall_stale_check_ms"] = summary(checked_ms)
        out["warm_recall_no_stale_check_ms"] = summary(unchecked_ms)
        out["stale_check_ratio"] = statistics.median(checked_ms) / statistics.median(unchecked_ms)
        out["stale_hits"] = stale_hits
        out["recall_hits"] = hits
        out["search_20_checked_ms"] = summary(wide_ms)
        out["search_20_unchecked_ms"] = summary(wide_unchecked_ms)
        out["query_embed_ms"] = summary(embed_ms)
        out["retrieve_given_vector_ms"] = summary(retrieve_ms)
        out["cascading_search_ms"] = summary(search_ms)
        out["cascaded_queries"] = cascade_count
        out["recall_vs_embed_ratio"] = statistics.median(recall_ms) / statistics.median(embed_ms)
        out["search_vs_recall_ratio"] = statistics.median(search_ms) / statistics.median(recall_ms)

        store.close()

        out["real_documents"] = real_documents(embedder, Path(tmp), queries, smoke=smoke)

        env = {**os.environ}
        kenning_cmd = [
            sys.executable,
            "-m",
            "kenning",
            "recall",
            "database is locked when two agents write",
        ]
        bare_cmd = [sys.executable, "-c", "pass"]
        if cold_runs > 1:  # warm the OS cache (a single run, as in smoke, is not timed apart)
            subprocess.run(kenning_cmd, cwd=root, env=env, capture_output=True, check=True)
        cold, bare = [], []
        for _ in range(cold_runs):
            t = time.perf_counter()
            subprocess.run(kenning_cmd, cwd=root, env=env, capture_output=True, check=True)
            cold.append(time.perf_counter() - t)
            t = time.perf_counter()
            subprocess.run(bare_cmd, env=env, capture_output=True, check=True)
            bare.append(time.perf_counter() - t)
        out["cold_cli_recall_s"] = summary(cold)
        out["bare_python_s"] = summary(bare)
    return out


def real_documents(embedder, tmp: Path, queries: int, *, smoke: bool) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """Warm recall on the ruff rule docs, one query after the other, against embedding the
    same query alone (timed just before it)."""
    from bench.quality import build_store, load_sets

    ruff = next(s for s in load_sets(smoke) if s.name == "ruff")
    store, _ = build_store(tmp, ruff, embedder, dedup=True)
    asked = [q[1] for q in ruff.queries][:queries]
    for q in asked[:5]:  # warm-up, excluded
        store.recall(q, group_id="ruff")
    embed_ms, recall_ms = [], []
    for q in asked:
        t = time.perf_counter()
        embedder.embed([q])
        embed_ms.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        store.recall(q, group_id="ruff")
        recall_ms.append((time.perf_counter() - t) * 1000)
    store.close()
    return {
        "set": ruff.name,
        "documents": len(ruff.docs),
        "median_chars": statistics.median(len(d[1]) for d in ruff.docs),
        "warm_recall_ms": summary(recall_ms),
        "query_embed_ms": summary(embed_ms),
        "recall_vs_embed_ratio": statistics.median(recall_ms) / statistics.median(embed_ms),
    }


def table(r: dict[str, object]) -> str:
    ing, disk = r["ingest"], r["disk"]
    wr, qe, cs = r["warm_recall_ms"], r["query_embed_ms"], r["cascading_search_ms"]
    nc = r["warm_recall_no_stale_check_ms"]
    # runs before the pairs alternated kept the headline recall as the checked side
    ck = r.get("warm_recall_stale_check_ms", wr)
    rv = r.get("retrieve_given_vector_ms")
    sw, su = r["search_20_checked_ms"], r["search_20_unchecked_ms"]
    cold, bare = r["cold_cli_recall_s"], r["bare_python_s"]
    m = r["machine"]
    rows = [
        ("what", "kenning", "baseline", "ratio", "target"),
        (
            "ingest texts/s (embed+dedup+store)",
            f"{ing['kenning_texts_per_s']:.1f}",
            f"{ing['model_texts_per_s']:.1f} (model alone)",
            f"{ing['ratio']:.2f}",
            "≥ 0.80",
        ),
        (
            f"warm recall p50 ms @ {r['memories']}",
            f"{wr['p50']:.2f} ({wr['min']:.2f}–{wr['max']:.2f})",
            f"{qe['p50']:.2f} (embed query alone)",
            f"{r['recall_vs_embed_ratio']:.2f}",
            "ratio ≤ 1.3",
        ),
        *(
            [
                (
                    "  its retrieval alone p50 ms",
                    f"{rv['p50']:.2f} ({rv['min']:.2f}–{rv['max']:.2f})",
                    f"{0.3 * qe['p50']:.2f} (what ratio 1.3 leaves)",
                    f"{rv['p50'] / (0.3 * qe['p50']):.2f}",
                    "",
                )
            ]
            if rv
            else []
        ),
        *(
            [
                (
                    f"  on real documents ({rd['set']}, {rd['documents']})",
                    f"{rd['warm_recall_ms']['p50']:.2f} "
                    f"({rd['warm_recall_ms']['min']:.2f}–{rd['warm_recall_ms']['max']:.2f})",
                    f"{rd['query_embed_ms']['p50']:.2f} (embed query alone)",
                    f"{rd['recall_vs_embed_ratio']:.2f}",
                    "ratio ≤ 1.3",
                )
            ]
            if (rd := r.get("real_documents"))
            else []
        ),
        (
            "warm recall p50 ms, stale check on",
            f"{ck['p50']:.2f} ({ck['min']:.2f}–{ck['max']:.2f})",
            f"{nc['p50']:.2f} (check off)",
            f"{r['stale_check_ratio']:.2f}",
            "",
        ),
        (
            "search p50 ms, 20 candidates checked",
            f"{sw['p50']:.2f} ({sw['min']:.2f}–{sw['max']:.2f})",
            f"{su['p50']:.2f} (check off)",
            f"{sw['p50'] / su['p50']:.2f}",
            "",
        ),
        (
            "cascading search p50 ms",
            f"{cs['p50']:.2f} ({cs['min']:.2f}–{cs['max']:.2f})",
            f"{wr['p50']:.2f} (recall)",
            f"{r['search_vs_recall_ratio']:.2f}",
            "ratio ≤ 2",
        ),
        (
            "cold `kenning recall` s",
            f"{cold['p50']:.3f} ({cold['min']:.3f}–{cold['max']:.3f})",
            f"{bare['p50']:.3f} (python -c pass)",
            f"{cold['p50'] / bare['p50']:.1f}",
            "≤ 0.6 s",
        ),
        (
            "disk bytes/memory (excl. text)",
            f"{disk['overhead_bytes_per_memory']:.0f}",
            f"{disk['text_bytes_per_memory']:.0f} (text)",
            "",
            "≤ 3072",
        ),
    ]
    widths = [max(len(str(row[i])) for row in rows) for i in range(5)]
    lines = [
        f"machine: {m['cores']} cores, {m['cpu']}; python {m['python']}, onnxruntime {m['onnxruntime']}, sqlite {m['sqlite']}"
    ]
    lines.append(
        f"median of N runs (min–max); warm-up excluded; N = {wr['n']} queries, {cold['n']} cold runs"
    )
    lines.append(
        f"every memory names one of {PROJECT_FILES} project files, {r['stale_files']} of them "
        f"changed since: {r['stale_hits']} of the recalls' {r['recall_hits']} hits were stale"
    )
    for i, row in enumerate(rows):
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)))
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument(
        "--sample", type=int, default=512, help="notes embedded for the ingest figure"
    )
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--cold-runs", type=int, default=7)
    parser.add_argument(
        "--smoke", action="store_true", help="tiny sizes: checks the bench still runs"
    )
    args = parser.parse_args()
    from bench.quality import EVAL  # the real-documents figure, measured last, reads it

    if not EVAL.is_dir():
        sys.exit(f"evaluation data not found at {EVAL}; set KENNING_EVAL_DIR")
    if args.smoke:  # 2 notes embedded: MiniLM on the sample (~0.08 CPU-s a note, embedded
        # three times: warm-up, the model's own rate, remember) was most of a smoke run's CPU;
        # two still make remember_many check a note against another of its batch, and the
        # rest of the store is perturbed from them as from any sample.
        # two queries: the stale check's on/off timing alternates its order query by query,
        # and each order then runs once (each query embeds itself about eight times)
        args.memories, args.sample, args.queries, args.cold_runs = 300, 2, 2, 1
    # --smoke only checks that the benchmark runs: its figures need no settled files
    settle_s = 0.0 if args.smoke else 2.1
    result = run(
        args.memories, args.sample, args.queries, args.cold_runs, settle_s, smoke=args.smoke
    )
    RESULTS.mkdir(exist_ok=True)
    name = "recall-smoke.json" if args.smoke else "recall.json"
    (RESULTS / name).write_text(json.dumps(result, indent=2))
    print(table(result))
    print(f"\nJSON: {RESULTS / name}")


if __name__ == "__main__":
    main()
