"""Measure fusion rules for hybrid retrieval before choosing one (bench/quality.py reports
the chosen rule). For every query of every set it fetches the dense top 50 and the BM25
top 50 once, then scores each rule offline:

* ``additive``   ``cos + w * s / (s + K)`` — absolute BM25, saturating;
* ``relative``   ``cos + w * (s / s_max) * s_max / (s_max + K)`` — the query's best lexical
                 hit gets the full saturating bonus, others in proportion;
* ``rrf``        reciprocal-rank fusion (rank only; not a calibrated score);
* ``stable``     kenning's rule (:mod:`kenning.search`): ``bend(cos + w * (s / s_max) *
                 min(1, s_max / K) * coverage**2)`` with ``s`` BM25 normalised against a
                 fixed reference length (:func:`kenning.search.memory_bm25`) computed for
                 every candidate (stable as the store grows), ``bend``
                 :func:`kenning.search.onto_cosine_scale`;
* ``stable-b0``  the same with BM25 without length normalisation, cut at 1 (the rule
                 before issue 12 item 4);
* ``capped-N``   ``stable`` with the coverage of a long query counted against at most N of
                 its terms (a pasted log's many words no longer shrink the bonus of the note
                 that shares N of them);
* ``bm25-K1-B``  ``stable`` with BM25's saturation ``k1`` and length weight ``b`` other than
                 FTS5's 1.2 and 0.75 (:data:`BM25_VARIANTS`).

Each set's top-1 is printed for the fit half of its queries (CRC32 of the query id even) and
the held-out half: constants are chosen on the fit half.

It prints top-1 per set and, for the calibrated rules, the highest score an unrelated
query reaches (yellow unrelated queries; LoCoMo questions asked of another conversation).

    python -m bench.fusion_grid
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import numpy as np

from bench.quality import EVAL, HERE, build_store, embed_cached, load_sets, read_jsonl


def candidates(store, text: str, vec: np.ndarray, group: str):  # type: ignore[no-untyped-def]
    from kenning.backends.base import Filters
    from kenning.lexical import bm25, coverage, saturated_bm25, term_counts_and_length, terms
    from kenning.search import LEXICAL_REFERENCE_LENGTH, lexical_idfs, memory_bm25

    f = Filters(group_id=group)
    dh = store.backend.vector_search(vec, POOL, f)
    lh = store.backend.lexical_search(text, POOL, f)
    dense = {h.memory.id: h.score for h in dh}
    lex = {h.memory.id: h.score for h in lh}
    q = set(terms(text))
    COVER.clear()
    for h in dh + lh:
        COVER[h.memory.id] = coverage(q, h.memory.content)
        COVER[("matched", h.memory.id)] = round(COVER[h.memory.id] * len(q))
    COVER["query terms"] = len(q)
    stats = store.backend.term_statistics(text)
    idfs = lexical_idfs(stats.rows, stats.frequencies)
    counted = {h.memory.id: term_counts_and_length(h.memory.content) for h in dh + lh}
    core = {i: memory_bm25(c, idfs, n) for i, (c, n) in counted.items()}
    unnormalised = {i: saturated_bm25(c, idfs) for i, (c, _) in counted.items()}
    missing = [i for i in lex if i not in dense]
    cos = dict(dense)
    for i, v in store.backend.get_vectors(missing).items():
        cos[i] = float(np.dot(v, vec))
    cover = dict(COVER)
    cover.update({("core", i): s for i, s in core.items()})
    cover.update({("b0", i): s for i, s in unnormalised.items()})
    for k1, b in BM25_VARIANTS:
        cover.update(
            # memory_bm25's formula (kenning.lexical.bm25 at the reference length), other k1/b
            {
                (f"bm25-{k1}-{b}", i): bm25(c, idfs, n, LEXICAL_REFERENCE_LENGTH, k1=k1, b=b)
                for i, (c, n) in counted.items()
            }
        )
    return cos, lex, cover


def score(
    rule: str, cos: dict, lex: dict, w: float, k: float, cover: dict | None = None
) -> dict[str, float]:  # type: ignore[type-arg]
    if cover is not None:
        COVER.clear()
        COVER.update(cover)
    if rule == "rrf":
        dr = {i: r for r, i in enumerate(sorted(cos, key=lambda x: -cos[x]), 1)}
        lr = {i: r for r, i in enumerate(sorted(lex, key=lambda x: -lex[x]), 1)}
        return {i: 1 / (60 + dr.get(i, 1000)) + 1 / (60 + lr.get(i, 1000)) for i in cos}
    if rule in ("stable", "stable-b0") or rule.startswith(("capped", "bm25-")):
        from kenning.search import onto_cosine_scale

        bm25 = "b0" if rule == "stable-b0" else rule if rule.startswith("bm25-") else "core"
        core = {i: COVER.get((bm25, i), 0.0) for i in cos}
        best = max(core.values(), default=0.0)
        shares = {i: COVER.get(i, 0.0) for i in cos}
        if rule.startswith("capped"):
            counted = min(COVER["query terms"], int(rule.split("-")[1]))
            shares = {i: min(1.0, COVER.get(("matched", i), 0) / max(1, counted)) for i in cos}
        sums = {
            i: c + (w * (core[i] / best) * min(1.0, best / k) * shares[i] ** 2 if best else 0.0)
            for i, c in cos.items()
        }
        if rule != "stable-b0":
            return {i: onto_cosine_scale(t) for i, t in sums.items()}
        return {i: min(1.0, t) for i, t in sums.items()}
    smax = max(lex.values(), default=0.0)
    out = {}
    for i, c in cos.items():
        s = max(lex.get(i, 0.0), 0.0)
        if rule == "additive":
            bonus = w * s / (s + k) if s > 0 else 0.0
        elif rule.startswith("cov"):
            p = float(rule.split("-")[1])
            bonus = (
                w * (s / smax) * smax / (smax + k) * COVER.get(i, 0.0) ** p
                if s > 0 and smax > 0
                else 0.0
            )
        elif rule.startswith("gated"):
            tau = float(rule.split("-")[1])
            gate = min(1.0, max(0.0, c / tau))
            bonus = w * (s / smax) * smax / (smax + k) * gate if s > 0 and smax > 0 else 0.0
        else:
            bonus = w * (s / smax) * smax / (smax + k) if s > 0 and smax > 0 else 0.0
        out[i] = c + bonus
    return out


POOL = 20
COVER: dict = {}
#: (k1, b) pairs tried besides FTS5's (1.2, 0.75)
BM25_VARIANTS = [(0.6, 0.75), (2.0, 0.75), (1.2, 0.3), (1.2, 0.0), (0.9, 0.4)]
RULES = [
    ("additive", 0.25, 10.0),
    ("relative", 0.4, 5.0),
    ("gated-0.5", 0.4, 5.0),
    ("rrf", 0.0, 0.0),
]
RULES += [
    ("cov-2", 0.6, 5.0),
    ("cov-2", 0.8, 5.0),
    ("cov-2", 1.0, 5.0),
    ("cov-1.5", 0.6, 5.0),
    ("cov-1.5", 0.8, 5.0),
    ("cov-1", 0.6, 5.0),
    ("cov-2", 0.8, 3.0),
    ("stable-b0", 0.4, 2.0),
    ("stable", 0.3, 2.0),
    ("stable", 0.4, 2.0),
    ("stable", 0.5, 2.0),
    ("stable", 0.6, 2.0),
    ("stable", 0.4, 4.0),
    ("capped-8", 0.4, 2.0),
    ("capped-16", 0.4, 2.0),
    *((f"bm25-{k1}-{b}", 0.4, 2.0) for k1, b in BM25_VARIANTS),
    # weight 0: dense cosine alone (bent above the knee like every fused score), so the
    # calibration columns show what the embedder reaches before any lexical bonus
    ("stable", 0.0, 2.0),
]


def fit_half(qid: str) -> bool:
    """The half of a set's queries constants are fitted on (the other is held out)."""
    import zlib

    return zlib.crc32(qid.encode()) % 2 == 0


