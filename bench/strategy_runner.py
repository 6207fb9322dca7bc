"""The strategy runner at fleet scale: what its surplus loop costs the service, with the
database, the simulator and the steering writes included (bench/strategies.py measures the
domain alone).

Builds a fresh database (SQLite, or PostgreSQL with `--database postgres`) with N sandbox
chargers, each at a site of its own with a tariff, all under `auto.charge_surplus_only`
(set on the device rows as a completed push would: the bench measures the loop, not the
pushes). Then, on a fake clock, for `--minutes` of simulated time: every 10 s each site
gets a reading through the site-readings use case (a noisy solar curve that crosses the
chargers' minimum, so charging starts, follows and pauses), and the runner takes one look
at the whole fleet. Prints the runner's CPU time per look and as a share of one core (CPU
time / simulated time), the readings' cost beside it, the plans made and the schedules
sent. Target: the loop under 10 % of a core at 1,000 chargers.

Run: `.venv/bin/python bench/strategy_runner.py [--chargers 1000] [--minutes 10]
[--database sqlite|postgres] [--strategy auto.charge_surplus_only|auto.charge_tariff|...]`
(`auto.charge_tariff` plans every charger at its first look: the planning's share)
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from push import DEFAULT_POSTGRES_URL, Postgres  # bench/ is on sys.path

from energyhub.bootstrap import build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import FakeClock
from energyhub.drivers.sandbox.simulator import SimAnchor

START = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
TARGET_SHARE = 0.10
TARIFF = {
    "currency": "EUR",
    "import": {"timeOfUse": [{"from": "00:00", "to": "24:00", "price": 0.3}]},
    "export": {"timeOfUse": [{"from": "00:00", "to": "24:00", "price": 0.08}]},
}


def dynamic_tariff() -> dict[str, object]:
    """Day-ahead prices at 15 minutes over two days (a price curve with a cheap night), for
    the planning strategies: each plan reads 96 or more periods."""
    periods = []
    for quarter in range(2 * 96):
        start = START.replace(hour=0) + timedelta(minutes=15 * quarter)
        hour = start.hour + start.minute / 60
        price = round(0.25 + 0.1 * math.cos((hour - 19) / 24 * 2 * math.pi), 4)
        periods.append(
            {
                "start": start.isoformat().replace("+00:00", "Z"),
                "end": (start + timedelta(minutes=15)).isoformat().replace("+00:00", "Z"),
                "price": price,
            }
        )
    return {"currency": "EUR", "import": {"prices": periods}}


async def run(database_url: str, chargers: int, minutes: int, strategy: str) -> None:
    clock = FakeClock(START)
    container = await build_container(Settings(database_url=database_url), clock)
    try:
        services = container.services
        account = await services.accounts.create_account("bench")
        created = await services.accounts.create_key(account.id, Environment.SANDBOX)
        principal = Principal(account.id, Environment.SANDBOX, created.api_key.id)
        ids: list[str] = []
        for i in range(chargers):
            view = await services.sandbox.create_device(principal, DeviceType.EV_CHARGER, f"u{i}")
            ids.append(view.device.id)
            tariff = TARIFF if strategy == "auto.charge_surplus_only" else dynamic_tariff()
            await services.strategies.put_site(principal, f"u{i}", {"tariff": tariff})
        async with container.uow() as tx:
            for device_id in ids:
                anchor = SimAnchor(strategy, {}, START, 40.0)
                await tx.devices.update_device(
                    device_id,
                    mode_command=strategy,
                    sim=anchor.to_json(),
                    updated_at=START,
                )
        runner = container.strategy_worker.runner
        rng = random.Random(7)
        look_cpu: list[float] = []
        reading_cpu = 0.0
        planned = steered = 0
        looks = minutes * 6
        for step in range(looks):
            clock.set(START + timedelta(seconds=10 * step))
            at = clock.now().isoformat()
            began = time.process_time()
            for i in range(chargers):
                solar = 6.0 + 3.0 * math.sin(step / 9 + i) + rng.uniform(-0.5, 0.5)
                body = {"readings": [{"at": at, "gridPower": {"value": 0.5 - solar, "unit": "kw"}}]}
                await services.strategies.add_readings(principal, f"u{i}", body)
            reading_cpu += time.process_time() - began
            began = time.process_time()
            report = await runner.tick()
            look_cpu.append(time.process_time() - began)
            planned += report.planned
            steered += report.steered
        simulated = looks * 10.0
        total = sum(look_cpu)
        share = total / simulated
        print(
            f"strategy runner: {chargers} chargers under {strategy}, "
            f"{looks} looks 10 s apart ({minutes} min simulated)"
        )
        print(
            f"  runner: {1000 * total / looks:.1f} ms CPU per look, "
            f"{100 * share:.2f} % of a core  [{'PASS' if share < TARGET_SHARE else 'MISS'}: < 10 %]"
        )
        first, rest = look_cpu[0], look_cpu[1:]
        print(
            f"  first look (plans every charger): {1000 * first:.0f} ms CPU; "
            f"later looks median {1000 * sorted(rest)[len(rest) // 2]:.1f} ms"
        )
        print(f"  plans made {planned}, schedules sent {steered}")
        print(
            f"  readings through the use case: {1000 * reading_cpu / (looks * chargers):.2f} ms "
            f"CPU each, {100 * reading_cpu / simulated:.1f} % of a core at one per charger "
            "every 10 s (the API's share, not the loop's)"
        )
    finally:
        await container.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chargers", type=int, default=1000)
    parser.add_argument("--minutes", type=int, default=10)
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument(
        "--strategy",
        choices=("auto.charge_surplus_only", "auto.charge_tariff", "auto.charge_surplus_first"),
        default="auto.charge_surplus_only",
    )
    args = parser.parse_args()
    if args.database == "postgres":
        pg = Postgres(DEFAULT_POSTGRES_URL.replace("energyhub_bench", "energyhub_bench_runner"))
        pg.recreate()
        try:
            asyncio.run(run(pg.url, args.chargers, args.minutes, args.strategy))
        finally:
            pg.run("dropdb", "--if-exists", "--force", pg.database)
        return
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
        asyncio.run(run(url, args.chargers, args.minutes, args.strategy))


if __name__ == "__main__":
    main()
