from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SandboxConnection")


@_attrs_define
class SandboxConnection:
    """
    Attributes:
        device_id (str):
        connected (bool):
        disconnected_at (None | str):
    """

    device_id: str
    connected: bool
    disconnected_at: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        device_id = self.device_id

        connected = self.connected

        disconnected_at: None | str
        disconnected_at = self.disconnected_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "deviceId": device_id,
                "connected": connected,
                "disconnectedAt": disconnected_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        device_id = d.pop("deviceId")

        connected = d.pop("connected")

        def _parse_disconnected_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        disconnected_at = _parse_disconnected_at(d.pop("disconnectedAt"))

        sandbox_connection = cls(
            device_id=device_id,
            connected=connected,
            disconnected_at=disconnected_at,
        )

        sandbox_connection.additional_properties = d
        return sandbox_connection

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
