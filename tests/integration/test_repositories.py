"""The SQL repositories on SQLite and PostgreSQL: round trips, scoping and ordering."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text

from energyhub.bootstrap import Container
from energyhub.domain.accounts import Account, ApiKey, Environment
from energyhub.domain.capabilities import STANDARD_BATTERY, DeviceType
from energyhub.domain.devices import Device, Vehicle
from energyhub.persistence.engine import (
    alembic_config,
    current_revision,
    migrate,
    newest_revision,
)
from energyhub.persistence.tables import metadata

T0 = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def _device(device_id: str, account_id: str, **overrides: Any) -> Device:
    values: dict[str, Any] = dict(
        id=device_id,
        account_id=account_id,
        environment=Environment.SANDBOX,
        user_id="u1",
        type=DeviceType.BATTERY,
        vendor="v",
        model="m",
        driver="sandbox",
        profile="battery",
        timezone="Europe/Berlin",
        capabilities=STANDARD_BATTERY,
        settings={"export_limit": 3000},
        state={"level": 55.5, "status": "idle"},
        sim=None,
        available=True,
        last_pulled_at=T0,
        last_action=None,
        current_schedule=None,
        vehicle_id=None,
        created_at=T0,
        updated_at=T0,
    )
    values.update(overrides)
    return Device(**values)


async def _account(container: Container, account_id: str = "acc_1") -> Account:
    account = Account(account_id, "Acme", f"app_{account_id}", T0)
    async with container.uow() as tx:
        await tx.accounts.add_account(account)
    return account


async def test_account_and_key_round_trip_with_aware_times(container: Container) -> None:
    account = await _account(container)
    key = ApiKey(
        "key_1",
        account.id,
        Environment.LIVE,
        "sk_live_",
        "abcd",
        T0,
        expires_at=T0 + timedelta(days=1),
        revoked_at=None,
    )
    async with container.uow() as tx:
        await tx.accounts.add_key(key, "f" * 64)
    async with container.uow() as tx:
        assert await tx.accounts.get_account(account.id) == account
        found = await tx.accounts.key_by_hash("f" * 64)
        assert found == key
        assert found is not None
        assert found.expires_at is not None
        assert found.expires_at.tzinfo is not None
        assert await tx.accounts.revoke_key("key_1", T0 + timedelta(hours=1))
        assert not await tx.accounts.revoke_key("key_1", T0 + timedelta(hours=2))
    async with container.uow() as tx:
        revoked = await tx.accounts.get_key("key_1")
    assert revoked is not None
    assert revoked.revoked_at == T0 + timedelta(hours=1)


async def test_failed_unit_of_work_rolls_back(container: Container) -> None:
    account = await _account(container)
    try:
        async with container.uow() as tx:
            await tx.devices.add_device(_device("d-rollback", account.id))
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    async with container.uow() as tx:
        assert await tx.devices.get_device(account.id, Environment.SANDBOX, "d-rollback") is None


async def test_device_round_trip_and_scoping(container: Container) -> None:
    account = await _account(container)
    other = await _account(container, "acc_2")
    device = _device("d1", account.id)
    async with container.uow() as tx:
        await tx.devices.add_device(device)
    async with container.uow() as tx:
        assert await tx.devices.get_device(account.id, Environment.SANDBOX, "d1") == device
        assert await tx.devices.get_device(account.id, Environment.LIVE, "d1") is None
        assert await tx.devices.get_device(other.id, Environment.SANDBOX, "d1") is None
        await tx.devices.update_device("d1", state={"level": 60.0}, available=False)
    async with container.uow() as tx:
        updated = await tx.devices.get_device(account.id, Environment.SANDBOX, "d1")
    assert updated is not None
    assert updated.state == {"level": 60.0}
    assert updated.available is False


async def test_lists_keep_creation_order_and_count(container: Container) -> None:
    account = await _account(container)
    async with container.uow() as tx:
        for i in range(7):
            kind = DeviceType.EV_CHARGER if i == 3 else DeviceType.BATTERY
            await tx.devices.add_device(
                _device(f"z{9 - i}", account.id, type=kind, user_id=f"u{i % 2}")
            )
    async with container.uow() as tx:
        page, total = await tx.devices.list_devices(
            account.id, Environment.SANDBOX, [DeviceType.BATTERY], None, 1, 3
        )
        assert total == 6
        assert [d.id for d in page] == ["z8", "z7", "z5"]
        mine, count = await tx.devices.list_devices(
            account.id, Environment.SANDBOX, [], "u1", 0, 10
        )
        assert count == 3
        assert [d.id for d in mine] == ["z8", "z6", "z4"]


async def test_users_by_id_or_email(container: Container) -> None:
    account = await _account(container)
    async with container.uow() as tx:
        await tx.devices.ensure_user(account.id, Environment.SANDBOX, "ada", "Ada@X.io", T0)
        again = await tx.devices.ensure_user(account.id, Environment.SANDBOX, "ada", None, T0)
        assert again.email == "Ada@X.io"
    async with container.uow() as tx:
        by_email = await tx.devices.get_user(account.id, Environment.SANDBOX, "ada@x.io")
        assert by_email is not None
        assert by_email.id == "ada"
        assert await tx.devices.get_user(account.id, Environment.LIVE, "ada") is None


async def test_vehicle_upsert(container: Container) -> None:
    account = await _account(container)
    async with container.uow() as tx:
        await tx.devices.add_device(_device("c1", account.id, type=DeviceType.EV_CHARGER))
        vehicle = Vehicle("v1", "u1", "c1", "Ford", "E", "1" * 17, 75.0, 40.0)
        await tx.devices.upsert_vehicle(vehicle, account.id, Environment.SANDBOX, T0)
        await tx.devices.upsert_vehicle(
            Vehicle("v1", "u1", "c1", "Ford", "E", "1" * 17, 75.0, 41.5),
            account.id,
            Environment.SANDBOX,
            T0,
        )
    async with container.uow() as tx:
        found = await tx.devices.get_vehicle(account.id, Environment.SANDBOX, "v1")
        by_charger = await tx.devices.vehicles_for_chargers(["c1", "nope"])
    assert found is not None
    assert found.state_of_charge == 41.5
    assert list(by_charger) == ["c1"]


async def test_migrations_are_idempotent(container: Container) -> None:
    await migrate(container.engine)
    await migrate(container.engine)
    async with container.engine.connect() as connection:
        version = (
            await connection.execute(text("SELECT version_num FROM alembic_version"))
        ).scalar_one()
    assert version == ScriptDirectory.from_config(alembic_config()).get_current_head()


def test_each_revision_is_its_file_number_so_the_head_is_known_without_alembic() -> None:
    """`migrate` skips loading Alembic when the database is at `newest_revision()`, which
    reads the file names: that only holds while every revision is its file's number."""
    scripts = ScriptDirectory.from_config(alembic_config())
    for revision in scripts.walk_revisions():
        assert Path(revision.path).name.startswith(f"{revision.revision}_")
    assert newest_revision() == scripts.get_current_head()


