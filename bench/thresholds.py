"""Where ``kenning search``'s default similarity threshold sits for an embedder.

The threshold is a property of the vector space (the embedder and its model), not of
kenning: a value calibrated for one model means something else for another. This bench
measures it for the embedder kenning runs (``--embedder``, default ``minilm``), through
the path users take: stores built with ``remember_many`` as ``bench/quality.py`` builds
them (dedup on, the defaults), queries answered by ``MemoryStore.search`` with its defaults
(cascading, decay) and ``threshold=0`` so that every score is seen.

* **Unrelated queries** (false positives): every LoCoMo question searched in *another*
  conversation's project (the next one; nothing there answers it), and the hand-written
  unrelated queries of ``bench/data/yellow_queries.jsonl`` against the yellow ERROR-FIX
  entries. A threshold lets such a query through when its best semantic score reaches it.
* **Correct top-1 hits**: every query of the six sets of ``bench/quality.py`` whose top-1
  search result is a relevant memory; the threshold keeps it when its semantic score
  reaches it.

Rule: the chosen default is the lowest threshold (on a 0.01 grid) at which at most
:data:`MAX_FALSE_POSITIVES` of the LoCoMo cross-conversation questions return anything;
the bench then reports how many correct top-1 hits that threshold keeps (target: at least
:data:`MIN_KEPT` of them, pooled over the six sets) and says when the target is missed. The
chosen value goes into ``kenning.protocol.MEASURED_SEARCH_THRESHOLDS`` by hand, with the
run's figures in its comment; re-running this bench re-measures it (the score formula may
change: the lexical bonus is fused into the semantic score).

    python -m bench thresholds [--smoke] [--write-docs] [--embedder minilm]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
#: At most this share of unrelated LoCoMo questions may pass the chosen threshold.
MAX_FALSE_POSITIVES = 0.05
#: The chosen threshold should keep at least this share of correct top-1 hits.
MIN_KEPT = 0.90
#: The thresholds the table shows (the chosen one is added).
TABLE_THRESHOLDS = (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)
LOCOMO = "locomo (same conversation)"


def top_semantic(store, query: str, group: str) -> tuple[str | None, float | None]:  # type: ignore[no-untyped-def]
    """The top search result's id and the semantic score the threshold is tested on."""
    response = store.search(query, group_id=group, threshold=0.0, limit=1)
    if not response.results:
        return None, None
    top = response.results[0]
    return top.memory.id, top.semantic


def measure(sets, embedder, unrelated_limit: int | None = None) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """Scores of correct top-1 hits per set and of unrelated queries, through search
    (``unrelated_limit``: the first few hand-written unrelated yellow queries only)."""
    from bench.quality import build_store, read_jsonl

    correct: dict[str, list[float]] = {}
    counts: dict[str, dict[str, int]] = {}
    unrelated: dict[str, list[float]] = {}
    stores: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for s in sets:
            key = s.name.replace(" masked", "")
            if key not in stores:
                stores[key] = build_store(Path(tmp), s, embedder, dedup=True)
            store, holder = stores[key]
            scores = []
            for _, text, gold_docs, group in s.queries:
                gold = {holder.get(g, g) for g in gold_docs}
                top_id, semantic = top_semantic(store, text, group)
                if top_id in gold and semantic is not None:
                    scores.append(semantic)
            correct[s.name] = scores
            counts[s.name] = {"queries": len(s.queries), "correct_top1": len(scores)}
            print(f"{s.name}: {len(scores)}/{len(s.queries)} correct top-1", file=sys.stderr)
            if s.name == LOCOMO:
                convs = sorted({q[3] for q in s.queries})
                noise = []
                for _, text, _, group in s.queries:
                    other = convs[(convs.index(group) + 1) % len(convs)]
                    noise.append(top_semantic(store, text, other)[1])
                unrelated["locomo cross-conversation"] = [-1.0 if v is None else v for v in noise]
            if s.name == "yellow error-fix":
                queries = [
                    q["query"]
                    for q in read_jsonl(HERE / "data" / "yellow_queries.jsonl")
                    if not q["gold"]
                ][:unrelated_limit]
                unrelated["yellow unrelated"] = [
                    -1.0 if v is None else v
                    for v in (top_semantic(store, q, "yellow")[1] for q in queries)
                ]
        for store, _ in stores.values():
            store.close()
    return {"correct": correct, "counts": counts, "unrelated": unrelated}


def share_at_least(scores: list[float], threshold: float) -> float:
    return sum(v >= threshold for v in scores) / len(scores) if scores else math.nan


