"""Account members, their dashboard sessions, and live devices' state samples in SQL."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from energyhub.domain.history import StateSample
from energyhub.domain.members import DashboardSession, Member
from energyhub.persistence.tables import account_members, dashboard_sessions, device_samples


def _member(row: Any) -> Member:
    return Member(row.id, row.account_id, row.email, row.created_at, row.last_sign_in_at)


def _session(row: Any) -> DashboardSession:
    return DashboardSession(
        token_hash=row.token_hash,
        member_id=row.member_id,
        csrf_token=row.csrf_token,
        created_at=row.created_at,
        last_seen_at=row.last_seen_at,
        expires_at=row.expires_at,
    )


class SqlMemberRepository:
    def __init__(self, connection: AsyncConnection) -> None:
        self._c = connection

    async def add_member(self, member: Member, password_hash: str) -> bool:
        """False when the e-mail address is taken (one member per address, service-wide)."""
        try:
            async with self._c.begin_nested():
                await self._c.execute(
                    account_members.insert().values(
                        id=member.id,
                        account_id=member.account_id,
                        email=member.email,
                        password_hash=password_hash,
                        created_at=member.created_at,
                    )
                )
        except IntegrityError:
            return False
        return True

    async def member_by_email(self, email: str) -> tuple[Member, str] | None:
        """The member and its password hash."""
        row = (
            await self._c.execute(select(account_members).where(account_members.c.email == email))
        ).first()
        return None if row is None else (_member(row), row.password_hash)

    async def get_member(self, member_id: str) -> Member | None:
        row = (
            await self._c.execute(select(account_members).where(account_members.c.id == member_id))
        ).first()
        return None if row is None else _member(row)

    async def signed_in(self, member_id: str, at: datetime, new_hash: str | None) -> None:
        values: dict[str, Any] = {"last_sign_in_at": at}
        if new_hash is not None:
            values["password_hash"] = new_hash
        await self._c.execute(
            update(account_members).where(account_members.c.id == member_id).values(**values)
        )

    async def add_session(self, session: DashboardSession) -> None:
        await self._c.execute(
            dashboard_sessions.insert().values(
                token_hash=session.token_hash,
                member_id=session.member_id,
                csrf_token=session.csrf_token,
                created_at=session.created_at,
                last_seen_at=session.last_seen_at,
                expires_at=session.expires_at,
            )
        )

    async def get_session(self, token_hash: str) -> DashboardSession | None:
        row = (
            await self._c.execute(
                select(dashboard_sessions).where(dashboard_sessions.c.token_hash == token_hash)
            )
        ).first()
        return None if row is None else _session(row)

    async def touch_session(self, token_hash: str, at: datetime) -> None:
        await self._c.execute(
            update(dashboard_sessions)
            .where(dashboard_sessions.c.token_hash == token_hash)
            .values(last_seen_at=at)
        )

    async def end_session(self, token_hash: str) -> None:
        await self._c.execute(
            delete(dashboard_sessions).where(dashboard_sessions.c.token_hash == token_hash)
        )

    async def end_expired_sessions(self, before: datetime) -> None:
        await self._c.execute(
            delete(dashboard_sessions).where(dashboard_sessions.c.expires_at <= before)
        )


class SqlSampleRepository:
    def __init__(self, connection: AsyncConnection) -> None:
        self._c = connection

    async def add_sample(self, device_id: str, sample: StateSample, keep_after: datetime) -> None:
        """Records a sample and forgets the device's samples older than `keep_after`."""
        await self._c.execute(
            delete(device_samples).where(
                device_samples.c.device_id == device_id, device_samples.c.at < keep_after
            )
        )
        await self._c.execute(
            device_samples.insert().values(
                device_id=device_id, at=sample.at, level=sample.level, power_kw=sample.power_kw
            )
        )

    async def samples(self, device_id: str, start: datetime, end: datetime) -> list[StateSample]:
        rows = await self._c.execute(
            select(device_samples.c.at, device_samples.c.level, device_samples.c.power_kw)
            .where(
                device_samples.c.device_id == device_id,
                device_samples.c.at >= start,
                device_samples.c.at <= end,
            )
            .order_by(device_samples.c.at)
        )
        return [StateSample(r.at, r.level, r.power_kw) for r in rows]
