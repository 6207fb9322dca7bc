"""Webhook endpoints and deliveries over HTTP: spec 6; CONTRACT 9. Attempts here go to a fake
client (the real receiver is in tests/integration/test_webhook_delivery.py)."""

from __future__ import annotations

import asyncio
import logging
import random
from datetime import timedelta
from typing import Any

import pytest
from cryptography.fernet import Fernet
from hypothesis import given, settings
from hypothesis.strategies import from_regex
from sqlalchemy import select

from energyhub.adapters.secrets import CredentialCipher, CredentialsUnreadable
from energyhub.api.webhook_schemas import URL_PATTERN
from energyhub.bootstrap import secret_keys
from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.clock import isoformat_utc
from energyhub.domain.events import OutboxEvent
from energyhub.domain.webhooks import EventType, validate_endpoint_url
from energyhub.persistence.tables import webhook_endpoints
from energyhub.ports.webhooks import AttemptOutcome, WebhookRequest
from energyhub.services.ids import prefixed_id
from energyhub.services.webhook_sender import WebhookSender
from energyhub.services.webhooks import WebhookService
from energyhub.workers.webhook_pump import run_due
from tests.support import Api, Caller

ENDPOINT_KEYS = {"id", "url", "description", "events", "enabled", "createdAt"}
DELIVERY_KEYS = {
    "id",
    "endpointId",
    "event",
    "status",
    "attempts",
    "nextAttemptAt",
    "createdAt",
    "payload",
}
URL = "https://hooks.example.com/energyhub"
PUSH_PAYLOAD = {
    "actionId": "act_1",
    "deviceId": "dev_1",
    "deviceType": "battery",
    "command": "charge",
    "parameters": {},
    "result": {"success": True},
    "completedAt": "2026-11-20T12:00:00.000Z",
}


class FakeClient:
    """Answers each attempt with the next status of `statuses` (then the last one)."""

    def __init__(self, api: Api, *statuses: int) -> None:
        self.api = api
        self.statuses = list(statuses) or [204]
        self.requests: list[WebhookRequest] = []

    async def send(self, request: WebhookRequest) -> AttemptOutcome:
        self.requests.append(request)
        status = self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0]
        error = None if 200 <= status < 300 else f"HTTP {status}"
        return AttemptOutcome(self.api.clock.now(), status, 3, error)


def sender(api: Api, client: FakeClient, schedule: tuple[float, ...] = (5, 300)) -> WebhookSender:
    return WebhookSender(
        api.container.uow,
        client,
        api.clock,
        cipher=api.container.cipher,
        retry_schedule=schedule,
        rng=random.Random(1),
    )


async def create(api: Api, caller: Caller, **body: Any) -> dict[str, Any]:
    response = await api.client.post(
        "/webhooks/endpoints", json={"url": URL, **body}, headers=caller.headers
    )
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


async def add_event(
    api: Api,
    caller: Caller,
    event: EventType = EventType.PUSH_COMPLETED,
    payload: dict[str, Any] | None = None,
    environment: str = "sandbox",
) -> str:
    now = api.clock.now()
    made = OutboxEvent(
        id=prefixed_id("evt"),
        account_id=caller.account_id,
        environment=environment,
        type=event,
        payload=payload or PUSH_PAYLOAD,
        occurred_at=now,
        deliver_after=now,
    )
    async with api.container.uow() as tx:
        await tx.events.add([made])
    return made.id


