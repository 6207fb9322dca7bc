from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.battery_device_conflict_strategies_type_0_item import BatteryDeviceConflictStrategiesType0Item
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.battery_device_commands import BatteryDeviceCommands
    from ..models.battery_device_current_schedule_type_0 import BatteryDeviceCurrentScheduleType0
    from ..models.battery_device_settings import BatteryDeviceSettings
    from ..models.battery_state import BatteryState
    from ..models.device_metadata import DeviceMetadata
    from ..models.last_action import LastAction
    from ..models.sync import Sync


T = TypeVar("T", bound="BatteryDevice")


@_attrs_define
class BatteryDevice:
    """
    Attributes:
        id (str):
        user_id (str):
        vendor (str):
        sync (Sync):
        metadata (DeviceMetadata):
        commands (BatteryDeviceCommands):
        settings (BatteryDeviceSettings):
        current_schedule (BatteryDeviceCurrentScheduleType0 | None):
        type_ (Literal['battery']):
        state (BatteryState):
        conflict_strategies (list[BatteryDeviceConflictStrategiesType0Item] | None | Unset): Absent on a minimally
            registered device.
        last_action (LastAction | None | Unset):
    """

    id: str
    user_id: str
    vendor: str
    sync: Sync
    metadata: DeviceMetadata
    commands: BatteryDeviceCommands
    settings: BatteryDeviceSettings
    current_schedule: BatteryDeviceCurrentScheduleType0 | None
    type_: Literal["battery"]
    state: BatteryState
    conflict_strategies: list[BatteryDeviceConflictStrategiesType0Item] | None | Unset = UNSET
    last_action: LastAction | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.battery_device_current_schedule_type_0 import BatteryDeviceCurrentScheduleType0  # noqa: PLC0415
        from ..models.last_action import LastAction  # noqa: PLC0415

        id = self.id

        user_id = self.user_id

        vendor = self.vendor

        sync = self.sync.to_dict()

        metadata = self.metadata.to_dict()

        commands = self.commands.to_dict()

        settings = self.settings.to_dict()

        current_schedule: dict[str, Any] | None
        if isinstance(self.current_schedule, BatteryDeviceCurrentScheduleType0):
            current_schedule = self.current_schedule.to_dict()
        else:
            current_schedule = self.current_schedule

        type_ = self.type_

        state = self.state.to_dict()

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
            }
        )
        if conflict_strategies is not UNSET:
            field_dict["conflictStrategies"] = conflict_strategies
        if last_action is not UNSET:
            field_dict["lastAction"] = last_action

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.battery_device_commands import BatteryDeviceCommands  # noqa: PLC0415
        from ..models.battery_device_current_schedule_type_0 import BatteryDeviceCurrentScheduleType0  # noqa: PLC0415
        from ..models.battery_device_settings import BatteryDeviceSettings  # noqa: PLC0415
        from ..models.battery_state import BatteryState  # noqa: PLC0415
        from ..models.device_metadata import DeviceMetadata  # noqa: PLC0415
        from ..models.last_action import LastAction  # noqa: PLC0415
        from ..models.sync import Sync  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        user_id = d.pop("userId")

        vendor = d.pop("vendor")

        sync = Sync.from_dict(d.pop("sync"))

        metadata = DeviceMetadata.from_dict(d.pop("metadata"))

        commands = BatteryDeviceCommands.from_dict(d.pop("commands"))

        settings = BatteryDeviceSettings.from_dict(d.pop("settings"))

        def _parse_current_schedule(data: object) -> BatteryDeviceCurrentScheduleType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                current_schedule_type_0 = BatteryDeviceCurrentScheduleType0.from_dict(data)

                return current_schedule_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BatteryDeviceCurrentScheduleType0 | None, data)

        current_schedule = _parse_current_schedule(d.pop("currentSchedule"))

        type_ = cast(Literal["battery"], d.pop("type"))
        if type_ != "battery":
            raise ValueError(f"type must match const 'battery', got '{type_}'")

        state = BatteryState.from_dict(d.pop("state"))

        def _parse_conflict_strategies(data: object) -> list[BatteryDeviceConflictStrategiesType0Item] | None | Unset:
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
                    conflict_strategies_type_0_item = BatteryDeviceConflictStrategiesType0Item(
                        conflict_strategies_type_0_item_data
                    )

                    conflict_strategies_type_0.append(conflict_strategies_type_0_item)

                return conflict_strategies_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[BatteryDeviceConflictStrategiesType0Item] | None | Unset, data)

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

        battery_device = cls(
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
            conflict_strategies=conflict_strategies,
            last_action=last_action,
        )

        battery_device.additional_properties = d
        return battery_device

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
