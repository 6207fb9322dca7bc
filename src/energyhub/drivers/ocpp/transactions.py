"""A charge point's transactions as charging sessions, mixed into `Station`: started and
stopped as the charger reports them, and closed when it lost one without saying so (a
restart, a connector that shows no transaction for a while)."""

from __future__ import annotations

import logging
import uuid
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from energyhub.domain.clock import Clock
from energyhub.domain.sessions import (
    ChargingSession,
    EndReason,
    Measurement,
    SessionStatus,
    session_id_from,
)
from energyhub.drivers.ocpp import mapping
from energyhub.drivers.ocpp.meters import without_session
from energyhub.ports.ocpp import ChargePointRecord, OpenTransaction

if TYPE_CHECKING:
    from energyhub.drivers.ocpp.station_events import ChargerLink, StationEvents

log = logging.getLogger(__name__)

# Connector statuses that say the charger runs no transaction (1.6 Preparing: plugged in,
# none started yet): an open one is lost once the connector has read so for a while.
IDLE_STATUSES = frozenset({"Available", "Preparing"})


class Transactions:
    """The open transaction of `record` and the session it is stored as."""

    record: ChargePointRecord
    link: ChargerLink | None
    _clock: Clock
    _events: StationEvents[Any]
    _stopping: bool
    _idle_since: datetime | None  # since when the connector reads an IDLE_STATUSES one

    @property
    def device_id(self) -> str:
        return self.record.device_id

    @property
    def protocol(self) -> str:
        return self.record.protocol or mapping.OCPP16

    @property
    def _station(self) -> Any:
        return self  # the `Station` this is mixed into, as its events expect

    def _heard(self) -> None:
        """The charger spoke while its connector could be running the open transaction."""
        tx = self.record.transaction
        if tx is not None and self.record.snapshot.get("connectorStatus") not in IDLE_STATUSES:
            self.record.transaction = replace(tx, last_heard_at=self._clock.now())

    def _end_session_telemetry(self) -> None:
        telemetry = self.record.snapshot.get("telemetry")
        if telemetry:
            self.record.snapshot["telemetry"] = without_session(telemetry)

    async def start_transaction(
        self,
        connector_id: int,
        started_at: datetime,
        meter_start_wh: float | None,
        transaction_id: str | None = None,
    ) -> OpenTransaction:
        """A new session, stored before the charger hears back (1.6 gets its id from us).
        A transaction still open from before is closed first (the charger lost it)."""
        record = self.record
        if record.transaction is not None and record.transaction.transaction_id != transaction_id:
            await self.close_lost(EndReason.UNKNOWN)
        if transaction_id is None:
            transaction_id = str(record.next_transaction_id)
            record.next_transaction_id += 1
        elif record.transaction is not None:
            return record.transaction  # a repeated `Started`
        tx = OpenTransaction(
            transaction_id=transaction_id,
            session_id=session_id_from(uuid.uuid4().hex),
            connector_id=connector_id,
            started_at=started_at,
            meter_start_wh=meter_start_wh,
            meter_last_wh=meter_start_wh,
        )
        record.transaction = tx
        record.snapshot["sessionEnergyKwh"] = 0.0
        self._stopping = False
        if self._idle_since is not None:  # 1.6 starts while `Preparing`: time it from now
            self._idle_since = self._clock.now()
        await self._events.persist(self._station, self.session_of(tx))
        return tx

    async def stop_transaction(
        self,
        transaction_id: str,
        meter_stop_wh: float | None,
        stopped_at: datetime,
        reason: str | None,
        *,
        end_reason: EndReason | None = None,
    ) -> ChargingSession | None:
        """The session completes with the energy between the register readings;
        `end_reason` overrides the one the charger's `reason` maps to."""
        tx = self.record.transaction
        if tx is None or tx.transaction_id != transaction_id:
            log.warning(
                "%s: stop of unknown transaction %s", self.record.charge_point_id, transaction_id
            )
            return None
        energy = tx.energy_kwh(meter_stop_wh)
        session = ChargingSession(
            id=tx.session_id,
            device_id=self.device_id,
            status=SessionStatus.COMPLETED,
            started_at=tx.started_at,
            ended_at=max(stopped_at, tx.started_at),
            energy_kwh=energy,
            measurement=Measurement.METERED,
            end_reason=end_reason or mapping.end_reason(self.protocol, reason),
        )
        self.record.transaction = None
        self.record.snapshot["sessionEnergyKwh"] = energy
        self._end_session_telemetry()
        for key in ("stopAtKwh", "targetSoc"):
            self.record.control.pop(key, None)
        self._stopping = False
        await self._events.persist(self._station, session)
        return session

    async def close_lost(self, end_reason: EndReason) -> ChargingSession | None:
        """The charger no longer runs the open transaction and will not say it ended: it
        ends when we last heard of it, with the energy of the last register reading."""
        tx = self.record.transaction
        if tx is None:
            return None
        log.info("%s: transaction %s lost", self.record.charge_point_id, tx.transaction_id)
        return await self.stop_transaction(
            tx.transaction_id, None, tx.lost_at, None, end_reason=end_reason
        )

    async def restarted(self, boot_reason: str | None) -> None:
        """A BootNotification: a charger that restarts mid-session has lost the session
        (`mapping.boot_end_reason`), and what it measured before is stale."""
        end_reason = mapping.boot_end_reason(self.protocol, boot_reason)
        if end_reason is None:
            return
        self.record.snapshot.pop("chargingState", None)
        self._end_session_telemetry()
        self._events.changed(self._station)
        await self.close_lost(end_reason)

    def lost_transaction(self, now: datetime, after: timedelta) -> bool:
        """Whether the open transaction is lost: the connector has read `Available` or
        `Preparing` (no transaction, to the charger) for `after`, connected all along."""
        idle = self.record.snapshot.get("connectorStatus") in IDLE_STATUSES
        if self.record.transaction is None or self.link is None or not idle:
            return False
        if self._idle_since is None:  # idle since before a reconnect or a restart
            self._idle_since = now
        return now - self._idle_since >= after

    def session_of(self, tx: OpenTransaction) -> ChargingSession:
        return ChargingSession(
            id=tx.session_id,
            device_id=self.device_id,
            status=SessionStatus.ACTIVE,
            started_at=tx.started_at,
            ended_at=None,
            energy_kwh=tx.energy_kwh(),
            measurement=Measurement.METERED,
        )

    def session_energy_kwh(self) -> float | None:
        tx = self.record.transaction
        if tx is not None:
            return tx.energy_kwh()
        value = self.record.snapshot.get("sessionEnergyKwh")
        return None if value is None else float(value)