async def error_of(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["success"] is False
    error: dict[str, Any] = body["error"]
    return error


# --- endpoints -----------------------------------------------------------------------------
async def test_create_shows_the_secret_once_and_get_list_do_not(api: Api) -> None:
    caller = await api.caller()
    created = await create(
        api, caller, description="prod receiver", events=["push.failed", "push.completed"]
    )
    assert set(created) == ENDPOINT_KEYS | {"secret"}
    assert created["secret"].startswith("whsec_")
    assert created["id"].startswith("we_")
    assert (created["url"], created["description"], created["enabled"]) == (
        URL,
        "prod receiver",
        True,
    )
    assert created["events"] == ["push.failed", "push.completed"]
    assert created["createdAt"] == "2026-11-20T12:00:00.000Z"

    got = (await api.get(caller, f"/webhooks/endpoints/{created['id']}")).json()["data"]
    assert set(got) == ENDPOINT_KEYS
    assert got == {k: v for k, v in created.items() if k != "secret"}
    listed = (await api.get(caller, "/webhooks/endpoints")).json()["data"]
    assert listed == {"items": [got]}


async def test_no_filter_means_every_event_and_is_null(api: Api) -> None:
    caller = await api.caller()
    created = await create(api, caller)
    assert created["events"] is None
    assert created["description"] is None


async def test_endpoints_belong_to_one_account_and_environment(api: Api) -> None:
    caller = await api.caller()
    created = await create(api, caller)
    live = await api.key_for(caller.account_id, Environment.LIVE)
    other = await api.caller()
    for who in (live, other):
        response = await api.get(who, f"/webhooks/endpoints/{created['id']}")
        assert (await error_of(response, 404))["code"] == "ENDPOINT_NOT_FOUND"
        assert (await api.get(who, "/webhooks/endpoints")).json()["data"] == {"items": []}
        deleted = await api.client.delete(
            f"/webhooks/endpoints/{created['id']}", headers=who.headers
        )
        assert (await error_of(deleted, 404))["code"] == "ENDPOINT_NOT_FOUND"
    assert (await api.get(caller, f"/webhooks/endpoints/{created['id']}")).status_code == 200


async def test_several_endpoints_per_environment_listed_oldest_first(api: Api) -> None:
    caller = await api.caller()
    first = await create(api, caller)
    second = await create(api, caller, url="https://other.example.com/hook")
    listed = (await api.get(caller, "/webhooks/endpoints")).json()["data"]["items"]
    assert [e["id"] for e in listed] == [first["id"], second["id"]]
    assert first["secret"] != second["secret"]


async def test_endpoints_per_environment_are_capped_with_a_422(api: Api) -> None:
    caller = await api.caller()
    made = [await create(api, caller, url=f"{URL}/{n}") for n in range(20)]
    refused = await api.client.post(
        "/webhooks/endpoints", json={"url": f"{URL}/20"}, headers=caller.headers
    )
    error = await error_of(refused, 422)
    assert error["code"] == "ENDPOINT_LIMIT_REACHED"
    assert "delete one" in error["message"]
    assert error["details"] == {"limit": 20}
    listed = (await api.get(caller, "/webhooks/endpoints")).json()["data"]["items"]
    assert len(listed) == 20, "nothing was added"

    live = await api.key_for(caller.account_id, Environment.LIVE)
    await create(api, live)  # each environment has its own cap
    deleted = await api.client.delete(
        f"/webhooks/endpoints/{made[0]['id']}", headers=caller.headers
    )
    assert deleted.status_code == 200
    await create(api, caller, url=f"{URL}/again")  # a deleted endpoint no longer counts
    document = (await api.client.get("/openapi.json")).json()
    responses = document["paths"]["/webhooks/endpoints"]["post"]["responses"]
    assert "ENDPOINT_LIMIT_REACHED" in responses["422"]["description"]
    assert api.container.settings.webhook_max_endpoints == 20, "the documented default"


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("ftp://example.com/hook", "body.url"),
        ("https://user:pw@example.com/hook", "body.url"),
        ("https://exa mple.com/", "body.url"),
        ("https://127.1/", "body.url"),
        ("not a url", "body.url"),
        ("", "body.url"),
    ],
)
async def test_bad_url_is_invalid_request(api: Api, url: str, path: str) -> None:
    caller = await api.caller()
    response = await api.client.post(
        "/webhooks/endpoints", json={"url": url}, headers=caller.headers
    )
    error = await error_of(response, 400)
    assert error["code"] == "INVALID_REQUEST"
    assert [e["path"] for e in error["details"]["errors"]] == [path]
    listed = await api.get(caller, "/webhooks/endpoints")
    assert listed.status_code == 200, listed.text
    assert listed.json()["data"]["items"] == []


