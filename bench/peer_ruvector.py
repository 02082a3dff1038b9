"""kenning vs ruvector (the npm package), pair by pair in one run, both over MCP stdio.

Both servers are driven by the official ``mcp`` SDK's stdio client with the same calls an
agent makes (``hooks_remember``, ``hooks_recall``, ``hooks_stats``), on the same entries and
queries, one fresh project folder per set and system, interleaved set by set:

* **yellow** — the 37 ERROR-FIX entries of ``shared/eval/yellow-solutions`` (stored as type
  ``context``, as the seed's ``/ruvector:seed-solutions`` does) and the 74 queries of
  ``bench/data/yellow_queries.jsonl`` that have a gold entry;
* **LoCoMo subset** — the questions of one conversation (``conv-30``, a seeded sample) and
  its observations: every gold observation plus seeded distractors from the same
  conversation.

Figures: hit@1 and hit@5 of ``hooks_recall`` (and the seed protocol's "floor + keep 3",
applied by kenning's server and here, client-side, to ruvector's raw top 5), warm recall
latency (MCP round trip), remember throughput, disk per memory, what a second
``hooks_remember`` of 20 entries adds; then, outside MCP, one cold CLI recall process each
(``kenning recall`` vs ``ruvector hooks recall --semantic``: wall time, peak RSS) and each
one's batched path on its own store of the last set (``kenning reembed`` vs
``ruvector hooks reembed``). Warm-up calls are excluded and the JSON says which. A ruvector
version that cannot run (no node/npm, install failure, no cached install in ``--smoke``)
is recorded as skipped with the reason; kenning's side runs regardless.

ruvector runs its all-MiniLM-L6-v2 in WASM (tract) and downloads the ONNX export from the
model hub at run time; offline that fails and it falls back to hash embeddings. So the
bench builds that file from kenning's own ONNX graph (``kenning.embedders.minilm``): the
graph with ruvector's inputs (``input_ids``, ``attention_mask``, ``token_type_ids``) and
output (``last_hidden_state``; ruvector pools and normalises itself), one file, weights
inline, and puts it where ruvector's loader looks
(``$RUVECTOR_CACHE_DIR/.ruvector/models/all-MiniLM-L6-v2/``), with the model's
``tokenizer.json``. ``hooks_stats`` then says which embedder ruvector really used, and the
vectors it stored are compared with kenning's for the same texts.

    python -m bench peer [--smoke] [--versions 0.2.34,latest] [--results DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import logging
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

from bench.mcp import kenning_command
from bench.quality import EVAL, HERE, qrels, read_jsonl
from bench.recall import RESULTS, git_project, machine, summary

DEFAULT_VERSIONS = ("0.2.34", "latest")
MODEL_NAME = "all-MiniLM-L6-v2"
#: ruvector pads every text to this many tokens (its WasmEmbedderConfig default).
RUVECTOR_MAX_LENGTH = 256
LOCOMO_CONVERSATION = "conv-30"
DUPLICATES = 20
CALL_TIMEOUT_S = 300


# --------------------------------------------------------------------------------------
# The evaluation sets
# --------------------------------------------------------------------------------------


@dataclass
class PeerSet:
    name: str
    entries: list[tuple[str, str]]  # (entry id, content)
    queries: list[tuple[str, set[str]]]  # (query, gold entry ids)
    floor: float  # the seed protocol's floor for this kind of query
    kind: str = "context"


def yellow_set(limit: int | None = None) -> PeerSet:
    from kenning import protocol

    entries = [
        (e["id"], e["content"])
        for e in read_jsonl(EVAL / "yellow-solutions" / "error_fix_entries.jsonl")
    ]
    queries = [
        (q["query"], set(q["gold"]))
        for q in read_jsonl(HERE / "data" / "yellow_queries.jsonl")
        if q["gold"]
    ]
    if limit is not None:  # smoke: a few queries, their gold entries and as many others
        queries = queries[:limit]
        keep = {g for _, gold in queries for g in gold}
        others = [e for e in entries if e[0] not in keep][:limit]
        entries = [e for e in entries if e[0] in keep] + others
    return PeerSet("yellow error-fix", entries, queries, protocol.ERROR_RECALL_FLOOR)


def locomo_set(questions: int, documents: int, conv: str = LOCOMO_CONVERSATION) -> PeerSet:
    from kenning import protocol

    folder = EVAL / "locomo-observations"
    corpus = [d for d in read_jsonl(folder / "corpus.jsonl") if d["conv"] == conv]
    rel = qrels(folder / "qrels_test.tsv")
    qs = [q for q in read_jsonl(folder / "queries.jsonl") if q["conv"] == conv and q["_id"] in rel]
    rng = random.Random(30)
    qs = rng.sample(qs, min(questions, len(qs)))
    gold = {g for q in qs for g in rel[q["_id"]]}
    distractors = [d for d in corpus if d["_id"] not in gold]
    rng.shuffle(distractors)
    chosen = [d for d in corpus if d["_id"] in gold]
    chosen += distractors[: max(0, documents - len(chosen))]
    chosen.sort(key=lambda d: corpus.index(d))  # in conversation order, as a session stores
    return PeerSet(
        f"LoCoMo {conv} subset",
        [(d["_id"], d["text"]) for d in chosen],
        [(q["text"], set(rel[q["_id"]])) for q in qs],
        protocol.RECALL_FLOOR,
        "context",
    )


# --------------------------------------------------------------------------------------
# ruvector's model file, built from kenning's ONNX graph
# --------------------------------------------------------------------------------------


def hf_style_graph(weights: dict[str, np.ndarray], config: dict[str, Any]) -> Any:
    """kenning's MiniLM graph as a standard Hugging Face export looks to its consumers.

    Starts from :func:`kenning.embedders.minilm.build_onnx_model` and changes only the ends:
    adds the ``token_type_ids`` input (kenning folds type 0 into the position table, so the
    added term is the difference to type 0), ends the graph at the encoder's last
    LayerNorm as ``last_hidden_state`` ``[batch, seq, hidden]`` (ruvector pools and
    normalises itself), and gives every ``Reshape`` an explicit shape (tract, ruvector's
    runtime, panics on the ``0`` = "copy this dimension" form).
    """
    from onnx import TensorProto, helper, numpy_helper

    from kenning.embedders.minilm import build_onnx_model

    model = build_onnx_model(weights, config)
    graph = model.graph
    hidden = int(config["hidden_size"])
    inits = {t.name: t for t in graph.initializer}
    nodes = list(graph.node)
    norms = [i for i, n in enumerate(nodes) if n.op_type == "LayerNormalization"]
    first, last = norms[0], norms[-1]

    table = np.asarray(weights["embeddings.token_type_embeddings.weight"], dtype=np.float32)
    graph.initializer.append(numpy_helper.from_array(table - table[0], "token_type_delta"))
    embeddings_norm = nodes[first]
    summed = embeddings_norm.input[0]
    embeddings_norm.input[0] = "embeddings_with_token_types"
    added = [
        helper.make_node(
            "Gather", ["token_type_delta", "token_type_ids"], ["token_type_embeddings"], axis=0
        ),
        helper.make_node("Add", [summed, "token_type_embeddings"], ["embeddings_with_token_types"]),
    ]
    out_name = nodes[last].output[0]
    kept = [*nodes[:first], *added, *nodes[first : last + 1]]
    kept.append(helper.make_node("Identity", [out_name], ["last_hidden_state"]))

    final: list[Any] = []
    for node in kept:
        if node.op_type == "Reshape" and node.input[1] in inits:
            shape = numpy_helper.to_array(inits[node.input[1]])
            copies = 0
            while copies < len(shape) and shape[copies] == 0:
                copies += 1
            if copies and not (shape[copies:] == 0).any():
                rest = numpy_helper.from_array(shape[copies:].astype(np.int64), node.name + "_tail")
                graph.initializer.append(rest)
                final.append(
                    helper.make_node(
                        "Shape", [node.input[0]], [node.name + "_head"], start=0, end=copies
                    )
                )
                final.append(
                    helper.make_node(
                        "Concat", [node.name + "_head", rest.name], [node.name + "_dims"], axis=0
                    )
                )
                node.input[1] = node.name + "_dims"
        final.append(node)
    del graph.node[:]
    graph.node.extend(final)
    used = {name for node in graph.node for name in node.input}
    initializers = [t for t in graph.initializer if t.name in used]
    del graph.initializer[:]
    graph.initializer.extend(initializers)
    graph.input.append(
        helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, ["batch", "seq"])
    )
    del graph.output[:]
    graph.output.append(
        helper.make_tensor_value_info(
            "last_hidden_state", TensorProto.FLOAT, ["batch", "seq", hidden]
        )
    )
    return model


def _ruvector_style_embed(session: Any, tokenizer: Any, texts: Sequence[str]) -> np.ndarray:
    """What ruvector computes with the file: padded to 256, masked mean, L2-normalised."""
    rows = []
    for text in texts:
        enc = tokenizer.encode(text)
        ids = list(enc.ids)[:RUVECTOR_MAX_LENGTH]
        mask = list(enc.attention_mask)[:RUVECTOR_MAX_LENGTH]
        pad = RUVECTOR_MAX_LENGTH - len(ids)
        ids_a = np.array([ids + [0] * pad], dtype=np.int64)
        mask_a = np.array([mask + [0] * pad], dtype=np.int64)
        (hidden,) = session.run(
            None,
            {"input_ids": ids_a, "attention_mask": mask_a, "token_type_ids": np.zeros_like(ids_a)},
        )
        m = mask_a[0].astype(np.float32)[:, None]
        pooled = (hidden[0] * m).sum(0) / max(m.sum(), 1e-9)
        rows.append(pooled / np.linalg.norm(pooled))
    return np.stack(rows)


def ensure_model(cache: Path) -> dict[str, Any]:
    """Build (once) ruvector's ``model.onnx`` + ``tokenizer.json`` under ``cache``; verify it.

    Returns where it is (``home``: the ``RUVECTOR_CACHE_DIR`` to give ruvector) and how it
    was checked: the graph run the way ruvector runs it (fixed length 256, masked mean,
    L2) against kenning's embedder on the same texts, with a tokenizer that truncates at
    kenning's 256 tokens (ruvector itself truncates at the file's 128).
    """
    # kenning first: its defaults (onnxruntime's telemetry off) apply to the import below
    import kenning  # noqa: F401

    # isort: split
    import onnxruntime as ort
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    from kenning.embedders import load_embedder
    from kenning.embedders.minilm import GRAPH_VERSION, locate_model, weights_sha256

    files = locate_model()
    sha = weights_sha256(files.weights)
    home = cache / "ruvector-home"
    folder = home / ".ruvector" / "models" / MODEL_NAME
    stamp_path = folder / "kenning-build.json"
    key = f"{sha}-g{GRAPH_VERSION}-hf1"
    with contextlib.suppress(OSError, ValueError):
        stamp = json.loads(stamp_path.read_text())
        model_path = folder / "model.onnx"
        if (
            stamp.get("key") == key
            and model_path.stat().st_size == stamp.get("model_bytes")
            and (folder / "tokenizer.json").is_file()
        ):
            return {**stamp, "home": str(home), "folder": str(folder), "built_now": False}

    started = time.perf_counter()
    model = hf_style_graph(load_file(str(files.weights)), dict(files.config))
    data = model.SerializeToString()
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    session = ort.InferenceSession(data, sess_options=opts, providers=["CPUExecutionProvider"])
    tokenizer = Tokenizer.from_file(str(files.tokenizer))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=files.max_tokens)
    texts = [
        "ModuleNotFoundError: No module named 'yaml'",
        "Use snake_case for function names and keep modules under 500 lines.",
        "Caroline attended an LGBTQ support group and found the stories inspiring.",
    ]
    cosines = np.sum(
        _ruvector_style_embed(session, tokenizer, texts) * load_embedder("minilm").embed(texts),
        axis=1,
    )
    if float(cosines.min()) < 0.9999:
        raise RuntimeError(f"the exported graph disagrees with kenning's ({cosines.min():.6f})")
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / "model.onnx.tmp"
    tmp.write_bytes(data)
    tmp.replace(folder / "model.onnx")
    shutil.copyfile(files.tokenizer, folder / "tokenizer.json")
    stamp = {
        "key": key,
        "source": "kenning.embedders.minilm.build_onnx_model (fp32), re-ended for ruvector",
        "weights_sha256": sha,
        "model_bytes": len(data),
        "model_sha256": hashlib.sha256(data).hexdigest(),
        "inputs": [i.name for i in model.graph.input],
        "outputs": [o.name for o in model.graph.output],
        "tokenizer": str(files.tokenizer),
        "verify_min_cosine_vs_kenning": float(cosines.min()),
        "build_s": time.perf_counter() - started,
    }
    stamp_path.write_text(json.dumps(stamp, indent=2))
    return {**stamp, "home": str(home), "folder": str(folder), "built_now": True}


# --------------------------------------------------------------------------------------
# Installing ruvector
# --------------------------------------------------------------------------------------


def _run(argv: list[str], timeout: float, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kw)


def node_versions() -> dict[str, str] | str:
    """``{"node", "npm"}`` versions, or why they cannot be used."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        return "node and npm are not on PATH"
    try:
        got = {
            "node": _run([node, "--version"], 30).stdout.strip(),
            "npm": _run([npm, "--version"], 60).stdout.strip(),
        }
    except (OSError, subprocess.SubprocessError) as exc:
        return f"cannot run node/npm: {exc}"
    major = re.match(r"v(\d+)", got["node"])
    if not major or int(major.group(1)) < 18:
        return f"node {got['node']} is too old for ruvector (needs >= 18)"
    return got


