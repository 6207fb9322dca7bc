"""OpenAPI models of sites, tariffs, readings, charging goals and plans (strategies).

Request bodies are parsed by `domain.sites`, `domain.site_updates` and `domain.goals`,
which word every error (400 with `details.errors`); the models here describe them (and the
responses) for the docs and for schemathesis. Rules no schema can state: time-of-use
periods cover the day without gap or overlap, a dynamic period ends after it starts and
overlaps no other, a reading is not from the future, a `target` needs a charger that
declares it (422), and prices are added only to a dynamic tariff."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from energyhub.api.goal_schema import ChargingGoal
from energyhub.api.schemas import IsoAwareDateTime, TimezoneName
from energyhub.domain.sites import MAX_PRICE, MAX_PRICES, MAX_READINGS, MAX_TIME_OF_USE

WALL_FROM_PATTERN = r"^([01]\d|2[0-3]):[0-5]\d$"
WALL_TO_PATTERN = r"^(([01]\d|2[0-3]):[0-5]\d|24:00)$"
_PRICE = Field(ge=-MAX_PRICE, le=MAX_PRICE, allow_inf_nan=False, description="Per kWh.")


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class PowerIn(_Closed):
    value: float = Field(ge=-1e9, le=1e9, allow_inf_nan=False)
    unit: Literal["kw", "w"]


class PowerLimitIn(_Closed):
    value: float = Field(gt=0, le=1e9, allow_inf_nan=False)
    unit: Literal["kw", "w"]


class TimeOfUsePeriodIn(_Closed):
    from_: str = Field(alias="from", pattern=WALL_FROM_PATTERN, examples=["01:00"])
    to: str = Field(
        pattern=WALL_TO_PATTERN,
        description="At or before `from`: the period runs over midnight. 24:00 is midnight.",
        examples=["05:00"],
    )
    price: float = _PRICE


class PricePeriodIn(_Closed):
    start: IsoAwareDateTime
    end: IsoAwareDateTime = Field(description="After start.")
    price: float = _PRICE


class TimeOfUseIn(_Closed):
    """The site's wall clock: periods that cover the day without gap or overlap."""

    timeOfUse: list[TimeOfUsePeriodIn] = Field(min_length=1, max_length=MAX_TIME_OF_USE)


class DynamicPricesIn(_Closed):
    """Dynamic prices (e.g. day-ahead, 15 or 60 minutes), UTC, none overlapping another."""

    prices: list[PricePeriodIn] = Field(min_length=1, max_length=MAX_PRICES)


class TariffIn(_Closed):
    currency: str = Field(pattern=r"^[A-Z]{3}$", description="ISO 4217 code", examples=["EUR"])
    import_: TimeOfUseIn | DynamicPricesIn = Field(alias="import")
    export: TimeOfUseIn | DynamicPricesIn | None = Field(
        default=None, description="No export tariff: export earns 0."
    )


class SiteBody(_Closed):
    """Only the fields sent change; null clears one."""

    timezone: TimezoneName | None = Field(
        default=None, description="IANA name; null: the timezone of the user's first device."
    )
    gridImportLimit: PowerLimitIn | None = Field(default=None, description="null: no limit.")
    tariff: TariffIn | None = Field(default=None, description="null: no tariff.")


class PricesBody(_Closed):
    """Periods merged into the dynamic tariff: one replaces a stored one of the same start."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    import_: list[PricePeriodIn] = Field(
        default_factory=list, alias="import", min_length=1, max_length=MAX_PRICES
    )
    export: list[PricePeriodIn] = Field(default_factory=list, min_length=1, max_length=MAX_PRICES)


class ReadingIn(_Closed):
    at: IsoAwareDateTime = Field(description="When the meter read it; at most 5 minutes ahead.")
    gridPower: PowerIn = Field(description="Positive: importing; negative: exporting.")


class ReadingsBody(_Closed):
    readings: list[ReadingIn] = Field(min_length=1, max_length=MAX_READINGS)


class EnergyIn(_Closed):
    value: float = Field(gt=0, le=200, allow_inf_nan=False)
    unit: Literal["kwh"]


class PercentIn(_Closed):
    value: float = Field(gt=0, le=100, allow_inf_nan=False)
    unit: Literal["percent"]


class EnergyGoalBody(_Closed):
    readyBy: str = Field(pattern=WALL_FROM_PATTERN, examples=["07:00"])
    energy: EnergyIn


class TargetGoalBody(_Closed):
    """Only on chargers whose `charge` command declares `target` (else 422)."""

    readyBy: str = Field(pattern=WALL_FROM_PATTERN, examples=["07:00"])
    target: PercentIn


GoalBody = EnergyGoalBody | TargetGoalBody


class PowerOut(BaseModel):
    value: float
    unit: Literal["kw"]


class EnergyOut(BaseModel):
    value: float
    unit: Literal["kwh"]


class Reading(BaseModel):
    at: str
    gridPower: PowerOut


class SiteRecord(BaseModel):
    userId: str
    timezone: str | None
    gridImportLimit: PowerOut | None
    tariff: TariffIn | None
    lastReading: Reading | None
    updatedAt: str | None = Field(description="null until the site is first set.")


class PlanSlot(BaseModel):
    start: str
    end: str
    power: PowerOut
    source: Literal["grid", "surplus"]
    price: float | None = Field(description="Per kWh; null when the site has no tariff.")


class Money(BaseModel):
    value: float
    currency: str


PlanStatusName = Literal[
    "not_running", "waiting", "charging", "paused", "done", "no_goal", "unplugged"
]


class PlanSteering(BaseModel):
    state: Literal["applied", "refused", "unreachable"] = Field(
        description="applied: the charger keeps to the plan's limits; refused: it refused "
        "them (message says why) and charges by its own limits; unreachable: it is not "
        "connected, and gets them when it is."
    )
    message: str | None
    at: str


class ChargingPlan(BaseModel):
    strategy: (
        Literal["auto.charge_tariff", "auto.charge_surplus_only", "auto.charge_surplus_first"]
        | None
    )
    status: PlanStatusName
    goal: ChargingGoal | None
    slots: list[PlanSlot]
    expectedEnergy: EnergyOut
    expectedCost: Money | None = Field(description="null when the site has no tariff.")
    explanation: str
    updatedAt: str
    steering: PlanSteering | None = Field(
        default=None,
        description="How the charger took the plan's limits; null until a strategy runs.",
    )
