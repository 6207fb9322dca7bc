"""The metrics port: what services and workers report (actions, dispatch lateness, webhook
attempts, driver calls, live connections). Bootstrap wires the Prometheus implementation;
services see only this Protocol (`services.metrics.NO_METRICS` records nothing)."""

from __future__ import annotations

from typing import Protocol


class Metrics(Protocol):
    def action_state(self, state: str) -> None:
        """An action moved to `state` (committed)."""

    def dispatch_lateness(self, seconds: float) -> None:
        """A due action was dispatched `seconds` after its due time."""

    def webhook_attempt(self, outcome: str) -> None:
        """One delivery attempt ended: delivered, failed, or another outcome word."""

    def webhook_lateness(self, seconds: float) -> None:
        """An event's first attempt began `seconds` after the event."""

    def ocpp_connected(self, delta: int) -> None:
        """A live charger's websocket opened (+1) or closed (-1)."""

    def driver_call(self, driver: str, outcome: str) -> None:
        """A call to a device driver ended: ok, or the error code it raised."""

    def pruned(self, kind: str, rows: int) -> None:
        """Retention deleted `rows` old rows of `kind` (deliveries, events, actions, samples)."""
