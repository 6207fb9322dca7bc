from enum import StrEnum


class ChargingPlanStrategyType0(StrEnum):
    AUTO_CHARGE_SURPLUS_FIRST = "auto.charge_surplus_first"
    AUTO_CHARGE_SURPLUS_ONLY = "auto.charge_surplus_only"
    AUTO_CHARGE_TARIFF = "auto.charge_tariff"

    def __str__(self) -> str:
        return str(self.value)
