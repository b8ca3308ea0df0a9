"""Users, browser sessions and one-time sign-in links (`users`, `web_sessions`, `signin_links`).

There is always an active administrator: the first account is kept as one, and a change that
would leave none (taking it away, deactivating) is refused in the transaction that would make it.
Such changes take one turn across instances, so two of them at once cannot both pass the check."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from sqlalchemy import delete, func, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from storage.access.records import BrowserSession, User
from storage.database import Database
from storage.records import columns_of, record_of
from storage.tables import SigninLink, WebSession
from storage.tables import User as UserRow


class Accounts:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def first_user_or_add(self, candidate: User) -> tuple[User, bool]:
        """The earliest user, or `candidate` added when there is none: (user, added).

        Instances starting together take turns here: one adds, the others find its user."""
        async with self.db.write() as session:
            await self.db.wait_turn(session, "first-start")
            first = (await session.exec(select(UserRow).order_by(col(UserRow.created_at)).limit(1))).first()
            if first is not None:
                return _user(first), False
            added = replace(candidate, administrator=True)
            session.add(_row(added))
            return added, True

    async def add_user(self, user: User) -> User | None:
        """Adds `user` (the very first account as administrator) and returns it as kept; None
        (nothing added) if its username is taken."""
        async with self.db.write() as session:
            await self.db.wait_turn(session, "first-start")
            if await _row_named(session, user.username) is not None:
                return None
            if (await session.exec(select(UserRow.id).limit(1))).first() is None:
                user = replace(user, administrator=True)
            session.add(_row(user))
            return user

    async def accounts(self) -> list[User]:
        async with self.db.read() as session:
            rows = (
                await session.exec(select(UserRow).order_by(col(UserRow.created_at), col(UserRow.id)))
            ).all()
        return [_user(row) for row in rows]

    async def set_administrator(self, user_id: str, administrator: bool) -> bool:
        """False (nothing changed) if that would leave no active administrator."""
        async with self.db.write() as session:
            row = await self._changing(session, user_id, keeps_standing=administrator)
            if row is None:
                return False
            row.administrator = administrator
            session.add(row)
            return True

    async def deactivate(self, user_id: str, now: datetime) -> bool:
        """Marks the account deactivated and ends its browser sessions and unused sign-in links,
        at once; False (nothing changed) if that would leave no active administrator."""
        async with self.db.write() as session:
            row = await self._changing(session, user_id, keeps_standing=False)
            if row is None:
                return False
            row.deactivated_at = row.deactivated_at or now
            session.add(row)
            await session.exec(delete(WebSession).where(col(WebSession.user_id) == user_id))
            await session.exec(
                delete(SigninLink).where(
                    col(SigninLink.user_id) == user_id, col(SigninLink.used_at).is_(None)
                )
            )
            return True

    async def reactivate(self, user_id: str) -> None:
        async with self.db.write() as session:
            await session.exec(update(UserRow).where(col(UserRow.id) == user_id).values(deactivated_at=None))

    async def set_password(self, username: str, password_hash: str) -> bool:
        """Sets the user's password hash and ends every session signed in with the old one, in one
        transaction; False if there is no such user."""
        async with self.db.write() as session:
            row = await _row_named(session, username)
            if row is None:
                return False
            row.password_hash = password_hash
            session.add(row)
            await session.exec(delete(WebSession).where(col(WebSession.user_id) == row.id))
            return True

    async def user_named(self, username: str) -> User | None:
        async with self.db.read() as session:
            row = await _row_named(session, username)
        return None if row is None else _user(row)

    async def user(self, user_id: str) -> User | None:
        async with self.db.read() as session:
            row = await session.get(UserRow, user_id)
        return None if row is None else _user(row)

    async def user_count(self) -> int:
        async with self.db.read() as session:
            return int((await session.exec(select(func.count()).select_from(UserRow))).one())

    async def add_signin_link(
        self, token_hash: str, user_id: str, created_at: datetime, expires_at: datetime
    ) -> None:
        async with self.db.write() as session:
            session.add(
                SigninLink(
                    token_hash=token_hash, user_id=user_id, created_at=created_at, expires_at=expires_at
                )
            )

    async def use_signin_link(self, token_hash: str, now: datetime) -> str | None:
        """Marks the link used if it is unused and unexpired at `now`, atomically (of two uses at
        once exactly one gets it); the user id it signs in, or None."""
        async with self.db.write() as session:
            result = await session.exec(
                update(SigninLink)  # type: ignore[call-overload]
                .where(
                    col(SigninLink.token_hash) == token_hash,
                    col(SigninLink.used_at).is_(None),
                    col(SigninLink.expires_at) > now,
                )
                .values(used_at=now)
                .returning(SigninLink.user_id)
            )
            user_id = result.scalar_one_or_none()
        return None if user_id is None else str(user_id)

    async def start_session(self, browser: BrowserSession) -> bool:
        """Adds the session and marks its user's last sign-in, in one transaction; False (nothing
        added) if the user is gone or deactivated."""
        async with self.db.write() as session:
            row = await session.get(UserRow, browser.user_id)
            if row is None or row.deactivated_at is not None:
                return False
            row.last_sign_in_at = browser.created_at
            session.add(row)
            session.add(
                WebSession(
                    token_hash=browser.token_hash,
                    user_id=browser.user_id,
                    created_at=browser.created_at,
                    last_seen_at=browser.last_seen_at,
                    expires_at=browser.expires_at,
                )
            )
            return True

    async def session_and_user(self, token_hash: str) -> tuple[BrowserSession, User | None] | None:
        """The session and its user, read as one snapshot; None if there is no such session."""
        async with self.db.read() as session:
            row = await session.get(WebSession, token_hash)
            if row is None:
                return None
            user = await session.get(UserRow, row.user_id)
            return _browser(row), None if user is None else _user(user)

    async def touch_session(self, token_hash: str, now: datetime) -> None:
        async with self.db.write() as session:
            await session.exec(
                update(WebSession).where(col(WebSession.token_hash) == token_hash).values(last_seen_at=now)
            )

    async def end_session(self, token_hash: str) -> None:
        async with self.db.write() as session:
            await session.exec(delete(WebSession).where(col(WebSession.token_hash) == token_hash))

    async def _changing(self, session: AsyncSession, user_id: str, *, keeps_standing: bool) -> UserRow | None:
        """The account's row, to change; None if there is none, or if it is the last active
        administrator and the change (`keeps_standing` False) would take that away."""
        await self.db.wait_turn(session, "administrators")
        row = await session.get(UserRow, user_id)
        if row is None or keeps_standing or not row.administrator or row.deactivated_at is not None:
            return row
        others = await session.exec(
            select(func.count())
            .select_from(UserRow)
            .where(
                col(UserRow.administrator).is_(True),
                col(UserRow.deactivated_at).is_(None),
                col(UserRow.id) != user_id,
            )
        )
        return row if int(others.one()) > 0 else None


async def _row_named(session: AsyncSession, username: str) -> UserRow | None:
    return (await session.exec(select(UserRow).where(UserRow.username == username))).first()


def _user(row: UserRow) -> User:
    return record_of(User, row)


def _row(user: User) -> UserRow:
    return UserRow(**columns_of(user))


def _browser(row: WebSession) -> BrowserSession:
    return record_of(BrowserSession, row)
