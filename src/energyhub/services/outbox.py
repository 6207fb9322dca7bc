"""Events for the webhook outbox: built where a state change happens, written in its
transaction (DESIGN "Events go out through an outbox"), then announced to the sender so it
need not poll for them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from energyhub.domain.actions import Action
from energyhub.domain.clock import Clock
from energyhub.domain.events import EventDelays, OutboxEvent, push_event
from energyhub.domain.webhooks import EventType
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

    def push_events(self, actions: Iterable[Action]) -> list[OutboxEvent]:
        """`push.completed` / `push.failed` for those of `actions` that just ended so."""
        events = []
        for action in actions:
            found = push_event(action)
            if found is not None:
                events.append(self.event(action.account_id, action.environment, *found))
        return events

    def announce(self, events: Sequence[OutboxEvent]) -> None:
        """Call once the transaction that wrote `events` has committed."""
        if events:
            soonest = min(e.deliver_after for e in events)
            for listener in self._listeners:
                listener(soonest)
