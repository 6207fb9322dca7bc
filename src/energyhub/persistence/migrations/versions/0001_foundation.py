"""foundation: accounts, keys, users, devices, vehicles

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import energyhub.persistence.types

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("app_id", sa.String(length=40), nullable=False),
        sa.Column(
            "created_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
        sa.UniqueConstraint("app_id", name=op.f("uq_accounts_app_id")),
    )
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("account_id", sa.String(length=40), nullable=False),
        sa.Column("environment", sa.String(length=10), nullable=False),
        sa.Column("prefix", sa.String(length=16), nullable=False),
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("hint", sa.String(length=8), nullable=False),
        sa.Column(
            "created_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "expires_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=True
        ),
        sa.Column(
            "revoked_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=True
        ),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_api_keys_account_id_accounts")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_keys")),
        sa.UniqueConstraint("key_hash", name=op.f("uq_api_keys_key_hash")),
    )
    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_api_keys_account_id"), ["account_id"], unique=False)

    op.create_table(
        "devices",
        sa.Column("pk", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("account_id", sa.String(length=40), nullable=False),
        sa.Column("environment", sa.String(length=10), nullable=False),
        sa.Column("user_id", sa.String(length=200), nullable=False),
        sa.Column("type", sa.String(length=20), nullable=False),
        sa.Column("vendor", sa.String(length=100), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("driver", sa.String(length=20), nullable=False),
        sa.Column("profile", sa.String(length=60), nullable=True),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column(
            "capabilities",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "settings",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "state",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "sim",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column("available", sa.Boolean(), nullable=False),
        sa.Column(
            "last_pulled_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=True
        ),
        sa.Column(
            "last_action",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column(
            "current_schedule",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column("vehicle_id", sa.String(length=40), nullable=True),
        sa.Column(
            "created_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "updated_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_devices_account_id_accounts")
        ),
        sa.PrimaryKeyConstraint("pk", name=op.f("pk_devices")),
        sa.UniqueConstraint("id", name=op.f("uq_devices_id")),
    )
    with op.batch_alter_table("devices", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_devices_account_id_environment_type_created_at"),
            ["account_id", "environment", "type", "created_at"],
            unique=False,
        )
        batch_op.create_index(
            batch_op.f("ix_devices_account_id_environment_user_id"),
            ["account_id", "environment", "user_id"],
            unique=False,
        )

    op.create_table(
        "users",
        sa.Column("pk", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("account_id", sa.String(length=40), nullable=False),
        sa.Column("environment", sa.String(length=10), nullable=False),
        sa.Column("id", sa.String(length=200), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=True),
        sa.Column(
            "created_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_users_account_id_accounts")
        ),
        sa.PrimaryKeyConstraint("pk", name=op.f("pk_users")),
        sa.UniqueConstraint(
            "account_id", "environment", "id", name=op.f("uq_users_account_id_environment_id")
        ),
    )
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_users_account_id_environment_email"),
            ["account_id", "environment", "email"],
            unique=False,
        )

    op.create_table(
        "vehicles",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("account_id", sa.String(length=40), nullable=False),
        sa.Column("environment", sa.String(length=10), nullable=False),
        sa.Column("user_id", sa.String(length=200), nullable=False),
        sa.Column("charger_id", sa.String(length=40), nullable=True),
        sa.Column("vendor", sa.String(length=100), nullable=True),
        sa.Column("model", sa.String(length=200), nullable=True),
        sa.Column("vin", sa.String(length=17), nullable=True),
        sa.Column("battery_capacity_kwh", sa.Float(), nullable=True),
        sa.Column("state_of_charge", sa.Float(), nullable=True),
        sa.Column(
            "created_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "updated_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_vehicles_account_id_accounts")
        ),
        sa.ForeignKeyConstraint(
            ["charger_id"], ["devices.id"], name=op.f("fk_vehicles_charger_id_devices")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_vehicles")),
    )
    with op.batch_alter_table("vehicles", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_vehicles_charger_id"), ["charger_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("vehicles", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_vehicles_charger_id"))

    op.drop_table("vehicles")
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_users_account_id_environment_email"))

    op.drop_table("users")
    with op.batch_alter_table("devices", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_devices_account_id_environment_user_id"))
        batch_op.drop_index(batch_op.f("ix_devices_account_id_environment_type_created_at"))

    op.drop_table("devices")
    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_api_keys_account_id"))

    op.drop_table("api_keys")
    op.drop_table("accounts")
