"""Users, browser sessions and one-time sign-in links.

Browser sessions are server-side: the cookie carries a random token, the database its SHA-256,
so signing out (or an expiry) kills the session everywhere at once. Sessions end after
`session_idle_hours` without use and `session_absolute_days` after sign-in, whichever is first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta

from romergo.access.accounts.ledger import AccountLedger, BrowserSession, User
from romergo.access.accounts.passwords import check_strength, hash_password, verify_password
from romergo.access.ratelimit import rate_limit
from romergo.common.clock import utcnow
from romergo.common.config import Settings
from romergo.common.errors import RomergoError, invalid
from romergo.common.ids import new_id, new_secret, plausible_secret, sha256_hex
from storage import Database

_USERNAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,39}$")
_TOUCH_EVERY = timedelta(minutes=1)
DEFAULT_USERNAME = "author"
SESSION_COOKIE = "romergo_session"
"""The browser cookie that carries the session token: the pages set it, the pages and the API read it."""
DEACTIVATED = "This account is deactivated: ask an administrator."


@dataclass(frozen=True)
class SignedIn:
    user: User
    session_token: str


class AccountService:
    def __init__(self, ledger: AccountLedger, db: Database, settings: Settings) -> None:
        self.ledger = ledger
        self.settings = settings
        self.signin_attempts = rate_limit(settings, db, "signin", limit=10, window_seconds=60)

    async def ensure_first_user(self) -> tuple[User, bool]:
        """On a database without users, create `author` (no password). Returns (user, created).

        Instances starting together on one database take turns: one creates, the others find."""
        return await self.ledger.first_user_or_add(new_user(DEFAULT_USERNAME, None))

    async def create_user(self, username: str, password: str | None = None) -> User:
        name = _username(username)
        hashed = None if password is None else await hash_password(check_strength(password))
        added = await self.ledger.add_user(new_user(name, hashed))
        if added is None:
            raise RomergoError("conflict", f'User "{name}" already exists.')
        return added

    async def set_password(self, username: str, password: str) -> None:
        """A new password ends every session signed in with the old one."""
        hashed = await hash_password(check_strength(password))
        if not await self.ledger.set_password(username, hashed):
            raise RomergoError("not_found", f'User "{username}" does not exist.')

    async def user_by_name(self, username: str) -> User | None:
        return await self.ledger.user_named(username)

    async def user_by_id(self, user_id: str) -> User | None:
        return await self.ledger.user(user_id)

    async def user_count(self) -> int:
        return await self.ledger.user_count()

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
        expires_at = now + timedelta(minutes=self.settings.signin_link_minutes)
        await self.ledger.add_signin_link(sha256_hex(token), user_id, now, expires_at)
        return token

    async def sign_in_with_link(self, token: str) -> SignedIn:
        """Consumes the link atomically: of two simultaneous uses, exactly one signs in."""
        if not plausible_secret(token):
            raise RomergoError("unauthorized", "This sign-in link is not valid.")
        user_id = await self.ledger.use_signin_link(sha256_hex(token), utcnow())
        if user_id is None:
            raise RomergoError("unauthorized", "This sign-in link has expired or was already used.")
        return SignedIn(await self._user(user_id), await self.start_session(user_id))

    async def start_session(self, user_id: str) -> str:
        token = new_secret(32)
        now = utcnow()
        expires_at = now + timedelta(days=self.settings.session_absolute_days)
        if not await self.ledger.start_session(
            BrowserSession(sha256_hex(token), user_id, now, now, expires_at)
        ):
            raise RomergoError("unauthorized", DEACTIVATED)
        return token

    async def session_user(self, token: str | None) -> User | None:
        """The signed-in user for a session cookie, or None if it is unknown, idle too long or expired."""
        if not plausible_secret(token):
            return None
        now = utcnow()
        found = await self.ledger.session_and_user(sha256_hex(token))
        if found is None:
            return None
        browser, user = found
        if user is not None and user.deactivated_at is not None:
            return None
        idle_limit = browser.last_seen_at + timedelta(hours=self.settings.session_idle_hours)
        if browser.expires_at <= now or idle_limit <= now:
            return None
        # Marked seen at most once a minute: a page's every request would otherwise be a write.
        if now - browser.last_seen_at > _TOUCH_EVERY:
            await self.ledger.touch_session(browser.token_hash, now)
        return user

    async def end_session(self, token: str | None) -> None:
        if not token:
            return
        await self.ledger.end_session(sha256_hex(token))

    async def _user(self, user_id: str) -> User:
        user = await self.user_by_id(user_id)
        if user is None:
            raise RomergoError("unauthorized", "This account no longer exists.")
        return user


def new_user(username: str, password_hash: str | None) -> User:
    return User(id=new_id("usr"), username=username, password_hash=password_hash, created_at=utcnow())


def _username(value: object) -> str:
    if not isinstance(value, str) or not _USERNAME.match(value.strip().lower()):
        raise invalid("A username has 1 to 40 characters: lowercase letters, digits, and . _ - (not first).")
    return value.strip().lower()
