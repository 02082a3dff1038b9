"""Error signatures: the one line of a raw error text or log that names the error.

:func:`extract_error_signature` turns a traceback, a compiler's output or a CI log into the
most specific error line (≤ 300 characters), the query an error recall should use and the
first part of an ERROR-FIX entry; :func:`looks_like_error` says whether a text is an error
at all (error queries get the protocol's lower floor). Pure: no store, no model.
"""

from __future__ import annotations

import ast
import functools
import json
import operator
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

from .errorfix import SIGNATURE_MAX_CHARS, one_line
from .json_reports import as_printed
from .lazyre import lazy, source_of
from .log_formats import (
    ANSI,
    AT_ERROR,
    BELOW_ERROR,
    NEXT_MARKED_FILE,
    PYTEST_SUMMARY,
    TIMESTAMP,
    WARNING,
    api_error_said,
    json_level,
    json_said,
    read_log_line,
    without_container_prefix,
    without_run_log_prefixes,
)
from .log_window import read_of_log
from .prefilter import needed_words, prefiltered
from .remembered import remembered
from .truncation import cut_at_word_boundary

__all__ = [
    "BARE_ERROR_MESSAGE",
    "LOCATION_PREFIX",
    "SYSTEM_CALL_ERRORS",
    "clean_line",
    "extract_error_signature",
    "leveled_line",
    "line_score",
    "looks_like_error",
    "names_error",
    "signatures_of",
    "without_exit_code_suffix",
    "written_below_error",
]

#: An exception class with its message inside a line that no rule scored: a sentence's
#: ("the build fails with ModuleNotFoundError: No module named yaml"), a ``raise``
#: statement's. It is what the line reports, and the words before it are not the error.
_INLINE_EXCEPTION = lazy(r"(?<![\w.$])(?:[A-Za-z_][\w$]*\.)*[A-Z][\w$]*(?:Error|Exception):\s+\S")
_INLINE_EXCEPTION_SCORE = 40
#: ... and a Ruby one in its namespace (``giving up: PG::ConnectionBad: …``).
_INLINE_RUBY_EXCEPTION = lazy(r"(?<![\w:])(?:[A-Z]\w*::)+[A-Z]\w*:\s+\S")

#: Lines that are stack frames, source excerpts or decoration: never the signature.
_NOISE_LINE = lazy(
    r"""^\s*(?:
      at\s+\S.*                                   # Node / Java frames
    | File\s+".*",\s+line\s+\d+.*                 # Python frames
    | (?:Exception\s+Group\s+)?Traceback\s+\(most\s+recent\s+call\s+last\):?
    | -->\s+\S.*                                  # rustc location arrows
    | \d*\s*\|.*                                  # rustc / ruff source gutters
    | [\^~\s-]+                                   # carets and underlines
    | goroutine\s+\d+\s+\[.*\]:?                  # Go goroutine headers
    | \#\s+[\w.-]+(?:/[\w.@~-]+)*(?:\s+\[[\w.@~/-]+\])?  # go build's "# <package>" header
    | (?:/|[A-Za-z]:\\|\./)\S+\.go:\d+.*\+0x[0-9a-f]+  # Go frames with offsets
    | \.\.\.\s*\d+\s+more                          # Java "... 3 more"
    # gcc's headers naming where the diagnostics after them are (ld's "in function `main':")
    | (?:\S+:\s+){0,2}(?:In\s+(?:(?:static\s+)?(?:member\s+)?function|constructor|destructor
      |lambda\s+function|instantiation\s+of|substitution\s+of)\b.*|At\s+(?:top|global)\s+level):
    | (?:In\s+file\s+included\s+)?from\s+\S+:\d+[,:]
    | Node\.js\s+v\d.*
    | \$\s+\S.*                                 # a shell's prompt and the command typed
    | LAST\s+SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE     # kubectl get events' header
    # systemctl status: the unit's title and fields (its journal lines under them say why)
    | [×●]\s+\S+\.(?:service|socket|timer|mount|target|path|scope|slice)\s+-\s.*
    | (?:Loaded|Active):\s+(?:loaded|not-found|masked|failed|active|inactive|activating
      |deactivating)\b.*
    | (?:Main\s+PID:\s+\d+|Process:\s+\d+\s+Exec\w*=).*
    | \[Pipeline\]\s.*|Finished:\s+(?:FAILURE|UNSTABLE|ABORTED|SUCCESS|NOT_BUILT)  # Jenkins
    # the go command's progress ("go: downloading github.com/lib/pq v1.10.9")
    | go:\s+(?:downloading|finding|found|added|upgraded|downgraded|removed|extracting)\s.*
    | During\s+handling\s+of\s+the\s+above\s+exception.*
    | The\s+above\s+exception\s+was\s+the\s+direct\s+cause.*
    | For\s+more\s+information\s+about\s+this\s+error.*
    | Some\s+errors\s+have\s+detailed\s+explanations.*
    | (?:note|help|=\s*note|=\s*help):.*
    | npm\s+(?:ERR!|error)(?:\s++(?:A\s+complete\s+log.*|Could\s+not\s+resolve\s+dependency:?)
      |\s++)                                  # (possessive: "npm ERR!" and 100k spaces took 45 s)
    | npm\s+(?:ERR!|error)\s+(?>\S*_logs[/\\])[^\s/\\]+-debug(?:-\d+)?\.log  # ... where it is
    | FAILURE:\s+Build\s+failed\s+with\s+an\s+exception\.?   # gradle's banners, advice
    | BUILD\s+FAILED(?:\s+in\s+\S+)?|BUILD\s+FAILURE
    | Run\s+with\s+--(?:stacktrace|info|debug|scan)\b.*
    | Get\s+more\s+help\s+at\s+\S+
    | COMPILATION\s+ERROR\s*:?                   # maven's banners and advice
    | ->\s+\[Help\s+\d+\]
    | \[Help\s+\d+\]\s+\S+
    | To\s+see\s+the\s+full\s+stack\s+trace\s+of\s+the\s+errors.*
    | Re-run\s+Maven\s+using\s+the\s+-X\s+switch.*
    | For\s+more\s+information\s+about\s+the\s+errors\s+and\s+possible\s+solutions.*
    )$""",
    re.VERBOSE | re.IGNORECASE,
)

_EXIT_CODE = lazy(
    r"\b(?:exit(?:ed)?\s+(?:with\s+)?(?:code|status)|exit\s+code|returned\s+(?:non-zero\s+)?"
    r"(?:exit\s+)?(?:code|status))\s*[:=]?\s*(-?\d+)",
    re.IGNORECASE,
)

#: (``\bE``, which starts no scan for an ``E``: each position of a line was tried, ~3 µs a
#: line of every reader's; the ``E`` first is found as a string is)
_ERRNO_LIKE = lazy(r"E(?<!\wE)[A-Z0-9]{3,}\b")
_ERROR_WORD = lazy(r"\b(?i:error|errno|failed|fail)\b")


class _CodeBeforeErrorWord:
    r"""``\bE[A-Z0-9]{3,}\b(?=.*\b(?i:error|errno|failed|fail)\b)`` (an errno-like code
    before the word error or failed, as ``EBADF … failed``), answered in one pass: the
    lookahead ran over the rest of the line from every such code, time quadratic in a line
    of them (0.9 s for a 20k query, more for a solution document's line)."""

    def search(self, line: str) -> re.Match[str] | None:
        if "E" not in line:  # (every code starts with it: most lines are not searched)
            return None
        start = 0
        while start <= len(line):  # line by line, as the pattern's ``.*`` went
            end = line.find("\n", start)
            end = len(line) if end < 0 else end
            # the first code ends first: if an error word follows any code, it follows it
            code = _ERRNO_LIKE.search(line, start, end)
            found = None if code is None else _ERROR_WORD.search(line, code.end(), end)
            if found is not None:
                return found
            start = end + 1
        return None


class _Rule(Protocol):
    def search(self, line: str) -> re.Match[str] | None: ...


#: Rails' exception, its message in parentheses, under its request's ``Completed 500 …``
#: (``ActiveRecord::RecordNotFound (Couldn't find User with 'id'=5):``); the colon after it
#: is the log's, not the message's.
_RAILS_EXCEPTION = lazy(r"^(?:(?:[A-Z]\w*::)+[A-Z]\w*|[A-Z]\w*(?:Error|Exception))\s\(.*\):$")
#: ... whose message starts on the next line (``ActiveRecord::PendingMigrationError (``, then
#: ``Migrations are pending. …``, the closing ``):`` lines below).
_RAILS_EXCEPTION_OPEN = lazy(r"^(?:(?:[A-Z]\w*::)+[A-Z]\w*|[A-Z]\w*(?:Error|Exception))\s\($")

#: Language exceptions: Python, Node, Java, Ruby, .NET (a class name with a colon or alone).
_EXCEPTION_RULE = lazy(
    r"^(?:Uncaught\s+|Unhandled(?:\s+exception\.)?\s+|Caused\s+by:\s+"
    r"|Exception\s+in\s+thread\s+\"[^\"]*\"\s+)?"
    # (a .NET class nested in another after "+": .NET Core 3.1's "System.Net.
    # Internals.SocketExceptionFactory+ExtendedSocketException")
    r"(?:[A-Za-z_][\w$]*\.)*(?:[A-Z][\w$]*\+)?"
    r"[A-Z][\w$]*(?:Error|Exception|Exit|Interrupt|Warning|Fault)"
    # (.NET's HResult after the class, "SqlException (0x80131904): …", or a
    # Win32Exception's native error code, "SocketException (111): …")
    r"(?:\s*\[[\w-]+\]|\s+\((?:0x[0-9A-Fa-f]{1,16}|\d{1,10})\))?(?::\s.*|:?$)"
)


class _Ending:
    """A rule anchored at a line's end, searched only in a line that ends as its matches do
    (``endings``): its pattern's ``^`` and what follows was tried on each log line that
    starts with a capital, ~2 µs."""

    def __init__(self, rule: _Rule, endings: tuple[str, ...]) -> None:
        self.rule, self.endings = rule, endings

    def search(self, line: str) -> re.Match[str] | None:
        return self.rule.search(line) if line.endswith(self.endings) else None


