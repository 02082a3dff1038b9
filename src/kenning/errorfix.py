"""The ERROR-FIX entry format: one error→fix memory as a single line of text.

An ERROR-FIX entry is one memory of the form (SPEC §6, the seed's convention)::

    ERROR-FIX: <error signature> | FIX: <fix text> | SOURCE: <doc path> — <one-line summary>

The literal signature comes first because bi-encoders pool over tokens: front-loading the
error text maximises the match for a short error query. Where the pieces come from lives
beside this module: :mod:`kenning.signatures` (raw error text → signature),
:mod:`kenning.fingerprints` (signature → run- and file-independent fingerprint) and
:mod:`kenning.solution_docs` (solution document → entries).

Separator rule: the parts of an entry are single lines; the only sequences that could break
parsing are the markers ``| FIX:`` and ``| SOURCE:`` themselves (and `` — `` inside the
source path). :meth:`ErrorFixEntry.format` neutralises those (``|`` becomes ``/``) and
leaves every other ``|`` alone, so a shell pipeline such as ``cmd | head -1`` survives.
The labels themselves lose their colon where they are a part's text (``FIX:`` and
``SOURCE:`` in the signature, the source and the summary; ``SOURCE:`` in the fix), so
that a reader meets the entry's own ``FIX:`` first.
:func:`parse_error_fix` splits on the *first* `` | FIX: `` and the *last* `` | SOURCE: ``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .lazyre import lazy
from .model import ERROR_FIX_PREFIX

__all__ = [
    "ERROR_FIX_PREFIX",
    "FIX_MAX_CHARS",
    "SIGNATURE_MAX_CHARS",
    "SUMMARY_MAX_CHARS",
    "ErrorFixEntry",
    "error_fix_signature",
    "fix_start",
    "one_line",
    "parse_error_fix",
]

#: A signature is one line of at most this many characters.
SIGNATURE_MAX_CHARS = 300
#: The fix text of a seeded entry is cut to this many characters at a word boundary.
FIX_MAX_CHARS = 400
#: The one-line problem summary after the source path.
SUMMARY_MAX_CHARS = 160

_WS = lazy(r"\s+")


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (newlines included) as one space, stripped."""
    return _WS.sub(" ", text or "").strip()


_MARKER_FIX = lazy(r"\|(?=\s*FIX:)", re.IGNORECASE)
_MARKER_SOURCE = lazy(r"\|(?=\s*SOURCE:)", re.IGNORECASE)


#: The entry's own labels, ``FIX:`` and ``SOURCE:`` in any case, where they are text of a part
#: (a problem line, a file name): written without their colon, so that the first ``FIX:``
#: a reader meets is the entry's own (inj7 F5).
_LABELS = lazy(r"\b(FIX|SOURCE)\s*(?::\s*)+", re.IGNORECASE)
#: In the fix, the source's label as the entry writes it only: a fix may hold a
#: configuration's ``source:`` key.
_SOURCE_LABEL = lazy(r"\b(SOURCE)\s*(?::\s*)+")


def _neutralise(part: str, labels: re.Pattern[str] | None = None) -> str:
    """One line, with the entry markers made harmless (``| FIX:`` → ``/ FIX:``), and
    ``labels`` written without their colon (``FIX: run this`` → ``FIX run this``)."""
    part = one_line(part)
    part = _MARKER_FIX.sub("/", part)
    part = _MARKER_SOURCE.sub("/", part)
    return part if labels is None else labels.sub(r"\1 ", part).strip()


@dataclass(frozen=True)
class ErrorFixEntry:
    """One error→fix memory. Parts are normalised to single lines by :meth:`format`."""

    signature: str
    fix: str
    source: str = ""
    summary: str = ""

    def normalised(self) -> ErrorFixEntry:
        """The entry as :func:`parse_error_fix` reads it back from :meth:`format`."""
        source = _neutralise(self.source, _LABELS).replace(" — ", " - ")
        return ErrorFixEntry(
            signature=_neutralise(self.signature, _LABELS),
            fix=_neutralise(self.fix, _SOURCE_LABEL),
            source=source,
            summary=_neutralise(self.summary, _LABELS) if source else "",
        )

    def format(self) -> str:
        """``ERROR-FIX: <signature> | FIX: <fix> | SOURCE: <source> — <summary>``.

        ``SOURCE`` is left out when there is no source, the summary when it is empty.
        """
        e = self.normalised()
        text = f"{ERROR_FIX_PREFIX} {e.signature} | FIX: {e.fix}"
        if e.source:
            text += f" | SOURCE: {e.source}"
            if e.summary:
                text += f" — {e.summary}"
        return text

    @property
    def fingerprint(self) -> str:
        from .fingerprints import error_fingerprint

        return error_fingerprint(self.signature)


