"""Reading the pages' forms and refusing forged ones, for the Link UI and the dashboard alike.

A form is read with a cap on its fields, without files, and refused whole if a field's name or
value holds NUL (PostgreSQL cannot store it). A POST the browser marks as sent from another
site is refused before the form is read. CSRF tokens are random, compared in constant time."""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.datastructures import UploadFile
from starlette.requests import Request

from energyhub.web.nul_guard import fields_with_nul, nul_message


class UnreadableForm(Exception):
    """A form with a field the pages refuse; the message says what to fix."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class Form:
    """A form's text fields, in the order they were sent (files dropped)."""

    pairs: tuple[tuple[str, str], ...]

    def last(self) -> dict[str, str]:
        """One value per name: the last one sent."""
        return dict(self.pairs)

    def joined(self) -> dict[str, str]:
        """One value per name: repeated values joined by newlines (a multiple choice)."""
        fields: dict[str, str] = {}
        for name, value in self.pairs:
            fields[name] = value if name not in fields else f"{fields[name]}\n{value}"
        return fields

    def all(self, name: str) -> list[str]:
        return [value for key, value in self.pairs if key == name]


async def read_form(request: Request, max_fields: int) -> Form:
    """The request's form; raises `UnreadableForm` if a field holds NUL."""
    form = await request.form(max_files=0, max_fields=max_fields)
    pairs = tuple((k, v) for k, v in form.multi_items() if not isinstance(v, UploadFile))
    refused = fields_with_nul(pairs)
    if refused:
        raise UnreadableForm(nul_message(refused))
    return Form(pairs)


def cross_site_fetch(request: Request) -> bool:
    """The browser says the request was started by another site (or a sibling subdomain)."""
    return request.headers.get("sec-fetch-site") in ("cross-site", "same-site")


def foreign_origin(request: Request) -> bool:
    """The request's `Origin` is another host than the one it was sent to."""
    origin = request.headers.get("origin")
    return bool(origin and origin != "null" and urlsplit(origin).netloc != request.url.netloc)


def new_csrf_token() -> str:
    return secrets.token_urlsafe(32)


def csrf_token_matches(expected: str, sent: str) -> bool:
    """An empty expected token (no session, no cookie) matches nothing."""
    return bool(expected) and hmac.compare_digest(expected.encode(), sent.encode())
