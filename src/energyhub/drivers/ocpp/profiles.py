"""A strategy's schedule as an OCPP absolute charging schedule: whole-second periods from
its start, limits in the unit the charger takes. Pure, shared by both versions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from energyhub.domain.planning.steering import ChargingSchedule
from energyhub.domain.setting_effects import LINE_PHASES, LINE_VOLTS
from energyhub.drivers.ocpp.mapping import Declaration

MIN_CURRENT_A = 6.0
"""The lowest current a charger can offer a car (the IEC 61851 pilot signal's floor)."""

STRATEGY_STACK_LEVEL = 1
"""Above the commands' own profiles (level 0): a strategy's schedule rules while it runs,
and once it ends or is cleared the command's profile (a pause under a strategy) applies."""


@dataclass(frozen=True, slots=True)
class ProfileSchedule:
    """`periods`: (seconds from `start`, limit), the first at 0, strictly increasing."""

    start: datetime
    duration_s: int
    unit: str
    periods: tuple[tuple[int, float], ...]

    def schedule_body(self, start_text: str) -> dict[str, Any]:
        """The chargingSchedule fields both versions share (camelCase)."""
        return {
            "duration": self.duration_s,
            "startSchedule": start_text,
            "chargingRateUnit": self.unit,
            "chargingSchedulePeriod": [
                {"startPeriod": offset, "limit": limit} for offset, limit in self.periods
            ],
        }


def rate_unit(declaration: Declaration) -> str:
    """W where the charger takes it (no conversion), else A; as `idle` picks."""
    return "W" if "W" in declaration.rate_units else "A"


def phases_of(telemetry: Mapping[str, Any]) -> int:
    """The phases the car draws on, as the charger last measured them; three unknown."""
    phases = telemetry.get("phases")
    return int(phases) if phases in (1, 2, 3) else LINE_PHASES


def limit_in(limit_kw: float, unit: str, phases: int) -> float:
    """A limit per phase in A converts at the line voltage the `current` parameter uses. A
    current below 6 A is a pause: no car charges below it, and raising it to 6 A would
    draw more than the plan allows (a site's import limit, a price period's share)."""
    if unit == "W":
        return round(limit_kw * 1000, 1)
    amps = round(limit_kw * 1000 / (LINE_VOLTS * phases), 1)
    return amps if amps >= MIN_CURRENT_A else 0.0


def profile_schedule(
    schedule: ChargingSchedule,
    unit: str,
    phases: int = LINE_PHASES,
    max_periods: int | None = None,
) -> ProfileSchedule:
    """Starts on the whole second (OCPP periods count whole seconds). A charger that keeps
    fewer periods than the schedule has gets the first ones, the duration ending where the
    first left out would begin (the pause below applies after; the next steer adds more)."""
    start = schedule.start.replace(microsecond=0)
    end_s = round((schedule.end - start).total_seconds())
    periods: list[tuple[int, float]] = [(0, 0.0)]  # paused until the first step
    for step in schedule.steps:
        offset = max(0, round((step.start - start).total_seconds()))
        if offset >= end_s:
            break
        limit = limit_in(step.limit_kw, unit, phases)
        if periods and periods[-1][0] == offset:
            periods.pop()
        if periods and periods[-1][1] == limit:
            continue
        periods.append((offset, limit))
    if max_periods is not None and len(periods) > max_periods >= 1:
        end_s = periods[max_periods][0]
        periods = periods[:max_periods]
    return ProfileSchedule(start, end_s, unit, tuple(periods))
