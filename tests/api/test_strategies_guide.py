"""docs/strategies.md: every curl example in the guide runs, in order, against the service
(replayed through the HTTP client with its method, headers and body) and succeeds."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.api.curl_replay import curl_commands, replay
from tests.support import Api

GUIDE = Path(__file__).parents[2] / "docs" / "strategies.md"
pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


async def test_every_curl_example_of_the_guide_succeeds(api: Api) -> None:
    api.clock.set(datetime(2026, 12, 1, 12, 0, tzinfo=UTC))
    caller = await api.caller()
    charger = await api.sandbox_device(caller, "ev-charger", user_id="home-1")
    variables = {"$KEY": caller.key, "$API": "", "$CHARGER_ID": charger["id"]}
    commands = curl_commands(GUIDE.read_text())
    assert len(commands) == 11
    for argv in commands:
        response = await replay(api.client, argv, variables)
        assert response.status_code in (200, 202), (argv, response.text)
    plan = (await api.get(caller, f"/ev-charger/{charger['id']}/plan")).json()["data"]
    assert plan["strategy"] == "auto.charge_tariff"
