"""kenning's words are the SQLite index's words: :func:`kenning.lexical.tokens` against the
FTS5 ``unicode61`` tokenizer of the SQLite in use (the one the SQLite backend indexes with),
character by character and on mixed texts."""

from __future__ import annotations

import random
import sqlite3
import sys
import unicodedata
from collections.abc import Iterable

from kenning.lexical import combining_mark_ranges, terms, tokens
from kenning.unicode61 import FOLDS, SEPARATOR_RANGES


def fts5_words(texts: Iterable[str]) -> list[list[str]]:
    """The words FTS5 (``unicode61 remove_diacritics 2``, as the SQLite backend's index)
    makes of each text, in order."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(c, tokenize='unicode61 remove_diacritics 2')")
    db.execute("CREATE VIRTUAL TABLE words USING fts5vocab(t, 'instance')")
    texts = list(texts)
    with db:
        db.executemany("INSERT INTO t(rowid, c) VALUES (?, ?)", enumerate(texts, 1))
    found: list[list[tuple[int, str]]] = [[] for _ in texts]
    for term, doc, offset in db.execute("SELECT term, doc, offset FROM words"):
        found[doc - 1].append((offset, term))
    db.close()
    return [[term for _, term in sorted(words)] for words in found]


def test_every_character_of_the_basic_plane_and_of_the_table_splits_and_folds_as_in_fts5() -> None:
    separators = {c for first, last in SEPARATOR_RANGES for c in range(first, last + 1)}
    folds = dict(FOLDS)
    beyond = {c for c in (*separators, *folds) if c > 0xFFFF}
    beyond |= {c + d for first, last in SEPARATOR_RANGES for c in (first, last) for d in (-1, 1)}
    points = sorted(
        c
        for c in {*range(0x80, 0x10000), *beyond}
        if 0x80 <= c < 0x110000 and not 0xD800 <= c < 0xE000
    )
    words = fts5_words(f"q{chr(c)}z" for c in points)
    wrong = []
    for c, made in zip(points, words, strict=True):
        expected = ["q", "z"] if c in separators else [f"q{folds.get(c, chr(c))}z"]
        if made != expected:
            wrong.append((f"U+{c:04X}", made, expected))
        elif made != tokens(f"q{chr(c)}z") and c > 0x7F:
            wrong.append((f"U+{c:04X}", made, tokens(f"q{chr(c)}z")))
    assert not wrong, f"{len(wrong)} characters differ from this SQLite's FTS5: {wrong[:10]}"


def test_ascii_texts_split_and_lowercase_as_in_fts5() -> None:
    """ASCII takes its own path (a translation table, then ``split``): every ASCII character
    inside a word and at its edges, and random ASCII texts, have FTS5's words."""
    between = [f"q{chr(c)}Z{chr(c)}" for c in range(128)]
    rng = random.Random(11)
    texts = [
        "".join(chr(rng.randrange(128)) for _ in range(rng.randrange(60))) for _ in range(3000)
    ]
    texts += between
    made = [tokens(t) for t in texts]
    expected = fts5_words(texts)
    wrong = [(t, m, e) for t, m, e in zip(texts, made, expected, strict=True) if m != e]
    assert not wrong, f"{len(wrong)} ASCII texts differ from FTS5: {wrong[:5]}"


def test_mixed_texts_have_the_words_fts5_makes_of_them() -> None:
    """Random texts mixing scripts, marks, symbols, ligatures, fullwidth and astral
    characters, and notes in several languages: the same words in the same order."""
    rng = random.Random(7)
    pools = [
        range(0x20, 0x7F),
        range(0xA0, 0x250),
        range(0x300, 0x370),
        range(0x370, 0x530),
        range(0x600, 0x700),
        range(0x1E00, 0x2000),
        range(0x2000, 0x2200),
        range(0x3040, 0x3100),
        range(0xAC00, 0xAD00),
        range(0xFB00, 0xFB07),
        range(0xFF00, 0xFF70),
        range(0x1D400, 0x1D500),
        range(0x1F600, 0x1F650),
    ]
    texts = [
        "".join(chr(rng.choice(rng.choice(pools))) for _ in range(rng.randint(1, 40)))
        for _ in range(2000)
    ]
    texts += [
        "잠금 파일이 남아 있으면 빌드가 멈춘다",
        "Η σύνδεση στην Αθήνα απέτυχε",
        "ﬁle descriptors leak in the ＷＯＲＫＥＲ pool",
        "İstanbul sunucusu yanıt vermiyor — ǅemal, ẞtraße, Ⅻ ½ ²",
        "Le café de l'ÉCOLE ferme à minuit; cafe\u0301 décomposé",
        "База данных заблокирована: включите WAL",
        "日本語 のキャッシュ",
    ]
    assert [tokens(t) for t in texts] == fts5_words(texts)


