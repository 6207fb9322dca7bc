"""OCPP 2.0.1: the handlers of what a charging station sends, and the calls the service
makes. Transactions arrive as TransactionEvent (Started / Updated / Ended)."""

from __future__ import annotations

import asyncio
import itertools
import time
from datetime import datetime
from typing import Any

from ocpp.v201 import ChargePoint, call, call_result  # type: ignore[import-untyped]

from energyhub.domain.clock import Clock, ensure_utc
from energyhub.domain.readings import DriverError
from energyhub.drivers.ocpp import mapping, reconcile
from energyhub.drivers.ocpp.link import (
    LinkCalls,
    after,
    iso,
    on,
    require_accepted,
)
from energyhub.drivers.ocpp.mapping import ConfigWrite, Declaration, Discovery, Limit
from energyhub.drivers.ocpp.profiles import STRATEGY_STACK_LEVEL, ProfileSchedule
from energyhub.drivers.ocpp.station import DEFAULT_CONNECTOR

PROFILE_IDS = {"default": 1001, "tx": 1002, "max": 1003, "strategy": 1004, "strategy_tx": 1005}
PURPOSES = {
    "default": "TxDefaultProfile",
    "tx": "TxProfile",
    "max": "ChargingStationMaxProfile",
    "strategy": "TxDefaultProfile",
    "strategy_tx": "TxProfile",
}
# (component, variable) -> the 1.6 key name `mapping.declaration_from_config` reads
DISCOVERY_VARIABLES = {
    ("SmartChargingCtrlr", "Enabled"): "SmartChargingEnabled",
    ("SmartChargingCtrlr", "RateUnit"): "ChargingScheduleAllowedChargingRateUnit",
    ("SmartChargingCtrlr", "PeriodsPerSchedule"): "ChargingScheduleMaxPeriods",
    ("SampledDataCtrlr", "TxUpdatedMeasurands"): "MeterValuesSampledData",
    ("OCPPCommCtrlr", "UnlockOnEVSideDisconnect"): "UnlockConnectorOnEVSideDisconnect",
}
ACCEPTED = {"status": "Accepted"}
_request_ids = itertools.count(  # remoteStartId, GetChargingProfiles requestId
    int(time.time()) % 1_000_000_000
)


