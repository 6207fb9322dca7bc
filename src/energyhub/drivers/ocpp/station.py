"""One charge point as the central system knows it, whatever OCPP version it speaks: what it
reported, its open transaction, the stop conditions of the running `charge`, and the link
it is connected by (none while offline). The v16/v201 handlers translate messages into
calls on a `Station`; the driver sends commands through it."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from energyhub.domain.clock import Clock
from energyhub.domain.errors import DeviceOffline, DeviceRejected
from energyhub.domain.goals import STRATEGIES
from energyhub.domain.readings import DriverError
from energyhub.domain.sessions import EndReason
from energyhub.drivers.ocpp import mapping
from energyhub.drivers.ocpp.mapping import Declaration, Limit
from energyhub.drivers.ocpp.meters import Reading
from energyhub.drivers.ocpp.small_event import SmallEvent
from energyhub.drivers.ocpp.station_events import CallNotSupported as CallNotSupported
from energyhub.drivers.ocpp.station_events import ChargerLink, StationEvents
from energyhub.drivers.ocpp.strategy_profiles import StrategyProfiles
from energyhub.drivers.ocpp.transactions import IDLE_STATUSES, Transactions
from energyhub.ports.ocpp import ChargePointRecord, OpenTransaction

log = logging.getLogger(__name__)

DEFAULT_CONNECTOR = 1
CEILINGS_SET = "ceilingsSet"  # snapshot key: the rate settings the service has written
# Connector statuses (both versions) in which no energy flows: session telemetry goes.
NO_POWER_STATUSES = frozenset({"Available", "Faulted", "Unavailable"})


class Station(Transactions, StrategyProfiles):
    def __init__(
        self,
        record: ChargePointRecord,
        clock: Clock,
        events: StationEvents[Station],
        *,
        id_tag: str,
    ) -> None:
        self.record = record
        self.link: ChargerLink | None = None
        self.ready = SmallEvent()  # set once the charger's declaration is known
        self.device_meta: dict[str, Any] = {}  # vendor, model, capabilities to store
        self._clock = clock
        self._events = events
        self._id_tag = id_tag
        self._stopping = False
        self.resumed_on: ChargerLink | None = None  # the link the mode was asserted on
        self._idle_since: datetime | None = None  # the connector reads an IDLE_STATUSES one

    # --- identity and liveness -------------------------------------------------------------
    @property
    def online(self) -> bool:
        return self.link is not None

    @property
    def declaration(self) -> Declaration:
        return Declaration.from_json(self.record.snapshot.get("declaration"))

    def attach(self, link: ChargerLink) -> None:
        self.link = link
        self.record.protocol = link.protocol
        if "declaration" in self.record.snapshot:  # known from before: no boot needed
            self.ready.set()
        else:
            self.ready.clear()
        self.seen()

    def detach(self, link: ChargerLink) -> bool:
        """The link ended; False when a newer link had replaced it already."""
        if self.resumed_on is link:  # an ended connection is not kept until the next one
            self.resumed_on = None
        if self.link is not link:
            return False
        self.link = None
        self._idle_since = None
        self._events.changed(self)
        return True

    def seen(self) -> None:
        self.record.last_seen_at = self._clock.now()

    def now(self) -> datetime:
        return self._clock.now()

    def heartbeat(self) -> None:
        """Only `last_seen_at` changes: the record is written, the device row is not."""
        self._heard()
        self._events.changed(self, device=False)

    # --- what the charger reports ------------------------------------------------------------
    def on_boot(self, vendor: str, model: str, firmware: str | None) -> None:
        """Ready again once what it declares and reports is read (`reconcile.booted`)."""
        self.record.snapshot["boot"] = {"vendor": vendor, "model": model, "firmware": firmware}
        self.device_meta.update(vendor=vendor, model=model)
        self.ready.clear()
        self._events.changed(self)

    def declared(self, declaration: Declaration) -> None:
        refused = self.record.snapshot.get("smartChargingRefused")
        firmware = (self.record.snapshot.get("boot") or {}).get("firmware")
        if refused is not None and refused.get("firmware") == firmware:
            declaration = replace(declaration, smart_charging=False)
        self.record.snapshot["declaration"] = declaration.to_json()
        self.device_meta["capabilities"] = mapping.capabilities_for(declaration)
        self.ready.set()
        self._events.changed(self)

    def on_status(self, connector_status: str, error_code: str | None = None) -> None:
        snapshot = self.record.snapshot
        snapshot["connectorStatus"] = connector_status
        if error_code is not None:
            snapshot["errorCode"] = error_code
        if connector_status == "Available":
            snapshot.pop("chargingState", None)
        if connector_status in NO_POWER_STATUSES:
            self._end_session_telemetry()
        if connector_status not in IDLE_STATUSES:
            self._idle_since = None
            self._heard()
        elif self._idle_since is None:
            self._idle_since = self._clock.now()
        self._events.changed(self)

    def on_charging_state(self, charging_state: str | None) -> None:
        if charging_state is not None:
            self.record.snapshot["chargingState"] = charging_state
            self._heard()
            self._events.changed(self)

    def on_meter_values(self, meter_value: Sequence[Mapping[str, Any]]) -> None:
        telemetry = mapping.parse_meter_values(meter_value)
        kept = self.record.snapshot.setdefault("telemetry", {})
        kept.update(telemetry.to_json())
        register = telemetry.values.get(Reading.REGISTER_WH)
        tx = self.record.transaction
        if tx is not None and register is not None:
            if tx.meter_start_wh is None:  # 2.0.1 without a reading at `Started`
                tx = replace(tx, meter_start_wh=register)
            self.record.transaction = replace(tx, meter_last_wh=register)
        self._heard()
        self._events.changed(self)
        self._enforce_stop_conditions()

    # --- the state body ------------------------------------------------------------------------
    def state(self, active_mode: str | None) -> dict[str, Any]:
        if not self.online:
            return mapping.state_body(mapping.OFFLINE, {}, None, active_mode)
        snapshot = self.record.snapshot
        row = mapping.status_row(
            self.protocol, snapshot.get("connectorStatus"), snapshot.get("chargingState")
        )
        return mapping.state_body(
            row, snapshot.get("telemetry", {}), self.session_energy_kwh(), active_mode
        )

    def vehicle_soc(self) -> float | None:
        value = self.record.snapshot.get("telemetry", {}).get(Reading.SOC.value)
        return None if value is None else float(value)

    # --- commands ------------------------------------------------------------------------------
    def _link(self) -> ChargerLink:
        if self.link is None:
            raise DriverError(DeviceOffline.code, "The charger is not connected.", retryable=True)
        return self.link

    async def command(
        self, command: str, parameters: Mapping[str, float], settings: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Sends a command: the limit as the default profile (it holds for later sessions
        too), then for the running transaction, or a remote start when none runs."""
        link = self._link()
        plan = mapping.plan_command(command, parameters, settings, self.declaration)
        strategy = command in STRATEGIES
        if not strategy:
            await self._clear_strategy(link)
        tx = self.record.transaction
        sent: list[str] = []
        try:
            if plan.limit is not None:
                try:
                    await link.set_limit(plan.limit, "default", None)
                except CallNotSupported as refused:
                    plan = self._plan_without_smart_charging(command, parameters, settings, refused)
                else:
                    sent.append("defaultProfile")
            lost: OpenTransaction | None = None
            if plan.limit is not None and tx is not None:
                lost = await self._tx_profile(link, plan.limit, plan.start, tx, sent)
            if plan.start and (tx is None or lost is not None):
                await link.remote_start(plan.limit, DEFAULT_CONNECTOR)
                sent.append("remoteStart")
                if lost is not None and self.record.transaction is lost:
                    await self.close_lost(EndReason.UNKNOWN)
            elif strategy and tx is None and self._plugged():
                # paused by the 0 limit until the strategy's schedule raises it
                await link.remote_start(None, DEFAULT_CONNECTOR)
                sent.append("remoteStart")
        except DriverError:
            if "defaultProfile" in sent:  # a failed command leaves the charger as it was
                await self._restore_default(link, settings)
            raise
        control: dict[str, Any] = {"command": command, "parameters": dict(parameters)}
        if plan.stop_at_kwh is not None:
            control["stopAtKwh"] = plan.stop_at_kwh
        if plan.target_soc is not None:
            control["targetSoc"] = plan.target_soc
        self.record.control = control
        self._stopping = False
        self._events.changed(self)
        self._enforce_stop_conditions()
        result: dict[str, Any] = {"ocpp": sent}
        if plan.limit is not None and not strategy:
            # in the API's units (lower case), not OCPP's `W` / `A`
            result["limit"] = {"value": plan.limit.value, "unit": plan.limit.unit.lower()}
        return result

    async def _tx_profile(
        self, link: ChargerLink, limit: Limit, start: bool, tx: OpenTransaction, sent: list[str]
    ) -> OpenTransaction | None:
        """The limit for the running transaction. A `charge` (`start`) whose TxProfile the
        charger refuses (it runs no such transaction: it lost it without telling) gets the
        lost transaction back: a remote start follows, and closes it once accepted."""
        try:
            await link.set_limit(limit, "tx", tx.transaction_id)
        except DriverError as error:
            refused = error.code == DeviceRejected.code and not isinstance(error, CallNotSupported)
            if start and refused:
                return tx
            raise
        sent.append("txProfile")
        return None

    async def _restore_default(self, link: ChargerLink, settings: Mapping[str, Any]) -> None:
        """The default profile of the last command that went through (none: ours goes)."""
        control = self.record.control
        limit: Limit | None = None
        if control.get("command") is not None:
            with contextlib.suppress(KeyError):
                previous = mapping.plan_command(
                    control["command"], control.get("parameters", {}), settings, self.declaration
                )
                limit = previous.limit
        try:
            if limit is None:
                await link.clear_limit("default")
            else:
                await link.set_limit(limit, "default", None)
        except DriverError as error:
            log.warning(
                "%s: restoring the default profile: %s", self.record.charge_point_id, error.message
            )

    def _plugged(self) -> bool:
        snapshot = self.record.snapshot
        row = mapping.status_row(
            self.protocol, snapshot.get("connectorStatus"), snapshot.get("chargingState")
        )
        return row.is_connected

    async def write_settings(self, values: Mapping[str, float | bool]) -> None:
        link = self._link()
        for key, value in values.items():
            if key == "cable_lock":
                await link.write_config(mapping.cable_lock_write(bool(value)))
                continue
            try:
                await link.set_limit(mapping.setting_limit(key, float(value)), "max", None)
            except CallNotSupported:
                self.no_smart_charging()
                raise
            ceilings = self.record.snapshot.setdefault(CEILINGS_SET, [])
            if key not in ceilings:  # restored should the charger lose it (`reconcile`)
                ceilings.append(key)
                self._events.changed(self, device=False)

    # --- a charger that turns out to have no smart charging ---------------------------------
    def _plan_without_smart_charging(
        self,
        command: str,
        parameters: Mapping[str, float],
        settings: Mapping[str, Any],
        refused: CallNotSupported,
    ) -> mapping.CommandPlan:
        """The charger does not implement charging profiles, whatever it declared: it is
        declared again without them, and the command goes on without a limit if it can."""
        self.no_smart_charging()
        plan = mapping.plan_command(command, parameters, settings, self.declaration)
        if plan.limit is not None:  # `idle`, or a `power` / `current` asked for
            raise DriverError(
                refused.code,
                "The charger does not support charging limits: push `charge` without "
                "`power` or `current`.",
                retryable=False,
                details=refused.details,
            )
        return plan

    async def reconcile_settings(self, reported: Mapping[str, float | bool]) -> dict[str, Any]:
        """The stored settings, once what the charger reports is written over them."""
        return await self._events.settings(self, reported)

    def no_smart_charging(self) -> None:
        """Declared without smart charging from now on, until its firmware changes."""
        log.warning("%s: no smart charging; declared without it", self.record.charge_point_id)
        firmware = (self.record.snapshot.get("boot") or {}).get("firmware")
        self.record.snapshot["smartChargingRefused"] = {"firmware": firmware}
        self.declared(self.declaration)

    def _enforce_stop_conditions(self) -> None:
        """`energy` and `target` are the service's to enforce: past either, the running
        transaction is stopped (once), outside the receive loop."""
        tx = self.record.transaction
        control = self.record.control
        if tx is None or self.link is None or self._stopping:
            return
        energy_reached = "stopAtKwh" in control and tx.energy_kwh() >= float(control["stopAtKwh"])
        soc = self.vehicle_soc()
        target_reached = "targetSoc" in control and soc is not None and soc >= control["targetSoc"]
        if not (energy_reached or target_reached):
            return
        self._stopping = True
        link = self.link
        self._events.spawn(self._stop(link, tx.transaction_id), "ocpp-stop-condition")

    async def _stop(self, link: ChargerLink, transaction_id: str) -> None:
        try:
            await link.remote_stop(transaction_id)
        except DriverError as error:
            self._stopping = False
            log.warning("%s: stop condition: %s", self.record.charge_point_id, error.message)
