from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.link_session_create_vendor import LinkSessionCreateVendor
from ..types import UNSET, Unset

T = TypeVar("T", bound="LinkSessionCreate")


@_attrs_define
class LinkSessionCreate:
    """
    Attributes:
        user_id (str): Your id of the end user.
        email (None | str | Unset):
        redirect_uri (None | str | Unset): Where the flow sends the user when it ends, with the outcome added to the
            query: `status=success&linkedAccountId=...`, `status=revoked&linkedAccountId=...`, or
            `status=error&error=user_cancelled|consent_denied|link_expired`.
        vendor (LinkSessionCreateVendor | Unset): Start the flow at this vendor's sign-in; omit to let the user choose.
            Sandbox keys link the `sandbox-*` vendors, live keys `ocpp` and `sunspec` (403 `SANDBOX_ONLY` / `LIVE_ONLY`
            otherwise).
    """

    user_id: str
    email: None | str | Unset = UNSET
    redirect_uri: None | str | Unset = UNSET
    vendor: LinkSessionCreateVendor | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        user_id = self.user_id

        email: None | str | Unset
        if isinstance(self.email, Unset):
            email = UNSET
        else:
            email = self.email

        redirect_uri: None | str | Unset
        if isinstance(self.redirect_uri, Unset):
            redirect_uri = UNSET
        else:
            redirect_uri = self.redirect_uri

        vendor: str | Unset = UNSET
        if not isinstance(self.vendor, Unset):
            vendor = self.vendor.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "userId": user_id,
            }
        )
        if email is not UNSET:
            field_dict["email"] = email
        if redirect_uri is not UNSET:
            field_dict["redirectUri"] = redirect_uri
        if vendor is not UNSET:
            field_dict["vendor"] = vendor

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        user_id = d.pop("userId")

        def _parse_email(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        email = _parse_email(d.pop("email", UNSET))

        def _parse_redirect_uri(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        redirect_uri = _parse_redirect_uri(d.pop("redirectUri", UNSET))

        _vendor = d.pop("vendor", UNSET)
        vendor: LinkSessionCreateVendor | Unset
        if isinstance(_vendor, Unset):
            vendor = UNSET
        else:
            vendor = LinkSessionCreateVendor(_vendor)

        link_session_create = cls(
            user_id=user_id,
            email=email,
            redirect_uri=redirect_uri,
            vendor=vendor,
        )

        return link_session_create
