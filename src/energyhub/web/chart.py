"""A device's 24 hours as an inline SVG line chart, laid out here so the template only draws.

Server-side on purpose: the dashboard works without JavaScript, and an inline SVG with
presentation attributes passes the pages' strict Content-Security-Policy. Gaps in recorded
samples (a device that was offline) break the line instead of bridging them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

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


def line_chart(history: History, zone: ZoneInfo | None = None) -> Chart:
    """The chart, its hours labelled on the wall clock of `zone` (UTC when None)."""
    tz = zone or ZoneInfo("UTC")
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
        x_ticks=tuple(Tick(x(at), _clock(at, tz)) for at in _hours(history, tz)),
        y_ticks=tuple(
            Tick(y(low + (high - low) * i / 4), _format(low + (high - low) * i / 4))
            for i in range(5)
        ),
        zero_y=y(0.0) if low < 0 < high else None,
        plot=(left, top, right, bottom),
        summary=_summary(history, [v for _, v in points], tz),
        hourly=_hourly(history, tz),
    )


def _scale(metric: Metric, values: list[float]) -> tuple[float, float]:
    if metric is Metric.LEVEL:
        return 0.0, 100.0
    low = min([0.0, *values])
    high = max([1.0, *values])
    return low, high


def _hours(history: History, tz: ZoneInfo) -> list[datetime]:
    """Every whole hour of the span whose wall-clock hour is a multiple of TICK_HOURS (whole
    hours in UTC are whole hours in every zone but a few half-hour ones; those get UTC's)."""
    first = history.start.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    ticks = []
    while first <= history.end:
        local = first.astimezone(tz)
        on_the_hour = local.hour if local.minute == 0 else first.hour
        if on_the_hour % TICK_HOURS == 0:
            ticks.append(first)
        first += timedelta(hours=1)
    return ticks


def _clock(at: datetime, tz: ZoneInfo) -> str:
    return at.astimezone(tz).strftime("%H:%M")


def _format(value: float) -> str:
    return f"{value:.0f}" if abs(value) >= 10 or value == int(value) else f"{value:.1f}"


def _summary(history: History, values: list[float], tz: ZoneInfo) -> str:
    what = "Level" if history.metric is Metric.LEVEL else "Power"
    unit = history.metric.unit
    if not values:
        return f"{what} over the last 24 hours: nothing recorded yet."
    return (
        f"{what} over the last 24 hours ({_zone_name(tz)}): lowest {_format(min(values))} {unit}, "
        f"highest {_format(max(values))} {unit}, latest {_format(values[-1])} {unit}."
    )


def _zone_name(tz: ZoneInfo) -> str:
    return "UTC" if tz.key in ("UTC", "Etc/UTC") else tz.key


def _hourly(history: History, tz: ZoneInfo) -> tuple[tuple[str, str], ...]:
    """The sample nearest each whole hour (within the gap), oldest first."""
    rows: list[tuple[str, str]] = []
    points = history.points()
    hour = history.start.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    while hour <= history.end and points:
        at, value = min(points, key=lambda p: abs(p[0] - hour))
        if abs(at - hour) <= GAP:
            rows.append((_clock(hour, tz), f"{_format(value)} {history.metric.unit}"))
        hour += timedelta(hours=1)
    return tuple(rows)
