"""What commissioning a charger needs from the OCPP driver (`ports.ocpp.ChargerCommissioner`
and `PasswordHasher`): the capabilities a charger that declared nothing yet is assumed to
have, its offline state, and the handshake password's salted hash with its proof."""

from __future__ import annotations

from typing import Any

from energyhub.domain.capabilities import Capabilities
from energyhub.drivers.ocpp import mapping
from energyhub.drivers.ocpp.auth import ProofKeys, hash_password, verify_password


class OcppChargers:
    def __init__(self, proofs: ProofKeys | None = None) -> None:
        self._proofs = proofs

    def capabilities(self) -> Capabilities:
        return mapping.capabilities_for(mapping.Declaration())

    def offline_state(self) -> dict[str, Any]:
        return mapping.state_body(mapping.OFFLINE, {}, None, None)

    def hash_password(self, password: str) -> str:
        return hash_password(password, self._proofs)

    def verify_password(self, password: str, stored: str) -> bool:
        return verify_password(password, stored)
