"""Dashboard members: adding them, signing them in (argon2id), and their browser sessions.

A session is a random 256-bit token in a cookie; the database keeps its SHA-256 and a CSRF
token the dashboard's forms must echo. Sessions end when signed out, after
`SESSION_LIFETIME`, or after `SESSION_IDLE_LIMIT` unused. Failed sign-ins are throttled per
e-mail address (in this process), and an unknown address costs as much time as a wrong
password, so neither reveals which addresses are members."""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass
from datetime import timedelta
from functools import cached_property
from typing import TYPE_CHECKING

from energyhub.domain.clock import Clock
from energyhub.domain.members import (
    SESSION_LIFETIME,
    DashboardSession,
    Member,
    MemberRefused,
    check_new_member,
    hash_session_token,
    normalize_email,
)
from energyhub.ports.members import MembersUnitOfWorkFactory
from energyhub.services.ids import prefixed_id

if TYPE_CHECKING:  # argon2 loads with the first sign-in or new member, limits with a sign-in
    from argon2 import PasswordHasher
    from limits import RateLimitItem
    from limits.strategies import MovingWindowRateLimiter

SIGN_IN_LIMIT = "10/15 minutes"  # failed sign-ins per e-mail address
TOUCH_EVERY = timedelta(minutes=1)  # a session's last_seen_at is written at most this often


class SignInRefused(Exception):
    """Wrong e-mail or password (the message never says which)."""

    def __init__(self, message: str = "The e-mail address or the password is wrong.") -> None:
        super().__init__(message)
        self.message = message


class SignInThrottled(SignInRefused):
    def __init__(self) -> None:
        super().__init__(
            "Too many failed sign-ins for this e-mail address: wait 15 minutes and try again."
        )


@dataclass(frozen=True, slots=True)
class SignedIn:
    member: Member
    token: str  # for the cookie; never stored
    session: DashboardSession


class MemberService:
    def __init__(
        self, uow: MembersUnitOfWorkFactory, clock: Clock, hasher: PasswordHasher | None = None
    ) -> None:
        self._uow = uow
        self._clock = clock
        self._given_hasher = hasher

    @cached_property
    def _throttle(self) -> MovingWindowRateLimiter:
        """The sign-in throttle; `limits` (~2 MB with what it imports) loads with the first
        sign-in, not with every process."""
        from limits.storage import MemoryStorage
        from limits.strategies import MovingWindowRateLimiter

        return MovingWindowRateLimiter(MemoryStorage())

    @cached_property
    def _limit(self) -> RateLimitItem:
        from limits import parse

        return parse(SIGN_IN_LIMIT)

    @cached_property
    def _hasher(self) -> PasswordHasher:
        """argon2id with argon2-cffi's defaults (RFC 9106's low-memory profile)."""
        if self._given_hasher is not None:
            return self._given_hasher
        from argon2 import PasswordHasher

        return PasswordHasher()

    @cached_property
    def _decoy_hash(self) -> str:
        """Verified against when the e-mail is unknown, so that costs the same time."""
        return self._hasher.hash(secrets.token_urlsafe(16))

    async def add_member(self, account_id: str, email: str, password: str) -> Member:
        """MemberRefused for a bad address or password or a taken address; LookupError for
        an unknown account."""
        normalized = check_new_member(email, password)
        password_hash = await asyncio.to_thread(self._hasher.hash, password)
        member = Member(prefixed_id("mem"), account_id, normalized, self._clock.now())
        async with self._uow() as tx:
            if await tx.accounts.get_account(account_id) is None:
                raise LookupError(f"no account {account_id!r}")
            if not await tx.members.add_member(member, password_hash):
                raise MemberRefused(f"{normalized} is already a member.")
        return member

    async def sign_in(self, email: str, password: str) -> SignedIn:
        normalized = normalize_email(email)
        if not self._throttle.test(self._limit, normalized):
            raise SignInThrottled()
        async with self._uow() as tx:
            found = await tx.members.member_by_email(normalized)
        stored_hash = found[1] if found is not None else self._decoy_hash
        if not await asyncio.to_thread(self._verify, stored_hash, password) or found is None:
            self._throttle.hit(self._limit, normalized)
            raise SignInRefused()
        member = found[0]
        new_hash = None
        if self._hasher.check_needs_rehash(stored_hash):  # parameters were raised since
            new_hash = await asyncio.to_thread(self._hasher.hash, password)
        now = self._clock.now()
        token = secrets.token_urlsafe(32)
        session = DashboardSession(
            token_hash=hash_session_token(token),
            member_id=member.id,
            csrf_token=secrets.token_urlsafe(32),
            created_at=now,
            last_seen_at=now,
            expires_at=now + SESSION_LIFETIME,
        )
        async with self._uow() as tx:
            await tx.members.end_expired_sessions(now)
            await tx.members.signed_in(member.id, now, new_hash)
            await tx.members.add_session(session)
        return SignedIn(member, token, session)

    def _verify(self, stored_hash: str, password: str) -> bool:
        from argon2.exceptions import InvalidHashError, VerificationError

        try:
            return self._hasher.verify(stored_hash, password)
        except (VerificationError, InvalidHashError):
            return False

    async def session(self, token: str) -> tuple[Member, DashboardSession] | None:
        """The member signed in with this cookie token, or None (unknown, ended, expired)."""
        if not token:
            return None
        token_hash = hash_session_token(token)
        now = self._clock.now()
        async with self._uow() as tx:
            session = await tx.members.get_session(token_hash)
            if session is None:
                return None
            if not session.usable_at(now):
                await tx.members.end_session(token_hash)
                return None
            member = await tx.members.get_member(session.member_id)
            if member is None:
                return None
            if now - session.last_seen_at >= TOUCH_EVERY:
                await tx.members.touch_session(token_hash, now)
        return member, session

    async def sign_out(self, token: str) -> None:
        async with self._uow() as tx:
            await tx.members.end_session(hash_session_token(token))
