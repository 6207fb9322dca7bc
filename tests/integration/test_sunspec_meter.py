"""A site's SunSpec grid meter (models 201-204) against a real pymodbus server: commissioned
for a user's site, read at commissioning and by the state poller, its total real power
(W scaled by W_SF, positive while importing) becomes the site's `lastReading` through the
site-readings use case; refusals; and `energyhub devices add-sunspec --meter`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from energyhub.bootstrap import Container, build_container
from energyhub.cli import app
from energyhub.config import Settings
from energyhub.domain.accounts import Environment
from energyhub.domain.clock import FakeClock
from energyhub.domain.readings import DriverError
from energyhub.drivers.sunspec.meter import SunspecMeterReader
from energyhub.services.commissioning import AlreadyCommissioned
from tests.sunspec_peer import (
    METER_COMMON,
    METER_LAYOUT,
    STORAGE_LAYOUT,
    SunspecPeer,
    meter,
    peer_in_thread,
)
from tests.support import Api, Caller, open_api


@pytest.fixture
async def container(database_url: str, clock: FakeClock) -> AsyncIterator[Container]:
    """On SQLite and on PostgreSQL (`database_url` of tests/conftest.py)."""
    settings = Settings(database_url=database_url, key_cache_ttl_s=0)
    built = await build_container(settings, clock)
    try:
        yield built
    finally:
        await built.aclose()


@pytest.fixture
async def api(container: Container, clock: FakeClock) -> AsyncIterator[Api]:
    async with open_api(container, clock) as opened:
        yield opened


@pytest.fixture
async def peer() -> AsyncIterator[SunspecPeer]:
    async with SunspecPeer(METER_LAYOUT) as started:
        yield started


async def _site(api: Api, caller: Caller, user: str = "user-1") -> dict[str, Any]:
    response = await api.get(caller, f"/users/{user}/site")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()["data"]
    return body


def _kw(site: dict[str, Any]) -> float:
    value: float = site["lastReading"]["gridPower"]["value"]
    assert site["lastReading"]["gridPower"]["unit"] == "kw"
    return value


# --- commissioning and polling -----------------------------------------------------------------
async def test_a_three_phase_meter_import_and_export_become_site_readings(
    api: Api, container: Container, peer: SunspecPeer
) -> None:
    caller = await api.caller(Environment.LIVE)
    done = await container.site_meters.commission(
        caller.account_id, "user-1", "127.0.0.1", peer.port
    )
    assert (done.created, done.replaced) == (True, None)
    assert done.meter.address.model.id == 203
    assert (done.meter.manufacturer, done.meter.model) == ("Gridwise", "GM-3")
    site = await _site(api, caller)
    assert _kw(site) == 2.5, "W 25000 at W_SF -1: 2500 W imported"
    assert site["lastReading"]["at"] == "2026-11-20T12:00:00.000Z"

    meters = container.site_meters
    assert await meters.poll_due() == 0, "just read at commissioning"
    assert await meters.next_due_at() == api.clock.now() + meters.interval
    await peer.set(203, "W", -31000)  # the sun comes out: 3.1 kW to the grid
    api.clock.advance(meters.interval.total_seconds() + 1)
    assert await meters.poll_due() == 1
    site = await _site(api, caller)
    assert _kw(site) == -3.1
    assert site["lastReading"]["at"] == "2026-11-20T12:01:01.000Z"
    assert await meters.poll_due() == 0


async def test_a_single_phase_meter_with_a_positive_scale_factor(
    api: Api, container: Container
) -> None:
    caller = await api.caller(Environment.LIVE)
    async with SunspecPeer([(1, METER_COMMON), meter(201, -31, 2)]) as single:
        done = await container.site_meters.commission(
            caller.account_id, "user-1", "127.0.0.1", single.port
        )
        assert done.meter.address.model.id == 201
        assert _kw(await _site(api, caller)) == -3.1, "W -31 at W_SF 2: 3100 W exported"
        await single.set(201, "W", 25)
        api.clock.advance(container.site_meters.interval.total_seconds() + 1)
        await container.state_poller.run_pass()  # the state poller reads meters too
    assert _kw(await _site(api, caller)) == 2.5


async def test_meter_readings_and_posted_readings_share_the_newest(
    api: Api, container: Container, peer: SunspecPeer
) -> None:
    caller = await api.caller(Environment.LIVE)
    await container.site_meters.commission(caller.account_id, "user-1", "127.0.0.1", peer.port)
    api.clock.advance(10)
    posted = await api.client.post(
        "/users/user-1/site/readings",
        json={
            "readings": [{"at": "2026-11-20T12:00:05Z", "gridPower": {"value": -1, "unit": "kw"}}]
        },
        headers=caller.headers,
    )
    assert posted.status_code == 202, posted.text
    assert _kw(await _site(api, caller)) == -1.0
    api.clock.advance(container.site_meters.interval.total_seconds())
    assert await container.site_meters.poll_due() == 1
    assert _kw(await _site(api, caller)) == 2.5


async def test_a_meter_gone_offline_keeps_the_last_reading(
    api: Api, container: Container, peer: SunspecPeer
) -> None:
    caller = await api.caller(Environment.LIVE)
    await container.site_meters.commission(caller.account_id, "user-1", "127.0.0.1", peer.port)
    await peer.stop()
    api.clock.advance(container.site_meters.interval.total_seconds() + 1)
    assert await container.site_meters.poll_due() == 1
    site = await _site(api, caller)
    assert (_kw(site), site["lastReading"]["at"]) == (2.5, "2026-11-20T12:00:00.000Z")
    assert await container.site_meters.next_due_at() == api.clock.now() + (
        container.site_meters.interval
    ), "tried again an interval later"


async def test_another_address_replaces_the_sites_meter(
    api: Api, container: Container, peer: SunspecPeer
) -> None:
    caller = await api.caller(Environment.LIVE)
    meters = container.site_meters
    await meters.commission(caller.account_id, "user-1", "127.0.0.1", peer.port)
    again = await meters.commission(caller.account_id, "user-1", "127.0.0.1", peer.port)
    assert (again.created, again.replaced) == (False, None)
    async with SunspecPeer([(1, METER_COMMON), meter(204, -500, 0)]) as delta:
        moved = await meters.commission(caller.account_id, "user-1", "127.0.0.1", delta.port)
    assert moved.created is True
    assert moved.replaced is not None
    assert moved.replaced.port == peer.port
    async with container.uow() as tx:
        stored = await tx.site_meters.for_site(caller.account_id, Environment.LIVE, "user-1")
    assert stored is not None
    assert stored.address.port == delta.port
    assert _kw(await _site(api, caller)) == -0.5


# --- refusals -------------------------------------------------------------------------------
async def test_a_device_without_a_meter_model_is_refused(api: Api, container: Container) -> None:
    caller = await api.caller(Environment.LIVE)
    async with SunspecPeer(STORAGE_LAYOUT) as battery:
        with pytest.raises(DriverError) as refused:
            await container.site_meters.commission(
                caller.account_id, "user-1", "127.0.0.1", battery.port
            )
    assert refused.value.code == "DEVICE_REJECTED"
    assert "no SunSpec meter model (201, 202, 203 or 204)" in refused.value.message
    assert "models found (1, 124, 802)" in refused.value.message
    unknown = await api.get(caller, "/users/user-1/site")
    assert unknown.status_code == 404, "nothing stored: not even the user"
    async with container.uow() as tx:
        assert await tx.site_meters.for_site(caller.account_id, Environment.LIVE, "user-1") is None


async def test_an_unreachable_meter_is_refused(api: Api, container: Container) -> None:
    caller = await api.caller(Environment.LIVE)
    stopped = await SunspecPeer(METER_LAYOUT).start()
    port = stopped.port
    await stopped.stop()
    with pytest.raises(DriverError) as refused:
        await container.site_meters.commission(caller.account_id, "user-1", "127.0.0.1", port)
    assert refused.value.code == "DEVICE_OFFLINE"
    assert "not reachable" in refused.value.message


async def test_a_silent_meter_times_out() -> None:
    async with SunspecPeer(METER_LAYOUT, silent=True) as silent:
        with pytest.raises(DriverError) as refused:
            await SunspecMeterReader(call_timeout_s=0.3).discover_meter("127.0.0.1", silent.port, 1)
    assert refused.value.code == "DEVICE_TIMEOUT"
    assert "did not answer within 0.3 s" in refused.value.message


async def test_one_meter_failing_does_not_stop_the_others(
    api: Api, container: Container, peer: SunspecPeer
) -> None:
    caller = await api.caller(Environment.LIVE)
    meters = container.site_meters
    await meters.commission(caller.account_id, "user-1", "127.0.0.1", peer.port)
    async with SunspecPeer([(1, METER_COMMON), meter(202, 0, 0)]) as gone:
        await meters.commission(caller.account_id, "user-2", "127.0.0.1", gone.port)
    await peer.set(203, "W", -31000)
    api.clock.advance(meters.interval.total_seconds() + 1)
    next_pass = await container.state_poller.run_pass()
    assert next_pass == api.clock.now() + meters.interval
    assert _kw(await _site(api, caller)) == -3.1
    assert _kw(await _site(api, caller, "user-2")) == 0.0, "the reading at commissioning"


async def test_a_meter_of_another_site_is_refused(
    api: Api, container: Container, peer: SunspecPeer
) -> None:
    caller = await api.caller(Environment.LIVE)
    await container.site_meters.commission(caller.account_id, "user-1", "127.0.0.1", peer.port)
    with pytest.raises(AlreadyCommissioned, match="grid meter of user user-1's site"):
        await container.site_meters.commission(caller.account_id, "user-2", "127.0.0.1", peer.port)


@pytest.mark.parametrize("model_id", [201, 202, 203, 204])
async def test_every_meter_model_reads_its_total_power(model_id: int) -> None:
    async with SunspecPeer([meter(model_id, 12345, -3)], base=0) as bare:
        found = await SunspecMeterReader().discover_meter("127.0.0.1", bare.port, 1)
        assert (found.address.model.id, found.grid_power_kw) == (model_id, 0.0123)
        assert found.manufacturer == "", "no common model: nothing to name it by"
        await bare.set(model_id, "W_SF", 0)
        assert await SunspecMeterReader().grid_power(found.address) == 12.345


async def test_a_meter_without_total_power_is_refused() -> None:
    async with SunspecPeer([(1, METER_COMMON), (203, {"Hz": 5000})]) as blank:
        with pytest.raises(DriverError, match="does not report its total real power"):
            await SunspecMeterReader().discover_meter("127.0.0.1", blank.port, 1)


# --- the CLI -----------------------------------------------------------------------------------
@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("ENERGYHUB_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}")
    return CliRunner()


def _add_meter(account: str, port: int, *extra: str) -> list[str]:
    return [
        "devices",
        "add-sunspec",
        "--meter",
        "--account",
        account,
        "--user",
        "home-1",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        *extra,
    ]


def _account(cli: CliRunner) -> str:
    result = cli.invoke(app, ["accounts", "create", "--name", "Acme", "--json"])
    assert result.exit_code == 0, result.output
    account: str = json.loads(result.stdout)["accountId"]
    return account


def test_add_sunspec_meter_commissions_the_site_meter(cli: CliRunner) -> None:
    account = _account(cli)
    with peer_in_thread(METER_LAYOUT) as served:
        added = cli.invoke(app, _add_meter(account, served.port, "--json"))
        spoken = cli.invoke(app, _add_meter(account, served.port))
    assert added.exit_code == 0, added.output
    body = json.loads(added.stdout)
    assert (body["userId"], body["created"], body["sunspecModel"]) == ("home-1", True, 203)
    assert body["lastReading"]["gridPower"] == {"value": 2.5, "unit": "kw"}
    assert spoken.exit_code == 0, spoken.output
    assert spoken.stdout == ""
    assert "grid power now 2.5 kW (importing)" in spoken.stderr


def test_add_sunspec_meter_refusals(cli: CliRunner) -> None:
    account = _account(cli)
    with peer_in_thread(STORAGE_LAYOUT) as battery:
        not_a_meter = cli.invoke(app, _add_meter(account, battery.port, "--json"))
    offline = cli.invoke(app, _add_meter(account, battery.port))  # the peer has stopped
    no_account = cli.invoke(app, _add_meter("acc_nope", battery.port))
    assert (not_a_meter.exit_code, not_a_meter.stdout) == (1, "")
    assert "DEVICE_REJECTED" in not_a_meter.stderr
    assert "no SunSpec meter model" in " ".join(not_a_meter.stderr.split())
    assert offline.exit_code == 1
    assert "DEVICE_OFFLINE" in offline.stderr
    assert no_account.exit_code == 1
    assert "acc_nope" in no_account.stderr


def test_add_sunspec_help_states_the_sign(cli: CliRunner) -> None:
    shown = cli.invoke(app, ["devices", "add-sunspec", "--help"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0
    text = " ".join(shown.stdout.split())
    assert "positive while the site imports from the grid" in text
