"""actions

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import energyhub.persistence.types

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "actions",
        sa.Column("pk", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("account_id", sa.String(length=40), nullable=False),
        sa.Column("environment", sa.String(length=10), nullable=False),
        sa.Column("device_id", sa.String(length=40), nullable=False),
        sa.Column("device_type", sa.String(length=20), nullable=False),
        sa.Column("command", sa.String(length=60), nullable=False),
        sa.Column(
            "parameters",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "device_parameters",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("state", sa.String(length=20), nullable=False),
        sa.Column("start", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("end", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("on_conflict", sa.String(length=30), nullable=True),
        sa.Column(
            "result",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column("error_code", sa.String(length=60), nullable=True),
        sa.Column("error_message", sa.String(length=500), nullable=True),
        sa.Column(
            "deferred_until", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=True
        ),
        sa.Column(
            "acknowledged_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=True
        ),
        sa.Column(
            "completed_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=True
        ),
        sa.Column(
            "created_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "updated_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.Column("due_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("due_kind", sa.String(length=10), nullable=True),
        sa.Column("lease_owner", sa.String(length=64), nullable=True),
        sa.Column(
            "lease_until", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=True
        ),
        sa.Column(
            "restore",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column("simulated_failure", sa.String(length=60), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_actions_account_id_accounts")
        ),
        sa.ForeignKeyConstraint(
            ["device_id"], ["devices.id"], name=op.f("fk_actions_device_id_devices")
        ),
        sa.PrimaryKeyConstraint("pk", name=op.f("pk_actions")),
        sa.UniqueConstraint("id", name=op.f("uq_actions_id")),
    )
    with op.batch_alter_table("actions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_actions_account_id_environment_pk"),
            ["account_id", "environment", "pk"],
            unique=False,
        )
        batch_op.create_index(
            batch_op.f("ix_actions_device_id_state"), ["device_id", "state"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_actions_due_at"), ["due_at"], unique=False)

    with op.batch_alter_table("devices", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "vpp_locked_until",
                energyhub.persistence.types.UTCDateTime(timezone=True),
                nullable=True,
            )
        )
        batch_op.add_column(sa.Column("mode_action_id", sa.String(length=40), nullable=True))
        batch_op.add_column(sa.Column("mode_command", sa.String(length=60), nullable=True))
        batch_op.add_column(sa.Column("last_action_id", sa.String(length=40), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("devices", schema=None) as batch_op:
        batch_op.drop_column("last_action_id")
        batch_op.drop_column("mode_command")
        batch_op.drop_column("mode_action_id")
        batch_op.drop_column("vpp_locked_until")

    with op.batch_alter_table("actions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_actions_due_at"))
        batch_op.drop_index(batch_op.f("ix_actions_device_id_state"))
        batch_op.drop_index(batch_op.f("ix_actions_account_id_environment_pk"))

    op.drop_table("actions")
