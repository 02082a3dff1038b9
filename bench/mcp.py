"""Speed of the agent surfaces: the Claude Code hook process and the warm MCP server.

* **hook**: wall time of one ``kenning hook prompt-submit`` process (start to exit, as Claude
  Code runs it, with a recorded UserPromptSubmit payload on stdin) against a bare
  ``python -c pass`` process measured in the same run; ``session-start`` too.
* **MCP**: round trip of ``hooks_recall`` through the official SDK's stdio client to a warm
  ``kenning mcp`` server (warm-up calls excluded), against the same recall run in-process
  (embed + search + protocol, no transport); plus the cold start (spawn → first answer).
* **MCP server start** (what Claude Code, Codex and Cursor pay at every session): a
  ``kenning mcp`` process spawned, sent ``initialize`` over its pipes as JSON-RPC lines, and
  timed to its answer (wall), then closed; the process's CPU (user + sys, from ``wait4``) to
  its exit. Against a bare ``python -c "import mcp"`` process (the SDK's import alone, a
  floor no server on the SDK goes under), timed to a line it prints once imported, in the
  same run, runs alternating.

Both run against one store of ``--memories`` memories, filled like ``bench/recall.py``:
real MiniLM vectors for a sample of notes, then those vectors perturbed and renormalised
(written straight through the backend). The shared machines are noisy: compare ratios.

    python -m bench.mcp [--memories 10000] [--smoke]
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/mcp.py`: this file must not shadow `mcp`
    _HERE = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
    sys.path.insert(0, str(_HERE.parent))

import argparse
import json
import os
import random
import statistics
import subprocess
import tempfile
import time
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


from bench.recall import (
    RESULTS,
    TYPES,
    WORDS,
    fill_with_perturbed,
    git_project,
    machine,
    note,
    summary,
)

PROMPT = (
    "The nightly import job crashes with this, can you fix it?\n\n"
    "Traceback (most recent call last):\n"
    '  File "/srv/widgets/jobs/importer.py", line 88, in run\n'
    "    conn.execute(INSERT_SQL, row)\n"
    "sqlite3.OperationalError: database is locked"
)
KNOWN = [
    (
        "ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: enable WAL mode and "
        "set busy_timeout=30000 on every connection | SOURCE: docs/solutions/db-locked.md — "
        "two writers",
        "error_fix",
    ),
    ("All timestamps are stored in UTC: use datetime.now(UTC), never naive datetimes.", "rule"),
]
TARGET_HOOK_S = 0.6
TARGET_MCP_MS = 20.0
#: The session-start hook's own work at 10k memories (issue 15).
TARGET_SESSION_START_MS = 50.0


def fill(root: Path, memories: int, sample: int) -> dict[str, Any]:
    """Create the project's store with ``memories`` memories; return what was stored."""
    from kenning import open_store
    from kenning.embedders import load_embedder
    from kenning.store import NewMemory

    rng = random.Random(11)
    store = open_store(cwd=root, embedder=load_embedder("minilm"))
    try:
        items = [NewMemory(c, t) for c, t in KNOWN]
        items += [NewMemory(note(rng, i), TYPES[i % len(TYPES)]) for i in range(sample)]
        results = store.remember_many(items, batch_size=32)
        stored = sum(r.status == "stored" for r in results)
        fill_with_perturbed(store, memories - stored, rng, offset=sample)
        return {"memories": store.stats()["memories"], "embedded": stored}
    finally:
        store.close()


def kenning_command() -> list[str]:
    exe = Path(sys.executable).parent / "kenning"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "kenning"]


