from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.recurrence_out_days_type_0_item import RecurrenceOutDaysType0Item
from ..models.recurrence_out_rule_type_0 import RecurrenceOutRuleType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.exclusion_out import ExclusionOut


T = TypeVar("T", bound="RecurrenceOut")


@_attrs_define
class RecurrenceOut:
    """
    Attributes:
        rule (None | RecurrenceOutRuleType0 | Unset):
        days (list[RecurrenceOutDaysType0Item] | None | Unset):
        exclusions (list[ExclusionOut] | None | Unset):
    """

    rule: None | RecurrenceOutRuleType0 | Unset = UNSET
    days: list[RecurrenceOutDaysType0Item] | None | Unset = UNSET
    exclusions: list[ExclusionOut] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        rule: None | str | Unset
        if isinstance(self.rule, Unset):
            rule = UNSET
        elif isinstance(self.rule, RecurrenceOutRuleType0):
            rule = self.rule.value
        else:
            rule = self.rule

        days: list[str] | None | Unset
        if isinstance(self.days, Unset):
            days = UNSET
        elif isinstance(self.days, list):
            days = []
            for days_type_0_item_data in self.days:
                days_type_0_item = days_type_0_item_data.value
                days.append(days_type_0_item)

        else:
            days = self.days

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
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if rule is not UNSET:
            field_dict["rule"] = rule
        if days is not UNSET:
            field_dict["days"] = days
        if exclusions is not UNSET:
            field_dict["exclusions"] = exclusions

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.exclusion_out import ExclusionOut  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_rule(data: object) -> None | RecurrenceOutRuleType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                rule_type_0 = RecurrenceOutRuleType0(data)

                return rule_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RecurrenceOutRuleType0 | Unset, data)

        rule = _parse_rule(d.pop("rule", UNSET))

        def _parse_days(data: object) -> list[RecurrenceOutDaysType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                days_type_0 = []
                _days_type_0 = data
                for days_type_0_item_data in _days_type_0:
                    days_type_0_item = RecurrenceOutDaysType0Item(days_type_0_item_data)

                    days_type_0.append(days_type_0_item)

                return days_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[RecurrenceOutDaysType0Item] | None | Unset, data)

        days = _parse_days(d.pop("days", UNSET))

        def _parse_exclusions(data: object) -> list[ExclusionOut] | None | Unset:
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
                    exclusions_type_0_item = ExclusionOut.from_dict(exclusions_type_0_item_data)

                    exclusions_type_0.append(exclusions_type_0_item)

                return exclusions_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ExclusionOut] | None | Unset, data)

        exclusions = _parse_exclusions(d.pop("exclusions", UNSET))

        recurrence_out = cls(
            rule=rule,
            days=days,
            exclusions=exclusions,
        )

        recurrence_out.additional_properties = d
        return recurrence_out

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
