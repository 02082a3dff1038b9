"""``python -m bench COMMAND``: the benchmarks, one at a time or all together.

    python -m bench all [--smoke] [--full] [--no-docs] [--results DIR]   # every benchmark
    python -m bench docs [--results DIR]        # plots + docs/benchmarks.md from the JSON
    python -m bench merge scaling|scale OTHER.json [--results DIR]
                                                 # add a separate run's store sizes (1M)
    python -m bench peer [--smoke]              # kenning vs ruvector (bench/peer_ruvector.py)
    python -m bench scaling [--smoke] [--full]  # recall latency / memory vs store size
    python -m bench quality|dedup|recall|mcp|scale|transfer|fusion_grid|redaction|hardening|freshness|thresholds|chunked_dense
                                                 # one benchmark [ARGS]

``python -m bench run-module MODULE RESULTS_DIR [ARGS]`` runs one existing benchmark's
``main()`` with its results written to RESULTS_DIR (how ``all`` runs them: one process each,
all in its own with ``--smoke``).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

MODULES = (
    "quality",
    "dedup",
    "recall",
    "mcp",
    "scale",
    "transfer",
    "fusion_grid",
    "redaction",
    "hardening",
    "freshness",
    "thresholds",
    "chunked_dense",
)


def run_module(name: str, results: Path | None, args: list[str]) -> None:
    """Run ``bench.<name>``'s ``main()`` with ``args``, writing its JSON under ``results``."""
    module = importlib.import_module(f"bench.{name}")
    if results is not None:
        results.mkdir(parents=True, exist_ok=True)
        module.RESULTS = results  # each benchmark writes RESULTS / "<name>[-smoke].json"
    sys.argv = [f"bench.{name}", *args]
    module.main()


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return
    command, rest = argv[0], argv[1:]
    if command == "all":
        from bench import all as bench_all

        bench_all.main(rest)
    elif command == "docs":
        from bench import all as bench_all

        bench_all.docs_main(rest)
    elif command == "merge":
        from bench import all as bench_all

        bench_all.merge_main(rest)
    elif command == "scaling":
        from bench import all as bench_all

        bench_all.scaling_main(rest)
    elif command == "peer":
        from bench import peer_ruvector

        peer_ruvector.main(rest)
    elif command == "run-module":
        run_module(rest[0], Path(rest[1]), rest[2:])
    elif command in MODULES:
        run_module(command, None, rest)
    else:
        sys.exit(f"unknown command {command!r}; see python -m bench --help")


if __name__ == "__main__":
    main()
