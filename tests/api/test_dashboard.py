"""The dashboard over HTTP (issue 6, point 5), on SQLite and PostgreSQL: sign-in, sessions
and their cookies, CSRF, and what each page's forms change, checked through the API and the
services (the browser tests in tests/web drive the same pages in Chromium)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import httpx
import pytest
from aiohttp import web

from energyhub.bootstrap import Container, build_app
from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.devices import Device
from energyhub.domain.members import SESSION_IDLE_LIMIT, SESSION_LIFETIME
from energyhub.domain.readings import CommandReceipt, CommandRequest, DeviceReading
from energyhub.workers.webhook_pump import run_due
from tests.support import Api, Caller, local_receiver

PASSWORD = "correct horse battery staple"
SIGN_IN_TOKEN = re.compile(r'name="sign_in_token" value="([^"]+)"')
CSRF = re.compile(r'name="csrf" value="([^"]+)"')


async def add_member(api: Api, caller: Caller, email: str = "ops@acme.example") -> str:
    member = await api.container.members.add_member(caller.account_id, email, PASSWORD)
    return member.email


async def sign_in(
    client: httpx.AsyncClient,
    email: str,
    password: str = PASSWORD,
    next_page: str = "",
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    form = await client.get("/dashboard/sign-in")
    token = SIGN_IN_TOKEN.search(form.text)
    assert token is not None, form.text
    return await client.post(
        "/dashboard/sign-in",
        data={"sign_in_token": token[1], "email": email, "password": password, "next": next_page},
        headers=headers,
    )


def csrf_of(page: httpx.Response) -> str:
    found = CSRF.search(page.text)
    assert found is not None, page.text
    return found[1]


async def redirected(browser: httpx.AsyncClient, posted: httpx.Response) -> httpx.Response:
    """The page a form's 303 leads to (every dashboard form answers so: a reload of that
    page sends nothing again), as the browser reads it."""
    assert posted.status_code == 303, posted.text[:500]
    return await browser.get(posted.headers["location"])


def notice_of(page: httpx.Response) -> list[str]:
    return re.findall(r'class="notice" role="status"><p>([^<]+)</p>', page.text)


@pytest.fixture
async def member(api: Api) -> AsyncIterator[tuple[Caller, httpx.AsyncClient]]:
    """A signed-in member of a new account (with a sandbox key), and their browser."""
    caller = await api.caller()
    email = await add_member(api, caller)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=build_app(api.container)),
        base_url="http://testserver",
    ) as browser:
        signed_in = await sign_in(browser, email)
        assert signed_in.status_code == 303
        yield caller, browser


async def browser_for(container: Container, base: str = "http://testserver") -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=build_app(container)), base_url=base)


# --- signing in ---------------------------------------------------------------------------
async def test_pages_need_a_signed_in_member(api: Api) -> None:
    caller = await api.caller()
    page = await api.client.get("/dashboard/sandbox/keys")
    assert page.status_code == 303
    assert page.headers["location"] == "/dashboard/sign-in?next=/dashboard/sandbox/keys"
    posted = await api.client.post("/dashboard/sandbox/keys", data={"csrf": "x"})
    assert posted.status_code == 401
    assert "sign in again" in posted.text
    keys = await api.container.services.accounts.list_keys(caller.account_id)
    assert len(keys) == 1, "nothing was created"
    assert (await api.client.get("/dashboard/elsewhere/keys")).status_code == 404


async def test_sign_in_checks_the_password_without_telling_which_part_was_wrong(
    api: Api,
) -> None:
    caller = await api.caller()
    email = await add_member(api, caller, "Ops@Acme.example")
    assert email == "ops@acme.example"
    wrong = await sign_in(api.client, email, "not the password at all")
    unknown = await sign_in(api.client, "nobody@acme.example")
    empty = await sign_in(api.client, email, "")
    for refused in (wrong, unknown):
        assert refused.status_code == 400
        assert "The e-mail address or the password is wrong." in refused.text
        assert "energyhub_session" not in refused.headers.get("set-cookie", "")
    assert empty.status_code == 400
    assert "Enter your e-mail address and password." in empty.text
    right = await sign_in(api.client, "  OPS@acme.EXAMPLE ", next_page="/dashboard/live/keys")
    assert right.status_code == 303
    assert right.headers["location"] == "/dashboard/live/keys"
    cookie = right.headers["set-cookie"]
    assert cookie.startswith("energyhub_session=")
    assert "HttpOnly" in cookie
    assert "SameSite=lax" in cookie
    assert "Path=/" in cookie
    assert "Secure" not in cookie, "plain http on a laptop"
    assert (await api.client.get("/dashboard/live/keys")).status_code == 200
    signed_in = await api.client.get("/dashboard/sign-in")
    assert signed_in.status_code == 303, "a signed-in member skips the form"


@pytest.mark.parametrize(
    "target", ["https://evil.example/", "//evil.example/x", "/dashboard/..//evil", "/docs"]
)
async def test_sign_in_never_redirects_off_the_dashboard(api: Api, target: str) -> None:
    caller = await api.caller()
    email = await add_member(api, caller)
    answer = await sign_in(api.client, email, next_page=target)
    assert answer.status_code == 303
    assert answer.headers["location"] == "/dashboard/sandbox/devices"


async def test_the_sign_in_form_is_protected_against_cross_site_posts(api: Api) -> None:
    caller = await api.caller()
    email = await add_member(api, caller)
    forged = await api.client.post(
        "/dashboard/sign-in", data={"email": email, "password": PASSWORD, "sign_in_token": "x"}
    )
    assert forged.status_code == 403
    assert "This form has expired" in forged.text
    for headers in ({"sec-fetch-site": "cross-site"}, {"origin": "https://evil.example"}):
        refused = await sign_in(api.client, email, headers=headers)
        assert refused.status_code == 403
        assert "energyhub_session" not in refused.headers.get("set-cookie", "")


async def test_failed_sign_ins_are_throttled_per_address(api: Api) -> None:
    caller = await api.caller()
    email = await add_member(api, caller)
    other = await add_member(api, caller, "other@acme.example")
    for _ in range(10):
        assert (await sign_in(api.client, email, "wrong password here")).status_code == 400
    throttled = await sign_in(api.client, email)
    assert throttled.status_code == 400
    assert "Too many failed sign-ins" in throttled.text
    assert (await sign_in(api.client, other)).status_code == 303, "other addresses are not"


async def test_over_https_the_cookie_is_secure_and_host_only(api: Api) -> None:
    caller = await api.caller()
    email = await add_member(api, caller)
    async with await browser_for(api.container, "https://dash.example") as browser:
        answer = await sign_in(browser, email)
        assert answer.status_code == 303
        cookie = answer.headers["set-cookie"]
        assert cookie.startswith("__Host-energyhub_session=")
        assert "Secure" in cookie
        assert "HttpOnly" in cookie
        assert "Domain" not in cookie
        assert (await browser.get("/dashboard/sandbox/keys")).status_code == 200


async def test_a_session_ends_when_idle_or_too_old(api: Api) -> None:
    caller = await api.caller()
    email = await add_member(api, caller)
    assert (await sign_in(api.client, email)).status_code == 303
    api.clock.advance(SESSION_IDLE_LIMIT - timedelta(minutes=1))
    assert (await api.client.get("/dashboard/sandbox/keys")).status_code == 200
    api.clock.advance(SESSION_IDLE_LIMIT)
    assert (await api.client.get("/dashboard/sandbox/keys")).status_code == 303, "idle"
    assert (await sign_in(api.client, email)).status_code == 303
    for _ in range(int(SESSION_LIFETIME / timedelta(hours=1)) - 1):
        api.clock.advance(timedelta(hours=1))
        assert (await api.client.get("/dashboard/sandbox/keys")).status_code == 200
    api.clock.advance(timedelta(hours=1))
    ended = await api.client.get("/dashboard/sandbox/keys")
    assert ended.status_code == 303, "used every hour, it still ends after 12 h"


async def test_sign_out_ends_the_session_on_the_server(
    member: tuple[Caller, httpx.AsyncClient],
) -> None:
    _, browser = member
    page = await browser.get("/dashboard/sandbox/devices")
    stolen = browser.cookies["energyhub_session"]
    signed_out = await browser.post("/dashboard/sign-out", data={"csrf": csrf_of(page)})
    assert signed_out.status_code == 303
    assert signed_out.headers["location"] == "/dashboard/sign-in?done=signed-out"
    browser.cookies.set("energyhub_session", stolen)
    assert (await browser.get("/dashboard/sandbox/devices")).status_code == 303


async def test_every_form_needs_the_session_csrf_token(
    api: Api, member: tuple[Caller, httpx.AsyncClient]
) -> None:
    caller, browser = member
    page = await browser.get("/dashboard/sandbox/keys")
    token = csrf_of(page)
    for data, headers in [
        ({}, {}),
        ({"csrf": "guessed"}, {}),
        ({"csrf": token}, {"sec-fetch-site": "cross-site"}),
        ({"csrf": token}, {"origin": "https://evil.example"}),
    ]:
        refused = await browser.post("/dashboard/sandbox/keys", data=data, headers=headers)
        assert refused.status_code == 403, (data, headers)
    keys = await api.container.services.accounts.list_keys(caller.account_id)
    assert len(keys) == 1, "no key was created by a refused form"
    signed_out = await browser.post("/dashboard/sign-out", data={"csrf": "guessed"})
    assert signed_out.status_code == 403
    assert (await browser.get("/dashboard/sandbox/keys")).status_code == 200, "still signed in"


async def test_pages_are_not_cached_framed_or_referred(
    member: tuple[Caller, httpx.AsyncClient],
) -> None:
    _, browser = member
    page = await browser.get("/dashboard/sandbox/keys")
    assert page.headers["cache-control"] == "no-store"
    assert page.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert page.headers["referrer-policy"] == "no-referrer"


# --- API keys -----------------------------------------------------------------------------
async def test_keys_are_created_once_shown_and_revoked(
    api: Api, member: tuple[Caller, httpx.AsyncClient]
) -> None:
    caller, browser = member
    page = await browser.get("/dashboard/sandbox/keys")
    created = await browser.post("/dashboard/sandbox/keys", data={"csrf": csrf_of(page)})
    assert created.status_code == 303, "POST, redirect, GET: a reload makes no second key"
    assert created.headers["location"] == "/dashboard/sandbox/keys"
    assert "sk_test_" not in created.headers["set-cookie"], "the cookie carries it sealed"
    answer = await browser.get(created.headers["location"])
    shown = re.search(r'id="new-key">(sk_test_[A-Za-z0-9]+)<', answer.text)
    assert shown is not None
    key = shown[1]
    assert (await api.client.get("/battery", headers={"x-api-key": key})).status_code == 200
    listed = await browser.get("/dashboard/sandbox/keys")
    assert key not in listed.text, "shown once"
    assert key[-4:] in listed.text
    key_id = re.findall(r"/dashboard/sandbox/keys/(key_[0-9a-f]+)/revoke", listed.text)
    assert len(key_id) == 2
    own = [k.id for k in await api.container.services.accounts.list_keys(caller.account_id)]
    new_id = next(i for i in own if i != caller.key_id)
    revoked = await browser.post(
        f"/dashboard/sandbox/keys/{new_id}/revoke", data={"csrf": csrf_of(listed)}
    )
    assert revoked.status_code == 303
    after = await browser.get(revoked.headers["location"])
    assert notice_of(after) == ["The key was revoked: requests with it now get 401 EXPIRED_TOKEN."]
    refused = await api.client.get("/battery", headers={"x-api-key": key})
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "EXPIRED_TOKEN"
    assert "Revoked" in after.text


async def test_keys_of_other_accounts_and_environments_are_out_of_reach(
    api: Api, member: tuple[Caller, httpx.AsyncClient]
) -> None:
    _, browser = member
    stranger = await api.caller()
    page = await browser.get("/dashboard/sandbox/keys")
    assert stranger.key_id not in page.text
    attempt = await browser.post(
        f"/dashboard/sandbox/keys/{stranger.key_id}/revoke", data={"csrf": csrf_of(page)}
    )
    gone = await browser.get(attempt.headers["location"])
    assert notice_of(gone) == ["That key was already revoked or does not exist."]
    assert (await api.get(stranger, "/battery")).status_code == 200, "still works"
    live = await browser.get("/dashboard/live/keys")
    assert "No live keys yet." in live.text
    made = await redirected(
        browser, await browser.post("/dashboard/live/keys", data={"csrf": csrf_of(live)})
    )
    assert re.search(r'id="new-key">sk_live_[A-Za-z0-9]{32,}<', made.text)
    sandbox = await browser.get("/dashboard/sandbox/keys")
    assert "sk_live_" not in sandbox.text


# --- webhook endpoints --------------------------------------------------------------------
async def test_endpoints_are_added_revealed_rotated_and_removed(
    api: Api, member: tuple[Caller, httpx.AsyncClient]
) -> None:
    caller, browser = member
    page = await browser.get("/dashboard/sandbox/webhooks")
    bad = await redirected(
        browser,
        await browser.post(
            "/dashboard/sandbox/webhooks", data={"csrf": csrf_of(page), "url": "ftp://x.example"}
        ),
    )
    assert "scheme must be http or https" in bad.text
    assert 'value="ftp://x.example"' in bad.text, "what was typed stays"
    added = await redirected(
        browser,
        await browser.post(
            "/dashboard/sandbox/webhooks",
            data={
                "csrf": csrf_of(page),
                "url": "https://hooks.acme.example/energy",
                "description": "billing",
                "events": ["push.completed", "device.connected", "not.an.event"],
            },
        ),
    )
    assert 'id="signing-secret"' not in (await browser.get(added.url)).text, "shown once"
    secret = re.search(r'id="signing-secret">(whsec_[^<]+)<', added.text)
    assert secret is not None
    listed = (await api.get(caller, "/webhooks/endpoints")).json()["data"]["items"]
    assert len(listed) == 1
    endpoint = listed[0]
    assert endpoint["url"] == "https://hooks.acme.example/energy"
    assert sorted(endpoint["events"]) == ["device.connected", "push.completed"]
    base = f"/dashboard/sandbox/webhooks/{endpoint['id']}"
    revealed = await redirected(
        browser, await browser.post(f"{base}/reveal", data={"csrf": csrf_of(page)})
    )
    assert f'id="signing-secret">{secret[1]}<' in revealed.text
    rotated = await redirected(
        browser, await browser.post(f"{base}/rotate", data={"csrf": csrf_of(page)})
    )
    new_secret = re.search(r'id="signing-secret">(whsec_[^<]+)<', rotated.text)
    assert new_secret is not None
    assert new_secret[1] != secret[1]
    principal = Principal(caller.account_id, Environment.SANDBOX, caller.key_id)
    stored = await api.container.services.webhooks.get_endpoint(principal, endpoint["id"])
    assert stored.secret == new_secret[1], "the new secret signs from now on"
    removed = await browser.post(f"{base}/remove", data={"csrf": csrf_of(page)})
    assert removed.status_code == 303
    assert (await api.get(caller, "/webhooks/endpoints")).json()["data"]["items"] == []
    after = await browser.get(removed.headers["location"])
    assert notice_of(after) == ["The endpoint was removed: it gets no more events."]
    again = await browser.post(f"{base}/reveal", data={"csrf": csrf_of(page)})
    assert again.status_code == 404


async def test_the_endpoint_form_says_when_the_cap_is_reached(
    api: Api, member: tuple[Caller, httpx.AsyncClient]
) -> None:
    caller, browser = member
    principal = Principal(caller.account_id, Environment.SANDBOX, caller.key_id)
    cap = 20  # ENERGYHUB_WEBHOOK_MAX_ENDPOINTS's default
    for n in range(cap):
        await api.container.services.webhooks.create_endpoint(
            principal, f"https://hooks.acme.example/{n}"
        )
    page = await browser.get("/dashboard/sandbox/webhooks")
    refused = await redirected(
        browser,
        await browser.post(
            "/dashboard/sandbox/webhooks",
            data={"csrf": csrf_of(page), "url": "https://hooks.acme.example/one-more"},
        ),
    )
    summary = re.search(r'class="error-summary" role="alert".*?</div>', refused.text, re.S)
    assert summary is not None, "the reason is at the top of the page"
    assert f"already has {cap} webhook endpoints" in summary[0]
    assert "delete one" in summary[0]
    assert 'href="#field-endpoints"' in summary[0]
    assert 'id="field-endpoints"' in refused.text
    assert 'value="https://hooks.acme.example/one-more"' in refused.text, "what was typed stays"
    assert len((await api.get(caller, "/webhooks/endpoints")).json()["data"]["items"]) == cap


async def test_endpoints_of_other_accounts_and_environments_are_out_of_reach(
    api: Api, member: tuple[Caller, httpx.AsyncClient]
) -> None:
    _, browser = member
    stranger = await api.caller()
    theirs = await api.client.post(
        "/webhooks/endpoints", json={"url": "https://them.example/hook"}, headers=stranger.headers
    )
    assert theirs.status_code == 201, theirs.text
    their_id = theirs.json()["data"]["id"]
    page = await browser.get("/dashboard/sandbox/webhooks")
    assert "them.example" not in page.text
    for what in ("reveal", "rotate", "remove"):
        refused = await browser.post(
            f"/dashboard/sandbox/webhooks/{their_id}/{what}", data={"csrf": csrf_of(page)}
        )
        assert refused.status_code == 404
        assert theirs.json()["data"]["secret"] not in refused.text
    unknown = await browser.post(
        f"/dashboard/sandbox/webhooks/{their_id}/explode", data={"csrf": csrf_of(page)}
    )
    assert unknown.status_code == 404
    assert "them.example" not in (await browser.get("/dashboard/live/webhooks")).text


# --- deliveries ---------------------------------------------------------------------------
@pytest.fixture
async def receiver() -> AsyncIterator[tuple[str, list[int]]]:
    """A real HTTP receiver that answers 503 once, then 204; its URL and the answers given."""
    answers: list[int] = []

    async def hook(request: web.Request) -> web.Response:
        await request.read()
        answers.append(503 if not answers else 204)
        return web.Response(status=answers[-1])

    async with local_receiver(hook) as url:
        yield url, answers


async def test_deliveries_are_listed_shown_with_every_attempt_and_resent(
    api: Api, member: tuple[Caller, httpx.AsyncClient], receiver: tuple[str, list[int]]
) -> None:
    caller, browser = member
    url, answers = receiver
    made = await api.client.post("/webhooks/endpoints", json={"url": url}, headers=caller.headers)
    assert made.status_code == 201
    await api.sandbox_device(caller)  # device.connected
    sender = api.container.webhook_sender
    api.clock.advance(api.container.settings.sandbox_link_event_delay_s + 1)
    assert await run_due(sender, "test") == 1
    assert answers == [503]
    listing = await browser.get("/dashboard/sandbox/deliveries")
    assert "1 delivery, newest first." in listing.text
    assert "device.connected" in listing.text
    delivery_id = re.findall(r"/dashboard/sandbox/deliveries/(msg_[^\"?]+)\"", listing.text)
    assert len(delivery_id) == 1
    assert "1 delivery" in (await browser.get("/dashboard/sandbox/deliveries?status=pending")).text
    none = await browser.get("/dashboard/sandbox/deliveries?status=succeeded")
    assert "0 deliveries" in none.text
    detail = await browser.get(f"/dashboard/sandbox/deliveries/{delivery_id[0]}")
    assert detail.status_code == 200
    assert re.findall(r"<td>(\d{3}|none)</td>", detail.text) == ["503"]
    assert "&#34;userId&#34;" in detail.text or "&quot;userId&quot;" in detail.text
    resent = await browser.post(
        f"/dashboard/sandbox/deliveries/{delivery_id[0]}/resend", data={"csrf": csrf_of(detail)}
    )
    assert resent.status_code == 303
    assert await run_due(sender, "test") == 1
    assert answers == [503, 204]
    after = await browser.get(resent.headers["location"])
    assert notice_of(after) == ["One more attempt was queued: it is sent within a few seconds."]
    assert re.findall(r"<td>(\d{3}|none)</td>", after.text) == ["503", "204"]
    assert "status-succeeded" in after.text
    stranger = await api.caller()
    theirs = await api.client.get(
        f"/dashboard/sandbox/deliveries/{delivery_id[0]}", headers=stranger.headers
    )
    assert theirs.status_code == 303, "an API key does not sign in to the dashboard"
    live = await browser.get(f"/dashboard/live/deliveries/{delivery_id[0]}")
    assert live.status_code == 404


# --- devices ------------------------------------------------------------------------------
async def test_devices_show_their_state_chart_and_recent_actions(
    api: Api, member: tuple[Caller, httpx.AsyncClient]
) -> None:
    caller, browser = member
    battery = await api.sandbox_device(caller)
    charger = await api.sandbox_device(caller, "ev-charger")
    listing = await browser.get("/dashboard/sandbox/devices")
    assert "2 devices in the sandbox environment" in listing.text
    assert battery["id"] in listing.text
    assert charger["id"] in listing.text
    pushed = await api.push(caller, battery, "charge")
    assert pushed.status_code == 200, pushed.text
    action_id = pushed.json()["data"]["id"]
    page = await browser.get(f"/dashboard/sandbox/devices/{battery['id']}")
    assert page.status_code == 200
    points = re.findall(r'<polyline class="chart-line" points="([^"]+)"', page.text)
    assert len(points) == 1
    assert len(points[0].split()) == 24 * 6 + 1
    assert "Level over the last 24 hours" in page.text
    assert action_id in page.text
    assert "<code>charge</code>" in page.text
    charger_page = await browser.get(f"/dashboard/sandbox/devices/{charger['id']}")
    assert "Power over the last 24 hours" in charger_page.text
    stranger = await api.caller()
    theirs = await api.sandbox_device(stranger)
    assert (await browser.get(f"/dashboard/sandbox/devices/{theirs['id']}")).status_code == 404
    assert (await browser.get(f"/dashboard/live/devices/{battery['id']}")).status_code == 404
    assert theirs["id"] not in (await browser.get("/dashboard/sandbox/devices")).text


class HardwareDriver:
    """A device that talks to hardware (not instant), reading a level the test sets: the
    service must record what each pull saw, since hardware keeps no history for us."""

    instant = False

    def __init__(self) -> None:
        self.level = 40.0

    async def read(self, device: Device, now: Any) -> DeviceReading:
        return DeviceReading(state={"status": "idle", "level": self.level, "chargeRate": 0.0})

    async def send_command(
        self, device: Device, request: CommandRequest, now: Any
    ) -> CommandReceipt:
        raise NotImplementedError

    async def write_settings(self, device: Device, settings: dict[str, Any], now: Any) -> None:
        raise NotImplementedError


async def test_a_live_device_is_charted_from_what_its_pulls_recorded(
    api: Api, member: tuple[Caller, httpx.AsyncClient]
) -> None:
    caller, browser = member
    driver = HardwareDriver()
    api.container.drivers["hardware-test"] = driver
    sandbox = await api.sandbox_device(caller)
    async with api.container.uow() as tx:
        template = await tx.devices.get_device_by_id(sandbox["id"])
        assert template is not None
        device = Device(
            **{
                **{f: getattr(template, f) for f in template.__dataclass_fields__},
                "id": "live-battery-1",
                "environment": Environment.LIVE,
                "driver": "hardware-test",
                "profile": None,
                "sim": None,
            }
        )
        await tx.devices.ensure_user(
            caller.account_id, Environment.LIVE, device.user_id, None, api.clock.now()
        )
        await tx.devices.add_device(device)
    devices = api.container.services.devices
    start = api.clock.now()
    for minutes, level in [(0, 40.0), (60, 55.0), (120, 70.0), (1560, 30.0), (1580, 35.0)]:
        api.clock.set(start + timedelta(minutes=minutes))
        driver.level = level
        await devices.pull(device)
    assert (await sign_in(browser, "ops@acme.example")).status_code == 303, "a day went by"
    page = await browser.get("/dashboard/live/devices/live-battery-1")
    assert page.status_code == 200
    assert "latest 35 %" in page.text
    assert "lowest 30 %" in page.text, "only the last 24 h are charted"
    assert "highest 35 %" in page.text
    lines = re.findall(r'<polyline class="chart-line" points="([^"]+)"', page.text)
    assert [len(line.split()) for line in lines] == [2]
    principal = Principal(caller.account_id, Environment.LIVE, "k")
    _, history = await api.container.history.last_day(principal, "live-battery-1")
    assert [s.level for s in history.samples] == [30.0, 35.0]
    async with api.container.uow() as tx:
        kept = await tx.samples.samples("live-battery-1", start, api.clock.now())
    assert [s.level for s in kept] == [70.0, 30.0, 35.0], "older than 25 h: deleted"
    api.clock.advance(timedelta(hours=2))  # offline: the last two samples stand alone
    _, later = await api.container.history.last_day(principal, "live-battery-1")
    assert [s.level for s in later.samples] == [30.0, 35.0]


async def test_a_command_form_pushes_and_the_chart_keeps_what_it_changed(
    api: Api, member: tuple[Caller, httpx.AsyncClient]
) -> None:
    """The device page's command form is the API's push (same action, same rules), and the
    chart is drawn from the stored samples: its newest point is the state beside it, and
    the effect of the command stays charted after a later command replaced it."""
    caller, browser = member
    battery = await api.sandbox_device(caller)
    path = f"/dashboard/sandbox/devices/{battery['id']}"
    page = await browser.get(path)
    refused = await redirected(
        browser,
        await browser.post(
            f"{path}/commands", data={"csrf": csrf_of(page), "command": "charge", "p.power": "9"}
        ),
    )
    assert "PARAMETER_OUT_OF_RANGE" in refused.text
    assert 'value="9"' in refused.text, "the form comes back as it was sent"
    sent = await redirected(
        browser,
        await browser.post(
            f"{path}/commands", data={"csrf": csrf_of(page), "command": "charge", "p.power": "4"}
        ),
    )
    [action] = (await api.client.get("/actions", headers=caller.headers)).json()["data"]["items"]
    assert action["command"] == "charge"
    assert action["parameters"]["power"]["value"] == 4.0
    assert action["id"] in sent.text

    await api.run_due(30)  # the sandbox completes it
    api.clock.advance(timedelta(minutes=30))
    charging = await browser.get(path)  # reads the device: the command's effect is stored
    api.clock.advance(timedelta(minutes=30))
    idle = await api.client.post(
        f"/battery/{battery['id']}", json={"action": {"command": "idle"}}, headers=caller.headers
    )
    assert idle.status_code in (200, 202), idle.text
    await api.run_due(30)
    api.clock.advance(timedelta(minutes=2))
    page = await browser.get(path)
    principal = Principal(caller.account_id, Environment.SANDBOX, "k")
    device, history = await api.container.history.last_day(principal, battery["id"])
    newest = history.samples[-1]
    assert newest.level == device.state["level"]
    assert f"latest {newest.level:.0f} %" in page.text
    rates = [s.power_kw for s in history.samples if s.at > api.clock.now() - timedelta(hours=2)]
    assert 4.0 in rates, "the replaced command's effect is still charted"
    assert rates[-1] == 0.0
    assert "charge" in charging.text
