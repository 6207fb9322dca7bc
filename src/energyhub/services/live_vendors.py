"""The Link UI's live vendors: chargers that speak OCPP and batteries that speak SunSpec
Modbus. Signing in checks what the user entered against the charger's record or the
battery's answer; linking commissions the device through `services/commissioning.py`, as
`energyhub devices add-*` does (which sends its `device.connected`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from energyhub.domain.capabilities import DeviceType
from energyhub.domain.commissioning import CHARGE_POINT_ID
from energyhub.domain.readings import DriverError
from energyhub.domain.vendors import OfferedDevice, RefusalCode, SignIn, Vendor, VendorRefusal
from energyhub.domain.webhooks import EventType
from energyhub.ports.devices import DeviceOwner, NewDevice
from energyhub.ports.ocpp import ChargePointStore, PasswordHasher
from energyhub.ports.sunspec import SunspecProbe
from energyhub.services.commissioning import AlreadyCommissioned, Commissioning, CommissioningError

IN_USE = (
    "This charge point ID is connected to another account already. Check the ID, or remove "
    "the charger from the other account first."
)
WRONG = "The charge point ID or password is not correct. Check them in the charger's settings."


class OcppVendorConnector:
    def __init__(
        self, commissioning: Commissioning, store: ChargePointStore, passwords: PasswordHasher
    ) -> None:
        self._commissioning = commissioning
        self._store = store
        self._passwords = passwords

    async def sign_in(self, vendor: Vendor, credentials: Mapping[str, Any]) -> SignIn:
        charge_point_id = str(credentials["charge_point_id"])
        if not CHARGE_POINT_ID.fullmatch(charge_point_id):
            raise VendorRefusal(RefusalCode.INVALID_CREDENTIALS, WRONG)
        record = await self._store.by_charge_point_id(charge_point_id)
        if record is not None and not self._passwords.verify_password(
            str(credentials["password"]), record.password_hash
        ):
            raise VendorRefusal(RefusalCode.INVALID_CREDENTIALS, WRONG)
        return SignIn(charge_point_id)

    async def code_matches(self, vendor: Vendor, credentials: Mapping[str, Any], code: str) -> bool:
        return False  # no OCPP vendor asks for a code

    async def devices(
        self, vendor: Vendor, credentials: Mapping[str, Any]
    ) -> Sequence[OfferedDevice]:
        charge_point_id = str(credentials["charge_point_id"])
        return [
            OfferedDevice(
                charge_point_id, f"Charger {charge_point_id}", "OCPP charger", DeviceType.EV_CHARGER
            )
        ]

    async def new_device(
        self,
        vendor: Vendor,
        offered: OfferedDevice,
        credentials: Mapping[str, Any],
        owner: DeviceOwner,
    ) -> NewDevice:
        charge_point_id = str(credentials["charge_point_id"])
        record = await self._store.by_charge_point_id(charge_point_id)
        if record is not None:  # commissioned by an operator before: link that device
            device = await self._store.device(record.device_id)
            if device is None or (device.account_id, device.user_id) != (
                owner.account_id,
                owner.user_id,
            ):
                raise VendorRefusal(RefusalCode.INVALID_CREDENTIALS, IN_USE)
            return NewDevice(device, stored=True, event=EventType.DEVICE_RECONNECTED)
        try:
            device = await self._commissioning.add_ocpp(
                owner.account_id,
                owner.user_id,
                charge_point_id,
                str(credentials["password"]),
                timezone=offered.timezone,
                announce=False,
            )
        except CommissioningError as refused:
            message = IN_USE if isinstance(refused, AlreadyCommissioned) else str(refused)
            raise VendorRefusal(RefusalCode.INVALID_CREDENTIALS, message) from None
        # the link sends device.connected, with its linked account
        return NewDevice(device, stored=True, event=EventType.DEVICE_CONNECTED)


class SunspecVendorConnector:
    def __init__(self, commissioning: Commissioning, probe: SunspecProbe) -> None:
        self._commissioning = commissioning
        self._probe = probe

    @staticmethod
    def _address(credentials: Mapping[str, Any]) -> tuple[str, int, int]:
        return str(credentials["host"]), int(credentials["port"]), int(credentials["unit_id"])

    async def sign_in(self, vendor: Vendor, credentials: Mapping[str, Any]) -> SignIn:
        host, port, unit_id = self._address(credentials)
        await self._discover(host, port, unit_id)
        return SignIn(f"{host}:{port}/{unit_id}")

    async def _discover(self, host: str, port: int, unit_id: int) -> tuple[str, str]:
        try:
            found = await self._probe.discover(host, port, unit_id)
        except DriverError:
            raise VendorRefusal(
                RefusalCode.DEVICE_UNREACHABLE,
                f"No SunSpec battery answers at {host}:{port} (unit {unit_id}). Check the "
                "address, and that Modbus TCP is switched on in the battery's settings.",
            ) from None
        return found.manufacturer or "SunSpec", found.model or "SunSpec battery"

    async def code_matches(self, vendor: Vendor, credentials: Mapping[str, Any], code: str) -> bool:
        return False

    async def devices(
        self, vendor: Vendor, credentials: Mapping[str, Any]
    ) -> Sequence[OfferedDevice]:
        host, port, unit_id = self._address(credentials)
        manufacturer, model = await self._discover(host, port, unit_id)
        return [
            OfferedDevice(
                f"{host}:{port}/{unit_id}",
                f"{manufacturer} battery at {host}",
                model,
                DeviceType.BATTERY,
            )
        ]

    async def new_device(
        self,
        vendor: Vendor,
        offered: OfferedDevice,
        credentials: Mapping[str, Any],
        owner: DeviceOwner,
    ) -> NewDevice:
        host, port, unit_id = self._address(credentials)
        try:
            done = await self._commissioning.add_sunspec(
                owner.account_id,
                owner.user_id,
                host,
                port,
                unit_id,
                timezone=offered.timezone,
                announce=False,
            )
        except CommissioningError as refused:
            raise VendorRefusal(RefusalCode.INVALID_CREDENTIALS, str(refused)) from None
        except DriverError:
            raise VendorRefusal(
                RefusalCode.DEVICE_UNREACHABLE,
                f"The battery at {host}:{port} stopped answering. Try again in a minute.",
            ) from None
        if done.created:  # the link sends device.connected, with its linked account
            return NewDevice(done.device, stored=True, event=EventType.DEVICE_CONNECTED)
        return NewDevice(done.device, stored=True, event=EventType.DEVICE_RECONNECTED)