class V201Link(LinkCalls, ChargePoint):  # type: ignore[misc]
    protocol = mapping.OCPP201

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # GetChargingProfiles request id -> the profiles reported so far, and "all came"
        self._reports: dict[int, tuple[list[dict[str, Any]], asyncio.Event]] = {}

    # --- charging station -> CSMS ------------------------------------------------------------
    @on("BootNotification")
    async def on_boot(self, charging_station: dict[str, Any], reason: str, **_: Any) -> Any:
        self.station.on_boot(
            str(charging_station.get("vendor_name", "")),
            str(charging_station.get("model", "")),
            charging_station.get("firmware_version"),
        )
        await self.station.restarted(reason)
        return call_result.BootNotification(
            current_time=self.now_text(), interval=self._heartbeat_s, status="Accepted"
        )

    @after("BootNotification")
    async def after_boot(self, **_: Any) -> None:
        try:
            discovery = await self.discover()
        except DriverError:
            discovery = Discovery(Declaration())
        await reconcile.booted(self.station, self, discovery)

    @on("ReportChargingProfiles")
    def on_report_charging_profiles(
        self, request_id: int, charging_profile: list[dict[str, Any]], tbc: bool = False, **_: Any
    ) -> Any:
        if request_id in self._reports:
            received, done = self._reports[request_id]
            received.extend(charging_profile)
            if not tbc:
                done.set()
        return call_result.ReportChargingProfiles()

    @on("Heartbeat")
    def on_heartbeat(self, **_: Any) -> Any:
        self.station.heartbeat()
        return call_result.Heartbeat(current_time=self.now_text())

    @on("StatusNotification")
    def on_status(
        self, timestamp: str, connector_status: str, evse_id: int, connector_id: int, **_: Any
    ) -> Any:
        if self._our_evse(evse_id):
            self.station.on_status(connector_status)
        return call_result.StatusNotification()

    @on("MeterValues")
    def on_meter_values(self, evse_id: int, meter_value: list[dict[str, Any]], **_: Any) -> Any:
        if self._our_evse(evse_id):
            self.station.on_meter_values(meter_value)
        return call_result.MeterValues()

    @on("TransactionEvent")
    async def on_transaction_event(
        self,
        event_type: str,
        timestamp: str,
        trigger_reason: str,
        seq_no: int,
        transaction_info: dict[str, Any],
        meter_value: list[dict[str, Any]] | None = None,
        evse: dict[str, Any] | None = None,
        id_token: dict[str, Any] | None = None,
        **_: Any,
    ) -> Any:
        station = self.station
        tx_id = str(transaction_info["transaction_id"])
        at = _instant(timestamp, self.clock)
        evse_id = int((evse or {}).get("id", DEFAULT_CONNECTOR))
        open_tx = station.record.transaction
        known = open_tx is not None and open_tx.transaction_id == tx_id
        if not known and event_type != "Ended":
            await station.start_transaction(evse_id, at, mapping.register_wh(meter_value), tx_id)
        if meter_value and event_type != "Ended":
            station.on_meter_values(meter_value)
        if event_type == "Ended":
            if known:
                await station.stop_transaction(
                    tx_id,
                    mapping.register_wh(meter_value),
                    at,
                    transaction_info.get("stopped_reason"),
                )
            station.record.snapshot.pop("chargingState", None)
            station.on_charging_state(None)
        else:
            station.on_charging_state(transaction_info.get("charging_state"))
        return call_result.TransactionEvent(id_token_info=ACCEPTED if id_token else None)

    @on("Authorize")
    def on_authorize(self, id_token: dict[str, Any], **_: Any) -> Any:
        return call_result.Authorize(id_token_info=ACCEPTED)

    @on("NotifyEvent")
    def on_notify_event(self, **_: Any) -> Any:
        return call_result.NotifyEvent()

    @on("NotifyReport")
    def on_notify_report(self, **_: Any) -> Any:
        return call_result.NotifyReport()

    @on("NotifyChargingLimit")
    def on_notify_charging_limit(self, **_: Any) -> Any:
        return call_result.NotifyChargingLimit()

    @on("SecurityEventNotification")
    def on_security_event(self, **_: Any) -> Any:
        return call_result.SecurityEventNotification()

    @on("FirmwareStatusNotification")
    def on_firmware_status(self, **_: Any) -> Any:
        return call_result.FirmwareStatusNotification()

    @on("LogStatusNotification")
    def on_log_status(self, **_: Any) -> Any:
        return call_result.LogStatusNotification()

    @on("DataTransfer")
    def on_data_transfer(self, vendor_id: str, **_: Any) -> Any:
        return call_result.DataTransfer(status="UnknownVendorId")

    def _our_evse(self, evse_id: int) -> bool:
        tx = self.station.record.transaction
        return evse_id == (tx.connector_id if tx is not None else DEFAULT_CONNECTOR)

    # --- CSMS -> charging station ----------------------------------------------------------
    async def set_limit(self, limit: Limit, purpose: str, transaction_id: str | None) -> None:
        evse = 0 if purpose == "max" else DEFAULT_CONNECTOR
        answer = await self.request(
            call.SetChargingProfile(
                evse_id=evse, charging_profile=self._profile(limit, purpose, transaction_id)
            )
        )
        require_accepted(answer.status, "SetChargingProfile")

    async def set_schedule(
        self, schedule: ProfileSchedule, purpose: str, transaction_id: str | None
    ) -> None:
        body = {"id": PROFILE_IDS[purpose], **schedule.schedule_body(iso(schedule.start))}
        profile: dict[str, Any] = {
            "id": PROFILE_IDS[purpose],
            "stackLevel": STRATEGY_STACK_LEVEL,
            "chargingProfilePurpose": PURPOSES[purpose],
            "chargingProfileKind": "Absolute",
            "chargingSchedule": [body],
        }
        if transaction_id is not None:
            profile["transactionId"] = transaction_id
        answer = await self.request(
            call.SetChargingProfile(evse_id=DEFAULT_CONNECTOR, charging_profile=profile)
        )
        require_accepted(answer.status, "SetChargingProfile")

    async def clear_limit(self, purpose: str) -> None:
        # `Unknown`: no such profile, which is what was asked for
        await self.request(call.ClearChargingProfile(charging_profile_id=PROFILE_IDS[purpose]))

    async def remote_start(self, limit: Limit | None, connector_id: int) -> None:
        profile = None if limit is None else self._profile(limit, "tx", None, relative=True)
        answer = await self.request(
            call.RequestStartTransaction(
                id_token={"idToken": self._id_tag, "type": "Central"},
                remote_start_id=next(_request_ids),
                evse_id=connector_id,
                charging_profile=profile,
            )
        )
        require_accepted(answer.status, "RequestStartTransaction")

    async def remote_stop(self, transaction_id: str) -> None:
        answer = await self.request(call.RequestStopTransaction(transaction_id=transaction_id))
        require_accepted(answer.status, "RequestStopTransaction")

    async def write_config(self, write: ConfigWrite) -> None:
        answer = await self.request(
            call.SetVariables(
                set_variable_data=[
                    {
                        "attributeValue": write.value,
                        "component": {"name": write.component_201},
                        "variable": {"name": write.variable_201},
                    }
                ]
            )
        )
        results = answer.set_variable_result or [{}]
        status = str(results[0].get("attribute_status"))
        require_accepted("Accepted" if status == "RebootRequired" else status, "SetVariables")

    async def discover(self) -> Discovery:
        """The declaration and the settings from GetVariables, and the maximum profile from
        GetChargingProfiles."""
        answer = await self.request(
            call.GetVariables(
                get_variable_data=[
                    {"component": {"name": c}, "variable": {"name": v}}
                    for c, v in DISCOVERY_VARIABLES
                ]
            )
        )
        values: dict[str, str] = {}
        writable: set[str] = set()
        for result in answer.get_variable_result or []:
            name = DISCOVERY_VARIABLES.get(
                (result["component"]["name"], result["variable"]["name"])
            )
            if name is None or result.get("attribute_status") != "Accepted":
                continue
            if result.get("attribute_value") is not None:
                values[name] = str(result["attribute_value"])
            writable.add(name)
        declaration = mapping.declaration_from_config(
            values, protocol=self.protocol, writable=frozenset(writable)
        )
        settings = mapping.reported_settings(values, declaration)
        if not declaration.smart_charging:
            return Discovery(declaration, settings)
        held, limit = await self._max_profile()
        if limit is not None:
            settings.update(mapping.ceiling_settings(limit))
        return Discovery(declaration, settings, held)

    async def _max_profile(self) -> tuple[bool | None, Limit | None]:
        """Whether the station holds a ChargingStationMaxProfile, and its limit (None, None:
        it cannot say)."""
        request_id = next(_request_ids)
        received: list[dict[str, Any]] = []
        done = asyncio.Event()
        self._reports[request_id] = (received, done)
        try:
            answer = await self.request(
                call.GetChargingProfiles(
                    request_id=request_id,
                    evse_id=0,
                    charging_profile={"chargingProfilePurpose": PURPOSES["max"]},
                )
            )
            status = str(getattr(answer.status, "value", answer.status))
            if status == "NoProfiles":
                return False, None
            async with asyncio.timeout(self._response_timeout):
                await done.wait()
            schedule = received[0]["charging_schedule"][0]
            period = schedule["charging_schedule_period"][0]
            return True, Limit(float(period["limit"]), str(schedule["charging_rate_unit"]))
        except (DriverError, TimeoutError, LookupError, TypeError, ValueError):
            return None, None
        finally:
            self._reports.pop(request_id, None)

    def _profile(
        self, limit: Limit, purpose: str, transaction_id: str | None, *, relative: bool = False
    ) -> dict[str, Any]:
        schedule: dict[str, Any] = {
            "id": PROFILE_IDS[purpose],
            "chargingRateUnit": limit.unit,
            "chargingSchedulePeriod": [{"startPeriod": 0, "limit": limit.value}],
        }
        if not relative:
            schedule["startSchedule"] = self.now_text()
        profile: dict[str, Any] = {
            "id": PROFILE_IDS[purpose],
            "stackLevel": 0,
            "chargingProfilePurpose": PURPOSES[purpose],
            "chargingProfileKind": "Relative" if relative else "Absolute",
            "chargingSchedule": [schedule],
        }
        if transaction_id is not None:
            profile["transactionId"] = transaction_id
        return profile


def _instant(text: str, clock: Clock) -> datetime:
    try:
        return ensure_utc(datetime.fromisoformat(text.replace("Z", "+00:00")))
    except ValueError:
        return clock.now()
