"""One call of every documented operation against a fresh sandbox account, in an order
that gives each call real ids: the request and response examples of the OpenAPI document
are recorded from this run (`src/energyhub/api/openapi_examples.json`), and the test
re-runs it to show every example still succeeds.

Record again with `ENERGYHUB_WRITE_OPENAPI_EXAMPLES=1 .venv/bin/pytest -q
tests/api/test_openapi_document.py -k tour` after a change to a body or an answer."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from aiohttp import web

from energyhub.domain.clock import isoformat_utc
from tests.api.test_linking import VOLTA, Flow
from tests.support import Api, Caller, local_receiver

EXAMPLES = Path(__file__).parents[2] / "src" / "energyhub" / "api" / "openapi_examples.json"
RECEIVER = "https://example.com/webhooks/energyhub"
PUBLIC = "http://127.0.0.1:8000"
USER = "ada"
EMAIL = "ada@example.com"
TIMEZONE = "Europe/Berlin"
NO_BODY = object()

PUSH_NOW = {
    "action": {
        "command": "charge",
        "parameters": {
            "target": {"value": 80, "unit": "percent"},
            "power": {"value": 3, "unit": "kw"},
        },
    }
}
"""Charge to 80 % at 3 kW, now: a default sandbox battery accepts it at any time."""


@dataclass
class Tour:
    api: Api
    caller: Caller
    operations: dict[str, tuple[str, str]]  # operation id -> (method, path template)
    recorded: dict[str, dict[str, Any]] = field(default_factory=dict)
    battery: str = ""  # the ids of the devices the tour made
    charger: str = ""

    async def call(
        self,
        operation_id: str,
        parameters: dict[str, Any] | None = None,
        body: Any = NO_BODY,
        record: bool = True,
    ) -> Any:
        """The operation's `data`; asserts a 2xx. `parameters` fills the path, the rest
        goes in the query."""
        method, template = self.operations[operation_id]
        values = dict(parameters or {})
        path = template
        for name in re.findall(r"\{(\w+)\}", template):
            path = path.replace(f"{{{name}}}", str(values.pop(name)))
        response = await self.api.client.request(
            method.upper(),
            path,
            params=values or None,
            headers=self.caller.headers,
            **({} if body is NO_BODY else {"json": body}),
        )
        assert response.is_success, f"{operation_id}: {response.status_code} {response.text}"
        answer = response.json()
        if record:
            example: dict[str, Any] = {"parameters": dict(parameters or {})}
            if body is not NO_BODY:
                example["body"] = body
            example.update(status=response.status_code, response=answer)
            self.recorded[operation_id] = example
        return answer["data"]

    async def settle(self) -> None:
        """The sandbox completes what was sent (as the dispatcher does a moment later)."""
        await self.api.run_due(self.api.container.settings.sandbox_completion_delay_s + 1)

    def local(self, hours: float) -> str:
        """The plant's wall clock `hours` from now, as a push's `start` takes it."""
        moment = self.api.clock.now() + timedelta(hours=hours)
        return moment.astimezone(ZoneInfo(TIMEZONE)).strftime("%Y-%m-%dT%H:%M:%S")

    def utc(self, hours: float) -> str:
        return isoformat_utc(self.api.clock.now() + timedelta(hours=hours))


async def run_tour(api: Api, caller: Caller, document: dict[str, Any]) -> dict[str, Any]:
    """Every operation once; the recorded examples, ready to be written or compared."""
    operations = {
        op["operationId"]: (method, path)
        for path, methods in document["paths"].items()
        for method, op in methods.items()
    }
    tour = Tour(api, caller, operations)
    async with local_receiver(_receive) as receiver_url:
        await _devices(tour)
        await _actions(tour)
        await _strategies(tour)
        await _schedules(tour)
        await _webhooks(tour, receiver_url)
        await _linking(tour)
        await _sandbox(tour)
        text = json.dumps(tour.recorded, sort_keys=True)
        text = text.replace(receiver_url, RECEIVER).replace("http://testserver", PUBLIC)
    missing = sorted(set(operations) - set(tour.recorded))
    assert not missing, f"the tour calls no {missing}"
    recorded: dict[str, Any] = json.loads(text)
    return recorded


async def _receive(_request: web.Request) -> web.Response:
    return web.Response(text="ok")


async def _devices(tour: Tour) -> None:
    battery = await tour.call(
        "createSandboxDevice",
        body={"type": "battery", "userId": USER, "email": EMAIL, "timezone": TIMEZONE},
    )
    charger = await tour.call(
        "createSandboxDevice",
        body={"type": "ev-charger", "userId": USER, "profile": "ev-charger", "timezone": TIMEZONE},
        record=False,
    )
    tour.battery, tour.charger = battery["id"], charger["id"]
    await tour.call("getBattery", {"deviceId": battery["id"]})
    await tour.call("listBatteries", {"userId": USER})
    await tour.call("getEvCharger", {"deviceId": charger["id"]})
    await tour.call("listEvChargers", {"userId": USER})
    await tour.call("getVehicle", {"vehicleId": charger["vehicle"]["id"]})
    await tour.call("listUserDevices", {"userIdOrEmail": EMAIL})
    await tour.call("listChargingSessions", {"deviceId": charger["id"], "limit": 5})


async def _actions(tour: Tour) -> None:
    battery, charger = tour.battery, tour.charger
    pushed = await tour.call("pushBatteryCommand", {"deviceId": battery}, PUSH_NOW)
    await tour.settle()
    await tour.call("getAction", {"actionId": pushed["id"]})
    await tour.call("listActions", {"deviceId": battery, "state": "completed"})
    charge = {
        "action": {"command": "charge", "parameters": {"power": {"value": 7.4, "unit": "kw"}}}
    }
    await tour.call("pushEvChargerCommand", {"deviceId": charger}, charge)
    await tour.settle()
    await tour.call(
        "writeBatterySettings",
        {"deviceId": battery},
        {"discharge_floor": {"value": 20, "unit": "percent"}},
    )
    await tour.call(
        "writeEvChargerSettings",
        {"deviceId": charger},
        {"max_charge_current": {"value": 16, "unit": "a"}, "cable_lock": {"value": True}},
    )
    for operation_id, device, kind in [
        ("cancelAction", battery, "battery"),
        ("cancelBatteryAction", battery, "battery"),
        ("cancelEvChargerAction", charger, "ev-charger"),
    ]:
        later = {"action": {"command": "idle"}, "start": tour.local(3)}
        push = "pushBatteryCommand" if kind == "battery" else "pushEvChargerCommand"
        scheduled = await tour.call(push, {"deviceId": device}, later, record=False)
        await tour.call(operation_id, {"actionId": scheduled["id"]})


async def _strategies(tour: Tour) -> None:
    site = {
        "timezone": TIMEZONE,
        "gridImportLimit": {"value": 11, "unit": "kw"},
        "tariff": {
            "currency": "EUR",
            "import": {
                "prices": [
                    {"start": tour.utc(h), "end": tour.utc(h + 1), "price": price}
                    for h, price in [(0, 0.31), (1, 0.27), (2, 0.22)]
                ]
            },
        },
    }
    await tour.call("updateSite", {"userId": USER}, site)
    prices = {"import": [{"start": tour.utc(3), "end": tour.utc(4), "price": 0.18}]}
    await tour.call("addSitePrices", {"userId": USER}, prices)
    reading = {"at": tour.utc(-1 / 60), "gridPower": {"value": 2.4, "unit": "kw"}}
    await tour.call("addSiteReadings", {"userId": USER}, {"readings": [reading]})
    await tour.call("getSite", {"userId": USER})
    charger = tour.charger
    goal = {"readyBy": "07:00", "energy": {"value": 20, "unit": "kwh"}}
    await tour.call("setChargingGoal", {"deviceId": charger}, goal)
    await tour.call("getChargingPlan", {"deviceId": charger})
    await tour.call("deleteChargingGoal", {"deviceId": charger})


async def _schedules(tour: Tour) -> None:
    for kind, device in [("Battery", tour.battery), ("EvCharger", tour.charger)]:
        schedule = {
            "timezone": TIMEZONE,
            "recurrence": {"rule": "weekly", "days": ["mon", "tue", "wed", "thu", "fri"]},
            "slots": [{"time": "02:00", "duration": "PT2H", "command": "charge"}],
        }
        await tour.call(f"set{kind}Schedule", {"deviceId": device}, schedule)
        await tour.call(f"get{kind}Schedule", {"deviceId": device})
        await tour.call(f"delete{kind}Schedule", {"deviceId": device})


async def _webhooks(tour: Tour, receiver_url: str) -> None:
    endpoint = await tour.call(
        "createWebhookEndpoint",
        body={
            "url": receiver_url,
            "description": "Production receiver",
            "events": ["push.completed", "push.failed", "device.disconnected"],
        },
    )
    await tour.call("listWebhookEndpoints")
    await tour.call("getWebhookEndpoint", {"endpointId": endpoint["id"]})
    await tour.call("rotateWebhookSecret", {"endpointId": endpoint["id"]}, {"expireOldNow": False})
    delivery = await tour.call("sendWebhookTestEvent", {"endpointId": endpoint["id"]})
    await tour.call("listWebhookDeliveries", {"endpointId": endpoint["id"]})
    await tour.call("getWebhookDelivery", {"deliveryId": delivery["id"]})
    await tour.call("resendWebhookDelivery", {"deliveryId": delivery["id"]})
    await tour.call("deleteWebhookEndpoint", {"endpointId": endpoint["id"]})


async def _linking(tour: Tour) -> None:
    session = await tour.call(
        "createLinkSession",
        body={"userId": USER, "email": EMAIL, "redirectUri": "https://app.example.com/linked"},
    )
    link = urlsplit(session["linkUrl"])
    flow = Flow(tour.api.client, f"{link.path}?{link.query}")
    await flow.open()
    await flow.send(device_type="battery")
    await flow.send(vendor="sandbox-volta")
    await flow.send(**VOLTA)
    await flow.send(device=["VH-1001"])
    await flow.send("allow")
    accounts = await tour.call("listLinkedAccounts", {"userIdOrEmail": USER})
    account = accounts["items"][0]["id"]
    await tour.call("revokeLinkedAccount", {"userId": USER, "linkedAccountId": account})


async def _sandbox(tour: Tour) -> None:
    battery, charger = tour.battery, tour.charger
    await tour.call(
        "simulateSandboxDevice", {"deviceId": charger}, {"pluggedIn": True, "vehicleSoc": 20}
    )
    await tour.call("lockSandboxDevice", {"deviceId": battery}, {"until": tour.utc(2)})
    await tour.call("disconnectSandboxDevice", {"deviceId": battery})
    await tour.call("reconnectSandboxDevice", {"deviceId": battery})
