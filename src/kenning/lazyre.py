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


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A pattern object that compiles itself when first used (typed as a ``re.Pattern``)."""
    return LazyPattern(pattern, flags)  # type: ignore[return-value]


def source_of(pattern: re.Pattern[str]) -> tuple[str, int]:
    """The text and flags ``pattern`` is (or will be) compiled from, without compiling it."""
    if isinstance(pattern, LazyPattern):
        return pattern._pattern, pattern._flags
    return pattern.pattern, pattern.flags
