"""linking: link sessions, linked accounts, devices' linked account

The hosted Link UI (spec 1.6, CONTRACT 8): single-use link sessions (token stored hashed),
linked accounts holding a user's encrypted manufacturer credentials, and on each device the
linked account it came through and the vendor's id of it (linking it again reconnects it).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import energyhub.persistence.types

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def _at(name: str, *, nullable: bool) -> sa.Column[object]:
    return sa.Column(
        name, energyhub.persistence.types.UTCDateTime(timezone=True), nullable=nullable
    )


def upgrade() -> None:
    op.create_table(
        "link_sessions",
        sa.Column("pk", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.String(length=40), nullable=False),
        sa.Column("environment", sa.String(length=10), nullable=False),
        sa.Column("user_id", sa.String(length=200), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=True),
        sa.Column("redirect_uri", sa.String(length=2048), nullable=True),
        sa.Column("vendor", sa.String(length=100), nullable=True),
        sa.Column("step", sa.String(length=20), nullable=False),
        sa.Column(
            "state",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("nonce", sa.String(length=64), nullable=False),
        sa.Column("pending_credentials", sa.String(), nullable=True),
        sa.Column("outcome", sa.String(length=20), nullable=True),
        sa.Column("linked_account_id", sa.String(length=40), nullable=True),
        _at("created_at", nullable=False),
        _at("expires_at", nullable=False),
        _at("used_at", nullable=True),
        _at("updated_at", nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_link_sessions_account_id_accounts")
        ),
        sa.PrimaryKeyConstraint("pk", name=op.f("pk_link_sessions")),
        sa.UniqueConstraint("id", name=op.f("uq_link_sessions_id")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_link_sessions_token_hash")),
    )
    with op.batch_alter_table("link_sessions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_link_sessions_account_id_environment_user_id"),
            ["account_id", "environment", "user_id"],
            unique=False,
        )

    op.create_table(
        "linked_accounts",
        sa.Column("pk", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("account_id", sa.String(length=40), nullable=False),
        sa.Column("environment", sa.String(length=10), nullable=False),
        sa.Column("user_id", sa.String(length=200), nullable=False),
        sa.Column("vendor", sa.String(length=100), nullable=False),
        sa.Column("external_id", sa.String(length=320), nullable=False),
        sa.Column("credentials", sa.String(), nullable=True),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("redirect_uri", sa.String(length=2048), nullable=True),
        _at("created_at", nullable=False),
        _at("updated_at", nullable=False),
        _at("revoked_at", nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_linked_accounts_account_id_accounts")
        ),
        sa.PrimaryKeyConstraint("pk", name=op.f("pk_linked_accounts")),
        sa.UniqueConstraint("id", name=op.f("uq_linked_accounts_id")),
    )
    with op.batch_alter_table("linked_accounts", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_linked_accounts_account_id_environment_user_id"),
            ["account_id", "environment", "user_id"],
            unique=False,
        )

    with op.batch_alter_table("devices", schema=None) as batch_op:
        batch_op.add_column(sa.Column("linked_account_id", sa.String(length=40), nullable=True))
        batch_op.add_column(sa.Column("vendor_device_id", sa.String(length=200), nullable=True))
        batch_op.create_index(
            batch_op.f("ix_devices_linked_account_id"), ["linked_account_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("devices", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_devices_linked_account_id"))
        batch_op.drop_column("vendor_device_id")
        batch_op.drop_column("linked_account_id")

    with op.batch_alter_table("linked_accounts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_linked_accounts_account_id_environment_user_id"))
    op.drop_table("linked_accounts")

    with op.batch_alter_table("link_sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_link_sessions_account_id_environment_user_id"))
    op.drop_table("link_sessions")
