"""Webhook endpoints, the outbox's fan-out and the delivery queue in SQL.

Deliveries are due work (DESIGN "Due work is rows"): a sender claims due rows with a lease
(`FOR UPDATE SKIP LOCKED` on PostgreSQL; SQLite has one writer), sends outside any
transaction, and records the attempt only while it still holds the lease."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from energyhub.domain.deliveries import DueDelivery, WebhookDelivery, WebhookEndpoint
from energyhub.domain.events import OutboxEvent
from energyhub.domain.webhooks import DeliveryStatus, EventType, previous_secret_in_use
from energyhub.persistence.paging import page_of
from energyhub.persistence.tables import (
    accounts,
    webhook_deliveries,
    webhook_endpoints,
    webhook_events,
)

E = webhook_endpoints
D = webhook_deliveries
EV = webhook_events
INSERT_DELIVERY = D.insert()
RECORD_ATTEMPT = (
    update(D)
    .where(D.c.id == bindparam("row_id"), D.c.lease_owner == bindparam("owner"))
    .values(
        status=bindparam("status"),
        attempts=bindparam("attempts", type_=D.c.attempts.type),
        next_attempt_at=bindparam("next_attempt_at", type_=D.c.next_attempt_at.type),
        updated_at=bindparam("updated_at", type_=D.c.updated_at.type),
        response_body=bindparam("response_body", type_=D.c.response_body.type),
        lease_owner=None,
        lease_until=None,
    )
)
PENDING = DeliveryStatus.PENDING.value
# min(max(next_attempt_at, lease_until)) over rows with `next_attempt_at`, split by which of
# the two is later so each half is the first row of an index (ix_webhook_deliveries_
# next_attempt_at, ix_webhook_deliveries_lease_until); and the first event to fan out.
NEXT_DUE = select(
    select(EV.c.deliver_after)
    .where(EV.c.fanned_out_at.is_(None))
    .order_by(EV.c.deliver_after)
    .limit(1)
    .scalar_subquery(),
    select(D.c.next_attempt_at)
    .where(
        D.c.next_attempt_at.is_not(None),
        or_(D.c.lease_until.is_(None), D.c.lease_until <= D.c.next_attempt_at),
    )
    .order_by(D.c.next_attempt_at)
    .limit(1)
    .scalar_subquery(),
    select(D.c.lease_until)
    .where(
        D.c.lease_until.is_not(None),
        D.c.next_attempt_at.is_not(None),
        D.c.lease_until > D.c.next_attempt_at,
    )
    .order_by(D.c.lease_until)
    .limit(1)
    .scalar_subquery(),
)
SecretsRow = tuple[int, str, str, str | None, datetime | None]


def endpoint_from_row(row: Mapping[Any, Any]) -> WebhookEndpoint:
    events = row["events"]
    return WebhookEndpoint(
        id=row["id"],
        account_id=row["account_id"],
        environment=row["environment"],
        url=row["url"],
        description=row["description"],
        events=None if events is None else tuple(events),
        secret=row["secret"],
        enabled=row["enabled"],
        created_at=row["created_at"],
        deleted_at=row["deleted_at"],
        previous_secret=row["previous_secret"],
        previous_secret_expires_at=row["previous_secret_expires_at"],
    )


def delivery_from_row(row: Mapping[Any, Any]) -> WebhookDelivery:
    return WebhookDelivery(
        id=row["id"],
        event_id=row["event_id"],
        endpoint_id=row["endpoint_id"],
        account_id=row["account_id"],
        environment=row["environment"],
        event_type=row["event_type"],
        body=row["body"],
        status=DeliveryStatus(row["status"]),
        attempts=tuple(row["attempts"]),
        next_attempt_at=row["next_attempt_at"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        response_body=row["response_body"],
    )


def delivery_values(delivery: WebhookDelivery) -> dict[str, Any]:
    return dict(
        id=delivery.id,
        event_id=delivery.event_id,
        endpoint_id=delivery.endpoint_id,
        account_id=delivery.account_id,
        environment=delivery.environment,
        event_type=delivery.event_type,
        body=delivery.body,
        status=delivery.status.value,
        attempts=list(delivery.attempts),
        next_attempt_at=delivery.next_attempt_at,
        created_at=delivery.created_at,
        updated_at=delivery.updated_at,
        response_body=delivery.response_body,
    )


class SqlWebhookRepository:
    def __init__(self, connection: AsyncConnection) -> None:
        self._c = connection
        self._postgres = connection.dialect.name == "postgresql"

    # --- endpoints ------------------------------------------------------------------------
    async def add_endpoint(self, endpoint: WebhookEndpoint) -> None:
        await self._c.execute(
            E.insert(),
            dict(
                id=endpoint.id,
                account_id=endpoint.account_id,
                environment=endpoint.environment,
                url=endpoint.url,
                description=endpoint.description,
                events=None if endpoint.events is None else list(endpoint.events),
                secret=endpoint.secret,
                enabled=endpoint.enabled,
                created_at=endpoint.created_at,
                deleted_at=endpoint.deleted_at,
                previous_secret=endpoint.previous_secret,
                previous_secret_expires_at=endpoint.previous_secret_expires_at,
            ),
        )

    async def get_endpoint(
        self, account_id: str, environment: str, endpoint_id: str
    ) -> WebhookEndpoint | None:
        """A live (not deleted) endpoint of this account and environment."""
        row = (
            await self._c.execute(
                select(E).where(
                    E.c.id == endpoint_id,
                    E.c.account_id == account_id,
                    E.c.environment == environment,
                    E.c.deleted_at.is_(None),
                )
            )
        ).first()
        return None if row is None else endpoint_from_row(row._mapping)

    async def list_endpoints(self, account_id: str, environment: str) -> list[WebhookEndpoint]:
        rows = await self._c.execute(
            select(E)
            .where(
                E.c.account_id == account_id,
                E.c.environment == environment,
                E.c.deleted_at.is_(None),
            )
            .order_by(E.c.pk)
        )
        return [endpoint_from_row(r._mapping) for r in rows]

    async def count_endpoints(self, account_id: str, environment: str) -> int:
        """Live endpoints of this account and environment. On PostgreSQL the account's row
        stays locked until the transaction ends, so concurrent creations count in turn
        (SQLite has one writer)."""
        if self._postgres:
            await self._c.execute(
                select(accounts.c.id).where(accounts.c.id == account_id).with_for_update()
            )
        count: int = (
            await self._c.execute(
                select(func.count()).where(
                    E.c.account_id == account_id,
                    E.c.environment == environment,
                    E.c.deleted_at.is_(None),
                )
            )
        ).scalar_one()
        return count

    async def set_secret(self, endpoint_id: str, secret: str) -> None:
        await self._c.execute(update(E).where(E.c.id == endpoint_id).values(secret=secret))

    async def set_previous_secret(
        self, endpoint_id: str, previous: str | None, expires_at: datetime | None
    ) -> None:
        """The old secret that signs beside the current one until `expires_at` (None: none)."""
        await self._c.execute(
            update(E)
            .where(E.c.id == endpoint_id)
            .values(previous_secret=previous, previous_secret_expires_at=expires_at)
        )

    async def secrets_page(self, after_pk: int, limit: int) -> list[SecretsRow]:
        """(pk, id, stored secret, stored previous secret, its end) of every endpoint,
        deleted ones too, in pk order."""
        rows = await self._c.execute(
            select(E.c.pk, E.c.id, E.c.secret, E.c.previous_secret, E.c.previous_secret_expires_at)
            .where(E.c.pk > after_pk)
            .order_by(E.c.pk)
            .limit(limit)
        )
        return [
            (r.pk, r.id, r.secret, r.previous_secret, r.previous_secret_expires_at) for r in rows
        ]

    async def delete_endpoint(
        self, account_id: str, environment: str, endpoint_id: str, at: datetime
    ) -> bool:
        """Marks the endpoint deleted (its deliveries stay listed) and ends the deliveries
        still waiting for it: a deleted endpoint is sent nothing more."""
        result = await self._c.execute(
            update(E)
            .where(
                E.c.id == endpoint_id,
                E.c.account_id == account_id,
                E.c.environment == environment,
                E.c.deleted_at.is_(None),
            )
            .values(deleted_at=at)
        )
        if not result.rowcount:
            return False
        waiting = D.c.endpoint_id == endpoint_id
        await self._c.execute(
            update(D)
            .where(waiting, D.c.status == PENDING)
            .values(status=DeliveryStatus.FAILED.value, next_attempt_at=None, updated_at=at)
        )
        await self._c.execute(
            update(D)
            .where(waiting, D.c.next_attempt_at.is_not(None))
            .values(next_attempt_at=None, updated_at=at)
        )
        return True

    # --- the outbox's fan-out ---------------------------------------------------------------
    async def due_events(
        self, now: datetime, limit: int, skip_accounts: Collection[str] = ()
    ) -> list[OutboxEvent]:
        """Events due for fan-out, oldest first, but none of `skip_accounts`; on PostgreSQL
        their rows stay locked (and are skipped by other senders) until this transaction
        ends."""
        query = (
            select(EV)
            .where(EV.c.fanned_out_at.is_(None), EV.c.deliver_after <= now)
            .order_by(EV.c.deliver_after)
            .limit(limit)
        )
        if skip_accounts:
            query = query.where(EV.c.account_id.not_in(list(skip_accounts)))
        if self._postgres:
            query = query.with_for_update(skip_locked=True)
        return [
            OutboxEvent(
                id=r.id,
                account_id=r.account_id,
                environment=r.environment,
                type=EventType(r.type),
                payload=r.payload,
                occurred_at=r.occurred_at,
                deliver_after=r.deliver_after,
            )
            for r in await self._c.execute(query)
        ]

    async def active_endpoints(self, account_ids: Sequence[str]) -> list[WebhookEndpoint]:
        """The enabled, not deleted endpoints of these accounts (every environment)."""
        if not account_ids:
            return []
        rows = await self._c.execute(
            select(E)
            .where(
                E.c.account_id.in_(list(account_ids)),
                E.c.enabled.is_(True),
                E.c.deleted_at.is_(None),
            )
            .order_by(E.c.pk)
        )
        return [endpoint_from_row(r._mapping) for r in rows]

    async def add_deliveries(
        self,
        deliveries: Sequence[WebhookDelivery],
        lease_owner: str | None = None,
        lease_until: datetime | None = None,
    ) -> None:
        """New deliveries, already leased to `lease_owner` when it sends them at once."""
        if deliveries:
            await self._c.execute(
                INSERT_DELIVERY,
                [
                    {**delivery_values(d), "lease_owner": lease_owner, "lease_until": lease_until}
                    for d in deliveries
                ],
            )

    async def mark_fanned_out(self, event_ids: Sequence[str], at: datetime) -> None:
        if event_ids:
            await self._c.execute(
                update(EV).where(EV.c.id.in_(list(event_ids))).values(fanned_out_at=at)
            )

    # --- the delivery queue ---------------------------------------------------------------
    async def due_deliveries(
        self,
        now: datetime,
        limit: int,
        skip_accounts: Collection[str] = (),
        skip_endpoints: Collection[str] = (),
    ) -> list[DueDelivery]:
        """Up to `limit` deliveries due now that nobody holds (or whose holder's lease ran
        out), earliest first, none of `skip_accounts` or `skip_endpoints`, with their
        endpoint's address and secret. On PostgreSQL their rows stay locked (and are
        skipped by other senders) until this transaction ends: lease the ones to keep."""
        query = (
            select(
                D,
                E.c.url,
                E.c.secret,
                E.c.enabled,
                E.c.deleted_at,
                E.c.previous_secret,
                E.c.previous_secret_expires_at,
            )
            .join(E, E.c.id == D.c.endpoint_id)
            .where(
                D.c.next_attempt_at <= now,
                or_(D.c.lease_until.is_(None), D.c.lease_until <= now),
            )
            .order_by(D.c.next_attempt_at)
            .limit(limit)
        )
        if skip_accounts:
            query = query.where(D.c.account_id.not_in(list(skip_accounts)))
        if skip_endpoints:
            query = query.where(D.c.endpoint_id.not_in(list(skip_endpoints)))
        if self._postgres:
            query = query.with_for_update(skip_locked=True, of=D)
        return [
            DueDelivery(
                delivery=delivery_from_row(r._mapping),
                url=r.url,
                secret=r.secret,
                deliverable=bool(r.enabled) and r.deleted_at is None,
                previous_secret=previous_secret_in_use(
                    r.previous_secret, r.previous_secret_expires_at, now
                ),
            )
            for r in await self._c.execute(query)
        ]

    async def lease_deliveries(
        self, owner: str, delivery_ids: Sequence[str], lease_until: datetime
    ) -> None:
        """Leases these deliveries (found by `due_deliveries` in this transaction) to `owner`."""
        if delivery_ids:
            await self._c.execute(
                update(D)
                .where(D.c.id.in_(list(delivery_ids)))
                .values(lease_owner=owner, lease_until=lease_until)
            )

    async def extend_leases(
        self, owner: str, delivery_ids: Sequence[str], lease_until: datetime
    ) -> None:
        """Keeps a live sender's leases from running out while its attempts are slow."""
        if delivery_ids:
            await self._c.execute(
                update(D)
                .where(D.c.id.in_(list(delivery_ids)), D.c.lease_owner == owner)
                .values(lease_until=lease_until)
            )

    async def record_attempts(self, owner: str, results: Sequence[dict[str, Any]]) -> None:
        """Each delivery's state after an attempt (`row_id`, `status`, `attempts`,
        `next_attempt_at`, `updated_at`), and its lease released, in one executemany; a
        row whose lease `owner` no longer holds is left alone (another sender has it)."""
        if results:
            await self._c.execute(RECORD_ATTEMPT, [{**r, "owner": owner} for r in results])

    async def next_due_at(self) -> datetime | None:
        """The earliest moment a sender has something to do: an event to fan out or a
        delivery to attempt (a held delivery counts at its lease's end). Three index
        probes, however many deliveries wait (`NEXT_DUE`)."""
        row = (await self._c.execute(NEXT_DUE)).one()
        found = [t for t in row if t is not None]
        return min(found) if found else None

    # --- deliveries for the API -------------------------------------------------------------
    async def get_delivery(
        self, account_id: str, environment: str, delivery_id: str
    ) -> WebhookDelivery | None:
        row = (await self._c.execute(select(D).where(D.c.id == delivery_id))).first()
        if row is None or row.account_id != account_id or row.environment != environment:
            return None
        return delivery_from_row(row._mapping)

    async def list_deliveries(
        self,
        account_id: str,
        environment: str,
        endpoint_id: str | None,
        status: str | None,
        offset: int,
        limit: int,
    ) -> tuple[list[WebhookDelivery], int]:
        """Newest first."""
        where = [D.c.account_id == account_id, D.c.environment == environment]
        if endpoint_id is not None:
            where.append(D.c.endpoint_id == endpoint_id)
        if status is not None:
            where.append(D.c.status == status)
        rows, total = await page_of(self._c, D, where, [D.c.pk.desc()], offset, limit)
        return [delivery_from_row(r) for r in rows], total

    async def request_attempt(self, delivery_id: str, at: datetime) -> None:
        """A resend: the delivery is due now (its status stays until the attempt is made)."""
        await self._c.execute(
            update(D).where(D.c.id == delivery_id).values(next_attempt_at=at, updated_at=at)
        )
