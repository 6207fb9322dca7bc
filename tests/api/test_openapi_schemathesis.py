"""Every documented route, fuzzed in-process by schemathesis with all checks: no 500, no
response outside the documented schema, documented statuses only."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import schemathesis
from hypothesis import HealthCheck, settings
from starlette.types import Receive, Scope, Send

from energyhub.bootstrap import Container, build_app, build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.capabilities import DeviceType


class SeededService:
    """The real app, built and seeded inside its own lifespan: schemathesis drives the app on
    one event loop of its own, and the database connections must live on that loop."""

    def __init__(self) -> None:
        self.database = Path(tempfile.mkdtemp(prefix="energyhub-st-")) / "energyhub.db"
        self.container: Container | None = None
        self.app: Any = None
        self.key = ""

    async def _start(self) -> None:
        settings = Settings(
            database_url=f"sqlite+aiosqlite:///{self.database}", rate_limit_sandbox=10_000_000
        )
        self.container = await build_container(settings)
        services = self.container.services
        account = await services.accounts.create_account("schemathesis")
        created = await services.accounts.create_key(account.id, Environment.SANDBOX)
        principal = Principal(account.id, Environment.SANDBOX, created.api_key.id)
        for device_type in (DeviceType.BATTERY, DeviceType.EV_CHARGER):
            await services.sandbox.create_device(principal, device_type, "user-1")
        self.key = created.key
        self.app = build_app(self.container)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await self._start()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self.container is not None:
                    await self.container.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


SERVICE = SeededService()


# Loading starts the app's lifespan (once per process; schemathesis stops it at exit).
schema = schemathesis.openapi.from_asgi("/openapi.json", SERVICE)


@schema.parametrize()
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_every_route_conforms(case: Any) -> None:
    case.call_and_validate(headers={"x-api-key": SERVICE.key})
