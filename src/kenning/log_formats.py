"""Log formats: what loggers, runners and terminals put around a log line's message.

A line's time, level, logger, thread, process, request id and container or workspace
prefix, a logfmt line's fields, a terminal's colours and a chat message's markdown around a
paste: :func:`read_log_line` cuts them and says the level the line was written at (an
error's, one below it, or none). Error signatures (:mod:`kenning.signatures`) read every
line of a log through it, so that a fix stored for the bare error is the exact match of the
same error logged by any of these formats. Pure: strings in, strings out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from .lazyre import lazy
from .remembered import remembered

__all__ = [
    "ANSI",
    "AT_ERROR",
    "BELOW_ERROR",
    "CONTROL",
    "NEXT_MARKED_FILE",
    "PYTEST_SUMMARY",
    "QUIET",
    "TIMESTAMP",
    "WARNING",
    "api_error_said",
    "json_level",
    "json_log_line",
    "json_said",
    "message_and_error_field",
    "read_log_line",
    "said_beside_error",
    "without_container_prefix",
    "without_run_log_prefixes",
]

ANSI = lazy(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
#: The control characters an escape sequence leaves behind, or a log's binary junk holds (a
#: NUL after a message: its signature and fingerprint were another error's): not text.
CONTROL = lazy(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_LEVELS = r"(?:ERROR|ERR|FATAL|CRITICAL|CRIT|PANIC|WARN(?:ING)?|INFO|DEBUG|TRACE|NOTICE)"
TIMESTAMP = lazy(
    r"""^\s*
    (?:\[\s*)?
    (?:\d{4}-\d{2}-\d{2}[T\s]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|\s?[+-]\d{2}:?\d{2}|\s?UTC)?
      |\d{4}/\d{2}/\d{2}\s\d{2}:\d{2}:\d{2}(?:[.,]\d+)?
      |\d{2}:\d{2}:\d{2}(?:[.,]\d+)?
      |[A-Z][a-z]{2}\s+\d{1,2}\s\d{2}:\d{2}:\d{2}(?:\s[\w.-]+\s[\w./()-]+(?:\[\d+\])?:)?
      |\d{2}/[A-Z][a-z]{2}/\d{4}[:\s]\d{2}:\d{2}:\d{2}(?:\s[+-]\d{4})?)
    (?:\s*\])?\s*""",
    re.VERBOSE,
)
_LEVEL_PREFIX = lazy(
    rf"^\s*(?:\[\s*{_LEVELS}\s*\]|{_LEVELS}(?=[\s:\]|])\s*(?:\]\s*)?)[:|\-]?\s*",
)
# (one way to read the spaces: "\s*\[?\s*" tried every split of a long run)
#: MySQL's ``ERROR 1045 (28000): …``: the word is part of the error code, not a log level.
_LEVEL_THEN_CODE = lazy(r"^\s*ERROR\s+\d{3,5}\s+\([0-9A-Z]{5}\)")
_ERROR_LEVEL = lazy(r"^\s*(?:\[\s*)?(?:ERROR|ERR|FATAL|CRITICAL|CRIT|PANIC)\b")
#: docker build's (buildkit's) step number and seconds: ``#8 0.512 ERROR: …``.
_BUILDKIT_STEP = lazy(r"^#\d+\s+(?:\d+\.\d+\s+)?(?=\S)")
#: Margins drawn in front of a message: yarn berry's ``➤ YN0001: │ `` and terraform's box
#: (``│ Error: …``).
_MARGIN = lazy(r"^(?:➤\s+YN\d{4}:\s*)?[\u2500-\u257f]*\s*")
#: The first characters of a margin but a space (:data:`_MARGIN`, whose match is empty at
#: any other line's start: nothing to cut).
_MARGIN_FIRST = frozenset(["➤", *map(chr, range(0x2500, 0x2580))])
#: Ruby's Logger (Rails' production log): ``E, [2024-05-02T09:14:02.123 #4242] ERROR -- app:
#: message``, the level's letter, the time and process, the level and the program.
_RUBY_LOGGER_PREFIX = lazy(
    r"^[DIWEFAU],\s\[[^\]\n]{1,100}\]\s+([A-Z]{3,7})\s+--\s+[^:\n]{0,200}:[^\S\n]?"
)
#: The tags Rails' tagged logging puts before each line of a request, its id among them
#: (``[9f1c2b7e-1a2b-…] [10.0.0.1] Completed 500 …``, ``[acme] [9f1c2b7e-…] …``; a proxy's
#: id of 32 hex digits, nginx's ``$request_id``, as well).
_REQUEST_ID_TAG = lazy(
    r"^(?:\[[^\[\]\n]{1,100}\][^\S\n]*){0,4}?"
    r"\[(?:[0-9a-f]{8}(?:-[0-9a-f]{4,12}){1,4}|[0-9a-f]{32})\][^\S\n]*"
    r"(?:\[[^\[\]\n]{1,100}\][^\S\n]*){0,4}"
)
#: A log line's level after its time, as other loggers print it: Python's logging cookbook
#: (``- app.http - WARNING - message``), loguru (``| WARNING  | app.http:fetch:42 - …``),
#: winston (``warn: …``), PHP's Monolog (``app.WARNING: …``, its channel first).
_STAMPED_LEVELS = (
    lazy(r"^-[^\S\n]+[\w.-]{1,200}[^\S\n]+-[^\S\n]+([A-Z]{4,8})[^\S\n]+-[^\S\n]+(?=\S)"),
    lazy(r"^\|[^\S\n]*([A-Z]{4,8})[^\S\n]*\|[^\S\n]*(?:[\w.<>:-]{1,300}[^\S\n]+-[^\S\n]+)?(?=\S)"),
    lazy(r"^(error|warn|info|debug|verbose):[^\S\n]+(?=\S)"),
    _MONOLOG_LEVEL := lazy(
        r"^[\w-]{1,100}\.(DEBUG|INFO|NOTICE|WARNING|ERROR|CRITICAL|ALERT|EMERGENCY):[^\S\n]+(?=\S)"
    ),
)
#: What Monolog prints after the message when its context and extra are empty.
_MONOLOG_NOTHING_MORE = " [] []"
#: The level a line's prefix says, by its first letters, or its one letter (klog's ``E0502
#: …``, logcat's ``E AndroidRuntime:``).
_ERROR_LEVEL_WORDS = ("ERR", "CRIT", "FATAL", "ALERT", "EMERG")
_QUIET_WORDS = ("INFO", "DEBUG", "TRACE", "NOTICE", "VERBOSE", "SUCCESS")
_BELOW_ERROR_WORDS = ("WARN", *_QUIET_WORDS)
_ERROR_LEVEL_LETTERS, _QUIET_LETTERS = "EFA", "IDV"
#: Microsoft.Extensions.Logging's console format: the level, the logger and its event id on
#: one line (``fail: Microsoft.AspNetCore.Diagnostics…Middleware[1]``), the message and the
#: exception indented under it.
_DOTNET_LEVEL = lazy(r"^[^\S\n]*(trce|dbug|info|warn|fail|crit):[^\S\n]+(?=[\w.]+\[\d+\]$)")
_DOTNET_LEVELS = {
    "trce": "quiet",
    "dbug": "quiet",
    "info": "quiet",
    "warn": "warning",
    "fail": "error",
    "crit": "error",
}
#: Lines with the level's letter first: Kubernetes' klog (``W0502 09:14:02.100000    4242
#: reflector.go:424] …``) and Android's logcat in its threadtime format (``05-02
#: 09:14:02.100  4242  4242 W System.err: …``).
_LETTER_LEVELS = (
    lazy(
        r"^([IWEF])\d{4}[^\S\n]+\d{2}:\d{2}:\d{2}\.\d+[^\S\n]+\d+[^\S\n]+[\w./-]{1,200}:\d+\][^\S\n]+"
    ),
    lazy(
        r"^\d{2}-\d{2}[^\S\n]+\d{2}:\d{2}:\d{2}\.\d{3}[^\S\n]+\d+[^\S\n]+\d+[^\S\n]+([VDIWEFA])"
        r"[^\S\n]+[^:\n]{1,200}?:[^\S\n]+"
    ),
)


def _level_said(word: str) -> str | None:
    """The level a log's word for it is (``WARNING``, ``warn``, ``E``, ``I``)."""
    word = word.upper()
    if len(word) == 1:
        warning, quiet = word == "W", word in _QUIET_LETTERS
        error = word in _ERROR_LEVEL_LETTERS
    else:
        warning, quiet = word.startswith("WARN"), word.startswith(_QUIET_WORDS)
        error = word.startswith(_ERROR_LEVEL_WORDS)
    return WARNING if warning else QUIET if quiet else AT_ERROR if error else None


