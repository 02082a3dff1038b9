"""The read path of :class:`~kenning.store.MemoryStore`: hybrid retrieval (the query's
error fingerprint, dense cosine and the lexical side fused), the ruvector recall protocol
and its log, and the AI Memory Module search.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, wait
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from . import config, protocol
from .backends.base import (
    CountsProjects,
    Filters,
    NamesCaseVariants,
    lexical_search_with_vectors,
    reads_directions,
)
from .errors import StoreClosed, UserInputError
from .fingerprint_renewal import fingerprint_now, matching_fingerprint
from .model import (
    Memory,
    RecallResult,
    SearchResult,
    content_hash,
    served,
    utc_now,
)
from .project import case_variants, guards_a_path
from .search import (
    Candidate,
    LexicalEvidence,
    SearchResponse,
    about_another_error,
    check_limit,
    check_whole_number,
    expansion_reason,
    fallback_hit_given,
    first_exact_matches,
    held_for,
    hybrid_candidates,
    is_error_fix,
    kept_candidates,
    lexical_idfs,
    names_another_exception,
    plan_search,
    rank,
    ranking_settled,
)
from .store_base import _check_text
from .store_freshness import StoreFreshness

if TYPE_CHECKING:
    from .config import Settings


log = logging.getLogger("kenning")
#: Candidates fetched per search before threshold and decay re-ranking.
SEARCH_CANDIDATES = 20
#: The widest pool a decayed search ranks (:func:`kenning.search.ranking_settled`): 20 × 4³.
SEARCH_MAX_CANDIDATES = 1280
#: Dense and lexical candidates fetched before fusion (each side).
RETRIEVAL_POOL = 20


@functools.lru_cache(maxsize=16)
def _looks_like_error(query: str) -> bool:
    """:func:`kenning.signatures.looks_like_error`, remembered for the last few queries: a
    recall judges its query (for the floor) and the lexical side judges it again on its own
    thread (for the fingerprint), ~0.1 ms of regular expression each time."""
    from .signatures import looks_like_error as judged

    return judged(query)


def query_fingerprints(query: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The error fingerprints of an error query: those of the errors it tells, and those it
    finds its entries by, which add its whole signature's. A signature that tells its error
    in a sentence (``CI job 'tests' failed: Error: Process completed with exit code 139.``,
    ``KeyError: 'user' when I log out``) tells the error's own
    (:func:`kenning.querybuild.error_in_sentence`): an entry stored from the error alone has
    that one, one stored from the same sentence the other; one that tells several, each
    one's (:func:`kenning.querybuild.errors_in_sentence`). Only those that
    :func:`~kenning.fingerprints.identifies` an error; of those, an entry is found by the
    ones that are :func:`~kenning.fingerprints.specific` (not "exit code 1" alone)."""
    from .fingerprints import error_fingerprint, identifies, specific
    from .querybuild import errors_beside_signature, errors_in_sentence
    from .signatures import extract_error_signature

    signature = extract_error_signature(query)
    # a query of one line is read as the prompt hook reads a line, its words and all ("I
    # fixed the KeyError: … but now …"); the signature of a longer one
    one_line = "\n" not in query.strip()
    line = query if one_line else signature
    errors = [error for error in errors_in_sentence(line)[1] if error != signature]
    whole = error_fingerprint(signature)
    found = [error_fingerprint(extract_error_signature(error)) for error in errors] or [whole]
    # a logfmt (zap, klog) line's error field tells its error too, as Go's loggers print it
    for beside in errors_beside_signature([query], signature) if one_line else []:
        found.append(error_fingerprint(extract_error_signature(beside)))
    found = [f for f in dict.fromkeys(found) if identifies(f)]
    return tuple(found), tuple(dict.fromkeys(f for f in [*found, whole] if specific(f)))


class _Retrieved(NamedTuple):
    """What :meth:`StoreReads._retrieve` found for a query."""

    candidates: list[Candidate]
    vector: np.ndarray | None = None
    #: The fingerprints of the errors the query tells (none: not an error query, or not
    #: hybrid), and those it finds its entries by (a failed test's error, its test named).
    fingerprints: tuple[str, ...] = ()
    lookups: tuple[str, ...] = ()


