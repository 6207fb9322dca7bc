"""Sites in SQL: one row per user, written whole by the site service."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from energyhub.domain.accounts import Environment
from energyhub.persistence.tables import sites
from energyhub.persistence.types import aware
from energyhub.services.ports import StoredSite


class SqlSiteRepository:
    def __init__(self, connection: AsyncConnection) -> None:
        self._c = connection

    async def get(
        self, account_id: str, environment: Environment, user_id: str, *, lock: bool = False
    ) -> StoredSite | None:
        """The user's site; with `lock`, its row stays locked until the transaction ends
        (PostgreSQL; SQLite has a single writer anyway)."""
        query = select(sites).where(
            sites.c.account_id == account_id,
            sites.c.environment == environment.value,
            sites.c.user_id == user_id,
        )
        if lock and self._c.dialect.name == "postgresql":
            query = query.with_for_update()
        row = (await self._c.execute(query)).first()
        if row is None:
            return None
        return StoredSite(
            account_id=row.account_id,
            environment=Environment(row.environment),
            user_id=row.user_id,
            timezone=row.timezone,
            grid_import_limit_kw=row.grid_import_limit_kw,
            tariff=row.tariff,
            last_reading=row.last_reading,
            updated_at=aware(row.updated_at),
        )

    async def save(self, site: StoredSite, *, exists: bool) -> None:
        values = {
            "timezone": site.timezone,
            "grid_import_limit_kw": site.grid_import_limit_kw,
            "tariff": site.tariff,
            "last_reading": site.last_reading,
            "updated_at": site.updated_at,
        }
        if exists:
            await self._c.execute(
                sites.update()
                .where(
                    sites.c.account_id == site.account_id,
                    sites.c.environment == site.environment.value,
                    sites.c.user_id == site.user_id,
                )
                .values(**values)
            )
        else:
            await self._c.execute(
                sites.insert().values(
                    account_id=site.account_id,
                    environment=site.environment.value,
                    user_id=site.user_id,
                    **values,
                )
            )
