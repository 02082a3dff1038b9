"""Pure functions of a log's line, remembered for the lines read last.

A pasted log is read by several readers in one call (its signature, the errors told on its
lines, its chain's causes, the errors its warnings name, the prompt hook's own look at each
line): each reads the same lines through the same pure functions. :func:`remembered` keeps a
function's answers for the last :data:`REMEMBERED_LINES` lines of at most
:data:`REMEMBERED_LINE_CHARS` characters (a few MB at most in a long-lived MCP server); a
longer text is read each time.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

_Answer = TypeVar("_Answer")

REMEMBERED_LINES = 4096
REMEMBERED_LINE_CHARS = 1000


def remembered(
    read: Callable[[str], _Answer], lines: int = REMEMBERED_LINES
) -> Callable[[str], _Answer]:
    """``read`` (a pure function of its text, whose answer is not changed by its callers)
    with its answers remembered for the last ``lines`` texts (:data:`REMEMBERED_LINES`
    unless said) of at most :data:`REMEMBERED_LINE_CHARS` characters; ``cache_clear``
    forgets them."""
    kept = functools.lru_cache(maxsize=lines)(read)

    @functools.wraps(read)
    def reader(text: str) -> _Answer:
        return read(text) if len(text) > REMEMBERED_LINE_CHARS else kept(text)

    wrapper: Any = reader
    wrapper.cache_clear = kept.cache_clear
    wrapper.cache_info = kept.cache_info
    wrapper.cache_parameters = kept.cache_parameters
    return reader
