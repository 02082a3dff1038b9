"""Regular expressions compiled on first use.

A cold ``kenning recall`` (a hook, a shell call) must start in well under a second, and
compiling the error-signature and redaction patterns at import costs ~0.15 s that most
calls never need. ``lazy(pattern, flags)`` has the methods of a compiled pattern and
compiles it the first time one is called. Each method is then kept on the object, bound to
the compiled pattern, so that later calls find it as an ordinary attribute: going through
``__getattr__`` and the ``compiled`` property on every call cost more than the match itself
for the short lines of a log (half of an error signature's extraction).
"""

from __future__ import annotations

import re
from typing import Any

try:  # (re's own parser, private: a Python that moves it only loses the cues, never a match)
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - not on 3.11-3.13
    _c = _parser = None


class LazyPattern:
    __slots__ = ("__dict__", "_compiled", "_flags", "_pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._pattern, self._flags)
        return self._compiled

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.compiled, name)
        if callable(value):
            # found in the instance's dict from now on, before __getattr__ is consulted
            self.__dict__[name] = value
        return value


class _LazyRegexPattern(LazyPattern):
    __slots__ = ()

    @property
    def compiled(self) -> Any:
        if self._compiled is None:
            import regex

            self._compiled = regex.compile(self._pattern, self._flags)
        return self._compiled


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A pattern object that compiles itself when first used (typed as a ``re.Pattern``)."""
    return LazyPattern(pattern, flags)  # type: ignore[return-value]


def lazy_regex(pattern: str, flags: int = 0) -> Any:
    """:func:`lazy` for a pattern of the ``regex`` module (Unicode properties such as
    ``\\p{Cf}``, grapheme clusters), ``flags`` being that module's."""
    return _LazyRegexPattern(pattern, flags)


def source_of(pattern: re.Pattern[str]) -> tuple[str, int]:
    """The text and flags ``pattern`` is (or will be) compiled from, without compiling it."""
    if isinstance(pattern, LazyPattern):
        return pattern._pattern, pattern._flags
    return pattern.pattern, pattern.flags


def required_literals(pattern: str, flags: int = 0) -> tuple[tuple[str, ...], ...]:
    """What every match of ``pattern`` holds, as lower-cased runs of ASCII characters: each
    item a choice of runs one of which every match holds (``(("cannot",), ("find",))`` of
    ``\\bcannot\\s+find``, ``(("exit", "signal"),)`` of ``(?:exit|signal)\\s+\\d+``),
    the likeliest to be missing first; ``()`` when none is certain (a pattern of classes and
    optional parts). Read from the parsed pattern: a run is literal characters one after
    another in a sequence every match goes through (a group's, a lookaround's that must hold,
    a repeat's body taken at least once), or one run of each branch of an alternation every
    match goes through; never an optional part's, a class's or a negative lookaround's."""

    def strength(choice: tuple[str, ...]) -> tuple[int, int]:
        return min(4, *map(len, choice)), -len(choice)

    def needs(items: Any) -> list[tuple[str, ...]]:
        found: list[tuple[str, ...]] = []
        run = ""
        for op, av in items:
            if op is _c.LITERAL and av < 128:
                run += chr(av)
                continue
            if run:
                found.append((run,))
            run = ""
            if op is _c.SUBPATTERN:
                found += needs(av[3])
            elif op is _c.ATOMIC_GROUP:
                found += needs(av)
            elif op is _c.ASSERT:
                found += needs(av[1])
            elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT) and av[0] >= 1:
                found += needs(av[2])
            elif op is _c.BRANCH:
                branches = [needs(branch) for branch in av[1]]
                if all(branches):
                    found.append(
                        tuple(dict.fromkeys(r for b in branches for r in max(b, key=strength)))
                    )
        if run:
            found.append((run,))
        return found

    if _parser is None:
        return ()
    try:
        parsed = needs(_parser.parse(pattern, flags))
    except Exception:  # a parser whose shapes differ: no cue, every substitution runs
        return ()
    found = [tuple(dict.fromkeys(r.lower() for r in choice)) for choice in parsed]
    # the strongest three, of a few runs each (a choice of thirty costs more than the scan)
    found = sorted(dict.fromkeys(found), key=strength, reverse=True)
    return tuple([c for c in found if len(c) <= 8][:3] or found[:1])


def folded(text: str) -> str:
    """``text`` lower-cased so that a lower-cased ASCII run a pattern matches in it, with
    ``re.IGNORECASE`` or without, is in it: besides ASCII's letters, ``re.IGNORECASE`` takes
    ``İ`` and ``ı`` for ``i``, ``ſ`` for ``s`` (and the Kelvin sign for ``k``, which
    ``lower()`` makes ``k``); ``lower()`` makes ``İ`` ``i`` and a combining dot."""
    lowered = text.lower()
    if lowered.isascii():
        return lowered
    return lowered.replace("\u0307", "").replace("ı", "i").replace("ſ", "s")


class CuedPattern(LazyPattern):
    """A :class:`LazyPattern` whose ``sub`` first looks for the literals every match holds
    (:func:`required_literals`) and gives the text back as it is when one is not in it: a
    substring test costs ~0.1 µs, a scan of a line for a match that cannot be there 1-5 µs."""

    __slots__ = ("_cue",)

    def __init__(self, pattern: str, flags: int = 0) -> None:
        super().__init__(pattern, flags)
        self._cue: tuple[tuple[str, ...], ...] | None = None

    def sub(self, repl: Any, string: str, count: int = 0) -> str:
        cue = self._cue
        if cue is None:
            cue = self._cue = required_literals(self._pattern, self._flags)
        if cue:
            last = _last_folded
            lowered = last[1] if last[0] is string else _fold(string)
            for choice in cue:
                for literal in choice:
                    if literal in lowered:
                        break
                else:
                    return string
        compiled = self._compiled or self.compiled
        return compiled.sub(repl, string, count)


#: The text folded last and its folding (a fingerprint's rules try one text after another
#: until one of them changes it): one tuple, read and replaced whole.
_last_folded: tuple[str | None, str] = (None, "")


def _fold(text: str) -> str:
    global _last_folded
    lowered = folded(text)
    _last_folded = (text, lowered)
    return lowered


def cued(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """:func:`lazy`, whose ``sub`` is skipped where the literal every match holds is absent
    (:class:`CuedPattern`)."""
    return CuedPattern(pattern, flags)  # type: ignore[return-value]
