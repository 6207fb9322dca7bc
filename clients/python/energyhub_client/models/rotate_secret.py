from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="RotateSecret")


@_attrs_define
class RotateSecret:
    """
    Attributes:
        expire_old_now (bool | Unset): Stop signing with the old secret at once (a leaked secret). By default it signs
            beside the new one for 24 hours: webhook-signature then carries `v1,<new> v1,<old>`, so receivers can switch
            without missing a delivery. Default: False.
    """

    expire_old_now: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        expire_old_now = self.expire_old_now

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if expire_old_now is not UNSET:
            field_dict["expireOldNow"] = expire_old_now

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        expire_old_now = d.pop("expireOldNow", UNSET)

        rotate_secret = cls(
            expire_old_now=expire_old_now,
        )

        return rotate_secret
