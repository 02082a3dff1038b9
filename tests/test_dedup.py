"""Tests for kenning.dedup: the near-duplicate decision (pure; cosines are given)."""

from __future__ import annotations

from collections.abc import Callable

from kenning import MemoryStore, open_store, protocol
from kenning.backends.base import Filters
from kenning.dedup import FUNCTION_WORDS, NEGATIONS, NEIGHBOURS, decide, fold
from kenning.safety import normalise_content

from .case_table import each_case

ABOVE = 0.97  # a cosine above the protocol's gate
BELOW = protocol.DEDUP_THRESHOLD  # not above it: the gate is strict


@each_case(
    ("text", "tokens"),
    [
        ("Use ruff for linting.", ["use", "ruff", "for", "linting"]),
        ("Don't run X", ["do", "not", "run", "x"]),
        ("dont run X", ["do", "not", "run", "x"]),
        ("can't, won't; cannot", ["can", "not", "will", "not", "can", "not"]),
        ("J.K. Rowling's book", ["jk", "rowlings", "book"]),
        ("version 1.0 at 10:30, 1,000/s", ["version", "1.0", "at", "10:30", "1,000/s"]),
        # a quote after "(" opens a string in code: it and its closing one stay; the others
        # are prose
        ('"=test"("a")', ["=", "test", "(", '"', "a", '"', ")"]),
        ("`printf`-style dairy-free", ["printf-style", "dairy-free"]),
        ("“Quoted” ‘text’ « here »", ["quoted", "text", "here"]),
    ],
)
def test_fold(text: str, tokens: list[str]) -> None:
    assert fold(text) == tokens


def test_fold_keeps_numbers_apart() -> None:
    assert fold("version 1.0") != fold("version 10")
    assert fold("at 10:30") != fold("at 1030")


@each_case(
    ("existing", "new"),
    [
        ("Use ruff for linting.", "use ruff for linting!"),
        ("Use ruff for linting.", "USE RUFF FOR LINTING"),
        ("Use ruff\nfor   linting.", "Use ruff for linting"),
        ("Sam is grateful for Evan's support.", "Sam is grateful for Evans support"),
        ("Don't commit the .env file.", "Do not commit the .env file"),
    ],
)
def test_same_text_up_to_case_whitespace_punctuation_is_a_duplicate_even_below_the_gate(
    existing: str, new: str
) -> None:
    # MiniLM's word pieces can put such a pair below the gate (0.77 was measured for the
    # apostrophe): the words are the same, so the note is.
    for cosine in (ABOVE, BELOW, 0.5):
        decision = decide(new, existing, cosine)
        assert decision.duplicate, decision
        assert "case, whitespace and punctuation" in decision.reason


@each_case(
    "new",
    [
        "Enable W\u200bAL mode and set busy_timeout",  # a zero-width space pasted from a page
        "Enable WAL mode and set busy_timeout\u200b",
        "Enable WAL mode and set busy_time\u00adout",  # a soft hyphen
        "Enable \u202aWAL\u202c mode and set busy_timeout",  # a bidi embedding
        "Enable WAL\u2060 mode and set busy_timeout",  # a word joiner
    ],
)
def test_invisible_format_characters_do_not_make_another_note(new: str) -> None:
    """A note pasted again from a web page or a chat, with a zero-width space, a soft
    hyphen or a bidi mark in it, reads the same: it was stored a second time (the
    character is a symbol to the word rules: "lacks the word '\u200b'")."""
    existing = "Enable WAL mode and set busy_timeout"
    for cosine in (ABOVE, BELOW, 0.5):
        decision = decide(normalise_content(new), existing, cosine)
        assert decision.duplicate, (new, decision)


@each_case(
    ("existing", "new"),
    [
        ("\u26a0\ufe0f Never run the migrations on a Friday", "\u26a0 Never run the migrations on a Friday"),
        ("\u2705 Use uv for installs", "\u2705\ufe0f Use uv for installs"),
        ("Press \u2318+K to search", "Press \u2318\ufe0e+K to search"),  # text presentation
        ("Enable WAL mode", "Enable W\u034fAL mode"),  # a combining grapheme joiner
    ],
)  # fmt: skip
def test_a_variation_selector_does_not_make_another_note(existing: str, new: str) -> None:
    """An emoji written with or without its presentation selector (U+FE0F: one keyboard,
    editor or model writes it, another does not) looks the same, yet the note was stored a
    second time: the invisible selector was a symbol to the word rules ("the new note adds
    '\ufe0f'", shown as nothing). Default-ignorable characters read as the format ones do."""
    for cosine in (ABOVE, BELOW, 0.5):
        decision = decide(normalise_content(new), existing, cosine)
        assert decision.duplicate, (new, decision)
    # a visible symbol still counts
    other = "\u274c\ufe0f Never run the migrations on a Friday"
    assert not decide(other, "\u26a0 Never run the migrations on a Friday", ABOVE).duplicate


