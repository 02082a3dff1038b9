"""Write-path hygiene and read-path path checks (pure; no store access).

* :func:`redact_secrets` — replace credentials with ``[REDACTED:<kind>]`` before anything is
  embedded or stored; the counts it returns name kinds only, never values.
* :func:`normalise_content` — the one normalisation applied to memory content before it is
  hashed, embedded and stored.
* :func:`validate_source_path` / :func:`is_safe_source_path` — a ``source`` path that comes
  back with a memory is store data, not a trusted path: it is checked before any tool reads
  it, and every doubt rejects it (fail closed).

Every regular expression here is precompiled and linear in the input: candidate matches start
only at a distinctive prefix or at the start of a token run (look-behind), quantifiers are
over disjoint character classes or bounded, and PEM blocks are found with ``str.find`` rather
than a lazy ``.*?`` so that many unterminated ``BEGIN`` lines cannot make the scan quadratic.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from collections.abc import Callable
from pathlib import Path

from .errors import UserInputError

__all__ = [
    "REDACTION_KINDS",
    "UnsafePathError",
    "is_safe_source_path",
    "normalise_content",
    "redact_secrets",
    "redaction_marker",
    "validate_source_path",
]

# --------------------------------------------------------------------------------------------
# Secret redaction
# --------------------------------------------------------------------------------------------

#: Every kind :func:`redact_secrets` can report, in the order the detectors run.
REDACTION_KINDS: tuple[str, ...] = (
    "private_key",
    "connection_string",
    "slack_webhook",
    "aws_access_key",
    "aws_secret",
    "github_token",
    "gitlab_token",
    "slack_token",
    "stripe_key",
    "anthropic_key",
    "openai_key",
    "jwt",
    "password_assignment",
)


def redaction_marker(kind: str) -> str:
    """The text that replaces a secret of ``kind``: ``[REDACTED:<kind>]``."""
    return f"[REDACTED:{kind}]"


# Characters that may continue a token; a token detector only starts where the previous
# character is not one of these (so the scan starts once per run, not once per position).
_TOK = r"A-Za-z0-9_\-"

_PEM_BEGIN = re.compile(r"-----BEGIN ((?:[A-Z0-9]+ ){0,4})PRIVATE KEY-----")
_PEM_END = re.compile(r"-----END ((?:[A-Z0-9]+ ){0,4})PRIVATE KEY-----")
# Body lines of an unterminated PEM block: base64 runs and RFC 1421 headers (Proc-Type: ...).
_PEM_BODY = re.compile(r"(?:[ \t]*\r?\n[ \t]*(?:[A-Za-z0-9+/=]{8,}|[A-Za-z][A-Za-z-]*:[^\n]*))*")

_CONNECTION = re.compile(
    r"(?<![A-Za-z0-9+.\-])(?P<head>[A-Za-z][A-Za-z0-9+.\-]{1,30}://[^\s:/@]{0,256}:)"
    r"(?P<pw>[^\s/]{1,256})@"
)
_SLACK_WEBHOOK = re.compile(
    r"(?P<head>https://hooks\.slack\.com/(?:services|workflows|triggers)/)"
    r"(?P<pw>[A-Za-z0-9_/\-]{8,})"
)
_AWS_ACCESS = re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])")
_AWS_SECRET = re.compile(
    r"(?P<head>aws_?secret_?(?:access_?)?key[\"']?[ \t]*(?:=>|:=|[:=])[ \t]*[\"']?)"
    r"(?P<pw>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
    re.IGNORECASE,
)
_GITHUB = re.compile(
    rf"(?<![{_TOK}])(?:gh[pousr]_[A-Za-z0-9]{{36,}}|github_pat_[A-Za-z0-9_]{{22,}})(?![{_TOK}])"
)
_GITLAB = re.compile(rf"(?<![{_TOK}])glpat-[A-Za-z0-9_\-.]{{20,}}(?![{_TOK}])")
_SLACK_TOKEN = re.compile(rf"(?<![{_TOK}])xox[abprs]-[A-Za-z0-9\-]{{10,}}(?![{_TOK}])")
_STRIPE = re.compile(rf"(?<![{_TOK}])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{{10,}}(?![{_TOK}])")
_ANTHROPIC = re.compile(rf"(?<![{_TOK}])sk-ant-[A-Za-z0-9_\-]{{20,}}(?![{_TOK}])")
_OPENAI = re.compile(
    rf"(?<![{_TOK}])sk-(?!ant-)(?:proj-|svcacct-|admin-)?(?P<body>[{_TOK}]{{20,}})(?![{_TOK}])"
)
_JWT = re.compile(
    rf"(?<![{_TOK}.])eyJ[{_TOK}]{{10,}}\.[{_TOK}]{{10,}}\.[{_TOK}]{{10,}}(?![{_TOK}])"
)

# The key of a ``key = value`` assignment whose value is a credential. The keyword must end the
# key name (``DB_PASSWORD=`` yes, ``password_file=`` and ``max_tokens=`` no).
_SECRET_KEYWORD = (
    r"(?:pass(?:word|wd|phrase)|pwd|secret(?:[_\-]?key)?|(?:api|private)[_\-]?key|apikey|token)"
)
_ASSIGNMENT = re.compile(
    rf"(?P<key>{_SECRET_KEYWORD})(?P<kq>[\"']?)(?P<sep>[ \t]*(?:=>|:=|[:=])[ \t]*)"
    r"(?:\"(?P<dq>[^\"\r\n]{1,1024})\"|'(?P<sq>[^'\r\n]{1,1024})'"
    r"|(?P<val>[^\s\"'`,;&]+))",
    re.IGNORECASE,
)
# After an unquoted ``key: value`` (YAML, prose) the rest of the line must be empty, a comment
# or the end of an inline mapping; otherwise it is prose ("the token: it expires ...").
_COLON_TAIL = re.compile(r"[ \t]*(?:$|#|,|\})", re.MULTILINE)

# Values that are references or placeholders, not secrets (see redact_secrets).
_PLACEHOLDER = re.compile(
    r"""
    \$ .*                          # $VAR, ${VAR}, ${{ secrets.X }}, $(cmd)
    | < .*                         # <your-token>, <password>
    | \{\{ .*                      # {{ jinja }} / helm
    | %\( .*                       # %(name)s
    | %[A-Za-z_][A-Za-z0-9_]*%     # %WINDOWS_VAR%
    | \*+ | [xX]{3,} | \.{3,} | …  # masks (a single "x" is a value)
    | \[REDACTED.*                 # already redacted
    | none | null | nil | true | false | undefined | empty | required | optional
    """,
    re.IGNORECASE | re.VERBOSE | re.DOTALL,
)
_IDENT_CHAIN = re.compile(r"(?:[A-Za-z_][A-Za-z0-9_]*\.)*(?P<last>[A-Za-z_][A-Za-z0-9_]*)")


def _is_placeholder(value: str) -> bool:
    return _PLACEHOLDER.fullmatch(value) is not None


def _redact_pem(text: str) -> tuple[str, int]:
    parts: list[str] = []
    pos = 0
    count = 0
    marker = redaction_marker("private_key")
    no_end_after = len(text) + 1  # once an END search fails, none after that point succeeds
    while True:
        begin = _PEM_BEGIN.search(text, pos)
        if begin is None:
            break
        end = None if begin.end() >= no_end_after else _PEM_END.search(text, begin.end())
        if end is None:
            no_end_after = min(no_end_after, begin.end())
        parts.append(text[pos : begin.start()])
        count += 1
        if end is not None:
            # Key material between the markers is all secret: drop everything in between.
            parts.append(marker)
            pos = end.end()
            continue
        # Unterminated (pasted partly): drop the BEGIN line and the body lines that follow it.
        # No END marker exists after this point, so no later block can be terminated either.
        body = _PEM_BODY.match(text, begin.end())
        parts.append(marker)
        pos = body.end() if body else begin.end()
    parts.append(text[pos:])
    return ("".join(parts), count) if count else (text, 0)


def _sub_keep_head(kind: str) -> Callable[[re.Match[str]], str | None]:
    """Replace group ``pw`` and keep group ``head`` (scheme/user, key and separator)."""

    def repl(m: re.Match[str]) -> str | None:
        pw = m.group("pw")
        if _is_placeholder(pw):
            return None
        return m.group("head") + redaction_marker(kind) + m.group(0)[m.end("pw") - m.start() :]

    return repl


def _sub_whole(kind: str) -> Callable[[re.Match[str]], str | None]:
    def repl(m: re.Match[str]) -> str | None:
        return redaction_marker(kind)

    return repl


def _openai_repl(m: re.Match[str]) -> str | None:
    body = m.group("body")
    # Real keys are random base62(+_-): a digit, an upper- and a lower-case letter. This keeps
    # hyphenated words such as "sk-learn-compatible-estimator-wrapper" untouched.
    if (
        any(c.isdigit() for c in body)
        and any(c.isupper() for c in body)
        and any(c.islower() for c in body)
    ):
        return redaction_marker("openai_key")
    return None


def _assignment_repl(m: re.Match[str]) -> str | None:
    key = m.group("key")
    sep = m.group("sep")
    marker = redaction_marker("password_assignment")
    for name in ("dq", "sq"):
        value = m.group(name)
        if value is not None:
            if not value.strip() or _is_placeholder(value.strip()):
                return None
            return m.group(0)[: m.start(name) - m.start()] + marker + m.group(0)[-1]
    value = m.group("val")
    is_colon = sep.strip() == ":"
    if is_colon and _COLON_TAIL.match(m.string, m.end()) is None:
        return None  # prose such as "the token: it expires daily"
    # Keep closing brackets that belong to the surrounding code: f(password=pw) -> "pw".
    trailing = ""
    while (
        value
        and value[-1] in ")]}"
        and value.count(value[-1]) > value.count({")": "(", "]": "[", "}": "{"}[value[-1]])
    ):
        trailing = value[-1] + trailing
        value = value[:-1]
    if not value or _is_placeholder(value):
        return None
    if "(" in value or "[" in value:
        return None  # an expression: getpass(), os.environ["X"], settings["db"]
    ident = _IDENT_CHAIN.fullmatch(value)
    if ident is not None and ident.group("last").lower() == key.lower():
        return None  # a variable reference: password=password, self.api_key
    if key.lower() == "pwd" and value[0] in "/~.":
        return None  # PWD=/home/user is the shell's working directory
    head = m.group(0)[: m.start("val") - m.start()]
    return head + marker + trailing


_Repl = Callable[[re.Match[str]], "str | None"]

_DETECTORS: tuple[tuple[str, re.Pattern[str], _Repl], ...] = (
    ("connection_string", _CONNECTION, _sub_keep_head("connection_string")),
    ("slack_webhook", _SLACK_WEBHOOK, _sub_keep_head("slack_webhook")),
    ("aws_access_key", _AWS_ACCESS, _sub_whole("aws_access_key")),
    ("aws_secret", _AWS_SECRET, _sub_keep_head("aws_secret")),
    ("github_token", _GITHUB, _sub_whole("github_token")),
    ("gitlab_token", _GITLAB, _sub_whole("gitlab_token")),
    ("slack_token", _SLACK_TOKEN, _sub_whole("slack_token")),
    ("stripe_key", _STRIPE, _sub_whole("stripe_key")),
    ("anthropic_key", _ANTHROPIC, _sub_whole("anthropic_key")),
    ("openai_key", _OPENAI, _openai_repl),
    ("jwt", _JWT, _sub_whole("jwt")),
    ("password_assignment", _ASSIGNMENT, _assignment_repl),
)


def redact_secrets(text: str) -> tuple[str, dict[str, int]]:
    """Replace credentials in ``text`` with ``[REDACTED:<kind>]``.

    Returns the redacted text and ``{kind: count}`` for the kinds found (never the values).
    Kinds are :data:`REDACTION_KINDS`. Where a secret sits inside a structure, only the secret
    is replaced: ``postgresql://app:[REDACTED:connection_string]@db:5432/x``,
    ``password: "[REDACTED:password_assignment]"``, ``aws_secret_access_key = [REDACTED:...]``.

    Deliberately *not* redacted (near-misses and placeholders): prose ("password reset flow",
    "token bucket algorithm", "the token: it expires daily"), an empty value (``password=``,
    ``password=""``), references and placeholders (``${DB_PASSWORD}``, ``$TOKEN``,
    ``${{ secrets.X }}``, ``{{ vault }}``, ``<your-token>``, ``%(pw)s``, ``***``, ``xxxx``,
    ``None``/``null``/``true``), code expressions (``getpass()``, ``os.environ["X"]``) and
    variable references named like the key (``password=password``, ``self.api_key``),
    ``PWD=/path``, short or dictionary-like ``sk-`` words ("sk-learn"), git SHAs and UUIDs.
    A real password that happens to look like a placeholder (starts with ``$`` or ``<``) is
    left in place; that is the documented price of not mangling configuration examples.
    """
    if not isinstance(text, str):
        raise TypeError(f"redact_secrets expects str, not {type(text).__name__}")
    counts: dict[str, int] = {}
    text, n = _redact_pem(text)
    if n:
        counts["private_key"] = n
    for kind, pattern, repl in _DETECTORS:
        hits = 0

        def _apply(m: re.Match[str], repl: _Repl = repl) -> str:
            nonlocal hits
            out = repl(m)
            if out is None:
                return m.group(0)
            hits += 1
            return out

        new_text = pattern.sub(_apply, text)
        if hits:
            counts[kind] = counts.get(kind, 0) + hits
            text = new_text
    return text, counts


# --------------------------------------------------------------------------------------------
# Content normalisation
# --------------------------------------------------------------------------------------------

# C0 controls except \t and \n (\r is turned into \n first), DEL, C1 controls except NEL
# (turned into \n first), lone surrogates (not encodable), and a byte-order mark.
_STRIP_CHARS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufeff]")
_NEWLINES = re.compile(r"\r\n|[\r\x85\u2028\u2029]")
# Horizontal whitespace other than tab/space that is collapsed inside a line.
_HSPACE = "[ \t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]"
_INNER_SPACE_RUN = re.compile(rf"(?<=\S){_HSPACE}+(?=\S)")
_TRAILING_SPACE = re.compile(rf"{_HSPACE}+$", re.MULTILINE)
_BLANK_RUN = re.compile(r"\n{3,}")


def normalise_content(text: str) -> str:
    """Normalise memory content before it is hashed, embedded and stored.

    * Unicode NFC (canonical composition only: "é" typed either way hashes the same; no
      compatibility folding, so "ﬁ", full-width forms and the like stay as typed);
    * line endings ``\\r\\n``, ``\\r``, NEL, U+2028 and U+2029 become ``\\n``;
    * NUL and every other C0 control except ``\\t``/``\\n``, DEL, C1 controls, lone surrogates
      and byte-order marks are removed;
    * inside a line, runs of spaces/tabs (and other horizontal Unicode spaces) become one
      space; trailing spaces are removed; *leading indentation is kept as typed* so code
      snippets stay readable;
    * three or more consecutive line breaks (2+ blank lines) become one blank line;
    * leading and trailing whitespace of the whole text is removed.

    The function is idempotent. Characters are otherwise kept as typed.
    """
    if not isinstance(text, str):
        raise TypeError(f"normalise_content expects str, not {type(text).__name__}")
    text = _NEWLINES.sub("\n", text)
    text = _STRIP_CHARS.sub("", text)
    text = unicodedata.normalize("NFC", text)
    text = _INNER_SPACE_RUN.sub(" ", text)
    text = _TRAILING_SPACE.sub("", text)
    text = _BLANK_RUN.sub("\n\n", text)
    return text.strip()


# --------------------------------------------------------------------------------------------
# Source paths
# --------------------------------------------------------------------------------------------


class UnsafePathError(UserInputError):
    """A ``source`` path that must not be read: it is malformed or leaves the project root."""

    def __init__(self, path: object, reason: str) -> None:
        self.path = path
        self.reason = reason
        shown = repr(path)
        if len(shown) > 120:
            shown = shown[:117] + "..."
        super().__init__(f"unsafe source path {shown}: {reason}")


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:")
_SEPARATORS = re.compile(r"[/\\]")


def _lexical_reason(path: str) -> str | None:
    if not path or not path.strip():
        return "empty path"
    if "\n" in path or "\r" in path:
        return "contains a line break"
    if "\x00" in path:
        return "contains a NUL byte"
    if _CONTROL.search(path):
        return "contains a control character"
    if any("\ud800" <= c <= "\udfff" for c in path):
        return "contains a lone surrogate"
    if path.startswith("~"):
        return "starts with '~' (home directory)"
    if path.startswith(("/", "\\")):
        return "absolute path"
    if _WINDOWS_DRIVE.match(path):
        return "absolute path (Windows drive)"
    for part in _SEPARATORS.split(path):
        # '..' and what Windows trims to '..' ('.. ', '...').
        if part.count(".") >= 2 and not part.strip(" ."):
            return "contains a '..' component"
    return None


def validate_source_path(path: str, project_root: Path | str) -> Path:
    """Return the resolved location of ``path`` inside ``project_root`` or raise.

    Rejected with :class:`UnsafePathError` (the ``reason`` attribute says which rule): an empty
    or blank path; a line break, NUL or other control character; a leading ``~``; an absolute
    path (POSIX ``/x``, Windows ``C:\\x``, ``C:x``, ``\\x``, UNC ``\\\\host\\share``); any
    ``..`` component (``/`` or ``\\`` separated); a path naming the root itself; a symlink
    component that is broken, loops, or resolves outside the root. Any ``OSError`` while
    checking (missing root, permission denied, ...) rejects the path: fail closed.

    Components after the first one that does not exist are appended lexically (they cannot
    be symlinks; ``..`` is already excluded), so a not-yet-existing file is accepted; the
    caller's read then fails normally. The check is a point-in-time check: a filesystem that
    changes between this call and the read can still race it.
    """
    if not isinstance(path, str):
        raise UnsafePathError(path, f"not a string ({type(path).__name__})")
    reason = _lexical_reason(path)
    if reason:
        raise UnsafePathError(path, reason)
    try:
        root = Path(os.path.realpath(os.fspath(project_root), strict=True))
        if not root.is_dir():
            raise UnsafePathError(path, "project root is not a directory")
        parts = [p for p in path.split("/") if p not in ("", ".")]
        if not parts:
            raise UnsafePathError(path, "names the project root itself")
        current = root
        for index, part in enumerate(parts):
            candidate = current / part
            try:
                st = os.lstat(candidate)
            except FileNotFoundError:
                current = candidate.joinpath(*parts[index + 1 :])
                break
            if stat.S_ISLNK(st.st_mode):
                try:
                    target = Path(os.path.realpath(candidate, strict=True))
                except OSError as exc:
                    raise UnsafePathError(path, f"broken or looping symlink {part!r}") from exc
                if not target.is_relative_to(root):
                    raise UnsafePathError(path, f"symlink {part!r} resolves outside the root")
                current = target
            else:
                current = candidate
            if index < len(parts) - 1 and not current.is_dir():
                # 'file.md/x': a non-directory in the middle can never be read through.
                raise UnsafePathError(path, f"{part!r} is not a directory")
        if current == root or not current.is_relative_to(root):
            raise UnsafePathError(path, "resolves outside the project root")
        return current
    except UnsafePathError:
        raise
    except (OSError, ValueError) as exc:
        raise UnsafePathError(path, f"cannot be checked ({type(exc).__name__})") from exc


def is_safe_source_path(path: str, project_root: Path | str) -> bool:
    """``True`` when :func:`validate_source_path` accepts ``path``; never raises."""
    try:
        validate_source_path(path, project_root)
    except UnsafePathError:
        return False
    return True
