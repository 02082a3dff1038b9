"""Solution documents → ERROR-FIX entries (what ``kenning seed-solutions`` reads).

A solution document is a markdown file with YAML frontmatter (``track``, ``problem``…)
that explains how a bug was fixed. :func:`discover_solution_docs` finds them (every
``*/*.md`` one folder below the root, never under ``/archived/``) and
:func:`parse_solution_doc` turns one into entries, or says why it was skipped. Document
text is untrusted: fence-like lines are stripped and nothing in it is followed.
"""

from __future__ import annotations

import bisect
import errno
import os
import re
import shlex
import stat
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from .errorfix import FIX_MAX_CHARS, SIGNATURE_MAX_CHARS, SUMMARY_MAX_CHARS, ErrorFixEntry, one_line
from .errors import UserInputError
from .fingerprints import error_fingerprint
from .lazyre import lazy
from .log_formats import ANSI
from .signatures import LOCATION_PREFIX, clean_line, line_score, signatures_of
from .truncation import cut_at_word_boundary

__all__ = [
    "MAX_SIGNATURES_PER_DOC",
    "DocOutcome",
    "discover_solution_docs",
    "markdown_heading",
    "parse_solution_doc",
    "scan_solution_docs",
    "unreadable_folder",
]

#: At most this many distinct signatures are taken from one solution document.
MAX_SIGNATURES_PER_DOC = 3


@dataclass(frozen=True)
class DocOutcome:
    """What one solution document yields: entries, or the reason it was skipped."""

    path: Path
    entries: tuple[ErrorFixEntry, ...] = ()
    #: For each entry, what was redacted from it here (kind → count): the write path, which
    #: redacts it again, finds nothing more to say of it.
    redactions: tuple[dict[str, int], ...] = ()
    skipped_reason: str | None = None
    #: True when the frontmatter parsed and its ``track`` is not ``bug`` (or is missing):
    #: the document is not (or no longer) a bug fix, so its entries are retired.
    not_a_bug: bool = False

    @property
    def skipped(self) -> bool:
        return self.skipped_reason is not None


def unreadable_folder(what: str, path: str | Path, exc: OSError) -> UserInputError:
    """The error for a folder of solution docs this user may not list (chmod 000, a checkout
    copied as another user), ``what`` naming it, with the ``chmod`` that lets it be read."""
    return UserInputError(
        f"{what} cannot be read ({exc.strerror}); let this user list and read it (as its "
        f"owner: chmod -R u+rX {shlex.quote(str(path))}) and run again"
    )


def _not_searchable(path: str) -> PermissionError | None:
    """The error when the folder holding ``path`` does not let this user reach what it
    lists: ``lstat`` fails with ``EACCES`` in one that may be listed and not searched (mode
    644: ``r`` without ``x``). Asked only once a ``stat`` failed: nothing on the usual path."""
    try:
        os.lstat(path)
    except PermissionError as exc:
        return exc
    except OSError:
        return None  # (gone since it was listed, a name too long: not the folder's rights)
    return None


def scan_solution_docs(
    root: Path,
    unreadable: list[tuple[str, UserInputError]] | None = None,
    unstatted: list[tuple[str, str, OSError]] | None = None,
) -> list[tuple[str, str, os.stat_result]]:
    """Every ``*/*.md`` exactly one directory below ``root`` that is a file (symlinks
    followed), minus the ``archived`` folder, as ``(relative path, path, stat)`` sorted by
    (folder, name). One ``scandir`` per folder and one ``stat`` per doc: cheap enough to run
    at every session start (``seed-solutions --changed-only``).

    A category folder this user may not list, or may list and not search (mode 644: its
    docs' names, and none of them to open), raises :func:`unreadable_folder`'s error, or,
    given ``unreadable``, is added to it as ``(category, error)`` and the others are
    scanned (one unreadable category stopped the re-seed of every other).

    A doc whose ``stat`` fails for another reason than its absence (a symlink loop: ELOOP)
    is no doc of the list; given ``unstatted``, it is added to it as ``(relative path, path,
    error)`` (skipped as a broken symlink, it was said nowhere and its seed record was
    dropped). A broken symlink (ENOENT, ENOTDIR) is no doc: skipped."""
    found: list[tuple[str, str, str, os.stat_result]] = []
    try:
        folders = list(os.scandir(root))
    except OSError:
        return []
    for folder in folders:
        try:
            if folder.name == "archived" or not folder.is_dir():
                continue
            entries = list(os.scandir(folder.path))
        except (FileNotFoundError, NotADirectoryError):
            continue  # gone since it was listed
        except OSError as exc:
            # (read as a folder of no docs: its changes waited, unsaid, and a run by hand
            # listed the others and exited 0)
            error = unreadable_folder(
                f"the category folder {folder.name} of solutions folder {root}", folder.path, exc
            )
            if unreadable is None:
                raise error from None
            unreadable.append((folder.name, error))
            continue
        docs: list[tuple[str, str, str, os.stat_result]] = []  # (none, if it cannot be searched)
        said = len(unstatted) if unstatted is not None else 0
        for entry in entries:
            if not entry.name.endswith(".md"):
                continue
            try:
                st = os.stat(entry.path)
            except OSError as exc:
                refused = _not_searchable(entry.path)
                if refused is None:
                    if unstatted is not None and exc.errno not in (errno.ENOENT, errno.ENOTDIR):
                        unstatted.append((f"{folder.name}/{entry.name}", entry.path, exc))
                    continue  # a broken symlink (or gone since listed): not a file
                # a folder that may be listed but not searched (chmod 644: r without x):
                # its docs' names are there and none can be opened (read as no doc: its
                # changes waited, unsaid, and its entries' records were dropped)
                docs = []
                if unstatted is not None:
                    del unstatted[said:]  # (the category is said, not its docs)
                error = unreadable_folder(
                    f"the category folder {folder.name} of solutions folder {root}",
                    folder.path,
                    refused,
                )
                if unreadable is None:
                    raise error from None
                unreadable.append((folder.name, error))
                break
            if stat.S_ISREG(st.st_mode):
                docs.append((folder.name, entry.name, entry.path, st))
        found.extend(docs)
    found.sort(key=lambda item: (item[0], item[1]))
    return [(f"{folder}/{name}", path, st) for folder, name, path, st in found]


