"""Terms as the lexical index sees them.

SQLite FTS5's ``unicode61`` tokenizer (with ``remove_diacritics 2``) splits on anything
that is not a letter or digit, lowercases and drops diacritics. The SQLite backend builds
its queries from these terms, and hybrid scoring measures how many of a query's terms a
memory contains with the same function, so both agree on what a "word" is.
"""

from __future__ import annotations

import re
import unicodedata

_TERM = re.compile(r"[^\W_]+", re.UNICODE)
#: Queries are cut to this many distinct terms.
MAX_QUERY_TERMS = 64


def terms(text: str, limit: int | None = None) -> list[str]:
    """Distinct terms of ``text`` in order of first appearance."""
    folded = text.lower()
    if not folded.isascii():  # only non-ASCII text can carry diacritics
        folded = unicodedata.normalize("NFKD", folded)
        folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    found = list(dict.fromkeys(_TERM.findall(folded)))
    return found if limit is None else found[:limit]


def coverage(query_terms: set[str], text: str) -> float:
    """Share of the query's terms that occur in ``text`` (0 when the query has none)."""
    if not query_terms:
        return 0.0
    return len(query_terms & set(terms(text))) / len(query_terms)
