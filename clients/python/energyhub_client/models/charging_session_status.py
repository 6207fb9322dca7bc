from enum import StrEnum


class ChargingSessionStatus(StrEnum):
    ACTIVE = "active"
    COMPLETED = "completed"

    def __str__(self) -> str:
        return str(self.value)
