"""API keys' names and last use (issue 18): `last_used_at` is written at most once a key a
minute, off the request's path, never moved back; `energyhub keys create --name` and
`keys list` show both. On SQLite and PostgreSQL, with the fake clock."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from typer.testing import CliRunner

from energyhub.bootstrap import Container, build_container
from energyhub.cli import app
from energyhub.config import Settings
from energyhub.domain.accounts import Environment
from energyhub.domain.clock import FakeClock
from tests.conftest import START


class KeyWrites:
    """Counts the statements that write `api_keys.last_used_at`, as the database gets them."""

    def __init__(self, container: Container) -> None:
        self.count = 0
        self._engine = container.engine.sync_engine
        event.listen(self._engine, "before_cursor_execute", self._seen)

    def _seen(self, _conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.lstrip().upper().startswith("UPDATE API_KEYS") and "last_used_at" in statement:
            self.count += 1

    def close(self) -> None:
        event.remove(self._engine, "before_cursor_execute", self._seen)


@pytest.fixture
def writes(container: Container) -> Iterator[KeyWrites]:
    counting = KeyWrites(container)
    try:
        yield counting
    finally:
        counting.close()


async def test_a_key_is_marked_used_at_most_once_a_minute(
    container: Container, clock: FakeClock, writes: KeyWrites
) -> None:
    accounts = container.services.accounts
    account = await accounts.create_account("last use")
    created = await accounts.create_key(account.id, Environment.SANDBOX, name="billing cron")
    other = await accounts.create_key(account.id, Environment.SANDBOX)
    assert created.api_key.name == "billing cron"
    first_use = clock.now()

    for _ in range(50):
        await accounts.authenticate(created.key)
    await accounts.usage.flush()
    assert writes.count == 1, "fifty requests, one write"
    [stored] = [k for k in await accounts.list_keys(account.id) if k.id == created.api_key.id]
    assert stored.last_used_at == first_use

    clock.advance(timedelta(seconds=59))
    for _ in range(50):
        await accounts.authenticate(created.key)  # read again: the row says 59 s ago
    await accounts.usage.flush()
    assert writes.count == 1, "within the minute: no write"

    clock.advance(timedelta(seconds=1))
    await accounts.authenticate(created.key)
    await accounts.authenticate(other.key)
    await accounts.usage.flush()
    assert writes.count == 3, "a minute on: one write each for the two keys"
    listed = {k.id: k.last_used_at for k in await accounts.list_keys(account.id)}
    assert listed == {
        created.api_key.id: first_use + timedelta(seconds=60),
        other.api_key.id: clock.now(),
    }


async def test_requests_do_not_wait_for_the_write(
    container: Container, clock: FakeClock, writes: KeyWrites
) -> None:
    """The mark is written by a task of its own: a request that makes a key due returns
    before any statement reaches the database."""
    accounts = container.services.accounts
    account = await accounts.create_account("off the path")
    created = await accounts.create_key(account.id, Environment.SANDBOX)
    await accounts.authenticate(created.key)
    assert writes.count == 0
    await accounts.usage.flush()
    assert writes.count == 1


async def test_a_later_use_written_elsewhere_is_never_moved_back(
    container: Container, clock: FakeClock
) -> None:
    """Two processes mark the same key: the older mark lands second and changes nothing."""
    accounts = container.services.accounts
    account = await accounts.create_account("two processes")
    created = await accounts.create_key(account.id, Environment.SANDBOX)
    later = clock.now() + timedelta(minutes=5)
    async with container.uow() as tx:
        await tx.accounts.record_key_uses({created.api_key.id: later})
    await accounts.authenticate(created.key)
    await accounts.usage.flush()
    [stored] = await accounts.list_keys(account.id)
    assert stored.last_used_at == later


# --- the command line -------------------------------------------------------------------
@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("ENERGYHUB_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}")
    monkeypatch.setenv("COLUMNS", "220")  # the table on one line a row
    return CliRunner()


def _json(cli: CliRunner, *args: str) -> Any:
    result = cli.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


async def _use(database: Path, key: str) -> None:
    """A request of a serving process, with the key (its container is another process's)."""
    built = await build_container(
        Settings(database_url=f"sqlite+aiosqlite:///{database}", key_cache_ttl_s=0),
        FakeClock(START),
    )
    try:
        await built.services.accounts.authenticate(key)
    finally:
        await built.aclose()  # writes the marks still due


def test_keys_are_named_and_listed_with_their_last_use(cli: CliRunner, tmp_path: Path) -> None:
    account = _json(cli, "accounts", "create", "--name", "Acme", "--json")["accountId"]
    named = _json(
        cli, "keys", "create", "--account", account, "--env", "test",
        "--name", "  billing   cron ", "--json",
    )  # fmt: skip
    plain = _json(cli, "keys", "create", "--account", account, "--env", "live", "--json")
    assert named["name"] == "billing cron", "spaces trimmed and folded"
    assert plain["name"] is None
    shown = cli.invoke(app, ["keys", "create", "--account", account, "--env", "test",
                             "--name", "ops"])  # fmt: skip
    assert shown.exit_code == 0
    assert "(ops)" in shown.stderr

    asyncio.run(_use(tmp_path / "cli.db", named["key"]))
    listed = {k["keyId"]: k for k in _json(cli, "keys", "list", "--account", account, "--json")}
    assert listed[named["keyId"]]["name"] == "billing cron"
    assert listed[named["keyId"]]["lastUsedAt"] == "2026-11-20T12:00:00.000Z"
    assert listed[plain["keyId"]]["lastUsedAt"] is None
    assert listed[plain["keyId"]]["name"] is None

    table = cli.invoke(app, ["keys", "list", "--account", account])
    assert table.exit_code == 0
    rows = {
        line.split("│")[1].strip(): line for line in table.stdout.splitlines() if "key_" in line
    }
    assert "billing cron" in rows[named["keyId"]]
    assert "2026-11-20T12:00:00.000Z" in rows[named["keyId"]]
    assert "never" in rows[plain["keyId"]]
    for header in ("name", "last used", "created", "expires", "revoked"):
        assert header in table.stdout


def test_a_name_too_long_or_unprintable_is_refused_with_what_to_send(cli: CliRunner) -> None:
    account = _json(cli, "accounts", "create", "--name", "Acme", "--json")["accountId"]
    base = ["keys", "create", "--account", account, "--env", "test", "--name"]
    long = cli.invoke(app, [*base, "x" * 61])
    assert long.exit_code == 2
    assert "at most 60 characters" in long.output
    assert "send a shorter one" in long.output
    bell = cli.invoke(app, [*base, "ops\x07"])
    assert bell.exit_code == 2
    assert "printable characters only" in bell.output
    assert _json(cli, "keys", "list", "--account", account, "--json") == []
