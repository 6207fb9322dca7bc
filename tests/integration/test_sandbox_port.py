"""The sandbox address (CONTRACT 13): with ENERGYHUB_SANDBOX_PORT a real `energyhub serve`
process also listens on that port and serves sandbox keys only there, while the main
address keeps serving both environments; both answer in the key's API version."""

from __future__ import annotations

from pathlib import Path

import httpx

from energyhub.bootstrap import build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment
from tests.legacy_client import LegacyClient, legacy_scenario
from tests.processes import free_port, start_service


async def test_the_sandbox_listener_serves_sandbox_keys_only(
    database_url: str, tmp_path: Path
) -> None:
    container = await build_container(Settings(database_url=database_url))
    try:
        accounts = container.services.accounts
        account = await accounts.create_account("two addresses")
        test = (await accounts.create_key(account.id, Environment.SANDBOX)).key
        live = (await accounts.create_key(account.id, Environment.LIVE)).key
        legacy = (
            await accounts.create_key(account.id, Environment.SANDBOX, prefix="sk_sandbox_")
        ).key
        other = await accounts.create_account("main address only")  # its devices stay apart
        other_test = (await accounts.create_key(other.id, Environment.SANDBOX)).key
        other_legacy = (
            await accounts.create_key(other.id, Environment.SANDBOX, prefix="sk_sandbox_")
        ).key
    finally:
        await container.aclose()
    sandbox_port = free_port()
    service = start_service(
        database_url, tmp_path, "--no-demo", env={"ENERGYHUB_SANDBOX_PORT": str(sandbox_port)}
    )
    sandbox_base = f"http://127.0.0.1:{sandbox_port}"
    try:
        async with (
            httpx.AsyncClient(base_url=service.base, timeout=10) as main,
            httpx.AsyncClient(base_url=sandbox_base, timeout=10) as sandbox,
        ):
            for key in (test, other_test):
                for device_type in ("battery", "ev-charger"):
                    made = await main.post(
                        "/sandbox/devices",
                        json={"type": device_type, "userId": "u1"},
                        headers={"x-api-key": key},
                    )
                    assert made.status_code == 201, made.text
            for client, key, version in (
                (main, test, "1.0"),
                (main, live, "1.0"),
                (main, legacy, "legacy"),
                (sandbox, test, "1.0"),
                (sandbox, legacy, "legacy"),
            ):
                answer = await client.get("/battery", headers={"x-api-key": key})
                assert answer.status_code == 200, (client.base_url, answer.text)
                assert answer.headers["energyhub-version"] == version
            refused = await sandbox.get("/battery", headers={"x-api-key": live})
            assert refused.status_code == 401
            error = refused.json()["error"]
            assert error["code"] == "UNAUTHORIZED"
            assert service.base in error["message"]
            assert refused.headers["energyhub-version"] == "1.0"
            assert (await sandbox.get("/healthz")).status_code == 200
            await legacy_scenario(LegacyClient(sandbox, legacy))
            await legacy_scenario(LegacyClient(main, other_legacy))
    finally:
        service.stop()
    log = service.log.read_text()
    assert f"127.0.0.1:{sandbox_port}" in log
    assert "Application shutdown complete" in log, log
