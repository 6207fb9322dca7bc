"""The one channel between processes on a shared database: small signals (a topic and a
short text) published after a commit and heard by every other process. Worker wake-ups,
read-cache invalidations and key revocations ride on it; nothing else opens its own.

A signal is a hint, never the record: the database is. A process that may have missed
signals (its channel was down) hears `channel_up(False)`, falls back to polling and short
cache lives, and re-checks everything when `channel_up(True)` follows."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Protocol

SignalHandler = Callable[[str], None]
ChannelStateHandler = Callable[[bool], None]


class Topic(StrEnum):
    DUE = "due"  # payload: the worker's name, a space, the due time (epoch s) or nothing
    DEVICE = "device"  # payload: a device id whose stored body changed
    KEY = "key"  # payload: an API key id that was revoked
    # command routing (drivers/ocpp/routing.py); each payload starts with the process it is for
    ROUTE = "route"  # "<owner process> <request JSON>": run this on a charger you hold
    ROUTED = "routed"  # "<caller process> <answer JSON>": the answer to a routed request
    OWNER = "owner"  # "<charge point id> <generation> <process> <device id>": it took a charger


class Signals(Protocol):
    @property
    def name(self) -> str:
        """This process on the channel (unique across hosts and restarts)."""

    @property
    def up(self) -> bool:
        """Whether signals from other processes are being heard now."""

    def hears(self, process: str) -> bool:
        """Whether the process named `process` listens on the channel (as last looked up,
        every second: a process that died drops out when its connection ends)."""

    @property
    def pending(self) -> bool:
        """Whether signals published here have not reached the database yet."""

    def publish(self, topic: Topic, payload: str) -> None:
        """Sends to the other processes (call it after the commit that made it true).
        Never blocks and never raises: signals are batched and sent by a task."""

    async def sent(self) -> None:
        """Returns once every signal published so far has reached the database (or at
        once while the channel is down): a response waits for it, so another process hears
        of a change before the client that made it can ask that process."""

    def subscribe(self, topic: Topic, handler: SignalHandler) -> None:
        """`handler(payload)` for each signal on `topic` from another process."""

    def on_channel(self, handler: ChannelStateHandler) -> None:
        """`handler(up)` whenever the channel comes up or goes down."""

    def start(self) -> None:
        """Begins listening (in a task of the running loop)."""

    async def stop(self) -> None: ...
