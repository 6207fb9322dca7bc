"""The `energyhub` command: serve, worker, migrate, accounts and secrets (keys and devices
have modules of their own)."""

from __future__ import annotations

import asyncio
import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from energyhub.adapters.logs import uvicorn_log_config
from energyhub.bootstrap import (
    Container,
    build_app,
    build_container,
    freeze_startup_heap,
    serve_http,
    server_config,
)
from energyhub.cli.common import (
    JsonFlag,
    _logged_settings,
    _name_database,
    _print_json,
    _run,
    _tell,
    err,
)
from energyhub.cli.devices import devices_app
from energyhub.cli.keys import keys_app
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.members import MemberRefused
from energyhub.services.demo import Demo, create_demo_if_empty, first_of
from energyhub.startup import PortInUse, check_port_free, serve_banner

app = typer.Typer(
    help="energyhub: batteries and EV chargers behind one HTTP API.", no_args_is_help=True
)
accounts_app = typer.Typer(help="Customer accounts.", no_args_is_help=True)
app.add_typer(accounts_app, name="accounts")
app.add_typer(keys_app, name="keys")
app.add_typer(devices_app, name="devices")
secrets_app = typer.Typer(
    help="The encryption of stored secrets (ENERGYHUB_SECRET_KEY).", no_args_is_help=True
)
app.add_typer(secrets_app, name="secrets")


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
    demo: Annotated[
        bool, typer.Option("--demo/--no-demo", help="Create the demo on first start.")
    ] = True,
    workers: Annotated[
        bool,
        typer.Option(
            "--workers/--no-workers",
            help="Run the background workers here too; --no-workers serves the API (and "
            "live chargers' connections) only, beside `energyhub worker` processes.",
        ),
    ] = True,
) -> None:
    """Run the HTTP service (and its workers) after applying migrations."""
    settings = _logged_settings()
    try:  # before migrations, workers or the demo: a taken port is the usual first error
        for taken in (port, settings.sandbox_port):
            if taken is not None:
                check_port_free(host, taken)
    except PortInUse as refused:
        err.print(f"[red]{refused}[/]", highlight=False)
        raise typer.Exit(1) from None

    async def main() -> None:
        container = await build_container(settings)
        try:
            if demo:
                made = await create_demo_if_empty(
                    container.uow,
                    container.services.accounts,
                    container.services.sandbox,
                    container.members,
                )
                if made is not None:
                    _announce_demo(made, settings.public_base_url(host, port))
            main_address = settings.public_base_url(host, port)
            listed = await container.services.accounts.list_accounts()
            app_id = listed[0][0].app_id if len(listed) == 1 else None
            _tell(serve_banner(settings, main_address, app_id))
            config = server_config(
                build_app(
                    container,
                    serving=True,
                    workers=workers,
                    main_address=main_address,
                    freeze_heap=True,
                ),
                settings,
                host=host,
                port=port,
                log_config=uvicorn_log_config(settings.log_format),
            )
            await serve_http(config, settings)
        finally:
            await container.aclose()

    import uvloop

    uvloop.run(main())


@app.command()
def worker() -> None:
    """Run only the background workers: due actions, webhook deliveries, schedules and the
    live devices' state (for more processes on one PostgreSQL database). Live chargers
    connect to `serve` processes, which hold their OCPP connections."""
    settings = _logged_settings()

    async def main() -> None:
        container = await build_container(settings)
        _name_database(settings)
        try:
            container.start_workers()
            freeze_startup_heap()
            _tell(f"energyhub worker {container.worker.owner} running")
            await asyncio.Event().wait()  # until interrupted
        finally:
            await container.stop_workers()
            await container.aclose()

    import uvloop

    uvloop.run(main())


