"""What a live OCPP charger answers looks like what a sandbox one does, on SQLite and
PostgreSQL: an action's result names its limit in the API's lower-case units, and a
session id has the one format of every session (`ses_` and 24 hex digits)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.integration.ocpp_support import PROTOCOLS, Service, charger, sessions, start_tx

SESSION_ID = re.compile(r"^ses_[0-9a-f]{24}$")


@pytest.fixture
def service(stored: Service) -> Service:
    return stored


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize(
    ("parameters", "limit"),
    [
        ({"power": {"value": 7.4, "unit": "kw"}}, {"value": 7400.0, "unit": "w"}),
        ({"current": {"value": 16, "unit": "a"}}, {"value": 16.0, "unit": "a"}),
    ],
)
async def test_an_action_result_names_its_limit_in_lower_case_units(
    service: Service, protocol: str, parameters: dict[str, Any], limit: dict[str, Any]
) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-UNIT")
    async with charger(service, "CP-UNIT", protocol) as cp:
        await start_tx(cp, 1000)
        pushed = await service.push(caller, device_id, "charge", parameters=parameters)
        assert pushed.status_code == 200, pushed.text
        action_id = pushed.json()["data"]["id"]
        got = await service.client.get(f"/actions/{action_id}", headers=caller.headers)
    assert got.status_code == 200, got.text
    assert got.json()["data"]["result"]["limit"] == limit


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_live_session_id_has_the_sandbox_format(service: Service, protocol: str) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-SES")
    async with charger(service, "CP-SES", protocol) as cp:
        await start_tx(cp, 1000)
        [active] = await sessions(service, caller, device_id)
    assert SESSION_ID.match(active["id"]), active["id"]
