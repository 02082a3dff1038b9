"""Words and BM25 as every backend's lexical side sees them.

Tokens: SQLite FTS5's ``unicode61`` tokenizer (with ``remove_diacritics 2``) splits on
anything that is not a letter or digit by its own (Unicode 6.1) tables, lowercases and drops
Latin diacritics, one character at a time (:mod:`kenning.unicode61`, read from FTS5 itself);
Qdrant's word tokenizer and the PostgreSQL backend's ``simple`` configuration split on what
is neither a letter nor a digit and keep diacritics, but a combining mark (an accent typed
as its own character, a Devanagari vowel sign or virama, a Hebrew point) does not split the
word it belongs to, ``İ`` is ``i`` and ``Σ`` and a final ``ς`` are ``σ``, as on SQLite
(:data:`FOLDED_CASES`). :func:`tokens` and :func:`terms` are those splits
(``fold_diacritics`` chooses which), so the backends build their queries from the words
their index holds, and hybrid scoring measures how many of a query's terms a memory
contains with the same function.

A word of digits and Latin letters is one word in either width: an input method's
full-width ``ｄａｔａｂａｓｅ`` (which every backend's index holds as written, lowercased) is
``database``. The backends look a query's words up by :func:`query_terms` (each in its
usual width) and every :func:`spellings` of each; :func:`term_counts` counts a memory's
full-width words under their usual spelling too.

BM25 is FTS5's (:data:`BM25_K1`, :data:`BM25_B`, idf clamped at :data:`MIN_IDF`): the
PostgreSQL and Qdrant backends compute it with :func:`idf` and :func:`bm25` (or the same
formula in SQL) so that a fused score means the same on every backend.
"""

from __future__ import annotations

import functools
import math
import re
import threading
import unicodedata
from collections import Counter, OrderedDict
from collections.abc import Iterable, Mapping
from typing import NamedTuple, TypeVar

from .lazyre import lazy

__all__ = [
    "BM25_B",
    "BM25_K1",
    "COMBINING_MARKS",
    "FOLDED_CASES",
    "MAX_QUERY_TERMS",
    "MIN_IDF",
    "bm25",
    "bm25_of_each",
    "combining_mark_ranges",
    "coverage",
    "holds_mark_or_folded_case",
    "idf",
    "query_terms",
    "saturated_bm25",
    "spellings",
    "term_counts",
    "term_counts_and_length",
    "terms",
    "text_statistics",
    "tokens",
    "usual_width",
]

#: An ASCII text's tokens are its runs of letters and digits, lowercased: this table makes
#: every other character a space and lowercases the letters, and ``str.split`` cuts the
#: runs apart; twice as fast as the equivalent ``[^\W_]+`` over ``text.lower()`` (~11 against
#: ~24 µs for a note of 330 characters), and every candidate of every query is tokenised.
_ASCII_WORDS = str.maketrans(
    {
        c: (c.lower() if c.isalnum() else " ")
        for c in map(chr, range(128))
        if not (c.islower() or c.isdigit())
    }
)
#: Queries are cut to this many distinct terms.
MAX_QUERY_TERMS = 64
_Key = TypeVar("_Key")
#: FTS5's BM25 parameters.
BM25_K1 = 1.2
BM25_B = 0.75
#: FTS5 clamps idf here: a word in more than half of the rows scores (almost) nothing.
MIN_IDF = 1e-6


def tokens(text: str, *, fold_diacritics: bool = True) -> list[str]:
    """Every token of ``text``, lowercased, in order (repeats kept): as FTS5's unicode61
    makes them when ``fold_diacritics``, else split on what is not a letter or digit."""
    if text.isascii():  # ASCII splits and lowercases the same
        return text.translate(_ASCII_WORDS).split()
    words = _words()
    if not fold_diacritics:
        # NFC: a query typed in decomposed form (macOS, some editors) has the words of the
        # stored notes, which are NFC (kenning.safety.normalise_content)
        text = unicodedata.normalize("NFC", text)
        for case, folded in _CASE_FOLDS:
            if case in text:
                text = text.replace(case, folded)
        # "_" is no letter of a word: a space, it lets the word pattern's \w stand for
        # "letter or digit"
        text = text.lower().replace("_", " ")
        return (words.team if _ASTRAL.search(text) else words.team_basic_plane).findall(text)
    # folding first cannot join or split words: every fold of a word's character is a
    # word character, and a dropped diacritic inside a word leaves the word whole
    text = _folded(text, words.fold)
    return (words.fts5 if _ASTRAL.search(text) else words.fts5_basic_plane).findall(text)


