"""Pushes (POST /battery/{id}) on SQLite and PostgreSQL: immediate-push throughput against the
pgbench ceiling, and how late the dispatcher starts scheduled pushes.

For each database it measures, with the real service (`energyhub serve --no-demo`) running
as a subprocess on a freshly filled database (one account, one sandbox key, N batteries in
UTC):

1. Immediate pushes per second, each to its own device (no conflicts, one push per device):
   `wrk` drives `{"action": {"command": "charge"}}` with a Lua script that walks the device
   list once, for `--duration` seconds or until the devices run out; every answer must be a
   200. Prints pushes/s, p50/p99 latency and the service's CPU time per push. Sandbox
   completions are pushed an hour out so they do not compete.
2. The pgbench ceiling (PostgreSQL): `pgbench -c 8 -j 2 -M prepared` running a comparable
   one-insert, one-update transaction on its own tables in the bench database, and the ratio
   pushes/s / pgbench TPS (target >= 0.2 on PostgreSQL; SQLite's ratio against the same TPS
   is printed for reference only).
3. Scheduler lateness: a fresh database with `--scheduled` devices (2,000), as many
   scheduled pushes created through the API before their window, their starts spread evenly
   over `--spread` whole seconds (10); the window starts once creating them all is over, at
   the creation rate measured first; lateness = acknowledgedAt - start of each (target p99
   < 1 s). `--scheduled 10000 --spread 60` is the goal's own case.

Exits 0 whether targets pass or miss (it is a measurement); 1 if a setup fails or the service
answers anything unexpected. Subprocesses are stopped on exit and on Ctrl-C. Without `wrk`
it falls back to a Python load generator (labelled; it shares the CPU with the service).

Run: `.venv/bin/python bench/push.py [--database sqlite|postgres|both] [--devices 6000]
[--connections 32] [--duration 10] [--scheduled 2000] [--spread 10]`. PostgreSQL:
`ENERGYHUB_BENCH_POSTGRES_URL` (default
postgresql+asyncpg://postgres@127.0.0.1:5432/energyhub_bench); that database is dropped and
re-created on every run (its name must contain "bench"). `--profile DIR` samples the service
with py-spy during step 1 and prints where the time goes (figures then run lower).
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
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import aiohttp
import httpx
from _processes import (  # bench/ is on sys.path
    BenchError,
    cpu_seconds,
    free_port,
    running,
    wait_healthy,
)
from sqlalchemy.engine import make_url

from energyhub.bootstrap import build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.capabilities import DeviceType

BIN_DIR = Path(sys.executable).parent
DEFAULT_POSTGRES_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/energyhub_bench"
TARGET_RATIO = 0.2
TARGET_LATENESS_P99_S = 1.0
RESULT_MARK = "BENCH_RESULT "
PUSH_BODY: dict[str, object] = {"action": {"command": "charge"}}
WARMUP_PER_CONNECTION = 2  # pushes before the measurement (fill the pool), not counted
SCHEDULE_SPREAD_S = 10
SCHEDULE_MARGIN_S = 5.0  # between the end of creating the scheduled pushes and the window
SCHEDULE_CALIBRATION = 0.05  # the share of scheduled pushes first created to time creation
USERS = 100  # the batteries belong to this many users
PGBENCH_CLIENTS = 8
PGBENCH_THREADS = 2


@dataclass(frozen=True, slots=True)
class PushResult:
    generator: str
    devices: int  # devices walked by the load generator
    sent: int
    answered: int
    seconds: float
    p50_ms: float
    p99_ms: float
    cpu_s: float  # the service's utime + stime during the run
    ran_out: bool

    @property
    def rate(self) -> float:
        return self.answered / self.seconds if self.seconds > 0 else 0.0

    @property
    def cpu_ms_per_push(self) -> float:
        return self.cpu_s / self.answered * 1e3 if self.answered else float("nan")


@dataclass(frozen=True, slots=True)
class LatenessResult:
    scheduled: int
    dispatched: int
    states: dict[str, int]
    p50_s: float
    p99_s: float
    max_s: float
    creation_s: float
    slack_s: float  # time left between the end of creation and the window's start


@dataclass(slots=True)
class DatabaseReport:
    name: str
    push: PushResult | None = None
    pgbench_tps: float | None = None
    lateness: LatenessResult | None = None
    error: str | None = None
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Fixture:
    key: str
    device_ids: list[str]


# --- processes (copied from bench/device_read.py rather than imported: its helpers'
# signatures changed while this was written) -----------------------------------------


# Idle connections expire before uvicorn's 5 s keep-alive does, so a request never races
# the server closing its connection (httpx does not retry a POST on that ReadError).
CLIENT_LIMITS = httpx.Limits(keepalive_expiry=2.0)


class Postgres:
    """The bench database on a PostgreSQL server, driven with the client tools."""

    def __init__(self, url: str) -> None:
        parsed = make_url(url)
        if not parsed.drivername.startswith("postgresql"):
            raise BenchError(f"ENERGYHUB_BENCH_POSTGRES_URL is not a PostgreSQL URL: {url}")
        if not parsed.database or "bench" not in parsed.database:
            raise BenchError(
                f"refusing to drop database {parsed.database!r}: its name must contain 'bench'"
            )
        self.url = url
        self.database = parsed.database
        self.connect = [
            "-h",
            parsed.host or "127.0.0.1",
            "-p",
            str(parsed.port or 5432),
            "-U",
            parsed.username or "postgres",
        ]
        self.env = {**os.environ}
        if parsed.password:
            self.env["PGPASSWORD"] = parsed.password

    def run(self, tool: str, *args: str, timeout: float = 120.0) -> str:
        path = shutil.which(tool)
        if path is None:
            raise BenchError(f"{tool} not found (apt-get install -y postgresql-client)")
        done = subprocess.run(
            [path, *self.connect, *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise BenchError(f"{tool} {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
        return done.stdout

    def reachable(self) -> bool:
        try:
            self.run("psql", "-d", "postgres", "-Atqc", "select 1", timeout=10)
        except (BenchError, subprocess.TimeoutExpired):
            return False
        return True

    def recreate(self) -> None:
        self.run("dropdb", "--if-exists", "--force", self.database)
        self.run("createdb", self.database)

    def psql(self, *statements: str) -> None:
        """Each statement in its own transaction."""
        commands = [arg for sql in statements for arg in ("-c", sql)]
        self.run("psql", "-d", self.database, "-v", "ON_ERROR_STOP=1", "-Atq", *commands)


def pgbench_tps(pg: Postgres, devices: int, duration: int, tmp: Path) -> float:
    """Creates `bench_devices` (N rows) and `bench_actions`, then runs one INSERT + one
    UPDATE per transaction with prepared statements; returns TPS without connection time."""
    pg.psql(
        "SET client_min_messages = warning; DROP TABLE IF EXISTS bench_actions, bench_devices",
        "CREATE TABLE bench_devices (id int PRIMARY KEY, state text NOT NULL,"
        " updated_at timestamptz NOT NULL)",
        f"INSERT INTO bench_devices SELECT g, 'idle', now() FROM generate_series(1, {devices}) g",
        "CREATE TABLE bench_actions (id bigserial PRIMARY KEY, device_id int NOT NULL,"
        " payload jsonb NOT NULL, created_at timestamptz NOT NULL)",
        "CREATE INDEX ON bench_actions (device_id)",
        "VACUUM ANALYZE bench_devices",
    )
    script = tmp / "pgbench_push.sql"
    script.write_text(
        f"\\set d random(1, {devices})\n"
        "BEGIN;\n"
        "INSERT INTO bench_actions (device_id, payload, created_at)"
        ' VALUES (:d, \'{"command": "charge"}\', now());\n'
        "UPDATE bench_devices SET state = 'charge', updated_at = now() WHERE id = :d;\n"
        "END;\n"
    )
    out = pg.run(
        "pgbench",
        "-n",
        "-c",
        str(PGBENCH_CLIENTS),
        "-j",
        str(PGBENCH_THREADS),
        "-T",
        str(duration),
        "-M",
        "prepared",
        "-f",
        str(script),
        pg.database,
        timeout=duration + 60,
    )
    for line in out.splitlines():
        if line.startswith("tps = "):
            return float(line.split()[2])
    raise BenchError(f"no TPS in pgbench output:\n{out}")


# --- data --------------------------------------------------------------------------------


async def create_fixture(database_url: str, devices: int) -> Fixture:
    """One account, one sandbox key and `devices` sandbox batteries in UTC over 100 users."""
    container = await build_container(Settings(database_url=database_url))
    try:
        services = container.services
        account = await services.accounts.create_account("bench")
        created = await services.accounts.create_key(account.id, Environment.SANDBOX)
        principal = Principal(account.id, Environment.SANDBOX, created.api_key.id)
        gate = asyncio.Semaphore(8 if container.settings.is_sqlite else 16)

        async def one(i: int) -> str:
            async with gate:
                view = await services.sandbox.create_device(
                    principal, DeviceType.BATTERY, f"user-{i % USERS}", timezone="UTC"
                )
                return view.device.id

        # Each user's first device creates the user: make those before the rest, so that
        # two devices never race to create the same user.
        users = min(USERS, devices)
        ids = await asyncio.gather(*(one(i) for i in range(users)))
        ids += await asyncio.gather(*(one(i) for i in range(users, devices)))
        return Fixture(created.key, list(ids))
    finally:
        await container.aclose()


def filled(database_url: str, devices: int) -> Fixture:
    began = time.perf_counter()
    fixture = asyncio.run(create_fixture(database_url, devices))
    print(f"  created {devices} batteries in {time.perf_counter() - began:.1f}s", flush=True)
    return fixture


@contextmanager
def service(
    database_url: str,
    completion_delay_s: float,
    tmp: Path,
    label: str,
    separate_worker: bool = False,
) -> Iterator[tuple[str, int, int]]:
    """`energyhub serve --no-demo` on a free port; yields (base URL, port, pid). With
    `separate_worker`, it serves with `--no-workers` beside an `energyhub worker` process."""
    env = {
        **os.environ,
        "ENERGYHUB_DATABASE_URL": database_url,
        "ENERGYHUB_RATE_LIMIT_SANDBOX": "100000000",
        "ENERGYHUB_LOG_LEVEL": "WARNING",
        "ENERGYHUB_SANDBOX_COMPLETION_DELAY_S": str(completion_delay_s),
    }
    port = free_port()
    log = tmp / f"service-{label}.log"
    argv = [str(BIN_DIR / "energyhub"), "serve", "--no-demo", "--port", str(port)]
    with ExitStack() as stack:
        if separate_worker:
            argv.append("--no-workers")
            worker = [str(BIN_DIR / "energyhub"), "worker"]
            stack.enter_context(running(worker, env, tmp / f"worker-{label}.log", "worker"))
        proc = stack.enter_context(running(argv, env, log))
        base = f"http://127.0.0.1:{port}"
        wait_healthy(base, proc, log)
        yield base, port, proc.pid


async def push_each(
    base: str,
    key: str,
    bodies: list[tuple[str, dict[str, object]]],
    expect: int,
    concurrency: int,
) -> list[dict[str, object]]:
    """POSTs each (device id, body) once; every answer must be `expect`; returns the data.
    With aiohttp: the client shares the cores with the service, and httpx here makes ~370
    requests/s against the bare app where aiohttp makes ~3,400/s."""
    # Idle connections expire before uvicorn's 5 s keep-alive does (as CLIENT_LIMITS).
    connector = aiohttp.TCPConnector(limit=concurrency, keepalive_timeout=2.0)
    async with aiohttp.ClientSession(
        base,
        headers={"x-api-key": key},
        connector=connector,
        timeout=aiohttp.ClientTimeout(total=60.0),
    ) as session:
        gate = asyncio.Semaphore(concurrency)

        async def one(device_id: str, body: dict[str, object]) -> dict[str, object]:
            async with gate, session.post(f"/battery/{device_id}", json=body) as response:
                text = await response.text()
            if response.status != expect:
                raise BenchError(
                    f"POST /battery/{device_id} {body}: {response.status} (expected "
                    f"{expect}) {text[:500]}"
                )
            data: dict[str, object] = json.loads(text)["data"]
            return data

        return list(await asyncio.gather(*(one(d, b) for d, b in bodies)))


# --- step 1: immediate pushes ------------------------------------------------------------

LUA_TEMPLATE = """\
-- Walks the device list once: delay() hands out one device per request and parks the
-- connection when none is left; the thread stops after the last answer.
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_usec; } bench_timeval;
int gettimeofday(bench_timeval *tv, void *tz);
]]
local tv = ffi.new("bench_timeval")
local function now_us()
  ffi.C.gettimeofday(tv, nil)
  return tonumber(tv.tv_sec) * 1000000 + tonumber(tv.tv_usec)
