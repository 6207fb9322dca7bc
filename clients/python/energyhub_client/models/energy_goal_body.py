from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.energy_in import EnergyIn


T = TypeVar("T", bound="EnergyGoalBody")


@_attrs_define
class EnergyGoalBody:
    """
    Attributes:
        ready_by (str):
        energy (EnergyIn):
    """

    ready_by: str
    energy: EnergyIn

    def to_dict(self) -> dict[str, Any]:
        ready_by = self.ready_by

        energy = self.energy.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "readyBy": ready_by,
                "energy": energy,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.energy_in import EnergyIn  # noqa: PLC0415

        d = dict(src_dict)
        ready_by = d.pop("readyBy")

        energy = EnergyIn.from_dict(d.pop("energy"))

        energy_goal_body = cls(
            ready_by=ready_by,
            energy=energy,
        )

        return energy_goal_body
