"""Dedup on real data, through ``remember_many`` with its defaults (the path users take).

What a dedup rule must not do is lose a note; what it should do is catch a note written
twice. Both are measured, next to the protocol's gate alone (top-1 cosine > 0.82, what
kenning did before :mod:`kenning.dedup`), computed in the same run from the same vectors:

* **distinct documents merged** — every rustc explanation (518), ruff rule doc (973) and
  yellow ERROR-FIX entry (37) remembered into a fresh project of its own, in corpus order,
  as ``bench/quality.py`` stores them; each near-duplicate answer is a document lost,
  unless its text is another document's up to case, whitespace and prose punctuation
  (:func:`same_text_up_to_variants`): the variants below must be merged, so such a pair is
  counted apart, not as a distinct document;
* **LoCoMo** — the first 1,000 observations, one project per conversation. Every merged
  pair of every set is listed with a judgement read from ``bench/data/dedup_judgements.jsonl``
  (``same`` knowledge, or says something ``different``, written by a person who read both
  texts; a pair without one is reported as unjudged);
* **true duplicates caught** — variants built from the eval texts (all LoCoMo observations
  above, every yellow entry, the first 100 rust and ruff docs): the identical text, a
  whitespace variant, upper case, lower case, prose punctuation removed (marks inside
  numbers kept: 1.0 stays 1.0), and the last sentence mark replaced by "!". Each variant is
  remembered into the project holding its original and must come back ``near-duplicate``
  with the original's id;
* **STS-B and MRPC** — each pair in a project of its own: the first sentence remembered,
  then the second; a ``near-duplicate`` answer is a predicted paraphrase. STS-B pairs
  scored ≥ 4 are positives, ≤ 2 negatives (dev and test splits reported apart); MRPC test
  uses its labels. Vectors are embedded once (batched, cached under bench/results/cache)
  and passed to ``remember_many(vectors=…)`` — the same vectors it would compute, so the
  dedup decision is the user's, only the run is faster.

``--calibrate`` prints what kenning.dedup's word list and neighbour count were checked
against (STS-B dev only for the word list).

    python -m bench dedup [--smoke] [--calibrate]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
EVAL = Path(os.environ.get("KENNING_EVAL_DIR", ROOT.parent / "shared" / "eval"))
RESULTS = HERE / "results"
JUDGEMENTS = HERE / "data" / "dedup_judgements.jsonl"
LOCOMO_FIRST = 1000
VARIANT_DOCS = 100  # rust and ruff docs whose variants are remembered (all yellow, all LoCoMo)
#: Prose punctuation, which a variant drops: quotes, and the marks that close a word before
#: a space, or end the text.
#: A mark inside code (``!=``, ``$?``, ``./``, ``::``) or a number is no punctuation: a text
#: without it says something else (kenning.dedup keeps such notes apart).
_QUOTE = re.compile("[\"'`«»‘’‛“”„]")
#: The quotes of a string in code (their curly forms too); a string's quotes are code.
_CODE_QUOTE = {"'": "'‘’‛", '"': '"“”„', "`": "`"}


def _before_whitespace(text: str, index: int) -> str:
    j = index - 1
    while j >= 0 and text[j].isspace():
        j -= 1
    return text[j] if j >= 0 else ""


def _without_prose_quotes(text: str) -> str:
    """``text`` without the quotes prose puts: not a code fence's backticks, nor a string's
    in code — after ``= : ( [ {`` (whitespace apart), against ``$ / \\``, one of an empty
    string's pair (``''``), or the quote on the same line that closes such a string; an
    apostrophe between letters (``don't``) is prose, and so are « »."""
    fences = [(m.start(), m.end()) for m in re.finditer(r"(?m)^[ \t]*(?:```|~~~).*$", text)]
    out, last, closing = [], 0, -1
    for m in _QUOTE.finditer(text):
        i, mark = m.start(), m.group()
        if i == closing or any(a <= i < b for a, b in fences):
            continue  # the other quote of a string in code; a fence line's edge
        kind = next((k for k, forms in _CODE_QUOTE.items() if mark in forms), None)
        before = text[i - 1] if i else ""
        after = text[i + 1] if i + 1 < len(text) else ""
        if kind is None or (kind == "'" and before.isalnum() and after.isalnum()):
            code = False
        else:
            forms = _CODE_QUOTE[kind]
            code = (
                (before != "" and before in forms)
                or (after != "" and after in forms)
                or _before_whitespace(text, i) in {"=", ":", "(", "[", "{"}
                or (before != "" and before in "$/\\")
                or (after != "" and after in "$/\\")
            )
            if code:
                line_end = text.find("\n", i)
                rest = text[i + 1 : len(text) if line_end == -1 else line_end]
                ends = [i + 1 + j for j, c in enumerate(rest) if c in forms]
                closing = ends[0] if ends else -1
        if not code:
            out.append(text[last:i])
            last = i + 1
    out.append(text[last:])
    return "".join(out)


# Before a space: after a word or a bracket (not ! ? after ")", as in Rust's read()?), and
# not a run that mixes ! ? with : ; (TypeScript's name?: string).
# A ":" before a quote is a key's (version: "3.10"), not prose.
_WORD_END = re.compile(
    r"(?<=[\w\]}])(?!:\s+(?:[\"'‘’‛“”„]|`(?!``)))[.,;:!?]+(?=\s)"
    r"|(?<=\))(?!:\s+(?:[\"'‘’‛“”„]|`(?!``)))[.,;:]+(?=\s)"
)
_MIXED = re.compile(r"[!?][:;]|[:;][!?]")
_MARKS = ".,;:!?"
# ! or ? before anything but a capital is code (Ruby's save! raises; Swift's try? await;
# user.save! && redirect), and so is any on Swift's try/as or inside a fenced code block:
# kept.
_NEXT = re.compile(r"\s+(\S)")
_FENCE_LINE = re.compile(r"[ \t]*(?:```|~~~)")
_KEYWORD_BEFORE = re.compile(r"(?<![\w\]}])(?:try|as)$", re.IGNORECASE)


def _is_code(text: str, run: re.Match[str]) -> bool:
    if _MIXED.search(run.group()):
        return True
    if "!" not in run.group() and "?" not in run.group():
        return False
    # the few characters before the run: searching the whole text before it took time
    # quadratic in the number of runs
    if _KEYWORD_BEFORE.search(text[max(0, run.start() - 5) : run.start()]):
        return True
    following = _NEXT.match(text, run.end())
    return following is not None and not following.group(1).isupper()


def _fenced_runs(text: str) -> list[tuple[str, bool]]:
    """Runs of lines inside (True) and outside fenced code blocks; fence lines are inside."""
    runs: list[tuple[list[str], bool]] = []
    inside = False
    for line in text.splitlines(keepends=True):
        fence = bool(_FENCE_LINE.match(line))
        here = inside or fence
        if runs and runs[-1][1] == here:
            runs[-1][0].append(line)
        else:
            runs.append(([line], here))
        inside = inside != fence
    return [("".join(lines), here) for lines, here in runs]


def _without_punctuation(text: str) -> str:
    """``text`` without its prose punctuation: quotes (not a code fence's backticks); the
    marks that end it (unless they end ``$?``, ``=!``, ``<?``, stand alone after a space,
    as in ``docker build .``, or end a fenced code block); then the marks that close a word
    before a space (but ``!`` or ``?`` inside a fenced code block, on ``try``/``as``, or
    before anything but a capital)."""
    # prose quotes go first, over the whole text (a string's quote is told by what comes
    # before it, on an earlier line too), but not the backticks of a fence line
    runs = _fenced_runs(_without_prose_quotes(text))
    out = []
    for index, (run, fenced) in enumerate(runs):
        if index == len(runs) - 1 and not fenced:
            run = _without_final(run)

        def keep(m: re.Match[str], run: str = run, fenced: bool = fenced) -> str:
            bang = "!" in m.group() or "?" in m.group()
            return m.group() if _is_code(run, m) or (fenced and bang) else ""

        out.append(_WORD_END.sub(keep, run))
    return "".join(out)


#: A member written as code ending the text (``record.save``, ``File::open``): a ``!`` or
#: ``?`` right after it is code (Ruby's ``save!``), not the end of a sentence.
_MEMBER_END = re.compile(r"(?<![\w.])[^\W\d]\w*(?:(?:\.|::|->)[^\W\d]\w*)+$")


def _without_final(text: str) -> str:
    tail = len(text.rstrip(_MARKS + " \t\r\n\f\v"))
    first = next((i for i in range(tail, len(text)) if text[i] in _MARKS), None)
    if first is not None:
        before = text[first - 1] if first else ""
        operator = first == tail and before in ")]" and text[first] == "?"  # open(p)?
        member = first == tail and text[first] in "!?" and _MEMBER_END.search(text[:tail][-200:])
        if (
            not (first == tail and before in "$=<")
            and before not in " \t"
            and not operator
            and not member
        ):
            text = text[:first]
    return text


@dataclass
class Doc:
    id: str
    text: str
    group: str


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def corpora(smoke: bool) -> dict[str, list[Doc]]:
    """The documents, as ``bench/quality.py`` stores them (rust/ruff: title + text)."""
    sets: dict[str, list[Doc]] = {}
    for name, folder in (("rust", "rust-errors"), ("ruff", "ruff-rules")):
        sets[name] = [
            Doc(d["_id"], (d.get("title", "") + "\n" + d["text"]).strip(), name)
            for d in read_jsonl(EVAL / folder / "corpus.jsonl")
        ]
    entries = read_jsonl(EVAL / "yellow-solutions" / "error_fix_entries.jsonl")
    sets["yellow"] = [Doc(e["id"], e["content"], "yellow") for e in entries]
    observations = read_jsonl(EVAL / "locomo-observations" / "corpus.jsonl")[:LOCOMO_FIRST]
    sets["locomo"] = [Doc(d["_id"], d["text"], d["conv"]) for d in observations]
    if smoke:
        # the three shortest documents of each set, in corpus order: the same path for a
        # fraction of MiniLM's work (the first rust and ruff docs run to its token limit),
        # and two of them merge (rust's E0231 and E0388, a variant pair, its two shortest),
        # so the smoke run reaches the merged-pair path too; LoCoMo's still span two
        # conversations (two projects)
        for name, docs in sets.items():
            shortest = set(map(id, sorted(docs, key=lambda d: len(d.text))[:3]))
            sets[name] = [d for d in docs if id(d) in shortest]
    return sets


# -- variants ------------------------------------------------------------------------------


def _whitespace(text: str) -> str:
    """Every space of the prose doubled, its first made a line break, blank lines around:
    the code's spacing (fenced blocks, inline spans) is kept, as it is part of the code
    (an indentation that moves a statement out of a loop is another program)."""
    pieces = []
    first = True
    for piece, code in _code_pieces(text):
        if not code:
            piece = piece.replace(" ", "  ")
            if first and "  " in piece:
                piece, first = piece.replace("  ", "\n", 1), False
        pieces.append(piece)
    return "\n\n" + "".join(pieces) + "  \n"


_TICK_RUN = re.compile(r"`+")


def _code_pieces(text: str) -> list[tuple[str, bool]]:
    """``text`` cut into prose (False) and code (True): fenced blocks, and on the lines
    outside them each run of backticks up to the next run of as many (CommonMark's inline
    span; the benchmark's own reading of it, as of prose punctuation)."""
    pieces: list[tuple[str, bool]] = []
    for run, fenced in _fenced_runs(text):
        if fenced:
            pieces.append((run, True))
            continue
        for line in run.splitlines(keepends=True):
            ticks = list(_TICK_RUN.finditer(line))
            at = 0
            index = 0
            while index < len(ticks):
                opening = ticks[index]
                width = len(opening.group())
                closing = next(
                    (j for j in range(index + 1, len(ticks)) if len(ticks[j].group()) == width),
                    None,
                )
                if closing is None:
                    index += 1
                    continue
                pieces.append((line[at : opening.start()], False))
                pieces.append((line[opening.start() : ticks[closing].end()], True))
                at = ticks[closing].end()
                index = closing + 1
            pieces.append((line[at:], False))
    return pieces


def _exclaim(text: str) -> str:
    stripped = text.rstrip()
    body = stripped[:-1] if stripped[-1:] in ".!?" else stripped
    if _MEMBER_END.search(body[-200:]):
        return stripped  # a member's ! is code (record.save! is not record.save)
    return body + "!"


#: How each variant is made from a text. None of these changes a word, a number or a symbol.
VARIANTS: dict[str, Callable[[str], str]] = {
    "identical": lambda t: t,
    "whitespace": _whitespace,
    "upper case": str.upper,
    "lower case": str.lower,
    "punctuation removed": _without_punctuation,
    "final mark → !": _exclaim,
}


def same_text_up_to_variants(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` are one text as the variants above change it (case,
    whitespace, prose punctuation): such a pair must be merged, so it is not two distinct
    documents even when the corpus holds both (rust's E0231 and E0388 differ by a full stop)."""

    def plain(text: str) -> str:
        return " ".join(_without_punctuation(text).lower().split())

    return plain(a) == plain(b)


# -- helpers -------------------------------------------------------------------------------


def git_project(base: Path, name: str) -> Path:
    import subprocess

    root = base / name
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def open_project(base: Path, name: str, embedder: Any) -> Any:
    from kenning import open_store

    return open_store(cwd=git_project(base, name), embedder=embedder)


def embed_normalised(embedder: Any, texts: Sequence[str]) -> np.ndarray:
    """The vectors ``remember`` computes for these texts (it embeds the normalised text)."""
    from bench.quality import embed_cached
    from kenning.safety import normalise_content

    return embed_cached(embedder, [normalise_content(t) for t in texts])


def gate_alone(vectors: np.ndarray, groups: Sequence[str]) -> list[tuple[int, int, float]]:
    """What the protocol's gate alone merges: in order, a document whose top-1 cosine among
    the documents kept so far in its project is above 0.82 is dropped. ``(dropped, kept,
    cosine)`` index pairs."""
    from kenning import protocol

    kept: dict[str, list[int]] = {}
    dropped = []
    for i, group in enumerate(groups):
        mine = kept.setdefault(group, [])
        if mine:
            sims = vectors[mine] @ vectors[i]
            best = int(np.argmax(sims))
            if sims[best] > protocol.DEDUP_THRESHOLD:
                dropped.append((i, mine[best], float(sims[best])))
                continue
        mine.append(i)
    return dropped


def remember_docs(base: Path, name: str, docs: list[Doc], embedder: Any) -> dict[str, Any]:
    """Remember ``docs`` in corpus order, one project per group; what was merged into what."""
    from kenning.store import NewMemory

    stores: dict[str, Any] = {}
    stored_id: dict[str, str] = {}  # doc id → the id of the memory that holds it
    merged = []
    by_group: dict[str, list[Doc]] = {}
    for doc in docs:
        by_group.setdefault(doc.group, []).append(doc)
    doc_of_memory: dict[str, Doc] = {}
    for group, items in by_group.items():
        store = open_project(base, f"{name}-{len(stores)}", embedder)
        stores[group] = store
        results = store.remember_many(
            [NewMemory(d.text, "error_fix" if name != "locomo" else "session") for d in items]
        )
        for doc, result in zip(items, results, strict=True):
            if result.status == "stored":
                stored_id[doc.id] = result.id
                doc_of_memory[result.id] = doc
            elif result.status == "near-duplicate":
                stored_id[doc.id] = result.id
                kept = doc_of_memory[result.id]
                merged.append(
                    {
                        "new": doc.id,
                        "into": kept.id,
                        "score": round(float(result.score), 4),
                        "reason": result.reason,
                        "new_text": doc.text,
                        "kept_text": kept.text,
                        "variant": same_text_up_to_variants(doc.text, kept.text),
                    }
                )
            else:
                raise SystemExit(f"{name} {doc.id}: {result.status}: {result.reason}")
    return {"stores": stores, "stored_id": stored_id, "merged": merged}


def variants_caught(
    docs: list[Doc], run: dict[str, Any], embedder: Any
) -> dict[str, dict[str, Any]]:
    """Remember every variant of ``docs`` in its original's project; how many come back as
    near-duplicates of the original's memory."""
    from kenning.store import NewMemory

    out: dict[str, dict[str, Any]] = {}
    by_group: dict[str, list[Doc]] = {}
    for doc in docs:
        by_group.setdefault(doc.group, []).append(doc)
    for kind, make in VARIANTS.items():
        caught, missed = 0, []
        for group, items in by_group.items():
            store = run["stores"][group]
            results = store.remember_many([NewMemory(make(d.text), "session") for d in items])
            for doc, result in zip(items, results, strict=True):
                if result.status == "near-duplicate" and result.id == run["stored_id"][doc.id]:
                    caught += 1
                else:
                    missed.append({"doc": doc.id, "status": result.status, "id": result.id})
        out[kind] = {"variants": len(docs), "caught": caught, "missed": missed[:10]}
    return out


# -- paraphrase pairs ----------------------------------------------------------------------


def sts_pairs(split: str) -> list[tuple[str, str, bool]]:
    pairs = []
    for line in (EVAL / "stsb" / split).read_text(encoding="utf-8").splitlines():
        cols = line.split("\t")
        if len(cols) < 7:
            continue
        score = float(cols[4])
        if score >= 4.0:
            pairs.append((cols[5], cols[6], True))
        elif score <= 2.0:
            pairs.append((cols[5], cols[6], False))
    return pairs


def mrpc_pairs() -> list[tuple[str, str, bool]]:
    text = (EVAL / "mrpc" / "msr_paraphrase_test.txt").read_text(encoding="utf-8-sig")
    pairs = []
    for line in text.splitlines()[1:]:
        cols = line.split("\t")
        if len(cols) == 5:
            pairs.append((cols[3], cols[4], cols[0] == "1"))
    return pairs


def _precision_recall(predicted: np.ndarray, truth: np.ndarray) -> dict[str, Any]:
    tp = int(np.sum(predicted & truth))
    fp = int(np.sum(predicted & ~truth))
    fn = int(np.sum(~predicted & truth))
    return {
        "merged": tp + fp,
        "true": tp,
        "false": fp,
        "precision": tp / (tp + fp) if tp + fp else None,
        "recall": tp / (tp + fn) if tp + fn else None,
    }


def pairs_through_remember(
    base: Path, name: str, pairs: list[tuple[str, str, bool]], embedder: Any
) -> dict[str, Any]:
    """Each pair in its own project: remember the first, then the second."""
    from kenning.store import NewMemory

    a = embed_normalised(embedder, [p[0] for p in pairs])
    b = embed_normalised(embedder, [p[1] for p in pairs])
    store = open_project(base, name, embedder)
    predicted = []
    examples: list[dict[str, Any]] = []
    for i, (first, second, label) in enumerate(pairs):
        group = f"pair-{i}"
        store.remember_many([NewMemory(first)], group_id=group, vectors=[a[i]])
        result = store.remember_many([NewMemory(second)], group_id=group, vectors=[b[i]])[0]
        duplicate = result.status == "near-duplicate"
        predicted.append(duplicate)
        if duplicate and not label:
            examples.append({"first": first, "second": second, "reason": result.reason})
    store.close()
    truth = np.array([p[2] for p in pairs])
    cosine = np.sum(a * b, axis=1)
    from kenning import protocol

    return {
        "pairs": len(pairs),
        "positives": int(truth.sum()),
        "kenning": _precision_recall(np.array(predicted), truth),
        "gate_alone": _precision_recall(cosine > protocol.DEDUP_THRESHOLD, truth),
        "false_merges": examples[:10],
    }


# -- calibration (STS-B dev only) ----------------------------------------------------------


def calibrate(embedder: Any, smoke: bool) -> dict[str, Any]:
    """What kenning.dedup's choices were checked against: the function-word list on STS-B
    dev (with vs without), the neighbour count on punctuation variants of rust/ruff docs."""
    from kenning import dedup

    pairs = sts_pairs("sts-dev.csv")[: 20 if smoke else None]
    a = embed_normalised(embedder, [p[0] for p in pairs])
    b = embed_normalised(embedder, [p[1] for p in pairs])
    cosine = np.sum(a * b, axis=1)
    truth = np.array([p[2] for p in pairs])
    out: dict[str, Any] = {"sts_dev_pairs": len(pairs)}
    words = dedup.FUNCTION_WORDS
    for label, chosen in (("function words", words), ("no function words", frozenset())):
        dedup.FUNCTION_WORDS = chosen  # the bench swaps the module's list, then restores it
        try:
            predicted = np.array(
                [
                    dedup.decide(p[1], p[0], float(c)).duplicate
                    for p, c in zip(pairs, cosine, strict=True)
                ]
            )
        finally:
            dedup.FUNCTION_WORDS = words
        out[label] = _precision_recall(predicted, truth)
    ranks = {}
    for name, docs in corpora(smoke).items():
        if name not in ("rust", "ruff"):
            continue
        originals = embed_normalised(embedder, [d.text for d in docs])
        variants = embed_normalised(
            embedder, [VARIANTS["punctuation removed"](d.text) for d in docs]
        )
        sims = variants @ originals.T
        own = np.diag(sims)
        ranks[name] = int(np.max(np.sum(sims > own[:, None], axis=1))) + 1
    out["worst_rank_of_the_original_among_a_punctuation_variant's_neighbours"] = ranks
    out["neighbours_read"] = dedup.NEIGHBOURS
    out["close_neighbours_read"] = dedup.CLOSE_NEIGHBOURS
    return out


# -- the run ---------------------------------------------------------------------------------


def load_judgements() -> dict[tuple[str, str], dict[str, str]]:
    if not JUDGEMENTS.is_file():
        return {}
    return {(j["new"], j["into"]): j for j in read_jsonl(JUDGEMENTS)}


def run(smoke: bool) -> dict[str, Any]:
    from kenning.embedders import load_embedder

    embedder = load_embedder("minilm")
    results: dict[str, Any] = {"sets": {}, "variants": {}, "pairs": {}}
    judgements = load_judgements()
    with tempfile.TemporaryDirectory(prefix="kenning-dedup-") as tmp:
        base = Path(tmp)
        runs = {}
        for name, docs in corpora(smoke).items():
            started = time.perf_counter()
            runs[name] = run_ = remember_docs(base, name, docs, embedder)
            vectors = embed_normalised(embedder, [d.text for d in docs])
            baseline = gate_alone(vectors, [d.group for d in docs])
            merged = run_["merged"]
            for pair in merged:
                judged = judgements.get((pair["new"], pair["into"]))
                pair["judgement"] = judged["judgement"] if judged else "unjudged"
                pair["why"] = judged.get("why", "") if judged else ""
            results["sets"][name] = {
                "documents": len(docs),
                "projects": len({d.group for d in docs}),
                "merged": len(merged),
                "merged_pairs": merged,
                "gate_alone_merged": len(baseline),
                "seconds": round(time.perf_counter() - started, 1),
            }
            print(
                f"{name}: {len(merged)} of {len(docs)} merged "
                f"(the 0.82 gate alone: {len(baseline)})",
                file=sys.stderr,
                flush=True,
            )
        for name, docs in corpora(smoke).items():
            sample = docs if name in ("yellow", "locomo") else docs[:VARIANT_DOCS]
            if smoke:  # one document per set: each variant kind is one remember of it
                sample = docs[:1]
            results["variants"][name] = variants_caught(sample, runs[name], embedder)
            print(f"{name} variants: done", file=sys.stderr, flush=True)
        for run_ in runs.values():
            for store in run_["stores"].values():
                store.close()
        for name, pairs in (
            ("STS-B dev", sts_pairs("sts-dev.csv")),
            ("STS-B test", sts_pairs("sts-test.csv")),
            ("MRPC test", mrpc_pairs()),
        ):
            chosen = pairs[:12] if smoke else pairs
            results["pairs"][name] = pairs_through_remember(
                base, name.replace(" ", "-"), chosen, embedder
            )
            print(f"{name}: done", file=sys.stderr, flush=True)
    results["calibration"] = calibrate(embedder, smoke)
    return results


def table(results: dict[str, Any]) -> str:
    lines = [
        "| set | documents | merged by kenning | of them, another document's text up to case, "
        "whitespace and punctuation | merged by the 0.82 gate alone |",
        "|---|---|---|---|---|",
    ]
    for name, s in results["sets"].items():
        label = "LoCoMo (first 1,000, per conversation)" if name == "locomo" else name
        variants = sum(bool(p.get("variant")) for p in s["merged_pairs"])
        lines.append(
            f"| {label} | {s['documents']} | {s['merged']} | {variants} | "
            f"{s['gate_alone_merged']} |"
        )
    lines += [
        "",
        "| variants caught (near-duplicate of the original) | "
        + " | ".join(results["variants"]["locomo"])
        + " |",
    ]
    lines.append("|---" * (1 + len(VARIANTS)) + "|")
    for name, by_kind in results["variants"].items():
        cells = [f"{v['caught']}/{v['variants']}" for v in by_kind.values()]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "| pairs | pairs | positives | kenning precision | kenning recall | merged (false) "
        "| gate alone precision | gate alone recall |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, p in results["pairs"].items():
        k, g = p["kenning"], p["gate_alone"]
        lines.append(
            f"| {name} | {p['pairs']} | {p['positives']} | {_fmt(k['precision'])} | "
            f"{_fmt(k['recall'])} | {k['merged']} ({k['false']}) | {_fmt(g['precision'])} | "
            f"{_fmt(g['recall'])} |"
        )
    return "\n".join(lines)


def merged_pairs_table(results: dict[str, Any]) -> str:
    rows = []
    for name, s in results["sets"].items():
        for p in s["merged_pairs"]:
            rows.append(
                f"| {name} | {p['new']} → {p['into']} | {p['score']:.3f} | {p['reason']} | "
                f"{p.get('judgement', '')} |"
            )
    if not rows:
        return "No document was merged."
    return "\n".join(
        [
            "| set | merged → into | cosine | kenning's reason | judgement |",
            "|---|---|---|---|---|",
            *rows,
        ]
    )


def _fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench dedup",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--smoke", action="store_true", help="a few documents per set")
    parser.add_argument("--calibrate", action="store_true", help="print the calibration sweep")
    args = parser.parse_args(argv)
    if not EVAL.is_dir():
        sys.exit(f"evaluation data not found at {EVAL}; set KENNING_EVAL_DIR")
    started = time.time()
    if args.calibrate:
        from kenning.embedders import load_embedder

        print(json.dumps(calibrate(load_embedder("minilm"), args.smoke), indent=2))
        return
    results = run(args.smoke)
    results["seconds"] = round(time.time() - started, 1)
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / ("dedup-smoke.json" if args.smoke else "dedup.json")
    path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    print(table(results))
    print()
    print(merged_pairs_table(results))
    print(f"\nJSON: {path} ({results['seconds']:.0f} s)")


if __name__ == "__main__":
    main()
