"""What is read of a pasted log: all of a normal one, a bounded part of a huge one.

``kenning recall --error``, ``kenning query error``, the tool-failure hook and every
reader of a pasted error (:func:`~kenning.querybuild.error_recall_queries`,
:func:`~kenning.signatures.looks_like_error`, …) read a log line by line, with many
patterns on each line. That work is linear but not cheap: ~1.5–4 µs a character and
~0.1–0.4 ms a line (profiled on 2 shared cores, 2026-12-06: no stage is super-linear; the
signature's candidate lines and the errors told on lines take ~45 % each). A CI log or an
agent's failed command of several MB took seconds to minutes (a 20 MB line 40–80 s, a
jest report whose failure holds a 40k-line snapshot diff 3.75 s, ``go test -json`` of 200k
events 22.7 s: qa-s67b F7).

:func:`log_window` bounds it. A log is read as its tool printed it
(:func:`~kenning.json_reports.as_printed`: a JSON report's failures, not its bookkeeping);
one that is then at most :data:`WHOLE_MAX_LINES` lines and :data:`WHOLE_MAX_CHARS`
characters, with no line over :data:`LINE_MAX_CHARS`, is read whole, as it always was (so
is any text of at most :data:`~kenning.protocol.MAX_QUERY_CHARS`, whatever its lines). Of
a longer one, the part read is:

* its first :data:`HEAD_LINES` lines (the command, its setup, an early error),
* the lines around its first error after those (:data:`FIRST_ERROR_ABOVE` above it,
  :data:`FIRST_ERROR_BELOW` from it: a build's first error is often the cause of those
  after it),
* its last :data:`TAIL_LINES` lines (a log ends with its error; a crash's warnings are
  read up to :data:`~kenning.querybuild.LINES_READ_FOR_WARNINGS` lines above it),

each part within its share of characters, each line to its :data:`LINE_MAX_CHARS`-th
character, the parts joined by a blank line. :meth:`LogWindow.notice` says what was read,
for a command to tell its user. Pure: strings in, strings out.
"""

from __future__ import annotations

from dataclasses import dataclass

from .json_reports import REPORT_MAX_CHARS, as_printed
from .protocol import MAX_QUERY_CHARS

__all__ = [
    "FIRST_ERROR_ABOVE",
    "FIRST_ERROR_BELOW",
    "HEAD_LINES",
    "LINE_MAX_CHARS",
    "RAW_MAX_CHARS",
    "TAIL_LINES",
    "WHOLE_MAX_CHARS",
    "WHOLE_MAX_LINES",
    "LogWindow",
    "log_window",
    "read_of_log",
]

#: A line is read to this character. The longest line of the error corpora (QA corpora
#: qa-s62b…f and shared/eval, 16,573 texts) is 1,122 characters, a fingerprint reads a
#: signature's first 2,000 (:data:`~kenning.fingerprints.FINGERPRINT_MAX_CHARS`) and a
#: signature keeps 300: what an error says is at its line's start. A 3 MB line cost 3.5 s.
LINE_MAX_CHARS = 4_000
#: The last lines read: as many as a crash's warnings are read above it
#: (:data:`~kenning.querybuild.LINES_READ_FOR_WARNINGS`); the longest text of the corpora
#: is 1,726 lines.
TAIL_LINES = 2_000
#: The first lines read (a command's echo, its setup, an error of its configuration).
HEAD_LINES = 200
#: Around the first error between the head and the tail: lines above it (what a build
#: printed before the line that reports the error: the linker's ``undefined reference``
#: above ``collect2: error``) and from it on (a traceback's frames down to its exception, a
#: Java exception's ``Caused by`` chain).
FIRST_ERROR_ABOVE = 20
FIRST_ERROR_BELOW = 200
#: The characters read of a log that is not read whole: the tail's, the head's and the
#: first error's shares. At the measured ~1.5–4 µs a character (above), 300,000 is ~0.5 s
#: of reading on a quiet core, ~1.2 s on a loaded one.
TAIL_CHARS = 250_000
HEAD_CHARS = 25_000
FIRST_ERROR_CHARS = 25_000
#: A log of at most this many lines and characters (no line over :data:`LINE_MAX_CHARS`) is
#: read whole: every text of the corpora is (the longest, 431,040 characters, is a
#: paraphrase corpus's TSV, not a log, and is read in part). What is read of a longer one
#: fits (its parts and the blank lines between them): read again, it is read whole.
WHOLE_MAX_LINES = HEAD_LINES + FIRST_ERROR_ABOVE + FIRST_ERROR_BELOW + TAIL_LINES + 2
WHOLE_MAX_CHARS = HEAD_CHARS + FIRST_ERROR_CHARS + TAIL_CHARS + 2
#: Past this many characters a log is cut before its JSON reports are read (its first
#: lines and its last characters, from a line's start): the longest report read
#: (:data:`~kenning.json_reports.REPORT_MAX_CHARS`) still fits. Reading reports costs ~60 ms
#: a MB (go test -json, 23 MB: 1.4 s; a 19 MB jest report: 0.9 s).
RAW_MAX_CHARS = REPORT_MAX_CHARS
#: The words a line that reports an error holds one of (looked for with ``str.find``, ~1 ms
#: a MB a word): only the lines that hold one are read as an error (at most
#: :data:`FIRST_ERROR_TRIES_CHARS` characters of them) to find the first error.
_ERROR_WORDS = (
    "rror", "RROR", "xception", "fail", "Fail", "FAIL", "fatal", "Fatal", "FATAL", "panic",
    "PANIC", "Traceback", "denied", "refused", "ERR!", "rrno", "exit code", "exit status",
    "Segmentation", "Caused by", "undefined", "abort", "Abort",
)  # fmt: skip
FIRST_ERROR_TRIES_CHARS = 100_000


