from enum import StrEnum


class EvChargerStateNotChargingReasonType0(StrEnum):
    AUTHORIZATION = "authorization"
    CHARGER = "charger"
    SCHEDULE = "schedule"
    UNKNOWN = "unknown"
    VEHICLE = "vehicle"

    def __str__(self) -> str:
        return str(self.value)
