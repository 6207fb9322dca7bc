"""API keys and environments: spec 5, CONTRACT 2."""

from __future__ import annotations

from datetime import timedelta

import pytest

from energyhub.domain.accounts import Environment
from tests.support import Api


async def test_missing_key_is_unauthorized(api: Api) -> None:
    response = await api.client.get("/battery")
    assert response.status_code == 401
    body = response.json()
    assert body["success"] is False
    assert body["error"]["code"] == "UNAUTHORIZED"
    assert "x-api-key" in body["error"]["message"]
    assert body["meta"]["path"] == "/battery"


@pytest.mark.parametrize(
    "key",
    ["nonsense", "sk_test_short", "sk_prod_" + "a" * 40, "sk_test_" + "b" * 40],
)
async def test_malformed_or_unknown_key_is_unauthorized(api: Api, key: str) -> None:
    response = await api.client.get("/battery", headers={"x-api-key": key})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "UNAUTHORIZED"


async def test_revoked_key_is_expired_token_on_the_next_request(api: Api) -> None:
    caller = await api.caller()
    assert (await api.get(caller, "/battery")).status_code == 200
    assert await api.container.services.accounts.revoke_key(caller.key_id)
    response = await api.get(caller, "/battery")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "EXPIRED_TOKEN"


async def test_expired_key_is_expired_token(api: Api) -> None:
    accounts = api.container.services.accounts
    account = await accounts.create_account("expiring")
    created = await accounts.create_key(
        account.id, Environment.SANDBOX, expires_at=api.clock.now() + timedelta(hours=1)
    )
    headers = {"x-api-key": created.key}
    assert (await api.client.get("/battery", headers=headers)).status_code == 200
    api.clock.advance(timedelta(hours=1))
    response = await api.client.get("/battery", headers=headers)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "EXPIRED_TOKEN"


async def test_legacy_sandbox_prefix_reaches_the_sandbox(api: Api) -> None:
    accounts = api.container.services.accounts
    account = await accounts.create_account("legacy")
    created = await accounts.create_key(account.id, Environment.SANDBOX, prefix="sk_sandbox_")
    assert created.key.startswith("sk_sandbox_")
    response = await api.client.get("/battery", headers={"x-api-key": created.key})
    assert response.status_code == 200
    assert response.json()["meta"]["environment"] == "sandbox"


async def test_keys_are_stored_as_hashes_only(api: Api) -> None:
    caller = await api.caller()
    async with api.container.engine.connect() as connection:
        from sqlalchemy import select

        from energyhub.persistence.tables import api_keys

        rows = (await connection.execute(select(api_keys))).mappings().all()
    stored = " ".join(str(value) for row in rows for value in row.values())
    assert caller.key not in stored
    assert caller.key[8:] not in stored


async def test_live_and_sandbox_are_separate_worlds(api: Api) -> None:
    sandbox = await api.caller()
    live = await api.key_for(sandbox.account_id, Environment.LIVE)
    device = await api.sandbox_device(sandbox)
    unknown = await api.get(live, "/battery/00000000-0000-0000-0000-000000000000")
    hidden = await api.get(live, f"/battery/{device['id']}")
    assert hidden.status_code == unknown.status_code == 404
    assert hidden.json()["error"]["code"] == "DEVICE_NOT_FOUND"
    assert "description" in hidden.json()["error"]["details"]
    listing = await api.get(live, "/battery")
    assert listing.json()["data"]["items"] == []
    assert listing.json()["meta"]["environment"] == "live"


async def test_another_accounts_device_is_not_found(api: Api) -> None:
    owner = await api.caller()
    stranger = await api.caller()
    device = await api.sandbox_device(owner)
    response = await api.get(stranger, f"/battery/{device['id']}")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "DEVICE_NOT_FOUND"
    users = await api.get(stranger, "/users/user-1/devices")
    assert users.json()["error"]["code"] == "USER_NOT_FOUND"


async def test_sandbox_route_with_live_key_is_sandbox_only(api: Api) -> None:
    sandbox = await api.caller()
    live = await api.key_for(sandbox.account_id, Environment.LIVE)
    response = await api.client.post(
        "/sandbox/devices", json={"type": "battery", "userId": "u"}, headers=live.headers
    )
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "SANDBOX_ONLY"


async def test_docs_need_no_key(api: Api) -> None:
    assert (await api.client.get("/openapi.json")).status_code == 200
    assert (await api.client.get("/docs")).status_code == 200
