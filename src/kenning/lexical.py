"""Words and BM25 as every backend's lexical side sees them.

Tokens: SQLite FTS5's ``unicode61`` tokenizer (with ``remove_diacritics 2``) splits on
anything that is not a letter or digit by its own (Unicode 6.1) tables, lowercases and drops
Latin diacritics, one character at a time (:mod:`kenning.unicode61`, read from FTS5 itself);
Qdrant's word tokenizer and the PostgreSQL backend's ``simple`` configuration split on what
Python calls neither a letter nor a digit and keep diacritics. :func:`tokens` and
:func:`terms` are those splits (``fold_diacritics`` chooses which), so the backends build
their queries from the words their index holds, and hybrid scoring measures how many of a
query's terms a memory contains with the same function.

BM25 is FTS5's (:data:`BM25_K1`, :data:`BM25_B`, idf clamped at :data:`MIN_IDF`): the
PostgreSQL and Qdrant backends compute it with :func:`idf` and :func:`bm25` (or the same
formula in SQL) so that a fused score means the same on every backend.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Mapping

__all__ = [
    "BM25_B",
    "BM25_K1",
    "MAX_QUERY_TERMS",
    "MIN_IDF",
    "bm25",
    "coverage",
    "idf",
    "saturated_bm25",
    "term_counts",
    "term_counts_and_length",
    "terms",
    "text_statistics",
    "tokens",
]

_TERM = re.compile(r"[^\W_]+", re.UNICODE)
#: Queries are cut to this many distinct terms.
MAX_QUERY_TERMS = 64
#: FTS5's BM25 parameters.
BM25_K1 = 1.2
BM25_B = 0.75
#: FTS5 clamps idf here: a word in more than half of the rows scores (almost) nothing.
MIN_IDF = 1e-6


def tokens(text: str, *, fold_diacritics: bool = True) -> list[str]:
    """Every token of ``text``, lowercased, in order (repeats kept): as FTS5's unicode61
    makes them when ``fold_diacritics``, else split on what is not a letter or digit."""
    if text.isascii() or not fold_diacritics:  # ASCII splits and lowercases the same
        return _TERM.findall(text.lower())
    # folding first cannot join or split words: every fold of a word's character is a
    # word character, and a dropped diacritic inside a word leaves the word whole
    word, fold = _fts5_word_and_fold()
    return word.findall(text.translate(fold))


@functools.cache
def _fts5_word_and_fold() -> tuple[re.Pattern[str], dict[int, str]]:
    """A word as FTS5's unicode61 sees it (a run of what is neither an ASCII separator nor
    in one of its non-ASCII separator ranges), and its fold of every character it changes
    for ``str.translate`` (a character folds to what FTS5 stores whatever surrounds it).
    Built on the first non-ASCII text (loading the table and compiling the pattern cost
    ~5 ms, which a process that sees only ASCII never pays)."""
    from .unicode61 import FOLDS, SEPARATOR_RANGES

    word = re.compile(
        r"[^\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f"
        + "".join(f"\\U{first:08x}-\\U{last:08x}" for first, last in SEPARATOR_RANGES)
        + "]+"
    )
    fold = {ord(c): c.lower() for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}
    fold.update(FOLDS)
    return word, fold


def terms(text: str, limit: int | None = None, *, fold_diacritics: bool = True) -> list[str]:
    """Distinct tokens of ``text`` in order of first appearance (at most ``limit``)."""
    found = list(dict.fromkeys(tokens(text, fold_diacritics=fold_diacritics)))
    return found if limit is None else found[:limit]


def coverage(query_terms: set[str], text: str) -> float:
    """Share of the query's terms that occur in ``text`` (0 when the query has none)."""
    if not query_terms:
        return 0.0
    return len(query_terms & set(terms(text))) / len(query_terms)


def term_counts(text: str) -> Counter[str]:
    """How often each term occurs in ``text`` as any backend indexes it: folded (SQLite
    FTS5) and, for non-ASCII text, also with its diacritics (PostgreSQL, Qdrant), so that a
    query term in either form is counted."""
    return term_counts_and_length(text)[0]


def term_counts_and_length(text: str) -> tuple[Counter[str], int]:
    """:func:`term_counts` of ``text`` and its length in tokens (each token counted once,
    in its folded form), from one tokenisation."""
    folded = tokens(text)
    counts = Counter(folded)
    if not text.isascii():
        for term, count in Counter(tokens(text, fold_diacritics=False)).items():
            counts.setdefault(term, count)
    return counts, len(folded)


#: How many texts' :func:`text_statistics` are kept, and up to what length: a long-lived
#: process (the MCP server) scores the same notes query after query. Measured with
#: tracemalloc: 1.7 MB for 512 notes of ~300 characters, 15.5 MB at worst (512 texts of
#: 250 one-character terms); at 2,000 characters the worst was 52 MB.
TEXT_STATISTICS_KEPT = 512
TEXT_STATISTICS_MAX_CHARS = 500


def text_statistics(text: str) -> tuple[Mapping[str, int], int]:
    """:func:`term_counts_and_length` of ``text``, remembered for the short texts scored last
    (a pure function of the text, so nothing can make a remembered answer stale). The
    counts may be shared between callers: read them, do not change them."""
    if len(text) > TEXT_STATISTICS_MAX_CHARS:
        return term_counts_and_length(text)
    return _remembered_statistics(text)


@functools.lru_cache(maxsize=TEXT_STATISTICS_KEPT)
def _remembered_statistics(text: str) -> tuple[Mapping[str, int], int]:
    return term_counts_and_length(text)


def idf(rows: int, document_frequency: int) -> float:
    """FTS5's inverse document frequency of a term found in ``document_frequency`` of
    ``rows`` rows."""
    return max(math.log((rows - document_frequency + 0.5) / (document_frequency + 0.5)), MIN_IDF)


def bm25(
    term_frequencies: Mapping[str, int],
    idfs: Mapping[str, float],
    length: int,
    average_length: float,
    *,
    k1: float = BM25_K1,
    b: float = BM25_B,
) -> float:
    """BM25 of one row: the ``idfs`` of the query's terms, the row's ``term_frequencies``,
    its ``length`` in tokens and the ``average_length`` it is normalised against (``k1`` and
    ``b``: FTS5's unless a benchmark tries others). The sum runs over the query's few terms,
    not the row's many (the hybrid score takes it for every candidate of every query)."""
    norm = k1 * (1 - b + b * length / average_length)
    total = 0.0
    for term, weight in idfs.items():
        frequency = term_frequencies.get(term, 0)
        if frequency > 0:
            total += weight * frequency * (k1 + 1) / (frequency + norm)
    return total


def saturated_bm25(term_frequencies: Mapping[str, int], idfs: Mapping[str, float]) -> float:
    """BM25 without length normalisation (``b = 0``): each query term's idf times its
    saturated frequency. The hybrid score used it (it does not depend on the store's average
    length, which unrelated memories change) until :func:`kenning.search.memory_bm25`
    normalised length against a fixed reference instead; ``bench/fusion_grid.py`` compares
    the two."""
    return sum(
        idfs[t] * (f * (BM25_K1 + 1)) / (f + BM25_K1)
        for t, f in term_frequencies.items()
        if t in idfs and f > 0
    )