@dataclass(frozen=True)
class LogWindow:
    """What is read of a log: ``text``, and which of its lines (as printed) that is."""

    text: str
    #: the log's lines, as printed (its JSON reports read)
    lines: int
    #: ``(first, last)`` line numbers (from 1) of each part read; ``()`` when read whole
    parts: tuple[tuple[int, int], ...] = ()
    #: how many lines read were longer than :data:`LINE_MAX_CHARS`, read to it
    cut_lines: int = 0
    #: where the first error of the part between the head and the tail is (line number)
    first_error: int | None = None
    #: lines left out before the log's reports were read (:data:`RAW_MAX_CHARS`)
    left_out_raw: int = 0

    @property
    def whole(self) -> bool:
        return not self.parts and not self.cut_lines and not self.left_out_raw

    def notice(self) -> str:
        """One line that says what was read (``""`` when the log was read whole)."""
        if self.whole:
            return ""
        said: list[str] = []
        if self.left_out_raw:
            said.append(
                f"the first {HEAD_LINES} and the last lines of a log over {RAW_MAX_CHARS:,} "
                f"characters ({self.left_out_raw:,} lines left out between them), and of those"
            )
        if self.parts:
            read = sum(last - first + 1 for first, last in self.parts)
            spans = ", ".join(
                f"{first:,}–{last:,}"
                + (" around its first error" if first <= (self.first_error or 0) <= last else "")
                for first, last in self.parts
            )
            said.append(f"{read:,} of the log's {self.lines:,} lines ({spans})")
        if self.cut_lines:
            plural = "s" if self.cut_lines > 1 else ""
            said.append(
                f"{self.cut_lines:,} line{plural} over {LINE_MAX_CHARS:,} characters to the "
                f"{LINE_MAX_CHARS:,}th"
            )
        return (
            "read in part: kenning read "
            + " and ".join(said)
            + ": a log's errors are at its start, its first error and its end; to have "
            "another part read, pass it alone (`sed -n 'FIRST,LASTp' LOG | kenning recall "
            "--error -`)"
        )


def read_of_log(raw: str) -> str:
    """:func:`log_window`'s text: ``raw`` itself (no work) when it is any query recall takes,
    as most texts the readers are given are (a line, an error)."""
    return raw if len(raw) <= MAX_QUERY_CHARS else log_window(raw).text


