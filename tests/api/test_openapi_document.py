"""The OpenAPI document is one client generators take as it is: every operation has a
camelCase operation id of its own, a summary, a tag the document describes, the error codes
it answers, and request and response examples that validate against its own schemas and
succeed against the sandbox (the push example against a default sandbox battery). The key
is the document's one security scheme; `timezone` is a plain string; nothing in it cites
the rules' source documents."""

from __future__ import annotations

import json
import os
import re
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from energyhub.api.openapi_errors import OPERATION_ERRORS
from energyhub.bootstrap import build_container
from energyhub.config import Settings
from energyhub.domain.clock import FakeClock
from tests.api.openapi_tour import EXAMPLES, run_tour
from tests.support import Api, open_api

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

KINDS = ("Battery", "EvCharger")
RECORD = (
    "record the examples again: ENERGYHUB_WRITE_OPENAPI_EXAMPLES=1 .venv/bin/pytest -q "
    "tests/api/test_openapi_document.py -k tour, then scripts/check-clients --write"
)
CAMEL_CASE = re.compile(r"^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)*$")
CITATIONS = re.compile(r"\bspec(?:'s)? \d|\bthe spec\b|\bCONTRACT\b|\bcontract \d", re.IGNORECASE)


async def openapi(api: Api) -> dict[str, Any]:
    response = await api.client.get("/openapi.json")
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, operation)
        for path, methods in document["paths"].items()
        for method, operation in methods.items()
    ]


def validator(document: dict[str, Any], schema: dict[str, Any]) -> Draft202012Validator:
    """`schema` with the document's components beside it, so its `$ref`s resolve."""
    rooted = {"components": document["components"], "allOf": [schema]}
    return Draft202012Validator(rooted, format_checker=Draft202012Validator.FORMAT_CHECKER)


def problems(document: dict[str, Any], schema: dict[str, Any], value: Any) -> list[str]:
    return [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
        for error in validator(document, schema).iter_errors(value)
    ]


async def test_every_operation_is_named_summarised_tagged_and_lists_its_errors(api: Api) -> None:
    document = await openapi(api)
    described = {tag["name"] for tag in document["tags"] if tag.get("description")}
    seen: set[str] = set()
    for method, path, operation in operations(document):
        label = f"{method.upper()} {path}"
        name = operation.get("operationId", "")
        assert CAMEL_CASE.match(name), (label, name)
        assert name not in seen, (label, name)
        seen.add(name)
        assert operation.get("summary"), label
        assert operation["tags"], label
        assert set(operation["tags"]) <= described, label
        assert name in OPERATION_ERRORS, f"{label}: no error codes listed for {name}"
        for status, response in operation["responses"].items():
            if status[0] in "45":
                codes = response["content"]["application/json"]["examples"]
                assert codes, (label, status)
                assert all(f"`{code}`" in response["description"] for code in codes)
        assert "security" not in operation, label  # the document's own applies
    assert set(OPERATION_ERRORS) == seen
    assert document["security"] == [{"ApiKey": []}]
    scheme = document["components"]["securitySchemes"]["ApiKey"]
    assert (scheme["type"], scheme["in"], scheme["name"]) == ("apiKey", "header", "x-api-key")
    assert document["servers"] == [
        {"url": "/", "description": "The server this document was read from"}
    ]
    assert "HTTPValidationError" not in json.dumps(document)


async def test_timezones_are_plain_strings_and_nothing_cites_a_source_document(
    api: Api,
) -> None:
    document = await openapi(api)
    text = json.dumps(document)
    assert "Europe/Zurich" not in text  # no enum of every name
    assert not CITATIONS.findall(text), sorted(set(CITATIONS.findall(text)))
    caller = await api.caller()
    refused = await api.client.post(
        "/sandbox/devices",
        json={"type": "battery", "userId": "u", "timezone": "Europe/Atlantis"},
        headers=caller.headers,
    )
    assert refused.status_code == 400
    [problem] = refused.json()["error"]["details"]["errors"]
    assert problem["message"] == (
        "unknown IANA timezone 'Europe/Atlantis': use an IANA timezone name such as Europe/Berlin"
    )


