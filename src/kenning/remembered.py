"""Pure functions of a log's line, remembered for the lines read last.

A pasted log is read by several readers in one call (its signature, the errors told on its
lines, its chain's causes, the errors its warnings name, the prompt hook's own look at each
line): each reads the same lines through the same pure functions. :func:`remembered` keeps a
function's answers for the last :data:`REMEMBERED_LINES` lines of at most
:data:`REMEMBERED_LINE_CHARS` characters (a few MB at most in a long-lived MCP server); a
longer text is read each time. A function of several texts (a recall's two error
fingerprints) is remembered as well, for texts of at most that many characters each on
average.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

_Answer = TypeVar("_Answer")
_Texts = ParamSpec("_Texts")

REMEMBERED_LINES = 4096
REMEMBERED_LINE_CHARS = 1000


def remembered(
    read: Callable[_Texts, _Answer], lines: int = REMEMBERED_LINES
) -> Callable[_Texts, _Answer]:
    """``read`` (a pure function of its texts, whose answer is not changed by its callers)
    with its answers remembered for the last ``lines`` calls (:data:`REMEMBERED_LINES`
    unless said) whose texts hold at most :data:`REMEMBERED_LINE_CHARS` characters each on
    average; ``cache_clear`` forgets them."""
    kept = functools.lru_cache(maxsize=lines)(read)
    call: Any = read  # (called with its texts however many: typed by the signature above)
    keep: Any = kept

    def one_text(text: str) -> Any:
        return call(text) if len(text) > REMEMBERED_LINE_CHARS else keep(text)

    def texts(*told: str) -> Any:
        if sum(map(len, told)) > REMEMBERED_LINE_CHARS * len(told):
            return call(*told)
        return keep(*told)

    # (a function of one text, a line's, is asked for every line of a log: its reader
    # measures that text alone, ~100 ns a call less than summing a tuple of texts)
    wrapper: Any = one_text if len(inspect.signature(read).parameters) == 1 else texts
    functools.update_wrapper(wrapper, read)
    wrapper.cache_clear = kept.cache_clear
    wrapper.cache_info = kept.cache_info
    wrapper.cache_parameters = kept.cache_parameters
    return wrapper
