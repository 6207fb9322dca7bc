"""Account members: the people who sign in to the dashboard (issue 6; spec 5.4 puts key
management there). A member belongs to one account and sees both of its environments."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

MIN_PASSWORD_LENGTH = 12
MAX_PASSWORD_LENGTH = 1024  # argon2 hashes anything, but nobody types more; bounds the work
SESSION_LIFETIME = timedelta(hours=12)  # absolute: a sign-in lasts a working day at most
SESSION_IDLE_LIMIT = timedelta(hours=2)  # unused this long, a session ends
_EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s]{1,255}\.[^@\s]{1,63}$")


class MemberRefused(ValueError):
    """A member cannot be added as asked; the message says what to change."""


def normalize_email(email: str) -> str:
    """E-mail addresses compare without case or surrounding space."""
    return email.strip().lower()


def check_new_member(email: str, password: str) -> str:
    """The normalized e-mail of a member that may be added, or MemberRefused."""
    normalized = normalize_email(email)
    if not _EMAIL.match(normalized):
        raise MemberRefused(f"{email!r} is not an e-mail address.")
    if len(password) < MIN_PASSWORD_LENGTH:
        raise MemberRefused(f"The password needs at least {MIN_PASSWORD_LENGTH} characters.")
    if len(password) > MAX_PASSWORD_LENGTH:
        raise MemberRefused(f"The password may have at most {MAX_PASSWORD_LENGTH} characters.")
    if password.lower() == normalized or password.lower() in normalized:
        raise MemberRefused("The password may not be the e-mail address.")
    return normalized


def hash_session_token(token: str) -> str:
    """Session tokens are random (256 bits); the database keeps only their SHA-256, so a
    leaked table signs nobody in."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Member:
    id: str
    account_id: str
    email: str
    created_at: datetime
    last_sign_in_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class DashboardSession:
    """A signed-in browser. `csrf_token` must come back in every form it posts."""

    token_hash: str
    member_id: str
    csrf_token: str
    created_at: datetime
    last_seen_at: datetime
    expires_at: datetime

    def usable_at(self, now: datetime) -> bool:
        return now < self.expires_at and now - self.last_seen_at < SESSION_IDLE_LIMIT
