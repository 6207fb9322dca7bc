"""List items serialised once per device (api/representations.py `list_item_json`): a page
of unchanged devices reuses their items, in the version each request asks for, and a push,
a pull or a version switch shows in the next page as a full read shows it."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from energyhub.api.representations import list_item_json
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.versions import ApiVersion
from tests.support import Api, Caller

LEGACY = {"energyhub-version": "legacy"}


async def _page(api: Api, caller: Caller, path: str, **headers: str) -> list[dict[str, Any]]:
    response = await api.client.get(path, headers={**caller.headers, **headers})
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["data"]["items"]
    return items


async def _read(api: Api, caller: Caller, path: str) -> dict[str, Any]:
    response = await api.client.get(path, headers=caller.headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()["data"]
    del body["metadata"]["cacheType"]
    return body


async def test_a_device_is_serialised_once_per_version(api: Api) -> None:
    caller = await api.caller()
    await api.sandbox_device(caller)
    listed = await api.container.services.devices.list_page(
        (await api.container.services.accounts.authenticate(caller.key)),
        [DeviceType.BATTERY],
        None,
        0,
        10,
    )
    device = listed.devices[0]
    v1 = list_item_json(device, None, ApiVersion.V1)
    assert list_item_json(device, None, ApiVersion.V1) is v1
    legacy = list_item_json(device, None, ApiVersion.LEGACY)
    assert b'"features"' in legacy
    assert b'"commands"' not in legacy
    assert list_item_json(device, None, ApiVersion.V1) is v1


async def test_changes_and_versions_show_in_the_next_page(api: Api) -> None:
    caller = await api.caller()
    battery = (await api.sandbox_device(caller))["id"]
    charger = (await api.sandbox_device(caller, "ev-charger"))["id"]
    [item] = await _page(api, caller, "/battery")
    assert item == await _read(api, caller, f"/battery/{battery}")
    [legacy] = await _page(api, caller, "/battery", **LEGACY)
    assert "features" in legacy
    assert "commands" not in legacy
    [item] = await _page(api, caller, "/battery")
    assert "commands" in item
    assert "lastAction" not in item

    pushed = await api.client.post(
        f"/battery/{battery}", json={"action": {"command": "charge"}}, headers=caller.headers
    )
    assert pushed.status_code in (200, 202), pushed.text
    [item] = await _page(api, caller, "/battery")
    assert item["lastAction"]["id"] == pushed.json()["data"]["id"]
    assert item == await _read(api, caller, f"/battery/{battery}")

    api.clock.advance(timedelta(hours=1))  # the next read pulls: a new state and pull time
    pulled = await _read(api, caller, f"/ev-charger/{charger}")
    [item] = await _page(api, caller, "/ev-charger")
    assert pulled["metadata"]["source"] == "live"
    assert item == {**pulled, "metadata": {**pulled["metadata"], "source": "cache"}}
