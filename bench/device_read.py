"""Cached single-device reads (GET /battery/{id}) against the bare-ASGI ceiling.

Builds a fresh SQLite database with one sandbox key and N batteries, starts the real service
(`energyhub serve`) and a bare ASGI app (`bench/bare_app.py`, same uvicorn options, same
body size) as subprocesses, warms the service's read cache with one GET per device, then
drives both with the same `wrk` load (a Lua script rotates the path over the device ids and
sends the key), alternating bare/service rounds because shared machines are noisy. Prints
requests/s, p50/p99 latency and server CPU time per request for each round, the medians, the
service/bare throughput ratio, and PASS/MISS against the targets (ratio >= 0.4, p99 < 20 ms).
Without `wrk` it falls back to a Python load generator (labelled as such; it shares the CPU
with the servers, so its figures are pessimistic). Exits 0 unless the setup fails or the
service answers anything but 200: it is a measurement, not a test.

With `--database postgres` the service runs on a fresh PostgreSQL database instead
(`ENERGYHUB_BENCH_POSTGRES_URL`, default as in `bench/push.py`; it is dropped and created
again), with its channel between processes up: cached reads live until a change is signalled.

Run: `.venv/bin/python bench/device_read.py [--database sqlite|postgres] [--devices 1000]
[--connections 32] [--duration 10] [--rounds 3]`   (install wrk with `apt-get install -y wrk`)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import uvloop
from _processes import (  # bench/ is on sys.path
    CLK_TCK,
    BenchError,
    cpu_seconds,
    free_port,
    http_get,
    running,
    wait_healthy,
)
from push import DEFAULT_POSTGRES_URL, Fixture, Postgres

from energyhub.bootstrap import build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.capabilities import DeviceType

BENCH_DIR = Path(__file__).resolve().parent
BIN_DIR = Path(sys.executable).parent
TARGET_RATIO = 0.4
TARGET_P99_MS = 20.0
RESULT_MARK = "BENCH_RESULT "
BUSY_OTHER_CORES = 0.25  # rounds where the rest of the machine used more are flagged


@dataclass(frozen=True, slots=True)
class RoundResult:
    target: str
    round: int
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    cpu_s: float  # the server's utime + stime during the round
    client_cpu_s: float  # the load generator's
    other_cpu_s: float  # everything else on the machine (other processes, kernel threads)

    @property
    def rps(self) -> float:
        return self.requests / self.seconds

    @property
    def cpu_us_per_request(self) -> float:
        return self.cpu_s / self.requests * 1e6 if self.requests else float("nan")

    @property
    def cpu_cores(self) -> float:
        return self.cpu_s / self.seconds

    @property
    def client_cores(self) -> float:
        return self.client_cpu_s / self.seconds

    @property
    def other_cores(self) -> float:
        return max(0.0, self.other_cpu_s) / self.seconds


# --- data --------------------------------------------------------------------------------


async def create_fixture(database_url: str, devices: int) -> Fixture:
    """One account, one sandbox key and `devices` sandbox batteries over 100 users."""
    container = await build_container(Settings(database_url=database_url))
    try:
        services = container.services
        account = await services.accounts.create_account("bench")
        created = await services.accounts.create_key(account.id, Environment.SANDBOX)
        principal = Principal(account.id, Environment.SANDBOX, created.api_key.id)
        # The engine holds one SQLite connection, so this queues the writes; the concurrency
        # only overlaps the Python work with the database thread.
        gate = asyncio.Semaphore(8)

        async def one(i: int) -> str:
            async with gate:
                view = await services.sandbox.create_device(
                    principal, DeviceType.BATTERY, f"user-{i % 100}"
                )
                return view.device.id

        ids = await asyncio.gather(*(one(i) for i in range(devices)))
        return Fixture(created.key, list(ids))
    finally:
        await container.aclose()


# --- processes ---------------------------------------------------------------------------


def machine_busy_seconds() -> float:
    """CPU time all cores spent busy since boot (/proc/stat: all but idle and iowait)."""
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return (sum(fields) - fields[3] - fields[4]) / CLK_TCK


def own_and_children_cpu_seconds() -> float:
    """This process and its reaped children (wrk): where the load generator runs."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


