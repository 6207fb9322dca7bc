"""Helpers of the cross-process tests on PostgreSQL: the channel's connections as the
database sees them, a sandbox key, and times from responses."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from pathlib import Path

import asyncpg
from sqlalchemy.engine import make_url

from energyhub.bootstrap import build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment

SIGNALS_APP = "energyhub-listen-"  # the listening connection of the channel


def dsn(database_url: str) -> str:
    return make_url(database_url).set(drivername="postgresql").render_as_string(False)


async def _listeners(database_url: str) -> dict[int, int]:
    """The channel's connections to this database: process id -> backend pid."""
    connection = await asyncpg.connect(dsn(database_url))
    try:
        rows = await connection.fetch(
            "SELECT application_name, pid FROM pg_stat_activity "
            "WHERE datname = current_database() AND application_name LIKE $1",
            SIGNALS_APP + "%",
        )
    finally:
        await connection.close()
    names = (r["application_name"].removeprefix(SIGNALS_APP) for r in rows)
    return {int(name.partition(".")[0]): r["pid"] for name, r in zip(names, rows, strict=True)}


def wait_for_channels(database_url: str, *pids: int, timeout: float = 15.0) -> dict[int, int]:
    """Waits until each of the processes `pids` has its channel connection."""
    deadline = time.monotonic() + timeout
    while True:
        found = asyncio.run(_listeners(database_url))
        if all(pid in found for pid in pids):
            time.sleep(0.2)  # its LISTEN follows the connection at once
            return found
        assert time.monotonic() < deadline, f"channels of {pids} not up: {found}"
        time.sleep(0.1)


async def _terminate(database_url: str, backend_pid: int) -> None:
    connection = await asyncpg.connect(dsn(database_url))
    try:
        assert await connection.fetchval("SELECT pg_terminate_backend($1)", backend_pid)
    finally:
        await connection.close()


def kill_channel(database_url: str, process_pid: int) -> None:
    """Ends the process's LISTEN connection from the server side."""
    backend = asyncio.run(_listeners(database_url))[process_pid]
    asyncio.run(_terminate(database_url, backend))


async def _sandbox_key(database_url: str, tmp_path: Path) -> str:
    container = await build_container(Settings(database_url=database_url, data_dir=str(tmp_path)))
    try:
        account = await container.services.accounts.create_account("cross-process")
        created = await container.services.accounts.create_key(account.id, Environment.SANDBOX)
        return created.key
    finally:
        await container.aclose()


def sandbox_key(database_url: str, tmp_path: Path) -> str:
    return asyncio.run(_sandbox_key(database_url, tmp_path))


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