def cached_versions(cache: Path) -> list[str]:
    found = []
    for folder in cache.glob("npm-ruvector-*"):
        if (folder / "node_modules" / "ruvector" / "package.json").is_file():
            found.append(folder.name.removeprefix("npm-ruvector-"))

    def key(v: str) -> tuple[int, ...]:
        return tuple(int(p) for p in re.findall(r"\d+", v))

    return sorted(found, key=key)


def install(version: str, cache: Path, offline: bool) -> tuple[Path, str]:
    """``(package folder, exact version)``; installs with npm into the cache when needed."""
    if version == "latest":
        if offline:
            raise RuntimeError("'latest' needs the npm registry (not asked in --smoke)")
        proc = _run(["npm", "view", "ruvector", "version"], 120)
        if proc.returncode != 0 or not proc.stdout.strip():
            raise RuntimeError(f"npm view ruvector version failed: {proc.stderr.strip()[-300:]}")
        version = proc.stdout.strip().splitlines()[-1].strip("'\" ")
    prefix = cache / f"npm-ruvector-{version}"
    package = prefix / "node_modules" / "ruvector"
    if not (package / "package.json").is_file():
        if offline:
            raise RuntimeError(f"ruvector {version} is not installed in {prefix}")
        proc = _run(
            [
                "npm",
                "install",
                "--prefix",
                str(prefix),
                f"ruvector@{version}",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
            ],
            900,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"npm install ruvector@{version} failed: {proc.stderr[-400:]}")
    exact = json.loads((package / "package.json").read_text())["version"]
    return package, exact


