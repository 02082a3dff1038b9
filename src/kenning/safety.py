"""Write-path hygiene and read-path path checks (pure; no store access).

* :func:`normalise_content` — the one normalisation applied to memory content before it is
  hashed, embedded and stored.
* :func:`validate_source_path` / :func:`is_safe_source_path` — a ``source`` path that comes
  back with a memory is store data, not a trusted path: it is checked before any tool reads
  it, and every doubt rejects it (fail closed).

Secret redaction lives in :mod:`kenning.redaction`.
"""

from __future__ import annotations

import bisect
import errno
import functools
import os
import re
import stat
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import regex

from .code_spans import code_spans
from .errors import UserInputError
from .lazyre import lazy

__all__ = [
    "BrokenSymlinkError",
    "UnsafePathError",
    "check_name",
    "checked_metadata",
    "has_visible_text",
    "hidden_character",
    "is_invisible",
    "is_safe_source_path",
    "is_spelling_joiner",
    "normalise_content",
    "resolve_inside",
    "shell_word",
    "validate_source_path",
    "without_controls",
    "without_terminal_sequences",
]

# --------------------------------------------------------------------------------------------
# Content normalisation
# --------------------------------------------------------------------------------------------

# C0 controls except \t and \n (\r is turned into \n first), DEL, C1 controls except NEL
# (turned into \n first), lone surrogates (not encodable), and a byte-order mark.
_STRIP_CHARS = lazy(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufeff]")
_NEWLINES = lazy(r"\r\n|[\r\x85\u2028\u2029]")
# Horizontal whitespace other than tab/space that is collapsed inside a line.
_HSPACE = "[ \t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]"
_INNER_SPACE_RUN = lazy(rf"(?<=\S){_HSPACE}+(?=\S)")
#: (From the first space of a run only: tried from each of them, a long run not at a
#: line's end took time quadratic in its length.)
_TRAILING_SPACE = lazy(rf"(?<!{_HSPACE}){_HSPACE}+$", re.MULTILINE)
_BLANK_RUN = lazy(r"\n{3,}")
#: A terminal's escape sequences, whole: colours and cursor moves (CSI, ``ESC [ … m``), a
#: title or hyperlink (OSC, ended by BEL or ``ESC \`` within one line), a character-set
#: choice (``ESC ( B``) and the two-byte escapes. Taking out only their ESC (a control)
#: left their text in the note: ``[1m[31merror[0m``.
_TERMINAL_SEQUENCE = lazy(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)|\x1b[ -/]+[0-~]|\x1b[@-Z\\-_]"
)


def without_terminal_sequences(text: str) -> str:
    """``text`` without the escape sequences a terminal reads as colours, cursor moves,
    titles or links (what a coloured tool's output, or a CI job's raw log, holds between
    its words)."""
    if "\x1b" not in text:
        return text
    return _TERMINAL_SEQUENCE.sub("", text)


#: What a metadata value loses as content does (:func:`normalise_content`): controls but the
#: tab and the line break, and the byte-order mark (lone surrogates are refused there).
_VALUE_STRIP = lazy(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ufeff]")


def without_controls(text: str) -> str:
    """``text`` (a metadata value) without what :func:`normalise_content` takes out of a
    note's content: a terminal's escape sequences whole, every control character but the tab
    and the line break (``\\r\\n``, ``\\r``, NEL, U+2028 and U+2029 become one), and the
    byte-order mark. Format characters (bidi marks of right-to-left text) are kept, as in
    the content; every output escapes them."""
    if text.isascii() and text.isprintable():
        return text
    return _VALUE_STRIP.sub("", _NEWLINES.sub("\n", without_terminal_sequences(text)))


