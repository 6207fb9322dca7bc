"""Who holds a charger's connection, on the charge point rows (SQLite and PostgreSQL): each
claim raises the generation, a holder's renewal returns only what it still holds, a lease
that ran out is nobody's, and a release touches only its own generation."""

from __future__ import annotations

from datetime import timedelta

from energyhub.bootstrap import Container
from energyhub.persistence.charger_owners import SqlChargerOwners
from energyhub.ports.charger_owners import ChargerOwner
from tests.support import FakeClock

LEASE = timedelta(seconds=20)


async def test_claims_fence_renewals_and_leases_release(
    container: Container, clock: FakeClock
) -> None:
    account = await container.services.accounts.create_account("owners")
    device = await container.commissioning.add_ocpp(
        account.id, "u", "CP-OWN", "owners-password-0123"
    )
    owners = SqlChargerOwners(container.engine)
    now = clock.now()
    assert await owners.owner_of(device.id, now) is None

    assert await owners.claim("CP-OWN", "a", now + LEASE) == 1
    assert await owners.owner_of(device.id, now) == ChargerOwner("CP-OWN", "a", 1)
    assert await owners.claim("CP-OWN", "b", now + LEASE) == 2  # it reconnected to b
    assert await owners.renew("a", now + 2 * LEASE) == {}  # a holds nothing any more
    await owners.release("CP-OWN", "a", 1)  # a's old connection ends: b keeps it
    assert await owners.owner_of(device.id, now) == ChargerOwner("CP-OWN", "b", 2)

    assert await owners.renew("b", now + LEASE + timedelta(seconds=5)) == {"CP-OWN": 2}
    later = now + LEASE + timedelta(seconds=6)
    assert await owners.owner_of(device.id, later) is None  # b stopped renewing: released

    await owners.release_all("b")
    assert await owners.owner_of(device.id, now) is None
    assert await owners.claim("CP-OWN", "c", now + LEASE) == 3  # generations never go back
