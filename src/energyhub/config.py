"""Settings from ENERGYHUB_* environment variables (CONTRACT 12). Nothing is read at import
time: `Settings()` is built once in bootstrap or the CLI and passed down."""

from __future__ import annotations

import logging
from datetime import datetime
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from energyhub.domain.webhook_reach import PrivateWebhookUrls

log = logging.getLogger(__name__)

DEFAULT_RETRY_SCHEDULE_S = (5, 300, 1800, 7200, 18000, 36000, 36000, 36000, 36000)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ENERGYHUB_", extra="ignore")

    database_url: str = Field(
        default="sqlite+aiosqlite:///./energyhub.db",
        description="SQLAlchemy URL: sqlite+aiosqlite:///path or postgresql+asyncpg://...",
    )
    redis_url: str | None = Field(
        default=None, description="Shares rate limits across processes when set."
    )
    public_url: str | None = Field(
        default=None, description="Base URL of links we hand out; default http://{host}:{port}."
    )
    secret_key: str | None = Field(
        default=None,
        description="Encrypts manufacturer credentials: Fernet keys, comma-separated, newest "
        "first (older ones still decrypt); generated next to the database if unset.",
    )
    data_dir: str = Field(
        default=".energyhub",
        description="Files the service makes itself: the generated secret key when the "
        "database is not SQLite (SQLite's sits in .energyhub/ beside the database file).",
    )
    sandbox_completion_delay_s: float = 2.0
    sandbox_command_log_dir: Path | None = Field(
        default=None,
        description="When set, every command a sandbox device receives is appended there "
        "as a JSON line (one file per process), repeats included.",
    )
    sandbox_push_event_delay_s: float = 180.0
    sandbox_link_event_delay_s: float = 60.0
    live_event_delay_s: float = 0.0
    webhook_retry_schedule_s: Annotated[tuple[float, ...], NoDecode] = DEFAULT_RETRY_SCHEDULE_S
    rate_limit_sandbox: int = Field(default=600, ge=1, description="Requests per minute per key.")
    rate_limit_live: int = Field(default=300, ge=1, description="Requests per minute per key.")
    private_webhook_urls: PrivateWebhookUrls = Field(
        default=PrivateWebhookUrls.SANDBOX,
        description="Which webhook endpoints may reach non-public addresses: none (a hosted "
        "service), sandbox (sandbox endpoints may reach this machine's loopback) or all.",
    )
    allow_private_webhook_urls: bool | None = Field(
        default=None,
        description="Deprecated: true means private_webhook_urls=all (when that is not set).",
    )
    webhook_max_endpoints: int = Field(
        default=20,
        ge=1,
        description="Webhook endpoints an account may have in each environment; one more "
        "is refused with 422 ENDPOINT_LIMIT_REACHED.",
    )
    schedules: bool = True
    key_cache_ttl_s: float = Field(
        default=0.25,
        ge=0,
        description="How long a validated API key is trusted before it is checked again "
        "(revocations in this process take effect at once).",
    )
    signals_reconnect_s: float = Field(
        default=0.0,
        ge=0,
        description="PostgreSQL: how long the channel between processes (LISTEN/NOTIFY) "
        "waits before reconnecting after it dropped; the workers poll meanwhile.",
    )
    retention_days: int = Field(
        default=90,
        ge=0,
        description="Webhook events and deliveries, ended actions and state samples older "
        "than this many days are pruned (hourly); 0 keeps everything. Sessions are kept.",
    )
    deferral_retry_s: Annotated[tuple[float, ...], NoDecode] = Field(
        default=(60, 240, 600, 900),
        description="Waits between the tries of a deferred action (5 tries over ~30 min).",
    )
    immediate_retry_backoff_s: Annotated[tuple[float, ...], NoDecode] = Field(
        default=(0.2, 1.0),
        description="Quick retries of a transient device error during an immediate push.",
    )
    head_timeout_s: float = Field(
        default=10.0,
        gt=0,
        description="How long a client may take to send a request's line and headers; "
        "slower heads are answered 408 and closed.",
    )
    surplus_start_delay_s: float = Field(
        default=60.0,
        ge=0,
        description="Surplus strategies: how long the surplus must stay above the charger's "
        "minimum before charging starts.",
    )
    surplus_stop_delay_s: float = Field(
        default=120.0,
        ge=0,
        description="Surplus strategies: how long the surplus must stay below the charger's "
        "minimum before charging pauses.",
    )
    replan_interval_s: float = Field(
        default=900.0,
        gt=0,
        description="Strategies: the longest a plan stands without being made again (a change "
        "of prices, goal, plug state or delivered energy re-plans sooner).",
    )
    strategy_tick_s: float = Field(
        default=10.0,
        gt=0,
        description="Strategies: how often the runner looks at chargers and site readings "
        "(a surplus limit changes at most every 30 s whatever this is).",
    )
    log_level: str = "INFO"
    log_format: Literal["text", "json"] = Field(
        default="text",
        description="text, or json: one JSON object a line (time, level, logger, message, "
        "and requestId while a request is served).",
    )
    access_log: bool = Field(
        default=False,
        description="One log line per API request (method, path, route, status, time); "
        "the probes /healthz, /readyz and /metrics are never logged.",
    )
    metrics_token: str | None = Field(
        default=None,
        description="When set, GET /metrics needs `Authorization: Bearer <token>`.",
    )
    sandbox_port: int | None = Field(
        default=None,
        ge=1,
        le=65535,
        description="A second port `energyhub serve` listens on (same host, same process) "
        "that serves sandbox keys only: the older variant's separate sandbox address.",
    )
    legacy_sunset: datetime | None = Field(
        default=None,
        description="When API version legacy stops being served (ISO 8601 date or time, UTC "
        "if no offset); legacy responses then carry it as the Sunset header.",
    )

    @field_validator(
        "webhook_retry_schedule_s", "deferral_retry_s", "immediate_retry_backoff_s", mode="before"
    )
    @classmethod
    def _parse_schedule(cls, value: object) -> object:
        if isinstance(value, str):
            text = value.strip().strip("[]")
            return tuple(float(part) for part in text.replace(",", " ").split())
        return value

    @field_validator("schedules", mode="before")
    @classmethod
    def _parse_on_off(cls, value: object) -> object:
        if isinstance(value, str) and value.strip().lower() in {"on", "off"}:
            return value.strip().lower() == "on"
        return value

    @model_validator(mode="after")
    def _read_deprecated_private_urls(self) -> Settings:
        """ENERGYHUB_ALLOW_PRIVATE_WEBHOOK_URLS=true, from before the three-way setting, still
        lets every endpoint reach private addresses; the new setting wins when both are set."""
        if self.allow_private_webhook_urls is None:
            return self
        if self.allow_private_webhook_urls and "private_webhook_urls" not in self.model_fields_set:
            self.private_webhook_urls = PrivateWebhookUrls.ALL
        log.warning(
            "ENERGYHUB_ALLOW_PRIVATE_WEBHOOK_URLS is deprecated: set "
            "ENERGYHUB_PRIVATE_WEBHOOK_URLS=%s instead (none, sandbox or all)",
            self.private_webhook_urls.value,
        )
        return self

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    def sqlite_path(self) -> Path | None:
        """The database file, for SQLite URLs that name one."""
        if not self.is_sqlite:
            return None
        _, _, path = self.database_url.partition(":///")
        return Path(path) if path and path != ":memory:" else None

    def public_base_url(self, host: str, port: int | None) -> str:
        """ENERGYHUB_PUBLIC_URL, else http:// and this host and port."""
        if self.public_url:
            return self.public_url.rstrip("/")
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}" if port is None else f"http://{host}:{port}"

    def public_base_for(self, server: tuple[str, int | None] | None) -> str:
        """The base of the links a request is handed: ENERGYHUB_PUBLIC_URL, else the address
        and port the request arrived at (ASGI's `server`). Never the `Host` header: the
        client writes that one."""
        host, port = server or ("127.0.0.1", None)
        return self.public_base_url(host, port)
