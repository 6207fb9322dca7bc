"""Input a hostile or careless client sends (issue 12, defects 2 and 7), over HTTP on SQLite
and PostgreSQL: the NUL character in every place a value comes from (PostgreSQL cannot
store it: it was a 500 there), and bodies that are not UTF-8 JSON. Each is refused at the
edge with a code that names the problem, the same on both databases, without a traceback."""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest

from tests.api.test_dashboard import add_member, browser_for, sign_in
from tests.api.test_linking import start
from tests.support import Api, Caller

NUL = "\x00"


def assert_nul_refused(response: httpx.Response, *paths: str) -> None:
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "INVALID_REQUEST"
    assert [e["path"] for e in error["details"]["errors"]] == list(paths)
    assert "NUL" in error["message"]


def assert_no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    logged = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not logged, [r.getMessage() for r in logged]


@pytest.fixture
async def caller_with_devices(api: Api) -> tuple[Caller, dict[str, Any], dict[str, Any]]:
    caller = await api.caller()
    return caller, await api.sandbox_device(caller), await api.sandbox_device(caller, "ev-charger")


async def test_a_nul_in_any_body_field_is_refused_naming_the_field(
    api: Api,
    caller_with_devices: tuple[Caller, dict[str, Any], dict[str, Any]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caller, battery, charger = caller_with_devices
    push = f"/battery/{battery['id']}"
    cases: list[tuple[str, str, Any, list[str]]] = [
        ("POST", "/sandbox/devices", {"type": "battery", "userId": f"u{NUL}"}, ["body.userId"]),
        # the gateway's fast path takes this push: it must refuse it too
        ("POST", push, {"action": {"command": f"charge{NUL}"}}, ["body.action.command"]),
        (
            "POST",
            push,
            {
                "action": {"command": "idle"},
                "sandbox": {"result": "failed", "errorCode": f"X{NUL}"},
            },
            ["body.sandbox.errorCode"],
        ),
        (
            "POST",
            f"/ev-charger/{charger['id']}/settings",
            {f"cable{NUL}lock": {"value": True}},
            ["body.cable\\u0000lock"],
        ),
        ("POST", "/link-sessions", {"userId": "u", "vendor": f"x{NUL}"}, ["body.vendor"]),
        (
            "POST",
            "/webhooks/endpoints",
            {"url": "http://127.0.0.1:9/hook", "description": f"d{NUL}", "events": [f"e{NUL}"]},
            ["body.description", "body.events.0"],
        ),
        (
            "PUT",
            f"{push}/schedule",
            {"slots": [{"at": "2026-12-01T00:00:00Z", "duration": "PT1H", "command": f"c{NUL}"}]},
            ["body.slots.0.command"],
        ),
    ]
    for method, path, body, fields in cases:
        response = await api.client.request(method, path, json=body, headers=caller.headers)
        assert_nul_refused(response, *fields)
    assert_no_traceback(caplog)


async def test_a_nul_in_a_query_parameter_is_refused_naming_it(
    api: Api,
    caller_with_devices: tuple[Caller, dict[str, Any], dict[str, Any]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caller, battery, charger = caller_with_devices
    for path, params, field in [
        ("/battery", {"userId": f"u{NUL}"}, "query.userId"),
        ("/actions", {"deviceId": f"d{NUL}"}, "query.deviceId"),
        ("/webhooks/deliveries", {"endpointId": f"e{NUL}"}, "query.endpointId"),
        (f"/battery/{battery['id']}", {"expedite": f"true{NUL}"}, "query.expedite"),
        (f"/ev-charger/{charger['id']}/sessions", {"to": f"2026{NUL}"}, "query.to"),
    ]:
        response = await api.client.get(path, params=params, headers=caller.headers)
        assert_nul_refused(response, field)
    assert_no_traceback(caplog)


async def test_a_nul_in_a_path_id_is_not_found(
    api: Api,
    caller_with_devices: tuple[Caller, dict[str, Any], dict[str, Any]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caller, _battery, _charger = caller_with_devices
    for method, path in [
        ("GET", "/battery/b%00"),
        ("POST", "/battery/b%00"),  # a push, on the gateway's fast path
        ("POST", "/ev-charger/c%00/settings"),
        ("GET", "/actions/a%00"),
        ("POST", "/actions/a%00/cancel"),
        ("GET", "/users/u%00/devices"),
        ("GET", "/users/u%00/linked-accounts"),
        ("GET", "/webhooks/endpoints/e%00"),
        ("GET", "/webhooks/deliveries/d%00"),
        ("GET", "/vehicles/v%00"),
        ("PUT", "/battery/b%00/schedule"),
    ]:
        body = {"action": {"command": "idle"}} if method != "GET" else None
        response = await api.client.request(method, path, json=body, headers=caller.headers)
        assert response.status_code == 404, (method, path, response.text)
        assert response.json()["error"]["code"] == "NOT_FOUND"
    assert_no_traceback(caplog)


async def test_an_escaped_backslash_before_u0000_is_plain_text(api: Api) -> None:
    """`\\\\u0000` in JSON is a backslash and `u0000`, not a NUL: it is accepted."""
    caller = await api.caller()
    response = await api.client.post(
        "/sandbox/devices",
        content=b'{"type": "battery", "userId": "a\\\\u0000b"}',
        headers={**caller.headers, "content-type": "application/json"},
    )
    assert response.status_code == 201, response.text
    assert response.json()["data"]["userId"] == "a\\u0000b"


async def test_a_method_a_path_does_not_take_is_405_whatever_its_body_holds(
    caller_with_devices: tuple[Caller, dict[str, Any], dict[str, Any]], api: Api
) -> None:
    """The router's 405 comes first: the body of a request no route takes is not read."""
    caller, battery, _ = caller_with_devices
    for method, body in [("POST", f'{{"a": "{NUL}"}}'), ("TRACE", '{"a": 1}'), ("PATCH", "{no")]:
        response = await api.client.request(
            method,
            f"/battery/{battery['id']}/schedule",
            content=body.encode(),
            headers={**caller.headers, "content-type": "application/json"},
        )
        assert response.status_code == 405, (method, response.text)
        assert response.json()["error"]["code"] == "METHOD_NOT_ALLOWED"


async def test_the_dashboard_sign_in_and_forms_refuse_a_nul(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    caller = await api.caller()
    email = await add_member(api, caller)
    async with await browser_for(api.container) as browser:
        refused = await sign_in(browser, f"ops{NUL}@acme.example")
        assert refused.status_code == 400, refused.text
        assert "NUL" in refused.text
        assert refused.headers["content-type"].startswith("text/html")
        assert (await browser.get("/dashboard/sign-in", params={"next": NUL})).status_code == 400
        assert (await sign_in(browser, email)).status_code == 303
        page = await browser.get("/dashboard/sandbox/webhooks")
        csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
        added = await browser.post(
            "/dashboard/sandbox/webhooks",
            data={"csrf": csrf, "url": "http://127.0.0.1:9/hook", "description": f"d{NUL}"},
        )
        assert added.status_code == 400, added.text
        assert "description" in added.text
        for path in ["/dashboard/sandbox/devices/d%00", "/dashboard/sandbox/deliveries/x%00"]:
            assert (await browser.get(path)).status_code == 404, path
        listing = await browser.get("/dashboard/sandbox/deliveries", params={"status": NUL})
        assert listing.status_code == 400
    assert not await api.container.services.webhooks.list_endpoints(_principal(caller)), (
        "nothing was stored"
    )
    assert_no_traceback(caplog)


async def test_the_link_pages_refuse_a_nul(api: Api, caplog: pytest.LogCaptureFixture) -> None:
    caller = await api.caller()
    flow, _ = await start(api, caller)
    sent = await flow.send(deviceType=f"battery{NUL}")
    assert sent.status_code == 400, sent.text
    assert "NUL" in sent.text
    assert (await api.client.get(f"{flow.path}?token={flow.token}%00")).status_code == 400
    assert (await api.client.get(f"{flow.path}%00?token={flow.token}")).status_code == 404
    assert_no_traceback(caplog)


def _principal(caller: Caller) -> Any:
    from energyhub.domain.accounts import Environment, Principal

    return Principal(caller.account_id, Environment.SANDBOX, caller.key_id)


# --- bodies that are not UTF-8 JSON -------------------------------------------------------


@pytest.mark.parametrize(
    ("content_type", "encoding", "status", "code"),
    [
        ("application/json; charset=utf-16", "utf-16", 415, "UNSUPPORTED_MEDIA_TYPE"),
        ("application/json", "utf-16", 400, "INVALID_REQUEST"),
        ("application/json", "utf-16-le", 400, "INVALID_REQUEST"),  # no BOM: NUL bytes
        ("application/json", "utf-32", 400, "INVALID_REQUEST"),
        ("application/json; charset=latin-1", "latin-1", 415, "UNSUPPORTED_MEDIA_TYPE"),
        ("application/json", "latin-1", 400, "INVALID_REQUEST"),
        ("application/jsonx", "utf-8", 415, "UNSUPPORTED_MEDIA_TYPE"),
        ("text/plain", "utf-8", 415, "UNSUPPORTED_MEDIA_TYPE"),
        ("application/x-www-form-urlencoded", "utf-8", 415, "UNSUPPORTED_MEDIA_TYPE"),
        (None, "utf-8", 415, "UNSUPPORTED_MEDIA_TYPE"),
    ],
)
async def test_only_utf8_json_bodies_are_read(
    api: Api,
    caller_with_devices: tuple[Caller, dict[str, Any], dict[str, Any]],
    content_type: str | None,
    encoding: str,
    status: int,
    code: str,
) -> None:
    """The same answer on the push fast path as on a FastAPI route."""
    caller, battery, _ = caller_with_devices
    headers = {**caller.headers, **({"content-type": content_type} if content_type else {})}
    for path, text in [
        (f"/battery/{battery['id']}", '{"action": {"command": "id\u00e9le"}}'),
        ("/sandbox/devices", '{"type": "battery", "userId": "h\u00e9l\u00e8ne"}'),
    ]:
        response = await api.client.post(path, content=text.encode(encoding), headers=headers)
        assert response.status_code == status, (path, response.text)
        error = response.json()["error"]
        assert error["code"] == code
        assert ("content-type: application/json" if status == 415 else "UTF-8") in error["message"]


@pytest.mark.parametrize(
    "content_type",
    [
        "application/json",
        "application/json; charset=utf-8",
        'application/json; charset="UTF-8"',
        "Application/JSON",
        "application/merge-patch+json",
    ],
)
async def test_json_content_types_are_read(api: Api, content_type: str) -> None:
    caller = await api.caller()
    response = await api.client.post(
        "/sandbox/devices",
        content='{"type": "battery", "userId": "h\u00e9l\u00e8ne"}'.encode(),
        headers={**caller.headers, "content-type": content_type},
    )
    assert response.status_code == 201, response.text