_RULES: tuple[tuple[int, _Rule], ...] = (
    # rustc / TypeScript / C# style error codes
    (100, lazy(r"\berror\[E\d{3,5}\]:")),
    # (and tsc's code as webpack's checkers and Deno print it: "TS2322: …", "TS2322 [ERROR]: …")
    # (two rules of one score, as one: apart, the first is searched only in a line holding
    # "error", its word; the second's "TS" is too short a word, but it is anchored. Together
    # no word was known, and the pattern was searched in every line, in any case: ~5 µs, the
    # most of any rule's)
    (96, lazy(r"\berror\s+(?:TS|CS|C|LNK)\d{3,5}\b", re.IGNORECASE)),
    (96, lazy(r"^TS\d{4,5}(?:\s+\[ERROR\])?:\s", re.IGNORECASE)),
    (90, _EXCEPTION_RULE),  # language exceptions
    # Python's lower-case exceptions of a module: socket.gaierror, socket.herror,
    # socket.timeout, select.error, zlib.error (a dotted name, so not prose's "error:")
    # (not jest's heading of what a test logged, "console.error", above its message)
    (88, lazy(r"^(?!console\.\w+$)(?:[a-z_]\w*\.)+(?:[a-z]*error|timeout)(?::\s.*|:?$)")),
    (90, lazy(r"^(?:panic|fatal error):\s", re.IGNORECASE)),
    (90, lazy(r"^thread\s+'[^'\n]*'\s+panicked\s+at\s")),  # Rust
    (90, lazy(r"^thread\s+\d+\s+panic:\s")),  # Zig
    # a sanitizer's summary: the kind of error and the function it is in (its ERROR line has
    # the addresses alone, every use-after-free's)
    (92, lazy(r"^SUMMARY:\s+\w+Sanitizer:\s+\S")),
    # ssh's cause of its "Permission denied (publickey)": a key it would not use
    (
        86,
        lazy(
            r"^(?:Load\s+key\s+\S[^\n]{0,300}?:[^\S\n]bad\s+permissions"
            r"|Permissions\s+\d+\s+for\s+\S[^\n]{0,300}?[^\S\n]are\s+too\s+open)"
        ),
    ),
    (90, lazy(r"^\*\*\s+\((?!EXIT\))[A-Z][\w.]*\)\s+\S")),  # Elixir's "** (FunctionClauseError) …"
    (90, _Ending(_RAILS_EXCEPTION, ("):", "):\n"))),
    (90, lazy(r"^terminate\s+called\s+after\s+throwing\s+an\s+instance\s+of\s")),  # C++
    # Node prints an error that carries properties in brackets: "[UnhandledPromiseRejection:
    # … with the reason "x".] {" (its properties, "code: 'ERR_…'", follow)
    (90, lazy(r"^\[[A-Z]\w*(?:Error|Exception|Rejection):\s")),
    # Node's bare Error (with its code: "Error [ERR_MODULE_NOT_FOUND]: …") and many CLIs
    (88, lazy(r"^Error(?:\s\[[A-Z][A-Z0-9_]{2,}\])?:\s\S")),
    # npm's 404 names the package it could not find (its "code E404" any package's): npm 7-10's
    # "… is not in this registry", npm 11's "The requested resource '…' could not be found or
    # you do not have permission to access it", npm 5's and 6's "404 Not Found: yaml@latest"
    (
        88,
        lazy(
            r"^npm\s+(?:ERR!|error)\s+404\s+(?:\S.*\bis\s+not\s+in\s+(?:this|the\s+npm)\s+registry"
            r"|The\s+requested\s+resource\s+'[^'\n]{1,300}'\s+could\s+not\s+be\s+found\b"
            r"|Not\s+Found:\s+@?[\w.-]{1,214}(?:/[\w.-]{1,214})?@\S)",
            re.IGNORECASE,
        ),
    ),
    (86, lazy(r"^npm\s+(?:ERR!|error)\s+code\s+\S+", re.IGNORECASE)),
    # make's own error in a Makefile ("Makefile:14: *** missing separator.  Stop."): no
    # location of a source file (no extension), and not make's "make: *** [target] Error 1"
    (86, lazy(r"^(?:\S*/)?(?:GNU)?[Mm]akefile(?:\.\w+)?:\d+:\s+\*\*\*\s")),
    (86, lazy(r"^\*\*\*\s+\S.*\bStop\.$")),  # (a .mk file's line, its location cut)
    (84, lazy(r"\b(?:command not found|No such file or directory|Permission denied)\b")),
    # (a container killed for its memory: the cause of the CrashLoopBackOff kubectl
    # describe names above it)
    (85, lazy(r"\bOOMKilled\b")),
    (84, lazy(r"\bSegmentation fault\b|\bcore dumped\b|\bKilled\b")),
    # a pod's status as kubectl lists it ("web-7d9c8b6f5-x2x4z  0/1  CrashLoopBackOff  5 …")
    (
        84,
        lazy(
            r"\b(?:CrashLoopBackOff|ImagePullBackOff|ErrImagePull|CreateContainer(?:Config)?Error"
            r"|InvalidImageName|RunContainerError)\b"
        ),
    ),
    (82, lazy(r"^(?:fatal|error|FATAL|ERROR)(?:\s*\([^)]*\))?:\s")),
    (80, lazy(r"^go:\s")),
    (78, lazy(r"^[✗✘×]\s*(?:ERROR|error)\b")),
    (76, lazy(r"^×\s+\S")),  # miette's error mark (uv, oxlint, turbo; vitest's failed test)
    # (and "Error:" inside a message: webpack's "Module not found: Error: Can't resolve …")
    (76, lazy(r"\b(?:error|ERROR)\s*:\s|(?<=\S\s)Error:\s")),
    # git push's ref the remote refused, and why ("! [rejected] main -> main (fetch first)")
    (74, lazy(r"^!\s+\[(?:remote\s+)?rejected\]\s")),
    (74, _CodeBeforeErrorWord()),
    (72, lazy(r"\bERR_[A-Z0-9_]{3,}\b|\b(?:ENOENT|EACCES|EPERM|EEXIST|ENOTDIR|EISDIR)\b")),
    (72, lazy(r"\bE2BIG\b|\bECONNREFUSED\b|\bETIMEDOUT\b|\bEADDRINUSE\b|\bENOSPC\b")),
    (70, lazy(r"^npm\s+(?:ERR!|error)\s", re.IGNORECASE)),
    (66, lazy(r"\[Errno\s+\d+\]|\berrno\s*\d+", re.IGNORECASE)),
    # git's file it could not merge (its "Automatic merge failed" closes every conflict)
    (84, lazy(r"^CONFLICT\s+\([\w/ -]{1,40}\):\s")),
    # valgrind's error (its process id cut by clean_line): what it found
    (
        70,
        lazy(
            r"^(?:Invalid\s+(?:read|write)\s+of\s+size\b|Invalid\s+free\(\)|Mismatched\s+free\(\)"
            r"|Conditional\s+jump\s+or\s+move\b|Use\s+of\s+uninitialised\s+value\b"
            r"|Syscall\s+param\b|Source\s+and\s+destination\s+overlap\b"
            r"|[\d,]+\s+bytes\s+in\s+[\d,]+\s+blocks\s+are\s+(?:definitely|possibly)\s+lost\b)"
        ),
    ),
    # Perl's die: its message with where it died ("… at lib/Shop/Cart.pm line 31.")
    # (the path is one run of non-spaces, taken whole: "\S*[/.]\S*" was quadratic in a run
    # of dots)
    (60, lazy(r"\sat\s(?=\S*[/.])\S++\sline\s\d+\.?$")),
    (60, lazy(r"^make(?:\[\d+\])?:\s+\*\*\*")),
    (58, lazy(r"^---\s+FAIL:\s+\S")),  # go test: the test that failed
    # jest: the same (not its "● Console" heading over what a test logged)
    (58, lazy(r"^●\s+(?!Test\s+suite\s+failed\s+to\s+run|Console$)\S")),
    (58, lazy(r"^FAIL\s+(?:\|[^|\n]{1,100}\|\s+)?\S+\s+>\s+\S")),  # vitest: the same
    (56, lazy(r"\b(?:failed|failure|cannot|can't|could not|unable to)\b", re.IGNORECASE)),
    # composer's problem ("- laravel/framework[…] require php ^8.2 -> your php version
    # (8.1.29) does not satisfy that requirement."), prettier --check's finding
    (56, lazy(r"\bdoes\s+not\s+(?:satisfy\s+that\s+requirement|match\s+the\s+constraint)\b")),
    (56, lazy(r"\bCode\s+style\s+issues\s+(?:were\s+)?found\b")),
    # an HTTP error status with its reason (a smoke test's "GET /healthz -> 502 Bad Gateway")
    (
        56,
        lazy(
            r"\b[45]\d\d\s+(?:Bad\s+Request|Unauthorized|Forbidden|Not\s+Found|Conflict"
            r"|Too\s+Many\s+Requests|Internal\s+Server\s+Error|Bad\s+Gateway|Service\s+Unavailable"
            r"|Gateway\s+Time-?out)\b"
        ),
    ),
    (50, lazy(r"\b(?:invalid|unexpected|undefined|not found|denied|refused)\b", re.I)),
    (40, lazy(r"\berror\b", re.IGNORECASE)),
)

#: Generic wrapper lines (CI runners, build drivers): an error, but the least specific one.
_WRAPPER = lazy(
    # (GitHub Actions' close, "Error: …" or, as its raw log says it, "##[error]…")
    r"^(?:(?:Error:\s+)?Process\s+completed\s+with\s+exit\s+code"
    r"|error:\s+(?:aborting due to|could not compile|Recipe `|recipe for target)"
    r"|npm\s+(?:ERR!|error)\s+(?:Lifecycle|errno|This is probably|Failed at)"
    # npm 7+'s close of a script that failed: its exit code, the command and where it ran
    # (what the script printed above it says why; "code E404", "code ERESOLVE" are errors)
    r"|npm\s+(?:ERR!|error)\s+(?:code\s+\d+\s*$|command\s|path\s)"
    r"|\S*(?:exited|exit(?:ed)?\s+with)\b"
    r"|ELIFECYCLE"
    r"|exit\s+status\s+\d+"
    r"|Command\s+.*\s+returned\s+non-zero"
    r"|error:\s+test\s+failed,\s+to\s+rerun\s+pass"  # cargo test, after the panic it ran into
    r"|Failed\s+with\s+errors\s+in\b"  # yarn berry's closing line
    r"|Failed\s+to\s+compile\.?$"  # Next's and create-react-app's banner over the error
    r"|error:\s+failed\s+to\s+push\s+some\s+refs\b"  # git push's, under the ref it refused
    r"|APPLICATION\s+FAILED\s+TO\s+START$"  # Spring Boot's banner over the description
    r"|Aborted(?:\s+\(core\s+dumped\))?$"  # the process's death notice after what aborted it
    # the compiler driver's closing line after the linker's error
    r"|collect2:\s+error:\s+ld\s+returned\b|(?:clang|gcc|cc|g\+\+|c\+\+)(?:-\d+)?:\s+error:\s+linker"
    r"\s+command\s+failed\b"
    # jest's and vitest's counts, and jest's header above a suite's error
    r"|Test\s+Suites:\s+\d+\s+failed|Tests:?\s+\d+\s+failed|Test\s+Files\s+\d+\s+failed"
    r"|●\s+Test\s+suite\s+failed\s+to\s+run"
    # docker build: the step's command failed (what it printed says why)
    r"|(?:ERROR:\s+)?(?:failed\s+to\s+solve:\s+)?process\s+.*\s+did\s+not\s+complete\s+successfully"
    # gradle's banners and the chain above the cause ("* What went wrong:" says it last)
    r"|Task\s+:\S+\s+FAILED$"
    r"|Execution\s+failed\s+for\s+task\b"
    r"|Could\s+not\s+resolve\s+all\s+(?:files|dependencies|artifacts)\s+for\s+configuration\b"
    # vite's summary over the error ("x Build failed in 812ms"), composer's headline over
    # its problems, gradle's lines over the cause nested under them
    r"|[x✗×]\s+Build\s+failed\s+in\s+\S+$"
    r"|error\s+during\s+build:$"
    r"|Your\s+requirements\s+could\s+not\s+be\s+resolved\s+to\s+an\s+installable\s+set\b"
    r"|A\s+failure\s+occurred\s+while\s+executing\s+\S+$"
    r"|Could\s+not\s+determine\s+the\s+dependencies\s+of\s+task\b"
    r"|There\s+were\s+failing\s+tests\b"
    # Celery's (billiard's) wrapper over the exception it prints between triple quotes
    r"|(?:\w+\.)*ExceptionWithTraceback:$"
    # maven's goal that failed to compile or test, above what failed in it ("cannot find
    # symbol"; its "Could not resolve dependencies …" is the error itself)
    r"|Failed\s+to\s+execute\s+goal\s.*:\s+(?:Compilation\s+failure|There\s+are\s+test\s+failures)"
    r"|Compilation\s+(?:failed;\s+see\s+the\s+compiler\s+error\s+output|error\.\s+See\s+log)"
    r"|make(?:\[\d+\])?:\s+\*\*\*"
    # git's close of a merge with conflicts (each CONFLICT line names its file)
    r"|Automatic\s+merge\s+failed\b"
    # Perl's consequences of the error above them
    r"|Compilation\s+failed\s+in\s+require\b|BEGIN\s+failed--compilation\s+aborted\b"
    r"|Execution\s+of\s+\S+\s+aborted\s+due\s+to\s+compilation\s+errors\b"
    # Bazel's action that failed (the compiler's error under it says why) and its close
    r"|(?:ERROR:\s+)?(?:\S+:\d+:\d+:\s+)?\S+\s+\S+\s+failed:\s+\(Exit\s+\d+\)"
    r"|Target\s+\S+\s+failed\s+to\s+build$|FAILED:\s+Build\s+did\s+NOT\s+complete\s+successfully"
    # ExUnit's count after the failures it numbered; stack's close after GHC's error
    r"|\d+\s+tests?,\s+\d+\s+failures?\b|Error:\s+\[S-\d+\]$"
    # an image pull's event without its cause (the row above it says why it failed)
    r"|(?:Failed:\s+)?Error:\s+(?:ErrImagePull|ImagePullBackOff)$"
    # Jenkins' step that failed (what the step printed above it says why)
    r"|(?:ERROR:\s+)?script\s+returned\s+exit\s+code\s+-?\d+$"
    # go test's close of a package that did not build (the compiler's error above it says why)
    r"|FAIL\s+\S+\s+\[(?:build|setup)\s+failed\]$"
    # a linter's or compiler's count of what it reported above: ruff's "Found 1 error.",
    # clang's "1 error generated.", javac's "1 error", eslint's "✖ 2 problems (1 error, …)"
    r"|Found\s+\d+\s+errors?\b"
    r"|\d+\s+errors?(?:\s+generated)?\.?$"
    r"|[✖✗×]\s+\d+\s+problems?\b"
    # PHPUnit's count above its numbered failures
    r"|There\s+(?:was|were)\s+\d+\s+(?:failures?|errors?|warnings?|risky\s+tests?):$"
    # sbt's close of a test run that failed (ScalaTest's report above it, at [info], says
    # what failed)
    r"|Failed\s+tests:$|sbt\.TestsFailedException:\s+Tests\s+unsuccessful$"
    # Rails' summary of a request that failed (the exception it logs under it says why)
    r"|Completed\s+[45]\d\d\s.*\bin\s+\d+(?:\.\d+)?ms\b)",
    re.IGNORECASE,
)
#: A wrapper line at an error log level: above the lines that name no error, below those
#: that do.
_WRAPPER_LOGGED_SCORE = 45
#: A located line whose message starts with a rule code (ruff/flake8 ``F401``, pylint
#: ``C0114:``): the diagnostic itself, as specific as ``error: …``.
_RULE_CODE = lazy(r"^[A-Z]{1,4}\d{2,5}\b")
_RULE_CODE_SCORE = 76
#: A warning class (``DeprecationWarning: …``, a ``ResourceWarning`` printed at shutdown
#: after the traceback) reads as an exception line, but any error beside it is the error.
_WARNING_CLASS = lazy(r"^(?:[A-Za-z_][\w$]*\.)*[A-Z][\w$]*Warning\b")
_WARNING_SCORE = 52
#: kotlinc's ``e: file:///…/App.kt:5:9 Unresolved reference: foo`` (through gradle), and
#: before Kotlin 1.9 ``e: /src/Main.kt: (3, 5): Unresolved reference: foo``: an error at a
#: location, the location cut off.
_KOTLIN_ERROR = lazy(
    r"^e:\s+(?:file://)?(?:[A-Za-z]:)?[^\s:()]*\.kts?(?:(?::\d+){1,2}:?|:\s\(\d+,\s\d+\):)"
    r"\s+(?=\S)"
)
#: Lua's error, ``lua: app.lua:3: attempt to call a nil value (global 'foo')``: the
#: interpreter's name and the chunk's (a file, ``lua -e``'s ``(command line)``, ``load``'s
#: ``[string "…"]``) and its line, cut off (qa81 F7).
LUA_ERROR_PREFIX = (
    r"lua(?:jit)?[\d.]*:[^\S\n]+"
    r"(?:(?:[A-Za-z]:)?[^\s:]+\.lua|\(command\sline\)|\[string\s\"[^\n]*?\"\]):\d+:[^\S\n]"
)
_LUA_ERROR = lazy(rf"^{LUA_ERROR_PREFIX}\s*(?=\S)")
#: The Go toolchain's ``file.go:L:C:`` diagnostics are errors (it prints no warnings), also
#: those without a word the rules score ("imported and not used", "missing return"): above
#: ``go build``'s ``# package`` header before them.
_GO_LOCATION = lazy(r"^(?:[A-Za-z]:)?[^\s:()]*\.go:\d+:\d+:")
_GO_DIAGNOSTIC_SCORE = 50
#: A located line whose message starts with the level word ``error`` (eslint's ``3:5  error
#: …``): as specific as ``error: …``, above a warning after it that says "unexpected".
_LEVEL_WORD_ERROR = lazy(r"^error\s")
#: A located warning (gcc's ``file.c:3:9: warning: …``, eslint's ``3:5  warning …``) is
#: what a run that printed no error reported: above a tool's count of it ("✖ 1 problem (0
#: errors, 1 warning)", "1 warning generated.") and a runner's exit line, wrappers; below
#: any line that names an error.
_LEVEL_WORD_WARNING = lazy(r"^[Ww]arning(?::|\s)")
_LOCATED_WARNING_SCORE = 35