def log_window(raw: str) -> LogWindow:
    """What is read of ``raw``, a pasted log or error (see the module's docstring): ``raw``
    itself, whole, when it is short enough; else its JSON reports read as printed and, of
    that, the head, the first error's lines and the tail."""
    if len(raw) <= MAX_QUERY_CHARS:  # (any query recall takes is read whole, as it was)
        return LogWindow(raw, raw.count("\n") + 1)
    text, cut_raw, left_out = (raw, 0, 0) if len(raw) <= RAW_MAX_CHARS else _raw_cut(raw)
    text = as_printed(text)
    lines = text.split("\n")
    longest = len(text) if len(text) <= LINE_MAX_CHARS else max(map(len, lines))
    if (
        len(text) <= WHOLE_MAX_CHARS
        and len(lines) <= WHOLE_MAX_LINES
        and longest <= LINE_MAX_CHARS
        and text is raw
        and not left_out
    ):
        return LogWindow(raw, len(lines))
    if len(text) <= WHOLE_MAX_CHARS and len(lines) <= WHOLE_MAX_LINES:
        read = [line[:LINE_MAX_CHARS] for line in lines]
        cut = cut_raw + sum(len(line) > LINE_MAX_CHARS for line in lines)
        return LogWindow("\n".join(read), len(lines), cut_lines=cut, left_out_raw=left_out)
    head_end = _lines_within(lines, range(min(HEAD_LINES, len(lines))), HEAD_CHARS)
    tail = range(len(lines) - 1, head_end - 1, -1)
    tail_start = len(lines) - _lines_within(lines, tail[:TAIL_LINES], TAIL_CHARS)
    spans = [(0, head_end)]
    error = _first_error(lines, head_end, tail_start)
    if error is not None:
        start = max(head_end, error - FIRST_ERROR_ABOVE)
        below = range(start, min(tail_start, error + FIRST_ERROR_BELOW))
        spans.append((start, start + _lines_within(lines, below, FIRST_ERROR_CHARS)))
    spans.append((tail_start, len(lines)))
    joined: list[tuple[int, int]] = []  # (two parts that meet are one)
    for a, b in spans:
        if b <= a:
            continue
        if joined and joined[-1][1] >= a:
            joined[-1] = (joined[-1][0], max(joined[-1][1], b))
        else:
            joined.append((a, b))
    spans = joined
    kept = [[line[:LINE_MAX_CHARS] for line in lines[a:b]] for a, b in spans]
    cut = cut_raw + sum(len(line) > LINE_MAX_CHARS for a, b in spans for line in lines[a:b])
    parts = tuple((a + 1, b) for a, b in spans)
    if parts == ((1, len(lines)),):
        parts = ()
    return LogWindow(
        "\n\n".join("\n".join(part) for part in kept),  # (a blank line between two parts)
        len(lines),
        parts,
        cut,
        error + 1 if error is not None else None,
        left_out,
    )


def _lines_within(lines: list[str], indexes: range, chars: int) -> int:
    """How many of ``lines[i] for i in indexes`` (in that order) fit in ``chars`` characters,
    each line counted to its :data:`LINE_MAX_CHARS`-th (at least one: a part is never
    empty for a line that is too long)."""
    used = 0
    for n, i in enumerate(indexes):
        used += min(len(lines[i]), LINE_MAX_CHARS) + 1
        if used > chars and n:
            return n
    return len(indexes)


def _first_error(lines: list[str], start: int, end: int) -> int | None:
    """The index of the first of ``lines[start:end]`` that reports an error written at an
    error's level (not a warning's), looking only at the lines that hold one of
    :data:`_ERROR_WORDS`, at most :data:`FIRST_ERROR_TRIES_CHARS` characters of them."""
    from .signatures import looks_like_error, written_below_error

    if end <= start:
        return None
    middle = "\n".join(lines[start:end])
    found = {word: middle.find(word) for word in _ERROR_WORDS}
    tried = 0
    line_at = start  # the index of the line that starts at offset ``at`` of ``middle``
    at = 0
    while tried < FIRST_ERROR_TRIES_CHARS:
        hits = [where for where in found.values() if where >= 0]
        if not hits:
            return None
        hit = min(hits)
        line_at += middle.count("\n", at, hit)
        newline = middle.rfind("\n", at, hit)
        at = newline + 1 if newline >= 0 else at
        line = lines[line_at][:LINE_MAX_CHARS]
        if looks_like_error(line) and not written_below_error(line):
            return line_at
        tried += len(line) + 1
        after = at + len(lines[line_at]) + 1  # the next line's first character
        for word, where in found.items():
            if 0 <= where < after:
                found[word] = middle.find(word, after)
    return None


def _raw_cut(raw: str) -> tuple[str, int, int]:
    """``raw`` over :data:`RAW_MAX_CHARS`: its first :data:`HEAD_LINES` lines (within
    :data:`HEAD_CHARS`) and its last lines within :data:`RAW_MAX_CHARS`, a blank line
    between them; a line longer than a report is read to :data:`LINE_MAX_CHARS` (no report
    of its length is read). With the number of lines cut so, and of lines left out."""
    head: list[str] = []
    at = used = cut = 0
    while len(head) < HEAD_LINES and at < len(raw) and used < HEAD_CHARS:
        end = raw.find("\n", at)
        end = len(raw) if end < 0 else end
        head.append(raw[at : min(end, at + LINE_MAX_CHARS)])
        cut += end - at > LINE_MAX_CHARS
        used += len(head[-1]) + 1
        at = end + 1
    tail: list[str] = []
    end, used = len(raw), 0
    while end > at and used < RAW_MAX_CHARS:
        start = max(raw.rfind("\n", at, end) + 1, at)
        line = raw[start:end]
        tail.append(line[:LINE_MAX_CHARS] if len(line) > REPORT_MAX_CHARS else line)
        cut += len(line) > REPORT_MAX_CHARS
        used += len(tail[-1]) + 1
        end = start - 1
    left_out = raw.count("\n", at, end) + 1 if end > at else 0
    between = "\n\n" if left_out else "\n"  # (a blank line where lines were left out)
    return "\n".join(head) + (between + "\n".join(reversed(tail)) if tail else ""), cut, left_out
