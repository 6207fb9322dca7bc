"""Accounts and API keys in SQL."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from energyhub.domain.accounts import Account, ApiKey, Environment
from energyhub.domain.versions import ApiVersion
from energyhub.persistence.tables import accounts, api_keys


def _key(row: Any) -> ApiKey:
    return ApiKey(
        id=row.id,
        account_id=row.account_id,
        environment=Environment(row.environment),
        prefix=row.prefix,
        hint=row.hint,
        created_at=row.created_at,
        expires_at=row.expires_at,
        revoked_at=row.revoked_at,
        api_version=ApiVersion(row.api_version),
        name=row.name,
        last_used_at=row.last_used_at,
    )


class SqlAccountRepository:
    def __init__(self, connection: AsyncConnection) -> None:
        self._c = connection

    async def add_account(self, account: Account) -> None:
        await self._c.execute(
            accounts.insert().values(
                id=account.id,
                name=account.name,
                app_id=account.app_id,
                created_at=account.created_at,
            )
        )

    async def get_account(self, account_id: str) -> Account | None:
        row = (await self._c.execute(select(accounts).where(accounts.c.id == account_id))).first()
        return None if row is None else Account(row.id, row.name, row.app_id, row.created_at)

    async def count_accounts(self) -> int:
        return int((await self._c.execute(select(func.count()).select_from(accounts))).scalar_one())

    async def list_accounts(self, now: datetime) -> list[tuple[Account, int]]:
        """Every account, oldest first, with how many of its keys still work at `now`."""
        k = api_keys
        live = (
            select(func.count())
            .where(
                k.c.account_id == accounts.c.id,
                k.c.revoked_at.is_(None),
                or_(k.c.expires_at.is_(None), k.c.expires_at > now),
            )
            .scalar_subquery()
        )
        rows = await self._c.execute(
            select(accounts, live.label("live_keys")).order_by(accounts.c.created_at, accounts.c.id)
        )
        return [(Account(r.id, r.name, r.app_id, r.created_at), int(r.live_keys)) for r in rows]

    async def add_key(self, key: ApiKey, key_hash: str) -> None:
        await self._c.execute(
            api_keys.insert().values(
                id=key.id,
                account_id=key.account_id,
                environment=key.environment.value,
                prefix=key.prefix,
                key_hash=key_hash,
                hint=key.hint,
                created_at=key.created_at,
                expires_at=key.expires_at,
                revoked_at=key.revoked_at,
                api_version=key.api_version.value,
                name=key.name,
                last_used_at=key.last_used_at,
            )
        )

    async def key_by_hash(self, key_hash: str) -> ApiKey | None:
        row = (
            await self._c.execute(select(api_keys).where(api_keys.c.key_hash == key_hash))
        ).first()
        return None if row is None else _key(row)

    async def get_key(self, key_id: str) -> ApiKey | None:
        row = (await self._c.execute(select(api_keys).where(api_keys.c.id == key_id))).first()
        return None if row is None else _key(row)

    async def list_keys(self, account_id: str) -> Sequence[ApiKey]:
        rows = await self._c.execute(
            select(api_keys)
            .where(api_keys.c.account_id == account_id)
            .order_by(api_keys.c.created_at, api_keys.c.id)
        )
        return [_key(r) for r in rows]

    async def set_key_version(self, key_id: str, version: ApiVersion) -> None:
        await self._c.execute(
            update(api_keys).where(api_keys.c.id == key_id).values(api_version=version.value)
        )

    async def revoke_key(self, key_id: str, at: datetime) -> bool:
        result = await self._c.execute(
            update(api_keys)
            .where(api_keys.c.id == key_id, api_keys.c.revoked_at.is_(None))
            .values(revoked_at=at)
        )
        return bool(result.rowcount)

    async def record_key_uses(self, uses: Mapping[str, datetime]) -> None:
        """Each key's last use, never moved back (another process may have written later)."""
        k = api_keys
        for key_id, at in sorted(uses.items()):
            await self._c.execute(
                update(k)
                .where(k.c.id == key_id, or_(k.c.last_used_at.is_(None), k.c.last_used_at < at))
                .values(last_used_at=at)
            )
