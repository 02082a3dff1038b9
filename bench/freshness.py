"""Re-seeding changed solution docs: what the session-start hook pays, at 500 docs.

A real git repository with N solution docs (``docs/solutions/<category>/<doc>.md``, each a
``track: bug`` doc with its own error message and fix), committed, seeded once with
``kenning seed-solutions``'s function (MiniLM, the public API). Then, in one run:

* **baseline** — ``git ls-files -s docs/solutions`` as a process: git listing the folder's
  blob hashes from its index (what any "which docs changed" check costs at least);
* **no change** — :func:`kenning.seeding.reseed_changed` (what the hook calls) when no doc
  changed: one state read, a ``stat`` per doc, nothing hashed, nothing written;
* **one change** — the same after one doc's fix text was rewritten (not committed: the
  work tree counts): that doc is read, hashed, parsed, its entry re-embedded and replaced
  in place (warm model), the state written;
* **touched** — every doc's mtime changed, no byte changed (a ``git checkout`` of another
  branch and back does this): every doc is hashed again, nothing is written;
* **hook** — ``kenning hook session-start`` as Claude Code starts it (a new process), no
  change, next to a bare ``python -c pass`` process.

Each figure is the median of ``--runs`` runs (min–max), next to the baseline as a ratio.
Target (issue 16): no change ≤ 100 ms at 500 docs.

    python -m bench freshness [--docs 500] [--runs 25] [--smoke]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from bench.recall import VOCAB as RECALL_VOCAB
from bench.recall import WORDS as RECALL_WORDS

RESULTS = Path(__file__).resolve().parent / "results"
#: Made-up identifiers (bench/recall.py's vocabulary without its real words).
VOCAB = [w for w in RECALL_VOCAB if w not in RECALL_WORDS]
TARGET_NO_CHANGE_MS = 100.0
CATEGORIES = 20
VERBS = ["fails", "crashes", "hangs", "times out", "is rejected", "panics", "exits early"]
PARTS = [
    "build", "deploy", "migration", "worker", "scheduler", "parser", "cache", "upload",
    "login", "export", "importer", "indexer", "webhook", "report", "backup", "search",
]  # fmt: skip


EVAL = Path(
    os.environ.get(
        "KENNING_EVAL_DIR", Path(__file__).resolve().parent.parent.parent / "shared" / "eval"
    )
)


def real_errors() -> list[tuple[str, str, str]]:
    """Real diagnostics with the text that explains them, ``(code, error, explanation)``:
    ruff's and rustc's from ``shared/eval`` (read, never copied), 612 of them; [] without
    the evaluation data."""
    out = []
    for folder, prefix in (("ruff-rules", "ruff"), ("rust-errors", "rustc")):
        corpus_path, queries_path = (
            EVAL / folder / "corpus.jsonl",
            EVAL / folder / "queries_dev.jsonl",
        )
        if not corpus_path.is_file() or not queries_path.is_file():
            return []
        corpus = {
            d["_id"]: d["text"] for d in map(json.loads, corpus_path.read_text().splitlines())
        }
        for q in map(json.loads, queries_path.read_text().splitlines()):
            text = corpus.get(q["expected_code"], "")
            prose = " ".join(
                line for line in text.splitlines() if line and not line.startswith(("#", "`"))
            )
            out.append((q["expected_code"], f"{prefix}: {q['text']}", prose[:300]))
    return out


REAL = real_errors()


def doc_text(i: int, fix: str | None = None) -> str:
    """Doc ``i``: a real diagnostic (ruff or rustc) as its error and the rule's explanation
    as its fix, so docs differ as real ones do (made-up words when the data is missing)."""
    rng = random.Random(i)
    if REAL:
        code, error, explanation = REAL[i % len(REAL)]
        error = f"{error} [{code}]"
        fix = fix or explanation
    else:
        error = f"{' '.join(rng.choice(VOCAB) for _ in range(10))} (E{1000 + i})"
        fix = fix or " ".join(rng.choice(VOCAB) for _ in range(18)) + "."
    part, verb = PARTS[i % len(PARTS)], rng.choice(VERBS)
    return (
        f"---\ntitle: {part} {verb} ({i})\ntrack: bug\nproblem: the {part} step {verb} in m{i}\n"
        f"---\n# {part} {verb}\n\nThe job fails with:\n\n```\n{error}\n```\n\n## Fix\n\n{fix}\n"
    )


def git(root: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@example.com",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@example.com",
    }
    return subprocess.run(
        ["git", *args], cwd=root, env=env, check=True, capture_output=True, text=True
    ).stdout


def build_repo(base: Path, docs: int) -> Path:
    root = base / "proj"
    (root / "docs" / "solutions").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text(".kenning/\n")
    for i in range(docs):
        path = root / "docs" / "solutions" / f"cat{i % CATEGORIES:02d}" / f"doc{i:04d}.md"
        path.parent.mkdir(exist_ok=True)
        path.write_text(doc_text(i))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "solution docs")
    return root


def summary(values: list[float]) -> dict[str, float]:
    return {
        "p50": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "n": len(values),
    }


def timed(fn: Any, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def run(docs: int, runs: int, hook_runs: int) -> dict[str, Any]:
    from bench.recall import machine
    from kenning import open_store
    from kenning.embedders import load_embedder
    from kenning.seeding import reseed_changed, seed_solutions

    out: dict[str, Any] = {"machine": machine(), "docs": docs, "runs": runs}
    embedder = load_embedder("minilm")
    embedder.embed(["warm up"])
    with tempfile.TemporaryDirectory(prefix="kenning-freshness-") as tmp:
        root = build_repo(Path(tmp), docs)
        folder = root / "docs" / "solutions"
        store = open_store(cwd=root, embedder=embedder)
        t = time.perf_counter()
        first = seed_solutions(store, folder)
        out["first_seed"] = {
            "seconds": time.perf_counter() - t,
            "seeded": first.seeded,
            "duplicates": first.duplicates,
            "failed": first.failed,
        }
        if first.failed or first.seeded + first.duplicates < docs:
            raise SystemExit(f"the first seed did not take every doc: {first.to_dict()}")

        def baseline() -> None:
            subprocess.run(
                ["git", "ls-files", "-s", "docs/solutions"],
                cwd=root,
                check=True,
                capture_output=True,
            )

        def no_change() -> None:
            (report,) = reseed_changed(store)
            assert report.unchanged == docs and not report.changed, report.to_dict()

        baseline()
        no_change()  # warm-up, excluded
        base_ms, quiet_ms = [], []
        for _ in range(runs):  # interleaved: both see the same machine load
            base_ms += timed(baseline, 1)
            quiet_ms += timed(no_change, 1)

        changed_ms = []
        outcomes: Counter[str] = Counter()
        for n in range(runs):
            i = (n * 37) % docs
            path = folder / f"cat{i % CATEGORIES:02d}" / f"doc{i:04d}.md"
            other = REAL[(i + 97) % len(REAL)][2] if REAL else "a new fix"
            fix = f"{other} (rewrite {n})."
            path.write_text(doc_text(i, fix=fix))
            t = time.perf_counter()
            (report,) = reseed_changed(store)
            changed_ms.append((time.perf_counter() - t) * 1000)
            # that doc was read, parsed and written (its entry replaced; or stored, or found a
            # near-duplicate of another doc's, when its first entry was one)
            assert report.unchanged == docs - 1, report.to_dict()["files"][:3]
            outcomes[next(f.status for f in report.files if f.status != "unchanged")] += 1

        touched_ms = []
        for n in range(max(3, runs // 5)):
            stamp = time.time_ns() + n * 1_000_000_000
            for path in folder.glob("*/*.md"):
                os.utime(path, ns=(stamp, stamp))
            t = time.perf_counter()
            (report,) = reseed_changed(store)
            touched_ms.append((time.perf_counter() - t) * 1000)
            assert report.unchanged == docs and not report.changed, report.to_dict()
        store.close()

        payload = json.dumps(
            {
                "session_id": "bench",
                "transcript_path": str(root / "t.jsonl"),
                "cwd": str(root),
                "hook_event_name": "SessionStart",
                "source": "startup",
            }
        )
        hook = [sys.executable, "-m", "kenning", "hook", "session-start"]
        bare = [sys.executable, "-c", "pass"]
        if hook_runs > 1:  # warm-up, excluded (a single run, as in smoke: none)
            subprocess.run(
                hook, input=payload, cwd=root, capture_output=True, text=True, check=True
            )
        hook_s, bare_s = [], []
        for _ in range(hook_runs):
            t = time.perf_counter()
            proc = subprocess.run(hook, input=payload, cwd=root, capture_output=True, text=True)
            hook_s.append(time.perf_counter() - t)
            assert proc.returncode == 0 and proc.stdout and not proc.stderr, proc.stderr
            t = time.perf_counter()
            subprocess.run(bare, check=True, capture_output=True)
            bare_s.append(time.perf_counter() - t)

    out["baseline_git_ls_files_ms"] = summary(base_ms)
    out["no_change_ms"] = summary(quiet_ms)
    out["one_change_ms"] = summary(changed_ms)
    out["one_change_outcomes"] = dict(outcomes)
    out["touched_ms"] = summary(touched_ms)
    out["hook_session_start_s"] = summary(hook_s)
    out["bare_python_s"] = summary(bare_s)
    out["no_change_vs_baseline"] = (
        out["no_change_ms"]["p50"] / out["baseline_git_ls_files_ms"]["p50"]
    )
    out["target_no_change_ms"] = TARGET_NO_CHANGE_MS
    out["target_met"] = out["no_change_ms"]["p50"] <= TARGET_NO_CHANGE_MS
    return out


def _span(s: dict[str, float], fmt: str) -> str:
    return f"{s['p50']:{fmt}} ({s['min']:{fmt}}–{s['max']:{fmt}})"


def table(r: dict[str, Any]) -> str:
    m = r["machine"]
    base = r["baseline_git_ls_files_ms"]
    rows = [
        ("what", "kenning", "baseline", "ratio", "target"),
        (
            f"no change, {r['docs']} docs (ms)",
            _span(r["no_change_ms"], ".1f"),
            f"{base['p50']:.1f} (git ls-files -s)",
            f"{r['no_change_vs_baseline']:.2f}",
            f"≤ {r['target_no_change_ms']:.0f} ms",
        ),
        (
            "one doc changed (ms)",
            _span(r["one_change_ms"], ".1f"),
            f"{base['p50']:.1f} (git ls-files -s)",
            f"{r['one_change_ms']['p50'] / base['p50']:.2f}",
            "",
        ),
        (
            "every doc touched, none changed (ms)",
            _span(r["touched_ms"], ".1f"),
            f"{base['p50']:.1f} (git ls-files -s)",
            f"{r['touched_ms']['p50'] / base['p50']:.2f}",
            "",
        ),
        (
            "hook session-start, no change (s)",
            _span(r["hook_session_start_s"], ".3f"),
            f"{r['bare_python_s']['p50']:.3f} (python -c pass)",
            f"{r['hook_session_start_s']['p50'] / r['bare_python_s']['p50']:.1f}",
            "",
        ),
    ]
    widths = [max(len(str(row[i])) for row in rows) for i in range(5)]
    lines = [
        f"machine: {m['cores']} cores, {m['cpu']}; python {m['python']}, sqlite {m['sqlite']}",
        f"median of N runs (min–max), warm-up excluded; N = {r['runs']} "
        f"(touched: {r['touched_ms']['n']}, hook: {r['hook_session_start_s']['n']}); "
        f"first seed of {r['docs']} docs: {r['first_seed']['seconds']:.1f} s",
    ]
    for i, row in enumerate(rows):
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)))
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--docs", type=int, default=500)
    parser.add_argument("--runs", type=int, default=25)
    parser.add_argument("--hook-runs", type=int, default=7)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: the bench still runs")
    args = parser.parse_args()
    if args.smoke:  # the first seed (MiniLM, ~0.08 CPU-s a doc) is most of a smoke run, and
        # every doc takes the same path through it and the re-seeds (read, hash, parse,
        # compare); 4 docs in 4 categories, so that the 3 one-change runs (doc (n * 37) %
        # docs) each rewrite a different doc
        args.docs, args.runs, args.hook_runs = 4, 3, 1
    result = run(args.docs, args.runs, args.hook_runs)
    RESULTS.mkdir(exist_ok=True)
    name = "freshness-smoke.json" if args.smoke else "freshness.json"
    (RESULTS / name).write_text(json.dumps(result, indent=2))
    print(table(result))
    print(f"\nJSON: {RESULTS / name}")


if __name__ == "__main__":
    main()
