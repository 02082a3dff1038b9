"""Tests for kenning.safety: content normalisation and source-path checks."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kenning.errors import UserInputError
from kenning.safety import (
    UnsafePathError,
    is_safe_source_path,
    lexical_reason,
    normalise_content,
    validate_source_path,
)

from .case_table import each_case

# --- normalise_content ------------------------------------------------------------------------

NORMALISE = [
    ("  hello  ", "hello"),
    ("a\r\nb\rc", "a\nb\nc"),
    ("a\u2028b\u2029c\x85d", "a\nb\nc\nd"),
    ("nul\x00byte", "nulbyte"),
    ("bell\x07 esc\x1b[31m del\x7f c1\x9b", "bell esc del c1"),
    # a terminal's sequences go whole, not only their ESC: "[1m[31merror[0m" was left
    ("\x1b[1m\x1b[31merror\x1b[0m\x1b[1m: x\x1b[0m", "error: x"),
    ("see \x1b]8;;https://e.example/a\x1b\\the docs\x1b]8;;\x1b\\ now", "see the docs now"),
    ("title\x1b]0;build\x07 done \x1b(B\x1b[m end", "title done end"),
    ("stray \x1b] kept\nline", "stray kept\nline"),
    ("tab\tkept", "tab kept"),
    ("a  \t  b", "a b"),
    ("a\u00a0\u00a0b", "a b"),
    ("trailing   \nspaces\t\n", "trailing\nspaces"),
    ("def f():\n    return 1\n\tx", "def f():\n    return 1\n\tx"),
    ("a\n\n\n\n\nb", "a\n\nb"),
    ("a\n\nb", "a\n\nb"),
    ("a\n  \n \t \n\nb", "a\n\nb"),
    ("\ufeffbom", "bom"),
    ("lone \ud800 surrogate", "lone surrogate"),
    ("cafe\u0301", "caf\u00e9"),
    ("\ufb01 full\uff21", "\ufb01 full\uff21"),  # NFC only: compatibility forms stay
    ("", ""),
    (" \n\t ", ""),
    # code keeps its spacing (squeezed, it was another program); the prose around it not
    (
        'Split on  two spaces: `line.split("  ")` here',
        'Split on two spaces: `line.split("  ")` here',
    ),
    (
        "Sizes:\n```\nname    size\nfoo\t1\n```\nafter  that",
        "Sizes:\n```\nname    size\nfoo\t1\n```\nafter that",
    ),
    ("a  ``x  ` y``  b", "a ``x  ` y`` b"),
    ("no  `closing  tick", "no `closing tick"),
]


@each_case(("raw", "expected"), NORMALISE)
def test_normalise(raw: str, expected: str) -> None:
    assert normalise_content(raw) == expected


@given(st.text(alphabet=st.characters(exclude_categories=())))
def test_normalise_idempotent_and_clean(text: str) -> None:
    once = normalise_content(text)
    assert normalise_content(once) == once
    assert once == once.strip()
    assert "\r" not in once and "\x00" not in once and "\n\n\n" not in once
    assert not any(ord(c) < 0x20 and c not in "\t\n" for c in once)
    once.encode("utf-8")  # no lone surrogates


@settings(max_examples=300)
@given(st.text(alphabet=st.sampled_from(list("ab `~\t\n\u00a0"))))
def test_normalise_is_idempotent_around_code(text: str) -> None:
    """Code spans (backticks, fences) decide where spaces are kept: normalising again
    finds the same spans and changes nothing."""
    once = normalise_content(text)
    assert normalise_content(once) == once


def _every_rule_applied(text: str) -> str:
    """normalise_content's rules, each applied to the whole text whatever it holds."""
    from kenning import safety

    text = safety._NEWLINES.sub("\n", safety.without_terminal_sequences(text))
    text = unicodedata.normalize("NFC", safety._STRIP_CHARS.sub("", text))
    text = safety._squeezed(text)
    text = safety._TRAILING_SPACE.sub("", text)
    text = safety._BLANK_RUN.sub("\n\n", text)
    return safety._without_shared_indentation(text).strip()


