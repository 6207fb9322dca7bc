"""Live SunSpec batteries end to end: commissioning, pushes, windows, settings and events
over the HTTP API with a live key, and the state poller, against a real pymodbus server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import select

from energyhub.bootstrap import Container, build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment
from energyhub.domain.clock import FakeClock
from energyhub.domain.readings import DriverError
from energyhub.drivers.sunspec import DEFAULT_REVERSION_S
from energyhub.persistence.tables import webhook_events
from energyhub.services.commissioning import CommissioningError
from tests.sunspec_peer import BASIC_LAYOUT, STORAGE_LAYOUT, SunspecPeer
from tests.support import Api, Caller, open_api

# START is 12:00Z, 13:00 in Berlin (the commissioned batteries' zone)
LOCAL_13_10, LOCAL_13_40 = "2026-11-20T13:10:00", "2026-11-20T13:40:00"


@pytest.fixture
async def container(database_url: str, clock: FakeClock) -> AsyncIterator[Container]:
    """On SQLite and on PostgreSQL (`database_url` of tests/conftest.py)."""
    settings = Settings(
        database_url=database_url,
        key_cache_ttl_s=0,
        immediate_retry_backoff_s=(0, 0),
    )
    built = await build_container(settings, clock)
    try:
        yield built
    finally:
        await built.aclose()


@pytest.fixture
async def api(container: Container, clock: FakeClock) -> AsyncIterator[Api]:
    async with open_api(container, clock) as opened:
        yield opened


@pytest.fixture
async def peer() -> AsyncIterator[SunspecPeer]:
    async with SunspecPeer(STORAGE_LAYOUT) as started:
        yield started


async def _live_battery(api: Api, peer: SunspecPeer) -> tuple[Caller, dict[str, Any]]:
    caller = await api.caller(Environment.LIVE)
    done = await api.container.commissioning.add_sunspec(
        caller.account_id, "user-1", "127.0.0.1", peer.port
    )
    response = await api.get(caller, f"/battery/{done.device.id}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()["data"]
    return caller, body


async def _events(container: Container) -> list[tuple[str, dict[str, Any]]]:
    async with container.engine.connect() as connection:
        rows = await connection.execute(
            select(webhook_events.c.type, webhook_events.c.payload).order_by(webhook_events.c.pk)
        )
        return [(row.type, row.payload) for row in rows]


async def _push_events(container: Container) -> list[tuple[str, dict[str, Any]]]:
    """The `push.*` events (commissioning sent `device.connected` before them)."""
    return [(t, p) for t, p in await _events(container) if t.startswith("push.")]


# --- commissioning ------------------------------------------------------------------------------
async def test_commissioning_makes_a_live_battery_read_once(
    api: Api, container: Container, peer: SunspecPeer
) -> None:
    caller, battery = await _live_battery(api, peer)
    assert battery["type"] == "battery"
    assert (battery["vendor"], battery["metadata"]["model"]) == ("volta-energy", "ModBat 10")
    assert battery["metadata"]["source"] == "cache", "read once when created"
    assert battery["state"]["level"] == 73.6
    assert battery["state"]["currentMode"] == "auto.balance"
    assert set(battery["commands"]) == {
        "charge",
        "discharge",
        "idle",
        "auto.balance",
        "auto.reserve",
        "auto.export",
    }
    assert battery["settings"]["discharge_floor"] == {
        "value": 10.0,
        "unit": "percent",
        "min": 0,
        "max": 100,
    }
    async with container.uow() as tx:
        endpoint = await tx.sunspec.get(battery["id"])
    assert endpoint is not None
    assert (endpoint.port, endpoint.unit_id, endpoint.base_address) == (peer.port, 1, 40000)
    assert [m.id for m in endpoint.models] == [1, 124, 802]
    sandbox = await api.key_for(caller.account_id, Environment.SANDBOX)
    hidden = await api.get(sandbox, f"/battery/{battery['id']}")
    assert hidden.status_code == 404, "a live device is invisible to a sandbox key"


async def test_commissioning_again_gives_the_same_device(
    api: Api, container: Container, peer: SunspecPeer
) -> None:
    caller, battery = await _live_battery(api, peer)
    again = await container.commissioning.add_sunspec(
        caller.account_id, "user-1", "127.0.0.1", peer.port
    )
    assert (again.device.id, again.created) == (battery["id"], False)
    with pytest.raises(CommissioningError, match="another user"):
        await container.commissioning.add_sunspec(
            caller.account_id, "user-2", "127.0.0.1", peer.port
        )
    with pytest.raises(LookupError):
        await container.commissioning.add_sunspec("acc_nope", "user-1", "127.0.0.1", peer.port)
    with pytest.raises(CommissioningError, match="timezone"):
        await container.commissioning.add_sunspec(
            caller.account_id, "user-1", "127.0.0.1", peer.port, 2, timezone="Mars/Base"
        )


async def test_commissioning_sends_device_connected_once(
    api: Api, container: Container, peer: SunspecPeer
) -> None:
    """Like a charger's (`add-ocpp`), a battery sends `device.connected` when it is
    commissioned; commissioning it again for the same user sends nothing more."""
    caller, battery = await _live_battery(api, peer)
    await container.commissioning.add_sunspec(caller.account_id, "user-1", "127.0.0.1", peer.port)
    [(event, payload)] = await _events(container)
    assert event == "device.connected"
    assert payload["deviceId"] == battery["id"]
    assert (payload["deviceType"], payload["userId"]) == ("battery", "user-1")
    assert (payload["vendor"], payload["linkedAccountId"]) == ("volta-energy", None)


async def test_commissioning_an_unreachable_battery_stores_nothing(
    api: Api, container: Container
) -> None:
    caller = await api.caller(Environment.LIVE)
    stopped = await SunspecPeer(STORAGE_LAYOUT).start()
    await stopped.stop()
    with pytest.raises(DriverError) as failed:
        await container.commissioning.add_sunspec(
            caller.account_id, "user-1", "127.0.0.1", stopped.port
        )
    assert failed.value.code == "DEVICE_OFFLINE"
    listed = await api.get(caller, "/battery")
    assert listed.json()["data"]["pagination"]["total"] == 0


# --- pushes -------------------------------------------------------------------------------------
async def test_a_live_push_changes_the_registers(
    api: Api, container: Container, peer: SunspecPeer
) -> None:
    caller, battery = await _live_battery(api, peer)
    response = await api.push(
        caller, battery, "charge", parameters={"power": {"value": 2000, "unit": "w"}}
    )
    assert response.status_code == 200, response.text
    action = response.json()["data"]
    assert action["state"] == "acknowledged"
    assert action["result"]["written"]["124.InWRte"] == 4000
    assert await peer.raw(124, "InWRte") == 4000  # 2 kW of 5 kW, SF -2
    assert await peer.raw(124, "OutWRte") == -4000
    assert await peer.raw(124, "StorCtl_Mod") == 3
    assert await peer.raw(124, "InOutWRte_RvrtTms") > 0
    await peer.set(802, "W", -2000)  # the battery follows
    await peer.set(124, "ChaSt", 4)
    assert await api.run_due(1) == 1
    done = (await api.get(caller, f"/actions/{action['id']}")).json()["data"]
    assert done["state"] == "completed"
    state = (await api.get(caller, f"/battery/{battery['id']}")).json()["data"]["state"]
    assert state["currentMode"] == "charge"
    assert (state["status"], state["chargeRate"]) == ("charging", 2.0)
    events = await _push_events(container)
    assert [t for t, _ in events] == ["push.completed"]
    assert events[0][1]["actionId"] == action["id"]
    assert events[0][1]["deviceType"] == "battery"


async def test_live_pushes_are_checked_against_the_registers_offer(
    api: Api, peer: SunspecPeer
) -> None:
    caller, battery = await _live_battery(api, peer)
    too_much = await api.push(
        caller, battery, "charge", parameters={"power": {"value": 6, "unit": "kw"}}
    )
    assert too_much.status_code == 422
    assert too_much.json()["error"]["code"] == "PARAMETER_OUT_OF_RANGE"
    simulated = await api.push(
        caller, battery, "idle", sandbox={"result": "failed", "errorCode": "DEVICE_OFFLINE"}
    )
    assert simulated.status_code == 403
    assert peer.writes == []


async def test_a_basic_battery_refuses_what_its_registers_lack(api: Api) -> None:
    async with SunspecPeer(BASIC_LAYOUT, base=50000) as basic:
        caller, battery = await _live_battery(api, basic)
        response = await api.push(
            caller, battery, "charge", parameters={"target": {"value": 80, "unit": "percent"}}
        )
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "UNSUPPORTED_PARAMETER"


async def test_a_window_restores_the_battery_mode(
    api: Api, container: Container, peer: SunspecPeer
) -> None:
    caller, battery = await _live_battery(api, peer)
    response = await api.push(
        caller,
        battery,
        "discharge",
        parameters={"power": {"value": 1, "unit": "kw"}},
        start=LOCAL_13_10,
        end=LOCAL_13_40,
    )
    assert response.status_code == 202, response.text
    assert peer.writes == [], "nothing is sent before the start"
    assert await api.run_due(600) == 1
    assert await peer.raw(124, "OutWRte") == 2000
    assert await peer.raw(124, "StorCtl_Mod") == 3
    assert await api.run_due(1) == 1  # completed after the read-back
    peer.writes.clear()
    assert await api.run_due(1800) == 1  # the window's end
    assert await peer.raw(124, "StorCtl_Mod") == 0, "back to the battery's own mode"
    assert await peer.raw(124, "InOutWRte_RvrtTms") == 0
    state = (await api.get(caller, f"/battery/{battery['id']}")).json()["data"]["state"]
    assert state["currentMode"] == "auto.balance"
    assert [t for t, _ in await _push_events(container)] == ["push.completed"]


async def test_an_offline_battery_fails_the_push(
    api: Api, container: Container, peer: SunspecPeer
) -> None:
    caller, battery = await _live_battery(api, peer)
    await peer.stop()
    response = await api.push(caller, battery, "idle")
    assert response.status_code == 502
    error = response.json()["error"]
    assert error["code"] == "DEVICE_OFFLINE"
    failed = (await api.get(caller, f"/actions/{error['details']['actionId']}")).json()["data"]
    assert failed["state"] == "failed"
    events = await _push_events(container)
    assert [t for t, _ in events] == ["push.failed"]
    assert events[0][1]["errorCode"] == "DEVICE_OFFLINE"
    api.clock.advance(120)
    expedited = await api.get(caller, f"/battery/{battery['id']}", expedite="true")
    assert expedited.json()["data"]["metadata"]["source"] == "live"
    assert expedited.json()["data"]["sync"]["available"] is False
    assert expedited.json()["data"]["state"]["level"] == 73.6, "the last state it reported"


async def test_a_scheduled_push_to_an_offline_battery_is_deferred(
    api: Api, peer: SunspecPeer
) -> None:
    caller, battery = await _live_battery(api, peer)
    response = await api.push(caller, battery, "idle", start=LOCAL_13_10)
    assert response.status_code == 202
    await peer.stop()
    assert await api.run_due(600) == 1
    action = (await api.get(caller, f"/actions/{response.json()['data']['id']}")).json()["data"]
    assert action["state"] == "deferred"
    assert action["deferredUntil"] is not None


# --- settings -----------------------------------------------------------------------------------
async def test_live_settings_write_the_registers(api: Api, peer: SunspecPeer) -> None:
    caller, battery = await _live_battery(api, peer)
    response = await api.client.post(
        f"/battery/{battery['id']}/settings",
        json={
            "discharge_floor": {"value": 15, "unit": "percent"},
            "max_charge_rate": {"value": 3500, "unit": "w"},
        },
        headers=caller.headers,
    )
    assert response.status_code == 200, response.text
    settings = response.json()["data"]["settings"]
    assert settings["discharge_floor"]["value"] == 15
    assert settings["max_charge_rate"]["value"] == 3.5
    assert await peer.raw(124, "MinRsvPct") == 150
    assert await peer.raw(124, "WChaMax") == 3500
    unknown = await api.client.post(
        f"/battery/{battery['id']}/settings",
        json={"export_limit": {"value": 3000, "unit": "w"}},
        headers=caller.headers,
    )
    assert unknown.status_code == 422
    assert unknown.json()["error"]["code"] == "UNSUPPORTED_SETTING"
    # the stored floor is what later commands put back after their own
    pushed = await api.push(caller, battery, "idle")
    assert pushed.status_code == 200
    assert await peer.raw(124, "MinRsvPct") == 150


# --- the state poller ---------------------------------------------------------------------------
async def test_the_poller_refreshes_stale_live_devices(
    api: Api, container: Container, peer: SunspecPeer
) -> None:
    caller, _ = await _live_battery(api, peer)
    sandbox = await api.key_for(caller.account_id, Environment.SANDBOX)
    await api.sandbox_device(sandbox)
    polling = container.state_poller.polling
    assert polling.polled_drivers() == sorted(
        name for name, driver in container.drivers.items() if not driver.instant
    )
    assert "sunspec" in polling.polled_drivers()
    assert await polling.refresh_stale() == 0, "just read at commissioning"
    assert await polling.next_due_at() == api.clock.now() + polling.interval
    await peer.set(802, "SoC", 500)
    api.clock.advance(polling.interval.total_seconds() + 1)
    assert await polling.refresh_stale() == 1, "the live battery, not the sandbox device"
    listed = await api.get(caller, "/battery")
    item = listed.json()["data"]["items"][0]
    assert item["state"]["level"] == 50.0
    assert item["sync"]["lastPulledAt"] == "2026-11-20T12:01:01.000Z"
    assert await polling.refresh_stale() == 0


async def test_polling_renews_a_held_mode(
    api: Api, container: Container, peer: SunspecPeer
) -> None:
    caller, battery = await _live_battery(api, peer)
    assert (await api.push(caller, battery, "idle")).status_code == 200
    await api.run_due(1)
    polling = container.state_poller.polling
    assert polling.interval.total_seconds() * 5 <= DEFAULT_REVERSION_S
    peer.writes.clear()
    api.clock.advance(polling.interval.total_seconds() + 1)
    assert await polling.refresh_stale() == 1
    assert peer.writes == [], "the timer has most of its time left"
    api.clock.advance(polling.interval.total_seconds() + 1)
    assert await polling.refresh_stale() == 1
    assert peer.written(124, "InOutWRte_RvrtTms") == [DEFAULT_REVERSION_S], "timer restarted"
    assert peer.written(124, "StorCtl_Mod") == [3]


async def test_the_poller_worker_runs_and_stops(
    api: Api, container: Container, peer: SunspecPeer
) -> None:
    await _live_battery(api, peer)
    api.clock.advance(container.state_poller.polling.interval.total_seconds() + 1)
    seen = peer.watch_reads()
    container.state_poller.start()
    try:
        await asyncio.wait_for(seen.wait(), 5)
    finally:
        await container.state_poller.stop()


async def test_a_revoked_battery_is_left_alone_as_a_disconnected_sandbox_one(
    api: Api, container: Container, peer: SunspecPeer
) -> None:
    caller, battery = await _live_battery(api, peer)
    mode = await peer.raw(124, "StorCtl_Mod")
    now = api.clock.now()
    async with container.uow() as tx:  # what revoking the user's link does
        await tx.devices.update_device(
            battery["id"], disconnected_at=now, last_pulled_at=None, updated_at=now
        )
    response = await api.push(
        caller, battery, "charge", parameters={"power": {"value": 2000, "unit": "w"}}
    )
    assert response.json()["error"]["code"] == "CREDENTIALS_INVALID", response.text
    assert await peer.raw(124, "StorCtl_Mod") == mode, "nothing was written"
    read = (await api.get(caller, f"/battery/{battery['id']}", expedite="true")).json()["data"]
    assert read["sync"]["available"] is False
    assert read["state"]["level"] == battery["state"]["level"], "the last state it reported"
