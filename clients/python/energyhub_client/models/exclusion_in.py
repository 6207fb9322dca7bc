from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="ExclusionIn")


@_attrs_define
class ExclusionIn:
    """
    Attributes:
        from_ (datetime.date): First excluded local date (inclusive).
        to (datetime.date): Last excluded local date (inclusive).
    """

    from_: datetime.date
    to: datetime.date

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_.isoformat()

        to = self.to.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "from": from_,
                "to": to,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        from_ = datetime.date.fromisoformat(d.pop("from"))

        to = datetime.date.fromisoformat(d.pop("to"))

        exclusion_in = cls(
            from_=from_,
            to=to,
        )

        return exclusion_in
