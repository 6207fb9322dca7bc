"""The hosted Link UI (spec 1.6) as server-rendered HTML: plain forms, no JavaScript.

One address, `/link/{appId}`: GET shows the session's current step (the token is in the
query, as `linkUrl` hands it out); POST takes a step's form (the token and the step's nonce
in hidden fields). A step that went through answers 303 to the GET, so reloading a page
never sends a form again; a form with errors is answered with its page and the errors.

Protection against cross-site requests: a POST must carry the secret link token, which only
the user's browser has (pages are served with `Referrer-Policy: no-referrer`, so it does not
leak to other sites), and the nonce of the step it was shown for, which changes at every
step; and a POST that the browser marks `Sec-Fetch-Site: cross-site` or `same-site` is
refused. There are no cookies. Pages may not be framed (clickjacking)."""

from __future__ import annotations

from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from energyhub.config import Settings
from energyhub.domain.accounts import Environment as ServiceEnvironment
from energyhub.domain.errors import ApiError, InvalidRequest, LinkRequestRefused, NotFound
from energyhub.domain.linking import LinkStep, back_from, progress
from energyhub.services.link_flow import LinkFlow
from energyhub.services.link_pages import LinkFlowProblem, LinkPage
from energyhub.web.forms import UnreadableForm, cross_site_fetch, read_form
from energyhub.web.pages import html_page, page_app, see_other, static_files

__all__ = ["link_app", "static_files"]

MAX_FORM_FIELDS = 50

TITLES: dict[LinkStep, str] = {
    LinkStep.DEVICE_TYPE: "What do you want to connect?",
    LinkStep.VENDOR: "Choose the manufacturer",
    LinkStep.CREDENTIALS: "Sign in",
    LinkStep.MFA: "Enter your verification code",
    LinkStep.DEVICES: "Choose the devices to connect",
    LinkStep.CONSENT: "Allow access?",
    LinkStep.REVOKE: "Remove access?",
    LinkStep.DONE: "Connected",
    LinkStep.CANCELLED: "Nothing was connected",
    LinkStep.REVOKED: "Access removed",
}

PROBLEM_TITLES = {
    "LINK_TOKEN_INVALID": "This link is not valid",
    "LINK_TOKEN_EXPIRED": "This link has expired",
    "LINK_TOKEN_USED": "This link has already been used",
    "LINK_REQUEST_REFUSED": "This request was refused",
    "NOT_FOUND": "Page not found",
    "INVALID_REQUEST": "This request could not be read",
}


def link_app(flow: LinkFlow, settings: Settings) -> ASGIApp:
    """The Link UI, to be mounted at `/link`."""

    def show(page: LinkPage, app_id: str, token: str) -> HTMLResponse:
        session = page.session
        stage = progress(page.step, session.vendor is not None)
        title = TITLES[page.step]
        if page.step is LinkStep.CREDENTIALS and page.vendor is not None:
            title = f"Sign in to {page.vendor.name}"
        return html_page(
            f"{page.step.value}.html",
            page.status,
            page=page,
            title=title,
            app_name=page.app_name,
            sandbox=session.environment is ServiceEnvironment.SANDBOX,
            stage=stage,
            token=token,
            form_action=f"/link/{quote(app_id, safe='')}",
            can_go_back=_can_go_back(page),
        )

    def problem(
        error: ApiError,
        app_name: str | None,
        finish_url: str | None,
        status: int | None = None,
    ) -> HTMLResponse:
        return html_page(
            "problem.html",
            status or error.status,
            title=PROBLEM_TITLES.get(error.code, "Something went wrong"),
            message=error.message,
            code=error.code,
            app_name=app_name,
            finish_url=finish_url,
            sandbox=False,
            stage=None,
        )

    async def link_page(request: Request) -> Response:
        app_id = request.path_params["app_id"]
        if request.method != "POST":
            token = request.query_params.get("token", "")
            try:
                page = await flow.page(app_id, token)
            except LinkFlowProblem as trouble:
                return problem(trouble.error, trouble.app_name, trouble.finish_url)
            return show(page, app_id, token)
        if cross_site_fetch(request):
            return problem(LinkRequestRefused(), None, None)
        try:
            form = await read_form(request, MAX_FORM_FIELDS)
        except UnreadableForm as unreadable:
            return problem(InvalidRequest(unreadable.message), None, None)
        fields = form.last()
        token = fields.get("token", "")
        picked = form.all("device")
        try:
            page_or_none = await flow.submit(
                app_id,
                token,
                fields.get("nonce", ""),
                fields.get("action", "continue"),
                fields,
                picked,
                _public_base(request, settings),
            )
        except LinkFlowProblem as trouble:
            return problem(trouble.error, trouble.app_name, trouble.finish_url)
        if page_or_none is None:
            return see_other(f"/link/{quote(app_id, safe='')}?token={quote(token, safe='')}")
        return show(page_or_none, app_id, token)

    def refused_page(status: int) -> Response:
        """Starlette's own refusals (no such page, wrong method, unreadable form) as pages."""
        if status == 404:
            return problem(NotFound(), None, None)
        return problem(LinkRequestRefused(), None, None, status)

    def refuse(status: int, message: str) -> Response:
        return problem(NotFound(message) if status == 404 else InvalidRequest(message), None, None)

    return page_app([Route("/{app_id}", link_page, methods=["GET", "POST"])], refused_page, refuse)


def _can_go_back(page: LinkPage) -> bool:
    return back_from(page.step, page.session.vendor is not None) is not None


def _public_base(request: Request, settings: Settings) -> str:
    """ENERGYHUB_PUBLIC_URL, else the address the request arrived at (never its Host)."""
    return settings.public_base_for(request.scope.get("server"))
