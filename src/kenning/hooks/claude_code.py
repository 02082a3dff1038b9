"""Claude Code hooks: add recalled memories to the session as context.

``kenning hook session-start``, ``kenning hook prompt-submit`` and ``kenning hook
tool-failure`` read the hook input JSON that Claude Code writes on stdin (``session_id``,
``transcript_path``, ``cwd``, ``hook_event_name``, plus ``prompt`` for UserPromptSubmit,
``source`` for SessionStart, and ``tool_name``, ``tool_input``, ``error`` and
``is_interrupt`` for PostToolUseFailure) and print, when there is something worth adding,
Claude Code's JSON for added context::

    {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                            "additionalContext": "<reflexion_context>…"}}

The context is the fenced ``<reflexion_context>`` block of :func:`kenning.render.render_xml`.
The project is the one containing ``CLAUDE_PROJECT_DIR`` (as for the MCP server), else
the payload's ``cwd`` (also when ``CLAUDE_PROJECT_DIR`` is outside git and the ``cwd`` is
in a checkout).

* **prompt-submit** recalls for the prompt with the ruvector protocol
  (:meth:`MemoryStore.recall`). Prompts shorter than :data:`MIN_PROMPT_CHARS` are skipped,
  unless they are a whole error (``KeyError: 'user'``).
  The query is built like a plan query (the text under ``## Overview``, else the first
  500 characters; a pasted diff is cut out first; a prompt over :data:`MAX_PROMPT_CHARS`,
  a pasted log, is read as ``kenning recall --error`` reads one, in the smaller parts of
  :data:`PROMPT_LOG_BOUNDS`: its head, the lines around its errors, its tail). When the prompt
  carries an error (:func:`kenning.querybuild.reports_error`: a task that only names an
  exception class carries none), its parsed signature is recalled too, with the error
  floor, and the
  two are one recall (:meth:`MemoryStore.recall_many`: best score per memory, best
  :data:`~kenning.protocol.RECALL_KEEP` kept, one line in the recall log).
* **tool-failure** (PostToolUseFailure: a tool call failed) recalls the fixes for what a
  failed shell command printed (:data:`SHELL_TOOLS`: the agent's test run or build), read
  as ``kenning recall --error`` reads a log, in the smaller parts of :data:`TOOL_LOG_BOUNDS`
  (:func:`kenning.querybuild.error_recall_queries`,
  one :meth:`MemoryStore.recall_many`, the fenced block of
  :func:`kenning.render.render_recall_result`). Claude Code gives a failed command's
  ``error`` as ``Exit code N``, then what it printed (stderr and stdout merged, cut by Claude
  Code to its output limit); that first line is not read. Nothing is recalled, and nothing
  said, for an interrupted call (``is_interrupt``: the user stopped it), for another tool
  (a file that was not found, an edit that did not apply: no program's error), for a
  shell call that ran no program (a permission denied: no ``Exit code`` line; a timed-out
  command keeps it, and what it printed is read), nor for output that reports no error
  (:func:`kenning.querybuild.reports_error`: ``grep`` finding nothing, ``diff`` printing a
  diff).
* **session-start** needs no query: it lists the project's most recent
  :data:`SESSION_ERROR_FIXES` error fixes and :data:`SESSION_CONVENTIONS` conventions
  (rules, guidelines, naming, …), newest first. Their ``score`` is their recency,
  ``0.5 ** (age / half-life)`` with the decay half-lives of ``kenning search`` (1.00 =
  stored today, 0.50 = one half-life old; a note stamped further ahead than
  :data:`kenning.store_write.FUTURE_TOLERANCE` waits for its time, named in the hook's line).
  Both cut the combined text to the protocol's
  :data:`~kenning.protocol.RECALL_CHAR_BUDGET` characters (at session start each group has
  its share: :func:`kenning.render.render_recall_groups`). Before listing, it re-seeds the
  solution documents that changed since the last ``kenning seed-solutions`` of the project
  (:func:`kenning.seeding.reseed_changed`: only documents whose git blob hash changed, at
  most :data:`SESSION_RESEED_MAX_DOCS` per session; a ``stat`` per document when none did;
  the model is loaded only when one did). A project never seeded is not seeded here; on a
  server store, which other clones share, only what is committed is (a doc written, edited
  or deleted and not committed is left as the store has it), and the docs it held back are
  shown the user once (``systemMessage``: :func:`_held_back_line`).

All three mark a memory whose files changed since it was written ``stale="true"`` and rank it
below fresh ones (:mod:`kenning.freshness`), redact the credentials in a memory another
writer of the store left there (:func:`kenning.redaction.redact_secrets`), and skip (and
name) a memory of only whitespace such a writer left.

A hook run for another event than its own (the payload's ``hook_event_name``: a hook
registered under the wrong event) adds nothing: Claude Code refuses output that names
another event.

A server store (PostgreSQL, Qdrant) that is down or refuses the credentials
(:class:`~kenning.errors.StoreUnavailable`) is said to the user, not only on stderr, which
Claude Code shows no one: session-start and prompt-submit print Claude Code's
``{"systemMessage": "kenning: knowledge base NOT consulted: …"}`` (shown to the user, not
given to the model), the credentials redacted; so is one that never answers, the wait for
its connection bounded within the hook's budget (:func:`~kenning.config.connect_timeout_within`).
Without a file of its own a hook cannot know
whether an earlier one of the session said it, so session-start says it at the start and
prompt-submit for each prompt that was answered without the store (when the store comes
back, the message stops); tool-failure says it on stderr only (it runs within a prompt's
turn, whose hook said it, and may run many times in it).

A hook never fails or blocks the session: no store, a broken store, bad input, any
exception, or running past the time budget (:data:`DEFAULT_BUDGET_SECONDS`, or
``KENNING_HOOK_TIMEOUT`` seconds, counted from the process's start: :func:`process_started`)
means exit 0, nothing on stdout and one line on stderr
(a terminal on stdin, a hook typed by hand, is said at once, not after the budget; a
stdin its caller never closes is named as what the budget ran out on; an input over
:data:`MAX_INPUT_BYTES` is not read further).
Nor does a hook build the model's cached graph: when the cache is cold it starts a
background ``kenning build-cache`` and goes on without the model (prompt-submit and
tool-failure say so in one line; session-start lists and leaves the re-seed for later; see
:func:`_model_cache_cold`).
What kenning logs meanwhile (a damaged model cache rebuilt, a damaged row skipped) is
collected and said in that line, or in one of its own when the hook did its work.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import logging
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .. import config, protocol
from ..errors import KenningError, StoreUnavailable, json_error_said, not_utf8
from ..log_window import PARTS_READ, Bounds

if TYPE_CHECKING:
    from ..log_window import LogWindow
    from ..model import Memory
    from ..seeding import SeedReport
    from ..store import MemoryStore

__all__ = [
    "DEFAULT_BUDGET_SECONDS",
    "EVENTS",
    "MAX_INPUT_BYTES",
    "MIN_PROMPT_CHARS",
    "SESSION_CONVENTIONS",
    "SESSION_ERROR_FIXES",
    "SESSION_RESEED_MAX_DOCS",
    "SHELL_TOOLS",
    "SYSTEM_MESSAGE_EVENTS",
    "TOOL_LOG_BOUNDS",
    "HookSkip",
    "context_for",
    "failed_program_output",
    "main",
    "prompt_queries",
    "run",
]

#: ``kenning hook <name>`` → Claude Code's hook event name.
EVENTS: Mapping[str, str] = {
    "session-start": "SessionStart",
    "prompt-submit": "UserPromptSubmit",
    "tool-failure": "PostToolUseFailure",
}
#: The tools whose failure is a program's: a command the agent ran (a test run, a build)
#: exited with an error, and what it printed is the error (Claude Code 2.1.328 names its
#: shell tools so; the install registers the tool-failure hook for them alone).
SHELL_TOOLS = frozenset({"Bash", "PowerShell"})
#: The hooks that say a server store that is down to the user (``systemMessage``).
SYSTEM_MESSAGE_EVENTS = frozenset({"session-start", "prompt-submit"})
#: The first line of a failed shell call's ``error``: Claude Code's ``Exit code N`` before
#: what the command printed (no such line: the call ran no program to its end).
_EXIT_CODE_LINE = re.compile(r"\AExit code -?\d+[^\S\n]*(?:\n|\Z)")
#: Prompts shorter than this (after stripping) are not worth a recall ("yes", "go on"),
#: unless they are an error of more than one word (``KeyError: 'user'``).
MIN_PROMPT_CHARS = 20
#: A prompt of at most this many characters (any query recall takes) is read whole; a
#: longer one (a pasted log or file) as :func:`kenning.log_window.log_window` reads a log,
#: within :data:`PROMPT_LOG_BOUNDS`.
MAX_PROMPT_CHARS = protocol.MAX_QUERY_CHARS
#: What the hook reads of a pasted log: what ``kenning recall --error`` reads
#: (:func:`kenning.log_window.log_window`'s rules), in smaller parts, since the hook reads
#: it again line by line for the prompt's words and errors (:func:`prompt_recall_queries`)
#: within its budget (:data:`DEFAULT_BUDGET_SECONDS`), after Python's start and the
#: model's load (0.4–0.7 s of a hook's process at the machine's usual load, 1.6–2.7 s with
#: two more busy processes). Calibrated on the 2 shared cores (2026-12-06, four log shapes:
#: Maven downloads, a service's INFO/WARNING/ERROR lines, every line an ERROR, ``pytest -v``
#: names holding "fails"/"errors"), the hook's reading (:func:`prompt_recall_queries`),
#: at the usual load (load average 4–6 of the other engineers) / with two more busy
#: processes: a prompt read whole costs ~4–9 µs a character (20,000 characters, what it
#: read before: 0.03–0.08 s / 0.06–0.23 s; 32,000: 0.08–0.15 s / 0.20–0.39 s; 90,000:
#: 0.37–1.0 s / 0.8–1.6 s), and searching the middle of a huge paste for its errors ~10–20 µs
#: a line that names an error word (its 40,000 lines cost up to 1.3 s loaded). With these
#: bounds (whole up to 32,005 characters and 685 lines) the reading takes at most 0.43 s /
#: 0.98 s for a 5 MB paste (0.15 s / 0.50 s for 180 KB): under a second of the 5 s, loaded.
#: A paste with more than 20,000 lines that name an error word before its error (5 MB of
#: them) is searched that far; its head and tail are still read.
PROMPT_LOG_BOUNDS = Bounds(
    head_lines=80,
    head_chars=5_000,
    tail_lines=300,
    tail_chars=12_000,
    error_above=10,
    error_below=60,
    error_chars=6_000,
    trace_lines=300,
    middle_chars=15_000,
    error_tries_chars=50_000,
    weak_tries_chars=20_000,
    candidates_max=20_000,
    parts_apart=False,
)
#: What the tool-failure hook reads of a failed command's output: what ``kenning recall
#: --error`` reads of a log (:func:`kenning.log_window.log_window`'s rules), in smaller
#: parts, since a command can print as much as a pasted log (a test run's 20 MB) and the
#: hook reads it within its budget (:data:`DEFAULT_BUDGET_SECONDS`), after Python's start
#: and the model's load. Of an output over 4,000,000 characters, its head and its last
#: 4,000,000 characters are read (an error further up is not: the commands read 20,000,000).
#: Calibrated on the 2 shared cores (2026-12-06, load average 7–11 of the other engineers;
#: four output shapes as for :data:`PROMPT_LOG_BOUNDS`, a Maven OutOfMemoryError in the
#: middle or at the end), the hook's reading (:func:`failed_program_output` and its
#: queries): with the commands' bounds 1.9–4.9 s for 5 MB and 3.5–11.0 s for 20 MB, and the
#: hook's process (``kenning hook tool-failure``, model cache warm) 6.2–11.6 s and 8.4–19.1 s:
#: past the 5 s budget every time, the session told nothing. With these (whole up to 46,005
#: characters and 1,085 lines) the reading takes 0.7–1.4 s for 5 MB and 0.9–2.1 s for 20 MB,
#: the hook's process 2.1–3.7 s and 0.8–3.4 s (1.4–1.7 s for an output of two lines).
TOOL_LOG_BOUNDS = Bounds(
    head_lines=80,
    head_chars=6_000,
    tail_lines=600,
    tail_chars=25_000,
    error_above=20,
    error_below=80,
    error_chars=6_000,
    trace_lines=400,
    middle_chars=15_000,
    error_tries_chars=50_000,
    weak_tries_chars=20_000,
    candidates_max=20_000,
    raw_max_chars=4_000_000,
)
#: The hook input is a small JSON object (a prompt, a few paths): past this many bytes the
#: rest is not read (a stream that never ends would fill the memory until the budget ends).
MAX_INPUT_BYTES = 64 * 1024 * 1024
#: The hook gives up after this many seconds (``KENNING_HOOK_TIMEOUT`` overrides it).
DEFAULT_BUDGET_SECONDS = config.DEFAULT_HOOK_TIMEOUT_S
BUDGET_ENV = "KENNING_HOOK_TIMEOUT"
#: When this module was imported (:func:`time.monotonic`): what the budget is counted from
#: where the process's own start cannot be read.
_IMPORTED = time.monotonic()
#: A process older than this when it asks is no hook that just started: its start time was
#: misread (a clock of another namespace), and the module's import is taken instead.
_STARTED_AGO_MAX_S = 3600.0
#: What session-start lists: the newest error fixes, then the newest conventions.
SESSION_ERROR_FIXES = 3
SESSION_CONVENTIONS = 2
#: At most this many changed solution documents are re-seeded per session start (each one
#: is embedded again: ~3 entries, well under a second with the model loaded); the rest
#: wait for the next session or `kenning seed-solutions`.
SESSION_RESEED_MAX_DOCS = 10
#: What a hook says (on stderr) in a project without a store.
NO_STORE = "no kenning store for this project yet; nothing to recall"
#: The hook's own messages of fixed text, which :func:`_diagnose` says as they are: redacted,
#: escaped and fitted they are what they were (a test holds it), and a hook in a project
#: without a store redacted its one line, loading the redaction rules (0.03–0.04 CPU-s of
#: the hook's 0.15) on every prompt of every project where the plugin is installed
#: user-wide.
_SAID_AS_IS = frozenset({NO_STORE})
#: Each part of the diagnostic line on stderr is fitted to this many characters (a message
#: may quote a huge input: a cwd of 1 MB); the parts are few (one per thing that went
#: wrong, and at most :data:`_RESEED_FAILURES_NAMED` failed re-seeds and their count).
_DIAGNOSTIC_CHARS = 400
#: The solution folders and docs whose re-seed failed named on a session's line, each in a
#: part of its own; the others are counted.
_RESEED_FAILURES_NAMED = 3


class HookSkip(Exception):
    """Nothing to add, for a reason worth one line on stderr (empty reason: say nothing)."""


class ServerStoreNotConsulted(Exception):
    """The session's store is named by a URL (a team's server, a Qdrant folder), and kenning
    could not read it for a reason of its own (a role without grants on its tables, a URL
    kenning refuses before connecting: a mistyped scheme, a bad escape): said to the user as
    a server that is down is (qa-s67c F1)."""


# --------------------------------------------------------------------------------------------
# Queries
# --------------------------------------------------------------------------------------------


def _looked_at(prompt: str) -> str:
    """What the hook reads of ``prompt``: all of it up to :data:`MAX_PROMPT_CHARS`, and up
    to :data:`PROMPT_LOG_BOUNDS`' whole size; of a longer one (a pasted log), what
    ``kenning recall --error`` reads of a log, in smaller parts: its first lines (the
    prompt's words), the lines around its errors and its last lines (the request after the
    paste); a test runner's JSON report as printed."""
    return _read(_prompt_window(prompt))


