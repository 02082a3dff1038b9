"""The JSONL export format, read line by line with nothing taken on trust.

An export is a header line, ``{"kenning_export": 1, "provenance": {...}, "exported_at":
"..."}``, then one memory per line. An import file may have been edited by hand or handed
over by someone else, so every field is checked for the type the format gives it and never
coerced (``null`` is not the text ``"None"``, a string is not a list of its letters):

===============  ==========================================================================
``id``           required: 1-128 letters, digits and ``. _ : -``, starting with a letter
                 or digit (kenning's UUIDv7s, and the short ids other tools use); unique
                 within the file
``content``      required text
``type``         required text (the write path then checks it is a known type)
``group_id``     required: a project id, checked like ``--project`` (not blank, not
                 ``all``, no control characters)
``stored_at``    required ISO 8601 time (no zone: UTC)
``source``       text or null
``tags``         a list of texts
``metadata``     a JSON object
``collection``,  text; recomputed from the type and the content, so only their type is
``content_hash`` checked
``embedding``    base64 of float32 values, or null (then the content is embedded)
``last_seen_at`` ISO 8601 time or null/absent (then ``stored_at``)
``seen_count``   a whole number ≥ 1, or absent (then 1)
===============  ==========================================================================

Other keys are ignored, so a newer kenning's export still imports. A file whose lines fail
these checks is refused whole, naming the lines; nothing is written. Whether a vector is
usable (the store's dimension, finite, unit length) is decided against the store by
:func:`kenning.transfer.import_memories`, which re-embeds the content of one that is not.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from .errors import UserInputError, json_error_said
from .model import Provenance, check_memory_id, check_seen_count, parse_timestamp

#: The export format's version, written in the header line.
EXPORT_FORMAT = 1
#: At most this many problems are spelled out in the error (the count says the rest).
SHOWN_PROBLEMS = 5

__all__ = [
    "EXPORT_FORMAT",
    "ExportFile",
    "ExportLine",
    "read_export",
]


@dataclass(frozen=True)
class ExportLine:
    """One memory line of an export, with every field of the type the format gives it."""

    number: int
    id: str
    content: str
    type: str
    group_id: str
    stored_at: datetime
    source: str | None = None
    tags: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    #: The decoded embedding, not yet checked against any store (None: none given).
    vector: np.ndarray | None = None
    last_seen_at: datetime | None = None
    seen_count: int = 1


@dataclass(frozen=True)
class ExportFile:
    """A whole export: its header's provenance (None: no header, or none in it) and lines."""

    provenance: Provenance | None
    lines: tuple[ExportLine, ...]


class _Problem(Exception):
    """One field of one line that breaks the format (collected, then reported together)."""


def _show(value: object) -> str:
    """A refused value as an error quotes it: redacted before it is cut (a cut token is too
    short for its pattern, yet most of it)."""
    from .redaction import redact_secrets

    try:
        text = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError):
        text = repr(value)
    text = redact_secrets(text)[0]
    return text if len(text) <= 40 else text[:37] + "..."


def _kind(value: object) -> str:
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "text",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def _required(data: Mapping[str, Any], name: str) -> object:
    if name not in data:
        raise _Problem(f"{name} is missing")
    return data[name]


