"""Command routing with real processes on PostgreSQL: two `energyhub serve` processes on one
database, an OCPP 1.6 charger (the `ocpp` package) connected to process A. An immediate
push and a settings write sent to process B reach the charger through A; a push in flight
when A is killed (SIGKILL) fails with DEVICE_TIMEOUT at once and is not sent again; the
charger reconnects to B and is commanded there. And an `energyhub worker` process, which
holds no charger, sends a window's command and its restore through the API process that
holds it. Every frame the charger receives is counted: none arrives twice."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import asyncpg
import httpx
from websockets.asyncio.client import connect

from energyhub.bootstrap import build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment
from tests.conftest import reset_postgres
from tests.integration.cross_process import dsn, wait_for_channels
from tests.integration.ocpp_support import PASSWORD, WAIT, Answers, Charger, Sim16, Wire, basic
from tests.processes import Service, start_service, start_worker

CP = "CP-ROUTED"
COMMANDS = ("SetChargingProfile", "RemoteStartTransaction", "ChangeConfiguration")


async def commissioned(database_url: str, tmp_path: Path) -> tuple[str, str]:
    """A live key and an OCPP charger's device id (commissioned before any process runs)."""
    container = await build_container(Settings(database_url=database_url, data_dir=str(tmp_path)))
    try:
        account = await container.services.accounts.create_account("routing")
        created = await container.services.accounts.create_key(account.id, Environment.LIVE)
        device = await container.commissioning.add_ocpp(account.id, "user-1", CP, PASSWORD)
        return created.key, device.id
    finally:
        await container.aclose()


async def plug(service: Service, answers: Answers | None = None) -> Charger:
    """The simulated charger connected to `service` and booted."""
    ws = await connect(
        f"{service.base.replace('http', 'ws', 1)}/ocpp/{CP}",
        subprotocols=["ocpp1.6"],  # type: ignore[list-item]
        additional_headers=basic(CP, PASSWORD),
        open_timeout=WAIT,
    )
    wire = Wire(ws)
    sim = Sim16(CP, wire, answers or Answers())
    task = asyncio.create_task(_serve(sim))
    await sim.boot()
    return Charger(sim, wire, task, "ocpp1.6")


async def _serve(sim: Sim16) -> None:
    with contextlib.suppress(Exception):
        await sim.start()


async def owner(database_url: str) -> tuple[str | None, int]:
    connection = await asyncpg.connect(dsn(database_url))
    try:
        row = await connection.fetchrow(
            "SELECT owner, owner_generation FROM ocpp_charge_points WHERE charge_point_id = $1",
            CP,
        )
    finally:
        await connection.close()
    assert row is not None
    return row["owner"], row["owner_generation"]


async def held_by(database_url: str, service: Service, generation: int) -> None:
    """Until `service` holds the charger at `generation` and its declaration is stored."""
    deadline = time.monotonic() + WAIT
    while True:
        name, found = await owner(database_url)
        if name is not None and name.startswith(f"{service.process.pid}.") and found == generation:
            return
        assert time.monotonic() < deadline, (name, found)
        await asyncio.sleep(0.05)


async def ready(client: httpx.AsyncClient, device_id: str) -> dict[str, Any]:
    """Once the charger reads online through `client`'s process with its whole declaration
    stored: the `charge` command and the `cable_lock` setting (read from the charger's
    configuration after its boot, so a moment after the commands)."""
    deadline = time.monotonic() + WAIT
    while True:
        got = await client.get(f"/ev-charger/{device_id}", params={"expedite": "true"})
        assert got.status_code == 200, got.text
        body: dict[str, Any] = got.json()["data"]
        declared = "charge" in str(body["commands"]) and "cable_lock" in str(body["settings"])
        if body["state"].get("isConnected") is not None and declared:
            return body
        assert time.monotonic() < deadline, body
        await asyncio.sleep(0.1)


def commands(*wires: Wire) -> Counter[str]:
    return Counter(name for wire in wires for name, _ in wire.calls if name in COMMANDS)


