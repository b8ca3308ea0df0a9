"""The plain records the access ledgers hand to the core: frozen, detached from any session."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class User:
    id: str
    username: str
    password_hash: str | None
    created_at: datetime
    last_sign_in_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class BrowserSession:
    """A signed-in browser; its cookie's token is known here only by its SHA-256."""

    token_hash: str
    user_id: str
    created_at: datetime
    last_seen_at: datetime
    expires_at: datetime
