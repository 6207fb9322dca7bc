"""The one claim of due rows (DESIGN "Due work is rows, not timers"): a worker takes the
rows due by now that nobody holds, and marks them held until its lease ends. On PostgreSQL
the rows are selected `FOR UPDATE SKIP LOCKED`, so workers in other processes claim other
rows instead of waiting; SQLite has one writer, which serialises the claims."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Row, Table, select, update
from sqlalchemy.ext.asyncio import AsyncConnection


async def claim_due(
    connection: AsyncConnection,
    table: Table,
    due: Sequence[ColumnElement[bool]],
    held: Mapping[str, Any],
    limit: int,
    order_by: str = "due_at",
) -> list[Row[Any]]:
    """Up to `limit` rows of `table` matching every `due` condition, oldest `due_at`
    first, with the `held` values (the lease) written to them; returned as they are after
    that write, ordered by `order_by`."""
    query = select(table.c.pk).where(*due).order_by(table.c.due_at).limit(limit)
    if connection.dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    pks = [r.pk for r in await connection.execute(query)]
    if not pks:
        return []
    await connection.execute(update(table).where(table.c.pk.in_(pks)).values(**held))
    rows = await connection.execute(
        select(table).where(table.c.pk.in_(pks)).order_by(table.c[order_by])
    )
    return list(rows)
