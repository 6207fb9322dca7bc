"""The `energyhub` command: serve, migrate, accounts and keys."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from energyhub.adapters.logs import configure_logging, uvicorn_log_config
from energyhub.bootstrap import (
    Container,
    build_app,
    build_container,
    serve_http,
    server_config,
)
from energyhub.config import Settings
from energyhub.domain.accounts import environment_from_cli
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import ensure_utc, isoformat_utc
from energyhub.domain.members import MemberRefused
from energyhub.domain.versions import ApiVersion, version_from_cli
from energyhub.services.demo import Demo, create_demo_if_empty, first_of
from energyhub.startup import PortInUse, check_port_free, database_label, serve_banner

app = typer.Typer(
    help="energyhub: batteries and EV chargers behind one HTTP API.", no_args_is_help=True
)
accounts_app = typer.Typer(help="Customer accounts.", no_args_is_help=True)
keys_app = typer.Typer(help="API keys (shown once, stored as hashes).", no_args_is_help=True)
app.add_typer(accounts_app, name="accounts")
app.add_typer(keys_app, name="keys")
devices_app = typer.Typer(
    help="Live devices: commission chargers and batteries.", no_args_is_help=True
)
app.add_typer(devices_app, name="devices")
secrets_app = typer.Typer(
    help="The encryption of stored secrets (ENERGYHUB_SECRET_KEY).", no_args_is_help=True
)
app.add_typer(secrets_app, name="secrets")

err = Console(stderr=True, soft_wrap=True)
T = TypeVar("T")
JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON alone on stdout.")]
ApiVersionOption = typer.Option(
    "--api-version", help="1.0 or legacy (default: legacy for sk_sandbox_ keys, else 1.0)."
)


def _run(work: Callable[[Container], Awaitable[T]]) -> T:
    async def main() -> T:
        settings = Settings()
        container = await build_container(settings)
        _name_database(settings)
        try:
            return await work(container)
        finally:
            await container.aclose()

    return asyncio.run(main())


def _logged_settings() -> Settings:
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format)
    return settings


def _name_database(settings: Settings) -> None:
    """Every command says which database it opened (on stderr: --json output stays alone)."""
    err.print(f"database: {database_label(settings)}", markup=False, highlight=False)


def _print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value) + "\n")


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
            err.print(serve_banner(settings, main_address, app_id), highlight=False)
            config = server_config(
                build_app(container, serving=True, workers=workers, main_address=main_address),
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
            err.print(f"energyhub worker {container.worker.owner} running")
            await asyncio.Event().wait()  # until interrupted
        finally:
            await container.stop_workers()
            await container.aclose()

    import uvloop

    uvloop.run(main())


def _announce_demo(demo: Demo, base: str) -> None:
    battery = first_of(demo, DeviceType.BATTERY)
    err.print(
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


@keys_app.command("create")
def keys_create(
    account: Annotated[str, typer.Option(help="Account id.")],
    env: Annotated[str, typer.Option(help="test (sandbox; 'sandbox' gives sk_sandbox_) or live.")],
    expires_at: Annotated[
        datetime | None, typer.Option(help="Optional expiry, ISO 8601 (UTC if no offset).")
    ] = None,
    api_version: Annotated[str | None, ApiVersionOption] = None,
    as_json: JsonFlag = False,
) -> None:
    """Create an API key; the key is shown once and stored as a hash."""
    try:
        environment = environment_from_cli(env)
    except ValueError as bad:
        raise typer.BadParameter(str(bad), param_hint="--env") from None
    version = None if api_version is None else _api_version(api_version, "--api-version")
    prefix = "sk_sandbox_" if env.lower() == "sandbox" else None
    expiry = None if expires_at is None else ensure_utc(expires_at)

    async def work(c: Container) -> dict[str, str | None]:
        created = await c.services.accounts.create_key(
            account, environment, expiry, prefix, version
        )
        return {
            "key": created.key,
            "keyId": created.api_key.id,
            "environment": environment.value,
            "expiresAt": None if expiry is None else isoformat_utc(expiry),
            "apiVersion": created.api_key.api_version.value,
        }

    try:
        result = _run(work)
    except LookupError as missing:
        err.print(f"[red]{missing.args[0]}[/]")
        raise typer.Exit(1) from None
    if as_json:
        _print_json(result)
    else:
        err.print(f"key [bold]{result['keyId']}[/]: {result['key']}  (shown once; keep it safe)")


@keys_app.command("revoke")
def keys_revoke(key_id: Annotated[str, typer.Argument(help="The key's id (key_...).")]) -> None:
    """Revoke a key; serving processes refuse it within ENERGYHUB_KEY_CACHE_TTL_S (0.25 s)."""

    async def work(c: Container) -> bool:
        return await c.services.accounts.revoke_key(key_id)

    if not _run(work):
        err.print(f"[red]no active key {key_id}[/]")
        raise typer.Exit(1)
    err.print(f"revoked {key_id}")


@keys_app.command("set-version")
def keys_set_version(
    key_id: Annotated[str, typer.Argument(help="The key's id (key_...).")],
    version: Annotated[str, typer.Argument(help="1.0 or legacy.")],
    as_json: JsonFlag = False,
) -> None:
    """Move a key to another API version (docs/versioning.md); serving processes answer in
    it within ENERGYHUB_KEY_CACHE_TTL_S."""
    chosen = _api_version(version, "VERSION")

    async def work(c: Container) -> bool:
        return await c.services.accounts.set_key_version(key_id, chosen) is not None

    if not _run(work):
        err.print(f"[red]no key {key_id}[/]")
        raise typer.Exit(1)
    if as_json:
        _print_json({"keyId": key_id, "apiVersion": chosen.value})
    else:
        err.print(f"{key_id} now answers in API version {chosen.value}")


def _api_version(name: str, hint: str) -> ApiVersion:
    try:
        return version_from_cli(name)
    except ValueError as bad:
        raise typer.BadParameter(str(bad), param_hint=hint) from None


@keys_app.command("list")
def keys_list(
    account: Annotated[str, typer.Option(help="Account id.")], as_json: JsonFlag = False
) -> None:
    """An account's keys (ids, environments, hints; never the keys)."""

    async def work(c: Container) -> list[dict[str, str | None]]:
        keys = await c.services.accounts.list_keys(account)
        return [
            {
                "keyId": k.id,
                "environment": k.environment.value,
                "prefix": k.prefix,
                "hint": k.hint,
                "createdAt": isoformat_utc(k.created_at),
                "expiresAt": None if k.expires_at is None else isoformat_utc(k.expires_at),
                "revokedAt": None if k.revoked_at is None else isoformat_utc(k.revoked_at),
                "apiVersion": k.api_version.value,
            }
            for k in keys
        ]

    try:
        rows = _run(work)
    except LookupError as missing:
        err.print(f"[red]{missing.args[0]}[/]")
        raise typer.Exit(1) from None
    if as_json:
        _print_json(rows)
        return
    table = Table("key id", "env", "key", "api version", "created", "expires", "revoked")
    for row in rows:
        table.add_row(
            row["keyId"],
            row["environment"],
            f"{row['prefix']}…{row['hint']}",
            row["apiVersion"],
            row["createdAt"],
            row["expiresAt"] or "-",
            row["revokedAt"] or "-",
        )
    Console().print(table)


