"""The one sentence a plan shows a person, in the site's wall-clock time."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from itertools import pairwise
from zoneinfo import ZoneInfo

from energyhub.domain.planning.slots import Slot

NOTICEABLE_SHORTFALL_KWH = 0.05
"""A goal missed by less than this (50 Wh) is not called unmet."""


def clock(instant: datetime, tz: ZoneInfo) -> str:
    local = instant.astimezone(tz)
    return f"{local.hour:02d}:{local.minute:02d}"  # strftime("%H:%M"), quicker


def money(value: float) -> str:
    """A price with two decimals, or three when two would round it to nothing."""
    text = f"{value:.2f}"
    if text in ("0.00", "-0.00") and value != 0:
        text = f"{value:.3f}"
    return "0.00" if text == "-0.00" else text


def kwh(value: float) -> str:
    return f"{value:.1f} kWh"


def _first_block(slots: Sequence[Slot], now: datetime, tz: ZoneInfo, currency: str) -> str:
    first = [slots[0]]  # the first block; the others only counted (as blocks_of would)
    more = 0
    for previous, slot in pairwise(slots):
        if more == 0 and previous.end == slot.start:
            first.append(slot)
        elif previous.end != slot.start:
            more += 1
    kwh_of = [s.power_kw * ((s.end - s.start).total_seconds() / 3600) for s in first]
    energy = sum(kwh_of)
    cost = sum(e * s.price for e, s in zip(kwh_of, first, strict=True))
    price = cost / energy if energy > 0 else first[0].price
    prices = {round(s.price, 6) for s in first}
    at = f"{'an average of ' if len(prices) > 1 else ''}{money(price)} {currency}/kWh"
    if all(s.source == "surplus" for s in first):
        at = "solar surplus"
    then = "" if more == 0 else f" (then {more} more period{'s' if more > 1 else ''})"
    start, end = clock(first[0].start, tz), clock(first[-1].end, tz)
    if first[0].start <= now:
        return f"Charging now until {end} at {at}{then}"
    return f"Waiting for the {start}-{end} period at {at}{then}"


def for_goal(
    slots: Sequence[Slot],
    *,
    now: datetime,
    tz: ZoneInfo,
    currency: str,
    needed: float,
    planned: float,
    ready_by: datetime,
) -> str:
    by = clock(ready_by, tz)
    if needed <= 0:
        return f"Done: nothing more is needed by {by}."
    if planned < needed - NOTICEABLE_SHORTFALL_KWH:
        if not slots:
            return f"The goal cannot be met: no charging is possible before {by}."
        head = _first_block(slots, now, tz, currency)
        return (
            f"The goal cannot be met: only {kwh(planned)} of the {kwh(needed)} needed by {by} "
            f"can be charged, so every possible period is used; {head[0].lower()}{head[1:]}."
        )
    return f"{_first_block(slots, now, tz, currency)}; {kwh(needed)} needed by {by}."


def for_no_goal(slots: Sequence[Slot], *, now: datetime, tz: ZoneInfo, currency: str) -> str:
    if not slots:
        return "No goal set, and no prices are known for the next 24 hours: not charging."
    head = _first_block(slots, now, tz, currency)
    return (
        f"No goal set, so charging at full power in the cheapest third of the next 24 hours; "
        f"{head[0].lower()}{head[1:]}."
    )


def for_charge_now(reason: str, *, needed: float | None) -> str:
    wanted = "" if needed is None else f" until {kwh(needed)} are charged"
    return f"{reason}, so charging now at full power{wanted}."
