from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.linked_account_device_type_type_0 import LinkedAccountDeviceTypeType0
from ..models.linked_account_status import LinkedAccountStatus

T = TypeVar("T", bound="LinkedAccount")


@_attrs_define
class LinkedAccount:
    """
    Attributes:
        id (str):
        user_id (str):
        vendor (str):
        vendor_name (str):
        device_type (LinkedAccountDeviceTypeType0 | None):
        status (LinkedAccountStatus):
        created_at (str):
        revoked_at (None | str):
        device_ids (list[str]):
    """

    id: str
    user_id: str
    vendor: str
    vendor_name: str
    device_type: LinkedAccountDeviceTypeType0 | None
    status: LinkedAccountStatus
    created_at: str
    revoked_at: None | str
    device_ids: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        user_id = self.user_id

        vendor = self.vendor

        vendor_name = self.vendor_name

        device_type: None | str
        if isinstance(self.device_type, LinkedAccountDeviceTypeType0):
            device_type = self.device_type.value
        else:
            device_type = self.device_type

        status = self.status.value

        created_at = self.created_at

        revoked_at: None | str
        revoked_at = self.revoked_at

        device_ids = self.device_ids

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "userId": user_id,
                "vendor": vendor,
                "vendorName": vendor_name,
                "deviceType": device_type,
                "status": status,
                "createdAt": created_at,
                "revokedAt": revoked_at,
                "deviceIds": device_ids,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        user_id = d.pop("userId")

        vendor = d.pop("vendor")

        vendor_name = d.pop("vendorName")

        def _parse_device_type(data: object) -> LinkedAccountDeviceTypeType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                device_type_type_0 = LinkedAccountDeviceTypeType0(data)

                return device_type_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LinkedAccountDeviceTypeType0 | None, data)

        device_type = _parse_device_type(d.pop("deviceType"))

        status = LinkedAccountStatus(d.pop("status"))

        created_at = d.pop("createdAt")

        def _parse_revoked_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        revoked_at = _parse_revoked_at(d.pop("revokedAt"))

        device_ids = cast(list[str], d.pop("deviceIds"))

        linked_account = cls(
            id=id,
            user_id=user_id,
            vendor=vendor,
            vendor_name=vendor_name,
            device_type=device_type,
            status=status,
            created_at=created_at,
            revoked_at=revoked_at,
            device_ids=device_ids,
        )

        linked_account.additional_properties = d
        return linked_account

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