def test_function_words_only_is_a_duplicate_above_the_gate_only() -> None:
    existing = "The API server listens on port 8080 in development."
    new = "API server is listening on port 8080 in development"
    assert not decide(new, existing, ABOVE).duplicate  # "listening" is not "listens"
    new = "An API server listens on port 8080 in the development"
    decision = decide(new, existing, ABOVE)
    assert decision.duplicate and "'an'" in decision.reason and "'the'" in decision.reason
    below = decide(new, existing, BELOW)
    assert not below.duplicate and "not above" in below.reason


@each_case(
    ("existing", "new", "needle"),
    [
        ("Always run the migrations before deploying.",
         "Never run the migrations before deploying.", "a negation differs ('never' vs none)"),
        ("Run the migrations before deploying.",
         "Do not run the migrations before deploying.", "a negation differs ('not' vs none)"),
        ("Never run the migrations in production.",
         "Run the migrations in production.", "a negation differs (none vs 'never')"),
        # Markdown's emphasis of a negation says it as the other note does: the reason
        # named a negation that differs ("none vs 'never'")
        ("Never push directly to main", "_Never_ push directly to main",
         "the new note adds '_never_'"),
        ("_Never_ push directly to main", "Never push directly to main",
         "the new note adds 'never'"),
        ("The rate limit is 100 requests per minute.",
         "The rate limit is 1000 requests per minute.", "a number differs ('1000' vs '100')"),
        ("The API server listens on port 8080.",
         "The API server listens on port 8081.", "a number differs ('8081' vs '8080')"),
        ("Pin numpy to version 1.0.", "Pin numpy to version 10.", "a number differs"),
        ("Checks for extraneous whitespace before an operator.",
         "Checks for extraneous whitespace after an operator.", "adds 'after'"),
        ("Enable WAL mode for the SQLite store.",
         "Disable WAL mode for the SQLite store.", "adds 'disable'"),
        ('llvm_asm!("xor" : "=test"("a"));', 'llvm_asm!("xor" : "+test"("a"));', "adds '+'"),
        ("Gina lost her job at Door Dash during the month of the conversation.",
         "Gina lost her job at Door Dash.", "also says 'during'"),
        ("A trait method was declared static but the implementation takes self.",
         "A trait method was declared self but the implementation takes static.",
         "the same words in another order"),
    ],
)  # fmt: skip
def test_one_word_that_matters_keeps_the_note(existing: str, new: str, needle: str) -> None:
    decision = decide(new, existing, ABOVE)
    assert not decision.duplicate
    assert needle in decision.reason


def test_error_fingerprints_must_agree() -> None:
    text = "ERROR-FIX: boom | FIX: restart | SOURCE: docs/a.md — x"
    variant = text.replace("restart", "the restart")
    assert decide(variant, text, ABOVE, new_fingerprint="a", existing_fingerprint="a").duplicate
    for new_fp, old_fp in (("a", "b"), ("a", None), (None, "b")):
        decision = decide(variant, text, ABOVE, new_fingerprint=new_fp, existing_fingerprint=old_fp)
        assert not decision.duplicate and decision.reason == "a different error signature"


def test_word_lists_are_disjoint() -> None:
    # a negation is never a function word: dropping one must never read as a restatement
    assert not FUNCTION_WORDS & NEGATIONS


