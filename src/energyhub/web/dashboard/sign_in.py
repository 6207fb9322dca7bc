"""Signing in and out. The sign-in form carries a token from its own short-lived cookie (login
CSRF); the session cookie is `HttpOnly`, `SameSite=Lax`, and `__Host-` + `Secure` over https."""

from __future__ import annotations

from functools import partial

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from energyhub.services.members import SignInRefused
from energyhub.web.dashboard.site import (
    SESSION_COOKIE,
    Refused,
    Site,
    back_to,
    check_csrf,
    form_of,
    notice_of,
    refuse_cross_site,
)
from energyhub.web.forms import new_csrf_token

SIGN_IN_COOKIE = "energyhub_sign_in"  # the sign-in form's CSRF token (login CSRF)
SIGN_IN_COOKIE_AGE = 3600
HOME = "/dashboard/sandbox/devices"


def routes(site: Site) -> list[Route]:
    return [
        Route("/", _home),
        Route("/sign-in", partial(_sign_in, site), methods=["GET", "POST"]),
        Route("/sign-out", partial(_sign_out, site), methods=["POST"]),
    ]


async def _home(_request: Request) -> Response:
    return back_to(HOME)


def _sign_in_page(
    site: Site,
    request: Request,
    status: int = 200,
    error: str | None = None,
    email: str = "",
    next_page: str | None = None,
) -> HTMLResponse:
    """`next_page`: where to go once signed in (a refused POST's form field; otherwise the
    query's `next`)."""
    token = new_csrf_token()
    response = site.render(
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
        site.cookie_name(request, SIGN_IN_COOKIE),
        token,
        max_age=SIGN_IN_COOKIE_AGE,
        path="/",
        secure=site.secure(request),
        httponly=True,
        samesite="strict",
    )
    return response


async def _sign_in(site: Site, request: Request) -> Response:
    members = site.services.members
    if request.method != "POST":
        token = request.cookies.get(site.cookie_name(request, SESSION_COOKIE), "")
        if await members.session(token) is not None:
            return back_to(_safe_next(request.query_params.get("next")))
        return _sign_in_page(site, request)
    try:
        refuse_cross_site(request)
        fields = await form_of(request)
        check_csrf(request.cookies.get(site.cookie_name(request, SIGN_IN_COOKIE), ""),
                   fields.get("sign_in_token", ""))  # fmt: skip
    except Refused as refused:
        return site.problem(refused.status, refused.title, refused.message, None)
    email = fields.get("email", "").strip()
    if not email or not fields.get("password"):
        return _sign_in_page(
            site, request, 400, "Enter your e-mail address and password.", email, fields.get("next")
        )
    try:
        signed_in = await members.sign_in(email, fields.get("password", ""))
    except SignInRefused as refused:
        return _sign_in_page(site, request, 400, refused.message, email, fields.get("next"))
    response = back_to(_safe_next(fields.get("next")))
    response.set_cookie(
        site.cookie_name(request, SESSION_COOKIE),
        signed_in.token,
        path="/",
        secure=site.secure(request),
        httponly=True,
        samesite="lax",
    )  # a browser-session cookie; the server ends the session after 12 h at most
    response.delete_cookie(site.cookie_name(request, SIGN_IN_COOKIE), path="/")
    return response


async def _sign_out(site: Site, request: Request) -> Response:
    name = site.cookie_name(request, SESSION_COOKIE)
    token = request.cookies.get(name, "")
    found = await site.services.members.session(token)
    try:
        refuse_cross_site(request)
        fields = await form_of(request)
        if found is not None:
            check_csrf(found[1].csrf_token, fields.get("csrf", ""))
    except Refused as refused:
        return site.problem(refused.status, refused.title, refused.message, None)
    if found is not None:
        await site.services.members.sign_out(token)
    response = back_to("/dashboard/sign-in", "signed-out")
    response.delete_cookie(name, path="/", secure=site.secure(request), httponly=True)
    return response


def _safe_next(target: str | None) -> str:
    """Only the dashboard's own pages: never an open redirect."""
    if target and target.startswith("/dashboard/") and "//" not in target and "\\" not in target:
        return target
    return HOME
