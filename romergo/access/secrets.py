"""The server secret: signs CSRF tokens, sign-in forms and browser storage.

It lives in the database, so every instance on one database signs alike: a form one instance
rendered is accepted by another, and a restart changes nothing. The first server to start on a
database creates it; an install that kept it in `secret.key` in the data directory (before issue
17) has that value adopted, so its open tabs stay valid through the upgrade.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Protocol

SECRET_FILE = "secret.key"  # noqa: S105 - a file name, not a secret
SECRET_NAME = "server_secret"  # noqa: S105 - a row's name, not a secret
MIN_SECRET_CHARS = 32


class ServerSettingLedger(Protocol):
    """The values every instance on one database shares (`storage.access.settings`)."""

    async def keep_first(self, name: str, proposal: str) -> str:
        """The value kept under `name`: `proposal` if none was kept yet, else the earlier one
        (of instances proposing at once, exactly one value wins)."""
        ...


async def server_secret(ledger: ServerSettingLedger, data_dir: Path) -> str:
    """The database's secret, created (or adopted from `secret.key`) if it has none yet."""
    proposal = _earlier_secret(data_dir) or secrets.token_hex(32)
    value = await ledger.keep_first(SECRET_NAME, proposal)
    assert len(value) >= MIN_SECRET_CHARS
    return value


def _earlier_secret(data_dir: Path) -> str | None:
    path = data_dir / SECRET_FILE
    try:
        value = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return value if len(value) >= MIN_SECRET_CHARS else None
