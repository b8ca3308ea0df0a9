"""Accounts at the team's OpenID Connect provider linked to users (`provider_identities`)."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from storage.access.records import IdentityLink, User
from storage.database import Database
from storage.records import columns_of, record_of
from storage.tables import ProviderIdentity
from storage.tables import User as UserRow


class Identities:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def linked_user(self, issuer: str, subject: str) -> User | None:
        """The user the identity is linked to, or None (not linked, or the account is gone)."""
        async with self.db.read() as session:
            found = (
                await session.exec(
                    select(UserRow)
                    .join(ProviderIdentity, ProviderIdentity.user_id == UserRow.id)  # type: ignore[arg-type]
                    .where(ProviderIdentity.issuer == issuer, ProviderIdentity.subject == subject)
                )
            ).first()
        return None if found is None else record_of(User, found)

    async def link(self, link: IdentityLink) -> bool:
        """Links the identity to its user; False (nothing changed) if it is already linked or the
        user does not exist."""
        try:
            async with self.db.write() as session:
                if await session.get(ProviderIdentity, (link.issuer, link.subject)) is not None:
                    return False
                if await session.get(UserRow, link.user_id) is None:
                    return False
                session.add(ProviderIdentity(**columns_of(link)))
        except IntegrityError:  # linked by another transaction between the check and the commit
            return False
        return True

    async def add_user_linked(self, user: User, link: IdentityLink) -> bool:
        """Adds the user and links the identity to it, in one transaction; False (nothing added) if
        the username is taken or the identity already linked."""
        try:
            async with self.db.write() as session:
                if await session.get(ProviderIdentity, (link.issuer, link.subject)) is not None:
                    return False
                taken = (await session.exec(select(UserRow).where(UserRow.username == user.username))).first()
                if taken is not None:
                    return False
                session.add(UserRow(**columns_of(user)))
                await session.flush()
                session.add(ProviderIdentity(**columns_of(link)))
        except IntegrityError:  # the same name or identity added by another sign-in meanwhile
            return False
        return True
