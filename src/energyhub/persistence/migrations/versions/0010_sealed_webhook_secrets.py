"""sealed webhook secrets: room for an encrypted signing secret

Webhook signing secrets are now stored encrypted with the keys of ENERGYHUB_SECRET_KEY (a
Fernet token of a `whsec_` secret is about 140 characters). Secrets stored before stay
readable as they are; `energyhub secrets rotate` encrypts them.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("webhook_endpoints") as batch:
        batch.alter_column(
            "secret", existing_type=sa.String(length=100), type_=sa.String(length=400)
        )


def downgrade() -> None:
    with op.batch_alter_table("webhook_endpoints") as batch:
        batch.alter_column(
            "secret", existing_type=sa.String(length=400), type_=sa.String(length=100)
        )
