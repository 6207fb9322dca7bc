"""How the webhook sender shares its attempt slots between accounts and endpoints. Pure: the
sender (services/webhook_sender.py) asks it what to lease and what to start next.

A slow receiver holds a slot for up to the attempt timeout (15 s), so a tenant with many
slow endpoints must not be able to take every slot, nor every lease: a bystander's first
attempt has to start within 2 s of its event. The rules:
- free slots go round-robin over accounts, and within an account over its endpoints;
- at most `per_endpoint` attempts run at once to one endpoint, unless its last attempt
  was quick (then the account's share applies: a fast receiver is not slowed down, and a
  slow one never gets more). That is remembered while the endpoint has nothing to send:
  a fast receiver drains its share between two fetches, and forgetting it then would
  hold every next batch to `per_endpoint` (on PostgreSQL, half the throughput);
- an account that already has an attempt under way may not take the last `reserve`
  slots: those are kept for accounts with nothing under way;
- leased deliveries waiting for a slot are bounded per endpoint, per account and in all
  (`held`), with `reserve` more leases kept for accounts that hold nothing, and
  `quick_ahead` more, beyond the account's share and outside `held`, for quick endpoints
  only: a fast receiver drains its share between two fetches, so each fetch for it must
  bring a full batch, without taking other accounts' leases.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass

from energyhub.domain.deliveries import DueDelivery


@dataclass(frozen=True, slots=True)
class SlotLimits:
    slots: int = 50
    """Attempts under way at once (the HTTP client's connection pool is as large)."""
    reserve: int = 10
    """Slots, and leases, only an account with nothing under way may take."""
    per_endpoint: int = 20
    """Attempts under way at once to one endpoint."""
    quick_ahead: int = 0
    """Deliveries that may wait for quick endpoints beyond their account's share and
    outside `held` (in all): the sender sets a fetch's batch."""

    @property
    def waiting_per_endpoint(self) -> int:
        return 2 * self.per_endpoint

    @property
    def waiting_per_account(self) -> int:
        return 2 * self.waiting_per_endpoint

    @property
    def held(self) -> int:
        """Deliveries leased at once (under way or waiting for a slot), new accounts aside."""
        return 2 * self.slots


QUICK_S = 1.0
"""An endpoint whose last attempt took less than this is not held to `per_endpoint`."""
SHARE, AHEAD = "share", "ahead"  # how a delivery was admitted: see `_way_in`
QUICK_REMEMBERED = 10_000
"""Quick endpoints remembered at most (the oldest is forgotten first): a long run does not
keep every endpoint it served."""


class DeliverySlots:
    """The leased deliveries of one sender run: those waiting for a slot, by account and
    endpoint in round-robin order, and counts of those under way."""

    def __init__(self, limits: SlotLimits) -> None:
        self.limits = limits
        self._ready: dict[str, dict[str, deque[DueDelivery]]] = {}  # account -> endpoint
        self._running_account: Counter[str] = Counter()
        self._running_endpoint: Counter[str] = Counter()
        self._waiting_account: Counter[str] = Counter()
        self._waiting_endpoint: Counter[str] = Counter()
        self.running = 0
        self.waiting = 0
        self._quick: dict[str, str] = {}  # endpoints that answer fast (oldest first): account
        self._ahead: Counter[str] = Counter()  # waiting beyond the account's share
        self.ahead = 0

    @property
    def held(self) -> int:
        return self.running + self.waiting

    def room(self) -> int:
        """How many more deliveries a fetch may offer (`admit` takes those that fit)."""
        limits = self.limits
        ahead = limits.quick_ahead - self.ahead if self._quick else 0
        return max(0, limits.held + limits.reserve - self.shared) + ahead

    @property
    def capacity(self) -> int:
        """The most `room` can be (with nothing held)."""
        ahead = self.limits.quick_ahead if self._quick else 0
        return self.limits.held + self.limits.reserve + ahead

    @property
    def shared(self) -> int:
        """Leases held within the accounts' shares (those `held` bounds)."""
        return self.held - self.ahead

    def has_room(self, account_id: str, quick: bool = False) -> bool:
        """Whether `admit` could take a delivery of this account (of an endpoint with room;
        `quick`: one that answers fast)."""
        return self._way_in(account_id, quick) is not None

    def _way_in(self, account_id: str, quick: bool) -> str | None:
        """How `admit` may take a delivery of this account: within the shared leases, as
        part of a quick endpoint's batch beyond them, or not at all."""
        limits = self.limits
        waiting = self._waiting_account[account_id]
        if waiting < limits.waiting_per_account:
            new = not (self._running_account[account_id] or waiting)
            if self.shared < limits.held or (new and self.shared < limits.held + limits.reserve):
                return SHARE
        return AHEAD if quick and self.ahead < limits.quick_ahead else None

    def admit(self, offered: Iterable[DueDelivery]) -> list[DueDelivery]:
        """Takes, in order, the offered deliveries that fit, and returns them: the caller
        leases exactly these, then calls `leased` (or `withdraw` if that failed); until then
        they count against the limits but are not started. Deliveries of a deleted or
        disabled endpoint take no slot (they are ended unsent) and are always taken."""
        taken: list[DueDelivery] = []
        for due in offered:
            if not due.deliverable:
                taken.append(due)
                continue
            account, endpoint = due.delivery.account_id, due.delivery.endpoint_id
            way = self._way_in(account, endpoint in self._quick)
            if way is None or self.endpoint_full(endpoint):
                continue
            if way is AHEAD:
                self._ahead[account] += 1
                self.ahead += 1
            self._waiting_account[account] += 1
            self._waiting_endpoint[endpoint] += 1
            self.waiting += 1
            taken.append(due)
        return taken

    def leased(self, admitted: Iterable[DueDelivery]) -> None:
        """Admitted deliveries are now leased (committed): they may start."""
        for due in admitted:
            if due.deliverable:
                account, endpoint = due.delivery.account_id, due.delivery.endpoint_id
                self._ready.setdefault(account, {}).setdefault(endpoint, deque()).append(due)

    def withdraw(self, admitted: Iterable[DueDelivery]) -> None:
        """Forgets admitted deliveries that were not leased after all (the fetch failed)."""
        for due in admitted:
            if due.deliverable:
                self._forget_one(due.delivery.account_id, due.delivery.endpoint_id)

    def full_accounts(self, *, half: bool = True) -> list[str]:
        """Accounts a fetch should skip: (half) their waiting room is used, or every lease
        is (then only accounts holding nothing, or with a quick endpoint while some of
        `quick_ahead` is left, may add work)."""
        if self.shared >= self.limits.held:
            busy = {*self._running_account, *self._waiting_account}
            if self.ahead < self.limits.quick_ahead:
                busy.difference_update(self._quick.values())
            return sorted(busy)
        least = self.limits.waiting_per_account // (2 if half else 1)
        return sorted(a for a, n in self._waiting_account.items() if n >= least)

    def endpoint_full(self, endpoint_id: str) -> bool:
        """Whether `admit` would refuse a delivery to this endpoint now."""
        return self._waiting_endpoint[endpoint_id] >= self._waiting_cap(endpoint_id)

    def _waiting_cap(self, endpoint_id: str) -> int:
        limits = self.limits
        quick = endpoint_id in self._quick
        if quick:
            return limits.waiting_per_account + limits.quick_ahead
        return limits.waiting_per_endpoint

    def full_endpoints(self) -> list[str]:
        """Endpoints a claim should skip: half their waiting room is used."""
        waiting = self._waiting_endpoint
        return sorted(e for e, n in waiting.items() if 2 * n >= self._waiting_cap(e))

    def start_next(self) -> DueDelivery | None:
        """The next delivery to attempt, round-robin over accounts and then endpoints, if a
        slot is free for it; it counts as under way until `finished`."""
        limits = self.limits
        if self.running >= limits.slots:
            return None
        crowded = self.running >= limits.slots - limits.reserve
        for account, endpoints in self._ready.items():
            if crowded and self._running_account[account]:
                continue
            for endpoint, queue in endpoints.items():
                cap = limits.slots if endpoint in self._quick else limits.per_endpoint
                if self._running_endpoint[endpoint] >= cap:
                    continue
                due = queue.popleft()
                self._forget_waiting(account, endpoint)
                if account in self._ready:  # round-robin: this account goes last
                    self._ready[account] = self._ready.pop(account)
                    if endpoint in self._ready[account]:
                        queue = self._ready[account].pop(endpoint)
                        self._ready[account][endpoint] = queue
                self._running_account[account] += 1
                self._running_endpoint[endpoint] += 1
                self.running += 1
                return due
        return None

    def finished(self, due: DueDelivery, took_s: float) -> None:
        """An attempt started by `start_next` has ended after `took_s`: its slot is free.
        An endpoint that answered within `QUICK_S` may run more than `per_endpoint` at once
        (it frees them as fast), until an attempt of it is slow."""
        account, endpoint = due.delivery.account_id, due.delivery.endpoint_id
        _decrement(self._running_account, account)
        _decrement(self._running_endpoint, endpoint)
        self.running -= 1
        self._quick.pop(endpoint, None)
        if took_s < QUICK_S:
            self._quick[endpoint] = account  # the most recent last
            if len(self._quick) > QUICK_REMEMBERED:
                del self._quick[next(iter(self._quick))]

    def waiting_ids(self) -> list[str]:
        return [d.delivery.id for e in self._ready.values() for q in e.values() for d in q]

    def _forget_waiting(self, account: str, endpoint: str) -> None:
        """A delivery left its ready queue to start."""
        self._forget_one(account, endpoint)
        endpoints = self._ready[account]
        if not endpoints[endpoint]:
            del endpoints[endpoint]
            if not endpoints:
                del self._ready[account]

    def _forget_one(self, account: str, endpoint: str) -> None:
        """One delivery no longer waits (started or withdrawn): one beyond the share first."""
        _decrement(self._waiting_account, account)
        _decrement(self._waiting_endpoint, endpoint)
        self.waiting -= 1
        if self._ahead[account]:
            _decrement(self._ahead, account)
            self.ahead -= 1


def _decrement(counts: Counter[str], key: str) -> None:
    """Counters drop keys at zero, so a long run does not keep every account it served."""
    if counts[key] <= 1:
        counts.pop(key, None)
    else:
        counts[key] -= 1