@settings(max_examples=300)
@given(st.text(alphabet=st.sampled_from(list("ab \t\n\r\x0b\x0c.\u00a0\u3000\u2028é"))))
@example("a\t\nb").via("a tab at a line's end")
@example("a\tb  c").via("a tab and a double space inside a line")
@example("a \nb\t").via("spaces at the ends of lines")
@example("    a\n  b\n\t").via("a last line of a tab: blank, so not indentation")
def test_a_rule_skipped_where_it_would_change_nothing_gives_the_same_text(text: str) -> None:
    """The space rules run only where they may change something (in an ASCII text, where
    there is a double space, a tab, or a space before a line's end): never a different
    result from applying every rule."""
    assert normalise_content(text) == _every_rule_applied(text)


# --- validate_source_path: lexical rules ---------------------------------------------------------

LEXICAL_REJECTS = [
    ("", "empty"),
    ("   ", "empty"),
    ("\t", "empty"),
    ("/etc/passwd", "absolute"),
    ("//server/share/x", "absolute"),
    ("\\\\server\\share\\x", "absolute"),
    ("\\windows\\x", "absolute"),
    ("C:\\Windows\\x", "Windows"),
    ("c:/x", "Windows"),
    ("C:x", "Windows"),
    ("~/x", "~"),
    ("~root/x", "~"),
    ("..", ".."),
    ("../x", ".."),
    ("docs/../../x", ".."),
    ("docs/..", ".."),
    ("docs\\..\\..\\x", ".."),
    ("docs/.. /x", ".."),
    ("docs/.../x", ".."),
    ("a\nb", "line break"),
    ("a\rb", "line break"),
    ("a\x00b", "NUL"),
    ("a\x1bb", "control"),
    ("a\tb", "control"),
    ("a\x85b", "control"),
    ("a\ud800b", "surrogate"),
    ("docs/\u202egnp.md", "invisible or reordering"),
    ("docs/a\u200bb.md", "invisible or reordering"),
    # shown as docs/setup.md, read as another file: variation selectors, Hangul filler, CGJ
    ("docs/setup.md\ufe0f", "invisible or reordering"),
    ("docs/setup\U000e0101.md", "invisible or reordering"),
    ("docs/\u3164/setup.md", "invisible or reordering"),
    ("docs/set\u034fup.md", "invisible or reordering"),
    (".", "root itself"),
    ("./", "root itself"),
]


@each_case(("path", "reason"), LEXICAL_REJECTS)
def test_lexical_rejects(tmp_path: Path, path: str, reason: str) -> None:
    with pytest.raises(UnsafePathError) as info:
        validate_source_path(path, tmp_path)
    assert reason in info.value.reason
    assert isinstance(info.value, UserInputError)
    assert not is_safe_source_path(path, tmp_path)


def test_no_ascii_character_is_one_the_invisible_check_refuses() -> None:
    # _character_reason stops after the control characters for an ASCII path (the check
    # runs on every file each recalled note names): no other ASCII character is refused
    from kenning.safety import _INVISIBLE

    for code in range(128):
        c = chr(code)
        refused = unicodedata.category(c) in ("Cf", "Cs") or _INVISIBLE.fullmatch(c) is not None
        assert not refused, f"U+{code:04X}"
        if not (code < 0x20 or code == 0x7F):
            assert lexical_reason(f"docs/a{c}b.md") is None, repr(c)


def test_non_string_is_rejected(tmp_path: Path) -> None:
    assert not is_safe_source_path(None, tmp_path)  # type: ignore[arg-type]
    assert not is_safe_source_path(Path("a"), tmp_path)  # type: ignore[arg-type]


def test_accepts_plain_relative_paths(tmp_path: Path) -> None:
    (tmp_path / "docs" / "solutions").mkdir(parents=True)
    doc = tmp_path / "docs" / "solutions" / "fix.md"
    doc.write_text("x")
    root = tmp_path.resolve()
    assert validate_source_path("docs/solutions/fix.md", tmp_path) == root / "docs/solutions/fix.md"
    assert validate_source_path("./docs//solutions/./fix.md", tmp_path) == root / (
        "docs/solutions/fix.md"
    )
    # Not existing yet is fine (the read reports it); names with dots are fine.
    assert validate_source_path("docs/new/.hidden..md", tmp_path) == root / "docs/new/.hidden..md"
    assert is_safe_source_path("docs/solutions/fix.md", str(tmp_path))