def choose(measured: dict[str, Any]) -> dict[str, Any]:
    """The rule of the module docstring, on a 0.01 grid."""
    noise = measured["unrelated"]["locomo cross-conversation"]
    pooled = [v for scores in measured["correct"].values() for v in scores]
    chosen = next(
        t / 100 for t in range(0, 101) if share_at_least(noise, t / 100) <= MAX_FALSE_POSITIVES
    )
    kept = share_at_least(pooled, chosen)
    return {
        "threshold": chosen,
        "locomo_false_positives": share_at_least(noise, chosen),
        "correct_kept": kept,
        "meets_kept_target": kept >= MIN_KEPT,
        "rule": (
            f"lowest threshold (0.01 grid) with LoCoMo cross-conversation false positives "
            f"<= {MAX_FALSE_POSITIVES:.0%}; target: >= {MIN_KEPT:.0%} of correct top-1 kept"
        ),
    }


def rows(measured: dict[str, Any], chosen: float) -> dict[str, dict[str, float]]:
    """Per threshold: the share of each unrelated set let through and of each set's correct
    top-1 hits kept (and pooled over the sets)."""
    pooled = [v for scores in measured["correct"].values() for v in scores]
    out: dict[str, dict[str, float]] = {}
    for t in sorted({*TABLE_THRESHOLDS, chosen}):
        row = {f"fp: {name}": share_at_least(v, t) for name, v in measured["unrelated"].items()}
        row |= {f"kept: {name}": share_at_least(v, t) for name, v in measured["correct"].items()}
        row["kept: all sets"] = share_at_least(pooled, t)
        out[f"{t:.2f}"] = row
    return out


def table(results: dict[str, Any]) -> str:
    by_threshold = results["table"]
    columns = list(next(iter(by_threshold.values())))
    chosen = f"{results['chosen']['threshold']:.2f}"
    lines = [
        "| threshold | " + " | ".join(columns) + " |",
        "|---|" + "---|" * len(columns),
    ]
    for t, row in by_threshold.items():
        label = f"**{t}** (chosen)" if t == chosen else t
        lines.append(f"| {label} | " + " | ".join(f"{row[c]:.1%}" for c in columns) + " |")
    c = results["chosen"]
    counts = results["counts"]
    lines += [
        "",
        "fp = share of unrelated queries whose best semantic score reaches the threshold "
        f"(LoCoMo: {len(results['unrelated_scores']['locomo cross-conversation'])} questions "
        "asked in another conversation; yellow: "
        f"{len(results['unrelated_scores']['yellow unrelated'])} hand-written unrelated "
        "queries); kept = share of correct top-1 search hits whose semantic score reaches it ("
        + ", ".join(f"{n}: {v['correct_top1']} of {v['queries']}" for n, v in counts.items())
        + ").",
        "",
        f"Embedder {results['embedder']}. Rule: {c['rule']}. Chosen: **{c['threshold']:.2f}** "
        f"— LoCoMo false positives {c['locomo_false_positives']:.1%}, correct top-1 kept "
        f"{c['correct_kept']:.1%} ("
        + ("meets" if c["meets_kept_target"] else "MISSES")
        + f" the {MIN_KEPT:.0%} target).",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--smoke", action="store_true", help="a few queries per set")
    parser.add_argument(
        "--write-docs", action="store_true", help="write the table into docs/benchmarks.md"
    )
    parser.add_argument("--embedder", default="minilm", help="the embedder to measure")
    args = parser.parse_args()
    from bench.quality import EVAL, load_sets
    from kenning.embedders import load_embedder

    if not EVAL.is_dir():
        sys.exit(f"evaluation data not found at {EVAL}; set KENNING_EVAL_DIR")
    started = time.time()
    embedder = load_embedder(args.embedder)
    # smoke: as many unrelated yellow queries as bench/quality.py's calibration asks
    measured = measure(load_sets(args.smoke), embedder, 4 if args.smoke else None)
    chosen = choose(measured)
    provenance = embedder.provenance
    results: dict[str, Any] = {
        "embedder": f"{provenance.embedder}:{provenance.model_id}",
        "chosen": chosen,
        "table": rows(measured, chosen["threshold"]),
        "counts": measured["counts"],
        "unrelated_scores": measured["unrelated"],
        "correct_scores": measured["correct"],
        "seconds": time.time() - started,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    name = "thresholds-smoke.json" if args.smoke else "thresholds.json"
    (RESULTS / name).write_text(json.dumps(results, indent=2))
    text = table(results)
    print(text)
    print(f"\nJSON: {RESULTS / name} ({results['seconds']:.0f} s)")
    if args.write_docs and not args.smoke:
        write_docs(text)


BEGIN, END = "<!-- thresholds:begin -->", "<!-- thresholds:end -->"


def write_docs(text: str) -> None:
    docs = ROOT / "docs" / "benchmarks.md"
    body = docs.read_text()
    if BEGIN not in body:
        body += "\n" + BEGIN + "\n" + END + "\n"
    head, rest = body.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    docs.write_text(head + BEGIN + "\n" + text + "\n" + END + tail)


if __name__ == "__main__":
    main()
