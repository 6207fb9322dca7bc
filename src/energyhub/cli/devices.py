"""`energyhub devices`: commissioning live chargers (OCPP), batteries and site grid meters
(SunSpec)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

import typer

from energyhub.bootstrap import (
    Container,
)
from energyhub.cli.common import (
    JsonFlag,
    _print_json,
    _run,
    err,
)

T = TypeVar("T")

devices_app = typer.Typer(
    help="Live devices: commission chargers, batteries and site grid meters.", no_args_is_help=True
)


@devices_app.command("add-ocpp")
def devices_add_ocpp(
    account: Annotated[str, typer.Option(help="Account id.")],
    user: Annotated[str, typer.Option(help="The end user the charger belongs to.")],
    charge_point_id: Annotated[
        str, typer.Option(help="The charger's identity: ws://HOST:PORT/ocpp/{id}.")
    ],
    password: Annotated[
        str, typer.Option(help="HTTP Basic password the charger sends (16-40 characters).")
    ],
    timezone: Annotated[str, typer.Option(help="The plant's IANA timezone.")] = "Europe/Berlin",
    as_json: JsonFlag = False,
) -> None:
    """Commission a live OCPP 1.6J / 2.0.1 charger; prints its device id."""

    async def work(c: Container) -> dict[str, str]:
        device = await c.commissioning.add_ocpp(
            account, user, charge_point_id, password, timezone=timezone
        )
        return {
            "deviceId": device.id,
            "chargePointId": charge_point_id,
            "path": f"/ocpp/{charge_point_id}",
        }

    result = _commission(work)
    if as_json:
        _print_json(result)
    else:
        err.print(
            f"device [bold]{result['deviceId']}[/]: point charger {charge_point_id} at "
            f"ws://HOST:PORT{result['path']} (HTTP Basic, user {charge_point_id})"
        )


@devices_app.command("add-sunspec")
def devices_add_sunspec(
    account: Annotated[str, typer.Option(help="Account id.")],
    user: Annotated[
        str, typer.Option(help="The end user the battery (or the metered site) belongs to.")
    ],
    host: Annotated[
        str, typer.Option(help="The battery's (or meter's) Modbus TCP address (IP or name).")
    ],
    port: Annotated[int, typer.Option(help="Modbus TCP port.")] = 502,
    unit_id: Annotated[int, typer.Option(help="Modbus unit id (slave id).")] = 1,
    timezone: Annotated[str, typer.Option(help="The plant's IANA timezone.")] = "Europe/Berlin",
    meter: Annotated[
        bool,
        typer.Option(
            "--meter",
            help="The address is the user's grid meter (SunSpec models 201-204), not a "
            "battery: it becomes the site's meter, and its total real power the site's "
            "readings at every state poll. Sign: positive while the site imports from the "
            "grid, negative while it exports (SunSpec's convention for a meter at the grid "
            "connection).",
        ),
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Commission a live SunSpec Modbus TCP battery (models 1, 124 or 802/704); prints its
    device id. Running it again for the same battery and user prints the same id. With
    --meter: the user's site grid meter instead (one per site; another address replaces it)."""

    if meter:
        _add_meter(account, user, host, port, unit_id, as_json)
        return

    async def work(c: Container) -> dict[str, Any]:
        done = await c.commissioning.add_sunspec(
            account, user, host, port, unit_id, timezone=timezone
        )
        return {
            "deviceId": done.device.id,
            "created": done.created,
            "vendor": done.device.vendor,
            "model": done.device.model,
            "sunspecModels": [m.id for m in done.endpoint.models],
            "commands": sorted(done.device.capabilities.commands),
        }

    result = _commission(work)
    if as_json:
        _print_json(result)
    else:
        models = ", ".join(str(m) for m in result["sunspecModels"])
        err.print(
            f"device [bold]{result['deviceId']}[/]: {result['vendor']} {result['model']} at "
            f"{host}:{port} unit {unit_id} (SunSpec models {models})"
        )


def _add_meter(account: str, user: str, host: str, port: int, unit_id: int, as_json: bool) -> None:
    """`add-sunspec --meter`: the site's grid meter, read once."""

    async def work(c: Container) -> dict[str, Any]:
        done = await c.site_meters.commission(account, user, host, port, unit_id)
        address, replaced = done.meter.address, done.replaced
        return {
            "userId": user,
            "created": done.created,
            "manufacturer": done.meter.manufacturer,
            "model": done.meter.model,
            "sunspecModel": address.model.id,
            "replaced": None
            if replaced is None
            else {"host": replaced.host, "port": replaced.port, "unitId": replaced.unit_id},
            "lastReading": done.site["lastReading"],
        }

    result = _commission(work)
    if as_json:
        _print_json(result)
        return
    power = result["lastReading"]["gridPower"]["value"]
    flow = (
        "importing"
        if power > 0
        else "exporting"
        if power < 0
        else "neither importing nor exporting"
    )
    err.print(
        f"site meter of user [bold]{user}[/]: {result['manufacturer'] or 'SunSpec meter'} "
        f"{result['model']} at {host}:{port} unit {unit_id} (SunSpec model "
        f"{result['sunspecModel']}); grid power now {power:g} kW ({flow})"
    )


def _commission(work: Callable[[Container], Awaitable[T]]) -> T:
    """Runs a commissioning; a refusal or an unreachable device is a red line and exit 1."""
    from energyhub.domain.readings import DriverError
    from energyhub.services.commissioning import CommissioningError

    try:
        return _run(work)
    except (CommissioningError, LookupError) as refused:
        err.print(f"[red]{refused.args[0] if refused.args else 'refused'}[/]")
        raise typer.Exit(1) from None
    except DriverError as failed:
        err.print(f"[red]{failed.code}: {failed.message}[/]")
        raise typer.Exit(1) from None