def _folded(text: str, fold: dict[int, str]) -> str:
    """``text`` with FTS5's fold of each character. ``str.translate`` takes a slow path for
    every character after the first non-ASCII one (~0.3 µs each), so the ASCII runs between
    are lowercased apart: FTS5 folds an ASCII character as ``lower()`` does."""
    pieces = _NON_ASCII_RUN.split(text)  # ASCII, non-ASCII, ASCII, …
    pieces[0::2] = [piece.lower() for piece in pieces[0::2]]
    pieces[1::2] = [piece.translate(fold) for piece in pieces[1::2]]
    return "".join(pieces)


_NON_ASCII_RUN = re.compile(r"([^\x00-\x7f]+)")
#: A character beyond the basic plane: only a text holding one needs the word patterns whose
#: character classes list the tables' ranges beyond it. Python's regular expressions test
#: those ranges one by one for every character a class's bitmap of the basic plane does not
#: hold (each letter of a text, for a class of separators): 3–8 times slower.
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


#: Characters the team backends' words fold before lowercasing, whatever a ``lower()`` makes
#: of them (:data:`FOLDED_CASES` to what FTS5 folds them to): ``İ`` to ``i`` (Python's
#: ``lower()`` adds a combining dot, which no query for ``istanbul`` has), ``Σ`` and the
#: final ``ς`` to ``σ`` (Python's ``lower()`` makes a word's last ``Σ`` ``ς``, PostgreSQL's
#: ``σ``: ``ΟΔΟΣ`` and ``οδος`` were other words on one backend than on the other).
FOLDED_CASES = "\u0130\u03a3\u03c2"
_CASE_FOLDS = tuple(zip(FOLDED_CASES, "i\u03c3\u03c3", strict=True))