@settings(max_examples=300, deadline=None, derandomize=True)
@given(from_regex(URL_PATTERN, fullmatch=True))
def test_every_url_the_schema_allows_is_accepted(url: str) -> None:
    """The OpenAPI pattern is no wider than the check behind it (schemathesis relies on it)."""
    assert validate_endpoint_url(url) == url


@pytest.mark.parametrize(
    "body",
    [
        {"url": URL, "events": ["push.started"]},
        {"url": URL, "events": []},
        {"url": URL, "events": "push.completed"},
        {"url": URL, "secret": "whsec_mine"},
        {"description": "no url"},
    ],
)
async def test_bad_body_is_invalid_request(api: Api, body: dict[str, Any]) -> None:
    caller = await api.caller()
    response = await api.client.post("/webhooks/endpoints", json=body, headers=caller.headers)
    error = await error_of(response, 400)
    assert error["code"] == "INVALID_REQUEST"
    assert error["details"]["errors"][0]["path"].startswith("body")


async def test_delete_hides_the_endpoint(api: Api) -> None:
    caller = await api.caller()
    created = await create(api, caller)
    response = await api.client.delete(
        f"/webhooks/endpoints/{created['id']}", headers=caller.headers
    )
    assert response.status_code == 200, response.text
    assert response.json()["data"]["id"] == created["id"]
    assert "secret" not in response.json()["data"]
    gone = await api.get(caller, f"/webhooks/endpoints/{created['id']}")
    assert (await error_of(gone, 404))["code"] == "ENDPOINT_NOT_FOUND"
    assert (await api.get(caller, "/webhooks/endpoints")).json()["data"]["items"] == []
    again = await api.client.delete(f"/webhooks/endpoints/{created['id']}", headers=caller.headers)
    assert (await error_of(again, 404))["code"] == "ENDPOINT_NOT_FOUND"
    rotate = await api.client.post(
        f"/webhooks/endpoints/{created['id']}/rotate-secret", headers=caller.headers
    )
    assert (await error_of(rotate, 404))["code"] == "ENDPOINT_NOT_FOUND"


async def test_rotate_secret_signs_later_attempts_with_the_new_one(api: Api) -> None:
    caller = await api.caller()
    created = await create(api, caller)
    response = await api.client.post(
        f"/webhooks/endpoints/{created['id']}/rotate-secret", headers=caller.headers
    )
    assert response.status_code == 200, response.text
    rotated = response.json()["data"]
    assert set(rotated) == ENDPOINT_KEYS | {"secret"}
    assert rotated["secret"].startswith("whsec_")
    assert rotated["secret"] != created["secret"]
    client = FakeClient(api)
    await add_event(api, caller)
    await run_due(sender(api, client), "test")
    assert [r.secret for r in client.requests] == [rotated["secret"]]


async def stored_secret(api: Api, endpoint_id: str) -> str:
    async with api.container.engine.connect() as connection:
        row = await connection.execute(
            select(webhook_endpoints.c.secret).where(webhook_endpoints.c.id == endpoint_id)
        )
        stored: str = row.scalar_one()
    return stored


async def test_signing_secrets_are_stored_encrypted(api: Api) -> None:
    caller = await api.caller()
    created = await create(api, caller)
    stored = await stored_secret(api, created["id"])
    assert created["secret"] not in stored
    assert api.container.cipher.open_text(stored) == created["secret"]
    rotated = await api.client.post(
        f"/webhooks/endpoints/{created['id']}/rotate-secret", headers=caller.headers
    )
    new_secret = rotated.json()["data"]["secret"]
    stored_again = await stored_secret(api, created["id"])
    assert new_secret not in stored_again
    assert api.container.cipher.open_text(stored_again) == new_secret


