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
    text,
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
    Column("api_version", String(10), nullable=False, server_default="1.0"),
    Column("name", String(60), nullable=True),
    Column("last_used_at", UTCDateTime(), nullable=True),
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
    Column("disconnected_at", UTCDateTime(), nullable=True),  # credentials stopped working
    # linked through the Link UI: the linked account, and the vendor's id of the device
    Column("linked_account_id", String(40), nullable=True, index=True),
    Column("vendor_device_id", String(200), nullable=True),
    Column("charging_goal", JsonDocument, nullable=True),  # chargers: the goal's record
    Column("created_at", UTCDateTime(), nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
    Index(None, "account_id", "environment", "type", "created_at"),
    Index(None, "account_id", "environment", "user_id"),
    Index(None, "account_id", "environment", "type", "pk"),  # lists by key (0015)
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
    # no foreign key: the device's guarantees the account (migration 0003 says why)
    Column("account_id", String(40), nullable=False),
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
    Column("schedule_id", String(40), nullable=True, index=True),  # an occurrence's schedule
    Index(None, "account_id", "environment", "pk"),
    # migration 0015: every list filter, the in-play check, the next-due poll, pruning
    # migration 0021: with the account and environment (PostgreSQL), a device's list is an
    # index-only scan however old its actions are
    Index(None, "device_id", "state", "pk", postgresql_include=["account_id", "environment"]),
    Index(None, "device_id", "pk", postgresql_include=["account_id", "environment"]),
    Index(None, "account_id", "environment", "state", "pk"),
    Index(
        "ix_actions_device_id_end_completed",
        "device_id",
        "end",
        postgresql_where=text("state = 'completed'"),
        sqlite_where=text("state = 'completed'"),
    ),
    Index(
        "ix_actions_lease_until",
        "lease_until",
        postgresql_where=text("lease_until IS NOT NULL"),
        sqlite_where=text("lease_until IS NOT NULL"),
    ),
    Index(  # migration 0020: whether a device accepted an action that starts later
        "ix_actions_device_id_start_acknowledged",
        "device_id",
        "start",
        postgresql_where=text("acknowledged_at IS NOT NULL"),
        sqlite_where=text("acknowledged_at IS NOT NULL"),
    ),
    Index(
        "ix_actions_created_at",
        "created_at",
        postgresql_where=text("state IN ('cancelled', 'completed', 'failed')"),
    ),
)

