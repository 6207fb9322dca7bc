from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.recurrence_in import RecurrenceIn
    from ..models.time_slot_in import TimeSlotIn


T = TypeVar("T", bound="TimeScheduleBody")


@_attrs_define
class TimeScheduleBody:
    """Slots at a wall-clock time, repeated by `recurrence` (daily by default).

    Attributes:
        slots (list[TimeSlotIn]):
        timezone (str): IANA timezone of the slots' `time`.
        recurrence (None | RecurrenceIn | Unset):
    """

    slots: list[TimeSlotIn]
    timezone: str
    recurrence: None | RecurrenceIn | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.recurrence_in import RecurrenceIn  # noqa: PLC0415

        slots = []
        for slots_item_data in self.slots:
            slots_item = slots_item_data.to_dict()
            slots.append(slots_item)

        timezone = self.timezone

        recurrence: dict[str, Any] | None | Unset
        if isinstance(self.recurrence, Unset):
            recurrence = UNSET
        elif isinstance(self.recurrence, RecurrenceIn):
            recurrence = self.recurrence.to_dict()
        else:
            recurrence = self.recurrence

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "slots": slots,
                "timezone": timezone,
            }
        )
        if recurrence is not UNSET:
            field_dict["recurrence"] = recurrence

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.recurrence_in import RecurrenceIn  # noqa: PLC0415
        from ..models.time_slot_in import TimeSlotIn  # noqa: PLC0415

        d = dict(src_dict)
        slots = []
        _slots = d.pop("slots")
        for slots_item_data in _slots:
            slots_item = TimeSlotIn.from_dict(slots_item_data)

            slots.append(slots_item)

        timezone = d.pop("timezone")

        def _parse_recurrence(data: object) -> None | RecurrenceIn | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                recurrence_type_0 = RecurrenceIn.from_dict(data)

                return recurrence_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RecurrenceIn | Unset, data)

        recurrence = _parse_recurrence(d.pop("recurrence", UNSET))

        time_schedule_body = cls(
            slots=slots,
            timezone=timezone,
            recurrence=recurrence,
        )

        return time_schedule_body
