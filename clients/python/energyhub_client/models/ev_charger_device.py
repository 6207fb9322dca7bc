from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.ev_charger_device_conflict_strategies_type_0_item import EvChargerDeviceConflictStrategiesType0Item
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.charging_goal import ChargingGoal
    from ..models.device_metadata import DeviceMetadata
    from ..models.ev_charger_device_commands import EvChargerDeviceCommands
    from ..models.ev_charger_device_current_schedule_type_0 import EvChargerDeviceCurrentScheduleType0
    from ..models.ev_charger_device_settings import EvChargerDeviceSettings
    from ..models.ev_charger_state import EvChargerState
    from ..models.last_action import LastAction
    from ..models.sync import Sync
    from ..models.vehicle_ref import VehicleRef


T = TypeVar("T", bound="EvChargerDevice")


@_attrs_define
class EvChargerDevice:
    """
    Attributes:
        id (str):
        user_id (str):
        vendor (str):
        sync (Sync):
        metadata (DeviceMetadata):
        commands (EvChargerDeviceCommands):
        settings (EvChargerDeviceSettings):
        current_schedule (EvChargerDeviceCurrentScheduleType0 | None):
        type_ (Literal['ev-charger']):
        state (EvChargerState): Presence-based: a key is absent when the charger does not report it.
        sessions (bool):
        vehicle (None | VehicleRef):
        goal (ChargingGoal | None): The charging goal; null when none is set.
        conflict_strategies (list[EvChargerDeviceConflictStrategiesType0Item] | None | Unset): Absent on a minimally
            registered device.
        last_action (LastAction | None | Unset):
    """

    id: str
    user_id: str
    vendor: str
    sync: Sync
    metadata: DeviceMetadata
    commands: EvChargerDeviceCommands
    settings: EvChargerDeviceSettings
    current_schedule: EvChargerDeviceCurrentScheduleType0 | None
    type_: Literal["ev-charger"]
    state: EvChargerState
    sessions: bool
    vehicle: None | VehicleRef
    goal: ChargingGoal | None
    conflict_strategies: list[EvChargerDeviceConflictStrategiesType0Item] | None | Unset = UNSET
    last_action: LastAction | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.charging_goal import ChargingGoal  # noqa: PLC0415
        from ..models.ev_charger_device_current_schedule_type_0 import EvChargerDeviceCurrentScheduleType0  # noqa: PLC0415
        from ..models.last_action import LastAction  # noqa: PLC0415
        from ..models.vehicle_ref import VehicleRef  # noqa: PLC0415

        id = self.id

        user_id = self.user_id

        vendor = self.vendor

        sync = self.sync.to_dict()

        metadata = self.metadata.to_dict()

        commands = self.commands.to_dict()

        settings = self.settings.to_dict()

        current_schedule: dict[str, Any] | None
        if isinstance(self.current_schedule, EvChargerDeviceCurrentScheduleType0):
            current_schedule = self.current_schedule.to_dict()
        else:
            current_schedule = self.current_schedule

        type_ = self.type_

        state = self.state.to_dict()

        sessions = self.sessions

        vehicle: dict[str, Any] | None
        if isinstance(self.vehicle, VehicleRef):
            vehicle = self.vehicle.to_dict()
        else:
            vehicle = self.vehicle

        goal: dict[str, Any] | None
        if isinstance(self.goal, ChargingGoal):
            goal = self.goal.to_dict()
        else:
            goal = self.goal

        conflict_strategies: list[str] | None | Unset
        if isinstance(self.conflict_strategies, Unset):
            conflict_strategies = UNSET
        elif isinstance(self.conflict_strategies, list):
            conflict_strategies = []
            for conflict_strategies_type_0_item_data in self.conflict_strategies:
                conflict_strategies_type_0_item = conflict_strategies_type_0_item_data.value
                conflict_strategies.append(conflict_strategies_type_0_item)

        else:
            conflict_strategies = self.conflict_strategies

        last_action: dict[str, Any] | None | Unset
        if isinstance(self.last_action, Unset):
            last_action = UNSET
        elif isinstance(self.last_action, LastAction):
            last_action = self.last_action.to_dict()
        else:
            last_action = self.last_action

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "userId": user_id,
                "vendor": vendor,
                "sync": sync,
                "metadata": metadata,
                "commands": commands,
                "settings": settings,
                "currentSchedule": current_schedule,
                "type": type_,
                "state": state,
                "sessions": sessions,
                "vehicle": vehicle,
                "goal": goal,
            }
        )
        if conflict_strategies is not UNSET:
            field_dict["conflictStrategies"] = conflict_strategies
        if last_action is not UNSET:
            field_dict["lastAction"] = last_action

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.charging_goal import ChargingGoal  # noqa: PLC0415
        from ..models.device_metadata import DeviceMetadata  # noqa: PLC0415
        from ..models.ev_charger_device_commands import EvChargerDeviceCommands  # noqa: PLC0415
        from ..models.ev_charger_device_current_schedule_type_0 import EvChargerDeviceCurrentScheduleType0  # noqa: PLC0415
        from ..models.ev_charger_device_settings import EvChargerDeviceSettings  # noqa: PLC0415
        from ..models.ev_charger_state import EvChargerState  # noqa: PLC0415
        from ..models.last_action import LastAction  # noqa: PLC0415
        from ..models.sync import Sync  # noqa: PLC0415
        from ..models.vehicle_ref import VehicleRef  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        user_id = d.pop("userId")

        vendor = d.pop("vendor")

        sync = Sync.from_dict(d.pop("sync"))

        metadata = DeviceMetadata.from_dict(d.pop("metadata"))

        commands = EvChargerDeviceCommands.from_dict(d.pop("commands"))

        settings = EvChargerDeviceSettings.from_dict(d.pop("settings"))

        def _parse_current_schedule(data: object) -> EvChargerDeviceCurrentScheduleType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                current_schedule_type_0 = EvChargerDeviceCurrentScheduleType0.from_dict(data)

                return current_schedule_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EvChargerDeviceCurrentScheduleType0 | None, data)

        current_schedule = _parse_current_schedule(d.pop("currentSchedule"))

        type_ = cast(Literal["ev-charger"], d.pop("type"))
        if type_ != "ev-charger":
            raise ValueError(f"type must match const 'ev-charger', got '{type_}'")

        state = EvChargerState.from_dict(d.pop("state"))

        sessions = d.pop("sessions")

        def _parse_vehicle(data: object) -> None | VehicleRef:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                vehicle_type_0 = VehicleRef.from_dict(data)

                return vehicle_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | VehicleRef, data)

        vehicle = _parse_vehicle(d.pop("vehicle"))

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

        def _parse_conflict_strategies(data: object) -> list[EvChargerDeviceConflictStrategiesType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                conflict_strategies_type_0 = []
                _conflict_strategies_type_0 = data
                for conflict_strategies_type_0_item_data in _conflict_strategies_type_0:
                    conflict_strategies_type_0_item = EvChargerDeviceConflictStrategiesType0Item(
                        conflict_strategies_type_0_item_data
                    )

                    conflict_strategies_type_0.append(conflict_strategies_type_0_item)

                return conflict_strategies_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[EvChargerDeviceConflictStrategiesType0Item] | None | Unset, data)

        conflict_strategies = _parse_conflict_strategies(d.pop("conflictStrategies", UNSET))

        def _parse_last_action(data: object) -> LastAction | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                last_action_type_0 = LastAction.from_dict(data)

                return last_action_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LastAction | None | Unset, data)

        last_action = _parse_last_action(d.pop("lastAction", UNSET))

        ev_charger_device = cls(
            id=id,
            user_id=user_id,
            vendor=vendor,
            sync=sync,
            metadata=metadata,
            commands=commands,
            settings=settings,
            current_schedule=current_schedule,
            type_=type_,
            state=state,
            sessions=sessions,
            vehicle=vehicle,
            goal=goal,
            conflict_strategies=conflict_strategies,
            last_action=last_action,
        )

        ev_charger_device.additional_properties = d
        return ev_charger_device

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
