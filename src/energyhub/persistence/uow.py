"""A unit of work over one SQL transaction."""

from __future__ import annotations

from types import TracebackType
from typing import Self

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from energyhub.persistence.accounts import SqlAccountRepository
from energyhub.persistence.actions import SqlActionRepository
from energyhub.persistence.devices import SqlDeviceRepository


class SqlUnitOfWork:
    """Opens a connection and a transaction on enter; commits on a clean exit, else rolls back."""

    accounts: SqlAccountRepository
    devices: SqlDeviceRepository
    actions: SqlActionRepository

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._connection: AsyncConnection | None = None

    async def __aenter__(self) -> Self:
        self._connection = await self._engine.connect()
        await self._connection.begin()
        self.accounts = SqlAccountRepository(self._connection)
        self.devices = SqlDeviceRepository(self._connection)
        self.actions = SqlActionRepository(self._connection)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        connection, self._connection = self._connection, None
        if connection is None:
            return
        try:
            if exc_type is None:
                await connection.commit()
            else:
                await connection.rollback()
        finally:
            await connection.close()


class SqlUnitOfWorkFactory:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    def __call__(self) -> SqlUnitOfWork:
        return SqlUnitOfWork(self.engine)
