"""strategy runs: what the service's strategy runner decided for each charger

One row per charger a strategy runs on: the strategy, the plan it steers by (as a client
reads it), the schedule sent and how the charger took it, and when to plan again.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import energyhub.persistence.types

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    """Idempotent, as every migration here: a database stamped back runs it again."""
    if sa.inspect(op.get_bind()).has_table("strategy_runs"):
        return
    op.create_table(
        "strategy_runs",
        sa.Column("device_id", sa.String(length=40), nullable=False),
        sa.Column("strategy", sa.String(length=60), nullable=False),
        sa.Column("inputs", sa.String(length=500), nullable=False),
        sa.Column("plan", _JSON, nullable=False),
        sa.Column("schedule", _JSON, nullable=True),
        sa.Column("steering", _JSON, nullable=True),
        sa.Column("next_plan_at", energyhub.persistence.types.UTCDateTime(), nullable=False),
        sa.Column("updated_at", energyhub.persistence.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["device_id"], ["devices.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("device_id"),
    )


def downgrade() -> None:
    op.drop_table("strategy_runs")
