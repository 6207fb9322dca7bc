from enum import StrEnum


class CommandSpecExecutionItem(StrEnum):
    IMMEDIATE = "immediate"
    SCHEDULED = "scheduled"
    WINDOWED = "windowed"

    def __str__(self) -> str:
        return str(self.value)
