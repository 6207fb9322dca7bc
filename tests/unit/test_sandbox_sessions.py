"""Sandbox session history: deterministic, realistic, and never at odds with the simulator
(CONTRACT 10: an `ev-charger` has 30 days of history; spec 2.5/2.6)."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from energyhub.domain.accounts import Environment
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.devices import Device
from energyhub.domain.goals import STRATEGIES
from energyhub.domain.sandbox_profiles import PROFILES
from energyhub.domain.sessions import (
    ChargingSession,
    EndReason,
    Measurement,
    SessionStatus,
    session_body,
)
from energyhub.drivers.sandbox.sessions import SandboxCharger, active_session, sessions_between
from energyhub.drivers.sandbox.simulator import SimAnchor, accept, charger_state

CHARGER = PROFILES["ev-charger"]
H = timedelta(hours=1)
D = timedelta(days=1)
US = timedelta(microseconds=1)
CREATED = datetime(2025, 3, 10, 9, 15, tzinfo=UTC)  # a Monday morning, nothing charging
EVENING = datetime(2025, 3, 12, tzinfo=UTC)  # a later midnight; the default program: 18-22


def charger(
    device_id: str = "dev-1", anchor: SimAnchor | None = None, profile: str = "ev-charger"
) -> SandboxCharger:
    return SandboxCharger(device_id, PROFILES[profile], CREATED, anchor)


def simulator_charges(c: SandboxCharger, t: datetime) -> bool:
    """The simulator's session: plugged in and charging; under a strategy, plugged in (the
    car waits for the schedule's slots within one session)."""
    state = charger_state(c.profile, c.anchor, t)
    if c.anchor is not None and c.anchor.command in STRATEGIES and t >= c.anchor.at:
        return bool(state["isConnected"])
    return bool(state["isConnected"] and state["isCharging"])


def everything(c: SandboxCharger, now: datetime) -> list[ChargingSession]:
    return sessions_between(c, c.created_at - 40 * D, now, now)


# --- determinism ----------------------------------------------------------------------------


def test_same_inputs_give_the_same_sessions() -> None:
    now = CREATED + 5 * D
    first = everything(charger(), now)
    assert len(first) > 30
    assert everything(charger(), now) == first


@pytest.mark.parametrize("split", [CREATED - 7 * D + 3 * H, CREATED, EVENING + 20 * H, EVENING])
def test_a_window_is_the_union_of_its_halves(split: datetime) -> None:
    c, now = charger(), CREATED + 10 * D
    a, b = CREATED - 20 * D, CREATED + 8 * D
    whole = sessions_between(c, a, b, now)
    left, right = sessions_between(c, a, split, now), sessions_between(c, split, b, now)
    merged = {s.id: s for s in left + right}
    assert sorted(merged.values(), key=lambda s: s.started_at) == whole
    inside = [s for s in whole if s.ended_at is not None and s.ended_at <= split]
    assert [s for s in left if s.ended_at is not None and s.ended_at <= split] == inside


def test_ids_are_unique_across_chargers() -> None:
    now = CREATED + 5 * D
    histories = [everything(charger(f"dev-{i}"), now) for i in range(5)]
    all_ids = [s.id for h in histories for s in h]
    assert len(all_ids) == len(set(all_ids))
    assert all(s.id.startswith("ses_") for h in histories for s in h)
    # the live era follows one simulator, so chargers share its times, never ids
    assert {s.started_at for s in histories[0] if s.started_at > CREATED} == {
        s.started_at for s in histories[1] if s.started_at > CREATED
    }


def test_invented_history_differs_between_chargers() -> None:
    now = CREATED
    starts = [{s.started_at for s in everything(charger(f"dev-{i}"), now)} for i in range(2)]
    assert starts[0] != starts[1]


# --- agreement with the simulator -----------------------------------------------------------

ANCHORS = [
    (None, {}),
    ("charge", {}),
    ("charge", {"energy": 3.0}),
    ("charge", {"power": 1.4, "target": 90.0}),
    ("idle", {}),
    ("auto.charge_tariff", {}),
    ("auto.charge_surplus_only", {}),
    ("auto.charge_surplus_first", {}),
]


@pytest.mark.parametrize("profile", ["ev-charger", "ev-charger-bidirectional"])
@pytest.mark.parametrize(("command", "params"), ANCHORS)
@pytest.mark.parametrize("hour", [10.5, 19.25])
def test_an_active_session_exactly_when_the_simulator_charges(
    profile: str, command: str | None, params: dict[str, float], hour: float
) -> None:
    at = EVENING + timedelta(hours=hour)
    p = PROFILES[profile]
    anchor = None if command is None else accept(p, None, command, params, at)
    c = charger(anchor=anchor, profile=profile)
    since = CREATED if anchor is None else at
    rng = random.Random(f"{profile}{command}{params}{hour}")
    samples = [since + timedelta(seconds=rng.uniform(0, 30 * 86400)) for _ in range(150)]
    for t in samples:
        found = active_session(c, t)
        assert (found is not None) is simulator_charges(c, t), t
        if found is not None:
            assert found.status is SessionStatus.ACTIVE
            assert found.started_at <= t


