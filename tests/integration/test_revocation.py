"""The revocation promise across processes: a key revoked by another process (here the
CLI) is refused by a serving process within ENERGYHUB_KEY_CACHE_TTL_S (0.25 s) of the
revocation, while requests keep coming. (The process that revokes refuses it at once:
tests/api/test_auth.py.)"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import httpx

from tests.processes import run_cli, start_service

TTL_S = 0.25
SLACK_S = 0.05  # a lookup that began just before the commit is trusted from when it ended


def _energyhub(db: Path, *args: str) -> str:
    return run_cli(db, *args)


def test_a_key_revoked_by_the_cli_is_refused_by_a_serving_process_within_the_ttl(
    tmp_path: Path,
) -> None:
    db = tmp_path / "revoke.db"
    account = json.loads(_energyhub(db, "accounts", "create", "--name", "R", "--json"))
    created = json.loads(
        _energyhub(db, "keys", "create", "--account", account["accountId"], "--env", "test",
                   "--json")
    )  # fmt: skip
    service = start_service(
        f"sqlite+aiosqlite:///{db}",
        tmp_path,
        "--no-demo",
        env={"ENERGYHUB_KEY_CACHE_TTL_S": str(TTL_S)},
    )
    seen: list[tuple[float, int]] = []  # (when the request was sent, its status)
    stop = threading.Event()

    def keep_asking() -> None:
        with httpx.Client(base_url=service.base, headers={"x-api-key": created["key"]}) as c:
            while not stop.is_set():
                sent = time.monotonic()
                seen.append((sent, c.get("/battery").status_code))

    asking = threading.Thread(target=keep_asking)
    try:
        asking.start()
        _energyhub(db, "keys", "revoke", created["keyId"])
        revoked = time.monotonic()  # the CLI has committed and exited
        time.sleep(TTL_S * 3)  # requests keep coming meanwhile, on the other thread
    finally:
        stop.set()
        asking.join(10)
        service.stop()
    before = [status for sent, status in seen if sent < revoked]
    after = [status for sent, status in seen if sent >= revoked + TTL_S + SLACK_S]
    assert before[:1] == [200], before[:3]
    assert after, "no request was sent after the TTL"
    assert set(after) == {401}, after
