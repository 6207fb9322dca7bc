from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.at_recurrence_in import AtRecurrenceIn
    from ..models.at_slot_in import AtSlotIn


T = TypeVar("T", bound="AtScheduleBody")


@_attrs_define
class AtScheduleBody:
    """Slots that each fire once, at an absolute time.

    Attributes:
        slots (list[AtSlotIn]):
        timezone (None | str | Unset): IANA timezone in which `exclusions` dates are read (else UTC).
        recurrence (AtRecurrenceIn | None | Unset):
    """

    slots: list[AtSlotIn]
    timezone: None | str | Unset = UNSET
    recurrence: AtRecurrenceIn | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.at_recurrence_in import AtRecurrenceIn  # noqa: PLC0415

        slots = []
        for slots_item_data in self.slots:
            slots_item = slots_item_data.to_dict()
            slots.append(slots_item)

        timezone: None | str | Unset
        if isinstance(self.timezone, Unset):
            timezone = UNSET
        else:
            timezone = self.timezone

        recurrence: dict[str, Any] | None | Unset
        if isinstance(self.recurrence, Unset):
            recurrence = UNSET
        elif isinstance(self.recurrence, AtRecurrenceIn):
            recurrence = self.recurrence.to_dict()
        else:
            recurrence = self.recurrence

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "slots": slots,
            }
        )
        if timezone is not UNSET:
            field_dict["timezone"] = timezone
        if recurrence is not UNSET:
            field_dict["recurrence"] = recurrence

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.at_recurrence_in import AtRecurrenceIn  # noqa: PLC0415
        from ..models.at_slot_in import AtSlotIn  # noqa: PLC0415

        d = dict(src_dict)
        slots = []
        _slots = d.pop("slots")
        for slots_item_data in _slots:
            slots_item = AtSlotIn.from_dict(slots_item_data)

            slots.append(slots_item)

        def _parse_timezone(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        timezone = _parse_timezone(d.pop("timezone", UNSET))

        def _parse_recurrence(data: object) -> AtRecurrenceIn | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                recurrence_type_0 = AtRecurrenceIn.from_dict(data)

                return recurrence_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AtRecurrenceIn | None | Unset, data)

        recurrence = _parse_recurrence(d.pop("recurrence", UNSET))

        at_schedule_body = cls(
            slots=slots,
            timezone=timezone,
            recurrence=recurrence,
        )

        return at_schedule_body
