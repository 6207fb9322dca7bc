"""Browser tests' helpers: the real service on an ephemeral port, in a thread, with a fake
clock the test moves, and Debian's Chromium for Playwright (`playwright install` cannot
download browsers here; `.ci/run` installs the `chromium` package)."""

from __future__ import annotations

import asyncio
import shutil
import socket
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Self, TypeVar

import httpx
import uvicorn

from energyhub.bootstrap import Container, build_app, build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment
from energyhub.domain.clock import FakeClock

T = TypeVar("T")

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
NO_CHROMIUM = "Chromium is not installed (apt-get install -y chromium); CI installs it"


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class _Server(uvicorn.Server):
    """Says when it listens."""

    def __init__(self, config: uvicorn.Config, on_started: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_started = on_started

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        self._on_started()


class ThreadedService:
    """`build_app` served by uvicorn on 127.0.0.1 in a thread of its own, with its own event
    loop: the app, its database connections and the fake clock are real; only time is the
    test's. `call` runs a coroutine on the service's loop (to seed accounts, read rows)."""

    def __init__(self, directory: Path, clock: FakeClock, **settings: Any) -> None:
        """`settings`: more `Settings` fields (e.g. `sandbox_link_event_delay_s=0`), over the
        defaults below."""
        self.clock = clock
        self.settings = Settings(
            **{
                "database_url": f"sqlite+aiosqlite:///{directory / 'energyhub.db'}",
                "key_cache_ttl_s": 0,
                "rate_limit_sandbox": 1_000_000,
                "rate_limit_live": 1_000_000,
                **settings,
            }
        )
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self.port: int = self._socket.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: uvicorn.Server | None = None
        self.container: Container | None = None
        self._thread = threading.Thread(target=self._run, name="energyhub-test-server")

    def start(self) -> ThreadedService:
        self._thread.start()
        if not self._ready.wait(60):
            raise RuntimeError("the service did not start in 60 s")
        if self._failure is not None:
            raise RuntimeError("the service failed to start") from self._failure
        return self

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as failure:  # reported to the test thread by start()
            self._failure = failure
            self._ready.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.container = await build_container(self.settings, self.clock)
        try:
            config = uvicorn.Config(
                build_app(self.container),
                log_level="warning",
                access_log=False,
                ws="none",
                lifespan="on",
            )
            self._server = _Server(config, self._ready.set)
            await self._server.serve(sockets=[self._socket])
        finally:
            await self.container.aclose()

    def call(self, work: Coroutine[Any, Any, T]) -> T:
        assert self._loop is not None
        future: Future[T] = asyncio.run_coroutine_threadsafe(work, self._loop)
        return future.result(60)

    def new_key(
        self, name: str, environment: Environment = Environment.SANDBOX
    ) -> tuple[str, str, str]:
        """(account id, app id, key) of a new account with one key."""
        assert self.container is not None
        accounts = self.container.services.accounts

        async def make() -> tuple[str, str, str]:
            account = await accounts.create_account(name)
            created = await accounts.create_key(account.id, environment)
            return account.id, account.app_id, created.key

        return self.call(make())

    def new_member(self, account_id: str, email: str, password: str) -> str:
        """A dashboard member of the account (password 12+ characters); their id."""
        assert self.container is not None
        member = self.call(self.container.members.add_member(account_id, email, password))
        return member.id

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        self._thread.join(60)
        self._socket.close()


class ApiCustomer:
    """A customer account with a sandbox key, calling the service's API over HTTP (each
    browser test module adds what its pages need)."""

    def __init__(self, service: ThreadedService, name: str = "Acme Energy") -> None:
        self.service = service
        self.account_id, self.app_id, self.key = service.new_key(name)
        self.http = httpx.Client(base_url=service.base, headers={"x-api-key": self.key})

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.http.close()
