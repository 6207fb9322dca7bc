"""Alembic environment: run with a connection handed in by `persistence.engine.migrate`, or
from the alembic CLI with `-x url=...` for writing new revisions."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from energyhub.persistence.engine import create_engine
from energyhub.persistence.tables import metadata

config = context.config


def run_with(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_standalone(url: str) -> None:
    engine = create_engine(url)
    async with engine.begin() as connection:
        await connection.run_sync(run_with)
    await engine.dispose()


given = config.attributes.get("connection")
if given is not None:
    run_with(given)
else:
    asyncio.run(run_standalone(context.get_x_argument(as_dictionary=True)["url"]))
