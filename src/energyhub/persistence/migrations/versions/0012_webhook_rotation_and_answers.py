"""webhook secret rotation and receivers' answers

After a rotation the old signing secret signs beside the new one for a day: each endpoint
keeps it (encrypted) with the moment it stops. Each delivery keeps the start of what the
receiver answered to its latest attempt, for the dashboard.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import energyhub.persistence.types

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Idempotent, as every migration here: a database stamped back runs it again."""
    inspector = sa.inspect(op.get_bind())
    endpoint_columns = {c["name"] for c in inspector.get_columns("webhook_endpoints")}
    if "previous_secret" not in endpoint_columns:
        with op.batch_alter_table("webhook_endpoints") as batch:
            batch.add_column(sa.Column("previous_secret", sa.String(length=400), nullable=True))
            batch.add_column(
                sa.Column(
                    "previous_secret_expires_at",
                    energyhub.persistence.types.UTCDateTime(),
                    nullable=True,
                )
            )
    delivery_columns = {c["name"] for c in inspector.get_columns("webhook_deliveries")}
    if "response_body" not in delivery_columns:
        with op.batch_alter_table("webhook_deliveries") as batch:
            batch.add_column(sa.Column("response_body", sa.String(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("webhook_deliveries") as batch:
        batch.drop_column("response_body")
    with op.batch_alter_table("webhook_endpoints") as batch:
        batch.drop_column("previous_secret_expires_at")
        batch.drop_column("previous_secret")
