"""Charging strategies, pure: the planner (prices, goal, limits -> plan and explanation)
and the surplus controller (site readings -> the charger's limit)."""

from energyhub.domain.planning.model import (
    ChargerLimits,
    Goal,
    Plan,
    PlanStatus,
    PriceSchedule,
    Site,
    Tariff,
)
from energyhub.domain.planning.planner import plan_charging
from energyhub.domain.planning.prepared import PreparedPrices, prepare_prices
from energyhub.domain.planning.prices import LoadPeriod, PricePeriod, TimeOfUsePeriod
from energyhub.domain.planning.slots import Slot, blocks_of

__all__ = [
    "ChargerLimits",
    "Goal",
    "LoadPeriod",
    "Plan",
    "PlanStatus",
    "PreparedPrices",
    "PricePeriod",
    "PriceSchedule",
    "Site",
    "Slot",
    "Tariff",
    "TimeOfUsePeriod",
    "blocks_of",
    "plan_charging",
    "prepare_prices",
]
