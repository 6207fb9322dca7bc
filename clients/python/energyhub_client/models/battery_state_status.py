from enum import StrEnum


class BatteryStateStatus(StrEnum):
    CHARGING = "charging"
    DISCHARGING = "discharging"
    IDLE = "idle"

    def __str__(self) -> str:
        return str(self.value)
