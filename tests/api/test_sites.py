"""Sites over HTTP (strategies): set and read a user's site, tariffs checked with every
problem named, dynamic prices merged, meter readings kept newest-first."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from tests.support import Api, Caller

# The fake clock starts on Friday 2026-11-20 at 12:00Z.
TOU = {
    "timeOfUse": [
        {"from": "00:00", "to": "06:00", "price": 0.12},
        {"from": "06:00", "to": "22:00", "price": 0.34},
        {"from": "22:00", "to": "24:00", "price": 0.2},
    ]
}


def hour(h: int) -> str:
    return f"2026-11-20T{h:02d}:00:00.000Z"


async def _user(api: Api, **extra: Any) -> Caller:
    caller = await api.caller()
    await api.sandbox_device(caller, "ev-charger", user_id="home-1", **extra)
    return caller


async def _put(api: Api, caller: Caller, body: Any, user: str = "home-1") -> httpx.Response:
    return await api.client.put(f"/users/{user}/site", json=body, headers=caller.headers)


def _errors(response: httpx.Response) -> list[dict[str, str]]:
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "INVALID_REQUEST"
    assert "details.errors" in error["message"]
    errors: list[dict[str, str]] = error["details"]["errors"]
    return errors


async def test_a_user_without_a_site_reads_their_first_devices_timezone_and_nulls(
    api: Api,
) -> None:
    caller = await _user(api, timezone="Europe/Lisbon")
    response = await api.get(caller, "/users/home-1/site")
    assert response.status_code == 200, response.text
    assert response.json()["data"] == {
        "userId": "home-1",
        "timezone": "Europe/Lisbon",
        "gridImportLimit": None,
        "tariff": None,
        "lastReading": None,
        "updatedAt": None,
    }


async def test_an_unknown_user_is_404_on_every_site_route(api: Api) -> None:
    caller = await _user(api)
    for method, path, body in [
        ("GET", "/users/nobody/site", None),
        ("PUT", "/users/nobody/site", {"timezone": "Europe/Berlin"}),
        ("POST", "/users/nobody/site/prices", {"import": []}),
        ("POST", "/users/nobody/site/readings", {"readings": []}),
    ]:
        response = await api.client.request(method, path, json=body, headers=caller.headers)
        assert response.status_code == 404, (method, path, response.text)
        assert response.json()["error"]["code"] == "USER_NOT_FOUND"


async def test_put_sets_the_site_and_only_the_fields_sent_change(api: Api) -> None:
    caller = await _user(api)
    body = {
        "timezone": "Europe/Berlin",
        "gridImportLimit": {"value": 11000, "unit": "w"},
        "tariff": {"currency": "EUR", "import": TOU},
    }
    response = await _put(api, caller, body)
    assert response.status_code == 200, response.text
    site = response.json()["data"]
    assert site == {
        "userId": "home-1",
        "timezone": "Europe/Berlin",
        "gridImportLimit": {"value": 11.0, "unit": "kw"},
        "tariff": {"currency": "EUR", "import": TOU, "export": None},
        "lastReading": None,
        "updatedAt": "2026-11-20T12:00:00.000Z",
    }
    assert (await api.get(caller, "/users/home-1/site")).json()["data"] == site
    api.clock.advance(60)
    changed = (await _put(api, caller, {"gridImportLimit": None})).json()["data"]
    assert changed["gridImportLimit"] is None
    assert changed["tariff"] == site["tariff"]
    assert changed["updatedAt"] == "2026-11-20T12:01:00.000Z"
    cleared = (await _put(api, caller, {"tariff": None, "timezone": None})).json()["data"]
    assert cleared["tariff"] is None
    assert cleared["timezone"] == "Europe/Berlin"  # the first device's again


async def test_a_bad_tariff_lists_each_problem(api: Api) -> None:
    caller = await _user(api)
    body = {
        "tariff": {
            "import": {
                "timeOfUse": [
                    {"from": "00:00", "to": "06:00", "price": 0.1},
                    {"from": "05:00", "to": "12:00", "price": 0.2},  # overlaps 05:00-06:00
                    {"from": "13:00", "to": "24:00", "price": 0.3},  # gap 12:00-13:00
                ]
            },
            "export": {
                "prices": [
                    {"start": hour(14), "end": hour(13), "price": 0.05},  # ends before start
                    {"start": hour(15), "end": hour(17), "price": 0.05},
                    {"start": hour(16), "end": hour(18), "price": 0.05},  # overlaps
                ]
            },
        }
    }
    assert _errors(await _put(api, caller, body)) == [
        {
            "path": "body.tariff.currency",
            "message": "required: send an ISO 4217 currency code such as EUR",
        },
        {
            "path": "body.tariff.import.timeOfUse",
            "message": "periods 0 and 1 overlap from 05:00 to 06:00",
        },
        {"path": "body.tariff.import.timeOfUse", "message": "no price from 12:00 to 13:00: a gap"},
        {"path": "body.tariff.export.prices[0].end", "message": "must be after start"},
        {
            "path": "body.tariff.export.prices[2]",
            "message": "periods 1 and 2 overlap from 2026-11-20T16:00:00.000Z to "
            "2026-11-20T17:00:00.000Z",
        },
    ]
    assert (await api.get(caller, "/users/home-1/site")).json()["data"]["tariff"] is None


@pytest.mark.parametrize(
    ("tariff", "path"),
    [
        ({"currency": "EUR"}, "body.tariff.import"),
        ({"currency": "eur", "import": TOU}, "body.tariff.currency"),
        ({"currency": "EUR", "import": {**TOU, "prices": []}}, "body.tariff.import"),
        (
            {
                "currency": "EUR",
                "import": {"timeOfUse": [{"from": "00:00", "to": "23:00", "price": 1}]},
            },
            "body.tariff.import.timeOfUse",
        ),
        (
            {
                "currency": "EUR",
                "import": {"timeOfUse": [{"from": "24:00", "to": "06:00", "price": 1}]},
            },
            "body.tariff.import.timeOfUse[0].from",
        ),
        ({"currency": "EUR", "import": TOU, "fee": 1}, "body.tariff.fee"),
        (  # from == to is the whole day: it overlaps the other period
            {
                "currency": "EUR",
                "import": {
                    "timeOfUse": [
                        {"from": "06:00", "to": "06:00", "price": 1},
                        {"from": "00:00", "to": "06:00", "price": 1},
                    ]
                },
            },
            "body.tariff.import.timeOfUse",
        ),
    ],
)
async def test_each_tariff_rule_is_a_400(api: Api, tariff: dict[str, Any], path: str) -> None:
    caller = await _user(api)
    errors = _errors(await _put(api, caller, {"tariff": tariff}))
    assert path in [e["path"] for e in errors], errors


async def test_the_schema_requires_a_tariffs_import_as_the_service_does(api: Api) -> None:
    """A tariff is `{currency, import, export?}`: both the schema and the check refuse one
    without `import`, and the refusal names the field and what to send."""
    document = (await api.client.get("/openapi.json")).json()
    tariff = document["components"]["schemas"]["TariffIn"]
    assert set(tariff["required"]) == {"currency", "import"}
    assert {"type": "null"} not in tariff["properties"]["import"].get("anyOf", [])
    caller = await _user(api)
    for body in [{"currency": "EUR", "export": TOU}, {"currency": "EUR", "import": None}]:
        [problem] = _errors(await _put(api, caller, {"tariff": body}))
        assert problem == {
            "path": "body.tariff.import",
            "message": "required: send {timeOfUse: [...]} or {prices: [...]}",
        }


async def test_periods_over_midnight_and_a_single_whole_day_are_accepted(api: Api) -> None:
    caller = await _user(api)
    for import_ in [
        {
            "timeOfUse": [
                {"from": "22:00", "to": "06:00", "price": 0.1},
                {"from": "06:00", "to": "22:00", "price": 0.3},
            ]
        },
        {"timeOfUse": [{"from": "00:00", "to": "24:00", "price": -0.01}]},
        {"timeOfUse": [{"from": "06:00", "to": "06:00", "price": 0.2}]},
        {
            "prices": [
                {"start": "2026-11-20t13:00:00z", "end": "2026-11-20T15:00:00+01:00", "price": 1}
            ]
        },
    ]:
        response = await _put(api, caller, {"tariff": {"currency": "EUR", "import": import_}})
        assert response.status_code == 200, response.text


async def test_prices_merge_into_a_dynamic_tariff_a_later_period_replacing_the_same_start(
    api: Api,
) -> None:
    caller = await _user(api)
    first = [
        {"start": hour(13), "end": hour(14), "price": 0.3},
        {"start": hour(14), "end": hour(15), "price": 0.25},
    ]
    response = await _put(api, caller, {"tariff": {"currency": "EUR", "import": {"prices": first}}})
    assert response.status_code == 200, response.text
    more = {
        "import": [
            {"start": hour(14), "end": hour(15), "price": -0.02},  # replaces 14:00
            {"start": hour(15), "end": hour(16), "price": 0.1},
        ],
        "export": [{"start": hour(13), "end": hour(16), "price": 0.07}],
    }
    response = await api.client.post("/users/home-1/site/prices", json=more, headers=caller.headers)
    assert response.status_code == 200, response.text
    tariff = response.json()["data"]["tariff"]
    assert tariff["import"]["prices"] == [
        {"start": hour(13), "end": hour(14), "price": 0.3},
        {"start": hour(14), "end": hour(15), "price": -0.02},
        {"start": hour(15), "end": hour(16), "price": 0.1},
    ]
    assert tariff["export"] == {"prices": [{"start": hour(13), "end": hour(16), "price": 0.07}]}
    overlapping = {"import": [{"start": "2026-11-20T15:30:00Z", "end": hour(17), "price": 0.1}]}
    response = await api.client.post(
        "/users/home-1/site/prices", json=overlapping, headers=caller.headers
    )
    assert _errors(response) == [
        {
            "path": "body.import[0]",
            "message": "this period and the stored one from 2026-11-20T15:00:00.000Z to "
            "2026-11-20T16:00:00.000Z overlap from 2026-11-20T15:30:00.000Z to "
            "2026-11-20T16:00:00.000Z: send periods that start where others end",
        }
    ]


async def test_prices_need_a_dynamic_tariff_to_go_into(api: Api) -> None:
    caller = await _user(api)
    more = {"import": [{"start": hour(13), "end": hour(14), "price": 0.3}]}
    response = await api.client.post("/users/home-1/site/prices", json=more, headers=caller.headers)
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "TARIFF_NOT_DYNAMIC"
    assert "no dynamic tariff" in response.json()["error"]["message"]
    await _put(api, caller, {"tariff": {"currency": "EUR", "import": TOU}})
    response = await api.client.post("/users/home-1/site/prices", json=more, headers=caller.headers)
    assert response.status_code == 409
    error = response.json()["error"]
    assert (error["code"], error["details"]) == ("TARIFF_NOT_DYNAMIC", {"side": "import"})
    export = {"export": more["import"]}  # no export tariff yet: dynamic periods start one
    response = await api.client.post(
        "/users/home-1/site/prices", json=export, headers=caller.headers
    )
    assert response.status_code == 200, response.text
    assert response.json()["data"]["tariff"]["export"] == {"prices": more["import"]}
    empty = await api.client.post("/users/home-1/site/prices", json={}, headers=caller.headers)
    assert [e["path"] for e in _errors(empty)] == ["body"]


async def test_readings_are_accepted_and_the_newest_is_the_last_reading(api: Api) -> None:
    caller = await _user(api)
    body = {
        "readings": [
            {"at": "2026-11-20T11:59:50Z", "gridPower": {"value": -2.5, "unit": "kw"}},
            {"at": "2026-11-20T11:59:40Z", "gridPower": {"value": 800, "unit": "w"}},
        ]
    }
    response = await api.client.post(
        "/users/home-1/site/readings", json=body, headers=caller.headers
    )
    assert response.status_code == 202, response.text
    newest = {"at": "2026-11-20T11:59:50.000Z", "gridPower": {"value": -2.5, "unit": "kw"}}
    assert response.json()["data"]["lastReading"] == newest
    older = {"readings": [{"at": "2026-11-20T11:00:00Z", "gridPower": {"value": 1, "unit": "kw"}}]}
    response = await api.client.post(
        "/users/home-1/site/readings", json=older, headers=caller.headers
    )
    assert response.status_code == 202
    assert (await api.get(caller, "/users/home-1/site")).json()["data"]["lastReading"] == newest


async def test_a_reading_from_the_future_or_without_a_unit_is_refused(api: Api) -> None:
    caller = await _user(api)
    body = {
        "readings": [
            {"at": "2026-11-20T12:10:00Z", "gridPower": {"value": 1, "unit": "kw"}},
            {"at": "2026-11-20T12:00:00Z", "gridPower": {"value": 1, "unit": "kwh"}},
            {"at": "yesterday", "gridPower": {"value": 1, "unit": "kw"}},
        ]
    }
    response = await api.client.post(
        "/users/home-1/site/readings", json=body, headers=caller.headers
    )
    assert [e["path"] for e in _errors(response)] == [
        "body.readings[0].at",
        "body.readings[1].gridPower.unit",
        "body.readings[2].at",
    ]


async def test_another_accounts_user_is_not_found(api: Api) -> None:
    await _user(api)
    stranger = await api.caller()
    response = await api.get(stranger, "/users/home-1/site")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "USER_NOT_FOUND"


async def test_concurrent_first_writes_each_keep_their_field(api: Api) -> None:
    """Five writers race to create the site: none fails, none undoes another."""
    caller = await _user(api)
    bodies: list[dict[str, Any]] = [
        {"timezone": "Europe/Paris"},
        {"gridImportLimit": {"value": 16, "unit": "kw"}},
        {"tariff": {"currency": "EUR", "import": TOU}},
        {"timezone": "Europe/Paris"},
        {"gridImportLimit": {"value": 16, "unit": "kw"}},
    ]
    readings = {"readings": [{"at": hour(11), "gridPower": {"value": 1, "unit": "kw"}}]}
    responses = await asyncio.gather(
        *(_put(api, caller, body) for body in bodies),
        api.client.post("/users/home-1/site/readings", json=readings, headers=caller.headers),
    )
    assert [r.status_code for r in responses] == [200] * 5 + [202], [r.text for r in responses]
    site = (await api.get(caller, "/users/home-1/site")).json()["data"]
    assert site["timezone"] == "Europe/Paris"
    assert site["gridImportLimit"] == {"value": 16.0, "unit": "kw"}
    assert site["tariff"]["import"] == TOU
    assert site["lastReading"]["at"] == "2026-11-20T11:00:00.000Z"
