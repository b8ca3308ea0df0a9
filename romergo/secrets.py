"""The server secret: signs CSRF tokens, sign-in forms and browser storage.

It lives in the database, so every instance on one database signs alike: a form one instance
rendered is accepted by another, and a restart changes nothing. The first server to start on a
database creates it; an install that kept it in `secret.key` in the data directory (before issue
17) has that value adopted, so its open tabs stay valid through the upgrade.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from sqlalchemy import select

from storage.core_tables import SERVER_SETTINGS
from storage.database import Database

SECRET_FILE = "secret.key"  # noqa: S105 - a file name, not a secret
SECRET_NAME = "server_secret"  # noqa: S105 - a row's name, not a secret
MIN_SECRET_CHARS = 32


async def server_secret(db: Database, data_dir: Path) -> str:
    """The database's secret, created (or adopted from `secret.key`) if it has none yet.

    One conditional INSERT, so instances starting together agree on the first one written."""
    proposal = _earlier_secret(data_dir) or secrets.token_hex(32)
    async with db.write() as session:
        await session.exec(
            db.upsert(SERVER_SETTINGS).values(name=SECRET_NAME, value=proposal).on_conflict_do_nothing()
        )
    async with db.read() as session:
        value = await session.scalar(
            select(SERVER_SETTINGS.c.value).where(SERVER_SETTINGS.c.name == SECRET_NAME)
        )
    assert isinstance(value, str) and len(value) >= MIN_SECRET_CHARS
    return value


def _earlier_secret(data_dir: Path) -> str | None:
    path = data_dir / SECRET_FILE
    try:
        value = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return value if len(value) >= MIN_SECRET_CHARS else None