@pytest.mark.parametrize(("command", "params"), ANCHORS)
def test_session_edges_are_the_simulator_edges(
    command: str | None, params: dict[str, float]
) -> None:
    at = EVENING + timedelta(hours=19.25)
    anchor = None if command is None else accept(CHARGER, None, command, params, at)
    c = charger(anchor=anchor)
    now = at + 10 * D
    live = [s for s in everything(c, now) if s.ended_at is not None and s.ended_at > at]
    for s in live:
        assert s.ended_at is not None
        assert not simulator_charges(c, s.ended_at)
        assert simulator_charges(c, s.ended_at - US)
        if s.started_at >= at:
            assert simulator_charges(c, s.started_at)
            assert not simulator_charges(c, s.started_at - US)


def test_the_default_evening_session_is_18_to_22_with_the_simulators_energy() -> None:
    c = charger()
    assert active_session(c, EVENING + 18 * H - US) is None
    at_seven = active_session(c, EVENING + 19 * H)
    assert at_seven is not None
    assert at_seven.started_at == EVENING + 18 * H
    assert at_seven.energy_kwh == charger_state(CHARGER, None, EVENING + 19 * H)["sessionEnergy"]
    assert at_seven.energy_kwh == pytest.approx(7.4)
    assert active_session(c, EVENING + 22 * H) is None


def test_active_then_completed_keeps_its_id() -> None:
    c = charger()
    running = active_session(c, EVENING + 20 * H)
    assert running is not None
    assert running.ended_at is None
    assert running.end_reason is None
    later = sessions_between(c, EVENING, EVENING + D, EVENING + 23 * H)
    [done] = [s for s in later if s.id == running.id]
    assert done.status is SessionStatus.COMPLETED
    assert done.ended_at == EVENING + 22 * H
    assert done.energy_kwh == pytest.approx(29.6)
    assert done.started_at == running.started_at
    assert done.measurement is running.measurement


def test_a_session_is_listed_from_its_first_instant() -> None:
    start = EVENING + 18 * H
    [s] = sessions_between(charger(), start - H, start + H, start)
    assert s.status is SessionStatus.ACTIVE
    assert s.started_at == start
    assert s.energy_kwh == 0.0
    assert sessions_between(charger(), start - H, start + H, start - US) == []  # not yet


def test_a_window_after_now_lists_nothing_yet() -> None:
    assert sessions_between(charger(), EVENING + 19 * H, EVENING + 23 * H, EVENING + 12 * H) == []


def test_idle_mid_session_ends_it_stopped_under_the_same_id() -> None:
    before = active_session(charger(), EVENING + 19 * H)
    at = EVENING + 19.5 * H
    c = charger(anchor=accept(CHARGER, None, "idle", {}, at))
    assert active_session(c, at) is None
    [s] = [x for x in sessions_between(c, EVENING, at + H, at + H) if x.started_at < at]
    assert before is not None
    assert s.id == before.id
    assert (s.status, s.ended_at, s.end_reason) == (SessionStatus.COMPLETED, at, EndReason.STOPPED)
    assert s.energy_kwh == pytest.approx(7.4 * 1.5)
    assert sessions_between(c, at, at + 5 * D, at + 5 * D) == []  # idle holds: no charging


def test_charge_mid_session_continues_it_and_says_why_it_stopped() -> None:
    before = active_session(charger(), EVENING + 19 * H)
    at = EVENING + 19.5 * H
    c = charger(anchor=accept(CHARGER, None, "charge", {"energy": 30.0, "power": 11.0}, at))
    during = active_session(c, at + H)
    assert before is not None
    assert during is not None
    assert during.id == before.id
    assert during.energy_kwh == pytest.approx(7.4 * 1.5 + 11.0)
    [done] = [s for s in everything(c, at + 2 * D) if s.id == before.id]
    assert done.ended_at is not None
    stop = at + timedelta(hours=(30.0 - 7.4 * 1.5) / 11.0)
    assert abs(done.ended_at - stop) <= 2 * US
    assert done.energy_kwh == pytest.approx(30.0)
    assert done.end_reason is EndReason.STOPPED  # the session's energy limit (the charger)


def test_charge_to_a_full_car_ends_vehicle_finished() -> None:
    at = EVENING + 12 * H
    anchor = accept(CHARGER, None, "charge", {"power": 22.0}, at)
    [done] = [s for s in everything(charger(anchor=anchor), at + 2 * D) if s.started_at == at]
    assert done.end_reason is EndReason.VEHICLE_FINISHED
    assert done.energy_kwh == pytest.approx(75.0 * (1 - anchor.level / 100), abs=0.01)


def test_charging_at_creation_starts_the_live_era_at_its_plug_in() -> None:
    created = EVENING + 19.5 * H
    c = SandboxCharger("dev-1", CHARGER, created)
    history = everything(c, created)
    assert history[-1].status is SessionStatus.ACTIVE
    assert history[-1].started_at == EVENING + 18 * H
    assert all(s.ended_at is not None and s.ended_at <= EVENING + 18 * H for s in history[:-1])
    assert min(s.started_at for s in history) >= created - 30 * D


