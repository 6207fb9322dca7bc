"""A fleet of OCPP 1.6J chargers on one service process (issue 7, point 7).

`--chargers` simulated chargers (`ocpp.v16.ChargePoint` over real websockets, all in this
process) connect to one `energyhub serve --no-demo` process on a fresh SQLite database,
boot, and then each sends a Heartbeat and a MeterValues every `--interval` seconds
(staggered). While they do, `--pushes` live pushes (`charge` with a power) go to random
chargers at `--rate` per second through the HTTP API; the time from sending a push to its
SetChargingProfile arriving at the charger is measured in this process (one clock).

Printed: time to connect and boot the fleet, the service's CPU (% of one core) and RSS
(from /proc) over the steady window, and push -> command arrival p50 / p99. Targets: RSS
under 150 MB, p99 under 200 ms. Setup note: every charger shares one password hash, so the
service runs scrypt once (a real fleet pays ~50 ms of CPU per charger at its first
connection after a restart; reconnects after that are free).

Run: `.venv/bin/python bench/ocpp_fleet.py [--chargers 1000] [--interval 10] [--pushes 200]
[--rate 5] [--seconds 60]`.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from ocpp.routing import on
from ocpp.v16 import ChargePoint, call, call_result
from websockets.asyncio.client import connect

from energyhub.bootstrap import build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment
from energyhub.drivers.ocpp import auth
from energyhub.services import ocpp as commissioning

PASSWORD = "bench-password-0123456789"


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
    shared = auth.hash_password(PASSWORD)
    commissioning.hash_password = lambda _password: shared  # type: ignore[assignment]
    container = await build_container(Settings(database_url=f"sqlite+aiosqlite:///{db}"))
    try:
        account = await container.services.accounts.create_account("bench")
        key = await container.services.accounts.create_key(account.id, Environment.LIVE)
        fleet = []
        for i in range(n):
            cp_id = f"CP{i:05d}"
            device = await container.ocpp_commissioning.add(account.id, "u", cp_id, PASSWORD)
            fleet.append((cp_id, device.id))
        return key.key, fleet
    finally:
        await container.aclose()


async def _charger(
    base: str, cp_id: str, arrivals: dict[str, float], interval: float, booted: asyncio.Queue[str]
) -> None:
    token = base64.b64encode(f"{cp_id}:{PASSWORD}".encode()).decode()
    async with connect(
        f"{base}/{cp_id}",
        subprotocols=["ocpp1.6"],  # type: ignore[list-item]
        additional_headers={"Authorization": f"Basic {token}"},
        open_timeout=120,
        compression=None,
    ) as ws:
        sim = Sim(cp_id, ws, arrivals)
        serving = asyncio.create_task(sim.start())
        await sim.call(call.BootNotification(charge_point_vendor="Bench", charge_point_model="B"))
        await sim.call(
            call.StatusNotification(connector_id=1, error_code="NoError", status="Charging")
        )
        await booted.put(cp_id)
        await asyncio.sleep(random.uniform(0, interval))
        register = 0
        try:
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


async def main(args: argparse.Namespace) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="ocpp-fleet-"))
    db = workdir / "fleet.db"
    t0 = time.perf_counter()
    key, fleet = await _setup(db, args.chargers)
    print(f"commissioned {len(fleet)} chargers in {time.perf_counter() - t0:.1f} s")
    port = _free_port()
    env = {
        **os.environ,
        "ENERGYHUB_DATABASE_URL": f"sqlite+aiosqlite:///{db}",
        "ENERGYHUB_RATE_LIMIT_LIVE": "1000000",
        "ENERGYHUB_LOG_LEVEL": "WARNING",
        "ENERGYHUB_OCPP_HEARTBEAT_S": str(int(args.interval)),
    }
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
            arrivals: dict[str, float] = {}
            booted: asyncio.Queue[str] = asyncio.Queue()
            base = f"ws://127.0.0.1:{port}/ocpp"
            t1 = time.perf_counter()
            for cp_id, _ in fleet:
                tasks.append(
                    asyncio.create_task(_charger(base, cp_id, arrivals, args.interval, booted))
                )
                await asyncio.sleep(0.002)  # a ramp, as a real fleet reconnects
            for _ in fleet:
                await asyncio.wait_for(booted.get(), 300)
            print(f"{len(fleet)} chargers connected and booted in {time.perf_counter() - t1:.1f} s")
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
                f"of one core, RSS {rss:.0f} MB (peak {max(rss, rss_peak):.0f} MB, target < 150)"
            )
            print(
                f"push -> SetChargingProfile at the charger: n={len(latencies)} "
                f"p50 {p50:.1f} ms, p99 {p99:.1f} ms (target < 200), failures {failures}"
            )
            print("slowest (ms, s into the window):", sorted(offsets, reverse=True)[:5])
    finally:
        for task in tasks:
            task.cancel()
        ended = await asyncio.gather(*tasks, return_exceptions=True)
        lost = [repr(e) for e in ended if not isinstance(e, asyncio.CancelledError | None)]
        if lost:  # a charger that dropped out of the fleet: say why
            print(f"{len(lost)} chargers failed, e.g.: {sorted(set(lost))[:3]}")
        server.terminate()
        server.wait(30)
        log.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chargers", type=int, default=1000)
    parser.add_argument("--interval", type=float, default=10.0)
    parser.add_argument("--pushes", type=int, default=200)
    parser.add_argument("--rate", type=float, default=5.0)
    parser.add_argument("--seconds", type=float, default=60.0)
    asyncio.run(main(parser.parse_args()))
