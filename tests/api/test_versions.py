"""API versions over HTTP (CONTRACT 13): the `energyhub-version` header on every kind of
answer, UNSUPPORTED_VERSION, keys pinned and moved, and every mapped code in both versions."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from energyhub.api.gateway import Gateway
from energyhub.bootstrap import build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment
from energyhub.domain.clock import FakeClock
from energyhub.domain.versions import DEPRECATED_SINCE, ApiVersion
from tests.support import Api, Caller, open_api

LEGACY = {"energyhub-version": "legacy"}
V1 = {"energyhub-version": "1.0"}
DEPRECATION = f"@{int(DEPRECATED_SINCE[ApiVersion.LEGACY].timestamp())}"


def _answered_in(response: httpx.Response, version: str) -> None:
    assert response.headers["energyhub-version"] == version, response.text
    if version == "legacy":
        assert response.headers["deprecation"] == DEPRECATION
    else:
        assert "deprecation" not in response.headers
    assert "sunset" not in response.headers


async def _get(api: Api, caller: Caller, path: str, **headers: str) -> httpx.Response:
    return await api.client.get(path, headers={**caller.headers, **headers})


async def test_a_key_answers_in_its_version_and_a_header_picks_another(api: Api) -> None:
    caller = await api.caller()
    _answered_in(await _get(api, caller, "/battery"), "1.0")
    _answered_in(await _get(api, caller, "/battery", **V1), "1.0")
    _answered_in(await _get(api, caller, "/battery", **LEGACY), "legacy")
    _answered_in(await api.client.get("/healthz", headers=LEGACY), "1.0")


@pytest.mark.parametrize("value", ["2.0", "Legacy", "", "1", "legacy,1.0"])
async def test_an_unknown_version_is_refused_in_1_0(api: Api, value: str) -> None:
    caller = await api.caller()
    legacy_key = await api.container.services.accounts.create_key(
        caller.account_id, Environment.SANDBOX, prefix="sk_sandbox_"
    )
    for key in (caller.key, legacy_key.key):
        response = await api.client.get(
            "/battery", headers={"x-api-key": key, "energyhub-version": value}
        )
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["code"] == "UNSUPPORTED_VERSION"
        assert error["details"]["supportedVersions"] == ["1.0", "legacy"]
        _answered_in(response, "1.0")
        assert "x-ratelimit-limit" in response.headers


async def test_sandbox_prefix_keys_are_legacy_and_can_be_moved(api: Api) -> None:
    accounts = api.container.services.accounts
    caller = await api.caller()
    created = await accounts.create_key(
        caller.account_id, Environment.SANDBOX, prefix="sk_sandbox_"
    )
    assert created.api_key.api_version is ApiVersion.LEGACY
    legacy = Caller(caller.account_id, created.key, created.api_key.id)
    await api.sandbox_device(legacy)
    listing = await _get(api, legacy, "/battery")
    _answered_in(listing, "legacy")
    assert "features" in listing.json()["data"]["items"][0]
    overridden = await _get(api, legacy, "/battery", **V1)
    _answered_in(overridden, "1.0")
    assert "commands" in overridden.json()["data"]["items"][0]
    moved = await accounts.set_key_version(created.api_key.id, ApiVersion.V1, caller.account_id)
    assert moved is not None
    assert moved.api_version is ApiVersion.V1
    _answered_in(await _get(api, legacy, "/battery"), "1.0")
    listed = {k.id: k.api_version for k in await accounts.list_keys(caller.account_id)}
    assert listed == {caller.key_id: ApiVersion.V1, created.api_key.id: ApiVersion.V1}
    assert await accounts.set_key_version("key_nope", ApiVersion.V1) is None
    assert await accounts.set_key_version(caller.key_id, ApiVersion.V1, "acc_other") is None
    pinned = await accounts.create_key(
        caller.account_id, Environment.LIVE, None, None, ApiVersion.LEGACY
    )
    assert pinned.api_key.api_version is ApiVersion.LEGACY


async def test_listings_differ_and_single_reads_do_not(api: Api) -> None:
    caller = await api.caller()
    battery = await api.sandbox_device(caller)
    charger = await api.sandbox_device(caller, "ev-charger")
    for path, device in (("/battery", battery), ("/ev-charger", charger)):
        v1 = (await _get(api, caller, path)).json()["data"]
        legacy = (await _get(api, caller, path, **LEGACY)).json()["data"]
        assert legacy["pagination"] == v1["pagination"]
        [v1_item], [legacy_item] = v1["items"], legacy["items"]
        assert "commands" not in legacy_item
        assert "features" not in v1_item
        assert {k: v for k, v in legacy_item.items() if k != "features"} == {
            k: v for k, v in v1_item.items() if k != "commands"
        }
        assert [e["key"] for e in legacy_item["features"]["pull"]] == list(v1_item["state"])
        one = f"{path}/{device['id']}"
        v1_read = (await _get(api, caller, one)).json()["data"]
        legacy_read = (await _get(api, caller, one, **LEGACY)).json()["data"]
        assert legacy_read == v1_read


async def _refusal(api: Api, caller: Caller, kind: str, headers: dict[str, str]) -> httpx.Response:
    """One request refused with the 1.0 code `kind`."""
    sent = {**caller.headers, **headers}
    if kind == "SESSIONS_NOT_SUPPORTED":
        device = await api.sandbox_device(caller, "ev-charger", profile="ev-charger-basic")
        return await api.client.get(f"/ev-charger/{device['id']}/sessions", headers=sent)
    if kind in {"UNSUPPORTED_SETTING", "READ_ONLY_SETTING"}:
        device = await api.sandbox_device(caller)
        key = "defrost" if kind == "UNSUPPORTED_SETTING" else "scheduler_enabled"
        return await api.client.post(
            f"/battery/{device['id']}/settings", json={key: {"value": False}}, headers=sent
        )
    bodies: dict[str, dict[str, Any]] = {
        "UNSUPPORTED_MODE": {"action": {"command": "defrost"}},
        "UNSUPPORTED_PARAMETER": {
            "action": {"command": "idle", "parameters": {"power": {"value": 1, "unit": "kw"}}}
        },
        "EXECUTION_NOT_SUPPORTED": {"action": {"command": "idle"}, "end": "2026-11-20T14:00:00"},
        "UNSUPPORTED_CONFLICT_STRATEGY": {
            "action": {"command": "idle"},
            "onConflict": "queue_after",
        },
    }
    profile = "battery-minimal" if kind == "UNSUPPORTED_CONFLICT_STRATEGY" else None
    device = await api.sandbox_device(caller, profile=profile)
    return await api.client.post(f"/battery/{device['id']}", json=bodies[kind], headers=sent)


CAPABILITY_REFUSALS = [
    ("UNSUPPORTED_MODE", "supportedModes"),
    ("UNSUPPORTED_PARAMETER", "supportedParameters"),
    ("EXECUTION_NOT_SUPPORTED", "supportedExecution"),
    ("SESSIONS_NOT_SUPPORTED", None),
    ("UNSUPPORTED_SETTING", "availableSettings"),
    ("UNSUPPORTED_CONFLICT_STRATEGY", "supportedStrategies"),
    ("READ_ONLY_SETTING", "setting"),
]


@pytest.mark.parametrize(("code", "detail"), CAPABILITY_REFUSALS)
async def test_capability_refusals_in_both_versions(
    api: Api, code: str, detail: str | None
) -> None:
    caller = await api.caller()
    v1 = await _refusal(api, caller, code, {})
    assert v1.status_code == 422
    assert v1.json()["error"]["code"] == code
    _answered_in(v1, "1.0")
    legacy = await _refusal(api, caller, code, LEGACY)
    assert legacy.status_code == 422
    error = legacy.json()["error"]
    assert error["code"] == "DEVICE_NOT_CAPABLE"
    assert error["details"]["reason"] == code
    assert error["message"] == v1.json()["error"]["message"]
    _answered_in(legacy, "legacy")
    v1_details = v1.json()["error"].get("details", {})
    assert {k: v for k, v in error["details"].items() if k != "reason"} == v1_details
    if detail is not None:
        assert detail in error["details"]


async def test_expired_key_in_both_versions(api: Api) -> None:
    accounts = api.container.services.accounts
    caller = await api.caller()
    legacy = await accounts.create_key(caller.account_id, Environment.SANDBOX, prefix="sk_sandbox_")
    for key_id in (caller.key_id, legacy.api_key.id):
        assert await accounts.revoke_key(key_id)
    cases = [
        (caller.key, {}, "EXPIRED_TOKEN", "1.0"),
        (caller.key, LEGACY, "API_KEY_EXPIRED", "legacy"),
        (legacy.key, {}, "API_KEY_EXPIRED", "legacy"),
        (legacy.key, V1, "EXPIRED_TOKEN", "1.0"),
    ]
    for key, headers, code, version in cases:
        response = await api.client.get("/battery", headers={"x-api-key": key, **headers})
        assert response.status_code == 401
        assert response.json()["error"]["code"] == code
        _answered_in(response, version)


@pytest.mark.parametrize("version", ["1.0", "legacy"])
async def test_the_header_is_on_every_kind_of_answer(
    api: Api, version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    caller = await api.caller()
    asked = {"energyhub-version": version}
    device = await api.sandbox_device(caller)
    path = f"/battery/{device['id']}"
    fast: list[str] = []
    full_reads = _counting(monkeypatch, api.container.services.devices, "read", fast)
    pushes = _counting(monkeypatch, Gateway, "_serve_push", fast)
    api.container.services.read_cache.clear()
    await _get(api, caller, path, **asked)  # fills the read cache
    hit = await _get(api, caller, path, **asked)
    assert hit.status_code == 200
    assert full_reads() == 1, "a cache hit of the gateway"
    _answered_in(hit, version)
    pushed = await api.client.post(
        path, json={"action": {"command": "idle"}}, headers={**caller.headers, **asked}
    )
    assert pushed.status_code == 200
    assert pushes() == 1, "the gateway's fast push"
    _answered_in(pushed, version)
    answers = {
        "unknown route": await _get(api, caller, "/nowhere", **asked),
        "unknown device": await _get(api, caller, "/battery/nope", **asked),
        "no key": await api.client.get("/battery", headers=asked),
        "bad body": await api.client.post(
            path,
            content=b"{",
            headers={**caller.headers, **asked, "content-type": "application/json"},
        ),
        "wrong method": await api.client.delete("/battery", headers={**caller.headers, **asked}),
        "too large": await api.client.post(
            path, content=b"x" * 70_000, headers={**caller.headers, **asked}
        ),
        "route": await _get(api, caller, f"/actions/{pushed.json()['data']['id']}", **asked),
    }
    statuses = {name: r.status_code for name, r in answers.items()}
    assert statuses == {
        "unknown route": 404,
        "unknown device": 404,
        "no key": 401,
        "bad body": 400,
        "wrong method": 405,
        "too large": 413,
        "route": 200,
    }
    for response in answers.values():
        _answered_in(response, version)


def _counting(
    monkeypatch: pytest.MonkeyPatch, owner: object, name: str, calls: list[str]
) -> Callable[[], int]:
    """Counts the calls of `owner.name` (which still runs)."""
    original: Callable[..., Awaitable[Any]] = getattr(owner, name)
    mine: list[str] = []

    async def counted(*args: Any, **kwargs: Any) -> Any:
        mine.append(name)
        calls.append(name)
        return await original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return lambda: len(mine)


@pytest.fixture
async def limited(database_url: str, clock: FakeClock) -> AsyncIterator[Api]:
    """One request a minute, and a sunset date for legacy."""
    settings = Settings(
        database_url=database_url,
        rate_limit_sandbox=1,
        legacy_sunset=datetime(2027, 12, 31, tzinfo=UTC),
    )
    container = await build_container(settings, clock)
    try:
        async with open_api(container, clock) as opened:
            yield opened
    finally:
        await container.aclose()


async def test_rate_limit_refusals_and_the_sunset(limited: Api) -> None:
    caller = await limited.caller()
    first = await _get(limited, caller, "/battery", **LEGACY)
    assert first.status_code == 200
    assert first.headers["sunset"] == "Fri, 31 Dec 2027 00:00:00 GMT"
    assert first.headers["deprecation"] == DEPRECATION
    for headers, version in ((LEGACY, "legacy"), ({}, "1.0")):
        refused = await _get(limited, caller, "/battery", **headers)
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "RATE_LIMITED"
        assert refused.headers["energyhub-version"] == version
        assert ("sunset" in refused.headers) is (version == "legacy")