async def test_secrets_in_the_clear_still_sign_and_are_sealed_with_a_new_key(api: Api) -> None:
    """A secret stored before encryption keeps working; `reseal_secrets` (`energyhub secrets
    rotate`) encrypts it, and re-encrypts the others with a new first key, after which the
    old key can go."""
    caller = await api.caller()
    legacy = await create(api, caller)
    sealed = await create(api, caller, url="https://hooks.example.com/other")
    async with api.container.uow() as tx:
        await tx.webhooks.set_secret(legacy["id"], legacy["secret"])  # as stored before
    client = FakeClient(api)
    await add_event(api, caller)
    await run_due(sender(api, client), "test")
    assert sorted(r.secret for r in client.requests) == sorted([legacy["secret"], sealed["secret"]])
    old_key = settings_key(api)
    new_key = Fernet.generate_key().decode()
    both = WebhookService(api.container.uow, api.clock, CredentialCipher([new_key, old_key]))
    assert await both.reseal_secrets(batch=1) == 2
    only_new = CredentialCipher([new_key])
    for endpoint, stored in [(e, await stored_secret(api, e["id"])) for e in (legacy, sealed)]:
        assert not stored.startswith("whsec_")
        assert only_new.open_text(stored) == endpoint["secret"]
    principal = Principal(caller.account_id, Environment.SANDBOX, caller.key_id)
    after = WebhookService(api.container.uow, api.clock, only_new)
    assert (await after.get_endpoint(principal, legacy["id"])).secret == legacy["secret"]
    with pytest.raises(CredentialsUnreadable):
        CredentialCipher([Fernet.generate_key().decode()]).open_text(stored)


def settings_key(api: Api) -> str:
    """The container's (generated) first secret key."""
    return secret_keys(api.container.settings)[0]


async def test_unknown_ids_are_404_with_their_codes(api: Api) -> None:
    caller = await api.caller()
    for method, path, code in [
        ("GET", "/webhooks/endpoints/we_nope", "ENDPOINT_NOT_FOUND"),
        ("DELETE", "/webhooks/endpoints/we_nope", "ENDPOINT_NOT_FOUND"),
        ("POST", "/webhooks/endpoints/we_nope/rotate-secret", "ENDPOINT_NOT_FOUND"),
        ("GET", "/webhooks/deliveries/msg_nope", "DELIVERY_NOT_FOUND"),
        ("POST", "/webhooks/deliveries/msg_nope/resend", "DELIVERY_NOT_FOUND"),
    ]:
        response = await api.client.request(method, path, headers=caller.headers)
        assert (await error_of(response, 404))["code"] == code, path


async def test_routes_need_a_key(api: Api) -> None:
    response = await api.client.get("/webhooks/endpoints")
    assert (await error_of(response, 401))["code"] == "UNAUTHORIZED"


async def test_openapi_documents_the_not_found_codes(api: Api) -> None:
    document = (await api.client.get("/openapi.json")).json()
    paths = document["paths"]
    endpoint_404 = paths["/webhooks/endpoints/{endpointId}"]["get"]["responses"]["404"]
    assert "ENDPOINT_NOT_FOUND" in endpoint_404["description"]
    delivery_404 = paths["/webhooks/deliveries/{deliveryId}"]["get"]["responses"]["404"]
    assert "DELIVERY_NOT_FOUND" in delivery_404["description"]
    assert "202" in paths["/webhooks/deliveries/{deliveryId}/resend"]["post"]["responses"]
    assert "201" in paths["/webhooks/endpoints"]["post"]["responses"]


