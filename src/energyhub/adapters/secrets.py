"""Secrets encrypted at rest (DESIGN "Secrets"): manufacturer credentials and webhook
signing secrets, with `cryptography`'s MultiFernet over the keys of ENERGYHUB_SECRET_KEY.
The first key encrypts; every key decrypts, so a new key is put first and the old one kept
until `energyhub secrets rotate` has re-encrypted everything."""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:  # cryptography loads on first use: ~8 MB (its Rust core) a service may skip
    from cryptography.fernet import MultiFernet


class SecretKeyError(ValueError):
    """A configured key is not a Fernet key."""


class CredentialsUnreadable(Exception):
    """Stored credentials that no configured key decrypts (a key was dropped too early)."""


def parse_keys(text: str) -> list[str]:
    """The keys of a comma-separated ENERGYHUB_SECRET_KEY, newest first."""
    return [part.strip() for part in text.split(",") if part.strip()]


def new_key() -> str:
    """A Fernet key, as `Fernet.generate_key()` makes it."""
    return base64.urlsafe_b64encode(os.urandom(32)).decode()


def _is_fernet_key(key: str) -> bool:
    """What `Fernet(key)` checks: 32 bytes in url-safe base64."""
    try:
        return len(base64.urlsafe_b64decode(key.encode())) == 32
    except (binascii.Error, ValueError):
        return False


class CredentialCipher:
    def __init__(self, keys: Sequence[str]) -> None:
        if not keys:
            raise SecretKeyError("no secret key configured")
        for position, key in enumerate(keys, start=1):
            if not _is_fernet_key(key):
                raise SecretKeyError(
                    f"ENERGYHUB_SECRET_KEY: key {position} is not a Fernet key (32 url-safe "
                    "base64-encoded bytes); make one with `python -c 'from cryptography.fernet "
                    "import Fernet; print(Fernet.generate_key().decode())'`"
                )
        self._keys = list(keys)
        self._multi: MultiFernet | None = None

    @property
    def _fernet(self) -> MultiFernet:
        """Built on first use: a service that stores no secret never loads cryptography."""
        if self._multi is None:
            from cryptography.fernet import Fernet, MultiFernet

            self._multi = MultiFernet([Fernet(key.encode()) for key in self._keys])
        return self._multi

    def encrypt(self, credentials: Mapping[str, Any]) -> str:
        return self._fernet.encrypt(orjson.dumps(dict(credentials))).decode()

    def decrypt(self, token: str) -> dict[str, Any]:
        try:
            data: dict[str, Any] = orjson.loads(self._fernet.decrypt(token.encode()))
        except _invalid_token():
            raise CredentialsUnreadable("no configured secret key decrypts these") from None
        return data

    def seal_text(self, text: str) -> str:
        """A secret string (a webhook signing secret), encrypted."""
        return self._fernet.encrypt(text.encode()).decode()

    def open_text(self, token: str) -> str:
        try:
            return self._fernet.decrypt(token.encode()).decode()
        except _invalid_token():
            raise CredentialsUnreadable("no configured secret key decrypts this") from None

    def rotate(self, token: str) -> str:
        """The same credentials (or text) encrypted with the first key."""
        try:
            return self._fernet.rotate(token.encode()).decode()
        except _invalid_token():
            raise CredentialsUnreadable("no configured secret key decrypts these") from None


def _invalid_token() -> type[Exception]:
    from cryptography.fernet import InvalidToken

    return InvalidToken
