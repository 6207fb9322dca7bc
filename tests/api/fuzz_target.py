"""The service schemathesis fuzzes: real HTTP on 127.0.0.1, one database, and a sandbox
account seeded with one of each thing a path can name (devices of every profile, a vehicle,
actions in every state, schedules, webhook endpoints and deliveries, linked accounts), so
that cases reach the service's rules instead of a 404 for an id nobody created."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import httpx

from energyhub.bootstrap import Container
from energyhub.domain.accounts import Environment
from energyhub.domain.clock import FakeClock
from energyhub.domain.sandbox_profiles import PROFILES
from energyhub.workers.webhook_pump import run_due
from tests.api.test_linking import AMPERE, VOLTA, Flow

USER = "user-1"
EMAIL = "user-1@example.com"
LINKED_USER = "user-linked"
OWNER = "schemathesis-seed"


def closed_port() -> int:
    """A loopback port nothing listens on: the seeded endpoints' attempts fail at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Seeded:
    """What the account holds, by the name of the fuzz dictionary that offers it."""

    key: str
    ids: dict[str, list[str]] = field(default_factory=dict)

    def add(self, name: str, *values: str) -> None:
        self.ids.setdefault(name, []).extend(values)


class Seeder:
    """Seeds through the public API (and the dispatcher and webhook sender, run once each on
    the fake clock), on the service's own event loop."""

    def __init__(self, container: Container, clock: FakeClock, base: str) -> None:
        self.container = container
        self.clock = clock
        self.base = base

    async def seed(self) -> Seeded:
        accounts = self.container.services.accounts
        account = await accounts.create_account("schemathesis")
        created = await accounts.create_key(account.id, Environment.SANDBOX)
        seeded = Seeded(created.key)
        async with httpx.AsyncClient(
            base_url=self.base, headers={"x-api-key": created.key}, timeout=30
        ) as http:
            self.http = http
            devices = [await self._device(name, USER) for name in PROFILES]
            for device in devices:
                seeded.add("batteries" if device["type"] == "battery" else "chargers", device["id"])
                if device.get("vehicle"):
                    seeded.add("vehicles", device["vehicle"]["id"])
            for type_ in ("battery", "ev-charger"):  # for disconnect, reconnect and locks
                seeded.add("sandbox_devices", (await self._device(type_, "user-2"))["id"])
            seeded.add("users", USER, EMAIL, "user-2", LINKED_USER)
            seeded.add("linked_users", LINKED_USER)
            endpoint = await self._endpoint()
            seeded.add("endpoints", endpoint)
            for device in devices:
                await self._actions(seeded, device)
                await self._call("PUT", f"/{device['type']}/{device['id']}/schedule", SCHEDULE)
            await self._link(seeded, "battery", "sandbox-volta", VOLTA, "VH-1001")
            await self._link(seeded, "ev-charger", "sandbox-ampere", AMPERE, "AW-4001")
            await run_due(self.container.webhook_sender, OWNER)  # deliveries to the closed port
            deliveries = await self._call("GET", "/webhooks/deliveries?limit=50")
            seeded.add("deliveries", *(item["id"] for item in deliveries["items"]))
            seeded.add("endpoints", *[await self._endpoint() for _ in range(2)])
            seeded.add("spare_endpoints", *[await self._endpoint() for _ in range(6)])
        return seeded

    async def _call(
        self, method: str, path: str, body: Any = None, expect: int | None = None
    ) -> dict[str, Any]:
        response = await self.http.request(method, path, json=body)
        if expect is None:
            assert response.is_success, f"{method} {path}: {response.status_code} {response.text}"
        else:
            assert response.status_code == expect, f"{method} {path}: {response.text}"
        data: dict[str, Any] = response.json()["data"] if response.is_success else {}
        return data

    async def _device(self, profile: str, user: str) -> dict[str, Any]:
        type_ = PROFILES[profile].device_type.value if profile in PROFILES else profile
        body = {"type": type_, "userId": user, "email": f"{user}@example.com", "profile": profile}
        return await self._call("POST", "/sandbox/devices", body)

    async def _endpoint(self) -> str:
        body = {"url": f"http://127.0.0.1:{closed_port()}/hook", "description": "fuzz"}
        return str((await self._call("POST", "/webhooks/endpoints", body))["id"])

    async def _actions(self, seeded: Seeded, device: dict[str, Any]) -> None:
        """A completed, a failed, a cancelled and two scheduled (cancellable) actions."""
        path = f"/{device['type']}/{device['id']}"
        kind = "battery_actions" if device["type"] == "battery" else "charger_actions"
        idle = {"command": "idle"}
        made = [(await self._call("POST", path, {"action": idle}))["id"]]
        self.clock.advance(self.container.settings.sandbox_completion_delay_s + 1)
        await self.container.dispatcher.run_due(OWNER)
        failure = {"result": "failed", "errorCode": "DEVICE_OFFLINE"}
        response = await self.http.post(path, json={"action": idle, "sandbox": failure})
        assert response.status_code == 502, response.text
        made.append(response.json()["error"]["details"]["actionId"])
        zone = ZoneInfo(device["metadata"]["timezone"])
        for hours in (5, 6, 7):
            start = local(self.clock.now() + timedelta(hours=hours), zone)
            made.append((await self._call("POST", path, {"action": idle, "start": start}))["id"])
        await self._call("POST", f"/actions/{made[-1]}/cancel")
        seeded.add(kind, *made)

    async def _link(
        self, seeded: Seeded, device_type: str, vendor: str, login: dict[str, str], device: str
    ) -> None:
        """The hosted flow, as a browser without JavaScript would go through it."""
        session = await self._call("POST", "/link-sessions", {"userId": LINKED_USER})
        link = urlsplit(session["linkUrl"])
        flow = Flow(self.http, f"{self.base}{link.path}?{link.query}")
        await flow.open()
        await flow.send(device_type=device_type)
        await flow.send(vendor=vendor)
        await flow.send(**login)
        await flow.send(device=[device])
        done = await flow.send("allow")
        assert flow.title() == "Your devices are connected", done.text
        accounts = await self._call("GET", f"/users/{LINKED_USER}/linked-accounts")
        for account in accounts["items"]:
            if account["vendor"] == vendor:
                seeded.add("linked_accounts", account["id"])
                kind = "batteries" if device_type == "battery" else "chargers"
                seeded.add(kind, *account["deviceIds"])


SCHEDULE = {
    "timezone": "Europe/Berlin",
    "recurrence": {"rule": "daily"},
    "slots": [{"time": "03:30", "duration": "PT1H", "command": "idle"}],
}


def local(instant: datetime, zone: ZoneInfo) -> str:
    """A push's `start`/`end`: the plant's wall clock, without offset."""
    return instant.astimezone(zone).strftime("%Y-%m-%dT%H:%M:%S")
