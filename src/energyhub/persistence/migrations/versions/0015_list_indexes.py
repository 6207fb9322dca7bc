"""indexes that keep lists, pushes, polls and pruning independent of history

Every filter the lists offer reads an index in key order (actions by device and state,
deliveries by endpoint and status, devices by type); the in-play check reads a device's
completed actions by their end; the workers' next-due polls read the first row of an
index of the rows in play; events, deliveries, terminal actions and samples can be pruned
by age. `ix_actions_device_id_state` gives way to `(device_id, state, pk)`, which serves
what it served.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-27
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

TERMINAL = "state IN ('cancelled', 'completed', 'failed')"

# (name, table, columns, partial condition on PostgreSQL, partial condition on SQLite)
INDEXES: list[tuple[str, str, list[str], str | None, str | None]] = [
    ("ix_devices_account_id_environment_type_pk", "devices",
     ["account_id", "environment", "type", "pk"], None, None),
    ("ix_actions_device_id_state_pk", "actions", ["device_id", "state", "pk"], None, None),
    ("ix_actions_device_id_pk", "actions", ["device_id", "pk"], None, None),
    ("ix_actions_account_id_environment_state_pk", "actions",
     ["account_id", "environment", "state", "pk"], None, None),
    ("ix_actions_device_id_end_completed", "actions", ["device_id", "end"],
     "state = 'completed'", "state = 'completed'"),
    ("ix_actions_lease_until", "actions", ["lease_until"],
     "lease_until IS NOT NULL", "lease_until IS NOT NULL"),
    # PostgreSQL proves a query's `state IN (...)` against this; SQLite would use a partial
    # index only when the query repeats its condition word for word: whole there
    ("ix_actions_created_at", "actions", ["created_at"], TERMINAL, None),
    ("ix_webhook_events_deliver_after_unfanned", "webhook_events", ["deliver_after"],
     "fanned_out_at IS NULL", "fanned_out_at IS NULL"),
    ("ix_webhook_events_occurred_at", "webhook_events", ["occurred_at"], None, None),
    ("ix_webhook_deliveries_endpoint_id_pk", "webhook_deliveries", ["endpoint_id", "pk"],
     None, None),
    ("ix_webhook_deliveries_endpoint_id_status_pk", "webhook_deliveries",
     ["endpoint_id", "status", "pk"], None, None),
    ("ix_webhook_deliveries_account_id_environment_status_pk", "webhook_deliveries",
     ["account_id", "environment", "status", "pk"], None, None),
    ("ix_webhook_deliveries_lease_until", "webhook_deliveries", ["lease_until"],
     "lease_until IS NOT NULL", "lease_until IS NOT NULL"),
    ("ix_webhook_deliveries_created_at", "webhook_deliveries", ["created_at"], None, None),
    ("ix_device_samples_at", "device_samples", ["at"], None, None),
]  # fmt: skip


def _existing(table: str) -> set[str]:
    return {str(i["name"]) for i in sa.inspect(op.get_bind()).get_indexes(table)}


def upgrade() -> None:
    """Idempotent, as every migration here: a database stamped back runs it again."""
    for name, table, columns, postgresql_where, sqlite_where in INDEXES:
        if name in _existing(table):
            continue
        where: dict[str, Any] = {}
        if postgresql_where is not None:
            where["postgresql_where"] = sa.text(postgresql_where)
        if sqlite_where is not None:
            where["sqlite_where"] = sa.text(sqlite_where)
        op.create_index(name, table, columns, **where)
    if "ix_actions_device_id_state" in _existing("actions"):
        op.drop_index("ix_actions_device_id_state", table_name="actions")
    if op.get_bind().dialect.name == "postgresql":
        # fresh statistics, so the first queries after the upgrade choose the new indexes
        for table in sorted({table for _, table, *_ in INDEXES}):
            op.execute(f"ANALYZE {table}")


def downgrade() -> None:
    if "ix_actions_device_id_state" not in _existing("actions"):
        op.create_index("ix_actions_device_id_state", "actions", ["device_id", "state"])
    for name, table, *_ in reversed(INDEXES):
        if name in _existing(table):
            op.drop_index(name, table_name=table)
