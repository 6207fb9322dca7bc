"""One run of the webhook sender: a pump that keeps the sender's slots busy, fairly. The
use case's steps (fan out, claim, attempt, record, renew leases) are `WebhookSender`'s; the
loop that drives them is a worker's.

It looks for work (new events to fan out, then due deliveries to claim, in turn) while
attempts run, leasing only what its `DeliverySlots` admit; starts attempts as slots free
up, round-robin over accounts and endpoints; and records finished attempts in batches, in
the background too. A look that found nothing is not repeated with the same (or more)
accounts and endpoints skipped until `recheck_s` passes or the run is woken: skipping a
noisy tenant's backlog costs a scan, done twice a second at most."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from energyhub.domain.deliveries import DueDelivery
from energyhub.domain.delivery_slots import DeliverySlots
from energyhub.ports.webhooks import AttemptOutcome
from energyhub.services.webhook_sender import Fetched, Finished, WebhookSender

log = logging.getLogger(__name__)

EVENTS, DUE = "events", "due"
RECORD_BATCH = 50
RECORD_WITHIN_S = 0.2  # a finished attempt waits at most this long for a fuller batch
MAX_RECORDERS = 2
Skips = tuple[frozenset[str], frozenset[str]]  # accounts, endpoints


async def run_due(sender: WebhookSender, owner: str, wakeup: asyncio.Event | None = None) -> int:
    """Fans out due events and attempts every due delivery; returns when nothing due is
    left and every attempt is recorded, with how many deliveries it attempted or ended.
    `wakeup`, when set meanwhile, makes it look for new work at once."""
    return await SenderRun(sender, owner, wakeup).run()


class SenderRun:
    def __init__(self, sender: WebhookSender, owner: str, wakeup: asyncio.Event | None) -> None:
        self.s = sender
        self.owner = owner
        self.wakeup = wakeup
        self.slots = DeliverySlots(sender.limits)
        self.sending: dict[asyncio.Task[AttemptOutcome], DueDelivery] = {}
        self.started: dict[asyncio.Task[AttemptOutcome], float] = {}
        self.finished: list[Finished] = []
        self.recording: dict[asyncio.Task[int], list[Finished]] = {}
        self.fetching: tuple[asyncio.Task[Fetched], str, Skips, int] | None = None
        self.generation = 0  # a wake-up starts a new one: a look begun before it is stale
        self.dry: dict[str, tuple[Skips, float]] = {}  # source -> skips and when it was dry
        self.last_source: str | None = None
        self.waiter: asyncio.Task[bool] | None = None
        self.done = 0
        self.fetch_failed = False
        self.saturated: dict[str, frozenset[str]] = {}  # see Fetched.saturated
        self.first_finished: float | None = None  # when the oldest unrecorded one ended
        self.looked_at = asyncio.get_running_loop().time()  # the last look_again
        self.fetched_at = (-1, 0.0)  # the generation and the time of the last fetch begun

    async def run(self) -> int:
        keeper = asyncio.create_task(self.s.keep_leases(self.owner, self.held))
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
        """Every delivery whose lease this run holds: waiting, under way or being recorded."""
        recording = [due for batch in self.recording.values() for due, _ in batch]
        done = [*(d for d, _ in self.finished), *recording]
        return [
            *self.slots.waiting_ids(),
            *(d.delivery.id for d in self.sending.values()),
            *(d.delivery.id for d in done),
        ]

    def idle(self) -> bool:
        busy = self.slots.held or self.sending or self.finished or self.recording
        return not busy and self.fetching is None and len(self.dry) == 2

    def look_again(self) -> None:
        if self.wakeup is not None:
            self.wakeup.clear()
        self.dry.clear()
        self.looked_at = asyncio.get_running_loop().time()
        self.generation += 1
        self.last_source = None  # new events first

    def skips(self, source: str) -> Skips:
        """What a look at `source` skips. Claims skip accounts and endpoints once half their
        waiting room is used (so they fetch in batches). Fan-out skips full accounts and
        those whose every endpoint is full; an event of another account is made into
        deliveries even when some of its endpoints are full (those wait as due rows), so
        the account's other endpoints, and the events behind it, are not held up."""
        endpoints = frozenset(self.slots.full_endpoints())
        if source == DUE:
            return frozenset(self.slots.full_accounts()), endpoints
        for account, own in list(self.saturated.items()):
            if not own <= endpoints:  # one of its endpoints has room again
                del self.saturated[account]
        return frozenset({*self.slots.full_accounts(half=False), *self.saturated}), frozenset()

    def is_dry(self, source: str, skips: Skips) -> bool:
        """Whether looking at `source` with these skips would find nothing new."""
        found = self.dry.get(source)
        if found is None:
            return False
        (accounts, endpoints), at = found
        if asyncio.get_running_loop().time() - at > self.s.recheck_s:
            del self.dry[source]
            return False
        return skips[0] >= accounts and skips[1] >= endpoints

    def fetch(self) -> None:
        if self.fetching is not None or self.fetch_failed:
            return
        if self.slots.room() <= 0 or not self.worth_a_look():
            return
        sources = [s for s in (EVENTS, DUE) if not self.is_dry(s, self.skips(s))]
        if not sources:
            return
        source = sources[0] if len(sources) == 1 or self.last_source != EVENTS else sources[1]
        skips = self.skips(source)
        accounts, endpoints = skips
        budget = min(self.slots.room(), self.s.batch)
        if source == EVENTS:
            work = self.s.fan_out(self.owner, self.slots, budget, accounts)
        else:  # a claim reads whole rows: not many more than one can take
            budget = min(budget, 2 * self.slots.limits.waiting_per_endpoint)
            held = set(self.held())  # a claim may find a lease this run holds: not twice
            work = self.s.claim(self.owner, self.slots, budget, accounts, endpoints, held)
        self.fetching = (asyncio.create_task(work), source, skips, self.generation)
        self.last_source = source
        self.fetched_at = (self.generation, asyncio.get_running_loop().time())

    def worth_a_look(self) -> bool:
        """Whether to look for work now: when a full batch fits, when what waits would not
        keep the slots busy for long, or when the run was woken (or `recheck_s` passed)
        since the last look. Looking whenever a lease is free would fetch a few deliveries
        a time: on PostgreSQL, a round trip for every few deliveries."""
        slots, (generation, at) = self.slots, self.fetched_at
        return (
            slots.room() >= min(self.s.batch, slots.capacity)
            or slots.waiting < slots.limits.slots
            or generation != self.generation
            or asyncio.get_running_loop().time() - at >= self.s.recheck_s
        )

    def start_attempts(self) -> None:
        now = asyncio.get_running_loop().time()
        while (due := self.slots.start_next()) is not None:
            task = asyncio.create_task(self.s.attempt(due))
            self.sending[task] = due
            self.started[task] = now

    def record(self) -> None:
        if not self.finished or len(self.recording) >= MAX_RECORDERS:
            return
        if len(self.finished) >= RECORD_BATCH or not self.sending or self.record_wait() <= 0:
            batch, self.finished = self.finished, []
            self.first_finished = None
            self.recording[asyncio.create_task(self.s.record(self.owner, batch))] = batch

    def record_wait(self) -> float:
        """Seconds until the oldest finished attempt should be recorded."""
        if self.first_finished is None:
            return RECORD_WITHIN_S
        return self.first_finished + RECORD_WITHIN_S - asyncio.get_running_loop().time()

    async def wait(self) -> None:
        waiting: set[asyncio.Task[Any]] = {*self.sending, *self.recording}
        if self.fetching is not None:
            waiting.add(self.fetching[0])
        if self.wakeup is not None:
            if self.waiter is None or self.waiter.done():
                self.waiter = asyncio.create_task(self.wakeup.wait())
            waiting.add(self.waiter)
        # not looking: tick, so a look found dry is repeated after recheck_s at the latest
        timeout = None if self.fetching else self.s.recheck_s
        if self.finished and len(self.recording) < MAX_RECORDERS:  # record them in time
            timeout = max(0.0, min(timeout or RECORD_WITHIN_S, self.record_wait()))
        done: set[asyncio.Task[Any]] = set()
        if waiting:
            done, _ = await asyncio.wait(
                waiting, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
        elif timeout is not None:
            await asyncio.sleep(timeout)
        loop = asyncio.get_running_loop()
        for task in done:
            if task in self.sending:
                due = self.sending.pop(task)
                self.slots.finished(due, loop.time() - self.started.pop(task))
                self.finished.append((due, task.result()))
                if self.first_finished is None:
                    self.first_finished = loop.time()
            elif task in self.recording:
                del self.recording[task]
                self.done += task.result()
            elif self.fetching is not None and task is self.fetching[0]:
                self.fetched(task)
        if self.wakeup is not None and self.wakeup.is_set():
            self.look_again()
        elif not done and loop.time() - self.looked_at >= self.s.recheck_s:
            self.look_again()  # recheck_s passed with slow attempts under way

    def fetched(self, task: asyncio.Task[Fetched]) -> None:
        assert self.fetching is not None
        _, source, skips, generation = self.fetching
        self.fetching = None
        try:
            found = task.result()
        except Exception:
            log.exception("looking for due webhook work failed")
            self.fetch_failed = True
            self.dry[EVENTS] = self.dry[DUE] = (skips, asyncio.get_running_loop().time())
            return
        # ended unsent (their endpoint is gone): they take no slot
        self.finished.extend((due, None) for due in found.leased if not due.deliverable)
        self.saturated.update(found.saturated)
        if found.made_due:
            self.dry.pop(DUE, None)
        if found.dry and generation == self.generation:
            self.dry[source] = (skips, asyncio.get_running_loop().time())
        # a look that found work leaves an earlier dry look (with more skipped) standing:
        # nothing new came for what that one skipped
