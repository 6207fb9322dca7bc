"""A push or a settings write checked against a device's capabilities, first failure wins.

Inputs are already parsed (the API layer has checked the JSON shape). A push is checked in
CONTRACT 4 order, split over three calls so the caller can interleave its own steps:

1. `check_window_order` with the body shape (400 `INVALID_REQUEST`);
2. `validate_push`: command, execution shape, each parameter declared, `power` with
   `current`, units (w->kw and wh->kwh converted), bounds, `onConflict`;
3. `resolve_window`: DST gap, then the start's time range; conflicts come after.

CONTRACT 5 names the settings codes but not their order; `validate_settings` follows the
push order: key known, key writable, combination, unit, bounds. Within one step keys and
parameters are checked in the order the client sent them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import NamedTuple
from zoneinfo import ZoneInfo

from energyhub.domain import errors
from energyhub.domain.capabilities import Capabilities, ConflictStrategy, Execution
from energyhub.domain.clock import EARLIEST, LATEST, NonexistentLocalTime, ensure_utc, local_to_utc
from energyhub.domain.quantities import Quantity, convert
from energyhub.domain.recurrence import MAX_DURATION

PAST_TOLERANCE = timedelta(seconds=60)
"""A start this far in the past still fires (at once)."""
MAX_START_AHEAD = timedelta(days=30)
MAX_WINDOW = MAX_DURATION
"""A window's longest span, as a schedule slot's."""
_ZONE_SLACK = timedelta(days=2)  # more than any zone's offset from UTC
EARLIEST_WALL = (EARLIEST + _ZONE_SLACK).replace(tzinfo=None)
LATEST_WALL = (LATEST - _ZONE_SLACK).replace(tzinfo=None)
"""Wall-clock times outside these are outside the service's range in every zone: they are
refused as such before a conversion to UTC that could overflow (near year 1 or 9999)."""

EXCLUSIVE_PARAMETERS: tuple[tuple[str, str], ...] = (("power", "current"),)
"""Parameter pairs that are one limit in two units: a push may carry only one of each."""
EXCLUSIVE_SETTINGS: tuple[tuple[str, str], ...] = (("max_charge_rate", "max_charge_current"),)
"""Setting pairs that are one ceiling in two units: a write may carry only one of each."""


class Window(NamedTuple):
    """A push's placement in UTC; `start` is the receive time for an immediate push."""

    start: datetime
    end: datetime | None
    execution: Execution


@dataclass(frozen=True, slots=True)
class ValidatedPush:
    """A push that passed every capability check; parameters are in the declared units."""

    command: str
    parameters: dict[str, Quantity]
    execution: Execution
    on_conflict: ConflictStrategy | None


def execution_for(start_local: datetime | None, end_local: datetime | None) -> Execution:
    """The execution shape a body asks for: `end` (with or without `start`) is a window."""
    if end_local is not None:
        return Execution.WINDOWED
    if start_local is not None:
        return Execution.SCHEDULED
    return Execution.IMMEDIATE


def check_window_order(
    start_local: datetime | None, end_local: datetime | None, tz: ZoneInfo, now: datetime
) -> None:
    """400 when `end` is not after `start` (or, without `start`, not after now).

    Runs with the body shape, before any capability check. A plain wall-clock comparison is
    exact because DST folds resolve to their first occurrence, which keeps local->UTC
    monotonic; an `end` in a DST gap is left for `resolve_window` to refuse.
    """
    if end_local is None:
        return
    if start_local is not None and end_local <= start_local:
        raise _invalid_end("end must be after start")
    if end_local < EARLIEST_WALL:
        raise _invalid_end("end must be in the future")
    if end_local > LATEST_WALL:
        return  # in the future, and too far: `resolve_window` refuses it without converting
    try:
        end_utc = local_to_utc(end_local, tz)
    except NonexistentLocalTime:
        return
    if end_utc <= ensure_utc(now):
        raise _invalid_end("end must be in the future")


def validate_push(
    caps: Capabilities,
    command: str,
    parameters: Mapping[str, Quantity],
    execution: Execution,
    on_conflict: str | None,
) -> ValidatedPush:
    """Capability checks of CONTRACT 4, from the command to `onConflict`."""
    spec = caps.commands.get(command)
    if spec is None:
        raise errors.UnsupportedMode(
            f"This device does not support the command {command!r}: "
            "use one of details.supportedModes.",
            supportedModes=list(caps.commands),
        )
    if execution not in spec.execution:
        raise errors.ExecutionNotSupported(
            f"{command!r} cannot run {execution.value}: use one of details.supportedExecution.",
            supportedExecution=[e.value for e in spec.execution],
        )
    for name in parameters:
        if name not in spec.parameters:
            raise errors.UnsupportedParameter(
                f"{command!r} does not take the parameter {name!r}: "
                "see details.supportedParameters.",
                parameter=name,
                supportedParameters=list(spec.parameters),
            )
    for pair in EXCLUSIVE_PARAMETERS:
        if all(name in parameters for name in pair):
            raise errors.UnsupportedParameterCombination(conflictingParameters=list(pair))
    converted: dict[str, Quantity] = {}
    for name, quantity in parameters.items():
        declared = spec.parameters[name]
        in_unit = convert(quantity, declared.unit)
        if in_unit is None:
            raise errors.UnsupportedUnit(
                f"{name!r} is measured in {declared.unit!r}.",
                parameter=name,
                expectedUnit=declared.unit,
            )
        converted[name] = in_unit
    for name, quantity in converted.items():
        declared = spec.parameters[name]
        if not _within(quantity.value, declared.min, declared.max):
            raise errors.ParameterOutOfRange(parameter=name, min=declared.min, max=declared.max)
    return ValidatedPush(command, converted, execution, _strategy(caps, on_conflict))


