"""What every part of the agent service shares: the database, settings, revocation, clean-up."""

from __future__ import annotations

import time
import unicodedata
from datetime import datetime, timedelta

from sqlalchemy import delete, update
from sqlmodel import col

from romergo.clock import utcnow
from romergo.config import Settings
from romergo.errors import RomergoError, invalid
from romergo.ratelimit import RateLimiter
from storage import Database
from storage.tables import AgentAuthorization, AgentCode, AgentGrant, AgentToken

TOUCH_EVERY = timedelta(minutes=1)
PURGE_EVERY_SECONDS = 600
MAX_NAME_CHARS = 100
MAX_TOKEN_CHARS = 200
TOKEN_PREFIX = {"access": "rga_", "refresh": "rgr_", "personal": "rgp_", "code": "rgc_"}
"""Recognisable prefixes (for people and secret scanners); the rest is 256 random bits."""


class AgentBase:
    def __init__(self, db: Database, settings: Settings) -> None:
        self.db = db
        self.settings = settings
        self.registrations = RateLimiter(limit=settings.registrations_per_minute, window_seconds=60)
        self._next_purge = 0.0

    @property
    def issuer(self) -> str:
        """The OAuth issuer: exactly the configured base URL (never taken from request headers)."""
        return self.settings.base_url

    @property
    def resource(self) -> str:
        """The audience of every OAuth access token: this server's MCP endpoint."""
        return self.settings.mcp_url

    # -- housekeeping ----------------------------------------------------------------------------

    async def purge_expired(self) -> None:
        """Forget expired consent requests, codes and tokens (their grants stay, for the record)."""
        now = utcnow()
        async with self.db.write() as session:
            await session.exec(delete(AgentAuthorization).where(col(AgentAuthorization.expires_at) <= now))
            await session.exec(delete(AgentCode).where(col(AgentCode.expires_at) <= now))
            await session.exec(
                delete(AgentToken).where(
                    col(AgentToken.expires_at).is_not(None), col(AgentToken.expires_at) <= now
                )
            )

    async def _maybe_purge(self) -> None:
        if time.monotonic() >= self._next_purge:
            self._next_purge = time.monotonic() + PURGE_EVERY_SECONDS
            await self.purge_expired()

    async def _revoke_grants(self, grant_ids: list[str]) -> int:
        async with self.db.write() as session:
            result = await session.exec(
                update(AgentGrant)  # type: ignore[call-overload]
                .where(col(AgentGrant.id).in_(grant_ids), col(AgentGrant.revoked_at).is_(None))
                .values(revoked_at=utcnow())
                .returning(AgentGrant.id)
            )
            return len(result.all())


def client_name(name: str | None) -> str:
    if name is None or (isinstance(name, str) and not name.strip()):
        return "Unnamed agent"
    if not isinstance(name, str):
        raise invalid("A client name must be text.")
    clean = " ".join(name.split())
    if len(clean) > MAX_NAME_CHARS:
        raise invalid(f"A client name has at most {MAX_NAME_CHARS} characters.")
    # Control and format characters (bidi overrides, zero-width joiners, tags) could disguise the
    # name on the consent page.
    if any(unicodedata.category(char) in ("Cc", "Cf") for char in clean):
        raise invalid("A client name must not contain control or invisible formatting characters.")
    return clean


def plausible(token: object) -> bool:
    return isinstance(token, str) and 0 < len(token) <= MAX_TOKEN_CHARS


def expired(moment: datetime | None, now: datetime) -> bool:
    return moment is not None and moment <= now


def answered() -> RomergoError:
    return RomergoError(
        "conflict",
        "This request was already answered or has expired. Start connecting again from your agent.",
    )
