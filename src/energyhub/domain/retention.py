"""How long history is kept: webhook events, deliveries (with their attempts), ended actions
and devices' state samples older than the retention period are pruned; charging sessions,
devices, schedules and everything still in play are kept."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum


class PrunedKind(StrEnum):
    """What retention prunes, in the order it prunes them (a kind whose rows others name
    comes after them)."""

    DELIVERIES = "deliveries"
    EVENTS = "events"
    ACTIONS = "actions"
    SAMPLES = "samples"


DEFAULT_RETENTION_DAYS = 90


@dataclass(frozen=True, slots=True)
class PrunedBatch:
    """What one batch deleted: how many rows, and the newest of their times (where the next
    batch of the pass goes on from; None when it deleted nothing)."""

    count: int
    through: datetime | None


def retention_cutoff(now: datetime, days: int) -> datetime | None:
    """Rows whose times are all before this are old enough to prune; None (`days` 0):
    nothing is pruned."""
    if days < 0:
        raise ValueError("retention days cannot be negative")
    return None if days == 0 else now - timedelta(days=days)
