"""A live endpoint whose host name resolves to a non-public address is refused when it is
created (422 `WEBHOOK_URL_NOT_PUBLIC`), not only at its deliveries; the lookup is stubbed
(`host_names` in conftest.py) so no DNS query leaves the machine."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Any

import pytest

from energyhub.adapters.host_lookup import DnsHostLookup
from energyhub.domain.accounts import Environment
from energyhub.domain.clock import FakeClock
from energyhub.domain.webhook_reach import IPAddress
from tests.api.test_webhook_private_urls import create, service

SANDBOX, LIVE = Environment.SANDBOX, Environment.LIVE
REAL_LOOKUP = DnsHostLookup.addresses  # before the autouse stub replaces it
URL = "https://hooks.acme.example/energy"


def ips(*texts: str) -> list[IPAddress]:
    return [ipaddress.ip_address(t) for t in texts]


@pytest.mark.parametrize(
    ("policy", "environment", "resolved", "status"),
    [
        ("sandbox", LIVE, ("10.0.0.7",), 422),
        ("sandbox", LIVE, ("127.0.0.1",), 422),
        ("sandbox", LIVE, ("93.184.215.14", "fd00::5"), 422),  # one private address is enough
        ("none", LIVE, ("169.254.169.254",), 422),
        ("sandbox", LIVE, ("93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"), 201),
        ("sandbox", LIVE, (), 201),  # resolves to nothing yet: checked at every delivery
        ("all", LIVE, ("10.0.0.7",), 201),
        ("sandbox", SANDBOX, ("10.0.0.7",), 201),  # sandbox endpoints: checked at delivery
    ],
)
async def test_a_live_endpoint_whose_name_resolves_to_a_private_address_is_refused(
    tmp_path: Path,
    clock: FakeClock,
    host_names: dict[str, list[IPAddress]],
    policy: str,
    environment: Environment,
    resolved: tuple[str, ...],
    status: int,
) -> None:
    host_names["hooks.acme.example"] = ips(*resolved)
    async with service(tmp_path, clock, private_webhook_urls=policy) as api:
        caller = await api.caller(environment)
        got, body = await create(api, caller, URL)
        listed = (await api.get(caller, "/webhooks/endpoints")).json()["data"]["items"]
    assert got == status, body
    if status == 422:
        assert body["code"] == "WEBHOOK_URL_NOT_PUBLIC"
        assert body["message"].startswith(
            "The webhook URL's host hooks.acme.example resolves to an address that is not "
            "public, and this endpoint may reach only public addresses: use a public host "
            "name or address"
        )
        assert body["details"] == {
            "field": "body.url",
            "host": "hooks.acme.example",
            "allowed": "public",
        }
        assert listed == []
    else:
        assert [e["url"] for e in listed] == [URL]


async def test_the_lookup_is_the_system_resolver() -> None:
    """localhost resolves on every machine without leaving it."""
    found = await REAL_LOOKUP(DnsHostLookup(), "localhost")
    assert ipaddress.ip_address("127.0.0.1") in found


async def test_rotation_takes_an_optional_body(tmp_path: Path, clock: FakeClock) -> None:
    async with service(tmp_path, clock) as api:
        caller = await api.caller(SANDBOX)
        _, endpoint = await create(api, caller, "http://127.0.0.1:9/hook")
        base = f"/webhooks/endpoints/{endpoint['id']}/rotate-secret"
        bad: Any = await api.client.post(
            base, json={"expireOldNow": "soon"}, headers=caller.headers
        )
        unknown: Any = await api.client.post(base, json={"expireOld": True}, headers=caller.headers)
        document = (await api.client.get("/openapi.json")).json()
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "INVALID_REQUEST"
    assert unknown.status_code == 400
    operation = document["paths"]["/webhooks/endpoints/{endpointId}/test"]["post"]
    assert "202" in operation["responses"]
    rotate = document["paths"]["/webhooks/endpoints/{endpointId}/rotate-secret"]["post"]
    assert "requestBody" in rotate
