"""Every benchmark in one run: JSON under ``bench/results/``, plots and ``docs/benchmarks.md``.

Steps, each in its own process (one failing step is recorded with its reason and the others
still run; no number is ever filled in for a step that did not run; ``--smoke`` runs them in
this process, see :func:`run_step_in_process`):

* ``quality`` — ``bench/quality.py``: dense MiniLM vs BM25 vs kenning's hybrid, stores built
  by ``remember_many`` (as remembered vs all documents);
* ``dedup``   — ``bench/dedup.py``: distinct documents merged, duplicates caught, STS-B/MRPC;
* ``recall``  — ``bench/recall.py`` at 10k memories: ingest, warm recall, cold CLI, disk;
* ``mcp``     — ``bench/mcp.py`` at 10k: the hook process and the warm MCP server;
* ``scale``   — ``bench/scale.py``: SQLite vs PostgreSQL + pgvector, 10k / 100k (1M: --full);
* ``scaling`` — here: kenning's embedded store at 1k / 10k / 100k (1M: --full): warm recall
  latency, resident memory, cold ``kenning recall`` (wall, peak RSS), ingest, disk;
* ``transfer`` — ``bench/transfer.py``: migrate and import of 100k memories into PostgreSQL;
* ``peer``    — ``bench/peer_ruvector.py``: kenning vs ruvector 0.2.34 and latest over MCP;
* ``freshness`` — ``bench/freshness.py``: re-seeding changed solution docs (500 docs: no
  change, one change) and the session-start hook, vs ``git ls-files -s``;
* ``thresholds`` — ``bench/thresholds.py``: where search's default threshold sits for the
  embedder (LoCoMo cross-conversation false positives vs correct top-1 hits kept).

    python -m bench all [--smoke] [--full] [--no-docs] [--results DIR] [--only a,b] [--skip a,b]
    python -m bench docs [--results DIR]      # plots + docs/benchmarks.md from the JSON
    python -m bench merge scaling|scale OTHER.json [--results DIR]   # add another run's sizes
    python -m bench scaling [--smoke] [--full] [--sizes 1000,10000]

``--smoke`` runs tiny sizes (seconds per step; what the CI test runs), each step in this
process, and never touches the docs. Default mode fits ~15 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
#: Where ``all`` writes (a folder of its own under bench/results/, so that a benchmark run
#: by hand — which writes bench/results/<name>.json — cannot mix into one run's figures).
RESULTS = ROOT / "bench" / "results" / "all"
CACHE = ROOT / "bench" / "results" / "cache"
DOCS = ROOT / "docs"
STEPS = (
    "quality",
    "dedup",
    "recall",
    "mcp",
    "scale",
    "scaling",
    "transfer",
    "peer",
    "freshness",
    "thresholds",
)
SCALING_SIZES = (1_000, 10_000, 100_000)
STEP_TIMEOUT_S = 1800
RETRY_BELOW_S = 300


def json_name(step: str, smoke: bool) -> str:
    return f"{step}-smoke.json" if smoke else f"{step}.json"


def step_command(step: str, smoke: bool, full: bool, results: Path, cache: Path) -> list[str]:
    base = [sys.executable, "-m", "bench"]
    flag = ["--smoke"] if smoke else []
    if step == "quality":
        return [*base, "run-module", "quality", str(results), *flag]
    if step == "dedup":
        return [*base, "run-module", "dedup", str(results), *flag]
    if step == "recall":
        return [*base, "run-module", "recall", str(results), *flag]
    if step == "mcp":
        return [*base, "run-module", "mcp", str(results), *flag]
    if step == "scale":
        if smoke:  # SQLite only: the embedded PostgreSQL start alone would double the smoke run
            return [*base, "run-module", "scale", str(results), "--smoke", "--backends", "sqlite"]
        if full:  # its own defaults: 10k, 100k and 1M rows, both backends
            return [*base, "run-module", "scale", str(results), "--full"]
        # Default: both backends at 10k (PostgreSQL's 100k load alone takes ~6 min on 2 cores;
        # the embedded store's 100k point is in `scaling`).
        return [*base, "run-module", "scale", str(results), "--sizes", "10000", "--queries", "100"]
    if step == "transfer":  # not in --smoke: it starts a PostgreSQL server (see the test)
        return [*base, "run-module", "transfer", str(results), *flag]
    if step == "scaling":
        return [*base, "scaling", "--results", str(results), *flag, *(["--full"] if full else [])]
    if step == "peer":
        return [*base, "peer", "--results", str(results), "--cache", str(cache), *flag]
    if step == "freshness":
        return [*base, "run-module", "freshness", str(results), *flag]
    if step == "thresholds":
        return [*base, "run-module", "thresholds", str(results), *flag]
    raise ValueError(step)


def run_step(step: str, argv: list[str], log: Path) -> tuple[int | None, float, str]:
    """Run one step, echoing its output and saving it to ``log``."""
    started = time.perf_counter()
    tail: list[str] = []
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with log.open("w", encoding="utf-8") as fh:
        proc = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                fh.write(line)
                print(f"[{step}] {line}", end="", flush=True)
                tail = [*tail[-11:], line.rstrip()]
                if time.perf_counter() - started > STEP_TIMEOUT_S:
                    proc.kill()
                    tail.append(f"killed after {STEP_TIMEOUT_S} s")
                    break
        finally:
            proc.wait()
    return proc.returncode, time.perf_counter() - started, "\n".join(tail)


def run_step_in_process(step: str, argv: list[str], log: Path) -> tuple[int | None, float, str]:
    """:func:`run_step` for ``--smoke``: the step's ``python -m bench …`` command run in this
    process. A smoke run checks that every step still runs and writes its JSON, not its
    figures, and a process per step cost it a Python start, the imports, the model's load
    and the redaction patterns' compilation again for every step (~0.5 CPU-s each). As in
    its own process, the step runs from the checkout's top with its own ``sys.argv``; what
    it and the processes it starts write to stdout and stderr is echoed with its name and
    saved to ``log``; an exception or ``sys.exit`` is its exit code, with its traceback or
    message. It gets back the environment and folder it started in (a step's
    ``KENNING_ANN_MIN_ROWS`` is not the next one's). The processes a step times (cold CLI
    runs, hooks, the MCP server, the index builder) are still processes of their own;
    scaling's point runs in this process too (:func:`scaling_point_in_process`)."""
    from bench.__main__ import main as bench_main

    assert argv[:3] == [sys.executable, "-m", "bench"], argv
    started = time.perf_counter()
    tail: list[str] = []
    environ, cwd, sys_argv = dict(os.environ), Path.cwd(), sys.argv
    streams = sys.stdout, sys.stderr
    code: int | None = 0
    sys.stdout.flush()
    sys.stderr.flush()
    echo, saved_err = os.dup(1), os.dup(2)
    read_end, write_end = os.pipe()

    def copy_output() -> None:  # what run_step's loop does with a step process's output
        with (
            os.fdopen(read_end, encoding="utf-8", errors="replace") as pipe,
            log.open("w", encoding="utf-8") as fh,
        ):
            for line in pipe:
                fh.write(line)
                os.write(echo, f"[{step}] {line}".encode())
                tail[:] = [*tail[-11:], line.rstrip()]

    copier = threading.Thread(target=copy_output, daemon=True)
    copier.start()
    os.dup2(write_end, 1)
    os.dup2(write_end, 2)
    os.close(write_end)
    # print() to the pipe too where sys.stdout is not fd 1 (a test's captured output); never
    # closed: a module imported in the step may keep one (mcp's stdio_client, as its default)
    sys.stdout = open(1, "w", buffering=1, encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", buffering=1, encoding="utf-8", closefd=False)  # noqa: SIM115
    try:
        os.chdir(ROOT)
        try:
            bench_main(argv[3:])
        except SystemExit as exit_:
            code, said = exit_code(exit_)
            if said:
                print(said, file=sys.stderr)
        except Exception:
            traceback.print_exc()
            code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        sys.stdout, sys.stderr = streams
        os.dup2(echo, 1)
        os.dup2(saved_err, 2)
        copier.join()  # the pipe's end: the step's processes have exited, as run_step waits
        os.close(echo)
        os.close(saved_err)
        os.chdir(cwd)
        sys.argv = sys_argv
        os.environ.clear()
        os.environ.update(environ)
    return code, time.perf_counter() - started, "\n".join(tail)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench all",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--smoke", action="store_true", help="tiny sizes; no docs")
    parser.add_argument("--full", action="store_true", help="also 1M memories (long)")
    parser.add_argument("--no-docs", action="store_true", help="JSON only: no plots, no docs")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--only", help=f"comma-separated steps out of {','.join(STEPS)}")
    parser.add_argument("--skip", default="", help="comma-separated steps to leave out")
    args = parser.parse_args(argv)
    chosen = [s for s in (args.only.split(",") if args.only else STEPS) if s]
    unknown = set(chosen) - set(STEPS)
    if unknown:
        parser.error(f"unknown steps: {', '.join(sorted(unknown))}")
    skipped = {s for s in args.skip.split(",") if s}

    results = args.results.resolve()
    logs = results / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    mode = "smoke" if args.smoke else ("full" if args.full else "default")
    summary: dict[str, Any] = {
        "mode": mode,
        "machine": machine_info(),
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "steps": {},
    }
    previous = results / json_name("all", args.smoke)
    rerun_load = summary["machine"].get("load_average_at_start")
    if (args.only or skipped) and previous.is_file():
        # A partial rerun (--only / --skip) updates the record of the last run in this
        # folder: the steps it reruns are replaced, the others keep their record.
        old_summary = json.loads(previous.read_text())
        if old_summary.get("mode") == mode:
            summary["steps"] = old_summary.get("steps", {})
            summary["reruns"] = [*old_summary.get("reruns", []), summary["started"]]
            summary["started"] = old_summary.get("started", summary["started"])
            # the header describes the run's machine at its start; a rerun's own load is
            # kept in the record of each step it reruns
            summary["machine"] = old_summary.get("machine", summary["machine"])
    started = time.perf_counter()
    for step in STEPS:
        if step not in chosen or step in skipped:
            continue
        record: dict[str, Any] = {
            "json": json_name(step, args.smoke),
            "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        }
        if "reruns" in summary:
            record["rerun"] = True
            record["load_average_at_start"] = rerun_load
        out = results / record["json"]
        if step == "transfer" and args.smoke:
            record.update(
                status="skipped",
                reason="starts a PostgreSQL server; tests/test_bench_smoke.py runs it on its own",
            )
            summary["steps"][step] = record
            print(f"[{step}] skipped: {record['reason']}", flush=True)
            continue
        if step == "scale" and not (ROOT / "bench" / "scale.py").is_file():
            record.update(status="skipped", reason="bench/scale.py does not exist")
            summary["steps"][step] = record
            print(f"[{step}] skipped: {record['reason']}", flush=True)
            continue
        with contextlib.suppress(FileNotFoundError):
            out.unlink()  # a stale file must not pass for this run's result
        argv_ = step_command(step, args.smoke, args.full, results, args.cache)
        runner = run_step_in_process if args.smoke else run_step
        print(f"[{step}] {' '.join(argv_[1:])}", flush=True)
        code, seconds, tail = runner(step, argv_, logs / f"{step}.log")
        if (code != 0 or not out.is_file()) and seconds < RETRY_BELOW_S:
            # One retry, recorded: the machines are shared and a step can fail for reasons
            # of its own (the first failure's output stays in the record).
            record["first_attempt"] = {"returncode": code, "seconds": round(seconds, 1)}
            record["first_attempt"]["reason"] = tail[-1500:]
            print(f"[{step}] failed (exit {code}); retrying once", flush=True)
            code, seconds, tail = runner(step, argv_, logs / f"{step}.retry.log")
        record.update(seconds=round(seconds, 1), returncode=code)
        if out.is_file():
            record["sha256"] = hashlib.sha256(out.read_bytes()).hexdigest()
        if code == 0 and out.is_file():
            record["status"] = "ok"
        else:
            record.update(status="failed", reason=tail[-1500:])
            print(f"[{step}] FAILED (exit {code}); see {logs / (step + '.log')}", flush=True)
        summary["steps"][step] = record
        if step == "peer" and out.is_file():
            peer = json.loads(out.read_text())
            summary["peer_skipped"] = {
                name: r["reason"] for name, r in peer["systems"].items() if r.get("skipped")
            }
    summary["seconds"] = round(
        sum(r.get("seconds", 0) for r in summary["steps"].values())
        + sum(r.get("first_attempt", {}).get("seconds", 0) for r in summary["steps"].values()),
        1,
    )
    summary["wall_seconds_of_this_invocation"] = round(time.perf_counter() - started, 1)
    (results / json_name("all", args.smoke)).write_text(json.dumps(summary, indent=2) + "\n")
    print(f"\nall steps: {summary['seconds']:.0f} s; JSON under {results}")
    for step, record in summary["steps"].items():
        print(f"  {step:8} {record['status']:8} {record.get('seconds', '')}")
    if not args.smoke and not args.no_docs:
        write_docs(results, DOCS)
    failed = [step for step, r in summary["steps"].items() if r["status"] == "failed"]
    if failed:
        sys.exit(f"failed steps: {', '.join(failed)} (logs under {logs})")


def docs_main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench docs")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--docs", type=Path, default=DOCS)
    args = parser.parse_args(argv)
    write_docs(args.results, args.docs)


