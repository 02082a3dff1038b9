"""Search's default threshold belongs to the embedder; ``calibrate --write`` measures a
project's own threshold and floors, and search and recall then use them."""

from __future__ import annotations

import json
import os
import re
import shutil
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kenning import open_store, protocol
from kenning.calibration import (
    QueryOutcome,
    calibrate,
    read_queries,
    why_not_separable,
    write_calibration,
)
from kenning.config import load_settings
from kenning.embedders import Embedder, load_embedder
from kenning.errors import StoreLocationError, UserInputError
from kenning.model import Provenance
from kenning.store import MemoryStore
from kenning.thresholds import PACKAGED_MODELS, default_threshold, expected_default

from .case_table import each_case
from .cli_runner import CliRun, run_cli
from .conftest import PROJECT_REMOTE, make_repo

SNAKE = "Use snake_case for functions"
UTC = "All timestamps are stored in UTC"
LOCKED = (
    "ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: enable WAL and retry "
    "with busy_timeout | SOURCE: docs/solutions/db.md — concurrent writers"
)


# -- the default per embedder -------------------------------------------------------------


def test_minilm_default_is_the_measured_value(minilm: Embedder) -> None:
    found = default_threshold(minilm.provenance)
    assert found.measured and found.value == protocol.SEARCH_DEFAULT_THRESHOLD
    # the key a store not stamped yet is looked up by is the one MiniLM stamps
    assert PACKAGED_MODELS["minilm"] == minilm.provenance.model_id
    assert expected_default("minilm", None) == found


def test_an_unmeasured_model_gets_the_documented_fallback(minilm: Embedder) -> None:
    other = Provenance("minilm", "acme/other-minilm-weights", 384, True)
    found = default_threshold(other)
    assert not found.measured
    assert found.value == protocol.SEARCH_FALLBACK_THRESHOLD == protocol.RECALL_FLOOR
    assert "acme/other-minilm-weights" in found.origin and "calibrate --write" in found.origin
    assert not expected_default("minilm", "/models/other").measured
    assert not expected_default("hashing", None).measured


def _hashing_store(root: Path) -> MemoryStore:
    store = open_store(cwd=root, embedder=load_embedder("hashing"))
    store.remember(SNAKE, "naming")
    return store


def test_search_applies_the_threshold_of_the_stores_embedder(
    project: Path, minilm: Embedder
) -> None:
    with open_store(cwd=project, embedder=minilm) as store:
        store.remember(LOCKED, "error_fix")
        response = store.search("how do we handle sqlite locking")
        assert response.threshold == protocol.SEARCH_DEFAULT_THRESHOLD
        assert [r.memory.content for r in response.results] == [LOCKED]
        assert store.stats()["settings"]["sources"]["similarity_threshold"].startswith(
            "measured for minilm:"
        )
    other = make_repo(project.parent / "other")
    with _hashing_store(other) as store:
        assert store.search("snake case").threshold == protocol.SEARCH_FALLBACK_THRESHOLD
        value, origin = store.similarity_threshold()
        assert value == protocol.SEARCH_FALLBACK_THRESHOLD
        assert origin.startswith("fallback: no threshold was measured for hashing:hashing-v1")
    # a reader that has not loaded the model reads the store's stamp
    with open_store(cwd=other, embedder="hashing") as store:
        assert store.similarity_threshold()[0] == protocol.SEARCH_FALLBACK_THRESHOLD