#: ``path/to/file.ext:12:5: message`` — keep the message (Go, gcc, ruff, mypy, eslint…;
#: tsc's ``file.ts:3:5 - error TS2322`` in a terminal).
LOCATION_PREFIX = lazy(
    r"^(?:[A-Za-z]:)?[^\s:()]*[\w)]\.[A-Za-z]{1,6}(?::\d+){1,3}"
    r"(?::|\s+-(?=\s+(?:error|warning)\b))?\s+(?=\S)"
    r"|^(?:[A-Za-z]:)?[^\s:()]*\.[A-Za-z]{1,6}\(\d+(?:,\d+)?\):\s+(?=\S)"
    r"|^(?:[A-Za-z]:)?[^\s:()]*\.[A-Za-z]{1,6}:\[\d+(?:,\d+)?\]\s+(?=\S)"  # maven
    r"|^\d+:\d+\s+(?=(?:[Ee]rror|[Ww]arning):?\s)"  # eslint's, Next's "12:7  Error: …"
    # MSBuild's origin: a tool or a project ("CSC : error CS5001:", "Shop.csproj : error NU1101:")
    r"|^\S+\s+:\s+(?=(?:error|warning)\s+[A-Z]{2,}\d{3,5}\s*:)"
    r"|^psql:[^\s:]+:\d+:\s+(?=\S)"  # psql -f script.sql
    r"|^(?:[A-Za-z]:)?[^\s:()]*\.[A-Za-z]{1,6}:\(\.[\w.$]+\+0x[0-9a-fA-F]+\):\s+(?=\S)"  # ld
    r"|^(?:[A-Za-z]:)?[^\s:()]*\.rb:\d+:in\s+[`'][^'\n]{0,200}':\s+(?=\S)"  # Ruby
)
#: Python's traceback header, and the line its exception is named on: a class, qualified by
#: its module or not, alone or before ``: message`` (a frame's source line is code).
_PY_TRACEBACK = lazy(r"^\s*(?:Exception\s+Group\s+)?Traceback\s+\(most\s+recent\s+call\s+last\)")
_PY_EXCEPTION_LINE = lazy(r"^(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?::\s.*|:?$)")
_PY_EXCEPTION_SCORE = 90
#: pytest's ``E   `` before an error line (one space once a note's whitespace is collapsed,
#: before an exception or an assert).
_PYTEST_E = lazy(
    r"^E(?:\s{2,}|\s(?=(?:[A-Za-z_][\w$]*\.)*[A-Z][\w$]*(?:Error|Exception)\b|assert\s))"
)
_LITERAL = r"(?:-?\d+(?:\.\d+)?|'[^'\n]{0,200}'|\"[^\"\n]{0,200}\"|True|False|None|\[\]|\{\}|\(\))"
#: A failed assert pasted with the values it compared (pytest's ``E   assert 403 == 200``
#: without its ``E``, under the line that named the test: "test_admin fails:" was the
#: signature), not a test's source line (``assert response.status_code == 200``).
_COMPARISON = r"(?:==|!=|<=|>=|<|>|\bis\s+not\b|\bis\b|\bnot\s+in\b|\bin\b)"
FAILED_ASSERT = (
    rf"assert\s+(?:{_LITERAL}\s*{_COMPARISON}"
    # (alone, a value that fails: a test's "assert True" is code)
    rf"\s*{_LITERAL}|not\s+{_LITERAL}|(?:False|None|0|''|\"\"|\[\]|\{{\}}|\(\))(?![\w.]))"
)
#: ... of which, alone on a line, only a comparison of two values (a lone ``assert False``
#: or ``assert not None`` is a test's code as often as a failure).
_COMPARED_VALUES = lazy(
    rf"^assert\s+(?P<left>{_LITERAL})\s*(?P<op>{_COMPARISON})\s*(?P<right>{_LITERAL})\s*$"
)
_COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<=": operator.le,
    ">=": operator.ge,
    "<": operator.lt,
    ">": operator.gt,
    "is": lambda a, b: a is b,
    "is not": lambda a, b: a is not b,
    "in": lambda a, b: a in b,
    "not in": lambda a, b: a not in b,
}


def _failed_assert_alone(line: str) -> bool:
    """Whether ``line`` is a failed assert pasted with its values (``assert 403 == 200``):
    a comparison of two values that is false (``assert 1 == 1`` in a test's code never
    fails)."""
    m = _COMPARED_VALUES.match(line)
    if m is None:
        return False
    try:
        held = _COMPARISONS[" ".join(m.group("op").split())](
            ast.literal_eval(m.group("left")), ast.literal_eval(m.group("right"))
        )
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return True  # (a value Python cannot compare: pytest's own words for it)
    return not held


_BARE_EXCEPTION = lazy(r"^(?:[A-Za-z_][\w$]*\.)*[A-Z][\w$]*(?:Error|Exception)$")


_DANGLING_TAIL = 16
#: The last characters of :data:`_DANGLING`'s matches, in any case (a text ending in
#: another ASCII character is not searched; past ASCII, re reads "ſ" as "s", and "$"
#: matches before a last line break: searched).
_DANGLING_ENDS = frozenset(",fohmntrdeasyFOHMNTRDEASY")


def _may_dangle(text: str) -> bool:
    """Whether :data:`_DANGLING` may match at the end of ``text`` (false only when it
    cannot)."""
    last = text[-1:]
    return last in _DANGLING_ENDS or last == "\n" or not last.isascii()


_DANGLING = lazy(
    r"(?:,|\b(?:of|to|with|from|in|at|for|and|or|the|a|an|is|are|but|got|expected|received|"
    r"(?<=,\s)found|near|by))$",  # "expected X, found", not "not found" or "none found"
    re.IGNORECASE,
)
#: Rust ≥ 1.73 says where a thread panicked on one line and the panic's message on the next;
#: older versions said both on one line, the message quoted first (rewritten to the new form,
#: so that the message is not masked as a quoted name and both versions give one signature).
_PANIC_HEADER = lazy(r"^thread\s+'[^'\n]*'\s+panicked\s+at\s+\S+:$")
_PANIC_QUOTED = lazy(r"^(thread\s+'[^'\n]*'\s+panicked\s+at\s+)'(.*)',\s+(\S+:\d+:\d+)$")
#: Recent Rust (1.95 here) names the thread by its id too (``thread 'tests::adds' (1193)
#: panicked at``), which every run changes: left out, so that a panic is one error whichever
#: Rust printed it.
PANIC_THREAD_ID = r"^(thread\s+'[^'\n]*')\s+\(\d{1,20}\)(?=\s+panicked\b)"
_PANIC_THREAD_ID = lazy(PANIC_THREAD_ID)
#: miette (uv, oxlint, turbo) draws an error's cause under it: ``  ╰─▶ Because …``.
_CAUSE = lazy(r"^[\s│]*╰─+▶\s*")
#: CMake says where an error is (``CMake Error at CMakeLists.txt:5 (find_package):``) and what
#: on the lines after it.
#: GHC 9.6's (and stack's, cabal's) error line, its code alone: the message is under it.
_GHC_HEADER = lazy(r"^error:\s+\[GHC-\d+\]$")
_CMAKE_HEADER = lazy(r"^CMake\s+(?:Error|Warning)(?:\s+\(dev\))?\s+at\s+\S+\s+\(\w+\):$")
#: .NET prints an exception's inner exception after ``--->``, on a line of its own (its
#: ``ToString()``) or on the outer one's: the innermost is the error, as Java's last ``Caused
#: by:`` is (``InvalidOperationException: … ---> SqlException (0x80131904): Login failed…``),
#: a nested class too (``---> System.Net.Internals.SocketExceptionFactory+ExtendedSocket…``).
_DOTNET_INNER = lazy(
    r"(?:^|\s)--->\s+"
    r"(?=(?:[A-Za-z_][\w$]*\.)*(?:[A-Z][\w$]*\+)?[A-Z][\w$]*(?:Error|Exception)\b)"
)
#: Node prints an error's cause under it, among its properties: ``[cause]: Error: connect
#: ECONNREFUSED 127.0.0.1:3000`` under fetch's ``TypeError: fetch failed``: the cause is the
#: error, as Java's last ``Caused by:`` is.
_NODE_CAUSE = lazy(r"^\[cause\]:\s+(?=\S)")
#: Node prints an error that carries properties as ``[Error: …] {`` and the properties after
#: it: the brace opens them, it is not part of the error.
_NODE_PROPERTIES = lazy(r"(?<=\])[ \t]*\{$")
#: C++'s ``terminate called after throwing an instance of 'X'`` says the message next.
_CPP_TERMINATE = lazy(r"^terminate\s+called\s+after\s+throwing\s+an\s+instance\s+of\s")
_CPP_WHAT = lazy(r"^what\(\):\s+\S")
#: gradle prints a failed test as ``AppTest > testAdd() FAILED`` and what it threw on the
#: next line (``org.opentest4j.AssertionFailedError at AppTest.java:12``).
_GRADLE_THROWN = lazy(r"^(?:[A-Za-z_][\w$]*\.)*[A-Z][\w$]*(?:Error|Exception|Throwable)\b")
#: pydantic's ``ValidationError: 1 validation error for User`` names the field and what is
#: wrong with it on the two lines after it.
_VALIDATION_HEAD = lazy(r"\bvalidation\s+errors?\s+for\s+\S+$")
_VALIDATION_LINES = 2
#: minitest heads a failed assertion ``Failure:`` (``1) Failure:``), the test and its
#: location on the next line, what failed on the one after.
_MINITEST_FAILURE = "Failure:"
_MINITEST_LINES = 2
#: javac's ``error: cannot find symbol`` names the symbol on a later line of its own.
_JAVAC_SYMBOL = lazy(r"^symbol:\s+(\S.*)$")
#: RSpec prints an exception's class alone (``NoMethodError:``, ``ActiveRecord::
#: RecordNotFound:``) and its message indented under it.
_RUBY_CLASS_ALONE = lazy(
    r"^(?:(?:[A-Z]\w*::)+[A-Z]\w*|(?:[A-Z]\w*::)*[A-Z]\w*(?:Error|Exception)):$"
)
#: PHP's exception class alone on its line, as Collision (Laravel's console) prints it above
#: its message: ``Illuminate\Database\QueryException``.
_PHP_CLASS_ALONE = lazy(r"^(?:[A-Z]\w*\\)+[A-Z]\w*(?:Exception|Error)$")
#: What a line either of the two matches ends with ("$" matches before a last line break).
_CLASS_ALONE_ENDS = (":", "Exception", "Error", ":\n", "Exception\n", "Error\n")
#: ... one named an error or exception, which says nothing until its message.
_EXCEPTION_ALONE = lazy(r"^(?:[A-Z]\w*::)*[A-Z]\w*(?:Error|Exception):$")
#: Celery's worker (billiard) prints the exception of a failed task after this line, between
#: triple quotes (``billiard.exceptions.TimeLimitExceeded: TimeLimitExceeded(300,)``).
_BILLIARD_WRAPPER = "ExceptionWithTraceback:"
#: xUnit's and NUnit's failed test (``dotnet test``): the assertion under ``Error Message:``,
#: with its ``Expected:`` and ``Actual:`` lines, up to the ``Stack Trace:``.
_DOTNET_ERROR_MESSAGE = "Error Message:"
_DOTNET_STACK_TRACE = "Stack Trace:"
_DOTNET_ASSERT_SCORE = 80
#: A line that starts a new ``key: message`` error rather than continuing a wrapped one.
_KEY_MESSAGE = lazy(r"^\S+:\s")
_ELLIPSIS_TAIL = lazy(r"[,;]?\s*(?:\.\.\.|…)?\s*$")


def clean_line(line: str) -> tuple[str, bool]:
    """Strip ANSI, markdown quotes, bullets and a leading code span, timestamps, log levels
    and CI prefixes; report an error log level."""
    text, level = leveled_line(line)
    return text, level == AT_ERROR


def written_below_error(line: str) -> bool:
    """Whether a log wrote ``line`` at a level below an error's (WARNING, INFO, DEBUG…, as
    :func:`clean_line` reads its prefix)."""
    return leveled_line(line)[1] in BELOW_ERROR


@remembered  # (read by each reader of a pasted error: its signature, parts, causes, warnings)
def leveled_line(line: str) -> tuple[str, str | None]:
    """:func:`clean_line`'s line, and the level it was written at (None: no level): as its
    log's prefix says it (:func:`~kenning.log_formats.read_log_line`: an error's, a
    warning's or one below it), or an error's for what pytest says failed (its ``E   ``
    lines, a failed assert pasted with its values)."""
    line, level = read_log_line(line)
    if _PYTEST_E.match(line) or _failed_assert_alone(line):  # what failed
        level = AT_ERROR
    line = PYTEST_SUMMARY.sub("", _PYTEST_E.sub("", line))
    return line.strip(), level