def _announce_demo(demo: Demo, base: str) -> None:
    battery = first_of(demo, DeviceType.BATTERY)
    _tell(
        "\n[bold green]energyhub demo ready[/] (first start: demo account, sandbox key, "
        f"user [bold]{demo.user_id}[/] with {len(demo.device_ids)} simulated devices)\n"
        f"  sandbox API key (shown once): [bold]{demo.key}[/]\n"
        f"  API docs:   {base}/docs\n"
        f"  dashboard:  {base}/dashboard  (sign in as [bold]{demo.member_email}[/] with "
        f"password [bold]{demo.member_password}[/], shown once)\n"
        f"  Link UI:    {base}/link/{demo.app_id}?token=...  (POST /link-sessions gives one)\n"
        f"  try:        curl -H 'x-api-key: {demo.key}' {base}/battery/{battery}\n"
    )


@app.command()
def migrate() -> None:
    """Apply database migrations and exit."""

    async def work(_container: Container) -> None:
        return None

    _run(work)  # build_container migrates
    err.print("database is up to date")


@accounts_app.command("create")
def accounts_create(
    name: Annotated[str, typer.Option(help="Customer name.")], as_json: JsonFlag = False
) -> None:
    """Create an account; prints its id and Link UI app id."""

    async def work(c: Container) -> dict[str, str]:
        account = await c.services.accounts.create_account(name)
        return {"accountId": account.id, "appId": account.app_id}

    result = _run(work)
    if as_json:
        _print_json(result)
    else:
        err.print(f"account [bold]{result['accountId']}[/] (app id {result['appId']})")


@accounts_app.command("list")
def accounts_list(as_json: JsonFlag = False) -> None:
    """Every account: its id, Link UI app id, name and number of live keys (a lost key is
    replaced with `energyhub keys create --account <accountId>`)."""

    async def work(c: Container) -> list[dict[str, str | int]]:
        listed = await c.services.accounts.list_accounts()
        return [
            {"accountId": a.id, "appId": a.app_id, "name": a.name, "keys": live}
            for a, live in listed
        ]

    rows = _run(work)
    if as_json:
        _print_json({"accounts": rows})
        return
    if not rows:
        err.print("no accounts yet: `energyhub accounts create --name <name>` makes one")
        return
    table = Table("account id", "app id", "name", "live keys")
    for row in rows:
        table.add_row(str(row["accountId"]), str(row["appId"]), str(row["name"]), str(row["keys"]))
    Console().print(table)


@accounts_app.command("add-member")
def accounts_add_member(
    account: Annotated[str, typer.Option(help="Account id.")],
    email: Annotated[str, typer.Option(help="The member's e-mail address (their sign-in).")],
    password_stdin: Annotated[
        bool,
        typer.Option(
            "--password-stdin", help="Read the password from standard input (for scripts)."
        ),
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Let someone sign in to the dashboard (/dashboard) for this account. The password
    (12+ characters) is asked for twice, or read from stdin; it is stored as an argon2id
    hash."""
    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = typer.prompt("Password", hide_input=True, confirmation_prompt=True, err=True)

    async def work(c: Container) -> dict[str, str]:
        member = await c.members.add_member(account, email, password)
        return {"memberId": member.id, "accountId": member.account_id, "email": member.email}

    try:
        result = _run(work)
    except (LookupError, MemberRefused) as refused:
        err.print(f"[red]{refused.args[0]}[/]")
        raise typer.Exit(1) from None
    if as_json:
        _print_json(result)
    else:
        err.print(f"member [bold]{result['email']}[/] can now sign in at /dashboard")


@secrets_app.command("rotate")
def secrets_rotate(as_json: JsonFlag = False) -> None:
    """Encrypt every stored secret (manufacturer credentials, webhook signing secrets) with
    the first key of ENERGYHUB_SECRET_KEY. To change keys: put a new key first
    (`ENERGYHUB_SECRET_KEY=new,old`), restart, run this, then drop the old key."""

    async def work(c: Container) -> dict[str, int]:
        credentials = await c.services.linking.rotate_credentials()
        signing = await c.services.webhooks.reseal_secrets()
        return {"credentials": credentials, "signingSecrets": signing}

    result = _run(work)
    if as_json:
        _print_json(result)
    else:
        err.print(
            f"re-encrypted {result['credentials']} manufacturer credentials and "
            f"{result['signingSecrets']} webhook signing secrets with the first key"
        )