async def warm_cache(base: str, fixture: Fixture) -> int:
    """One GET per device (each fills the read cache); returns a cache-hit body's length."""
    import httpx

    async with httpx.AsyncClient(base_url=base, headers={"x-api-key": fixture.key}) as client:
        gate = asyncio.Semaphore(8)

        async def one(device_id: str) -> None:
            async with gate:
                response = await client.get(f"/battery/{device_id}")
            if response.status_code != 200:
                raise BenchError(f"warm-up GET /battery/{device_id}: {response.status_code}")

        await asyncio.gather(*(one(d) for d in fixture.device_ids))
        sample = await client.get(f"/battery/{fixture.device_ids[0]}")
        if sample.status_code != 200 or not sample.json().get("success"):
            raise BenchError(f"sample read failed: {sample.status_code} {sample.text[:300]}")
        return len(sample.content)


# --- load generators ---------------------------------------------------------------------

LUA_TEMPLATE = """\
local ids = {%(ids)s}
local key = %(key)s
local requests = {}
local i = 0

function init(args)
  for n, id in ipairs(ids) do
    requests[n] = wrk.format("GET", "/battery/" .. id, {["x-api-key"] = key})
  end
end

function request()
  i = i %% #requests + 1
  return requests[i]
end

function done(summary, latency, _requests)
  local e = summary.errors
  io.write(string.format(
    '%(mark)s{"requests":%%d,"duration_us":%%d,"p50_us":%%d,"p99_us":%%d,'
    .. '"connect":%%d,"read":%%d,"write":%%d,"timeout":%%d,"status":%%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect, e.read, e.write, e.timeout, e.status))
end
"""


def write_lua(path: Path, fixture: Fixture) -> None:
    ids = ", ".join(json.dumps(d) for d in fixture.device_ids)
    path.write_text(
        LUA_TEMPLATE % {"ids": ids, "key": json.dumps(fixture.key), "mark": RESULT_MARK}
    )


