"""One character in another width: full-width ``ＥＲＲＯＲ　１２３`` is ``ERROR 123``.

A Japanese or Chinese input method types full-width Latin letters, digits and symbols (and
an ideographic space) where another keyboard types ASCII, and half-width katakana (``ｴﾗｰ``)
where another types ``エラー``: the same words. The near-duplicate rule reads them alike
(:mod:`kenning.dedup`), and so must the model: MiniLM's word pieces have no full-width
letters, so ``ｄａｔａｂａｓｅ ｉｓ ｌｏｃｋｅｄ`` embedded as written scored 0.12 against the
query "database is locked", where its ASCII twin scores 0.67 — a note that recall never
found and that dedup refused to store again in ASCII.

Pure: a note is stored as written; only what is compared or embedded is folded.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

__all__ = ["WIDTH_FORMS", "fold_widths", "folding_for", "has_width_forms"]

#: NFKC's ``<wide>`` and ``<narrow>`` foldings (all in the Halfwidth and Fullwidth Forms
#: block but the ideographic space), each character to the one it is in another width. Only
#: the width: ``n²`` stays ``n²`` and ``①`` stays ``①``, which NFKC would fold as well.
WIDTH_FORMS: dict[str, str] = {
    c: chr(int(unicodedata.decomposition(c).split()[1], 16))
    for c in map(chr, (0x3000, *range(0xFF00, 0xFFF0)))
    if unicodedata.decomposition(c).startswith(("<wide>", "<narrow>"))
}
_EVERY_WIDTH = str.maketrans(WIDTH_FORMS)
_WIDTH_FORM = re.compile("[\u3000\uff00-\uffef]")


def has_width_forms(text: str) -> bool:
    """Whether ``text`` holds a character of the block :data:`WIDTH_FORMS` comes from (or
    the ideographic space): the only texts a fold can change."""
    return not text.isascii() and _WIDTH_FORM.search(text) is not None


def fold_widths(text: str, table: dict[int, str] | None = None) -> str:
    """``text`` with each full-width or half-width form as its usual character (only those
    of ``table``, from :func:`folding_for`, when given).

    A half-width voiced mark (``ｶﾞ``) becomes the combining mark, which NFC joins to its
    letter (``ガ``); callers that compare texts normalise afterwards."""
    if text.isascii():
        return text
    return text.translate(_EVERY_WIDTH if table is None else table)


def folding_for(reads: Callable[[str], bool]) -> dict[int, str]:
    """The table for :func:`fold_widths` that folds only the forms a model cannot
    ``reads`` (say, those its tokenizer makes ``[UNK]`` of). MiniLM has word pieces for
    ten full-width marks of Chinese and Japanese prose (``，`` ``：`` ``（`` …); folding them
    too would move the vector of every such note (to a cosine of 0.97) for nothing."""
    return str.maketrans({c: usual for c, usual in WIDTH_FORMS.items() if not reads(c)})
