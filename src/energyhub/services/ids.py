"""Identifiers and secrets: random, URL-safe, prefixed where a prefix helps a reader."""

from __future__ import annotations

import secrets
import string
import uuid

BASE62 = string.ascii_letters + string.digits


def new_id() -> str:
    return str(uuid.uuid4())


def prefixed_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:24]}"


def random_base62(length: int) -> str:
    return "".join(secrets.choice(BASE62) for _ in range(length))
