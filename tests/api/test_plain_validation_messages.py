"""Refusals of the schema layer speak the API's voice: a walk over every operation of the
OpenAPI document that takes a JSON body, sending each a body of the wrong shape, an empty
one, an unknown field, and each top-level field with a value of the wrong type, collects
every 400's messages; none may carry a regular expression or a pydantic phrase. The
examples of the first hour get their own sentences."""

from __future__ import annotations

import re
from typing import Any

import pytest

from energyhub.domain.accounts import Environment
from tests.support import Api

JARGON = re.compile(
    r"Input should|String should|Value error|should match pattern|Field required|"
    r"Extra inputs|valid dictionary|\\d|\[\^|\^\(|pydantic|model_attributes"
)
WRONG = {"string": 5, "integer": "five", "number": "five", "boolean": "yes", "object": 5}
WRONG_FOR_ANY = [5, "five", {"value": "x"}]


def resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = document["components"]["schemas"][name]
    return schema


def bodies(document: dict[str, Any], schema: dict[str, Any]) -> list[Any]:
    """Bodies that the schema refuses, one mistake each."""
    schema = resolve(document, schema)
    made: list[Any] = [[], {}, {"notAField": 1}]
    for name, field in schema.get("properties", {}).items():
        kind = resolve(document, field).get("type")
        for wrong in [WRONG[kind]] if kind in WRONG else WRONG_FOR_ANY:
            made.append({name: wrong})
    return made


async def test_no_400_of_the_schema_layer_speaks_jargon(api: Api) -> None:
    caller = await api.caller(Environment.SANDBOX)
    document = (await api.client.get("/openapi.json")).json()
    messages: list[tuple[str, str]] = []
    walked = 0
    for path, operations in document["paths"].items():
        url = re.sub(r"\{[^}]+\}", "x", path)
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            schema = content.get("application/json", {}).get("schema")
            if schema is None:
                continue
            walked += 1
            for body in bodies(document, schema):
                answer = await api.client.request(
                    method.upper(), url, json=body, headers=caller.headers
                )
                if answer.status_code != 400:
                    continue
                error = answer.json()["error"]
                messages.append((f"{method} {path}", error["message"]))
                for problem in error.get("details", {}).get("errors", []):
                    messages.append((f"{method} {path} {problem['path']}", problem["message"]))
    assert walked >= 12, walked
    assert len(messages) > 100, len(messages)
    spoken = [(where, said) for where, said in messages if JARGON.search(said)]
    assert spoken == [], spoken[:10]


@pytest.mark.parametrize(
    ("body", "path", "said"),
    [
        (
            {"action": {"command": "charge"}, "start": "2030-01-01T10:00:00+02:00"},
            "body.start",
            "start must be the device's local wall-clock time as YYYY-MM-DDTHH:MM:SS, with no "
            "offset and no Z",
        ),
        (
            {"action": {"command": "charge"}, "end": "2030-01-01T10:00:00Z"},
            "body.end",
            "metadata.timezone",
        ),
        (
            {"action": {"command": "charge", "parameters": {"power": 3}}},
            "body.action.parameters.power",
            'power must be a quantity, an object with a value and a unit: {"value": 3, '
            '"unit": "kw"}',
        ),
        ({"action": "charge"}, "body.action", "action must be a JSON object"),
        (
            {"action": {"command": "charge"}, "onConflict": "whatever"},
            "body.onConflict",
            "onConflict must be one of 'cancel_and_replace' or 'queue_after'",
        ),
    ],
)
async def test_a_push_body_of_the_wrong_form_is_told_what_to_send(
    api: Api, body: dict[str, Any], path: str, said: str
) -> None:
    caller = await api.caller(Environment.SANDBOX)
    device = await api.sandbox_device(caller)
    answer = await api.client.post(f"/battery/{device['id']}", json=body, headers=caller.headers)
    assert answer.status_code == 400, answer.text
    problems = {p["path"]: p["message"] for p in answer.json()["error"]["details"]["errors"]}
    assert said in problems[path], problems


async def test_an_unknown_profile_and_a_bad_url_are_told_what_to_send(api: Api) -> None:
    caller = await api.caller(Environment.SANDBOX)
    answer = await api.client.post(
        "/sandbox/devices",
        json={"type": "battery", "userId": "u1", "profile": "nope"},
        headers=caller.headers,
    )
    [problem] = answer.json()["error"]["details"]["errors"]
    assert problem["message"] == (
        "unknown battery profile 'nope': use one of battery, battery-auto-schedule, battery-minimal"
    )
    answer = await api.client.post(
        "/webhooks/endpoints", json={"url": "ftp://example.com/x"}, headers=caller.headers
    )
    [problem] = answer.json()["error"]["details"]["errors"]
    assert problem["message"].startswith("url must be an absolute http:// or https:// URL")