# --- deliveries ----------------------------------------------------------------------------
async def test_delivery_record_after_a_failed_then_a_good_attempt(api: Api) -> None:
    caller = await api.caller()
    endpoint = await create(api, caller)
    client = FakeClient(api, 503, 200)
    event_id = await add_event(api, caller)
    webhooks = sender(api, client)
    assert await run_due(webhooks, "test") == 1

    listed = (await api.get(caller, "/webhooks/deliveries")).json()["data"]
    assert listed["pagination"] == {"limit": 10, "offset": 0, "total": 1, "hasMore": False}
    delivery = listed["items"][0]
    assert set(delivery) == DELIVERY_KEYS
    assert delivery["id"].startswith("msg_")
    assert delivery["endpointId"] == endpoint["id"]
    assert delivery["event"] == "push.completed"
    assert delivery["payload"] == PUSH_PAYLOAD
    assert delivery["status"] == "pending"
    assert delivery["attempts"] == [
        {"at": "2026-11-20T12:00:00.000Z", "httpStatus": 503, "durationMs": 3, "error": "HTTP 503"}
    ]
    retry_at = delivery["nextAttemptAt"]
    assert "2026-11-20T12:00:04.5" <= retry_at <= "2026-11-20T12:00:05.5"  # 5 s +-10 %

    api.clock.advance(4)
    assert await run_due(webhooks, "test") == 0, "not due before its retry time"
    api.clock.advance(2)
    assert await run_due(webhooks, "test") == 1
    got = (await api.get(caller, f"/webhooks/deliveries/{delivery['id']}")).json()["data"]
    assert got["status"] == "succeeded"
    assert got["nextAttemptAt"] is None
    assert [a["httpStatus"] for a in got["attempts"]] == [503, 200]
    assert got["attempts"][1]["error"] is None
    assert [r.delivery_id for r in client.requests] == [delivery["id"]] * 2
    assert client.requests[0].body == client.requests[1].body
    assert {r.event_type for r in client.requests} == {"push.completed"}
    async with api.container.uow() as tx:
        assert await tx.webhooks.due_events(api.clock.now(), 10) == []
    assert event_id


async def test_schedule_exhausted_fails_then_resend_is_one_attempt(api: Api) -> None:
    caller = await api.caller()
    await create(api, caller)
    client = FakeClient(api, 500)
    await add_event(api, caller)
    webhooks = sender(api, client, schedule=(5, 300))
    await run_due(webhooks, "test")
    api.clock.advance(6)
    await run_due(webhooks, "test")
    api.clock.advance(331)
    await run_due(webhooks, "test")
    delivery = (await api.get(caller, "/webhooks/deliveries")).json()["data"]["items"][0]
    assert delivery["status"] == "failed"
    assert delivery["nextAttemptAt"] is None
    assert len(delivery["attempts"]) == 3
    api.clock.advance(100_000)
    assert await run_due(webhooks, "test") == 0

    response = await api.client.post(
        f"/webhooks/deliveries/{delivery['id']}/resend", headers=caller.headers
    )
    assert response.status_code == 202, response.text
    queued = response.json()["data"]
    assert queued["status"] == "failed"
    assert queued["nextAttemptAt"] == isoformat_utc(api.clock.now())
    assert await run_due(webhooks, "test") == 1
    after = (await api.get(caller, f"/webhooks/deliveries/{delivery['id']}")).json()["data"]
    assert (after["status"], after["nextAttemptAt"], len(after["attempts"])) == ("failed", None, 4)
    api.clock.advance(100_000)
    assert await run_due(webhooks, "test") == 0, "no retry after a failed resend"

    client.statuses = [204]
    await api.client.post(f"/webhooks/deliveries/{delivery['id']}/resend", headers=caller.headers)
    await run_due(webhooks, "test")
    final = (await api.get(caller, f"/webhooks/deliveries/{delivery['id']}")).json()["data"]
    assert (final["status"], len(final["attempts"])) == ("succeeded", 5)
    assert {r.delivery_id for r in client.requests} == {delivery["id"]}


