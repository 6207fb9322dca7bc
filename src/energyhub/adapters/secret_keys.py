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

from energyhub.adapters.secrets import new_key, parse_keys

log = logging.getLogger(__name__)

KEY_DIRECTORY = ".energyhub"
KEY_FILE = "secret.key"


def secret_key_file(sqlite_path: Path | None, data_dir: str) -> Path:
    """Beside the SQLite database file, or in the data directory for other databases."""
    if sqlite_path is not None:
        return sqlite_path.expanduser().resolve().parent / KEY_DIRECTORY / KEY_FILE
    return Path(data_dir).expanduser().resolve() / KEY_FILE


def secret_keys(configured: str | None, key_file: Path, *, shared_database: bool) -> list[str]:
    """The configured keys, or the generated key (made on the first call). A key generated
    for a `shared_database` (not SQLite) is worth a warning: other processes need it too."""
    if configured:
        return parse_keys(configured)
    path = key_file
    if not path.exists():
        _create(path)
        if shared_database:
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