def _below(said: str | None) -> str | None:
    """``said`` if it is a level below an error's (:data:`BELOW_ERROR`), else None."""
    return said if said in BELOW_ERROR else None


#: Next.js 14's marks before an error and a warning of its dev server (``⨯ TypeError: …``,
#: ``⚠ Fast Refresh had to perform a full reload``): not the message; the warning's is a
#: level below an error's, the error's none (``⨯ ./app/page.tsx:3:0``, a location alone,
#: is above ``Module not found: …``, qa-s61b F1).
_NEXT_MARK = lazy(r"^([⨯⚠])[^\S\n]+(?=\S)")
#: Next.js' warning or error of a file (`` ⚠ ./node_modules/node-fetch/lib/index.js``,
#: `` ⨯ ./app/page.tsx:3:1``): its message is on the lines under it, at the line's start,
#: up to a blank line (``Module not found: Can't resolve 'encoding' …``, an optional
#: dependency's warning, above the build's own error).
NEXT_MARKED_FILE = lazy(r"^[^\S\n]*([⨯⚠])[^\S\n]+\.{0,2}/[^\s:]+(?::\d+){0,2}[^\S\n]*$")
#: Spring Boot's log line after its timestamp and level: ``4242 --- [main]
#: o.s.b.SpringApplication : message`` (3.2+ adds ``[app]``): the process id, thread and
#: logger, then the message.
_SPRING_LOG_PREFIX = lazy(r"^\d+\s+---\s+(?:\[[^\]\n]{0,200}\]\s*){1,3}\S{1,300}?\s*:(?:\s+|$)")
#: A Java logger's dotted name, its thread's before it, then " - " and the message, after
#: the level a log4j or logback pattern printed (``[main] c.e.Payments - …``, log4j 2's
#: ``%d [%t] %-5level %logger - %msg``, logback's ``%d [%thread] %-5level %logger - %msg``).
_JAVA_LOGGER = lazy(
    r"^(?:\[[^\]\n]{1,100}\][^\S\n]+)?"
    # (not an exception's class: "ERROR java.lang.NullPointerException - null", qa-s62b G1)
    r"(?![\w$.]*(?:Error|Exception|Warning|Timeout|Fault|Failure)[^\S\n]"
    # (an exceptions module's class, but no handler of them: Spring's
    # com.example.exception.GlobalExceptionHandler is a logger, qa-s62c H5)
    r"|[\w$.]*\.(?:exceptions?|errors?)\.(?![\w$]*(?:Handler|Advice|Resolver|Mapper|Translator"
    r"|Controller|Filter|Interceptor|Listener|Config)[^\S\n]))"
    r"[A-Za-z_$][\w$]*(?:\.[\w$]+)+[^\S\n]+-[^\S\n]+(?=\S)"
)
#: A Python logger's name before an exception, after the level (``ERROR app.payments:
#: stripe.error.CardError: …``, ``%(levelname)s %(name)s: %(message)s``): the exception is
#: the error (a logger before words, ``importer.db: giving up: …``, is kept).
_LOGGER_BEFORE_EXCEPTION = lazy(
    r"^[a-z_]\w*(?:\.\w+)*:[^\S\n]+(?=(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)\b)"
)
#: logback's thread before the level (``09:14:02.100 [main] WARN  c.e.Payments - …``).
_THREAD_BEFORE_LEVEL = lazy(
    r"^\[[^\]\n]{1,100}\][^\S\n]+(?=(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL)[^\S\n])"
)
#: pytest's captured log, after its level (``WARNING  app.payments:payments.py:42 …``, its
#: default ``%(levelname)-8s %(name)s:%(filename)s:%(lineno)d %(message)s``): the logger,
#: the file and the line.
_PYTEST_LOG_SOURCE = lazy(r"^[\w.]+:[\w.-]+\.py:\d+[^\S\n]+(?=\S)")
#: Celery's log line after its time: ``[2024-05-01 10:00:00,123: ERROR/MainProcess] …`` (the
#: level and the process, ``ForkPoolWorker-3`` as well, then the message).
_CELERY_LOG_PREFIX = lazy(r"^:\s*([A-Z]+)/[\w.-]{1,100}\]\s*")
#: The process id after a log line's time (PostgreSQL's default ``log_line_prefix``, ``%m
#: [%p] ``: ``2024-05-01 12:00:01.123 UTC [4242] ERROR: …``; with ``%l``, ``[4242]: [3-1]``).
_PROCESS_ID = lazy(r"^\[\d{1,10}\](?::\s*\[\d+-\d+\])?\s+(?=\S)")
#: After a time, a syslog line's host and program with its process id (``web1
#: (gunicorn)[48213]: ``, ``ip-10-0-4-12 sshd[777]: ``).
_SYSLOG_SOURCE = lazy(r"^[\w.-]{1,253}\s+[\w./()@-]{1,200}\[\d{1,10}\]:\s+(?=\S)")
#: After a time, Heroku's source of a log line: the app's dyno or Heroku's own part
#: (``app[web.1]: ``, ``heroku[router]: ``).
_HEROKU_SOURCE = lazy(r"^(?:app|heroku)\[[\w.-]{1,60}\]:[^\S\n]+(?=\S)")
#: After nginx's time and level, its process and thread (``7#7: ``) and the connection
#: (``*1 ``); the request's details after the message (``, client: 10.0.0.1, server: …``).
_NGINX_CONTEXT = lazy(r"^\d+#\d+:[^\S\n]+(?:\*\d+[^\S\n]+)?(?=\S)")
_NGINX_REQUEST = lazy(r"^(.*),[^\S\n]+client:[^\S\n]+[^\s,]+,[^\S\n]+server:[^\S\n][^\n]*$")
#: After a time, Sidekiq's context and level (``pid=42 tid=2ab class=SyncJob jid=9f1 WARN: ``).
_SIDEKIQ_CONTEXT = lazy(
    r"^pid=\d+[^\S\n]+tid=\w+(?:[^\S\n]+\w+=\S+){0,12}[^\S\n]+([A-Z]{4,7}):[^\S\n]+"
)
#: Docker Compose's service prefix on each line of ``docker compose up``/``logs``:
#: ``web-1  | `` (``web_1  | `` before Compose v2): the service and its replica's number.
#: The package and script ``pnpm -r`` (``--recursive``) puts before each line of a workspace
#: package's output (``packages/web build: …``).
_WORKSPACE_PREFIX = lazy(r"^(?:[\w@.-]+/)+[\w@.-]+[^\S\n]+[\w:.-]{1,40}:[^\S\n]+(?=\S)")
_COMPOSE_PREFIX = lazy(r"^[A-Za-z0-9][\w.-]{0,62}[-_]\d{1,4}[^\S\n]+\|[^\S\n]?")
#: ``kubectl logs --prefix``' pod and container before each line (``[pod/api-7d9f/api] ``).
_KUBECTL_PREFIX = lazy(r"^\[pod/[\w.-]{1,253}/[\w.-]{1,63}\][^\S\n](?=[^\S\n]*\S)")
#: ``gh run view --log``'s (and ``--log-failed``'s) job and step names before each line of a
#: GitHub Actions run's log (``test (3.12)<TAB>Run pytest<TAB>2024-05-01T12:00:00.1234567Z …``),
#: and the byte order mark a step's log starts with (its downloaded file's first line, and
#: gh's of each step): only before the time the runner stamps every line with, so that no
#: other line with two tabs is cut.
_RUN_LOG_PREFIX = (
    # (a step is named after its command's first line when it has no name: long ones too;
    # a time then a tab is a column of a tab-separated listing, qa-s64c U3, U4)
    r"^(?:[^\t\n]{1,1000}\t[^\t\n]{0,1000}\t)?\ufeff?"
    r"(?=\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z(?:[ \r]|$))"
)
_RUN_LOG_PREFIXES = lazy(_RUN_LOG_PREFIX, re.MULTILINE)


