"""The dashboard's webhook actions over HTTP, on SQLite and PostgreSQL: send a test event,
rotate with or without the day's overlap, and a delivery page that shows the body exactly
as signed and what the receiver answered."""

from __future__ import annotations

import html
import re
from collections.abc import AsyncIterator

import httpx
import pytest
from aiohttp import web

from energyhub.bootstrap import build_app
from energyhub.domain.accounts import Environment, Principal
from energyhub.workers.webhook_pump import run_due
from tests.api.test_dashboard import add_member, csrf_of, notice_of, redirected, sign_in
from tests.support import Api, Caller, local_receiver

SECRET = re.compile(r'id="signing-secret">(whsec_[^<]+)<')


@pytest.fixture
async def signed_in(api: Api) -> AsyncIterator[tuple[Caller, httpx.AsyncClient]]:
    caller = await api.caller()
    email = await add_member(api, caller)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=build_app(api.container)),
        base_url="http://testserver",
    ) as browser:
        assert (await sign_in(browser, email)).status_code == 303
        yield caller, browser


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[str, list[bytes]]]:
    """A receiver that answers 418 with a page longer than the dashboard keeps."""
    bodies: list[bytes] = []

    async def hook(request: web.Request) -> web.Response:
        bodies.append(await request.read())
        return web.Response(status=418, text="<p>not today & " + "z" * 2500 + "</p>")

    async with local_receiver(hook) as url:
        yield url, bodies


async def test_a_test_event_from_the_dashboard_and_its_delivery_page(
    api: Api,
    signed_in: tuple[Caller, httpx.AsyncClient],
    receiver: tuple[str, list[bytes]],
) -> None:
    caller, browser = signed_in
    url, bodies = receiver
    made = await api.client.post("/webhooks/endpoints", json={"url": url}, headers=caller.headers)
    endpoint_id = made.json()["data"]["id"]
    page = await browser.get("/dashboard/sandbox/webhooks")
    assert f'aria-label="Send test event of {url}"' in page.text

    sent = await browser.post(
        f"/dashboard/sandbox/webhooks/{endpoint_id}/test", data={"csrf": csrf_of(page)}
    )
    assert sent.status_code == 303
    assert re.fullmatch(
        r"/dashboard/sandbox/deliveries/msg_\w+\?done=test-sent", sent.headers["location"]
    )
    assert await run_due(api.container.webhook_sender, "test") == 1
    [signed] = bodies
    detail = await browser.get(sent.headers["location"])
    assert notice_of(detail) == [
        "A test event was queued: it is sent at once. Reload to see its attempt."
    ]
    assert "<code>webhook.test</code> delivery" in detail.text
    assert re.findall(r"<td>(\d{3}|none)</td>", detail.text) == ["418"]
    shown = re.search(r'id="signed-body"><code>([^<]*)</code>', detail.text)
    assert shown is not None
    assert html.unescape(shown[1]).encode() == signed, "the body exactly as signed"
    answer = re.search(r'id="response-body"><code>([^<]*)</code>', detail.text)
    assert answer is not None
    assert html.unescape(answer[1]).startswith("<p>not today & zzz")
    assert len(html.unescape(answer[1])) == 2000, "cut"
    assert "&lt;p&gt;not today &amp; zzz" in detail.text, "escaped, never markup"


async def test_rotating_from_the_dashboard_keeps_or_drops_the_old_secret(
    api: Api, signed_in: tuple[Caller, httpx.AsyncClient]
) -> None:
    caller, browser = signed_in
    made = await api.client.post(
        "/webhooks/endpoints", json={"url": "https://hooks.acme.example/e"}, headers=caller.headers
    )
    first = made.json()["data"]
    page = await browser.get("/dashboard/sandbox/webhooks")
    base = f"/dashboard/sandbox/webhooks/{first['id']}"
    principal = Principal(caller.account_id, Environment.SANDBOX, caller.key_id)
    webhooks = api.container.services.webhooks

    rotated = await redirected(
        browser, await browser.post(f"{base}/rotate", data={"csrf": csrf_of(page)})
    )
    assert "the old secret signs too" in rotated.text
    assert "Old secret signs too until" in rotated.text
    stored = await webhooks.get_endpoint(principal, first["id"])
    assert stored.previous_secret == first["secret"]
    assert SECRET.search(rotated.text)[1] == stored.secret  # type: ignore[index]

    dropped = await redirected(
        browser, await browser.post(f"{base}/rotate-now", data={"csrf": csrf_of(page)})
    )
    assert "The old secret no longer signs." in dropped.text
    assert "Old secret signs too until" not in dropped.text
    stored = await webhooks.get_endpoint(principal, first["id"])
    assert stored.previous_secret is None
    assert SECRET.search(dropped.text)[1] == stored.secret  # type: ignore[index]
