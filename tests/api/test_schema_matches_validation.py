"""The OpenAPI document says what validation does (issue 12, defect 7): for e-mail
addresses, schedule durations, timezones and the sandbox's simulated error codes, a value
the schema allows is accepted and one it refuses is refused, so a client generated from
the document (or schemathesis) meets no surprise."""

from __future__ import annotations

import re
from typing import Any

import pytest

from energyhub.domain.recurrence import parse_duration
from tests.support import Api

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

EMAILS = [
    "a@b",
    "ops@acme.example",
    "h\u00e9l\u00e8ne@example.fr",
    "a b@c",
    "a\x1c@b",  # Python's \s has the file separators, the validator's did not
    "a\x85@b",
    "a\u00a0@b",
    "a\ufeff@b",  # JSON Schema's \s has the BOM, the validator's did not
    "a\u2028@b",
    "a\t@b",
    "@b",
    "a@",
    "a@b@c",
]
DURATIONS = ["P", "PT", "P0D", "PT0S", "P0W0DT0H", "PT2H", "PT30M", "P1D", "P1W", "PT90M", "P1DT"]


async def openapi(api: Api) -> dict[str, Any]:
    response = await api.client.get("/openapi.json")
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


def component(document: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = document["components"]["schemas"][name]
    return found


def string_pattern(schema: dict[str, Any]) -> str:
    for option in schema.get("anyOf", [schema]):
        if option.get("type") == "string":
            pattern: str = option["pattern"]
            return pattern
    raise AssertionError(f"no string pattern in {schema}")


async def test_email_is_accepted_exactly_when_the_schema_pattern_matches(api: Api) -> None:
    document = await openapi(api)
    caller = await api.caller()
    for model, path, body in [
        ("SandboxBatteryRequest", "/sandbox/devices", {"type": "battery", "userId": "u"}),
        ("LinkSessionCreate", "/link-sessions", {"userId": "u"}),
    ]:
        pattern = string_pattern(component(document, model)["properties"]["email"])
        for email in EMAILS:
            allowed = re.search(pattern, email) is not None
            response = await api.client.post(
                path, json={**body, "email": email}, headers=caller.headers
            )
            assert response.status_code == (201 if allowed else 400), (model, email, response.text)


async def test_the_duration_pattern_is_what_a_schedule_accepts(api: Api) -> None:
    document = await openapi(api)
    pattern = component(document, "AtSlotIn")["properties"]["duration"]["pattern"]
    assert component(document, "TimeSlotIn")["properties"]["duration"]["pattern"] == pattern
    for text in DURATIONS:
        try:
            parse_duration(text)
            valid = True
        except ValueError:
            valid = False
        assert (re.search(pattern, text) is not None) is valid, text
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    for text, status in [("P", 400), ("PT", 400), ("P0D", 400), ("PT2H", 200)]:
        response = await api.client.put(
            f"/battery/{device['id']}/schedule",
            json={
                "slots": [{"time": "06:00", "duration": text, "command": "charge"}],
                "timezone": "Europe/Berlin",
            },
            headers=caller.headers,
        )
        assert response.status_code == status, (text, response.text)


async def test_timezone_is_required_and_not_null_exactly_where_validation_says(api: Api) -> None:
    document = await openapi(api)
    put = document["paths"]["/battery/{deviceId}/schedule"]["put"]
    variants = put["requestBody"]["content"]["application/json"]["schema"]["anyOf"]
    by_slot = {
        v["$ref"].rsplit("/", 1)[1]: component(document, v["$ref"].rsplit("/", 1)[1])
        for v in variants
    }
    time_body = next(s for s in by_slot.values() if "TimeSlotIn" in str(s["properties"]["slots"]))
    at_body = next(s for s in by_slot.values() if "AtSlotIn" in str(s["properties"]["slots"]))
    assert "timezone" in time_body["required"]
    assert time_body["properties"]["timezone"]["type"] == "string"  # not nullable
    assert {"type": "null"} in at_body["properties"]["timezone"]["anyOf"]
    zone = time_body["properties"]["timezone"]
    assert "enum" not in zone  # a plain string: the service checks the name
    assert all(re.search(zone["pattern"], name) for name in ("Europe/Berlin", "Etc/GMT+1", "UTC"))

    caller = await api.caller()
    device = await api.sandbox_device(caller)
    slot = {"duration": "PT1H", "command": "charge"}
    for body, status in [
        ({"slots": [{**slot, "time": "06:00"}], "timezone": None}, 400),
        ({"slots": [{**slot, "time": "06:00"}], "timezone": "localtime"}, 400),
        ({"slots": [{**slot, "at": "2026-12-01T06:00:00Z"}], "timezone": None}, 200),
    ]:
        response = await api.client.put(
            f"/battery/{device['id']}/schedule", json=body, headers=caller.headers
        )
        assert response.status_code == status, (body, response.text)
    sandbox = component(document, "SandboxBatteryRequest")["properties"]["timezone"]
    assert "localtime" not in str(sandbox)
    refused = await api.client.post(
        "/sandbox/devices",
        json={"type": "battery", "userId": "u", "timezone": "localtime"},
        headers=caller.headers,
    )
    assert refused.status_code == 400, refused.text


async def test_the_sandbox_error_code_is_one_of_the_device_error_codes(api: Api) -> None:
    document = await openapi(api)
    codes = component(document, "SandboxFailure")["properties"]["errorCode"]["enum"]
    assert "DEVICE_OFFLINE" in codes
    assert "INVALID_REQUEST" not in codes
    caller = await api.caller()
    for code in ["NOPE", "INVALID_REQUEST", "device_offline", ""]:
        device = await api.sandbox_device(caller)
        response = await api.push(
            caller, device, "charge", sandbox={"result": "failed", "errorCode": code}
        )
        assert response.status_code == 400, (code, response.text)
        [problem] = response.json()["error"]["details"]["errors"]
        assert problem["path"] == "body.sandbox.errorCode"
        assert all(allowed in problem["message"] for allowed in codes), problem
    for code in codes:
        device = await api.sandbox_device(caller)
        response = await api.push(
            caller, device, "charge", sandbox={"result": "failed", "errorCode": code}
        )
        assert response.status_code == 502, response.text
        assert response.json()["error"]["code"] == code


async def test_date_times_are_in_the_documented_year_range(api: Api) -> None:
    """`format: date-time` alone allowed year 1 and 9999, which validation refuses."""
    document = await openapi(api)
    until = component(document, "VppLockBody")["properties"]["until"]
    at = component(document, "AtSlotIn")["properties"]["at"]
    sessions = document["paths"]["/ev-charger/{deviceId}/sessions"]["get"]["parameters"]
    to = next(p for p in sessions if p["name"] == "to")["schema"]
    patterns = {until["pattern"], at["pattern"], string_pattern(to)}
    assert len(patterns) == 1
    [pattern] = patterns
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    for value in ["1969-12-31T00:00:00Z", "1970-01-02T00:00:00Z", "9998-12-30T00:00:00Z"]:
        allowed = re.search(pattern, value) is not None
        response = await api.client.post(
            f"/sandbox/devices/{device['id']}/vpp-lock",
            json={"until": value},
            headers=caller.headers,
        )
        assert response.status_code == (200 if allowed else 400), (value, response.text)


async def test_a_redirect_uri_is_accepted_exactly_when_the_schema_pattern_matches(api: Api) -> None:
    """Python's `\\s` takes U+001C-U+001F and U+0085 for spaces, ECMA's the BOM: the schema
    and the check name the refused characters in one explicit class instead."""
    document = await openapi(api)
    pattern = string_pattern(component(document, "LinkSessionCreate")["properties"]["redirectUri"])
    assert "\\s" not in pattern  # the schema's reader and Python read `\s` differently
    caller = await api.caller()
    for tail in ["ok?x=1", "h\u00e9", "a\u001d", "a b", "a\t", "a\x7f", "a\x85", "a\u00a0"]:
        for uri in [f"http://a/{tail}", f"http://a?{tail}"]:
            allowed = re.search(pattern, uri) is not None
            response = await api.client.post(
                "/link-sessions", json={"userId": "u", "redirectUri": uri}, headers=caller.headers
            )
            assert response.status_code == (201 if allowed else 400), (uri, response.text)
    for uri in ["http://a?\u001d", "http://a/\ufeff", "http://a/\x00"]:
        assert re.search(pattern, uri) is None, uri
        response = await api.client.post(
            "/link-sessions", json={"userId": "u", "redirectUri": uri}, headers=caller.headers
        )
        assert response.status_code == 400, (uri, response.text)
    response = await api.client.post(
        "/link-sessions",
        json={"userId": "u", "redirectUri": "http://a?\u001d"},
        headers=caller.headers,
    )
    [problem] = response.json()["error"]["details"]["errors"]
    assert problem["message"] == "redirectUri may not contain spaces or control characters"


async def test_a_push_window_time_is_refused_by_the_pattern_unless_only_its_day_is_wrong(
    api: Api,
) -> None:
    """The pattern knows months, days, hours, minutes and seconds; only a day past the end
    of its month (02-30) passes it and is refused by the service, which says so."""
    document = await openapi(api)
    start = component(document, "PushBody")["properties"]["start"]
    end = component(document, "PushBody")["properties"]["end"]
    pattern = string_pattern(start)
    assert string_pattern(end) == pattern
    for value in [
        "2026-13-01T00:00:00",
        "2026-00-01T00:00:00",
        "2026-12-32T00:00:00",
        "2026-12-00T00:00:00",
        "2026-12-01T24:00:00",
        "2026-12-01T10:60:00",
        "2026-12-01T10:00:60",
        "0000-12-01T10:00:00",
    ]:
        assert re.search(pattern, value) is None, value
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    for value in ["2026-13-01T00:00:00", "2026-12-01T24:00:00"]:
        response = await api.push(caller, device, "charge", start=value)
        assert response.status_code == 400, (value, response.text)
    assert re.search(pattern, "2027-02-30T10:00:00") is not None
    response = await api.push(caller, device, "charge", start="2027-02-30T10:00:00")
    assert response.status_code == 400, response.text
    [problem] = response.json()["error"]["details"]["errors"]
    assert problem["message"].endswith(": that month has no day 30"), problem
    accepted = await api.push(caller, device, "charge", start="2026-11-20T23:59:59")
    assert re.search(pattern, "2026-11-20T23:59:59") is not None
    assert accepted.status_code in (200, 201, 202), accepted.text
