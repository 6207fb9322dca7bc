"""charger owners: which process holds each live charger's connection

Command routing between processes: the process that accepts a charger's websocket claims
the charge point (its name on the channel between processes, a generation one higher than
any before, a lease it renews while it can be reached).

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import energyhub.persistence.types

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

_COLUMNS = ("owner", "owner_generation", "owner_lease_until")


def upgrade() -> None:
    """Idempotent, as every migration here: a database stamped back runs it again."""
    inspector = sa.inspect(op.get_bind())
    if "owner" in {c["name"] for c in inspector.get_columns("ocpp_charge_points")}:
        return
    with op.batch_alter_table("ocpp_charge_points") as batch:
        batch.add_column(sa.Column("owner", sa.String(length=64), nullable=True))
        batch.add_column(
            sa.Column("owner_generation", sa.Integer(), nullable=False, server_default="0")
        )
        batch.add_column(
            sa.Column("owner_lease_until", energyhub.persistence.types.UTCDateTime(), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table("ocpp_charge_points") as batch:
        for name in reversed(_COLUMNS):
            batch.drop_column(name)
