"""Post/Redirect/Get: a dashboard form's outcome travels to the page it redirects to in a
short-lived cookie, so reloading that page shows it and sends nothing again.

The cookie is encrypted and signed (Fernet) with a key drawn from the visitor's session
token, so only that session can read it (a new API key may ride in it, for one redirect);
it names the page it is for, lives `FLASH_AGE_S` at most, and the page that shows it
deletes it, so a second reload shows the page without it."""

from __future__ import annotations

import base64
import hashlib
import json
import time
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from energyhub.web.pages import see_other

if TYPE_CHECKING:  # cryptography loads when a form is first sent: ~8 MB an idle service skips
    from cryptography.fernet import Fernet

FLASH_COOKIE = "energyhub_flash"
FLASH_AGE_S = 60
MAX_COOKIE_BYTES = 3800  # browsers keep 4096 bytes a cookie, name and attributes included
MAX_VALUE_CHARS = 300  # a refilled form field longer than this comes back empty


def _fernet(session_token: str) -> Fernet:
    from cryptography.fernet import Fernet

    digest = hashlib.sha256(b"energyhub dashboard flash\0" + session_token.encode()).digest()
    return Fernet(base64.urlsafe_b64encode(digest))


def seal(session_token: str, path: str, outcome: dict[str, Any], at: int | None = None) -> str:
    """`outcome` for `path`, sealed at `at` (Unix seconds; default now); refilled values,
    then details, are left out when the cookie would be too large."""
    fernet, at = _fernet(session_token), int(time.time()) if at is None else at
    sealed = fernet.encrypt_at_time(json.dumps({"path": path, **outcome}).encode(), at)
    if len(sealed) > MAX_COOKIE_BYTES and "values" in outcome:
        values = {k: v for k, v in outcome["values"].items() if len(v) <= MAX_VALUE_CHARS}
        sealed = fernet.encrypt_at_time(
            json.dumps({"path": path, **outcome, "values": values}).encode(), at
        )
    if len(sealed) > MAX_COOKIE_BYTES:
        trimmed = {k: v for k, v in outcome.items() if k not in {"values", "details"}}
        sealed = fernet.encrypt_at_time(json.dumps({"path": path, **trimmed}).encode(), at)
    return sealed.decode()


def redirect_with(
    cookie_name: str, session_token: str, secure: bool, path: str, outcome: dict[str, Any]
) -> RedirectResponse:
    """A 303 to `path` (no query, no fragment: the browser keeps the form's `#outcome`),
    carrying `outcome` (JSON-able) for that page only."""
    response = see_other(path)
    response.set_cookie(
        cookie_name,
        seal(session_token, path, outcome),
        max_age=FLASH_AGE_S,
        path="/",
        secure=secure,
        httponly=True,
        samesite="lax",
    )
    return response


def take_flash(
    request: Request, cookie_name: str, session_token: str, at: int | None = None
) -> tuple[dict[str, Any] | None, bool]:
    """The outcome sent to this page by the form before (None: none, too old, or from
    another session), and whether to drop the cookie (not when it is for another page)."""
    sealed = request.cookies.get(cookie_name)
    if not sealed or request.method != "GET":
        return None, False
    from cryptography.fernet import InvalidToken

    try:
        opened = json.loads(
            _fernet(session_token).decrypt_at_time(
                sealed.encode(), FLASH_AGE_S, int(time.time()) if at is None else at
            )
        )
    except (InvalidToken, ValueError):
        return None, True
    if not isinstance(opened, dict):
        return None, True
    if opened.pop("path", None) != request.url.path:
        return None, False
    return opened, True


def forget_flash(response: Response, cookie_name: str, secure: bool) -> None:
    response.delete_cookie(cookie_name, path="/", secure=secure, httponly=True)
