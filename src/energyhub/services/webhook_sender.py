"""The webhook sender (DESIGN "Events go out through an outbox"; CONTRACT 9).

Each due event becomes one delivery per matching endpoint of its account and environment
(enabled, not deleted, its filter accepts the event). A run leases only what it is about
to attempt: deliveries that fit its slots (`domain.delivery_slots`: round-robin over
accounts and endpoints, a cap per endpoint, slots kept for accounts with nothing under
way) are written already leased to it; the others of the event are written due, and due
retries and resends are claimed the same way, a bounded number at a time. Attempts run
outside any transaction; their results are recorded a batch at a time (one executemany),
and only for deliveries the sender still holds. A sender that dies loses nothing: its
leases run out and another sender claims the deliveries again, with the same `webhook-id`
and body (receivers dedupe on them). The loop that keeps the slots busy is the worker's
(`workers/webhook_pump.py`)."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import orjson

from energyhub.domain.clock import Clock
from energyhub.domain.deliveries import (
    DueDelivery,
    WebhookDelivery,
    WebhookEndpoint,
    after_attempt,
    attempt_json,
)
from energyhub.domain.delivery_slots import DeliverySlots, SlotLimits
from energyhub.domain.events import OutboxEvent
from energyhub.domain.webhooks import (
    DEFAULT_RETRY_SCHEDULE_S,
    DeliveryStatus,
    endpoint_accepts,
    previous_secret_in_use,
)
from energyhub.ports.metrics import Metrics
from energyhub.ports.secrets import Cipher
from energyhub.ports.storage import UnitOfWorkFactory
from energyhub.ports.webhooks import AttemptOutcome, AttemptSender, WebhookRequest
from energyhub.services.ids import prefixed_id
from energyhub.services.metrics import NO_METRICS, record_webhook_attempt
from energyhub.services.webhooks import open_signing_secret

log = logging.getLogger(__name__)

LEASE = timedelta(seconds=20)
"""How long a claimed delivery is ours. A live sender renews its leases every quarter of it,
so a slow receiver (15 s timeout) keeps its attempt; a dead sender's work is claimed again
this long after its last renewal."""
CONCURRENCY = 50
PER_ENDPOINT = 20
BATCH = 200  # deliveries one fetch may offer at most
RENEW_CHUNK = 100
"""Leases renewed by one statement: a run holds a bounded number (see `SlotLimits.held`),
and no statement carries more ids than this."""
RECHECK_S = 0.5
"""While slow attempts are under way, how often to look for new due work anyway."""
SECRETS_CACHED = 10_000  # opened signing secrets kept (a rotation leaves the old one unused)


Finished = tuple[DueDelivery, AttemptOutcome | None]  # None: not sent (endpoint gone)


@dataclass(frozen=True, slots=True)
class Fetched:
    """What one look for work leased. `dry`: it saw all the due work it could take (with
    the accounts and endpoints it skipped), so looking again finds nothing new until
    something changes."""

    leased: list[DueDelivery]
    dry: bool  # it saw all it could take, or took nothing
    made_due: bool = False  # a fan-out wrote deliveries due (unleased): claims find more
    saturated: dict[str, frozenset[str]] = field(default_factory=dict)
    """Accounts whose events were left in the outbox because every endpoint of theirs was
    full, with those endpoints: later looks skip them until one has room again."""


class WebhookSender:
    metrics: Metrics = NO_METRICS  # attempts and first-attempt lateness (bootstrap wires it)

    def __init__(
        self,
        uow: UnitOfWorkFactory,
        client: AttemptSender,
        clock: Clock,
        *,
        cipher: Cipher,
        retry_schedule: Sequence[float] = DEFAULT_RETRY_SCHEDULE_S,
        rng: random.Random | None = None,
        concurrency: int = CONCURRENCY,
        per_endpoint: int = PER_ENDPOINT,
        batch: int = BATCH,
        lease: timedelta = LEASE,
        recheck_s: float = RECHECK_S,
    ) -> None:
        """`cipher` opens the stored signing secrets. `rng` draws the retry jitter; tests
        seed it. `concurrency`: attempts at once (a fifth of them kept for accounts with
        none under way), at most `per_endpoint` of them to one endpoint. `batch`:
        deliveries one look for work may lease at most. `recheck_s`: how often a run looks
        for new work while only slow attempts are under way."""
        self._uow = uow
        self._client = client
        self._clock = clock
        self._cipher = cipher
        self._secrets: dict[str, str] = {}  # stored -> in the clear, so each opens once
        self._schedule = tuple(retry_schedule)
        self._rng = rng or random.Random()
        self.limits = SlotLimits(
            concurrency, concurrency // 5, min(per_endpoint, concurrency), quick_ahead=batch
        )
        self.batch = batch
        self._lease = lease
        self.recheck_s = recheck_s

    async def next_due_at(self) -> datetime | None:
        async with self._uow.single_read() as tx:
            return await tx.webhooks.next_due_at()

    # --- fan-out and claiming -------------------------------------------------------------
    async def fan_out(
        self, owner: str, slots: DeliverySlots, budget: int, skip_accounts: Collection[str]
    ) -> Fetched:
        """Turns due events (oldest first, none of `skip_accounts`) into deliveries, in one
        transaction (an event's row is locked meanwhile, so no two senders fan it out),
        until about `budget` deliveries are made. Those `slots` admits are written leased
        to `owner`; the others are written due, for a later claim: a slow endpoint's
        deliveries wait as rows, not in memory, and the events behind them are not held up.
        An event of an account all of whose endpoints are full waits in the outbox instead
        (making rows only to claim them later would double the work)."""
        now = self._clock.now()
        leased: list[DueDelivery] = []
        try:
            async with self._uow() as tx:
                events = await tx.webhooks.due_events(now, budget, skip_accounts)
                if not events:
                    return Fetched([], True)
                accounts = sorted({e.account_id for e in events})
                active = await tx.webhooks.active_endpoints(accounts)
                scopes = _by_scope(active)
                taken: list[str] = []
                unleased: list[WebhookDelivery] = []
                saturated: dict[str, frozenset[str]] = {}
                for event in events:
                    if len(leased) + len(unleased) >= budget:
                        break
                    if event.account_id in saturated:
                        continue
                    made = list(_deliveries_for(event, scopes, now))
                    admitted = slots.admit(made) if made else []
                    if made and not admitted:
                        own = frozenset(e.id for e in active if e.account_id == event.account_id)
                        if all(slots.endpoint_full(e) for e in own):
                            saturated[event.account_id] = own
                            continue
                    ids = {d.delivery.id for d in admitted}
                    leased.extend(admitted)
                    unleased.extend(d.delivery for d in made if d.delivery.id not in ids)
                    taken.append(event.id)
                await tx.webhooks.add_deliveries(
                    [d.delivery for d in leased], owner, now + self._lease
                )
                await tx.webhooks.add_deliveries(unleased)
                await tx.webhooks.mark_fanned_out(taken, now)
        except BaseException:
            slots.withdraw(leased)
            raise
        slots.leased(leased)  # committed: they may start (a result recorded earlier is lost)
        saw_all = len(events) < budget and len(taken) == len(events)
        # events left for full accounts: the next look skips those accounts and goes on
        return Fetched(leased, saw_all or not (taken or saturated), bool(unleased), saturated)

    async def claim(
        self,
        owner: str,
        slots: DeliverySlots,
        budget: int,
        skip_accounts: Collection[str],
        skip_endpoints: Collection[str],
        held: Collection[str] = (),
    ) -> Fetched:
        """Leases the due retries, resends and waiting deliveries that `slots` admits, of up
        to `budget` due ones (earliest first) not of `skip_accounts` or `skip_endpoints`
        and not already `held` by this run."""
        now = self._clock.now()
        picked: list[DueDelivery] = []
        try:
            async with self._uow() as tx:
                due = await tx.webhooks.due_deliveries(now, budget, skip_accounts, skip_endpoints)
                picked = slots.admit(d for d in due if d.delivery.id not in held)
                await tx.webhooks.lease_deliveries(
                    owner, [d.delivery.id for d in picked], now + self._lease
                )
        except BaseException:
            slots.withdraw(picked)
            raise
        slots.leased(picked)
        saw_all = len(due) < budget and len(picked) == len(due)
        return Fetched(picked, saw_all or not picked)

    async def keep_leases(self, owner: str, held: Callable[[], list[str]]) -> None:
        """Renews every lease the run holds, every quarter of the lease, `RENEW_CHUNK` ids a
        statement (and a transaction), so no statement grows with the work held."""
        while True:
            await asyncio.sleep(self._lease.total_seconds() / 4)
            ids = held()
            until = self._clock.now() + self._lease
            for start in range(0, len(ids), RENEW_CHUNK):
                chunk = ids[start : start + RENEW_CHUNK]
                try:
                    async with self._uow() as tx:
                        await tx.webhooks.extend_leases(owner, chunk, until)
                except Exception:
                    log.exception("renewing %d webhook delivery leases failed", len(chunk))

    # --- attempts -------------------------------------------------------------------------
    def _secret(self, stored: str) -> str:
        opened = self._secrets.get(stored)
        if opened is None:
            if len(self._secrets) >= SECRETS_CACHED:
                self._secrets.clear()
            opened = self._secrets[stored] = open_signing_secret(self._cipher, stored)
        return opened

    async def attempt(self, due: DueDelivery) -> AttemptOutcome:
        delivery = due.delivery
        request = WebhookRequest(
            delivery_id=delivery.id,
            event_type=delivery.event_type,
            url=due.url,
            secret=self._secret(due.secret),
            body=delivery.body.encode(),
            environment=delivery.environment,
            previous_secret=None
            if due.previous_secret is None
            else self._secret(due.previous_secret),
        )
        try:
            outcome = await self._client.send(request)
        except Exception as error:  # a bug, not the receiver: record it, keep the schedule
            log.error(
                "webhook delivery %s could not be attempted: %s", delivery.id, type(error).__name__
            )
            record_webhook_attempt(self.metrics, delivery, None)
            return AttemptOutcome(self._clock.now(), None, 0, "internal error")
        record_webhook_attempt(self.metrics, delivery, outcome)
        if not outcome.succeeded:
            log.debug(
                "webhook delivery %s to endpoint %s: attempt failed (%s, %s)",
                delivery.id,
                delivery.endpoint_id,
                outcome.http_status,
                outcome.error,
            )
        return outcome

    async def record(self, owner: str, finished: Sequence[Finished]) -> int:
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
        answer = delivery.response_body
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
            answer = outcome.response_body
        return dict(
            row_id=delivery.id,
            status=status.value,
            attempts=attempts,
            next_attempt_at=next_at,
            updated_at=now,
            response_body=answer,
        )


def _by_scope(
    endpoints: Iterable[WebhookEndpoint],
) -> dict[tuple[str, str], list[WebhookEndpoint]]:
    by_scope: dict[tuple[str, str], list[WebhookEndpoint]] = {}
    for endpoint in endpoints:
        by_scope.setdefault((endpoint.account_id, endpoint.environment), []).append(endpoint)
    return by_scope


def _deliveries_for(
    event: OutboxEvent, scopes: dict[tuple[str, str], list[WebhookEndpoint]], now: datetime
) -> Iterable[DueDelivery]:
    """One delivery per matching endpoint: same account and environment, and the endpoint's
    filter accepts the event."""
    body: str | None = None
    for endpoint in scopes.get((event.account_id, event.environment), ()):
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
        previous = previous_secret_in_use(
            endpoint.previous_secret, endpoint.previous_secret_expires_at, now
        )
        yield DueDelivery(delivery, endpoint.url, endpoint.secret, previous_secret=previous)
