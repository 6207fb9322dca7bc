"""The one registry of driver names: what a device's `driver` column holds, and what
bootstrap maps to a driver and a connector. A name here is the whole key; no module spells
them out again."""

from __future__ import annotations

from enum import StrEnum


class DriverName(StrEnum):
    SANDBOX = "sandbox"  # the simulator; its calls never leave the process
    OCPP = "ocpp"  # live chargers over OCPP-J websockets
    SUNSPEC = "sunspec"  # live batteries over SunSpec Modbus TCP


LIVE_DRIVERS = (DriverName.OCPP, DriverName.SUNSPEC)
"""The drivers that talk to hardware (polled, called outside transactions)."""
