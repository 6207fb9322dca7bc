"""The strategy runner's record per charger, and its rules: when a plan is made again, and
what the charger is told (the plan's limits, with the surplus controller's limit on top).

A plan is made again when what it was made from changes (the strategy, the plug state,
the goal, the site's tariff, prices or limit, the delivered energy by more than
`ENERGY_STEP_KWH`) and at least every re-plan interval. The surplus limit holds for
`SURPLUS_HOLD` after each decision: a charger that loses the service falls back to the
plan's own limits."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from energyhub.domain.planning.steering import ChargingSchedule, PowerStep
from energyhub.domain.session_costs import SessionLedger

ENERGY_STEP_KWH = 0.5
SURPLUS_HOLD = timedelta(minutes=15)
STEER_RETRY = timedelta(minutes=5)
"""A schedule the charger refused or never got is sent again this long after (a refusal
may pass: the transaction ends, a setting changes, the charger comes back)."""


class SteeringState:
    """How the charger took the last schedule (the plan's `steering.state`)."""

    APPLIED = "applied"  # the charger keeps to the schedule (the sandbox: at once)
    REFUSED = "refused"  # the charger refused it; the message says why
    UNREACHABLE = "unreachable"  # the charger is not connected: sent when it is


@dataclass(frozen=True, slots=True)
class StrategyRun:
    device_id: str
    strategy: str
    inputs: str
    plan: dict[str, Any]
    schedule: ChargingSchedule | None
    steering: dict[str, Any] | None
    next_plan_at: datetime
    updated_at: datetime
    ledger: SessionLedger | None = None
    """The open session's cost so far."""


def inputs_key(
    *,
    strategy: str,
    plugged_in: bool,
    goal: dict[str, Any] | None,
    site: str | None,
    delivered_kwh: float,
) -> str:
    """What a plan was made from, as one comparable string: the strategy, the plug, the
    goal, the site's terms (`site`: its timezone, limit and tariff, in any stable text) by
    digest, and the delivered energy in steps."""
    return json.dumps(
        [
            strategy,
            plugged_in,
            None if goal is None else goal.get("readyAt"),
            None if goal is None else goal.get("energy") or goal.get("target"),
            None if site is None else hashlib.sha256(site.encode()).hexdigest()[:32],
            int(delivered_kwh // ENERGY_STEP_KWH),
        ],
        separators=(",", ":"),
        sort_keys=True,
    )[:500]


def needs_plan(run: StrategyRun | None, strategy: str, inputs: str, now: datetime) -> bool:
    return (
        run is None or run.strategy != strategy or run.inputs != inputs or now >= run.next_plan_at
    )


def needs_steer_again(steering: Mapping[str, Any] | None, now: datetime) -> bool:
    """Whether the last schedule did not reach the charger and STEER_RETRY has passed."""
    if steering is None or steering.get("state") == SteeringState.APPLIED:
        return False
    return now - datetime.fromisoformat(str(steering["at"])) >= STEER_RETRY


def with_surplus(
    planned: ChargingSchedule, now: datetime, limit_kw: float, hold: timedelta = SURPLUS_HOLD
) -> ChargingSchedule:
    """The plan's schedule with the surplus limit as a floor for `hold` from now: the
    charger takes the larger of the two, and the plan alone after that."""
    until = min(now + hold, planned.end)
    steps: list[PowerStep] = []
    for step in planned.steps:
        if step.start < until:
            continue
        steps.append(step)
    head = [PowerStep(now, max(limit_kw, planned.limit_at(now)))]
    inside = [s for s in planned.steps if now < s.start < until]
    head += [PowerStep(s.start, max(limit_kw, s.limit_kw)) for s in inside]
    tail_limit = planned.limit_at(until)
    if not steps or steps[0].start != until:
        steps.insert(0, PowerStep(until, tail_limit))
    merged: list[PowerStep] = []
    for step in head + steps:
        if merged and abs(merged[-1].limit_kw - step.limit_kw) < 1e-9:
            continue
        merged.append(step)
    return ChargingSchedule(now, planned.end, tuple(merged))


def same_limits(a: ChargingSchedule | None, b: ChargingSchedule, now: datetime) -> bool:
    """Whether two schedules ask the same of the charger from `now` on (a re-sent schedule
    differing only in its start instant changes nothing)."""
    if a is None:
        return False
    if abs(a.end - b.end) > timedelta(minutes=15):
        return False
    instants = sorted({now, *(s.start for s in a.steps), *(s.start for s in b.steps)})
    return all(
        abs(a.limit_at(t) - b.limit_at(t)) < 1e-6 for t in instants if now <= t < min(a.end, b.end)
    )
