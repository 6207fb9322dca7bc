from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

from ..models.sandbox_battery_request_profile_type_0 import SandboxBatteryRequestProfileType0
from ..types import UNSET, Unset

T = TypeVar("T", bound="SandboxBatteryRequest")


@_attrs_define
class SandboxBatteryRequest:
    """
    Attributes:
        user_id (str):
        type_ (Literal['battery']):
        email (None | str | Unset):
        timezone (None | str | Unset): IANA timezone of the plant; default Europe/Berlin.
        profile (None | SandboxBatteryRequestProfileType0 | Unset): Default: battery.
    """

    user_id: str
    type_: Literal["battery"]
    email: None | str | Unset = UNSET
    timezone: None | str | Unset = UNSET
    profile: None | SandboxBatteryRequestProfileType0 | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        user_id = self.user_id

        type_ = self.type_

        email: None | str | Unset
        if isinstance(self.email, Unset):
            email = UNSET
        else:
            email = self.email

        timezone: None | str | Unset
        if isinstance(self.timezone, Unset):
            timezone = UNSET
        else:
            timezone = self.timezone

        profile: None | str | Unset
        if isinstance(self.profile, Unset):
            profile = UNSET
        elif isinstance(self.profile, SandboxBatteryRequestProfileType0):
            profile = self.profile.value
        else:
            profile = self.profile

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "userId": user_id,
                "type": type_,
            }
        )
        if email is not UNSET:
            field_dict["email"] = email
        if timezone is not UNSET:
            field_dict["timezone"] = timezone
        if profile is not UNSET:
            field_dict["profile"] = profile

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        user_id = d.pop("userId")

        type_ = cast(Literal["battery"], d.pop("type"))
        if type_ != "battery":
            raise ValueError(f"type must match const 'battery', got '{type_}'")

        def _parse_email(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        email = _parse_email(d.pop("email", UNSET))

        def _parse_timezone(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        timezone = _parse_timezone(d.pop("timezone", UNSET))

        def _parse_profile(data: object) -> None | SandboxBatteryRequestProfileType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                profile_type_0 = SandboxBatteryRequestProfileType0(data)

                return profile_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SandboxBatteryRequestProfileType0 | Unset, data)

        profile = _parse_profile(d.pop("profile", UNSET))

        sandbox_battery_request = cls(
            user_id=user_id,
            type_=type_,
            email=email,
            timezone=timezone,
            profile=profile,
        )

        return sandbox_battery_request
