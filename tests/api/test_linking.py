"""Link sessions, the hosted flow's rules, linked accounts and revocation (spec 1.6,
CONTRACT 8 and 9), through HTTP against the app with a fake clock. What the pages look like
and that a browser can complete them is tested in tests/web/test_link_flow.py."""

from __future__ import annotations

import hashlib
import re
import socket
import stat
from dataclasses import dataclass, field
from datetime import timedelta
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from cryptography.fernet import Fernet
from sqlalchemy import select

from energyhub.adapters.secrets import CredentialCipher, CredentialsUnreadable, SecretKeyError
from energyhub.bootstrap import build_container, secret_key_file, secret_keys
from energyhub.config import Settings
from energyhub.domain.accounts import Environment
from energyhub.domain.clock import FakeClock
from energyhub.persistence.tables import link_sessions, linked_accounts, webhook_events
from tests.sunspec_peer import STORAGE_LAYOUT, SunspecPeer
from tests.support import Api, Caller, open_api

VOLTA = {"email": "user@volta.test", "password": "volta-pass"}
AMPERE = {"email": "user@ampere.test", "password": "ampere-pass"}
NIMBUS = {"email": "user@nimbus.test", "password": "nimbus-pass"}
REDIRECT = "https://app.example.com/linked?from=test"


@dataclass
class Flow:
    """A user going through the hosted flow with plain HTTP, as a browser without JS."""

    client: httpx.AsyncClient
    url: str
    page: httpx.Response | None = None
    history: list[httpx.Response] = field(default_factory=list)

    @property
    def token(self) -> str:
        return parse_qs(urlsplit(self.url).query)["token"][0]

    @property
    def path(self) -> str:
        return urlsplit(self.url).path

    @property
    def html(self) -> str:
        assert self.page is not None
        return self.page.text

    @property
    def nonce(self) -> str:
        found = re.search(r'name="nonce" value="([^"]+)"', self.html)
        assert found, self.html
        return found.group(1)

    async def open(self) -> httpx.Response:
        self.page = await self.client.get(self.url)
        return self.page

    async def send(
        self, action: str = "continue", nonce: str | None = None, **fields: Any
    ) -> httpx.Response:
        data: dict[str, Any] = {
            "token": self.token,
            "nonce": nonce or self.nonce,
            "action": action,
            **fields,
        }
        response = await self.client.post(self.path, data=data, follow_redirects=True)
        self.history.append(response)
        self.page = response
        return response

    def title(self) -> str:
        found = re.search(r"<h1>(.*?)</h1>", self.html, re.S)
        assert found, self.html
        return " ".join(found.group(1).split())

    def errors(self) -> list[str]:
        summary = re.search(r'class="error-summary".*?</div>', self.html, re.S)
        if summary is None:
            return []
        return [
            unescape(re.sub(r"<[^>]+>", "", item).strip())
            for item in re.findall(r"<li>(.*?)</li>", summary.group(0), re.S)
        ]


async def start(
    api: Api, caller: Caller, user_id: str = "user-1", **body: Any
) -> tuple[Flow, dict[str, Any]]:
    response = await api.client.post(
        "/link-sessions", json={"userId": user_id, **body}, headers=caller.headers
    )
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    flow = Flow(api.client, data["linkUrl"])
    opened = await flow.open()
    assert opened.status_code == 200, opened.text
    return flow, data


async def link(
    api: Api,
    caller: Caller,
    device_type: str = "battery",
    vendor: str = "sandbox-volta",
    credentials: dict[str, str] | None = None,
    devices: tuple[str, ...] = ("VH-1001",),
    user_id: str = "user-1",
    **body: Any,
) -> Flow:
    """The whole flow for a vendor without MFA, ending on the done page."""
    flow, _ = await start(api, caller, user_id, **body)
    await flow.send(device_type=device_type)
    await flow.send(vendor=vendor)
    await flow.send(**(credentials or VOLTA))
    await flow.send(device=list(devices))
    done = await flow.send("allow")
    assert done.status_code == 200, done.text
    assert flow.title() == "Your devices are connected"
    return flow