#: Every combining mark (Unicode 14.0's categories Mn, Mc and Me, as Python 3.11's
#: ``unicodedata`` has them), as hexadecimal code points and inclusive ranges: characters
#: that continue the word before them on the PostgreSQL and Qdrant backends (PostgreSQL's
#: parser does not split there either). Written out, not read from ``unicodedata`` on each
#: start (a pass over every code point costs ~0.7 s), and fixed, so that the words a store
#: holds do not change with the Python that wrote them; tests/test_lexical_table.py checks
#: it against ``unicodedata``.
COMBINING_MARKS = (
    "0300-036F 0483-0489 0591-05BD 05BF 05C1-05C2 05C4-05C5 05C7 0610-061A 064B-065F "
    "0670 06D6-06DC 06DF-06E4 06E7-06E8 06EA-06ED 0711 0730-074A 07A6-07B0 07EB-07F3 "
    "07FD 0816-0819 081B-0823 0825-0827 0829-082D 0859-085B 0898-089F 08CA-08E1 "
    "08E3-0903 093A-093C 093E-094F 0951-0957 0962-0963 0981-0983 09BC 09BE-09C4 "
    "09C7-09C8 09CB-09CD 09D7 09E2-09E3 09FE 0A01-0A03 0A3C 0A3E-0A42 0A47-0A48 "
    "0A4B-0A4D 0A51 0A70-0A71 0A75 0A81-0A83 0ABC 0ABE-0AC5 0AC7-0AC9 0ACB-0ACD "
    "0AE2-0AE3 0AFA-0AFF 0B01-0B03 0B3C 0B3E-0B44 0B47-0B48 0B4B-0B4D 0B55-0B57 "
    "0B62-0B63 0B82 0BBE-0BC2 0BC6-0BC8 0BCA-0BCD 0BD7 0C00-0C04 0C3C 0C3E-0C44 "
    "0C46-0C48 0C4A-0C4D 0C55-0C56 0C62-0C63 0C81-0C83 0CBC 0CBE-0CC4 0CC6-0CC8 "
    "0CCA-0CCD 0CD5-0CD6 0CE2-0CE3 0D00-0D03 0D3B-0D3C 0D3E-0D44 0D46-0D48 0D4A-0D4D "
    "0D57 0D62-0D63 0D81-0D83 0DCA 0DCF-0DD4 0DD6 0DD8-0DDF 0DF2-0DF3 0E31 0E34-0E3A "
    "0E47-0E4E 0EB1 0EB4-0EBC 0EC8-0ECD 0F18-0F19 0F35 0F37 0F39 0F3E-0F3F 0F71-0F84 "
    "0F86-0F87 0F8D-0F97 0F99-0FBC 0FC6 102B-103E 1056-1059 105E-1060 1062-1064 "
    "1067-106D 1071-1074 1082-108D 108F 109A-109D 135D-135F 1712-1715 1732-1734 "
    "1752-1753 1772-1773 17B4-17D3 17DD 180B-180D 180F 1885-1886 18A9 1920-192B "
    "1930-193B 1A17-1A1B 1A55-1A5E 1A60-1A7C 1A7F 1AB0-1ACE 1B00-1B04 1B34-1B44 "
    "1B6B-1B73 1B80-1B82 1BA1-1BAD 1BE6-1BF3 1C24-1C37 1CD0-1CD2 1CD4-1CE8 1CED 1CF4 "
    "1CF7-1CF9 1DC0-1DFF 20D0-20F0 2CEF-2CF1 2D7F 2DE0-2DFF 302A-302F 3099-309A "
    "A66F-A672 A674-A67D A69E-A69F A6F0-A6F1 A802 A806 A80B A823-A827 A82C A880-A881 "
    "A8B4-A8C5 A8E0-A8F1 A8FF A926-A92D A947-A953 A980-A983 A9B3-A9C0 A9E5 AA29-AA36 "
    "AA43 AA4C-AA4D AA7B-AA7D AAB0 AAB2-AAB4 AAB7-AAB8 AABE-AABF AAC1 AAEB-AAEF "
    "AAF5-AAF6 ABE3-ABEA ABEC-ABED FB1E FE00-FE0F FE20-FE2F 101FD 102E0 10376-1037A "
    "10A01-10A03 10A05-10A06 10A0C-10A0F 10A38-10A3A 10A3F 10AE5-10AE6 10D24-10D27 "
    "10EAB-10EAC 10F46-10F50 10F82-10F85 11000-11002 11038-11046 11070 11073-11074 "
    "1107F-11082 110B0-110BA 110C2 11100-11102 11127-11134 11145-11146 11173 11180-11182 "
    "111B3-111C0 111C9-111CC 111CE-111CF 1122C-11237 1123E 112DF-112EA 11300-11303 "
    "1133B-1133C 1133E-11344 11347-11348 1134B-1134D 11357 11362-11363 11366-1136C "
    "11370-11374 11435-11446 1145E 114B0-114C3 115AF-115B5 115B8-115C0 115DC-115DD "
    "11630-11640 116AB-116B7 1171D-1172B 1182C-1183A 11930-11935 11937-11938 1193B-1193E "
    "11940 11942-11943 119D1-119D7 119DA-119E0 119E4 11A01-11A0A 11A33-11A39 11A3B-11A3E "
    "11A47 11A51-11A5B 11A8A-11A99 11C2F-11C36 11C38-11C3F 11C92-11CA7 11CA9-11CB6 "
    "11D31-11D36 11D3A 11D3C-11D3D 11D3F-11D45 11D47 11D8A-11D8E 11D90-11D91 11D93-11D97 "
    "11EF3-11EF6 16AF0-16AF4 16B30-16B36 16F4F 16F51-16F87 16F8F-16F92 16FE4 16FF0-16FF1 "
    "1BC9D-1BC9E 1CF00-1CF2D 1CF30-1CF46 1D165-1D169 1D16D-1D172 1D17B-1D182 1D185-1D18B "
    "1D1AA-1D1AD 1D242-1D244 1DA00-1DA36 1DA3B-1DA6C 1DA75 1DA84 1DA9B-1DA9F 1DAA1-1DAAF "
    "1E000-1E006 1E008-1E018 1E01B-1E021 1E023-1E024 1E026-1E02A 1E130-1E136 1E2AE "
    "1E2EC-1E2EF 1E8D0-1E8D6 1E944-1E94A E0100-E01EF"
)


def combining_mark_ranges() -> tuple[tuple[int, int], ...]:
    """:data:`COMBINING_MARKS` as inclusive (first, last) code point ranges."""
    return tuple(
        (int(first, 16), int(last or first, 16))
        for first, _, last in (item.partition("-") for item in COMBINING_MARKS.split())
    )


def holds_mark_or_folded_case(text: str) -> bool:
    """Whether ``text`` holds a combining mark or one of :data:`FOLDED_CASES`: the only
    texts whose words on the PostgreSQL and Qdrant backends changed when a mark stopped
    splitting a word and those characters were folded."""
    return not text.isascii() and _mark_or_folded_case().search(text) is not None


@functools.cache
def _mark_or_folded_case() -> re.Pattern[str]:
    marks = "".join(f"\\U{first:08x}-\\U{last:08x}" for first, last in combining_mark_ranges())
    return re.compile(f"[{FOLDED_CASES}{marks}]")


