"""How the webhook sender shares its attempt slots between accounts and endpoints. Pure: the
sender (services/webhook_sender.py) asks it what to lease and what to start next.

A slow receiver holds a slot for up to the attempt timeout (15 s), so a tenant with many
slow endpoints must not be able to take every slot, nor every lease: a bystander's first
attempt has to start within 2 s of its event. The rules:
- free slots go round-robin over accounts, and within an account over its endpoints;
- at most `per_endpoint` attempts run at once to one endpoint, unless its last attempt
  was quick (then the account's share applies: a fast receiver is not slowed down, and a
  slow one never gets more);
- an account that already has an attempt under way may not take the last `reserve`
  slots: those are kept for accounts with nothing under way;
- leased deliveries waiting for a slot are bounded per endpoint, per account and in all
  (`held`), with `reserve` more leases kept for accounts that hold nothing.
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
        self._quick: set[str] = set()  # endpoints that answer fast: see `finished`

    @property
    def held(self) -> int:
        return self.running + self.waiting

    def room(self) -> int:
        """How many more deliveries a fetch may offer (`admit` takes those that fit)."""
        return max(0, self.limits.held + self.limits.reserve - self.held)

    def has_room(self, account_id: str) -> bool:
        """Whether `admit` could take a delivery of this account (of an endpoint with room)."""
        if self._waiting_account[account_id] >= self.limits.waiting_per_account:
            return False
        new = not (self._running_account[account_id] or self._waiting_account[account_id])
        return self.held < self.limits.held or (new and self.held < self.room_for_new)

    @property
    def room_for_new(self) -> int:
        return self.limits.held + self.limits.reserve

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
            if not self.has_room(account):
                continue
            if self.endpoint_full(endpoint):
                continue
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
                account, endpoint = due.delivery.account_id, due.delivery.endpoint_id
                _decrement(self._waiting_account, account)
                _decrement(self._waiting_endpoint, endpoint)
                self.waiting -= 1

    def full_accounts(self, *, half: bool = True) -> list[str]:
        """Accounts a fetch should skip: (half) their waiting room is used, or every lease
        is (then only accounts holding nothing may add work)."""
        if self.held >= self.limits.held:
            return sorted({*self._running_account, *self._waiting_account})
        least = self.limits.waiting_per_account // (2 if half else 1)
        return sorted(a for a, n in self._waiting_account.items() if n >= least)

    def endpoint_full(self, endpoint_id: str) -> bool:
        """Whether `admit` would refuse a delivery to this endpoint now."""
        return self._waiting_endpoint[endpoint_id] >= self._waiting_cap(endpoint_id)

    def _waiting_cap(self, endpoint_id: str) -> int:
        limits = self.limits
        quick = endpoint_id in self._quick
        return limits.waiting_per_account if quick else limits.waiting_per_endpoint

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
        (it frees them as fast), until an attempt of it is slow or it holds nothing."""
        account, endpoint = due.delivery.account_id, due.delivery.endpoint_id
        _decrement(self._running_account, account)
        _decrement(self._running_endpoint, endpoint)
        self.running -= 1
        holds = self._running_endpoint[endpoint] or self._waiting_endpoint[endpoint]
        if took_s < QUICK_S and holds:
            self._quick.add(endpoint)
        else:
            self._quick.discard(endpoint)

    def waiting_ids(self) -> list[str]:
        return [d.delivery.id for e in self._ready.values() for q in e.values() for d in q]

    def _forget_waiting(self, account: str, endpoint: str) -> None:
        """A delivery left its ready queue to start."""
        _decrement(self._waiting_account, account)
        _decrement(self._waiting_endpoint, endpoint)
        self.waiting -= 1
        endpoints = self._ready[account]
        if not endpoints[endpoint]:
            del endpoints[endpoint]
            if not endpoints:
                del self._ready[account]


def _decrement(counts: Counter[str], key: str) -> None:
    """Counters drop keys at zero, so a long run does not keep every account it served."""
    if counts[key] <= 1:
        counts.pop(key, None)
    else:
        counts[key] -= 1