class _Held(NamedTuple):
    """What :meth:`StoreReads.recall_many` keeps of its queries' candidates: the best of each
    memory that passed its floor, every candidate's best score (the recall log's), the floor
    and kind of each query, the fingerprints of the errors asked, its exact matches' leads."""

    best: dict[str, SearchResult]
    scores: dict[str, float]
    floors: list[float]
    kinds: list[bool]
    fingerprints: tuple[str, ...]
    exact: dict[str, int]
    lookups: tuple[str, ...]  # (the errors' lookups, :func:`~kenning.search.held_for`'s)

    def with_fallbacks(self, more: _Held) -> _Held:
        """These and the fallbacks' asked after them, as one recall's (its log line, its
        lowest floor, whether it was an error recall); its hits are chosen by then."""
        scores = {i: max(self.scores.get(i, s), s) for i, s in more.scores.items()}
        scores = {**self.scores, **scores}
        floors, kinds = [*self.floors, *more.floors], [*self.kinds, *more.kinds]
        return self._replace(
            scores=scores, floors=floors, kinds=kinds, fingerprints=more.fingerprints
        )


def _ids(results: Iterable[SearchResult]) -> set[str]:
    return {r.memory.id for r in results}


#: At most this many fallbacks are asked in one recall (each costs a query's embedding).
MOST_FALLBACKS = 10


def _checked_pairs(
    pairs: object, needs: str, *, fallbacks: bool = False
) -> list[tuple[str, bool | None]]:
    """``pairs`` as a list of ``(query, errors)``, or a :class:`UserInputError` that says
    what is wrong (``needs``: how the message starts, naming the argument; ``fallbacks``:
    they are, which may be none, and at most :data:`MOST_FALLBACKS`)."""
    from .querybuild import check_query

    if (
        isinstance(pairs, str | bytes)
        or not isinstance(pairs, Sequence)
        or not (pairs or fallbacks)
    ):
        raise UserInputError(f"{needs}, like [('KeyError: x', True)]")
    if fallbacks and len(pairs) > MOST_FALLBACKS:
        raise UserInputError(
            f"{len(pairs)} fallbacks; at most {MOST_FALLBACKS} are asked: pass the errors most "
            "likely to be the cause"
        )
    each = "fallback" if fallbacks else "query"
    checked = list(pairs)
    for pair in checked:
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            raise UserInputError(
                f"each {each} is a (query, errors) pair, like ('KeyError: x', True); "
                f"got {pair!r:.60}"
            )
    for query, errors in checked:
        try:
            check_query(query)
        except UserInputError as exc:
            if not fallbacks:
                raise
            raise UserInputError(f"a fallback: {exc}") from None
        if errors is not None and not isinstance(errors, bool):
            raise UserInputError(
                f"errors is {errors!r:.40} in a fallback; expected True, False or None"
                if fallbacks
                else f"errors is {errors!r:.40}; expected True, False or None"
            )
    return [(query, errors) for query, errors in checked]


