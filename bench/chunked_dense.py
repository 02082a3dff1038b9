"""Would multi-vector ("chunked") dense scoring help the hybrid? Measured before building it.

MiniLM embeds the first 256 word pieces of a memory ([CLS] and [SEP] included); 188 of the
518 rustc docs and 454 of the 973 ruff docs are longer, so the dense side never sees their
tails, and one vector averages a whole long doc. This bench embeds every memory as
overlapping windows of word pieces as well (:func:`windows`) and scores a memory by the
best of its vectors' cosines (or a blend with the whole-memory cosine), fused with the
lexical bonus exactly as :meth:`kenning.store.MemoryStore.retrieve` fuses today's cosine
(:func:`hybrid_scores` mirrors it; :func:`check_mirror` stops the run if the two disagree).
It also measures, on the same candidates:

* ``query line`` — a query's error line (:func:`kenning.signatures.extract_error_signature`)
  embedded on its own, the cosine being the higher of it and the whole query's (only the
  yellow raw-error queries have such a line);
* ``rrf`` — reciprocal-rank fusion (k = 60) of the dense and lexical ranks of the same
  candidates instead of the score fusion (a rank, not a calibrated score: no calibration).

Stores are built through ``remember_many`` (dedup on) as in ``bench/quality.py``; the
scoring runs offline over them. Each set's top-1 is printed for the fit half of its queries
and the held-out half (:func:`bench.fusion_grid.fit_half`), with the calibration figures
``bench/quality.py`` reports: the highest score an unrelated yellow query reaches (must stay
below the 0.40 error floor) and how many of 150 LoCoMo questions asked of another
conversation reach the 0.5 floor (at most 5%).

    python -m bench chunked_dense
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.fusion_grid import fit_half
from bench.quality import EVAL, HERE, RESULTS, build_store, embed_cached, load_sets, read_jsonl

POOL = 20  # kenning.store_read.RETRIEVAL_POOL for k = 10


@dataclass(frozen=True)
class Variant:
    """How a memory's dense score is computed: windows of ``window`` word pieces every
    ``stride``, from every memory or only those longer than the model sees (``long_only``);
    ``combine`` the whole-memory cosine ``doc`` with the best window's ``best``."""

    name: str
    window: int = 0  # 0: no windows (today's single vector)
    stride: int = 0
    long_only: bool = False
    combine: Callable[[float, float], float] = max
    query_line: bool = False


VARIANTS = (
    Variant("today (one vector per memory)"),
    Variant("query line: max(query, error line)", query_line=True),
    Variant("windows 128/96: max(doc, windows)", 128, 96),
    Variant("windows 128/96: best window only", 128, 96, combine=lambda d, w: w),
    Variant(
        "windows 128/96: (doc + max(doc, windows)) / 2",
        128,
        96,
        combine=lambda d, w: (d + max(d, w)) / 2,
    ),
    Variant(
        "windows 128/96: max(doc, windows - 0.05)", 128, 96, combine=lambda d, w: max(d, w - 0.05)
    ),
    Variant("windows 200/150: max(doc, windows)", 200, 150),
    Variant("long memories only, 254/200: max(doc, windows)", 254, 200, long_only=True),
)


def windows(
    counter: Any, text: str, window: int, stride: int, long_only: bool, limit: int
) -> list[str]:
    """``text`` cut into windows of ``window`` word pieces (by the tokenizer's character
    offsets), one every ``stride``, the last one reaching the end; none when ``long_only``
    and the model sees the whole text (``limit`` word pieces with [CLS] and [SEP])."""
    encoding = counter.encode(text)
    offsets = [
        o
        for o, special in zip(encoding.offsets, encoding.special_tokens_mask, strict=True)
        if not special
    ]
    if not offsets or (long_only and len(offsets) + 2 <= limit):
        return []
    out, start = [], 0
    while True:
        end = min(len(offsets), start + window)
        out.append(text[offsets[start][0] : offsets[end - 1][1]])
        if end == len(offsets):
            return out
        start += stride


@dataclass
class Group:
    """One project of a store: its memories, their stored vectors, and per variant the
    vectors of each memory's windows (None: no windows)."""

    ids: list[str]
    memories: dict[str, Any]
    vectors: np.ndarray
    windows: dict[tuple[int, int, bool], list[np.ndarray | None]]


def load_group(store: Any, group: str) -> Group:
    from kenning.backends.base import Filters

    records = list(store.backend.iterate(Filters(group_id=group)))
    return Group(
        [r.memory.id for r in records],
        {r.memory.id: r.memory for r in records},
        np.stack([r.vector for r in records]),
        {},
    )


def embed_windows(embedder: Any, counter: Any, group: Group, v: Variant) -> None:
    key = (v.window, v.stride, v.long_only)
    if not v.window or key in group.windows:
        return
    texts: list[str] = []
    owner: list[int] = []
    for j, memory_id in enumerate(group.ids):
        for text in windows(counter, group.memories[memory_id].content, *key, embedder.max_tokens):
            texts.append(text)
            owner.append(j)
    vectors = embed_cached(embedder, texts) if texts else []
    per: list[list[np.ndarray]] = [[] for _ in group.ids]
    for j, vector in zip(owner, vectors, strict=True):
        per[j].append(vector)
    group.windows[key] = [np.stack(x) if x else None for x in per]