def run_wrk(
    base: str, lua: Path, connections: int, duration: int, threads: int
) -> tuple[int, float, float, float]:
    """(requests, seconds, p50 ms, p99 ms); raises if any response was not 2xx/3xx or any
    socket failed. The `request` hook only cycles prebuilt requests and there is no
    `response` hook, so wrk spends its CPU on the wire, not in Lua."""
    argv = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--latency"]
    argv += ["--timeout", f"{max(30, duration)}s"]  # slow answers count in p99, not as errors
    argv += ["-s", str(lua), base]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=duration + 60)
    lines = [line for line in done.stdout.splitlines() if line.startswith(RESULT_MARK)]
    if done.returncode != 0 or not lines:
        raise BenchError(f"wrk failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    result = json.loads(lines[-1][len(RESULT_MARK) :])
    errors = {k: result[k] for k in ("connect", "read", "write", "timeout", "status")}
    if any(errors.values()):
        raise BenchError(f"{base}: wrk saw errors {errors} (status = non-2xx/3xx responses)")
    return (
        result["requests"],
        result["duration_us"] / 1e6,
        result["p50_us"] / 1e3,
        result["p99_us"] / 1e3,
    )


async def _python_load(
    port: int, paths: list[bytes], key: str, connections: int, duration: float
) -> tuple[int, float, list[float]]:
    """Keep-alive HTTP/1.1 over raw asyncio streams; every answer must be a 200."""
    latencies: list[float] = []
    head = f"\r\nHost: 127.0.0.1\r\nx-api-key: {key}\r\n\r\n".encode()
    requests = [b"GET " + p + b" HTTP/1.1" + head for p in paths]
    start = time.perf_counter()
    deadline = start + duration

    async def connection(offset: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        i = offset
        try:
            while time.perf_counter() < deadline:
                sent = time.perf_counter()
                writer.write(requests[i % len(requests)])
                i += 1
                status_line = await reader.readuntil(b"\r\n")
                headers = (await reader.readuntil(b"\r\n\r\n")).lower()
                if status_line.split(b" ", 2)[1] != b"200":
                    raise BenchError(f"python load generator got {status_line!r}")
                if b"transfer-encoding: chunked" in headers:
                    while True:
                        size = int((await reader.readuntil(b"\r\n")).strip(), 16)
                        await reader.readexactly(size + 2)
                        if size == 0:
                            break
                else:
                    at = headers.index(b"content-length:") + len(b"content-length:")
                    await reader.readexactly(int(headers[at : headers.index(b"\r\n", at)]))
                latencies.append(time.perf_counter() - sent)
        finally:
            writer.close()

    await asyncio.gather(*(connection(n * 7919) for n in range(connections)))
    return len(latencies), time.perf_counter() - start, latencies


def run_python_load(
    port: int, fixture: Fixture, connections: int, duration: int
) -> tuple[int, float, float, float]:
    paths = [f"/battery/{d}".encode() for d in fixture.device_ids]
    count, seconds, latencies = uvloop.run(
        _python_load(port, paths, fixture.key, connections, duration)
    )
    if not latencies:
        raise BenchError("python load generator completed no request")
    cuts = statistics.quantiles(latencies, n=100, method="inclusive")
    return count, seconds, cuts[49] * 1e3, cuts[98] * 1e3


# --- report ------------------------------------------------------------------------------


def print_table(results: list[RoundResult], generator: str, args: argparse.Namespace) -> None:
    print()
    print(
        f"GET /battery/{{id}} cache hits, {args.devices} devices, {args.connections} "
        f"connections, {args.duration}s x {args.rounds} rounds, load generator: {generator}"
    )
    header = f"{'target':<8} {'round':>5} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8}"
    header += f" {'CPU us/req':>10} {'srv cores':>9} {'gen cores':>9} {'other':>6}"
    print(header)
    print("-" * len(header))
    for r in results:
        print(
            f"{r.target:<8} {r.round:>5} {r.rps:>9.0f} {r.p50_ms:>8.2f} {r.p99_ms:>8.2f}"
            f" {r.cpu_us_per_request:>10.0f} {r.cpu_cores:>9.2f} {r.client_cores:>9.2f}"
            f" {r.other_cores:>6.2f}{' *' if r.other_cores > BUSY_OTHER_CORES else ''}"
        )
    print("-" * len(header))
    medians: dict[str, dict[str, float]] = {}
    for target in ("bare", "service"):
        rows = [r for r in results if r.target == target]
        medians[target] = {
            "rps": statistics.median(r.rps for r in rows),
            "p50": statistics.median(r.p50_ms for r in rows),
            "p99": statistics.median(r.p99_ms for r in rows),
            "cpu": statistics.median(r.cpu_us_per_request for r in rows),
            "cores": statistics.median(r.cpu_cores for r in rows),
            "gen": statistics.median(r.client_cores for r in rows),
            "other": statistics.median(r.other_cores for r in rows),
        }
        m = medians[target]
        print(
            f"{target:<8} {'med':>5} {m['rps']:>9.0f} {m['p50']:>8.2f} {m['p99']:>8.2f}"
            f" {m['cpu']:>10.0f} {m['cores']:>9.2f} {m['gen']:>9.2f} {m['other']:>6.2f}"
        )
    ratio = medians["service"]["rps"] / medians["bare"]["rps"]
    cpu_ratio = medians["bare"]["cpu"] / medians["service"]["cpu"]
    p99 = medians["service"]["p99"]
    if any(r.other_cores > BUSY_OTHER_CORES for r in results):
        print(
            f"* other processes used > {BUSY_OTHER_CORES} cores during the rounds marked *: "
            "their figures are noisy (compare CPU us/req rather than req/s)"
        )
    print()
    print(f"service/bare requests/s: {ratio:.2f} (CPU per request, bare/service: {cpu_ratio:.2f})")
    verdict = "PASS" if ratio >= TARGET_RATIO else "MISS"
    print(f"{verdict}  throughput ratio >= {TARGET_RATIO}: {ratio:.2f}")
    verdict = "PASS" if p99 < TARGET_P99_MS else "MISS"
    print(
        f"{verdict}  service p99 < {TARGET_P99_MS:.0f} ms at {args.connections} connections: "
        f"{p99:.2f} ms (median of rounds)"
    )
    if generator != "wrk":
        print("NOTE: Python load generator (wrk missing): it competes with the servers for CPU.")


# --- main --------------------------------------------------------------------------------


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--devices", type=int, default=1000)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--duration", type=int, default=10, help="seconds per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per target")
    parser.add_argument("--threads", type=int, default=1, help="wrk threads")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (logs, db)")
    return parser.parse_args()


def bench(args: argparse.Namespace, tmp: Path, stack: ExitStack) -> None:
    wrk = shutil.which("wrk")
    if wrk is None:
        print(
            "wrk not found: install it with `apt-get install -y wrk` for trustworthy figures.\n"
            "Falling back to the PYTHON load generator (it competes with the servers for CPU).",
            file=sys.stderr,
        )
    database_url = f"sqlite+aiosqlite:///{tmp / 'bench.db'}"
    if args.database == "postgres":
        pg = Postgres(os.environ.get("ENERGYHUB_BENCH_POSTGRES_URL", DEFAULT_POSTGRES_URL))
        if not pg.reachable():
            raise BenchError(f"PostgreSQL is not reachable at {pg.url}")
        pg.recreate()
        database_url = pg.url
    print(f"database: {args.database}")
    began = time.perf_counter()
    fixture = asyncio.run(create_fixture(database_url, args.devices))
    print(f"created {len(fixture.device_ids)} batteries in {time.perf_counter() - began:.1f}s")

    env = {
        **os.environ,
        "ENERGYHUB_DATABASE_URL": database_url,
        "ENERGYHUB_RATE_LIMIT_SANDBOX": "100000000",
        "ENERGYHUB_LOG_LEVEL": "WARNING",
    }
    service_port = free_port()
    service_log = tmp / "service.log"
    service_proc = stack.enter_context(
        running(
            [str(BIN_DIR / "energyhub"), "serve", "--no-demo", "--port", str(service_port)],
            env,
            service_log,
            "service",
        )
    )
    service = f"http://127.0.0.1:{service_port}"
    wait_healthy(service, service_proc, service_log)
    began = time.perf_counter()
    body_bytes = asyncio.run(warm_cache(service, fixture))
    print(
        f"warmed the read cache with {len(fixture.device_ids)} GETs in "
        f"{time.perf_counter() - began:.1f}s; a battery response is {body_bytes} bytes"
    )

    bare_port = free_port()
    bare_log = tmp / "bare.log"
    bare_argv = [sys.executable, str(BENCH_DIR / "bare_app.py"), "--port", str(bare_port)]
    bare_argv += ["--body-bytes", str(body_bytes)]
    bare_proc = stack.enter_context(running(bare_argv, env, bare_log, "bare"))
    bare = f"http://127.0.0.1:{bare_port}"
    wait_healthy(bare, bare_proc, bare_log)
    status, body = http_get(bare + "/battery/x")
    if status != 200 or len(body) != body_bytes:
        raise BenchError(f"bare app answered {status} with {len(body)} bytes")

    lua = tmp / "device_read.lua"
    write_lua(lua, fixture)
    targets = {
        "bare": (bare, bare_port, bare_proc.pid),
        "service": (service, service_port, service_proc.pid),
    }
    results: list[RoundResult] = []
    for round_no in range(1, args.rounds + 1):
        for name, (base, port, pid) in targets.items():
            time.sleep(1.0)  # let the previous round's connections close
            before = cpu_seconds(pid)
            client_before = own_and_children_cpu_seconds()
            busy_before = machine_busy_seconds()
            if wrk is not None:
                measured = run_wrk(base, lua, args.connections, args.duration, args.threads)
            else:
                measured = run_python_load(port, fixture, args.connections, args.duration)
            busy = machine_busy_seconds() - busy_before
            cpu = cpu_seconds(pid) - before
            client = own_and_children_cpu_seconds() - client_before
            requests, seconds, p50, p99 = measured
            result = RoundResult(
                name, round_no, requests, seconds, p50, p99, cpu, client, busy - cpu - client
            )
            results.append(result)
            print(
                f"round {round_no} {name:<7}: {result.rps:7.0f} req/s, p99 {p99:6.2f} ms, "
                f"{result.cpu_us_per_request:4.0f} us CPU/req",
                flush=True,
            )
    print_table(results, "wrk" if wrk else "PYTHON (asyncio raw sockets)", args)


def main() -> int:
    args = parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="energyhub-bench-"))
    try:
        with ExitStack() as stack:
            bench(args, tmp, stack)
        return 0
    except BenchError as error:
        print(f"FAILED: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted; servers stopped", file=sys.stderr)
        return 130
    finally:
        if args.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
