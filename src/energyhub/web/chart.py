"""A device's 24 hours as an inline SVG line chart, laid out here so the template only draws.

Server-side on purpose: the dashboard works without JavaScript, and an inline SVG with
presentation attributes passes the pages' strict Content-Security-Policy. Gaps in recorded
samples (a device that was offline) break the line instead of bridging them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from energyhub.domain.history import History, Metric

WIDTH = 720
HEIGHT = 240
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 12, 28  # room for the axes' labels
GAP = timedelta(minutes=30)  # samples further apart than this are not joined
TICK_HOURS = 4


@dataclass(frozen=True, slots=True)
class Tick:
    at: float  # x or y in SVG units
    label: str


@dataclass(frozen=True, slots=True)
class Chart:
    width: int
    height: int
    lines: tuple[str, ...]  # one SVG `points` list per run of joined samples
    dots: tuple[tuple[float, float], ...]  # samples with no neighbour near enough to join
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    zero_y: float | None  # where 0 kW is, when the scale spans both signs
    plot: tuple[float, float, float, float]  # left, top, right, bottom
    summary: str  # the chart in words (screen readers, and `alt` for everyone)
    hourly: tuple[tuple[str, str], ...]  # (time, value) once an hour, for the table view


def line_chart(history: History) -> Chart:
    points = history.points()
    low, high = _scale(history.metric, [v for _, v in points])
    left, top, right, bottom = LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM
    span = (history.end - history.start).total_seconds() or 1.0

    def x(at: datetime) -> float:
        return round(left + (at - history.start).total_seconds() / span * (right - left), 1)

    def y(value: float) -> float:
        return round(bottom - (value - low) / (high - low) * (bottom - top), 1)

    runs: list[list[tuple[float, float]]] = []
    previous: datetime | None = None
    for at, value in points:
        if previous is None or at - previous > GAP:
            runs.append([])
        runs[-1].append((x(at), y(value)))
        previous = at
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        lines=tuple(" ".join(f"{px},{py}" for px, py in run) for run in runs if len(run) > 1),
        dots=tuple(run[0] for run in runs if len(run) == 1),
        x_ticks=tuple(Tick(x(at), at.strftime("%H:%M")) for at in _hours(history)),
        y_ticks=tuple(
            Tick(y(low + (high - low) * i / 4), _format(low + (high - low) * i / 4))
            for i in range(5)
        ),
        zero_y=y(0.0) if low < 0 < high else None,
        plot=(left, top, right, bottom),
        summary=_summary(history, [v for _, v in points]),
        hourly=_hourly(history),
    )


def _scale(metric: Metric, values: list[float]) -> tuple[float, float]:
    if metric is Metric.LEVEL:
        return 0.0, 100.0
    low = min([0.0, *values])
    high = max([1.0, *values])
    return low, high


def _hours(history: History) -> list[datetime]:
    first = history.start.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    first += timedelta(hours=(-first.hour) % TICK_HOURS)
    ticks = []
    while first <= history.end:
        ticks.append(first)
        first += timedelta(hours=TICK_HOURS)
    return ticks


def _format(value: float) -> str:
    return f"{value:.0f}" if abs(value) >= 10 or value == int(value) else f"{value:.1f}"


def _summary(history: History, values: list[float]) -> str:
    what = "Level" if history.metric is Metric.LEVEL else "Power"
    unit = history.metric.unit
    if not values:
        return f"{what} over the last 24 hours: nothing recorded yet."
    return (
        f"{what} over the last 24 hours (UTC): lowest {_format(min(values))} {unit}, "
        f"highest {_format(max(values))} {unit}, latest {_format(values[-1])} {unit}."
    )


def _hourly(history: History) -> tuple[tuple[str, str], ...]:
    """The sample nearest each whole hour (within the gap), oldest first."""
    rows: list[tuple[str, str]] = []
    points = history.points()
    hour = history.start.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    while hour <= history.end and points:
        at, value = min(points, key=lambda p: abs(p[0] - hour))
        if abs(at - hour) <= GAP:
            rows.append((hour.strftime("%H:%M"), f"{_format(value)} {history.metric.unit}"))
        hour += timedelta(hours=1)
    return tuple(rows)
