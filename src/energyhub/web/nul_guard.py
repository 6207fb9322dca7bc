"""The pages' refusal of the NUL character (U+0000), which PostgreSQL cannot store: in the
path (404, as an unknown id), the query and the form fields (400), answered with the page's
own problem page before anything reaches the database, the same on SQLite."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from urllib.parse import parse_qsl

from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

NUL = "\x00"
Refusal = Callable[[int, str], Response]
"""A problem page for a status and a sentence that says what to do."""


def nul_message(names: Iterable[str]) -> str:
    shown = ", ".join(dict.fromkeys(name.replace(NUL, "\\u0000") for name in names))
    return (
        f"The field(s) {shown} contain the NUL character (U+0000), which no field accepts: "
        "remove it and send again."
    )


def fields_with_nul(pairs: Iterable[tuple[str, str]]) -> list[str]:
    """The names of the fields (a form's or a query's) whose name or value holds a NUL."""
    return [name for name, value in pairs if NUL in name or NUL in value]


class NulGuard:
    """In front of a page app: refuses a path or query string that holds a NUL."""

    def __init__(self, app: ASGIApp, refuse: Refusal) -> None:
        self.app = app
        self.refuse = refuse

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            query: bytes = scope.get("query_string", b"")
            if NUL in scope["path"]:
                await self.refuse(404, "There is no such page.")(scope, receive, send)
                return
            if b"%00" in query or b"\x00" in query:
                pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True)
                names = fields_with_nul(pairs)
                if names:
                    await self.refuse(400, nul_message(names))(scope, receive, send)
                    return
        await self.app(scope, receive, send)