@remembered
def line_score(line: str) -> int:
    # (the line folded once for all the rules: not once a rule)
    folded = line.lower() if line.isascii() else None
    # (holds_one's answer, asked here word by word: a call of it for each of the ~46 rules
    # was most of a line's reading, ~60 % of this function)
    for score, rule, words_in_case, words_in_any_case in _rules_by_words():
        if words_in_case is not None:  # (None: the rule's words are not known)
            for word in words_in_case:
                if word in line:
                    break
            else:
                if not words_in_any_case:
                    continue  # (no match of the rule can be in a line without one of its words)
                if folded is not None:  # (past ASCII, re finds "s" in "ſ": searched)
                    for word in words_in_any_case:
                        if word in folded:
                            break
                    else:
                        continue
        if rule.search(line):
            return score
    return 0


@functools.cache
def _scored_rules() -> tuple[tuple[int, _Rule, tuple[tuple[str, bool], ...] | None], ...]:
    """:data:`_RULES`, each with the words one of which a line it matches holds
    (:func:`~kenning.prefilter.needed_words`; None: not known): a log's line is searched
    only by the rules whose words it holds (~36 µs a line by all of them in turn)."""
    return tuple((score, rule, _words_of(rule)) for score, rule in _RULES)


@functools.cache
def _rules_by_words() -> tuple[tuple[int, _Rule, tuple[str, ...] | None, tuple[str, ...]], ...]:
    """:func:`_scored_rules`, each rule's words parted into those in their case and those in
    any case (lower-cased), as :func:`~kenning.prefilter.holds_one` reads them."""
    return tuple(
        (
            score,
            rule,
            None if words is None else tuple(word for word, any_case in words if not any_case),
            () if words is None else tuple(word for word, any_case in words if any_case),
        )
        for score, rule, words in _scored_rules()
    )


def _words_of(rule: _Rule) -> tuple[tuple[str, bool], ...] | None:
    if isinstance(rule, _CodeBeforeErrorWord | _Ending):
        return None
    return needed_words(*source_of(rule))  # type: ignore[arg-type]


def _is_exception_line(line: str) -> bool:
    return _EXCEPTION_RULE.search(line) is not None


#: Python 3.11+ prints an ExceptionGroup (an asyncio TaskGroup's failure) in a box: its
#: lines behind ``|`` gutters (read as a compiler's source gutters, and dropped), its
#: sub-exceptions between rules (``+-+---- 1 ----``).
_GROUP_GUTTER = lazy(r"^[ \t]*(?:\+[ \t]+(?=Exception\s+Group\b)|(?:\|[ \t]?)+)")
_GROUP_RULE = lazy(r"^[ \t]*\+[-+]*-[-+ \t\d.]*$")


def _is_gradle_test_failed(line: str) -> bool:
    return line.endswith(" FAILED") and " > " in line and not line[:1].isspace()


def _continue_last(out: list[tuple[str, int, bool]], text: str, separator: str = " ") -> None:
    """Join ``text`` to the last candidate, which it continues (its score and kind kept)."""
    prev, prev_score, prev_exc = out[-1]
    out[-1] = (f"{prev}{separator}{text}", prev_score, prev_exc)


def _candidate_lines(raw: str) -> list[tuple[str, int, bool]]:
    """``(message, score, is_exception)`` for every meaningful line, in input order."""
    out: list[tuple[str, int, bool]] = []
    absorb = 0  # lines still to join to the last candidate (a validation error's details)
    group = "Exception Group Traceback" in raw
    traceback = False  # inside a Python traceback: its exception line need not say Error
    last_indent = 0  # the last candidate's raw line's
    # each candidate's log level (None for an error's that names none: a wrapper's)
    levels: list[str | None] = []
    record: str | None = None  # the level of the log's record the line is in
    marked_file = False  # in the lines under Next.js' mark of a file, up to a blank line
    for raw_line in raw.splitlines():
        if group:  # Python's exception group: its box's rules dropped, its gutters opened
            if _GROUP_RULE.match(raw_line):
                continue
            raw_line = _GROUP_GUTTER.sub("", raw_line, count=1)
        line, level = leveled_line(raw_line)
        body = without_container_prefix(raw_line)  # (its indentation is the container's)
        error_level = level == AT_ERROR
        # the lines of a log's record indented under its leveled line were written at its
        # level (.NET's message and exception under "warn:" or "fail:"); a traceback at the
        # line's start after it is not known to be the record's (a warning's exc_info, or
        # the crash a program printed after its last INFO line)
        marked = NEXT_MARKED_FILE.match(raw_line)
        if marked:  # (its ⨯ is no level of the line, a location alone: of its message's)
            record = WARNING if marked.group(1) == "⚠" else AT_ERROR
        elif level is not None:
            record = level
        elif line and not body[:1].isspace() and not marked_file:
            record = None
        marked_file = marked is not None or (marked_file and bool(raw_line.strip()))
        if not line or _NOISE_LINE.match(line):
            traceback = traceback or _PY_TRACEBACK.match(line) is not None
            continue
        if out and out[-1][0].endswith(("(", "(\n")) and _RAILS_EXCEPTION_OPEN.match(out[-1][0]):
            # the message's first line, as Rails logs a message of one line
            out[-1] = (f"{out[-1][0]}{line}):", _PY_EXCEPTION_SCORE, True)
            continue
        if line == '"""' and out and out[-1][0].endswith(_BILLIARD_WRAPPER):
            traceback = True  # the exception billiard quotes is the traceback's last line
            continue
        if absorb and out:
            absorb -= 1
            _continue_last(out, line)
            continue
        if out and (
            out[-1][0].endswith(_CLASS_ALONE_ENDS)
            and (
                (
                    _RUBY_CLASS_ALONE.match(out[-1][0])
                    and (_indent(body) > last_indent or _EXCEPTION_ALONE.match(out[-1][0]))
                )
                or _PHP_CLASS_ALONE.match(out[-1][0])
            )
        ):
            # RSpec's exception: its class alone, its message indented under it (Rails 7's
            # "ActiveRecord::PendingMigrationError:", its message after a blank line; PHP's
            # Collision, Laravel's: "Illuminate\Database\QueryException", then its message)
            prev, prev_score, _ = out[-1]
            out[-1] = (f"{prev} {line}", max(prev_score, _PY_EXCEPTION_SCORE), True)
            continue
        if out and out[-1][0].startswith(_DOTNET_ERROR_MESSAGE) and line != _DOTNET_STACK_TRACE:
            prev, _, prev_exc = out[-1]
            joined = f"{prev.removeprefix(_DOTNET_ERROR_MESSAGE).strip()} {line}".strip()
            out[-1] = (f"{_DOTNET_ERROR_MESSAGE} {joined}", _DOTNET_ASSERT_SCORE, prev_exc)
            continue
        if out and line.startswith("Locator: ") and "expect(locator)" in out[-1][0]:
            # Playwright's locator under the expectation that timed out: which element
            _continue_last(out, line)
            continue
        if out and (
            # (what each of the three ends with, "$" before a last line break too)
            out[-1][0].endswith((":", "]", ":\n", "]\n"))
            and (
                _PANIC_HEADER.match(out[-1][0])
                or _CMAKE_HEADER.match(out[-1][0])
                or _GHC_HEADER.match(out[-1][0])
            )
        ):
            # the panic's message, CMake's (its header says only where)
            _continue_last(out, line)
            continue
        if out and _GRADLE_THROWN.match(line) and _is_gradle_test_failed(out[-1][0]):
            _continue_last(out, line, ": ")  # what the failed test threw
            continue
        if out and _CAUSE.match(raw_line):  # the cause miette draws under its error
            _continue_last(out, _CAUSE.sub("", line, count=1))
            continue
        if out and _CPP_WHAT.match(line) and _CPP_TERMINATE.match(out[-1][0]):
            _continue_last(out, line)
            continue
        symbol = _JAVAC_SYMBOL.match(line)
        if symbol:  # after the error, the source line it quotes (the caret is noise)
            at = next(
                (
                    i
                    for i in (-1, -2)
                    if len(out) >= -i and out[i][0].endswith("cannot find symbol")
                ),
                None,
            )
            if at is not None:
                prev, prev_score, prev_exc = out[at]
                out[at] = (f"{prev}: {symbol.group(1)}", prev_score, prev_exc)
                continue
        if line.startswith("thread"):  # (a template's sub costs ~1 µs, matched or not)
            line = _PANIC_QUOTED.sub(r"\1\3: \2", _PANIC_THREAD_ID.sub(r"\1", line, count=1))
        if "--->" in line:  # .NET's innermost exception
            line = line[max((m.end() for m in _DOTNET_INNER.finditer(line)), default=0) :]
        cause = _NODE_CAUSE.match(line)
        if cause:
            line = line[cause.end() :]
        if line.startswith("[") and line.endswith("{"):
            line = _NODE_PROPERTIES.sub("", line)
        # kotlinc's and Lua's error: its location cut off, the message scored as a rule code's
        tool_error = _KOTLIN_ERROR.match(line) or _LUA_ERROR.match(line)
        loc = tool_error or LOCATION_PREFIX.match(line)
        if loc:
            line = line[loc.end() :]
        score = line_score(line)
        inline = _inline_exception(line) if not score else None
        if inline is not None:
            line, score = line[inline.start() :], _INLINE_EXCEPTION_SCORE
        if loc and (tool_error or _RULE_CODE.match(line) or _LEVEL_WORD_ERROR.match(line)):
            score = max(score, _RULE_CODE_SCORE)
        if loc and _GO_LOCATION.match(loc.group(0)):
            score = max(score, _GO_DIAGNOSTIC_SCORE)
        if loc and _LEVEL_WORD_WARNING.match(line):
            score = max(score, _LOCATED_WARNING_SCORE)
        if _WARNING_CLASS.match(line):
            score = min(score, _WARNING_SCORE)
        # a traceback ends in its exception's class, named Error or not ("django.core.
        # exceptions.ImproperlyConfigured: …", "StopIteration"): not in a frame's source line
        # (and a Node error's cause is one, a bare "Error: …" too)
        in_exception = traceback or cause is not None
        python_exception = in_exception and _PY_EXCEPTION_LINE.match(line) is not None
        if python_exception:  # which ends the traceback: a log line after it is not one
            score, traceback = max(score, _PY_EXCEPTION_SCORE), False
        wrapper = _WRAPPER.search(line) is not None
        if wrapper:
            score = min(score, 30) if score else 30
        named = not wrapper and _names_error(line, score)
        if error_level:  # (a wrapper logged as an error, maven's "[ERROR] Failed to execute
            # goal …", is still the least specific of the errors)
            score = max(score, _WRAPPER_LOGGED_SCORE if wrapper else 60)
        # the tail only: a line merged again and again was searched whole each time
        # (_DANGLING's words are at most 8 letters, and \b sees the letter before them)
        dangling = (
            out and _may_dangle(out[-1][0]) and _DANGLING.search(out[-1][0][-_DANGLING_TAIL:])
        )
        if dangling and score < 76 and not _KEY_MESSAGE.search(line):
            prev, prev_score, prev_exc = out[-1]
            out[-1] = (f"{prev} {line}", max(prev_score, score), prev_exc)
            continue
        exception = python_exception or _is_exception_line(line)
        out.append((line, score, exception))
        said = level if level is not None else record
        # (the message under Next.js' ⨯ is its error: "Module not found: Can't resolve …")
        levels.append(None if said == AT_ERROR and not (named or marked_file) else said)
        last_indent = _indent(body)
        absorb = _VALIDATION_LINES if exception and _VALIDATION_HEAD.search(line) else 0
        if line == _MINITEST_FAILURE:
            absorb = _MINITEST_LINES
    return _below_error_demoted(out, levels)


def names_error(line: str) -> bool:
    """Whether a log's line, as :func:`clean_line` leaves it, names an error of its own, not
    only by the level it was logged at: an exception (``giving up: psycopg.OperationalError:
    …``), an error's code or a tool's error line; not ``request failed``, Django's ``Internal
    Server Error: /api/orders/``, uvicorn's ``ERROR: Application startup failed`` (qa-s61c
    F1) or a runner's wrapper."""
    return _WRAPPER.search(line) is None and _names_error(line, line_score(line))


#: The score from which a line names its error by itself (an exception's line, an error's
#: code, ``Error: connect ECONNREFUSED …``), not only by a word such as "error" or "failed".
_NAMED_ERROR_SCORE = 84


def _names_error(line: str, score: int) -> bool:
    return (
        score >= _NAMED_ERROR_SCORE
        or _inline_exception(line) is not None
        or ("::" in line and _INLINE_RUBY_EXCEPTION.search(line) is not None)
    )


def _inline_exception(line: str) -> re.Match[str] | None:
    """:data:`_INLINE_EXCEPTION`'s match in ``line``, looked for only in a line that holds
    the ``Error:`` or ``Exception:`` every match ends with: the pattern starts with a
    lookbehind, so it was tried at each position of every line (~4 µs a log's line)."""
    if "Error:" not in line and "Exception:" not in line:
        return None
    return _INLINE_EXCEPTION.search(line)


def _below_error_demoted(
    candidates: list[tuple[str, int, bool]], levels: list[str | None]
) -> list[tuple[str, int, bool]]:
    """``candidates`` with the lines a log wrote below an error's level (WARNING, INFO)
    scored under its best line written at an error's level that names an error: a retry's
    warning before the crash (``WARNING http: retrying after error: ConnectionError: timed
    out``, then ``ERROR db: giving up: OperationalError: …``) is not what failed. Lines with
    no level keep their score (a traceback under the ERROR line that announced it), and so
    does every line of a log whose lines at an error's level name none of their own (a
    runner's wrapper; sbt's ``[error] Failed tests:`` under the failure ScalaTest reported at
    ``[info]``, qa-s61 F1; ``ERROR api: request failed`` under the warning that says why)."""
    at_error = [c[1] for c, level in zip(candidates, levels, strict=True) if level == AT_ERROR]
    if not at_error:
        return candidates
    below = max(at_error) - 1
    return [
        (line, min(score, below), exception) if level in BELOW_ERROR else (line, score, exception)
        for (line, score, exception), level in zip(candidates, levels, strict=True)
    ]


