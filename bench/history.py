"""Costs that must not grow with history, on PostgreSQL: list pages, pushes to a device with
a long past, and the workers' next-due polls, each on a large database against a small one
in the same run.

Both databases are created for the run on the server at `ENERGYHUB_BENCH_POSTGRES_SERVER`
(default postgresql://postgres@127.0.0.1:5432; names `energyhub_bench_<random>_big` and
`_small`) and dropped at the end (`--keep` keeps them). Each is built through the service's
own paths (`build_container`, the HTTP app in process): one account and sandbox key, 50
sandbox batteries (`hot` and `fresh` among them), two webhook endpoints on a local receiver,
pushes (immediate, windowed, scheduled) whose events the webhook worker turns into
deliveries. The large one then gets, copied in SQL from those rows: `--rows` actions
(50,000 of them past actions of `hot`, `--pending` scheduled ones due days ahead),
`--rows` events, `--rows` deliveries (`--pending` of them pending, due days ahead) and
`--rows`/10 batteries; then VACUUM ANALYZE.

Figures, on each database (`energyhub serve --no-demo --no-workers` as a subprocess):
- list pages: p99 of first pages of every list filter, and of 40 deep pages walked in
  order near the end (the first jump to that depth is printed on its own);
  goal **p99 < 50 ms**;
- `GET /battery?limit=50`: the server's CPU per page; goal **< 3 ms**;
- pushes (`POST /battery/{id}`, immediate, completed in the request as the sandbox's
  completion delay is 0): median latency to `hot` (50,000 past actions)
  and to `fresh`, alternating; goal **hot within 20 % of fresh**;
- next-due polls (the dispatcher's and the webhook sender's, in process, one transaction
  each): median and p99; goal **median < 1 ms**.

Run: `.venv/bin/python bench/history.py [--rows 200000] [--pending 200000] [--keep]`
(`--rows 1000000` for the record). Exits 0 whatever the figures; 1 when a setup fails.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import asyncpg
import httpx
from _processes import BenchError, cpu_seconds, free_port, running, wait_healthy
from aiohttp import web

from energyhub.bootstrap import build_app, build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment

SERVER = os.environ.get("ENERGYHUB_BENCH_POSTGRES_SERVER", "postgresql://postgres@127.0.0.1:5432")
PAST_ACTIONS = 50_000
BATTERIES = 50
PAGE = 50
MAX_OFFSET = 1_000_000  # the largest offset the API takes
DEEP_PAGES = 40
SAMPLES = 60
LIST_P99_MS = 50.0
LIST_CPU_MS = 3.0
PUSH_RATIO = 1.2
POLL_MS = 1.0
BIN_DIR = Path(sys.executable).parent


@dataclass
class Fixture:
    key: str
    hot: str
    fresh: str
    endpoint_a: str
    endpoint_b: str
    counts: dict[str, int] = field(default_factory=dict)


def asyncpg_url(name: str) -> str:
    return f"{SERVER}/{name}"


def sqlalchemy_url(name: str) -> str:
    return asyncpg_url(name).replace("postgresql://", "postgresql+asyncpg://", 1)


async def admin(statement: str) -> None:
    connection = await asyncpg.connect(asyncpg_url("postgres"))
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


# --- building ------------------------------------------------------------------------------


async def receiver() -> tuple[web.AppRunner, str]:
    """A webhook receiver on loopback that answers 204 to everything."""

    async def ok(_request: web.Request) -> web.Response:
        return web.Response(status=204)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", ok)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner, f"http://127.0.0.1:{port}"


async def build_through_service(name: str) -> Fixture:
    settings = Settings(
        database_url=sqlalchemy_url(name),
        rate_limit_sandbox=100_000_000,
        sandbox_completion_delay_s=0,  # immediate pushes complete in their request
    )
    container = await build_container(settings)
    runner, receiver_url = await receiver()
    try:
        accounts = container.services.accounts
        account = await accounts.create_account("history bench")
        key = (await accounts.create_key(account.id, Environment.SANDBOX)).key
        headers = {"x-api-key": key}
        transport = httpx.ASGITransport(app=build_app(container))
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:

            async def call(method: str, path: str, body: Any, status: int) -> dict[str, Any]:
                answer = await client.request(method, path, json=body, headers=headers)
                if answer.status_code != status:
                    raise BenchError(f"{method} {path}: {answer.status_code} {answer.text}")
                data: dict[str, Any] = answer.json()["data"]
                return data

            ids, zones = [], []
            for i in range(BATTERIES):
                made = await call(
                    "POST", "/sandbox/devices", {"type": "battery", "userId": f"user-{i % 10}"}, 201
                )
                ids.append(made["id"])
                zones.append(made["metadata"]["timezone"])
            hot, fresh = ids[0], ids[1]
            endpoints = [
                (await call("POST", "/webhooks/endpoints", {"url": f"{receiver_url}/{n}"}, 201))
                for n in ("a", "b")
            ]
            for command in ("charge", "discharge", "charge"):
                await call("POST", f"/battery/{hot}", {"action": {"command": command}}, 200)
            await call(
                "POST",
                f"/battery/{ids[3]}",
                {"action": {"command": "discharge"}, "end": _local_in(3600, zones[3])},
                200,
            )
            await call(
                "POST",
                f"/battery/{ids[2]}",
                {"action": {"command": "charge"}, "start": _local_in(86_400, zones[2])},
                202,
            )
        async with container.engine.begin() as connection:  # sandbox events wait ~30 s
            await connection.exec_driver_sql("UPDATE webhook_events SET deliver_after = now()")
        container.webhook_worker.start()
        deadline = time.monotonic() + 30
        try:
            while time.monotonic() < deadline:
                async with container.engine.connect() as connection:
                    left = (
                        await connection.exec_driver_sql(
                            "SELECT count(*) FROM webhook_events WHERE fanned_out_at IS NULL"
                        )
                    ).scalar_one()
                    made = (
                        await connection.exec_driver_sql("SELECT count(*) FROM webhook_deliveries")
                    ).scalar_one()
                if left == 0 and made:
                    break
                await asyncio.sleep(0.2)
            else:
                raise BenchError(f"the webhook worker left {left} events, made {made} deliveries")
        finally:
            await container.stop_workers()
        return Fixture(key, hot, fresh, endpoints[0]["id"], endpoints[1]["id"])
    finally:
        await runner.cleanup()
        await container.aclose()


def _local_in(seconds: int, timezone: str) -> str:
    """The plant-local wall-clock time `seconds` from now (a push names local times)."""
    at = datetime.now(UTC) + timedelta(seconds=seconds)
    return at.astimezone(ZoneInfo(timezone)).strftime("%Y-%m-%dT%H:%M:%S")


async def columns(connection: asyncpg.Connection, table: str) -> list[str]:
    rows = await connection.fetch(
        "SELECT column_name FROM information_schema.columns WHERE table_name = $1 "
        "AND column_name <> 'pk' ORDER BY ordinal_position",
        table,
    )
    return [r["column_name"] for r in rows]


async def copy_rows(
    connection: asyncpg.Connection,
    table: str,
    template: str,
    count: int,
    overrides: dict[str, str],
) -> None:
    """`count` copies of the row `template` selects (as `t`), `g` running 1..count, with
    the `overrides` expressions for some columns; in chunks, each one statement."""
    names = await columns(connection, table)
    values = ", ".join(overrides.get(n, f't."{n}"') for n in names)
    column_list = ", ".join(f'"{n}"' for n in names)
    chunk = 100_000
    for first in range(1, count + 1, chunk):
        last = min(count, first + chunk - 1)
        await connection.execute(
            f"INSERT INTO {table} ({column_list}) SELECT {values} FROM ({template}) t, "
            f"generate_series({first}, {last}) g"
        )


async def bulk_copy(name: str, fixture: Fixture, rows: int, pending: int) -> None:
    connection = await asyncpg.connect(asyncpg_url(name))
    try:
        devices = max(rows // 10, BATTERIES)
        # batteries: copies of one made by the service
        await copy_rows(
            connection,
            "devices",
            f"SELECT * FROM devices WHERE id = '{fixture.fresh}'",
            devices,
            {
                "id": "'bdev_' || g",
                "user_id": "'bulk-' || (g % 1000)",
                "created_at": "t.created_at + g * interval '1 ms'",
            },
        )
        action = "SELECT * FROM actions WHERE device_id = '{}' ORDER BY pk LIMIT 1"
        # the hot device's past: completed pushes, half of them windows that have ended
        await copy_rows(
            connection,
            "actions",
            action.format(fixture.hot),
            PAST_ACTIONS,
            {
                "id": "'act_h' || g",
                "state": "'completed'",
                "start": "now() - interval '60 days' + g * interval '1 minute'",
                "end": "CASE WHEN g % 2 = 0 THEN NULL ELSE now() - interval '60 days' + "
                "g * interval '1 minute' + interval '30 seconds' END",
                "created_at": "now() - interval '60 days' + g * interval '1 minute'",
                "due_at": "NULL",
                "due_kind": "NULL",
                "lease_owner": "NULL",
                "lease_until": "NULL",
            },
        )
        scheduled = "SELECT * FROM actions WHERE state = 'scheduled' ORDER BY pk LIMIT 1"
        # pending: scheduled pushes due days ahead, over the bulk batteries
        await copy_rows(
            connection,
            "actions",
            scheduled,
            pending,
            {
                "id": "'act_p' || g",
                "device_id": f"'bdev_' || (1 + g % {devices})",
                "start": "now() + interval '10 days' + g * interval '1 second'",
                "due_at": "now() + interval '10 days' + g * interval '1 second'",
            },
        )
        rest = max(rows - PAST_ACTIONS - pending, 0)
        await copy_rows(
            connection,
            "actions",
            action.format(fixture.hot),
            rest,
            {
                "id": "'act_r' || g",
                "device_id": f"'bdev_' || (1 + g % {devices})",
                "state": "(ARRAY['completed', 'failed', 'cancelled'])[1 + g % 3]",
                "start": "now() - interval '30 days' + g * interval '1 second'",
                "end": "NULL",
                "due_at": "NULL",
                "due_kind": "NULL",
                "lease_owner": "NULL",
                "lease_until": "NULL",
            },
        )
        # the outbox, fanned out
        await copy_rows(
            connection,
            "webhook_events",
            "SELECT * FROM webhook_events ORDER BY pk LIMIT 1",
            rows,
            {
                "id": "'evt_b' || g",
                "occurred_at": "now() - interval '30 days' + g * interval '1 second'",
                "fanned_out_at": "now() - interval '30 days' + g * interval '1 second'",
            },
        )
        # deliveries: `pending` waiting days ahead (a dead endpoint), the rest delivered
        await copy_rows(
            connection,
            "webhook_deliveries",
            "SELECT * FROM webhook_deliveries ORDER BY pk LIMIT 1",
            rows,
            {
                "id": "'dlv_b' || g",
                "event_id": "'evt_b' || g",
                "endpoint_id": f"CASE WHEN g <= {pending} THEN '{fixture.endpoint_a}' "
                f"ELSE '{fixture.endpoint_b}' END",
                "status": f"CASE WHEN g <= {pending} THEN 'pending' ELSE 'succeeded' END",
                "next_attempt_at": f"CASE WHEN g <= {pending} THEN now() + interval '10 days'"
                " + g * interval '1 second' END",
                "lease_owner": "NULL",
                "lease_until": "NULL",
                "created_at": "now() - interval '30 days' + g * interval '1 second'",
            },
        )
        await connection.execute("VACUUM ANALYZE")
        for table in ("devices", "actions", "webhook_events", "webhook_deliveries"):
            fixture.counts[table] = await connection.fetchval(f"SELECT count(*) FROM {table}")
    finally:
        await connection.close()


async def small_counts(name: str, fixture: Fixture) -> None:
    connection = await asyncpg.connect(asyncpg_url(name))
    try:
        await connection.execute("VACUUM ANALYZE")
        for table in ("devices", "actions", "webhook_events", "webhook_deliveries"):
            fixture.counts[table] = await connection.fetchval(f"SELECT count(*) FROM {table}")
    finally:
        await connection.close()


# --- measuring -----------------------------------------------------------------------------


def ms(values: list[float]) -> tuple[float, float]:
    """(median, p99) in ms of seconds."""
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1000, p99 * 1000


def timed_get(client: httpx.Client, path: str, params: dict[str, Any]) -> tuple[float, Any]:
    began = time.perf_counter()
    answer = client.get(path, params=params)
    took = time.perf_counter() - began
    if answer.status_code != 200:
        raise BenchError(f"GET {path} {params}: {answer.status_code} {answer.text[:300]}")
    return took, answer.json()["data"]


def list_figures(client: httpx.Client, fixture: Fixture, pid: int) -> dict[str, Any]:
    firsts = {
        "GET /actions": ("/actions", {}),
        "GET /actions?state=completed": ("/actions", {"state": "completed"}),
        "GET /actions?state=scheduled": ("/actions", {"state": "scheduled"}),
        "GET /actions?deviceId=hot": ("/actions", {"deviceId": fixture.hot}),
        "GET /webhooks/deliveries": ("/webhooks/deliveries", {}),
        "GET /webhooks/deliveries?status=pending": ("/webhooks/deliveries", {"status": "pending"}),
        "GET /webhooks/deliveries?endpointId=b": (
            "/webhooks/deliveries",
            {"endpointId": fixture.endpoint_b},
        ),
        "GET /battery": ("/battery", {}),
    }
    found: dict[str, Any] = {}
    for label, (path, params) in firsts.items():
        for _ in range(3):
            timed_get(client, path, {**params, "limit": PAGE})
        before = cpu_seconds(pid)
        times = [timed_get(client, path, {**params, "limit": PAGE})[0] for _ in range(SAMPLES)]
        found[label] = (*ms(times), (cpu_seconds(pid) - before) / SAMPLES * 1000)
    deep = {
        "deep GET /actions": ("/actions", fixture.counts["actions"]),
        "deep GET /webhooks/deliveries": (
            "/webhooks/deliveries",
            fixture.counts["webhook_deliveries"],
        ),
        "deep GET /battery": ("/battery", fixture.counts["devices"]),
    }
    for label, (path, count) in deep.items():
        start = max(min(count, MAX_OFFSET) - (DEEP_PAGES + 1) * PAGE, 0)
        jump, _ = timed_get(client, path, {"limit": PAGE, "offset": start})
        before = cpu_seconds(pid)
        times = []
        for page in range(1, DEEP_PAGES + 1):
            took, data = timed_get(client, path, {"limit": PAGE, "offset": start + page * PAGE})
            times.append(took)
        found[label] = (*ms(times), (cpu_seconds(pid) - before) / DEEP_PAGES * 1000)
        found[label + " (first jump)"] = (jump * 1000, jump * 1000, float("nan"))
        found[label + " last total"] = data["pagination"]
    return found


def battery_cpu(client: httpx.Client, pid: int) -> float:
    for _ in range(10):
        timed_get(client, "/battery", {"limit": PAGE})
    before = cpu_seconds(pid)
    requests = 200
    for _ in range(requests):
        timed_get(client, "/battery", {"limit": PAGE})
    return (cpu_seconds(pid) - before) / requests * 1000


def push_figures(client: httpx.Client, fixture: Fixture) -> dict[str, tuple[float, float]]:
    times: dict[str, list[float]] = {"hot": [], "fresh": []}
    body = {"action": {"command": "charge"}}
    for round_ in range(110):
        for label, device in (("hot", fixture.hot), ("fresh", fixture.fresh)):
            began = time.perf_counter()
            answer = client.post(f"/battery/{device}", json=body)
            took = time.perf_counter() - began
            if answer.status_code != 200:
                raise BenchError(f"push to {label}: {answer.status_code} {answer.text[:300]}")
            if round_ >= 10:
                times[label].append(took)
    return {label: ms(values) for label, values in times.items()}


async def poll_figures(name: str) -> dict[str, tuple[float, float]]:
    container = await build_container(
        Settings(database_url=sqlalchemy_url(name)), run_migrations=False
    )
    try:
        polls: dict[str, Callable[[], Awaitable[Any]]] = {
            "dispatcher next-due poll": container.dispatcher.next_due_at,
            "webhook sender next-due poll": container.webhook_sender.next_due_at,
        }
        found = {}
        for label, poll in polls.items():
            for _ in range(20):
                await poll()
            times = []
            for _ in range(300):
                began = time.perf_counter()
                await poll()
                times.append(time.perf_counter() - began)
            found[label] = ms(times)
        return found
    finally:
        await container.aclose()


def measure(name: str, fixture: Fixture, tmp: Path) -> dict[str, Any]:
    env = {
        **os.environ,
        "ENERGYHUB_DATABASE_URL": sqlalchemy_url(name),
        "ENERGYHUB_RATE_LIMIT_SANDBOX": "100000000",
        "ENERGYHUB_LOG_LEVEL": "WARNING",
        "ENERGYHUB_SANDBOX_COMPLETION_DELAY_S": "0",  # each push completes in its request
    }
    port = free_port()
    log = tmp / f"serve-{name}.log"
    argv = [
        sys.executable,
        "-c",
        "from energyhub.cli import app; app()",
        "serve",
        "--no-demo",
        "--no-workers",
        "--port",
        str(port),
    ]
    with running(argv, env, log, name="energyhub serve") as proc:
        base = f"http://127.0.0.1:{port}"
        wait_healthy(base, proc, log, timeout=300)
        with httpx.Client(base_url=base, headers={"x-api-key": fixture.key}, timeout=60) as c:
            figures = list_figures(c, fixture, proc.pid)
            figures["cpu"] = battery_cpu(c, proc.pid)
            figures["push"] = push_figures(c, fixture)
    figures["polls"] = asyncio.run(poll_figures(name))
    return figures


# --- report --------------------------------------------------------------------------------


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def report(big: dict[str, Any], small: dict[str, Any], fixture: Fixture, rows: int) -> None:
    print(f"\nlatency in ms (median / p99), server CPU ms a request; large: {fixture.counts}")
    print(f"{'figure':46} {'small':>25} {'large':>25}  goal")
    for label, value in big.items():
        if label in ("cpu", "push", "polls") or label.endswith("last total"):
            continue
        s, b = small[label], value
        first_jump = label.endswith("(first jump)")
        goal = "info" if first_jump else f"{verdict(b[1] < LIST_P99_MS)} p99 < {LIST_P99_MS:g}"
        print(
            f"{label:46} {s[0]:7.2f} / {s[1]:7.2f} {s[2]:6.2f}c"
            f" {b[0]:7.2f} / {b[1]:7.2f} {b[2]:6.2f}c  {goal}"
        )
    for label in ("deep GET /actions", "deep GET /webhooks/deliveries", "deep GET /battery"):
        print(f"{label + ': last page pagination':46} {big[label + ' last total']}")
    print(
        f"{'GET /battery?limit=50, server CPU per page (ms)':46} {small['cpu']:25.2f} "
        f"{big['cpu']:25.2f}  {verdict(big['cpu'] < LIST_CPU_MS)} < {LIST_CPU_MS:g}"
    )
    for label in ("hot", "fresh"):
        s, b = small["push"][label], big["push"][label]
        name = f"push to {label}" + (f" ({PAST_ACTIONS:,} past actions)" if label == "hot" else "")
        print(f"{name:46} {s[0]:7.2f} / {s[1]:7.2f}         {b[0]:7.2f} / {b[1]:7.2f}")
    ratio = big["push"]["hot"][0] / big["push"]["fresh"][0]
    print(
        f"{'push median, hot / fresh (large database)':46} {'':25} {ratio:25.2f}  "
        f"{verdict(ratio <= PUSH_RATIO)} <= {PUSH_RATIO:g}"
    )
    for label, b in big["polls"].items():
        s = small["polls"][label]
        print(
            f"{label:46} {s[0]:7.3f} / {s[1]:7.3f}         {b[0]:7.3f} / {b[1]:7.3f}  "
            f"{verdict(b[0] < POLL_MS)} median < {POLL_MS:g}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--pending", type=int, default=200_000)
    parser.add_argument("--keep", action="store_true", help="keep the databases")
    parser.add_argument(
        "--log-slow-ms",
        type=float,
        help="log statements slower than this in the server's log (log_min_duration_statement)",
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if "ENERGYHUB_SECRET_KEY" not in os.environ:  # shared by this process and the server's
        from cryptography.fernet import Fernet

        os.environ["ENERGYHUB_SECRET_KEY"] = Fernet.generate_key().decode()
    import energyhub

    print(f"energyhub from {Path(energyhub.__file__).parent}", flush=True)
    stem = f"energyhub_bench_{secrets.token_hex(4)}"
    names = {"small": f"{stem}_small", "big": f"{stem}_big"}
    made: list[str] = []
    try:
        with tempfile.TemporaryDirectory(prefix="history-bench-") as tmp_dir:
            tmp = Path(tmp_dir)
            fixtures = {}
            for size, name in names.items():
                asyncio.run(admin(f'CREATE DATABASE "{name}"'))
                made.append(name)
                if args.log_slow_ms is not None:
                    asyncio.run(
                        admin(
                            f'ALTER DATABASE "{name}" SET log_min_duration_statement = '
                            f"{args.log_slow_ms:g}"
                        )
                    )
                began = time.perf_counter()
                fixtures[size] = asyncio.run(build_through_service(name))
                if size == "big":
                    asyncio.run(bulk_copy(name, fixtures[size], args.rows, args.pending))
                else:
                    asyncio.run(small_counts(name, fixtures[size]))
                print(
                    f"built {name} in {time.perf_counter() - began:.0f}s: {fixtures[size].counts}",
                    flush=True,
                )
            figures = {size: measure(names[size], fixtures[size], tmp) for size in names}
            report(figures["big"], figures["small"], fixtures["big"], args.rows)
    except BenchError as failed:
        print(f"setup failed: {failed}", file=sys.stderr)
        return 1
    finally:
        if not args.keep:
            for name in made:
                asyncio.run(admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        else:
            print(f"kept: {', '.join(made)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
