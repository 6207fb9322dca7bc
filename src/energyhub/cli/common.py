"""What every `energyhub` command shares: the stderr console, running a use case in a
container, naming the database, operator messages (rich text, or log records when the logs
are JSON) and JSON output."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.text import Text

from energyhub.adapters.logs import configure_logging
from energyhub.bootstrap import (
    Container,
    build_container,
)
from energyhub.config import Settings
from energyhub.startup import database_label

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
    _json_logs[0] = settings.log_format == "json"
    return settings


_json_logs = [False]  # ENERGYHUB_LOG_FORMAT=json: operator messages become log records


def _tell(text: str, *, markup: bool = True) -> None:
    """An operator message on stderr, or one log record when the logs are JSON (so that a
    JSON log stream holds nothing else)."""
    if _json_logs[0]:
        plain = Text.from_markup(text).plain if markup else text
        logging.getLogger("energyhub.cli").info(plain.strip())
    else:
        err.print(text, markup=markup, highlight=False)


def _name_database(settings: Settings) -> None:
    """Every command says which database it opened (on stderr: --json output stays alone)."""
    _tell(f"database: {database_label(settings)}", markup=False)


def _print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value) + "\n")
