"""The webhook sender (DESIGN "Events go out through an outbox"; CONTRACT 9).

Each due event becomes one delivery per matching endpoint of its account and environment
(enabled, not deleted, its filter accepts the event), written already leased to this
sender, which attempts it at once. Due retries and resends are claimed with a lease. Up to
`concurrency` attempts run side by side, outside any transaction; their results are
recorded a batch at a time (one executemany), and only for deliveries the sender still
holds. A sender that dies loses nothing: its leases run out and another sender claims the
deliveries again, with the same `webhook-id` and body (receivers dedupe on them)."""

from __future__ import annotations

import asyncio
import logging
import random
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol

import orjson

from energyhub.domain.clock import Clock
from energyhub.domain.deliveries import (
    DueDelivery,
    WebhookDelivery,
    WebhookEndpoint,
    after_attempt,
    attempt_json,
)
from energyhub.domain.events import OutboxEvent
from energyhub.domain.webhooks import DEFAULT_RETRY_SCHEDULE_S, DeliveryStatus, endpoint_accepts
from energyhub.outbound.webhook_client import AttemptOutcome, WebhookRequest
from energyhub.services.ids import prefixed_id
from energyhub.services.ports import UnitOfWorkFactory
from energyhub.services.secrets import CredentialCipher
from energyhub.services.webhooks import open_signing_secret

log = logging.getLogger(__name__)

LEASE = timedelta(seconds=20)
"""How long a claimed delivery is ours. A live sender renews its leases every quarter of it,
so a slow receiver (15 s timeout) keeps its attempt; a dead sender's work is claimed again
this long after its last renewal."""
CONCURRENCY = 50
BATCH = 200
RECORD_BATCH = 50
RECHECK_S = 0.5
SECRETS_CACHED = 10_000  # opened signing secrets kept (a rotation leaves the old one unused)
"""While slow attempts are under way, how often to look for new due work anyway."""


class AttemptSender(Protocol):
    """`outbound.webhook_client.WebhookClient`, or a fake in tests."""

    async def send(self, request: WebhookRequest) -> AttemptOutcome: ...


Finished = tuple[DueDelivery, AttemptOutcome | None]  # None: not sent (endpoint gone)


