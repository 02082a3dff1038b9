"""One test item that checks every row of a table of cases, where ``@pytest.mark.parametrize``
would make an item of each row.

An item costs the suite ~1-2 ms of CPU beyond the test's own work: every xdist worker
collects it, its fixtures (the autouse ones too) are set up and torn down, and its report is
sent to the controller and printed. For a pure function checked on a table of hundreds of
short texts, each row checked in a fraction of a millisecond, that overhead was most of the
table's cost (test_redaction.py: ~2,300 such items).

:func:`each_case` takes parametrize's arguments (the names, the rows, ``ids``; a row may be
a ``pytest.param(…, id=…)``) and runs the test once for each row in one item. Every row is
checked, also after one has failed, and the item then fails saying each failing row's id
and error, with the first one's traceback: it fails where one of the rows' items would.
The test is called once a row with the row's values and the item's fixtures, which the rows
share: a test whose rows change a function-scoped fixture stays parametrised, unless what a
row changes is a folder (``own_folder``: each row gets a new sub-folder of it) or a value a
copy of which will do (``copied``: each row gets a deep copy of it).
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

#: How much of a row's values names it in a failure when it has no id.
_ID_CHARS = 120


def each_case(
    names: str | Sequence[str],
    rows: Iterable[Any],
    ids: Sequence[str] | Callable[[Any], object] | None = None,
    *,
    own_folder: str | None = None,
    copied: Sequence[str] = (),
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """A decorator that makes the test one item checking each of ``rows`` (the arguments of
    ``pytest.mark.parametrize``); the test's other parameters are left to an outer
    :func:`each_case` (the rows of both, as stacked parametrize decorators take them).
    ``own_folder`` names a fixture that is a folder (``tmp_path``): each row is given a new
    folder inside it, as each item had a folder of its own. ``copied`` names fixtures each
    row is given a deep copy of, as each item had a value of its own to change."""
    argnames = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
    table = [_row(row, len(argnames), at, ids) for at, row in enumerate(rows)]

    def decorate(test: Callable[..., None]) -> Callable[..., None]:
        signature = inspect.signature(test)
        own = ([own_folder] if own_folder else []) + list(copied)
        unknown = (set(argnames) | set(own)) - set(signature.parameters)
        if unknown:
            raise TypeError(f"{test.__name__} takes no {sorted(unknown)}")
        if set(own) & set(argnames):
            raise TypeError(f"{sorted(set(own) & set(argnames))} are fixtures, not the rows'")

        def every_row(**given: Any) -> None:
            __tracebackhide__ = True  # (pytest shows the test's frames, not these)
            failed: list[tuple[str, BaseException]] = []
            checked = 0
            for at, (row_id, values) in enumerate(table):
                try:
                    test(**_of_the_row(given, at), **dict(zip(argnames, values, strict=True)))
                    checked += getattr(test, "rows", 1)
                except RowsFailed as inner:  # (an inner table's: each of its rows named)
                    failed += [(f"{row_id} / {inner_id}", e) for inner_id, e in inner.failed]
                    checked += inner.checked
                except (Exception, pytest.fail.Exception) as error:
                    failed.append((row_id, error))
                    checked += 1
            if failed:
                raise RowsFailed(test.__name__, failed, checked) from failed[0][1]

        every_row.__name__ = test.__name__
        every_row.__qualname__ = test.__qualname__
        every_row.__module__ = test.__module__
        every_row.__doc__ = test.__doc__
        # (pytest asks the signature for the fixtures to give: those of the rows are given here)
        every_row.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[p for name, p in signature.parameters.items() if name not in argnames]
        )
        every_row.pytestmark = getattr(test, "pytestmark", [])  # type: ignore[attr-defined]
        every_row.rows = len(table) * getattr(test, "rows", 1)  # type: ignore[attr-defined]
        return every_row

    def _of_the_row(given: dict[str, Any], at: int) -> dict[str, Any]:
        """The item's fixtures as row ``at`` is given them: its own folder and copies."""
        fixtures = dict(given)
        if own_folder:
            folder: Path = given[own_folder] / f"row{at}"
            folder.mkdir()
            fixtures[own_folder] = folder
        for name in copied:
            fixtures[name] = copy.deepcopy(given[name])
        return fixtures

    return decorate


class RowsFailed(AssertionError):
    """The rows of a table that failed (each its id and error), of ``checked`` rows."""

    def __init__(self, test: str, failed: list[tuple[str, BaseException]], checked: int) -> None:
        said = "\n".join(f"[{row_id}] {_said(error)}" for row_id, error in failed)
        super().__init__(f"{len(failed)} of {checked} rows of {test} failed:\n{said}")
        self.failed = failed
        self.checked = checked


def _row(
    row: Any, width: int, at: int, ids: Sequence[str] | Callable[[Any], object] | None
) -> tuple[str, tuple[Any, ...]]:
    """A row's id and values, as parametrize reads them (one name: the row is its value)."""
    given_id = None
    if isinstance(row, type(pytest.param(None))):
        if row.marks:
            raise TypeError("each_case takes no marks: parametrize a row that needs one")
        given_id, row = row.id, row.values
        values = tuple(row)
    else:
        values = (row,) if width == 1 else tuple(row)
    if len(values) != width:
        raise TypeError(f"row {at} has {len(values)} values for {width} names")
    if given_id is None and callable(ids):
        given_id = "-".join(str(ids(value)) for value in values)
    elif given_id is None and ids is not None:
        given_id = ids[at]
    if given_id is None:
        shown = repr(values[0] if width == 1 else values)
        given_id = shown if len(shown) <= _ID_CHARS else shown[: _ID_CHARS - 3] + "..."
    return f"{at}: {given_id}", values


def _said(error: BaseException) -> str:
    """An error's kind and message, its lines after the first indented under it."""
    message = str(error).strip().replace("\n", "\n    ")
    return f"{type(error).__name__}: {message}" if message else type(error).__name__