# --------------------------------------------------------------------------------------
# The systems and one MCP session
# --------------------------------------------------------------------------------------


@dataclass
class System:
    name: str
    version: str
    server: list[str]
    cli_recall: Callable[[str], list[str]]
    env: dict[str, str]
    ruvector: bool
    reembed: list[str] = field(default_factory=list)  # the batched re-embed command

    def prepare(self, root: Path) -> None:
        if self.ruvector:  # its store is project-local when .ruvector/ exists in the cwd
            (root / ".ruvector").mkdir()


def kenning_system() -> System:
    from kenning import __version__

    cmd = kenning_command()
    return System(
        "kenning",
        __version__,
        [*cmd, "mcp"],
        lambda q: [*cmd, "recall", "--json", q],
        dict(os.environ),
        ruvector=False,
        # --force: the store is on this model already, and a plain reembed recomputes only
        # its damaged vectors (none): it would re-embed nothing
        reembed=[*cmd, "reembed", "--force", "--json"],
    )


def ruvector_system(package: Path, version: str, model_home: str, home: Path) -> System:
    node = shutil.which("node") or "node"
    cli = str(package / "bin" / "cli.js")
    env = {**os.environ, "HOME": str(home), "RUVECTOR_CACHE_DIR": model_home, "NO_COLOR": "1"}
    return System(
        f"ruvector {version}",
        version,
        [node, cli, "mcp", "start"],  # what `npx ruvector mcp start` runs
        lambda q: [node, cli, "hooks", "recall", "--semantic", "-k", "5", q],
        env,
        ruvector=True,
        reembed=[node, cli, "hooks", "reembed"],
    )


