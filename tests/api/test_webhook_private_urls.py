"""ENERGYHUB_PRIVATE_WEBHOOK_URLS through the service: an endpoint whose URL shows an address
it may not reach is refused at creation (422 `WEBHOOK_URL_NOT_PUBLIC`), and the service's own
webhook client applies the setting at delivery, to endpoints created before it changed too.

Receivers listen on 127.0.0.1; the other addresses below are only written in URLs: creation
refuses or stores them without a lookup, and nothing here delivers to them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from energyhub.bootstrap import build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment
from energyhub.domain.clock import FakeClock
from energyhub.domain.events import OutboxEvent
from energyhub.domain.webhooks import EventType
from energyhub.services.ids import prefixed_id
from energyhub.workers.webhook_pump import run_due
from tests.support import Api, Caller, local_receiver, open_api

SANDBOX, LIVE = Environment.SANDBOX, Environment.LIVE


@asynccontextmanager
async def service(tmp_path: Path, clock: FakeClock, **settings: Any) -> AsyncIterator[Api]:
    """The service on a SQLite file of the test's (a second one opens the same database)."""
    built = Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'energyhub.db'}",
        key_cache_ttl_s=0,
        **settings,
    )
    container = await build_container(built, clock)
    try:
        async with open_api(container, clock) as api:
            yield api
    finally:
        await container.aclose()


async def create(api: Api, caller: Caller, url: str) -> tuple[int, dict[str, Any]]:
    response = await api.client.post(
        "/webhooks/endpoints", json={"url": url}, headers=caller.headers
    )
    body: dict[str, Any] = response.json()
    return response.status_code, body["data"] if body["success"] else body["error"]


async def deliver_one(api: Api, caller: Caller, environment: Environment) -> int:
    """Writes one event for the caller's endpoints and runs the service's sender once."""
    now = api.clock.now()
    event = OutboxEvent(
        id=prefixed_id("evt"),
        account_id=caller.account_id,
        environment=environment.value,
        type=EventType.PUSH_COMPLETED,
        payload={"actionId": "act_1"},
        occurred_at=now,
        deliver_after=now,
    )
    async with api.container.uow() as tx:
        await tx.events.add([event])
    return await run_due(api.container.webhook_sender, "test")


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[str, list[str]]]:
    """A receiver on 127.0.0.1: its URL and the `webhook-id` of each request."""
    seen: list[str] = []

    async def hook(request: web.Request) -> web.Response:
        await request.read()
        seen.append(request.headers["webhook-id"])
        return web.Response(status=204)

    async with local_receiver(hook) as url:
        yield url, seen


REFUSED, CREATED = 422, 201
CREATION = [
    ("none", SANDBOX, "http://127.0.0.1:9000/hook", REFUSED),
    ("none", LIVE, "http://localhost:9000/hook", REFUSED),
    ("sandbox", SANDBOX, "http://127.0.0.1:9000/hook", CREATED),
    ("sandbox", SANDBOX, "http://localhost:9000/hook", CREATED),
    ("sandbox", SANDBOX, "http://[::1]:9000/hook", CREATED),
    ("sandbox", SANDBOX, "http://10.0.0.5/hook", REFUSED),
    ("sandbox", SANDBOX, "http://192.168.1.20:8080/hook", REFUSED),
    ("sandbox", SANDBOX, "http://[fd00::1]/hook", REFUSED),
    ("sandbox", SANDBOX, "http://169.254.169.254/latest/meta-data", REFUSED),
    ("sandbox", LIVE, "http://127.0.0.1:9000/hook", REFUSED),
    ("sandbox", LIVE, "http://[::1]:9000/hook", REFUSED),
    ("all", SANDBOX, "http://192.168.1.20:8080/hook", CREATED),
    ("all", LIVE, "http://10.0.0.5/hook", CREATED),
    ("none", LIVE, "https://hooks.example.com/hook", CREATED),  # names: checked at delivery
    ("none", LIVE, "https://8.8.8.8/hook", CREATED),
]


