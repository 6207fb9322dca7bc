"""Keys and API versions on the command line (CONTRACT 13): pinned at creation, listed,
moved with `keys set-version`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from energyhub.cli import app


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("ENERGYHUB_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}")
    return CliRunner()


def _json(cli: CliRunner, *args: str) -> Any:
    result = cli.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_keys_are_pinned_listed_and_moved(cli: CliRunner) -> None:
    account = _json(cli, "accounts", "create", "--name", "Versions", "--json")["accountId"]

    def create(*extra: str) -> Any:
        return _json(cli, "keys", "create", "--account", account, *extra, "--json")

    made = {
        "test": create("--env", "test"),
        "live": create("--env", "live"),
        "sandbox": create("--env", "sandbox"),
        "test-legacy": create("--env", "test", "--api-version", "legacy"),
        "sandbox-1.0": create("--env", "sandbox", "--api-version", "1.0"),
    }
    assert {name: key["apiVersion"] for name, key in made.items()} == {
        "test": "1.0",
        "live": "1.0",
        "sandbox": "legacy",
        "test-legacy": "legacy",
        "sandbox-1.0": "1.0",
    }
    assert made["sandbox"]["key"].startswith("sk_sandbox_")
    listed = _json(cli, "keys", "list", "--account", account, "--json")
    assert [k["apiVersion"] for k in listed] == ["1.0", "1.0", "legacy", "legacy", "1.0"]
    moved = _json(cli, "keys", "set-version", made["sandbox"]["keyId"], "1.0", "--json")
    assert moved == {"keyId": made["sandbox"]["keyId"], "apiVersion": "1.0"}
    listed = _json(cli, "keys", "list", "--account", account, "--json")
    assert [k["apiVersion"] for k in listed] == ["1.0", "1.0", "1.0", "legacy", "1.0"]
    table = cli.invoke(app, ["keys", "list", "--account", account])
    assert "legacy" in table.stdout
    unknown = cli.invoke(app, ["keys", "set-version", "key_nope", "legacy"])
    assert unknown.exit_code == 1
    bad = cli.invoke(app, ["keys", "set-version", made["test"]["keyId"], "2.0"])
    assert bad.exit_code == 2
    assert "1.0 or legacy" in bad.output
    refused = cli.invoke(
        app, ["keys", "create", "--account", account, "--env", "test", "--api-version", "0.9"]
    )
    assert refused.exit_code == 2
