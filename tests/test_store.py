"""MemoryStore on a real SQLite file with the real MiniLM model."""

from __future__ import annotations

import inspect
import io
import json
import random
import sqlite3
import string
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from kenning import MemoryStore, open_store, protocol
from kenning.backends.base import Filters
from kenning.backends.sqlite import SCHEMA_VERSION, SQLiteBackend
from kenning.embedders.base import Embedder
from kenning.embedders.hashing import HashingEmbedder
from kenning.errors import (
    KenningError,
    ProvenanceMismatch,
    StoreClosed,
    StoreCorrupted,
    StoreLocationError,
    StoreNotFound,
    UserInputError,
)
from kenning.migrate import BATCH as MIGRATE_BATCH
from kenning.model import COLLECTIONS, DEDUP_CHECK_FAILED, NEAR_DUPLICATE, REJECTED, STORED
from kenning.querybuild import error_recall_queries
from kenning.redaction import redact_secrets
from kenning.reembed import reembed
from kenning.safety import normalise_content
from kenning.store import NewMemory
from kenning.transfer import export_memories, import_memories

from . import chained_errors
from .case_table import each_case
from .cli_runner import run_cli
from .conftest import texts_redacted
from .forking import run_python

DB_LOCKED = (
    "ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: enable WAL and retry with "
    "busy_timeout | SOURCE: docs/solutions/db.md — concurrent writers"
)


def test_remember_then_exact_duplicate(store: MemoryStore) -> None:
    first = store.remember(DB_LOCKED, "error_fix")
    assert first.status == STORED and first.id
    assert (first.collection, first.type) == ("code-patterns", "error_fix")
    again = store.remember("  " + DB_LOCKED.replace(" ", "  ") + "\n", "error_fix")
    assert again.status == NEAR_DUPLICATE
    assert again.id == first.id and again.score == 1.0
    assert store.backend.count(Filters(group_id=store.group_id)) == 1


def test_near_duplicate_by_meaning(store: MemoryStore) -> None:
    a = store.remember("Always store timestamps in UTC in the database.", "rule")
    b = store.remember("Always store timestamps in UTC in the database!", "rule")
    c = store.remember("The API server listens on port 8080 in development.", "port")
    assert a.status == STORED
    assert b.status == NEAR_DUPLICATE and b.id == a.id
    assert b.score is not None and b.score > protocol.DEDUP_THRESHOLD
    assert c.status == STORED
    assert store.backend.count(Filters()) == 2


def test_dedup_is_per_project(store: MemoryStore) -> None:
    assert store.remember("Use ruff for linting", "rule").status == STORED
    other = store.remember("Use ruff for linting", "rule", group_id="someone/else")
    assert other.status == STORED
    assert store.backend.count(Filters()) == 2


# Pairs MiniLM puts above the 0.82 gate that say different things (the test checks the
# cosine, so it fails if the model ever stops putting them above the gate).
DIFFERENT_KNOWLEDGE = [
    ("Always run the migrations before deploying.", "Never run the migrations before deploying."),
    ("The rate limit is 100 requests per minute.", "The rate limit is 1000 requests per minute."),
    ("The API server listens on port 8080 in development.",
     "The API server listens on port 8081 in development."),
    ("Checks for extraneous whitespace before an operator.",
     "Checks for extraneous whitespace after an operator."),
    ("Enable WAL mode for the SQLite store.", "Disable WAL mode for the SQLite store."),
    ("A trait method was declared static but the implementation takes self.",
     "A trait method was declared self but the implementation takes static."),
]  # fmt: skip


@pytest.mark.parametrize(("first", "second"), DIFFERENT_KNOWLEDGE)
def test_one_different_word_above_the_gate_is_stored(
    store: MemoryStore,
    minilm,
    first: str,
    second: str,  # type: ignore[no-untyped-def]
) -> None:
    a, b = minilm.embed([first, second])
    assert float(np.dot(a, b)) > protocol.DEDUP_THRESHOLD  # the old rule merged them
    assert store.remember(first, "rule").status == STORED
    second_result = store.remember(second, "rule")
    assert second_result.status == STORED, second_result
    assert store.backend.count(Filters()) == 2


def test_a_note_differing_only_in_a_flags_case_is_stored(store: MemoryStore) -> None:
    """``-x`` and ``-X`` are two flags: the second note was merged into the first as "the
    same text up to case" and lost, while a sentence in another case still merges."""
    first = store.remember("run pytest with -x to stop at the first failure", "rule")
    second = store.remember("run pytest with -X to stop at the first failure", "rule")
    assert first.status == STORED and second.status == STORED, second
    assert store.backend.count(Filters()) == 2
    again = store.remember("Run pytest with -x to stop at the first failure.", "rule")
    assert again.status == NEAR_DUPLICATE and again.id == first.id


def test_merge_refreshes_the_existing_memory_and_keeps_its_fields(store: MemoryStore) -> None:
    t0 = datetime(2026, 2, 1, 9, 0, tzinfo=UTC)
    first = store.remember(
        "Always store timestamps in UTC in the database.",
        "rule",
        source="docs/time.md",
        tags=["time"],
        metadata={"owner": "db team"},
        stored_at=t0,
    )
    before = store.backend.get([first.id or ""])[0]
    assert (before.seen_count, before.last_seen_at) == (1, t0)
    later = t0 + timedelta(days=9)
    again = store.remember(
        "always store the timestamps in UTC in the database",
        "guideline",
        source="elsewhere.md",
        tags=["other"],
        metadata={"owner": "someone else"},
        stored_at=later,
    )
    assert again.status == NEAR_DUPLICATE and again.id == first.id
    assert again.reason is not None and "'the'" in again.reason
    # an older sighting counts but does not move last_seen_at back
    store.remember("Always store timestamps in UTC in the database!", "rule", stored_at=t0)
    after = store.backend.get([first.id or ""])[0]
    assert after.seen_count == 3 and after.last_seen_at == later
    assert replace(after, seen_count=1, last_seen_at=t0) == before  # nothing else changed
    assert store.backend.count(Filters()) == 1
    hit = store.search("timestamps in UTC", threshold=0.0).results[0]
    assert hit.to_dict()["memory"]["seen_count"] == 3
    assert store.recall("store timestamps in UTC").to_dict()["results"][0]["seen_count"] == 3


def test_dedup_looks_past_the_nearest_neighbour(store: MemoryStore, minilm) -> None:  # type: ignore[no-untyped-def]
    original = "Sam is grateful for Evan's support and values it greatly."
    sibling = "Sam is grateful for Evans support and values it a lot."
    new = "Sam is grateful for Evans support and values it greatly"
    o, s_, n = minilm.embed([original, sibling, new])
    assert float(np.dot(n, s_)) > float(np.dot(n, o))  # the sibling is the nearest
    first = store.remember(original, "context")
    assert store.remember(sibling, "context").status == STORED
    result = store.remember(new, "context")
    assert result.status == NEAR_DUPLICATE and result.id == first.id
    assert result.reason == "the same text up to case, whitespace and punctuation"


def test_a_batch_merges_into_its_own_new_notes(store: MemoryStore) -> None:
    results = store.remember_many(
        [
            NewMemory("Use ruff for linting."),
            NewMemory("use ruff for linting"),
            NewMemory("USE RUFF FOR LINTING!"),
            NewMemory("Use mypy for type checks."),
            # one word in another case is another word (String/string in C#): kept
            NewMemory("Use Ruff for linting."),
        ]
    )
    assert [r.status for r in results] == [STORED, NEAR_DUPLICATE, NEAR_DUPLICATE, STORED, STORED]
    assert results[1].id == results[2].id == results[0].id
    assert store.backend.get([results[0].id or ""])[0].seen_count == 3


def test_a_failed_dedup_check_writes_nothing(store: MemoryStore) -> None:
    kept = store.remember("Use ruff for linting.", "rule")
    path = store.backend.location
    with sqlite3.connect(path) as conn:  # another writer's rule: refreshing is refused
        conn.execute(
            "CREATE TRIGGER refuse BEFORE UPDATE OF seen_count ON memories "
            "BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END"
        )
    results = store.remember_many(
        [NewMemory("A brand new note."), NewMemory("use ruff for linting")]
    )
    assert [r.status for r in results] == [DEDUP_CHECK_FAILED, DEDUP_CHECK_FAILED]
    assert all("refused by a trigger" in (r.reason or "") for r in results)
    assert store.backend.count(Filters()) == 1  # the new note was not written either
    assert store.backend.get([kept.id or ""])[0].seen_count == 1


def test_a_schema_3_store_is_migrated_with_its_rows(project: Path, minilm) -> None:  # type: ignore[no-untyped-def]
    from kenning.backends.sqlite import MIGRATIONS, _statements

    path = project / ".kenning" / "memory.db"
    path.parent.mkdir()
    stored = "2026-01-15T12:30:00+00:00"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA journal_mode = WAL")
        for script in MIGRATIONS[:3]:
            for statement in _statements(script):
                conn.execute(statement)
        conn.execute(
            "INSERT INTO memories (id, content, collection, type, group_id, stored_at, "
            "content_hash, embedding) VALUES ('m1', 'old note about caching', 'discussions', "
            "'decision', 'g', ?, 'h', ?)",
            (stored, np.ones(384, dtype=np.float32).tobytes()),
        )
        conn.execute("PRAGMA user_version = 3")
    s = open_store(path, cwd=project, embedder=minilm)
    memory = s.backend.get(["m1"])[0]
    assert (memory.seen_count, memory.last_seen_at) == (1, datetime.fromisoformat(stored))
    s.backend.record_seen([("m1", datetime(2026, 2, 1, tzinfo=UTC))])
    assert s.backend.get(["m1"])[0].seen_count == 2
    # refreshing a row leaves its full-text entry alone and findable
    assert [h.memory.id for h in s.backend.lexical_search("caching", 5, Filters())] == ["m1"]
    s.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 6


@each_case(
    ("content", "mtype", "needle"),
    [
        ("", "rule", "empty"),
        ("   \n\t  ", "rule", "empty"),
        ("\u200b\u200b", "rule", "invisible"),  # zero-width spaces only
        ("\u202e\u2066\u2069 \U000e0041", "rule", "invisible"),  # bidi and tag characters
        ("\ufe0f\U000e0100\U000e0162", "rule", "invisible"),  # variation selectors only
        ("\u3164\uffa0 \u115f\u034f", "rule", "invisible"),  # Hangul fillers, CGJ
        ("x" * (protocol.MAX_CONTENT_BYTES + 1), "rule", "KiB"),
        ("bad \udcff bytes", "rule", "UTF-8"),
        ("fine text", "nonsense", "valid types are"),
    ],
)
def test_rejected_inputs_leave_store_unchanged(
    store: MemoryStore, content: str, mtype: str, needle: str
) -> None:
    # (the rows share the store: each counts its notes before and after its own refusal)
    store.remember("an existing note about caching", "decision")
    before = store.backend.count(Filters())
    result = store.remember(content, mtype)
    assert result.status == REJECTED
    assert result.reason and needle in result.reason
    assert store.backend.count(Filters()) == before


#: Texts that show nothing: zero-width spaces, a byte-order mark, a word joiner and a zero-width
#: joiner, and bidi isolates among whitespace.
INVISIBLE_ONLY = [
    "\u200b\u200b",
    "\ufeff",
    "\u2060\u200d",
    " \u200b\n\t\u2066\u2069 ",
    # noncharacters: the recall block drops U+FFFE and U+FFFF (XML has none), so such a note
    # was stored and then recalled as nothing
    "\uffff\uffff\uffff",
    "\ufffe \ufdd0",
    "\U0010ffff\U0001fffe",
]


def test_an_edit_to_invisible_characters_only_is_refused_as_a_blank_one_is(
    store: MemoryStore,
) -> None:
    """`update` takes its new text through the write path: a text that shows nothing is
    refused with the blank text's reason, and the memory keeps its text. A note with words
    keeps its invisible characters as written (blankness is judged, nothing removed)."""
    kept = store.remember(DB_LOCKED, "error_fix")
    assert kept.id
    blank = store.update(kept.id, content="  \n ")
    assert blank.status == REJECTED and blank.reason and "invisible" in blank.reason
    for content in INVISIBLE_ONLY:
        result = store.update(kept.id, content=content)
        assert (result.status, result.reason) == (REJECTED, blank.reason), content
        memory = store.get(kept.id)
        assert memory is not None and memory.content == DB_LOCKED
    worded = store.remember("Pin the\u200b terraform provider\u2060 versions", "rule")
    assert worded.status == STORED and worded.id
    memory = store.get(worded.id)
    assert memory is not None
    assert memory.content == "Pin the\u200b terraform provider\u2060 versions"


def test_a_query_of_invisible_characters_only_gets_the_blank_querys_error(
    store: MemoryStore,
) -> None:
    """recall and search refuse a query that shows nothing as they refuse a blank one, with
    the same message: zero-width spaces were searched as if they said something."""
    store.remember(DB_LOCKED, "error_fix")
    for read in (store.recall, store.search):
        with pytest.raises(UserInputError) as blank:
            read("   ")
        assert "empty" in str(blank.value)
        for query in INVISIBLE_ONLY:
            with pytest.raises(UserInputError) as invisible:
                read(query)
            assert str(invisible.value) == str(blank.value), query


