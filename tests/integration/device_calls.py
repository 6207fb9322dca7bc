"""What the sandbox devices received, as the tests of killed processes read it: the command
log each serving process writes (`ENERGYHUB_SANDBOX_COMMAND_LOG_DIR`, one file a process),
and a kill timed by it to land inside a batch of device calls."""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from socket import gethostname

import pytest

from energyhub.drivers.sandbox.command_log import read_command_logs
from tests.processes import Service

CALLS_BEFORE_KILL = 10


@dataclass(frozen=True)
class Call:
    seq: int  # order in the logs as read
    pid: int
    at: datetime
    device_id: str
    action_id: str | None
    command: str


def calls_by_action(directory: Path) -> dict[str, list[Call]]:
    by_action: dict[str, list[Call]] = defaultdict(list)
    for seq, line in enumerate(read_command_logs(directory)):
        call = Call(
            seq,
            line["pid"],
            datetime.fromisoformat(line["at"].replace("Z", "+00:00")),
            line["deviceId"],
            line["actionId"],
            line["command"],
        )
        by_action[str(call.action_id)].append(call)
    return by_action


def log_of(directory: Path, service: Service) -> Path:
    return directory / f"commands-{gethostname()}-{service.process.pid}.jsonl"


def _size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


def kill_first_caller(directory: Path, services: list[Service]) -> int:
    """Kills whichever process calls a device first from now on, once it has made a few
    calls (or 10 ms after its first): it has claimed a batch and not yet recorded the
    answers. Returns its index. (A blocking poll on purpose: the kill must land inside the
    batch, within milliseconds.)"""
    logs = [log_of(directory, s) for s in services]
    before = [_size(log) for log in logs]
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        for index, log in enumerate(logs):
            if _size(log) > before[index]:
                enough = time.monotonic() + 0.01
                while time.monotonic() < enough:
                    with log.open("rb") as lines:
                        lines.seek(before[index])
                        if lines.read().count(b"\n") >= CALLS_BEFORE_KILL:
                            break
                services[index].kill()
                return index
        time.sleep(0.0005)
    pytest.fail("no process called a device within 5 s of the moment the kill was due")


async def sleep_until(instant: datetime) -> None:
    await asyncio.sleep(max(0.0, (instant - datetime.now(UTC)).total_seconds()))
