from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ErrorMeta")


@_attrs_define
class ErrorMeta:
    """
    Attributes:
        request_id (str):
        timestamp (str):
        path (str):
        latency_ms (float):
    """

    request_id: str
    timestamp: str
    path: str
    latency_ms: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        request_id = self.request_id

        timestamp = self.timestamp

        path = self.path

        latency_ms = self.latency_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "requestId": request_id,
                "timestamp": timestamp,
                "path": path,
                "latencyMs": latency_ms,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        request_id = d.pop("requestId")

        timestamp = d.pop("timestamp")

        path = d.pop("path")

        latency_ms = d.pop("latencyMs")

        error_meta = cls(
            request_id=request_id,
            timestamp=timestamp,
            path=path,
            latency_ms=latency_ms,
        )

        error_meta.additional_properties = d
        return error_meta

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