def _prompt_window(prompt: str) -> LogWindow:
    from ..log_window import log_window

    return log_window(prompt, PROMPT_LOG_BOUNDS)


def _read(window: LogWindow) -> str:
    from ..json_reports import as_printed

    return as_printed(window.text)


def _read_in_part(window: LogWindow) -> str:
    """The line the prompt's context says when the hook read only parts of it (a long
    paste): which lines it read (its first, those around its errors, its last), for the
    findings are for those; ``""`` when it read all of it. (A line read as a terminal shows
    it, its progress bar's last redraw, is read whole.)"""
    if not (window.parts or window.cut_lines):
        return ""
    # which lines, only when lines were left out: a long line cut short is the rest (every
    # line read, qa-s70b F11)
    which = f": {PARTS_READ}"
    return (
        f"kenning read only part of this prompt, {window.what_was_read('its')}"
        f"{which if window.parts else ''}"
    )


def prompt_queries(prompt: str) -> list[tuple[str, bool]]:
    """The recall queries for a prompt, as ``(query, is_error_query)`` pairs; ``[]`` when
    the prompt is too short to be worth a recall (and is no error of two words or more).
    :func:`prompt_recall_queries` without the fallbacks."""
    return prompt_recall_queries(prompt)[0]


def prompt_recall_queries(prompt: str) -> tuple[list[tuple[str, bool]], list[tuple[str, bool]]]:
    """The recall queries for a prompt, as ``(query, is_error_query)`` pairs, and their
    fallbacks (:meth:`~kenning.store.MemoryStore.recall_many`: their hits compete for the
    places after the queries' best hit): the causes a chained error prints before its crash
    and the errors a pasted log's warnings name where its crash names its own
    (:func:`kenning.querybuild.error_fallbacks`). ``[]`` when the
    prompt is too short to be worth a recall (and is no error of two words or more).

    Of a prompt over :data:`MAX_PROMPT_CHARS`, what :func:`_looked_at` reads (a pasted
    log's head, errors and tail). A pasted diff is cut out first (what follows it is kept).
    Without an error, the query is the plan query of the prompt (text under
    ``## Overview``, else its first 500 characters). With an error, the
    prompt's own words before the first error and the request after the last one
    (:func:`kenning.querybuild.is_request_line`; when long enough) are one query and the
    parsed error signature — never the whole stack trace, nor the words of a sentence
    around an error told in it (:func:`kenning.querybuild.error_in_sentence`) — is another.
    """
    return _recall_queries_of(_looked_at(prompt))


