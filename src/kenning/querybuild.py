"""Recall queries built from a PR, a plan or an error (SPEC §7, the seed's query table).

| context   | query source                                                          | max |
|-----------|-----------------------------------------------------------------------|-----|
| PR review | first 300 chars of the body; fallback: title + file categories +      | 300 |
|           | top 3 file basenames                                                  |     |
| plan/work | text under ``## Overview``; fallback: first 500 chars of the plan body | 500 |
| debugging | the parsed error signature — never a whole stack trace                | 300 |

Raw diffs make poor queries (noisy tokens degrade semantic quality): :func:`reject_diff`
refuses them with a message that says what to pass instead. Everything here is pure.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Sequence
from pathlib import PurePosixPath

from .errors import UserInputError
from .json_reports import as_printed
from .lazyre import lazy
from .log_formats import (
    ANSI,
    BELOW_ERROR,
    QUIET,
    api_error_said,
    json_log_line,
    message_and_error_field,
    said_beside_error,
    without_container_prefix,
)
from .log_window import read_of_log
from .protocol import MAX_QUERY_CHARS
from .remembered import remembered
from .render import sanitise_for_terminal
from .safety import has_visible_text
from .signatures import (
    BARE_ERROR_MESSAGE,
    FAILED_ASSERT,
    RUBY_UNCAUGHT,
    SYSTEM_CALL_ERRORS,
    clean_line,
    extract_error_signature,
    go_test_as_printed_plain,
    leveled_line,
    looks_like_error,
    names_error,
    written_below_error,
)
from .truncation import cut_at_word_boundary

__all__ = [
    "ERROR_QUERY_MAX_CHARS",
    "PLAN_QUERY_MAX_CHARS",
    "PR_QUERY_MAX_CHARS",
    "before_diff",
    "chained_causes",
    "check_query",
    "diff_files",
    "error_fallbacks",
    "error_in_sentence",
    "error_recall_queries",
    "errors_beside_signature",
    "file_categories",
    "is_diff",
    "is_request_line",
    "pasted_api_error",
    "queries_from_error",
    "query_from_error",
    "query_from_plan",
    "query_from_pr",
    "reject_diff",
    "reports_error",
    "without_diffs",
]

PR_QUERY_MAX_CHARS = 300
PLAN_QUERY_MAX_CHARS = 500
ERROR_QUERY_MAX_CHARS = 300
#: The PR fallback names at most this many file basenames.
PR_TOP_FILES = 3

_WS = lazy(r"\s+")
_HTML_COMMENT = lazy(r"<!--.*?(?:-->|$)", re.DOTALL)
_FRONTMATTER = lazy(r"\A\ufeff?---[ \t]*\r?\n.*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)


def _flat(text: str) -> str:
    """One line of the text's words: terminal sequences (colours, OSC titles) and every
    other control or format character (bidi, zero-width) of a PR body or plan left out —
    the query is printed for a shell and sent to the model."""
    return _WS.sub(" ", sanitise_for_terminal(ANSI.sub("", text or ""))).strip()


# --------------------------------------------------------------------------------------------
# Diffs
# --------------------------------------------------------------------------------------------

_DIFF_GIT = lazy(r"^diff --(?:git|cc|combined) \S", re.MULTILINE)
_DIFF_HEADERS = lazy(r"^--- (?:a/|/dev/null|\S).*\r?\n\+\+\+ (?:b/|/dev/null|\S)", re.M)
_HUNK = lazy(r"^@@@? -\d+(?:,\d+)? \+\d+(?:,\d+)? @@@?", re.MULTILINE)
_INDEX_LINE = lazy(r"^index [0-9a-f]{7,}\.\.[0-9a-f]{7,}", re.MULTILINE)


#: Each of a diff's lines above with what every match of it holds: a text without that is
#: not searched (the four searches from each line's start cost ~2 ms a 100 KB log, the
#: four substrings' tests ~0.2 ms; a recall checks every query, a pasted log's too). ``+++``
#: follows the ``---`` line's line break; ``@@@ -`` holds ``@@ -``.
_DIFF_LINES = (
    (_DIFF_GIT, "diff --"),
    (_DIFF_HEADERS, "\n+++ "),
    (_HUNK, "@@ -"),
    (_INDEX_LINE, "index "),
)


def is_diff(text: str) -> bool:
    """Does ``text`` look like a unified diff (``diff --git``, ``---``/``+++``, ``@@`` hunks)?"""
    if not text:
        return False
    return any(held in text and pattern.search(text) for pattern, held in _DIFF_LINES)


def before_diff(text: str) -> str:
    """``text`` up to its first line of a diff (all of it when it holds none): a PR body that
    pastes the diff after its description keeps the description."""
    starts = [
        m.start()
        for pattern, held in _DIFF_LINES
        if held in (text or "") and (m := pattern.search(text or ""))
    ]
    return (text or "")[: min(starts)] if starts else (text or "")


#: A line of a unified diff after its first: a hunk's context (`` ``), added (``+``) and
#: removed (``-``) lines, ``\ No newline…``, hunk headers and git's extended headers.
_DIFF_BODY = lazy(
    r"^(?:[ +\-\\]|@@|diff\s|index\s|(?:new|deleted)\sfile\smode\s|(?:old|new)\smode\s"
    r"|(?:dis)?similarity\sindex\s|(?:rename|copy)\s(?:from|to)\s|Binary\sfiles\s)"
)
_FENCE_LINE = lazy(r"^[^\S\n]*(?:`{3,}|~{3,})")


def without_diffs(text: str) -> str:
    """``text`` with every unified diff pasted in it cut out — its lines, the blank lines
    inside it and a code fence right around it — and everything else kept in order: a
    message that pastes a change and then the error it caused keeps the error (where
    :func:`before_diff` keeps only what comes before the first diff)."""
    if not is_diff(text):
        return text
    lines = text.splitlines()
    kept: list[str] = []
    i = 0
    while i < len(lines):
        if not is_diff("\n".join(lines[i : i + 2])):
            kept.append(lines[i])
            i += 1
            continue
        if kept and _FENCE_LINE.match(kept[-1]):
            kept.pop()  # the fence the diff was pasted in
        i += 1
        while i < len(lines):
            if _DIFF_BODY.match(lines[i]):
                i += 1
                continue
            if lines[i].strip():
                break
            after = i
            while after < len(lines) and not lines[after].strip():
                after += 1
            if after == len(lines) or not _DIFF_BODY.match(lines[after]):
                break  # the diff ended before these blank lines
            i = after
        if i < len(lines) and _FENCE_LINE.match(lines[i]) and not lines[i].strip("`~ \t"):
            i += 1  # its closing fence
    return "\n".join(kept)


_DIFF_FILE = lazy(r"^(?:diff --git a/\S+ b/(\S+)|\+\+\+ b/(\S+))", re.MULTILINE)


def diff_files(text: str) -> list[str]:
    """The files a unified diff changes, in order, once each."""
    found = (a or b for a, b in _DIFF_FILE.findall(text or ""))
    return list(dict.fromkeys(found))


def reject_diff(text: str) -> None:
    """Raise :class:`UserInputError` when ``text`` is a raw diff; say what to pass instead."""
    if is_diff(text):
        raise UserInputError(
            "the query looks like a raw diff; diffs make poor recall queries (noisy tokens "
            "degrade matching). Pass the PR title and description (or the changed file "
            "names), the error message, or a one-line summary of the change instead."
        )


def check_query(text: str) -> None:
    """What every recall and search query must be: text, not empty, not a raw diff."""
    if not isinstance(text, str):
        raise UserInputError(f"the query must be text, got {type(text).__name__}")
    if len(text) > MAX_QUERY_CHARS:
        raise UserInputError(
            f"the query is {len(text)} characters, over the {MAX_QUERY_CHARS} limit; pass the "
            "error's message or signature (`kenning query error` extracts it) or a summary of "
            "the task, not a whole log or file"
        )
    if not text or not has_visible_text(text):  # a zero-width space says nothing either
        raise UserInputError(
            "the query is empty (or only whitespace and invisible characters); pass what you "
            "are about to work on"
        )
    reject_diff(text)


# --------------------------------------------------------------------------------------------
# PR
# --------------------------------------------------------------------------------------------

_LANGUAGES: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".rs": "rust",
    ".go": "go",
    ".java": "java",
    ".kt": "kotlin",
    ".rb": "ruby",
    ".php": "php",
    ".c": "c",
    ".h": "c",
    ".cc": "c++",
    ".cpp": "c++",
    ".hpp": "c++",
    ".cs": "c#",
    ".swift": "swift",
    ".sh": "shell",
    ".bash": "shell",
    ".zsh": "shell",
    ".sql": "sql",
    ".css": "styles",
    ".scss": "styles",
    ".html": "html",
    ".vue": "vue",
    ".svelte": "svelte",
}
_DOC_EXTS = {".md", ".rst", ".txt", ".adoc", ".mdx"}
_CONFIG_EXTS = {".toml", ".yaml", ".yml", ".json", ".ini", ".cfg", ".conf", ".lock", ".env"}
_CONFIG_NAMES = {
    "dockerfile",
    "makefile",
    "justfile",
    "procfile",
    ".gitignore",
    ".gitattributes",
    ".editorconfig",
    ".env",
    ".dockerignore",
    ".npmrc",
    ".nvmrc",
    "package.json",
    "pyproject.toml",
    "cargo.toml",
    "go.mod",
    "go.sum",
}
_CI_PARTS = (".github/workflows/", ".gitlab-ci", ".circleci/", "jenkinsfile", ".buildkite/")
_TEST_PATH = lazy(
    r"(?:^|/)(?:tests?|__tests__|spec|specs|testing)/|(?:^|/)test_[^/]+$|_test\.\w+$|"
    r"\.(?:test|spec)\.\w+$|(?:^|/)conftest\.py$",
    re.IGNORECASE,
)


def _categories_of(path: str) -> list[str]:
    """Categories of one changed file: ci, tests, docs, config, and/or its language."""
    norm = path.strip().replace("\\", "/").removeprefix("./")
    lower = norm.lower()
    name = PurePosixPath(lower).name
    suffix = PurePosixPath(lower).suffix
    cats: list[str] = []
    if any(part in lower for part in _CI_PARTS):
        cats.append("ci")
    if _TEST_PATH.search(lower):
        cats.append("tests")
    if suffix in _DOC_EXTS or lower.startswith("docs/") or "/docs/" in lower:
        cats.append("docs")
    if (suffix in _CONFIG_EXTS or name in _CONFIG_NAMES) and "ci" not in cats:
        cats.append("config")
    lang = _LANGUAGES.get(suffix)
    if lang:
        cats.append(lang)
    return cats


def file_categories(files: Sequence[str]) -> list[str]:
    """Categories of the changed files, most frequent first (ties: first seen)."""
    counts: Counter[str] = Counter()
    first_seen: dict[str, int] = {}
    for path in files:
        for cat in _categories_of(path):
            counts[cat] += 1
            first_seen.setdefault(cat, len(first_seen))
    return sorted(counts, key=lambda c: (-counts[c], first_seen[c]))


def _top_basenames(files: Sequence[str], n: int = PR_TOP_FILES) -> list[str]:
    counts: Counter[str] = Counter()
    first_seen: dict[str, int] = {}
    for path in files:
        name = PurePosixPath(path.strip().replace("\\", "/")).name
        if not name:
            continue
        counts[name] += 1
        first_seen.setdefault(name, len(first_seen))
    return sorted(counts, key=lambda b: (-counts[b], first_seen[b]))[:n]


def query_from_pr(title: str, body: str, files: Sequence[str] = ()) -> str:
    """First 300 chars of the PR body (word boundary); when the body is empty:
    ``<title> — <categories> — <top 3 basenames>`` (each part only when present).

    HTML comments (PR templates) do not count as body text, and neither does a diff pasted
    into it (a raw diff is never a query): the body's text before it is, and the files it
    changes stand in for ``files`` when none are given.
    """
    text = _flat(_HTML_COMMENT.sub(" ", before_diff(body or "")))
    if text:
        return cut_at_word_boundary(text, PR_QUERY_MAX_CHARS)
    parts = [_flat(title)]
    files = [f for f in files if f and f.strip()] or diff_files(body or "")
    cats = file_categories(files)
    if cats:
        parts.append(", ".join(cats))
    # the PR's files are named by whoever wrote it: flattened as its title is
    names = [name for name in (_flat(n) for n in _top_basenames(files)) if name]
    if names:
        parts.append(", ".join(names))
    query = " — ".join(p for p in parts if p)
    if not query:
        raise UserInputError("nothing to build a PR query from: give a title, a body or files")
    return cut_at_word_boundary(query, PR_QUERY_MAX_CHARS)


# --------------------------------------------------------------------------------------------
# Plan
# --------------------------------------------------------------------------------------------

_FENCE = lazy(r"^\s{0,3}(?:`{3,}|~{3,})")
_OVERVIEW = lazy(r"^overview\s*:?$", re.IGNORECASE)


def _overview(text: str) -> str:
    """The text under the first ``Overview`` heading (any level), up to the next heading."""
    # (here: a recall, every hook, imports this module, and needs none of solution_docs)
    from .solution_docs import markdown_heading

    captured: list[str] | None = None
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        heading = None if in_fence else markdown_heading(line)
        if captured is None:
            if heading and _OVERVIEW.match(heading[1]):
                captured = []
            continue
        if heading:
            break
        captured.append(line)
    return "\n".join(captured or [])


def query_from_plan(text: str) -> str:
    """Text under ``## Overview`` (until the next heading); else the first 500 chars of the
    plan body (YAML frontmatter skipped); at most 500 chars, cut at a word boundary."""
    body = before_diff(_FRONTMATTER.sub("", text or "", count=1))
    query = _flat(_HTML_COMMENT.sub(" ", _overview(body)))
    if not query:
        query = _flat(_HTML_COMMENT.sub(" ", body))
    if not query:
        reject_diff(text or "")  # a plan that is only a diff says so
        raise UserInputError("the plan is empty: nothing to build a query from")
    return cut_at_word_boundary(query, PLAN_QUERY_MAX_CHARS)


# --------------------------------------------------------------------------------------------
# Error
# --------------------------------------------------------------------------------------------


def query_from_error(raw: str) -> str:
    """The parsed error signature of ``raw`` (≤ 300 chars): never a whole stack trace, and
    never a diff (refused, saying what to pass). Of a huge log, the part
    :func:`~kenning.log_window.log_window` reads."""
    raw = read_of_log(raw or "")
    reject_diff(raw)
    signature = extract_error_signature(raw)
    if not signature:
        raise UserInputError("the error text is empty: paste the error message or log")
    return cut_at_word_boundary(signature, ERROR_QUERY_MAX_CHARS)


def _is_pasted_error(query: str, errors: bool | None) -> bool:
    if errors is False or sum(1 for line in query.splitlines() if line.strip()) < 2:
        return False
    return bool(errors) or looks_like_error(query)


def queries_of_pasted_error(query: str, errors: bool | None) -> list[tuple[str, bool | None]]:
    """A recall's queries, each with whether it is an error query: a query of several lines
    that is an error (``errors``, or it looks like one, as recall judges it) is a pasted log,
    recalled by its parsed signature and the errors its lines tell in a sentence, each an
    error query of its own (:func:`queries_from_error`, as ``--error`` recalls one), not by
    its first 256 word pieces (frames, the wrong exception: a vector that found the fix at
    0.69 where the signature finds it at 0.90); any other query as it is. A test runner's
    JSON report is read as the text it stands for (:func:`~kenning.json_reports.as_printed`)."""
    query = as_printed(query)
    if not _is_pasted_error(query, errors):
        return [(query, errors)]
    return [(asked, True) for asked in queries_from_error(query)]


def error_recall_queries(
    raw: str,
) -> tuple[list[tuple[str, bool | None]], list[tuple[str, bool | None]]]:
    """The error queries of an error text or log given as one (``kenning recall --error``),
    each with ``True`` (an error query), and the fallbacks of that recall
    (:meth:`~kenning.store.MemoryStore.recall_many`): its signature and the errors its lines
    tell in a sentence (:func:`queries_from_error`), and the causes its chain prints and the
    errors its warnings name above its crash (:func:`error_fallbacks`), as
    :meth:`~kenning.store.MemoryStore.recall_many` asks a pasted log's; one line is read as
    an error too. Of a huge log, the part :func:`~kenning.log_window.log_window` reads (its
    head, its errors, its tail)."""
    # (a test runner's JSON report: the failures it stands for)
    raw = as_printed(read_of_log(raw))
    queries: list[tuple[str, bool | None]] = [(error, True) for error in queries_from_error(raw)]
    asked = {query for query, _ in queries}
    return queries, [(error, True) for error in error_fallbacks(raw, asked)]


def fallbacks_of_pasted_error(
    query: str, errors: bool | None, asked: Collection[str] = ()
) -> list[tuple[str, bool | None]]:
    """The fallback queries of a recall (:meth:`~kenning.store.MemoryStore.recall_many`:
    their hits compete for the places after its queries' best hit): of a pasted log
    (:func:`queries_of_pasted_error`), the causes its chain prints and the errors its warnings
    name (:func:`error_fallbacks`); of any other query, none."""
    query = as_printed(query)
    if not _is_pasted_error(query, errors):
        return []
    return [(error, True) for error in error_fallbacks(query, asked)]


def error_fallbacks(raw: str, asked: Collection[str] = ()) -> list[str]:
    """The fallback queries of an error text or log (:meth:`~kenning.store.MemoryStore.
    recall_many`: the cause's fix after the crash's, never in its place): the causes its
    chain prints (:func:`chained_causes`), then the errors its warnings name above its
    crash (:func:`warned_errors`); none that ``asked`` holds, and one error once."""
    causes = chained_causes(raw, asked)
    return [*causes, *warned_errors(raw, {*asked, *causes})]


#: At most this many causes of a chained error are asked (each costs a query's embedding).
MOST_CAUSES_ASKED = 3
#: At most this many lines above a chain's line are read for the error it follows, and
#: at most this many chain's lines, the last (each error read costs ~1 ms: a 64 KB prompt of
#: 64 chains of three took 0.15 s).
CAUSE_LINES_READ = 400
CHAIN_LINES_READ = 20
#: Python's line between two tracebacks of a chain: the one above is the cause of the one
#: below (``raise … from exc``), or the error being handled when it was raised; behind a
#: log's or a container's prefix, or an exception group's ``|`` margin.
_PYTHON_CHAIN = lazy(
    r"(?:^|[\s|>])(?:The above exception was the direct cause of the following exception"
    r"|During handling of the above exception, another exception occurred):[^\S\n]*$"
)
#: A Python traceback's first line (an exception group's too).
_TRACEBACK_HEADER = lazy(r"(?:^|[\s|+>])Traceback \(most recent call last\):[^\S\n]*$")
#: Python's exception group is printed in a box: its lines behind ``|`` gutters, a rule
#: before each sub-exception (``+-+---------------- 1 ----------------``) and after its last;
#: its own error (``ExceptionGroup: unhandled errors in a TaskGroup (2 sub-exceptions)``)
#: says nothing of its own.
_GROUP_MARGIN = lazy(r"^[ \t]*(?:\|[ \t]?)+")
_GROUP_RULE = lazy(r"^[ \t]*\+[-+]*-[-+ \t\d.]*$")
_GROUP_ERROR = lazy(r"(?:(?:Base)?ExceptionGroup|AggregateError)\b")
#: anyhow's (and cargo's) ``Caused by:`` on a line of its own, the causes indented under it,
#: numbered when there are several (``    0: could not read config.toml``).
_CAUSED_BY_ALONE = lazy(r"^[ \t]*Caused by:[ \t]*$")
_NUMBERED_CAUSE = lazy(r"^[ \t]+\d+:[ \t]+(\S.*)$")


def chained_causes(raw: str, asked: Collection[str] = ()) -> list[str]:
    """The causes a chained error prints beside the error it ends with (its signature,
    :func:`query_from_error`), each a query, the root cause first:

    * Python's tracebacks before ``The above exception was the direct cause of the following
      exception:`` or ``During handling of the above exception, another exception
      occurred:`` (the first is the root cause: ``raise RuntimeError("could not start the
      app") from exc`` ends the traceback, its cause, ``psycopg2.OperationalError: …``, is
      printed first; ``raise … from None`` prints no chain); the last chain of the text
      first (most often the crash's);
    * the list under a ``Caused by:`` alone on its line, as Rust's anyhow prints an error's
      causes (``    0: could not read config.toml``, ``    1: No such file or directory (os
      error 2)``, or one unnumbered) and cargo its own (a ``Caused by:`` each): its last is
      the root;
    * the other sub-exceptions of a Python exception group (``+-+---- 1 ----`` before each;
      its last is the signature);
    * a Java trace's exception and its ``Caused by:`` lines, and a Node error and the
      ``[cause]:`` under it (``new Error(msg, { cause })``): their root (the last ``Caused
      by:``, the innermost ``[cause]:``) is the signature, so the outermost error is asked
      next (Spring's ``BeanCreationException``, the app's own), then those between, the
      root's side first (:func:`_in_chain_order`); the last trace first;
    * the other errors a Node ``AggregateError`` lists under ``[errors]: [`` (not the
      ``AggregateError`` itself);
    * a .NET exception and the inner ones after its `` ---> ``, and an ``AggregateException``'s
      other inner exceptions (:func:`_dotnet_causes`): the innermost is the signature, the
      outermost asked next, as Java's.

    At most :data:`MOST_CAUSES_ASKED`, an error once, and none that ``asked`` holds (of the
    same kind, :func:`_error_kind`). Of a huge log, the part
    :func:`~kenning.log_window.log_window` reads."""
    text = as_printed(read_of_log(raw))
    lines = text.splitlines()
    group = "Exception Group Traceback" in text
    if group:  # (its lines behind the box's gutters, as the signature reads them)
        lines = [_GROUP_MARGIN.sub("", line, count=1) for line in lines]
    causes: list[Iterable[str]] = [_python_causes(lines), _causes_listed(lines)]
    if group:
        causes.append(_group_members(lines))
    # (a Java or Node chain's errors are read as they are asked: a log of 40 Spring traces
    # read each trace's three)
    if "Caused by:" in text:
        causes.append(_java_causes(lines))
    if "[cause]:" in text:
        causes.append(_node_causes(lines))
    if "[errors]:" in text:
        causes.append(_aggregated_errors(lines))
    if "--->" in text:
        causes.append(_dotnet_causes(lines))
    known = {_error_kind(query) for query in asked}
    found: dict[str, str] = {}
    for error in itertools.chain.from_iterable(causes):
        if len(found) >= MOST_CAUSES_ASKED:
            break
        kind = _error_kind(error)
        if error not in asked and kind not in known and not _GROUP_ERROR.match(error):
            found.setdefault(kind, error)
    return list(found.values())[:MOST_CAUSES_ASKED]


def _error_of(lines: Sequence[str]) -> str | None:
    """The signature of ``lines`` (:func:`query_from_error`); None when they hold none."""
    try:
        return query_from_error("\n".join(lines))
    except UserInputError:
        return None


def _python_causes(lines: Sequence[str]) -> list[str]:
    """The causes of the Python chains among ``lines`` (:func:`chained_causes`): of the last
    chain first, each chain's root first."""
    marks = [
        i
        for i, line in enumerate(lines)
        if "above exception" in line and _PYTHON_CHAIN.search(line) is not None
    ]
    chains: list[list[str]] = []
    # the chain's line before (none yet); the nearest the crash are read
    above = marks[-CHAIN_LINES_READ - 1] if len(marks) > CHAIN_LINES_READ else -1
    for mark in marks[-CHAIN_LINES_READ:]:
        start = max(above + 1, mark - CAUSE_LINES_READ)
        headers = [i for i in range(start, mark) if _TRACEBACK_HEADER.search(lines[i])]
        if not chains or len(headers) > 1 or above < start - 1:
            chains.append([])  # (more than one traceback since the chain's line before)
        above = mark
        error = _error_of(lines[headers[-1] if headers else start : mark])
        if error is not None and _an_error_of_its_own(error, _SYSTEM_ERROR):
            chains[-1].append(error)
    return [error for chain in reversed(chains) for error in chain]


def _causes_listed(lines: Sequence[str]) -> list[str]:
    """The causes listed under each ``Caused by:`` alone on its line among ``lines``
    (:func:`chained_causes`): the last first. Each is one of the indented lines after it (up
    to a blank line or one that is not indented), numbered (anyhow's ``    0: …``) or not
    (anyhow's one cause, cargo's), with the lines indented under it that go on with it; not
    a generic one (:func:`_generic_cause`)."""
    causes: list[str] = []
    heads = [i for i, line in enumerate(lines) if "Caused by:" in line]
    for head in heads[-CHAIN_LINES_READ:]:
        if _CAUSED_BY_ALONE.match(without_container_prefix(lines[head])) is None:
            continue
        items: list[str] = []
        for line in lines[head + 1 : head + 1 + CAUSE_LINES_READ]:
            line = without_container_prefix(line)
            if not line.strip() or not line[:1].isspace():
                break
            numbered = _NUMBERED_CAUSE.match(line)
            if numbered is not None or not items:
                items.append((numbered[1] if numbered else line).strip())
            else:  # (a message of several lines)
                items[-1] = f"{items[-1]} {line.strip()}"
        # (its last, the root's side, are read)
        causes += [e for item in items[-CHAIN_LINES_READ:] if (e := _error_of([item])) is not None]
    return [cause for cause in causes[::-1] if not _generic_cause(cause)]


#: A listed cause of fewer words than this that names no error says nothing of its own.
_CAUSE_WORDS = 3


def _generic_cause(cause: str) -> bool:
    """Whether a listed cause is a phrase any error could end with (``timed out``, an
    io::Error of its kind alone): asked, it found the fix of whatever else timed out (on a
    store of the eval data, ruff's TimeoutError rule at 0.65 for a Rust health check), and
    no fix is stored under it alone; an OS error with its code (``No such file or directory
    (os error 2)``) or a context (``could not read config.toml``) is no such phrase."""
    return len(_WORD.findall(cause)) < _CAUSE_WORDS and not names_error(cause)


#: Java's cause under an exception's frames, on the line after them (not anyhow's ``Caused
#: by:`` alone on its line); an exception that starts a trace, behind a thread's words.
_JAVA_CAUSED_BY = lazy(r"^[ \t]*Caused[ \t]by:[ \t]+\S")
_JAVA_THREAD = lazy(r'^Exception[ \t]in[ \t]thread[ \t]"[^"\n]*"[ \t]+')
#: Node's cause among an error's properties, its depth by its indent (``  [cause]: Error: …``),
#: a frame of its trace (``    at main (/app/cause.js:2:68) {``) and the list an
#: ``AggregateError`` prints its errors in (``  [errors]: [``).
_NODE_CAUSE_AT = lazy(r"^([ \t]*)\[cause\]:[ \t]+\S")
_NODE_FRAME = lazy(r"^[ \t]+at[ \t]")
_NODE_ERRORS_AT = lazy(r"^([ \t]*)\[errors\]:[ \t]\[$")
#: (an error of the list, a line at its items' indent: ``    TypeError: Cannot read …``)
_NODE_LISTED_ERROR = lazy(r"(?:[A-Z][\w$]*)?Error(?:[ \t]\[[A-Z][A-Z0-9_]*\])?:[ \t]+\S")


def _in_chain_order(chains: Sequence[Sequence[int]], lines: Sequence[str]) -> Iterator[str]:
    """The errors of ``chains`` (each the line numbers of a chain's errors, the outermost
    first, its root cause last), as :func:`chained_causes` asks them
    (:func:`_chains_in_order`)."""
    return _chains_in_order(
        [[without_container_prefix(lines[at]) for at in errors] for errors in chains]
    )


def _chains_in_order(chains: Sequence[Sequence[str]], named: bool = False) -> Iterator[str]:
    """The errors of ``chains`` (each a chain's errors as printed, the outermost first, its
    root cause last), as :func:`chained_causes` asks them: the last chain first; of each, its
    root, its outermost error, then the causes between them, the root's side first (Java's,
    Node's and .NET's signature is the root: their outer error, the app's own or Spring's
    ``BeanCreationException``, is the next asked). ``named``: each error is known to name
    its exception (.NET's by its class, ``Foo+BarException`` too), none is a line of no
    error."""
    read: set[str] = set()  # (a trace logged again, a retry's, is read once)
    for errors in reversed(chains):
        ordered = [errors[-1], errors[0], *reversed(errors[1:-1])] if len(errors) > 1 else errors
        for line in ordered:
            if line in read:
                continue
            read.add(line)
            error = _error_of([line])
            if error is not None and (named or _an_error_of_its_own(error, _SYSTEM_ERROR)):
                yield error


def _java_causes(lines: Sequence[str]) -> Iterator[str]:
    """The errors of the Java traces among ``lines`` that print causes (:func:`chained_causes`):
    each trace's exception (``Exception in thread "main" java.lang.IllegalStateException:
    could not start the app``, or one a logger printed under its record) and each ``Caused
    by:`` under it, a ``Caused by:`` after the frames (``\tat …``, ``\t... 3 more``) of the
    one before it, at its indent (a ``Suppressed:`` exception's causes are printed deeper,
    their chain asked after the trace's own); a message of several lines is read by its
    first. Not a trace a logger printed under a record below an error's level."""
    heads = [i for i, line in enumerate(lines) if "Caused by:" in line]
    causes = [i for i in heads if _JAVA_CAUSED_BY.match(without_container_prefix(lines[i]))]
    chains: list[list[int]] = []
    ending: dict[int, list[int]] = {}  # each chain by its last line
    for at in causes[-CHAIN_LINES_READ:]:
        depth = _indent(without_container_prefix(lines[at]).expandtabs())
        j = at - 1
        floor = max(0, at - CAUSE_LINES_READ)
        # (over the frames, and the suppressed exceptions printed deeper, with their causes)
        while j > floor:
            line = without_container_prefix(lines[j]).expandtabs()
            if not (_JAVA_FRAME.match(line) or (line.strip() and _indent(line) > depth)):
                break
            j -= 1
        # (a message of several lines: its first, the exception's, within a few lines)
        for k in range(j, max(floor, j - RECORD_LINES_READ) - 1, -1):
            line = without_container_prefix(lines[k]).expandtabs()
            if not line.strip() or _JAVA_FRAME.match(line) or _indent(line) > depth:
                break
            line = _JAVA_THREAD.sub("", line.lstrip())
            if _JAVA_CAUSED_BY.match(line) or _JAVA_EXCEPTION.match(line):
                j = k
                break
        if j in ending:
            chain = ending.pop(j)
            chain.append(at)
            ending[at] = chain
        elif j < at and lines[j].strip():
            chains.append([j, at])
            ending[at] = chains[-1]
    # (a trace's own chain before the chains of the exceptions it suppressed, printed deeper;
    # the last trace's first)
    chains.sort(key=lambda c: (_indent(without_container_prefix(lines[c[-1]])) == 0, c[-1]))
    # (a trace a logger printed under a warning is that warning's, asked as one, and under
    # DEBUG or INFO a handled error's: :func:`warned_errors`)
    levels = _LevelsRead()
    return _in_chain_order(
        [
            c
            for c in chains
            if _record_level(lines, c[0], _own_level(lines, c[0], levels), levels)
            not in BELOW_ERROR
        ],
        lines,
    )


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _node_causes(lines: Sequence[str]) -> Iterator[str]:
    """The errors of the Node errors among ``lines`` that print a ``[cause]:`` (``new
    Error(msg, { cause })``, fetch's): each error, and each cause under it, a cause the
    error of the nearest line above it that is less indented and no frame."""
    marks = [i for i, line in enumerate(lines) if "[cause]:" in line]
    chains: list[list[int]] = []
    for at in marks[-CHAIN_LINES_READ:]:
        line = without_container_prefix(lines[at])
        cause = _NODE_CAUSE_AT.match(line)
        if cause is None:
            continue
        depth = len(cause[1].expandtabs())
        parent = None
        for j in range(at - 1, max(-1, at - CAUSE_LINES_READ - 1), -1):
            above = without_container_prefix(lines[j])
            shallower = above.strip() and _indent(above.expandtabs()) < depth
            if shallower and not _NODE_FRAME.match(above):
                parent = j
                break
        if parent is None:
            continue
        if chains and chains[-1][-1] == parent:
            chains[-1].append(at)
        else:
            chains.append([parent, at])
    return _in_chain_order(chains, lines)


#: .NET's inner exception after `` ---> `` (``Exception.ToString()``): on a line of its own
#: under the outer one's message (.NET Core and later) or on the outer one's line (.NET
#: Framework, Mono); a nested class by ``+`` (``SocketExceptionFactory+ExtendedSocketException``).
#: An ``AggregateException``'s other inner exceptions after its frames, each `` ---> (Inner
#: Exception #1) …<---``. (No ``[\w$.+]*`` here is followed by what it could hold, and none
#: starts inside another's run: linear on any line.)
_DOTNET_ARROW = lazy(r"(?:^|[^\S\n])--->[^\S\n]+(?=[A-Za-z_][\w$.+]*(?:Error|Exception)\b)")
_DOTNET_MEMBER = lazy(r"^[^\S\n]*--->[^\S\n]+\(Inner[^\S\n]Exception[^\S\n]#\d+\)[^\S\n]*")
#: The outer exception's line a `` ---> `` line is under (``Unhandled exception.
#: System.InvalidOperationException: could not start the server``), and the lines that end
#: a message (a frame, ``--- End of inner exception stack trace ---``).
_DOTNET_EXCEPTION = lazy(
    r"(?<!\S)(?:[A-Za-z_][\w$]*\.)*[A-Z][\w$+]*(?:Exception|Error)\b"
    r"(?:[^\S\n]\(\w+\))?(?::[^\S\n]|:?$)"
)
_DOTNET_AGGREGATE = lazy(r"^(?:System\.)?AggregateException:")
_DOTNET_TRACE_LINE = lazy(r"^[^\S\n]*(?:at[^\S\n]|---[^\S\n>])")


def _dotnet_causes(lines: Sequence[str]) -> Iterator[str]:
    """The errors of the .NET exceptions among ``lines`` that print inner ones
    (:func:`chained_causes`): each exception and the inner ones after its `` ---> ``, on its
    line or each on a line of its own under its message (its message's other lines between),
    as :func:`_in_chain_order` asks them (the innermost is the signature, the outermost is
    asked next), the last chain first; then an ``AggregateException``'s other inner
    exceptions (`` ---> (Inner Exception #1) …<---``), in order, not the
    ``AggregateException`` itself. Not an exception a logger printed under a record below an
    error's level (``warn:``, ``info:``)."""
    marks = [i for i, line in enumerate(lines) if "--->" in line][-CHAIN_LINES_READ:]
    chains: list[tuple[int, list[str]]] = []  # (each chain's outer line, its errors)
    ending: dict[int, list[str]] = {}  # each chain's errors by its last line
    members: list[str] = []
    for at in marks:
        line = without_container_prefix(lines[at])
        member = _DOTNET_MEMBER.match(line)
        if member is not None:
            listed = _DOTNET_ARROW.split(line[member.end() :])[0].strip().removesuffix("<---")
            if _DOTNET_EXCEPTION.match(listed):
                members.append(listed.strip())
            continue
        parts = [part.strip() for part in _DOTNET_ARROW.split(line)]
        if len(parts) < 2:
            continue  # (no exception after the arrow)
        if parts[0]:
            # (the outer exception and its inner ones on one line: the outer from its class,
            # not Mono's "[ERROR] FATAL UNHANDLED EXCEPTION: "; of a long chain, its last
            # inner ones, the root's side)
            head = _DOTNET_EXCEPTION.search(parts[0])
            inner = parts[1:][-CHAIN_LINES_READ:]
            parts = [parts[0][head.start() :], *inner] if head else inner
            chains.append((at, parts))
            ending[at] = parts
            continue
        # (an inner exception on a line of its own: the exception above it, over the lines
        # of its message, is its outer one, or the inner one before it in the chain)
        for j in range(at - 1, max(-1, at - RECORD_LINES_READ - 1), -1):
            above = without_container_prefix(lines[j])
            if not above.strip() or _DOTNET_TRACE_LINE.match(above):
                break
            if j in ending:
                ending[at] = ending.pop(j)
                ending[at] += parts[1:]
                break
            outer = _DOTNET_EXCEPTION.search(above) if "--->" not in above else None
            if outer is not None:  # (from its class: not "Unhandled exception. ")
                chains.append((j, [above[outer.start() :].strip(), *parts[1:]]))
                ending[at] = chains[-1][1]
                break
    levels = _LevelsRead()
    kept = [
        errors[1:] if _DOTNET_AGGREGATE.search(errors[0]) else errors
        for at, errors in chains
        if _record_level(lines, at, _own_level(lines, at, levels), levels) not in BELOW_ERROR
    ]
    yield from _chains_in_order(kept, named=True)
    for listed in members:
        error = _error_of([listed])
        if error is not None:
            yield error


def _aggregated_errors(lines: Sequence[str]) -> list[str]:
    """The errors Node's ``AggregateError`` lists under its ``[errors]: [`` among ``lines``
    (:func:`chained_causes`), in order: each line at the list's items' indent that is an
    error (its frames, properties and causes are further in); the ``AggregateError`` itself
    is none (its message, when it has one, says that some failed)."""
    errors: list[str] = []
    marks = [i for i, line in enumerate(lines) if "[errors]:" in line][-CHAIN_LINES_READ:]
    for at in marks:
        listed = _NODE_ERRORS_AT.match(without_container_prefix(lines[at]))
        if listed is None:
            continue
        items = len(listed[1].expandtabs()) + 2
        for line in lines[at + 1 : at + 1 + CAUSE_LINES_READ]:
            line = without_container_prefix(line).expandtabs()
            if line.strip() and _indent(line) < items:
                break  # (the list's end: "  ]")
            if _indent(line) == items and _NODE_LISTED_ERROR.match(line.strip()):
                error = _error_of([line.strip().removesuffix(",")])
                if error is not None:
                    errors.append(error)
                if len(errors) >= CHAIN_LINES_READ:
                    return errors
    return errors


def _group_members(lines: Sequence[str]) -> list[str]:
    """The error each sub-exception of a Python exception group among ``lines`` ends with
    (:func:`chained_causes`), in order: the lines after each numbered rule (``+-+---- 1
    ----``) up to the next rule."""
    rules = [i for i, line in enumerate(lines) if _GROUP_RULE.match(line)][:CHAIN_LINES_READ]
    members: list[str] = []
    for at, end in zip(rules, [*rules[1:], len(lines)], strict=False):
        if any(c.isdigit() for c in lines[at]):
            error = _error_of(lines[at + 1 : min(end, at + 1 + CAUSE_LINES_READ)])
            if error is not None and _an_error_of_its_own(error, _SYSTEM_ERROR):
                members.append(error)
    return members


#: At most this many errors of a log's warnings are asked (each costs a query's embedding,
#: ~6 ms on 2 cores).
MOST_WARNED_ASKED = 3
#: At most this many warnings above a log's crash are read (the nearest are the likeliest
#: causes; each costs ~0.5 ms: a 10,000-line log took 7 s, qa-s62c H8), among at most
#: :data:`LINES_READ_FOR_WARNINGS` lines (an access log's INFO lines between them, J4).
WARNED_LINES_READ = 400
LINES_READ_FOR_WARNINGS = 2000
#: What a retry's warning says after its error: ``; retrying (2/3)``, ``, retrying in 2s``,
#: ``(attempt 2/5)``; not the error's (its fix was found by words at 0.87, not exactly).
_RETRY_TAIL = lazy(
    # (from a run of spaces' first only, and without giving any back: from each space of a
    # run of 20,000 it took 11 s, qa-s63c P6)
    r"(?:[;,][^\S\n]*+|(?<![^\S\n])[^\S\n]++)\(?(?:retrying|will[^\S\n]+retry"
    r"|retry(?:ing)?[^\S\n]+in|attempt[^\S\n]+\d)\b[^\n]*$"
    r"|(?<![^\S\n])[^\S\n]*+\(\d+/\d+\)[^\S\n]*+$",
    re.IGNORECASE,
)


def warned_errors(raw: str, asked: Collection[str] = ()) -> list[str]:
    """The errors a log's lines written below an error's level name above its crash (a
    retry's ``WARNING db: connect failed: psycopg.OperationalError: …`` above ``ERROR app:
    RuntimeError: database not ready after 3 attempts``), nearest the crash first, at most
    :data:`MOST_WARNED_ASKED`: a warning's error is not the log's (its signature is the
    crash, :func:`written_below_error`), but may be the cause the crash's give-up does not
    name, whose fix is wanted after the crash's. Each is its query (:func:`query_from_error`)
    from its exception on (not the logger's name before it), without a retry's words after it
    (``; retrying (2/3)``), and is an error of its own (:func:`_an_error_of_its_own`: not
    ``app: ERROR`` nor a traceback's header); one error is asked once (a retry warned of
    three times, against three hosts), and none that ``asked`` holds (the crash's own,
    warned of before it was given up on). A warning after the crash (a shutdown's broken
    pipe), one logged at DEBUG or INFO (a handled error) and one more than
    :data:`WARNED_LINES_READ` lines above it are not its cause. Of a huge log, the part
    :func:`~kenning.log_window.log_window` reads."""
    lines = as_printed(read_of_log(raw)).splitlines()
    levels = _LevelsRead()  # each line's own level and indentation, read once
    crash = next(
        (
            i
            for i in range(len(lines) - 1, -1, -1)
            # (the level first: most of a log's lines are below an error's, and cheaper so)
            if _record_level(lines, i, _own_level(lines, i, levels), levels) not in BELOW_ERROR
            and reports_error(lines[i])
        ),
        len(lines),
    )
    known = {_error_kind(query) for query in asked}
    found: dict[str, str] = {}
    read: set[str] = set()  # a message warned of again (its numbers another) is read once
    warnings = 0
    for i in range(crash - 1, max(0, crash - LINES_READ_FOR_WARNINGS) - 1, -1):
        if len(found) >= MOST_WARNED_ASKED or warnings >= WARNED_LINES_READ:
            break
        line = lines[i]
        text, own = leveled_line(line)
        level = _record_level(lines, i, own, levels)
        if level not in BELOW_ERROR:
            continue
        seen = _DIGITS.sub("#", text)  # (its numbers another: a retry's count, a port)
        if seen in read or level == QUIET:  # (a handled error, logged at DEBUG or INFO)
            continue
        read.add(seen)
        warnings += 1
        if not (reports_error(line) or names_error(text)):
            continue  # (names_error: PG::ConnectionBad)
        said = said_beside_error(line)
        # A retry is never handled: its error is the one the crash gives up on; and its
        # reset is its peer's (the database, an upstream), not a client's going away, which
        # a server logs and carries on from (qa-s63b N7; gunicorn.error's, nginx's "… while
        # sending to client": qa-s66b F9)
        retried = _retried(text, said)
        if not retried and (
            _handled(text, said) or (_CLIENT_GONE_SAID.search(text) and _TO_A_CLIENT.search(text))
        ):
            continue
        system_error = _SYSTEM_ERROR_RETRIED if retried else _SYSTEM_ERROR
        # (errors_on_line's of a line below an error's level, from the text read above)
        told = [error for error in errors_in_sentence(text)[1] if error != line]
        for error in told or [line]:
            try:
                query = _warned_query(query_from_error(error), system_error)
            except UserInputError:
                continue
            kind = _error_kind(query)
            if (
                _an_error_of_its_own(query, system_error)
                and query not in asked
                and kind not in known
            ):
                found.setdefault(kind, query)
    return list(found.values())[:MOST_WARNED_ASKED]


#: At most this many lines above an indented line are read for the line that leads its
#: record (.NET's ``warn:`` line over its message and exception).
RECORD_LINES_READ = 50


class _LevelsRead:
    """What :func:`_record_level` read of the lines of one text, each line once: the level
    its own prefix says (:func:`_own_level`) and its indentation behind its container's
    prefix (-1: a blank line). A record's line is looked for up to :data:`RECORD_LINES_READ`
    lines above each indented line, and a trace's frames are each such a line: each read the
    same lines above it again (~0.6 µs a line: test_log_window's logs read 675k lines so,
    128k once each; warned_errors and chained_causes of them ~24 % less CPU)."""

    __slots__ = ("depths", "own")

    def __init__(self) -> None:
        self.own: dict[int, str | None] = {}
        self.depths: dict[int, int] = {}


def _own_level(lines: Sequence[str], at: int, levels: _LevelsRead) -> str | None:
    """The level ``lines[at]``'s own prefix says, read once (``levels`` keeps it)."""
    own = levels.own
    if at not in own:
        own[at] = leveled_line(lines[at])[1]
    return own[at]


def _record_level(
    lines: Sequence[str], at: int, own: str | None, levels: _LevelsRead
) -> str | None:
    """The level ``lines[at]`` was written at: ``own``, the level its prefix says, or the
    level of the line its record starts with (the nearest line less indented) when it is
    indented under one without a level of its own (.NET's message and exception under
    ``warn:`` or ``fail:``, as :func:`~kenning.signatures.extract_error_signature` reads
    them), or a Java exception right under it, as log4j and logback print a record's
    exception, unindented, on the lines after its message (:func:`_java_record_level`)."""
    line = without_container_prefix(lines[at])
    if own is not None:
        return own
    if not line[:1].isspace():
        return _java_record_level(lines, at, levels) if _JAVA_EXCEPTION.match(line) else None
    # (the nearest line less indented: a log pasted as a markdown code block is indented
    # whole, its records' leading lines too, N4)
    indent = len(line) - len(line.lstrip())
    depths = levels.depths
    for j in range(at - 1, max(0, at - RECORD_LINES_READ) - 1, -1):
        depth = depths.get(j)
        if depth is None:
            above = without_container_prefix(lines[j])
            depth = depths[j] = len(above) - len(above.lstrip()) if above.strip() else -1
        if depth < 0:
            return None
        if depth < indent:
            level = _own_level(lines, j, levels)
            if level is not None or depth == 0:
                return level
            indent = depth  # (an inner exception under its outer one: " ---> …", P1)
    return None


#: A Java exception's line as log4j and logback print it under a record's message: its
#: class by its package's name (``java.net.ConnectException: …``), or a cause of it.
_JAVA_EXCEPTION = lazy(
    r"^(?:Caused[^\S\n]by:[^\S\n]|Suppressed:[^\S\n])?[a-z][\w$]*(?:\.[\w$]+)+"
    r"(?:Exception|Error|Throwable)(?::[^\S\n]|$)"
)
#: A Java stack trace's frame (``\tat com.example.Pool.open(Pool.java:42)``, ``... 3 more``).
_JAVA_FRAME = lazy(r"^[^\S\n]+(?:at[^\S\n]|\.\.\.[^\S\n]\d+[^\S\n](?:more|common))")


def _java_record_level(lines: Sequence[str], at: int, levels: _LevelsRead) -> str | None:
    """The level of the log line a Java exception at ``lines[at]`` was printed under: the
    nearest line above it that is neither another exception of its chain nor a frame, when
    it says a level; None for an exception that no leveled line leads (a crash of its own,
    a Python traceback's last line: its frames are no Java frames)."""
    for j in range(at - 1, max(0, at - RECORD_LINES_READ) - 1, -1):
        above = without_container_prefix(lines[j])
        if _JAVA_FRAME.match(above) or _JAVA_EXCEPTION.match(above):
            continue
        return _own_level(lines, j, levels) if above.strip() else None
    return None


def _an_error_of_its_own(query: str, system_error: re.Pattern[str]) -> bool:
    """Whether a warning's query names an error (an exception, a tool's error line) or tells
    one in words (Go's ``dial tcp …: connect: connection refused``, qa-s62c H1), not only a
    level or a traceback's header (``app: ERROR``, ``Error: 2024-05-02T09:14:02Z``)."""
    if names_error(query):
        return True
    # (an error's chain of causes, "…: connect: …": not a warning that names the ERROR level
    # or uncaught exceptions in a sentence, qa-s62d J5)
    body = _LEADING_LOGGER.sub("", query, count=1)
    return (
        (system_error.match(body) is not None or (looks_like_error(query) and ": " in body))
        and len(_WORD.findall(query)) >= 3
        and "Traceback (most recent call last)" not in query
    )


#: A word of a message, in lower case (Hibernate's "SQL Error: 0, SQLState: 08001" has none).
_WORD = lazy(r"\b[a-z]{2,}\b")
_DIGITS = lazy(r"\d+")
_LEADING_LOGGER = lazy(r"^[\w.]+:[^\S\n]+")
#: A system call's error told first (``Connection refused by redis at …``, qa-s62e K3); not
#: a client's going away, which a server logs and carries on (``Broken pipe while sending
#: response``, ``Connection reset by peer``, qa-s62f L6).
_CLIENT_GONE = ("Connection reset by peer", "Broken pipe")
_SYSTEM_ERRORS = (*SYSTEM_CALL_ERRORS, "No such file or directory", "Permission denied")
_SYSTEM_ERROR = lazy(
    "(?i:"
    + "|".join(error.replace(" ", r"\s") for error in _SYSTEM_ERRORS if error not in _CLIENT_GONE)
    + r")\b"
)
#: A server's warning that a client went away, whatever its logger is called
#: (``gunicorn.error: Broken pipe while sending response``, nginx's ``writev() failed (32:
#: Broken pipe) while sending to client``): no crash's cause.
_CLIENT_GONE_SAID = lazy(r"(?i:broken\s+pipe|connection\s+reset\s+by\s+peer)")
_TO_A_CLIENT = lazy(
    # (not "redis client: …", an app's client reset by its server; nor nginx's "while sending
    # request to upstream, client: …", the upstream's)
    r"(?i:\bwhile\s+sending\s+(?:the\s+)?response\b|\b(?:to|from)\s+(?:the\s+)?client\b"
    r"|\bclient\s+request\b)"
)
#: ... and in a retry's warning, the client's too: its peer went away (qa-s63b N7).
_SYSTEM_ERROR_RETRIED = lazy(
    "(?i:" + "|".join(error.replace(" ", r"\s") for error in _SYSTEM_ERRORS) + r")\b"
)
#: A warning that says what was done about its error (qa-s62f L6), handled and no crash's
#: cause: in a clause of its own after the error (``…, metrics disabled``, ``…; ignoring``,
#: ``…. Falling back to …``, ``… - closing socket quietly``), or in parentheses at its end
#: (``(continuing without cache)``), or first (``skipping plugin x: …``, ``falling back to
#: …: <error>``); in a structured line's message beside its error field as well (``msg="redis
#: ping failed, cache disabled" err=…``); not in the error's own words (``… API … is
#: disabled. Enable it at https://…``, ``(3 items skipped)``, qa-s63b N1). A retry is never
#: handled: its error is the one the crash gives up on.
_HANDLING = (
    r"(?i:disabl(?:ed|ing)|ignor(?:ed|ing)|skipp(?:ed|ing)|continuing|quietly"
    r"|fall(?:ing|s)?\s+back|fell\s+back|using\s+(?:the\s+)?defaults?)"
)
#: ... what the program does about it: after a sentence's end, a dash, in parentheses or
#: first, only these (an error's own last sentence says a state: "User account is
#: disabled", "- request ignored by upstream", qa-s63d Q2).
_HANDLING_NOW = (
    r"(?i:disabling|ignoring|skipping|continuing|quietly|fall(?:ing|s)?\s+back|fell\s+back"
    r"|using\s+(?:the\s+)?defaults?)"
)
#: ... or a state its clause ends on, no copula before it (``…. Plugin disabled.``, ``… -
#: upload skipped``), or first with a colon (``Ignored: ConnectionResetError: …``): not an
#: error's own ``Billing is disabled``, ``request ignored by upstream`` (qa-s63e R6).
_HANDLED_STATE = r"(?i:disabled|ignored|skipped)"
_HANDLED_AFTER = lazy(
    r"(?:[,;][^\S\n]++(?=[^,;:()\n]{0,80}$)[^,;:()\n]*?\b" + _HANDLING + r"\b"
    r"|(?:\.(?=\s)|[^\S\n]-)[^\S\n]++(?=[^,;:()\n]{0,80}$)[^,;:()\n]*?\b" + _HANDLING_NOW + r"\b"
    r"|(?:\.(?=\s)|[^\S\n]-)[^\S\n]++(?=[^\n]{0,80}$)"
    r"(?![^\n]*?\b(?i:is|are|was|were|been|be|being)\b)"
    r"(?:[\w-]+[^\S\n]+){0,2}?" + _HANDLED_STATE + r"[.!]?[^\S\n]*$)"
)
_HANDLED_PARENTHESES = lazy(r"\((?=[^()\n]{0,80}\)[^\S\n]*$)[^()\n]*?\b" + _HANDLING_NOW + r"\b")
_HANDLED_FIRST = lazy(
    r"^(?:[\w.-]+:[^\S\n]+)?(?:" + _HANDLING_NOW + r"\b|" + _HANDLED_STATE + r":[^\S\n])"
)


def _retried(text: str, said: str) -> bool:
    """Whether a warning (``text``; ``said``: its message beside an error field,
    :func:`said_beside_error`) says its call is tried again."""
    return bool(_RETRY_TAIL.search(text) or _RETRY_TAIL.search(said))


def _handled(text: str, said: str) -> bool:
    """Whether a warning (``text``; ``said`` as :func:`_retried` takes it) says its error
    was handled (:data:`_HANDLED_AFTER`); a retry's never is (its caller asks first)."""
    return any(
        _HANDLED_FIRST.match(part) or _HANDLED_AFTER.search(part) for part in (text, said) if part
    ) or (_HANDLED_PARENTHESES.search(text) is not None)


#: A word before a bare ``Error:`` that names it (``SQL Error: 0, …``).
_WORD_BEFORE_ERROR = lazy(r"[A-Za-z][^\S\n]E$")
#: A Ruby exception in its namespace, with its message (``Redis::CannotConnectError: …``).
_RUBY_EXCEPTION = lazy(r"(?<![\w:])(?:[A-Z]\w*::)+[A-Z]\w*:[^\S\n]+\S")


#: urllib3's retry warning, the most common of Python's HTTP clients: the error it retries
#: after is quoted inside its own words (``Retrying (Retry(total=2, …)) after connection
#: broken by 'NewConnectionError('<urllib3.connection.HTTPConnection object at 0x7f…>:
#: Failed to establish a new connection: [Errno 111] Connection refused')': /api``), which
#: read as a retry's tail whole (qa-s66b F9).
_URLLIB3_RETRY = lazy(r"\bRetrying[^\S\n]+\(Retry\(")
#: The connection object urllib3 names in its error (its address differs in every run).
_URLLIB3_CONNECTION = lazy(r"<[\w.]+ object at 0x[0-9a-fA-F]+>:[^\S\n]*")
#: An OS error as Python writes its repr (``ConnectionResetError(104, 'Connection reset by
#: peer')``, inside urllib3's ``ProtocolError('Connection aborted.', …)``): asked as a
#: traceback ends with it, ``ConnectionResetError: [Errno 104] Connection reset by peer``.
_OS_ERROR_REPR = lazy(r"\b(?P<name>[A-Z]\w*Error)\((?P<errno>\d+), '(?P<message>[^'\n]*)'\)")


def _urllib3_error(signature: str) -> str | None:
    """The error urllib3's retry warning quotes (:data:`_URLLIB3_RETRY`), else None: between
    its ``… by '`` and the ``':`` before the path (found with plain searches: a pattern for
    the whole warning took minutes on a long line of its words)."""
    retry = _URLLIB3_RETRY.search(signature)
    if retry is None:
        return None
    start = signature.find(" by '", retry.end())
    end = signature.rfind("':")
    if start < 0 or end <= start + 5:
        return None
    return signature[start + 5 : end]


def _warned_query(signature: str, system_error: re.Pattern[str]) -> str:
    """A warning's error as its fallback query: from its exception on (or its system call's
    error told first, not its logger's name before it: ``app: Connection refused by redis at
    …``), without a retry's words after it (and a parenthesis that then closes nothing:
    backoff's ``Backing off fetch(...) for 0.5s (requests.exceptions.ConnectionError: …)``);
    urllib3's retry warning by the error it quotes."""
    error = _urllib3_error(signature)
    if error is not None:
        os_error = _OS_ERROR_REPR.search(error)
        if os_error is not None:
            return f"{os_error['name']}: [Errno {os_error['errno']}] {os_error['message']}"
        return _URLLIB3_CONNECTION.sub("", error).strip()
    told = _next_error(signature)
    if told is not None and _WORD_BEFORE_ERROR.search(signature, 0, told[0] + 1):
        told = None  # (Hibernate's "SQL Error: 0, SQLState: 08001" is no Error of its own)
    ruby = _RUBY_EXCEPTION.search(signature)  # ("giving up: PG::ConnectionBad: …")
    starts = [m for m in (told and told[0], ruby and ruby.start()) if m is not None]
    logger = _LEADING_LOGGER.match(signature)
    if not starts and logger and system_error.match(signature, logger.end()):
        starts = [logger.end()]
    if starts:
        signature = signature[min(starts) :]
    signature = _RETRY_TAIL.sub("", signature).rstrip(" \t;,")
    if signature.endswith(")") and signature.count(")") > signature.count("("):
        signature = signature[:-1].rstrip()
    return signature


@remembered
def _error_kind(query: str) -> str:
    """What makes two errors of a log's warnings one: their fingerprints, but for their
    numbers (one refused connection to three hosts and ports is one error; a redis and a
    requests ConnectionError, or two messages of one class, are two, qa-s62b G2)."""
    from .fingerprints import error_fingerprint

    return _DIGITS.sub("#", error_fingerprint(query))


def queries_from_error(raw: str) -> list[str]:
    """The error queries of a raw error text or log: its parsed signature
    (:func:`query_from_error`), and the errors its lines tell in a sentence, each a query of
    its own, up to :data:`MOST_ERRORS_TOLD`, as the prompt hook asks them
    (:func:`errors_told_on_lines`: "the worker fails with KeyError: 'user'" then "and the api
    with ValueError: bad value" had one signature, either line's). Of a huge log, the part
    :func:`~kenning.log_window.log_window` reads."""
    raw = as_printed(read_of_log(raw))  # (a test runner's JSON report: the failures it stands for)
    signature = query_from_error(raw)
    lines = raw.splitlines()
    beside = errors_beside_signature(lines, signature)
    told = errors_told_on_lines(lines, MOST_ERRORS_TOLD)[1] if len(lines) > 1 else []
    if "[cause]:" in raw and not _wraps_its_cause(signature):
        # (Node's `TypeError: fetch failed` told on a line over its cause, which leads: asked
        # as the chain's fallback, not as a lead; as a lead it found the browser's `TypeError:
        # Failed to fetch`, a CORS fix, at 0.90)
        told = [error for error in told if not _wraps_its_cause(error)]
    if not told:
        return [signature, *beside]
    # a signature that is one of those lines is asked as its errors are
    words, own = errors_in_sentence(signature)
    asked = [*(own if _said_by_a_person(words) else [signature]), *beside, *told]
    return list(dict.fromkeys(asked))[:MOST_ERRORS_TOLD]


def _wraps_its_cause(error: str) -> bool:
    """Whether ``error`` ends with an error that only wraps its cause (Node's ``TypeError:
    fetch failed``, :func:`~kenning.fingerprints.without_cause_wrapper`)."""
    from .fingerprints import error_fingerprint, without_cause_wrapper

    if "fetch failed" not in error.lower():  # (most errors: not fingerprinted, ~0.3 ms each)
        return False
    fingerprint = error_fingerprint(error)
    return without_cause_wrapper(fingerprint) != fingerprint


def errors_beside_signature(lines: Sequence[str], signature: str) -> list[str]:
    """The error a log names beside its ``signature``, to be asked alone: the ``error``
    field of the logfmt (or zap) line whose message and error the signature is (``connect failed:
    dial tcp 127.0.0.1:5432: connect: connection refused``): a fix stored for Go's bare
    error, as ``log.Fatal(err)`` prints it, is its exact match (qa-s62c H7a: found by words
    at 0.82). Only an error that says where it failed (Go's chain of causes, ``pq: …``,
    ``open …: permission denied``), not one that many errors end in (``EOF``, ``context
    deadline exceeded``, ``connection refused``); at most one; none for any other log. And
    the other failed tests of a test run that printed several, each as it is known alone, in
    the run's order (:func:`failed_tests_beside_signature`)."""
    return [
        *_error_field_beside(lines, signature),
        *failed_tests_beside_signature(lines, signature),
    ]


def _error_field_beside(lines: Sequence[str], signature: str) -> list[str]:
    """The logfmt or zap line's error field of :func:`errors_beside_signature`."""
    head = signature.rstrip("…").rstrip()  # (a long one is cut at a word's end)
    cut = len(head) >= ERROR_QUERY_MAX_CHARS // 2  # (a short one is its line's whole message)
    for line in reversed(lines):  # (the signature is most often a log's last error's)
        line = ANSI.sub("", line)  # (logrus' colours around its keys)
        field = "err=" in line or "error=" in line or '"err' in line  # (logfmt's, zap's)
        message, failed = message_and_error_field(line) if field else ("", "")
        if not _ERROR_CHAIN.match(failed):
            continue
        # (the line's message and error, or the first 300 characters of them)
        if signature.endswith(f": {failed}") or (cut and _starts_with(message, head)):
            return [cut_at_word_boundary(failed, ERROR_QUERY_MAX_CHARS)]
    return []


#: At most this many failed tests of one test run are asked beside its signature (each costs
#: a query's embedding, ~5-10 ms): a run of 40 failures asks its signature and the first 4
#: others.
MOST_FAILURES_ASKED = 4
#: At most this many of a run's failed tests are read for them (each ~1 ms): a run of 1,000
#: that failed with one error read each (1 s) to find no other.
MOST_FAILURES_READ = 20
#: A failed test's heading as its runner prints it: vitest's ``FAIL  src/cart.test.js > cart
#: > sums the prices`` (a project's ``|unit|`` before the file), jest's ``● cart › sums the
#: prices``, or a suite's that failed to run, not ``● Console`` over what a test logged), pytest's
#: ``____ test_sums_the_prices ____`` (under its ``FAILURES`` or ``ERRORS`` rule) and its
#: summary's ``FAILED path::test - …`` (of a run printed without tracebacks), cargo test's
#: ``---- tests::sums_the_prices stdout ----`` (over the test's panic), go test's ``--- FAIL:
#: TestSumsThePrices (0.00s)`` at a line's start (a subtest's, indented, is read under its
#: parent's: :func:`_go_subtests`; ``-v``'s output read as the run without it prints it,
#: each test's lines under its heading: :func:`~kenning.signatures.go_test_as_printed_plain`),
#: and mocha's ``  1) cart`` numbered in turn and indented, its title ending in a colon (its
#: list of the run above numbers them too, without one; a text's list of steps, ``1) Set the
#: field public:``, is at its line's start), and Python unittest's (Django's ``manage.py
#: test``'s) ``FAIL: test_x (module.Class.test_x)`` or ``ERROR: …`` under its rule of ``=`` (a
#: subTest's ``(i=2)`` after it; -v's ``test_x (…) ... FAIL`` lines above the blocks are none).
_VITEST_HEADING = lazy(r"^FAIL\s+(?:\|[^|\n]{1,100}\|\s+)?\S+\s+>\s+\S")
_JEST_FAILED_TEST = lazy(r"^●\s+(?!Console$)\S")
_PYTEST_HEADING = lazy(r"^_{3,}\s\S.*\s_{3,}$")
_PYTEST_PART = lazy(r"^=+\s(?:(FAILURES|ERRORS)|.*)\s=+$")
_PYTEST_SUMMARY = lazy(r"^(?:FAILED|ERROR)\s+\S+::\S")
_CARGO_HEADING = lazy(r"^----\s\S+\sstd(?:out|err)\s----$")
_GO_HEADING = lazy(r"^--- FAIL: (\S+)")
_MOCHA_HEADING = lazy(r"^[^\S\n]+(\d+)\)[^\S\n]+\S")
_UNITTEST_HEADING = lazy(r"^(?:FAIL|ERROR):\s\S+\s\(\S+\)")
_UNITTEST_RULE = lazy(r"^={20,}$")
#: The first letters of a heading's line but mocha's (:func:`failures_of_run`).
_HEADS = frozenset("F●_=E-")
_INDENT = frozenset(" \t")


def failures_of_run(lines: Sequence[str]) -> list[list[str]]:
    """The failed tests of a test run that printed several, each its own lines (its heading
    down to the next test's, :data:`_VITEST_HEADING`), in the run's order; ``[]`` for a text
    that holds one failed test or none. pytest's tests are those under its ``FAILURES`` or
    ``ERRORS`` rule, or, when it printed none, its summary's ``FAILED`` lines, each alone."""
    starts: list[int] = []
    pytest_part: str | None = None
    summary: list[int] = []
    mocha = 1  # (the number of mocha's next failure)
    lines = go_test_as_printed_plain(lines)  # (go test -v's, parallel tests' too)
    rule = -2  # (the last line that is unittest's rule of =)
    for i, line in enumerate(lines):
        head = line.lstrip()[:1]
        if head not in _HEADS and not (head.isdigit() and line[:1] in _INDENT and ")" in line):
            continue  # (most lines: no pass of their own; mocha's heading is indented)
        stripped = ANSI.sub("", line).strip()
        cleaned = clean_line(stripped)[0] if head in ("F", "●") else stripped
        if head == "=":
            part = _PYTEST_PART.match(cleaned)
            if part is not None:
                pytest_part = part.group(1)
            elif _UNITTEST_RULE.match(cleaned):
                rule = i  # (unittest's, over a failed test's heading)
        elif head == "_":
            if pytest_part and _PYTEST_HEADING.match(cleaned):
                starts.append(i)
        elif head == "-":
            go = line[:1] == "-" and _GO_HEADING.match(line) is not None
            if go or _CARGO_HEADING.match(cleaned):
                starts.append(i)
        elif head.isdigit():
            number = _MOCHA_HEADING.match(line)  # (indented: not a list's "1) Set it:")
            if number and int(number.group(1)) == mocha and _mocha_heading(lines, i):
                starts.append(i)
                mocha += 1
        elif (
            _VITEST_HEADING.match(cleaned)
            or _JEST_FAILED_TEST.match(cleaned)
            or (rule == i - 1 and _UNITTEST_HEADING.match(stripped))
        ):
            starts.append(i)
        elif _PYTEST_SUMMARY.match(stripped):
            summary.append(i)
    if not starts:
        return [[lines[i]] for i in summary] if len(summary) > 1 else []
    ends = [*starts[1:], len(lines)]
    parts = [
        part
        for start, end in zip(starts, ends, strict=True)
        for part in _go_subtests(lines[start:end])
    ]
    return parts if len(parts) > 1 else []


#: A go subtest's result under its parent's heading: ``    --- FAIL: TestTotal/empty (0.00s)``.
_GO_SUBTEST = lazy(r"^([ \t]+)--- (FAIL|PASS|SKIP): \S")


def _go_subtests(part: Sequence[str]) -> list[list[str]]:
    """``part``, a failed test's lines, as its failed subtests' parts when it holds more than
    one (``t.Run``): each its parent's heading over its own lines (``--- FAIL: TestTotal
    (0.00s)``, ``    --- FAIL: TestTotal/two_prices (0.00s)`` and what it logged), as go test
    prints a subtest run alone (``go test -run TestTotal/two_prices``); what the parent
    logged before its subtests is a part too. Any other part is itself."""
    if not part or part[0][:9] != "--- FAIL:":
        return [list(part)]
    heads = [
        (i, m) for i, line in enumerate(part) if "--- " in line and (m := _GO_SUBTEST.match(line))
    ]
    if not heads:
        return [list(part)]
    depth = min(len(m.group(1)) for _, m in heads)  # (its own subtests, not theirs)
    own = [(i, m.group(2) == "FAIL") for i, m in heads if len(m.group(1)) == depth]
    if sum(failed for _, failed in own) < 2:
        return [list(part)]
    parts = [list(part[: own[0][0]])] if any(x.strip() for x in part[1 : own[0][0]]) else []
    ends = [i for i, _ in own[1:]] + [len(part)]
    parts += [[part[0], *part[i:end]] for (i, failed), end in zip(own, ends, strict=True) if failed]
    return parts


def failed_tests_beside_signature(lines: Sequence[str], signature: str) -> list[str]:
    """The signature of each other failed test of a test run that printed several
    (:func:`failures_of_run`), as each is known pasted alone (:func:`query_from_error` of
    its lines: ``FAIL src/auth.test.js > login returns 200: AssertionError: …``, pytest's
    ``AssertionError: assert 401 == 200``), in the run's order: a run's ``signature`` is
    one of its failures (the last exception vitest printed, the one test that threw), and
    the exact fixes of the others were not asked. At most :data:`MOST_FAILURES_ASKED`, each
    error once (its fingerprint), none that is the signature's."""
    from .fingerprints import error_fingerprint

    failures = failures_of_run(lines)
    if not failures:
        return []
    seen = {error_fingerprint(signature)}
    found: list[str] = []
    for failure in failures[:MOST_FAILURES_READ]:
        if len(found) >= MOST_FAILURES_ASKED:
            break
        error = _error_of(failure)
        if error is None:
            continue
        fingerprint = error_fingerprint(error)
        if fingerprint not in seen:
            seen.add(fingerprint)
            found.append(error)
    return found


def _starts_with(message: str, head: str) -> bool:
    """Whether ``message`` starts with ``head``, a whole word last."""
    return message.startswith(head) and not message[len(head) : len(head) + 1].isalnum()


#: An error that says where it failed: words, then ``: `` and more (``pq: …``, ``dial tcp
#: …: connect: …``; not ``: foo``).
_ERROR_CHAIN = lazy(r"\w[^\n]*?:[^\S\n]+\S")


#: An exception class named without its message (no ``:`` or ``(`` after it), the ERROR
#: log level, a stack trace: what a sentence names ("log a stack trace for every ERROR").
#: (Tried from a name's first character only: from every dot of ``a.a.a…`` it was
#: quadratic.)
_NAMED_EXCEPTION = lazy(
    r"(?:(?<![\w.$])[A-Za-z_][\w.$]*(?:Error|Exception)|\bERROR|\bstack[^\S\n]+traces?)\b"
    r"(?![^\S\n]*[:(])"
)
#: A word of a sentence: lower-case letters followed by a space.
_PROSE_WORD = lazy(r"(?:^|\s)[a-z][a-z']*[^\S\n]")
#: The same, or a word with its first letter capitalised, as a sentence starts ("Raise",
#: "Catch"; not a class name such as "KeyError", whose later capital it does not take).
_SENTENCE_WORD = lazy(r"(?:^|\s)[A-Za-z][a-z']*[^\S\n]")
#: Ruby's line for an uncaught exception (:data:`kenning.signatures.RUBY_UNCAUGHT`).
_RUBY_UNCAUGHT = lazy(RUBY_UNCAUGHT)


@remembered
def reports_error(text: str) -> bool:
    """Whether ``text`` (a prompt, a line of one) reports an error: :func:`looks_like_error`,
    except that an exception class, the ERROR level or a stack trace a sentence merely names
    ("add a handler for KeyError in the parser", "make it raise ValueError", "print the
    stack trace when the worker dies") is not one. A class with its message
    (``KeyError: 'user'``), one that starts its line (``KeyError in the login view``, a
    Java trace's ``Exception in thread "main" …``) and any other error form still are."""
    # (of a huge log, the part read: its lines are read here; without its colours, as
    # looks_like_error reads it: a colour before Ruby's location or a named class hid it)
    text = read_of_log(text)
    text = ANSI.sub("", text) if "\x1b" in text else text  # (every escape starts so)
    if not looks_like_error(text):
        return False

    def masked(line: str) -> str:
        # a name after the line's first word of a sentence is named by the sentence; not
        # the class closing Ruby's uncaught exception (its message's words before it)
        prose = _SENTENCE_WORD.search(line)
        if prose is not None and "in" in line and _RUBY_UNCAUGHT.match(line):
            return line
        if prose is None:
            return line
        return line[: prose.end()] + _NAMED_EXCEPTION.sub("exception", line[prose.end() :])

    return looks_like_error("".join(masked(line) for line in text.splitlines(keepends=True)))


#: An error with its message: ``KeyError: 'user'``, ``Error: Cannot find module``,
#: ``error: linker `cc` not found``, ``error[E0502]: cannot borrow``, ``fatal: not a git
#: repository``, ``npm ERR! code ERESOLVE``, ``make: *** [build] Error 2``; a compiler's or
#: Go's ``fatal error: …`` whole; pip's ``ERROR: …`` in capitals.
_ERROR_WITH_MESSAGE = lazy(
    r"(?<![\w.$])(?:(?:(?:[A-Za-z_][\w.$]*)?(?:Error|Exception)"
    r"|(?:fatal[^\S\n]+)?error(?:\[E\d+\])?|ERROR|fatal|panic):"
    r"|npm[^\S\n]+ERR!|make(?:\[\d+\])?:[^\S\n]+\*\*\*)[^\S\n]+\S"
)
#: Where the sentence goes on after the error's message: its end, or a word that joins
#: another clause to it ("… when I run it", "…, any idea?") — none that messages use
#: ("but 3 were given", "referenced before assignment", "while calling", "because it is
#: also borrowed", "after 30 seconds", "called once", "in use when destructor runs").
#: (Each starts after a space
#: it does not match: from every space of a run, a run of spaces was tried again.)
_CLAUSE = r"""
      (?<=\s)(?:(?:when|whenever|every[^\S\n]+time|each[^\S\n]+time|as[^\S\n]+soon[^\S\n]+as
        |and)[^\S\n]+(?:I|I'm|I've|we|you|they|trying|running)
      |on[^\S\n]+every|and[^\S\n]+then|for[^\S\n]+(?:some|every|all|any))\b
    | ,(?=[^\S\n]*(?:any|can|could|please|what|how|why|help|thanks|so|no[^\S\n]+idea)\b)"""
_MESSAGE_END = lazy(r"[.!?](?=\s|$) | (?<=\s)[-–—](?=\s) |" + _CLAUSE, re.VERBOSE)
#: Where a sentence that starts with its error goes on: only the words that join a clause
#: (a message's own ". Did you mean …" or " - see above" is the message's).
_CLAUSE_END = lazy(_CLAUSE, re.VERBOSE)


#: A failed assert's values (:data:`kenning.signatures.FAILED_ASSERT`).
_ASSERT_VALUES = lazy(FAILED_ASSERT)
#: A failed assert with its values (as pytest says it, ``assert 403 == 200``) told after the
#: words of a sentence: "test_admin fails: …", "fails; …", "fails (…)", "the test failed
#: with …", "I'm getting …", "we got an …" (not "E   assert", pytest's own line, nor "FAILED
#: …::test - assert", its summary, which have no words).
_TOLD_ASSERT = lazy(
    r"(?:\bfail(?:s|ed|ing)?(?:[^\S\n]+with)?[:;]?[^\S\n]+\(?|\bfail(?:s|ed|ing)?[^\S\n]*\("
    r"|\b(?:get(?:ting)?|got|see(?:ing)?|hit(?:ting)?)(?:[^\S\n]+an?)?[^\S\n]+)"
    r"(assert[^\S\n]+(?:-?\d|['\"]|None\b|True\b|False\b))"
)
#: What every match of :data:`_TOLD_ASSERT` holds: a text without it is not searched.
_ASSERT = "assert"


#: Where a sentence goes on to the error it gives now, after one it told fixed ("…, but
#: now I get TypeError: …"): the later error has its message.
_NOW_ANOTHER = lazy(
    r"\bnow\b(?=[^\n]{0,80}?(?:(?:[A-Za-z_][\w.$]*)?(?:Error|Exception)|error|ERROR|fatal|panic)"
    r":[^\S\n])"
)


def _fixed_then(line: str) -> tuple[re.Match[str], re.Match[str]] | None:
    """Where ``line`` tells an error fixed ("I fixed the …", "got past the …"), and the
    "now" after which it tells the one it gives now; the last such "now" ("…, now A: …, now
    B: …" gives B now). Without a word that says it was dealt with, the earlier error is
    still one ("the api fails with KeyError: 'user'. the worker now crashes with …")."""
    if "now" not in line:  # (what _NOW_ANOTHER needs: most lines of a log say nothing now)
        return None
    now = _last_now_another(line)
    fixed = None if now is None else _ERROR_WITH_MESSAGE.search(line, 0, now.start())
    if now is None or fixed is None or _DEALT_WITH.search(line, 0, now.start()) is None:
        return None
    return fixed, now


def _last_now_another(line: str) -> re.Match[str] | None:
    """The last match of :data:`_NOW_ANOTHER` in ``line``: each "now" tried from the last
    back, each where it is in the line (its ``\\b`` reads the character before it). A
    search of the line from its start tried the look ahead at every "now" before the last
    (" now" 20,000 times before an error: 0.27 s). Two "now" never overlap, so the matches
    a search finds are the places of "now" where the pattern matches, the last of them
    this one."""
    at = len(line)
    while (at := line.rfind("now", 0, at)) >= 0:
        now = _NOW_ANOTHER.match(line, at)
        if now is not None:
            return now
    return None


#: A word that says an error told before "now" was dealt with.
_DEALT_WITH = lazy(
    r"\b(?:fix(?:ed|ing)?|solved|resolved|got[^\S\n]+(?:past|rid[^\S\n]+of)|no[^\S\n]+longer"
    r"|went[^\S\n]+away|is[^\S\n]+gone)\b",
    re.IGNORECASE,
)
#: Where an error's message is joined to another told after it ("…: assert 403 == 200 and
#: test_b fails: assert 404 == 200", "…; TypeError: …", ", test_b fails: …").
_JOINED = lazy(r"[;,][^\S\n]|[^\S\n](?:and|but|also|while|plus)[^\S\n]")
#: How far after a joining word the error it joins may start.
_JOINED_REACH = 100


def _cut_at_joined_error(error: str) -> str:
    """``error`` up to another error joined to its message, when one is."""
    for joined in _JOINED.finditer(error):
        reach = joined.end() + _JOINED_REACH
        if _ERROR_WITH_MESSAGE.search(error, joined.end(), reach) is not None or (
            _ASSERT in error and _TOLD_ASSERT.search(error, joined.start(), reach)
        ):
            return error[: joined.start()].rstrip()
    return error


def error_in_sentence(line: str) -> tuple[str, str]:
    """``(words, error)`` of one line of a prompt: a sentence that reports an error in its
    middle ("the build fails with ModuleNotFoundError: No module named 'yaml' when I run
    it") is split into the words before the error and the error with its message, up to
    the sentence's end, a closing backtick or quote (``'…'``, ``"…"``) or a word joining
    another clause ("when …", "…, any idea?"). A line that starts with its error keeps all
    of it but a clause joined after it ("… when I log out"). A failed assert with its
    values told after words ("test_admin fails: assert 403 == 200") is split as an error
    with its message is. A line with neither is ``("", line)``: the error's signature is
    then the parser's to find. Of a line that tells an error fixed and the one it gives
    now ("I fixed the KeyError: 'user' but now I get TypeError: …"), the error is the later
    one, and the earlier is left out (its fix is the one just applied)."""
    return _error_in_sentence(line, _fixed_then(line))


def _error_in_sentence(
    line: str, told: tuple[re.Match[str], re.Match[str]] | None, at_start_only: bool = False
) -> tuple[str, str]:
    """:func:`error_in_sentence` of ``line`` whose :func:`_fixed_then` is ``told``; given
    ``at_start_only``, no error with its message starts in ``line`` after its first
    character (:func:`_error_told`)."""
    if told is not None:
        fixed, now = told
        later = line[now.end() :].strip()
        words, error = _error_told(later)
        if error != later or _ERROR_WITH_MESSAGE.match(error):
            # the words without the error fixed: its fix is the one just applied
            return f"{line[: fixed.start()]} {words.strip()}".strip(" \t,"), error.strip()
    return _error_told(line, at_start_only)


#: The most errors one line of a prompt is read for ("test_a fails: assert 401 == 200.
#: test_b fails: assert 404 == 200.").
MOST_ERRORS_TOLD = 5


def errors_in_sentence(line: str) -> tuple[str, list[str]]:
    """``(words, errors)`` of one line of a prompt that may tell several errors, each with
    its message ("test_a fails: assert 401 == 200. test_b fails: assert 404 == 200."): the
    first as :func:`error_in_sentence` finds it, then each told in what follows the one
    before, up to :data:`MOST_ERRORS_TOLD`; the words are those before the first and after
    the last. (An error told fixed before the one given now is no error of it.)"""
    fixed = _fixed_then(line)  # (read once: error_in_sentence's too)
    words, error = _error_in_sentence(line, fixed)
    first = line.find(error) if error else -1
    if first < 0 or fixed is not None:
        return words, [error]
    joined = _cut_at_joined_error(error)
    if joined == error == line:
        # a line that is its error, whole: one error, unless its message ends where another
        # begins ("KeyError: 'user'. TypeError: …")
        told = _error_then_another(line)
        if told is None:
            return words, [error]
        first, joined = told
    if joined != error:  # (the words around it are found again below)
        error, words = joined, ""
    errors = [error]
    said = [line[:first]]
    at = first + len(error)
    # From here on no error with its message starts in the line, as the line reads it (the
    # character before each: the pattern's look behind). What follows each error is read
    # again as a line of its own, whose first character has none before it: only there may
    # one start that the line's reading did not find. (A line of 20,000 failed asserts told
    # was searched whole twice for each of the errors read: ~13 searches of 480k characters.)
    quiet_from = len(line) + 1
    while at < len(line) and len(errors) < MOST_ERRORS_TOLD:
        rest = line[at:]
        if at + 1 < quiet_from and _ERROR_WITH_MESSAGE.search(line, at + 1) is None:
            quiet_from = at + 1
        at_start_only = at + 1 >= quiet_from
        if (at_start_only and _ERROR_WITH_MESSAGE.match(rest) is None) and not (
            _ASSERT in rest and _TOLD_ASSERT.search(rest)
        ):
            break
        error = _error_in_sentence(rest, _fixed_then(rest), at_start_only)[1]
        found = rest.find(error) if error and error != rest.strip() else -1
        if found < 0:  # what follows the error before is no sentence: its next error
            told = _next_error(rest)
            if told is None:
                break
            found, error = told
        error = _cut_at_joined_error(error)
        errors.append(error)
        said.append(rest[:found])
        at += found + len(error)
    if len(errors) == 1 and words:
        return words, errors
    # the words before the first and after the last: those between are mostly what joins
    # them ("… and the worker fails with …"), a query of nothing but that found notes at 0.87
    said = [said[0], line[at:]]
    return " ".join(w.strip(" \t.,;:") for w in said if w.strip(" \t.,;:")), errors


#: go test's heading of a failed test told after the words of a sentence ("go test fails:
#: --- FAIL: TestLock (0.00s) what now?"), a subtest's too.
_TOLD_GO_HEADING = lazy(r"(?<=\s)---[^\S\n]+FAIL:[^\S\n]+\S+[^\S\n]+\(\d+(?:\.\d+)?s\)")


#: The words a person writes before an error: words, numbers, a sentence's punctuation, code
#: in backticks or quotes ("and `make test` fails with"); not a tool's brackets or braces
#: (Rust's "called `Result::unwrap()` on an `Err` value: Custom { …", vite's "[vite]
#: Internal server error: …").
_PERSONS_WORDS = lazy(r"[\w\s,.;:'!?/()`\"\u2013\u2014-]*")
_PROSE_LETTERS = lazy(r"[a-z]{2,}")
#: ... nor what a tool prints before an error it reports: a clock time, a file's line it
#: starts with ("10:00:01", "login_test.go:25:"), the dotted class of an exception whose
#: message tells another error (a traceback's last line, "app.errors.SyncFailed: the sync
#: failed with KeyError: 'user'", qa-s61 F3), a log level as a logger prints it ("ERROR
#: worker:", "WARNING:root:", a line that starts "Error in …", "Warning: …", "Unhandled
#: promise rejection:"), npm's "npm error", the words of Python's chained traceback ("During
#: handling of the above exception"), Java's "Exception in thread", celery's "raised
#: unexpected", webpack's "Module not found". A person's "the second error:", "in
#: views.py:42", "Django 5.0", "npm errors out" are a person's. (Next.js' "- error TypeError:
#: …" and Spring's "nested exception is …" tell an error of their own: asked, they find its
#: fix.)
_TOOLS_WORDS = lazy(
    r"\d:\d\d:\d\d|^\s*\S+\.\w{1,10}:\d"
    r"|(?-i:^\s*(?:[A-Za-z_]\w*\.)+[A-Z]\w*:\s)"
    r"|(?-i:\b(?:ERROR|WARN(?:ING)?|INFO|DEBUG|CRITICAL|FATAL|TRACE)\b)"
    r"|^\s*(?:error|warning|info|debug|traceback|unhandled|uncaught)\b"
    r"|\bnpm\s+(?:err!|error\b)|\babove\s+exception\b|\bexception\s+in\s+thread\b"
    r"|\braised\s+unexpected\b|\bnot\s+found\s*$",
    re.IGNORECASE,
)


def _said_by_a_person(words: str) -> bool:
    return (
        bool(words)
        and _PERSONS_WORDS.fullmatch(words) is not None
        and _PROSE_LETTERS.search(words) is not None
        and _TOOLS_WORDS.search(words) is None
    )


def errors_on_line(line: str) -> tuple[str, list[str]]:
    """:func:`errors_in_sentence` of one line of a prompt, except that a log's line written
    below an error's level (``2024-05-02 09:14:02 WARNING http: retrying after error:
    ConnectionError: …``) has no words of its own, and is its first error, whole, before
    those it tells: the paste's signature is then found with its level read (a crash logged
    after it is the error, qa-s60b N4), and the errors the warning names are still asked
    beside it (the cause a vague ``ERROR api: request failed`` under it does not say,
    qa-s61 F2)."""
    if json_log_line(line) is not None:  # a JSON log's line is the paste's, whole (P8)
        return "", [line]
    if written_below_error(line):
        # the errors it tells, read after its log prefix (Ruby's "W, [… #4242]  WARN -- :"
        # was a sentence's words, and its "W" an error)
        errors = errors_in_sentence(clean_line(line)[0])[1]
        return "", [line, *(error for error in errors if error != line)]
    return errors_in_sentence(line)


def errors_told_on_lines(
    lines: Sequence[str], room: int, known: Sequence[str] = ()
) -> tuple[set[int], list[str]]:
    """Which of ``lines`` tell an error in a sentence, and those errors (at most ``room``,
    :func:`errors_in_sentence` of each; one told again, or ``known`` already, is not counted
    twice): the lines with words before their error, as a person writes them ("and the api
    with ValueError: bad value", "run 2: Error: …"), not as a tool prints them (its line
    starts with the error, a log's stamp or its level, or its words are a report's: those
    are a paste's, which has one signature)."""
    told: set[int] = set()
    errors: list[str] = []
    for i, line in enumerate(lines):
        if len(errors) >= room:
            break
        if not reports_error(line):
            continue
        found = _errors_a_person_told(line)
        if found is not None:
            told.add(i)
            new = [e for e in dict.fromkeys(found) if e not in errors and e not in known]
            errors += new[: room - len(errors)]
    return told, errors


@remembered
def _errors_a_person_told(line: str) -> tuple[str, ...] | None:
    """The errors ``line`` tells in a sentence (:func:`errors_in_sentence`) when its words
    are a person's; None when they are not. (Remembered: a log's error lines repeat, a
    retry's or a test run's "Error: same" hundreds of times, and a recall reads its lines
    for the errors they tell more than once.)"""
    words, found = errors_in_sentence(line)
    return tuple(found) if _said_by_a_person(words) else None


def _next_error(text: str) -> tuple[int, str] | None:
    """Where the first error with its message in ``text`` starts, and that error up to its
    message's end (``None``: there is none)."""
    match = _ERROR_WITH_MESSAGE.search(text)
    if match is None:
        return None
    end = _MESSAGE_END.search(text, match.end() - 1)
    return match.start(), text[match.start() : end.start() if end else None].rstrip()


def _error_then_another(line: str) -> tuple[int, str] | None:
    """The first error of ``line`` when its message ends where another error begins."""
    told = _next_error(line)
    if told is None:
        return None
    start, error = told
    after = start + len(error)
    if after >= len(line) or _ERROR_WITH_MESSAGE.search(line, after) is None:
        return None
    return told


def _error_told(line: str, at_start_only: bool = False) -> tuple[str, str]:
    """:func:`error_in_sentence` of a line told of one error; given ``at_start_only``, no
    error with its message starts in ``line`` after its first character (its caller read
    the text it is the end of: the line is not searched again)."""
    prose = _PROSE_WORD.search(line)
    at = 0
    while (
        match := (_ERROR_WITH_MESSAGE.match(line) if at == 0 else None)
        if at_start_only
        else _ERROR_WITH_MESSAGE.search(line, at)
    ) is not None:
        at = match.end() - 1  # the message's first character: it may start another error
        if prose is None or prose.end() > match.start():
            return _error_first(line, match)  # after a log prefix, a list marker…
        if _ERROR_WITH_MESSAGE.match(line, match.end() - 1):
            continue  # "this error: KeyError: 'user'": the error is what the label names
        before = line[: match.start()]
        error = line[match.start() :]
        quoted = before[-1:] in ("'", '"') and not before[-2:-1].isalnum()
        if before.endswith("`") and "`" in error:
            error = error[: error.index("`")]
        elif quoted and (close := _closing_quote(error, before[-1])) is not None:
            error = error[:close]
        else:
            # the message's own colon and quotes are kept: the end is searched after them
            end = _MESSAGE_END.search(error, match.end() - match.start())
            if end is not None:
                error = error[: end.start()]
        error = error.strip()
        if error:
            return before.rstrip(" \t`'\"(:"), error
    told = _TOLD_ASSERT.search(line) if _ASSERT in line else None
    if told is not None:  # "test_admin fails: assert 403 == 200": pytest's failed assert
        error = line[told.start(1) :]
        values = _ASSERT_VALUES.match(error)
        # its values end it ("I'm getting assert 403 == 200 in test_admin", "fails (assert
        # 403 == 200)"); else where its message would
        message_end = _MESSAGE_END.search(error, told.end(1) - told.start(1))
        cut = values.end() if values else message_end.start() if message_end else None
        return line[: told.start(1)].rstrip(" \t:;("), error[:cut].strip()
    heading = _TOLD_GO_HEADING.search(line) if "--- FAIL:" in line else None
    if heading is not None and _said_by_a_person(line[: heading.start()].rstrip(" \t:;(")):
        # "go test fails: --- FAIL: TestLock (0.00s) what now?": go's failed test, with its
        # message when one follows the heading ("…: lock held by another process, why?")
        error = line[heading.start() :]
        said = heading.group(0)
        if error[len(said) :].startswith(":"):
            end = _MESSAGE_END.search(error, len(said) + 1)
            said = error[: end.start()] if end else error
        return line[: heading.start()].rstrip(" \t:;("), said.strip()
    bare = _BARE_MESSAGE.search(line)
    if bare is not None:  # "pytest fails: No module named 'yaml'": typed without its class
        if prose is None or prose.end() > bare.start():
            return _error_first(line, bare)
        before, error = line[: bare.start()], line[bare.start() :]
        if not _said_by_a_person(before.rstrip(" \t`'\"(:")):
            return "", line  # a tool's line (ld's "main.c:(.text+0x1a): undefined …"), whole
        if before.endswith("`") and "`" in error[bare.end() - bare.start() :]:
            error = error[: error.index("`", bare.end() - bare.start())]
        elif (end := _MESSAGE_END.search(error, bare.end() - bare.start())) is not None:
            error = error[: end.start()]
        return before.rstrip(" \t`'\"(:"), error.strip()
    return "", line


#: An error's message typed without its class (:data:`kenning.signatures.BARE_ERROR_MESSAGE`).
_BARE_MESSAGE = lazy(BARE_ERROR_MESSAGE)


def _closing_quote(error: str, quote: str) -> int | None:
    """Where the quote that opened ``error`` closes: the first ``quote`` followed by a
    space, a sentence mark or the line's end with as many of its quotes before it opened as
    closed (``'Error: Cannot find module 'semver''``); one between two letters is an
    apostrophe (``can't``). ``None`` when there is none."""
    inner = 0
    at = error.find(quote)
    while at >= 0:
        after = error[at + 1 : at + 2]
        if at and error[at - 1].isalnum() and after.isalnum():
            pass  # an apostrophe
        elif (not after or after.isspace() or after in ".,;:!?)") and inner % 2 == 0:
            return at
        else:
            inner += 1
        at = error.find(quote, at + 1)
    return None


def _error_first(line: str, match: re.Match[str]) -> tuple[str, str]:
    """A line that starts with its error (``match``): the words of a clause joined after
    it are the sentence's ("KeyError: 'user' when I log out", "…, any idea?"); the rest of
    the line is the error's, for the parser (with its log prefix, list marker…)."""
    clause = _CLAUSE_END.search(line, match.end() - 1)
    if clause is None:
        return "", line
    return line[clause.start() :].strip(" \t,"), line[: clause.start()].rstrip()


#: A line that starts with a word, not indented: no trace frame, code, gutter, location or
#: log line.
#: (A word in capitals first is a log line's level: ``INFO worker restarted``; a month's
#: name before a day and a time is syslog's and journald's stamp: ``May 02 09:14:03 web1
#: systemd[1]: app.service: Main process exited …``.)
_REQUEST_LINE = lazy(
    r"(?:[-*>][^\S\n]+)?(?![A-Z]{2,}\b|[A-Z][a-z]{2}[^\S\n]+\d{1,2}[^\S\n]+\d{2}:\d{2})"
    r"[A-Za-z][A-Za-z']*[^\S\n]+\S"
)


def is_request_line(line: str) -> bool:
    """Whether ``line``, after a pasted error, is the prompt's own words again (a request:
    "Can you add a guard for this?"), not more of the error's output: it starts with a
    word, has words of a sentence, and reports no error."""
    return (
        _REQUEST_LINE.match(line) is not None
        and _PROSE_WORD.search(line) is not None
        and not reports_error(line)
    )


#: What a test runner prints around its results that no query wants, besides its rules
#: (:func:`is_runner_boilerplate`): pytest's session header (``platform linux -- Python
#: 3.11.7, pytest-9.0.1 …``, ``rootdir:``, ``configfile:``, ``plugins:``, ``cachedir:``,
#: ``collected 12 items``), xdist's workers and the progress lines (``tests/test_cfg.py
#: ...F  [100%]``, ``…::test_x PASSED [ 33%]``, ``[gw0] [ 33%] PASSED …``); unittest's
#: ``Ran 4 tests in 0.001s`` and Django's ``manage.py test``'s (``Found 4 test(s).``, ``System
#: check identified no issues (0 silenced).``, its test database's lines and, with ``-v 2``, its
#: migrations': ``Operations to perform:``, ``Applying auth.0001_initial... OK``); vitest's
#: (``RUN  v4.1.12 /home/dev/shop``, a file's ``❯ src/a.test.js (0 test)``, ``Test Files  1
#: failed (1)``, ``Tests  3 failed | 1 passed (4)``, ``Start at  16:21:11``, ``Duration  1.33s
#: (…)``), jest's (``FAIL src/auth.test.js``, a test's ``✕ login returns 200 (4 ms)`` or ``○
#: skipped …``, ``Test Suites: 2 failed, 2 total``, ``Tests:``, ``Snapshots:``, ``Time:``,
#: ``Ran all test suites.``, ``● Console`` and its ``console.log``), mocha's (``1 passing
#: (12ms)``, ``3 failing``, a passed test's ``✔ …``; not its numbered tests, ``1) login
#: returns 200``, as likely a prompt's list), cargo's (``Finished `test` profile […]
#: target(s) in 0.04s``, ``Running unittests src/lib.rs (…)``, ``running 4 tests``, ``test
#: tests::x ... FAILED``, -q's ``tests::x --- FAILED`` and ``. 3/4``, ``failures:``, ``----
#: tests::x stdout ----``, ``test result: FAILED. 1 passed; …``) and go test's (``=== RUN
#: TestX``, ``--- PASS: TestX (0.00s)``, ``PASS``, ``FAIL``, ``FAIL example.com/shop 0.018s``,
#: ``ok …``, ``?  … [no test files]``). (No ``\S+`` here is followed by what it could hold:
#: linear on any line.)
_RUNNER_BOILERPLATE = lazy(
    r"platform \S+ -- Python \d.*"
    r"|(?:rootdir|configfile|inifile|cachedir|plugins|testpaths): .*"
    r"|(?:collecting \.\.\. )?collected \d+ items?\b.*"
    r"|created: \d+/\d+ workers|\d+ workers \[\d+ items?\]|bringing up nodes\.\.\."
    r"|(?:\S+\s+)?(?:(?:[.FEsxX]+|PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\s+)?\[\s*\d+%\]"
    r"|\[gw\d+\] \[\s*\d+%\] \w+ \S+"
    r"|Ran \d+ tests? in \d+(?:\.\d+)?s"
    r"|Found \d+ test\(s\)\.|System check identified (?:no issues|\d+ issues?) \(\d+ silenced\)\."
    r"|Skipping setup of unused database\(s\): .*"
    r"|(?:Creating|Destroying|Cloning|Using existing) test database for alias .*"
    r"|Operations to perform:|Synchronizing apps without migrations:|Running migrations:"
    r"|(?:Synchronize unmigrated apps|Apply all migrations): .*"
    r"|Creating tables\.\.\.|Running deferred SQL\.\.\.|Applying \w+\.\w+\.\.\. OK"
    # vitest
    r"|(?:RUN|DEV) +v\d+(?:\.\d+)+(?: .*)?"
    r"|[❯✓×↓] (?:\|[^|]*\| )?\S+ \(\d+ tests?(?: \| \d+ \w+)*\)(?: \d+m?s)?"
    r"|(?:Test Files|Tests) +(?:\d+ \w+(?: \| \d+ \w+)* \(\d+\)|no tests)"
    r"|Start at +\d{1,2}:\d{2}:\d{2}|Duration +\d+(?:\.\d+)?m?s(?: \(.*\))?"
    # jest
    r"|(?:PASS|FAIL) \S+(?: \(\d+(?:\.\d+)? ?m?s\))?|[✓✕√×] .* \(\d+ ms\)|○ skipped .*|✎ todo .*"
    r"|(?:Test Suites|Tests|Snapshots): +(?:\d+ \w+, )*\d+ total"
    r"|Time: +\d+(?:\.\d+)? ?m?s(?:, estimated \d+ ?m?s)?|Ran all test suites(?: .*)?\."
    r"|● Console|console\.(?:log|info|warn|error|debug)"
    # mocha
    r"|\d+ passing \(\d+m?s\)|\d+ (?:failing|pending)|✔ .*"
    # cargo
    r"|Finished `?\w+`?(?: profile)? \[[^\]]*\] target\(s\) in (?:\d+m )?\d+(?:\.\d+)?s"
    r"|(?:Compiling|Checking|Fresh) [\w-]+ v\d+\.\d+\.\d+\S*(?: \(.*\))?"
    r"|Running (?:unittests )?\S+\.rs \(\S+\)|Running target/\S+|Doc-tests [\w-]+"
    r"|running \d+ tests?|failures:|---- \S+ stdout ----"
    r"|test \S+(?: - should panic)? \.\.\. (?:ok|FAILED|ignored\b.*)|\S+ --- FAILED|[.Fi]+ \d+/\d+"
    r"|test result: (?:ok|FAILED)\. \d+ passed; .*"
    # go test
    r"|=== (?:RUN|PAUSE|CONT|NAME) +\S+|--- (?:PASS|FAIL|SKIP): \S+ \(\d+\.\d+s\)|PASS|FAIL"
    r"|(?:ok|FAIL|\?)\s+\S+\s+(?:\d+\.\d+s|\(cached\)|\[[\w ]+\])(?:\s+coverage: .*)?"
)


def is_runner_boilerplate(line: str) -> bool:
    """Whether ``line`` is a test runner's own line around its results, which a pasted
    report puts among a prompt's words: pytest's rules of ``=`` or ``_`` (``=== test
    session starts ===``, ``___ test_load ___``, ``=== 1 failed in 0.05s ===``), its session
    header and progress, unittest's, Django's, vitest's (and its rules of ``⎯``), jest's,
    mocha's, cargo's and go test's lines around a run (:data:`_RUNNER_BOILERPLATE`). Left
    out of the words query, where they pulled notes about the test setup ("Tests run on
    Linux with Python 3.11") level with the ones the words ask (with a vitest, jest or cargo
    run's, the words found nothing)."""
    text = line.strip()
    if text[:1] in ("=", "_") and text.startswith(text[0] * 3) and text.endswith(text[0] * 3):
        return True  # a rule: three of one at either end (not __init__.py)
    if text[:1] == "⎯":  # vitest's rules: `⎯⎯⎯ Failed Tests 3 ⎯⎯⎯`, `⎯⎯⎯⎯[1/3]⎯`
        return text.startswith("⎯⎯⎯") and text.endswith("⎯")
    return _RUNNER_BOILERPLATE.fullmatch(text) is not None


#: The JVM's words before an uncaught exception's class (``Exception in thread "main"
#: java.lang.IllegalStateException: …``), which :func:`errors_in_sentence` leaves before the
#: error it finds, its quote cut (``Exception in thread "main``). (``[^"\n]*`` stops at the
#: next quote: linear on any line.)
_JVM_THREAD_WORDS = lazy(r'(?<!\S)Exception[^\S\n]in[^\S\n]thread[^\S\n]"[^"\n]*"?[^\S\n]*$')


def without_runtime_words(words: str) -> str:
    """``words``, a prompt's before the error its line tells (:func:`errors_on_line`),
    without the JVM's ``Exception in thread "main`` at their end: a pasted Java trace's first
    line put them in the words query ('The app will not start, why? Exception in thread
    "main'), where they pulled a note about threads or the main class level with the ones the
    words ask, and were the whole words query of a trace pasted alone."""
    if "thread" not in words:
        return words
    return _JVM_THREAD_WORDS.sub("", words).rstrip()


#: What a sentence of a prompt does not hold and a pasted log's line does: a path, an option,
#: a shell prompt, brackets, an assignment.
_PASTED_MARK = lazy(r"[/\\=<>\[\]{}`$|]|(?:^|\s)--?\w")


#: How many of a prompt's lines that open or close a JSON object are tried as a pasted API
#: error response's first or last (each pair a parse of the lines between).
_API_BODY_TRIES = 3


def pasted_api_error(lines: Sequence[str]) -> tuple[int, int] | None:
    """The first and last line of an API's error response pasted among a prompt's words
    (one JSON object: :func:`~kenning.log_formats.api_error_said`), whose lines each look
    like no error (``"message": "Cannot query field …"``); None when there is none."""
    starts = [i for i, line in enumerate(lines) if line.lstrip().startswith("{")]
    if not starts:
        return None
    ends = [j for j in reversed(range(len(lines))) if lines[j].rstrip().endswith("}")]
    for start in starts[:_API_BODY_TRIES]:
        for end in ends[:_API_BODY_TRIES]:
            if end >= start and api_error_said("\n".join(lines[start : end + 1])) is not None:
                return start, end
    return None


#: jest's heading of a failed test (``  ● cart › adds items``), and mocha's, ``  1) cart``
#: over the test's own title (``       adds items:``, a suite's on a line of its own).
_JEST_HEADING = lazy(r"^[^\S\n]*●[^\S\n]+\S")
_MOCHA_NUMBERED = lazy(r"^[^\S\n]+\d+\)[^\S\n]+\S")
_MOCHA_TITLE_LINES = 4
#: Node's header of an uncaught error, a blank line above it: where it was thrown
#: (``/app/cause.js:2``, ``node:internal/deps/undici/undici:14976``, ``file:///app/main.mjs:3``,
#: :func:`_node_thrown_at`), the source line, a caret under it.
_CARET_LINE = lazy(r"^[^\S\n]*\^+[^\S\n]*$")


def _failed_test_heading(lines: Sequence[str], at: int) -> bool:
    """Whether ``lines[at]`` ends a failed test's heading: jest's ``● suite › test``, mocha's
    ``1) suite`` down to its test's title and a colon (:data:`_MOCHA_NUMBERED`; its list of
    the run above names each failure so, without the colon)."""
    if _JEST_HEADING.match(lines[at]):
        return True
    if not lines[at].rstrip().endswith(":"):
        return False
    for i in range(at, max(-1, at - _MOCHA_TITLE_LINES), -1):
        if not lines[i].strip():
            return False
        if _MOCHA_NUMBERED.match(lines[i]):
            return True
    return False


def _mocha_heading(lines: Sequence[str], at: int) -> bool:
    """Whether the numbered line ``lines[at]`` (``1) cart``) heads a mocha failure: its
    title ends with a colon, on it or on one of the lines under it."""
    for i in range(at, min(len(lines), at + _MOCHA_TITLE_LINES)):
        if not lines[i].strip() or (i > at and _MOCHA_NUMBERED.match(lines[i])):
            return False
        if lines[i].rstrip().endswith(":"):
            return True
    return False


def _node_header_ends(lines: Sequence[str], blank: int) -> bool:
    """Whether the blank line ``lines[blank]`` ends Node's header of an uncaught error
    (:func:`_node_thrown_at`, the source line, :data:`_CARET_LINE`)."""
    return (
        blank >= 3
        and _CARET_LINE.match(lines[blank - 1]) is not None
        and _node_thrown_at(lines[blank - 3].strip())
    )


def _node_thrown_at(line: str) -> bool:
    """Whether ``line`` is where Node says an error was thrown: a file (no space in it) and
    a line number."""
    where, _, number = line.rpartition(":")
    return bool(where) and number.isdigit() and number.isascii() and not any(map(str.isspace, line))


def paste_start(lines: Sequence[str], first_error: int) -> int:
    """Where the pasted output that holds ``lines[first_error]`` (the first line that reports
    an error) begins: the lines above it back to a blank line, a code fence or a line of the
    prompt's own words. What a build printed before its error is the error's too (the linker's
    ``undefined reference`` above ``collect2: error: ld returned 1 exit status``, git's
    ``! [rejected]`` above ``error: failed to push some refs``), jest's ``● suite › test``
    heading a blank line above its failure, and Node's header of an uncaught error (where it
    was thrown, its source line, a caret) a blank line above it: the prompt's words held it
    ('… node:internal/deps/undici/undici:14976 Error.captureStackTrace(err); ^', the whole
    words query of a crash pasted alone), which found a certificate's fix (0.44) for an
    unknown host's fetch."""
    start = first_error
    while start > 0:
        line = lines[start - 1]
        if not line.strip() and start > 1 and _failed_test_heading(lines, start - 2):
            start -= 1  # (jest and mocha leave a blank line under a failed test's name)
            continue
        if not line.strip() and _node_header_ends(lines, start - 1):
            start -= 4  # (Node's header: where an error was thrown, its line, a caret, a blank)
            continue
        if not line.strip() or line.lstrip().startswith(("```", "~~~")):
            break
        if is_request_line(line) and not _PASTED_MARK.search(line):
            break
        start -= 1
    return start
