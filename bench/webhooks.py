"""Webhook delivery: deliveries per second to a local receiver, and the time from an event to
its first attempt (issue 4, point 8), on SQLite and PostgreSQL.

For each database, on a fresh database filled in process (one account, one sandbox key, one
webhook endpoint pointing at the receiver, `--devices` sandbox batteries):

1. Throughput, in `--rounds` rounds: `--events` outbox events (`push.completed`, due at
   once) are written before the service starts; `energyhub serve --no-demo` (all event
   delays 0) then delivers them through its webhook sender (aiohttp, 50 connections) to a
   receiver in its own process (aiohttp + uvloop) that verifies every signature with
   `standardwebhooks`. Each later round writes as many events in one transaction while the
   service runs, then wakes it with one sandbox reconnect. Deliveries/s = deliveries /
   (last arrival - first arrival) at the receiver; the median round counts (target >=
   1,000/s), with the service's CPU time per delivery (the figure that moves least on a
   shared machine).
2. Event -> first attempt: with the service idle, `POST /sandbox/devices/{id}/reconnect` at
   `--rate` per second for `--seconds` (each writes a `device.reconnected` event in the
   request's transaction and wakes the sender). Latency = the first attempt's `at` minus
   the event's `occurred_at`, both from the database: p50 / p99 (target p99 < 1 s).

3. With `--rss` (off by default: it takes a few minutes per database), memory: a fresh
   database with `--rss-endpoints` (20) endpoints of one account and enough events for
   `--rss-deliveries` (100,000) deliveries, all due at the start; the service's RSS is read
   every `--rss-every` (5,000) deliveries seen at the receiver. PASS when RSS at the end is
   less than `--rss-bound` (20 MiB) above RSS after `--rss-warmup` (10,000) deliveries.

Every delivery must arrive exactly once with a valid signature and a 2xx, or the run fails.
Exits 0 whether targets pass or miss (a measurement); 1 if a setup fails.

Run: `.venv/bin/python bench/webhooks.py [--database sqlite|postgres|both] [--events 10000]
[--devices 50] [--rate 100] [--seconds 10] [--rss] [--keep]`. PostgreSQL comes from
`ENERGYHUB_BENCH_WEBHOOKS_POSTGRES_URL` (default
postgresql+asyncpg://postgres@127.0.0.1:5432/energyhub_webhooks_bench); that database is
dropped and re-created per run (its name must contain "bench"). `receiver` runs the receiver
alone: `.venv/bin/python bench/webhooks.py receiver --port 9000 --secret whsec_...`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from _processes import BenchError, cpu_seconds, free_port, running  # bench/ is on sys.path

BIN_DIR = Path(sys.executable).parent
DEFAULT_POSTGRES_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/energyhub_webhooks_bench"
TARGET_RATE = 1000.0
TARGET_P99_S = 1.0
RSS_GROWTH_BOUND_MIB = 20.0
"""Step 3 passes when RSS after the warm-up grows by less than this over the run."""


def run_receiver(port: int, secret: str, path_secrets: dict[str, str]) -> None:
    """Verifies each request's signature (with `path_secrets[path]`, else `secret`), answers
    204, and keeps when each webhook-id first arrived; `GET /stats` reports them."""
    import uvloop
    from aiohttp import web
    from standardwebhooks import Webhook, WebhookVerificationError

    verifier = Webhook(secret) if secret else None
    verifiers = {path: Webhook(s) for path, s in path_secrets.items()}
    arrived: dict[str, float] = {}  # webhook-id -> first arrival, in arrival order
    stats = {"requests": 0, "bad": 0}

    async def hook(request: web.Request) -> web.Response:
        body = await request.read()
        stats["requests"] += 1
        try:
            checker = verifiers.get(request.path, verifier)
            if checker is None:
                raise WebhookVerificationError(f"no secret for {request.path}")
            checker.verify(body, dict(request.headers), json_parse=False)
        except WebhookVerificationError:
            stats["bad"] += 1
            return web.Response(status=401)
        arrived.setdefault(request.headers["webhook-id"], time.time())
        return web.Response(status=204)

    async def report(request: web.Request) -> web.Response:
        """`skip`: leave out the first arrivals (an earlier round's)."""
        times = list(arrived.values())[int(request.query.get("skip", 0)) :]
        return web.json_response(
            {
                **stats,
                "unique": len(arrived),
                "first": min(times, default=0.0),
                "last": max(times, default=0.0),
            }
        )

    app = web.Application()
    app.router.add_post("/hook", hook)
    app.router.add_post("/hook/{n}", hook)
    app.router.add_get("/stats", report)
    uvloop.install()
    web.run_app(app, host="127.0.0.1", port=port, access_log=None, print=None)


# --- processes ---------------------------------------------------------------------------


def get_json(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=2.0) as response:
        data: dict[str, Any] = json.loads(response.read())
        return data


def wait_until_up(url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            get_json(url)
            return
        except OSError:
            pass
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    tail = log.read_text(errors="replace")[-3000:]
    raise BenchError(f"{url} never answered; last output:\n{tail}")


# --- databases ---------------------------------------------------------------------------


def fresh_database(name: str, tmp: Path) -> str:
    if name == "sqlite":
        path = tmp / "webhooks.db"
        path.unlink(missing_ok=True)
        return f"sqlite+aiosqlite:///{path}"
    from sqlalchemy.engine import make_url

    url = os.environ.get("ENERGYHUB_BENCH_WEBHOOKS_POSTGRES_URL", DEFAULT_POSTGRES_URL)
    parsed = make_url(url)
    if not parsed.database or "bench" not in parsed.database:
        raise BenchError(f"refusing to drop database {parsed.database!r}: no 'bench' in it")
    connect = ["-h", parsed.host or "127.0.0.1", "-p", str(parsed.port or 5432)]
    connect += ["-U", parsed.username or "postgres"]
    env = {**os.environ, **({"PGPASSWORD": parsed.password} if parsed.password else {})}
    for tool, args in (("dropdb", ["--if-exists", "--force"]), ("createdb", [])):
        program = shutil.which(tool)
        if program is None:
            raise BenchError(f"{tool} not found (apt-get install -y postgresql-client)")
        done = subprocess.run(
            [program, *connect, *args, parsed.database], env=env, capture_output=True, text=True
        )
        if done.returncode != 0:
            raise BenchError(f"{tool} failed: {done.stderr}")
    return url


@dataclass(frozen=True, slots=True)
class Fixture:
    key: str
    secret: str
    device_ids: list[str]
    account_id: str


async def add_events(
    container: Any, account_id: str, device_ids: list[str], count: int, tag: str
) -> None:
    """`count` push.completed events due now, written as the service would (1,000 a time)."""
    from energyhub.domain.events import OutboxEvent
    from energyhub.domain.webhooks import EventType
    from energyhub.services.ids import prefixed_id

    now = datetime.now(UTC) - timedelta(seconds=1)
    batches = []
    for start in range(0, count, 1000):
        batches.append(
            [
                OutboxEvent(
                    prefixed_id("evt"),
                    account_id,
                    "sandbox",
                    EventType.PUSH_COMPLETED,
                    {
                        "actionId": f"act_{tag}_{n}",
                        "deviceId": device_ids[n % len(device_ids)] if device_ids else "dev",
                        "deviceType": "battery",
                        "command": "charge",
                        "parameters": {"target": {"value": 80, "unit": "percent"}},
                        "result": {"success": True},
                        "completedAt": now.isoformat(),
                    },
                    now,
                    now,
                )
                for n in range(start, min(count, start + 1000))
            ]
        )
    async with container.uow() as tx:  # one transaction: they become due together
        for batch in batches:
            await tx.events.add(batch)


async def add_round(database_url: str, fixture: Fixture, count: int, tag: str) -> None:
    from energyhub.bootstrap import build_container
    from energyhub.config import Settings

    container = await build_container(Settings(database_url=database_url), run_migrations=False)
    try:
        await add_events(container, fixture.account_id, fixture.device_ids, count, tag)
    finally:
        await container.aclose()


async def fill(database_url: str, receiver_url: str, events: int, devices: int) -> Fixture:
    """Account, key, endpoint and devices; then only the throughput events in the outbox."""
    from sqlalchemy import delete

    from energyhub.bootstrap import build_container
    from energyhub.config import Settings
    from energyhub.domain.accounts import Environment, Principal
    from energyhub.domain.capabilities import DeviceType
    from energyhub.persistence.tables import webhook_events

    container = await build_container(Settings(database_url=database_url))
    try:
        services = container.services
        account = await services.accounts.create_account("webhook-bench")
        created = await services.accounts.create_key(account.id, Environment.SANDBOX)
        principal = Principal(account.id, Environment.SANDBOX, created.api_key.id)
        device_ids = []
        for n in range(devices):
            view = await services.sandbox.create_device(
                principal, DeviceType.BATTERY, f"user-{n}", timezone="UTC"
            )
            device_ids.append(view.device.id)
        endpoint = await services.webhooks.create_endpoint(principal, receiver_url)
        async with container.engine.begin() as connection:
            await connection.execute(delete(webhook_events))  # the devices' own events
        await add_events(container, account.id, device_ids, events, "fill")
        return Fixture(created.key, endpoint.secret, device_ids, account.id)
    finally:
        await container.aclose()


async def first_attempt_latencies(
    database_url: str, event_type: str, since: datetime
) -> list[float]:
    """Seconds from each event of `event_type` since `since` to its delivery's first
    attempt."""
    from sqlalchemy import select

    from energyhub.bootstrap import build_container
    from energyhub.config import Settings
    from energyhub.persistence.tables import webhook_deliveries as d
    from energyhub.persistence.tables import webhook_events as e

    container = await build_container(Settings(database_url=database_url), run_migrations=False)
    try:
        async with container.engine.connect() as connection:
            rows = await connection.execute(
                select(e.c.occurred_at, d.c.attempts)
                .join(d, d.c.event_id == e.c.id)
                .where(e.c.type == event_type, e.c.occurred_at >= since)
            )
            found = []
            for occurred_at, attempts in rows:
                if not attempts:
                    raise BenchError("a delivery has no attempt")
                first = datetime.fromisoformat(attempts[0]["at"].replace("Z", "+00:00"))
                occurred = occurred_at if occurred_at.tzinfo else occurred_at.replace(tzinfo=UTC)
                found.append((first - occurred).total_seconds())
            return found
    finally:
        await container.aclose()


# --- steps -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Round:
    deliveries: int
    seconds: float  # first to last arrival at the receiver
    cpu_s: float  # the service's CPU time meanwhile

    @property
    def rate(self) -> float:
        return self.deliveries / self.seconds if self.seconds > 0 else float("nan")

    @property
    def cpu_ms(self) -> float:
        return self.cpu_s / self.deliveries * 1e3


@dataclass(slots=True)
class Report:
    name: str
    rounds: list[Round] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    error: str | None = None
    rss: RssRun | None = None

    @property
    def rate(self) -> float:
        """The median round (the first includes the service's start-up)."""
        return statistics.median(r.rate for r in self.rounds) if self.rounds else float("nan")

    @property
    def cpu_ms(self) -> float:
        return statistics.median(r.cpu_ms for r in self.rounds) if self.rounds else float("nan")

    def percentile(self, p: int) -> float:
        if len(self.latencies) < 2:
            return float("nan")
        return statistics.quantiles(self.latencies, n=100, method="inclusive")[p - 1]


def wait_for_arrivals(stats_url: str, expected: int, timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    stats = get_json(stats_url)
    while stats["unique"] < expected and time.monotonic() < deadline:
        time.sleep(0.2)
        stats = get_json(stats_url)
    if stats["bad"]:
        raise BenchError(f"{stats['bad']} requests failed signature verification")
    if stats["unique"] < expected:
        raise BenchError(f"only {stats['unique']} of {expected} deliveries arrived in time")
    return stats


async def reconnect_at_rate(
    base: str, key: str, device_ids: list[str], rate: float, seconds: float
) -> int:
    import httpx

    count = int(rate * seconds)
    async with httpx.AsyncClient(base_url=base, headers={"x-api-key": key}, timeout=30) as client:
        began = time.perf_counter()
        tasks = []

        async def one(device_id: str) -> None:
            response = await client.post(f"/sandbox/devices/{device_id}/reconnect")
            if response.status_code != 200:
                raise BenchError(f"reconnect: {response.status_code} {response.text[:300]}")

        for n in range(count):
            delay = began + n / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(one(device_ids[n % len(device_ids)])))
        await asyncio.gather(*tasks)
    return count


def bench_database(name: str, args: argparse.Namespace, tmp: Path, report: Report) -> None:
    database_url = fresh_database(name, tmp)
    receiver_port, service_port = free_port(), free_port()
    receiver_url = f"http://127.0.0.1:{receiver_port}/hook"
    stats_url = f"http://127.0.0.1:{receiver_port}/stats"
    began = time.perf_counter()
    fixture = asyncio.run(fill(database_url, receiver_url, args.events, args.devices))
    print(
        f"  filled: {args.devices} devices, {args.events} events "
        f"({time.perf_counter() - began:.1f}s)",
        flush=True,
    )
    env = {
        **os.environ,
        "ENERGYHUB_DATABASE_URL": database_url,
        "ENERGYHUB_RATE_LIMIT_SANDBOX": "100000000",
        "ENERGYHUB_LOG_LEVEL": "WARNING",
        "ENERGYHUB_SANDBOX_PUSH_EVENT_DELAY_S": "0",
        "ENERGYHUB_SANDBOX_LINK_EVENT_DELAY_S": "0",
        "ENERGYHUB_LIVE_EVENT_DELAY_S": "0",
    }
    with ExitStack() as stack:
        receiver = stack.enter_context(
            running(
                [sys.executable, __file__, "receiver", "--port", str(receiver_port)],
                {**os.environ, "BENCH_WEBHOOK_SECRET": fixture.secret},
                tmp / f"receiver-{name}.log",
            )
        )
        wait_until_up(stats_url, receiver, tmp / f"receiver-{name}.log")
        argv = [str(BIN_DIR / "energyhub"), "serve", "--no-demo", "--port", str(service_port)]
        log = tmp / f"service-{name}.log"
        proc = stack.enter_context(running(argv, env, log))
        wait_until_up(f"http://127.0.0.1:{service_port}/healthz", proc, log)
        base = f"http://127.0.0.1:{service_port}"
        for round_ in range(1, args.rounds + 1):
            skip = get_json(stats_url)["unique"] if round_ > 1 else 0  # round 1 has begun
            cpu_before = cpu_seconds(proc.pid)
            expected = args.events
            if round_ > 1:  # the service is running: write the events, then wake it
                asyncio.run(add_round(database_url, fixture, args.events, f"r{round_}"))
                asyncio.run(reconnect_at_rate(base, fixture.key, fixture.device_ids[:1], 1, 1))
                expected += 1
            stats = wait_for_arrivals(f"{stats_url}?skip={skip}", skip + expected, timeout=120)
            cpu = cpu_seconds(proc.pid) - cpu_before
            result = Round(expected, stats["last"] - stats["first"], cpu)
            report.rounds.append(result)
            print(
                f"  1.{round_} {expected} deliveries in {result.seconds:.2f}s: "
                f"{result.rate:.0f}/s; service CPU {result.cpu_ms:.2f} ms per delivery"
                f"{' (the first round includes its start-up)' if round_ == 1 else ''}",
                flush=True,
            )
        deliveries_before = get_json(stats_url)["unique"]
        since = datetime.now(UTC)
        sent = asyncio.run(
            reconnect_at_rate(base, fixture.key, fixture.device_ids, args.rate, args.seconds)
        )
        wait_for_arrivals(stats_url, deliveries_before + sent, timeout=60)
    report.latencies = asyncio.run(
        first_attempt_latencies(database_url, "device.reconnected", since)
    )
    if len(report.latencies) != sent:
        raise BenchError(f"{sent} events sent, {len(report.latencies)} deliveries found")
    print(
        f"  2. {sent} events at {args.rate:g}/s: event -> first attempt p50 "
        f"{report.percentile(50) * 1e3:.1f} ms, p99 {report.percentile(99) * 1e3:.1f} ms, "
        f"max {max(report.latencies) * 1e3:.1f} ms",
        flush=True,
    )


# --- step 3 (--rss): memory over a long run -----------------------------------------------


def rss_mib(pid: int) -> float:
    """The process's resident set size, from /proc/<pid>/status."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise BenchError(f"no VmRSS for process {pid}")


@dataclass(slots=True)
class RssRun:
    samples: list[tuple[int, float]] = field(default_factory=list)  # (deliveries, RSS MiB)
    warmup: int = 0
    seconds: float = 0.0
    cpu_s: float = 0.0

    @property
    def deliveries(self) -> int:
        return self.samples[-1][0] if self.samples else 0

    @property
    def first(self) -> float:
        """RSS at the first sample after the warm-up."""
        return next((mib for n, mib in self.samples if n >= self.warmup), float("nan"))

    @property
    def last(self) -> float:
        return self.samples[-1][1] if self.samples else float("nan")

    @property
    def growth(self) -> float:
        return self.last - self.first


async def fill_rss(
    database_url: str, receiver_base: str, endpoints: int, events: int
) -> dict[str, str]:
    """One account with `endpoints` endpoints (`/hook/<n>`) and `events` events due now, so
    that endpoints x events deliveries follow. Returns each path's secret."""
    from energyhub.bootstrap import build_container
    from energyhub.config import Settings
    from energyhub.domain.accounts import Environment, Principal

    container = await build_container(Settings(database_url=database_url))
    try:
        services = container.services
        account = await services.accounts.create_account("webhook-rss-bench")
        created = await services.accounts.create_key(account.id, Environment.SANDBOX)
        principal = Principal(account.id, Environment.SANDBOX, created.api_key.id)
        secrets = {}
        for n in range(endpoints):
            made = await services.webhooks.create_endpoint(principal, f"{receiver_base}/hook/{n}")
            secrets[f"/hook/{n}"] = made.secret
        await add_events(container, account.id, [], events, "rss")
        return secrets
    finally:
        await container.aclose()


def bench_rss(name: str, args: argparse.Namespace, tmp: Path) -> RssRun:
    """`--rss-deliveries` deliveries (events x `--rss-endpoints` endpoints, all due at the
    start) through a fresh service; its RSS is read every `--rss-every` deliveries seen at
    the receiver."""
    database_url = fresh_database(name, tmp)
    receiver_port, service_port = free_port(), free_port()
    stats_url = f"http://127.0.0.1:{receiver_port}/stats"
    events = math.ceil(args.rss_deliveries / args.rss_endpoints)
    total = events * args.rss_endpoints
    secrets = asyncio.run(
        fill_rss(database_url, f"http://127.0.0.1:{receiver_port}", args.rss_endpoints, events)
    )
    run = RssRun(warmup=args.rss_warmup)
    env = {
        **os.environ,
        "ENERGYHUB_DATABASE_URL": database_url,
        "ENERGYHUB_LOG_LEVEL": "WARNING",
    }
    with ExitStack() as stack:
        log = tmp / f"receiver-rss-{name}.log"
        receiver = stack.enter_context(
            running(
                [sys.executable, __file__, "receiver", "--port", str(receiver_port)],
                {**os.environ, "BENCH_WEBHOOK_SECRETS": json.dumps(secrets)},
                log,
            )
        )
        wait_until_up(stats_url, receiver, log)
        argv = [str(BIN_DIR / "energyhub"), "serve", "--no-demo", "--port", str(service_port)]
        log = tmp / f"service-rss-{name}.log"
        proc = stack.enter_context(running(argv, env, log))
        wait_until_up(f"http://127.0.0.1:{service_port}/healthz", proc, log)
        cpu_before = cpu_seconds(proc.pid)
        run.samples.append((0, rss_mib(proc.pid)))
        next_sample, last_progress, seen = args.rss_every, time.monotonic(), 0
        while seen < total:
            time.sleep(0.1)
            stats = get_json(stats_url)
            if stats["bad"]:
                raise BenchError(f"{stats['bad']} requests failed signature verification")
            if stats["unique"] > seen:
                seen, last_progress = stats["unique"], time.monotonic()
            elif time.monotonic() - last_progress > 60:
                raise BenchError(f"stuck at {seen} of {total} deliveries for 60 s")
            if seen >= next_sample or seen >= total:
                run.samples.append((seen, rss_mib(proc.pid)))
                next_sample = (seen // args.rss_every + 1) * args.rss_every
        run.cpu_s = cpu_seconds(proc.pid) - cpu_before
        run.seconds = stats["last"] - stats["first"]
    print(
        f"  3. {total} deliveries ({events} events x {args.rss_endpoints} endpoints) in "
        f"{run.seconds:.1f}s: {total / run.seconds:.0f}/s, CPU "
        f"{run.cpu_s / total * 1e3:.2f} ms per delivery",
        flush=True,
    )
    print("     RSS MiB by deliveries: " + ", ".join(f"{n}: {m:.0f}" for n, m in run.samples))
    return run


def fmt(value: float, spec: str) -> str:
    return "-" if math.isnan(value) else format(value, spec)


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "receiver":
        parser = argparse.ArgumentParser()
        parser.add_argument("receiver")
        parser.add_argument("--port", type=int, required=True)
        parser.add_argument("--secret", default=os.environ.get("BENCH_WEBHOOK_SECRET"))
        given = parser.parse_args()
        run_receiver(
            given.port, given.secret, json.loads(os.environ.get("BENCH_WEBHOOK_SECRETS", "{}"))
        )
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--events", type=int, default=10_000, help="per round of step 1")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of step 1")
    parser.add_argument("--devices", type=int, default=50)
    parser.add_argument("--rate", type=float, default=100.0, help="events/s in step 2")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of step 2")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (logs, db)")
    parser.add_argument(
        "--rss", action="store_true", help="step 3 too: RSS over --rss-deliveries deliveries"
    )
    parser.add_argument("--rss-deliveries", type=int, default=100_000)
    parser.add_argument("--rss-endpoints", type=int, default=20)
    parser.add_argument("--rss-every", type=int, default=5_000, help="RSS sampling step")
    parser.add_argument("--rss-warmup", type=int, default=10_000, help="deliveries before")
    parser.add_argument(
        "--rss-bound", type=float, default=RSS_GROWTH_BOUND_MIB, help="MiB of growth allowed"
    )
    args = parser.parse_args()
    names = ["sqlite", "postgres"] if args.database == "both" else [args.database]
    tmp = Path(tempfile.mkdtemp(prefix="energyhub-bench-webhooks-"))
    reports: list[Report] = []
    try:
        for name in names:
            print(f"[{name}]", flush=True)
            report = Report(name)
            reports.append(report)
            try:
                bench_database(name, args, tmp, report)
                if args.rss:
                    report.rss = bench_rss(name, args, tmp)
            except (BenchError, subprocess.TimeoutExpired, OSError) as error:
                report.error = str(error)
                print(f"[{name}] FAILED: {error}", file=sys.stderr, flush=True)
        print()
        header = f"{'database':<9} {'rounds/s':>16} {'median':>7} {'CPU ms':>7} {'p50 ms':>7} "
        header += f"{'p99 ms':>7} {'max ms':>7}"
        print(header)
        print("-" * len(header))
        for r in reports:
            if r.error:
                print(f"{r.name:<9} FAILED: {r.error.splitlines()[0][:80]}")
                continue
            top = max(r.latencies, default=float("nan")) * 1e3
            each = " ".join(f"{x.rate:.0f}" for x in r.rounds)
            print(
                f"{r.name:<9} {each:>16} {fmt(r.rate, '.0f'):>7} {fmt(r.cpu_ms, '.2f'):>7} "
                f"{fmt(r.percentile(50) * 1e3, '.1f'):>7} {fmt(r.percentile(99) * 1e3, '.1f'):>7} "
                f"{fmt(top, '.1f'):>7}"
            )
        print()
        for r in reports:
            if r.error:
                continue
            ok = r.rate >= TARGET_RATE
            print(f"{'PASS' if ok else 'MISS'}  {r.name}: >= {TARGET_RATE:.0f} deliveries/s")
            ok = r.percentile(99) < TARGET_P99_S
            print(f"{'PASS' if ok else 'MISS'}  {r.name}: event -> first attempt p99 < 1 s")
            if r.rss is not None:
                rss = r.rss
                ok = rss.growth < args.rss_bound
                print(
                    f"{'PASS' if ok else 'MISS'}  {r.name}: RSS flat over {rss.deliveries} "
                    f"deliveries: {rss.first:.0f} MiB after {rss.warmup} -> {rss.last:.0f} MiB "
                    f"at the end ({rss.growth:+.1f} MiB; bound {args.rss_bound:g} MiB), peak "
                    f"{max(m for _, m in rss.samples):.0f} MiB"
                )
        return 1 if any(r.error for r in reports) else 0
    except KeyboardInterrupt:
        print("interrupted; subprocesses stopped", file=sys.stderr)
        return 130
    finally:
        if args.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