async def events(api: Api, kind: str | None = None) -> list[dict[str, Any]]:
    async with api.container.engine.connect() as connection:
        rows = await connection.execute(select(webhook_events).order_by(webhook_events.c.pk))
        found = [dict(row._mapping) for row in rows]
    return [e for e in found if kind is None or e["type"] == kind]


async def rows(api: Api, table: Any) -> list[dict[str, Any]]:
    async with api.container.engine.connect() as connection:
        return [dict(r._mapping) for r in await connection.execute(select(table))]


async def linked(api: Api, caller: Caller, user: str = "user-1") -> list[dict[str, Any]]:
    response = await api.get(caller, f"/users/{user}/linked-accounts")
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["data"]["items"]
    return items


# --- link sessions ---------------------------------------------------------------------------
async def test_a_link_session_is_a_link_to_the_hosted_flow_for_one_day(api: Api) -> None:
    caller = await api.caller()
    response = await api.client.post(
        "/link-sessions",
        json={"userId": "ada", "email": "ada@example.com", "redirectUri": REDIRECT},
        headers=caller.headers,
    )
    assert response.status_code == 201, response.text
    data = response.json()["data"]
    assert set(data) == {"linkUrl", "linkToken", "expiresAt"}
    app_id = await app_id_of(api, caller)
    assert data["linkUrl"] == f"http://testserver/link/{app_id}?token={data['linkToken']}"
    assert re.fullmatch(r"lt_[A-Za-z0-9]{43}", data["linkToken"])
    assert data["expiresAt"] == "2026-11-21T12:00:00.000Z"  # START + 24 h
    page = await api.client.get(data["linkUrl"])
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "<title>What do you want to connect? \N{EN DASH} test</title>" in page.text
    assert page.headers["referrer-policy"] == "no-referrer"
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    user = await api.get(caller, "/users/ada@example.com/devices")
    assert user.status_code == 200, "the link session made the user"


async def app_id_of(api: Api, caller: Caller) -> str:
    async with api.container.uow() as tx:
        account = await tx.accounts.get_account(caller.account_id)
    assert account is not None
    return account.app_id


async def test_the_public_url_setting_is_the_base_of_link_urls(api: Api) -> None:
    caller = await api.caller()
    settings = api.container.services.settings
    object.__setattr__(settings, "public_url", "https://link.example.org/")
    try:
        _, data = await start_raw(api, caller)
    finally:
        object.__setattr__(settings, "public_url", None)
    assert data["linkUrl"].startswith("https://link.example.org/link/app_")


async def start_raw(api: Api, caller: Caller, **body: Any) -> tuple[int, dict[str, Any]]:
    response = await api.client.post(
        "/link-sessions", json={"userId": "u", **body}, headers=caller.headers
    )
    return response.status_code, response.json().get("data") or response.json()["error"]


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({}, "body.userId"),
        ({"userId": ""}, "body.userId"),
        ({"userId": "u", "redirectUri": "ftp://files.example.com/x"}, "body.redirectUri"),
        ({"userId": "u", "redirectUri": "/relative/path"}, "body.redirectUri"),
        ({"userId": "u", "redirectUri": "https://user:pw@app.example.com/"}, "body.redirectUri"),
        ({"userId": "u", "redirectUri": "https://app.example.com/#frag"}, "body.redirectUri"),
        ({"userId": "u", "vendor": "acme"}, "vendor"),
        ({"userId": "u", "email": "not-an-address"}, "body.email"),
        ({"userId": "u", "colour": "red"}, "body.colour"),
    ],
)
async def test_a_malformed_link_session_request_is_refused(
    api: Api, body: dict[str, Any], path: str
) -> None:
    caller = await api.caller()
    response = await api.client.post("/link-sessions", json=body, headers=caller.headers)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "INVALID_REQUEST"
    assert path in [e["path"] for e in error["details"]["errors"]]


