"""OCPP 1.6J: the handlers of what a charge point sends, and the calls the service makes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ocpp.v16 import ChargePoint, call, call_result  # type: ignore[import-untyped]

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
    "max": "ChargePointMaxProfile",
    "strategy": "TxDefaultProfile",
    "strategy_tx": "TxProfile",
}
DISCOVERY_KEYS = [
    "SupportedFeatureProfiles",
    "ChargingScheduleAllowedChargingRateUnit",
    "ChargingScheduleMaxPeriods",
    "MeterValuesSampledData",
    "UnlockConnectorOnEVSideDisconnect",
]
ACCEPTED = {"status": "Accepted"}


class V16Link(LinkCalls, ChargePoint):  # type: ignore[misc]
    protocol = mapping.OCPP16

    # --- charge point -> central system ----------------------------------------------------
    @on("BootNotification")
    async def on_boot(self, charge_point_vendor: str, charge_point_model: str, **extra: Any) -> Any:
        self.station.on_boot(charge_point_vendor, charge_point_model, extra.get("firmware_version"))
        await self.station.restarted(None)
        return call_result.BootNotification(
            current_time=self.now_text(), interval=self._heartbeat_s, status="Accepted"
        )

    @after("BootNotification")
    async def after_boot(self, **_: Any) -> None:
        await self.discover_and_declare()

    async def discover_and_declare(self) -> None:
        try:
            discovery = await self.discover()
        except DriverError:
            discovery = Discovery(Declaration())
        await reconcile.booted(self.station, self, discovery)

    @on("Heartbeat")
    def on_heartbeat(self) -> Any:
        self.station.heartbeat()
        return call_result.Heartbeat(current_time=self.now_text())

    @on("StatusNotification")
    def on_status(self, connector_id: int, error_code: str, status: str, **_: Any) -> Any:
        if self._our_connector(connector_id):
            self.station.on_status(status, error_code)
        return call_result.StatusNotification()

    @on("MeterValues")
    def on_meter_values(
        self, connector_id: int, meter_value: list[dict[str, Any]], **_: Any
    ) -> Any:
        if self._our_connector(connector_id):
            self.station.on_meter_values(meter_value)
        return call_result.MeterValues()

    @on("StartTransaction")
    async def on_start_transaction(
        self, connector_id: int, id_tag: str, meter_start: int, timestamp: str, **_: Any
    ) -> Any:
        tx = await self.station.start_transaction(
            connector_id, _instant(timestamp, self.clock), float(meter_start)
        )
        return call_result.StartTransaction(
            transaction_id=int(tx.transaction_id), id_tag_info=ACCEPTED
        )

    @on("StopTransaction")
    async def on_stop_transaction(
        self,
        meter_stop: int,
        timestamp: str,
        transaction_id: int,
        reason: str | None = None,
        **_: Any,
    ) -> Any:
        await self.station.stop_transaction(
            str(transaction_id), float(meter_stop), _instant(timestamp, self.clock), reason
        )
        return call_result.StopTransaction(id_tag_info=ACCEPTED)

    @on("Authorize")
    def on_authorize(self, id_tag: str) -> Any:
        return call_result.Authorize(id_tag_info=ACCEPTED)

    @on("DataTransfer")
    def on_data_transfer(self, vendor_id: str, **_: Any) -> Any:
        return call_result.DataTransfer(status="UnknownVendorId")

    @on("FirmwareStatusNotification")
    def on_firmware_status(self, **_: Any) -> Any:
        return call_result.FirmwareStatusNotification()

    @on("DiagnosticsStatusNotification")
    def on_diagnostics_status(self, **_: Any) -> Any:
        return call_result.DiagnosticsStatusNotification()

    @on("SecurityEventNotification")
    def on_security_event(self, **_: Any) -> Any:
        return call_result.SecurityEventNotification()

    def _our_connector(self, connector_id: int) -> bool:
        tx = self.station.record.transaction
        return connector_id == (tx.connector_id if tx is not None else DEFAULT_CONNECTOR)

    # --- central system -> charge point ----------------------------------------------------
    async def set_limit(self, limit: Limit, purpose: str, transaction_id: str | None) -> None:
        profile = self._profile(limit, purpose, transaction_id)
        connector = 0 if purpose == "max" else DEFAULT_CONNECTOR
        answer = await self.request(
            call.SetChargingProfile(connector_id=connector, cs_charging_profiles=profile)
        )
        require_accepted(answer.status, "SetChargingProfile")

    async def set_schedule(
        self, schedule: ProfileSchedule, purpose: str, transaction_id: str | None
    ) -> None:
        profile: dict[str, Any] = {
            "chargingProfileId": PROFILE_IDS[purpose],
            "stackLevel": STRATEGY_STACK_LEVEL,
            "chargingProfilePurpose": PURPOSES[purpose],
            "chargingProfileKind": "Absolute",
            "chargingSchedule": schedule.schedule_body(iso(schedule.start)),
        }
        if transaction_id is not None:
            profile["transactionId"] = int(transaction_id)
        answer = await self.request(
            call.SetChargingProfile(connector_id=DEFAULT_CONNECTOR, cs_charging_profiles=profile)
        )
        require_accepted(answer.status, "SetChargingProfile")

    async def clear_limit(self, purpose: str) -> None:
        # `Unknown`: no such profile, which is what was asked for
        await self.request(call.ClearChargingProfile(id=PROFILE_IDS[purpose]))

    async def remote_start(self, limit: Limit | None, connector_id: int) -> None:
        profile = None if limit is None else self._profile(limit, "tx", None, relative=True)
        answer = await self.request(
            call.RemoteStartTransaction(
                id_tag=self._id_tag, connector_id=connector_id, charging_profile=profile
            )
        )
        require_accepted(answer.status, "RemoteStartTransaction")

    async def remote_stop(self, transaction_id: str) -> None:
        answer = await self.request(call.RemoteStopTransaction(transaction_id=int(transaction_id)))
        require_accepted(answer.status, "RemoteStopTransaction")

    async def write_config(self, write: ConfigWrite) -> None:
        answer = await self.request(call.ChangeConfiguration(key=write.key_16, value=write.value))
        status = str(getattr(answer.status, "value", answer.status))
        require_accepted(
            "Accepted" if status == "RebootRequired" else status, "ChangeConfiguration"
        )

    async def discover(self) -> Discovery:
        """The declaration and the settings from GetConfiguration; 1.6 cannot tell whether
        the maximum profile is there."""
        answer = await self.request(call.GetConfiguration(key=DISCOVERY_KEYS))
        values: dict[str, str] = {}
        writable: set[str] = set()
        for entry in answer.configuration_key or []:
            key = str(entry.get("key"))
            if entry.get("value") is not None:
                values[key] = str(entry["value"])
            if not entry.get("readonly", False):
                writable.add(key)
        declaration = mapping.declaration_from_config(
            values, protocol=self.protocol, writable=frozenset(writable)
        )
        return Discovery(declaration, mapping.reported_settings(values, declaration))

    def _profile(
        self, limit: Limit, purpose: str, transaction_id: str | None, *, relative: bool = False
    ) -> dict[str, Any]:
        schedule: dict[str, Any] = {
            "chargingRateUnit": limit.unit,
            "chargingSchedulePeriod": [{"startPeriod": 0, "limit": limit.value}],
        }
        profile: dict[str, Any] = {
            "chargingProfileId": PROFILE_IDS[purpose],
            "stackLevel": 0,
            "chargingProfilePurpose": PURPOSES[purpose],
            "chargingProfileKind": "Relative" if relative else "Absolute",
            "chargingSchedule": schedule,
        }
        if not relative:
            schedule["startSchedule"] = self.now_text()
        if transaction_id is not None:
            profile["transactionId"] = int(transaction_id)
        return profile


def _instant(text: str, clock: Clock) -> datetime:
    try:
        return ensure_utc(datetime.fromisoformat(text.replace("Z", "+00:00")))
    except ValueError:
        return clock.now()
