"""The server secret in the data dir: signs browser storage and CSRF tokens across restarts."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

SECRET_FILE = "secret.key"  # noqa: S105 - a file name, not a secret


def load_or_create_secret(data_dir: Path) -> str:
    path = data_dir / SECRET_FILE
    if path.exists():
        value = path.read_text(encoding="ascii").strip()
        if len(value) >= 32:
            return value
    data_dir.mkdir(parents=True, exist_ok=True)
    value = secrets.token_hex(32)
    # Created with owner-only permissions before the secret is written into it.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(value)
    return value
