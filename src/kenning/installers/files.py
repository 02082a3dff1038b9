"""Safe edits of agents' configuration files, shared by every installer.

An installer reads each file it will touch, plans the new text (nothing is written while
planning), and then applies the whole plan. The rules every installer follows:

* **inside its root**: a file is named relative to a root — the project folder, or a user
  configuration folder the agent defines (``~``, ``$CLAUDE_CONFIG_DIR``, ``$CODEX_HOME``) —
  and :func:`locate` refuses a path whose file, or any folder between the root and the
  file, is a symlink (a write would land wherever the link points) or is not what it
  should be (a file where a folder belongs). The refusal names the path and how to fix it;
* **merge, never clobber**: the file's other content is kept; a file that cannot be parsed
  is an error and nothing at all is written, and so is a JSON object with a key written
  twice (JSON readers keep the last copy: the rewrite would lose the first);
* **read-only stays read-only**: a file the user made read-only (``chmod 444``) or cannot
  write is refused before anything is written (:func:`apply_changes`), though renaming a
  new file over it would work; so is a file with a second name (a hard link), which the
  rename would cut;
* **atomic, all or none**: a temporary file in the same folder, fsynced, then renamed over
  the old one (the file's mode and owner are kept; a new file gets the mode the agent would
  give it, and when root makes it, the owner of its folder);
  every file of an install is staged so before the first rename, and a failure puts back
  what was already replaced (:func:`apply_changes`);
* **one at a time**: an install holds a lock on the folders it edits from reading to
  writing (:func:`locked`), so two installs at once never lose each other's entries;
* **reversible**: uninstalling removes only kenning's entries; a file left empty is deleted,
  and so is the project sub-folder it was in when nothing else is left there (each
  installer says which of the containers it leaves empty go too), but for what held an
  empty object or array before the install (a file's ``{}``, an ``"mcpServers": { }``):
  that is given back as it was, as the install keeps a blank line after its ``{`` to know
  it by (:func:`json_change`);
* **layout kept**: what an install leaves as it was in a JSON file keeps its text (a short
  array or object on one line, as Prettier writes it; a number's spelling, ``1e3`` or
  ``-0``; a key's escapes, ``"v\\/1"``, and the spacing around and between the members,
  two on one line, also in an object it adds to), and what it changes is laid out as the
  file is (on one line or indented by N spaces or a tab, its spacing around ``:``, its
  non-ASCII text escaped or not, a final newline or none), so the diff is kenning's entries
  alone and an uninstall gives back the bytes the install started from;
* **byte order mark kept**: a JSON file that starts with one keeps it;
* **line endings kept**: a file is read as it is (CRLF stays CRLF), and a file whose lines
  all end with CRLF gets kenning's new lines with CRLF too (:func:`line_ending`), so an
  uninstall gives back the bytes the install started from;
* **no credentials in a diff**: a dry run's diffs go through kenning's secret redaction.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import os
import re
import secrets
import stat
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import UserInputError, json_error_said
from ..redaction import redact_secrets

__all__ = [
    "BOM",
    "FileChange",
    "InstallResult",
    "apply_changes",
    "dry_run_notes",
    "json_change",
    "line_ending",
    "locate",
    "locked",
    "read_json_object",
    "read_text",
    "render_json",
    "shape_error",
    "text_change",
]


@dataclass(frozen=True)
class FileChange:
    """One file's planned change. ``None`` text means "the file does not exist".

    ``prune_parent``: after removing the file, also remove its folder when it is empty (a
    project sub-folder such as ``.claude/`` that the install created)."""

    path: Path
    label: str
    before: str | None
    after: str | None
    prune_parent: bool = False
    private: bool = False  # a new file is created 0600 (it may hold personal settings)

    @property
    def changed(self) -> bool:
        return self.before != self.after

    @property
    def status(self) -> str:
        if not self.changed:
            return "unchanged"
        if self.before is None:
            return "created"
        if self.after is None:
            return "removed"
        return "updated"

    def diff(self) -> str:
        """A unified diff (``a/<label>`` → ``b/<label>``; ``/dev/null`` for a missing side).

        Configuration files hold credentials next to the lines that change (``~/.claude.json``
        keeps an API key when you log in with one; another MCP server's ``env`` in
        ``config.toml`` or ``mcp.json`` carries its token), and the diff shows those lines as
        context or as a re-rendered file: every diff goes through kenning's secret
        redaction, so a dry run (and ``--json``) never prints them."""
        if not self.changed:
            return ""
        lines = difflib.unified_diff(
            (self.before or "").splitlines(keepends=True),
            (self.after or "").splitlines(keepends=True),
            fromfile="/dev/null" if self.before is None else f"a/{self.label}",
            tofile="/dev/null" if self.after is None else f"b/{self.label}",
        )
        text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
        return redact_secrets(text)[0]


@dataclass(frozen=True)
class InstallResult:
    """What an install or uninstall planned (and, unless it was a dry run, did).

    ``notes`` are things the user should know (another registration that would run twice,
    a file to keep out of git, a trust step the agent asks for); they never mean failure."""

    agent: str
    scope: str
    uninstall: bool
    changes: list[FileChange]
    notes: list[str] = field(default_factory=list)


def shape_error(label: str, where: str, expected: str) -> UserInputError:
    return UserInputError(
        f"{label}: {where} is not {expected}, so kenning cannot merge its entries safely; fix "
        "the file — nothing was written"
    )


def locate(root: Path, relative: str, label: str, dry_run: list[str] | None = None) -> Path:
    """``root / relative``, refusing symlinks and non-folders below ``root``.

    ``root`` itself may be reached through symlinks (it is the folder the user named); every
    component after it must be a real folder, and the file itself must be a regular file or
    missing. A dry run (``dry_run``: its notes) reads through a symlink instead, and notes
    that the run will refuse it: its diff is the change to make in the link's target by
    hand, which the refusal asks for."""
    parts = Path(relative).parts
    current = root
    for index, part in enumerate(parts):
        current = current / part
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            return root.joinpath(*parts)
        except OSError as exc:
            raise UserInputError(f"cannot check {label}: {exc} — nothing was written") from None
        last = index == len(parts) - 1
        if stat.S_ISLNK(st.st_mode):
            shown = label if last else str(current)
            target = os.readlink(current)
            # where the change would land: another file (AGENTS.md -> CLAUDE.md, a common
            # pair), or a place outside the folder the install reports on
            lands = (
                f"in {target}, which the install does not report on"
                if os.sep not in target and (os.altsep is None or os.altsep not in target)
                else "outside the folder it reports"
            )
            refusal = (
                f"{shown} is a symlink (to {target}); kenning does not write through "
                f"symlinks, because the change would land {lands}. Replace the link by a real "
                f"{'file' if last else 'folder'} (or make the change in its target by hand) "
                "and run again"
            )
            if dry_run is None:
                raise UserInputError(f"{refusal} — nothing was written")
            dry_run.append(f"{refusal}; the run will refuse it (the diff is the change)")
            try:
                st = os.stat(current)
            except OSError:  # a dangling link: as a missing file
                return root.joinpath(*parts)
        if not last and not stat.S_ISDIR(st.st_mode):
            raise UserInputError(f"{current} is not a folder — nothing was written")
        if last and not stat.S_ISREG(st.st_mode):
            raise UserInputError(f"{label} is not a regular file — nothing was written")
    return current


def read_text(path: Path, label: str) -> str | None:
    """The file's text as it is (line endings untranslated), or ``None`` when it does not
    exist."""
    if not path.exists():
        return None
    try:
        return path.read_bytes().decode("utf-8")  # bytes as they are: no newline translation
    except UnicodeDecodeError as exc:
        utf16 = exc.object[:2] in (b"\xff\xfe", b"\xfe\xff")  # Windows PowerShell's `>`
        raise UserInputError(
            f"{label} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
            f"{exc.start}{': it is UTF-16' if utf16 else ''}); save it as UTF-8 (your editor's "
            "encoding setting) and run again — nothing was written"
        ) from None
    except OSError as exc:
        raise UserInputError(f"cannot read {label}: {exc} — nothing was written") from None


def line_ending(text: str | None) -> str:
    """The line ending for kenning's new lines in ``text``: ``"\\r\\n"`` when every line of
    it ends so (a file written on Windows), else ``"\\n"``. A file that mixes both keeps its
    bytes as they are; only kenning's lines end with LF."""
    if text and "\r\n" in text and text.count("\n") == text.count("\r\n"):
        return "\r\n"
    return "\n"


