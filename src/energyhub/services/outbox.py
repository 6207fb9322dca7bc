"""The one writer of the webhook outbox: events built where a state change happens, written
in that change's unit of work (DESIGN "Events go out through an outbox"), and announced to
the sender only once it has committed, so the sender never looks for rows not yet there and
a rolled-back change announces nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from energyhub.domain.actions import Action
from energyhub.domain.clock import Clock
from energyhub.domain.devices import Device
from energyhub.domain.events import EventDelays, OutboxEvent, device_event, push_event
from energyhub.domain.webhooks import EventType
from energyhub.ports.storage import PushUnitOfWork
from energyhub.services.ids import prefixed_id


class Outbox:
    def __init__(self, clock: Clock, delays: EventDelays) -> None:
        self._clock = clock
        self._delays = delays
        self._listeners: list[Callable[[datetime], None]] = []

    def subscribe(self, listener: Callable[[datetime], None]) -> None:
        """`listener(deliver_after)` runs after events were committed."""
        self._listeners.append(listener)

    def event(
        self, account_id: str, environment: str, event: EventType, payload: dict[str, Any]
    ) -> OutboxEvent:
        now = self._clock.now()
        return OutboxEvent(
            id=prefixed_id("evt"),
            account_id=account_id,
            environment=environment,
            type=event,
            payload=payload,
            occurred_at=now,
            deliver_after=now + self._delays.for_event(environment, event),
        )

    async def record(self, tx: PushUnitOfWork, events: Sequence[OutboxEvent]) -> None:
        """Writes `events` in `tx` (any unit of work, the push's fast one too) and announces
        them once `tx` has committed."""
        if not events:
            return
        await tx.events.add(events)
        tx.after_commit(lambda: self.announce(events))

    async def record_device_event(
        self,
        tx: PushUnitOfWork,
        device: Device,
        event: EventType,
        *,
        linked_account_id: str | None = None,
        reconnection_url: str | None = None,
    ) -> OutboxEvent:
        """A `device.*` event about `device`, in `tx` (see `record`)."""
        payload = device_event(
            event,
            device_id=device.id,
            device_type=device.type,
            user_id=device.user_id,
            vendor=device.vendor,
            linked_account_id=linked_account_id,
            occurred_at=self._clock.now(),
            reconnection_url=reconnection_url,
        )
        made = self.event(device.account_id, device.environment.value, event, payload)
        await self.record(tx, [made])
        return made

    def push_events(self, actions: Iterable[Action]) -> list[OutboxEvent]:
        """`push.completed` / `push.failed` for those of `actions` that just ended so."""
        events = []
        for action in actions:
            found = push_event(action)
            if found is not None:
                events.append(self.event(action.account_id, action.environment, *found))
        return events

    def announce(self, events: Sequence[OutboxEvent]) -> None:
        """Wakes the listeners for `events`; `record` calls it after the commit."""
        if events:
            soonest = min(e.deliver_after for e in events)
            for listener in self._listeners:
                listener(soonest)
