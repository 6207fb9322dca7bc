"""Webhook endpoints and deliveries: spec 6; CONTRACT 9."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Path, Query
from starlette.responses import Response

from energyhub.api.deps import Caller, Context, Services
from energyhub.api.envelope import success_response
from energyhub.api.representations import pagination
from energyhub.api.routes.devices import Limit, Offset
from energyhub.api.schemas import Envelope, ErrorEnvelope, Page
from energyhub.api.webhook_schemas import (
    DeliveryStatusName,
    EndpointCreate,
    RotateSecret,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEndpoints,
    WebhookEndpointWithSecret,
)
from energyhub.domain import deliveries
from energyhub.domain.clock import isoformat_utc
from energyhub.domain.webhooks import DeliveryStatus, EventType

router = APIRouter(prefix="/webhooks", tags=["webhooks"])

ResourceId = Annotated[str, Path(min_length=1, max_length=64)]
ENDPOINT_NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {
        "model": ErrorEnvelope,
        "description": "ENDPOINT_NOT_FOUND: no webhook endpoint with this id in this "
        "environment (or it was deleted)",
    }
}
DELIVERY_NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {
        "model": ErrorEnvelope,
        "description": "DELIVERY_NOT_FOUND: no delivery with this id in this environment; "
        "ENDPOINT_NOT_FOUND on resend when its endpoint was deleted",
    }
}


def endpoint_body(endpoint: deliveries.WebhookEndpoint, *, secret: bool = False) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": endpoint.id,
        "url": endpoint.url,
        "description": endpoint.description,
        "events": None if endpoint.events is None else list(endpoint.events),
        "enabled": endpoint.enabled,
        "createdAt": isoformat_utc(endpoint.created_at),
    }
    if secret:
        body["secret"] = endpoint.secret
    return body


def delivery_body(delivery: deliveries.WebhookDelivery) -> dict[str, Any]:
    """The delivery record (CONTRACT 9); nulls are sent, not omitted."""
    return {
        "id": delivery.id,
        "endpointId": delivery.endpoint_id,
        "event": delivery.event_type,
        "status": delivery.status.value,
        "attempts": list(delivery.attempts),
        "nextAttemptAt": _at(delivery.next_attempt_at),
        "createdAt": isoformat_utc(delivery.created_at),
        "payload": orjson.loads(delivery.body),
    }


def _at(value: datetime | None) -> str | None:
    return None if value is None else isoformat_utc(value)


@router.post(
    "/endpoints",
    status_code=201,
    response_model=Envelope[WebhookEndpointWithSecret],
    responses={
        422: {
            "model": ErrorEnvelope,
            "description": "ENDPOINT_LIMIT_REACHED: this environment already has as many "
            "endpoints as allowed (ENERGYHUB_WEBHOOK_MAX_ENDPOINTS, default 20; "
            "details.limit): delete one first. WEBHOOK_URL_NOT_PUBLIC: the URL's host is an "
            "address this endpoint may not reach (details.host, details.allowed): use a "
            "public host name or address",
        }
    },
    operation_id="createWebhookEndpoint",
    summary="Register a webhook endpoint",
)
async def create_endpoint(
    body: EndpointCreate, services: Services, context: Context, caller: Caller
) -> Response:
    """Register an endpoint for this key's environment. The answer carries its `whsec_`
    secret; no request is sent to the endpoint now."""
    events = None if body.events is None else [EventType(e) for e in body.events]
    endpoint = await services.webhooks.create_endpoint(caller, body.url, body.description, events)
    data = endpoint_body(endpoint, secret=True)
    return success_response(data, context, caller.environment.value, services.clock, 201)


@router.get(
    "/endpoints",
    response_model=Envelope[WebhookEndpoints],
    operation_id="listWebhookEndpoints",
    summary="List webhook endpoints",
)
async def list_endpoints(services: Services, context: Context, caller: Caller) -> Response:
    """This environment's endpoints, oldest first (without their secrets)."""
    found = await services.webhooks.list_endpoints(caller)
    data = {"items": [endpoint_body(e) for e in found]}
    return success_response(data, context, caller.environment.value, services.clock)


@router.get(
    "/endpoints/{endpointId}",
    response_model=Envelope[WebhookEndpoint],
    responses=ENDPOINT_NOT_FOUND,
    operation_id="getWebhookEndpoint",
    summary="Read a webhook endpoint",
)
async def get_endpoint(
    services: Services, context: Context, caller: Caller, endpointId: ResourceId
) -> Response:
    """One endpoint (without its secret)."""
    endpoint = await services.webhooks.get_endpoint(caller, endpointId)
    return success_response(
        endpoint_body(endpoint), context, caller.environment.value, services.clock
    )


