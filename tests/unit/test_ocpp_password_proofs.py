"""The handshake password's proof beside its scrypt hash: made by the newest credential
key, checked by whichever held key made it, and absent or unreadable proofs leave the
decision to scrypt."""

from __future__ import annotations

from energyhub.adapters.secrets import new_key
from energyhub.drivers.ocpp.auth import (
    ProofKeys,
    has_proof,
    hash_password,
    verify_password,
    with_proof,
)

PASSWORD = "commissioned-password-0123"
OLD, NEW = new_key(), new_key()


def test_a_proof_made_by_the_newest_key_proves_the_password_and_no_other() -> None:
    proofs = ProofKeys.of([NEW, OLD])
    stored = hash_password(PASSWORD, proofs)
    assert has_proof(stored)
    assert proofs.proven(PASSWORD, stored) is True
    assert proofs.proven("another-password-0123", stored) is False
    assert verify_password(PASSWORD, stored), "scrypt still checks a hash with a proof"
    assert not verify_password("another-password-0123", stored)


def test_a_proof_by_an_older_key_still_held_proves_it_after_a_rotation() -> None:
    stored = hash_password(PASSWORD, ProofKeys.of([OLD]))
    rotated = ProofKeys.of([NEW, OLD])
    assert rotated.proven(PASSWORD, stored) is True
    assert rotated.proven("another-password-0123", stored) is False


def test_scrypt_decides_where_no_held_key_made_the_proof() -> None:
    assert (
        ProofKeys.of([NEW]).proven(PASSWORD, hash_password(PASSWORD, ProofKeys.of([OLD]))) is None
    )
    plain = hash_password(PASSWORD)
    assert not has_proof(plain)
    assert ProofKeys.of([NEW]).proven(PASSWORD, plain) is None
    broken = plain + "$" + ProofKeys.of([NEW]).proof(PASSWORD).split(":")[0] + ":not base64!"
    assert ProofKeys.of([NEW]).proven(PASSWORD, broken) is None


def test_adding_a_proof_keeps_the_hash_and_replaces_an_older_proof() -> None:
    old_proofs, new_proofs = ProofKeys.of([OLD]), ProofKeys.of([NEW])
    stored = hash_password(PASSWORD, old_proofs)
    upgraded = with_proof(stored, new_proofs.proof(PASSWORD))
    assert upgraded.split("$")[:6] == stored.split("$")[:6]
    assert new_proofs.proven(PASSWORD, upgraded) is True
    assert old_proofs.proven(PASSWORD, upgraded) is None
    assert verify_password(PASSWORD, upgraded)
