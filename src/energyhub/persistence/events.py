"""The webhook outbox in SQL: events written in the transaction of their cause."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from energyhub.domain.events import OutboxEvent
from energyhub.persistence.tables import webhook_events

INSERT_EVENT = webhook_events.insert()


def event_values(event: OutboxEvent) -> dict[str, Any]:
    return dict(
        id=event.id,
        account_id=event.account_id,
        environment=event.environment,
        type=event.type.value,
        payload=event.payload,
        occurred_at=event.occurred_at,
        deliver_after=event.deliver_after,
        fanned_out_at=None,
    )


class SqlEventRepository:
    def __init__(self, connection: AsyncConnection) -> None:
        self._c = connection

    async def add(self, events: Sequence[OutboxEvent]) -> None:
        if events:
            await self._c.execute(INSERT_EVENT, [event_values(e) for e in events])
