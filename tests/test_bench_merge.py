"""``python -m bench merge``: a separate run's store sizes (the 1M point, run on its own
because it takes most of an hour) join a ``bench all`` run's JSON openly: the docs' loader
accepts the merged file, its header names where the sizes came from, and nothing a run
measured is ever replaced."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from bench.all import merge_sizes
from bench.plots import _header, _load_checked

ROOT = Path(__file__).resolve().parent.parent


def _run_folder(tmp_path: Path) -> Path:
    """A results folder as `bench all` leaves it: scaling.json and the all.json recording
    its checksum."""
    results = tmp_path / "all"
    results.mkdir()
    scaling = results / "scaling.json"
    scaling.write_text(json.dumps({"queries": 100, "sizes": {"1000": {"p50": 4.0}}}))
    summary = {
        "mode": "default",
        "steps": {
            "scaling": {
                "json": "scaling.json",
                "status": "ok",
                "sha256": hashlib.sha256(scaling.read_bytes()).hexdigest(),
            }
        },
    }
    (results / "all.json").write_text(json.dumps(summary))
    return results


def _other_run(tmp_path: Path, sizes: dict[str, object]) -> Path:
    other = tmp_path / "other" / "scaling.json"
    other.parent.mkdir(exist_ok=True)
    other.write_text(json.dumps({"queries": 100, "sizes": sizes}))
    return other


def test_merged_sizes_are_read_and_named(tmp_path: Path) -> None:
    results = _run_folder(tmp_path)
    other = _other_run(tmp_path, {"1000000": {"p50": 12.0}})
    assert merge_sizes(results, "scaling", other) == ["1000000"]
    summary = json.loads((results / "all.json").read_text())
    merged = _load_checked(results, "scaling", summary)
    assert merged is not None, summary["steps"]["scaling"]
    assert merged["sizes"] == {"1000": {"p50": 4.0}, "1000000": {"p50": 12.0}}
    header = _header(summary, {"scaling": merged}, results)
    assert "**Merged**: `scaling` also holds size 1,000,000" in header
    assert "scaling.json" in header


def test_a_size_the_run_holds_is_never_replaced(tmp_path: Path) -> None:
    results = _run_folder(tmp_path)
    before = (results / "scaling.json").read_bytes(), (results / "all.json").read_bytes()
    other = _other_run(tmp_path, {"1000": {"p50": 99.0}, "1000000": {"p50": 12.0}})
    with pytest.raises(SystemExit, match="already holds sizes 1000"):
        merge_sizes(results, "scaling", other)
    assert ((results / "scaling.json").read_bytes(), (results / "all.json").read_bytes()) == before


def test_a_run_with_other_settings_is_refused(tmp_path: Path) -> None:
    results = _run_folder(tmp_path)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"queries": 10, "sizes": {"1000000": {"p50": 12.0}}}))
    with pytest.raises(SystemExit, match=r"other settings \(queries\)"):
        merge_sizes(results, "scaling", other)
    assert "1000000" not in json.loads((results / "scaling.json").read_text())["sizes"]


def test_a_file_rewritten_since_the_run_is_refused(tmp_path: Path) -> None:
    results = _run_folder(tmp_path)
    (results / "scaling.json").write_text(json.dumps({"sizes": {"1000": {"p50": 1.0}}}))
    other = _other_run(tmp_path, {"1000000": {"p50": 12.0}})
    with pytest.raises(SystemExit, match="rewritten after the run"):
        merge_sizes(results, "scaling", other)


def test_the_command_line(tmp_path: Path) -> None:
    results = _run_folder(tmp_path)
    other = _other_run(tmp_path, {"1000000": {"p50": 12.0}})
    command = [sys.executable, "-m", "bench", "merge", "scaling", str(other)]
    done = subprocess.run(
        [*command, "--results", str(results)], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "merged sizes 1000000" in done.stdout
    again = subprocess.run(
        [*command, "--results", str(results)], cwd=ROOT, capture_output=True, text=True
    )
    assert again.returncode == 1 and "already holds sizes 1000000" in again.stderr
    wrong = subprocess.run(
        [sys.executable, "-m", "bench", "merge", "quality", str(other), "--results", str(results)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert wrong.returncode == 2 and "invalid choice" in wrong.stderr


def test_hand_written_notes_survive_a_re_render() -> None:
    """`python -m bench docs` rewrites the whole document from JSON; a paragraph between
    note markers comes back at the end of its section, once, however often it is rendered;
    one whose section is no longer rendered is kept rather than lost."""
    from bench.plots import NOTE_BEGIN, NOTE_END, _carry_notes

    note = f"{NOTE_BEGIN}\nWhy the 1M row is slower: a hand-written reading.\n{NOTE_END}"
    gone = f"{NOTE_BEGIN}\nAbout a section that is no longer rendered.\n{NOTE_END}"
    old = (
        "# Benchmarks\n\nheader\n\n## Scaling\n\n| old table |\n\n"
        + note
        + "\n\n## Retired\n\n"
        + gone
        + "\n\n## Targets\n\n| old |\n"
    )
    parts = ["# Benchmarks\n\nheader\n", "## Scaling\n\n| new table |\n", "## Targets\n\n| new |\n"]
    once = _carry_notes(old, parts)
    assert once[1] == "## Scaling\n\n| new table |\n\n" + note + "\n"
    assert once[2] == "## Targets\n\n| new |\n"
    assert once[3].startswith("## Retired (section no longer rendered)") and gone in once[3]
    twice = _carry_notes("\n".join(once), parts)
    assert "\n".join(twice).count("hand-written reading") == 1
    assert twice[3] == once[3]
