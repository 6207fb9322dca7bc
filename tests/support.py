"""Test helpers: an HTTP client on the app, and accounts with keys."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from aiohttp import web

from energyhub.bootstrap import Container, build_app
from energyhub.domain.accounts import Environment
from energyhub.domain.clock import FakeClock


@dataclass
class Caller:
    account_id: str
    key: str
    key_id: str

    @property
    def headers(self) -> dict[str, str]:
        return {"x-api-key": self.key}


@dataclass
class Api:
    client: httpx.AsyncClient
    container: Container
    clock: FakeClock

    async def caller(self, environment: Environment = Environment.SANDBOX) -> Caller:
        accounts = self.container.services.accounts
        account = await accounts.create_account("test")
        created = await accounts.create_key(account.id, environment)
        return Caller(account.id, created.key, created.api_key.id)

    async def key_for(self, account_id: str, environment: Environment) -> Caller:
        created = await self.container.services.accounts.create_key(account_id, environment)
        return Caller(account_id, created.key, created.api_key.id)

    async def sandbox_device(
        self,
        caller: Caller,
        type_: str = "battery",
        profile: str | None = None,
        user_id: str = "user-1",
        **extra: Any,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"type": type_, "userId": user_id, **extra}
        if profile is not None:
            body["profile"] = profile
        response = await self.client.post("/sandbox/devices", json=body, headers=caller.headers)
        assert response.status_code == 201, response.text
        data: dict[str, Any] = response.json()["data"]
        return data

    async def run_due(self, seconds: float = 0) -> int:
        """Moves the fake clock on and runs what the dispatcher finds due then."""
        self.clock.advance(seconds)
        return await self.container.dispatcher.run_due("test-worker")

    async def push(
        self, caller: Caller, device: dict[str, Any], command: str, **body: Any
    ) -> httpx.Response:
        parameters = body.pop("parameters", {})
        payload = {"action": {"command": command, "parameters": parameters}, **body}
        return await self.client.post(
            f"/{device['type']}/{device['id']}", json=payload, headers=caller.headers
        )

    async def get(self, caller: Caller, path: str, **params: Any) -> httpx.Response:
        return await self.client.get(path, params=params or None, headers=caller.headers)


@asynccontextmanager
async def open_api(container: Container, clock: FakeClock) -> AsyncIterator[Api]:
    app = build_app(container)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield Api(client, container, clock)


@asynccontextmanager
async def local_receiver(
    handle: Callable[[web.Request], Awaitable[web.Response]], path: str = "/hook"
) -> AsyncIterator[str]:
    """A real HTTP server on 127.0.0.1 (a webhook receiver) whose POSTs to `path` go to
    `handle`; yields its URL."""
    app = web.Application()
    app.router.add_post(path, handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}{path}"
    finally:
        await runner.cleanup()
