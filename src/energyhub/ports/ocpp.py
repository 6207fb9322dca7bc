"""What the OCPP central system keeps about each charge point, and the store it needs
(`persistence/ocpp.py` implements it): the open transaction, the last telemetry, so a
restart or a reconnect loses no session; and what commissioning a charger needs from the
OCPP driver (`drivers/ocpp/commissioning.py`) and from storage."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from energyhub.domain.capabilities import Capabilities
from energyhub.domain.clock import ensure_utc, isoformat_utc
from energyhub.domain.devices import Device
from energyhub.domain.sessions import ChargingSession


@dataclass(frozen=True, slots=True)
class OpenTransaction:
    """A transaction the charger started and has not stopped; `session_id` is the charging
    session it is stored as. Energy is the difference of the meter register readings.
    `last_heard_at`: the last time the charger spoke while it could still be running it
    (when it was lost, if it turns out to be)."""

    transaction_id: str
    session_id: str
    connector_id: int
    started_at: datetime
    meter_start_wh: float | None
    meter_last_wh: float | None = None
    last_heard_at: datetime | None = None

    @property
    def lost_at(self) -> datetime:
        return self.last_heard_at or self.started_at

    def energy_kwh(self, register_wh: float | None = None) -> float:
        last = register_wh if register_wh is not None else self.meter_last_wh
        if self.meter_start_wh is None or last is None:
            return 0.0
        return max(0.0, (last - self.meter_start_wh) / 1000)

    def to_json(self) -> dict[str, Any]:
        return {
            "transactionId": self.transaction_id,
            "sessionId": self.session_id,
            "connectorId": self.connector_id,
            "startedAt": isoformat_utc(self.started_at),
            "meterStartWh": self.meter_start_wh,
            "meterLastWh": self.meter_last_wh,
            "lastHeardAt": self.last_heard_at and isoformat_utc(self.last_heard_at),
        }

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> OpenTransaction:
        return cls(
            transaction_id=str(body["transactionId"]),
            session_id=str(body["sessionId"]),
            connector_id=int(body["connectorId"]),
            started_at=ensure_utc(datetime.fromisoformat(body["startedAt"].replace("Z", "+00:00"))),
            meter_start_wh=body.get("meterStartWh"),
            meter_last_wh=body.get("meterLastWh"),
            last_heard_at=_instant_or_none(body.get("lastHeardAt")),
        )


def _instant_or_none(text: str | None) -> datetime | None:
    return None if text is None else ensure_utc(datetime.fromisoformat(text.replace("Z", "+00:00")))


@dataclass(slots=True)
class ChargePointRecord:
    """One commissioned charge point. `snapshot`: what the charger last reported (connector
    status, charging state, telemetry, declaration, boot info); `control`: the stop
    conditions the service enforces for the running `charge` (energy, target)."""

    charge_point_id: str
    device_id: str
    password_hash: str
    protocol: str | None = None
    last_seen_at: datetime | None = None
    next_transaction_id: int = 1
    transaction: OpenTransaction | None = None
    snapshot: dict[str, Any] = field(default_factory=dict)
    control: dict[str, Any] = field(default_factory=dict)


class ChargePointStore(Protocol):
    """Persistence of charge points and of the sessions their transactions become."""

    async def by_charge_point_id(self, charge_point_id: str) -> ChargePointRecord | None: ...

    async def device(self, device_id: str) -> Device | None: ...

    async def replace_password_hash(self, charge_point_id: str, stored: str, new: str) -> None:
        """The same password's hash in a new form, unless it changed since it was read."""
        ...

    async def save(
        self,
        records: Sequence[ChargePointRecord],
        device_changes: Sequence[tuple[str, dict[str, Any]]],
        sessions: Sequence[ChargingSession],
        now: datetime,
    ) -> None:
        """Records, device rows and sessions, in one transaction."""
        ...

    async def merge_settings(
        self, device_id: str, values: Mapping[str, Any], now: datetime
    ) -> dict[str, Any]:
        """The device's settings with `values` written over them, in one transaction, and
        returned (no `values`: only read). A device whose link was revoked is not written."""
        ...


class ChargePointRepository(Protocol):
    """Charge points inside a unit of work: commissioning stores one beside its device and
    its `device.connected`, in one transaction."""

    async def get(self, charge_point_id: str) -> ChargePointRecord | None: ...

    async def add(self, record: ChargePointRecord, now: datetime) -> None: ...


class ChargerCommissioner(Protocol):
    """What a charger is before it first connects: the capabilities every OCPP charger has
    and the state of one that is offline (the OCPP driver knows both)."""

    def capabilities(self) -> Capabilities: ...

    def offline_state(self) -> dict[str, Any]: ...


class PasswordHasher(Protocol):
    """The handshake passwords' salted hashes (OCPP security profile 1)."""

    def hash_password(self, password: str) -> str: ...

    def verify_password(self, password: str, stored: str) -> bool: ...
