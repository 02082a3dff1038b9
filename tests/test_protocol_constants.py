"""The protocol constants live in kenning.protocol only: the docs (the README and the pages
of docs/, where its reference sections moved) and the CLI help must state the same values (a
drift lint like the seed's RULE 16)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kenning import protocol, search

from .cli_runner import run_cli

ROOT = Path(__file__).resolve().parent.parent
DOCS = "\n".join(p.read_text() for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])


def _numbers_after(text: str, pattern: str) -> list[float]:
    return [float(m.group(1)) for m in re.finditer(pattern, text, re.IGNORECASE)]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"ask for the top (\d+)", protocol.RECALL_TOP_K),
        (r"discard scores\s+below (0\.\d+)", protocol.RECALL_FLOOR),
        (r"below (0\.\d+) for error queries", protocol.ERROR_RECALL_FLOOR),
        (r"keep the best (\d+)", protocol.RECALL_KEEP),
        (r"combined content to (\d+) characters", protocol.RECALL_CHAR_BUDGET),
        (r"cuts the (\d+)-character budget", protocol.RECALL_CHAR_BUDGET),
        (r"threshold` \(default (0\.\d+) on the semantic score", protocol.SEARCH_DEFAULT_THRESHOLD),
        (
            r"similarity threshold for search \(default (0\.\d+) with MiniLM",
            protocol.SEARCH_DEFAULT_THRESHOLD,
        ),
        (r"ranked search with decay \(bar: (0\.\d+)", protocol.SEARCH_DEFAULT_THRESHOLD),
        (
            r"A model nobody measured[\s\S]{0,200}?recall floor, (0\.\d+)",
            protocol.SEARCH_FALLBACK_THRESHOLD,
        ),
        (
            r"for all-MiniLM-L6-v2, `python -m bench thresholds`[\s\S]{0,300}?anything — (0\.\d+)",
            protocol.SEARCH_DEFAULT_THRESHOLD,
        ),
        (r"`--limit` \(default (\d+)\)", protocol.SEARCH_DEFAULT_LIMIT),
        (r"dedup threshold \((0\.\d+)\)", protocol.DEDUP_THRESHOLD),
        (r"or one that scores (0\.\d+), or the project's recall", search.FALLBACK_LOOSE_FLOOR),
    ],
)
def test_readme_states_the_constants(pattern: str, expected: float) -> None:
    found = _numbers_after(DOCS, pattern)
    assert found, f"the docs no longer state {pattern!r}"
    assert all(value == expected for value in found), (pattern, found, expected)


def test_no_stray_floor_values_in_readme() -> None:
    allowed = {protocol.RECALL_FLOOR, protocol.ERROR_RECALL_FLOOR, 0.4}
    # a configuration example (``recall_floor = 0.45``) sets a value; it does not state one;
    # docs/benchmarks.md reports measured scores beside the floors, not floors
    stated = DOCS.replace((ROOT / "docs" / "benchmarks.md").read_text(), "")
    for value in _numbers_after(stated, r"floors?[^=\d]{0,20}(0\.\d+)"):
        assert value in allowed, value


def test_sentinel_line_is_rebuilt_from_constants() -> None:
    assert f"top_k={protocol.RECALL_TOP_K}" in protocol.SENTINEL
    assert f"skip if score > {protocol.DEDUP_THRESHOLD}" in protocol.SENTINEL


def test_cli_help_states_the_constants() -> None:
    help_run = run_cli(Path.cwd(), "recall", "--help")
    assert help_run.returncode == 0, help_run.stderr
    out = help_run.stdout
    flat = " ".join(out.split())
    assert f"ask for top {protocol.RECALL_TOP_K}" in flat
    assert f"discard scores below {protocol.RECALL_FLOOR}" in flat
    assert f"({protocol.ERROR_RECALL_FLOOR} for error queries)" in flat
    assert f"keep the best {protocol.RECALL_KEEP}" in flat
    assert f"combined text to {protocol.RECALL_CHAR_BUDGET} characters" in flat


def test_readme_states_the_freshness_constants() -> None:
    from kenning.freshness import MAX_RECORDED_FILES
    from kenning.hooks.claude_code import SESSION_RESEED_MAX_DOCS

    for pattern, expected in (
        (r"stale memory's score is lowered by (0\.\d+)", protocol.STALE_PENALTY),
        (r"how much lower a stale memory ranks \(default (0\.\d+)", protocol.STALE_PENALTY),
        (r"Stale: src/db\.py changed \(score -(0\.\d+)\)", protocol.STALE_PENALTY),
        (r"the git blob hash of each \(at most (\d+)\)", MAX_RECORDED_FILES),
        (r"at most (\d+) changed docs per\s+session", SESSION_RESEED_MAX_DOCS),
    ):
        found = _numbers_after(DOCS, pattern)
        assert found, f"the docs no longer state {pattern!r}"
        assert all(value == expected for value in found), (pattern, found, expected)
