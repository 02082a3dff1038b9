"""Tests for kenning.intent: word-boundary intent detection and --intent validation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kenning.errors import UserInputError
from kenning.intent import (
    INTENT_COLLECTION,
    INTENTS,
    detect_intent,
    intent_scores,
    parse_intent,
)
from kenning.model import COLLECTIONS

from .case_table import each_case
from .conftest import TEXT_CHARACTERS


def test_intent_collection_routing():
    assert INTENT_COLLECTION == {
        "how": "code-patterns",
        "what": "conventions",
        "why": "discussions",
    }
    assert set(INTENT_COLLECTION.values()) == set(COLLECTIONS)
    assert INTENTS == ("how", "what", "why")


# Cases the brief requires.
REQUIRED = [
    ("how do I implement authentication", "how"),
    ("fix the connection issue", "how"),
    ("which framework should I use", "what"),
    ("rule for variable names", "what"),
    ("reason for this approach", "why"),
    ("decided to use async", "why"),
    ("hello world", None),
    ("How should I structure tests", "how"),
]

MORE = [
    # leading interrogatives decide
    ("why did we choose postgres", "why"),
    ("Why is the port 8080?", "why"),
    ("how come we use tabs", "why"),
    ("How come the naming rule changed?", "why"),
    ("HOW DO I FIX THIS", "how"),
    ("  ...how to set up the dev database", "how"),
    ("so, why not redis?", "why"),
    ("ok how does the retry logic work", "how"),
    ("why should we follow this naming convention", "why"),
    ("how should we name branches", "how"),
    # keyword scores
    ("naming convention for tests", "what"),
    ("what port does the api use", "what"),
    ("error when connecting", "how"),
    ("what is the reason we picked X", "why"),
    ("what's the rationale behind the cache", "why"),
    ("what caused the error in the build", "how"),
    ("what does the parse function return", "what"),
    ("which decision did we make about logging", "why"),
    ("tabs or spaces, do we use a style guide?", "what"),
    ("TypeError: NoneType object is not subscriptable", "how"),
    ("ModuleNotFoundError traceback on import", "how"),
    ("tests failing after upgrade", "how"),
    ("the login page is not working", "how"),
    ("it doesn’t work on windows", "how"),  # typographic apostrophe
    ("example of retry with backoff", "how"),
    ("refactoring the payment module", "how"),
    ("folder layout for the frontend", "what"),
    ("must all endpoints be versioned", "what"),
    ("trade-offs of sqlite versus postgres", "why"),
    ("blockers on the release", "why"),
    ("user preferences for commit messages", "why"),
    ("we went with grpc instead of rest", "why"),
    ("explain why the migration was reverted", "why"),
    ("tell me how the auth middleware works", "how"),
    ("auth.py: line 42, KeyError 'user'", "how"),
    ("ModuleNotFoundError: No module named foo", "how"),  # beats "named"
    ("PermissionError writing to the logs folder", "how"),
    # a class named after an acronym is a class all the same
    ("OSError writing to the logs folder", "how"),
    ("SSLError behind the proxy: which certificate should we use", "how"),
    # ties go to the more specific intent (why > what > how)
    ("error handling conventions", "what"),
    ("decision about the error format", "why"),
    # nothing to go on
    ("", None),
    ("   ", None),
    ("?!", None),
    ("postgres", None),
    ("a reasonable approach to caching", None),
]

# Words that merely contain a trigger must not trigger it.
NOT_TRIGGERS = [
    ("a reasonable approach to caching", "why"),
    ("showcase the new dashboard", "how"),
    ("whatever works for the dashboard", "what"),
    ("rulers and scales in the ui", "what"),
    ("the howl of the server fans", "how"),
    ("somehow the cache is stale", "how"),
    ("rename the helper module", "what"),
    ("transport layer for the queue", "what"),
    ("prefixed identifiers", "how"),
    ("lifestyle page copy", "what"),
    ("whichever is faster", "what"),
    ("seasonal report", "why"),
    ("shower thoughts", "how"),
    ("anyhow it compiles", "how"),
    ("unreasonably slow startup", "why"),
    ("terrors and mirrors", "how"),
    ("prebuilt wheels for linux", "how"),
]


@each_case(("query", "expected"), REQUIRED)
def test_required_cases(query, expected):
    assert detect_intent(query) == expected


@each_case(("query", "expected"), MORE)
def test_more_cases(query, expected):
    assert detect_intent(query) == expected


@each_case(("query", "intent"), NOT_TRIGGERS)
def test_substrings_do_not_trigger(query, intent):
    assert detect_intent(query) != intent
    assert intent_scores(query)[intent] == 0.0


@each_case(
    ("query", "expected"),
    [
        ("why", "why"),
        ("WHY", "why"),
        ("Why?", "why"),
        ("why!!!", "why"),
        ("(why)", "why"),
        ("how", "how"),
        ("How...", "how"),
        ("what", "what"),
        ("Which?", "what"),
        ("RULES", "what"),
        ("Decided.", "why"),
        ("fix:", "how"),
    ],
)
def test_case_and_punctuation(query, expected):
    assert detect_intent(query) == expected


def test_intent_scores_shape_and_weights():
    scores = intent_scores("what is the reason we picked X")
    assert set(scores) == set(INTENTS)
    assert scores == {"how": 0.0, "what": 0.5, "why": 2.0}
    assert intent_scores("") == {"how": 0.0, "what": 0.0, "why": 0.0}
    # a trigger counts once however often it appears
    assert intent_scores("error error error")["how"] == 1.0


def test_none_query_is_tolerated():
    assert detect_intent(None) is None  # type: ignore[arg-type]


@given(st.text(TEXT_CHARACTERS, max_size=200))
def test_detect_intent_total_and_deterministic(query):
    result = detect_intent(query)
    assert result in (None, *INTENTS)
    assert detect_intent(query) == result


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz ,.?!'-", max_size=80))
def test_case_insensitive(query):
    assert detect_intent(query.upper()) == detect_intent(query.lower())


@given(
    st.sampled_from([q for q, _ in REQUIRED + MORE]),
    st.sampled_from(["", "?", "!", ".", " ", "  ?!"]),
)
def test_trailing_punctuation_does_not_change_intent(query, suffix):
    assert detect_intent(query + suffix) == detect_intent(query)


# --- parse_intent -----------------------------------------------------------------------


@each_case(
    ("value", "expected"),
    [
        ("how", "how"),
        ("what", "what"),
        ("why", "why"),
        ("HOW", "how"),
        ("What", "what"),
        (" why ", "why"),
        (None, None),
        ("", None),
        ("   ", None),
    ],
)
def test_parse_intent(value, expected):
    assert parse_intent(value) == expected


@each_case("value", ["when", "who", "howto", "how?", "code-patterns", "h", "why not"])
def test_parse_intent_rejects(value):
    with pytest.raises(UserInputError) as info:
        parse_intent(value)
    message = str(info.value)
    assert repr(value) in message
    for name in ("how", "what", "why"):
        assert name in message


@each_case(
    ("query", "expected_how"),
    [
        ("ValueError in parser", 2.0),
        ("ModuleNotFoundError: No module named foo", 2.0),
        ("ConnectionRefusedError on startup", 2.0),
        ("IndexError: list index out of range traceback", 3.0),
        ("OSError: [Errno 28] No space left on device", 2.0),
        ("urllib.error.HTTPError: HTTP Error 403: Forbidden", 3.0),
        ("EOFError when reading stdin", 2.0),
        ("Error", 1.0),  # the word, not a class
        ("terror", 0.0),
        ("TERROR", 0.0),
        ("mirror", 0.0),
    ],
)
def test_exception_class_names(query, expected_how):
    assert intent_scores(query)["how"] == expected_how