async def test_resend_of_a_pending_delivery_brings_its_retry_forward(api: Api) -> None:
    caller = await api.caller()
    await create(api, caller)
    client = FakeClient(api, 500, 500, 204)
    await add_event(api, caller)
    webhooks = sender(api, client, schedule=(300, 300))
    await run_due(webhooks, "test")
    delivery = (await api.get(caller, "/webhooks/deliveries")).json()["data"]["items"][0]
    await api.client.post(f"/webhooks/deliveries/{delivery['id']}/resend", headers=caller.headers)
    assert await run_due(webhooks, "test") == 1
    got = (await api.get(caller, f"/webhooks/deliveries/{delivery['id']}")).json()["data"]
    assert got["status"] == "pending", "its schedule goes on"
    assert len(got["attempts"]) == 2
    api.clock.advance(400)
    await run_due(webhooks, "test")
    got = (await api.get(caller, f"/webhooks/deliveries/{delivery['id']}")).json()["data"]
    assert (got["status"], len(got["attempts"])) == ("succeeded", 3)


async def test_list_filters_newest_first_and_pages(api: Api) -> None:
    caller = await api.caller()
    first = await create(api, caller)
    second = await create(api, caller, url="https://other.example.com/hook")
    client = FakeClient(api, 204, 500, 204, 500)
    for _ in range(2):
        await add_event(api, caller)
        await run_due(sender(api, client), "test")
        api.clock.advance(1)

    def ids(response: Any) -> list[str]:
        return [d["id"] for d in response.json()["data"]["items"]]

    everything = await api.get(caller, "/webhooks/deliveries")
    assert len(ids(everything)) == 4
    created = [d["createdAt"] for d in everything.json()["data"]["items"]]
    assert created == sorted(created, reverse=True)
    mine = await api.get(caller, "/webhooks/deliveries", endpointId=first["id"])
    assert {d["endpointId"] for d in mine.json()["data"]["items"]} == {first["id"]}
    assert len(ids(mine)) == 2
    # attempts start in fan-out order: the first endpoint gets the 204s, the second the 500s
    pending = await api.get(caller, "/webhooks/deliveries", status="pending")
    assert {d["endpointId"] for d in pending.json()["data"]["items"]} == {second["id"]}
    assert len(ids(pending)) == 2
    succeeded = await api.get(caller, "/webhooks/deliveries", status="succeeded")
    assert set(ids(succeeded)) == set(ids(mine))
    both = await api.get(caller, "/webhooks/deliveries", endpointId=second["id"], status="pending")
    assert ids(both) == ids(pending)
    none = await api.get(caller, "/webhooks/deliveries", endpointId=first["id"], status="failed")
    assert ids(none) == []
    page = await api.get(caller, "/webhooks/deliveries", limit=3, offset=1)
    assert ids(page) == ids(everything)[1:4]
    assert page.json()["data"]["pagination"] == {
        "limit": 3,
        "offset": 1,
        "total": 4,
        "hasMore": False,
    }
    bad = await api.get(caller, "/webhooks/deliveries", status="lost")
    assert (await error_of(bad, 400))["code"] == "INVALID_REQUEST"
    typo = await api.get(caller, "/webhooks/deliveries", endpoint="x")
    assert (await error_of(typo, 400))["code"] == "INVALID_REQUEST"
    other = await api.caller()
    assert ids(await api.get(other, "/webhooks/deliveries")) == []
    hidden = await api.get(other, f"/webhooks/deliveries/{ids(everything)[0]}")
    assert (await error_of(hidden, 404))["code"] == "DELIVERY_NOT_FOUND"


