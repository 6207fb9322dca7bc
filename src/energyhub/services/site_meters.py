"""A site's grid meter (SunSpec Modbus TCP, models 201-204): commissioned for a user's site
with `energyhub devices add-sunspec --meter`, then read by the state poller every polling
interval. Each reading goes through the site-readings use case (`StrategyService.add_readings`,
the one `POST /users/{userId}/site/readings` runs), so a meter's reading and a posted one are
checked and stored alike; the newest of either is the site's `lastReading`.

The meter belongs to the site, not to the device list: it takes no command, has no state a
client reads besides the site's readings, and one site has at most one."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.clock import Clock, isoformat_utc
from energyhub.domain.commissioning import (
    DEFAULT_MODBUS_PORT,
    DEFAULT_UNIT_ID,
    AlreadyCommissioned,
    check_address,
)
from energyhub.domain.errors import ApiError
from energyhub.domain.readings import DriverError
from energyhub.ports.site_meters import (
    MeterAddress,
    MeterProbe,
    SiteMeter,
    SiteMeterUnitOfWorkFactory,
)
from energyhub.services.polling import BATCH, CONCURRENCY, DEFAULT_POLL_INTERVAL
from energyhub.services.strategies import StrategyService

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class MeterCommissioned:
    meter: SiteMeter
    created: bool  # False: the site had this meter already
    replaced: MeterAddress | None  # the site's former meter, at another address
    site: dict[str, Any]  # the site record after the first reading


class SiteMeters:
    def __init__(
        self,
        uow: SiteMeterUnitOfWorkFactory,
        clock: Clock,
        probe: MeterProbe,
        readings: StrategyService,
        interval: timedelta = DEFAULT_POLL_INTERVAL,
    ) -> None:
        self._uow = uow
        self._clock = clock
        self._probe = probe
        self._readings = readings
        self.interval = interval

    async def commission(
        self,
        account_id: str,
        user_id: str,
        host: str,
        port: int = DEFAULT_MODBUS_PORT,
        unit_id: int = DEFAULT_UNIT_ID,
        *,
        environment: Environment = Environment.LIVE,
        email: str | None = None,
    ) -> MeterCommissioned:
        """The user's site meter, read once (its reading posted as the site's). A site has
        one meter: another address replaces it; the same address again reads it again.
        Raises CommissioningError (AlreadyCommissioned when another site has the meter),
        LookupError (no such account) and `DriverError` (unreachable, no meter model)."""
        check_address(host, port, unit_id)
        async with self._uow() as tx:
            if await tx.accounts.get_account(account_id) is None:
                raise LookupError(f"no account {account_id}")
            other = await tx.site_meters.at_address(host, port, unit_id)
        if other is not None and (other.account_id, other.environment, other.user_id) != (
            account_id,
            environment,
            user_id,
        ):
            raise AlreadyCommissioned(
                f"{host}:{port} unit {unit_id} is already the grid meter of user "
                f"{other.user_id}'s site: commission another meter for that site first."
            )
        found = await self._probe.discover_meter(host, port, unit_id)
        now = self._clock.now()
        meter = SiteMeter(
            account_id=account_id,
            environment=environment,
            user_id=user_id,
            address=found.address,
            manufacturer=found.manufacturer,
            model=found.model,
            serial=found.serial,
            commissioned_at=now,
            polled_at=now,
        )
        async with self._uow() as tx:
            await tx.devices.ensure_user(account_id, environment, user_id, email, now)
            previous = await tx.site_meters.for_site(account_id, environment, user_id)
            await tx.site_meters.save(meter)
        site = await self._post(meter, found.grid_power_kw, now)
        same = previous is not None and _place(previous.address) == _place(meter.address)
        return MeterCommissioned(
            meter,
            created=not same,
            replaced=None if previous is None or same else previous.address,
            site=site,
        )

    async def poll_due(self, limit: int = BATCH) -> int:
        """Reads the meters due now (a batch) and posts their readings; returns how many
        were due. A meter that does not answer is tried again an interval later."""
        now = self._clock.now()
        async with self._uow() as tx:
            due = await tx.site_meters.claim_due(now - self.interval, now, limit)
        gate = asyncio.Semaphore(CONCURRENCY)

        async def poll(meter: SiteMeter) -> None:
            async with gate:
                try:
                    power = await self._probe.grid_power(meter.address)
                    await self._post(meter, power, self._clock.now())
                except (DriverError, ApiError) as failed:
                    log.warning(
                        "reading the grid meter of site %s failed: %s", meter.user_id, failed
                    )
                except Exception:
                    log.exception("reading the grid meter of site %s failed", meter.user_id)

        await asyncio.gather(*(poll(m) for m in due))
        return len(due)

    async def next_due_at(self) -> datetime | None:
        """When the next meter is due (None: no meter commissioned)."""
        async with self._uow() as tx:
            any_meter, oldest = await tx.site_meters.oldest_poll()
        if not any_meter:
            return None
        return self._clock.now() if oldest is None else oldest + self.interval

    async def _post(self, meter: SiteMeter, grid_power_kw: float, at: datetime) -> dict[str, Any]:
        """The reading, as a client would post it for the site, by the meter's account."""
        address = meter.address
        principal = Principal(
            meter.account_id,
            meter.environment,
            f"meter:{address.host}:{address.port}/{address.unit_id}",
        )
        body = {
            "readings": [
                {"at": isoformat_utc(at), "gridPower": {"value": grid_power_kw, "unit": "kw"}}
            ]
        }
        return await self._readings.add_readings(principal, meter.user_id, body)


def _place(address: MeterAddress) -> tuple[str, int, int]:
    return (address.host, address.port, address.unit_id)