def _text(value: object, name: str, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise _Problem(f"{name} must be text{' or null' if optional else ''}, got {_kind(value)}")
    return value


def _memory_id(value: object) -> str:
    text = _text(value, "id")
    assert text is not None
    try:
        return check_memory_id(text)
    except UserInputError as exc:
        raise _Problem(f"id: {exc}") from None


def _group_id(value: object, number: int, accepted: dict[str, str] | None = None) -> str:
    from .project import RESERVED_NAME_PROJECT, check_group_id, means_every_project

    text = _text(value, "group_id")
    assert text is not None
    if accepted is not None and text in accepted:
        # an export holds few projects, each on many lines: the check is the same for each
        # (what it says about the line is only in the error, which an accepted id never has)
        return accepted[text]
    if means_every_project(text) and text == text.strip():
        # an older kenning gave a repository (or folder) named "all" that id, which now
        # means every project: its export could not be restored anywhere. Its notes take the
        # id this kenning gives such a repository.
        logging.getLogger("kenning").warning(
            "kenning: line %d: project id %r means every project now; imported as %r, the id "
            "kenning gives a repository named so",
            number,
            text,
            RESERVED_NAME_PROJECT,
        )
        if accepted is not None:
            accepted[text] = RESERVED_NAME_PROJECT
        return RESERVED_NAME_PROJECT
    try:
        gid = check_group_id(text, f"line {number}")
    except UserInputError as exc:
        raise _Problem(f"group_id: {exc}") from None
    if text.strip() != text:
        raise _Problem(f"group_id {_show(text)} has blanks around it; write {_show(gid)}")
    if accepted is not None:
        accepted[text] = gid
    return gid


def _time(value: object, name: str) -> datetime:
    text = _text(value, name)
    assert text is not None
    try:
        return parse_timestamp(text)
    except (ValueError, OverflowError):
        raise _Problem(
            f"{name} must be an ISO 8601 time like 2026-01-15T12:30:00+00:00, got {_show(text)}"
        ) from None


def _seen_count(value: object) -> int:
    try:
        return check_seen_count(value)
    except ValueError as exc:
        raise _Problem(str(exc)) from None


def _tags(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise _Problem(f"tags must be a list of texts, got {_show(value)}")
    return tuple(value)


def _metadata(value: object) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _Problem(f"metadata must be a JSON object, got {_kind(value)}")
    return value


def _vector(value: object) -> np.ndarray | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise _Problem(f"embedding must be base64 text or null, got {_kind(value)}")
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise _Problem(f"embedding is not base64 ({exc})") from None
    if len(raw) % 4:
        raise _Problem(f"embedding is {len(raw)} bytes, not whole float32 values")
    return np.frombuffer(raw, dtype=np.float32)


def parse_memory_line(
    data: Mapping[str, Any], number: int, accepted_group_ids: dict[str, str] | None = None
) -> ExportLine:
    """One memory line's fields, checked; raises :class:`_Problem` for the first bad one.
    ``accepted_group_ids`` (kept by the caller across a file's lines): the project ids
    already checked, and what each reads as."""
    for optional in ("collection", "content_hash"):
        if optional in data:
            _text(data[optional], optional)
    return ExportLine(
        number=number,
        id=_memory_id(_required(data, "id")),
        content=_text(_required(data, "content"), "content") or "",
        type=_text(_required(data, "type"), "type") or "",
        group_id=_group_id(_required(data, "group_id"), number, accepted_group_ids),
        stored_at=_time(_required(data, "stored_at"), "stored_at"),
        source=_text(data.get("source"), "source", optional=True),
        tags=_tags(data.get("tags")),
        metadata=_metadata(data.get("metadata")),
        vector=_vector(data.get("embedding")),
        last_seen_at=(
            None
            if data.get("last_seen_at") is None
            else _time(data["last_seen_at"], "last_seen_at")
        ),
        seen_count=_seen_count(data.get("seen_count", 1)),
    )


def _header_provenance(data: Mapping[str, Any], number: int) -> Provenance | None:
    version = data.get("kenning_export")
    if isinstance(version, int) and not isinstance(version, bool) and version > EXPORT_FORMAT:
        raise UserInputError(
            f"line {number}: export format {version} was written by a newer kenning (this one "
            f"reads format {EXPORT_FORMAT}); upgrade kenning to import it. Nothing was imported"
        )
    if isinstance(version, bool) or version != EXPORT_FORMAT:
        raise UserInputError(
            f"line {number}: export format {_show(version)} is not one this kenning reads "
            f"({EXPORT_FORMAT}); export again with this version. Nothing was imported"
        )
    raw = data.get("provenance")
    if raw is None:
        return None
    try:
        if not isinstance(raw, dict):
            raise TypeError(f"got {_kind(raw)}")
        return Provenance.from_dict(raw)
    except (KeyError, ValueError, TypeError, AttributeError) as exc:
        raise UserInputError(
            f"line {number}: the export header's provenance is unreadable ({exc!r}); "
            "nothing was imported"
        ) from None


def _list(numbers: Sequence[int]) -> str:
    shown = [str(n) for n in numbers]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def _refuse(problems: Sequence[str], what: str) -> UserInputError:
    more = len(problems) - SHOWN_PROBLEMS
    listed = "; ".join(problems[:SHOWN_PROBLEMS]) + (f"; and {more} more" if more > 0 else "")
    return UserInputError(f"{what} — {listed}; nothing was imported")


def memory_line_count(lines: Sequence[str]) -> int:
    """How many memories an export's ``lines`` hold, as a progress bar counts them: its lines
    with text but the header (not checked: :func:`read_export` does that)."""
    written = [line for line in lines if line.strip()]
    if written:
        try:
            first = json.loads(written[0].removeprefix("\ufeff"))
        except (ValueError, RecursionError):
            return len(written)
        if isinstance(first, dict) and "kenning_export" in first:
            return len(written) - 1
    return len(written)


#: The keys of ruvector's ``intelligence.json`` (one JSON object), none of a memory line's.
_RUVECTOR_KEYS = frozenset({"memories", "trajectories", "errors", "patterns", "file_sequences"})

#: What a file that is no text starts with, and what to run for it instead of an import.
NOT_AN_EXPORT = (
    (b"\x1f\x8b", "gzip-compressed: `gunzip -c FILE | kenning import -` imports it"),
    (
        b"SQLite format 3\x00",
        "a SQLite database (a kenning store?), not an export: `kenning export --store FILE "
        "--project all -o backup.jsonl` makes one, to import",
    ),
    (b"PK\x03\x04", "a zip archive: unzip the export first"),
)


def not_an_export(head: bytes) -> str | None:
    """What a file whose first bytes are ``head`` is, and what to run instead of an import,
    when it is a compressed export or a store rather than an export's JSON lines."""
    return next((said for magic, said in NOT_AN_EXPORT if head.startswith(magic)), None)


def read_export(lines: Iterable[str]) -> ExportFile:
    """Parse and check a whole export before anything is written. Raises
    :class:`~kenning.errors.UserInputError` naming every line that breaks the format (up to
    :data:`SHOWN_PROBLEMS`), and every id that more than one line uses."""
    provenance: Provenance | None = None
    header_line: int | None = None
    parsed: list[ExportLine] = []
    problems: list[str] = []
    seen_memory = False
    accepted_group_ids: dict[str, str] = {}
    for number, line in enumerate(lines, start=1):
        if number == 1:
            # a byte order mark, as Notepad or PowerShell write UTF-8 saved again: no text
            line = line.removeprefix("\ufeff")
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            said = (
                # the first line: as likely a file that is no export at all (qa79 F8)
                "the file is no kenning export (`kenning export -o FILE` writes one), or "
                + ("its first line" if number == 1 else f"line {number}, its first not blank,")
                + " was cut or edited"
                if not parsed and header_line is None
                else "the line was cut or edited; restore it from the export it came from, "
                "or delete it"
            )
            raise UserInputError(
                f"line {number} is not JSON ({json_error_said(exc)}): {said}. Nothing was imported"
            ) from None
        except RecursionError:
            raise UserInputError(
                f"line {number} is nested too deeply to be a kenning memory; nothing was imported"
            ) from None
        if not isinstance(data, dict):
            raise UserInputError(f"line {number} is not a JSON object; nothing was imported")
        if number == 1 and "id" not in data and _RUVECTOR_KEYS & data.keys():
            # ruvector's intelligence.json, one JSON document (its memories, trajectories…)
            raise UserInputError(
                "the file is ruvector's store (intelligence.json), not a kenning export: "
                "`kenning import --from ruvector FILE` imports it. Nothing was imported"
            )
        if "kenning_export" in data:
            if header_line is not None or seen_memory:
                raise UserInputError(
                    f"line {number} is a second export header (were two exports joined?); "
                    "import each export on its own. Nothing was imported"
                )
            provenance = _header_provenance(data, number)
            header_line = number
            continue
        seen_memory = True
        try:
            parsed.append(parse_memory_line(data, number, accepted_group_ids))
        except _Problem as exc:
            problems.append(f"line {number}: {exc}")
    if problems:
        what = (
            "1 line is not a kenning memory"
            if len(problems) == 1
            else f"{len(problems)} lines are not kenning memories"
        )
        raise _refuse(problems, what)
    by_id: dict[str, list[int]] = {}
    for record in parsed:
        by_id.setdefault(record.id, []).append(record.number)
    repeated = [
        f"id {_show(memory_id)} is on lines {_list(numbers)}"
        for memory_id, numbers in by_id.items()
        if len(numbers) > 1
    ]
    if repeated:
        raise _refuse(repeated, "the file gives one id to several memories (each needs its own)")
    return ExportFile(provenance, tuple(parsed))
