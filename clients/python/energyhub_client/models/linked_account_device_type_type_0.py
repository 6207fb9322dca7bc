from enum import StrEnum


class LinkedAccountDeviceTypeType0(StrEnum):
    BATTERY = "battery"
    EV_CHARGER = "ev-charger"

    def __str__(self) -> str:
        return str(self.value)