class StoreReads(StoreFreshness):
    """The read part of :class:`~kenning.store.MemoryStore` (use that)."""

    # -- read path --------------------------------------------------------------------------

    def _lexical_side(
        self, query: str, pool: int, filters: Filters, *, check: bool, error: bool = False
    ) -> LexicalEvidence:
        """Everything a hybrid query needs that does not need its vector: the provenance
        check (``check``), the lexical top ``pool``, the statistics every candidate's BM25 is
        scored with, the stored vectors of the lexical hits, and the entries whose error
        fingerprint the query's signature matches (looked up when the query looks like an
        error, or ``error`` says it is one)."""
        from .lexical import text_statistics

        if check:
            self._check_provenance(stamp=False)
        hits, statistics, vectors = lexical_search_with_vectors(self.backend, query, pool, filters)
        told, lookups = query_fingerprints(query) if error or _looks_like_error(query) else ((), ())
        matches: list[Memory] = []
        for fingerprint in lookups:
            # a stored fingerprint is the one of the rules it was written under: a match is
            # checked under this kenning's (and a lexical hit stored under older ones found)
            stored = self.backend.find_by_fingerprint(fingerprint, filters)
            matches += [m for m in stored if fingerprint_now(m) == fingerprint]
        if lookups:
            matches += matching_fingerprint((h.memory for h in hits), lookups, matches)
        # the hits' BM25 inputs too: tokenising candidates is the larger part of scoring
        counted = {h.memory.id: text_statistics(h.memory.content) for h in hits}
        idfs = lexical_idfs(statistics.rows, statistics.frequencies)
        return LexicalEvidence(
            [(h.memory, h.score) for h in hits], vectors, matches, counted, idfs, told, lookups
        )

    def retrieve(
        self,
        query: str,
        k: int,
        filters: Filters,
        *,
        mode: str = "hybrid",
        vector: np.ndarray | None = None,
        error: bool = False,
    ) -> list[Candidate]:
        """Top-k candidates, best first.

        ``hybrid`` (the default): an exact error-fingerprint match first, then dense cosine
        fused with a bounded lexical bonus (:func:`kenning.search.fused_score`), so the score
        stays on the cosine scale and the protocol floors keep their meaning. ``dense`` and
        ``lexical`` are the single-signal baselines the quality benchmark compares against.
        ``error`` says the query is an error even when it does not look like one (a
        compiler's or linter's warning): its fingerprint is looked up all the same.
        """
        return self._retrieve(query, k, filters, mode=mode, vector=vector, error=error).candidates

    def retrieve_many(
        self, queries: Sequence[str], k: int, filters: Filters
    ) -> list[list[Candidate]]:
        """:meth:`retrieve` (hybrid) for each of ``queries``, in order, their vectors made by
        one call of the embedder, which runs them in batches: a run of the model has a cost
        of its own besides its texts' (MiniLM: ~7 ms of CPU, as much as ~20 word pieces), so
        a set of queries measured together (``kenning calibrate``) pays it once per batch, not
        once per query. Each query's candidates are the ones :meth:`retrieve` finds for it
        alone."""
        from .safety import without_terminal_sequences

        if isinstance(queries, str | bytes):
            raise UserInputError(
                "retrieve_many takes a list of queries, like ['KeyError: x']; for one query "
                "use retrieve"
            )
        queries = list(queries)
        for query in queries:
            _check_text(query, "the query")
        if not queries:
            return []
        # a given vector skips the check retrieve() makes before it embeds: it is made here
        self._check_provenance(stamp=False)
        # the text retrieve() embeds: the query without its terminal sequences
        vectors = self._embed([without_terminal_sequences(query) for query in queries])
        return [
            self._retrieve(query, k, filters, mode="hybrid", vector=vector).candidates
            for query, vector in zip(queries, vectors, strict=True)
        ]

    def _retrieve(
        self,
        query: str,
        k: int,
        filters: Filters,
        *,
        mode: str,
        vector: np.ndarray | None,
        error: bool = False,
    ) -> _Retrieved:
        """:meth:`retrieve`, the query's vector (embedded here unless given; None in
        ``lexical`` mode) for a next search of the same query, and the fingerprints of the
        errors it tells."""
        from .safety import without_terminal_sequences

        _check_text(query, "the query")
        if mode not in ("hybrid", "dense", "lexical"):
            raise UserInputError(f"unknown retrieval mode {mode!r}; use hybrid, dense or lexical")
        # a coloured tool's output, a CI job's raw log: its words, not its escape sequences
        # ("\x1b[31mE" read as the word "31me"), as the notes it is matched with are stored
        query = without_terminal_sequences(query)
        words = self._words_to_send(query)  # the lexical side's; the vector is made of query
        pool = max(k * 2, RETRIEVAL_POOL)
        if mode == "lexical":
            hits = [h for h in self.backend.lexical_search(words, k, filters) if served(h.memory)]
            return _Retrieved([Candidate(h.memory, h.score, h.score, "lexical") for h in hits])
        lexical_side: Future[LexicalEvidence] | None = None
        found: LexicalEvidence | None = None
        if mode == "hybrid" and vector is None:
            # What needs no vector runs while the query is embedded (onnxruntime and SQLite
            # both release the GIL), which hides most of its cost. Only one thread touches
            # the backend at a time: embedding does not, and this thread waits for the
            # other before its own next backend call.
            try:
                lexical_side = self._lexical_executor().submit(
                    self._lexical_side, words, pool, filters, check=True, error=error
                )
            except RuntimeError:  # shut down by a close() on another thread meanwhile
                raise StoreClosed.at(self.backend.location) from None
        elif mode == "hybrid":  # the vector is given (a cascade's next step): nothing to hide
            found = self._lexical_side(words, pool, filters, check=False, error=error)
        elif vector is None:
            self._check_provenance(stamp=False)
        try:
            if vector is None:
                vector = self._embed([query])[0]
        except BaseException:
            if lexical_side is not None:  # the backend is idle again before the error goes up
                wait([lexical_side])
            raise
        if lexical_side is not None:
            found = lexical_side.result()
        hits = self.backend.vector_search(vector, pool, filters)
        dense = [(h.memory, h.score) for h in hits if served(h.memory)]  # (model.known_kind)
        if found is not None and found.lookups:
            stale = matching_fingerprint(
                (m for m, _ in dense), found.lookups, found.fingerprint_matches
            )
            if stale:  # dense candidates stored under older fingerprint rules
                found = replace(found, fingerprint_matches=[*found.fingerprint_matches, *stale])
        if found is None:  # mode == "dense"
            ranked = sorted(dense, key=lambda x: -x[1])[:k]
            return _Retrieved([Candidate(m, score, None, "dense") for m, score in ranked], vector)
        candidates, skipped = hybrid_candidates(
            words,
            vector,
            dense,
            found,
            # a server scores a vector by its direction, and so do the lexical hits
            directions=reads_directions(self.backend),
        )
        for memory_id, problem in skipped:
            log.warning(
                # reembed is doctor's fix for it, on every kind of store
                "kenning: skipped memory %r: its vector %s; run `kenning reembed` to recompute it",
                memory_id,
                problem,
            )
        kept = [c for c in candidates if served(c.memory)]  # (model.known_kind)
        return _Retrieved(kept[:k], vector, found.fingerprints, found.lookups)

    def _words_to_send(self, query: str) -> str:
        """The query whose words the lexical side sends the backend: a server's (PostgreSQL,
        Qdrant) gets them without the secrets a prompt may hold (each word goes out in a
        request, and into the server's logs); an embedded store's stay on this machine."""
        if guards_a_path(self.project.store_url):
            return query
        from .redaction import without_secrets

        return without_secrets(query)

    def recall(
        self,
        query: str,
        top_k: int = protocol.RECALL_TOP_K,
        *,
        errors: bool | None = None,
        group_id: str | None = None,
        keep: int = protocol.RECALL_KEEP,
        budget: int = protocol.RECALL_CHAR_BUDGET,
        redact_on_read: bool = False,
    ) -> RecallResult:
        """The ruvector recall protocol: top_k candidates, discard below the floor (0.5, or
        0.40 for error queries; a project's calibrated floors when its settings have them),
        keep the best 3, cut their combined content to 800 chars at a word boundary. A
        query of several lines that is an error is a pasted log, recalled by its parsed
        signature (the result's ``query``) and each error a line of it tells in a sentence
        (:meth:`recall_many`). ``redact_on_read``: every field of each hit is
        redacted as the write path redacts it (:func:`redacted_on_read`), its text before it
        is cut (kenning redacts what it stores, but not every writer of a store does: another
        tool, an older version), for a prompt; it loads the redaction rules (~0.1 s once a
        process)."""
        return self.recall_many(
            [(query, errors)],
            top_k,
            group_id=group_id,
            keep=keep,
            budget=budget,
            redact_on_read=redact_on_read,
        )

    def recall_many(
        self,
        queries: Sequence[tuple[str, bool | None]],
        top_k: int = protocol.RECALL_TOP_K,
        *,
        group_id: str | None = None,
        keep: int = protocol.RECALL_KEEP,
        budget: int = protocol.RECALL_CHAR_BUDGET,
        redact_on_read: bool = False,
        fallbacks: Sequence[tuple[str, bool | None]] = (),
    ) -> RecallResult:
        """One recall for several ``(query, errors)`` of one request (a prompt's words and
        the error it carries): each query's candidates are held to its own floor, a memory
        found by several counts with its best score, and the best ``keep`` of them all are
        kept and cut to the budget, as :meth:`recall` does for one. It is one recall: the
        recall log has one line for it. A query of several lines that is an error (``errors``,
        or it looks like one) is a pasted log, recalled by its parsed signature and each error
        a line of it tells in a sentence (:func:`~kenning.querybuild.queries_of_pasted_error`),
        as queries of their own. The result's ``query`` is the first query as recalled, its
        ``floor`` the lowest applied, and it is an error recall when any query was one. When
        an error query matches a fix exactly, an ERROR-FIX about another error
        (:func:`~kenning.search.about_another_error`) that only a words query found is
        left out (qa81 F2).

        ``fallbacks``, pairs as ``queries`` (at most :data:`MOST_FALLBACKS`; a pasted log's
        are the causes its chain prints and the errors its warnings name above its crash,
        :func:`~kenning.querybuild.fallbacks_of_pasted_error`): the queries' best hit keeps the
        first place, and a fallback's hit (an exact match of its error, or one that scores
        :data:`~kenning.search.FALLBACK_LOOSE_FLOOR`; no named exception's fix for one that
        names none, :func:`~kenning.search.kept_candidates`) competes with the others for the
        places after it: the cause's fix after the crash's, never in its place. A best hit
        that is no exact match competes too when a fallback's is one (another error's fix,
        close to the crash's words, does not lead the cause's exact fix), and a memory the
        queries found loosely that a fallback matches exactly is held by that match."""
        from .freshness import Observations, best_fresh_first, exact_matches_first
        from .querybuild import fallbacks_of_pasted_error, queries_of_pasted_error
        from .render import combine_for_recall

        queries = _checked_pairs(
            queries, "recall_many needs a list of at least one (query, errors) pair"
        )
        fallbacks = _checked_pairs(
            fallbacks, "fallbacks is a list of (query, errors) pairs", fallbacks=True
        )
        # a query of several lines that is an error is a pasted log: its signature is asked,
        # and each error a line of it tells in a sentence; the causes its chain prints and the
        # errors its warnings name are its fallbacks
        given = queries
        queries = [asked for pair in given for asked in queries_of_pasted_error(*pair)]
        asked = {query for query, _ in queries}
        fallbacks = [
            *(one for pair in fallbacks for one in queries_of_pasted_error(*pair)),
            *(warned for pair in given for warned in fallbacks_of_pasted_error(*pair, asked)),
        ]
        fallbacks = [pair for pair in dict.fromkeys(fallbacks) if pair[0] not in asked]
        top_k = check_whole_number("top_k", top_k, protocol.SEARCH_MAX_LIMIT)
        keep = check_whole_number("keep", keep, protocol.SEARCH_MAX_LIMIT)
        budget = check_whole_number("budget", budget, protocol.MAX_QUERY_CHARS * 100)
        settings = self.settings  # once: each read looks whether the files changed
        filters = Filters(group_id=self.resolve_group(group_id))
        held = self._held_candidates(queries, top_k, filters, settings)
        # A stale memory still passed its floor; it only ranks below fresh ones near it.
        observed = Observations()  # a file several hits name is checked once
        hits = best_fresh_first(
            held.best.values(),
            lambda r: self._freshness_of(r.memory, observed),
            settings.stale_penalty,
            keep,
            exact_matches_first(held.exact),  # (a test run's failed tests' fixes first)
        )
        guessed: set[str] = set()  # the memories only a fallback found
        if fallbacks and keep > len(hits[:1]):
            more = self._held_candidates(fallbacks, top_k, filters, settings, held)
            # a fallback's hit is a guess: an exact match of its error, or as close as a note
            # about it is (qa-s62 F4, other errors' fixes and rules at 0.53-0.65; qa74 F1)
            found = [
                r
                for memory_id, r in more.best.items()
                if memory_id not in held.best and fallback_hit_given(r, settings.recall_floor)
            ]
            # a memory the queries found loosely that a fallback matches exactly (a chain's
            # cause's fix, which the crash's words are close to) is held by that match
            exact = {
                memory_id: r
                for memory_id, r in more.best.items()
                if memory_id in held.best
                and r.match == "fingerprint"
                and held.best[memory_id].match != "fingerprint"
            }
            if found or exact:
                # the queries' best hit keeps its place when it is an exact match, or when no
                # fallback's is; their others and the fallbacks' compete for the slots after
                # it (the cause's exact fix against the crash query's loose matches of other
                # errors, which had filled them, qa-s62 F1); a loose lead competes too
                # against a fallback's exact match (qa72 F1, F2)
                held_best = [exact.get(r.memory.id, r) for r in hits[:1]]
                leads = not held_best or held_best[0].match == "fingerprint"
                if not (leads or any(r.match == "fingerprint" for r in found) or exact):
                    leads = True
                lead = held_best if leads else []
                rest = [
                    exact.get(r.memory.id, r)
                    for r in held.best.values()
                    if r.memory.id not in _ids(lead)
                ]
                hits = lead + best_fresh_first(
                    [*rest, *found],
                    lambda r: self._freshness_of(r.memory, observed),
                    settings.stale_penalty,
                    keep - len(lead),
                    exact_matches_first(held.exact),
                )
                guessed = _ids(found) & _ids(hits)
                if guessed or exact:  # (a fallback that gave nothing is no query of this recall)
                    held = held.with_fallbacks(more)
        floors, kinds, scores = held.floors, held.kinds, held.scores
        if redact_on_read:
            hits = [replace(h, memory=redacted_on_read(h.memory)) for h in hits]
        texts, truncated = combine_for_recall([h.memory.content for h in hits], budget)
        dropped = {h.memory.id for h, t in zip(hits, texts, strict=True) if not t} & guessed
        if dropped:  # a guess past the budget is not asked for: the others are not cut for it
            hits = [h for h in hits if h.memory.id not in dropped]
            texts, truncated = combine_for_recall([h.memory.content for h in hits], budget)
        # A hit whose text fell wholly past the budget is not shown, so it is not returned.
        kept = [(self._with_source(h), t) for h, t in zip(hits, texts, strict=True) if t]
        if settings.recall_log and self.exists:
            ranked = sorted(scores.values(), reverse=True)[:top_k]
            self._log_recall(min(floors), ranked, len(kept))
        others = {} if kept else self._other_projects(filters.group_id)
        return RecallResult(
            queries[0][0],
            min(floors),
            tuple(h for h, _ in kept),
            tuple(t for _, t in kept),
            truncated,
            any(kinds),
            others,
            case_variants(filters.group_id, others),
        )

    def _held_candidates(
        self,
        queries: Sequence[tuple[str, bool | None]],
        top_k: int,
        filters: Filters,
        settings: Settings,
        before: _Held | None = None,
    ) -> _Held:
        """Each query's candidates held to its floor (:meth:`recall_many`), a memory found
        by several with its best score. ``before``: what the queries these are the fallbacks
        of held (their errors' fingerprints and lookups, which hold the fallbacks' candidates
        as the request's errors hold them, :func:`kept_candidates`)."""
        generic_floor, error_floor = settings.recall_floor, settings.error_recall_floor
        floors: list[float] = []
        kinds: list[bool] = []
        found: list[list[Candidate]] = []
        fallbacks = before is not None
        fingerprints, lookups = ([*before.fingerprints], [*before.lookups]) if before else ([], [])
        asked = [(q, _looks_like_error(q) if errors is None else errors) for q, errors in queries]
        among_errors = bool(fingerprints) or any(is_error for _, is_error in asked)
        for query, is_error in asked:
            floors.append(error_floor if is_error else generic_floor)
            kinds.append(is_error)
            # No store yet: nothing to recall, and no reason to load the model. An error query
            # finds its fix by fingerprint even when only the caller knew it was one
            # (--errors, a signature parsed from raw output): the same error, another name
            result = (
                self._retrieve(query, top_k, filters, mode="hybrid", vector=None, error=is_error)
                if self.exists
                else _Retrieved([])
            )
            held = (result.candidates, result.fingerprints, fallbacks, query, among_errors)
            found.append(kept_candidates(*held))
            if is_error:  # (a words query that looks like an error tells none of its own)
                fingerprints += result.fingerprints
                lookups += result.lookups
        # the errors a query of the request matched exactly: an ERROR-FIX about another
        # error that only its words found ("the config tests fail with" a Go panic's fix,
        # 0.68, beside the exact fix of the prompt's ModuleNotFoundError) is no fix of the
        # request's error, and is left out (qa81 F2); one a query of the error holds stays,
        # and so does the fix of another name of the same error (about_another_error)
        exactly = {
            entry
            for is_error, candidates in zip(kinds, found, strict=True)
            if is_error and not fallbacks
            for c in candidates
            if c.match == "fingerprint"
            and isinstance(entry := c.memory.metadata.get("error_fingerprint"), str)
        }
        scores: dict[str, float] = {}  # every candidate's best semantic score (the log's)
        best: dict[str, SearchResult] = {}
        for floor, is_error, candidates in zip(floors, kinds, found, strict=True):
            # ERROR-FIX entries are long against short queries, so MiniLM's cosine compresses
            # toward the middle for them too: they are held to the error floor (SPEC §5) —
            # the lower floor, as the seed means it; a project's calibrated error floor can be
            # the higher one (measured on error queries, which find their fix by its
            # fingerprint), and must not make a fix harder to recall than any other note
            fix_floor = min(error_floor, floor)
            for c in candidates:
                memory_id = c.memory.id
                # another code's entry than the request's error is held as its error query
                # holds it, whichever query found it: the words of "CI job 'tests' failed:
                # …exit code 139" found the fix of exit code 137 at 0.63 beside 139's, those
                # of "test_admin fails: assert 403 == 200" assert 401's (not another name's:
                # the fix of a family of names, numpy's 'float' for 'int', may be the one)
                semantic = held_for(c, fingerprints, lookups)
                scores[memory_id] = max(scores.get(memory_id, semantic), semantic)
                entry = c.memory.metadata.get("error_fingerprint")
                if (
                    exactly
                    and not is_error
                    and is_error_fix(c.memory)
                    and about_another_error(exactly, entry)
                ):
                    continue  # (another error's fix, by the request's words alone)
                if not is_error_fix(c.memory):
                    bar = floor
                elif names_another_exception(fingerprints, entry):
                    bar = max(generic_floor, floor)  # not about the request's error
                else:
                    bar = fix_floor
                if semantic < bar:
                    continue
                seen = best.get(memory_id)
                if seen is None or semantic > seen.semantic:
                    best[memory_id] = SearchResult(
                        c.memory, semantic, semantic, None, c.lexical, c.match
                    )
        exact = first_exact_matches(found)
        return _Held(best, scores, floors, kinds, tuple(fingerprints), exact, tuple(lookups))

    def search(
        self,
        query: str,
        *,
        collection: str | None = None,
        memory_type: str | Sequence[str] | None = None,
        use_cascading: bool = True,
        intent: str | None = None,
        limit: int = protocol.SEARCH_DEFAULT_LIMIT,
        group_id: str | None = None,
        threshold: float | None = None,
        decay: bool = True,
        now: datetime | None = None,
        redact_on_read: bool = False,
    ) -> SearchResponse:
        """AI Memory Module search: collections, intent routing, cascading, threshold, decay.

        Without ``threshold`` the bar is :meth:`similarity_threshold`: the project's setting,
        else the default measured for the store's embedder. ``redact_on_read``: every field
        of each result is redacted, as :meth:`recall`'s."""
        from .config import parse_threshold

        plan = plan_search(query, collection, memory_type, intent, use_cascading)
        check_limit(limit)
        explicit = None if threshold is None else parse_threshold(threshold, "argument")
        moment = now or utc_now()
        gid = self.resolve_group(group_id)
        k = max(SEARCH_CANDIDATES, limit * 4)
        bar = self.similarity_threshold()[0] if explicit is None else explicit
        settings = self.settings  # once: each read looks whether the files changed
        half_lives = settings.half_lives() if decay else {}
        vector: np.ndarray | None = None

        def run(collections: tuple[str, ...]) -> tuple[list[SearchResult], float | None]:
            nonlocal vector
            if not self.exists:  # no store yet: nothing matches, and no model to load
                return [], None
            # The first step embeds the query (its lexical side hidden behind that); a
            # cascade's next step reuses the vector.
            pool = k
            while True:
                candidates, vector, *_ = self._retrieve(
                    query, pool, Filters(gid, collections, plan.types), mode="hybrid", vector=vector
                )
                ranked = rank(
                    candidates,
                    threshold=bar,
                    decay=decay,
                    now=moment,
                    half_life_overrides=half_lives,
                )
                settled = ranking_settled(
                    candidates, ranked, pool=pool, limit=limit, threshold=bar, decay=decay
                )
                if settled or pool >= SEARCH_MAX_CANDIDATES:
                    break
                # with decay a memory after the pool can rank above its first ``limit``:
                # a wider pool, until none can
                pool = min(pool * 4, SEARCH_MAX_CANDIDATES)
            best = max((c.semantic for c in candidates), default=None)
            return self._rank_fresh_first(ranked, settings.stale_penalty), best

        results, best = run(plan.primary)
        reason = expansion_reason(results, best, plan.primary) if plan.cascade else None
        expanded = False
        if reason is not None and plan.secondary:
            more, best_more = run(plan.secondary)
            expanded = True
            results = sorted(results + more, key=lambda r: (-r.score, -r.semantic, r.memory.id))
            if best_more is not None and (best is None or best_more > best):
                best = best_more
        if redact_on_read:
            results = [replace(r, memory=redacted_on_read(r.memory)) for r in results[:limit]]
        shown = tuple(self._with_source(r) for r in results[:limit])
        others = {} if shown else self._other_projects(gid)
        variants = case_variants(gid, others)
        return SearchResponse(
            query, shown, plan, expanded, reason, bar, decay, gid, best, others, variants
        )

    def other_projects(self, group_id: str | None = None) -> dict[str, int]:
        """When a project (this one; ``"all"``: none) has no memories in a store of one
        checkout that holds others: the three project ids with the most memories, and how
        many each has; else ``{}``. A renamed repository or a changed ``origin`` remote gives
        the project a new id, and its notes stay under the old one — where nothing found
        would otherwise read as nothing stored. A server's store is shared by many
        projects, so it names only the ids that differ from the project's in letter case
        alone (``--project Acme/Widgets`` for ``acme/widgets``)."""
        return self._other_projects(self.resolve_group(group_id))

    @property
    def one_checkout(self) -> bool:
        """Whether the store is one checkout's (an SQLite file, a Qdrant local folder: the
        location guard keeps either inside the project), not a server's shared by many."""
        return guards_a_path(self.project.store_url)

    def _counts_projects(self, gid: str | None) -> CountsProjects | None:
        """The backend, when it is a store of one checkout that tells which projects it
        holds, and a project is asked about (a server's store is shared by many)."""
        if (
            gid is None
            or not self.one_checkout
            or not self.exists
            or not isinstance(self.backend, CountsProjects)
        ):
            return None
        return self.backend

    def _other_projects(self, gid: str | None) -> dict[str, int]:
        backend = self._counts_projects(gid)
        if backend is not None and gid is not None:
            return backend.projects_if_absent(gid, 3)
        if gid is not None and self.exists and isinstance(self.backend, NamesCaseVariants):
            # a server's store: of the other projects, only an id that differs from the one
            # asked in letter case alone, the likeliest --project typo on a team's store
            return self.backend.case_variants_if_absent(gid, 3)
        return {}

    def _alike_projects(self, gid: str | None) -> dict[str, int]:
        """The id this checkout's folder name gave it before its ``origin`` remote was added
        (:meth:`earlier_project_notes`, in any store), and in a store of one checkout the
        other project ids that end in this project's repository name
        (:func:`kenning.project.same_repository_ids`): its notes under the id an earlier
        kenning or a former remote gave it, which nothing reads once the new id has notes
        of its own."""
        if gid is None or not self.exists:
            return {}
        backend = self._counts_projects(gid)
        alike = backend.projects_alike(gid, 3) if backend is not None else {}
        return self._checkout_earlier_id(gid) | alike

    def earlier_project_notes(self) -> dict[str, int]:
        """For a checkout whose id comes from its ``origin`` remote: the id its folder's name
        gave it before the remote was added, and how many memories are still stored under
        it ({} when none, or the id is the folder's): what recall names beside what it
        found, until ``kenning move`` takes them (one count of an indexed column). In a
        server's store too: the folder's name is the one every clone of the repository
        has by default, so its notes there are most likely this repository's, written
        before its remote was added (:attr:`one_checkout` says which the store is)."""
        gid = self.group_id
        return {} if gid is None or not self.exists else self._checkout_earlier_id(gid)

    def _checkout_earlier_id(self, gid: str) -> dict[str, int]:
        from .project import earlier_group_id

        earlier = earlier_group_id(self.project)
        if earlier is None or earlier == gid:
            return {}
        n = self.backend.count(Filters(group_id=earlier))
        return {earlier: n} if n else {}

    def similarity_threshold(self) -> tuple[float, str]:
        """The threshold ``search`` applies without a ``threshold`` argument, and where it
        comes from: the project's setting (:mod:`kenning.config`), else the default measured
        for the vector space of this store's embedder (:mod:`kenning.thresholds`). Reads the
        store's provenance stamp; loads no model."""
        from .thresholds import default_threshold, expected_default

        settings = self.settings
        configured = settings.threshold()
        if configured is not None:
            return configured, settings.sources.get("similarity_threshold", "argument")
        if self._embedder is not None:
            found = default_threshold(self._embedder.provenance)
        else:
            stamped = self.backend.read_provenance() if self.exists else None
            found = (
                default_threshold(stamped)
                if stamped is not None
                else expected_default(self._embedder_name, config.model_dir())
            )
        return found.value, found.origin

    # -- the recall log (`kenning calibrate` reads it) ------------------------------------

    @property
    def recall_log_path(self) -> Path:
        """Where recalls are logged when the recall log is on (:mod:`kenning.recall_log`)."""
        from .recall_log import RECALL_LOG_FILENAME

        return self.project.store_path.parent / RECALL_LOG_FILENAME

    def recent_recalls(self, limit: int = 500) -> list[Any]:
        """The last ``limit`` logged recalls (:class:`~kenning.recall_log.RecallLogEntry`),
        oldest first; empty when the log is off or nothing was logged yet."""
        from .recall_log import read_recent

        return read_recent(self.recall_log_path, check_whole_number("limit", limit, 10**9))

    def _log_recall(self, floor: float, scores: Sequence[float], kept: int) -> None:
        from .recall_log import RecallLogEntry, append_entry

        append_entry(self.recall_log_path, RecallLogEntry(utc_now(), floor, tuple(scores), kept))


