"""Handshakes checked by the password's proof, over real websockets: a charger commissioned
by the service connects with no scrypt run, even to a process that never saw it; a wrong
password is refused without scrypt; a hash stored without a proof costs one scrypt run, then
carries a proof, so the next process (a restart: nothing remembered) needs none."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select, update

from energyhub.drivers.ocpp.auth import has_proof, hash_password
from energyhub.persistence.tables import ocpp_charge_points
from tests.integration.ocpp_support import PASSWORD, Service, running_service
from tests.integration.test_ocpp_handshake_storm import _handshake

CP = ocpp_charge_points.c


async def _stored_hash(service: Service, cp_id: str) -> str:
    async with service.container.engine.connect() as connection:
        query = select(CP.password_hash).where(CP.charge_point_id == cp_id)
        stored: str = (await connection.execute(query)).scalar_one()
    return stored


async def test_a_commissioned_charger_connects_to_a_fresh_process_without_scrypt(
    tmp_path: Path,
) -> None:
    db = tmp_path / "ocpp.db"
    async with running_service(db) as first:
        await first.commission(await first.live_caller(), "CP-PROOF")
        assert has_proof(await _stored_hash(first, "CP-PROOF"))
    async with running_service(db) as restarted:  # nothing remembered in this process
        assert await _handshake(restarted, "CP-PROOF", PASSWORD) == (101, None)
        assert await _handshake(restarted, "CP-PROOF", "wrong-password-123456") == (401, None)
        assert restarted.container.ocpp.credentials.hashes == 0


async def test_a_hash_without_a_proof_gets_one_after_its_first_scrypt(tmp_path: Path) -> None:
    db = tmp_path / "ocpp.db"
    async with running_service(db) as first:
        await first.commission(await first.live_caller(), "CP-OLD")
        async with first.container.engine.begin() as connection:  # as stored before proofs
            await connection.execute(
                update(ocpp_charge_points)
                .where(CP.charge_point_id == "CP-OLD")
                .values(password_hash=hash_password(PASSWORD))
            )
        assert await _handshake(first, "CP-OLD", "wrong-password-123456") == (401, None)
        assert not has_proof(await _stored_hash(first, "CP-OLD")), "no proof from a failure"
        assert await _handshake(first, "CP-OLD", PASSWORD) == (101, None)
        assert first.container.ocpp.credentials.hashes == 2
        assert has_proof(await _stored_hash(first, "CP-OLD"))
    async with running_service(db) as restarted:
        assert await _handshake(restarted, "CP-OLD", PASSWORD) == (101, None)
        assert restarted.container.ocpp.credentials.hashes == 0
