"""Sandbox charging sessions: a deterministic history that never contradicts the simulator.

Two eras per charger, split at its creation (CONTRACT 10: "30 days of history"):
- before `created_at` nobody could watch the simulator, so the history is invented: one
  evening plug-in a day (17-21 UTC, 30 min to 12 h), some daytime ones (mostly weekends),
  drawn from `random.Random(device id + day)`;
- from `created_at` on, a session is exactly a run of the simulator's "plugged in and
  charging" state. The runs come from `simulator.charger_state` itself (a daily program is
  scanned once and its edges bisected to the microsecond), so the two cannot drift apart.
Only the last command (the `SimAnchor`) is stored: before `anchor.at` the live era follows
the no-command program, from it on the anchor's. Under a strategy the car stays plugged in
and charges when the strategy's schedule says: its session is the whole plug-in, from the
push (or from being plugged in again) until another command or an unplug ends it.

A session's id depends on the device id and its start only, so the same session keeps its
id from active to completed (the database upserts it). Each day's sessions take their
measurement and end reason from rotations offset per device, so any 12 days with a session
a day show every value; a command's cut is `stopped`, and a `charge` that stops on its own
says why (car full: `vehicle_finished`; target or energy reached: `stopped`).
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from energyhub.domain.clock import ensure_utc
from energyhub.domain.devices import Device
from energyhub.domain.goals import STRATEGIES
from energyhub.domain.sandbox_controls import SandboxHold, hold_in
from energyhub.domain.sandbox_profiles import PROFILES, SandboxProfile
from energyhub.domain.sessions import (
    ChargingSession,
    EndReason,
    Measurement,
    SessionStatus,
    SessionWindow,
    overlaps,
    session_id_from,
    sort_key,
)
from energyhub.drivers.sandbox.simulator import SimAnchor, Steered, charger_state, rebased

DAY = timedelta(days=1)
INVENTED_HISTORY = timedelta(days=30)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)
_SCAN_STEP = timedelta(minutes=1)  # daily programs have no charging run shorter than this
_LONGEST_CHARGE = timedelta(days=8)  # `charge` fills a 75 kWh car at >= 1.4 kW within this
_STEP_COMMANDS = ("charge", "idle")  # the simulator's non-daily commands
_PLUGGED_UNDER_STRATEGY = timedelta(days=3650)  # until a command or an unplug ends it

_R = EndReason
_REASONS: tuple[EndReason | None, ...] = (
    _R.UNPLUGGED, _R.VEHICLE_FINISHED, _R.UNPLUGGED, _R.STOPPED, _R.VEHICLE_FINISHED, None,
    _R.UNPLUGGED, _R.POWER_LOST, _R.VEHICLE_FINISHED, _R.FAULT, _R.UNPLUGGED, _R.UNKNOWN,
)  # fmt: skip
_M = Measurement
_MEASUREMENTS = (_M.METERED, _M.METERED, _M.OEM_REPORTED, _M.METERED, _M.INFERRED)
_HOME_KW = (7.4, 7.4, 11.0, 11.0, 3.7, 22.0)  # a wallbox's usual rates, one per device
_STOP_REASONS = {"vehicle": _R.VEHICLE_FINISHED, "charger": _R.STOPPED}


@dataclass(frozen=True, slots=True)
class SandboxCharger:
    """What the generator needs to know about one sandbox charger."""

    device_id: str
    profile: SandboxProfile
    created_at: datetime
    anchor: SimAnchor | None = None
    hold: SandboxHold | None = None
    steered: Steered | None = None

    @classmethod
    def of(cls, device: Device) -> SandboxCharger:
        profile = PROFILES[device.profile or ""]
        anchor, hold = SimAnchor.of(device.sim), hold_in(device.sim)
        return cls(device.id, profile, device.created_at, anchor, hold, Steered.of(device.sim))

    def state_at(self, anchor: SimAnchor | None, t: datetime) -> dict[str, Any]:
        """The simulator's state at `t` under `anchor`, with the hold after its time (a
        session the hold ends keeps what it had at that instant) and the strategy's
        schedule (which applies only under the strategy it was sent for)."""
        hold = self.hold if self.hold is not None and t > ensure_utc(self.hold.at) else None
        return charger_state(self.profile, anchor, t, hold, self.steered)

    @property
    def seed(self) -> int:
        return int.from_bytes(hashlib.sha256(self.device_id.encode()).digest()[:8], "big")


@dataclass(frozen=True, slots=True)
class _Piece:
    """Part of a live session under one simulator anchor (None: the no-command program)."""

    anchor: SimAnchor | None
    start: datetime
    end: datetime


@dataclass(frozen=True, slots=True)
class _Plan:
    """A session as it will have been: [start, end), the day and slot picking its traits,
    and its energy: a total delivered evenly (invented) or the simulator's (live pieces)."""

    start: datetime
    end: datetime
    day: int
    slot: int
    energy_kwh: float = 0.0
    pieces: tuple[_Piece, ...] = ()
    cut: bool = False  # a command ended it
    unplugged: bool = False  # a hold took the car away


