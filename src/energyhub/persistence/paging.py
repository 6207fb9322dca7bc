"""One page of a table's rows and how many match: what every list route needs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, RowMapping, Table, func, select
from sqlalchemy.ext.asyncio import AsyncConnection


async def page_of(
    connection: AsyncConnection,
    table: Table,
    where: Sequence[ColumnElement[bool]],
    order_by: Sequence[Any],
    offset: int,
    limit: int,
) -> tuple[list[RowMapping], int]:
    """The rows of `table` matching `where`, in `order_by`, from `offset`; and the total."""
    total = (
        await connection.execute(select(func.count()).select_from(table).where(*where))
    ).scalar_one()
    rows = await connection.execute(
        select(table).where(*where).order_by(*order_by).offset(offset).limit(limit)
    )
    return [row._mapping for row in rows], int(total)