async def test_a_vendor_of_the_other_environment_is_refused(api: Api) -> None:
    sandbox = await api.caller()
    live = await api.key_for(sandbox.account_id, Environment.LIVE)
    for caller, vendor, code in (
        (sandbox, "ocpp", "LIVE_ONLY"),
        (live, "sandbox-volta", "SANDBOX_ONLY"),
    ):
        response = await api.client.post(
            "/link-sessions", json={"userId": "u", "vendor": vendor}, headers=caller.headers
        )
        assert response.status_code == 403, response.text
        assert response.json()["error"]["code"] == code


async def test_link_sessions_need_an_api_key(api: Api) -> None:
    response = await api.client.post("/link-sessions", json={"userId": "u"})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "UNAUTHORIZED"


async def test_the_token_is_stored_only_as_its_hash(api: Api) -> None:
    caller = await api.caller()
    _, data = await start(api, caller)
    [row] = await rows(api, link_sessions)
    assert row["token_hash"] == hashlib.sha256(data["linkToken"].encode()).hexdigest()
    assert data["linkToken"] not in repr(row)


async def test_a_link_expires_after_24_hours(api: Api) -> None:
    caller = await api.caller()
    flow, _ = await start(api, caller, redirectUri=REDIRECT)
    api.clock.advance(timedelta(hours=24) - timedelta(seconds=1))
    assert (await flow.open()).status_code == 200
    api.clock.advance(1)
    expired = await flow.open()
    assert expired.status_code == 410
    assert "This link has expired" in expired.text
    assert "status=error&amp;error=link_expired" in expired.text
    sent = await flow.send(nonce="whatever", device_type="battery")
    assert sent.status_code == 410, "a form is refused too"


async def test_a_link_works_once(api: Api) -> None:
    caller = await api.caller()
    flow = await link(api, caller)
    consent_nonce = re.findall(r'name="nonce" value="([^"]+)"', flow.history[-2].text)[0]
    again = await flow.open()
    assert again.status_code == 410
    assert "This link has already been used" in again.text
    resent = await flow.send("allow", nonce=consent_nonce)
    assert resent.status_code == 410, "the consent form sent twice links nothing twice"
    assert len(await events(api, "device.connected")) == 1


async def test_a_link_belongs_to_its_app_and_unknown_tokens_are_refused(api: Api) -> None:
    caller = await api.caller()
    other = await api.caller()
    flow, _ = await start(api, caller)
    other_app = await app_id_of(api, other)
    wrong_app = await api.client.get(f"/link/{other_app}?token={flow.token}")
    assert wrong_app.status_code == 404
    assert "This link is not valid" in wrong_app.text
    assert (await api.client.get(f"{flow.path}?token=lt_nope")).status_code == 404
    assert (await api.client.get(flow.path)).status_code == 404


# --- the flow's rules --------------------------------------------------------------------------
async def test_linking_makes_devices_of_a_linked_account_with_device_connected(api: Api) -> None:
    caller = await api.caller()
    flow = await link(
        api, caller, devices=("VH-1001", "VL-2002"), email="u1@example.com", redirectUri=REDIRECT
    )
    [account] = await linked(api, caller)
    assert account["vendor"] == "sandbox-volta"
    assert account["vendorName"] == "Volta Energy"
    assert account["deviceType"] == "battery"
    assert account["status"] == "active"
    assert account["revokedAt"] is None
    assert len(account["deviceIds"]) == 2
    assert await linked(api, caller, "u1@example.com") == [account], "by e-mail address too"
    finish = re.search(r'href="(https://app\.example\.com/[^"]+)"', flow.html)
    assert finish
    query = parse_qs(urlsplit(finish.group(1).replace("&amp;", "&")).query)
    assert query == {"from": ["test"], "status": ["success"], "linkedAccountId": [account["id"]]}

    first = await api.get(caller, f"/battery/{account['deviceIds'][0]}")
    assert first.status_code == 200, first.text
    body = first.json()["data"]
    assert body["vendor"] == "sandbox-volta"
    assert body["metadata"]["model"] == "Volta Home 13.5"
    assert body["userId"] == "user-1"
    second = (await api.get(caller, f"/battery/{account['deviceIds'][1]}")).json()["data"]
    assert second["metadata"]["model"] == "Volta Lite 13.5"
    connected = await events(api, "device.connected")
    assert [e["payload"]["deviceId"] for e in connected] == account["deviceIds"]
    assert {e["payload"]["linkedAccountId"] for e in connected} == {account["id"]}
    delay = timedelta(seconds=api.container.settings.sandbox_link_event_delay_s)
    assert connected[0]["deliver_after"] - connected[0]["occurred_at"] == delay


