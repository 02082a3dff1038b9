"""Which kennings may read and write a store of a newer schema than their own.

Every migration raises a store's schema version, and a kenning used to refuse any store
whose version was newer than its own, for reads too: one teammate's upgrade that only added
an index locked everyone on the previous build out of the team's store. A store now records,
next to its version, the oldest schema version whose kenning can still read it and the
oldest whose kenning can still write it (:data:`COMPATIBLE_KEY` in its metadata, written in
the migration's own transaction). Each migration declares what it asks of the kenning that
opens the store it brought up:

* :data:`NEITHER` — an index, a trigger, a derived table: a kenning of the previous schema
  reads and writes it as before;
* :data:`WRITERS` — writers must fill something new (a column, a rule a write follows):
  older kennings still read it, only a kenning of this schema or later writes it;
* :data:`BOTH` — the data means something else (how words are split, a new table every
  read needs): only a kenning of this schema or later reads or writes it.

A store without the record (or with one written at another version than the store's: a
record rolled back by hand) is read and written only by a kenning of its own version or
later, as before. Builds before this record existed only know the version number.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Raises = Literal["neither", "writers", "both"]
NEITHER: Raises = "neither"
WRITERS: Raises = "writers"
BOTH: Raises = "both"

#: The metadata key of the record (``meta`` on SQLite, ``kenning_meta`` on PostgreSQL).
COMPATIBLE_KEY = "kenning:schema_compatible"


@dataclass(frozen=True)
class Compatible:
    """What a store of schema ``version`` asks of the kenning that opens it."""

    version: int
    #: The oldest schema version whose kenning can read the store.
    reader: int
    #: The oldest schema version whose kenning can write it (never below ``reader``).
    writer: int


def compatible_at(raises: Sequence[Raises], version: int) -> Compatible:
    """The record of a store brought up to ``version`` by the migrations ``raises``
    declares (one per migration, the first migration's at index 0)."""
    reader = max((n for n in range(1, version + 1) if raises[n - 1] == BOTH), default=1)
    writer = max((n for n in range(1, version + 1) if raises[n - 1] != NEITHER), default=1)
    return Compatible(version, reader, max(reader, writer))


def encode(compatible: Compatible) -> str:
    return json.dumps(
        {"version": compatible.version, "read": compatible.reader, "write": compatible.writer}
    )


def decode(text: object, version: int) -> Compatible:
    """The record a store of schema ``version`` holds (``text``: None when it holds none).
    Stored text is untrusted: a record that is not one, or that was written at another
    version than the store's, asks for a kenning of the store's own version, as a store
    without one does."""
    strict = Compatible(version, version, version)
    if not isinstance(text, str):
        return strict
    try:
        found = json.loads(text)
    except ValueError:
        return strict
    if not isinstance(found, dict):
        return strict
    numbers = [found.get(k) for k in ("version", "read", "write")]
    if not all(type(n) is int for n in numbers):  # (not a bool, a float, a string)
        return strict
    at, reader, writer = (int(n) for n in numbers if isinstance(n, int))
    if at != version or not 1 <= reader <= version or not 1 <= writer <= version:
        return strict
    return Compatible(version, reader, max(reader, writer))


def too_new(where: str, compatible: Compatible, own: int, *, write: bool) -> str | None:
    """Why a kenning of schema ``own`` may not read (or, ``write``, write) the store
    ``where`` (its own words: "the store in …", "<path>"); None when it may."""
    needed = compatible.writer if write else compatible.reader
    if compatible.version <= own or needed <= own:
        return None
    said = (
        f"{where} has schema version {compatible.version}, newer than this kenning "
        f"understands ({own})"
    )
    if needed < compatible.version:
        doing = "writes" if write else "reads"
        said += f"; a kenning of schema {needed} or later {doing} it"
    return said


def write_refused(refused: str, *, migrated_since_opened: bool) -> str:
    """The error of a write a newer schema refuses (``refused``: :func:`too_new`'s words):
    the same on every backend, and, when a newer kenning migrated the store after this
    process opened it, what restarts the process that needs the upgrade."""
    if not migrated_since_opened:
        return f"{refused}; nothing was written. Upgrade kenning"
    return (
        f"{refused}: a newer kenning migrated it since this process opened it; nothing was "
        "written. Upgrade kenning and restart this process (the MCP server, `kenning ui`)"
    )