def _tidy(line: str) -> str:
    text = one_line(line).removeprefix(f"{_DOTNET_ERROR_MESSAGE} ")
    if _RAILS_EXCEPTION.match(text):
        text = text[:-1]
    return _ELLIPSIS_TAIL.sub("", text) if text.endswith((",", "...", "…", ";")) else text


def _ranked(candidates: list[tuple[str, int, bool]]) -> list[str]:
    """The best-scoring lines, most specific first (see :func:`extract_error_signature`)."""
    best_score = max(score for _, score, _ in candidates)
    if best_score == 0:
        return [one_line(candidates[0][0])]
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


_EXIT_CODE_SUFFIX = lazy(r"\s*\(exit code -?\d+\)$")


def without_exit_code_suffix(signature: str) -> str:
    """``signature`` without the ``(exit code N)`` that :func:`extract_error_signature`
    appends from another line of the log (a CI runner's or the go command's closing line):
    the same error run locally and in CI is one error. Beside a line that names no error
    (``deploy.sh staging (exit code 3)``) the code is all there is to tell, and stays."""
    m = _EXIT_CODE_SUFFIX.search(signature)
    if m is None or m.start() == 0 or _EXIT_CODE.search(signature, 0, m.start()):
        return signature  # nothing else, or the line's own exit code: not appended
    head = signature[: m.start()]
    if not line_score(head) and not head.startswith("assert "):  # (pytest's failed assert)
        return signature
    return head


def extract_error_signature(raw: str) -> str:
    """The most specific error line of a raw error text or log, one line, ≤ 300 chars.

    Stack frames, rustc ``-->`` arrows and gutters, ANSI colours, timestamps and log-level
    prefixes are dropped; ``file:line:col:`` location prefixes are removed from the kept line.
    Exception lines (Python, Node, Java…) pick the *last* one — the final line of a traceback,
    the root ``Caused by``, .NET's innermost ``--->`` exception — other error lines the *first*
    one; a line that visibly wraps (ends in ``,`` or ``of``) takes its continuation. When an
    exit code appears elsewhere (``Error: Process completed with exit code 1.``) it is appended
    as ``(exit code N)``. A line longer than 300 chars has its absolute paths shortened to their
    last part (``…/OrderController.class``) before it is cut, so that as much of the message is
    kept from a checkout of any depth. Input without any error-looking line comes back cleaned:
    its first meaningful line.
    """
    return _remembered_signature(raw or "")


def _signature(raw: str) -> str:
    """:func:`extract_error_signature`, worked out."""
    sigs = signatures_of(raw, limit=1)
    return sigs[0] if sigs else ""


#: A recall, a write and the hooks ask for the signature of one error text several times
#: (the query's, each fingerprint's of it, the prompt hook's look at each line): a function
#: of its text alone, remembered for the last texts asked (kenning.remembered).
_remembered_signature = remembered(_signature)


def signatures_of(raw: str, limit: int) -> list[str]:
    """The ``limit`` best signatures of ``raw`` (:func:`extract_error_signature`). Of a huge
    log, the part :func:`~kenning.log_window.log_window` reads."""
    if not raw or not raw.strip():
        return []
    raw = read_of_log(raw)
    raw = without_run_log_prefixes(raw)  # (gh's job and step before each line of a CI log)
    raw = as_printed(raw)  # (a test runner's JSON report: the failures it stands for)
    if raw.lstrip().startswith("{"):  # an error event or a log of JSON lines: its error
        raw = _json_error(raw) or raw
    candidates = _candidate_lines(raw)
    if not candidates:
        flat = one_line(ANSI.sub("", raw))
        return [_within_limit(flat)] if flat else []
    cause = _gradle_cause(raw) if "What went wrong:" in raw else None
    if cause is not None:  # the cause gradle nests under the tasks and workers that failed
        # (scored as any line is: "Compilation error. See log" is a wrapper, and the
        # compiler's own line above it the error)
        score = 30 if _WRAPPER.search(cause) else max(line_score(cause), _GRADLE_CAUSE_SCORE)
        candidates = [(cause, score, False), *candidates]
    ranked = [_refined(sig, raw) for sig in _ranked(candidates)[:limit]]
    return [_within_limit(_exit_code_suffix(candidates, sig)) for sig in ranked]


def _refined(signature: str, raw: str) -> str:
    """The chosen line with what a tool prints about it elsewhere in ``raw`` (each refiner
    leaves a line that is not its tool's as it is)."""
    for refine in (
        _with_detail,
        _with_node_assert_values,
        _with_rust_assert_values,
        _with_test_message,
        _with_vitest_test,
        _with_jest_test,
        _with_npm_conflict,
        _with_prisma_message,
        _with_exit_reason,
        _with_terraform_detail,
        _with_bun_expectation,
        _with_failure_analysis,
        _with_ansible_result,
        _with_pnpm_peer,
        _with_flutter_exception,
        _with_aggregated_error,
    ):
        signature = refine(signature, raw)
    return signature


#: The folders of an absolute path (POSIX, ``~/``, Windows) before its last part: the part a
#: checkout's depth, a user's name or a CI runner's workspace makes longer or shorter.
_PATH_FOLDERS = lazy(
    r"(?<![\w.<>/\\…])(?:~?/(?:[\w.@+-]+/)+|[A-Za-z]:\\(?:[^\s:\"'`<>|\\]+\\)+)(?=[\w.@+-])"
)


def _within_limit(signature: str) -> str:
    """``signature`` cut to :data:`SIGNATURE_MAX_CHARS` at a word boundary. A longer one's
    absolute paths are shortened to their last part first (``…/OrderController.class``):
    cut as they were, the same error from a deeper checkout kept less of its message and
    had another fingerprint (paths are masked after the cut)."""
    if len(signature) <= SIGNATURE_MAX_CHARS:
        return signature
    shorter = _PATH_FOLDERS.sub(lambda m: "…\\" if m.group(0)[1:2] == ":" else "…/", signature)
    return cut_at_word_boundary(shorter, SIGNATURE_MAX_CHARS)


_PYTEST_DETAIL = lazy(r"^E\s{2,}(\S.*)$")
#: npm's dependency conflict: its code line names every conflict (``npm ERR! code
#: ERESOLVE``), the peer it could not resolve under "Could not resolve dependency:" which
#: one (``npm ERR! peer react@"^17.0.0" from react-beautiful-dnd@13.1.1``).
_NPM_ERESOLVE = lazy(r"^npm\s+(?:ERR!|error)\s+code\s+ERESOLVE$", re.IGNORECASE)
_NPM_PEER = lazy(r"^npm\s+(?:ERR!|error)\s+(peer\s+\S+\s+from\s+\S+)\s*$", re.IGNORECASE)


#: How much of a JSON input is parsed, line by line (a log of JSON lines), for its error.
_JSON_MAX_CHARS = 1_000_000


#: A client's line about the HTTP response it printed: curl's ``curl: (22) The requested URL
#: returned error: 401``, gh's ``gh: Bad credentials (HTTP 401)``, wget's ``ERROR 401:
#: Unauthorized.``, a status line of ``curl -i``.
_CLIENT_STATUS = lazy(
    r"^\s*(?:curl:\s\(\d+\)|gh:\s.*\(HTTP\s\d{3}\)\s*$|ERROR\s\d{3}:\s|HTTP/[\d.]+\s\d{3}\b)"
)


def _plain_error_beside_json(text: str) -> bool:
    """Whether a line of ``text`` that is no JSON reports an error of its own (a crash's
    traceback), not a client's line about the response the JSON is (curl's, gh's)."""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("{", "}", "[", "]", '"')):
            continue
        if _CLIENT_STATUS.match(stripped) is None and _looks_like_error_found(stripped):
            return True
    return False


def _json_error(raw: str) -> str | None:
    """The error a JSON error event or JSON log line reports, as a line: Sentry's last
    exception (``ValueError: invalid literal …``), pino's ``err`` (``Error: connect
    ECONNREFUSED …``), zap's and logrus's ``error`` (else their message) — of the first line
    at an error level, else the first one that has one. Its timestamps, pids, hosts and
    frames are no part of it. None when the text is no JSON, has a line that is none, or
    names no error."""
    text = raw.strip()[:_JSON_MAX_CHARS]
    try:
        events = [json.loads(text)]
    except (ValueError, RecursionError):  # (nesting deeper than the parser goes)
        events, plain = [], False
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                events.append(json.loads(line))
            except (ValueError, RecursionError):
                plain = True
        # a JSON log's lines (each with its level) and a plain one (an uncaught exception's
        # traceback on stderr): read line by line, its JSON lines too (qa-s63c P5); an API's
        # error body and curl's line after it is the body's error (qa-s63d Q3), but not one
        # status line printed as JSON before a plain crash (qa-s63e R1)
        if plain and (
            len(events) > 1
            or any(json_level(e) is not None for e in events)
            or _plain_error_beside_json(text)
        ):
            return None  # (a log of JSON lines, leveled or not, and a plain crash: R1)
    found = [(json_level(e) == AT_ERROR, said) for e in events if (said := json_said(e))]
    if not found:
        return None
    return next((said for error, said in found if error), found[0][1])


#: gradle's report: ``* What went wrong:``, then the failure and each cause under it a level
#: deeper (``> …``, ``   > …``), a message wrapped over lines, until ``* Try:``.
_GRADLE_WENT_WRONG = lazy(r"^\*\s+What\s+went\s+wrong:\s*$")
_GRADLE_NESTED = lazy(r"^([ \t]*)>[ \t]?(\S.*)$")
_GRADLE_CAUSE_SCORE = 58


def _gradle_cause(raw: str) -> str | None:
    """The innermost cause of gradle's ``What went wrong:`` (its lines joined), the line a
    human reads: the lines above it name the task and the worker that failed (``Execution
    failed for task …``, ``A failure occurred while executing …``), every failure's. None
    when nothing is nested."""
    lines = ANSI.sub("", raw).splitlines()
    start = next((i for i, line in enumerate(lines) if _GRADLE_WENT_WRONG.match(line)), None)
    if start is None:
        return None
    messages: list[tuple[int, str]] = []  # (depth, text); the failure itself at -1
    for line in lines[start + 1 :]:
        if line.startswith("* ") or line.startswith("BUILD FAILED"):
            break
        if not line.strip():
            continue
        nested = _GRADLE_NESTED.match(line)
        if nested is not None:
            messages.append((len(nested.group(1).expandtabs()), nested.group(2).strip()))
        elif messages and not messages[-1][1].endswith((".", ":")):
            # a message wrapped onto the next line (after a full one, "Required by:" and
            # the like are notes under it)
            depth, text = messages[-1]
            messages[-1] = (depth, f"{text} {line.strip()}")
        elif messages:
            continue
        else:
            messages.append((-1, line.strip()))
    nested_messages = [m for m in messages if m[0] >= 0]
    if not nested_messages:
        return None
    deepest = max(depth for depth, _ in nested_messages)
    return [text for depth, text in nested_messages if depth == deepest][-1]


def _cleaned_lines(raw: str) -> list[str]:
    """The lines of a raw log as :func:`clean_line` leaves them (no colours, times, levels or
    CI prefixes): what a refiner looks through for the lines a tool prints about its error."""
    return [clean_line(line)[0] for line in ANSI.sub("", raw).splitlines()]


def _unstamped_lines(raw: str) -> Iterator[str]:
    """The lines of a raw log without its colours and the time a logger or CI runner put
    before each (GitHub Actions' raw log)."""
    for line in ANSI.sub("", raw).splitlines():
        yield TIMESTAMP.sub("", line, count=1)


_TERRAFORM_BOX_ERROR = lazy(r"^│\s*Error:\s+(\S.*)$")
#: What terraform's box holds between its summary and its detail: where (``on main.tf line 8,
#: in resource …:``, ``with aws_s3_bucket.assets,``) and the code there (``  8:   x = …``).
_TERRAFORM_WHERE = lazy(r"^(?:on\s+\S+\s+line\s+\d+|with\s+\S+,?$|\d+:\s|\(and\s+\d+\s+more)")


def _with_terraform_detail(signature: str, raw: str) -> str:
    """Terraform's diagnostic by its summary and the first sentence of its detail
    (``Error: Reference to undeclared input variable: An input variable with the name
    "vpc_cidr" has not been declared``): the summary alone (``Unsupported argument``) was
    every such mistake's, whichever variable or argument it named."""
    if not signature.startswith("Error: ") or "│" not in raw:
        return signature
    lines = list(_unstamped_lines(raw))
    summary = signature.removeprefix("Error: ").strip()
    for i, line in enumerate(lines):
        box = _TERRAFORM_BOX_ERROR.match(line.strip())
        if box is None or " ".join(box.group(1).split()) != summary:
            continue
        for detail in lines[i + 1 :]:
            text = detail.strip()
            if not text.startswith("│"):
                return signature  # the box closed: no detail
            text = text.removeprefix("│").strip()
            if not text or _TERRAFORM_WHERE.match(text):
                continue
            first = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0].rstrip(".")
            return f"{signature}: {first}"
        return signature
    return signature


#: Node 20's error of a connection it tried to every address of a name (``localhost``: ::1,
#: then 127.0.0.1): ``AggregateError [ECONNREFUSED]:`` with no message, the errors under its
#: ``[errors]: [``, each the one Node 18 printed alone (``Error: connect ECONNREFUSED
#: ::1:5432``).
_AGGREGATE_ALONE = lazy(
    r"(?<!\S)(?:AggregateError(?:\s\[[A-Z][A-Z0-9_]*\])?|AxiosError\s\[AggregateError\]):?$"
)
#: (axios 1.6 prints its list without brackets: ``errors: [``)
_AGGREGATED_ERRORS = lazy(r"(?:\[errors\]|\berrors):\s\[$")
#: (behind what a tool prints before each line: ``api-1  | ``, ``[client] ``, ``app:dev: ``)
_AGGREGATED_ERROR = lazy(r"(?<!\S)(?:[A-Z]\w*)?Error:\s+\S.*$")


