"""What the accounts need kept: users, who administers them, browser sessions, one-time sign-in
links, and accounts at the team's identity provider linked to users.

Implemented by `storage.access.accounts` and `storage.access.identities`; the records are
storage's (`storage.access.records`), re-exported here for the core's callers."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from storage.access.records import BrowserSession, IdentityLink, User

__all__ = ["AccountLedger", "BrowserSession", "IdentityLedger", "IdentityLink", "User"]


class AccountLedger(Protocol):
    async def first_user_or_add(self, candidate: User) -> tuple[User, bool]:
        """The earliest user, or `candidate` added (as administrator) if there is none yet: (user,
        added). Callers racing here take turns, so exactly one adds."""
        ...

    async def add_user(self, user: User) -> User | None:
        """Adds `user`, the very first account as administrator, and returns it as kept; None (and
        nothing added) if its username is taken."""
        ...

    async def accounts(self) -> list[User]:
        """Every account, oldest first."""
        ...

    async def set_administrator(self, user_id: str, administrator: bool) -> bool:
        """Makes the account an administrator or not; False (nothing changed) if that would leave
        no active administrator. Two such changes at once take turns."""
        ...

    async def deactivate(self, user_id: str, now: datetime) -> bool:
        """Marks the account deactivated and ends its browser sessions and unused sign-in links, at
        once; False (nothing changed) if that would leave no active administrator."""
        ...

    async def reactivate(self, user_id: str) -> None: ...

    async def set_password(self, username: str, password_hash: str) -> bool:
        """Sets the password hash and ends all the user's browser sessions, at once; False if
        there is no such user."""
        ...

    async def user_named(self, username: str) -> User | None: ...

    async def user(self, user_id: str) -> User | None: ...

    async def user_count(self) -> int: ...

    async def add_signin_link(
        self, token_hash: str, user_id: str, created_at: datetime, expires_at: datetime
    ) -> None: ...

    async def use_signin_link(self, token_hash: str, now: datetime) -> str | None:
        """Consumes an unused link still valid at `now`, atomically; its user id, or None."""
        ...

    async def start_session(self, browser: BrowserSession) -> bool:
        """Keeps the session and marks the user's last sign-in at its creation time; False (nothing
        kept) if the user is gone or deactivated: no way of signing in passes that."""
        ...

    async def session_and_user(self, token_hash: str) -> tuple[BrowserSession, User | None] | None:
        """The session and its user (None if the account is gone), or None without a session."""
        ...

    async def touch_session(self, token_hash: str, now: datetime) -> None: ...

    async def end_session(self, token_hash: str) -> None: ...


class IdentityLedger(Protocol):
    async def linked_user(self, issuer: str, subject: str) -> User | None:
        """The user the identity signs in as, or None."""
        ...

    async def link(self, link: IdentityLink) -> bool:
        """Links the identity to its user; False (nothing changed) if it is already linked or the
        user does not exist."""
        ...

    async def add_user_linked(self, user: User, link: IdentityLink) -> bool:
        """Adds the user with the identity linked, at once; False (nothing added) if the username
        is taken or the identity already linked."""
        ...