async def test_a_charger_vendor_links_chargers_with_their_vehicle(api: Api) -> None:
    caller = await api.caller()
    await link(api, caller, "ev-charger", "sandbox-ampere", AMPERE, ("AW-4001", "AX-4003"))
    [account] = await linked(api, caller)
    charger = (await api.get(caller, f"/ev-charger/{account['deviceIds'][0]}")).json()["data"]
    assert charger["metadata"]["model"] == "Ampere Wallbox 22"
    assert charger["vendor"] == "sandbox-ampere"
    devices = (await api.get(caller, "/users/user-1/devices")).json()["data"]["devices"]
    assert [d["type"] for d in devices].count("vehicle") == 2


async def test_wrong_and_refused_sign_ins_are_shown_on_the_page(api: Api) -> None:
    caller = await api.caller()
    flow, _ = await start(api, caller, vendor="sandbox-volta")
    assert flow.title() == "Sign in to Volta Energy"
    cases = [
        ({"email": "user@volta.test", "password": "wrong"}, "password is not correct"),
        ({"email": "nobody@volta.test", "password": "volta-pass"}, "password is not correct"),
        ({"email": "locked@volta.test", "password": "x"}, "has locked this account"),
        ({"email": "", "password": ""}, "Enter your e-mail address."),
        ({"email": "no-at-sign", "password": "x"}, "Enter an e-mail address like"),
    ]
    for credentials, message in cases:
        refused = await flow.send(**credentials)
        assert refused.status_code == 422
        assert any(message in e for e in flow.errors()), (message, flow.errors())
        assert 'value="x"' not in flow.html
        assert 'value="wrong"' not in flow.html
    assert f'value="{credentials["email"]}"' in flow.html, "the e-mail address is kept"
    assert (await flow.send(**VOLTA)).status_code == 200
    assert flow.title() == "Choose the devices to connect"


async def test_a_vendor_outage_and_an_empty_account(api: Api) -> None:
    caller = await api.caller()
    flow, _ = await start(api, caller, vendor="sandbox-ampere")
    await flow.send(email="outage@ampere.test", password="anything")
    assert flow.errors() == [
        "Ampere Charging is not answering right now. Try again in a few minutes."
    ]
    await flow.send(email="empty@ampere.test", password="ampere-pass")
    assert "We found no devices in this Ampere Charging account" in flow.html
    nothing = await flow.send()
    assert nothing.status_code == 422
    assert flow.errors() == ["There are no devices in this account to connect."]


async def test_mfa_wrong_expired_and_too_many_codes(api: Api) -> None:
    caller = await api.caller()
    flow, _ = await start(api, caller, vendor="sandbox-nimbus")
    await flow.send(**NIMBUS)
    assert flow.title() == "Enter the code from Nimbus Power"
    assert "u***@nimbus.test" in flow.html
    assert (await flow.send(code="12")).status_code == 422
    assert flow.errors() == ["Enter the 6-digit code, like 012345."]
    await flow.send(code="000000")
    assert flow.errors() == ["That code is not right. 2 tries left."]
    await flow.send(code="111111")
    assert flow.errors() == ["That code is not right. 1 try left."]
    await flow.send(code="222222")
    assert flow.errors() == ["Too many wrong codes. Sign in again to get a new code."]
    assert flow.title() == "Sign in to Nimbus Power"

    await flow.send(**NIMBUS)
    api.clock.advance(timedelta(minutes=5, seconds=1))
    await flow.send(code="123456")
    assert flow.errors() == ["That code has expired. We sent you a new one: enter it below."]
    await flow.send(code="123 456")
    assert flow.title() == "Choose the devices to connect"


