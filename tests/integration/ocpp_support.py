"""OCPP test peers: the service under uvicorn on 127.0.0.1 (in process, ephemeral port), and
simulated chargers built on `ocpp.v16.ChargePoint` / `ocpp.v201.ChargePoint` over real
websockets, which log every frame that arrives on the wire."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from ocpp.exceptions import NotImplementedError as OcppNotImplemented
from ocpp.routing import after, on
from ocpp.v16 import ChargePoint as ChargePoint16
from ocpp.v16 import call as call16
from ocpp.v16 import call_result as result16
from ocpp.v201 import ChargePoint as ChargePoint201
from ocpp.v201 import call as call201
from ocpp.v201 import call_result as result201
from websockets.asyncio.client import ClientConnection, connect

from energyhub.bootstrap import Container, build_app, build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment
from energyhub.drivers.ocpp.central_system import OcppConfig
from energyhub.drivers.ocpp.keepalive import server_options
from tests.support import Caller

PASSWORD = "correct-horse-battery-1"
WAIT = 10.0  # every wait in these tests is bounded by this
HTTP_TIMEOUT_S = 3 * WAIT  # an HTTP answer, on a machine busy with the whole suite

PROTOCOLS = ["ocpp1.6", "ocpp2.0.1"]
START = {"ocpp1.6": "RemoteStartTransaction", "ocpp2.0.1": "RequestStartTransaction"}
STOP = {"ocpp1.6": "RemoteStopTransaction", "ocpp2.0.1": "RequestStopTransaction"}


def now_text() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


@dataclass
class Service:
    container: Container
    port: int
    client: httpx.AsyncClient

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ocpp"

    async def live_caller(self) -> Caller:
        accounts = self.container.services.accounts
        account = await accounts.create_account("ocpp")
        created = await accounts.create_key(account.id, Environment.LIVE)
        return Caller(account.id, created.key, created.api_key.id)

    async def commission(self, caller: Caller, cp_id: str, password: str = PASSWORD) -> str:
        device = await self.container.commissioning.add_ocpp(
            caller.account_id, "user-1", cp_id, password
        )
        return device.id

    async def device(self, caller: Caller, device_id: str) -> dict[str, Any]:
        await self.container.ocpp.flush()
        response = await self.client.get(
            f"/ev-charger/{device_id}", params={"expedite": "true"}, headers=caller.headers
        )
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()["data"]
        return body

    async def push(
        self, caller: Caller, device_id: str, command: str, **body: Any
    ) -> httpx.Response:
        parameters = body.pop("parameters", {})
        payload = {"action": {"command": command, "parameters": parameters}, **body}
        return await self.client.post(
            f"/ev-charger/{device_id}", json=payload, headers=caller.headers, timeout=WAIT
        )


@contextlib.asynccontextmanager
async def running_service(
    db: Path | str,
    config: OcppConfig | None = None,
    *,
    ping_s: float = 20.0,
    http: Any = "auto",
    **settings: Any,
) -> AsyncIterator[Service]:
    """The whole service (workers included) under uvicorn on an ephemeral port; `db` is a
    SQLite file or a database URL; the server pings chargers every `ping_s` (a pong may
    take up to WAIT); `http`: uvicorn's HTTP protocol (class)."""
    values: dict[str, Any] = {
        "database_url": db if isinstance(db, str) else f"sqlite+aiosqlite:///{db}",
        "key_cache_ttl_s": 0,
        "immediate_retry_backoff_s": (0, 0),
        "live_event_delay_s": 0,
        "private_webhook_urls": "all",
        **settings,
    }
    container = await build_container(Settings(**values))
    container.ocpp.config = config or OcppConfig(response_timeout_s=3.0, flush_s=0.02)
    server = uvicorn.Server(
        uvicorn.Config(
            build_app(container, serving=True),
            host="127.0.0.1",
            port=0,
            log_level="warning",
            lifespan="on",
            http=http,
            **server_options(ping_s, pong_timeout_s=WAIT),
        )
    )
    serving = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(WAIT):
            while not server.started:  # noqa: ASYNC110 (uvicorn offers no event for this)
                await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        # httpx's 5 s default is less than a loaded CI machine may take for a first answer
        # (the service, the charger and the test share one event loop); a hang still fails
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{port}", timeout=HTTP_TIMEOUT_S
        ) as client:
            yield Service(container, port, client)
    finally:
        server.should_exit = True
        await asyncio.wait_for(serving, WAIT)