class WebhookSender:
    def __init__(
        self,
        uow: UnitOfWorkFactory,
        client: AttemptSender,
        clock: Clock,
        *,
        cipher: CredentialCipher,
        retry_schedule: Sequence[float] = DEFAULT_RETRY_SCHEDULE_S,
        rng: random.Random | None = None,
        concurrency: int = CONCURRENCY,
        batch: int = BATCH,
        lease: timedelta = LEASE,
        recheck_s: float = RECHECK_S,
    ) -> None:
        """`cipher` opens the stored signing secrets. `rng` draws the retry jitter; tests
        seed it. `recheck_s`: how often a run looks for new work while only slow attempts
        are under way."""
        self._uow = uow
        self._client = client
        self._clock = clock
        self._cipher = cipher
        self._secrets: dict[str, str] = {}  # stored -> in the clear, so each opens once
        self._schedule = tuple(retry_schedule)
        self._rng = rng or random.Random()
        self._concurrency = concurrency
        self._batch = batch
        self._lease = lease
        self._recheck_s = recheck_s

    async def next_due_at(self) -> datetime | None:
        async with self._uow() as tx:
            return await tx.webhooks.next_due_at()

    async def run_due(self, owner: str, wakeup: asyncio.Event | None = None) -> int:
        """Fans out due events and attempts every due delivery; returns when nothing due is
        left and every attempt is recorded, with how many deliveries it attempted or ended.
        `wakeup`, when set meanwhile, makes it look for new work at once."""
        return await _Run(self, owner, wakeup).run()

    # --- fan-out and claiming -------------------------------------------------------------
    async def fan_out(self, owner: str, limit: int) -> tuple[list[DueDelivery], int]:
        """Turns up to `limit` due events into deliveries, leased to `owner`, in one
        transaction (an event's row is locked meanwhile, so no two senders fan it out).
        Returns the deliveries and how many events it took (fewer than `limit`: no more
        are due)."""
        now = self._clock.now()
        async with self._uow() as tx:
            events = await tx.webhooks.due_events(now, limit)
            if not events:
                return [], 0
            endpoints = await tx.webhooks.active_endpoints(sorted({e.account_id for e in events}))
            made = list(_deliveries_for(events, endpoints, now))
            await tx.webhooks.add_deliveries([d.delivery for d in made], owner, now + self._lease)
            await tx.webhooks.mark_fanned_out([e.id for e in events], now)
        return made, len(events)

    async def claim(self, owner: str, limit: int) -> tuple[list[DueDelivery], int]:
        """Leases up to `limit` due retries and resends; returns them and their number."""
        now = self._clock.now()
        async with self._uow() as tx:
            claimed = await tx.webhooks.claim_due(owner, now, now + self._lease, limit)
        return claimed, len(claimed)

    # --- attempts -------------------------------------------------------------------------
    def _secret(self, stored: str) -> str:
        opened = self._secrets.get(stored)
        if opened is None:
            if len(self._secrets) >= SECRETS_CACHED:
                self._secrets.clear()
            opened = self._secrets[stored] = open_signing_secret(self._cipher, stored)
        return opened

    async def _attempt(self, due: DueDelivery) -> AttemptOutcome:
        delivery = due.delivery
        request = WebhookRequest(
            delivery_id=delivery.id,
            event_type=delivery.event_type,
            url=due.url,
            secret=self._secret(due.secret),
            body=delivery.body.encode(),
            environment=delivery.environment,
        )
        try:
            outcome = await self._client.send(request)
        except Exception as error:  # a bug, not the receiver: record it, keep the schedule
            log.error(
                "webhook delivery %s could not be attempted: %s", delivery.id, type(error).__name__
            )
            return AttemptOutcome(self._clock.now(), None, 0, "internal error")
        if not outcome.succeeded:
            log.debug(
                "webhook delivery %s to endpoint %s: attempt failed (%s, %s)",
                delivery.id,
                delivery.endpoint_id,
                outcome.http_status,
                outcome.error,
            )
        return outcome

    async def _record(self, owner: str, finished: Sequence[Finished]) -> int:
        """Stores each attempt and what follows it, in one executemany that skips the
        deliveries this sender no longer holds. A failure leaves them to their leases.
        Returns how many it stored or tried to."""
        now = self._clock.now()
        try:
            async with self._uow() as tx:
                await tx.webhooks.record_attempts(
                    owner, [self._changes(due.delivery, outcome, now) for due, outcome in finished]
                )
        except Exception:
            log.exception("recording %d webhook attempts failed; leases will expire", len(finished))
            return 0
        return len(finished)

    def _changes(
        self, delivery: WebhookDelivery, outcome: AttemptOutcome | None, now: datetime
    ) -> dict[str, Any]:
        attempts = list(delivery.attempts)
        status: DeliveryStatus
        next_at: datetime | None
        if outcome is None:  # its endpoint was deleted or disabled: end it unsent
            status = (
                DeliveryStatus.FAILED
                if delivery.status is DeliveryStatus.PENDING
                else delivery.status
            )
            next_at = None
        else:
            attempts.append(
                attempt_json(outcome.at, outcome.http_status, outcome.duration_ms, outcome.error)
            )
            status, next_at = after_attempt(
                delivery.status, len(attempts), outcome.succeeded, now, self._schedule, self._rng
            )
        return dict(
            row_id=delivery.id,
            status=status.value,
            attempts=attempts,
            next_attempt_at=next_at,
            updated_at=now,
        )

    async def _keep_leases(self, owner: str, held: Callable[[], list[str]]) -> None:
        while True:
            await asyncio.sleep(self._lease.total_seconds() / 4)
            ids = held()
            if not ids:
                continue
            try:
                async with self._uow() as tx:
                    await tx.webhooks.extend_leases(owner, ids, self._clock.now() + self._lease)
            except Exception:
                log.exception("renewing %d webhook delivery leases failed", len(ids))


EVENTS, RETRIES = "events", "retries"