async def test_deleting_an_endpoint_ends_its_retries_and_refuses_resend(api: Api) -> None:
    caller = await api.caller()
    endpoint = await create(api, caller)
    client = FakeClient(api, 500)
    await add_event(api, caller)
    webhooks = sender(api, client)
    await run_due(webhooks, "test")
    await api.client.delete(f"/webhooks/endpoints/{endpoint['id']}", headers=caller.headers)
    api.clock.advance(1000)
    await add_event(api, caller)
    assert await run_due(webhooks, "test") == 0
    assert len(client.requests) == 1
    listed = await api.get(caller, "/webhooks/deliveries", endpointId=endpoint["id"])
    (delivery,) = listed.json()["data"]["items"]
    assert (delivery["status"], delivery["nextAttemptAt"]) == ("failed", None)
    resend = await api.client.post(
        f"/webhooks/deliveries/{delivery['id']}/resend", headers=caller.headers
    )
    assert (await error_of(resend, 404))["code"] == "ENDPOINT_NOT_FOUND"


async def test_no_request_on_creation_and_events_before_it_are_not_lost(api: Api) -> None:
    caller = await api.caller()
    client = FakeClient(api)
    webhooks = sender(api, client)
    await create(api, caller)
    assert await run_due(webhooks, "test") == 0
    assert client.requests == []


async def test_delayed_events_wait_for_their_time(api: Api) -> None:
    caller = await api.caller()
    await create(api, caller)
    client = FakeClient(api)
    now = api.clock.now()
    async with api.container.uow() as tx:
        await tx.events.add(
            [
                OutboxEvent(
                    prefixed_id("evt"),
                    caller.account_id,
                    "sandbox",
                    EventType.PUSH_COMPLETED,
                    PUSH_PAYLOAD,
                    now,
                    now + timedelta(seconds=180),
                )
            ]
        )
    webhooks = sender(api, client)
    assert await run_due(webhooks, "test") == 0
    assert await webhooks.next_due_at() == now + timedelta(seconds=180)
    api.clock.advance(180)
    assert await run_due(webhooks, "test") == 1
    assert await webhooks.next_due_at() is None


async def test_secrets_never_reach_the_logs(api: Api, caplog: pytest.LogCaptureFixture) -> None:
    # ours at DEBUG; a driver's DEBUG output (aiosqlite logs every statement's parameters)
    # is never on in production
    caplog.set_level(logging.INFO)
    caplog.set_level(logging.DEBUG, logger="energyhub")
    caller = await api.caller()
    created = await create(api, caller)
    rotated = (
        await api.client.post(
            f"/webhooks/endpoints/{created['id']}/rotate-secret", headers=caller.headers
        )
    ).json()["data"]
    await add_event(api, caller)
    await run_due(sender(api, FakeClient(api, 500)), "test")
    text = "\n".join(f"{r.getMessage()} {r.args!r} {r.exc_text or ''}" for r in caplog.records)
    assert caplog.records, "the use cases log something"
    for secret in (created["secret"], rotated["secret"]):
        assert secret not in text
        assert secret.removeprefix("whsec_") not in text


async def test_attempts_run_side_by_side_up_to_the_bound(api: Api) -> None:
    caller = await api.caller()
    await create(api, caller)

    class GatedClient(FakeClient):
        def __init__(self) -> None:
            super().__init__(api)
            self.running = 0
            self.most = 0
            self.gate = asyncio.Event()

        async def send(self, request: WebhookRequest) -> AttemptOutcome:
            self.running += 1
            self.most = max(self.most, self.running)
            if self.most == 3:
                self.gate.set()  # as many as allowed are under way: let them all finish
            await self.gate.wait()
            self.running -= 1
            return await super().send(request)

    client = GatedClient()
    for n in range(10):
        await add_event(api, caller, payload={**PUSH_PAYLOAD, "actionId": f"act_{n}"})
    webhooks = WebhookSender(
        api.container.uow, client, api.clock, cipher=api.container.cipher, concurrency=3, batch=4
    )
    assert await asyncio.wait_for(run_due(webhooks, "test"), 10) == 10
    assert client.most == 3
    assert len({r.delivery_id for r in client.requests}) == 10