def without_run_log_prefixes(text: str) -> str:
    """``text`` (a log, a line of one) without what ``gh run view --log`` puts before each
    line of a GitHub Actions run's log, its job's and step's names, nor a step log's byte
    order mark: the runner's lines as its raw log holds them, read as they are."""
    if "\t" not in text and "\ufeff" not in text:
        return text
    return _RUN_LOG_PREFIXES.sub("", text)


#: Python's logging in its default format: ``ERROR:app.db:message`` (the level, the
#: logger's name, the message; no space after either colon).
_PY_LOGGING_DEFAULT = lazy(r"^(CRITICAL|ERROR|WARNING|INFO|DEBUG):[A-Za-z_][\w.-]{0,200}:(?=\S)")
#: A level in lower case in brackets before a tool's message (prettier's ``[warn] Code style
#: issues found …``, ``[error] …``).
_LOWER_LEVEL = lazy(r"^\[(error|warn|info|debug|notice|crit|alert|emerg)\]\s+(?=\S)")
_GHA_PREFIX = lazy(r"^\s*##\[(error|warning|notice|group|endgroup)\]\s*", re.IGNORECASE)

#: ``FAILED tests/test_x.py::test_a - AssertionError: …`` (pytest short summary).
PYTEST_SUMMARY = lazy(r"^(?:FAILED|ERROR)\s+\S+::\S+(?:\[[^\]]*\])?\s+-\s+(?=\S)")


#: A chat message's markdown around a pasted error: block quotes (``> ``), then a list
#: bullet (``- ``, ``* ``, ``+ ``, ``1. ``, ``2) ``), then an inline code span opening what
#: follows them.
_MARKDOWN_QUOTE = lazy(r"^[^\S\n]*>(?:[^\S\n]*>)*[^\S\n]?")
_MARKDOWN_BULLET = lazy(r"^[^\S\n]*(?:[-*+]|\d{1,3}[.)])[^\S\n]+(?=\S)")
_LEADING_CODE_SPAN = lazy(r"^`([^`\n]+)`")


def _without_markdown(line: str) -> str:
    """``line`` without the markdown a chat message wraps a pasted error in (a quote, a list
    item, and a code span right after them): ``> - `KeyError: 'id'` here`` → ``KeyError:
    'id' here``. A line that opens with a code span of its own (a linter's message) keeps
    it."""
    quote = _MARKDOWN_QUOTE.match(line)
    if quote:
        line = line[quote.end() :]
    bullet = _MARKDOWN_BULLET.match(line)
    if bullet:
        line = line[bullet.end() :]
    if not quote and not bullet:
        return line
    return _LEADING_CODE_SPAN.sub(r"\1", line, count=1)


