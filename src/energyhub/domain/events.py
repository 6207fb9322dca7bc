"""Webhook events as the outbox stores them, and their flat bodies (spec 6, CONTRACT 9).

An event is built where its state change happens and written in that same transaction;
the sender delivers it later. The body never carries the event name (that travels in
`x-event-type`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from energyhub.domain.actions import Action, ActionState
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import isoformat_utc
from energyhub.domain.webhooks import EventType

EVENT_DEVICE_TYPES = {DeviceType.BATTERY: "battery", DeviceType.EV_CHARGER: "ev_charger"}


@dataclass(frozen=True, slots=True)
class EventDelays:
    """How long after its cause an event is first sent (CONTRACT 9: the sandbox mimics the
    spec's slow vendors; live goes at once)."""

    sandbox_push: timedelta = timedelta(seconds=180)
    sandbox_link: timedelta = timedelta(seconds=60)
    live: timedelta = timedelta(0)

    def for_event(self, environment: str, event: EventType) -> timedelta:
        if environment != "sandbox":
            return self.live
        if event in (EventType.DEVICE_CONNECTED, EventType.DEVICE_RECONNECTED):
            return self.sandbox_link
        return self.sandbox_push  # push.* and device.disconnected


@dataclass(frozen=True, slots=True)
class OutboxEvent:
    id: str
    account_id: str
    environment: str
    type: EventType
    payload: dict[str, Any]
    occurred_at: datetime
    deliver_after: datetime


def push_event(action: Action) -> tuple[EventType, dict[str, Any]] | None:
    """`push.completed` or `push.failed` for an action that just reached that state; None
    for every other state (no event on create, start or cancel)."""
    if action.state is ActionState.COMPLETED:
        event = EventType.PUSH_COMPLETED
        finished = action.completed_at or action.updated_at
    elif action.state is ActionState.FAILED:
        event = EventType.PUSH_FAILED
        finished = action.updated_at
    else:
        return None
    payload: dict[str, Any] = {
        "actionId": action.id,
        "deviceId": action.device_id,
        "deviceType": EVENT_DEVICE_TYPES[action.device_type],
        "command": action.command,
        "parameters": action.parameters,
        "result": action.result or {"success": event is EventType.PUSH_COMPLETED},
        "completedAt": isoformat_utc(finished),
    }
    if event is EventType.PUSH_FAILED:
        payload["errorCode"] = action.error_code
        payload["errorMessage"] = action.error_message
        payload["result"] = {**payload["result"], "success": False}
    return event, payload


def device_event(
    event: EventType,
    *,
    device_id: str,
    device_type: DeviceType,
    user_id: str,
    vendor: str,
    linked_account_id: str | None,
    occurred_at: datetime,
    reconnection_url: str | None = None,
) -> dict[str, Any]:
    """A `device.*` body (CONTRACT 9); `device.disconnected` says where to link again."""
    payload: dict[str, Any] = {
        "deviceId": device_id,
        "deviceType": EVENT_DEVICE_TYPES[device_type],
        "userId": user_id,
        "vendor": vendor,
        "linkedAccountId": linked_account_id,
        "occurredAt": isoformat_utc(occurred_at),
    }
    if event is EventType.DEVICE_DISCONNECTED:
        payload["reconnectionUrl"] = reconnection_url
    return payload
