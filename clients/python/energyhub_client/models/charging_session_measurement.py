from enum import StrEnum


class ChargingSessionMeasurement(StrEnum):
    INFERRED = "inferred"
    METERED = "metered"
    OEM_REPORTED = "oem_reported"

    def __str__(self) -> str:
        return str(self.value)
