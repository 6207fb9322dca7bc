"""The running service the OCPP integration tests connect their chargers to: on a SQLite
file of the test's own (`service`), or on SQLite and on PostgreSQL (`stored`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.integration.ocpp_support import Service, running_service


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[Service]:
    async with running_service(tmp_path / "ocpp.db") as running:
        yield running


@pytest.fixture
async def stored(database_url: str) -> AsyncIterator[Service]:
    """The service on each database (`database_url` of tests/conftest.py)."""
    async with running_service(database_url) as running:
        yield running
