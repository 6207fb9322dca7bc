"""Retention at a million rows on PostgreSQL: how fast `energyhub serve` prunes 1,000,000 old
webhook deliveries, and what that does to the immediate pushes it serves meanwhile.

1. Creates a database of its own on the server (`energyhub_bench_<random>`, dropped at the
   end), migrated to the newest revision, with one account, one sandbox key, `--devices`
   sandbox batteries in UTC, one (disabled) webhook endpoint and `--rows` final deliveries
   100-111 days old, bulk-inserted in SQL (`INSERT ... SELECT ... generate_series`; a tenth
   `failed` with ten attempts, the rest `succeeded` with one), then `VACUUM ANALYZE`.
2. **Before**: `energyhub serve --no-demo` with ENERGYHUB_RETENTION_DAYS=0 (nothing pruned);
   one loop of immediate pushes (`POST /battery/{id}` `{"action": {"command": "charge"}}`,
   one at a time, over the batteries in turn; sandbox completions after 50 ms) for
   `--seconds`; the first 50 are not counted.
3. **During and after**: the service restarted with ENERGYHUB_RETENTION_DAYS=90: its
   retention worker starts pruning at once, while the same loop of pushes runs; the bench
   reads `energyhub_retention_pruned_total{kind="deliveries"}` from `GET /metrics` every
   0.25 s. Pushes sent between the first and the last change of that counter are
   "during"; the loop then goes on `--seconds` more ("after", the same process).

4. **SQLite**: `--sqlite-rows` old deliveries in a SQLite file, pruned by the service's
   batches in a loop without rests: rows/s and how long each batch holds SQLite's writer.

Prints rows pruned per second (from the counter's first to its last change) and push
latency p50 / p99 / max before, during and after, and PASS or MISS for two goals: at least
5,000 rows/s (a million in under 200 s while the backlog takes at most half a connection),
and push p99 during pruning at most twice the p99 without it (the larger of before and
after: the machine's load moves p99 between phases). Exits 0 whatever the figures (it is a
measurement); 1 if the setup fails, a push is not answered 200, or fewer rows than
inserted were pruned.

Run: `.venv/bin/python bench/retention.py [--rows 1000000] [--devices 200] [--seconds 10]
[--sqlite-rows 200000]`.
The server: `ENERGYHUB_BENCH_POSTGRES_URL` (default
postgresql+asyncpg://postgres@127.0.0.1:5432/postgres; only its server part is used).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from _processes import BenchError, free_port, running, wait_healthy  # bench/ is on sys.path
from sqlalchemy.engine import make_url

from energyhub.bootstrap import build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.retention import PrunedKind
from energyhub.persistence.retention import prune_statement
from energyhub.services.retention import BATCH

BIN_DIR = Path(sys.executable).parent
DEFAULT_SERVER = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
PUSH_BODY: dict[str, object] = {"action": {"command": "charge"}}
WARMUP = 50  # pushes at the start of each process, not counted
POLL_S = 0.25
PRUNE_TIMEOUT_S = 1800.0
TARGET_ROWS_S = 5_000
PRUNED = re.compile(rb'^energyhub_retention_pruned_total\{kind="deliveries"\} (\S+)$', re.M)
BODY = (
    '{"id": "evt_%s", "type": "push.completed", "data": {"actionId": "act_%s", '
    '"deviceId": "bat_0123456789abcdef", "command": "charge", "state": "completed", '
    '"createdAt": "2026-08-01T10:00:00Z", "completedAt": "2026-08-01T10:00:02Z", '
    '"userId": "user-7", "result": {"power": {"value": 3.3, "unit": "kW"}}}}'
)


@dataclass
class Fixture:
    key: str
    devices: list[str]


@dataclass
class Phase:
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (sent at, seconds)
    pruned: list[tuple[float, float]] = field(default_factory=list)  # (read at, counter)


# --- the database ---------------------------------------------------------------------------


def _attempt(status: int) -> dict[str, object]:
    return {"at": "2026-08-01T10:00:00Z", "httpStatus": status, "durationMs": 12, "error": None}


def _plain(url: str) -> str:
    return url.replace("+asyncpg", "")


async def _admin(server: str, sql: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(_plain(server))
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


async def fill(url: str, devices: int, rows: int) -> Fixture:
    import asyncpg

    container = await build_container(Settings(database_url=url, retention_days=0))
    try:
        services = container.services
        account = await services.accounts.create_account("bench")
        created = await services.accounts.create_key(account.id, Environment.SANDBOX)
        principal = Principal(account.id, Environment.SANDBOX, created.api_key.id)
        ids = []
        for i in range(devices):
            view = await services.sandbox.create_device(
                principal, DeviceType.BATTERY, f"user-{i % 20}", timezone="UTC"
            )
            ids.append(view.device.id)
    finally:
        await container.aclose()
    connection = await asyncpg.connect(_plain(url))
    try:
        await connection.execute(
            "INSERT INTO webhook_endpoints (id, account_id, environment, url, secret, enabled,"
            " created_at) VALUES ('we_bench', $1, 'sandbox', 'https://receiver.example/hook',"
            " 'unused', false, now() - interval '200 days')",
            account.id,
        )
        began = time.perf_counter()
        body = BODY.replace("%s", "' || g || '")
        await connection.execute(
            "INSERT INTO webhook_deliveries (id, event_id, endpoint_id, account_id, environment,"
            " event_type, body, status, attempts, next_attempt_at, created_at, updated_at)"
            " SELECT 'dlv_bench_' || g, 'evt_bench_' || g, 'we_bench', $1, 'sandbox',"
            f" 'push.completed', '{body}',"
            " CASE WHEN g % 10 = 0 THEN 'failed' ELSE 'succeeded' END,"
            " CASE WHEN g % 10 = 0 THEN $3::jsonb ELSE $4::jsonb END,"
            " NULL, now() - interval '100 days' - g * interval '1 second',"
            " now() - interval '100 days' - g * interval '1 second'"
            " FROM generate_series(1, $2::int) g",
            account.id,
            rows,
            json.dumps([_attempt(503)] * 10),
            json.dumps([_attempt(200)]),
        )
        inserted = time.perf_counter() - began
        await connection.execute("VACUUM ANALYZE webhook_deliveries")
        size = await connection.fetchval(
            "SELECT pg_size_pretty(pg_total_relation_size('webhook_deliveries'))"
        )
        plan = await _batch_plan(connection)
    finally:
        await connection.close()
    print(f"  {rows:,} old deliveries inserted in {inserted:.1f}s (table and indexes {size})")
    print("  a batch's plan:\n    " + "\n    ".join(plan), flush=True)
    return Fixture(created.key, ids)


async def _batch_plan(connection: Any) -> list[str]:
    """EXPLAIN of the service's own batch statement for deliveries (not run)."""
    from sqlalchemy.dialects.postgresql.asyncpg import dialect

    compiled = prune_statement(PrunedKind.DELIVERIES, postgres=True).compile(dialect=dialect())
    now = datetime.now(UTC)
    given = {"before": now - timedelta(days=90), "now": now, "limit": BATCH}
    args = [given.get(name, compiled.params.get(name)) for name in compiled.positiontup or []]
    rows = await connection.fetch(f"EXPLAIN {compiled.string}", *args)
    return [row[0] for row in rows]


