"""Fixtures: the service on SQLite and on PostgreSQL, a fake clock, and clients over HTTP.

PostgreSQL and Redis tests skip with a reason when no server answers on 127.0.0.1, unless
ENERGYHUB_TEST_POSTGRES_URL / ENERGYHUB_TEST_REDIS_URL are set: then they are mandatory
(`.ci/run` sets both)."""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
from collections.abc import AsyncIterator, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse, urlunparse

import pytest
from sqlalchemy import text

from energyhub.adapters.host_lookup import DnsHostLookup
from energyhub.bootstrap import Container, build_container
from energyhub.config import Settings
from energyhub.domain.clock import FakeClock
from energyhub.domain.webhook_reach import IPAddress
from energyhub.persistence.engine import create_engine, migrate
from energyhub.persistence.tables import metadata
from tests import network_guard
from tests.support import Api, open_api

POSTGRES_ENV = "ENERGYHUB_TEST_POSTGRES_URL"
REDIS_ENV = "ENERGYHUB_TEST_REDIS_URL"
DEFAULT_POSTGRES = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
DEFAULT_REDIS = "redis://127.0.0.1:6379/15"
START = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)

network_guard.install()


@pytest.fixture(autouse=True)
def _only_loopback() -> Iterator[None]:
    """Every test stays on 127.0.0.0/8 and ::1 (tests/network_guard.py)."""
    with network_guard.checked():
        yield


@pytest.fixture(autouse=True)
def host_names(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[IPAddress]]:
    """What host names resolve to when a live webhook endpoint is created: the service's
    DNS lookup is stubbed (no lookup leaves the machine); a name not here resolves to
    nothing, which lets the endpoint be created. Tests add names to it."""
    names: dict[str, list[IPAddress]] = {}

    async def addresses(_self: DnsHostLookup, host: str) -> list[IPAddress]:
        return list(names.get(host.rstrip(".").lower(), []))

    monkeypatch.setattr(DnsHostLookup, "addresses", addresses)
    return names


def _reachable(url: str, default_port: int) -> bool:
    parsed = urlparse(url.replace("+asyncpg", ""))
    try:
        with socket.create_connection(
            (parsed.hostname or "127.0.0.1", parsed.port or default_port), 1
        ):
            return True
    except OSError:
        return False


def server_url(env: str, default: str, port: int, what: str) -> str:
    """The server's URL; mandatory when the variable is set, else skipped when unreachable."""
    given = os.environ.get(env)
    if given:
        if not _reachable(given, port):
            pytest.fail(f"{env} is set but {what} at {given} does not answer")
        return given
    if not _reachable(default, port):
        pytest.skip(f"no {what} on {default} (set {env} to make this test mandatory)")
    return default


@pytest.fixture
def redis_url() -> str:
    return server_url(REDIS_ENV, DEFAULT_REDIS, 6379, "Redis")


async def reset_postgres(url: str) -> None:
    """Migrated schema with empty tables: tests start from a clean database (of their own)."""
    engine = create_engine(url)
    try:
        await migrate(engine)
        names = ", ".join(t.name for t in metadata.sorted_tables)
        async with engine.begin() as connection:
            await connection.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
    finally:
        await engine.dispose()


async def _create_database(server: str, name: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(server.replace("+asyncpg", ""))
    try:
        await connection.execute(f'CREATE DATABASE "{name}"')
    finally:
        await connection.close()


async def _drop_database(server: str, name: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(server.replace("+asyncpg", ""))
    try:
        await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await connection.close()


def _run_apart(work: Coroutine[Any, Any, None]) -> None:
    """Runs a coroutine to the end on a loop of its own thread (callers may be inside a loop)."""
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, work).result()


@pytest.fixture(scope="session")
def postgres_database() -> Iterator[str]:
    """A database of this test run's own on the server, created once and dropped at the end.

    The configured URL names only the server to use: tests never write to (or empty) a
    database they did not create, so several runs can share one server."""
    server = server_url(POSTGRES_ENV, DEFAULT_POSTGRES, 5432, "PostgreSQL")
    name = f"energyhub_test_{secrets.token_hex(6)}"
    try:
        _run_apart(_create_database(server, name))
    except Exception as exc:  # the server answers but will not let us create a database
        if os.environ.get(POSTGRES_ENV):
            pytest.fail(f"cannot create a test database on {server}: {exc}")
        pytest.skip(f"cannot create a test database on {server}: {exc}")
    url = urlunparse(urlparse(server)._replace(path=f"/{name}"))
    try:
        yield url
    finally:
        _run_apart(_drop_database(server, name))


@pytest.fixture
def postgres_url(postgres_database: str) -> str:
    return postgres_database


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'energyhub.db'}"
    url: str = request.getfixturevalue("postgres_database")
    await reset_postgres(url)
    return url


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def settings(database_url: str) -> Settings:
    return Settings(database_url=database_url, key_cache_ttl_s=0, immediate_retry_backoff_s=(0, 0))


@pytest.fixture
async def container(settings: Settings, clock: FakeClock) -> AsyncIterator[Container]:
    built = await build_container(settings, clock)
    try:
        yield built
    finally:
        await built.aclose()


@pytest.fixture
async def api(container: Container, clock: FakeClock) -> AsyncIterator[Api]:
    async with open_api(container, clock) as opened:
        yield opened
