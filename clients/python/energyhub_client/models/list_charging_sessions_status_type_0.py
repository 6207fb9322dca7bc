from enum import StrEnum


class ListChargingSessionsStatusType0(StrEnum):
    ACTIVE = "active"
    COMPLETED = "completed"

    def __str__(self) -> str:
        return str(self.value)
