"""The surplus controller: turns the site's readings into the charger's power limit.

Surplus is what the site exports plus what the charger itself draws (so the charger's own
draw does not hide the surplus it runs on). The rules:
- The charger runs only at or above its minimum: 6 A per phase at 230 V (1.38 kW on one
  phase, 4.14 kW on three). It starts only after the surplus has stayed at or above the
  minimum for `start_delay_s` (60 s) and pauses only after it has stayed below for
  `stop_delay_s` (120 s). While it runs the limit follows the surplus, rounded down to
  whole amperes, never above it, except that it never goes below the minimum: during the
  stop delay a falling surplus is topped up from the grid.
- Phases: a charger that can switch (`phases=(1, 3)`) moves up to three phases with the
  start delay once the surplus covers the three-phase minimum, and back to one phase with
  the stop delay; a charger with one phase count never switches.
- `surplus_first` adds the grid plan: the limit is the larger of the surplus limit and the
  power the plan puts at this instant (the planner decides that grid energy).
- The limit changes at most every `update_interval_s` (30 s); between changes the last
  limit stands.
Pure: the caller passes each reading's instant; a gap between readings counts as the
surplus having stayed as last read."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

Mode = Literal["surplus_only", "surplus_first"]


def surplus_kw(grid_power_kw: float, charger_power_kw: float) -> float:
    """The surplus a charger can use: the site's export plus the charger's own draw
    (grid power is positive when importing)."""
    return charger_power_kw - grid_power_kw


@dataclass(frozen=True, slots=True)
class SurplusSettings:
    ceiling_kw: float
    phases: tuple[int, ...] = (3,)
    """Phase counts the charger can use; more than one lets the controller switch."""
    start_delay_s: float = 60.0
    stop_delay_s: float = 120.0
    update_interval_s: float = 30.0
    min_current_a: float = 6.0
    voltage_v: float = 230.0

    def minimum_kw(self, phases: int) -> float:
        return self.min_current_a * phases * self.voltage_v / 1000

    def maximum_kw(self, phases: int) -> float:
        """The ceiling, shared out by phase: one phase of a 3-phase 11 kW charger is 3.7 kW."""
        return self.ceiling_kw * phases / max(self.phases)


@dataclass(frozen=True, slots=True)
class SurplusDecision:
    limit_kw: float
    """0 when paused."""
    phases: int
    running: bool
    changed: bool
    """True when this limit is new and should be sent to the charger."""
    reason: str


@dataclass
class _Timers:
    above_since: datetime | None = None
    below_since: datetime | None = None


@dataclass
class SurplusController:
    """One charger's controller; feed it every reading with `step`."""

    settings: SurplusSettings
    mode: Mode = "surplus_only"
    _phases: int | None = None
    _timers: dict[int, _Timers] = field(default_factory=dict)
    _last: SurplusDecision | None = None
    _issued_at: datetime | None = None

    def step(self, at: datetime, surplus: float, planned_grid_kw: float = 0.0) -> SurplusDecision:
        self._track(at, surplus)
        phases, reason = self._next_phases(at)
        decision = self._decide(phases, surplus, planned_grid_kw, reason)
        last = self._last
        if last is not None and (decision.limit_kw, decision.phases, decision.running) == (
            last.limit_kw,
            last.phases,
            last.running,
        ):
            return SurplusDecision(last.limit_kw, last.phases, last.running, False, last.reason)
        interval = self.settings.update_interval_s
        if (
            last is not None
            and self._issued_at is not None
            and (at - self._issued_at).total_seconds() < interval
        ):
            return SurplusDecision(
                last.limit_kw,
                last.phases,
                last.running,
                False,
                f"{last.reason} (the next change may go out {interval:g} s after the last)",
            )
        self._phases = phases
        self._last, self._issued_at = decision, at
        return decision

    def _track(self, at: datetime, surplus: float) -> None:
        for phases in self.settings.phases:
            timers = self._timers.setdefault(phases, _Timers())
            if surplus >= self.settings.minimum_kw(phases) - 1e-9:
                timers.below_since = None
                timers.above_since = timers.above_since or at
            else:
                timers.above_since = None
                timers.below_since = timers.below_since or at

    def _held(self, since: datetime | None, at: datetime, delay: float) -> bool:
        return since is not None and (at - since).total_seconds() >= delay

    def _next_phases(self, at: datetime) -> tuple[int | None, str]:
        s = self.settings
        ready = [
            p for p in s.phases if self._held(self._timers[p].above_since, at, s.start_delay_s)
        ]
        current = self._phases
        if current is None:
            if ready:
                return max(ready), f"surplus above the minimum for {s.start_delay_s:g} s"
            return None, "surplus below the charger's minimum"
        higher = [p for p in ready if p > current]
        if higher:
            return max(higher), f"surplus covers {max(higher)} phases"
        if self._held(self._timers[current].below_since, at, s.stop_delay_s):
            lower = [p for p in s.phases if p < current and self._timers[p].above_since]
            if lower:
                return max(lower), f"surplus covers only {max(lower)} phase(s)"
            return None, f"surplus below the minimum for {s.stop_delay_s:g} s"
        return current, "following the surplus"

    def _decide(
        self, phases: int | None, surplus: float, planned_grid_kw: float, reason: str
    ) -> SurplusDecision:
        s = self.settings
        limit = 0.0
        if phases is not None:
            step_kw = phases * s.voltage_v / 1000
            amps = math.floor(min(surplus, s.maximum_kw(phases)) / step_kw + 1e-9)
            limit = max(amps * step_kw, s.minimum_kw(phases))
        if self.mode == "surplus_first" and planned_grid_kw > limit:
            top = max(s.phases)
            return SurplusDecision(
                min(planned_grid_kw, s.ceiling_kw),
                phases or top,
                True,
                True,
                "the plan needs grid energy now",
            )
        return SurplusDecision(
            round(limit, 6), phases or max(s.phases), phases is not None, True, reason
        )
