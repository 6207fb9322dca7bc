"""sites and charging goals: the strategies' inputs

Each user may have one site (timezone, grid import limit, tariff, newest meter reading),
and each charger its charging goal (a JSON record on the device row, shown in its body).

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import energyhub.persistence.types

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    """Idempotent, as every migration here: a database stamped back runs it again."""
    inspector = sa.inspect(op.get_bind())
    if "charging_goal" not in {c["name"] for c in inspector.get_columns("devices")}:
        with op.batch_alter_table("devices") as batch:
            batch.add_column(sa.Column("charging_goal", _JSON, nullable=True))
    if inspector.has_table("sites"):
        return
    op.create_table(
        "sites",
        sa.Column("pk", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("account_id", sa.String(length=40), nullable=False),
        sa.Column("environment", sa.String(length=10), nullable=False),
        sa.Column("user_id", sa.String(length=200), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=True),
        sa.Column("grid_import_limit_kw", sa.Float(), nullable=True),
        sa.Column("tariff", _JSON, nullable=True),
        sa.Column("last_reading", _JSON, nullable=True),
        sa.Column(
            "updated_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_sites_account_id_accounts")
        ),
        sa.PrimaryKeyConstraint("pk", name=op.f("pk_sites")),
        sa.UniqueConstraint(
            "account_id",
            "environment",
            "user_id",
            name=op.f("uq_sites_account_id_environment_user_id"),
        ),
    )


def downgrade() -> None:
    op.drop_table("sites")
    with op.batch_alter_table("devices") as batch:
        batch.drop_column("charging_goal")