end

local ids = {%(ids)s}
local key = %(key)s
local body = %(body)s
local nthreads = %(threads)d
local threads = {}
local mine = {}

tid = 0
granted = 0
sent = 0
answered = 0
bad = 0
first_bad = ""
first_us = 0
last_us = 0
devices = 0

function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end

function init(args)
  local headers = {["content-type"] = "application/json", ["x-api-key"] = key}
  for n = tid + 1, #ids, nthreads do
    mine[#mine + 1] = wrk.format("POST", "/battery/" .. ids[n], headers, body)
  end
  devices = #mine
end

function delay()
  if granted < #mine then
    granted = granted + 1
    return 0
  end
  return 3600000
end

function request()
  if sent >= granted then
    return mine[1]  -- wrk's one-off check of the request format: never sent
  end
  sent = sent + 1
  if sent == 1 then first_us = now_us() end
  return mine[sent]
end

function response(status, headers, body)
  answered = answered + 1
  last_us = now_us()
  if status ~= 200 then
    bad = bad + 1
    if first_bad == "" then
      first_bad = status .. " " .. string.gsub(string.sub(body, 1, 300), '[%%c"\\\\]', " ")
    end
  end
  if answered == #mine then wrk.thread:stop() end
end

function done(summary, latency, _requests)
  local t = {devices = 0, sent = 0, answered = 0, bad = 0, first = 0, last = 0, first_bad = ""}
  for _, thread in ipairs(threads) do
    t.devices = t.devices + thread:get("devices")
    t.sent = t.sent + thread:get("sent")
    t.answered = t.answered + thread:get("answered")
    t.bad = t.bad + thread:get("bad")
    local f, l = thread:get("first_us"), thread:get("last_us")
    if f > 0 and (t.first == 0 or f < t.first) then t.first = f end
    if l > t.last then t.last = l end
    if t.first_bad == "" then t.first_bad = thread:get("first_bad") end
  end
  local e = summary.errors
  io.write(string.format(
    '%(mark)s{"devices":%%d,"sent":%%d,"answered":%%d,"bad":%%d,"first_bad":"%%s",'
    .. '"first_us":%%.0f,"last_us":%%.0f,"requests":%%d,"p50_us":%%d,"p99_us":%%d,'
    .. '"connect":%%d,"read":%%d,"write":%%d,"timeout":%%d}\\n',
    t.devices, t.sent, t.answered, t.bad, t.first_bad, t.first, t.last, summary.requests,
    latency:percentile(50), latency:percentile(99), e.connect, e.read, e.write, e.timeout))
end
"""


def run_wrk(
    base: str, fixture: Fixture, connections: int, duration: int, threads: int, tmp: Path
) -> tuple[int, int, int, float, float, float, bool]:
    """(devices, sent, answered, seconds, p50 ms, p99 ms, ran out); raises on any answer
    other than 200 and on socket errors."""
    lua = tmp / "push.lua"
    lua.write_text(
        LUA_TEMPLATE
        % {
            "ids": ", ".join(json.dumps(d) for d in fixture.device_ids),
            "key": json.dumps(fixture.key),
            "body": json.dumps(json.dumps(PUSH_BODY)),
            "threads": threads,
            "mark": RESULT_MARK,
        }
    )
    argv = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--latency"]
    argv += ["--timeout", f"{max(30, duration)}s", "-s", str(lua), base]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=duration + 120)
    lines = [line for line in done.stdout.splitlines() if line.startswith(RESULT_MARK)]
    if done.returncode != 0 or not lines:
        raise BenchError(f"wrk failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    r = json.loads(lines[-1][len(RESULT_MARK) :])
    if r["bad"]:
        raise BenchError(f"{r['bad']} pushes answered other than 200; first: {r['first_bad']}")
    errors = {k: r[k] for k in ("connect", "read", "write", "timeout")}
    if any(errors.values()):
        raise BenchError(f"wrk saw socket errors {errors}")
    if r["answered"] != r["requests"]:
        raise BenchError(f"wrk counted {r['requests']} answers, the script {r['answered']}")
    seconds = (r["last_us"] - r["first_us"]) / 1e6
    ran_out = r["answered"] == r["devices"]
    return (
        r["devices"],
        r["sent"],
        r["answered"],
        seconds,
        r["p50_us"] / 1e3,
        r["p99_us"] / 1e3,
        ran_out,
    )


async def _python_pushes(
    port: int, fixture: Fixture, connections: int, duration: float
) -> tuple[int, int, float, list[float]]:
    """Keep-alive HTTP/1.1 over raw asyncio streams, one device per request, until the
    devices run out or the time is up; every answer must be a 200."""
    body = json.dumps(PUSH_BODY).encode()
    head = (
        f"HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: {fixture.key}\r\n"
        f"content-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n"
    ).encode()
    pending = iter(fixture.device_ids)
    latencies: list[float] = []
    sent = 0
    start = time.perf_counter()
    deadline = start + duration

    async def connection() -> None:
        nonlocal sent
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            while time.perf_counter() < deadline:
                device_id = next(pending, None)
                if device_id is None:
                    return
                sent += 1
                began = time.perf_counter()
                writer.write(f"POST /battery/{device_id} ".encode() + head + body)
                status_line = await reader.readuntil(b"\r\n")
                headers = (await reader.readuntil(b"\r\n\r\n")).lower()
                at = headers.index(b"content-length:") + len(b"content-length:")
                answer = await reader.readexactly(int(headers[at : headers.index(b"\r\n", at)]))
                if status_line.split(b" ", 2)[1] != b"200":
                    raise BenchError(f"push answered {status_line!r}: {answer[:300]!r}")
                latencies.append(time.perf_counter() - began)
        finally:
            writer.close()

    await asyncio.gather(*(connection() for _ in range(connections)))
    return sent, len(latencies), time.perf_counter() - start, latencies


def run_python_pushes(
    port: int, fixture: Fixture, connections: int, duration: int
) -> tuple[int, int, int, float, float, float, bool]:
    import uvloop

    sent, answered, seconds, latencies = uvloop.run(
        _python_pushes(port, fixture, connections, duration)
    )
    if len(latencies) < 2:
        raise BenchError("the python load generator completed fewer than 2 pushes")
    cuts = statistics.quantiles(latencies, n=100, method="inclusive")
    devices = len(fixture.device_ids)
    return devices, sent, answered, seconds, cuts[49] * 1e3, cuts[98] * 1e3, sent == devices


@contextmanager
def profiled(pid: int, duration: int, out: Path | None) -> Iterator[None]:
    """py-spy samples the service (raw collapsed stacks) while the block runs."""
    if out is None:
        yield
        return
    spy = shutil.which("py-spy") or str(BIN_DIR / "py-spy")
    if not Path(spy).exists():
        raise BenchError("--profile needs py-spy: .venv/bin/pip install py-spy")
    argv = [spy, "record", "--pid", str(pid), "--duration", str(duration + 2), "--rate", "200"]
    argv += ["--format", "raw", "--nonblocking", "-o", str(out)]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(1.0)  # let it attach
    try:
        yield
    finally:
        proc.send_signal(2)  # SIGINT: py-spy writes what it has and exits
        try:
            _, stderr = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, stderr = proc.communicate()
        if not out.exists():
            print(f"  py-spy wrote nothing: {stderr.decode(errors='replace')[-500:]}")


def print_profile(raw: Path, top: int = 12) -> None:
    """Where the service's busy samples are, from py-spy's collapsed stacks: by package of
    the innermost frame (self time), by package anywhere on the stack (inclusive), the
    busiest functions, and energyhub's own functions (inclusive). SQLAlchemy runs queries in
    greenlets, so some stacks start mid-request: shares are lower bounds."""
    leaf: Counter[str] = Counter()
    anywhere: Counter[str] = Counter()
    functions: Counter[str] = Counter()
    ours: Counter[str] = Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        total += count
        frames = []
        for frame in stack.split(";"):
            func, _, where = frame.partition(" (")
            path = where.rsplit(":", 1)[0]
            parts = path.split("/")
            package = "/".join(parts[:2]) if parts[0] == "energyhub" else parts[0]
            frames.append((package.removesuffix(".py"), f"{path}:{func}"))
        leaf[frames[-1][0]] += count
        functions[frames[-1][1]] += count
        for package in {p for p, _ in frames}:
            anywhere[package] += count
        for name in {n for p, n in frames if p.startswith("energyhub/")}:
            if not name.startswith(("energyhub/cli/", "energyhub/api/gateway.py")):
                ours[name] += count
    if not total:
        print("  (no samples)")
        return
    print(f"  py-spy: {total} busy samples; by package (self / anywhere on the stack):")
    for package, count in leaf.most_common(top):
        print(f"    {package:<28} {count / total:6.1%} / {anywhere[package] / total:6.1%}")
    print("  busiest functions (self):")
    for name, count in functions.most_common(top):
        print(f"    {count / total:6.1%}  {name}")
    print("  energyhub functions (inclusive):")
    for name, count in ours.most_common(top):
        print(f"    {count / total:6.1%}  {name}")


def measure_pushes(
    name: str,
    database_url: str,
    args: argparse.Namespace,
    tmp: Path,
) -> PushResult:
    warmups = WARMUP_PER_CONNECTION * args.connections
    fixture = filled(database_url, args.devices + warmups)
    warmup, measured = fixture.device_ids[:warmups], fixture.device_ids[warmups:]
    with ExitStack() as local:
        base, port, pid = local.enter_context(service(database_url, 3600.0, tmp, f"{name}-push"))
        bodies: list[tuple[str, dict[str, object]]] = [(d, PUSH_BODY) for d in warmup]
        asyncio.run(push_each(base, fixture.key, bodies, 200, args.connections))
        load = Fixture(fixture.key, measured)
        profile = args.profile / f"push-{name}.txt" if args.profile else None
        before = cpu_seconds(pid)
        with profiled(pid, args.duration, profile):
            if shutil.which("wrk"):
                generator = "wrk"
                figures = run_wrk(base, load, args.connections, args.duration, args.threads, tmp)
            else:
                generator = "python"
                figures = run_python_pushes(port, load, args.connections, args.duration)
        cpu = cpu_seconds(pid) - before
    devices, sent, answered, seconds, p50, p99, ran_out = figures
    result = PushResult(generator, devices, sent, answered, seconds, p50, p99, cpu, ran_out)
    why = "the devices ran out" if ran_out else f"{args.duration}s were up"
    print(
        f"  {answered} immediate pushes answered 200 ({sent} sent, {warmups} warm-up "
        f"pushes before) in {seconds:.2f}s, until {why}: {result.rate:.0f} pushes/s, "
        f"p50 {p50:.1f} ms, p99 {p99:.1f} ms; the service used {result.cpu_ms_per_push:.2f} "
        f"ms CPU per push ({cpu / seconds:.2f} cores)",
        flush=True,
    )
    if profile is not None and profile.exists():
        print_profile(profile)
    return result


# --- step 3: scheduler lateness ----------------------------------------------------------


async def _list_actions(base: str, key: str) -> list[dict[str, object]]:
    async with httpx.AsyncClient(
        base_url=base, headers={"x-api-key": key}, limits=CLIENT_LIMITS
    ) as client:
        items: list[dict[str, object]] = []
        offset = 0
        while True:
            response = await client.get("/actions", params={"limit": 50, "offset": offset})
            if response.status_code != 200:
                raise BenchError(f"GET /actions: {response.status_code} {response.text[:300]}")
            data = response.json()["data"]
            items += data["items"]
            if not data["pagination"]["hasMore"]:
                return items
            offset += 50


async def _waiting(base: str, key: str) -> int:
    """How many actions are still scheduled or deferred."""
    async with httpx.AsyncClient(
        base_url=base, headers={"x-api-key": key}, limits=CLIENT_LIMITS
    ) as client:
        total = 0
        for state in ("scheduled", "deferred"):
            response = await client.get("/actions", params={"state": state, "limit": 1})
            if response.status_code != 200:
                raise BenchError(f"GET /actions: {response.status_code} {response.text[:300]}")
            total += int(response.json()["data"]["pagination"]["total"])
        return total


def _parse(value: object) -> datetime:
    assert isinstance(value, str)
    return datetime.fromisoformat(value)


def measure_lateness(
    name: str,
    database_url: str,
    args: argparse.Namespace,
    tmp: Path,
    fixture: Fixture | None = None,
    separate_worker: bool = False,
) -> LatenessResult:
    """`args.scheduled` pushes due over `args.spread` seconds, created through the API
    (`args.connections` at a time) before their window opens; `fixture` needs
    `args.scheduled` * (1 + SCHEDULE_CALIBRATION) devices (made here when not given)."""
    count, spread = args.scheduled, args.spread
    calibration = max(20, math.ceil(count * SCHEDULE_CALIBRATION))
    fixture = fixture or filled(database_url, count + calibration)
    timing = fixture.device_ids[count : count + calibration]
    with service(database_url, 1.0, tmp, f"{name}-schedule", separate_worker) as (base, *_):
        # The creation rate, timed on pushes due in an hour (they stay scheduled, apart): the
        # window opens once the rest are created at that rate, with a quarter and a margin
        # to spare, so that creating them does not run into it.
        later = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%S")
        began = time.perf_counter()
        bodies: list[tuple[str, dict[str, object]]] = [
            (d, {**PUSH_BODY, "start": later}) for d in timing
        ]
        asyncio.run(push_each(base, fixture.key, bodies, 202, args.connections))
        estimate = count * (time.perf_counter() - began) / len(timing) * 1.25
        first = datetime.now(UTC) + timedelta(seconds=estimate + SCHEDULE_MARGIN_S)
        first = first.replace(microsecond=0) + timedelta(seconds=1)
        starts = [first + timedelta(seconds=i * spread // count) for i in range(count)]
        bodies = [
            (d, {**PUSH_BODY, "start": s.strftime("%Y-%m-%dT%H:%M:%S")})
            for d, s in zip(fixture.device_ids[:count], starts, strict=True)
        ]
        began = time.perf_counter()
        created = asyncio.run(push_each(base, fixture.key, bodies, 202, args.connections))
        creation = time.perf_counter() - began
        slack = (first - datetime.now(UTC)).total_seconds()
        if any(c["state"] != "scheduled" for c in created):
            raise BenchError("a scheduled push was not answered with state 'scheduled'")
        print(
            f"  created {count} scheduled pushes in {creation:.1f}s "
            f"({count / creation:.0f}/s); their window starts {slack:.1f}s later and lasts "
            f"{spread}s",
            flush=True,
        )
        window_end = first + timedelta(seconds=spread)
        time.sleep(max(0.0, (window_end - datetime.now(UTC)).total_seconds()) + 0.5)
        give_up = time.monotonic() + 120
        while (
            left := asyncio.run(_waiting(base, fixture.key)) - len(timing)
        ) > 0 and time.monotonic() < give_up:
            time.sleep(0.5)
        actions = asyncio.run(_list_actions(base, fixture.key))
    ours = {str(c["id"]) for c in created}
    mine = [a for a in actions if a["id"] in ours]
    states = Counter(str(a["state"]) for a in mine)
    late = sorted(
        (_parse(a["acknowledgedAt"]) - _parse(a["start"])).total_seconds()
        for a in mine
        if a["acknowledgedAt"] is not None
    )
    if len(late) >= 2:
        cuts = statistics.quantiles(late, n=100, method="inclusive")
        p50, p99, worst = cuts[49], cuts[98], late[-1]
    else:
        p50 = p99 = worst = float("nan")
    result = LatenessResult(count, len(late), dict(states), p50, p99, worst, creation, slack)
    print(
        f"  dispatched {len(late)}/{count} ({', '.join(f'{k} {v}' for k, v in states.items())}"
        f"{f'; {left} still waiting' if left else ''}): lateness p50 {p50:.3f}s, "
        f"p99 {p99:.3f}s, max {worst:.3f}s",
        flush=True,
    )
    return result


# --- report ------------------------------------------------------------------------------


def fmt(value: float | None, spec: str) -> str:
    return "-" if value is None or math.isnan(value) else format(value, spec)


def print_summary(reports: list[DatabaseReport], args: argparse.Namespace) -> None:
    tps = next((r.pgbench_tps for r in reports if r.pgbench_tps), None)
    print()
    print(
        f"Summary: immediate pushes with {args.connections} connections for up to "
        f"{args.duration}s over {args.devices} devices; pgbench -c {PGBENCH_CLIENTS} "
        f"-j {PGBENCH_THREADS} -M prepared; {args.scheduled} scheduled pushes over "
        f"{args.spread}s"
    )
    header = (
        f"{'database':<9} {'pushes':>6} {'push/s':>7} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'CPU ms':>6} {'pgbench':>8} {'ratio':>6} {'late p50':>8} {'late p99':>8} "
        f"{'late max':>8} {'dispatched':>10}"
    )
    print(header)
    print("-" * len(header))
    for r in reports:
        if r.error is not None:
            print(f"{r.name:<9} FAILED: {r.error.splitlines()[0][:90]}")
            continue
        p, lt = r.push, r.lateness
        ratio = p.rate / tps if p and tps else None
        print(
            f"{r.name:<9} {p.answered if p else 0:>6} {fmt(p.rate if p else None, '.0f'):>7} "
            f"{fmt(p.p50_ms if p else None, '.1f'):>7} {fmt(p.p99_ms if p else None, '.1f'):>7} "
            f"{fmt(p.cpu_ms_per_push if p else None, '.2f'):>6} "
            f"{fmt(tps if r.name == 'postgres' else None, '.0f'):>8} {fmt(ratio, '.3f'):>6} "
            f"{fmt(lt.p50_s if lt else None, '.3f'):>8} {fmt(lt.p99_s if lt else None, '.3f'):>8} "
            f"{fmt(lt.max_s if lt else None, '.3f'):>8} "
            f"{f'{lt.dispatched}/{lt.scheduled}' if lt else '-':>10}"
        )
    print("-" * len(header))
    print(
        "pushes: answered 200 in the measurement; CPU ms: service CPU per push; late: "
        "acknowledgedAt - start in seconds"
    )
    print()
    for r in reports:
        if r.error is not None:
            print(f"FAIL  {r.name}: {r.error}")
            continue
        if r.push is not None:
            if tps is None:
                print(f"n/a   {r.name}: pushes/s / pgbench TPS (no PostgreSQL to run pgbench)")
            elif r.name == "postgres":
                ratio = r.push.rate / tps
                verdict = "PASS" if ratio >= TARGET_RATIO else "MISS"
                print(
                    f"{verdict}  postgres: pushes/s / pgbench TPS >= {TARGET_RATIO}: "
                    f"{ratio:.3f} ({r.push.rate:.0f} pushes/s / {tps:.0f} TPS)"
                )
            else:
                print(
                    f"ref   {r.name}: SQLite pushes/s / PostgreSQL pgbench TPS (reference, "
                    f"no target): {r.push.rate / tps:.3f} ({r.push.rate:.0f} / {tps:.0f})"
                )
        lt = r.lateness
        if lt is not None:
            ok = lt.dispatched == lt.scheduled and lt.p99_s < TARGET_LATENESS_P99_S
            print(
                f"{'PASS' if ok else 'MISS'}  {r.name}: scheduler lateness p99 < "
                f"{TARGET_LATENESS_P99_S:.0f} s: {fmt(lt.p99_s, '.3f')} s "
                f"({lt.dispatched}/{lt.scheduled} dispatched)"
            )
        for note in r.notes:
            print(f"note  {r.name}: {note}")
    if reports and reports[0].push and reports[0].push.generator != "wrk":
        print("NOTE: Python load generator (wrk missing): it competes with the service for CPU.")


# --- main --------------------------------------------------------------------------------


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument(
        "--devices",
        type=int,
        default=6000,
        help="devices for step 1: each takes one push, so they bound the measured window "
        "(6,000 give PostgreSQL ~3 s; with 2,000 the ~1 s window is mostly start-up noise)",
    )
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--duration", type=int, default=10, help="seconds for steps 1 and 2")
    parser.add_argument("--threads", type=int, default=1, help="wrk threads")
    parser.add_argument("--scheduled", type=int, default=2000, help="pushes for step 3")
    parser.add_argument(
        "--spread", type=int, default=SCHEDULE_SPREAD_S, help="seconds their starts span"
    )
    parser.add_argument("--profile", type=Path, help="py-spy raw stacks of step 1 go here")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (logs, db)")
    return parser.parse_args()


def bench_database(
    name: str, args: argparse.Namespace, pg: Postgres | None, tmp: Path, report: DatabaseReport
) -> None:
    def fresh(step: str) -> str:
        if name == "sqlite":
            return f"sqlite+aiosqlite:///{tmp / f'{step}.db'}"
        assert pg is not None
        pg.recreate()
        return pg.url

    print(f"[{name}] 1. immediate pushes", flush=True)
    report.push = measure_pushes(name, fresh("push"), args, tmp)
    if name == "postgres":
        assert pg is not None
        print(f"[{name}] 2. pgbench ceiling", flush=True)
        report.pgbench_tps = pgbench_tps(pg, args.devices, args.duration, tmp)
        print(f"  pgbench: {report.pgbench_tps:.0f} TPS", flush=True)
    print(f"[{name}] 3. scheduler lateness", flush=True)
    report.lateness = measure_lateness(name, fresh("schedule"), args, tmp)
    if report.lateness.slack_s < 1.0:
        report.notes.append(
            f"creating the scheduled pushes ended {report.lateness.slack_s:.1f}s before "
            "their window: the lateness figures may include creation load"
        )


def main() -> int:
    args = parse_args()
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
    names = ["sqlite", "postgres"] if args.database == "both" else [args.database]
    tmp = Path(tempfile.mkdtemp(prefix="energyhub-bench-push-"))
    reports: list[DatabaseReport] = []
    began = time.monotonic()
    try:
        pg: Postgres | None = None
        if "postgres" in names:
            pg = Postgres(os.environ.get("ENERGYHUB_BENCH_POSTGRES_URL", DEFAULT_POSTGRES_URL))
            if not pg.reachable():
                raise BenchError(f"PostgreSQL is not reachable at {pg.url}")
        if not shutil.which("wrk"):
            print(
                "wrk not found (apt-get install -y wrk): using the PYTHON load generator, "
                "which competes with the service for CPU",
                file=sys.stderr,
            )
        for name in names:
            report = DatabaseReport(name)
            reports.append(report)
            try:
                bench_database(name, args, pg, tmp, report)
            except (BenchError, subprocess.TimeoutExpired) as error:
                report.error = str(error)
                print(f"[{name}] FAILED: {error}", file=sys.stderr, flush=True)
        print_summary(reports, args)
        print(f"\ntotal time {time.monotonic() - began:.0f}s")
        return 1 if any(r.error for r in reports) else 0
    except BenchError as error:
        print(f"FAILED: {error}", file=sys.stderr)
        return 1
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
