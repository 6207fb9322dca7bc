"""What the sandbox devices were told: every command call a sandbox device receives, one
JSON line each, appended before the device answers.

Set `ENERGYHUB_SANDBOX_COMMAND_LOG_DIR` to see exactly what a real device would have been
sent, repeats included: the service may repeat a call after a crash (the state change is
never repeated), and this log is where such a repeat shows. Each process writes a file of
its own (`commands-<host>-<pid>.jsonl`), so lines of processes sharing a database never
interleave. A line is written with one `write` to a file opened for appending: once the call
returns, the line survives the process being killed."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from energyhub.domain.clock import isoformat_utc


class SandboxCommandLog:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @property
    def path(self) -> Path:
        """This process's file (the process id is read at each call: a fork gets its own)."""
        return self.directory / f"commands-{socket.gethostname()}-{os.getpid()}.jsonl"

    def record(
        self,
        *,
        at: datetime,
        device_id: str,
        action_id: str | None,
        command: str,
        parameters: Mapping[str, float],
        answer: str,
    ) -> None:
        """`answer`: `accepted`, `alreadyActive`, or the error code the device refused with."""
        line = {
            "at": isoformat_utc(at),
            "deviceId": device_id,
            "actionId": action_id,
            "command": command,
            "parameters": dict(parameters),
            "answer": answer,
            "pid": os.getpid(),
        }
        data = (json.dumps(line, separators=(",", ":")) + "\n").encode()
        self.directory.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(descriptor, data)
        finally:
            os.close(descriptor)


def read_command_logs(directory: Path) -> Iterator[dict[str, Any]]:
    """Every line of every process's file under `directory`, file by file."""
    for path in sorted(directory.glob("commands-*.jsonl")):
        with path.open() as lines:
            for line in lines:
                if line.strip():
                    yield json.loads(line)
