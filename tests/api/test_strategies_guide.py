"""docs/strategies.md: every curl example in the guide runs, in order, against the service
(replayed through the HTTP client with its method, headers and body) and succeeds."""

from __future__ import annotations

import re
import shlex
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.support import Api

GUIDE = Path(__file__).parents[2] / "docs" / "strategies.md"
pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


def curl_commands(text: str) -> list[list[str]]:
    """Each `curl` command of the guide's sh blocks, continuation lines joined."""
    commands: list[list[str]] = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL):
        for word in shlex.split(block.replace("\\\n", " "), comments=True):
            if word == "curl":
                commands.append([])
            commands[-1].append(word)
    return commands


async def test_every_curl_example_of_the_guide_succeeds(api: Api) -> None:
    api.clock.set(datetime(2026, 12, 1, 12, 0, tzinfo=UTC))
    caller = await api.caller()
    charger = await api.sandbox_device(caller, "ev-charger", user_id="home-1")
    variables = {"$KEY": caller.key, "$API": "", "$CHARGER_ID": charger["id"]}
    commands = curl_commands(GUIDE.read_text())
    assert len(commands) == 11
    for argv in commands:
        method, headers, body, url = "GET", {}, None, ""
        words = iter(argv[1:])
        for word in words:
            if word == "-X":
                method = next(words)
            elif word == "-H":
                name, _, value = next(words).partition(": ")
                headers[name] = value
            elif word == "-d":
                body = next(words)
                method = "POST" if method == "GET" else method
            elif word.startswith("$API/"):
                url = word
        for name, value in {**variables, **headers}.items():
            if name.startswith("$"):
                url = url.replace(name, value)
        headers = {k: v.replace("$KEY", caller.key) for k, v in headers.items()}
        response = await api.client.request(method, url, content=body, headers=headers)
        assert response.status_code in (200, 202), (argv, response.text)
    plan = (await api.get(caller, f"/ev-charger/{charger['id']}/plan")).json()["data"]
    assert plan["strategy"] == "auto.charge_tariff"
