"""ERROR-FIX entries, error signatures and fingerprints, solution-doc seeding (pure).

An ERROR-FIX entry is one memory of the form (SPEC §6, the seed's convention)::

    ERROR-FIX: <error signature> | FIX: <fix text> | SOURCE: <doc path> — <one-line summary>

The literal signature comes first because bi-encoders pool over tokens: front-loading the
error text maximises the match for a short error query.

Nothing here touches a store or an embedder: this module turns raw error text into a
signature (:func:`extract_error_signature`), a signature into a run- and file-independent
fingerprint (:func:`error_fingerprint`), and a solution document into entries
(:func:`parse_solution_doc`). The store embeds and deduplicates what comes out.

Separator rule: the parts of an entry are single lines; the only sequences that could break
parsing are the markers ``| FIX:`` and ``| SOURCE:`` themselves (and `` — `` inside the
source path). :meth:`ErrorFixEntry.format` neutralises those (``|`` becomes ``/``) and
leaves every other ``|`` alone, so a shell pipeline such as ``cmd | head -1`` survives.
:func:`parse_error_fix` splits on the *first* `` | FIX: `` and the *last* `` | SOURCE: ``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .lazyre import lazy
from .truncation import cut_at_word_boundary

__all__ = [
    "ERROR_FIX_PREFIX",
    "FIX_MAX_CHARS",
    "SIGNATURE_MAX_CHARS",
    "SUMMARY_MAX_CHARS",
    "DocOutcome",
    "ErrorFixEntry",
    "discover_solution_docs",
    "error_fingerprint",
    "extract_error_signature",
    "looks_like_error",
    "parse_error_fix",
    "parse_solution_doc",
]

ERROR_FIX_PREFIX = "ERROR-FIX:"
#: A signature is one line of at most this many characters.
SIGNATURE_MAX_CHARS = 300
#: The fix text of a seeded entry is cut to this many characters at a word boundary.
FIX_MAX_CHARS = 400
#: The one-line problem summary after the source path.
SUMMARY_MAX_CHARS = 160
#: At most this many distinct signatures are taken from one solution document.
MAX_SIGNATURES_PER_DOC = 3

_WS = lazy(r"\s+")


def _one_line(text: str) -> str:
    return _WS.sub(" ", text or "").strip()


# --------------------------------------------------------------------------------------------
# ERROR-FIX entries
# --------------------------------------------------------------------------------------------

_MARKER_FIX = lazy(r"\|(?=\s*FIX:)", re.IGNORECASE)
_MARKER_SOURCE = lazy(r"\|(?=\s*SOURCE:)", re.IGNORECASE)


def _neutralise(part: str) -> str:
    """One line, with the entry markers made harmless (``| FIX:`` → ``/ FIX:``)."""
    part = _one_line(part)
    part = _MARKER_FIX.sub("/", part)
    return _MARKER_SOURCE.sub("/", part)


@dataclass(frozen=True)
class ErrorFixEntry:
    """One error→fix memory. Parts are normalised to single lines by :meth:`format`."""

    signature: str
    fix: str
    source: str = ""
    summary: str = ""

    def normalised(self) -> ErrorFixEntry:
        """The entry as :func:`parse_error_fix` reads it back from :meth:`format`."""
        source = _neutralise(self.source).replace(" — ", " - ")
        return ErrorFixEntry(
            signature=_neutralise(self.signature),
            fix=_neutralise(self.fix),
            source=source,
            summary=_neutralise(self.summary) if source else "",
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
        return error_fingerprint(self.signature)


_FIX_SPLIT = lazy(r"\s+\|\s+FIX:\s*", re.IGNORECASE)
_SOURCE_SPLIT = lazy(r"\s+\|\s+SOURCE:\s*", re.IGNORECASE)


def parse_error_fix(text: str) -> ErrorFixEntry | None:
    """Read an ``ERROR-FIX:`` entry back; ``None`` when ``text`` is not one.

    The signature ends at the first `` | FIX: ``, the fix at the last `` | SOURCE: ``, and
    the source path at the first `` — `` (the summary is the rest). ``SOURCE`` is optional.
    """
    if not text:
        return None
    stripped = _one_line(text)
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


# --------------------------------------------------------------------------------------------
# Signatures
# --------------------------------------------------------------------------------------------

_ANSI = lazy(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_LEVELS = r"(?:ERROR|ERR|FATAL|CRITICAL|CRIT|PANIC|WARN(?:ING)?|INFO|DEBUG|TRACE|NOTICE)"
_TIMESTAMP = lazy(
    r"""^\s*
    (?:\[\s*)?
    (?:\d{4}-\d{2}-\d{2}[T\s]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|\s?[+-]\d{2}:?\d{2}|\s?UTC)?
      |\d{4}/\d{2}/\d{2}\s\d{2}:\d{2}:\d{2}(?:[.,]\d+)?
      |\d{2}:\d{2}:\d{2}(?:[.,]\d+)?
      |[A-Z][a-z]{2}\s+\d{1,2}\s\d{2}:\d{2}:\d{2}(?:\s[\w.-]+\s[\w./-]+(?:\[\d+\])?:)?)
    (?:\s*\])?\s*""",
    re.VERBOSE,
)
_LEVEL_PREFIX = lazy(
    rf"^\s*(?:\[\s*{_LEVELS}\s*\]|{_LEVELS}(?=[\s:\]|])\s*(?:\]\s*)?)[:|\-]?\s*",
)
_ERROR_LEVEL = lazy(r"^\s*\[?\s*(?:ERROR|ERR|FATAL|CRITICAL|CRIT|PANIC)\b")
_GHA_PREFIX = lazy(r"^\s*##\[(error|warning|notice|group|endgroup)\]\s*", re.IGNORECASE)

#: Lines that are stack frames, source excerpts or decoration: never the signature.
_NOISE_LINE = lazy(
    r"""^\s*(?:
      at\s+\S.*                                   # Node / Java frames
    | File\s+".*",\s+line\s+\d+.*                 # Python frames
    | Traceback\s+\(most\s+recent\s+call\s+last\):?
    | -->\s+\S.*                                  # rustc location arrows
    | \d*\s*\|.*                                  # rustc / ruff source gutters
    | [\^~\s-]+                                   # carets and underlines
    | goroutine\s+\d+\s+\[.*\]:?                  # Go goroutine headers
    | (?:/|[A-Za-z]:\\|\./)\S+\.go:\d+.*\+0x[0-9a-f]+  # Go frames with offsets
    | \.\.\.\s*\d+\s+more                          # Java "... 3 more"
    | Node\.js\s+v\d.*
    | During\s+handling\s+of\s+the\s+above\s+exception.*
    | The\s+above\s+exception\s+was\s+the\s+direct\s+cause.*
    | For\s+more\s+information\s+about\s+this\s+error.*
    | Some\s+errors\s+have\s+detailed\s+explanations.*
    | (?:note|help|=\s*note|=\s*help):.*
    | npm\s+(?:ERR!|error)\s+(?:A\s+complete\s+log|\s*$|Could\s+not\s+resolve\s+dependency:?$).*
    )$""",
    re.VERBOSE | re.IGNORECASE,
)

_EXIT_CODE = lazy(
    r"\b(?:exit(?:ed)?\s+(?:with\s+)?(?:code|status)|exit\s+code|returned\s+(?:non-zero\s+)?"
    r"(?:exit\s+)?(?:code|status))\s*[:=]?\s*(-?\d+)",
    re.IGNORECASE,
)

_RULES: tuple[tuple[int, re.Pattern[str]], ...] = (
    # rustc / TypeScript / C# style error codes
    (100, lazy(r"\berror\[E\d{3,5}\]:")),
    (96, lazy(r"\berror\s+(?:TS|CS|C|LNK)\d{3,5}\b", re.IGNORECASE)),
    # language exceptions: Python, Node, Java, Ruby, .NET (class name with a colon or alone)
    (
        90,
        lazy(
            r"^(?:Uncaught\s+|Unhandled\s+|Caused\s+by:\s+|Exception\s+in\s+thread\s+\"[^\"]*\"\s+)?"
            r"(?:[A-Za-z_][\w$]*\.)*[A-Z][\w$]*(?:Error|Exception|Exit|Interrupt|Warning|Fault)"
            r"(?:\s*\[[\w-]+\])?(?::\s.*|:?$)"
        ),
    ),
    (90, lazy(r"^(?:panic|fatal error):\s", re.IGNORECASE)),
    (88, lazy(r"^Error:\s\S")),  # Node's bare Error and many CLIs
    (86, lazy(r"^npm\s+(?:ERR!|error)\s+code\s+\S+", re.IGNORECASE)),
    (84, lazy(r"\b(?:command not found|No such file or directory|Permission denied)\b")),
    (84, lazy(r"\bSegmentation fault\b|\bcore dumped\b|\bKilled\b|\bOOMKilled\b")),
    (82, lazy(r"^(?:fatal|error|FATAL|ERROR)(?:\s*\([^)]*\))?:\s")),
    (80, lazy(r"^go:\s")),
    (78, lazy(r"^[✗✘×]\s*(?:ERROR|error)\b")),
    (76, lazy(r"\b(?:error|ERROR)\s*:\s")),
    (74, lazy(r"\bE[A-Z0-9]{3,}\b(?=.*\b(?i:error|errno|failed|fail)\b)")),
    (72, lazy(r"\bERR_[A-Z0-9_]{3,}\b|\b(?:ENOENT|EACCES|EPERM|EEXIST|ENOTDIR|EISDIR)\b")),
    (72, lazy(r"\bE2BIG\b|\bECONNREFUSED\b|\bETIMEDOUT\b|\bEADDRINUSE\b|\bENOSPC\b")),
    (70, lazy(r"^npm\s+(?:ERR!|error)\s", re.IGNORECASE)),
    (66, lazy(r"\[Errno\s+\d+\]|\berrno\s*\d+", re.IGNORECASE)),
    (60, lazy(r"^make(?:\[\d+\])?:\s+\*\*\*")),
    (56, lazy(r"\b(?:failed|failure|cannot|can't|could not|unable to)\b", re.IGNORECASE)),
    (50, lazy(r"\b(?:invalid|unexpected|undefined|not found|denied|refused)\b", re.I)),
    (40, lazy(r"\berror\b", re.IGNORECASE)),
)

#: Generic wrapper lines (CI runners, build drivers): an error, but the least specific one.
_WRAPPER = lazy(
    r"^(?:Error:\s+Process completed with exit code"
    r"|error:\s+(?:aborting due to|could not compile|Recipe `|recipe for target)"
    r"|npm\s+(?:ERR!|error)\s+(?:Lifecycle|errno|This is probably|Failed at)"
    r"|\S*(?:exited|exit(?:ed)?\s+with)\b"
    r"|ELIFECYCLE"
    r"|exit\s+status\s+\d+"
    r"|Command\s+.*\s+returned\s+non-zero"
    r"|make(?:\[\d+\])?:\s+\*\*\*)",
    re.IGNORECASE,
)

#: ``path/to/file.ext:12:5: message`` — keep the message (Go, gcc, ruff, mypy, eslint…).
_LOCATION_PREFIX = lazy(
    r"^(?:[A-Za-z]:)?[^\s:()]*[\w)]\.[A-Za-z]{1,6}(?::\d+){1,3}:?\s+(?=\S)"
    r"|^(?:[A-Za-z]:)?[^\s:()]*\.[A-Za-z]{1,6}\(\d+(?:,\d+)?\):\s+(?=\S)"
    r"|^\d+:\d+\s+(?=(?:error|warning)\s)"
)
_PYTEST_E = lazy(r"^E\s{2,}")
#: ``FAILED tests/test_x.py::test_a - AssertionError: …`` (pytest short summary).
_PYTEST_SUMMARY = lazy(r"^(?:FAILED|ERROR)\s+\S+::\S+(?:\[[^\]]*\])?\s+-\s+(?=\S)")
_BARE_EXCEPTION = lazy(r"^(?:[A-Za-z_][\w$]*\.)*[A-Z][\w$]*(?:Error|Exception)$")


_DANGLING = lazy(
    r"(?:,|\b(?:of|to|with|from|in|at|for|and|or|the|a|an|is|are|but|got|expected|received|"
    r"found|near|by))$",
    re.IGNORECASE,
)
#: A line that starts a new ``key: message`` error rather than continuing a wrapped one.
_KEY_MESSAGE = lazy(r"^\S+:\s")
_ELLIPSIS_TAIL = lazy(r"[,;]?\s*(?:\.\.\.|…)?\s*$")


def _clean_line(line: str) -> tuple[str, bool]:
    """Strip ANSI, timestamps, log levels and CI prefixes; report an error log level."""
    line = _ANSI.sub("", line).replace("\r", "")
    error_level = False
    gha = _GHA_PREFIX.match(line)
    if gha:
        error_level = gha.group(1).lower() == "error"
        line = line[gha.end() :]
    stamped = False
    for _ in range(2):
        ts = _TIMESTAMP.match(line)
        if ts and ts.end() > 0:
            line = line[ts.end() :]
            stamped = True
        if _ERROR_LEVEL.match(line):
            error_level = True
        lvl = _LEVEL_PREFIX.match(line)
        # "ERROR: message" with no timestamp is the message itself, not a log prefix
        bare_colon = not stamped and lvl is not None and lvl.group(0).rstrip().endswith(":")
        if lvl and not bare_colon and lvl.end() < len(line.rstrip()):
            line = line[lvl.end() :]
    line = _PYTEST_SUMMARY.sub("", _PYTEST_E.sub("", line))
    return line.strip(), error_level


def _line_score(line: str) -> int:
    for score, rule in _RULES:
        if rule.search(line):
            return score
    return 0


def _is_exception_line(line: str) -> bool:
    return _RULES[2][1].search(line) is not None


def _candidate_lines(raw: str) -> list[tuple[str, int, bool]]:
    """``(message, score, is_exception)`` for every meaningful line, in input order."""
    out: list[tuple[str, int, bool]] = []
    for raw_line in raw.splitlines():
        line, error_level = _clean_line(raw_line)
        if not line or _NOISE_LINE.match(line):
            continue
        loc = _LOCATION_PREFIX.match(line)
        if loc:
            line = line[loc.end() :]
        score = _line_score(line)
        if _WRAPPER.search(line):
            score = min(score, 30) if score else 30
        if error_level:
            score = max(score, 60)
        if out and score < 76 and _DANGLING.search(out[-1][0]) and not _KEY_MESSAGE.search(line):
            prev, prev_score, prev_exc = out[-1]
            out[-1] = (f"{prev} {line}", max(prev_score, score), prev_exc)
            continue
        out.append((line, score, _is_exception_line(line)))
    return out


def _tidy(line: str) -> str:
    text = _one_line(line)
    return _ELLIPSIS_TAIL.sub("", text) if text.endswith((",", "...", "…", ";")) else text


def _ranked(candidates: list[tuple[str, int, bool]]) -> list[str]:
    """The best-scoring lines, most specific first (see :func:`extract_error_signature`)."""
    best_score = max(score for _, score, _ in candidates)
    if best_score == 0:
        return [_one_line(candidates[0][0])]
    top = [i for i, c in enumerate(candidates) if c[1] == best_score]
    if all(candidates[i][2] for i in top):
        top.reverse()
    return [_tidy(candidates[i][0]) for i in top]


def _exit_code_suffix(candidates: list[tuple[str, int, bool]], chosen: str) -> str:
    if _EXIT_CODE.search(chosen):
        return chosen
    for line, _, _ in candidates:
        m = _EXIT_CODE.search(line)
        if m:
            return f"{chosen} (exit code {m.group(1)})"
    return chosen


def extract_error_signature(raw: str) -> str:
    """The most specific error line of a raw error text or log, one line, ≤ 300 chars.

    Stack frames, rustc ``-->`` arrows and gutters, ANSI colours, timestamps and log-level
    prefixes are dropped; ``file:line:col:`` location prefixes are removed from the kept
    line. Exception lines (Python, Node, Java…) pick the *last* one — the final line of a
    traceback, the root ``Caused by`` — other error lines the *first* one; a line that
    visibly wraps (ends in ``,`` or ``of``) takes its continuation. When an exit code
    appears elsewhere (``Error: Process completed with exit code 1.``) it is appended as
    ``(exit code N)``. Input without any error-looking line comes back cleaned: its first
    meaningful line.
    """
    sigs = _signatures(raw, limit=1)
    return sigs[0] if sigs else ""


def _signatures(raw: str, limit: int) -> list[str]:
    if not raw or not raw.strip():
        return []
    candidates = _candidate_lines(raw)
    if not candidates:
        flat = _one_line(_ANSI.sub("", raw))
        return [cut_at_word_boundary(flat, SIGNATURE_MAX_CHARS)] if flat else []
    ranked = [_with_detail(sig, raw) for sig in _ranked(candidates)[:limit]]
    return [
        cut_at_word_boundary(_exit_code_suffix(candidates, sig), SIGNATURE_MAX_CHARS)
        for sig in ranked
    ]


_PYTEST_DETAIL = lazy(r"^E\s{2,}(\S.*)$", re.MULTILINE)


def _with_detail(signature: str, raw: str) -> str:
    """A bare exception class (pytest's ``file.py:4: AssertionError``) takes its first
    ``E   …`` detail line: ``AssertionError: assert 2 == 3``."""
    if not _BARE_EXCEPTION.match(signature):
        return signature
    detail = _PYTEST_DETAIL.search(_ANSI.sub("", raw))
    if detail is None:
        return signature
    return f"{signature}: {_one_line(detail.group(1))}"


_LOOKS_LIKE_ERROR = lazy(
    r"""(?:
      ^\s*ERROR-FIX:
    | Traceback\s\(most\srecent\scall\slast\)
    | \berror\[E\d+\]
    | \berror\s+TS\d+
    | (?:^|\s)[\w.$]*(?:Error|Exception)\b(?::|\s*$|\s+in\b)
    | \b[A-Z]\w*(?:Error|Exception)\b
    | \bError:
    | (?:^|\s)error:
    | \bERROR\b
    | \bpanic:
    | \bfatal(?:\s+error)?:
    | \bexit(?:ed)?\s+(?:with\s+)?(?:code|status)\s*\d+
    | \bnpm\s+(?:ERR!|error)
    | \bcommand\snot\sfound\b
    | \bNo\ssuch\sfile\sor\sdirectory\b
    | \bPermission\sdenied\b
    | \bSegmentation\sfault\b
    | \[Errno\s\d+\]
    | \bERR_[A-Z0-9_]{3,}\b
    | \bE(?:NOENT|ACCES|PERM|EXIST|2BIG|CONNREFUSED|TIMEDOUT|ADDRINUSE|NOSPC|RESOLVE)\b
    | make(?:\[\d+\])?:\s\*\*\*
    | \bstack\s+trace\b
    | ^\s*(?:\./|/)?[\w./-]+\.\w{1,6}:\d+(?::\d+)?:\s   # compiler / linter locations
    | ^\s*\d+:\d+\s+error\s                             # eslint
    | ^go:\s
    | \b(?:Uncaught|Unhandled)\b
    )""",
    re.VERBOSE | re.MULTILINE,
)


def looks_like_error(text: str) -> bool:
    """Heuristic: is ``text`` an error message, log or ERROR-FIX entry (0.40 floor)?"""
    if not text:
        return False
    return _LOOKS_LIKE_ERROR.search(_ANSI.sub("", text)) is not None


# --------------------------------------------------------------------------------------------
# Fingerprints
# --------------------------------------------------------------------------------------------

_EXTS = (
    "py|pyi|pyx|js|mjs|cjs|jsx|ts|tsx|rs|go|java|kt|kts|scala|rb|php|c|h|cc|cpp|cxx|hpp|hh|cs|"
    "swift|m|mm|sh|bash|zsh|ps1|lua|pl|ex|exs|erl|hs|ml|dart|vue|svelte|json|jsonl|yaml|yml|"
    "toml|ini|cfg|conf|lock|md|rst|txt|html|css|scss|sql|xml|proto|gradle|tf|dockerfile|log"
)
_KEEP_NUMBER = lazy(
    r"(?P<keep>\b(?:exit(?:ed)?\s+(?:with\s+)?(?:code|status)|exit\s+code|status\s+code|"
    r"signal|errno|http(?:/\d(?:\.\d)?)?|returned\s+(?:non-zero\s+)?(?:exit\s+)?"
    r"(?:code|status))\s*[:=]?\s*)(?P<num>-?\d+)",
    re.IGNORECASE,
)
#: Quoted text that is itself an error code stays (``'E2BIG'``, ```E0382```, ``"ERR_X"``).
_QUOTED_CODE = lazy(r"^(?:E[A-Z0-9]{2,}|ERR_[A-Z0-9_]+|[A-Z]{1,4}\d{3,5})$")


def _mask_quoted(m: re.Match[str]) -> str:
    inner = m.group(0)[1:-1].strip()
    return inner if _QUOTED_CODE.match(inner) else "<q>"


_Repl = str | Callable[[re.Match[str]], str]
_FP_RULES: tuple[tuple[re.Pattern[str], _Repl], ...] = (
    (
        lazy(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I),
        "<uuid>",
    ),
    (lazy(r"\b[a-z][a-z0-9+.-]*://\S+", re.I), "<url>"),
    (lazy(r"\b0x[0-9a-f]+\b", re.I), "<hex>"),
    # Windows paths, with optional :line:col
    (lazy(r"(?<![\w/])[A-Za-z]:\\[^\s:\"'`<>|]+(?::\d+)*"), "<path>"),
    # POSIX paths: absolute, ./, ../, ~/; relative ones need two slashes or a file extension
    # (so "and/or" stays); with optional :line:col
    (
        lazy(
            r"(?<![\w<>])(?:~|\.{1,2})?/(?:[\w.@+-]+/)*[\w.@+-]+/?(?::\d+)*"
            r"|(?<![\w/<>])[\w.@+-]+(?:/[\w.@+-]+){2,}/?(?::\d+)*"
            r"|(?<![\w/<>])[\w.@+-]+/(?:[\w@+-]+/)*[\w@+-]+\.\w{1,10}(?::\d+)*"
        ),
        "<path>",
    ),
    # bare file names with a known extension, with optional :line:col or (line,col)
    (
        lazy(rf"(?<![\w/.<>-])[\w.-]+\.(?:{_EXTS})\b(?:(?::\d+)+|\(\d+(?:,\d+)?\))?", re.I),
        "<path>",
    ),
    # long hex ids (commit hashes, object ids) that contain at least one digit
    (lazy(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b", re.I), "<hex>"),
    # quoted identifiers / values
    (lazy(r"(?<![\w\\])'[^'\n]{0,200}?'(?!\w)"), _mask_quoted),
    (lazy(r"(?<!\\)\"[^\"\n]{0,200}?(?<!\\)\""), _mask_quoted),
    (lazy(r"`[^`\n]{0,200}?`"), _mask_quoted),
    (lazy(r"‘[^’\n]{0,200}’|“[^”\n]{0,200}”"), _mask_quoted),
    # versions (v18.17.0) and numbers, with a unit (0.12s, 512mb, 80%); not inside
    # identifiers such as E0382 or TS2322
    (lazy(r"\bv\d+(?:\.\d+)+\b"), "<n>"),
    (
        lazy(r"(?<![\w.])[-+]?\d+(?:[.,:]\d+)*(?:ms|s|m|h|[kmgt]i?b|b|%)?(?!\w)", re.I),
        "<n>",
    ),
)


def _keep_token(index: int) -> str:
    """A placeholder without digits (so the number mask cannot touch it)."""
    letters = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        letters = chr(ord("a") + rem) + letters
    return f"\x00{letters}\x00"


def error_fingerprint(signature: str) -> str:
    """A normalised form of a signature that is the same across files, runs and names.

    Masks URLs, file paths (POSIX, Windows, bare ``name.ext``; with ``:line:col``), hex ids
    and memory addresses, UUIDs, quoted identifiers and numbers; keeps error classes and
    codes (``TypeError``, ``E0382``, ``ERESOLVE``, ``TS2322``) and the numbers that carry
    meaning (exit codes, signals, errno, HTTP status). Whitespace collapsed, lowercased.
    """
    text = _one_line(_ANSI.sub("", signature or ""))
    if text.upper().startswith(ERROR_FIX_PREFIX):
        entry = parse_error_fix(text)
        if entry is not None:
            text = entry.signature
    kept: list[str] = []

    def keep(m: re.Match[str]) -> str:
        kept.append(m.group("num"))
        return m.group("keep") + _keep_token(len(kept) - 1)

    text = _KEEP_NUMBER.sub(keep, text)
    for pattern, repl in _FP_RULES:
        text = pattern.sub(repl, text)
    for i, num in enumerate(kept):
        text = text.replace(_keep_token(i), num)
    # adjacent masks of the same kind are one mask ("<n>.<n>" already handled by the regex)
    text = re.sub(r"(<(?:n|q|path|hex)>)(?:[\s,]*\1)+", r"\1", text)
    return _one_line(text).lower()


# --------------------------------------------------------------------------------------------
# Solution documents
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DocOutcome:
    """What one solution document yields: entries, or the reason it was skipped."""

    path: Path
    entries: tuple[ErrorFixEntry, ...] = ()
    skipped_reason: str | None = None

    @property
    def skipped(self) -> bool:
        return self.skipped_reason is not None


def discover_solution_docs(root: Path) -> list[Path]:
    """Every ``*/*.md`` exactly one directory below ``root``, minus ``/archived/``, sorted."""
    root = Path(root)
    if not root.is_dir():
        return []
    found = []
    for path in root.glob("*/*.md"):
        rel = "/" + path.relative_to(root).as_posix()
        if "/archived/" in rel or not path.is_file():
            continue
        found.append(path)
    return sorted(found)


_FENCE_OPEN = lazy(r"^\s{0,3}(`{3,}|~{3,})\s*([\w+-]*)")
_HEADING = lazy(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
#: Decision: the fix section is a level-2 heading whose text is "Fix" or "Solution",
#: case-insensitive, with an optional leading "The" and trailing colon (``## Fix``,
#: ``## Solution:``, ``## The Fix``). "## Working Solution", "## Fix Applied",
#: "## Fix 1 — …" and ``### Fix`` sub-sections of multi-bug documents do not count.
_FIX_HEADING = lazy(r"^(?:the\s+)?(?:fix|solution)\s*:?$", re.IGNORECASE)

#: Lines of untrusted document text that look like fences of any prompt format.
_FENCE_LIKE_LINE = lazy(
    r"""^\s*(?:
      (?:`{3,}|~{3,}).*                        # code fences
    | (?:-{3,}|\*{3,}|_{3,}|={3,})\s*          # separators / YAML fences
    | -{2,}\s.*\s-{2,}                          # "--- code end ---" style delimiters
    | <{3,}.*|>{3,}.*|={7}.*                    # merge-conflict / heredoc-ish markers
    | </?[A-Za-z_][\w:.-]*(?:\s[^>]*)?/?>.*     # a line opening with an XML/HTML tag
    | <!--.*                                    # HTML comments
    | Resume\s+normal\s+behavior.*              # our re-anchor line
    )$""",
    re.VERBOSE | re.IGNORECASE,
)
_OUR_TAGS = lazy(r"</?\s*(?:reflexion_context|advisory|finding|content)\b[^>]*>", re.I)


@dataclass
class _Block:
    kind: str  # "para", "code", "heading"
    text: str
    lang: str = ""
    level: int = 0
    intro: str = ""  # for code: the last non-blank line before the fence


def _blocks(body: str) -> list[_Block]:
    """Split markdown into headings, paragraphs (blank-line separated) and fenced code."""
    blocks: list[_Block] = []
    lines = body.splitlines()
    i = 0
    para: list[str] = []
    last_text = ""

    def flush() -> None:
        nonlocal last_text
        if para:
            blocks.append(_Block("para", "\n".join(para)))
            last_text = para[-1]
            para.clear()

    while i < len(lines):
        line = lines[i]
        fence = _FENCE_OPEN.match(line)
        if fence:
            flush()
            marker = fence.group(1)
            lang = fence.group(2).lower()
            j = i + 1
            content: list[str] = []
            while j < len(lines) and not lines[j].strip().startswith(marker[0] * len(marker)):
                content.append(lines[j])
                j += 1
            blocks.append(_Block("code", "\n".join(content), lang=lang, intro=last_text))
            last_text = ""
            i = j + 1
            continue
        heading = _HEADING.match(line)
        if heading:
            flush()
            blocks.append(_Block("heading", heading.group(2), level=len(heading.group(1))))
            last_text = ""
        elif not line.strip():
            flush()
        else:
            para.append(line)
        i += 1
    flush()
    return blocks


def _fix_section(blocks: list[_Block]) -> tuple[int, int] | None:
    """``(start, end)`` block indexes of the body of the first ``## Fix``/``## Solution``."""
    for i, block in enumerate(blocks):
        if block.kind == "heading" and block.level == 2 and _FIX_HEADING.match(block.text):
            end = i + 1
            while end < len(blocks) and not (
                blocks[end].kind == "heading" and blocks[end].level <= 2
            ):
                end += 1
            return i + 1, end
    return None


_CONTROL = lazy(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _clean_untrusted_line(text: str) -> str:
    """ANSI and control characters out, our own XML tags out, one line."""
    text = _CONTROL.sub("", _ANSI.sub("", text))
    return _one_line(_OUR_TAGS.sub(" ", text))


def _sanitise_untrusted(text: str) -> str:
    """Drop fence-like lines, then :func:`_clean_untrusted_line`."""
    kept = [line for line in text.splitlines() if not _FENCE_LIKE_LINE.match(line)]
    return _clean_untrusted_line("\n".join(kept))


def _introduces(text: str) -> bool:
    """Does this part end in a colon (``Fix:``, ``**Rule 8 guard:**``), introducing a block?"""
    return text.rstrip("*_ ").endswith(":")


def _fix_text(blocks: list[_Block], start: int, end: int) -> str:
    """The first paragraph of the section, fence-like lines stripped, ≤ 400 chars.

    A paragraph ending in ``:`` takes the block it introduces (code or list), repeatedly;
    a first block that is a code block is the fix on its own; a sub-heading before the
    first paragraph (``### Approach``) is kept as its lead-in, ``Approach:``.
    """
    parts: list[str] = []
    has_content = False
    for block in blocks[start:end]:
        if block.kind == "heading":
            if parts and not _introduces(parts[-1]):
                break
            heading = _sanitise_untrusted(block.text).rstrip(":")
            if heading:
                parts.append(f"{heading}:")
            continue
        text = _sanitise_untrusted(block.text)
        if not text:
            continue
        parts.append(text)
        has_content = True
        if not _introduces(text) or sum(len(p) + 1 for p in parts) >= FIX_MAX_CHARS:
            break
    if not has_content:
        return ""
    return cut_at_word_boundary(" ".join(parts), FIX_MAX_CHARS)


_OUTPUT_LANGS = {
    "",
    "text",
    "txt",
    "plain",
    "plaintext",
    "console",
    "output",
    "log",
    "stderr",
    "stdout",
    "shell-session",
    "sh-session",
    "terminal",
    "none",
}
#: A line introducing an error output block: "CI fails with:", "stderr:", "Error output:".
_ERROR_INTRO = lazy(
    r"(?:\b(?:fail(?:s|ed|ing)?|errors?|error(?:ed|s)?\s+out|crash(?:es|ed)?|rejects?|"
    r"reports?|prints?|throws?|panics?|stderr|aborts?|exits?)\b[^:]{0,80}:\s*$)",
    re.IGNORECASE,
)
_INLINE_CODE = lazy(r"(?<!`)`([^`\n]{3,300})`(?!`)")
_PROMPT_LINE = lazy(r"^\s*(?:\$|#|>|PS [^>]*>)\s")
#: Inline spans or quoted strings must be this clearly an error to count as a signature.
_STRONG = 76


def _strength(text: str) -> int:
    line, error_level = _clean_line(text)
    loc = _LOCATION_PREFIX.match(line)
    if loc:
        line = line[loc.end() :]
    score = _line_score(line)
    return max(score, 60) if error_level else score


def _signatures_from_code(block: _Block) -> list[str]:
    """Error output blocks: plain/text/console fences that hold an error, or any such fence
    introduced by a line like "CI fails with:" (then a short block is the signature whole)."""
    if block.lang not in _OUTPUT_LANGS:
        return []
    lines = [ln for ln in block.text.splitlines() if ln.strip() and not _PROMPT_LINE.match(ln)]
    if not lines:
        return []
    content = "\n".join(lines)
    introduced = bool(_ERROR_INTRO.search(block.intro))
    best = max(_strength(ln) for ln in lines)
    flat = _one_line(content)
    if introduced and best < _STRONG and len(flat) <= SIGNATURE_MAX_CHARS:
        return [flat]
    if best >= _STRONG or (introduced and best >= 40):
        return _signatures(content, limit=MAX_SIGNATURES_PER_DOC)
    return []


#: Text right before an inline span or quoted string that marks it as an error message:
#: strong contexts ("fails with", "a jq error (") accept any non-code span, weak ones
#: ("printed", "hit") only a span that reads like an error or a ``tool: message``.
_STRONG_CONTEXT = lazy(
    r"(?:\berrors?|\bfail(?:s|ed)?\s+with|\bexit(?:s|ed)?\s+with|\bstderr|\bthrows?(?:\s+an?)?|"
    r"\bthrew(?:\s+an?)?|\bemits?(?:\s+an?)?)\W{0,3}$",
    re.IGNORECASE,
)
_WEAK_CONTEXT = lazy(
    r"(?:\bprint(?:s|ed)|\bhit(?:s)?|\breports?|\breported|\bmessage|\bsays|\bsaid|"
    r"\bwarns?|\bwith(?:\s+an?)?)\W{0,3}$",
    re.IGNORECASE,
)
_CONTEXT_AFTER = lazy(
    r"^\s*(?:errors?|exceptions?)(?:\s+messages?)?(?=\s*(?:[.,;:)—-]|$))", re.IGNORECASE
)
_TOOL_MESSAGE = lazy(r"^\(?[\w.-]+\)?:\s+\S")
_BARE_CODE = lazy(r"^[A-Z][A-Z0-9_]{2,}$")
_PAREN_AFTER = lazy(r"^\s*(\([^()\n]{2,40}\))")
_QUOTED = lazy(r"(?<![\w\\])\"([^\"\n]{3,160})\"(?!\w)")


def _accept_span(span: str, before: str, after: str) -> bool:
    if _looks_like_code(span):
        return False
    strength = _strength(span)
    if strength >= _STRONG and " " in span.strip():
        return True
    if _CONTEXT_AFTER.match(after) or _STRONG_CONTEXT.search(before[-60:]):
        return True
    if _WEAK_CONTEXT.search(before[-60:]):
        return strength >= 40 or bool(_TOOL_MESSAGE.match(span)) or bool(_BARE_CODE.match(span))
    return False


def _signatures_from_text(block: _Block) -> list[str]:
    """Inline code spans and quoted strings that are error messages, in document order."""
    text = block.text.replace("\n", " ")
    found: list[tuple[int, str]] = []
    for m in _INLINE_CODE.finditer(text):
        span = m.group(1).strip()
        if _accept_span(span, text[: m.start()], text[m.end() :]):
            paren = _PAREN_AFTER.match(text[m.end() :])
            if paren and _BARE_CODE.match(span):
                span = f"{span} {paren.group(1)}"
            found.append((m.start(), _one_line(span)))
    for m in _QUOTED.finditer(text):
        span = m.group(1).strip()
        before = text[: m.start()]
        if before.count("`") % 2 == 1:  # inside an inline code span
            continue
        if _accept_span(span, before, text[m.end() :]):
            found.append((m.start(), _one_line(span)))
    return [sig for _, sig in sorted(found)]


_CODE_HINT = lazy(
    r"^(?:if|for|while|local|export|echo|printf|grep|sed|awk|jq|cat|test|\[\[?|\$\(|"
    r"const|let|var|function|def|return|import|from)\b|[;{}]\s*$|\$\{|=\$\(|\|\||&&|"
    r"^[\w.$]+\([^()]*\)$|^--?\w|^[\w./-]+\.\w{1,5}$"
)


def _looks_like_code(span: str) -> bool:
    """An inline span that is a command or a code fragment, not an error message."""
    return _CODE_HINT.search(span.strip()) is not None


def _doc_signatures(blocks: list[_Block], section: tuple[int, int]) -> list[str]:
    """Signatures before the fix section (Problem, Symptoms…); else after it (Updates…)."""

    def scan(part: list[_Block]) -> list[str]:
        found: list[str] = []
        for block in part:
            if block.kind == "code":
                found.extend(_signatures_from_code(block))
            elif block.kind == "para":
                found.extend(_signatures_from_text(block))
        return _dedupe(found)

    return scan(blocks[: section[0]]) or scan(blocks[section[1] :])


def _dedupe(signatures: Iterable[str]) -> list[str]:
    """One signature per fingerprint, in order; a signature whose fingerprint is contained
    in another one's (``unexpected argument '-a'`` inside ``error: unexpected argument
    '-a' found``) is the same error quoted shorter and is dropped."""
    unique: dict[str, str] = {}
    for sig in signatures:
        sig = cut_at_word_boundary(_clean_untrusted_line(sig), SIGNATURE_MAX_CHARS)
        fp = error_fingerprint(sig)
        if sig and fp not in unique:
            unique[fp] = sig
    return [
        sig
        for fp, sig in unique.items()
        if not any(fp != other and fp in other for other in unique)
    ]


def _meta_text(meta: dict[str, object], key: str) -> str:
    value = meta.get(key)
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        value = " ".join(str(v) for v in value)
    return _one_line(str(value))


def _short_error(exc: Exception) -> str:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    mark = getattr(exc, "problem_mark", None)
    if mark is not None:
        first = f"{first} (line {mark.line + 1}, column {mark.column + 1})"
    return cut_at_word_boundary(first, 120)


def parse_solution_doc(
    path: Path, text: str, root: Path, *, source_prefix: str = "docs/solutions"
) -> DocOutcome:
    """Turn one solution document into ERROR-FIX entries (SPEC §6), or say why not.

    * frontmatter must parse (else skipped: ``malformed YAML frontmatter: …``) and have
      ``track: bug`` (else skipped: ``track is X, not bug``);
    * fix = the first paragraph under ``## Fix`` / ``## Solution`` (a paragraph ending in
      ``:`` takes the block it introduces), fence-like lines stripped, whitespace collapsed,
      400 chars at a word boundary; no such section → skipped;
    * signatures = literal error strings, exit codes and tool messages found outside the fix
      section — error output blocks (plain/text/console fences, or fences introduced by
      "… fails with:"), inline code spans that are clearly error messages — deduplicated by
      fingerprint, at most three; else the ``problem:`` field, else the title;
    * SOURCE = ``source_prefix`` + the path relative to ``root``; summary = ``problem:`` or
      the title, one line, ≤ 160 chars.

    The document is untrusted: nothing in it is executed or followed.
    """
    path = Path(path)
    try:
        import frontmatter  # imported here: YAML is only needed when seeding

        post = frontmatter.loads(text)
    except Exception as exc:  # yaml.YAMLError and friends: reported per file, never fatal
        return DocOutcome(path, skipped_reason=f"malformed YAML frontmatter: {_short_error(exc)}")
    meta = dict(post.metadata)
    track = _meta_text(meta, "track")
    if track.lower() != "bug":
        return DocOutcome(path, skipped_reason=f"track is {track or 'missing'}, not bug")
    blocks = _blocks(post.content)
    section = _fix_section(blocks)
    if section is None:
        return DocOutcome(path, skipped_reason="no ## Fix or ## Solution section")
    fix = _fix_text(blocks, *section)
    if not fix:
        return DocOutcome(path, skipped_reason="empty ## Fix or ## Solution section")

    problem = _meta_text(meta, "problem")
    title = _meta_text(meta, "title")
    if not title:
        heading = next((b.text for b in blocks if b.kind == "heading" and b.level == 1), "")
        title = _one_line(heading) or path.stem
    summary = cut_at_word_boundary(_clean_untrusted_line(problem or title), SUMMARY_MAX_CHARS)
    signatures = _doc_signatures(blocks, section)[:MAX_SIGNATURES_PER_DOC]
    if not signatures:
        signatures = _dedupe([problem or title])

    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        rel = path.name
    prefix = source_prefix.strip("/")
    source = f"{prefix}/{rel}" if prefix else rel
    entries = tuple(
        ErrorFixEntry(signature=sig, fix=fix, source=source, summary=summary).normalised()
        for sig in signatures
    )
    return DocOutcome(path, entries=entries)