# --- validate_source_path: real symlinks ----------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "proj"
    outside = tmp_path / "outside"
    (root / "docs").mkdir(parents=True)
    outside.mkdir()
    (root / "docs" / "fix.md").write_text("in")
    (outside / "secret.md").write_text("out")
    return root, outside


SYMLINK_CASES = [
    # (link name inside root, target (relative to the tmp dir or absolute marker), path, ok?)
    ("docs/alias.md", "ROOT/docs/fix.md", "docs/alias.md", True),
    ("docs/rel.md", "fix.md", "docs/rel.md", True),
    ("lnkdir", "ROOT/docs", "lnkdir/fix.md", True),
    ("docs/out.md", "OUT/secret.md", "docs/out.md", False),
    ("docs/rel_out.md", "../../outside/secret.md", "docs/rel_out.md", False),
    ("outdir", "OUT", "outdir/secret.md", False),
    ("outdir2", "OUT", "outdir2/missing.md", False),
    ("docs/broken.md", "ROOT/docs/nope.md", "docs/broken.md", False),
    ("docs/broken_out.md", "OUT/nope.md", "docs/broken_out.md", False),
    ("brokendir", "OUT/nodir", "brokendir/x.md", False),
    ("etc", "/etc", "etc/passwd", False),
    ("self", "ROOT", "self", False),
]


@pytest.mark.parametrize(("link", "target", "path", "ok"), SYMLINK_CASES)
def test_symlinks(tree: tuple[Path, Path], link: str, target: str, path: str, ok: bool) -> None:
    root, outside = tree
    target = target.replace("ROOT", str(root)).replace("OUT", str(outside))
    os.symlink(target, root / link)
    if ok:
        result = validate_source_path(path, root)
        assert result.is_relative_to(root.resolve())
        assert is_safe_source_path(path, root)
    else:
        with pytest.raises(UnsafePathError):
            validate_source_path(path, root)
        assert not is_safe_source_path(path, root)


