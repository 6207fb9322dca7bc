from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.exclusion_in import ExclusionIn


T = TypeVar("T", bound="AtRecurrenceIn")


@_attrs_define
class AtRecurrenceIn:
    """At slots fire once: no rule, only dates to skip.

    Attributes:
        exclusions (list[ExclusionIn] | None | Unset): Local date ranges skipped silently.
    """

    exclusions: list[ExclusionIn] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        exclusions: list[dict[str, Any]] | None | Unset
        if isinstance(self.exclusions, Unset):
            exclusions = UNSET
        elif isinstance(self.exclusions, list):
            exclusions = []
            for exclusions_type_0_item_data in self.exclusions:
                exclusions_type_0_item = exclusions_type_0_item_data.to_dict()
                exclusions.append(exclusions_type_0_item)

        else:
            exclusions = self.exclusions

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if exclusions is not UNSET:
            field_dict["exclusions"] = exclusions

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.exclusion_in import ExclusionIn  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_exclusions(data: object) -> list[ExclusionIn] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                exclusions_type_0 = []
                _exclusions_type_0 = data
                for exclusions_type_0_item_data in _exclusions_type_0:
                    exclusions_type_0_item = ExclusionIn.from_dict(exclusions_type_0_item_data)

                    exclusions_type_0.append(exclusions_type_0_item)

                return exclusions_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ExclusionIn] | None | Unset, data)

        exclusions = _parse_exclusions(d.pop("exclusions", UNSET))

        at_recurrence_in = cls(
            exclusions=exclusions,
        )

        return at_recurrence_in