# --- the service ------------------------------------------------------------------------------


async def _pushes(
    client: httpx.AsyncClient, devices: list[str], phase: Phase, stop: asyncio.Event
) -> None:
    n = 0
    while not stop.is_set():
        device = devices[n % len(devices)]
        sent = time.perf_counter()
        response = await client.post(f"/battery/{device}", json=PUSH_BODY)
        took = time.perf_counter() - sent
        if response.status_code != 200:
            raise BenchError(
                f"POST /battery/{device}: {response.status_code} {response.text[:300]}"
            )
        if n >= WARMUP:
            phase.latencies.append((sent, took))
        n += 1


async def _counter(client: httpx.AsyncClient, phase: Phase, stop: asyncio.Event) -> None:
    while not stop.is_set():
        response = await client.get("/metrics")
        found = PRUNED.search(response.content)
        phase.pruned.append((time.perf_counter(), float(found.group(1)) if found else 0.0))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), POLL_S)


async def drive(
    base: str, fixture: Fixture, phase: Phase, seconds: float, rows: int | None
) -> None:
    """Pushes for `seconds`; with `rows`, until that many were pruned, then `seconds` more."""
    stop = asyncio.Event()
    async with httpx.AsyncClient(
        base_url=base, headers={"x-api-key": fixture.key}, timeout=60.0
    ) as client:
        tasks = [asyncio.create_task(_pushes(client, fixture.devices, phase, stop))]
        if rows is not None:
            tasks.append(asyncio.create_task(_counter(client, phase, stop)))
            deadline = time.perf_counter() + PRUNE_TIMEOUT_S
            while not phase.pruned or phase.pruned[-1][1] < rows:
                if time.perf_counter() > deadline:
                    stop.set()
                    raise BenchError(f"not every row was pruned within {PRUNE_TIMEOUT_S:.0f}s")
                await asyncio.sleep(POLL_S)
                for task in tasks:
                    if task.done():
                        task.result()
        await asyncio.sleep(seconds)
        stop.set()
        await asyncio.gather(*tasks)