class _StdoutNoise(logging.Filter):
    """Counts (and hides) the SDK's report of non-protocol lines on a server's stdout."""

    count = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if "Failed to parse JSONRPC message" in record.getMessage():
            _StdoutNoise.count += 1
            return False
        return True


def _payload(result: Any) -> dict[str, Any]:
    if result.structured_content:
        return dict(result.structured_content)
    text = "".join(getattr(c, "text", "") for c in result.content)
    try:
        data = json.loads(text)
    except ValueError:
        return {"error": text[:300]}
    return data if isinstance(data, dict) else {"value": data}


def _norm(text: str) -> str:
    return " ".join(text.split())


class Matcher:
    """Maps what a server returns back to the entry ids of a set."""

    def __init__(self, entries: list[tuple[str, str]]) -> None:
        self.by_text = {_norm(c): eid for eid, c in entries}
        self.by_server_id: dict[str, str] = {}

    def entry(self, result: dict[str, Any]) -> str | None:
        sid = result.get("id")
        if sid and sid in self.by_server_id:
            return self.by_server_id[sid]
        text = _norm(str(result.get("content") or ""))
        if text in self.by_text:
            return self.by_text[text]
        head = text.rstrip("…. ")[:80]
        hits = {eid for t, eid in self.by_text.items() if head and t.startswith(head)}
        return hits.pop() if len(hits) == 1 else None


