"""The retention period's cutoff."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from energyhub.domain.retention import PrunedKind, retention_cutoff

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def test_the_cutoff_is_the_period_before_now() -> None:
    assert retention_cutoff(NOW, 90) == NOW - timedelta(days=90)
    assert retention_cutoff(NOW, 1) == NOW - timedelta(days=1)


def test_zero_days_prunes_nothing() -> None:
    assert retention_cutoff(NOW, 0) is None


def test_negative_days_are_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        retention_cutoff(NOW, -1)


def test_deliveries_go_before_the_events_they_came_from() -> None:
    order = list(PrunedKind)
    assert order.index(PrunedKind.DELIVERIES) < order.index(PrunedKind.EVENTS)
