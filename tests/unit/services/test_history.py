"""The chart's history (`services/history.py`): the stored samples, the stored state as the
newest point when something other than a pull wrote it, and a sandbox device's simulated
time before it was added."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import FakeClock
from energyhub.domain.devices import Device
from energyhub.domain.history import StateSample
from energyhub.domain.sandbox_profiles import new_sandbox_device, profile_for
from energyhub.drivers.sandbox.history import sandbox_history
from energyhub.services.history import HistoryService

from .fakes import FakeDatabase

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
PRINCIPAL = Principal("acc_1", Environment.SANDBOX, "k")


def battery(added: datetime) -> Device:
    return new_sandbox_device(
        profile_for(DeviceType.BATTERY, None),
        device_id="bat_1",
        account_id="acc_1",
        environment=Environment.SANDBOX,
        user_id="user_1",
        timezone="Europe/Berlin",
        now=added,
    )


async def history_of(device: Device, samples: list[StateSample]) -> list[StateSample]:
    db = FakeDatabase(FakeClock(NOW))
    db.tables.devices[device.id] = device
    db.tables.samples.extend((device.id, s) for s in samples)
    service = HistoryService(db, FakeClock(NOW), {"sandbox": sandbox_history})
    _, history = await service.last_day(PRINCIPAL, device.id)
    return list(history.samples)


async def test_the_stored_state_is_the_newest_point() -> None:
    """A strategy steering a sandbox charger stores its state without a pull: the chart
    still ends on it."""
    added = NOW - timedelta(days=2)
    steered = replace(
        battery(added),
        state={"level": 61.0, "chargeRate": 2.0},
        available=True,
        last_pulled_at=NOW - timedelta(minutes=5),
    )
    sampled = StateSample(NOW - timedelta(hours=1), 50.0, 0.0)

    charted = await history_of(steered, [sampled])

    assert charted == [sampled, StateSample(NOW - timedelta(minutes=5), 61.0, 2.0)]


async def test_a_new_sandbox_device_has_its_simulated_day_before_it_was_added() -> None:
    added = NOW - timedelta(hours=2)
    device = replace(battery(added), available=True, last_pulled_at=added)
    read = StateSample(added, 40.0, 1.0)
    device = replace(device, state={"level": 40.0, "chargeRate": 1.0})

    charted = await history_of(device, [read])

    before = [s for s in charted if s.at < added]
    assert len(before) == 22 * 6  # every 10 minutes from 24 h ago until it was added
    assert charted[-1] == read  # the stored state, not duplicated
    assert all(s.at < added for s in charted[:-1])
