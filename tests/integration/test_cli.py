"""The `energyhub` command (CONTRACT 0): JSON alone on stdout, keys shown once."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from typer.testing import CliRunner

from energyhub.bootstrap import build_container
from energyhub.cli import app
from energyhub.config import Settings
from energyhub.domain.accounts import Environment, Principal


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("ENERGYHUB_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}")
    return CliRunner()


def _json(cli: CliRunner, *args: str) -> object:
    result = cli.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_accounts_and_keys_lifecycle(cli: CliRunner) -> None:
    account = _json(cli, "accounts", "create", "--name", "Acme", "--json")
    assert isinstance(account, dict)
    assert account["accountId"].startswith("acc_")
    assert account["appId"].startswith("app_")
    test_key = _json(
        cli, "keys", "create", "--account", account["accountId"], "--env", "test", "--json"
    )
    live_key = _json(
        cli, "keys", "create", "--account", account["accountId"], "--env", "live", "--json"
    )
    legacy = _json(
        cli, "keys", "create", "--account", account["accountId"], "--env", "sandbox", "--json"
    )
    assert isinstance(test_key, dict)
    assert isinstance(live_key, dict)
    assert isinstance(legacy, dict)
    assert test_key["key"].startswith("sk_test_")
    assert len(test_key["key"]) >= 8 + 32
    assert live_key["key"].startswith("sk_live_")
    assert legacy["key"].startswith("sk_sandbox_")
    listed = _json(cli, "keys", "list", "--account", account["accountId"], "--json")
    assert isinstance(listed, list)
    assert [k["keyId"] for k in listed] == [test_key["keyId"], live_key["keyId"], legacy["keyId"]]
    assert all(test_key["key"] not in json.dumps(k) for k in listed), "keys are shown once"
    revoked = cli.invoke(app, ["keys", "revoke", test_key["keyId"]])
    assert revoked.exit_code == 0
    again = cli.invoke(app, ["keys", "revoke", test_key["keyId"]])
    assert again.exit_code == 1
    listed = _json(cli, "keys", "list", "--account", account["accountId"], "--json")
    assert isinstance(listed, list)
    assert listed[0]["revokedAt"] is not None


def test_key_with_expiry_and_errors(cli: CliRunner) -> None:
    account = _json(cli, "accounts", "create", "--name", "Acme", "--json")
    assert isinstance(account, dict)
    expiring = _json(
        cli,
        "keys",
        "create",
        "--account",
        account["accountId"],
        "--env",
        "test",
        "--expires-at",
        "2030-01-01T00:00:00",
        "--json",
    )
    assert isinstance(expiring, dict)
    assert expiring["expiresAt"] == "2030-01-01T00:00:00.000Z"
    bad_env = cli.invoke(
        app, ["keys", "create", "--account", account["accountId"], "--env", "prod"]
    )
    assert bad_env.exit_code != 0
    missing = cli.invoke(app, ["keys", "create", "--account", "acc_nope", "--env", "test"])
    assert missing.exit_code == 1
    assert "acc_nope" in missing.stderr


def test_migrate(cli: CliRunner) -> None:
    result = cli.invoke(app, ["migrate"])
    assert result.exit_code == 0
    assert "up to date" in result.stderr


def test_accounts_add_member_lets_someone_sign_in(cli: CliRunner) -> None:
    account = _json(cli, "accounts", "create", "--name", "Acme", "--json")
    assert isinstance(account, dict)
    args = ["accounts", "add-member", "--account", account["accountId"]]
    added = cli.invoke(
        app,
        [*args, "--email", "Ops@Acme.example", "--password-stdin", "--json"],
        input="correct horse battery\n",
    )
    assert added.exit_code == 0, added.output
    member = json.loads(added.stdout)
    assert member["email"] == "ops@acme.example"
    assert member["memberId"].startswith("mem_")
    assert "correct horse battery" not in added.output
    prompted = cli.invoke(
        app, [*args, "--email", "two@acme.example"], input="another long secret\n" * 2
    )
    assert prompted.exit_code == 0, prompted.output
    for email, password, says in [
        ("ops@acme.example", "correct horse battery", "already a member"),
        ("three@acme.example", "short", "at least 12 characters"),
        ("not-an-address", "correct horse battery", "is not an e-mail address"),
    ]:
        refused = cli.invoke(
            app, [*args, "--email", email, "--password-stdin"], input=password + "\n"
        )
        assert refused.exit_code == 1
        assert says in refused.output
    missing = cli.invoke(
        app,
        ["accounts", "add-member", "--account", "acc_nope", "--email", "x@y.example"],
        input="correct horse battery\n" * 2,
    )
    assert missing.exit_code == 1
    assert "no account" in missing.output


def test_secrets_rotate_reencrypts_with_the_first_key(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An old key, then a new one put first: `secrets rotate` re-encrypts what the old key
    sealed, so the service starts with the new key alone."""
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    monkeypatch.setenv("ENERGYHUB_SECRET_KEY", old)
    account = _json(cli, "accounts", "create", "--name", "Acme", "--json")
    assert isinstance(account, dict)
    key = _json(cli, "keys", "create", "--account", account["accountId"], "--env", "test", "--json")
    assert isinstance(key, dict)

    async def add_endpoint() -> str:
        container = await build_container(Settings(database_url=db_url(tmp_path)))
        try:
            principal = Principal(account["accountId"], Environment.SANDBOX, key["keyId"])
            made = await container.services.webhooks.create_endpoint(
                principal, "https://hooks.example.com/x"
            )
            return made.secret
        finally:
            await container.aclose()

    secret = asyncio.run(add_endpoint())
    monkeypatch.setenv("ENERGYHUB_SECRET_KEY", f"{new},{old}")
    assert _json(cli, "secrets", "rotate", "--json") == {"credentials": 0, "signingSecrets": 1}
    monkeypatch.setenv("ENERGYHUB_SECRET_KEY", new)

    async def reveal() -> str:
        container = await build_container(Settings(database_url=db_url(tmp_path)))
        try:
            principal = Principal(account["accountId"], Environment.SANDBOX, key["keyId"])
            (endpoint,) = await container.services.webhooks.list_endpoints(principal)
            return endpoint.secret
        finally:
            await container.aclose()

    assert asyncio.run(reveal()) == secret


def db_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}"
