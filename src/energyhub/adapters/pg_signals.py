"""The channel between processes on PostgreSQL: LISTEN/NOTIFY on two dedicated asyncpg
connections per process, one listening and one sending.

Signals are sent after the commit that made them true, in batches (one `pg_notify` per
signal, one statement and one transaction per batch: PostgreSQL drops a batch's
duplicates). PostgreSQL delivers a notification to each listening backend on its own time
(0.3-5 ms apart here), so a batch that must be heard before the writer answers (device
changes, revocations: `CONFIRMED`) ends with an echo that every other listening process
answers with an ack once it has handled the batch; `sent` waits for the acks of the
processes listening as last looked up (`pg_stat_activity`, every second; at most
`SENT_WAIT_MAX_S`: a process that stalls delays writes, it cannot stop them). A process
alone on the database waits for nothing. Wake-ups need no ack.

When a connection drops (or a ping every `ping_every_s` goes unanswered) the channel is
down: users hear `channel_up(False)`, signals published meanwhile wait and go out once it
is back, and users hear `channel_up(True)` to re-check what they may have missed. asyncpg
loads only when this module does (PostgreSQL deployments)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
from collections import defaultdict

import asyncpg
from sqlalchemy.engine import make_url

from energyhub.adapters.pg_acks import Acks
from energyhub.ports.signals import ChannelStateHandler, SignalHandler, Topic

log = logging.getLogger(__name__)

CHANNEL = "energyhub"
LISTEN_ROLE, NOTIFY_ROLE = "energyhub-listen", "energyhub-notify"  # application names
SEND_SQL = "SELECT count(pg_notify($1, m)) FROM unnest($2::text[]) AS m"
LISTENERS_SQL = f"""
SELECT array_agg(substr(application_name, {len(LISTEN_ROLE) + 2}))
  FROM pg_stat_activity
 WHERE datname = current_database() AND application_name LIKE '{LISTEN_ROLE}-%'
