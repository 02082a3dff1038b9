"""The hybrid score's parts (issue 12, item 4): the bend that keeps a fused score on the
cosine scale without ties at the top, and BM25 normalised against a fixed length; then a
query that the previous rule answered wrongly, through the public API."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from kenning import MemoryStore
from kenning.fingerprints import error_fingerprint
from kenning.lexical import (
    BM25_B,
    bm25,
    saturated_bm25,
    term_counts,
    term_counts_and_length,
    terms,
    tokens,
)
from kenning.model import Memory, content_hash
from kenning.search import (
    ANOTHER_CODE_SCORE,
    FINGERPRINT_SCORE,
    LEXICAL_REFERENCE_LENGTH,
    LEXICAL_WEIGHT,
    SCORE_KNEE,
    Candidate,
    LexicalEvidence,
    another_code_or_name,
    another_error_than_told,
    another_tests_failure,
    fused_score,
    held_for,
    hybrid_candidates,
    lexical_idfs,
    memory_bm25,
    names_another_exception,
    onto_cosine_scale,
)
from kenning.signatures import extract_error_signature
from kenning.store import NewMemory
from kenning.vectors import vector_problem

from .case_table import each_case
from .conftest import needs_eval
from .test_errorfix import BARE_NAME_DIFFERENT

RUFF = Path(__file__).resolve().parents[2] / "shared" / "eval" / "ruff-rules" / "corpus.jsonl"


@each_case("total", [-1.0, -0.3, 0.0, 0.4, 0.5, 0.75, SCORE_KNEE])
def test_scores_up_to_the_knee_are_unchanged(total: float) -> None:
    assert onto_cosine_scale(total) == total


def test_scores_past_the_knee_bend_below_one_and_keep_their_order() -> None:
    totals = [SCORE_KNEE + i * 0.01 for i in range(1, int(100 * (1 + LEXICAL_WEIGHT)))]
    bent = [onto_cosine_scale(t) for t in totals]
    assert all(SCORE_KNEE < b < 1.0 for b in bent)
    assert all(a < b for a, b in pairwise(bent))
    # it never moves a score by more than its sum moved (stable scores stay stable)
    assert all(b - a <= 0.01 + 1e-12 for a, b in pairwise(bent))
    # continuous at the knee
    assert onto_cosine_scale(SCORE_KNEE + 1e-9) == pytest.approx(SCORE_KNEE, abs=1e-8)


def test_memory_bm25_normalises_length_against_the_fixed_reference() -> None:
    idfs = {"redis": 2.5, "timeout": 1.5}
    counts = {"redis": 1, "timeout": 1}
    at_reference = memory_bm25(counts, idfs, int(LEXICAL_REFERENCE_LENGTH))
    # at the reference length, length normalisation is neutral
    assert at_reference == pytest.approx(saturated_bm25(counts, idfs))
    # the same words in a shorter memory count for more, in a longer one for less
    assert memory_bm25(counts, idfs, 20) > at_reference > memory_bm25(counts, idfs, 400)
    assert memory_bm25(counts, idfs, 400) == pytest.approx(
        bm25(counts, idfs, 400, LEXICAL_REFERENCE_LENGTH)
    )
    assert BM25_B == 0.75  # FTS5's b, kept: only the reference length was fitted
    assert memory_bm25({"other": 3}, idfs, 10) == 0.0


def test_term_counts_and_length_count_each_token_once() -> None:
    text = "Café crème: the café is closed"
    counts, length = term_counts_and_length(text)
    assert length == len(tokens(text)) == 6
    assert counts == term_counts(text)
    assert counts["cafe"] == 2 and counts["café"] == 2  # both forms a backend may index
    assert term_counts_and_length("") == ({}, 0)


@needs_eval(RUFF)
def test_a_match_past_one_is_not_left_to_a_tie(store: MemoryStore) -> None:
    """Ruff's sys.version rules are near-identical; the diagnostic names the one it is
    about. Three of them summed past 1 (cosine + bonus): cut at 1.00 they tied and the
    newest won; bent, the right one is first."""
    docs = [json.loads(line) for line in RUFF.read_text().splitlines() if line.strip()]
    rules = [d for d in docs if d["_id"].startswith("YTT")]
    assert len(rules) == 10
    store.remember_many([NewMemory(d["text"], "error_fix", id=d["_id"]) for d in rules])
    query = "`sys.version[2]` referenced (python3.10), use `sys.version_info`"
    results = store.search(query, limit=3).results
    assert [r.memory.id for r in results][:1] == ["YTT102"]
    scores = [r.semantic for r in results]
    assert scores[0] < 1.0 and scores == sorted(set(scores), reverse=True)


#: Two ruff diagnostics whose rule the unnormalised BM25 missed: a longer doc holding the
#: query's words (more often) outranked the short one about them. Each store is the query's
#: top 12 in the whole ruff corpus (measured with bench/fusion_grid.py's candidates).
LENGTH_CASES = [
    (
        "Not enough arguments for `logging` format string",
        "PLE1206",
        "G001 G002 G003 G004 G101 LOG002 LOG009 LOG015 PLE1205 PLE1206 PLE1307 RUF065",
    ),
    (
        "Reassigned `self` variable in instance method",
        "PLW0642",
        "ANN101 ARG002 N805 PLE0101 PLE0211 PLR6301 PLW0211 PLW0642 PYI019 RUF012 RUF033 RUF077",
    ),
]


@needs_eval(RUFF)
@pytest.mark.parametrize(("query", "rule", "store_of"), LENGTH_CASES)
def test_a_short_memory_about_the_query_beats_a_long_one_that_mentions_it(
    store: MemoryStore, query: str, rule: str, store_of: str
) -> None:
    docs = {
        d["_id"]: d["text"]
        for d in (json.loads(line) for line in RUFF.read_text().splitlines() if line.strip())
    }
    store.remember_many([NewMemory(docs[i], "error_fix", id=i) for i in store_of.split()])
    assert [r.memory.id for r in store.search(query, limit=3).results][:1] == [rule]
    assert [h.memory.id for h in store.recall(query).hits][:1] == [rule]


# -- the fusion rule itself, on hand-made candidates (no store, no model) -------------------


def _memory(memory_id: str, content: str) -> Memory:
    return Memory(
        memory_id, content, "code-patterns", "implementation", "g", _WHEN, content_hash(content)
    )


def _unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


_WHEN = datetime(2026, 1, 1, tzinfo=UTC)


def _evidence(
    query: str,
    hits: list[tuple[Memory, float]],
    vectors: dict[str, np.ndarray],
    fingerprint_matches: tuple[Memory, ...] = (),
) -> LexicalEvidence:
    counted = {m.id: term_counts_and_length(m.content) for m, _ in hits}
    idfs = lexical_idfs(1000, dict.fromkeys(terms(query), 10))
    return LexicalEvidence(hits, vectors, fingerprint_matches, counted, idfs)


def test_hybrid_candidates_fuse_each_side_and_score_a_lexical_hit_by_its_vector() -> None:
    query_vector = _unit(1, 0, 0)
    dense_only = _memory("a", "nothing in common with the question")
    both = _memory("b", "sqlite locking: retry on busy")
    lexical_only = _memory("c", "sqlite locking")
    query = "sqlite locking"
    evidence = _evidence(
        query, [(both, 7.0), (lexical_only, 5.0)], {"c": _unit(0.6, 0.8, 0), "b": _unit(1, 1, 0)}
    )
    ranked, skipped = hybrid_candidates(
        query, query_vector, [(dense_only, 0.7), (both, 0.5)], evidence
    )
    assert skipped == []
    by_id = {c.memory.id: c for c in ranked}
    assert by_id["a"].match == "dense" and by_id["a"].lexical is None
    assert by_id["a"].semantic == pytest.approx(0.7)  # no query word: no bonus
    assert by_id["b"].match == "hybrid" and by_id["b"].lexical == 7.0
    # the lexical-only hit gets its cosine from its stored vector, plus the bonus
    scores = {}
    for memory in (both, lexical_only):
        counts, length = term_counts_and_length(memory.content)
        scores[memory.id] = memory_bm25(counts, evidence.idfs, length)
    best = max(scores.values())
    assert by_id["c"].semantic == pytest.approx(fused_score(0.6, scores["c"], best, 1.0))
    assert by_id["c"].semantic > 0.6 and by_id["b"].semantic > 0.5
    assert [c.semantic for c in ranked] == sorted((c.semantic for c in ranked), reverse=True)


@each_case(
    ("stored", "problem"),
    [
        (np.array([3.0, 4.0, 0.0], dtype=np.float32), "has length 5"),
        (np.array([np.nan, 1.0, 0.0], dtype=np.float32), "NaN"),
        (np.array([1.0, 0.0], dtype=np.float32), "has 2 dimensions, not 3"),
    ],
)
def test_a_lexical_hit_with_an_unusable_vector_is_left_out_and_named(
    stored: np.ndarray, problem: str
) -> None:
    good, bad = _memory("good", "sqlite locking"), _memory("bad", "sqlite locking again")
    evidence = _evidence(
        "sqlite locking", [(bad, 9.0), (good, 8.0)], {"bad": stored, "good": _unit(0, 1, 0)}
    )
    ranked, skipped = hybrid_candidates("sqlite locking", _unit(1, 0, 0), [], evidence)
    assert [c.memory.id for c in ranked] == ["good"]
    assert [memory_id for memory_id, _ in skipped] == ["bad"]
    assert problem in skipped[0][1]


def test_a_servers_lexical_hit_is_scored_by_its_vectors_direction() -> None:
    """qa-team F7: on a server store (pgvector's cosine distance normalises; Qdrant's cosine
    collections do) another writer's vector of length 5 was served by the vector search at
    its direction's cosine, but the lexical side left it out ("has length 5"): with
    ``directions`` a lexical hit scores its direction's cosine, a zero vector 0 (as Qdrant
    scores it: it points nowhere), and only a vector that is no vector (NaN, another
    dimension) is left out and named. Without it (the embedded store) nothing changes: the
    test above."""
    scaled, zero = _memory("scaled", "sqlite locking"), _memory("zero", "sqlite locking too")
    broken = _memory("broken", "sqlite locking again")
    vectors = {
        "scaled": np.array([3.0, 4.0, 0.0], dtype=np.float32),
        "zero": np.zeros(3, dtype=np.float32),
        "broken": np.array([np.nan, 1.0, 0.0], dtype=np.float32),
    }
    evidence = _evidence("sqlite locking", [(scaled, 9.0), (zero, 8.0), (broken, 7.0)], vectors)
    query = _unit(1, 0, 0)
    ranked, skipped = hybrid_candidates("sqlite locking", query, [], evidence, directions=True)
    assert [i for i, _ in skipped] == ["broken"] and "NaN" in skipped[0][1]
    unit, _ = hybrid_candidates(
        "sqlite locking",
        query,
        [],
        _evidence("sqlite locking", [(scaled, 9.0)], {"scaled": _unit(3, 4, 0)}),
    )
    by_id = {c.memory.id: c for c in ranked}
    assert by_id["scaled"].semantic == pytest.approx(unit[0].semantic)  # its direction's
    assert 0.0 < by_id["zero"].semantic <= LEXICAL_WEIGHT  # its words' bonus alone
    assert all(np.isfinite(c.semantic) for c in ranked)


def test_a_request_holds_an_entry_of_another_code_unless_it_is_an_exact_match() -> None:
    def candidate(signature: str, match: str) -> Candidate:
        memory = _memory(signature, f"ERROR-FIX: {signature} | FIX: f")
        fingerprint = error_fingerprint(signature)
        memory = replace(memory, metadata={"error_fingerprint": fingerprint})
        return Candidate(memory, 0.63, None, match)

    asked = [error_fingerprint("Process completed with exit code 139")]
    other_code = candidate("Process completed with exit code 137", "hybrid")
    assert held_for(other_code, asked) == ANOTHER_CODE_SCORE
    assert held_for(other_code, []) == 0.63
    assert held_for(candidate("Process completed with exit code 139", "hybrid"), asked) == 0.63
    assert held_for(candidate("KeyError: 'user'", "dense"), asked) == 0.63
    assert held_for(candidate("Process completed with exit code 137", "fingerprint"), asked) == 0.63
    # not another name: the words may find the fix of a family of names (numpy 1.24 removed
    # np.float and np.int together), or the one they describe
    family = [error_fingerprint("AttributeError: module 'numpy' has no attribute 'int'")]
    other_name = candidate("AttributeError: module 'numpy' has no attribute 'float'", "hybrid")
    assert held_for(other_name, family) == 0.63


@each_case(
    ("asked", "stored", "another"),
    [
        ("KeyError: 'customer_id'", 'psycopg.OperationalError: password failed for "x"', True),
        (
            "redis.exceptions.TimeoutError: Timeout reading from socket",
            "kombu.exceptions.OperationalError: [Errno 111] Connection refused",
            True,
        ),
        # one class by name, whatever its module or the wrapper around it
        (
            "sqlalchemy.exc.OperationalError: (psycopg.OperationalError) connection failed",
            "psycopg.OperationalError: connection failed: SSL SYSCALL error",
            False,
        ),
        # a subclass named after its base
        (
            "numpy.core._exceptions._ArrayMemoryError: Unable to allocate 7.45 GiB",
            "MemoryError",
            False,
        ),
        ("kotlin.KotlinNullPointerException", "java.lang.NullPointerException", False),
        # a side that names no exception is not judged by its class
        ("Process completed with exit code 139", "KeyError: 'user'", False),
        ("KeyError: 'user'", "Process completed with exit code 139", False),
        # one failure said by two libraries, a chain's root cause: their messages share words
        (
            "kombu.exceptions.OperationalError: [Errno 111] Connection refused",
            "redis.exceptions.ConnectionError: Error 111 connecting to localhost:6379. "
            "Connection refused.",
            False,
        ),
        (
            "requests.exceptions.ConnectionError: HTTPConnectionPool(host='localhost', port=80"
            "00): Max retries exceeded with url: /api (Caused by NewConnectionError('<urllib3."
            "connection.HTTPConnection object at 0x7f>: Failed to establish a new connection: "
            "[Errno 111] Connection refused'))",
            "ConnectionRefusedError: [Errno 111] Connection refused",
            False,
        ),
        # (a class read as the word it is named after: node-fetch's FetchError is a fetch's)
        (
            "TypeError: fetch failed",
            "FetchError: request to http://localhost:4000/api failed, reason: connect "
            "ECONNREFUSED 127.0.0.1:4000",
            False,
        ),
        # ... but not the module both classes are raised from, nor a word any value is said
        # with (qa-s59b F3: C held none of 10 such pairs)
        (
            "django.db.utils.OperationalError: no such table: auth_user",
            "django.db.utils.IntegrityError: UNIQUE constraint failed: auth_user.email",
            False,  # (the table is a word of both)
        ),
        (
            "django.db.utils.OperationalError: no such table: orders",
            "django.db.utils.IntegrityError: UNIQUE constraint failed: auth_user.email",
            True,
        ),
        (
            "TypeError: 'NoneType' object is not subscriptable",
            "AttributeError: 'NoneType' object has no attribute 'id'",
            False,  # ('NoneType')
        ),
        ("KeyError: 'customer_id'", "NameError: name 'order' is not defined", True),
        # (a KeyError's key is kept since rules 38, and its words are the message's, as an
        # environment variable's were: 'customer_id' shares "customer" with the NameError's)
        ("KeyError: 'customer_id'", "NameError: name 'customer' is not defined", False),
        ("KeyError: 42", "NameError: name 'customer' is not defined", True),
        # Python's message typed without its class is that class's (qa-s69a F1)
        (
            "No module named 'yaml'",
            "PermissionError: [Errno 13] Permission denied: '/var/run/app.pid'",
            True,
        ),
        ("cannot import name 'escape' from 'jinja2'", "KeyError: 'customer_id'", True),
        ("No module named 'yaml'", "ImportError: No module named yaml", False),
        ("No module named 'yaml'", "ModuleNotFoundError: No module named 'yaml'", False),
        # Node's system error code names its error as a class does: a TypeError's fix came
        # back at 0.42-0.57 for ENOTFOUND, ECONNRESET and ENOENT, none of its own stored
        (
            "Error: getaddrinfo ENOTFOUND api.example.com",
            "TypeError: Cannot read properties of undefined (reading 'map')",
            True,
        ),
        (
            "Error: ENOENT: no such file or directory, open '/app/config.json'",
            "TypeError: Cannot read properties of undefined (reading 'url')",
            True,
        ),
        ("Error: read ECONNRESET", "SyntaxError: Unexpected token < in JSON at position 0", True),
        # (the call Node names, ``read``, is no word of the failure)
        (
            "Error: read ECONNRESET",
            "TypeError: Cannot read properties of undefined (reading 'url')",
            True,
        ),
        ("Error: spawn git ENOENT", "FileNotFoundError: [Errno 2] No such file or directory", True),
        # ... but not another class's of the same code, nor of the same failure in its words
        (
            "Error: connect ECONNREFUSED 127.0.0.1:5432",
            "FetchError: request to http://localhost:3000/api failed, reason: connect "
            "ECONNREFUSED 127.0.0.1:3000",
            False,
        ),
        (
            "Error: EACCES: permission denied, open '/var/log/app/app.log'",
            "PermissionError: [Errno 13] Permission denied: '/var/log/app/app.log'",
            False,
        ),
        (
            "Error: ENOENT: no such file or directory, open 'config/settings.yaml'",
            "FileNotFoundError: [Errno 2] No such file or directory: 'config/settings.yaml'",
            False,
        ),
        # (an entry that names no class is about no other exception, and EOF is a word)
        ("Error: read ECONNRESET", "Error: socket hang up", False),
        ("unexpected EOF", "TypeError: Cannot read properties of undefined (reading 'map')", False),
    ],
)
def test_an_entry_of_another_exception_is_told_by_its_class(
    asked: str, stored: str, another: bool
) -> None:
    query = error_fingerprint(extract_error_signature(asked) or asked)
    entry = error_fingerprint(extract_error_signature(stored) or stored)
    assert names_another_exception([query], entry) is another, (query, entry)
    # each of a request's errors: an entry of one of them is not another's
    assert not names_another_exception([query, entry], entry)
    assert not names_another_exception([], entry)


def test_an_entry_is_held_as_another_error_than_one_told_unless_it_is_one_told() -> None:
    def fingerprint(error: str) -> str:
        return error_fingerprint(extract_error_signature(error) or error)

    told = [fingerprint("KeyError: 'user_id'"), fingerprint("No module named 'celery'")]
    # another name than the second, though nothing like the first (held before only when
    # another of each: it was not another of the KeyError)
    assert another_error_than_told(told, fingerprint("No module named 'yaml'"))
    assert not another_error_than_told(told, fingerprint("No module named 'celery'"))
    assert not another_error_than_told(told, fingerprint("TypeError: x is not a function"))
    asserts = [fingerprint("assert 401 == 200"), fingerprint("assert 404 == 200")]
    # one told, with words around it: not held as the other's another code
    assert not another_error_than_told(asserts, "assert 404 == 200 in <path>")
    assert another_error_than_told(asserts, "assert 500 == 200 in <path>")
    assert not another_error_than_told([], "assert 500 == 200 in <path>")


def test_a_fingerprint_match_scores_at_least_the_fingerprint_score() -> None:
    fix = _memory("fix", "ERROR-FIX: E0382 use of moved value")
    weak = _memory("weak", "unrelated")
    evidence = _evidence("E0382", [(fix, 3.0)], {"fix": _unit(0, 1, 0)}, (fix,))
    ranked, _ = hybrid_candidates("E0382", _unit(1, 0, 0), [(weak, 0.8)], evidence)
    assert [c.memory.id for c in ranked] == ["fix", "weak"]
    assert ranked[0].match == "fingerprint"
    assert FINGERPRINT_SCORE <= ranked[0].semantic < 1.0 and ranked[0].lexical == 3.0


def test_of_several_fingerprint_matches_the_closest_ranks_first() -> None:
    """Every entry an error query matched by fingerprint scored 0.95, in the order of their
    ids: three other variables' KeyError fixes came before the one that names the query's."""
    far = _memory("a-far", "ERROR-FIX: KeyError: 'user' | FIX: use .get")
    near = _memory("z-near", "ERROR-FIX: KeyError: 'id' | FIX: check the id first")
    evidence = _evidence("unshared", [], {}, (far, near))  # (no lexical bonus)
    dense = [(far, 0.2), (near, 0.7)]
    ranked, _ = hybrid_candidates("KeyError: 'id'", _unit(1, 0, 0), dense, evidence)
    assert [c.memory.id for c in ranked] == ["z-near", "a-far"]
    assert all(c.semantic >= FINGERPRINT_SCORE and c.match == "fingerprint" for c in ranked)


@each_case(("seed", "length"), [(2, 0.999), (3, 0.999), (3, 1.001), (5, 0.999)])
def test_a_vector_at_the_tolerance_edge_is_judged_as_vector_problem_judges_it(
    seed: int, length: float
) -> None:
    """At length 1 ± 1e-3 a float32 norm and a float64 one can fall on either side (these
    seeds do): a lexical hit is kept exactly when :func:`vector_problem` accepts its vector,
    as it was before the cosines of all hits became one matrix product."""
    rng = np.random.default_rng(seed)
    direction = rng.standard_normal(384)
    stored = (direction / np.linalg.norm(direction) * length).astype(np.float32)
    query = np.zeros(384, dtype=np.float32)
    query[0] = 1.0
    hit = _memory("edge", "sqlite locking")
    evidence = _evidence("sqlite locking", [(hit, 5.0)], {"edge": stored})
    ranked, skipped = hybrid_candidates("sqlite locking", query, [], evidence)
    accepted = vector_problem(stored, 384) is None
    assert [c.memory.id for c in ranked] == (["edge"] if accepted else [])
    assert [i for i, _ in skipped] == ([] if accepted else ["edge"])


def test_text_statistics_are_term_counts_and_length_remembered() -> None:
    from kenning.lexical import TEXT_STATISTICS_MAX_CHARS, text_statistics

    short = "Retry SQLite writes on SQLITE_BUSY; café and cafe both count."
    long = "Retry ＳＱＬｉｔｅ writes; café " * (TEXT_STATISTICS_MAX_CHARS // 20)
    for text in (short, long):
        counts, length = text_statistics(text)
        assert (dict(counts), length) == (
            dict(term_counts_and_length(text)[0]),
            term_counts_and_length(text)[1],
        )
        # counted once: the same answer comes back
        assert text_statistics(text)[0] is counts


def test_long_texts_statistics_are_kept_within_their_budget() -> None:
    """The least recently asked go first, the cost kept never exceeds the budget, and a
    text that alone exceeds it is counted each time, never kept."""
    from kenning.lexical import RememberedStatistics

    texts = [f"note {i} " + "retry the write " * 40 for i in range(6)]
    remembered = RememberedStatistics(budget=3 * (len(texts[0]) + 100 * 5) + 50)
    first = [remembered.statistics(t)[0] for t in texts[:3]]
    assert [remembered.statistics(t)[0] is c for t, c in zip(texts[:3], first, strict=True)] == [
        True
    ] * 3
    remembered.statistics(texts[0])  # asked last: the second is now the oldest
    remembered.statistics(texts[3])
    assert remembered.cost <= remembered.budget
    assert remembered.statistics(texts[0])[0] is first[0]
    assert remembered.statistics(texts[2])[0] is first[2]
    assert remembered.statistics(texts[1])[0] is not first[1]  # dropped, counted again
    huge = "word " * remembered.budget
    assert remembered.statistics(huge)[0] is not remembered.statistics(huge)[0]
    assert remembered.statistics(huge)[1] == remembered.budget
    assert remembered.cost <= remembered.budget
    # and it does not push out what is kept
    assert remembered.statistics(texts[1])[0] is remembered.statistics(texts[1])[0]
    kept = remembered.statistics(texts[1])[0]
    remembered.statistics(huge)
    assert remembered.statistics(texts[1])[0] is kept


@each_case(
    ("query", "entry", "other"),
    [
        ("exit code: 139", "exit code: 137", True),
        ("process completed with exit code 1", "process completed with exit code 137", True),
        (
            "ci job <q> failed: process completed with exit code 139",
            "process completed with exit code 137",
            True,
        ),
        ("assert 403 == 200", "assert 401 == 200 in <path>", True),
        # the same code inside the other: the same error, words around it
        (
            "ci job <q> failed: process completed with exit code 137",
            "process completed with exit code 137",
            False,
        ),
        ("assert 401 == 200", "assert 401 == 200 in <path>", False),
        # another error, or too short to be one's shape inside a sentence
        ("exit code 1", "the deploy failed with exit code 2 after the migration", False),
        ("keyerror: <q>", "keyerror: <q>", False),
        # digits glued to a word are a name (a host, a replica), not a code
        (
            "error response from daemon: container p1-worker2 is unhealthy",
            "error response from daemon: container p1-worker1 is unhealthy",
            False,
        ),
        (
            "web2 api.service: failed to execute <path>",
            "web1 api.service: failed to execute <path>",
            False,
        ),
        # a name the fingerprint keeps is the error: another module, variable or type is
        # another error (an apostrophe is no quote)
        ("modulenotfounderror: no module named 'requests'", "no module named 'yaml'", True),
        (
            "modulenotfounderror: no module named 'requests'",
            "modulenotfounderror: no module named 'yaml'",
            True,
        ),
        ("keyerror: 'redis_url'", "keyerror: 'database_url'", True),
        (
            'argument <n> to <q> has incompatible type "int"; expected "str" [arg-type]',
            'argument <n> to <q> has incompatible type "str | none"; expected "str" [arg-type]',
            True,
        ),
        (
            "module not found: error: can't resolve 'axios' in <path>",
            "module not found: error: can't resolve 'lodash' in <path>",
            True,
        ),
        # ... in either kind of quotes, the same name is the same error
        ('no module named "yaml"', "modulenotfounderror: no module named 'yaml'", False),
        ("library stubs not installed for 'yaml'", 'library stubs not installed for "yaml"', False),
        # ... and a masked name is not kept: nothing to compare
        ("module <q> has no attribute <q>", 'module "numpy" has no attribute "float"', False),
        # each names an error code, none the other's: another error, whatever its words
        ("err_pnpm_fetch_404 get <url> not found - <n>", "err_pnpm_fetch_401 get <url>", True),
        (
            "prismaclientknownrequesterror p2025: record to update not found",
            "prismaclientknownrequesterror p2002: unique constraint failed on the fields: (<q>)",
            True,
        ),
        ("error[e0382]: borrow of moved value: <q>", "error[e0505]: cannot move out of <q>", True),
        ("error[e0382]: borrow of moved value", "error[e0499]: cannot borrow twice", True),
        ("[ghc-88464] variable not in scope: total", "[ghc-83865] couldn't match type", True),
        # AWS's error codes: another on the same call is another error, the same on another
        # call is the words' to decide
        (
            "upload failed: <path> to <url> an error occurred (nosuchbucket) when calling the "
            "putobject operation: the specified bucket does not exist",
            "an error occurred (accessdenied) when calling the putobject operation: access denied",
            True,
        ),
        (
            "botocore.exceptions.clienterror: an error occurred (nosuchbucket) when calling the "
            "listobjectsv2 operation: the specified bucket does not exist",
            "upload failed: <path> to <url> an error occurred (nosuchbucket) when calling the "
            "putobject operation: the specified bucket does not exist",
            False,
        ),
        (
            "the upload says accessdenied (an error occurred (accessdenied) when calling the "
            "putobject operation: access denied)",
            "an error occurred (accessdenied) when calling the putobject operation: access denied",
            False,
        ),
        # ... one condition under two services' codes, said for another call
        (
            "an error occurred (throttling) when calling the describestacks operation (reached "
            "max retries: <n>): rate exceeded",
            "an error occurred (throttlingexception) when calling the getparameter operation "
            "(reached max retries: <n>): rate exceeded",
            False,
        ),
        (
            "an error occurred (expiredtoken) when calling the getcalleridentity operation: the "
            "security token included in the request is expired",
            "an error occurred (expiredtokenexception) when calling the listfunctions operation: "
            "the security token included in the request is expired",
            False,
        ),
        # ... and the IAM action it denied: another is another error
        (
            "an error occurred (accessdeniedexception) when calling the getsecretvalue operation:"
            " user: <path> is not authorized to perform: 'kms:decrypt' on resource: <path>",
            "an error occurred (accessdeniedexception) when calling the getsecretvalue operation:"
            " user: <path> is not authorized to perform: 'secretsmanager:getsecretvalue' on "
            "resource: prod/db",
            True,
        ),
        # an errno is no code: macOS's (and Windows') number for one failure is not Linux's
        (
            "socket.gaierror: [errno 8] nodename nor servname provided, or not known",
            "socket.gaierror: [errno -2] name or service not known",
            False,
        ),
        ("oserror: [errno 98] address already in use", "[errno 98] address already in use", False),
        # the same shape, whatever punctuation joins its parts
        (
            "reference to undeclared resource: a managed resource 'aws_sqs_queue' 'jobs' has not "
            "been declared",
            "reference to undeclared resource. a managed resource 'aws_s3_bucket' 'logs' has not "
            "been declared",
            True,
        ),
        # ... a code they share, or one that names none: the words decide
        ("error[e0382]: borrow of moved value: <q>", "error[e0382]: use of moved value", False),
        ("x509: certificate signed by unknown authority", "x509: certificate has expired", False),
        ("error ts2322: type <q> is not assignable", "type <q> is not assignable to <q>", False),
        ("checksum sha256 mismatch for <path>", "checksum sha512 mismatch for <path>", False),
        # a version, a target or a format beside an error is none of its codes
        (
            "error ts1378: top-level <q> expressions are only allowed when the <q> option is set",
            "top-level <q> expressions are only allowed when the module option is set to es2022",
            False,
        ),
        (
            "prismaclientknownrequesterror: unique constraint failed on the py311 worker",
            "prismaclientknownrequesterror p2002: unique constraint failed on the fields",
            False,
        ),
        ("error[e0382]: borrow of moved value (for i686)", "error: borrow of moved value", False),
        # pnpm's wrapper of a workspace script is no code of the error inside it
        (
            "error ts2307: cannot find module <q> or its corresponding type declarations",
            "err_pnpm_recursive_run_first_fail <q> build: cannot find module <q>",
            False,
        ),
        # npm's and pnpm's code of one HTTP status are one failure
        ("err_pnpm_fetch_401 get <url>: unauthorized - <n>", "npm error code e401", False),
        ("err_pnpm_fetch_404 get <url>: not found - <n>", "npm error code e401", True),
        # a prompt that names a code fixed before, and holds the entry's error whole
        (
            "fixed the ts2307 import, now type 'string' is not assignable to type 'number'",
            "error ts2322: type 'string' is not assignable to type 'number'",
            False,
        ),
        (
            "the p2025 is gone but now unique constraint failed on the fields: (<q>)",
            "prismaclientknownrequesterror p2002: unique constraint failed on the fields: (<q>)",
            False,
        ),
        # an entry that names two modules is the fix of either
        (
            "modulenotfounderror: no module named 'toml'",
            "modulenotfounderror: no module named 'yaml' / no module named 'toml'",
            False,
        ),
        (
            "modulenotfounderror: no module named 'json5'",
            "modulenotfounderror: no module named 'yaml' / no module named 'toml'",
            True,
        ),
    ],
)
def test_an_entry_of_another_code_or_name_is_another_error(
    query: str, entry: str, other: bool
) -> None:
    assert another_code_or_name(query, entry) is other


#: Errors whose name the tool prints bare, each beside the same error of another name, as
#: tools print them in a log.
BARE_NAME_PAIRS = [
    *BARE_NAME_DIFFERENT,
    (
        "Fatal error: No ObservableObject of type SettingsStore found. A "
        "View.environmentObject(_:) for SettingsStore may be missing as an ancestor of this view.",
        "SwiftUI/EnvironmentObject.swift:92: Fatal error: No ObservableObject of type AuthModel "
        "found. A View.environmentObject(_:) for AuthModel may be missing as an ancestor of "
        "this view.",
    ),
    (
        "ERROR:  function uuid_generate_v4() does not exist",
        "psql:migrations/001.sql:3: ERROR:  function gen_random_uuid() does not exist",
    ),
    (
        "scala.MatchError: Pending (of class com.shop.OrderStatus$Pending$)",
        'Exception in thread "main" scala.MatchError: Cancelled (of class '
        "com.shop.OrderStatus$Cancelled$)",
    ),
    (
        "thread 'main' panicked at src/main.rs:12:40:\ncalled `Result::unwrap()` on an `Err` "
        'value: Os { code: 2, kind: NotFound, message: "No such file or directory" }',
        "thread 'main' panicked at src/main.rs:27:41:\ncalled `Result::unwrap()` on an `Err` "
        'value: Os { code: 13, kind: PermissionDenied, message: "Permission denied" }',
    ),
    (
        "ActiveRecord::RecordNotFound: Couldn't find User with 'id'=5",
        "ActiveRecord::RecordNotFound (Couldn't find Order with 'id'=5):\n\n"
        "app/controllers/orders_controller.rb:8:in `show'",
    ),
    ("./server.go:22:9: undefined: db", "# example.com/app\n./server.go:31:2: undefined: cache"),
    (
        'Error from server (Forbidden): pods "web-1" is forbidden: User "x" cannot create '
        'resource "pods/exec" in API group "" in the namespace "prod"',
        'Error from server (Forbidden): pods "web-1" is forbidden: User "x" cannot get resource '
        '"pods/log" in API group "" in the namespace "prod"',
    ),
]


#: ... and each beside the same error said another way: none of these is another error's fix
#: (qa-bare2: each was held at 0.3 by the first cut of these rules).
BARE_NAME_SAME = [
    # a PostgreSQL function called with other argument types, or with its schema
    (
        "ERROR:  function lower(int4) does not exist",
        "ERROR:  function lower(integer) does not exist",
    ),
    (
        "ERROR:  function public.uuid_generate_v4() does not exist",
        "ERROR:  function uuid_generate_v4() does not exist",
    ),
    # one service's actions for one policy (ECR's push)
    (
        "An error occurred (AccessDeniedException) when calling the InitiateLayerUpload "
        "operation: User: arn:aws:iam::123456789012:user/ci is not authorized to perform: "
        "ecr:InitiateLayerUpload on resource: arn:aws:ecr:us-east-1:123456789012:repository/api",
        "An error occurred (AccessDeniedException) when calling the BatchCheckLayerAvailability "
        "operation: User: arn:aws:iam::123456789012:user/ci is not authorized to perform: "
        "ecr:BatchCheckLayerAvailability on resource: arn:aws:ecr:us-east-1:123456789012:"
        "repository/api",
    ),
    # a Scala match without a default, another value of one class
    (
        "scala.MatchError: 3 (of class java.lang.Integer)",
        'Exception in thread "main" scala.MatchError: 5 (of class java.lang.Integer)',
    ),
    (
        "scala.MatchError: GBP (of class java.lang.String)",
        "scala.MatchError: JPY (of class java.lang.String)",
    ),
    # Kubernetes refusing an informer "list" and "watch" for one missing Role
    (
        'pods is forbidden: User "system:serviceaccount:ci:bot" cannot list resource "pods" in '
        'API group "" in the namespace "prod"',
        'pods is forbidden: User "system:serviceaccount:ci:bot" cannot watch resource "pods" in '
        'API group "" in the namespace "prod"',
    ),
    # a human note's sentence ends in a full stop
    (
        "sqlalchemy.exc.NoSuchModuleError: Can't load plugin: sqlalchemy.dialects:postgres.",
        "sqlalchemy.exc.NoSuchModuleError: Can't load plugin: sqlalchemy.dialects:postgres",
    ),
    (
        "panic: interface conversion: interface {} is nil, not string.",
        "panic: interface conversion: interface {} is nil, not string",
    ),
    # Rust's io::Error of one kind on macOS and on Linux
    (
        "called `Result::unwrap()` on an `Err` value: Os { code: 61, kind: ConnectionRefused, "
        'message: "Connection refused" }',
        "called `Result::unwrap()` on an `Err` value: Os { code: 111, kind: ConnectionRefused, "
        'message: "Connection refused" }',
    ),
    # an image on Docker Hub, named with one of its registry's hosts
    (
        "Error response from daemon: pull access denied for docker.io/myorg/api, repository does "
        "not exist or may require 'docker login'",
        "Error response from daemon: pull access denied for myorg/api, repository does not "
        "exist or may require 'docker login'",
    ),
    (
        "Error response from daemon: pull access denied for registry-1.docker.io/myorg/api, "
        "repository does not exist or may require 'docker login'",
        "Error response from daemon: pull access denied for myorg/api, repository does not "
        "exist or may require 'docker login'",
    ),
    # (qa-bare3) Rust's io::Error kind that a newer Rust names otherwise, or Windows does
    (
        "called `Result::unwrap()` on an `Err` value: Os { code: 5, kind: Other, message: "
        '"Input/output error" }',
        "called `Result::unwrap()` on an `Err` value: Os { code: 5, kind: Uncategorized, "
        'message: "Input/output error" }',
    ),
    (
        "called `Result::unwrap()` on an `Err` value: Os { code: 11, kind: WouldBlock, message: "
        '"Resource temporarily unavailable" }',
        "called `Result::unwrap()` on an `Err` value: Os { code: 10060, kind: TimedOut, message: "
        '"A connection attempt failed" }',
    ),
    # ... or a newer Rust names what an older one called Other
    (
        'called `Result::unwrap()` on an `Err` value: Os { code: 21, kind: Other, message: "Is a '
        'directory" }',
        "called `Result::unwrap()` on an `Err` value: Os { code: 21, kind: IsADirectory, "
        'message: "Is a directory" }',
    ),
    # Go 1.15's *os.PathError is Go 1.16's *fs.PathError
    (
        "panic: interface conversion: error is *os.PathError, not *json.SyntaxError",
        "panic: interface conversion: error is *fs.PathError, not *json.SyntaxError",
    ),
    # a Scala case object whose package moved, or that a note names without it
    (
        "scala.MatchError: Pending (of class com.shop.OrderStatus$Pending$)",
        "scala.MatchError: Pending (of class com.shop.domain.OrderStatus$Pending$)",
    ),
    (
        "scala.MatchError: Pending (of class OrderStatus$Pending$)",
        "scala.MatchError: Pending (of class shaded.com.shop.OrderStatus$Pending$)",
    ),
    # a Kubernetes resource with or without its API group
    (
        'Error from server (Forbidden): deployments is forbidden: User "x" cannot list resource '
        '"deployments" in API group "apps" in the namespace "prod"',
        'Error from server (Forbidden): deployments.apps is forbidden: User "x" cannot list '
        'resource "deployments" in API group "apps" in the namespace "prod"',
    ),
    # PHP's types as declared and as PHP prints them
    (
        "TypeError: App\\Cart::add(): Argument #1 ($item) must be of type ?\\App\\Item, string "
        "given",
        "TypeError: App\\Cart::add(): Argument #1 ($item) must be of type ?App\\Item, string given",
    ),
    (
        "TypeError: App\\Cart::add(): Argument #1 ($item) must be of type App\\Item|null, string "
        "given",
        "TypeError: App\\Cart::add(): Argument #1 ($item) must be of type ?App\\Item, string given",
    ),
    (
        "TypeError: App\\Cart::qty(): Argument #1 ($n) must be of type int|string, array given",
        "TypeError: App\\Cart::qty(): Argument #1 ($n) must be of type string|int, array given",
    ),
]


@each_case(("stored", "asked"), BARE_NAME_SAME)
def test_the_same_error_whose_name_a_tool_prints_bare_is_not_another(
    stored: str, asked: str
) -> None:
    entry = error_fingerprint(extract_error_signature(stored) or stored)
    query = error_fingerprint(extract_error_signature(asked) or asked)
    assert not another_code_or_name(query, entry), (query, entry)


@each_case(("stored", "asked"), BARE_NAME_PAIRS)
def test_another_name_a_tool_prints_bare_is_another_error(stored: str, asked: str) -> None:
    """Each pair was served as the other's fix at 0.83–0.99 (qa-verify, qa-bare N1–N19): the
    name the fingerprint masked or left as a word is kept, so the same error of another name
    is another error, and the same one is still the same."""
    entry = error_fingerprint(extract_error_signature(stored) or stored)
    query = error_fingerprint(extract_error_signature(asked) or asked)
    assert another_code_or_name(query, entry)
    assert not another_code_or_name(entry, entry)


_GO_SUMS = "--- FAIL: TestSumsThePrices (0.00s): Total([2 3]) = 6; want 5"
_GO_LOGIN = "--- FAIL: TestLoginReturns200 (0.00s): got 401, want 200"


@each_case(
    ("asked", "entry", "held"),
    [
        # another test's failure, another message: held (qa79 F3)
        ([_GO_LOGIN], _GO_SUMS, True),
        (["--- FAIL: TestDiscounts (0.00s): Discount(-5) = -5; want 0"], _GO_SUMS, True),
        (
            [
                "thread 'tests::parses_an_empty_cart' panicked at src/lib.rs:7:11: called "
                "`Option::unwrap()` on a `None` value"
            ],
            "thread 'tests::sums_the_prices' panicked at src/lib.rs:25:9: boom",
            True,
        ),
        (
            ["● login returns 200: expect(received).toBe(expected) Expected: 200 Received: 401"],
            "● cart › sums the prices: expect(received).toBe(expected) Expected: 5 Received: 6",
            True,
        ),
        (
            ["FAIL src/cart.test.js > cart > parses an empty cart: TypeError: x is undefined"],
            "FAIL src/cart.test.js > cart > sums the prices: AssertionError: expected 6 to be 5",
            True,
        ),
        # the same test (a subtest's failure under its parent; jest's title in vitest)
        (
            ["--- FAIL: TestTotal/empty (0.00s): Total([]) = 1; want 0"],
            _GO_SUMS.replace("TestSumsThePrices", "TestTotal"),
            False,
        ),
        (
            ["FAIL src/cart.test.js > cart > sums the prices: AssertionError: expected 6 to be 5"],
            "● cart › sums the prices: expect(received).toBe(expected) Expected: 5 Received: 6",
            False,
        ),
        # the same message under another test: one cause
        (
            ["--- FAIL: TestB (0.00s): dial tcp 127.0.0.1:5432: connect: connection refused"],
            "--- FAIL: TestA (0.00s): dial tcp 127.0.0.1:5432: connect: connection refused",
            False,
        ),
        (
            ["KeyError: 'items'", _GO_LOGIN],
            "--- FAIL: TestCart (0.00s): KeyError: 'items'",
            False,
        ),
        # no failed test asked (a program's panic, an error alone): nothing held by this
        (["KeyError: 'items'"], _GO_SUMS, False),
        (
            ["thread 'main' panicked at src/main.rs:2:5: boom"],
            "thread 'tests::x' panicked at src/lib.rs:2:5: bang",
            False,
        ),
        # an entry that is no failed test's
        ([_GO_LOGIN], "got 401, want 200 from the login handler", False),
    ],
)
def test_another_tests_failure_is_told_by_its_test_and_message(
    asked: list[str], entry: str, held: bool
) -> None:
    fingerprints = [error_fingerprint(a) for a in asked]
    assert another_tests_failure(fingerprints, error_fingerprint(entry)) is held
