"""What the use cases need to keep secrets at rest: a cipher for manufacturer credentials and
webhook signing secrets (`adapters.secrets.CredentialCipher`, MultiFernet)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class Cipher(Protocol):
    """Encrypts with the newest key, decrypts with any; a token no key opens raises."""

    def encrypt(self, credentials: Mapping[str, Any]) -> str: ...
    def decrypt(self, token: str) -> dict[str, Any]: ...
    def seal_text(self, text: str) -> str: ...
    def open_text(self, token: str) -> str: ...
    def rotate(self, token: str) -> str: ...
