"""The metrics port: what services and workers report (actions, dispatch lateness, webhook
attempts, driver calls, live connections). Bootstrap wires the Prometheus implementation
(`energyhub.adapters.prometheus`); services see only this Protocol, and the default
records nothing, so a service built without it (tests, the CLI) costs nothing."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from energyhub.domain.deliveries import WebhookDelivery
from energyhub.domain.devices import Device
from energyhub.domain.readings import CommandReceipt, CommandRequest, DeviceReading, DriverError
from energyhub.ports.devices import DeviceDriver
from energyhub.ports.metrics import Metrics
from energyhub.ports.webhooks import AttemptOutcome


class NoMetrics:
    """Records nothing (the default)."""

    def action_state(self, state: str) -> None:
        return None

    def dispatch_lateness(self, seconds: float) -> None:
        return None

    def webhook_attempt(self, outcome: str) -> None:
        return None

    def webhook_lateness(self, seconds: float) -> None:
        return None

    def ocpp_connected(self, delta: int) -> None:
        return None

    def driver_call(self, driver: str, outcome: str) -> None:
        return None

    def pruned(self, kind: str, rows: int) -> None:
        return None


NO_METRICS: Metrics = NoMetrics()


def record_webhook_attempt(
    metrics: Metrics, delivery: WebhookDelivery, outcome: AttemptOutcome | None
) -> None:
    """One attempt (None: it could not be made), and the delivery's lateness when it was the
    first: from the delivery's creation (its event fanned out to the endpoint) to now."""
    if outcome is None:
        metrics.webhook_attempt("error")
        return
    metrics.webhook_attempt("delivered" if outcome.succeeded else "failed")
    if not delivery.attempts:
        metrics.webhook_lateness((outcome.at - delivery.created_at).total_seconds())


class MeteredDriver:
    """A driver whose calls are counted by outcome: `ok`, or the code of the DriverError
    it raised (`error` for anything else). Everything else is the wrapped driver's."""

    def __init__(self, name: str, driver: DeviceDriver, metrics: Metrics) -> None:
        self.name = name
        self.driver = driver
        self.metrics = metrics
        self.instant = driver.instant

    async def read(self, device: Device, now: datetime) -> DeviceReading:
        try:
            reading = await self.driver.read(device, now)
        except BaseException as failure:
            self._failed(failure)
            raise
        self.metrics.driver_call(self.name, "ok")
        return reading

    async def send_command(
        self, device: Device, request: CommandRequest, now: datetime
    ) -> CommandReceipt:
        try:
            receipt = await self.driver.send_command(device, request, now)
        except BaseException as failure:
            self._failed(failure)
            raise
        self.metrics.driver_call(self.name, "ok")
        return receipt

    async def write_settings(
        self, device: Device, values: Mapping[str, float | bool], now: datetime
    ) -> None:
        try:
            await self.driver.write_settings(device, values, now)
        except BaseException as failure:
            self._failed(failure)
            raise
        self.metrics.driver_call(self.name, "ok")

    def _failed(self, failure: BaseException) -> None:
        if isinstance(failure, DriverError):
            self.metrics.driver_call(self.name, failure.code)
        elif isinstance(failure, Exception):
            self.metrics.driver_call(self.name, "error")
        # cancellation is not the driver's outcome: not counted

    def __getattr__(self, name: str) -> object:
        return getattr(self.driver, name)
