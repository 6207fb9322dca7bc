"""A fleet of OCPP 1.6J chargers on one service process (issue 7, point 7; issue 16, point 6).

`--chargers` simulated chargers (`ocpp.v16.ChargePoint` over real websockets, all in this
process), each commissioned with its own password (its own salted scrypt hash), connect to
one `energyhub serve --no-demo` process on a fresh SQLite database whose account has one
webhook endpoint (a receiver in this process), boot, and then each sends a Heartbeat and a
MeterValues every `--interval` seconds (staggered). While they do, `--pushes` live pushes
(`charge` with a power) go to random chargers at `--rate` per second through the HTTP API;
the time from sending a push to its SetChargingProfile arriving at the charger is measured
in this process (one clock).

Printed: the reconnect storm, every charger connecting at once with its own password, with
the service's password cache cold (just started: one scrypt run each) and warm (the whole
fleet drops and reconnects), each with the service's CPU seconds; the service's CPU (% of
one core) and RSS (from /proc) over the steady window; push -> command arrival p50 / p99;
webhook deliveries received. Targets: each storm under 10 s, RSS under 150 MB, p99 under
200 ms. The chargers and this process share the machine's cores with the service.

Run: `.venv/bin/python bench/ocpp_fleet.py [--chargers 1000] [--interval 10] [--pushes 200]
[--rate 5] [--seconds 60] [--template PATH] [--keep]`. Commissioning 1,000 chargers takes a
minute or more: `--template` keeps the commissioned database in PATH and later runs with the
same `--chargers` start from a copy of it (delete it after a schema change: a template that
migrates at start loads Alembic, ~8 MB of RSS). The run's directory (its database and the
service's log) is removed at the end unless `--keep`.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from ocpp.routing import on
from ocpp.v16 import ChargePoint, call, call_result
from websockets.asyncio.client import connect

from energyhub.bootstrap import build_container, secret_key_file, secret_keys
from energyhub.config import Settings
from energyhub.domain.accounts import Environment
from energyhub.drivers.ocpp import auth, commissioning

STORM_TARGET_S = 10.0


def _password(cp_id: str) -> str:
    return f"{cp_id}-own-password-0123"


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class Sim(ChargePoint):  # type: ignore[misc]
    arrivals: dict[str, float]

    def __init__(self, cp_id: str, ws: Any, arrivals: dict[str, float]) -> None:
        super().__init__(cp_id, ws, response_timeout=30)
        self.arrivals = arrivals

    @on("SetChargingProfile")
    def on_profile(self, connector_id: int, cs_charging_profiles: dict[str, Any]) -> Any:
        if cs_charging_profiles["charging_profile_purpose"] == "TxDefaultProfile":
            limit = cs_charging_profiles["charging_schedule"]["charging_schedule_period"][0]
            self.arrivals.setdefault(f"{self.id}:{float(limit['limit'])}", time.perf_counter())
        return call_result.SetChargingProfile(status="Accepted")

    @on("RemoteStartTransaction")
    def on_start(self, **_: Any) -> Any:
        return call_result.RemoteStartTransaction(status="Accepted")

    @on("GetConfiguration")
    def on_config(self, **_: Any) -> Any:
        return call_result.GetConfiguration(configuration_key=[])


def _proc(pid: int) -> tuple[float, float]:
    """(CPU seconds, RSS MB) of a process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / ticks
    rss_kb = next(
        int(line.split()[1])
        for line in Path(f"/proc/{pid}/status").read_text().splitlines()
        if line.startswith("VmRSS:")
    )
    return cpu, rss_kb / 1024


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _setup(db: Path, n: int) -> tuple[str, list[tuple[str, str]]]:
    """The account, its live key and `n` chargers, each with its own salted scrypt hash
    (computed on every core first: commissioning hashes one at a time)."""
    ids = [f"CP{i:05d}" for i in range(n)]
    settings = Settings(database_url=f"sqlite+aiosqlite:///{db}")
    # with the proof the service adds (by its credential key), where the code has proofs
    proof_keys = getattr(auth, "ProofKeys", None)
    proofs = None if proof_keys is None else proof_keys.of(secret_keys(settings))

    def stored(cp: str) -> str:
        if proofs is None:
            return auth.hash_password(_password(cp))
        return auth.hash_password(_password(cp), proofs)

    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        hashes = dict(zip(ids, pool.map(stored, ids), strict=True))
    by_password = {_password(cp): hashes[cp] for cp in ids}
    commissioning.hash_password = lambda password, *_: by_password[password]  # type: ignore[assignment]
    container = await build_container(settings)
    try:
        account = await container.services.accounts.create_account("bench")
        key = await container.services.accounts.create_key(account.id, Environment.LIVE)
        fleet = []
        for cp_id in ids:
            device = await container.commissioning.add_ocpp(
                account.id, "u", cp_id, _password(cp_id)
            )
            fleet.append((cp_id, device.id))
        return key.key, fleet
    finally:
        await container.aclose()