@each_case(
    ("existing", "new"),
    [
        ("SQL: use WHERE status != 'done' to skip finished jobs",
         "SQL: use WHERE status = 'done' to skip finished jobs"),
        ("Check the exit code with echo $?", "Check the exit code with echo $!"),
        ("Clean with rm -rf ./build first", "Clean with rm -rf /build first"),
        ("The config lives in ../config/app.yaml", "The config lives in /config/app.yaml"),
        ("Read it as user?.name in the template", "Read it as user.name in the template"),
        ("Guard with if (!isReady) return early", "Guard with if (isReady) return early"),
        ("Use std::io for reading files", "Use std.io for reading files"),
        ("Secrets go in .env.local only", "Secrets go in env.local only"),
        ("complexity is O(n²)", "complexity is O(n2)"),
        ("C#: use string not String", "C#: use String not string"),
        ("Go: export Handler from the package", "Go: export handler from the package"),
        ("Maße in mm", "Masse in mm"),
        ("Validate with user.save! so a bad record raises",
         "Validate with user.save so a bad record raises"),
        ("Cast it with value as? Config to get an optional",
         "Cast it with value as! Config to get an optional"),
        ("Call try? await fetch() to ignore the error", "Call try await fetch() to ignore the error"),
        ("Validate with user.save! so a bad record raises",
         "Validate with the user.save so a bad record raises"),
        ("In jobs call record.save! so failures raise; in controllers call record.save so "
         "the form re-renders.",
         "In jobs call record.save so failures raise; in controllers call record.save! so "
         "the form re-renders."),
        ("In the controller use user.save! && redirect_to user",
         "In the controller use user.save && redirect_to user"),
        ("Read it with dict[key]! because the key is always set",
         "Read it with dict[key] because the key is always set"),
        ("Run user.save! “now” to persist.", "Run user.save “now” to persist"),
        ("Call `user.save!`, not `user.save`, in the importer.",
         "Call `user.save`, not `user.save!`, in the importer."),
        ("Fix:\n```ruby\nuser.save!\nAuditLog.create!(user: user)\n```",
         "Fix:\n```ruby\nuser.save\nAuditLog.create!(user: user)\n```"),
        ("Fix:\n```ruby\nuser.save!\n```", "Fix:\n```ruby\nuser.save\n```"),
        ("let data = try? JSONDecoder().decode(User.self, from: json)",
         "let data = try JSONDecoder().decode(User.self, from: json)"),
        ("guard let n = value as? Int else { return }", "guard let n = value as Int else { return }"),
        ("Χρησιμοποιήστε το ΟΣΕ.Σ! τώρα", "Χρησιμοποιήστε το ΟΣΕ.Σ τώρα"),
        ("Read it:\n```rust\nlet config = read_config()?\n```",
         "Read it:\n```rust\nlet config = read_config()\n```"),
    ],
)  # fmt: skip
def test_code_punctuation_and_a_words_case_keep_notes_apart(existing: str, new: str) -> None:
    """A mark inside code is no prose punctuation, and a word in another case (but for a
    whole text in upper or lower case) is another word: such notes were merged as "the same
    text up to case, whitespace and punctuation", at any cosine, and the second was lost."""
    for cosine in (ABOVE, 0.5):
        decision = decide(new, existing, cosine)
        assert not decision.duplicate, decision


@each_case(
    ("existing", "new"),
    [
        ("run pytest with -x to stop at the first failure",
         "run pytest with -X to stop at the first failure"),
        ("search case-insensitively with grep -i", "search case-insensitively with grep -I"),
        ("ls -l shows the link itself", "ls -L shows the link itself"),
        ("the entry point is src/main.rs", "the entry point is src/Main.rs"),
        ("call document.getElementById once", "call document.getelementbyid once"),
        ("run the tests with pytest -x", "run tests with pytest -X"),
        ("echo $path to see the search path", "echo $PATH to see the search path"),
        ("import it from std::io here", "import it from std::Io here"),
    ],
)  # fmt: skip
def test_a_flags_case_keeps_notes_apart_in_a_lower_case_text(existing: str, new: str) -> None:
    """Case is meaningful in a flag, a path or an identifier: a note written all in lower
    case but for one flag was taken for the other note "in another case throughout" and
    merged (``-x`` stops at the first failure, ``-X`` does not exist), and the second lost."""
    for cosine in (ABOVE, BELOW):
        for a, b in ((new, existing), (existing, new)):
            decision = decide(a, b, cosine)
            assert not decision.duplicate, decision
            assert "case" in decision.reason or cosine == BELOW


@each_case(
    ("existing", "new"),
    [
        ("Use netstat -an to list open ports", "Use netstat -a to list open ports"),
        ('Stage and commit everything with git commit -am "msg"',
         'Stage and commit everything with git commit -a "msg"'),
        ("Pass --be to the linter for the strict rules", "Pass --the to the linter for the strict rules"),
        ("In PHP use $this inside the class", "In PHP use $that inside the class"),
        ("ls -A lists hidden files", "ls -a lists hidden files"),
    ],
)  # fmt: skip
def test_a_flag_spelled_as_a_function_word_keeps_notes_apart(existing: str, new: str) -> None:
    """A flag or a variable spelled as an article or a form of *be* (``-a``, ``-an``,
    ``-am``, ``$this``) was read as that word: "netstat -an" and "netstat -a" were "the
    same text but for 'a', 'an'" and the second note was lost. With its sign it is a name."""
    for a, b in ((new, existing), (existing, new)):
        decision = decide(a, b, ABOVE)
        assert not decision.duplicate, decision


