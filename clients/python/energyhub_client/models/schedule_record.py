from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.schedule_record_devicetype import ScheduleRecordDevicetype
from ..models.schedule_record_state import ScheduleRecordState

if TYPE_CHECKING:
    from ..models.at_slot_out import AtSlotOut
    from ..models.recurrence_out import RecurrenceOut
    from ..models.skipped_occurrence import SkippedOccurrence
    from ..models.time_slot_out import TimeSlotOut


T = TypeVar("T", bound="ScheduleRecord")


@_attrs_define
class ScheduleRecord:
    """
    Attributes:
        id (str):
        device_id (str):
        device_type (ScheduleRecordDevicetype):
        state (ScheduleRecordState):
        timezone (None | str):
        recurrence (None | RecurrenceOut):
        slots (list[AtSlotOut | TimeSlotOut]):
        created_at (str):
        updated_at (str):
        next_fire_at (None | str): UTC start of the next occurrence; null once done.
        skipped (list[SkippedOccurrence]): Occurrences that could not be placed (newest 100).
    """

    id: str
    device_id: str
    device_type: ScheduleRecordDevicetype
    state: ScheduleRecordState
    timezone: None | str
    recurrence: None | RecurrenceOut
    slots: list[AtSlotOut | TimeSlotOut]
    created_at: str
    updated_at: str
    next_fire_at: None | str
    skipped: list[SkippedOccurrence]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.at_slot_out import AtSlotOut  # noqa: PLC0415
        from ..models.recurrence_out import RecurrenceOut  # noqa: PLC0415

        id = self.id

        device_id = self.device_id

        device_type = self.device_type.value

        state = self.state.value

        timezone: None | str
        timezone = self.timezone

        recurrence: dict[str, Any] | None
        if isinstance(self.recurrence, RecurrenceOut):
            recurrence = self.recurrence.to_dict()
        else:
            recurrence = self.recurrence

        slots = []
        for slots_item_data in self.slots:
            slots_item: dict[str, Any]
            if isinstance(slots_item_data, AtSlotOut):
                slots_item = slots_item_data.to_dict()
            else:
                slots_item = slots_item_data.to_dict()

            slots.append(slots_item)

        created_at = self.created_at

        updated_at = self.updated_at

        next_fire_at: None | str
        next_fire_at = self.next_fire_at

        skipped = []
        for skipped_item_data in self.skipped:
            skipped_item = skipped_item_data.to_dict()
            skipped.append(skipped_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "deviceId": device_id,
                "deviceType": device_type,
                "state": state,
                "timezone": timezone,
                "recurrence": recurrence,
                "slots": slots,
                "createdAt": created_at,
                "updatedAt": updated_at,
                "nextFireAt": next_fire_at,
                "skipped": skipped,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.at_slot_out import AtSlotOut  # noqa: PLC0415
        from ..models.recurrence_out import RecurrenceOut  # noqa: PLC0415
        from ..models.skipped_occurrence import SkippedOccurrence  # noqa: PLC0415
        from ..models.time_slot_out import TimeSlotOut  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        device_id = d.pop("deviceId")

        device_type = ScheduleRecordDevicetype(d.pop("deviceType"))

        state = ScheduleRecordState(d.pop("state"))

        def _parse_timezone(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        timezone = _parse_timezone(d.pop("timezone"))

        def _parse_recurrence(data: object) -> None | RecurrenceOut:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                recurrence_type_0 = RecurrenceOut.from_dict(data)

                return recurrence_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RecurrenceOut, data)

        recurrence = _parse_recurrence(d.pop("recurrence"))

        slots = []
        _slots = d.pop("slots")
        for slots_item_data in _slots:

            def _parse_slots_item(data: object) -> AtSlotOut | TimeSlotOut:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    slots_item_type_0 = AtSlotOut.from_dict(data)

                    return slots_item_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                slots_item_type_1 = TimeSlotOut.from_dict(data)

                return slots_item_type_1

            slots_item = _parse_slots_item(slots_item_data)

            slots.append(slots_item)

        created_at = d.pop("createdAt")

        updated_at = d.pop("updatedAt")

        def _parse_next_fire_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_fire_at = _parse_next_fire_at(d.pop("nextFireAt"))

        skipped = []
        _skipped = d.pop("skipped")
        for skipped_item_data in _skipped:
            skipped_item = SkippedOccurrence.from_dict(skipped_item_data)

            skipped.append(skipped_item)

        schedule_record = cls(
            id=id,
            device_id=device_id,
            device_type=device_type,
            state=state,
            timezone=timezone,
            recurrence=recurrence,
            slots=slots,
            created_at=created_at,
            updated_at=updated_at,
            next_fire_at=next_fire_at,
            skipped=skipped,
        )

        schedule_record.additional_properties = d
        return schedule_record

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
