from enum import StrEnum


class PlanSteeringState(StrEnum):
    APPLIED = "applied"
    REFUSED = "refused"
    UNREACHABLE = "unreachable"

    def __str__(self) -> str:
        return str(self.value)
