"""A charger that comes back. At boot, the settings it reports become the stored ones, and
the rate ceilings the service has set are sent again unless it shows it still holds its maximum
profile. On every new connection, the current mode's profile is asserted again (and a
strategy's last schedule): a push that timed out may have reached the charger after all, and
a restarted one may have lost it."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from energyhub.domain.goals import STRATEGIES
from energyhub.domain.readings import DriverError
from energyhub.drivers.ocpp import mapping
from energyhub.drivers.ocpp.mapping import Discovery
from energyhub.drivers.ocpp.station import CEILINGS_SET, CallNotSupported, Station
from energyhub.drivers.ocpp.station_events import ChargerLink

log = logging.getLogger(__name__)


async def booted(station: Station, link: ChargerLink, discovery: Discovery) -> None:
    """After BootNotification: the settings, then the declaration (the charger is ready
    from then on), then the mode."""
    settings = await _settings(station, discovery.settings)
    declared = mapping.capabilities_for(discovery.declaration).settings
    if discovery.max_profile is not True:
        for key in station.record.snapshot.get(CEILINGS_SET, []):
            if key not in settings or key not in declared:
                continue
            try:
                await link.set_limit(mapping.setting_limit(key, float(settings[key])), "max", None)
            except CallNotSupported:
                station.no_smart_charging()
                break
            except DriverError as error:
                log.warning("%s: %s not restored: %s", _name(station), key, error.message)
    station.declared(discovery.declaration)
    await resume(station, link, settings)


async def resume(
    station: Station, link: ChargerLink, settings: Mapping[str, Any] | None = None
) -> None:
    """Sends the current mode's profile once per connection (no remote start: a session
    is the driver's or the user's to begin): the default profile, and the running
    transaction's."""
    if station.resumed_on is link:
        return
    station.resumed_on = link
    control = station.record.control
    command = control.get("command")
    declaration = station.declaration
    if command is None or not declaration.smart_charging:
        return
    if settings is None:
        settings = await _settings(station, {})
    try:
        plan = mapping.plan_command(command, control.get("parameters", {}), settings, declaration)
    except KeyError:  # a command this charger no longer declares
        return
    if plan.limit is None:
        return
    try:
        await link.set_limit(plan.limit, "default", None)
        tx = station.record.transaction
        if tx is not None:
            await link.set_limit(plan.limit, "tx", tx.transaction_id)
    except DriverError as error:
        log.warning("%s: the %s profile not restored: %s", _name(station), command, error.message)
    if command in STRATEGIES:
        await _resteer(station)


async def _resteer(station: Station) -> None:
    """The strategy's last schedule again, while it lasts (the strategy sends the next one
    when it plans again)."""
    schedule = station.last_schedule()
    if schedule is None or schedule.end <= station.now():
        return
    try:
        await station.steer(schedule)
    except DriverError as error:
        log.warning("%s: the strategy's schedule not restored: %s", _name(station), error.message)


async def _settings(station: Station, reported: Mapping[str, float | bool]) -> dict[str, Any]:
    """The stored settings; a store that fails leaves them as they were (the charger is
    still declared, and its mode planned from the defaults)."""
    try:
        return await station.reconcile_settings(reported)
    except Exception:
        log.exception("%s: reading back the settings failed", _name(station))
        return {}


def _name(station: Station) -> str:
    return station.record.charge_point_id
