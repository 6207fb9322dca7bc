from enum import StrEnum


class EvChargerDeviceConflictStrategiesType0Item(StrEnum):
    CANCEL_AND_REPLACE = "cancel_and_replace"
    QUEUE_AFTER = "queue_after"

    def __str__(self) -> str:
        return str(self.value)
