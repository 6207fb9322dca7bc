"""Devices, users and vehicles in SQL."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

import orjson
from sqlalchemy import Text, bindparam, cast, func, or_, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from energyhub.domain.accounts import Environment
from energyhub.domain.actions import last_action_body
from energyhub.domain.capabilities import Capabilities, DeviceType, capabilities_from_json
from energyhub.domain.devices import Device, User, Vehicle
from energyhub.domain.pushes import DeviceChanges
from energyhub.persistence.actions import update_many
from energyhub.persistence.device_lists import (
    LISTED_COLUMNS,
    ListedDevices,
    first_pages,
    near_page,
)
from energyhub.persistence.paging import page_of
from energyhub.persistence.tables import devices, users, vehicles
from energyhub.persistence.types import aware

UPDATE_DEVICE = update(devices).where(devices.c.id == bindparam("row_id"))
# capabilities as JSON text on every read, so `capabilities_from_text` parses each distinct
# document once (the push path over asyncpg selects them the same way)
DEVICE_COLUMNS = [
    cast(c, Text).label(c.name) if c.name == "capabilities" else c for c in devices.columns
]
SELECT_DEVICE = select(*DEVICE_COLUMNS)


@lru_cache(maxsize=1024)
def capabilities_from_text(text: str) -> Capabilities:
    """Capabilities parsed once per distinct document: devices of one profile or model
    share theirs, and parsing one was a fifth of a push's CPU."""
    return capabilities_from_json(orjson.loads(text))


def device_from_row(row: Mapping[Any, Any]) -> Device:
    """A device from a row by column name (SQLAlchemy's `row._mapping` or asyncpg's Record);
    `capabilities` come as JSON text (`DEVICE_COLUMNS`), or decoded from a query that
    selected the column itself: parsed through the same cache either way."""
    caps = row["capabilities"]
    if not isinstance(caps, str):
        caps = orjson.dumps(caps).decode()
    return Device(
        id=row["id"],
        account_id=row["account_id"],
        environment=Environment(row["environment"]),
        user_id=row["user_id"],
        type=DeviceType(row["type"]),
        vendor=row["vendor"],
        model=row["model"],
        driver=row["driver"],
        profile=row["profile"],
        timezone=row["timezone"],
        capabilities=capabilities_from_text(caps),
        settings=dict(row["settings"]),
        state=dict(row["state"]),
        sim=row["sim"],
        available=row["available"],
        last_pulled_at=aware(row["last_pulled_at"]),
        last_action=row["last_action"],
        current_schedule=row["current_schedule"],
        vehicle_id=row["vehicle_id"],
        created_at=aware(row["created_at"]),
        updated_at=aware(row["updated_at"]),
        vpp_locked_until=aware(row["vpp_locked_until"]),
        mode_action_id=row["mode_action_id"],
        mode_command=row["mode_command"],
        last_action_id=row["last_action_id"],
        disconnected_at=aware(row["disconnected_at"]),
        goal=row["charging_goal"],
    )


LISTED = ListedDevices(device_from_row)


def device_change_values(changes: DeviceChanges) -> dict[str, Any]:
    """A push's changes to its device as columns (the same keys for the same kind of change,
    so each column set's statement is built once)."""
    values: dict[str, Any] = {
        "updated_at": changes.updated_at,
        "last_action_id": changes.last_action.id,
        "last_action": last_action_body(changes.last_action),
    }
    if changes.mode_from is not None:
        values["mode_action_id"] = changes.mode_from.id
        values["mode_command"] = changes.mode_from.command
    if changes.sim is not None:
        values["sim"] = dict(changes.sim)
    return values


def _insert_for(dialect: str) -> Any:
    """The dialect's INSERT, which knows ON CONFLICT."""
    return postgresql_insert if dialect == "postgresql" else sqlite_insert


def _vehicle(row: Any) -> Vehicle:
    return Vehicle(
        id=row.id,
        user_id=row.user_id,
        charger_id=row.charger_id,
        vendor=row.vendor,
        model=row.model,
        vin=row.vin,
        battery_capacity_kwh=row.battery_capacity_kwh,
        state_of_charge=row.state_of_charge,
    )