async def test_a_new_code_can_be_requested(api: Api) -> None:
    caller = await api.caller()
    flow, _ = await start(api, caller, vendor="sandbox-nimbus")
    await flow.send(**NIMBUS)
    api.clock.advance(timedelta(minutes=4))
    await flow.send("resend")
    assert "We sent a new code to u***@nimbus.test." in flow.html
    api.clock.advance(timedelta(minutes=4))
    await flow.send(code="123456")
    assert flow.title() == "Choose the devices to connect", "the new code lasts 5 minutes"


async def test_nothing_picked_and_unknown_devices_are_refused(api: Api) -> None:
    caller = await api.caller()
    flow, _ = await start(api, caller, vendor="sandbox-volta")
    await flow.send(**VOLTA)
    assert (await flow.send()).status_code == 422
    assert flow.errors() == ["Choose at least one device to connect."]
    assert (await flow.send(device=["VH-1001", "XX-0000"])).status_code == 422
    await flow.send(device=["VS-3003", "VH-1001"])
    assert flow.title() == "Allow test to use your devices?"
    assert flow.html.index("VH-1001") < flow.html.index("VS-3003"), "in the order offered"


async def test_choices_are_required_and_back_goes_back(api: Api) -> None:
    caller = await api.caller()
    flow, _ = await start(api, caller)
    assert (await flow.send()).status_code == 422
    assert flow.errors() == ["Choose the type of device you want to connect."]
    await flow.send(device_type="battery")
    assert (await flow.send(vendor="sandbox-ampere")).status_code == 422, "not a battery maker"
    assert flow.errors() == ["Choose the manufacturer of your battery."]
    await flow.send(vendor="sandbox-volta")
    await flow.send(**VOLTA)
    await flow.send("back")
    assert flow.title() == "Sign in to Volta Energy"
    await flow.send("back")
    assert flow.title() == "Who made your battery?"
    assert re.search(r'value="sandbox-volta" id="field-vendor"\s*checked', flow.html)
    await flow.send("back")
    assert flow.title() == "Connect your device to test"


async def test_cancel_and_deny_end_the_link_with_an_error_outcome(api: Api) -> None:
    caller = await api.caller()
    flow, _ = await start(api, caller, redirectUri=REDIRECT)
    await flow.send("cancel")
    assert flow.title() == "Nothing was connected"
    assert "status=error&amp;error=user_cancelled" in flow.html
    assert (await flow.open()).status_code == 410

    flow, _ = await start(api, caller, redirectUri=REDIRECT, vendor="sandbox-volta")
    await flow.send(**VOLTA)
    await flow.send(device=["VH-1001"])
    await flow.send("deny")
    assert "You did not allow test to use your devices." in flow.html
    assert "status=error&amp;error=consent_denied" in flow.html
    assert await linked(api, caller) == []
    assert await events(api) == []


async def test_a_stale_form_changes_nothing(api: Api) -> None:
    caller = await api.caller()
    flow, _ = await start(api, caller)
    shown = flow.nonce
    await flow.send(device_type="battery")
    stale = await flow.send(nonce=shown, device_type="ev-charger")
    assert stale.status_code == 409
    assert "That page was out of date" in stale.text
    assert flow.title() == "Who made your battery?"


async def test_cross_site_posts_are_refused(api: Api) -> None:
    caller = await api.caller()
    flow, _ = await start(api, caller)
    refused = await api.client.post(
        flow.path,
        data={"token": flow.token, "nonce": flow.nonce, "action": "cancel"},
        headers={"sec-fetch-site": "cross-site"},
    )
    assert refused.status_code == 403
    assert (await flow.open()).status_code == 200, "the link still works"


async def test_the_live_environment_offers_the_open_protocols(api: Api) -> None:
    caller = await api.caller(Environment.LIVE)
    flow, _ = await start(api, caller)
    await flow.send(device_type="ev-charger")
    assert "OCPP charger" in flow.html
    assert "Volta" not in flow.html
    assert "Ampere" not in flow.html


