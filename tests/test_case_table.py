"""tests/case_table.py's each_case fails where one of parametrize's items would, and names
every failing row."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from .case_table import RowsFailed, each_case


def test_every_row_is_checked_and_each_failing_row_is_named() -> None:
    seen: list[int] = []

    @each_case("n", [1, 2, pytest.param(3, id="three"), 4])
    def test_odd(n: int) -> None:
        seen.append(n)
        assert n % 2, n

    with pytest.raises(RowsFailed) as failed:
        test_odd()
    assert seen == [1, 2, 3, 4]  # (on past the first failure)
    assert [row for row, _ in failed.value.failed] == ["1: 2", "3: 4"]
    assert str(failed.value).startswith("2 of 4 rows of test_odd failed:\n[1: 2] AssertionError")
    assert isinstance(failed.value.__cause__, AssertionError)  # the first row's, traceback and all


def test_a_table_that_passes_passes_and_its_names_are_no_fixtures() -> None:
    @each_case(("a", "b"), [(1, 1), (2, 2)], ids=["one", "two"])
    def test_same(a: int, b: int) -> None:
        assert a == b

    test_same()
    assert inspect.signature(test_same).parameters == {}  # (pytest gives it nothing)


def test_stacked_tables_count_and_name_each_pair() -> None:
    @each_case("a", [1, 2])
    @each_case("b", [1, 2, 3], ids=lambda b: f"b{b}")
    def test_pairs(a: int, b: int) -> None:
        assert a != b

    with pytest.raises(RowsFailed) as failed:
        test_pairs()
    assert failed.value.checked == 6
    assert [row for row, _ in failed.value.failed] == ["0: 1 / 0: b1", "1: 2 / 1: b2"]


def test_an_error_or_a_pytest_fail_is_a_failing_row() -> None:
    @each_case("kind", ["error", "fail", "fine"])
    def test_kinds(kind: str) -> None:
        if kind == "error":
            raise KeyError(kind)
        if kind == "fail":
            pytest.fail("said so")

    with pytest.raises(RowsFailed) as failed:
        test_kinds()
    assert [type(e).__name__ for _, e in failed.value.failed] == ["KeyError", "Failed"]


def test_a_row_of_the_wrong_width_or_a_name_the_test_lacks_is_refused() -> None:
    with pytest.raises(TypeError, match="row 1 has 1 values for 2 names"):
        each_case(("a", "b"), [(1, 2), (3,)])
    with pytest.raises(TypeError, match="takes no"):
        each_case("c", [1])(lambda a: None)


def test_each_row_gets_a_folder_and_copies_of_its_own(tmp_path: Path) -> None:
    folders: list[Path] = []
    given = {"notes": ["a"]}

    @each_case("n", [1, 2], own_folder="tmp_path", copied=["notes"])
    def test_rows(tmp_path: Path, notes: list[str], n: int) -> None:
        assert not any(tmp_path.iterdir())  # (nothing a row before it left)
        (tmp_path / "x").write_text(str(n))
        assert notes == ["a"]
        notes.append(str(n))
        folders.append(tmp_path)

    test_rows(tmp_path=tmp_path, **given)
    assert folders == [tmp_path / "row0", tmp_path / "row1"]
    assert given == {"notes": ["a"]}  # (the item's own value is left as it was)
    assert list(inspect.signature(test_rows).parameters) == ["tmp_path", "notes"]
    with pytest.raises(TypeError, match="takes no"):
        each_case("n", [1], own_folder="tmp_path")(lambda n: None)
