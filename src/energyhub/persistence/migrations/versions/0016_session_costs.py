"""session costs: what sessions charged under a strategy cost

The strategy runner keeps the open ledger of each running charger's session on its run
(`ledger`) and, when the session ends, keeps the closed ledger in `session_costs`, where
a session listing finds its cost and its energy from the site's surplus.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import energyhub.persistence.types

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    """Idempotent, as every migration here: a database stamped back runs it again."""
    inspector = sa.inspect(op.get_bind())
    if "ledger" not in {c["name"] for c in inspector.get_columns("strategy_runs")}:
        with op.batch_alter_table("strategy_runs") as batch:
            batch.add_column(sa.Column("ledger", _JSON, nullable=True))
    if inspector.has_table("session_costs"):
        return
    op.create_table(
        "session_costs",
        sa.Column("pk", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("device_id", sa.String(length=40), nullable=False),
        sa.Column("started_at", energyhub.persistence.types.UTCDateTime(), nullable=False),
        sa.Column("ended_at", energyhub.persistence.types.UTCDateTime(), nullable=False),
        sa.Column("grid_kwh", sa.Float(), nullable=False),
        sa.Column("surplus_kwh", sa.Float(), nullable=False),
        sa.Column("cost", sa.Float(), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=True),
        sa.ForeignKeyConstraint(["device_id"], ["devices.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("pk"),
    )
    op.create_index(
        "ix_session_costs_device_id_started_at", "session_costs", ["device_id", "started_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_session_costs_device_id_started_at", table_name="session_costs")
    op.drop_table("session_costs")
    with op.batch_alter_table("strategy_runs") as batch:
        batch.drop_column("ledger")
