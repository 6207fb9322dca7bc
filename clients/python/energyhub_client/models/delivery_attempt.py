from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="DeliveryAttempt")


@_attrs_define
class DeliveryAttempt:
    """
    Attributes:
        at (str):
        http_status (int | None): null when no HTTP answer came.
        duration_ms (int):
        error (None | str): Why the attempt failed; null on a 2xx.
    """

    at: str
    http_status: int | None
    duration_ms: int
    error: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        at = self.at

        http_status: int | None
        http_status = self.http_status

        duration_ms = self.duration_ms

        error: None | str
        error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "at": at,
                "httpStatus": http_status,
                "durationMs": duration_ms,
                "error": error,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        at = d.pop("at")

        def _parse_http_status(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        http_status = _parse_http_status(d.pop("httpStatus"))

        duration_ms = d.pop("durationMs")

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        delivery_attempt = cls(
            at=at,
            http_status=http_status,
            duration_ms=duration_ms,
            error=error,
        )

        delivery_attempt.additional_properties = d
        return delivery_attempt

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
