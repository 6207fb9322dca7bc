"""What every dashboard page shares: its services, the signed-in visitor, rendering, the
session cookie, and `Site.page`, the wrapper that signs in, checks a POST and shows refusals."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from energyhub.config import Settings
from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.clock import Clock
from energyhub.domain.errors import ApiError
from energyhub.domain.members import DashboardSession, Member
from energyhub.services.accounts import AccountService
from energyhub.services.actions import ActionService
from energyhub.services.devices import DeviceService
from energyhub.services.history import HistoryService
from energyhub.services.linking import LinkingService
from energyhub.services.members import MemberService
from energyhub.services.sandbox import SandboxService
from energyhub.services.schedules import ScheduleService
from energyhub.services.sessions import SessionService
from energyhub.services.strategies import StrategyService
from energyhub.services.webhooks import WebhookService
from energyhub.web.dashboard.flash import FLASH_COOKIE, forget_flash, redirect_with, take_flash
from energyhub.web.forms import (
    UnreadableForm,
    cross_site_fetch,
    csrf_token_matches,
    foreign_origin,
    read_form,
)
from energyhub.web.pages import html_page, see_other

SESSION_COOKIE = "energyhub_session"
PAGE_SIZE = 25
MAX_FORM_FIELDS = 20
ENVIRONMENTS = {"sandbox": Environment.SANDBOX, "live": Environment.LIVE}

# What a finished POST says on the page it redirects to: fixed texts chosen by a code, so
# nothing from the query string is ever shown.
NOTICES = {
    "key-revoked": "The key was revoked: requests with it now get 401 EXPIRED_TOKEN.",
    "key-gone": "That key was already revoked or does not exist.",
    "endpoint-removed": "The endpoint was removed: it gets no more events.",
    "resent": "One more attempt was queued: it is sent within a few seconds.",
    "test-sent": "A test event was queued: it is sent at once. Reload to see its attempt.",
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
    sandbox: SandboxService
    schedules: ScheduleService
    sessions: SessionService
    linking: LinkingService
    strategies: StrategyService


@dataclass(frozen=True, slots=True)
class Visitor:
    """A signed-in member on one environment's pages."""

    member: Member
    session: DashboardSession
    environment: Environment

    @property
    def principal(self) -> Principal:
        return Principal(self.member.account_id, self.environment, f"member:{self.member.id}")

    def path(self, section: str) -> str:
        return f"/dashboard/{self.environment.value}/{section}"


class Refused(Exception):
    """A request the dashboard will not carry out; shown as a page with this status."""

    def __init__(self, status: int, title: str, message: str) -> None:
        super().__init__(message)
        self.status, self.title, self.message = status, title, message


Page = Callable[[Request, "Visitor"], Awaitable[Response]]


@dataclass(frozen=True, slots=True)
class Site:
    """The dashboard's services and settings, handed to every page."""

    services: DashboardServices
    settings: Settings

    def secure(self, request: Request) -> bool:
        public_url = self.settings.public_url or ""
        return request.url.scheme == "https" or public_url.startswith("https:")

    def cookie_name(self, request: Request, name: str) -> str:
        return f"__Host-{name}" if self.secure(request) else name

    def render(
        self, template: str, http_status: int = 200, visitor: Visitor | None = None, **context: Any
    ) -> HTMLResponse:
        context.setdefault("notice", None)
        context.setdefault("section", "devices")  # where the environment switch leads
        return html_page(
            f"dashboard/{template}",
            http_status,
            visitor=visitor,
            environment=None if visitor is None else visitor.environment.value,
            csrf=None if visitor is None else visitor.session.csrf_token,
            app_name=None,
            **context,
        )

    def problem(
        self, status: int, title: str, message: str, visitor: Visitor | None
    ) -> HTMLResponse:
        return self.render("problem.html", status, visitor, title=title, message=message)

    def after_form(self, request: Request, path: str, **outcome: Any) -> RedirectResponse:
        """The answer to every signed-in form: 303 to `path`, which shows `outcome` once
        (`flash_of`), so reloading it sends nothing again."""
        token = request.cookies.get(self.cookie_name(request, SESSION_COOKIE), "")
        name = self.cookie_name(request, FLASH_COOKIE)
        return redirect_with(name, token, self.secure(request), path, outcome)

    async def visitor_of(self, request: Request, environment: Environment) -> Visitor | None:
        token = request.cookies.get(self.cookie_name(request, SESSION_COOKIE), "")
        found = await self.services.members.session(token)
        return None if found is None else Visitor(found[0], found[1], environment)

    def page(self, handler: Page) -> Callable[[Request], Awaitable[Response]]:
        """Signs in, checks a POST's origin and CSRF token, and shows refusals as pages."""

        async def endpoint(request: Request) -> Response:
            environment = ENVIRONMENTS.get(request.path_params.get("env", ""))
            if environment is None:
                return self.problem(404, "Page not found", "There is no such page.", None)
            visitor = await self.visitor_of(request, environment)
            if visitor is None:
                if request.method == "POST":
                    return self.problem(
                        401, "Signed out", "Your session ended: sign in again.", None
                    )
                return back_to(f"/dashboard/sign-in?next={quote(request.url.path, safe='/')}")
            flash_cookie = self.cookie_name(request, FLASH_COOKIE)
            token = request.cookies.get(self.cookie_name(request, SESSION_COOKIE), "")
            request.state.flash, drop_flash = take_flash(request, flash_cookie, token)
            try:
                if request.method == "POST":
                    refuse_cross_site(request)
                    fields = await form_of(request)
                    check_csrf(visitor.session.csrf_token, fields.get("csrf", ""))
                    request.state.fields = fields
                response = await handler(request, visitor)
                if drop_flash:
                    forget_flash(response, flash_cookie, self.secure(request))
                return response
            except Refused as refused:
                return self.problem(refused.status, refused.title, refused.message, visitor)
            except ApiError as error:
                if error.status == 404:
                    return self.problem(404, "Not found", error.message, visitor)
                return self.problem(error.status, "That did not work", error.message, visitor)

        return endpoint


def flash_of(request: Request) -> dict[str, Any]:
    """What the form before said to this page (empty: nothing; `Site.after_form`)."""
    flash = getattr(request.state, "flash", None)
    return flash if isinstance(flash, dict) else {}


def notice_of(request: Request) -> str | None:
    return NOTICES.get(request.query_params.get("done", ""))


def back_to(path: str, done: str | None = None) -> RedirectResponse:
    return see_other(path if done is None else f"{path}?done={done}")


def refuse_cross_site(request: Request) -> None:
    if cross_site_fetch(request) or foreign_origin(request):
        raise Refused(403, "Request refused", "Forms may only be sent from these pages.")


async def form_of(request: Request) -> dict[str, str]:
    """The POST's fields, a repeated field's values joined by newlines."""
    try:
        form = await read_form(request, MAX_FORM_FIELDS)
    except UnreadableForm as unreadable:
        raise Refused(400, "This form could not be read", unreadable.message) from None
    return form.joined()


def check_csrf(expected: str, sent: str) -> None:
    if not csrf_token_matches(expected, sent):
        raise Refused(
            403,
            "This form has expired",
            "The page was open too long or you signed in again elsewhere: "
            "go back, reload the page and send the form again.",
        )


def page_number(raw: str | None) -> int:
    try:
        return max(1, min(int(raw or "1"), 100_000))
    except ValueError:
        return 1