async def run_session(
    system: System, pset: PeerSet, root: Path, errlog: Path, duplicates: int
) -> dict[str, Any]:
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=system.server[0], args=system.server[1:], cwd=str(root), env=system.env
    )
    matcher = Matcher(pset.entries)
    out: dict[str, Any] = {"entries": len(pset.entries), "queries": len(pset.queries)}
    noise_before = _StdoutNoise.count

    async def call(session: ClientSession, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        with anyio.fail_after(CALL_TIMEOUT_S):
            result = await session.call_tool(tool, args)
        data = _payload(result)
        if result.is_error:
            data["_error"] = True
        return data

    spawned = time.perf_counter()
    with errlog.open("a", encoding="utf-8") as err:
        async with (
            stdio_client(params, errlog=err) as (read, write),
            ClientSession(read, write) as session,
        ):
            with anyio.fail_after(CALL_TIMEOUT_S):
                await session.initialize()
            out["initialize_s"] = time.perf_counter() - spawned
            # Warm-up, excluded: ruvector loads its model on the first embed; kenning loads
            # its model in the background from the start.
            for q in ("warm up the model", "database is locked"):
                await call(session, "hooks_recall", {"query": q, "top_k": 5})
            out["warm_up_s"] = time.perf_counter() - spawned

            remember_ms, statuses, errors = [], [], []
            for eid, content in pset.entries:
                t = time.perf_counter()
                data = await call(
                    session, "hooks_remember", {"content": content, "type": pset.kind}
                )
                remember_ms.append((time.perf_counter() - t) * 1000)
                if data.get("_error") or data.get("success") is False:
                    errors.append(str(data)[:200])
                sid = data.get("id") or data.get("existing_id")
                if sid:
                    matcher.by_server_id.setdefault(sid, eid)
                statuses.append(data.get("status") or ("stored" if data.get("stored") else "?"))
            out["remember"] = {
                "first_ms": remember_ms[0],
                "ms": summary(remember_ms[1:] or remember_ms),
                "per_s": (len(remember_ms) - 1) / (sum(remember_ms[1:]) / 1000)
                if len(remember_ms) > 1
                else 1000 / remember_ms[0],
                "statuses": {s: statuses.count(s) for s in sorted(set(statuses))},
                "errors": errors[:5],
            }

            recall_ms: list[float] = []
            per_query: list[dict[str, Any]] = []
            hit1 = hit5 = hit_protocol = 0
            engine_fallbacks = 0
            for query, gold in pset.queries:
                t = time.perf_counter()
                data = await call(session, "hooks_recall", {"query": query, "top_k": 5})
                recall_ms.append((time.perf_counter() - t) * 1000)
                results = list(data.get("results") or [])[:5]
                ranked = []
                for r in results:
                    try:
                        score = float(r.get("score"))
                    except (TypeError, ValueError):
                        score = float("nan")
                    ranked.append((matcher.entry(r), score))
                    if system.ruvector and r.get("engineResult") is False:
                        engine_fallbacks += 1
                ids = [eid for eid, _ in ranked]
                # The seed's protocol (floor, keep 3): kenning's server applies it; for
                # ruvector, which returns its raw top 5, it is applied here.
                kept = [e for e, s in ranked if s >= pset.floor][:3] if system.ruvector else ids
                hit1 += bool(ids) and ids[0] in gold
                hit5 += any(i in gold for i in ids[:5])
                hit_protocol += any(i in gold for i in kept)
                per_query.append(
                    {"gold": sorted(gold), "ranked": ranked, "error": bool(data.get("_error"))}
                )
            n = max(1, len(pset.queries))
            out["recall_ms"] = summary(recall_ms) if recall_ms else None
            out["hit@1"] = hit1 / n
            out["hit@5"] = hit5 / n
            out["protocol_hit"] = hit_protocol / n
            out["results_per_query"] = sum(len(q["ranked"]) for q in per_query) / n
            out["recall_errors"] = sum(q["error"] for q in per_query)
            out["engine_fallback_results"] = engine_fallbacks
            out["per_query"] = per_query

            if duplicates:
                before = _count(await call(session, "hooks_stats", {}), system)
                again = []
                for _eid, content in pset.entries[:duplicates]:
                    data = await call(
                        session, "hooks_remember", {"content": content, "type": pset.kind}
                    )
                    again.append(data.get("status") or ("stored" if data.get("stored") else "?"))
                after = _count(await call(session, "hooks_stats", {}), system)
                out["duplicates"] = {
                    "entries_remembered_again": duplicates,
                    "memories_before": before,
                    "memories_after": after,
                    "copies_added": after - before,
                    "statuses": {s: again.count(s) for s in sorted(set(again))},
                }
            stats = await call(session, "hooks_stats", {})
    out["stats"] = _short_stats(stats, system)
    out["memories"] = _count(stats, system)
    out["stdout_noise_lines"] = _StdoutNoise.count - noise_before
    files = [p for p in root.rglob("*") if p.is_file() and ".git" not in p.relative_to(root).parts]
    store_bytes = sum(p.stat().st_size for p in files)
    out["disk"] = {
        "files": sorted(str(p.relative_to(root)) for p in files),
        "bytes": store_bytes,
        "bytes_per_memory": store_bytes / max(1, out["memories"]),
        "text_bytes_per_memory": sum(len(c.encode()) for _, c in pset.entries) / len(pset.entries),
    }
    return out


def _count(stats: dict[str, Any], system: System) -> int:
    if system.ruvector:
        return int((stats.get("stats") or {}).get("total_memories", 0))
    return int(stats.get("memories", 0))


def _short_stats(stats: dict[str, Any], system: System) -> dict[str, Any]:
    if system.ruvector:
        s = stats.get("stats") or {}
        keys = ("embedderKind", "embeddingDim", "engineEnabled", "total_memories")
        return {**{k: s.get(k) for k in keys}, "intel_path": stats.get("intel_path")}
    prov = stats.get("provenance") or {}
    return {
        "embedder": prov.get("embedder"),
        "model_id": prov.get("model_id"),
        "dimension": prov.get("dimension"),
        "memories": stats.get("memories"),
        "intel_path": stats.get("intel_path"),
    }


def cold_cli(
    system: System, root: Path, query: str, gold: set[str], matcher: Matcher, runs: int
) -> dict[str, Any]:
    """Wall time and peak RSS of one recall process (one untimed run first, for the OS file
    cache, unless a single run is asked for, as in smoke mode)."""
    argv = system.cli_recall(query)
    untimed = 1 if runs > 1 else 0
    walls, rss_mb, ok, degraded = [], [], [], False
    for i in range(runs + untimed):
        wall, rss, stdout, stderr = _timed_process(argv, root, system.env)
        if i < untimed:
            continue
        walls.append(wall)
        rss_mb.append(rss)
        degraded = degraded or "recall quality degraded" in stderr
        start = stdout.find("{")
        try:
            data = json.loads(stdout[start:]) if start >= 0 else {}
        except ValueError:
            data = {}
        results = data.get("results") or []
        top = matcher.entry(results[0]) if results else None
        ok.append(top in gold)
    return {
        "argv": [Path(a).name if os.sep in a else a for a in argv[:-1]] + ["<query>"],
        "wall_s": summary(walls),
        "peak_rss_mb": summary(rss_mb),
        "top1_correct": sum(ok),
        "runs": runs,
        "untimed_first_runs": untimed,
        "stderr_says_degraded": degraded,
    }


def batch_reembed(system: System, root: Path) -> dict[str, Any]:
    """Each system's batched embedding path on the same store: re-embed every memory.

    kenning: ``kenning reembed --force`` (batches of 32); ruvector: ``ruvector hooks reembed`` (its
    bulk path: the bundled worker pool). Wall time of the whole process, model load
    included; ruvector also reports its own ``elapsedMs``.
    """
    wall, peak, stdout, stderr = _timed_process(system.reembed, root, system.env)
    data: dict[str, Any] = {}
    for line in reversed(stdout.strip().splitlines()):
        with contextlib.suppress(ValueError):
            data = json.loads(line)
            break
    if not data:
        start = stdout.find("{")
        with contextlib.suppress(ValueError):
            data = json.loads(stdout[start:]) if start >= 0 else {}
    count = int(data.get("reembedded") or 0)
    out: dict[str, Any] = {
        "reembedded": count,
        "wall_s": wall,
        "per_s": count / wall if count else None,
        "peak_rss_mb": peak,
    }
    if "elapsedMs" in data:
        out["own_elapsed_s"] = data["elapsedMs"] / 1000
        out["own_per_s"] = count / (data["elapsedMs"] / 1000) if data["elapsedMs"] else None
        out["parallel_workers"] = data.get("parallelWorkers")
    if not count:
        out["failed"] = (stdout + stderr).strip()[-400:]
    return out


def _timed_process(
    argv: list[str], cwd: Path, env: dict[str, str]
) -> tuple[float, float, str, str]:
    """``(wall s, peak RSS MB, stdout, stderr)`` of one process.

    The peak RSS is the kernel's ``VmHWM`` of the process's own image, read every 10 ms
    while it runs (``ru_maxrss`` would include the parent's pages copied before ``exec``).
    """
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t = time.perf_counter()
        proc = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err
        )
        status = Path(f"/proc/{proc.pid}/status")
        peak_kb = 0
        while proc.poll() is None:
            with contextlib.suppress(OSError, ValueError):
                for line in status.read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        peak_kb = max(peak_kb, int(line.split()[1]))
            time.sleep(0.01)
        wall = time.perf_counter() - t
        out.seek(0)
        err.seek(0)
        return wall, peak_kb / 1024, out.read(), err.read()


