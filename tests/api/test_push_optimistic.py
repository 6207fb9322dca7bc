"""PostgreSQL's push hot path reads without a lock and writes only if nothing it read has
changed (persistence/asyncpg_push.py). Here another change lands between a push's read and
its write: the push must see it, as if it had waited for the lock."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from types import TracebackType
from typing import Any, Self

import pytest

from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.actions import Action
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.devices import Device
from energyhub.domain.errors import ApiError
from energyhub.ports.storage import PushUnitOfWork, PushUnitOfWorkFactory, StaleRead
from energyhub.services.actions import PushRequest
from tests.support import Api, Caller

Meanwhile = Callable[[], Awaitable[None]]


class _Interleaved:
    """A push unit of work that runs `meanwhile` once, right after the push's read."""

    def __init__(self, inner: PushUnitOfWork, interleaving: _Interleaving) -> None:
        self._inner = inner
        self._interleaving = interleaving

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def __aenter__(self) -> Self:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if isinstance(exc, StaleRead):  # found before a write inside the unit of work
            self._interleaving.stale += 1
        try:
            await self._inner.__aexit__(exc_type, exc, tb)
        except StaleRead:  # found by the write at the end
            self._interleaving.stale += 1
            raise

    async def device_for_push(
        self, account_id: str, environment: Environment, device_id: str, now: datetime
    ) -> tuple[Device, list[Action]] | None:
        found = await self._inner.device_for_push(account_id, environment, device_id, now)
        meanwhile, self._interleaving.meanwhile = self._interleaving.meanwhile, None
        if meanwhile is not None:
            await meanwhile()
        return None if found is None else (found[0], list(found[1]))


class _Interleaving:
    def __init__(self, inner: PushUnitOfWorkFactory, meanwhile: Meanwhile) -> None:
        self._inner = inner
        self.meanwhile: Meanwhile | None = meanwhile
        self.stale = 0

    def __call__(self) -> PushUnitOfWork:
        return _Interleaved(self._inner(), self)  # type: ignore[return-value]


def _interleave(api: Api, monkeypatch: pytest.MonkeyPatch, meanwhile: Meanwhile) -> _Interleaving:
    if api.container.push_uow is None:
        pytest.skip("SQLite pushes take the write lock first; nothing to interleave")
    actions = api.container.services.actions
    interleaving = _Interleaving(api.container.push_uow, meanwhile)
    monkeypatch.setattr(actions, "_push_uow", interleaving)
    return interleaving


def _principal(caller: Caller) -> Principal:
    return Principal(caller.account_id, Environment.SANDBOX, caller.key_id)


async def _actions_of(api: Api, caller: Caller, device: dict[str, Any]) -> list[dict[str, Any]]:
    listed = (await api.get(caller, "/actions", deviceId=device["id"])).json()["data"]
    items: list[dict[str, Any]] = listed["items"]
    return items


async def test_a_push_landing_between_read_and_write_wins_and_the_other_conflicts(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    landed: list[int] = []

    async def another_push() -> None:
        landed.append((await api.push(caller, device, "idle")).status_code)

    interleaving = _interleave(api, monkeypatch, another_push)
    response = await api.push(caller, device, "charge")
    assert landed == [200]
    assert interleaving.stale == 1, "the first write must have found the device changed"
    assert response.status_code == 409, response.text
    assert response.json()["error"]["code"] in {"CONFLICT_IN_EXECUTION", "ACTION_CONFLICT"}
    actions = await _actions_of(api, caller, device)
    assert [a["command"] for a in actions] == ["idle"]


async def test_a_device_change_between_read_and_write_is_seen(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    until = api.clock.now() + timedelta(hours=1)

    async def vpp_lock() -> None:
        await api.container.services.actions.lock_for_vpp(_principal(caller), device["id"], until)

    interleaving = _interleave(api, monkeypatch, vpp_lock)
    response = await api.push(caller, device, "charge")
    assert interleaving.stale == 1
    assert response.status_code == 423, response.text
    assert response.json()["error"]["code"] == "VPP_LOCKED"
    assert await _actions_of(api, caller, device) == []


async def test_a_replacing_push_rechecks_under_the_lock_before_its_first_write(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    first = await api.push(caller, device, "idle", start="2026-11-20T14:00:00")
    assert first.status_code == 202, first.text
    waiting = first.json()["data"]["id"]

    async def cancel() -> None:
        await api.container.services.actions.cancel(_principal(caller), waiting)

    interleaving = _interleave(api, monkeypatch, cancel)
    response = await api.push(
        caller, device, "charge", start="2026-11-20T14:00:00", onConflict="cancel_and_replace"
    )
    assert interleaving.stale == 1
    assert response.status_code == 202, response.text
    states = {a["id"]: a["state"] for a in await _actions_of(api, caller, device)}
    assert states[waiting] == "cancelled"  # by the client: the push found nothing to replace
    assert states[response.json()["data"]["id"]] == "scheduled"


async def test_an_unchanged_device_takes_one_optimistic_write(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller)

    async def nothing() -> None:
        return None

    interleaving = _interleave(api, monkeypatch, nothing)
    response = await api.push(caller, device, "charge")
    assert response.status_code == 200, response.text
    assert interleaving.stale == 0
    assert [a["command"] for a in await _actions_of(api, caller, device)] == ["charge"]


async def test_50_concurrent_pushes_straight_to_the_service_give_one_action(api: Api) -> None:
    """Without HTTP and authentication in front to stagger them, and with the connection
    pool filled first (a connection being opened delays its push), the reads overlap."""
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    others = [await api.sandbox_device(caller) for _ in range(20)]
    actions = api.container.services.actions
    request = PushRequest(command="charge", parameters={})

    async def push(device_id: str) -> str:
        try:
            await actions.push(_principal(caller), DeviceType.BATTERY, device_id, request)
        except ApiError as error:
            return error.code
        return "ok"

    warm = await asyncio.gather(*(push(other["id"]) for other in others))
    assert set(warm) == {"ok"}
    outcomes = Counter(await asyncio.gather(*(push(device["id"]) for _ in range(50))))
    assert outcomes["ok"] == 1, outcomes
    assert set(outcomes) - {"ok"} <= {"CONFLICT_IN_EXECUTION", "ACTION_CONFLICT"}
    assert len(await _actions_of(api, caller, device)) == 1
