"""Manufacturer credentials encrypted at rest (DESIGN "Secrets"): `cryptography`'s
MultiFernet over the keys of ENERGYHUB_SECRET_KEY. The first key encrypts; every key
decrypts, so a new key is put first and the old one kept until `rotate` has re-encrypted
everything."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson
from cryptography.fernet import Fernet, InvalidToken, MultiFernet


class SecretKeyError(ValueError):
    """A configured key is not a Fernet key."""


class CredentialsUnreadable(Exception):
    """Stored credentials that no configured key decrypts (a key was dropped too early)."""


def parse_keys(text: str) -> list[str]:
    """The keys of a comma-separated ENERGYHUB_SECRET_KEY, newest first."""
    return [part.strip() for part in text.split(",") if part.strip()]


def new_key() -> str:
    return Fernet.generate_key().decode()


class CredentialCipher:
    def __init__(self, keys: Sequence[str]) -> None:
        if not keys:
            raise SecretKeyError("no secret key configured")
        fernets = []
        for position, key in enumerate(keys, start=1):
            try:
                fernets.append(Fernet(key.encode()))
            except ValueError:
                raise SecretKeyError(
                    f"ENERGYHUB_SECRET_KEY: key {position} is not a Fernet key (32 url-safe "
                    "base64-encoded bytes); make one with `python -c 'from cryptography.fernet "
                    "import Fernet; print(Fernet.generate_key().decode())'`"
                ) from None
        self._fernet = MultiFernet(fernets)

    def encrypt(self, credentials: Mapping[str, Any]) -> str:
        return self._fernet.encrypt(orjson.dumps(dict(credentials))).decode()

    def decrypt(self, token: str) -> dict[str, Any]:
        try:
            data: dict[str, Any] = orjson.loads(self._fernet.decrypt(token.encode()))
        except InvalidToken:
            raise CredentialsUnreadable("no configured secret key decrypts these") from None
        return data

    def rotate(self, token: str) -> str:
        """The same credentials encrypted with the first key."""
        try:
            return self._fernet.rotate(token.encode()).decode()
        except InvalidToken:
            raise CredentialsUnreadable("no configured secret key decrypts these") from None
