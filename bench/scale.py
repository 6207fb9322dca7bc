"""Many processes on PostgreSQL: reads and pushes with 1 and 2 API processes beside the
bare-ASGI and pgbench ceilings, dispatch lateness with the worker in its own process, and a
push routed to the process holding a charger against the same push on that process.

One run on one database of its own (`energyhub_bench_scale_<random>` on the server of
`ENERGYHUB_BENCH_POSTGRES_URL`, default the local one; dropped at the end):

1. Reads and pushes. Two sandbox accounts of 100 batteries each are made through the
   service; the batteries the steps need are copies of one of them in SQL (the row the
   service wrote, with a new id, over the same 100 users). Two `energyhub serve --no-demo
   --no-workers` processes and one `energyhub worker` run on the database (sandbox
   completions an hour out, so that pushes do not complete during the run), and two bare
   ASGI processes (`bench/bare_app.py`, the body of a battery answer). Each API process
   reads every read battery once (its read cache). Then, in rounds: `wrk` with
   `bench/device_read.py`'s script against 1 bare process, 2 bare processes, 1 API process
   and 2 API processes (`GET /battery/{id}`, cache hits); then `bench/push.py`'s immediate
   pushes (`POST /battery/{id}`, one per device, until the devices or `--duration` run out)
   to 1 and to 2 API processes. Every round runs two `wrk` (one thread, half the
   connections each) side by side, both against the one process or one against each of
   the two, so that the load generator is the same; their rates are summed, p50 and p99
   are the higher of the two. CPU (from /proc) is both servers' of the kind measured, and
   for pushes the worker's too, whichever of them take the load. Each round also gives
   PostgreSQL's CPU and how busy the whole machine was: a round with the machine's cores
   all busy is bound by them, and a second process cannot raise its rate.
   `--cpu-budget C` holds each API and bare process to C of a core (a cgroup CPU quota;
   root only; the worker, PostgreSQL and `wrk` are not held), as if each process had its
   own share of a larger machine: on two cores the load generator, PostgreSQL and one
   unheld process already keep both cores busy, so only held processes show whether a
   second process adds what the first gives, or whether something they share (the
   database, a lock, the worker) stops it.
   Then `pgbench` as `bench/push.py` runs it (its own tables in the same database).
2. Dispatch lateness: `bench/push.py`'s scheduler step on the second account, its API
   process started with `--no-workers` beside an `energyhub worker`: `--scheduled` pushes
   due evenly over `--spread` seconds, all created before the window opens; lateness is
   each action's stored `acknowledgedAt` (the dispatch) minus its stored start.
3. Routing: `bench/routing.py` on the same database (an account and an OCPP charger of its
   own, two `energyhub serve` processes, the charger on the first).

Prints a table and PASS/MISS for the goals: routed p99 within 20 ms of local; lateness
p99 < 1 s with every action dispatched; reads and pushes scaling with processes, i.e. 2
processes give >= 1.5 times the rate of 1 (the bare ceiling's factor is printed beside: on a
2-core machine the load generator, PostgreSQL and the servers share the cores, so the
ceiling may not scale either). Exits 0 whatever the figures; 1 when a setup fails or the
service answers anything unexpected. Needs `wrk` and the PostgreSQL client tools.

Run: `.venv/bin/python bench/scale.py [--read-devices 1000] [--push-devices 6000]
[--connections 32] [--duration 10] [--rounds 3] [--scheduled 10000] [--spread 60]
[--routed-pushes 400] [--cpu-budget 0.3]`
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path

import asyncpg
import device_read  # bench/ is on sys.path
import push
import routing
from _processes import (
    BenchError,
    cpu_budget,
    cpu_seconds,
    free_port,
    http_get,
    machine_cpu,
    postgres_cpu,
    postgres_cpu_since,
    running,
    wait_healthy,
)
from history import copy_rows
from sqlalchemy.engine import make_url

BENCH_DIR = Path(__file__).resolve().parent
SCALING_GOAL = 1.5  # 2 processes / 1 process
ROUTED_EXCESS_MS = 20.0
LATENESS_P99_S = 1.0
GENERATORS = 2  # wrk processes in every round, whether against 1 server or 2
DROPPED = "the channel dropped"  # what a process logs when its LISTEN/NOTIFY channel drops


@dataclass(frozen=True, slots=True)
class Measured:
    """What `side_by_side` measured across its load generators."""

    requests: int
    rate: float  # summed
    p50_ms: float  # the higher of the generators'
    p99_ms: float
    cpu_s: float  # of the given pids
    busy: float  # the machine's CPU busy, a share of all its cores
    pg_cpu_s: float


@dataclass(frozen=True, slots=True)
class Round:
    target: str  # bare, reads, pushes
    processes: int
    requests: int
    rate: float
    p50_ms: float
    p99_ms: float
    cpu_s: float  # the measured servers' utime + stime during the round
    load: float  # the machine's 1-minute load average after the round
    busy: float  # the machine's CPU busy during the round, a share of all its cores
    pg_cpu_s: float  # PostgreSQL's server processes' CPU during the round
    drops: int = 0  # times a service process logged its channel between processes dropping

    @property
    def cpu_us(self) -> float:
        return self.cpu_s / self.requests * 1e6 if self.requests else float("nan")

    @property
    def pg_cpu_us(self) -> float:
        return self.pg_cpu_s / self.requests * 1e6 if self.requests else float("nan")


# --- data --------------------------------------------------------------------------------


async def copy_batteries(url: str, template: str, prefix: int, count: int) -> list[str]:
    """`count` copies in SQL of battery `template` (ids `00000000-0000-4<prefix>-...`)."""
    connection = await asyncpg.connect(url.replace("+asyncpg", ""))
    try:
        await copy_rows(
            connection,
            "devices",
            f"SELECT * FROM devices WHERE id = '{template}'",
            count,
            {
                "id": f"'00000000-0000-4{prefix:03d}-8000-' || lpad(g::text, 12, '0')",
                "user_id": f"'user-' || (g % {push.USERS})",
                "created_at": "t.created_at + g * interval '1 ms'",
            },
        )
        await connection.execute("VACUUM ANALYZE devices")
    finally:
        await connection.close()
    return [f"00000000-0000-4{prefix:03d}-8000-{g:012d}" for g in range(1, count + 1)]


def account(url: str, prefix: int, count: int) -> push.Fixture:
    """An account with 100 batteries made by the service and `count` in all."""
    made = push.filled(url, push.USERS)
    copies = asyncio.run(copy_batteries(url, made.device_ids[0], prefix, count - push.USERS))
    return push.Fixture(made.key, made.device_ids + copies)


# --- rounds ------------------------------------------------------------------------------


def side_by_side(
    bases: list[str],
    pids: list[int],
    one: Callable[[int, str], tuple[int, float, float, float]],
) -> Measured:
    """Runs `one(i, base)` (requests, seconds, p50 ms, p99 ms) for each of the load
    generators at once, generator i against `bases[i % len(bases)]`. The machine's busy
    share and PostgreSQL's CPU say whether the round was bound by the cores (the load
    generators, PostgreSQL and the servers share them) or by waiting."""
    time.sleep(1.0)  # the previous round's connections close
    before = sum(cpu_seconds(pid) for pid in pids)
    pg_before, (busy_before, all_before) = postgres_cpu(), machine_cpu()
    with ThreadPoolExecutor(GENERATORS) as pool:
        targets = [bases[i % len(bases)] for i in range(GENERATORS)]
        results = list(pool.map(lambda t: one(*t), enumerate(targets)))
    cpu = sum(cpu_seconds(pid) for pid in pids) - before
    busy_after, all_after = machine_cpu()
    return Measured(
        requests=sum(r[0] for r in results),
        rate=sum(r[0] / r[1] for r in results),
        p50_ms=max(r[2] for r in results),
        p99_ms=max(r[3] for r in results),
        cpu_s=cpu,
        busy=(busy_after - busy_before) / max(all_after - all_before, 1e-9),
        pg_cpu_s=postgres_cpu_since(pg_before),
    )


def _round(target: str, processes: int, m: Measured) -> Round:
    return Round(
        target, processes, m.requests, m.rate, m.p50_ms, m.p99_ms, m.cpu_s,
        os.getloadavg()[0], m.busy, m.pg_cpu_s,
    )  # fmt: skip


def read_round(
    target: str, servers: list[tuple[str, int]], n: int, lua: Path, args: argparse.Namespace
) -> Round:
    """Reads from the first `n` of `servers`; CPU: all of them."""
    per = args.connections // GENERATORS
    measured = side_by_side(
        [base for base, _ in servers[:n]],
        [pid for _, pid in servers],
        lambda _, base: device_read.run_wrk(base, lua, per, args.duration, 1),
    )
    return _round(target, n, measured)


def push_round(
    apis: list[tuple[str, int]],
    n: int,
    worker: int,
    key: str,
    devices: list[str],
    args: argparse.Namespace,
    tmp: Path,
) -> Round:
    """Pushes to the first `n` API processes; CPU: all of them and the worker."""
    per = args.connections // GENERATORS

    def one(i: int, base: str) -> tuple[int, float, float, float]:
        own = tmp / f"wrk-{i}"
        own.mkdir(exist_ok=True)
        load = push.Fixture(key, devices[i::GENERATORS])
        _, _, answered, seconds, p50, p99, _ = push.run_wrk(base, load, per, args.duration, 1, own)
        return answered, seconds, p50, p99

    pids = [pid for _, pid in apis] + [worker]
    return _round("pushes", n, side_by_side([base for base, _ in apis[:n]], pids, one))


def reads_and_pushes(
    fixture: push.Fixture, url: str, args: argparse.Namespace, tmp: Path
) -> tuple[list[Round], float]:
    """Step 1: the rounds, and pgbench's TPS."""
    reads = fixture.device_ids[: args.read_devices]
    warm = push.WARMUP_PER_CONNECTION * args.connections
    rest = fixture.device_ids[args.read_devices :]
    warmups, pushes = rest[: 2 * warm], rest[2 * warm :]
    env = {
        **os.environ,
        "ENERGYHUB_DATABASE_URL": url,
        "ENERGYHUB_RATE_LIMIT_SANDBOX": "100000000",
        "ENERGYHUB_LOG_LEVEL": "WARNING",
        "ENERGYHUB_SANDBOX_COMPLETION_DELAY_S": "3600",
    }
    energyhub = str(push.BIN_DIR / "energyhub")
    rounds: list[Round] = []
    with ExitStack() as stack:
        worker = stack.enter_context(running([energyhub, "worker"], env, tmp / "worker.log"))
        apis: list[tuple[str, int]] = []
        for i in range(2):
            port, log = free_port(), tmp / f"api-{i}.log"
            argv = [energyhub, "serve", "--no-demo", "--no-workers", "--port", str(port)]
            proc = stack.enter_context(running(argv, env, log, f"api {i}"))
            if args.cpu_budget:
                stack.enter_context(cpu_budget(proc.pid, args.cpu_budget, f"api-{i}"))
            wait_healthy(f"http://127.0.0.1:{port}", proc, log)
            apis.append((f"http://127.0.0.1:{port}", proc.pid))
        if worker.poll() is not None:
            raise BenchError(f"the worker exited: {(tmp / 'worker.log').read_text()[-2000:]}")
        read_fixture = push.Fixture(fixture.key, reads)
        for i, (base, _) in enumerate(apis):
            body_bytes = asyncio.run(device_read.warm_cache(base, read_fixture))
            bodies: list[tuple[str, dict[str, object]]] = [
                (d, push.PUSH_BODY) for d in warmups[i * warm : (i + 1) * warm]
            ]
            asyncio.run(push.push_each(base, fixture.key, bodies, 200, args.connections))
        bares: list[tuple[str, int]] = []
        for i in range(2):
            port, log = free_port(), tmp / f"bare-{i}.log"
            argv = [sys.executable, str(BENCH_DIR / "bare_app.py"), "--port", str(port)]
            argv += ["--body-bytes", str(body_bytes)]
            proc = stack.enter_context(running(argv, env, log, f"bare {i}"))
            if args.cpu_budget:
                stack.enter_context(cpu_budget(proc.pid, args.cpu_budget, f"bare-{i}"))
            wait_healthy(f"http://127.0.0.1:{port}", proc, log)
            bares.append((f"http://127.0.0.1:{port}", proc.pid))
        if http_get(bares[0][0] + "/battery/x")[0] != 200:
            raise BenchError("the bare app did not answer 200")
        lua = tmp / "read.lua"
        device_read.write_lua(lua, read_fixture)
        print(f"reads: {len(reads)} batteries, each read once by each API process", flush=True)
        logs = [tmp / "worker.log", tmp / "api-0.log", tmp / "api-1.log"]
        warmed = channel_drops(logs)
        for number in range(1, args.rounds + 1):
            for target, servers in (("bare", bares), ("reads", apis)):
                for n in (1, 2):
                    before = channel_drops(logs)
                    if target == "reads" and before != warmed:  # a channel back clears a cache
                        for base, _ in apis:
                            asyncio.run(device_read.warm_cache(base, read_fixture))
                        warmed = before
                    measured = read_round(target, servers, n, lua, args)
                    rounds.append(replace(measured, drops=channel_drops(logs) - before))
                    print_round(number, rounds[-1])
        print(f"pushes: {args.push_devices} batteries a round, each pushed once", flush=True)
        for number in range(1, args.rounds + 1):
            for n in (1, 2) if number % 2 else (2, 1):
                devices = pushes[: args.push_devices]
                pushes = pushes[args.push_devices :]
                before = channel_drops(logs)
                measured = push_round(apis, n, worker.pid, fixture.key, devices, args, tmp)
                rounds.append(replace(measured, drops=channel_drops(logs) - before))
                print_round(number, rounds[-1])
    pg = push.Postgres(url)
    tps = push.pgbench_tps(pg, args.push_devices, args.duration, tmp)
    print(f"pgbench: {tps:.0f} TPS", flush=True)
    return rounds, tps


