"""SunSpec Modbus TCP batteries: discovery, register maps, mapping tables, the driver."""

from energyhub.drivers.sunspec.driver import DEFAULT_REVERSION_S, SunspecDriver

__all__ = ["DEFAULT_REVERSION_S", "SunspecDriver"]
