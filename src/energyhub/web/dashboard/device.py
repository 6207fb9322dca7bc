"""One device's page: its state (read as the API reads it), its last 24 hours as a chart drawn
from the same stored samples, its recent actions, schedule, sessions, vehicle, linked
account and charging plan, with forms to send a command, cancel a waiting action and, in
the sandbox, drive the simulator. The forms' handlers (`device_commands`, `sandbox_controls`)
answer with this page and what their use case returned."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from energyhub.domain.accounts import Environment
from energyhub.domain.actions import Action
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.devices import CacheType
from energyhub.domain.errors import (
    ApiError,
    ScheduleNotFound,
    SessionsNotSupported,
    UserNotFound,
)
from energyhub.domain.sandbox_profiles import PROFILES
from energyhub.services.linking import LinkedAccountView
from energyhub.web.chart import line_chart
from energyhub.web.dashboard.device_view import (
    VPP_LOCK_MINUTES,
    LocalTime,
    command_forms,
    error_details,
    quantity_text,
    state_rows,
)
from energyhub.web.dashboard.site import Site, Visitor, flash_of

RECENT_ACTIONS = 10
RECENT_SESSIONS = 5


def routes(site: Site) -> list[Route]:
    return [Route("/{env}/devices/{device_id}", site.page(partial(show_device, site)))]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a form on the page did: an action it made or ended, a message, or an error
    (`field`: the form field to point at, `form`: which form it came from)."""

    title: str
    message: str = ""
    action: Action | None = None
    error: bool = False
    form: str | None = None
    field: str | None = None
    code: str | None = None
    details: tuple[str, ...] = ()

    @classmethod
    def of_error(cls, title: str, error: ApiError, form: str | None = None) -> Outcome:
        """The use case's error as the API would answer it: its code, message and details."""
        parameter = error.details.get("parameter")
        return cls(
            title,
            error.message,
            error=True,
            form=form,
            field=parameter if isinstance(parameter, str) else None,
            code=error.code,
            details=error_details(error.details),
        )

    def flash(self, values: dict[str, str] | None = None) -> dict[str, Any]:
        """What the page the form redirects to needs to show it again (`Site.after_form`)."""
        return {
            "title": self.title,
            "message": self.message,
            "actionId": None if self.action is None else self.action.id,
            "error": self.error,
            "form": self.form,
            "field": self.field,
            "code": self.code,
            "details": list(self.details),
            "values": values or {},
        }

    @classmethod
    def of_flash(cls, flash: dict[str, Any], action: Action | None) -> Outcome:
        return cls(
            str(flash.get("title", "")),
            str(flash.get("message", "")),
            action,
            bool(flash.get("error")),
            flash.get("form"),
            flash.get("field"),
            flash.get("code"),
            tuple(str(d) for d in flash.get("details", ())),
        )


def after_form(
    site: Site,
    request: Request,
    visitor: Visitor,
    outcome: Outcome,
    values: dict[str, str] | None = None,
) -> Response:
    """The device page's forms answer 303 to it; it shows `outcome` once and refills the
    form it came from with `values`."""
    path = f"{visitor.path('devices')}/{quote(request.path_params['device_id'], safe='')}"
    kept = {k: v for k, v in (values or {}).items() if k != "csrf"}
    return site.after_form(request, path, **outcome.flash(kept))


async def _flashed(
    site: Site, request: Request, visitor: Visitor
) -> tuple[Outcome | None, dict[str, str]]:
    """The outcome the form before redirected here with, its action read as it now stands."""
    flash = flash_of(request)
    if not flash.get("title"):
        return None, {}
    action = None
    if isinstance(flash.get("actionId"), str):
        try:
            action = await site.services.actions.get(visitor.principal, flash["actionId"])
        except ApiError:
            action = None
    values = flash.get("values")
    kept = {str(k): str(v) for k, v in values.items()} if isinstance(values, dict) else {}
    return Outcome.of_flash(flash, action), kept


async def show_device(
    site: Site,
    request: Request,
    visitor: Visitor,
    status: int = 200,
    *,
    outcome: Outcome | None = None,
    values: dict[str, str] | None = None,
) -> Response:
    """The device page; `outcome` is shown above it, `values` refill the form it came from
    (by default, what the form before redirected here with)."""
    if outcome is None and request.method == "GET":
        outcome, flashed = await _flashed(site, request, visitor)
        values = values or flashed
    services = site.services
    principal = visitor.principal
    device_id = request.path_params["device_id"]
    view = await services.devices.read_any(principal, device_id, CacheType.EXPEDITE)
    device = view.device
    _, history = await services.history.last_day(principal, device_id)
    recent, _ = await services.actions.list(principal, device.id, None, 0, RECENT_ACTIONS)
    times = LocalTime.of(device)
    is_charger = device.type is DeviceType.EV_CHARGER
    profile = PROFILES.get(device.profile or "")
    sandbox = visitor.environment is Environment.SANDBOX and profile is not None
    return site.render(
        "device.html",
        status,
        visitor,
        title=f"{device.vendor} {device.model}",
        section="devices",
        device=device,
        vehicle=view.vehicle,
        times=times,
        is_battery=device.type is DeviceType.BATTERY,
        is_charger=is_charger,
        state_rows=state_rows(device.state),
        chart=line_chart(history, times.zone),
        actions=recent,
        schedule=await _schedule(site, visitor, device.type, device.id),
        sessions=await _sessions(site, visitor, device.id) if is_charger else None,
        linked=await _linked_account(site, visitor, device.user_id, device.id),
        plan=await _plan(site, visitor, device.id) if is_charger else None,
        forms=command_forms(device),
        sandbox=sandbox,
        reads_vehicle=bool(profile and profile.has_vehicle),
        vpp_locked=device.vpp_locked_until is not None
        and device.vpp_locked_until > services.clock.now(),
        vpp_lock_minutes=VPP_LOCK_MINUTES,
        outcome=outcome,
        values=values or {},
        quantity_text=quantity_text,
    )


async def _schedule(
    site: Site, visitor: Visitor, kind: DeviceType, device_id: str
) -> dict[str, Any] | None:
    try:
        return await site.services.schedules.get(visitor.principal, kind, device_id)
    except ScheduleNotFound:
        return None


@dataclass(frozen=True, slots=True)
class Sessions:
    items: list[Any]
    total: int
    unsupported: str | None = None


async def _sessions(site: Site, visitor: Visitor, device_id: str) -> Sessions:
    try:
        listing = await site.services.sessions.list(
            visitor.principal, device_id, None, None, None, RECENT_SESSIONS, 0
        )
    except SessionsNotSupported as error:
        return Sessions([], 0, error.message)
    return Sessions(list(listing.page.items), listing.page.total)


async def _linked_account(
    site: Site, visitor: Visitor, user_id: str, device_id: str
) -> LinkedAccountView | None:
    try:
        views = await site.services.linking.linked_accounts(visitor.principal, user_id)
    except UserNotFound:
        return None
    return next((v for v in views if device_id in v.device_ids), None)


async def _plan(site: Site, visitor: Visitor, device_id: str) -> dict[str, Any] | str:
    """The charging plan as `GET /ev-charger/{id}/plan` answers it, or why there is none."""
    try:
        return await site.services.strategies.plan(visitor.principal, device_id)
    except ApiError as error:
        return error.message