def basic(user: str, password: str) -> dict[str, str]:
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


class Wire:
    """The charger's connection, logging each call frame the service sends."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self._arrived = asyncio.Condition()

    async def recv(self) -> str:
        message = await self.ws.recv()
        frame = json.loads(message)
        if frame[0] == 2:
            async with self._arrived:
                self.calls.append((frame[2], frame[3]))
                self._arrived.notify_all()
        return str(message)

    async def send(self, message: str) -> None:
        await self.ws.send(message)

    async def next_call(self, action: str, after: int = 0) -> dict[str, Any]:
        """The first `action` frame at index >= `after` (waits for it)."""
        async with asyncio.timeout(WAIT), self._arrived:
            while True:
                for name, payload in self.calls[after:]:
                    if name == action:
                        return payload
                await self._arrived.wait()

    def actions(self) -> list[str]:
        return [name for name, _ in self.calls]


class Answers:
    """What a simulated charger answers: Accepted unless a test says otherwise."""

    def __init__(self) -> None:
        self.status: dict[str, str] = {}
        self.config: dict[str, tuple[str, bool]] = {
            "SupportedFeatureProfiles": ("Core,SmartCharging,RemoteTrigger", True),
            "ChargingScheduleAllowedChargingRateUnit": ("Current,Power", True),
            "MeterValuesSampledData": ("Energy.Active.Import.Register,Power.Active.Import", False),
            "UnlockConnectorOnEVSideDisconnect": ("true", False),
        }
        # the ChargingStationMaxProfile a 2.0.1 station holds (it reports it when asked)
        self.max_profile: dict[str, Any] | None = None
        self.delay: dict[str, float] = {}  # seconds before it answers an action

    async def pause(self, action: str) -> None:
        await asyncio.sleep(self.delay.get(action, 0.0))

    def of(self, action: str) -> str:
        return self.status.get(action, "Accepted")

    def call(self, action: str) -> str:
        """As `of`; the status `NotImplemented` is a CALLERROR, with a protocol dump in its
        details as the SAP e-mobility simulator sends one."""
        status = self.of(action)
        if status == "NotImplemented":
            raise OcppNotImplemented(
                description=f"{action} is not implemented",
                details={"stack": "Error: not implemented\n" + "    at handler (x.js:1:1)\n" * 40},
            )
        return status


def runs(profile: dict[str, Any], transaction_id: str | None) -> bool:
    """Whether a charger running `transaction_id` takes `profile`: a TxProfile for another
    transaction is rejected, as a real charger (and one that restarted) does."""
    if profile.get("charging_profile_purpose") != "TxProfile":
        return True
    return str(profile.get("transaction_id")) == transaction_id


class Sim16(ChargePoint16):  # type: ignore[misc]
    def __init__(self, cp_id: str, wire: Wire, answers: Answers) -> None:
        super().__init__(cp_id, wire, response_timeout=WAIT)
        self.answers = answers
        self.transaction_id: str | None = None  # the one it runs; a new connection forgets it

    @on("SetChargingProfile")
    async def on_set_profile(self, cs_charging_profiles: dict[str, Any], **_: Any) -> Any:
        await self.answers.pause("SetChargingProfile")
        status = self.answers.call("SetChargingProfile")
        if not runs(cs_charging_profiles, self.transaction_id):
            status = "Rejected"
        return result16.SetChargingProfile(status=status)

    @on("ClearChargingProfile")
    def on_clear_profile(self, **_: Any) -> Any:
        return result16.ClearChargingProfile(status="Accepted")

    @on("RemoteStartTransaction")
    def on_remote_start(self, **_: Any) -> Any:
        return result16.RemoteStartTransaction(status=self.answers.of("RemoteStartTransaction"))

    @on("RemoteStopTransaction")
    def on_remote_stop(self, **_: Any) -> Any:
        return result16.RemoteStopTransaction(status=self.answers.of("RemoteStopTransaction"))

    @on("ChangeConfiguration")
    def on_change_configuration(self, **_: Any) -> Any:
        return result16.ChangeConfiguration(status=self.answers.of("ChangeConfiguration"))

    @on("GetConfiguration")
    def on_get_configuration(self, key: list[str] | None = None) -> Any:
        keys = [
            {"key": k, "readonly": ro, "value": v}
            for k, (v, ro) in self.answers.config.items()
            if key is None or k in key
        ]
        return result16.GetConfiguration(configuration_key=keys)

    async def boot(self) -> None:
        await self.call(
            call16.BootNotification(charge_point_vendor="Sim", charge_point_model="S16")
        )

    async def status(self, status: str, connector_id: int = 1) -> None:
        await self.call(
            call16.StatusNotification(
                connector_id=connector_id, error_code="NoError", status=status
            )
        )

    async def meter(self, *sampled: dict[str, Any], transaction_id: int | None = None) -> None:
        await self.call(
            call16.MeterValues(
                connector_id=1,
                transaction_id=transaction_id,
                meter_value=[{"timestamp": now_text(), "sampledValue": list(sampled)}],
            )
        )

    async def start_tx(self, meter_start: int) -> int:
        answer = await self.call(
            call16.StartTransaction(
                connector_id=1, id_tag="TAG", meter_start=meter_start, timestamp=now_text()
            )
        )
        self.transaction_id = str(answer.transaction_id)
        return int(answer.transaction_id)

    async def stop_tx(self, transaction_id: int, meter_stop: int, reason: str | None) -> None:
        self.transaction_id = None
        await self.call(
            call16.StopTransaction(
                meter_stop=meter_stop,
                timestamp=now_text(),
                transaction_id=transaction_id,
                reason=reason,
            )
        )


class Sim201(ChargePoint201):  # type: ignore[misc]
    def __init__(self, cp_id: str, wire: Wire, answers: Answers) -> None:
        super().__init__(cp_id, wire, response_timeout=WAIT)
        self.answers = answers
        self.variables: dict[tuple[str, str], str] = {
            ("SmartChargingCtrlr", "Enabled"): "true",
            ("SmartChargingCtrlr", "RateUnit"): "A,W",
            ("SampledDataCtrlr", "TxUpdatedMeasurands"): "Energy.Active.Import.Register",
            ("OCPPCommCtrlr", "UnlockOnEVSideDisconnect"): "true",
        }
        self.seq = 0
        self.transaction_id: str | None = None  # the one it runs; a new connection forgets it

    @on("SetChargingProfile")
    async def on_set_profile(self, charging_profile: dict[str, Any], **_: Any) -> Any:
        await self.answers.pause("SetChargingProfile")
        status = self.answers.call("SetChargingProfile")
        if not runs(charging_profile, self.transaction_id):
            status = "Rejected"
        return result201.SetChargingProfile(status=status)

    @on("ClearChargingProfile")
    def on_clear_profile(self, **_: Any) -> Any:
        return result201.ClearChargingProfile(status="Accepted")

    @on("RequestStartTransaction")
    def on_request_start(self, **_: Any) -> Any:
        return result201.RequestStartTransaction(status=self.answers.of("RequestStartTransaction"))

    @on("RequestStopTransaction")
    def on_request_stop(self, **_: Any) -> Any:
        return result201.RequestStopTransaction(status=self.answers.of("RequestStopTransaction"))

    @on("SetVariables")
    def on_set_variables(self, set_variable_data: list[dict[str, Any]]) -> Any:
        return result201.SetVariables(
            set_variable_result=[
                {
                    "attributeStatus": self.answers.of("SetVariables"),
                    "component": d["component"],
                    "variable": d["variable"],
                }
                for d in set_variable_data
            ]
        )

    @on("GetVariables")
    def on_get_variables(self, get_variable_data: list[dict[str, Any]]) -> Any:
        results = []
        for d in get_variable_data:
            value = self.variables.get((d["component"]["name"], d["variable"]["name"]))
            result: dict[str, Any] = {
                "attributeStatus": "Accepted" if value is not None else "UnknownVariable",
                "component": d["component"],
                "variable": d["variable"],
            }
            if value is not None:
                result["attributeValue"] = value
            results.append(result)
        return result201.GetVariables(get_variable_result=results)

    @on("GetChargingProfiles")
    def on_get_charging_profiles(self, charging_profile: dict[str, Any], **_: Any) -> Any:
        held = self._max_profile_asked(charging_profile)
        return result201.GetChargingProfiles(status="Accepted" if held else "NoProfiles")

    @after("GetChargingProfiles")
    async def report_charging_profiles(
        self, request_id: int, charging_profile: dict[str, Any], **_: Any
    ) -> None:
        if self._max_profile_asked(charging_profile):
            await self.call(
                call201.ReportChargingProfiles(
                    request_id=request_id,
                    charging_limit_source="CSO",
                    evse_id=0,
                    charging_profile=[self.answers.max_profile],
                )
            )

    def _max_profile_asked(self, criterion: dict[str, Any]) -> bool:
        purpose = criterion.get("charging_profile_purpose")
        return self.answers.max_profile is not None and purpose == "ChargingStationMaxProfile"

    async def boot(self) -> None:
        await self.call(
            call201.BootNotification(
                charging_station={"model": "S201", "vendor_name": "Sim"}, reason="PowerUp"
            )
        )

    async def status(self, status: str, evse_id: int = 1) -> None:
        await self.call(
            call201.StatusNotification(
                timestamp=now_text(), connector_status=status, evse_id=evse_id, connector_id=1
            )
        )

    async def meter(self, *sampled: dict[str, Any]) -> None:
        await self.call(
            call201.MeterValues(
                evse_id=1, meter_value=[{"timestamp": now_text(), "sampledValue": list(sampled)}]
            )
        )

    async def tx_event(
        self,
        event_type: str,
        tx_id: str,
        *,
        register_wh: float | None = None,
        charging_state: str | None = None,
        stopped_reason: str | None = None,
        trigger: str = "Authorized",
    ) -> None:
        self.seq += 1
        self.transaction_id = None if event_type == "Ended" else tx_id
        info: dict[str, Any] = {"transactionId": tx_id}
        if charging_state is not None:
            info["chargingState"] = charging_state
        if stopped_reason is not None:
            info["stoppedReason"] = stopped_reason
        meter = None
        if register_wh is not None:
            meter = [
                {
                    "timestamp": now_text(),
                    "sampledValue": [
                        {"value": register_wh, "measurand": "Energy.Active.Import.Register"}
                    ],
                }
            ]
        await self.call(
            call201.TransactionEvent(
                event_type=event_type,
                timestamp=now_text(),
                trigger_reason=trigger,
                seq_no=self.seq,
                transaction_info=info,
                meter_value=meter,
                evse={"id": 1, "connectorId": 1},
            )
        )


@dataclass
class Charger:
    """A simulated charger connected to the service."""

    sim: Any
    wire: Wire
    task: asyncio.Task[None]
    protocol: str

    async def close(self) -> None:
        await self.wire.ws.close()
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.task


@contextlib.asynccontextmanager
async def charger(
    service: Service,
    cp_id: str,
    protocol: str = "ocpp1.6",
    *,
    password: str = PASSWORD,
    answers: Answers | None = None,
    boot: bool = True,
    variables: dict[tuple[str, str], str] | None = None,
) -> AsyncIterator[Charger]:
    """A connected simulated charger, booted, whose declaration the service has read."""
    opened = await connect_charger(service, cp_id, protocol, password=password, answers=answers)
    if variables is not None:
        opened.sim.variables = variables
    try:
        if boot:
            await opened.sim.boot()
            async with asyncio.timeout(WAIT):
                await service.container.ocpp.wait_ready(cp_id)
            await service.container.ocpp.flush()  # the declared capabilities are stored
        yield opened
    finally:
        await opened.close()


async def connect_charger(
    service: Service,
    cp_id: str,
    protocol: str = "ocpp1.6",
    *,
    password: str = PASSWORD,
    answers: Answers | None = None,
) -> Charger:
    ws = await connect(
        f"{service.ws_base}/{cp_id}",
        subprotocols=[protocol],  # type: ignore[list-item]
        additional_headers=basic(cp_id, password),
        open_timeout=WAIT,
    )
    assert ws.subprotocol == protocol
    wire = Wire(ws)
    kind = Sim16 if protocol == "ocpp1.6" else Sim201
    sim = kind(cp_id, wire, answers or Answers())
    task = asyncio.create_task(_serve(sim))
    return Charger(sim, wire, task, protocol)


async def _serve(sim: Any) -> None:
    with contextlib.suppress(Exception):
        await sim.start()


def profile_limit(payload: dict[str, Any], protocol: str) -> tuple[str, str, float]:
    """(purpose, unit, limit) of a SetChargingProfile frame."""
    if protocol == "ocpp1.6":
        profile = payload["csChargingProfiles"]
        schedule = profile["chargingSchedule"]
    else:
        profile = payload["chargingProfile"]
        schedule = profile["chargingSchedule"][0]
    period = schedule["chargingSchedulePeriod"][0]
    return profile["chargingProfilePurpose"], schedule["chargingRateUnit"], period["limit"]


def sampled16(value: float, measurand: str, unit: str, phase: str | None = None) -> dict[str, Any]:
    body = {"value": str(value), "measurand": measurand, "unit": unit}
    if phase is not None:
        body["phase"] = phase
    return body


def sampled201(value: float, measurand: str, unit: str, phase: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"value": value, "measurand": measurand, "unitOfMeasure": {"unit": unit}}
    if phase is not None:
        body["phase"] = phase
    return body


async def start_tx(cp: Charger, register_wh: int, tx_id: str = "TX-1") -> str:
    """Starts a transaction the way each version does: 1.6 StartTransaction (the id is
    ours), 2.0.1 TransactionEvent `Started` with `tx_id`; returns the transaction id."""
    if cp.protocol == "ocpp1.6":
        return str(await cp.sim.start_tx(register_wh))
    await cp.sim.tx_event("Started", tx_id, register_wh=register_wh, charging_state="Charging")
    return tx_id


async def meter_register(cp: Charger, wh: float, *extra: tuple[float, str, str]) -> None:
    """MeterValues with the energy register and any (value, measurand, unit) `extra`."""
    make = sampled16 if cp.protocol == "ocpp1.6" else sampled201
    values = [make(wh, "Energy.Active.Import.Register", "Wh")]
    values += [make(v, m, u) for v, m, u in extra]
    await cp.sim.meter(*values)


async def sessions(service: Service, caller: Caller, device_id: str) -> list[dict[str, Any]]:
    """The charger's sessions as the API lists them, after the central system's writes."""
    await service.container.ocpp.flush()
    response = await service.client.get(f"/ev-charger/{device_id}/sessions", headers=caller.headers)
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["data"]["items"]
    return items
