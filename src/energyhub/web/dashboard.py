"""The customers' dashboard at `/dashboard` (issue 6, spec 5.4 and 6): server-rendered pages
for account members, per environment (`/dashboard/sandbox/...`, `/dashboard/live/...`):
API keys, webhook endpoints, deliveries and devices.

Security:
- Sign-in with e-mail and password (argon2id, `services/members.py`); the session cookie is
  `HttpOnly`, `SameSite=Lax`, `Path=/`, and `Secure` with the `__Host-` prefix whenever the
  dashboard is reached over https (the request's scheme or `ENERGYHUB_PUBLIC_URL`).
- CSRF: every form carries the session's CSRF token (the sign-in form a token from its own
  short-lived cookie), checked in constant time; a POST the browser marks cross-site or
  same-site, or whose `Origin` is another site, is refused before any of that.
- Pages are never cached, never framed, and send no referrer; secrets (a new key, an
  endpoint's signing secret) appear only in the answer to the POST that asked for them.
- A page shows only the signed-in member's account; an id of another account's key,
  endpoint, delivery or device is answered as not found."""

from __future__ import annotations

import hmac
import json
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from energyhub.config import Settings
from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import Clock
from energyhub.domain.deliveries import WebhookEndpoint
from energyhub.domain.errors import ApiError, EndpointLimitReached
from energyhub.domain.members import DashboardSession, Member
from energyhub.domain.webhooks import DeliveryStatus, EventType
from energyhub.services.accounts import AccountService
from energyhub.services.actions import ActionService
from energyhub.services.devices import DeviceService
from energyhub.services.history import HistoryService
from energyhub.services.members import MemberService, SignInRefused
from energyhub.services.webhooks import WebhookService
from energyhub.web.chart import line_chart
from energyhub.web.nul_guard import NulGuard, fields_with_nul, nul_message
from energyhub.web.routes import SECURITY_HEADERS, templates

SESSION_COOKIE = "energyhub_session"
SIGN_IN_COOKIE = "energyhub_sign_in"  # the sign-in form's CSRF token (login CSRF)
SIGN_IN_COOKIE_AGE = 3600
PAGE_SIZE = 25
RECENT_ACTIONS = 10
MAX_FORM_FIELDS = 20
ENVIRONMENTS = {"sandbox": Environment.SANDBOX, "live": Environment.LIVE}
_STATUSES = {s.value for s in DeliveryStatus}
_EVENTS = {e.value for e in EventType}

# What a finished POST says on the page it redirects to: fixed texts chosen by a code, so
# nothing from the query string is ever shown.
NOTICES = {
    "key-revoked": "The key was revoked: requests with it now get 401 EXPIRED_TOKEN.",
    "key-gone": "That key was already revoked or does not exist.",
    "endpoint-removed": "The endpoint was removed: it gets no more events.",
    "resent": "One more attempt was queued: it is sent within a few seconds.",
    "signed-out": "You are signed out.",
}


@dataclass(frozen=True, slots=True)
class DashboardServices:
    members: MemberService
    accounts: AccountService
    webhooks: WebhookService
    devices: DeviceService
    actions: ActionService
    history: HistoryService
    clock: Clock


@dataclass(frozen=True, slots=True)
class Visitor:
    """A signed-in member on one environment's pages."""

    member: Member
    session: DashboardSession
    environment: Environment

    @property
    def principal(self) -> Principal:
        return Principal(self.member.account_id, self.environment, f"member:{self.member.id}")


class Refused(Exception):
    """A request the dashboard will not carry out; shown as a page with this status."""

    def __init__(self, status: int, title: str, message: str) -> None:
        super().__init__(message)
        self.status, self.title, self.message = status, title, message


Page = Callable[[Request, Visitor], Awaitable[Response]]