@each_case(
    ("existing", "new"),
    [
        ("CI runs just the unit tests on pull requests", "CI runs the unit tests on pull requests"),
        ("Run `just migrate` before starting the API", "Run `migrate` before starting the API"),
        ("The search index is being rebuilt, do not query it",
         "The search index is rebuilt, do not query it"),
    ],
)  # fmt: skip
def test_just_and_being_say_something(existing: str, new: str) -> None:
    """ "just" (only; a command runner's name) and "being" (not done yet) were fillers:
    "CI runs just the unit tests" merged into "CI runs the unit tests", and "the index is
    being rebuilt, do not query it" into "… is rebuilt", its opposite; the second was lost.
    (STS-B dev, bench dedup --calibrate: the same 11 pairs merged, all true, before and
    after.)"""
    for a, b in ((new, existing), (existing, new)):
        decision = decide(a, b, ABOVE)
        assert not decision.duplicate, decision


@each_case(
    ("existing", "new"),
    [
        ("On macOS run sed -i '' 's/foo/bar/' config.ini", "On macOS run sed -i 's/foo/bar/' config.ini"),
        ('In ci.yml set python-version: "3.10"', "In ci.yml set python-version: 3.10"),
        ('The feature flag payload must be {"enabled": "true"}',
         'The feature flag payload must be {"enabled": true}'),
        ('Print it with echo "$TAG" in the job', "Print it with echo '$TAG' in the job"),
        ('Clean with rm -rf "$BUILD_DIR"/dist first', "Clean with rm -rf $BUILD_DIR/dist first"),
        ("Set BUILD_TIME=`date +%s` in the Makefile", "Set BUILD_TIME=date +%s in the Makefile"),
        ("Read config['timeout'] before the retry loop", "Read config[timeout] before the retry loop"),
        ("Postgres: WHERE status = 'active' works", 'Postgres: WHERE status = "active" works'),
        ("FIX: use .get('user_id') on the session", "FIX: use .get(user_id) on the session"),
    ],
)  # fmt: skip
def test_a_strings_quotes_in_code_keep_notes_apart(existing: str, new: str) -> None:
    """Quotes were prose everywhere: "python-version: "3.10"" (a string) merged into
    "python-version: 3.10" (the number 3.1), WHERE status = 'active' into = "active" (a
    column), sed -i '' into sed -i; the second note was lost. A quote that makes a string
    in code counts (after = : ( [ {, against $ / \\, an empty pair)."""
    for a, b in ((new, existing), (existing, new)):
        decision = decide(a, b, ABOVE)
        assert not decision.duplicate, decision


@each_case(
    ("existing", "new"),
    [
        ('Use "WAL" mode for concurrent writers', "Use WAL mode for concurrent writers"),
        ("Don't commit .env files", "Dont commit .env files"),
        ("Run `ruff check` before pushing", "Run ruff check before pushing"),
        ("We call it the 'dry run' flag", "We call it the dry run flag"),
        ("Use “smart” quotes here", 'Use "smart" quotes here'),
        ("Example:\n```\nmake build\n```", "Example:\nmake build"),
    ],
)
def test_prose_quotes_still_merge(existing: str, new: str) -> None:
    decision = decide(new, existing, ABOVE)
    assert decision.duplicate, decision


@each_case(
    ("existing", "new"),
    [
        ("Propagate the error with File::open(path)?", "Propagate the error with File::open(path)"),
        ("Read the first row with rows[0]?", "Read the first row with rows[0]"),
        ("In the importer, call record.save!", "In the importer, call record.save"),
        ("In the importer, call record.save!", "In the importer, call record.save."),
        ("In the form handler read the ref as inputRef.current!",
         "In the form handler read the ref as inputRef.current"),
        ("Walk the list with node->next?", "Walk the list with node->next"),
    ],
)  # fmt: skip
def test_an_operator_ending_a_note_keeps_notes_apart(existing: str, new: str) -> None:
    """The marks ending a note were prose whatever they followed: Rust's ``?`` on a call at
    the end of a note ("… File::open(path)?") was dropped, and the note without it, which
    does not propagate the error, merged into it; so were Ruby's ``record.save!`` (it raises,
    ``save`` returns false) and TypeScript's ``inputRef.current!``, where a correction of a
    note was lost into the note it corrects. After a call's or an index's closing bracket a
    ``?`` is an operator, and after a member a ``!`` or a ``?``. (A full stop or a ``!``
    after a bracket, and any mark after a word or a number, still ends a sentence.)"""
    for a, b in ((new, existing), (existing, new)):
        decision = decide(a, b, ABOVE)
        assert not decision.duplicate, decision
    for plain, said in (
        ("Run the tests (all of them)", "Run the tests (all of them)."),
        ("Run the tests (all of them)", "Run the tests (all of them)!"),
        ("We shipped v1.2", "We shipped v1.2!"),
        ("Our demos moved to YouTube", "Our demos moved to YouTube!"),
        ("In the importer, call record.save", "In the importer, call record.save."),
        ("In the importer, call record.save!", "IN THE IMPORTER, CALL RECORD.SAVE!"),
    ):
        decision = decide(plain, said, ABOVE)
        assert decision.duplicate, decision


