from enum import StrEnum


class ScheduleRecordState(StrEnum):
    ACTIVE = "active"
    COMPLETED = "completed"
    DELETED = "deleted"

    def __str__(self) -> str:
        return str(self.value)