#: An event row of ``kubectl describe`` (type, reason, age, count, source): its reason and
#: message (``Unhealthy: Readiness probe failed: …``).
_K8S_DESCRIBED_EVENT = lazy(
    r"^\s*Warning\s{2,}([A-Z]\w+)\s+(?:\S+(?:\s+\(x\d+\s+over\s+\S+\))?)\s+[\w.-]+\s{2,}(?=\S)"
)
#: Android's logcat tag before a line (``E/flutter ( 4821): ``) and the Flutter engine's
#: source before its message (``[ERROR:flutter/runtime/dart_vm_initializer.cc(41)] ``).
_LOGCAT_PREFIX = lazy(r"^[VDIWEF]/[\w.$-]{1,100}\s*\(\s*\d+\):\s+(?=\S)")
_FLUTTER_ENGINE = lazy(r"^\[(?:ERROR|WARNING|INFO|FATAL):flutter/[^\]\s]{1,200}\]\s+(?=\S)")
#: A row of ``kubectl get events``: its age, type and object are columns, its reason and
#: message the event (``FailedScheduling: 0/3 nodes are available: …``).
_K8S_EVENT_ROW = lazy(r"^\S+\s+Warning\s+([A-Z]\w+)\s+[\w.-]+/\S+\s+(?=\S)")
#: A logger's dotted name in brackets after the level was cut (alembic's ``ERROR
#: [alembic.util.messaging] Can't locate revision …``): the message is the error, and its
#: ``FAILED:`` line under it says the same without the logger.
_DOTTED_LOGGER = lazy(r"^\[[a-z_]\w*(?:\.\w+)+(?::\d+)?\]\s+(?=\S)")
#: A level in capitals, a colon and the padding uvicorn and PostgreSQL put after it
#: (``WARNING:  …``, ``INFO:     …``): below an error's, read and kept (psql's ``WARNING:
#: there is no transaction in progress`` is its message).
_PADDED_LEVEL = lazy(r"^(WARNING|INFO|DEBUG|TRACE):[^\S\n]{2,}(?=\S)")
#: valgrind's process id before each of its lines, and its banner and summaries (no error:
#: "Memcheck, a memory error detector", "ERROR SUMMARY: 1 errors from 1 contexts").
_VALGRIND_PID = lazy(r"^==\d+==[^\S\n]?")
_VALGRIND_BANNER = lazy(
    r"^\s*(?:Memcheck,\s+a\s+memory\s+error\s+detector|Copyright\s|Using\s+Valgrind\b|Command:\s"
    r"|HEAP\s+SUMMARY:|LEAK\s+SUMMARY:|in\s+use\s+at\s+exit:|total\s+heap\s+usage:"
    r"|All\s+heap\s+blocks\s+were\s+freed|For\s+(?:lists\s+of\s+detected|a\s+detailed\s+leak)\b"
    r"|ERROR\s+SUMMARY:|(?:definitely|indirectly|possibly)\s+lost:|still\s+reachable:|suppressed:)"
)


#: The level a log line was written at, as :func:`read_log_line` reports it: an error's
#: (ERROR, FATAL, CRITICAL, …), a warning's, or one below a warning's (INFO, DEBUG, NOTICE,
#: TRACE: a handled error logged there is no crash's cause); the last two are
#: :data:`BELOW_ERROR`.
AT_ERROR, WARNING, QUIET = "error", "warning", "quiet"
BELOW_ERROR = frozenset({WARNING, QUIET})
_BELOW_ERROR_LEVELS = lazy("|".join(_BELOW_ERROR_WORDS), re.IGNORECASE)


#: A logfmt line (Go's logrus and log/slog, go-kit's, structlog's): its fields, its level
#: among the first (``time="…" level=error msg="connect failed" error="dial tcp …: connection
#: refused"``, go-kit's ``level=error ts=… caller=… msg=…``, slog's ``level=ERROR+2``).
_LOGFMT = lazy(
    r'^[^\S\n]*(?:\w+=(?:"(?:[^"\\\n]|\\.)*"|[^\s"]*)[^\S\n]+){0,8}?'
    r"level=([A-Za-z]+)(?:[+-]\d+)?(?=[^\S\n]+\w+=)"
)
#: One of a logfmt line's fields, its value quoted (its quotes escaped inside; the line may
#: end before the closing quote, cut by a log shipper) or bare.
_LOGFMT_FIELD = lazy(r'(?<!\S)(\w+)=("(?:[^"\\\n]|\\.)*(?:"|$)|[^\s"]*)')
_LOGFMT_CLOSED = lazy(r'"(?:[^"\\\n]|\\.)*"')
#: A logfmt value's escapes: ``\"``, ``\\``, ``\n`` and ``\t`` (a multi-line error's lines), and
#: ``\u00e9``.
_LOGFMT_ESCAPE = lazy(r"\\(u[0-9A-Fa-f]{4}|.)")
#: The fields of a logfmt line that say what happened, and what failed, in the order read
#: (structlog's message is its ``event``, qa-s62d J3).
_LOGFMT_SAID = ("msg", "message", "event")
_LOGFMT_FAILED = ("error", "err")
_FAILED = frozenset(_LOGFMT_FAILED)


def _logfmt_unescaped(escape: re.Match[str]) -> str:
    said = escape.group(1)
    if said.startswith("u") and len(said) == 5:
        return chr(int(said[1:], 16))
    return " " if said in "ntr" else said


def _logfmt_value(value: str) -> str:
    if value.startswith('"'):
        closed = _LOGFMT_CLOSED.fullmatch(value) is not None  # (not '"C:\\data\\"' cut)
        value = _LOGFMT_ESCAPE.sub(_logfmt_unescaped, value[1 : -1 if closed else None])
        # a character outside the BMP escaped as two halves (``\ud83d\ude00``) is one; a
        # half alone is no character (it failed every write of the text, qa-s62d J1)
        value = value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return " ".join(value.split())


def _logfmt_message(line: str) -> str:
    """A logfmt line's message: its ``msg`` (or ``message``, ``event``) and then its
    ``error`` (or ``err``), unquoted (``connect failed: dial tcp 127.0.0.1:5432: connect:
    connection refused``)."""
    found: dict[str, str] = {}
    for name, value in _LOGFMT_FIELD.findall(line):
        if name in (*_LOGFMT_SAID, *_LOGFMT_FAILED) and name not in found:
            found[name] = _logfmt_value(value)
    said = next((found[name] for name in _LOGFMT_SAID if found.get(name)), "")
    failed = next((found[name] for name in _LOGFMT_FAILED if found.get(name)), "")
    if not failed and " " not in said and not found.get("msg"):
        return ""  # (structlog's event's name, "signup": not what failed, K5; a msg is, L5)
    return ": ".join(part for part in (said, failed) if part)