def test_symlink_chain_leaving_root(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    os.symlink(outside / "secret.md", root / "hop2")
    os.symlink(root / "hop2", root / "docs" / "hop1")
    with pytest.raises(UnsafePathError, match="outside"):
        validate_source_path("docs/hop1", root)


def test_symlink_loop(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    os.symlink(root / "b", root / "a")
    os.symlink(root / "a", root / "b")
    with pytest.raises(UnsafePathError, match="symlink"):
        validate_source_path("a/x.md", root)


def test_root_given_through_a_symlink(tree: tuple[Path, Path], tmp_path: Path) -> None:
    root, _ = tree
    os.symlink(root, tmp_path / "rootlink")
    assert validate_source_path("docs/fix.md", tmp_path / "rootlink") == root.resolve() / (
        "docs/fix.md"
    )


def test_path_through_a_file(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    with pytest.raises(UnsafePathError, match="not a directory"):
        validate_source_path("docs/fix.md/x", root)


def test_path_through_a_symlink_to_a_file(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    (root / "link.md").symlink_to(root / "docs" / "fix.md")
    with pytest.raises(UnsafePathError, match="not a directory"):
        validate_source_path("link.md/x", root)
    (root / "folder").symlink_to(root / "docs")
    assert validate_source_path("folder/fix.md", root) == (root / "docs" / "fix.md").resolve()


def test_missing_root_fails_closed(tmp_path: Path) -> None:
    with pytest.raises(UnsafePathError, match="cannot be checked"):
        validate_source_path("x.md", tmp_path / "missing")


def test_root_that_is_a_file_fails_closed(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(UnsafePathError):
        validate_source_path("x.md", tmp_path / "f")


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_unreadable_directory_fails_closed(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    locked = root / "locked"
    (locked / "inner").mkdir(parents=True)
    locked.chmod(0)
    try:
        with pytest.raises(UnsafePathError, match="cannot be checked"):
            validate_source_path("locked/inner/x.md", root)
    finally:
        locked.chmod(0o700)


def test_error_message_names_reason_and_path(tmp_path: Path) -> None:
    with pytest.raises(UnsafePathError) as info:
        validate_source_path("../etc/passwd", tmp_path)
    assert "../etc/passwd" in str(info.value)
    assert info.value.path == "../etc/passwd"
    assert info.value.exit_code == 1


def test_oserror_while_checking_fails_closed(
    tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _ = tree

    def denied(*args: object, **kwargs: object) -> os.stat_result:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("kenning.safety.os.lstat", denied)
    with pytest.raises(UnsafePathError, match="cannot be checked"):
        validate_source_path("docs/fix.md", root)
    assert not is_safe_source_path("docs/fix.md", root)


@each_case(
    ("raw", "expected"),
    [
        # a YAML block copied from inside a compose file (`sed -n 4,7p | kenning remember -`)
        (
            "  db:\n    image: postgres:16\n  cache:\n    image: redis:7\n",
            "db:\n  image: postgres:16\ncache:\n  image: redis:7",
        ),
        # a method's body pasted from a class
        ("    if user is None:\n        return\n    save(user)", "if user is None:\n    return\nsave(user)"),
        ("\n\n\t\tx = 1\n\n\t\ty = 2\n", "x = 1\n\ny = 2"),
        ("  a\nb", "a\nb"),  # no indentation in common: the first line's is dropped, as ever
    ],
)  # fmt: skip
def test_a_note_that_starts_indented_keeps_its_lines_relative_indentation(
    raw: str, expected: str
) -> None:
    """Only the first line's indentation was dropped (the whole text was stripped), so a
    YAML block or a method body that began indented was stored with its first line moved
    out from under the others: 'db:' at 0, 'cache:' still at 2 — another document (YAML
    refuses it). The indentation the lines share is removed from all of them."""
    assert normalise_content(raw) == expected


@each_case(
    ("raw", "expected"),
    [
        # code pasted from a web page, a chat or a wiki, indented with no-break spaces
        ("\u00a0\u00a0if x:\n\u00a0\u00a0\u00a0\u00a0return 1", "if x:\n\u00a0\u00a0return 1"),
        ("\u3000first\n\u3000second", "first\nsecond"),  # ideographic-space paragraphs
        ("\t\u00a0a\n\t\u00a0\u00a0b", "a\n\u00a0b"),
        ("  a\n\u00a0\u00a0b", "a\n\u00a0\u00a0b"),  # no indentation shared: none removed
    ],
)
def test_indentation_every_line_shares_goes_whatever_its_spaces(raw: str, expected: str) -> None:
    """The indentation every line shares goes from all of them, so that the lines keep
    their relative indentation: with no-break (or other Unicode) spaces, only the first
    line's went (stripping the text), which moved it out from under the others."""
    assert normalise_content(raw) == expected


# --- shell_word -------------------------------------------------------------------------------


@each_case(
    "text",
    [
        "01a24cc1-9b1f",
        "it's a $HOME `x`",
        "01a24cc1-\x1b]0;PWNED\x07\x1b[31m-evil",
        "back\\slash 'quote' \x7f del",
        "c1\x85\x9b bidi\u202e zw\u200b tag\U000e0041 end",
    ],
)
def test_shell_word_gives_the_text_back_and_holds_no_control(text: str) -> None:
    """The shell word doctor and forget name another writer's id with (qa77 F8): bash reads
    it back as the id stored, and the word itself holds nothing a terminal obeys or hides."""
    import subprocess

    from kenning.safety import hidden_character, shell_word

    word = shell_word(text)
    assert hidden_character(word) is None and word.isprintable(), word
    said = subprocess.run(["bash", "-c", f"printf %s {word}"], capture_output=True, check=True)
    assert said.stdout.decode() == text, word
