"""The one way kenning shortens text: at a word boundary, never inside a grapheme cluster.

Every budget goes through :func:`truncate_at_word_boundary`: the recall protocol's combined
800 characters (:mod:`kenning.render`), the fix text and summary of a seeded ERROR-FIX entry
(:mod:`kenning.solution_docs`), and the query builders' character caps (:mod:`kenning.querybuild`).

Cluster boundaries are Unicode's extended grapheme clusters (UAX #29), found with the
``regex`` module's ``\\X`` rather than hand rules: a cut never separates a base letter from
its combining marks or spacing vowel (Thai กำ), an Indic conjunct (Devanagari क्षि), a
prepended mark from what follows it (Arabic U+0600 before a digit), a ZWJ emoji sequence, a
flag pair or ``\\r\\n``.
"""

from __future__ import annotations

import math
import unicodedata

import regex

from .lazyre import lazy_regex

__all__ = [
    "cluster_boundary_at_or_before",
    "cut_at_word_boundary",
    "is_word_boundary",
    "truncate_at_word_boundary",
]

#: A whitespace cut is used only if it keeps at least this share of the budget; otherwise
#: the text is cut hard at the budget (a 700-character URL must not collapse to nothing).
MIN_WORD_CUT_SHARE = 0.6

_CLUSTER = lazy_regex(r"\X", regex.DOTALL)
#: What a line may not start with in Chinese and Japanese (closing punctuation, the
#: prolonged-sound mark, the middle dot): no cut right before one.
_NO_BREAK_BEFORE = frozenset("。、，．！？：；」』）】〕〉》〙〗・ー‐〜ゝゞヽヾ")


def _wide(char: str) -> bool:
    """A character Chinese or Japanese text may be broken beside (wide, but not Hangul:
    Korean puts spaces between words, and a cut inside one is a fragment)."""
    code = ord(char)
    if 0x1100 <= code <= 0x11FF or 0x3130 <= code <= 0x318F or 0xAC00 <= code <= 0xD7AF:
        return False
    return unicodedata.east_asian_width(char) in ("W", "F")


def is_word_boundary(text: str, index: int) -> bool:
    """May ``text`` be cut before ``text[index]`` (0 < index < len)? Before whitespace, or
    next to a wide (CJK) character: Chinese and Japanese write no spaces between words and
    break a line between any two characters (UAX #14), except before closing punctuation."""
    after = text[index]
    if after.isspace():
        return True
    if after in _NO_BREAK_BEFORE:
        return False
    return _wide(after) or _wide(text[index - 1])


def cluster_boundary_at_or_before(text: str, index: int) -> int:
    """The largest grapheme-cluster boundary of ``text`` that is ``<= index``."""
    if index >= len(text):
        return len(text)
    boundary = 0
    if index <= 0:
        return boundary
    before, after = text[index - 1], text[index]
    if before.isascii() and after.isascii():
        # Between two ASCII characters the only unbreakable pair is CR LF (UAX #29 GB3; the
        # rules that join more need a non-ASCII character on one side), and the position
        # before a CR is always a boundary (GB5): no need to scan from the start.
        return index - 1 if before == "\r" and after == "\n" else index
    # Clusters are found from the start: a scan that began mid-text could begin mid-cluster.
    for match in _CLUSTER.finditer(text):
        if match.end() > index:
            break
        boundary = match.end()
    # A str from broken input may hold a surrogate pair as two code points: keep it whole.
    if boundary and "\ud800" <= text[boundary - 1] <= "\udbff":
        boundary -= 1
    return boundary


def truncate_at_word_boundary(
    text: str, budget: int, *, min_share: float = MIN_WORD_CUT_SHARE
) -> tuple[str, bool]:
    """Cut ``text`` to at most ``budget`` characters at a word boundary.

    Returns ``(prefix, truncated)``. The prefix is a prefix of ``text``; nothing (no "…") is
    appended. The cut is at the last word boundary at or before position ``budget``
    (:func:`is_word_boundary`: before whitespace, which is dropped, or next to a CJK
    character); when that would keep less than ``min_share`` of the budget (60 %: no
    boundary in the last 40 %), the text is cut hard at ``budget``. Either way the cut is
    moved left to the nearest grapheme-cluster boundary.
    """
    if budget < 0:
        raise ValueError("budget must be >= 0")
    if len(text) <= budget:
        return text, False
    if budget == 0:
        return "", True
    cut = budget  # hard cut unless a whitespace is found in the last 40 % of the budget
    lowest = math.ceil(budget * min_share)
    for i in range(budget, max(lowest, 1) - 1, -1):  # text[budget] exists: len(text) > budget
        if is_word_boundary(text, i):
            cut = i
            break
    cut = cluster_boundary_at_or_before(text, cut)
    prefix = text[:cut].rstrip()
    return text[: cluster_boundary_at_or_before(text, len(prefix))], True


def cut_at_word_boundary(text: str, limit: int) -> str:
    """:func:`truncate_at_word_boundary`'s prefix alone (for callers that need no flag)."""
    return truncate_at_word_boundary(text, limit)[0] if limit > 0 else ""
