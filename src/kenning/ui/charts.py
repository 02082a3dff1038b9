"""The page's plots as geometry: counts, memories added per week, recall scores.

Pure functions (``now`` is passed in): they turn numbers into bars with coordinates, and the
template ``_charts.html`` draws them as inline SVG — no chart library, no script, nothing
fetched. Labels are dates and score ranges, and the collections and types of the stored
rows: another writer's names, which the template shows as the list shows stored text
(escaped, hidden characters as ``U+202E`` markers).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

#: Weeks shown by the "added per week" plot (the current week included).
WEEKS_SHOWN = 12
#: Recall scores are counted in bins of this width over [0, 1].
SCORE_BIN = 0.05

_LABEL_WIDTH = 112  # horizontal bars: room for the longest type name
_ROW = 18
_PLOT_HEIGHT = 96
_PLOT_TOP = 16  # vertical charts: room for the "peak" label above the tallest bar


@dataclass(frozen=True)
class Bar:
    label: str
    value: int
    x: float
    y: float
    width: float
    height: float
    #: ``hit`` for recall scores at or above the floor, else empty.
    kind: str = ""


@dataclass(frozen=True)
class Tick:
    """A labelled position on the horizontal axis (vertical charts) or a marker line."""

    x: float
    label: str


@dataclass(frozen=True)
class Chart:
    title: str
    width: int
    height: int
    bars: tuple[Bar, ...]
    ticks: tuple[Tick, ...] = ()
    #: Vertical marker lines (the recall floors), drawn across the plot.
    marks: tuple[Tick, ...] = ()
    #: ``horizontal`` (label, bar, value per row) or ``vertical`` (columns over an axis).
    orientation: str = "horizontal"
    note: str = ""

    @property
    def empty(self) -> bool:
        return not any(b.value for b in self.bars)

    @property
    def peak(self) -> int:
        return max((b.value for b in self.bars), default=0)

    @property
    def axis_y(self) -> float:
        return _PLOT_TOP + _PLOT_HEIGHT


def horizontal_bars(title: str, counts: Mapping[str, int], width: int = 340) -> Chart:
    """One row per label, longest bar = the largest count; zero rows are left out."""
    rows = [(label, n) for label, n in counts.items() if n > 0]
    top = max((n for _, n in rows), default=0)
    span = width - _LABEL_WIDTH - 40  # room for the value after the bar
    bars = tuple(
        Bar(label, n, _LABEL_WIDTH, i * _ROW + 2, max(1.0, span * n / top), _ROW - 5)
        for i, (label, n) in enumerate(rows)
    )
    return Chart(title, width, max(len(rows), 1) * _ROW + 4, bars)


def _vertical(
    title: str,
    columns: Sequence[tuple[str, int, str]],
    width: int,
    ticks_every: int,
    tick_label: Sequence[str],
) -> tuple[tuple[Bar, ...], tuple[Tick, ...], float]:
    top = max((n for _, n, _ in columns), default=0)
    slot = width / max(len(columns), 1)
    bars = []
    ticks = []
    for i, (label, n, kind) in enumerate(columns):
        height = _PLOT_HEIGHT * n / top if top else 0.0
        bars.append(
            Bar(
                label,
                n,
                i * slot + 1,
                _PLOT_TOP + _PLOT_HEIGHT - height,
                max(slot - 2, 1),
                height,
                kind,
            )
        )
        if i % ticks_every == 0:
            ticks.append(Tick(i * slot + 1, tick_label[i]))
    return tuple(bars), tuple(ticks), slot


def week_start(moment: datetime) -> datetime:
    """Monday 00:00 UTC of the week holding ``moment``."""
    day = moment.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return day - timedelta(days=day.weekday())


def first_week_shown(now: datetime, weeks: int = WEEKS_SHOWN) -> datetime:
    """Monday 00:00 UTC of the first of the last ``weeks`` weeks."""
    return week_start(now) - timedelta(weeks=weeks - 1)


def added_per_week(
    stored: Iterable[datetime],
    now: datetime,
    weeks: int = WEEKS_SHOWN,
    width: int = 340,
    *,
    older: int = 0,
) -> Chart:
    """Memories stored in each of the last ``weeks`` weeks (Monday to Sunday, UTC);
    ``older`` more were stored before them (besides any in ``stored``)."""
    first = first_week_shown(now, weeks)
    counts = [0] * weeks
    for moment in stored:
        index = (week_start(moment) - first).days // 7
        if 0 <= index < weeks:
            counts[index] += 1
        elif index < 0:
            older += 1
    starts = [first + timedelta(weeks=i) for i in range(weeks)]
    labels = [f"{s:%b} {s.day}" for s in starts]
    columns = [(f"week of {label}", n, "") for label, n in zip(labels, counts, strict=True)]
    bars, ticks, _ = _vertical("added per week", columns, width, 3, labels)
    note = f"{older} older" if older else ""
    return Chart(
        f"Added per week (last {weeks})",
        width,
        _PLOT_TOP + _PLOT_HEIGHT + 18,
        bars,
        ticks,
        orientation="vertical",
        note=note,
    )


def recall_histogram(
    scores: Sequence[float], floors: Sequence[float], recalls: int, width: int = 340
) -> Chart:
    """Candidate scores of recent recalls in bins of :data:`SCORE_BIN` over [0, 1] (below 0
    counts in the first bin, above 1 in the last); bins at or above the lowest floor are
    ``hit``; each floor is a marker line."""
    bins = round(1 / SCORE_BIN)
    counts = [0] * bins
    for score in scores:
        # clamped before int(): a score far out of range (1e308 / 0.05 is infinite) still
        # counts in the last bin
        counts[int(min(max(score / SCORE_BIN, 0), bins - 1))] += 1
    lowest = min(floors, default=1.0)
    columns = []
    labels = []
    for i, n in enumerate(counts):
        low = i * SCORE_BIN
        labels.append(f"{low:.1f}")
        kind = "hit" if low + 1e-9 >= lowest else ""
        columns.append((f"{low:.2f}–{low + SCORE_BIN:.2f}", n, kind))
    bars, ticks, _ = _vertical("recall scores", columns, width, 4, labels)
    marks = tuple(Tick(width * f, f"floor {f:.2f}") for f in sorted(set(floors)))
    floors_text = ", ".join(f"{f:.2f}" for f in sorted(set(floors)))
    return Chart(
        f"Recall scores ({recalls} recent recalls, {len(scores)} candidates)",
        width,
        _PLOT_TOP + _PLOT_HEIGHT + 18,
        bars,
        ticks,
        marks,
        orientation="vertical",
        note=f"dashed: the recall floor{'s' if len(set(floors)) > 1 else ''} {floors_text}; "
        "green: at or above the lowest",
    )


__all__ = [
    "Bar",
    "Chart",
    "Tick",
    "added_per_week",
    "first_week_shown",
    "horizontal_bars",
    "recall_histogram",
    "week_start",
]