def _with_aggregated_error(signature: str, raw: str) -> str:
    """Node's ``AggregateError`` with no message of its own: the first error it aggregates
    (the PostgreSQL and the redis connection refused were one error, ``aggregateerror
    [econnrefused]:``, qa-s60c M1)."""
    if not _AGGREGATE_ALONE.search(signature):
        return signature
    lines = [line for line in _cleaned_lines(raw) if line]
    listed = next((i for i, line in enumerate(lines) if _AGGREGATED_ERRORS.search(line)), None)
    if listed is None or listed + 1 >= len(lines):
        return signature
    # the list's first line, and nothing further on (another error of the paste)
    inner = _AGGREGATED_ERROR.search(lines[listed + 1])
    return inner.group(0) if inner is not None else signature


_ELIXIR_EXITED = lazy(r"^\*\*\s+\(exit\)\s+exited\s+in:\s")
_ELIXIR_REASON = lazy(r"^\s*\*\*\s+\(EXIT\)\s+(\S.*)$")


def _with_exit_reason(signature: str, raw: str) -> str:
    """Elixir's ``** (exit) exited in: GenServer.call(…)`` with the reason on the line under
    it (``** (EXIT) time out``, ``** (EXIT) no process: …``): the call is where, the reason
    is the error (a time-out's fix is not a missing process's)."""
    if not _ELIXIR_EXITED.match(signature):
        return signature
    for line in _unstamped_lines(raw):
        reason = _ELIXIR_REASON.match(line)
        if reason is not None:
            return f"{signature} ** (EXIT) {reason.group(1).strip()}"
    return signature


_PRISMA_INVOCATION = lazy(
    r"^((?:[A-Za-z_][\w$]*\.)*Prisma\w*Error):?\s+Invalid\s+`[\w$.]+\(\)`\s+invocation\b"
)
#: What Prisma prints between its invocation line and its message: where the call is, and
#: the code around it (``   6 export …``, ``→  9   return prisma.order.create(``).
_PRISMA_FRAME = lazy(r"^\s*(?:(?:→\s*)?\d+(?:\s|$)|→|\S+:\d+:\d+$|invocation\b)")
_PRISMA_CODE = lazy(r"^\s*code:\s*['\"](P\d{4})['\"]")


def _with_prisma_message(signature: str, raw: str) -> str:
    """Prisma's error by its message and code (``PrismaClientKnownRequestError P2003: Foreign
    key constraint failed on the field: …``), not by the ``Invalid `prisma.order.create()`
    invocation in <path>`` every client error starts with: that line was every Prisma error's
    fingerprint, so one fix was the exact match of them all."""
    head = _PRISMA_INVOCATION.match(signature)
    if head is None:
        return signature
    lines = list(_unstamped_lines(raw))
    start = next((i for i, line in enumerate(lines) if "invocation" in line), None)
    if start is None:
        return signature
    message = next(
        (
            line.strip()
            for line in lines[start + 1 :]
            if line.strip()
            and not _PRISMA_FRAME.match(line)
            and not line.lstrip().startswith("at ")
        ),
        None,
    )
    if message is None or message.startswith(("code:", "}")):
        return signature
    code = next((m.group(1) for line in lines if (m := _PRISMA_CODE.match(line))), None)
    return f"{head.group(1)}{f' {code}' if code else ''}: {message}"


def _with_npm_conflict(signature: str, raw: str) -> str:
    """npm's ``code ERESOLVE`` with the peer dependency it could not resolve: every
    conflict's fix was the exact match of every other's."""
    if not _NPM_ERESOLVE.match(signature):
        return signature
    for line in _unstamped_lines(raw):
        peer = _NPM_PEER.match(line.strip())
        if peer is not None:
            return f"{signature}: {peer.group(1)}"
    return signature


def _with_detail(signature: str, raw: str) -> str:
    """A bare exception class (pytest's ``file.py:4: AssertionError``) takes its first
    ``E   …`` detail line: ``AssertionError: assert 2 == 3`` (and ``KeyError: 'id'`` for
    ``E   KeyError: 'id'``, the class said once)."""
    if not _BARE_EXCEPTION.match(signature):
        return signature
    detail = next(
        (found for line in _unstamped_lines(raw) if (found := _PYTEST_DETAIL.match(line))),
        None,
    )
    if detail is None:
        return signature
    text = one_line(detail.group(1))
    named = text.partition(":")[0]
    if named == signature or named.endswith(f".{signature}"):
        # the detail is the exception line itself (``E   KeyError: 'id'``): said once
        return text
    return f"{signature}: {text}"


#: go test names a failed test (``--- FAIL: TestAdd (0.00s)``, a subtest's indented) and
#: prints what it logged indented under that line, or, run with ``-v``, above it, after the
#: line naming the test (:func:`go_test_as_printed_plain`): ``add_test.go:9: Add(1, 2) = 4;
#: want 3``. testify logs the
#: location alone and the failure under it, after ``Error:``.
_GO_TEST_FAILED = lazy(r"^([ \t]*)--- FAIL: (\S+)")
_GO_TEST_LOG = lazy(r"^[ \t]+[\w.-]+_test\.go:\d+:[ \t]*(.*)$")
_TESTIFY_ERROR = lazy(r"^[ \t]+Error:[ \t]+(\S.*)$")
_TESTIFY_LINES = 4
#: jest names a failed test (``● cart › adds an item``) and says what failed after a blank line.
_JEST_TEST_FAILED = lazy(r"^●\s+\S")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _go_test_log(lines: Sequence[str], at: int) -> str:
    """The message of the go test log line ``lines[at]``, or testify's failure under it."""
    log = _GO_TEST_LOG.match(lines[at])
    message = log.group(1).strip() if log else ""
    if message or log is None:
        return message
    for line in lines[at + 1 : at + 1 + _TESTIFY_LINES]:
        failure = _TESTIFY_ERROR.match(line)
        if failure:
            return failure.group(1).strip()
    return ""


#: go test -v's line that names the test whose output follows it: ``=== RUN   TestX``, ``===
#: PAUSE``, ``=== CONT`` (a parallel test going on after another's lines) and Go 1.20's ``===
#: NAME``; and the line of a test's result, ``--- FAIL: TestX (0.00s)`` (a subtest's indented).
_GO_TEST_SPEAKER = lazy(r"^=== (?:RUN|PAUSE|CONT|NAME)\s+(\S+)\s*$")
_GO_TEST_RESULT = lazy(r"^([ \t]*)--- (?:FAIL|PASS|SKIP): (\S+)")


def go_test_as_printed_plain(lines: Sequence[str]) -> Sequence[str]:
    """go test's ``-v`` output (``-json``'s as printed) as go test prints the run without
    ``-v``: what each test logged (its indented lines after the ``=== RUN``, ``=== CONT`` or
    ``=== NAME`` line that names it) under its ``--- FAIL: TestX (0.00s)`` line, a subtest's
    a level deeper, and the ``===`` lines left out. Parallel tests (``t.Parallel()``) print
    their lines between other tests' (``=== PAUSE``, then ``=== CONT`` as each goes on), so a
    test's lines are not those above its heading. A test's lines are put under its next
    heading (a package of a ``./...`` run names its tests again); those of a test with no
    heading after them (a panic ended the run) and every other line stay where they are.
    ``lines`` itself when it holds no ``===`` line of go's."""
    speakers = [
        (i, m.group(1))
        for i, line in enumerate(lines)
        if line[:4] == "=== " and (m := _GO_TEST_SPEAKER.match(line)) is not None
    ]
    if not speakers:
        return lines
    said: dict[str, list[int]] = {}  # (each test's lines not yet under a heading)
    under: dict[int, list[int]] = {}  # (a heading's line: the lines put under it)
    moved: set[int] = set()
    dropped = {i for i, _ in speakers}
    speaker: str | None = None
    for i, line in enumerate(lines):
        if i in dropped:
            speaker = _GO_TEST_SPEAKER.match(line).group(1)  # type: ignore[union-attr]
            continue
        result = _GO_TEST_RESULT.match(line) if "--- " in line else None
        if result is not None:
            speaker = None  # (the lines indented under it are its own, printed so)
            own = said.pop(result.group(2), [])
            under[i] = own
            moved.update(own)
        elif speaker is not None and line[:1] in (" ", "\t") and line.strip():
            said.setdefault(speaker, []).append(i)
    printed: list[str] = []
    for i, line in enumerate(lines):
        if i in dropped or i in moved:
            continue
        printed.append(line)
        if i in under:
            depth = line[: len(line) - len(line.lstrip())]
            printed.extend(depth + lines[j] for j in under[i])
    return printed


def _go_test_message(name: str, printed: list[str]) -> str:
    lines = go_test_as_printed_plain(printed)
    for i, line in enumerate(lines):
        header = _GO_TEST_FAILED.match(line)
        if header is None or header.group(2) != name:
            continue
        depth = len(header.group(1))
        for j in range(i + 1, len(lines)):  # logged under the header
            if lines[j].strip() and _indent(lines[j]) <= depth:
                break
            if _GO_TEST_LOG.match(lines[j]):
                return _go_test_log(lines, j)
        return ""
    return ""


#: jest's matcher line (``expect(received).toBe(expected)``) and the values it prints under it
#: (``Expected: 200`` / ``Received: 401``): the failure, as a failed assert's values are.
_JEST_MATCHER = lazy(r"^expect\(")
_JEST_VALUE = lazy(r"^(?:Expected|Received)(?:\s+[\w ]{1,40})?:\s+\S")
_JEST_VALUE_LINES = 6


def _jest_message(signature: str, lines: list[str]) -> str:
    for i, line in enumerate(lines):
        if line.strip() != signature:
            continue
        for j, after in enumerate(lines[i + 1 :], i + 1):
            text, _ = clean_line(after)
            if not text:
                continue
            if _NOISE_LINE.match(text):
                return ""
            if _JEST_MATCHER.match(text):
                values = [
                    value
                    for near in lines[j + 1 : j + 1 + _JEST_VALUE_LINES]
                    if _JEST_VALUE.match(value := clean_line(near)[0])
                ]
                return " ".join([text, *values])
            return text
        return ""
    return ""


_FLUTTER_CAUGHT = lazy(r"EXCEPTION\s+CAUGHT\s+BY\s+[A-Z ]+\b")
_FLUTTER_THROWN = lazy(r"^The\s+following\s+[\w ]{1,80}?\s+was\s+thrown\b.*:$")


def _with_flutter_exception(signature: str, raw: str) -> str:
    """Flutter's framework exception by what it says was thrown (``A RenderFlex overflowed by
    42 pixels on the right.``), the line under ``The following assertion was thrown during
    layout:``, not the lines of its box around it (``The relevant error-causing widget
    was:``, every such exception's)."""
    if _FLUTTER_CAUGHT.search(raw) is None:
        return signature
    lines = _cleaned_lines(raw)
    for i, line in enumerate(lines):
        if _FLUTTER_THROWN.match(line):
            thrown = next((x for x in lines[i + 1 :] if x), None)
            return thrown or signature
    return signature


_PNPM_PEER_ISSUES = lazy(r"^ERR_PNPM_PEER_DEP_ISSUES\b")
_PNPM_PEER_HEADLINE = lazy(r"^ERR_PNPM_PEER_DEP_ISSUES\s+Unmet\s+peer\s+dependencies")
#: pnpm's tree of a peer it could not satisfy: the package that needs it (``└─┬
#: @vitejs/plugin-react 4.3.1``), then ``✕ unmet peer vite@"^4.2.0": found 6.0.1``.
_PNPM_PEER = lazy(
    r"[└├]─┬\s+(?P<pkg>@?[\w.-]{1,100}(?:/[\w.-]{1,100})?)\s[^✕]{0,300}?✕\s+(?P<kind>unmet|missing)"
    r"\s+peer\s+(?P<peer>@?[\w.-]{1,100}(?:/[\w.-]{1,100})?)@"
)


def _with_pnpm_peer(signature: str, raw: str) -> str:
    """pnpm's ``ERR_PNPM_PEER_DEP_ISSUES Unmet peer dependencies`` with the package that needs
    a peer and that peer (``'@vitejs/plugin-react' unmet peer 'vite'``), as npm's ERESOLVE
    takes its peer: the headline was every conflict's, and one's fix came back at 0.98 for
    another's."""
    if not _PNPM_PEER_ISSUES.match(signature):
        return signature
    found = _PNPM_PEER.search(ANSI.sub("", raw))
    if found is None:
        return signature
    said = _PNPM_PEER_HEADLINE.match(signature)
    headline = said.group(0) if said else re.split(r"\s+[└├]", signature, maxsplit=1)[0]
    return f"{headline}: '{found.group('pkg')}' {found.group('kind')} peer '{found.group('peer')}'"


_ANSIBLE_FAILED = lazy(
    r"^((?:fatal|failed):\s+\[[^\]\n]{1,300}\](?:\s+\(item=[^)\n]{0,300}\))?:?\s+FAILED!\s+=>\s+)\{"
)


def _with_ansible_result(signature: str, raw: str) -> str:
    """An Ansible task's failure by its result's message and the last line its command wrote
    to stderr (``fatal: [web1]: FAILED! => {"msg": "non-zero return code", "stderr": "…
    OperationalError: could not connect …"}``): the result's other keys (``changed``, ``cmd``,
    ``delta``, ``start``, ``end``) filled the signature's 300 characters before them, so two
    failures of one task had one fingerprint."""
    head = _ANSIBLE_FAILED.match(signature)
    if head is None:
        return signature
    for line in _unstamped_lines(raw):
        found = _ANSIBLE_FAILED.match(line.strip())
        if found is None:
            continue
        try:
            result = json.loads(line.strip()[found.end() - 1 :])
        except (ValueError, RecursionError):
            return signature
        if not isinstance(result, dict):
            return signature
        said: dict[str, str] = {}
        if isinstance(result.get("msg"), str):
            said["msg"] = result["msg"]
        lines = result.get("stderr_lines")
        if not isinstance(lines, list):
            stderr = result.get("stderr")
            lines = stderr.splitlines() if isinstance(stderr, str) else []
        last = next((x.strip() for x in reversed(lines) if isinstance(x, str) and x.strip()), "")
        if last:
            said["stderr"] = last
        return f"{found.group(1)}{json.dumps(said)}" if said else signature
    return signature


