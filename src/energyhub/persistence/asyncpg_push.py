"""The push hot path on PostgreSQL, over asyncpg directly.

A push needs five statements in one transaction (lock the device, read its actions in play,
insert the action, update the device and, rarely, the actions it replaces). Through
SQLAlchemy's async layers each cost ~0.3 ms of Python; straight on asyncpg, with the
statements prepared once per connection, ~0.05 ms (bench/push.py). The SQL is generated from
the table definitions in `tables.py`, and rows map through the same functions as the
SQLAlchemy repositories, so the two cannot drift apart."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, Self

import asyncpg
import orjson
from sqlalchemy import Table
from sqlalchemy.engine import make_url

from energyhub.domain.accounts import Environment
from energyhub.domain.actions import Action, ActionState
from energyhub.domain.devices import Device
from energyhub.domain.events import OutboxEvent
from energyhub.persistence.actions import IN_PLAY, action_from_row, action_values, plain_values
from energyhub.persistence.devices import device_from_row
from energyhub.persistence.events import event_values
from energyhub.persistence.tables import actions, devices, webhook_events


def _columns(table: Table) -> str:
    return ", ".join(f'"{c.name}"' for c in table.columns)


# By id alone, the owner checked on the row: with the owner in the WHERE clause, PostgreSQL's
# generic plan for the prepared statement walked the account's index and filtered on id,
# reading every device of the account (a push cost the database ~2 ms with 8,000 devices).
# capabilities as text: parsed documents are cached by it (`capabilities_from_text`)
DEVICE_COLUMNS = ", ".join(
    "capabilities::text AS capabilities" if c.name == "capabilities" else f'"{c.name}"'
    for c in devices.columns
)
SELECT_DEVICE = f"SELECT {DEVICE_COLUMNS} FROM devices WHERE id = $1"
SELECT_DEVICE_LOCKED = SELECT_DEVICE + " FOR UPDATE"
SELECT_IN_PLAY = (
    f"SELECT {_columns(actions)} FROM actions WHERE device_id = $1 "
    f"AND (state = ANY($2::varchar[]) OR (state = '{ActionState.COMPLETED.value}' "
    'AND "end" > $3)) ORDER BY pk'
)
INSERT_COLUMNS = [c.name for c in actions.columns if c.name != "pk"]
INSERT_ACTION = (
    f"INSERT INTO actions ({', '.join(f'{chr(34)}{c}{chr(34)}' for c in INSERT_COLUMNS)}) "
    f"VALUES ({', '.join(f'${i}' for i in range(1, len(INSERT_COLUMNS) + 1))})"
)


class _UpdateStatements:
    """`UPDATE table SET ... WHERE id = $n [AND col = $m ...]`, built once per column set;
    parameters are numbered from `first` (the id), then the values, then the conditions."""

    def __init__(self, table: Table) -> None:
        self._table = table.name
        self._known = {c.name for c in table.columns}
        self._built: dict[tuple[tuple[str, ...], tuple[str, ...], int], str] = {}

    def sql(
        self, columns: tuple[str, ...], conditions: tuple[str, ...] = (), first: int = 1
    ) -> str:
        key = (columns, conditions, first)
        found = self._built.get(key)
        if found is None:
            unknown = (set(columns) | set(conditions)) - self._known
            if unknown:
                raise ValueError(f"no column {sorted(unknown)} in {self._table}")
            n = first + 1
            sets = ", ".join(f'"{c}" = ${i}' for i, c in enumerate(columns, start=n))
            n += len(columns)
            where = "".join(f' AND "{c}" = ${i}' for i, c in enumerate(conditions, start=n))
            found = f"UPDATE {self._table} SET {sets} WHERE id = ${first}{where}"
            self._built[key] = found
        return found


UPDATE_ACTIONS = _UpdateStatements(actions)
UPDATE_DEVICES = _UpdateStatements(devices)


def _add_action_sql(device_columns: tuple[str, ...]) -> str:
    """A new action and its device's changes in one statement."""
    update = UPDATE_DEVICES.sql(device_columns, first=len(INSERT_COLUMNS) + 1)
    return f"WITH added AS ({INSERT_ACTION}) {update}"


def _owned(row: asyncpg.Record, account_id: str, environment: Environment) -> Device | None:
    """The device when it belongs to this account and environment (else it is not found)."""
    if row["account_id"] != account_id or row["environment"] != environment.value:
        return None
    return device_from_row(row)


def _changed(status: str) -> bool:
    """asyncpg answers an UPDATE with its command tag, `UPDATE <rows>`."""
    return not status.endswith(" 0")


class AsyncpgDevices:
    def __init__(self, connection: asyncpg.Connection) -> None:
        self._c = connection

    async def get_device(
        self, account_id: str, environment: Environment, device_id: str, *, lock: bool = False
    ) -> Device | None:
        row = await self._c.fetchrow(SELECT_DEVICE_LOCKED if lock else SELECT_DEVICE, device_id)
        return None if row is None else _owned(row, account_id, environment)

    async def update_device(self, device_id: str, **values: Any) -> None:
        columns = tuple(values)
        await self._c.execute(UPDATE_DEVICES.sql(columns), device_id, *values.values())

    async def update_device_if(
        self, device_id: str, expected: dict[str, Any], **values: Any
    ) -> bool:
        sql = UPDATE_DEVICES.sql(tuple(values), tuple(expected))
        status = await self._c.execute(sql, device_id, *values.values(), *expected.values())
        return _changed(status)


