"""Wake-ups across processes: work written by one process (a push, an event, a schedule)
wakes the workers of every process at once, over the channel between processes (`due`
signals). While the channel is down the workers poll often; once it is back they look at
everything, since wake-ups were missed meanwhile."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime

from energyhub.ports.signals import Signals, Topic
from energyhub.workers.loop import DueWorkLoop

log = logging.getLogger(__name__)

Wake = Callable[[datetime | None], None]


class CrossProcessWakeups:
    def __init__(self, signals: Signals, poll_while_down_s: float, poll_while_up_s: float) -> None:
        self._signals = signals
        self._down_s = poll_while_down_s
        self._up_s = poll_while_up_s
        self._loops: dict[str, DueWorkLoop] = {}
        signals.subscribe(Topic.DUE, self._heard)
        signals.on_channel(self._channel)

    def wake_for(self, loop: DueWorkLoop) -> Wake:
        """What the use cases call for `loop`'s work: the loop here, and its namesakes in
        the other processes."""
        self._loops[loop.name] = loop
        loop.poll_every(self._up_s if self._signals.up else self._down_s)
        publish = self._signals.publish

        def wake(due_at: datetime | None = None) -> None:
            loop.wake(due_at)
            publish(Topic.DUE, f"{loop.name} {'' if due_at is None else due_at.timestamp()}")

        return wake

    def _heard(self, payload: str) -> None:
        name, _, at = payload.partition(" ")
        loop = self._loops.get(name)
        if loop is None:
            return
        try:
            due_at = datetime.fromtimestamp(float(at), UTC) if at else None
        except ValueError:
            log.warning("wake-ups: a malformed due signal %r", payload)
            return
        loop.wake(due_at)

    def _channel(self, up: bool) -> None:
        for loop in self._loops.values():
            loop.poll_every(self._up_s if up else self._down_s)
            if up:
                loop.wake()  # wake-ups were missed while it was down
