from enum import StrEnum


class ListUserDevicesTypeType0Item(StrEnum):
    BATTERY = "battery"
    EV_CHARGER = "ev-charger"
    HVAC = "hvac"
    SOLAR_INVERTER = "solar-inverter"
    VEHICLE = "vehicle"

    def __str__(self) -> str:
        return str(self.value)