# --- linked accounts and revocation ----------------------------------------------------------
async def test_revoking_ends_access_and_sends_device_disconnected(api: Api) -> None:
    caller = await api.caller()
    await link(api, caller, devices=("VH-1001", "VL-2002"), redirectUri=REDIRECT)
    [account] = await linked(api, caller)
    first = account["deviceIds"][0]
    fresh = await api.get(caller, f"/battery/{first}")
    assert fresh.json()["data"]["sync"]["available"] is True

    api.clock.advance(10)
    revoked = await api.client.delete(
        f"/users/user-1/linked-accounts/{account['id']}", headers=caller.headers
    )
    assert revoked.status_code == 200, revoked.text
    body = revoked.json()["data"]
    assert body["status"] == "revoked"
    assert body["revokedAt"] == "2026-11-20T12:00:10.000Z"
    assert body["deviceIds"] == account["deviceIds"]
    [row] = await rows(api, linked_accounts)
    assert row["credentials"] is None, "credentials dropped"

    read = await api.get(caller, f"/battery/{first}")
    assert read.json()["data"]["sync"]["available"] is False, "unavailable on the next pull"
    pushed = await api.push(caller, {"type": "battery", "id": first}, "idle")
    assert pushed.status_code == 502
    assert pushed.json()["error"]["code"] == "CREDENTIALS_INVALID"

    gone = await events(api, "device.disconnected")
    assert [e["payload"]["deviceId"] for e in gone] == account["deviceIds"]
    payload = gone[0]["payload"]
    assert payload["linkedAccountId"] == account["id"]
    assert payload["vendor"] == "sandbox-volta"
    relink = Flow(api.client, payload["reconnectionUrl"])
    assert relink.url.startswith("http://testserver/link/app_")
    assert (await relink.open()).status_code == 200
    assert relink.title() == "Sign in to Volta Energy", "the link starts at the vendor"
    assert gone[1]["payload"]["reconnectionUrl"] == relink.url, "one link for all of them"

    again = await api.client.delete(
        f"/users/user-1/linked-accounts/{account['id']}", headers=caller.headers
    )
    assert again.status_code == 200
    assert len(await events(api, "device.disconnected")) == 2, "nothing new"


async def test_linking_a_device_again_reconnects_it(api: Api) -> None:
    caller = await api.caller()
    await link(api, caller)
    [first] = await linked(api, caller)
    await api.client.delete(f"/users/user-1/linked-accounts/{first['id']}", headers=caller.headers)
    [gone] = await events(api, "device.disconnected")
    relink = Flow(api.client, gone["payload"]["reconnectionUrl"])
    await relink.open()
    await relink.send(**VOLTA)
    assert "connected before: it will be reconnected" in relink.html
    await relink.send(device=["VH-1001", "VL-2002"])
    await relink.send("allow")
    accounts = await linked(api, caller)
    assert [a["status"] for a in accounts] == ["revoked", "active"]
    second = accounts[1]
    assert second["deviceIds"][0] == first["deviceIds"][0], "the same device"
    back = await api.get(caller, f"/battery/{first['deviceIds'][0]}")
    assert back.json()["data"]["sync"]["available"] is True
    [reconnected] = await events(api, "device.reconnected")
    assert reconnected["payload"]["deviceId"] == first["deviceIds"][0]
    assert reconnected["payload"]["linkedAccountId"] == second["id"]
    connected = await events(api, "device.connected")
    assert [e["payload"]["deviceId"] for e in connected] == [
        first["deviceIds"][0],
        second["deviceIds"][1],
    ]


async def test_the_same_login_again_adds_to_its_linked_account(api: Api) -> None:
    caller = await api.caller()
    await link(api, caller)
    await link(api, caller, devices=("VH-1001", "VS-3003"))
    [account] = await linked(api, caller)
    assert len(account["deviceIds"]) == 2
    assert len(await events(api, "device.reconnected")) == 1


