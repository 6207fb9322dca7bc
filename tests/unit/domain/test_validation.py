"""Push and settings validation against capabilities (CONTRACT 4 and 5)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from energyhub.domain import errors
from energyhub.domain.capabilities import (
    STANDARD_BATTERY,
    STANDARD_CHARGER,
    Capabilities,
    CommandSpec,
    ConflictStrategy,
    Execution,
    ParameterSpec,
)
from energyhub.domain.clock import FakeClock
from energyhub.domain.quantities import Quantity
from energyhub.domain.validation import (
    ValidatedPush,
    check_window_order,
    execution_for,
    resolve_window,
    validate_push,
    validate_settings,
    window_from_utc,
)

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 6, 1, 10, 0, tzinfo=UTC)  # 12:00 in Berlin (CEST)
MINIMAL = Capabilities(
    commands={
        "charge": CommandSpec({"target": ParameterSpec("percent", 10, 100)}),
        "idle": CommandSpec(),
    },
    settings={},
    conflict_strategies=None,
)


def q(value: float, unit: str) -> Quantity:
    return Quantity(value, unit)


def push(
    caps: Capabilities = STANDARD_BATTERY,
    command: str = "charge",
    parameters: Mapping[str, Quantity] | None = None,
    execution: Execution = Execution.IMMEDIATE,
    on_conflict: str | None = None,
) -> ValidatedPush:
    return validate_push(caps, command, parameters or {}, execution, on_conflict)


# --- pushes: each rule --------------------------------------------------------------------
def test_valid_push_passes_through() -> None:
    result = push(parameters={"target": q(80, "percent"), "power": q(3, "kw")})
    assert result == ValidatedPush(
        "charge", {"target": q(80, "percent"), "power": q(3, "kw")}, Execution.IMMEDIATE, None
    )


def test_unknown_command_is_unsupported_mode() -> None:
    with pytest.raises(errors.UnsupportedMode) as caught:
        push(command="discharge", caps=STANDARD_CHARGER)
    assert caught.value.status == 422
    assert caught.value.details == {"supportedModes": list(STANDARD_CHARGER.commands)}


@pytest.mark.parametrize("command", ["idle", "auto.balance"])
def test_window_on_a_strategy_is_execution_not_supported(command: str) -> None:
    with pytest.raises(errors.ExecutionNotSupported) as caught:
        push(command=command, execution=Execution.WINDOWED)
    assert caught.value.details == {"supportedExecution": ["immediate", "scheduled"]}


def test_undeclared_parameter() -> None:
    with pytest.raises(errors.UnsupportedParameter) as caught:
        push(parameters={"target": q(80, "percent"), "speed": q(1, "kw")})
    assert caught.value.details == {
        "parameter": "speed",
        "supportedParameters": ["target", "power", "reserve"],
    }


def test_any_parameter_on_an_auto_mode_is_unsupported() -> None:
    with pytest.raises(errors.UnsupportedParameter) as caught:
        push(command="auto.balance", parameters={"power": q(1, "kw")})
    assert caught.value.details == {"parameter": "power", "supportedParameters": []}


def test_power_with_current_is_an_unsupported_combination() -> None:
    with pytest.raises(errors.UnsupportedParameterCombination) as caught:
        push(STANDARD_CHARGER, parameters={"power": q(7, "kw"), "current": q(16, "a")})
    assert caught.value.details == {"conflictingParameters": ["power", "current"]}


def test_wrong_unit() -> None:
    with pytest.raises(errors.UnsupportedUnit) as caught:
        push(parameters={"target": q(80, "kw")})
    assert caught.value.details["expectedUnit"] == "percent"
    assert caught.value.details["parameter"] == "target"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (q(3000, "w"), q(3.0, "kw")),
        (q(3000, "W"), q(3.0, "kw")),
        (q(2.5, "kw"), q(2.5, "kw")),
    ],
)
def test_watts_convert_to_kilowatts(given: Quantity, expected: Quantity) -> None:
    assert push(parameters={"power": given}).parameters == {"power": expected}


def test_watt_hours_convert_to_kilowatt_hours() -> None:
    result = push(STANDARD_CHARGER, parameters={"energy": q(7500, "wh")})
    assert result.parameters == {"energy": q(7.5, "kwh")}


def test_kilowatts_do_not_convert_to_percent() -> None:
    with pytest.raises(errors.UnsupportedUnit):
        push(parameters={"reserve": q(0.02, "kw")})


@pytest.mark.parametrize(
    ("parameter", "value", "low", "high"),
    [("target", q(5, "percent"), 10, 100), ("power", q(5001, "w"), 0, 5)],
)
def test_bounds_in_the_declared_unit(
    parameter: str, value: Quantity, low: float, high: float
) -> None:
    with pytest.raises(errors.ParameterOutOfRange) as caught:
        push(parameters={parameter: value})
    assert caught.value.details == {"parameter": parameter, "min": low, "max": high}


@pytest.mark.parametrize("value", [10, 100, 5000])
def test_bounds_are_inclusive(value: float) -> None:
    unit = "w" if value == 5000 else "percent"
    name = "power" if value == 5000 else "target"
    push(parameters={name: q(value, unit)})


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_non_finite_values_are_out_of_range(value: float) -> None:
    with pytest.raises(errors.ParameterOutOfRange):
        push(parameters={"target": q(value, "percent")})


def test_strategy_outside_the_device_list() -> None:
    caps = Capabilities(
        STANDARD_CHARGER.commands, {}, (ConflictStrategy.CANCEL_AND_REPLACE,), sessions=False
    )
    with pytest.raises(errors.UnsupportedConflictStrategy) as caught:
        push(caps, on_conflict="queue_after")
    assert caught.value.details == {
        "requestedStrategy": "queue_after",
        "supportedStrategies": ["cancel_and_replace"],
    }


def test_device_without_strategies_refuses_any() -> None:
    with pytest.raises(errors.UnsupportedConflictStrategy) as caught:
        push(MINIMAL, on_conflict="cancel_and_replace")
    assert caught.value.details["supportedStrategies"] == []


def test_strategy_is_returned_typed() -> None:
    assert push(on_conflict="queue_after").on_conflict is ConflictStrategy.QUEUE_AFTER


# --- pushes: order, first failure wins ----------------------------------------------------
def test_mode_before_execution() -> None:
    with pytest.raises(errors.UnsupportedMode):
        push(command="fly", execution=Execution.WINDOWED, on_conflict="nope")


def test_execution_before_parameters() -> None:
    with pytest.raises(errors.ExecutionNotSupported):
        push(command="idle", execution=Execution.WINDOWED, parameters={"x": q(1, "kw")})


def test_every_parameter_declared_before_combination_or_unit() -> None:
    parameters = {"power": q(1, "percent"), "current": q(1, "a"), "speed": q(1, "kw")}
    with pytest.raises(errors.UnsupportedParameter) as caught:
        push(STANDARD_CHARGER, parameters=parameters)
    assert caught.value.details["parameter"] == "speed"


def test_combination_before_unit() -> None:
    with pytest.raises(errors.UnsupportedParameterCombination):
        push(STANDARD_CHARGER, parameters={"power": q(1, "percent"), "current": q(1, "a")})


def test_every_unit_before_any_bound() -> None:
    parameters = {"target": q(1, "percent"), "power": q(1, "percent")}
    with pytest.raises(errors.UnsupportedUnit) as caught:
        push(parameters=parameters)
    assert caught.value.details["parameter"] == "power"


def test_bounds_before_strategy() -> None:
    caps = Capabilities(STANDARD_BATTERY.commands, {}, None)
    with pytest.raises(errors.ParameterOutOfRange):
        push(caps, parameters={"target": q(1, "percent")}, on_conflict="queue_after")


# --- execution and windows -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("start", "end", "execution"),
    [
        (None, None, Execution.IMMEDIATE),
        (datetime(2026, 6, 1, 13), None, Execution.SCHEDULED),
        (datetime(2026, 6, 1, 13), datetime(2026, 6, 1, 14), Execution.WINDOWED),
        (None, datetime(2026, 6, 1, 14), Execution.WINDOWED),
    ],
)
def test_execution_shape_from_the_body(
    start: datetime | None, end: datetime | None, execution: Execution
) -> None:
    assert execution_for(start, end) is execution


@pytest.mark.parametrize(
    ("start", "end"),
    [
        (datetime(2026, 6, 1, 14), datetime(2026, 6, 1, 14)),
        (datetime(2026, 6, 1, 14), datetime(2026, 6, 1, 13)),
        (None, datetime(2026, 6, 1, 12)),  # now, plant-local
        (None, datetime(2026, 6, 1, 11, 59)),
        (datetime(2026, 6, 1, 11, 59, 30), datetime(2026, 6, 1, 11, 59, 50)),
    ],
)
def test_end_not_after_start_is_an_invalid_request(start: datetime | None, end: datetime) -> None:
    with pytest.raises(errors.InvalidRequest) as caught:
        check_window_order(start, end, BERLIN, NOW)
    assert caught.value.status == 400
    assert caught.value.details["errors"][0]["path"] == "end"


@pytest.mark.parametrize(
    ("start", "end"),
    [
        (None, None),
        (datetime(2026, 6, 1, 13), None),
        (datetime(2026, 6, 1, 13), datetime(2026, 6, 1, 13, 0, 1)),
        (None, datetime(2026, 6, 1, 12, 0, 1)),
        (None, datetime(2026, 3, 29, 2, 30)),  # a gap: refused later as START_OUT_OF_RANGE
    ],
)
def test_ordered_windows_pass(start: datetime | None, end: datetime | None) -> None:
    check_window_order(start, end, BERLIN, NOW)


def test_immediate_push_starts_now() -> None:
    assert resolve_window(None, None, BERLIN, NOW) == (NOW, None, Execution.IMMEDIATE)


def test_end_without_start_is_a_window_starting_now() -> None:
    window = resolve_window(None, datetime(2026, 6, 1, 14), BERLIN, NOW)
    assert window == (NOW, datetime(2026, 6, 1, 12, tzinfo=UTC), Execution.WINDOWED)


def test_local_times_become_utc() -> None:
    clock = FakeClock(datetime(2026, 11, 30, 12, tzinfo=UTC))
    window = resolve_window(datetime(2026, 12, 1, 1), datetime(2026, 12, 1, 5), BERLIN, clock.now())
    assert window.start == datetime(2026, 12, 1, 0, tzinfo=UTC)
    assert window.end == datetime(2026, 12, 1, 4, tzinfo=UTC)
    assert window.execution is Execution.WINDOWED


def test_dst_gap_start_is_refused() -> None:
    clock = FakeClock(datetime(2026, 3, 28, 12, tzinfo=UTC))
    with pytest.raises(errors.StartOutOfRange) as caught:
        resolve_window(datetime(2026, 3, 29, 2, 30), None, BERLIN, clock.now())
    assert caught.value.status == 422
    assert caught.value.details["reason"] == "nonexistent_local_time"
    assert caught.value.details["field"] == "start"


def test_dst_gap_end_is_refused() -> None:
    clock = FakeClock(datetime(2026, 3, 28, 12, tzinfo=UTC))
    with pytest.raises(errors.StartOutOfRange) as caught:
        resolve_window(datetime(2026, 3, 29, 1), datetime(2026, 3, 29, 2, 30), BERLIN, clock.now())
    assert caught.value.details["reason"] == "nonexistent_local_time"
    assert caught.value.details["field"] == "end"


def test_utc_windows_keep_their_instants_even_in_a_fold() -> None:
    now = datetime(2026, 10, 24, 12, tzinfo=UTC)
    second_half_past_two = datetime(2026, 10, 25, 1, 30, tzinfo=UTC)  # Berlin's second 02:30
    window = window_from_utc(second_half_past_two, None, now)
    assert window == (second_half_past_two, None, Execution.SCHEDULED)
    end = second_half_past_two + timedelta(hours=1)
    assert window_from_utc(second_half_past_two, end, now).execution is Execution.WINDOWED


@pytest.mark.parametrize(
    ("start", "reason"),
    [
        (datetime(2026, 10, 24, 11, 50, tzinfo=UTC), "start_in_past"),
        (datetime(2027, 12, 1, tzinfo=UTC), "start_too_far_ahead"),
    ],
)
def test_utc_windows_out_of_range_are_refused(start: datetime, reason: str) -> None:
    with pytest.raises(errors.StartOutOfRange) as caught:
        window_from_utc(start, None, datetime(2026, 10, 24, 12, tzinfo=UTC))
    assert caught.value.details["reason"] == reason


def test_a_backwards_utc_window_is_refused() -> None:
    start = datetime(2026, 10, 25, 1, tzinfo=UTC)
    with pytest.raises(errors.InvalidRequest):
        window_from_utc(start, start, datetime(2026, 10, 24, 12, tzinfo=UTC))


def test_dst_fold_takes_the_first_occurrence() -> None:
    clock = FakeClock(datetime(2026, 10, 24, 12, tzinfo=UTC))
    window = resolve_window(datetime(2026, 10, 25, 2, 30), None, BERLIN, clock.now())
    assert window.start == datetime(2026, 10, 25, 0, 30, tzinfo=UTC)


def test_window_across_the_fold_keeps_its_real_length() -> None:
    clock = FakeClock(datetime(2026, 10, 24, 12, tzinfo=UTC))
    window = resolve_window(
        datetime(2026, 10, 25, 1), datetime(2026, 10, 25, 4), BERLIN, clock.now()
    )
    assert window.end is not None
    assert window.end - window.start == timedelta(hours=4)


@pytest.mark.parametrize("seconds_ago", [0, 1, 60])
def test_start_up_to_60s_in_the_past_is_accepted(seconds_ago: int) -> None:
    clock = FakeClock(NOW)
    local = (clock.now() - timedelta(seconds=seconds_ago)).astimezone(BERLIN)
    window = resolve_window(local.replace(tzinfo=None), None, BERLIN, clock.now())
    assert window.start == NOW - timedelta(seconds=seconds_ago)


def test_start_61s_in_the_past_is_out_of_range() -> None:
    clock = FakeClock(NOW)
    local = (clock.now() - timedelta(seconds=61)).astimezone(BERLIN).replace(tzinfo=None)
    with pytest.raises(errors.StartOutOfRange) as caught:
        resolve_window(local, None, BERLIN, clock.now())
    assert caught.value.details == {"reason": "start_in_past"}


def test_start_30_days_ahead_is_accepted_and_one_second_more_is_not() -> None:
    clock = FakeClock(NOW)
    limit = (clock.now() + timedelta(days=30)).astimezone(BERLIN).replace(tzinfo=None)
    assert resolve_window(limit, None, BERLIN, clock.now()).start == NOW + timedelta(days=30)
    with pytest.raises(errors.StartOutOfRange) as caught:
        resolve_window(limit + timedelta(seconds=1), None, BERLIN, clock.now())
    assert caught.value.details == {"reason": "start_too_far_ahead"}


def test_range_follows_the_clock() -> None:
    clock = FakeClock(NOW)
    start = datetime(2026, 6, 1, 12, 5)  # 10:05Z
    resolve_window(start, None, BERLIN, clock.now())
    clock.advance(timedelta(minutes=6))
    resolve_window(start, None, BERLIN, clock.now())
    clock.advance(timedelta(seconds=1))
    with pytest.raises(errors.StartOutOfRange):
        resolve_window(start, None, BERLIN, clock.now())


def test_gap_is_reported_before_the_range() -> None:
    with pytest.raises(errors.StartOutOfRange) as caught:
        resolve_window(datetime(2027, 3, 28, 2, 30), None, BERLIN, NOW)
    assert caught.value.details["reason"] == "nonexistent_local_time"


def test_resolve_window_refuses_a_backwards_window_too() -> None:
    with pytest.raises(errors.InvalidRequest):
        resolve_window(datetime(2026, 6, 1, 14), datetime(2026, 6, 1, 13), BERLIN, NOW)


# --- settings ------------------------------------------------------------------------------
def test_settings_convert_and_pass() -> None:
    values = {
        "export_limit": q(3, "kw"),
        "max_charge_rate": q(2000, "w"),
        "safety_reserve": q(20, "percent"),
    }
    assert validate_settings(STANDARD_BATTERY, values) == {
        "export_limit": 3000.0,
        "max_charge_rate": 2.0,
        "safety_reserve": 20,
    }


def test_boolean_setting() -> None:
    assert validate_settings(STANDARD_CHARGER, {"cable_lock": True}) == {"cable_lock": True}


def test_unknown_setting_lists_the_writable_ones() -> None:
    with pytest.raises(errors.UnsupportedSetting) as caught:
        validate_settings(STANDARD_CHARGER, {"export_limit": q(1, "w")})
    assert caught.value.status == 422
    assert caught.value.details["availableSettings"] == [
        "max_charge_rate",
        "max_charge_current",
        "cable_lock",
    ]


def test_scheduler_enabled_is_read_only() -> None:
    for caps in (STANDARD_BATTERY, STANDARD_CHARGER):
        with pytest.raises(errors.ReadOnlySetting) as caught:
            validate_settings(caps, {"scheduler_enabled": True})
        assert caught.value.details["setting"] == "scheduler_enabled"


def test_rate_with_current_is_an_unsupported_combination() -> None:
    with pytest.raises(errors.UnsupportedSettingCombination) as caught:
        validate_settings(
            STANDARD_CHARGER, {"max_charge_rate": q(7, "kw"), "max_charge_current": q(16, "a")}
        )
    assert caught.value.details == {
        "conflictingSettings": ["max_charge_rate", "max_charge_current"]
    }


@pytest.mark.parametrize(
    ("caps", "key", "value", "expected"),
    [
        (STANDARD_BATTERY, "export_limit", q(3, "percent"), "w"),
        (STANDARD_BATTERY, "export_limit", True, "w"),
        (STANDARD_CHARGER, "cable_lock", q(1, "percent"), None),
    ],
)
def test_setting_with_wrong_unit(
    caps: Capabilities, key: str, value: Quantity | bool, expected: str | None
) -> None:
    with pytest.raises(errors.UnsupportedUnit) as caught:
        validate_settings(caps, {key: value})
    assert caught.value.details == {"setting": key, "expectedUnit": expected}


def test_setting_out_of_range_in_the_declared_unit() -> None:
    with pytest.raises(errors.ParameterOutOfRange) as caught:
        validate_settings(STANDARD_BATTERY, {"max_charge_rate": q(6000, "w")})
    assert caught.value.details == {"setting": "max_charge_rate", "min": 0, "max": 5}


def test_settings_order_unknown_before_read_only() -> None:
    with pytest.raises(errors.UnsupportedSetting):
        validate_settings(STANDARD_CHARGER, {"scheduler_enabled": True, "nope": True})


def test_settings_order_read_only_before_combination() -> None:
    values: dict[str, Quantity | bool] = {
        "max_charge_rate": q(7, "kw"),
        "max_charge_current": q(16, "a"),
        "scheduler_enabled": True,
    }
    with pytest.raises(errors.ReadOnlySetting):
        validate_settings(STANDARD_CHARGER, values)


def test_settings_order_combination_before_unit() -> None:
    values: dict[str, Quantity | bool] = {
        "max_charge_rate": q(7, "percent"),
        "max_charge_current": q(16, "a"),
    }
    with pytest.raises(errors.UnsupportedSettingCombination):
        validate_settings(STANDARD_CHARGER, values)


def test_settings_order_every_unit_before_any_bound() -> None:
    values: dict[str, Quantity | bool] = {
        "safety_reserve": q(500, "percent"),
        "export_limit": q(1, "percent"),
    }
    with pytest.raises(errors.UnsupportedUnit) as caught:
        validate_settings(STANDARD_BATTERY, values)
    assert caught.value.details["setting"] == "export_limit"


def test_device_without_settings() -> None:
    with pytest.raises(errors.UnsupportedSetting) as caught:
        validate_settings(MINIMAL, {"cable_lock": True})
    assert caught.value.details["availableSettings"] == []