def _recall_queries_of(
    prompt: str,
) -> tuple[list[tuple[str, bool]], list[tuple[str, bool]]]:
    """:func:`prompt_recall_queries` of what the hook read of a prompt (:func:`_looked_at`)."""
    from ..errors import UserInputError
    from ..log_formats import ANSI, without_run_log_prefixes
    from ..querybuild import (
        MOST_ERRORS_TOLD,
        error_fallbacks,
        errors_beside_signature,
        errors_on_line,
        errors_told_on_lines,
        is_request_line,
        is_runner_boilerplate,
        paste_start,
        pasted_api_error,
        query_from_error,
        query_from_plan,
        reports_error,
        without_diffs,
        without_runtime_words,
    )
    from ..signatures import names_error, written_below_error

    # a lone surrogate (half an emoji a client cut) would make every query unusable
    # (a test runner's JSON report was read, as printed, before a long prompt was read in
    # part: jest's is one line, and cut, it reads as no report; qa-s67b F2)
    prompt = prompt.encode("utf-8", "replace").decode("utf-8")
    prompt = ANSI.sub("", prompt)  # a terminal's colours, pasted with its output
    prompt = without_run_log_prefixes(prompt)  # gh's job and step before a CI log's lines
    text = without_diffs(prompt).strip()
    if len(text) < MIN_PROMPT_CHARS and not (reports_error(text) and len(text.split()) > 1):
        return [], []  # "yes", "go on"; but a whole error is short too ("KeyError: 'user'")
    lines = text.splitlines()
    errors = [i for i, line in enumerate(lines) if reports_error(line)]
    first_error = errors[0] if errors else None
    # an API's error response pasted whole: no line of it need look like an error
    body = pasted_api_error(lines) if first_error is None else None
    if first_error is None and body is None and not reports_error(text):
        try:
            return [(query_from_plan(text), False)], []
        except UserInputError:
            return [], []
    error_text = text
    if first_error is not None:
        # an error told in a sentence: its words go with the prompt's, the error alone is
        # the error query ("… fails with KeyError: 'user' when I log in"); a log's line is
        # the paste's, whole
        before, told = errors_on_line(lines[first_error])
        before = without_runtime_words(before)  # (the JVM's 'Exception in thread "main')
        error, more = told[0], told[1:]
        # (a log's warning above the crash: the errors it tells, asked only when the
        # paste's error line names none of its own, "ERROR api: request failed")
        warned = more if error == lines[first_error] and written_below_error(error) else []
        # a later line that tells its own error in a sentence ("the worker fails with
        # KeyError: 'user'\nand the api with ValueError: bad value"; "run 1: …exit code
        # 137.\nrun 2: …exit code 143."): each of its errors is asked too, and the line is
        # not read with the paste (whose one signature was either line's); a line a tool
        # printed is the paste's (:func:`kenning.querybuild.errors_told_on_lines`)
        told_after, told_there = errors_told_on_lines(
            lines[first_error + 1 :], MOST_ERRORS_TOLD - 1 - len(more), known=told
        )
        later = {first_error + 1 + i for i in told_after}
        more += told_there
        # and the words asked after the pasted error ("… Can you add a guard for this?")
        after = [line for line in lines[errors[-1] + 1 :] if is_request_line(line)]
        # the output pasted with it, from its first line: what a build printed above the
        # line that reports an error is the error's (the linker's undefined reference above
        # collect2's exit), as `kenning recall --error` reads the paste whole
        start = paste_start(lines, first_error)
        # (a pasted test report's header, rules and progress above its failure, and its
        # summary's lines after it, are no words of the prompt's: is_runner_boilerplate)
        words = "\n".join(
            line for line in [*lines[:start], before, *after] if not is_runner_boilerplate(line)
        ).strip()
        rest = [line for i, line in enumerate(lines) if i > first_error and i not in later]
        error_text = "\n".join([*lines[start:first_error], error, *rest])
    elif body is not None:
        start, end = body
        after = [line for line in lines[end + 1 :] if is_request_line(line)]
        words = "\n".join([*lines[:start], *after]).strip()
        error_text, more, warned = "\n".join(lines[start : end + 1]), [], []
    else:
        words, more, warned = text, [], []
    queries: list[tuple[str, bool]] = []
    if len(words) >= MIN_PROMPT_CHARS:
        with contextlib.suppress(UserInputError):
            queries.append((query_from_plan(words), False))
    try:
        signature = query_from_error(error_text)
    except UserInputError:
        signature = ""
    if signature and all(signature != q for q, _ in queries):
        queries.append((signature, True))
    if warned and names_error(signature):  # (a retry's warning's fix crowded out the crash's:
        more = [error for error in more if error not in warned]  # it is a fallback, below)
    if signature:  # a logfmt, zap or klog line's error field, asked alone (Go's bare error)
        more = [*errors_beside_signature(error_text.splitlines(), signature), *more]
    # the other errors a sentence tells beside the first, each asked alone ("test_a fails:
    # assert 401 == 200. test_b fails: assert 404 == 200.")
    for error in more:
        with contextlib.suppress(UserInputError):
            signature = query_from_error(error)
            if all(signature != q for q, _ in queries):
                queries.append((signature, True))
    fallbacks = error_fallbacks(error_text, {q for q, _ in queries}) if queries else []
    return queries, [(error, True) for error in fallbacks]


