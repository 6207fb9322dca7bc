"""The dispatcher's leases while its device calls run: renewed every `RENEW_EVERY_S`, and
given up (the calls stopped) before they run out, so no two processes call a device for
the same action at once."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Sequence
from datetime import timedelta
from typing import Any, TypeVar

from energyhub.domain.actions import Action
from energyhub.domain.clock import Clock
from energyhub.domain.errors import DeviceTimeout
from energyhub.domain.readings import DriverError
from energyhub.ports.storage import UnitOfWorkFactory

log = logging.getLogger(__name__)

# Short, so a killed process's claims are taken over within seconds; the holder renews it
# every RENEW_EVERY_S while its device calls run (a charger may take its response timeout).
LEASE = timedelta(seconds=5)
RENEW_EVERY_S = LEASE.total_seconds() / 3
# A holder that could not renew stops its device calls once no more than this is left of its
# lease (more than one renewal period), so nobody claims the action while they still run.
LEASE_MARGIN = timedelta(seconds=RENEW_EVERY_S * 1.2)
T = TypeVar("T")


class LeaseLost(DriverError):
    """The holder could not renew its lease in time, so it stopped waiting for the device
    (which may still apply the command: like a timeout, it is retryable)."""

    def __init__(self) -> None:
        super().__init__(
            DeviceTimeout.code,
            "The device did not confirm in time: retry, or check its state first.",
            retryable=True,
        )


class LeaseKeeper:
    def __init__(self, uow: UnitOfWorkFactory, clock: Clock, renew_every_s: float) -> None:
        self._uow = uow
        self._clock = clock
        self._renew_every_s = renew_every_s

    async def held(
        self, owner: str | None, actions: Sequence[Action], work: Coroutine[Any, Any, T]
    ) -> T:
        """`work`, while `owner`'s leases on `actions` are renewed. A holder that cannot
        renew stops `work` while its lease still holds (`LeaseLost`): once the lease ran
        out, another process sends the same commands, and the two must not overlap.

        The renewer is told to stop, not cancelled: cancelled in the middle of its
        transaction, it would cost the pool its connection (SQLAlchemy drops a connection
        whose statement was interrupted), and on SQLite the dropped connection's commit can
        land under the next one's snapshot ("database is locked")."""
        if owner is None or not actions:
            return await work
        running = asyncio.ensure_future(work)
        stop = asyncio.Event()
        renewing = asyncio.ensure_future(self._renew(owner, actions, stop))
        try:
            await asyncio.wait({running, renewing}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.set()
            running.cancel()  # nothing when it is done
            # the renewal under way ends its transaction; one stuck on the database for
            # longer than the margin is cancelled
            await asyncio.wait({renewing}, timeout=LEASE_MARGIN.total_seconds())
            renewing.cancel()
            await asyncio.gather(renewing, running, return_exceptions=True)
        if running.cancelled():
            raise LeaseLost()
        return running.result()

    async def _renew(self, owner: str, actions: Sequence[Action], stop: asyncio.Event) -> None:
        """Renews the leases until `stop` is set; returns early once it can no longer vouch
        for them: another owner took them, or renewals failed until no more than
        LEASE_MARGIN is left."""
        action_ids = [a.id for a in actions]
        leases = [a.lease_until for a in actions if a.lease_until is not None]
        held_until = min(leases, default=self._clock.now() + LEASE)
        while not await _set_within(stop, self._renew_every_s):
            now = self._clock.now()
            try:
                async with self._uow() as tx:
                    await tx.actions.extend_leases(owner, action_ids, now + LEASE)
                    if not await tx.actions.held_by(owner, action_ids):
                        return
                held_until = now + LEASE
            except Exception:
                log.exception("renewing the leases of %d actions failed", len(action_ids))
                if held_until - now <= LEASE_MARGIN:
                    return


async def _set_within(event: asyncio.Event, seconds: float) -> bool:
    """Whether `event` is set within `seconds`."""
    try:
        async with asyncio.timeout(seconds):
            await event.wait()
    except TimeoutError:
        return False
    return True
