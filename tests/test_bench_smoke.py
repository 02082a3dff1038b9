"""``python -m bench all --smoke``: every benchmark still runs and writes its JSON.

Tiny sizes, results in a temporary folder, no docs (matplotlib is not a test dependency).
``--smoke`` runs each step in ``bench all``'s own process (``run_step_in_process``), where the
other modes start one per step (``run_step``): what the steps check is the same (each step's
command, its JSON, its record), and the processes a step times (cold CLI runs, hooks, the
MCP server, the index builder) are still started (scaling's point, a process of its own for
its memory figures, runs in it too); a test below holds the two runners to the same exit
code, log and record.
The ruvector peer runs only when an install is already cached (smoke mode never asks the
npm registry); otherwise it must be skipped with its reason while kenning's side still runs.
The run of every step runs without node on PATH (what a machine without node gives the peer
step; no other step runs node), so that one run of kenning's side (an MCP server start and a
cold CLI process) checks both; a cached ruvector install is run by a test of its own.
The same process then runs transfer's smoke step (which ``bench all --smoke`` skips: it starts
a PostgreSQL server), every benchmark module imported first, with pytest and tests/ made
unimportable in it and in every process it starts (``pip install -e '.[bench]'`` has no pytest).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .backends import pg_initialized  # noqa: F401  (a fixture used by name)
from .conftest import needs_eval

ROOT = Path(__file__).resolve().parent.parent
EVAL = Path(os.environ.get("KENNING_EVAL_DIR", ROOT.parent / "shared" / "eval"))

pytestmark = needs_eval(EVAL)

KEYS = {
    "quality-smoke.json": {"sets", "calibration", "seconds", "stale_penalty"},
    "dedup-smoke.json": {"sets", "variants", "pairs", "calibration", "seconds"},
    "recall-smoke.json": {
        "machine",
        "ingest",
        "warm_recall_ms",
        "real_documents",
        "cold_cli_recall_s",
        "disk",
    },
    "mcp-smoke.json": {"machine", "hook", "server_start", "mcp", "in_process_recall_ms"},
    "scale-smoke.json": {"machine", "sizes"},
    "scaling-smoke.json": {"machine", "sizes", "queries"},
    "peer-smoke.json": {"machine", "sets", "systems", "ratios", "versions"},
    "thresholds-smoke.json": {"embedder", "chosen", "table", "counts", "seconds"},
    "freshness-smoke.json": {
        "machine",
        "no_change_ms",
        "one_change_ms",
        "baseline_git_ls_files_ms",
    },
}


def without_node(tmp_path: Path) -> dict[str, str]:
    """This environment with a PATH that holds git alone: no node, no npm."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    git = shutil.which("git")
    assert git
    (bin_dir / "git").symlink_to(git)
    return {**os.environ, "PATH": str(bin_dir)}


def check_peer(peer: dict) -> None:
    """What any smoke run of the peer step must hold, ruvector run or skipped."""
    kenning = peer["systems"]["kenning"]
    assert kenning["sets"]
    for result in kenning["sets"].values():  # kenning's side ran, not failed
        assert "failed" not in result and 0.0 <= result["hit@1"] <= 1.0, result
        assert result["duplicates" if "duplicates" in result else "memories"] is not None
    # its batch path re-embedded the last set's store (a plain `kenning reembed` re-embeds
    # nothing on a store already on this model: the figure had gone missing from the docs)
    reembed = kenning["batch_reembed"]
    assert "failed" not in reembed and reembed["reembedded"] > 0, reembed
    for name, system in peer["systems"].items():
        if system.get("skipped"):
            assert system["reason"], name  # a skipped peer says why; no figures for it
            assert "sets" not in system
        else:
            assert system["sets"], name


def run_bench(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bench", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=with_eval_dir(env),
    )


def with_eval_dir(env: dict[str, str] | None) -> dict[str, str]:
    """``env`` (default: this process's) naming the evaluation data this module was given
    (KENNING_EVAL_DIR, which the suite's fixture takes out of the tests' environment as it
    does every KENNING_ variable) to the benchmark it starts: else a checkout that is not
    beside ../shared read no data there and its steps failed."""
    return {**(os.environ if env is None else env), "KENNING_EVAL_DIR": str(EVAL)}


def test_every_step_but_transfer_has_its_keys() -> None:
    """test_all_smoke_writes_every_json checks each step's JSON for its keys (transfer's
    its own)."""
    from bench.all import STEPS

    assert {f"{step}-smoke.json" for step in STEPS if step != "transfer"} == set(KEYS)