def test_a_prose_dash_before_an_article_is_still_prose() -> None:
    """A dash set apart by spaces is punctuation: the article after it is still one."""
    decision = decide("Run the tests - a quick check", "Run the tests - the quick check", ABOVE)
    assert decision.duplicate, decision


@each_case(
    ("existing", "new"),
    [
        ("Use WAL", "use WAL"),
        ("Run pytest with -X to stop.", "run pytest with -x to stop"),
        ("Run pytest with -X to stop.", "RUN PYTEST WITH -X TO STOP"),
        ("Open src/Main.rs first.", "open src/main.rs first"),
        ("Run the tests with pytest -X.", "run tests with pytest -x"),
    ],
)
def test_a_whole_text_in_another_case_still_merges_with_its_flags(existing: str, new: str) -> None:
    """A text re-cased throughout differs in its prose words too: it is the same note."""
    decision = decide(new, existing, ABOVE)
    assert decision.duplicate, decision


@each_case(
    "make",
    [
        str.upper,
        str.lower,
        lambda t: t.rstrip(".") + "!",
        # the prose quotes (a contraction's, inline code's backticks); 'done' after != is a
        # string in SQL, and without its quotes a column: another note
        lambda t: t.replace("`", "").replace("Don't", "Dont"),
    ],
    ids=["upper", "lower", "final mark", "quotes"],
)
def test_whole_text_variants_of_code_notes_are_still_duplicates(make: Callable[[str], str]) -> None:
    for text in (
        "Don't run `rm -rf ./build` before `make`; use WHERE status != 'done'.",
        "Call user.save! so it raises. Why? Bad rows must fail loudly; cast with as? Config.",
    ):
        decision = decide(make(text), text, BELOW)
        assert decision.duplicate, decision


@each_case(
    ("existing", "new"),
    [
        ("Why? Bad rows must fail loudly.", "Why Bad rows must fail loudly."),
        ("Done! Now rebase onto main.", "Done. Now rebase onto main."),
        ("Did you see it? yes, I saw it! It was great.", "Did you see it? yes I saw it It was great"),
        ("DİKKAT! bu komut veriyi siler", "dİkkat! bu komut veriyi siler".lower()),
        ("İstanbul? evet İstanbul! Çok güzel.", "i̇stanbul? evet i̇stanbul! çok güzel."),
        ("Χρησιμοποιήστε το ΟΣΕ.Σ! τώρα", "χρησιμοποιήστε το οσε.ς! τώρα"),
        ("In Swift, e.g. in a catch block, use e! only after checking e.",
         "In Swift, eg in a catch block, use e! only after checking e."),
        ("You cannot skip can? :update here.", "You can not skip can? :update here."),
    ],
)  # fmt: skip
def test_a_mark_dropped_before_a_capital_is_prose(existing: str, new: str) -> None:
    """``!`` and ``?`` keep notes apart only where they are code (before anything but a capital,
    or another mark on the same word); before a capital they end a sentence."""
    decision = decide(new, existing, BELOW)
    assert decision.duplicate, decision


@each_case(
    "text",
    ["." * 240_000 + "x", ". " * 120_000, "x" + "!?" * 120_000, "word. " * 40_000],
    ids=["dots", "dot-space", "marks at the end", "sentences"],
)
def test_fold_takes_linear_time_on_runs_of_marks(text: str) -> None:
    """A pattern that tried each mark of a long final run took 172 s for 240k characters,
    inside the write transaction of every later remember in that store."""
    import time

    start = time.thread_time()
    fold(text)
    assert time.thread_time() - start < 2.0


@each_case(
    ("existing", "new"),
    [
        (" ".join(["x the"] * 12_000), " ".join(["x a"] * 12_000)),
        ("a! b? " * 20_000 + "end", "a b " * 20_000 + "end"),
        ("save! " * 40_000 + "x", "save " * 40_000 + "x"),
        ("```\n" + "x!\n" * 20_000 + "```", "```\n" + "x\n" * 20_000 + "```"),
        ("a! b\n" * 13_000, "a b\n" * 13_000),
    ],
    ids=["function words", "marks", "one word", "a code block's lines", "lines"],
)
def test_decide_takes_linear_time_on_long_notes(existing: str, new: str) -> None:
    """Naming the function words two long notes differ in aligned them with difflib: 195 s
    for 12k characters, inside the write lock."""
    import time

    start = time.thread_time()
    decide(new, existing, ABOVE)
    assert time.thread_time() - start < 2.0


