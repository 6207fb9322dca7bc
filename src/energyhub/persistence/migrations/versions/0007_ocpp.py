"""ocpp: commissioned charge points

Live chargers connect over OCPP (CONTRACT 8): each commissioned charge point has its
handshake password (salted scrypt hash), the subprotocol it last spoke, when it was last
heard, and what it last reported, including its open transaction, so sessions survive a
restart and a reconnect.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import energyhub.persistence.types

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    op.create_table(
        "ocpp_charge_points",
        sa.Column("pk", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("charge_point_id", sa.String(length=48), nullable=False),
        sa.Column("device_id", sa.String(length=40), nullable=False),
        sa.Column("password_hash", sa.String(length=200), nullable=False),
        sa.Column("protocol", sa.String(length=16), nullable=True),
        sa.Column(
            "last_seen_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=True
        ),
        sa.Column("next_transaction_id", sa.Integer(), nullable=False),
        sa.Column("open_transaction", _JSON, nullable=True),
        sa.Column("snapshot", _JSON, nullable=False),
        sa.Column("control", _JSON, nullable=False),
        sa.Column(
            "created_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "updated_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["device_id"], ["devices.id"], name=op.f("fk_ocpp_charge_points_device_id_devices")
        ),
        sa.PrimaryKeyConstraint("pk", name=op.f("pk_ocpp_charge_points")),
        sa.UniqueConstraint("charge_point_id", name=op.f("uq_ocpp_charge_points_charge_point_id")),
        sa.UniqueConstraint("device_id", name=op.f("uq_ocpp_charge_points_device_id")),
    )


def downgrade() -> None:
    op.drop_table("ocpp_charge_points")
