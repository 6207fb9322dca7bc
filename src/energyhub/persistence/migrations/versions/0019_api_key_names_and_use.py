"""API keys: a name and when each was last used

`name` is the owner's label for a key (60 characters at most); `last_used_at` is when a
request last authenticated with it, written at most once a minute a key (null: never).

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import energyhub.persistence.types

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Idempotent, as every migration here: a database stamped back runs it again."""
    inspector = sa.inspect(op.get_bind())
    if "last_used_at" in {c["name"] for c in inspector.get_columns("api_keys")}:
        return
    with op.batch_alter_table("api_keys") as batch:
        batch.add_column(sa.Column("name", sa.String(length=60), nullable=True))
        batch.add_column(
            sa.Column("last_used_at", energyhub.persistence.types.UTCDateTime(), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table("api_keys") as batch:
        batch.drop_column("last_used_at")
        batch.drop_column("name")
