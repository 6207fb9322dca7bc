from enum import StrEnum


class ChargingPlanStatus(StrEnum):
    CHARGING = "charging"
    DONE = "done"
    NOT_RUNNING = "not_running"
    NO_GOAL = "no_goal"
    PAUSED = "paused"
    UNPLUGGED = "unplugged"
    WAITING = "waiting"

    def __str__(self) -> str:
        return str(self.value)
