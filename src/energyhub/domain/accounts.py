"""Accounts, environments and API keys (spec 5, CONTRACT 0 and 2)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from energyhub.domain.versions import ApiVersion


class Environment(StrEnum):
    SANDBOX = "sandbox"
    LIVE = "live"

    @property
    def key_prefix(self) -> str:
        return "sk_test_" if self is Environment.SANDBOX else "sk_live_"


# `sk_sandbox_` is the older spelling of a sandbox key (spec 5.3).
KEY_PREFIXES: dict[str, Environment] = {
    "sk_test_": Environment.SANDBOX,
    "sk_sandbox_": Environment.SANDBOX,
    "sk_live_": Environment.LIVE,
}
KEY_PATTERN = re.compile(r"^(sk_test_|sk_live_|sk_sandbox_)([A-Za-z0-9]{32,128})$")


def environment_from_cli(name: str) -> Environment:
    """`test`/`sandbox` or `live`, as the CLI takes it."""
    lowered = name.lower()
    if lowered in {"test", "sandbox"}:
        return Environment.SANDBOX
    if lowered == "live":
        return Environment.LIVE
    raise ValueError(f"unknown environment {name!r}: use test or live")


KEY_NAME_MAX_LENGTH = 60


def key_name(raw: str | None) -> str | None:
    """A key's name as given, trimmed (None: no name); ValueError says what to send instead."""
    if raw is None or not raw.strip():
        return None
    name = " ".join(raw.split())
    if len(name) > KEY_NAME_MAX_LENGTH:
        raise ValueError(
            f"a key's name is at most {KEY_NAME_MAX_LENGTH} characters (this one has "
            f"{len(name)}): send a shorter one"
        )
    if not name.isprintable():
        raise ValueError("a key's name takes printable characters only: send plain text")
    return name


def hash_key(key: str) -> str:
    """Keys are random with 190+ bits, so a plain SHA-256 is a safe and fast lookup hash."""
    return hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Account:
    id: str
    name: str
    app_id: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ApiKey:
    id: str
    account_id: str
    environment: Environment
    prefix: str
    hint: str
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None
    api_version: ApiVersion = ApiVersion.V1  # what its requests get without a version header
    name: str | None = None  # the owner's label for it ("billing cron"), never the key
    last_used_at: datetime | None = None  # recorded at most once a KEY_USE_INTERVAL

    def usable_at(self, now: datetime) -> bool:
        if self.revoked_at is not None and self.revoked_at <= now:
            return False
        return self.expires_at is None or now < self.expires_at


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling: one key of one account, in one environment."""

    account_id: str
    environment: Environment
    key_id: str
    api_version: ApiVersion = ApiVersion.V1  # the key's pinned version
