from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="SimulateHoldBody")


@_attrs_define
class SimulateHoldBody:
    """Set a simulated device's state and hold it (its daily time pattern stops moving it;
    commands still run from it) until a reset.

        Attributes:
            plugged_in (bool | Unset): EV chargers: the simulated car plugged in (true) or away.
            vehicle_soc (float | Unset): EV chargers that read the car: its state of charge, percent.
            level (float | Unset): Batteries: the level, percent.
    """

    plugged_in: bool | Unset = UNSET
    vehicle_soc: float | Unset = UNSET
    level: float | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        plugged_in = self.plugged_in

        vehicle_soc = self.vehicle_soc

        level = self.level

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if plugged_in is not UNSET:
            field_dict["pluggedIn"] = plugged_in
        if vehicle_soc is not UNSET:
            field_dict["vehicleSoc"] = vehicle_soc
        if level is not UNSET:
            field_dict["level"] = level

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        plugged_in = d.pop("pluggedIn", UNSET)

        vehicle_soc = d.pop("vehicleSoc", UNSET)

        level = d.pop("level", UNSET)

        simulate_hold_body = cls(
            plugged_in=plugged_in,
            vehicle_soc=vehicle_soc,
            level=level,
        )

        return simulate_hold_body
