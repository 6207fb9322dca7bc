"""The sandbox site's simulated meter: sun by day, a house load, the devices on top."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from energyhub.domain import sandbox_site

DAY = datetime(2026, 6, 1, tzinfo=UTC)


def test_the_meter_exports_at_noon_and_imports_at_night_and_in_the_evening() -> None:
    noon = DAY + timedelta(hours=13)  # the middle of the 08-18 sun: the 8 kW peak
    assert sandbox_site.solar_kw(noon) == pytest.approx(8.0)
    assert sandbox_site.grid_power_kw(noon) == pytest.approx(-7.5)
    assert sandbox_site.grid_power_kw(noon, [7.4]) == pytest.approx(-0.1)
    assert sandbox_site.grid_power_kw(DAY + timedelta(hours=3)) == 0.5
    assert sandbox_site.grid_power_kw(DAY + timedelta(hours=19)) == 2.0


def test_the_forecast_covers_the_span_in_steps_without_the_devices() -> None:
    periods = sandbox_site.forecast(DAY + timedelta(hours=12), DAY + timedelta(hours=13, minutes=5))
    assert [p.end - p.start for p in periods] == [timedelta(minutes=15)] * 4 + [
        timedelta(minutes=5)
    ]
    assert periods[0].start == DAY + timedelta(hours=12)
    assert all(p.power_kw < -6 for p in periods)
