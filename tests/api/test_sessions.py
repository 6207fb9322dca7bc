"""Charging sessions over HTTP: spec 2.6, 4.8; CONTRACT 6 (window, status, paging with the
echoed `to`, SESSIONS_NOT_SUPPORTED, sessions stored as the charger reports them)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from energyhub.api.schedule_schemas import SessionsPage
from energyhub.api.schemas import Envelope
from energyhub.domain.clock import isoformat_utc
from energyhub.domain.sessions import ChargingSession, Measurement, SessionStatus
from energyhub.drivers.sandbox.sessions import SandboxCharger, sessions_between
from tests.support import Api, Caller

# The fake clock starts at 2026-11-20 12:00Z; a sandbox charger's default program charges
# the plugged-in car in the evening (18:00-22:00 UTC), so no session runs at noon.
NOON = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
SESSION_KEYS = {
    "id",
    "status",
    "startedAt",
    "endedAt",
    "energyDelivered",
    "measurement",
    "cost",  # null: no charging strategy ran (see test_strategy_runner for the others)
    "energyFromSurplus",
}


async def _charger(api: Api, profile: str | None = None) -> tuple[Caller, dict[str, Any]]:
    caller = await api.caller()
    device = await api.sandbox_device(caller, "ev-charger", profile=profile)
    return caller, device


async def _sessions(api: Api, caller: Caller, device: dict[str, Any], **params: Any) -> Any:
    response = await api.get(caller, f"/ev-charger/{device['id']}/sessions", **params)
    assert response.status_code == 200, response.text
    Envelope[SessionsPage].model_validate(response.json())  # as documented
    return response.json()["data"]


def _ids(data: dict[str, Any]) -> list[str]:
    return [item["id"] for item in data["items"]]


async def _stored(api: Api, session_ids: list[str]) -> dict[str, ChargingSession]:
    async with api.container.uow() as tx:
        return await tx.sessions.get_many(session_ids)


async def test_default_window_is_the_last_30_days_newest_first(api: Api) -> None:
    caller, device = await _charger(api)
    data = await _sessions(api, caller, device, limit=50)
    assert data["window"] == {
        "from": isoformat_utc(NOON - timedelta(days=30)),
        "to": isoformat_utc(NOON),
    }
    items = data["items"]
    assert data["pagination"] == {
        "limit": 50,
        "offset": 0,
        "total": len(items),
        "hasMore": False,
    }
    assert 30 <= len(items) <= 50, "30 days of history: one evening session a day and more"
    keys = [(item["startedAt"], item["id"]) for item in items]
    assert keys == sorted(keys, reverse=True)
    for item in items:
        assert SESSION_KEYS <= set(item) <= SESSION_KEYS | {"endReason"}
        assert (item["cost"], item["energyFromSurplus"]) == (None, None)
        assert item["status"] == "completed"
        assert item["energyDelivered"]["unit"] == "kwh"
        assert item["energyDelivered"]["value"] >= 0
        assert item["endedAt"] > data["window"]["from"]
        assert item["startedAt"] < data["window"]["to"]
    assert {item["measurement"] for item in items} == {m.value for m in Measurement}


async def test_the_window_selects_sessions_that_overlap_it(api: Api) -> None:
    caller, device = await _charger(api)
    everything = (await _sessions(api, caller, device, limit=50))["items"]
    crossing = everything[4]
    start = datetime.fromisoformat(crossing["startedAt"]) + timedelta(minutes=1)
    end = datetime.fromisoformat(everything[1]["startedAt"])
    data = await _sessions(
        api, caller, device, limit=50, **{"from": isoformat_utc(start), "to": isoformat_utc(end)}
    )
    assert data["window"] == {"from": isoformat_utc(start), "to": isoformat_utc(end)}
    # started before `from` but still charging at it: in; starting exactly at `to`: out
    assert _ids(data) == [everything[2]["id"], everything[3]["id"], crossing["id"]]
    assert data["pagination"]["total"] == 3


async def test_window_before_any_history_is_empty(api: Api) -> None:
    caller, device = await _charger(api)
    data = await _sessions(api, caller, device, to="2026-01-01T00:00:00Z")
    assert data["items"] == []
    assert data["pagination"]["total"] == 0
    assert data["window"]["from"] == "2025-12-02T00:00:00.000Z"


async def test_the_running_session_is_active_then_completed_and_stays_stored(api: Api) -> None:
    caller, device = await _charger(api)
    api.clock.advance(timedelta(hours=7))  # 19:00, the evening program charges
    active = await _sessions(api, caller, device, status="active")
    assert active["pagination"]["total"] == 1
    [running] = active["items"]
    assert set(running) == SESSION_KEYS - {"endedAt"}, "no endedAt, no endReason while active"
    assert running["status"] == "active"
    assert running["startedAt"] == "2026-11-20T18:00:00.000Z"
    assert running["energyDelivered"]["value"] > 0
    completed = await _sessions(api, caller, device, status="completed", limit=50)
    assert running["id"] not in _ids(completed)
    stored = await _stored(api, [running["id"]])
    assert stored[running["id"]].status is SessionStatus.ACTIVE

    api.clock.advance(timedelta(hours=5))  # midnight: the car was unplugged at 22:00
    latest = (await _sessions(api, caller, device, limit=1))["items"][0]
    assert latest["id"] == running["id"], "the same session, from active to completed"
    assert latest["status"] == "completed"
    assert "2026-11-20T18:00:00.000Z" < latest["endedAt"] <= "2026-11-21T00:00:00.000Z"
    assert latest["energyDelivered"]["value"] > running["energyDelivered"]["value"]
    assert (await _sessions(api, caller, device, status="active"))["items"] == []
    stored = await _stored(api, [running["id"]])
    assert stored[running["id"]].status is SessionStatus.COMPLETED
    assert isoformat_utc(stored[running["id"]].ended_at or NOON) == latest["endedAt"]


async def test_listings_agree_with_the_simulator_history(api: Api) -> None:
    caller, device = await _charger(api)
    api.clock.advance(timedelta(days=2, hours=7))
    data = await _sessions(api, caller, device, limit=50)
    async with api.container.uow() as tx:
        stored_device = await tx.devices.get_device_by_id(device["id"])
    assert stored_device is not None
    now = api.clock.now()
    reference = sessions_between(
        SandboxCharger.of(stored_device), now - timedelta(days=30), now, now
    )
    assert _ids(data) == [s.id for s in reversed(reference)]


async def test_paging_with_the_echoed_to_is_stable_while_a_session_starts(api: Api) -> None:
    caller, device = await _charger(api)
    whole = await _sessions(api, caller, device, limit=6)
    first = await _sessions(api, caller, device, limit=3)
    assert _ids(first) == _ids(whole)[:3]

    api.clock.advance(timedelta(hours=7))  # a new session started at 18:00
    assert (await _sessions(api, caller, device, status="active"))["pagination"]["total"] == 1
    second = await _sessions(api, caller, device, limit=3, offset=3, to=first["window"]["to"])
    assert second["window"] == first["window"]
    assert _ids(second) == _ids(whole)[3:6]
    assert second["pagination"]["total"] == first["pagination"]["total"]

    shifted = await _sessions(api, caller, device, limit=3, offset=3)
    assert _ids(shifted) == _ids(whole)[2:5], "without `to` the new session shifts rows"


async def test_a_charger_without_history_answers_sessions_not_supported(api: Api) -> None:
    caller, device = await _charger(api, "ev-charger-basic")
    assert device["sessions"] is False
    response = await api.get(caller, f"/ev-charger/{device['id']}/sessions")
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "SESSIONS_NOT_SUPPORTED"


@pytest.mark.parametrize(
    "params",
    [
        {"from": "2026-11-10T00:00:00Z", "to": "2026-11-09T00:00:00Z"},
        {"from": "2026-11-21T00:00:00Z"},  # after the default `to` (now)
    ],
)
async def test_from_after_to_is_invalid(api: Api, params: dict[str, str]) -> None:
    caller, device = await _charger(api)
    response = await api.get(caller, f"/ev-charger/{device['id']}/sessions", **params)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "INVALID_REQUEST"
    assert error["details"]["errors"][0]["path"] == "query.from"


@pytest.mark.parametrize(
    "params",
    [
        {"limit": "0"},
        {"limit": "51"},
        {"offset": "-1"},
        {"status": "running"},
        {"to": "yesterday"},
        {"limt": "5"},
        {"to": "0001-01-01T00:00:00+01:00"},
    ],
)
async def test_bad_query_parameters_are_invalid(api: Api, params: dict[str, str]) -> None:
    caller, device = await _charger(api)
    response = await api.get(caller, f"/ev-charger/{device['id']}/sessions", **params)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "INVALID_REQUEST"


async def test_sessions_of_a_battery_or_another_account_are_not_found(api: Api) -> None:
    caller, charger = await _charger(api)
    battery = await api.sandbox_device(caller, "battery")
    stranger = await api.caller()
    for who, device_id in ((caller, battery["id"]), (stranger, charger["id"])):
        response = await api.get(who, f"/ev-charger/{device_id}/sessions")
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "DEVICE_NOT_FOUND"


async def test_a_stored_session_the_charger_no_longer_reports_is_closed(api: Api) -> None:
    caller, device = await _charger(api)
    ghost = ChargingSession(
        id="ses_ghost",
        device_id=device["id"],
        status=SessionStatus.ACTIVE,
        started_at=NOON - timedelta(hours=1),
        ended_at=None,
        energy_kwh=1.5,
        measurement=Measurement.METERED,
    )
    async with api.container.uow() as tx:
        await tx.sessions.upsert([ghost], NOON)
    api.clock.advance(timedelta(minutes=5))
    data = await _sessions(api, caller, device, limit=50)
    # the invented history (seeded by the random device id) may hold a later session
    (closed,) = [item for item in data["items"] if item["id"] == "ses_ghost"]
    assert closed["status"] == "completed"
    assert closed["endedAt"] == "2026-11-20T12:05:00.000Z"
    assert "endReason" not in closed
    assert (await _sessions(api, caller, device, status="active"))["items"] == []