#: Steps whose JSON holds one entry per store size under ``"sizes"`` (what ``merge`` adds).
SIZED_STEPS = ("scale", "scaling")


def merge_sizes(results: Path, step: str, other: Path) -> list[str]:
    """Add to ``results``' ``step`` JSON the store sizes that the JSON ``other`` (a separate
    run of the same benchmark, e.g. its 1M point) holds and this run lacks, and record the
    merge in ``all.json`` (the new checksum and where the sizes came from, which the docs'
    header names). A size both hold is refused: a figure is never silently replaced.
    Returns the sizes added."""
    if step not in SIZED_STEPS:
        raise SystemExit(f"merge: {step!r} has no store sizes; use one of {', '.join(SIZED_STEPS)}")
    target = results / json_name(step, False)
    summary_path = results / json_name("all", False)
    for path in (target, summary_path, other):
        if not path.is_file():
            raise SystemExit(f"merge: {path} does not exist (run `python -m bench all` first)")
    ours, theirs = json.loads(target.read_text()), json.loads(other.read_text())
    summary = json.loads(summary_path.read_text())
    record = (summary.get("steps") or {}).get(step)
    if not record or record.get("status") != "ok":
        raise SystemExit(f"merge: {summary_path} has no successful {step} step to merge into")
    if record.get("sha256") != hashlib.sha256(target.read_bytes()).hexdigest():
        raise SystemExit(f"merge: {target} was rewritten after the run that {summary_path} records")
    # the settings a section's text states for every size (queries, k, noise, …) must be
    # the same in both runs; only the sizes, the machine and the run time may differ
    own = {"sizes", "machine", "seconds"}
    differ = sorted(
        k for k in set(ours) | set(theirs) if k not in own and ours.get(k) != theirs.get(k)
    )
    if differ:
        raise SystemExit(
            f"merge: {other} was run with other settings ({', '.join(differ)}); not merged"
        )
    both = sorted(set(ours.get("sizes", {})) & set(theirs.get("sizes", {})), key=int)
    if both:
        raise SystemExit(
            f"merge: {target.name} already holds sizes {', '.join(both)}; not replaced"
        )
    added = sorted(theirs.get("sizes", {}), key=int)
    if not added:
        raise SystemExit(f"merge: {other} holds no store sizes")
    ours.setdefault("sizes", {}).update({n: theirs["sizes"][n] for n in added})
    ours["sizes"] = dict(sorted(ours["sizes"].items(), key=lambda kv: int(kv[0])))
    target.write_text(json.dumps(ours, indent=2) + "\n")
    written = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(other.stat().st_mtime))
    record["sha256"] = hashlib.sha256(target.read_bytes()).hexdigest()
    record.setdefault("merged", []).append(
        {"json": str(other), "sizes": added, "written": written, "machine": theirs.get("machine")}
    )
    summary_path.write_text(json.dumps(summary, indent=2) + "\n")
    return added


