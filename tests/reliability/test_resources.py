"""Resource bounds of a long-lived ``kenning mcp`` server.

The server is driven over raw JSON-RPC on its stdin/stdout (so its pid is known) against a
store of a hundred memories, with a few thousand different queries: ``hooks_recall``
mostly, ``search_memories`` every tenth call. Its resident memory (``VmRSS`` from
``/proc/<pid>/status``) must stay flat after warm-up, and its open file descriptors
(``/proc/<pid>/fd``) must not grow.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from kenning import open_store
from kenning.embedders.base import Embedder
from kenning.store import NewMemory

from .conftest import percentile, random_note

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")

#: What the server searches (each recall scans them all). 100, not the 300 it was: each note
#: is embedded in the test process (~7 ms of MiniLM a note), and neither the bounds nor a
#: leak per call depends on how many rows a search scans.
MEMORIES = 100


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


class Server:
    """``kenning mcp`` as a subprocess, spoken to in raw JSON-RPC lines."""

    def __init__(self, cwd: Path, errlog: Path) -> None:
        self._err = errlog.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kenning", "mcp"],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._err,
            text=True,
        )
        self._id = 0
        self._watchdog = threading.Timer(3600, self.proc.kill)
        self._watchdog.start()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._id += 1
        message = {"jsonrpc": "2.0", "id": self._id, "method": method, "params": params}
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            assert line, "the server closed stdout"
            reply = json.loads(line)
            if reply.get("id") == self._id:
                assert "result" in reply, reply
                return dict(reply["result"])

    def notify(self, method: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}) + "\n")
        self.proc.stdin.flush()

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = self.request("tools/call", {"name": name, "arguments": arguments})
        assert not result.get("isError"), result
        return result

    def close(self) -> None:
        self._watchdog.cancel()
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=60)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self._err.close()


@pytest.mark.slow
def test_mcp_server_rss_and_fds_stay_flat(
    project: Path, tmp_path: Path, minilm: Embedder, full: bool, recorder: Any
) -> None:
    calls, warmup = (10_000, 500) if full else (300, 60)
    rng = random.Random(13)
    with open_store(cwd=project, embedder=minilm) as store:
        # random sentences, far apart: all stored with or without their near-duplicate
        # checks, which cost ~0.4 CPU-s and are not what the server's bounds depend on
        notes = [NewMemory(random_note(rng), "context") for _ in range(MEMORIES)]
        assert all(r.status == "stored" for r in store.remember_many(notes, near_duplicates=False))
    server = Server(project, tmp_path / "mcp.err")
    pid = server.proc.pid
    samples: list[dict[str, float]] = []
    latencies: list[float] = []
    try:
        server.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "resources", "version": "0"},
            },
        )
        server.notify("notifications/initialized")
        start_rss = rss_kb(pid)
        started = time.monotonic()
        for i in range(warmup + calls):
            query = random_note(rng, 8)
            t = time.monotonic()
            if i % 10 == 9:
                server.call("search_memories", {"query": query, "limit": 5, "group_id": "all"})
            else:
                server.call("hooks_recall", {"query": query})
            latencies.append(time.monotonic() - t)
            if i + 1 == warmup or (i + 1 > warmup and (i + 1 - warmup) % max(1, calls // 10) == 0):
                samples.append(
                    {
                        "call": i + 1,
                        "rss_kb": rss_kb(pid),
                        "fds": open_fds(pid),
                        "seconds": round(time.monotonic() - started, 1),
                    }
                )
        assert server.proc.poll() is None
    finally:
        server.close()
    log = (tmp_path / "mcp.err").read_text()
    assert "Traceback" not in log, log[-2000:]

    base, end = samples[0], samples[-1]
    growth_kb = end["rss_kb"] - base["rss_kb"]
    peak_kb = max(s["rss_kb"] for s in samples) - base["rss_kb"]
    # generous: allocator noise and numpy/onnxruntime arenas settle within a few MB; a leak
    # of even 2 KiB per call would show as 20 MB over the full run
    bound_kb = 48 * 1024 if full else 32 * 1024
    assert growth_kb < bound_kb, samples
    assert peak_kb < bound_kb, samples
    assert max(s["fds"] for s in samples) <= base["fds"], samples
    steady = latencies[warmup:]
    recorder(
        "resources_mcp",
        {
            "memories": MEMORIES,
            "warmup_calls": warmup,
            "measured_calls": calls,
            "rss_kb_at_start": start_rss,
            "rss_kb_after_warmup": base["rss_kb"],
            "rss_kb_at_end": end["rss_kb"],
            "rss_growth_kb_after_warmup": growth_kb,
            "rss_growth_bytes_per_call": round(growth_kb * 1024 / calls, 1),
            "fds_after_warmup": base["fds"],
            "fds_at_end": end["fds"],
            "call_p50_ms": round(percentile(steady, 0.5) * 1000, 1),
            "call_p95_ms": round(percentile(steady, 0.95) * 1000, 1),
            "samples": samples,
        },
    )