class SqlDeviceRepository:
    def __init__(self, connection: AsyncConnection) -> None:
        self._c = connection

    async def get_device(
        self, account_id: str, environment: Environment, device_id: str, *, lock: bool = False
    ) -> Device | None:
        """A device of this account and environment; with `lock`, its row stays locked until
        the transaction ends (PostgreSQL; SQLite has a single writer anyway)."""
        # by id alone, the owner checked on the row (asyncpg_push.py says why)
        query = SELECT_DEVICE.where(devices.c.id == device_id)
        if lock and self._c.dialect.name == "postgresql":
            query = query.with_for_update()
        row = (await self._c.execute(query)).first()
        if row is None or row.account_id != account_id or row.environment != environment.value:
            return None
        return device_from_row(row._mapping)

    async def get_device_by_id(self, device_id: str) -> Device | None:
        row = (await self._c.execute(SELECT_DEVICE.where(devices.c.id == device_id))).first()
        return None if row is None else device_from_row(row._mapping)

    async def get_devices_by_ids(self, device_ids: Sequence[str]) -> Sequence[Device]:
        rows = await self._c.execute(SELECT_DEVICE.where(devices.c.id.in_(list(device_ids))))
        return [device_from_row(row._mapping) for row in rows]

    async def list_devices(
        self,
        account_id: str,
        environment: Environment,
        types: Sequence[DeviceType],
        user_id: str | None,
        offset: int,
        limit: int,
    ) -> tuple[Sequence[Device], int]:
        if first_pages(offset, limit, types):
            rows, total = await near_page(
                self._c,
                account_id,
                environment.value,
                types[0].value if types else None,
                user_id,
                offset,
                limit,
            )
        else:
            where = [
                devices.c.account_id == account_id,
                devices.c.environment == environment.value,
            ]
            if types:
                where.append(devices.c.type.in_([t.value for t in types]))
            if user_id is not None:
                where.append(devices.c.user_id == user_id)
            found, total = await page_of(
                self._c, devices, where, [devices.c.pk], offset, limit, selected=LISTED_COLUMNS
            )
            rows = [tuple(r.values()) for r in found]
        return [LISTED.device(r, capabilities_from_text) for r in rows], total

    async def add_device(self, device: Device) -> None:
        await self._c.execute(
            devices.insert().values(
                id=device.id,
                account_id=device.account_id,
                environment=device.environment.value,
                user_id=device.user_id,
                type=device.type.value,
                vendor=device.vendor,
                model=device.model,
                driver=device.driver,
                profile=device.profile,
                timezone=device.timezone,
                capabilities=device.capabilities.to_json(),
                settings=device.settings,
                state=device.state,
                sim=device.sim,
                available=device.available,
                last_pulled_at=device.last_pulled_at,
                last_action=device.last_action,
                current_schedule=device.current_schedule,
                vehicle_id=device.vehicle_id,
                disconnected_at=device.disconnected_at,
                created_at=device.created_at,
                updated_at=device.updated_at,
            )
        )

    async def update_device(self, device_id: str, **values: Any) -> None:
        await self._c.execute(UPDATE_DEVICE, {"row_id": device_id, **values})

    async def update_device_if(
        self, device_id: str, expected: dict[str, Any], **values: Any
    ) -> bool:
        """Changes the device only while the `expected` columns hold those values."""
        statement = UPDATE_DEVICE
        for column in expected:
            statement = statement.where(devices.c[column] == bindparam(f"expected_{column}"))
        params = {f"expected_{column}": value for column, value in expected.items()}
        result = await self._c.execute(statement, {"row_id": device_id, **params, **values})
        return bool(result.rowcount)

    async def update_many(self, changes: Sequence[tuple[str, dict[str, Any]]]) -> None:
        await update_many(self._c, devices, changes)

    async def set_last_actions(self, bodies: Sequence[tuple[str, str, dict[str, Any]]]) -> None:
        """`lastAction` for many devices, each only while that action is its newest."""
        if not bodies:
            return
        statement = (
            update(devices)
            .where(devices.c.id == bindparam("row_id"))
            .where(devices.c.last_action_id == bindparam("action_id"))
            .values(last_action=bindparam("body", type_=devices.c.last_action.type))
        )
        await self._c.execute(
            statement,
            [{"row_id": d, "action_id": a, "body": body} for d, a, body in bodies],
        )

    async def get_user(self, account_id: str, environment: Environment, ref: str) -> User | None:
        """A user by id, or by e-mail address (case-insensitive) when no id matches."""
        rows = (
            await self._c.execute(
                select(users)
                .where(
                    users.c.account_id == account_id,
                    users.c.environment == environment.value,
                    or_(users.c.id == ref, func.lower(users.c.email) == ref.lower()),
                )
                .order_by((users.c.id == ref).desc(), users.c.pk)
            )
        ).first()
        return None if rows is None else User(rows.id, rows.email, rows.created_at)

    async def first_device_timezone(
        self, account_id: str, environment: Environment, user_id: str
    ) -> str | None:
        """The timezone of the user's first device (a site without its own has it)."""
        return (
            await self._c.execute(
                select(devices.c.timezone)
                .where(
                    devices.c.account_id == account_id,
                    devices.c.environment == environment.value,
                    devices.c.user_id == user_id,
                )
                .order_by(devices.c.pk)
                .limit(1)
            )
        ).scalar()

    async def ensure_user(
        self,
        account_id: str,
        environment: Environment,
        user_id: str,
        email: str | None,
        now: datetime,
    ) -> User:
        """The user, made on first use; safe when two requests make the same user at once
        (INSERT ... ON CONFLICT DO NOTHING on both databases)."""
        insert = _insert_for(self._c.dialect.name)(users).values(
            account_id=account_id,
            environment=environment.value,
            id=user_id,
            email=email,
            created_at=now,
        )
        await self._c.execute(
            insert.on_conflict_do_nothing(index_elements=["account_id", "environment", "id"])
        )
        row = (
            await self._c.execute(
                select(users).where(
                    users.c.account_id == account_id,
                    users.c.environment == environment.value,
                    users.c.id == user_id,
                )
            )
        ).one()
        if email is not None and row.email != email:
            await self._c.execute(update(users).where(users.c.pk == row.pk).values(email=email))
            return User(row.id, email, row.created_at)
        return User(row.id, row.email, row.created_at)

    async def get_vehicle(
        self, account_id: str, environment: Environment, vehicle_id: str
    ) -> Vehicle | None:
        row = (
            await self._c.execute(
                select(vehicles).where(
                    vehicles.c.id == vehicle_id,
                    vehicles.c.account_id == account_id,
                    vehicles.c.environment == environment.value,
                )
            )
        ).first()
        return None if row is None else _vehicle(row)

    async def vehicles_for_chargers(self, charger_ids: Sequence[str]) -> dict[str, Vehicle]:
        if not charger_ids:
            return {}
        rows = await self._c.execute(
            select(vehicles).where(vehicles.c.charger_id.in_(list(charger_ids)))
        )
        return {r.charger_id: _vehicle(r) for r in rows}

    async def upsert_vehicle(
        self, vehicle: Vehicle, account_id: str, environment: Environment, now: datetime
    ) -> None:
        values = dict(
            user_id=vehicle.user_id,
            charger_id=vehicle.charger_id,
            vendor=vehicle.vendor,
            model=vehicle.model,
            vin=vehicle.vin,
            battery_capacity_kwh=vehicle.battery_capacity_kwh,
            state_of_charge=vehicle.state_of_charge,
            updated_at=now,
        )
        result = await self._c.execute(
            update(vehicles).where(vehicles.c.id == vehicle.id).values(**values)
        )
        if not result.rowcount:
            await self._c.execute(
                vehicles.insert().values(
                    id=vehicle.id,
                    account_id=account_id,
                    environment=environment.value,
                    created_at=now,
                    **values,
                )
            )