_Run = tuple[datetime, datetime, int, int]  # start, end, day, slot (index in the day)


def _day(t: datetime) -> int:
    return (ensure_utc(t) - _EPOCH) // DAY


def _charging(profile: SandboxProfile, anchor: SimAnchor | None, t: datetime) -> bool:
    state = charger_state(profile, anchor, t)
    return bool(state["isConnected"] and state["isCharging"])


def _edge(
    profile: SandboxProfile, anchor: SimAnchor | None, lo: datetime, hi: datetime
) -> datetime:
    """The first microsecond in (lo, hi] whose charging state differs from lo's."""
    was = _charging(profile, anchor, lo)
    while hi - lo > _US:
        mid = lo + (hi - lo) // 2
        lo, hi = (mid, hi) if _charging(profile, anchor, mid) == was else (lo, mid)
    return hi


_WINDOWS: dict[tuple[str, str | None], tuple[tuple[timedelta, timedelta], ...]] = {}


def _daily_windows(
    profile: SandboxProfile, command: str | None
) -> tuple[tuple[timedelta, timedelta], ...]:
    """The charging runs of a daily program as (start, end) after midnight; a run over
    midnight ends after 24 h. Daily programs depend on the time of day only, so one scanned
    day stands for all; the result is cached per profile and command."""
    key = (profile.name, command)
    if key in _WINDOWS:
        return _WINDOWS[key]
    ref = datetime(2000, 1, 1, tzinfo=UTC)
    anchor = None if command is None else SimAnchor(command, {}, ref, 50.0)
    steps = DAY // _SCAN_STEP
    on = [_charging(profile, anchor, ref + i * _SCAN_STEP) for i in range(steps + 1)]
    edges = [
        (_edge(profile, anchor, ref + i * _SCAN_STEP, ref + (i + 1) * _SCAN_STEP) - ref, on[i + 1])
        for i in range(steps)
        if on[i] != on[i + 1]
    ]
    starts = sorted(at % DAY for at, rising in edges if rising)
    ends = sorted(at % DAY for at, rising in edges if not rising)  # alternate with starts
    windows: tuple[tuple[timedelta, timedelta], ...] = tuple(
        (s, min((e for e in ends if e > s), default=ends[0] + DAY)) for s in starts
    )
    if not edges and on[0]:
        windows = ((timedelta(0), DAY),)
    _WINDOWS[key] = windows
    return windows


def _daily(profile: SandboxProfile, command: str | None, lo: datetime, hi: datetime) -> list[_Run]:
    """Runs of a daily program overlapping [lo, hi)."""
    windows = _daily_windows(profile, command)
    found: list[_Run] = []
    for day in range(_day(lo) - 1, _day(hi) + 1):
        midnight = _EPOCH + day * DAY
        for slot, (s, e) in enumerate(windows):
            if midnight + s < hi and midnight + e > lo:
                found.append((midnight + s, midnight + e, day, slot))
    return found


def _anchor_runs(
    profile: SandboxProfile, anchor: SimAnchor, lo: datetime, hi: datetime
) -> tuple[list[_Run], _Run | None]:
    """Runs under the anchor: those starting after its command that overlap [lo, hi), and
    the one already charging at the command (clipped to start there)."""
    switch = ensure_utc(anchor.at)
    if anchor.command in STRATEGIES:  # the car stays plugged in: one session from the push
        return [], (switch, switch + _PLUGGED_UNDER_STRATEGY, _day(switch), 9)
    if anchor.command in _STEP_COMMANDS:  # `charge` runs once until a stop; `idle` never
        if not _charging(profile, anchor, switch):
            return [], None
        stop = switch + _LONGEST_CHARGE
        if not _charging(profile, anchor, stop):
            stop = _edge(profile, anchor, switch, stop)
        return [], (switch, stop, _day(switch), 9)
    later = [r for r in _daily(profile, anchor.command, lo, hi) if r[0] > switch]
    at = [(switch, e, d, k) for _, e, d, k in _daily(profile, anchor.command, switch, switch + _US)]
    return later, at[0] if at else None


