"""Tests for kenning.safety: secret redaction, content normalisation, source-path checks."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kenning.errors import UserInputError
from kenning.safety import (
    REDACTION_KINDS,
    UnsafePathError,
    is_safe_source_path,
    normalise_content,
    redact_secrets,
    redaction_marker,
    validate_source_path,
)

# Assembled at run time so that no literal credential-shaped string sits in the repository.
AWS_ID = "AKIA" + "IOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"
GH = "ghp_" + "a1B2c3D4" * 4 + "e5F6"
GH_PAT = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
GLPAT = "glpat-" + "abcdefghij0123456789"
SLACK = "xoxb-" + "123456789012-1234567890123-abcdefghijklmnop"
SLACK_HOOK_PATH = "T00000000/B00000000/" + "XXXXXXXXXXXXXXXXXXXXXXXX"
STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
ANTHROPIC = "sk-ant-" + "api03-abcdefghijklmnopqrstuvwxyz0123456789-AAAA"
OPENAI = "sk-" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghijkl"
OPENAI_PROJ = "sk-proj-" + "Abcdefghijklmnop1234567890_-QRSTuvwxyz"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiIxMjM0NTY3ODkwIn0"
    ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2Ef\n"
    "Proc-Type: 4,ENCRYPTED\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n"
    "-----END RSA PRIVATE KEY-----"
)


def R(kind: str) -> str:
    return redaction_marker(kind)


# --- redaction: positives -------------------------------------------------------------------

POSITIVES = [
    # (input, expected output, expected counts)
    (f"key:\n{PEM}\nafter", f"key:\n{R('private_key')}\nafter", {"private_key": 1}),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAAbm9uZQAAAAR\n\nnext",
        f"{R('private_key')}\n\nnext",
        {"private_key": 1},
    ),
    (
        "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY----- and "
        "-----BEGIN EC PRIVATE KEY-----\nMHcC\n-----END EC PRIVATE KEY-----",
        f"{R('private_key')} and {R('private_key')}",
        {"private_key": 2},
    ),
    (f"id {AWS_ID} end", f"id {R('aws_access_key')} end", {"aws_access_key": 1}),
    ("ASIA" + "Y34FZKBOKMUTVV7A", R("aws_access_key"), {"aws_access_key": 1}),
    (
        f"aws_secret_access_key = {AWS_SECRET}",
        f"aws_secret_access_key = {R('aws_secret')}",
        {"aws_secret": 1},
    ),
    (
        f'AWS_SECRET_ACCESS_KEY="{AWS_SECRET}"',
        f'AWS_SECRET_ACCESS_KEY="{R("aws_secret")}"',
        {"aws_secret": 1},
    ),
    (f"token {GH} ok", f"token {R('github_token')} ok", {"github_token": 1}),
    ("gho_" + "x" * 36, R("github_token"), {"github_token": 1}),
    (GH_PAT, R("github_token"), {"github_token": 1}),
    (GLPAT, R("gitlab_token"), {"gitlab_token": 1}),
    (SLACK, R("slack_token"), {"slack_token": 1}),
    (
        f"https://hooks.slack.com/services/{SLACK_HOOK_PATH}",
        f"https://hooks.slack.com/services/{R('slack_webhook')}",
        {"slack_webhook": 1},
    ),
    (STRIPE, R("stripe_key"), {"stripe_key": 1}),
    ("rk_live_" + "abcdefghij123", R("stripe_key"), {"stripe_key": 1}),
    ("sk_test_" + "abcdefghijkl", R("stripe_key"), {"stripe_key": 1}),
    (ANTHROPIC, R("anthropic_key"), {"anthropic_key": 1}),
    (f"use {OPENAI}.", f"use {R('openai_key')}.", {"openai_key": 1}),
    (OPENAI_PROJ, R("openai_key"), {"openai_key": 1}),
    (f"Authorization: Bearer {JWT}", f"Authorization: Bearer {R('jwt')}", {"jwt": 1}),
    # password assignments: only the value goes
    ("password=hunter2", f"password={R('password_assignment')}", {"password_assignment": 1}),
    ("PASSWORD = hunter2 next", f"PASSWORD = {R('password_assignment')} next", None),
    ("passwd='s3cr3t'", f"passwd='{R('password_assignment')}'", None),
    ("pwd=abc", f"pwd={R('password_assignment')}", None),
    ("secret=abc", f"secret={R('password_assignment')}", None),
    ("token=abc", f"token={R('password_assignment')}", None),
    ("api_key=abc", f"api_key={R('password_assignment')}", None),
    ("x-api-key: abc", f"x-api-key: {R('password_assignment')}", None),
    (
        'export DB_PASSWORD="correct horse"',
        f'export DB_PASSWORD="{R("password_assignment")}"',
        None,
    ),
    ("PGPASSWORD=abc psql", f"PGPASSWORD={R('password_assignment')} psql", None),
    (
        "db:\n  password: x\n  user: bob",
        f"db:\n  password: {R('password_assignment')}\n  user: bob",
        None,
    ),
    ("password: hunter2  # prod", f"password: {R('password_assignment')}  # prod", None),
    ('{"password": "x"}', f'{{"password": "{R("password_assignment")}"}}', None),
    ('{"token": 12345, "a": 1}', f'{{"token": {R("password_assignment")}, "a": 1}}', None),
    ("{'api_key': 'k'}", f"{{'api_key': '{R('password_assignment')}'}}", None),
    ("'password' => 'x'", f"'password' => '{R('password_assignment')}'", None),
    ('password := "x"', f'password := "{R("password_assignment")}"', None),
    ("https://x/?token=abc123&y=1", f"https://x/?token={R('password_assignment')}&y=1", None),
    ("f(password=pw)", f"f(password={R('password_assignment')})", None),
    ("clientSecret: abc", f"clientSecret: {R('password_assignment')}", None),
    # connection strings: scheme, user and host stay
    (
        "postgresql://app:s3cret@db.example.com:5432/app",
        f"postgresql://app:{R('connection_string')}@db.example.com:5432/app",
        {"connection_string": 1},
    ),
    (
        "redis://:pw@localhost:6379",
        f"redis://:{R('connection_string')}@localhost:6379",
        {"connection_string": 1},
    ),
    (
        "mongodb+srv://u:p@ss@cluster0.example.net/db",
        f"mongodb+srv://u:{R('connection_string')}@cluster0.example.net/db",
        {"connection_string": 1},
    ),
]


@pytest.mark.parametrize(("text", "expected", "counts"), POSITIVES)
def test_redacts(text: str, expected: str, counts: dict[str, int] | None) -> None:
    out, found = redact_secrets(text)
    assert out == expected
    if counts is None:
        counts = {"password_assignment": 1}
    assert found == counts
    assert set(found) <= set(REDACTION_KINDS)


def test_counts_never_contain_values() -> None:
    text = f"password=hunter2 {GH} {AWS_ID} {PEM}"
    out, counts = redact_secrets(text)
    for secret in ("hunter2", GH, AWS_ID, "MIIEpAIBAAKCAQEA"):
        assert secret not in out
        assert secret not in repr(counts)
    assert counts == {
        "private_key": 1,
        "github_token": 1,
        "aws_access_key": 1,
        "password_assignment": 1,
    }


def test_several_in_one_text_are_counted() -> None:
    out, counts = redact_secrets(f"a={GH} b={GH}\npassword=x\ntoken=y")
    assert counts["github_token"] == 2
    assert counts["password_assignment"] == 2
    assert GH not in out


def test_unterminated_pem_is_redacted_but_following_prose_kept() -> None:
    text = (
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEF\nAASCBKcwggSjAgEAAoIBAQ\n\n"
        "The fix"
    )
    out, counts = redact_secrets(text)
    assert out == f"{R('private_key')}\n\nThe fix"
    assert counts == {"private_key": 1}


# --- redaction: near misses and placeholders -----------------------------------------------

NEAR_MISSES = [
    "password reset flow",
    "token bucket algorithm",
    "the token: it expires daily",
    "Password: must be at least 12 characters long",
    "password=",
    "password= ",
    'password=""',
    "password=${DB_PASSWORD}",
    "password=$DB_PASSWORD",
    "token: ${{ secrets.GITHUB_TOKEN }}",
    "password: {{ vault_db_password }}",
    "token=<your-token>",
    "api_key = <YOUR API KEY>",
    "password=%(db_password)s",
    "password=%DB_PASSWORD%",
    "password=****",
    "password=xxxx",
    "password=...",
    "password=None",
    "token: null",
    "secret: true",
    "password=getpass()",
    "token = os.environ['GITHUB_TOKEN']",
    'password=settings["db"]',
    "login(user, password=password)",
    "self.api_key = api_key",
    "PWD=/home/user/project",
    "password_file=/run/secrets/db",
    "max_tokens=1000",
    "tokenizer: bert-base",
    "secretName: db-credentials",
    "sk-learn",
    "from sk-learn-compatible-estimator-wrapper import x",
    "task-abcdefghijklmnopqrstuvwxyz0123456789",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b",
    "id 123e4567-e89b-12d3-a456-426614174000",
    "https://example.com:8080/path",
    "git@github.com:acme/widgets.git",
    "ssh://git@github.com/acme/widgets",
    "postgres://user:${PGPASSWORD}@host/db",
    "postgres://user:@host/db",
    "AKIA is the prefix of an AWS key id",
    "ghp_short",
    "eyJhbGciOi is the start of a JWT",
    "the BEGIN PRIVATE KEY line starts a PEM block",
]


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_misses_untouched(text: str) -> None:
    assert redact_secrets(text) == (text, {})


def test_rejects_non_str() -> None:
    with pytest.raises(TypeError):
        redact_secrets(b"password=x")  # type: ignore[arg-type]


@given(st.text())
@settings(max_examples=300)
def test_redaction_is_idempotent(text: str) -> None:
    once, _ = redact_secrets(text)
    assert redact_secrets(once) == (once, {})


FRAGMENTS = [
    *NEAR_MISSES,
    *(text for text, _, _ in POSITIVES),
    *("password", "token", "secret", "pwd", "://", "u:", "@", "${", "}", "(", ")", "<", ">"),
    *("word", " ", "\n", "=", ":", '"', "'", "x", "[REDACTED:jwt]", "-----END PRIVATE KEY-----"),
]


@given(st.lists(st.sampled_from(FRAGMENTS), max_size=12))
@settings(max_examples=300)
def test_redaction_idempotent_on_mixtures(parts: list[str]) -> None:
    once, _ = redact_secrets("".join(parts))
    assert redact_secrets(once) == (once, {})


ADVERSARIAL_1MB = {
    "plain": "a" * 1_000_000,
    "spaces": " " * 1_000_000,
    "unterminated_pem": "-----BEGIN RSA PRIVATE KEY-----\n" * 31_250,
    "pem_then_one_end": "-----BEGIN PRIVATE KEY-----\nabc\n" * 15_000 + "-----END PRIVATE KEY-----",
    "assign_quotes": 'password="' * 100_000,
    "assign_colon": "token: a " * 110_000,
    "jwt_prefix": "eyJ" * 333_333,
    "jwt_segments": "eyJaaaaaaaaaaa." * 66_666,
    "sk_prefix": " sk-" * 250_000,
    "scheme": "x://a:" * 166_666,
    "scheme_long_pw": "ab://u:" + "p" * 1_000_000,
    "dotted": "a.b." * 250_000,
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ADVERSARIAL_1MB))
def test_linear_time_on_1mb(name: str) -> None:
    text = ADVERSARIAL_1MB[name]
    start = time.perf_counter()
    redact_secrets(text)
    normalise_content(text)
    # Linear patterns take well under a second per MB; a quadratic one takes minutes.
    assert time.perf_counter() - start < 5.0


# --- normalise_content ------------------------------------------------------------------------

NORMALISE = [
    ("  hello  ", "hello"),
    ("a\r\nb\rc", "a\nb\nc"),
    ("a\u2028b\u2029c\x85d", "a\nb\nc\nd"),
    ("nul\x00byte", "nulbyte"),
    ("bell\x07 esc\x1b[31m del\x7f c1\x9b", "bell esc[31m del c1"),
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
]


@pytest.mark.parametrize(("raw", "expected"), NORMALISE)
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
    (".", "root itself"),
    ("./", "root itself"),
]


@pytest.mark.parametrize(("path", "reason"), LEXICAL_REJECTS)
def test_lexical_rejects(tmp_path: Path, path: str, reason: str) -> None:
    with pytest.raises(UnsafePathError) as info:
        validate_source_path(path, tmp_path)
    assert reason in info.value.reason
    assert isinstance(info.value, UserInputError)
    assert not is_safe_source_path(path, tmp_path)


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
