"""The strategy runner: for every charger a strategy runs on, the plan it follows and the
limits it is told, made again when their inputs change, with the surplus controller on top.

Each tick (every few seconds) it reads every running charger with its site, decides in
memory, steers where the limits changed, and writes what changed in one transaction:
- a simulated charger (the sandbox) gets the schedule as simulator state, and its stored
  state is read again at once, so a read shows the new limit without waiting;
- a live charger gets the schedule through its driver, from the process that holds its
  connection (the others leave it alone); a refusal is kept on the run and shown in the
  plan;
- a run whose strategy ended (another command completed) is released and removed.
The surplus controllers live in memory: a restarted process starts their hysteresis
again, which only delays a start or a pause by one delay."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import orjson

from energyhub.domain import sandbox_site, session_costs
from energyhub.domain.accounts import Environment
from energyhub.domain.clock import Clock, isoformat_utc
from energyhub.domain.devices import Device, Vehicle
from energyhub.domain.goals import STRATEGIES, charger_limits, energy_needed, public_goal
from energyhub.domain.planning import (
    Goal,
    LoadPeriod,
    Plan,
    PreparedPrices,
    Site,
    Tariff,
    plan_charging,
    prepare_prices,
)
from energyhub.domain.planning.steering import (
    ChargingSchedule,
    constant_schedule,
    schedule_for,
)
from energyhub.domain.planning.surplus import SurplusController, SurplusSettings, surplus_kw
from energyhub.domain.readings import DriverError
from energyhub.domain.session_costs import SessionLedger
from energyhub.domain.sites import tariff_from_json
from energyhub.domain.strategy_runs import (
    SURPLUS_HOLD,
    SteeringState,
    StrategyRun,
    inputs_key,
    needs_plan,
    needs_steer_again,
    same_limits,
    with_surplus,
)
from energyhub.ports.devices import ChargerSteering, DeviceDriver, SimulatedSteering
from energyhub.ports.storage import StoredSite, UnitOfWork, UnitOfWorkFactory
from energyhub.services.changes import DeviceChangeFeed

log = logging.getLogger(__name__)

TARIFF = "auto.charge_tariff"
SURPLUS_ONLY = "auto.charge_surplus_only"
SURPLUS_FIRST = "auto.charge_surplus_first"
FORECAST = timedelta(hours=24)
TARIFFS_KEPT = 10_000
"""Parsed tariffs kept between looks (one per site's terms; all dropped past this)."""
PLAN_HORIZON = timedelta(hours=26)
"""Prices expanded for a look's plans: a ready-by time is within a day (25 h across a DST
change); a plan reaching further expands its own."""


@dataclass(frozen=True, slots=True)
class RunnerSettings:
    replan_interval_s: float = 900.0
    surplus_start_delay_s: float = 60.0
    surplus_stop_delay_s: float = 120.0
    surplus_update_interval_s: float = 30.0


@dataclass
class TickReport:
    planned: int = 0
    steered: int = 0
    released: int = 0
    refused: int = 0


@dataclass(frozen=True, slots=True)
class _Inputs:
    """One charger's view for a tick: its live reading and its site."""

    device: Device
    state: Mapping[str, Any]
    vehicle: Vehicle | None
    site: Site
    site_terms: str | None
    stored_site: StoredSite | None
    grid_kw: float | None


@dataclass
class _Outcome:
    run: StrategyRun
    sim: dict[str, Any] | None = None
    state: dict[str, Any] | None = None
    closed: list[SessionLedger] = field(default_factory=list)
    ledger_only: bool = False
    noted_action: str | None = None
    """The strategy's action, when its `result.steering` is to say how the charger took the
    schedule (it changed: taken, refused, unreachable)."""


class StrategyRunner:
    def __init__(
        self,
        uow: UnitOfWorkFactory,
        clock: Clock,
        drivers: Mapping[str, DeviceDriver],
        steering: Mapping[str, ChargerSteering],
        simulated: Mapping[str, SimulatedSteering],
        changes: DeviceChangeFeed,
        settings: RunnerSettings | None = None,
    ) -> None:
        self._uow = uow
        self._clock = clock
        self._drivers = drivers
        self._steering = steering
        self._simulated = simulated
        self._changes = changes
        self._settings = settings or RunnerSettings()
        self._controllers: dict[tuple[str, str], SurplusController] = {}
        self._forecast: tuple[datetime, tuple[LoadPeriod, ...]] | None = None
        self._prepared: dict[int, PreparedPrices] = {}  # by tariff, for one look
        self._tariffs: dict[str, Tariff | None] = {}  # parsed, by the site's terms

    async def tick(self) -> TickReport:
        try:
            return await self._look()
        finally:
            self._prepared.clear()

    async def _look(self) -> TickReport:
        now = self._clock.now()
        report = TickReport()
        async with self._uow() as tx:
            running = await tx.strategy_runs.running()
            ended = await tx.strategy_runs.ended()
            owners = [(d.account_id, d.environment, d.user_id) for d, _ in running]
            sites = await tx.strategy_runs.sites_of(owners)
            vehicles = await tx.devices.vehicles_for_chargers([d.id for d, _ in running])
            ended_devices = await tx.devices.get_devices_by_ids([r.device_id for r in ended])
        report.released = await self._release(ended_devices, now)
        outcomes: list[_Outcome] = []
        terms: dict[tuple[str, Environment, str], tuple[Tariff | None, str | None]] = {}
        for device, run in running:
            if not self._mine(device):
                continue
            inputs = await self._inputs(device, sites, terms, vehicles.get(device.id), now)
            outcome = await self._run(inputs, run, now, report)
            if outcome is not None:
                outcomes.append(outcome)
        if outcomes or ended:
            async with self._uow() as tx:
                for run in ended:
                    closed = session_costs.close(run.ledger, now)
                    await tx.strategy_runs.keep_costs(run.device_id, [closed] if closed else [])
                await tx.strategy_runs.remove([r.device_id for r in ended])
                # each kind of write for all chargers at once (one statement executed per
                # row: the rows are distinct, so the order between kinds does not matter)
                await tx.strategy_runs.save_ledgers(
                    [(o.run.device_id, o.run.ledger) for o in outcomes if o.ledger_only]
                )
                await tx.strategy_runs.save_many([o.run for o in outcomes if not o.ledger_only])
                device_changes: list[tuple[str, dict[str, Any]]] = []
                for outcome in outcomes:
                    await tx.strategy_runs.keep_costs(outcome.run.device_id, outcome.closed)
                    if outcome.noted_action is not None:
                        await _note_steering(tx, outcome.noted_action, outcome.run.steering, now)
                    if outcome.sim is not None:
                        values: dict[str, Any] = {"sim": outcome.sim, "updated_at": now}
                        if outcome.state is not None:
                            values.update(state=outcome.state, last_pulled_at=now)
                        device_changes.append((outcome.run.device_id, values))
                await tx.devices.update_many(device_changes)
            for outcome in outcomes:
                if outcome.sim is not None:
                    self._changes.publish(outcome.run.device_id)
        for key in [k for k in self._controllers if k[0] in {r.device_id for r in ended}]:
            del self._controllers[key]
        return report

    # --- one charger -----------------------------------------------------------------------

    def _mine(self, device: Device) -> bool:
        """Simulated chargers are any process's; a live one is its connection holder's."""
        if device.driver in self._simulated:
            return True
        steering = self._steering.get(device.driver)
        return steering is not None and steering.can_steer(device)

    async def _inputs(
        self,
        device: Device,
        sites: Mapping[tuple[str, Environment, str], StoredSite],
        terms: dict[tuple[str, Environment, str], tuple[Tariff | None, str | None]],
        vehicle: Vehicle | None,
        now: datetime,
    ) -> _Inputs:
        """`terms`: each site's parsed tariff and terms, made once a look for all its
        chargers."""
        owner = (device.account_id, device.environment, device.user_id)
        stored = sites.get(owner)
        if owner not in terms:
            site_terms = _site_terms(stored)
            if stored is None or site_terms is None:
                tariff = None
            elif site_terms in self._tariffs:
                tariff = self._tariffs[site_terms]
            else:
                tariff = tariff_from_json(stored.tariff)
                if len(self._tariffs) >= TARIFFS_KEPT:
                    self._tariffs.clear()
                self._tariffs[site_terms] = tariff
            terms[owner] = (tariff, site_terms)
        state: Mapping[str, Any] = device.state
        if device.driver in self._simulated:
            reading = await self._drivers[device.driver].read(device, now)
            state = reading.state
            if reading.vehicle is not None and vehicle is not None:
                vehicle = replace(vehicle, state_of_charge=reading.vehicle.state_of_charge)
        tz = ZoneInfo(stored.timezone if stored and stored.timezone else device.timezone)
        simulated_site = device.environment is Environment.SANDBOX
        site = Site(
            tz,
            grid_limit_kw=None if stored is None else stored.grid_import_limit_kw,
            tariff=terms[owner][0],
        )
        grid = _posted_grid_kw(stored, now)
        if grid is None and simulated_site:
            grid = sandbox_site.grid_power_kw(now, [_power(state)])
        return _Inputs(
            replace(device, state=dict(state)),
            state,
            vehicle,
            site,
            terms[owner][1],
            stored,
            grid,
        )

    async def _run(
        self, inputs: _Inputs, run: StrategyRun | None, now: datetime, report: TickReport
    ) -> _Outcome | None:
        device = inputs.device
        strategy = device.mode_command or ""
        plugged = inputs.state.get("isConnected") is not False
        delivered = _number(inputs.state.get("sessionEnergy"))
        key = inputs_key(
            strategy=strategy,
            plugged_in=plugged,
            goal=device.goal,
            site=inputs.site_terms,
            delivered_kwh=delivered,
        )
        replanned = needs_plan(run, strategy, key, now)
        plan: Plan | None = None
        if replanned:
            plan = self._plan(inputs, strategy, now) if plugged else None
            planned = _planned_schedule(plan, now)
            report.planned += 1
        else:
            assert run is not None
            planned = _planned_from(run)
        schedule, status, reason = self._limits(inputs, strategy, plugged, planned, now)
        previous = None if run is None else run.schedule
        expiring = previous is not None and previous.end - now < SURPLUS_HOLD / 2
        send = (
            run is None
            or expiring
            or not same_limits(previous, schedule, now)
            or needs_steer_again(run.steering, now)
        )
        counted = session_costs.count(
            None if run is None else run.ledger,
            at=now,
            plugged_in=plugged,
            session_kwh=delivered,
            charger_kw=_power(inputs.state),
            grid_kw=inputs.grid_kw,
            tariff=inputs.site.tariff,
            tz=inputs.site.timezone,
            drawn=previous,
        )
        unchanged = run is not None and run.plan.get("status") == status
        if not (send or replanned or counted.changed) and unchanged:
            return None
        if run is not None and unchanged and not (send or replanned):
            # only the session's ledger moved on: a small write
            return _Outcome(
                replace(run, ledger=counted.ledger),
                closed=[counted.closed] if counted.closed is not None else [],
                ledger_only=True,
            )
        outcome = _Outcome(
            StrategyRun(
                device_id=device.id,
                strategy=strategy,
                inputs=key,
                plan={},
                schedule=schedule if send else previous,
                steering=None if run is None else run.steering,
                next_plan_at=now + timedelta(seconds=self._settings.replan_interval_s)
                if replanned
                else (run.next_plan_at if run is not None else now),
                updated_at=now,
                ledger=counted.ledger,
            ),
            closed=[counted.closed] if counted.closed is not None else [],
        )
        if send:
            await self._steer(inputs, schedule, now, outcome, report)
        base = (
            _plan_body(plan, inputs, strategy, plugged, planned_schedule=planned, now=now)
            if replanned
            else (run.plan if run is not None else {})
        )
        outcome.run = replace(
            outcome.run,
            plan=_with_status(base, status, reason, outcome.run.steering, now),
        )
        return outcome

    def _plan(self, inputs: _Inputs, strategy: str, now: datetime) -> Plan | None:
        """The grid plan (tariff, surplus-first); surplus-only plans no grid energy."""
        if strategy == SURPLUS_ONLY:
            return None
        device = inputs.device
        goal = None
        if device.goal is not None:
            needed = energy_needed(device.goal, device, inputs.vehicle)
            if needed is not None:
                goal = Goal(needed, datetime.fromisoformat(device.goal["readyAt"]))
        site = inputs.site
        if strategy == SURPLUS_FIRST and device.environment is Environment.SANDBOX:
            site = replace(site, forecast=self._simulated_forecast(now))
        return plan_charging(
            now=now,
            site=site,
            charger=charger_limits(device),
            goal=goal,
            prices=self._prices(site, now),
        )

    def _prices(self, site: Site, now: datetime) -> PreparedPrices | None:
        """The site's tariff expanded once a look for all its chargers' plans (a plan looks
        at most a day ahead: a goal's ready-by time, or the next 24 h without one)."""
        tariff = site.tariff
        if tariff is None:
            return None
        prepared = self._prepared.get(id(tariff))  # the look's `terms` keep each tariff alive
        if prepared is None:
            prepared = prepare_prices(tariff, site.timezone, now, now + PLAN_HORIZON)
            self._prepared[id(tariff)] = prepared
        return prepared

    def _simulated_forecast(self, now: datetime) -> tuple[LoadPeriod, ...]:
        """The sandbox sites' forecast: one simulated meter for all, made once a look."""
        if self._forecast is None or self._forecast[0] != now:
            self._forecast = (now, sandbox_site.forecast(now, now + FORECAST))
        return self._forecast[1]

    def _limits(
        self,
        inputs: _Inputs,
        strategy: str,
        plugged: bool,
        planned: ChargingSchedule,
        now: datetime,
    ) -> tuple[ChargingSchedule, str | None, str | None]:
        """The schedule to send, and the status and reason the surplus controller gives
        (None: the plan's own)."""
        device = inputs.device
        if not plugged:
            self._controllers.pop((device.id, strategy), None)
            return constant_schedule(0.0, now), "unplugged", None
        if strategy == TARIFF:
            return planned, None, None
        controller = self._controller(device, strategy)
        if inputs.grid_kw is None:
            surplus = 0.0
            reason = "no site reading in the last 5 minutes: no surplus is assumed"
        else:
            surplus = surplus_kw(inputs.grid_kw, _power(inputs.state))
            reason = None
        decision = controller.step(now, surplus, planned.limit_at(now))
        reason = reason or decision.reason
        if strategy == SURPLUS_ONLY:
            schedule = constant_schedule(decision.limit_kw, now, SURPLUS_HOLD)
        else:
            schedule = with_surplus(planned, now, decision.limit_kw)
        running = schedule.limit_at(now) > 0
        return schedule, "charging" if running else "paused", reason

    def _controller(self, device: Device, strategy: str) -> SurplusController:
        key = (device.id, strategy)
        controller = self._controllers.get(key)
        if controller is None:
            s = self._settings
            limits = charger_limits(device)
            controller = SurplusController(
                SurplusSettings(
                    ceiling_kw=limits.ceiling_kw,
                    phases=(int(_number(device.state.get("phases")) or 3),),
                    start_delay_s=s.surplus_start_delay_s,
                    stop_delay_s=s.surplus_stop_delay_s,
                    update_interval_s=s.surplus_update_interval_s,
                ),
                "surplus_first" if strategy == SURPLUS_FIRST else "surplus_only",
            )
            self._controllers[key] = controller
        return controller

    async def _steer(
        self,
        inputs: _Inputs,
        schedule: ChargingSchedule,
        now: datetime,
        outcome: _Outcome,
        report: TickReport,
    ) -> None:
        device = inputs.device
        simulated = self._simulated.get(device.driver)
        if simulated is not None:
            sim = simulated.steered_sim(device, schedule, now)
            reading = await self._drivers[device.driver].read(replace(device, sim=sim), now)
            outcome.sim, outcome.state = sim, dict(reading.state)
            outcome.run = replace(outcome.run, steering=_steering(SteeringState.APPLIED, None, now))
            report.steered += 1
            return
        before = outcome.run.steering
        try:
            await self._steering[device.driver].steer(device, schedule, now)
        except DriverError as refusal:
            state = (
                SteeringState.REFUSED
                if refusal.code != "DEVICE_OFFLINE"
                else (SteeringState.UNREACHABLE)
            )
            after = _steering(state, refusal.message, now)
            report.refused += 1
            log.warning("charger %s did not take its schedule: %s", device.id, refusal.message)
        else:
            after = _steering(SteeringState.APPLIED, None, now)
            report.steered += 1
        outcome.run = replace(outcome.run, steering=after)
        if before is None or (before["state"], before["message"]) != (
            after["state"],
            after["message"],
        ):
            outcome.noted_action = device.mode_action_id

    async def _release(self, ended: Sequence[Device], now: datetime) -> int:
        released = 0
        for device in ended:
            steering = self._steering.get(device.driver)
            if steering is None or not steering.can_steer(device):
                continue
            try:
                await steering.release(device, now)
                released += 1
            except DriverError as failure:
                log.warning("charger %s kept its strategy schedule: %s", device.id, failure)
        return released


# --- plan bodies -----------------------------------------------------------------------------


def _planned_schedule(plan: Plan | None, now: datetime) -> ChargingSchedule:
    return constant_schedule(0.0, now) if plan is None else schedule_for(plan.slots, now)


def _planned_from(run: StrategyRun) -> ChargingSchedule:
    """The plan's own limits, kept in the run's body."""
    raw = run.plan.get("planned")
    if isinstance(raw, dict):
        return ChargingSchedule.from_json(raw)
    return run.schedule or constant_schedule(0.0, run.updated_at)


def _plan_body(
    plan: Plan | None,
    inputs: _Inputs,
    strategy: str,
    plugged: bool,
    *,
    planned_schedule: ChargingSchedule,
    now: datetime,
) -> dict[str, Any]:
    """The plan as a client reads it (with `planned`, the plan's own limits, kept aside)."""
    device = inputs.device
    tariff = inputs.site.tariff
    currency = tariff.currency if tariff else None
    body: dict[str, Any] = {
        "strategy": strategy if strategy in STRATEGIES else None,
        "goal": None if device.goal is None else public_goal(device.goal),
        "planned": planned_schedule.to_json(),
    }
    if not plugged:
        return {**body, **empty_plan("unplugged", currency, UNPLUGGED)}
    if plan is None:
        return {**body, **empty_plan("waiting", currency, SURPLUS_ONLY_TEXT)}
    return {**body, **plan_fields(plan, plan.status.value, plan.explanation)}


def _with_status(
    body: dict[str, Any],
    status: str | None,
    reason: str | None,
    steering: dict[str, Any] | None,
    now: datetime,
) -> dict[str, Any]:
    updated = {**body, "steering": steering, "updatedAt": isoformat_utc(now)}
    if status is not None and body.get("status") not in ("done",):
        updated["status"] = status
        if reason and status in ("charging", "paused"):
            updated["explanation"] = _surplus_text(body.get("explanation", ""), status, reason)
    if steering is not None and steering.get("state") == SteeringState.REFUSED:
        updated["explanation"] = (
            f"The charger refused the schedule ({steering.get('message')}); "
            f"it charges by its own limits. {updated.get('explanation', '')}"
        ).strip()
    return updated


def _surplus_text(explanation: str, status: str, reason: str) -> str:
    head = "Charging from the solar surplus" if status == "charging" else "Paused"
    text = f"{head}: {reason}."
    return f"{text} {explanation}".strip() if explanation != SURPLUS_ONLY_TEXT else text


def _steering(state: str, message: str | None, now: datetime) -> dict[str, Any]:
    return {"state": state, "message": message, "at": isoformat_utc(now)}


async def _note_steering(
    tx: UnitOfWork, action_id: str, steering: dict[str, Any] | None, now: datetime
) -> None:
    """The strategy's action says how the charger took its schedule (`result.steering`), so
    a refusal shows in the device's action history as well as in its plan."""
    action = await tx.actions.get_by_id(action_id)
    if action is None or steering is None:
        return
    await tx.actions.update(
        action_id, result={**(action.result or {}), "steering": steering}, updated_at=now
    )


UNPLUGGED = "The car is not plugged in: charging is planned when it is."
SURPLUS_ONLY_TEXT = (
    "Charging from the site's solar surplus only: no charging from the grid is planned."
)


def empty_plan(status: str, currency: str | None, explanation: str) -> dict[str, Any]:
    return {
        "status": status,
        "slots": [],
        "expectedEnergy": {"value": 0.0, "unit": "kwh"},
        "expectedCost": None if currency is None else {"value": 0.0, "currency": currency},
        "explanation": explanation,
    }


def plan_fields(plan: Plan, status: str, explanation: str) -> dict[str, Any]:
    priced = plan.currency is not None
    return {
        "status": status,
        "slots": [
            {
                "start": isoformat_utc(slot.start),
                "end": isoformat_utc(slot.end),
                "power": {"value": round(slot.power_kw, 3), "unit": "kw"},
                "source": slot.source,
                "price": round(slot.price, 6) if priced else None,
            }
            for slot in plan.slots
        ],
        "expectedEnergy": {"value": round(plan.expected_energy_kwh, 3), "unit": "kwh"},
        "expectedCost": {"value": round(plan.expected_cost, 4), "currency": plan.currency}
        if priced
        else None,
        "explanation": explanation,
    }


def _site_terms(stored: StoredSite | None) -> str | None:
    """What of the site a plan depends on (not its readings): its timezone, limit, tariff."""
    if stored is None:
        return None
    terms = [stored.timezone, stored.grid_import_limit_kw, stored.tariff]
    return orjson.dumps(terms, option=orjson.OPT_SORT_KEYS).decode()


def _posted_grid_kw(stored: StoredSite | None, now: datetime) -> float | None:
    reading = None if stored is None else stored.last_reading
    if not reading:
        return None
    at = datetime.fromisoformat(str(reading["at"]))
    if now - at > sandbox_site.READING_FRESH:
        return None
    return _number(reading.get("gridPower", {}).get("value"))


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _power(state: Mapping[str, Any]) -> float:
    return _number(state.get("currentPower"))
