from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.endpoint_create_events_type_0_item import EndpointCreateEventsType0Item
from ..types import UNSET, Unset

T = TypeVar("T", bound="EndpointCreate")


@_attrs_define
class EndpointCreate:
    """
    Attributes:
        url (str): http(s) URL that receives the events. Live endpoints reach public addresses only; sandbox ones, by
            default, this server's loopback too (the server's ENERGYHUB_PRIVATE_WEBHOOK_URLS decides). Checked at every
            delivery, after DNS; a host that is a forbidden address, or a live endpoint's name that resolves to one, is
            refused now: 422 WEBHOOK_URL_NOT_PUBLIC.
        description (None | str | Unset):
        events (list[EndpointCreateEventsType0Item] | None | Unset): Only these events are sent to the endpoint; omit
            for every event.
    """

    url: str
    description: None | str | Unset = UNSET
    events: list[EndpointCreateEventsType0Item] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        url = self.url

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        events: list[str] | None | Unset
        if isinstance(self.events, Unset):
            events = UNSET
        elif isinstance(self.events, list):
            events = []
            for events_type_0_item_data in self.events:
                events_type_0_item = events_type_0_item_data.value
                events.append(events_type_0_item)

        else:
            events = self.events

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "url": url,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if events is not UNSET:
            field_dict["events"] = events

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        url = d.pop("url")

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_events(data: object) -> list[EndpointCreateEventsType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                events_type_0 = []
                _events_type_0 = data
                for events_type_0_item_data in _events_type_0:
                    events_type_0_item = EndpointCreateEventsType0Item(events_type_0_item_data)

                    events_type_0.append(events_type_0_item)

                return events_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[EndpointCreateEventsType0Item] | None | Unset, data)

        events = _parse_events(d.pop("events", UNSET))

        endpoint_create = cls(
            url=url,
            description=description,
            events=events,
        )

        return endpoint_create
