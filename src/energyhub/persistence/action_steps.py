"""The dispatcher's decisions (`domain/dispatch.py`) turned into columns: an action's
changed fields, its device's changes, and the device's `lastAction` while the action is
its newest (the device row says which action that is: `last_action_id`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, update
from sqlalchemy.ext.asyncio import AsyncConnection

from energyhub.domain.dispatch import ActionStep, DeviceChange
from energyhub.persistence.actions import (
    UPDATE_ACTION,
    UPDATE_HELD_ACTION,
    plain_values,
    update_many,
)
from energyhub.persistence.devices import UPDATE_DEVICE
from energyhub.persistence.tables import actions, devices

UPDATE_NEWEST = UPDATE_DEVICE.where(devices.c.last_action_id == bindparam("newest_id"))
SET_LAST_ACTIONS = (
    update(devices)
    .where(devices.c.id == bindparam("row_id"))
    .where(devices.c.last_action_id == bindparam("action_id"))
    .values(last_action=bindparam("body", type_=devices.c.last_action.type))
)


def device_columns(change: DeviceChange) -> dict[str, Any]:
    values: dict[str, Any] = {"updated_at": change.at}
    if change.mode is not None:
        values.update(mode_action_id=change.mode.action_id, mode_command=change.mode.command)
    if change.driver_state is not None:
        values["sim"] = dict(change.driver_state)
    if change.reading is not None:
        values.update(
            state=change.reading.state,
            available=change.reading.available,
            last_pulled_at=change.at,
        )
    return values


def action_columns(step: ActionStep) -> dict[str, Any]:
    return plain_values(step.stored())


class SqlActionStepRepository:
    def __init__(self, connection: AsyncConnection) -> None:
        self._c = connection

    async def record(self, step: ActionStep, *, held_by: str | None) -> bool:
        params = {"row_id": step.action.id, **action_columns(step)}
        if held_by is not None:
            result = await self._c.execute(UPDATE_HELD_ACTION, {**params, "held_by": held_by})
        else:
            result = await self._c.execute(UPDATE_ACTION, params)
        if not result.rowcount:
            return False
        device_id = step.action.device_id
        on_device = {} if step.device is None else device_columns(step.device)
        if step.last_action is not None:
            # one statement in the usual case; two when a newer action exists
            newest = await self._c.execute(
                UPDATE_NEWEST,
                {
                    "row_id": device_id,
                    "newest_id": step.action.id,
                    "last_action": dict(step.last_action),
                    **on_device,
                },
            )
            if newest.rowcount:
                return True
        if on_device:
            await self._c.execute(UPDATE_DEVICE, {"row_id": device_id, **on_device})
        return True

    async def record_many(self, steps: Sequence[ActionStep]) -> None:
        """One executemany per set of columns, for the actions and for the devices."""
        await update_many(self._c, actions, [(s.action.id, action_columns(s)) for s in steps])
        await update_many(
            self._c,
            devices,
            [(s.action.device_id, device_columns(s.device)) for s in steps if s.device],
        )
        bodies = [
            {"row_id": s.action.device_id, "action_id": s.action.id, "body": dict(s.last_action)}
            for s in steps
            if s.last_action is not None
        ]
        if bodies:
            await self._c.execute(SET_LAST_ACTIONS, bodies)

    async def change_device(self, device_id: str, change: DeviceChange) -> None:
        await self._c.execute(UPDATE_DEVICE, {"row_id": device_id, **device_columns(change)})
