"""Retention (ENERGYHUB_RETENTION_DAYS): prunes webhook deliveries, events, ended actions and
state samples older than the period, one short batch at a time, resting between batches
as long as the last one took, so pruning a large backlog takes at most about half of one
database connection's time and every push and claim gets the database between batches.
Safe to run in several processes at once: each batch takes rows no other is deleting."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from energyhub.domain.clock import Clock
from energyhub.domain.retention import PrunedKind, retention_cutoff
from energyhub.ports.metrics import Metrics
from energyhub.ports.retention import HistoryPruner
from energyhub.services.metrics import NO_METRICS

log = logging.getLogger(__name__)

BATCH = 1000
REST_RATIO = 1.0  # rest after a batch, in multiples of the time it took


class Retention:
    def __init__(
        self,
        pruner: HistoryPruner,
        clock: Clock,
        days: int,
        *,
        batch: int = BATCH,
        rest_ratio: float = REST_RATIO,
        metrics: Metrics = NO_METRICS,
        timer: Callable[[], float] = time.perf_counter,
    ) -> None:
        if batch < 1:
            raise ValueError("a batch holds at least one row")
        self._pruner = pruner
        self._clock = clock
        self.days = days
        self._batch = batch
        self._rest_ratio = rest_ratio
        self.metrics = metrics
        self._timer = timer

    @property
    def enabled(self) -> bool:
        return self.days > 0

    async def prune(self) -> dict[PrunedKind, int]:
        """Prunes every kind until none of its rows is older than the period (as of the
        start); returns how many rows of each it deleted."""
        pruned = dict.fromkeys(PrunedKind, 0)
        before = retention_cutoff(self._clock.now(), self.days)
        if before is None:
            return pruned
        for kind in PrunedKind:
            since = None  # each batch goes on from the previous one's newest row
            while True:
                started = self._timer()
                batch = await self._pruner.prune_batch(
                    kind, before, self._clock.now(), self._batch, since
                )
                took = self._timer() - started
                if batch.count:
                    pruned[kind] += batch.count
                    self.metrics.pruned(kind.value, batch.count)
                if batch.count < self._batch:
                    break
                since = batch.through
                await asyncio.sleep(took * self._rest_ratio)  # the database's turn for others
        if any(pruned.values()):
            log.info(
                "retention: pruned %s older than %s",
                ", ".join(f"{count} {kind.value}" for kind, count in pruned.items()),
                before.isoformat(),
            )
        return pruned