"""
LISTENERS_EVERY_S = 1.0  # how often a process looks up who else listens (and pings)
CONFIRMED = frozenset({Topic.DEVICE.value, Topic.KEY.value})
ECHO, ACK = "echo", "ack"  # echo:<upto>; ack:<sender's backend pid>:<upto>:<acker's name>
HELLO = "hello"  # hello:<name>: a process began listening (others wait for its acks at once)
RETRY_DELAYS_S = (1.0, 2.0, 5.0)  # between failed attempts to reconnect, then 5 s
CONNECT_TIMEOUT_S = 5.0
PING_TIMEOUT_S = 5.0
SENT_WAIT_MAX_S = 1.0  # a write never waits longer than this for the acks of its signals
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
        self._name = f"{os.getpid()}.{secrets.token_hex(3)}"  # this process, on any host
        self._handlers: defaultdict[str, list[SignalHandler]] = defaultdict(list)
        self._state_handlers: list[ChannelStateHandler] = []
        self._pending: dict[str, None] = {}  # "topic:payload", in order, without repeats
        self._acks = Acks()
        self._others: frozenset[str] = frozenset()  # the other processes listening
        self._up = False
        self._sender: asyncpg.Connection | None = None
        self._task: asyncio.Task[None] | None = None
        self._wakeup = asyncio.Event()

    @property
    def name(self) -> str:
        return self._name

    @property
    def up(self) -> bool:
        return self._up

    def hears(self, process: str) -> bool:
        return process in self._others

    @property
    def pending(self) -> bool:
        """Alone on the database, a process has nobody to wait for."""
        return bool(self._others) and self._acks.pending

    def publish(self, topic: Topic, payload: str) -> None:
        if self._task is None:
            return  # not started: nobody else is told (a tool, a test's container)
        self._queue(f"{topic}:{payload}", confirmed=topic.value in CONFIRMED)

    async def sent(self) -> None:
        target = self._acks.published
        try:
            async with asyncio.timeout(SENT_WAIT_MAX_S):
                while self._up and not self._acks.confirmed(target):
                    await self._acks.progress.wait()
        except TimeoutError:
            late = self._acks.laggards(target)
            log.warning("signals: no ack from %s within %s s", late, SENT_WAIT_MAX_S)
            self._acks.give_up(target)

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

    def _queue(self, message: str, *, confirmed: bool) -> None:
        if len(self._pending) >= MAX_PENDING:
            log.warning("signals: %d waiting for the channel; dropping one", MAX_PENDING)
            return
        self._pending[message] = None
        if confirmed:
            self._acks.published += 1
        self._wakeup.set()

    async def _run(self) -> None:
        """Connects, serves until a connection is gone, and again: after a drop it waits
        `reconnect_s`, after each failed attempt longer (`RETRY_DELAYS_S`)."""
        delay: float | None = None  # the first connection waits for nothing
        failures = 0
        while True:
            if delay is not None:
                await asyncio.sleep(delay)
            opened: list[asyncpg.Connection] = []
            try:
                for role in (LISTEN_ROLE, NOTIFY_ROLE):
                    connection = await asyncpg.connect(
                        self._dsn,
                        timeout=CONNECT_TIMEOUT_S,
                        server_settings={
                            "application_name": f"{role}-{self._name}",
                            # a signal is a hint: its commit need not wait for the disk
                            "synchronous_commit": "off",
                        },
                    )
                    connection.add_termination_listener(lambda _c: self._wakeup.set())
                    opened.append(connection)
            except (OSError, TimeoutError, asyncpg.PostgresError) as error:
                for connection in opened:
                    connection.terminate()
                failures += 1
                delay = self._delays[min(failures, len(self._delays) - 1)]
                log.warning("signals: cannot connect (%s); workers poll meanwhile", error)
                continue
            listener, sender = opened
            try:
                await listener.add_listener(CHANNEL, self._heard)
                self._sender = sender
                self._set_up(True)
                await self._serve(listener, sender)
            except Exception as error:  # whatever ended it, the channel is down
                log.warning("signals: the channel dropped (%s); workers poll meanwhile", error)
            finally:
                self._sender = None
                self._set_up(False)
                listener.terminate()
                sender.terminate()
            failures, delay = 0, self._delays[0]

    async def _serve(self, listener: asyncpg.Connection, sender: asyncpg.Connection) -> None:
        """Sends what is published, looks up who else listens every second and pings while
        idle; returns (or raises) when a connection is gone."""
        await self._look_up_listeners(sender)
        self._queue(f"{HELLO}:{self._name}", confirmed=False)  # and what waited goes out
        loop = asyncio.get_running_loop()
        looked_up = pinged = loop.time()
        while not (listener.is_closed() or sender.is_closed()):
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(looked_up + LISTENERS_EVERY_S - loop.time()):
                    await self._wakeup.wait()
            if loop.time() >= looked_up + LISTENERS_EVERY_S:
                await self._look_up_listeners(sender)
                looked_up = loop.time()
            if loop.time() >= pinged + self._ping_every_s:
                await listener.fetchval("SELECT 1", timeout=PING_TIMEOUT_S)
                pinged = loop.time()
            if not self._wakeup.is_set():
                continue
            self._wakeup.clear()
            if self._pending and not sender.is_closed():
                await self._send(sender)

    async def _send(self, sender: asyncpg.Connection) -> None:
        batch, upto = list(self._pending), self._acks.published
        self._pending.clear()
        confirmed, others = self._acks.unsent(upto), self._others
        try:
            if confirmed:
                self._acks.opening(upto)
                echo = [f"{ECHO}:{upto}"] if others else []
                await sender.fetchval(SEND_SQL, CHANNEL, [*batch, *echo])
                self._acks.sent(upto, set(others))
            else:
                await sender.fetchval(SEND_SQL, CHANNEL, batch)
        except BaseException:
            if confirmed:
                self._acks.failed(upto)
            self._pending = {**dict.fromkeys(batch), **self._pending}  # again, first
            raise

    async def _look_up_listeners(self, sender: asyncpg.Connection) -> None:
        found = await sender.fetchval(LISTENERS_SQL, timeout=PING_TIMEOUT_S)
        self._others = frozenset(found or ()) - {self._name}

    def _heard(self, _connection: object, pid: int, _channel: str, message: str) -> None:
        topic, _, payload = message.partition(":")
        sender = self._sender
        own = sender is not None and pid == sender.get_server_pid()
        if topic == ECHO:  # the end of a batch that waits for the other processes' acks
            if not own:
                self._queue_ack(pid, payload)
            return
        if topic == ACK:
            to, _, rest = payload.partition(":")
            if sender is not None and to == str(sender.get_server_pid()):
                upto, _, by = rest.partition(":")
                self._acks.ack(int(upto), by)
            return
        if own:
            return
        if topic == HELLO:
            self._others |= {payload}
            return
        for handler in self._handlers.get(topic, ()):
            try:
                handler(payload)
            except Exception:
                log.exception("signals: a %s handler failed", topic)

    def _queue_ack(self, pid: int, upto: str) -> None:
        """The batch before this echo was handled (handlers run in order, at once)."""
        self._queue(f"{ACK}:{pid}:{upto}:{self._name}", confirmed=False)

    def _set_up(self, up: bool) -> None:
        if up == self._up:
            return
        self._up = up
        self._acks.reset()
        log.info("signals: the channel is %s", "up" if up else "down")
        for handler in self._state_handlers:
            try:
                handler(up)
            except Exception:
                log.exception("signals: a channel state handler failed")