async def _receiver() -> tuple[asyncio.Server, int, list[int]]:
    """A webhook receiver answering 200 to every POST; counts them."""
    received = [0]

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    (
                        int(line.split(b":", 1)[1])
                        for line in head.split(b"\r\n")
                        if line.lower().startswith(b"content-length:")
                    ),
                    0,
                )
                await reader.readexactly(length)
                received[0] += 1
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            pass
        except asyncio.CancelledError:  # the bench is ending
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, int(server.sockets[0].getsockname()[1]), received


async def _charger(
    base: str, cp_id: str, arrivals: dict[str, float], interval: float, booted: asyncio.Queue[str]
) -> None:
    token = base64.b64encode(f"{cp_id}:{_password(cp_id)}".encode()).decode()
    try:
        ws = await connect(
            f"{base}/{cp_id}",
            subprotocols=["ocpp1.6"],  # type: ignore[list-item]
            additional_headers={"Authorization": f"Basic {token}"},
            open_timeout=600,
            compression=None,
        )
    except Exception as refused:
        await booted.put(f"!{cp_id}: {refused!r}")
        raise
    async with ws:
        sim = Sim(cp_id, ws, arrivals)
        serving = asyncio.create_task(sim.start())
        try:
            await sim.call(
                call.BootNotification(charge_point_vendor="Bench", charge_point_model="B")
            )
            await sim.call(
                call.StatusNotification(connector_id=1, error_code="NoError", status="Charging")
            )
            await booted.put(cp_id)
            await asyncio.sleep(random.uniform(0, interval))
            register = 0
            while True:
                register += 30
                await sim.call(call.Heartbeat())
                await sim.call(
                    call.MeterValues(
                        connector_id=1,
                        meter_value=[
                            {
                                "timestamp": _now(),
                                "sampledValue": [
                                    {
                                        "value": str(register),
                                        "measurand": "Energy.Active.Import.Register",
                                    },
                                    {
                                        "value": "11000",
                                        "measurand": "Power.Active.Import",
                                        "unit": "W",
                                    },
                                ],
                            }
                        ],
                    )
                )
                await asyncio.sleep(interval)
        finally:
            serving.cancel()


async def _storm(
    label: str,
    pid: int,
    fleet: list[tuple[str, str]],
    base: str,
    arrivals: dict[str, float],
    interval: float,
) -> list[asyncio.Task[None]]:
    """Every charger connects at once, with its own password, and boots; returns them."""
    booted: asyncio.Queue[str] = asyncio.Queue()
    cpu0, _ = _proc(pid)
    started = time.perf_counter()
    tasks = [
        asyncio.create_task(_charger(base, cp_id, arrivals, interval, booted)) for cp_id, _ in fleet
    ]
    failed = [
        cp for cp in [await asyncio.wait_for(booted.get(), 600) for _ in fleet] if cp[0] == "!"
    ]
    took = time.perf_counter() - started
    cpu1, rss = _proc(pid)
    verdict = "PASS" if took < STORM_TARGET_S and not failed else "FAIL"
    print(
        f"reconnect storm, {label}: {len(fleet) - len(failed)} chargers with their own "
        f"passwords connected and booted in {took:.1f} s (target < {STORM_TARGET_S:.0f} s: "
        f"{verdict}); service CPU {cpu1 - cpu0:.1f} s, RSS {rss:.0f} MB"
    )
    if failed:
        print(f"  {len(failed)} failed to connect, e.g. {failed[:3]}")
    return tasks


