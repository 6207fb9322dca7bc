"""The one-action rule under real concurrency (DESIGN: a push locks its device row)."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import datetime
from typing import Any

from energyhub.domain.devices import Device
from energyhub.domain.readings import CommandReceipt, CommandRequest, DeviceReading, DriverError
from tests.support import Api


async def test_50_concurrent_pushes_give_one_action_and_49_conflicts(api: Api) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    responses = await asyncio.gather(
        *(api.push(caller, device, "charge" if i % 2 else "idle") for i in range(50))
    )
    statuses = Counter(r.status_code for r in responses)
    assert statuses == {200: 1, 409: 49}, [r.text for r in responses if r.status_code >= 500]
    codes = Counter(r.json()["error"]["code"] for r in responses if r.status_code == 409)
    assert set(codes) <= {"CONFLICT_IN_EXECUTION", "ACTION_CONFLICT"}
    listed = (await api.get(caller, "/actions", deviceId=device["id"])).json()["data"]
    assert listed["pagination"]["total"] == 1


async def test_50_concurrent_scheduled_pushes_at_one_time(api: Api) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    responses = await asyncio.gather(
        *(api.push(caller, device, "idle", start="2026-11-20T14:00:00") for _ in range(50))
    )
    assert Counter(r.status_code for r in responses) == {202: 1, 409: 49}


class FlakyDriver:
    instant = False
    """Refuses twice with a transient error, then accepts."""

    def __init__(self) -> None:
        self.calls = 0

    async def read(self, device: Device, now: datetime) -> DeviceReading:
        return DeviceReading(state=device.state)

    async def send_command(
        self, device: Device, request: CommandRequest, now: datetime
    ) -> CommandReceipt:
        self.calls += 1
        if self.calls <= 2:
            raise DriverError("DEVICE_BUSY", "busy", retryable=True)
        return CommandReceipt({"accepted": True})

    async def write_settings(self, device: Device, values: Any, now: datetime) -> None:
        raise DriverError("DEVICE_OFFLINE", "The device did not answer.", retryable=True)


async def test_transient_errors_are_retried_a_bounded_number_of_times(api: Api) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    flaky = FlakyDriver()
    api.container.drivers["flaky"] = flaky
    async with api.container.uow() as tx:
        await tx.devices.update_device(device["id"], driver="flaky")
    response = await api.push(caller, device, "idle")
    assert response.status_code == 200, response.text
    assert flaky.calls == 3
    assert response.json()["data"]["state"] == "completed", "this driver confirms at once"
    flaky.calls = -10  # now it keeps refusing: two quick retries, then failed
    refused = await api.push(caller, device, "charge")
    assert refused.status_code == 502
    assert refused.json()["error"]["code"] == "DEVICE_BUSY"
    assert flaky.calls == -7
    settings = await api.client.post(
        f"/battery/{device['id']}/settings",
        json={"discharge_floor": {"value": 20, "unit": "percent"}},
        headers=caller.headers,
    )
    assert settings.status_code == 502
    assert settings.json()["error"]["code"] == "DEVICE_OFFLINE"
    read = (await api.get(caller, f"/battery/{device['id']}")).json()["data"]
    assert read["settings"]["discharge_floor"]["value"] == 10