def _with_failure_analysis(signature: str, raw: str) -> str:
    """Spring Boot's failure analysis, when it printed one (``APPLICATION FAILED TO START`` and
    its ``Description:``): the description is the error (``Web server failed to start. Port
    8080 was already in use.``), whatever line of the log above it scored as high (the WARN
    line of the context's refresh, every failure's)."""
    if "APPLICATION FAILED TO START" not in raw:
        return signature
    lines = _cleaned_lines(raw)
    start = next((i for i, line in enumerate(lines) if line == "Description:"), None)
    if start is None:
        return signature
    said: list[str] = []
    for line in lines[start + 1 :]:
        if not line:
            if said:
                break
            continue
        if line == "Action:":
            break
        said.append(line)
    return one_line(" ".join(said)) or signature


_BUN_EXPECTATION = lazy(r"^(?:error:\s+)?(expect\(received\)\.\w+\(expected\))$")
#: bun's line under a failed test's error, after its values: ``✗ auth > login returns 200
#: [3.12ms]`` (its time left out).
_BUN_TEST_FAILED = lazy(r"^[✗×]\s+(\S.*?)(?:\s+\[[\d.]+m?s\])?$")


def _with_bun_expectation(signature: str, raw: str) -> str:
    """``bun test``'s failed expectation with its test and values (``✗ auth > login returns
    200: expect(received).toBe(expected) Expected: 200 Received: 401``), as jest's: the
    matcher alone was every failure's."""
    matcher = _BUN_EXPECTATION.match(signature)
    if matcher is None:
        return signature
    lines = _cleaned_lines(raw)
    start = next((i for i, line in enumerate(lines) if _BUN_EXPECTATION.match(line)), None)
    if start is None:
        return signature
    values: list[str] = []
    test = None
    for line in lines[start + 1 : start + 1 + 3 * _JEST_VALUE_LINES]:
        if _JEST_VALUE.match(line):
            values.append(line)
        elif (failed := _BUN_TEST_FAILED.match(line)) is not None:
            test = failed.group(1)
            break
    said = " ".join([matcher.group(1), *values])
    return f"✗ {test}: {said}" if test else said


#: vitest names a failed test ``FAIL  src/auth.test.js > login returns 200`` (its project's
#: name between bars before the file, ``|unit|``) and prints what it threw on the next line
#: (chai's ``AssertionError: expected 401 to be 200 // Object.is equality``, a TypeError).
_VITEST_TEST_FAILED = lazy(r"^FAIL\s+((?:\|[^|\n]{1,100}\|\s+)?\S+\s+>\s+\S.*)$")
_VITEST_IN_RAW = lazy(r"\bFAIL\s+(?:\|[^|\n]{1,100}\|\s+)?\S+\s+>\s")


def _with_vitest_test(signature: str, raw: str) -> str:
    """What a vitest test threw with the test (``FAIL src/auth.test.js > login returns 200:
    AssertionError: expected 401 to be 200 // Object.is equality``), as jest's failure is
    known by its test (``● cart › adds an item: …``): what it threw alone was every test's
    that threw it. Of two tests that threw it, the last (the signature's line)."""
    if "FAIL" not in raw:  # (most texts: no pass over a long log's colours)
        return signature
    text = ANSI.sub("", raw)
    if _VITEST_IN_RAW.search(text) is None:
        return signature
    lines = [line.strip() for line in text.splitlines()]
    named = None
    for i, line in enumerate(lines):
        heading = _VITEST_TEST_FAILED.match(clean_line(line)[0]) if "FAIL" in line else None
        if heading is None:
            continue
        thrown = next((x for x in lines[i + 1 : i + 4] if x), "")
        if thrown and _tidy(clean_line(thrown)[0]) == signature:
            named = heading
    return f"FAIL {one_line(named.group(1))}: {signature}" if named else signature


#: jest's heading of a failed test (``  ● cart › parses an empty cart``), not of a suite that
#: failed to run (its error is the suite's) nor of the console output it shows.
_JEST_TEST_HEADING = lazy(r"^●\s+(?!Test\s+suite\s+failed\s+to\s+run\b|Console$)(\S.*)$")


def _with_jest_test(signature: str, raw: str) -> str:
    """What a jest test threw, no ``expect`` failure (a TypeError of the code), with the test
    (``● cart › parses an empty cart: TypeError: …``), as an ``expect`` failure is known by
    its heading (:func:`_with_test_message`): what it threw alone was every test's that
    threw it. jest prints it as the first line under the heading, after a blank line. Of two
    tests that threw it, the last (as :func:`_with_vitest_test`)."""
    if "●" not in raw or signature.startswith("●"):
        return signature
    lines = [clean_line(line.strip())[0] for line in ANSI.sub("", raw).splitlines()]
    named = None
    for i, line in enumerate(lines):
        heading = _JEST_TEST_HEADING.match(line) if line.startswith("●") else None
        if heading is None:
            continue
        thrown = next((x for x in lines[i + 1 : i + 3] if x), "")
        if thrown and _tidy(thrown) == signature:
            named = heading
    return f"● {one_line(named.group(1))}: {signature}" if named else signature


#: node:assert's message that says its values on the lines under it (``AssertionError
#: [ERR_ASSERTION]: Expected values to be strictly equal:`` over ``6 !== 5``, deepStrictEqual's
#: diff, ``The expression evaluated to a falsy value:`` over the expression), as node and mocha
#: print it; what ends those lines: a stack frame, mocha's own diff (``+ expected - actual``),
#: its next failure's heading (``2) cart``), node's properties of the error (``}``).
_NODE_ASSERT_SAYS_BELOW = lazy(r"^AssertionError\s\[ERR_ASSERTION\]:\s\S.*:$")
_NODE_ASSERT_VALUES_END = lazy(r"^(?:at\s|\+\s+expected\s+-\s+actual$|\d+\)\s|Node\.js\sv\d)")
_NODE_ASSERT_VALUE_LINES = 12


def _with_node_assert_values(signature: str, raw: str) -> str:
    """node:assert's failure with the values its message says under its first line
    (``AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: 6 !== 5``): the
    first line alone was every strictEqual failure's, so another test's fix was its exact
    match (qa77 F2), where pytest's, jest's and chai's failures are known by their values."""
    if not signature.endswith(":") or _NODE_ASSERT_SAYS_BELOW.match(signature) is None:
        return signature
    lines = ANSI.sub("", raw).splitlines()
    start = next((i for i, x in enumerate(lines) if clean_line(x)[0].strip() == signature), None)
    if start is None:
        return signature
    values: list[str] = []
    # (as printed: a diff's "+" and "-" are its, no list's markers)
    for line in (x.strip() for x in lines[start + 1 : start + 1 + 2 * _NODE_ASSERT_VALUE_LINES]):
        if _NODE_ASSERT_VALUES_END.match(line) or len(values) >= _NODE_ASSERT_VALUE_LINES:
            break
        if line:
            values.append(" ".join(line.split()))
    return " ".join([signature, *values])


#: Rust's assert_eq!/assert_ne! panic (Rust >= 1.73) after its header's join: ``thread 'x'
#: panicked at src/lib.rs:20:9: assertion `left == right` failed``, a custom message after
#: ``failed: ``; its values are on the two lines under it (``  left: 401``, `` right: 200``).
_RUST_ASSERT = lazy(
    r"^(thread\s'[^'\n]{0,300}'\spanicked\sat\s\S{1,300}:)\s"
    r"(assertion\s`left\s[=!]=\sright`\sfailed(?::\s.{0,300})?)$"
)
#: Older Rust's (1.22-1.72), its message quoted on the header's line, its values on the lines
#: under it, the custom message and the location after them (``thread 'x' panicked at
#: 'assertion failed: `(left == right)``` / ``  left: `401`,`` / `` right: `200`: msg',
#: src/lib.rs:20:9``): the first line alone.
_RUST_OLD_ASSERT_OPEN = lazy(
    r"^thread\s'[^'\n]{0,300}'\spanicked\sat\s'assertion\sfailed:\s`\(left\s[=!]=\sright\)`$"
)
#: ... and read whole (as :data:`_PANIC_QUOTED` rewrote it; Rust < 1.22's ``(left: `1`,
#: right: `2`)`` too), to be said as Rust >= 1.73 says it.
_RUST_OLD_ASSERT = lazy(
    r"^(thread\s'[^'\n]{0,300}'\spanicked\sat\s\S{1,300}:)\sassertion\sfailed:\s"
    r"`\((left\s[=!]=\sright)\)`\s\(?left:\s`(.{0,300}?)`,\sright:\s`(.{0,300}?)`\)?"
    r"(?::\s(.{0,300}))?$"
)
_RUST_ASSERT_VALUE = lazy(r"^(left|right):\s")


def _with_rust_assert_values(signature: str, raw: str) -> str:
    """Rust's assert_eq!/assert_ne! panic with the values it prints under its message
    (``… assertion `left == right` failed left: 401 right: 200``), older Rust's said so too:
    the message alone was every assert_eq!'s, so another test's fix was found as if it were
    the same error, where pytest's, unittest's and node:assert's failures are known by their
    values."""
    if not signature.startswith("thread") or "assertion" not in signature:
        return signature
    new = _RUST_ASSERT.match(signature)
    if new is None:
        if _RUST_OLD_ASSERT_OPEN.match(signature):
            signature = _PANIC_QUOTED.sub(
                r"\1\3: \2", " ".join([signature, *_rust_values_under(signature, raw, False)])
            )
        old = _RUST_OLD_ASSERT.match(signature)
        if old is None:
            return signature
        head, op, left, right, message = old.groups()
        said = f": {message}" if message else ""
        return f"{head} assertion `{op}` failed{said} left: {left} right: {right}"
    values = _rust_values_under(f"{new.group(1)}\n{new.group(2)}", raw, True)
    return " ".join([signature, *values]) if len(values) == 2 else signature


def _rust_values_under(said: str, raw: str, strip_id: bool) -> list[str]:
    """The ``left:`` and ``right:`` lines under the lines ``said`` (its header and message, as
    printed; a header with the thread's id read without it) in ``raw``, each stripped (two,
    or what is there)."""
    want = said.split("\n")
    lines = [clean_line(x)[0].strip() for x in ANSI.sub("", raw).splitlines()]
    n = len(want)
    for i in range(len(lines) - n + 1):
        first = _PANIC_THREAD_ID.sub(r"\1", lines[i], count=1) if strip_id else lines[i]
        if first != want[0] or lines[i + 1 : i + n] != want[1:]:
            continue
        values = []
        for kind, line in zip(("left", "right"), lines[i + n : i + n + 2], strict=False):
            found = _RUST_ASSERT_VALUE.match(line)
            if found is None or found.group(1) != kind:
                break
            values.append(" ".join(line.split()))
        return values
    return []


def _with_test_message(signature: str, raw: str) -> str:
    """A failed test named alone (go test's ``--- FAIL: TestAdd (0.00s)``, jest's ``● cart ›
    adds an item``) takes what the test reported, the failure itself: ``--- FAIL: TestAdd
    (0.00s): Add(1, 2) = 4; want 3``. Two failures of one test are two errors."""
    go = signature.startswith("--- FAIL: ")
    if not go and not _JEST_TEST_FAILED.match(signature):
        return signature
    lines = ANSI.sub("", raw).replace("\r", "").splitlines()
    message = (
        _go_test_message(signature.split()[2], lines) if go else _jest_message(signature, lines)
    )
    message = one_line(message)
    return f"{signature}: {message}" if message else signature