# Not an entry, decided without collapsing the whole text: the first character after the
# leading whitespace must upper-case to "E" (only "e" and "E" do, checked over every code
# point).
_CANNOT_START_ENTRY = lazy(r"\s*(?:[^eE\s]|$)")
_FIX_SPLIT = lazy(r"\s+\|\s+FIX:\s*", re.IGNORECASE)
_SOURCE_SPLIT = lazy(r"\s+\|\s+SOURCE:\s*", re.IGNORECASE)


def fix_start(text: str) -> int | None:
    """Where the fix of the ERROR-FIX entry ``text`` begins (its first character's index,
    after the `` | FIX: `` marker, as :func:`parse_error_fix` reads it); None when ``text`` is
    no entry."""
    if not text or _CANNOT_START_ENTRY.match(text):
        return None
    if not text.lstrip().upper().startswith(ERROR_FIX_PREFIX):
        return None
    marker = _FIX_SPLIT.search(text)
    return marker.end() if marker is not None else None


def parse_error_fix(text: str) -> ErrorFixEntry | None:
    """Read an ``ERROR-FIX:`` entry back; ``None`` when ``text`` is not one.

    The signature ends at the first `` | FIX: ``, the fix at the last `` | SOURCE: ``, and
    the source path at the first `` — `` (the summary is the rest). ``SOURCE`` is optional.
    """
    if not text or _CANNOT_START_ENTRY.match(text):
        return None
    stripped = one_line(text)
    if not stripped.upper().startswith(ERROR_FIX_PREFIX):
        return None
    rest = stripped[len(ERROR_FIX_PREFIX) :].strip()
    fix_match = _FIX_SPLIT.search(rest)
    if fix_match is None:
        return None
    signature = rest[: fix_match.start()].strip()
    rest = rest[fix_match.end() :]
    source = summary = ""
    source_matches = list(_SOURCE_SPLIT.finditer(rest))
    if source_matches:
        last = source_matches[-1]
        fix = rest[: last.start()].strip()
        tail = rest[last.end() :].strip()
        source, sep, summary = tail.partition(" — ")
        source, summary = source.strip(), summary.strip() if sep else ""
    else:
        fix = rest.strip()
    if not signature:
        return None
    return ErrorFixEntry(signature=signature, fix=fix, source=source, summary=summary)


def error_fix_signature(text: str) -> str | None:
    """The signature :func:`parse_error_fix` reads from ``text`` (None when it is no entry),
    read from the text up to its first `` | FIX: `` marker only: the fix, the source and the
    summary after it are not collapsed nor searched for the last ``| SOURCE:``, which was
    most of the reading of a long entry (a fingerprint's, at every row of a renewal's or
    doctor's scan: ~100 of 300 us for one of 2.6 KB)."""
    if not text or _CANNOT_START_ENTRY.match(text):
        return None
    # (the prefix holds no whitespace: the first characters as written are the collapsed
    # text's, and each upper-cases to one character or more)
    if not text.lstrip()[: len(ERROR_FIX_PREFIX)].upper().startswith(ERROR_FIX_PREFIX):
        return None
    marker = _FIX_SPLIT.search(text)
    if marker is None:
        return None  # (a marker between the collapsed parts is one in the text as written)
    # The first marker of the text is the entry's unless the prefix or its stripping took
    # the whitespace before it (``ERROR-FIX: | FIX: …``): then the whole text is read.
    entry = parse_error_fix(text[: marker.end()]) or parse_error_fix(text)
    return None if entry is None else entry.signature
