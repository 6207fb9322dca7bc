"""Key revocations and version moves travel the channel between processes: two account
services on one database (as two processes would hold), each with a long key cache, joined
by an in-memory channel. Without the signal the other keeps answering from its cache until
the cache's time runs out; with it, at once."""

from __future__ import annotations

import pytest

from energyhub.domain.accounts import Environment
from energyhub.domain.errors import ExpiredToken
from energyhub.domain.versions import ApiVersion
from energyhub.ports.signals import ChannelStateHandler, SignalHandler, Topic
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


async def two_processes(api: Api, *, joined: bool) -> tuple[AccountService, AccountService]:
    first = AccountService(api.container.uow, api.clock, LONG_TTL_S)
    second = AccountService(api.container.uow, api.clock, LONG_TTL_S)
    if joined:
        channel = Channel()
        first.follow(channel.member())
        second.follow(channel.member())
    return first, second


@pytest.mark.parametrize("joined", [True, False], ids=["with the channel", "without it"])
async def test_a_key_revoked_in_one_process_is_refused_by_the_other(api: Api, joined: bool) -> None:
    first, second = await two_processes(api, joined=joined)
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
    api: Api,
) -> None:
    first, second = await two_processes(api, joined=True)
    account = await first.create_account("acme")
    created = await first.create_key(account.id, Environment.LIVE)
    assert (await second.authenticate(created.key)).api_version is ApiVersion.V1

    await first.set_key_version(created.api_key.id, ApiVersion.LEGACY)

    assert (await second.authenticate(created.key)).api_version is ApiVersion.LEGACY
