"""Webhook endpoints and deliveries as the API manages them (CONTRACT 9): one use case, one
transaction. Sending lives in `services/webhook_sender.py`."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime

import orjson

from energyhub.domain.accounts import Principal
from energyhub.domain.clock import Clock, isoformat_utc
from energyhub.domain.deliveries import WebhookDelivery, WebhookEndpoint
from energyhub.domain.errors import DeliveryNotFound, EndpointLimitReached, EndpointNotFound
from energyhub.domain.webhook_reach import (
    PrivateWebhookUrls,
    Reach,
    check_endpoint_url_reach,
    check_resolved_reach,
    endpoint_reach,
    host_to_resolve,
)
from energyhub.domain.webhooks import (
    ROTATION_OVERLAP,
    SECRET_PREFIX,
    TEST_EVENT,
    DeliveryStatus,
    EventType,
    new_signing_secret,
    previous_secret_in_use,
    validate_endpoint_url,
    webhook_test_body,
)
from energyhub.ports.secrets import Cipher
from energyhub.ports.storage import UnitOfWork, UnitOfWorkFactory
from energyhub.ports.webhooks import HostLookup
from energyhub.services.ids import prefixed_id

log = logging.getLogger(__name__)

MAX_ENDPOINTS = 20
"""Endpoints an account may have per environment (ENERGYHUB_WEBHOOK_MAX_ENDPOINTS): each event
becomes a delivery per endpoint, so this bounds what one event costs the sender."""


def open_signing_secret(cipher: Cipher, stored: str) -> str:
    """A stored signing secret in the clear. Secrets are stored encrypted; one stored before
    they were (it starts `whsec_`) is used as it is until `energyhub secrets rotate`."""
    return stored if stored.startswith(SECRET_PREFIX) else cipher.open_text(stored)


class WebhookService:
    def __init__(
        self,
        uow: UnitOfWorkFactory,
        clock: Clock,
        cipher: Cipher,
        wake: Callable[[datetime | None], None] = lambda _due: None,
        *,
        private_urls: PrivateWebhookUrls = PrivateWebhookUrls.SANDBOX,
        max_endpoints: int = MAX_ENDPOINTS,
        lookup: HostLookup | None = None,
    ) -> None:
        """`cipher` encrypts the signing secrets at rest; `wake(due_at)` tells the sender
        that a delivery is due (a resend); `private_urls` is ENERGYHUB_PRIVATE_WEBHOOK_URLS;
        `max_endpoints` (ENERGYHUB_WEBHOOK_MAX_ENDPOINTS) caps an environment's endpoints;
        `lookup` resolves a live endpoint's host name at creation (None: not looked up)."""
        self._lookup = lookup
        self._uow = uow
        self._clock = clock
        self._cipher = cipher
        self._wake = wake
        self._private_urls = private_urls
        self._max_endpoints = max_endpoints

    # --- endpoints ------------------------------------------------------------------------
    async def create_endpoint(
        self,
        principal: Principal,
        url: str,
        description: str | None = None,
        events: Sequence[EventType] | None = None,
    ) -> WebhookEndpoint:
        """A new endpoint with a fresh `whsec_` secret; nothing is sent to it now. A URL whose
        host is an address the endpoint may not reach is refused now (names at delivery), and
        so is an endpoint over the environment's cap."""
        url = validate_endpoint_url(url)
        reach = endpoint_reach(self._private_urls, principal.environment.value)
        check_endpoint_url_reach(url, reach)
        await self._check_resolved(url, reach, principal.environment.value)
        endpoint = WebhookEndpoint(
            id=prefixed_id("we"),
            account_id=principal.account_id,
            environment=principal.environment.value,
            url=url,
            description=description,
            events=None if events is None else tuple(dict.fromkeys(str(e) for e in events)),
            secret=new_signing_secret(),
            enabled=True,
            created_at=self._clock.now(),
        )
        async with self._uow() as tx:
            count = await tx.webhooks.count_endpoints(endpoint.account_id, endpoint.environment)
            if count >= self._max_endpoints:
                raise EndpointLimitReached(
                    f"This environment already has {count} webhook endpoints, the most "
                    f"allowed ({self._max_endpoints}): delete one you no longer use, or let one "
                    "endpoint receive more event types, before adding another.",
                    limit=self._max_endpoints,
                )
            await tx.webhooks.add_endpoint(self._sealed(endpoint))
        log.info(
            "webhook endpoint %s created (account %s, %s)",
            endpoint.id,
            endpoint.account_id,
            endpoint.environment,
        )
        return endpoint

    async def list_endpoints(self, principal: Principal) -> list[WebhookEndpoint]:
        async with self._uow() as tx:
            listed = await tx.webhooks.list_endpoints(
                principal.account_id, principal.environment.value
            )
        return [self._opened(e) for e in listed]

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

    async def rotate_secret(
        self, principal: Principal, endpoint_id: str, *, expire_old_now: bool = False
    ) -> WebhookEndpoint:
        """A new secret signs every attempt from now on (retries of older events too). For
        `ROTATION_OVERLAP` the old one signs beside it (two signatures), so receivers can
        switch when they like; `expire_old_now` drops it at once (a leaked secret)."""
        secret = new_signing_secret()
        now = self._clock.now()
        async with self._uow() as tx:
            stored = await tx.webhooks.get_endpoint(
                principal.account_id, principal.environment.value, endpoint_id
            )
            if stored is None:
                raise EndpointNotFound()
            endpoint = self._opened(stored)
            await tx.webhooks.set_secret(endpoint_id, self._cipher.seal_text(secret))
            previous = None if expire_old_now else stored.secret
            expires = None if expire_old_now else now + ROTATION_OVERLAP
            await tx.webhooks.set_previous_secret(endpoint_id, previous, expires)
        log.info(
            "webhook endpoint %s: signing secret rotated%s",
            endpoint_id,
            " (old one expired at once)" if expire_old_now else "",
        )
        return replace(
            endpoint,
            secret=secret,
            previous_secret=None if previous is None else endpoint.secret,
            previous_secret_expires_at=expires,
        )

    async def send_test(self, principal: Principal, endpoint_id: str) -> WebhookDelivery:
        """A `webhook.test` delivery to one endpoint, due now (no sandbox delay), signed,
        retried and listed like any other."""
        now = self._clock.now()
        async with self._uow() as tx:
            endpoint = await self._endpoint(tx, principal, endpoint_id)
            body = orjson.dumps(webhook_test_body(endpoint.id, isoformat_utc(now))).decode()
            delivery = WebhookDelivery(
                id=prefixed_id("msg"),
                event_id=prefixed_id("evt"),
                endpoint_id=endpoint.id,
                account_id=endpoint.account_id,
                environment=endpoint.environment,
                event_type=TEST_EVENT,
                body=body,
                status=DeliveryStatus.PENDING,
                attempts=(),
                next_attempt_at=now,
                created_at=now,
                updated_at=now,
            )
            await tx.webhooks.add_deliveries([delivery])
        self._wake(now)
        log.info("webhook endpoint %s: test delivery %s queued", endpoint_id, delivery.id)
        return delivery

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

    async def reseal_secrets(self, batch: int = 200) -> int:
        """Encrypts every stored signing secret again with the first configured key (and
        those stored in the clear before secrets were encrypted), so older keys can be
        dropped from ENERGYHUB_SECRET_KEY. Returns how many."""
        count, after = 0, 0
        while True:
            async with self._uow() as tx:
                page = await tx.webhooks.secrets_page(after, batch)
                now = self._clock.now()
                for _, endpoint_id, stored, previous, expires in page:
                    await tx.webhooks.set_secret(endpoint_id, self._resealed(stored))
                    if previous is not None:  # an expired one is dropped, not resealed
                        kept = previous_secret_in_use(previous, expires, now)
                        await tx.webhooks.set_previous_secret(
                            endpoint_id,
                            None if kept is None else self._resealed(kept),
                            None if kept is None else expires,
                        )
            if not page:
                return count
            count += len(page)
            after = page[-1][0]

    # --- helpers --------------------------------------------------------------------------
    async def _check_resolved(self, url: str, reach: Reach, environment: str) -> None:
        """A live endpoint's host name must not resolve to an address it may not reach."""
        host = host_to_resolve(url)
        if self._lookup is None or host is None or environment != "live" or reach is Reach.ANY:
            return
        check_resolved_reach(host, await self._lookup.addresses(host), reach)

    def _resealed(self, stored: str) -> str:
        if stored.startswith(SECRET_PREFIX):
            return self._cipher.seal_text(stored)
        return self._cipher.rotate(stored)

    def _sealed(self, endpoint: WebhookEndpoint) -> WebhookEndpoint:
        return replace(endpoint, secret=self._cipher.seal_text(endpoint.secret))

    def _opened(self, endpoint: WebhookEndpoint) -> WebhookEndpoint:
        """The endpoint with its secrets in the clear (the old one only while it signs)."""
        previous = previous_secret_in_use(
            endpoint.previous_secret, endpoint.previous_secret_expires_at, self._clock.now()
        )
        return replace(
            endpoint,
            secret=open_signing_secret(self._cipher, endpoint.secret),
            previous_secret=None
            if previous is None
            else open_signing_secret(self._cipher, previous),
            previous_secret_expires_at=None
            if previous is None
            else endpoint.previous_secret_expires_at,
        )

    async def _endpoint(
        self, tx: UnitOfWork, principal: Principal, endpoint_id: str
    ) -> WebhookEndpoint:
        endpoint = await tx.webhooks.get_endpoint(
            principal.account_id, principal.environment.value, endpoint_id
        )
        if endpoint is None:
            raise EndpointNotFound()
        return self._opened(endpoint)

    @staticmethod
    async def _delivery(tx: UnitOfWork, principal: Principal, delivery_id: str) -> WebhookDelivery:
        delivery = await tx.webhooks.get_delivery(
            principal.account_id, principal.environment.value, delivery_id
        )
        if delivery is None:
            raise DeliveryNotFound()
        return delivery
