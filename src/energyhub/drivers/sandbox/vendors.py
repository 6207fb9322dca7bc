"""Simulated vendors for the Link UI's sandbox (README "Linking devices"): each has test
accounts with documented credentials, a 6-digit code where the vendor asks for one, and
accounts that fail as real vendors do. Data, not branches: a new test account is a row."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from energyhub.domain.capabilities import DeviceType
from energyhub.domain.sandbox_profiles import PROFILES, new_sandbox_device
from energyhub.domain.vendors import (
    OfferedDevice,
    RefusalCode,
    SignIn,
    Vendor,
    VendorRefusal,
    mask_email,
)
from energyhub.ports.devices import DeviceOwner, NewDevice

SANDBOX_MFA_CODE = "123456"


@dataclass(frozen=True, slots=True)
class SimulatedDevice:
    serial: str
    name: str
    profile: str
    model: str | None = None  # default: the profile's
    timezone: str = "Europe/Berlin"


@dataclass(frozen=True, slots=True)
class SimulatedAccount:
    """A login at a simulated vendor. `refusal` makes every sign-in fail that way."""

    vendor: str
    email: str
    password: str | None
    devices: tuple[SimulatedDevice, ...] = ()
    refusal: RefusalCode | None = None


ACCOUNTS: tuple[SimulatedAccount, ...] = (
    SimulatedAccount(
        "sandbox-volta",
        "user@volta.test",
        "volta-pass",
        (
            SimulatedDevice("VH-1001", "Garage battery", "battery"),
            SimulatedDevice("VL-2002", "Cellar battery", "battery-minimal"),
            SimulatedDevice("VS-3003", "Barn battery", "battery-auto-schedule"),
        ),
    ),
    SimulatedAccount("sandbox-volta", "locked@volta.test", None, (), RefusalCode.ACCOUNT_LOCKED),
    SimulatedAccount(
        "sandbox-ampere",
        "user@ampere.test",
        "ampere-pass",
        (
            SimulatedDevice("AW-4001", "Driveway charger", "ev-charger"),
            SimulatedDevice("AB-4002", "Carport charger", "ev-charger-basic"),
            SimulatedDevice("AX-4003", "Bidirectional charger", "ev-charger-bidirectional"),
        ),
    ),
    SimulatedAccount("sandbox-ampere", "empty@ampere.test", "ampere-pass"),
    SimulatedAccount(
        "sandbox-ampere", "outage@ampere.test", None, (), RefusalCode.VENDOR_UNAVAILABLE
    ),
    SimulatedAccount(
        "sandbox-nimbus",
        "user@nimbus.test",
        "nimbus-pass",
        (
            SimulatedDevice("NC-5001", "Home battery", "battery", "Nimbus Cell 10"),
            SimulatedDevice(
                "NS-5002", "Office battery", "battery-auto-schedule", "Nimbus Cell 10 Smart"
            ),
        ),
    ),
)
_BY_LOGIN: dict[tuple[str, str], SimulatedAccount] = {(a.vendor, a.email): a for a in ACCOUNTS}

REFUSALS: dict[RefusalCode, str] = {
    RefusalCode.INVALID_CREDENTIALS: "The e-mail address or password is not correct. "
    "Check them and try again.",
    RefusalCode.ACCOUNT_LOCKED: "{vendor} has locked this account after too many sign-in "
    "attempts. Reset your password with {vendor}, then try again.",
    RefusalCode.VENDOR_UNAVAILABLE: "{vendor} is not answering right now. "
    "Try again in a few minutes.",
}


def _refuse(code: RefusalCode, vendor: Vendor) -> VendorRefusal:
    return VendorRefusal(code, REFUSALS[code].format(vendor=vendor.name))


class SandboxVendorConnector:
    """The simulated vendors' side of linking; never leaves the process."""

    def _account(self, vendor: Vendor, credentials: Mapping[str, Any]) -> SimulatedAccount:
        email = str(credentials.get("email", "")).lower()
        account = _BY_LOGIN.get((vendor.id, email))
        if account is None:
            raise _refuse(RefusalCode.INVALID_CREDENTIALS, vendor)
        if account.refusal is not None:
            raise _refuse(account.refusal, vendor)
        if credentials.get("password") != account.password:
            raise _refuse(RefusalCode.INVALID_CREDENTIALS, vendor)
        return account

    async def sign_in(self, vendor: Vendor, credentials: Mapping[str, Any]) -> SignIn:
        account = self._account(vendor, credentials)
        return SignIn(account.email, mask_email(account.email) if vendor.mfa else None)

    async def code_matches(self, vendor: Vendor, credentials: Mapping[str, Any], code: str) -> bool:
        self._account(vendor, credentials)
        return code == SANDBOX_MFA_CODE

    async def devices(
        self, vendor: Vendor, credentials: Mapping[str, Any]
    ) -> Sequence[OfferedDevice]:
        account = self._account(vendor, credentials)
        return [_offered(d) for d in account.devices]

    async def new_device(
        self,
        vendor: Vendor,
        offered: OfferedDevice,
        credentials: Mapping[str, Any],
        owner: DeviceOwner,
    ) -> NewDevice:
        device = new_sandbox_device(
            PROFILES[offered.profile or ""],
            device_id=owner.device_id,
            account_id=owner.account_id,
            environment=owner.environment,
            user_id=owner.user_id,
            timezone=offered.timezone,
            now=owner.now,
            vendor=vendor.id,
            model=offered.model,
        )
        return NewDevice(device)


def _offered(device: SimulatedDevice) -> OfferedDevice:
    profile = PROFILES[device.profile]
    return OfferedDevice(
        vendor_device_id=device.serial,
        name=device.name,
        model=device.model or profile.model,
        device_type=DeviceType(profile.device_type),
        profile=profile.name,
        timezone=device.timezone,
    )
