from enum import StrEnum


class ActionRecordType(StrEnum):
    BATTERYSET_OPERATION_MODE = "battery:set_operation_mode"
    EV_CHARGERSET_OPERATION_MODE = "ev_charger:set_operation_mode"

    def __str__(self) -> str:
        return str(self.value)