def hook_runs(root: Path, runs: int) -> dict[str, Any]:
    base = {
        "session_id": "8f2c1e4a-5b7d-4c3e-9a1f-2d6b8e0c4a17",
        "transcript_path": "/tmp/bench-transcript.jsonl",
        "cwd": str(root),
        "permission_mode": "default",
    }
    prompt = json.dumps({**base, "hook_event_name": "UserPromptSubmit", "prompt": PROMPT})
    start = json.dumps({**base, "hook_event_name": "SessionStart", "source": "startup"})
    cmd = kenning_command()
    env = dict(os.environ)
    times: dict[str, list[float]] = {"prompt": [], "session": [], "bare": []}
    outputs: dict[str, str] = {}

    def timed(argv: list[str], data: str) -> tuple[float, str]:
        t = time.perf_counter()
        proc = subprocess.run(argv, input=data, capture_output=True, text=True, cwd=root, env=env)
        elapsed = time.perf_counter() - t
        if proc.returncode != 0 or proc.stderr:
            raise SystemExit(f"{' '.join(argv)} failed: {proc.returncode} {proc.stderr}")
        return elapsed, proc.stdout

    if runs > 1:  # warm the OS file cache, excluded (a single run, as in smoke: none)
        timed([*cmd, "hook", "prompt-submit"], prompt)
    for _ in range(runs):
        elapsed, outputs["prompt"] = timed([*cmd, "hook", "prompt-submit"], prompt)
        times["prompt"].append(elapsed)
        elapsed, outputs["session"] = timed([*cmd, "hook", "session-start"], start)
        times["session"].append(elapsed)
        times["bare"].append(timed([sys.executable, "-c", "pass"], "")[0])
    context = json.loads(outputs["prompt"])["hookSpecificOutput"]["additionalContext"]
    return {
        "command": cmd,
        "prompt_submit_s": summary(times["prompt"]),
        "session_start_s": summary(times["session"]),
        "bare_python_s": summary(times["bare"]),
        "prompt_context_chars": len(context),
        "prompt_found_fix": KNOWN[0][0] in context,
        "target_p50_s": TARGET_HOOK_S,
    }


def session_start_in_process(root: Path, runs: int = 30) -> dict[str, Any]:
    """The session-start hook's own work (open the store, find the newest fixes and
    conventions, render), without the interpreter's start and imports, next to what it did
    before ``newest()`` in the same run: read every row of the project to pick the newest."""
    import heapq

    from kenning import open_store
    from kenning.backends.base import Filters
    from kenning.hooks.claude_code import context_for
    from kenning.model import COLLECTIONS

    payload = {"cwd": str(root), "hook_event_name": "SessionStart", "source": "startup"}
    context_for("session-start", payload)  # warm-up
    hook_ms, newest_ms, scan_ms = [], [], []
    for _ in range(runs):
        t = time.perf_counter()
        context_for("session-start", payload)
        hook_ms.append((time.perf_counter() - t) * 1000)
        with open_store(cwd=root, create=False) as store:
            t = time.perf_counter()
            store.newest(3, memory_type="error_fix")
            store.newest(2, memory_type=COLLECTIONS["conventions"])
            newest_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            for types, n in ((("error_fix",), 3), (COLLECTIONS["conventions"], 2)):
                records = store.backend.iterate(Filters(group_id=store.group_id, types=types))
                heapq.nlargest(n, (r.memory for r in records), key=lambda m: (m.stored_at, m.id))
            scan_ms.append((time.perf_counter() - t) * 1000)
    return {
        "hook_ms": summary(hook_ms),
        "newest_ms": summary(newest_ms),
        "baseline_scan_ms": summary(scan_ms),
        "target_ms": TARGET_SESSION_START_MS,
    }


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}


def _cpu_to_exit(proc: subprocess.Popen[bytes]) -> float:
    """The user + sys CPU seconds of ``proc``, once it exits."""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


