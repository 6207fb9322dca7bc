"""The gateway answers well-formed pushes itself; everything else about a push request goes
on to the FastAPI route. Both must give the same answers."""

from __future__ import annotations

import orjson

from tests.support import Api


async def test_fast_and_framework_paths_agree_on_a_valid_push(api: Api) -> None:
    caller = await api.caller()
    fast_device = await api.sandbox_device(caller, user_id="u1")
    slow_device = await api.sandbox_device(caller, user_id="u2")
    body = orjson.dumps({"action": {"command": "idle"}})
    fast = await api.client.post(
        f"/battery/{fast_device['id']}",
        content=body,
        headers={**caller.headers, "content-type": "application/json"},
    )
    # a charset parameter is still JSON, but the gateway leaves it to the framework
    slow = await api.client.post(
        f"/battery/{slow_device['id']}",
        content=body,
        headers={**caller.headers, "content-type": "application/json; charset=utf-8"},
    )
    assert fast.status_code == slow.status_code == 200
    for response in (fast, slow):
        assert response.headers["x-request-id"]
        assert response.headers["x-ratelimit-limit"]
        assert response.headers["content-type"] == "application/json"
    strip = {"id", "deviceId", "createdAt", "updatedAt", "acknowledgedAt", "start", "links"}
    fast_data = {k: v for k, v in fast.json()["data"].items() if k not in strip}
    slow_data = {k: v for k, v in slow.json()["data"].items() if k not in strip}
    assert fast_data == slow_data


async def test_an_invalid_body_gets_the_routes_error(api: Api) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    response = await api.client.post(
        f"/battery/{device['id']}",
        json={"action": {"command": "idle"}, "surprise": True},
        headers=caller.headers,
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "INVALID_REQUEST"
    assert error["details"]["errors"][0]["path"] == "body.surprise"
    broken = await api.client.post(
        f"/battery/{device['id']}",
        content=b'{"action": ',
        headers={**caller.headers, "content-type": "application/json"},
    )
    assert broken.status_code == 400
    assert broken.json()["error"]["message"]


async def test_a_query_string_goes_to_the_route_and_is_refused(api: Api) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    response = await api.client.post(
        f"/battery/{device['id']}?dryRun=true",
        json={"action": {"command": "idle"}},
        headers=caller.headers,
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "INVALID_REQUEST"


async def test_service_errors_from_the_fast_path_carry_the_envelope(api: Api) -> None:
    caller = await api.caller()
    missing = await api.client.post(
        "/battery/no-such-device", json={"action": {"command": "idle"}}, headers=caller.headers
    )
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "DEVICE_NOT_FOUND"
    assert missing.headers["x-request-id"] == missing.json()["meta"]["requestId"]
    assert missing.headers["x-ratelimit-remaining"]
    device = await api.sandbox_device(caller)
    wrong_type = await api.client.post(
        f"/ev-charger/{device['id']}", json={"action": {"command": "idle"}}, headers=caller.headers
    )
    assert wrong_type.status_code == 404
    unsupported = await api.client.post(
        f"/battery/{device['id']}", json={"action": {"command": "fly"}}, headers=caller.headers
    )
    assert unsupported.status_code == 422
    assert unsupported.json()["error"]["code"] == "UNSUPPORTED_MODE"