# --- webhooks (spec 6, CONTRACT 9) ---------------------------------------------------------
webhook_endpoints = Table(
    "webhook_endpoints",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("id", String(40), nullable=False, unique=True),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("environment", String(10), nullable=False),
    Column("url", String(2048), nullable=False),
    Column("description", String(500), nullable=True),
    Column("events", JsonDocument, nullable=True),  # a filter; null: every event
    Column("secret", String(400), nullable=False),  # Fernet-encrypted; shown again on request
    Column("enabled", Boolean, nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("deleted_at", UTCDateTime(), nullable=True),  # kept for its deliveries' history
    # after a rotation the old secret (encrypted) signs beside the new one until this moment
    Column("previous_secret", String(400), nullable=True),
    Column("previous_secret_expires_at", UTCDateTime(), nullable=True),
    Index(None, "account_id", "environment", "pk"),
)

# The outbox: written in the transaction of the state change that causes the event; the
# sender turns each into one delivery per matching endpoint once `deliver_after` is reached.
webhook_events = Table(
    "webhook_events",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("id", String(40), nullable=False, unique=True),
    Column("account_id", String(40), nullable=False),
    Column("environment", String(10), nullable=False),
    Column("type", String(40), nullable=False),
    Column("payload", JsonDocument, nullable=False),
    Column("occurred_at", UTCDateTime(), nullable=False),
    Column("deliver_after", UTCDateTime(), nullable=False),
    Column("fanned_out_at", UTCDateTime(), nullable=True),
    Index(None, "fanned_out_at", "deliver_after"),
    Index(  # migration 0015: the next-due poll, and pruning
        "ix_webhook_events_deliver_after_unfanned",
        "deliver_after",
        postgresql_where=text("fanned_out_at IS NULL"),
        sqlite_where=text("fanned_out_at IS NULL"),
    ),
    Index(None, "occurred_at"),
)

webhook_deliveries = Table(
    "webhook_deliveries",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("id", String(40), nullable=False, unique=True),  # the `webhook-id` header
    Column("event_id", String(40), nullable=False),
    Column("endpoint_id", String(40), ForeignKey("webhook_endpoints.id"), nullable=False),
    Column("account_id", String(40), nullable=False),
    Column("environment", String(10), nullable=False),
    Column("event_type", String(40), nullable=False),
    Column("body", String(), nullable=False),  # the exact bytes signed, the same on every try
    Column("status", String(10), nullable=False),
    Column("attempts", JsonDocument, nullable=False),  # [{at, httpStatus, durationMs, error}]
    Column("next_attempt_at", UTCDateTime(), nullable=True, index=True),
    Column("lease_owner", String(64), nullable=True),
    Column("lease_until", UTCDateTime(), nullable=True),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
    Column("response_body", String(), nullable=True),  # the latest answer's start
    UniqueConstraint("event_id", "endpoint_id"),
    Index(None, "account_id", "environment", "pk"),
    # migration 0015: every list filter, the next-due poll, pruning
    Index(None, "endpoint_id", "pk"),
    Index(None, "endpoint_id", "status", "pk"),
    Index(None, "account_id", "environment", "status", "pk"),
    Index(
        "ix_webhook_deliveries_lease_until",
        "lease_until",
        postgresql_where=text("lease_until IS NOT NULL"),
        sqlite_where=text("lease_until IS NOT NULL"),
    ),
    Index(None, "created_at"),
)

# --- charging sessions (spec 2.6, 4.8, CONTRACT 6) -----------------------------------------
charging_sessions = Table(
    "charging_sessions",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("id", String(60), nullable=False, unique=True),
    Column("device_id", String(40), ForeignKey("devices.id"), nullable=False),
    Column("status", String(10), nullable=False),
    Column("started_at", UTCDateTime(), nullable=False),
    Column("ended_at", UTCDateTime(), nullable=True),
    Column("energy_kwh", Float, nullable=False),
    Column("measurement", String(20), nullable=False),
    Column("end_reason", String(20), nullable=True),
    Column("updated_at", UTCDateTime(), nullable=False),
    Index(None, "device_id", "started_at"),
)

# --- schedules (spec 2.8, 4.7, CONTRACT 7) -------------------------------------------------
schedules = Table(
    "schedules",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("id", String(40), nullable=False, unique=True),
    Column("device_id", String(40), ForeignKey("devices.id"), nullable=False),
    Column("account_id", String(40), nullable=False),
    Column("environment", String(10), nullable=False),
    Column("state", String(10), nullable=False),
    Column("spec", JsonDocument, nullable=False),  # timezone, recurrence, slots as accepted
    Column("planned_until", UTCDateTime(), nullable=True),  # occurrences made into actions
    Column("skipped", JsonDocument, nullable=False),  # slots that could not be placed
    Column("due_at", UTCDateTime(), nullable=True, index=True),  # the scheduler's next look
    Column("created_at", UTCDateTime(), nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
    Index(None, "device_id", "state"),
    Index(None, "state", "planned_until"),
)

# --- linking (spec 1.6, CONTRACT 8) ---------------------------------------------------------
# A single-use invitation to the hosted flow; the token is stored only as its SHA-256.
link_sessions = Table(
    "link_sessions",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("id", String(40), nullable=False, unique=True),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("environment", String(10), nullable=False),
    Column("user_id", String(200), nullable=False),
    Column("email", String(320), nullable=True),
    Column("redirect_uri", String(2048), nullable=True),
    Column("vendor", String(100), nullable=True),
    Column("step", String(20), nullable=False),
    Column("state", JsonDocument, nullable=False),  # what the flow gathered (no secrets)
    Column("nonce", String(64), nullable=False),  # changes at every step
    Column("pending_credentials", String(), nullable=True),  # MultiFernet token
    Column("outcome", String(20), nullable=True),
    Column("linked_account_id", String(40), nullable=True),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("expires_at", UTCDateTime(), nullable=False),
    Column("used_at", UTCDateTime(), nullable=True),
    Column("updated_at", UTCDateTime(), nullable=False),
    Index(None, "account_id", "environment", "user_id"),
)

linked_accounts = Table(
    "linked_accounts",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("id", String(40), nullable=False, unique=True),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("environment", String(10), nullable=False),
    Column("user_id", String(200), nullable=False),
    Column("vendor", String(100), nullable=False),
    Column("external_id", String(320), nullable=False),  # the user's account at the vendor
    Column("credentials", String(), nullable=True),  # MultiFernet token; dropped on revoke
    Column("status", String(10), nullable=False),
    Column("redirect_uri", String(2048), nullable=True),  # for reconnection links
    Column("created_at", UTCDateTime(), nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
    Column("revoked_at", UTCDateTime(), nullable=True),
    Index(None, "account_id", "environment", "user_id"),
)

# --- OCPP charge points (CONTRACT 8; drivers/ocpp) ------------------------------------------
# One row per commissioned charger: its handshake password (salted scrypt), what it last
# reported and its open transaction, so a restart or a reconnect loses no session.
ocpp_charge_points = Table(
    "ocpp_charge_points",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("charge_point_id", String(48), nullable=False, unique=True),
    Column("device_id", String(40), ForeignKey("devices.id"), nullable=False, unique=True),
    Column("password_hash", String(200), nullable=False),
    Column("protocol", String(16), nullable=True),  # last negotiated subprotocol
    Column("last_seen_at", UTCDateTime(), nullable=True),
    Column("next_transaction_id", Integer, nullable=False),  # 1.6 ids are ours to give
    Column("open_transaction", JsonDocument, nullable=True),
    Column("snapshot", JsonDocument, nullable=False),  # status, telemetry, declaration
    Column("control", JsonDocument, nullable=False),  # stop conditions of the running charge
    Column("created_at", UTCDateTime(), nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
    # the process holding the charger's connection (persistence/charger_owners.py): its name
    # on the channel, the generation (one up per connection), and until when it counts
    Column("owner", String(64), nullable=True),
    Column("owner_generation", Integer, nullable=False, server_default="0"),
    Column("owner_lease_until", UTCDateTime(), nullable=True),
)

# --- SunSpec batteries (CONTRACT 8; drivers/sunspec) ----------------------------------------
# One row per commissioned battery: where it answers over Modbus TCP and where its SunSpec
# models are (found once, at commissioning, and checked on every call).
sunspec_devices = Table(
    "sunspec_devices",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("device_id", String(40), ForeignKey("devices.id"), nullable=False, unique=True),
    Column("host", String(255), nullable=False),
    Column("port", Integer, nullable=False),
    Column("unit_id", Integer, nullable=False),
    Column("base_address", Integer, nullable=False),  # where the `SunS` marker is
    Column("models", JsonDocument, nullable=False),  # [{id, address, length}] in device order
    Column("manufacturer", String(100), nullable=False),
    Column("model", String(100), nullable=False),
    Column("serial", String(100), nullable=False),
    Column("commissioned_at", UTCDateTime(), nullable=False),
    UniqueConstraint("host", "port", "unit_id"),
)

# --- the dashboard (issue 6): members and their signed-in browsers ---------------------------
account_members = Table(
    "account_members",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False, index=True),
    Column("email", String(320), nullable=False, unique=True),  # normalized (lower case)
    Column("password_hash", String(200), nullable=False),  # argon2id, with its parameters
    Column("created_at", UTCDateTime(), nullable=False),
    Column("last_sign_in_at", UTCDateTime(), nullable=True),
)

dashboard_sessions = Table(
    "dashboard_sessions",
    metadata,
    Column("token_hash", String(64), primary_key=True),  # SHA-256 of the cookie's token
    Column("member_id", String(40), ForeignKey("account_members.id"), nullable=False, index=True),
    Column("csrf_token", String(64), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("last_seen_at", UTCDateTime(), nullable=False),
    Column("expires_at", UTCDateTime(), nullable=False, index=True),
)

# --- state history of devices that talk to hardware (the dashboard's 24 h chart) -----------
# The sandbox's history is the simulator's; a live device's is what its pulls stored.
device_samples = Table(
    "device_samples",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("device_id", String(40), ForeignKey("devices.id"), nullable=False),
    Column("at", UTCDateTime(), nullable=False),
    Column("level", Float, nullable=True),  # percent (batteries)
    Column("power_kw", Float, nullable=True),  # charge rate or charging power
    Index(None, "device_id", "at"),
    Index(None, "at"),  # pruning by age (migration 0015)
)

# --- sites (strategies): one per user, with its tariff and newest meter reading ------------
sites = Table(
    "sites",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("environment", String(10), nullable=False),
    Column("user_id", String(200), nullable=False),
    Column("timezone", String(64), nullable=True),  # null: the user's first device's
    Column("grid_import_limit_kw", Float, nullable=True),
    Column("tariff", JsonDocument, nullable=True),
    Column("last_reading", JsonDocument, nullable=True),  # {at, gridPower}
    Column("updated_at", UTCDateTime(), nullable=False),
    UniqueConstraint("account_id", "environment", "user_id"),
)

# --- strategy runs: the runner's decision per charger a strategy runs on -------------------
strategy_runs = Table(
    "strategy_runs",
    metadata,
    Column("device_id", String(40), ForeignKey("devices.id", ondelete="CASCADE"), primary_key=True),
    Column("strategy", String(60), nullable=False),
    Column("inputs", String(500), nullable=False),  # what the plan was made from, as a key
    Column("plan", JsonDocument, nullable=False),  # the plan as a client reads it
    Column("schedule", JsonDocument, nullable=True),  # the limits sent (ChargingSchedule)
    Column("steering", JsonDocument, nullable=True),  # {state, message, at}: how it went
    Column("next_plan_at", UTCDateTime(), nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
    Column("ledger", JsonDocument, nullable=True),  # the open session's cost (0016)
)

# --- session costs: closed ledgers of sessions charged under a strategy (0016) ------------
session_costs = Table(
    "session_costs",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("device_id", String(40), ForeignKey("devices.id", ondelete="CASCADE"), nullable=False),
    Column("started_at", UTCDateTime(), nullable=False),
    Column("ended_at", UTCDateTime(), nullable=False),
    Column("grid_kwh", Float, nullable=False),
    Column("surplus_kwh", Float, nullable=False),
    Column("cost", Float, nullable=False),
    Column("currency", String(3), nullable=True),
    Index(None, "device_id", "started_at"),
)

# --- site meters: a site's SunSpec grid meter, polled for its readings (0017) --------------
site_meters = Table(
    "site_meters",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("environment", String(10), nullable=False),
    Column("user_id", String(200), nullable=False),
    Column("host", String(255), nullable=False),
    Column("port", Integer, nullable=False),
    Column("unit_id", Integer, nullable=False),
    Column("model_id", Integer, nullable=False),  # 201-204
    Column("model_address", Integer, nullable=False),  # its `ID` register
    Column("model_length", Integer, nullable=False),  # its `L`
    Column("manufacturer", String(100), nullable=False),
    Column("model", String(100), nullable=False),
    Column("serial", String(100), nullable=False),
    Column("commissioned_at", UTCDateTime(), nullable=False),
    Column("polled_at", UTCDateTime(), nullable=True, index=True),
    UniqueConstraint("account_id", "environment", "user_id"),
    UniqueConstraint("host", "port", "unit_id"),
)
