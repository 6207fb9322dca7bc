"""A client of the older variant of the interface, written only against its documented
shapes (an `sk_sandbox_` key, listings with `features.pull`/`features.push`, the codes
`API_KEY_EXPIRED` and `DEVICE_NOT_CAPABLE`). It sends no version header: it predates them.
Tests run it unchanged against the main address and the sandbox address."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
import pytest


class LegacyApiError(Exception):
    def __init__(self, status: int, code: str, details: dict[str, Any]) -> None:
        super().__init__(f"{status} {code}")
        self.status = status
        self.code = code
        self.details = details


@dataclass(frozen=True)
class Feature:
    key: str
    min: float | None
    max: float | None


@dataclass(frozen=True)
class ListedDevice:
    id: str
    state: dict[str, Any]
    pull: list[Feature]
    push: list[Feature]

    def can_push(self, key: str) -> bool:
        return any(f.key == key or f.key.startswith(key + ".") for f in self.push)


def _features(entries: list[dict[str, Any]]) -> list[Feature]:
    return [Feature(e["key"], e["min"], e["max"]) for e in entries]


class LegacyClient:
    def __init__(self, http: httpx.AsyncClient, key: str) -> None:
        assert key.startswith("sk_sandbox_")
        self._http = http
        self._headers = {"x-api-key": key}

    async def _call(self, method: str, path: str, body: Any = None) -> Any:
        response = await self._http.request(method, path, json=body, headers=self._headers)
        envelope = response.json()
        if not envelope["success"]:
            error = envelope["error"]
            raise LegacyApiError(response.status_code, error["code"], error.get("details", {}))
        return envelope["data"]

    async def batteries(self) -> list[ListedDevice]:
        return await self._list("/battery")

    async def ev_chargers(self) -> list[ListedDevice]:
        return await self._list("/ev-charger")

    async def _list(self, path: str) -> list[ListedDevice]:
        data = await self._call("GET", path)
        return [
            ListedDevice(
                item["id"],
                item["state"],
                _features(item["features"]["pull"]),
                _features(item["features"]["push"]),
            )
            for item in data["items"]
        ]

    async def push(self, path: str, command: str, **parameters: Any) -> dict[str, Any]:
        body = {"action": {"command": command, "parameters": parameters}}
        result: dict[str, Any] = await self._call("POST", path, body)
        return result

    async def write_settings(self, path: str, values: dict[str, Any]) -> Any:
        return await self._call("POST", f"{path}/settings", values)


async def legacy_scenario(client: LegacyClient) -> None:
    """What a client of the older variant does with one battery and one charger of its
    account: list them, push what the features allow, and meet refusals it knows."""
    [battery] = await client.batteries()
    [charger] = await client.ev_chargers()
    level = next(f for f in battery.pull if f.key == "level")
    assert (level.min, level.max) == (0, 100)
    assert 0 <= battery.state["level"] <= 100
    power = next(f for f in battery.push if f.key == "charge.power")
    assert power.max is not None
    assert power.min is not None
    assert battery.can_push("idle")
    assert charger.can_push("charge")
    assert not charger.can_push("discharge")
    action = await client.push(
        f"/battery/{battery.id}", "charge", power={"value": power.max, "unit": "kw"}
    )
    assert action["command"] == "charge"
    for path, command in (
        (f"/ev-charger/{charger.id}", "discharge"),
        (f"/battery/{battery.id}", "defrost"),
    ):
        with pytest.raises(LegacyApiError) as refused:
            await client.push(path, command)
        assert (refused.value.status, refused.value.code) == (422, "DEVICE_NOT_CAPABLE")
    with pytest.raises(LegacyApiError) as setting:
        await client.write_settings(f"/battery/{battery.id}", {"defrost": {"value": True}})
    assert (setting.value.status, setting.value.code) == (422, "DEVICE_NOT_CAPABLE")
    assert "safety_reserve" in setting.value.details["availableSettings"]
