"""What an operator or an end user may give when commissioning a live device (CONTRACT 8),
checked before anything is stored or any device is called. Every refusal is a
`CommissioningError` whose message says what to change."""

from __future__ import annotations

import re
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

CHARGE_POINT_ID = re.compile(r"[A-Za-z0-9._\-]{1,48}")
MIN_PASSWORD, MAX_PASSWORD = 16, 40  # OCPP 2.0.1 BasicAuthPassword; 1.6 keys fit too
DEFAULT_MODBUS_PORT = 502
DEFAULT_UNIT_ID = 1


class CommissioningError(ValueError):
    """The request cannot be carried out as given; the message says what to change."""


class AlreadyCommissioned(CommissioningError):
    """The charge point id or the Modbus address belongs to a device already."""


def check_charger(charge_point_id: str, password: str) -> None:
    """A charge point id and a password the OCPP handshake could accept."""
    if not CHARGE_POINT_ID.fullmatch(charge_point_id):
        raise CommissioningError(
            "The charge point id must be 1-48 characters of A-Z, a-z, 0-9, '.', '_', '-'."
        )
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD or not password.isprintable():
        raise CommissioningError(
            f"The password must be {MIN_PASSWORD}-{MAX_PASSWORD} printable characters "
            "(OCPP security profile 1)."
        )


def check_address(host: str, port: int, unit_id: int) -> None:
    """A Modbus TCP address worth calling."""
    if not host or any(c.isspace() for c in host):
        raise CommissioningError(f"invalid host {host!r}: give an IP address or a host name.")
    if not 1 <= port <= 65535:
        raise CommissioningError(f"invalid port {port}: use 1-65535 (Modbus TCP is 502).")
    if not 0 <= unit_id <= 255:
        raise CommissioningError(f"invalid unit id {unit_id}: use 0-255 (usually 1).")


def check_timezone(name: str) -> None:
    """The plant's timezone: an IANA name this machine knows."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise CommissioningError(
            f"unknown timezone {name!r}: use an IANA name such as Europe/Berlin."
        ) from None


def vendor_key(manufacturer: str) -> str:
    """The `vendor` of a SunSpec device: its manufacturer's name as a lower-case slug."""
    slug = re.sub(r"[^a-z0-9]+", "-", manufacturer.lower()).strip("-")
    return slug or "sunspec"