def merge_main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench merge",
        description="Add the store sizes of a separate run of `scale` or `scaling` (e.g. "
        "`python -m bench scaling --sizes 1000000`) to a `bench all` run's JSON, recorded in "
        "its all.json; then `python -m bench docs` renders them with the rest.",
    )
    parser.add_argument("step", choices=SIZED_STEPS)
    parser.add_argument("json", type=Path, help="the other run's scale.json or scaling.json")
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    added = merge_sizes(args.results, args.step, args.json)
    print(f"merged sizes {', '.join(added)} into {args.results / json_name(args.step, False)}")


def write_docs(results: Path, docs: Path) -> None:
    from bench.plots import render_docs

    path = render_docs(results, docs)
    print(f"wrote {path} and plots under {docs / 'img'}")


# --------------------------------------------------------------------------------------
# The machine
# --------------------------------------------------------------------------------------


def machine_info() -> dict[str, Any]:
    from bench.recall import machine
    from kenning import __version__

    info: dict[str, Any] = dict(machine())
    info["kenning"] = __version__
    info["platform"] = platform.platform()
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        info["node"] = subprocess.run(
            ["node", "--version"], capture_output=True, text=True, timeout=30
        ).stdout.strip()
    with contextlib.suppress(OSError, ValueError):
        info["load_average_at_start"] = os.getloadavg()
    return info


