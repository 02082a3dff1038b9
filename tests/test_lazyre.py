"""kenning.lazyre's cued patterns: a substitution skipped where it cannot match gives what
the regular expression gives."""

from __future__ import annotations

import re

import pytest

from kenning.lazyre import cued, required_literals


@pytest.mark.parametrize(
    ("pattern", "flags", "expected"),
    [
        (r"\bcannot\s+find", 0, (("cannot",), ("find",))),
        (r"(?:exit|signal)\s+\d+", 0, (("exit", "signal"),)),
        (r"(?i)ABC|DEF", 0, (("abc", "def"),)),
        # an optional part, a repeat that may be absent, a class hold nothing certain
        (r"(?:ab|c?)e", 0, (("e",),)),
        (r"(?:foo)*bar", 0, (("bar",),)),
        (r"[ab]cd", 0, (("cd",),)),
        (r"\d+(?:ms|s)?", 0, ()),
        # a lookahead that must hold is text the match is at; a negative one is not
        (r"(?=abc)\w", 0, (("abc",),)),
        (r"(?!abc)\w", 0, ()),
        # (non-ASCII literals are left out: lower() of one depends on its neighbours)
        (r"‘x’", 0, (("x",),)),
        (r"Error", re.IGNORECASE, (("error",),)),
    ],
)
def test_required_literals(pattern: str, flags: int, expected: tuple[tuple[str, ...], ...]) -> None:
    assert required_literals(pattern, flags) == expected


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        # re.IGNORECASE takes ı and İ for i, ſ for s, the Kelvin sign for k, where lower()
        # keeps ı and ſ and makes İ an i and a combining dot
        (r"(?i)\bis\s+not\b", "it ıs not"),
        (r"(?i)\bis\s+not\b", "IT İS NOT"),
        (r"(?i)\bis\s+not\b", "it iſ not"),
        (r"(?i)\bkind\b", "\u212aIND"),
        (r"\bis\s+not\b", "it is not"),
        (r"\bis\s+not\b", "it ıs not"),
    ],
)
def test_a_cued_pattern_substitutes_as_the_regular_expression_does(pattern: str, text: str) -> None:
    assert cued(pattern).sub("<x>", text) == re.sub(pattern, "<x>", text)
    assert cued(pattern).sub("<x>", text, count=1) == re.sub(pattern, "<x>", text, count=1)


def test_a_cued_pattern_gives_the_text_back_where_it_cannot_match() -> None:
    text = "TypeError: x is undefined"
    assert cued(r"\bcannot\s+find\b").sub("<x>", text) is text


def test_no_text_a_fingerprint_rule_matches_lacks_its_cue() -> None:
    """Every rule of kenning.fingerprints is cued: each text of the error-fix tests that a
    rule's pattern matches holds a literal of each of its cue's choices (a cue that missed
    one would leave that rule out of the text's fingerprint, which is stored), and its
    substitution is the regular expression's."""
    import ast
    from pathlib import Path

    from kenning import fingerprints
    from kenning.lazyre import CuedPattern, folded

    def rules(value: object) -> list[CuedPattern]:
        if isinstance(value, CuedPattern):
            return [value]
        if isinstance(value, (tuple, list)):
            return [rule for item in value for rule in rules(item)]
        return []

    patterns = {id(r): r for value in vars(fingerprints).values() for r in rules(value)}
    assert len(patterns) > 100
    tree = ast.parse((Path(__file__).parent / "test_errorfix.py").read_text(encoding="utf-8"))
    texts = {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) > 12
    }
    assert len(texts) > 1000
    checked = 0
    for rule in patterns.values():
        cue = required_literals(rule._pattern, rule._flags)
        compiled = re.compile(rule._pattern, rule._flags)
        for text in texts:
            if compiled.search(text) is None:
                continue
            checked += 1
            lowered = folded(text)
            assert all(any(r in lowered for r in choice) for choice in cue), (rule._pattern, text)
            assert rule.sub("<x>", text) == compiled.sub("<x>", text)
    assert checked > 1000


def test_a_lazy_regex_module_pattern_matches_as_that_module_compiles_it() -> None:
    """``lazy_regex`` compiles with the ``regex`` module (``re`` has no ``\\p{Cf}``: it
    would raise), on first use, and keeps the method it used as an ordinary attribute."""
    import regex

    from kenning.lazyre import lazy_regex

    source = r"[\x00-\x08]|\p{Cf}|\p{Default_Ignorable_Code_Point}"
    pattern = lazy_regex(source, regex.IGNORECASE)
    assert pattern._compiled is None  # not compiled yet
    text = "a\u200bb\u202ec\x01d\u034fe"
    assert pattern.sub("", text) == regex.compile(source, regex.IGNORECASE).sub("", text) == "abcde"
    kept = vars(pattern)["sub"]
    assert type(kept.__self__) is type(regex.compile("x")) and pattern.sub == kept
