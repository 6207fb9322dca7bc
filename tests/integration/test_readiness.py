"""The probes a load balancer reads, without a key: /healthz answers while the process is
up; /readyz only while the database answers and its migrations are at head (503 with the
reason otherwise: a database behind head, or one that does not answer)."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import asyncpg
import httpx

from energyhub.bootstrap import build_app, build_container
from energyhub.config import Settings
from energyhub.persistence.engine import newest_revision
from tests.conftest import DEFAULT_POSTGRES, POSTGRES_ENV, server_url
from tests.processes import free_port


@asynccontextmanager
async def probes(settings: Settings, *, migrated: bool) -> AsyncIterator[httpx.AsyncClient]:
    container = await build_container(settings, run_migrations=migrated)
    try:
        transport = httpx.ASGITransport(app=build_app(container))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            yield c
    finally:
        await container.aclose()


async def test_ready_when_the_database_is_at_head(database_url: str, tmp_path: Path) -> None:
    settings = Settings(database_url=database_url, data_dir=str(tmp_path))
    async with probes(settings, migrated=True) as client:
        assert (await client.get("/healthz")).status_code == 200
        ready = await client.get("/readyz")
        assert ready.status_code == 200, ready.text
        assert ready.json() == {"status": "ready"}


async def test_not_ready_on_a_sqlite_file_never_migrated(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'new.db'}")
    async with probes(settings, migrated=False) as client:
        assert (await client.get("/healthz")).status_code == 200
        ready = await client.get("/readyz")
    assert ready.status_code == 503
    reason = ready.json()["reason"]
    assert f"at none, not at {newest_revision()}" in reason
    assert "energyhub migrate" in reason


async def test_not_ready_on_a_postgres_database_never_migrated(tmp_path: Path) -> None:
    server = server_url(POSTGRES_ENV, DEFAULT_POSTGRES, 5432, "PostgreSQL")
    name = f"energyhub_ready_{secrets.token_hex(4)}"
    admin = await asyncpg.connect(server.replace("+asyncpg", ""))
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        url = urlunparse(urlparse(server)._replace(path=f"/{name}"))
        settings = Settings(database_url=url, data_dir=str(tmp_path))
        async with probes(settings, migrated=False) as client:
            ready = await client.get("/readyz")
        assert ready.status_code == 503
        assert f"at none, not at {newest_revision()}" in ready.json()["reason"]
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def test_not_ready_when_the_database_does_not_answer(tmp_path: Path) -> None:
    closed = free_port()  # nothing listens there
    settings = Settings(
        database_url=f"postgresql+asyncpg://postgres@127.0.0.1:{closed}/energyhub",
        data_dir=str(tmp_path),
    )
    async with probes(settings, migrated=False) as client:
        assert (await client.get("/healthz")).status_code == 200
        ready = await client.get("/readyz")
    assert ready.status_code == 503
    assert ready.json()["reason"].startswith("the database does not answer")