def failed_program_output(payload: Mapping[str, Any]) -> str:
    """What a failed tool call (PostToolUseFailure's input) printed, to be read as an error
    log: the ``error`` of a :data:`SHELL_TOOLS` call after Claude Code's ``Exit code N`` line;
    of a long one, what :func:`kenning.log_window.log_window` reads of it within
    :data:`TOOL_LOG_BOUNDS` (its head, the lines around its errors, its tail).
    :class:`HookSkip` without a word when there is no program's error to read (an
    interrupted call, another tool, a call that ran no program to its end, output that
    reports no error); with one when the input is not what Claude Code sends."""
    from ..log_window import log_window
    from ..querybuild import reports_error

    if payload.get("is_interrupt") is True:
        raise HookSkip("")  # the user stopped it: no error to look up
    tool = payload.get("tool_name")
    if not isinstance(tool, str):
        raise HookSkip(
            f"the hook input's tool_name is {_json_kind(tool)}, not a string (the tool that failed)"
            if "tool_name" in payload
            else "the hook input has no tool_name (is this a PostToolUseFailure hook?)"
        )
    if tool not in SHELL_TOOLS:
        raise HookSkip("")  # a file not found, an edit that did not apply: no program's error
    error = payload.get("error")
    if not isinstance(error, str):
        raise HookSkip(
            f"the hook input's error is {_json_kind(error)}, not a string (what the failed "
            "command printed)"
            if "error" in payload
            else "the hook input has no error (is this a PostToolUseFailure hook?)"
        )
    ran = _EXIT_CODE_LINE.match(error)
    if ran is None:
        raise HookSkip("")  # a permission denied: no program ran
    # read once, within the hook's bounds: every reader after reads what was read whole
    output = log_window(error[ran.end() :], TOOL_LOG_BOUNDS).text
    # a lone surrogate (half an emoji the output cut) would make every query unusable
    output = output.encode("utf-8", "replace").decode("utf-8")
    if not reports_error(output):
        raise HookSkip("")  # grep found nothing, diff printed a diff: no error to look up
    return output


def _error_queries(
    output: str,
) -> tuple[list[tuple[str, bool | None]], list[tuple[str, bool | None]]]:
    """The recall's queries and fallbacks for a failed command's ``output``, as ``kenning
    recall --error`` asks them; :class:`HookSkip` without a word when it names no error a
    query can be made of."""
    from ..errors import UserInputError
    from ..querybuild import check_query, error_recall_queries

    try:
        queries, fallbacks = error_recall_queries(output)
        for text, _ in queries:
            check_query(text)
    except UserInputError:
        raise HookSkip("") from None
    if not queries:
        raise HookSkip("")
    return queries, fallbacks


# --------------------------------------------------------------------------------------------
# Context
# --------------------------------------------------------------------------------------------


def _project_dir(payload: Mapping[str, Any]) -> Path:
    """The project the session is for: ``CLAUDE_PROJECT_DIR`` (Claude Code sets it to the
    project it was started in), as the MCP server the agent remembers through serves it —
    the input's ``cwd`` follows the agent's ``cd`` into another repository; else the
    input's ``cwd``; else the hook's working folder. A ``CLAUDE_PROJECT_DIR`` outside git
    (Claude Code started in a folder of several checkouts) gives way to a ``cwd`` inside
    one."""
    from ..project import find_checkout, in_a_checkout, is_folder, repository_refused

    # is_folder, not Path.is_dir: a path too long for the OS is no folder, not an OSError
    env = config.claude_project_dir()
    if env is not None and is_folder(env):
        cwd = payload.get("cwd")
        if (
            isinstance(cwd, str)
            and cwd.strip()
            and Path(cwd) != env  # the usual case: no git run for it
            and find_checkout(env) is None
            # a checkout this user cannot read is still the project: its fix is said
            and repository_refused(env) is None
            and in_a_checkout(Path(cwd))
        ):
            return Path(cwd)
        return env
    cwd = payload.get("cwd")
    if cwd is not None:
        if not isinstance(cwd, str) or not cwd.strip():
            raise HookSkip(f"the hook input's cwd is not a path: {cwd!r}")
        path = Path(cwd)
        if not is_folder(path):
            # the path last: the line is cut to its first 400 characters
            raise HookSkip(f"the hook input's cwd is not a folder: {cwd}")
        return path
    if env is not None:
        # said as such: the git lookup that followed called it "not inside a git repository"
        raise HookSkip(f"CLAUDE_PROJECT_DIR={env} is not a folder")
    return Path(os.getcwd())


def _open_store(cwd: Path, budget: float) -> MemoryStore:
    from ..project import git_asked_once, surely_no_store

    with git_asked_once():  # the project is found for the look and again for the open
        if surely_no_store(cwd):
            raise HookSkip(NO_STORE)
        from ..store import open_store

        # a server that never answers (packets dropped) is said as one that is down, within
        # the budget: libpq's own wait (10 s) outlasted it, and the hook ended saying nothing
        store = open_store(
            cwd=cwd,
            create=False,
            missing_ok=True,
            connect_timeout=config.connect_timeout_within(budget),
        )
    if not store.exists:
        store.close()
        raise HookSkip(NO_STORE)
    return store


def _model_cache_cold() -> str:
    """``""`` when the hook may load the model within its budget as always; else the one
    line to say instead: the model's cached graph is cold and is being built by a
    background ``kenning build-cache`` (started here unless one is running already).

    A cold cache costs a build of seconds (:mod:`kenning.embedders.minilm`): inside the
    budget it would be killed with the hook, and started again by the next one, for ever.
    The build is left to a detached process instead (its lock keeps a second one waiting).
    The model is loaded in the budget as before when the embedder is not MiniLM, the cache
    cannot be written (a build is then used uncached: a background one would be lost), a
    background build failed in the last hour (the load says why), or none can be started.
    """
    if config.embedder_name() != "minilm":
        return ""
    try:
        from ..embedders.minilm import cache_status

        status = cache_status()
        if status.warm or not status.writable or status.failed:
            return ""
        if not status.building:
            _start_model_build()
    except Exception:  # a model that cannot be found, a cache that cannot be read…
        return ""  # … the load in the budget says what is wrong
    return (
        f"the model cache ({status.folder}) is being built in the background; recall "
        "resumes when it is ready"
    )


def _start_model_build() -> None:
    """Start ``kenning build-cache`` detached: its own session (so it outlives the hook and
    the agent's signals to it), no inherited streams or descriptors, in the root folder
    (it holds no project folder busy) and with ``-P`` (no folder shadows a module)."""
    import subprocess

    if not sys.executable:
        raise OSError("no Python executable to run the build with")
    subprocess.Popen(
        [sys.executable, "-P", "-m", "kenning", "build-cache"],
        cwd=os.path.abspath(os.sep),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )


def _shown(memory: Memory) -> str:
    """A memory's text as the agent is given it: its credentials redacted. kenning redacts
    what it stores, but not every writer of a store does (another tool's hooks, an older
    version); redacted before the budget cuts it (a cut token no longer matches)."""
    from ..store_read import redacted_on_read

    return redacted_on_read(memory).content


def _prompt_context(
    store: MemoryStore,
    queries: list[tuple[str, bool | None]],
    fallbacks: list[tuple[str, bool | None]],
    read_in_part: str = "",
) -> str:
    """The recall for a prompt's queries (:func:`prompt_recall_queries`), with the line that
    says the prompt was read in part (:func:`_read_in_part`)."""
    from ..render import Finding, render_recall

    # the hook judged each query (a task naming an exception is no error query); one recall
    # for them all (best score per memory, one line in the recall log)
    result = store.recall_many(queries, redact_on_read=True, fallbacks=fallbacks)
    findings: list[Finding] = [
        (hit.memory.content, hit.score, hit.stale, hit.memory.written_at.date())
        for hit in result.hits
    ]
    context = "debugging" if result.is_error else "work"
    return render_recall(findings, context=context, read_in_part=read_in_part)


def _error_context(
    store: MemoryStore,
    queries: list[tuple[str, bool | None]],
    fallbacks: list[tuple[str, bool | None]],
) -> str:
    """The fenced block of the fixes recalled for a failed command's error: one recall of
    its queries, as ``kenning recall --error --format xml`` prints it."""
    from ..render import render_recall_result

    result = store.recall_many(queries, redact_on_read=True, fallbacks=fallbacks)
    return render_recall_result(result, store.group_id)