#: The errors of a system call, as its message says them (``strerror``), after a colon in
#: an error (``write /data/x: No space left on device``); ``[Cc]onnection``: Go writes
#: them in lower case.
SYSTEM_CALL_ERRORS = (
    "No space left on device",
    "Address already in use",
    "Connection reset by peer",
    "Connection refused",
    "Connection timed out",
    "Read-only file system",
    "Directory not empty",
    "Too many open files",
    "Operation not permitted",
    "Broken pipe",
    "Device or resource busy",
    "Disk quota exceeded",
    "Network is unreachable",
    "No route to host",
    "Cannot allocate memory",
    "Text file busy",
    "Resource temporarily unavailable",
    "Exec format error",
)
_SYSTEM_CALL_ERRORS = "|".join(
    error.replace(" ", r"\s").replace("Connection", "[Cc]onnection") for error in SYSTEM_CALL_ERRORS
)
#: An error's message as a tool prints it after its exception class or its program's name,
#: and as a person types it without them: ``No module named 'yaml'``, ``Cannot find module
#: 'lodash'``, ``cannot import name 'escape' from 'jinja2'``, ``undefined reference to
#: `dlopen'``, ``unresolved import `tokio```, Bundler's ``Could not find gem 'sidekiq'``, Go's
#: ``no required module provides package x`` (old Go's ``cannot find module providing package
#: x``), Ruby's ``cannot load such file -- nokogiri``, rustc's ``can't find crate for
#: `serde```; and Go's ``package x is not in std`` (a broken GOROOT's, whichever package).
#: Each names the thing that is missing, which is
#: the error (the fix of ``'requests'`` is not ``'yaml'``'s): read as an error, its
#: fingerprint holds an entry of another name below the floors as the whole error's does
#: (qa-s69a F1: the fix of ``'requests'`` came back at 0.58 for the bare message). Its first
#: letter in either case; a name after it (a sentence that names the message is no error).
BARE_ERROR_MESSAGE = (
    r"(?<![\w.])(?:[Nn]o\smodule\snamed\s(?!errors?\b)['\"`]?[\w.]|[Cc]annot\sfind\smodule\s['\"`]"
    r"|[Cc]annot\simport\sname\s['\"`]|[Uu]ndefined\sreference\sto\s[`'\"]"
    r"|[Uu]nresolved\simport\s[`'\"]|[Cc]ould\snot\sfind\sgem\s['\"]"
    r"|no\srequired\smodule\sprovides\spackage\s\w|cannot\sfind\smodule\sproviding\spackage\s\w"
    r"|package\s[\w.-]+(?:/[\w.@+-]+)*\sis\snot\sin\s(?:std|GOROOT)\b"
    r"|[Cc]annot\sload\ssuch\sfile\s--\s\S|[Cc]an't\sfind\scrate\sfor\s`)"
)
#: Ruby's line for an exception nothing rescued, ``FILE:LINE:in `METHOD': MESSAGE (Class)``
#: (Ruby 3.4 quotes ``in 'Hash#fetch'``): the class closes the line, in parentheses, as a
#: sentence names one (qa81 F7). Multi-line: its ``^`` and ``$`` are the line's.
RUBY_UNCAUGHT = (
    r"^[^\S\n]*[^\s:]+:\d+:in[^\S\n]+[`'][^'\n]*':[^\S\n][^\n]*?[^\S\n]"
    r"\((?:[A-Z]\w*::)*[A-Z]\w*\)[^\S\n]*$"
)
#: (A line's leading space is ``[^\S\n]*``: ``^\s*`` ran from every line's start over all
#: the blank lines after it, time quadratic in their number.)
_LOOKS_LIKE_ERROR_SOURCE = (
    r"""(?:
      ^[^\S\n]*(?i:ERROR-FIX:)
    | Traceback\s\(most\srecent\scall\slast\)
    | \berror\[E\d+\]
    | \berror\s+TS\d+
    | \berror\s+(?:CS|NU|MSB|NETSDK|BC|FS|LNK|C)\d{3,5}\b      # .NET, NuGet, MSBuild, MSVC
    | ^[^\S\n]*e:\s+(?:file://)?\S+\.kts?:(?:\d|\s\(\d+,\s\d+\):\s)  # kotlinc (2, 1)
    | RUBY_UNCAUGHT                                       # Ruby's uncaught exception
    | ^[^\S\n]*LUA_ERROR_PREFIX                                   # Lua's
    | \b[A-Z]\w*::[A-Z]\w*(?:NotFound|Invalid|Missing)\w*\b      # Ruby (Bundler::GemNotFound)
    | \bAssert\.\w+\(\)\sFailure\b                           # xUnit
    | (?:^|\s)[\w.$]*(?:Error|Exception)\b(?::|\s*$|\s+in\b)
    | \b[A-Z]\w*(?:Error|Exception)\b
    | (?<![\w.])[A-Za-z_][\w.]*\.(?:exceptions?|errors?|exc)\.[A-Z]\w*\b  # a module's exception
    | \bError:
    | \bError\s(?:from\sserver\s\(|response\sfrom\sdaemon\b)      # kubectl, docker
    | \bAn\serror\soccurred\s\(\w+\)\swhen\scalling\b            # the AWS CLI, boto
    | ^[^\S\n]*\(error\)\s                                       # redis-cli
    | ^[^\S\n]*×\s+\S                                          # miette's (uv's) error mark
    | (?:^|\s)error:
    | \bERROR\b
    | \bpanic:
    | \bfatal(?:\s+error)?:
    | \bexit(?:ed)?\s+(?:with\s+)?(?:code|status)\s*\d+
    | \bnpm\s+(?:ERR!|error)
    | \bcommand\snot\sfound\b
    | BARE_ERROR_MESSAGE                    # a message typed without its class or program
    | ^[^\S\n]*(?:\S*/)?(?:ba|da|k|z)?sh:\s(?:\d+:\s|line\s\d+:\s)?[\w./+-]+:\snot\sfound$  # dash's
    | ^[^\S\n]*Module\snot\sfound:\s                       # webpack's, Next.js'
    | ^(?:[^\S\n]*|[\w.-]+[^\S\n]+\|[^\S\n]+|[^\n]*?\[\d+\]:[^\S\n]+
        |\[(?=[^\]\s]*/)[^\]\s]*+\][^\S\n]+|[^\n]*?[\]:|][^\S\n]+(?=(?:time|ts)=|level=\S+
        (?:[^\S\n]+\w+=(?:"[^"\n]*"|\S+)){0,8}?[^\S\n]+(?:msg|caller|err|error)=))
      (?:\w+=(?:"[^"\n]*"|\S+)[^\S\n]+){0,8}?level=(?i:error|fatal|panic|crit(?:ical)?|emerg)
      (?:[+-]\d+)?[^\S\n]+\w+=      # logfmt (logrus, slog, go-kit), under compose's, journald's
                        # or kubectl's prefix, or any log's prefix before its time= (or its
                        # level and msg=); not a sentence quoting a level (possessive: "[a/a/a…"
                        # was quadratic, L1)
    | ^(?=[^\n]*"(?:msg|message|@m|@mt|event|error|err)"[^\S\n]*:)  # (a log's event, not a config)
      [^\S\n]*(?:[^\s{]{1,100}[^\S\n]+(?:\|[^\S\n]+)?){0,6}\{[^\n]*?"(?:level|severity|levelname|@l)"
      [^\S\n]*:[^\S\n]*(?:"(?i:error|err|eror|fatal|critical|crit|panic|dpanic|alert|emergency)"
      |[56]0\b)          # a JSON log's line at an error's level (behind compose's or a time)
    | \bNo\ssuch\sfile\sor\sdirectory\b
    | (?<!\S)(?:(?=(?:[A-Za-z]:)?[^\s:]*[/\\])(?:[A-Za-z]:)?[^\s:]*+|connect|failed):\s
      (?:no\ssuch\sfile\sor\sdirectory|permission\sdenied)\b
                            # Go's, lower case, after a path ("open /data/wal: …", "dial unix
                            # /var/run/docker.sock: connect: …"), not a sentence's label
                            # ("e.g.: permission denied", "In README.md: …")
    | (?:^[^\S\n]*|:\s)(?:open|stat|lstat|mkdir|remove|rename|chmod|chown|unlink|symlink|readlink
      |fork/exec|exec|read|write|chdir|getwd)(?:\s(?:[A-Za-z]:)?[^\s:]++)?:\s
      (?:no\ssuch\sfile\sor\sdirectory|permission\sdenied|Access\sis\sdenied\.?$
      |The\ssystem\scannot\sfind\sthe\s(?:file|path)\sspecified)
                                # ... after Go's operation on a name ("open config: …", "open
                                # C:\data: Access is denied." on Windows), where its error starts
    | \bThe\ssystem\scannot\sfind\sthe\s(?:file|path)\sspecified\b  # Windows' own
    | \bThe\sprocess\scannot\saccess\sthe\sfile\sbecause\sit\sis\sbeing\sused\sby\sanother
      \sprocess\b
    | (?:^|\s)[A-Za-z]:\\[^:\n]{0,300}?:\sAccess\sis\sdenied\b   # (a path with spaces)
    | :\si/o\stimeout\b                                   # Go's
    | \bbind:\saddress\salready\sin\suse\b                       # Go's
    | \bfailed:\sport\sis\salready\sallocated\b                    # Docker's
    | \berror\swhile\sattempting\sto\sbind\son\saddress\b            # asyncio's
    | :\s(?:SYSTEM_CALL_ERRORS)\b  # a system call's error
    | \bPermission\sdenied\b
    | \bSegmentation\sfault\b
    | \[Errno\s\d+\]
    | \bERR_[A-Z0-9_]{3,}\b
    | \bE(?:NOENT|ACCES|PERM|EXIST|2BIG|CONNREFUSED|TIMEDOUT|ADDRINUSE|NOSPC|RESOLVE)\b
    | make(?:\[\d+\])?:\s\*\*\*
    | \bstack\s+trace\b
    | ^[^\S\n]*(?:\./|/)?[\w./-]+\.\w{1,6}:\d+(?::\d+)?:\s   # compiler / linter locations
    | ^[^\S\n]*\d+:\d+\s+error\s                         # eslint
    | ^go:\s
    | \b(?:Uncaught|Unhandled)\b
    | \bthread\s'[^'\n]*'\s(?:\(\d+\)\s)?panicked\sat\b     # Rust
    | ^[^\S\n]*---\sFAIL:\s                             # go test
    | \s---\sFAIL:\s\S+\s\(\d+(?:\.\d+)?s\)         # ... told in a sentence
    | ^[^\S\n]*(?:FAILED|ERROR)\s\S+::\S                  # pytest's short summary
    | ^E\s{2,}(?:assert\s|(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)\b)  # pytest's E line
    | (?:^|\bfail(?:s|ed|ing)?(?:[^\S\n]+with)?[:;]?[^\S\n]*\(?
      |\b(?:get(?:ting)?|got|see(?:ing)?|hit(?:ting)?)(?:[^\S\n]+an?)?[^\S\n])[^\S\n]*assert\s+
      (?:-?\d[\d.]*|'[^'\n]*'|"[^"\n]*"|None|True|False)\s*(?:[=!<>]=|[<>]\s
      |is\s|in\s|not\sin\s)       # pytest's summary: its values (also told: "x fails: …")
    | ^=+\s(?:\d+\s(?:passed|skipped|deselected|warnings?),\s)*\d+\s(?:failed|errors?)\b  # pytest
    | ^Tests?(?:\sSuites:|:|\sFiles)[^\S\n]+\d+\sfailed\b  # jest, vitest
    | ^[^\S\n]*expect\((?:received|jest\.fn\(\))\)\.(?:(?:not|resolves|rejects)\.)*to[A-Z]\w*\(
                                                      # jest's matcher (its hint, not test code)
    | ^FAILURE:\sBuild\sfailed\b                      # gradle
    | \b(?:CrashLoopBackOff|ImagePullBackOff|ErrImagePull|OOMKilled)\b
    | \bBack-off\srestarting\sfailed\scontainer\b      # Kubernetes
    | \bError\sresponse\sfrom\sdaemon\b                 # docker
    | \bis\snot\srecognized\sas\san\sinternal\sor\sexternal\scommand\b  # cmd.exe
    | \berror\sduring\sbuild:|\b[Ff]ailed\sto\sresolve\simport\b  # vite (and its dev server)
    | \bAn\sunexpected\serror\soccurred:\s"https?://             # yarn classic's registry
    | \bAPPLICATION\sFAILED\sTO\sSTART\b|\brequired\sa\sbean\sof\stype\b  # Spring Boot
    | ^CONFLICT\s\([\w/ -]{1,40}\):\s|\bAutomatic\smerge\sfailed\b       # git
    | \bEXCEPTION\sCAUGHT\sBY\s[A-Z]                                        # Flutter
    | ^\S+\s+Warning\s+[A-Z]\w+\s+[\w.-]+/\S+\s                           # kubectl events
    | ^[^\S\n]*Warning\s{2,}[A-Z]\w+\s{2,}\S                          # kubectl describe
    | \bJob\sfor\s\S+\sfailed\b|\bHost\skey\sverification\sfailed\b     # systemctl, ssh
    | \bversion\ssolving\sfailed\b|^\[error\]\s                          # dart pub, sbt
    | \sat\s(?=\S*[/.])\S++\sline\s\d+\.$                             # Perl's die
    | ^[^\S\n]*\*\*\s\((?:exit|EXIT|Mix|[A-Z][\w.]*(?:Error|Exception))\)\s  # Elixir
    | ^==\d+==\s+(?:Invalid\s|Mismatched\s|Conditional\sjump\b|Use\sof\suninitialised\b)  # valgrind
    | ^[^\S\n]*(?:\S*/)?(?:(?:GNU)?[Mm]akefile(?:\.\w+)?|[\w.-]+\.mk):\d+:\s\*\*\*\s  # make
    )""".replace("SYSTEM_CALL_ERRORS", _SYSTEM_CALL_ERRORS)
    .replace("BARE_ERROR_MESSAGE", BARE_ERROR_MESSAGE)
    .replace("RUBY_UNCAUGHT", RUBY_UNCAUGHT)
    .replace("LUA_ERROR_PREFIX", LUA_ERROR_PREFIX)
)
_LOOKS_LIKE_ERROR_FLAGS = re.VERBOSE | re.MULTILINE
#: Whether ``_LOOKS_LIKE_ERROR_SOURCE`` (compiled with its flags) is found in a text, asked
#: first by the words its alternatives need (:mod:`kenning.prefilter`): in a log's line that
#: holds none, only the few alternatives that need no word are searched (~7 µs, not ~120: the
#: whole pattern tried its 78 alternatives at every character). tests/test_prefilter.py
#: holds it to the whole pattern's answer, line by line.
_looks_like_error_found = prefiltered(_LOOKS_LIKE_ERROR_SOURCE, _LOOKS_LIKE_ERROR_FLAGS)


#: The ISO 8601 time a CI log (GitHub Actions' raw log) or a logger puts before every line.
_LINE_STAMP = lazy(
    r"^[^\S\n]*\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?[^\S\n]+",
    re.MULTILINE,
)


@remembered
def looks_like_error(text: str) -> bool:
    """Heuristic: is ``text`` an error message, log or ERROR-FIX entry (0.40 floor)? Of a
    huge log, the part :func:`~kenning.log_window.log_window` reads."""
    if not text:
        return False
    text = as_printed(without_run_log_prefixes(ANSI.sub("", read_of_log(text))))
    if _LINE_STAMP.search(text):  # (the patterns that start a line start after it)
        text = _LINE_STAMP.sub("", text)
    if _looks_like_error_found(text):
        return True
    # a pasted API error body ({"errors": [{"message": …}]}, {"error": {"message": …}}):
    # no error word need be in it
    return text.lstrip().startswith("{") and api_error_said(text) is not None