def test_words_of_the_index_are_query_terms_unchanged() -> None:
    """A word the index holds, given back as a query, is that one word (a query is made
    of the same words the rows were indexed by)."""
    for word in ("잠금", "σύνδεση", "ｗｏｒｋｅｒ", "istanbul", "ﬁle", "ⅻ"):
        assert terms(word) == [word]


def test_the_combining_marks_table_is_unicodes() -> None:
    """The marks the team backends keep inside a word are every combining mark (Mn, Mc, Me)
    of the Unicode version the table was written for, and nothing else."""
    listed = {code for first, last in combining_mark_ranges() for code in range(first, last + 1)}
    assert all(unicodedata.category(chr(code)) in ("Mn", "Mc", "Me") for code in listed)
    if unicodedata.unidata_version == "14.0.0":
        marks = {
            code
            for code in range(sys.maxunicode + 1)
            if unicodedata.category(chr(code)) in ("Mn", "Mc", "Me")
        }
        assert listed == marks


def test_team_words_are_not_split_by_a_combining_mark() -> None:
    """The PostgreSQL and Qdrant words (diacritics kept) split a word at every combining
    mark that is not a letter of its own: 'हिन्दी' was 'ह', 'न', 'द' and 'தமிழ்' 'தம', 'ழ'
    (no note holding the word was found by it on PostgreSQL, whose index kept more of it),
    a query typed in decomposed form ('cafe' and U+0301, as macOS gives) lost its accent,
    and 'İstanbul' was 'i' and 'stanbul' (Python's lower() gives 'i' and a combining dot).
    Words keep their marks, a query is composed as the stored notes are, 'İ' is 'i'; ASCII
    and precomposed text keep their words."""
    cases = {
        "हिन्दी भाषा का अनुवाद": ["हिन्दी", "भाषा", "का", "अनुवाद"],
        "தமிழ் மொழி": ["தமிழ்", "மொழி"],
        "ភាសាខ្មែរ": ["ភាសាខ្មែរ"],
        "שָׁלוֹם עוֹלָם": ["שָׁלוֹם", "עוֹלָם"],
        "مَرْحَبًا": ["مَرْحَبًا"],
        "cafe\u0301 Vie\u0323\u0302t": ["café", "việt"],
        "İstanbul ISTANBUL": ["istanbul", "istanbul"],
        "ΟΔΟΣ οδος Οδός σύνδεση": ["οδοσ", "οδοσ", "οδόσ", "σύνδεση"],  # Σ and ς are σ
        "a \u0301b x_\u0301y": ["a", "b", "x", "y"],  # a mark after no letter separates
        "Le café de l'ÉCOLE, ẞtraße 42": ["le", "café", "de", "l", "école", "ßtraße", "42"],
        "src/components sqlite3.OperationalError": [
            "src",
            "components",
            "sqlite3",
            "operationalerror",
        ],
    }
    for text, words in cases.items():
        assert tokens(text, fold_diacritics=False) == words, text
    assert terms("İstanbul istanbul", fold_diacritics=False) == ["istanbul"]


def test_team_words_of_random_texts_are_a_letter_or_digit_then_letters_digits_and_marks() -> None:
    """The words of the PostgreSQL and Qdrant backends, on random texts that mix scripts,
    marks (astral ones too: a Brahmi vowel sign continues its word), "_", the folded cases
    and full-width letters: what the plainest pattern of their definition finds."""
    import re

    marks = "".join(f"\\U{first:08x}-\\U{last:08x}" for first, last in combining_mark_ranges())
    word = re.compile(f"(?:[^\\W_][{marks}]*)+")
    rng = random.Random(3)
    pools = [
        range(0x20, 0x7F),
        range(0xA0, 0x250),
        range(0x300, 0x370),
        range(0x900, 0x980),
        range(0xFF00, 0xFF70),
        range(0x11000, 0x11080),
        range(0x1D400, 0x1D500),
        range(0xE0100, 0xE0110),
    ]
    special = "_\u0130\u03a3\u03c2\u0301 "
    texts = [
        "".join(
            rng.choice(special) if rng.random() < 0.2 else chr(rng.choice(rng.choice(pools)))
            for _ in range(rng.randint(1, 40))
        )
        for _ in range(3000)
    ]
    texts.append("\U00011013\U00011038\U00011013 \U00011013_\U00011038")
    for text in texts:
        plain = unicodedata.normalize("NFC", text)
        for case, folded in zip("\u0130\u03a3\u03c2", "i\u03c3\u03c3", strict=True):
            plain = plain.replace(case, folded)
        assert tokens(text, fold_diacritics=False) == word.findall(plain.lower()), repr(text)