@each_case(
    ("existing", "new"),
    [
        ("name?: string in the interface", "name: string in the interface"),
        ("call read_config()? here", "call read_config() here"),
        ("build it with docker build .", "build it with docker build"),
    ],
)
def test_marks_that_are_code_before_a_space_keep_notes_apart(existing: str, new: str) -> None:
    assert not decide(new, existing, 0.97).duplicate


@each_case(
    "text",
    [
        "Run user.save! “now” to persist.",
        "Swift casts: as? (optional) vs as! forces the cast and crashes on failure.",
        "Did you see it? yes, I saw it! It was great.",
        "Use map[key]!! so a missing key throws; «really?» Yes.",
        "In the controller use user.save! && redirect_to user, then return.",
        "DİKKAT! bu komut veriyi siler. Café? «oui» d'accord!",
        "Example:\n\n```\nlet mut x: i8 = 12;\nx += 1; // ok!\n```",
        "Run it in a block that is never closed:\n```\nmake build.",
    ],
)
def test_the_benchmarks_variants_are_duplicates(text: str) -> None:
    """``bench dedup`` makes its variants (its punctuation variant by its own copy of the
    definition of prose punctuation): each must be one that kenning merges, or the
    benchmark's 100% would measure nothing. (A mark closing the last line before a code
    fence was read as code once the variant put a mark after the fence.)"""
    from bench.dedup import VARIANTS

    original = normalise_content(text)
    for name, make in VARIANTS.items():
        variant = normalise_content(make(text))
        decision = decide(variant, original, BELOW)
        assert decision.duplicate, (name, variant, decision)


def test_the_benchmarks_punctuation_variant_takes_linear_time() -> None:
    """Its check for ``try``/``as`` before a run searched the whole text before each run."""
    import time

    from bench.dedup import _without_punctuation

    start = time.thread_time()
    _without_punctuation("a! b " * 16_000)
    assert time.thread_time() - start < 1.0


@each_case(
    ("existing", "new"),
    [
        ("Is the staging database shared with production?",
         "The staging database is shared with production."),
        ("Are the integration tests flaky on CI?", "The integration tests are flaky on CI."),
        ("Was the users migration applied in prod?", "The users migration was applied in prod."),
        ("The cache was warmed before the deploy.", "Was the cache warmed before the deploy?"),
    ],
)  # fmt: skip
def test_a_question_is_not_the_statement_that_answers_it(existing: str, new: str) -> None:
    # MiniLM puts the two at 0.95: only 'is' moved. The question (a blocker) stored first
    # swallowed the answer (a decision) remembered later, and the answer was lost.
    decision = decide(new, existing, ABOVE)
    assert not decision.duplicate, decision
    assert "another order" in decision.reason
    # a form of be dropped, or another one in its place, is still the same note
    for same in (new.replace(" is ", " "), new.replace(" is ", " was ")):
        if same != new:
            assert decide(same, new, ABOVE).duplicate


def test_the_micro_sign_and_greek_mu_are_one_letter(store: MemoryStore) -> None:
    """``µ`` (U+00B5, the micro sign a keyboard's AltGr+m types) and ``μ`` (U+03BC, Greek
    mu, what a spell checker or a web page puts) are one letter that NFC leaves apart (NFKC
    joins them): a note restated with the other one was stored again. ``ß`` and ``ss`` stay
    apart: "Maße" (measures) is not "Masse" (mass)."""
    first = store.remember("The sensor timeout is 500 µs on the bench rig.", "context")
    again = store.remember("The sensor timeout is 500 μs on the bench rig.", "context")
    assert first.status == "stored"
    assert (again.status, again.id) == ("near-duplicate", first.id), again
    assert fold("1 µs") == fold("1 μs") and fold("Maße") != fold("Masse")
    assert store.count() == 1