def _reseed(
    store: MemoryStore, warn: Callable[[str], None], tell: Callable[[Told], None] | None = None
) -> bool:
    """Re-seed the solution documents that changed; a failure is said, never raised; the
    docs held back from a store other clones share are told the user (``tell``:
    :func:`_held_back_line`). Whether any memory changed."""
    from ..seeding import reseed_changed, shown_path, unread_docs

    try:
        reports = reseed_changed(store, max_docs=SESSION_RESEED_MAX_DOCS)
    except Exception as exc:  # the listing still runs
        warn(f"could not re-seed changed solution docs: {_describe(exc)}")
        return False
    root = store.project.files_root
    failed = [
        f"could not re-seed the solution docs of {shown_path(r.directory, root)}: {r.error}"
        for r in reports
        if r.error is not None
    ] + [  # a category folder not listed: the folder's other categories were re-seeded
        f"could not re-seed the solution docs of {shown_path(Path(r.directory) / c, root)}: {e}"
        for r in reports
        for c, e in r.unreadable
    ]
    # a doc the file system would not give (an I/O error): the folder's others were re-seeded
    failed += [f"could not re-seed {path}: {why}" for path, why in unread_docs(reports, root)]
    # (the others were re-seeded) each one a part of the line, fitted to its own
    # _DIAGNOSTIC_CHARS: joined in one, the second one's fix was cut (qa76 hookline F1)
    for failure in failed[:_RESEED_FAILURES_NAMED]:
        warn(failure)
    more = len(failed) - _RESEED_FAILURES_NAMED
    if more > 0:
        warn(
            f"and {more} more solution folder(s) or doc(s) could not be re-seeded (`kenning "
            "seed-solutions` at the checkout's top, given each solutions folder, says them all)"
        )
    pending = sum(r.pending for r in reports)
    if pending:
        warn(
            f"{pending} more changed solution doc(s) wait for the next session "
            "(or run `kenning seed-solutions`)"
        )
    if tell is not None:
        try:
            told = _held_back_line(store, reports)
        except Exception as exc:  # (said, as a re-seed's failure is: the listing still comes)
            warn(f"could not tell the solution docs held back from the store: {_describe(exc)}")
        else:
            if told.line:
                tell(told)
    return any(r.changed for r in reports)


#: The held-back docs named in one line at most; the others are counted.
_HELD_BACK_NAMED = 3


@dataclass(frozen=True)
class Told:
    """A line for the user (Claude Code's ``systemMessage``), and what to record once it is
    printed (``shown``): a line the hook never printed (its budget ran out first, stdout
    was closed) is not recorded as said."""

    line: str
    shown: Callable[[], None] = field(default=lambda: None)


