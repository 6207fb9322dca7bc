"""The strategies' use cases a client reads and writes: a user's site (timezone, grid
import limit, tariff, prices, readings), a charger's charging goal, and its plan, computed
by the domain planner when it is read.

Decisions the contract leaves open:
- PUT /site changes the fields it sends: an absent field keeps its value, null clears it
  (no limit, no tariff, the timezone of the user's first device).
- The goal's `readyAt` is fixed when the goal is set (the next time the site's clock shows
  `readyBy`); once it has passed, the plan charges what is still missing at once.
- A running strategy's plan is the one the strategy runner made and steers by (made again
  when its inputs change); until the runner's first pass, and for a charger with no
  strategy running, the plan is computed when it is read (no strategy: status
  `not_running`, the plan `auto.charge_tariff` would follow)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from energyhub.domain.accounts import Principal
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import Clock, isoformat_utc
from energyhub.domain.devices import Device, User
from energyhub.domain.errors import UserNotFound
from energyhub.domain.goals import (
    charger_limits,
    energy_needed,
    goal_body,
    is_plugged_in,
    parse_goal,
    public_goal,
    session_energy,
    strategy_of,
)
from energyhub.domain.planning import Goal, Site, plan_charging
from energyhub.domain.site_updates import merge_prices, newer_reading, parse_prices, parse_readings
from energyhub.domain.sites import parse_site, tariff_from_json
from energyhub.ports.storage import StoredSite, UnitOfWork, UnitOfWorkFactory
from energyhub.services.changes import DeviceChangeFeed
from energyhub.services.devices import visible_device
from energyhub.services.strategy_runner import (
    SURPLUS_ONLY_TEXT,
    UNPLUGGED,
    empty_plan,
    plan_fields,
)

SURPLUS_ONLY = "auto.charge_surplus_only"


def site_record(site: StoredSite, timezone: str | None) -> dict[str, Any]:
    return {
        "userId": site.user_id,
        "timezone": site.timezone or timezone,
        "gridImportLimit": None
        if site.grid_import_limit_kw is None
        else {"value": site.grid_import_limit_kw, "unit": "kw"},
        "tariff": site.tariff,
        "lastReading": site.last_reading,
        "updatedAt": isoformat_utc(site.updated_at),
    }


class StrategyService:
    def __init__(self, uow: UnitOfWorkFactory, clock: Clock, changes: DeviceChangeFeed) -> None:
        self._uow = uow
        self._clock = clock
        self._changes = changes

    # --- the site -------------------------------------------------------------------------

    async def get_site(self, principal: Principal, user_ref: str) -> dict[str, Any]:
        async with self._uow() as tx:
            user = await _user(tx, principal, user_ref)
            site = await tx.sites.get(principal.account_id, principal.environment, user.id)
            timezone = await _first_device_timezone(tx, principal, user)
        if site is None:
            return {
                "userId": user.id,
                "timezone": timezone,
                "gridImportLimit": None,
                "tariff": None,
                "lastReading": None,
                "updatedAt": None,
            }
        return site_record(site, timezone)

    async def put_site(self, principal: Principal, user_ref: str, body: object) -> dict[str, Any]:
        """Changes the fields sent; checked in this order: the user (404), the body (400)."""

        def change(parsed: Any) -> Callable[[StoredSite], StoredSite]:
            return lambda site: replace(site, **parsed.values)

        return await self._change(principal, user_ref, lambda: parse_site(body), change)

    async def add_prices(self, principal: Principal, user_ref: str, body: object) -> dict[str, Any]:
        def change(added: Any) -> Callable[[StoredSite], StoredSite]:
            return lambda site: replace(site, tariff=merge_prices(site.tariff, added))

        return await self._change(principal, user_ref, lambda: parse_prices(body), change)

    async def add_readings(
        self, principal: Principal, user_ref: str, body: object
    ) -> dict[str, Any]:
        """A meter's readings: one transaction of four statements (a site's meter may post
        every few seconds)."""

        def change(reading: Any) -> Callable[[StoredSite], StoredSite]:
            return lambda site: replace(
                site, last_reading=newer_reading(site.last_reading, reading)
            )

        now = self._clock.now()
        return await self._change(principal, user_ref, lambda: parse_readings(body, now), change)

    async def _change(
        self,
        principal: Principal,
        user_ref: str,
        parse: Callable[[], Any],
        change: Callable[[Any], Callable[[StoredSite], StoredSite]],
    ) -> dict[str, Any]:
        """In one transaction: the user (404), the parsed body (400), then `change` applied
        to the user's site (made first when there is none) under its row lock, so
        concurrent writers take turns; answers the site record."""
        now = self._clock.now()
        async with self._uow() as tx:
            user = await _user(tx, principal, user_ref)
            apply = change(parse())
            env = principal.environment
            current = await tx.sites.get(principal.account_id, env, user.id, lock=True)
            if current is None:
                empty = StoredSite(principal.account_id, env, user.id, None, None, None, None, now)
                await tx.sites.ensure(empty)
                current = await tx.sites.get(principal.account_id, env, user.id, lock=True)
            assert current is not None, "ensured above"
            updated = replace(apply(current), updated_at=now)
            await tx.sites.save(updated)
            timezone = updated.timezone or await _first_device_timezone(tx, principal, user)
        return site_record(updated, timezone)

    # --- goals and plans ------------------------------------------------------------------

    async def put_goal(self, principal: Principal, device_id: str, body: object) -> dict[str, Any]:
        """Checked in this order: the charger (404), the body (400), `target` (422)."""
        async with self._uow() as tx:
            device = await visible_device(tx, principal, DeviceType.EV_CHARGER, device_id)
        request = parse_goal(body, device)
        now = self._clock.now()
        async with self._uow() as tx:
            device = await visible_device(
                tx, principal, DeviceType.EV_CHARGER, device_id, lock=True
            )
            tz = await _site_timezone(tx, device)
            goal = goal_body(request, tz, now, session_energy(device))
            await tx.devices.update_device(device.id, charging_goal=goal, updated_at=now)
        self._changes.publish(device.id)
        return public_goal(goal)

    async def delete_goal(self, principal: Principal, device_id: str) -> dict[str, Any] | None:
        """Removes the goal; answers the goal removed (null when there was none)."""
        now = self._clock.now()
        async with self._uow() as tx:
            device = await visible_device(
                tx, principal, DeviceType.EV_CHARGER, device_id, lock=True
            )
            if device.goal is not None:
                await tx.devices.update_device(device.id, charging_goal=None, updated_at=now)
        self._changes.publish(device.id)
        return None if device.goal is None else public_goal(device.goal)

    async def plan(self, principal: Principal, device_id: str) -> dict[str, Any]:
        now = self._clock.now()
        async with self._uow() as tx:
            device = await visible_device(tx, principal, DeviceType.EV_CHARGER, device_id)
            stored = await tx.sites.get(device.account_id, device.environment, device.user_id)
            vehicles = await tx.devices.vehicles_for_chargers([device.id])
            run = await tx.strategy_runs.get(device.id)
        tz = ZoneInfo(stored.timezone if stored and stored.timezone else device.timezone)
        site = Site(
            tz,
            grid_limit_kw=None if stored is None else stored.grid_import_limit_kw,
            tariff=None if stored is None else tariff_from_json(stored.tariff),
        )
        strategy = strategy_of(device)
        goal = None
        if device.goal is not None:
            needed = energy_needed(device.goal, device, vehicles.get(device.id))
            if needed is not None:
                goal = Goal(needed, datetime.fromisoformat(device.goal["readyAt"]))
        record = {
            "strategy": strategy,
            "goal": None if device.goal is None else public_goal(device.goal),
            "updatedAt": isoformat_utc(now),
            "steering": None,
        }
        if run is not None and run.strategy == strategy and run.plan:
            return {k: v for k, v in run.plan.items() if k != "planned"}
        currency = site.tariff.currency if site.tariff else None
        if strategy is not None and not is_plugged_in(device):
            return {**record, **empty_plan("unplugged", currency, UNPLUGGED)}
        if strategy == SURPLUS_ONLY:
            return {**record, **empty_plan("waiting", currency, SURPLUS_ONLY_TEXT)}
        plan = plan_charging(now=now, site=site, charger=charger_limits(device), goal=goal)
        status = plan.status.value
        explanation = plan.explanation
        if strategy is None:
            status = "not_running"
            explanation = f"{_NOT_RUNNING} {explanation}"
        return {**record, **plan_fields(plan, status, explanation)}


_NOT_RUNNING = (
    "No strategy is running (push auto.charge_tariff to start one); this is the plan it "
    "would follow:"
)


async def _user(tx: UnitOfWork, principal: Principal, user_ref: str) -> User:
    user = await tx.devices.get_user(principal.account_id, principal.environment, user_ref)
    if user is None:
        raise UserNotFound(f"No user {user_ref!r} in this environment.")
    return user


async def _first_device_timezone(tx: UnitOfWork, principal: Principal, user: User) -> str | None:
    return await tx.devices.first_device_timezone(
        principal.account_id, principal.environment, user.id
    )


async def _site_timezone(tx: UnitOfWork, device: Device) -> ZoneInfo:
    site = await tx.sites.get(device.account_id, device.environment, device.user_id)
    return ZoneInfo(site.timezone if site and site.timezone else device.timezone)
