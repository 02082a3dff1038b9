"""A big alternation asked first by the words its matches must hold.

Python's ``re`` tries every alternative of a pattern at every position of a text, so a
pattern of 78 alternatives (``kenning.signatures._LOOKS_LIKE_ERROR_SOURCE``, ~7,500
characters) costs ~1 µs a character even on a line that holds none of its words: most of
what ``recall --error`` spent on a 1 MB log, one line of it after another.
:class:`Prefiltered` reads the pattern's own parse (``re._parser``: what ``re`` compiles) for
the literal text each alternative cannot match without (``Traceback``, ``ERROR``, one of
``Error`` or ``Exception``), and answers as the pattern does: in a text, the alternatives of
each word it holds are searched (those that need that word), and the few alternatives that
need no such word (a line's ``^…:12:`` location) are searched in every text. The words are
derived, never written down, so they cannot drift from the pattern; what the reading does
not take apart (a lookaround, a case-insensitive part, a word shorter than
:data:`MIN_WORD`) only leaves an alternative to every text, and a parse it cannot read at all
leaves the whole pattern to every text: the answer is the pattern's whatever it misses.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable
from typing import Any

#: A word shorter than this (``.``, ``:``) is in most lines: an alternative that needs no
#: longer one is searched on every text, with the others that do.
MIN_WORD = 3

#: A word: its text, and whether it is read in any case (then lower-cased: ASCII only).
_Word = tuple[str, bool]
#: What the words of one part of a pattern are: a set, one of which every match holds, or
#: None (no such set found).
_Words = frozenset[_Word] | None


class _Reader:
    """The words each alternative of a parsed pattern needs (``re._parser``'s ops). A part
    read in any case (``(?i:…)``, ``re.IGNORECASE``) gives its ASCII characters lower-cased:
    in an ASCII text they are found as ``re`` finds them (past ASCII, ``re`` also takes
    ``ſ`` for ``s``, ``K`` for ``k``, ``İ`` for ``i``: such a text is searched whatever its
    words)."""

    def __init__(self) -> None:
        self.c = importlib.import_module("re._constants")

    def _char(self, op: object, av: Any, ignore_case: bool) -> str | None:
        """The character a literal op stands for (lower-cased in any case), else None."""
        if op is not self.c.LITERAL:
            return None
        if not ignore_case:
            return chr(av)
        return chr(av).lower() if av < 128 else None

    def _case(self, ignore_case: bool, av: Any) -> bool:
        _group, add, remove, _sub = av
        return (ignore_case or bool(add & re.IGNORECASE)) and not remove & re.IGNORECASE

    def leads(self, items: Any, ignore_case: bool) -> _Words:
        """The texts one of which every match of ``items`` starts with (each non-empty)."""
        c = self.c
        run: list[str] = []
        for op, av in items:
            char = self._char(op, av, ignore_case)
            if char is not None:
                run.append(char)
                continue
            if op is c.AT and not run:
                continue  # (zero width)
            if run:
                return frozenset([("".join(run), ignore_case)])
            if op is c.BRANCH:
                return self._union(self.leads(branch, ignore_case) for branch in av[1])
            if op is c.SUBPATTERN:
                return self.leads(av[3], self._case(ignore_case, av))
            return None
        return frozenset([("".join(run), ignore_case)]) if run else None

    @staticmethod
    def _union(sets: Iterable[_Words]) -> _Words:
        out: set[_Word] = set()
        for words in sets:
            if words is None:
                return None
            out |= words
        return frozenset(out)

    def words(self, items: Any, ignore_case: bool) -> _Words:
        """The best set of words one of which every match of the sequence ``items`` holds:
        of a run of literal characters (extended by the texts a group after it starts with,
        in the same case), or of a group, an alternation or a repeat of at least one."""
        c = self.c
        found: list[frozenset[_Word]] = []
        run: list[str] = []
        for op, av in items:
            char = self._char(op, av, ignore_case)
            if char is not None:
                run.append(char)
                continue
            if op is c.AT:
                continue  # zero width: what is on either side of it is still one text
            if run:
                text = "".join(run)
                found.append(frozenset([(text, ignore_case)]))
                if op in (c.BRANCH, c.SUBPATTERN):
                    after = self.leads([(op, av)], ignore_case)
                    if after is not None and all(case == ignore_case for _, case in after):
                        found.append(frozenset((text + lead, ignore_case) for lead, _ in after))
                run = []
            inner: _Words = None
            if op is c.SUBPATTERN:
                inner = self.words(av[3], self._case(ignore_case, av))
            elif op is c.BRANCH:
                inner = self._union(self.words(branch, ignore_case) for branch in av[1])
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and av[0] >= 1:
                inner = self.words(av[2], ignore_case)
            elif op is c.ATOMIC_GROUP:
                inner = self.words(av, ignore_case)
            if inner is not None:
                found.append(inner)
        if run:
            found.append(frozenset([("".join(run), ignore_case)]))
        if not found:
            return None
        # the set whose shortest word is longest (then the fewest words)
        return max(found, key=lambda words: (min(len(word) for word, _ in words), -len(words)))

    def alternatives(self, pattern: str, flags: int) -> tuple[Any, list[tuple[Any, _Words]]]:
        """The parse of ``pattern`` and its alternatives, each with its words (None: none
        of :data:`MIN_WORD` characters or more)."""
        parsed = importlib.import_module("re._parser").parse(pattern, flags)
        items = list(parsed.data)
        if len(items) == 1 and items[0][0] is self.c.BRANCH:
            alternatives = items[0][1][1]
        else:
            alternatives = [parsed]
        out = []
        for alternative in alternatives:
            found = self.words(alternative, bool(parsed.state.flags & re.IGNORECASE))
            if found is not None and min(len(word) for word, _ in found) < MIN_WORD:
                found = None
            out.append((alternative, found))
        return parsed, out


def _fewest(words: Iterable[_Word]) -> tuple[_Word, ...]:
    """``words`` without those that hold another of them in the same case (a text holding
    ``error:`` holds ``error``), shortest first."""
    kept: list[_Word] = []
    for word, case in sorted(set(words), key=lambda word: (len(word[0]), word)):
        if not any(shorter in word and kept_case == case for shorter, kept_case in kept):
            kept.append((word, case))
    return tuple(kept)


def needed_words(pattern: str, flags: int = 0) -> tuple[_Word, ...] | None:
    """Words one of which every match of ``re.compile(pattern, flags)`` holds (see
    :func:`holds_one`), or None: one of its alternatives needs none, or its parse cannot be
    read on this Python."""
    try:
        _parsed, alternatives = _Reader().alternatives(pattern, flags)
    except Exception:  # (a parse this Python's re does not give)
        return None
    if any(found is None for _alternative, found in alternatives):
        return None
    return _fewest(word for _alternative, found in alternatives for word in found or ())


def holds_one(text: str, words: tuple[_Word, ...], folded: str | None = None) -> bool:
    """Whether ``text`` holds one of ``words`` (as :func:`needed_words` gives them): false
    only when no match of their pattern can be in it. ``folded``: ``text.lower()``, given
    by a caller that asks several patterns' words of one text (folded once, not once a
    pattern), else made here when a word of any case needs it."""
    for word, any_case in words:
        if not any_case:
            if word in text:
                return True
        elif not text.isascii():
            return True  # (re finds "s" in "ſ": the text is searched)
        else:
            folded = text.lower() if folded is None else folded
            if word in folded:
                return True
    return False


class Prefiltered:
    """``pattern.search(text) is not None``, answered by the words first (see the module):
    each word's alternatives (those that need it) are searched in a text that holds it,
    the alternatives that need no word in every text."""

    __slots__ = ("_compile", "_compiled", "_folded", "_groups", "_plain", "_rest", "words")

    _compile: Callable[[Any], re.Pattern[str]]

    def __init__(self, pattern: str, flags: int = 0) -> None:
        #: The words, each with the alternatives that need it (compiled when first asked).
        self.words: tuple[_Word, ...] = ()
        self._plain: tuple[str, ...] = ()  # (the words in their case; those in any case)
        self._folded: tuple[str, ...] = ()
        self._groups: dict[_Word, Any] = {}
        self._compiled: dict[_Word, re.Pattern[str]] = {}
        #: The alternatives that need no word, alone (None: there are none).
        self._rest: re.Pattern[str] | None = None
        try:
            self._split(pattern, flags)
        except Exception:  # (a parse this Python's re does not give: no words, the pattern)
            self.words, self._plain, self._folded = (), (), ()
            self._groups, self._rest = {}, re.compile(pattern, flags)

    def __call__(self, text: str) -> bool:
        for word in self._plain:
            if word in text and self._group((word, False)).search(text) is not None:
                return True
        if self._folded:
            folded = text.lower() if text.isascii() else None  # (past ASCII: each is asked)
            for word in self._folded:
                if (folded is None or word in folded) and self._group((word, True)).search(
                    text
                ) is not None:
                    return True
        return self._rest is not None and self._rest.search(text) is not None

    def _group(self, word: _Word) -> re.Pattern[str]:
        compiled = self._compiled.get(word)
        if compiled is None:
            compiled = self._compiled[word] = self._compile(self._groups[word])
        return compiled

    def _split(self, pattern: str, flags: int) -> None:
        parser = importlib.import_module("re._parser")
        compiler = importlib.import_module("re._compiler")
        reader = _Reader()
        parsed, alternatives = reader.alternatives(pattern, flags)
        needed = [(alternative, found) for alternative, found in alternatives if found]
        rest = [alternative for alternative, found in alternatives if not found]
        if not needed:
            self._rest = re.compile(pattern, flags)
            return

        def compiled(branch: list[Any]) -> re.Pattern[str]:
            whole = parser.SubPattern(parsed.state, [(reader.c.BRANCH, (None, branch))])
            return compiler.compile(whole, flags)

        words = _fewest(word for _alternative, found in needed for word in found)
        groups: dict[_Word, list[Any]] = {word: [] for word in words}
        for alternative, found in needed:
            # (under each kept word one of its words holds, in the same case: a text holding
            # that one holds it)
            for kept in {
                (word, case)
                for word, case in words
                for each, each_case in found
                if case == each_case and word in each
            }:
                groups[kept].append(alternative)
        self._rest = compiled(rest) if rest else None
        self._compile, self.words, self._groups = compiled, words, groups
        self._plain = tuple(word for word, case in words if not case)
        self._folded = tuple(word for word, case in words if case)


def prefiltered(pattern: str, flags: int = 0) -> Callable[[str], bool]:
    """Whether ``re.compile(pattern, flags)`` is found in a text (as its ``search`` says),
    asked first by the words its alternatives need (read when first asked: the whole
    pattern is never compiled)."""
    check: Prefiltered | None = None

    def search(text: str) -> bool:
        nonlocal check
        if check is None:
            check = Prefiltered(pattern, flags)
        return check(text)

    return search