def first_answer(root: Path) -> tuple[float, float]:
    """Spawn ``kenning mcp`` in ``root``; the seconds from spawn to its answer to
    ``initialize``, and the process's CPU seconds once it exits (stdin closed at once)."""
    spawned = time.perf_counter()
    proc = subprocess.Popen(
        [*kenning_command(), "mcp"],
        cwd=root,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    proc.stdin.flush()
    answer = json.loads(proc.stdout.readline())
    elapsed = time.perf_counter() - spawned
    proc.stdin.close()
    cpu = _cpu_to_exit(proc)
    if answer.get("id") != 1 or "result" not in answer:
        raise SystemExit(f"kenning mcp did not answer initialize: {answer}")
    return elapsed, cpu


def bare_import() -> tuple[float, float]:
    """A ``python -c "import mcp"`` process: seconds from spawn to the line it prints once
    the SDK is imported (as the server's answer is timed: not its exit), and its CPU."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", "import mcp; print('imported', flush=True)"],
        stdout=subprocess.PIPE,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - started
    cpu = _cpu_to_exit(proc)
    if proc.returncode != 0 or line != b"imported\n":
        raise SystemExit(f'python -c "import mcp" failed: {proc.returncode}')
    return elapsed, cpu


def server_start_runs(root: Path, runs: int) -> dict[str, Any]:
    """:func:`first_answer` against :func:`bare_import`, alternating (one untimed of each
    first when timing more than one: the OS file cache)."""
    if runs > 1:
        first_answer(root)
        bare_import()
    server: list[tuple[float, float]] = []
    bare: list[tuple[float, float]] = []
    for _ in range(runs):
        server.append(first_answer(root))
        bare.append(bare_import())
    out = {
        "first_answer_s": summary([s for s, _ in server]),
        "server_cpu_s": summary([c for _, c in server]),
        "bare_import_mcp_s": summary([s for s, _ in bare]),
        "bare_import_mcp_cpu_s": summary([c for _, c in bare]),
    }
    out["first_answer_vs_import_mcp"] = (
        out["first_answer_s"]["p50"] / out["bare_import_mcp_s"]["p50"]
    )
    out["cpu_vs_import_mcp"] = out["server_cpu_s"]["p50"] / out["bare_import_mcp_cpu_s"]["p50"]
    return out


def warm_up_queries(queries: list[str]) -> list[str]:
    """The warm-up calls' queries, none of them one of ``queries``: kenning remembers the
    vector of a text embedded alone, so a timed query asked in the warm-up would skip the
    model that a new query runs."""
    return [f"{q} first" for q in queries[:5]]


async def _mcp(root: Path, queries: list[str]) -> dict[str, Any]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=kenning_command()[0],
        args=[*kenning_command()[1:], "mcp"],
        cwd=str(root),
        env=dict(os.environ),
    )
    spawned = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        initialized = time.perf_counter() - spawned
        warm = warm_up_queries(queries)
        first = await session.call_tool("hooks_recall", {"query": warm[0]})
        first_answer = time.perf_counter() - spawned
        assert not first.is_error, first.content
        for q in warm:  # warm-up, excluded
            await session.call_tool("hooks_recall", {"query": q})
        ms: list[float] = []
        counts: list[int] = []
        for q in queries:
            t = time.perf_counter()
            result = await session.call_tool("hooks_recall", {"query": q})
            ms.append((time.perf_counter() - t) * 1000)
            assert not result.is_error, result.content
            counts.append((result.structured_content or {}).get("count", 0))
    return {
        "initialize_s": initialized,
        "first_recall_after_spawn_s": first_answer,
        "hooks_recall_ms": summary(ms),
        "mean_results": statistics.mean(counts),
        "target_p50_ms": TARGET_MCP_MS,
    }


def in_process(root: Path, queries: list[str]) -> dict[str, Any]:
    from kenning import open_store

    with open_store(cwd=root, create=False) as store:
        for q in warm_up_queries(queries):
            store.recall(q)
        ms = []
        for q in queries:
            t = time.perf_counter()
            store.recall(q)
            ms.append((time.perf_counter() - t) * 1000)
    return summary(ms)


def run(
    memories: int, sample: int, queries: int, hook_runs_n: int, session_runs: int = 30
) -> dict[str, Any]:
    import anyio

    rng = random.Random(5)
    qs = [" ".join(rng.choice(WORDS) for _ in range(8)) for _ in range(queries)]
    qs[0] = "sqlite3.OperationalError: database is locked"
    out: dict[str, Any] = {"machine": machine(), "memories": memories}
    with tempfile.TemporaryDirectory() as tmp:
        root = git_project(Path(tmp))
        out["store"] = fill(root, memories, sample)
        out["hook"] = hook_runs(root, hook_runs_n)
        out["session_start_in_process"] = session_start_in_process(root, session_runs)
        out["server_start"] = server_start_runs(root, hook_runs_n)
        out["mcp"] = anyio.run(_mcp, root, qs)
        out["in_process_recall_ms"] = summary_ms = in_process(root, qs)
        out["mcp_vs_in_process_ratio"] = out["mcp"]["hooks_recall_ms"]["p50"] / summary_ms["p50"]
    return out


def _server_start_rows(r: dict[str, Any]) -> list[tuple[str, str, str, str, str]]:
    """The server start's two rows (none in a result written before they were measured)."""
    start = r.get("server_start")
    if start is None:
        return []
    wall, cpu = start["first_answer_s"], start["server_cpu_s"]
    bare, bare_cpu = start["bare_import_mcp_s"], start["bare_import_mcp_cpu_s"]
    return [
        (
            "MCP server: first answer after start s",
            f"{wall['p50']:.3f} ({wall['min']:.3f}–{wall['max']:.3f})",
            f'{bare["p50"]:.3f} (python -c "import mcp")',
            f"{start['first_answer_vs_import_mcp']:.2f}",
            "",
        ),
        (
            "  its process's CPU s (user+sys)",
            f"{cpu['p50']:.3f} ({cpu['min']:.3f}–{cpu['max']:.3f})",
            f'{bare_cpu["p50"]:.3f} (python -c "import mcp")',
            f"{start['cpu_vs_import_mcp']:.2f}",
            "",
        ),
    ]


def table(r: dict[str, Any]) -> str:
    m, hook, mcp = r["machine"], r["hook"], r["mcp"]
    ps, ss, bare = hook["prompt_submit_s"], hook["session_start_s"], hook["bare_python_s"]
    rt, ip = mcp["hooks_recall_ms"], r["in_process_recall_ms"]

    def span(s: dict[str, float], fmt: str) -> str:
        return f"{s['p50']:{fmt}} ({s['min']:{fmt}}–{s['max']:{fmt}})"

    rows = [
        ("what", "kenning", "baseline", "ratio", "target"),
        (
            "hook prompt-submit s (cold process)",
            span(ps, ".3f"),
            f"{bare['p50']:.3f} (python -c pass)",
            f"{ps['p50'] / bare['p50']:.1f}",
            f"≤ {TARGET_HOOK_S} s",
        ),
        (
            "hook session-start s (cold process)",
            span(ss, ".3f"),
            f"{bare['p50']:.3f} (python -c pass)",
            f"{ss['p50'] / bare['p50']:.1f}",
            "",
        ),
        (
            "hook session-start ms, in-process",
            span(r["session_start_in_process"]["hook_ms"], ".1f"),
            "",
            "",
            f"≤ {TARGET_SESSION_START_MS:g} ms",
        ),
        (
            "  of which: its two newest() queries ms",
            span(r["session_start_in_process"]["newest_ms"], ".2f"),
            f"{r['session_start_in_process']['baseline_scan_ms']['p50']:.1f} (row scan it replaced)",
            f"{r['session_start_in_process']['newest_ms']['p50'] / r['session_start_in_process']['baseline_scan_ms']['p50']:.3f}",
            "",
        ),
        (
            f"MCP hooks_recall ms, warm @ {r['store']['memories']}",
            span(rt, ".2f"),
            f"{ip['p50']:.2f} (same recall in-process)",
            f"{r['mcp_vs_in_process_ratio']:.2f}",
            f"≤ {TARGET_MCP_MS:g} ms",
        ),
        *_server_start_rows(r),
        (
            "MCP spawn → first hooks_recall s",
            f"{mcp['first_recall_after_spawn_s']:.3f}",
            f"{mcp['initialize_s']:.3f} (spawn → initialize)",
            "",
            "",
        ),
    ]
    widths = [max(len(str(row[i])) for row in rows) for i in range(5)]
    lines = [
        f"machine: {m['cores']} cores, {m['cpu']}; python {m['python']}, "
        f"onnxruntime {m['onnxruntime']}, sqlite {m['sqlite']}",
        f"median (min–max); warm-up excluded; {ps['n']} hook runs, {rt['n']} MCP calls; "
        f"hook found the stored fix: {hook['prompt_found_fix']}",
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
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--sample", type=int, default=256, help="notes embedded for real")
    parser.add_argument("--queries", type=int, default=200, help="timed MCP calls")
    parser.add_argument("--hook-runs", type=int, default=15)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: checks it still runs")
    args = parser.parse_args()
    session_runs = 30
    if args.smoke:  # one timed run of each hook: the smoke run checks the path, not the figure
        # (two queries, two in-process session starts: every call the figures come from runs;
        # 2 sample notes besides KNOWN, each ~0.08 CPU-s of MiniLM: the rest of the store is
        # perturbed from them as from any sample)
        args.memories, args.sample, args.queries, args.hook_runs = 300, 2, 2, 1
        session_runs = 2
    result = run(args.memories, args.sample, args.queries, args.hook_runs, session_runs)
    RESULTS.mkdir(exist_ok=True)
    name = "mcp-smoke.json" if args.smoke else "mcp.json"
    (RESULTS / name).write_text(json.dumps(result, indent=2))
    print(table(result))
    print(f"\nJSON: {RESULTS / name}")


if __name__ == "__main__":
    main()