def _held_back_line(store: MemoryStore, reports: Sequence[SeedReport]) -> Told:
    """The line that names the docs the re-seed held back from a store other clones share
    (:func:`kenning.seeding.held_back`), those not said at an earlier session of this
    checkout while they were held back already: what was said is kept in the cache folder
    (a file per checkout, store and project, there only while something is held back), so
    a session says nothing of a doc it said was held back until that changes. Its line is
    empty when there is nothing new to say; a cache that cannot be read or written says it
    again. The line is recorded as said by its ``shown``, once printed (a line recorded as
    it was made was lost when the listing made again after the re-seed outlasted the
    hook's budget: the hook gave the listing made before, without it)."""
    import hashlib

    from ..seeding import held_back

    project = store.project
    if not project.on_a_server:
        return Told("")  # one repository's store: nothing is held back (and no file kept)
    held = [f"{path}: {why}" for path, why in held_back(reports, project.files_root)]
    where = f"{project.files_root}\0{project.store_url or project.store_path}\0{store.group_id}"
    key = hashlib.sha256(where.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    memo = config.cache_dir() / "held-back" / f"{key}.json"
    if not held:
        with contextlib.suppress(OSError):
            memo.unlink(missing_ok=True)
        return Told("")
    said: set[str] = set()
    with contextlib.suppress(OSError, ValueError, RecursionError):
        before = json.loads(memo.read_text(encoding="utf-8"))
        said = (
            {line for line in before if isinstance(line, str)}
            if isinstance(before, list)
            else set()
        )
    new = [line for line in held if line not in said]

    def record() -> None:
        with contextlib.suppress(OSError):
            memo.parent.mkdir(parents=True, exist_ok=True)
            part = memo.with_suffix(f".{os.getpid()}.tmp")
            part.write_text(json.dumps(sorted(held)), encoding="utf-8")
            part.replace(memo)

    if not new:
        if set(held) != said:
            record()  # (fewer held back: nothing unsaid is recorded)
        return Told("")
    more = len(new) - _HELD_BACK_NAMED
    line = "; ".join(new[:_HELD_BACK_NAMED]) + (f"; and {more} more" if more > 0 else "")
    return Told(line, record)


def _newest_listable(
    store: MemoryStore,
    limit: int,
    memory_type: str | tuple[str, ...],
    moment: datetime,
    warn: Callable[[str], None],
) -> list[Memory]:
    """The ``limit`` newest memories of ``memory_type`` worth a session's slot. A row stamped
    further ahead than kenning accepts when it stores one (another writer's clock, or damage)
    would sort first, as a note stored today, until that date came: it waits for its time
    (listed from then on, aged as any), and is named meanwhile. (A row of no text, another
    writer's, is damaged: the store skips it and names it, and the next one takes its slot.)"""
    from ..store_write import FUTURE_TOLERANCE

    horizon = moment + FUTURE_TOLERANCE
    rows = store.newest(limit, memory_type=memory_type)
    ahead = [m for m in rows if m.stored_at > horizon]
    if ahead:
        import shlex

        first = ahead[0]
        more = f" (and {len(ahead) - 1} more)" if len(ahead) > 1 else ""
        if len(ahead) == limit:  # every one read: how many more the read did not reach
            more = f" (and {limit - 1} or more: `kenning doctor` counts them)"
        warn(
            f"left out the memory {first.id!r}{more} until its time: it is stored in the future "
            f"({first.stored_at.isoformat(timespec='seconds')}, by a clock ahead or damage); "
            f"`kenning forget {shlex.quote(first.id)}` removes it"
        )
        rows = store.newest(limit, memory_type=memory_type, stored_before=horizon)
    return rows


def _session_context(
    store: MemoryStore, now: datetime | None = None, warn: Callable[[str], None] | None = None
) -> str:
    from ..model import COLLECTIONS, utc_now
    from ..render import Finding, render_recall_groups
    from ..scoring import age_days, half_life_for, temporal_score

    moment = now or utc_now()
    overrides = store.settings.half_lives()
    penalty = store.settings.stale_penalty
    say = warn or (lambda message: None)
    groups = (
        _newest_listable(store, SESSION_ERROR_FIXES, "error_fix", moment, say),
        _newest_listable(store, SESSION_CONVENTIONS, COLLECTIONS["conventions"], moment, say),
    )
    states = store.freshness([m for group in groups for m in group])

    def scored(m: Memory) -> tuple[str, float, bool, date]:
        stale = m.id in states and states[m.id].stale
        recency = temporal_score(
            age_days(m.stored_at, moment), half_life_for(m.type, m.collection, overrides)
        )
        # a stale memory ranks below fresh ones of its group (the stale penalty)
        return _shown(m), recency - penalty if stale else recency, stale, m.written_at.date()

    listed: list[list[Finding]] = []
    for group in groups:
        ranked = sorted((scored(m) for m in group), key=lambda f: -f[1])
        # shown as a recency, 0.00 to 1.00: an old stale memory is not below 0.00
        listed.append([(text, max(0.0, score), stale, day) for text, score, stale, day in ranked])
    # each group its share of the budget: long error fixes do not crowd the conventions out
    return render_recall_groups(listed, context="general")


def _say_other_projects(store: MemoryStore, warn: Callable[[str], None], *, listed: bool) -> None:
    """Nothing to list because the store's notes are under another project id (a renamed
    repository, a changed remote), or (``listed`` or not) notes still under the id the
    checkout's folder name gave it before its ``origin`` remote was added, which recall
    names too: said once a session, where the user reads hook output."""
    from ..render import earlier_notes_line, other_projects_line

    others = {} if listed else store.other_projects()
    if others:
        warn(other_projects_line(store.group_id, others))
        return
    earlier = store.earlier_project_notes()
    if earlier:
        old_id, n = next(iter(earlier.items()))
        warn(earlier_notes_line(store.group_id, old_id, n, one_checkout=store.one_checkout))


def _json_kind(value: object) -> str:
    """What JSON calls the kind of a parsed ``value`` (an array, not Python's list)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an object" if isinstance(value, dict) else "an array"


def _unknown_event(event: str) -> str:
    if not event.strip():  # a registration that lost its event word
        return "name the hook to run: " + " or ".join(f"kenning hook {e}" for e in EVENTS)
    return f"unknown hook {event!r}; valid hooks are {', '.join(EVENTS)}"


def context_for(
    event: str,
    payload: object,
    now: datetime | None = None,
    warn: Callable[[str], None] | None = None,
    listed: Callable[[str], None] | None = None,
    budget: float = DEFAULT_BUDGET_SECONDS,
    tell: Callable[[Told], None] | None = None,
) -> str:
    """The ``additionalContext`` for hook ``event`` given its input ``payload``; ``""``
    when there is nothing to add. Raises :class:`HookSkip` (or anything) otherwise.
    ``warn`` receives what went wrong without stopping the hook (default: stderr); ``tell``,
    at session start, what to show the user (Claude Code's ``systemMessage``: the solution
    docs the re-seed held back from a store other clones share);
    ``listed``, at session start, the listing made before the re-seed, which the hook
    gives if the re-seed outlasts its budget (another process holding the write lock);
    ``budget``, the hook's seconds, which bound the wait for a server store to answer."""
    if event not in EVENTS:
        raise HookSkip(_unknown_event(event))
    if not isinstance(payload, dict):
        raise HookSkip(f"the hook input is {_json_kind(payload)}, not a JSON object")
    ran_for = payload.get("hook_event_name")
    if isinstance(ran_for, str) and ran_for != EVENTS[event]:
        # Claude Code refuses output that names another event than the one the hook ran
        # for ("Hook returned incorrect event name"): a hook wired under the wrong event
        raise HookSkip(
            f"this is the {EVENTS[event]} hook, but Claude Code ran it for {ran_for}; register "
            f"`kenning hook {event}` under {EVENTS[event]} (kenning install claude-code)"
        )
    queries_asked: tuple[list[tuple[str, bool | None]], list[tuple[str, bool | None]]] | None
    queries_asked = None
    read_in_part = ""
    if event == "prompt-submit":
        prompt = payload.get("prompt")
        if "prompt" in payload and not isinstance(prompt, str):
            raise HookSkip(
                f"the hook input's prompt is {_json_kind(prompt)}, not a string (the text the "
                "user submitted)"
            )
        if not isinstance(prompt, str):
            raise HookSkip("the hook input has no prompt (is this a UserPromptSubmit hook?)")
        # read once, before a store is opened (a pasted log's reading is most of the work)
        window = _prompt_window(prompt)
        queries, fallbacks = _recall_queries_of(_read(window))
        read_in_part = _read_in_part(window)
        if not queries:
            raise HookSkip("")  # a short prompt: nothing to recall, nothing to say
        queries_asked = ([*queries], [*fallbacks])
    if event == "tool-failure":  # read before a store is opened: most failures ask nothing
        queries_asked = _error_queries(failed_program_output(payload))
    cwd = _project_dir(payload)
    warn = warn or (lambda message: _diagnose(sys.stderr, event, message))
    try:
        return _store_context(
            event, payload, cwd, queries_asked, now, warn, listed, budget, read_in_part, tell
        )
    except KenningError as exc:
        if isinstance(exc, StoreUnavailable) or not _store_is_named_by_url(cwd):
            raise
        raise ServerStoreNotConsulted(f"knowledge base NOT consulted: {exc}") from exc


def _store_is_named_by_url(cwd: Path) -> bool:
    return _store_named_by_url(cwd) is not None


def _store_named_by_url(cwd: Path) -> str | None:
    """KENNING_STORE, of the environment or the project's own .env, when it names the
    session's store by a URL (a server's, a mistyped one too, or a Qdrant folder's); None
    otherwise. A committed .env's is no store of the user's (kenning refuses it): a cloned
    repository does not make kenning speak to the user at every prompt."""
    from ..project import find_checkout, settings_committed

    try:
        checkout = find_checkout(cwd)
        root = checkout.settings_root if checkout is not None else None
        value, origin = config.project_variable("KENNING_STORE", root)
        if origin == ".env" and root is not None and settings_committed(root):
            return None
    except Exception:  # (what cannot be told is not said to the user)
        return None
    text = (value or "").strip().lower()
    return value if "://" in text or text.startswith(config.QDRANT_LOCAL_PREFIX) else None


def _store_context(
    event: str,
    payload: Mapping[str, Any],
    cwd: Path,
    queries_asked: tuple[list[tuple[str, bool | None]], list[tuple[str, bool | None]]] | None,
    now: datetime | None,
    warn: Callable[[str], None],
    listed: Callable[[str], None] | None,
    budget: float,
    read_in_part: str = "",
    tell: Callable[[Told], None] | None = None,
) -> str:
    """The hook's context from the project's store (:func:`context_for`, its input read;
    ``read_in_part``: the line that says the prompt was read in part)."""
    with _open_store(cwd, budget) as store:
        if event in ("prompt-submit", "tool-failure"):
            cold = _model_cache_cold()
            if cold:
                raise HookSkip(cold)
            queries, fallbacks = queries_asked or ([], [])  # (read before the store opened)
            if event == "tool-failure":
                return _error_context(store, queries, fallbacks)
            return _prompt_context(store, queries, fallbacks, read_in_part)
        listing = _session_context(store, now, warn)
        _say_other_projects(store, warn, listed=bool(listing))
        if listed is not None:
            listed(listing)
        # a re-seed loads the model only when a doc changed; a cold cache is built in the
        # background from here already, so that the first prompt waits less for it
        cold = _model_cache_cold()
        if cold:
            warn(f"{cold} (changed solution docs are re-seeded at the next session)")
        elif _reseed(store, warn, tell):
            listing = _session_context(store, now)
        return listing


def _hook_output(event: str, context: str, message: str = "") -> str:
    """Claude Code's JSON: ``context`` for the model, and ``message`` (if any) shown to the
    user (``systemMessage``: one line, cut and escaped)."""
    body: dict[str, Any] = {}
    if context:
        body["hookSpecificOutput"] = {"hookEventName": EVENTS[event], "additionalContext": context}
    if message:
        body["systemMessage"] = _user_message(message)
    return json.dumps(body, ensure_ascii=True) + "\n"


def _read_input(stdin: IO[bytes]) -> bytes:
    """All of stdin, in chunks; :class:`HookSkip` past :data:`MAX_INPUT_BYTES`. A stdin
    left non-blocking (a read answers None, or raises, before the input is written) is
    waited for, within the hook's budget like any slow input."""
    chunks: list[bytes] = []
    size = 0
    while True:
        try:
            chunk = stdin.read(min(1 << 20, MAX_INPUT_BYTES + 1 - size))
        except BlockingIOError:
            chunk = None
        if chunk is None:
            _wait_for_input(stdin)
            continue
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_INPUT_BYTES:
            raise HookSkip(
                f"the hook input on stdin is over {MAX_INPUT_BYTES // 2**20} MiB; the rest was "
                "not read"
            )
    return b"".join(chunks)


def _left_open(stdin: IO[bytes]) -> bool:
    """Whether ``stdin`` has nothing to read and no end either: whoever writes it holds it
    open (a read waits on it for ever). False when that cannot be told (no descriptor)."""
    import select

    try:
        readable, _, _ = select.select([stdin.fileno()], [], [], 0)
    except (OSError, ValueError):  # no descriptor behind it, or closed
        return False
    return not readable


def _wait_for_input(stdin: IO[bytes]) -> None:
    import select

    select.select([stdin.fileno()], [], [])


def _from_raw(
    event: str,
    raw: bytes,
    warn: Callable[[str], None] | None = None,
    listed: Callable[[str], None] | None = None,
    budget: float = DEFAULT_BUDGET_SECONDS,
    shown: list[Callable[[], None]] | None = None,
) -> str:
    """The hook's output for its input ``raw``; ``shown`` receives what to do once that
    output is printed (:class:`Told`)."""
    if event not in EVENTS:
        raise HookSkip(_unknown_event(event))
    if not raw.strip():  # "not JSON (Expecting value at line 1 column 1)" said of nothing
        raise HookSkip(
            "the hook input on stdin is empty: the hook reads the event's JSON there, as "
            'Claude Code writes it (run by hand: echo \'{"cwd": "…"}\' | kenning hook EVENT)'
        )
    try:
        payload = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        said = not_utf8(raw, exc.start)[0]
        raise HookSkip(f"the hook input on stdin is not UTF-8{said}") from None
    except json.JSONDecodeError as exc:
        said = json_error_said(exc, with_line=True)
        raise HookSkip(f"the hook input on stdin is not JSON ({said})") from None
    except RecursionError:  # valid JSON, but nested past what Python's parser takes
        raise HookSkip(
            "the hook input on stdin is not JSON the hook can read (nested too deeply; Claude "
            "Code's input is one object of a few fields)"
        ) from None
    told: list[Told] = []
    tell = told.append if event in SYSTEM_MESSAGE_EVENTS else None
    context = context_for(event, payload, warn=warn, listed=listed, budget=budget, tell=tell)
    if shown is not None:
        shown.extend(t.shown for t in told)
    return _hook_output(event, context, "; ".join(t.line for t in told)) if context or told else ""


# --------------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------------


def _diagnose(stderr: IO[str], event: str, *messages: str) -> None:
    """Say ``messages`` (the empty ones left out) on one line of ``stderr``, ``; `` between
    them, each cut to :data:`_DIAGNOSTIC_CHARS` characters; nothing when all are empty."""
    from ..render import safe_message_start

    parts = []
    for message in messages:
        if not message.strip():
            # nothing to say, the usual end of a hook: the first redaction of a process
            # loads its rules (~40 ms), which a blank message does not need
            continue
        if message in _SAID_AS_IS:
            parts.append(message)
            continue
        # cut before it is redacted: this runs after the budget, and a message quoting a 1 MB
        # input (a cwd) cost ~1.5 CPU-s redacted whole
        part = _fitted(message, safe_message_start(message, _DIAGNOSTIC_CHARS), _DIAGNOSTIC_CHARS)
        if part:
            parts.append(part)
    if not parts:
        return
    line = "; ".join(parts)
    try:
        stderr.write(f"{f'kenning hook {event}'.rstrip()}: {line}\n")
        stderr.flush()
    except (OSError, ValueError):
        pass


#: How many of the warnings logged while a hook works its one stderr line says whole (the
#: rest it counts).
WARNINGS_SAID = 3


class _Warnings(logging.Handler):
    """Collects what kenning (or a library) logs while a hook works: Python would print each
    record as a line of its own on stderr, where the hook says one."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # a record whose arguments do not fit its format
            message = str(record.msg)
        message = message.removeprefix("kenning: ")
        if message not in self.messages:
            self.messages.append(message)

    def said_with(self, message: str) -> str:
        """``message`` (the hook's own diagnosis, may be empty) with what was logged."""
        if not self.messages:
            return message
        # each of the first few whole (two keys of a config file that set nothing: the
        # second, hidden behind a count, was the one the user had just edited)
        shown = self.messages[:WARNINGS_SAID]
        others = len(self.messages) - len(shown)
        logged = "; ".join(shown) + (f" (and {others} more warning(s))" if others else "")
        return f"{message} (warning: {logged})" if message else logged


def _describe(exc: BaseException) -> str:
    from ..errors import KenningError

    if isinstance(exc, HookSkip | KenningError | ServerStoreNotConsulted):
        return str(exc)
    return f"skipped after an unexpected {type(exc).__name__}: {exc}"


#: A message to the user is cut to this many characters (Claude Code shows it whole).
_SYSTEM_MESSAGE_CHARS = 1000


def _unavailable_message(event: str, error: BaseException) -> str:
    """Claude Code's JSON that shows the user (not the model) that the hook could not
    consult a server store, with the reason and the fix, its credentials redacted; ``""``
    for any other failure, or a hook that says it on stderr only
    (:data:`SYSTEM_MESSAGE_EVENTS`). A line on stderr alone is shown to no one, and a
    session without recalled memories looks like one where nothing was relevant."""
    if event not in SYSTEM_MESSAGE_EVENTS or not isinstance(
        error, (StoreUnavailable, ServerStoreNotConsulted)
    ):
        return ""
    return _said_to_user(str(error))


def _said_to_user(text: str) -> str:
    """Claude Code's JSON that shows ``text`` to the user, on one line, cut and escaped."""
    return json.dumps({"systemMessage": _user_message(text)}, ensure_ascii=True) + "\n"


def _user_message(text: str) -> str:
    """``text`` as a ``systemMessage`` says it: ``kenning: `` and one line, cut and
    escaped (stored text, a doc's file name, is untrusted)."""
    from ..render import safe_message_start

    message = _fitted(text, safe_message_start(text, _SYSTEM_MESSAGE_CHARS), _SYSTEM_MESSAGE_CHARS)
    return f"kenning: {message}"


#: A word a line too long is shortened to keeps at least this many characters of it.
_WORD_KEPT_CHARS = 40


def _fitted(message: str, said: str, chars: int) -> str:
    """``said`` (``message`` redacted and escaped, :func:`kenning.render.safe_message_start`)
    on one line of at most ``chars`` characters. A line too long gives up the middle of its
    longest words first (a path of hundreds of characters, kept as ``docs/xxx…xxx/db``),
    then its middle (:func:`_middle_cut`): cut at the end alone, the fix a line ends with
    was lost to a long path before it, or to a long explanation (qa81 F3). Only a message
    redacted whole is shortened so (one cut first, a huge input, is said from its start,
    and cut at its end)."""
    from ..render import CUT_CONTEXT_CHARS

    line = " ".join(said.split())
    if len(line) > chars and len(message) <= 2 * chars + CUT_CONTEXT_CHARS:
        words = line.split(" ")
        excess = len(line) - chars
        # the longest words are cut to one length, the longest that saves enough (and not
        # below _WORD_KEPT_CHARS: the line's end is cut then)
        lengths = sorted((len(word) for word in words), reverse=True)
        keep, total = _WORD_KEPT_CHARS, 0
        for k, length in enumerate(lengths, 1):
            total += length
            level = (total - excess) // k
            if level >= (lengths[k] if k < len(lengths) else 0):
                keep = max(level, _WORD_KEPT_CHARS)
                break
        if keep < lengths[0]:
            head = keep // 2
            line = " ".join(
                f"{w[:head]}…{w[len(w) - (keep - 1 - head) :]}" if len(w) > keep else w
                for w in words
            )
    if len(line) > chars and len(message) <= 2 * chars + CUT_CONTEXT_CHARS:
        line = _middle_cut(line, chars)
    if len(line) > chars:
        line = line[: chars - 1] + "…"
    return line


#: Where the last sentence of a diagnostic line starts (its fix: "…; set KENNING_STORE …",
#: "… committed file. Set KENNING_STORE …").
_LAST_SENTENCE = re.compile(r"[.;!?] (?=\S)")


def _middle_cut(line: str, chars: int) -> str:
    """``line`` of more than ``chars`` characters whose words were too short to give up
    enough (no path of hundreds of characters) cut in its middle: its start (what went
    wrong) and its last sentence (the fix) kept whole, ``…`` between them at a word's
    end. A last sentence longer than half the line's room keeps its last half of it."""
    starts = [m.end() for m in _LAST_SENTENCE.finditer(line)]
    tail = line[starts[-1] :] if starts else ""
    if not tail or len(tail) > chars // 2:
        tail = line[len(line) - chars // 2 :]
        tail = tail[tail.find(" ") + 1 :] if " " in tail else tail
    head = line[: chars - 2 - len(tail)]
    head = head[: head.rfind(" ")] if " " in head else head
    return f"{head.rstrip(' ,;:')}… {tail}"


def _no_answer_message(event: str, raw: bytes | None, seconds: float) -> str:
    """The JSON that shows the user a hook whose budget ran out while its store is named by
    a URL: a server that takes the connection but does not answer in time (a table a long
    import or migration holds, a slow network), or a host name of several addresses none
    of which answers (libpq waits out each in turn), said as a server that is down is
    (qa-s68b F1, F6); ``""`` for another store, another hook, or what cannot be told."""
    if event not in SYSTEM_MESSAGE_EVENTS or raw is None:
        return ""
    try:
        payload = json.loads(raw.decode("utf-8"))
        if not isinstance(payload, dict):
            return ""
        named = _store_named_by_url(_project_dir(payload))
    except Exception:  # (what cannot be told is not said to the user)
        return ""
    if named is None:
        return ""
    from ..redaction import redact_url

    return _said_to_user(
        f"knowledge base NOT consulted: the store at {redact_url(named.strip())} did not "
        f"answer within the hook's {seconds:g} s ({BUDGET_ENV}); the session goes on without "
        "recalled memories. Check that the server answers (a table a long import or "
        "migration holds, a host name whose addresses do not answer, a slow network), or "
        f"give the hooks longer ({BUDGET_ENV})"
    )


def process_started() -> float:
    """The :func:`time.monotonic` time this process started: on Linux its start time in
    ``/proc/self/stat`` (clock ticks since boot) against ``CLOCK_BOOTTIME`` (the clock it is
    counted on, ``/proc/uptime``'s), so that the budget holds Python's start-up and
    kenning's imports, which grow under load (qa81 F4: a 5 s hook took 6.6–8.7 s with six
    others starting); elsewhere, or a start time that cannot be read or is out of reason,
    this module's import."""
    try:
        with open("/proc/self/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()  # (the name may hold ") ")
        ticks = int(fields[19])  # the 22nd field, starttime
        booted = time.clock_gettime(time.CLOCK_BOOTTIME)
        now = time.monotonic()
        ago = booted - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError, AttributeError):
        return _IMPORTED
    if not 0.0 <= ago <= _STARTED_AGO_MAX_S:
        return _IMPORTED
    return min(now - ago, _IMPORTED)


def run(
    event: str,
    stdin: IO[bytes] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    budget: float | None = None,
    started: float | None = None,
) -> bool:
    """Run hook ``event``: read the input, write Claude Code's JSON or nothing.

    Never raises. Returns False when the time budget ran out (the work is abandoned on a
    daemon thread: the caller should exit the process right away), True otherwise. The
    budget is counted from ``started`` (:func:`time.monotonic`; ``kenning hook`` gives its
    process's start, :func:`process_started`), else from this call.
    """
    started = time.monotonic() if started is None else started
    # A stream the agent closed (`>&-`) is None in Python: nothing is read from it or
    # written to it, and the hook still ends as it should
    stdin = stdin if stdin is not None else getattr(sys.stdin, "buffer", None) or io.BytesIO()
    stdout = stdout if stdout is not None else sys.stdout or io.StringIO()
    stderr = stderr if stderr is not None else sys.stderr or io.StringIO()
    said: list[str] = []  # what went wrong on the way: said with the rest, on one line
    if budget is None:
        seconds, problem = config.hook_timeout(DEFAULT_BUDGET_SECONDS)
        if problem:  # fail open, but say why
            said.append(problem)
    else:
        seconds = budget
    warnings = _Warnings()
    root = logging.getLogger()
    root.addHandler(warnings)
    try:
        return _run(event, stdin, stdout, stderr, seconds, started + seconds, warnings, said)
    finally:
        root.removeHandler(warnings)


def _is_terminal(stream: IO[bytes]) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError):  # closed, or no file behind it
        return False


def _run(
    event: str,
    stdin: IO[bytes],
    stdout: IO[str],
    stderr: IO[str],
    seconds: float,
    deadline: float,
    warnings: _Warnings,
    said: list[str],
) -> bool:
    """The hook's work, given up at ``deadline`` (:func:`time.monotonic`: the budget of
    ``seconds`` from the process's start); everything it has to say (``said`` on the way: a
    bad budget, a re-seed that failed, the notes under another project id, a cold model
    cache; its diagnosis; what was logged) is said on one line of ``stderr`` at the end."""

    def diagnose(message: str) -> None:
        _diagnose(stderr, event, *list(said), warnings.said_with(message))

    def write(text: str) -> None:  # (said as it can be: a closed stdout is no failure)
        if text:
            with contextlib.suppress(OSError, ValueError):
                stdout.write(text)
                stdout.flush()

    if _is_terminal(stdin) and event not in EVENTS:
        diagnose(_unknown_event(event))  # there is no hook to try
        return True
    if _is_terminal(stdin):  # typed by hand: no input will come, only the budget's end
        example = '"cwd": "."' + (', "prompt": "…"' if event == "prompt-submit" else "")
        diagnose(
            f"the hook input is read from stdin, which is a terminal (Claude Code pipes it "
            f"in); to try the hook, pipe it: echo '{{{example}}}' | kenning hook {event}",
        )
        return True
    outcome: dict[str, Any] = {}
    shown: list[Callable[[], None]] = []  # what to record once the output is printed

    def work() -> None:
        try:
            outcome["reading"] = True
            raw = _read_input(stdin)
            outcome["reading"] = False
            outcome["raw"] = raw
            outcome["output"] = _from_raw(
                event,
                raw,
                said.append,
                lambda listing: outcome.setdefault("listed", listing),
                max(deadline - time.monotonic(), 0.0),  # (what a server's connection waits)
                shown,
            )
        except BaseException as exc:  # a hook must never fail the session
            outcome["error"] = exc

    worker = threading.Thread(target=work, name=f"kenning-hook-{event}", daemon=True)
    worker.start()
    worker.join(max(deadline - time.monotonic(), 0.0))
    if worker.is_alive():
        if outcome.get("reading") and _left_open(stdin):
            # not the work but its input that never came to an end
            diagnose(
                f"gave up after {seconds:g} s ({BUDGET_ENV}): stdin was not closed; the hook "
                "expects the event's JSON on stdin and reads it to its end, so whatever runs "
                "the hook must close stdin after writing it (Claude Code does)"
            )
            return False
        listed = outcome.get("listed")
        if listed:  # the re-seed is what outlasted the budget: the listing made before it
            diagnose(
                f"re-seeding changed solution docs outlasted {seconds:g} s ({BUDGET_ENV}); "
                "they wait for the next session (or `kenning seed-solutions --changed-only`, "
                "which has no time limit)"
            )
            write(_hook_output(event, listed))
            return False
        diagnose(
            f"gave up after {seconds:g} s ({BUDGET_ENV}); the session goes on without "
            "recalled memories"
        )
        write(_no_answer_message(event, outcome.get("raw"), seconds))
        return False
    error = outcome.get("error")
    if error is not None:
        diagnose(_describe(error))
        write(_unavailable_message(event, error))
        return True
    # the hook did its work; what went wrong on the way, if anything, in one line
    problem = ""
    output = outcome.get("output") or ""
    if output:
        try:
            stdout.write(output)
            stdout.flush()
        except (OSError, ValueError) as exc:
            problem = f"could not write the context: {exc}"
        else:
            for record in shown:  # printed: a line told the user is said (Told)
                record()
    diagnose(problem)
    return True


def main(event: str) -> None:
    """Entry point of ``kenning hook EVENT``: run, flush, and exit 0 at once (an abandoned
    worker thread, or the model's teardown, must not hold the session up)."""
    started = process_started()
    # The process lives for this one event and ends by os._exit: the cyclic collector's
    # passes over what the model's and the store's imports make (87-107 collections, 10-15 ms
    # of a hook's 0.2-0.45 CPU-s) would free nothing the hook still needs; reference counting
    # still frees what it lets go.
    gc.disable()
    try:
        run(event, started=started)
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # closed, gone, or None
                stream.flush()
        os._exit(0)
