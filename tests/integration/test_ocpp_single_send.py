"""One action, one command on the charger's wire (issue 13): an immediate push waits for a
charger that answers late or never while another dispatcher, on the same tables, claims
whatever is due. The charger must receive the command once per action: no other process
sends it while the push holds the action, the push does not send again a command that
timed out (it may have arrived), and a push that cannot renew its lease stops waiting
before the lease runs out, so nobody else sends the command meanwhile.

Time: the leases run on a fake clock the test moves (2 s a step), the charger's answers on
real time (a second or two), so each case takes a few seconds."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import cast

import pytest

from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.actions import Action, RetryPolicy
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import FakeClock
from energyhub.domain.pushes import PushRequest
from energyhub.drivers.ocpp.central_system import OcppConfig
from energyhub.persistence.actions import SqlActionRepository
from energyhub.ports.storage import PushUnitOfWorkFactory
from energyhub.services.actions import ActionService, PushFailed
from energyhub.services.changes import DeviceChangeFeed
from energyhub.services.dispatch import Dispatcher
from tests.integration import ocpp_support
from tests.integration.ocpp_support import (
    START,
    WAIT,
    Answers,
    Charger,
    Service,
    Sim16,
    charger,
)

PROFILE = "SetChargingProfile"
RENEW_S = 0.02  # real seconds between a holder's renewals: many per clock step
STEP_S = 2.0  # what one step moves the lease clock by (a lease is 5 s)


class EveryFrame(Sim16):
    """Takes every frame off the wire as it comes and answers each in its own time: the
    package's loop answers one frame at a time, so a slow answer would hide the next."""

    async def start(self) -> None:
        answering: set[asyncio.Task[None]] = set()
        try:
            while True:
                message = await self._connection.recv()
                task = asyncio.create_task(self.route_message(message))
                answering.add(task)
                task.add_done_callback(answering.discard)
        finally:
            for task in answering:
                task.cancel()


@pytest.fixture
def service(stored: Service, monkeypatch: pytest.MonkeyPatch) -> Service:
    """These tests run on SQLite and on PostgreSQL, with chargers that log every frame."""
    monkeypatch.setattr(ocpp_support, "Sim16", EveryFrame)
    return stored


@dataclass
class Scene:
    """A request path and a rival dispatcher (as another process would run it) over the
    service's tables and its OCPP driver, both on `clock`."""

    clock: FakeClock
    actions: ActionService
    rival: Dispatcher
    principal: Principal
    device_id: str
    claimed: int = 0

    async def push(self, command: str = "charge") -> Action:
        request = PushRequest(command=command, parameters={})
        return await self.actions.push(
            self.principal, DeviceType.EV_CHARGER, self.device_id, request
        )

    async def contend(self) -> None:
        """Claims whatever is due, as often as it can."""
        while True:
            self.claimed += await self.rival.run_due("rival-process")
            await asyncio.sleep(0.005)

    async def step(self, push: asyncio.Future[Action], settle_s: float = 0.3) -> None:
        """The lease clock moves on; the push has `settle_s` (real) to act on it."""
        self.clock.advance(STEP_S)
        await asyncio.wait({push}, timeout=settle_s)


async def _scene(service: Service, cp_id: str) -> Scene:
    container = service.container
    clock = FakeClock(datetime.now(UTC))  # ahead of the real worker's clock from here on

    def dispatcher() -> Dispatcher:
        return Dispatcher(
            container.uow,
            container.drivers,
            clock,
            DeviceChangeFeed(),
            RetryPolicy.from_seconds([60]),
            immediate_backoff_s=(0, 0),  # as the test settings: two quick retries
            renew_every_s=RENEW_S,
        )

    actions = ActionService(
        container.uow,
        container.drivers,
        clock,
        DeviceChangeFeed(),
        dispatcher(),
        lambda _due: None,
        cast("PushUnitOfWorkFactory | None", container.push_uow),  # as bootstrap passes it
    )
    caller = await service.live_caller()
    device_id = await service.commission(caller, cp_id)
    principal = Principal(caller.account_id, Environment.LIVE, caller.key_id)
    return Scene(clock, actions, dispatcher(), principal, device_id)


