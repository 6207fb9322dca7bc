"""Webhook endpoints and deliveries as the API manages them (CONTRACT 9): one use case, one
transaction. Sending lives in `services/webhook_sender.py`."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime

from energyhub.domain.accounts import Principal
from energyhub.domain.clock import Clock
from energyhub.domain.deliveries import WebhookDelivery, WebhookEndpoint
from energyhub.domain.errors import DeliveryNotFound, EndpointNotFound
from energyhub.domain.webhooks import (
    DeliveryStatus,
    EventType,
    new_signing_secret,
    validate_endpoint_url,
)
from energyhub.services.ids import prefixed_id
from energyhub.services.ports import UnitOfWork, UnitOfWorkFactory

log = logging.getLogger(__name__)


class WebhookService:
    def __init__(
        self,
        uow: UnitOfWorkFactory,
        clock: Clock,
        wake: Callable[[datetime | None], None] = lambda _due: None,
    ) -> None:
        """`wake(due_at)` tells the sender that a delivery is due (a resend)."""
        self._uow = uow
        self._clock = clock
        self._wake = wake

    # --- endpoints ------------------------------------------------------------------------
    async def create_endpoint(
        self,
        principal: Principal,
        url: str,
        description: str | None = None,
        events: Sequence[EventType] | None = None,
    ) -> WebhookEndpoint:
        """A new endpoint with a fresh `whsec_` secret; nothing is sent to it now."""
        endpoint = WebhookEndpoint(
            id=prefixed_id("we"),
            account_id=principal.account_id,
            environment=principal.environment.value,
            url=validate_endpoint_url(url),
            description=description,
            events=None if events is None else tuple(dict.fromkeys(str(e) for e in events)),
            secret=new_signing_secret(),
            enabled=True,
            created_at=self._clock.now(),
        )
        async with self._uow() as tx:
            await tx.webhooks.add_endpoint(endpoint)
        log.info(
            "webhook endpoint %s created (account %s, %s)",
            endpoint.id,
            endpoint.account_id,
            endpoint.environment,
        )
        return endpoint

    async def list_endpoints(self, principal: Principal) -> list[WebhookEndpoint]:
        async with self._uow() as tx:
            return await tx.webhooks.list_endpoints(
                principal.account_id, principal.environment.value
            )

    async def get_endpoint(self, principal: Principal, endpoint_id: str) -> WebhookEndpoint:
        async with self._uow() as tx:
            return await self._endpoint(tx, principal, endpoint_id)

    async def delete_endpoint(self, principal: Principal, endpoint_id: str) -> WebhookEndpoint:
        """The endpoint is gone from the API and gets nothing more; its past deliveries stay
        listed. Returns it as it was."""
        now = self._clock.now()
        async with self._uow() as tx:
            endpoint = await self._endpoint(tx, principal, endpoint_id)
            deleted = await tx.webhooks.delete_endpoint(
                principal.account_id, principal.environment.value, endpoint_id, now
            )
            if not deleted:  # deleted by a concurrent request
                raise EndpointNotFound()
        log.info("webhook endpoint %s deleted", endpoint_id)
        return replace(endpoint, deleted_at=now)

    async def rotate_secret(self, principal: Principal, endpoint_id: str) -> WebhookEndpoint:
        """A new secret signs every attempt from now on (retries of older events too)."""
        secret = new_signing_secret()
        async with self._uow() as tx:
            endpoint = await self._endpoint(tx, principal, endpoint_id)
            await tx.webhooks.set_secret(endpoint_id, secret)
        log.info("webhook endpoint %s: signing secret rotated", endpoint_id)
        return replace(endpoint, secret=secret)

    # --- deliveries -----------------------------------------------------------------------
    async def list_deliveries(
        self,
        principal: Principal,
        endpoint_id: str | None,
        status: DeliveryStatus | None,
        offset: int,
        limit: int,
    ) -> tuple[list[WebhookDelivery], int]:
        """Newest first, optionally of one endpoint (deleted ones included) or one status."""
        async with self._uow() as tx:
            return await tx.webhooks.list_deliveries(
                principal.account_id,
                principal.environment.value,
                endpoint_id,
                None if status is None else status.value,
                offset,
                limit,
            )

    async def get_delivery(self, principal: Principal, delivery_id: str) -> WebhookDelivery:
        async with self._uow() as tx:
            return await self._delivery(tx, principal, delivery_id)

    async def resend(self, principal: Principal, delivery_id: str) -> WebhookDelivery:
        """One more attempt now, with the same `webhook-id` and body. A delivery that had
        ended gets that one attempt (no retries after it); a pending one has its next
        attempt brought forward and keeps its schedule."""
        now = self._clock.now()
        async with self._uow() as tx:
            delivery = await self._delivery(tx, principal, delivery_id)
            endpoint = await tx.webhooks.get_endpoint(
                principal.account_id, principal.environment.value, delivery.endpoint_id
            )
            if endpoint is None:
                raise EndpointNotFound(
                    "This delivery's webhook endpoint was deleted: it cannot be resent."
                )
            await tx.webhooks.request_attempt(delivery_id, now)
        self._wake(now)
        return replace(delivery, next_attempt_at=now, updated_at=now)

    # --- helpers --------------------------------------------------------------------------
    @staticmethod
    async def _endpoint(tx: UnitOfWork, principal: Principal, endpoint_id: str) -> WebhookEndpoint:
        endpoint = await tx.webhooks.get_endpoint(
            principal.account_id, principal.environment.value, endpoint_id
        )
        if endpoint is None:
            raise EndpointNotFound()
        return endpoint

    @staticmethod
    async def _delivery(tx: UnitOfWork, principal: Principal, delivery_id: str) -> WebhookDelivery:
        delivery = await tx.webhooks.get_delivery(
            principal.account_id, principal.environment.value, delivery_id
        )
        if delivery is None:
            raise DeliveryNotFound()
        return delivery
