from enum import StrEnum


class ActionRecordState(StrEnum):
    ACKNOWLEDGED = "acknowledged"
    CANCELLED = "cancelled"
    COMPLETED = "completed"
    DEFERRED = "deferred"
    FAILED = "failed"
    SCHEDULED = "scheduled"

    def __str__(self) -> str:
        return str(self.value)
