"""The push hot path on PostgreSQL, over asyncpg directly.

A push reads its device with the actions in play, decides, and writes the new action with
its device's changes. Holding the device's row lock from the read to the commit costs five
round trips (BEGIN, lock, read, write, COMMIT), each ~0.05 ms of Python here and as much in
the database; instead the read takes no lock, and the write is one statement that locks the
row and writes only if neither the device nor its actions in play changed since the read
(their row versions, `xmin`, say so). Two round trips; when something did change, nothing is
written and `StaleRead` sends the push round again under the lock (the one-action rule
holds either way). A push that writes more (it replaces actions, or its event) takes the
lock before its first other write, checking the same way. The SQL is generated from the
table definitions in `tables.py`, and rows map through the same functions as the
SQLAlchemy repositories, so the two cannot drift apart."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, Self

import asyncpg
import orjson
from sqlalchemy import Table
from sqlalchemy.engine import make_url

from energyhub.domain.accounts import Environment
from energyhub.domain.actions import Action
from energyhub.domain.devices import Device
from energyhub.domain.events import OutboxEvent
from energyhub.domain.pushes import PushPlan
from energyhub.persistence.actions import (
    action_from_row,
    action_values,
    cancelled_values,
    cut_values,
    in_play_sql,
    plain_values,
)
from energyhub.persistence.devices import device_change_values, device_from_row
from energyhub.persistence.events import event_values
from energyhub.persistence.tables import actions, devices, webhook_events
from energyhub.ports.storage import StaleRead


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
    f"SELECT {_columns(actions)} FROM actions WHERE {in_play_sql('actions', '$1', '$2')} "
    "ORDER BY pk"
)
INSERT_COLUMNS = [c.name for c in actions.columns if c.name != "pk"]
INSERT_COLUMN_LIST = ", ".join(f'"{c}"' for c in INSERT_COLUMNS)
INSERT_ACTION = (
    f"INSERT INTO actions ({INSERT_COLUMN_LIST}) "
    f"VALUES ({', '.join(f'${i}' for i in range(1, len(INSERT_COLUMNS) + 1))})"
)


# A push's read: the device with its row version (`xmin`) and those of its actions in play,
# as `energyhub_push_unchanged` compares them; the actions themselves only when there are any
# (rarely, on the hot path).
def _action_versions_sql(device: str, now: str) -> str:
    return (
        "(SELECT string_agg(a.id || ':' || a.xmin::text, ',' ORDER BY a.pk) FROM actions a "
        f"WHERE {in_play_sql('a', device, now)})"
    )


SELECT_FOR_PUSH = (
    "SELECT "
    + ", ".join(
        "d.capabilities::text AS capabilities" if c.name == "capabilities" else f'd."{c.name}"'
        for c in devices.columns
    )
    + ", d.xmin::text AS device_version, "
    + _action_versions_sql("d.id", "$2")
    + " AS action_versions FROM devices d WHERE d.id = $1"
)
SELECT_IN_PLAY_VERSIONS = (
    f"SELECT {', '.join(f'a.{chr(34)}{c.name}{chr(34)}' for c in actions.columns)}, "
    f"a.xmin::text AS action_version FROM actions a WHERE {in_play_sql('a', '$1', '$2')} "
    "ORDER BY a.pk"
)
# Session-local (pg_temp), created on each pooled connection: no migration, no shared state.
# In a volatile PL/pgSQL function each statement takes a new snapshot, so the versions are
# read after the lock is held, including whatever the previous holder committed.
UNCHANGED_FUNCTION = "pg_temp.energyhub_push_unchanged"
CREATE_UNCHANGED_FUNCTION = f"""
CREATE OR REPLACE FUNCTION {UNCHANGED_FUNCTION}(p_device text, p_seen text, p_now timestamptz)
RETURNS boolean LANGUAGE plpgsql VOLATILE AS $body$
DECLARE
    device_version text;
    action_versions text;
BEGIN
    -- the locked row is its newest version, whatever this statement's snapshot
    SELECT xmin::text INTO device_version FROM devices WHERE id = p_device FOR UPDATE;
    SELECT {_action_versions_sql("p_device", "p_now")} INTO action_versions;
    RETURN (device_version || '|' || coalesce(action_versions, '')) IS NOT DISTINCT FROM p_seen;
