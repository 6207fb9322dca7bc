"""Routed push latency on PostgreSQL: an immediate push served by the process holding the
charger's websocket against the same push served by another process (routed over the
LISTEN/NOTIFY channel to the holder).

1. Creates a database of its own on the server (`energyhub_bench_<random>`, dropped at the
   end), migrated, with one account, one live key and one OCPP charger.
2. Starts two `energyhub serve --no-demo` processes, A and B, on it; one simulated OCPP 1.6
   charger (`ocpp.v16.ChargePoint` over a real websocket, in this process) connects to A
   and boots.
3. Sends `--pushes` immediate pushes (`POST /ev-charger/{id}` `charge` with a power limit
   that differs each time, one at a time) alternately to A (local) and to B (routed); the
   first 20 of each are not counted.

Prints, for local and routed: p50 / p99 / max of the time from sending the request to the
charger receiving its SetChargingProfile frame ("to the charger"), and of the whole
answer (the push completes once the charger accepted), and the routed p99's excess over
the local one. Exits 0 whatever the figures (it is a measurement), 1 if the setup fails or
a push is not answered 200.

Run: `.venv/bin/python bench/routing.py [--pushes 400]`. The server:
`ENERGYHUB_BENCH_POSTGRES_URL` (default postgresql+asyncpg://postgres@127.0.0.1:5432/postgres;
only its server part is used).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import secrets
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
from _processes import BenchError, free_port, running, wait_healthy  # bench/ is on sys.path
from ocpp.routing import on
from ocpp.v16 import ChargePoint, call, call_result
from sqlalchemy.engine import make_url
from websockets.asyncio.client import connect

from energyhub.bootstrap import build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment

DEFAULT_SERVER = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
CP, PASSWORD = "CP-BENCH", "bench-charger-password-1"
WARMUP = 20


class Sim(ChargePoint):  # type: ignore[misc]
    def __init__(self, ws: Any) -> None:
        super().__init__(CP, ws, response_timeout=30)
        self.arrivals: dict[float, float] = {}  # TxDefaultProfile limit (W) -> arrival

    @on("SetChargingProfile")
    def on_profile(self, connector_id: int, cs_charging_profiles: dict[str, Any]) -> Any:
        if cs_charging_profiles["charging_profile_purpose"] == "TxDefaultProfile":
            period = cs_charging_profiles["charging_schedule"]["charging_schedule_period"][0]
            self.arrivals.setdefault(float(period["limit"]), time.perf_counter())
        return call_result.SetChargingProfile(status="Accepted")

    @on("RemoteStartTransaction")
    def on_start(self, **_: Any) -> Any:
        return call_result.RemoteStartTransaction(status="Accepted")

    @on("GetConfiguration")
    def on_config(self, **_: Any) -> Any:
        return call_result.GetConfiguration(configuration_key=[])


async def _admin(server: str, sql: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(server.replace("+asyncpg", ""))
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


async def setup(url: str, data_dir: str) -> tuple[str, str]:
    container = await build_container(Settings(database_url=url, data_dir=data_dir))
    try:
        account = await container.services.accounts.create_account("bench")
        key = await container.services.accounts.create_key(account.id, Environment.LIVE)
        device = await container.commissioning.add_ocpp(account.id, "u", CP, PASSWORD)
        return key.key, device.id
    finally:
        await container.aclose()


async def measure(
    a: str, b: str, key: str, device_id: str, pushes: int
) -> dict[str, list[tuple[float, float]]]:
    token = base64.b64encode(f"{CP}:{PASSWORD}".encode()).decode()
    ws = await connect(
        f"{a.replace('http', 'ws', 1)}/ocpp/{CP}",
        subprotocols=["ocpp1.6"],  # type: ignore[list-item]
        additional_headers={"Authorization": f"Basic {token}"},
    )
    sim = Sim(ws)
    serving = asyncio.create_task(sim.start())
    await sim.call(call.BootNotification(charge_point_vendor="Bench", charge_point_model="B"))
    await sim.call(
        call.StatusNotification(connector_id=1, error_code="NoError", status="Available")
    )
    samples: dict[str, list[tuple[float, float]]] = {"local": [], "routed": []}
    headers = {"x-api-key": key}
    async with (
        httpx.AsyncClient(base_url=a, headers=headers, timeout=30) as to_a,
        httpx.AsyncClient(base_url=b, headers=headers, timeout=30) as to_b,
    ):
        await _until_commandable(to_b, device_id)
        for i in range(2 * (pushes + WARMUP)):
            kind, client = ("local", to_a) if i % 2 == 0 else ("routed", to_b)
            watts = 3000.0 + i
            body = {
                "action": {
                    "command": "charge",
                    "parameters": {"power": {"value": watts, "unit": "w"}},
                }
            }
            sent = time.perf_counter()
            answer = await client.post(f"/ev-charger/{device_id}", json=body)
            done = time.perf_counter()
            if answer.status_code != 200:
                raise BenchError(f"{kind} push answered {answer.status_code}: {answer.text}")
            arrived = sim.arrivals.get(watts)
            if arrived is None:
                raise BenchError(f"the charger never received the {kind} push of {watts} W")
            if i >= 2 * WARMUP:
                samples[kind].append((arrived - sent, done - sent))
    serving.cancel()
    await ws.close()
    return samples


async def _until_commandable(client: httpx.AsyncClient, device_id: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        got = await client.get(f"/ev-charger/{device_id}", params={"expedite": "true"})
        if got.status_code == 200 and "charge" in str(got.json()["data"]["commands"]):
            return
        await asyncio.sleep(0.2)
    raise BenchError("the charger never became commandable through process B")


def _quantiles(values: list[float]) -> tuple[float, float, float]:
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return cuts[49] * 1000, cuts[98] * 1000, max(values) * 1000


def report(
    samples: dict[str, list[tuple[float, float]]],
) -> dict[str, tuple[float, float, float]]:
    """Prints the figures; returns p50, p99 and max to the charger (ms) by kind."""
    figures: dict[str, tuple[float, float, float]] = {}
    for kind, pairs in samples.items():
        to_charger = _quantiles([p[0] for p in pairs])
        answered = _quantiles([p[1] for p in pairs])
        figures[kind] = to_charger
        print(
            f"{kind:>6} ({len(pairs)} pushes): to the charger p50 {to_charger[0]:.1f} ms, "
            f"p99 {to_charger[1]:.1f} ms, max {to_charger[2]:.1f} ms; answered p50 "
            f"{answered[0]:.1f} ms, p99 {answered[1]:.1f} ms, max {answered[2]:.1f} ms"
        )
    excess = figures["routed"][1] - figures["local"][1]
    print(f"routed p99 to the charger exceeds local by {excess:.1f} ms (goal: within 20 ms)")
    return figures


def run(url: str, tmp: str, pushes: int) -> dict[str, list[tuple[float, float]]]:
    """Steps 1 (on the migrated database at `url`, data in `tmp`) to 3: the samples."""
    with ExitStack() as stack:
        key, device_id = asyncio.run(setup(url, tmp))
        env = {**os.environ, "ENERGYHUB_DATABASE_URL": url, "ENERGYHUB_DATA_DIR": tmp}
        env["ENERGYHUB_RATE_LIMIT_LIVE"] = "100000000"  # measure routing, not the limit
        bases = []
        for role in "ab":
            port = free_port()
            log = Path(tmp) / f"serve-{role}.log"
            argv = [sys.executable, "-m", "energyhub", "serve", "--no-demo", "--port", str(port)]
            proc = stack.enter_context(running(argv, env, log, f"serve {role}"))
            bases.append((f"http://127.0.0.1:{port}", proc, log))
        for base, proc, log in bases:
            wait_healthy(base, proc, log)
        time.sleep(2.0)  # each process hears the other on the channel (looked up every 1 s)
        return asyncio.run(measure(bases[0][0], bases[1][0], key, device_id, pushes))


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pushes", type=int, default=400, help="of each kind")
    args = parser.parse_args()
    server = os.environ.get("ENERGYHUB_BENCH_POSTGRES_URL", DEFAULT_SERVER)
    name = f"energyhub_bench_{secrets.token_hex(4)}"
    url = make_url(server).set(database=name).render_as_string(hide_password=False)
    try:
        asyncio.run(_admin(server, f'CREATE DATABASE "{name}"'))
    except Exception as exc:
        print(f"cannot create a database on {server}: {exc}", file=sys.stderr)
        return 1
    print(f"database {name}; load average {os.getloadavg()[0]:.2f}", flush=True)
    try:
        with tempfile.TemporaryDirectory(prefix="energyhub-routing-") as tmp:
            report(run(url, tmp, args.pushes))
    except BenchError as error:
        print(f"bench failed: {error}", file=sys.stderr)
        return 1
    finally:
        asyncio.run(_admin(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    return 0


if __name__ == "__main__":
    sys.exit(main())
