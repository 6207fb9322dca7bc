"""`energyhub keys`: API keys, shown once and stored as hashes, each pinned to an API
version."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from energyhub.bootstrap import (
    Container,
)
from energyhub.cli.common import (
    ApiVersionOption,
    JsonFlag,
    _print_json,
    _run,
    err,
)
from energyhub.domain.accounts import KEY_NAME_MAX_LENGTH, environment_from_cli, key_name
from energyhub.domain.clock import ensure_utc, isoformat_utc
from energyhub.domain.versions import ApiVersion, version_from_cli

keys_app = typer.Typer(help="API keys (shown once, stored as hashes).", no_args_is_help=True)


@keys_app.command("create")
def keys_create(
    account: Annotated[str, typer.Option(help="Account id.")],
    env: Annotated[str, typer.Option(help="test (sandbox; 'sandbox' gives sk_sandbox_) or live.")],
    expires_at: Annotated[
        datetime | None, typer.Option(help="Optional expiry, ISO 8601 (UTC if no offset).")
    ] = None,
    api_version: Annotated[str | None, ApiVersionOption] = None,
    name: Annotated[
        str | None,
        typer.Option(
            help=f"Optional label, up to {KEY_NAME_MAX_LENGTH} characters (e.g. 'billing cron')."
        ),
    ] = None,
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
    try:
        label = key_name(name)
    except ValueError as bad:
        raise typer.BadParameter(str(bad), param_hint="--name") from None

    async def work(c: Container) -> dict[str, str | None]:
        created = await c.services.accounts.create_key(
            account, environment, expiry, prefix, version, label
        )
        return {
            "key": created.key,
            "keyId": created.api_key.id,
            "name": label,
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
        label = "" if label is None else f" ({escape(label)})"
        err.print(
            f"key [bold]{result['keyId']}[/]{label}: {result['key']}  (shown once; keep it safe)"
        )


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
    """An account's keys (ids, names, environments, hints, last use; never the keys)."""

    async def work(c: Container) -> list[dict[str, str | None]]:
        keys = await c.services.accounts.list_keys(account)
        return [
            {
                "keyId": k.id,
                "name": k.name,
                "environment": k.environment.value,
                "prefix": k.prefix,
                "hint": k.hint,
                "createdAt": isoformat_utc(k.created_at),
                "expiresAt": None if k.expires_at is None else isoformat_utc(k.expires_at),
                "revokedAt": None if k.revoked_at is None else isoformat_utc(k.revoked_at),
                "lastUsedAt": None if k.last_used_at is None else isoformat_utc(k.last_used_at),
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
    table = Table(
        "key id", "name", "env", "key", "api version", "created", "last used", "expires", "revoked"
    )
    for row in rows:
        table.add_row(
            row["keyId"],
            escape(row["name"] or "-"),
            row["environment"],
            f"{row['prefix']}…{row['hint']}",
            row["apiVersion"],
            row["createdAt"],
            row["lastUsedAt"] or "never",
            row["expiresAt"] or "-",
            row["revokedAt"] or "-",
        )
    Console().print(table)
