"""sunspec: commissioned batteries

Live batteries are reached over SunSpec Modbus TCP (CONTRACT 8): each commissioned battery
has its address (host, port, unit id), the base address of its SunSpec map and the models
found there, so the driver reads and writes without discovering them again.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import energyhub.persistence.types

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    op.create_table(
        "sunspec_devices",
        sa.Column("pk", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("device_id", sa.String(length=40), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("port", sa.Integer(), nullable=False),
        sa.Column("unit_id", sa.Integer(), nullable=False),
        sa.Column("base_address", sa.Integer(), nullable=False),
        sa.Column("models", _JSON, nullable=False),
        sa.Column("manufacturer", sa.String(length=100), nullable=False),
        sa.Column("model", sa.String(length=100), nullable=False),
        sa.Column("serial", sa.String(length=100), nullable=False),
        sa.Column(
            "commissioned_at",
            energyhub.persistence.types.UTCDateTime(timezone=True),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["device_id"], ["devices.id"], name=op.f("fk_sunspec_devices_device_id_devices")
        ),
        sa.PrimaryKeyConstraint("pk", name=op.f("pk_sunspec_devices")),
        sa.UniqueConstraint("device_id", name=op.f("uq_sunspec_devices_device_id")),
        sa.UniqueConstraint(
            "host", "port", "unit_id", name=op.f("uq_sunspec_devices_host_port_unit_id")
        ),
    )


def downgrade() -> None:
    op.drop_table("sunspec_devices")