def test_content_over_the_limit_is_refused_before_it_is_redacted(store: MemoryStore) -> None:
    """SPEC §2: content holds at most 64 KiB after normalisation. A note past it was redacted
    whole (~2.6 CPU-s for 1 MB of log) only to be refused; now it is refused first, with the
    same message, and a note whose private key (its redaction would leave it under the
    limit) puts it past is refused too. A redacted text is still held to the limit, and
    its refusal says the redaction grew it: it gave only the redacted size, a number the
    user never sent."""
    rng = random.Random(5)
    base64 = string.ascii_letters + string.digits + "+/"
    body = "\n".join("".join(rng.choices(base64, k=64)) for _ in range(128))
    key = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"
    prose = "The deploy key below is the staging one; rotate it monthly.\n"
    note = prose * ((protocol.MAX_CONTENT_BYTES - len(key) // 2) // len(prose)) + key
    assert len(redact_secrets(note)[0].encode()) < protocol.MAX_CONTENT_BYTES < len(note)
    log = prose * (200_000 // len(prose))  # three times the limit (1 MB: the same, 4x the CPU)
    for text in (note, log):
        with texts_redacted() as seen:
            result = store.remember(text, "rule")
        assert result.status == REJECTED, result
        assert result.reason == (
            f"content is {len(normalise_content(text).encode())} bytes, over the 64 KiB limit; "
            "store a summary instead, with the full text's file or URL as its source"
        )
        assert all(len(t) <= protocol.MAX_CONTENT_BYTES for t in seen), [len(t) for t in seen]
    # markers longer than what they replace: under the limit as given, over it redacted
    assignments = " pw=k9Xq2 pw=Lm3vR8"
    grown = (prose * (protocol.MAX_CONTENT_BYTES // len(prose)))[: -len(assignments)] + assignments
    redacted = redact_secrets(normalise_content(grown))[0]
    assert len(grown) <= protocol.MAX_CONTENT_BYTES < len(redacted.encode())
    result = store.remember(grown, "rule")
    assert result.status == REJECTED, result
    given = len(normalise_content(grown).encode())
    assert result.reason == (
        f"content is {given} bytes, but {len(redacted.encode())} with its secrets redacted "
        "(2 password_assignment: each becomes a [REDACTED:<kind>] marker), over the 64 KiB "
        "limit; store a summary instead, with the full text's file or URL as its source"
    ), result
    assert store.count() == 0


def test_unknown_type_lists_every_valid_type(store: MemoryStore) -> None:
    reason = store.remember("x y z", "bogus").reason or ""
    for types in COLLECTIONS.values():
        for t in types:
            assert t in reason


@each_case(
    ("arguments", "needle"),
    [
        ({"tags": "release"}, "not one text"),  # was stored as the tags r, e, l, a, s
        ({"tags": [1, 2]}, "a tag must be text, got int"),
        ({"tags": 5}, "tags must be a list of texts, got int"),
        ({"type": 5}, "a memory type must be text, got int"),
        ({"source": 5}, "source must be text, got int"),
        # the other fields are shown with every hit: a few megabytes in them flooded answers
        ({"source": "docs/" + "d/" * 1200 + "x.md"}, "over the 2048 limit"),
        ({"tags": [f"t{i}" for i in range(65)]}, "over the limit of 64"),
        ({"tags": ["x" * 129]}, "over the 128 limit"),
        ({"metadata": {"blob": "z" * 70_000}}, "over the 64 KiB limit"),
    ],
)
def test_arguments_of_the_wrong_kind_are_rejected_not_reshaped(
    store: MemoryStore, arguments: dict[str, object], needle: str
) -> None:
    # (the rows share the store: each counts its notes before and after its own refusal)
    before = store.count(group_id="all")
    result = store.remember("Deploys happen on Tuesdays only", **{"type": "rule", **arguments})  # type: ignore[arg-type]
    assert result.status == REJECTED
    assert result.reason and needle in result.reason
    assert store.count(group_id="all") == before
    # the batch path checks its items the same way
    (batched,) = store.remember_many([NewMemory("Deploys happen on Tuesdays only", tags="ab")])  # type: ignore[arg-type]
    assert batched.status == REJECTED and "not one text" in (batched.reason or "")
    assert store.remember("Deploys happen on Tuesdays only", "rule", tags=["release"]).ok


def test_a_query_that_is_not_text_is_a_user_error(store: MemoryStore) -> None:
    for ask in (store.recall, store.search):
        with pytest.raises(UserInputError, match="the query must be text, got int"):
            ask(42)  # type: ignore[arg-type]


def test_a_closed_store_says_so_in_kennings_own_error(project: Path, minilm: Embedder) -> None:
    s = open_store(cwd=project, embedder=minilm)
    assert s.remember("Deploys happen on Tuesdays only", "rule").ok
    s.close()
    s.close()  # closing twice is harmless
    for use in (lambda: s.recall("deploy day"), s.stats, lambda: s.remember("x y z", "rule")):
        with pytest.raises(StoreClosed, match="was closed; open it again"):
            use()
    with open_store(cwd=project, embedder=minilm) as again:  # the store itself is intact
        assert again.count() == 1


@pytest.mark.parametrize(
    ("given", "content", "expected"),
    [
        ("code", "a pattern for retries", ("code-patterns", "implementation")),
        ("project", "the monorepo has three packages", ("discussions", "context")),
        ("general", "we pair on Fridays", ("discussions", "context")),
        ("decision", "we chose postgres over mysql", ("discussions", "decision")),
        ("context", DB_LOCKED, ("code-patterns", "error_fix")),
        ("Error-Fix", "ERROR-FIX: x | FIX: y", ("code-patterns", "error_fix")),
    ],
)
def test_ruvector_types_are_mapped(
    store: MemoryStore, given: str, content: str, expected: tuple[str, str]
) -> None:
    result = store.remember(content, given)
    assert result.status == STORED
    assert (result.collection, result.type) == expected


def test_secrets_are_redacted_before_storage(store: MemoryStore) -> None:
    result = store.remember("deploy with AWS key AKIAIOSFODNN7EXAMPLE and it works", "context")
    assert result.status == STORED
    assert sum(result.redactions.values()) == 1
    (memory,) = store.backend.get([result.id or ""])
    assert "AKIAIOSFODNN7EXAMPLE" not in memory.content
    assert "[REDACTED:" in memory.content


def test_recall_follows_the_protocol(store: MemoryStore) -> None:
    store.remember(DB_LOCKED, "error_fix")
    store.remember(
        "Frontend components live in src/components and use PascalCase names.", "structure"
    )
    store.remember("We decided to deploy on Fridays only after the QA sign-off.", "decision")
    result = store.recall("database is locked when two agents write")
    assert result.floor == protocol.RECALL_FLOOR
    assert result.hits and result.hits[0].memory.content == DB_LOCKED
    # the ERROR-FIX entry is held to the error floor; anything else to the generic one
    for h in result.hits:
        floor = protocol.ERROR_RECALL_FLOOR if h.memory.type == "error_fix" else result.floor
        assert h.score >= floor
    assert len(result.hits) <= protocol.RECALL_KEEP
    assert sum(len(t) for t in result.texts) <= protocol.RECALL_CHAR_BUDGET


def test_recall_error_queries_use_the_lower_floor(store: MemoryStore) -> None:
    store.remember(DB_LOCKED, "error_fix")
    result = store.recall("sqlite3.OperationalError: database is locked")
    assert result.floor == protocol.ERROR_RECALL_FLOOR
    assert result.hits[0].memory.content == DB_LOCKED
    assert store.recall("database is locked", errors=True).floor == protocol.ERROR_RECALL_FLOOR


def test_a_recall_judges_once_whether_its_query_is_an_error(store: MemoryStore) -> None:
    """Recall judges its query (for the floor) and the lexical side judges it again on its
    own thread (for the fingerprint), which shares the cores with the query's embedding:
    the second judgement is the first one remembered."""
    from kenning.store_read import _looks_like_error

    store.remember(DB_LOCKED, "error_fix")
    before = _looks_like_error.cache_info()
    result = store.recall("the nightly job holds the database lock for an hour")
    after = _looks_like_error.cache_info()
    assert not result.error_query
    assert (after.misses - before.misses, after.hits - before.hits) == (1, 1)


PAYMENTS_NOTES = [
    "Payments API client: retry idempotent requests to the payments API up to three times "
    "with exponential backoff starting at 200 ms, and never retry a POST that has no "
    "idempotency key, because the payments API may already have charged the card. The retry "
    "budget is shared by every worker in the service so that an outage does not multiply the "
    "load on the payments API.",
    "Payments API client: every call to the payments API sets a connect timeout of 2 seconds "
    "and a read timeout of 10 seconds; a slow response is cancelled and reported to the "
    "metrics pipeline with its request id, so that on-call engineers can tell a slow payments "
    "API from a network partition between our service and the payments provider.",
    "Payments API client: the payments API rejects more than 100 requests per second per "
    "account with HTTP 429, so the client keeps a token bucket per merchant account and waits "
    "for a token before it sends a request; a 429 that still happens is logged with the "
    "Retry-After header and the request is queued rather than dropped.",
    "Payments API client: each payment request carries an idempotency key derived from the "
    "order id and the attempt number, stored with the order in the database before the "
    "request is sent, so that a crash between sending the request and storing the response "
    "never charges a customer twice when the job runs again.",
    "Payments API client: the payments API certificate is pinned by its public key hash in "
    "the client configuration, and the pin list holds the current and the next key so that "
    "the provider can rotate certificates without an outage; a pin mismatch stops every "
    "payment call and pages the on-call engineer.",
]


SHORT_PAYMENTS_NOTES = [
    "Payments API client: retry idempotent payment requests three times with backoff.",
    "Payments API client: connect timeout 2 s, read timeout 10 s for every payment call.",
    "Payments API client: a token bucket per merchant keeps us under the 429 rate limit.",
    "Payments API client: every payment request carries an idempotency key from the order id.",
    "Payments API client: the provider certificate is pinned by its public key hash.",
]


def test_recall_keeps_the_best_three(store: MemoryStore) -> None:
    """Five short notes all pass the floor and fit the budget together: recall keeps
    exactly the best three, whole."""
    for text in SHORT_PAYMENTS_NOTES:
        assert store.remember(text, "implementation").status == STORED
    query = "payments API client"
    candidates = store.retrieve(query, 5, Filters(group_id=store.group_id))
    passing = [c for c in candidates if c.semantic >= protocol.RECALL_FLOOR]
    assert len(passing) == 5, [c.semantic for c in candidates]
    assert sum(len(c.memory.content) for c in passing) < protocol.RECALL_CHAR_BUDGET
    result = store.recall(query, top_k=5)
    assert [h.memory.id for h in result.hits] == [c.memory.id for c in passing[:3]]
    assert list(result.texts) == [c.memory.content for c in passing[:3]]
    assert not result.truncated


def test_recall_keeps_three_and_cuts_800_chars(store: MemoryStore) -> None:
    """Five distinct notes (~300 characters each) all pass the floor: recall keeps the best
    three and cuts their combined text to 800 characters at a word boundary."""
    for text in PAYMENTS_NOTES:
        assert store.remember(text, "implementation").status == STORED
    query = "how does our client call the payments API"
    candidates = store.retrieve(query, 5, Filters(group_id=store.group_id))
    passing = [c for c in candidates if c.semantic >= protocol.RECALL_FLOOR]
    assert len(passing) > protocol.RECALL_KEEP, [c.semantic for c in candidates]
    assert sum(len(c.memory.content) for c in passing[:3]) > protocol.RECALL_CHAR_BUDGET
    result = store.recall(query, top_k=5)
    assert len(result.hits) == protocol.RECALL_KEEP == 3
    assert [h.memory.id for h in result.hits] == [c.memory.id for c in passing[:3]]
    assert result.truncated
    combined = sum(len(t) for t in result.texts)
    assert protocol.RECALL_CHAR_BUDGET - 30 <= combined <= protocol.RECALL_CHAR_BUDGET
    # the first two whole, the third cut at a word boundary of its own text
    assert list(result.texts[:2]) == [h.memory.content for h in result.hits[:2]]
    third, full = result.texts[2], result.hits[2].memory.content
    assert full.startswith(third) and len(third) < len(full)
    assert full[len(third)] == " " and not third.endswith(" ")
    # the JSON says which result is cut (xml marks it: truncated="true")
    assert [r["truncated"] for r in result.to_dict()["results"]] == [False, False, True]


def test_recall_unrelated_scores_below_floor(store: MemoryStore) -> None:
    store.remember(DB_LOCKED, "error_fix")
    assert store.recall("chocolate cake recipe with strawberries").hits == ()


def test_long_content_tail_is_found_lexically(store: MemoryStore) -> None:
    head = " ".join(f"word{i}" for i in range(400))
    content = head + " zanzibarquokka appears only at the very end"
    result = store.remember(content, "context")
    assert result.status == STORED
    hits = store.backend.lexical_search("zanzibarquokka", 5, Filters(group_id=store.group_id))
    assert [h.memory.id for h in hits] == [result.id]


def test_search_filters_and_threshold(store: MemoryStore) -> None:
    store.remember("Use snake_case for Python function names.", "naming")
    store.remember(
        "Retry sqlite writes when the database is locked, with busy_timeout.", "error_fix"
    )
    response = store.search(
        "python function naming convention", collection="conventions", threshold=0.3
    )
    assert [r.memory.type for r in response.results] == ["naming"]
    response = store.search("sqlite database locked retry", memory_type="error_fix", threshold=0.3)
    assert [r.memory.type for r in response.results] == ["error_fix"]
    strict = store.search("the database was busy", memory_type="error_fix", threshold=0.99)
    assert strict.results == ()
    assert store.search("the database was busy", memory_type="error_fix", threshold=0.1).results


def test_search_group_all_crosses_projects(store: MemoryStore) -> None:
    store.remember(
        "Feature flags are read from LaunchDarkly at startup.",
        "implementation",
        group_id="other/repo",
    )
    assert store.search("feature flags startup", threshold=0.3).results == ()
    everywhere = store.search("feature flags startup", threshold=0.3, group_id="all")
    assert [r.memory.group_id for r in everywhere.results] == ["other/repo"]


def test_newest_per_project_type_and_collection(store: MemoryStore) -> None:
    now = datetime(2026, 5, 1, tzinfo=UTC)
    notes = [
        ("Rule: commit messages say why.", "rule", 5, None),
        ("Guideline: keep functions short.", "guideline", 1, None),
        ("We chose SQLite for the embedded store.", "decision", 0, None),
        (DB_LOCKED, "context", 3, None),  # an ERROR-FIX given as context is an error_fix
        ("Rule in another project: tabs.", "rule", 0, "other/repo"),
    ]
    for content, memory_type, days, group in notes:
        result = store.remember(
            content, memory_type, stored_at=now - timedelta(days=days), group_id=group
        )
        assert result.status == STORED
    texts = [m.content for m in store.newest(10)]
    assert texts == [notes[2][0], notes[1][0], notes[3][0], notes[0][0]]
    assert [m.content for m in store.newest(1, memory_type="rule,guideline")] == [notes[1][0]]
    assert [m.content for m in store.newest(5, memory_type=["error_fix"])] == [DB_LOCKED]
    assert [m.content for m in store.newest(5, collection="conventions")] == [
        notes[1][0],
        notes[0][0],
    ]
    assert [m.group_id for m in store.newest(2, group_id="all")] == ["other/repo", store.group_id]
    with pytest.raises(UserInputError, match="valid types"):
        store.newest(3, memory_type="nonsense")


def test_forget(store: MemoryStore) -> None:
    r = store.remember("temporary note about the build cache", "context")
    assert store.forget(r.id or "")
    assert not store.forget(r.id or "")
    assert store.backend.count(Filters()) == 0


def test_export_import_round_trip(store: MemoryStore, minilm) -> None:  # type: ignore[no-untyped-def]
    old = datetime(2026, 1, 15, 12, 30, tzinfo=UTC)
    a = store.remember(
        DB_LOCKED,
        "error_fix",
        source="docs/solutions/db.md",
        tags=["db", "sqlite"],
        metadata={"nested": {"k": [1, 2]}},
        stored_at=old,
    )
    b = store.remember("We decided on trunk-based development.", "decision", group_id="other/repo")
    seen = old + timedelta(days=30)
    assert store.remember(DB_LOCKED.upper(), "error_fix", stored_at=seen).id == a.id
    buf = io.StringIO()
    assert export_memories(store, buf, group_id="all").exported == 2
    target = open_store(
        store.project.root / "copy" / "memory.db", cwd=store.project.root, embedder=minilm
    )
    counts = import_memories(target, buf.getvalue().splitlines())
    assert counts == {
        "read": 2,
        "imported": 2,
        "duplicates": 0,
        "rejected": 0,
        "not_written": 0,
        "not_written_reason": None,
        "reembedded": 0,
        "other_projects": {"other/repo": 1},
        "changed": {},
        "redactions": {},
    }
    originals = {m.id: m for m in store.backend.get([a.id or "", b.id or ""])}
    copies = {m.id: m for m in target.backend.get([a.id or "", b.id or ""])}
    assert copies == originals
    assert (copies[a.id or ""].seen_count, copies[a.id or ""].last_seen_at) == (2, seen)
    exported = [json.loads(line) for line in buf.getvalue().splitlines()[1:]]
    assert {(m["seen_count"], m["last_seen_at"]) for m in exported if m["id"] == a.id} == {
        (2, seen.isoformat())
    }
    v1 = {r.memory.id: r.vector for r in store.backend.iterate(Filters())}
    v2 = {r.memory.id: r.vector for r in target.backend.iterate(Filters())}
    for key in v1:
        np.testing.assert_array_equal(v1[key], v2[key])
    again = import_memories(target, buf.getvalue().splitlines())
    assert again["imported"] == 0 and again["duplicates"] == 2
    # restoring a backup again is not remembering again: nothing is refreshed
    assert {m.id: m for m in target.backend.get([a.id or "", b.id or ""])} == originals
    target.close()
    third = open_store(
        store.project.root / "third" / "memory.db", cwd=store.project.root, embedder=minilm
    )
    mine = third.remember(DB_LOCKED, "error_fix")  # the same content under another id
    assert import_memories(third, buf.getvalue().splitlines())["duplicates"] == 1
    assert third.backend.get([mine.id or ""])[0].seen_count == 1
    third.close()


def test_an_export_imported_again_is_not_redacted_again(store: MemoryStore) -> None:
    """An export imported into the store it came from: a line whose id the store holds with
    the line's very text is not normalised and redacted again (most of a re-import's work,
    ~0.6 ms a note), its text being what they made of it; a line whose text differs is, and
    is named as changed. The counts and the store are as they were."""
    secret = store.remember("Deploys run tools/deploy.sh with DB_PASSWORD=Zq8Rw2Kx9Mt4 set", "rule")
    other = store.remember("We decided on trunk-based development.", "decision")
    buf = io.StringIO()
    export_memories(store, buf)
    header, *lines = buf.getvalue().splitlines()
    records = {json.loads(line)["id"]: json.loads(line) for line in lines}
    assert "[REDACTED:" in records[secret.id]["content"]
    edited = {**records[other.id], "content": records[other.id]["content"] + " Since 2026."}
    rows = {r.memory.id: r.memory for r in store.backend.iterate(Filters())}
    with texts_redacted() as seen:
        counts = import_memories(
            store, [header, json.dumps(records[secret.id]), json.dumps(edited)]
        )
    assert (counts["read"], counts["duplicates"], counts["imported"]) == (2, 2, 0), counts
    assert counts["changed"] == {other.id: store.group_id} and counts["redactions"] == {}
    assert records[secret.id]["content"] not in seen and edited["content"] in seen, seen
    assert {r.memory.id: r.memory for r in store.backend.iterate(Filters())} == rows


def test_import_rejects_bad_file_without_writing(store: MemoryStore) -> None:
    from kenning.errors import UserInputError

    good = json.dumps(
        {
            "id": "x1",
            "content": "a",
            "collection": "discussions",
            "type": "context",
            "group_id": "g",
            "stored_at": "2026-01-01T00:00:00+00:00",
            "content_hash": "",
        }
    )
    with pytest.raises(UserInputError, match="line 2"):
        import_memories(store, [good, "{not json"])
    assert store.backend.count(Filters()) == 0


def test_provenance_is_stamped_and_mixing_refused(store: MemoryStore) -> None:
    store.remember(DB_LOCKED, "error_fix")
    prov = store.backend.read_provenance()
    assert prov is not None and prov.model_id == "sentence-transformers/all-MiniLM-L6-v2"
    assert prov.dimension == 384 and prov.normalised
    other = open_store(cwd=store.project.root, embedder="hashing")
    with pytest.raises(ProvenanceMismatch, match="kenning reembed"):
        other.recall("database is locked")
    with pytest.raises(ProvenanceMismatch, match="kenning reembed"):
        other.remember("a brand new note", "context")
    assert store.backend.count(Filters()) == 1
    outcome = reembed(other)
    assert outcome["reembedded"] == 1
    assert other.backend.read_provenance() == other.embedder.provenance
    assert other.recall("sqlite3.OperationalError: database is locked", errors=True).hits
    other.close()


def test_reembed_on_a_store_already_on_this_model_redoes_nothing(store: MemoryStore) -> None:
    """`kenning reembed` on a store already stamped with the current model re-embedded every
    memory (half an hour at 100k) to write the same vectors again, and said so as if it had
    been needed. It now says there is nothing to re-embed (the vectors are the ones the
    model gives); --force re-embeds them all the same."""
    for text in EXPORT_NOTES:
        assert store.remember(text, "context").status == "stored"
    outcome = reembed(store)
    assert (outcome["reembedded"], outcome["unchanged"]) == (0, len(EXPORT_NOTES))
    assert store.backend.read_provenance() == store.embedder.provenance
    forced = reembed(store, every=True)
    assert (forced["reembedded"], forced["unchanged"]) == (len(EXPORT_NOTES), 0)
    said = run_cli(store.project.root, "reembed")
    assert said.returncode == 0, said.stderr
    assert said.stdout.startswith("nothing to re-embed: the store is already on"), said.stdout


def test_reembed_of_a_store_of_one_memory_counts_it_as_one(store: MemoryStore) -> None:
    """A first `kenning reembed` on a one-note store said "(its 1 memories have their
    vectors; --force re-embeds them all the same)", and --force "re-embedded 1 memories"."""
    assert store.remember(EXPORT_NOTES[0], "context").status == "stored"
    store.close()
    said = run_cli(store.project.root, "reembed")
    assert said.returncode == 0, said.stderr
    assert "(its 1 memory has its vector; --force re-embeds it all the same)" in said.stdout
    forced = run_cli(store.project.root, "reembed", "--force")
    assert forced.returncode == 0, forced.stderr
    assert forced.stdout.startswith("re-embedded 1 memory with "), forced.stdout


#: DB_LOCKED as a Japanese input method types it with full-width letters on: the same note.
DB_LOCKED_FULL_WIDTH = (
    "ＥＲＲＯＲ－ＦＩＸ： ｓｑｌｉｔｅ３．ＯｐｅｒａｔｉｏｎａｌＥｒｒｏｒ： ｄａｔａｂａｓｅ ｉｓ "
    "ｌｏｃｋｅｄ　｜　ＦＩＸ： ｅｎａｂｌｅ ＷＡＬ ａｎｄ ｒｅｔｒｙ ｗｉｔｈ ｂｕｓｙ＿ｔｉｍｅｏｕｔ"
)


def test_a_note_typed_in_full_width_is_recalled(store: MemoryStore, minilm: Embedder) -> None:
    """MiniLM's word pieces hold no full-width letters: embedded as written, the note above
    scored 0.12 against "database is locked" (its ASCII twin 0.67), so recall never found
    it — and remembering it again in ASCII was refused as its duplicate. The model now
    reads the characters it has no word piece for in their usual width; the note is stored
    as written."""
    twin = DB_LOCKED.split(" | SOURCE")[0]
    ascii_twin, full_width = minilm.embed([twin, DB_LOCKED_FULL_WIDTH])
    # (its ： － ． stay as written: the model has word pieces for them)
    assert float(ascii_twin @ full_width) > 0.98
    assert minilm.token_count(DB_LOCKED_FULL_WIDTH) == minilm.token_count(twin)
    stored = store.remember(DB_LOCKED_FULL_WIDTH, "error_fix")
    assert stored.status == "stored"
    store.remember("Frontend components live in src/components with PascalCase.", "structure")
    result = store.recall("database is locked when two agents write")
    assert [h.memory.id for h in result.hits][:1] == [stored.id]
    assert "ｄａｔａｂａｓｅ ｉｓ ｌｏｃｋｅｄ" in result.hits[0].memory.content  # as written
    again = store.remember(DB_LOCKED.split(" | SOURCE")[0], "error_fix")
    assert (again.status, again.id) == (NEAR_DUPLICATE, stored.id)


def test_reembed_redoes_the_vectors_of_notes_an_older_kenning_embedded_in_full_width(
    store: MemoryStore, minilm: Embedder
) -> None:
    """A store written before the model folded widths holds such notes' useless vectors;
    `kenning reembed` on the same model recomputes those that come out otherwise, and
    leaves every other vector (and a width note already right) as it is."""
    wide = store.remember(DB_LOCKED_FULL_WIDTH, "error_fix")
    right = store.remember(
        "ｇｉｔ ｐｕｓｈ ｉｓ ｒｅｊｅｃｔｅｄ ｗｉｔｈｏｕｔ ａ ｔｏｋｅｎ", "context"
    )
    plain = store.remember("The staging cluster scales to zero at night.", "context")
    stale = minilm.embed(["something else entirely: a recipe for bread"])[0]
    # the older vectors: neither is damaged, both are another text's
    store.backend.update_vectors([(wide.id, stale), (plain.id, stale)])
    assert not store.recall("database is locked when two agents write").hits

    outcome = reembed(store)
    assert (outcome["reembedded"], outcome["unchanged"]) == (1, 2)
    vectors = {r.memory.id: r.vector for r in store.backend.iterate(Filters())}
    assert np.array_equal(vectors[plain.id], stale)  # an ASCII note is never re-embedded
    assert (
        float(vectors[right.id] @ minilm.embed(["git push is rejected without a token"])[0]) > 0.99
    )
    assert store.recall("database is locked when two agents write").hits[0].memory.id == wide.id
    assert reembed(store)["reembedded"] == 0


def test_an_export_from_before_the_width_fold_is_imported_with_new_vectors(
    store: MemoryStore, minilm: Embedder
) -> None:
    """A backup an older kenning wrote carries a full-width note's useless vector on the
    same model stamp: imported as it was, the note stayed unrecallable in the new store."""
    wide = store.remember(DB_LOCKED_FULL_WIDTH, "error_fix")
    stale = minilm.embed(["something else entirely: a recipe for bread"])[0]
    store.backend.update_vectors([(wide.id, stale)])  # the vector an older kenning wrote
    buf = io.StringIO()
    assert export_memories(store, buf).exported == 1
    target = open_store(
        store.project.root / "copy" / "memory.db", cwd=store.project.root, embedder=minilm
    )
    try:
        counts = import_memories(target, buf.getvalue().splitlines())
        assert (counts["imported"], counts["reembedded"]) == (1, 0)
        hits = target.recall("database is locked when two agents write").hits
        assert [h.memory.id for h in hits] == [wide.id]
    finally:
        target.close()


def test_reembed_resumes(store: MemoryStore) -> None:
    notes = [
        "The CI pipeline caches node_modules keyed by the lockfile hash.",
        "Database migrations run automatically on deploy via alembic.",
        "We picked Tailwind over CSS modules for the dashboard.",
        "Feature flags are evaluated server side only.",
        "Use structured JSON logging with a request id on every line.",
        "The staging cluster scales to zero at night to save money.",
        "Never commit generated protobuf files; CI regenerates them.",
    ]
    for text in notes:
        assert store.remember(text, "context").status == "stored"
    other = open_store(cwd=store.project.root, embedder="hashing")
    ids = [r.memory.id for r in other.backend.iterate(Filters())]
    # Simulate a run that died after the first three memories.
    other.backend.set_meta(
        "reembed_state",
        json.dumps({"target": other.embedder.provenance.to_dict(), "last_id": ids[2]}),
    )
    with pytest.raises(ProvenanceMismatch, match="half re-embedded"):
        other.recall("topic")
    calls: list[int] = []
    outcome = reembed(other, batch_size=2, progress=lambda done, total: calls.append(done))
    assert (outcome["reembedded"], outcome["already_done"]) == (4, 3)  # this run's, and before
    assert calls[0] == 5  # resumed after 3, first batch of 2
    other.close()


def test_reembed_resumed_after_its_last_memory_was_forgotten_reembeds_every_row(
    store: MemoryStore,
) -> None:
    """A reembed killed after a batch, then the memory it stopped at forgotten (forget is
    allowed on a half re-embedded store: the CLI, the page, a seed run retiring an entry):
    the next run skipped every row looking for that id, said 're-embedded 0 memories (N
    more were done by the run this one resumes)' and stamped the store with the new model
    while most rows kept the old model's vectors — found by no query, seen by no doctor."""
    notes = [
        "The CI pipeline caches node_modules keyed by the lockfile hash.",
        "Database migrations run automatically on deploy via alembic.",
        "We picked Tailwind over CSS modules for the dashboard.",
        "Feature flags are evaluated server side only.",
        "Use structured JSON logging with a request id on every line.",
        "The staging cluster scales to zero at night to save money.",
    ]
    for text in notes:
        assert store.remember(text, "context").status == "stored"
    other = open_store(cwd=store.project.root, embedder="hashing")
    ids = [r.memory.id for r in other.backend.iterate(Filters())]
    # what a run killed after its first batch of two leaves
    other.backend.set_meta(
        "reembed_state",
        json.dumps({"target": other.embedder.provenance.to_dict(), "last_id": ids[1]}),
    )
    assert other.forget(ids[1])
    outcome = reembed(other, batch_size=2)
    assert (outcome["reembedded"], outcome["already_done"]) == (5, 0)
    records = list(other.backend.iterate(Filters()))
    assert len(records) == 5
    wanted = other.embedder.embed([r.memory.content for r in records])
    for record, vector in zip(records, wanted, strict=True):
        assert float(record.vector @ vector) > 0.9999, record.memory.content
    other.close()


def test_reembed_resumed_after_its_last_memory_moved_reembeds_the_rows_it_skipped(
    store: MemoryStore,
) -> None:
    """A reembed stopped after a batch; then the memory it stopped at was marked reviewed
    (the page's button; a session start refreshing a seeded entry's files does the same),
    which rewrites its row at the end of the table. The next run skipped every row up to
    it — all the rows the first run never reached — and stamped them as re-embedded."""
    for text in EXPORT_NOTES:
        assert store.remember(text, "context").status == "stored"
    other = open_store(cwd=store.project.root, embedder="hashing")
    ids = [r.memory.id for r in other.backend.iterate(Filters())]

    def killed(done: int, total: int) -> None:
        raise KeyboardInterrupt  # the run stops after its first batch, its mark left

    with pytest.raises(KeyboardInterrupt):
        reembed(other, batch_size=2, progress=killed)
    other.mark_reviewed(ids[1])
    reembed(other, batch_size=2)
    records = list(other.backend.iterate(Filters()))
    wanted = other.embedder.embed([r.memory.content for r in records])
    assert len(records) == len(EXPORT_NOTES)
    for record, vector in zip(records, wanted, strict=True):
        assert float(record.vector @ vector) > 0.9999, record.memory.content
    other.close()


EXPORT_NOTES = [
    "The CI pipeline caches node_modules keyed by the lockfile hash.",
    "Database migrations run automatically on deploy via alembic.",
    "We picked Tailwind over CSS modules for the dashboard.",
    "Feature flags are evaluated server side only.",
    "Use structured JSON logging with a request id on every line.",
    "The staging cluster scales to zero at night to save money.",
]


def _exported_vectors_from_another_model(store: MemoryStore, exported: str) -> list[str]:
    """The exported notes whose vector is not what the header's model gives their text."""
    lines = [json.loads(line) for line in exported.splitlines()]
    assert lines[0]["provenance"] == store.embedder.provenance.to_dict()
    notes = [line for line in lines[1:] if "embedding" in line]
    wanted = store.embedder.embed([n["content"] for n in notes])
    import base64

    return [
        n["content"]
        for n, vector in zip(notes, wanted, strict=True)
        if float(np.frombuffer(base64.b64decode(n["embedding"]), np.float32) @ vector) < 0.999
    ]


def test_a_half_reembedded_store_is_not_exported_with_its_mixed_vectors(
    store: MemoryStore,
) -> None:
    """A reembed to another model stopped after a batch (killed, or still running): the
    stamp still names the old model until it finishes. `kenning export` wrote that stamp
    in its header above vectors of both models, and an import into a store of the old
    model reused the new model's vectors as its own: those notes were never found again."""
    for text in EXPORT_NOTES:
        assert store.remember(text, "context").status == "stored"
    other = open_store(cwd=store.project.root, embedder="hashing")

    def killed(done: int, total: int) -> None:
        raise KeyboardInterrupt  # the run stops after its first batch, its mark left

    with pytest.raises(KeyboardInterrupt):
        reembed(other, batch_size=2, progress=killed)
    other.close()
    out = io.StringIO()
    try:
        export_memories(store, out)
    except KenningError as exc:
        assert "kenning reembed" in str(exc) and "--no-vectors" in str(exc)
    else:
        assert not _exported_vectors_from_another_model(store, out.getvalue())
    out = io.StringIO()
    assert export_memories(store, out, vectors=False).exported == len(EXPORT_NOTES)


#: The rows an export reads at a time (the backend's iterate, its default batch).
_EXPORT_BATCH = inspect.signature(SQLiteBackend.iterate).parameters["batch_size"].default


def _hashed_notes_past(store: MemoryStore, batch: int) -> MemoryStore:
    """``store``'s project opened with the hashing model, holding ``batch`` + 20 notes: a
    reader of ``batch`` rows at a time reads a second batch after the first. The notes are
    short (``Note 7``): the MiniLM re-embedding of all of them, the cost of the tests that
    use this, is linear in their word pieces (~15 for the sentence they were, 2.3 CPU-s for
    520; ~5, 0.7 CPU-s), and their text is not what the tests check."""
    hashed = open_store(cwd=store.project.root, embedder="hashing")
    notes = [NewMemory(f"Note {i}") for i in range(batch + 20)]
    assert all(r.status == "stored" for r in hashed.remember_many(notes, near_duplicates=False))
    return hashed


class _AnotherModel:
    """Another model to re-embed into while an export or a migration reads the hashing
    model's rows: the hashing model's vectors in reverse order (unit vectors still, far from
    the hashing ones), stamped with a provenance of their own. What the races test is that
    a change of model between two batches is caught, whichever model it is; MiniLM
    re-embedding the 520 notes was most of their CPU (~0.7 CPU-s each)."""

    def __init__(self) -> None:
        self._hashing = HashingEmbedder()
        self.provenance = replace(self._hashing.provenance, model_id="hashing-reversed")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.ascontiguousarray(self._hashing.embed(texts)[:, ::-1])


def _reembed_with_another_model(store: MemoryStore) -> None:
    """What another process's `kenning reembed` to another model does to ``store``'s file."""
    with open_store(cwd=store.project.root, embedder=_AnotherModel()) as other:  # type: ignore[arg-type]
        reembed(other)


def test_an_export_during_a_reembed_does_not_mix_two_models_silently(
    store: MemoryStore,
) -> None:
    """`kenning reembed` to another model run by another process while an export reads the
    rows (500 at a time): the rows read after it came with the new model's vectors under a
    header naming the old one."""
    hashed = _hashed_notes_past(store, _EXPORT_BATCH)

    class Output(io.StringIO):
        def write(self, text: str) -> int:
            if self.getvalue().count("\n") == 3:  # the first 500 rows are read: another
                _reembed_with_another_model(store)  # process re-embeds the store
            return super().write(text)

    out = Output()
    try:
        export_memories(hashed, out)
    except KenningError as exc:
        assert "kenning reembed" in str(exc)
    else:
        assert not _exported_vectors_from_another_model(hashed, out.getvalue())
    hashed.close()


def _copied_vectors_from_another_model(target: Path, embedder: Embedder) -> list[str]:
    """The notes copied to the store at ``target`` whose vector is not what the model its
    stamp names gives their text (that model is ``embedder``'s)."""
    from kenning.backends.sqlite import SQLiteBackend

    copy = SQLiteBackend(target, create=False)
    try:
        records = list(copy.iterate(Filters(group_id=None)))
        assert not records or copy.read_provenance() == embedder.provenance
    finally:
        copy.close()
    wanted = embedder.embed([r.memory.content for r in records])
    return [r.memory.content for r, v in zip(records, wanted, strict=True) if r.vector @ v < 0.999]


def test_a_half_reembedded_store_is_not_migrated_with_its_mixed_vectors(
    store: MemoryStore,
) -> None:
    """As for export: `kenning migrate --to` stamped the target with the model the source
    was stamped with and copied vectors of two models under it."""
    from kenning.migrate import migrate_store

    for text in EXPORT_NOTES:
        assert store.remember(text, "context").status == "stored"
    other = open_store(cwd=store.project.root, embedder="hashing")

    def killed(done: int, total: int) -> None:
        raise KeyboardInterrupt  # the run stops after its first batch, its mark left

    with pytest.raises(KeyboardInterrupt):
        reembed(other, batch_size=2, progress=killed)
    other.close()
    target = store.project.root / "copy" / "memory.db"
    try:
        migrate_store(store, str(target))
    except KenningError as exc:
        assert "kenning reembed" in str(exc)
        assert not target.exists()  # refused before a target was made
    else:
        assert not _copied_vectors_from_another_model(target, store.embedder)


def test_a_migration_during_a_reembed_does_not_mix_two_models_silently(
    store: MemoryStore,
) -> None:
    """A reembed to another model run by another process between two of a migration's
    batches: the target, stamped with the old model, got the new model's vectors for the
    rest, and the migration said it was verified."""
    from kenning.migrate import migrate_store

    hashed = _hashed_notes_past(store, MIGRATE_BATCH)
    target = store.project.root / "copy" / "memory.db"
    batches: list[int] = []

    def another_process_reembeds(n: int) -> None:
        batches.append(n)
        if len(batches) == 1:
            _reembed_with_another_model(store)

    try:
        migrate_store(hashed, str(target), progress=another_process_reembeds)
    except KenningError as exc:
        assert "kenning reembed" in str(exc)
    else:
        assert not _copied_vectors_from_another_model(target, hashed.embedder)
    hashed.close()


def test_garbage_file_is_reported_as_corrupted(project: Path, minilm) -> None:  # type: ignore[no-untyped-def]
    db = project / ".kenning" / "memory.db"
    db.parent.mkdir()
    db.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreCorrupted, match="kenning import"):
        open_store(cwd=project, embedder=minilm)
    assert db.read_bytes() == b"this is not sqlite" * 100


def test_future_schema_and_missing_table(store: MemoryStore, minilm) -> None:  # type: ignore[no-untyped-def]
    store.remember("note", "context")
    path = Path(store.backend.location)
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    with pytest.raises(StoreCorrupted, match="newer"):
        open_store(cwd=store.project.root, embedder=minilm)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    conn.execute("DROP TABLE memories_fts")
    conn.commit()
    conn.close()
    # it opens (the rows are intact, to be exported), and refuses what needs the index
    with open_store(cwd=store.project.root, embedder=minilm) as damaged:
        assert [m.content for m in damaged.browse()] == ["note"]
        with pytest.raises(StoreCorrupted, match=r"memories_fts.*kenning export"):
            damaged.remember("another note", "context")
        with pytest.raises(StoreCorrupted, match="memories_fts"):
            damaged.recall("note")
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE meta")
    conn.commit()
    conn.close()
    # without its stamps too: still read out for the rebuild, writes refused
    with open_store(cwd=store.project.root, embedder=minilm) as damaged:
        assert [m.content for m in damaged.browse()] == ["note"]
        with pytest.raises(StoreCorrupted, match=r"meta.*kenning export"):
            damaged.remember("another note", "context")


def test_missing_store_for_reads(project: Path, minilm) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(StoreNotFound):
        open_store(cwd=project, embedder=minilm, create=False)
    assert not (project / ".kenning").exists()


def test_missing_ok_reads_as_empty_and_refuses_writes(project: Path, minilm) -> None:  # type: ignore[no-untyped-def]
    with open_store(cwd=project, embedder=minilm, create=False, missing_ok=True) as empty:
        assert not empty.exists and "kenning remember" in (empty.missing_reason or "")
        recalled = empty.recall("database is locked when two agents write")
        assert recalled.hits == () and recalled.floor == protocol.RECALL_FLOOR
        assert empty.recall("sqlite3.OperationalError: database is locked").is_error
        assert empty.search("how do we handle sqlite locking").results == ()
        assert empty.count() == 0 and empty.count(group_id="all") == 0
        stats = empty.stats()
        assert stats["store_exists"] is False and stats["memories"] == 0
        assert stats["intel_path"] == str(project / ".kenning" / "memory.db")
        with pytest.raises(StoreNotFound):
            empty.forget("0190-nope")
        with pytest.raises(StoreNotFound):
            empty.remember("Use snake_case for Python function names.", "naming")
    assert not (project / ".kenning").exists()  # no read created anything
    with open_store(cwd=project, embedder=minilm) as created:
        created.remember("Use snake_case for Python function names.", "naming")
    with open_store(cwd=project, embedder=minilm, create=False, missing_ok=True) as found:
        assert found.exists and found.missing_reason is None
        assert found.count() == 1 and found.count(collection="conventions") == 1
        assert found.count(memory_type="rule") == 0
        assert found.stats()["store_exists"] is True


def test_no_store_answers_in_the_same_json_shape(project: Path) -> None:
    from tests.test_cli import DB_LOCKED, kenning

    before = {
        cmd: json.loads(kenning(project, cmd, "--json", *args).stdout)
        for cmd, args in (("recall", ["database locked"]), ("search", ["sqlite locking"]))
    }
    stats_before = json.loads(kenning(project, "stats", "--json").stdout)
    assert kenning(project, "remember", DB_LOCKED).returncode == 0
    for cmd, args in (("recall", ["database locked"]), ("search", ["sqlite locking"])):
        after = json.loads(kenning(project, cmd, "--json", *args).stdout)
        assert before[cmd]["results"] == [] and set(before[cmd]) == set(after), cmd
    stats_after = json.loads(kenning(project, "stats", "--json").stdout)
    assert set(stats_before) == set(stats_after)
    assert (stats_before["store_exists"], stats_after["store_exists"]) == (False, True)


def test_unwritable_store_folder(project: Path, minilm) -> None:  # type: ignore[no-untyped-def]
    from kenning.errors import KenningError

    (project / "blocker").write_text("a file where a folder should be")
    # named with what is in the way and what to do (not only "cannot create")
    with pytest.raises(
        KenningError,
        match=r"cannot create the store .*blocker is a file, not a folder.*move .*blocker aside",
    ):
        open_store(project / "blocker" / "sub" / "memory.db", cwd=project, embedder=minilm)


def test_symlinked_store_outside_project_is_refused(project: Path, tmp_path: Path, minilm) -> None:  # type: ignore[no-untyped-def]
    elsewhere = tmp_path / "other-project-store"
    elsewhere.mkdir()
    (project / ".kenning").symlink_to(elsewhere)
    with pytest.raises(StoreLocationError, match="outside the project root"):
        open_store(cwd=project, embedder=minilm)
    assert list(elsewhere.iterdir()) == []


def test_decay_reorders_by_age(store: MemoryStore) -> None:
    now = datetime(2026, 6, 1, tzinfo=UTC)
    old = store.remember(
        "Retry failed HTTP requests with exponential backoff and jitter.",
        "implementation",
        stored_at=now - timedelta(days=120),
    )
    new = store.remember(
        "HTTP client: on a 503, back off exponentially before retrying the request.",
        "implementation",
        stored_at=now - timedelta(days=1),
    )
    assert old.status == STORED and new.status == STORED
    semantic = {
        r.memory.id: r.semantic
        for r in store.search(
            "retry http requests with exponential backoff", threshold=0.3, now=now, decay=False
        ).results
    }
    assert semantic[old.id] > semantic[new.id]  # without decay the old one wins...
    ranked = store.search("retry http requests with exponential backoff", threshold=0.3, now=now)
    ids = [r.memory.id for r in ranked.results]
    assert ids.index(new.id) < ids.index(old.id)
    plain = store.search(
        "retry http requests with exponential backoff", threshold=0.3, now=now, decay=False
    )
    assert all(r.temporal is None and r.score == r.semantic for r in plain.results)


def test_empty_store_file_is_not_initialised_by_a_read(project: Path, minilm) -> None:  # type: ignore[no-untyped-def]
    db = project / ".kenning" / "memory.db"
    db.parent.mkdir()
    db.write_bytes(b"")  # a writer died between creating the file and migrating it
    with pytest.raises(StoreNotFound, match="empty"):
        open_store(cwd=project, embedder=minilm, create=False)
    assert db.stat().st_size == 0
    store = open_store(cwd=project, embedder=minilm)  # the next write initialises it
    assert store.remember("first note after a crash", "context").status == "stored"
    store.close()


def test_module_level_api_reads_every_project_with_all(project: Path) -> None:
    import kenning

    fix = "ERROR-FIX: KeyError: 'tenant_id' | FIX: pass the tenant in every job payload"
    assert kenning.remember(fix, "error_fix", group_id="team/other", cwd=project).ok
    assert kenning.recall("KeyError: 'tenant_id'", cwd=project).hits == ()  # this project
    everywhere = kenning.recall("KeyError: 'tenant_id'", group_id="all", cwd=project)
    assert [h.memory.content for h in everywhere.hits] == [fix]
    mine = kenning.recall("KeyError: 'tenant_id'", group_id="team/other", cwd=project)
    assert [h.memory.group_id for h in mine.hits] == ["team/other"]
    found = kenning.search_memories("tenant id missing", group_id="all", threshold=0.2, cwd=project)
    assert [r.memory.content for r in found] == [fix]


def test_every_write_applies_the_location_guard(tmp_path: Path, minilm) -> None:  # type: ignore[no-untyped-def]
    """With .kenning symlinked to a victim's store, nothing from the attacker's checkout may
    change it: not forget, not reembed, not migrate (remember was always refused)."""
    from kenning.migrate import migrate_store
    from tests.conftest import make_repo

    victim = make_repo(tmp_path / "victim", remote="git@github.com:acme/victim.git")
    with open_store(cwd=victim, embedder=minilm) as v:
        kept = v.remember("Victim rule: deploy only on Tuesdays.", "rule")
    attacker = make_repo(tmp_path / "attacker", remote="git@github.com:evil/attacker.git")
    (attacker / ".kenning").symlink_to(victim / ".kenning")
    db = victim / ".kenning" / "memory.db"
    before = db.read_bytes()
    with open_store(cwd=attacker, embedder=minilm, create=False) as a:
        with pytest.raises(StoreLocationError):
            a.forget(kept.id or "", group_id="all")
        with pytest.raises(StoreLocationError):
            reembed(a)
    assert db.read_bytes() == before
    # migrating into another project's store is refused as well
    third = make_repo(tmp_path / "third", remote="git@github.com:evil/third.git")
    with open_store(cwd=third, embedder=minilm) as t:
        assert t.remember("Third: nothing to see.", "rule").ok
        with pytest.raises(StoreLocationError):
            migrate_store(t, str(victim / ".kenning"), group_id="all")
        with pytest.raises(StoreLocationError):
            migrate_store(t, str(db), group_id="all")
    assert db.read_bytes() == before
    with open_store(cwd=victim, embedder=minilm, create=False) as v:
        assert v.count() == 1


def test_forget_stays_in_its_project(store: MemoryStore) -> None:
    other = store.remember("Other team: use tabs.", "rule", group_id="team/other")
    mine = store.remember("Use snake_case for Python function names.", "naming")
    assert store.forget(other.id or "") is False  # not this project's memory
    assert store.count(group_id="team/other") == 1
    assert store.forget(other.id or "", group_id="team/other") is True
    assert store.forget(mine.id or "", group_id="all") is True
    assert store.count(group_id="all") == 0


def test_a_query_longer_than_the_limit_is_refused_before_any_work(store: MemoryStore) -> None:
    """A pasted megabyte would be tokenised whole while every other call waits: recall and
    search take at most MAX_QUERY_CHARS, and the refusal says what to pass instead."""
    store.remember(DB_LOCKED, "error_fix")
    longest = "database is locked " * (protocol.MAX_QUERY_CHARS // 19)
    assert len(longest) <= protocol.MAX_QUERY_CHARS
    assert store.recall(longest).hits
    for ask in (store.recall, store.search):
        with pytest.raises(UserInputError, match=r"over the 20000 limit.*kenning query error"):
            ask(longest + "x" * 20)


def test_recall_json_carries_every_field_of_the_memory(store: MemoryStore) -> None:
    """SPEC §7: json is every field. Recall's results are flat (ruvector's shape), with the
    content cut to the budget; every other field of the memory is there as it is stored."""
    stored = store.remember(
        DB_LOCKED, "error_fix", tags=["db", "ops"], metadata={"owner": "platform"}
    )
    (result,) = store.recall("database is locked").to_dict()["results"]
    memory = store.get(stored.id or "")
    assert memory is not None
    expected = memory.to_dict()
    for key, value in expected.items():
        assert key in result, key
        if key != "content":
            assert result[key] == value, key


def test_the_module_level_remember_creates_no_store_for_a_refused_note(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kenning

    monkeypatch.chdir(project)
    monkeypatch.setenv("KENNING_EMBEDDER", "hashing")
    assert kenning.remember("   ").status == REJECTED
    assert kenning.remember("Deploys on Tuesdays", "rule", tags="release").status == REJECTED  # type: ignore[arg-type]
    assert not (project / ".kenning").exists()
    assert kenning.remember("Deploys on Tuesdays", "rule", tags=["release"]).status == STORED
    assert (project / ".kenning" / "memory.db").is_file()


def test_a_near_duplicate_answer_describes_the_memory_it_names(store: MemoryStore) -> None:
    """The answer pairs its id with that memory's type and collection, not with the type
    the repeated note asked for (a script reading id + type was misled). An edit's answer
    is about the memory edited: its id, collection and type as they stay; the memory it
    repeats is ``existing_id``."""
    first = store.remember("All timestamps are stored in UTC.", "rule")
    again = store.remember("All timestamps are stored in UTC", "decision")
    assert again.status == NEAR_DUPLICATE and again.id == first.id
    assert (again.collection, again.type) == ("conventions", "rule")
    other = store.remember("We deploy on Tuesdays after the freeze.", "decision")
    edited = store.update(other.id or "", content="All timestamps are stored in UTC!")
    assert edited.status == NEAR_DUPLICATE and edited.duplicate_of == first.id
    assert (edited.id, edited.collection, edited.type) == (other.id, "discussions", "decision")


def test_open_store_checks_its_arguments(project: Path) -> None:
    """A library caller's wrong argument is kenning's error naming it, not pathlib's or an
    AttributeError at the first write; a blank path is the default store, not ./memory.db."""
    from kenning.errors import UserInputError

    for kwargs in (
        {"path": 12},
        {"cwd": 3.5},
        {"path": "a\x00b"},
        {"group_id": 123},
        {"embedder": object()},
        {"embedder": "minlm"},  # a misspelt name: said as it opens (qa-s70a F4)
    ):
        arguments: dict[str, object] = {"cwd": project, "embedder": "hashing", **kwargs}
        with pytest.raises(UserInputError, match=next(iter(kwargs))):
            open_store(**arguments)  # type: ignore[arg-type]
    with open_store("   ", cwd=project, embedder="hashing") as store:
        assert store.remember("a note in the default store", "context").ok
        assert Path(store.location) == project / ".kenning" / "memory.db"
    assert sorted(p.name for p in project.iterdir() if not p.name.startswith(".")) == ["README.md"]


def test_the_write_and_read_methods_check_their_arguments(project: Path) -> None:
    """A library caller's wrong argument escaped as AttributeError or TypeError from deep
    inside (a group_id of 42, remember_many of plain strings, recall_many(3), an id where a
    Memory is meant), was read as something else (recent_recalls(0) gave the whole log,
    metadata=0 was no metadata) or blamed the store (update's metadata of a list answered
    dedup-check-failed). Each is kenning's UserInputError naming the argument, or, for the
    note itself, a rejected result."""
    import kenning

    with open_store(cwd=project, embedder="hashing") as store:
        kept = store.remember("The cache is invalidated on every deploy", "rule")
        for wrong in (42, b"team/app", ["team/app"]):
            with pytest.raises(UserInputError, match="a project id must be text"):
                store.remember("A note for a project", "context", group_id=wrong)  # type: ignore[arg-type]
        for items in (["a plain string note"], "a note", [{"content": "x"}], None):
            with pytest.raises(UserInputError, match="NewMemory"):
                store.remember_many(items)  # type: ignore[arg-type]
        for metadata in (["reviewed"], "reviewed", 0, ""):
            refused = store.remember("A note with odd metadata", "context", metadata=metadata)  # type: ignore[arg-type]
            assert refused.status == REJECTED and "metadata must be a JSON object" in (
                refused.reason or ""
            ), refused
            with pytest.raises(UserInputError, match="metadata must be a JSON object"):
                store.update(kept.id or "", content="The cache is flushed", metadata=metadata)  # type: ignore[arg-type]
        with pytest.raises(UserInputError, match="limit"):
            store.recent_recalls(0)
        with pytest.raises(UserInputError, match="recall_many needs a list"):
            store.recall_many(3)  # type: ignore[arg-type]
        with pytest.raises(UserInputError, match="Memory objects"):
            store.freshness([kept.id])  # type: ignore[list-item]
        with pytest.raises(UserInputError, match="Memory objects"):
            store.check_source(kept.id)  # type: ignore[arg-type]
        assert store.count() == 1
    refused = kenning.remember("A note", metadata=["reviewed"], cwd=project)  # type: ignore[arg-type]
    assert refused.status == REJECTED and "metadata" in (refused.reason or ""), refused


def test_kennings_errors_survive_a_process_pool() -> None:
    """An error whose __init__ takes more than its message could not be unpickled: an
    unknown id raised in a ProcessPoolExecutor worker broke the whole pool."""
    import pickle

    from kenning.errors import CredentialOnlyContent, UnknownMemoryError
    from kenning.safety import UnsafePathError
    from kenning.sources import MissingSourceError, NotADocumentError

    for error in (
        UnknownMemoryError("no memory with id x in this project", "x", None),
        UnsafePathError("../etc/passwd", "it leaves the project"),
        NotADocumentError("docs", "a folder"),
        MissingSourceError("docs/gone.md"),
        CredentialOnlyContent("content is nothing but a credential", {"github_token": 1}),
    ):
        again = pickle.loads(pickle.dumps(error))
        assert type(again) is type(error) and str(again) == str(error), again
        assert again.__dict__ == error.__dict__


def test_a_model_folder_stamped_by_name_alone_is_stamped_again(project: Path) -> None:
    """A store a model folder stamped before stamps carried the weights' hash (its name
    alone) is still that model's: read, and stamped again by the first write. Another name
    is another model, refused as before."""
    from dataclasses import replace as changed

    from kenning.embedders import load_embedder
    from kenning.errors import ProvenanceMismatch
    from kenning.model import Provenance

    class FineTune:  # an embedder plugged in by a library user: a hashing model, renamed
        def __init__(self, name: str) -> None:
            self.inner = load_embedder("hashing")
            self.provenance = changed(
                self.inner.provenance, model_id=f"{name}@sha256:4dc1f321de878baf"
            )
            self.dimension = self.inner.dimension

        def embed(self, texts: list[str]) -> np.ndarray:
            return self.inner.embed(texts)

    minilm_id = "sentence-transformers/all-MiniLM-L6-v2"
    for name, tuned, accepted in (
        ("acme/minilm-ft", FineTune("acme/minilm-ft"), True),
        ("acme/other-model", FineTune("acme/minilm-ft"), False),
        # a fine-tune that kept MiniLM's name: the canonical stamp meant the packaged weights
        (minilm_id, FineTune(minilm_id), False),
    ):
        path = project / ".kenning" / f"{name.replace('/', '-')}.db"
        with open_store(path, cwd=project, embedder="hashing") as store:
            store.remember("Deploys happen on Tuesdays only", "rule")
            store.backend.write_provenance(
                Provenance(**{**store.backend.read_provenance().__dict__, "model_id": name})
            )
        with open_store(path, cwd=project, embedder=tuned) as store:  # type: ignore[arg-type]
            if not accepted:
                with pytest.raises(ProvenanceMismatch):
                    store.remember("Releases are tagged on main", "rule")
                continue
            assert store.search("Deploys happen on Tuesdays only", threshold=0.0).results
            assert store.remember("Releases are tagged on main", "rule").ok
            assert store.backend.read_provenance() == tuned.provenance


_FORK_AFTER_USE = """
import os, sys
from kenning import open_store
store = open_store(cwd=sys.argv[1], embedder="hashing")
store.remember("Deploys happen on Tuesdays only", "rule")
store.recall("which day do we deploy")  # the lexical worker thread exists now
pid = os.fork()
if pid == 0:  # the child: its own worker thread and its own connection
    ok = store.remember("Releases are tagged on main", "rule").ok
    store.recall("which day do we deploy")
    os._exit(0 if ok and store.count() == 2 else 3)
_, status = os.waitpid(pid, 0)
store.recall("which day do we deploy")  # the parent's store still works
print(os.waitstatus_to_exitcode(status), store.count())
"""


def test_a_store_used_before_fork_works_in_the_child(project: Path) -> None:
    """A process that forks after using a store (a worker pool, a pre-fork server): the
    child's recall once waited for ever on the parent's worker thread, which it has not."""
    done = run_python(_FORK_AFTER_USE, str(project))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "2"], (done.stdout, done.stderr)


def test_close_while_other_threads_use_the_store(project: Path) -> None:
    """Calls racing a close() from another thread end with StoreClosed, nothing else, and
    no kenning thread outlives the close."""
    import threading

    from kenning.errors import StoreClosed

    store = open_store(cwd=project, embedder="hashing")
    store.remember("Deploys happen on Tuesdays only", "rule")
    failures: list[BaseException] = []
    go = threading.Event()

    def busy(i: int) -> None:
        go.wait()
        for n in range(200):
            try:
                if n % 3 == 0:
                    store.recall("which day do we deploy")
                elif n % 3 == 1:
                    store.search("deploy day", threshold=0.0)
                else:
                    store.remember(f"note {i}-{n} about deploys", "context")
            except StoreClosed:
                return
            except BaseException as exc:  # anything but StoreClosed is the failure
                failures.append(exc)
                return

    threads = [threading.Thread(target=busy, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    go.set()
    store.close()
    for t in threads:
        t.join(timeout=120)
    assert failures == [], [repr(f) for f in failures]
    assert not [t for t in threading.enumerate() if t.name.startswith("kenning-lexical")]


def test_public_calls_name_a_wrong_argument_in_kennings_error(project: Path) -> None:
    """What a library caller can get wrong is a UserInputError naming it — not a TypeError
    from deep inside, nor a silent surprise (keep=-1 once kept four of three)."""
    from datetime import UTC, datetime

    from kenning.errors import KenningError, UserInputError

    with open_store(cwd=project, embedder="hashing") as store:
        store.remember("Deploys happen on Tuesdays only", "rule")
        calls = {
            "memory type": lambda: store.search("deploy", memory_type=5),  # type: ignore[arg-type]
            "intent": lambda: store.search("deploy", intent=5),  # type: ignore[arg-type]
            "keep": lambda: store.recall("deploy day", keep=-1),
            "budget": lambda: store.recall("deploy day", budget=None),  # type: ignore[arg-type]
            "errors": lambda: store.recall("deploy day", errors="no"),  # type: ignore[arg-type]
            "limit": lambda: store.newest(1.5),  # type: ignore[arg-type]
            "ISO 8601": lambda: store.browse(stored_after="garbage"),  # type: ignore[arg-type]
            "memory id": lambda: store.mark_reviewed("\ud800"),
        }
        for needle, call in calls.items():
            with pytest.raises(UserInputError, match=needle):
                call()
        with pytest.raises(KenningError, match="ISO 8601"):
            store.mark_reviewed(store.newest(1)[0].id, now="yesterday")  # type: ignore[arg-type]
        assert store.newest(1)[0].stored_at <= datetime.now(UTC)


def test_a_time_with_no_utc_time_is_a_rejected_note(project: Path) -> None:
    """1 January of year 1 at +05:00 is 31 December of year 0 in UTC, which Python cannot
    hold: remember raised a bare OverflowError (a traceback) where it answers every bad note
    with ``rejected`` and the reason, and stored nothing."""
    from datetime import datetime, timedelta, timezone

    early = datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5)))
    with open_store(cwd=project, embedder="hashing") as store:
        for when in (early, early.isoformat()):
            result = store.remember("Deploys happen on Tuesdays only", "rule", stored_at=when)  # type: ignore[arg-type]
            assert result.status == "rejected", result
            assert "0001-01-01T00:00:00+05:00" in (result.reason or ""), result.reason
        assert store.count() == 0


def test_a_given_id_another_memory_has_is_a_rejected_note(project: Path) -> None:
    """remember_many with a note's own id (NewMemory.id, as another tool's notes carry
    them): an id the store already gives another memory answered ``near-duplicate`` of
    that memory (``ok``), and the note was lost. It is rejected, naming the memory that
    holds the id; the same memory brought again is still a duplicate."""
    from kenning.store import NewMemory

    with open_store(cwd=project, embedder="hashing") as store:
        first = NewMemory("Deploys happen on Tuesdays only", "rule", id="mem_1")
        (stored,) = store.remember_many([first])
        assert stored.status == "stored"
        (other,) = store.remember_many([NewMemory("Hotfixes need two reviews", "rule", id="mem_1")])
        assert other.status == "rejected" and not other.ok, other
        assert "mem_1" in (other.reason or ""), other.reason
        (again,) = store.remember_many([replace(first, stored_at=store.get("mem_1").stored_at)])  # type: ignore[union-attr]
        assert again.status == "near-duplicate" and again.id == "mem_1"
        assert [m.content for m in store.browse()] == ["Deploys happen on Tuesdays only"]


def test_remember_into_every_project_is_refused(project: Path) -> None:
    """``group_id="all"`` means every project to the reads; given to remember it stored the
    note in the store's own project without a word (the CLI and api.remember refuse it)."""
    from kenning.errors import UserInputError

    with open_store(cwd=project, embedder="hashing") as store:
        for group_id in ("all", " ALL "):
            with pytest.raises(UserInputError, match="every project"):
                store.remember("Deploys happen on Tuesdays only", "rule", group_id=group_id)
        assert store.count(group_id="all") == 0


_FORK_WHILE_A_THREAD_READS = """
import os, signal, sys, threading
from kenning import open_store
from kenning.store import NewMemory
store = open_store(cwd=sys.argv[1], embedder="hashing")
store.remember_many([NewMemory(f"note {i} on the deploy calendar", "context") for i in range(100)])
stop = threading.Event()
def read():
    while not stop.is_set():
        store.browse()  # holds the store's lock while it reads
reader = threading.Thread(target=read)
reader.start()
codes = []
# 4 forks of a store of 100 notes: with the children's locks not replaced, each of them
# was stuck (a browse of 100 rows holds the lock nearly all the time)
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        signal.alarm(20)  # a child stuck on the parent's lock dies of it (exit code -14)
        os._exit(0 if store.count() == 100 and store.recall("deploy calendar") else 3)
    codes.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
stop.set()
reader.join()
print(codes)
"""


def test_a_fork_while_another_thread_holds_the_store_lock(project: Path) -> None:
    """The child has only the forking thread: a lock another thread held at the fork would
    stay held for ever there. The child's store gets locks of its own."""
    done = run_python(_FORK_WHILE_A_THREAD_READS, str(project), timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str([0] * 4), (done.stdout, done.stderr[-2000:])


def test_a_new_store_has_pages_a_row_with_its_vector_fits_in_and_an_old_one_keeps_its_own(
    project: Path, minilm: Embedder, tmp_path: Path
) -> None:
    """A row holds a 1.5 KB vector besides its text: in 4 KB pages most rows filled one page
    alone and left the rest empty (4.5 KB per memory on disk instead of 2.8)."""
    from kenning.backends.sqlite import PAGE_SIZE, SQLiteBackend

    with open_store(cwd=project, embedder=minilm) as store:
        assert store.remember("Pages hold several rows now.", "context").status == STORED
        db = Path(store.backend.location)
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA page_size").fetchone()[0] == PAGE_SIZE == 16384
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    # a store created with SQLite's default pages is read and written as it is
    old = tmp_path / "old" / "memory.db"
    old.parent.mkdir()
    conn = sqlite3.connect(old)
    conn.execute("PRAGMA page_size = 4096")
    conn.execute("CREATE TABLE placeholder (x)")  # the page size is fixed from here on
    conn.execute("DROP TABLE placeholder")
    conn.close()
    backend = SQLiteBackend(old, dimension=minilm.dimension)
    backend.close()
    conn = sqlite3.connect(old)
    assert conn.execute("PRAGMA page_size").fetchone()[0] == 4096
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


def test_recall_many_says_what_a_query_pair_is(store: MemoryStore) -> None:
    from kenning.errors import UserInputError

    for bad in ([], ["KeyError: 'user'"], [("KeyError: 'user'", True, 3)], "KeyError"):
        with pytest.raises(UserInputError):
            store.recall_many(bad)  # type: ignore[arg-type]
    assert store.recall_many([("KeyError: 'user'", True), ("naming rules", None)]).hits == ()


def test_fallbacks_compete_for_the_slots_after_the_queries_best_hit(store: MemoryStore) -> None:
    """recall_many's fallbacks (a log's warnings' errors): the queries' best hit keeps the
    first place; the fallbacks' hits, each an exact match of its error or as close as a note
    must be to any query, compete with the queries' other hits for the places after it
    (qa-s62 F1: the crash query's loose matches of other errors filled them and the cause's
    exact fix was never asked); a fallback that finds nothing changes nothing."""
    from kenning.errors import UserInputError

    crash = "RuntimeError: database not ready after 3 attempts"
    cause = "psycopg.OperationalError: connection refused"
    for content in (
        f"ERROR-FIX: {crash} | FIX: raise DB_WAIT_ATTEMPTS in .env",
        f"ERROR-FIX: {cause} | FIX: start the db container: docker compose up -d db",
    ):
        assert store.remember(content, "error_fix").ok
    result = store.recall_many([(crash, True)], fallbacks=[(cause, True)])
    texts = [h.memory.content for h in result.hits]
    assert len(texts) == 2 and "DB_WAIT_ATTEMPTS" in texts[0] and "docker" in texts[1], texts
    assert result.hits[1].score >= 0.95 and result.hits[1].match == "fingerprint", result.hits
    assert result.is_error and result.query == crash
    # one place: the queries' best hit's
    alone = store.recall_many([(crash, True)], keep=1, fallbacks=[(cause, True)])
    assert [h.memory.content for h in alone.hits] == texts[:1]
    # asked as a query, the cause's own fix leads: the order is the caller's
    swapped = store.recall_many([(cause, True)], fallbacks=[(crash, True)])
    assert [h.memory.content for h in swapped.hits] == texts[::-1]
    # a fallback that is also a query is the query's
    both = store.recall_many([(crash, True), (cause, True)], fallbacks=[(crash, True)])
    assert sorted(h.memory.content for h in both.hits) == sorted(texts)
    # the crash query's loose matches of other errors give way to the cause's exact fix
    for other in (
        "ERROR-FIX: asyncpg.exceptions.CannotConnectNowError: the database system is "
        "starting up | FIX: wait for the db's healthcheck (depends_on: service_healthy)",
        "ERROR-FIX: psycopg2.OperationalError: FATAL: the database system is starting up | "
        "FIX: wait for pg_isready before the migrations",
    ):
        assert store.remember(other, "error_fix").ok
    crowded = store.recall_many([(crash, True)])
    assert len(crowded.hits) == 3 and not any("docker" in h.memory.content for h in crowded.hits)
    given = store.recall_many([(crash, True)], fallbacks=[(cause, True)])
    assert [h.memory.content for h in given.hits][:2] == texts, given.hits
    # a fallback's hit found by a word or two (below the generic floor) is no hit (qa-s62
    # F4: a '.env' warning's error brought this fix at 0.42, held to the error floor)
    django = store.remember(
        "ERROR-FIX: django.core.exceptions.ImproperlyConfigured: cache backend unavailable | "
        "FIX: set CACHE_URL in .env",
        "error_fix",
    )
    assert django.ok, django
    env = "FileNotFoundError: [Errno 2] No such file or directory: '.env'"
    loose = store.recall_many([(env, True)])
    assert [h.memory.id for h in loose.hits] == [django.id], loose  # (0.40 <= score < 0.5)
    assert loose.hits[0].score < store.settings.recall_floor, loose
    words = store.recall_many([("naming rules for the api modules", None)], fallbacks=[(env, True)])
    assert words.hits == () and not words.is_error and words.floor == 0.5, words
    # a bad fallback is named as one
    for bad, said in (
        ("KeyError", "fallbacks is a list"),
        ([("KeyError: 'user'", "yes")], "in a fallback"),
        ([("KeyError: 'user'",)], "each fallback"),
        ([(None, True)], "a fallback: the query must be text"),
        ([(f"E{i}Error: down", True) for i in range(11)], "at most 10"),
    ):
        with pytest.raises(UserInputError, match=said):
            store.recall_many([(crash, True)], fallbacks=bad)  # type: ignore[arg-type]


def test_a_chained_traceback_s_cause_fix_is_recalled_after_the_crash_s(store: MemoryStore) -> None:
    """A Python traceback pasted whole, whose crash (``RuntimeError: could not start the
    app``) was raised ``from`` psycopg2's refused connection: the cause's stored fix was not
    recalled (only the crash's error was asked). It is now, as a fallback: alone it leads,
    and beside the crash's own fix it comes after it. (Also through a prompt's hook:
    tests/test_hooks.py.)"""
    cause = (
        'psycopg2.OperationalError: connection to server at "db" (10.0.0.5), port 5432 '
        "failed: Connection refused"
    )
    fix = f"ERROR-FIX: {cause} | FIX: start the db first: docker compose up -d db | SOURCE: docs/dev.md"
    assert store.remember(fix, "error_fix").ok
    result = store.recall(chained_errors.DIRECT_CAUSE)
    assert result.query == "RuntimeError: could not start the app" and result.is_error
    assert [h.memory.content for h in result.hits] == [fix], result.hits
    assert result.hits[0].match == "fingerprint" and result.hits[0].score >= 0.95
    own = "ERROR-FIX: RuntimeError: could not start the app | FIX: read the cause printed above it"
    assert store.remember(own, "error_fix").ok
    both = store.recall(chained_errors.DIRECT_CAUSE)
    assert [h.memory.content for h in both.hits] == [own, fix], both.hits
    # raise … from None: no cause is printed, none is asked
    assert store.recall(chained_errors.FROM_NONE).hits == ()


def test_a_java_or_node_chain_s_outer_error_fix_is_recalled_after_the_root_s(
    store: MemoryStore,
) -> None:
    """Java's last ``Caused by:``, Node's innermost ``[cause]:`` and .NET's innermost
    `` ---> `` are a chain's signature, and its outer error was never asked: a fix stored for Spring's ``BeanCreationException``
    (its first line, as a developer copies it) or for the app's own outer error was not
    recalled by the trace. It is now, as a fallback: alone it leads, and beside the root's
    own fix it comes after it."""
    bean = (
        "ERROR-FIX: org.springframework.beans.factory.BeanCreationException: Error creating "
        "bean with name 'database' defined in demo.App: Bean instantiation via factory "
        "method failed | FIX: the database bean needs DB_URL set; see docs/dev.md"
    )
    assert store.remember(bean, "error_fix").ok
    result = store.recall(chained_errors.SPRING_CAUSES)
    assert result.query == "Caused by: java.net.ConnectException: Connection refused"
    assert [h.memory.content for h in result.hits] == [bean], result.hits
    root = (
        "ERROR-FIX: java.net.ConnectException: Connection refused | FIX: start the database: "
        "docker compose up -d db"
    )
    assert store.remember(root, "error_fix").ok
    both = store.recall(chained_errors.SPRING_CAUSES)
    assert [h.memory.content for h in both.hits] == [root, bean], both.hits
    assert both.hits[0].match == "fingerprint", both.hits
    # Node: the app's own outer error, under fs's ENOENT
    own = (
        "ERROR-FIX: app.js: Error: could not start the app | FIX: copy config.example.json "
        "to /etc/app/config.json first"
    )
    assert store.remember(own, "error_fix").ok
    node = store.recall(chained_errors.NODE_OWN_CAUSES)
    assert node.query.startswith("Error: ENOENT: no such file or directory")
    assert [h.memory.content for h in node.hits][:1] == [own], node.hits
    # .NET: the app's outer exception over its ConfigException over the missing directory,
    # as .NET Core and Mono print it
    app = (
        "ERROR-FIX: System.ApplicationException: the app could not start | FIX: run "
        "deploy/make-config.sh before the first start"
    )
    assert store.remember(app, "error_fix").ok
    for printed in (chained_errors.DOTNET_CAUSES, chained_errors.MONO_CAUSES):
        dotnet = store.recall(printed)
        assert dotnet.query.startswith("System.IO.DirectoryNotFoundException: Could not find")
        assert [h.memory.content for h in dotnet.hits][:1] == [app], dotnet.hits
        assert dotnet.hits[0].match == "fingerprint", dotnet.hits


def test_a_cause_s_exact_fix_the_crash_finds_loosely_is_held_by_its_exact_match(
    store: MemoryStore,
) -> None:
    """qa72 F1, F2: the crash's words ("could not start the app") are close to the cause's
    fix, so the crash query found it loosely (0.64, hybrid) and the fallback's exact match
    of the cause (1.00) was dropped as already found; another error's fix, a loose match of
    the crash (0.72), then came first. A memory a fallback matches exactly is held by that
    match, and a loose lead competes with a fallback's exact match; an exact lead (the
    crash's own fix, the test above) keeps its place."""
    fix = (
        "ERROR-FIX: psycopg2.OperationalError: could not connect to server: Connection "
        "refused | FIX: start postgres with docker compose up db before the app"
    )
    assert store.remember(fix, "error_fix").ok
    alone = store.recall(chained_errors.DIRECT_CAUSE)
    assert [h.memory.content for h in alone.hits] == [fix], alone.hits
    assert alone.hits[0].match == "fingerprint" and alone.hits[0].score >= 0.95, alone.hits
    other = (
        "ERROR-FIX: RuntimeError: could not start the scheduler thread | FIX: raise ulimit "
        "-u for the worker user"
    )
    assert store.remember(other, "error_fix").ok
    both = store.recall(chained_errors.DIRECT_CAUSE)
    assert [h.memory.content for h in both.hits][:1] == [fix], both.hits
    assert both.hits[0].match == "fingerprint", both.hits


#: rustc's explanation of E0463 (``rustc --explain E0463``, its first sections), and one of
#: yellow's ERROR-FIX entries (../shared/eval): loose matches of a chain's causes
E0463_EXPLANATION = (
    "A crate was declared but cannot be found.\nA crate was declared but cannot be found.\n\n"
    "Erroneous code example:\n\n```\nextern crate foo; // error: can't find crate\n```\n\n"
    "You need to link your code to the relevant crate in order to be able to use it\n(through "
    "Cargo or the `-L` option of rustc, for example).\n\n## Common causes\n\n- The crate is "
    "not present at all. If using Cargo, add it to `[dependencies]`\n  in Cargo.toml.\n- The "
    "crate is present, but under a different name. If using Cargo, look for\n  `package = ` "
    "under `[dependencies]` in Cargo.toml."
)
CODEX_FLAGS_FIX = (
    "ERROR-FIX: error: unexpected argument '-a' found | FIX: Replace `-a`/`-s` with `-c "
    "key=value` config overrides scoped to the subcommand, on every Codex invocation site: "
    '```bash # exec review (read-only, ephemeral) codex exec review \\ --base "$BASE_REF" '
    "\\ -c 'approval_policy=\"never\"' \\ -c 'sandbox_mode=\"read-only\"' \\ -c "
    "'mcp_servers={}' \\ --ephemeral \\ --json \\ -m \"${CODEX_MODEL:-gpt-5.4}\" \\ -o "
    '"$OUTPUT_FILE" ``` | SOURCE: docs/solutions/integration-issues/codex-cli-exec-review-'
    "flags-rejected-0140.md — codex exec/exec review reject -a/-s flags on codex-cli 0.140.0, "
    "exit 2 misreads as auth"
)


def test_a_fallback_s_loose_hit_needs_the_fallback_floor(store: MemoryStore) -> None:
    """A chain's causes, asked as fallbacks, pulled notes about other things at the generic
    floor (0.5): cargo's context ``failed to read `…/Cargo.toml``` rustc's E0463 explanation
    (a crate not found, 0.65), Node's middle cause ``Error: could not read the config`` a
    codex CLI fix (0.59). A fallback's hit that is no exact match of its error needs
    FALLBACK_LOOSE_FLOOR (0.70); a note about the cause in its error's words is still given
    after the crash's hits (0.99), and the crash's own queries' hits are unchanged."""
    from kenning.search import FALLBACK_LOOSE_FLOOR

    assert store.remember(E0463_EXPLANATION, "error_fix").ok
    assert store.remember(CODEX_FLAGS_FIX, "error_fix").ok
    for chained in (chained_errors.CARGO_CAUSES, chained_errors.NODE_OWN_CAUSES):
        queries, fallbacks = error_recall_queries(chained)
        assert fallbacks, chained
        lead = store.recall_many(queries)
        given = store.recall_many(queries, fallbacks=fallbacks)
        assert given.hits == lead.hits, (given.hits, lead.hits)
        # (each note is a loose hit of a fallback, between the two floors)
        loose = [hit for fallback in fallbacks for hit in store.recall_many([fallback]).hits]
        assert any(h.score >= store.settings.recall_floor for h in loose), loose
        assert all(h.match != "fingerprint" and h.score < FALLBACK_LOOSE_FLOOR for h in loose)
    cause = (
        "psycopg2.OperationalError: connection to server at db, port 5432 failed: Connection "
        "refused means the db container is down; start it with docker compose up -d db"
    )
    assert store.remember(cause, "context").ok
    result = store.recall(chained_errors.DIRECT_CAUSE)
    assert result.query == "RuntimeError: could not start the app", result
    assert [h.memory.content for h in result.hits][-1:] == [cause], result.hits
    assert result.hits[-1].match == "hybrid" and result.hits[-1].score >= 0.95, result.hits


DOTNET_CONFIG_FIX = (
    "ERROR-FIX: System.IO.DirectoryNotFoundException: Could not find a part of the path "
    "'/etc/app/config.json'. | FIX: mkdir -p /etc/app and copy config.json there"
)
CODEX_AUTH_FIX = (
    "ERROR-FIX: authentication failed. Run /codex:setup. | FIX: Replace `-a`/`-s` with `-c "
    "key=value` config overrides scoped to the subcommand: codex-cli 0.140.0 rejects them, "
    "exit 2 misreads as auth"
)


def test_a_fallback_that_names_no_error_gives_no_fix_of_a_named_one(store: MemoryStore) -> None:
    """qa74 F1: Node's outer ``Error: could not load the config`` (a bare Error with the app's
    words), asked as a fallback, gave a .NET DirectoryNotFoundException's fix at 0.84, above
    the fallback floor and the chain's own hits. A fallback that names no specific class
    gives an ERROR-FIX entry of a named exception only as an exact match; a loose hit whose
    entry names none either is still given (yellow's real ``[yellow-codex] Error:
    authentication failed`` line finds its entry at 0.78), and the lead's hits are
    unchanged."""
    refused = "ERROR-FIX: java.net.ConnectException: Connection refused | FIX: start the db first"
    for note in (DOTNET_CONFIG_FIX, refused, CODEX_AUTH_FIX):
        assert store.remember(note, "error_fix").ok
    queries, fallbacks = error_recall_queries(chained_errors.NODE_CAUSES)
    assert ("Error: could not load the config", True) in fallbacks, fallbacks
    lead = store.recall_many(queries)
    given = store.recall_many(queries, fallbacks=fallbacks)
    assert DOTNET_CONFIG_FIX not in [h.memory.content for h in given.hits], given.hits
    assert given.hits == lead.hits, (given.hits, lead.hits)
    # (asked alone, as a lead, the outer error still finds it loosely)
    alone = store.recall_many([("Error: could not load the config", True)])
    assert [h.memory.content for h in alone.hits][:1] == [DOTNET_CONFIG_FIX], alone.hits
    codex = "[yellow-codex] Error: authentication failed. Run /codex:setup."
    result = store.recall_many([("pnpm test exited 1", True)], fallbacks=[(codex, True)])
    assert [(h.memory.content, h.match) for h in result.hits][-1:] == [
        (CODEX_AUTH_FIX, "hybrid")
    ], result.hits


#: The browser's fetch error (CORS), another TypeError, and fixes of what Node's fetch failed of
BROWSER_FETCH_FIX = (
    "ERROR-FIX: TypeError: Failed to fetch | FIX: the browser blocked the request by CORS: add "
    "the web origin to CORS_ORIGINS in api/.env"
)
UNDEFINED_URL_FIX = (
    "ERROR-FIX: TypeError: Cannot read properties of undefined (reading 'url') | FIX: "
    "config.api is undefined until loadConfig() resolves: await it before creating the client"
)
NODE_FETCH_FIXES = (
    "ERROR-FIX: Error: connect ECONNREFUSED 127.0.0.1:3000 | FIX: the API server is not "
    "running: start it with npm run dev:api before the web app",
    "ERROR-FIX: Error: getaddrinfo ENOTFOUND api.internal.acme.dev | FIX: the host only "
    "resolves on the VPN: connect to it or set API_URL=http://localhost:3000",
    "ERROR-FIX: Error: self-signed certificate | FIX: point NODE_EXTRA_CA_CERTS at "
    "certs/dev-ca.pem; never set NODE_TLS_REJECT_UNAUTHORIZED=0",
)

#: node-fetch's refused request: another class (FetchError) of the same code
NODE_FETCH_FETCHERROR_FIX = (
    "ERROR-FIX: FetchError: request to http://localhost:3000/api failed, reason: connect "
    "ECONNREFUSED 127.0.0.1:3000 | FIX: node-fetch in the SSR server: start the API first"
)


@pytest.mark.parametrize(
    "output",
    [
        chained_errors.NODE_FETCH_REFUSED,
        chained_errors.NODE_FETCH_NOT_FOUND,
        chained_errors.NODE_FETCH_CERT,
        chained_errors.NODE_FETCH_LOGGED,
        chained_errors.NODE_CAUSES,
    ],
    ids=["refused", "not-found", "cert", "logged", "wrapped"],
)
def test_fetch_failed_names_no_error_of_its_own(store: MemoryStore, output: str) -> None:
    """Node's fetch throws ``TypeError: fetch failed`` for every network failure, the real
    one its ``[cause]``: asked as a fallback (Node 20's real outputs), the wrapper found the
    browser's ``TypeError: Failed to fetch`` (a CORS fix) at 0.90, above the fallback floor,
    in every one of them. It names no error of its own, as a bare ``Error:`` does: the cause
    leads, and the wrapper gives another class's fix only as an exact match."""
    for note in (BROWSER_FETCH_FIX, UNDEFINED_URL_FIX, *NODE_FETCH_FIXES):
        assert store.remember(note, "error_fix").ok
    queries, fallbacks = error_recall_queries(output)
    assert queries[0][0].startswith("Error: "), queries  # (the cause leads)
    assert any(f.endswith("TypeError: fetch failed") for f, _ in fallbacks), fallbacks
    lead = store.recall_many(queries)
    given = store.recall_many(queries, fallbacks=fallbacks)
    assert BROWSER_FETCH_FIX not in [h.memory.content for h in given.hits], given.hits
    assert given.hits == lead.hits, (given.hits, lead.hits)


@pytest.mark.parametrize(
    "error",
    [
        "Error: getaddrinfo ENOTFOUND api.example.com",
        "Error: read ECONNRESET",
        "Error: spawn git ENOENT",
    ],
)
def test_a_node_system_error_gives_no_fix_of_another_named_error(
    store: MemoryStore, error: str
) -> None:
    """Node's system error code names the error as a class does: with no fix of its own
    stored, ``getaddrinfo ENOTFOUND`` and ``read ECONNRESET`` found a TypeError's fix
    (0.42-0.43 on the eval store, above the 0.40 error floor) and ``spawn git ENOENT`` a
    FileNotFoundError's (0.46); another named exception's fix is held to the generic floor,
    and the same code's fix raised as another class is still found loosely."""
    wrong = (
        UNDEFINED_URL_FIX,
        "ERROR-FIX: TypeError: Cannot read properties of undefined (reading 'map') | FIX: the "
        "list is undefined until the request resolves: default it to [] before rendering",
        "ERROR-FIX: FileNotFoundError: [Errno 2] No such file or directory: "
        "'config/settings.yaml' | FIX: run from the repo root or set APP_CONFIG",
    )
    for note in (*wrong, NODE_FETCH_FIXES[0], NODE_FETCH_FETCHERROR_FIX):
        assert store.remember(note, "error_fix").ok
    queries, fallbacks = error_recall_queries(error)
    given = [h.memory.content for h in store.recall_many(queries, fallbacks=fallbacks).hits]
    assert not set(wrong) & set(given), given
    refused = store.recall_many([("Error: connect ECONNREFUSED 127.0.0.1:5432", True)]).hits
    assert NODE_FETCH_FETCHERROR_FIX in [h.memory.content for h in refused], refused


def test_a_fix_stored_for_fetch_failed_is_its_exact_match(store: MemoryStore) -> None:
    """A fix stored under the wrapper itself is still given by its fallback (its exact
    match), and another TypeError's fallback still gives a TypeError's fix loosely."""
    own = "ERROR-FIX: TypeError: fetch failed | FIX: the API is down: npm run dev:api"
    for note in (BROWSER_FETCH_FIX, UNDEFINED_URL_FIX, own):
        assert store.remember(note, "error_fix").ok
    queries, fallbacks = error_recall_queries(chained_errors.NODE_FETCH_NOT_FOUND)
    given = store.recall_many(queries, fallbacks=fallbacks)
    assert [(h.memory.content, h.match) for h in given.hits if h.memory.content == own] == [
        (own, "fingerprint")
    ], given.hits
    assert BROWSER_FETCH_FIX not in [h.memory.content for h in given.hits], given.hits
    other = "TypeError: Cannot read properties of undefined (reading 'uri')"
    result = store.recall_many([("pnpm test exited 1", True)], fallbacks=[(other, True)])
    assert UNDEFINED_URL_FIX in [h.memory.content for h in result.hits], result.hits


def test_a_fallback_s_hit_past_the_budget_cuts_nothing(store: MemoryStore) -> None:
    """qa-s62 F6: a fallback's hit that did not fit the 800 characters was left out, and the
    recall said it was cut ("truncated to 800 characters") though the fix it gave was whole."""
    crash = "RuntimeError: database not ready after 3 attempts"
    cause = "psycopg.OperationalError: connection refused"
    fix = " ".join(["raise DB_WAIT_ATTEMPTS in .env when the db starts slowly;"] * 12)
    assert store.remember(f"ERROR-FIX: {crash} | FIX: {fix}", "error_fix").ok
    assert store.remember(f"ERROR-FIX: {cause} | FIX: docker compose up -d db", "error_fix").ok
    result = store.recall_many([(crash, True)], fallbacks=[(cause, True)])
    assert len(result.hits) == 1 and not result.truncated, result
    assert result.texts[0] == result.hits[0].memory.content


def test_metadata_that_is_not_utf8_is_named_as_such(store: MemoryStore) -> None:
    """A lone surrogate in metadata (``"\\ud800"`` in an import line or an MCP call's JSON,
    or bad bytes decoded by the CLI) was refused as "metadata must be a JSON object: 'utf-8'
    codec can't encode character…": it is one, and the message named neither the problem nor
    the fix."""
    result = store.remember("A note with broken metadata.", "context", metadata={"k": "v\ud800"})
    message = result.reason or ""
    assert (
        result.status == "rejected" and "not valid UTF-8" in message and "re-encode" in message
    ), message
    assert "JSON object" not in message and "codec" not in message, message
    assert store.count() == 0


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (
            "lone \ud800 surrogate",
            "content holds a lone UTF-16 surrogate (\\ud800, an escape written without its "
            "pair), which is not Unicode text; remove it, or write the character itself",
        ),
        (
            "bad byte \udce9 here",
            "content is not valid UTF-8 (it contains undecodable bytes, or a lone surrogate "
            "escape \\udce9); re-encode it as UTF-8, or remove the escape",
        ),
    ],
    ids=["json-escape", "undecodable-byte"],
)
def test_content_with_a_lone_surrogate_says_which_kind(
    store: MemoryStore, content: str, said: str
) -> None:
    """A lone surrogate arrives two ways: Python decodes an undecodable byte (a CLI argument,
    a file) to U+DC80-U+DCFF, and an import line or an MCP call's JSON can escape any one
    ("\\ud800"). Both were "not valid UTF-8 (it contains undecodable bytes); re-encode it as
    UTF-8": for an escape in an ASCII file, a fix that changes nothing."""
    result = store.remember(content, "context")
    assert result.status == "rejected" and result.reason == said, result
    assert store.count() == 0