class _Run:
    """One `run_due`: a pump that keeps up to `concurrency` attempts under way, fetches more
    work while they run (new events' deliveries first, then due retries, in turn), and
    records finished attempts in batches, recording in the background too."""

    MAX_RECORDERS = 2

    def __init__(self, sender: WebhookSender, owner: str, wakeup: asyncio.Event | None) -> None:
        self.s = sender
        self.owner = owner
        self.wakeup = wakeup
        self.queue: deque[DueDelivery] = deque()
        self.sending: dict[asyncio.Task[AttemptOutcome], DueDelivery] = {}
        self.finished: list[Finished] = []
        self.recording: dict[asyncio.Task[int], list[Finished]] = {}
        self.fetching: tuple[asyncio.Task[tuple[list[DueDelivery], int]], str, int] | None = None
        self.exhausted: set[str] = set()  # sources that had nothing more at their last look
        self.last_source: str | None = None
        self.waiter: asyncio.Task[bool] | None = None
        self.done = 0
        self.fetch_failed = False

    async def run(self) -> int:
        keeper = asyncio.create_task(self.s._keep_leases(self.owner, self.held))
        try:
            while True:
                self.fetch()
                self.start_attempts()
                self.record()
                if self.idle():
                    if self.wakeup is not None and self.wakeup.is_set():
                        self.look_again()
                        continue
                    if self.fetch_failed:  # the worker backs off before trying again
                        raise RuntimeError("looking for due webhook work failed (logged)")
                    return self.done
                await self.wait()
        finally:
            leftovers: list[asyncio.Task[Any]] = [keeper, *self.sending, *self.recording]
            if self.fetching is not None:
                leftovers.append(self.fetching[0])
            if self.waiter is not None:
                leftovers.append(self.waiter)
            for task in leftovers:
                task.cancel()
            await asyncio.gather(*leftovers, return_exceptions=True)

    def held(self) -> list[str]:
        recording = [due for batch in self.recording.values() for due, _ in batch]
        pending = [*self.queue, *self.sending.values(), *(d for d, _ in self.finished)]
        return [due.delivery.id for due in (*pending, *recording)]

    def idle(self) -> bool:
        return (
            not (self.queue or self.sending or self.finished or self.recording or self.fetching)
            and len(self.exhausted) == 2
        )

    def look_again(self) -> None:
        if self.wakeup is not None:
            self.wakeup.clear()
        self.exhausted.clear()
        self.last_source = None  # new events first

    def fetch(self) -> None:
        if self.fetching is not None or len(self.queue) >= self.s._concurrency:
            return
        sources = [s for s in (EVENTS, RETRIES) if s not in self.exhausted]
        if not sources:
            return
        source = sources[0] if len(sources) == 1 or self.last_source != EVENTS else sources[1]
        limit = self.s._batch
        work = self.s.fan_out if source == EVENTS else self.s.claim
        self.fetching = (asyncio.create_task(work(self.owner, limit)), source, limit)
        self.last_source = source

    def start_attempts(self) -> None:
        while self.queue and len(self.sending) < self.s._concurrency:
            due = self.queue.popleft()
            if due.deliverable:
                self.sending[asyncio.create_task(self.s._attempt(due))] = due
            else:
                self.finished.append((due, None))

    def record(self) -> None:
        if not self.finished or len(self.recording) >= self.MAX_RECORDERS:
            return
        if (
            len(self.finished) >= RECORD_BATCH
            or not self.sending
            or (not self.queue and len(self.finished) >= len(self.sending))
        ):
            batch, self.finished = self.finished, []
            self.recording[asyncio.create_task(self.s._record(self.owner, batch))] = batch

    async def wait(self) -> None:
        waiting: set[asyncio.Task[Any]] = {*self.sending, *self.recording}
        if self.fetching is not None:
            waiting.add(self.fetching[0])
        looking = len(self.exhausted) < 2
        if not looking and self.wakeup is not None:
            if self.waiter is None or self.waiter.done():
                self.waiter = asyncio.create_task(self.wakeup.wait())
            waiting.add(self.waiter)
        if not waiting:
            return
        done, _ = await asyncio.wait(
            waiting,
            timeout=None if looking or self.fetching else self.s._recheck_s,
            return_when=asyncio.FIRST_COMPLETED,
        )
        for task in done:
            if task in self.sending:
                self.finished.append((self.sending.pop(task), task.result()))
            elif task in self.recording:
                del self.recording[task]
                self.done += task.result()
            elif self.fetching is not None and task is self.fetching[0]:
                self.fetched(task)
        if self.wakeup is not None and self.wakeup.is_set():
            self.look_again()
        elif not done:
            self.look_again()  # RECHECK_S passed with slow attempts under way

    def fetched(self, task: asyncio.Task[tuple[list[DueDelivery], int]]) -> None:
        assert self.fetching is not None
        _, source, limit = self.fetching
        self.fetching = None
        try:
            found, taken = task.result()
        except Exception:
            log.exception("looking for due webhook work failed")
            self.fetch_failed = True
            self.exhausted.add(source)
            return
        held = set(self.held())  # a claim may renew a lease this run holds: not twice
        self.queue.extend(due for due in found if due.delivery.id not in held)
        if taken < limit:
            self.exhausted.add(source)
        else:
            self.exhausted.discard(source)


def _deliveries_for(
    events: Iterable[OutboxEvent], endpoints: Iterable[WebhookEndpoint], now: datetime
) -> Iterable[DueDelivery]:
    """One delivery per event and matching endpoint: same account and environment, and the
    endpoint's filter accepts the event."""
    by_scope: dict[tuple[str, str], list[WebhookEndpoint]] = {}
    for endpoint in endpoints:
        by_scope.setdefault((endpoint.account_id, endpoint.environment), []).append(endpoint)
    for event in events:
        body: str | None = None
        for endpoint in by_scope.get((event.account_id, event.environment), ()):
            if not endpoint_accepts(endpoint.events, event.type):
                continue
            if body is None:
                body = orjson.dumps(event.payload).decode()
            delivery = WebhookDelivery(
                id=prefixed_id("msg"),
                event_id=event.id,
                endpoint_id=endpoint.id,
                account_id=event.account_id,
                environment=event.environment,
                event_type=event.type.value,
                body=body,
                status=DeliveryStatus.PENDING,
                attempts=(),
                next_attempt_at=now,
                created_at=now,
                updated_at=now,
            )
            yield DueDelivery(delivery, endpoint.url, endpoint.secret)
