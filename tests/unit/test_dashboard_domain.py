"""The dashboard's pure parts: who may become a member, when a session ends, the chart's
layout, and the sandbox's history agreeing with its simulator."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from energyhub.domain.accounts import Environment
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.devices import Device
from energyhub.domain.history import (
    SAMPLE_STEP,
    History,
    Metric,
    StateSample,
    metric_for,
    sample_of,
)
from energyhub.domain.members import (
    SESSION_IDLE_LIMIT,
    SESSION_LIFETIME,
    DashboardSession,
    MemberRefused,
    check_new_member,
    hash_session_token,
)
from energyhub.domain.sandbox_profiles import PROFILES
from energyhub.drivers.sandbox import simulator
from energyhub.drivers.sandbox.history import sandbox_history
from energyhub.drivers.sandbox.simulator import SimAnchor, accept
from energyhub.web.chart import GAP, HEIGHT, WIDTH, line_chart

T0 = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def test_a_new_member_needs_an_address_and_a_long_password() -> None:
    assert check_new_member("  Ops@Acme.Example ", "correct horse battery") == "ops@acme.example"
    for email, password, says in [
        ("not-an-address", "correct horse battery", "is not an e-mail address"),
        ("a@b", "correct horse battery", "is not an e-mail address"),
        ("ops@acme.example", "short", "at least 12 characters"),
        ("ops@acme.example", "x" * 1025, "at most 1024"),
        ("opsopsopsops@acme.example", "OPSOPSOPSOPS", "may not be the e-mail"),
    ]:
        with pytest.raises(MemberRefused, match=says):
            check_new_member(email, password)


def test_a_session_ends_after_its_lifetime_or_when_idle() -> None:
    session = DashboardSession(
        token_hash=hash_session_token("t"),
        member_id="mem_1",
        csrf_token="c",
        created_at=T0,
        last_seen_at=T0,
        expires_at=T0 + SESSION_LIFETIME,
    )
    assert session.usable_at(T0 + SESSION_IDLE_LIMIT - timedelta(seconds=1))
    assert not session.usable_at(T0 + SESSION_IDLE_LIMIT)
    busy = DashboardSession(
        session.token_hash,
        session.member_id,
        session.csrf_token,
        T0,
        last_seen_at=T0 + SESSION_LIFETIME - timedelta(minutes=1),
        expires_at=T0 + SESSION_LIFETIME,
    )
    assert busy.usable_at(T0 + SESSION_LIFETIME - timedelta(seconds=1))
    assert not busy.usable_at(T0 + SESSION_LIFETIME), "in use or not, 12 h is the end"
    assert hash_session_token("t") != "t"
    assert len(hash_session_token("t")) == 64


def test_samples_read_the_metric_of_their_device_type() -> None:
    battery = sample_of(DeviceType.BATTERY, {"level": 55.5, "chargeRate": -1.2}, T0)
    charger = sample_of(DeviceType.EV_CHARGER, {"currentPower": 7.4, "level": True}, T0)
    unknown = sample_of(DeviceType.BATTERY, {"level": None, "chargeRate": "fast"}, T0)
    assert (battery.level, battery.power_kw) == (55.5, -1.2)
    assert (charger.level, charger.power_kw) == (None, 7.4)
    assert (unknown.level, unknown.power_kw) == (None, None)
    assert metric_for(DeviceType.BATTERY) is Metric.LEVEL
    assert metric_for(DeviceType.EV_CHARGER) is Metric.POWER


def _history(metric: Metric, values: list[tuple[timedelta, float | None]]) -> History:
    samples = tuple(
        StateSample(T0 + offset, value, value) for offset, value in values
    )  # level and power both carry the value; the metric picks one
    return History(metric, T0, T0 + timedelta(hours=24), samples)


def _xs_ys(points: str) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in (p.split(",") for p in points.split())]


def test_the_chart_spans_the_day_and_breaks_at_gaps() -> None:
    step = timedelta(minutes=10)
    values = [(step * i, 50.0) for i in range(7)]  # 00:00-01:00 joined
    values += [(step * 6 + GAP + step * (i + 1), 100.0) for i in range(3)]  # after a gap
    values += [(timedelta(hours=23, minutes=50), 0.0), (timedelta(hours=24), 0.0)]
    values += [(timedelta(hours=5), 25.0)]  # alone: a dot
    values.sort()
    chart = line_chart(_history(Metric.LEVEL, values))
    assert len(chart.lines) == 3, "a gap longer than GAP breaks the line"
    left, top, right, bottom = chart.plot
    assert chart.dots == ((left + 5 / 24 * (right - left), bottom - (bottom - top) / 4),)
    first, second, last = (_xs_ys(line) for line in chart.lines)
    assert first[0][0] == left, "the day fills the width"
    assert last[-1][0] == right
    assert {y for _, y in first} == {(top + bottom) / 2}, "50 % is half way up"
    assert {y for _, y in second} == {top}, "100 % is the top"
    assert last[-1][1] == bottom
    assert [t.label for t in chart.y_ticks] == ["0", "25", "50", "75", "100"]
    assert [t.label for t in chart.x_ticks] == [
        "16:00",
        "20:00",
        "00:00",
        "04:00",
        "08:00",
        "12:00",
    ]
    assert chart.zero_y is None
    assert "lowest 0 %, highest 100 %, latest 0 %" in chart.summary
    assert (chart.width, chart.height) == (WIDTH, HEIGHT)
    assert chart.hourly[0] == ("13:00", "50 %"), "the sample nearest each hour"
    assert chart.hourly[-1] == ("12:00", "0 %")


def test_a_power_chart_scales_to_its_values_and_shows_zero() -> None:
    values = [(timedelta(minutes=m), kw) for m, kw in [(0, -3.0), (10, 0.0), (20, 7.4), (30, 7.4)]]
    chart = line_chart(_history(Metric.POWER, values))
    (line,) = chart.lines
    ys = [y for _, y in _xs_ys(line)]
    _left, top, _right, bottom = chart.plot
    assert ys[0] == bottom, "the scale runs from the lowest to the highest"
    assert ys[2] == top
    assert chart.zero_y is not None
    assert top < chart.zero_y < bottom
    assert ys[1] == chart.zero_y
    assert "highest 7.4 kW" in chart.summary


def test_an_empty_history_says_so() -> None:
    chart = line_chart(History(Metric.POWER, T0, T0 + timedelta(hours=24), ()))
    assert chart.lines == ()
    assert "nothing recorded yet" in chart.summary
    assert chart.hourly == ()


def _sandbox_device(profile_name: str, anchor: SimAnchor | None) -> Device:
    profile = PROFILES[profile_name]
    return Device(
        id="dev-1",
        account_id="acc",
        environment=Environment.SANDBOX,
        user_id="user",
        type=profile.device_type,
        vendor=profile.vendor,
        model=profile.model,
        driver="sandbox",
        profile=profile_name,
        timezone="UTC",
        capabilities=profile.capabilities,
        settings={},
        state={},
        sim=None if anchor is None else anchor.to_json(),
        available=True,
        last_pulled_at=None,
        last_action=None,
        current_schedule=None,
        vehicle_id=None,
        created_at=T0,
        updated_at=T0,
    )


@pytest.mark.parametrize(("profile_name", "key", "command"), [
    ("battery", "level", "charge"),
    ("ev-charger", "currentPower", "charge"),
])  # fmt: skip
def test_the_sandbox_history_is_what_the_simulator_said(
    profile_name: str, key: str, command: str
) -> None:
    """Before the last command the no-command program, from it on the command's: the chart
    agrees with every read made over the day."""
    profile = PROFILES[profile_name]
    commanded_at = T0 + timedelta(hours=20, minutes=5)
    anchor = accept(profile, None, command, {}, commanded_at)
    device = _sandbox_device(profile_name, anchor)
    start, end = T0 + timedelta(hours=8), T0 + timedelta(hours=32)
    samples = sandbox_history(device, start, end, SAMPLE_STEP)
    assert len(samples) == 24 * 6 + 1
    assert samples[0].at == start
    assert samples[-1].at == end
    for sample in samples:
        in_force = anchor if sample.at >= commanded_at else None
        said = simulator.read(profile, in_force, sample.at).state[key]
        metric = metric_for(profile.device_type)
        assert sample.value(metric) == pytest.approx(float(said)), sample.at
    before = [s for s in samples if s.at < commanded_at]
    after = [s for s in samples if s.at >= commanded_at]
    no_command = sandbox_history(_sandbox_device(profile_name, None), start, end, SAMPLE_STEP)
    assert before == no_command[: len(before)]
    assert after != no_command[len(before) :], "the command changed what followed"
