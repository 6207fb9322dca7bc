"""The charging goal as a charger's body shows it (its own module: the device models in
`schemas` and the strategy models both use it)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class EnergyAmount(BaseModel):
    value: float
    unit: Literal["kwh"]


class PercentAmount(BaseModel):
    value: float
    unit: Literal["percent"]


class ChargingGoal(BaseModel):
    readyBy: str = Field(description="The wall-clock time at the site, HH:MM.")
    readyAt: str = Field(
        description="The instant (UTC) the goal is for: the next time the site's clock "
        "showed readyBy when the goal was set."
    )
    timezone: str = Field(description="The site's timezone readyBy was read in.")
    energy: EnergyAmount | None = Field(description="Energy to add, or null.")
    target: PercentAmount | None = Field(description="State of charge to reach, or null.")
    setAt: str
