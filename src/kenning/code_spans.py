"""Where a note holds code, as Markdown marks it: fenced blocks and inline code spans.

Whitespace there is part of the code — ``line.split("  ")`` is not ``line.split(" ")``, and a
statement indented under a loop is not the one after it — so the write path keeps it as
typed (:func:`kenning.safety.normalise_content`) and the near-duplicate decision compares it
(:mod:`kenning.dedup`), where prose's runs of spaces mean nothing.

Pure, and linear in the text; the rules are CommonMark's, kept simple: a fence is a line
starting (after spaces or tabs) with three backticks or tildes and runs to the next such
line (or the end); an inline span is a run of backticks and the next run of as many on the
same line.
"""

from __future__ import annotations

import re

#: A line that opens or closes a fenced code block.
FENCE = re.compile(r"[ \t]*(?:```|~~~)")
#: A run of backticks: an inline span opens at one and closes at the next of its length.
_TICKS = re.compile(r"`+")


def fenced_parts(text: str) -> list[tuple[str, bool]]:
    """``text`` cut into runs of lines inside (True) and outside (False) fenced code
    blocks; the fence lines count as inside."""
    runs: list[tuple[list[str], bool]] = []
    inside = False
    for line in text.splitlines(keepends=True):
        fence = FENCE.match(line) is not None
        here = inside or fence
        if runs and runs[-1][1] == here:
            runs[-1][0].append(line)
        else:
            runs.append(([line], here))
        if fence:
            inside = not inside
    return [("".join(lines), here) for lines, here in runs]


def code_spans(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` offsets of ``text``'s code: its fenced blocks (fence lines
    included) and the inline spans of the lines outside them (backticks included), in
    order. Empty for a text with no backtick or tilde (the usual note: nothing is read)."""
    if "`" not in text and "~~~" not in text:
        return []
    spans: list[tuple[int, int]] = []
    offset = 0
    for part, fenced in fenced_parts(text):
        if fenced:
            spans.append((offset, offset + len(part)))
        elif "`" in part:
            start = offset
            for line in part.splitlines(keepends=True):
                spans.extend((start + a, start + b) for a, b in _inline_spans(line))
                start += len(line)
        offset += len(part)
    return spans


def _inline_spans(line: str) -> list[tuple[int, int]]:
    """The inline code spans of one line: each run of backticks with the next run of as
    many (CommonMark), found in one pass (a pattern with a back-reference went back over
    the line from every backtick: quadratic in a 64 KiB line of them)."""
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(line)]
    following: list[int | None] = [None] * len(runs)
    last: dict[int, int] = {}
    for index in range(len(runs) - 1, -1, -1):
        width = runs[index][1] - runs[index][0]
        following[index] = last.get(width)
        last[width] = index
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(runs):
        closing = following[index]
        if closing is None:
            index += 1
            continue
        spans.append((runs[index][0], runs[closing][1]))
        index = closing + 1
    return spans


def code_of(text: str) -> list[str]:
    """The code of ``text`` (:func:`code_spans`), each span's text as written."""
    return [text[start:end] for start, end in code_spans(text)]
