"""What a strategy tells a charger: an absolute schedule of power limits, so a charger that
keeps it (an OCPP charging profile) follows the plan while the service is away."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from energyhub.domain.clock import ensure_utc
from energyhub.domain.planning.slots import Slot

HORIZON = timedelta(hours=48)
"""How far a schedule reaches: a plan never looks further than its ready-by time or a day."""


@dataclass(frozen=True, slots=True)
class PowerStep:
    start: datetime
    """UTC; the step holds until the next one starts (the last until the schedule ends)."""
    limit_kw: float
    """0: paused."""


@dataclass(frozen=True, slots=True)
class ChargingSchedule:
    """Steps in time order, the first starting at `start`; after `end` the charger is
    paused (limit 0) until the service sends the next schedule."""

    start: datetime
    end: datetime
    steps: tuple[PowerStep, ...]

    def limit_at(self, instant: datetime) -> float:
        """The limit in force at an instant (0 before the start and from the end on)."""
        if instant < self.start or instant >= self.end:
            return 0.0
        limit = 0.0
        for step in self.steps:
            if step.start > instant:
                break
            limit = step.limit_kw
        return limit

    def energy_kwh(self, since: datetime, until: datetime) -> float:
        """The energy the limits allow between two instants (a charger at its limit)."""
        since, until = max(since, self.start), min(until, self.end)
        if until <= since:
            return 0.0
        total = 0.0
        for index, step in enumerate(self.steps):
            nxt = self.steps[index + 1].start if index + 1 < len(self.steps) else self.end
            lo, hi = max(step.start, since), min(nxt, until)
            if hi > lo:
                total += step.limit_kw * (hi - lo).total_seconds() / 3600
        return total

    def to_json(self) -> dict[str, object]:
        return {
            "start": self.start.isoformat(),
            "end": self.end.isoformat(),
            "steps": [[step.start.isoformat(), step.limit_kw] for step in self.steps],
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> ChargingSchedule:
        raw_steps = data.get("steps")
        steps = tuple(
            PowerStep(datetime.fromisoformat(str(at)), float(limit))
            for at, limit in (raw_steps if isinstance(raw_steps, list) else [])
        )
        return cls(
            datetime.fromisoformat(str(data["start"])),
            datetime.fromisoformat(str(data["end"])),
            steps,
        )


def schedule_for(
    slots: Sequence[Slot], now: datetime, horizon: timedelta = HORIZON
) -> ChargingSchedule:
    """The plan's slots from `now` on as limit steps: each slot's power, 0 in the gaps
    between them. A plan with nothing left is one paused step."""
    now = ensure_utc(now)
    end = now + horizon
    steps: list[PowerStep] = []

    def add(at: datetime, limit: float) -> None:
        if steps and abs(steps[-1].limit_kw - limit) < 1e-9:
            return
        if steps and steps[-1].start == at:
            steps[-1] = PowerStep(at, limit)
            return
        steps.append(PowerStep(at, limit))

    cursor = now
    for slot in slots:
        if slot.end <= now or slot.start >= end:
            continue
        start = max(slot.start, now)
        if start > cursor:
            add(cursor, 0.0)
        add(start, slot.power_kw)
        cursor = min(slot.end, end)
    if cursor < end:
        add(cursor, 0.0)
    if not steps:
        steps.append(PowerStep(now, 0.0))
    return ChargingSchedule(now, end, tuple(steps))


def constant_schedule(
    limit_kw: float, now: datetime, horizon: timedelta = HORIZON
) -> ChargingSchedule:
    """One limit from now on (surplus steering: the controller's latest decision)."""
    now = ensure_utc(now)
    return ChargingSchedule(now, now + horizon, (PowerStep(now, limit_kw),))
