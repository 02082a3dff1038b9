"""Search semantics of the AI Memory Module, as pure functions.

* which collections a query searches first (explicit collection, types, intent, or the
  ``code-patterns`` default) — :func:`plan_search`;
* how a hybrid query's dense and lexical candidates are fused into one score —
  :func:`hybrid_candidates`;
* thresholding and decay-ranking of candidates — :func:`rank`;
* when cascading expands past the primary collection — :func:`expansion_reason`.

:class:`kenning.store.MemoryStore` runs the queries; nothing here does I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple, TypeVar

import numpy as np

from .errors import InvalidTypeError, UserInputError
from .fingerprints import without_cause_wrapper
from .intent import INTENT_COLLECTION, detect_intent, parse_intent
from .lazyre import lazy, source_of
from .lexical import bm25_of_each, idf, query_terms, text_statistics
from .model import (
    COLLECTIONS,
    RUVECTOR_TYPE_MAP,
    TYPE_TO_COLLECTION,
    Memory,
    SearchResult,
    check_collection,
    starts_as_error_fix,
    valid_types_message,
)
from .protocol import CASCADE_MIN_BEST, CASCADE_MIN_RESULTS, SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT
from .remembered import remembered
from .scoring import age_days, decayed_score, half_life_for
from .vectors import UNIT_NORM_TOLERANCE, checked_cosine, vector_problem

DEFAULT_COLLECTION = "code-patterns"


class Candidate(NamedTuple):
    """A memory retrieved for a query, before thresholds and decay.

    ``semantic`` is the calibrated relevance on the cosine scale (cosine, or cosine fused
    with the lexical bonus, or the fingerprint score); ``lexical`` the memory's BM25 score
    when the lexical side found it (reported; the fused score computes its own); ``match``
    how it was found: ``fingerprint``, ``hybrid``, ``dense`` or ``lexical``.
    """

    memory: Memory
    semantic: float
    lexical: float | None
    match: str


@dataclass(frozen=True)
class SearchPlan:
    """What to search: the primary collections, and those cascading may add."""

    primary: tuple[str, ...]
    secondary: tuple[str, ...]
    types: tuple[str, ...]
    intent: str | None
    intent_source: str  # "argument", "detected", "none"
    cascade: bool


@dataclass(frozen=True)
class SearchResponse:
    query: str
    results: tuple[SearchResult, ...]
    plan: SearchPlan
    expanded: bool
    expansion_reason: str | None
    threshold: float
    decay: bool
    group_id: str | None
    #: The best semantic score seen, passing the threshold or not (None: nothing matched).
    best_semantic: float | None = None
    #: Nothing found and the project has no memories in a store that holds others': how
    #: many each other project id holds (:meth:`~kenning.store.MemoryStore.other_projects`).
    other_projects: Mapping[str, int] = field(default_factory=dict)
    #: Those of ``other_projects`` that differ from ``group_id`` only in letter case
    #: (:func:`kenning.project.case_variants`): project ids are case-sensitive.
    case_variants: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "group_id": self.group_id,
            "intent": self.plan.intent,
            "intent_source": self.plan.intent_source,
            "primary_collections": list(self.plan.primary),
            "collections_searched": list(
                self.plan.primary + (self.plan.secondary if self.expanded else ())
            ),
            "types": list(self.plan.types),
            "cascading": {
                "enabled": self.plan.cascade,
                "expanded": self.expanded,
                "reason": self.expansion_reason,
            },
            "threshold": self.threshold,
            "best_semantic": self.best_semantic,
            "decay": self.decay,
            "count": len(self.results),
            "results": [r.to_dict() for r in self.results],
            **({"other_projects": dict(self.other_projects)} if self.other_projects else {}),
            **({"case_variants": list(self.case_variants)} if self.case_variants else {}),
        }


def parse_types(memory_type: str | Sequence[str] | None) -> tuple[str, ...]:
    """Accept ``"a,b"``, ``["a", "b"]`` or None; validate every name (ruvector's too)."""
    if memory_type is None:
        return ()
    if not isinstance(memory_type, str) and (
        not isinstance(memory_type, Sequence | set | frozenset)
        or not all(isinstance(t, str) for t in memory_type)
    ):
        raise InvalidTypeError(
            f"memory type {memory_type!r:.80} is not a name or a list of names; valid types "
            f"are {valid_types_message()}"
        )
    items: Iterable[str] = memory_type.split(",") if isinstance(memory_type, str) else memory_type
    names = []
    for item in items:
        name = str(item).strip().lower().replace("-", "_")
        if not name:
            continue
        # ruvector's names, as the write path stores them (code is stored as implementation)
        name = name if name in TYPE_TO_COLLECTION else RUVECTOR_TYPE_MAP.get(name, name)
        if name not in TYPE_TO_COLLECTION:
            raise InvalidTypeError(
                f"unknown memory type {item!r}; valid types are {valid_types_message()}"
            )
        if name not in names:
            names.append(name)
    return tuple(names)


def check_types_of(collection: str, types: Sequence[str]) -> str:
    """``collection``'s checked name, when every one of ``types`` (parsed) belongs to it;
    else the error naming the types that do not and the collection's own. Search, browse
    and count ask it alike: a type outside the collection is a mistake to name, not a
    filter that silently matches nothing."""
    name = check_collection(collection)
    outside = [t for t in types if TYPE_TO_COLLECTION[t] != name]
    if outside:
        raise InvalidTypeError(
            f"type(s) {', '.join(outside)} do not belong to collection {name}; "
            f"its types are {', '.join(COLLECTIONS[name])}"
        )
    return name


def chosen_collections(collection: str | None, types: Sequence[str]) -> tuple[str, ...]:
    """The collection a read is narrowed to, checked against ``types`` (parsed) by
    :func:`check_types_of`, or ``()`` when none is given: None or a blank name, as a blank
    memory type or intent is none (an MCP client sends blanks for "no filter"; the CLI
    refuses a blank option itself, naming it)."""
    if collection is None or (isinstance(collection, str) and not collection.strip()):
        return ()
    return (check_types_of(collection, types),)


def check_whole_number(name: str, value: object, most: int) -> int:
    """``value`` when it is a whole number from 1 to ``most``, else the error naming it."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        raise UserInputError.of_parameter(
            name, name, f" is {value!r:.40}; expected a whole number from 1 to {most}"
        )
    return value


def check_limit(limit: int) -> int:
    return check_whole_number("limit", limit, SEARCH_MAX_LIMIT)


def plan_search(
    query: str,
    collection: str | None = None,
    memory_type: str | Sequence[str] | None = None,
    intent: str | None = None,
    use_cascading: bool = True,
) -> SearchPlan:
    """Decide the primary (and cascade) collections.

    * An explicit ``collection`` is searched alone (no cascading): the user asked for it.
    * Types restrict the search to their collections; every type must belong to
      ``collection`` when both are given.
    * Otherwise intent (given, else detected) picks the primary collection; with no intent
      the primary is ``code-patterns`` (the seed's default). Cascading may add the rest.
    """
    from .querybuild import check_query

    check_query(query)
    types = parse_types(memory_type)
    chosen_intent = parse_intent(intent)
    source = "argument" if chosen_intent else "none"
    if chosen_intent is None:
        chosen_intent = detect_intent(query)
        source = "detected" if chosen_intent else "none"
    chosen = chosen_collections(collection, types)
    if chosen:
        return SearchPlan(chosen, (), types, chosen_intent, source, False)
    if types:
        owners = tuple(dict.fromkeys(TYPE_TO_COLLECTION[t] for t in types))
        return SearchPlan(owners, (), types, chosen_intent, source, False)
    primary = INTENT_COLLECTION[chosen_intent] if chosen_intent else DEFAULT_COLLECTION
    secondary = tuple(c for c in COLLECTIONS if c != primary)
    return SearchPlan((primary,), secondary, types, chosen_intent, source, use_cascading)


def rank(
    candidates: Iterable[Candidate],
    *,
    threshold: float,
    decay: bool,
    now: datetime,
    half_life_overrides: Mapping[str, float],
) -> list[SearchResult]:
    """Keep candidates whose semantic score passes ``threshold``; score and sort them.

    With decay the sort key is
    ``0.7 * semantic + 0.3 * temporal``, the sub-scores being the computed ones.
    """
    results: dict[str, SearchResult] = {}
    for memory, semantic, lexical, match in candidates:
        if semantic < threshold:
            continue
        if decay:
            half_life = half_life_for(memory.type, memory.collection, half_life_overrides)
            final, temporal = decayed_score(semantic, age_days(memory.stored_at, now), half_life)
            result = SearchResult(memory, final, semantic, temporal, lexical, match)
        else:
            result = SearchResult(memory, semantic, semantic, None, lexical, match)
        previous = results.get(memory.id)
        if previous is None or result.score > previous.score:
            results[memory.id] = result
    return sorted(results.values(), key=lambda r: (-r.score, -r.semantic, r.memory.id))


def ranking_settled(
    candidates: Sequence[Candidate],
    ranked: Sequence[SearchResult],
    *,
    pool: int,
    limit: int,
    threshold: float,
    decay: bool,
) -> bool:
    """Whether the first ``limit`` of ``ranked`` (:func:`rank` of ``candidates``, the top
    ``pool`` by semantic score) are the first ``limit`` of every memory's ranking: no memory
    left out of the pool can pass them. Without decay the order is the semantic one; with
    it, one left out scores at most what the pool's weakest semantic score does at age 0
    (a fresh note a little less close in wording than twenty old ones is the best match)."""
    if not decay or len(candidates) < pool or not candidates:
        return True
    weakest = min(c.semantic for c in candidates)
    if weakest < threshold:  # the memories after it do not pass the threshold
        return True
    best_left_out = decayed_score(weakest, 0.0, 1.0)[0]
    return len(ranked) >= limit and ranked[limit - 1].score >= best_left_out


#: Hybrid retrieval (measured with ``bench/fusion_grid.py``, reported by ``bench/quality.py``):
#:
#:     fused = bend(cosine + LEXICAL_WEIGHT * (lexical / best)
#:                  * min(1, best / LEXICAL_FULL_STRENGTH) * coverage ** 2)
#:
#: ``lexical`` is the memory's BM25 (:func:`memory_bm25`: FTS5's idf from the store's
#: statistics, FTS5's k1 and b, the memory's length normalised against the fixed
#: :data:`LEXICAL_REFERENCE_LENGTH` instead of the store's average length), computed for
#: every candidate, dense or lexical; ``best`` the highest of the query's candidates;
#: ``coverage`` the share of the query's terms the memory contains; ``bend``
#: (:func:`onto_cosine_scale`) keeps the sum on the cosine scale without ties at the top.
#: The query's best lexical match gets the largest bonus and the others a share in
#: proportion. The bonus is at full strength once the best match is worth
#: ``LEXICAL_FULL_STRENGTH`` (one word in fewer than ~12% of the memories); a query whose
#: words are all common gets next to none, and squared coverage keeps a memory that shares
#: one or two words with an unrelated query from being lifted over the floors. The score
#: stays on the cosine scale, so the protocol floors keep their meaning.
#:
#: Stable scores: unrelated memories raise every idf (more rows) and would change an
#: average length; the ratio to the best cancels the first, a fixed reference length
#: removes the second, the saturated strength no longer grows with the store, and every
#: candidate is scored whether or not it is among the lexical top k. Adding 1,000
#: unrelated memories to a store of the 37 yellow error-fix notes (measured through
#: ``retrieve``, every score of each query's top 10) moved none by more than 0.012
#: (sentences of Python's documentation), 0.011 (LoCoMo observations) or 0.016 (ruff and
#: rustc docs); the previous rule (``bm25 / (best + 5)``, the lexical top 20 only) moved
#: them by up to 0.027, 0.023 and 0.038, and one by 0.075 after two notes in a small store.
#: tests/test_stable_scores.py checks 0.02 in 16 notes on SQLite (measured: 0.003; the
#: previous rule 0.041) and in 5 on every backend (with :data:`LEXICAL_MIN_ROWS`: under
#: 0.001; without it a one-word query moved 0.58 -> 0.76). A score can still move when
#: what is added is not unrelated: a new candidate that matches the query's words better
#: than the best one lowers the others' share.
#:
#: Fitted on half of the dev queries (``bench/fusion_grid.py`` prints both halves;
#: ``bench/quality.py`` reports all): weight 0.4 (0.3-0.6 tried); the strength constant
#: changed nothing between 1 and 4 on these sets.
LEXICAL_WEIGHT = 0.4
LEXICAL_FULL_STRENGTH = 2.0
#: A store of fewer memories is weighted as if it had this many (the others holding none of
#: the query's words): in a handful of notes every word is "common" and every idf grows
#: with each note added, so without it a score drifts most in a new store (a query's score
#: in 5 notes moved by 0.044 when 1,000 unrelated memories were added; with it, 0.008).
#: The lexical side of the SQLite backend counts every term below the same size.
LEXICAL_MIN_ROWS = 32
#: The length (in tokens) a memory's BM25 is normalised against, fixed so that no score
#: moves with the store's average length. Before it the hybrid used BM25 without length
#: normalisation (``b = 0``), which lets a long memory collect the query's common words and
#: outrank the short one that is about them. Fitted on the fit half of
#: ``bench/fusion_grid.py`` with FTS5's ``b`` (0.75) kept: reference lengths 25, 50, 75
#: and 100 tokens (and ``b`` 0.25-1.0) tried; 75 gains the most fit-half queries and loses
#: none on any set (the rust and ruff docs are 110-125 tokens at the median, the yellow
#: error-fix notes 93, LoCoMo observations 16).
LEXICAL_REFERENCE_LENGTH = 75.0
#: Where a fused score starts to bend towards 1 (:func:`onto_cosine_scale`): above every
#: floor and threshold, so those compare against the same sums as before.
SCORE_KNEE = 0.9
#: An exact error-fingerprint match scores at least this (above every floor).
FINGERPRINT_SCORE = 0.95
#: An ERROR-FIX entry of the same error as the query's but for another exit code, status,
#: errno, error code or failed assert's value, or another name the fingerprint keeps (the
#: module, package, variable or type that is the error: ``No module named 'yaml'`` for
#: ``'requests'``; their fingerprints differ in those alone: ``exit code: 137`` for ``exit
#: code: 139``) scores at most this, below the floors: it is another error, whose fix is not
#: this one's, though its words are almost the query's (the cosine of two such lines is
#: 0.90-0.98).
ANOTHER_CODE_SCORE = 0.3
#: A fallback's hit (:meth:`~kenning.store.MemoryStore.recall_many`: a chain's cause, a
#: warning's error) that is no exact match of its error is given only from this score (or the
#: project's recall floor, if higher): the loose matches of a chain's causes scored below it,
#: a note about the cause in words of its error above (0.99, test_store). Calibrated with
#: MiniLM on one store of the eval data (yellow's 37 ERROR-FIX entries, rust's 518
#: explanations, ruff's 973 rules, stored as bench.quality stores them): the 21 chained
#: outputs of tests/chained_errors.py had 5 such hits at 0.5 or more, none wanted (Node's
#: 'could not read the config' -> a codex fix 0.58, cargo's 'failed to read …/Cargo.toml' ->
#: E0463 0.65, KeyError: 'user' -> ruff's G101 0.57, a JSONDecodeError -> COM818 0.53, an
#: int() ValueError -> RUF048 0.76); the error lines of yellow's 37 raw logs
#: (bench/data/yellow_queries.jsonl), each asked alone as a fallback is, found their own
#: entry loosely 15 times at 0.5 or more and another entry 15 times, the highest wrong at
#: 0.65; from 0.70, 8 right and 0 wrong (0.60: 12 and 1, 0.65: 10 and 1). 0.70 is the lowest
#: step of 0.05 above all of yellow's wrong ones and 4 of the chains' 5 (RUF048 stays).
FALLBACK_LOOSE_FLOOR = 0.70
#: What a fingerprint keeps of an error besides its words: a number that stands alone (an
#: exit code, a status, an assert's value; not digits glued to a word, a host's ``web1`` or a
#: replica's ``worker2``, which are names), and a quoted name (every other quoted name is
#: masked, :func:`kenning.fingerprints.error_fingerprint`), not an apostrophe's ``can't``.
_KEPT_VALUE = lazy(r"(?<![^\W\d_])(\d+)(?![^\W\d_])|(?<!\w)(['\"`])([^'\"`\n]*)\2(?!\w)")
#: An error code as a fingerprint holds it (lower-cased), of the families whose code names
#: the error: Node's and pnpm's ``err_…`` (``err_pnpm_fetch_404``; not pnpm's wrapper of a
#: workspace script that failed, ``err_pnpm_recursive_run_first_fail``, whatever failed in
#: it), rustc's ``e0382``, npm's ``e404``, tsc's ``ts2322``, C#'s ``cs0246``, Prisma's
#: ``p2002``, NuGet's ``nu1101``, MSBuild's ``msb3073``, GHC's ``ghc-88464``, the AWS
#: CLI's and SDKs' ``an error occurred (nosuchbucket) when calling the …`` (``accessdenied``
#: on the same call is another error, its fix a policy, not a bucket). Not an errno: macOS's
#: and Windows' numbers for one failure are not Linux's. Not any token of letters and digits:
#: a version, a target or a format (``es2022``, ``py311``, ``i686``, ``h264``, ``iso8601``,
#: ``x509``) said beside an error is none of its codes.
_ERROR_CODE = lazy(
    r"(?<![\w.-])(?:err_(?!pnpm_recursive_)[a-z0-9_]+|e\d{3,4}|ts\d{4,5}|cs\d{4}|p\d{4}|nu\d{4}"
    r"|msb\d{4}|ghc-\d{3,6}|(?<=an error occurred \()[a-z][\w.]{2,100}(?=\) when calling the ))"
    r"(?![\w.-])"
)
#: An error code with the words a tool says it with (``error ts2322:``, ``error[e0382]:``,
#: ``npm error code e404``): what is left is the error's message.
_ERROR_CODE_SAID = lazy(
    r"(?:\b(?:npm\s+error\s+code|error)\s*\[?\s*)?"
    + source_of(_ERROR_CODE)[0]
    # (AWS's: the call it was said for is not the message)
    + r"(?:\)\s+when\s+calling\s+the\s+\w+\s+operation(?:\s+\([^)\n]{0,100}\))?:|\]?:?)"
)
#: The status an npm or pnpm code ends in (``e401``, ``err_pnpm_fetch_401``): the same failure
#: said by either tool.
_CODE_STATUS = lazy(r"(?<=[e_])([1-5]\d\d)$")


def _same_code(query_codes: set[str], entry_codes: set[str]) -> bool:
    """Whether two errors' codes name one error: a code both name, or the HTTP status npm's
    and pnpm's codes end in (npm's ``E401`` is pnpm's ``ERR_PNPM_FETCH_401``)."""
    # (AWS says one condition as ``throttling`` and ``throttlingexception``, by service)
    query_codes = {code.removesuffix("exception") for code in query_codes}
    entry_codes = {code.removesuffix("exception") for code in entry_codes}
    if query_codes & entry_codes:
        return True
    statuses = {m.group(1) for code in query_codes if (m := _CODE_STATUS.search(code))}
    return any((m := _CODE_STATUS.search(code)) and m.group(1) in statuses for code in entry_codes)


#: rustc's codes of a crate it cannot find, each where it looked: E0463 ``can't find crate for
#: `serde``` (an ``extern crate``), E0432 ``unresolved import `serde``` (a ``use`` whose first
#: name is no crate, ``use serde::Deserialize;`` as well) and E0433 ``cannot find module or
#: crate `serde` in this scope`` (a path in code; 1.84's ``use of undeclared crate or module``).
_RUST_MISSING_CRATE_CODES = frozenset({"e0432", "e0433", "e0463"})
#: rustc's codes of a path it could not resolve, each where it looked: E0432 in a ``use``
#: (``unresolved import `tokio::sync```, the path up to the name it could not find), E0433 in
#: code (``cannot find `sync` in `tokio```, the name and the module it looked in).
_RUST_WRONG_PATH_CODES = frozenset({"e0432", "e0433"})


def _one_rust_name(
    query_codes: set[str], query_fingerprint: str, entry_codes: set[str], entry_fingerprint: str
) -> bool:
    """Whether two fingerprints of rustc's codes of a missing crate (E0432, E0433, E0463)
    each name a crate it could not find, or of a wrong path (E0432, E0433) each a path, so
    that their codes are not what tells them apart: the names are (a crate missing from
    Cargo.toml is one fix, ``cargo add serde``, whichever of them rustc gave; ``tokio::sync``
    one, its feature, in a ``use`` or in code). A path (``unresolved import `serde::Foo```,
    ``crate::config``) is no missing crate (``"rust path"``, not ``"rust"``): a wrong path
    inside a crate is held from a missing crate by its code."""
    from .fingerprints import missing_names  # (loaded already: the fingerprints are its)

    names = (missing_names(query_fingerprint), missing_names(entry_fingerprint))
    return any(
        query_codes | entry_codes <= codes
        and all(any(kind == said for kind, _ in missing) for missing in names)
        for said, codes in (
            ("rust", _RUST_MISSING_CRATE_CODES),
            ("rust path", _RUST_WRONG_PATH_CODES),
        )
    )


#: rustc's import of a path as a fingerprint holds it masked (``unresolved import <q>``): an
#: entry fingerprinted by rules before 29, until the next write brings it up to these
#: (:meth:`kenning.store.MemoryStore.renew_fingerprints`), or a path these do not keep
#: (``foo::*``, ``crate::{a, b}``): a path, not a crate's name.
_RUST_MASKED_PATH_IMPORT = lazy(r"\bunresolved imports? <q>")


def _one_missing_crate_one_masked_path(
    missing: list[tuple[str, str]], fingerprint: str, other_fingerprint: str
) -> bool:
    """Whether ``fingerprint`` names a crate rustc could not find (``missing``, its missing
    names) and ``other_fingerprint`` a masked import of a path
    (:data:`_RUST_MASKED_PATH_IMPORT`) and no missing crate: a wrong path inside a crate,
    not that crate missing."""
    if not any(kind == "rust" for kind, _ in missing):
        return False
    from .fingerprints import missing_names  # (loaded already: the fingerprints are its)

    return _RUST_MASKED_PATH_IMPORT.search(other_fingerprint) is not None and not any(
        kind == "rust" for kind, _ in missing_names(other_fingerprint)
    )


#: The most values a fingerprint :func:`another_code_or_name` looks for inside a longer one
#: may keep: an error keeps a few (a list of 1,000 numbers is no error's shape, and its
#: pattern cost ~0.1 s to build for each candidate).
_MAX_KEPT_VALUES = 16
#: The shortest error (in characters of its fingerprint) :func:`another_code_or_name` looks
#: for inside a longer one: "exit code 1" inside any sentence is no error's shape.
ANOTHER_CODE_MIN_CHARS = 16


def _kept_values(fingerprint: str) -> list[str]:
    """The numbers and quoted names ``fingerprint`` keeps, in order, a name without its quotes
    (one typed as ``"yaml"`` is the ``'yaml'`` a tool printed)."""
    return [m.group(1) or m.group(3) for m in _KEPT_VALUE.finditer(fingerprint)]


def _shape(fingerprint: str) -> list[str]:
    """``fingerprint`` around what it keeps: the same for the same error of another code."""
    return _KEPT_VALUE.split(fingerprint)[::4]


_SHAPE_PUNCTUATION = lazy(r"[\s.:;,()]+")
#: The service of the IAM action AWS says a caller may not perform (kept in quotes by the
#: fingerprint): for another service's, the same AccessDenied is another error (``kms`` is
#: not ``secretsmanager``); one service's actions are often one policy's (ECR's push).
_DENIED_ACTION = lazy(r"\bnot authorized to perform: '([\w-]+):[\w*]+'")


#: The port a server could not listen on, as a fingerprint holds it (a known service's name,
#: ``'postgresql'``, or ``port 8080``; :data:`kenning.fingerprints._BIND_PORT`), not one from
#: 32768 up (masked: a test server's, any port).
_BOUND_PORT = lazy(
    r"\b(?:bind for|listen (?:tcp|udp)[46]?) <host>:('[\w-]+'|port \d+)"
    r"(?= failed\b|: bind: address already in use)"
    r"|\blisten eaddrinuse:? (?:address already in use )?<host>:('[\w-]+'|port \d+)"
    r"|\bbind on address \(<host>, ?('[\w-]+'|port \d+)\)"
)


def _bound_ports(fingerprint: str) -> set[str]:
    """The ports ``fingerprint`` says a server could not listen on, whichever wording (each
    wording's group of :data:`_BOUND_PORT`)."""
    return {next(port for port in m.groups() if port) for m in _BOUND_PORT.finditer(fingerprint)}


#: A file a program could not open, as a fingerprint says it (Python's, the C library's).
_MISSING_FILE = lazy(r"\bno such file or directory\b|\benoent\b")


def _same_name(one: str, other: str, kind: str = "") -> bool:
    """Whether two missing names of ``kind`` are one thing: the same, or one a part of the
    other (``yaml`` and ``yaml.cyaml``; ``@acme/ui`` and ``@acme/ui/button``). Of two paths
    rustc could not resolve, one that ends the other (``fs::nope`` of E0433's ``cannot find
    `nope` in `fs```, which names the module it looked in alone, and E0432's
    ``std::fs::nope``; ``config::settings`` and ``crate::config::settings``), not one that
    begins it: rustc names a path up to the name it could not find, so ``crate::config``
    (no module config) is not ``crate::config::settings`` (no settings in it)."""
    if kind == "rust path":
        return one == other or one.endswith("::" + other) or other.endswith("::" + one)
    return (
        one == other
        or one.startswith((other + ".", other + "/"))
        or other.startswith((one + ".", one + "/"))
    )


def _same_shape(one: str, other: str) -> bool:
    """Whether two fingerprints have one :func:`_shape`, whatever punctuation sits between
    its words (terraform's summary and detail are joined by ``:``, a note written by hand
    may join them by ``.``; Rails logs ``RecordNotFound (Couldn't find …):``, its exception
    says ``RecordNotFound: Couldn't find …``)."""

    def words(fingerprint: str) -> list[str]:
        return [_SHAPE_PUNCTUATION.sub(" ", part).strip() for part in _shape(fingerprint)]

    return words(one) == words(other)


#: A Rust assert_eq!/assert_ne! panic's fingerprint (:mod:`kenning.fingerprints` keeps its
#: values): its assert (``==`` or ``!=``) and values, after its test's thread and location
#: and a custom message.
_RUST_ASSERT_VALUES = lazy(
    r"^thread\s\S{1,300}\spanicked\sat\s<path>:\sassertion\s`left\s([=!]=)\sright`\sfailed\b"
    r"[^\n]{0,400}?\sleft:\s([^\n]{0,700})$"
)


def another_code_or_name(query_fingerprint: str | None, entry_fingerprint: object) -> bool:
    """Whether an entry's error fingerprint is another error's than the query's: each names an
    error code and none is the other's, or it is the query's but for the numbers and names it
    keeps (an exit code, status, errno, an assert's values; the missing module, the undefined
    name, the types that do not fit): the same error's shape (whatever punctuation joins its
    parts), with another code or name, is another error. So is AWS's AccessDenied for an
    action of another service. Also when one holds the other whole, words around it (a
    prompt's "CI job 'tests' failed: …exit code 139", an entry's "assert 401 == 200 in
    <path>"), its values another error's."""
    if not query_fingerprint or not isinstance(entry_fingerprint, str):
        return False
    if entry_fingerprint == query_fingerprint:
        return False
    return _remembered_another_code_or_name(query_fingerprint, entry_fingerprint)


def _another_code_or_name(query_fingerprint: str, entry_fingerprint: str) -> bool:
    """:func:`another_code_or_name` of two fingerprints that differ, worked out."""
    # a Rust assert_eq!/assert_ne! panic with other values, whichever test's (a thread named
    # after it) and custom message: another test's "left: 6 right: 5" came at 0.81-0.87 for
    # "left: 401 right: 200", the words around the values those of every such panic
    query_assert = _RUST_ASSERT_VALUES.search(query_fingerprint)
    entry_assert = _RUST_ASSERT_VALUES.search(entry_fingerprint)
    if query_assert and entry_assert:
        return query_assert.group(1, 2) != entry_assert.group(1, 2)
    # each names its error's code, and no code of one is the other's: ERR_PNPM_FETCH_404 is
    # not ERR_PNPM_FETCH_401, P2025 not P2002, whatever the words around them
    query_codes = set(_ERROR_CODE.findall(query_fingerprint))
    entry_codes = set(_ERROR_CODE.findall(entry_fingerprint))
    if (
        query_codes
        and entry_codes
        and not _same_code(query_codes, entry_codes)
        and not _one_rust_name(query_codes, query_fingerprint, entry_codes, entry_fingerprint)
    ):
        # ... unless the query holds the entry's message (what follows its last code) whole:
        # a prompt that names a code fixed before ("fixed the TS2307 import, now Type
        # 'string' is not assignable …")
        said = list(_ERROR_CODE_SAID.finditer(entry_fingerprint))
        message = " ".join(entry_fingerprint[said[-1].end() :].split()).strip(" :")
        return len(message) < ANOTHER_CODE_MIN_CHARS or message not in " ".join(
            query_fingerprint.split()
        )
    # a missing module, package or command of another name, however its language or tool
    # words it: Node's "Cannot find module 'lodash'" is not Python's "No module named
    # 'yaml'" (whose fix came first for it at 0.46-0.50, qa-s69c F2), nor "fd" "rg"; nor is
    # one name of another kind: Python's 'express' got Node's npm ci fix at 0.83, Node's
    # 'rg' the ripgrep command's at 0.67 (qa-s69d F6); nor is a path rustc could not resolve
    # (``unresolved import `serde::Foo```: serde was found) a crate missing from Cargo.toml
    # (`chrono::NaiveDateTimee` got `chrono`'s cargo add fix at 0.97), nor another path
    # (``crate::config::Settings`` is not ``chrono::NaiveDateTimee``, every one of them
    # was each other's exact match, 1.0), nor an npm package's 404 (0.40-0.54)
    from .fingerprints import missing_names  # (loaded already: the fingerprints are its)

    query_missing = missing_names(query_fingerprint)
    entry_missing = missing_names(entry_fingerprint)
    if query_missing and entry_missing:
        return not any(
            kind == other_kind and _same_name(name, other, kind)
            for kind, name in query_missing
            for other_kind, other in entry_missing
        )
    # ... nor a missing file, in any language's wording of the missing thing: "No module
    # named 'yaml'" got the fix of FileNotFoundError's 'config.yaml' at 0.81 by the word its
    # fix shares, and Node's "Cannot find module 'yaml'", Rust's unresolved import and
    # bash's "yaml: command not found" at 0.67-0.78, its only answer (qa-s70b F5); a module
    # named by its path ('./config', '/app/dist/server.js') is a file, and may be that one
    missing = query_missing or entry_missing
    if (
        (query_missing and _MISSING_FILE.search(entry_fingerprint))
        or (entry_missing and _MISSING_FILE.search(query_fingerprint))
    ) and not any("/" in name or name.startswith(".") for _, name in missing):
        return True
    # ... nor is a path masked (an entry of older rules, not renewed yet: `chrono`'s cargo add
    # fix was held from `chrono::NaiveDateTimee`'s, as rules 28 wrote it, only by this)
    if _one_missing_crate_one_masked_path(
        query_missing, query_fingerprint, entry_fingerprint
    ) or _one_missing_crate_one_masked_path(entry_missing, entry_fingerprint, query_fingerprint):
        return True
    # a port a server could not listen on, another than the query's: another program holds
    # it, whichever wording (Docker's userland proxy, its "port is already allocated", Go's
    # listen) and whether or not a known service's (the Go dev proxy's :8080 fix came first
    # at 0.53 for Docker's bind of 5432, qa-s69b F4)
    query_ports = _bound_ports(query_fingerprint)
    entry_ports = _bound_ports(entry_fingerprint)
    if query_ports and entry_ports and not query_ports & entry_ports:
        return True
    if not _KEPT_VALUE.search(query_fingerprint):
        return False
    query_actions = set(_DENIED_ACTION.findall(query_fingerprint))
    entry_actions = set(_DENIED_ACTION.findall(entry_fingerprint))
    if query_actions and entry_actions and not query_actions & entry_actions:
        return True
    if _same_shape(entry_fingerprint, query_fingerprint):
        return _kept_values(entry_fingerprint) != _kept_values(query_fingerprint)
    held = _one_inside_the_other(query_fingerprint, entry_fingerprint)
    if held is None:
        return False
    values, outer, found = held
    if set(values) <= set(_kept_values(outer)):  # (an entry may name two modules, two codes)
        return False
    return bool(found) and values not in found


#: :func:`another_code_or_name`'s answers kept (a pure function of the two fingerprints): a
#: recall asks it of each candidate for each query fingerprint, in its ranking and again in
#: its hold on another code's entry, and a hook asks it of the same entries for a prompt's
#: each error. Longer pairs are worked out each time.
_remembered_another_code_or_name = remembered(_another_code_or_name)


def _one_inside_the_other(one: str, other: str) -> tuple[list[str], str, list[list[str]]] | None:
    """Of two fingerprints, the shorter one's kept values, the longer one, and the values of
    each place the longer holds the shorter's shape (whole words, any values where it has
    its own); None when the shorter is no error's shape to look for (too short, nothing
    kept, a list of values)."""
    inner, outer = sorted((one, other), key=len)
    values = _kept_values(inner)
    if len(inner) < ANOTHER_CODE_MIN_CHARS or not values or len(values) > _MAX_KEPT_VALUES:
        return None
    value = r"(?:\d+|'[^'\n]*'|\"[^\"\n]*\"|`[^`\n]*`)"
    shape = value.join(re.escape(part) for part in _shape(inner))
    found = [_kept_values(m.group(0)) for m in re.finditer(rf"(?<!\w){shape}(?!\w)", outer)]
    return values, outer, found


def _same_error(query_fingerprint: str, entry_fingerprint: object) -> bool:
    """Whether an entry's error fingerprint is the query's error, said with words around it
    or not (``assert 404 == 200 in <path>`` for ``assert 404 == 200``): one error a request
    tells, whatever another it tells beside it."""
    if not isinstance(entry_fingerprint, str):
        return False
    if entry_fingerprint == query_fingerprint:
        return True
    if _same_shape(entry_fingerprint, query_fingerprint):
        return _kept_values(entry_fingerprint) == _kept_values(query_fingerprint)
    held = _one_inside_the_other(query_fingerprint, entry_fingerprint)
    return held is not None and held[0] in held[2]


def another_error_than_told(
    fingerprints: Sequence[str],
    entry_fingerprint: object,
    another: Callable[[str, object], bool] = another_code_or_name,
) -> bool:
    """Whether an entry is of ``another`` code or name than an error a query tells
    (:func:`another_code_or_name`) and is none of the errors it tells: of "KeyError:
    'user_id' and … No module named 'yaml'", the fix of ``No module named 'celery'`` is
    held; of "assert 401 == 200 … assert 404 == 200", that of ``assert 404 == 200 in
    <path>`` is not."""
    return any(another(f, entry_fingerprint) for f in fingerprints) and not any(
        _same_error(f, entry_fingerprint) for f in fingerprints
    )


#: An exception class as a fingerprint holds it (lower-cased), with its message after it or in
#: a wrapper's parentheses (``keyerror: <q>``, ``(psycopg.operationalerror)``), without its
#: module (``sqlalchemy.exc.`` and ``psycopg.`` raise one OperationalError by name).
_EXCEPTION_CLASS = lazy(
    r"(?<!\w)([a-z_]\w*?[a-z0-9](?:error|exception|warning))(?=\s*(?:[:(),\]]|$))"
)


#: pytest's failed assert as a fingerprint holds it: ``assert 401 == 200``, the
#: ``AssertionError:`` it is raised as left out (so the summary's line and the traceback's
#: are one error; :func:`kenning.fingerprints.error_fingerprint`).
_PYTEST_ASSERT = lazy(r"^assert\s")
#: Python's messages a person types without their class (``No module named 'yaml'``, a
#: ModuleNotFoundError; ``cannot import name 'x' from 'y'``, an ImportError): their
#: fingerprint names the class as the whole error's does, so an entry about another
#: exception is held as it is for the whole error (qa-s69a F1).
_IMPLIED_CLASS = lazy(r"^(?:(no module named )|cannot import name )")


#: The system error codes Node prints (libuv's, c-ares' for a host it could not look up) as
#: a fingerprint holds them (lower-cased): ``connect econnrefused <host>:port 3000``,
#: ``getaddrinfo enotfound <host>``, ``enoent: no such file or directory, open <q>``. Not
#: ``EOF``, a word of other errors' messages (``unexpected eof``).
_SYSTEM_ERROR_CODE = lazy(
    r"(?<![\w-])(e(?:2big|acces|addrinuse|addrnotavail|afnosupport|again|ai_again|ai_fail"
    r"|ai_nodata|ai_noname|already|badf|busy|canceled|connaborted|connrefused|connreset"
    r"|destaddrreq|exist|fault|fbig|hostdown|hostunreach|intr|inval|io|isconn|isdir|loop"
    r"|mfile|msgsize|nametoolong|netdown|netunreach|nfile|nobufs|nodata|nodev|noent|nomem"
    r"|nonet|noprotoopt|nospc|nosys|notconn|notdir|notempty|notfound|notsock|notsup"
    r"|notty|nxio|overflow|perm|pipe|proto|protonosupport|range|refused|rofs|servfail"
    r"|shutdown|spipe|srch|timedout|timeout|txtbsy|xdev))(?![\w-])"
)


#: The call Node names beside a system error code (``read ECONNRESET``, ``connect
#: ECONNREFUSED``, ``ENOENT: …, open '…'``): what it was doing, not what failed (``read``
#: is a word of ``Cannot read properties of undefined`` too).
# fmt: off
_SYSCALLS = frozenset({
    "access", "bind", "chmod", "chown", "close", "connect", "copyfile", "getaddrinfo",
    "listen", "lstat", "mkdir", "open", "opendir", "read", "readlink", "realpath", "rename",
    "rmdir", "scandir", "spawn", "stat", "symlink", "unlink", "watch", "write",
})
# fmt: on


def _named(fingerprint: str) -> set[str]:
    """What an error's fingerprint names: its exception classes, else the system error code
    Node prints for it (``ENOTFOUND``, ``ECONNREFUSED``, ``ENOENT``): the error it is about,
    as a class names one."""
    return _exception_classes(fingerprint) or set(_SYSTEM_ERROR_CODE.findall(fingerprint))


def _exception_classes(fingerprint: str) -> set[str]:
    found = set(_EXCEPTION_CLASS.findall(fingerprint))
    if found:
        return found
    if _PYTEST_ASSERT.match(fingerprint):
        # an AssertionError by another name: a fix of a failed assert came back at 0.42 for
        # "KeyError: 'tenant_id'" (qa-s69a F5), where another class's is held to the floor
        found.add("assertionerror")
    elif (implied := _IMPLIED_CLASS.match(fingerprint)) is not None:
        found.add("modulenotfounderror" if implied.group(1) else "importerror")
    return found


#: What a fingerprint masked (``<q>``, ``<path>``), and the words every error's message may
#: say: neither tells two errors' messages apart.
_MASKED = lazy(r"<[a-z]+>")
_CLASS_SUFFIX = lazy(r"(?:error|exception|warning)$")
#: The module an exception class is raised from (``django.db.utils.``, ``java.lang.``):
#: two errors of one library share it, whatever they are.
_CLASS_MODULE = lazy(r"(?<![\w.])(?:[a-z_]\w*\.)+(?=[a-z_]\w*?(?:error|exception|warning)\b)")
_MESSAGE_WORD = lazy(r"[a-z0-9]+")
# fmt: off
_ANY_ERRORS_WORDS = frozenset({
    "a", "an", "and", "are", "at", "be", "been", "by", "can", "cannot", "could", "did", "does",
    "error", "errors", "exc", "exception", "exceptions", "fail", "failed", "failure", "fatal",
    "for", "from", "has", "have", "in", "is", "it", "its", "no", "not", "of", "on", "or", "t",
    "that", "the", "this", "to", "unable", "was", "were", "warning", "with",
    # (said of any value: "'NoneType' object", "name 'x'", KeyError's own "key")
    "key", "name", "object", "type", "value",
})
# fmt: on


def _message_words(fingerprint: str) -> set[str]:
    """The words of an error's message (its fingerprint's, without its masks, the modules
    its exception classes are raised from and the words any error says), an exception class
    read as the word it is named after (``FetchError`` as ``fetch``: Node 18's ``TypeError:
    fetch failed`` is node-fetch's refused request)."""
    classes = _exception_classes(fingerprint)
    said = _CLASS_MODULE.sub("", _MASKED.sub(" ", fingerprint))
    words = set(_MESSAGE_WORD.findall(said)) - classes
    words |= {_CLASS_SUFFIX.sub("", name).strip("_") for name in classes}
    return words - _ANY_ERRORS_WORDS


def names_another_exception(query_fingerprints: Sequence[str], entry_fingerprint: object) -> bool:
    """Whether an ERROR-FIX entry is about another exception than each of a request's errors
    (``query_fingerprints``): each names its exception class, none of the entry's is one of
    the query's, nor a class named after it (a subclass often is: numpy's
    ``_ArrayMemoryError`` is a ``MemoryError``, fastapi's ``RequestValidationError`` a
    ``ValidationError``, ``ImportError`` and ``ModuleNotFoundError`` are not), and their
    messages share no word: one failure is often raised as two classes by two libraries
    (kombu's ``OperationalError`` and redis's ``ConnectionError`` for ``[Errno 111]
    Connection refused``, a chained trace's root cause and its last exception, Hibernate's
    and Jackson's ``could not initialize proxy - no Session``).

    Such an entry is not held to the error floor: that floor is lower because an entry about
    the query's error is long against it (MiniLM's cosine compresses), and this one is not
    about it. A fix of ``psycopg.OperationalError`` came back at 0.41 for ``KeyError:
    'customer_id'``, a ``kombu`` connection refused at 0.49 for ``redis``'s TimeoutError
    (qa-week F4); the same problem raised as another class (``IOError`` for
    ``FileNotFoundError``, a requests ``ConnectionError`` for ``ConnectionRefusedError``)
    scores above the generic floor (0.54-0.99 over 20 such pairs)."""
    if not query_fingerprints or not isinstance(entry_fingerprint, str):
        return False
    entry = _exception_classes(entry_fingerprint)
    if not entry:
        return False
    said = _message_words(entry_fingerprint)
    for fingerprint in query_fingerprints:
        query = _named(fingerprint)
        words = _message_words(fingerprint)
        if not _exception_classes(fingerprint):
            words -= _SYSCALLS  # (named by its code)
        if not query or said & words:
            return False
        for one in query:
            if any(one.endswith(other) or other.endswith(one) for other in entry):
                return False
    return True


def about_another_error(exact_fingerprints: Iterable[str], entry_fingerprint: object) -> bool:
    """Whether an ERROR-FIX entry is about another error than each of those a request's
    error queries matched exactly (``exact_fingerprints``): no exception class of the
    entry's is one of theirs (nor named after one, as :func:`names_another_exception`
    reads them) and its message shares no word with theirs. A Go panic's fix is about
    another error than ``ModuleNotFoundError: No module named 'yaml'``; the fix of numpy's
    ``'float'`` is not, beside the exact fix of its ``'int'`` (one class, one message but
    the name: numpy 1.24 removed them together). An entry without a fingerprint is not."""
    if not isinstance(entry_fingerprint, str):
        return False
    entry, said = _exception_classes(entry_fingerprint), _message_words(entry_fingerprint)
    for fingerprint in exact_fingerprints:
        if said & _message_words(fingerprint):
            return False
        for one in _exception_classes(fingerprint):
            if any(one.endswith(other) or other.endswith(one) for other in entry):
                return False
    return True


def _another_code(query_fingerprint: str, entry_fingerprint: object) -> bool:
    """:func:`another_code_or_name`, told by codes or numbers alone (an exit code, a status,
    an errno, an assert's values, an error code), no name: ``exit code 137`` is not 139's
    error, where the fix of ``module 'numpy' has no attribute 'float'`` is often that of
    ``'int'`` too (numpy 1.24 removed them together)."""
    if not isinstance(entry_fingerprint, str):
        return False
    if not another_code_or_name(query_fingerprint, entry_fingerprint):
        return False
    differ = set(_kept_values(query_fingerprint)) ^ set(_kept_values(entry_fingerprint))
    return all(value.isdigit() for value in differ)


#: Classes an application raises with its own words (Python's ``RuntimeError``, Java's
#: ``RuntimeException``): an error of one of these alone names no more than ``Error:`` does.
_GENERIC_CLASSES = frozenset({"runtimeerror", "runtimeexception"})


def _names_no_class(fingerprint: str) -> bool:
    # (Node's ``TypeError: fetch failed`` over its cause names none: it found the browser's
    # ``TypeError: Failed to fetch``, a CORS fix, at 0.90 as a fallback of Node 20's outputs)
    return _exception_classes(without_cause_wrapper(fingerprint)) <= _GENERIC_CLASSES


def kept_candidates(
    candidates: list[Candidate],
    fingerprints: Sequence[str],
    fallback: bool,
    query: str,
    among_errors: bool = True,
) -> list[Candidate]:
    """The ``candidates`` of ``query``, whose errors have ``fingerprints``, that are kept: all
    of them but, in a recall ``among_errors`` (one of its queries an error), an ERROR-FIX
    entry of a failed test named alone that is no exact match and whose test ``query`` does
    not name (:func:`fix_of_another_test`), and of a ``fallback``
    whose errors name no specific exception class (a bare
    ``Error:`` with the app's own words, a ``RuntimeError``, a message alone, Node's
    ``TypeError: fetch failed`` over its cause) an ERROR-FIX
    entry of a named class only as an exact match. Node's outer ``Error: could not load the
    config`` found a .NET ``DirectoryNotFoundException``'s fix at 0.84 (qa74 F1); the loose
    hits such a line finds rightly are entries in its own words (yellow's ``[yellow-codex]
    Error: authentication failed``, 0.78), which name no class either. And of a query that
    names a failed test and no error (:func:`tests_named_alone`), only its exact match and
    the memories that name the test."""
    if among_errors:  # (a recall of words alone, describing a fix, finds it by meaning)
        candidates = [
            c for c in candidates if c.match == "fingerprint" or not fix_of_another_test(c, query)
        ]
    tests = tests_named_alone(fingerprints)
    if tests:
        return [c for c in candidates if c.match == "fingerprint" or names_a_test(c.memory, tests)]
    if not fallback or not all(map(_names_no_class, fingerprints)):
        return candidates
    return [c for c in candidates if c.match == "fingerprint" or _names_no_class_of(c.memory)]


#: A failed test named alone, as its runner prints one that failed without a message: go
#: test's ``--- FAIL: TestLock (0.00s)`` (a test that called ``t.Fail()`` or logged nothing,
#: its subtest's ``TestLock/timeout``), libtest's ``test tests::x ... FAILED`` or, with
#: ``-q``, ``tests::x --- FAILED`` (its panic not pasted); as fingerprinted.
_TEST_NAMED_ALONE = lazy(
    r"^(?:--- fail: (?P<go>[^\s/]+)\S* \(<n>\)"
    r"|(?:test )?(?:\S+::)?(?P<rust>\w+) (?:\.\.\. |--- )failed)$"
)


def tests_named_alone(fingerprints: Sequence[str]) -> list[str]:
    """The tests (go's function, Rust's test's last name) that the error fingerprints of a
    query name, when each names a failed test and no error (:data:`_TEST_NAMED_ALONE`);
    ``[]`` when one tells an error. A test's name is no error: its words found unrelated
    fixes by their meaning ("--- FAIL: TestLock (0.00s)" found sqlite's "database is
    locked" fix at 0.43, over the error floor), where a fix of that test names it."""
    tests: list[str] = []
    for fingerprint in fingerprints:
        named = _TEST_NAMED_ALONE.match(fingerprint)
        if named is None:
            return []
        tests.append(named.group("go") or named.group("rust"))
    return tests


def fix_of_another_test(candidate: Candidate, query: str) -> bool:
    """Whether ``candidate`` is an ERROR-FIX entry whose error is a failed test named alone
    (:data:`_TEST_NAMED_ALONE`: ``--- FAIL: TestLock (0.00s) | FIX: unlock in a defer``), found
    loosely by a ``query`` that does not name that test (a whole word, in any case). Such an
    entry's error is a test's name, whose meaning is every test's failure:
    ``--- FAIL: TestLoginReturns200 (0.00s): got 401, want 200`` found that fix at 0.46, over
    the error floor. The query that names the test finds it (``TestLock fails, why?``, its
    subtest's failure ``--- FAIL: TestLock/timeout (0.00s): …``), its heading by fingerprint
    (qa77's converse of :func:`tests_named_alone`)."""
    memory = candidate.memory
    entry = memory.metadata.get("error_fingerprint")
    if candidate.match == "fingerprint" or not isinstance(entry, str):
        return False
    tests = tests_named_alone([entry])
    if not tests or not is_error_fix(memory):
        return False
    return not _names_any(query.lower(), tests)


def is_error_fix(memory: Memory) -> bool:
    """Whether ``memory`` is an ERROR-FIX entry (of that type, or written as one)."""
    return memory.type == "error_fix" or starts_as_error_fix(memory.content)


def names_a_test(memory: Memory, tests: Sequence[str]) -> bool:
    """Whether ``memory`` names one of ``tests`` (a whole word, in any case: a fingerprint's
    name is folded)."""
    return _names_any(memory.content.lower(), tests)


def _names_any(text: str, tests: Sequence[str]) -> bool:
    return any(re.search(rf"(?<!\w){re.escape(test)}(?!\w)", text) for test in tests)


def _names_no_class_of(memory: Memory) -> bool:
    entry = memory.metadata.get("error_fingerprint")
    return not isinstance(entry, str) or _names_no_class(entry)


def fallback_hit_given(result: SearchResult, recall_floor: float) -> bool:
    """Whether a fallback's hit is given: an exact match of its error, or one that scores
    :data:`FALLBACK_LOOSE_FLOOR` (``recall_floor``, the project's, when higher)."""
    return result.match == "fingerprint" or result.semantic >= max(
        recall_floor, FALLBACK_LOOSE_FLOOR
    )


def first_exact_matches(found: Sequence[Sequence[Candidate]]) -> dict[str, int]:
    """Each query's best exact match (``found``: each query's candidates, best first), with
    the query's place: the first memory a query matches exactly that no query before it
    led with (:func:`~kenning.freshness.exact_matches_first` gives them first)."""
    leads: dict[str, int] = {}
    for asked, candidates in enumerate(found):
        lead = next(
            (c for c in candidates if c.match == "fingerprint" and c.memory.id not in leads), None
        )
        if lead is not None:
            leads[lead.memory.id] = asked
    return leads


#: A failed test's error as its runner names the test over it, as fingerprinted: go test's
#: ``--- fail: testx (<n>): msg`` (a subtest's failure under its parent's name), libtest's
#: panic in its test's thread ``thread tests::x panicked at <path>: msg`` (not a program's
#: ``main``), jest's ``● suite › test: msg``, vitest's ``fail <path> > suite > test: msg``.
_FAILED_TEST = lazy(
    r"^(?:--- fail: (?P<go>[^\s/]+)\S* \(<n>\):"
    r"|thread (?!main panicked)(?P<rust>\w+(?:::\w+)*) panicked at (?:<path>:)?"
    r"|● (?P<jest>[^\n]+?):"
    r"|fail \S+ > (?P<vitest>[^\n]+?):)"
    r"\s(?P<message>\S[^\n]*)$"
)


def _failed_test(fingerprint: str) -> tuple[str, str] | None:
    """The test and message of a failed test's error fingerprint (:data:`_FAILED_TEST`), else
    None; a jest title's ``›`` is vitest's ``>`` (one test, its project moved to vitest)."""
    failed = None if "\n" in fingerprint else _FAILED_TEST.match(fingerprint)
    if failed is None:
        return None
    test = next(name for name in failed.group("go", "rust", "jest", "vitest") if name)
    return test.replace(" › ", " > "), failed.group("message")


def another_tests_failure(fingerprints: Sequence[str], entry_fingerprint: object) -> bool:
    """Whether an entry's error fingerprint is the failure of another test than those a
    request's errors (``fingerprints``: those it tells and those it looks its entries up by,
    a failed test's with its test named) are failures of, with a message none of them says:
    a fix of that test's failure, found by the words every failure of its runner shares and
    by the numbers it masks alike (TestSumsThePrices' ``total([<n>]) = <n>; want <n>`` came
    at 0.86 for TestDiscounts' ``discount(<n>) = <n>; want <n>``, at 0.55 for
    TestLoginReturns200's ``got <n>, want <n>``, qa79 F3). The same message under another
    test is one cause (``dial tcp …: connect: connection refused`` in TestA and TestB), and
    a request that asks no failed test's error holds nothing by this."""
    if not isinstance(entry_fingerprint, str):
        return False
    entry = _failed_test(entry_fingerprint)
    if entry is None:
        return False
    asked = [_failed_test(f) for f in fingerprints]
    tests = {failed[0] for failed in asked if failed}
    if not tests or entry[0] in tests:
        return False
    messages = [failed[1] if failed else f for failed, f in zip(asked, fingerprints, strict=True)]
    return not any(_same_error(message, entry[1]) for message in messages)


def held_for(
    candidate: Candidate, fingerprints: Sequence[str], lookups: Sequence[str] = ()
) -> float:
    """``candidate``'s score in a request (a prompt's words and the errors it tells) whose
    errors have ``fingerprints``: at most :data:`ANOTHER_CODE_SCORE` when it is an ERROR-FIX
    entry of another code than one of them (:func:`_another_code`) and none of them, unless
    it is the exact match of its query. So the request's other queries hold it as its error
    queries do. Not of another name: the words may find the fix of a family of names, or
    the one they describe ("the systemd service uses the system python, not the venv: No
    module named 'yaml'"). And 0 when the errors name failed tests alone
    (:func:`tests_named_alone`) and it is an ERROR-FIX entry that names none of them: the
    words a person writes above such a run ("The tests fail, why?") found another test's fix
    at 0.44 by their meaning, where the run's own query keeps its exact fix and what names
    the test (:func:`kept_candidates`, qa77 F1); notes are the words' to find. And 0 when it
    is an ERROR-FIX entry of another test's failure than the failed tests the errors are
    (``lookups``: the fingerprints they were looked up by name them), with another message
    (:func:`another_tests_failure`): the words of the request find it by their meaning as the
    failure's do."""
    if candidate.match == "fingerprint":
        return candidate.semantic
    tests = tests_named_alone(fingerprints)
    memory = candidate.memory
    if tests and not names_a_test(memory, tests) and is_error_fix(memory):
        return 0.0
    entry = candidate.memory.metadata.get("error_fingerprint")
    if another_tests_failure([*fingerprints, *lookups], entry) and is_error_fix(memory):
        return 0.0
    if another_error_than_told(fingerprints, entry, _another_code):
        return min(candidate.semantic, ANOTHER_CODE_SCORE)
    return candidate.semantic


#: What :func:`memories_bm25` scores a memory by (a memory id, a candidate's index).
_Key = TypeVar("_Key")


def lexical_idfs(rows: int, frequencies: Mapping[str, int]) -> dict[str, float]:
    """The idf of each query term found in the store (``frequencies``: its document
    frequency among ``rows`` memories), the store counted as at least
    :data:`LEXICAL_MIN_ROWS`."""
    counted = max(rows, LEXICAL_MIN_ROWS)
    return {term: idf(counted, n) for term, n in frequencies.items() if n > 0}


def memories_bm25(
    counted: Mapping[_Key, tuple[Mapping[str, int], int]], idfs: Mapping[str, float]
) -> dict[_Key, float]:
    """The lexical strength of each memory in the hybrid score, by its key:
    :func:`kenning.lexical.bm25` of its term frequencies (the query terms' ``idfs`` from
    :func:`lexical_idfs`) and its length in tokens, normalised against
    :data:`LEXICAL_REFERENCE_LENGTH`, not against the store's average, which unrelated
    memories would move. One call for a query's candidates (~40 a recall)."""
    return bm25_of_each(counted, idfs, LEXICAL_REFERENCE_LENGTH)


def memory_bm25(
    term_frequencies: Mapping[str, int], idfs: Mapping[str, float], length: int
) -> float:
    """:func:`memories_bm25` of one memory."""
    return memories_bm25({None: (term_frequencies, length)}, idfs)[None]


def onto_cosine_scale(total: float) -> float:
    """``total`` (cosine plus bonus) on the cosine scale [-1, 1]: unchanged up to
    :data:`SCORE_KNEE`, then bent smoothly towards 1 without reaching it, so that order is
    kept. Cutting at 1 instead tied every match that passed it (0.95 + 0.40 and 0.90 + 0.25
    both 1.00) and the tie fell to the memories' ids: keeping the order changed 9 of the
    dev queries' top-1 on the ruff and LoCoMo sets, 7 from wrong to right, 2 (won by the
    alphabet) from right to wrong."""
    if total <= SCORE_KNEE:
        return max(-1.0, total)
    room = 1.0 - SCORE_KNEE
    return SCORE_KNEE + room * -math.expm1(-(total - SCORE_KNEE) / room)


def lexical_bonus(lexical: float, best: float, coverage: float) -> float:
    """The bonus a lexical match adds to the cosine (0 without a lexical match)."""
    if lexical <= 0 or best <= 0 or coverage <= 0:
        return 0.0
    strength = min(1.0, best / LEXICAL_FULL_STRENGTH)
    return LEXICAL_WEIGHT * min(1.0, lexical / best) * strength * min(1.0, coverage) ** 2


def fused_score(cosine: float, lexical: float, best: float, coverage: float) -> float:
    """Dense cosine plus the lexical bonus, reported on the cosine scale [-1, 1].

    Two different "above 1"s: the *cosine* must already be one (a value past ±1 by more
    than rounding means a vector that is not unit length got in, and raises
    :class:`~kenning.vectors.ScoreOutOfRange` instead of becoming a perfect 1.00). The *sum*
    may pass 1 legitimately — a near-identical note that also shares the query's rare words
    (cosine 0.95 + a bonus of up to :data:`LEXICAL_WEIGHT`) — and is bent below 1 by
    :func:`onto_cosine_scale`, the top of the scale the protocol floors are set on, keeping
    the order of two such matches.
    """
    checked = checked_cosine(cosine)
    return onto_cosine_scale(checked + lexical_bonus(lexical, best, coverage))


@dataclass(frozen=True)
class LexicalEvidence:
    """What a hybrid query's lexical side found (gathered while the query is embedded)."""

    #: The lexical top: each hit's memory and its FTS BM25, best first.
    hits: Sequence[tuple[Memory, float]]
    #: The stored vectors of ``hits``, by memory id.
    vectors: Mapping[str, np.ndarray]
    #: ERROR-FIX entries whose error fingerprint the query's signature matches.
    fingerprint_matches: Sequence[Memory]
    #: :func:`kenning.lexical.text_statistics` of each hit's content, by memory id.
    counted: Mapping[str, tuple[Mapping[str, int], int]]
    #: The idf of each query term (:func:`lexical_idfs`).
    idfs: Mapping[str, float]
    #: The fingerprints of the errors the query tells (none: not an error query), by which
    #: an entry of another code or name is told (:func:`kenning.store_read.query_fingerprints`).
    fingerprints: tuple[str, ...] = ()
    #: Every fingerprint an entry matches the query by: those, and its whole signature's.
    lookups: tuple[str, ...] = ()


def hybrid_candidates(
    query: str,
    vector: np.ndarray,
    dense: Sequence[tuple[Memory, float]],
    lexical: LexicalEvidence,
    *,
    directions: bool = False,
) -> tuple[list[Candidate], list[tuple[str, str]]]:
    """Every candidate of a hybrid query, best first (equal scores: by id), and the lexical
    hits left out because their stored vector is unusable (id, what is wrong with it).

    ``dense`` is the vector search's top (memory, cosine). Each candidate of either side
    scores its cosine plus a bounded lexical bonus (:func:`fused_score`): the bonus is the
    memory's BM25 over the query's terms against the best among the candidates, times how
    many of the query's terms it holds. An exact error-fingerprint match scores at least
    :data:`FINGERPRINT_SCORE`; an entry of an error the query tells with another code or
    name, and of none it tells (:func:`another_error_than_told`), at most
    :data:`ANOTHER_CODE_SCORE`. A lexical hit without a usable vector is left out: its score
    would mean nothing. ``directions``: the store's search scores a vector by its direction
    (a server's), as the lexical hits' cosines are then (:func:`_cosines_of`)."""
    cosines = {m.id: score for m, score in dense}
    memories = {m.id: m for m, _ in dense}
    unscored = [m.id for m, _ in lexical.hits if m.id not in cosines]
    found, skipped = _cosines_of(vector, lexical.vectors, unscored, directions)
    cosines.update(found)
    found_lexically: dict[str, float] = {}
    for memory, score in lexical.hits:
        if memory.id in cosines:
            found_lexically[memory.id] = score
            memories.setdefault(memory.id, memory)
    # every candidate is scored lexically, found by the lexical side or not: whether it is
    # among the lexical top k depends on the other memories, its words do not
    counted = {
        i: lexical.counted[i] if i in lexical.counted else text_statistics(m.content)
        for i, m in memories.items()
    }
    lexical_scores = memories_bm25(counted, lexical.idfs)
    best_lexical = max(lexical_scores.values(), default=0.0)
    asked = set(query_terms(query))
    told = lexical.fingerprints  # (none: not an error query, and no entry is held down)
    scored: dict[str, Candidate] = {}
    for memory_id, memory in memories.items():
        bm25_found = found_lexically.get(memory_id)
        lexical_score = lexical_scores[memory_id]
        # the counted terms hold the folded ones coverage() would find (and only adds
        # unfolded forms, which a folded query term never equals unless it is the same)
        share = (
            len(asked & counted[memory_id][0].keys()) / len(asked)
            if lexical_score and asked
            else 0.0
        )
        fused = fused_score(cosines[memory_id], lexical_score, best_lexical, share)
        if told and another_error_than_told(told, memory.metadata.get("error_fingerprint")):
            fused = min(fused, ANOTHER_CODE_SCORE)
        scored[memory_id] = Candidate(
            memory, fused, bm25_found, "hybrid" if bm25_found is not None else "dense"
        )
    for memory in lexical.fingerprint_matches:
        previous = scored.get(memory.id)
        # at least FINGERPRINT_SCORE, and the closer the higher: of several entries an error
        # matches (another file's, a masked name's), the one that says it as the query does
        # ranks first (they all scored 0.95, and their order was their ids')
        closeness = max(0.0, min(1.0, previous.semantic)) if previous else 0.0
        semantic = FINGERPRINT_SCORE + (1.0 - FINGERPRINT_SCORE) * closeness
        scored[memory.id] = Candidate(
            memory, semantic, previous.lexical if previous else None, "fingerprint"
        )
    return sorted(scored.values(), key=lambda c: (-c.semantic, c.memory.id)), skipped


def _cosines_of(
    query: np.ndarray,
    vectors: Mapping[str, np.ndarray],
    ids: Sequence[str],
    directions: bool = False,
) -> tuple[dict[str, float], list[tuple[str, str]]]:
    """The cosine of each memory in ``ids`` from its stored vector in ``vectors`` (one
    matrix product for all), and those whose vector is unusable, with what is wrong with it
    (an id without a stored vector is neither). ``directions``: the store's own search
    scores a vector by its direction (a server's backend, whose ``scores_directions`` is
    true), and so does
    this: a finite vector of any length but 0 scores the cosine of its direction, a zero
    vector (another writer's) 0, as Qdrant scores it (qa-team F7)."""
    dimension = query.shape[0]
    shaped = [i for i in ids if i in vectors and np.shape(vectors[i]) == (dimension,)]
    found: dict[str, float] = {}
    if shaped and directions:
        matrix64 = np.stack([vectors[i] for i in shaped]).astype(np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            norms = np.linalg.norm(matrix64, axis=1)
        finite = np.isfinite(norms)
        lengths = np.where(finite & (norms > 0), norms, 1.0)
        with np.errstate(over="ignore", invalid="ignore"):
            cosines = (matrix64 @ query.astype(np.float64)) / lengths
        found = {
            i: float(c)
            for i, c, ok in zip(shaped, cosines.tolist(), finite.tolist(), strict=True)
            if ok
        }
    elif shaped:
        matrix = np.stack([vectors[i] for i in shaped]).astype(np.float32, copy=False)
        scores = (matrix @ query).tolist()
        # vector_problem's test for every row at once (float64 norms; NaN fails it) ...
        off = np.abs(np.linalg.norm(matrix.astype(np.float64), axis=1) - 1.0)
        usable = (off <= UNIT_NORM_TOLERANCE).tolist()
        # ... and vector_problem itself where the last bit of a sum could decide
        for j in np.flatnonzero(np.abs(off - UNIT_NORM_TOLERANCE) < 1e-9).tolist():
            usable[j] = vector_problem(matrix[j], dimension) is None
        found = {i: s for i, s, ok in zip(shaped, scores, usable, strict=True) if ok}
    skipped = [
        (i, vector_problem(vectors[i], dimension) or "is not a unit vector")
        for i in ids
        if i in vectors and i not in found
    ]
    return found, skipped


def expansion_reason(
    primary_results: Sequence[SearchResult],
    best_semantic: float | None,
    primary: Sequence[str],
) -> str | None:
    """Why cascading must expand, or None: fewer than 3 results of the ``primary``
    collections passed the threshold, or their best semantic score (passing or not) is below
    0.5. The reason names those collections: the results shown after cascading are all the
    collections' (qa-s69a F4: "no result passed the threshold" beside one that did)."""
    where = ", ".join(primary)
    if len(primary_results) < CASCADE_MIN_RESULTS:
        n = len(primary_results)
        passed = "no result" if n == 0 else f"only {n} result" + ("s" if n > 1 else "")
        return f"{passed} in {where} passed the threshold, fewer than {CASCADE_MIN_RESULTS}"
    if best_semantic is None or best_semantic < CASCADE_MIN_BEST:
        best = "none" if best_semantic is None else f"{best_semantic:.2f}"
        return f"the best semantic score in {where}, {best}, is below {CASCADE_MIN_BEST}"
    return None


__all__ = [
    "ANOTHER_CODE_SCORE",
    "DEFAULT_COLLECTION",
    "FINGERPRINT_SCORE",
    "LEXICAL_FULL_STRENGTH",
    "LEXICAL_MIN_ROWS",
    "LEXICAL_REFERENCE_LENGTH",
    "LEXICAL_WEIGHT",
    "SCORE_KNEE",
    "SEARCH_DEFAULT_LIMIT",
    "Candidate",
    "LexicalEvidence",
    "SearchPlan",
    "SearchResponse",
    "another_code_or_name",
    "check_limit",
    "check_whole_number",
    "expansion_reason",
    "fused_score",
    "hybrid_candidates",
    "lexical_bonus",
    "lexical_idfs",
    "memories_bm25",
    "memory_bm25",
    "onto_cosine_scale",
    "parse_types",
    "plan_search",
    "rank",
    "ranking_settled",
]
