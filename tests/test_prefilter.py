"""The word prefilter answers as the pattern it is derived from, text by text.

:func:`kenning.signatures.looks_like_error` asks ``_LOOKS_LIKE_ERROR_SOURCE`` through
:class:`~kenning.prefilter.Prefiltered` (its words read from the pattern's own parse), and
its answer is the pattern's: asserted line by line (and whole) over the logs the other tests
build, the texts of tests/data and of ../shared/eval, and generated lines made of the
pattern's own words in other cases, cut and glued to each other."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from kenning import signatures
from kenning.prefilter import Prefiltered, holds_one, needed_words, prefiltered

from .conftest import EVAL_ABSENT, EVAL_DIR
from .test_json_reports import go_test_json, jest_json
from .test_log_window import (
    OOM,
    SPRING_STARTUP_FAILURE,
    TOLD,
    TRACEBACK,
    downloads,
    info_lines,
    maven_tests,
    other_services,
    spring_failure_with_causes,
    spring_frames,
)

#: The pattern whole, as looks_like_error searched it before it was prefiltered.
PATTERN = re.compile(signatures._LOOKS_LIKE_ERROR_SOURCE, signatures._LOOKS_LIKE_ERROR_FLAGS)
FAST = Prefiltered(PATTERN.pattern, PATTERN.flags)


def score_by_every_rule(line: str) -> int:
    """line_score as it was: each rule searched in turn, the first that matches scores."""
    for score, rule in signatures._RULES:
        if rule.search(line):
            return score
    return 0


def assert_same(texts: list[str]) -> int:
    """Each text, each of its lines, answered as the pattern answers (and each line scored
    as by every rule in turn); how many matched. A text that is its one line is asked once
    and counted twice, as a text and as its line (the answers of the same string again:
    half the CPU of the generated lines, most of which are one line)."""
    matched = 0
    for text in texts:
        whole = False
        for n, piece in enumerate((text, *text.splitlines())):
            if n and piece == text:  # (splitlines may give the very object back)
                matched += whole
                continue
            expected = PATTERN.search(piece) is not None
            whole = whole if n else expected
            assert FAST(piece) == expected, piece
            matched += expected
            if piece is not text or "\n" not in text:
                assert signatures.line_score(piece) == score_by_every_rule(piece), piece
    return matched


def test_the_words_are_found_and_few_alternatives_need_none() -> None:
    """The parse is read on this Python: most alternatives need a word (else every line is
    searched with the whole pattern again, as fast as before and no faster)."""
    assert len(FAST.words) > 50 and ("Traceback", False) in FAST.words
    assert ("ERROR", False) in FAST.words and ("error-fix:", True) in FAST.words
    assert len(FAST._groups) == len(FAST.words)
    rules = signatures._scored_rules()
    assert sum(words is not None for _score, _rule, words in rules) > 0.8 * len(rules)
    assert FAST._rest is not None and FAST._rest.pattern is None  # (the alternatives alone)


def test_the_logs_the_tests_build_are_answered_as_the_pattern_answers() -> None:
    logs = [
        "\n".join(info_lines(300)),
        "\n".join(maven_tests(300) + OOM + downloads(300)),
        "\n".join(spring_frames(50, "org.springframework.beans") + SPRING_STARTUP_FAILURE),
        "\n".join(other_services(300)),
        "\n".join(spring_failure_with_causes(3, 20)),
        TRACEBACK,
        TOLD,
        go_test_json(),
        jest_json(),
    ]
    assert assert_same(logs) > 50


def test_the_texts_of_tests_data_are_answered_as_the_pattern_answers() -> None:
    data = Path(__file__).parent / "data"
    texts = [path.read_text(errors="replace") for path in sorted(data.rglob("*")) if path.is_file()]
    assert len(texts) > 5
    assert_same(texts)


# (rust-errors: rustc's own messages and explanations; ruff-rules and yellow-solutions, asked
# too when this was written, gave the same answers and cost 7 of the module's 12 CPU-s)
@pytest.mark.parametrize("corpus", ["rust-errors"])
def test_the_eval_texts_are_answered_as_the_pattern_answers(corpus: str) -> None:
    folder = EVAL_DIR / corpus
    if EVAL_ABSENT and not folder.exists():
        pytest.skip(f"{folder} is absent and KENNING_EVAL_ABSENT says so")
    files = sorted(path for path in folder.rglob("*") if path.is_file())
    assert files, f"{folder} holds no files: put ../shared/eval next to the repository"
    assert assert_same([path.read_text(errors="replace") for path in files]) > 0


#: Pieces of lines: what the alternatives need and what is around it in a log.
_AROUND = [" ", "  ", "\t", ":", ": ", "(", ")", "[", "]", ".", "/", "\\", "=", '"', "'", "\n"]
_AROUND += ["-", "_", "*", "!", "#", "0", "12", "E", "e", "x", "×", "|", "::", "at ", "line "]
_AROUND += ["src/app.go:12:3: ", "C:\\data\\x", "level=", "msg=", "==12== ", "E   ", "FAILED "]
#: Letters re reads as others in any case: ſ is s, K (Kelvin) is k, İ is i.
_LOOKALIKE = str.maketrans({"s": "ſ", "k": "K", "i": "İ", "S": "ſ", "K": "K", "I": "İ"})


def generated_lines(seed: int, n: int) -> list[str]:
    """Lines glued from the pattern's own words (in their case, upper, lower, with letters
    re takes for others in any case), cut at random, and the pieces a log puts around
    them."""
    rng = random.Random(seed)
    words = [word for word, _case in FAST.words] + ["Error-Fix:", "not found", "such file"]
    words += [word for _s, _r, found in signatures._scored_rules() for word, _case in found or ()]
    words += re.findall(r"[A-Za-z][\w.-]{2,}", PATTERN.pattern)
    lines = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 8)):
            piece = rng.choice(words) if rng.random() < 0.5 else rng.choice(_AROUND)
            case = rng.random()
            piece = piece.upper() if case < 0.1 else piece.lower() if case < 0.2 else piece
            piece = piece.translate(_LOOKALIKE) if rng.random() < 0.05 else piece
            if rng.random() < 0.2 and len(piece) > 2:
                cut = rng.randint(1, len(piece) - 1)
                piece = piece[:cut] if rng.random() < 0.5 else piece[cut:]
            parts.append(piece)
        lines.append("".join(parts))
    return lines


def test_generated_lines_are_answered_as_the_pattern_answers() -> None:
    lines = generated_lines(seed=71, n=10_000)
    matched = assert_same(lines)
    assert 0.05 * len(lines) < matched < 0.95 * len(lines)  # (both answers are asked)


def test_what_the_words_cannot_tell_leaves_its_alternative_searched() -> None:
    """What the reading cannot hold a text to (a word of fewer than 3 characters, a negative
    lookahead) leaves its alternative to every text; a case-insensitive word is looked for
    lower-cased in an ASCII text, and past ASCII (re reads İ as i) the text is searched."""
    pattern = re.compile(r"^(?i:error-fix:)|\.\w+:\d|(?!x)y|Trace(?:back|point)s?\b|a\bb", re.M)
    fast = Prefiltered(pattern.pattern, pattern.flags)
    assert fast.words == (("Traceback", False), ("Tracepoint", False), ("error-fix:", True))
    texts = ["ERROR-FIX: x", "Error-Fİx:", "erroR-fix:", "a.py:3", "y", "Tracepoints", "ab"]
    for text in [*texts, "Tracebacks", "x", "ERROR-FIX", "tracebacks"]:
        assert fast(text) == (pattern.search(text) is not None), text
    assert fast("Error-Fİx:") and fast("a.py:3") and fast("Tracebacks") and not fast("x")


def _variants(text: str) -> list[str]:
    """``text``, in other cases, with letters re takes for others in any case, inside a
    line and cut at either end."""
    return [
        *(text, text.upper(), text.lower(), text.swapcase(), text.translate(_LOOKALIKE)),
        *(f"x {text} y", text[1:], text[:-1]),
    ]


def assert_answers_as_re(pattern: str, flags: int, texts: list[str]) -> Prefiltered:
    """Each text and its variants answered by Prefiltered (and prefiltered) as
    ``re.compile(pattern, flags).search`` answers; and each text the pattern matches holds
    one of needed_words' words (as holds_one says), when it gives words."""
    compiled = re.compile(pattern, flags)
    fast, lazy, words = (
        Prefiltered(pattern, flags),
        prefiltered(pattern, flags),
        needed_words(pattern, flags),
    )
    asked = [variant for text in texts for variant in _variants(text)]
    for text in asked:
        expected = compiled.search(text) is not None
        assert fast(text) == expected == lazy(text), (pattern, text)
        assert not expected or words is None or holds_one(text, words), (pattern, text, words)
    assert any(compiled.search(text) for text in asked), pattern  # (a match is asked)
    return fast


