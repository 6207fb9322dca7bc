"""The device page's layout rules (issue 18): a command's form read back as the push the API
would take, times on the device's clock with the zone named, state keys with units, an
error's details as lines, and the chart's hours on the device's clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from energyhub.domain.capabilities import CommandSpec, ParameterSpec
from energyhub.domain.history import History, Metric, StateSample
from energyhub.domain.quantities import Quantity
from energyhub.web.chart import line_chart
from energyhub.web.dashboard.device_view import (
    CommandForm,
    FormProblem,
    LocalTime,
    _command_form,
    error_details,
    push_of,
    state_rows,
)

T0 = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
CHARGE = CommandSpec(
    parameters={"power": ParameterSpec("kw", 0, 5), "target": ParameterSpec("percent", 10, 100)}
)


def _form() -> CommandForm:
    return _command_form("charge", CHARGE, ("queue_after",))


def test_a_form_is_the_push_the_api_would_take() -> None:
    form = _form()
    assert [p.bounds for p in form.parameters] == ["0 to 5 kW", "10 to 100 %"]
    push = push_of(
        form,
        {"p.power": " 3,5 ", "p.target": "", "start": "2026-11-20T15:30", "onConflict": ""},
    )
    assert push.command == "charge"
    assert push.parameters == {"power": Quantity(3.5, "kw")}  # empty fields are left out
    assert push.start == "2026-11-20T15:30:00"  # a datetime-local value, to the second
    assert push.end is None
    assert push.on_conflict is None
    kept = push_of(form, {"start": "2026-11-20T15:30:10", "onConflict": "queue_after"})
    assert kept.start == "2026-11-20T15:30:10"
    assert kept.on_conflict == "queue_after"


@pytest.mark.parametrize("raw", ["lots", "nan", "inf"])
def test_a_parameter_that_is_no_number_names_the_field_and_its_unit(raw: str) -> None:
    with pytest.raises(FormProblem) as problem:
        push_of(_form(), {"p.power": raw})
    assert problem.value.field == "power"
    assert problem.value.message.startswith("power must be a number of kW")


def test_an_unknown_conflict_strategy_is_refused() -> None:
    with pytest.raises(FormProblem) as problem:
        push_of(_form(), {"onConflict": "shove"})
    assert problem.value.field == "onConflict"


def test_times_are_on_the_device_clock_with_the_zone_named() -> None:
    times = LocalTime(ZoneInfo("America/New_York"))
    assert times(T0) == "2026-11-20 07:00 EST"
    assert times("2026-07-01T12:00:00Z", seconds=True) == "2026-07-01 08:00:00 EDT"
    assert times(None) == "\N{EN DASH}"
    assert times.input_value(T0) == "2026-11-20T07:00"


def test_state_keys_carry_their_units() -> None:
    rows = state_rows(
        {
            "level": 55.4,
            "chargeRate": -1.5,
            "isConnected": True,
            "limit": {"value": 7, "unit": "kw"},
        }
    )
    assert [(r.key, r.unit, r.value) for r in rows] == [
        ("level", "%", "55.4"),
        ("chargeRate", "kW", "-1.5"),
        ("isConnected", None, "true"),
        ("limit", "kW", "7"),
    ]


def test_an_errors_details_become_lines() -> None:
    details = {
        "parameter": "power",
        "max": 5,
        "errors": [{"path": "body.start", "message": "no offset"}],
        "supportedStrategies": [],
    }
    assert error_details(details) == (
        "parameter: power",
        "max: 5",
        "body.start: no offset",
        "supportedStrategies: none",
    )


def test_the_charts_hours_are_the_devices() -> None:
    samples = tuple(
        StateSample(T0 - timedelta(hours=24) + timedelta(hours=h), 50.0, None) for h in range(25)
    )
    history = History(Metric.LEVEL, T0 - timedelta(hours=24), T0, samples)
    berlin = line_chart(history, ZoneInfo("Europe/Berlin"))
    assert [t.label for t in berlin.x_ticks] == [
        "16:00",
        "20:00",
        "00:00",
        "04:00",
        "08:00",
        "12:00",
    ]
    assert "(Europe/Berlin)" in berlin.summary
    assert berlin.hourly[0][0] == "14:00"
    india = line_chart(history, ZoneInfo("Asia/Kolkata"))  # half an hour off UTC
    assert [t.label for t in india.x_ticks][:2] == ["21:30", "01:30"]
    assert "(UTC)" in line_chart(history).summary