def run_phase(
    url: str, fixture: Fixture, days: int, seconds: float, rows: int | None, tmp: Path
) -> Phase:
    env = {
        **os.environ,
        "ENERGYHUB_DATABASE_URL": url,
        "ENERGYHUB_RATE_LIMIT_SANDBOX": "100000000",
        "ENERGYHUB_LOG_LEVEL": "WARNING",
        "ENERGYHUB_SANDBOX_COMPLETION_DELAY_S": "0.05",
        "ENERGYHUB_RETENTION_DAYS": str(days),
    }
    port = free_port()
    log = tmp / f"service-{days}.log"
    argv = [str(BIN_DIR / "energyhub"), "serve", "--no-demo", "--port", str(port)]
    phase = Phase()
    with running(argv, env, log, name=f"serve (retention {days} days)") as proc:
        base = f"http://127.0.0.1:{port}"
        wait_healthy(base, proc, log)
        asyncio.run(drive(base, fixture, phase, seconds, rows))
    return phase


async def sqlite_batches(rows: int, tmp: Path) -> str:
    """How long one batch holds SQLite's one writer: `rows` old deliveries pruned in a loop
    of the service's batches, without rests and without pushes."""
    from sqlalchemy import text

    from energyhub.persistence.engine import create_engine, migrate
    from energyhub.persistence.retention import SqlHistoryPruner

    engine = create_engine(f"sqlite+aiosqlite:///{tmp / 'retention.db'}")
    try:
        await migrate(engine)
        now = datetime.now(UTC)
        old = (now - timedelta(days=100)).replace(tzinfo=None).isoformat(sep=" ")
        async with engine.begin() as connection:
            await connection.execute(
                text("INSERT INTO accounts VALUES ('acc', 'bench', 'app', :t)"), {"t": old}
            )
            await connection.execute(
                text(
                    "INSERT INTO webhook_endpoints (id, account_id, environment, url, secret,"
                    " enabled, created_at) VALUES ('we', 'acc', 'sandbox', 'https://r.example/',"
                    " 'unused', 0, :t)"
                ),
                {"t": old},
            )
            await connection.execute(
                text(
                    "WITH RECURSIVE g(n) AS"
                    " (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < :rows)"
                    " INSERT INTO webhook_deliveries (id, event_id, endpoint_id, account_id,"
                    " environment, event_type, body, status, attempts, created_at, updated_at)"
                    " SELECT 'dlv' || n, 'evt' || n, 'we', 'acc', 'sandbox', 'push.completed',"
                    " :body, 'succeeded', :attempts, datetime(:t, '-' || n || ' seconds'),"
                    " datetime(:t, '-' || n || ' seconds') FROM g"
                ),
                {"rows": rows, "t": old, "body": BODY, "attempts": json.dumps([_attempt(200)])},
            )
        pruner = SqlHistoryPruner(engine)
        took: list[float] = []
        since = None
        began = time.perf_counter()
        while True:
            start = time.perf_counter()
            batch = await pruner.prune_batch(
                PrunedKind.DELIVERIES, now - timedelta(days=90), now, BATCH, since
            )
            took.append(time.perf_counter() - start)
            since = batch.through
            if batch.count < BATCH:
                break
        total = time.perf_counter() - began
    finally:
        await engine.dispose()
    return (
        f"SQLite: {rows:,} deliveries pruned at {rows / total:,.0f} rows/s (no rests); a batch "
        f"of {BATCH} holds the writer {latency(took).split('pushes')[1].strip()}"
    )