#: At most this many Markdown files out of place are named (a folder of notes is no
#: solutions folder); and how deep below the folder they are looked for.
MISPLACED_SHOWN = 20
MISPLACED_DEPTH = 3


#: What a folder's own Markdown files are called: about the folder, not a solution.
_FOLDER_NOTES = frozenset({"readme", "index", "template", "contributing", "changelog"})


def misplaced_solution_docs(root: Path) -> list[str]:
    """The Markdown files under ``root`` that :func:`scan_solution_docs` does not read,
    relative to it (at most :data:`MISPLACED_SHOWN`): one directly in ``root`` or more than
    one folder below it, or a ``<category>/<doc>`` whose extension is not ``.md`` in lower
    case (``.MD``, ``.markdown``). Not a folder's own notes (``README.md``, ``index.md``, a
    ``_template.md``). A doc written there is never seeded, and was said nowhere."""
    found: list[str] = []

    def walk(folder: Path, depth: int) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if len(found) >= MISPLACED_SHOWN:
                return
            rel = Path(entry.path).relative_to(root).as_posix()
            try:
                if entry.is_dir():
                    if entry.name != "archived" and depth < MISPLACED_DEPTH:
                        walk(Path(entry.path), depth + 1)
                    continue
            except OSError:
                continue
            name = entry.name.lower()
            markdown = name.endswith((".md", ".markdown"))
            about = name.rsplit(".", 1)[0] in _FOLDER_NOTES or name.startswith(("_", "."))
            if markdown and not about and not (depth == 1 and entry.name.endswith(".md")):
                found.append(rel)

    walk(root, 0)
    return found


def discover_solution_docs(root: Path) -> list[Path]:
    """Every ``*/*.md`` exactly one directory below ``root``, minus ``/archived/``, sorted."""
    return [Path(path) for _, path, _ in scan_solution_docs(Path(root))]


_FENCE_OPEN = lazy(r"^\s{0,3}(`{3,}|~{3,})\s*([\w+-]*)")
_HEADING_MARK = lazy(r"\s{0,3}(#{1,6})\s+")
#: Decision: the fix section is a level-2 heading whose text is "Fix" or "Solution",
#: case-insensitive, with an optional leading "The" and trailing colon (``## Fix``,
#: ``## Solution:``, ``## The Fix``). "## Working Solution", "## Fix Applied",
#: "## Fix 1 — …" and ``### Fix`` sub-sections of multi-bug documents do not count.
_FIX_HEADING = lazy(r"^(?:the\s+)?(?:fix|solution)\s*:?$", re.IGNORECASE)