END
$body$"""


def _version(device_version: str, action_versions: str | None) -> str:
    """What `energyhub_push_unchanged` compares: the device's and its actions' row versions."""
    return device_version + "|" + (action_versions or "")


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


_ADD_IF_UNCHANGED: dict[tuple[str, ...], str] = {}


def _add_action_if_unchanged_sql(device_columns: tuple[str, ...]) -> str:
    """`_add_action_sql` under `energyhub_push_unchanged`: the row lock, the check, and the
    writes (or none) in one statement; parameters as there, then the versions seen and now."""
    found = _ADD_IF_UNCHANGED.get(device_columns)
    if found is None:
        n = len(INSERT_COLUMNS)
        device, seen, now = n + 1, n + len(device_columns) + 2, n + len(device_columns) + 3
        values = ", ".join(f"${i}" for i in range(1, n + 1))
        update = UPDATE_DEVICES.sql(device_columns, first=device)
        found = _ADD_IF_UNCHANGED[device_columns] = (
            f"WITH ok AS (SELECT {UNCHANGED_FUNCTION}(${device}, ${seen}, ${now}) AS ok), "
            f"added AS (INSERT INTO actions ({INSERT_COLUMN_LIST}) SELECT {values} "
            "WHERE (SELECT ok FROM ok)) "
            f"{update} AND (SELECT ok FROM ok)"
        )
    return found


def _owned(row: asyncpg.Record, account_id: str, environment: Environment) -> Device | None:
    """The device when it belongs to this account and environment (else it is not found)."""
    if row["account_id"] != account_id or row["environment"] != environment.value:
        return None
    return device_from_row(row)


def _displaces(plan: PushPlan) -> bool:
    """The push changes other actions too: those writes need the lock first."""
    return bool(plan.cancelled or plan.cut)


def _changed(status: str) -> bool:
    """asyncpg answers an UPDATE with its command tag, `UPDATE <rows>`."""
    return not status.endswith(" 0")


Ready = Callable[[], Awaitable[None]]


async def _no_wait() -> None:
    return None


class AsyncpgDevices:
    """`ready` runs before each statement: a push that read without the lock takes it there."""

    def __init__(self, connection: asyncpg.Connection, ready: Ready = _no_wait) -> None:
        self._c = connection
        self._ready = ready

    async def get_device(
        self, account_id: str, environment: Environment, device_id: str, *, lock: bool = False
    ) -> Device | None:
        await self._ready()
        row = await self._c.fetchrow(SELECT_DEVICE_LOCKED if lock else SELECT_DEVICE, device_id)
        return None if row is None else _owned(row, account_id, environment)

    async def update_device(self, device_id: str, **values: Any) -> None:
        await self._ready()
        columns = tuple(values)
        await self._c.execute(UPDATE_DEVICES.sql(columns), device_id, *values.values())

    async def update_device_if(
        self, device_id: str, expected: dict[str, Any], **values: Any
    ) -> bool:
        await self._ready()
        sql = UPDATE_DEVICES.sql(tuple(values), tuple(expected))
        status = await self._c.execute(sql, device_id, *values.values(), *expected.values())
        return _changed(status)


class AsyncpgActions:
    def __init__(self, connection: asyncpg.Connection, ready: Ready = _no_wait) -> None:
        self._c = connection
        self._ready = ready

    async def in_play(self, device_id: str, now: datetime) -> Sequence[Action]:
        await self._ready()
        rows = await self._c.fetch(SELECT_IN_PLAY, device_id, now)
        return [action_from_row(row) for row in rows]

    async def add(self, action: Action) -> None:
        await self._ready()
        values = action_values(action)
        await self._c.execute(INSERT_ACTION, *(values[c] for c in INSERT_COLUMNS))

    async def update(self, action_id: str, *, held_by: str | None = None, **values: Any) -> bool:
        await self._ready()
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
    def __init__(self, connection: asyncpg.Connection, ready: Ready = _no_wait) -> None:
        self._c = connection
        self._ready = ready

    async def add(self, events: Sequence[OutboxEvent]) -> None:
        await self._ready()
        rows = [event_values(e) for e in events]
        await self._c.executemany(
            INSERT_EVENT, [[row[c] for c in INSERT_EVENT_COLUMNS] for row in rows]
        )


class AsyncpgPushUnitOfWork:
    """One push over one pooled connection: an optimistic read, then either one checked
    write without a transaction, or (before any other statement) a transaction that holds
    the device's lock and checks the same way."""

    devices: AsyncpgDevices
    actions: AsyncpgActions
    events: AsyncpgEvents

    def __init__(self, factory: AsyncpgPushUnitOfWorkFactory) -> None:
        self._factory = factory
        self._pool: asyncpg.Pool | None = None
        self._connection: asyncpg.Connection | None = None
        self._transaction: Any = None
        self._after_commit: list[Callable[[], None]] = []
        self._seen: tuple[str, str, datetime] | None = None  # device id, versions, now
        self._pending: PushPlan | None = None

    async def __aenter__(self) -> Self:
        pool = self._pool = await self._factory.pool()
        connection = self._connection = await pool.acquire()
        self.devices = AsyncpgDevices(connection, self._locked)
        self.actions = AsyncpgActions(connection, self._locked)
        self.events = AsyncpgEvents(connection, self._locked)
        return self

    async def device_for_push(
        self, account_id: str, environment: Environment, device_id: str, now: datetime
    ) -> tuple[Device, Sequence[Action]] | None:
        """Read without a lock, in one statement; the write checks the versions seen."""
        assert self._connection is not None
        row = await self._connection.fetchrow(SELECT_FOR_PUSH, device_id, now)
        device = None if row is None else _owned(row, account_id, environment)
        if row is None or device is None:
            return None
        in_play: list[Action] = []
        versions = None
        if row["action_versions"] is not None:
            # read later than the device: the write's check covers both reads as one
            rows = await self._connection.fetch(SELECT_IN_PLAY_VERSIONS, device_id, now)
            in_play = [action_from_row(r) for r in rows]
            versions = ",".join(
                f"{a.id}:{r['action_version']}" for a, r in zip(in_play, rows, strict=True)
            )
        self._seen = (device_id, _version(row["device_version"], versions), now)
        return device, in_play

    async def add_action(self, plan: PushPlan) -> None:
        """Under the lock, written now; else, when it changes no other action, kept for the
        checked write at the end."""
        if self._transaction is None and self._pending is None and not _displaces(plan):
            self._pending = plan
            return
        await self._locked()
        await self._write(plan)

    async def _write(self, plan: PushPlan) -> None:
        assert self._connection is not None
        for cancelled in plan.cancelled:
            await self.actions.update(cancelled.id, **cancelled_values(cancelled))
        for cut in plan.cut:
            await self.actions.update(cut.id, **cut_values(cut))
        values = action_values(plan.action)
        device_changes = device_change_values(plan.device)
        await self._connection.execute(
            _add_action_sql(tuple(device_changes)),
            *(values[c] for c in INSERT_COLUMNS),
            plan.action.device_id,
            *device_changes.values(),
        )

    async def _locked(self) -> None:
        """Opens the transaction and takes the device's lock, once; raises `StaleRead` when
        what the push read has changed. A write kept until now goes first."""
        if self._transaction is not None:
            return
        assert self._connection is not None
        transaction = self._connection.transaction()
        await transaction.start()
        self._transaction = transaction
        if self._seen is not None:
            device_id, seen, now = self._seen
            sql = f"SELECT {UNCHANGED_FUNCTION}($1, $2, $3)"
            if not await self._connection.fetchval(sql, device_id, seen, now):
                raise StaleRead(device_id)
        if self._pending is not None:
            pending, self._pending = self._pending, None
            await self._write(pending)

    async def _write_if_unchanged(self, plan: PushPlan) -> None:
        assert self._connection is not None
        assert self._seen is not None
        device_id, seen, now = self._seen
        values = action_values(plan.action)
        device_changes = device_change_values(plan.device)
        status = await self._connection.execute(
            _add_action_if_unchanged_sql(tuple(device_changes)),
            *(values[c] for c in INSERT_COLUMNS),
            device_id,
            *device_changes.values(),
            seen,
            now,
        )
        if not _changed(status):
            raise StaleRead(device_id)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._connection is None or self._pool is None:
            return
        try:
            if exc_type is None:
                await self._finish()
            elif self._transaction is not None:
                await self._transaction.rollback()
        finally:
            connection, self._connection = self._connection, None
            await self._pool.release(connection)
        if exc_type is None:
            for callback in self._after_commit:
                callback()

    async def _finish(self) -> None:
        """The checked write, or the transaction's commit (rolled back when that fails)."""
        if self._transaction is None and self._pending is not None and self._seen is not None:
            pending, self._pending = self._pending, None
            await self._write_if_unchanged(pending)
            return
        try:
            if self._pending is not None:
                await self._locked()
        except BaseException:
            if self._transaction is not None:
                await self._transaction.rollback()
            raise
        if self._transaction is not None:
            await self._transaction.commit()

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
                        init=_prepare_session,
                        reset=_keep_session,
                    )
        return self._pool

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    def __call__(self) -> AsyncpgPushUnitOfWork:
        return AsyncpgPushUnitOfWork(self)


async def _prepare_session(connection: asyncpg.Connection) -> None:
    """JSON through orjson, in binary format (jsonb's is a version byte, then the text), and
    the session's check function for optimistic pushes."""
    await connection.execute(CREATE_UNCHANGED_FUNCTION)
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
