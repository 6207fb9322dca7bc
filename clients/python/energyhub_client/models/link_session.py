from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="LinkSession")


@_attrs_define
class LinkSession:
    """
    Attributes:
        link_url (str): Send the end user here: the hosted Link UI.
        link_token (str): Single use; shown once.
        expires_at (str):
    """

    link_url: str
    link_token: str
    expires_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        link_url = self.link_url

        link_token = self.link_token

        expires_at = self.expires_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "linkUrl": link_url,
                "linkToken": link_token,
                "expiresAt": expires_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        link_url = d.pop("linkUrl")

        link_token = d.pop("linkToken")

        expires_at = d.pop("expiresAt")

        link_session = cls(
            link_url=link_url,
            link_token=link_token,
            expires_at=expires_at,
        )

        link_session.additional_properties = d
        return link_session

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
