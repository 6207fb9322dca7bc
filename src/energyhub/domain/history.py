"""A device's recent state as a time series: what the dashboard charts (issue 6).

A battery is charted by its level (percent), a charger by its power (kW): the one number
that says most about each over a day."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from energyhub.domain.capabilities import DeviceType

HISTORY_SPAN = timedelta(hours=24)
SAMPLE_STEP = timedelta(minutes=10)  # computed histories (the sandbox) are sampled this often
SAMPLES_KEPT = HISTORY_SPAN + timedelta(hours=1)  # recorded samples older than this go


class Metric(StrEnum):
    LEVEL = "level"
    POWER = "power"

    @property
    def unit(self) -> str:
        return "%" if self is Metric.LEVEL else "kW"


def metric_for(device_type: DeviceType) -> Metric:
    return Metric.LEVEL if device_type is DeviceType.BATTERY else Metric.POWER


@dataclass(frozen=True, slots=True)
class StateSample:
    at: datetime
    level: float | None  # percent
    power_kw: float | None  # positive charging, negative discharging

    def value(self, metric: Metric) -> float | None:
        return self.level if metric is Metric.LEVEL else self.power_kw


def sample_of(device_type: DeviceType, state: dict[str, Any], at: datetime) -> StateSample:
    """What a stored spec 2.2 / 2.5 state says at `at` (unknown values stay None)."""
    if device_type is DeviceType.BATTERY:
        return StateSample(at, _number(state.get("level")), _number(state.get("chargeRate")))
    return StateSample(at, None, _number(state.get("currentPower")))


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


@dataclass(frozen=True, slots=True)
class History:
    """The samples of one device between `start` and `end`, oldest first."""

    metric: Metric
    start: datetime
    end: datetime
    samples: tuple[StateSample, ...]

    def points(self) -> list[tuple[datetime, float]]:
        return [(s.at, v) for s in self.samples if (v := s.value(self.metric)) is not None]
