# ruff: noqa: F811  (pytest fixtures are imported and then named as parameters)
"""A (query, memory) score does not depend on unrelated memories (issue 12, "Stable scores").

The protocol floors (0.5 recall, 0.40 errors) are absolute, so the hybrid score of a fixed
pair must not drift as a store grows: after 500 unrelated memories are added, every score
of a query's top 10 moves by at most :data:`MAX_DRIFT`. Real MiniLM, every backend; the
unrelated memories are sentences of Python's own documentation (``pydoc_data``, in the
standard library): technical English that shares the notes' common words, not their topics.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from kenning import protocol
from kenning.backends.base import Backend
from kenning.config import load_settings
from kenning.embedders.base import Embedder
from kenning.project import resolve_project
from kenning.store import MemoryStore, NewMemory
from tests.backends import (  # noqa: F401  (fixtures used by name)
    BACKEND_KINDS,
    backend,
    backend_location,
    pg_databases,
    pg_server,
    pg_url,
)
from tests.conftest import shared_between_workers

MAX_DRIFT = 0.02
#: How many unrelated memories are added: a store of 5 notes grows a hundredfold. Both rules
#: this test guards still fail with 500 as with 1,000 (a one-word query moved 0.076 without
#: LEXICAL_MIN_ROWS either way, and 0.063 by the old ``bm25 / (best + 5)``, 0.074 with
#: 1,000), and embedding them is half the CPU (~4 CPU-s, not 8).
UNRELATED = 500

NOTES = [
    "nginx returns 502 Bad Gateway when gunicorn is not listening on /run/app.sock; "
    "restart the app service with systemctl restart app.",
    "psycopg OperationalError: too many connections — the pool size in settings.DB_POOL "
    "must stay below max_connections divided by the number of workers.",
    "Celery workers pick tasks from the default queue; long exports go to the slow queue "
    "so that emails are not delayed.",
    "The search page uses OpenSearch; reindex with manage.py reindex --alias products "
    "after changing the mapping.",
    "Webhooks from Stripe are verified with the signing secret STRIPE_WEBHOOK_SECRET "
    "before the event is processed.",
    "Deploys to staging run from the deploy-staging GitHub Actions workflow; production "
    "needs a manual approval in the environments tab.",
    "Alembic migrations run automatically on deploy; never edit a migration that was "
    "already applied, add a new revision instead.",
    "The React frontend reads the API base URL from VITE_API_URL at build time, so "
    "changing it needs a rebuild, not a restart.",
    "Redis is only a cache here: flushing it is safe, sessions live in PostgreSQL.",
    "The nightly backup job dumps PostgreSQL with pg_dump to the backups bucket and keeps "
    "fourteen days.",
    "pytest fixtures that need the database use the db_session fixture, which rolls back "
    "after each test.",
    "Feature flags live in LaunchDarkly; the flag new-billing gates the Stripe v2 "
    "integration.",
    "Time zones: store UTC in the database and convert in the frontend with date-fns-tz.",
    "Sentry DSN comes from SENTRY_DSN; errors in Celery tasks are reported with the task "
    "name as a tag.",
    "Rate limiting is done by nginx limit_req, 10 requests per second per IP on "
    "/api/login.",
    "Docker images are built with BuildKit cache mounts; a cold build takes about six "
    "minutes.",
]  # fmt: skip
#: Each finds one of the first five notes (the small store).
QUERIES = [
    "502 Bad Gateway from nginx after deploy",
    "psycopg OperationalError too many connections",
    "how do I reindex OpenSearch products after a mapping change",
    "where do the Stripe webhooks get verified",
    "Celery exports are delaying emails",
    "OpenSearch",  # one rare word: in 5 notes its idf is small and grew with every note
]
#: A query of common words only: it must not be lifted by the words it shares.
COMMON_QUERY = "what is the way to do this in the"


#: The longest unrelated sentence, in characters. Embedding them is most of this module's
#: CPU, in proportion to their words: 1,000 sentences of 40-300 characters (116 on average)
#: took 11 CPU-s, of 40-120 (82) 8; the 500 of 40-120 3.4, of 40-90 (67) 2.7. The shorter
#: ones hold the common words as often (a query of common words is lifted by 0.007 at
#: 40-90, 0.010 at 40-120; at 40-80 by 0.018, too near the bound), and the rules this test
#: guards fail alike without them: a one-word query moved 0.076 without LEXICAL_MIN_ROWS
#: (at 40-90 as at 40-120) and 0.074 by the old ``bm25 / (best + 5)`` (a bonus of
#: ``lexical / (best + 5)``, no strength, moved it 0.063 at 40-90 as at 40-120), against
#: 0.003 at most with both.
LONGEST_SENTENCE = 90


def unrelated_sentences(n: int) -> list[str]:
    """``n`` distinct sentences of the Python documentation shipped with the interpreter."""
    from pydoc_data.topics import topics

    text = " ".join(topics[key] for key in sorted(topics))
    sentences = (re.sub(r"\s+", " ", s).strip() for s in re.split(r"(?<=[.!?])\s+", text))
    chosen = list(dict.fromkeys(s for s in sentences if 40 <= len(s) <= LONGEST_SENTENCE))[:n]
    assert len(chosen) == n
    return chosen


@pytest.fixture(scope="module")
def unrelated(
    minilm: Embedder, tmp_path_factory: pytest.TempPathFactory
) -> tuple[list[str], np.ndarray]:
    """The unrelated memories and their vectors (embedded once for every backend and
    every worker: ~3 CPU-s, charged to the first test that asks, which is why
    ``sqlite-5-notes`` costs 3-4 times its twins)."""
    texts = unrelated_sentences(UNRELATED)
    vectors = shared_between_workers(
        tmp_path_factory, "stable-scores-unrelated", lambda: minilm.embed(texts)
    )
    assert vectors.shape[0] == UNRELATED
    return texts, vectors


def scores(store: MemoryStore, query: str) -> dict[str, float]:
    """The hybrid score of each memory of the query's top 10 (no decay, no threshold)."""
    response = store.search(
        query, memory_type="context", threshold=0.0, decay=False, limit=10, use_cascading=False
    )
    return {r.memory.id: r.semantic for r in response.results}