# --------------------------------------------------------------------------------------
# Scaling curve of the embedded store
# --------------------------------------------------------------------------------------


def _vm(field: str) -> float:
    """``VmRSS`` / ``VmHWM`` of this process in MB (0 where /proc is missing)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def scaling_point(
    size: int,
    sample: int,
    queries: int,
    cold_runs: int,
    ingest: int = 64,
    ann_poll_s: float | None = None,
) -> dict[str, Any]:
    """One store of ``size`` memories: warm recall, memory, cold CLI, ingest (``ingest``
    texts), disk (past the ANN threshold, the index's file looked for every
    ``ann_poll_s``; None: bench.scale.ANN_POLL_S)."""
    from bench.mcp import fill, in_process, kenning_command
    from bench.recall import TYPES, WORDS, git_project, note
    from kenning import config, open_store
    from kenning.backends import annindex
    from kenning.embedders import load_embedder
    from kenning.store import NewMemory

    rng = random.Random(size)
    qs = [" ".join(rng.choice(WORDS) for _ in range(8)) for _ in range(queries)]
    out: dict[str, Any] = {"memories": size}
    # Past the ANN threshold the figures above are exact search (the index off), and the
    # same store is measured again with its index (scaling_ann_point), in this process.
    threshold = config.ann_min_rows(annindex.DEFAULT_MIN_ROWS)
    with_ann = threshold is not None and size >= threshold
    if with_ann:
        os.environ["KENNING_ANN_MIN_ROWS"] = "off"
    with tempfile.TemporaryDirectory(prefix="kenning-scaling-") as tmp:
        root = git_project(Path(tmp))
        load_embedder("minilm").embed(["warm up"])
        t = time.perf_counter()
        stored = fill(root, size, sample)
        out["fill_s"] = time.perf_counter() - t
        out["store"] = stored
        base_rss = _vm("VmRSS")
        warm = in_process(root, qs)  # opens the store, 5 warm-up recalls excluded
        out["warm_recall_ms"] = warm
        out["rss_mb"] = {
            "model_loaded": base_rss,
            "after_recalls": _vm("VmRSS"),
            "store_delta": _vm("VmRSS") - base_rss,
        }

        # Ingest into a store of this size: embed + dedup + store, batches of 32.
        texts = [note(random.Random(size + 1), 10_000_000 + i) for i in range(ingest)]
        with open_store(cwd=root, create=False) as store:
            t = time.perf_counter()
            res = store.remember_many(
                [NewMemory(x, TYPES[i % len(TYPES)]) for i, x in enumerate(texts)], batch_size=32
            )
            out["ingest"] = {
                "texts_per_s": len(texts) / (time.perf_counter() - t),
                "texts": len(texts),
                "stored": sum(r.status == "stored" for r in res),
            }
            store.backend._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        folder = root / ".kenning"
        size_bytes = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
        out["disk_bytes_per_memory"] = size_bytes / (size + out["ingest"]["stored"])

        argv = [*kenning_command(), "recall", "--json", "database is locked when two agents write"]
        out.update(cold_cli(argv, root, cold_runs))
        if with_ann:
            os.environ["KENNING_ANN_MIN_ROWS"] = str(threshold)
            if ann_poll_s is None:
                from bench.scale import ANN_POLL_S as ann_poll_s
            out["ann"] = scaling_ann_point(root, qs, argv, cold_runs, ann_poll_s)
            out["ann"]["min_rows"] = threshold
    return out


def cold_cli(argv: list[str], root: Path, cold_runs: int) -> dict[str, Any]:
    """Wall time and peak RSS of ``argv`` run ``cold_runs`` times in new processes (one more
    run first warms the OS file cache and is left out, unless a single run is asked for, as
    in smoke mode)."""
    from bench.peer_ruvector import _timed_process
    from bench.recall import summary

    walls, peaks = [], []
    untimed = 1 if cold_runs > 1 else 0
    for i in range(cold_runs + untimed):
        wall, peak, _, _ = _timed_process(argv, root, dict(os.environ))
        if i >= untimed:
            walls.append(wall)
            peaks.append(peak)
    return {"cold_cli_recall_s": summary(walls), "cold_cli_peak_rss_mb": summary(peaks)}


def scaling_ann_point(
    root: Path, qs: list[str], argv: list[str], cold_runs: int, poll_s: float
) -> dict[str, Any]:
    """The store past the ANN threshold as a user meets it: the first recall starts the
    background build (and is exact); once ``memory.db.ann`` is in place, warm recall, the
    open store's RSS and the cold CLI again."""
    from bench.mcp import in_process, warm_up_queries
    from kenning import open_store

    ann = root / ".kenning" / "memory.db.ann"
    t = time.perf_counter()
    with open_store(cwd=root, create=False) as store:
        store.recall(warm_up_queries(qs)[0])
    while not ann.exists():
        if time.perf_counter() - t > 3600:
            raise SystemExit("no ANN index after an hour: the builder failed")
        time.sleep(poll_s)
    out: dict[str, Any] = {"build_s": time.perf_counter() - t, "index_bytes": ann.stat().st_size}
    base_rss = _vm("VmRSS")
    out["warm_recall_ms"] = in_process(root, qs)
    out["rss_mb"] = {"after_recalls": _vm("VmRSS"), "store_delta": _vm("VmRSS") - base_rss}
    out.update(cold_cli(argv, root, cold_runs))
    return out