class _Words(NamedTuple):
    """The word patterns of non-ASCII text, each also without the ranges beyond the basic
    plane (for a text without such a character, :data:`_ASTRAL`), and FTS5's folds."""

    #: A word as the PostgreSQL and Qdrant backends make it: a letter or digit, then letters,
    #: digits and the combining marks on them (a mark that follows no letter separates, as
    #: in PostgreSQL's parser); in a text whose "_" are spaces.
    team: re.Pattern[str]
    team_basic_plane: re.Pattern[str]
    #: A word as FTS5's unicode61 sees it: a run of what is neither an ASCII separator nor
    #: in one of its non-ASCII separator ranges.
    fts5: re.Pattern[str]
    fts5_basic_plane: re.Pattern[str]
    #: FTS5's fold of every character it changes, for ``str.translate`` (a character
    #: folds to what FTS5 stores whatever surrounds it).
    fold: dict[int, str]


@functools.cache
def _words() -> _Words:
    """Built on the first non-ASCII text (loading the table costs ~2 ms, compiling a
    pattern ~5 ms, which a process that sees only ASCII never pays)."""
    from .unicode61 import FOLDS, SEPARATOR_RANGES

    def ranges(listed: Iterable[tuple[int, int]], *, basic_plane: bool) -> str:
        return "".join(
            f"\\U{first:08x}-\\U{min(last, 0xFFFF) if basic_plane else last:08x}"
            for first, last in listed
            if first <= 0xFFFF or not basic_plane
        )

    # each compiled when first used (~5 ms each): a process meets one or two of them
    def team(basic_plane: bool) -> re.Pattern[str]:
        return lazy(f"\\w[\\w{ranges(combining_mark_ranges(), basic_plane=basic_plane)}]*")

    def fts5(basic_plane: bool) -> re.Pattern[str]:
        separators = ranges(SEPARATOR_RANGES, basic_plane=basic_plane)
        return lazy(f"[^\\x00-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f{separators}]+")

    fold = {ord(c): c.lower() for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}
    fold.update(FOLDS)
    return _Words(team(False), team(True), fts5(False), fts5(True), fold)


def terms(text: str, limit: int | None = None, *, fold_diacritics: bool = True) -> list[str]:
    """Distinct tokens of ``text`` in order of first appearance (at most ``limit``)."""
    found = list(dict.fromkeys(tokens(text, fold_diacritics=fold_diacritics)))
    return found if limit is None else found[:limit]


#: Full-width digits and Latin letters as an index holds them (lowercased), and the ASCII
#: ones they are in their usual width.
_FULL_WIDTH = "".join(chr(ord(c) + 0xFEE0) for c in "0123456789abcdefghijklmnopqrstuvwxyz")
_TO_USUAL = str.maketrans(_FULL_WIDTH, "0123456789abcdefghijklmnopqrstuvwxyz")
_TO_FULL = str.maketrans("0123456789abcdefghijklmnopqrstuvwxyz", _FULL_WIDTH)
#: The first and last character a full-width spelling is made of (０ … ｚ).
FULL_WIDTH_FIRST, FULL_WIDTH_LAST = min(_FULL_WIDTH), max(_FULL_WIDTH)


def usual_width(term: str) -> str:
    """``term`` (a token: lowercased) with its full-width digits and letters in ASCII."""
    return term if term.isascii() else term.translate(_TO_USUAL)


def spellings(term: str) -> tuple[str, ...]:
    """The words an index may hold for ``term`` (in its usual width): itself and, for a word
    of ASCII digits and letters, the same word in full width."""
    if term.isascii() and term.isalnum():
        return (term, term.translate(_TO_FULL))
    return (term,)


def query_terms(text: str, limit: int | None = None, *, fold_diacritics: bool = True) -> list[str]:
    """:func:`terms` of a query, each in its usual width (:func:`usual_width`): what the
    backends look up, with each term's :func:`spellings`, and score."""
    found = list(dict.fromkeys(map(usual_width, tokens(text, fold_diacritics=fold_diacritics))))
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
        # a full-width word is also counted as the word it is (a query's terms are in
        # their usual width), with the usual ones: ｎｐｍ and npm are one term
        if _FULL_WIDTH_LETTER_OR_DIGIT.search(text):
            for term, count in list(counts.items()):
                usual = usual_width(term)
                if usual != term:
                    counts[usual] += count
    return counts, len(folded)


