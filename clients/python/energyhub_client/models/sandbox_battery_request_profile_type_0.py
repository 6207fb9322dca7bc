from enum import StrEnum


class SandboxBatteryRequestProfileType0(StrEnum):
    BATTERY = "battery"
    BATTERY_AUTO_SCHEDULE = "battery-auto-schedule"
    BATTERY_MINIMAL = "battery-minimal"

    def __str__(self) -> str:
        return str(self.value)
