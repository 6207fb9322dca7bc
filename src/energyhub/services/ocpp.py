"""Commissioning a live charger (CONTRACT 8: `energyhub devices add-ocpp`): a live device
with its charge point id and handshake password; the charger then connects to
`/ocpp/{chargePointId}` and says what it can do."""

from __future__ import annotations

import re

from energyhub.domain.accounts import Environment
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import DEFAULT_TIMEZONE, Clock
from energyhub.domain.devices import Device
from energyhub.domain.driver_names import DriverName
from energyhub.domain.events import device_event
from energyhub.domain.webhooks import EventType
from energyhub.drivers.ocpp import mapping
from energyhub.drivers.ocpp.auth import MAX_PASSWORD, MIN_PASSWORD, hash_password
from energyhub.ports.ocpp import ChargePointRecord, ChargePointStore
from energyhub.services.ids import new_id
from energyhub.services.outbox import Outbox

CHARGE_POINT_ID = re.compile(r"[A-Za-z0-9._\-]{1,48}")


class InvalidCommissioning(ValueError):
    """A charge point id or password the handshake could never accept."""


class OcppCommissioning:
    def __init__(self, store: ChargePointStore, clock: Clock, outbox: Outbox) -> None:
        self._store = store
        self._clock = clock
        self._outbox = outbox

    async def add(
        self,
        account_id: str,
        user_id: str,
        charge_point_id: str,
        password: str,
        *,
        email: str | None = None,
        timezone: str = DEFAULT_TIMEZONE,
    ) -> Device:
        """The live charger device (offline until it connects) and its charge point, with
        `device.connected`. Raises InvalidCommissioning, ChargePointExists, LookupError."""
        if not CHARGE_POINT_ID.fullmatch(charge_point_id):
            raise InvalidCommissioning(
                "The charge point id must be 1-48 characters of A-Z, a-z, 0-9, '.', '_', '-'."
            )
        if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD or not password.isprintable():
            raise InvalidCommissioning(
                f"The password must be {MIN_PASSWORD}-{MAX_PASSWORD} printable characters "
                "(OCPP security profile 1)."
            )
        now = self._clock.now()
        capabilities = mapping.capabilities_for(mapping.Declaration())
        device = Device(
            id=new_id(),
            account_id=account_id,
            environment=Environment.LIVE,
            user_id=user_id,
            type=DeviceType.EV_CHARGER,
            vendor="ocpp",
            model=charge_point_id,
            driver=DriverName.OCPP,
            profile=None,
            timezone=timezone,
            capabilities=capabilities,
            settings=capabilities.default_settings(),
            state=mapping.state_body(mapping.OFFLINE, {}, None, None),
            sim=None,
            available=False,
            last_pulled_at=now,
            last_action=None,
            current_schedule=None,
            vehicle_id=None,
            created_at=now,
            updated_at=now,
        )
        record = ChargePointRecord(
            charge_point_id=charge_point_id,
            device_id=device.id,
            password_hash=hash_password(password),
        )
        payload = device_event(
            EventType.DEVICE_CONNECTED,
            device_id=device.id,
            device_type=device.type,
            user_id=user_id,
            vendor=device.vendor,
            linked_account_id=None,
            occurred_at=now,
        )
        event = self._outbox.event(
            account_id, Environment.LIVE.value, EventType.DEVICE_CONNECTED, payload
        )
        await self._store.commission(device, record, [event], email)
        self._outbox.announce([event])
        return device