def _whole(anchor: SimAnchor | None, run: _Run) -> _Plan:
    """A session that is one run under one anchor."""
    s, e, d, k = run
    return _Plan(s, e, d, k, pieces=(_Piece(anchor, s, e),))


def _around(anchor: SimAnchor, head: _Run | None, tail: _Run | None) -> list[_Plan]:
    """The session around a command: the no-command run it cuts (ended `stopped`), joined
    to the anchor's run when charging carries on across the command (one session)."""
    switch = ensure_utc(anchor.at)
    if head is None:
        return [] if tail is None else [_whole(anchor, tail)]
    s, e, d, k = head
    if tail is None:
        return [_Plan(s, switch, d, k, pieces=(_Piece(None, s, switch),), cut=e > switch)]
    pieces = (_Piece(None, s, switch), _Piece(anchor, switch, tail[1]))
    return [_Plan(s, tail[1], d, k, pieces=pieces)]


def _live(charger: SandboxCharger, lo: datetime, hi: datetime) -> list[_Plan]:
    """The simulator's charging runs overlapping [lo, hi) that end after `created_at`."""
    p, a = charger.profile, charger.anchor
    if a is None:
        plans = [_whole(None, run) for run in _daily(p, None, lo, hi)]
    else:
        switch = ensure_utc(a.at)
        before = _daily(p, None, lo, min(hi, switch)) if lo < switch else []
        plans = [_whole(None, run) for run in before if run[1] < switch]
        later, tail = _anchor_runs(p, a, lo, hi)
        plans += [_whole(a, run) for run in later]
        head = _daily(p, None, switch - _US, switch)  # the no-command run the command meets
        plans += _around(a, head[0] if head else None, tail)
    created = ensure_utc(charger.created_at)
    return [x for x in plans if x.end > created and x.start < hi and x.end > lo]


def _invented(
    charger: SandboxCharger, lo: datetime, hi: datetime, cutover: datetime
) -> list[_Plan]:
    """Invented sessions overlapping [lo, hi) in the history before `cutover`. A day's
    sessions lie between its 08:00 and the next day's 07:00, so days never overlap."""
    oldest = ensure_utc(charger.created_at) - INVENTED_HISTORY
    kw = _HOME_KW[charger.seed % len(_HOME_KW)]
    plans = []
    for day in range(_day(max(lo, oldest)) - 1, _day(min(hi, cutover)) + 1):
        rng = random.Random(f"{charger.device_id}/{day}")
        midnight = _EPOCH + day * DAY
        evening = rng.uniform(17, 21)
        spans = [(evening, min(max(rng.lognormvariate(math.log(4), 0.6), 0.5), 12.0), 0)]
        if rng.random() < (0.6 if midnight.weekday() >= 5 else 0.12):
            morning = rng.uniform(8, 14)
            spans.insert(0, (morning, rng.uniform(0.5, min(4.0, 16.5 - morning)), 1))
        for at_h, hours, slot in spans:
            start = midnight + timedelta(minutes=round(at_h * 60))
            end = start + timedelta(minutes=max(30, round(hours * 60)))
            energy = min(rng.uniform(5, 60), kw * (end - start) / timedelta(hours=1) * 0.95)
            if oldest <= start and end <= cutover and start < hi and end > lo:
                plans.append(_Plan(start, end, day, slot, energy_kwh=round(energy, 3)))
    return plans


def _held(charger: SandboxCharger, plans: list[_Plan], lo: datetime, hi: datetime) -> list[_Plan]:
    """The live sessions under a hold: the daily pattern stops at the hold (a session then
    running ends there), and a `charge` that runs under the hold is a session of its own."""
    hold = charger.hold
    if hold is None:
        return plans
    at = ensure_utc(hold.at)
    kept = []
    for plan in plans:
        if plan.start >= at:
            continue
        if plan.end > at:
            pieces = tuple(replace(p, end=min(p.end, at)) for p in plan.pieces if p.start < at)
            away = hold.plugged_in is False
            plan = replace(plan, end=at, pieces=pieces, cut=not away, unplugged=away)
        kept.append(plan)
    anchor = charger.anchor
    if anchor is not None and anchor.command in STRATEGIES and hold.plugged_in is not False:
        plugged = ensure_utc(hold.at)  # plugged in again under the strategy: a new session
        if plugged < hi:
            run = (plugged, plugged + _PLUGGED_UNDER_STRATEGY, _day(plugged), 9)
            kept = [p for p in kept if p.start < plugged] + [_whole(anchor, run)]
    elif anchor is not None and anchor.command in _STEP_COMMANDS and hold.plugged_in is not False:
        start = rebased(charger.profile, anchor, hold)
        _, tail = _anchor_runs(charger.profile, start, lo, hi)
        if tail is not None and tail[0] < hi and tail[1] > lo:
            kept = [p for p in kept if p.start < ensure_utc(start.at)] + [_whole(start, tail)]
    return kept