async def test_every_example_validates_against_its_operations_schemas(api: Api) -> None:
    document = await openapi(api)
    found: list[str] = []
    for method, path, operation in operations(document):
        label = f"{method.upper()} {path}"
        body = operation.get("requestBody", {}).get("content", {}).get("application/json")
        if body is not None:
            assert "example" in body, f"{label}: no request example"
            found += [
                f"{label} body: {p}" for p in problems(document, body["schema"], body["example"])
            ]
        for parameter in operation.get("parameters", []):
            if parameter.get("required"):
                assert "example" in parameter, f"{label}: no example of {parameter['name']}"
            if "example" in parameter:
                found += [
                    f"{label} {parameter['name']}: {p}"
                    for p in problems(document, parameter["schema"], parameter["example"])
                ]
        successes = [r for s, r in operation["responses"].items() if s[0] == "2"]
        assert any("example" in r["content"]["application/json"] for r in successes), label
        for status, response in operation["responses"].items():
            media = response["content"]["application/json"]
            values = [media["example"]] if "example" in media else []
            values += [example["value"] for example in media.get("examples", {}).values()]
            for value in values:
                found += [
                    f"{label} {status}: {p}" for p in problems(document, media["schema"], value)
                ]
    assert not found, "\n".join(found)


async def test_with_schedules_turned_off_the_schedule_operations_keep_their_names(
    settings: Settings, clock: FakeClock
) -> None:
    built = await build_container(settings.model_copy(update={"schedules": False}), clock)
    try:
        async with open_api(built, clock) as api:
            document = await openapi(api)
    finally:
        await built.aclose()
    schedule = {
        operation["operationId"]: sorted(operation["responses"])
        for _, path, operation in operations(document)
        if path.endswith("/schedule")
    }
    names = [f"{verb}{kind}Schedule" for verb in ("set", "get", "delete") for kind in KINDS]
    assert sorted(schedule) == sorted(names)
    assert all("501" in statuses for statuses in schedule.values())


async def test_the_push_example_succeeds_against_a_default_sandbox_battery(api: Api) -> None:
    document = await openapi(api)
    push = document["paths"]["/battery/{deviceId}"]["post"]
    example = push["requestBody"]["content"]["application/json"]["example"]
    caller = await api.caller()
    battery = await api.sandbox_device(caller)  # the default profile
    response = await api.client.post(
        f"/battery/{battery['id']}", json=example, headers=caller.headers
    )
    assert response.status_code == 200, response.text
    assert response.json()["data"]["state"] == "acknowledged"


async def test_the_tour_behind_the_examples_succeeds_and_matches_them(api: Api) -> None:
    """Every recorded call succeeds again, with an answer valid against its schema and of
    the recorded shape; ENERGYHUB_WRITE_OPENAPI_EXAMPLES=1 records them anew."""
    document = await openapi(api)
    caller = await api.caller()
    recorded = await run_tour(api, caller, document)
    if os.environ.get("ENERGYHUB_WRITE_OPENAPI_EXAMPLES"):
        EXAMPLES.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    stored = json.loads(EXAMPLES.read_text())
    by_id = {op["operationId"]: op for _, _, op in operations(document)}
    found: list[str] = []
    for name, call in recorded.items():
        schema = by_id[name]["responses"][str(call["status"])]["content"]["application/json"]
        found += [f"{name}: {p}" for p in problems(document, schema["schema"], call["response"])]
        assert name in stored, f"{name} has no stored example: {RECORD}"
        assert (stored[name]["status"], keys(stored[name])) == (call["status"], keys(call)), (
            f"{name}: the answer changed: {RECORD}"
        )
    assert not found, "\n".join(found)


def keys(call: dict[str, Any]) -> Any:
    """What a recorded call sent and the fields its answer's data has (ids, times and list
    lengths differ from run to run)."""
    data = call["response"]["data"]
    fields = sorted(data) if isinstance(data, dict) else type(data).__name__
    return sorted(call["parameters"]), call.get("body"), fields
