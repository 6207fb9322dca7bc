"""a device's action lists read their index alone, wherever the device's actions lie

`GET /actions?deviceId=` filters on the account and environment too, which the device's
indexes (`device_id, pk` and `device_id, state, pk`) do not hold: every entry cost a heap
fetch, so for a device with many actions PostgreSQL's planner preferred walking the primary
key backwards and filtering. When that device's actions are older than the rest of the
table's, that walk reads everything newer first: 125-180 ms a page at 1,000,000 actions
(for the first five requests of a connection, until the prepared statement's generic plan
took over). With the account and environment in the indexes (INCLUDE, PostgreSQL only), the
page is an index-only scan of 50 entries. SQLite keeps the indexes as they are.

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None

INDEXES = {
    "ix_actions_device_id_pk": "device_id, pk",
    "ix_actions_device_id_state_pk": "device_id, state, pk",
}
INCLUDED = "account_id, environment"


def _has_include(name: str) -> bool:
    found = op.get_bind().execute(
        sa.text(
            "SELECT i.indnatts > i.indnkeyatts FROM pg_index i "
            "JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = :name"
        ),
        {"name": name},
    )
    return bool(found.scalar())


def upgrade() -> None:
    """Idempotent, as every migration here: a database stamped back runs it again."""
    if op.get_bind().dialect.name != "postgresql":
        return
    for name, keys in INDEXES.items():
        if _has_include(name):
            continue
        op.execute(f"DROP INDEX IF EXISTS {name}")
        op.execute(f"CREATE INDEX {name} ON actions ({keys}) INCLUDE ({INCLUDED})")
    op.execute("ANALYZE actions")  # so the first reads after the upgrade choose them


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for name, keys in INDEXES.items():
        op.execute(f"DROP INDEX IF EXISTS {name}")
        op.execute(f"CREATE INDEX {name} ON actions ({keys})")