async def test_any_process_commands_a_charger_held_by_another(
    postgres_url: str, tmp_path: Path
) -> None:
    await reset_postgres(postgres_url)
    key, device_id = await commissioned(postgres_url, tmp_path)
    env = {"ENERGYHUB_DATA_DIR": str(tmp_path), "ENERGYHUB_OCPP_RESPONSE_TIMEOUT_S": "5"}
    start = [
        asyncio.to_thread(start_service, postgres_url, tmp_path, "--no-demo", env=env) for _ in "ab"
    ]
    a, b = await asyncio.gather(*start)  # at once: each takes seconds on a busy machine
    first: Charger | None = None
    second: Charger | None = None
    try:
        await asyncio.to_thread(wait_for_channels, postgres_url, a.process.pid, b.process.pid)
        answers = Answers()
        first = await plug(a, answers)
        await held_by(postgres_url, a, 1)
        headers = {"x-api-key": key}
        async with httpx.AsyncClient(base_url=b.base, headers=headers, timeout=40) as via_b:
            await ready(via_b, device_id)  # B reads the charger through A
            # an immediate push and a settings write through B reach the charger on A
            started = time.monotonic()
            pushed = await via_b.post(
                f"/ev-charger/{device_id}",
                json={"action": {"command": "charge", "parameters": {}}},
            )
            routed_s = time.monotonic() - started
            assert pushed.status_code == 200, pushed.text
            assert pushed.json()["data"]["state"] == "completed"
            assert commands(first.wire) == {"SetChargingProfile": 1, "RemoteStartTransaction": 1}
            written = await via_b.post(
                f"/ev-charger/{device_id}/settings",
                json={
                    "max_charge_current": {"value": 20, "unit": "a"},
                    "cable_lock": {"value": True},
                },
            )
            assert written.status_code == 200, written.text
            assert written.json()["data"]["settings"]["cable_lock"]["value"] is True
            assert commands(first.wire) == {
                "SetChargingProfile": 2,
                "RemoteStartTransaction": 1,
                "ChangeConfiguration": 1,
            }

            # a push in flight on A when A is killed: DEVICE_TIMEOUT, not sent again
            answers.delay["SetChargingProfile"] = 60.0
            seen = len(first.wire.calls)
            in_flight = asyncio.create_task(
                via_b.post(
                    f"/ev-charger/{device_id}",
                    json={"action": {"command": "idle", "parameters": {}}},
                )
            )
            await first.wire.next_call("SetChargingProfile", seen)
            a.kill()
            killed = time.monotonic()
            failed = await in_flight
            failed_after_s = time.monotonic() - killed
            assert failed.status_code >= 500, failed.text
            assert failed.json()["error"]["code"] == "DEVICE_TIMEOUT", failed.text
            assert failed_after_s < 5.0, failed_after_s
            await first.close()

            # nobody holds it now: B answers DEVICE_OFFLINE (A's lease is not waited for)
            offline = await via_b.post(
                f"/ev-charger/{device_id}",
                json={"action": {"command": "charge", "parameters": {}}},
            )
            assert offline.json()["error"]["code"] == "DEVICE_OFFLINE", offline.text

            # the charger reconnects to B and is commanded there
            second = await plug(b)
            await held_by(postgres_url, b, 2)
            await ready(via_b, device_id)
            again = await via_b.post(
                f"/ev-charger/{device_id}",
                json={"action": {"command": "charge", "parameters": {}}},
            )
            assert again.status_code == 200, again.text
            assert again.json()["data"]["state"] == "completed"
            await asyncio.sleep(0.5)  # a frame sent twice would have arrived by now
        assert commands(first.wire) == {
            "SetChargingProfile": 3,  # the charge, the settings, the idle in flight
            "RemoteStartTransaction": 1,
            "ChangeConfiguration": 1,
        }
        assert commands(second.wire)["SetChargingProfile"] >= 1
        print(f"routed push {routed_s * 1000:.1f} ms; in-flight failed {failed_after_s:.2f} s")
    finally:
        for plugged in (first, second):
            if plugged is not None:
                await plugged.close()
        a.stop()
        b.stop()


async def test_a_worker_process_dispatches_and_restores_a_window_through_the_holder(
    postgres_url: str, tmp_path: Path
) -> None:
    """`serve --no-workers` holds the charger; an `energyhub worker` (which holds none)
    sends the window's command at its start and the restore at its end, both routed."""
    await reset_postgres(postgres_url)
    key, device_id = await commissioned(postgres_url, tmp_path)
    env = {"ENERGYHUB_DATA_DIR": str(tmp_path), "ENERGYHUB_OCPP_RESPONSE_TIMEOUT_S": "5"}
    api, worker = await asyncio.gather(
        asyncio.to_thread(
            start_service, postgres_url, tmp_path, "--no-demo", "--no-workers", env=env
        ),
        asyncio.to_thread(start_worker, postgres_url, tmp_path, env),
    )
    plugged: Charger | None = None
    try:
        pids = (api.process.pid, worker.process.pid)
        await asyncio.to_thread(wait_for_channels, postgres_url, *pids)
        plugged = await plug(api)
        await held_by(postgres_url, api, 1)
        async with httpx.AsyncClient(
            base_url=api.base, headers={"x-api-key": key}, timeout=40
        ) as client:
            body = await ready(client, device_id)
            idle = await client.post(
                f"/ev-charger/{device_id}", json={"action": {"command": "idle", "parameters": {}}}
            )
            assert idle.status_code == 200, idle.text
            zone = ZoneInfo(body["metadata"]["timezone"])
            local = datetime.now(zone).replace(microsecond=0, tzinfo=None)
            start, end = local + timedelta(seconds=2), local + timedelta(seconds=4)
            seen = len(plugged.wire.calls)
            window = await client.post(
                f"/ev-charger/{device_id}",
                json={
                    "action": {
                        "command": "charge",
                        "parameters": {"power": {"value": 11, "unit": "kw"}},
                    },
                    "start": start.isoformat(),
                    "end": end.isoformat(),
                },
            )
            assert window.status_code == 202, window.text
            action_id = window.json()["data"]["id"]
            deadline = time.monotonic() + 3 * WAIT
            while True:
                found = (await client.get(f"/actions/{action_id}")).json()["data"]
                limits = [
                    p["csChargingProfiles"]["chargingSchedule"]["chargingSchedulePeriod"][0][
                        "limit"
                    ]
                    for name, p in plugged.wire.calls[seen:]
                    if name == "SetChargingProfile"
                ]
                if found["state"] == "completed" and len(limits) >= 2:
                    break
                assert time.monotonic() < deadline, (found, plugged.wire.actions()[seen:])
                await asyncio.sleep(0.2)
            await asyncio.sleep(0.5)  # a frame sent twice would have arrived by now
        limits = [
            p["csChargingProfiles"]["chargingSchedule"]["chargingSchedulePeriod"][0]["limit"]
            for name, p in plugged.wire.calls[seen:]
            if name == "SetChargingProfile"
        ]
        assert limits == [11000.0, 0.0], plugged.wire.calls[seen:]  # the window, its restore
        assert commands(plugged.wire)["RemoteStartTransaction"] == 1
    finally:
        if plugged is not None:
            await plugged.close()
        api.stop()
        worker.stop()
