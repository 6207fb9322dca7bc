"""Command routing's fencing and at-most-once rule, with two services in this process on one
PostgreSQL database: a charger that connects to the second is no longer commanded by the
first (the first closes its own connection), and a routed request that reaches its holder
twice (the channel repeated it) or names an old generation is sent to the charger at most
once (those requests are raw notifications on the channel, as another process sends
them); a strategy's schedule and its release steered from the second reach a charger the
first holds, as the same profile the first sends itself."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import asyncpg
import pytest

from energyhub.domain.planning.steering import constant_schedule
from energyhub.drivers.ocpp.routing import OcppRouting, RoutedOcppDriver
from energyhub.persistence.ocpp import SqlChargePointStore
from tests.conftest import reset_postgres
from tests.integration.cross_process import dsn
from tests.integration.ocpp_support import WAIT, Service, charger, connect_charger, running_service

pytestmark = pytest.mark.postgres
CHANNEL = "energyhub"


@pytest.fixture
async def pair(postgres_url: str) -> AsyncIterator[tuple[Service, Service]]:
    await reset_postgres(postgres_url)
    async with running_service(postgres_url) as a, running_service(postgres_url) as b:
        names = [_routing(s).name for s in (a, b)]
        async with asyncio.timeout(WAIT):
            while not (_hears(a, names[1]) and _hears(b, names[0])):  # noqa: ASYNC110
                await asyncio.sleep(0.05)
        yield a, b


def _routing(service: Service) -> OcppRouting:
    owners = service.container.ocpp.owners
    assert isinstance(owners, OcppRouting)
    return owners


def _hears(service: Service, name: str) -> bool:
    signals = service.container.signals
    return signals is not None and signals.hears(name)


def _route(to: str, request_id: str, generation: int, device_id: str) -> str:
    body = {
        "id": request_id,
        "from": "test.000000",
        "gen": generation,
        "device": device_id,
        "op": "command",
        "args": {"command": "charge", "parameters": {}, "action": None},
    }
    return f"route:{to} {json.dumps(body)}"


async def test_a_charger_that_connects_elsewhere_is_no_longer_commanded_here(
    pair: tuple[Service, Service],
) -> None:
    a, b = pair
    caller = await a.live_caller()
    device_id = await a.commission(caller, "CP-MOVES")
    async with charger(a, "CP-MOVES") as first:
        # the charger opens a second connection, to B: B holds it, A closes its own
        second = await connect_charger(b, "CP-MOVES")
        try:
            await second.sim.boot()
            async with asyncio.timeout(WAIT):
                await b.container.ocpp.wait_ready("CP-MOVES")
                await first.wire.ws.wait_closed()
            assert first.wire.ws.close_code == 4000
            assert a.container.ocpp.station("CP-MOVES") is not None
            assert not _routing(a).holds(a.container.ocpp.station("CP-MOVES"))  # type: ignore[arg-type]
            # a push served by A reaches the charger through B, on the new connection only
            seen_first, seen_second = len(first.wire.calls), len(second.wire.calls)
            pushed = await a.push(caller, device_id, "charge")
            assert pushed.status_code == 200, pushed.text
            assert first.wire.actions()[seen_first:] == []
            assert second.wire.actions()[seen_second:] == [
                "SetChargingProfile",
                "RemoteStartTransaction",
            ]
        finally:
            await second.close()


async def test_a_routed_request_is_sent_at_most_once_and_only_by_its_generation(
    pair: tuple[Service, Service], postgres_url: str
) -> None:
    a, _b = pair
    caller = await a.live_caller()
    device_id = await a.commission(caller, "CP-ONCE")
    answers: list[dict[str, Any]] = []
    listener = await asyncpg.connect(dsn(postgres_url))
    try:

        def heard(_c: object, _pid: int, _channel: str, message: str) -> None:
            topic, _, payload = message.partition(":")
            if topic == "routed" and payload.startswith("test.000000 "):
                answers.append(json.loads(payload.partition(" ")[2]))

        await listener.add_listener(CHANNEL, heard)
        async with charger(a, "CP-ONCE") as cp:
            holder = _routing(a)
            generation = holder.generation("CP-ONCE")
            assert generation is not None
            seen = len(cp.wire.calls)
            twice = _route(holder.name, "req-1", generation, device_id)
            stale = _route(holder.name, "req-2", generation - 1, device_id)
            for message in (twice, twice, stale):
                await listener.execute("SELECT pg_notify($1, $2)", CHANNEL, message)
            async with asyncio.timeout(WAIT):
                while len(answers) < 2:  # noqa: ASYNC110
                    await asyncio.sleep(0.02)
            await asyncio.sleep(0.3)  # a second run of req-1 would have sent by now
            by_id = {answer["id"]: answer for answer in answers}
            assert len(answers) == 2, answers
            assert "result" in by_id["req-1"], by_id
            assert by_id["req-2"]["error"]["code"] == "moved"
            assert cp.wire.actions()[seen:] == ["SetChargingProfile", "RemoteStartTransaction"]
            assert holder.executed == 1
    finally:
        await listener.close()


async def test_a_strategy_schedule_and_its_release_reach_a_charger_held_elsewhere(
    pair: tuple[Service, Service],
) -> None:
    a, b = pair
    caller = await a.live_caller()
    device_id = await a.commission(caller, "CP-STEER")
    device = await SqlChargePointStore(b.container.engine).device(device_id)
    assert device is not None
    routed = b.container.drivers["ocpp"]
    routed = getattr(routed, "driver", routed)  # the metered wrapper's driver
    assert isinstance(routed, RoutedOcppDriver)
    async with charger(a, "CP-STEER") as cp:
        seen = len(cp.wire.calls)
        now = datetime.now(UTC)
        assert not routed.can_steer(device)  # steering stays with the holder's runner
        await routed.steer(device, constant_schedule(7.0, now), now)
        routed_profile = await cp.wire.next_call("SetChargingProfile", seen)
        assert routed_profile["csChargingProfiles"]["chargingProfileKind"] == "Absolute"
        # the same schedule sent by the holder itself makes the same profile
        local = a.container.drivers["ocpp"]
        local = getattr(local, "driver", local)
        assert isinstance(local, RoutedOcppDriver)
        assert local.can_steer(device)
        before_local = len(cp.wire.calls)
        await local.steer(device, constant_schedule(7.0, now), now)
        local_profile = await cp.wire.next_call("SetChargingProfile", before_local)
        assert local_profile == routed_profile
        after_steer = len(cp.wire.calls)
        await routed.release(device, now)
        await cp.wire.next_call("ClearChargingProfile", after_steer)
        assert cp.wire.actions()[seen:after_steer] == ["SetChargingProfile"] * 2
