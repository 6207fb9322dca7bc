"""Retention's deletes: one batch of old rows of a kind per short transaction,
`DELETE ... WHERE pk IN (SELECT pk ... ORDER BY <time> LIMIT n)`, oldest first by the
table's time column (the column its retention index covers). On PostgreSQL the batch is
selected `FOR UPDATE SKIP LOCKED`: processes pruning at once take different rows and none
waits on a row another transaction holds; SQLite has one writer, and a batch is its
write lock for a few milliseconds.

What is never pruned, whatever its age: a delivery that is not final (`pending`, a resend
asked for, or a sender's lease still running), an event not yet fanned out, an action not
ended (or with work due: a window's restore) or leased, and any row with one of its times
within the retention period."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    ARRAY,
    Boolean,
    ColumnElement,
    Integer,
    Table,
    any_,
    bindparam,
    cast,
    delete,
    func,
    literal_column,
    or_,
    select,
)
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.sql.dml import ReturningDelete

from energyhub.domain.actions import TERMINAL_STATES
from energyhub.domain.retention import PrunedBatch, PrunedKind
from energyhub.domain.webhooks import DeliveryStatus
from energyhub.persistence.tables import actions, device_samples, webhook_deliveries, webhook_events
from energyhub.persistence.types import UTCDateTime, aware

BEFORE = bindparam("before", type_=UTCDateTime())
# literal values, not parameters: PostgreSQL then proves the partial index on the ended
# actions' `created_at` serves the batch, under a generic plan too
TERMINAL = literal_column(
    "actions.state IN (" + ", ".join(f"'{s.value}'" for s in sorted(TERMINAL_STATES)) + ")",
    Boolean(),
)
NOW = bindparam("now", type_=UTCDateTime())
D, EV, A, S = webhook_deliveries, webhook_events, actions, device_samples

# per kind: the table, the time column that orders the batch, and what makes a row prunable
# (first the condition on that column: its index's range)
PRUNABLE: dict[PrunedKind, tuple[Table, ColumnElement[datetime], list[ColumnElement[bool]]]] = {
    PrunedKind.DELIVERIES: (
        D,
        D.c.created_at,
        [
            D.c.created_at < BEFORE,
            D.c.updated_at < BEFORE,
            D.c.status != DeliveryStatus.PENDING.value,
            D.c.next_attempt_at.is_(None),
            or_(D.c.lease_until.is_(None), D.c.lease_until <= NOW),
        ],
    ),
    PrunedKind.EVENTS: (
        EV,
        EV.c.occurred_at,
        [
            EV.c.occurred_at < BEFORE,
            EV.c.deliver_after < BEFORE,
            EV.c.fanned_out_at < BEFORE,  # NULL (not fanned out yet) never matches
        ],
    ),
    PrunedKind.ACTIONS: (
        A,
        A.c.created_at,
        [
            A.c.created_at < BEFORE,
            A.c.updated_at < BEFORE,
            A.c.start < BEFORE,
            or_(A.c.end.is_(None), A.c.end < BEFORE),
            TERMINAL,
            A.c.due_at.is_(None),
            or_(A.c.lease_until.is_(None), A.c.lease_until <= NOW),
        ],
    ),
    PrunedKind.SAMPLES: (S, S.c.at, [S.c.at < BEFORE]),
}


def prune_statement(
    kind: PrunedKind, postgres: bool, *, resumed: bool = False
) -> ReturningDelete[datetime]:
    """One batch of `kind`, returning the deleted rows' times: parameters `before`, `now`,
    `limit`, and when `resumed` `since` (rows from that time on: the previous batch's
    newest, so a batch does not walk again over the index entries the others deleted)."""
    table, time, prunable = PRUNABLE[kind]
    if not postgres:
        # SQLite without statistics takes `column IS NULL` for a selective equality and would
        # read the batch through that column's index, then sort; `likely()` says it is not
        prunable = [prunable[0], *(func.likely(c) for c in prunable[1:])]
    where = [*prunable, time >= bindparam("since", type_=UTCDateTime())] if resumed else prunable
    batch = select(table.c.pk).where(*where).order_by(time).limit(bindparam("limit"))
    if not postgres:
        return delete(table).where(table.c.pk.in_(batch)).returning(time)
    # `pk = ANY(<the batch as one array>)`: the array is made once, then each row is found
    # by its primary key; `pk IN (subquery)` may be planned as a join that scans the table
    locked = batch.with_for_update(skip_locked=True).subquery("batch")
    pks = cast(select(func.array_agg(locked.c.pk)).scalar_subquery(), ARRAY(Integer))
    return delete(table).where(table.c.pk == any_(pks)).returning(time)


class SqlHistoryPruner:
    """The `HistoryPruner` port: each batch on a connection and in a transaction of its own."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        postgres = engine.dialect.name == "postgresql"
        self._statements = {
            (kind, resumed): prune_statement(kind, postgres, resumed=resumed)
            for kind in PrunedKind
            for resumed in (False, True)
        }

    async def prune_batch(
        self,
        kind: PrunedKind,
        before: datetime,
        now: datetime,
        limit: int,
        since: datetime | None = None,
    ) -> PrunedBatch:
        params = {"before": before, "now": now, "limit": limit, "since": since}
        async with self._engine.begin() as connection:
            result = await connection.execute(self._statements[kind, since is not None], params)
            times = [aware(t) for t in result.scalars()]
        return PrunedBatch(len(times), max(times, default=None))
