"""SunSpec Modbus TCP batteries: discovery, register maps, mapping tables, the driver."""

from energyhub.drivers.sunspec.driver import DEFAULT_REVERSION_S, SunspecDriver
from energyhub.services.sunspec import SUNSPEC_DRIVER

__all__ = ["DEFAULT_REVERSION_S", "SUNSPEC_DRIVER", "SunspecDriver"]