def without_nul(value: Any) -> Any:
    """``value`` with every NUL character taken out of its texts, in lists and mappings
    (keys too); other values are returned as they are. PostgreSQL's ``text`` and JSON cannot
    hold NUL, so no backend stores one: the same note is then the same on every backend
    (:func:`normalise_content` removes NUL from the content already)."""
    if isinstance(value, str):
        return value.replace("\x00", "") if "\x00" in value else value
    if isinstance(value, Mapping):
        return {without_nul(k): without_nul(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_nul(v) for v in value]
    if isinstance(value, tuple):
        return tuple(without_nul(v) for v in value)
    return value


def normalise_content(text: str) -> str:
    """Normalise memory content before it is hashed, embedded and stored.

    * Unicode NFC (canonical composition only: "é" typed either way hashes the same; no
      compatibility folding, so "ﬁ", full-width forms and the like stay as typed);
    * line endings ``\\r\\n``, ``\\r``, NEL, U+2028 and U+2029 become ``\\n``;
    * a terminal's escape sequences (colours, titles, links: ``ESC [ 31 m``) are removed
      whole, then NUL and every other C0 control except ``\\t``/``\\n``, DEL, C1 controls,
      lone surrogates and byte-order marks;
    * inside a line, runs of spaces/tabs (and other horizontal Unicode spaces) become one
      space, except in code (fenced blocks and inline spans, :mod:`kenning.code_spans`),
      whose spacing is kept as typed; trailing spaces are removed; *leading indentation is
      kept as typed* so code snippets stay readable;
    * three or more consecutive line breaks (2+ blank lines) become one blank line;
    * the indentation (spaces, tabs, no-break and other horizontal spaces) that every line
      shares is removed from each, so a text that starts indented keeps its lines'
      relative indentation;
    * leading and trailing whitespace of the whole text is removed.

    The function is idempotent. Characters are otherwise kept as typed.
    """
    if not isinstance(text, str):
        raise TypeError(f"normalise_content expects str, not {type(text).__name__}")
    text = _NEWLINES.sub("\n", without_terminal_sequences(text))
    text = _STRIP_CHARS.sub("", text)
    text = unicodedata.normalize("NFC", text)
    # Each rule below is applied only where it may change something (in an ASCII text the
    # horizontal spaces are a space and a tab): most notes have single spaces, no tab and
    # no trailing space, and the two searches, tried at every space, were a tenth of an
    # import's checks.
    ascii_text = text.isascii()
    if not ascii_text or "  " in text or "\t" in text:
        text = _squeezed(text)
    if not ascii_text or " \n" in text or "\t\n" in text or text.endswith((" ", "\t")):
        text = _TRAILING_SPACE.sub("", text)
    if "\n\n\n" in text:
        text = _BLANK_RUN.sub("\n\n", text)
    # the indentation every line shares goes from all of them: stripping the first line's
    # alone moved it out from under the others (a YAML block or a method body copied from
    # inside a file)
    return _without_shared_indentation(text).strip()


def _squeezed(text: str) -> str:
    """``text`` with each run of horizontal spaces inside a line made one space, but in its
    code (:mod:`kenning.code_spans`: fenced blocks, inline spans), kept as typed: two
    spaces in ``line.split("  ")``, a column of aligned values, a tab in a Makefile's
    example are the code, and squeezed they were another program."""
    spans = code_spans(text)
    if not spans:
        return _INNER_SPACE_RUN.sub(" ", text)
    starts = [start for start, _ in spans]

    def squeeze(match: re.Match[str]) -> str:
        at = bisect.bisect_right(starts, match.start()) - 1
        return match.group() if at >= 0 and match.start() < spans[at][1] else " "

    return _INNER_SPACE_RUN.sub(squeeze, text)


_INDENTATION = lazy(rf"{_HSPACE}*")


def _without_shared_indentation(text: str) -> str:
    """``text`` without the indentation every line that is not blank starts with, character
    for character: ``textwrap.dedent``, but with every horizontal space the text keeps as
    indentation (no-break spaces, ideographic ones), not spaces and tabs only. Code pasted
    from a web page, a chat or a wiki is indented with no-break spaces: textwrap left them,
    and the final strip took the first line's alone. Blank lines are empty already."""
    lines = text.split("\n")
    indents = [m.group() for line in lines if line and (m := _INDENTATION.match(line))]
    if not indents:
        return text
    # what the first and last in sorted order share, every one shares
    first, last = min(indents), max(indents)
    differ = (i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b)
    shared = next(differ, len(first))
    if not shared:
        return text
    return "\n".join(line[shared:] for line in lines)


def has_visible_text(text: str) -> bool:
    """Whether ``text`` shows anything: a character that is neither whitespace nor a
    format or control character (zero-width spaces, bidi marks, Unicode tag characters, …)
    nor another default-ignorable one (variation selectors, Hangul fillers, the combining
    grapheme joiner) nor a noncharacter (U+FFFF, U+FDD0…: never assigned, never shown; the
    recall block drops U+FFFE and U+FFFF, which XML does not allow, so a note of them was
    stored and then shown as nothing). A note made only of invisible characters is empty
    to a reader."""
    return any(
        not ch.isspace()
        and unicodedata.category(ch) not in ("Cf", "Cc", "Zl", "Zp")
        and _INVISIBLE.fullmatch(ch) is None
        and not _is_noncharacter(ch)
        for ch in text
    )


def _is_noncharacter(ch: str) -> bool:
    """One of Unicode's 66 noncharacters: U+FDD0-U+FDEF and the last two code points of
    every plane."""
    code = ord(ch)
    return 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE


#: Unicode's default-ignorable characters: shown as nothing (what is not Cf among them).
_INVISIBLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")


def is_invisible(char: str) -> bool:
    """Whether ``char`` is one of Unicode's default-ignorable characters, which show
    nothing: format controls and variation selectors, Hangul fillers, the combining
    grapheme joiner."""
    return _INVISIBLE.fullmatch(char) is not None


# What a name kenning stores may not hold (:func:`hidden_character`): controls (a line
# break and a tab too), format characters (bidi marks, overrides and isolates, zero-width
# and tag characters), line and paragraph separators, the other default-ignorable ones.
@functools.cache
def _hidden_in_a_name() -> Any:
    return regex.compile(r"[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]")


#: The controls a refusal names in words (the others have no Unicode name).
_CONTROL_NAMES = {
    "\t": "a tab",
    "\n": "a line break",
    "\r": "a carriage return",
    "\x07": "BEL, a control character",
    "\x1b": "ESC, which starts a terminal's escape sequence",
    "\x7f": "DEL, a control character",
}


def hidden_character(name: str) -> str | None:
    """The first character of ``name`` that a name kenning stores (a project id, a memory's
    ``source``, a tag, a metadata key) may not hold, or None: one a terminal obeys (ESC,
    BEL: a title, a link, the clipboard), one that breaks the line it is shown on, or one
    that shows as nothing or reorders what is shown (``docs/\\u202egnp.md`` shows as
    ``docs/dm.png``), so that what is shown is not what is stored. A joiner between the
    letters of a script that spells with it is part of the name (:func:`is_spelling_joiner`)."""
    if name.isascii() and name.isprintable():
        return None
    for m in _hidden_in_a_name().finditer(name):
        if not is_spelling_joiner(name, m.start()):
            return str(m[0])
    return None


def hidden_character_said(char: str) -> str:
    """``char`` (:func:`hidden_character`) as a refusal names it: ``U+001B (ESC, …)``."""
    said = _CONTROL_NAMES.get(char) or unicodedata.name(char, "").lower() or "a control character"
    return f"U+{ord(char):04X} ({said})"


def shell_word(text: str) -> str:
    """``text`` as one shell word that gives it back exactly: :func:`shlex.quote`'s when it
    holds no hidden character (:func:`hidden_character`), else bash's and zsh's ``$'…'``
    with each such character (and a backslash, a quote) written as its escape, so that the
    command holds no character a terminal obeys: ``$'01a2-\\x1b]0;x\\x07'``. For a fix
    that names another writer's id (qa77 F8)."""
    import shlex

    if hidden_character(text) is None and text.isprintable():
        return shlex.quote(text)
    out = []
    for ch in text:
        code = ord(ch)
        if ch in "\\'":
            out.append("\\" + ch)
        elif ch.isprintable() and (_hidden_in_a_name().fullmatch(ch) is None):
            out.append(ch)
        elif code < 0x80:  # (\\xHH is a byte to bash: a character above is \\u's)
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return "$'" + "".join(out) + "'"


def shown_name(name: str, limit: int = 80) -> str:
    """``name`` quoted for an error line, every hidden character written as its escape (a
    variation selector or a Hangul filler that ``repr`` leaves as it is too), cut to
    ``limit`` characters."""
    shown = _hidden_in_a_name().sub(lambda m: f"\\u{ord(m[0]):04x}", repr(name))
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


#: What each name a writer gives is, and how to give it, for :func:`check_name`'s refusal.
_NAME_FIX = {
    "source": "a document's path or URL holds no such character (a terminal obeys it, or "
    "shows another name than the one stored); pass the path as the file is named",
    "tag": "a tag is a short label shown beside the note; pass it without control or "
    "invisible characters",
    "metadata key": "a key is a name shown beside the note; rename it without control or "
    "invisible characters",
}


def check_name(label: str, value: str) -> None:
    """Refuse (:class:`~kenning.errors.UserInputError`) a ``source``, a tag or a metadata
    key that holds a character no name holds (:func:`hidden_character`), saying the field,
    the name (escaped, its secrets redacted), the character and how to give it."""
    hidden = hidden_character(value)
    if hidden is None:
        return
    from .redaction import redact_secrets  # an error message holds no secret

    raise UserInputError(
        f"{label} {shown_name(redact_secrets(value)[0])} holds "
        f"{hidden_character_said(hidden)}: {_NAME_FIX[label]}"
    )


def checked_metadata(value: Any) -> Any:
    """Metadata as a writer gave it, its keys checked as names (:func:`check_name`, at every
    depth) and its texts cleaned of controls as the content is (:func:`without_controls`).
    Anything else is returned as it is (the JSON encoding after it refuses what is no
    JSON)."""
    if isinstance(value, str):
        return without_controls(value)
    if isinstance(value, Mapping):
        for key in value:
            if isinstance(key, str):
                check_name("metadata key", key)
        return {k: checked_metadata(v) for k, v in value.items()}
    if isinstance(value, list):
        return [checked_metadata(v) for v in value]
    if isinstance(value, tuple):
        return tuple(checked_metadata(v) for v in value)
    return value


# --------------------------------------------------------------------------------------------
# Source paths
# --------------------------------------------------------------------------------------------


class UnsafePathError(UserInputError):
    """A ``source`` path that must not be read: it is malformed or leaves the project root."""

    def __init__(self, path: object, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"unsafe source path {quoted_path(path)}: {reason}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.path, self.reason), self.__dict__)  # (as UnknownMemoryError)


class BrokenSymlinkError(UnsafePathError):
    """A symlink on the path that points at nothing (its file, or a folder on the way to it,
    is not there) inside the project root: nothing can be read through it, as for a deleted
    file — seeding retires a broken symlink's entries as a deleted doc's, and the freshness
    check and ``kenning source`` call it missing (:func:`kenning.sources.check_source`). One
    that points out of the root is refused as a working one is (:class:`UnsafePathError`).
    ``link``: the symlink (the path's own file, or a folder on it) from the root; ``target``:
    what it points at, as written in it (None when it could not be read)."""

    def __init__(
        self, path: str, reason: str, *, link: str | None = None, target: str | None = None
    ) -> None:
        super().__init__(path, reason)
        self.link = link
        self.target = target


def _link_target(link: str) -> str | None:
    """What the symlink ``link`` points at, as written in it; None when it cannot be read."""
    try:
        return os.readlink(link)
    except OSError:
        return None


def quoted_path(path: object) -> str:
    """A source path as an error quotes it: its repr, cut to 120 characters."""
    shown = repr(path)
    return shown if len(shown) <= 120 else shown[:117] + "..."


_CONTROL = lazy(r"[\x00-\x1f\x7f-\x9f]")
_WINDOWS_DRIVE = lazy(r"^[A-Za-z]:")
_SEPARATORS = lazy(r"[/\\]")


#: Zero-width non-joiner and joiner: format characters that are part of how Persian,
#: Hindi and other scripts are spelt (and of emoji sequences), not a way to hide text.
_JOINERS = frozenset("\u200c\u200d")


def is_spelling_joiner(text: str, i: int) -> bool:
    """Whether ``text[i]`` is a joiner between letters of a script that spells with it (not
    between ASCII letters, where it would only make two names look alike)."""
    if text[i] not in _JOINERS:
        return False
    around = text[max(0, i - 1) : i] + text[i + 1 : i + 2]
    return any(not c.isascii() for c in around)


def lexical_reason(path: str) -> str | None:
    """Why ``path`` is refused before the file system is asked (see
    :func:`validate_source_path`), or None."""
    if not path or not path.strip():
        return "empty path"
    reason = _character_reason(path)
    if reason:
        return reason
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


def _character_reason(path: str) -> str | None:
    """Why the characters of ``path`` make it unsafe to show or to hand to a tool: a line
    break, NUL or other control character (a terminal obeys it), a lone surrogate, an
    invisible or reordering character (what is read is not what is shown)."""
    if "\n" in path or "\r" in path:
        return "contains a line break"
    if "\x00" in path:
        return "contains a NUL byte"
    if _CONTROL.search(path):
        return "contains a control character"
    if path.isascii():
        # no ASCII character is a surrogate, a format character or default-ignorable, and
        # the test of each character below ran on every file of every recalled note
        return None
    if any("\ud800" <= c <= "\udfff" for c in path):
        return "contains a lone surrogate"
    if any(
        (unicodedata.category(c) == "Cf" or _INVISIBLE.fullmatch(c) is not None)
        and not is_spelling_joiner(path, i)
        for i, c in enumerate(path)
    ):
        # a bidi override shows "docs/\u202egnp.md" as "docs/dm.png", a variation selector
        # "docs/setup.md\ufe0f" as docs/setup.md: what is read is not what is shown
        return "contains an invisible or reordering character"
    return None


def validate_source_path(path: str, project_root: Path | str) -> Path:
    """Return the resolved location of ``path`` inside ``project_root`` or raise.

    Rejected with :class:`UnsafePathError` (the ``reason`` attribute says which rule): an empty
    or blank path; a line break, NUL or other control character; a leading ``~``; an absolute
    path (POSIX ``/x``, Windows ``C:\\x``, ``C:x``, ``\\x``, UNC ``\\\\host\\share``); any
    ``..`` component (``/`` or ``\\`` separated); a path naming the root itself; a symlink
    component that is broken, loops, or resolves outside the root, or to a name with a
    character the path itself may not hold (a control or invisible character). Any ``OSError`` while
    checking (missing root, permission denied, ...) rejects the path: fail closed.

    Components after the first one that does not exist are appended lexically (they cannot
    be symlinks; ``..`` is already excluded), so a not-yet-existing file is accepted; the
    caller's read then fails normally. The check is a point-in-time check: a filesystem that
    changes between this call and the read can still race it.
    """
    if not isinstance(path, str):
        raise UnsafePathError(path, f"not a string ({type(path).__name__})")
    return Path(resolve_inside(path, project_root)[0])


def resolved_root(project_root: Path | str) -> str | None:
    """``project_root`` as :func:`resolve_inside` resolves it (its real path, a folder), or
    None where that would refuse it (each path is then refused for it, as before)."""
    try:
        root = os.path.realpath(os.fspath(project_root), strict=True)
    except (OSError, ValueError):
        return None
    return root if os.path.isdir(root) else None


def resolve_inside(path: str, project_root: Path | str, root: str | None = None) -> tuple[str, str]:
    """:func:`validate_source_path` on strings: ``(resolved path, resolved root)``.

    The same rules, with :mod:`os.path` instead of :class:`~pathlib.Path` (a freshness check
    runs this for every file the recalled memories name, on every recall). ``root``:
    :func:`resolved_root` of ``project_root``, for several paths checked at one time (it is
    a system call for each folder above it: ~6 of the ~9 a path's check made)."""
    reason = lexical_reason(path)
    if reason:
        raise UnsafePathError(path, reason)
    try:
        if root is None:
            root = os.path.realpath(os.fspath(project_root), strict=True)
            if not os.path.isdir(root):
                raise UnsafePathError(path, "project root is not a directory")
        parts = [p for p in path.split("/") if p not in ("", ".")]
        if not parts:
            raise UnsafePathError(path, "names the project root itself")
        current = root
        for index, part in enumerate(parts):
            candidate = os.path.join(current, part)
            try:
                st = os.lstat(candidate)
            except OSError as exc:
                if not names_nothing(exc):
                    raise
                current = os.path.join(candidate, *parts[index + 1 :])
                break
            is_dir = stat.S_ISDIR(st.st_mode)
            if stat.S_ISLNK(st.st_mode):
                try:
                    target = os.path.realpath(candidate, strict=True)
                except OSError as exc:
                    # (a loop, or a folder on the way this user may not search, is left for
                    # the caller to tell apart by the cause: kenning.sources.check_source)
                    if names_nothing(exc) or exc.errno == errno.ENOTDIR:
                        # to nothing (a file under a file, too): where would it lead?
                        if not _is_within(os.path.realpath(candidate), root):
                            raise UnsafePathError(
                                path, f"symlink {part!r} resolves outside the root"
                            ) from exc
                        raise BrokenSymlinkError(
                            path,
                            f"broken symlink {part!r}",
                            link="/".join(parts[: index + 1]),
                            target=_link_target(candidate),
                        ) from exc
                    raise UnsafePathError(path, f"broken or looping symlink {part!r}") from exc
                if not _is_within(target, root):
                    raise UnsafePathError(path, f"symlink {part!r} resolves outside the root")
                current = target
                is_dir = os.path.isdir(target)
            else:
                current = candidate
            if index < len(parts) - 1 and not is_dir:
                # 'file.md/x': a non-directory in the middle can never be read through.
                raise UnsafePathError(path, f"{part!r} is not a directory")
        if current == root or not _is_within(current, root):
            raise UnsafePathError(path, "resolves outside the project root")
        # a symlink leads to a name the path as written does not show: the same characters
        # are refused there (an escape sequence or a bidi override in the printed path)
        reason = _character_reason(current[len(root) :])
        if reason:
            raise UnsafePathError(path, f"leads to a name that {reason}")
        return current, root
    except UnsafePathError:
        raise
    except (OSError, ValueError) as exc:
        raise UnsafePathError(path, f"cannot be checked ({type(exc).__name__})") from exc


def names_nothing(exc: OSError) -> bool:
    """Whether ``exc`` says its path names no file: there is none, or the name is longer
    than a file's name can be (there can be none). A memory naming either is missing its
    document, not unsafe."""
    return exc.errno in (errno.ENOENT, errno.ENAMETOOLONG)


def _is_within(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or below it, component by component (both resolved)."""
    if path == root:
        return True
    prefix = root if root.endswith(os.sep) else root + os.sep
    return path.startswith(prefix)


def is_safe_source_path(path: str, project_root: Path | str) -> bool:
    """``True`` when :func:`validate_source_path` accepts ``path``; never raises."""
    try:
        validate_source_path(path, project_root)
    except UnsafePathError:
        return False
    return True