def _compare_vectors(root: Path, pset: PeerSet) -> dict[str, Any] | None:
    """ruvector's stored vectors vs kenning's for the same texts (cosine)."""
    path = root / ".ruvector" / "intelligence.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    from kenning.embedders import load_embedder

    embedder = load_embedder("minilm")
    texts, vecs = [], []
    for m in data.get("memories") or []:
        emb = m.get("embedding")
        if isinstance(emb, list) and len(emb) == embedder.dimension and m.get("content"):
            texts.append(m["content"])
            vecs.append(emb)
    if not texts:
        return {"compared": 0}
    ours = embedder.embed(texts)
    theirs = np.asarray(vecs, dtype=np.float32)
    theirs /= np.linalg.norm(theirs, axis=1, keepdims=True)
    cos = np.sum(ours * theirs, axis=1)
    short = np.array([embedder.token_count(t) <= 128 for t in texts])
    return {
        "compared": len(texts),
        "median_cosine": float(np.median(cos)),
        "min_cosine": float(cos.min()),
        "texts_within_128_tokens": int(short.sum()),
        "min_cosine_within_128_tokens": float(cos[short].min()) if short.any() else None,
    }


# --------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------


def run(
    versions: Sequence[str],
    smoke: bool,
    cache: Path,
    locomo_questions: int,
    locomo_documents: int,
    cold_runs: int,
    yellow_queries: int | None = None,
) -> dict[str, Any]:
    import anyio

    logging.getLogger("mcp.client.stdio").addFilter(_StdoutNoise())
    started = time.time()
    out: dict[str, Any] = {"machine": machine(), "smoke": smoke}
    # Smoke: one yellow query, its gold entry and one other (every ruvector session loads
    # its model: seconds; kenning's embeds each entry, ~0.1 CPU-s, in each of the smoke
    # test's two peer runs): every call of a session still runs, hits and misses counted
    sets = (
        [yellow_set(limit=1)]
        if smoke
        else [yellow_set(yellow_queries), locomo_set(locomo_questions, locomo_documents)]
    )
    out["sets"] = {
        s.name: {"entries": len(s.entries), "queries": len(s.queries), "floor": s.floor}
        for s in sets
    }
    duplicates = min(DUPLICATES, len(sets[0].entries)) if not smoke else 1

    systems: list[System] = [kenning_system()]
    peers: dict[str, Any] = {}
    tools = node_versions()
    out["node"] = tools
    with tempfile.TemporaryDirectory(prefix="kenning-peer-") as tmp_name:
        tmp = Path(tmp_name)
        if isinstance(tools, str):
            for v in versions:
                peers[f"ruvector {v}"] = {"skipped": True, "reason": tools}
        else:
            if smoke:  # no registry in smoke mode: the newest cached install, if any
                versions = cached_versions(cache)[-1:] or list(versions[:1])
            packages: list[tuple[str, Path, str]] = []
            for v in versions:
                try:
                    package, exact = install(v, cache, offline=smoke)
                except Exception as exc:
                    peers[f"ruvector {v}"] = {"skipped": True, "reason": str(exc)}
                    print(f"ruvector {v}: skipped: {exc}", file=sys.stderr)
                    continue
                if all(exact != e for _, _, e in packages):
                    packages.append((v, package, exact))
            model: dict[str, Any] | None = None
            if packages:
                try:
                    model = ensure_model(cache)
                    out["ruvector_model"] = {k: v for k, v in model.items() if k != "home"}
                except Exception as exc:  # reported, never replaced by a number
                    reason = f"cannot build ruvector's model file: {type(exc).__name__}: {exc}"
                    for v, _, _ in packages:
                        peers[f"ruvector {v}"] = {"skipped": True, "reason": reason}
            if model is not None:
                for _, package, exact in packages:
                    home = tmp / f"home-{exact}"
                    home.mkdir()
                    systems.append(ruvector_system(package, exact, model["home"], home))
        out["versions"] = {
            "kenning": systems[0].version,
            "ruvector": [s.version for s in systems[1:]],
            "python": out["machine"]["python"],
            "onnxruntime": out["machine"]["onnxruntime"],
            "node": tools if isinstance(tools, dict) else None,
        }

        results: dict[str, dict[str, Any]] = {s.name: {"sets": {}} for s in systems}
        roots: dict[tuple[str, str], Path] = {}
        for si, pset in enumerate(sets):
            for system in systems:  # pair by pair: every system on this set, then the next
                base = tmp / f"{system.name.replace(' ', '-')}-{si}"
                base.mkdir()
                root = git_project(base)
                system.prepare(root)
                roots[(system.name, pset.name)] = root
                errlog = tmp / f"{system.name.replace(' ', '-')}.stderr"
                print(f"peer: {system.name} on {pset.name}", file=sys.stderr, flush=True)
                try:
                    res = anyio.run(
                        run_session, system, pset, root, errlog, duplicates if si == 0 else 0
                    )
                except Exception as exc:
                    res = {"failed": f"{type(exc).__name__}: {exc}"}
                    print(f"  failed: {res['failed']}", file=sys.stderr)
                if system.ruvector and "failed" not in res:
                    res["vectors_vs_kenning"] = _compare_vectors(root, pset)
                results[system.name]["sets"][pset.name] = res
        for system in systems:
            errlog = tmp / f"{system.name.replace(' ', '-')}.stderr"
            text = errlog.read_text(errors="replace") if errlog.exists() else ""
            results[system.name]["stderr_flags"] = {
                "recall_quality_degraded": "recall quality degraded" in text,
                "hash_fallback_warning": bool(re.search(r"hash[- ]fallback|falling back", text)),
            }
            results[system.name]["version"] = system.version

        # Cold CLI: one recall process each, interleaved, in the yellow project.
        yellow = sets[0]
        query, gold = yellow.queries[0]
        matcher = Matcher(yellow.entries)
        for system in systems:
            res = results[system.name]["sets"].get(yellow.name, {})
            if "failed" in res:
                continue
            try:
                results[system.name]["cold_cli"] = cold_cli(
                    system, roots[(system.name, yellow.name)], query, gold, matcher, cold_runs
                )
            except Exception as exc:
                results[system.name]["cold_cli"] = {"failed": f"{type(exc).__name__}: {exc}"}
        # Batched embedding, each system on its own store of the last set (ruvector in the
        # default mode only: it needs ~0.5 s per memory even in bulk; kenning's smoke run checks
        # that its side still re-embeds).
        last = sets[-1]
        for system in systems:
            if smoke and system.name != "kenning":
                continue
            res = results[system.name]["sets"].get(last.name, {})
            if "failed" in res:
                continue
            try:
                got = batch_reembed(system, roots[(system.name, last.name)])
            except Exception as exc:
                got = {"failed": f"{type(exc).__name__}: {exc}"}
            results[system.name]["batch_reembed"] = {"set": last.name, **got}
        for name, res in results.items():
            peers[name] = res
    out["systems"] = peers
    out["ratios"] = ratios(out)
    out["seconds"] = time.time() - started
    return out


