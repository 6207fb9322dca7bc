"""The channel between processes on PostgreSQL: LISTEN/NOTIFY on one dedicated asyncpg
connection per process, which both listens and sends.

Signals are sent after the commit that made them true, in batches (one `pg_notify` per
signal, one statement and one transaction per batch: PostgreSQL drops a batch's duplicates).
A process ignores its own signals (the sender's backend pid is its listener's). When the
connection drops (or a ping every `ping_every_s` goes unanswered) the channel is down:
users hear `channel_up(False)`, signals published meanwhile wait and go out once a new
connection is up, and users hear `channel_up(True)` to re-check what they may have missed.
asyncpg loads only when this module does (PostgreSQL deployments)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections import defaultdict

import asyncpg
from sqlalchemy.engine import make_url

from energyhub.ports.signals import ChannelStateHandler, SignalHandler, Topic

log = logging.getLogger(__name__)

CHANNEL = "energyhub"
SEND_SQL = "SELECT pg_notify($1, m) FROM unnest($2::text[]) AS m"
RETRY_DELAYS_S = (1.0, 2.0, 5.0)  # between failed attempts to reconnect, then 5 s
APPLICATION_NAME = "energyhub-signals"  # in pg_stat_activity (with the process's pid)
CONNECT_TIMEOUT_S = 5.0
PING_TIMEOUT_S = 5.0
SENT_WAIT_MAX_S = 2.0  # a response never waits longer than this for its signals
MAX_PENDING = 10_000  # signals kept while the channel is down; past it they are dropped


class PgSignals:
    """The `Signals` port on PostgreSQL (see the module's docstring)."""

    def __init__(
        self, database_url: str, *, reconnect_s: float = 0.0, ping_every_s: float = 10.0
    ) -> None:
        url = make_url(database_url).set(drivername="postgresql")
        self._dsn = url.render_as_string(hide_password=False)
        self._delays = (reconnect_s, *RETRY_DELAYS_S)
        self._ping_every_s = ping_every_s
        self._handlers: defaultdict[str, list[SignalHandler]] = defaultdict(list)
        self._state_handlers: list[ChannelStateHandler] = []
        self._pending: dict[str, None] = {}  # "topic:payload", in order, without repeats
        self._published = 0  # signals published so far (a sequence number)
        self._sent = 0  # the sequence number up to which they reached the database
        self._up = False
        self._connection: asyncpg.Connection | None = None
        self._task: asyncio.Task[None] | None = None
        self._wakeup = asyncio.Event()
        self._progress = asyncio.Event()  # replaced after each batch and state change

    @property
    def up(self) -> bool:
        return self._up

    @property
    def pending(self) -> bool:
        return self._sent < self._published

    @property
    def backend_pid(self) -> int | None:
        """The listening connection's server pid (tests end it to drop the channel)."""
        connection = self._connection
        return None if connection is None else connection.get_server_pid()

    def publish(self, topic: Topic, payload: str) -> None:
        if self._task is None:
            return  # not started: nobody else is told (a tool, a test's container)
        if len(self._pending) >= MAX_PENDING:
            log.warning("signals: %d waiting for the channel; dropping %s", MAX_PENDING, topic)
            return
        self._pending[f"{topic}:{payload}"] = None
        self._published += 1
        self._wakeup.set()

    async def sent(self) -> None:
        target = self._published
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(SENT_WAIT_MAX_S):
                while self._up and self._sent < target:
                    await self._progress.wait()

    def subscribe(self, topic: Topic, handler: SignalHandler) -> None:
        self._handlers[topic.value].append(handler)

    def on_channel(self, handler: ChannelStateHandler) -> None:
        self._state_handlers.append(handler)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="energyhub-signals")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        """Connects, serves until the connection is gone, and again: after a drop it waits
        `reconnect_s`, after each failed attempt longer (`RETRY_DELAYS_S`)."""
        delay: float | None = None  # the first connection waits for nothing
        failures = 0
        name = {"application_name": f"{APPLICATION_NAME}-{os.getpid()}"}
        while True:
            if delay is not None:
                await asyncio.sleep(delay)
            try:
                connection = await asyncpg.connect(
                    self._dsn, timeout=CONNECT_TIMEOUT_S, server_settings=name
                )
            except (OSError, TimeoutError, asyncpg.PostgresError) as error:
                failures += 1
                delay = self._delays[min(failures, len(self._delays) - 1)]
                log.warning("signals: cannot connect (%s); workers poll meanwhile", error)
                continue
            try:
                connection.add_termination_listener(lambda _c: self._wakeup.set())
                await connection.add_listener(CHANNEL, self._heard)
                self._connection = connection
                self._set_up(True)
                await self._serve(connection)
            except Exception as error:  # whatever ended it, the channel is down
                log.warning("signals: the channel dropped (%s); workers poll meanwhile", error)
            finally:
                self._connection = None
                self._set_up(False)
                connection.terminate()
            failures, delay = 0, self._delays[0]

    async def _serve(self, connection: asyncpg.Connection) -> None:
        """Sends what is published and pings while idle; returns (or raises) when the
        connection is gone."""
        self._wakeup.set()  # signals that waited for the channel go out now
        while not connection.is_closed():
            try:
                async with asyncio.timeout(self._ping_every_s):
                    await self._wakeup.wait()
            except TimeoutError:
                await connection.fetchval("SELECT 1", timeout=PING_TIMEOUT_S)
                continue
            self._wakeup.clear()
            if self._pending and not connection.is_closed():
                await self._send(connection)

    async def _send(self, connection: asyncpg.Connection) -> None:
        batch, upto = list(self._pending), self._published
        self._pending.clear()
        try:
            await connection.execute(SEND_SQL, CHANNEL, batch)
        except BaseException:
            self._pending = {**dict.fromkeys(batch), **self._pending}  # again, first
            raise
        self._sent = max(self._sent, upto)
        self._progressed()

    def _heard(self, connection: object, pid: int, _channel: str, message: str) -> None:
        own = self._connection
        if own is not None and pid == own.get_server_pid():
            return
        topic, _, payload = message.partition(":")
        for handler in self._handlers.get(topic, ()):
            try:
                handler(payload)
            except Exception:
                log.exception("signals: a %s handler failed", topic)

    def _set_up(self, up: bool) -> None:
        if up == self._up:
            return
        self._up = up
        log.info("signals: the channel is %s", "up" if up else "down")
        for handler in self._state_handlers:
            try:
                handler(up)
            except Exception:
                log.exception("signals: a channel state handler failed")
        self._progressed()

    def _progressed(self) -> None:
        self._progress.set()
        self._progress = asyncio.Event()
