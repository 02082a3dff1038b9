"""The :class:`Memory` a store's row decoder makes is the one ``Memory(...)`` makes.

``Memory.of_checked_fields`` skips the frozen dataclass's generated ``__init__`` (a cost
on every decoded row); these tests hold it to the dataclass: every field named, the same
values, ``last_seen_at`` defaulting to ``stored_at``, still frozen.
"""

from __future__ import annotations

import dataclasses
import inspect
from datetime import UTC, datetime
from typing import Any

import pytest

from kenning.model import EDITED_AT, Memory, id_prefix, too_short_for_prefix

STORED = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
SEEN = datetime(2026, 4, 2, 8, 30, 15, 250000, tzinfo=UTC)


def _fields(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "01a23c51-6151-7c4c-9edb-c5e6124ed43b",
        "content": "pytest fails with ModuleNotFoundError: install the package editable",
        "collection": "code-patterns",
        "type": "error_fix",
        "group_id": "github.com/acme/shop",
        "stored_at": STORED,
        "content_hash": "684aafc1b07f7b68",
        "source": "src/shop/cart.py",
        "tags": ("pytest", "packaging"),
        "metadata": {"error_fingerprint": "abc123"},
        "last_seen_at": SEEN,
        "seen_count": 3,
    }
    return {**base, **changes}


def test_of_checked_fields_names_every_field_of_memory_in_order() -> None:
    # a field added to Memory and not to the fast constructor would be missing from every
    # memory a store reads
    parameters = list(inspect.signature(Memory.of_checked_fields).parameters)
    assert parameters == [f.name for f in dataclasses.fields(Memory)]


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"last_seen_at": None},  # never seen again: last seen when stored
        {"source": None, "tags": (), "metadata": {}, "seen_count": 1},
    ],
    ids=["every-field", "never-seen-again", "defaults"],
)
def test_of_checked_fields_makes_the_memory_init_makes(changes: dict[str, Any]) -> None:
    fields = _fields(**changes)
    made = Memory.of_checked_fields(**fields)
    expected = Memory(**fields)
    assert type(made) is Memory
    assert made == expected
    # the same attributes in the same order (to_dict, repr and equality all read them)
    assert list(vars(made).items()) == list(vars(expected).items())
    assert made.last_seen_at == (SEEN if changes.get("last_seen_at", SEEN) else STORED)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.content = "changed"  # type: ignore[misc]


def test_from_dict_reads_what_to_dict_wrote_and_coerces_nothing() -> None:
    """Memory.from_dict ("the inverse of to_dict") turned content None into the text 'None'
    and tags "urgent" into six one-letter tags, and raised a bare KeyError for a missing
    field: each is a MemoryDictError naming the field (a UserInputError, and a ValueError
    for the backends that read rows through it)."""
    from kenning.errors import UserInputError
    from kenning.model import Memory, MemoryDictError

    memory = Memory("m1", "Deploys happen on Tuesdays", "conventions", "rule", "team/app",
                    datetime(2026, 12, 1, tzinfo=UTC), "h" * 64, None, ("deploy",), {"a": 1})  # fmt: skip
    data = memory.to_dict()
    assert Memory.from_dict(data) == memory
    for change, named in (
        ({"content": None}, "content must be text"),
        ({"tags": "urgent"}, "tags must be a list of texts"),
        ({"metadata": [1]}, "metadata must be a JSON object"),
        ({"source": 5}, "source must be text or null"),
        ({"stored_at": "yesterday"}, "does not read"),
        ({"seen_count": 0}, "does not read"),
    ):
        with pytest.raises(MemoryDictError, match=named):
            Memory.from_dict({**data, **change})
    with pytest.raises(UserInputError, match="lacks id"):
        Memory.from_dict({k: v for k, v in data.items() if k != "id"})
    assert issubclass(MemoryDictError, ValueError)


def test_frozen_results_are_hashable() -> None:
    """Memory, SearchResult and RememberResult are frozen dataclasses, so `set(hits)` and a
    dict keyed by memory look supported (and type-check), yet hash() raised "unhashable type:
    'dict'" (their metadata, their redactions). Each hashes by the fields that say which it
    is; equal ones hash alike."""
    from kenning.model import RememberResult, SearchResult

    when = datetime(2026, 12, 1, tzinfo=UTC)
    memory = Memory("m1", "Deploys on Tuesdays", "conventions", "rule", "g", when, "h", None, (), {"a": 1})  # fmt: skip
    twin = Memory("m1", "Deploys on Tuesdays", "conventions", "rule", "g", when, "h", None, (), {"a": 1})  # fmt: skip
    assert memory == twin and hash(memory) == hash(twin) and len({memory, twin}) == 1
    hit = SearchResult(memory, 0.9, 0.9)
    assert len({hit, SearchResult(twin, 0.9, 0.9)}) == 1
    stored = RememberResult("stored", "m1", redactions={"aws_secret": 1})
    assert hash(stored) == hash(RememberResult("stored", "m1", redactions={"aws_secret": 1}))


def test_a_memory_was_written_when_stored_or_last_edited() -> None:
    """The fenced block's ``stored`` day: a note edited today to "pool size is 30" said the
    day it was first stored, older than the "20" note's (qa-s59b F4)."""
    stored = datetime(2026, 1, 2, 10, tzinfo=UTC)

    def memory(metadata: dict[str, object]) -> Memory:
        return Memory("m", "x", "conventions", "rule", "g", stored, "h", metadata=metadata)

    assert memory({}).written_at == stored
    edited = datetime(2026, 3, 4, 5, 6, tzinfo=UTC)
    assert memory({EDITED_AT: edited.isoformat()}).written_at == edited
    assert memory({EDITED_AT: "2026-03-04T07:06:00+02:00"}).written_at == edited
    # a stamp kenning cannot read, without its zone or before the memory was stored: none
    for stamp in ("yesterday", "2026-03-04T05:06:00", "2025-12-31T00:00:00+00:00", 7, None):
        assert memory({EDITED_AT: stamp}).written_at == stored, stamp


@pytest.mark.parametrize(
    ("typed", "short"),
    [
        ("01a2496", True),  # git's 7 digits
        ("01A2-496", True),  # capitals and a dash, as id_prefix takes them
        (" 01a2 ", True),
        ("01a2496993d9", False),  # 12: a prefix
        ("", False),
        ("-", False),
        ("mem_42", False),  # not hex: an id only ever matched whole
        ("01a249g", False),
    ],
)
def test_an_id_too_short_to_be_a_prefix_is_told_as_id_prefix_reads_ids(
    typed: str, short: bool
) -> None:
    """The CLI's "taken from 12 hex digits on" hint is given for what id_prefix would take
    were it longer: the same digits, dashes and case."""
    assert too_short_for_prefix(typed) is short
    if short:
        assert id_prefix(typed.strip() + "0" * 12) is not None
