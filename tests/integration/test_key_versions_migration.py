"""Migration 0013 pins the keys that existed before API versions: `sk_sandbox_` keys (made
for clients of the older variant) to `legacy`, every other key to `1.0`."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text

from energyhub.bootstrap import Container
from energyhub.domain.accounts import Environment
from energyhub.domain.versions import ApiVersion
from energyhub.persistence.engine import alembic_config, current_revision, migrate


async def test_keys_made_before_versions_are_pinned_by_their_prefix(
    container: Container,
) -> None:
    accounts = container.services.accounts
    account = await accounts.create_account("before versions")

    def downgrade(connection: Any) -> None:
        from alembic import command

        config = alembic_config()
        config.attributes["connection"] = connection
        command.downgrade(config, "0012")

    async with container.engine.begin() as connection:
        await connection.run_sync(downgrade)
    assert await current_revision(container.engine) == "0012"
    async with container.engine.begin() as connection:
        for key_id, prefix, environment in (
            ("key_old_test", "sk_test_", "sandbox"),
            ("key_old_sandbox", "sk_sandbox_", "sandbox"),
            ("key_old_live", "sk_live_", "live"),
        ):
            await connection.execute(
                text(
                    "INSERT INTO api_keys (id, account_id, environment, prefix, key_hash, hint,"
                    " created_at) VALUES (:id, :account, :env, :prefix, :hash, 'abcd', :at)"
                ),
                {
                    "id": key_id,
                    "account": account.id,
                    "env": environment,
                    "prefix": prefix,
                    "hash": key_id.ljust(64, "0"),
                    "at": account.created_at,
                },
            )
    await migrate(container.engine)
    pinned = {k.id: k.api_version for k in await accounts.list_keys(account.id)}
    assert pinned == {
        "key_old_test": ApiVersion.V1,
        "key_old_sandbox": ApiVersion.LEGACY,
        "key_old_live": ApiVersion.V1,
    }
    created = await accounts.create_key(account.id, Environment.SANDBOX, prefix="sk_sandbox_")
    assert created.api_key.api_version is ApiVersion.LEGACY