#: What a full-width word's letters and digits are written with, in either case (the
#: range's few punctuation marks too: the pattern only spares most texts a loop).
_FULL_WIDTH_LETTER_OR_DIGIT = re.compile("[\uff10-\uff5a]")


#: How many short texts' :func:`text_statistics` are kept, and up to what length: a
#: long-lived process (the MCP server) scores the same notes query after query. Measured
#: with tracemalloc: 1.7 MB for 512 notes of ~300 characters, 15.5 MB at worst (512 texts
#: of 250 one-character terms); at 2,000 characters the worst was 52 MB.
TEXT_STATISTICS_KEPT = 512
TEXT_STATISTICS_MAX_CHARS = 500
#: How much of longer texts' :func:`text_statistics` is kept besides, by the cost
#: :func:`_kept_cost` reckons. Tokenising a candidate is most of scoring it (0.1–0.3 ms for
#: a ruff rule doc of ~800 characters, ~25 candidates a query), and real notes are often
#: longer than 500 characters: 66–82% of the rust and ruff eval documents. Measured with
#: tracemalloc: those 1,186 longer docs cost 10.6 M and took 7.9 MB, all kept; at worst
#: (texts of distinct one-character or number terms) the budget held 26 MB.
TEXT_STATISTICS_LONG_BUDGET = 12_000_000


def text_statistics(text: str) -> tuple[Mapping[str, int], int]:
    """:func:`term_counts_and_length` of ``text``, remembered for the texts scored last
    (a pure function of the text, so nothing can make a remembered answer stale). The
    counts may be shared between callers: read them, do not change them."""
    if len(text) > TEXT_STATISTICS_MAX_CHARS:
        return _LONG_TEXTS.statistics(text)
    return _remembered_statistics(text)


@functools.lru_cache(maxsize=TEXT_STATISTICS_KEPT)
def _remembered_statistics(text: str) -> tuple[Mapping[str, int], int]:
    return term_counts_and_length(text)


def _kept_cost(text: str, counts: Mapping[str, int]) -> int:
    """About the bytes a text's remembered statistics hold: the text (the key) and, per
    distinct term, its string, its count and its slot in the dict."""
    return len(text) + 100 * len(counts)


class RememberedStatistics:
    """:func:`term_counts_and_length` of the texts asked for last, kept while their
    :func:`_kept_cost` fits ``budget`` (the least recently asked go first); a text that
    alone exceeds it is counted each time. Safe to share between threads (the lexical side
    of a query scores its hits on its own thread)."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self._kept: OrderedDict[str, tuple[Counter[str], int]] = OrderedDict()
        self._cost = 0
        self._lock = threading.Lock()

    def statistics(self, text: str) -> tuple[Mapping[str, int], int]:
        with self._lock:
            found = self._kept.get(text)
            if found is not None:
                self._kept.move_to_end(text)
                return found
        # counted outside the lock: another thread's lookups need not wait for it
        found = term_counts_and_length(text)
        cost = _kept_cost(text, found[0])
        if cost > self.budget:
            return found
        with self._lock:
            if text not in self._kept:
                self._kept[text] = found
                self._cost += cost
                while self._cost > self.budget:
                    dropped, (counts, _) = self._kept.popitem(last=False)
                    self._cost -= _kept_cost(dropped, counts)
        return found

    @property
    def cost(self) -> int:
        """The :func:`_kept_cost` of everything kept."""
        return self._cost


_LONG_TEXTS = RememberedStatistics(TEXT_STATISTICS_LONG_BUDGET)


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
    return bm25_of_each({None: (term_frequencies, length)}, idfs, average_length, k1=k1, b=b)[None]


def bm25_of_each(
    rows: Mapping[_Key, tuple[Mapping[str, int], int]],
    idfs: Mapping[str, float],
    average_length: float,
    *,
    k1: float = BM25_K1,
    b: float = BM25_B,
) -> dict[_Key, float]:
    """:func:`bm25` of each of ``rows`` (its term frequencies and its length), by its key: one
    call for the candidates of a query, not a call of each (the hybrid score takes ~40 a
    recall, whose calls were a third of their cost)."""
    weights = list(idfs.items())
    out: dict[_Key, float] = {}
    for key, (term_frequencies, length) in rows.items():
        norm = k1 * (1 - b + b * length / average_length)
        total = 0.0
        for term, weight in weights:
            frequency = term_frequencies.get(term, 0)
            if frequency > 0:
                total += weight * frequency * (k1 + 1) / (frequency + norm)
        out[key] = total
    return out


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