def exit_code(exit_: SystemExit) -> tuple[int, str]:
    """The exit code the interpreter gives a process that ``exit_`` ends, and what it prints
    to stderr then (the message of a code that is no number; nothing for a number or None)."""
    if exit_.code is None or isinstance(exit_.code, int):
        return exit_.code or 0, ""
    return 1, str(exit_.code)


def scaling_point_in_process(argv: list[str]) -> tuple[int, str]:
    """``python -m bench scaling ARGV`` (a ``--point``) run in this process, for
    ``--smoke``: its exit code and, where it failed, its traceback or message. A point's
    process keeps its memory figures its own; a smoke run keeps no figure, and the process
    cost it a Python start, the imports, the model's load and the redaction patterns'
    compilation again (the processes the point times, its cold CLI runs and the index
    builder, are still started). The point gets back the environment it started in
    (it switches ``KENNING_ANN_MIN_ROWS``)."""
    environ = dict(os.environ)
    try:
        scaling_main(argv)
    except SystemExit as exit_:
        return exit_code(exit_)
    except Exception:
        return 1, traceback.format_exc()
    finally:
        os.environ.clear()
        os.environ.update(environ)
    return 0, ""


def scaling_main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench scaling")
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--full", action="store_true", help="also 1M memories")
    parser.add_argument("--sizes", help="comma-separated store sizes")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--sample", type=int, default=128, help="notes embedded for real")
    parser.add_argument("--cold-runs", type=int, default=5)
    parser.add_argument("--ingest", type=int, default=64, help="texts timed into each store")
    parser.add_argument("--results", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--point", type=int, help=argparse.SUPPRESS)  # one size, in-process
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--ann-poll-s", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.point:
        point = scaling_point(
            args.point, args.sample, args.queries, args.cold_runs, args.ingest, args.ann_poll_s
        )
        point["peak_rss_mb_process"] = _vm("VmHWM")
        args.out.write_text(json.dumps(point, indent=2))
        return

    from bench.recall import machine

    if args.smoke:
        # one point (a second one ran the same code again), in this process (see
        # scaling_point_in_process), past the ANN threshold: the smoke run exercises the exact figures and the index
        # (2 sample notes and 2 texts ingested: MiniLM, ~0.08 CPU-s a note, was most of its
        # CPU, and two still make one batch of remember_many check a text against another;
        # 2 queries, each recalled exact and with the index)
        sizes, args.queries, args.sample, args.cold_runs, args.ingest = [1000], 2, 2, 1, 2
        os.environ.setdefault("KENNING_ANN_MIN_ROWS", "1000")
    else:
        sizes = [*SCALING_SIZES, *([1_000_000] if args.full else [])]
    if args.sizes:
        sizes = [int(s) for s in args.sizes.split(",")]
    out: dict[str, Any] = {
        "machine": machine(),
        "queries": args.queries,
        "sample_embedded": args.sample,
        "cold_runs": args.cold_runs,
        "sizes": {},
    }
    started = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:  # each size in a fresh process: its memory is its own
            path = Path(tmp) / f"{size}.json"
            cmd = [sys.executable, "-m", "bench", "scaling", "--point", str(size)]
            cmd += ["--out", str(path), "--queries", str(args.queries)]
            cmd += ["--sample", str(args.sample), "--cold-runs", str(args.cold_runs)]
            cmd += ["--ingest", str(args.ingest)]
            if args.smoke:
                from bench.scale import SMOKE_ANN_POLL_S

                cmd += ["--ann-poll-s", str(SMOKE_ANN_POLL_S)]
                returncode, stderr = scaling_point_in_process(cmd[4:])
            else:
                proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
                returncode, stderr = proc.returncode, proc.stderr
            if returncode != 0 or not path.is_file():
                out["sizes"][str(size)] = {"failed": stderr.strip()[-800:]}
                print(f"{size}: FAILED\n{stderr[-800:]}", file=sys.stderr)
                continue
            point = json.loads(path.read_text())
            out["sizes"][str(size)] = point
            w = point["warm_recall_ms"]
            print(
                f"{size:>9} memories: warm recall p50 {w['p50']:.2f} ms "
                f"({w['min']:.2f}–{w['max']:.2f}), store RSS +{point['rss_mb']['store_delta']:.0f}"
                f" MB, cold CLI {point['cold_cli_recall_s']['p50']:.3f} s / "
                f"{point['cold_cli_peak_rss_mb']['p50']:.0f} MB, ingest "
                f"{point['ingest']['texts_per_s']:.1f}/s, "
                f"{point['disk_bytes_per_memory']:.0f} B/memory",
                flush=True,
            )
            if "ann" in point:
                a = point["ann"]
                print(
                    f"{'':>9} with the ANN index (built in {a['build_s']:.0f} s): warm recall "
                    f"p50 {a['warm_recall_ms']['p50']:.2f} ms "
                    f"({a['warm_recall_ms']['p50'] / w['p50']:.2f}× exact), cold CLI {a['cold_cli_recall_s']['p50']:.3f} s / "
                    f"{a['cold_cli_peak_rss_mb']['p50']:.0f} MB",
                    flush=True,
                )
    out["seconds"] = time.time() - started
    args.results.mkdir(parents=True, exist_ok=True)
    path = args.results / json_name("scaling", args.smoke)
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"JSON: {path} ({out['seconds']:.0f} s)")
    failed = [n for n, p in out["sizes"].items() if "failed" in p]
    if failed:
        sys.exit(f"scaling: {len(failed)} of {len(sizes)} sizes failed: {', '.join(failed)}")