def test_overrides_beat_the_embedders_default_in_order(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _hashing_store(project):
        pass

    def bar(**kwargs: float) -> float:
        with open_store(cwd=project, embedder="hashing", **kwargs) as store:  # type: ignore[arg-type]
            return store.search("snake case").threshold

    (project / ".kenning" / "config.toml").write_text("similarity_threshold = 0.21\n")
    assert bar() == 0.21
    (project / ".env").write_text("KENNING_SIMILARITY_THRESHOLD=0.22\n")
    assert bar() == 0.22
    monkeypatch.setenv("KENNING_SIMILARITY_THRESHOLD", "0.23")
    assert bar() == 0.23
    assert bar(threshold=0.24) == 0.24


# -- calibrate --write ---------------------------------------------------------------------


#: (memory, type, a query that should find it): five generic notes and five error entries,
#: the least `--write` rests a floor on (calibration.MIN_QUERIES_PER_SIDE).
CALIBRATION_NOTES = [
    (SNAKE, "naming", "what case do we use for function names"),
    (UTC, "rule", "which timezone do we store timestamps in"),
    ("Deploys go out on Tuesdays after the release review", "decision", "which day do we deploy"),
    (
        "Integration tests need the Redis container running",
        "rule",
        "which container do the integration tests need",
    ),
    (
        "API responses are paginated with a cursor, never an offset",
        "decision",
        "how are API responses paginated",
    ),
    (LOCKED, "error_fix", "sqlite3.OperationalError: database is locked"),
    (
        "ERROR-FIX: ModuleNotFoundError: No module named 'yaml' | FIX: pip install pyyaml "
        "| SOURCE: docs/solutions/deps.md — missing dependency",
        "error_fix",
        "ModuleNotFoundError: No module named 'yaml'",
    ),
    (
        "ERROR-FIX: ConnectionRefusedError: [Errno 111] Connection refused on port 5432 | FIX: "
        "start the postgres container first | SOURCE: docs/solutions/pg.md — no server",
        "error_fix",
        "ConnectionRefusedError: [Errno 111] Connection refused 5432",
    ),
    (
        "ERROR-FIX: TypeError: 'NoneType' object is not subscriptable in load_config | FIX: "
        "return {} when the file is missing | SOURCE: docs/solutions/config.md — no file",
        "error_fix",
        "TypeError: 'NoneType' object is not subscriptable load_config",
    ),
    (
        "ERROR-FIX: UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff | FIX: open the "
        "file in binary mode | SOURCE: docs/solutions/io.md — binary file read as text",
        "error_fix",
        "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff",
    ),
]
UNRELATED = [
    "sourdough starter feeding schedule",
    "how do I tune a guitar to drop D",
    "best hiking trails near the lake",
    "knitting pattern for a winter scarf",
    "how long to boil an egg",
    "KeyError: 'banana' in fruit_basket.py",
    "ZeroDivisionError: division by zero in average_rainfall",
    "IndexError: list index out of range in shuffle_cards",
    "AttributeError: 'Cat' object has no attribute 'bark'",
    "RecursionError: maximum recursion depth exceeded in fibonacci_tree",
]


def _labelled(store: MemoryStore) -> list[str]:
    lines = []
    for content, kind, query in CALIBRATION_NOTES:
        memory_id = store.remember(content, kind).id
        lines.append(json.dumps({"query": query, "gold": [memory_id]}))
    return lines + [json.dumps({"query": q, "gold": []}) for q in UNRELATED]


@pytest.fixture(scope="module")
def _calibration_template(
    tmp_path_factory: pytest.TempPathFactory, minilm: Embedder
) -> tuple[Path, list[str]]:
    """CALIBRATION_NOTES remembered once for the module, in a checkout like the ``project``
    fixture's (the same remote, so the same project): each calibrate test remembered them
    again (ten remembers with their duplicate checks, ~0.4 CPU-s), which none of them tests.
    Its ``.kenning`` and the labelled lines naming the memories' ids."""
    root = make_repo(tmp_path_factory.mktemp("calibration") / "proj", remote=PROJECT_REMOTE)
    with open_store(cwd=root, embedder=minilm) as store:
        lines = _labelled(store)
    return root / ".kenning", lines


@pytest.fixture
def labelled(project: Path, _calibration_template: tuple[Path, list[str]]) -> list[str]:
    """The test's project holds a copy of the template's store (a file of its own to write
    to); the labelled lines of its memories."""
    template, lines = _calibration_template
    shutil.copytree(template, project / ".kenning")
    return list(lines)


@pytest.fixture
def labelled_store(labelled: list[str], project: Path, minilm: Embedder) -> Iterator[MemoryStore]:
    with open_store(cwd=project, embedder=minilm) as store:
        yield store


def test_calibrate_write_saves_what_search_and_recall_then_use(
    labelled_store: MemoryStore, labelled: list[str]
) -> None:
    store = labelled_store
    config = store.project.store_path.parent / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("# my settings\nstale_penalty = 0.1\n\n[decay]\nhalf_life = { rule = 30 }\n")
    report = calibrate(store, read_queries(labelled))
    written = write_calibration(store, report)

    assert written.path == config
    text = config.read_text()
    assert text.startswith("# my settings\nstale_penalty = 0.1\n")  # other keys kept
    saved = tomllib.loads(text)
    assert saved["decay"] == {"half_life": {"rule": 30}}
    summary = report.summary()
    assert saved["similarity_threshold"] == summary["suggested_floor"]
    assert set(saved) >= {"recall_floor", "error_recall_floor"}
    assert summary["highest_unrelated_score"] < saved["similarity_threshold"]
    assert saved["similarity_threshold"] < summary["correct_score_min"]
    assert written.kept == {}
    assert [p.name for p in config.parent.glob(".config.toml.*")] == []  # no temp file left

    with open_store(cwd=store.project.root, embedder=store.embedder) as reread:
        assert reread.similarity_threshold() == (saved["similarity_threshold"], str(config))
        assert reread.search("anything at all").threshold == saved["similarity_threshold"]
        assert reread.recall("what case for function names").floor == saved["recall_floor"]
        error = reread.recall("sqlite3.OperationalError: database is locked")
        assert error.floor == saved["error_recall_floor"] and error.is_error
        assert reread.settings.stale_penalty == 0.1


def test_calibrate_write_refuses_when_scores_overlap(
    labelled_store: MemoryStore, labelled: list[str]
) -> None:
    store = labelled_store
    lines = list(labelled)
    # an "unrelated" query that in truth asks for a stored memory: the scores collide
    lines.append(json.dumps({"query": "use snake_case for functions", "gold": []}))
    config = store.project.store_path.parent / "config.toml"
    config.write_text("stale_penalty = 0.1\n")
    report = calibrate(store, read_queries(lines))
    with pytest.raises(UserInputError, match=r"overlap.*'use snake_case for functions'"):
        write_calibration(store, report)
    assert config.read_text() == "stale_penalty = 0.1\n"

    only_labelled = [line for line in labelled if '"gold": []' not in line]
    with pytest.raises(UserInputError, match="no unrelated query"):
        write_calibration(store, calibrate(store, read_queries(only_labelled)))


def test_calibrate_write_leaves_a_floor_without_its_queries(
    labelled_store: MemoryStore, labelled: list[str]
) -> None:
    store = labelled_store
    lines = [line for line in labelled if "Error" not in line]
    written = write_calibration(store, calibrate(store, read_queries(lines)))
    assert set(written.values) == {"similarity_threshold", "recall_floor"}
    assert "error queries" in written.kept["error_recall_floor"]
    with open_store(cwd=store.project.root, embedder=store.embedder) as reread:
        assert reread.settings.error_recall_floor == protocol.ERROR_RECALL_FLOOR


def test_calibrate_write_needs_enough_queries_on_each_side(
    labelled_store: MemoryStore, labelled: list[str]
) -> None:
    from kenning.calibration import MIN_QUERIES_PER_SIDE

    store = labelled_store
    lines = labelled
    labelled = [line for line in lines if '"gold": []' not in line]
    unrelated = [line for line in lines if '"gold": []' in line]
    config = store.project.store_path.parent / "config.toml"
    # one unrelated query short: nothing is written, and the message says how many it needs
    few = labelled + unrelated[: MIN_QUERIES_PER_SIDE - 1]
    with pytest.raises(UserInputError, match=rf"too few queries.*at least {MIN_QUERIES_PER_SIDE}"):
        write_calibration(store, calibrate(store, read_queries(few)))
    assert not config.exists()
    # enough overall, but one error query short of its own floor: that floor is kept
    errors = [line for line in labelled if "Error" in line]
    short = [line for line in lines if line not in errors[:1]]
    written = write_calibration(store, calibrate(store, read_queries(short)))
    assert set(written.values) == {"similarity_threshold", "recall_floor"}
    assert "too few queries" in written.kept["error_recall_floor"]


def test_calibrate_write_applies_the_store_location_guard(
    tmp_path: Path, minilm: Embedder, project: Path, labelled: list[str]
) -> None:
    root, lines = project, labelled
    # .kenning moved out of the project and linked back: reads work, writes are refused
    outside = tmp_path / "elsewhere"
    (root / ".kenning").rename(outside)
    (root / ".kenning").symlink_to(outside, target_is_directory=True)
    with open_store(cwd=root, embedder=minilm, create=False) as store:
        report = calibrate(store, read_queries(lines))
        with pytest.raises(StoreLocationError, match="outside the project"):
            write_calibration(store, report)
    assert not (outside / "config.toml").exists()


def test_calibrate_write_cli(project: Path, labelled: list[str]) -> None:
    lines = labelled
    queries = project / "labelled.jsonl"

    def run(*args: str) -> CliRun:
        return run_cli(project, *args)

    queries.write_text("\n".join([*lines, json.dumps({"query": SNAKE, "gold": []})]) + "\n")
    refused = run("calibrate", str(queries), "--write")
    assert refused.returncode == 1, refused.stderr
    assert "nothing written" in refused.stderr and "overlap" in refused.stderr
    assert "suggested floor" in refused.stdout  # the report is still shown
    assert not (project / ".kenning" / "config.toml").exists()

    queries.write_text("\n".join(lines) + "\n")
    done = run("calibrate", str(queries), "--write", "--json")
    assert done.returncode == 0, done.stderr
    written = json.loads(done.stdout)["written"]
    threshold = written["values"]["similarity_threshold"]
    search = run("search", "sourdough starter", "--json")
    assert json.loads(search.stdout)["threshold"] == threshold
    stats = json.loads(run("stats", "--json").stdout)
    assert stats["settings"]["similarity_threshold"] == threshold
    assert stats["settings"]["sources"]["similarity_threshold"].endswith("config.toml")
    # in text, the floors shown beside the ones written are said to be the ones before it
    # (they read "recall floors now: 0.5" above "wrote recall_floor = 0.445")
    again = run("calibrate", str(queries), "--write")
    assert again.returncode == 0, again.stderr
    assert "wrote similarity_threshold" in again.stdout
    assert "recall floors now" not in again.stdout
    assert "recall floors before this write" in again.stdout
    assert "overrides" not in again.stdout
    # a variable sets the threshold: config.toml is the lowest layer, so the value written
    # does not apply, and the write says so (it said only "wrote similarity_threshold = …")
    (project / ".env").write_text("KENNING_SIMILARITY_THRESHOLD=0.2\n")
    shadowed = run("calibrate", str(queries), "--write")
    assert shadowed.returncode == 0, shadowed.stderr
    assert (
        "similarity_threshold: KENNING_SIMILARITY_THRESHOLD from .env overrides the value "
        "written; unset it for config.toml's to apply"
    ) in shadowed.stdout, shadowed.stdout
    as_json = json.loads(run("calibrate", str(queries), "--write", "--json").stdout)
    assert set(as_json["written"]["overridden"]) == {"similarity_threshold"}


def test_calibrate_measures_the_project_it_is_given(tmp_path: Path, minilm: Embedder) -> None:
    """`kenning calibrate labelled.jsonl --project team/docs --store shared/memory.db` run
    outside a checkout (as `kenning stats --project team/docs --store …` runs) said "not
    inside a git repository … set both KENNING_PROJECT and KENNING_STORE": the project given
    was a filter only, not the project the store was opened for. It is both now: that
    project's memories are measured and --write saves beside the store named."""
    shared = tmp_path / "shared"
    with open_store(shared / "memory.db", cwd=tmp_path, group_id="team/docs", embedder=minilm) as s:
        lines = _labelled(s)
    queries = tmp_path / "labelled.jsonl"
    queries.write_text("\n".join(lines) + "\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    args = ("calibrate", str(queries), "--store", str(shared / "memory.db"), "--write", "--json")
    done = run_cli(elsewhere, *args, "--project", "team/docs")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["top1_accuracy"] == 1.0, report
    assert report["written"]["path"] == str(shared / "config.toml")
    assert "similarity_threshold" in tomllib.loads((shared / "config.toml").read_text())


@each_case(
    ("key", "variable", "wording"),
    [
        ("recall_floor", "KENNING_RECALL_FLOOR", "recall floor"),
        ("error_recall_floor", "KENNING_ERROR_RECALL_FLOOR", "error recall floor"),
        ("stale_penalty", "KENNING_STALE_PENALTY", "stale penalty"),
    ],
    own_folder="tmp_path",
)
@each_case("bad", ["1.5", "-0.1", "nan", "inf", "half", "true"], own_folder="tmp_path")
def test_a_setting_outside_0_to_1_is_refused_naming_where_it_came_from(
    tmp_path: Path, key: str, variable: str, wording: str, bad: str
) -> None:
    from kenning.config import load_settings
    from kenning.errors import UserInputError

    (tmp_path / ".kenning").mkdir()
    toml = tmp_path / ".kenning" / "config.toml"
    toml.write_text(f"{key} = {bad}\n" if bad != "half" else f'{key} = "{bad}"\n')
    with pytest.raises(UserInputError, match=f"{wording} from .*config.toml"):
        getattr(load_settings(tmp_path, environ={}), key)
    toml.write_text(f"{key} = 0.3\n")
    assert getattr(load_settings(tmp_path, environ={}), key) == 0.3
    # the message names the variable to correct (and which .env holds it), not only a layer
    with pytest.raises(UserInputError, match=f"{wording} from the environment \\({variable}\\)"):
        getattr(load_settings(tmp_path, environ={variable: bad}), key)
    (tmp_path / ".env").write_text(f"{variable}={bad}\n")
    dotenv = re.escape(f"{tmp_path / '.env'} ({variable})")
    with pytest.raises(UserInputError, match=f"{wording} from {dotenv}"):
        getattr(load_settings(tmp_path, environ={}), key)


def test_calibrate_refuses_labels_that_cannot_measure_anything(
    labelled_store: MemoryStore, labelled: list[str]
) -> None:
    """A line whose "gold" key is misspelt was counted as an unrelated query, and a gold id
    the store does not hold as a miss: either would skew what --write saves."""
    store, lines = labelled_store, labelled
    with pytest.raises(UserInputError, match='line 1 has no "gold" list'):
        read_queries([json.dumps({"query": "how do we name functions", "glod": ["x"]})])
    stray = json.dumps({"query": "how do we name functions", "gold": ["0199-not-a-memory"]})
    # it said "1 gold memory ids are not in this project's store", also of --project all
    with pytest.raises(UserInputError, match=r"^1 gold memory id is not in this project: 0199-"):
        calibrate(store, read_queries([*lines, stray]))
    with pytest.raises(UserInputError, match=r"^1 gold memory id is not in any project: 0199-"):
        calibrate(store, read_queries([*lines, stray]), group_id="all")
    assert len(calibrate(store, read_queries(lines)).outcomes) == len(lines)


def test_calibrate_takes_gold_ids_as_recall_and_search_show_them(
    labelled_store: MemoryStore, labelled: list[str]
) -> None:
    """A gold id copied from `kenning recall` or `search` (its start, `01a24c7f-ab15`) was
    refused as "not in this project" (qa76 F6): it names its memory, as forget and edit
    take it, and measures the same as the whole id."""
    store = labelled_store
    whole = read_queries(labelled)
    gold = sorted({g for _, ids in whole for g in ids})
    shown = store.short_ids(gold)
    assert any(shown[g] != g for g in gold), shown  # the test asks something
    short = [(query, tuple(shown[g] for g in ids)) for query, ids in whole]
    assert calibrate(store, short).summary() == calibrate(store, whole).summary()
    with pytest.raises(UserInputError, match="not in this project"):
        calibrate(store, [(whole[0][0], (shown[gold[0]][:13] + "f",))])
    # an id's first digits, too few to name one, are said too short, as forget says (qa77 F9)
    with pytest.raises(UserInputError, match="01a2: too short to name a memory"):
        calibrate(store, [(whole[0][0], ("01a2",))])


def test_calibrate_embeds_its_queries_together(
    labelled: list[str], project: Path, minilm: Embedder
) -> None:
    """calibrate ran the model once for each query (a run costs ~7 ms of CPU besides its
    text's share: 1.2 CPU-s for 100 queries, 0.8 in batches). Its queries go to the embedder
    in one call, which batches them, and each finds what retrieve() finds for it alone; a
    store embedded with another model is still refused."""
    from kenning.backends.base import Filters
    from kenning.errors import ProvenanceMismatch

    class Counting:  # MiniLM, counting the texts of each call
        provenance = minilm.provenance

        def __init__(self) -> None:
            self.calls: list[int] = []

        def embed(self, texts: list[str]) -> Any:
            self.calls.append(len(texts))
            return minilm.embed(texts)

    queries = read_queries(labelled)
    counting = Counting()
    with open_store(cwd=project, embedder=counting, create=False) as store:  # type: ignore[arg-type]
        report = calibrate(store, queries)
        assert counting.calls == [len(queries)]
        filters = Filters(group_id=store.group_id)
        for outcome in report.outcomes:
            alone = store.retrieve(outcome.query, 1, filters)[0]
            assert outcome.top_id == alone.memory.id, outcome.query
            # a text padded in a batch can differ from itself alone in a float32's last bit
            assert outcome.top_score == pytest.approx(alone.semantic, abs=1e-6), outcome.query
        with pytest.raises(UserInputError, match="a list of queries"):  # not its characters
            store.retrieve_many(queries[0][0], 1, filters)
    with (
        open_store(cwd=project, embedder="hashing", create=False) as other,
        pytest.raises(ProvenanceMismatch, match="was embedded with"),
    ):
        calibrate(other, queries)


def test_a_calibrated_error_floor_never_makes_a_fix_harder_to_recall(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The error floor is the lower one in the seed (fixes score low against short queries).
    A project's calibration can set it above the generic floor (its error queries find their
    fix by fingerprint, at 0.9+): an ERROR-FIX entry is then held to the generic floor, not
    to a stricter one than any other note."""
    fix = (
        "ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: enable WAL mode and "
        "set busy_timeout | SOURCE: docs/solutions/db.md — two writers at once"
    )
    assert store.remember(fix, "error_fix").ok
    query = "sqlite problems"  # a generic query: not an error
    score = store.recall(query).hits[0].score
    monkeypatch.setenv("KENNING_RECALL_FLOOR", f"{score - 0.05:.3f}")
    monkeypatch.setenv("KENNING_ERROR_RECALL_FLOOR", f"{score + 0.05:.3f}")
    with open_store(cwd=store.project.root, embedder=store.embedder) as calibrated:
        result = calibrated.recall(query)
        assert not result.is_error and [h.memory.content for h in result.hits] == [fix]


def test_stats_reports_the_value_of_every_setting_it_names_a_source_for(
    project: Path, minilm: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`settings.sources` said where recall_log and stale_penalty came from, but their
    values were not reported."""
    monkeypatch.setenv("KENNING_STALE_PENALTY", "0.2")
    monkeypatch.setenv("KENNING_RECALL_LOG", "1")
    with open_store(cwd=project, embedder=minilm) as store:
        settings = store.stats()["settings"]
    assert set(settings["sources"]) <= set(settings)
    assert (settings["stale_penalty"], settings["recall_log"]) == (0.2, True)
    assert (
        settings["sources"]["stale_penalty"] == settings["sources"]["recall_log"] == "environment"
    )


def test_a_setting_written_below_the_decay_table_is_told_to_move_above_it() -> None:
    """TOML reads every key below `[decay]` as part of that table: `similarity_threshold`
    appended to a file ending with the table was ignored, and the warning's fix said to make
    it a half-life (`half_life = { similarity_threshold = … }`; qa76 F1)."""
    from kenning.config import unknown_keys

    toml = tomllib.loads(
        "[decay]\nhalf_life = { error_fix = 7 }\nsimilarity_threshold = 0.6\n"
        "recal_floor = 0.45\nerror_fix = 7\n"
    )
    moved, misspelt, half_life = unknown_keys(toml, Path("config.toml"))
    assert "move `similarity_threshold = …` above [decay]" in moved, moved
    assert "half_life =" not in moved, moved
    assert "did you mean recall_floor?" in misspelt and "above [decay]" in misspelt, misspelt
    assert "half_life = { error_fix = … }" in half_life, half_life
    (top,) = unknown_keys(tomllib.loads("half_life = { error_fix = 7 }\n"), Path("c.toml"))
    assert "a line `[decay]` above `half_life = …`" in top, top


def test_a_misspelt_setting_is_named_with_the_key_it_may_mean(
    project: Path, minilm: Embedder
) -> None:
    """`similarity_treshold = 0.9` did nothing, silently: stats warns and doctor fails."""
    from kenning.doctor import run_doctor

    with open_store(cwd=project, embedder=minilm) as store:
        assert store.remember("Releases are cut on Mondays.").ok
    config = project / ".kenning" / "config.toml"
    config.write_text("similarity_treshold = 0.9\nrecall_floor = 0.5\n[decay]\nerror_fix = 7\n")
    with open_store(cwd=project, embedder=minilm) as store:
        warnings = store.stats()["settings"]["warnings"]
    assert len(warnings) == 2, warnings
    assert (
        "similarity_treshold" in warnings[0] and "did you mean similarity_threshold" in warnings[0]
    )
    assert "decay.error_fix" in warnings[1] and "half_life = { error_fix" in warnings[1]
    out = run_cli(project, "stats")
    assert out.returncode == 0 and out.stderr.count("warning: ") == 2, out.stderr
    check = run_doctor(cwd=project).check("settings")
    assert check.status == "failed" and "similarity_treshold" in check.message
    # a .env key that sets nothing is named with them (doctor dropped it, stats said both)
    (project / ".env").write_text("KENNING_PROJECTT=acme/widgets\n")
    check = run_doctor(cwd=project).check("settings")
    assert "similarity_treshold" in check.message and "KENNING_PROJECTT" in check.message
    assert ".env" in (check.fix or ""), check.fix
    (project / ".env").unlink()
    # a setting below [decay]: the fix moves it, not "rename or remove" alone (qa77 F10)
    config.write_text("[decay]\nrecall_floor = 0.5\n")
    check = run_doctor(cwd=project).check("settings")
    assert "move `recall_floor = …` above [decay]" in check.message, check.message
    assert (check.fix or "").startswith("move, rename or remove those keys"), check.fix
    config.write_text("recall_floor = 0.5\n")
    assert run_doctor(cwd=project).check("settings").status == "ok"


def test_a_key_that_sets_nothing_is_said_by_the_commands_that_read_settings(
    project: Path, minilm: Embedder
) -> None:
    """A setting written below `[decay]` was said by stats and doctor only: recall and search
    ran with the default floor and threshold and said nothing (qa77 F10). Reading settings
    now says each such key once on stderr, in stats' words: never on stdout (--json stays
    JSON), and a hook says it on its stderr line, never in the agent's context; stats and
    doctor say it once, as before."""
    from kenning.hooks import claude_code

    with open_store(cwd=project, embedder=minilm) as store:
        assert store.remember("Session objects are cached in redis for five minutes.").ok
    config = project / ".kenning" / "config.toml"
    config.write_text("[decay]\nhalf_life = {error_fix = 7}\nrecall_floor = 0.999\n")
    with open_store(cwd=project, embedder=minilm) as store:
        (said,) = store.stats()["settings"]["warnings"]
    assert "move `recall_floor = …` above [decay]" in said, said
    for args in (
        ("recall", "how are sessions cached"),
        ("search", "how are sessions cached"),
        ("recall", "--json", "how are sessions cached"),
        ("search", "--json", "how are sessions cached"),
    ):
        out = run_cli(project, *args)
        assert out.returncode == 0, (args, out.stderr)
        assert out.stderr.splitlines() == [f"kenning: {said}"], (args, out.stderr)
        assert "recall_floor" not in out.stdout, (args, out.stdout)
        if "--json" in args:
            json.loads(out.stdout)
    stats = run_cli(project, "stats")
    assert stats.stderr.splitlines() == [f"warning: {said}"], stats.stderr
    doctor = run_cli(project, "doctor")
    assert doctor.stderr.count("recall_floor") <= 1 and "kenning: " not in doctor.stderr
    from .test_hooks import hook_here

    asked = {"prompt": "how are sessions cached in redis?", "cwd": str(project)}
    hook = hook_here("prompt-submit", json.dumps(asked).encode(), project)
    assert hook.returncode == 0 and "recall_floor" not in hook.stdout, hook.stdout
    (line,) = hook.stderr.splitlines()
    assert said in line, line
    context = claude_code.context_for("prompt-submit", asked)
    assert context and "recall_floor" not in context, context
    # two such keys: the hook's line says each (the one edited last was the one counted)
    config.write_text("[decay]\nhalf_life_days = 30\nrecall_floor = 0.999\n")
    hook = hook_here("prompt-submit", json.dumps(asked).encode(), project)
    (line,) = hook.stderr.splitlines()
    assert "decay.half_life_days" in line and "decay.recall_floor" in line, line
    config.write_text("recall_floor = 0.999\n[decay]\nhalf_life = {error_fix = 7}\n")
    moved = run_cli(project, "recall", "how are sessions cached").stderr
    assert "is no setting" not in moved and "at least 1.00" in moved, moved  # the floor read


def test_calibrate_refuses_a_query_given_twice() -> None:
    """Five copies of one labelled query and one unrelated query passed --write's minimum of
    five per side and wrote the project's floors from two queries."""
    labelled = json.dumps({"query": "what case do we use for function names", "gold": ["a"]})
    unrelated = json.dumps({"query": "sourdough starter feeding schedule", "gold": []})
    again = json.dumps({"query": "  Sourdough starter  feeding schedule", "gold": []})
    with pytest.raises(UserInputError, match="line 3 repeats the query of line 2"):
        read_queries([labelled, unrelated, again])
    with pytest.raises(UserInputError, match="line 4 repeats the query of line 1"):
        read_queries([labelled, unrelated, "", labelled])
    assert len(read_queries([labelled, unrelated])) == 2


def test_a_boolean_similarity_threshold_is_refused(tmp_path: Path) -> None:
    """`similarity_threshold = true` in config.toml was read as 1.0 (search then found nothing,
    with no word of why), where every floor refuses a boolean."""
    from kenning.config import load_settings

    (tmp_path / ".kenning").mkdir()
    toml = tmp_path / ".kenning" / "config.toml"
    for bad in ("true", "false"):
        toml.write_text(f"similarity_threshold = {bad}\n")
        with pytest.raises(UserInputError, match=r"similarity threshold from .*config.toml"):
            load_settings(tmp_path, environ={}).threshold()
    toml.write_text("similarity_threshold = 1\n")
    assert load_settings(tmp_path, environ={}).threshold() == 1.0


@each_case("bad", ['"error_fix:7"', "7", "[7]"], own_folder="tmp_path")
def test_a_decay_that_is_no_table_is_refused(tmp_path: Path, bad: str) -> None:
    """`decay = "error_fix:7"` at the top of config.toml set no half-life and said nothing
    (`decay` is a known key, so no warning either): the half-lives stayed the defaults."""
    from kenning.config import load_settings

    (tmp_path / ".kenning").mkdir()
    toml = tmp_path / ".kenning" / "config.toml"
    toml.write_text(f"decay = {bad}\n")
    with pytest.raises(UserInputError, match=r"decay in .*config.toml is .*\[decay\]"):
        load_settings(tmp_path, environ={}).half_lives()
    toml.write_text('[decay]\nhalf_life = "error_fix:7"\n')
    assert load_settings(tmp_path, environ={}).half_lives() == {"error_fix": 7.0}


def test_calibrate_refuses_a_query_recall_would_refuse() -> None:
    """A raw diff or a whole log as a query was measured by calibrate (and could set the
    floors) though recall and search refuse it: such a query is never asked."""
    gold = json.dumps({"query": "what case do we use for function names", "gold": ["a"]})
    diff = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"
    for query, said in ((diff, "diff"), ("x " * 15_000, "over the 20000 limit")):
        with pytest.raises(UserInputError, match=f"line 2: .*{said}"):
            read_queries([gold, json.dumps({"query": query, "gold": []})])


def test_a_dotenv_key_that_sets_nothing_is_named(project: Path, minilm: Embedder) -> None:
    """`KENNING_RECAL_FLOOR=0.3` in the project's .env did nothing, silently, and so did
    `KENNING_EMBEDDER=hashing` (read from the process environment only): doctor said every
    setting was fine. Stats warns, naming the key it may mean; doctor fails."""
    from kenning.doctor import run_doctor

    with open_store(cwd=project, embedder=minilm) as store:
        assert store.remember("Releases are cut on Mondays.").ok
    dotenv = project / ".env"
    dotenv.write_text(
        "NODE_ENV=production\nKENNING_RECAL_FLOOR=0.3\nKENNING_EMBEDDER=hashing\n"
        "KENNING_STALE_PENALTY=0.1\n"
    )
    with open_store(cwd=project, embedder=minilm) as store:
        warnings = store.stats()["settings"]["warnings"]
    assert len(warnings) == 2, warnings
    assert (
        "KENNING_RECAL_FLOOR" in warnings[0] and "did you mean KENNING_RECALL_FLOOR" in warnings[0]
    )
    assert "KENNING_EMBEDDER" in warnings[1] and "process environment only" in warnings[1]
    check = run_doctor(cwd=project).check("settings")
    assert check.status == "failed" and "KENNING_RECAL_FLOOR" in check.message, check
    dotenv.write_text("NODE_ENV=production\nKENNING_STALE_PENALTY=0.1\n")
    assert run_doctor(cwd=project).check("settings").status == "ok"


def test_a_dotenv_that_cannot_be_read_is_said_once_and_doctor_warns(
    project: Path, minilm: Embedder
) -> None:
    """A folder named .env (what `docker run -v` makes for a file missing on the host) was
    said on stderr by every command, but `kenning doctor` called the settings fine: the
    KENNING_* settings the user put there silently did not apply. Doctor warns (every
    command still works), naming the file and what to do; a command says it once."""
    from kenning.doctor import run_doctor

    with open_store(cwd=project, embedder=minilm) as store:
        assert store.remember("Releases are cut on Mondays.").ok
    dotenv = project / ".env"
    dotenv.mkdir()
    run = run_cli(project, "stats")
    assert run.returncode == 0, run.stderr
    said = (
        f"kenning: {dotenv} is a folder, not a settings file, so the KENNING_* settings it may "
        "hold are not read; fix it (or remove it) for them to apply"
    )
    assert run.stderr.count(said) == 1, run.stderr
    check = run_doctor(cwd=project).check("settings")
    assert check.status == "warning", check
    assert f"{dotenv} is a folder" in check.message and str(dotenv) in (check.fix or ""), check
    dotenv.rmdir()
    assert run_doctor(cwd=project).check("settings").status == "ok"


def test_a_dotenv_not_in_utf8_is_read_where_it_can_be_and_the_rest_is_named(
    project: Path, minilm: Embedder
) -> None:
    """`.env` was decoded with undecodable bytes replaced, silently: `KENNING_STORE=café.db`
    saved in Latin-1 opened a store named "caf\ufffd.db", and a file Windows PowerShell
    wrote (UTF-16) set nothing at all. Lines that decode are still read (the file is other
    tools' too); a KENNING_* line that does not is ignored and named, on stderr and by
    doctor; a UTF-16 file (its byte order mark) is read as such."""
    from kenning.doctor import run_doctor

    with open_store(cwd=project, embedder=minilm) as store:
        assert store.remember("Releases are cut on Mondays.").ok
    dotenv = project / ".env"
    dotenv.write_bytes(b"GREETING=caf\xe9\nKENNING_PROJECT=acme/team\nKENNING_STORE=caf\xe9.db\n")
    run = run_cli(project, "stats", "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["group_id"] == "acme/team"  # line 2 decodes, and is read
    assert data["intel_path"] == str(project / ".kenning" / "memory.db")
    said = f"{dotenv} line 3 sets KENNING_STORE with bytes that are not UTF-8"
    assert run.stderr.count(said) == 1, run.stderr
    assert not [p for p in project.iterdir() if p.name.startswith("caf")]
    check = run_doctor(cwd=project).check("settings")
    assert check.status == "failed" and said in check.message, check
    dotenv.write_bytes("KENNING_PROJECT=acme/team\r\n".encode("utf-16"))
    run = run_cli(project, "stats", "--json")
    assert json.loads(run.stdout)["group_id"] == "acme/team", run.stderr
    assert run_doctor(cwd=project).check("settings").status == "ok"


def test_a_nul_in_a_utf8_dotenv_is_named_by_its_line_and_utf16_without_its_mark_as_such(
    tmp_path: Path,
) -> None:
    """A NUL in a .env that is UTF-8 was said as "not UTF-8 text (UTF-16 without a byte order
    mark?) … save it as UTF-8", a fix that does nothing (qa80 F4): its line is named, and
    removing it is the fix; a file in UTF-16 without its byte order mark is still said so."""
    from kenning.config import read_dotenv

    dotenv = tmp_path / ".env"
    dotenv.write_bytes(b"KENNING_RECALL_FLOOR=0.6\r\nGREETING=hi\x00\nKENNING_PROJECT=acme/x\n")
    said = read_dotenv(dotenv).unreadable
    assert said is not None and f"{dotenv} holds a NUL character on line 2" in said, said
    assert said.endswith("remove it for them to apply") and "UTF-16" not in said, said
    dotenv.write_bytes("KENNING_PROJECT=acme/team\r\n".encode("utf-16-le"))
    said = read_dotenv(dotenv).unreadable
    assert said is not None and "UTF-16 without a byte order mark" in said, said


@each_case("end", ["\r", "\r\n"], ids=["cr", "crlf"], own_folder="tmp_path")
def test_a_dotenv_problem_names_the_line_an_editor_shows_whatever_its_line_ends(
    tmp_path: Path, end: str
) -> None:
    """The problems of a .env named lines counted by "\\n" alone: a file saved with "\\r"
    line ends (python-dotenv reads each as a line) was one line, so its unreadable
    KENNING_* lines were said as line 1, or not at all when line 1 was another tool's."""
    from kenning.config import read_dotenv

    dotenv = tmp_path / ".env"
    lines = [b"GREETING=hi", b'KENNING_STORE="unclosed', b"KENNING_PROJECT=caf\xe9", b""]
    dotenv.write_bytes(end.encode().join(lines))
    read = read_dotenv(dotenv)
    assert read.values == {}
    assert [problem.split(" sets ")[0] for problem in read.unread_lines] == [
        f"{dotenv} line 2",
        f"{dotenv} line 3",
    ], read.unread_lines
    assert "in a form .env files cannot hold" in read.unread_lines[0]
    assert "bytes that are not UTF-8" in read.unread_lines[1]


def test_a_decay_variable_sets_the_types_it_names_and_keeps_the_others(
    project: Path, minilm: Embedder
) -> None:
    """Settings layer environment > .env > config.toml (README). KENNING_DECAY_HALF_LIFE=
    "error_fix:3", set for one run, threw away every half-life the lower layers set
    (config.toml's decisions at 90 days and rules at 30): they decayed at the defaults
    again. A layer now sets the types it names; the others keep the lower layer's value."""
    with open_store(cwd=project, embedder=minilm) as store:
        assert store.remember("Releases are cut on Mondays.", "decision").ok
    (project / ".kenning" / "config.toml").write_text(
        "[decay]\nhalf_life = { decision = 90, rule = 30 }\n"
    )
    (project / ".env").write_text('KENNING_DECAY_HALF_LIFE="rule:20"\n')
    stats = run_cli(project, "stats", "--json", env={"KENNING_DECAY_HALF_LIFE": "error_fix:3"})
    assert stats.returncode == 0, stats.stderr
    settings = json.loads(stats.stdout)["settings"]
    assert settings["half_life_overrides"] == {"decision": 90.0, "rule": 20.0, "error_fix": 3.0}
    assert settings["sources"]["half_life_overrides"] == "environment"  # the highest that set one


def test_a_blank_variable_is_an_unset_one(tmp_path: Path) -> None:
    """`KENNING_RECALL_LOG=` (blank) turned off config.toml's `recall_log = true` without a
    word, and a blank KENNING_RECALL_FLOOR failed every command, where a blank KENNING_STORE
    or KENNING_PROJECT is unset: the next layer (.env, config.toml) applies."""
    from kenning.config import load_settings

    (tmp_path / ".kenning").mkdir()
    (tmp_path / ".kenning" / "config.toml").write_text(
        "recall_log = true\nrecall_floor = 0.3\nsimilarity_threshold = 0.6\n"
    )
    (tmp_path / ".env").write_text("KENNING_SIMILARITY_THRESHOLD=\n")
    blank = {"KENNING_RECALL_LOG": "", "KENNING_RECALL_FLOOR": " "}
    settings = load_settings(tmp_path, environ=blank)
    assert settings.recall_log is True and settings.recall_floor == 0.3
    assert settings.threshold() == 0.6
    assert settings.sources["recall_floor"].endswith("config.toml")
    off = load_settings(tmp_path, environ={"KENNING_RECALL_LOG": "0"})
    assert off.recall_log is False and off.sources["recall_log"] == "environment"


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        ("KENNING_ANN_MIN_ROWS", "lots", "every search of an embedded store fails"),
        ("KENNING_HOOK_TIMEOUT", "five", "using 5"),
        ("KENNING_LOG_LEVEL", "verbose", "logs at WARNING"),
        ("KENNING_CACHE_DIR", "cache", "not an absolute path"),
    ],
)
def test_doctor_names_a_process_variable_that_is_set_aside(
    project: Path,
    minilm: Embedder,
    monkeypatch: pytest.MonkeyPatch,
    variable: str,
    value: str,
    said: str,
) -> None:
    """KENNING_ANN_MIN_ROWS=lots failed every recall and search while doctor said every
    check was ok; a hook timeout, log level or cache folder that kenning sets aside for the
    default was not named by doctor either."""
    from kenning.doctor import run_doctor

    with open_store(cwd=project, embedder=minilm) as store:
        assert store.remember("Releases are cut on Mondays.").ok
    assert run_doctor(cwd=project).check("settings").status == "ok"
    monkeypatch.setenv(variable, value)
    check = run_doctor(cwd=project).check("settings")
    assert check.status == "failed" and variable in check.message and said in check.message, check


def test_a_config_toml_saved_with_a_byte_order_mark_is_read(store: MemoryStore) -> None:
    """Notepad and PowerShell save UTF-8 with a byte order mark: every command then failed
    with "cannot read config.toml: Invalid statement (at line 1, column 1)", where nothing
    can be seen; and calibrate --write could not update the file."""
    from kenning.config import load_settings, update_config_toml

    folder = store.project.store_path.parent
    config = folder / "config.toml"
    config.write_bytes("\ufeff# mine\r\nrecall_floor = 0.45\r\n".encode())
    assert load_settings(store.project.root, folder, environ={}).recall_floor == 0.45
    update_config_toml(folder, {"similarity_threshold": 0.6})
    saved = config.read_text(encoding="utf-8")
    assert not saved.startswith("\ufeff") and "# mine" in saved
    assert tomllib.loads(saved) == {"recall_floor": 0.45, "similarity_threshold": 0.6}


def test_a_config_toml_that_is_no_file_is_said_not_ignored(project: Path) -> None:
    """A `.kenning/config.toml` that is a folder (what `docker run -v ./config.toml:…` makes
    when the file is missing on the host) or a symlink to nothing was taken for no settings
    file: the project's threshold and floors silently fell back to the defaults, and doctor
    said "no config.toml: every setting has its default". Said, as an unreadable file is."""
    from kenning.config import load_settings
    from kenning.doctor import run_doctor

    folder = project / ".kenning"
    folder.mkdir()
    config = folder / "config.toml"
    config.mkdir()
    with pytest.raises(UserInputError, match=r"config\.toml is a folder, not a settings file"):
        load_settings(project, folder, environ={})
    check = run_doctor(cwd=project).check("settings")
    assert check.status == "failed" and "is a folder" in check.message, check
    config.rmdir()
    config.symlink_to(project / "shared-settings.toml")
    with pytest.raises(UserInputError, match=r"shared-settings\.toml, which is no file"):
        load_settings(project, folder, environ={})
    assert run_doctor(cwd=project).check("settings").status == "failed"


def test_calibrate_reads_a_file_saved_with_a_byte_order_mark() -> None:
    """`kenning import` reads an export saved by Notepad or PowerShell (a UTF-8 byte order
    mark first); calibrate refused the same kind of file: 'line 1 is not JSON'."""
    first = json.dumps({"query": "what case do we use for function names", "gold": ["a"]})
    second = json.dumps({"query": "sourdough starter feeding schedule", "gold": []})
    assert read_queries(["\ufeff" + first, second]) == [
        ("what case do we use for function names", ("a",)),
        ("sourdough starter feeding schedule", ()),
    ]


@pytest.mark.skipif(not hasattr(os, "fchmod"), reason="POSIX file modes")
def test_calibrate_write_keeps_the_settings_file_readable(tmp_path: Path) -> None:
    """calibrate --write replaced a 0644 config.toml by a 0600 one (its temporary file's
    mode), and made a new one 0600: another user reading the same store's settings then
    failed every command with "Permission denied"."""
    from kenning.config import update_config_toml

    config = tmp_path / "config.toml"
    config.write_text("stale_penalty = 0.1\n")
    config.chmod(0o644)
    update_config_toml(tmp_path, {"recall_floor": 0.45})
    assert config.stat().st_mode & 0o777 == 0o644
    config.chmod(0o640)
    update_config_toml(tmp_path, {"recall_floor": 0.4})
    assert config.stat().st_mode & 0o777 == 0o640
    fresh = tmp_path / "new"
    umask = os.umask(0o022)
    try:
        update_config_toml(fresh, {"recall_floor": 0.45})
    finally:
        os.umask(umask)
    assert (fresh / "config.toml").stat().st_mode & 0o777 == 0o644


def test_calibrate_write_to_a_folder_it_may_not_write_says_so_in_one_line(
    tmp_path: Path,
) -> None:
    """calibrate --write into a read-only .kenning said "error: …/.config.toml.tc2_9xap.tmp:
    Read-only file system": a temporary file's name, and no fix. It names the settings
    file and how to make its folder writable; nothing is written. (Run without the rights
    that let root write anything: as root a read-only folder is read-only to no one.)"""
    from kenning.config import update_config_toml
    from kenning.errors import UserInputError

    from .as_a_user import as_a_user

    folder = tmp_path / "store"
    folder.mkdir()
    (folder / "config.toml").write_text("stale_penalty = 0.1\n")
    (folder / "config.toml").chmod(0o644)
    folder.chmod(0o555)
    try:
        with as_a_user(), pytest.raises(UserInputError) as refused:
            update_config_toml(folder, {"recall_floor": 0.45})
    finally:
        folder.chmod(0o755)
    said = str(refused.value)
    assert said.startswith(f"cannot write {folder / 'config.toml'}: "), said
    assert f"make {folder} writable" in said and ".tmp" not in said, said
    assert (folder / "config.toml").read_text() == "stale_penalty = 0.1\n"
    assert [p.name for p in folder.iterdir()] == ["config.toml"]


def test_a_store_kept_open_reads_settings_written_since(store: MemoryStore) -> None:
    """README: "Search and recall read the written values at once". A store kept open — the
    MCP server's for a whole agent session, the web page's — went on with the floors and
    threshold it read when it opened, after `calibrate --write` changed them."""
    assert store.remember(SNAKE, "naming").ok
    assert store.recall("what case for function names").floor == protocol.RECALL_FLOOR
    config = store.project.store_path.parent / "config.toml"
    config.write_text("recall_floor = 0.3\nsimilarity_threshold = 0.62\n")
    assert store.recall("what case for function names").floor == 0.3
    assert store.search("what case for function names").threshold == 0.62
    (store.project.root / ".env").write_text("KENNING_SIMILARITY_THRESHOLD=0.44\n")
    assert store.search("what case for function names").threshold == 0.44
    config.write_text("recall_floor = 7\n")  # broken since: said, as the next command would
    with pytest.raises(UserInputError, match=r"recall floor from .*config\.toml"):
        store.recall("what case for function names")
    config.unlink()
    assert store.recall("what case for function names").floor == protocol.RECALL_FLOOR


def test_a_calibrated_floor_stays_inside_a_narrow_gap() -> None:
    """The midpoint was rounded to 3 decimals: with correct hits at 0.7006 and an unrelated
    query at 0.7003, --write saved 0.7, under the unrelated score it was to keep out."""
    from kenning.calibration import QueryOutcome, separation

    for low, noise in ((0.7006, 0.7003), (0.5004, 0.5001), (0.81, 0.4)):
        outcomes = [QueryOutcome(f"q{i}", ("a",), "a", low, True) for i in range(5)]
        outcomes += [QueryOutcome(f"u{i}", (), "b", noise, None) for i in range(5)]
        floor = separation(outcomes)["suggested_floor"]
        assert noise < floor <= low, (low, noise, floor)
    assert separation(outcomes)["suggested_floor"] == 0.605  # a wide gap: still rounded


@pytest.mark.skipif(not hasattr(os, "fchmod"), reason="POSIX file modes")
def test_calibrate_write_leaves_a_read_only_settings_file_as_it_is(tmp_path: Path) -> None:
    """A config.toml the user made read-only (chmod 444: "leave it as it is", as `kenning
    install` honours for the agents' settings files) was replaced all the same: the rename
    over it needs only the folder's permission. It is refused, named with the fix, and the
    file keeps its text."""
    from kenning.config import update_config_toml
    from kenning.errors import UserInputError

    config = tmp_path / "config.toml"
    config.write_text("recall_floor = 0.5\n")
    config.chmod(0o444)
    with pytest.raises(UserInputError, match=r"read-only .*chmod u\+w"):
        update_config_toml(tmp_path, {"recall_floor": 0.45})
    assert config.read_text() == "recall_floor = 0.5\n"
    assert config.stat().st_mode & 0o777 == 0o444


@pytest.mark.skipif(not hasattr(os, "fchmod"), reason="POSIX file modes")
def test_the_chmod_that_makes_a_read_only_settings_file_writable_works_as_printed(
    tmp_path: Path,
) -> None:
    """calibrate --write refuses a read-only config.toml and prints the `chmod u+w PATH`
    that lifts it; in a project kept in a folder with a space (~/My Projects/app) the path
    was printed as it is, and run as printed chmod looked for '…/My' and 'Projects/…'. It
    is quoted for the shell now; run as printed, the next write saves the values."""
    import re
    import subprocess

    from kenning.config import update_config_toml
    from kenning.errors import UserInputError

    folder = tmp_path / "My Projects" / "app" / ".kenning"
    folder.mkdir(parents=True)
    config = folder / "config.toml"
    config.write_text("recall_floor = 0.5\n")
    config.chmod(0o444)
    with pytest.raises(UserInputError) as refused:
        update_config_toml(folder, {"recall_floor": 0.45})
    command = re.search(r"\((chmod u\+w .*?)\) to save", str(refused.value))
    assert command, str(refused.value)
    done = subprocess.run(command.group(1), shell=True, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    update_config_toml(folder, {"recall_floor": 0.45})
    assert "recall_floor = 0.45" in config.read_text()


def test_a_store_or_project_refused_from_dotenv_names_which_dotenv_holds_it(
    project: Path,
) -> None:
    """KENNING_PROJECT=all or KENNING_STORE=~nobody/x in the project's .env was refused as
    "KENNING_PROJECT (.env)": run from a subfolder (or with a .env there too) that reads as
    the .env beside the user, not the checkout's. Every other setting's error names the
    file (its path) and the variable; these do too now."""
    from .cli_runner import run_cli

    sub = project / "src"
    sub.mkdir()
    for line in ("KENNING_PROJECT=all", "KENNING_STORE=~no-such-user-here/notes"):
        (project / ".env").write_text(line + "\n")
        done = run_cli(sub, "search", "timestamps", env={"KENNING_EMBEDDER": "hashing"})
        variable = line.split("=")[0]
        assert done.returncode != 0
        assert f"{variable} ({project / '.env'})" in done.stderr, done.stderr


def test_the_projects_settings_left_aside_by_a_store_elsewhere_are_named(project: Path) -> None:
    """A project's committed .kenning/config.toml (similarity_threshold = 0.9) and a
    KENNING_STORE=data in .env: the store's own folder's config.toml is read (README), and
    the project's was left aside without a word; doctor even said "no data/config.toml:
    every setting has its default". stats and doctor (a warning, still healthy) name it."""
    import json

    from .cli_runner import run_cli

    env = {"KENNING_EMBEDDER": "hashing"}
    (project / ".kenning").mkdir()
    settings = project / ".kenning" / "config.toml"
    settings.write_text("similarity_threshold = 0.9\n")
    (project / ".env").write_text("KENNING_STORE=data\n")
    assert run_cli(project, "remember", "All timestamps are stored in UTC", env=env).returncode == 0
    stats = run_cli(project, "stats", env=env)
    assert f"{settings} is not read" in stats.stdout + stats.stderr, stats
    doctor = run_cli(project, "doctor", "--json", env=env)
    assert doctor.returncode == 0, doctor.stdout
    check = next(c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "settings")
    assert check["status"] == "warning" and f"{settings} is not read" in check["message"]
    assert str(project / "data" / "config.toml") in check["fix"]
    # the project's own store reads it: nothing said
    (project / ".env").unlink()
    doctor = run_cli(project, "doctor", "--json", env=env)
    check = next(c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "settings")
    assert check["status"] == "ok", check


def test_every_refused_setting_is_named_at_once(tmp_path: Path) -> None:
    """A config.toml with three mistakes took three runs of `kenning doctor` (or of any
    command) to find: each named the first value it refused. Every refused value is named
    at once, with the unknown keys beside them."""
    folder = tmp_path / ".kenning"
    folder.mkdir()
    (folder / "config.toml").write_text(
        'similarity_treshold = 0.6\nrecall_floor = "high"\nstale_penalty = 2\n'
        '[decay]\nhalf_life = "error_fix:-3"\n'
    )
    with pytest.raises(UserInputError) as refused:
        load_settings(None, folder, environ={}).check()
    said = str(refused.value)
    for named in ("recall floor", "stale penalty", "decay half-life", "similarity_treshold"):
        assert named in said, said


def test_calibrate_says_whether_unrelated_queries_were_missing_or_found_nothing() -> None:
    """With no unrelated query at all, `calibrate --write` said "no unrelated query …
    found any memory", as if some had been run and missed."""
    hits = [QueryOutcome(f"q{i}", ("m1",), "m1", 0.8, True) for i in range(5)]
    assert "no unrelated query (one with an empty" in (why_not_separable(hits) or "")
    quiet = [QueryOutcome("pizza", (), None, None, None)]
    said = why_not_separable([*hits, *quiet]) or ""
    assert "none of the 1 unrelated query" in said and "found any memory" in said, said


def test_a_blank_value_in_config_toml_is_refused_for_every_key(tmp_path: Path) -> None:
    """`recall_log = ""` in config.toml read as off, where a blank value of every other key
    is refused naming it (a blank variable is an unset one: that stays)."""
    (tmp_path / ".kenning").mkdir()
    for key in ("recall_log", "stale_penalty", "recall_floor"):
        (tmp_path / ".kenning" / "config.toml").write_text(f'{key} = ""\n')
        with pytest.raises(UserInputError, match="''"):
            getattr(load_settings(tmp_path, environ={}), key)
    (tmp_path / ".kenning" / "config.toml").write_text("recall_log = true\n")
    assert load_settings(tmp_path, environ={"KENNING_RECALL_LOG": ""}).recall_log is True


def test_a_setting_that_cannot_be_read_stops_what_reads_settings_not_the_backup(
    project: Path, minilm: Embedder
) -> None:
    """A committed config.toml's typo (`similarity_threshold = 7`) made every command fail
    at open: `kenning export`, the backup, and `remember` as well, which read no setting."""
    with open_store(cwd=project, embedder=minilm) as store:
        assert store.remember("Releases are cut on Mondays.", "decision").ok
    (project / ".kenning" / "config.toml").write_text("similarity_threshold = 7\n")
    exported = run_cli(project, "export")
    assert exported.returncode == 0 and "Mondays" in exported.stdout, exported.stderr
    stored = run_cli(project, "remember", "--type", "rule", "Tags are signed with the CI key.")
    assert stored.returncode == 0, stored.stderr
    searched = run_cli(project, "search", "release day")
    assert searched.returncode == 1 and "similarity threshold from" in searched.stderr
    # search's threshold is search's: a recall, held to floors of its own, goes on
    recalled = run_cli(project, "recall", "when are releases cut")
    assert recalled.returncode == 0 and "Mondays" in recalled.stdout, recalled.stderr
    doctor = run_cli(project, "doctor")
    assert doctor.returncode != 0 and "similarity threshold from" in doctor.stdout, doctor.stdout


@pytest.mark.parametrize(
    ("setting", "wording", "search_reads_it"),
    [
        ("recall_floor = 1.5", "recall floor from", False),
        ("error_recall_floor = 1.5", "error recall floor from", False),
        ('recall_log = "maybe"', "recall log from", False),
        ("stale_penalty = 2", "stale penalty from", True),
    ],
)
def test_a_setting_that_cannot_be_read_stops_the_reads_that_use_it(
    store: MemoryStore, setting: str, wording: str, search_reads_it: bool
) -> None:
    """A recall floor or the recall log's switch that could not be read failed every search
    too, which reads neither: each value is said by what reads it (a recall reads the
    floors, the log's switch and the stale penalty; a search the stale penalty, its
    threshold and the half-lives), each naming every value refused at once."""
    assert store.remember("Releases are cut on Mondays.", "decision").ok
    (store.project.root / ".kenning" / "config.toml").write_text(setting + "\n")
    with pytest.raises(UserInputError, match=wording):
        store.recall("when are releases cut")
    if search_reads_it:
        with pytest.raises(UserInputError, match=wording):
            store.search("release day")
    else:
        assert store.search("release day", threshold=0.0).results
    with pytest.raises(UserInputError, match=wording):
        store.stats()  # (stats shows every setting)
    # and with another value refused beside it, a read names both
    with open(store.project.root / ".kenning" / "config.toml", "a") as toml:
        toml.write("similarity_threshold = 7\n")
    with pytest.raises(UserInputError, match=wording) as refused:
        store.search("release day")
    assert "similarity threshold from" in str(refused.value)
