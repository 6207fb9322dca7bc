"""How schemathesis fuzzes the service: the seeded ids it draws from (its fuzz dictionaries),
the documented answers that are not failures, and the schema it reads."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import available_timezones

from schemathesis.openapi.checks import EnsureResourceAvailability, RejectedPositiveData

KNOWN_ID = 0.85  # how often a path id is a seeded one rather than a random one
KNOWN_VALUE = 0.5  # how often a body field or query filter is a known good value
KNOWN_TIMEZONES = ("Europe/Berlin", "UTC")
TIMEZONE_FORMAT = "iana-timezone"
TIMEZONE_NAMES = sorted(available_timezones() - {"localtime"})
"""What schemathesis draws for a string of format `iana-timezone`."""
PUSH = frozenset({"POST /battery/{deviceId}", "POST /ev-charger/{deviceId}"})

# operation paths (regex) -> the path parameter and the seeded ids it is drawn from
PATH_IDS: list[tuple[str, str, str]] = [
    (r"^/battery/\{deviceId\}", "deviceId", "batteries"),
    (r"^/ev-charger/\{deviceId\}", "deviceId", "chargers"),
    (r"^/sandbox/devices/\{deviceId\}/", "deviceId", "sandbox_devices"),
    (r"^/vehicles/", "vehicleId", "vehicles"),
    (r"^/actions/\{actionId\}", "actionId", "actions"),
    (r"^/battery/actions/", "actionId", "battery_actions"),
    (r"^/ev-charger/actions/", "actionId", "charger_actions"),
    (r"^/users/\{userIdOrEmail\}", "userIdOrEmail", "users"),
    (r"^/users/\{userId\}/site", "userId", "users"),
    (r"^/webhooks/deliveries/", "deliveryId", "deliveries"),
]

# 400 INVALID_REQUEST to a request its schema allows, for a rule no JSON Schema can state;
# any other 400 to schema-valid data is a finding (the schema is looser than the service).
RULES_BEYOND_A_SCHEMA = (
    "contains the NUL character",  # refused in every string: PostgreSQL cannot store U+0000
    "must lie between 1970-01-01 and 9998-12-31",  # the instants the service stores
    ": that month has no day ",  # 2026-02-30: a pattern cannot know the length of a month
    "must be after start",  # a window's end, compared with its start
    "end must be in the future",  # a push window's end, compared with now
    "from must not be after to",  # a query's range, one bound compared with the other
    "only rule weekly takes days",  # a field allowed with one value of another
    "required with rule weekly",  # a field required with one value of another
    ": a gap",  # a tariff's periods cover the day,
    " overlap from ",  # each hour once
    "is in the future",  # a meter reading, compared with now
    "must be at most P7D",  # a slot's duration, compared with a week
    # which timezone names exist: the document shows a string of the names' shape (format
    # iana-timezone), not an enum of some 600 names; the fuzz draws real ones (TIMEZONE_NAMES)
    "an IANA timezone name such as Europe/Berlin",
)


# Found by this test and reported, not yet fixed: (operation, message). Each is a schema
# looser than the service; delete the entry with the fix.
KNOWN_FINDINGS: tuple[tuple[str, str], ...] = ()

# Refusals of data that schemathesis's coverage phase offers as schema-valid but that the
# schema refuses (its known false positives of positive_data_acceptance with anyOf and
# nested `required`): (operation, message). TariffIn requires `import`; a tariff without it
# fails the schema, as test_sites checks.
GENERATOR_FALSE_POSITIVES = (
    ("PUT /users/{userId}/site", "required: send {timeOfUse: [...]} or {prices: [...]}"),
)


def bind(name: str, probability: float = KNOWN_ID) -> dict[str, Any]:
    return {"dictionary": name, "probability": probability}


def dictionaries(ids: dict[str, list[str]], now: datetime) -> dict[str, list[str]]:
    """The seeded ids plus commands and times a device accepts (plant-local for a push's
    `start`/`end`, UTC for slots and locks), over the next two days."""
    hours = [now + timedelta(hours=h, minutes=30) for h in range(1, 48, 5)]
    return {
        **ids,
        "actions": ids["battery_actions"] + ids["charger_actions"],
        "commands": ["idle", "charge", "discharge", "auto.balance", "auto.charge_tariff"],
        "durations": ["PT30M", "PT2H", "P1D"],
        "timezones": list(KNOWN_TIMEZONES),
        "rules": ["weekly", "daily"],
        "local_times": [t.strftime("%Y-%m-%dT%H:%M:%S") for t in hours],
        "utc_times": [t.strftime("%Y-%m-%dT%H:%M:%SZ") for t in hours],
    }


def operations(document: dict[str, Any]) -> list[dict[str, Any]]:
    """Per-operation settings: which seeded ids each path parameter is drawn from, and the
    5xx each documents."""
    found: list[dict[str, Any]] = [
        {"include-path-regex": regex, "parameters": {f"path.{parameter}": bind(name)}}
        for regex, parameter, name in PATH_IDS
    ]
    found += [
        {  # deleted ones stay deleted: DELETE takes endpoints of its own
            "include-path": "/webhooks/endpoints/{endpointId}",
            "include-method": "DELETE",
            "parameters": {"path.endpointId": bind("spare_endpoints")},
        },
        {
            "include-path-regex": r"^/webhooks/endpoints/\{endpointId\}",
            "include-method-regex": "^(GET|POST)$",
            "parameters": {"path.endpointId": bind("endpoints")},
        },
        {
            "include-path": "/users/{userId}/linked-accounts/{linkedAccountId}",
            "parameters": {
                "path.userId": bind("linked_users"),
                "path.linkedAccountId": bind("linked_accounts"),
            },
        },
    ]
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            # 502 (the device refused a push or a setting), 503 (a vendor is down), 501
            # (schedules switched off) are answers; 500 stays a failure everywhere
            statuses = sorted(s for s in operation["responses"] if s[0] == "5" and s != "500")
            if statuses:
                expected = {"expected-statuses": ["2xx", "3xx", "4xx", *statuses]}
                found.append(
                    {
                        "include-name": f"{method.upper()} {path}",
                        "checks": {"not_a_server_error": expected},
                    }
                )
    return found


BODY_VALUES = {
    "body.action.command": "commands",
    "body.slots[*].command": "commands",
    "body.slots[*].duration": "durations",
    "body.timezone": "timezones",
    "body.recurrence.rule": "rules",
    "body.start": "local_times",
    "body.end": "local_times",
    "body.slots[*].at": "utc_times",
    "body.until": "utc_times",
    "query.deviceId": "batteries",
    "query.endpointId": "endpoints",
}


def expected_refusal(failure: Any, response: Any) -> bool:
    """Whether a check's failure is an answer the service documents, which the check cannot
    know: a 422 (a device or account that does not take a well-formed request: an unknown
    command or setting for this device, the endpoint limit), a 423 (VPP lock), a 400 for a
    rule of `RULES_BEYOND_A_SCHEMA`; and a push read as having created a schedule (schemathesis
    takes a 2xx POST to /{type}/{id} for the creation of what lies below it)."""
    error = _error(response)
    if isinstance(failure, RejectedPositiveData):
        if response.status_code in (422, 423):
            return error.get("code") not in (None, "INVALID_REQUEST")
        if response.status_code == 400 and error.get("code") == "INVALID_REQUEST":
            known = [
                text
                for label, text in (*KNOWN_FINDINGS, *GENERATOR_FALSE_POSITIVES)
                if label == failure.operation
            ]
            rules = (*RULES_BEYOND_A_SCHEMA, *known)
            problems = error.get("details", {}).get("errors") or [error]
            return all(any(rule in str(p.get("message")) for rule in rules) for p in problems)
    if isinstance(failure, EnsureResourceAvailability):
        return failure.created_with in PUSH and error.get("code") == "SCHEDULE_NOT_FOUND"
    return False


def _error(response: Any) -> dict[str, Any]:
    try:
        error = response.json()["error"]
    except (ValueError, KeyError, TypeError):
        return {}
    return error if isinstance(error, dict) else {}


def sample_long_enums(node: Any, seed: int, keep: int = 12) -> Any:
    """The document with each enum of over 100 values (the IANA timezones a request may
    name) cut to a seeded sample of `keep` plus its first and last and the known ones: one code
    path, and the coverage phase would otherwise send all 599 names to each operation that
    takes one (over half of a run's cases)."""
    if isinstance(node, list):
        return [sample_long_enums(item, seed, keep) for item in node]
    if not isinstance(node, dict):
        return node
    copied = {key: sample_long_enums(value, seed, keep) for key, value in node.items()}
    values = node.get("enum")
    if isinstance(values, list) and len(values) > 100:
        sample = random.Random(seed).sample(values[1:-1], keep)
        known = [value for value in KNOWN_TIMEZONES if value in values]
        copied["enum"] = list(dict.fromkeys([values[0], *sample, values[-1], *known]))
    return copied