def channel_drops(logs: list[Path]) -> int:
    """How often the service's processes logged their channel between processes dropping."""
    return sum(log.read_text(errors="replace").count(DROPPED) for log in logs if log.exists())


def print_round(number: int, r: Round) -> None:
    print(
        f"  round {number} {r.target:<6} x{r.processes}: {r.rate:7.0f}/s, p50 {r.p50_ms:6.1f} "
        f"ms, p99 {r.p99_ms:6.1f} ms, {r.cpu_us:5.0f} us CPU each, PostgreSQL "
        f"{r.pg_cpu_us:5.0f} us each, machine {r.busy:4.0%} busy (load {r.load:.1f})"
        f"{f'; the channel dropped {r.drops} times' if r.drops else ''}",
        flush=True,
    )


# --- report ------------------------------------------------------------------------------


def median(rounds: list[Round], target: str, processes: int, field: str) -> float:
    return statistics.median(
        getattr(r, field) for r in rounds if r.target == target and r.processes == processes
    )


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def report(
    rounds: list[Round],
    tps: float,
    lateness: push.LatenessResult,
    routed: dict[str, tuple[float, float, float]],
    args: argparse.Namespace,
    loads: tuple[float, float],
) -> None:
    print()
    print(
        f"Many processes on PostgreSQL ({os.cpu_count()} cores; load average {loads[0]:.1f} "
        f"at the start, {loads[1]:.1f} at the end), medians of {args.rounds} rounds, "
        f"{args.connections} connections in all"
        + (
            f"; each API and bare process held to {args.cpu_budget:g} of a core"
            if args.cpu_budget
            else ""
        )
    )
    header = f"{'':<24} {'1 process':>10} {'2 processes':>12} {'2/1':>6}"
    print(header)
    print("-" * len(header))
    factors: dict[str, float] = {}
    for target, label in (
        ("bare", "bare ASGI req/s"),
        ("reads", "reads/s"),
        ("pushes", "pushes/s"),
    ):
        one, two = (median(rounds, target, n, "rate") for n in (1, 2))
        factors[target] = two / one
        print(f"{label:<24} {one:>10.0f} {two:>12.0f} {two / one:>6.2f}")
        for field, name, spec in (("p50_ms", "p50 ms", ".1f"), ("p99_ms", "p99 ms", ".1f")):
            a, b = (median(rounds, target, n, field) for n in (1, 2))
            print(f"  {name:<22} {a:>10{spec}} {b:>12{spec}}")
        a, b = (median(rounds, target, n, "cpu_us") for n in (1, 2))
        print(f"  {'CPU us each':<22} {a:>10.0f} {b:>12.0f}")
        a, b = (median(rounds, target, n, "pg_cpu_us") for n in (1, 2))
        print(f"  {'PostgreSQL CPU us each':<22} {a:>10.0f} {b:>12.0f}")
        a, b = (median(rounds, target, n, "busy") for n in (1, 2))
        print(f"  {'machine CPU busy':<22} {a:>10.0%} {b:>12.0%}")
    for n in (1, 2):
        reads, bare = median(rounds, "reads", n, "rate"), median(rounds, "bare", n, "rate")
        pushes = median(rounds, "pushes", n, "rate")
        print(f"with {n}: reads/bare {reads / bare:.2f}, pushes/pgbench TPS {pushes / tps:.3f}")
    print(f"pgbench: {tps:.0f} TPS")
    print(
        f"dispatch lateness, {lateness.scheduled} due over {args.spread} s, worker in its "
        f"own process: p50 {lateness.p50_s:.3f} s, p99 {lateness.p99_s:.3f} s, max "
        f"{lateness.max_s:.3f} s, {lateness.dispatched}/{lateness.scheduled} dispatched "
        f"(created in {lateness.creation_s:.1f} s, {lateness.slack_s:.1f} s before the window)"
    )
    local, far = routed["local"], routed["routed"]
    excess = far[1] - local[1]
    print(
        f"push to the charger: local p50 {local[0]:.1f} ms, p99 {local[1]:.1f} ms; routed p50 "
        f"{far[0]:.1f} ms, p99 {far[1]:.1f} ms"
    )
    print()
    print(
        f"{verdict(excess <= ROUTED_EXCESS_MS)}  routed p99 within 20 ms of local: +{excess:.1f} ms"
    )
    ok = lateness.dispatched == lateness.scheduled and lateness.p99_s < LATENESS_P99_S
    print(
        f"{verdict(ok)}  dispatch lateness p99 < 1 s at {lateness.scheduled} due: "
        f"{lateness.p99_s:.3f} s ({lateness.dispatched}/{lateness.scheduled} dispatched)"
    )
    if lateness.slack_s < 1.0:
        print("note  creating the scheduled pushes ran into their window")
    dropped = [r for r in rounds if r.drops]
    if dropped:
        print(
            f"note  the channel between processes dropped during {len(dropped)} rounds "
            f"({', '.join(f'{r.target} x{r.processes}' for r in dropped)}): while it is down "
            "an API process keeps cached reads 1 s, and workers poll"
        )
    for target in ("reads", "pushes"):
        print(
            f"{verdict(factors[target] >= SCALING_GOAL)}  {target} scale with processes, 2/1 >= "
            f"{SCALING_GOAL}: {factors[target]:.2f} (the bare ceiling's 2/1: "
            f"{factors['bare']:.2f})"
        )


