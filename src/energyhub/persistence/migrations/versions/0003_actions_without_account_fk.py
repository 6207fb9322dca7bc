"""actions: no foreign key to accounts

Every push inserted an action whose foreign key share-locked the one row of its account, so
concurrent pushes of an account piled up multixacts on that row and PostgreSQL spent more
CPU on them than on the push (bench/push.py). The device's own key to its account already
guarantees it; `actions.account_id` is a copy for listing.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("actions") as batch:
        batch.drop_constraint("fk_actions_account_id_accounts", type_="foreignkey")


def downgrade() -> None:
    with op.batch_alter_table("actions") as batch:
        batch.create_foreign_key(
            "fk_actions_account_id_accounts", "accounts", ["account_id"], ["id"]
        )
