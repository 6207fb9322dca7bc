"""The strategy loop: a runner tick every `tick_s` (the surplus controller's reading
cadence), sooner when a goal, a site or a strategy changes."""

from __future__ import annotations

from datetime import datetime, timedelta

from energyhub.domain.clock import Clock
from energyhub.services.strategy_runner import StrategyRunner
from energyhub.workers.loop import DueWorkLoop


class StrategyWorker(DueWorkLoop):
    name = "energyhub-strategies"

    def __init__(self, runner: StrategyRunner, clock: Clock, tick_s: float) -> None:
        super().__init__(clock, tick_s)
        self.runner = runner
        self._tick = timedelta(seconds=tick_s)

    async def run_pass(self) -> datetime | None:
        await self.runner.tick()
        return self._clock.now() + self._tick
