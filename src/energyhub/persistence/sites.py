"""Sites in SQL: one row per user, written whole by the strategy service under its lock."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from energyhub.domain.accounts import Environment
from energyhub.persistence.tables import sites
from energyhub.persistence.types import aware
from energyhub.ports.storage import StoredSite


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
        return None if row is None else site_from_row(row)

    async def ensure(self, site: StoredSite) -> None:
        """Adds the site unless the user has one: writers racing to create it each find
        the one row, which `get(lock=True)` then hands them in turn."""
        insert = postgresql_insert if self._c.dialect.name == "postgresql" else sqlite_insert
        await self._c.execute(
            insert(sites)
            .values(
                account_id=site.account_id,
                environment=site.environment.value,
                user_id=site.user_id,
                **_values(site),
            )
            .on_conflict_do_nothing(index_elements=["account_id", "environment", "user_id"])
        )

    async def save(self, site: StoredSite) -> None:
        await self._c.execute(
            sites.update()
            .where(
                sites.c.account_id == site.account_id,
                sites.c.environment == site.environment.value,
                sites.c.user_id == site.user_id,
            )
            .values(**_values(site))
        )


def site_from_row(row: Any) -> StoredSite:
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


def _values(site: StoredSite) -> dict[str, Any]:
    return {
        "timezone": site.timezone,
        "grid_import_limit_kw": site.grid_import_limit_kw,
        "tariff": site.tariff,
        "last_reading": site.last_reading,
        "updated_at": site.updated_at,
    }