def message_and_error_field(line: str) -> tuple[str, str]:
    """:func:`read_log_line`'s message of ``line`` and the error of its logfmt ``error`` (or
    ``err``) field, unquoted, or of its zap fields, when that message is read with it
    (``connect failed: dial tcp 127.0.0.1:5432: connect: connection refused`` and ``dial tcp
    …`` of ``level=error msg="connect failed" error="dial tcp …"``): the error as Go's other
    loggers print it alone (``log.Fatal(err)``), a fix stored for which is that line's too.
    ``("", "")`` for any other line."""
    if "err" not in line:
        return "", ""
    fields = {
        name: value for name, value in reversed(_LOGFMT_FIELD.findall(line)) if name in _FAILED
    }
    failed = _error_of_fields(fields)
    if not failed and "\t{" in line:  # (zap's fields, as JSON)
        failed = _error_of_json_fields(line[line.rindex("\t{") + 1 :]) or ""
    if not failed:
        return "", ""
    message = read_log_line(line)[0].strip()
    if message == failed or not message.endswith(f": {failed}"):
        return "", ""
    return message, failed


def _error_of_fields(fields: Mapping[str, str]) -> str:
    """The error a logfmt line's fields (each name's first value) hold: its ``error``, else
    its ``err``, unquoted."""
    return next((_logfmt_value(fields[name]) for name in _LOGFMT_FAILED if name in fields), "")


def _error_of_json_fields(text: str) -> str | None:
    """The error zap's fields (a JSON object) hold, its spaces collapsed ("" for none), or
    None when ``text`` is no JSON object."""
    try:
        fields = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(fields, dict):
        return None
    failed = next((fields[k] for k in _LOGFMT_FAILED if isinstance(fields.get(k), str)), "")
    return " ".join(failed.split())


#: logrus' text format on a terminal: the level's first four letters (or its whole name),
#: the seconds since the program started (or the time), the message (padded to 44
#: characters), then two spaces or more and its fields (``ERRO[0005] connect failed
#: error="dial tcp …" port=5432``).
_LOGRUS_TERMINAL = lazy(
    r"^(TRAC|DEBU|INFO|WARN|ERRO|FATA|PANI|TRACE|DEBUG|WARNING|ERROR|FATAL|PANIC)"
    r"\[(?:\d{1,10}|\d{4}-\d{2}-\d{2}[T ][\d:.,]{5,20}(?:Z|[+-]\d{2}:?\d{2})?)\][^\S\n]+(?=\S)"
)
#: The first letters of :data:`_LOGRUS_TERMINAL`'s levels: another line is not matched.
_LOGRUS_FIRST = frozenset("TDIWEFP")
_LOGRUS_LEVELS = {
    "TRAC": "quiet",
    "DEBU": "quiet",
    "INFO": "quiet",
    "WARN": "warning",
    "ERRO": "error",
    "FATA": "error",
    "PANI": "error",
}


def _logrus_terminal_message(rest: str) -> str:
    """The message and the error of a logrus terminal line's text after its level: the
    words before the fields that end it, and its ``error`` (or ``err``) field's value."""
    fields = list(_LOGFMT_FIELD.finditer(rest))
    end = start = len(rest.rstrip())
    run: list[re.Match[str]] = []
    for field in reversed(fields):  # the fields that end the line, nothing but space between
        if field.end() < start and rest[field.end() : start].strip():
            break
        start = field.start()
        run.insert(0, field)
    # the fields start after two spaces or more (the message's padding and the space before
    # its first key): "for user=42 with status=500" in a message is its words
    start = next((f.start() for f in run if rest[f.start() - 2 : f.start()].isspace()), end)
    found = {m.group(1): m.group(2) for m in reversed(fields) if m.start() >= start}
    failed = _error_of_fields(found)
    said = " ".join(rest[:start].split())
    return ": ".join(part for part in (said, failed) if part)


#: zap's console format after its time and level, tab-separated: the caller (when it is
#: added), the message and the fields as JSON (``app/main.go:42\tconnect failed\t{"error":
#: "dial tcp …"}``).
_ZAP_CONSOLE = lazy(
    r"^(?:[\w.-]{1,100}\t)?(?:[\w.@/-]{1,300}\.go:\d+\t)?"
    r"([^\t\n]+)\t(\{[^\n]*\})[^\S\n]*$"
)
#: zap's console level in lower case, after its time (an ISO one, read before it) or its
#: production config's time in seconds (``1.7146412425e+09\terror\tapp/main.go:42\t…``).
_ZAP_LEVEL = lazy(
    r"^(\d{10}(?:\.\d+)?\t|\d\.\d+e\+09\t)?(debug|info|warn|error|dpanic|panic|fatal)\t(?=\S)"
)


def _zap_message(line: str) -> str:
    """A zap console line's message and the error its fields hold (``connect failed: dial tcp
    …: connection refused``), as a logfmt line's are read; ``line`` if it is none."""
    zap = _ZAP_CONSOLE.match(line)
    failed = None if zap is None else _error_of_json_fields(zap.group(2))
    if zap is None or failed is None:
        return line
    said = " ".join(zap.group(1).split())
    return ": ".join(part for part in (said, failed) if part)


@remembered
def without_container_prefix(line: str) -> str:
    """``line`` as its container or runner printed it: without kubectl's ``[pod/…/…] ``,
    Docker Compose's ``name-1  | `` and gh's job and step (nor a terminal's colours), its own
    indentation kept (a .NET record's lines are indented under its ``warn:`` line behind the
    prefix too, qa-s63c P7)."""
    # (each tried only where what its matches hold is, as read_log_line tries them)
    plain = without_run_log_prefixes(ANSI.sub("", line) if "\x1b" in line else line)
    if plain.startswith("[pod/"):
        plain = _KUBECTL_PREFIX.sub("", plain, count=1)
    return _COMPOSE_PREFIX.sub("", plain, count=1) if "|" in plain else plain


def json_log_line(line: str) -> tuple[str, str | None] | None:
    """A JSON log's line (behind a container's prefix or a time too): what it says went
    wrong and its level (:func:`json_said`, :func:`json_level`); None for any other line."""
    text = _behind_container_and_time(line)
    return _json_line(text) if text.startswith("{") else None


def _behind_container_and_time(line: str) -> str:
    """``line`` without its container's prefix and a time after it (docker logs -t, kubectl
    logs --timestamps), stripped."""
    return TIMESTAMP.sub("", without_container_prefix(line).strip(), count=1).strip()


