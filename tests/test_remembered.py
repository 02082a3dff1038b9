"""The readers of a pasted log read each line once: the pure functions of a line they share
are remembered (:mod:`kenning.remembered`), and a window read again is not read again
(:func:`kenning.log_window.read_of_log`); the answers are those of the functions
themselves."""

from __future__ import annotations

from kenning.hooks.claude_code import PROMPT_LOG_BOUNDS
from kenning.log_formats import without_container_prefix
from kenning.log_window import BOUNDS, log_window, read_of_log
from kenning.querybuild import error_recall_queries, reports_error
from kenning.remembered import REMEMBERED_LINE_CHARS, remembered
from kenning.signatures import leveled_line, line_score, looks_like_error

from .test_log_window import other_services, python_chain


def test_a_remembered_function_answers_as_the_function_and_keeps_only_lines() -> None:
    calls: list[str] = []

    def count(text: str) -> int:
        calls.append(text)
        return len(text)

    counted = remembered(count)
    long = "x" * (REMEMBERED_LINE_CHARS + 1)
    assert [counted("ab"), counted("ab"), counted(long), counted(long)] == [2, 2, *[len(long)] * 2]
    assert calls == ["ab", long, long]  # (a line once; a text longer than a line each time)
    counted.cache_clear()  # type: ignore[attr-defined]
    counted("ab")
    assert calls[-1] == "ab" and len(calls) == 4


def test_a_remembered_function_of_two_texts_keeps_pairs_of_two_lines_at_most() -> None:
    """A function of several texts (search's two error fingerprints) is remembered for
    texts of at most a line's characters each on average: one long and one short text are
    kept together, a pair longer than two lines is read each time."""
    calls: list[tuple[str, str]] = []

    def joined(one: str, other: str) -> str:
        calls.append((one, other))
        return one + other

    kept = remembered(joined)
    long, longer = "x" * (REMEMBERED_LINE_CHARS + 500), "y" * (REMEMBERED_LINE_CHARS - 400)
    assert [kept(long, "ab"), kept(long, "ab")] == [long + "ab"] * 2
    assert [kept(long, longer), kept(long, longer)] == [long + longer] * 2
    assert calls == [(long, "ab"), (long, longer), (long, longer)]


def test_the_remembered_readers_answer_as_they_read() -> None:
    """Each line of a log read with the answers remembered, and read again with them
    forgotten, gets the same answers."""
    chain, _, _ = python_chain([30, 30, 30], during=False)
    lines = [*other_services(300), *chain, "[pod/api-7d9f/api] ERROR boom: KeyError: 'user'"]
    readers = (leveled_line, line_score, looks_like_error, reports_error, without_container_prefix)
    first = [[read(line) for line in lines] for read in readers]
    again = [[read(line) for line in lines] for read in readers]
    for read in readers:
        read.cache_clear()  # type: ignore[attr-defined]
    fresh = [[read(line) for line in lines] for read in readers]
    assert first == again == fresh


def test_a_window_read_again_is_itself_only_within_the_bounds_it_was_read_whole_in() -> None:
    """A log's window, read again, is read whole (the same object), as often as it is
    read; but a text read whole within the commands' bounds is still read in part within
    the prompt hook's smaller ones, after it was read whole within the commands'."""
    chain, root, crash = python_chain([150, 150, 150], during=False)
    log = "\n".join([*other_services(4_000), *chain, *other_services(3_000, 4_000)])
    window = log_window(log).text
    assert window is not log
    assert read_of_log(window) is window and read_of_log(window) is window
    assert read_of_log(window, BOUNDS) is window
    smaller = read_of_log(window, PROMPT_LOG_BOUNDS)
    assert smaller is not window and len(smaller) < len(window)
    assert smaller == log_window(window, PROMPT_LOG_BOUNDS).text
    # (and the queries of the window are those of the log: it is what they read)
    queries, fallbacks = error_recall_queries(window)
    assert (queries, fallbacks) == error_recall_queries(log)
    assert queries[0] == (crash, True) and (root, True) in fallbacks
