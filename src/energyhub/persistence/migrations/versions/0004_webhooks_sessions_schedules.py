"""webhooks, sessions, schedules

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22 03:04:28.674266
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import energyhub.persistence.types

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:

    op.create_table(
        "webhook_events",
        sa.Column("pk", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("account_id", sa.String(length=40), nullable=False),
        sa.Column("environment", sa.String(length=10), nullable=False),
        sa.Column("type", sa.String(length=40), nullable=False),
        sa.Column(
            "payload",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "occurred_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "deliver_after", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "fanned_out_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=True
        ),
        sa.PrimaryKeyConstraint("pk", name=op.f("pk_webhook_events")),
        sa.UniqueConstraint("id", name=op.f("uq_webhook_events_id")),
    )
    with op.batch_alter_table("webhook_events", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_webhook_events_fanned_out_at_deliver_after"),
            ["fanned_out_at", "deliver_after"],
            unique=False,
        )

    op.create_table(
        "webhook_endpoints",
        sa.Column("pk", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("account_id", sa.String(length=40), nullable=False),
        sa.Column("environment", sa.String(length=10), nullable=False),
        sa.Column("url", sa.String(length=2048), nullable=False),
        sa.Column("description", sa.String(length=500), nullable=True),
        sa.Column(
            "events",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column("secret", sa.String(length=100), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column(
            "created_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "deleted_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=True
        ),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_webhook_endpoints_account_id_accounts")
        ),
        sa.PrimaryKeyConstraint("pk", name=op.f("pk_webhook_endpoints")),
        sa.UniqueConstraint("id", name=op.f("uq_webhook_endpoints_id")),
    )
    with op.batch_alter_table("webhook_endpoints", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_webhook_endpoints_account_id_environment_pk"),
            ["account_id", "environment", "pk"],
            unique=False,
        )

    op.create_table(
        "charging_sessions",
        sa.Column("pk", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("id", sa.String(length=60), nullable=False),
        sa.Column("device_id", sa.String(length=40), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column(
            "started_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "ended_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=True
        ),
        sa.Column("energy_kwh", sa.Float(), nullable=False),
        sa.Column("measurement", sa.String(length=20), nullable=False),
        sa.Column("end_reason", sa.String(length=20), nullable=True),
        sa.Column(
            "updated_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["device_id"], ["devices.id"], name=op.f("fk_charging_sessions_device_id_devices")
        ),
        sa.PrimaryKeyConstraint("pk", name=op.f("pk_charging_sessions")),
        sa.UniqueConstraint("id", name=op.f("uq_charging_sessions_id")),
    )
    with op.batch_alter_table("charging_sessions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_charging_sessions_device_id_started_at"),
            ["device_id", "started_at"],
            unique=False,
        )

    op.create_table(
        "schedules",
        sa.Column("pk", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("device_id", sa.String(length=40), nullable=False),
        sa.Column("account_id", sa.String(length=40), nullable=False),
        sa.Column("environment", sa.String(length=10), nullable=False),
        sa.Column("state", sa.String(length=10), nullable=False),
        sa.Column(
            "spec",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "planned_until", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=True
        ),
        sa.Column(
            "skipped",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "created_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "updated_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["device_id"], ["devices.id"], name=op.f("fk_schedules_device_id_devices")
        ),
        sa.PrimaryKeyConstraint("pk", name=op.f("pk_schedules")),
        sa.UniqueConstraint("id", name=op.f("uq_schedules_id")),
    )
    with op.batch_alter_table("schedules", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_schedules_device_id_state"), ["device_id", "state"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_schedules_state_planned_until"), ["state", "planned_until"], unique=False
        )

    op.create_table(
        "webhook_deliveries",
        sa.Column("pk", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("event_id", sa.String(length=40), nullable=False),
        sa.Column("endpoint_id", sa.String(length=40), nullable=False),
        sa.Column("account_id", sa.String(length=40), nullable=False),
        sa.Column("environment", sa.String(length=10), nullable=False),
        sa.Column("event_type", sa.String(length=40), nullable=False),
        sa.Column("body", sa.String(), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column(
            "attempts",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "next_attempt_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=True
        ),
        sa.Column("lease_owner", sa.String(length=64), nullable=True),
        sa.Column(
            "lease_until", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=True
        ),
        sa.Column(
            "created_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "updated_at", energyhub.persistence.types.UTCDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["endpoint_id"],
            ["webhook_endpoints.id"],
            name=op.f("fk_webhook_deliveries_endpoint_id_webhook_endpoints"),
        ),
        sa.PrimaryKeyConstraint("pk", name=op.f("pk_webhook_deliveries")),
        sa.UniqueConstraint(
            "event_id", "endpoint_id", name=op.f("uq_webhook_deliveries_event_id_endpoint_id")
        ),
        sa.UniqueConstraint("id", name=op.f("uq_webhook_deliveries_id")),
    )
    with op.batch_alter_table("webhook_deliveries", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_webhook_deliveries_account_id_environment_pk"),
            ["account_id", "environment", "pk"],
            unique=False,
        )
        batch_op.create_index(
            batch_op.f("ix_webhook_deliveries_next_attempt_at"), ["next_attempt_at"], unique=False
        )

    with op.batch_alter_table("devices", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "disconnected_at",
                energyhub.persistence.types.UTCDateTime(timezone=True),
                nullable=True,
            )
        )

    with op.batch_alter_table("actions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("schedule_id", sa.String(length=40), nullable=True))
        batch_op.create_index(batch_op.f("ix_actions_schedule_id"), ["schedule_id"], unique=False)


def downgrade() -> None:

    with op.batch_alter_table("actions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_actions_schedule_id"))
        batch_op.drop_column("schedule_id")

    with op.batch_alter_table("devices", schema=None) as batch_op:
        batch_op.drop_column("disconnected_at")

    with op.batch_alter_table("webhook_deliveries", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_webhook_deliveries_next_attempt_at"))
        batch_op.drop_index(batch_op.f("ix_webhook_deliveries_account_id_environment_pk"))

    op.drop_table("webhook_deliveries")
    with op.batch_alter_table("schedules", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_schedules_state_planned_until"))
        batch_op.drop_index(batch_op.f("ix_schedules_device_id_state"))

    op.drop_table("schedules")
    with op.batch_alter_table("charging_sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_charging_sessions_device_id_started_at"))

    op.drop_table("charging_sessions")
    with op.batch_alter_table("webhook_endpoints", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_webhook_endpoints_account_id_environment_pk"))

    op.drop_table("webhook_endpoints")
    with op.batch_alter_table("webhook_events", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_webhook_events_fanned_out_at_deliver_after"))

    op.drop_table("webhook_events")
