"""The channel between processes, without PostgreSQL: the acknowledgement bookkeeping of
`adapters/pg_acks.py`, and its users (`workers/wakeups.py`, `DeviceReadCache.follow`)
against a fake channel."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from energyhub.adapters.pg_acks import Acks
from energyhub.api.read_cache import DeviceReadCache
from energyhub.domain.clock import FakeClock
from energyhub.ports.signals import ChannelStateHandler, SignalHandler, Topic
from energyhub.workers.loop import DueWorkLoop
from energyhub.workers.wakeups import CrossProcessWakeups

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


class FakeSignals:
    def __init__(self) -> None:
        self.up = False
        self.pending = False
        self.published: list[tuple[Topic, str]] = []
        self.handlers: dict[Topic, list[SignalHandler]] = {}
        self.channel: list[ChannelStateHandler] = []

    def publish(self, topic: Topic, payload: str) -> None:
        self.published.append((topic, payload))

    async def sent(self) -> None:
        return None

    def subscribe(self, topic: Topic, handler: SignalHandler) -> None:
        self.handlers.setdefault(topic, []).append(handler)

    def on_channel(self, handler: ChannelStateHandler) -> None:
        self.channel.append(handler)

    def hear(self, topic: Topic, payload: str) -> None:
        for handler in self.handlers.get(topic, []):
            handler(payload)

    def set_up(self, up: bool) -> None:
        self.up = up
        for handler in self.channel:
            handler(up)

    def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None


class RecordingLoop(DueWorkLoop):
    name = "energyhub-dispatcher"

    def __init__(self) -> None:
        super().__init__(FakeClock(NOW), 0.5)
        self.woken: list[datetime | None] = []

    async def run_pass(self) -> datetime | None:
        return None

    def wake(self, due_at: datetime | None = None) -> None:
        self.woken.append(due_at)

    @property
    def max_sleep_s(self) -> float:
        return self._max_sleep_s


def test_a_batch_settles_when_every_listener_acked_even_before_it_was_known() -> None:
    acks = Acks()
    acks.published = 2
    acks.opening(2)
    acks.ack(2, "b")  # an ack can beat the statement that sent the batch
    acks.sent(2, {"b", "c"})
    assert acks.pending
    assert not acks.confirmed(2)
    acks.ack(2, "c")
    assert acks.confirmed(2)
    assert not acks.pending


def test_a_later_batch_does_not_confirm_an_earlier_one() -> None:
    acks = Acks()
    acks.published = 1
    acks.opening(1)
    acks.sent(1, {"b"})
    acks.published = 3
    acks.opening(3)
    acks.sent(3, set())  # nobody else listening when it went out
    assert not acks.confirmed(1)
    assert acks.laggards(3) == {"b"}
    acks.give_up(3)
    assert acks.confirmed(3)


def test_a_failed_batch_goes_again_and_a_reset_forgets_acks() -> None:
    acks = Acks()
    acks.published = 1
    acks.opening(1)
    acks.failed(1)
    assert acks.unsent(1)
    acks.opening(1)
    acks.sent(1, {"b"})
    acks.reset()
    assert acks.confirmed(1)


def test_wakeups_cross_processes_and_the_poll_follows_the_channel() -> None:
    signals = FakeSignals()
    loop = RecordingLoop()
    wake = CrossProcessWakeups(signals, 0.5, 30.0).wake_for(loop)
    assert loop.max_sleep_s == 0.5  # down until it comes up
    due = NOW + timedelta(seconds=3)
    wake(due)
    assert loop.woken == [due]
    assert signals.published == [(Topic.DUE, f"energyhub-dispatcher {due.timestamp()}")]
    signals.hear(Topic.DUE, f"energyhub-dispatcher {due.timestamp()}")
    signals.hear(Topic.DUE, "energyhub-scheduler ")  # not a loop of this process
    signals.hear(Topic.DUE, "energyhub-dispatcher ")
    assert loop.woken == [due, due, None]
    signals.set_up(True)
    assert loop.max_sleep_s == 30.0
    assert loop.woken[-1] is None, "wake-ups were missed while it was down: look now"
    signals.set_up(False)
    assert loop.max_sleep_s == 0.5


def test_the_read_cache_drops_on_signals_and_lives_long_only_while_the_channel_is_up() -> None:
    signals = FakeSignals()
    cache = DeviceReadCache(1.0)
    cache.follow(signals, 300.0, 1.0)
    assert cache._max_age == 1.0
    signals.set_up(True)
    assert cache._max_age == 300.0
    cache._entries["d1"] = object()  # type: ignore[assignment]
    cache._entries["d2"] = object()  # type: ignore[assignment]
    signals.hear(Topic.DEVICE, "d1")
    assert set(cache._entries) == {"d2"}
    signals.set_up(False)
    assert cache._max_age == 1.0
    signals.set_up(True)
    assert not cache._entries, "changes were missed while it was down"
