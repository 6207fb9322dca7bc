from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.charging_plan_status import ChargingPlanStatus
from ..models.charging_plan_strategy_type_0 import ChargingPlanStrategyType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.charging_goal import ChargingGoal
    from ..models.energy_out import EnergyOut
    from ..models.money import Money
    from ..models.plan_slot import PlanSlot
    from ..models.plan_steering import PlanSteering


T = TypeVar("T", bound="ChargingPlan")


@_attrs_define
class ChargingPlan:
    """
    Attributes:
        strategy (ChargingPlanStrategyType0 | None):
        status (ChargingPlanStatus):
        goal (ChargingGoal | None):
        slots (list[PlanSlot]):
        expected_energy (EnergyOut):
        expected_cost (Money | None): null when the site has no tariff.
        explanation (str):
        updated_at (str):
        steering (None | PlanSteering | Unset): How the charger took the plan's limits; null until a strategy runs.
    """

    strategy: ChargingPlanStrategyType0 | None
    status: ChargingPlanStatus
    goal: ChargingGoal | None
    slots: list[PlanSlot]
    expected_energy: EnergyOut
    expected_cost: Money | None
    explanation: str
    updated_at: str
    steering: None | PlanSteering | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.charging_goal import ChargingGoal  # noqa: PLC0415
        from ..models.money import Money  # noqa: PLC0415
        from ..models.plan_steering import PlanSteering  # noqa: PLC0415

        strategy: None | str
        if isinstance(self.strategy, ChargingPlanStrategyType0):
            strategy = self.strategy.value
        else:
            strategy = self.strategy

        status = self.status.value

        goal: dict[str, Any] | None
        if isinstance(self.goal, ChargingGoal):
            goal = self.goal.to_dict()
        else:
            goal = self.goal

        slots = []
        for slots_item_data in self.slots:
            slots_item = slots_item_data.to_dict()
            slots.append(slots_item)

        expected_energy = self.expected_energy.to_dict()

        expected_cost: dict[str, Any] | None
        if isinstance(self.expected_cost, Money):
            expected_cost = self.expected_cost.to_dict()
        else:
            expected_cost = self.expected_cost

        explanation = self.explanation

        updated_at = self.updated_at

        steering: dict[str, Any] | None | Unset
        if isinstance(self.steering, Unset):
            steering = UNSET
        elif isinstance(self.steering, PlanSteering):
            steering = self.steering.to_dict()
        else:
            steering = self.steering

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "strategy": strategy,
                "status": status,
                "goal": goal,
                "slots": slots,
                "expectedEnergy": expected_energy,
                "expectedCost": expected_cost,
                "explanation": explanation,
                "updatedAt": updated_at,
            }
        )
        if steering is not UNSET:
            field_dict["steering"] = steering

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.charging_goal import ChargingGoal  # noqa: PLC0415
        from ..models.energy_out import EnergyOut  # noqa: PLC0415
        from ..models.money import Money  # noqa: PLC0415
        from ..models.plan_slot import PlanSlot  # noqa: PLC0415
        from ..models.plan_steering import PlanSteering  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_strategy(data: object) -> ChargingPlanStrategyType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                strategy_type_0 = ChargingPlanStrategyType0(data)

                return strategy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChargingPlanStrategyType0 | None, data)

        strategy = _parse_strategy(d.pop("strategy"))

        status = ChargingPlanStatus(d.pop("status"))

        def _parse_goal(data: object) -> ChargingGoal | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                goal_type_0 = ChargingGoal.from_dict(data)

                return goal_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChargingGoal | None, data)

        goal = _parse_goal(d.pop("goal"))

        slots = []
        _slots = d.pop("slots")
        for slots_item_data in _slots:
            slots_item = PlanSlot.from_dict(slots_item_data)

            slots.append(slots_item)

        expected_energy = EnergyOut.from_dict(d.pop("expectedEnergy"))

        def _parse_expected_cost(data: object) -> Money | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                expected_cost_type_0 = Money.from_dict(data)

                return expected_cost_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Money | None, data)

        expected_cost = _parse_expected_cost(d.pop("expectedCost"))

        explanation = d.pop("explanation")

        updated_at = d.pop("updatedAt")

        def _parse_steering(data: object) -> None | PlanSteering | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                steering_type_0 = PlanSteering.from_dict(data)

                return steering_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PlanSteering | Unset, data)

        steering = _parse_steering(d.pop("steering", UNSET))

        charging_plan = cls(
            strategy=strategy,
            status=status,
            goal=goal,
            slots=slots,
            expected_energy=expected_energy,
            expected_cost=expected_cost,
            explanation=explanation,
            updated_at=updated_at,
            steering=steering,
        )

        charging_plan.additional_properties = d
        return charging_plan

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