@contextlib.asynccontextmanager
async def contending(scene: Scene) -> AsyncIterator[None]:
    rival = asyncio.create_task(scene.contend())
    try:
        yield
    finally:
        rival.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await rival


async def settled(push: asyncio.Future[Action]) -> Action | BaseException:
    """What the push came to: its action, or what it raised."""
    (outcome,) = await asyncio.wait_for(asyncio.gather(push, return_exceptions=True), WAIT)
    return outcome


def _sent(cp: Charger, seen: int, action: str = PROFILE) -> int:
    return cp.wire.actions()[seen:].count(action)


async def test_a_late_answer_past_the_lease_is_waited_for_not_sent_again(
    service: Service,
) -> None:
    scene = await _scene(service, "CP-LATE-ONCE")
    answers = Answers()
    answers.delay[PROFILE] = 1.2  # real seconds: the lease clock meanwhile moves 10 s
    async with charger(service, "CP-LATE-ONCE", answers=answers) as cp, contending(scene):
        seen = len(cp.wire.calls)
        push = asyncio.ensure_future(scene.push())
        await cp.wire.next_call(PROFILE, seen)
        for _ in range(5):
            await scene.step(push)
        action = await asyncio.wait_for(push, WAIT)
    assert action.state.value == "completed"
    assert (_sent(cp, seen), _sent(cp, seen, START["ocpp1.6"])) == (1, 1)
    assert scene.claimed == 0, "the rival claimed nothing the push held"


async def test_a_silent_charger_gets_the_command_once(service: Service) -> None:
    scene = await _scene(service, "CP-SILENT-ONCE")
    service.container.ocpp.config = OcppConfig(response_timeout_s=0.4, flush_s=0.02)
    answers = Answers()
    answers.delay[PROFILE] = WAIT  # it takes the frame and says nothing
    async with charger(service, "CP-SILENT-ONCE", answers=answers) as cp, contending(scene):
        seen = len(cp.wire.calls)
        push = asyncio.ensure_future(scene.push())
        for _ in range(4):
            await scene.step(push)
        outcome = await settled(push)
        for _ in range(3):  # whatever is left due, the rival would take now
            await scene.step(push)
    assert _sent(cp, seen) == 1, "a command that timed out may have arrived: not sent again"
    assert scene.claimed == 0
    assert isinstance(outcome, PushFailed), outcome
    assert outcome.code == "DEVICE_TIMEOUT"


async def test_a_push_that_cannot_renew_its_lease_stops_before_it_runs_out(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    scene = await _scene(service, "CP-NO-RENEW")
    real_extend = SqlActionRepository.extend_leases

    async def extend(
        self: SqlActionRepository, owner: str, ids: Sequence[str], until: datetime
    ) -> None:
        if owner.startswith("push:"):  # the request's renewals fail (its pool, its link...)
            raise ConnectionError("renewal lost")
        await real_extend(self, owner, ids, until)

    monkeypatch.setattr(SqlActionRepository, "extend_leases", extend)
    answers = Answers()
    answers.delay[PROFILE] = 2.0  # longer than the steps below take
    async with charger(service, "CP-NO-RENEW", answers=answers) as cp, contending(scene):
        seen = len(cp.wire.calls)
        push = asyncio.ensure_future(scene.push())
        await cp.wire.next_call(PROFILE, seen)
        for _ in range(4):  # past the 5 s lease the push took
            await scene.step(push)
        outcome = await settled(push)
    assert _sent(cp, seen) == 1, "nobody sent it again while the push still waited"
    assert scene.claimed == 0
    assert isinstance(outcome, PushFailed), outcome
    assert outcome.code == "DEVICE_TIMEOUT"