def said_beside_error(line: str) -> str:
    """What a structured log line (logfmt, zap's, klog's, a JSON log's) says beside its
    error field: its message (``redis ping failed, cache disabled`` of ``msg="…"
    err="dial tcp …"``); "" for any other line, or one with no error field."""
    text = _behind_container_and_time(line)
    if text.startswith("{") and text.endswith("}"):  # (a JSON log's: its message key)
        try:
            event = json.loads(text)
        except (ValueError, RecursionError):
            return ""
        said = (event.get(k) for k in ("msg", "message", "@m")) if isinstance(event, dict) else ()
        return next((" ".join(v.split()) for v in said if isinstance(v, str)), "")
    message, failed = message_and_error_field(ANSI.sub("", line))
    return message[: -len(failed)].rstrip(": ") if failed else ""


def _klog_structured_message(line: str) -> str:
    """klog's structured line after its header (``"Failed to start controller" err="timed
    out waiting for caches to sync" controller="ingress"``): its quoted message and its
    ``err`` field's error, as a logfmt line's are read; ``line`` if it is none."""
    quoted = _LOGFMT_CLOSED.match(line) if line.startswith('"') else None
    if quoted is None:
        return line
    rest = line[quoted.end() :]
    if (rest.strip() and not rest[:1].isspace()) or _LOGFMT_FIELD.sub("", rest).strip():
        return line  # (words after it: a message that starts with a quote)
    fields = {name: value for name, value in reversed(_LOGFMT_FIELD.findall(rest))}
    failed = _error_of_fields(fields)
    failed = "" if failed == "<" else failed  # (a value of several lines: "err=<", them, " >")
    said = _logfmt_value(quoted.group(0))
    return ": ".join(part for part in (said, failed) if part)


#: The levels of a JSON log line that are an error's (pino's and bunyan's are numbers: 50
#: error, 60 fatal; 40 a warning's; log15's "eror").
_JSON_ERROR_LEVELS = {
    "error",
    "err",
    "eror",
    "fatal",
    "critical",
    "crit",
    "panic",
    "dpanic",
    "alert",
}


#: The keys a JSON log's level is under: most loggers', Google Cloud's, Python's
#: json-logger's, Serilog's compact format's, ECS' (flattened).
_JSON_LEVEL_KEYS = ("level", "severity", "levelname", "@l", "log.level", "lvl")
#: winston's and npm's levels below a warning's that no other logger names.
_JSON_QUIET = {"http", "silly", "verbose", "dbug"}


def json_level(event: object) -> str | None:
    """The level a JSON log event was written at (its ``level``, ``severity``, … or ECS'
    ``log.level``): :data:`AT_ERROR`, :data:`WARNING`, :data:`QUIET` or None."""
    if not isinstance(event, dict):
        return None
    ecs = event.get("log")
    if isinstance(ecs, dict) and "level" in ecs:
        event = {"level": ecs["level"]}
    level = next((event[key] for key in _JSON_LEVEL_KEYS if event.get(key) is not None), None)
    if level is None and "@t" in event:  # (Serilog's compact format leaves Information out)
        return QUIET
    if isinstance(level, int | float) and not isinstance(level, bool):
        return AT_ERROR if level >= 50 else WARNING if level >= 40 else QUIET
    return _word_level(level) if isinstance(level, str) else None


def _word_level(word: str) -> str | None:
    """The level a JSON log's or zap's word for it is (``warn``, ``dpanic``, winston's
    ``http``, log15's ``eror``)."""
    word = word.strip().lower()
    if word in _JSON_ERROR_LEVELS:
        return AT_ERROR
    return QUIET if word in _JSON_QUIET else _level_said(word)


def json_said(event: object) -> str | None:
    """What one JSON event says went wrong, or None: Sentry's last exception (``ValueError:
    invalid literal …``), pino's, bunyan's or ECS' error (``Error: connect ECONNREFUSED
    …``), zap's and logrus's ``error``, a traceback's error line (:data:`_JSON_SAID_KEYS`),
    else the event's message."""
    if not isinstance(event, dict):
        return None
    exception = event.get("exception")
    values = exception.get("values") if isinstance(exception, dict) else None
    if isinstance(values, list) and values and isinstance(values[-1], dict):
        kind, value = values[-1].get("type"), values[-1].get("value")
        if isinstance(kind, str) and kind:
            return f"{kind}: {value}" if isinstance(value, str) and value else kind
    if isinstance(event.get("error.message"), str):  # (ECS' flattened)
        kind, message = event.get("error.type"), event["error.message"].strip()
        if isinstance(kind, str) and kind:
            return f"{kind}: {message}" if message else kind
        return message or None
    for key in ("err", "error"):  # pino's and bunyan's, ECS' (its type, or name, and message)
        err = event.get(key)
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            kind = err.get("type", err.get("name"))
            message = err["message"]
            return f"{kind}: {message}" if isinstance(kind, str) and kind else message
    for key in _JSON_SAID_KEYS:
        value = event.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return _api_error(event)


#: The longest pasted API error body read whole (a response, not a dump).
_API_BODY_MAX_CHARS = 100_000


def api_error_said(text: str) -> str | None:
    """What a pasted API error response says went wrong: the whole text one JSON object,
    a list of errors (GraphQL, JSON:API), RFC 9457 problem details, or an ``error`` object
    with its ``message`` or an ``error`` string (OpenAI's, Google's, most REST APIs'); None
    for any other text. (A JSON log line says its level: :func:`json_level`.)"""
    body = text.strip()
    if not body.startswith("{") or len(body) > _API_BODY_MAX_CHARS:
        return None
    try:
        event = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(event, dict):
        return None
    said = _api_error(event)
    if said is not None:
        return said
    error = event.get("error")
    if isinstance(error, dict):
        error = error.get("message")
    return " ".join(error.split()) or None if isinstance(error, str) else None


def _api_error(body: Mapping[str, object]) -> str | None:
    """An API's error body's first error: GraphQL's and JSON:API's ``errors`` list (its
    ``message``, else its ``title`` and ``detail``), RFC 9457's problem details (``title``
    and ``detail`` beside an error's HTTP ``status``); None for any other."""
    errors, status = body.get("errors"), body.get("status")
    problem = isinstance(status, int) and 400 <= status <= 599  # (not {"status": "ok", …})
    first = errors[0] if isinstance(errors, list) and errors else body if problem else None
    if not isinstance(first, dict):
        return None
    message = first.get("message")
    if isinstance(message, str) and message.strip():
        return " ".join(message.split())
    title, detail = (first.get(k) for k in ("title", "detail"))
    said = [" ".join(v.split()) for v in (title, detail) if isinstance(v, str) and v.strip()]
    if len(said) == 2:  # ("Invalid Attribute: First name must …"; a sentence stays one)
        return f"{said[0]} {said[1]}" if said[0][-1] in ".!?" else f"{said[0]}: {said[1]}"
    return said[0] if said else None


