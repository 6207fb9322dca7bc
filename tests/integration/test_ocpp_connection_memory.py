"""What a charger's connection may hold in the serving process (issue 16, point 6), over real
websockets: ended connections are freed once enough have ended (not when Python's collector
next scans its oldest generation), a booted charger's too; the HTTP protocol that read the
handshake is freed at the upgrade; a storm of handshakes holds few database connections; no
message over the size limit is buffered."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from energyhub.api.head_guard import BoundedHeadProtocol, bounded_head_protocol
from energyhub.bootstrap import server_config
from energyhub.config import Settings
from energyhub.drivers.ocpp.central_system import CentralSystem, OcppConfig, OcppSettings
from energyhub.drivers.ocpp.keepalive import MAX_MESSAGE_BYTES
from energyhub.persistence.engine import create_engine
from energyhub.persistence.ocpp import LOOKUPS_AT_ONCE, SqlChargePointStore
from tests.conftest import reset_postgres
from tests.integration.ocpp_support import (
    PASSWORD,
    WAIT,
    Service,
    basic,
    charger,
    running_service,
)


@pytest.fixture
def collector_off() -> Iterator[None]:
    """Python's own collector stays out of the way: what is freed, the service freed."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


async def _open(service: Service, cp_id: str) -> ClientConnection:
    return await connect(
        f"{service.ws_base}/{cp_id}",
        subprotocols=["ocpp1.6"],  # type: ignore[list-item]
        additional_headers=basic(cp_id, PASSWORD),
        open_timeout=WAIT,
    )


async def _link_of(ocpp: CentralSystem, cp_id: str) -> weakref.ref[Any]:
    """The charger's link once the service has attached it (right after the 101)."""
    async with asyncio.timeout(WAIT):
        # the route offers no event before the charger boots
        while (station := ocpp.station(cp_id)) is None or station.link is None:  # noqa: ASYNC110
            await asyncio.sleep(0.01)
    return weakref.ref(station.link)


async def _close(service: Service, ws: ClientConnection, cp_id: str) -> None:
    await ws.close()
    async with asyncio.timeout(WAIT):
        await service.container.ocpp.wait_offline(cp_id)


@pytest.mark.usefixtures("collector_off")
async def test_ended_connections_are_freed_once_the_set_number_have_ended(
    tmp_path: Path,
) -> None:
    config = OcppConfig(response_timeout_s=3.0, flush_s=0.02, collect_after_closed=2)
    async with running_service(tmp_path / "ocpp.db", config) as service:
        caller = await service.live_caller()
        for cp_id in ("CP-MEM-A", "CP-MEM-B"):
            await service.commission(caller, cp_id)
        first = await _open(service, "CP-MEM-A")
        first_link = await _link_of(service.container.ocpp, "CP-MEM-A")
        second = await _open(service, "CP-MEM-B")
        await _link_of(service.container.ocpp, "CP-MEM-B")

        await _close(service, first, "CP-MEM-A")
        assert first_link() is not None  # one ended: held in its reference cycles
        await _close(service, second, "CP-MEM-B")
        assert first_link() is None  # the second to end freed the first


@pytest.mark.usefixtures("collector_off")
async def test_a_booted_chargers_ended_connection_is_freed_too(tmp_path: Path) -> None:
    """A booted charger's mode is asserted once per connection: what remembers the
    connection it was asserted on must not keep that connection after it ends."""
    config = OcppConfig(response_timeout_s=3.0, flush_s=0.02, collect_after_closed=2)
    async with running_service(tmp_path / "ocpp.db", config) as service:
        caller = await service.live_caller()
        for cp_id in ("CP-BOOT-A", "CP-BOOT-B"):
            await service.commission(caller, cp_id)
        async with charger(service, "CP-BOOT-A") as first:
            first_link = await _link_of(service.container.ocpp, "CP-BOOT-A")
            async with charger(service, "CP-BOOT-B") as second:
                await first.close()
                async with asyncio.timeout(WAIT):
                    await service.container.ocpp.wait_offline("CP-BOOT-A")
                await second.close()
                async with asyncio.timeout(WAIT):
                    await service.container.ocpp.wait_offline("CP-BOOT-B")
        assert service.container.ocpp.station("CP-BOOT-A") is not None  # the station stays
        assert first_link() is None


def _http_protocols() -> set[int]:
    return {id(o) for o in gc.get_objects() if isinstance(o, BoundedHeadProtocol)}


@pytest.mark.usefixtures("collector_off")
async def test_the_http_protocol_of_the_handshake_is_freed_at_the_upgrade(
    tmp_path: Path,
) -> None:
    http = bounded_head_protocol(10.0)  # the serving process's HTTP protocol
    async with running_service(tmp_path / "ocpp.db", http=http) as service:
        caller = await service.live_caller()
        await service.commission(caller, "CP-UPGRADE")
        before = _http_protocols()  # the API caller's kept-alive connections
        ws = await _open(service, "CP-UPGRADE")
        await _link_of(service.container.ocpp, "CP-UPGRADE")
        assert _http_protocols() - before == set()
        await ws.close()


@pytest.mark.postgres
async def test_a_storm_of_handshake_lookups_holds_few_database_connections(
    postgres_url: str,
) -> None:
    """Each handshake reads its charger's record; a thousand at once must not each hold a
    pooled connection (or wait for one inside a session): the rest wait their turn."""
    await reset_postgres(postgres_url)
    engine = create_engine(postgres_url)  # a pool of 32
    held = peak = 0

    def checked_out(*_: Any) -> None:
        nonlocal held, peak
        held += 1
        peak = max(peak, held)

    def checked_in(*_: Any) -> None:
        nonlocal held
        held -= 1

    event.listen(engine.sync_engine, "checkout", checked_out)
    event.listen(engine.sync_engine, "checkin", checked_in)
    try:
        store = SqlChargePointStore(engine)
        found = await asyncio.gather(*(store.by_charge_point_id(f"CP-{i}") for i in range(40)))
        assert found == [None] * 40
        assert 1 <= peak <= LOOKUPS_AT_ONCE
    finally:
        await engine.dispose()


async def test_a_message_over_the_limit_closes_the_connection_unread(tmp_path: Path) -> None:
    async with running_service(tmp_path / "ocpp.db") as service:
        caller = await service.live_caller()
        await service.commission(caller, "CP-BIG")
        ws = await _open(service, "CP-BIG")
        await _link_of(service.container.ocpp, "CP-BIG")
        padding = "x" * MAX_MESSAGE_BYTES
        await ws.send(f'[2,"1","DataTransfer",{{"vendorId":"v","data":"{padding}"}}]')
        with pytest.raises(ConnectionClosed) as closed:
            async with asyncio.timeout(WAIT):
                await ws.recv()
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == 1009  # message too big


def test_the_settings_reach_the_server_and_the_central_system(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ENERGYHUB_OCPP_MAX_MESSAGE_BYTES", "65536")
    monkeypatch.setenv("ENERGYHUB_OCPP_COLLECT_AFTER_CLOSED", "7")

    async def app(scope: Any, receive: Any, send: Any) -> None:
        return None

    settings = Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")
    config = server_config(
        app,
        settings,
        host="127.0.0.1",
        port=0,
        log_config={"version": 1, "disable_existing_loggers": False},
    )
    assert config.ws_max_size == 65536
    assert OcppSettings().config().collect_after_closed == 7
    assert OcppSettings.model_fields["max_message_bytes"].default == MAX_MESSAGE_BYTES
