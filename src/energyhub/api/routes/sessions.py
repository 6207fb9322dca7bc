"""Charging sessions of EV chargers: spec 4.8; CONTRACT 6."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query
from starlette.responses import Response

from energyhub.api.deps import Caller, Context, Services
from energyhub.api.envelope import success_response
from energyhub.api.representations import pagination
from energyhub.api.routes.devices import DeviceId, Limit, Offset
from energyhub.api.routes.docs import errors
from energyhub.api.schedule_schemas import SessionsPage
from energyhub.api.schemas import Envelope, IsoDateTime
from energyhub.domain.session_costs import cost_fields
from energyhub.domain.sessions import SessionStatus, session_body

router = APIRouter()

WindowStart = Annotated[
    IsoDateTime | None,
    Query(alias="from", description="ISO 8601 UTC; default: 30 days before `to`."),
]
WindowEnd = Annotated[
    IsoDateTime | None,
    Query(description="ISO 8601 UTC; default: now. Send the echoed `window.to` on later pages."),
]


@router.get(
    "/ev-charger/{deviceId}/sessions",
    response_model=Envelope[SessionsPage],
    responses=errors(422),
    tags=["ev-chargers"],
    operation_id="listChargingSessions",
    summary="List an EV charger's charging sessions",
)
async def list_sessions(
    services: Services,
    context: Context,
    caller: Caller,
    deviceId: DeviceId,
    from_: WindowStart = None,
    to: WindowEnd = None,
    status: Literal["active", "completed"] | None = None,
    limit: Limit = 10,
    offset: Offset = 0,
) -> Response:
    """Sessions overlapping the window, newest first. Page on with the echoed `window.to`
    as `to`, so a session starting meanwhile does not shift rows. A charger without
    session history answers 422 SESSIONS_NOT_SUPPORTED."""
    listing = await services.sessions.list(
        caller,
        deviceId,
        from_,
        to,
        None if status is None else SessionStatus(status),
        limit,
        offset,
    )
    data = {
        "items": [
            {**session_body(s), **cost_fields(listing.costs.get(s.id))} for s in listing.page.items
        ],
        "pagination": pagination(offset, limit, listing.page.total),
        "window": listing.window.to_json(),
    }
    return success_response(data, context, caller.environment.value, services.clock)
