"""Pydantic models of the webhook routes (CONTRACT 9), for request validation and the
OpenAPI document; responses are serialised by hand in `api/routes/webhooks.py`."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from energyhub.domain.webhooks import MAX_URL_LENGTH

EventName = Literal[
    "push.completed",
    "push.failed",
    "device.connected",
    "device.reconnected",
    "device.disconnected",
]
DeliveryStatusName = Literal["pending", "succeeded", "failed"]
DeliveryEventName = Literal[
    "push.completed",
    "push.failed",
    "device.connected",
    "device.reconnected",
    "device.disconnected",
    "webhook.test",
]

_H = "[0-9a-fA-F]{1,4}"
_IPV6 = "|".join(
    (
        f"({_H}:){{7}}{_H}",
        f"({_H}:){{1,7}}:",
        f"({_H}:){{1,6}}:{_H}",
        f"({_H}:){{1,5}}(:{_H}){{1,2}}",
        f"({_H}:){{1,4}}(:{_H}){{1,3}}",
        f"({_H}:){{1,3}}(:{_H}){{1,4}}",
        f"({_H}:){{1,2}}(:{_H}){{1,5}}",
        f"{_H}:(:{_H}){{1,6}}",
        f":((:{_H}){{1,7}}|:)",
    )
)
_OCTET = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_HOST = rf"(([A-Za-z0-9-]+\.)*[A-Za-z][A-Za-z0-9-]*|{_OCTET}(\.{_OCTET}){{3}}|\[({_IPV6})\])"
_PORT = "(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})"
URL_PATTERN = rf"^[hH][tT][tT][pP][sS]?://{_HOST}(:{_PORT})?([/?#][!-~]*)?$"
"""What `domain.webhooks.validate_endpoint_url` accepts, as a pattern the OpenAPI document can
carry: http(s), a host name (its last label starting with a letter), a dotted-quad IPv4 or
a bracketed IPv6 address, an optional port, printable ASCII after it, no credentials."""


class EndpointCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(
        min_length=1,
        max_length=MAX_URL_LENGTH,
        pattern=URL_PATTERN,
        description="http(s) URL that receives the events. Live endpoints reach public "
        "addresses only; sandbox ones, by default, this server's loopback too (the server's "
        "ENERGYHUB_PRIVATE_WEBHOOK_URLS decides). Checked at every delivery, after DNS; a host "
        "that is a forbidden address, or a live endpoint's name that resolves to one, is "
        "refused now: 422 WEBHOOK_URL_NOT_PUBLIC.",
    )
    description: str | None = Field(default=None, max_length=500)
    events: list[EventName] | None = Field(
        default=None,
        min_length=1,
        description="Only these events are sent to the endpoint; omit for every event.",
    )


class RotateSecret(BaseModel):
    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"expireOldNow": False}]}
    )

    expireOldNow: StrictBool = Field(
        default=False,
        description="Stop signing with the old secret at once (a leaked secret). By default "
        "it signs beside the new one for 24 hours: webhook-signature then carries "
        "`v1,<new> v1,<old>`, so receivers can switch without missing a delivery.",
    )


class WebhookEndpoint(BaseModel):
    id: str
    url: str
    description: str | None
    events: list[EventName] | None = Field(description="The filter; null: every event.")
    enabled: bool
    createdAt: str


class WebhookEndpointWithSecret(WebhookEndpoint):
    secret: str = Field(
        description="The whsec_ signing secret (Standard Webhooks); verify every request "
        "with it. Shown on creation and by rotate-secret only."
    )


class WebhookEndpoints(BaseModel):
    items: list[WebhookEndpoint]


class DeliveryAttempt(BaseModel):
    at: str
    httpStatus: int | None = Field(description="null when no HTTP answer came.")
    durationMs: int
    error: str | None = Field(description="Why the attempt failed; null on a 2xx.")


class WebhookDelivery(BaseModel):
    id: str = Field(description="The webhook-id header: the same on every attempt.")
    endpointId: str
    event: DeliveryEventName = Field(description="The x-event-type header.")
    status: DeliveryStatusName
    attempts: list[DeliveryAttempt]
    nextAttemptAt: str | None
    createdAt: str
    payload: dict[str, Any] = Field(description="The flat JSON body that is signed and sent.")
