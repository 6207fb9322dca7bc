"""API keys pinned to an API version

Each key answers in its version (`1.0` or `legacy`) when a request sends no
`energyhub-version` header. Keys of the older `sk_sandbox_` prefix were made for clients of
the older variant, so they start on `legacy`; every other key on `1.0`.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Idempotent, as every migration here: a database stamped back runs it again."""
    inspector = sa.inspect(op.get_bind())
    if "api_version" in {c["name"] for c in inspector.get_columns("api_keys")}:
        return
    with op.batch_alter_table("api_keys") as batch:
        batch.add_column(
            sa.Column("api_version", sa.String(length=10), server_default="1.0", nullable=False)
        )
    op.execute("UPDATE api_keys SET api_version = 'legacy' WHERE prefix = 'sk_sandbox_'")


def downgrade() -> None:
    with op.batch_alter_table("api_keys") as batch:
        batch.drop_column("api_version")