# --- figures ----------------------------------------------------------------------------------


def latency(samples: list[float]) -> str:
    if len(samples) < 2:
        return f"{len(samples)} pushes"
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return (
        f"{len(samples):>6} pushes  p50 {cuts[49] * 1000:6.1f} ms  p99 {cuts[98] * 1000:6.1f} ms"
        f"  max {max(samples) * 1000:6.1f} ms"
    )


def by_fifth(pruned: list[tuple[float, float]], rows: int) -> list[str]:
    """The rate over each fifth of the rows: does a batch cost more as the backlog shrinks?"""
    rates = []
    for fifth in range(5):
        low, high = rows * fifth / 5, rows * (fifth + 1) / 5
        inside = [(t, v) for t, v in pruned if low <= v <= high]
        if len(inside) < 2 or inside[-1][0] == inside[0][0]:
            rates.append("-")
            continue
        (t0, v0), (t1, v1) = inside[0], inside[-1]
        rates.append(f"{(v1 - v0) / (t1 - t0):,.0f}")
    return rates


def report(before: Phase, pruning: Phase, rows: int) -> None:
    changes = [
        (t, v)
        for (t, v), (_, prev) in zip(pruning.pruned[1:], pruning.pruned, strict=False)
        if v != prev
    ]
    if not changes or changes[-1][1] < rows:
        raise BenchError(
            f"the service pruned {changes[-1][1] if changes else 0:.0f} of {rows} rows"
        )
    first_seen = next(t for t, v in pruning.pruned if v > 0)
    last = changes[-1][0]
    start_value = next(v for t, v in pruning.pruned if t == first_seen)
    rate = (rows - start_value) / (last - first_seen) if last > first_seen else float("nan")
    during = [s for t, s in pruning.latencies if first_seen <= t <= last]
    after = [s for t, s in pruning.latencies if t > last]
    print(
        f"\nretention: {rows:,} deliveries pruned; {rate:,.0f} rows/s over "
        f"{last - first_seen:.1f}s (counter read every {POLL_S}s)"
    )
    print(f"  rows/s by fifth of the backlog: {' '.join(by_fifth(pruning.pruned, rows))}")
    print(f"  pushes before pruning  {latency([s for _, s in before.latencies])}")
    print(f"  pushes during pruning  {latency(during)}")
    print(f"  pushes after pruning   {latency(after)}")
    print(f"  load average at the end: {os.getloadavg()[0]:.2f} (2 cores)")
    quiet = max(p99(s for _, s in before.latencies), p99(after))
    print(
        f"  {verdict(rate >= TARGET_ROWS_S)} pruning at >= {TARGET_ROWS_S:,} rows/s "
        f"(1M in under {1_000_000 / TARGET_ROWS_S:.0f} s)"
    )
    print(
        f"  {verdict(len(during) >= 100 and p99(during) <= 2 * quiet)} push p99 during pruning "
        f"{p99(during) * 1000:.0f} ms <= 2 x p99 without it ({quiet * 1000:.0f} ms, the larger of "
        f"before and after; {len(during)} pushes during, at least 100 needed)"
    )


def p99(samples: Iterable[float]) -> float:
    values = list(samples)
    return statistics.quantiles(values, n=100, method="inclusive")[98] if len(values) > 1 else 0


def verdict(passed: bool) -> str:
    return "PASS" if passed else "MISS"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--devices", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--sqlite-rows", type=int, default=200_000, help="0: skip SQLite")
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
        fixture = asyncio.run(fill(url, args.devices, args.rows))
        with tempfile.TemporaryDirectory(prefix="energyhub-retention-") as tmp:
            before = run_phase(url, fixture, 0, args.seconds, None, Path(tmp))
            pruning = run_phase(url, fixture, 90, args.seconds, args.rows, Path(tmp))
            report(before, pruning, args.rows)
            if args.sqlite_rows:
                print(asyncio.run(sqlite_batches(args.sqlite_rows, Path(tmp))))
    except BenchError as error:
        print(f"bench failed: {error}", file=sys.stderr)
        return 1
    finally:
        asyncio.run(_admin(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    return 0


if __name__ == "__main__":
    sys.exit(main())
