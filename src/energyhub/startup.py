"""What the `energyhub` command tells an operator, so no start ends in a dead end: which
database it opened, where the docs, dashboard and Link UI are, how to get a key back when
the first one was lost; and a port that is taken is found before anything else starts."""

from __future__ import annotations

import errno
import socket
from pathlib import Path

from rich.markup import escape
from sqlalchemy.engine import make_url

from energyhub.config import Settings


class PortInUse(Exception):
    """The address `serve` should listen on is taken; the message says what to do."""


def database_label(settings: Settings) -> str:
    """The database in words an operator can act on: the SQLite file's absolute path, or the
    PostgreSQL URL without its password."""
    path = settings.sqlite_path()
    if settings.is_sqlite:
        return "SQLite, in memory" if path is None else f"SQLite file {Path(path).resolve()}"
    url = make_url(settings.database_url).render_as_string(hide_password=True)
    return f"PostgreSQL {url}"


def serve_banner(settings: Settings, base: str, app_id: str | None) -> str:
    """The lines `energyhub serve` prints at every start (rich markup)."""
    link = f"{base}/link/{app_id or '<appId>'}?token=..."
    lines = [
        f"\n[bold]energyhub[/] serving at {base}",
        f"  API docs:   {base}/docs",
        f"  dashboard:  {base}/dashboard",
        f"  Link UI:    {link}  (POST /link-sessions gives a token)",
    ]
    if settings.sandbox_port is not None:
        lines.append(f"  sandbox:    port {settings.sandbox_port} answers sandbox keys only")
    lines += [
        f"  database:   {escape(database_label(settings))}",
        "  lost your API key? `energyhub accounts list` shows each account's id, and "
        "`energyhub keys create --account <accountId> --env test` makes a new key "
        "(--env live for live devices)",
        "",
    ]
    return "\n".join(lines)


def check_port_free(host: str, port: int) -> None:
    """Raises `PortInUse` when `host:port` cannot be listened on because something already
    does, so `serve` stops before its migrations, workers and demo run."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError:
        return  # a host that does not resolve: uvicorn says so itself
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as error:
            if error.errno != errno.EADDRINUSE:
                return
            raise PortInUse(
                f"Port {port} on {host} is already in use (another `energyhub serve`, or "
                f"another program). Stop it, or choose another port: `energyhub serve "
                f"--port {port + 1}`."
            ) from None
