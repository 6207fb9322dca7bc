"""Key revocations and version moves travel the channel between processes: two account
services on one database (as two processes would hold), each with a long key cache, joined
by an in-memory channel. Without the signal the other keeps answering from its cache until
the cache's time runs out; with it, at once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from energyhub.domain.accounts import Environment
from energyhub.domain.errors import ExpiredToken
from energyhub.domain.versions import ApiVersion
from energyhub.ports.signals import ChannelStateHandler, SignalHandler, Topic
from energyhub.ports.storage import UnitOfWork, UnitOfWorkFactory
from energyhub.services.accounts import AccountService
from tests.support import Api

LONG_TTL_S = 3600.0


class Channel:
    """Every signal one member publishes is heard by the others, as PostgreSQL would."""

    def __init__(self) -> None:
        self.members: list[Member] = []

    def member(self) -> Member:
        joined = Member(self)
        self.members.append(joined)
        return joined


class Member:
    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.up = True
        self.pending = False
        self.handlers: dict[Topic, list[SignalHandler]] = {}
        self.published: list[tuple[Topic, str]] = []

    def publish(self, topic: Topic, payload: str) -> None:
        self.published.append((topic, payload))
        for other in self.channel.members:
            if other is not self:
                for handler in other.handlers.get(topic, []):
                    handler(payload)

    async def sent(self) -> None:
        return None

    def subscribe(self, topic: Topic, handler: SignalHandler) -> None:
        self.handlers.setdefault(topic, []).append(handler)

    def on_channel(self, handler: ChannelStateHandler) -> None:
        return None

    def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None


@pytest.fixture
async def made(api: Api) -> AsyncIterator[list[AccountService]]:
    """The account services a test makes: their last-use writes end before the database
    closes (a write left running held a connection past the test)."""
    services: list[AccountService] = []
    yield services
    for service in services:
        await service.usage.flush()


async def two_processes(
    api: Api, made: list[AccountService], *, joined: bool
) -> tuple[AccountService, AccountService]:
    first = AccountService(api.container.uow, api.clock, LONG_TTL_S)
    second = AccountService(api.container.uow, api.clock, LONG_TTL_S)
    made += [first, second]
    if joined:
        channel = Channel()
        first.follow(channel.member())
        second.follow(channel.member())
    return first, second


@pytest.mark.parametrize("joined", [True, False], ids=["with the channel", "without it"])
async def test_a_key_revoked_in_one_process_is_refused_by_the_other(
    api: Api, made: list[AccountService], joined: bool
) -> None:
    first, second = await two_processes(api, made, joined=joined)
    account = await first.create_account("acme")
    created = await first.create_key(account.id, Environment.SANDBOX)
    assert (await second.authenticate(created.key)).account_id == account.id  # now cached

    assert await first.revoke_key(created.api_key.id)

    if joined:
        with pytest.raises(ExpiredToken):
            await second.authenticate(created.key)
    else:  # the cache answers until its time runs out: what the signal is for
        assert (await second.authenticate(created.key)).account_id == account.id


async def test_a_key_moved_to_another_version_answers_in_it_in_the_other_process(
    api: Api, made: list[AccountService]
) -> None:
    first, second = await two_processes(api, made, joined=True)
    account = await first.create_account("acme")
    created = await first.create_key(account.id, Environment.LIVE)
    assert (await second.authenticate(created.key)).api_version is ApiVersion.V1

    await first.set_key_version(created.api_key.id, ApiVersion.LEGACY)

    assert (await second.authenticate(created.key)).api_version is ApiVersion.LEGACY


class HeldLookup:
    """A unit of work whose first key lookup reads the database, ends its transaction,
    then waits to be let go: a request's lookup still under way when the key is revoked."""

    def __init__(self, uow: UnitOfWorkFactory) -> None:
        self._uow = uow
        self.read = asyncio.Event()
        self.go = asyncio.Event()

    def __call__(self) -> UnitOfWork:
        return _HeldTransaction(self._uow(), self)


class _HeldTransaction:
    def __init__(self, tx: UnitOfWork, held: HeldLookup) -> None:
        self._tx = tx
        self._held = held
        self.holds = False

    async def __aenter__(self) -> _HeldTransaction:
        await self._tx.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._tx.__aexit__(*exc)
        if self.holds:
            self._held.read.set()
            await self._held.go.wait()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tx, name)

    @property
    def accounts(self) -> Any:
        return _HeldAccounts(self._tx.accounts, self)


class _HeldAccounts:
    def __init__(self, accounts: Any, tx: _HeldTransaction) -> None:
        self._accounts = accounts
        self._tx = tx

    def __getattr__(self, name: str) -> Any:
        return getattr(self._accounts, name)

    async def key_by_hash(self, digest: str) -> Any:
        self._tx.holds = not self._tx._held.read.is_set()  # the first lookup only
        return await self._accounts.key_by_hash(digest)


@pytest.mark.parametrize("after", ["a new request", "a request joining the held lookup"])
async def test_a_lookup_under_way_at_a_revocation_does_not_keep_the_key_alive(
    api: Api, made: list[AccountService], after: str
) -> None:
    held = HeldLookup(api.container.uow)
    accounts = AccountService(held, api.clock, LONG_TTL_S)
    made.append(accounts)
    account = await accounts.create_account("acme")
    created = await accounts.create_key(account.id, Environment.SANDBOX)
    before = asyncio.ensure_future(accounts.authenticate(created.key))
    await held.read.wait()  # it has read the key as it was before the revocation

    assert await accounts.revoke_key(created.api_key.id)
    if after == "a new request":
        held.go.set()
        assert (await before).account_id == account.id  # it was sent before: it may pass
        with pytest.raises(ExpiredToken):  # but what it read is not cached
            await accounts.authenticate(created.key)
    else:
        joining = asyncio.ensure_future(accounts.authenticate(created.key))
        await asyncio.sleep(0)  # it would join the held lookup here
        held.go.set()
        assert (await before).account_id == account.id
        with pytest.raises(ExpiredToken):
            await joining
