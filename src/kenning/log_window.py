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

:func:`log_window` bounds it, rather than reading more whole: a 1 MB pytest log read whole
took 14 s, 300,000 characters of it 6.7 s (measured 2026-12-06 on the loaded 2 shared
cores; a tool-failure hook has 5 s). A log is read as its tool printed it
(:func:`~kenning.json_reports.as_printed`: a JSON report's failures, not its bookkeeping);
one that is then at most :data:`WHOLE_MAX_LINES` lines (as ``str.splitlines``, every
reader's, counts them) and :data:`WHOLE_MAX_CHARS` characters, with no line over
:data:`LINE_MAX_CHARS`, is read whole, as it always was (so is any text of at most
:data:`~kenning.protocol.MAX_QUERY_CHARS`, whatever its lines). Of a longer one, the part
read is:

* its first :data:`HEAD_LINES` lines (the command, its setup, an early error),
* the lines around its errors after those (:data:`ERROR_REGIONS`: its first, its last and
  the first of each other kind; :data:`FIRST_ERROR_ABOVE` above each, :data:`FIRST_ERROR_BELOW`
  from it, a stack trace on to its root cause): a build's first error is often the cause of
  those after it, an error a passing test logs on purpose is not what failed the run,
* its last :data:`TAIL_LINES` lines (a log ends with its error; a crash's warnings are
  read up to :data:`~kenning.querybuild.LINES_READ_FOR_WARNINGS` lines above it),

each part within its share of characters, each line as a terminal shows it (a progress
bar's last redraw) to its :data:`LINE_MAX_CHARS`-th character, the parts joined by a blank
line. Its errors are found by one regular expression over the lines between, and a test of
each kind of line that holds an error word, not of each line (:data:`_ERROR_WORDS`).
:meth:`LogWindow.notice` says what was read, in the input's line numbers (a JSON report's:
as printed), for a command to tell its user. The bounds above are the commands'
(:data:`BOUNDS`); a reader with less time passes smaller ones (:class:`Bounds`: the
prompt-submit hook's, which reads the text again line by line after it; the tool-failure
hook's, which reads a command's output within its 5 s). Pure: strings in, strings out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .json_reports import REPORT_MAX_CHARS, as_printed
from .lazyre import lazy
from .protocol import MAX_QUERY_CHARS
from .remembered import remembered

__all__ = [
    "BOUNDS",
    "ERROR_REGIONS",
    "FIRST_ERROR_ABOVE",
    "FIRST_ERROR_BELOW",
    "HEAD_LINES",
    "LINE_MAX_CHARS",
    "RAW_MAX_CHARS",
    "TAIL_LINES",
    "TRACE_MAX_LINES",
    "WHOLE_MAX_CHARS",
    "WHOLE_MAX_LINES",
    "Bounds",
    "LogWindow",
    "log_window",
    "read_of_log",
]

#: A line is read to this character. The longest line of the error corpora (QA corpora
#: qa-s62b…f and shared/eval, 16,573 texts) is 1,122 characters, a fingerprint reads a
#: signature's first 2,000 (:data:`~kenning.fingerprints.FINGERPRINT_MAX_CHARS`) and a
#: signature keeps 300: what an error says is at its line's start. A 3 MB line cost 3.5 s.
#: A line a progress bar redrew with ``\r`` is first read as a terminal shows it (its last
#: redraw: an error printed after the bar is what shows).
LINE_MAX_CHARS = 4_000
#: The last lines read: as many as a crash's warnings are read above it
#: (:data:`~kenning.querybuild.LINES_READ_FOR_WARNINGS`); the longest text of the corpora
#: is 1,726 lines.
TAIL_LINES = 2_000
#: The first lines read (a command's echo, its setup, an error of its configuration).
HEAD_LINES = 200
#: Around each error read between the head and the tail: lines above it (what a build
#: printed before the line that reports the error: the linker's ``undefined reference``
#: above ``collect2: error``) and from it on (a traceback's frames down to its exception).
#: A stack trace goes on past them while its lines are a trace's (indented frames,
#: ``Caused by: …``, ``... 12 more``), up to :data:`TRACE_MAX_LINES`: a Spring or
#: Hibernate trace of 200–400 lines ends with its root cause. So does one whose own lines
#: ended at their characters (:data:`FIRST_ERROR_CHARS`) inside it: Spring's frames are
#: ~130 characters, 200 of them more than its share.
FIRST_ERROR_ABOVE = 20
FIRST_ERROR_BELOW = 200
TRACE_MAX_LINES = 1_000
#: A trace longer than its part (Spring Boot's startup failure of 5–7 ``Caused by`` levels
#: is 400–600 lines, ~50–70 KB: qa-s70b F7) still ends with its root cause, Java's last
#: ``Caused by``: past what its part holds, its ``Caused by`` lines are read, each with the
#: :data:`CAUSE_LINES` lines after it (its first frames), the last first (so are a Python
#: chain's exception lines, each with the chain's lines after it: the crash's is the last),
#: as small parts of their own within :data:`CAUSES_LINES` lines and :data:`CAUSES_CHARS`
#: characters (taken from the trace's part). They are looked for up to
#: :data:`CAUSES_SCAN_LINES` lines on (~0.5 µs a line, not a reading of them: 50 ms).
CAUSE_LINES = 3
CAUSES_LINES = 40
CAUSES_CHARS = 6_000
CAUSES_SCAN_LINES = 100_000
#: Compose and ``kubectl logs -l … --prefix`` interleave their containers' lines: a trace
#: of one container is read on past at most this many other containers' lines in a row
#: (a database's connection lines between an api's frames), its part ending with its own
#: last line.
TRACE_GAP_LINES = 100
#: The errors between the head and the tail whose lines are read: the first, the last
#: (what failed a run is often the last error before its summary) and the first of each
#: other kind (a line of another shape, what varies aside: :data:`_VARIES`), a crash's
#: kinds first (:data:`_CRASH`), within
#: :data:`MIDDLE_LINES` lines and :data:`MIDDLE_CHARS` characters: an ERROR a passing test
#: logs on purpose is not the only error read.
ERROR_REGIONS = 4
MIDDLE_LINES = TRACE_MAX_LINES
#: The characters read of a log that is not read whole: the tail's, the head's and the
#: errors' shares (one error's part within :data:`FIRST_ERROR_CHARS`, a trace's within the
#: middle's). At the measured ~1.5–4 µs a character (above), 350,000 is ~0.5–1.4 s of
#: reading.
TAIL_CHARS = 250_000
HEAD_CHARS = 25_000
FIRST_ERROR_CHARS = 25_000
MIDDLE_CHARS = 75_000
#: A log of at most this many lines and characters (no line over :data:`LINE_MAX_CHARS`) is
#: read whole: every text of the corpora is (the longest, 431,040 characters, is a
#: paraphrase corpus's TSV, not a log, and is read in part). What is read of a longer one
#: fits (its parts and the blank lines between them): read again, it is read whole.
WHOLE_MAX_LINES = HEAD_LINES + MIDDLE_LINES + TAIL_LINES + ERROR_REGIONS + 1
WHOLE_MAX_CHARS = HEAD_CHARS + MIDDLE_CHARS + TAIL_CHARS + ERROR_REGIONS + 1
#: Past this many characters a log is cut before its JSON reports are read (its first
#: lines and its last characters, from a line's start): the longest report read
#: (:data:`~kenning.json_reports.REPORT_MAX_CHARS`) still fits. Reading reports costs ~60 ms
#: a MB (go test -json, 23 MB: 1.4 s; a 19 MB jest report: 0.9 s).
RAW_MAX_CHARS = REPORT_MAX_CHARS
#: The words a line that reports an error holds one of (found by one regular expression
#: over the middle): only the lines that hold one may be an error. Whether one is, is
#: :func:`~kenning.signatures.looks_like_error` (~20 µs such a line, its pattern asked by
#: its words since s71; ~2.5 µs a character before, 0.25 ms a line), so it is asked once a
#: line's shape (its digits aside: Maven's thousand ``Tests run: 3,
#: Failures: 0, Errors: 0 … - in com.acme.T12`` lines are one), first of the lines an
#: error's form is :data:`_ERROR_FORM` in (within :data:`ERROR_TRIES_CHARS`: ~0.6 s), of the
#: others (a test named ``test_fails_with_bad_password``) within :data:`WEAK_TRIES_CHARS`.
#: (The words that share a first letter are one alternative, ``rror``, ``rrno`` and
#: ``refused`` ``r(?:r(?:or|no)|efused)``: where a line's letter starts one of them, the
#: alternatives are tried one after another, and 23 took ~30 % longer than 16 to scan a log;
#: only where the first one starts is read.)
_ERROR_WORDS = lazy(
    "r(?:r(?:or|no)|efused)|RROR|xception|fa(?:il|tal)|F(?:a(?:il|tal)|A(?:IL|TAL))|panic|PANIC"
    "|Traceback|denied|ERR!|exit (?:code|status)|Segmentation|Caused by|undefined|abort|Abort"
)
_ERROR_FORM = lazy(
    r"(?:Error|Exception|ERROR|FATAL|[Ff]atal|[Pp]anic|PANIC|FAIL(?:ED|URE)?)\b|error(?:\[\w+\])?:"
    r"|Traceback|ERR!|Caused by|Segmentation|exit (?:code|status) [1-9]|failed\b(?<!\b0 failed)"
    r"|denied|refused|undefined reference"
)
ERROR_TRIES_CHARS = 250_000
WEAK_TRIES_CHARS = 100_000
#: Candidate lines looked at in all (~3 µs each): past them the search stops (20 MB of
#: lines that each hold an error word), and the notice says so.
CANDIDATES_MAX = 200_000


@dataclass(frozen=True)
class Bounds:
    """How much of a log is read: the bounds above, which the commands read with
    (:data:`BOUNDS`); a reader with less time passes smaller ones (the prompt-submit hook,
    whose prompt is read again line by line after it:
    :data:`kenning.hooks.claude_code.PROMPT_LOG_BOUNDS`; the tool-failure hook:
    :data:`kenning.hooks.claude_code.TOOL_LOG_BOUNDS`). The same rules read every log;
    only how much of it they read differs."""

    head_lines: int = HEAD_LINES
    head_chars: int = HEAD_CHARS
    tail_lines: int = TAIL_LINES
    tail_chars: int = TAIL_CHARS
    #: an error's own lines (above it, from it) within ``error_chars``, then its stack
    #: trace on to ``trace_lines`` from its first, all within ``trace_lines`` (the middle's
    #: lines) and ``middle_chars``
    error_above: int = FIRST_ERROR_ABOVE
    error_below: int = FIRST_ERROR_BELOW
    error_chars: int = FIRST_ERROR_CHARS
    trace_lines: int = TRACE_MAX_LINES
    middle_chars: int = MIDDLE_CHARS
    #: the search for errors between the head and the tail (:data:`ERROR_TRIES_CHARS`)
    error_tries_chars: int = ERROR_TRIES_CHARS
    weak_tries_chars: int = WEAK_TRIES_CHARS
    candidates_max: int = CANDIDATES_MAX
    #: past this many characters an input is cut before its reports are read (its head and
    #: its last characters: :data:`RAW_MAX_CHARS`, the commands'; a hook's time reads less)
    raw_max_chars: int = RAW_MAX_CHARS
    #: a blank line between two parts read (the commands: one part's lines are not read as
    #: the next one's block); without it, the parts read of a paste are one paste (the
    #: prompt hook, which takes the lines above a paste's first error back to a blank line
    #: for the paste's, and what is above them for the prompt's own words: the log's head,
    #: cut from its error by that line, was taken for them, qa-s69b F1)
    parts_apart: bool = True

    @property
    def whole_max_lines(self) -> int:
        """A log of fewer lines (and at most :attr:`whole_max_chars`) is read whole: what
        is read of a longer one fits (its parts and the blank lines between them)."""
        return self.head_lines + self.trace_lines + self.tail_lines + ERROR_REGIONS + 1

    @property
    def whole_max_chars(self) -> int:
        return self.head_chars + self.middle_chars + self.tail_chars + ERROR_REGIONS + 1


#: The commands' bounds (``kenning recall --error``, ``query error``, every reader of a
#: pasted error): :data:`WHOLE_MAX_LINES`, :data:`WHOLE_MAX_CHARS`.
BOUNDS = Bounds()
_TRACE_GOES_ON = lazy(r"[ \t]|Caused by|Suppressed:|\.\.\. \d+ (?:more|common)")
#: A Python traceback ends with its exception's line, after its frames (``  File "…", line
#: N, in f`` and the code under it), and a chain of them goes on after it: a blank line,
#: ``The above exception was the direct cause of the following exception:`` (or ``During
#: handling of the above exception, another exception occurred:``), a blank line and the
#: next ``Traceback (most recent call last):``. Those lines go on with the trace: a chain
#: prints its root cause first and the crash's error last, and both are read
#: (:func:`_python_goes_on`).
_PY_CHAIN_LINE = lazy(
    r"(?:The above exception was the direct cause of the following exception:"
    r"|During handling of the above exception, another exception occurred:"
    r"|Traceback \(most recent call last\):)[ \t]*(?:\r?\n|\r?$)"
)
_PY_FRAME = lazy(r"[ \t]+File \"")
#: What :func:`_python_goes_on` says of a line: no Python trace's, a chain's line (or a blank
#: line before one), an exception's line after its frames.
_NOT_PYTHON, _PY_CHAIN, _PY_EXCEPTION = 0, 1, 2
#: Docker Compose's service before each line of ``docker compose logs`` (``orders-1  | ``:
#: :mod:`~kenning.log_formats`' ``_COMPOSE_PREFIX``) or kubectl's pod and container
#: (``kubectl logs --prefix``: ``[pod/api-7d9f/api] ``, its ``_KUBECTL_PREFIX``), and the
#: time Docker and the kubelet put before each line (``-t``, ``--timestamps``: RFC 3339 with
#: nine digits of a second, which no logger's own time has): a line is read behind them, as
#: what its service printed (a crash's kind of line, a trace that goes on; qa-s70b F8:
#: behind it, a Spring crash was no crash's kind of line, and another service's errors were
#: read instead; so behind kubectl's).
_SERVICE_PREFIX = lazy(
    r"([A-Za-z0-9][\w.-]{0,62}[-_]\d{1,4}[^\S\n]+\|[^\S\n]?|\[pod/[\w.-]{1,253}/[\w.-]{1,63}\] )?"
    r"(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}(?:Z|[+-]\d\d:\d\d) )?"
)
#: What ``str.splitlines`` (every reader's) ends a line at besides ``\n``: in a log read in
#: part a ``\r`` is read as a terminal shows it, the others as a space, so that the lines
#: read are the lines bounded.
_BREAKS_READ_AS_SPACE = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_OTHER_BREAKS = lazy(f"\r(?!\n)|[{_BREAKS_READ_AS_SPACE}]")
_AS_SPACE = str.maketrans(dict.fromkeys(_BREAKS_READ_AS_SPACE, " "))
#: One of the characters :data:`_AS_SPACE` reads as a space: a line that holds none is read
#: as it is (most lines; translating one cost two thirds of reading it, ~2 µs a line).
_READ_AS_SPACE = lazy(f"[{_BREAKS_READ_AS_SPACE}]")
_CSI = lazy(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
#: What varies between two lines of one error (a request id, an order's hex, a user, a
#: count, a quoted value): read as one mark, so that a kind of line is its message (qa-s68c
#: L1: every benign ``ERROR [req=<hex>] … for order <hex>`` line had been a kind of its own).
#: A word with digits is tried at a word's start only: tried at each of its characters, a
#: word without any cost time quadratic in its length (a Java frame's line 39 µs, 7 with it).
#: Each of its words is matched whole or not at all (a run of hex digits, a word with a
#: digit: to the word's end), so it is matched without going back (``++``, ``*+``): the word's
#: letters up to its first digit, not all of them and back to its last (~25 % of the time).
_VARIES = lazy(r"\b(?:[0-9a-fA-F]{6,}+\b|[^\W\d]*+\d\w*+)|'[^'\n]{0,200}'|\"[^\"\n]{0,200}\"")
#: A line that reports a crash, not an error a program logged and went on from: its kinds
#: are read first (a traceback's start, an exception's or a panic's line, a `Caused by`).
_CRASH = lazy(
    r"Traceback \(most recent call last\)|^\s*(?:[\w.$#]+\.)?\w*(?:Error|Exception)\b[:(]"
    r"|^\s*Caused by|\bpanic(?:ked)?\b|\bFATAL\b|Segmentation fault|^\s*error(?:\[\w+\])?:"
)


#: Which lines of a long text are read, as the notices say it (the hooks' line too).
PARTS_READ = "its first lines, the lines around its errors and its last lines"


@dataclass(frozen=True)
class LogWindow:
    """What is read of a log: ``text``, and which of its lines that is."""

    text: str
    #: the log's lines (as ``wc -l`` counts them, and one more for a last line with no
    #: newline); of a JSON report, the lines it prints as (:attr:`as_printed`)
    lines: int
    #: ``(first, last)`` line numbers (from 1) of each part read; ``()`` when all were
    parts: tuple[tuple[int, int], ...] = ()
    #: how many lines read were longer than :data:`LINE_MAX_CHARS`, read to it
    cut_lines: int = 0
    #: the line numbers of the errors between the head and the tail whose lines were read
    errors: tuple[int, ...] = ()
    #: lines left out before the log's reports were read (:data:`RAW_MAX_CHARS`)
    left_out_raw: int = 0
    #: lines a progress bar redrew with ``\r``, read as a terminal shows them
    redrawn: int = 0
    #: whether the line numbers are those of a JSON report as printed, not the input's
    as_printed: bool = False
    #: the line the search for errors between the head and the tail stopped at (too many
    #: lines that hold an error word), None when it read them all
    search_stopped: int | None = None
    #: the characters past which the input was cut before its reports were read
    raw_max_chars: int = RAW_MAX_CHARS

    @property
    def first_error(self) -> int | None:
        return self.errors[0] if self.errors else None

    @property
    def whole(self) -> bool:
        return not (self.parts or self.cut_lines or self.left_out_raw or self.redrawn)

    def to_dict(self, command: str = "kenning recall --error -") -> dict[str, Any] | None:
        """What :meth:`notice` says, for a command's JSON (``log_read``): ``None`` when the
        log was read whole; else the log's lines, each part read (``first``, ``last``, and
        whether it was read around an error), the lines cut, redrawn and left out, the line
        the search for errors stopped at, and the notice itself."""
        if self.whole:
            return None
        return {
            "lines": self.lines,
            "as_printed": self.as_printed,
            "parts": [
                {
                    "first": first,
                    "last": last,
                    "around_error": any(first <= e <= last for e in self.errors),
                }
                for first, last in self.parts
            ],
            "cut_lines": self.cut_lines,
            "redrawn_lines": self.redrawn,
            "left_out_lines": self.left_out_raw,
            "search_stopped_at": self.search_stopped,
            "notice": self.notice(command),
        }

    def notice(self, command: str = "kenning recall --error -") -> str:
        """One line that says what was read (``""`` when the log was read whole), and how
        to have ``command`` read another part."""
        if self.whole:
            return ""
        why = f"kenning reads a long log's {PARTS_READ.removeprefix('its ')}"
        if self.left_out_raw:
            why += f" (of an input over {self.raw_max_chars:,} characters, only in its last ones)"
        if self.search_stopped:
            why += (
                f"; it looked for errors up to line {self.search_stopped:,} (too many lines "
                "name an error word)"
            )
        if self.parts and not self.as_printed:
            how = (
                f"to have another part read, pass it alone (`sed -n 'FIRST,LASTp' LOG | {command}`)"
            )
        elif self.cut_lines and not self.parts:
            how = (
                f"to have the rest of a line read, pass it alone (`sed -n 'LINEp' LOG | cut "
                f"-c{LINE_MAX_CHARS + 1}- | {command}`)"
            )
        else:
            how = f"to have another part read, pass it alone to `{command}`"
        return f"read in part: kenning read {self.what_was_read()}: {why}; {how}"

    def what_was_read(self, whose: str = "the log's") -> str:
        """What was read, as the notice says it (``""`` when all was): ``2,200 of the log's
        60,004 lines (1–200, 30,981–31,200 around an error, 58,005–60,004)``, and the lines
        redrawn and cut; ``whose``: the text's, as the reader calls it."""
        said: list[str] = []
        of = "lines of its JSON report as printed" if self.as_printed else "lines"
        if self.parts:
            read = sum(last - first + 1 for first, last in self.parts)
            spans = ", ".join(
                f"{first:,}–{last:,}"
                + (" around an error" if any(first <= e <= last for e in self.errors) else "")
                for first, last in self.parts
            )
            said.append(f"{read:,} of {whose} {self.lines:,} {of} ({spans})")
        if self.redrawn:
            said.append(f"{self.redrawn:,} line(s) redrawn with \\r as a terminal shows them")
        if self.cut_lines:
            said.append(f"{self.cut_lines:,} line(s) only to their {LINE_MAX_CHARS:,}th character")
        return " and ".join(said)


def read_of_log(raw: str, bounds: Bounds = BOUNDS) -> str:
    """:func:`log_window`'s text: ``raw`` itself (no work) when it is any query recall takes,
    as most texts the readers are given are (a line, an error), or the text last found to be
    read whole within ``bounds`` (a window read again: each reader of a pasted log reads
    what was read of it, ~5 ms a time for 330 KB)."""
    if len(raw) <= MAX_QUERY_CHARS:
        return raw
    whole = _read_whole
    if whole is not None and whole[0] is raw and whole[1] == bounds:
        return raw
    text = log_window(raw, bounds).text
    if text is raw:
        _remember_read_whole(raw, bounds)
    return text


#: The last text :func:`read_of_log` found it reads whole, and within which bounds (the
#: same object: a string is never changed).
_read_whole: tuple[str, Bounds] | None = None


def _remember_read_whole(text: str, bounds: Bounds) -> None:
    global _read_whole
    _read_whole = (text, bounds)


def log_window(raw: str, bounds: Bounds = BOUNDS) -> LogWindow:
    """What is read of ``raw``, a pasted log or error (see the module's docstring): ``raw``
    itself, whole, when it is short enough; else its JSON reports read as printed and, of
    that, the head, the errors' lines and the tail, within ``bounds`` (the commands' by
    default)."""
    if len(raw) <= MAX_QUERY_CHARS:  # (any query recall takes is read whole, as it was)
        return LogWindow(raw, _counted(raw))
    head_raw = left_out = cut = redrawn = 0
    text = raw
    if len(raw) > bounds.raw_max_chars:
        text, head_raw, left_out, cut, redrawn = _raw_cut(raw, bounds)
    printed = as_printed(text)
    report = printed is not text
    text = printed
    if (
        len(text) <= bounds.whole_max_chars
        and text is raw
        and text.count("\n") + len(_OTHER_BREAKS.findall(text)) < bounds.whole_max_lines
        and max(map(len, text.split("\n"))) <= LINE_MAX_CHARS
    ):
        return LogWindow(raw, _counted(raw))
    # the lines as offsets into ``text`` (a trailing newline ends the last line)
    end = len(text) - 1 if text.endswith("\n") else len(text)
    n_lines = text.count("\n", 0, end) + 1
    if left_out and not report:  # the head is the input's first lines, then a blank line
        blank = _forward(text, 0, head_raw, len(text), end)[0]
        head_end, head_n = blank, head_raw
        middle, middle_n = blank + 1, head_raw + 1
    else:
        head_end, head_n = _forward(text, 0, bounds.head_lines, bounds.head_chars, end)
        middle, middle_n = head_end, head_n
    tail_start, tail_n = _backward(text, end, bounds.tail_lines, bounds.tail_chars, middle)
    found, stopped = _errors(text, middle, middle_n, tail_start, bounds)
    spans = [(0, head_n, 0, head_end - 1)]  # (the head's last line without its newline)
    spans += _error_parts(text, found, middle, middle_n, tail_start, bounds)
    spans.append((n_lines - tail_n, n_lines, tail_start, end))
    spans.sort()
    joined: list[tuple[int, int, int, int]] = []  # (two parts that meet are one)
    for a, b, at, to in spans:
        if b <= a:
            continue
        if joined and joined[-1][1] >= a:
            if b > joined[-1][1]:
                joined[-1] = (joined[-1][0], b, joined[-1][2], to)
        else:
            joined.append((a, b, at, to))
    read: list[str] = []
    for _, _, at, to in joined:
        if read and bounds.parts_apart:
            read.append("")  # (a blank line between two parts)
        part = text[at:to]
        if "\r" in part or _READ_AS_SPACE.search(part) is not None:
            for line in part.split("\n"):
                shown, was_redrawn, was_cut = _shown(line)
                read.append(shown)
                redrawn += was_redrawn
                cut += was_cut
            continue
        # (no line of the part was redrawn or holds a break read as a space: each is shown
        # as it is, to its LINE_MAX_CHARS-th character, as _shown shows it; asked of each
        # line, _shown was ~10 % of the window's reading, ~4 µs a line)
        for line in part.split("\n"):
            if len(line) > LINE_MAX_CHARS:
                line = line[:LINE_MAX_CHARS]
                cut += 1
            read.append(line)

    def numbered(i: int) -> int:  # the input's line number of ``text``'s line ``i`` (from 0)
        return i + left_out if left_out and not report and i > head_raw else i + 1

    parts = tuple((numbered(a), numbered(b - 1)) for a, b, _, _ in joined)
    lines = numbered(n_lines - 1)
    if parts == ((1, lines),):
        parts = ()
    return LogWindow(
        "\n".join(read),
        lines,
        parts,
        cut,
        tuple(numbered(i) for i, _, _ in found),
        left_out,
        redrawn,
        report,
        numbered(stopped) if stopped is not None else None,
        bounds.raw_max_chars,
    )


def _counted(text: str) -> int:
    """``text``'s lines as ``wc -l`` counts them, and its last line if no newline ends it."""
    return text.count("\n") + (not text.endswith("\n"))


def _shown(line: str) -> tuple[str, bool, bool]:
    """``line`` as it is read: as a terminal shows it (what its last ``\r`` with text after
    it is followed by: a progress bar's last redraw, an error printed over it), the other
    line breaks of ``str.splitlines`` as a space, to its :data:`LINE_MAX_CHARS`-th
    character; with whether it was redrawn and whether it was cut."""
    end = len(line) - 1 if line.endswith("\r") else len(line)  # (a CRLF line's end)
    start = 0
    at = line.rfind("\r", 0, end)
    redrawn = at >= 0
    for _ in range(100):  # (a redraw that blanks the line shows the one before it)
        if at < 0:
            break
        if _CSI.sub("", line[at + 1 : min(end, at + 1 + LINE_MAX_CHARS)]).strip():
            start = at + 1
            break
        end, at = at, line.rfind("\r", 0, at)
    else:
        start = at + 1
    cut = end - start > LINE_MAX_CHARS
    shown = line[start : min(end, start + LINE_MAX_CHARS)]
    if redrawn or len(shown) != len(line):
        shown = shown.replace("\r", " ")
    if _READ_AS_SPACE.search(shown) is not None:
        shown = shown.translate(_AS_SPACE)
    return shown, redrawn, cut


def _cost(text: str, start: int, end: int) -> int:
    """The characters ``text[start:end]``, a line, is read as (:func:`_shown`), and its
    newline: a progress bar's line is its last redraw."""
    if text.find("\r", start, end - 1) >= 0:
        return len(_shown(text[start:end])[0]) + 1
    return min(end - start, LINE_MAX_CHARS) + 1


def _forward(text: str, at: int, lines: int, chars: int, stop: int) -> tuple[int, int]:
    """From the line that starts at ``at``: the offset past the last of the next ``lines``
    lines that fit in ``chars`` characters (each counted to its :data:`LINE_MAX_CHARS`-th;
    at least one), and how many that is; never past ``stop``."""
    n, past, _ = _read_on(text, at, stop, lines, chars)
    return min(past, stop + 1), n


def _backward(text: str, end: int, lines: int, chars: int, stop: int) -> tuple[int, int]:
    """The offset of the first of the last ``lines`` lines before ``end`` (not before
    ``stop``, a line's start) that fit in ``chars`` characters (at least one), and how many
    that is."""
    used = n = 0
    start = line_end = end
    while n < lines and start > stop:
        line_start = max(text.rfind("\n", stop, line_end) + 1, stop)
        used += _cost(text, line_start, line_end)
        if used > chars and n:
            break
        n += 1
        start, line_end = line_start, line_start - 1
    return start, n


def _errors(
    text: str, start: int, line_no: int, end: int, bounds: Bounds
) -> tuple[list[tuple[int, str, int]], int | None]:
    """The errors of ``text[start:end]`` (its first line is ``line_no``, from 0): each line
    that holds an error word and is written at an error's level (see :data:`ERROR_TRIES_CHARS`),
    as its line number, shape and offset; with the line the search stopped at, if it did."""
    from .signatures import looks_like_error, written_below_error

    found: list[tuple[int, str, int]] = []
    verdicts: dict[str, bool] = {}
    tries = weak = looked = 0
    counted = start
    at = start
    while at < end:
        hit = _ERROR_WORDS.search(text, at, end)
        if hit is None:
            break
        line_start = text.rfind("\n", start, hit.start()) + 1 or start
        line_end = text.find("\n", hit.start(), end)
        line_end = end if line_end < 0 else line_end
        line_no += text.count("\n", counted, line_start)
        counted, at = line_start, line_end + 1
        looked += 1
        if looked > bounds.candidates_max:
            return found, line_no
        if weak >= bounds.weak_tries_chars and not _ERROR_FORM.search(
            text, line_start, min(line_end, line_start + LINE_MAX_CHARS)
        ):
            continue  # (the lines with no error's form have had their share)
        line = text[line_start:line_end]
        if len(line) > LINE_MAX_CHARS or "\r" in line:
            line = _shown(line)[0]
        shape = _shape(line[_behind_prefix(line, 0) :])
        verdict = verdicts.get(shape)
        if verdict is None:
            if _ERROR_FORM.search(line) is not None:
                tries += len(line) + 1
                if tries > bounds.error_tries_chars:
                    return found, line_no
            elif weak < bounds.weak_tries_chars:
                weak += len(line) + 1
            else:
                continue
            verdict = looks_like_error(line) and not written_below_error(line)
            verdicts[shape] = verdict
        if verdict:
            found.append((line_no, shape, line_start))
    return found, None


def _shape_of(line: str) -> str:
    """The kind of error line ``line`` (behind its container's prefix and time) is: what
    varies in it (:data:`_VARIES`) read as one mark."""
    return _VARIES.sub("#", line)


#: :func:`_shape_of`, its answers kept for the last lines read: a log is read again (each
#: bound of the hooks', a recall after the prompt hook's look, an MCP server's calls) and
#: writes the same lines at other times (test_log_window's logs: 262k candidate lines, 9.9k
#: texts behind their prefixes, ~15 µs a shape; 4,096 kept missed 75k of them, 8,192 none).
_shape = remembered(_shape_of, lines=8192)


def _error_parts(
    text: str,
    found: list[tuple[int, str, int]],
    start: int,
    start_no: int,
    end: int,
    bounds: Bounds,
) -> list[tuple[int, int, int, int]]:
    """The parts read around the errors ``found`` (see :data:`ERROR_REGIONS`) between
    ``start`` (line ``start_no``) and ``end``: ``(first line, past last, offset, end)``."""
    if not found:
        return []
    chosen = [found[0], found[-1]]
    shapes = {found[0][1], found[-1][1]}
    # the first of each other kind, a crash's kinds before those of errors a program logged
    # and went on from (a declined payment, a 404 it answered)
    firsts: list[tuple[int, str, int]] = []
    for error in found:
        if error[1] not in shapes:
            shapes.add(error[1])
            firsts.append(error)
    others = sorted(firsts, key=lambda e: _CRASH.search(e[1]) is None)  # (stable: in order)
    for error in others[: ERROR_REGIONS - len(chosen)]:
        chosen.append(error)
    # each error's own lines first (above it, and FIRST_ERROR_BELOW from it), then, with what
    # is left, each stack trace on to its end: a long trace of an error handled early in the
    # log does not take the lines of the errors after it (qa-s68c L2). A crash's lines are
    # read first, and when its trace goes on past them, the room its root cause's part takes
    # (:func:`_cause_parts`, at most half of what is left) is kept from the other errors'
    # lines: the hooks' smaller bounds gave them all the middle, and a Spring crash's root
    # cause, which names the fix, was not read
    regions: list[list[int]] = []  # [first line, lines read, offset, past it, error's line,
    # its offset]
    lines, chars = bounds.trace_lines, bounds.middle_chars
    kept_lines = kept_chars = 0  # (the room kept for a long trace's root cause)
    scans: dict[int, tuple[int, list[tuple[int, int]], int]] = {}  # (of a trace, by its error:
    # where its `Caused by` lines were looked for from, them and the trace's end)
    crashes = sorted(e for e in chosen if _CRASH.search(e[1]))  # (in order: a trace's first)
    for line_no, shape, line_start in [*crashes, *(e for e in chosen if e not in crashes)]:
        room_lines, room_chars = lines - kept_lines, chars - kept_chars
        if room_lines <= 0 or room_chars <= 0:
            continue
        if any(r[0] <= line_no < r[0] + r[1] for r in regions):
            continue
        if any(_trace_holds(text, r, line_no, line_start, bounds) for r in regions):
            continue  # (a `Caused by` of a trace read on below: read with it)
        # (not into the lines of a region read before it, above or below: a crash's is read
        # first, and an error a few lines above it had read on into its trace again)
        above = max((r[0] + r[1] for r in regions if r[0] + r[1] <= line_no), default=start_no)
        below = min((r[2] for r in regions if r[0] > line_no), default=end)
        first, at = line_no, line_start
        while first > above and line_no - first < bounds.error_above:
            at = text.rfind("\n", start, at - 1) + 1 or start
            first -= 1
        most = min(room_lines, line_no + bounds.error_below - first)
        n, to, used = _read_on(text, at, below, most, min(room_chars, bounds.error_chars))
        regions.append([first, n, at, to, line_no, line_start])
        lines, chars = lines - n, chars - used
        if not kept_chars and _CRASH.search(shape):
            kept_lines, kept_chars = _root_room(text, regions[-1], end, lines, chars, bounds, scans)
    causes: list[tuple[int, int, int, int]] = []  # (a long trace's `Caused by` lines)
    for region in regions:
        first, n, at, to, line_no, line_start = region
        if lines <= 0 or chars <= 0:
            continue  # (out of room)
        own = _container(text, line_start)
        if first + n < line_no + bounds.error_below and not _cut_in_trace(text, at, to, own):
            continue  # (its lines ended before the trace's part)
        most = min(lines, line_no + bounds.trace_lines - first - n)
        more, past, used = _read_on(text, to, end, most, chars, trace=own)
        if _goes_on(text, past, end, own):  # (the trace is longer than its part)
            room_lines, room_chars = min(lines, CAUSES_LINES), min(chars, CAUSES_CHARS)
            more, past, used = _read_on(
                text, to, end, max(most - room_lines, 0), chars - room_chars, trace=own
            )
            scanned = scans.get(line_start)
            if scanned is None or scanned[0] > past:
                scanned = (past, *_causes(text, past, first + n + more, end, own))
            past_part = [cause for cause in scanned[1] if cause[1] >= past]
            parts, taken_lines, taken_chars = _cause_parts(
                text, past_part, scanned[2], end, room_lines, room_chars, own
            )
            causes += parts
            lines, chars = lines - taken_lines, chars - taken_chars
        region[1], region[3] = n + more, past
        lines, chars = lines - more, chars - used
    read = [(first, first + n, at, min(to - 1, end)) for first, n, at, to, _, _ in regions]
    return read + causes


def _root_room(
    text: str,
    region: list[int],
    end: int,
    lines: int,
    chars: int,
    bounds: Bounds,
    scans: dict[int, tuple[int, list[tuple[int, int]], int]],
) -> tuple[int, int]:
    """The lines and characters the parts of a long trace's ``Caused by`` lines past
    ``region``'s take (:func:`_cause_parts`), within half of ``lines`` and ``chars``: none
    when its trace ends within its part. What was looked for is kept in ``scans`` (by the
    error's offset), not looked for again when the trace is read on."""
    first, n, at, to, line_no, line_start = region
    own = _container(text, line_start)
    if first + n < line_no + bounds.error_below and not _cut_in_trace(text, at, to, own):
        return 0, 0  # (its lines ended before the trace's part)
    if not _goes_on(text, to, end, own):
        return 0, 0
    room_lines, room_chars = min(lines // 2, CAUSES_LINES), min(chars // 2, CAUSES_CHARS)
    found, trace_end = _causes(text, to, first + n, end, own)
    scans[line_start] = (to, found, trace_end)
    _, taken_lines, taken_chars = _cause_parts(
        text, found, trace_end, end, room_lines, room_chars, own
    )
    return taken_lines, taken_chars


def _causes(
    text: str, at: int, line_no: int, end: int, own: str = ""
) -> tuple[list[tuple[int, int]], int]:
    """The ``Caused by`` lines of the rest of a stack trace from offset ``at`` (line
    ``line_no``), as ``(line, offset)``, looked for up to :data:`CAUSES_SCAN_LINES` lines on,
    and the offset past the trace's last line. ``own``: the trace's container
    (:func:`_container`), whose lines alone are the trace's."""
    found: list[tuple[int, int]] = []
    to = trace_end = at
    scanned = gap = 0
    while to < end and scanned < CAUSES_SCAN_LINES:
        prefix = _SERVICE_PREFIX.match(text, to)
        said = prefix.group(1) if prefix is not None else None
        behind = prefix.end() if prefix is not None else to
        if own and said and said.split("|")[0].strip() != own:
            gap += 1  # (another container's line)
            if gap > TRACE_GAP_LINES:
                break
        elif _TRACE_GOES_ON.match(text, behind) is None:
            python = _python_goes_on(text, to, behind)
            if python == _NOT_PYTHON:
                break
            gap = 0
            if python == _PY_EXCEPTION:  # (a Python chain's error: its crash's, last)
                found.append((line_no + scanned, to))
        else:
            gap = 0
            if text.startswith("Caused by", behind):
                found.append((line_no + scanned, to))
        to = text.find("\n", to, end) + 1 or end
        scanned += 1
        if not gap:
            trace_end = to
    return found, trace_end


def _cause_parts(
    text: str,
    found: list[tuple[int, int]],
    trace_end: int,
    end: int,
    lines: int,
    chars: int,
    own: str = "",
) -> tuple[list[tuple[int, int, int, int]], int, int]:
    """The parts read of the rest of a stack trace, which its part did not hold: each of its
    ``Caused by`` lines ``found`` (:func:`_causes`) with the :data:`CAUSE_LINES` lines after
    it that go on with the trace (before ``trace_end``), the last (the root cause) first,
    within ``lines`` and ``chars`` (a blank line before each counted); as ``(first line,
    past last, offset, end)``, with the lines and characters they take."""
    parts: list[tuple[int, int, int, int]] = []
    used_lines = used_chars = 0
    for cause_no, start in reversed(found):
        n, past, cost = 0, start, 1  # (the blank line before the part)
        # (a Python error's: the chain's lines after it too, which say it is a cause)
        most = CAUSE_LINES if text.startswith("Caused by", _behind_prefix(text, start)) else 6
        while (
            past < trace_end and n <= most and (n == 0 or _trace_line(text, past, own) is not False)
        ):
            line_end = text.find("\n", past, end)
            line_end = end if line_end < 0 else line_end
            line_cost = _cost(text, past, line_end)
            if used_lines + n + 2 > lines or used_chars + cost + line_cost > chars:
                break
            cost += line_cost
            n += 1
            past = line_end + 1
        if n == 0:
            break  # (out of room)
        parts.append((cause_no, cause_no + n, start, min(past - 1, end)))
        used_lines, used_chars = used_lines + n + 1, used_chars + cost
    return parts, used_lines, used_chars


def _behind_prefix(text: str, at: int) -> int:
    """The offset of the line that starts at ``at`` behind its container's prefix and time
    (:data:`_SERVICE_PREFIX`), ``at`` when it has none."""
    prefix = _SERVICE_PREFIX.match(text, at)
    return at if prefix is None else prefix.end()


def _container(text: str, at: int) -> str:
    """The container (compose's service, kubectl's pod and container) whose prefix the line
    that starts at ``at`` has, ``""`` when it has none."""
    prefix = _SERVICE_PREFIX.match(text, at)
    said = prefix.group(1) if prefix is not None else None
    return said.split("|")[0].strip() if said else ""


def _trace_line(text: str, at: int, own: str = "") -> bool | None:
    """Whether the line that starts at ``at`` goes on with a stack trace (behind its
    container's prefix and time); None when it is another container's than ``own``, the
    trace's (compose and ``kubectl logs -l … --prefix`` interleave their lines: the
    database's between the api's frames). A Python traceback's exception line and its
    chain's lines go on with it (:func:`_python_goes_on`)."""
    prefix = _SERVICE_PREFIX.match(text, at)
    if prefix is None:
        behind = at
    else:
        said = prefix.group(1)
        if own and said and said.split("|")[0].strip() != own:
            return None
        behind = prefix.end()
    if _TRACE_GOES_ON.match(text, behind) is not None:
        return True
    return _python_goes_on(text, at, behind) != _NOT_PYTHON


def _python_goes_on(text: str, at: int, behind: int) -> int:
    """What the line that starts at ``at`` (``behind`` its prefix), which goes on with no
    trace by :data:`_TRACE_GOES_ON`, is of a Python traceback (:data:`_PY_CHAIN_LINE`):
    ``_PY_CHAIN`` for a chain's line, or a blank line at most two lines before one;
    ``_PY_EXCEPTION`` for the line right under a frame (one of the three lines above it is
    a ``  File "…"`` line, the one above it indented); else ``_NOT_PYTHON``. Asked only where
    a trace would end: a few lines are looked at."""
    if _PY_CHAIN_LINE.match(text, behind) is not None:
        return _PY_CHAIN
    line_end = text.find("\n", behind)
    line_end = len(text) if line_end < 0 else line_end
    if not text[behind:line_end].strip():  # (a blank line: before a chain's line?)
        after = line_end + 1
        for _ in range(2):
            if after >= len(text):
                return _NOT_PYTHON
            ahead = _behind_prefix(text, after)
            if _PY_CHAIN_LINE.match(text, ahead) is not None:
                return _PY_CHAIN
            next_end = text.find("\n", ahead)
            if next_end < 0 or text[ahead:next_end].strip():
                return _NOT_PYTHON
            after = next_end + 1
        return _NOT_PYTHON
    above = at
    for k in range(3):
        if above <= 0:
            return _NOT_PYTHON
        above = text.rfind("\n", 0, above - 1) + 1
        start = _behind_prefix(text, above)
        if k == 0 and not text.startswith((" ", "\t"), start):
            return _NOT_PYTHON  # (the line above is no frame's)
        if _PY_FRAME.match(text, start) is not None:
            return _PY_EXCEPTION
    return _NOT_PYTHON


def _goes_on(text: str, at: int, end: int, own: str = "") -> bool:
    """Whether the trace of container ``own`` goes on at the line that starts at ``at``
    (before ``end``): its next line, past at most :data:`TRACE_GAP_LINES` other containers'
    lines, goes on with it."""
    for _ in range(TRACE_GAP_LINES + 1):
        if at >= end:
            return False
        kind = _trace_line(text, at, own)
        if kind is not None:
            return kind
        at = text.find("\n", at, end) + 1 or end
    return False


def _cut_in_trace(text: str, at: int, to: int, own: str = "") -> bool:
    """Whether the lines read from ``at`` to ``to`` were cut, by their characters, inside a
    stack trace: their last line of container ``own`` goes on with a trace. A Spring
    trace's frames are ~130 characters, so its error's own lines end at their characters
    before their lines, in the trace's middle ``Caused by`` (its root cause, Java's last,
    below): it is read on, as a trace read to its lines' end is."""
    last = to
    for _ in range(TRACE_GAP_LINES + 1):
        if last <= at:
            return False
        last = text.rfind("\n", at, last - 1) + 1 or at
        kind = _trace_line(text, last, own)
        if kind is not None:
            return kind
    return False


def _trace_holds(
    text: str, region: list[int], line_no: int, line_start: int, bounds: Bounds
) -> bool:
    """Whether the error at ``line_no`` (offset ``line_start``) is a line of the stack trace
    that ``region``'s lines stopped in: the region read all it reads before a trace's part,
    or its characters ended inside the trace (a Spring trace of ~300 frames a cause: its
    next ``Caused by``, read apart, took the room its root cause is read with, qa-s70b F7),
    and every line from its end to the error, the error's too, goes on with a trace (other
    containers' lines aside, at most :data:`TRACE_GAP_LINES` in a row)."""
    first, n, at, to, error, error_start = region
    if not first + n <= line_no < error + bounds.trace_lines:
        return False  # (further below, as in a reactive stack's trace of 1,000-2,000 frames a
        # cause, it is read as an error of its own, with its frames around it: so its root
        # cause is read whatever room the trace's part leaves)
    own = _container(text, error_start)
    if first + n < error + bounds.error_below and not _cut_in_trace(text, at, to, own):
        return False  # (its lines ended, not at their characters inside the trace)
    gap = 0
    while to <= line_start:
        kind = _trace_line(text, to, own)
        if kind is False or (kind is None and to == line_start):
            return False
        gap = gap + 1 if kind is None else 0
        if gap > TRACE_GAP_LINES:
            return False
        to = text.find("\n", to, line_start + 1) + 1 or line_start + 1
    return True


def _read_on(
    text: str, at: int, end: int, most: int, chars: int, *, trace: str | None = None
) -> tuple[int, int, int]:
    """The lines read from offset ``at`` (before ``end``): at most ``most`` lines within
    ``chars`` characters (the first line whatever its length); with ``trace``, the container
    of a stack trace (``""``: none), only while the trace goes on, past at most
    :data:`TRACE_GAP_LINES` other containers' lines in a row, to its own last line; as
    (lines, the offset past them, characters)."""
    n = used = gap = 0
    to = at
    kept = (0, at, 0)  # (what was read to the trace's last line)
    while to < end and n < most:
        kind = _trace_line(text, to, trace) if trace is not None else True
        if kind is False:
            break
        gap = gap + 1 if kind is None else 0
        if gap > TRACE_GAP_LINES:
            break
        line_end = text.find("\n", to, end)
        line_end = end if line_end < 0 else line_end
        cost = _cost(text, to, line_end)
        if (n or trace is not None) and used + cost > chars:
            break
        used += cost
        n += 1
        to = line_end + 1
        if kind:
            kept = (n, to, used)
    return kept


def _raw_cut(raw: str, bounds: Bounds) -> tuple[str, int, int, int, int]:
    """``raw`` over ``bounds.raw_max_chars`` (:data:`RAW_MAX_CHARS`): its head and its last
    lines within those characters (from a line's start), a blank line between them; a line longer
    than that is read as :func:`_shown` reads it. With the head's lines, the lines left
    out, and how many lines were cut and redrawn so."""
    head_end, head_n = _forward(raw, 0, bounds.head_lines, bounds.head_chars, len(raw))
    head = [_shown(line) for line in raw[: max(head_end - 1, 0)].split("\n")][:head_n]
    most = bounds.raw_max_chars
    tail_start = raw.find("\n", max(head_end, len(raw) - most) - 1) + 1
    if tail_start < head_end:  # (no line starts in the last characters: the last line)
        tail_start = max(raw.rfind("\n", head_end) + 1, head_end)
    tail = raw[tail_start:]
    cut = redrawn = 0
    if len(tail) > most:
        shown, redrawn, cut = _shown(tail.rstrip("\n"))
        tail = shown + "\n" * tail.endswith("\n")
    left_out = raw.count("\n", head_end, tail_start) if tail_start > head_end else 0
    cut += sum(was_cut for _, _, was_cut in head)
    redrawn += sum(was for _, was, _ in head)
    between = "\n\n" if left_out else "\n"  # (a blank line where lines were left out)
    text = "\n".join(line for line, _, _ in head) + (between + tail if tail else "")
    return text, head_n, left_out, cut, redrawn
