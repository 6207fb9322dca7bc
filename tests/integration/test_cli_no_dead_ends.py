"""No dead ends for an operator, as real processes: `energyhub accounts list` finds the
account a lost key belonged to, every command names the database it opened, every `serve`
start prints where everything is and how to get a new key, and a port already in use stops
`serve` before it touches the database."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.processes import free_port, start_service

pytestmark = pytest.mark.slow


def energyhub(db: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ENERGYHUB_DATABASE_URL": f"sqlite+aiosqlite:///{db}", "COLUMNS": "300"}
    return subprocess.run(
        [sys.executable, "-m", "energyhub", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=cwd,
    )


def test_accounts_list_counts_live_keys_and_names_the_database(tmp_path: Path) -> None:
    db = tmp_path / "ops.db"
    empty = energyhub(db, "accounts", "list", "--json")
    assert empty.returncode == 0, empty.stderr
    assert json.loads(empty.stdout) == {"accounts": []}
    assert f"database: SQLite file {db.resolve()}" in empty.stderr

    made = json.loads(energyhub(db, "accounts", "create", "--name", "Acme", "--json").stdout)
    other = json.loads(energyhub(db, "accounts", "create", "--name", "Bolt", "--json").stdout)
    keys = [
        json.loads(
            energyhub(
                db, "keys", "create", "--account", made["accountId"], "--env", env, "--json"
            ).stdout
        )
        for env in ("test", "live", "test")
    ]
    revoked = energyhub(db, "keys", "revoke", keys[2]["keyId"])
    assert revoked.returncode == 0, revoked.stderr
    expired = energyhub(
        db, "keys", "create", "--account", other["accountId"], "--env", "test",
        "--expires-at", "2020-01-01T00:00:00Z",
    )  # fmt: skip
    assert expired.returncode == 0, expired.stderr

    listed = energyhub(db, "accounts", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == {
        "accounts": [
            {"accountId": made["accountId"], "appId": made["appId"], "name": "Acme", "keys": 2},
            {"accountId": other["accountId"], "appId": other["appId"], "name": "Bolt", "keys": 0},
        ]
    }
    table = energyhub(db, "accounts", "list")
    assert table.returncode == 0
    assert made["accountId"] in table.stdout
    assert "Bolt" in table.stdout


def test_every_serve_start_says_where_things_are_and_how_to_get_a_key(tmp_path: Path) -> None:
    db = tmp_path / "energyhub.db"
    for start in ("first", "second"):
        service = start_service(f"sqlite+aiosqlite:///{db}", tmp_path)
        try:
            output = service.log.read_text()
        finally:
            service.stop()
        base = service.base
        assert f"serving at {base}" in output, start
        assert f"API docs:   {base}/docs" in output
        assert f"dashboard:  {base}/dashboard" in output
        assert f"Link UI:    {base}/link/app_" in output
        assert f"database:   SQLite file {db.resolve()}" in output
        assert "energyhub accounts list" in output
        assert "energyhub keys create --account <accountId> --env test" in output
        shown_once = "sandbox API key (shown once)" in output
        assert shown_once == (start == "first"), "the demo's key only on the first start"


def test_a_port_in_use_stops_serve_before_it_opens_the_database(tmp_path: Path) -> None:
    port = free_port()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", port))
        taken.listen()
        result = energyhub(tmp_path / "never.db", "serve", "--port", str(port), cwd=tmp_path)
    assert result.returncode == 1
    assert f"Port {port} on 127.0.0.1 is already in use" in result.stderr
    assert f"energyhub serve --port {port + 1}" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "never.db").exists(), "no migration, worker or demo ran"
