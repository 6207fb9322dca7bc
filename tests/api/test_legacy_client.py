"""A client written for the older variant works unchanged with its `sk_sandbox_` key
(CONTRACT 13): listings, pushes and the errors it knows, without any version header."""

from __future__ import annotations

import pytest

from energyhub.domain.accounts import Environment
from tests.legacy_client import LegacyApiError, LegacyClient, legacy_scenario
from tests.support import Api


async def test_a_legacy_client_works_unchanged(api: Api) -> None:
    caller = await api.caller()
    await api.sandbox_device(caller)
    await api.sandbox_device(caller, "ev-charger")
    accounts = api.container.services.accounts
    created = await accounts.create_key(
        caller.account_id, Environment.SANDBOX, prefix="sk_sandbox_"
    )
    client = LegacyClient(api.client, created.key)
    await legacy_scenario(client)
    assert await accounts.revoke_key(created.api_key.id)
    with pytest.raises(LegacyApiError) as expired:
        await client.batteries()
    assert (expired.value.status, expired.value.code) == (401, "API_KEY_EXPIRED")
    missing = LegacyClient(api.client, "sk_sandbox_" + "x" * 40)
    with pytest.raises(LegacyApiError) as unknown:
        await missing.batteries()
    assert (unknown.value.status, unknown.value.code) == (401, "UNAUTHORIZED")
