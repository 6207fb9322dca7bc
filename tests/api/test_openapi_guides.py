"""The served reference's guides: one tag per area with no operations, first in ReDoc's
groups, in the house style, and every curl in them runs against the sandbox."""

from __future__ import annotations

import re

from energyhub.api.openapi_guides import GUIDES
from tests.api.curl_replay import curl_commands, replay
from tests.support import Api

AREAS = {
    "Quickstart",
    "Sandbox",
    "Pushes and conflicts",
    "Webhooks and verification",
    "Errors",
    "Live devices",
}


async def test_each_area_has_a_guide_tag_first_in_the_document(api: Api) -> None:
    document = (await api.client.get("/openapi.json")).json()
    names = [tag["name"] for tag in document["tags"]]
    guides = [name for name, _ in GUIDES]
    assert names[: len(guides)] == guides
    assert set(guides) >= AREAS
    groups = {group["name"]: group["tags"] for group in document["x-tagGroups"]}
    assert groups["Guides"] == guides
    assert set(groups["Guides"]) | set(groups["Reference"]) == set(names)
    used = {
        tag for path in document["paths"].values() for op in path.values() for tag in op["tags"]
    }
    assert not used & set(guides), "a guide is prose, not a group of operations"
    assert used <= set(groups["Reference"])
    for name, text in GUIDES:
        assert not re.search(r"\b[Ss]pec\b|CONTRACT|[Cc]ontract", text), name


async def test_every_curl_of_the_guides_runs_against_the_sandbox(api: Api) -> None:
    caller = await api.caller()
    battery = await api.sandbox_device(caller, "battery", user_id="demo-user")
    charger = await api.sandbox_device(caller, "ev-charger", user_id="demo-user")
    variables = {
        "$KEY": caller.key,
        "$API": "",
        "$BATTERY_ID": battery["id"],
        "$CHARGER_ID": charger["id"],
    }
    commands = [argv for _, text in GUIDES for argv in curl_commands(text)]
    assert len(commands) == 6
    for argv in commands:
        response = await replay(api.client, argv, variables)
        assert response.status_code in (200, 201, 202), (argv, response.text)