def markdown_heading(line: str) -> tuple[int, str] | None:
    r"""An ATX heading's level and text (``## Fix ##`` → ``(2, "Fix")``), or None. In
    Python, not one pattern: ``(.*?)\s*#*\s*$`` took time cubic in a run of spaces (50 s
    for 4,000 of them)."""
    mark = _HEADING_MARK.match(line)
    if mark is None:
        return None
    return len(mark.group(1)), line[mark.end() :].rstrip().rstrip("#").rstrip()


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
        heading = markdown_heading(line)
        if heading:
            flush()
            blocks.append(_Block("heading", heading[1], level=heading[0]))
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
    text = _CONTROL.sub("", ANSI.sub("", text))
    return one_line(_OUR_TAGS.sub(" ", text))


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
    line, error_level = clean_line(text)
    loc = LOCATION_PREFIX.match(line)
    if loc:
        line = line[loc.end() :]
    score = line_score(line)
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
    flat = one_line(content)
    if introduced and best < _STRONG and len(flat) <= SIGNATURE_MAX_CHARS:
        return [flat]
    if best >= _STRONG or (introduced and best >= 40):
        return signatures_of(content, limit=MAX_SIGNATURES_PER_DOC)
    # No intro and no line that reads like an error by itself: a tool's failure line still
    # is one ("make: *** [Makefile:12: test] Error 2", "ld: library not found for -lssl",
    # "Process completed with exit code 137")
    failures = [one_line(clean_line(ln)[0]) for ln in lines if _TOOL_FAILURE.search(ln)]
    return list(dict.fromkeys(f for f in failures if f))[:MAX_SIGNATURES_PER_DOC]


_TOOL_FAILURE = lazy(
    r"^\S+: \*\*\* .*\bError \d+\s*$"
    r"|\bexit(?:ed)?(?: with)? (?:code|status) \d+\b"
    r"|^[\w.\-]+: (?:[^:\n]{0,80}\b)?(?:not found|no such file|cannot |failed\b|permission denied"
    r"|undefined reference|unresolved)",
    re.IGNORECASE,
)


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


#: How much text around a span its context is read from (the patterns look no further):
#: a span's check must not copy the whole paragraph, or a hostile doc with thousands of
#: spans costs time in the square of its size.
_AROUND = 80


def _signatures_from_text(block: _Block) -> list[str]:
    """Inline code spans and quoted strings that are error messages, in document order."""
    text = block.text.replace("\n", " ")
    found: list[tuple[int, str]] = []
    for m in _INLINE_CODE.finditer(text):
        span = m.group(1).strip()
        after = text[m.end() : m.end() + _AROUND]
        if _accept_span(span, text[max(0, m.start() - _AROUND) : m.start()], after):
            paren = _PAREN_AFTER.match(after)
            if paren and _BARE_CODE.match(span):
                span = f"{span} {paren.group(1)}"
            found.append((m.start(), one_line(span)))
    ticks = [i for i, ch in enumerate(text) if ch == "`"]
    for m in _QUOTED.finditer(text):
        span = m.group(1).strip()
        if bisect.bisect_left(ticks, m.start()) % 2 == 1:  # inside an inline code span
            continue
        before = text[max(0, m.start() - _AROUND) : m.start()]
        if _accept_span(span, before, text[m.end() : m.end() + _AROUND]):
            found.append((m.start(), one_line(span)))
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


#: At most this many distinct signatures of a doc are compared with each other (pairwise):
#: a solution doc holds a few; thousands are a pasted log, and cost time in their square.
_DEDUPE_AT_MOST = 64


def _dedupe(signatures: Iterable[str]) -> list[str]:
    """One signature per fingerprint, in order; a signature whose fingerprint is contained
    in another one's (``unexpected argument '-a'`` inside ``error: unexpected argument
    '-a' found``) is the same error quoted shorter and is dropped."""
    unique: dict[str, str] = {}
    for sig in signatures:
        if len(unique) >= _DEDUPE_AT_MOST:  # the first ones are kept: a doc, not a log
            break
        sig = cut_at_word_boundary(_clean_untrusted_line(sig), SIGNATURE_MAX_CHARS)
        fp = error_fingerprint(sig)
        if sig and fp not in unique:
            unique[fp] = sig
    return [
        sig
        for fp, sig in unique.items()
        if not any(fp != other and fp in other for other in unique)
    ]


#: Frontmatter values that are text as they are (YAML dates and numbers too).
_SCALARS = (str, int, float, date)


def _meta_text(meta: dict[str, object], key: str) -> str:
    """A frontmatter field as one line of text: a scalar, or a list of scalars joined.
    Anything nested is no text: YAML aliases can nest a list of a few hundred bytes into
    billions of items when written out."""
    value = meta.get(key)
    if isinstance(value, list | tuple):
        value = " ".join(str(v) for v in value if isinstance(v, _SCALARS))
    elif not isinstance(value, _SCALARS):
        return ""
    return one_line(str(value))


def _short_error(exc: Exception) -> str:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    mark = getattr(exc, "problem_mark", None)
    if mark is not None:
        first = f"{first} (line {mark.line + 1}, column {mark.column + 1})"
    return cut_at_word_boundary(first, 120)