def resolve_window(
    start_local: datetime | None, end_local: datetime | None, tz: ZoneInfo, now: datetime
) -> Window:
    """Plant-local `start`/`end` to UTC, refusing DST gaps and starts out of range.

    `end` without `start` is a window that starts now. Call `check_window_order` first;
    the order is checked again here so no caller can build a backwards window.
    """
    now = ensure_utc(now)
    execution = execution_for(start_local, end_local)
    _check_wall_range(start_local, end_local)
    start = now if start_local is None else _to_utc(start_local, tz, "start")
    end = None if end_local is None else _to_utc(end_local, tz, "end")
    if start_local is not None:
        if start < now - PAST_TOLERANCE:
            raise errors.StartOutOfRange(reason="start_in_past")
        if start > now + MAX_START_AHEAD:
            raise errors.StartOutOfRange(reason="start_too_far_ahead")
    if end is not None and end <= start:
        raise _invalid_end("end must be after start")
    if end is not None and end - start > MAX_WINDOW:
        raise _window_too_long()
    return Window(start, end, execution)


def _check_wall_range(start_local: datetime | None, end_local: datetime | None) -> None:
    """A time near year 1 or 9999 is refused as out of range before its conversion to UTC
    could overflow; every other time is converted and checked exactly."""
    if start_local is not None:
        if start_local < EARLIEST_WALL:
            raise errors.StartOutOfRange(reason="start_in_past")
        if start_local > LATEST_WALL:
            raise errors.StartOutOfRange(reason="start_too_far_ahead")
    if end_local is not None:
        if end_local < EARLIEST_WALL:
            raise _invalid_end("end must be after start")
        if end_local > LATEST_WALL:
            raise _window_too_long()


def _window_too_long() -> errors.WindowTooLong:
    return errors.WindowTooLong(maxDuration="P7D", field="end")


def window_from_utc(start: datetime, end: datetime | None, now: datetime) -> Window:
    """A window given as UTC instants (a schedule's occurrence): the same range rules as
    `resolve_window`, with no wall clock to misread in a DST fold."""
    now = ensure_utc(now)
    start, end = ensure_utc(start), None if end is None else ensure_utc(end)
    if start < now - PAST_TOLERANCE:
        raise errors.StartOutOfRange(reason="start_in_past")
    if start > now + MAX_START_AHEAD:
        raise errors.StartOutOfRange(reason="start_too_far_ahead")
    if end is not None and end <= start:
        raise _invalid_end("end must be after start")
    return Window(start, end, Execution.SCHEDULED if end is None else Execution.WINDOWED)


def validate_settings(
    caps: Capabilities, values: Mapping[str, Quantity | bool]
) -> dict[str, float | bool]:
    """A sparse settings write checked as a whole (all or nothing), in the declared units."""
    writable = [key for key, spec in caps.settings.items() if not spec.read_only]
    for key in values:
        if key not in caps.settings:
            raise errors.UnsupportedSetting(
                f"This device has no setting {key!r}: see details.availableSettings.",
                setting=key,
                availableSettings=writable,
            )
    for key in values:
        if caps.settings[key].read_only:
            raise errors.ReadOnlySetting(
                f"{key!r} is managed by the platform and cannot be written.", setting=key
            )
    for pair in EXCLUSIVE_SETTINGS:
        if all(key in values for key in pair):
            raise errors.UnsupportedSettingCombination(conflictingSettings=list(pair))
    converted: dict[str, float | bool] = {}
    for key, value in values.items():
        converted[key] = _setting_in_unit(key, value, caps.settings[key].unit)
    for key, written in converted.items():
        spec = caps.settings[key]
        if not isinstance(written, bool) and not _within(written, spec.min, spec.max):
            raise errors.ParameterOutOfRange(setting=key, min=spec.min, max=spec.max)
    return converted


def _setting_in_unit(key: str, value: Quantity | bool, unit: str | None) -> float | bool:
    if unit is None:
        if isinstance(value, bool):
            return value
        raise errors.UnsupportedUnit(
            f"{key!r} is a boolean: send {{'value': true}} or {{'value': false}}.",
            setting=key,
            expectedUnit=None,
        )
    in_unit = None if isinstance(value, bool) else convert(value, unit)
    if in_unit is None:
        raise errors.UnsupportedUnit(
            f"{key!r} is measured in {unit!r}.", setting=key, expectedUnit=unit
        )
    return in_unit.value


def _strategy(caps: Capabilities, requested: str | None) -> ConflictStrategy | None:
    if requested is None:
        return None
    supported = caps.conflict_strategies or ()
    if requested not in {s.value for s in supported}:
        raise errors.UnsupportedConflictStrategy(
            requestedStrategy=requested, supportedStrategies=[s.value for s in supported]
        )
    return ConflictStrategy(requested)


def _to_utc(local: datetime, tz: ZoneInfo, field: str) -> datetime:
    try:
        return local_to_utc(local, tz)
    except NonexistentLocalTime:
        raise errors.StartOutOfRange(
            f"{field} {local.isoformat()} does not exist in {tz.key} (clocks skip it for "
            "daylight saving time): pick a time outside the gap.",
            reason="nonexistent_local_time",
            field=field,
        ) from None


def _within(value: float, low: float | None, high: float | None) -> bool:
    """Bounds check that also refuses NaN and infinities, which compare False to anything."""
    if not math.isfinite(value):
        return False
    return (low is None or value >= low) and (high is None or value <= high)


def _invalid_end(message: str) -> errors.InvalidRequest:
    return errors.InvalidRequest(f"{message}.", errors=[{"path": "end", "message": message}])
