"""Where the credential-encryption keys come from (CONTRACT 12): ENERGYHUB_SECRET_KEY when
set (comma-separated, newest first), else a key generated once into a file beside the
SQLite database (`<database directory>/.energyhub/secret.key`) or, for other databases,
into ENERGYHUB_DATA_DIR. `.energyhub/` is git-ignored, so the key is not committed by
mistake."""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path

from energyhub.config import Settings
from energyhub.services.secrets import new_key, parse_keys

log = logging.getLogger(__name__)

KEY_DIRECTORY = ".energyhub"
KEY_FILE = "secret.key"


def secret_key_file(settings: Settings) -> Path:
    database = settings.sqlite_path()
    if database is not None:
        return database.expanduser().resolve().parent / KEY_DIRECTORY / KEY_FILE
    return Path(settings.data_dir).expanduser().resolve() / KEY_FILE


def secret_keys(settings: Settings) -> list[str]:
    """The configured keys, or the generated key (made on the first call)."""
    if settings.secret_key:
        return parse_keys(settings.secret_key)
    path = secret_key_file(settings)
    if not path.exists():
        _create(path)
        if not settings.is_sqlite:
            log.warning(
                "generated a credential key in %s: every process sharing this database "
                "needs the same key (set ENERGYHUB_SECRET_KEY)",
                path,
            )
    return parse_keys(path.read_text())


def _create(path: Path) -> None:
    """Writes a new key readable by its owner only. The key is written to a temporary file
    and hard-linked into place, so no process ever reads a half-written key; when another
    process made the file first, theirs wins."""
    path.parent.mkdir(parents=True, exist_ok=True)
    draft = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(descriptor, "w") as sink:
            sink.write(new_key() + "\n")
        with contextlib.suppress(FileExistsError):
            os.link(draft, path)
    finally:
        draft.unlink(missing_ok=True)
