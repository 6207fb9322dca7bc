"""`energyhub devices add-sunspec` (CONTRACT 8) against a SunSpec battery served from its
own thread (the CLI runs its own event loop)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from energyhub.cli import app
from tests.sunspec_peer import DER_LAYOUT, STORAGE_LAYOUT, SunspecPeer, peer_in_thread


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("ENERGYHUB_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}")
    return CliRunner()


def _json(cli: CliRunner, *args: str) -> Any:
    result = cli.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _add(cli: CliRunner, account: str, peer: SunspecPeer, *extra: str) -> list[str]:
    return [
        "devices",
        "add-sunspec",
        "--account",
        account,
        "--user",
        "user-1",
        "--host",
        "127.0.0.1",
        "--port",
        str(peer.port),
        "--unit-id",
        "1",
        *extra,
    ]


def test_add_sunspec_prints_the_device_id(cli: CliRunner) -> None:
    account = _json(cli, "accounts", "create", "--name", "Acme", "--json")["accountId"]
    with peer_in_thread(STORAGE_LAYOUT) as peer:
        added = _json(cli, *_add(cli, account, peer, "--json"))
        again = _json(cli, *_add(cli, account, peer, "--json"))
        reads = peer.reads
    assert added["deviceId"]
    assert added["created"] is True
    assert (added["vendor"], added["model"]) == ("volta-energy", "ModBat 10")
    assert added["sunspecModels"] == [1, 124, 802]
    assert "charge" in added["commands"]
    assert (again["deviceId"], again["created"]) == (added["deviceId"], False)
    assert reads > 0


def test_add_sunspec_without_json_talks_on_stderr(cli: CliRunner) -> None:
    account = _json(cli, "accounts", "create", "--name", "Acme", "--json")["accountId"]
    with peer_in_thread(DER_LAYOUT, base=0) as peer:
        result = cli.invoke(app, _add(cli, account, peer, "--timezone", "Europe/Madrid"))
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert "SunSpec models 1, 802, 704" in result.stderr


def test_add_sunspec_refusals(cli: CliRunner) -> None:
    account = _json(cli, "accounts", "create", "--name", "Acme", "--json")["accountId"]
    with peer_in_thread(STORAGE_LAYOUT) as peer:
        missing = cli.invoke(app, _add(cli, "acc_nope", peer, "--json"))
        bad_zone = cli.invoke(app, _add(cli, account, peer, "--timezone", "Nowhere/Land"))
    offline = cli.invoke(app, _add(cli, account, peer, "--json"))  # the peer has stopped
    assert (missing.exit_code, missing.stdout) == (1, "")
    assert "acc_nope" in missing.stderr
    assert bad_zone.exit_code == 1
    assert "timezone" in bad_zone.stderr
    assert (offline.exit_code, offline.stdout) == (1, "")
    assert "DEVICE_OFFLINE" in offline.stderr