@pytest.mark.parametrize(("policy", "environment", "url", "status"), CREATION)
async def test_creation_refuses_an_address_the_setting_forbids(
    tmp_path: Path,
    clock: FakeClock,
    policy: str,
    environment: Environment,
    url: str,
    status: int,
) -> None:
    async with service(tmp_path, clock, private_webhook_urls=policy) as api:
        caller = await api.caller(environment)
        got, body = await create(api, caller, url)
        listed = (await api.get(caller, "/webhooks/endpoints")).json()["data"]["items"]
    assert got == status, body
    if status == CREATED:
        assert body["url"] == url
        assert [e["url"] for e in listed] == [url]
    else:
        assert body["code"] == "WEBHOOK_URL_NOT_PUBLIC"
        assert "use a public host name or address" in body["message"]
        assert "ENERGYHUB_PRIVATE_WEBHOOK_URLS" in body["message"]
        assert body["details"]["field"] == "body.url"
        allowed = (
            "public_or_loopback" if (policy, environment) == ("sandbox", SANDBOX) else "public"
        )
        assert body["details"]["allowed"] == allowed
        assert listed == []


async def test_default_delivers_sandbox_to_loopback_but_not_live(
    tmp_path: Path, clock: FakeClock, receiver: tuple[str, list[str]]
) -> None:
    """By default a sandbox endpoint reaches a receiver on this machine; a live one cannot
    even be created there."""
    url, seen = receiver
    async with service(tmp_path, clock) as api:
        assert api.container.settings.private_webhook_urls == "sandbox"
        sandbox = await api.caller(SANDBOX)
        assert (await create(api, sandbox, url))[0] == CREATED
        assert await deliver_one(api, sandbox, SANDBOX) == 1
        live = await api.caller(LIVE)
        status, error = await create(api, live, url)
    assert len(seen) == 1
    assert (status, error["code"]) == (REFUSED, "WEBHOOK_URL_NOT_PUBLIC")


async def test_none_refuses_at_delivery_an_endpoint_created_before(
    tmp_path: Path,
    clock: FakeClock,
    receiver: tuple[str, list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Tightening the setting applies to endpoints already stored: the check runs at every
    delivery, not only at creation."""
    url, seen = receiver
    async with service(tmp_path, clock) as api:
        caller = await api.caller(SANDBOX)
        assert (await create(api, caller, url))[0] == CREATED
    monkeypatch.setenv("ENERGYHUB_PRIVATE_WEBHOOK_URLS", "none")
    async with service(tmp_path, clock) as api:
        assert await deliver_one(api, caller, SANDBOX) == 1
        [delivery] = (await api.get(caller, "/webhooks/deliveries")).json()["data"]["items"]
    assert seen == []
    [attempt] = delivery["attempts"]
    assert attempt["error"] == (
        "address 127.0.0.1 is not one this endpoint may reach (only public addresses)"
    )


@pytest.mark.parametrize("value", ["true", "1"])
async def test_deprecated_allow_setting_still_lets_live_endpoints_reach_loopback(
    tmp_path: Path,
    clock: FakeClock,
    receiver: tuple[str, list[str]],
    monkeypatch: pytest.MonkeyPatch,
    value: str,
) -> None:
    """Deployments that set ENERGYHUB_ALLOW_PRIVATE_WEBHOOK_URLS=true keep working: it means
    ENERGYHUB_PRIVATE_WEBHOOK_URLS=all."""
    url, seen = receiver
    monkeypatch.setenv("ENERGYHUB_ALLOW_PRIVATE_WEBHOOK_URLS", value)
    async with service(tmp_path, clock) as api:
        assert api.container.settings.private_webhook_urls == "all"
        live = await api.caller(LIVE)
        assert (await create(api, live, url))[0] == CREATED
        assert await deliver_one(api, live, LIVE) == 1
    assert len(seen) == 1


async def test_openapi_documents_the_refusal(tmp_path: Path, clock: FakeClock) -> None:
    async with service(tmp_path, clock) as api:
        document = (await api.client.get("/openapi.json")).json()
    create_422 = document["paths"]["/webhooks/endpoints"]["post"]["responses"]["422"]
    assert "WEBHOOK_URL_NOT_PUBLIC" in create_422["description"]
    url = document["components"]["schemas"]["EndpointCreate"]["properties"]["url"]
    assert "ENERGYHUB_PRIVATE_WEBHOOK_URLS" in url["description"]