def main() -> None:
    from kenning.embedders import load_embedder

    embedder = load_embedder("minilm")
    sets = load_sets(False)
    table: dict[tuple[str, float, float], dict[str, float]] = {r: {} for r in RULES}
    with tempfile.TemporaryDirectory() as tmp:
        stores = {}
        for s in sets:
            key = s.name.replace(" masked", "")
            if key not in stores:
                stores[key] = build_store(Path(tmp), s, embedder, dedup=True)
            store, holder = stores[key]
            qv = embed_cached(embedder, [q[1] for q in s.queries])
            cands = [candidates(store, q[1], v, q[3]) for q, v in zip(s.queries, qv, strict=True)]
            for rule in RULES:
                hits = {True: 0, False: 0}
                for (qid, _, docs, _), (cos, lex, cov) in zip(s.queries, cands, strict=True):
                    gold = {holder.get(g, g) for g in docs}
                    fused = score(rule[0], cos, lex, rule[1], rule[2], cov)
                    right = bool(fused) and max(fused, key=fused.get) in gold  # type: ignore[arg-type]
                    hits[fit_half(qid)] += right
                fit = sum(fit_half(q[0]) for q in s.queries)
                table[rule][s.name + " fit"] = hits[True] / max(fit, 1)
                table[rule][s.name + " held-out"] = hits[False] / max(len(s.queries) - fit, 1)
        unrelated = [
            q["query"] for q in read_jsonl(HERE / "data" / "yellow_queries.jsonl") if not q["gold"]
        ]
        uv = embed_cached(embedder, unrelated)
        ycands = [
            candidates(stores["yellow error-fix"][0], q, v, "yellow")
            for q, v in zip(unrelated, uv, strict=True)
        ]
        qs = read_jsonl(EVAL / "locomo-observations" / "queries.jsonl")
        convs = sorted({q["conv"] for q in qs})
        sample = random.Random(3).sample(qs, 150)
        lv = embed_cached(embedder, [q["text"] for q in sample])
        lcands = [
            candidates(
                stores["locomo (same conversation)"][0],
                q["text"],
                v,
                convs[(convs.index(q["conv"]) + 1) % len(convs)],
            )
            for q, v in zip(sample, lv, strict=True)
        ]
        for rule in RULES:
            if rule[0] == "rrf":
                continue
            table[rule]["yellow unrelated max"] = max(
                max(score(rule[0], c, lx, rule[1], rule[2], cv).values(), default=0)
                for c, lx, cv in ycands
            )
            table[rule]["locomo cross max"] = max(
                max(score(rule[0], c, lx, rule[1], rule[2], cv).values(), default=0)
                for c, lx, cv in lcands
            )
            table[rule]["locomo cross >=0.5"] = sum(
                max(score(rule[0], c, lx, rule[1], rule[2], cv).values(), default=0) >= 0.5
                for c, lx, cv in lcands
            )
    cols = list(next(iter(table.values())).keys())
    print("rule w K | " + " | ".join(cols))
    for rule, row in table.items():
        print(
            f"{rule[0]} {rule[1]} {rule[2]} | "
            + " | ".join(f"{row.get(c, float('nan')):.3f}" for c in cols)
        )


if __name__ == "__main__":
    main()