# --- main --------------------------------------------------------------------------------


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--read-devices", type=int, default=1000)
    parser.add_argument("--push-devices", type=int, default=6000, help="per push round")
    parser.add_argument("--connections", type=int, default=32, help="in all, split evenly")
    parser.add_argument("--duration", type=int, default=10, help="seconds a round at most")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--scheduled", type=int, default=10_000)
    parser.add_argument("--spread", type=int, default=60, help="seconds their starts span")
    parser.add_argument("--routed-pushes", type=int, default=400, help="of each kind")
    parser.add_argument(
        "--cpu-budget",
        type=float,
        help="cores each API (and bare) process may use, by a cgroup quota (root only)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (logs)")
    return parser.parse_args()


def main() -> int:
    args = parse_args()
    if shutil.which("wrk") is None:
        print("wrk not found: apt-get install -y wrk", file=sys.stderr)
        return 1
    server = os.environ.get("ENERGYHUB_BENCH_POSTGRES_URL", push.DEFAULT_POSTGRES_URL)
    name = f"energyhub_bench_scale_{secrets.token_hex(4)}"
    url = make_url(server).set(database=name).render_as_string(hide_password=False)
    tmp = Path(tempfile.mkdtemp(prefix="energyhub-bench-scale-"))
    os.environ["ENERGYHUB_DATA_DIR"] = str(tmp)  # the secret key every process shares
    began, start_load = time.monotonic(), os.getloadavg()[0]
    pg: push.Postgres | None = None
    try:
        pg = push.Postgres(url)
        pg.recreate()
        print(f"database {name}; load average {start_load:.2f}", flush=True)
        print("1. reads and pushes, 1 and 2 API processes and a worker", flush=True)
        needed = args.read_devices + 2 * push.WARMUP_PER_CONNECTION * args.connections
        fixture = account(url, 1, needed + 2 * args.rounds * args.push_devices)
        rounds, tps = reads_and_pushes(fixture, url, args, tmp)
        print(f"2. dispatch lateness, {args.scheduled} due over {args.spread} s", flush=True)
        calibration = max(20, int(args.scheduled * push.SCHEDULE_CALIBRATION) + 1)
        scheduled = account(url, 2, args.scheduled + calibration)
        lateness = push.measure_lateness(
            "postgres", url, args, tmp, fixture=scheduled, separate_worker=True
        )
        print("3. routed pushes", flush=True)
        routed = routing.report(routing.run(url, str(tmp), args.routed_pushes))
        report(rounds, tps, lateness, routed, args, (start_load, os.getloadavg()[0]))
        print(f"\ntotal time {time.monotonic() - began:.0f}s")
        return 0
    except (BenchError, subprocess.TimeoutExpired) as error:
        print(f"FAILED: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted; subprocesses stopped", file=sys.stderr)
        return 130
    finally:
        if pg is not None:
            pg.run("dropdb", "--if-exists", "--force", pg.database)
        if args.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