# --- shape of the history -------------------------------------------------------------------


def assert_apart(history: list[ChargingSession]) -> None:
    assert len({s.id for s in history}) == len(history)
    for earlier, later in itertools.pairwise(history):
        assert earlier.ended_at is not None
        assert earlier.ended_at <= later.started_at


@pytest.mark.parametrize("device_id", ["dev-1", "dev-2", "a" * 36])
@pytest.mark.parametrize("command", [None, "auto.charge_surplus_first", "charge", "idle"])
@pytest.mark.parametrize("hour", [18.0, 19.25])  # 18:00 is a run's edge in every program
def test_sessions_of_one_charger_never_overlap(
    device_id: str, command: str | None, hour: float
) -> None:
    at = EVENING + timedelta(hours=hour)
    anchor = None if command is None else accept(CHARGER, None, command, {}, at)
    assert_apart(everything(charger(device_id, anchor), CREATED + 20 * D))


@pytest.mark.parametrize("device_id", [f"dev-{i}" for i in range(10)])
def test_invented_history_ends_before_a_run_in_progress_at_creation(device_id: str) -> None:
    created = EVENING + 21.9 * H  # the 18-22 run is on
    history = everything(SandboxCharger(device_id, CHARGER, created), created)
    assert_apart(history)
    assert history[-1].started_at == EVENING + 18 * H


@pytest.mark.parametrize("device_id", [f"dev-{i}" for i in range(6)])
def test_invented_sessions_look_like_home_charging(device_id: str) -> None:
    invented = everything(charger(device_id), CREATED)
    assert 30 <= len(invented) <= 60
    evening = [s for s in invented if 17 <= s.started_at.hour <= 21]
    daytime = [s for s in invented if 8 <= s.started_at.hour < 15]
    assert len(evening) + len(daytime) == len(invented)
    assert len(evening) >= 0.6 * len(invented)
    assert daytime  # some daytime plug-ins, mostly at weekends
    assert sum(s.started_at.weekday() >= 5 for s in daytime) >= len(daytime) / 2
    for s in invented:
        assert s.ended_at is not None
        hours = (s.ended_at - s.started_at) / H
        assert 0.5 <= hours <= 12
        assert 0 <= s.energy_kwh <= 22 * hours
        assert s.energy_kwh <= 60
    typical = [s for s in invented if 5 <= s.energy_kwh <= 60]
    assert len(typical) >= 0.8 * len(invented)


@pytest.mark.parametrize("device_id", ["dev-1", "dev-2", "dev-3"])
@pytest.mark.parametrize("end_day", [0, 7, 15, 23, 30, 45])
def test_every_reason_and_measurement_in_any_30_days(device_id: str, end_day: int) -> None:
    now = CREATED + end_day * D
    window = sessions_between(charger(device_id), now - 30 * D, now, now)
    done = [s for s in window if s.status is SessionStatus.COMPLETED]
    assert {s.end_reason for s in done} >= set(EndReason)
    assert {s.measurement for s in window} == set(Measurement)
    # realistic mix: plugging out is the commonest end, faults are rare
    reasons = Counter(s.end_reason for s in done)
    assert reasons[EndReason.UNPLUGGED] > reasons[EndReason.FAULT]


def test_every_active_session_is_spec_shaped() -> None:
    c = charger()
    for hour in range(24 * 3):
        s = active_session(c, CREATED + hour * H)
        if s is not None:
            body = session_body(s)
            assert "endedAt" not in body
            assert "endReason" not in body
            assert body["energyDelivered"]["value"] >= 0


# --- who has history ------------------------------------------------------------------------


@pytest.mark.parametrize("profile", ["ev-charger-basic", "battery"])
def test_profiles_without_sessions_have_no_history(profile: str) -> None:
    c = charger(profile=profile)
    assert everything(c, CREATED + 5 * D) == []
    charging = EVENING + 19 * H
    if profile == "ev-charger-basic":
        assert simulator_charges(c, charging)  # the car charges, but nothing reports it
    assert active_session(c, charging) is None


def test_a_charger_built_from_its_device_record() -> None:
    anchor = accept(CHARGER, None, "charge", {"power": 7.0}, EVENING)
    device = Device(
        id="dev-9",
        account_id="acc",
        environment=Environment.SANDBOX,
        user_id="user",
        type=DeviceType.EV_CHARGER,
        vendor=CHARGER.vendor,
        model=CHARGER.model,
        driver="sandbox",
        profile="ev-charger",
        timezone="UTC",
        capabilities=CHARGER.capabilities,
        settings={},
        state={},
        sim=anchor.to_json(),
        available=True,
        last_pulled_at=None,
        last_action=None,
        current_schedule=None,
        vehicle_id=None,
        created_at=CREATED,
        updated_at=CREATED,
    )
    assert SandboxCharger.of(device) == SandboxCharger("dev-9", CHARGER, CREATED, anchor)
