"""A charge point id with a NUL character (issue 12, defect 2): PostgreSQL cannot compare
it, so the handshake's lookup failed with a traceback; it is refused as no OCPP path, on
SQLite and PostgreSQL alike, and the commissioned charger still connects."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.integration.ocpp_support import (
    PASSWORD,
    WAIT,
    Service,
    basic,
    charger,
    running_service,
)


@pytest.fixture
async def service(database_url: str) -> AsyncIterator[Service]:
    async with running_service(database_url) as running:
        yield running


async def test_a_charge_point_id_with_nul_is_refused_at_the_handshake(
    service: Service, caplog: pytest.LogCaptureFixture
) -> None:
    caller = await service.live_caller()
    await service.commission(caller, "CP-NUL")
    with pytest.raises(InvalidStatus) as refused:
        await connect(
            f"{service.ws_base}/CP-NUL%00",
            subprotocols=["ocpp1.6"],  # type: ignore[list-item]
            additional_headers=basic("CP-NUL\x00", PASSWORD),
            open_timeout=WAIT,
        )
    assert refused.value.response.status_code in (403, 404)
    tracebacks = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not tracebacks, [r.getMessage() for r in tracebacks]
    async with charger(service, "CP-NUL") as connected:
        assert service.container.ocpp.station("CP-NUL") is not None
        assert connected.protocol == "ocpp1.6"