async def test_unknown_linked_accounts_and_users(api: Api) -> None:
    caller = await api.caller()
    await link(api, caller)
    [account] = await linked(api, caller)
    await start(api, caller, "user-2")
    path = f"/users/user-2/linked-accounts/{account['id']}"
    other_user = await api.client.delete(path, headers=caller.headers)
    assert other_user.status_code == 404
    assert other_user.json()["error"]["code"] == "LINKED_ACCOUNT_NOT_FOUND"
    missing = await api.client.delete(
        "/users/user-1/linked-accounts/la_nope", headers=caller.headers
    )
    assert missing.json()["error"]["code"] == "LINKED_ACCOUNT_NOT_FOUND"
    nobody = await api.get(caller, "/users/nobody/linked-accounts")
    assert nobody.status_code == 404
    assert nobody.json()["error"]["code"] == "USER_NOT_FOUND"
    live = await api.key_for(caller.account_id, Environment.LIVE)
    assert (await api.get(live, "/users/user-1/linked-accounts")).status_code == 404
    other = await api.caller()
    assert (await api.get(other, "/users/user-1/linked-accounts")).status_code == 404
    assert (await linked(api, caller))[0]["status"] == "active"


async def test_the_user_can_remove_access_in_the_flow(api: Api) -> None:
    caller = await api.caller()
    await link(api, caller)
    [account] = await linked(api, caller)
    flow, _ = await start(api, caller, redirectUri=REDIRECT)
    assert "Already connected" in flow.html
    await flow.send("remove", linked_account_id=account["id"])
    assert flow.title() == "Remove test's access to Volta Energy?"
    await flow.send("confirm")
    assert flow.title() == "Access removed"
    assert f"status=revoked&amp;linkedAccountId={account['id']}" in flow.html
    assert (await linked(api, caller))[0]["status"] == "revoked"
    assert len(await events(api, "device.disconnected")) == 1


# --- credentials at rest -----------------------------------------------------------------------
async def test_credentials_are_encrypted_at_rest(api: Api) -> None:
    caller = await api.caller()
    flow, _ = await start(api, caller, vendor="sandbox-volta")
    await flow.send(**VOLTA)
    [session] = await rows(api, link_sessions)
    assert session["pending_credentials"] is not None
    assert "volta-pass" not in session["pending_credentials"]
    assert "volta-pass" not in repr(session["state"])
    await flow.send(device=["VH-1001"])
    await flow.send("allow")
    [session] = await rows(api, link_sessions)
    assert session["pending_credentials"] is None, "dropped from the session when done"
    [row] = await rows(api, linked_accounts)
    sealed = row["credentials"]
    assert "volta-pass" not in sealed
    assert "user@volta.test" not in sealed
    cipher = api.container.services.linking.cipher
    assert cipher.decrypt(sealed) == VOLTA


def test_a_second_key_decrypts_old_credentials() -> None:
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    sealed = CredentialCipher([old]).encrypt(VOLTA)
    rotating = CredentialCipher([new, old])
    assert rotating.decrypt(sealed) == VOLTA
    rotated = rotating.rotate(sealed)
    assert CredentialCipher([new]).decrypt(rotated) == VOLTA
    with pytest.raises(CredentialsUnreadable):
        CredentialCipher([new]).decrypt(sealed)
    with pytest.raises(SecretKeyError):
        CredentialCipher(["not-a-fernet-key"])


async def test_rotating_reencrypts_stored_credentials(tmp_path: Path, clock: FakeClock) -> None:
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    url = f"sqlite+aiosqlite:///{tmp_path / 'energyhub.db'}"
    first = await build_container(Settings(database_url=url, secret_key=old), clock)
    try:
        async with open_api(first, clock) as api:
            await link(api, await api.caller())
    finally:
        await first.aclose()
    second = await build_container(Settings(database_url=url, secret_key=f"{new}, {old}"), clock)
    try:
        assert await second.services.linking.rotate_credentials() == 1
        async with second.engine.connect() as connection:
            sealed = (await connection.execute(select(linked_accounts.c.credentials))).scalar()
    finally:
        await second.aclose()
    assert CredentialCipher([new]).decrypt(sealed) == VOLTA


def test_without_a_setting_a_key_is_generated_beside_the_database(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'db' / 'e.db'}")
    path = secret_key_file(settings)
    assert path == tmp_path / "db" / ".energyhub" / "secret.key"
    keys = secret_keys(settings)
    assert path.exists()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert secret_keys(settings) == keys, "made once"
    CredentialCipher(keys)
    postgres = Settings(
        database_url="postgresql+asyncpg://db.example/e", data_dir=str(tmp_path / "data")
    )
    assert secret_key_file(postgres) == tmp_path / "data" / "secret.key"
    given = Settings(database_url=settings.database_url, secret_key=" k1 , k2 ")
    assert secret_keys(given) == ["k1", "k2"]


