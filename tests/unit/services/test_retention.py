"""The retention use case against an in-memory pruner: every kind until nothing old is left,
batch by batch, resting between batches as long as the last one took."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from energyhub.domain.clock import FakeClock
from energyhub.domain.retention import PrunedKind
from energyhub.services.retention import Retention
from tests.unit.services.fakes import FakeHistoryPruner

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
OLD = NOW - timedelta(days=91)


class RecordedMetrics:
    def __init__(self) -> None:
        self.pruned_rows: list[tuple[str, int]] = []

    def action_state(self, state: str) -> None: ...
    def dispatch_lateness(self, seconds: float) -> None: ...
    def webhook_attempt(self, outcome: str) -> None: ...
    def webhook_lateness(self, seconds: float) -> None: ...
    def ocpp_connected(self, delta: int) -> None: ...
    def driver_call(self, driver: str, outcome: str) -> None: ...

    def pruned(self, kind: str, rows: int) -> None:
        self.pruned_rows.append((kind, rows))


async def test_every_kind_is_pruned_in_batches_and_counted() -> None:
    rows = [(k.value, OLD - timedelta(minutes=n), True) for k in PrunedKind for n in range(3)]
    rows += [(PrunedKind.ACTIONS.value, OLD, False), (PrunedKind.SAMPLES.value, NOW, True)]
    pruner = FakeHistoryPruner(rows)
    metrics = RecordedMetrics()

    pruned = await Retention(
        pruner, FakeClock(NOW), 90, batch=2, rest_ratio=0, metrics=metrics
    ).prune()

    assert pruned == dict.fromkeys(PrunedKind, 3)
    assert pruner.batches == [(k.value, n) for k in PrunedKind for n in (2, 1)]
    # each kind starts from the oldest, then goes on from the batch before's newest row
    assert pruner.since == [None, OLD - timedelta(minutes=1)] * len(PrunedKind)
    assert metrics.pruned_rows == [(k.value, n) for k in PrunedKind for n in (2, 1)]
    assert len(pruner.rows) == 2  # in play, and recent


async def test_a_full_last_batch_asks_once_more() -> None:
    pruner = FakeHistoryPruner([(PrunedKind.EVENTS.value, OLD, True)] * 4)

    await Retention(pruner, FakeClock(NOW), 90, batch=2, rest_ratio=0).prune()

    assert [n for k, n in pruner.batches if k == PrunedKind.EVENTS.value] == [2, 2, 0]


async def test_it_rests_as_long_as_a_batch_took(monkeypatch: pytest.MonkeyPatch) -> None:
    ticks = iter(float(n) for n in range(100))
    rests: list[float] = []

    async def rest(seconds: float) -> None:
        rests.append(seconds)

    monkeypatch.setattr(asyncio, "sleep", rest)
    pruner = FakeHistoryPruner([(PrunedKind.SAMPLES.value, OLD, True)] * 5)

    await Retention(pruner, FakeClock(NOW), 90, batch=2, timer=lambda: next(ticks)).prune()

    assert rests == [1.0, 1.0]  # after each full batch (each took one tick), not the last


async def test_zero_days_asks_for_nothing() -> None:
    pruner = FakeHistoryPruner([(PrunedKind.SAMPLES.value, OLD, True)])

    assert sum((await Retention(pruner, FakeClock(NOW), 0).prune()).values()) == 0
    assert pruner.batches == []


def test_a_batch_holds_a_row_at_least() -> None:
    with pytest.raises(ValueError, match="at least one row"):
        Retention(FakeHistoryPruner(), FakeClock(NOW), 90, batch=0)
