"""Charging sessions (spec 2.6) and the rules of listing them (spec 4.8, CONTRACT 6).

The pure rules live here so the SQL that later serves `GET /ev-charger/{id}/sessions` and
the sandbox generator are both checked against one definition of overlap, order and paging.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from energyhub.domain.clock import Clock, ensure_utc, isoformat_utc
from energyhub.domain.errors import InvalidRequest
from energyhub.domain.quantities import Quantity

DEFAULT_WINDOW = timedelta(days=30)
DEFAULT_LIMIT = 10
MAX_LIMIT = 50
MAX_OFFSET = 1_000_000  # the same bound as every other list route (api/routes/devices.py)


class SessionStatus(StrEnum):
    ACTIVE = "active"
    COMPLETED = "completed"


class Measurement(StrEnum):
    """Where the energy figure comes from: provenance, not accuracy."""

    METERED = "metered"
    OEM_REPORTED = "oem_reported"
    INFERRED = "inferred"


class EndReason(StrEnum):
    UNPLUGGED = "unplugged"
    VEHICLE_FINISHED = "vehicle_finished"
    STOPPED = "stopped"
    POWER_LOST = "power_lost"
    FAULT = "fault"
    UNKNOWN = "unknown"


SESSION_ID_PREFIX = "ses_"
SESSION_ID_HEX = 24


def session_id_from(hex_digits: str) -> str:
    """A session id in the one format of live and sandbox chargers alike: `ses_` and 24 hex
    digits (random for a live charger's transaction, a digest for a sandbox session)."""
    return SESSION_ID_PREFIX + hex_digits[:SESSION_ID_HEX]


@dataclass(frozen=True, slots=True)
class ChargingSession:
    """One session of one charger. An active session has no end and no end reason; a
    completed one may still lack a reason (the charger gave none)."""

    id: str
    device_id: str
    status: SessionStatus
    started_at: datetime
    ended_at: datetime | None
    energy_kwh: float
    measurement: Measurement
    end_reason: EndReason | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "started_at", ensure_utc(self.started_at))
        if self.ended_at is not None:
            object.__setattr__(self, "ended_at", ensure_utc(self.ended_at))
        if not (math.isfinite(self.energy_kwh) and self.energy_kwh >= 0):
            raise ValueError(f"energy_kwh must be a finite number >= 0, not {self.energy_kwh}")
        if self.status is SessionStatus.ACTIVE:
            if self.ended_at is not None or self.end_reason is not None:
                raise ValueError("an active session has no ended_at and no end_reason")
        elif self.ended_at is None or self.ended_at < self.started_at:
            raise ValueError("a completed session ends at or after its start")


def _invalid(path: str, message: str) -> InvalidRequest:
    """The 400 a bad query parameter gets from the API layer (CONTRACT 1)."""
    return InvalidRequest(f"{message}.", errors=[{"path": path, "message": message}])


@dataclass(frozen=True, slots=True)
class SessionWindow:
    """[start, end] a listing was cut from; echoed as `window` so later pages reuse `to`."""

    start: datetime
    end: datetime

    def __post_init__(self) -> None:
        object.__setattr__(self, "start", ensure_utc(self.start))
        object.__setattr__(self, "end", ensure_utc(self.end))
        if self.start > self.end:
            raise _invalid("query.from", "from must not be after to")

    @classmethod
    def resolve(
        cls, clock: Clock, start: datetime | None = None, end: datetime | None = None
    ) -> SessionWindow:
        """The window a request asks for: `to` defaults to now, `from` to 30 days before
        `to`, so a client paging with the echoed `to` keeps a fixed 30-day window."""
        to = ensure_utc(end) if end is not None else clock.now()
        return cls(ensure_utc(start) if start is not None else to - DEFAULT_WINDOW, to)

    def to_json(self) -> dict[str, str]:
        return {"from": isoformat_utc(self.start), "to": isoformat_utc(self.end)}


@dataclass(frozen=True, slots=True)
class SessionQuery:
    """A validated listing request. `limit`/`offset` are bounded by the API layer already;
    they are checked again so a service caller cannot page outside the same bounds."""

    window: SessionWindow
    status: SessionStatus | None = None
    limit: int = DEFAULT_LIMIT
    offset: int = 0

    def __post_init__(self) -> None:
        if self.limit < 1:
            raise _invalid("query.limit", "Input should be greater than or equal to 1")
        if self.limit > MAX_LIMIT:
            raise _invalid("query.limit", f"Input should be less than or equal to {MAX_LIMIT}")
        if self.offset < 0:
            raise _invalid("query.offset", "Input should be greater than or equal to 0")
        if self.offset > MAX_OFFSET:
            raise _invalid("query.offset", f"Input should be less than or equal to {MAX_OFFSET}")


@dataclass(frozen=True, slots=True)
class SessionPage:
    items: list[ChargingSession]
    total: int


def overlaps(session: ChargingSession, window: SessionWindow) -> bool:
    """Whether the session shares time with the window: it started before `to`, and is still
    active or ended after `from`."""
    if session.started_at >= window.end:
        return False
    return session.ended_at is None or session.ended_at > window.start


def sort_key(session: ChargingSession) -> tuple[datetime, str]:
    """Listing order is descending on this key: newest start first, then the larger id
    (`ORDER BY started_at DESC, id DESC`, one index scan)."""
    return (session.started_at, session.id)


def select_sessions(sessions: Iterable[ChargingSession], query: SessionQuery) -> SessionPage:
    """The page a query returns from all of a charger's sessions, and how many matched."""
    matched = [
        s
        for s in sessions
        if overlaps(s, query.window) and (query.status is None or s.status is query.status)
    ]
    matched.sort(key=sort_key, reverse=True)
    return SessionPage(matched[query.offset : query.offset + query.limit], len(matched))


def session_body(session: ChargingSession) -> dict[str, Any]:
    """The spec 2.6 JSON of a session: `endedAt`/`endReason` are absent, not null, when the
    session is active or the charger gave no reason."""
    body: dict[str, Any] = {
        "id": session.id,
        "status": session.status.value,
        "startedAt": isoformat_utc(session.started_at),
    }
    if session.ended_at is not None:
        body["endedAt"] = isoformat_utc(session.ended_at)
    body["energyDelivered"] = Quantity(round(session.energy_kwh, 3), "kwh").to_json()
    body["measurement"] = session.measurement.value
    if session.end_reason is not None:
        body["endReason"] = session.end_reason.value
    return body