@router.delete(
    "/endpoints/{endpointId}",
    response_model=Envelope[WebhookEndpoint],
    responses=ENDPOINT_NOT_FOUND,
    operation_id="deleteWebhookEndpoint",
    summary="Delete a webhook endpoint",
)
async def delete_endpoint(
    services: Services, context: Context, caller: Caller, endpointId: ResourceId
) -> Response:
    """Delete an endpoint: it gets nothing more, retries waiting for it end `failed`, and its
    past deliveries stay listed. Answers the endpoint as it was."""
    endpoint = await services.webhooks.delete_endpoint(caller, endpointId)
    return success_response(
        endpoint_body(endpoint), context, caller.environment.value, services.clock
    )


@router.post(
    "/endpoints/{endpointId}/rotate-secret",
    response_model=Envelope[WebhookEndpointWithSecret],
    responses=ENDPOINT_NOT_FOUND,
    operation_id="rotateWebhookSecret",
    summary="Rotate a webhook endpoint's signing secret",
)
async def rotate_secret(
    services: Services,
    context: Context,
    caller: Caller,
    endpointId: ResourceId,
    body: RotateSecret | None = None,
) -> Response:
    """Replace the signing secret: every attempt from now on, retries included, is signed
    with the new one, which the answer carries. For 24 hours the old secret signs too
    (`webhook-signature: v1,<new> v1,<old>`), unless `expireOldNow` is true."""
    expire = body is not None and body.expireOldNow
    endpoint = await services.webhooks.rotate_secret(caller, endpointId, expire_old_now=expire)
    data = endpoint_body(endpoint, secret=True)
    return success_response(data, context, caller.environment.value, services.clock)


@router.post(
    "/endpoints/{endpointId}/test",
    status_code=202,
    response_model=Envelope[WebhookDelivery],
    responses=ENDPOINT_NOT_FOUND,
    operation_id="sendWebhookTestEvent",
    summary="Send a test event to a webhook endpoint",
)
async def send_test_event(
    services: Services, context: Context, caller: Caller, endpointId: ResourceId
) -> Response:
    """Send a test event now (no sandbox delay): a signed `{"endpointId", "sentAt",
    "test": true}` with `x-event-type: webhook.test`, listed and retried like any delivery.
    202 with the delivery; its attempts show how the endpoint answered."""
    delivery = await services.webhooks.send_test(caller, endpointId)
    return success_response(
        delivery_body(delivery), context, caller.environment.value, services.clock, 202
    )


@router.get(
    "/deliveries",
    response_model=Envelope[Page[WebhookDelivery]],
    operation_id="listWebhookDeliveries",
    summary="List webhook deliveries",
)
async def list_deliveries(
    services: Services,
    context: Context,
    caller: Caller,
    endpoint_id: Annotated[str | None, Query(alias="endpointId", max_length=64)] = None,
    status: DeliveryStatusName | None = None,
    offset: Offset = 0,
    limit: Limit = 10,
) -> Response:
    """Deliveries, newest first, optionally of one endpoint or in one status."""
    found, total = await services.webhooks.list_deliveries(
        caller,
        endpoint_id,
        None if status is None else DeliveryStatus(status),
        offset,
        limit,
    )
    data = {
        "items": [delivery_body(d) for d in found],
        "pagination": pagination(offset, limit, total),
    }
    return success_response(data, context, caller.environment.value, services.clock)


@router.get(
    "/deliveries/{deliveryId}",
    response_model=Envelope[WebhookDelivery],
    responses=DELIVERY_NOT_FOUND,
    operation_id="getWebhookDelivery",
    summary="Read a webhook delivery",
)
async def get_delivery(
    services: Services, context: Context, caller: Caller, deliveryId: ResourceId
) -> Response:
    """One delivery with every attempt made."""
    delivery = await services.webhooks.get_delivery(caller, deliveryId)
    return success_response(
        delivery_body(delivery), context, caller.environment.value, services.clock
    )


@router.post(
    "/deliveries/{deliveryId}/resend",
    status_code=202,
    response_model=Envelope[WebhookDelivery],
    responses=DELIVERY_NOT_FOUND,
    operation_id="resendWebhookDelivery",
    summary="Send a webhook delivery again",
)
async def resend_delivery(
    services: Services, context: Context, caller: Caller, deliveryId: ResourceId
) -> Response:
    """One more attempt now, with the same webhook-id and body (202: it is made in the
    background). A delivery that had ended gets that one attempt, without retries after."""
    delivery = await services.webhooks.resend(caller, deliveryId)
    return success_response(
        delivery_body(delivery), context, caller.environment.value, services.clock, 202
    )
