"""What retention needs from storage: one short batch of old rows of a kind deleted at a
time, so no prune holds locks for long."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from energyhub.domain.retention import PrunedBatch, PrunedKind


class HistoryPruner(Protocol):
    async def prune_batch(
        self,
        kind: PrunedKind,
        before: datetime,
        now: datetime,
        limit: int,
        since: datetime | None = None,
    ) -> PrunedBatch:
        """Deletes, in one transaction of its own, up to `limit` rows of `kind`, oldest
        first (from `since` on, when given), whose times are all before `before` and that
        nothing still needs at `now` (fewer than `limit`: none is left for now)."""
        ...