def dense_scores(
    group: Group, v: Variant, query: np.ndarray, line: np.ndarray | None
) -> dict[str, float]:
    """Every memory's dense score for this variant."""
    probes = [query] if line is None or not v.query_line else [query, line]
    doc = np.max([group.vectors @ p for p in probes], axis=0)
    if not v.window:
        return dict(zip(group.ids, doc.tolist(), strict=True))
    out = {}
    for j, memory_id in enumerate(group.ids):
        w = group.windows[(v.window, v.stride, v.long_only)][j]
        best = float(np.max([w @ p for p in probes])) if w is not None else float(doc[j])
        out[memory_id] = v.combine(float(doc[j]), best) if w is not None else float(doc[j])
    return out


def hybrid_scores(
    store: Any, query: str, group_id: str, group: Group, cosines: dict[str, float]
) -> dict[str, tuple[float, float, float]]:
    """``MemoryStore.retrieve(query, 10, mode="hybrid")``'s candidates and fused scores with
    the dense side's cosines taken from ``cosines`` (every memory of the project ``group``):
    ``{id: (fused, cosine, BM25)}``."""
    from kenning.backends.base import Filters
    from kenning.lexical import term_counts_and_length, terms
    from kenning.search import FINGERPRINT_SCORE, fused_score, lexical_idfs, memory_bm25

    found = store._lexical_side(query, POOL, Filters(group_id=group_id), check=False)
    ids = sorted(
        set(sorted(cosines, key=lambda i: -cosines[i])[:POOL]) | {h.memory.id for h in found.hits}
    )
    idfs = lexical_idfs(found.statistics.rows, found.statistics.frequencies)
    query_terms = set(terms(query))
    counted = {i: term_counts_and_length(group.memories[i].content) for i in ids}
    bm25 = {i: memory_bm25(c, idfs, n) for i, (c, n) in counted.items()}
    best = max(bm25.values(), default=0.0)
    scored = {}
    for i in ids:
        share = (
            len(query_terms & counted[i][0].keys()) / len(query_terms)
            if bm25[i] and query_terms
            else 0.0
        )
        scored[i] = (fused_score(cosines[i], bm25[i], best, share), cosines[i], bm25[i])
    for memory in found.fingerprint_matches:
        fused, cosine, lexical = scored.get(memory.id, (0.0, 0.0, 0.0))
        scored[memory.id] = (max(FINGERPRINT_SCORE, fused), cosine, lexical)
    return scored


def best_score(
    store: Any, query: str, group_id: str, group: Group, v: Variant, vector: np.ndarray, line: Any
) -> float:
    """The highest fused score a query reaches in a project (-1: no candidate)."""
    scored = hybrid_scores(store, query, group_id, group, dense_scores(group, v, vector, line))
    return max((x[0] for x in scored.values()), default=-1.0)


def top(scored: dict[str, tuple[float, float, float]]) -> str | None:
    return min(scored, key=lambda i: (-scored[i][0], i)) if scored else None


def rrf_top(scored: dict[str, tuple[float, float, float]]) -> str | None:
    dense = {i: r for r, i in enumerate(sorted(scored, key=lambda i: -scored[i][1]), 1)}
    lexical = {
        i: r
        for r, i in enumerate(
            sorted((i for i in scored if scored[i][2] > 0), key=lambda i: -scored[i][2]), 1
        )
    }
    fused = {i: 1 / (60 + dense[i]) + 1 / (60 + lexical.get(i, 1000)) for i in scored}
    return min(fused, key=lambda i: (-fused[i], i)) if fused else None


def check_mirror(
    store: Any,
    groups: dict[str, Group],
    queries: list[tuple[str, str, set[str], str]],
    vectors: np.ndarray,
) -> None:
    """Stop if :func:`hybrid_scores` with today's cosines disagrees with ``retrieve`` (the
    first 40 queries of a set: their top-1 and its score)."""
    from kenning.backends.base import Filters

    for (_, text, _, group_id), vector in list(zip(queries, vectors, strict=True))[:40]:
        real = store.retrieve(text, 10, Filters(group_id=group_id), mode="hybrid", vector=vector)
        group = groups[group_id]
        mine = hybrid_scores(
            store, text, group_id, group, dense_scores(group, VARIANTS[0], vector, None)
        )
        first = top(mine)
        if not real or first != real[0].memory.id or abs(mine[first][0] - real[0].semantic) > 1e-6:  # type: ignore[index]
            sys.exit(f"hybrid_scores no longer mirrors MemoryStore.retrieve ({text!r}); update it")