def _plans(charger: SandboxCharger, lo: datetime, hi: datetime) -> list[_Plan]:
    """Every session overlapping [lo, hi); invented ones end before the first live one."""
    if not charger.profile.capabilities.sessions:
        return []
    created = ensure_utc(charger.created_at)
    cutover = min([created] + [x.start for x in _live(charger, created, created + _US)])
    live = _held(charger, _live(charger, lo, hi), lo, hi)
    return _invented(charger, lo, hi, cutover) + [x for x in live if x.end > created]


def _energy(charger: SandboxCharger, plan: _Plan, t: datetime) -> float:
    """kWh delivered by `t`: the simulator's session energy gained over each live piece,
    or an even share of an invented session's total."""
    if not plan.pieces:
        return round(plan.energy_kwh * min(1.0, (t - plan.start) / (plan.end - plan.start)), 3)
    total = 0.0
    for piece in plan.pieces:
        if piece.start < t:
            anchor = piece.anchor
            if anchor is not None and anchor.command in STRATEGIES:
                # the schedule is known from its last sending on: a strategy's session starts
                # from the command's energy, or empty when the car was plugged in again
                pushed = piece.start == ensure_utc(anchor.at)
                before = anchor.energy_kwh if pushed else 0.0
            else:
                before = charger.state_at(anchor, piece.start)["sessionEnergy"]
            total += charger.state_at(piece.anchor, min(t, piece.end))["sessionEnergy"] - before
    return max(0.0, round(total, 3))


def _end_reason(
    charger: SandboxCharger, plan: _Plan, rotated: EndReason | None
) -> EndReason | None:
    """A command's cut is `stopped`; a live run that stopped on its own says why (car full,
    target or energy reached) when the simulator knows; otherwise the day's rotation."""
    if plan.unplugged:
        return _R.UNPLUGGED
    if plan.cut:
        return _R.STOPPED
    if not plan.pieces:
        return rotated
    last = plan.pieces[-1]
    said = charger.state_at(last.anchor, plan.end).get("notChargingReason")
    return _STOP_REASONS.get(str(said), rotated)


def _session(charger: SandboxCharger, plan: _Plan, now: datetime) -> ChargingSession:
    """The session as the charger reports it at `now` (at or after its start)."""
    digest = hashlib.sha256(f"{charger.device_id}|{plan.start.isoformat()}".encode())
    turn = charger.seed + plan.day + 7 * plan.slot
    active = now < plan.end
    return ChargingSession(
        id=session_id_from(digest.hexdigest()),
        device_id=charger.device_id,
        status=SessionStatus.ACTIVE if active else SessionStatus.COMPLETED,
        started_at=plan.start,
        ended_at=None if active else plan.end,
        energy_kwh=_energy(charger, plan, min(now, plan.end)),
        measurement=_MEASUREMENTS[turn % len(_MEASUREMENTS)],
        end_reason=None if active else _end_reason(charger, plan, _REASONS[turn % len(_REASONS)]),
    )


def sessions_between(
    charger: SandboxCharger, start: datetime, end: datetime, now: datetime
) -> list[ChargingSession]:
    """Sessions overlapping [start, end] (the `overlaps` rule) as the charger reports them
    at `now`: none that starts after `now`, the one running at `now` active. Oldest first."""
    window = SessionWindow(start, end)
    now = ensure_utc(now)
    hi = max(window.start, min(window.end, now)) + _US
    plans = [p for p in _plans(charger, window.start, hi) if p.start <= now]
    found = [_session(charger, p, now) for p in plans]
    return sorted((s for s in found if overlaps(s, window)), key=sort_key)


def active_session(charger: SandboxCharger, now: datetime) -> ChargingSession | None:
    """The session running at `now`, if any: for `now` from `created_at` on, exactly when the
    simulator reports the car plugged in and charging."""
    now = ensure_utc(now)
    running = [p for p in _plans(charger, now, now + _US) if p.start <= now < p.end]
    return _session(charger, running[0], now) if running else None