#: The keys of what a JSON log event says went wrong, the error first: a traceback's too
#: (structlog's ``exception``, python-json-logger's ``exc_info``, logstash's
#: ``stack_trace``, Serilog's ``@x``), then the message (Serilog's ``@m``).
_JSON_SAID_KEYS = (
    "error",
    "err",
    "exception",
    "exc_info",
    "stack_trace",
    "error.stack_trace",
    "@x",
    "msg",
    "message",
    "@m",
    "event",
    "@mt",
)


#: A traceback's line that names an exception with its message (``sqlalchemy.exc.
#: OperationalError: (…) …``), its root cause's in Java (``Caused by: …``), and .NET's inner
#: one (`` ---> System.Net.Sockets.SocketException (111): …``).
_TRACE_EXCEPTION = lazy(r"^(?:Caused by:[^\S\n]+)?[A-Za-z_][\w.$]*(?:[^\S\n]\(\w+\))?:[^\S\n]+\S")
_TRACE_CAUSE = lazy(r"^Caused by:[^\S\n]+")
#: A Python traceback's exception line, with its message or alone (``AssertionError``); not
#: a note after it in capitals (psycopg2's ``DETAIL:  Key …``) or in parentheses.
_PYTHON_EXCEPTION = lazy(r"^(?![A-Z]+:)[A-Za-z_][\w.]*(?::[^\S\n]*\S.*)?$")


def _error_line_of_trace(trace: str) -> str:
    """The line of a traceback held in one JSON value that names its error, for a log's line
    (:func:`~kenning.signatures.extract_error_signature` reads the whole trace): the last
    exception line of a Python traceback (not SQLAlchemy's or pydantic's notes after it),
    Java's last ``Caused by:``, .NET's innermost exception, else its first line."""
    lines = [line.strip() for line in trace.strip().splitlines() if line.strip()]
    if lines[0].startswith("Traceback"):
        raised = [line for line in lines[1:] if _PYTHON_EXCEPTION.match(line)]
        return raised[-1] if raised else lines[-1]
    causes = [line for line in lines if _TRACE_CAUSE.match(line) and _TRACE_EXCEPTION.match(line)]
    if causes:
        return _TRACE_CAUSE.sub("", causes[-1])
    # .NET's first line, its innermost exception after " ---> " (as a trace printed plain
    # is read); a split on the arrow itself, not on the blanks around it (they were tried
    # from each blank of a run, qa-s63e R4)
    return lines[0].split("--->")[-1].strip() or lines[0]


def _json_line(line: str) -> tuple[str, str | None] | None:
    """A JSON log line's (what it says went wrong, its level), or None when ``line`` is
    none (or says nothing)."""
    text = line.strip()
    if not (text.startswith("{") and text.endswith("}")):
        return None
    try:
        event = json.loads(text)
    except (ValueError, RecursionError):
        return None
    said = json_said(event)
    if said is None:
        return None
    said = _error_line_of_trace(said) if "\n" in said else said
    return " ".join(said.split()), json_level(event)


def _read_logfmt(said: str | None, line: str) -> tuple[str | None, str]:
    """``(said, line)``, or the level and the message of ``line`` when it is a logfmt line
    (or logrus' terminal line) and no level was read before it."""
    if said is not None:
        return said, line
    logrus = _LOGRUS_TERMINAL.match(line) if line[:1] in _LOGRUS_FIRST else None
    if logrus is not None:
        message = _logrus_terminal_message(line[logrus.end() :])
        level = _LOGRUS_LEVELS[logrus.group(1)[:4]]
        return (level, message) if message else (said, line)
    logfmt = _LOGFMT.match(line) if "level=" in line else None  # (what every match holds)
    message = _logfmt_message(line) if logfmt is not None else ""
    return (_level_said(logfmt.group(1)), message) if logfmt and message else (said, line)