async def test_a_migrated_database_is_not_migrated_again(container: Container) -> None:
    assert await current_revision(container.engine) == newest_revision()
    async with container.engine.begin() as connection:
        await connection.execute(text("UPDATE alembic_version SET version_num = '0009'"))
    assert await current_revision(container.engine) == "0009"
    await migrate(container.engine)  # 0009 -> 0010 again: its change is idempotent
    assert await current_revision(container.engine) == newest_revision()


async def test_the_migrations_build_exactly_the_declared_tables(container: Container) -> None:
    """persistence/tables.py (what the code queries) and the migrations (what databases
    get) cannot drift apart: Alembic's autogenerate finds nothing to add."""
    await migrate(container.engine)

    def differences(connection: Any) -> list[Any]:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return list(compare_metadata(context, metadata))

    async with container.engine.connect() as connection:
        assert await connection.run_sync(differences) == []


async def test_sqlite_runs_in_wal_with_foreign_keys(container: Container) -> None:
    if not container.settings.is_sqlite:
        pytest.skip("SQLite pragmas")
    async with container.engine.connect() as connection:
        mode = (await connection.execute(text("PRAGMA journal_mode"))).scalar_one()
        keys = (await connection.execute(text("PRAGMA foreign_keys"))).scalar_one()
    assert (mode, keys) == ("wal", 1)
