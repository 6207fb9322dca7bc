"""The memory the heavy libraries cost is paid only when their feature is used: a service on
SQLite with its workers, that has stored no secret, sent no webhook and seen no charger or
battery, has not imported them. A fresh interpreter tells, since the test process has
imported everything already."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

LOADED_ON_USE = ("cryptography", "aiohttp", "asyncpg", "ocpp", "pymodbus", "argon2", "limits")

PROBE = """
import asyncio, sys
from energyhub.bootstrap import build_app, build_container
from energyhub.config import Settings

async def main() -> None:
    container = await build_container(Settings(database_url=sys.argv[1]))
    try:
        build_app(container, serving=True, workers=True)
    finally:
        await container.aclose()

asyncio.run(main())
print(" ".join(name for name in sys.argv[2:] if name in sys.modules))
"""


@pytest.mark.slow
def test_an_idle_service_has_not_loaded_the_libraries_of_features_it_did_not_use(
    tmp_path: Path,
) -> None:
    database = f"sqlite+aiosqlite:///{tmp_path / 'energyhub.db'}"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, database, *LOADED_ON_USE, "json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    loaded = done.stdout.split()
    assert "json" in loaded, "the probe sees what is imported"
    assert [name for name in loaded if name != "json"] == [], done.stderr[-2000:]
