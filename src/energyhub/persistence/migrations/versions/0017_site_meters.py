"""site meters: a site's SunSpec grid meter

A user's site may have one grid meter on SunSpec Modbus TCP (models 201-204): its address,
where its meter model is, and when the state poller last read it (its readings become the
site's readings).

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import energyhub.persistence.types

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Idempotent, as every migration here: a database stamped back runs it again."""
    if sa.inspect(op.get_bind()).has_table("site_meters"):
        return
    op.create_table(
        "site_meters",
        sa.Column("pk", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("account_id", sa.String(length=40), nullable=False),
        sa.Column("environment", sa.String(length=10), nullable=False),
        sa.Column("user_id", sa.String(length=200), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("port", sa.Integer(), nullable=False),
        sa.Column("unit_id", sa.Integer(), nullable=False),
        sa.Column("model_id", sa.Integer(), nullable=False),
        sa.Column("model_address", sa.Integer(), nullable=False),
        sa.Column("model_length", sa.Integer(), nullable=False),
        sa.Column("manufacturer", sa.String(length=100), nullable=False),
        sa.Column("model", sa.String(length=100), nullable=False),
        sa.Column("serial", sa.String(length=100), nullable=False),
        sa.Column("commissioned_at", energyhub.persistence.types.UTCDateTime(), nullable=False),
        sa.Column("polled_at", energyhub.persistence.types.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_site_meters_account_id_accounts")
        ),
        sa.PrimaryKeyConstraint("pk", name=op.f("pk_site_meters")),
        sa.UniqueConstraint(
            "account_id",
            "environment",
            "user_id",
            name=op.f("uq_site_meters_account_id_environment_user_id"),
        ),
        sa.UniqueConstraint(
            "host", "port", "unit_id", name=op.f("uq_site_meters_host_port_unit_id")
        ),
    )
    op.create_index(op.f("ix_site_meters_polled_at"), "site_meters", ["polled_at"])


def downgrade() -> None:
    op.drop_table("site_meters")