async def _drop(tasks: list[asyncio.Task[None]]) -> None:
    """Cancels the chargers until every one has ended (on Python 3.11 `wait_for` can swallow
    a cancellation that arrives as the awaited answer does: cancel again)."""
    pending = {task for task in tasks if not task.done()}
    while pending:
        for task in pending:
            task.cancel()
        _done, pending = await asyncio.wait(pending, timeout=1)


def _key_file(db: Path) -> Path:
    return secret_key_file(Settings(database_url=f"sqlite+aiosqlite:///{db}"))


def _copy_secret_key(source: Path, target: Path) -> None:
    """The template keeps the credential key its chargers' password proofs were made with:
    without it the service generates a new one, no proof holds, and the cold storm costs a
    scrypt run per charger again."""
    if not source.exists():
        print(
            f"no credential key at {source}: the cold storm runs scrypt (make the template again)"
        )
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


async def main(args: argparse.Namespace) -> None:
    """The run in a directory of its own (database, service log), removed at the end unless
    `--keep`."""
    workdir = Path(tempfile.mkdtemp(prefix="ocpp-fleet-"))
    try:
        await _run(args, workdir)
    finally:
        if args.keep:
            print(f"kept {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)


async def _run(args: argparse.Namespace, workdir: Path) -> None:
    db = workdir / "fleet.db"
    t0 = time.perf_counter()
    template = Path(args.template) if args.template else None
    if template is not None and template.exists():
        shutil.copyfile(template, db)
        _copy_secret_key(template.with_suffix(".key"), _key_file(db))
        key, fleet = json.loads(template.with_suffix(".json").read_text())
        fleet = [tuple(charger) for charger in fleet]
        print(f"{len(fleet)} commissioned chargers copied from {template}")
    else:
        key, fleet = await _setup(db, args.chargers)
        print(f"commissioned {len(fleet)} chargers in {time.perf_counter() - t0:.1f} s")
        if template is not None:
            shutil.copyfile(db, template)
            _copy_secret_key(_key_file(db), template.with_suffix(".key"))
            template.with_suffix(".json").write_text(json.dumps([key, fleet]))
    port = _free_port()
    env = {
        **os.environ,
        "ENERGYHUB_DATABASE_URL": f"sqlite+aiosqlite:///{db}",
        "ENERGYHUB_RATE_LIMIT_LIVE": "1000000",
        "ENERGYHUB_LOG_LEVEL": "WARNING",
        "ENERGYHUB_OCPP_HEARTBEAT_S": str(int(args.interval)),
        "ENERGYHUB_PRIVATE_WEBHOOK_URLS": "all",  # the receiver below is on 127.0.0.1
        "ENERGYHUB_ALLOW_PRIVATE_WEBHOOK_URLS": "true",  # the same, for older versions
    }
    receiver, receiver_port, received = await _receiver()
    log = (workdir / "serve.log").open("w")
    server = subprocess.Popen(  # noqa: ASYNC220 (started once, before any measurement)
        [sys.executable, "-m", "energyhub", "serve", "--no-demo", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    tasks: list[asyncio.Task[None]] = []
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            for _ in range(300):
                try:
                    if (await client.get("/healthz")).status_code == 200:
                        break
                except httpx.TransportError:
                    await asyncio.sleep(0.1)
            _idle_cpu, idle_rss = _proc(server.pid)
            print(f"service idle: RSS {idle_rss:.0f} MB")
            endpoint = await client.post(
                "/webhooks/endpoints",
                json={"url": f"http://127.0.0.1:{receiver_port}/hook"},
                headers={"x-api-key": key},
            )
            assert endpoint.status_code in (200, 201), endpoint.text
            arrivals: dict[str, float] = {}
            base = f"ws://127.0.0.1:{port}/ocpp"
            storm = (server.pid, fleet, base, arrivals, args.interval)
            tasks = await _storm("cold cache (service just started)", *storm)
            await _drop(tasks)  # the whole fleet drops ...
            tasks = await _storm("warm cache (the fleet dropped and reconnects)", *storm)
            await asyncio.sleep(args.interval)  # into the steady state
            cpu0, _ = _proc(server.pid)
            w0 = time.perf_counter()
            latencies: list[float] = []
            offsets: list[tuple[int, float]] = []  # (ms, seconds into the window)
            failures = 0
            rss_peak = 0.0
            for i in range(args.pushes):
                cp_id, device_id = random.choice(fleet)
                kw = round(random.uniform(1.5, 21.5), 1) + i % 7 * 0.0
                sent = time.perf_counter()
                response = await client.post(
                    f"/ev-charger/{device_id}",
                    json={
                        "action": {
                            "command": "charge",
                            "parameters": {"power": {"value": kw, "unit": "kw"}},
                        }
                    },
                    headers={"x-api-key": key},
                )
                if response.status_code != 200:
                    failures += 1
                else:
                    arrived = arrivals.get(f"{cp_id}:{round(kw * 1000, 1)}")
                    if arrived is not None:
                        latencies.append((arrived - sent) * 1000)
                        offsets.append((round((arrived - sent) * 1000), round(sent - w0, 1)))
                    else:
                        failures += 1
                rss_peak = max(rss_peak, _proc(server.pid)[1])
                await asyncio.sleep(max(0.0, 1 / args.rate - (time.perf_counter() - sent)))
            remaining = args.seconds - (time.perf_counter() - w0)
            if remaining > 0:
                await asyncio.sleep(remaining)
            cpu1, rss = _proc(server.pid)
            window = time.perf_counter() - w0
            latencies.sort()
            p50 = statistics.median(latencies) if latencies else float("nan")
            p99 = latencies[max(0, int(len(latencies) * 0.99) - 1)] if latencies else float("nan")
            print(
                f"steady window {window:.0f} s: service CPU {100 * (cpu1 - cpu0) / window:.1f} % "
                f"of one core, RSS {rss:.0f} MB (peak {max(rss, rss_peak):.0f} MB, target < 150: "
                f"{'PASS' if rss < 150 else 'FAIL'})"
            )
            print(
                f"push -> SetChargingProfile at the charger: n={len(latencies)} "
                f"p50 {p50:.1f} ms, p99 {p99:.1f} ms (target < 200), failures {failures}"
            )
            print("slowest (ms, s into the window):", sorted(offsets, reverse=True)[:5])
            print(f"webhook deliveries received: {received[0]} (one endpoint on the account)")
    finally:
        await _drop(tasks)
        ended = await asyncio.gather(*tasks, return_exceptions=True)
        lost = [repr(e) for e in ended if not isinstance(e, asyncio.CancelledError | None)]
        if lost:  # a charger that dropped out of the fleet: say why
            print(f"{len(lost)} chargers failed, e.g.: {sorted(set(lost))[:3]}")
        server.terminate()
        server.wait(30)
        log.close()
        receiver.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chargers", type=int, default=1000)
    parser.add_argument("--interval", type=float, default=10.0)
    parser.add_argument("--pushes", type=int, default=200)
    parser.add_argument("--rate", type=float, default=5.0)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--template", help="commissioned database to copy (made if missing)")
    parser.add_argument("--keep", action="store_true", help="keep the run's directory (db, log)")
    asyncio.run(main(parser.parse_args()))
