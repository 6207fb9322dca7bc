"""What a site takes after it is set: more dynamic prices, merged into its tariff, and meter
readings, of which the newest is its `lastReading`."""

from __future__ import annotations

from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any

from energyhub.domain.clock import isoformat_utc
from energyhub.domain.errors import TariffNotDynamic
from energyhub.domain.sites import (
    MAX_READINGS,
    Problems,
    instant,
    power_kw,
    price_list,
)

FUTURE_TOLERANCE = timedelta(minutes=5)
"""A reading may be this far ahead of the service's clock (meters' clocks drift)."""


def parse_prices(body: object) -> dict[str, list[dict[str, Any]]]:
    """`{import?: [...], export?: [...]}`: at least one, each a list of dynamic periods."""
    problems = Problems("prices")
    raw = problems.object(body, "body", ("import", "export"))
    parsed: dict[str, list[dict[str, Any]]] = {}
    if raw is not None:
        if "import" not in raw and "export" not in raw:
            problems.add("body", "send import or export (or both): a list of price periods")
        for key in ("import", "export"):
            if key in raw:
                parsed[key] = price_list(raw[key], f"body.{key}", problems)
    problems.check()
    return parsed


def merge_prices(
    tariff: dict[str, Any] | None, added: dict[str, list[dict[str, Any]]]
) -> dict[str, Any]:
    """The tariff with the periods added (a new period replaces a stored one of the same
    start). Refused: with 409 TARIFF_NOT_DYNAMIC when there is no tariff to add to or a
    part is time-of-use (the request is fine, the site is not ready for it), with 400 when
    a new period overlaps a stored one of another start."""
    if tariff is None:
        raise TariffNotDynamic()
    for key in added:
        schedule = tariff.get(key)
        if schedule is not None and "timeOfUse" in schedule:
            raise TariffNotDynamic(
                f"The site's {key} tariff is time-of-use: set dynamic prices for it with PUT "
                "/users/{userId}/site before adding periods.",
                side=key,
            )
    problems = Problems("prices")
    merged = dict(tariff)
    for key, periods in added.items():
        schedule = tariff.get(key)
        stored = [] if schedule is None else schedule["prices"]
        by_start: dict[datetime, tuple[datetime, float, int]] = {}
        for index, period in enumerate([*stored, *periods]):
            start = datetime.fromisoformat(period["start"])
            # stored periods count from -1 down, so a problem names the posted one
            label = index - len(stored) if index >= len(stored) else -1 - index
            by_start[start] = (datetime.fromisoformat(period["end"]), period["price"], label)
        _overlaps_stored(by_start, f"body.{key}", problems)
        merged[key] = {
            "prices": [
                {"start": isoformat_utc(s), "end": isoformat_utc(e), "price": p}
                for s, (e, p, _) in sorted(by_start.items())
            ]
        }
    problems.check()
    return merged


def _overlaps_stored(
    by_start: dict[datetime, tuple[datetime, float, int]], path: str, problems: Problems
) -> None:
    """Each posted period (label >= 0) that overlaps a stored one of another start."""
    ordered = sorted(by_start.items())
    for (start, (end, _, label)), (after, (after_end, _, after_label)) in pairwise(ordered):
        if after < end and (label >= 0) != (after_label >= 0):
            posted, other = (
                (label, (after, after_end)) if label >= 0 else (after_label, (start, end))
            )
            problems.add(
                f"{path}[{posted}]",
                f"this period and the stored one from {isoformat_utc(other[0])} to "
                f"{isoformat_utc(other[1])} overlap from {isoformat_utc(after)} to "
                f"{isoformat_utc(min(end, after_end))}: send periods that start where "
                "others end",
            )


def parse_readings(body: object, now: datetime) -> dict[str, Any]:
    """`{readings: [{at, gridPower}]}`: the newest reading as stored, `{at, gridPower}`."""
    problems = Problems("readings")
    raw = problems.object(body, "body", ("readings",))
    newest: tuple[datetime, float] | None = None
    if raw is not None:
        items = raw.get("readings")
        if not isinstance(items, list) or not 1 <= len(items) <= MAX_READINGS:
            problems.add("body.readings", f"required: send 1 to {MAX_READINGS} readings")
            items = []
        for index, entry in enumerate(items):
            where = f"body.readings[{index}]"
            item = problems.object(entry, where, ("at", "gridPower"))
            if item is None:
                continue
            at = instant(item.get("at"), f"{where}.at", problems)
            power = power_kw(item.get("gridPower"), f"{where}.gridPower", problems, False)
            if at is not None and at > now + FUTURE_TOLERANCE:
                problems.add(f"{where}.at", "is in the future: send the time the meter read it")
            elif at is not None and power is not None and (newest is None or at >= newest[0]):
                newest = (at, power)
    problems.check()
    assert newest is not None
    return {"at": isoformat_utc(newest[0]), "gridPower": {"value": newest[1], "unit": "kw"}}


def newer_reading(stored: dict[str, Any] | None, reading: dict[str, Any]) -> dict[str, Any] | None:
    """The reading to keep as `lastReading`: the posted one unless the stored one is newer."""
    if stored is not None and datetime.fromisoformat(stored["at"]) > datetime.fromisoformat(
        reading["at"]
    ):
        return stored
    return reading
