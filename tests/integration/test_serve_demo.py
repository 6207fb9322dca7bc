"""A newcomer's first start (CONTRACT 0), as a real process: `energyhub serve` on an empty
database prints a sandbox key that reads a battery at once, and a dashboard sign-in that
opens the dashboard."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from tests.processes import start_service

pytestmark = pytest.mark.slow


def test_first_start_prints_a_working_sandbox_key(tmp_path: Path) -> None:
    service = start_service(f"sqlite+aiosqlite:///{tmp_path / 'energyhub.db'}", tmp_path)
    try:
        output = service.log.read_text()
        key = re.search(r"sk_test_[A-Za-z0-9]{32,}", output)
        battery = re.search(r"/battery/([0-9a-f-]{36})", output)
        assert key, output
        assert battery, output
        base = service.base
        assert f"{base}/docs" in output
        assert f"{base}/dashboard" in output
        assert f"{base}/link/app_" in output
        # the migration of the new database is one line, not Alembic's step-by-step account
        assert "migrating the database from empty to" in output
        assert "alembic" not in output, output[:2000]
        headers = {"x-api-key": key.group(0)}
        response = httpx.get(f"{base}/battery/{battery.group(1)}", headers=headers)
        assert response.status_code == 200
        assert response.json()["data"]["type"] == "battery"
        users = httpx.get(f"{base}/users/demo-user/devices", headers=headers)
        assert users.json()["data"]["pagination"]["total"] == 8  # six devices, two vehicles
        sign_in = re.search(r"sign in as (\S+) with password (\S+), shown once", output)
        assert sign_in, output
        with httpx.Client(base_url=base) as browser:
            form = browser.get("/dashboard/sign-in")
            token = re.search(r'name="sign_in_token" value="([^"]+)"', form.text)
            assert token
            answer = browser.post(
                "/dashboard/sign-in",
                data={
                    "sign_in_token": token[1],
                    "email": sign_in[1],
                    "password": sign_in[2],
                    "next": "/dashboard/sandbox/devices",
                },
            )
            assert answer.status_code == 303
            devices = browser.get("/dashboard/sandbox/devices")
            assert "6 devices in the sandbox environment" in devices.text
            assert battery.group(1) in devices.text
    finally:
        service.stop()
