"""The device page's command forms: send a command (the same push use case as
`POST /battery/{id}` and `POST /ev-charger/{id}`) and cancel a waiting action (the same
cancel as `POST /actions/{id}/cancel`). Each answers 303 to the device page, which shows
the action as it now stands, or the use case's error message beside the form (so reloading
the page sends nothing again)."""

from __future__ import annotations

from functools import partial

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from energyhub.domain.actions import ActionState
from energyhub.domain.devices import CacheType
from energyhub.domain.errors import ApiError
from energyhub.web.dashboard.device import Outcome, after_form
from energyhub.web.dashboard.device_view import FormProblem, command_forms, push_of
from energyhub.web.dashboard.site import Site, Visitor

SENT_TITLES = {
    ActionState.COMPLETED: "Command sent and completed",
    ActionState.SCHEDULED: "Command scheduled",
    ActionState.FAILED: "The device refused the command",
}


def routes(site: Site) -> list[Route]:
    post = ["POST"]
    return [
        Route("/{env}/devices/{device_id}/commands", site.page(partial(_send, site)), methods=post),
        Route(
            "/{env}/devices/{device_id}/actions/{action_id}/cancel",
            site.page(partial(_cancel, site)),
            methods=post,
        ),
    ]


async def _send(site: Site, request: Request, visitor: Visitor) -> Response:
    fields: dict[str, str] = request.state.fields
    device_id = request.path_params["device_id"]
    device = (
        await site.services.devices.read_any(visitor.principal, device_id, CacheType.NORMAL)
    ).device
    command = fields.get("command", "")
    form = next((f for f in command_forms(device) if f.command == command), None)
    back = partial(after_form, site, request, visitor)
    if form is None:
        outcome = Outcome(
            "That did not work", f"This device has no command {command!r}.", error=True
        )
        return back(outcome, fields)
    try:
        push = push_of(form, fields)
        action = await site.services.actions.push(visitor.principal, device.type, device.id, push)
    except FormProblem as problem:
        outcome = Outcome(
            "Check the form", problem.message, error=True, form=form.slug, field=problem.field
        )
        return back(outcome, fields)
    except ApiError as error:
        return back(Outcome.of_error(f"{command} was not sent", error, form.slug), fields)
    return back(Outcome(SENT_TITLES.get(action.state, "Command sent"), action=action))


async def _cancel(site: Site, request: Request, visitor: Visitor) -> Response:
    device_id = request.path_params["device_id"]
    device = (
        await site.services.devices.read_any(visitor.principal, device_id, CacheType.NORMAL)
    ).device
    try:
        action = await site.services.actions.cancel(
            visitor.principal, request.path_params["action_id"], device.type
        )
    except ApiError as error:
        if error.status == 404:
            raise
        return after_form(site, request, visitor, Outcome.of_error("Not cancelled", error))
    return after_form(site, request, visitor, Outcome("Action cancelled", action=action))
