"""One page of a table's rows and how many match: what every list route needs, in time
that does not grow with the table.

Offset and limit stay the API's words, but a deep page is read by key: where a page ended
is remembered (`Bookmarks`), so the next page starts after that row through the index
instead of counting `offset` rows again. Counting stops `COUNT_CAP` rows past the page:
`total` is exact when fewer follow, a lower bound otherwise, and `hasMore` stays exact."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any
from weakref import WeakKeyDictionary

from sqlalchemy import (
    ColumnElement,
    RowMapping,
    Table,
    and_,
    func,
    or_,
    select,
)
from sqlalchemy.engine import Engine
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import UnaryExpression
from sqlalchemy.sql.operators import desc_op

COUNT_CAP = 1_000  # api/schemas.py (Pagination.total) and docs/architecture.md state it
"""Rows counted past a page: beyond, `total` is offset + the page's rows + COUNT_CAP."""
WALK_LIMIT = 1_000
"""Offsets up to this are walked in the index (cheap); deeper ones start at a bookmark."""
SHIFT_LIMIT = 1_000
"""Rows added ahead of a list's bookmarks that are counted to move them; more: forgotten."""
BOOKMARK_TTL_S = 600.0
MAX_SCOPES = 2_000
MAX_BOOKMARKS_PER_SCOPE = 1_000

Key = tuple[Any, ...]


@dataclass
class _Scope:
    """One list (table, filters, order): the key of its first row when the bookmarks were
    taken, and the key of the last row before each remembered offset."""

    head: Key
    at: dict[int, Key] = field(default_factory=dict)
    touched: float = field(default_factory=time.monotonic)


class Bookmarks:
    """Where pages ended, per list, in this process (an LRU; entries live `BOOKMARK_TTL_S`)."""

    def __init__(self) -> None:
        self._scopes: OrderedDict[Hashable, _Scope] = OrderedDict()

    def get(self, scope: Hashable) -> _Scope | None:
        found = self._scopes.get(scope)
        if found is None or time.monotonic() - found.touched > BOOKMARK_TTL_S:
            self._scopes.pop(scope, None)
            return None
        self._scopes.move_to_end(scope)
        return found

    def remember(self, scope: Hashable, head: Key, offset: int, last: Key) -> None:
        found = self._scopes.get(scope)
        if found is None or found.head != head:
            found = self._scopes[scope] = _Scope(head)
        found.at[offset] = last
        found.touched = time.monotonic()
        self._scopes.move_to_end(scope)
        while len(found.at) > MAX_BOOKMARKS_PER_SCOPE:
            del found.at[next(iter(found.at))]
        while len(self._scopes) > MAX_SCOPES:
            self._scopes.popitem(last=False)

    def forget(self, scope: Hashable) -> None:
        self._scopes.pop(scope, None)


_BOOKMARKS: WeakKeyDictionary[Engine, Bookmarks] = WeakKeyDictionary()


def bookmarks_for(connection: AsyncConnection) -> Bookmarks:
    """The bookmarks of the database behind `connection` (one set per engine)."""
    engine = connection.sync_engine
    found = _BOOKMARKS.get(engine)
    if found is None:
        found = _BOOKMARKS[engine] = Bookmarks()
    return found


def _order(order_by: Sequence[Any]) -> tuple[list[ColumnElement[Any]], bool]:
    """The key columns of `order_by` and whether it runs descending (one direction for all:
    the last column makes the order total, as a unique key does)."""
    columns, directions = [], set()
    for item in order_by:
        descending = isinstance(item, UnaryExpression) and item.modifier is desc_op
        columns.append(item.element if isinstance(item, UnaryExpression) else item)
        directions.add(descending)
    if len(directions) != 1:
        raise ValueError("page_of orders by columns in one direction")
    return columns, directions.pop()


def _after(columns: Sequence[ColumnElement[Any]], descending: bool, key: Key) -> Any:
    """Rows that come after `key` in the order (a row comparison, spelled out)."""
    terms = []
    for i, column in enumerate(columns):
        later = column < key[i] if descending else column > key[i]
        terms.append(and_(*(c == k for c, k in zip(columns[:i], key, strict=False)), later))
    return terms[0] if len(terms) == 1 else or_(*terms)


def _before(columns: Sequence[ColumnElement[Any]], descending: bool, key: Key) -> Any:
    return _after(columns, not descending, key)