class AsyncpgActions:
    def __init__(self, connection: asyncpg.Connection) -> None:
        self._c = connection

    async def in_play(self, device_id: str, now: datetime) -> Sequence[Action]:
        rows = await self._c.fetch(SELECT_IN_PLAY, device_id, IN_PLAY, now)
        return [action_from_row(row) for row in rows]

    async def add(self, action: Action) -> None:
        values = action_values(action)
        await self._c.execute(INSERT_ACTION, *(values[c] for c in INSERT_COLUMNS))

    async def update(self, action_id: str, *, held_by: str | None = None, **values: Any) -> bool:
        plain = plain_values(values)
        if held_by is None:
            sql = UPDATE_ACTIONS.sql(tuple(plain))
            return _changed(await self._c.execute(sql, action_id, *plain.values()))
        sql = UPDATE_ACTIONS.sql(tuple(plain), ("lease_owner",))
        return _changed(await self._c.execute(sql, action_id, *plain.values(), held_by))


INSERT_EVENT_COLUMNS = [c.name for c in webhook_events.columns if c.name != "pk"]
INSERT_EVENT = (
    f"INSERT INTO webhook_events ({', '.join(INSERT_EVENT_COLUMNS)}) "
    f"VALUES ({', '.join(f'${i}' for i in range(1, len(INSERT_EVENT_COLUMNS) + 1))})"
)


class AsyncpgEvents:
    def __init__(self, connection: asyncpg.Connection) -> None:
        self._c = connection

    async def add(self, events: Sequence[OutboxEvent]) -> None:
        rows = [event_values(e) for e in events]
        await self._c.executemany(
            INSERT_EVENT, [[row[c] for c in INSERT_EVENT_COLUMNS] for row in rows]
        )


class AsyncpgPushUnitOfWork:
    """One asyncpg transaction holding the repositories a push uses."""

    devices: AsyncpgDevices
    actions: AsyncpgActions
    events: AsyncpgEvents

    def __init__(self, factory: AsyncpgPushUnitOfWorkFactory) -> None:
        self._factory = factory
        self._pool: asyncpg.Pool | None = None
        self._connection: asyncpg.Connection | None = None
        self._transaction: Any = None
        self._after_commit: list[Callable[[], None]] = []

    async def __aenter__(self) -> Self:
        pool = self._pool = await self._factory.pool()
        connection = await pool.acquire()
        try:
            transaction = connection.transaction()
            await transaction.start()
        except BaseException:
            await pool.release(connection)
            raise
        self._connection, self._transaction = connection, transaction
        self.devices = AsyncpgDevices(connection)
        self.actions = AsyncpgActions(connection)
        self.events = AsyncpgEvents(connection)
        return self

    async def device_for_push(
        self, account_id: str, environment: Environment, device_id: str, now: datetime
    ) -> tuple[Device, Sequence[Action]] | None:
        """Two statements on purpose: one that also read the actions would read them in the
        snapshot taken before it waited for the lock, missing what the previous holder
        added (the concurrency test catches that)."""
        assert self._connection is not None
        row = await self._connection.fetchrow(SELECT_DEVICE_LOCKED, device_id)
        device = None if row is None else _owned(row, account_id, environment)
        if device is None:
            return None
        rows = await self._connection.fetch(SELECT_IN_PLAY, device_id, IN_PLAY, now)
        return device, [action_from_row(a) for a in rows]

    async def add_action(self, action: Action, device_changes: dict[str, Any]) -> None:
        assert self._connection is not None
        values = action_values(action)
        await self._connection.execute(
            _add_action_sql(tuple(device_changes)),
            *(values[c] for c in INSERT_COLUMNS),
            action.device_id,
            *device_changes.values(),
        )

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        connection, self._connection = self._connection, None
        if connection is None or self._pool is None:
            return
        try:
            if exc_type is None:
                await self._transaction.commit()
            else:
                await self._transaction.rollback()
        finally:
            await self._pool.release(connection)
        if exc_type is None:
            for callback in self._after_commit:
                callback()

    def after_commit(self, callback: Callable[[], None]) -> None:
        self._after_commit.append(callback)


class AsyncpgPushUnitOfWorkFactory:
    """Owns a small asyncpg pool, opened on first use inside the running loop."""

    def __init__(self, database_url: str, max_connections: int = 16) -> None:
        url = make_url(database_url).set(drivername="postgresql")
        self._dsn = url.render_as_string(hide_password=False)
        self._max = max_connections
        self._pool: asyncpg.Pool | None = None
        self._opening = asyncio.Lock()

    async def pool(self) -> asyncpg.Pool:
        if self._pool is None:
            async with self._opening:
                if self._pool is None:
                    self._pool = await asyncpg.create_pool(
                        self._dsn,
                        min_size=1,
                        max_size=self._max,
                        init=_with_json_codecs,
                        reset=_keep_session,
                    )
        return self._pool

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    def __call__(self) -> AsyncpgPushUnitOfWork:
        return AsyncpgPushUnitOfWork(self)


async def _with_json_codecs(connection: asyncpg.Connection) -> None:
    """JSON through orjson, in binary format (jsonb's is a version byte, then the text)."""
    await connection.set_type_codec(
        "jsonb",
        schema="pg_catalog",
        encoder=lambda value: b"\x01" + orjson.dumps(value),
        decoder=lambda data: orjson.loads(data[1:]),
        format="binary",
    )
    await connection.set_type_codec(
        "json", schema="pg_catalog", encoder=orjson.dumps, decoder=orjson.loads, format="binary"
    )


async def _keep_session(connection: asyncpg.Connection) -> None:
    """Nothing to reset: every use is one transaction that ends before release (asyncpg
    still rolls back one left open). Saves the default reset's round trip."""
