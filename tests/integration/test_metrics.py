"""GET /metrics of a real server: every metric an operator relies on, by name and labels,
driven by real traffic (device reads on the gateway's fast path and through FastAPI, an
immediate and a scheduled push, a webhook to a receiver on 127.0.0.1, an OCPP 1.6 charger
connecting), and the bearer-token rule."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from aiohttp import web
from prometheus_client.parser import text_string_to_metric_families

from energyhub.domain.accounts import Environment
from tests.integration.ocpp_support import WAIT, Service, charger, running_service
from tests.support import Caller, local_receiver

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


async def scrape(service: Service, **headers: str) -> Samples:
    response = await service.client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


async def until(service: Service, check: Callable[[Samples], bool]) -> Samples:
    async with asyncio.timeout(WAIT):
        while True:
            samples = await scrape(service)
            if check(samples):
                return samples
            await asyncio.sleep(0.05)


async def sandbox_caller(service: Service) -> Caller:
    accounts = service.container.services.accounts
    account = await accounts.create_account("metrics")
    created = await accounts.create_key(account.id, Environment.SANDBOX)
    return Caller(account.id, created.key, created.api_key.id)


def push(command: str, **extra: str) -> dict[str, object]:
    return {"action": {"command": command, "parameters": {}}, **extra}


async def test_metrics_carry_every_name_and_label_from_real_traffic(database_url: str) -> None:
    received = asyncio.Event()

    async def hook(_request: web.Request) -> web.Response:
        received.set()
        return web.Response(status=204)

    async with (
        local_receiver(hook) as url,
        running_service(
            database_url,
            sandbox_completion_delay_s=0,
            sandbox_push_event_delay_s=0,
            webhook_retry_schedule_s=(1, 2),
        ) as service,
    ):
        client, caller = service.client, await sandbox_caller(service)
        made = await client.post(
            "/webhooks/endpoints", json={"url": url}, headers=caller.headers
        )  # fmt: skip
        assert made.status_code == 201, made.text
        created = await client.post(
            "/sandbox/devices",
            json={"type": "battery", "userId": "u", "timezone": "UTC"},
            headers=caller.headers,
        )
        assert created.status_code == 201, created.text
        device = created.json()["data"]["id"]
        for _ in range(2):  # the first fills the read cache, the second is served from it
            assert (await client.get(f"/battery/{device}", headers=caller.headers)).is_success
        assert (await client.get(f"/battery/{device}")).status_code == 401
        assert (await client.get("/battery", headers=caller.headers)).status_code == 200
        assert (await client.get("/no/such/path", headers=caller.headers)).status_code == 404
        now = await client.post(f"/battery/{device}", json=push("idle"), headers=caller.headers)
        assert now.status_code in (200, 201, 202), now.text
        soon = (datetime.now(UTC) + timedelta(seconds=2)).strftime("%Y-%m-%dT%H:%M:%S")
        later = await client.post(
            f"/battery/{device}", json=push("charge", start=soon), headers=caller.headers
        )
        assert later.status_code in (200, 201, 202), later.text
        other = await client.post(
            "/sandbox/devices", json={"type": "battery", "userId": "u"}, headers=caller.headers
        )
        refused = {"result": "failed", "errorCode": "DEVICE_OFFLINE"}
        failed = await client.post(
            f"/battery/{other.json()['data']['id']}",
            json={**push("idle"), "sandbox": refused},
            headers=caller.headers,
        )
        assert failed.json()["error"]["code"] == "DEVICE_OFFLINE", failed.text
        await asyncio.wait_for(received.wait(), WAIT)  # a push.completed reached the hook

        samples = await until(
            service,
            lambda s: (
                value(s, "energyhub_dispatch_lateness_seconds_count") >= 1
                and value(s, "energyhub_webhook_attempts_total", outcome="delivered") >= 1
            ),
        )
        route = "/battery/{deviceId}"
        get = {"method": "GET", "route": route}
        assert value(samples, "energyhub_http_requests_total", **get, status="200") == 2
        assert value(samples, "energyhub_http_requests_total", **get, status="401") == 1
        assert (
            value(samples, "energyhub_http_request_duration_seconds_count", **get, status="200")
            == 2
        )
        fixed = {"method": "GET", "route": "/battery", "status": "200"}
        assert value(samples, "energyhub_http_requests_total", **fixed) == 1
        unmatched = {"method": "GET", "route": "unmatched", "status": "404"}
        assert value(samples, "energyhub_http_requests_total", **unmatched) == 1
        pushes = {"method": "POST", "route": route, "status": str(now.status_code)}
        assert value(samples, "energyhub_http_requests_total", **pushes) >= 1
        assert value(samples, "energyhub_actions_total", state="scheduled") >= 1
        assert value(samples, "energyhub_actions_total", state="completed") >= 1
        sandbox = {"driver": "sandbox"}
        assert value(samples, "energyhub_driver_calls_total", **sandbox, outcome="ok") >= 1
        offline = {**sandbox, "outcome": "DEVICE_OFFLINE"}
        assert value(samples, "energyhub_driver_calls_total", **offline) == 1
        assert value(samples, "energyhub_actions_total", state="failed") == 1
        assert value(samples, "energyhub_webhook_lateness_seconds_count") >= 1
        assert value(samples, "energyhub_ocpp_connections") == 0

        live = await service.live_caller()
        await service.commission(live, "CP-METRICS")
        async with charger(service, "CP-METRICS"):
            samples = await until(service, lambda s: value(s, "energyhub_ocpp_connections") == 1)
        samples = await until(service, lambda s: value(s, "energyhub_ocpp_connections") == 0)
        own = {"method": "GET", "route": "/metrics", "status": "200"}
        assert value(samples, "energyhub_http_requests_total", **own) >= 1


async def test_metrics_need_the_bearer_token_when_one_is_set(tmp_path: Path) -> None:
    async with running_service(
        f"sqlite+aiosqlite:///{tmp_path}/m.db", metrics_token="s3cret"
    ) as service:
        assert (await service.client.get("/metrics")).status_code == 401
        wrong = {"authorization": "Bearer nope"}
        assert (await service.client.get("/metrics", headers=wrong)).status_code == 401
        samples = await scrape(service, authorization="Bearer s3cret")
        assert any(name == "energyhub_http_requests_total" for name, _ in samples)
    async with running_service(f"sqlite+aiosqlite:///{tmp_path}/n.db") as service:
        assert (await service.client.get("/metrics")).status_code == 200  # no token: open
