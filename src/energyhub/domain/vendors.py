"""The vendors an end user can link in the Link UI (spec 1.6), as data: who they are, which
environment and driver serve them, what their sign-in form asks and how each field is
checked, and what a vendor answers (a sign-in, a refusal, the devices it holds). Pure: the
simulated vendors' accounts are in `drivers/sandbox/vendors.py`, the live ones' checks in
`services/live_vendors.py`."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from energyhub.domain.accounts import Environment
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.driver_names import DriverName


# --- vendors ---------------------------------------------------------------------------------
class FieldKind(StrEnum):
    EMAIL = "email"
    PASSWORD = "password"
    TEXT = "text"
    HOST = "host"
    INTEGER = "integer"


@dataclass(frozen=True, slots=True)
class CredentialField:
    """One input of a vendor's sign-in form."""

    name: str
    label: str
    kind: FieldKind
    autocomplete: str = "off"
    hint: str | None = None
    min_length: int = 1
    max_length: int = 200
    pattern: str | None = None  # TEXT: the whole value must match
    pattern_message: str | None = None
    minimum: int | None = None  # INTEGER
    maximum: int | None = None
    default: str | None = None

    @property
    def secret(self) -> bool:
        """Never echoed back into a page, never shown in a linked account."""
        return self.kind is FieldKind.PASSWORD

    @property
    def input_type(self) -> str:
        return {
            FieldKind.EMAIL: "email",
            FieldKind.PASSWORD: "password",
            FieldKind.INTEGER: "text",  # with inputmode=numeric: no spinner, no locale parsing
        }.get(self.kind, "text")


@dataclass(frozen=True, slots=True)
class Vendor:
    """A manufacturer (or an open protocol) a user can link devices of. `driver` names the
    connector that signs in and the driver that then talks to the devices; a vendor whose
    connector is not installed is shown as coming soon."""

    id: str
    name: str
    device_type: DeviceType
    environment: Environment
    driver: str
    fields: tuple[CredentialField, ...]
    mfa: bool = False
    sign_in_help: str = ""
    sign_in_label: str = "Sign in"  # the sign-in form's button


EMAIL = CredentialField("email", "E-mail address", FieldKind.EMAIL, autocomplete="username")
PASSWORD = CredentialField(
    "password", "Password", FieldKind.PASSWORD, autocomplete="current-password", max_length=128
)

VENDORS: tuple[Vendor, ...] = (
    Vendor(
        "sandbox-volta",
        "Volta Energy",
        DeviceType.BATTERY,
        Environment.SANDBOX,
        DriverName.SANDBOX,
        (EMAIL, PASSWORD),
        sign_in_help="Sign in with the e-mail address and password of your Volta app.",
    ),
    Vendor(
        "sandbox-ampere",
        "Ampere Charging",
        DeviceType.EV_CHARGER,
        Environment.SANDBOX,
        DriverName.SANDBOX,
        (EMAIL, PASSWORD),
        sign_in_help="Sign in with the e-mail address and password of your Ampere account.",
    ),
    Vendor(
        "sandbox-nimbus",
        "Nimbus Power",
        DeviceType.BATTERY,
        Environment.SANDBOX,
        DriverName.SANDBOX,
        (EMAIL, PASSWORD),
        mfa=True,
        sign_in_help="Sign in with your Nimbus account. Nimbus then sends you a 6-digit code.",
    ),
    Vendor(
        "ocpp",
        "OCPP charger",
        DeviceType.EV_CHARGER,
        Environment.LIVE,
        DriverName.OCPP,
        (
            CredentialField(
                "charge_point_id",
                "Charge point ID",
                FieldKind.TEXT,
                hint="The identity your charger connects with, as set in its OCPP settings "
                "(letters, digits, '.', '_' or '-').",
                max_length=48,
                pattern=r"[A-Za-z0-9._\-]+",
                pattern_message="Use only letters, digits, '.', '_' or '-'.",
            ),
            CredentialField(
                "password",
                "Charger password",
                FieldKind.PASSWORD,
                autocomplete="new-password",
                hint="The password the charger sends with HTTP Basic auth (16 to 40 characters).",
                min_length=16,
                max_length=40,
            ),
        ),
        sign_in_help="Enter the identity and password your charger connects to this service "
        "with (its OCPP settings, security profile 1).",
    ),
    Vendor(
        "sunspec",
        "SunSpec battery",
        DeviceType.BATTERY,
        Environment.LIVE,
        DriverName.SUNSPEC,
        (
            CredentialField(
                "host",
                "Host name or IP address",
                FieldKind.HOST,
                hint="Where the battery's Modbus TCP interface answers, e.g. 192.168.1.40.",
                max_length=253,
            ),
            CredentialField(
                "port", "Port", FieldKind.INTEGER, minimum=1, maximum=65535, default="502"
            ),
            CredentialField(
                "unit_id",
                "Modbus unit ID",
                FieldKind.INTEGER,
                hint="Usually 1.",
                minimum=0,
                maximum=255,
                default="1",
            ),
        ),
        sign_in_help="Enter where this service reaches the battery over SunSpec Modbus TCP.",
        sign_in_label="Find the battery",
    ),
)
VENDORS_BY_ID: dict[str, Vendor] = {v.id: v for v in VENDORS}


