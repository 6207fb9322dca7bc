"""What retention needs from storage: one short batch of old rows of a kind deleted at a
time, so no prune holds locks for long."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from energyhub.domain.retention import PrunedKind


class HistoryPruner(Protocol):
    async def prune_batch(
        self, kind: PrunedKind, before: datetime, now: datetime, limit: int
    ) -> int:
        """Deletes, in one transaction of its own, up to `limit` rows of `kind`, oldest
        first, whose times are all before `before` and that nothing still needs at `now`;
        returns how many it deleted (fewer than `limit`: none is left for now)."""
        ...
