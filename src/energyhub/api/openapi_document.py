"""`/openapi.json` as client generators and their users read it: tags with descriptions,
the API key as the document's one security scheme, `servers`, the error codes each
operation answers (grouped by status, with an example each), and a request and response
example for every operation, recorded from a run against the sandbox
(`openapi_examples.json`). The operation ids and summaries are chosen by hand on each
route."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from importlib.resources import files
from typing import Any

import orjson
from fastapi import FastAPI

from energyhub.api.openapi_errors import COMMON, OPERATION_ERRORS, error_example
from energyhub.api.openapi_guides import GUIDE_TAGS
from energyhub.domain.errors import ApiError

SECURITY_SCHEME = "ApiKey"
EXAMPLES_FILE = "openapi_examples.json"

TAGS: list[dict[str, str]] = [
    {
        "name": "batteries",
        "description": "Home batteries: read their state, capabilities and settings, send "
        "them commands (now, at a plant-local `start`, or for a window), write settings and "
        "keep a recurring schedule. A read is served from a cache up to 15 minutes old "
        "(`expedite=true`: one minute); lists never pull devices.",
    },
    {
        "name": "ev-chargers",
        "description": "EV chargers: the same reads, commands, settings and schedules as "
        "batteries, plus charging sessions, a charging goal and the plan computed for it.",
    },
    {
        "name": "vehicles",
        "description": "The car seen through a charger (unknown values are null).",
    },
    {
        "name": "actions",
        "description": "Every accepted command is an action: poll it until it is `completed` "
        "or `failed`, list a device's actions, cancel one that is `scheduled` or `deferred`.",
    },
    {
        "name": "users",
        "description": "The end users whose devices an account manages, by id or e-mail.",
    },
    {
        "name": "sandbox",
        "description": "Simulated devices for `sk_test_` keys: create one of any profile, set "
        "its state by hand, lock it for a virtual power plant, disconnect and reconnect it.",
    },
    {
        "name": "webhooks",
        "description": "Endpoints that receive signed events (Standard Webhooks: "
        "`webhook-id`, `webhook-timestamp`, `webhook-signature`), every delivery with its "
        "attempts, a test event on demand and secret rotation without downtime.",
    },
    {
        "name": "linking",
        "description": "Linking a user's devices through the Link UI, and the linked "
        "accounts (manufacturer sessions) that result; revoking one deletes its credentials.",
    },
    {
        "name": "sites",
        "description": "A user's site: its timezone, grid import limit, tariff (fixed, time "
        "of use or dynamic prices) and meter readings, which charging plans are computed from.",
    },
]

KEY_SCHEME = {
    "type": "apiKey",
    "in": "header",
    "name": "x-api-key",
    "description": "The account's API key: `sk_test_...` reaches the sandbox of simulated "
    "devices, `sk_live_...` real hardware. `energyhub keys create` makes one; a fresh "
    "server prints a sandbox key on its first start.",
}


def describe_document(app: FastAPI, public_url: str | None) -> None:
    """Wraps `app.openapi` (after the other wrappers): the document is refined once, when
    first asked for."""
    build = app.openapi
    refined: list[dict[str, Any]] = []

    def openapi() -> dict[str, Any]:
        if not refined:
            refined.append(refine(build(), public_url))
        return refined[0]

    app.openapi = openapi  # type: ignore[method-assign]


def refine(document: dict[str, Any], public_url: str | None) -> dict[str, Any]:
    examples = recorded_examples()
    info = document["info"]
    info.setdefault("license", {"name": "Apache-2.0", "identifier": "Apache-2.0"})
    info.setdefault("contact", {"name": "energyhub"})
    document["servers"] = [
        {"url": public_url, "description": "This server"}
        if public_url
        else {"url": "/", "description": "The server this document was read from"}
    ]
    described = {tag["name"]: tag for tag in document.get("tags", [])}
    reference = [described.get(tag["name"], tag) for tag in TAGS] + [
        tag for name, tag in described.items() if name not in {t["name"] for t in TAGS}
    ]
    document["tags"] = GUIDE_TAGS + reference
    document["x-tagGroups"] = [
        {"name": "Guides", "tags": [tag["name"] for tag in GUIDE_TAGS]},
        {"name": "Reference", "tags": [tag["name"] for tag in reference]},
    ]
    components = document.setdefault("components", {})
    components["securitySchemes"] = {SECURITY_SCHEME: KEY_SCHEME}
    document["security"] = [{SECURITY_SCHEME: []}]
    for name in ("HTTPValidationError", "ValidationError"):
        components.get("schemas", {}).pop(name, None)
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            operation.pop("security", None)  # the document's own applies
            _document_errors(operation)
            _attach_examples(operation, examples.get(operation.get("operationId", ""), {}))
    return document


def recorded_examples() -> dict[str, Any]:
    """Per operation id: `parameters`, `body`, `status` and `response` of a recorded call."""
    loaded: dict[str, Any] = orjson.loads((files("energyhub.api") / EXAMPLES_FILE).read_bytes())
    return loaded


def _document_errors(operation: dict[str, Any]) -> None:
    """Every error status names the codes it carries, each with an example; FastAPI's own
    422 (a shape this service never answers: its validation errors are 400s) goes."""
    responses: dict[str, Any] = operation["responses"]
    for status, response in list(responses.items()):
        if "HTTPValidationError" in orjson.dumps(response).decode():
            del responses[status]
    own = OPERATION_ERRORS.get(operation.get("operationId", ""), ())
    by_status: dict[str, list[type[ApiError]]] = {}
    for error in (*COMMON, *own):
        by_status.setdefault(str(error.status), []).append(error)
    for status, errors in sorted(by_status.items()):
        response = responses.setdefault(status, _error_response(responses))
        response["description"] = _codes_text(errors)
        media = response.setdefault("content", {}).setdefault("application/json", {})
        media.setdefault("schema", {"$ref": "#/components/schemas/ErrorEnvelope"})
        media["examples"] = {error.code: error_example(error) for error in errors}


def _error_response(responses: dict[str, Any]) -> dict[str, Any]:
    """A new error response, with the headers the others carry."""
    headers = next((r["headers"] for r in responses.values() if "headers" in r), None)
    return {} if headers is None else {"headers": copy.deepcopy(headers)}


def _codes_text(errors: Iterable[type[ApiError]]) -> str:
    return "\n".join(f"- `{error.code}`: {error.default_message}" for error in errors)


def _attach_examples(operation: dict[str, Any], recorded: dict[str, Any]) -> None:
    if not recorded:
        return
    values = recorded.get("parameters", {})
    for parameter in operation.get("parameters", []):
        if parameter["name"] in values:
            parameter["example"] = values[parameter["name"]]
    body = operation.get("requestBody", {}).get("content", {}).get("application/json")
    if body is not None and "body" in recorded:
        body["example"] = recorded["body"]
    media = operation["responses"].get(str(recorded["status"]), {}).get("content", {})
    if "schema" in media.get("application/json", {}):
        media["application/json"]["example"] = recorded["response"]


def walk_operations(
    document: dict[str, Any],
) -> Iterable[tuple[str, str, dict[str, Any]]]:
    """(method, path, operation) for each operation of the document."""
    for path, operations in document.get("paths", {}).items():
        for method, operation in operations.items():
            yield method, path, operation