def _scope(
    connection: AsyncConnection, table: Table, where: Sequence[ColumnElement[bool]], order: Any
) -> Hashable:
    compiled = (
        select(table.c[next(iter(table.primary_key.columns)).name])
        .where(*where)
        .compile(dialect=connection.dialect)
    )
    params = tuple(
        sorted(
            (name, tuple(value) if isinstance(value, list) else value)
            for name, value in compiled.params.items()
        )
    )
    return (table.name, str(compiled), params, order)


async def page_of(
    connection: AsyncConnection,
    table: Table,
    where: Sequence[ColumnElement[bool]],
    order_by: Sequence[Any],
    offset: int,
    limit: int,
    *,
    cap: int | None = None,
    selected: Sequence[Any] | None = None,
) -> tuple[list[RowMapping], int]:
    """The rows of `table` (its `selected` columns, by default all) matching `where`, in
    `order_by` (one direction, the columns together unique), from `offset`; and `total`:
    exact when at most `cap` (default `COUNT_CAP`) rows follow the page, otherwise offset +
    the page's rows + `cap` (a lower bound)."""
    cap = COUNT_CAP if cap is None else cap
    columns, descending = _order(order_by)
    ordering = [c.desc() if descending else c.asc() for c in columns]
    keys = select(*columns).where(*where).order_by(*ordering)
    start: Key | None = None
    scope: Hashable | None = None
    if offset > WALK_LIMIT:
        scope = _scope(connection, table, where, (tuple(str(c) for c in columns), descending))
        start = await _bookmarked(connection, scope, keys, columns, descending, offset)
    if offset > 0 and start is None:
        found = (await connection.execute(keys.offset(offset - 1).limit(1))).first()
        if found is None:  # past the end: fewer than `offset` rows match, all counted
            total = (
                await connection.execute(
                    select(func.count()).select_from(
                        keys.limit(offset).subquery()  # as many as the walk read
                    )
                )
            ).scalar_one()
            return [], int(total)
        start = tuple(found)
    # the page's keys first, from the index alone (the planner cannot mistake a scan of the
    # primary key, filtered, for it), then its rows by primary key
    primary = next(iter(table.primary_key.columns))
    page_keys = select(*columns, primary.label("_pk")).where(*where).order_by(*ordering)
    if start is not None:
        page_keys = page_keys.where(_after(columns, descending, start))
    found_keys = list(await connection.execute(page_keys.limit(limit)))
    if not found_keys:
        return [], offset
    query = select(*(selected or [table])).where(primary.in_([k._pk for k in found_keys]))
    rows = [row._mapping for row in await connection.execute(query.order_by(*ordering))]
    last = tuple(found_keys[-1])[: len(columns)]
    following = (
        await connection.execute(
            select(func.count()).select_from(
                select(columns[-1])
                .where(*where, _after(columns, descending, last))
                .limit(cap + 1)
                .subquery()
            )
        )
    ).scalar_one()
    if following and offset + len(rows) > WALK_LIMIT:
        head = (await connection.execute(keys.limit(1))).first()
        if head is not None:
            if scope is None:
                scope = _scope(
                    connection, table, where, (tuple(str(c) for c in columns), descending)
                )
            bookmarks_for(connection).remember(scope, tuple(head), offset + len(rows), last)
    return rows, offset + len(rows) + min(int(following), cap)


async def _bookmarked(
    connection: AsyncConnection,
    scope: Hashable,
    keys: Any,
    columns: Sequence[ColumnElement[Any]],
    descending: bool,
    offset: int,
) -> Key | None:
    """The key of the row before `offset` from a bookmark, moved by the rows added ahead of
    the list's first row since it was taken; None when there is none to trust."""
    bookmarks = bookmarks_for(connection)
    found = bookmarks.get(scope)
    if found is None:
        return None
    head_row = (await connection.execute(keys.limit(1))).first()
    if head_row is None:
        bookmarks.forget(scope)
        return None
    head = tuple(head_row)
    if head != found.head:
        added = (
            await connection.execute(
                select(func.count()).select_from(
                    keys.where(_before(columns, descending, found.head))
                    .limit(SHIFT_LIMIT + 1)
                    .subquery()
                )
            )
        ).scalar_one()
        if added > SHIFT_LIMIT:
            bookmarks.forget(scope)
            return None
        found.at = {at + int(added): key for at, key in found.at.items()}
        found.head = head
    return found.at.get(offset)