#: (notes, backend kind). The store of 5 notes, where a rare word's idf moves most as the
#: store grows, on every backend; the store of 16 on SQLite alone: a backend's hybrid scores
#: are SQLite's for the same store, small or large (test_conformance:
#: test_store_search_decay_and_cascading_match_sqlite, test_lexical_scores_are_fts5_bm25), so
#: its drift is SQLite's, and adding 1,000 memories to a PostgreSQL or Qdrant store once more
#: cost ~3-4 CPU-s each.
CASES = [pytest.param(5, kind, id=f"{kind}-5-notes") for kind in BACKEND_KINDS] + [
    pytest.param(len(NOTES), "sqlite", id="sqlite-16-notes")
]


@pytest.mark.slow
@pytest.mark.parametrize(("notes", "backend_location"), CASES, indirect=["backend_location"])
def test_scores_do_not_drift_when_unrelated_memories_are_added(
    notes: int,
    backend: Backend,
    project: Path,
    minilm: Embedder,
    unrelated: tuple[list[str], np.ndarray],
) -> None:
    resolved = resolve_project(project)
    store = MemoryStore(backend, resolved, load_settings(resolved.root), minilm)
    stored = store.remember_many(
        [NewMemory(n, "context") for n in NOTES[:notes]], near_duplicates=False
    )
    assert all(r.status == "stored" for r in stored)
    before = {q: scores(store, q) for q in (*QUERIES, COMMON_QUERY)}
    assert max(before[COMMON_QUERY].values()) < protocol.ERROR_RECALL_FLOOR
    # the pairs measured get a real lexical bonus, so a drifting bonus would show
    for query in QUERIES:
        hybrid = {c.memory.id: c.semantic for c in store.retrieve(query, 10, _filters(store))}
        cosine = {
            c.memory.id: c.semantic
            for c in store.retrieve(query, 10, _filters(store), mode="dense")
        }
        best = max(hybrid, key=lambda i: hybrid[i])
        assert hybrid[best] - cosine[best] > 0.05, query

    texts, vectors = unrelated
    added = store.remember_many(
        [NewMemory(t, "context") for t in texts],
        near_duplicates=False,
        vectors=list(vectors),
        batch_size=250,
    )
    assert sum(r.status == "stored" for r in added) == UNRELATED
    assert store.count() == notes + UNRELATED

    drifts: list[tuple[float, str, float, float]] = []
    after = {q: scores(store, q) for q in before}
    for query, old in before.items():
        new = after[query]
        top = max(old, key=lambda i: old[i])
        # (a query of common words finds the new memories as well as the notes)
        assert top in new or query == COMMON_QUERY, f"{query!r}: its best memory left the top 10"
        drifts += [(abs(new[i] - s), query, s, new[i]) for i, s in old.items() if i in new]
    worst = max(drifts)
    assert worst[0] <= MAX_DRIFT, f"score of {worst[1]!r} moved {worst[2]:.3f} -> {worst[3]:.3f}"

    # a query of common words is lifted over no floor, and once the store knows its words
    # are common (in a few notes it cannot), by nothing at all (its scores of the store grown
    # are the ones read above)
    assert max(after[COMMON_QUERY].values()) < protocol.ERROR_RECALL_FLOOR
    assert common_lift(store, after[COMMON_QUERY]) < 0.02
    store.close()


def common_lift(store: MemoryStore, hybrid: dict[str, float]) -> float:
    """The most :data:`COMMON_QUERY` adds to a memory's cosine, given its ``hybrid``
    :func:`scores` in ``store``."""
    cosine = {
        c.memory.id: c.semantic
        for c in store.retrieve(COMMON_QUERY, 10, _filters(store), mode="dense")
    }
    return max(score - cosine.get(i, score) for i, score in hybrid.items())


def _filters(store: MemoryStore):  # type: ignore[no-untyped-def]
    from kenning.backends.base import Filters

    return Filters(group_id=store.project.group_id)
