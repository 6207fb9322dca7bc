"""Test events and secret rotation against a real receiver on 127.0.0.1 that checks every
signature with `standardwebhooks`, as a customer's would, on SQLite and PostgreSQL.

`POST /webhooks/endpoints/{id}/test` sends at once; after `rotate-secret` every request
carries `v1,<new> v1,<old>` for 24 hours (each verifies alone), and `expireOldNow` drops
the old one. Signatures are also compared with `Webhook.sign` for the given timestamp, so
the check past 24 hours does not depend on standardwebhooks' 5-minute tolerance."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest
from aiohttp import web
from standardwebhooks import Webhook, WebhookVerificationError

from energyhub.config import Settings
from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.clock import FakeClock
from energyhub.workers.webhook_pump import run_due
from tests.support import Api, Caller, local_receiver


@dataclass
class Request:
    headers: dict[str, str]
    body: bytes

    def signed_by(self, secret: str) -> bool:
        """Whether one of the request's signatures is `secret`'s (no timestamp window)."""
        at = datetime.fromtimestamp(int(self.headers["webhook-timestamp"]), UTC)
        mine = Webhook(secret).sign(self.headers["webhook-id"], at, self.body.decode())
        return mine in self.headers["webhook-signature"].split(" ")

    def verifies_with(self, secret: str) -> bool:
        """What a customer's receiver does: standardwebhooks' own verification."""
        try:
            Webhook(secret).verify(self.body, self.headers)
        except WebhookVerificationError:
            return False
        return True


@dataclass
class Receiver:
    url: str = ""
    requests: list[Request] = field(default_factory=list)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime.now(UTC).replace(microsecond=0))  # near the real time


@pytest.fixture
def settings(database_url: str) -> Settings:
    return Settings(
        database_url=database_url,
        key_cache_ttl_s=0,
        sandbox_push_event_delay_s=180,  # a test event does not wait for these
        sandbox_link_event_delay_s=60,
        webhook_retry_schedule_s=(1, 2),
    )


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    found = Receiver()

    async def hook(request: web.Request) -> web.Response:
        headers = {k.lower(): v for k, v in request.headers.items()}
        found.requests.append(Request(headers, await request.read()))
        return web.Response(status=200, text='{"received": true, "note": "' + "x" * 3000 + '"}')

    async with local_receiver(hook) as url:
        found.url = url
        yield found


async def create(api: Api, caller: Caller, url: str) -> dict[str, Any]:
    made = await api.client.post("/webhooks/endpoints", json={"url": url}, headers=caller.headers)
    assert made.status_code == 201, made.text
    data: dict[str, Any] = made.json()["data"]
    return data


async def send_test(api: Api, caller: Caller, endpoint_id: str) -> dict[str, Any]:
    answer = await api.client.post(
        f"/webhooks/endpoints/{endpoint_id}/test", headers=caller.headers
    )
    assert answer.status_code == 202, answer.text
    data: dict[str, Any] = answer.json()["data"]
    assert await run_due(api.container.webhook_sender, "test") == 1, "due at once"
    return data


async def rotate(api: Api, caller: Caller, endpoint_id: str, **body: Any) -> str:
    answer = await api.client.post(
        f"/webhooks/endpoints/{endpoint_id}/rotate-secret",
        headers=caller.headers,
        json=body or None,  # no body at all when none is given
    )
    assert answer.status_code == 200, answer.text
    secret: str = answer.json()["data"]["secret"]
    return secret


async def test_a_test_event_arrives_at_once_signed_and_is_recorded(
    api: Api, receiver: Receiver
) -> None:
    caller = await api.caller()
    endpoint = await create(api, caller, receiver.url)
    queued = await send_test(api, caller, endpoint["id"])

    assert queued["event"] == "webhook.test"
    assert queued["status"] == "pending"
    assert queued["attempts"] == []
    [request] = receiver.requests
    assert request.verifies_with(endpoint["secret"])
    assert request.headers["x-event-type"] == "webhook.test"
    assert request.headers["webhook-id"] == queued["id"]
    assert request.headers["webhook-signature"].count("v1,") == 1
    assert orjson.loads(request.body) == {
        "endpointId": endpoint["id"],
        "sentAt": queued["payload"]["sentAt"],
        "test": True,
    }
    assert queued["payload"]["sentAt"].endswith("Z")
    got = (await api.get(caller, f"/webhooks/deliveries/{queued['id']}")).json()["data"]
    assert got["status"] == "succeeded"
    assert [a["httpStatus"] for a in got["attempts"]] == [200]
    listed = (await api.get(caller, "/webhooks/deliveries", endpointId=endpoint["id"])).json()
    assert [d["id"] for d in listed["data"]["items"]] == [queued["id"]]
    principal = Principal(caller.account_id, Environment.SANDBOX, caller.key_id)
    stored = await api.container.services.webhooks.get_delivery(principal, queued["id"])
    assert stored.body.encode() == request.body, "the exact bytes that were signed"
    assert stored.response_body is not None
    assert stored.response_body.startswith('{"received": true')
    assert len(stored.response_body) == 2000, "the receiver's answer, cut"


async def test_a_test_event_of_an_unknown_or_foreign_endpoint_is_404(
    api: Api, receiver: Receiver
) -> None:
    caller, stranger = await api.caller(), await api.caller()
    endpoint = await create(api, caller, receiver.url)
    for who, endpoint_id in ((caller, "we_nope"), (stranger, endpoint["id"])):
        answer = await api.client.post(
            f"/webhooks/endpoints/{endpoint_id}/test", headers=who.headers
        )
        assert answer.status_code == 404
        assert answer.json()["error"]["code"] == "ENDPOINT_NOT_FOUND"
    assert receiver.requests == []


async def test_after_a_rotation_both_secrets_sign_for_a_day(
    api: Api, receiver: Receiver, clock: FakeClock
) -> None:
    caller = await api.caller()
    endpoint = await create(api, caller, receiver.url)
    old = endpoint["secret"]
    new = await rotate(api, caller, endpoint["id"])
    assert new != old

    await send_test(api, caller, endpoint["id"])
    clock.advance(timedelta(hours=23, minutes=59))
    await send_test(api, caller, endpoint["id"])
    for request in receiver.requests:
        first, second = request.headers["webhook-signature"].split(" ")
        assert first.startswith("v1,")
        assert second.startswith("v1,")
        assert request.signed_by(new)
        assert request.signed_by(old)
    assert receiver.requests[0].verifies_with(new), "a receiver with the new secret accepts"
    assert receiver.requests[0].verifies_with(old), "and one still on the old secret"

    clock.advance(timedelta(minutes=1))  # 24 hours after the rotation
    await send_test(api, caller, endpoint["id"])
    last = receiver.requests[-1]
    assert last.headers["webhook-signature"].count("v1,") == 1
    assert last.signed_by(new)
    assert not last.signed_by(old)


async def test_expire_old_now_drops_the_old_secret_at_once(api: Api, receiver: Receiver) -> None:
    caller = await api.caller()
    endpoint = await create(api, caller, receiver.url)
    second = await rotate(api, caller, endpoint["id"])
    third = await rotate(api, caller, endpoint["id"], expireOldNow=True)

    await send_test(api, caller, endpoint["id"])
    [request] = receiver.requests
    assert request.headers["webhook-signature"].count("v1,") == 1
    assert request.verifies_with(third)
    assert not request.verifies_with(second)
    assert not request.verifies_with(endpoint["secret"])


async def test_a_retry_after_a_rotation_carries_both_signatures(api: Api, clock: FakeClock) -> None:
    """A delivery made before the rotation and retried after it is signed by both."""
    seen: list[Request] = []
    statuses = [503, 200]

    async def hook(request: web.Request) -> web.Response:
        headers = {k.lower(): v for k, v in request.headers.items()}
        seen.append(Request(headers, await request.read()))
        return web.Response(status=statuses[len(seen) - 1])

    async with local_receiver(hook) as url:
        caller = await api.caller()
        endpoint = await create(api, caller, url)
        await send_test(api, caller, endpoint["id"])
        new = await rotate(api, caller, endpoint["id"])
        clock.advance(1.2)
        assert await run_due(api.container.webhook_sender, "test") == 1
        await asyncio.sleep(0)
    first, retry = seen
    assert first.signed_by(endpoint["secret"])
    assert not first.signed_by(new)
    assert retry.signed_by(new)
    assert retry.signed_by(endpoint["secret"])
    assert retry.headers["webhook-id"] == first.headers["webhook-id"]
