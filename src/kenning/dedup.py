"""The near-duplicate decision: is a new note the same knowledge as a stored one?

Pure: two texts, their error fingerprints and their cosine in; a :class:`DedupDecision`
(duplicate or not, and why) out. :class:`~kenning.store.MemoryStore` asks it about the
nearest stored notes, inside the write transaction, after the exact ``content_hash``
check (identical content is always a duplicate).

Why more than a cosine. The ruvector protocol skips a note whose best match scores above
``DEDUP_THRESHOLD`` (0.82). MiniLM puts ruff's "Checks for extraneous whitespace *before*
an operator" and "… *after* an operator" at cosine 0.998, rustc's ``"=test"`` and
``"+test"`` operand errors at 0.998, "limit is 100 per minute" and "… 1000 per minute"
far above 0.82, and many LoCoMo observations about one person above it. Remembering the
518 rustc explanations through that gate alone dropped 82 of them; on STS-B its precision
is 0.95 and on MRPC 0.82. A cosine cannot see the one word that matters, so kenning reads
the words. Losing a note costs far more than keeping a duplicate, so the rule only merges
a note that says *the same words*: the same knowledge restated, not a similar topic.

Rules, in order:

1. The same text up to case, whitespace, invisible format characters (zero-width
   spaces, soft hyphens, bidi marks, variation selectors), the micro sign (``µ`` is ``μ``),
   a character's width (full-width ``ＥＲＲＯＲ　１２３`` is ``ERROR 123``),
   prose punctuation (``…`` is ``...``, ``。`` and ``、`` are ``.`` and ``,``) and
   contractions
   (``fold(new) == fold(existing)``) → duplicate, whatever the cosine: MiniLM's word pieces
   put "Evan's support" and "Evans support" at 0.77, below the gate, yet the note is the
   same. Unless a word's case differs and neither text is the other in another case
   throughout (``String``/``string``), or only a flag, a path or an identifier differs in
   case (``grep -i``/``grep -I``, ``src/Main.rs``, ``getElementById``: a text re-cased
   throughout differs in its prose words too), or a word's ``!``/``?`` is code in one text
   and not in the other (``save!``/``save`` in a code block or before anything but a capital,
   ``try?``/``try``, ``as?``/``as!``), or their code (fenced blocks, inline spans:
   :mod:`kenning.code_spans`) differs in its spacing or indentation (a statement inside a
   loop or after it, ``split("  ")``/``split(" ")``) → distinct.
2. Cosine not above the protocol's gate → distinct (the protocol's rule, unchanged).
3. Different error fingerprints (an ERROR-FIX entry for another signature, or an entry
   against a plain note) → distinct: a new signature is new knowledge.
4. Any word, number, name or symbol of one note that the other lacks, other than the
   function words in :data:`FUNCTION_WORDS` → distinct; the reason names it (a negation,
   a number, or the words).
5. The same words in another order → distinct ("A before B" is not "B before A": rustc's
   E0185 and E0186 are one sentence with *static* and *method* swapped). So is a form of
   *be* moved past a content word: "Is the database shared?" is not "The database is
   shared.", which answers it.
6. Otherwise the two differ only in articles, forms of *be* and fillers → duplicate
   (unless only a flag, path or identifier differs in case, a word's ``!``/``?``
   differs, or the code's spacing, as in rule 1).

There is no fitted constant. :data:`FUNCTION_WORDS` is a closed grammatical class chosen
without looking at the evaluation pairs; ``bench/dedup.py --calibrate`` measures on the
STS-B dev split alone what it adds over an empty list. :data:`NEIGHBOURS` was measured:
a punctuation variant's original ranked at most 6th among its nearest stored neighbours
in the rust and ruff corpora (sibling docs outrank it), so the store reads ten. Past
those it reads on, up to :data:`CLOSE_NEIGHBOURS`, while the cosine passes the gate: a
restatement ranked lower than tenth sits among many close siblings (every one ranked above
it is closer still), as "Flags a blank line within the class docstring!!!" does, 14th at
0.946, among 24 notes that differ in the preposition alone.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import regex

from .code_spans import FENCE, code_of, fenced_parts
from .protocol import DEDUP_THRESHOLD
from .widths import WIDTH_FORMS

__all__ = [
    "CLOSE_NEIGHBOURS",
    "FUNCTION_WORDS",
    "NEGATIONS",
    "NEIGHBOURS",
    "DedupDecision",
    "decide",
    "fold",
]

#: The store compares a new note with at most this many nearest stored notes (and with the
#: notes of its own batch). See the module docstring for how it was measured.
NEIGHBOURS = 10
#: ...and past those, with those of them whose cosine passes the gate, up to this many in all.
CLOSE_NEIGHBOURS = 40

#: Words whose presence, absence or swap does not change what a note says: articles,
#: demonstratives, forms of "be" and a few fillers. Prepositions ("before"/"after",
#: "on"/"off"), conjunctions ("and"/"or"), pronouns, quantifiers and negations change
#: meaning and are content here; so do "just" ("runs just the unit tests" says only them;
#: `just migrate` is a command runner's) and "being" ("the index is being rebuilt" says
#: it is not done), which this list held once and merged such notes into their opposites.
# fmt: off
FUNCTION_WORDS = frozenset({
    "a", "an", "the", "this", "that", "these", "those", "is", "are", "was", "were", "be",
    "been", "am", "really", "very", "also", "please",
})
# fmt: on

#: The forms of "be" among :data:`FUNCTION_WORDS`: one dropped, or another in its place, says
#: the same; one moved past a content word turns a statement into its question ("the
#: database is shared" / "is the database shared?").
_BE = frozenset({"is", "are", "was", "were", "be", "been", "am"})

#: Words that flip a statement; named in the reason when they are what differs.
# fmt: off
NEGATIONS = frozenset({
    "not", "no", "never", "none", "nothing", "nobody", "nowhere", "neither", "nor",
    "without",
})
# fmt: on

#: Contractions, with or without the apostrophe (it is folded away first), expanded so that
#: "don't", "dont" and "do not" read alike.
_CONTRACTIONS = {
    "cant": ("can", "not"),
    "cannot": ("can", "not"),
    "wont": ("will", "not"),
    "shant": ("shall", "not"),
    "aint": ("is", "not"),
}
# fmt: off
_NT_BASES = frozenset({
    "do", "does", "did", "is", "are", "was", "were", "has", "have", "had", "could", "would",
    "should", "must", "might", "need",
})
# fmt: on

#: Prose punctuation: a note written with or without it says the same. It is only where
#: prose puts it: quotes; ``. , ; : ! ?`` closing a word (after a letter, digit or bracket)
#: before a space (not a run mixing ``! ?`` with ``: ;``, nor ``! ?`` after ``)``), or the
#: marks ending the text (unless they end ``$?``, ``=!`` or ``<?``, are a ``?`` after a
#: call's bracket or a ``!``/``?`` after a member, ``record.save!``, stand alone after a
#: space, or come before a closing code fence); the dots of an initialism (J.K., e.g.).
#: Everywhere else a mark is code and kept: ``!=`` is not ``=``, ``$?`` not ``$!``,
#: ``./build`` not ``/build``, ``user?.name`` not ``user.name``, ``std::io`` not
#: ``std.io``, ``.env`` not ``env``; ``"=test"`` and ``"+test"`` stay two rustc errors; a
#: mark inside a number is part of it (1.0 is not 10, 10:30 is not 1030). And where a
#: prose-placed ``!`` or ``?`` is code after all (:func:`_code_marks`: in a code block,
#: on ``try``/``as``, before anything but a capital), a note without it is another note.
#: (Quotes go first, so that a mark they hid from its word is judged as in the text without
#: them: the fold of a text and of that text without its punctuation are the same.)
#: (Quotation marks of other languages too: the single guillemets ‹…›, Japanese's corner
#: brackets 「…」『…』, which are never code.)
_QUOTE_MARKS = re.compile("['\"`«»‹›「」『』]")
#: What, written right before a quote (spaces apart), makes it a string's in code: an
#: assignment, a key, a call, an index, an object (``= 'active'``, ``: "3.10"``,
#: ``.get('id')``, ``config['timeout']``, ``{"enabled": …}``). (A ``:`` before a space
#: is prose punctuation, but not before such a quote: :data:`_SOFT`.)
_CODE_BEFORE_QUOTE = frozenset("=:([{")
#: What, written right against a quote, makes it code: a variable or a path it holds or
#: ends (``"$TAG"``, ``"$DIR"/dist``).
_CODE_AGAINST_QUOTE = frozenset("$/\\")
#: The quotes a string in code is written in (the others, ``«»``, ``「」``…, are prose's).
_CODE_QUOTES = frozenset("'\"`")


def _without_prose_quotes(text: str) -> str:
    """``text`` without its prose quotation marks. A quote is prose unless it makes a
    string in code, which the text without it says otherwise (``python-version: "3.10"``
    is a string, ``3.10`` the number 3.1; ``WHERE status = 'active'`` is not ``= "active"``,
    a column; ``sed -i ''`` is not ``sed -i``): after :data:`_CODE_BEFORE_QUOTE`, against
    :data:`_CODE_AGAINST_QUOTE`, or one of an empty string's pair. An apostrophe between
    letters (``don't``, ``user's``) is prose. Only what no variant drops decides (the
    marks before are code, or a ``:`` kept for it), so a text and that text without its
    prose punctuation still fold alike."""
    if _QUOTE_MARKS.search(text) is None:
        return text
    out = []
    last = 0
    closing = -1  # the quote that closes a string in code opened before: code as well
    for m in _QUOTE_MARKS.finditer(text):
        i = m.start()
        mark = text[i]
        before = text[i - 1] if i else ""
        after = text[i + 1] if i + 1 < len(text) else ""
        if i == closing:
            continue
        if (
            mark not in _CODE_QUOTES
            or (mark == "'" and before.isalnum() and after.isalnum())
            or (mark == "`" and "```" in text[max(0, i - 2) : i + 3])
        ):
            # another language's quotation marks; a contraction or a possessive; a code
            # block's fence (its edges, as a text without them says the same)
            code = False
        else:
            code = (
                before == mark
                or after == mark
                or _before_whitespace(text, i) in _CODE_BEFORE_QUOTE
                or before in _CODE_AGAINST_QUOTE
                or after in _CODE_AGAINST_QUOTE
            )
            if code:  # its string's other quote, on the same line, stays with it
                end = text.find(mark, i + 1)
                closing = end if end != -1 and "\n" not in text[i:end] else -1
        if not code:
            out.append(text[last:i])
            last = i + 1
    out.append(text[last:])
    return "".join(out)


def _before_whitespace(text: str, index: int) -> str:
    """The character before ``index`` past any whitespace (``""`` at the start). Read back
    over the whitespace alone: ``text[:index].rstrip()`` copied the text before every
    quote, ~30 ms for a 64 KiB note of JSON."""
    j = index - 1
    while j >= 0 and text[j].isspace():
        j -= 1
    return text[j] if j >= 0 else ""


#: A run of marks closing a word before a space: prose unless it mixes ``! ?`` with ``: ;``
#: (TypeScript's ``name?: string``) or follows a closing parenthesis with ``! ?`` (Rust's
#: ``read()? here``), or is a ``:`` before a quote (a key's: ``version: "3.10"``).
_SOFT = re.compile(
    r"(?<=[\w\]}])(?!:\s+(?:['\"]|`(?!``)))[.,;:!?]+(?=\s)"
    r"|(?<=\))(?!:\s+(?:['\"]|`(?!``)))[.,;:]+(?=\s)"
)
_CODE_RUN = re.compile(r"[!?][:;]|[:;][!?]")
_MARKS = ".,;:!?"
#: A word (or a closing bracket: ``map[key]!``) that a ``!`` or ``?`` may close.
_MARKABLE = re.compile(r"[\w\]}]+")
#: What follows a run of marks: whitespace, then the next character.
_NEXT = re.compile(r"\s+(\S)")
#: Words whose ``!`` or ``?`` is an operator whatever follows: Swift's ``try?``/``try!``
#: and ``as?``/``as!`` come before a type's capital.
_MARKED_KEYWORDS = frozenset({"try", "as"})


def _ends_in_code_block(text: str) -> bool:
    """Whether the last line that is not blank is a code fence: the marks before it are
    code, not the end of a sentence (Rust's ``read()?``)."""
    end = len(text.rstrip())
    return FENCE.match(text, text.rfind("\n", 0, end) + 1) is not None


@functools.lru_cache(maxsize=64)
def _code_marks(text: str) -> dict[tuple[str, int], tuple[str, bool]]:
    """The ``!``/``?`` closing a word before whitespace (with any other marks of the run:
    ``save!,``), by the word (case-folded, without combining marks, so ``DİKKAT`` and
    ``ΟΣ``/``ος`` lower-cased are the same words) and its occurrence: the marks, and
    whether they are code — inside a fenced code block, on ``try``/``as``, or before
    anything but a capital (``save! to``, ``save! &&``), where prose would start a
    sentence. The marks ending the text, or a run of prose before a code block, are
    prose (as in :func:`fold`)."""
    text = unicodedata.normalize("NFC", text.translate(_QUOTES))
    # words counted as fold() counts them: an initialism one word (e.g. → eg), a
    # contraction its two (cannot → can not), or a word's occurrences would shift
    parts = fenced_parts(_INITIALISM.sub(lambda m: m.group().replace(".", ""), text))
    # the text's final marks are the ones fold() drops: none before a closing fence
    final_marks = not _ends_in_code_block(text)
    seen: dict[str, int] = {}
    found: dict[tuple[str, int], tuple[str, bool]] = {}
    for index, (part, fenced) in enumerate(parts):
        plain = _without_prose_quotes(part)
        if final_marks and index == len(parts) - 1:
            plain = _without_final_marks(plain)
        if not plain.isascii():
            plain = "".join(
                c for c in unicodedata.normalize("NFD", plain) if not unicodedata.combining(c)
            )
        length = len(plain)
        for word in _MARKABLE.finditer(plain):
            key = folded = word.group().casefold()
            if folded in _CONTRACTIONS or folded.endswith("nt"):  # (one _expanded may change)
                for key in _expanded(folded):  # a mark closes the last one
                    occurrence = seen.get(key, 0)
                    seen[key] = occurrence + 1
            else:
                occurrence = seen.get(key, 0)
                seen[key] = occurrence + 1
            end = start = word.end()
            while end < length and plain[end] in _MARKS:
                end += 1
            if end == start:
                continue  # no mark after the word (most words: nothing more to read)
            marks = "".join(c for c in plain[start:end] if c in "!?")
            if not marks or (end < len(plain) and not plain[end].isspace()):
                continue  # no ! or ?, or a mark inside code, which fold() keeps
            following = _NEXT.match(plain, end)
            if fenced or key in _MARKED_KEYWORDS:
                found[key, occurrence] = (marks, True)
            elif following is not None:
                found[key, occurrence] = (marks, not following.group(1).isupper())
    return found


def _expanded(word: str) -> tuple[str, ...]:
    """A (case-folded) word as :func:`fold` reads it: a contraction as its two words."""
    if word in _CONTRACTIONS:
        return _CONTRACTIONS[word]
    if word.endswith("nt") and word[:-2] in _NT_BASES:
        return (word[:-2], "not")
    return (word,)


def _code_marks_differ(new_text: str, existing_text: str) -> str | None:
    """The word whose ``!`` or ``?`` says something in one text that the other does not,
    for two texts that are otherwise the same, occurrence by occurrence: another mark on
    the word (Swift's ``as?`` is not ``as!``), or a mark the other text drops where it is
    code (Ruby's ``save!`` raises where ``save`` returns false; ``try? await`` is not
    ``try await``). A mark dropped before a capital ends a sentence (outside a code block),
    and a whole text in another case keeps its marks: both say the same."""
    new, old = _code_marks(new_text), _code_marks(existing_text)
    for key in sorted(new.keys() | old.keys()):
        (mark_new, code_new), (mark_old, code_old) = (
            new.get(key, ("", False)),
            old.get(key, ("", False)),
        )
        word = key[0]
        if mark_new == mark_old:
            continue
        if (mark_new and mark_old) or (mark_new and code_new) or (mark_old and code_old):
            return f"{word}{mark_new} vs {word}{mark_old}"
    return None


#: A member written as code (``record.save``, ``inputRef.current``, ``File::open``,
#: ``obj->next``) ending a text: the ``!`` or ``?`` right after it is code (Ruby's bang
#: method, TypeScript's non-null assertion, Kotlin's and Rust's operators), not the end of a
#: sentence. Not after a number (``v1.2!``).
_MEMBER_END = re.compile(r"(?<![\w.])[^\W\d]\w*(?:(?:\.|::|->)[^\W\d]\w*)+$")


def _without_final_marks(text: str) -> str:
    """``text`` without the marks (and whitespace) that end it, unless they end a shell or
    code token (``$?``, ``=!``, ``<?``; a ``?`` right after a call's or an index's closing
    bracket: Rust's ``File::open(path)?``; a ``!`` there ends a sentence as often: "(all of
    them)!"; a ``!`` or ``?`` right after a member, :data:`_MEMBER_END`) or stand alone
    after a space (``docker build .``). In Python, not a regular
    expression: a pattern trying each mark of a long run took time quadratic in the run."""
    run = len(text.rstrip(_MARKS + " \t\r\n\f\v"))
    marks = [i for i in range(run, len(text)) if text[i] in _MARKS]
    if not marks:
        return text
    first = marks[0]
    before = text[first - 1] if first else ""
    if first == run and before in ("$", "=", "<"):
        return text  # the end of a token: $? is not $!
    if first == run and before in (")", "]") and text[first] == "?":
        return text  # an operator on what the call or index gives: open(p)? is not open(p)
    if first == run and text[first] in "!?" and _MEMBER_END.search(text[max(0, run - 200) : run]):
        return text  # a member's: record.save! raises where record.save returns false
    if before in (" ", "\t"):
        return text  # a mark of its own after a space is an argument: `docker build .`
    return text[:first]


_MARKER_TOKEN = re.compile(r"REDACTED:[a-z0-9_]+")
_INITIALISM = re.compile(r"\b(?:[^\W\d_]\.)+[^\W\d_]\b\.?")  # J.K. J.K e.g.
#: Japanese's and Chinese's full stop and comma (``。``, ``、``, and their half-width forms)
#: as ``.`` and ``,``: prose punctuation, which a note restated with or without it says
#: the same with ("…すること。" was a note apart from "…すること"). Their full-width
#: ``，`` ``！`` ``？`` ``：`` are the ASCII marks in another width already.
_CJK_PROSE_MARKS = {"\u3002": ".", "\uff61": ".", "\u3001": ",", "\uff64": ","}
#: Curly quotes as straight ones, the ellipsis character as the three dots an editor or a
#: chat app turns into it (``hangs…`` was a note apart from ``hangs...``, where the dots
#: are prose punctuation), and the micro sign (U+00B5, typed with AltGr+m) as the Greek
#: mu (U+03BC) a spell checker or a web page puts in its place: one letter that NFC leaves
#: apart ("500 µs" and "500 μs" made two notes). Only these two of NFKC's foldings and
#: the widths (:data:`kenning.widths.WIDTH_FORMS`: ``ＥＲＲＯＲ　１２３`` is ``ERROR 123``,
#: ``ｴﾗｰ`` is ``エラー``): ``n²`` is not ``n2``; nor is ``ß`` folded as ``ss`` ("Maße" is
#: not "Masse"). (Applied before NFC: a half-width voiced mark, ``ｶﾞ``, is a
#: combining one, which NFC joins to its letter as ``ガ`` is.)
_QUOTES = str.maketrans(
    {
        "‘": "'",
        "’": "'",
        "‛": "'",
        "‚": "'",  # German's opening single quote (‚…‘), as „ opens its double one
        "“": '"',
        "”": '"',
        "„": '"',
        "‟": '"',
        "\u2026": "...",
        "\u00b5": "\u03bc",
        **WIDTH_FORMS,
        **_CJK_PROSE_MARKS,
    }
)
#: A word, with what joins it inside a number or a compound (``1.0``, ``10:30``,
#: ``dairy-free``, ``a/b``, ``user@host``), is one token; any other symbol is a token.
_TOKEN = re.compile(r"\w+(?:[.,:\-/@]\w+)*|[^\w\s]")
_DIGIT = re.compile(r"\d")


def _visible(text: str) -> str:
    """``text`` without its format characters (Unicode Cf: zero-width spaces and joiners,
    soft hyphens, bidi marks) and the other default-ignorable ones (variation selectors,
    such as an emoji's U+FE0F, the combining grapheme joiner): invisible, so a note that
    differs only in them reads the same. Pasted from a web page or a chat, or an emoji
    written with its presentation selector by one tool and without it by another, they
    made a second copy of a note (each one a symbol to the word rules)."""
    return text if text.isascii() else _format_characters().sub("", text)


@functools.cache
def _format_characters() -> regex.Pattern[str]:
    return regex.compile(r"\p{Cf}|\p{Default_Ignorable_Code_Point}")


@dataclass(frozen=True)
class DedupDecision:
    """Whether a new note is a near-duplicate of a stored one, and why (for people)."""

    duplicate: bool
    reason: str


def fold(text: str, *, keep_case: bool = False) -> list[str]:
    """``text`` as the tokens the decision compares: case-folded (unless ``keep_case``);
    prose punctuation and whitespace dropped; contractions expanded; symbols, numbers and
    identifiers kept. NFC, not NFKC: ``n²`` is not ``n2`` (nor ``①`` 1); only a
    character's width is folded (``Ａ１`` is ``A1``)."""
    folded = unicodedata.normalize("NFC", text.translate(_QUOTES))
    folded = _INITIALISM.sub(lambda m: m.group().replace(".", ""), folded)  # J.K. → JK
    folded = _without_prose_quotes(folded)
    if _ends_in_code_block(text):  # only the closing fence's own marks end the text
        lines = folded.split("\n")
        fence = text.rstrip().count("\n")  # the same line: nothing above adds or drops one
        lines[fence] = lines[fence].rstrip(_MARKS + " \t")
        folded = "\n".join(lines)
    else:
        folded = _without_final_marks(folded)  # "end." → end
    folded = _SOFT.sub(lambda m: m.group() if _CODE_RUN.search(m.group()) else "", folded)
    if not keep_case:
        folded = folded.lower()  # not casefold: "Maße" is not "Masse"
    tokens: list[str] = []
    end = -1
    for match in _TOKEN.finditer(folded):
        token = match.group()
        lowered = token.casefold()
        if (
            lowered in FUNCTION_WORDS
            and match.start() == end
            and tokens
            and tokens[-1] in _CODE_PREFIXES
        ):
            # a flag or a variable spelled as a function word (netstat -an, git commit -am,
            # $this): one token with its sign, content as any other name ("-an" is not "-a")
            tokens[-1] += token
            end = match.end()
            continue
        end = match.end()
        # (_expanded's cases read here in turn: a call and a tuple for each of a long
        # note's tokens was a third of folding it)
        if lowered in _CONTRACTIONS:  # DON'T → DO NOT, so that an upper-case text stays one
            shout = token.isupper()
            tokens.extend(w.upper() if shout else w for w in _CONTRACTIONS[lowered])
        elif lowered.endswith("nt") and lowered[:-2] in _NT_BASES:
            # the base of a "n't" as written (its case kept)
            tokens.extend((token[:-2], "NOT" if token.isupper() else "not"))
        else:  # not a contraction
            tokens.append(token)
    return tokens


#: Signs that make the token written right after them code, its case meaningful: a flag
#: (``-I``), a variable (``$PATH``), a path's part (``/usr/Lib``), a member (``.Env``).
_CODE_SIGNS = frozenset({"-", "/", "\\", "~", ".", "$", ":"})
#: The signs a function word written right after is a name with (``-a``, ``$this``,
#: ``/the``, ``.be``, ``@this``), not the word.
_CODE_PREFIXES = _CODE_SIGNS | {"@"}


@functools.lru_cache(maxsize=64)
def _folded(text: str) -> tuple[str, ...]:
    # A batch compares each new note with up to NEIGHBOURS stored notes, often the same
    # ones: folding each text once keeps the check cheap next to embedding it. 64 entries
    # bound the cache at a few MB even for notes at the 64 KiB limit.
    return tuple(fold(text))


def _case_differs_in_a_word(new_text: str, existing_text: str) -> str | None:
    """The words whose case differs between two texts that fold alike, unless one text is
    the other in another case throughout (all upper or all lower case, or only its first
    letter), which says the same: ``string``/``String`` in C#, ``Handler``/``handler`` in Go,
    ``PATH``/``path`` are different things."""
    new, old = fold(new_text, keep_case=True), fold(existing_text, keep_case=True)
    if new == old:
        return None
    code = _code_case_differs(new, old)
    if code is not None:
        return code
    for side in (new, old):
        # a redaction marker ([REDACTED:kind]) is kenning's, in its own case on both sides
        joined = " ".join(t for t in side if not _MARKER_TOKEN.fullmatch(t))
        if joined in (joined.lower(), joined.upper()):
            return None
    first_letter_only = (
        bool(new and old)
        and new[1:] == old[1:]
        and new[0][1:] == old[0][1:]
        and new[0][:1].lower() == old[0][:1].lower()
    )
    if first_letter_only:  # a sentence's first letter
        return None
    pairs = [(a, b) for a, b in zip(new, old, strict=False) if a != b]
    return _shown_pairs(pairs)


def _shown_pairs(pairs: Sequence[tuple[str, str]]) -> str:
    return ", ".join(f"{a!r} vs {b!r}" for a, b in pairs[:3]) or "case"


def _code_case_differs(new: Sequence[str], old: Sequence[str]) -> str | None:
    """The tokens (of :func:`fold` with their case kept, aligned) whose case differs, when
    each of them is a flag, a path or an identifier: ``grep -i`` is not ``grep -I``, even
    when the rest of one text is all in lower case. A text re-cased throughout differs in
    its prose words too (``Run … -X`` / ``run … -x``): None then, as when nothing differs."""
    differing = [i for i, (a, b) in enumerate(zip(new, old, strict=False)) if a != b]
    if not differing or not all(_is_code(new, i) or _is_code(old, i) for i in differing):
        return None
    return _shown_pairs([(new[i], old[i]) for i in differing])


def _is_code(tokens: Sequence[str], index: int) -> bool:
    """Whether the token at ``index`` (of :func:`fold` with its case kept) is a command-line
    flag (``-x``, ``--Foo``), a variable (``$PATH``), part of a path (``/usr/Lib``,
    ``src/Main.rs``, ``.Env``) or an identifier (``os.Path``, ``std::Io``, ``MAX_size``,
    ``getElementById``): its case is meaningful."""
    token = tokens[index]
    if _MARKER_TOKEN.fullmatch(token):
        return False  # a redaction marker is kenning's, in its own case
    before = tokens[index - 1] if index else ""
    return (
        before in _CODE_SIGNS
        or token[:1] in _CODE_PREFIXES  # a function word with its sign (fold: "-an")
        or any(c in token for c in "/._:@")
        or any(a.islower() and b.isupper() for a, b in itertools.pairwise(token))
    )


def _function_word_gaps(tokens: Iterable[str]) -> list[list[str]]:
    """The function words before each content word, and after the last one."""
    gaps: list[list[str]] = [[]]
    for token in tokens:
        if token in FUNCTION_WORDS:
            gaps[-1].append(token)
        else:
            gaps.append([])
    return gaps


def _be_positions(tokens: Iterable[str]) -> list[int]:
    """The gaps between content words (as :func:`_function_word_gaps` numbers them) that
    hold a form of *be*, one entry per form."""
    return [i for i, gap in enumerate(_function_word_gaps(tokens)) for t in gap if t in _BE]


def _be_moved(new: Sequence[str], old: Sequence[str]) -> bool:
    """Whether both texts have as many forms of *be*, not all between the same content
    words: the subject and its verb swapped, as a question swaps them ("Is the staging
    database shared?" is not "The staging database is shared.", which answers it)."""
    new_at, old_at = _be_positions(new), _be_positions(old)
    return bool(new_at) and len(new_at) == len(old_at) and new_at != old_at


def _content(tokens: Iterable[str]) -> Counter[str]:
    return Counter(t for t in tokens if t not in FUNCTION_WORDS)


def _show(tokens: Iterable[str], limit: int = 4) -> str:
    distinct = list(dict.fromkeys(tokens))
    shown = ", ".join(repr(t) for t in distinct[:limit])
    return shown + (", …" if len(distinct) > limit else "")


def _difference(added: Sequence[str], missing: Sequence[str]) -> str:
    """Say what differs, the most telling kind first."""
    new, old = [t for t in added if t in NEGATIONS], [t for t in missing if t in NEGATIONS]
    # a negation in underscores is Markdown's emphasis of it (``_never_``): the notes differ
    # in how they write it, not in whether they negate
    plain_new, plain_old = (
        sorted(w for t in side if (w := t.strip("_")) in NEGATIONS) for side in (added, missing)
    )
    if (new or old) and plain_new != plain_old:
        return f"a negation differs ({_show(new) or 'none'} vs {_show(old) or 'none'})"
    new, old = [t for t in added if _DIGIT.search(t)], [t for t in missing if _DIGIT.search(t)]
    if new or old:
        return f"a number differs ({_show(new) or 'none'} vs {_show(old) or 'none'})"
    if added:
        return f"the new note adds {_show(added)}"
    return f"the stored note also says {_show(missing)}"


def decide(
    new_text: str,
    existing_text: str,
    cosine: float,
    *,
    new_fingerprint: str | None = None,
    existing_fingerprint: str | None = None,
) -> DedupDecision:
    """Is ``new_text`` the same knowledge as ``existing_text`` (cosine ``cosine``)? The
    rules, in the order they apply, are in the module docstring."""
    new_text, existing_text = _visible(new_text), _visible(existing_text)
    new, old = _folded(new_text), _folded(existing_text)
    if new == old:
        cased = _case_differs_in_a_word(new_text, existing_text)
        if cased is not None:
            return DedupDecision(False, f"a word differs in case or spelling ({cased})")
        marked = _code_marks_differ(new_text, existing_text)
        if marked is not None:
            return DedupDecision(False, f"a word's ! or ? differs ({marked})")
        if _code_spacing_differs(new_text, existing_text):
            return DedupDecision(False, _CODE_SPACING)
        return DedupDecision(True, "the same text up to case, whitespace and punctuation")
    if not cosine > DEDUP_THRESHOLD:
        return DedupDecision(False, f"cosine {cosine:.3f} is not above {DEDUP_THRESHOLD}")
    if (new_fingerprint or None) != (existing_fingerprint or None):
        return DedupDecision(False, "a different error signature")
    new_words, old_words = _content(new), _content(old)
    if new_words != old_words:
        added = list((new_words - old_words).elements())
        missing = list((old_words - new_words).elements())
        return DedupDecision(False, _difference(added, missing))
    new_order = [t for t in new if t not in FUNCTION_WORDS]
    old_order = [t for t in old if t not in FUNCTION_WORDS]
    if new_order != old_order:
        return DedupDecision(False, "the same words in another order")
    if _be_moved(new, old):
        return DedupDecision(False, "the same words in another order (a question and a statement)")
    # the content words agree, in order: what differs is the function words between two of
    # them (compared gap by gap — difflib's alignment of two long texts took minutes,
    # inside the write lock)
    changed = [
        token
        for a, b in zip(_function_word_gaps(new), _function_word_gaps(old), strict=True)
        if a != b
        for token in (*a, *b)
    ]
    cased = _code_case_differs(
        *(
            [t for t in fold(text, keep_case=True) if t.lower() not in FUNCTION_WORDS]
            for text in (new_text, existing_text)
        )
    )
    if cased is not None:
        return DedupDecision(False, f"a word differs in case or spelling ({cased})")
    marked = _code_marks_differ(new_text, existing_text)
    if marked is not None:
        return DedupDecision(False, f"a word's ! or ? differs ({marked})")
    if _code_spacing_differs(new_text, existing_text):
        return DedupDecision(False, _CODE_SPACING)
    return DedupDecision(True, f"the same text but for {_show(changed)}")


_CODE_SPACING = "the code differs in its spacing or indentation"


def _code_spacing_differs(new_text: str, existing_text: str) -> bool:
    """Whether the two texts' code (:mod:`kenning.code_spans`) says the same words with
    other spacing: an indentation that puts a statement inside a loop or after it, two
    spaces in a string for one. Only code that agrees span for span but for whitespace
    is compared (a span added or dropped is a formatting matter the other rules weigh)."""
    new, old = code_of(new_text), code_of(existing_text)
    return len(new) == len(old) and any(
        a != b and a.split() == b.split() for a, b in zip(new, old, strict=True)
    )
