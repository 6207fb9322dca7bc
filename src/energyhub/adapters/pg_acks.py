"""Which batches of signals every listening process has acknowledged: the bookkeeping of
`pg_signals` (a batch that must be heard before a write answers waits for one ack from each
process that was listening when it was sent). Acks can come before the statement that sent
the batch returns: a batch is opened before it is sent, and acks are kept from then on."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field


@dataclass(slots=True)
class Batch:
    began: int  # the sequence number before its first signal
    listening: set[str] | None = None  # known once the statement that sent it returned
    acked: set[str] = field(default_factory=set)

    @property
    def settled(self) -> bool:
        return self.listening is not None and self.listening <= self.acked


class Acks:
    def __init__(self) -> None:
        self.published = 0  # signals published that need acks (a sequence number)
        self.progress = asyncio.Event()  # set and replaced whenever a batch settles
        self._sent_upto = 0  # the sequence number of the last batch sent
        self._confirmed = 0  # every signal up to this was acked (or given up on)
        self._batches: dict[int, Batch] = {}  # by their last sequence number

    @property
    def pending(self) -> bool:
        return self._confirmed < self.published

    def unsent(self, upto: int) -> bool:
        return upto > self._sent_upto

    def confirmed(self, upto: int) -> bool:
        return self._confirmed >= upto

    def opening(self, upto: int) -> None:
        """The batch up to `upto` is about to be sent."""
        self._batches[upto] = Batch(self._sent_upto)
        self._sent_upto = upto

    def sent(self, upto: int, listening: set[str]) -> None:
        batch = self._batches.get(upto)
        if batch is not None:
            batch.listening = listening
            self._settle()

    def failed(self, upto: int) -> None:
        """The batch was not sent: it goes again in the next one."""
        batch = self._batches.pop(upto, None)
        if batch is not None:
            self._sent_upto = min(self._sent_upto, batch.began)

    def ack(self, upto: int, by: str) -> None:
        batch = self._batches.get(upto)
        if batch is not None:
            batch.acked.add(by)
            self._settle()

    def laggards(self, upto: int) -> set[str]:
        late: set[str] = set()
        for number, batch in self._batches.items():
            if number <= upto:
                late |= (batch.listening or set()) - batch.acked
        return late

    def give_up(self, upto: int) -> None:
        """Batches up to `upto` count as acked (a process stalled or died meanwhile)."""
        for number, batch in self._batches.items():
            if number <= upto:
                batch.listening = set()
        self._settle()

    def reset(self) -> None:
        """The channel went down or came up: batches sent before can no longer be acked."""
        self._batches.clear()
        self._settle()

    def _settle(self) -> None:
        for number in [n for n, batch in self._batches.items() if batch.settled]:
            del self._batches[number]
        self._confirmed = min((b.began for b in self._batches.values()), default=self._sent_upto)
        self.progress.set()
        self.progress = asyncio.Event()
