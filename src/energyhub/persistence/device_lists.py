"""List pages of devices in one statement, and the devices of rows seen before.

A page within the first `paging.WALK_LIMIT` rows is read with its count in one prepared
statement (the page's rows, and the rows from its start counted up to `paging.COUNT_CAP`
past it) instead of `page_of`'s three: at 50 devices a page, the round trips and the
statements' building cost more than the rows. Deeper pages go through `page_of`
(bookmarks); both give the same rows and `total`. Each row's documents come as JSON text,
so an unchanged device is recognised by comparing values, and `ListedDevices` gives back
the `Device` built from it before."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import JSON, DateTime, Select, Text, bindparam, cast, func, select, type_coerce
from sqlalchemy.ext.asyncio import AsyncConnection

from energyhub.domain.capabilities import Capabilities
from energyhub.domain.clock import ensure_utc
from energyhub.domain.devices import Device
from energyhub.persistence import paging
from energyhub.persistence.engine import json_document
from energyhub.persistence.tables import devices
from energyhub.persistence.types import UTCDateTime

_DOCUMENTS = frozenset(c.name for c in devices.columns if isinstance(c.type, JSON))
_TIMES = frozenset(c.name for c in devices.columns if isinstance(c.type, UTCDateTime))
# documents as text and times as the driver reads them: nothing decoded before the
# comparison with the row seen before (`ListedDevices`)
LISTED_COLUMNS = [
    cast(c, Text).label(c.name)
    if c.name in _DOCUMENTS
    else type_coerce(c, DateTime(timezone=True)).label(c.name)
    if c.name in _TIMES
    else c
    for c in devices.columns
]
LISTED_NAMES = tuple(c.name for c in devices.columns)
_ID_AT = LISTED_NAMES.index("id")
_CAPABILITIES_AT = LISTED_NAMES.index("capabilities")


def _listing(by_type: bool, by_user: bool) -> Select[Any]:
    """A page of one account's devices in creation order, and `_matching`: how many match
    from the page's start, counted up to `:matching_limit` (the same for every row)."""
    where = [
        devices.c.account_id == bindparam("account_id"),
        devices.c.environment == bindparam("environment"),
    ]
    if by_type:
        where.append(devices.c.type == bindparam("type"))
    if by_user:
        where.append(devices.c.user_id == bindparam("user_id"))
    matching = (
        select(devices.c.pk)
        .where(*where)
        .limit(bindparam("matching_limit"))
        .offset(bindparam("offset"))
        .subquery()
    )
    return (
        select(
            *LISTED_COLUMNS,
            select(func.count()).select_from(matching).scalar_subquery().label("_matching"),
        )
        .where(*where)
        .order_by(devices.c.pk)
        .limit(bindparam("limit"))
        .offset(bindparam("offset"))
    )


# built once: a statement's cache key is computed once per statement object
_LISTINGS = {(t, u): _listing(t, u) for t in (False, True) for u in (False, True)}


def first_pages(offset: int, limit: int, types: Sequence[Any]) -> bool:
    """Whether `near_page` reads this page: a single type or none, within
    `paging.WALK_LIMIT` (deeper pages start at `page_of`'s bookmarks, taken there)."""
    return len(types) <= 1 and offset + limit <= paging.WALK_LIMIT


_ASYNCPG_LISTINGS: dict[tuple[bool, bool], tuple[str, tuple[str, ...]]] = {}


def _asyncpg_listing(
    connection: AsyncConnection, variant: tuple[bool, bool]
) -> tuple[str, tuple[str, ...]]:
    """A listing's SQL as asyncpg takes it, and its parameters' names in `$n` order.
    Sent on the driver's connection: no statement to build or result to adapt, and outside
    a transaction (one statement reads one snapshot) no BEGIN and COMMIT round trips."""
    found = _ASYNCPG_LISTINGS.get(variant)
    if found is None:
        compiled = _LISTINGS[variant].compile(dialect=connection.dialect)
        names = tuple(compiled.positiontup or ())
        found = _ASYNCPG_LISTINGS[variant] = (str(compiled), names)
    return found


async def near_page(
    connection: AsyncConnection,
    account_id: str,
    environment: str,
    device_type: str | None,
    user_id: str | None,
    offset: int,
    limit: int,
) -> tuple[list[Sequence[Any]], int]:
    """The rows (`LISTED_NAMES`) of a page `first_pages` accepts, and `total` as `page_of`
    counts it: exact up to `paging.COUNT_CAP` rows past the page, else that lower bound."""
    cap = paging.COUNT_CAP
    params: dict[str, Any] = {
        "account_id": account_id,
        "environment": environment,
        "limit": limit,
        "offset": offset,
        "matching_limit": limit + cap + 1,
    }
    if device_type is not None:
        params["type"] = device_type
    if user_id is not None:
        params["user_id"] = user_id
    variant = (device_type is not None, user_id is not None)
    if connection.dialect.driver == "asyncpg":
        sql, names = _asyncpg_listing(connection, variant)
        raw = await connection.get_raw_connection()
        driver: Any = raw.driver_connection
        rows = [tuple(r) for r in await driver.fetch(sql, *(params[n] for n in names))]
    else:
        rows = [tuple(row) for row in await connection.execute(_LISTINGS[variant], params)]
    if not rows:  # past the end: fewer than `offset` match (all counted), or exactly so
        if offset == 0:
            return [], 0
        where = [devices.c.account_id == account_id, devices.c.environment == environment]
        if device_type is not None:
            where.append(devices.c.type == device_type)
        if user_id is not None:
            where.append(devices.c.user_id == user_id)
        counted = select(devices.c.pk).where(*where).limit(offset).subquery()
        total = (await connection.execute(select(func.count()).select_from(counted))).scalar()
        return [], int(total or 0)
    matching = int(rows[0][-1])
    return [row[:-1] for row in rows], offset + len(rows) + min(matching - len(rows), cap)


class ListedDevices:
    """The devices of list pages by id, each with the row it was built from: a row equal to
    the one read before gives back the same `Device`, without decoding its documents or
    building it again (and the api keeps the serialised item by that object). Any change to
    a column changes the row, so nothing needs telling; the oldest entries go first."""

    def __init__(
        self, build: Callable[[Mapping[str, Any]], Device], max_entries: int = 10_000
    ) -> None:
        self._build = build
        self._max_entries = max_entries
        self._entries: dict[str, tuple[tuple[Any, ...], Device]] = {}

    def device(self, row: Sequence[Any], capabilities: Callable[[str], Capabilities]) -> Device:
        """`row` of `LISTED_NAMES` as a device; its capabilities are compared as their parsed
        object (`capabilities` gives one per document) rather than their text."""
        values = list(row)
        values[_CAPABILITIES_AT] = capabilities(values[_CAPABILITIES_AT])
        key = tuple(values)
        device_id = row[_ID_AT]
        found = self._entries.get(device_id)
        if found is not None and found[0] == key:
            return found[1]
        device = self._build(
            {
                name: (
                    value
                    if value is None or name == "capabilities"
                    else json_document(value)
                    if name in _DOCUMENTS
                    else ensure_utc(value)
                    if name in _TIMES
                    else value
                )
                for name, value in zip(LISTED_NAMES, row, strict=True)
            }
        )
        if len(self._entries) >= self._max_entries and device_id not in self._entries:
            self._entries.pop(next(iter(self._entries)))
        self._entries[device_id] = (key, device)
        return device
