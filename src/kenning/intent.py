"""Query intent: HOW (code-patterns), WHAT (conventions) or WHY (discussions).

:func:`detect_intent` is a pure function. Every trigger is a regular expression matched
on whole words (``\\b`` on both sides; case-insensitive except exception class names),
never a substring: "reasonable" does not trigger WHY, "showcase" / "howl" do not trigger
HOW, "whatever" / "rulers" do not trigger WHAT.

Decision, in order:

1. **Leading interrogative.** If the first word (after punctuation and fillers such as
   "so", "ok", "please") is ``how`` or ``why``, that is the intent; ``how come`` is WHY.
2. **Keyword scores.** Otherwise each intent sums the weights of its distinct triggers
   that occur (a trigger counts once however often it appears). The highest score wins.
3. **Ties** go to the more specific intent: WHY, then WHAT, then HOW (HOW's vocabulary,
   "error", "pattern", "build", is the most generic).
4. No trigger at all → ``None`` (the caller then uses its default collection).

``what`` / ``which`` are weak (0.5): "what is the reason we picked X" is a WHY question,
"what caused the error" a HOW one; alone they still make WHAT ("what does X return").

====== ======================================================================= ======
Intent Triggers (whole words, any case)                                         Weight
====== ======================================================================= ======
how    how (not "how come"), when not the leading word                          2
how    exception class names, CamelCase and case-sensitive: TypeError,          2
       KeyError, OSError, HTTPError, ... ("terror" and "ERROR" are not)
how    implement*, build/builds/building/built, fix/fixes/fixed/fixing,         1
       debug*, refactor*, error(s), exception(s), traceback, stack trace,
       segfault, panic*, bug(s), crash*, fail/fails/failed/failing/failure(s),
       broken, not working, doesn't/does not work, example(s), snippet(s),
       pattern(s), set up/setup, workaround(s), solution(s), solve/solved,
       step(s) to, usage
what   what, which                                                              0.5
what   rule(s), convention(s), guideline(s), standard(s), policy/policies,      1
       best practice(s), style, style guide, name(s)/named/naming, port(s),
       structure, layout, folder(s), directory/directories, should, must,
       allowed, forbidden, mandatory, do we use, are we using
why    why, how come, when not the leading words                                2
why    reason(s)/reasoning, rationale, decide/decided/decides/deciding,         1
       decision(s), choose/chose/chosen/choosing, choice(s), picked, opted,
       went with, trade-off(s)/tradeoff(s)/trade off(s), motivat*, justif*,
       background, history, purpose, because, blocker(s), blocked,
       preference(s), discuss*, agreed, alternative(s), instead of,
       considered, rejected
====== ======================================================================= ======

(``*`` means any word ending: ``implement*`` matches "implementation", "implemented".)
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .errors import UserInputError
from .lazyre import lazy

__all__ = ["INTENTS", "INTENT_COLLECTION", "detect_intent", "intent_scores", "parse_intent"]

#: Intent → the primary collection searched for it.
INTENT_COLLECTION: Mapping[str, str] = {
    "how": "code-patterns",
    "what": "conventions",
    "why": "discussions",
}
INTENTS: tuple[str, ...] = tuple(INTENT_COLLECTION)

#: Tie-break order: the most specific vocabulary first.
_TIE_ORDER: tuple[str, ...] = ("why", "what", "how")

_FILLERS = frozenset({"so", "and", "but", "ok", "okay", "hey", "hi", "please", "um", "well"})

# (intent, weight, pattern). Patterns are wrapped in \b(?:...)\b and compiled IGNORECASE.
_RULES: tuple[tuple[str, float, str], ...] = (
    # HOW — code-patterns: implementation, error_fix, refactor, file_pattern
    ("how", 2.0, r"how(?!\s+come\b)"),
    ("how", 1.0, r"implement\w*"),
    ("how", 1.0, r"build|builds|building|built"),
    ("how", 1.0, r"fix|fixes|fixed|fixing"),
    ("how", 1.0, r"debug\w*"),
    ("how", 1.0, r"refactor\w*"),
    ("how", 1.0, r"errors?|exceptions?|traceback|stack\s*trace|segfault|panic\w*"),
    # Exception class names (TypeError, ModuleNotFoundError, OSError, HTTPError):
    # case-sensitive CamelCase, so "terror" and "ERROR" stay out.
    ("how", 2.0, r"(?-i:\w*[A-Za-z0-9](?:Error|Exception))"),
    ("how", 1.0, r"bugs?|crash\w*|fail|fails|failed|failing|failures?|broken"),
    ("how", 1.0, r"not\s+working|doesn'?t\s+work|does\s+not\s+work"),
    ("how", 1.0, r"examples?|snippets?|patterns?"),
    ("how", 1.0, r"set\s+up|setup"),
    ("how", 1.0, r"workarounds?|solutions?|solve|solved|steps?\s+to|usage"),
    # WHAT — conventions: rule, guideline, port, naming, structure
    ("what", 0.5, r"what|which"),
    ("what", 1.0, r"rules?|conventions?|guidelines?|standards?|policy|policies"),
    ("what", 1.0, r"best\s+practices?|style(?:\s+guide)?"),
    ("what", 1.0, r"names?|named|naming"),
    ("what", 1.0, r"ports?"),
    ("what", 1.0, r"structure|layout|folders?|directory|directories"),
    ("what", 1.0, r"should|must|allowed|forbidden|mandatory"),
    ("what", 1.0, r"do\s+we\s+use|are\s+we\s+using"),
    # WHY — discussions: decision, session, blocker, preference, context
    ("why", 2.0, r"why|how\s+come"),
    ("why", 1.0, r"reasons?|reasoning|rationale"),
    ("why", 1.0, r"decide|decided|decides|deciding|decisions?"),
    ("why", 1.0, r"choose|chose|chosen|choosing|choices?|picked|opted|went\s+with"),
    ("why", 1.0, r"trade-?offs?|trade\s+offs?"),
    ("why", 1.0, r"motivat\w*|justif\w*|background|history|purpose|because"),
    ("why", 1.0, r"blockers?|blocked|preferences?"),
    ("why", 1.0, r"discuss\w*|agreed|alternatives?|instead\s+of|considered|rejected"),
)

_COMPILED: tuple[tuple[str, float, re.Pattern[str]], ...] = tuple(
    (intent, weight, lazy(rf"\b(?:{pattern})\b", re.IGNORECASE))
    for intent, weight, pattern in _RULES
)

_WORD = lazy(r"[^\W_]+(?:'[^\W_]+)?")
# Typographic apostrophes count as plain ones ("doesn’t work").
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})


def _normalise(query: str) -> str:
    return " ".join(query.translate(_APOSTROPHES).split())


def _leading_intent(query: str) -> str | None:
    words = [w.lower() for w in _WORD.findall(query)]
    while words and words[0] in _FILLERS:
        words.pop(0)
    if not words:
        return None
    if words[0] == "how":
        return "why" if len(words) > 1 and words[1] == "come" else "how"
    if words[0] == "why":
        return "why"
    return None


def intent_scores(query: str) -> dict[str, float]:
    """The keyword score of each intent (rule 2 of the module docstring), for explaining."""
    text = _normalise(query or "")
    scores = dict.fromkeys(INTENTS, 0.0)
    for intent, weight, pattern in _COMPILED:
        if pattern.search(text):
            scores[intent] += weight
    return scores


def detect_intent(query: str) -> str | None:
    """Return ``"how"``, ``"what"``, ``"why"`` or ``None`` for a free-text query."""
    text = _normalise(query or "")
    if not text:
        return None
    leading = _leading_intent(text)
    if leading is not None:
        return leading
    scores = intent_scores(text)
    best = max(scores.values())
    if best <= 0:
        return None
    return next(intent for intent in _TIE_ORDER if scores[intent] == best)


def parse_intent(value: str | None) -> str | None:
    """Validate a user-supplied ``--intent``: how, what or why (any case).

    ``None`` or a blank value means "not given" (detect from the query). Anything else
    raises :class:`UserInputError` listing the valid values.
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise UserInputError(f"intent {value!r:.40} is not one of how, what or why")
    if not value.strip():
        return None
    name = value.strip().lower()
    if name not in INTENT_COLLECTION:
        raise UserInputError(f"unknown intent {value!r}; valid intents are how, what, why")
    return name
