from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="VppLockBody")


@_attrs_define
class VppLockBody:
    """
    Attributes:
        until (datetime.datetime): When the lock ends: ISO 8601 with offset or Z, between 1970-01-01 and 9998-12-31
            (UTC).
    """

    until: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        until = self.until.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "until": until,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        until = datetime.datetime.fromisoformat(d.pop("until"))

        vpp_lock_body = cls(
            until=until,
        )

        return vpp_lock_body