def query_lines(embedder: Any, texts: list[str]) -> list[np.ndarray | None]:
    """The vector of each text's error line when it has one other than the whole text."""
    from kenning.signatures import extract_error_signature, looks_like_error

    lines = [extract_error_signature(t) if looks_like_error(t) else "" for t in texts]
    lines = [
        line if line.strip() and line.strip() != t.strip() else ""
        for line, t in zip(lines, texts, strict=True)
    ]
    kept = [line for line in lines if line]
    vectors = iter(embed_cached(embedder, kept) if kept else [])
    return [next(vectors) if line else None for line in lines]


def main() -> None:
    from kenning.embedders import load_embedder

    started = time.time()
    embedder = load_embedder("minilm")
    counter = embedder._tokenizer.from_str(embedder._tokenizer.to_str())
    counter.no_truncation()
    table: dict[str, dict[str, float]] = {v.name: {} for v in VARIANTS}
    table["rrf (ranks of today's candidates)"] = {}
    with tempfile.TemporaryDirectory() as tmp:
        stores: dict[str, tuple[Any, dict[str, str]]] = {}
        groups: dict[tuple[str, str], Group] = {}
        for s in load_sets(False):
            key = s.name.replace(" masked", "")
            if key not in stores:
                stores[key] = build_store(Path(tmp), s, embedder, dedup=True)
                for group_id in sorted({d[2] for d in s.docs}):
                    groups[(key, group_id)] = group = load_group(stores[key][0], group_id)
                    for v in VARIANTS:
                        embed_windows(embedder, counter, group, v)
            store, holder = stores[key]
            vectors = embed_cached(embedder, [q[1] for q in s.queries])
            lines = query_lines(embedder, [q[1] for q in s.queries])
            check_mirror(
                store, {g: grp for (k, g), grp in groups.items() if k == key}, s.queries, vectors
            )
            fit = sum(fit_half(q[0]) for q in s.queries)
            rrf = {True: 0, False: 0}
            for v in VARIANTS:
                right = {True: 0, False: 0}
                for (qid, text, gold, group_id), vector, line in zip(
                    s.queries, vectors, lines, strict=True
                ):
                    group = groups[(key, group_id)]
                    scored = hybrid_scores(
                        store, text, group_id, group, dense_scores(group, v, vector, line)
                    )
                    held = {holder.get(g, g) for g in gold}
                    right[fit_half(qid)] += top(scored) in held
                    if v is VARIANTS[0]:
                        rrf[fit_half(qid)] += rrf_top(scored) in held
                table[v.name][f"{s.name} fit"] = right[True] / fit
                table[v.name][f"{s.name} held-out"] = right[False] / (len(s.queries) - fit)
            for half, label in ((True, "fit"), (False, "held-out")):
                table["rrf (ranks of today's candidates)"][f"{s.name} {label}"] = rrf[half] / (
                    fit if half else len(s.queries) - fit
                )
            print(f"{s.name}: {time.time() - started:.0f} s", file=sys.stderr)

        unrelated = [
            q["query"] for q in read_jsonl(HERE / "data" / "yellow_queries.jsonl") if not q["gold"]
        ]
        questions = random.Random(3).sample(
            read_jsonl(EVAL / "locomo-observations" / "queries.jsonl"), 150
        )
        conversations = sorted(
            {q["conv"] for q in read_jsonl(EVAL / "locomo-observations" / "queries.jsonl")}
        )
        yellow = stores["yellow error-fix"][0]
        locomo = stores["locomo (same conversation)"][0]
        uv, ul = embed_cached(embedder, unrelated), query_lines(embedder, unrelated)
        texts = [q["text"] for q in questions]
        lv, ll = embed_cached(embedder, texts), query_lines(embedder, texts)
        yellow_group = groups[("yellow error-fix", "yellow")]
        for v in VARIANTS:
            highest = max(
                best_score(yellow, q, "yellow", yellow_group, v, vec, line)
                for q, vec, line in zip(unrelated, uv, ul, strict=True)
            )
            cross = []
            for q, vec, line in zip(questions, lv, ll, strict=True):
                other = conversations[(conversations.index(q["conv"]) + 1) % len(conversations)]
                group = groups[("locomo (same conversation)", other)]
                cross.append(best_score(locomo, q["text"], other, group, v, vec, line))
            table[v.name]["yellow unrelated max"] = highest
            table[v.name]["LoCoMo other conversation >= 0.5"] = sum(c >= 0.5 for c in cross)
        for store, _ in stores.values():
            store.close()
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "chunked_dense.json").write_text(json.dumps(table, indent=2))
    columns = list(table[VARIANTS[0].name])
    print("| variant | " + " | ".join(columns) + " |")
    print("|---|" + "---|" * len(columns))
    for name, row in table.items():
        print(
            f"| {name} | "
            + " | ".join(
                "—"
                if c not in row
                else f"{row[c]:.3f}"
                if isinstance(row[c], float)
                else f"{row[c]}"
                for c in columns
            )
            + " |"
        )
    print(f"\n{time.time() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
