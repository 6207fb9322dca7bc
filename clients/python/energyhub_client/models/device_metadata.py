from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.device_metadata_cache_type_type_0 import DeviceMetadataCacheTypeType0
from ..models.device_metadata_source import DeviceMetadataSource
from ..types import UNSET, Unset

T = TypeVar("T", bound="DeviceMetadata")


@_attrs_define
class DeviceMetadata:
    """
    Attributes:
        model (str):
        timezone (str): The plant's IANA timezone; push start/end use it.
        source (DeviceMetadataSource):
        cache_type (DeviceMetadataCacheTypeType0 | None | Unset): Present on single-device reads.
    """

    model: str
    timezone: str
    source: DeviceMetadataSource
    cache_type: DeviceMetadataCacheTypeType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        model = self.model

        timezone = self.timezone

        source = self.source.value

        cache_type: None | str | Unset
        if isinstance(self.cache_type, Unset):
            cache_type = UNSET
        elif isinstance(self.cache_type, DeviceMetadataCacheTypeType0):
            cache_type = self.cache_type.value
        else:
            cache_type = self.cache_type

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "model": model,
                "timezone": timezone,
                "source": source,
            }
        )
        if cache_type is not UNSET:
            field_dict["cacheType"] = cache_type

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        model = d.pop("model")

        timezone = d.pop("timezone")

        source = DeviceMetadataSource(d.pop("source"))

        def _parse_cache_type(data: object) -> DeviceMetadataCacheTypeType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                cache_type_type_0 = DeviceMetadataCacheTypeType0(data)

                return cache_type_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DeviceMetadataCacheTypeType0 | None | Unset, data)

        cache_type = _parse_cache_type(d.pop("cacheType", UNSET))

        device_metadata = cls(
            model=model,
            timezone=timezone,
            source=source,
            cache_type=cache_type,
        )

        device_metadata.additional_properties = d
        return device_metadata

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