#: Small patterns, each taking one branch of the reading (and the texts that tell a wrong
#: reading of it): a negated character, letters in any case past ASCII (ſ is s), a group
#: that keeps or drops the case it is in, a literal run joined to the group after it, what
#: comes after a branch, a repeat of at least 0 or 1, a word that holds another in the
#: other case or is held by it, alternatives that need no word or that share a tail (re's
#: parser takes a head all alternatives share out of them: Error\d|Errors: is one).
_READ = [
    (r"[^x]yzw|Traceback", 0, ["ayzw", "xyzw"]),
    (r"(?i:\u017ftop)|Traceback", 0, ["stop", "\u017ftop", "st0p"]),
    (r"(?i:\u212aelvin)|Traceback", 0, ["kelvin"]),
    (r"(?i)x(Error)|Traceback", 0, ["xError", "x Error"]),
    (r"x(Error)|Traceback", re.IGNORECASE, ["xError", "x Error"]),
    (r"(?i)error-fix|\d+:\d+", 0, ["Error-Fix", "Error-Fi"]),
    (r"(?i:ab(?-i:Cde)fg)|Traceback", 0, ["abCdefg", "ABCDEFG", "aBCdefG"]),
    (r"Xy(?i:errors)z|Trace", 0, ["XyErrorsz", "xyerrorsz"]),
    (r"ab(?i:cde)|level=(?i:error|fatal)\s", 0, ["abCDE", "level=ERROR ", "level=Fatal\t"]),
    (r"ab(?:\dcde|fgh)|Traceback", 0, ["ab1cde", "abcde", "abfgh", "abfg"]),
    (r"Trace(?:back|point)s?|(?:Error|Exception):", 0, ["Tracepoint", "Exception:", "Trace"]),
    (r"e:\s+(?:file://)?\S+\.kts?:\d|Traceback", re.M, ["e: a.kt:1", "e: file://b.kts:2"]),
    (r"Error\d+x|Trace\sback", 0, ["Error12x", "Error x", "Trace back", "Traceback"]),
    (r"(?:abc|def)ghi", 0, ["abcx", "abcghi", "defghi", "defgh"]),
    (r"abc\d|(?i:abcde)", 0, ["abc1", "ABCDE", "abcd"]),
    (r"Error\d|Errors:", 0, ["Errors:", "Error1", "Errors"]),
    (r"\dError|Errors:", 0, ["Errors:", "1Error", "Errors"]),
    (r"Error\d|Fatal:", 0, ["Error Fatal:", "Error1", "Fatal"]),
    (r"\d+:\d+|[xy]z", 0, ["12:3", "xz", "12"]),
    (r"Traceback|\d+:\d+", 0, ["1:2", "Traceback", "Trace"]),
    (
        r"^(?i:error-fix:)|\bnpm\s+(?:ERR!|error)",
        re.M,
        ["error-fix: a", "a\nERROR-FIX:", "npm ERR!"],
    ),
]


@pytest.mark.parametrize(("pattern", "flags", "texts"), _READ)
def test_each_way_of_reading_answers_as_re(pattern: str, flags: int, texts: list[str]) -> None:
    assert_answers_as_re(pattern, flags, texts)


def test_a_parse_the_reading_gives_up_on_leaves_the_whole_pattern_to_every_text() -> None:
    """A pattern re compiles but whose parse the reading cannot take apart (groups nested
    deeper than its recursion goes, first found by needed_words giving None) is searched
    whole in every text; a pattern re does not compile is not compiled by Prefiltered
    either (and has no words)."""
    depth = next(
        d for d in range(100, 2000, 20) if needed_words("(?:Error|Fatal" * d + ")" * d) is None
    )
    deep = "(?:Error|Fatal" * (depth + 10) + ")" * (depth + 10)
    fast = assert_answers_as_re(deep, 0, ["Error", "Fatal" * (depth + 10), "Fatal"])
    assert fast.words == () and fast._rest is not None and fast._rest.pattern == deep
    assert needed_words("(Error") is None
    for invalid in ["(Error", "Error)", "[a"]:
        with pytest.raises(re.error):
            re.compile(invalid)
        with pytest.raises(re.error):
            Prefiltered(invalid)