def ratios(out: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """kenning / ruvector for each measured figure (pairs from the same run)."""
    k = out["systems"].get("kenning") or {}
    table: dict[str, dict[str, float | None]] = {}
    for name, r in out["systems"].items():
        if name == "kenning" or r.get("skipped"):
            continue
        row: dict[str, float | None] = {}
        for set_name in out["sets"]:
            ks, rs = k.get("sets", {}).get(set_name, {}), r.get("sets", {}).get(set_name, {})
            if "failed" in ks or "failed" in rs or not ks or not rs:
                continue
            for metric in ("hit@1", "hit@5", "protocol_hit"):
                row[f"{set_name} {metric}"] = _div(ks.get(metric), rs.get(metric))
            row[f"{set_name} recall p50 ms"] = _div(
                (ks.get("recall_ms") or {}).get("p50"), (rs.get("recall_ms") or {}).get("p50")
            )
            row[f"{set_name} remember per s"] = _div(
                ks["remember"]["per_s"], rs["remember"]["per_s"]
            )
            row[f"{set_name} disk per memory"] = _div(
                ks["disk"]["bytes_per_memory"], rs["disk"]["bytes_per_memory"]
            )
        kc, rc = k.get("cold_cli", {}), r.get("cold_cli", {})
        if "wall_s" in kc and "wall_s" in rc:
            row["cold CLI recall s"] = _div(kc["wall_s"]["p50"], rc["wall_s"]["p50"])
        kb, rb = k.get("batch_reembed", {}), r.get("batch_reembed", {})
        if kb.get("per_s") and rb.get("per_s"):
            row["batch reembed per s"] = _div(kb["per_s"], rb["per_s"])
        table[name] = row
    return table


def _div(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return a / b


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--smoke", action="store_true", help="tiny sets, cached ruvector only")
    parser.add_argument("--versions", default=",".join(DEFAULT_VERSIONS))
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--cache", type=Path, default=RESULTS / "cache")
    parser.add_argument("--locomo-questions", type=int, default=25)
    parser.add_argument("--locomo-documents", type=int, default=50)
    parser.add_argument("--cold-runs", type=int, default=3)
    parser.add_argument("--yellow-queries", type=int, help="first N yellow queries (default all)")
    args = parser.parse_args(argv)
    result = run(
        [v for v in args.versions.split(",") if v],
        args.smoke,
        args.cache,
        args.locomo_questions,
        args.locomo_documents,
        1 if args.smoke else args.cold_runs,
        args.yellow_queries,
    )
    args.results.mkdir(parents=True, exist_ok=True)
    path = args.results / ("peer-smoke.json" if args.smoke else "peer.json")
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["ratios"], indent=2))
    print(f"JSON: {path} ({result['seconds']:.0f} s)")


if __name__ == "__main__":
    main()
