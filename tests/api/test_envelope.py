"""Envelopes, meta, request ids and the errors nobody names in the spec (CONTRACT 1)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime

import httpx
import pytest

from energyhub.bootstrap import build_app
from energyhub.domain.devices import Device
from energyhub.domain.readings import DeviceReading
from tests.support import Api


async def test_success_envelope_and_meta(api: Api) -> None:
    caller = await api.caller()
    response = await api.get(caller, "/battery")
    body = response.json()
    assert body["success"] is True
    assert set(body["meta"]) == {"requestId", "environment", "timestamp", "latencyMs"}
    assert body["meta"]["environment"] == "sandbox"
    assert body["meta"]["timestamp"] == "2026-11-20T12:00:00.000Z"
    assert body["meta"]["latencyMs"] >= 0
    assert response.headers["x-request-id"] == body["meta"]["requestId"]


async def test_failure_meta_carries_path(api: Api) -> None:
    caller = await api.caller()
    response = await api.get(caller, "/battery/missing")
    body = response.json()
    assert set(body["meta"]) == {"requestId", "timestamp", "path", "latencyMs"}
    assert body["meta"]["path"] == "/battery/missing"
    assert response.headers["x-request-id"] == body["meta"]["requestId"]


@pytest.mark.parametrize(
    ("sent", "echoed"), [("abc-123_X.y", True), ("bad id!", False), ("x" * 65, False)]
)
async def test_request_id_is_echoed_when_well_formed(api: Api, sent: str, echoed: bool) -> None:
    caller = await api.caller()
    response = await api.client.get("/battery", headers={**caller.headers, "x-request-id": sent})
    assert (response.headers["x-request-id"] == sent) is echoed
    assert response.json()["meta"]["requestId"] == response.headers["x-request-id"]


async def test_malformed_json_is_invalid_request(api: Api) -> None:
    caller = await api.caller()
    response = await api.client.post(
        "/sandbox/devices",
        content=b'{"type": "battery",',
        headers={**caller.headers, "content-type": "application/json"},
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "INVALID_REQUEST"
    assert error["details"]["errors"][0]["path"].startswith("body")


async def test_body_of_wrong_shape_lists_each_error(api: Api) -> None:
    caller = await api.caller()
    response = await api.client.post(
        "/sandbox/devices", json={"type": "battery", "extra": 1}, headers=caller.headers
    )
    assert response.status_code == 400
    paths = {e["path"] for e in response.json()["error"]["details"]["errors"]}
    assert paths == {"body.userId", "body.extra"}
    wrong_type = await api.client.post(
        "/sandbox/devices", json={"type": "toaster", "userId": "u"}, headers=caller.headers
    )
    assert wrong_type.status_code == 400
    [error] = wrong_type.json()["error"]["details"]["errors"]
    assert "toaster" in error["message"]


@pytest.mark.parametrize(
    "query",
    [
        "limit=0",
        "limit=51",
        "limit=abc",
        "offset=-1",
        "limt=5",
        "expedite=true",
        "userId=a&userId=b",
        "limit=5&limit=6",
    ],
)
async def test_bad_query_parameter_is_invalid_request(api: Api, query: str) -> None:
    caller = await api.caller()
    response = await api.client.get(f"/battery?{query}", headers=caller.headers)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "INVALID_REQUEST"
    assert error["details"]["errors"][0]["path"].startswith("query.")


async def test_a_list_parameter_may_repeat(api: Api) -> None:
    caller = await api.caller()
    await api.sandbox_device(caller, user_id="u1")
    response = await api.client.get(
        "/users/u1/devices?type=battery&type=ev-charger", headers=caller.headers
    )
    assert response.status_code == 200, response.text
    assert len(response.json()["data"]["devices"]) == 1


async def test_bad_expedite_value_is_invalid_request(api: Api) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    response = await api.get(caller, f"/battery/{device['id']}", expedite="soon")
    assert response.status_code == 400
    assert response.json()["error"]["details"]["errors"][0]["path"] == "query.expedite"


async def test_unknown_route_is_not_found(api: Api) -> None:
    caller = await api.caller()
    response = await api.get(caller, "/batteries/x/y")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


async def test_wrong_method_is_method_not_allowed_with_every_allowed_method(api: Api) -> None:
    caller = await api.caller()
    response = await api.client.delete("/sandbox/devices", headers=caller.headers)
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "METHOD_NOT_ALLOWED"
    assert response.headers["allow"] == "POST"


async def test_oversized_body_is_payload_too_large(api: Api) -> None:
    caller = await api.caller()
    big = b'{"type": "battery", "userId": "' + b"x" * (64 * 1024) + b'"}'
    response = await api.client.post(
        "/sandbox/devices",
        content=big,
        headers={**caller.headers, "content-type": "application/json"},
    )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "PAYLOAD_TOO_LARGE"


async def test_oversized_chunked_body_is_payload_too_large(api: Api) -> None:
    caller = await api.caller()

    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(20):
            yield b"x" * 4096

    response = await api.client.post(
        "/sandbox/devices",
        content=chunks(),
        headers={**caller.headers, "content-type": "application/json"},
    )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "PAYLOAD_TOO_LARGE"


async def test_small_chunked_body_is_read(api: Api) -> None:
    caller = await api.caller()

    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"type": "battery",'
        yield b' "userId": "chunky"}'

    response = await api.client.post(
        "/sandbox/devices",
        content=chunks(),
        headers={**caller.headers, "content-type": "application/json"},
    )
    assert response.status_code == 201, response.text


class ExplodingDriver:
    instant = False

    async def read(self, device: Device, now: datetime) -> DeviceReading:
        raise RuntimeError("secret internal detail")


async def test_unexpected_failure_is_internal_error_without_a_trace(api: Api) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    api.container.drivers["sandbox"] = ExplodingDriver()  # type: ignore[assignment]
    transport = httpx.ASGITransport(app=build_app(api.container), raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        response = await client.get(
            f"/battery/{device['id']}", params={"expedite": "true"}, headers=caller.headers
        )
        api.clock.advance(3600)
        response = await client.get(f"/battery/{device['id']}", headers=caller.headers)
    assert response.status_code == 500
    body = response.json()
    assert body["error"]["code"] == "INTERNAL_ERROR"
    assert "secret" not in response.text
    assert response.headers["x-request-id"] == body["meta"]["requestId"]