def read_log_line(line: str) -> tuple[str, str | None]:
    """``line``'s message as its log's prefixes leave it (terminal colours, a chat's
    markdown, times, levels, loggers, processes, containers and runners' prefixes cut; its
    spaces kept), and the level the prefix says it was written at: :data:`AT_ERROR`,
    :data:`WARNING`, :data:`QUIET` or None (no level); the first of a warning's and a quiet
    level it says counts (its format's outer prefix first)."""
    # (a pattern below is tried only where what every match of it holds is: an escape, a
    # control character, its first character, a "|" or a "/"; most lines have none, and a
    # substring's test costs less than a sub that finds nothing: ~12.2 -> ~9.6 µs a line)
    if "\x1b" in line:
        line = ANSI.sub("", line)
    line = line.replace("\r", "")
    if not line.isprintable():  # (every character CONTROL matches is of category Cc)
        line = CONTROL.sub("", line)
    line = _without_markdown(line)
    # gh's job and step, kubectl's pod and container, and Docker Compose's service come before
    # whatever the runner or container logs (a CI log's time may come before compose's: it is
    # cut again)
    line = without_run_log_prefixes(line)
    if line.startswith("[pod/"):
        line = _KUBECTL_PREFIX.sub("", line, count=1)
    if "|" in line:
        line = _COMPOSE_PREFIX.sub("", line, count=1)
    json_line = _json_line(line) if line.lstrip()[:1] == "{" else None
    if json_line is not None:  # (a JSON log's line: its own level and message)
        return json_line
    said: str | None = None  # a level only the formats below say
    said, line = _read_logfmt(said, line)
    dotnet = _DOTNET_LEVEL.match(line)
    if dotnet:
        said = _DOTNET_LEVELS[dotnet.group(1)]
        line = line[dotnet.end() :]
    for lettered in _LETTER_LEVELS:
        found = lettered.match(line)
        if found:
            said, line = _level_said(found.group(1)), line[found.end() :]
            line = _klog_structured_message(line)
            break
    # a log that stamps every line (GitHub Actions' raw log: "2024-06-02T01:02:03.4567890Z
    # ##[error]…", "… FAILED tests/…"): the runner's and pytest's prefixes are after it
    first = TIMESTAMP.match(line)
    stamped = False
    if first is not None and first.end() > 0:
        line, stamped = line[first.end() :], True
    zap = _ZAP_LEVEL.match(line)
    if zap is not None and (stamped or zap.group(1)):
        said = _word_level(zap.group(2))
        line, stamped = line[zap.end() :], True
    if "|" in line:
        line = _COMPOSE_PREFIX.sub("", line, count=1)
    if "/" in line:
        line = _WORKSPACE_PREFIX.sub("", line, count=1)
    json_line = _json_line(line) if stamped and line.lstrip()[:1] == "{" else None
    if json_line is not None:  # (after a time: docker logs -t, kubectl logs --timestamps)
        return json_line
    said, line = _read_logfmt(said, line)  # (a service's, under compose)
    if "Warning" in line:  # (both events' type: a template's sub costs ~1 µs matched or not)
        line = _K8S_EVENT_ROW.sub(r"\1: ", line, count=1)
        line = _K8S_DESCRIBED_EVENT.sub(r"\1: ", line, count=1)
    if line[1:2] == "/":
        line = _LOGCAT_PREFIX.sub("", line, count=1)
    if line.startswith("["):
        line = _FLUTTER_ENGINE.sub("", line, count=1)
    valgrind = _VALGRIND_PID.match(line)
    if valgrind is not None:
        line = line[valgrind.end() :]
        if _VALGRIND_BANNER.match(line):
            return "", None
    if line.startswith("#"):
        line = _BUILDKIT_STEP.sub("", line, count=1)
    if line[:1].isspace() or line[:1] in _MARGIN_FIRST:
        line = _MARGIN.sub("", line, count=1)
    for stamped_level in _STAMPED_LEVELS if stamped else ():
        found = stamped_level.match(line)
        if found:
            said = _level_said(found.group(1)) or said
            if not found.group(1).islower() or said in BELOW_ERROR:
                # (winston's "error: …" stays: the rules read "error: could not compile"
                # and the other tools' lines that start so)
                line = line[found.end() :]
            if stamped_level is _MONOLOG_LEVEL:  # its empty context and extra
                line = line.rstrip().removesuffix(_MONOLOG_NOTHING_MORE)
            break
    error_level, below = said == AT_ERROR, _below(said)
    ruby = _RUBY_LOGGER_PREFIX.match(line)
    if ruby:
        said = _level_said(ruby.group(1))
        error_level, below = said == AT_ERROR, _below(said)
        line = line[ruby.end() :]
    if line.startswith("["):
        line = _REQUEST_ID_TAG.sub("", line, count=1)
    mark = _NEXT_MARK.match(line)
    if mark:  # (⨯ also marks a file's location alone, above the error's message)
        below = below or (WARNING if mark.group(1) == "⚠" else None)
        line = line[mark.end() :]
    gha = _GHA_PREFIX.match(line)
    if gha:  # (its "group" and "endgroup" are no level)
        said = _level_said(gha.group(1))
        error_level, below = said == AT_ERROR, _below(said)
        line = line[gha.end() :]
    # prettier's "[warn] …", "[error] …"; Python's logging in its default format
    for prefix in (_LOWER_LEVEL, _PY_LOGGING_DEFAULT):
        found = prefix.match(line)
        if found:
            said = _level_said(found.group(1))
            error_level, below = error_level or said == AT_ERROR, below or _below(said)
            line = line[found.end() :]
    padded = _PADDED_LEVEL.match(line)
    below = below or (_level_said(padded.group(1)) if padded else None)
    summary = PYTEST_SUMMARY.match(line)
    if summary:  # its ERROR is pytest's word for a failed setup, not a log level; a FAILED
        # test's line is an error as well (above a CI runner's exit line after it)
        error_level = True
        line = line[summary.end() :]
    for _ in range(2):
        ts = TIMESTAMP.match(line)
        if ts and ts.end() > 0:
            line = line[ts.end() :]
            stamped = True
        if stamped:  # PostgreSQL's log_line_prefix "%m [%p] ": the server process's id; the
            # host and program of journald's short-iso lines ("web1 (gunicorn)[48213]: ")
            line = _SYSLOG_SOURCE.sub("", _PROCESS_ID.sub("", line, count=1), count=1)
            said, line = _read_logfmt(said, line)  # (journald's, kubectl's with its time)
            error_level, below = error_level or said == AT_ERROR, below or _below(said)
            line = _THREAD_BEFORE_LEVEL.sub("", _HEROKU_SOURCE.sub("", line, count=1), count=1)
            sidekiq = _SIDEKIQ_CONTEXT.match(line)
            if sidekiq:
                said = _level_said(sidekiq.group(1))
                error_level = error_level or said == AT_ERROR
                below = below or _below(said)
                line = line[sidekiq.end() :]
        if _ERROR_LEVEL.match(line):
            error_level = True
        lvl = _LEVEL_PREFIX.match(line)
        # "ERROR: message" with no timestamp is the message itself, not a log prefix
        bare_colon = not stamped and lvl is not None and lvl.group(0).rstrip().endswith(":")
        code = _LEVEL_THEN_CODE.match(line)
        if lvl and not bare_colon and not code and lvl.end() < len(line.rstrip()):
            word = _BELOW_ERROR_LEVELS.search(lvl.group(0))
            below = below or (_level_said(word.group(0)) if word else None)
            line = line[lvl.end() :]
            # what a Java logger's or pytest's pattern prints after the level, before the
            # message (the message is the error: a fix stored for it is its exact match)
            line = _JAVA_LOGGER.sub("", _PYTEST_LOG_SOURCE.sub("", line, count=1), count=1)
            line = _LOGGER_BEFORE_EXCEPTION.sub("", line, count=1)
    if stamped and "---" in line:
        line = _SPRING_LOG_PREFIX.sub("", line, count=1)
    if stamped and "\t" in line and (error_level or below):
        line = _zap_message(line)
    if line.startswith("["):
        line = _DOTTED_LOGGER.sub("", line, count=1)
    celery = _CELERY_LOG_PREFIX.match(line) if stamped else None
    if celery:
        said = _level_said(celery.group(1))
        error_level, below = error_level or said == AT_ERROR, below or _below(said)
        line = line[celery.end() :]
    nginx = _NGINX_CONTEXT.match(line) if stamped else None
    if nginx:
        line = _NGINX_REQUEST.sub(r"\1", line[nginx.end() :], count=1)  # (its last)
    return line, AT_ERROR if error_level else below
