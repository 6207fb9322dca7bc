"""`energyhub devices add-ocpp` (CONTRACT 8): commissions a live charger that can then
connect with its password."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.integration.ocpp_support import PASSWORD, charger, running_service


def _energyhub(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ENERGYHUB_DATABASE_URL": f"sqlite+aiosqlite:///{db}"}
    return subprocess.run(
        [sys.executable, "-m", "energyhub", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


async def test_add_ocpp_prints_the_device_id_and_the_charger_connects(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    account = json.loads(_energyhub(db, "accounts", "create", "--name", "Op", "--json").stdout)
    common = ["devices", "add-ocpp", "--account", account["accountId"], "--user", "u-1"]
    added = _energyhub(db, *common, "--charge-point-id", "CP-CLI", "--password", PASSWORD, "--json")
    assert added.returncode == 0, added.stderr
    printed = json.loads(added.stdout)
    assert printed["chargePointId"] == "CP-CLI"
    again = _energyhub(db, *common, "--charge-point-id", "CP-CLI", "--password", PASSWORD)
    assert again.returncode == 1
    assert "commissioned already" in again.stderr
    short = _energyhub(db, *common, "--charge-point-id", "CP-2", "--password", "short")
    assert short.returncode == 1
    assert "16-40" in short.stderr
    async with running_service(db) as service, charger(service, "CP-CLI", "ocpp2.0.1"):
        station = service.container.ocpp.station("CP-CLI")
        assert station is not None
        assert station.device_id == printed["deviceId"]
