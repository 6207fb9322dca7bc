from enum import StrEnum


class ScheduleRecordDevicetype(StrEnum):
    BATTERY = "battery"
    EV_CHARGER = "ev_charger"

    def __str__(self) -> str:
        return str(self.value)