def vendors_for(environment: Environment, device_type: DeviceType | None = None) -> list[Vendor]:
    """The vendors offered in an environment (sandbox keys link simulated vendors only)."""
    return [
        v
        for v in VENDORS
        if v.environment is environment and (device_type is None or v.device_type is device_type)
    ]


def vendor_in(environment: Environment, vendor_id: str) -> Vendor | None:
    found = VENDORS_BY_ID.get(vendor_id)
    return found if found is not None and found.environment is environment else None


# --- credentials -----------------------------------------------------------------------------
EMAIL_PATTERN = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
HOST_PATTERN = re.compile(
    r"^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)"
    r"(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$"
)


def check_field(spec: CredentialField, raw: str) -> tuple[str | int | None, str | None]:
    """The field's value, or the message to show next to it."""
    value = raw if spec.secret else raw.strip()
    label = spec.label[0].lower() + spec.label[1:]
    if not value:
        return None, f"Enter your {label}."
    if len(value) < spec.min_length:
        return None, f"The {label} must be at least {spec.min_length} characters."
    if len(value) > spec.max_length:
        return None, f"The {label} must be at most {spec.max_length} characters."
    if spec.kind is FieldKind.EMAIL and not EMAIL_PATTERN.match(value):
        return None, "Enter an e-mail address like name@example.com."
    if spec.kind is FieldKind.HOST and not _is_host(value):
        return None, "Enter a host name like battery.local or an IP address like 192.168.1.40."
    if spec.kind is FieldKind.TEXT and spec.pattern and not re.fullmatch(spec.pattern, value):
        return None, spec.pattern_message or f"The {label} has characters it may not contain."
    if spec.kind is FieldKind.INTEGER:
        low = spec.minimum if spec.minimum is not None else 0
        high = spec.maximum if spec.maximum is not None else 2**31
        if not value.isdigit() or not low <= int(value) <= high:
            return None, f"Enter a whole number from {low} to {high}."
        return int(value), None
    return value, None


def _is_host(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return bool(HOST_PATTERN.match(value))
    return True


def check_credentials(
    vendor: Vendor, form: Mapping[str, str]
) -> tuple[dict[str, str | int], dict[str, str]]:
    """Every field of the vendor's form checked: (values, errors by field name)."""
    values: dict[str, str | int] = {}
    errors: dict[str, str] = {}
    for spec in vendor.fields:
        value, error = check_field(spec, form.get(spec.name, ""))
        if error is not None:
            errors[spec.name] = error
        elif value is not None:
            values[spec.name] = value
    return values, errors


def public_values(vendor: Vendor, values: Mapping[str, Any]) -> dict[str, str]:
    """What may be put back into a form or shown: every field but the secrets."""
    return {
        spec.name: str(values[spec.name])
        for spec in vendor.fields
        if not spec.secret and spec.name in values
    }


def mask_email(address: str) -> str:
    """`u***@nimbus.test`: enough for a user to recognise where the code went."""
    local, _, domain = address.partition("@")
    return f"{local[:1]}***@{domain}" if domain else "***"


# --- what vendors answer ---------------------------------------------------------------------
class RefusalCode(StrEnum):
    INVALID_CREDENTIALS = "invalid_credentials"
    ACCOUNT_LOCKED = "account_locked"
    VENDOR_UNAVAILABLE = "vendor_unavailable"
    DEVICE_UNREACHABLE = "device_unreachable"


class VendorRefusal(Exception):
    """The vendor did not let the user in; `message` is written for the end user."""

    def __init__(self, code: RefusalCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class SignIn:
    """A sign-in the vendor accepted: `identity` names the user's account there;
    `mfa_destination` is where the vendor sent a code, when it asks for one."""

    identity: str
    mfa_destination: str | None = None


@dataclass(frozen=True, slots=True)
class OfferedDevice:
    """A device the vendor account holds, as the user picks it. `vendor_device_id` is the
    vendor's identity of the device: linking it again for the same user reconnects it."""

    vendor_device_id: str
    name: str
    model: str
    device_type: DeviceType
    profile: str | None = None  # sandbox devices: the simulator profile
    timezone: str = "Europe/Berlin"

    def to_json(self) -> dict[str, Any]:
        return {
            "vendorDeviceId": self.vendor_device_id,
            "name": self.name,
            "model": self.model,
            "deviceType": self.device_type.value,
            "profile": self.profile,
            "timezone": self.timezone,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> OfferedDevice:
        return cls(
            data["vendorDeviceId"],
            data["name"],
            data["model"],
            DeviceType(data["deviceType"]),
            data.get("profile"),
            data.get("timezone") or "Europe/Berlin",
        )
