from enum import StrEnum


class EvChargerStateStatus(StrEnum):
    AVAILABLE = "available"
    CHARGING = "charging"
    DISCHARGING = "discharging"
    ERROR = "error"
    OFFLINE = "offline"
    SCHEDULED = "scheduled"

    def __str__(self) -> str:
        return str(self.value)
