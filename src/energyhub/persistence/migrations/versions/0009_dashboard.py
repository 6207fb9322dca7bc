"""dashboard: account members, their sessions, and live devices' state samples

The dashboard (issue 6) signs in account members (argon2id password hashes) and keeps each
signed-in browser as a session row holding the SHA-256 of its cookie token and its CSRF
token. Live devices' pulls leave a sample (level, power) so the dashboard can chart the
last 24 hours; the sandbox's history comes from its simulator and needs no rows.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import energyhub.persistence.types

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

_UTC = energyhub.persistence.types.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "account_members",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("account_id", sa.String(length=40), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("password_hash", sa.String(length=200), nullable=False),
        sa.Column("created_at", _UTC(timezone=True), nullable=False),
        sa.Column("last_sign_in_at", _UTC(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_account_members_account_id_accounts")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_account_members")),
        sa.UniqueConstraint("email", name=op.f("uq_account_members_email")),
    )
    op.create_index(
        op.f("ix_account_members_account_id"), "account_members", ["account_id"], unique=False
    )
    op.create_table(
        "dashboard_sessions",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("member_id", sa.String(length=40), nullable=False),
        sa.Column("csrf_token", sa.String(length=64), nullable=False),
        sa.Column("created_at", _UTC(timezone=True), nullable=False),
        sa.Column("last_seen_at", _UTC(timezone=True), nullable=False),
        sa.Column("expires_at", _UTC(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["member_id"],
            ["account_members.id"],
            name=op.f("fk_dashboard_sessions_member_id_account_members"),
        ),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_dashboard_sessions")),
    )
    op.create_index(
        op.f("ix_dashboard_sessions_member_id"), "dashboard_sessions", ["member_id"], unique=False
    )
    op.create_index(
        op.f("ix_dashboard_sessions_expires_at"),
        "dashboard_sessions",
        ["expires_at"],
        unique=False,
    )
    op.create_table(
        "device_samples",
        sa.Column("pk", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("device_id", sa.String(length=40), nullable=False),
        sa.Column("at", _UTC(timezone=True), nullable=False),
        sa.Column("level", sa.Float(), nullable=True),
        sa.Column("power_kw", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["device_id"], ["devices.id"], name=op.f("fk_device_samples_device_id_devices")
        ),
        sa.PrimaryKeyConstraint("pk", name=op.f("pk_device_samples")),
    )
    op.create_index(
        op.f("ix_device_samples_device_id_at"), "device_samples", ["device_id", "at"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_device_samples_device_id_at"), table_name="device_samples")
    op.drop_table("device_samples")
    op.drop_index(op.f("ix_dashboard_sessions_expires_at"), table_name="dashboard_sessions")
    op.drop_index(op.f("ix_dashboard_sessions_member_id"), table_name="dashboard_sessions")
    op.drop_table("dashboard_sessions")
    op.drop_index(op.f("ix_account_members_account_id"), table_name="account_members")
    op.drop_table("account_members")
