from enum import StrEnum


class PlanSlotSource(StrEnum):
    GRID = "grid"
    SURPLUS = "surplus"

    def __str__(self) -> str:
        return str(self.value)
