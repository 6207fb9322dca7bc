from enum import StrEnum


class RecurrenceOutRuleType0(StrEnum):
    DAILY = "daily"
    WEEKDAYS = "weekdays"
    WEEKENDS = "weekends"
    WEEKLY = "weekly"

    def __str__(self) -> str:
        return str(self.value)
