"""The sandbox's controls on a device page, as buttons: plug the simulated car in or out, set
its state of charge or a battery's level, end the holds (the same use case as
`POST /sandbox/devices/{id}/simulate`), disconnect and reconnect the device (as
`.../disconnect` and `.../reconnect`), and lock it for a virtual power plant (as
`.../vpp-lock`). Each answers 303 to the device page, read after it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from functools import partial
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from energyhub.domain.errors import ApiError
from energyhub.web.dashboard.device import Outcome, after_form
from energyhub.web.dashboard.device_view import VPP_LOCK_MINUTES
from energyhub.web.dashboard.site import Refused, Site, Visitor


def routes(site: Site) -> list[Route]:
    return [
        Route(
            "/{env}/devices/{device_id}/sandbox/{control}",
            site.page(partial(_control, site)),
            methods=["POST"],
        )
    ]


def _percent(raw: str) -> float | str:
    """A number field as the simulate body takes it; text that is no number goes on as
    text, so the use case answers it with its own message."""
    try:
        return float(raw.strip().replace(",", "."))
    except ValueError:
        return raw


def _simulation(fields: dict[str, str], control: str) -> tuple[dict[str, Any], str] | None:
    """The simulate body of a control and what the page says once it is done."""
    match control:
        case "plug-in":
            return {"pluggedIn": True}, "The simulated car is plugged in"
        case "plug-out":
            return {"pluggedIn": False}, "The simulated car is unplugged"
        case "vehicle-soc":
            return {"vehicleSoc": _percent(fields.get("vehicleSoc", ""))}, "State of charge set"
        case "level":
            return {"level": _percent(fields.get("level", ""))}, "Level set"
        case "reset":
            return {"reset": True}, "Back to the daily pattern"
    return None


async def _control(site: Site, request: Request, visitor: Visitor) -> Response:
    fields: dict[str, str] = request.state.fields
    control = request.path_params["control"]
    device_id = request.path_params["device_id"]
    principal = visitor.principal
    sandbox = site.services.sandbox
    now = site.services.clock.now()
    action: Callable[[], Awaitable[Any]]
    simulation = _simulation(fields, control)
    if simulation is not None:
        body, done = simulation
        action = partial(sandbox.simulate, principal, device_id, body)
    elif control == "disconnect":
        base = site.settings.public_base_for(request.scope.get("server"))
        action, done = partial(sandbox.disconnect, principal, device_id, base), "Disconnected"
    elif control == "reconnect":
        action, done = partial(sandbox.reconnect, principal, device_id), "Reconnected"
    elif control == "vpp-lock":
        until = now + timedelta(minutes=VPP_LOCK_MINUTES)
        action = partial(site.services.actions.lock_for_vpp, principal, device_id, until)
        done = f"Locked for a virtual power plant for {VPP_LOCK_MINUTES} minutes"
    elif control == "vpp-unlock":
        action = partial(site.services.actions.lock_for_vpp, principal, device_id, now)
        done = "The virtual power plant's lock ended"
    else:
        raise Refused(404, "Page not found", "There is no such sandbox control.")
    try:
        await action()
    except ApiError as error:
        if error.status == 404:
            raise
        outcome = Outcome.of_error("That did not work", error, "sandbox")
        return after_form(site, request, visitor, outcome, fields)
    return after_form(site, request, visitor, Outcome(done))
