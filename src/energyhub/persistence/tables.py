"""The schema, as SQLAlchemy Core tables: hot paths use Core, not the ORM unit of work."""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    UniqueConstraint,
)

from energyhub.persistence.types import JsonDocument, UTCDateTime

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

accounts = Table(
    "accounts",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("name", String(200), nullable=False),
    Column("app_id", String(40), nullable=False, unique=True),
    Column("created_at", UTCDateTime(), nullable=False),
)

api_keys = Table(
    "api_keys",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False, index=True),
    Column("environment", String(10), nullable=False),
    Column("prefix", String(16), nullable=False),
    Column("key_hash", String(64), nullable=False, unique=True),
    Column("hint", String(8), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("expires_at", UTCDateTime(), nullable=True),
    Column("revoked_at", UTCDateTime(), nullable=True),
)

users = Table(
    "users",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("environment", String(10), nullable=False),
    Column("id", String(200), nullable=False),
    Column("email", String(320), nullable=True),
    Column("created_at", UTCDateTime(), nullable=False),
    UniqueConstraint("account_id", "environment", "id"),
    Index(None, "account_id", "environment", "email"),
)

devices = Table(
    "devices",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),  # creation order for lists
    Column("id", String(40), nullable=False, unique=True),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("environment", String(10), nullable=False),
    Column("user_id", String(200), nullable=False),
    Column("type", String(20), nullable=False),
    Column("vendor", String(100), nullable=False),
    Column("model", String(200), nullable=False),
    Column("driver", String(20), nullable=False),
    Column("profile", String(60), nullable=True),
    Column("timezone", String(64), nullable=False),
    Column("capabilities", JsonDocument, nullable=False),
    Column("settings", JsonDocument, nullable=False),
    Column("state", JsonDocument, nullable=False),
    Column("sim", JsonDocument, nullable=True),
    Column("available", Boolean, nullable=False),
    Column("last_pulled_at", UTCDateTime(), nullable=True),
    Column("last_action", JsonDocument, nullable=True),
    Column("current_schedule", JsonDocument, nullable=True),
    Column("vehicle_id", String(40), nullable=True),
    Column("vpp_locked_until", UTCDateTime(), nullable=True),
    # The action whose command is in effect on the device, and that command: a window
    # restores the previous mode only while it is still the one in effect.
    Column("mode_action_id", String(40), nullable=True),
    Column("mode_command", String(60), nullable=True),
    Column("last_action_id", String(40), nullable=True),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
    Index(None, "account_id", "environment", "type", "created_at"),
    Index(None, "account_id", "environment", "user_id"),
)

vehicles = Table(
    "vehicles",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("environment", String(10), nullable=False),
    Column("user_id", String(200), nullable=False),
    Column("charger_id", String(40), ForeignKey("devices.id"), nullable=True, index=True),
    Column("vendor", String(100), nullable=True),
    Column("model", String(200), nullable=True),
    Column("vin", String(17), nullable=True),
    Column("battery_capacity_kwh", Float, nullable=True),
    Column("state_of_charge", Float, nullable=True),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
)

actions = Table(
    "actions",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("id", String(40), nullable=False, unique=True),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("environment", String(10), nullable=False),
    Column("device_id", String(40), ForeignKey("devices.id"), nullable=False),
    Column("device_type", String(20), nullable=False),
    Column("command", String(60), nullable=False),
    Column("parameters", JsonDocument, nullable=False),  # as the client sent them
    Column("device_parameters", JsonDocument, nullable=False),  # in the declared units
    Column("state", String(20), nullable=False),
    Column("start", UTCDateTime(), nullable=False),
    Column("end", UTCDateTime(), nullable=True),
    Column("on_conflict", String(30), nullable=True),
    Column("result", JsonDocument, nullable=True),
    Column("error_code", String(60), nullable=True),
    Column("error_message", String(500), nullable=True),
    Column("deferred_until", UTCDateTime(), nullable=True),
    Column("acknowledged_at", UTCDateTime(), nullable=True),
    Column("completed_at", UTCDateTime(), nullable=True),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
    Column("tries", Integer, nullable=False, default=0),
    # Due work: what to do next (dispatch, complete, restore) and when; a worker holds a
    # lease while it does it, so a crash loses nothing and nothing runs twice.
    Column("due_at", UTCDateTime(), nullable=True, index=True),
    Column("due_kind", String(10), nullable=True),
    Column("lease_owner", String(64), nullable=True),
    Column("lease_until", UTCDateTime(), nullable=True),
    Column("restore", JsonDocument, nullable=True),  # the mode a window restores at its end
    Column("simulated_failure", String(60), nullable=True),
    Index(None, "device_id", "state"),
    Index(None, "account_id", "environment", "pk"),
)