def dashboard_app(services: DashboardServices, settings: Settings) -> ASGIApp:
    """The dashboard, to be mounted at `/dashboard`."""

    def secure(request: Request) -> bool:
        return request.url.scheme == "https" or (settings.public_url or "").startswith("https:")

    def cookie_name(request: Request, name: str) -> str:
        return f"__Host-{name}" if secure(request) else name

    def render(
        template: str, http_status: int = 200, visitor: Visitor | None = None, **context: Any
    ) -> HTMLResponse:
        context.setdefault("notice", None)
        context.setdefault("section", "devices")  # where the environment switch leads
        body = (
            templates()
            .get_template(f"dashboard/{template}")
            .render(
                visitor=visitor,
                environment=None if visitor is None else visitor.environment.value,
                csrf=None if visitor is None else visitor.session.csrf_token,
                app_name=None,
                **context,
            )
        )
        return HTMLResponse(body, status_code=http_status, headers=SECURITY_HEADERS)

    def problem(status: int, title: str, message: str, visitor: Visitor | None) -> HTMLResponse:
        return render("problem.html", status, visitor, title=title, message=message)

    def notice_of(request: Request) -> str | None:
        return NOTICES.get(request.query_params.get("done", ""))

    def back_to(path: str, done: str | None = None) -> RedirectResponse:
        target = path if done is None else f"{path}?done={done}"
        return RedirectResponse(target, status_code=303, headers=SECURITY_HEADERS)

    async def visitor_of(request: Request, environment: Environment) -> Visitor | None:
        token = request.cookies.get(cookie_name(request, SESSION_COOKIE), "")
        found = await services.members.session(token)
        return None if found is None else Visitor(found[0], found[1], environment)

    def refuse_cross_site(request: Request) -> None:
        if request.headers.get("sec-fetch-site") in ("cross-site", "same-site"):
            raise Refused(403, "Request refused", "Forms may only be sent from these pages.")
        origin = request.headers.get("origin")
        if origin and origin != "null" and urlsplit(origin).netloc != request.url.netloc:
            raise Refused(403, "Request refused", "Forms may only be sent from these pages.")

    async def form_of(request: Request) -> dict[str, str]:
        form = await request.form(max_files=0, max_fields=MAX_FORM_FIELDS)
        fields: dict[str, str] = {}
        for name, value in form.multi_items():
            if isinstance(value, UploadFile):
                continue
            fields[name] = value if name not in fields else f"{fields[name]}\n{value}"
        refused = fields_with_nul(fields.items())
        if refused:
            raise Refused(400, "This form could not be read", nul_message(refused))
        return fields

    def check_csrf(expected: str, sent: str) -> None:
        if not expected or not hmac.compare_digest(expected.encode(), sent.encode()):
            raise Refused(
                403,
                "This form has expired",
                "The page was open too long or you signed in again elsewhere: "
                "go back, reload the page and send the form again.",
            )

    def page(handler: Page) -> Callable[[Request], Awaitable[Response]]:
        """Signs in, checks a POST's origin and CSRF token, and shows refusals as pages."""

        async def endpoint(request: Request) -> Response:
            environment = ENVIRONMENTS.get(request.path_params.get("env", ""))
            if environment is None:
                return problem(404, "Page not found", "There is no such page.", None)
            visitor = await visitor_of(request, environment)
            if visitor is None:
                if request.method == "POST":
                    return problem(401, "Signed out", "Your session ended: sign in again.", None)
                return back_to(f"/dashboard/sign-in?next={quote(request.url.path, safe='/')}")
            try:
                if request.method == "POST":
                    refuse_cross_site(request)
                    fields = await form_of(request)
                    check_csrf(visitor.session.csrf_token, fields.get("csrf", ""))
                    request.state.fields = fields
                return await handler(request, visitor)
            except Refused as refused:
                return problem(refused.status, refused.title, refused.message, visitor)
            except ApiError as error:
                if error.status == 404:
                    return problem(404, "Not found", error.message, visitor)
                return problem(error.status, "That did not work", error.message, visitor)

        return endpoint

    # --- sign-in -------------------------------------------------------------------------
    def sign_in_page(
        request: Request,
        status: int = 200,
        error: str | None = None,
        email: str = "",
        next_page: str | None = None,
    ) -> HTMLResponse:
        """`next_page`: where to go once signed in (a refused POST's form field; otherwise
        the query's `next`)."""
        token = secrets.token_urlsafe(32)
        response = render(
            "sign_in.html",
            status,
            title="Sign in",
            error=error,
            email=email,
            sign_in_token=token,
            next=_safe_next(next_page or request.query_params.get("next")),
            notice=notice_of(request),
        )
        response.set_cookie(
            cookie_name(request, SIGN_IN_COOKIE),
            token,
            max_age=SIGN_IN_COOKIE_AGE,
            path="/",
            secure=secure(request),
            httponly=True,
            samesite="strict",
        )
        return response

    async def sign_in(request: Request) -> Response:
        if request.method != "POST":
            token = request.cookies.get(cookie_name(request, SESSION_COOKIE), "")
            if await services.members.session(token) is not None:
                return back_to(_safe_next(request.query_params.get("next")))
            return sign_in_page(request)
        try:
            refuse_cross_site(request)
            fields = await form_of(request)
            check_csrf(request.cookies.get(cookie_name(request, SIGN_IN_COOKIE), ""),
                       fields.get("sign_in_token", ""))  # fmt: skip
        except Refused as refused:
            return problem(refused.status, refused.title, refused.message, None)
        email = fields.get("email", "").strip()
        if not email or not fields.get("password"):
            return sign_in_page(
                request, 400, "Enter your e-mail address and password.", email, fields.get("next")
            )
        try:
            signed_in = await services.members.sign_in(email, fields.get("password", ""))
        except SignInRefused as refused:
            return sign_in_page(request, 400, refused.message, email, fields.get("next"))
        response = back_to(_safe_next(fields.get("next")))
        response.set_cookie(
            cookie_name(request, SESSION_COOKIE),
            signed_in.token,
            path="/",
            secure=secure(request),
            httponly=True,
            samesite="lax",
        )  # a browser-session cookie; the server ends the session after 12 h at most
        response.delete_cookie(cookie_name(request, SIGN_IN_COOKIE), path="/")
        return response

    async def sign_out(request: Request) -> Response:
        name = cookie_name(request, SESSION_COOKIE)
        token = request.cookies.get(name, "")
        found = await services.members.session(token)
        try:
            refuse_cross_site(request)
            fields = await form_of(request)
            if found is not None:
                check_csrf(found[1].csrf_token, fields.get("csrf", ""))
        except Refused as refused:
            return problem(refused.status, refused.title, refused.message, None)
        if found is not None:
            await services.members.sign_out(token)
        response = back_to("/dashboard/sign-in", "signed-out")
        response.delete_cookie(name, path="/", secure=secure(request), httponly=True)
        return response

    async def home(request: Request) -> Response:
        return back_to("/dashboard/sandbox/devices")

    # --- API keys ------------------------------------------------------------------------
    async def keys(request: Request, visitor: Visitor) -> Response:
        new_key: str | None = None
        if request.method == "POST":
            created = await services.accounts.create_key(
                visitor.member.account_id, visitor.environment
            )
            new_key = created.key
        listed = [
            k
            for k in await services.accounts.list_keys(visitor.member.account_id)
            if k.environment is visitor.environment
        ]
        listed.sort(key=lambda k: k.created_at, reverse=True)
        now = services.clock.now()
        return render(
            "keys.html",
            201 if new_key else 200,
            visitor,
            title="API keys",
            section="keys",
            keys=[(k, k.usable_at(now)) for k in listed],
            new_key=new_key,
            notice=notice_of(request),
        )

    async def revoke_key(request: Request, visitor: Visitor) -> Response:
        key_id = request.path_params["key_id"]
        revoked = await services.accounts.revoke_key(key_id, visitor.member.account_id)
        return back_to(_path(visitor, "keys"), "key-revoked" if revoked else "key-gone")

    # --- webhook endpoints ---------------------------------------------------------------
    async def show_webhooks(
        request: Request,
        visitor: Visitor,
        status: int = 200,
        *,
        revealed: WebhookEndpoint | None = None,
        reason: str | None = None,
        errors: dict[str, str] | None = None,
        values: dict[str, str] | None = None,
    ) -> Response:
        """The endpoints page; `revealed` shows that endpoint's secret (`reason`: why)."""
        return render(
            "webhooks.html",
            status,
            visitor,
            title="Webhook endpoints",
            section="webhooks",
            endpoints=await services.webhooks.list_endpoints(visitor.principal),
            revealed=revealed,
            revealed_reason=reason,
            errors=errors or {},
            values=values or {"url": "", "description": "", "events": ""},
            event_types=[e.value for e in EventType],
            notice=notice_of(request),
        )

    async def webhooks(request: Request, visitor: Visitor) -> Response:
        if request.method != "POST":
            return await show_webhooks(request, visitor)
        fields: dict[str, str] = request.state.fields
        values = {
            "url": fields.get("url", "").strip(),
            "description": fields.get("description", "").strip(),
            "events": fields.get("events", ""),
        }
        try:
            created = await services.webhooks.create_endpoint(
                visitor.principal,
                values["url"],
                values["description"] or None,
                _events(values["events"]) or None,
            )
        except EndpointLimitReached as error:  # not the URL's fault: said above the list
            return await show_webhooks(
                request, visitor, error.status, errors={"endpoints": error.message}, values=values
            )
        except ApiError as error:
            return await show_webhooks(
                request, visitor, 400, errors={"url": error.message}, values=values
            )
        return await show_webhooks(request, visitor, 201, revealed=created, reason="new")

    async def reveal_secret(request: Request, visitor: Visitor) -> Response:
        endpoint_id = request.path_params["endpoint_id"]
        endpoint = await services.webhooks.get_endpoint(visitor.principal, endpoint_id)
        return await show_webhooks(request, visitor, revealed=endpoint, reason="revealed")

    async def rotate_secret(request: Request, visitor: Visitor) -> Response:
        endpoint_id = request.path_params["endpoint_id"]
        endpoint = await services.webhooks.rotate_secret(visitor.principal, endpoint_id)
        return await show_webhooks(request, visitor, revealed=endpoint, reason="rotated")

    async def remove_endpoint(request: Request, visitor: Visitor) -> Response:
        await services.webhooks.delete_endpoint(
            visitor.principal, request.path_params["endpoint_id"]
        )
        return back_to(_path(visitor, "webhooks"), "endpoint-removed")

    # --- deliveries ----------------------------------------------------------------------
    async def deliveries(request: Request, visitor: Visitor) -> Response:
        query = request.query_params
        status_name = query.get("status", "")
        status = DeliveryStatus(status_name) if status_name in _STATUSES else None
        endpoint_id = query.get("endpoint") or None
        number = _page_number(query.get("page"))
        listed, total = await services.webhooks.list_deliveries(
            visitor.principal, endpoint_id, status, (number - 1) * PAGE_SIZE, PAGE_SIZE
        )
        return render(
            "deliveries.html",
            200,
            visitor,
            title="Webhook deliveries",
            section="deliveries",
            deliveries=listed,
            total=total,
            page=number,
            pages=max(1, -(-total // PAGE_SIZE)),
            status=status.value if status else "",
            statuses=[s.value for s in DeliveryStatus],
            endpoint_id=endpoint_id or "",
            endpoints=await services.webhooks.list_endpoints(visitor.principal),
            notice=notice_of(request),
        )

    async def delivery(request: Request, visitor: Visitor) -> Response:
        found = await services.webhooks.get_delivery(
            visitor.principal, request.path_params["delivery_id"]
        )
        return render(
            "delivery.html",
            200,
            visitor,
            title=f"Delivery {found.id}",
            section="deliveries",
            delivery=found,
            body=_pretty(found.body),
            notice=notice_of(request),
        )

    async def resend(request: Request, visitor: Visitor) -> Response:
        delivery_id = request.path_params["delivery_id"]
        await services.webhooks.resend(visitor.principal, delivery_id)
        return back_to(f"{_path(visitor, 'deliveries')}/{quote(delivery_id, safe='')}", "resent")

    # --- devices -------------------------------------------------------------------------
    async def devices(request: Request, visitor: Visitor) -> Response:
        number = _page_number(request.query_params.get("page"))
        listed = await services.devices.list_page(
            visitor.principal, [], None, (number - 1) * PAGE_SIZE, PAGE_SIZE
        )
        return render(
            "devices.html",
            200,
            visitor,
            title="Devices",
            section="devices",
            devices=listed.devices,
            total=listed.total,
            page=number,
            pages=max(1, -(-listed.total // PAGE_SIZE)),
        )

    async def device(request: Request, visitor: Visitor) -> Response:
        found, history = await services.history.last_day(
            visitor.principal, request.path_params["device_id"]
        )
        recent, _ = await services.actions.list(
            visitor.principal, found.id, None, 0, RECENT_ACTIONS
        )
        return render(
            "device.html",
            200,
            visitor,
            title=f"{found.vendor} {found.model}",
            section="devices",
            device=found,
            is_battery=found.type is DeviceType.BATTERY,
            state_rows=_state_rows(found.state),
            chart=line_chart(history),
            actions=recent,
        )

    async def http_problem(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        if status == 404:
            return problem(404, "Page not found", "There is no such page.", None)
        response = problem(status, "Request refused", "This request cannot be answered.", None)
        if status == 405:
            response.headers["Allow"] = "GET, HEAD, POST"
        return response

    def refuse(status: int, message: str) -> Response:
        title = "Page not found" if status == 404 else "This request could not be read"
        return problem(status, title, message, None)

    both = ["GET", "POST"]
    app = Starlette(
        routes=[
            Route("/", home),
            Route("/sign-in", sign_in, methods=both),
            Route("/sign-out", sign_out, methods=["POST"]),
            Route("/{env}/keys", page(keys), methods=both),
            Route("/{env}/keys/{key_id}/revoke", page(revoke_key), methods=["POST"]),
            Route("/{env}/webhooks", page(webhooks), methods=both),
            Route("/{env}/webhooks/{endpoint_id}/reveal", page(reveal_secret), methods=["POST"]),
            Route("/{env}/webhooks/{endpoint_id}/rotate", page(rotate_secret), methods=["POST"]),
            Route("/{env}/webhooks/{endpoint_id}/remove", page(remove_endpoint), methods=["POST"]),
            Route("/{env}/deliveries", page(deliveries)),
            Route("/{env}/deliveries/{delivery_id}", page(delivery)),
            Route("/{env}/deliveries/{delivery_id}/resend", page(resend), methods=["POST"]),
            Route("/{env}/devices", page(devices)),
            Route("/{env}/devices/{device_id}", page(device)),
            Route("/{env}", page(_environment_home)),
        ],
        exception_handlers={HTTPException: http_problem},
    )
    app.router.redirect_slashes = False  # a redirect would carry the client's Host
    return NulGuard(app, refuse)


async def _environment_home(_request: Request, visitor: Visitor) -> Response:
    return RedirectResponse(_path(visitor, "devices"), status_code=303, headers=SECURITY_HEADERS)


def _path(visitor: Visitor, section: str) -> str:
    return f"/dashboard/{visitor.environment.value}/{section}"


def _safe_next(target: str | None) -> str:
    """Only the dashboard's own pages: never an open redirect."""
    if target and target.startswith("/dashboard/") and "//" not in target and "\\" not in target:
        return target
    return "/dashboard/sandbox/devices"


def _page_number(raw: str | None) -> int:
    try:
        return max(1, min(int(raw or "1"), 100_000))
    except ValueError:
        return 1


def _events(raw: str) -> list[EventType]:
    return [EventType(v) for v in raw.split("\n") if v in _EVENTS]


def _pretty(body: str) -> str:
    try:
        return json.dumps(json.loads(body), indent=2, sort_keys=True)
    except ValueError:
        return body


def _state_rows(state: dict[str, Any]) -> list[tuple[str, str]]:
    rows = []
    for name, value in state.items():
        if isinstance(value, dict):
            shown = " ".join(f"{v}" for v in value.values())
        else:
            shown = json.dumps(value) if isinstance(value, bool) or value is None else str(value)
        rows.append((name, shown))
    return rows