def _frontmatter(text: str) -> tuple[dict[str, object], str]:
    """The frontmatter's fields and the body, as ``frontmatter.loads`` splits them, but
    raising ``ValueError`` where it quietly gives no fields for frontmatter that is there:
    an opening ``---`` never closed, or YAML that is not ``key: value`` fields (``track
    bug``). Read as "no track", a half-edited doc would have its entries retired."""
    import frontmatter  # imported here: YAML is only needed when seeding

    text = text.strip()
    handler = frontmatter.detect_format(text, frontmatter.handlers)
    if handler is None:
        return {}, text
    try:
        raw, content = handler.split(text)
    except ValueError:
        raise ValueError(
            "the frontmatter opened on the first line is never closed (add the closing ---)"
        ) from None
    fields = handler.load(raw)
    if fields is None:  # an empty frontmatter: no fields
        fields = {}
    if not isinstance(fields, dict):
        raise ValueError(
            f"the frontmatter is a {type(fields).__name__}, not fields "
            "(write them as key: value lines, e.g. track: bug)"
        )
    return fields, content.strip()


def source_path(source_prefix: str, rel: str) -> str:
    """The SOURCE path of the document at ``rel`` (relative to the seeded folder):
    ``source_prefix`` joined to it, or ``rel`` itself for an empty (or ``/``) prefix, which
    means the documents' own paths."""
    prefix = source_prefix.strip("/")
    return f"{prefix}/{rel}" if prefix else rel


#: Why a doc without ``track:`` is skipped, and the fix.
_NO_TRACK = (
    "track is missing, not bug: add `track: bug` to its frontmatter (the --- block at its top)"
)


def parse_solution_doc(
    path: Path, text: str, root: Path, *, source_prefix: str = "docs/solutions"
) -> DocOutcome:
    """Turn one solution document into ERROR-FIX entries (SPEC §6), or say why not.

    * frontmatter must parse (else skipped: ``malformed YAML frontmatter: …``) and have
      ``track: bug`` (else skipped: ``track is X, not bug``, or :data:`_NO_TRACK`);
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
        # a byte-order mark (Windows editors) before the opening "---" hides the whole
        # frontmatter from the parser: the doc would read as one without "track: bug"
        meta, content = _frontmatter(text.removeprefix("\ufeff"))
    except Exception as exc:  # yaml.YAMLError and friends: reported per file, never fatal
        return DocOutcome(path, skipped_reason=f"malformed YAML frontmatter: {_short_error(exc)}")
    track = _meta_text(meta, "track")
    if track.lower() != "bug":
        # of a doc without one, the fix (qa81 F5); another track is the author's choice
        why = f"track is {track}, not bug" if track else _NO_TRACK
        other = next((k for k in meta if isinstance(k, str) and k.lower() == "track"), None)
        if not track and other is not None:  # `Track: bug`: keys are read as written
            why = f"track is missing, not bug: its key is `{other}`; write it `track:`"
        return DocOutcome(path, skipped_reason=why, not_a_bug=True)
    from .redaction import redact_secrets, redaction_markers  # (RE2: loaded on first use)

    # Redacted here, as written: the entry joins the fix's lines into one, and a secret that
    # only its layout on lines makes known (a YAML block's password under its key) is no
    # longer one redaction can know (the write path redacts the entry again: no change).
    content = redact_secrets(content)[0]
    blocks = _blocks(content)
    section = _fix_section(blocks)
    if section is None:
        return DocOutcome(path, skipped_reason="no ## Fix or ## Solution section")
    fix = _fix_text(blocks, *section)
    if not fix:
        return DocOutcome(path, skipped_reason="empty ## Fix or ## Solution section")

    problem = redact_secrets(_meta_text(meta, "problem"))[0]
    title = redact_secrets(_meta_text(meta, "title"))[0]
    if not title:
        heading = next((b.text for b in blocks if b.kind == "heading" and b.level == 1), "")
        title = one_line(heading) or path.stem
    summary = cut_at_word_boundary(_clean_untrusted_line(problem or title), SUMMARY_MAX_CHARS)
    signatures = _doc_signatures(blocks, section)[:MAX_SIGNATURES_PER_DOC]
    if not signatures:
        signatures = _dedupe([problem or title])

    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        rel = path.name
    source = source_path(source_prefix, rel)
    entries = tuple(
        ErrorFixEntry(signature=sig, fix=fix, source=source, summary=summary).normalised()
        for sig in signatures
    )
    # an entry's markers, less those the doc itself holds as text: its secrets redacted here
    written = Counter(redaction_markers(text))
    redactions = tuple(
        dict(Counter(redaction_markers(entry.format())) - written) for entry in entries
    )
    return DocOutcome(path, entries=entries, redactions=redactions)