def test_full_width_letters_and_digits_are_the_same_note(store: MemoryStore) -> None:
    """A Japanese or Chinese input method types letters and digits full-width
    (``ＥＲＲＯＲ　１２３``) and half-width katakana (``ｴﾗｰ``) where another keyboard types
    ``ERROR 123`` and ``エラー``: the same characters in another width, which the dedup key
    reads as one (NFKC's ``<wide>`` and ``<narrow>`` foldings only: ``n²`` is not ``n2``).
    The note is kept as it was written."""
    typed = "ＥＲＲＯＲ　１２３： ｄｉｓｋ ｑｕｏｔａ ｅｘｃｅｅｄｅｄ on the runner ｴﾗｰ"
    first = store.remember(typed, "context")
    again = store.remember("ERROR 123: disk quota exceeded on the runner エラー", "context")
    assert first.status == "stored"
    assert (again.status, again.id) == ("near-duplicate", first.id), again
    assert store.count() == 1
    kept = store.get(first.id)
    assert kept is not None and kept.content == normalise_content(typed)
    assert "ｄｉｓｋ" in normalise_content(typed)  # the stored text keeps its width
    assert fold("ｶﾞｲﾄﾞ") == fold("ガイド") and fold("n²") != fold("n2")
    assert not decide("ERROR 124", "ＥＲＲＯＲ １２３", ABOVE).duplicate


def test_an_ellipsis_character_is_three_dots(store: MemoryStore) -> None:
    """macOS, iOS, Word and chat apps turn a typed ``...`` into ``…`` (U+2026, which NFKC
    reads as three dots): a note restated from another editor was stored again ("the new
    note adds '…'"), where ``...`` in its place is prose punctuation, as ``.`` is."""
    first = store.remember("The build hangs... then times out after 10 minutes.", "context")
    again = store.remember("The build hangs… then times out after 10 minutes.", "context")
    assert first.status == "stored"
    assert (again.status, again.id) == ("near-duplicate", first.id), again
    kept = store.get(first.id)
    assert kept is not None and "..." in kept.content
    assert fold("f(…)") == fold("f(...)") and fold("1…5") != fold("15")


def test_a_cjk_full_stop_or_comma_is_prose_punctuation(store: MemoryStore) -> None:
    """``。`` and ``、`` are Japanese's and Chinese's full stop and comma: a note restated
    without its final ``。`` was stored again ("the new note adds '。'"), where an English
    one without its final ``.`` is the same note."""
    first = store.remember("ビルドはキャッシュを消してから再実行すること。", "context")
    again = store.remember("ビルドはキャッシュを消してから再実行すること", "context")
    assert first.status == "stored"
    assert (again.status, again.id) == ("near-duplicate", first.id), again
    kept = store.get(first.id)
    assert kept is not None and kept.content.endswith("。")
    assert fold("先清除缓存、然后重试。") == fold("先清除缓存,然后重试")
    assert fold("先清除缓存。然后重试") != fold("先清除缓存然后重试")


def test_every_languages_quotation_marks_are_quotes(store: MemoryStore) -> None:
    """Curly quotes, German's „…“ and French's «…» were read as quotes, but not German's
    single ‚…‘, the single guillemets ‹…› nor Japanese's corner brackets 「…」『…』: a note
    restated with straight quotes (or none) was stored again ("the new note adds '‚'")."""
    first = store.remember("Führe ‚make test‘ vor dem Push aus.", "context")
    again = store.remember("Führe 'make test' vor dem Push aus.", "context")
    assert first.status == "stored"
    assert (again.status, again.id) == ("near-duplicate", first.id), again
    kept = store.get(first.id)
    assert kept is not None and "‚make test‘" in kept.content
    assert fold("Lancez ‹make test› avant") == fold('Lancez "make test" avant')
    assert fold("「npm ci」を使う") == fold("npm ciを使う") == fold("『npm ci』を使う")
    assert fold("‟quoted”") == fold('"quoted"')


def test_a_restatement_among_many_close_siblings_is_found_past_the_tenth(
    store: MemoryStore,
) -> None:
    """Only the ten nearest stored notes were compared: among 24 notes that differ in their
    preposition alone, "… within the class docstring!!!" ranks its original 14th (MiniLM
    cosine 0.946, every sibling above it closer still), so the same note was stored twice.
    Past the tenth the store reads on while the cosine passes the gate; an unrelated note
    is still stored, and a sibling is still not its neighbour's duplicate."""
    places = [
        "before",
        "after",
        "around",
        "inside",
        "outside",
        "near",
        "beside",
        "within",
        "beyond",
        "under",
        "over",
        "behind",
        "past",
        "along",
        "across",
        "between",
        "among",
        "toward",
        "against",
        "upon",
        "below",
        "above",
        "beneath",
        "throughout",
    ]
    ids = {}
    for place in places:
        result = store.remember(f"Flags a blank line {place} the class docstring", "rule")
        assert result.status == "stored", (place, result)
        ids[place] = result.id
    query = store.embedder.embed(["Flags a blank line within the class docstring!!!"])[0]
    ranked = [
        c.memory.id
        for c in store.retrieve("x", 40, Filters(store.group_id), mode="dense", vector=query)
    ]
    assert ranked.index(ids["within"]) >= NEIGHBOURS, "the original is among the first ten"
    again = store.remember("Flags a blank line within the class docstring!!!", "rule")
    assert (again.status, again.id) == ("near-duplicate", ids["within"]), again
    assert store.remember("Flags a blank line inside the module docstring", "rule").status == (
        "stored"
    )
    assert store.count() == len(places) + 1


