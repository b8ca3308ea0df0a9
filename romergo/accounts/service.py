"""Users, browser sessions and one-time sign-in links.

Browser sessions are server-side: the cookie carries a random token, the database its SHA-256,
so signing out (or an expiry) kills the session everywhere at once. Sessions end after
`session_idle_hours` without use and `session_absolute_days` after sign-in, whichever is first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, func, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from romergo.accounts.passwords import check_strength, hash_password, verify_password
from romergo.clock import utcnow
from romergo.config import Settings
from romergo.errors import RomergoError, invalid
from romergo.ids import new_id, new_secret, plausible_secret, sha256_hex
from romergo.ratelimit import rate_limit
from storage import Database
from storage.tables import SigninLink, User, WebSession

_USERNAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,39}$")
_TOUCH_EVERY = timedelta(minutes=1)
DEFAULT_USERNAME = "author"
SESSION_COOKIE = "romergo_session"
"""The browser cookie that carries the session token: the pages set it, the pages and the API read it."""


@dataclass(frozen=True)
class SignedIn:
    user: User
    session_token: str


class AccountService:
    def __init__(self, db: Database, settings: Settings) -> None:
        self.db = db
        self.settings = settings
        self.signin_attempts = rate_limit(settings, db, "signin", limit=10, window_seconds=60)

    async def ensure_first_user(self) -> tuple[User, bool]:
        """On a database without users, create `author` (no password). Returns (user, created).

        Instances starting together on one database take turns here: one creates, the others find."""
        async with self.db.write() as session:
            await self.db.wait_turn(session, "first-start")
            first = (await session.exec(select(User).order_by(col(User.created_at)).limit(1))).first()
            if first is not None:
                return first, False
            user = User(id=new_id("usr"), username=DEFAULT_USERNAME, created_at=utcnow())
            session.add(user)
            return user, True

    async def create_user(self, username: str, password: str | None = None) -> User:
        name = _username(username)
        hashed = None if password is None else await hash_password(check_strength(password))
        async with self.db.write() as session:
            if await _user_named(session, name) is not None:
                raise RomergoError("conflict", f'User "{name}" already exists.')
            user = User(id=new_id("usr"), username=name, password_hash=hashed, created_at=utcnow())
            session.add(user)
            return user

    async def set_password(self, username: str, password: str) -> None:
        hashed = await hash_password(check_strength(password))
        async with self.db.write() as session:
            user = await _user_named(session, username)
            if user is None:
                raise RomergoError("not_found", f'User "{username}" does not exist.')
            user.password_hash = hashed
            session.add(user)
            # A new password ends every session signed in with the old one.
            await session.exec(delete(WebSession).where(col(WebSession.user_id) == user.id))

    async def user_by_name(self, username: str) -> User | None:
        async with self.db.read() as session:
            return await _user_named(session, username)

    async def user_by_id(self, user_id: str) -> User | None:
        async with self.db.read() as session:
            return await session.get(User, user_id)

    async def user_count(self) -> int:
        async with self.db.read() as session:
            return int((await session.exec(select(func.count()).select_from(User))).one())

    async def sign_in_with_password(self, username: str, password: str) -> SignedIn:
        """Raises `rate_limited` or `unauthorized` (the same message for unknown user and bad password).

        Only refused attempts count: guessing is limited, an author signing in often (every browser
        of a team, every test) is not; once the window is full even the right password waits."""
        key = (username or "").strip().lower()[:64]
        if await self.signin_attempts.full(key):
            raise RomergoError("rate_limited", "Too many sign-in attempts. Wait a minute and try again.")
        user = await self.user_by_name(key)
        if not await verify_password(password, user.password_hash if user else None) or user is None:
            await self.signin_attempts.allow(key)
            raise RomergoError("unauthorized", "Wrong username or password.")
        return SignedIn(user, await self.start_session(user.id))

    async def create_signin_link(self, user_id: str) -> str:
        token = new_secret(32)
        now = utcnow()
        async with self.db.write() as session:
            session.add(
                SigninLink(
                    token_hash=sha256_hex(token),
                    user_id=user_id,
                    created_at=now,
                    expires_at=now + timedelta(minutes=self.settings.signin_link_minutes),
                )
            )
        return token

    async def sign_in_with_link(self, token: str) -> SignedIn:
        """Consumes the link atomically: of two simultaneous uses, exactly one signs in."""
        if not plausible_secret(token):
            raise RomergoError("unauthorized", "This sign-in link is not valid.")
        now = utcnow()
        async with self.db.write() as session:
            result = await session.exec(
                update(SigninLink)  # type: ignore[call-overload]
                .where(
                    col(SigninLink.token_hash) == sha256_hex(token),
                    col(SigninLink.used_at).is_(None),
                    col(SigninLink.expires_at) > now,
                )
                .values(used_at=now)
                .returning(SigninLink.user_id)
            )
            user_id = result.scalar_one_or_none()
        if user_id is None:
            raise RomergoError("unauthorized", "This sign-in link has expired or was already used.")
        return SignedIn(await self._user(user_id), await self.start_session(user_id))

    async def start_session(self, user_id: str) -> str:
        token = new_secret(32)
        now = utcnow()
        async with self.db.write() as session:
            session.add(
                WebSession(
                    token_hash=sha256_hex(token),
                    user_id=user_id,
                    created_at=now,
                    last_seen_at=now,
                    expires_at=now + timedelta(days=self.settings.session_absolute_days),
                )
            )
            user = await session.get(User, user_id)
            if user is not None:
                user.last_sign_in_at = now
                session.add(user)
        return token

    async def session_user(self, token: str | None) -> User | None:
        """The signed-in user for a session cookie, or None if it is unknown, idle too long or expired."""
        if not plausible_secret(token):
            return None
        now = utcnow()
        async with self.db.read() as session:
            row = await session.get(WebSession, sha256_hex(token))
            if row is None:
                return None
            idle_limit = row.last_seen_at + timedelta(hours=self.settings.session_idle_hours)
            if row.expires_at <= now or idle_limit <= now:
                return None
            user = await session.get(User, row.user_id)
            stale = now - row.last_seen_at > _TOUCH_EVERY
        if stale:
            async with self.db.write() as session:
                await session.exec(
                    update(WebSession)
                    .where(col(WebSession.token_hash) == sha256_hex(token))
                    .values(last_seen_at=now)
                )
        return user

    async def end_session(self, token: str | None) -> None:
        if not token:
            return
        async with self.db.write() as session:
            await session.exec(delete(WebSession).where(col(WebSession.token_hash) == sha256_hex(token)))

    async def _user(self, user_id: str) -> User:
        user = await self.user_by_id(user_id)
        if user is None:
            raise RomergoError("unauthorized", "This account no longer exists.")
        return user


async def _user_named(session: AsyncSession, username: str) -> User | None:
    return (await session.exec(select(User).where(User.username == username))).first()


def _username(value: object) -> str:
    if not isinstance(value, str) or not _USERNAME.match(value.strip().lower()):
        raise invalid("A username has 1 to 40 characters: lowercase letters, digits, and . _ - (not first).")
    return value.strip().lower()
