"""A user's site as clients write it: timezone, grid import limit, tariff (time-of-use or
dynamic prices), more dynamic prices and meter readings. Each parser checks a decoded JSON
body and names every problem in one 400 `INVALID_REQUEST` (`details.errors`); the stored
form is the normalised JSON, which `tariff_from_json` turns into the planner's `Tariff`."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any
from zoneinfo import available_timezones

from energyhub.domain.clock import RANGE_TEXT, isoformat_utc, to_utc_in_range
from energyhub.domain.errors import InvalidRequest
from energyhub.domain.planning import PricePeriod, PriceSchedule, Tariff, TimeOfUsePeriod
from energyhub.domain.quantities import Quantity, convert

CURRENCY = re.compile(r"^[A-Z]{3}$")
WALL_FROM = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")
WALL_TO = re.compile(r"^(([01]\d|2[0-3]):[0-5]\d|24:00)$")
MAX_TIME_OF_USE = 96
MAX_PRICES = 500
MAX_READINGS = 500
MAX_PRICE = 1_000_000.0
MAX_POWER_VALUE = 1e9
DAY_MINUTES = 24 * 60
ISO_START = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}")


@cache
def timezone_names() -> frozenset[str]:
    """IANA names; `localtime` is the host's zone, not a name a client can mean."""
    return frozenset(available_timezones() - {"localtime"})


class Problems:
    """Collects `{path, message}` so one response names everything to fix."""

    def __init__(self, subject: str) -> None:
        self.subject = subject
        self.errors: list[dict[str, str]] = []

    def add(self, path: str, message: str) -> None:
        self.errors.append({"path": path, "message": message})

    def object(self, raw: object, path: str, known: tuple[str, ...]) -> dict[str, Any] | None:
        if not isinstance(raw, dict):
            self.add(path, f"must be a JSON object with {', '.join(known)}")
            return None
        for key in raw:
            if key not in known:
                self.add(f"{path}.{key}", f"unknown field: use only {', '.join(known)}")
        return raw

    def check(self) -> None:
        if self.errors:
            first = self.errors[0]
            more = f" (and {len(self.errors) - 1} more)" if len(self.errors) > 1 else ""
            raise InvalidRequest(
                f"Invalid {self.subject}: {first['path']}: {first['message']}{more}; "
                "see details.errors.",
                errors=self.errors,
            )


@dataclass(frozen=True, slots=True)
class SiteChanges:
    """The fields a PUT sends (an absent field keeps its value, null clears it)."""

    values: dict[str, Any]


def parse_site(body: object) -> SiteChanges:
    problems = Problems("site")
    raw = problems.object(body, "body", ("timezone", "gridImportLimit", "tariff"))
    values: dict[str, Any] = {}
    if raw is not None:
        if "timezone" in raw:
            tz = raw["timezone"]
            if tz is not None and (not isinstance(tz, str) or tz not in timezone_names()):
                problems.add("body.timezone", "must be an IANA timezone name such as Europe/Berlin")
            values["timezone"] = tz
        if "gridImportLimit" in raw:
            limit = raw["gridImportLimit"]
            values["grid_import_limit_kw"] = (
                None if limit is None else power_kw(limit, "body.gridImportLimit", problems, True)
            )
        if "tariff" in raw:
            values["tariff"] = None if raw["tariff"] is None else _tariff(raw["tariff"], problems)
    problems.check()
    return SiteChanges(values)


def _number(raw: object, path: str, problems: Problems, bound: float) -> float | None:
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
        problems.add(path, "must be a number")
        return None
    if abs(raw) > bound:
        problems.add(path, f"must be between -{bound:g} and {bound:g}")
        return None
    return float(raw)


def power_kw(raw: object, path: str, problems: Problems, positive: bool) -> float | None:
    """A Quantity in kw (or w) as kW."""
    item = problems.object(raw, path, ("value", "unit"))
    if item is None:
        return None
    value = _number(item.get("value"), f"{path}.value", problems, MAX_POWER_VALUE)
    unit = item.get("unit")
    if not isinstance(unit, str) or unit not in ("kw", "w"):
        problems.add(f"{path}.unit", "must be kw or w")
        return None
    if value is None:
        return None
    kw = convert(Quantity(value, unit), "kw")
    assert kw is not None
    if positive and value <= 0:
        problems.add(f"{path}.value", "must be above 0")
        return None
    return kw.value


def _tariff(raw: object, problems: Problems) -> dict[str, Any] | None:
    item = problems.object(raw, "body.tariff", ("currency", "import", "export"))
    if item is None:
        return None
    currency = item.get("currency")
    if not isinstance(currency, str) or not CURRENCY.match(currency):
        problems.add("body.tariff.currency", "required: send an ISO 4217 currency code such as EUR")
    tariff: dict[str, Any] = {"currency": currency}
    if item.get("import") is None:
        problems.add("body.tariff.import", "required: send {timeOfUse: [...]} or {prices: [...]}")
    else:
        tariff["import"] = _schedule(item["import"], "body.tariff.import", problems)
    export = item.get("export")
    tariff["export"] = None if export is None else _schedule(export, "body.tariff.export", problems)
    return tariff


def _schedule(raw: object, path: str, problems: Problems) -> dict[str, Any] | None:
    item = problems.object(raw, path, ("timeOfUse", "prices"))
    if item is None:
        return None
    if ("timeOfUse" in item) == ("prices" in item):
        problems.add(path, "send exactly one of timeOfUse and prices")
        return None
    if "timeOfUse" in item:
        return {"timeOfUse": _time_of_use(item["timeOfUse"], f"{path}.timeOfUse", problems)}
    return {"prices": price_list(item["prices"], f"{path}.prices", problems)}