@devices_app.command("add-ocpp")
def devices_add_ocpp(
    account: Annotated[str, typer.Option(help="Account id.")],
    user: Annotated[str, typer.Option(help="The end user the charger belongs to.")],
    charge_point_id: Annotated[
        str, typer.Option(help="The charger's identity: ws://HOST:PORT/ocpp/{id}.")
    ],
    password: Annotated[
        str, typer.Option(help="HTTP Basic password the charger sends (16-40 characters).")
    ],
    timezone: Annotated[str, typer.Option(help="The plant's IANA timezone.")] = "Europe/Berlin",
    as_json: JsonFlag = False,
) -> None:
    """Commission a live OCPP 1.6J / 2.0.1 charger; prints its device id."""
    from energyhub.services.commissioning import CommissioningError

    async def work(c: Container) -> dict[str, str]:
        device = await c.commissioning.add_ocpp(
            account, user, charge_point_id, password, timezone=timezone
        )
        return {
            "deviceId": device.id,
            "chargePointId": charge_point_id,
            "path": f"/ocpp/{charge_point_id}",
        }

    try:
        result = _run(work)
    except (CommissioningError, LookupError) as refused:
        err.print(f"[red]{refused.args[0] if refused.args else 'refused'}[/]")
        raise typer.Exit(1) from None
    if as_json:
        _print_json(result)
    else:
        err.print(
            f"device [bold]{result['deviceId']}[/]: point charger {charge_point_id} at "
            f"ws://HOST:PORT{result['path']} (HTTP Basic, user {charge_point_id})"
        )


@devices_app.command("add-sunspec")
def devices_add_sunspec(
    account: Annotated[str, typer.Option(help="Account id.")],
    user: Annotated[str, typer.Option(help="The end user the battery belongs to.")],
    host: Annotated[str, typer.Option(help="The battery's Modbus TCP address (IP or name).")],
    port: Annotated[int, typer.Option(help="Modbus TCP port.")] = 502,
    unit_id: Annotated[int, typer.Option(help="Modbus unit id (slave id).")] = 1,
    timezone: Annotated[str, typer.Option(help="The plant's IANA timezone.")] = "Europe/Berlin",
    as_json: JsonFlag = False,
) -> None:
    """Commission a live SunSpec Modbus TCP battery (models 1, 124 or 802/704); prints its
    device id. Running it again for the same battery and user prints the same id."""
    from energyhub.domain.readings import DriverError
    from energyhub.services.commissioning import CommissioningError

    async def work(c: Container) -> dict[str, Any]:
        done = await c.commissioning.add_sunspec(
            account, user, host, port, unit_id, timezone=timezone
        )
        return {
            "deviceId": done.device.id,
            "created": done.created,
            "vendor": done.device.vendor,
            "model": done.device.model,
            "sunspecModels": [m.id for m in done.endpoint.models],
            "commands": sorted(done.device.capabilities.commands),
        }

    try:
        result = _run(work)
    except (CommissioningError, LookupError) as refused:
        err.print(f"[red]{refused.args[0] if refused.args else 'refused'}[/]")
        raise typer.Exit(1) from None
    except DriverError as failed:
        err.print(f"[red]{failed.code}: {failed.message}[/]")
        raise typer.Exit(1) from None
    if as_json:
        _print_json(result)
    else:
        models = ", ".join(str(m) for m in result["sunspecModels"])
        err.print(
            f"device [bold]{result['deviceId']}[/]: {result['vendor']} {result['model']} at "
            f"{host}:{port} unit {unit_id} (SunSpec models {models})"
        )


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
