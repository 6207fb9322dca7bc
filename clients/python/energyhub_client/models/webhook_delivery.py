from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.webhook_delivery_event import WebhookDeliveryEvent
from ..models.webhook_delivery_status import WebhookDeliveryStatus

if TYPE_CHECKING:
    from ..models.delivery_attempt import DeliveryAttempt
    from ..models.webhook_delivery_payload import WebhookDeliveryPayload


T = TypeVar("T", bound="WebhookDelivery")


@_attrs_define
class WebhookDelivery:
    """
    Attributes:
        id (str): The webhook-id header: the same on every attempt.
        endpoint_id (str):
        event (WebhookDeliveryEvent): The x-event-type header.
        status (WebhookDeliveryStatus):
        attempts (list[DeliveryAttempt]):
        next_attempt_at (None | str):
        created_at (str):
        payload (WebhookDeliveryPayload): The flat JSON body that is signed and sent.
    """

    id: str
    endpoint_id: str
    event: WebhookDeliveryEvent
    status: WebhookDeliveryStatus
    attempts: list[DeliveryAttempt]
    next_attempt_at: None | str
    created_at: str
    payload: WebhookDeliveryPayload
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        endpoint_id = self.endpoint_id

        event = self.event.value

        status = self.status.value

        attempts = []
        for attempts_item_data in self.attempts:
            attempts_item = attempts_item_data.to_dict()
            attempts.append(attempts_item)

        next_attempt_at: None | str
        next_attempt_at = self.next_attempt_at

        created_at = self.created_at

        payload = self.payload.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "endpointId": endpoint_id,
                "event": event,
                "status": status,
                "attempts": attempts,
                "nextAttemptAt": next_attempt_at,
                "createdAt": created_at,
                "payload": payload,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.delivery_attempt import DeliveryAttempt  # noqa: PLC0415
        from ..models.webhook_delivery_payload import WebhookDeliveryPayload  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        endpoint_id = d.pop("endpointId")

        event = WebhookDeliveryEvent(d.pop("event"))

        status = WebhookDeliveryStatus(d.pop("status"))

        attempts = []
        _attempts = d.pop("attempts")
        for attempts_item_data in _attempts:
            attempts_item = DeliveryAttempt.from_dict(attempts_item_data)

            attempts.append(attempts_item)

        def _parse_next_attempt_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("nextAttemptAt"))

        created_at = d.pop("createdAt")

        payload = WebhookDeliveryPayload.from_dict(d.pop("payload"))

        webhook_delivery = cls(
            id=id,
            endpoint_id=endpoint_id,
            event=event,
            status=status,
            attempts=attempts,
            next_attempt_at=next_attempt_at,
            created_at=created_at,
            payload=payload,
        )

        webhook_delivery.additional_properties = d
        return webhook_delivery

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
