from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.recurrence_in_days_type_0_item import RecurrenceInDaysType0Item
from ..models.recurrence_in_rule_type_0 import RecurrenceInRuleType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.exclusion_in import ExclusionIn


T = TypeVar("T", bound="RecurrenceIn")


@_attrs_define
class RecurrenceIn:
    """
    Attributes:
        rule (None | RecurrenceInRuleType0 | Unset): For time slots; default daily. At slots take no rule.
        days (list[RecurrenceInDaysType0Item] | None | Unset): Only with rule weekly; each day once.
        exclusions (list[ExclusionIn] | None | Unset): Local date ranges skipped silently.
    """

    rule: None | RecurrenceInRuleType0 | Unset = UNSET
    days: list[RecurrenceInDaysType0Item] | None | Unset = UNSET
    exclusions: list[ExclusionIn] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        rule: None | str | Unset
        if isinstance(self.rule, Unset):
            rule = UNSET
        elif isinstance(self.rule, RecurrenceInRuleType0):
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
        from ..models.exclusion_in import ExclusionIn  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_rule(data: object) -> None | RecurrenceInRuleType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                rule_type_0 = RecurrenceInRuleType0(data)

                return rule_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RecurrenceInRuleType0 | Unset, data)

        rule = _parse_rule(d.pop("rule", UNSET))

        def _parse_days(data: object) -> list[RecurrenceInDaysType0Item] | None | Unset:
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
                    days_type_0_item = RecurrenceInDaysType0Item(days_type_0_item_data)

                    days_type_0.append(days_type_0_item)

                return days_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[RecurrenceInDaysType0Item] | None | Unset, data)

        days = _parse_days(d.pop("days", UNSET))

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

        recurrence_in = cls(
            rule=rule,
            days=days,
            exclusions=exclusions,
        )

        return recurrence_in
