"""A site as clients write it (`domain/sites.py`) and what it takes afterwards
(`domain/site_updates.py`): every problem named in one 400, the stored form normalised, the
planner's tariff made from it, prices merged and the newest reading kept."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from energyhub.domain.errors import InvalidRequest, TariffNotDynamic
from energyhub.domain.planning import PricePeriod, TimeOfUsePeriod
from energyhub.domain.site_updates import merge_prices, newer_reading, parse_prices, parse_readings
from energyhub.domain.sites import parse_site, tariff_from_json

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
DAY = [
    {"from": "07:00", "to": "22:00", "price": 0.3},
    {"from": "22:00", "to": "07:00", "price": 0.2},
]


def problems(call: Any, *args: Any) -> list[tuple[str, str]]:
    with pytest.raises(InvalidRequest) as refused:
        call(*args)
    return [(e["path"], e["message"]) for e in refused.value.details["errors"]]


def paths(call: Any, *args: Any) -> list[str]:
    return [path for path, _ in problems(call, *args)]


def period(start: str, end: str, price: float = 0.25) -> dict[str, Any]:
    return {"start": start, "end": end, "price": price}


def _utc(p: dict[str, Any]) -> tuple[str, str, float]:
    return p["start"].replace(":00Z", ":00.000Z"), p["end"].replace(":00Z", ":00.000Z"), p["price"]


# --- parse_site ---------------------------------------------------------------------------
def test_a_site_keeps_what_is_sent_and_clears_what_is_null() -> None:
    sent = {
        "timezone": "Europe/Berlin",
        "gridImportLimit": {"value": 11000, "unit": "w"},
        "tariff": {"currency": "EUR", "import": {"timeOfUse": DAY}, "export": None},
    }
    values = parse_site(sent).values
    assert values["timezone"] == "Europe/Berlin"
    assert values["grid_import_limit_kw"] == 11.0
    assert values["tariff"] == {"currency": "EUR", "import": {"timeOfUse": DAY}, "export": None}
    cleared = parse_site({"timezone": None, "gridImportLimit": None, "tariff": None}).values
    assert cleared == {"timezone": None, "grid_import_limit_kw": None, "tariff": None}
    assert parse_site({}).values == {}


def test_every_problem_of_a_site_is_named_at_once() -> None:
    found = problems(
        parse_site,
        {
            "timezone": "Mars/Olympus",
            "gridImportLimit": {"value": 0, "unit": "kw"},
            "tariff": {"currency": "euro", "export": {"prices": [], "timeOfUse": []}},
            "colour": "green",
        },
    )
    assert [p for p, _ in found] == [
        "body.colour",
        "body.timezone",
        "body.gridImportLimit.value",
        "body.tariff.currency",
        "body.tariff.import",
        "body.tariff.export",
    ]
    assert found[-1][1] == "send exactly one of timeOfUse and prices"
    with pytest.raises(InvalidRequest, match=r"\(and 5 more\)"):
        parse_site({"timezone": 3, "gridImportLimit": 1, "tariff": [], "a": 1, "b": 2, "c": 3})


def test_a_body_that_is_not_an_object_is_refused() -> None:
    assert paths(parse_site, []) == ["body"]
    assert paths(parse_site, {"tariff": "cheap"}) == ["body.tariff"]
    tariff = {"currency": "EUR", "import": "dynamic"}
    assert paths(parse_site, {"tariff": tariff}) == ["body.tariff.import"]


@pytest.mark.parametrize(
    ("limit", "path"),
    [
        ({"value": True, "unit": "kw"}, "body.gridImportLimit.value"),
        ({"value": float("nan"), "unit": "kw"}, "body.gridImportLimit.value"),
        ({"value": 2e9, "unit": "kw"}, "body.gridImportLimit.value"),
        ({"value": 5, "unit": "kwh"}, "body.gridImportLimit.unit"),
        ({"value": "5", "unit": "kw"}, "body.gridImportLimit.value"),
        ({"value": -1, "unit": "kw"}, "body.gridImportLimit.value"),
    ],
)
def test_a_grid_limit_is_a_positive_power(limit: dict[str, Any], path: str) -> None:
    assert paths(parse_site, {"gridImportLimit": limit}) == [path]


def test_time_of_use_names_its_bad_periods() -> None:
    bad = [
        {"from": "7:00", "to": "24:01", "price": 0.3},
        {"from": "22:00", "to": "07:00", "price": "free"},
        "all day",
    ]
    found = paths(parse_site, {"tariff": {"currency": "EUR", "import": {"timeOfUse": bad}}})
    base = "body.tariff.import.timeOfUse"
    assert found == [f"{base}[0].from", f"{base}[0].to", f"{base}[1].price", f"{base}[2]"]
    empty = {"currency": "EUR", "import": {"timeOfUse": []}}
    assert paths(parse_site, {"tariff": empty}) == [base]


def test_time_of_use_must_cover_the_day_once() -> None:
    gaps = [
        {"from": "01:00", "to": "07:00", "price": 0.2},
        {"from": "06:00", "to": "12:00", "price": 0.3},
        {"from": "13:00", "to": "23:00", "price": 0.3},
    ]
    found = problems(parse_site, {"tariff": {"currency": "EUR", "import": {"timeOfUse": gaps}}})
    assert [m for _, m in found] == [
        "no price from 00:00 to 01:00: a gap",
        "periods 0 and 1 overlap from 06:00 to 07:00",
        "no price from 12:00 to 13:00: a gap",
        "no price from 23:00 to 24:00: a gap",
    ]
    whole_day = [{"from": "06:00", "to": "06:00", "price": 0.3}]
    stored = parse_site({"tariff": {"currency": "EUR", "import": {"timeOfUse": whole_day}}})
    assert stored.values["tariff"]["import"] == {"timeOfUse": whole_day}
    to_midnight = [{"from": "00:00", "to": "24:00", "price": 0.3}]
    assert parse_site({"tariff": {"currency": "EUR", "import": {"timeOfUse": to_midnight}}})


def test_dynamic_prices_are_sorted_and_a_later_one_of_a_start_wins() -> None:
    prices = [
        period("2026-11-20T13:00:00+01:00", "2026-11-20T14:00:00+01:00", 0.4),
        period("2026-11-20T11:00:00Z", "2026-11-20T12:00:00Z", 0.1),
        period("2026-11-20t11:00:00z", "2026-11-20T12:00:00Z", 0.2),
    ]
    values = parse_site({"tariff": {"currency": "EUR", "import": {"prices": prices}}}).values
    assert values["tariff"]["import"]["prices"] == [
        period("2026-11-20T11:00:00.000Z", "2026-11-20T12:00:00.000Z", 0.2),
        period("2026-11-20T12:00:00.000Z", "2026-11-20T13:00:00.000Z", 0.4),
    ]


def test_dynamic_prices_name_bad_times_overlaps_and_order() -> None:
    prices = [
        period("2026-11-20T10:00:00Z", "2026-11-20T12:00:00Z"),
        period("2026-11-20T11:00:00Z", "2026-11-20T11:30:00Z"),
        period("2026-11-20T14:00:00Z", "2026-11-20T13:00:00Z"),
        period("2026-11-20T15:00:00", "2026-11-20T16:00:00Z"),
        period("2026-02-30T15:00:00Z", "2026-11-20T16:00:00Z"),
        period("1066-10-14T15:00:00Z", "1066-10-14T16:00:00Z"),
        {"start": 5},
    ]
    found = problems(parse_site, {"tariff": {"currency": "EUR", "import": {"prices": prices}}})
    base = "body.tariff.import.prices"
    assert [p for p, _ in found] == [
        f"{base}[2].end",
        f"{base}[3].start",
        f"{base}[4].start",
        f"{base}[5].start",
        f"{base}[5].end",
        f"{base}[6].start",
        f"{base}[6].end",
        f"{base}[6].price",
        f"{base}[1]",
    ]
    assert found[-1][1] == (
        "periods 0 and 1 overlap from 2026-11-20T11:00:00.000Z to 2026-11-20T11:30:00.000Z"
    )
    empty = {"currency": "EUR", "import": {"prices": []}}
    assert paths(parse_site, {"tariff": empty}) == [base]


def test_the_planners_tariff_is_made_from_the_stored_form() -> None:
    prices = [period("2026-11-20T11:00:00Z", "2026-11-20T12:00:00Z", 0.1)]
    sent = {"currency": "EUR", "import": {"timeOfUse": DAY}, "export": {"prices": prices}}
    tariff = tariff_from_json(parse_site({"tariff": sent}).values["tariff"])
    assert tariff is not None
    assert tariff.currency == "EUR"
    assert tariff.import_prices.time_of_use == (
        TimeOfUsePeriod("07:00", "22:00", 0.3),
        TimeOfUsePeriod("22:00", "07:00", 0.2),
    )
    assert tariff.export_prices is not None
    assert tariff.export_prices.periods == (
        PricePeriod(
            datetime(2026, 11, 20, 11, tzinfo=UTC), datetime(2026, 11, 20, 12, tzinfo=UTC), 0.1
        ),
    )
    no_export = tariff_from_json({"currency": "EUR", "import": {"timeOfUse": DAY}})
    assert no_export is not None
    assert no_export.export_prices is None
    assert tariff_from_json(None) is None


# --- site_updates -------------------------------------------------------------------------
def test_prices_are_posted_for_import_export_or_both() -> None:
    one = [period("2026-11-20T11:00:00Z", "2026-11-20T12:00:00Z")]
    assert parse_prices({"export": one}) == {"export": [period(*_utc(one[0]))]}
    assert set(parse_prices({"import": one, "export": one})) == {"import", "export"}
    assert paths(parse_prices, {}) == ["body"]
    assert paths(parse_prices, {"import": []}) == ["body.import"]


def test_added_prices_merge_into_a_dynamic_tariff() -> None:
    stored: dict[str, Any] = {
        "currency": "EUR",
        "import": {"prices": [period("2026-11-20T11:00:00.000Z", "2026-11-20T12:00:00.000Z")]},
        "export": None,
    }
    added = {
        "import": [
            period("2026-11-20T12:00:00.000Z", "2026-11-20T13:00:00.000Z", 0.5),
            period("2026-11-20T11:00:00.000Z", "2026-11-20T12:00:00.000Z", 0.3),
        ],
        "export": [period("2026-11-20T11:00:00.000Z", "2026-11-20T12:00:00.000Z", 0.05)],
    }
    merged = merge_prices(stored, added)
    assert merged["import"]["prices"] == [
        period("2026-11-20T11:00:00.000Z", "2026-11-20T12:00:00.000Z", 0.3),
        period("2026-11-20T12:00:00.000Z", "2026-11-20T13:00:00.000Z", 0.5),
    ]
    assert merged["export"]["prices"] == added["export"]
    assert stored["import"]["prices"][0]["price"] == 0.25, "the stored tariff is not changed"


def test_prices_need_a_dynamic_tariff_and_may_not_overlap_stored_ones() -> None:
    added = {"import": [period("2026-11-20T11:30:00.000Z", "2026-11-20T12:30:00.000Z")]}
    with pytest.raises(TariffNotDynamic):
        merge_prices(None, added)
    with pytest.raises(TariffNotDynamic) as refused:
        merge_prices({"currency": "EUR", "import": {"timeOfUse": DAY}}, added)
    assert refused.value.details["side"] == "import"
    stored = {
        "currency": "EUR",
        "import": {
            "prices": [
                period("2026-11-20T11:00:00.000Z", "2026-11-20T12:00:00.000Z"),
                period("2026-11-20T12:00:00.000Z", "2026-11-20T13:00:00.000Z"),
            ]
        },
    }
    found = problems(merge_prices, stored, added)
    assert [p for p, _ in found] == ["body.import[0]", "body.import[0]"]
    assert "stored one from 2026-11-20T11:00:00.000Z" in found[0][1]
    assert "stored one from 2026-11-20T12:00:00.000Z" in found[1][1]


def test_the_newest_reading_is_kept() -> None:
    body = {
        "readings": [
            {"at": "2026-11-20T11:58:00Z", "gridPower": {"value": 1500, "unit": "w"}},
            {"at": "2026-11-20T11:59:00Z", "gridPower": {"value": -2, "unit": "kw"}},
            {"at": "2026-11-20T11:57:00Z", "gridPower": {"value": 3, "unit": "kw"}},
        ]
    }
    reading = parse_readings(body, NOW)
    assert reading == {"at": "2026-11-20T11:59:00.000Z", "gridPower": {"value": -2.0, "unit": "kw"}}
    older = {"at": "2026-11-20T11:00:00.000Z", "gridPower": {"value": 1.0, "unit": "kw"}}
    newer = {"at": "2026-11-20T12:30:00.000Z", "gridPower": {"value": 1.0, "unit": "kw"}}
    assert newer_reading(older, reading) == reading
    assert newer_reading(newer, reading) == newer
    assert newer_reading(None, reading) == reading


def test_readings_from_the_future_or_malformed_are_refused() -> None:
    body = {
        "readings": [
            {"at": "2026-11-20T12:06:00Z", "gridPower": {"value": 1, "unit": "kw"}},
            {"at": "2026-11-20T11:00:00Z", "gridPower": {"value": 1, "unit": "kwh"}},
            7,
        ]
    }
    assert paths(parse_readings, body, NOW) == [
        "body.readings[0].at",
        "body.readings[1].gridPower.unit",
        "body.readings[2]",
    ]
    assert paths(parse_readings, {"readings": []}, NOW) == ["body.readings"]
    assert paths(parse_readings, None, NOW) == ["body"]
