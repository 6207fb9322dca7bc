"""A serving process takes what it built to start out of the garbage collector's full
passes (each walked ~150,000 objects, ~120 ms with every request stopped); an app built
inside another program (a test's) leaves that program's collector alone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import asyncio, gc, sys
from energyhub.bootstrap import build_app, build_container
from energyhub.config import Settings

async def main() -> None:
    container = await build_container(Settings(database_url=sys.argv[1]))
    app = build_app(container, serving=True, workers=False, freeze_heap=sys.argv[2] == "1")
    sent = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    said = []

    async def receive():
        return sent.pop(0) if sent else await asyncio.Event().wait()

    async def send(message):
        said.append(message["type"])
        if message["type"] == "lifespan.startup.complete":
            print(gc.get_freeze_count())

    await app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, receive, send)
    assert said == ["lifespan.startup.complete", "lifespan.shutdown.complete"], said

asyncio.run(main())
"""


@pytest.mark.slow
@pytest.mark.parametrize(("freeze", "frozen"), [("1", True), ("0", False)])
def test_a_serving_process_freezes_what_it_built_to_start(
    tmp_path: Path, freeze: str, frozen: bool
) -> None:
    database = f"sqlite+aiosqlite:///{tmp_path / 'energyhub.db'}"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, database, freeze],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    count = int(done.stdout.split()[-1])
    if frozen:
        assert count > 50_000, count  # the modules, the app and the container at least
    else:
        assert count == 0