@pytest.mark.slow
def test_all_smoke_writes_every_json(tmp_path: Path, pg_initialized: Path) -> None:  # noqa: F811
    """``bench all --smoke`` as CI runs it: every step, transfer recorded as skipped (run
    after it in the same process: it starts a PostgreSQL server). One run, not three side
    by side: on the suite's saturated cores a split buys no time, and each run more paid
    again the interpreter's start, the imports (the MCP SDK's among them), the model's load
    and the redaction patterns' compilation (three runs cost 15.4-16.3 CPU-s, one 14.2-14.5).
    The peer step without node: see the module's docstring.

    `pip install -e '.[bench]'` has no pytest: no benchmark may import it (or tests/). The
    process (and every process it starts) has them made unimportable; it imports every
    benchmark module (those no smoke step runs too), then runs ``bench all --smoke`` and
    ``python -m bench run-module transfer``'s main(): bench/transfer.py starts PostgreSQL from
    bench/postgres_server.py (copying the data folder the suite's initdb made, as the
    suite's servers do, not running initdb again: ~0.35 CPU-s) and moves a store. One
    process for both, not one more for transfer: that one paid again the Python start, the
    imports and the model's load."""
    from bench.all import STEPS

    steps = [step for step in STEPS if step != "transfer"]
    results = tmp_path / "results"
    transfer = ["run-module", "transfer", str(results), "--smoke"]
    proc = run_bench_without_the_test_tools(
        tmp_path,
        ["all", "--smoke", "--no-docs", "--results", str(results)],
        [*transfer, "--postgres-initialized", str(pg_initialized)],
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]

    summary = json.loads((results / "all-smoke.json").read_text())
    assert summary["mode"] == "smoke"
    assert {"cores", "cpu", "python", "onnxruntime", "kenning"} <= set(summary["machine"])
    assert set(summary["steps"]) == set(STEPS)
    assert summary["steps"]["transfer"]["status"] == "skipped", summary["steps"]["transfer"]
    for step in steps:
        name = f"{step}-smoke.json"
        assert summary["steps"][step]["status"] == "ok", summary["steps"][step]
        data = json.loads((results / name).read_text())
        assert KEYS[name] <= set(data), (name, sorted(data))

    real = json.loads((results / "recall-smoke.json").read_text())["real_documents"]
    assert real["documents"] > 0 and real["warm_recall_ms"]["p50"] > 0
    scaling = json.loads((results / "scaling-smoke.json").read_text())
    for point in scaling["sizes"].values():
        assert point["warm_recall_ms"]["p50"] > 0
        assert point["cold_cli_peak_rss_mb"]["p50"] > 0
    # smoke mode lowers the ANN threshold to 1,000 rows: the index is built and measured
    assert scaling["sizes"]["1000"]["ann"]["warm_recall_ms"]["p50"] > 0
    scale = json.loads((results / "scale-smoke.json").read_text())
    ann = scale["sizes"]["2000"]["sqlite"]["ann"]
    assert ann["index_bytes"] > 0 and ann["search"]["none"]["recall_at_10"] >= 0.9

    # no node/npm on PATH: every ruvector version is skipped with the reason; kenning runs
    peer = json.loads((results / "peer-smoke.json").read_text())
    check_peer(peer)
    skipped = {n: s for n, s in peer["systems"].items() if n != "kenning"}
    assert skipped
    assert all(s["skipped"] and "node" in s["reason"] for s in skipped.values()), skipped
    assert peer["ratios"] == {}
    assert summary["peer_skipped"] == {n: s["reason"] for n, s in skipped.items()}
    assert not (tmp_path / "docs").exists() and not (results / "docs").exists()

    data = json.loads((results / "transfer-smoke.json").read_text())
    assert data["migrate"]["verified"]
    # `kenning import` (the command, in the bench's process in smoke mode), into a new
    # store and into one that exists
    for key in ("import", "import_into_existing"):
        assert data[key]["counts"]["imported"] == data["rows"], (key, data[key])
        assert data[key]["counts"]["reembedded"] == 0, (key, data[key])