def _time_of_use(raw: object, path: str, problems: Problems) -> list[dict[str, Any]]:
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_TIME_OF_USE:
        problems.add(path, f"required: send 1 to {MAX_TIME_OF_USE} periods covering the day")
        return []
    periods: list[dict[str, Any]] = []
    spans: list[tuple[int, int, int]] = []  # start, end minutes of the day, period index
    for index, entry in enumerate(raw):
        where = f"{path}[{index}]"
        item = problems.object(entry, where, ("from", "to", "price"))
        if item is None:
            continue
        begin, end = item.get("from"), item.get("to")
        price = _number(item.get("price"), f"{where}.price", problems, MAX_PRICE)
        good = True
        if not isinstance(begin, str) or not WALL_FROM.match(begin):
            problems.add(f"{where}.from", "must be a wall-clock time HH:MM (00:00 to 23:59)")
            good = False
        if not isinstance(end, str) or not WALL_TO.match(end):
            problems.add(f"{where}.to", "must be a wall-clock time HH:MM (00:00 to 24:00)")
            good = False
        if not good or price is None:
            continue
        assert isinstance(begin, str)
        assert isinstance(end, str)
        lo, hi = _minutes(begin), _minutes(end) % DAY_MINUTES
        periods.append({"from": begin, "to": end, "price": price})
        if hi > lo:
            spans.append((lo, hi, index))
        else:  # over midnight (from == to: the whole day)
            spans.append((lo, DAY_MINUTES, index))
            if hi > 0:
                spans.append((0, hi, index))
    if len(periods) == len(raw):
        _coverage(spans, path, problems)
    return periods


def _coverage(spans: list[tuple[int, int, int]], path: str, problems: Problems) -> None:
    """Every minute of the day in exactly one period: each gap and overlap named."""
    cursor, last = 0, -1
    for lo, hi, index in sorted(spans):
        if lo > cursor:
            problems.add(path, f"no price from {_clock(cursor)} to {_clock(lo)}: a gap")
        elif lo < cursor:
            problems.add(
                path,
                f"periods {last} and {index} overlap from {_clock(lo)} to "
                f"{_clock(min(cursor, hi))}",
            )
        if hi >= cursor:
            cursor, last = hi, index
    if cursor < DAY_MINUTES:
        problems.add(path, f"no price from {_clock(cursor)} to 24:00: a gap")


def _minutes(text: str) -> int:
    hours, minutes = text.split(":")
    return int(hours) * 60 + int(minutes)


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def instant(raw: object, path: str, problems: Problems) -> datetime | None:
    """An ISO 8601 date-time with an offset or Z, within the service's time range."""
    if isinstance(raw, str) and ISO_START.match(raw):
        try:
            parsed = datetime.fromisoformat(raw.upper())  # RFC 3339 allows t and z
        except ValueError:
            parsed = None
        if parsed is not None and parsed.tzinfo is not None:
            utc = to_utc_in_range(parsed)
            if utc is not None:
                return utc
    problems.add(
        path,
        "must be an ISO 8601 date-time with an offset or Z (such as 2026-12-01T06:00:00Z) "
        f"and must lie {RANGE_TEXT}",
    )
    return None


def price_list(raw: object, path: str, problems: Problems) -> list[dict[str, Any]]:
    """Dynamic periods, by start (a later one replaces an earlier one of the same start);
    each must end after it starts and none may overlap another."""
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_PRICES:
        problems.add(path, f"required: send 1 to {MAX_PRICES} periods")
        return []
    by_start: dict[datetime, tuple[datetime, float, int]] = {}
    for index, entry in enumerate(raw):
        where = f"{path}[{index}]"
        item = problems.object(entry, where, ("start", "end", "price"))
        if item is None:
            continue
        start = instant(item.get("start"), f"{where}.start", problems)
        end = instant(item.get("end"), f"{where}.end", problems)
        price = _number(item.get("price"), f"{where}.price", problems, MAX_PRICE)
        if start is None or end is None or price is None:
            continue
        if end <= start:
            problems.add(f"{where}.end", "must be after start")
            continue
        by_start[start] = (end, price, index)
    overlaps(by_start, path, problems)
    return [
        {"start": isoformat_utc(s), "end": isoformat_utc(e), "price": p}
        for s, (e, p, _) in sorted(by_start.items())
    ]


def overlaps(
    by_start: dict[datetime, tuple[datetime, float, int]], path: str, problems: Problems
) -> None:
    previous: tuple[datetime, int] | None = None
    for start in sorted(by_start):
        end, _, index = by_start[start]
        if previous is not None and start < previous[0]:
            problems.add(
                f"{path}[{index}]",
                f"periods {previous[1]} and {index} overlap from {isoformat_utc(start)} to "
                f"{isoformat_utc(min(end, previous[0]))}",
            )
        if previous is None or end > previous[0]:
            previous = (end, index)


def tariff_from_json(stored: dict[str, Any] | None) -> Tariff | None:
    """The planner's tariff from its stored form."""
    if stored is None:
        return None
    export = stored.get("export")
    return Tariff(
        stored["currency"],
        _price_schedule(stored["import"]),
        None if export is None else _price_schedule(export),
    )


def _price_schedule(stored: dict[str, Any]) -> PriceSchedule:
    if "timeOfUse" in stored:
        return PriceSchedule(
            time_of_use=tuple(
                TimeOfUsePeriod(p["from"], p["to"], p["price"]) for p in stored["timeOfUse"]
            )
        )
    return PriceSchedule(
        periods=tuple(
            PricePeriod(
                datetime.fromisoformat(p["start"]), datetime.fromisoformat(p["end"]), p["price"]
            )
            for p in stored["prices"]
        )
    )
