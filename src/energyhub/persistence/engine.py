"""Engine factory and migrations: one place that knows SQLite from PostgreSQL."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from sqlalchemy import event, inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

if TYPE_CHECKING:  # Alembic (with Mako and Pygments, ~11 MB) loads only to migrate
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
log = logging.getLogger(__name__)


def json_document(text: str | bytes) -> Any:
    """A stored JSON document, decoded by orjson (several times faster than the stdlib,
    which a list page of devices spent a fifth of its time in); what orjson refuses (NaN,
    integers past 64 bits) by the stdlib."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def create_engine(url: str, *, echo: bool = False) -> AsyncEngine:
    """An async engine. SQLite gets WAL, foreign keys and a single connection: SQLite has one
    writer, and one pooled connection makes that the queue (no `database is locked`)."""
    if url.startswith("sqlite"):
        _ensure_sqlite_dir(url)
        engine = create_async_engine(
            url,
            echo=echo,
            pool_size=1,
            max_overflow=0,
            pool_timeout=60,
            hide_parameters=True,  # no webhook secret or credential in a logged error
            json_deserializer=json_document,
        )
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    # A pool as large as the usual concurrency: overflow connections that open and close
    # under load re-prepare their statements; no pre-ping (an extra round trip a checkout),
    # recycle instead.
    return create_async_engine(
        url,
        echo=echo,
        pool_size=32,
        max_overflow=8,
        pool_pre_ping=False,
        pool_recycle=1800,
        hide_parameters=True,
        json_deserializer=json_document,
    )


def _ensure_sqlite_dir(url: str) -> None:
    _, _, path = url.partition(":///")
    if path and path != ":memory:":
        Path(path).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def alembic_config() -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    return cfg


def newest_revision() -> str:
    """The head revision, read from the file names: each revision is its file's number
    (`0009_dashboard.py` is revision "0009"; a test holds every file to that)."""
    return max(p.name.split("_", 1)[0] for p in (MIGRATIONS_DIR / "versions").glob("[0-9]*_*.py"))


async def current_revision(engine: AsyncEngine) -> str | None:
    """The database's revision (None: never migrated)."""

    def read(sync_connection: Connection) -> str | None:
        if not inspect(sync_connection).has_table("alembic_version"):
            return None
        found = sync_connection.execute(text("SELECT version_num FROM alembic_version"))
        return found.scalar_one_or_none()

    async with engine.connect() as connection:
        return await connection.run_sync(read)


async def migrate(engine: AsyncEngine) -> None:
    """Upgrade the database to the newest revision (idempotent; safe at every start). A
    database already there is left alone without loading Alembic."""
    found, newest = await current_revision(engine), newest_revision()
    if found == newest:
        return
    log.info("migrating the database from %s to %s", found or "empty", newest)

    def upgrade(sync_connection: Connection) -> None:
        from alembic import command

        cfg = alembic_config()
        cfg.attributes["connection"] = sync_connection
        command.upgrade(cfg, "head")

    if engine.dialect.name != "sqlite":
        async with engine.begin() as connection:
            await connection.run_sync(upgrade)
        return
    # SQLite changes a column by rebuilding its table, and dropping a table that others
    # reference fails while foreign keys are enforced: SQLite's own procedure is to switch
    # them off outside the transaction, change the schema, check every reference, commit.
    async with engine.connect() as connection:
        await connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
        await connection.commit()
        try:
            await connection.run_sync(upgrade)
            broken = (await connection.exec_driver_sql("PRAGMA foreign_key_check")).fetchall()
            if broken:
                await connection.rollback()
                raise RuntimeError(f"a migration broke {len(broken)} foreign key references")
            await connection.commit()
        finally:
            await connection.exec_driver_sql("PRAGMA foreign_keys=ON")
            await connection.commit()