# --- live vendors -------------------------------------------------------------------------------
OCPP = {"charge_point_id": "CP-LINK-1", "password": "a-long-charger-secret"}


async def test_a_live_ocpp_charger_is_commissioned_through_the_link(api: Api) -> None:
    caller = await api.caller(Environment.LIVE)
    flow, _ = await start(api, caller, vendor="ocpp")
    assert flow.title() == "Sign in to OCPP charger"
    await flow.send(charge_point_id="CP LINK", password="short")
    assert flow.errors() == [
        "Use only letters, digits, '.', '_' or '-'.",
        "The charger password must be at least 16 characters.",
    ]
    await flow.send(**OCPP)
    assert flow.title() == "Choose the devices to connect"
    await flow.send(device=["CP-LINK-1"])
    await flow.send("allow")
    assert flow.title() == "Your devices are connected"
    [account] = await linked(api, caller)
    assert account["vendor"] == "ocpp"
    [device_id] = account["deviceIds"]
    charger = await api.get(caller, f"/ev-charger/{device_id}")
    assert charger.status_code == 200, charger.text
    assert charger.json()["data"]["vendor"] == "ocpp"
    [row] = await rows(api, linked_accounts)
    assert OCPP["password"] not in row["credentials"]
    assert [e["payload"]["deviceId"] for e in await events(api, "device.connected")] == [device_id]

    other = await api.caller(Environment.LIVE)
    taken, _ = await start(api, other, vendor="ocpp")
    await taken.send(**{**OCPP, "password": "another-long-secret"})
    assert taken.errors() == [
        "The charge point ID or password is not correct. Check them in the charger's settings."
    ]
    await taken.send(**OCPP)
    await taken.send(device=["CP-LINK-1"])
    await taken.send("allow")
    assert taken.errors()[0].startswith("This charge point ID is connected to another account")


async def test_a_sunspec_battery_that_does_not_answer_is_refused(api: Api) -> None:
    caller = await api.caller(Environment.LIVE)
    flow, _ = await start(api, caller, vendor="sunspec")
    assert 'value="502"' in flow.html, "the Modbus TCP port by default"
    await flow.send(host="bad host", port="70000", unit_id="1")
    assert flow.errors() == [
        "Enter a host name like battery.local or an IP address like 192.168.1.40.",
        "Enter a whole number from 1 to 65535.",
    ]
    await flow.send(host="127.0.0.1", port=str(closed_port()), unit_id="1")
    assert flow.errors()[0].startswith("No SunSpec battery answers at 127.0.0.1:")


async def test_a_live_sunspec_battery_linked_sends_device_connected_once(api: Api) -> None:
    """A battery commissioned by a link sends one `device.connected`, carrying the linked
    account (the link sends it, in the transaction that makes the linked account); linking
    it again is `device.reconnected`."""
    caller = await api.caller(Environment.LIVE)
    async with SunspecPeer(STORAGE_LAYOUT) as peer:
        address = {"host": "127.0.0.1", "port": str(peer.port), "unit_id": "1"}
        for _ in range(2):
            flow, _ = await start(api, caller, vendor="sunspec")
            await flow.send(**address)
            assert flow.title() == "Choose the devices to connect", flow.errors()
            await flow.send(device=[f"127.0.0.1:{peer.port}/1"])
            await flow.send("allow")
            assert flow.title() == "Your devices are connected"
    [account] = await linked(api, caller)
    [device_id] = account["deviceIds"]
    connected = await events(api, "device.connected")
    assert [e["payload"]["deviceId"] for e in connected] == [device_id]
    assert connected[0]["payload"]["linkedAccountId"] == account["id"]
    reconnected = await events(api, "device.reconnected")
    assert [e["payload"]["deviceId"] for e in reconnected] == [device_id]


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port
