"""A list's `total` counts at most a cap of items past the page (a lower bound beyond it,
as the OpenAPI document says) while `hasMore` stays exact."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import insert

from energyhub.persistence import paging
from energyhub.persistence.tables import actions
from tests.support import Api


async def test_total_is_a_lower_bound_past_the_cap_and_has_more_exact(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(paging, "COUNT_CAP", 3)
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    now = api.clock.now()
    rows = [
        dict(
            id=f"act_bound_{n}",
            account_id=caller.account_id,
            environment="sandbox",
            device_id=device["id"],
            device_type="battery",
            command="charge",
            parameters={},
            device_parameters={},
            state="completed",
            start=now - timedelta(hours=n),
            created_at=now - timedelta(hours=n),
            updated_at=now - timedelta(hours=n),
            tries=0,
        )
        for n in range(8)
    ]
    async with api.container.engine.begin() as connection:
        await connection.execute(insert(actions), rows)
    expected = {
        (0, 2): (5, True),  # 6 follow: counted to 3, total = 0 + 2 + 3
        (2, 2): (7, True),  # 4 follow: 2 + 2 + 3
        (3, 2): (8, True),  # 3 follow: exact
        (6, 2): (8, False),
        (9, 2): (8, False),  # past the end: exact
    }
    for (offset, limit), (total, has_more) in expected.items():
        response = await api.get(caller, "/actions", offset=offset, limit=limit)
        assert response.status_code == 200, response.text
        shown = response.json()["data"]["pagination"]
        assert (shown["total"], shown["hasMore"]) == (total, has_more), (offset, limit)


async def test_the_document_states_the_rule(api: Api) -> None:
    document = (await api.client.get("/openapi.json")).json()
    fields = document["components"]["schemas"]["Pagination"]["properties"]
    assert "lower bound" in fields["total"]["description"]
    assert "1,000" in fields["total"]["description"]
    assert "exact" in fields["hasMore"]["description"]
