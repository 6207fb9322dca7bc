"""What `energyhub accounts list` reads, on SQLite and PostgreSQL: every account, oldest
first, with its live keys (not revoked, not expired); and the words it uses for the
database (never a password) and for a taken port."""

from __future__ import annotations

import socket
from datetime import timedelta

import pytest

from energyhub.bootstrap import Container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment
from energyhub.domain.clock import FakeClock
from energyhub.startup import PortInUse, check_port_free, database_label


async def test_accounts_are_listed_with_their_live_keys(
    container: Container, clock: FakeClock
) -> None:
    accounts = container.services.accounts
    first = await accounts.create_account("Acme")
    clock.advance(1)
    second = await accounts.create_account("Bolt")
    await accounts.create_key(first.id, Environment.SANDBOX)
    await accounts.create_key(first.id, Environment.LIVE)
    revoked = await accounts.create_key(first.id, Environment.SANDBOX)
    await accounts.revoke_key(revoked.api_key.id)
    await accounts.create_key(second.id, Environment.SANDBOX, clock.now() + timedelta(hours=1))
    listed = await accounts.list_accounts()
    mine = [(a.name, keys) for a, keys in listed if a.id in (first.id, second.id)]
    assert mine == [("Acme", 2), ("Bolt", 1)]
    clock.advance(timedelta(hours=2))  # the second account's key has expired
    listed = await accounts.list_accounts()
    assert [keys for a, keys in listed if a.id == second.id] == [0]


def test_the_database_is_named_without_its_password() -> None:
    postgres = Settings(database_url="postgresql+asyncpg://ops:s3cret@db.internal:5432/energy")
    assert database_label(postgres) == (
        "PostgreSQL postgresql+asyncpg://ops:***@db.internal:5432/energy"
    )
    sqlite = Settings(database_url="sqlite+aiosqlite:///./energyhub.db")
    assert database_label(sqlite).startswith("SQLite file /")
    assert database_label(sqlite).endswith("/energyhub.db")


def test_a_taken_port_is_found_and_a_free_one_passes() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(PortInUse, match=f"Port {port} on 127.0.0.1 is already in use"):
            check_port_free("127.0.0.1", port)
    check_port_free("127.0.0.1", port)  # closed again: free
