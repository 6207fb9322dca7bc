"""Charging sessions (spec 2.6, 4.8, CONTRACT 6): what a charger reports is stored as it
appears (a session keeps its id from active to completed), and listings page the stored
sessions in SQL, so a page cut from an echoed window stays put while new sessions start."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from energyhub.domain.accounts import Principal
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import Clock
from energyhub.domain.devices import Device
from energyhub.domain.errors import InvalidRequest, SessionsNotSupported
from energyhub.domain.session_costs import SessionLedger, matching
from energyhub.domain.sessions import (
    ChargingSession,
    SessionPage,
    SessionQuery,
    SessionStatus,
    SessionWindow,
)
from energyhub.ports.devices import SessionSource
from energyhub.ports.storage import UnitOfWork, UnitOfWorkFactory
from energyhub.services.devices import visible_device

HISTORY_REACH = timedelta(days=31)
"""No charger reports sessions from before its creation minus this (the sandbox invents 30
days); generation is clamped to it, so a window reaching back to year 1 costs nothing."""
_POINT = timedelta(microseconds=1)


@dataclass(frozen=True, slots=True)
class SessionListing:
    window: SessionWindow
    page: SessionPage
    costs: Mapping[str, SessionLedger] = field(default_factory=dict)
    """By session id: what the sessions charged under a strategy cost."""


class SessionService:
    def __init__(
        self, uow: UnitOfWorkFactory, clock: Clock, sources: Mapping[str, SessionSource]
    ) -> None:
        self._uow = uow
        self._clock = clock
        self._sources = sources  # by driver; a driver without one reports into the DB itself

    async def list(
        self,
        principal: Principal,
        device_id: str,
        start: datetime | None,
        end: datetime | None,
        status: SessionStatus | None,
        limit: int,
        offset: int,
    ) -> SessionListing:
        """Sessions of one charger overlapping the window, newest first. Checked in this
        order: the device (404), the window (400: `from` after `to`), the capability (422)."""
        now = self._clock.now()
        async with self._uow() as tx:
            device = await visible_device(tx, principal, DeviceType.EV_CHARGER, device_id)
            try:
                window = SessionWindow.resolve(self._clock, start, end)
            except OverflowError:
                raise InvalidRequest(
                    "from/to are out of the supported range.",
                    errors=[{"path": "query.from", "message": "date out of range"}],
                ) from None
            query = SessionQuery(window, status, limit, offset)
            if not device.capabilities.sessions:
                raise SessionsNotSupported(
                    "This charger does not report session history (sessions: false); "
                    "this will not change."
                )
            stored_active = await tx.sessions.active(device.id)
        source = self._sources.get(device.driver)
        reported = [] if source is None else _reported(source, device, window, stored_active, now)
        async with self._uow() as tx:
            if reported:
                known = await tx.sessions.get_many([s.id for s in reported])
                await tx.sessions.upsert(_changed(reported, known), now)
            page = await tx.sessions.page(device.id, query)
            costs = await _costs(tx, device.id, page.items)
        return SessionListing(window, page, costs)


async def _costs(
    tx: UnitOfWork, device_id: str, sessions: Sequence[ChargingSession]
) -> dict[str, SessionLedger]:
    if not sessions:
        return {}
    since = min(s.started_at for s in sessions)
    ledgers = await tx.strategy_runs.costs_of(device_id, since)
    found = {s.id: matching(ledgers, s) for s in sessions}
    return {sid: ledger for sid, ledger in found.items() if ledger is not None}


def _reported(
    source: SessionSource,
    device: Device,
    window: SessionWindow,
    stored_active: Sequence[ChargingSession],
    now: datetime,
) -> list[ChargingSession]:
    """What the charger reports now for the window, and for every session stored as active
    outside it: one that has ended comes back `completed` with its `endedAt`; one the
    charger no longer reports at all is closed at `now` (no reason given)."""
    found: dict[str, ChargingSession] = {}
    low = max(window.start, device.created_at - HISTORY_REACH)
    high = min(window.end, now)
    if low <= high:
        found.update((s.id, s) for s in source(device, low, high, now))
    for session in stored_active:
        if session.id in found:
            continue
        again = {
            s.id: s for s in source(device, session.started_at, session.started_at + _POINT, now)
        }
        found[session.id] = again.get(session.id) or replace(
            session,
            status=SessionStatus.COMPLETED,
            ended_at=max(now, session.started_at),
            end_reason=None,
        )
    return list(found.values())


def _changed(
    reported: Sequence[ChargingSession], known: Mapping[str, ChargingSession]
) -> list[ChargingSession]:
    """The sessions to write: new or different, never a completed one back to active; in
    id order, so concurrent listings lock the rows they share in one order (PostgreSQL)."""
    changed = []
    for session in reported:
        stored = known.get(session.id)
        if stored == session:
            continue
        reopened = stored is not None and stored.status is SessionStatus.COMPLETED
        if reopened and session.status is SessionStatus.ACTIVE:
            continue
        changed.append(session)
    return sorted(changed, key=lambda s: s.id)
