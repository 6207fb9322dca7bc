"""The surplus controller: hysteresis, minimum power, phases, the 30 s pace of limit
changes, and surplus-first's grid plan, driven by a fake clock."""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import pairwise

import pytest

from energyhub.domain.clock import FakeClock
from energyhub.domain.planning.surplus import (
    SurplusController,
    SurplusDecision,
    SurplusSettings,
    surplus_kw,
)

THREE_PHASE = SurplusSettings(ceiling_kw=11.0)


def run(
    controller: SurplusController,
    clock: FakeClock,
    surplus: float,
    seconds: int,
    every: int = 10,
    planned: float = 0.0,
) -> list[SurplusDecision]:
    """Feed one reading every `every` seconds for `seconds`, the first one now."""
    decisions = []
    for _ in range(0, seconds, every):
        decisions.append(controller.step(clock.now(), surplus, planned))
        clock.advance(every)
    return decisions


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2026, 6, 1, 10, tzinfo=UTC))


def test_surplus_is_the_export_plus_what_the_charger_draws() -> None:
    assert surplus_kw(grid_power_kw=-3.0, charger_power_kw=4.0) == 7.0
    assert surplus_kw(grid_power_kw=1.0, charger_power_kw=0.0) == -1.0


def test_it_starts_only_after_the_surplus_stayed_above_the_minimum_for_60_s(
    clock: FakeClock,
) -> None:
    controller = SurplusController(THREE_PHASE)
    waiting = run(controller, clock, 5.0, 60)
    assert [d.running for d in waiting] == [False] * 6
    assert all(d.limit_kw == 0.0 for d in waiting)
    started = controller.step(clock.now(), 5.0)
    assert started.running
    assert started.changed
    assert started.limit_kw == pytest.approx(7 * 0.69)  # 7 A on three phases, not above 5 kW
    assert started.reason == "surplus above the minimum for 60 s"


def test_a_dip_below_the_minimum_restarts_the_start_delay(clock: FakeClock) -> None:
    controller = SurplusController(THREE_PHASE)
    run(controller, clock, 5.0, 50)
    controller.step(clock.now(), 3.0)  # below 4.14 kW
    clock.advance(10)
    assert not any(d.running for d in run(controller, clock, 5.0, 60))
    assert controller.step(clock.now(), 5.0).running


def test_it_pauses_only_after_120_s_below_and_holds_the_minimum_meanwhile(
    clock: FakeClock,
) -> None:
    controller = SurplusController(THREE_PHASE)
    run(controller, clock, 6.0, 70)
    below = run(controller, clock, 2.0, 120)
    assert all(d.running for d in below)
    # The 5.52 kW limit sent at 60 s stands for 30 s, then the minimum, never less.
    assert [d.limit_kw for d in below[:2]] == [pytest.approx(5.52)] * 2
    assert [d.limit_kw for d in below[2:]] == [pytest.approx(4.14)] * 10
    paused = controller.step(clock.now(), 2.0)
    assert not paused.running
    assert paused.limit_kw == 0.0
    assert paused.reason == "surplus below the minimum for 120 s"


def test_the_limit_follows_the_surplus_at_most_every_30_s_and_never_above_it(
    clock: FakeClock,
) -> None:
    controller = SurplusController(THREE_PHASE)
    run(controller, clock, 8.0, 70)
    issued: list[datetime] = []
    surpluses = [8.0, 9.5, 7.2, 10.1, 6.3, 8.8, 5.0, 9.9, 7.7, 6.6, 10.5, 20.0]
    for i in range(60):
        surplus = surpluses[i % len(surpluses)]
        decision = controller.step(clock.now(), surplus)
        if decision.changed:
            issued.append(clock.now())
            assert decision.limit_kw <= surplus
            assert decision.limit_kw <= 11.0
        clock.advance(5)
    assert len(issued) >= 8
    gaps = [(b - a).total_seconds() for a, b in pairwise(issued)]
    assert min(gaps) >= 30


def test_an_unchanged_limit_is_not_sent_again(clock: FakeClock) -> None:
    controller = SurplusController(THREE_PHASE)
    decisions = run(controller, clock, 0.5, 300)
    assert [d.changed for d in decisions] == [True] + [False] * 29
    steady = run(controller, clock, 20.0, 200)
    assert sum(d.changed for d in steady) == 1
    assert steady[-1].limit_kw == pytest.approx(15 * 0.69)  # the 11 kW ceiling in whole amps


def test_a_charger_that_switches_phases_uses_one_phase_for_small_surplus(
    clock: FakeClock,
) -> None:
    settings = SurplusSettings(ceiling_kw=11.0, phases=(1, 3))
    controller = SurplusController(settings)
    one = run(controller, clock, 2.5, 70)[-1]
    assert (one.running, one.phases, one.limit_kw) == (True, 1, pytest.approx(10 * 0.23))
    up = run(controller, clock, 6.0, 70)[-1]
    assert (up.phases, up.limit_kw) == (3, pytest.approx(8 * 0.69))
    assert up.reason == "surplus covers 3 phases"
    still = run(controller, clock, 3.0, 120)[-1]
    assert still.phases == 3  # the stop delay holds three phases at their minimum
    down = run(controller, clock, 3.0, 40)[-1]
    assert (down.phases, down.limit_kw) == (1, pytest.approx(13 * 0.23))
    assert down.reason == "surplus covers only 1 phase(s)"
    run(controller, clock, 0.5, 130)
    assert not controller.step(clock.now(), 0.5).running


def test_one_phase_charger_on_one_phase_has_a_1_38_kw_minimum(clock: FakeClock) -> None:
    controller = SurplusController(SurplusSettings(ceiling_kw=3.7, phases=(1,)))
    decision = run(controller, clock, 1.5, 70)[-1]
    assert decision.running
    assert decision.limit_kw == pytest.approx(1.38)
    assert THREE_PHASE.minimum_kw(1) == pytest.approx(1.38)


def test_surplus_first_adds_the_grid_plan(clock: FakeClock) -> None:
    controller = SurplusController(THREE_PHASE, mode="surplus_first")
    grid = controller.step(clock.now(), 0.0, planned_grid_kw=7.4)
    assert (grid.running, grid.limit_kw, grid.changed) == (True, 7.4, True)
    assert grid.reason == "the plan needs grid energy now"
    clock.advance(30)
    run(controller, clock, 9.0, 70, planned=7.4)
    sunny = controller.step(clock.now(), 9.0, planned_grid_kw=7.4)
    assert sunny.limit_kw == pytest.approx(13 * 0.69)  # the surplus is more than the plan
    clock.advance(30)
    capped = controller.step(clock.now(), 0.0, planned_grid_kw=30.0)
    assert capped.limit_kw == 11.0


def test_surplus_only_never_uses_a_grid_plan(clock: FakeClock) -> None:
    controller = SurplusController(THREE_PHASE)
    decision = controller.step(clock.now(), 0.0, planned_grid_kw=7.4)
    assert not decision.running
    assert decision.limit_kw == 0.0
