"""Retention as the service runs it: ENERGYHUB_RETENTION_DAYS (90 by default, 0 keeps
everything, negative refused) and the worker bootstrap starts with the others."""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic import ValidationError

from energyhub.bootstrap import Container
from energyhub.config import Settings
from energyhub.domain.clock import FakeClock
from energyhub.persistence.tables import webhook_deliveries
from tests.conftest import START
from tests.integration.test_retention import _delivery, _device_and_endpoint, _ids, _insert


async def test_the_service_prunes_at_start_then_hourly(
    container: Container, clock: FakeClock
) -> None:
    await _device_and_endpoint(container)
    await _insert(container, webhook_deliveries, [_delivery("d_old")])
    worker = container.retention
    assert worker.retention.days == 90

    assert await worker.run_pass() == START + timedelta(hours=1)

    assert await _ids(container, webhook_deliveries) == set()


def test_the_setting() -> None:
    assert Settings().retention_days == 90
    assert Settings(retention_days=0).retention_days == 0
    with pytest.raises(ValidationError):
        Settings(retention_days=-1)
