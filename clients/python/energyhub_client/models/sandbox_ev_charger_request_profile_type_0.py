from enum import StrEnum


class SandboxEvChargerRequestProfileType0(StrEnum):
    EV_CHARGER = "ev-charger"
    EV_CHARGER_BASIC = "ev-charger-basic"
    EV_CHARGER_BIDIRECTIONAL = "ev-charger-bidirectional"

    def __str__(self) -> str:
        return str(self.value)
