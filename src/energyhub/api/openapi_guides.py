"""The guides of the served reference: tags with no operations whose descriptions walk a
new integrator through each area (ReDoc and Swagger UI show them as sections; `x-tagGroups`
puts them first in ReDoc). Each guide's curls run in a test against the sandbox."""

from __future__ import annotations

GUIDES: list[tuple[str, str]] = [
    (
        "Quickstart",
        """Start the service (`energyhub serve`); its first start prints a sandbox key
(`sk_test_...`) and makes a demo user with a battery and a charger. Every request sends the
key in `x-api-key`; every answer is an envelope, `{success, data, meta}`.

```sh
export KEY=sk_test_...    # the printed key
export API=http://127.0.0.1:8000
curl -s -H "x-api-key: $KEY" "$API/users/demo-user/devices"
curl -s -H "x-api-key: $KEY" "$API/battery?limit=5"
```

Read one device with `GET /battery/{id}` (served from a cache up to 15 minutes old;
`?expedite=true`: at most one minute). Its `commands` map lists what it accepts and each
parameter's unit and bounds. Lost the key? `energyhub accounts list` and
`energyhub keys create --account ... --env test` make another.""",
    ),
    (
        "Sandbox",
        """`sk_test_` keys reach simulated devices whose state follows the time of day and
the last command they accepted. Make one of any profile for any user (the user is made on
first use):

```sh
curl -s -H "x-api-key: $KEY" -H 'content-type: application/json' \\
  -d '{"type": "ev-charger", "userId": "ada", "profile": "ev-charger"}' \\
  "$API/sandbox/devices"
```

`POST /sandbox/devices/{id}/simulate` plugs a charger's car in or out or sets a level;
`/sandbox/devices/{id}/disconnect` and `/sandbox/devices/{id}/vpp-lock` show how the API
answers a device whose credentials stopped working or that a virtual power plant holds.""",
    ),
    (
        "Pushes and conflicts",
        """A push sends a command: `POST /battery/{id}` or `POST /ev-charger/{id}` with
`{"action": {"command", "parameters"}}`, now, at a `start` on the device's own clock, or for
a window (`start` and `end`). It answers an action; poll `GET /actions/{actionId}` until
`completed` or `failed` (or wait for the webhook).

```sh
curl -s -H "x-api-key: $KEY" -H 'content-type: application/json' \\
  -d '{"action": {"command": "charge",
       "parameters": {"target": {"value": 80, "unit": "percent"}}}}' \\
  "$API/battery/$BATTERY_ID"
```

One action at a time per device and time: a push that overlaps an action in play answers
409 `ACTION_CONFLICT` naming it (`details.conflictingActionId`), unless it says what to do:
`"onConflict": "cancel_and_replace"` cancels the waiting one, `"queue_after"` moves the new
window behind it. An action the device is executing now answers 409
`CONFLICT_IN_EXECUTION`: wait and send again. Parameters outside the commands map's bounds
answer 422 `PARAMETER_OUT_OF_RANGE` with the allowed range.""",
    ),
    (
        "Webhooks and verification",
        """Register an endpoint (`POST /webhooks/endpoints` with its `url` and the `events`
it wants); the answer shows its signing secret once. Every event is a signed POST under
the Standard Webhooks scheme: verify `webhook-signature` over
`{webhook-id}.{webhook-timestamp}.{body}` with the secret (any Standard Webhooks library
does), and reject timestamps more than five minutes off. `webhook-id` is the same on every
retry of one event: use it to drop duplicates. `POST /webhooks/endpoints/{id}/test` sends a
signed test event at once; after a secret rotation both secrets sign for 24 hours.

```sh
curl -s -H "x-api-key: $KEY" "$API/webhooks/endpoints"
```""",
    ),
    (
        "Errors",
        """A refusal is `{"success": false, "error": {"code", "message", "details"?}}` with
the HTTP status: 400 `INVALID_REQUEST` (what is wrong, field by field in `details.errors`),
401 `UNAUTHORIZED`, 404 `*_NOT_FOUND`, 409 `ACTION_CONFLICT`, 422 for a command or value the
device does not take, 423 `VPP_LOCKED`, 429 `RATE_LIMITED` (with `Retry-After`), and
502 for a device or manufacturer that failed the command (`DEVICE_OFFLINE`,
`DEVICE_BUSY`: try again later). Every message says what to send instead; each operation
lists the codes it can answer.""",
    ),
    (
        "Live devices",
        """`sk_live_` keys reach real hardware. EV chargers speaking OCPP 1.6 or 2.0.1
connect to `ws(s)://<host>/ocpp/{chargePointId}` with HTTP Basic credentials made by
`energyhub devices add-ocpp`; batteries and grid meters speaking SunSpec Modbus are added
with `energyhub devices add-sunspec`. A live device reads and takes commands through the same
routes as a sandbox one; its `commands` map says what its hardware declared. Users can also
link devices themselves through the hosted Link UI (`POST /link-sessions`).""",
    ),
    (
        "Charging strategies",
        """Push `auto.charge_tariff`, `auto.charge_surplus_only` or
`auto.charge_surplus_first` to a charger and the service plans and steers it: set the
user's site (`PUT /users/{userId}/site` with a tariff and grid import limit), a goal
(`PUT /ev-charger/{id}/goal`), post meter readings, and read the plan with its one-sentence
explanation:

```sh
curl -s -H "x-api-key: $KEY" "$API/ev-charger/$CHARGER_ID/plan"
```""",
    ),
]

GUIDE_TAGS: list[dict[str, str]] = [
    {"name": name, "description": text, "x-displayName": name} for name, text in GUIDES
]