def run_bench_without_the_test_tools(
    tmp_path: Path, argv: list[str], transfer_argv: list[str]
) -> subprocess.CompletedProcess[str]:
    """One process that cannot import pytest, hypothesis or tests/ (nor can the processes it
    starts: the blocker is a sitecustomize first on their PYTHONPATH): every benchmark module
    imported, then ``python -m bench ARGV``'s main() without node on PATH (what a machine
    without node gives the peer step), then ``python -m bench TRANSFER_ARGV``'s with this
    process's PATH (PostgreSQL's start runs the system's tools)."""
    blocker = tmp_path / "blocker" / "sitecustomize.py"
    blocker.parent.mkdir()
    blocker.write_text(
        "import sys\n"
        "class _NoTests:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('pytest', '_pytest', 'tests', 'hypothesis'):\n"
        "            raise ImportError(f'{name} is a test tool, not a benchmark dependency')\n"
        "sys.meta_path.insert(0, _NoTests())\n"
    )
    env = without_node(tmp_path)
    # the blocker first; the rest of PYTHONPATH kept, so that the bench runs this checkout's
    # kenning (a worktree's src/ on PYTHONPATH), not whichever one is installed
    paths = [str(blocker.parent), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    modules = sorted(p.stem for p in (ROOT / "bench").glob("*.py") if p.stem != "__main__")
    code = "\n".join(
        [
            "import os",
            *(f"import bench.{m}" for m in modules),
            "from bench.__main__ import main",
            f"main({argv!r})",
            f"os.environ['PATH'] = {os.environ['PATH']!r}",
            f"main({transfer_argv!r})",
        ]
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env=with_eval_dir(env),
    )


def test_a_step_run_in_process_is_recorded_as_its_process_would_be(tmp_path: Path) -> None:
    """``--smoke`` runs a step in ``bench all``'s process, the other modes in a process of
    its own: for a step that ends well and one that exits with a message, both runners give
    the same exit code, log and last lines, and the in-process one leaves the environment
    and the working folder as they were."""
    from bench.all import run_step, run_step_in_process

    environ, cwd = dict(os.environ), Path.cwd()
    for args, code in ((["--help"], 0), (["no-such-step"], 1)):
        argv = [sys.executable, "-m", "bench", *args]
        own = run_step("x", argv, tmp_path / "own.log")
        here = run_step_in_process("x", argv, tmp_path / "here.log")
        assert own[0] == here[0] == code, (own, here)
        assert own[2] == here[2] and here[2], (own, here)
        assert (tmp_path / "here.log").read_text() == (tmp_path / "own.log").read_text()
    assert dict(os.environ) == environ and Path.cwd() == cwd


def test_peer_runs_a_cached_ruvector(tmp_path: Path) -> None:
    """With node on PATH, smoke mode runs the newest ruvector install already cached (it
    never asks the npm registry); the group run above has no node, so this is where a
    cached install is run."""
    from bench.peer_ruvector import cached_versions

    if not cached_versions(ROOT / "bench" / "results" / "cache") or not shutil.which("node"):
        pytest.skip("no ruvector install cached under bench/results/cache, or no node")
    proc = run_bench("peer", "--smoke", "--results", str(tmp_path))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    check_peer(json.loads((tmp_path / "peer-smoke.json").read_text()))


def test_smoke_mode_skips_a_ruvector_that_is_not_cached(tmp_path: Path) -> None:
    """Smoke mode installs nothing: a version with no cached install is refused, which the
    peer step records as that version skipped with this reason."""
    from bench.peer_ruvector import cached_versions, install

    assert cached_versions(tmp_path) == []
    with pytest.raises(RuntimeError, match="not installed in"):
        install("0.2.34", tmp_path, offline=True)
    with pytest.raises(RuntimeError, match="needs the npm registry"):
        install("latest", tmp_path, offline=True)
    assert not list(tmp_path.iterdir())  # nothing was installed


def test_a_merged_document_counts_as_distinct_unless_it_is_a_variant_of_the_other() -> None:
    """The dedup bench counts a merged document as a note lost unless its text is the
    other's up to case, whitespace and punctuation (a variant that must be merged): rust's
    E0231 and E0388 are such a pair; one changed word or number is not."""
    from bench.dedup import VARIANTS, same_text_up_to_variants

    corpus = {
        doc["_id"]: doc["text"]
        for doc in map(json.loads, (EVAL / "rust-errors" / "corpus.jsonl").open())
    }
    assert same_text_up_to_variants(corpus["E0388"], corpus["E0231"])
    for make in VARIANTS.values():
        assert same_text_up_to_variants(make(corpus["E0382"]), corpus["E0382"])
    assert not same_text_up_to_variants(corpus["E0382"], corpus["E0499"])
    assert not same_text_up_to_variants(
        "The limit is 100 per minute.", "The limit is 1000 per minute"
    )
    assert not same_text_up_to_variants("Always run the migrations.", "Never run the migrations.")
