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

#: What the words of one part of a pattern are: a set, one of which every match holds, or
#: None (no such set found).
_Words = frozenset[str] | None


class _Reader:
    """The words each alternative of a parsed pattern needs (``re._parser``'s ops)."""

    def __init__(self) -> None:
        self.c = importlib.import_module("re._constants")

    def _is_literal(self, op: object, ignore_case: bool) -> bool:
        return op is self.c.LITERAL and not ignore_case

    def _case(self, ignore_case: bool, av: Any) -> bool:
        _group, add, remove, _sub = av
        return (ignore_case or bool(add & re.IGNORECASE)) and not remove & re.IGNORECASE

    def leads(self, items: Any, ignore_case: bool) -> _Words:
        """The texts one of which every match of ``items`` starts with (each non-empty)."""
        c = self.c
        run: list[str] = []
        for op, av in items:
            if self._is_literal(op, ignore_case):
                run.append(chr(av))
                continue
            if op is c.AT and not run:
                continue  # (zero width)
            if run:
                return frozenset(["".join(run)])
            if op is c.BRANCH:
                return self._union(self.leads(branch, ignore_case) for branch in av[1])
            if op is c.SUBPATTERN:
                return self.leads(av[3], self._case(ignore_case, av))
            return None
        return frozenset(["".join(run)]) if run else None

    @staticmethod
    def _union(sets: Iterable[_Words]) -> _Words:
        out: set[str] = set()
        for words in sets:
            if words is None:
                return None
            out |= words
        return frozenset(out)

    def words(self, items: Any, ignore_case: bool) -> _Words:
        """The best set of words one of which every match of the sequence ``items`` holds:
        of a run of literal characters (extended by the texts a group after it starts with),
        or of a group, an alternation or a repeat of at least one."""
        c = self.c
        found: list[frozenset[str]] = []
        run: list[str] = []
        for op, av in items:
            if self._is_literal(op, ignore_case):
                run.append(chr(av))
                continue
            if op is c.AT:
                continue  # zero width: what is on either side of it is still one text
            if run:
                text = "".join(run)
                found.append(frozenset([text]))
                if op in (c.BRANCH, c.SUBPATTERN):
                    after = self.leads([(op, av)], ignore_case)
                    if after is not None:
                        found.append(frozenset(text + lead for lead in after))
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
            found.append(frozenset(["".join(run)]))
        if not found:
            return None
        # the set whose shortest word is longest (then the fewest words)
        return max(found, key=lambda words: (min(map(len, words)), -len(words)))


def _fewest(words: Iterable[str]) -> tuple[str, ...]:
    """``words`` without those that hold another of them (a text holding ``error:`` holds
    ``error``)."""
    kept: list[str] = []
    for word in sorted(set(words), key=len):
        if not any(shorter in word for shorter in kept):
            kept.append(word)
    return tuple(kept)


class Prefiltered:
    """``pattern.search(text) is not None``, answered by the words first (see the module):
    each word's alternatives (those that need it) are searched in a text that holds it,
    the alternatives that need no word in every text."""

    __slots__ = ("_compile", "_compiled", "_groups", "_rest", "words")

    _compile: Callable[[Any], re.Pattern[str]]

    def __init__(self, pattern: str, flags: int = 0) -> None:
        #: The words, each with the alternatives that need it (compiled when first asked).
        self.words: tuple[str, ...] = ()
        self._groups: dict[str, Any] = {}
        self._compiled: dict[str, re.Pattern[str]] = {}
        #: The alternatives that need no word, alone (None: there are none).
        self._rest: re.Pattern[str] | None = None
        try:
            self._split(pattern, flags)
        except Exception:  # (a parse this Python's re does not give: no words, the pattern)
            self.words, self._groups, self._rest = (), {}, re.compile(pattern, flags)

    def __call__(self, text: str) -> bool:
        for word in self.words:
            if word in text and self._group(word).search(text) is not None:
                return True
        return self._rest is not None and self._rest.search(text) is not None

    def _group(self, word: str) -> re.Pattern[str]:
        compiled = self._compiled.get(word)
        if compiled is None:
            compiled = self._compiled[word] = self._compile(self._groups[word])
        return compiled

    def _split(self, pattern: str, flags: int) -> None:
        parser = importlib.import_module("re._parser")
        compiler = importlib.import_module("re._compiler")
        reader = _Reader()
        parsed = parser.parse(pattern, flags)
        items = list(parsed.data)
        if len(items) == 1 and items[0][0] is reader.c.BRANCH:
            alternatives = items[0][1][1]
        else:
            alternatives = [parsed]
        needed: list[tuple[Any, frozenset[str]]] = []
        rest: list[Any] = []
        for alternative in alternatives:
            found = reader.words(alternative, bool(parsed.state.flags & re.IGNORECASE))
            if found is None or min(map(len, found)) < MIN_WORD:
                rest.append(alternative)
            else:
                needed.append((alternative, found))
        if not needed:
            self._rest = re.compile(pattern, flags)
            return

        def compiled(branch: list[Any]) -> re.Pattern[str]:
            whole = parser.SubPattern(parsed.state, [(reader.c.BRANCH, (None, branch))])
            return compiler.compile(whole, flags)

        words = _fewest(word for _alternative, found in needed for word in found)
        groups: dict[str, list[Any]] = {word: [] for word in words}
        for alternative, found in needed:
            # (under each kept word one of its words holds: a text holding it holds that one)
            for word in {kept for kept in words for each in found if kept in each}:
                groups[word].append(alternative)
        self._rest = compiled(rest) if rest else None
        self._compile, self.words, self._groups = compiled, words, groups


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