def test_a_correction_by_a_members_bang_is_stored(store: MemoryStore) -> None:
    """A note corrected by the ``!`` of a member ending it (Ruby's ``save!`` raises where
    ``save`` returns false) was merged into the note it corrects, through ``remember`` as
    any agent writes it, and the correction was lost; restated in upper case it merges."""
    first = store.remember("In the importer, call record.save", "rule")
    correction = store.remember("In the importer, call record.save!", "rule")
    assert first.status == correction.status == "stored", correction
    again = store.remember("IN THE IMPORTER, CALL RECORD.SAVE!", "rule")
    assert (again.status, again.id) == ("near-duplicate", correction.id), again


def test_a_note_an_older_kenning_stored_with_a_secret_it_missed_is_not_stored_twice(
    store: MemoryStore,
) -> None:
    """An older kenning's rules missed a secret (an ODBC braced password) and stored it in
    the note; remembered again after the upgrade, the note is redacted and was compared
    with the stored text as it was: "a symbol differs", stored a second time, and recall
    gave the same line twice. A redacted note is compared with the stored notes as this
    kenning redacts them."""
    import sqlite3

    from kenning.model import content_hash

    text = (
        "The reporting DB connection string is Driver={ODBC Driver 18};Server=db1;"
        "Uid=report;Pwd={S3cr3tPa;ss#1xq}; use it for the nightly job"
    )
    first = store.remember(text, "context")
    assert first.status == "stored" and first.id and first.redactions, first
    root = store.project.root
    store.close()
    conn = sqlite3.connect(root / ".kenning" / "memory.db", isolation_level=None)
    conn.execute(  # as the older kenning stored it
        "UPDATE memories SET content = ?, content_hash = ? WHERE id = ?",
        (text, content_hash(text), first.id),
    )
    conn.close()
    with open_store(cwd=root, embedder=store.embedder) as again:
        second = again.remember(text, "context")
        assert (second.status, second.id) == ("near-duplicate", first.id), second
        assert again.count() == 1
        # and the row it was merged into no longer holds the secret: redacted in place, as
        # an edit does it, the old text gone from the file
        kept = again.get(first.id)
        assert kept is not None and "S3cr3tPa" not in kept.content, kept
        assert "[REDACTED:" in kept.content, kept.content
    for name in ("memory.db", "memory.db-wal"):
        stored = root / ".kenning" / name
        if stored.exists():
            assert b"S3cr3tPa" not in stored.read_bytes(), name


@each_case(
    ("existing", "new"),
    [
        # a statement inside the loop, or after it
        (
            "Retry loop:\n```python\nfor i in range(3):\n    try_once()\n    sleep(1)\n```",
            "Retry loop:\n```python\nfor i in range(3):\n    try_once()\nsleep(1)\n```",
        ),
        # a YAML key moved out of its mapping
        (
            "Set it:\n```yaml\nbuild:\n  cache: true\n```",
            "Set it:\n```yaml\nbuild:\ncache: true\n```",
        ),
        # two spaces in a string, or one
        ('Split on two spaces: `line.split("  ")`', 'Split on two spaces: `line.split(" ")`'),
        # and with an article changed too (rule 6, not rule 1)
        ('Split on the spaces: `s.split("  ")`', 'Split on spaces: `s.split(" ")`'),
    ],
)
def test_code_that_differs_in_its_spacing_is_another_note(existing: str, new: str) -> None:
    """Whitespace inside code is the code: two notes that differ only there were merged
    as "the same text up to case, whitespace and punctuation", the second program lost."""
    decision = decide(normalise_content(new), normalise_content(existing), 0.99)
    assert not decision.duplicate and "spacing or indentation" in decision.reason, decision


def test_prose_spacing_around_the_same_code_is_still_the_same_note() -> None:
    existing = "Retry loop:\n```python\nfor i in range(3):\n    try_once()\n```\nthen  give up."
    new = "Retry   loop:\n\n```python\nfor i in range(3):\n    try_once()\n```\nthen give up"
    assert decide(normalise_content(new), normalise_content(existing), 0.99).duplicate
