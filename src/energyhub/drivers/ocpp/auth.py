"""OCPP security profile 1: HTTP Basic auth at the websocket handshake, the user name being
the charge point id. Passwords are stored as salted scrypt hashes (`credentials.py` checks
them at the handshake), each with a proof: an HMAC of the password under a key derived from
the service's credential key. A handshake checks the proof (microseconds) and runs scrypt
(about 0.1 s of a core) only where no key the service holds made the proof, so a thousand
chargers reconnecting after a restart cost no scrypt. The proof is as strong as that key is
secret: a database read without it gives an attacker the scrypt hash to work on and nothing
faster; with it, every stored vendor credential is readable anyway."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
_MAXMEM = 64 * 1024 * 1024


_PROOF_LABEL = b"energyhub ocpp handshake password proof\n"
_HASH_FIELDS = 6  # scrypt$n$r$p$salt$digest, then the proof as `<key id>:<mac>`


@dataclass(frozen=True, slots=True)
class ProofKeys:
    """The proof keys, one per credential key (newest first: new proofs use it), each with
    its id (stored beside the proof, so a check knows which key made it)."""

    keys: tuple[tuple[str, bytes], ...]

    @classmethod
    def of(cls, credential_keys: Sequence[str]) -> ProofKeys:
        derived = (hashlib.sha256(_PROOF_LABEL + k.encode()).digest() for k in credential_keys)
        return cls(tuple((hashlib.sha256(key).hexdigest()[:8], key) for key in derived))

    def proof(self, password: str) -> str:
        key_id, key = self.keys[0]
        return f"{key_id}:{base64.b64encode(_mac(key, password)).decode()}"

    def proven(self, password: str, stored: str) -> bool | None:
        """Whether `password` is the one the stored proof was made from; None when the
        stored hash has no proof by a key held here (scrypt decides)."""
        fields = stored.split("$")
        if len(fields) != _HASH_FIELDS + 1:
            return None
        key_id, _, mac = fields[_HASH_FIELDS].partition(":")
        key = next((k for i, k in self.keys if i == key_id), None)
        if key is None:
            return None
        try:
            expected = base64.b64decode(mac, validate=True)
        except binascii.Error:
            return None
        return hmac.compare_digest(_mac(key, password), expected)


def _mac(key: bytes, password: str) -> bytes:
    return hmac.new(key, password.encode(), hashlib.sha256).digest()


def has_proof(stored: str) -> bool:
    return len(stored.split("$")) == _HASH_FIELDS + 1


def with_proof(stored: str, proof: str) -> str:
    """A stored hash with this proof (any older proof replaced)."""
    return "$".join([*stored.split("$")[:_HASH_FIELDS], proof])


def hash_password(password: str, proofs: ProofKeys | None = None) -> str:
    salt = secrets.token_bytes(16)
    digest = _scrypt(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    stored = "$".join(
        (
            "scrypt",
            str(SCRYPT_N),
            str(SCRYPT_R),
            str(SCRYPT_P),
            base64.b64encode(salt).decode(),
            base64.b64encode(digest).decode(),
        )
    )
    return stored if proofs is None else with_proof(stored, proofs.proof(password))


def verify_password(password: str, stored: str) -> bool:
    """The scrypt check (the proof, if any, is not consulted)."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")[:_HASH_FIELDS]
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(digest)
        actual = _scrypt(password, base64.b64decode(salt), int(n), int(r), int(p))
    except (ValueError, binascii.Error):
        return False
    return hmac.compare_digest(actual, expected)


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode(), salt=salt, n=n, r=r, p=p, maxmem=_MAXMEM, dklen=32)


def basic_credentials(authorization: str | None) -> tuple[str, str] | None:
    """(user, password) from an `Authorization: Basic ...` header, or None."""
    if not authorization:
        return None
    scheme, _, encoded = authorization.partition(" ")
    if scheme.lower() != "basic" or not encoded:
        return None
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    user, sep, password = decoded.partition(":")
    return (user, password) if sep else None
