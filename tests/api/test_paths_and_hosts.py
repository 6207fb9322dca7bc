"""Paths are matched exactly (an API path with a trailing slash is 404 `NOT_FOUND`, not a
redirect), no `Location` is built from the request's `Host`, and the links the service
hands out start with ENERGYHUB_PUBLIC_URL whatever `Host` the request carried."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from energyhub.config import Settings
from energyhub.persistence.tables import webhook_events
from tests.support import Api

PUBLIC_URL = "https://hub.example.com"
HOSTILE = {"host": "evil.example"}


@pytest.fixture
def settings(database_url: str) -> Settings:
    return Settings(
        database_url=database_url,
        key_cache_ttl_s=0,
        immediate_retry_backoff_s=(0, 0),
        public_url=PUBLIC_URL,
    )


async def test_api_paths_with_a_trailing_slash_answer_404_not_found(api: Api) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    headers = {**caller.headers, **HOSTILE}
    for method, path in [
        ("GET", "/battery/"),
        ("GET", "/ev-charger/"),
        ("GET", f"/battery/{device['id']}/"),
        ("GET", "/actions/"),
        ("GET", "/webhooks/endpoints/"),
        ("GET", "/users/user-1/devices/"),
        ("POST", "/link-sessions/"),
        ("POST", "/sandbox/devices/"),
        ("GET", "/healthz/"),
        ("GET", "/openapi.json/"),
        ("GET", "/docs/"),
        ("GET", "/dashboard/sign-in/"),
        ("GET", "/link/app_x/"),
        ("GET", "/static"),
    ]:
        response = await api.client.request(method, path, headers=headers, json={})
        assert response.status_code == 404, (method, path, response.status_code)
        assert "location" not in response.headers, (method, path)
        if not path.startswith(("/dashboard", "/link/")):  # those two answer pages
            error = response.json()["error"]
            assert error["code"] == "NOT_FOUND", (path, error)


async def test_no_location_carries_the_client_host(api: Api) -> None:
    caller = await api.caller()
    await api.sandbox_device(caller)
    for path in ["/dashboard", "/dashboard/", "/dashboard/sandbox", "/dashboard/sandbox/keys"]:
        response = await api.client.get(path, headers=HOSTILE)
        assert response.status_code in (303, 307), (path, response.status_code)
        location = response.headers["location"]
        assert location.startswith("/dashboard/"), (path, location)
        assert "evil.example" not in location


async def test_link_urls_start_with_the_public_url_whatever_the_host(api: Api) -> None:
    caller = await api.caller()
    headers = {**caller.headers, **HOSTILE}
    created = await api.client.post("/link-sessions", json={"userId": "ada"}, headers=headers)
    assert created.status_code == 201, created.text
    assert created.json()["data"]["linkUrl"].startswith(f"{PUBLIC_URL}/link/")

    device = await api.sandbox_device(caller)
    path = f"/sandbox/devices/{device['id']}/disconnect"
    assert (await api.client.post(path, headers=headers)).status_code == 200
    async with api.container.engine.connect() as connection:
        rows = await connection.execute(
            select(webhook_events.c.payload).where(webhook_events.c.type == "device.disconnected")
        )
        payloads = [row.payload for row in rows]
    assert [p["reconnectionUrl"][: len(PUBLIC_URL) + 6] for p in payloads] == [
        f"{PUBLIC_URL}/link/"
    ]
