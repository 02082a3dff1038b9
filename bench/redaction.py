"""Cost of secret redaction on the write path, against embedding the same notes (same run).

Notes of ~1 KB are cut from real prose: the solution documents in ``../shared/eval``
(``yellow-solutions``), or this repository's docs when that folder is absent. Two sets: the
notes as they are, and the same notes with two secrets from ``tests/data/secrets.json``
pasted in (a note that holds secrets is redacted twice: the second pass confirms the fixed
point). For each note, ``redact_secrets`` is timed; the model's cost is MiniLM embedding the
notes in batches of 64, as ``remember_many`` does, per note. The table gives per-note
medians and the ratio redaction / embedding. The shared machine is noisy: read the ratio.

    python -m bench.redaction [--notes 256] [--smoke]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"
EVAL = Path(os.environ.get("KENNING_EVAL_DIR", ROOT.parent / "shared" / "eval"))
NOTE_CHARS = 1000
BATCH = 64


def prose() -> str:
    folder = EVAL / "yellow-solutions"
    files = sorted(folder.rglob("*.md")) if folder.is_dir() else []
    if not files:
        files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return "\n".join(p.read_text("utf-8", "replace") for p in files)


def notes(count: int) -> list[str]:
    text = " ".join(prose().split())
    out = []
    for start in range(0, len(text) - NOTE_CHARS, NOTE_CHARS):
        out.append(text[start : start + NOTE_CHARS])
        if len(out) == count:
            break
    return out


def with_secrets(texts: list[str]) -> list[str]:
    data = json.loads((ROOT / "tests" / "data" / "secrets.json").read_text("utf-8"))
    secrets = [s["text"].replace(data["split"], "") for s in data["secrets"]]
    rng = random.Random(5)
    out = []
    for text in texts:
        a, b = rng.sample(secrets, 2)
        cut = len(text) // 2
        out.append(f"{text[:cut]} {a} {text[cut:]} {b}"[: NOTE_CHARS + len(a) + len(b) + 2])
    return out


def per_note_ms(fn: Any, texts: list[str]) -> list[float]:
    times = []
    for text in texts:
        start = time.perf_counter()
        fn(text)
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=256)
    parser.add_argument("--smoke", action="store_true", help="32 notes")
    args = parser.parse_args()
    count = 32 if args.smoke else args.notes

    from kenning.embedders import load_embedder
    from kenning.redaction import redact_secrets

    clean = notes(count)
    dirty = with_secrets(clean)
    embedder = load_embedder("minilm")
    redact_secrets("warm-up: rules load and compile once per process GITHUB_TOKEN=x")
    embedder.embed(clean[:4])

    rows: dict[str, Any] = {}
    for name, texts in (("clean", clean), ("with secrets", dirty)):
        redact_ms = per_note_ms(redact_secrets, texts)
        found = sum(bool(redact_secrets(t)[1]) for t in texts)
        start = time.perf_counter()
        for i in range(0, len(texts), BATCH):
            embedder.embed(texts[i : i + BATCH])
        embed_ms = (time.perf_counter() - start) * 1000 / len(texts)
        rows[name] = {
            "notes": len(texts),
            "mean_chars": statistics.mean(len(t) for t in texts),
            "notes_with_findings": found,
            "redact_ms_p50": statistics.median(redact_ms),
            "redact_ms_p95": sorted(redact_ms)[int(0.95 * (len(redact_ms) - 1))],
            "embed_ms_per_note": embed_ms,
            "ratio": statistics.median(redact_ms) / embed_ms,
        }

    print(
        f"{'notes':>14} {'n':>5} {'chars':>6} {'found':>6} {'redact p50':>11} "
        f"{'p95':>7} {'embed/note':>11} {'ratio':>7}"
    )
    for name, r in rows.items():
        print(
            f"{name:>14} {r['notes']:>5} {r['mean_chars']:>6.0f} {r['notes_with_findings']:>6} "
            f"{r['redact_ms_p50']:>9.2f}ms {r['redact_ms_p95']:>5.2f}ms "
            f"{r['embed_ms_per_note']:>9.2f}ms {r['ratio']:>7.3f}"
        )
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / ("redaction-smoke.json" if args.smoke else "redaction.json")
    out.write_text(json.dumps({"rows": rows, "batch": BATCH}, indent=2) + "\n")
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
