from enum import StrEnum


class ChargingSessionEndReasonType0(StrEnum):
    FAULT = "fault"
    POWER_LOST = "power_lost"
    STOPPED = "stopped"
    UNKNOWN = "unknown"
    UNPLUGGED = "unplugged"
    VEHICLE_FINISHED = "vehicle_finished"

    def __str__(self) -> str:
        return str(self.value)
