from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.energy_amount import EnergyAmount
    from ..models.percent_amount import PercentAmount


T = TypeVar("T", bound="ChargingGoal")


@_attrs_define
class ChargingGoal:
    """
    Attributes:
        ready_by (str): The wall-clock time at the site, HH:MM.
        ready_at (str): The instant (UTC) the goal is for: the next time the site's clock showed readyBy when the goal
            was set.
        timezone (str): The site's timezone readyBy was read in.
        energy (EnergyAmount | None): Energy to add, or null.
        target (None | PercentAmount): State of charge to reach, or null.
        set_at (str):
    """

    ready_by: str
    ready_at: str
    timezone: str
    energy: EnergyAmount | None
    target: None | PercentAmount
    set_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.energy_amount import EnergyAmount  # noqa: PLC0415
        from ..models.percent_amount import PercentAmount  # noqa: PLC0415

        ready_by = self.ready_by

        ready_at = self.ready_at

        timezone = self.timezone

        energy: dict[str, Any] | None
        if isinstance(self.energy, EnergyAmount):
            energy = self.energy.to_dict()
        else:
            energy = self.energy

        target: dict[str, Any] | None
        if isinstance(self.target, PercentAmount):
            target = self.target.to_dict()
        else:
            target = self.target

        set_at = self.set_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "readyBy": ready_by,
                "readyAt": ready_at,
                "timezone": timezone,
                "energy": energy,
                "target": target,
                "setAt": set_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.energy_amount import EnergyAmount  # noqa: PLC0415
        from ..models.percent_amount import PercentAmount  # noqa: PLC0415

        d = dict(src_dict)
        ready_by = d.pop("readyBy")

        ready_at = d.pop("readyAt")

        timezone = d.pop("timezone")

        def _parse_energy(data: object) -> EnergyAmount | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                energy_type_0 = EnergyAmount.from_dict(data)

                return energy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EnergyAmount | None, data)

        energy = _parse_energy(d.pop("energy"))

        def _parse_target(data: object) -> None | PercentAmount:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                target_type_0 = PercentAmount.from_dict(data)

                return target_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PercentAmount, data)

        target = _parse_target(d.pop("target"))

        set_at = d.pop("setAt")

        charging_goal = cls(
            ready_by=ready_by,
            ready_at=ready_at,
            timezone=timezone,
            energy=energy,
            target=target,
            set_at=set_at,
        )

        charging_goal.additional_properties = d
        return charging_goal

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