def held_secrets(memory: Memory) -> dict[str, int]:
    """The credentials another writer left in ``memory``'s text, kind by kind: what
    :func:`redacted_on_read` takes out of it (a save of the text shown so stores it
    without them)."""
    from .redaction import redact_secrets

    return redact_secrets(memory.content)[1]


def redacted_copy(memory: Memory) -> Memory:
    """:func:`redacted_on_read`'s ``memory`` as a copy of it is written to another store or
    file (an export, a migration): a redacted text has its own content hash (the one on
    read keeps the stored row's, which an edit form's version names)."""
    redacted = redacted_on_read(memory)
    if redacted.content == memory.content:
        return redacted
    return replace(redacted, content_hash=content_hash(redacted.content))


def redacted_on_read(memory: Memory) -> Memory:
    """``memory`` with every field a writer gives redacted as the write path redacts it
    (content, source, tags, metadata): for a store another writer (another tool, an older
    version) may have left a credential in, read into a prompt. Redaction is a fixed point:
    what kenning stored comes out as it is."""
    from .redaction import redact_secrets, redact_value

    content = redact_secrets(memory.content)[0]
    source = redact_value(memory.source)[0] if memory.source else memory.source
    tags = tuple(redact_value(list(memory.tags))[0])
    metadata = redact_value(dict(memory.metadata))[0]
    if (content, source, tags, metadata) == (
        memory.content,
        memory.source,
        memory.tags,
        dict(memory.metadata),
    ):
        return memory
    return replace(memory, content=content, source=source, tags=tags, metadata=metadata)