def read_json_object(path: Path, label: str) -> tuple[str | None, dict[str, Any]]:
    """``(text, object)``; a missing or blank file is ``{}``; anything else that is not a
    JSON object is an error naming the line."""
    text = read_text(path, label)
    if text is None or not text.removeprefix(BOM).strip():
        return text, {}
    body = text.removeprefix(BOM)
    try:
        doc = _DECODER.decode(body)
    except json.JSONDecodeError as exc:
        raise UserInputError(
            f"{label} is not valid JSON ({json_error_said(exc, with_line=True)}); "
            "fix or remove it and run again — nothing was written"
        ) from None
    except _RepeatedKey:
        found = _repeated_key(body)
        where = (
            f'the key "{found[0]}" twice (line {found[1]} column {found[2]}, and line '
            f"{found[3]} before it)"
            if found
            else "a key twice in one object"
        )
        raise UserInputError(
            f"{label} has {where}; JSON readers keep only the last, so kenning's rewrite would "
            "lose the first: keep one of them (with what both hold) and run again — nothing "
            "was written"
        ) from None
    if not isinstance(doc, dict):
        raise shape_error(label, "the top level", "a JSON object")
    return text, doc


class _RepeatedKey(Exception):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's pairs as a dict, refusing a key written twice: JSON readers (Python's,
    Claude Code's) keep the last one, so a rewrite silently dropped the first, which the
    user may not know is there."""
    doc = dict(pairs)
    if len(doc) != len(pairs):
        raise _RepeatedKey
    return doc


#: A JSON token: a string, a punctuation mark, or a bare literal (number, true, null, …).
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+')


def _repeated_key(text: str) -> tuple[str, int, int, int] | None:
    """Where the first key written twice in one object of ``text`` is: ``(its path, line,
    column, line of the first)``. Only called on a file found to hold one, so the rescan
    costs nothing otherwise."""
    # each open container: (keys seen → their line, or None for an array; its name; the
    # number of the array's current element)
    open_: list[tuple[dict[str, int] | None, str, list[int]]] = []
    expect_key = False
    name = ""
    line, scanned = 1, 0
    for m in _TOKEN.finditer(text):
        token = m.group()
        if token in ("{", "["):
            parent = open_[-1] if open_ else None
            if parent is not None and parent[0] is None:
                name = f"{parent[1]}[{parent[2][0]}]"
            elif parent is not None:
                name = f"{parent[1]}.{name}" if parent[1] else name
            open_.append(({} if token == "{" else None, name, [0]))
            expect_key = token == "{"
        elif token in ("}", "]"):
            if open_:
                open_.pop()
            expect_key = False
        elif token == ",":
            if open_ and open_[-1][0] is None:
                open_[-1][2][0] += 1
            expect_key = bool(open_) and open_[-1][0] is not None
        elif expect_key and token.startswith('"'):
            seen = open_[-1][0]
            assert seen is not None
            line += text.count("\n", scanned, m.start())
            scanned = m.start()
            try:
                key = json.loads(token)
            except ValueError:
                return None
            if key in seen:
                path = f"{open_[-1][1]}.{key}" if open_[-1][1] else key
                return path, line, m.start() - text.rfind("\n", 0, m.start()), seen[key]
            seen[key] = line
            name = key
            expect_key = False
    return None


class _Number(float):
    """A JSON number with a fraction or an exponent, as the file spells it: users diff these
    files, and Python would write ``1e3`` back as ``1000.0`` and ``2.50`` as ``2.5``. It is
    a float to the planners (a hook's ``timeout`` compares as one); :func:`render_json`
    writes its spelling. A number beyond a double's range (``1e400``) is valid JSON that
    Python reads as ``inf`` and would write back as ``Infinity``, which is not JSON: every
    JavaScript client (Claude Code, Cursor) would then fail to read the whole file."""

    literal: str

    def __new__(cls, literal: str) -> _Number:
        number = super().__new__(cls, literal)
        number.literal = literal
        return number

    def __deepcopy__(self, memo: object) -> _Number:
        return self  # immutable; deepcopy would otherwise pickle it


#: Reads a configuration file: its numbers as spelled, a key written twice refused.
_DECODER = json.JSONDecoder(parse_float=_Number, object_pairs_hook=_unique_keys)
#: Reads it again to lay a rewrite out (it was read by :data:`_DECODER`: no key twice).
_REREAD = json.JSONDecoder(parse_float=_Number)


#: A :class:`_Number` is handed to ``json.dumps`` as this marker around its own text (the
#: nonce keeps any string of the user's from reading as one) and written back as that text.
_NUMBER_MARK = f"\0kenning-number-{secrets.token_hex(8)}:"
_NUMBER_IN_JSON = re.compile(re.escape(json.dumps(_NUMBER_MARK)[:-1]) + r'([-+.0-9eE]+)"')
#: A lone UTF-16 surrogate (text cut in the middle of an emoji: JavaScript's JSON.stringify
#: writes it as an escape) cannot be written as UTF-8: it is written back as its escape.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _marked(value: Any) -> Any:
    """``value`` with each :class:`_Number` replaced by its marked spelling."""
    if isinstance(value, _Number):
        return _NUMBER_MARK + value.literal
    if isinstance(value, dict):
        return {key: _marked(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_marked(item) for item in value]
    return value


@dataclass(frozen=True)
class _Layout:
    """How a JSON file is laid out, so a rewrite keeps it: users diff these files, and a
    one-line file (JSON.stringify's default) or Python's escaped non-ASCII came back
    re-indented and unescaped, a diff of the whole file that an uninstall did not undo."""

    indent: str | int | None = 2
    separators: tuple[str, str] = (",", ": ")
    ensure_ascii: bool = False
    pad: str = ""  # inside an object's braces on one line (Prettier's `{ "a": 1 }`)


_FIRST_KEY = re.compile(r'\s*\{\s*"(?:[^"\\]|\\.)*"([ \t]*:[ \t]*)')
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")


def _layout_of(text: str | None) -> _Layout:
    """The layout of ``text`` (kenning's for a new or empty file): the indentation (none,
    N spaces or a tab), the spacing around ``:`` and ``,``, whether non-ASCII text is
    escaped. What is around the top-level object (a final newline or none) stays as it is."""
    body = (text or "").removeprefix(BOM)
    key = _FIRST_KEY.match(body)
    if key is None:  # empty, or `{}`: nothing says how the user lays a file out
        return _Layout()
    colon = key.group(1)
    indent: str | int | None = None
    comma = ", " if colon.endswith(" ") else ","
    if "\n" in body.strip():
        comma = ","  # json.dumps puts the line break after it
        m = re.search(r"\n([ \t]*)\S", body)
        ws = m.group(1) if m else ""
        indent = "\t" if ws.startswith("\t") else len(ws)
    escaped = body.isascii() and any(int(m.group(1), 16) > 0x7F for m in _ESCAPE.finditer(body))
    return _Layout(indent, (comma, colon), escaped)


#: A UTF-8 byte order mark, with which Windows editors start a file. JSON parsers skip it
#: (Claude Code's too); a rewrite keeps it, so an uninstall gives back the same bytes.
BOM = "\ufeff"


def render_json(doc: dict[str, Any], before: str | None, read: Any = None) -> str:
    """``doc`` as JSON laid out as ``before`` is (:class:`_Layout`), with its byte order mark
    and its line ending; what ``doc`` holds as ``before`` did keeps its text there (a short
    array Prettier put on one line, a number's spelling), so the diff is kenning's change
    alone and an uninstall gives back the bytes the install started from. ``read``: what
    ``before`` holds, when the caller has read it already."""
    layout = _layout_of(before)
    body = (before or "").removeprefix(BOM)
    crlf = line_ending(before) == "\r\n"
    source = body.replace("\r\n", "\n") if crlf else body
    start = len(source) - len(source.lstrip())
    old = None
    if source.strip():
        end = len(source.rstrip())
        old = (_REREAD.decode(source) if read is None else read, start, end)
    text = _render(doc, old, source, layout, 0)
    # what is around the object (a final newline or none) stays; a blank file has nothing
    text = source[:start] + text + source[old[2] :] if old is not None else text + "\n"
    text = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    text = _NUMBER_IN_JSON.sub(lambda m: m.group(1), text)
    if json.loads(text) != doc:  # never a broken config: kenning's own layout instead
        text = json.dumps(_marked(doc), indent=2, ensure_ascii=False) + "\n"
        text = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
        text = _NUMBER_IN_JSON.sub(lambda m: m.group(1), text)
    if before and before.startswith(BOM):
        text = BOM + text
    # a newline inside a string is written escaped, so each "\n" here ends a line
    return text.replace("\n", "\r\n") if crlf else text


def _empty_object_held(head: str) -> str | None:
    """What was between the brackets of the empty object or array an install filled, from
    ``head``, the text between its opening bracket and its first member; ``None`` when it
    has no such record (kenning made it, or it held more than that).

    An install that fills an empty container of the user's (a file's ``{}``, an
    ``"mcpServers": {}``, a ``"SessionStart": []``) keeps what was between its brackets
    and a blank line before kenning's entries: without that record kenning cannot tell it
    from a container it made itself, whose text it has (a file that held ``{}`` got the
    very text of a file kenning creates), and an uninstall removed both. It gives the user's
    back as it was (:func:`_render`, :func:`json_change`)."""
    before_line = head[: head.rfind("\n")] if "\n" in head else ""
    return before_line[:-1] if before_line.endswith("\n") else None


def _head_of(source: str, span: _Span) -> str:
    """The white space after the opening bracket of the container at ``span``."""
    opened = source[span[1] + 1 : span[2]]
    return opened[: len(opened) - len(opened.lstrip())]


#: An old value and where its text is in the file: ``(value, start, end)``.
_Span = tuple[Any, int, int]
_SPACE = re.compile(r"[ \t\n\r]*")


def _render(new: Any, old: _Span | None, source: str, layout: _Layout, depth: int) -> str:
    """``new``'s JSON text at ``depth``: the file's own text where ``new`` is what ``old``
    was, else laid out as the file is, with what it holds rendered the same way; a member
    the file has keeps its key's text and what is around it (before the first, between two
    it keeps side by side, after the last), so only what the install adds is laid out."""
    if old is not None and _same(new, old[0]):
        return source[old[1] : old[2]]
    if old is not None and old[0] and not new and type(new) is type(old[0]):
        held = _empty_object_held(_head_of(source, old))
        if held is not None:  # an empty one of the user's that the install filled, as it was
            return source[old[1]] + held + source[old[2] - 1]
    if not isinstance(new, (dict, list)) or not new:
        return json.dumps(_marked(new), ensure_ascii=layout.ensure_ascii)
    members = _members(source, old) if old is not None else []
    text = source[old[1] : old[2]] if old is not None else ""
    if members and layout.indent is not None and "\n" not in text:
        # a container the file has on one line (as Prettier writes a short one) stays so
        comma = ", " if re.search(r",[ \t]", text) else ","
        pad = (" " if text[1:2] == " " else "") if isinstance(new, dict) else layout.pad
        layout = _Layout(None, (comma, layout.separators[1]), layout.ensure_ascii, pad)
    # each part: its text and the place of the member it was in the file (None: new)
    parts: list[tuple[str, int | None]] = []
    if isinstance(new, dict):
        places = {member.key: place for place, member in enumerate(members)}
        for key, value in new.items():
            place = places.get(key)
            if place is None:
                rendered = _render(value, None, source, layout, depth + 1)
                name = json.dumps(key, ensure_ascii=layout.ensure_ascii)
                parts.append((name + layout.separators[1] + rendered, None))
                continue
            member = members[place]
            rendered = _render(value, member.value, source, layout, depth + 1)
            # a key the file has keeps its spelling ("a\/b", "\u00e9") and its ":"
            parts.append((source[member.start : member.value[1]] + rendered, place))
    else:
        unused = list(enumerate(members))
        for index, value in enumerate(new):
            # an element the install left as it was, where it was or after one it removed
            found = next((i for i, m in unused if _same(value, m.value[0])), None)
            if found is None and any(i == index for i, _ in unused):
                found = index  # one the install changed (kenning's, updated) where it was
            if found is not None:
                unused = [(i, m) for i, m in unused if i > found]
            span = members[found].value if found is not None else None
            parts.append((_render(value, span, source, layout, depth + 1), found))
    opening, closing = "{}" if isinstance(new, dict) else "[]"
    if layout.indent is None:
        pad = layout.pad if isinstance(new, dict) else ""
        between, head, tail = layout.separators[0], pad, pad
    else:
        unit = layout.indent if isinstance(layout.indent, str) else " " * layout.indent
        inner = "\n" + unit * (depth + 1)
        between, head, tail = layout.separators[0] + inner, inner, "\n" + unit * depth
    if old is not None and members:  # what the file has inside its brackets around them
        head = source[old[1] + 1 : members[0].start]
        tail = source[members[-1].value[2] : old[2] - 1]
    elif old is not None and type(new) is type(old[0]) and layout.indent is not None:
        head = source[old[1] + 1 : old[2] - 1] + "\n" + head  # filling the user's empty one
    # what the file has between two members it keeps side by side stays (two on one line)
    out = [opening, head]
    previous: int | None = None
    for index, (part, place) in enumerate(parts):
        if place is not None and previous is not None and place == previous + 1:
            out.append(source[members[previous].value[2] : members[place].start])
        elif index:
            out.append(between)
        out.append(part)
        previous = place
    out.append(tail)
    return "".join(out) + closing


@dataclass(frozen=True)
class _Member:
    """A member of an object or array in the file: its key (its index, in an array), where
    its text starts (its key's, in an object) and its value's span."""

    key: Any
    start: int
    value: _Span


def _members(source: str, old: _Span) -> list[_Member]:
    """The members of the object or array ``old``, in the file's order; none when ``old``
    is neither."""
    value, pos, _ = old
    found: list[_Member] = []
    if not isinstance(value, (dict, list)):
        return found
    pos += 1
    for index in range(len(value)):
        pos = start = _skip_space(source, pos)
        key: Any = index
        if isinstance(value, dict):
            key, pos = _REREAD.raw_decode(source, pos)
            pos = _skip_space(source, _skip_space(source, pos) + 1)  # past the ":"
        member, end = _REREAD.raw_decode(source, pos)
        found.append(_Member(key, start, (member, pos, end)))
        pos = _skip_space(source, end) + 1  # past the "," (or the closing bracket)
    return found


def _skip_space(source: str, pos: int) -> int:
    found = _SPACE.match(source, pos)
    return found.end() if found else pos


def _same(a: Any, b: Any) -> bool:
    """Equal and of one type (``1`` is not ``true``); ``==`` compares in C, so a large
    ``~/.claude.json`` costs little (what is equal and written otherwise, ``1.0`` for ``1``,
    is the same JSON to its readers)."""
    return type(a) is type(b) and bool(a == b)


def json_change(
    path: Path,
    label: str,
    before: str | None,
    old: dict[str, Any],
    new: dict[str, Any],
    *,
    prune_parent: bool = False,
    private: bool = False,
) -> FileChange:
    """The change from ``old`` to ``new``: unchanged bytes when equal, removal when only
    ``{}`` would be left — of a file kenning created, not of one that held ``{}`` before the
    install; the empty containers of the user's that the plan removed with kenning's entries
    in them are put back (:func:`_with_held`).

    Nothing is recorded elsewhere, so the file itself tells them apart: the install never
    gives an empty object or array of the user's the text of one it makes (it keeps a blank
    line after the ``{`` or ``[``, :func:`_empty_object_held`), and the uninstall gives it
    back as it was (``{}``, ``{ }``, ``[ ]``). A blank file is ``{}`` to the install, which
    writes there what it would create: the uninstall deletes it. So it does a file that
    held kenning's entries alone (``claude mcp add`` wrote it), one whose blank lines an
    editor's reformatting took away, which kenning can no longer tell from its own; and an
    empty container in one the file has on one line (a one-line file, Prettier's short
    ``{ … }``), which has no line to spare for the record, goes by the installer's rule: for
    the agents a missing file or key and an empty one are the same."""
    body = (before or "").removeprefix(BOM).replace("\r\n", "\n")
    span = (old, len(body) - len(body.lstrip()), len(body.rstrip())) if body.strip() else None
    if span is not None:
        new = _with_held(new, span, body)
    if new == old:
        return FileChange(path, label, before, before, prune_parent, private)
    if not new and (span is None or _empty_object_held(_head_of(body, span)) is None):
        return FileChange(path, label, before, None, prune_parent, private)
    return FileChange(path, label, before, render_json(new, before, old), prune_parent, private)


def _with_held(new: Any, old: _Span, source: str) -> Any:
    """``new`` with the empty containers of the user's that an install filled and the plan
    removed with kenning's entries (it cannot tell them from its own) put back where they
    were, empty, and the objects holding them (:func:`_empty_object_held`)."""
    if not _removes(new, old[0]):  # an install: no text to read (~/.claude.json is large)
        return new
    kept: dict[str, Any] = {}
    for member in _members(source, old):
        if member.key in new:  # only what the plan changed can have lost one
            value = new[member.key]
            same = _same(value, member.value[0])
            kept[member.key] = value if same else _with_held(value, member.value, source)
        elif (held := _held(member.value, source)) is not None:
            kept[member.key] = held
    return {**kept, **{key: value for key, value in new.items() if key not in kept}}


def _removes(new: Any, old: Any) -> bool:
    """Did the plan take a key out of an object of ``old`` to make ``new``?"""
    if not isinstance(new, dict) or not isinstance(old, dict):
        return False
    return any(
        key not in new or (not _same(new[key], value) and _removes(new[key], value))
        for key, value in old.items()
    )


def _held(old: _Span, source: str) -> Any:
    """What of the container at ``old``, which the plan removed, the user had before the
    install: itself empty when the install filled it, else the objects in it that hold one;
    ``None`` when nothing."""
    value = old[0]
    if not isinstance(value, (dict, list)) or not value:
        return None
    if _empty_object_held(_head_of(source, old)) is not None:
        return type(value)()
    if isinstance(value, list):
        return None
    found = {m.key: h for m in _members(source, old) if (h := _held(m.value, source)) is not None}
    return found or None


def text_change(
    path: Path, label: str, before: str | None, after: str | None, *, prune_parent: bool = False
) -> FileChange:
    """A text file's change; an ``after`` of only whitespace removes the file."""
    if after is not None and not after.strip():
        after = None
    return FileChange(path, label, before, after, prune_parent)


def _stage(path: Path, text: str, private: bool, made: list[Path]) -> str:
    """Write ``text`` to a new temporary file beside ``path``, fsynced and with the mode
    ``path`` has (or a new file should get), and return its name. Folders it had to create
    are appended to ``made``."""
    if path.is_symlink():  # created since it was checked: still never write through it
        raise UserInputError(f"{path} became a symlink — nothing was written")
    missing = []
    folder = path.parent
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for folder in reversed(missing):
        folder.mkdir()
        made.append(folder)
        _give_to_owner_of(folder, folder.parent)
    if path.exists():
        mode = path.stat().st_mode & 0o7777
    elif private:
        mode = 0o600
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        _give_to_owner_of(Path(tmp), path if path.exists() else path.parent)
        os.chmod(tmp, mode)  # after chown, which clears set-id bits
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


@contextlib.contextmanager
def locked(*folders: Path) -> Iterator[None]:
    """Hold an exclusive lock on each folder (the nearest one that exists) while an install
    reads, plans and writes its files there: two installs at once (one per project, by a
    setup script) each read ``~/.claude.json``, added their project and wrote it back, and
    the later write lost the earlier one's registration. ``flock`` on the folder itself, so
    no lock file is left behind; advisory (only kenning takes it), and a no-op where there is
    no ``fcntl``."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    held: list[int] = []
    try:
        for folder in sorted({_existing(Path(f)) for f in folders}):
            try:
                fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
            except OSError:
                continue  # not ours to lock: the install reports what it cannot do
            held.append(fd)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except OSError:  # a file system without locks (some network ones): go on unlocked
                continue
        yield
    finally:
        for fd in reversed(held):
            os.close(fd)  # closing releases the lock


def _existing(folder: Path) -> Path:
    folder = Path(os.path.abspath(folder))
    while not folder.is_dir() and folder.parent != folder:
        folder = folder.parent
    return folder


def _refusal(change: FileChange) -> tuple[str, str] | None:
    """``(what is wrong, how to fix it)`` for a file the change would replace or delete but
    must not, else ``None``.

    kenning replaces a file by renaming a new one over it, which the folder's permissions
    allow whatever the file's own say (and root may write anything): without this check a
    ``chmod 444`` settings file, the user's way of saying "leave it as it is", was rewritten
    all the same. And the rename gives the path a new file: a second name of the old one (a
    hard link in a dotfiles folder) kept the old text and was no longer the same file."""
    if not change.changed:
        return None
    try:
        st = change.path.stat()
    except FileNotFoundError:
        return None
    where = f"{change.label} ({change.path})"
    writable = f"make it writable (chmod u+w {change.path})"
    if not st.st_mode & 0o222:
        return f"{where} is read-only (mode {st.st_mode & 0o777:04o})", writable
    if not os.access(change.path, os.W_OK):
        return f"{where} is not writable by you", writable
    if st.st_nlink > 1:
        return (
            f"{where} has {st.st_nlink} hard links, which kenning's atomic rewrite would cut "
            "(the other names would keep the old text)",
            "keep one name (the other a symlink to it, or a copy)",
        )
    return None


def dry_run_notes(changes: Sequence[FileChange]) -> list[str]:
    """What the run a dry run previews would refuse: the diff alone would promise a change."""
    return [
        f"{found[0]}: the run will refuse it and write nothing — {found[1]}, or make this "
        "change by hand"
        for change in changes
        if (found := _refusal(change))
    ]


def _give_to_owner_of(made: Path, model: Path) -> None:
    """Run as root (``sudo kenning install``, a container on a mounted checkout), give what
    kenning ``made`` the owner and group of ``model`` (the file it replaces, else the folder
    it is in): the user's files had become root's, and a ``~/.claude.json`` (0600) was then
    unreadable to the user's own Claude Code."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return  # others cannot give a file away: what they make is theirs
    st = model.stat()
    if (st.st_uid, st.st_gid) != (0, 0):
        # best effort: where root may not give files away (NFS's root_squash), what it
        # makes is as it was before
        with contextlib.suppress(OSError):
            os.chown(made, st.st_uid, st.st_gid)


def apply_changes(changes: Sequence[FileChange]) -> None:
    """Write every changed file, or none of them.

    An install changes two files (Claude Code's MCP file and its settings; Codex's config
    and ``AGENTS.md``): when the second failed (a full disk, a quota) the first stayed
    written, half an install, and the message named neither. So every new text is first
    written to a temporary file beside its target, and only when all of them are there are
    they renamed over their targets; a rename failing after that puts back the files already
    replaced. The error names the file that failed and says what was left."""
    pending = [change for change in changes if change.changed]
    for change in pending:  # a refusal writes nothing
        found = _refusal(change)
        if found:
            raise UserInputError(
                f"{found[0]}, so kenning leaves it alone: {found[1]} and run again, or make "
                "kenning's change by hand (--dry-run prints it) — nothing was written"
            )
    staged: list[tuple[FileChange, str | None]] = []
    made: list[Path] = []
    try:
        for change in pending:
            tmp = None
            if change.after is not None:
                tmp = _stage(change.path, change.after, change.private, made)
            staged.append((change, tmp))
    except BaseException as exc:
        _discard([tmp for _, tmp in staged], made)
        if isinstance(exc, OSError):
            raise _failed(change, exc, "nothing was written") from None
        raise
    # An agent that is running rewrites its own config (Claude Code: ~/.claude.json): a
    # write of its since kenning read the file would be lost, and kenning's plan was made
    # on the old text
    for change, _ in staged:
        if _unchanged_since_read(change):
            continue
        _discard([tmp for _, tmp in staged], made)
        raise UserInputError(
            f"{change.label} ({change.path}) changed since kenning read it (another program "
            "wrote it: an agent that is running rewrites its own config); run the command "
            "again, with the agent closed if this repeats — nothing was written"
        )
    done: list[FileChange] = []
    try:
        for change, tmp in staged:
            if tmp is None:
                change.path.unlink()
                parent = change.path.parent
                if change.prune_parent and not any(parent.iterdir()):
                    with contextlib.suppress(OSError):  # an emptied folder left is harmless
                        parent.rmdir()
            else:
                os.replace(tmp, change.path)  # replaces a link itself, never its target
            done.append(change)
    except BaseException as exc:
        _discard([tmp for _, tmp in staged[len(done) :]], [])
        left = _put_back(done, made)
        if not isinstance(exc, OSError):
            raise
        if not done:
            raise _failed(change, exc, "nothing was written") from None
        names = ", ".join(c.label for c in done)
        if left is None:
            raise _failed(
                change, exc, f"{names} {_was(done)} put back as it was — nothing was changed"
            ) from None
        raise _failed(
            change,
            exc,
            f"{names} {_was(done)} already written and could not be put back ({left}): run "
            "the same command again once the problem is fixed",
        ) from None


def _unchanged_since_read(change: FileChange) -> bool:
    try:
        with change.path.open(encoding="utf-8", newline="") as fh:
            return fh.read() == change.before
    except FileNotFoundError:
        return change.before is None
    except (OSError, UnicodeDecodeError):
        return False


def _was(changes: Sequence[FileChange]) -> str:
    return "was" if len(changes) == 1 else "were"


def _failed(change: FileChange, exc: OSError, outcome: str) -> UserInputError:
    return UserInputError(
        f"cannot write {change.label} ({change.path}): {exc.strerror or exc} — {outcome}"
    )


def _discard(tmps: Sequence[str | None], made: Sequence[Path]) -> None:
    for tmp in tmps:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    for folder in reversed(made):
        with contextlib.suppress(OSError):  # not empty: something else is in it now
            folder.rmdir()


def _put_back(done: Sequence[FileChange], made: list[Path]) -> str | None:
    """Give the files in ``done`` their text from before; ``None``, or what failed."""
    failed = None
    for change in reversed(done):
        try:
            if change.before is None:
                change.path.unlink()
            else:
                os.replace(_stage(change.path, change.before, change.private, []), change.path)
        except OSError as exc:
            failed = f"{change.label}: {exc.strerror or exc}"
    if failed is None:
        _discard([], made)
    return failed
