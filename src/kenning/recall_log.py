"""The local recall log: the scores of recent recalls, drawn as a histogram by ``kenning ui``.

Off by default; ``KENNING_RECALL_LOG=1`` (environment or ``.env``) or ``recall_log = true``
in ``.kenning/config.toml`` turns it on (:mod:`kenning.config`). Each recall then appends
one JSON line to ``.kenning/recall-log.jsonl`` on this machine, whatever the backend:

``{"at": "2026-11-30T12:00:00+00:00", "floor": 0.5, "scores": [0.71, 0.52, 0.31], "kept": 2}``

``scores`` are the semantic scores of the candidates the protocol considered (best first,
those under the floor included: they show how close the misses were), ``kept`` how many
were returned. **The query text is never written**: queries are error messages, prompts and
plans, which can carry secrets or private code that redaction may miss, and a histogram of
scores does not need them. The file is rotated past :data:`MAX_LOG_BYTES` (one previous
file kept), so it never grows without bound. Writing it never makes a recall fail.
"""

from __future__ import annotations

import json
import logging
import math
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from .model import parse_timestamp

RECALL_LOG_FILENAME = "recall-log.jsonl"
#: Past this size the log is moved to ``recall-log.jsonl.1`` and a new one is started.
MAX_LOG_BYTES = 1_000_000

log = logging.getLogger("kenning.recall_log")


@dataclass(frozen=True)
class RecallLogEntry:
    """One logged recall: when, under which floor, its candidates' scores, how many kept."""

    at: datetime
    floor: float
    scores: tuple[float, ...]
    kept: int

    def to_dict(self) -> dict[str, object]:
        return {
            "at": self.at.isoformat(),
            "floor": self.floor,
            "scores": [round(s, 4) for s in self.scores],
            "kept": self.kept,
        }


def append_entry(path: Path, entry: RecallLogEntry) -> None:
    """Append one line; a failure is logged (stderr) and swallowed: recall must go on.

    The log is a regular file of the store's folder, never anything else found there: a
    symlink (a checkout can carry one in ``.kenning``) is not written through, and a named
    pipe or a device is not opened (a recall would wait on a pipe for a reader)."""
    line = json.dumps(entry.to_dict(), separators=(",", ":")) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            st = None
        if st is not None and not stat.S_ISREG(st.st_mode):
            log.warning(_NOT_A_FILE, path)
            return
        if st is not None and st.st_size > MAX_LOG_BYTES:
            os.replace(path, path.with_name(path.name + ".1"))
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NO_FOLLOW_NO_WAIT, 0o666)
        with os.fdopen(fd, "a", encoding="utf-8") as fh:
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped in since the check
                log.warning(_NOT_A_FILE, path)
                return
            # One write() of a short line in append mode: concurrent recalls do not interleave.
            fh.write(line)
    except OSError as exc:
        log.warning("kenning: could not write the recall log %s: %s", path, exc)


#: Opening the log: never through a symlink, never waiting (a named pipe without a reader
#: or writer fails at once, or opens without blocking and is refused as no regular file).
_NO_FOLLOW_NO_WAIT = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_NOT_A_FILE = (
    "kenning: the recall log %s is not a regular file (a symlink, a named pipe or a device): "
    "it is left alone and not written; remove it to keep the log"
)


def _read_log(path: Path) -> str:
    """The text of the log file at ``path`` (its last :data:`MAX_LOG_BYTES` and a little,
    as it is rotated past that); ``OSError`` for anything but a regular file."""
    fd = os.open(path, os.O_RDONLY | _NO_FOLLOW_NO_WAIT)
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{path} is not a regular file")
        keep = 2 * MAX_LOG_BYTES
        if st.st_size > keep:
            fh.seek(st.st_size - keep)
        data = fh.read(keep)
    return data.decode("utf-8", errors="replace")


def _parse(line: str) -> RecallLogEntry | None:
    try:
        data = json.loads(line)
        scores = tuple(float(s) for s in data["scores"])
        entry = RecallLogEntry(
            parse_timestamp(data["at"]), float(data["floor"]), scores, int(data["kept"])
        )
    except (ValueError, KeyError, TypeError, OverflowError):  # OverflowError: int(1e400)
        return None
    if not all(math.isfinite(s) for s in (*entry.scores, entry.floor)):
        return None
    return entry


def read_recent(path: Path, limit: int = 500) -> list[RecallLogEntry]:
    """The last ``limit`` readable entries, oldest first (unreadable lines are skipped)."""
    lines: Sequence[str] = []
    for candidate in (path, path.with_name(path.name + ".1")):
        try:
            lines = [*_read_log(candidate).splitlines(), *lines]
        except OSError:
            continue
        if len(lines) >= limit:
            break
    entries = [e for e in (_parse(line) for line in lines if line.strip()) if e is not None]
    return entries[-limit:]


__all__ = ["RECALL_LOG_FILENAME", "RecallLogEntry", "append_entry", "read_recent"]
