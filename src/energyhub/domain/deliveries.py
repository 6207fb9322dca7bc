"""Webhook endpoints and deliveries as records, and what one attempt does to a delivery
(CONTRACT 9). Pure: the sender and the repositories live in services/ and persistence/."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from energyhub.domain.clock import isoformat_utc
from energyhub.domain.webhooks import DeliveryStatus, retry_delay


@dataclass(frozen=True, slots=True)
class WebhookEndpoint:
    """A receiver of one account's events in one environment. `events` None: every event."""

    id: str
    account_id: str
    environment: str
    url: str
    description: str | None
    events: tuple[str, ...] | None
    secret: str = field(repr=False)  # never in a log line, not even through a repr
    enabled: bool
    created_at: datetime
    deleted_at: datetime | None = None
    previous_secret: str | None = field(default=None, repr=False)
    """The secret before the last rotation: it signs too until `previous_secret_expires_at`."""
    previous_secret_expires_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class WebhookDelivery:
    """One event for one endpoint. `id` is the `webhook-id` header, the same on every
    attempt; `body` the exact text that is signed and sent each time. `attempts` are stored
    in the shape the API shows: `{at, httpStatus, durationMs, error}`."""

    id: str
    event_id: str
    endpoint_id: str
    account_id: str
    environment: str
    event_type: str
    body: str
    status: DeliveryStatus
    attempts: tuple[dict[str, Any], ...]
    next_attempt_at: datetime | None
    created_at: datetime
    updated_at: datetime
    response_body: str | None = None
    """What the receiver answered to the latest attempt, cut at `RESPONSE_BODY_CHARS`."""


RESPONSE_BODY_CHARS = 2000
"""How much of a receiver's answer is kept: enough to read an error page's point."""


@dataclass(frozen=True, slots=True)
class DueDelivery:
    """A delivery a sender holds the lease of, with what sending it needs. `deliverable` is
    false when its endpoint was deleted or disabled since: it is then ended, not sent."""

    delivery: WebhookDelivery
    url: str
    secret: str = field(repr=False)
    deliverable: bool = True
    previous_secret: str | None = field(default=None, repr=False)
    """The endpoint's old secret while it still signs beside `secret` (after a rotation)."""


def attempt_json(
    at: datetime, http_status: int | None, duration_ms: int, error: str | None
) -> dict[str, Any]:
    """One entry of a delivery's `attempts`."""
    return {
        "at": isoformat_utc(at),
        "httpStatus": http_status,
        "durationMs": duration_ms,
        "error": error,
    }


def after_attempt(
    status_before: DeliveryStatus,
    attempts_made: int,
    succeeded: bool,
    now: datetime,
    schedule: Sequence[float],
    rng: random.Random,
) -> tuple[DeliveryStatus, datetime | None]:
    """The delivery's status and next attempt once an attempt has been made (`attempts_made`
    counts it). A 2xx ends it `succeeded`. A failure of a pending delivery is retried after
    the schedule's next delay, or ends it `failed` when the schedule is exhausted. A failed
    resend of a delivery that had already ended leaves it `failed` without more retries."""
    if succeeded:
        return DeliveryStatus.SUCCEEDED, None
    if status_before is not DeliveryStatus.PENDING:
        return DeliveryStatus.FAILED, None
    delay = retry_delay(attempts_made, schedule, rng)
    if delay is None:
        return DeliveryStatus.FAILED, None
    return DeliveryStatus.PENDING, now + timedelta(seconds=delay)
